/* The schedule engine of sched.h: building step lists, running them round
 * by round, and the requests of nonblocking and persistent collectives
 * (poll hook for the progress engine, restart by MPI_Start).
 *
 * A small collective should not pay for memory management: a schedule
 * object carries room for a few steps, in-flight requests and temporary
 * bytes, and freed objects are kept on a short free list for the next
 * call. Large temporaries are kept for reuse too (a small pool): freeing
 * and allocating megabytes on every call would hand the pages back to the
 * system and fault them in again each time. All of this runs under the
 * library's lock, like every collective. */
#include "coll/sched.h"

#include "coll/coll.h"
#include "core/op.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum { ST_SEND, ST_RECV, ST_REDUCE, ST_COPY, ST_FENCE };

typedef struct step {
    int kind, peer, tag;
    dmpi_comm *comm;
    const void *src;    /* send buffer, reduction input, copy source */
    void *dst;          /* receive buffer, reduction in-out, copy target */
    MPI_Count n, n2;    /* elements of dt (and of dt2 for a copy target) */
    dmpi_datatype *dt, *dt2;
    dmpi_op *op;
} step;

#define SCHED_MAGIC 0x53434844u
#define INL_STEPS 16
#define INL_REQS 8
#define INL_BYTES 1024
#define KEEP 4 /* schedule objects kept for reuse */

struct dmpi_sched {
    uint32_t magic;
    int build_err;
    step *steps;
    int nsteps, cap;
    size_t inl_used;        /* bytes of inl_mem handed out */
    dmpi_comm *comm;        /* for steps being added */
    int tag;
    /* owned memory and held objects */
    struct blk { void *p; size_t n; } *mem;
    int nmem, capmem;
    dmpi_datatype **dts;
    int ndts, capdts;
    dmpi_op **ops;
    int nops, capops;
    /* running */
    int pos;                /* next step */
    dmpi_request **reqs;    /* started in the current round */
    int nreq, maxreq, ndone;
    int err;
    bool done, busy;
    step inl_steps[INL_STEPS];
    dmpi_request *inl_reqs[INL_REQS];
    _Alignas(16) char inl_mem[INL_BYTES];
};

static dmpi_sched *spare[KEEP];
static int nspare;

/* The pool of large temporaries: at most POOL_BLOCKS blocks of at least
 * POOL_MIN bytes, POOL_BYTES in all; a request takes the smallest block
 * that holds it without wasting more than half. */
#define POOL_MIN ((size_t)64 << 10)
#define POOL_BLOCKS 8
#define POOL_BYTES ((size_t)16 << 20)
static struct blk pool[POOL_BLOCKS];
static int npool;
static size_t pool_bytes;

static void *pool_get(size_t n, size_t *got)
{
    int best = -1;
    for (int i = 0; i < npool; i++)
        if (pool[i].n >= n && pool[i].n / 2 <= n && (best < 0 || pool[i].n < pool[best].n))
            best = i;
    if (best < 0) {
        *got = n;
        return malloc(n);
    }
    void *p = pool[best].p;
    *got = pool[best].n;
    pool_bytes -= pool[best].n;
    pool[best] = pool[--npool];
    return p;
}

static void pool_put(void *p, size_t n)
{
    if (n < POOL_MIN || n > POOL_BYTES) {
        free(p);
        return;
    }
    while (npool == POOL_BLOCKS || pool_bytes + n > POOL_BYTES) { /* drop the oldest */
        free(pool[0].p);
        pool_bytes -= pool[0].n;
        memmove(pool, pool + 1, (size_t)--npool * sizeof *pool);
    }
    pool[npool++] = (struct blk){p, n};
    pool_bytes += n;
}

/* Grows *arr (elements of size sz) to hold n + 1; false when out of
 * memory. An array at `inl` (inline storage) is copied out, not freed. */
static bool grow_from(void **arr, int *cap, int n, size_t sz, void *inl)
{
    if (n < *cap) return true;
    int nc = *cap ? 2 * *cap : 8;
    void *p = *arr == inl ? malloc((size_t)nc * sz) : realloc(*arr, (size_t)nc * sz);
    if (!p) return false;
    if (*arr == inl && n) memcpy(p, inl, (size_t)n * sz);
    *arr = p;
    *cap = nc;
    return true;
}

static bool grow(void **arr, int *cap, int n, size_t sz)
{
    return grow_from(arr, cap, n, sz, NULL);
}

dmpi_sched *dmpi_sched_new(void)
{
    dmpi_sched *s = nspare ? spare[--nspare] : malloc(sizeof *s);
    if (!s) return NULL;
    /* everything but the inline storage */
    memset(s, 0, offsetof(dmpi_sched, inl_steps));
    s->magic = SCHED_MAGIC;
    s->steps = s->inl_steps;
    s->cap = INL_STEPS;
    return s;
}

void dmpi_sched_free(dmpi_sched *s)
{
    if (!s) return;
    for (int i = 0; i < s->nreq; i++) /* only when torn down mid-run (finalize) */
        if (s->reqs[i]) dmpi_request_free(s->reqs[i]);
    for (int i = 0; i < s->nmem; i++) pool_put(s->mem[i].p, s->mem[i].n);
    for (int i = 0; i < s->ndts; i++) dmpi_dt_release(s->dts[i]);
    for (int i = 0; i < s->nops; i++) dmpi_op_release(s->ops[i]);
    free(s->mem);
    free(s->dts);
    free(s->ops);
    if (s->steps != s->inl_steps) free(s->steps);
    if (s->reqs != s->inl_reqs) free(s->reqs);
    s->magic = 0;
    if (nspare < KEEP) spare[nspare++] = s;
    else free(s);
}

int dmpi_sched_error(const dmpi_sched *s) { return s->build_err; }

void dmpi_sched_fail(dmpi_sched *s, int err)
{
    if (s->build_err == MPI_SUCCESS) s->build_err = err;
}

void dmpi_sched_use(dmpi_sched *s, dmpi_comm *c, int tag)
{
    s->comm = c;
    s->tag = tag;
}

dmpi_comm *dmpi_sched_comm(const dmpi_sched *s) { return s->comm; }
int dmpi_sched_tag(const dmpi_sched *s) { return s->tag; }

static step *add(dmpi_sched *s, int kind)
{
    if (s->build_err) return NULL;
    if (!grow_from((void **)&s->steps, &s->cap, s->nsteps, sizeof(step), s->inl_steps)) {
        s->build_err = MPI_ERR_NO_MEM;
        return NULL;
    }
    step *st = &s->steps[s->nsteps++];
    memset(st, 0, sizeof *st);
    st->kind = kind;
    return st;
}

static void add_p2p(dmpi_sched *s, int kind, const void *buf, MPI_Count n, dmpi_datatype *dt,
                    int peer)
{
    step *st = add(s, kind);
    if (!st) return;
    st->src = buf;
    st->dst = (void *)buf;
    st->n = n;
    st->dt = dt;
    st->peer = peer;
    st->comm = s->comm;
    st->tag = s->tag;
}

void dmpi_sched_send(dmpi_sched *s, const void *buf, MPI_Count n, dmpi_datatype *dt, int peer)
{
    if (n > 0 && dt->size > 0) add_p2p(s, ST_SEND, buf, n, dt, peer);
}

void dmpi_sched_recv(dmpi_sched *s, void *buf, MPI_Count n, dmpi_datatype *dt, int peer)
{
    if (n > 0 && dt->size > 0) add_p2p(s, ST_RECV, buf, n, dt, peer);
}

void dmpi_sched_send0(dmpi_sched *s, int peer)
{
    add_p2p(s, ST_SEND, NULL, 0, dmpi_coll_byte(), peer);
}

void dmpi_sched_recv0(dmpi_sched *s, int peer)
{
    add_p2p(s, ST_RECV, NULL, 0, dmpi_coll_byte(), peer);
}

void dmpi_sched_reduce(dmpi_sched *s, dmpi_op *op, const void *in, void *inout, MPI_Count n,
                       dmpi_datatype *dt)
{
    if (n <= 0) return;
    step *st = add(s, ST_REDUCE);
    if (!st) return;
    st->op = op;
    st->src = in;
    st->dst = inout;
    st->n = n;
    st->dt = dt;
}

void dmpi_sched_combine(dmpi_sched *s, dmpi_op *op, void *theirs, void *mine, MPI_Count n,
                        dmpi_datatype *dt, bool theirs_first)
{
    if (op->commutative || theirs_first) {
        dmpi_sched_reduce(s, op, theirs, mine, n, dt);
    } else {
        dmpi_sched_reduce(s, op, mine, theirs, n, dt);
        dmpi_sched_copy(s, theirs, n, dt, mine, n, dt);
    }
}

void dmpi_sched_copy(dmpi_sched *s, const void *src, MPI_Count sn, dmpi_datatype *sdt, void *dst,
                     MPI_Count dn, dmpi_datatype *ddt)
{
    if (sn <= 0 || sdt->size == 0) return;
    step *st = add(s, ST_COPY);
    if (!st) return;
    st->src = src;
    st->n = sn;
    st->dt = sdt;
    st->dst = dst;
    st->n2 = dn;
    st->dt2 = ddt;
}

void dmpi_sched_fence(dmpi_sched *s)
{
    /* Empty rounds are left out. */
    if (s->nsteps == 0 || s->steps[s->nsteps - 1].kind == ST_FENCE) return;
    add(s, ST_FENCE);
}

static bool own(dmpi_sched *s, void *p, size_t n)
{
    if (!p || !grow((void **)&s->mem, &s->capmem, s->nmem, sizeof *s->mem)) {
        free(p);
        dmpi_sched_fail(s, MPI_ERR_NO_MEM);
        return false;
    }
    s->mem[s->nmem++] = (struct blk){p, n};
    return true;
}

void *dmpi_sched_alloc(dmpi_sched *s, size_t bytes)
{
    if (s->build_err) return NULL;
    size_t round = (bytes + 15) & ~(size_t)15;
    if (round <= INL_BYTES - s->inl_used) {
        void *p = s->inl_mem + s->inl_used;
        s->inl_used += round ? round : 16;
        return p;
    }
    size_t got;
    void *p = bytes >= POOL_MIN ? pool_get(bytes, &got) : malloc(got = bytes ? bytes : 1);
    return own(s, p, got) ? p : NULL;
}

void *dmpi_sched_tmp(dmpi_sched *s, MPI_Count count, const dmpi_datatype *dt)
{
    MPI_Aint shift;
    char *base = dmpi_sched_alloc(s, dmpi_coll_tmp_span(count, dt, &shift));
    return base ? base + shift : NULL;
}

void dmpi_sched_hold_dt(dmpi_sched *s, dmpi_datatype *dt)
{
    if (!dt || dt->named) return;
    if (!grow((void **)&s->dts, &s->capdts, s->ndts, sizeof *s->dts)) {
        dmpi_sched_fail(s, MPI_ERR_NO_MEM);
        return;
    }
    dmpi_dt_retain(dt);
    s->dts[s->ndts++] = dt;
}

void dmpi_sched_hold_op(dmpi_sched *s, dmpi_op *op)
{
    if (!op || op->builtin) return;
    if (!grow((void **)&s->ops, &s->capops, s->nops, sizeof *s->ops)) {
        dmpi_sched_fail(s, MPI_ERR_NO_MEM);
        return;
    }
    dmpi_op_retain(op);
    s->ops[s->nops++] = op;
}

/* ------------------------------------------------------------------ running */

/* Sizes the in-flight array for the largest round. */
static int prepare(dmpi_sched *s)
{
    if (s->build_err) return s->build_err;
    if (s->reqs) return MPI_SUCCESS;
    int most = 0, n = 0;
    for (int i = 0; i < s->nsteps; i++) {
        int k = s->steps[i].kind;
        if (k == ST_FENCE) n = 0;
        else if (k == ST_SEND || k == ST_RECV) most = ++n > most ? n : most;
    }
    s->maxreq = most;
    s->reqs = most <= INL_REQS ? s->inl_reqs : malloc((size_t)most * sizeof *s->reqs);
    return s->reqs ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

static void reset(dmpi_sched *s)
{
    s->pos = 0;
    s->nreq = s->ndone = 0;
    s->err = MPI_SUCCESS;
    s->done = false;
}

static void note(dmpi_sched *s, int rc)
{
    if (rc != MPI_SUCCESS && s->err == MPI_SUCCESS) s->err = rc;
}

static void exec(dmpi_sched *s, step *st)
{
    dmpi_request *r = NULL;
    switch (st->kind) {
    case ST_SEND:
        note(s, dmpi_isend(st->src, st->n, st->dt, st->peer, st->tag, st->comm, DMPI_CTX_COLL,
                           DMPI_MODE_STD, &r));
        break;
    case ST_RECV:
        note(s, dmpi_irecv(st->dst, st->n, st->dt, st->peer, st->tag, st->comm, DMPI_CTX_COLL, &r));
        break;
    case ST_REDUCE: note(s, dmpi_op_apply(st->op, st->src, st->dst, st->n, st->dt)); break;
    case ST_COPY: note(s, dmpi_coll_copy(st->src, st->n, st->dt, st->dst, st->n2, st->dt2)); break;
    }
    if (r) s->reqs[s->nreq++] = r;
}

/* Runs rounds while the previous ones are complete; sets s->done at the end. */
static void advance(dmpi_sched *s)
{
    for (;;) {
        for (; s->ndone < s->nreq; s->ndone++) {
            dmpi_request *r = s->reqs[s->ndone];
            if (!atomic_load_explicit(&r->complete, memory_order_acquire)) return;
            note(s, r->status.MPI_ERROR);
            dmpi_request_free(r);
            s->reqs[s->ndone] = NULL;
        }
        s->nreq = s->ndone = 0;
        if (s->pos >= s->nsteps) {
            s->done = true;
            return;
        }
        while (s->pos < s->nsteps) {
            step *st = &s->steps[s->pos++];
            if (st->kind == ST_FENCE) break;
            exec(s, st);
        }
    }
}

int dmpi_sched_run(dmpi_sched *s)
{
    int rc = prepare(s);
    if (rc == MPI_SUCCESS) {
        reset(s);
        advance(s);
        unsigned idle = 0;
        while (!s->done) {
            if (dmpi_progress()) idle = 0;
            else dmpi_progress_idle(&idle);
            advance(s);
        }
        rc = s->err;
    }
    dmpi_sched_free(s);
    return rc;
}

int dmpi_sched_begin(dmpi_sched *s)
{
    int rc = prepare(s);
    if (rc != MPI_SUCCESS) return rc;
    reset(s);
    s->busy = true;
    advance(s);
    s->busy = false;
    return MPI_SUCCESS;
}

bool dmpi_sched_test(dmpi_sched *s, int *err)
{
    if (!s->done && !s->busy) {
        s->busy = true;
        advance(s);
        s->busy = false;
    }
    *err = s->err;
    return s->done;
}

/* Poll hook of a collective request. */
static int sched_poll(dmpi_request *r)
{
    dmpi_sched *s = r->ext;
    if (s->busy) return 0;
    s->busy = true;
    advance(s);
    s->busy = false;
    if (!s->done) return 0;
    r->status.MPI_ERROR = s->err;
    dmpi_request_complete(r); /* may reap r (and s) if the user freed it */
    return 1;
}

static void sched_on_free(dmpi_request *r)
{
    dmpi_sched_free(r->ext);
    r->ext = NULL;
}

static void start(dmpi_request *r)
{
    reset(r->ext);
    dmpi_status_empty(&r->status);
    atomic_store_explicit(&r->complete, 0, memory_order_release);
    r->active = true;
    if (!sched_poll(r)) dmpi_progress_register(r);
}

dmpi_request *dmpi_coll_hooked_request(dmpi_comm *comm, void *ext, dmpi_req_poll_fn poll,
                                       dmpi_req_free_fn on_free)
{
    dmpi_request *r = dmpi_request_alloc(DMPI_REQ_COLL);
    if (!r) return NULL;
    r->comm = comm;
    dmpi_comm_retain(comm);
    r->comm_ref = true;
    r->ext = ext;
    r->poll = poll;
    r->on_free = on_free;
    return r;
}

int dmpi_sched_post(dmpi_sched *s, dmpi_comm *comm, bool persistent, dmpi_request **out)
{
    int rc = prepare(s);
    dmpi_request *r =
        rc == MPI_SUCCESS ? dmpi_coll_hooked_request(comm, s, sched_poll, sched_on_free) : NULL;
    if (!r) {
        dmpi_sched_free(s);
        return rc != MPI_SUCCESS ? rc : MPI_ERR_NO_MEM;
    }
    r->persistent = persistent;
    *out = r;
    if (!persistent) start(r);
    return MPI_SUCCESS;
}

bool dmpi_coll_is_persistent(const dmpi_request *r)
{
    return r->kind == DMPI_REQ_COLL && r->persistent && r->poll == sched_poll && r->ext;
}

int dmpi_coll_start_persistent(dmpi_request *r)
{
    if (!dmpi_coll_is_persistent(r)) return MPI_ERR_REQUEST;
    start(r);
    return MPI_SUCCESS;
}
