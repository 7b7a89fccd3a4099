/* dynproc_spawn: MPI_Comm_spawn and MPI_Comm_spawn_multiple (MPI 4.1 sec.
 * 11.8). The parents (any rank count) spawn this same program with the
 * argument "child": 2 children, then 1 + 2 children of two commands. The
 * children check their parent intercommunicator (remote size, MPI_APPNUM,
 * their own world), data goes both ways, both sides merge and reduce,
 * then disconnect. A non-spawned job has no parent; a spawn of a missing
 * program fails with MPI_ERR_SPAWN and every error code MPI_ERR_SPAWN,
 * and starts nothing; a bare program name is found through the info key
 * "path". The children report their error count to the
 * parents, whose rank 0 prints the verdict. With the argument "abortchild"
 * a child calls MPI_Abort while its parents wait: mpiexec must end the
 * whole universe (testlist: expect=fail). With "nodisconnect" the parents
 * send one message and finalize without disconnecting while the children
 * are still receiving it: neither side's MPI_Finalize may hang. */
#include "common.h"

#include <unistd.h>

static char self[4096];

/* Parent side of one spawned job: nchild children, appnums given. */
static void talk_to_children(MPI_Comm inter, int nchild, const int *appnum)
{
    int rsize = -1, lsize = -1, flag;
    MPI_CHK(MPI_Comm_test_inter(inter, &flag));
    CHECK(flag, "spawn did not return an intercommunicator");
    MPI_CHK(MPI_Comm_remote_size(inter, &rsize));
    MPI_CHK(MPI_Comm_size(inter, &lsize));
    CHECK(rsize == nchild, "remote size %d, want %d", rsize, nchild);
    CHECK(lsize == t_size, "local size %d, want %d", lsize, t_size);
    /* rank 0 sends each child its number; each child answers with 1000 +
     * number + appnum * 100 */
    if (t_rank == 0) {
        for (int c = 0; c < nchild; c++) MPI_CHK(MPI_Send(&c, 1, MPI_INT, c, 7, inter));
        for (int c = 0; c < nchild; c++) {
            int v = -1;
            MPI_CHK(MPI_Recv(&v, 1, MPI_INT, c, 8, inter, MPI_STATUS_IGNORE));
            CHECK(v == 1000 + c + 100 * appnum[c], "child %d answered %d", c, v);
        }
    }
    /* merged: parents first; everyone sums their ranks */
    MPI_Comm merged;
    MPI_CHK(MPI_Intercomm_merge(inter, 0, &merged));
    int msize = -1, mrank = -1, sum = -1;
    MPI_CHK(MPI_Comm_size(merged, &msize));
    MPI_CHK(MPI_Comm_rank(merged, &mrank));
    CHECK(msize == t_size + nchild && mrank == t_rank, "merged: rank %d of %d", mrank, msize);
    MPI_CHK(MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged));
    CHECK(sum == msize * (msize - 1) / 2, "merged allreduce %d", sum);
    MPI_CHK(MPI_Comm_free(&merged));
    /* the children's error count */
    int errs = 0;
    if (t_rank == 0) {
        MPI_CHK(MPI_Recv(&errs, 1, MPI_INT, 0, 9, inter, MPI_STATUS_IGNORE));
        CHECK(errs == 0, "the children found %d errors", errs);
    }
    MPI_CHK(MPI_Comm_disconnect(&inter));
    CHECK(inter == MPI_COMM_NULL, "disconnect did not set MPI_COMM_NULL");
}

static int child(void)
{
    MPI_Comm parent;
    MPI_CHK(MPI_Comm_get_parent(&parent));
    CHECK(parent != MPI_COMM_NULL, "a spawned process has no parent");
    if (parent == MPI_COMM_NULL) return 1;
    int psize = -1, lsize = -1, wsize = -1, *app, flag = 0;
    MPI_CHK(MPI_Comm_remote_size(parent, &psize));
    MPI_CHK(MPI_Comm_size(parent, &lsize));
    MPI_CHK(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
    CHECK(lsize == wsize, "parent intercomm local size %d, world %d", lsize, wsize);
    MPI_CHK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &app, &flag));
    CHECK(flag, "MPI_APPNUM not set in a spawned process");
    int appnum = flag ? *app : -1;
    int c = -1;
    MPI_CHK(MPI_Recv(&c, 1, MPI_INT, 0, 7, parent, MPI_STATUS_IGNORE));
    CHECK(c == t_rank, "got number %d, want %d", c, t_rank);
    int answer = 1000 + c + 100 * appnum;
    MPI_CHK(MPI_Send(&answer, 1, MPI_INT, 0, 8, parent));
    MPI_Comm merged;
    MPI_CHK(MPI_Intercomm_merge(parent, 1, &merged));
    int msize = -1, mrank = -1, sum = -1;
    MPI_CHK(MPI_Comm_size(merged, &msize));
    MPI_CHK(MPI_Comm_rank(merged, &mrank));
    CHECK(msize == psize + wsize && mrank == psize + t_rank, "merged: rank %d of %d", mrank, msize);
    MPI_CHK(MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged));
    CHECK(sum == msize * (msize - 1) / 2, "merged allreduce %d", sum);
    MPI_CHK(MPI_Comm_free(&merged));
    int errs = 0;
    MPI_CHK(MPI_Reduce(&t_errs, &errs, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    if (t_rank == 0) MPI_CHK(MPI_Send(&errs, 1, MPI_INT, 0, 9, parent));
    MPI_CHK(MPI_Comm_disconnect(&parent));
    MPI_Comm again;
    MPI_CHK(MPI_Comm_get_parent(&again));
    CHECK(again == MPI_COMM_NULL, "the parent is still there after MPI_Comm_disconnect");
    MPI_Finalize();
    return 0;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    if (argc > 1 && strcmp(argv[1], "child") == 0) return child();
    if (argc > 1 && strcmp(argv[1], "late") == 0) { /* finalize after the parents */
        MPI_Comm parent;
        int v = 0;
        MPI_CHK(MPI_Comm_get_parent(&parent));
        if (t_rank == 1) MPI_CHK(MPI_Recv(&v, 1, MPI_INT, 0, 4, parent, MPI_STATUS_IGNORE));
        if (t_rank == 1 && v != 44) fprintf(stderr, "late child got %d\n", v);
        usleep(200000);
        MPI_Finalize();
        return t_rank == 1 && v != 44;
    }
    if (argc > 1 && strcmp(argv[1], "abort") == 0) {
        if (t_rank == 1) MPI_Abort(MPI_COMM_WORLD, 3);
        MPI_Barrier(MPI_COMM_WORLD);
        return 0;
    }
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    CHECK(n > 0, "cannot find this program");
    self[n > 0 ? n : 0] = '\0';
    MPI_Comm parent;
    MPI_CHK(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL, "a job started by mpiexec has a parent");

    char *args[] = {"child", NULL};
    int codes[3] = {-1, -1, -1};
    MPI_Comm inter;
    if (argc > 1 && strcmp(argv[1], "nodisconnect") == 0) {
        char *largs[] = {"late", NULL};
        int v = 44;
        MPI_CHK(MPI_Comm_spawn(self, largs, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes));
        if (t_rank == 0) MPI_CHK(MPI_Send(&v, 1, MPI_INT, 1, 4, inter));
        MPI_CHK(MPI_Comm_free(&inter)); /* freed, not disconnected */
        return t_finish();
    }
    if (argc > 1 && strcmp(argv[1], "abortchild") == 0) {
        char *aargs[] = {"abort", NULL};
        int v;
        MPI_CHK(MPI_Comm_spawn(self, aargs, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes));
        MPI_Recv(&v, 1, MPI_INT, 0, 1, inter, MPI_STATUS_IGNORE); /* never comes */
        return 0;
    }
    MPI_CHK(MPI_Comm_spawn(self, args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes));
    CHECK(codes[0] == MPI_SUCCESS && codes[1] == MPI_SUCCESS, "error codes %d %d", codes[0], codes[1]);
    int app0[2] = {0, 0};
    talk_to_children(inter, 2, app0);

    /* spawn_multiple: 1 child of command 0, 2 of command 1, root the last rank */
    char *cmds[2] = {self, self};
    char **argvs[2] = {args, args};
    int np[2] = {1, 2};
    MPI_Info infos[2] = {MPI_INFO_NULL, MPI_INFO_NULL};
    MPI_CHK(MPI_Comm_spawn_multiple(2, cmds, argvs, np, infos, t_size - 1, MPI_COMM_WORLD, &inter, codes));
    int app1[3] = {0, 1, 1};
    talk_to_children(inter, 3, app1);

    /* the info key "path": a bare program name, found in the second of two
     * directories (MPICH's spawninfo1, spaconacc; mpiexec's PATH does not
     * hold it) */
    char dirs[4200];
    const char *base = strrchr(self, '/');
    snprintf(dirs, sizeof dirs, "/nonexistent/dmpi-no-dir:%.*s", (int)(base - self), self);
    MPI_Info pinfo;
    MPI_CHK(MPI_Info_create(&pinfo));
    MPI_CHK(MPI_Info_set(pinfo, "path", dirs));
    MPI_CHK(MPI_Comm_spawn(base + 1, args, 2, pinfo, 0, MPI_COMM_WORLD, &inter, codes));
    MPI_CHK(MPI_Info_free(&pinfo));
    talk_to_children(inter, 2, app0);

    /* a missing program: MPI_ERR_SPAWN, every code MPI_ERR_SPAWN */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    codes[0] = codes[1] = codes[2] = -1;
    inter = MPI_COMM_WORLD;
    CHECK_CLASS(MPI_Comm_spawn("/nonexistent/dmpi-no-such-program", MPI_ARGV_NULL, 3, MPI_INFO_NULL, 0,
                               MPI_COMM_WORLD, &inter, codes), MPI_ERR_SPAWN);
    for (int i = 0; i < 3; i++) CHECK(codes[i] == MPI_ERR_SPAWN, "code %d is %d", i, codes[i]);
    CHECK(inter == MPI_COMM_NULL, "a failed spawn returned a communicator");
    return t_finish();
}
