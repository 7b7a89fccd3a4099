/* coll_affinity.c: collectives when the ranks start with different CPU
 * affinity masks. Before MPI_Init, rank 0 (by PMI_RANK, which the process
 * manager sets) narrows its own mask to a single processor; the others
 * keep theirs. An implementation that decides from each rank's own mask
 * whether the node is oversubscribed, and picks collective algorithms by
 * that, would have ranks run different algorithms and hang or corrupt
 * data; all ranks must agree. Bcast, Reduce and Allreduce at sizes on both
 * sides of the algorithm switch points, values checked. */
#include "common.h"

#include <sched.h>

static void narrow_rank0_affinity(void)
{
    const char *r = getenv("PMI_RANK");
    if (!r || atoi(r) != 0) return;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &set)) continue;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        sched_setaffinity(0, sizeof one, &one);
        return;
    }
}

int main(int argc, char **argv)
{
    narrow_rank0_affinity();
    t_init(&argc, &argv);
    static const int counts[] = {1, 14, 256, 1024, 4096, 65536};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        int n = counts[k];
        int *buf = malloc((size_t)n * sizeof *buf), *out = malloc((size_t)n * sizeof *out);
        for (int root = 0; root < t_size; root += t_size > 2 ? t_size - 1 : 1) {
            for (int i = 0; i < n; i++) buf[i] = t_rank == root ? i * 7 + root : -1;
            MPI_CHK(MPI_Bcast(buf, n, MPI_INT, root, MPI_COMM_WORLD));
            int bad = 0;
            for (int i = 0; i < n; i++) bad += buf[i] != i * 7 + root;
            CHECK(bad == 0, "bcast of %d ints from %d: %d wrong", n, root, bad);

            for (int i = 0; i < n; i++) buf[i] = t_rank + i;
            MPI_CHK(MPI_Reduce(buf, out, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
            bad = 0;
            if (t_rank == root)
                for (int i = 0; i < n; i++)
                    bad += out[i] != t_size * i + t_size * (t_size - 1) / 2;
            CHECK(bad == 0, "reduce of %d ints to %d: %d wrong", n, root, bad);
        }
        for (int i = 0; i < n; i++) buf[i] = t_rank * i;
        MPI_CHK(MPI_Allreduce(buf, out, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
        int bad = 0;
        for (int i = 0; i < n; i++) bad += out[i] != (t_size - 1) * i;
        CHECK(bad == 0, "allreduce of %d ints: %d wrong", n, bad);
        free(buf);
        free(out);
    }
    return t_finish();
}
