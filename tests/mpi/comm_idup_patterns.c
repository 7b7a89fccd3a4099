/* comm_idup_patterns.c: MPI_Comm_idup and MPI_Comm_idup_with_info complete
 * in every pattern the standard allows (MPI 4.1 sec. 7.4.2: a nonblocking
 * variant of MPI_Comm_dup, "as if MPI_COMM_DUP was executed at the time
 * MPI_COMM_IDUP is called", progressing like any nonblocking collective):
 *  1. alone, and with an info argument (hints of the info, not the parent's);
 *  2. several idups outstanding at once on overlapping communicators,
 *     started in a different order on odd and even ranks;
 *  3. an idup outstanding while point-to-point runs on the parent, in a
 *     chain where rank i starts its idup only after rank i-1 sent to it
 *     (rank 0 cannot finish its idup before every rank started one);
 *  4. an idup outstanding while blocking and nonblocking collectives run
 *     on the parent, completed in different orders on different ranks;
 *  5. an idup outstanding while MPI_Comm_create_group runs on the parent;
 *  6. three idups of one communicator at once, completed in reverse order;
 *  7. attributes copied as at the time of the call;
 *  8. on an intercommunicator (two halves of MPI_COMM_WORLD);
 *  9. blocking MPI_Comm_dup and MPI_Comm_split while idups are pending;
 * 10. the parent freed while the idup is pending.
 * Each new communicator is checked: congruent to its parent, and an
 * allreduce and a ring exchange work on it. Issue 22 (2). */
#include "common.h"

static const int vals[3] = {0, 1, 2}; /* send buffers of the isolation checks */

/* c is a working duplicate of parent. */
static void check_dup(MPI_Comm parent, MPI_Comm c, const char *what)
{
    int res, inter, size, rank;
    MPI_CHK(MPI_Comm_compare(parent, c, &res));
    CHECK(res == MPI_CONGRUENT, "%s: compare %d", what, res);
    MPI_CHK(MPI_Comm_test_inter(c, &inter));
    MPI_CHK(MPI_Comm_size(c, &size));
    MPI_CHK(MPI_Comm_rank(c, &rank));
    int one = 1, sum = 0, want = size;
    if (inter) MPI_CHK(MPI_Comm_remote_size(c, &want));
    MPI_CHK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == want, "%s: allreduce %d, want %d", what, sum, want);
    /* a ring on an intracommunicator; the two ranks 0 on an
     * intercommunicator */
    if (inter && rank != 0) return;
    int to = inter ? 0 : (rank + 1) % size, from = inter ? 0 : (rank + size - 1) % size;
    int got = -1, mine = inter ? 0 : rank;
    MPI_CHK(MPI_Sendrecv(&mine, 1, MPI_INT, to, 5, &got, 1, MPI_INT, from, 5, c,
                         MPI_STATUS_IGNORE));
    CHECK(got == from, "%s: ring got %d, want %d", what, got, from);
}

static void alone(void)
{
    MPI_Comm c;
    MPI_Request r;
    MPI_CHK(MPI_Comm_idup(MPI_COMM_WORLD, &c, &r));
    MPI_CHK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    check_dup(MPI_COMM_WORLD, c, "alone");
    MPI_Info info;
    MPI_CHK(MPI_Info_create(&info));
    MPI_CHK(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
    MPI_Comm d;
    MPI_CHK(MPI_Comm_idup_with_info(c, info, &d, &r));
    MPI_CHK(MPI_Info_free(&info));
    int flag = 0;
    while (!flag) MPI_CHK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    check_dup(c, d, "with_info");
    MPI_Info used;
    char v[64] = "";
    MPI_CHK(MPI_Comm_get_info(d, &used));
    MPI_CHK(MPI_Info_get(used, "mpi_assert_no_any_tag", 63, v, &flag));
    CHECK(flag && !strcmp(v, "true"), "with_info: hint %d '%s'", flag, v);
    MPI_CHK(MPI_Info_free(&used));
    MPI_CHK(MPI_Comm_free(&d));
    MPI_CHK(MPI_Comm_free(&c));
}

static void overlapping(void)
{
    MPI_Comm a, half, n[3];
    MPI_CHK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, t_rank % 2, t_rank, &half));
    MPI_Comm parents[3] = {MPI_COMM_WORLD, a, half};
    MPI_Request r[3];
    for (int k = 0; k < 3; k++) {
        int i = t_rank % 2 ? 2 - k : k; /* odd ranks start them backwards */
        MPI_CHK(MPI_Comm_idup(parents[i], &n[i], &r[i]));
    }
    MPI_CHK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 3; i++) {
        check_dup(parents[i], n[i], "overlapping");
        MPI_CHK(MPI_Comm_free(&n[i]));
    }
    MPI_CHK(MPI_Comm_free(&half));
    MPI_CHK(MPI_Comm_free(&a));
}

static void with_p2p(void)
{
    MPI_Comm c;
    MPI_Request r;
    int token = 0;
    if (t_rank > 0)
        MPI_CHK(MPI_Recv(&token, 1, MPI_INT, t_rank - 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_CHK(MPI_Comm_idup(MPI_COMM_WORLD, &c, &r));
    token++;
    if (t_rank + 1 < t_size) MPI_CHK(MPI_Send(&token, 1, MPI_INT, t_rank + 1, 9, MPI_COMM_WORLD));
    CHECK(token == t_rank + 1, "p2p: token %d", token);
    MPI_CHK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    check_dup(MPI_COMM_WORLD, c, "p2p");
    MPI_CHK(MPI_Comm_free(&c));
}

static void with_collectives(void)
{
    MPI_Comm c;
    MPI_Request r[3];
    int v = t_rank, sum = 0, b = t_rank == 0 ? 77 : 0, isum = 0;
    MPI_CHK(MPI_Comm_idup(MPI_COMM_WORLD, &c, &r[0]));
    MPI_CHK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    MPI_CHK(MPI_Ibarrier(MPI_COMM_WORLD, &r[1]));
    MPI_CHK(MPI_Iallreduce(&v, &isum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[2]));
    MPI_CHK(MPI_Bcast(&b, 1, MPI_INT, 0, MPI_COMM_WORLD));
    for (int k = 0; k < 3; k++) /* completion order differs between ranks */
        MPI_CHK(MPI_Wait(&r[(k + t_rank) % 3], MPI_STATUS_IGNORE));
    CHECK(sum == t_size * (t_size - 1) / 2, "collectives: allreduce %d", sum);
    CHECK(isum == sum, "collectives: iallreduce %d", isum);
    CHECK(b == 77, "collectives: bcast %d", b);
    check_dup(MPI_COMM_WORLD, c, "collectives");
    MPI_CHK(MPI_Comm_free(&c));
}

static void with_create_group(void)
{
    MPI_Group world, evens;
    MPI_CHK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    int ranks[64], k = 0;
    for (int i = 0; i < t_size && k < 64; i += 2) ranks[k++] = i;
    MPI_CHK(MPI_Group_incl(world, k, ranks, &evens));
    MPI_Comm c, g = MPI_COMM_NULL;
    MPI_Request r;
    MPI_CHK(MPI_Comm_idup(MPI_COMM_WORLD, &c, &r));
    if (t_rank % 2 == 0) MPI_CHK(MPI_Comm_create_group(MPI_COMM_WORLD, evens, 3, &g));
    MPI_CHK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    check_dup(MPI_COMM_WORLD, c, "create_group");
    if (g != MPI_COMM_NULL) {
        int size;
        MPI_CHK(MPI_Comm_size(g, &size));
        CHECK(size == k, "create_group: size %d, want %d", size, k);
        MPI_CHK(MPI_Comm_free(&g));
    }
    MPI_CHK(MPI_Comm_free(&c));
    MPI_CHK(MPI_Group_free(&evens));
    MPI_CHK(MPI_Group_free(&world));
}

static void same_parent(void)
{
    MPI_Comm c[3];
    MPI_Request r[3];
    for (int i = 0; i < 3; i++) MPI_CHK(MPI_Comm_idup(MPI_COMM_WORLD, &c[i], &r[i]));
    for (int i = 2; i >= 0; i--) MPI_CHK(MPI_Wait(&r[i], MPI_STATUS_IGNORE));
    for (int i = 0; i < 3; i++) check_dup(MPI_COMM_WORLD, c[i], "same parent");
    int res;
    MPI_CHK(MPI_Comm_compare(c[0], c[1], &res));
    CHECK(res == MPI_CONGRUENT, "same parent: compare %d", res);
    /* messages on one duplicate never meet those of another */
    if (t_size > 1) {
        int peer = t_rank ^ 1;
        if (peer < t_size) {
            int got[3] = {-1, -1, -1};
            MPI_Request q[6];
            for (int i = 0; i < 3; i++)
                MPI_CHK(MPI_Irecv(&got[i], 1, MPI_INT, peer, 0, c[i], &q[i]));
            for (int i = 2; i >= 0; i--)
                MPI_CHK(MPI_Isend(&vals[i], 1, MPI_INT, peer, 0, c[i], &q[3 + i]));
            MPI_CHK(MPI_Waitall(6, q, MPI_STATUSES_IGNORE));
            for (int i = 0; i < 3; i++) CHECK(got[i] == i, "same parent: got[%d] = %d", i, got[i]);
        }
    }
    for (int i = 0; i < 3; i++) MPI_CHK(MPI_Comm_free(&c[i]));
}

/* Blocking constructors on the parent while idups are pending: both
 * agree on context ids at once and must end with different ones. */
static void with_blocking_dup(void)
{
    MPI_Comm c[2], d, s;
    MPI_Request r[2];
    MPI_CHK(MPI_Comm_idup(MPI_COMM_WORLD, &c[0], &r[0]));
    MPI_CHK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    MPI_CHK(MPI_Comm_idup(d, &c[1], &r[1]));
    MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, t_rank % 2, 0, &s));
    MPI_CHK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    check_dup(MPI_COMM_WORLD, c[0], "blocking dup");
    check_dup(d, c[1], "blocking dup 2");
    check_dup(MPI_COMM_WORLD, d, "blocking dup 3");
    MPI_Comm all[3] = {c[0], c[1], d};
    if (t_size > 1) { /* a message on one is not received on the others */
        int peer = t_rank ^ 1;
        if (peer < t_size) {
            int got[3] = {-1, -1, -1};
            MPI_Request q[6];
            for (int i = 0; i < 3; i++)
                MPI_CHK(MPI_Irecv(&got[i], 1, MPI_INT, peer, 0, all[i], &q[i]));
            for (int i = 2; i >= 0; i--)
                MPI_CHK(MPI_Isend(&vals[i], 1, MPI_INT, peer, 0, all[i], &q[3 + i]));
            MPI_CHK(MPI_Waitall(6, q, MPI_STATUSES_IGNORE));
            for (int i = 0; i < 3; i++)
                CHECK(got[i] == i, "blocking dup: got[%d] = %d", i, got[i]);
        }
    }
    for (int i = 0; i < 2; i++) MPI_CHK(MPI_Comm_free(&c[i]));
    MPI_CHK(MPI_Comm_free(&d));
    MPI_CHK(MPI_Comm_free(&s));
}

/* MPI_Comm_free marks the parent for deallocation; the pending idup still
 * completes (sec. 7.4.3: operations pending on it complete normally). */
static void parent_freed(void)
{
    MPI_Comm p, c;
    MPI_Request r;
    MPI_CHK(MPI_Comm_dup(MPI_COMM_WORLD, &p));
    MPI_CHK(MPI_Comm_idup(p, &c, &r));
    MPI_CHK(MPI_Comm_free(&p));
    MPI_CHK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    check_dup(MPI_COMM_WORLD, c, "parent freed");
    MPI_CHK(MPI_Comm_free(&c));
}

static int copy_fn(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)key, (void)extra;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static void attributes(void)
{
    int key;
    MPI_CHK(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    static int before = 1, after = 2;
    MPI_Comm c;
    MPI_Request r;
    MPI_CHK(MPI_Comm_set_attr(MPI_COMM_WORLD, key, &before));
    MPI_CHK(MPI_Comm_idup(MPI_COMM_WORLD, &c, &r));
    MPI_CHK(MPI_Comm_set_attr(MPI_COMM_WORLD, key, &after));
    MPI_CHK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    int *v = NULL, flag = 0;
    MPI_CHK(MPI_Comm_get_attr(c, key, &v, &flag));
    CHECK(flag && v == &before, "attributes: flag %d, value %p (want %p)", flag, (void *)v,
          (void *)&before);
    MPI_CHK(MPI_Comm_free(&c));
    MPI_CHK(MPI_Comm_delete_attr(MPI_COMM_WORLD, key));
    MPI_CHK(MPI_Comm_free_keyval(&key));
}

static void intercomm(void)
{
    if (t_size < 2) return;
    int low = t_rank < t_size / 2;
    MPI_Comm local, inter, n[2];
    MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, low, t_rank, &local));
    MPI_CHK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? t_size / 2 : 0, 7, &inter));
    MPI_Request r[3];
    MPI_CHK(MPI_Comm_idup(inter, &n[0], &r[0]));
    MPI_CHK(MPI_Ibarrier(inter, &r[1]));
    MPI_CHK(MPI_Comm_idup_with_info(inter, MPI_INFO_NULL, &n[1], &r[2]));
    if (low) MPI_CHK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
    else
        for (int i = 2; i >= 0; i--) MPI_CHK(MPI_Wait(&r[i], MPI_STATUS_IGNORE));
    for (int i = 0; i < 2; i++) {
        int flag = 0;
        MPI_CHK(MPI_Comm_test_inter(n[i], &flag));
        CHECK(flag, "intercomm: idup %d is not an intercommunicator", i);
        check_dup(inter, n[i], "intercomm");
        MPI_CHK(MPI_Comm_free(&n[i]));
    }
    MPI_CHK(MPI_Comm_free(&inter));
    MPI_CHK(MPI_Comm_free(&local));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    alone();
    overlapping();
    with_p2p();
    with_collectives();
    with_create_group();
    same_parent();
    with_blocking_dup();
    parent_freed();
    attributes();
    intercomm();
    return t_finish();
}
