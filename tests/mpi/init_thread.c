/* init_thread.c: MPI_Init_thread with the level named on the command line
 * (single, funneled, serialized, multiple; default multiple), then
 * MPI_Query_thread and MPI_Is_thread_main must agree with what was provided.
 * The provided level must be a valid level; a request for MPI_THREAD_MULTIPLE
 * must be granted (dmpi supports it).  Then a little communication. */
#include "common.h"

static int level_of(const char *s)
{
    if (!strcmp(s, "single"))
        return MPI_THREAD_SINGLE;
    if (!strcmp(s, "funneled"))
        return MPI_THREAD_FUNNELED;
    if (!strcmp(s, "serialized"))
        return MPI_THREAD_SERIALIZED;
    if (!strcmp(s, "multiple"))
        return MPI_THREAD_MULTIPLE;
    return -1;
}

int main(int argc, char **argv)
{
    const char *arg = argc > 1 ? argv[1] : "multiple";
    int required = level_of(arg);
    if (required < 0) {
        fprintf(stderr, "usage: init_thread [single|funneled|serialized|multiple]\n");
        return 2;
    }
    int provided = -1;
    int rc = MPI_Init_thread(&argc, &argv, required, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t_size);
    CHECK(rc == MPI_SUCCESS, "MPI_Init_thread returned %d", rc);

    CHECK(provided == MPI_THREAD_SINGLE || provided == MPI_THREAD_FUNNELED ||
          provided == MPI_THREAD_SERIALIZED || provided == MPI_THREAD_MULTIPLE,
          "provided level %d is not a thread level", provided);
    if (required == MPI_THREAD_MULTIPLE)
        CHECK(provided == MPI_THREAD_MULTIPLE, "asked for MULTIPLE, got %d", provided);
    else
        CHECK(provided >= required, "asked for %s (%d), provided %d", arg, required, provided);

    int q = -1;
    MPI_CHK(MPI_Query_thread(&q));
    CHECK(q == provided, "MPI_Query_thread %d, Init_thread provided %d", q, provided);
    int flag = -1;
    MPI_CHK(MPI_Is_thread_main(&flag));
    CHECK(flag == 1, "MPI_Is_thread_main gave %d", flag);
    flag = -1;
    MPI_CHK(MPI_Initialized(&flag));
    CHECK(flag == 1, "MPI_Initialized gave %d", flag);

    /* Everybody agrees on the provided level and can talk. */
    int lo = 0, hi = 0;
    MPI_CHK(MPI_Allreduce(&provided, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    MPI_CHK(MPI_Allreduce(&provided, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    CHECK(lo == hi, "ranks got different levels (%d..%d) for the same request", lo, hi);
    int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size, got = -1;
    MPI_CHK(MPI_Sendrecv(&t_rank, 1, MPI_INT, right, 1, &got, 1, MPI_INT, left, 1,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(got == left, "ring got %d from %d", got, left);
    return t_finish();
}
