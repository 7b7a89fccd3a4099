/* comm_disconnect.c: MPI_Comm_disconnect (MPI 4.1 sec. 11.10.4) waits for
 * the communication pending on the communicator, frees it and sets the
 * handle to MPI_COMM_NULL; collective. Each rank sends a large message
 * (rendezvous) and a small one to its right neighbour with MPI_Isend +
 * MPI_Request_free and receives its left neighbour's with MPI_Irecv +
 * MPI_Request_free, then disconnects: once MPI_Comm_disconnect returns,
 * the receive buffers must hold the data. The same on a duplicate of an
 * intercommunicator, and on a communicator with an inactive persistent
 * request left (which is not pending communication). The predefined
 * communicators are refused. Issue 22 (7). */
#include "common.h"

#define BIG (1 << 20)

/* On c (intra: right/left neighbours; inter: the remote rank of the same
 * number, when there is one). */
static void exchange_and_disconnect(MPI_Comm c, int to, int from, const char *what)
{
    int *big = t_malloc(sizeof(int) * BIG), *in = t_malloc(sizeof(int) * BIG);
    int small = t_rank, got_small = -1;
    for (int i = 0; i < BIG; i++) big[i] = t_rank + i, in[i] = -1;
    MPI_Request r;
    if (to != MPI_PROC_NULL) {
        MPI_CHK(MPI_Isend(big, BIG, MPI_INT, to, 1, c, &r));
        MPI_CHK(MPI_Request_free(&r));
        MPI_CHK(MPI_Isend(&small, 1, MPI_INT, to, 2, c, &r));
        MPI_CHK(MPI_Request_free(&r));
    }
    int sender = -1;
    if (from != MPI_PROC_NULL) {
        MPI_CHK(MPI_Irecv(in, BIG, MPI_INT, from, 1, c, &r));
        MPI_CHK(MPI_Request_free(&r));
        MPI_CHK(MPI_Irecv(&got_small, 1, MPI_INT, from, 2, c, &r));
        MPI_CHK(MPI_Request_free(&r));
    }
    MPI_CHK(MPI_Comm_disconnect(&c));
    CHECK(c == MPI_COMM_NULL, "%s: handle not MPI_COMM_NULL", what);
    if (from != MPI_PROC_NULL) {
        sender = got_small;
        CHECK(sender >= 0 && sender < t_size, "%s: small message %d", what, got_small);
        int bad = 0;
        for (int i = 0; i < BIG && sender >= 0; i++) bad += in[i] != sender + i;
        CHECK(bad == 0, "%s: %d ints of the large message missing", what, bad);
    }
    free(big);
    free(in);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm c;
    MPI_CHK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    exchange_and_disconnect(c, (t_rank + 1) % t_size, (t_rank + t_size - 1) % t_size, "dup");
    if (t_size >= 2) {
        int low = t_rank < t_size / 2;
        MPI_Comm local, inter, d;
        MPI_CHK(MPI_Comm_split(MPI_COMM_WORLD, low, t_rank, &local));
        MPI_CHK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? t_size / 2 : 0, 5, &inter));
        MPI_CHK(MPI_Comm_dup(inter, &d));
        int lrank, rsize;
        MPI_CHK(MPI_Comm_rank(d, &lrank));
        MPI_CHK(MPI_Comm_remote_size(d, &rsize));
        int peer = lrank < rsize ? lrank : MPI_PROC_NULL;
        exchange_and_disconnect(d, peer, peer, "intercomm");
        MPI_CHK(MPI_Comm_disconnect(&inter));
        MPI_CHK(MPI_Comm_free(&local));
    }
    { /* an inactive persistent request does not hold it up */
        MPI_Request p;
        int x = 0;
        MPI_CHK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        MPI_CHK(MPI_Send_init(&x, 1, MPI_INT, t_rank, 0, c, &p));
        MPI_CHK(MPI_Comm_disconnect(&c));
        CHECK(c == MPI_COMM_NULL, "persistent: handle not MPI_COMM_NULL");
        MPI_CHK(MPI_Request_free(&p));
    }
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_CHK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_CLASS(MPI_Comm_disconnect(&w), MPI_ERR_COMM);
    return t_finish();
}
