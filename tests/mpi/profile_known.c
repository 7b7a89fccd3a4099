/* profile_known: MPI traffic known exactly, for the profile's test
 * (tests/profile/test_profile.sh checks the CSV of `mpiexec --profile`
 * against the numbers below at 1-4 ranks). Rank r of P, right = r+1,
 * left = r-1 (mod P):
 *   p2p  Isend 100, 1000, 10000 B to right (received with MPI_ANY_SOURCE);
 *        Sendrecv 8 doubles (64 B) to left; persistent send of 40 ints
 *        (160 B) to right, started twice; a send to MPI_PROC_NULL (none)
 *   coll Bcast 1000 B from world rank 0; Allreduce 4 doubles (32 B);
 *        Barrier; Gather 16 B on a communicator of reversed rank order
 *        whose root 0 is world rank P-1
 *   rma  Put 6 ints (24 B) to right, Get 8 B from left, under fences;
 *        then, under MPI_Win_lock_all, NACC MPI_Accumulate of one int
 *        (4 B) to right on that window (of MPI_COMM_WORLD) and NACC to left
 *        on a second window over the reversed communicator (another rank
 *        map): enough calls for the profile to time them one in 64 and
 *        count the others on its fast path; and on the first window NDT
 *        MPI_Put of a derived type of 3 ints (12 B) to right, the type
 *        freed, then NDT of one of 3 doubles (24 B): the fast path caches
 *        derived types' sizes too
 * and between MPI_Pcontrol(0) and MPI_Pcontrol(1), not to be counted, a
 * Sendrecv of 7 B and an Allreduce. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define NACC 5000 /* tests/profile/test_profile.sh expects this many */
#define NDT 600

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    int right = (r + 1) % P, left = (r + P - 1) % P;
    static char sbuf[10000], rbuf[10000];
    const int sizes[3] = {100, 1000, 10000};
    for (int k = 0; k < 3; k++) {
        MPI_Request q;
        MPI_Isend(sbuf, sizes[k], MPI_BYTE, right, k, MPI_COMM_WORLD, &q);
        MPI_Recv(rbuf, sizes[k], MPI_BYTE, MPI_ANY_SOURCE, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    }
    double d[8] = {0}, e[8];
    MPI_Sendrecv(d, 8, MPI_DOUBLE, left, 9, e, 8, MPI_DOUBLE, right, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int pi[40] = {0}, pr[40];
    MPI_Request pq[2];
    MPI_Send_init(pi, 40, MPI_INT, right, 7, MPI_COMM_WORLD, &pq[0]);
    MPI_Recv_init(pr, 40, MPI_INT, left, 7, MPI_COMM_WORLD, &pq[1]);
    for (int it = 0; it < 2; it++) {
        MPI_Startall(2, pq);
        MPI_Waitall(2, pq, MPI_STATUSES_IGNORE);
    }
    MPI_Request_free(&pq[0]);
    MPI_Request_free(&pq[1]);
    MPI_Send(sbuf, 5, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    MPI_Pcontrol(0);
    MPI_Sendrecv(sbuf, 7, MPI_BYTE, right, 5, rbuf, 7, MPI_BYTE, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Allreduce(MPI_IN_PLACE, d, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Pcontrol(1);

    MPI_Bcast(sbuf, 1000, MPI_BYTE, 0, MPI_COMM_WORLD);
    double a[4] = {1, 2, 3, 4}, b[4];
    MPI_Allreduce(a, b, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, P - r, &rev);
    char g[16 * 4] = {0};
    MPI_Gather(sbuf, 16, MPI_BYTE, g, 16, MPI_BYTE, 0, rev);

    int *base;
    MPI_Win win;
    MPI_Win_allocate(1024, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    int six[6] = {1, 2, 3, 4, 5, 6};
    char got[8];
    MPI_Win_fence(0, win);
    MPI_Put(six, 6, MPI_INT, right, 0, 6, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Get(got, 8, MPI_BYTE, left, 0, 8, MPI_BYTE, win);
    MPI_Win_fence(0, win);
    int one = 1, *acc; /* rank k of rev is world rank P-1-k */
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < NACC; i++) MPI_Accumulate(&one, 1, MPI_INT, right, 4, 1, MPI_INT, MPI_SUM, win);
    for (int k = 0; k < 2; k++) {
        MPI_Datatype ct, base = k ? MPI_DOUBLE : MPI_INT;
        MPI_Type_contiguous(3, base, &ct);
        MPI_Type_commit(&ct);
        for (int i = 0; i < NDT; i++) MPI_Put(six, 1, ct, right, 64, 3, base, win);
        MPI_Win_flush_all(win);
        MPI_Type_free(&ct);
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);

    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, rev, &acc, &win);
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < NACC; i++) MPI_Accumulate(&one, 1, MPI_INT, P - 1 - left, 0, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Comm_free(&rev);
    if (r == 0) printf(" No Errors\n");
    MPI_Finalize();
    return 0;
}
