/* intercomm_p2p.c: point-to-point and probe on intercommunicators (MPI 4.1
 * sec. 7.6: ranks name processes of the remote group; a status's
 * MPI_SOURCE is a rank in the remote group). The world is cut in two
 * uneven sides, joined by MPI_Intercomm_create_from_groups. Every process
 * sends to every remote process (Isend and Issend, tag = its local rank) and receives them through
 * Recv with MPI_ANY_SOURCE, Probe + Recv, Iprobe, Mprobe + Mrecv and
 * Improbe + Imrecv, checking sources, tags and contents; Sendrecv between
 * matching local ranks; MPI_PROC_NULL. Issue 22 (1). */
#include "common.h"

static MPI_Comm ic;
static int lsize, rsize, lrank;

/* Receive one message from any remote process in one of five ways;
 * checks it and marks its source in seen[]. */
static void receive(int how, int *seen)
{
    int buf[2] = {-1, -1}, flag = 0, count = 0;
    MPI_Status st;
    MPI_Message m;
    MPI_Request r;
    switch (how % 5) {
    case 0: MPI_CHK(MPI_Recv(buf, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, ic, &st)); break;
    case 1:
        MPI_CHK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, ic, &st));
        MPI_CHK(MPI_Recv(buf, 2, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, ic, &st));
        break;
    case 2:
        while (!flag) MPI_CHK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ic, &flag, &st));
        MPI_CHK(MPI_Recv(buf, 2, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, ic, &st));
        break;
    case 3:
        MPI_CHK(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ic, &m, &st));
        MPI_CHK(MPI_Mrecv(buf, 2, MPI_INT, &m, &st));
        break;
    default:
        while (!flag) MPI_CHK(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, ic, &flag, &m, &st));
        MPI_CHK(MPI_Imrecv(buf, 2, MPI_INT, &m, &r));
        MPI_CHK(MPI_Wait(&r, &st));
        break;
    }
    MPI_CHK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == 2, "how %d: count %d", how, count);
    int src = st.MPI_SOURCE;
    CHECK(src >= 0 && src < rsize, "how %d: source %d (remote size %d)", how, src, rsize);
    if (src < 0 || src >= rsize) return;
    CHECK(st.MPI_TAG == src && buf[0] == src && buf[1] == lrank,
          "how %d: from %d tag %d data %d %d", how, src, st.MPI_TAG, buf[0], buf[1]);
    seen[src]++;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    if (t_size >= 2 && t_size <= 64) {
        int cut = t_size / 3 > 0 ? t_size / 3 : 1, a = t_rank < cut;
        int mine[64], other[64], nm = 0, no = 0;
        for (int w = 0; w < t_size; w++) {
            if ((w < cut) == a) mine[nm++] = w;
            else other[no++] = w;
        }
        MPI_Group wg, lg, rg;
        MPI_CHK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
        MPI_CHK(MPI_Group_incl(wg, nm, mine, &lg));
        MPI_CHK(MPI_Group_incl(wg, no, other, &rg));
        MPI_CHK(MPI_Intercomm_create_from_groups(lg, 0, rg, 0, "intercomm_p2p", MPI_INFO_NULL,
                                                 MPI_ERRORS_ARE_FATAL, &ic));
        MPI_CHK(MPI_Comm_size(ic, &lsize));
        MPI_CHK(MPI_Comm_remote_size(ic, &rsize));
        MPI_CHK(MPI_Comm_rank(ic, &lrank));
        for (int round = 0; round < 5; round++) {
            MPI_Request *rq = t_malloc(sizeof(MPI_Request) * (size_t)rsize);
            int (*out)[2] = t_malloc(sizeof(int[2]) * (size_t)rsize);
            for (int j = 0; j < rsize; j++) {
                out[j][0] = lrank;
                out[j][1] = j;
                if (round % 2) MPI_CHK(MPI_Issend(out[j], 2, MPI_INT, j, lrank, ic, &rq[j]));
                else MPI_CHK(MPI_Isend(out[j], 2, MPI_INT, j, lrank, ic, &rq[j]));
            }
            int seen[64] = {0};
            for (int k = 0; k < rsize; k++) receive(round + k, seen);
            for (int j = 0; j < rsize; j++)
                CHECK(seen[j] == 1, "round %d: %d messages from %d", round, seen[j], j);
            MPI_CHK(MPI_Waitall(rsize, rq, MPI_STATUSES_IGNORE));
            MPI_CHK(MPI_Barrier(ic)); /* no message of the next round meets this one's */
            free(rq);
            free(out);
        }
        /* Sendrecv between local rank i and remote rank i */
        if (lrank < rsize) {
            int got = -1;
            MPI_Status st;
            MPI_CHK(MPI_Sendrecv(&t_rank, 1, MPI_INT, lrank, 8, &got, 1, MPI_INT, lrank, 8, ic,
                                 &st));
            CHECK(got == other[lrank] && st.MPI_SOURCE == lrank, "sendrecv got %d from %d", got,
                  st.MPI_SOURCE);
        }
        MPI_Status st;
        int x = 0;
        MPI_CHK(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, ic));
        MPI_CHK(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, ic, &st));
        CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "proc_null source %d", st.MPI_SOURCE);
        MPI_CHK(MPI_Comm_free(&ic));
        MPI_CHK(MPI_Group_free(&lg));
        MPI_CHK(MPI_Group_free(&rg));
        MPI_CHK(MPI_Group_free(&wg));
    }
    return t_finish();
}
