/* MPI-IO data access entry points (MPI 4.1 section 14.4): every
 * combination of positioning (explicit offset, individual pointer, shared
 * pointer, ordered), synchronism (blocking, nonblocking, split collective)
 * and coordination (independent, collective), in int and large-count (_c)
 * forms, all through one function, io_op.
 *
 * Blocking and split collective calls at explicit offsets or the
 * individual pointers go through two-phase aggregation (io/twophase.c)
 * when the processes' pieces interleave; otherwise each process does its
 * own access, and a blocking collective write ends with a barrier, so that
 * data written by a collective call is in the file for every process once
 * any of them returns. Nonblocking collectives are always done alone. Ordered calls agree on each
 * process's offset with an allgather of the counts, and the first process
 * moves the shared pointer past the whole group's data. Nonblocking calls
 * do their work at once and return a completed request carrying the
 * status; split collectives do it in _begin and hand the status over in
 * _end. */
#include "api/file_api.h"
#include "coll/coll.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { AT, INDIV, SHARED, ORDERED };
enum { BLOCK, NONBLOCK, BEGIN };

/* Ordered access: this process's first etype, after the lower ranks' n. */
static int ordered_offset(dmpi_file *f, MPI_Offset n, MPI_Offset *at, char *why)
{
    dmpi_comm *c = f->comm;
    if (c->size == 1) return dmpi_sp_fetch_add(f, n, at, why);
    MPI_Offset *all = malloc((size_t)c->size * sizeof *all);
    if (!all) dmpi_abort_job(1, "dmpi: rank %d: out of memory in MPI-IO", dmpi_rt.world_rank);
    dmpi_datatype *i64 = dmpi_dt_builtin(MPI_INT64_T);
    int rc = dmpi_coll_allgather(&n, 1, i64, all, 1, i64, c);
    MPI_Offset before = 0, total = 0;
    for (int i = 0; i < c->size; i++) {
        if (i < c->rank) before += all[i];
        total += all[i];
    }
    free(all);
    struct { MPI_Offset base; int64_t rc; } m = {0, MPI_SUCCESS};
    if (rc == MPI_SUCCESS && c->rank == 0) m.rc = dmpi_sp_fetch_add(f, total, &m.base, why);
    if (rc == MPI_SUCCESS) rc = dmpi_coll_bcast(&m, sizeof m, dmpi_dt_builtin(MPI_BYTE), 0, c);
    if (rc == MPI_SUCCESS) rc = (int)m.rc;
    *at = m.base + before;
    return rc;
}

static int io_op(MPI_File fh, int how, bool wr, bool coll, int form, MPI_Offset offset,
                 void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status,
                 MPI_Request *req, const char *fn)
{
    DMPI_CHECK_INIT(fn);
    dmpi_file *f;
    DMPI_GET_FILE(f, fh, fn);
    DMPI_FCHECK(f, count >= 0, MPI_ERR_COUNT, fn, "negative count %lld", (long long)count);
    dmpi_datatype *dt = dmpi_dt_get(datatype);
    DMPI_FCHECK(f, dt, MPI_ERR_TYPE, fn, "invalid datatype%s",
                datatype == MPI_DATATYPE_NULL ? " (MPI_DATATYPE_NULL)" : "");
    DMPI_FCHECK(f, dt->committed, MPI_ERR_TYPE, fn, "datatype not committed");
    DMPI_FCHECK(f, buf || count == 0 || !dt->builtin, MPI_ERR_BUFFER, fn,
                "NULL buffer with count %lld", (long long)count);
    DMPI_FCHECK(f, form != NONBLOCK || req, MPI_ERR_ARG, fn, "request is NULL");
    if (wr)
        DMPI_FCHECK(f, !(f->amode & MPI_MODE_RDONLY), MPI_ERR_READ_ONLY, fn,
                    "the file was opened read-only (MPI_MODE_RDONLY)");
    else
        DMPI_FCHECK(f, !(f->amode & MPI_MODE_WRONLY), MPI_ERR_ACCESS, fn,
                    "the file was opened write-only (MPI_MODE_WRONLY)");
    DMPI_FCHECK(f, !(f->amode & MPI_MODE_SEQUENTIAL) || how == SHARED || how == ORDERED,
                MPI_ERR_UNSUPPORTED_OPERATION, fn,
                "a file opened with MPI_MODE_SEQUENTIAL has only the shared file pointer");
    DMPI_FCHECK(f, how != AT || offset >= 0, MPI_ERR_ARG, fn, "negative offset %lld",
                (long long)offset);
    DMPI_FCHECK(f, dt->size == 0 || count <= INT64_MAX / dt->size, MPI_ERR_COUNT, fn,
                "count %lld of %lld-byte elements is too large", (long long)count,
                (long long)dt->size);
    DMPI_FCHECK(f, offset <= INT64_MAX / 2 / f->etype->size, MPI_ERR_ARG, fn,
                "offset %lld is too large", (long long)offset);
    DMPI_FCHECK(f, form != BEGIN || !f->split, MPI_ERR_OTHER, fn,
                "a split collective is already active on this file");
    char why[IO_WHY] = "";
    MPI_Count bytes = 0, esize = f->etype->size, total = count * dt->size;
    int rc = MPI_SUCCESS;
    if (total % esize) {
        snprintf(why, sizeof why, "the data (%lld bytes) is not a whole number of etypes "
                 "(%lld bytes)", (long long)total, (long long)esize);
        rc = MPI_ERR_TYPE;
    }
    dmpi_lock();
    MPI_Offset at = offset;
    if (how == INDIV) at = f->pos;
    else if (how == SHARED && rc == MPI_SUCCESS) rc = dmpi_sp_fetch_add(f, total / esize, &at, why);
    else if (how == ORDERED) {
        int orc = ordered_offset(f, rc == MPI_SUCCESS ? total / esize : 0, &at, why);
        if (rc == MPI_SUCCESS) rc = orc;
    }
    int two = -1; /* two-phase collective access, when it pays */
    if (coll && form != NONBLOCK && (how == AT || how == INDIV)) {
        two = dmpi_io_coll(f, wr, at, buf, count, dt, rc == MPI_SUCCESS, &bytes, why);
        if (two != -1 && rc == MPI_SUCCESS) rc = two;
    }
    if (two == -1 && rc == MPI_SUCCESS)
        rc = wr ? dmpi_io_write(f, at, buf, count, dt, &bytes, why)
                : dmpi_io_read(f, at, buf, count, dt, &bytes, why);
    if (how == INDIV) f->pos = at + bytes / esize;
    if (two == -1 && coll && wr && form == BLOCK && f->comm->size > 1)
        dmpi_coll_barrier(f->comm);
    MPI_Status st;
    dmpi_status_empty(&st);
    dmpi_status_set_bytes(&st, bytes);
    dmpi_request *r = NULL;
    if (rc == MPI_SUCCESS && form == NONBLOCK) {
        r = dmpi_request_alloc(DMPI_REQ_DONE);
        if (r) {
            r->status = st;
            atomic_store(&r->complete, 1);
        } else {
            rc = MPI_ERR_NO_MEM;
            snprintf(why, sizeof why, "out of memory for the request");
        }
    }
    if (rc == MPI_SUCCESS && form == BEGIN) {
        f->split = 1 + how * 2 + wr;
        f->split_buf = buf;
        f->split_status = st;
    }
    dmpi_unlock();
    if (r) *req = dmpi_request_handle(r);
    if (form == BLOCK && status != MPI_STATUS_IGNORE) dmpi_status_out(status, &st);
    return dmpi_file_fail(f, rc, fn, why);
}

static int split_end(MPI_File fh, int how, bool wr, const void *buf, MPI_Status *status,
                     const char *fn)
{
    DMPI_CHECK_INIT(fn);
    dmpi_file *f;
    DMPI_GET_FILE(f, fh, fn);
    dmpi_lock();
    int kind = f->split;
    MPI_Status st = f->split_status;
    const void *b = f->split_buf;
    if (kind == 1 + how * 2 + wr) f->split = 0;
    dmpi_unlock();
    DMPI_FCHECK(f, kind, MPI_ERR_OTHER, fn, "no split collective is active on this file");
    DMPI_FCHECK(f, kind == 1 + how * 2 + wr, MPI_ERR_OTHER, fn,
                "the active split collective on this file is of another kind");
    DMPI_FCHECK(f, b == buf, MPI_ERR_BUFFER, fn, "buf is not the buffer given to the _begin call");
    if (status != MPI_STATUS_IGNORE) dmpi_status_out(status, &st);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ entry points
 * R: read (buf is void *), W: write (const void *). */
#define CONST_R
#define CONST_W const
#define IS_W_R false
#define IS_W_W true

/* explicit offsets, blocking: read_at, write_at_all, ... */
#define AT_BLOCK(RW, NAME, C, COLL)                                                       \
    int PMPI_File_##NAME(MPI_File fh, MPI_Offset offset, CONST_##RW void *buf, C count,   \
                         MPI_Datatype datatype, MPI_Status *status)                      \
    {                                                                                     \
        return io_op(fh, AT, IS_W_##RW, COLL, BLOCK, offset, (void *)buf, count, datatype, \
                     status, NULL, "MPI_File_" #NAME);                                    \
    }                                                                                     \
    DMPI_ALIAS(File_##NAME)
/* file pointers, blocking: read, write_all, read_shared, write_ordered, ... */
#define PTR_BLOCK(RW, NAME, C, HOW, COLL)                                                 \
    int PMPI_File_##NAME(MPI_File fh, CONST_##RW void *buf, C count, MPI_Datatype datatype, \
                         MPI_Status *status)                                              \
    {                                                                                     \
        return io_op(fh, HOW, IS_W_##RW, COLL, BLOCK, 0, (void *)buf, count, datatype,     \
                     status, NULL, "MPI_File_" #NAME);                                    \
    }                                                                                     \
    DMPI_ALIAS(File_##NAME)
#define AT_NB(RW, NAME, C, COLL)                                                          \
    int PMPI_File_##NAME(MPI_File fh, MPI_Offset offset, CONST_##RW void *buf, C count,   \
                         MPI_Datatype datatype, MPI_Request *request)                    \
    {                                                                                     \
        return io_op(fh, AT, IS_W_##RW, COLL, NONBLOCK, offset, (void *)buf, count,        \
                     datatype, MPI_STATUS_IGNORE, request, "MPI_File_" #NAME);            \
    }                                                                                     \
    DMPI_ALIAS(File_##NAME)
#define PTR_NB(RW, NAME, C, HOW, COLL)                                                    \
    int PMPI_File_##NAME(MPI_File fh, CONST_##RW void *buf, C count, MPI_Datatype datatype, \
                         MPI_Request *request)                                            \
    {                                                                                     \
        return io_op(fh, HOW, IS_W_##RW, COLL, NONBLOCK, 0, (void *)buf, count, datatype,  \
                     MPI_STATUS_IGNORE, request, "MPI_File_" #NAME);                      \
    }                                                                                     \
    DMPI_ALIAS(File_##NAME)
#define AT_BEGIN(RW, NAME, C)                                                             \
    int PMPI_File_##NAME(MPI_File fh, MPI_Offset offset, CONST_##RW void *buf, C count,   \
                         MPI_Datatype datatype)                                           \
    {                                                                                     \
        return io_op(fh, AT, IS_W_##RW, true, BEGIN, offset, (void *)buf, count, datatype, \
                     MPI_STATUS_IGNORE, NULL, "MPI_File_" #NAME);                         \
    }                                                                                     \
    DMPI_ALIAS(File_##NAME)
#define PTR_BEGIN(RW, NAME, C, HOW)                                                       \
    int PMPI_File_##NAME(MPI_File fh, CONST_##RW void *buf, C count, MPI_Datatype datatype) \
    {                                                                                     \
        return io_op(fh, HOW, IS_W_##RW, true, BEGIN, 0, (void *)buf, count, datatype,     \
                     MPI_STATUS_IGNORE, NULL, "MPI_File_" #NAME);                         \
    }                                                                                     \
    DMPI_ALIAS(File_##NAME)
#define END(RW, NAME, HOW)                                                                \
    int PMPI_File_##NAME(MPI_File fh, CONST_##RW void *buf, MPI_Status *status)           \
    {                                                                                     \
        return split_end(fh, HOW, IS_W_##RW, buf, status, "MPI_File_" #NAME);             \
    }                                                                                     \
    DMPI_ALIAS(File_##NAME)

/* Both the int and the _c form. */
#define AT_BLOCK2(RW, NAME, COLL) AT_BLOCK(RW, NAME, int, COLL) AT_BLOCK(RW, NAME##_c, MPI_Count, COLL)
#define PTR_BLOCK2(RW, NAME, HOW, COLL)                                                   \
    PTR_BLOCK(RW, NAME, int, HOW, COLL) PTR_BLOCK(RW, NAME##_c, MPI_Count, HOW, COLL)
#define AT_NB2(RW, NAME, COLL) AT_NB(RW, NAME, int, COLL) AT_NB(RW, NAME##_c, MPI_Count, COLL)
#define PTR_NB2(RW, NAME, HOW, COLL)                                                      \
    PTR_NB(RW, NAME, int, HOW, COLL) PTR_NB(RW, NAME##_c, MPI_Count, HOW, COLL)
#define AT_BEGIN2(RW, NAME) AT_BEGIN(RW, NAME, int) AT_BEGIN(RW, NAME##_c, MPI_Count)
#define PTR_BEGIN2(RW, NAME, HOW) PTR_BEGIN(RW, NAME, int, HOW) PTR_BEGIN(RW, NAME##_c, MPI_Count, HOW)

AT_BLOCK2(R, read_at, false)
AT_BLOCK2(W, write_at, false)
AT_BLOCK2(R, read_at_all, true)
AT_BLOCK2(W, write_at_all, true)
PTR_BLOCK2(R, read, INDIV, false)
PTR_BLOCK2(W, write, INDIV, false)
PTR_BLOCK2(R, read_all, INDIV, true)
PTR_BLOCK2(W, write_all, INDIV, true)
PTR_BLOCK2(R, read_shared, SHARED, false)
PTR_BLOCK2(W, write_shared, SHARED, false)
PTR_BLOCK2(R, read_ordered, ORDERED, true)
PTR_BLOCK2(W, write_ordered, ORDERED, true)

AT_NB2(R, iread_at, false)
AT_NB2(W, iwrite_at, false)
AT_NB2(R, iread_at_all, true)
AT_NB2(W, iwrite_at_all, true)
PTR_NB2(R, iread, INDIV, false)
PTR_NB2(W, iwrite, INDIV, false)
PTR_NB2(R, iread_all, INDIV, true)
PTR_NB2(W, iwrite_all, INDIV, true)
PTR_NB2(R, iread_shared, SHARED, false)
PTR_NB2(W, iwrite_shared, SHARED, false)

AT_BEGIN2(R, read_at_all_begin)
AT_BEGIN2(W, write_at_all_begin)
PTR_BEGIN2(R, read_all_begin, INDIV)
PTR_BEGIN2(W, write_all_begin, INDIV)
PTR_BEGIN2(R, read_ordered_begin, ORDERED)
PTR_BEGIN2(W, write_ordered_begin, ORDERED)
END(R, read_at_all_end, AT)
END(W, write_at_all_end, AT)
END(R, read_all_end, INDIV)
END(W, write_all_end, INDIV)
END(R, read_ordered_end, ORDERED)
END(W, write_ordered_end, ORDERED)
