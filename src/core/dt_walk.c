/* Datatype engine: moving bytes between a typed buffer and its packed
 * stream for any byte window [offset, offset+len) of count elements
 * (dmpi_dt_pack, dmpi_dt_unpack, dmpi_dt_iov), and counting basic elements
 * in a prefix of the stream (Get_elements, Status_set_elements).
 *
 * A window starts with a seek: element = offset / size, then a binary
 * search over the layout's cumulative offsets, then the block and its grid
 * position by division; from there the walk goes block by block, with a
 * tight fixed-size copy loop along the innermost dimension. A type whose
 * layout is one item is walked as one grid with the element count as an
 * extra outer dimension (vectors and subarray faces never go per element). */
#include "core/dt_layout.h"

#include <string.h>

enum { OP_PACK, OP_UNPACK, OP_IOV };

typedef struct {
    int op;
    char *stream;
    struct iovec *iov;
    int niov, max;
} walker;

/* One contiguous piece; false when the iovec array is full. */
static inline bool piece(walker *w, uintptr_t addr, MPI_Count n)
{
    switch (w->op) {
    case OP_PACK:
        memcpy(w->stream, (const void *)addr, (size_t)n);
        w->stream += n;
        return true;
    case OP_UNPACK:
        memcpy((void *)addr, w->stream, (size_t)n);
        w->stream += n;
        return true;
    default:
        if (w->niov > 0) {
            struct iovec *last = &w->iov[w->niov - 1];
            if ((uintptr_t)last->iov_base + last->iov_len == addr) {
                last->iov_len += (size_t)n;
                return true;
            }
        }
        if (w->niov == w->max) return false;
        w->iov[w->niov].iov_base = (void *)addr;
        w->iov[w->niov].iov_len = (size_t)n;
        w->niov++;
        return true;
    }
}

/* k blocks of a small fixed size T, stride bytes apart, to or from the
 * stream: unrolled by four with the loads and stores kept apart, so that
 * the compiler issues independent moves (about 1.5x a plain loop). */
typedef struct { uint64_t w[2]; } dt_b16;
typedef struct { uint64_t w[4]; } dt_b32;
typedef struct { uint64_t w[8]; } dt_b64;
#define KERNELS(NAME, T)                                                                  \
    static void NAME##_pack(char *restrict s, const char *restrict a, MPI_Aint st,        \
                            MPI_Count k)                                                  \
    {                                                                                     \
        const size_t z = sizeof(T);                                                       \
        T x0, x1, x2, x3;                                                                 \
        for (; k >= 4; k -= 4, a += 4 * st, s += 4 * z) {                                 \
            memcpy(&x0, a, z);                                                            \
            memcpy(&x1, a + st, z);                                                       \
            memcpy(&x2, a + 2 * st, z);                                                   \
            memcpy(&x3, a + 3 * st, z);                                                   \
            memcpy(s, &x0, z);                                                            \
            memcpy(s + z, &x1, z);                                                        \
            memcpy(s + 2 * z, &x2, z);                                                    \
            memcpy(s + 3 * z, &x3, z);                                                    \
        }                                                                                 \
        for (; k > 0; k--, a += st, s += z) memcpy(s, a, z);                              \
    }                                                                                     \
    static void NAME##_unpack(char *restrict a, const char *restrict s, MPI_Aint st,      \
                              MPI_Count k)                                                \
    {                                                                                     \
        const size_t z = sizeof(T);                                                       \
        T x0, x1, x2, x3;                                                                 \
        for (; k >= 4; k -= 4, a += 4 * st, s += 4 * z) {                                 \
            memcpy(&x0, s, z);                                                            \
            memcpy(&x1, s + z, z);                                                        \
            memcpy(&x2, s + 2 * z, z);                                                    \
            memcpy(&x3, s + 3 * z, z);                                                    \
            memcpy(a, &x0, z);                                                            \
            memcpy(a + st, &x1, z);                                                       \
            memcpy(a + 2 * st, &x2, z);                                                   \
            memcpy(a + 3 * st, &x3, z);                                                   \
        }                                                                                 \
        for (; k > 0; k--, a += st, s += z) memcpy(a, s, z);                              \
    }
KERNELS(k1, uint8_t)
KERNELS(k2, uint16_t)
KERNELS(k4, uint32_t)
KERNELS(k8, uint64_t)
KERNELS(k16, dt_b16)
KERNELS(k32, dt_b32)
KERNELS(k64, dt_b64)

/* k blocks of len bytes, stride apart, to or from the stream. */
static void run_blocks(walker *w, uintptr_t addr, MPI_Aint stride, MPI_Count len, MPI_Count k)
{
    char *s = w->stream, *a = (char *)addr;
    bool pack = w->op == OP_PACK;
    w->stream += k * len;
#define RUN(K)                                                                            \
    do {                                                                                  \
        if (pack) K##_pack(s, a, stride, k);                                              \
        else K##_unpack(a, s, stride, k);                                                 \
        return;                                                                           \
    } while (0)
    switch (len) {
    case 1: RUN(k1);
    case 2: RUN(k2);
    case 4: RUN(k4);
    case 8: RUN(k8);
    case 16: RUN(k16);
    case 32: RUN(k32);
    case 64: RUN(k64);
    }
#undef RUN
    for (; k > 0; k--, a += stride, s += len) {
        if (pack) memcpy(s, a, (size_t)len);
        else memcpy(a, s, (size_t)len);
    }
}

static MPI_Count walk_lay(walker *w, const dt_lay *L, uintptr_t base, MPI_Count off, MPI_Count n);

/* Bytes [off, off+n) of one item placed at base; returns the bytes done
 * (fewer only when the iovec array fills up). */
static MPI_Count walk_item(walker *w, const dt_item *it, uintptr_t base, MPI_Count off, MPI_Count n)
{
    const MPI_Count blen = it->len;
    MPI_Count b = off / blen, r = off % blen, idx[DT_MAXDIM];
    uintptr_t a = base + (uintptr_t)it->disp;
    for (int d = 0; d < it->ndim; d++) {
        idx[d] = b % it->cnt[d];
        b /= it->cnt[d];
        a += (uintptr_t)(idx[d] * it->stride[d]);
    }
    MPI_Count done = 0;
    while (done < n) {
        MPI_Count want = n - done;
        if (r == 0 && !it->sub && w->op != OP_IOV && it->ndim > 0 && want >= blen) {
            MPI_Count k = it->cnt[0] - idx[0];
            if (k > want / blen) k = want / blen;
            run_blocks(w, a, it->stride[0], blen, k);
            done += k * blen;
            dt_advance(it, idx, &a, k);
            continue;
        }
        MPI_Count m = blen - r < want ? blen - r : want;
        MPI_Count got = it->sub ? walk_lay(w, it->sub, a, r, m) : (piece(w, a + (uintptr_t)r, m) ? m : 0);
        done += got;
        if (got < m) break;
        r += m;
        if (r == blen) {
            r = 0;
            dt_advance(it, idx, &a, 1);
        }
    }
    return done;
}

/* Bytes [off, off+n) of one instance of L at base. */
static MPI_Count walk_lay(walker *w, const dt_lay *L, uintptr_t base, MPI_Count off, MPI_Count n)
{
    int i = off == 0 ? 0 : dt_lay_find(L, off);
    MPI_Count done = 0;
    while (done < n && i < L->n) {
        MPI_Count ioff = off + done - L->cum[i];
        MPI_Count m = L->cum[i + 1] - L->cum[i] - ioff;
        if (m > n - done) m = n - done;
        MPI_Count got = walk_item(w, &L->items[i], base, ioff, m);
        done += got;
        if (got < m) break;
        i++;
    }
    return done;
}

/* Bytes [offset, offset+len) of count elements of dt at buf. */
static MPI_Count walk_top(walker *w, const void *buf, MPI_Count count, const dmpi_datatype *dt,
                          MPI_Count offset, MPI_Count len)
{
    const dt_lay *L = dt->lay;
    uintptr_t base = (uintptr_t)buf;
    if (len <= 0 || dt->size == 0) return 0;
    if (L->n == 1 && L->items[0].ndim < DT_MAXDIM && count > 1) {
        dt_item it = L->items[0];
        it.cnt[it.ndim] = count;
        it.stride[it.ndim] = dt->extent;
        it.ndim++;
        dt_item_normalize(&it);
        return walk_item(w, &it, base, offset, len);
    }
    MPI_Count e = offset / dt->size, r = offset % dt->size, done = 0;
    while (done < len) {
        MPI_Count m = dt->size - r < len - done ? dt->size - r : len - done;
        MPI_Count got = walk_lay(w, L, base + (uintptr_t)(e * dt->extent), r, m);
        done += got;
        if (got < m) break;
        r = 0;
        e++;
    }
    return done;
}

void dmpi_dt_pack(const void *buf, MPI_Count count, const dmpi_datatype *dt, MPI_Count offset,
                  void *out, MPI_Count len)
{
    if (len <= 0) return;
    if (dt->contiguous) {
        memcpy(out, (const void *)dt_addr(buf, dt->true_lb + offset), (size_t)len);
        return;
    }
    walker w = {.op = OP_PACK, .stream = out};
    walk_top(&w, buf, count, dt, offset, len);
}

void dmpi_dt_unpack(void *buf, MPI_Count count, const dmpi_datatype *dt, MPI_Count offset,
                    const void *in, MPI_Count len)
{
    if (len <= 0) return;
    if (dt->contiguous) {
        memcpy((void *)dt_addr(buf, dt->true_lb + offset), in, (size_t)len);
        return;
    }
    walker w = {.op = OP_UNPACK, .stream = (char *)in};
    walk_top(&w, buf, count, dt, offset, len);
}

int dmpi_dt_iov(const void *buf, MPI_Count count, const dmpi_datatype *dt, MPI_Count offset,
                struct iovec *iov, int max_iov, MPI_Count *bytes_covered)
{
    MPI_Count total = count * dt->size;
    *bytes_covered = 0;
    if (offset >= total || max_iov <= 0) return 0;
    if (dt->contiguous) {
        iov[0].iov_base = (void *)dt_addr(buf, dt->true_lb + offset);
        iov[0].iov_len = (size_t)(total - offset);
        *bytes_covered = total - offset;
        return 1;
    }
    walker w = {.op = OP_IOV, .iov = iov, .max = max_iov};
    *bytes_covered = walk_top(&w, buf, count, dt, offset, total - offset);
    return w.niov;
}

/* ------------------------------------------------------- basic elements */
/* Basic elements in the first b bytes of one instance of typed layout L;
 * -1 if b ends inside one. */
static MPI_Count lay_elems(const dt_lay *L, MPI_Count b)
{
    if (b <= 0) return 0;
    if (b >= L->size) return L->nelem;
    int i = dt_lay_find(L, b);
    MPI_Count n = L->ecum[i], off = b - L->cum[i];
    if (off == 0) return n;
    const dt_item *it = &L->items[i];
    if (it->sub) {
        MPI_Count m = lay_elems(it->sub, off % it->len);
        return m < 0 ? -1 : n + (off / it->len) * it->sub->nelem + m;
    }
    MPI_Count es = dt_elem(it->tag)->native;
    return off % es ? -1 : n + off / es;
}

/* Bytes taken by the first e basic elements of one instance of L. */
static MPI_Count lay_bytes(const dt_lay *L, MPI_Count e)
{
    if (e <= 0) return 0;
    if (e >= L->nelem) return L->size;
    int lo = 0, hi = L->n - 1; /* largest i with ecum[i] <= e */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (L->ecum[mid] <= e) lo = mid;
        else hi = mid - 1;
    }
    const dt_item *it = &L->items[lo];
    MPI_Count off = e - L->ecum[lo];
    if (it->sub)
        return L->cum[lo] + (off / it->sub->nelem) * it->len + lay_bytes(it->sub, off % it->sub->nelem);
    return L->cum[lo] + off * dt_elem(it->tag)->native;
}

MPI_Count dt_count_elements(const dmpi_datatype *dt, MPI_Count bytes)
{
    if (dt->size == 0 || bytes <= 0) return 0;
    MPI_Count m = lay_elems(dt->tlay, bytes % dt->size);
    return m < 0 ? -1 : (bytes / dt->size) * dt->tlay->nelem + m;
}

MPI_Count dt_bytes_of_elements(const dmpi_datatype *dt, MPI_Count elements)
{
    MPI_Count per = dt->tlay->nelem;
    if (per == 0 || elements <= 0) return 0;
    return (elements / per) * dt->size + lay_bytes(dt->tlay, elements % per);
}
