/* rma_shared.c: MPI_Win_allocate_shared. By default the ranks' memory is
 * contiguous (rank r's segment starts where rank r-1's ends, sizes differ
 * per rank and may be zero); with alloc_shared_noncontig each segment is
 * separate. MPI_Win_shared_query gives every segment's address, size and
 * displacement unit (MPI_PROC_NULL: the first non-empty one); ranks then
 * store into their own segment and load their neighbours' directly, with
 * MPI_Win_sync and a barrier in between (the usual passive-target
 * idiom), and RMA calls see the same memory. Also the _c forms. */
#include "common.h"

static MPI_Aint size_of(int r) { return r % 3 == 1 ? 0 : (MPI_Aint)(64 + 8 * r) * 8; }

static void run(int noncontig, int use_c)
{
    MPI_Info info = MPI_INFO_NULL;
    if (noncontig) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "alloc_shared_noncontig", "true");
    }
    const char *what = noncontig ? "noncontig" : use_c ? "contig(_c)" : "contig";
    MPI_Win win;
    int64_t *mine = NULL;
    MPI_Aint my = size_of(t_rank);
    if (use_c)
        MPI_CHK(MPI_Win_allocate_shared_c(my, 8, info, MPI_COMM_WORLD, &mine, &win));
    else
        MPI_CHK(MPI_Win_allocate_shared(my, 8, info, MPI_COMM_WORLD, &mine, &win));
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);

    int64_t **seg = t_malloc((size_t)t_size * sizeof *seg);
    for (int r = 0; r < t_size; r++) {
        MPI_Aint sz = -1;
        int du = -1;
        MPI_Aint duc = -1;
        if (use_c)
            MPI_CHK(MPI_Win_shared_query_c(win, r, &sz, &duc, &seg[r]));
        else
            MPI_CHK(MPI_Win_shared_query(win, r, &sz, &du, &seg[r]));
        CHECK(sz == size_of(r), "%s: rank %d's size %ld, want %ld", what, r, (long)sz,
              (long)size_of(r));
        CHECK((use_c ? duc : du) == 8, "%s: rank %d's disp_unit %ld", what, r,
              (long)(use_c ? duc : du));
        if (r == t_rank) CHECK(seg[r] == mine, "%s: my own segment at %p, not %p", what,
                               (void *)seg[r], (void *)mine);
        if (!noncontig && r > 0 &&
            !T_MPICH_QUIRK("MPICH 5.0.2 pads the segments of a contiguous shared window"))
            CHECK((char *)seg[r] == (char *)seg[r - 1] + size_of(r - 1),
                  "%s: rank %d's segment does not follow rank %d's", what, r, r - 1);
    }
    int first = -1;
    for (int r = 0; r < t_size && first < 0; r++)
        if (size_of(r) > 0) first = r;
    MPI_Aint sz;
    int du;
    void *p;
    MPI_CHK(MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &p));
    CHECK(p == seg[first] && sz == size_of(first), "%s: MPI_PROC_NULL query gave %p", what, p);

    MPI_CHK(MPI_Win_lock_all(0, win));
    for (MPI_Aint i = 0; i < my / 8; i++) mine[i] = t_rank * 1000000 + i;
    MPI_CHK(MPI_Win_sync(win));
    MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_CHK(MPI_Win_sync(win));
    for (int r = 0; r < t_size; r++)
        for (MPI_Aint i = 0; i < size_of(r) / 8; i++)
            CHECK(seg[r][i] == r * 1000000 + i, "%s: load of rank %d's [%ld]: %lld", what, r,
                  (long)i, (long long)seg[r][i]);
    /* an RMA get sees the same memory */
    int right = (t_rank + 1) % t_size;
    if (size_of(right) > 0) {
        int64_t v = -1;
        MPI_CHK(MPI_Get(&v, 1, MPI_INT64_T, right, 3, 1, MPI_INT64_T, win));
        MPI_CHK(MPI_Win_flush(right, win));
        CHECK(v == right * 1000000 + 3, "%s: MPI_Get gave %lld", what, (long long)v);
    }
    MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
    /* stores into a neighbour's segment are seen by its owner */
    if (size_of(right) > 0) seg[right][0] = -t_rank;
    MPI_CHK(MPI_Win_sync(win));
    MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_CHK(MPI_Win_sync(win));
    int left = (t_rank + t_size - 1) % t_size;
    if (my > 0) CHECK(mine[0] == -left, "%s: my first word %lld, want %d", what,
                      (long long)mine[0], -left);
    MPI_CHK(MPI_Win_unlock_all(win));
    MPI_CHK(MPI_Win_free(&win));
    free(seg);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    run(0, 0);
    run(1, 0);
    run(0, 1);
    return t_finish();
}
