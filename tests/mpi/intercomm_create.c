/* intercomm_create.c: MPI_Intercomm_create between the two halves of
 * MPI_COMM_WORLD (and between uneven parts, with leaders that are not rank
 * 0), then the intercommunicator queries (test_inter, size/rank of the
 * local group, remote size and group, Comm_group, compare) and
 * point-to-point across it: ranks name processes of the remote group,
 * MPI_ANY_SOURCE receives report the sender's rank in its own group,
 * explicit sources, MPI_ANY_TAG, MPI_PROC_NULL, and a large message.
 * Bad arguments give the right error class at every member (checked on
 * dmpi only: the standard calls some of these cases erroneous).
 * Needs at least 2 processes (with 1 it only prints " No Errors"). */
#include "common.h"

/* World ranks of every member of g, in group order. */
static void world_ranks(MPI_Group g, int n, int *out)
{
    MPI_Group wg;
    int *r = t_malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++)
        r[i] = i;
    MPI_CHK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    MPI_CHK(MPI_Group_translate_ranks(g, n, r, wg, out));
    MPI_CHK(MPI_Group_free(&wg));
    free(r);
}

/* in_a: this process is in part A, whose members are world ranks
 * a_lo..a_hi-1 (the others form part B). Checks an intercommunicator
 * between A and B made from `local` (this part's communicator, where the
 * members keep their world order). */
static void check_inter(MPI_Comm inter, MPI_Comm local, int in_a, int na, const char *what)
{
    int flag = -1, lsize = -1, lrank = -1, rsize = -1, result = -1;
    int nb = t_size - na, want_l = in_a ? na : nb, want_r = in_a ? nb : na;
    MPI_CHK(MPI_Comm_test_inter(inter, &flag));
    CHECK(flag, "%s: test_inter false", what);
    MPI_CHK(MPI_Comm_test_inter(local, &flag));
    CHECK(!flag, "%s: test_inter true on an intracommunicator", what);
    MPI_CHK(MPI_Comm_size(inter, &lsize));
    MPI_CHK(MPI_Comm_rank(inter, &lrank));
    MPI_CHK(MPI_Comm_remote_size(inter, &rsize));
    int my_lrank = in_a ? t_rank : t_rank - na;
    CHECK(lsize == want_l, "%s: local size %d, want %d", what, lsize, want_l);
    CHECK(lrank == my_lrank, "%s: local rank %d, want %d", what, lrank, my_lrank);
    CHECK(rsize == want_r, "%s: remote size %d, want %d", what, rsize, want_r);

    /* Remote group: the other part, in world order; local group: ours. */
    MPI_Group rg, lg;
    int *w = t_malloc((size_t)t_size * sizeof(int));
    MPI_CHK(MPI_Comm_remote_group(inter, &rg));
    int n = -1;
    MPI_CHK(MPI_Group_size(rg, &n));
    CHECK(n == want_r, "%s: remote group size %d, want %d", what, n, want_r);
    MPI_CHK(MPI_Group_rank(rg, &n));
    CHECK(n == MPI_UNDEFINED, "%s: rank in the remote group %d, want MPI_UNDEFINED", what, n);
    world_ranks(rg, want_r, w);
    for (int i = 0; i < want_r; i++) {
        int want = in_a ? na + i : i;
        CHECK(w[i] == want, "%s: remote rank %d is world rank %d, want %d", what, i, w[i], want);
    }
    MPI_CHK(MPI_Comm_group(inter, &lg));
    world_ranks(lg, want_l, w);
    for (int i = 0; i < want_l; i++) {
        int want = in_a ? i : na + i;
        CHECK(w[i] == want, "%s: local rank %d is world rank %d, want %d", what, i, w[i], want);
    }
    MPI_Group lg2;
    MPI_CHK(MPI_Comm_group(local, &lg2));
    MPI_CHK(MPI_Group_compare(lg, lg2, &result));
    CHECK(result == MPI_IDENT, "%s: local group vs local_comm's group: %d", what, result);
    MPI_CHK(MPI_Group_free(&lg2));
    MPI_CHK(MPI_Group_free(&lg));
    MPI_CHK(MPI_Group_free(&rg));
    free(w);

    MPI_CHK(MPI_Comm_compare(inter, inter, &result));
    CHECK(result == MPI_IDENT, "%s: compare(inter, inter) = %d", what, result);
    MPI_CHK(MPI_Comm_compare(inter, local, &result));
    CHECK(result == MPI_UNEQUAL, "%s: compare(inter, local) = %d", what, result);
}

/* Every process sends its (local rank, world rank) to every remote
 * process; the receives use MPI_ANY_SOURCE, then explicit sources. */
static void check_p2p(MPI_Comm inter, const char *what)
{
    int lrank, rsize;
    MPI_Comm_rank(inter, &lrank);
    MPI_Comm_remote_size(inter, &rsize);
    int mine[2] = {lrank, t_rank};
    int *got = t_malloc((size_t)rsize * sizeof(int));
    MPI_Request *reqs = t_malloc((size_t)rsize * sizeof *reqs);
    for (int round = 0; round < 2; round++) {
        for (int r = 0; r < rsize; r++)
            MPI_CHK(MPI_Isend(mine, 2, MPI_INT, r, 10 + round, inter, &reqs[r]));
        for (int r = 0; r < rsize; r++)
            got[r] = 0;
        for (int i = 0; i < rsize; i++) {
            int v[2] = {-1, -1};
            MPI_Status st;
            int src = round == 0 ? MPI_ANY_SOURCE : i;
            int tag = round == 0 ? 10 : MPI_ANY_TAG;
            MPI_CHK(MPI_Recv(v, 2, MPI_INT, src, tag, inter, &st));
            CHECK(st.MPI_SOURCE == v[0], "%s: status source %d, message says %d", what,
                  st.MPI_SOURCE, v[0]);
            CHECK(st.MPI_TAG == 10 + round, "%s: tag %d", what, st.MPI_TAG);
            CHECK(round == 0 || v[0] == i, "%s: from %d, asked for %d", what, v[0], i);
            if (v[0] >= 0 && v[0] < rsize)
                got[v[0]]++;
        }
        for (int r = 0; r < rsize; r++)
            CHECK(got[r] == 1, "%s: round %d: %d messages from remote rank %d", what, round,
                  got[r], r);
        MPI_CHK(MPI_Waitall(rsize, reqs, MPI_STATUSES_IGNORE));
    }

    /* MPI_PROC_NULL, and an out-of-range remote rank refused. */
    MPI_Status st;
    MPI_CHK(MPI_Send(mine, 2, MPI_INT, MPI_PROC_NULL, 1, inter));
    MPI_CHK(MPI_Recv(mine, 2, MPI_INT, MPI_PROC_NULL, 1, inter, &st));
    CHECK_NULL_STATUS(st, MPI_PROC_NULL);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    CHECK_CLASS(MPI_Send(mine, 2, MPI_INT, rsize, 1, inter), MPI_ERR_RANK);

    /* A large message (rendezvous) from remote rank 0 to each process and
     * back: local rank 0 sends one to every remote process. */
    size_t big = 1 << 20;
    unsigned char *buf = t_malloc(big), *out = NULL;
    if (lrank == 0) { /* nonblocking: the other leader sends too */
        out = t_malloc(big * (size_t)rsize);
        for (int r = 0; r < rsize; r++) {
            t_fill(out + big * (size_t)r, big, (unsigned)(t_rank * 10 + r));
            MPI_CHK(MPI_Isend(out + big * (size_t)r, (int)big, MPI_BYTE, r, 20, inter, &reqs[r]));
        }
    }
    memset(buf, 0, big);
    MPI_CHK(MPI_Recv(buf, (int)big, MPI_BYTE, 0, 20, inter, &st));
    if (lrank == 0)
        MPI_CHK(MPI_Waitall(rsize, reqs, MPI_STATUSES_IGNORE));
    free(out);
    int rleader_world = -1;
    MPI_Group rg, wg;
    int zero = 0;
    MPI_Comm_remote_group(inter, &rg);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_translate_ranks(rg, 1, &zero, wg, &rleader_world);
    MPI_Group_free(&rg);
    MPI_Group_free(&wg);
    CHECK_STATUS(st, 0, 20, big);
    CHECK_PATTERN(buf, big, (unsigned)(rleader_world * 10 + lrank));
    free(buf);
    free(got);
    free(reqs);
}

/* Part A = world ranks [0, na); leaders: local rank lead_a of A and local
 * rank lead_b of B; the peer communicator is MPI_COMM_WORLD. */
static void run(int na, int lead_a, int lead_b, int tag, const char *what)
{
    int in_a = t_rank < na;
    MPI_Comm local, inter;
    MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, in_a, t_rank, &local));
    int remote_leader = in_a ? na + lead_b : lead_a; /* in MPI_COMM_WORLD */
    MPI_CHK(MPI_Intercomm_create(local, in_a ? lead_a : lead_b, MPI_COMM_WORLD, remote_leader,
                                 tag, &inter));
    check_inter(inter, local, in_a, na, what);
    check_p2p(inter, what);
    MPI_CHK(MPI_Comm_free(&inter));
    CHECK(inter == MPI_COMM_NULL, "%s: Comm_free did not set MPI_COMM_NULL", what);
    MPI_CHK(MPI_Comm_free(&local));
}

static void check_errors(void)
{
    MPI_Comm local, inter = MPI_COMM_NULL;
    int in_a = t_rank < t_size / 2;
    MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, in_a, t_rank, &local));
    MPI_Comm_set_errhandler(local, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int lsize;
    MPI_Comm_size(local, &lsize);
    int rl = in_a ? t_size / 2 : 0;
    /* Both leaders get a bad tag / a bad remote leader: all fail. */
    CHECK_CLASS(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rl, -5, &inter), MPI_ERR_TAG);
    CHECK(inter == MPI_COMM_NULL, "bad tag: got a communicator");
    CHECK_CLASS(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, t_size, 1, &inter), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Intercomm_create(local, 0, MPI_COMM_NULL, rl, 1, &inter), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Intercomm_create(local, lsize, MPI_COMM_WORLD, rl, 1, &inter), MPI_ERR_RANK);
    MPI_CHK(MPI_Comm_free(&local));
    /* The leader is its own remote leader: the groups overlap. */
    CHECK_CLASS(MPI_Intercomm_create(MPI_COMM_WORLD, 0, MPI_COMM_WORLD, 0, 1, &inter),
                MPI_ERR_ARG);
    /* Merge needs an intercommunicator. */
    CHECK_CLASS(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &inter), MPI_ERR_COMM);
    int n;
    CHECK_CLASS(MPI_Comm_remote_size(MPI_COMM_WORLD, &n), MPI_ERR_COMM);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    if (t_size >= 2 && !T_MPICH_QUIRK("erroneous calls may hang elsewhere"))
        check_errors();
    if (t_size >= 2) {
        run(t_size / 2, 0, 0, 0, "halves");
        run(1, 0, t_size - 2, 7, "one vs the rest, last rank leads B");
        run(t_size - 1, t_size - 2, 0, 12345, "the rest vs one, last rank leads A");
        /* Peer communicator other than MPI_COMM_WORLD: a duplicate. */
        MPI_Comm dup, local, inter;
        MPI_CHK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
        int na = (t_size + 1) / 2, in_a = t_rank < na;
        MPI_CHK(MPI_Comm_split(dup, in_a, 0, &local));
        MPI_CHK(MPI_Intercomm_create(local, 0, dup, in_a ? na : 0, 99, &inter));
        check_inter(inter, local, in_a, na, "peer is a duplicate of world");
        check_p2p(inter, "peer is a duplicate of world");
        MPI_CHK(MPI_Comm_free(&inter));
        MPI_CHK(MPI_Comm_free(&local));
        MPI_CHK(MPI_Comm_free(&dup));
    }
    return t_finish();
}
