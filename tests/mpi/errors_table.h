/* errors_table.h: the harness shared by the bad-input tests errors_table.c
 * (point-to-point, requests, communicators, groups, datatypes, topologies,
 * info, environment), errors_table_coll.c (every collective in each form:
 * blocking, nonblocking, persistent, large-count) and errors_table_rma.c
 * (windows and epochs).
 *
 * Each test calls MPI functions with each kind of invalid argument that
 * applies to them -- null, freed and wrong-kind handles (a datatype handle
 * cast to MPI_Comm, ...), out-of-range ranks and roots, negative counts,
 * invalid tags, bad or uncommitted datatypes, NULL buffers with nonzero
 * counts, bad ops, keyvals and info objects, NULL output arguments, RMA
 * calls outside an epoch -- under MPI_ERRORS_RETURN and checks the error
 * CLASS of each return (where the standard leaves the class open, a case
 * names the two or three acceptable ones). A call that answers
 * MPI_ERR_UNSUPPORTED_OPERATION is a function the library does not
 * implement yet: counted as skipped. Every rank makes the same calls with
 * the same arguments, so collective calls with bad arguments fail on all
 * ranks alike; arguments significant only at the root are tested on
 * MPI_COMM_SELF. Afterwards the job must still communicate correctly (ring,
 * collectives, a fresh communicator), and after MPI_Finalize calls must
 * fail cleanly. Rank 0 prints the number of cases. */
#ifndef DMPI_ERRORS_TABLE_H
#define DMPI_ERRORS_TABLE_H

#include "common.h"

#define ET_UNUSED __attribute__((unused))

#include <limits.h>

static int ncases, nskipped;
static const char *form_note = ""; /* which form of a collective a loop is trying */
static const char *bad_label; /* which bad handle a loop is trying */

static void chk_at(const char *file, const char *call, int line, int rc, int want1, int want2,
                   int want3)
{
    int cls = rc == MPI_SUCCESS ? MPI_SUCCESS : t_class(rc);
    const char *what = bad_label;
    bad_label = NULL;
    if (cls == MPI_ERR_UNSUPPORTED_OPERATION && want1 != cls) {
        nskipped++;
        return;
    }
    ncases++;
    if (cls != want1 && cls != want2 && cls != want3) {
        char a[64], b[64];
        snprintf(a, sizeof a, "%d", want1);
        if (want3 != want2) snprintf(b, sizeof b, ", %d or %d", want2, want3);
        else snprintf(b, sizeof b, " or %d", want2);
        t_fail(file, line, call, "%s%s%s%sreturned class %d (%s), expected class %s%s",
               form_note, what ? "with " : "", what ? what : "", what ? ": " : "", cls,
               rc == MPI_SUCCESS ? "MPI_SUCCESS" : t_errstr(rc), a, want2 != want1 ? b : "");
        return;
    }
    if (cls != MPI_SUCCESS) { /* the code must have a message */
        char msg[MPI_MAX_ERROR_STRING];
        int len = -1;
        if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS || len <= 0)
            t_fail(file, line, call, "no error string for code %d", rc);
    }
}
/* checks a return code; the file and line are the caller's */
#define chk(...) chk_at(__FILE__, __VA_ARGS__)
#define E(want, call) chk(#call, __LINE__, (call), (want), (want), (want))
#define E2(w1, w2, call) chk(#call, __LINE__, (call), (w1), (w2), (w2))
#define E3(w1, w2, w3, call) chk(#call, __LINE__, (call), (w1), (w2), (w3))

/* Bad handles of each kind: FOR_BAD(list, var) stmt  runs stmt with var set
 * to each entry of the list. */
#define MAXBAD 8
#define BADLIST(T, name) static struct { T h[MAXBAD]; const char *what[MAXBAD]; int n; } name
#define ADD(list, val) ((list).h[(list).n] = (val), (list).what[(list).n++] = #val)
#define FOR_BAD(list, var) \
    for (int i_ = 0; i_ < (list).n && ((var) = (list).h[i_], bad_label = (list).what[i_], 1); i_++)

BADLIST(MPI_Comm, badcomm);
BADLIST(MPI_Datatype, badtype);
BADLIST(MPI_Op, badop);
BADLIST(MPI_Group, badgroup);
BADLIST(MPI_Info, badinfo);
BADLIST(MPI_Errhandler, baderrh);
BADLIST(MPI_Request, badreq);
BADLIST(int, badkey);  /* bad comm keyvals */
BADLIST(MPI_Win, badwin);

static ET_UNUSED const MPI_Comm W = MPI_COMM_WORLD, S = MPI_COMM_SELF;
static ET_UNUSED int ibuf[256], ibuf2[256];
static ET_UNUSED MPI_Status st;
static ET_UNUSED MPI_Request rq;
static ET_UNUSED MPI_Comm dupcomm, cartcomm, graphcomm, newcomm;
static ET_UNUSED MPI_Datatype vec_t, uncommitted_t, newtype;
static ET_UNUSED MPI_Op user_op, newop;
static ET_UNUSED MPI_Group wgroup, newgroup;
static ET_UNUSED MPI_Info info, newinfo;
static ET_UNUSED MPI_Errhandler user_errh;
static ET_UNUSED int comm_key, type_key, win_key;
static ET_UNUSED MPI_Aint aint;
static ET_UNUSED MPI_Count cnt;
static ET_UNUSED int flag, ival;

static void sum_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in; (void)inout; (void)len; (void)dt;
}
static inline void sum_fn_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    (void)in; (void)inout; (void)len; (void)dt;
}
static void errh_fn(MPI_Comm *c, int *code, ...) { (void)c; (void)code; }
static inline int gq_query(void *s, MPI_Status *status) { (void)s; MPI_Status_set_error(status, 0); return 0; }
static inline int gq_free(void *s) { (void)s; return 0; }
static inline int gq_cancel(void *s, int c) { (void)s; (void)c; return 0; }

/* A request handle that was valid and is no more. */
static inline MPI_Request stale_request(void)
{
    MPI_Request r, copy;
    MPI_Isend(ibuf, 1, MPI_INT, MPI_PROC_NULL, 0, W, &r);
    copy = r;
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    return copy;
}

static inline void setup(void)
{
    MPI_Comm_set_errhandler(W, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(S, MPI_ERRORS_RETURN);
    MPI_CHK(MPI_Comm_dup(W, &dupcomm));
    MPI_CHK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec_t));
    MPI_CHK(MPI_Type_commit(&vec_t));
    MPI_CHK(MPI_Type_contiguous(3, MPI_INT, &uncommitted_t));
    MPI_CHK(MPI_Op_create(sum_fn, 1, &user_op));
    MPI_CHK(MPI_Comm_group(W, &wgroup));
    MPI_CHK(MPI_Info_create(&info));
    MPI_CHK(MPI_Info_set(info, "key", "value"));
    MPI_CHK(MPI_Comm_create_errhandler(errh_fn, &user_errh));
    MPI_CHK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &comm_key, NULL));
    MPI_CHK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &type_key, NULL));
    MPI_CHK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &win_key, NULL));
    int dims[1] = {t_size}, periods[1] = {0};
    MPI_CHK(MPI_Cart_create(W, 1, dims, periods, 0, &cartcomm));
    int index[1] = {0}, edges[1] = {0};
    MPI_CHK(MPI_Graph_create(S, 1, index, edges, 0, &graphcomm));

    /* freed objects of each kind */
    MPI_Comm fc; MPI_Comm_dup(W, &fc); MPI_Comm freed_comm = fc; MPI_Comm_free(&fc);
    MPI_Datatype ft; MPI_Type_contiguous(2, MPI_INT, &ft); MPI_Datatype freed_type = ft; MPI_Type_free(&ft);
    MPI_Op fo; MPI_Op_create(sum_fn, 1, &fo); MPI_Op freed_op = fo; MPI_Op_free(&fo);
    MPI_Group fg; MPI_Group_incl(wgroup, 1, (int[]){0}, &fg); MPI_Group freed_group = fg; MPI_Group_free(&fg);
    MPI_Info fi; MPI_Info_create(&fi); MPI_Info freed_info = fi; MPI_Info_free(&fi);
    MPI_Errhandler fe; MPI_Comm_create_errhandler(errh_fn, &fe); MPI_Errhandler freed_errh = fe; MPI_Errhandler_free(&fe);
    int fk; MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &fk, NULL);
    int freed_key = fk; MPI_Comm_free_keyval(&fk);

    ADD(badcomm, MPI_COMM_NULL); ADD(badcomm, freed_comm); ADD(badcomm, (MPI_Comm)MPI_INT);
    ADD(badcomm, (MPI_Comm)vec_t); ADD(badcomm, (MPI_Comm)wgroup); ADD(badcomm, (MPI_Comm)info);
    ADD(badcomm, (MPI_Comm)user_op);
    ADD(badtype, MPI_DATATYPE_NULL); ADD(badtype, freed_type); ADD(badtype, (MPI_Datatype)MPI_COMM_WORLD);
    ADD(badtype, (MPI_Datatype)dupcomm); ADD(badtype, (MPI_Datatype)user_op); ADD(badtype, (MPI_Datatype)MPI_SUM);
    ADD(badop, MPI_OP_NULL); ADD(badop, freed_op); ADD(badop, (MPI_Op)MPI_INT); ADD(badop, (MPI_Op)vec_t);
    ADD(badop, (MPI_Op)dupcomm);
    ADD(badgroup, MPI_GROUP_NULL); ADD(badgroup, freed_group); ADD(badgroup, (MPI_Group)MPI_COMM_WORLD);
    ADD(badgroup, (MPI_Group)vec_t); ADD(badgroup, (MPI_Group)dupcomm);
    ADD(badinfo, freed_info); ADD(badinfo, (MPI_Info)MPI_COMM_WORLD); ADD(badinfo, (MPI_Info)vec_t);
    ADD(badinfo, (MPI_Info)dupcomm);
    ADD(baderrh, MPI_ERRHANDLER_NULL); ADD(baderrh, freed_errh); ADD(baderrh, (MPI_Errhandler)MPI_INT);
    ADD(baderrh, (MPI_Errhandler)dupcomm);
    ADD(badreq, (MPI_Request)dupcomm); ADD(badreq, (MPI_Request)vec_t); ADD(badreq, (MPI_Request)MPI_INT);
    ADD(badkey, MPI_KEYVAL_INVALID); ADD(badkey, freed_key); ADD(badkey, type_key); ADD(badkey, 987654);
    ADD(badwin, MPI_WIN_NULL); ADD(badwin, (MPI_Win)dupcomm); ADD(badwin, (MPI_Win)MPI_INT);
}

/* ---------------------------------------------- still working afterwards */
static inline void check_still_works(void)
{
    int right = (t_rank + 1) % t_size, left = (t_rank + t_size - 1) % t_size;
    for (int i = 0; i < 64; i++) ibuf[i] = t_rank * 1000 + i;
    MPI_CHK(MPI_Sendrecv(ibuf, 64, MPI_INT, right, 5, ibuf2, 64, MPI_INT, left, 5, W, &st));
    for (int i = 0; i < 64; i++) CHECK(ibuf2[i] == left * 1000 + i, "ring data %d", ibuf2[i]);
    int sum = 0;
    MPI_CHK(MPI_Allreduce(&t_rank, &sum, 1, MPI_INT, MPI_SUM, W));
    CHECK(sum == t_size * (t_size - 1) / 2, "allreduce %d", sum);
    int root = t_size - 1, v = t_rank == root ? 4242 : 0;
    MPI_CHK(MPI_Bcast(&v, 1, MPI_INT, root, W));
    CHECK(v == 4242, "bcast %d", v);
    MPI_Comm c;
    MPI_CHK(MPI_Comm_split(W, t_rank % 2, -t_rank, &c));
    int one = 1, cnt2 = 0;
    MPI_CHK(MPI_Allreduce(&one, &cnt2, 1, MPI_INT, MPI_SUM, c));
    CHECK(cnt2 == (t_size + 1 - t_rank % 2) / 2, "split comm size %d", cnt2);
    MPI_CHK(MPI_Comm_free(&c));
    MPI_CHK(MPI_Barrier(dupcomm));
}

/* Sums the failures, reports, frees the setup's objects, finalizes, checks
 * that calls after MPI_Finalize fail cleanly; main's exit status. */
static inline int et_finish(const char *name)
{
    check_still_works();
    int total = 0;
    MPI_Allreduce(&t_errs, &total, 1, MPI_INT, MPI_SUM, W);
    if (t_rank == 0)
        printf("%s: %d bad-input cases per rank, %d skipped (not implemented yet)\n", name,
               ncases, nskipped);
    MPI_Comm_free(&dupcomm);
    MPI_Comm_free(&cartcomm);
    MPI_Comm_free(&graphcomm);
    MPI_Type_free(&vec_t);
    MPI_Type_free(&uncommitted_t);
    MPI_Op_free(&user_op);
    MPI_Group_free(&wgroup);
    MPI_Info_free(&info);
    MPI_Errhandler_free(&user_errh);
    MPI_Comm_free_keyval(&comm_key);
    MPI_Type_free_keyval(&type_key);
    MPI_Win_free_keyval(&win_key);
    MPI_Finalize();

    /* after MPI_Finalize: errors, not crashes */
    int a = 0;
    if (MPI_Send(ibuf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD) == MPI_SUCCESS) {
        fprintf(stderr, "[rank %d] MPI_Send after MPI_Finalize succeeded\n", t_rank);
        return 1;
    }
    if (MPI_Finalized(&a) != MPI_SUCCESS || !a) {
        fprintf(stderr, "[rank %d] MPI_Finalized after MPI_Finalize: %d\n", t_rank, a);
        return 1;
    }
    if (t_rank == 0) printf(total == 0 ? " No Errors\n" : " Found %d errors\n", total);
    return total == 0 ? 0 : 1;
}

#endif
