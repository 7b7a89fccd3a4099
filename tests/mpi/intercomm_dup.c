/* intercomm_dup.c: MPI_Comm_dup, MPI_Comm_idup, MPI_Comm_compare and
 * MPI_Comm_free on intercommunicators: a duplicate is congruent, keeps
 * both groups, and has its own matching context (a message sent on it is
 * not received on the original); 1000 dup/free rounds leak no context id;
 * MPI_Comm_split on an intercommunicator pairs equal colors of both
 * groups (MPI_COMM_NULL where one side has none). Needs at least 2
 * processes (with 1 it only prints " No Errors"). */
#include "common.h"

static void check_pair(MPI_Comm a, MPI_Comm b, const char *what)
{
    int result = -1, rs_a = -1, rs_b = -1, flag = -1;
    MPI_CHK(MPI_Comm_compare(a, b, &result));
    CHECK(result == MPI_CONGRUENT, "%s: compare = %d, want MPI_CONGRUENT", what, result);
    MPI_CHK(MPI_Comm_test_inter(b, &flag));
    CHECK(flag, "%s: the duplicate is not an intercommunicator", what);
    MPI_CHK(MPI_Comm_remote_size(a, &rs_a));
    MPI_CHK(MPI_Comm_remote_size(b, &rs_b));
    CHECK(rs_a == rs_b, "%s: remote sizes %d and %d", what, rs_a, rs_b);
}

/* Local rank 0 of each group sends 1 on `orig` then 2 on `dup` to remote
 * rank 0; the receiver takes from `dup` first with wildcards. */
static void isolation(MPI_Comm orig, MPI_Comm dup, const char *what)
{
    int lrank, one = 1, two = 2, v = -1;
    MPI_Comm_rank(orig, &lrank);
    if (lrank != 0)
        return;
    MPI_Request r[2];
    MPI_CHK(MPI_Isend(&one, 1, MPI_INT, 0, 4, orig, &r[0]));
    MPI_CHK(MPI_Isend(&two, 1, MPI_INT, 0, 4, dup, &r[1]));
    MPI_CHK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, MPI_STATUS_IGNORE));
    CHECK(v == 2, "%s: the duplicate received %d, want 2", what, v);
    MPI_CHK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, orig, MPI_STATUS_IGNORE));
    CHECK(v == 1, "%s: the original received %d, want 1", what, v);
    MPI_CHK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
}

/* Split by color = local rank % 2 (keys reverse the order), and with the
 * odd local ranks of group B out (MPI_UNDEFINED). */
static void check_split(MPI_Comm inter, int in_a, int na)
{
    int lrank, lsize, rsize;
    MPI_Comm_rank(inter, &lrank);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    for (int variant = 0; variant < 2; variant++) {
        int color = lrank % 2;
        if (variant == 1 && !in_a && color == 1)
            color = MPI_UNDEFINED;
        MPI_Comm s;
        MPI_CHK(MPI_Comm_split(inter, color, -lrank, &s));
        /* Members of each side with my color. */
        int nl = color == MPI_UNDEFINED ? 0 : (lsize - color + 1) / 2;
        int nr = color == MPI_UNDEFINED ? 0 : (rsize - color + 1) / 2;
        if (variant == 1 && in_a && color == 1)
            nr = 0; /* B's odd ranks left */
        if (nl == 0 || nr == 0) {
            CHECK(s == MPI_COMM_NULL, "split v%d color %d: want MPI_COMM_NULL", variant, color);
            if (s != MPI_COMM_NULL)
                MPI_Comm_free(&s);
            continue;
        }
        CHECK(s != MPI_COMM_NULL, "split v%d color %d: got MPI_COMM_NULL", variant, color);
        if (s == MPI_COMM_NULL)
            continue;
        int flag = 0, size = -1, rank = -1, rs = -1;
        MPI_CHK(MPI_Comm_test_inter(s, &flag));
        MPI_CHK(MPI_Comm_size(s, &size));
        MPI_CHK(MPI_Comm_rank(s, &rank));
        MPI_CHK(MPI_Comm_remote_size(s, &rs));
        CHECK(flag, "split v%d: not an intercommunicator", variant);
        CHECK(size == nl && rs == nr, "split v%d color %d: sizes %d/%d, want %d/%d", variant,
              color, size, rs, nl, nr);
        /* keys -lrank: the highest old local rank comes first */
        int want_rank = (lsize - 1 - lrank) / 2;
        if ((lsize - 1) % 2 != color)
            want_rank = (lsize - 2 - lrank) / 2;
        CHECK(rank == want_rank, "split v%d color %d: rank %d, want %d (old %d of %d)", variant,
              color, rank, want_rank, lrank, lsize);
        /* Exchange world ranks with the new remote rank 0 / from every one. */
        int *from = t_malloc((size_t)rs * sizeof(int));
        MPI_Request *rq = t_malloc((size_t)rs * sizeof *rq);
        for (int r = 0; r < rs; r++)
            MPI_CHK(MPI_Isend(&lrank, 1, MPI_INT, r, 8, s, &rq[r]));
        for (int r = 0; r < rs; r++) {
            from[r] = -1;
            MPI_CHK(MPI_Recv(&from[r], 1, MPI_INT, r, 8, s, MPI_STATUS_IGNORE));
            /* remote rank r has old local rank: its side's members of my
             * color, highest first */
            int old = ((rsize - 1) % 2 == color ? rsize - 1 : rsize - 2) - 2 * r;
            CHECK(from[r] == old, "split v%d: remote rank %d was old rank %d, want %d",
                  variant, r, from[r], old);
        }
        MPI_CHK(MPI_Waitall(rs, rq, MPI_STATUSES_IGNORE));
        free(from);
        free(rq);
        MPI_CHK(MPI_Comm_free(&s));
    }
    (void)na;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    if (t_size >= 2) {
        int na = t_size / 2, in_a = t_rank < na;
        MPI_Comm local, inter, dup, dup2;
        MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, in_a, t_rank, &local));
        MPI_CHK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, in_a ? na : 0, 1, &inter));

        MPI_CHK(MPI_Comm_dup(inter, &dup));
        check_pair(inter, dup, "dup");
        isolation(inter, dup, "dup");
        MPI_CHK(MPI_Comm_dup(dup, &dup2));
        check_pair(dup, dup2, "dup of dup");
        isolation(dup, dup2, "dup of dup");
        MPI_CHK(MPI_Comm_free(&dup2));
        MPI_Request req;
        MPI_CHK(MPI_Comm_idup(inter, &dup2, &req));
        MPI_CHK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        check_pair(inter, dup2, "idup");
        isolation(dup2, inter, "idup");
        MPI_CHK(MPI_Comm_free(&dup2));

        for (int i = 0; i < 1000; i++) {
            MPI_Comm c;
            MPI_CHK(MPI_Comm_dup(i % 2 ? inter : dup, &c));
            if (i % 100 == 0)
                isolation(i % 2 ? inter : dup, c, "loop");
            MPI_CHK(MPI_Comm_free(&c));
        }
        MPI_CHK(MPI_Comm_free(&dup));

        check_split(inter, in_a, na);
        MPI_CHK(MPI_Comm_free(&inter));
        MPI_CHK(MPI_Comm_free(&local));
    }
    return t_finish();
}
