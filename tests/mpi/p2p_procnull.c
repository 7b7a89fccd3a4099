/* p2p_procnull.c: MPI_PROC_NULL as source or destination of every
 * point-to-point call.  Sends succeed at once and move nothing; receives
 * and probes complete at once with status source MPI_PROC_NULL, tag
 * MPI_ANY_TAG, count 0, and leave the buffer untouched; MPI_Mprobe and
 * MPI_Improbe give MPI_MESSAGE_NO_PROC, which MPI_Mrecv / MPI_Imrecv accept. */
#include "common.h"

#define N 16

static int buf[N];

static void check_untouched(const char *what)
{
    for (int i = 0; i < N; i++)
        if (buf[i] != 1000 + i) {
            CHECK(buf[i] == 1000 + i, "%s wrote into the buffer", what);
            break;
        }
}

static void reset(MPI_Status *st)
{
    for (int i = 0; i < N; i++)
        buf[i] = 1000 + i;
    t_junk_status(st);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm comm = MPI_COMM_WORLD;
    const int P = MPI_PROC_NULL;
    MPI_Status st;
    MPI_Request req, reqs[2];
    int flag;
    int bsize = 4 * (N * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    void *bbuf = t_malloc((size_t)bsize);
    MPI_CHK(MPI_Buffer_attach(bbuf, bsize));

    reset(&st);
    MPI_CHK(MPI_Send(buf, N, MPI_INT, P, 1, comm));
    MPI_CHK(MPI_Ssend(buf, N, MPI_INT, P, 1, comm));
    MPI_CHK(MPI_Bsend(buf, N, MPI_INT, P, 1, comm));
    MPI_CHK(MPI_Rsend(buf, N, MPI_INT, P, 1, comm));

    MPI_CHK(MPI_Recv(buf, N, MPI_INT, P, 1, comm, &st));
    CHECK_NULL_STATUS(st, MPI_PROC_NULL);
    check_untouched("MPI_Recv");

    reset(&st);
    MPI_CHK(MPI_Recv(buf, N, MPI_INT, P, MPI_ANY_TAG, comm, &st));
    CHECK_NULL_STATUS(st, MPI_PROC_NULL);

    /* Nonblocking sends of each mode and a receive, completed by Waitall. */
    MPI_Request sreq[4];
    MPI_CHK(MPI_Isend(buf, N, MPI_INT, P, 2, comm, &sreq[0]));
    MPI_CHK(MPI_Issend(buf, N, MPI_INT, P, 2, comm, &sreq[1]));
    MPI_CHK(MPI_Ibsend(buf, N, MPI_INT, P, 2, comm, &sreq[2]));
    MPI_CHK(MPI_Irsend(buf, N, MPI_INT, P, 2, comm, &sreq[3]));
    MPI_CHK(MPI_Waitall(4, sreq, MPI_STATUSES_IGNORE));

    reset(&st);
    MPI_CHK(MPI_Irecv(buf, N, MPI_INT, P, 2, comm, &req));
    flag = 0;
    for (int i = 0; i < 1000000 && !flag; i++)
        MPI_CHK(MPI_Test(&req, &flag, &st));
    CHECK(flag, "MPI_Irecv from MPI_PROC_NULL never completed in MPI_Test");
    CHECK_NULL_STATUS(st, MPI_PROC_NULL);
    check_untouched("MPI_Irecv");

    /* Sendrecv and Sendrecv_replace with both ends MPI_PROC_NULL. */
    int out[N];
    for (int i = 0; i < N; i++)
        out[i] = i;
    reset(&st);
    MPI_CHK(MPI_Sendrecv(out, N, MPI_INT, P, 3, buf, N, MPI_INT, P, 3, comm, &st));
    CHECK_NULL_STATUS(st, MPI_PROC_NULL);
    check_untouched("MPI_Sendrecv");
    reset(&st);
    MPI_CHK(MPI_Sendrecv_replace(buf, N, MPI_INT, P, 3, P, 3, comm, &st));
    CHECK_NULL_STATUS(st, MPI_PROC_NULL);
    check_untouched("MPI_Sendrecv_replace");
    reset(&st);
    MPI_CHK(MPI_Isendrecv(out, N, MPI_INT, P, 3, buf, N, MPI_INT, P, 3, comm, &req));
    MPI_CHK(MPI_Wait(&req, &st));
    if (!T_MPICH_QUIRK("MPICH 5.0.2 leaves the status of this Isendrecv unset"))
        CHECK_NULL_STATUS(st, MPI_PROC_NULL);
    check_untouched("MPI_Isendrecv");
    reset(&st);
    MPI_CHK(MPI_Isendrecv_replace(buf, N, MPI_INT, P, 3, P, 3, comm, &req));
    MPI_CHK(MPI_Wait(&req, &st));
    if (!T_MPICH_QUIRK("MPICH 5.0.2 leaves the status of this Isendrecv_replace unset"))
        CHECK_NULL_STATUS(st, MPI_PROC_NULL);
    check_untouched("MPI_Isendrecv_replace");

    /* Probes. */
    reset(&st);
    MPI_CHK(MPI_Probe(P, MPI_ANY_TAG, comm, &st));
    CHECK_NULL_STATUS(st, MPI_PROC_NULL);
    reset(&st);
    flag = 0;
    MPI_CHK(MPI_Iprobe(P, 4, comm, &flag, &st));
    CHECK(flag == 1, "MPI_Iprobe(MPI_PROC_NULL) flag %d", flag);
    CHECK_NULL_STATUS(st, MPI_PROC_NULL);

    MPI_Message msg = MPI_MESSAGE_NULL;
    reset(&st);
    MPI_CHK(MPI_Mprobe(P, 4, comm, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NO_PROC, "MPI_Mprobe(MPI_PROC_NULL) message is not NO_PROC");
    CHECK_NULL_STATUS(st, MPI_PROC_NULL);
    reset(&st);
    MPI_CHK(MPI_Mrecv(buf, N, MPI_INT, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NULL, "MPI_Mrecv did not set the message to MPI_MESSAGE_NULL");
    CHECK_NULL_STATUS(st, MPI_PROC_NULL);
    check_untouched("MPI_Mrecv");

    msg = MPI_MESSAGE_NULL;
    flag = 0;
    reset(&st);
    MPI_CHK(MPI_Improbe(P, MPI_ANY_TAG, comm, &flag, &msg, &st));
    CHECK(flag == 1, "MPI_Improbe(MPI_PROC_NULL) flag %d", flag);
    CHECK(msg == MPI_MESSAGE_NO_PROC, "MPI_Improbe(MPI_PROC_NULL) message is not NO_PROC");
    CHECK_NULL_STATUS(st, MPI_PROC_NULL);
    reset(&st);
    MPI_CHK(MPI_Imrecv(buf, N, MPI_INT, &msg, &req));
    CHECK(msg == MPI_MESSAGE_NULL, "MPI_Imrecv did not set the message to MPI_MESSAGE_NULL");
    MPI_CHK(MPI_Wait(&req, &st));
    CHECK_NULL_STATUS(st, MPI_PROC_NULL);
    check_untouched("MPI_Imrecv");

    /* Persistent requests to and from MPI_PROC_NULL, started twice. */
    MPI_CHK(MPI_Send_init(out, N, MPI_INT, P, 5, comm, &reqs[0]));
    MPI_CHK(MPI_Recv_init(buf, N, MPI_INT, P, 5, comm, &reqs[1]));
    for (int round = 0; round < 2; round++) {
        MPI_Status sts[2];
        reset(&sts[1]);
        MPI_CHK(MPI_Startall(2, reqs));
        MPI_CHK(MPI_Waitall(2, reqs, sts));
        if (!T_MPICH_QUIRK("MPICH 5.0.2 gives an empty status (source ANY_SOURCE)"))
            CHECK_NULL_STATUS(sts[1], MPI_PROC_NULL);
        check_untouched("persistent receive");
    }
    MPI_CHK(MPI_Request_free(&reqs[0]));
    MPI_CHK(MPI_Request_free(&reqs[1]));
    MPI_Request pr[3];
    MPI_CHK(MPI_Bsend_init(out, N, MPI_INT, P, 6, comm, &pr[0]));
    MPI_CHK(MPI_Ssend_init(out, N, MPI_INT, P, 6, comm, &pr[1]));
    MPI_CHK(MPI_Rsend_init(out, N, MPI_INT, P, 6, comm, &pr[2]));
    for (int i = 0; i < 3; i++) {
        MPI_CHK(MPI_Start(&pr[i]));
        MPI_CHK(MPI_Wait(&pr[i], MPI_STATUS_IGNORE));
        MPI_CHK(MPI_Request_free(&pr[i]));
    }

    void *addr;
    int size;
    MPI_CHK(MPI_Buffer_detach(&addr, &size));
    free(bbuf);
    return t_finish();
}
