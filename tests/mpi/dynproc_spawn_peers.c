/* dynproc_spawn_peers: processes that meet a spawned job only through an
 * MPI_Intercomm_create. World rank 0 alone spawns 2 children (from
 * MPI_COMM_SELF), so the other parents never connected to them; then the
 * whole parent world and the children's world make an intercommunicator
 * over the spawn intercommunicator (peer_comm significant at the leaders
 * only: MPI_COMM_NULL elsewhere). Every parent sends its world rank to
 * every child and every child answers each parent, then a barrier and an
 * Allreduce on the merged communicator. Before the fix a parent other than
 * rank 0 crashed on its first send to a child (no transport to a process
 * of another job it had never reached). As MPICH's spawn/spaiccreate. */
#include "common.h"

#include <unistd.h>

static char self[4096];

/* Both sides: talk over the intercommunicator made by Intercomm_create. */
static void exchange(MPI_Comm inter, int is_child)
{
    int rsize = -1;
    MPI_CHK(MPI_Comm_remote_size(inter, &rsize));
    for (int r = 0; r < rsize; r++) {
        int v = 1000 * is_child + t_rank;
        MPI_CHK(MPI_Send(&v, 1, MPI_INT, r, 5, inter));
    }
    for (int r = 0; r < rsize; r++) {
        int v = -1;
        MPI_CHK(MPI_Recv(&v, 1, MPI_INT, r, 5, inter, MPI_STATUS_IGNORE));
        CHECK(v == 1000 * !is_child + r, "from remote rank %d got %d", r, v);
    }
    MPI_CHK(MPI_Barrier(inter));
    MPI_Comm merged;
    MPI_CHK(MPI_Intercomm_merge(inter, is_child, &merged));
    int msize = -1, mrank = -1, sum = -1;
    MPI_CHK(MPI_Comm_size(merged, &msize));
    MPI_CHK(MPI_Comm_rank(merged, &mrank));
    MPI_CHK(MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged));
    CHECK(sum == msize * (msize - 1) / 2, "merged allreduce %d of %d ranks", sum, msize);
    MPI_CHK(MPI_Comm_free(&merged));
}

static int child(void)
{
    MPI_Comm parent, inter;
    MPI_CHK(MPI_Comm_get_parent(&parent));
    CHECK(parent != MPI_COMM_NULL, "a spawned process has no parent");
    if (parent == MPI_COMM_NULL) return 1;
    MPI_CHK(MPI_Intercomm_create(MPI_COMM_WORLD, 0, parent, 0, 77, &inter));
    exchange(inter, 1);
    MPI_CHK(MPI_Comm_free(&inter));
    int errs = 0;
    MPI_CHK(MPI_Reduce(&t_errs, &errs, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    if (t_rank == 0) MPI_CHK(MPI_Send(&errs, 1, MPI_INT, 0, 9, parent));
    MPI_CHK(MPI_Comm_disconnect(&parent));
    MPI_Finalize();
    return 0;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    if (argc > 1 && strcmp(argv[1], "child") == 0) return child();
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    CHECK(n > 0, "cannot find this program");
    self[n > 0 ? n : 0] = '\0';

    char *args[] = {"child", NULL};
    MPI_Comm spawned = MPI_COMM_NULL, inter;
    if (t_rank == 0)
        MPI_CHK(MPI_Comm_spawn(self, args, 2, MPI_INFO_NULL, 0, MPI_COMM_SELF, &spawned,
                               MPI_ERRCODES_IGNORE));
    MPI_CHK(MPI_Intercomm_create(MPI_COMM_WORLD, 0, spawned, 0, 77, &inter));
    exchange(inter, 0);
    MPI_CHK(MPI_Comm_free(&inter));
    if (t_rank == 0) {
        int errs = -1;
        MPI_CHK(MPI_Recv(&errs, 1, MPI_INT, 0, 9, spawned, MPI_STATUS_IGNORE));
        CHECK(errs == 0, "the children found %d errors", errs);
        MPI_CHK(MPI_Comm_disconnect(&spawned));
    }
    return t_finish();
}
