/* p2p_first_contact: the very first messages between every pair of ranks
 * go both ways at once, straight after MPI_Init (no collective before):
 * every rank posts a receive from every other rank and sends to every
 * other rank, small (injected where the network allows), then eager
 * mid-size, then rendezvous-size messages, and checks each one's content.
 * Across nodes each pair's first packets cross while the network provider
 * is still connecting: libfabric 1.17's TCP provider drops one of two
 * simultaneous connections, and between a parent and its spawned children
 * packets queued on it were lost (src/transport/ofi/ofi_contact.c); within
 * one job finalize_first_contact lost packets that way, and the ranks'
 * connections are now made at start-up. */
#include "common.h"

static int value(int from, int to, int round, size_t i)
{
    return (int)((unsigned)from * 7919u + (unsigned)to * 104729u + (unsigned)round * 31u + (unsigned)i);
}

static void exchange(int round, size_t n)
{
    int *out = t_malloc((size_t)t_size * n * sizeof(int));
    int *in = t_malloc((size_t)t_size * n * sizeof(int));
    MPI_Request *reqs = t_malloc(2 * (size_t)t_size * sizeof *reqs);
    int nreq = 0;
    for (int p = 0; p < t_size; p++) {
        if (p == t_rank) continue;
        MPI_CHK(MPI_Irecv(in + (size_t)p * n, (int)n, MPI_INT, p, round, MPI_COMM_WORLD, &reqs[nreq++]));
    }
    for (int k = 1; k < t_size; k++) {
        int p = (t_rank + k) % t_size;
        for (size_t i = 0; i < n; i++) out[(size_t)p * n + i] = value(t_rank, p, round, i);
        MPI_CHK(MPI_Isend(out + (size_t)p * n, (int)n, MPI_INT, p, round, MPI_COMM_WORLD, &reqs[nreq++]));
    }
    MPI_CHK(MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE));
    for (int p = 0; p < t_size; p++) {
        if (p == t_rank) continue;
        int bad = 0;
        for (size_t i = 0; i < n; i++) bad += in[(size_t)p * n + i] != value(p, t_rank, round, i);
        CHECK(bad == 0, "round %d (%zu ints) from rank %d: %d wrong values", round, n, p, bad);
    }
    free(out);
    free(in);
    free(reqs);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    exchange(0, 1);          /* 4 B: injected */
    exchange(1, 4096);       /* 16 KiB: eager */
    exchange(2, 256 * 1024); /* 1 MiB: rendezvous */
    return t_finish();
}
