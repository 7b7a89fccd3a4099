/* Helpers shared by the collective algorithms: per-call tags, typed
 * temporary buffers, local typed copies. */
#include "coll/coll.h"

#include <stdlib.h>
#include <string.h>

int dmpi_coll_tag(dmpi_comm *comm)
{
    const dmpi_coll_state *s = comm->coll_state;
    if (s) return s->fixed_tag;
    return (int)(comm->coll_seq++ & 0x3fffffffu);
}

size_t dmpi_coll_tmp_span(MPI_Count count, const dmpi_datatype *dt, MPI_Aint *shift)
{
    /* With a negative extent, elements run downwards from element 0. */
    MPI_Aint ext = dt->extent < 0 ? -dt->extent : dt->extent;
    MPI_Aint down = dt->extent < 0 && count > 1 ? (MPI_Aint)(count - 1) * ext : 0;
    *shift = down - dt->true_lb;
    if (count <= 0) return 1;
    return (size_t)((MPI_Aint)(count - 1) * ext + dt->true_extent) + 1;
}

void *dmpi_coll_tmp(MPI_Count count, const dmpi_datatype *dt, void **base)
{
    MPI_Aint shift;
    char *b = malloc(dmpi_coll_tmp_span(count, dt, &shift));
    *base = b;
    return b ? b + shift : NULL;
}

int dmpi_coll_copy(const void *src, MPI_Count scount, const dmpi_datatype *sdt, void *dst,
                   MPI_Count rcount, const dmpi_datatype *rdt)
{
    MPI_Count n = scount * sdt->size;
    if (n > rcount * rdt->size) return MPI_ERR_TRUNCATE;
    if (n == 0 || (src == dst && sdt == rdt)) return MPI_SUCCESS;
    const char *s = (const char *)src + sdt->true_lb;
    char *d = (char *)dst + rdt->true_lb;
    if (sdt->contiguous && rdt->contiguous) memmove(d, s, (size_t)n);
    else if (sdt->contiguous) dmpi_dt_unpack(dst, rcount, rdt, 0, s, n);
    else if (rdt->contiguous) dmpi_dt_pack(src, scount, sdt, 0, d, n);
    else {
        char bounce[16384];
        for (MPI_Count off = 0; off < n; off += (MPI_Count)sizeof bounce) {
            MPI_Count len = n - off < (MPI_Count)sizeof bounce ? n - off : (MPI_Count)sizeof bounce;
            dmpi_dt_pack(src, scount, sdt, off, bounce, len);
            dmpi_dt_unpack(dst, rcount, rdt, off, bounce, len);
        }
    }
    return MPI_SUCCESS;
}

dmpi_datatype *dmpi_coll_byte(void)
{
    return dmpi_dt_builtin(MPI_BYTE);
}

int dmpi_coll_largest_pof2(int n)
{
    int p = 1;
    while (p <= n / 2) p <<= 1;
    return p;
}

int dmpi_coll_combine(dmpi_op *op, void *theirs, void *mine, MPI_Count n, dmpi_datatype *dt,
                      bool theirs_first)
{
    if (op->commutative || theirs_first) return dmpi_op_apply(op, theirs, mine, n, dt);
    int rc = dmpi_op_apply(op, mine, theirs, n, dt);
    return rc != MPI_SUCCESS ? rc : dmpi_coll_copy(theirs, n, dt, mine, n, dt);
}

MPI_Count *dmpi_coll_blocks(dmpi_sched *s, MPI_Count count, int nb)
{
    MPI_Count *disp = dmpi_sched_alloc(s, (size_t)(nb + 1) * sizeof *disp);
    if (disp)
        for (int b = 0; b <= nb; b++)
            disp[b] = count / nb * b + (b < count % nb ? b : count % nb);
    return disp;
}
