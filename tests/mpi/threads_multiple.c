/* threads_multiple.c: MPI_THREAD_MULTIPLE with 4 threads per rank (link
 * with -pthread).  Thread t of every rank talks to thread t of the partner
 * rank (the last rank of an odd count to itself) on its own tag, all
 * threads at once: blocking Sendrecv, Isend/Irecv with Waitall, probe +
 * receive, sizes from 0 bytes to 256 KiB.  Each thread also runs
 * Allreduce and Barrier on its own duplicate of MPI_COMM_WORLD (collectives
 * on distinct communicators may run concurrently).  Checks data and the
 * MPI_Is_thread_main answer in the threads. */
#include "common.h"
#include "threads_common.h"

#define NTHREADS 4
#define ITERS 200

static int peer;
static MPI_Comm tcomm[NTHREADS];
static int size_of(int it)
{
    static const int s[] = { 0, 4, 100, 1024, 9000, 65536, 262144 };
    return s[it % 7];
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    unsigned char *out = t_malloc(262144), *in = t_malloc(262144);
    int flag = -1;
    MPI_Is_thread_main(&flag);
    TCHECK(flag == 0, "MPI_Is_thread_main says %d in a spawned thread", flag);

    for (int it = 0; it < ITERS; it++) {
        int n = size_of(it), tag = t * 1000 + it % 3;
        unsigned seed = (unsigned)(t_rank * 10000 + t * 1000 + it);
        unsigned pseed = (unsigned)(peer * 10000 + t * 1000 + it);
        MPI_Status st;
        t_fill(out, (size_t)n, seed);
        memset(in, 0, (size_t)n);
        int rc;
        switch (it % 3) {
        case 0:
            rc = MPI_Sendrecv(out, n, MPI_BYTE, peer, tag, in, n, MPI_BYTE, peer, tag,
                              MPI_COMM_WORLD, &st);
            break;
        case 1: {
            MPI_Request r[2];
            MPI_Status sts[2];
            rc = MPI_Irecv(in, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r[0]);
            rc |= MPI_Isend(out, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r[1]);
            rc |= MPI_Waitall(2, r, sts);
            st = sts[0];
            break;
        }
        default: {
            MPI_Request r;
            rc = MPI_Isend(out, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r);
            rc |= MPI_Probe(peer, tag, MPI_COMM_WORLD, &st);
            int cnt = -1;
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            TCHECK(cnt == n, "probe count %d, want %d", cnt, n);
            rc |= MPI_Recv(in, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st);
            rc |= MPI_Wait(&r, MPI_STATUS_IGNORE);
            break;
        }
        }
        TCHECK(rc == MPI_SUCCESS, "iteration %d: a call failed (%d)", it, rc);
        int cnt = -1;
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        TCHECK(st.MPI_SOURCE == peer && st.MPI_TAG == tag && cnt == n,
               "iteration %d: status %d/%d/%d, want %d/%d/%d", it, st.MPI_SOURCE, st.MPI_TAG,
               cnt, peer, tag, n);
        long bad = t_verify(in, (size_t)n, pseed);
        TCHECK(bad < 0, "iteration %d: %d-byte message wrong at byte %ld", it, n, bad);

        if (it % 20 == 0) {
            int v = t_rank + it, sum = -1, want = t_size * it + t_size * (t_size - 1) / 2;
            MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, tcomm[t]);
            TCHECK(sum == want, "Allreduce on thread communicator gave %d, want %d", sum, want);
            MPI_Barrier(tcomm[t]);
        }
    }
    free(out);
    free(in);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &t_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t_size);
    if (provided != MPI_THREAD_MULTIPLE) {
        CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not provided (%d)",
              provided);
        return t_finish();
    }
    peer = t_partner();
    for (int t = 0; t < NTHREADS; t++)
        MPI_CHK(MPI_Comm_dup(MPI_COMM_WORLD, &tcomm[t]));

    t_run_threads(NTHREADS, worker);
    for (int t = 0; t < NTHREADS; t++)
        MPI_CHK(MPI_Comm_free(&tcomm[t]));
    return t_finish();
}
