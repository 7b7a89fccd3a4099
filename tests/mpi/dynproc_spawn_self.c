/* dynproc_spawn_self: every process spawns its own children at the same
 * time, from MPI_COMM_SELF (as mpi4py's TestSpawnSingleSelf and
 * TestSpawnMultipleSelf do), several rounds in a row. Each parent's
 * children must talk to their own parent only: a barrier on the
 * intercommunicator, the child's number sent down and an answer naming the
 * parent's world rank sent back, then an Allreduce over the merged
 * communicator, then disconnect. Rounds alternate MPI_Comm_spawn and
 * MPI_Comm_spawn_multiple (1 + 1 children of two commands). With
 * libfabric 1.17's TCP provider this hung at 4 ranks (within 40 rounds,
 * mostly within 12): a parent and a child sending each other their first
 * packets at once lost one of them (src/transport/ofi/ofi_contact.c).
 * T_VERBOSE=1 prints each round. */
#include "common.h"

#include <unistd.h>

#define ROUNDS 12

static char self[4096];

static int child(void)
{
    MPI_Comm parent;
    MPI_CHK(MPI_Comm_get_parent(&parent));
    CHECK(parent != MPI_COMM_NULL, "a child without a parent");
    if (parent == MPI_COMM_NULL) return t_finish();
    int rsize = -1;
    MPI_CHK(MPI_Comm_remote_size(parent, &rsize));
    CHECK(rsize == 1, "the parent group has %d processes, want 1", rsize);
    MPI_CHK(MPI_Barrier(parent));
    int who = -1, me = -1;
    MPI_CHK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    MPI_CHK(MPI_Recv(&who, 1, MPI_INT, 0, 5, parent, MPI_STATUS_IGNORE));
    int answer = who * 100 + me;
    MPI_CHK(MPI_Send(&answer, 1, MPI_INT, 0, 6, parent));
    MPI_Comm merged;
    MPI_CHK(MPI_Intercomm_merge(parent, 1, &merged));
    int sum = -1;
    MPI_CHK(MPI_Allreduce(&who, &sum, 1, MPI_INT, MPI_SUM, merged));
    int msize = 0;
    MPI_CHK(MPI_Comm_size(merged, &msize));
    CHECK(sum == who * msize, "merged sum %d, want %d", sum, who * msize);
    MPI_CHK(MPI_Comm_free(&merged));
    MPI_CHK(MPI_Comm_disconnect(&parent));
    /* no verdict line from children: the parents print it */
    int errs = t_errs;
    MPI_Finalize();
    return errs ? 1 : 0;
}

static void round_of(int r)
{
    MPI_Comm inter;
    int nchild = 2;
    char *args[] = {"child", NULL};
    int codes[2] = {-1, -1};
    if (r % 2 == 0) {
        MPI_CHK(MPI_Comm_spawn(self, args, nchild, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter, codes));
    } else {
        char *cmds[2] = {self, self};
        char **argvs[2] = {args, args};
        int np[2] = {1, 1};
        MPI_Info infos[2] = {MPI_INFO_NULL, MPI_INFO_NULL};
        MPI_CHK(MPI_Comm_spawn_multiple(2, cmds, argvs, np, infos, 0, MPI_COMM_SELF, &inter, codes));
    }
    for (int c = 0; c < nchild; c++) CHECK(codes[c] == MPI_SUCCESS, "round %d: error code %d", r, codes[c]);
    int rsize = -1;
    MPI_CHK(MPI_Comm_remote_size(inter, &rsize));
    CHECK(rsize == nchild, "round %d: %d children, want %d", r, rsize, nchild);
    MPI_CHK(MPI_Barrier(inter));
    for (int c = 0; c < nchild; c++) MPI_CHK(MPI_Send(&t_rank, 1, MPI_INT, c, 5, inter));
    for (int c = 0; c < nchild; c++) {
        int v = -1;
        MPI_CHK(MPI_Recv(&v, 1, MPI_INT, c, 6, inter, MPI_STATUS_IGNORE));
        CHECK(v == t_rank * 100 + c, "round %d: child %d answered %d, want %d", r, c, v, t_rank * 100 + c);
    }
    MPI_Comm merged;
    MPI_CHK(MPI_Intercomm_merge(inter, 0, &merged));
    int sum = -1;
    MPI_CHK(MPI_Allreduce(&t_rank, &sum, 1, MPI_INT, MPI_SUM, merged));
    CHECK(sum == t_rank * (nchild + 1), "round %d: merged sum %d", r, sum);
    MPI_CHK(MPI_Comm_free(&merged));
    MPI_CHK(MPI_Comm_disconnect(&inter));
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0) {
        MPI_Init(&argc, &argv);
        return child();
    }
    t_init(&argc, &argv);
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    CHECK(n > 0, "cannot read /proc/self/exe");
    self[n > 0 ? n : 0] = '\0';
    for (int r = 0; r < ROUNDS; r++) {
        MPI_CHK(MPI_Barrier(MPI_COMM_WORLD));
        if (getenv("T_VERBOSE")) fprintf(stderr, "[rank %d] round %d\n", t_rank, r);
        round_of(r);
    }
    return t_finish();
}
