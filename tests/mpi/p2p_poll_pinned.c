/* p2p_poll_pinned.c: ranks that wait by polling (MPI_Testany, MPI_Iprobe,
 * MPI_Test in their own loop, never a blocking call) all pinned to one
 * processor (the lowest each may run on, before MPI_Init). Each
 * rank exchanges small messages with its ring neighbours ITERS times. An
 * MPI that keeps spinning in its polls while the rank it waits for needs
 * the processor takes a scheduler time slice (milliseconds) per step: far
 * beyond the time limit below; one that gives the processor up finishes in
 * well under a second. The limit is generous (TIME_LIMIT_S), for loaded
 * machines. Skips (passes with a note) where affinity cannot be set. */
#include "common.h"

#include <sched.h>

enum { ITERS = 50000, TIME_LIMIT_S = 15 };

static int pin_to(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

int main(int argc, char **argv)
{
    cpu_set_t mine;
    int cpu = -1;
    if (sched_getaffinity(0, sizeof mine, &mine) == 0)
        for (int c = 0; c < CPU_SETSIZE && cpu < 0; c++)
            if (CPU_ISSET(c, &mine)) cpu = c;
    int pinned = cpu >= 0 && pin_to(cpu) == 0;
    t_init(&argc, &argv);
    int me, n;
    MPI_Comm node = t_node_comm(&me, &n);
    /* all on the same processor, and still there after MPI_Init */
    int first = cpu, all_ok, ok;
    MPI_CHK(MPI_Bcast(&first, 1, MPI_INT, 0, node));
    ok = pinned && cpu == first && sched_getaffinity(0, sizeof mine, &mine) == 0 &&
         CPU_COUNT(&mine) == 1 && CPU_ISSET(first, &mine);
    MPI_CHK(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, node));
    if (!all_ok) {
        if (t_rank == 0) printf("note: cannot pin the ranks to one processor: not tested\n");
        MPI_CHK(MPI_Comm_free(&node));
        return t_finish();
    }
    int left = (me + n - 1) % n, right = (me + 1) % n;
    int out[2], in[2], flag;
    double t0 = MPI_Wtime();
    for (int it = 0; it < ITERS && n > 1; it++) {
        MPI_Request rr[2], sr[2];
        MPI_CHK(MPI_Irecv(&in[0], 1, MPI_INT, left, it % 2, node, &rr[0]));
        out[0] = out[1] = me * 100000 + it;
        MPI_CHK(MPI_Isend(&out[0], 1, MPI_INT, right, it % 2, node, &sr[0]));
        MPI_CHK(MPI_Isend(&out[1], 1, MPI_INT, left, 2 + it % 2, node, &sr[1]));
        /* the message from the right: found by MPI_Iprobe first */
        for (flag = 0; !flag;)
            MPI_CHK(MPI_Iprobe(right, 2 + it % 2, node, &flag, MPI_STATUS_IGNORE));
        MPI_CHK(MPI_Irecv(&in[1], 1, MPI_INT, right, 2 + it % 2, node, &rr[1]));
        for (int got = 0; got < 2;) {
            int idx;
            MPI_CHK(MPI_Testany(2, rr, &idx, &flag, MPI_STATUS_IGNORE));
            if (flag && idx != MPI_UNDEFINED) got++;
        }
        for (int k = 0; k < 2; k++)
            for (flag = 0; !flag;) MPI_CHK(MPI_Test(&sr[k], &flag, MPI_STATUS_IGNORE));
        CHECK(in[0] == left * 100000 + it && in[1] == right * 100000 + it,
              "iteration %d: got %d and %d", it, in[0], in[1]);
        /* all stop together once one is past the limit */
        if (it % 100 == 99) {
            int late = MPI_Wtime() - t0 > TIME_LIMIT_S, any_late;
            MPI_CHK(MPI_Allreduce(&late, &any_late, 1, MPI_INT, MPI_LOR, node));
            if (any_late) {
                CHECK(0, "only %d of %d polling exchanges in %d s with %d ranks on one processor",
                      it + 1, ITERS, TIME_LIMIT_S, n);
                break;
            }
        }
    }
    MPI_CHK(MPI_Comm_free(&node));
    return t_finish();
}
