/* dynproc_port: ports, MPI_Comm_accept/connect, the name service and
 * MPI_Comm_join (MPI 4.1 sec. 11.9-11.10), and MPI_Get_hw_resource_info.
 *   - between jobs: the job opens a port, publishes it, spawns 2 children
 *     (this program, argument "child") which look the name up and connect
 *     over their MPI_COMM_WORLD while the parents accept over theirs;
 *   - within one job (2+ ranks): the lower half accepts, the upper half
 *     connects;
 *   - MPI_Comm_join between ranks 0 and 1 over a TCP socket (2+ ranks; on
 *     a non-loopback address, so that the two may be on different hosts);
 *   - bad input: a malformed port name, another universe's port, a closed
 *     port (MPI_ERR_PORT), an unknown service (MPI_ERR_NAME), unpublishing
 *     twice (MPI_ERR_SERVICE). */
#include "common.h"
#include "host_address.h"

#include <unistd.h>

#define SERVICE "dmpi-test-dynproc-port"

/* Both sides: the merged communicator sums ranks; the roots swap a word. */
static void exercise(MPI_Comm inter, int low, int lsize_want, int rsize_want)
{
    int lsize = -1, rsize = -1, rank = -1;
    MPI_CHK(MPI_Comm_size(inter, &lsize));
    MPI_CHK(MPI_Comm_remote_size(inter, &rsize));
    MPI_CHK(MPI_Comm_rank(inter, &rank));
    CHECK(lsize == lsize_want && rsize == rsize_want, "sizes %d/%d, want %d/%d", lsize, rsize, lsize_want,
          rsize_want);
    if (rank == 0) {
        int mine = low ? 11 : 22, theirs = -1;
        MPI_CHK(MPI_Sendrecv(&mine, 1, MPI_INT, 0, 5, &theirs, 1, MPI_INT, 0, 5, inter, MPI_STATUS_IGNORE));
        CHECK(theirs == (low ? 22 : 11), "the other root sent %d", theirs);
    }
    MPI_Comm merged;
    MPI_CHK(MPI_Intercomm_merge(inter, !low, &merged));
    int msize = -1, mrank = -1, sum = -1;
    MPI_CHK(MPI_Comm_size(merged, &msize));
    MPI_CHK(MPI_Comm_rank(merged, &mrank));
    CHECK(msize == lsize + rsize, "merged size %d", msize);
    MPI_CHK(MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged));
    CHECK(sum == msize * (msize - 1) / 2, "merged allreduce %d", sum);
    MPI_CHK(MPI_Comm_free(&merged));
}

static int child(void)
{
    char port[MPI_MAX_PORT_NAME];
    MPI_Comm parent, server;
    MPI_CHK(MPI_Comm_get_parent(&parent));
    if (t_rank == 0) MPI_CHK(MPI_Lookup_name(SERVICE, MPI_INFO_NULL, port));
    MPI_CHK(MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD));
    MPI_CHK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &server));
    int psize = -1;
    MPI_CHK(MPI_Comm_remote_size(parent, &psize));
    exercise(server, 0, t_size, psize);
    MPI_CHK(MPI_Comm_disconnect(&server));
    int errs = 0;
    MPI_CHK(MPI_Reduce(&t_errs, &errs, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    if (t_rank == 0) MPI_CHK(MPI_Send(&errs, 1, MPI_INT, 0, 9, parent));
    MPI_CHK(MPI_Comm_disconnect(&parent));
    MPI_Finalize();
    return 0;
}

static void between_jobs(void)
{
    char port[MPI_MAX_PORT_NAME] = "", self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    if (t_rank == 0) {
        MPI_CHK(MPI_Open_port(MPI_INFO_NULL, port));
        MPI_CHK(MPI_Publish_name(SERVICE, MPI_INFO_NULL, port));
        CHECK_CLASS(MPI_Publish_name(SERVICE, MPI_INFO_NULL, port), MPI_ERR_SERVICE);
    }
    char *args[] = {"child", NULL};
    MPI_Comm kids, client;
    MPI_CHK(MPI_Comm_spawn(self, args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &kids, MPI_ERRCODES_IGNORE));
    MPI_CHK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &client));
    exercise(client, 1, t_size, 2);
    MPI_CHK(MPI_Comm_disconnect(&client));
    if (t_rank == 0) {
        int errs = -1;
        MPI_CHK(MPI_Recv(&errs, 1, MPI_INT, 0, 9, kids, MPI_STATUS_IGNORE));
        CHECK(errs == 0, "the children found %d errors", errs);
        MPI_CHK(MPI_Unpublish_name(SERVICE, MPI_INFO_NULL, port));
        CHECK_CLASS(MPI_Unpublish_name(SERVICE, MPI_INFO_NULL, port), MPI_ERR_SERVICE);
        CHECK_CLASS(MPI_Lookup_name(SERVICE, MPI_INFO_NULL, port), MPI_ERR_NAME);
        MPI_CHK(MPI_Close_port(port));
        CHECK_CLASS(MPI_Close_port(port), MPI_ERR_PORT);
    }
    MPI_CHK(MPI_Comm_disconnect(&kids));
}

static void within_job(void)
{
    int low = t_rank < t_size / 2, nlow = t_size / 2;
    MPI_Comm half, inter;
    MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, low, t_rank, &half));
    char port[MPI_MAX_PORT_NAME] = "";
    if (t_rank == 0) MPI_CHK(MPI_Open_port(MPI_INFO_NULL, port));
    MPI_CHK(MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD));
    if (low) MPI_CHK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter));
    else MPI_CHK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, &inter));
    exercise(inter, low, low ? nlow : t_size - nlow, low ? t_size - nlow : nlow);
    MPI_CHK(MPI_Comm_disconnect(&inter));
    if (t_rank == 0) MPI_CHK(MPI_Close_port(port));
    MPI_CHK(MPI_Comm_free(&half));
}

/* Ranks 0 and 1 (maybe on different hosts) join over a TCP connection. */
static void join(void)
{
    int fd = -1;
    if (t_rank == 0) {
        int ls = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = t_host_address()};
        socklen_t len = sizeof a;
        CHECK(ls >= 0 && bind(ls, (struct sockaddr *)&a, sizeof a) == 0 && listen(ls, 1) == 0 &&
              getsockname(ls, (struct sockaddr *)&a, &len) == 0, "cannot listen");
        MPI_CHK(MPI_Send(&a, (int)sizeof a, MPI_BYTE, 1, 3, MPI_COMM_WORLD));
        fd = accept(ls, NULL, NULL);
        close(ls);
    } else if (t_rank == 1) {
        struct sockaddr_in a;
        MPI_CHK(MPI_Recv(&a, (int)sizeof a, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        fd = socket(AF_INET, SOCK_STREAM, 0);
        CHECK(connect(fd, (struct sockaddr *)&a, sizeof a) == 0, "cannot connect the socket");
    }
    if (t_rank > 1) return;
    MPI_Comm inter;
    MPI_CHK(MPI_Comm_join(fd, &inter));
    exercise(inter, t_rank == 0, 1, 1);
    MPI_CHK(MPI_Comm_disconnect(&inter));
    close(fd);
}

static void bad_input(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm c = MPI_COMM_WORLD;
    CHECK_CLASS(MPI_Comm_connect("no-such-port", MPI_INFO_NULL, 0, MPI_COMM_SELF, &c), MPI_ERR_PORT);
    CHECK(c == MPI_COMM_NULL, "a failed connect returned a communicator");
    CHECK_CLASS(MPI_Comm_connect("dmpi:0123456789abcdef:0:1", MPI_INFO_NULL, 0, MPI_COMM_SELF, &c),
                MPI_ERR_PORT);
    char port[MPI_MAX_PORT_NAME];
    MPI_CHK(MPI_Open_port(MPI_INFO_NULL, port));
    MPI_CHK(MPI_Close_port(port));
    CHECK_CLASS(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &c), MPI_ERR_PORT);
    CHECK_CLASS(MPI_Lookup_name("dmpi-test-no-such-service", MPI_INFO_NULL, port), MPI_ERR_NAME);
    MPI_Info hw;
    int flag = 0;
    char val[MPI_MAX_INFO_VAL + 1];
    MPI_CHK(MPI_Get_hw_resource_info(&hw));
    MPI_CHK(MPI_Info_get_string(hw, "mpi_hw_resource_type", &(int){sizeof val}, val, &flag));
    CHECK(flag && strstr(val, "mpi_shared_memory"), "hw info mpi_hw_resource_type '%s'", flag ? val : "");
    MPI_CHK(MPI_Info_free(&hw));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    if (argc > 1 && strcmp(argv[1], "child") == 0) return child();
    bad_input();
    between_jobs();
    if (t_size >= 2) {
        within_job();
        join();
    }
    return t_finish();
}
