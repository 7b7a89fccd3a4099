/* errors_p2p.c: bad arguments give the right error class under
 * MPI_ERRORS_RETURN (set on MPI_COMM_WORLD and MPI_COMM_SELF, which handles
 * errors not tied to a valid communicator), and never crash:
 *   MPI_COMM_NULL                        -> MPI_ERR_COMM
 *   rank out of range, ANY_SOURCE as dest -> MPI_ERR_RANK
 *   negative count                       -> MPI_ERR_COUNT
 *   negative tag (not ANY_TAG), ANY_TAG on a send -> MPI_ERR_TAG
 *   NULL buffer with a nonzero count     -> MPI_ERR_BUFFER
 *   MPI_DATATYPE_NULL                    -> MPI_ERR_TYPE
 *   null / inactive request where one is needed -> MPI_ERR_REQUEST
 *   bad root in Bcast / Reduce / Gather  -> MPI_ERR_ROOT
 *   MPI_OP_NULL                          -> MPI_ERR_OP
 * Every returned code has a non-empty MPI_Error_string.  Afterwards normal
 * point-to-point and collective communication still works. */
#include "common.h"

static int ncodes;

/* The call fails with the class, and its code has a message. */
#define EXPECT(call, cls)                                                          \
    do {                                                                           \
        int rc_ = (call);                                                          \
        int c_ = t_class(rc_);                                                     \
        CHECK(c_ == (cls), "%s returned %d (class %d: %s), want %s", #call, rc_,  \
              c_, rc_ == MPI_SUCCESS ? "success" : t_errstr(rc_), #cls);          \
        if (rc_ != MPI_SUCCESS) {                                                  \
            char s_[MPI_MAX_ERROR_STRING];                                         \
            int len_ = -1;                                                         \
            s_[0] = 0;                                                             \
            MPI_CHK(MPI_Error_string(rc_, s_, &len_));                             \
            CHECK(len_ > 0 && len_ < MPI_MAX_ERROR_STRING &&                       \
                      (int)strlen(s_) == len_,                                     \
                  "MPI_Error_string(%d) gave length %d", rc_, len_);               \
            ncodes++;                                                              \
        }                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_CHK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_CHK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_Comm W = MPI_COMM_WORLD;
    int buf[4] = { 0 }, right = (t_rank + 1) % t_size, flag;
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Status st;
    MPI_Message m;

    /* Invalid communicator. */
    EXPECT(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT(MPI_Recv(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &st), MPI_ERR_COMM);
    EXPECT(MPI_Isend(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &r), MPI_ERR_COMM);
    EXPECT(MPI_Irecv(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &r), MPI_ERR_COMM);
    EXPECT(MPI_Iprobe(0, 0, MPI_COMM_NULL, &flag, &st), MPI_ERR_COMM);
    EXPECT(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT(MPI_Bcast(buf, 1, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    int x;
    EXPECT(MPI_Comm_rank(MPI_COMM_NULL, &x), MPI_ERR_COMM);
    EXPECT(MPI_Comm_size(MPI_COMM_NULL, &x), MPI_ERR_COMM);

    /* Ranks. */
    EXPECT(MPI_Send(buf, 1, MPI_INT, t_size, 0, W), MPI_ERR_RANK);
    EXPECT(MPI_Send(buf, 1, MPI_INT, -5, 0, W), MPI_ERR_RANK);
    EXPECT(MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, W), MPI_ERR_RANK);
    EXPECT(MPI_Ssend(buf, 1, MPI_INT, t_size + 10, 0, W), MPI_ERR_RANK);
    EXPECT(MPI_Isend(buf, 1, MPI_INT, t_size, 0, W, &r), MPI_ERR_RANK);
    EXPECT(MPI_Recv(buf, 1, MPI_INT, t_size, 0, W, &st), MPI_ERR_RANK);
    EXPECT(MPI_Irecv(buf, 1, MPI_INT, -7, 0, W, &r), MPI_ERR_RANK);
    EXPECT(MPI_Probe(t_size, 0, W, &st), MPI_ERR_RANK);
    EXPECT(MPI_Iprobe(t_size, 0, W, &flag, &st), MPI_ERR_RANK);
    EXPECT(MPI_Sendrecv(buf, 1, MPI_INT, t_size, 0, buf + 1, 1, MPI_INT, 0, 0, W, &st),
           MPI_ERR_RANK);
    EXPECT(MPI_Send_init(buf, 1, MPI_INT, t_size, 0, W, &r), MPI_ERR_RANK);

    /* Counts. */
    EXPECT(MPI_Send(buf, -1, MPI_INT, right, 0, W), MPI_ERR_COUNT);
    EXPECT(MPI_Recv(buf, -1, MPI_INT, right, 0, W, &st), MPI_ERR_COUNT);
    EXPECT(MPI_Isend(buf, -3, MPI_INT, right, 0, W, &r), MPI_ERR_COUNT);
    EXPECT(MPI_Bcast(buf, -1, MPI_INT, 0, W), MPI_ERR_COUNT);
    if (!T_MPICH_QUIRK("MPICH 5.0.2 does not check this count (and crashes)"))
        EXPECT(MPI_Allreduce(buf, buf + 2, -1, MPI_INT, MPI_SUM, W), MPI_ERR_COUNT);
    EXPECT(MPI_Send_c(buf, -1, MPI_INT, right, 0, W), MPI_ERR_COUNT);

    /* Tags: negative ones other than MPI_ANY_TAG, and ANY_TAG on a send. */
    EXPECT(MPI_Send(buf, 1, MPI_INT, right, -1, W), MPI_ERR_TAG);
    EXPECT(MPI_Send(buf, 1, MPI_INT, right, -100, W), MPI_ERR_TAG);
    EXPECT(MPI_Send(buf, 1, MPI_INT, right, MPI_ANY_TAG, W), MPI_ERR_TAG);
    EXPECT(MPI_Isend(buf, 1, MPI_INT, right, -1, W, &r), MPI_ERR_TAG);
    EXPECT(MPI_Recv(buf, 1, MPI_INT, right, -100, W, &st), MPI_ERR_TAG);
    if (!T_MPICH_QUIRK("MPICH's ABI layer takes tag -1 for its internal MPI_ANY_TAG"))
        EXPECT(MPI_Recv(buf, 1, MPI_INT, right, -1, W, &st), MPI_ERR_TAG);
    EXPECT(MPI_Irecv(buf, 1, MPI_INT, right, -3, W, &r), MPI_ERR_TAG);
    EXPECT(MPI_Probe(right, -5, W, &st), MPI_ERR_TAG);

    /* Buffers. */
    EXPECT(MPI_Send(NULL, 1, MPI_INT, right, 0, W), MPI_ERR_BUFFER);
    EXPECT(MPI_Recv(NULL, 4, MPI_INT, right, 0, W, &st), MPI_ERR_BUFFER);
    EXPECT(MPI_Isend(NULL, 2, MPI_INT, right, 0, W, &r), MPI_ERR_BUFFER);

    /* Datatypes. */
    EXPECT(MPI_Send(buf, 1, MPI_DATATYPE_NULL, right, 0, W), MPI_ERR_TYPE);
    EXPECT(MPI_Recv(buf, 1, MPI_DATATYPE_NULL, right, 0, W, &st), MPI_ERR_TYPE);
    EXPECT(MPI_Irecv(buf, 1, MPI_DATATYPE_NULL, right, 0, W, &r), MPI_ERR_TYPE);
    EXPECT(MPI_Bcast(buf, 1, MPI_DATATYPE_NULL, 0, W), MPI_ERR_TYPE);
    EXPECT(MPI_Get_count(&st, MPI_DATATYPE_NULL, &x), MPI_ERR_TYPE);

    /* Requests: MPI_Start and MPI_Request_free need one, and MPI_Start a
     * persistent one. */
    r = MPI_REQUEST_NULL;
    EXPECT(MPI_Start(&r), MPI_ERR_REQUEST);
    r = MPI_REQUEST_NULL;
    EXPECT(MPI_Request_free(&r), MPI_ERR_REQUEST);
    MPI_Request rs[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    EXPECT(MPI_Startall(2, rs), MPI_ERR_REQUEST);
    MPI_CHK(MPI_Irecv(buf, 1, MPI_INT, MPI_ANY_SOURCE, 777, W, &r));
    EXPECT(MPI_Start(&r), MPI_ERR_REQUEST); /* not persistent */
    MPI_CHK(MPI_Cancel(&r));
    MPI_CHK(MPI_Wait(&r, &st));

    /* Roots. */
    EXPECT(MPI_Bcast(buf, 1, MPI_INT, t_size, W), MPI_ERR_ROOT);
    EXPECT(MPI_Bcast(buf, 1, MPI_INT, -1, W), MPI_ERR_ROOT);
    EXPECT(MPI_Reduce(buf, buf + 2, 1, MPI_INT, MPI_SUM, t_size, W), MPI_ERR_ROOT);
    EXPECT(MPI_Gather(buf, 1, MPI_INT, buf + 2, 1, MPI_INT, -2, W), MPI_ERR_ROOT);
    EXPECT(MPI_Scatter(buf, 1, MPI_INT, buf + 2, 1, MPI_INT, t_size + 3, W), MPI_ERR_ROOT);

    /* Operations. */
    EXPECT(MPI_Allreduce(buf, buf + 2, 1, MPI_INT, MPI_OP_NULL, W), MPI_ERR_OP);
    EXPECT(MPI_Reduce(buf, buf + 2, 1, MPI_INT, MPI_OP_NULL, 0, W), MPI_ERR_OP);

    /* Matched probe on a null message. */
    m = MPI_MESSAGE_NULL;
    EXPECT(MPI_Mrecv(buf, 1, MPI_INT, &m, &st), MPI_ERR_REQUEST);

    /* Every failing call returned a code with a message. */
    CHECK(ncodes > 40, "only %d calls failed", ncodes);

    /* Communication still works. */
    int left = (t_rank + t_size - 1) % t_size, got = -1;
    MPI_CHK(MPI_Sendrecv(&t_rank, 1, MPI_INT, right, 5, &got, 1, MPI_INT, left, 5, W, &st));
    CHECK(got == left, "ring after errors got %d, want %d", got, left);
    int sum = -1;
    MPI_CHK(MPI_Allreduce(&t_rank, &sum, 1, MPI_INT, MPI_SUM, W));
    CHECK(sum == t_size * (t_size - 1) / 2, "Allreduce after errors gave %d", sum);
    MPI_CHK(MPI_Barrier(W));

    /* Error strings of classes. */
    for (int c = MPI_SUCCESS; c <= MPI_ERR_ABI; c++) {
        char s[MPI_MAX_ERROR_STRING];
        int len = -1, cls = -1;
        MPI_CHK(MPI_Error_string(c, s, &len));
        CHECK(len > 0 && (int)strlen(s) == len, "MPI_Error_string(class %d) length %d", c, len);
        MPI_CHK(MPI_Error_class(c, &cls));
        CHECK(cls == c, "MPI_Error_class(%d) gave %d", c, cls);
    }
    return t_finish();
}
