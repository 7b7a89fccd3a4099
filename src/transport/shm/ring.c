/* Payload copies in and out of shared-memory ring packets (see ring.h). */
#include "transport/shm/ring.h"

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
    uint64_t start = (((const unsigned char *)p - r->cells) / DMPI_CELL + 1) & (r->ncells - 1);
    uint64_t room = (r->ncells - start) * DMPI_CELL;
    uint64_t a = n < room ? n : room;
    ptr[k] = r->cells + start * DMPI_CELL;
    len[k++] = a;
    if (n > a) {
        ptr[k] = r->cells;
        len[k++] = n - a;
    }
    return k;
}

void dmpi_ring_write_payload(dmpi_ring *r, dmpi_pkt *p, const void *src, uint64_t n)
{
    const void *ptr[3];
    uint64_t len[3];
    p->plen = (uint32_t)n;
    int k = dmpi_ring_payload_pieces(r, p, ptr, len);
    const unsigned char *s = src;
    for (int i = 0; i < k; i++) {
        memcpy((void *)ptr[i], s, len[i]);
        s += len[i];
    }
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
    /* Clear stamps so old bytes never match a future position. */
    for (uint32_t i = 0; i < n; i++)
        atomic_store_explicit(&dmpi_ring_cell(r, r->pos + i)->stamp, 0, memory_order_relaxed);
    r->pos += n;
    atomic_store_explicit(&r->ctl->tail, r->pos, memory_order_release);
}
