/* finalize_pending.c: a send whose request was freed while still active
 * must be delivered even though its sender goes on into MPI_Finalize at
 * once. Rank 0 starts a large MPI_Isend from a static buffer (not the
 * heap: the receiver reads it from rank 0's own memory), frees the request
 * and finalizes; rank 1 posts its receive only after a pause, and checks
 * every byte. An implementation that lets rank 0 leave MPI_Finalize (and
 * exit) before the data has been read fails here. No collective call comes
 * before MPI_Finalize (it would hold rank 0 back), so rank 1 reports the
 * result. With more ranks, the others only finalize. */
#include "common.h"

#include <unistd.h>

#define N (1 << 20)
static unsigned char data[N];

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    if (t_size >= 2 && t_rank == 0) {
        for (int i = 0; i < N; i++) data[i] = (unsigned char)(i * 7 + 3);
        MPI_Request r;
        MPI_CHK(MPI_Isend(data, N, MPI_BYTE, 1, 5, MPI_COMM_WORLD, &r));
        MPI_CHK(MPI_Request_free(&r));
    } else if (t_size >= 2 && t_rank == 1) {
        usleep(200 * 1000); /* rank 0 is in MPI_Finalize by now */
        MPI_CHK(MPI_Recv(data, N, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        int bad = 0;
        for (int i = 0; i < N; i++) bad += data[i] != (unsigned char)(i * 7 + 3);
        CHECK(bad == 0, "%d of %d bytes wrong", bad, N);
    }
    MPI_Finalize();
    if (t_rank == (t_size >= 2 ? 1 : 0) && t_errs == 0) printf(" No Errors\n");
    return t_errs ? 1 : 0;
}
