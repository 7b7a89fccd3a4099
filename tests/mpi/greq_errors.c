/* greq_errors.c: the error code a generalized request's callback returns is
 * returned by the MPI call that ran it (query and free functions: MPI_Wait,
 * MPI_Test, MPI_Waitall (in the status), MPI_Request_free; cancel function:
 * MPI_Cancel). Found by mpi4py's test_grequest. */
#include "common.h"

static int frees;

static int q_ok(void *state, MPI_Status *s)
{
    (void)state;
    MPI_Status_set_elements(s, MPI_BYTE, 0);
    MPI_Status_set_cancelled(s, 0);
    s->MPI_SOURCE = MPI_UNDEFINED;
    s->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}
static int q_err(void *state, MPI_Status *s)
{
    q_ok(state, s);
    return MPI_ERR_BUFFER;
}
static int f_ok(void *state) { (void)state; frees++; return MPI_SUCCESS; }
static int f_err(void *state) { (void)state; frees++; return MPI_ERR_BUFFER; }
static int c_ok(void *state, int done) { (void)state; (void)done; return MPI_SUCCESS; }
static int c_err(void *state, int done) { (void)state; (void)done; return MPI_ERR_BUFFER; }

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Request r, rs[2];
    MPI_Status st, sts[2];
    int flag = 0;

    MPI_CHK(MPI_Grequest_start(q_err, f_ok, c_ok, NULL, &r));
    MPI_CHK(MPI_Grequest_complete(r));
    st.MPI_ERROR = 12345; /* a single completion leaves it (MPI 4.1 sec. 3.2.5) */
    CHECK_CLASS(MPI_Wait(&r, &st), MPI_ERR_BUFFER);
    CHECK(r == MPI_REQUEST_NULL, "request not freed after a failed query");
    CHECK(st.MPI_ERROR == 12345, "MPI_Wait wrote status.MPI_ERROR %d", st.MPI_ERROR);

    frees = 0;
    MPI_CHK(MPI_Grequest_start(q_ok, f_err, c_ok, NULL, &r));
    MPI_CHK(MPI_Grequest_complete(r));
    CHECK_CLASS(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_BUFFER);
    CHECK(r == MPI_REQUEST_NULL && frees == 1, "free function ran %d times", frees);

    MPI_CHK(MPI_Grequest_start(q_ok, f_err, c_ok, NULL, &r));
    MPI_CHK(MPI_Grequest_complete(r));
    CHECK_CLASS(MPI_Test(&r, &flag, MPI_STATUS_IGNORE), MPI_ERR_BUFFER);
    CHECK(flag && r == MPI_REQUEST_NULL, "Test: flag %d", flag);

    MPI_CHK(MPI_Grequest_start(q_ok, f_err, c_ok, NULL, &r));
    MPI_CHK(MPI_Grequest_complete(r));
    CHECK_CLASS(MPI_Request_free(&r), MPI_ERR_BUFFER);
    CHECK(r == MPI_REQUEST_NULL, "Request_free left the handle");

    MPI_CHK(MPI_Grequest_start(q_ok, f_ok, c_ok, NULL, &rs[0]));
    MPI_CHK(MPI_Grequest_start(q_err, f_ok, c_ok, NULL, &rs[1]));
    MPI_CHK(MPI_Grequest_complete(rs[0]));
    MPI_CHK(MPI_Grequest_complete(rs[1]));
    CHECK_CLASS(MPI_Waitall(2, rs, sts), MPI_ERR_IN_STATUS);
    CHECK(sts[0].MPI_ERROR == MPI_SUCCESS && t_class(sts[1].MPI_ERROR) == MPI_ERR_BUFFER,
          "Waitall statuses: %d %d", sts[0].MPI_ERROR, sts[1].MPI_ERROR);

    MPI_CHK(MPI_Grequest_start(q_ok, f_ok, c_err, NULL, &r));
    CHECK_CLASS(MPI_Cancel(&r), MPI_ERR_BUFFER);
    MPI_CHK(MPI_Grequest_complete(r));
    MPI_CHK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    return t_finish();
}
