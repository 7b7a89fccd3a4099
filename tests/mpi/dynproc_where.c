/* dynproc_where: where MPI_Comm_spawn_multiple's processes run. The
 * parents (any rank count) spawn this program in two commands, of 1 and 3
 * processes; every child sends its MPI_APPNUM and its host's address
 * (host_address.h) to the parents' rank 0, which checks the appnums and,
 * with the argument "report", prints one line per process:
 *   where parent RANK ADDRESS
 *   where child RANK APPNUM ADDRESS
 * tests/hosts/run_hosts.sh compares the children's hosts with mpiexec's
 * placement across test hosts (docs/dynproc.md, "Across hosts"). */
#include "common.h"
#include "host_address.h"

#include <unistd.h>

#define NCHILD 4

static int child(void)
{
    MPI_Comm parent;
    MPI_CHK(MPI_Comm_get_parent(&parent));
    CHECK(parent != MPI_COMM_NULL, "a spawned process has no parent");
    if (parent == MPI_COMM_NULL) return 1;
    int *app, flag = 0;
    MPI_CHK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &app, &flag));
    unsigned me[2] = {flag ? (unsigned)*app : 99u, (unsigned)t_host_address()};
    MPI_CHK(MPI_Gather(me, 2, MPI_UNSIGNED, NULL, 0, MPI_UNSIGNED, 0, parent));
    MPI_CHK(MPI_Comm_disconnect(&parent));
    MPI_Finalize();
    return 0;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm parent;
    MPI_CHK(MPI_Comm_get_parent(&parent));
    if (parent != MPI_COMM_NULL) return child();
    int report = argc > 1 && strcmp(argv[1], "report") == 0;

    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    CHECK(n > 0, "cannot find this program's path");
    self[n > 0 ? n : 0] = '\0';
    char *cmds[2] = {self, self};
    int np[2] = {1, NCHILD - 1}, errs[NCHILD];
    MPI_Info info[2] = {MPI_INFO_NULL, MPI_INFO_NULL};
    MPI_Comm inter;
    MPI_CHK(MPI_Comm_spawn_multiple(2, cmds, MPI_ARGVS_NULL, np, info, 0, MPI_COMM_WORLD, &inter, errs));
    unsigned kids[2 * NCHILD];
    MPI_CHK(MPI_Gather(NULL, 0, MPI_UNSIGNED, kids, 2, MPI_UNSIGNED, t_rank == 0 ? MPI_ROOT : MPI_PROC_NULL,
                       inter));
    unsigned mine = (unsigned)t_host_address(), *parents = malloc(sizeof *parents * (size_t)t_size);
    MPI_CHK(MPI_Gather(&mine, 1, MPI_UNSIGNED, parents, 1, MPI_UNSIGNED, 0, MPI_COMM_WORLD));
    if (t_rank == 0) {
        char a[INET_ADDRSTRLEN];
        for (int r = 0; r < t_size && report; r++) {
            struct in_addr ia = {.s_addr = parents[r]};
            printf("where parent %d %s\n", r, inet_ntop(AF_INET, &ia, a, sizeof a));
        }
        for (int c = 0; c < NCHILD; c++) {
            CHECK(kids[2 * c] == (c < np[0] ? 0u : 1u), "child %d has MPI_APPNUM %u", c, kids[2 * c]);
            struct in_addr ia = {.s_addr = kids[2 * c + 1]};
            if (report) printf("where child %d %u %s\n", c, kids[2 * c], inet_ntop(AF_INET, &ia, a, sizeof a));
        }
        fflush(stdout);
    }
    free(parents);
    MPI_CHK(MPI_Comm_disconnect(&inter));
    return t_finish();
}
