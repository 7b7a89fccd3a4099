/* Payload copies in and out of shared-memory ring packets (see ring.h). */
#include "transport/shm/ring.h"

/* Bytes of the ring from the cell after header p to the ring's end. */
static inline uint64_t room_after(const dmpi_ring *r, const dmpi_pkt *p)
{
    return (uint64_t)(r->cells + r->ncells * DMPI_CELL - ((const unsigned char *)p + DMPI_CELL));
}

int dmpi_ring_payload_pieces(const dmpi_ring *r, const dmpi_pkt *p, const void *ptr[3],
                             uint64_t len[3])
{
    uint64_t n = p->plen;
    int k = 0;
    uint64_t first = n < DMPI_INLINE_BYTES ? n : DMPI_INLINE_BYTES;
    if (first) {
        ptr[k] = p->payload;
        len[k++] = first;
    }
    n -= first;
    if (n == 0) return k;
    uint64_t room = room_after(r, p);
    ptr[k] = (const unsigned char *)p + DMPI_CELL;
    if (n <= room) {
        len[k++] = n;
        return k;
    }
    len[k++] = room; /* the packet wraps around the end of the ring */
    ptr[k] = r->cells;
    len[k++] = n - room;
    return k;
}

void dmpi_ring_write_payload(dmpi_ring *r, dmpi_pkt *p, const void *src, uint64_t n)
{
    uint64_t first = n < DMPI_INLINE_BYTES ? n : DMPI_INLINE_BYTES;
    if (n > first) { /* the payload cells first: see ring.h */
        const unsigned char *s = (const unsigned char *)src + first;
        uint64_t rest = n - first, room = room_after(r, p);
        unsigned char *next = (unsigned char *)p + DMPI_CELL;
        if (rest <= room) {
            memcpy(next, s, rest);
        } else {
            memcpy(next, s, room);
            memcpy(r->cells, s + room, rest - room);
        }
    }
    if (first) memcpy(p->payload, src, first); /* src may be NULL when n is 0 */
    p->plen = (uint32_t)n;
}

void dmpi_ring_read_payload(const dmpi_ring *r, const dmpi_pkt *p, uint64_t off, void *dst,
                            uint64_t n)
{
    const void *ptr[3];
    uint64_t len[3];
    int k = dmpi_ring_payload_pieces(r, p, ptr, len);
    unsigned char *d = dst;
    for (int i = 0; i < k && n > 0; i++) {
        if (off >= len[i]) {
            off -= len[i];
            continue;
        }
        uint64_t c = len[i] - off < n ? len[i] - off : n;
        memcpy(d, (const unsigned char *)ptr[i] + off, c);
        d += c;
        n -= c;
        off = 0;
    }
}

void dmpi_ring_consume(dmpi_ring *r, dmpi_pkt *p)
{
    uint32_t n = p->ncells;
    /* Payload cells only: see the top of ring.h. */
    for (uint32_t i = 1; i < n; i++)
        atomic_store_explicit(&dmpi_ring_cell(r, r->pos + i)->stamp, 0, memory_order_relaxed);
    r->pos += n;
}

void dmpi_ring_release(dmpi_ring *r)
{
    atomic_store_explicit(&r->ctl->tail, r->pos, memory_order_release);
}
