/* dmpi internal core interface: the objects (communicator, group, datatype,
 * request, op) and the entry points that the api, p2p and coll layers share.
 * Every internal symbol carries the dmpi_ prefix and hidden visibility; only
 * MPI_* and PMPI_* are exported (see DMPI_API). */
#ifndef DMPI_CORE_H
#define DMPI_CORE_H

/* Everything mpi.h declares (MPI_*, PMPI_*) is exported; the rest of the
 * library is built with hidden visibility. */
#pragma GCC visibility push(default)
#include <mpi.h>
#pragma GCC visibility pop
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DMPI_API __attribute__((visibility("default")))

/* Defines PMPI_name as the implementation and MPI_name as a strong alias,
 * so a profiler linked before us can interpose MPI_name. Usage:
 *   DMPI_FN(int, Send, (const void *buf, ...)) { body }  */
#define DMPI_ALIAS(name) \
    extern __typeof__(PMPI_##name) MPI_##name \
        __attribute__((alias("PMPI_" #name), visibility("default")));

/* ---- object magic numbers: a handle is checked by reading its magic ---- */
enum {
    DMPI_MAGIC_COMM = 0x434f4d4du,
    DMPI_MAGIC_GROUP = 0x47525550u,
    DMPI_MAGIC_DTYPE = 0x44545950u,
    DMPI_MAGIC_REQ = 0x52455154u,
    DMPI_MAGIC_OP = 0x4f505f5fu,
    DMPI_MAGIC_ERRH = 0x45525248u,
    DMPI_MAGIC_MSG = 0x4d534721u,
    DMPI_MAGIC_INFO = 0x494e464fu,
    DMPI_MAGIC_SESSION = 0x53455353u,
    DMPI_MAGIC_FREED = 0xdeadbeefu,
};

/* ---------------------------------------------------------------- groups */
typedef struct dmpi_group {
    uint32_t magic;
    int refcount;
    int size;
    int rank;        /* this process's rank in the group, or MPI_UNDEFINED */
    int *world;      /* world[i] = universe index of group rank i (its MPI_COMM_WORLD
                        rank in the first job; see dmpi_runtime.uni_base) */
    bool builtin;
    struct dmpi_session *session; /* made from a session's process set (retained), or NULL */
} dmpi_group;

dmpi_group *dmpi_group_new(int size, const int *world_ranks);
void dmpi_group_retain(dmpi_group *g);
void dmpi_group_release(dmpi_group *g);
/* rank of world rank w in g, or MPI_UNDEFINED */
int dmpi_group_rank_of_world(const dmpi_group *g, int w);

/* ----------------------------------------------------------- errhandlers */
typedef struct dmpi_errhandler {
    uint32_t magic;
    int refcount;
    int kind;                 /* 0 fatal, 1 return, 2 abort, 3 user comm fn */
    MPI_Comm_errhandler_function *comm_fn;
    bool builtin;
} dmpi_errhandler;

enum { DMPI_ERRH_FATAL = 0, DMPI_ERRH_RETURN = 1, DMPI_ERRH_ABORT = 2, DMPI_ERRH_USER = 3 };
/* User handlers for other object kinds keep their function in comm_fn
 * (cast); the kind says which signature it has. */
#define DMPI_ERRH_USER_WIN 0x57
#define DMPI_ERRH_USER_FILE 0x58
#define DMPI_ERRH_USER_SESSION 0x59

/* ---------------------------------------------------------- communicators */
typedef struct dmpi_comm {
    uint32_t magic;
    int refcount;
    uint32_t context_id;      /* point-to-point context; coll uses context_id+1 */
    int rank, size;
    dmpi_group *group;        /* local group */
    dmpi_group *remote_group; /* intercommunicators only (NULL otherwise) */
    dmpi_errhandler *errh;
    char name[MPI_MAX_OBJECT_NAME];
    bool builtin;
    MPI_Comm handle;          /* the handle the user sees */
    void *coll_state;         /* owned by the coll layer */
    void *shm_coll;           /* shared-memory collectives (coll/shm_coll.c) */
    void *hier;               /* node-aware collectives (coll/hier.c) */
    int8_t on_node;           /* all members on this node: 1, not: -1, not known yet: 0 */
    void *attrs;              /* attributes (object-model issue) */
    void *topo;               /* topology (object-model issue) */
    uint32_t coll_seq;        /* collective sequence, for internal tags */
} dmpi_comm;

/* Which context of a communicator a message travels in: the wire context
 * is context_id + this. Partitioned communication (p2p/part.c) has two
 * private ones above every id a communicator can have (ids are < 0x10000):
 * one where partitioned requests are matched, one for their data. */
enum { DMPI_CTX_P2P = 0, DMPI_CTX_COLL = 1, DMPI_CTX_PART = 0x10000, DMPI_CTX_PART_DATA = 0x20000 };

extern dmpi_comm dmpi_comm_world_obj, dmpi_comm_self_obj;

/* Builds a communicator over group g (retained) with the given context id
 * (already agreed by all members). */
dmpi_comm *dmpi_comm_new(dmpi_group *g, uint32_t context_id);
void dmpi_comm_release(dmpi_comm *c);
void dmpi_comm_retain(dmpi_comm *c);
/* Buffered sends (p2p/bsend.c): forget a dying communicator's buffer;
 * deliver every buffered message (at MPI_Finalize). */
void dmpi_bsend_comm_gone(const dmpi_comm *c);
void dmpi_bsend_finalize(void);
/* Collectives (coll/shm_coll.c): a dying communicator gives back its
 * shared-memory area; MPI_Finalize drops what is left. */
void dmpi_coll_comm_gone(dmpi_comm *c);
void dmpi_coll_finalize(void);
void dmpi_errhandler_retain(dmpi_errhandler *e);
void dmpi_errhandler_release(dmpi_errhandler *e);
static inline int dmpi_comm_world_rank(const dmpi_comm *c, int r) { return c->group->world[r]; }
/* Agree on a fresh context id among the members of comm (collective). */
int dmpi_context_alloc(dmpi_comm *comm, uint32_t *ctx_out);
void dmpi_context_free(uint32_t ctx);

/* -------------------------------------------------------------- datatypes */
/* Layout of one element as byte blocks: kept for the built-in pair types
 * (MPI_DOUBLE_INT ...); NULL for every other type. The derived-datatype
 * engine (core/dt_layout.h) describes every type, built-in or derived,
 * with its own compact layout in `lay`/`tlay`. */
typedef struct dmpi_dt_block { MPI_Aint disp, len; } dmpi_dt_block;
typedef struct dmpi_dt_layout {
    int nblocks;
    dmpi_dt_block *blocks;
} dmpi_dt_layout;

typedef struct dmpi_datatype {
    uint32_t magic;
    int refcount;
    MPI_Count size;           /* bytes of data in one element */
    MPI_Aint lb, extent;      /* extent = ub - lb */
    MPI_Aint true_lb, true_extent;
    bool contiguous;          /* size == extent and no holes: raw copy */
    bool committed;
    bool builtin;
    int basic;                /* predefined handle value of the basic type
                                 (all elements the same), or 0 if mixed */
    MPI_Count basic_count;    /* number of basic elements in one element */
    MPI_Datatype handle;
    char name[MPI_MAX_OBJECT_NAME];
    dmpi_dt_layout *layout;   /* NULL for contiguous types */
    dmpi_dt_layout builtin_layout;
    dmpi_dt_block builtin_blocks[2];
    /* derived-datatype engine (core/datatype*.c, core/dt_*.c); refcount
     * counts every reference: user handles, parent types, requests */
    int user_refs;            /* user handles to it; 0: the handle is invalid */
    bool named;               /* predefined (built-ins, f90 types): never freed */
    bool has_markers;         /* explicit lb/ub inside (resized, subarray, darray) */
    int align;                /* largest alignment of its basic types */
    int elem_tag;             /* the one elementary type of all its data, or 0 */
    struct dmpi_dt_lay *lay;  /* packing layout of one element */
    struct dmpi_dt_lay *tlay; /* the same split by basic type: counts, external32 */
    struct dmpi_dt_args *args; /* how it was made (Type_get_envelope/contents) */
    void *attrs;              /* attributes (object-model issue) */
} dmpi_datatype;

void dmpi_datatype_init(void);
/* References held by requests (and other objects) on a datatype: a type
 * the user frees stays alive until the last reference goes. No-ops for
 * predefined types. */
void dmpi_dt_retain(dmpi_datatype *dt);
void dmpi_dt_release(dmpi_datatype *dt);
/* Describes bytes [offset, ...) of the packed stream of count elements of
 * dt at buf as at most max_iov memory pieces (adjacent pieces merged);
 * returns the number of iovecs written and sets *bytes_covered to the
 * stream bytes they cover (the whole rest of the stream if it fits). */
struct iovec;
int dmpi_dt_iov(const void *buf, MPI_Count count, const dmpi_datatype *dt, MPI_Count offset,
                struct iovec *iov, int max_iov, MPI_Count *bytes_covered);

/* Packs/unpacks `count` elements of dt; contiguous types are a memcpy.
 * offset/len address a byte range of the packed stream. */
void dmpi_dt_pack(const void *buf, MPI_Count count, const dmpi_datatype *dt,
                  MPI_Count offset, void *out, MPI_Count len);
void dmpi_dt_unpack(void *buf, MPI_Count count, const dmpi_datatype *dt,
                    MPI_Count offset, const void *in, MPI_Count len);
/* For built-in types: object from a predefined handle value, or NULL. */
dmpi_datatype *dmpi_dt_builtin(MPI_Datatype h);

/* -------------------------------------------------------------------- ops */
typedef struct dmpi_op {
    uint32_t magic;
    int refcount;
    bool builtin, commutative;
    MPI_Op handle;
    MPI_User_function *user_fn;
    MPI_User_function_c *user_fn_c;
} dmpi_op;

/* inout[i] = in[i] op inout[i], for count elements of dt.
 * Returns MPI_SUCCESS or MPI_ERR_OP if op is not defined on dt. */
int dmpi_op_apply(dmpi_op *op, const void *in, void *inout, MPI_Count count,
                  dmpi_datatype *dt);
dmpi_op *dmpi_op_builtin(MPI_Op h);

/* --------------------------------------------------------------- requests */
typedef enum {
    DMPI_REQ_SEND = 1, DMPI_REQ_RECV, DMPI_REQ_PSEND, DMPI_REQ_PRECV,
    DMPI_REQ_COLL, DMPI_REQ_GREQ, DMPI_REQ_DONE,
    DMPI_REQ_PART             /* partitioned send or receive (p2p/part.c) */
} dmpi_req_kind;

enum { DMPI_MODE_STD = 0, DMPI_MODE_SYNC = 1, DMPI_MODE_READY = 2, DMPI_MODE_BUFFERED = 3 };

struct dmpi_request;
typedef int (*dmpi_req_poll_fn)(struct dmpi_request *r);  /* returns 1 when done */
typedef void (*dmpi_req_free_fn)(struct dmpi_request *r);

typedef struct dmpi_request {
    uint32_t magic;
    dmpi_req_kind kind;
    _Atomic int complete;     /* set when the operation is finished */
    bool persistent, active, cancelled, freed_by_user;
    bool comm_ref;            /* holds a reference on comm */
    /* runs just before the request is marked complete, next to `complete`
     * so that testing it costs no other cache line (a staged receive
     * copies its host block to the device there, src/accel/stage.c) */
    void (*on_complete)(struct dmpi_request *r);
    MPI_Status status;
    /* point-to-point operation */
    void *buf;
    MPI_Count count;
    dmpi_datatype *dt;
    int peer;                 /* rank in comm (or MPI_ANY_SOURCE) */
    int tag;
    int mode;                 /* DMPI_MODE_* for sends */
    int ctx_kind;             /* DMPI_CTX_* */
    dmpi_comm *comm;
    MPI_Count bytes;          /* packed size of the message */
    void *tmp;                /* packed copy for non-contiguous data or bsend */
    /* protocol state owned by p2p */
    struct dmpi_request *next, *prev;
    void *proto;              /* protocol private */
    uint64_t proto_u64[5];
    int proto_int[4];
    /* generic hooks: collective schedules and generalized requests */
    dmpi_req_poll_fn poll;
    dmpi_req_free_fn on_free;
    void *ext;
    void *stage;              /* device-memory staging state (src/accel/stage.c) */
} dmpi_request;

dmpi_request *dmpi_request_alloc(dmpi_req_kind kind);
void dmpi_request_free(dmpi_request *r);
/* A request that lives on the caller's stack (a blocking receive, which no
 * handle ever names): dmpi_request_init sets it up as dmpi_request_alloc
 * would, dmpi_request_teardown drops what it holds once it is complete. */
void dmpi_request_init(dmpi_request *r, dmpi_req_kind kind);
void dmpi_request_teardown(dmpi_request *r);
/* The shared, always complete request of immediate nonblocking sends. */
dmpi_request *dmpi_request_completed_send(void);
/* The live request at address `cookie` (a value a peer echoes back), or
 * NULL: only addresses of requests from dmpi_request_alloc qualify. */
dmpi_request *dmpi_request_from_cookie(uint64_t cookie);
static inline MPI_Request dmpi_request_handle(dmpi_request *r) { return (MPI_Request)(void *)r; }

/* ------------------------------------------------- internal point-to-point
 * Used by the api layer and by collectives. `peer` is a rank in comm.
 * ctx_kind selects the communicator's p2p or collective context. */
int dmpi_isend(const void *buf, MPI_Count count, dmpi_datatype *dt, int dest,
               int tag, dmpi_comm *comm, int ctx_kind, int mode, dmpi_request **req);
int dmpi_irecv(void *buf, MPI_Count count, dmpi_datatype *dt, int source,
               int tag, dmpi_comm *comm, int ctx_kind, dmpi_request **req);
/* Blocks until r completes, copies its status (status may be NULL), frees
 * r unless it is persistent. Returns the status's error. */
int dmpi_wait(dmpi_request *r, MPI_Status *status);
int dmpi_waitall(int n, dmpi_request **reqs);  /* NULL entries ignored */
/* Progresses until r is complete (does not free it). */
void dmpi_wait_complete(dmpi_request *r);
int dmpi_send(const void *buf, MPI_Count count, dmpi_datatype *dt, int dest,
              int tag, dmpi_comm *comm, int ctx_kind);
int dmpi_recv(void *buf, MPI_Count count, dmpi_datatype *dt, int source,
              int tag, dmpi_comm *comm, int ctx_kind, MPI_Status *status);
int dmpi_sendrecv(const void *sbuf, MPI_Count scount, dmpi_datatype *sdt, int dest, int stag,
                  void *rbuf, MPI_Count rcount, dmpi_datatype *rdt, int src, int rtag,
                  dmpi_comm *comm, int ctx_kind, MPI_Status *status);

/* ------------------------------------------------------------- progress */
/* Polls every transport once; returns the number of events handled. */
int dmpi_progress(void);
/* The progress thread of DMPI_ASYNC_PROGRESS=1 (p2p/async.c), started when
 * the runtime is up and stopped before it goes down. */
bool dmpi_async_progress_wanted(void);
int dmpi_async_progress_start(void);
void dmpi_async_progress_stop(void);
/* Waits (progressing, spinning then yielding) until *flag becomes nonzero. */
void dmpi_progress_wait_flag(_Atomic int *flag);
/* Called by a waiting loop each idle iteration: adaptive spin/yield/sleep. */
void dmpi_progress_idle(unsigned *idle_iterations);
/* A call that may return having completed nothing (MPI_Test*, MPI_Iprobe,
 * MPI_Win_test, ...) reports each poll, outside the big lock: after
 * dmpi_poll_yield_after of them in a row, the processor is given up when
 * cores are contended; one that found something starts the count again. */
extern _Thread_local unsigned dmpi_poll_empty_run;
extern unsigned dmpi_poll_yield_after;
extern bool dmpi_poll_may_yield; /* ranks share processors, or DMPI_PREEMPT_DETECT */
void dmpi_poll_yield(void);
static inline void dmpi_poll_result(bool found)
{
    if (!dmpi_poll_may_yield) return; /* an idle node: nothing to count */
    if (found) dmpi_poll_empty_run = 0;
    else if (++dmpi_poll_empty_run >= dmpi_poll_yield_after) dmpi_poll_yield();
}
/* Set by the RMA layer while a window spans nodes: called for each
 * one-sided packet (DMPI_PKT_RMA) that arrives from another node. */
struct dmpi_ring;
struct dmpi_pkt;
extern void (*dmpi_rma_packet_hook)(int peer, const struct dmpi_ring *ring,
                                    const struct dmpi_pkt *p);
/* Set by the RMA layer while a target has requests it could not serve
 * yet (a lock that is taken): called by every progress pass. */
extern int (*dmpi_rma_progress_hook)(void);
/* Adds a request whose r->poll hook the progress engine calls until it
 * returns 1 (then the hook must have completed the request). */
void dmpi_progress_register(dmpi_request *r);
/* Marks r complete (and reaps it if the user already freed it). */
void dmpi_request_complete(dmpi_request *r);

/* --------------------------------------------------------------- runtime */
typedef struct dmpi_runtime {
    bool initialized, finalized;
    int thread_level;
    int world_rank, world_size;
    int appnum;
    /* The universe (dynamic processes, core/dynproc.c): every process of
     * one mpiexec has a universe index; this job's ranks are uni_base ..
     * uni_base + world_size. Groups, the transports and point-to-point
     * name processes by universe index (the first job's equal its world
     * ranks). uni_size: room for this many (MPI_UNIVERSE_SIZE). */
    int uni_base, uni_size, uni_rank;
    int uni_attr;             /* MPI_UNIVERSE_SIZE: the launcher's, else world_size */
    pthread_t main_thread;
    double wtime_base;
    bool oversubscribed;      /* more local ranks than processors, node-wide (same on every rank) */
    bool locking;             /* the big lock is taken: MPI_THREAD_MULTIPLE or a progress thread */
    bool crowded;             /* more ranks may run on this rank's processors than there are */
    int *node_of;             /* node_of[universe index]: its node (-1: not known, another job
                                 not connected); another job's nodes are numbered apart */
    int node_id, nnodes;      /* this rank's node; how many nodes the job spans */
    int local_rank, local_size; /* among the ranks of this node */
} dmpi_runtime;
extern dmpi_runtime dmpi_rt;
int dmpi_runtime_init(int required, int *provided);
int dmpi_runtime_finalize(void);
double dmpi_now(void);                 /* monotonic seconds */
void dmpi_check_launcher(void);        /* exits when the launcher is gone (every 0.1 s at most) */
dmpi_group *dmpi_group_world(void);
extern dmpi_errhandler dmpi_errh_fatal, dmpi_errh_return, dmpi_errh_abort;
MPI_Errhandler dmpi_errhandler_handle(dmpi_errhandler *e);

/* Coarse lock for MPI_THREAD_MULTIPLE: taken by every API entry that touches
 * shared state; the progress wait loop drops it while it yields. */
void dmpi_lock(void);
void dmpi_unlock(void);
bool dmpi_trylock(void);                 /* takes it if free (always locks) */
void dmpi_set_thread_level(int level);   /* and whether to lock */

/* ----------------------------------------------------------------- errors
 * dmpi_error raises an error of class `cls` on comm (NULL means
 * MPI_COMM_WORLD's handler... per the standard): it records a message
 * naming the function and the problem and then applies the communicator's
 * error handler. Returns the error code to return to the user. */
int dmpi_error(dmpi_comm *comm, int cls, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Raises on no object (MPI_COMM_WORLD's... the default handler). */
#define dmpi_error_noobj(cls, func, ...) dmpi_error(NULL, cls, func, __VA_ARGS__)
/* Applies error handler h (NULL: one of kind default_kind) for `code` on
 * an object whose MPI handle is at `handle` (what a user function of kind
 * user_kind receives): returns code unless the handler ends the job, whose
 * message is prefix, the code's text and its class. Every object kind's
 * errors end here. */
int dmpi_errh_apply(const dmpi_errhandler *h, int default_kind, int user_kind, void *handle,
                    int code, const char *prefix);
/* Class of an error code; its message (NULL for unknown codes). */
int dmpi_error_class_of(int code);
const char *dmpi_error_text(int code);
const char *dmpi_error_class_name(int cls);
/* Raises MPI_ERR_UNSUPPORTED_OPERATION naming func. */
int dmpi_unimplemented(const char *func);
/* Kills the job: prints msg, tells the launcher, exits with code. */
_Noreturn void dmpi_abort_job(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A peer broke the shared-memory protocol (or a copy with it failed): ends
 * the job with a message naming the peer (errors.c). */
_Noreturn void dmpi_protocol_error(int peer, const char *what);

/* ------------------------------------------------------ handle conversion */
dmpi_comm *dmpi_comm_get(MPI_Comm h);          /* NULL if invalid */
dmpi_group *dmpi_group_get(MPI_Group h);
dmpi_datatype *dmpi_dt_get(MPI_Datatype h);
dmpi_op *dmpi_op_get(MPI_Op h);
dmpi_request *dmpi_request_get(MPI_Request h);
dmpi_errhandler *dmpi_errhandler_get(MPI_Errhandler h);

/* The statuses' hidden fields: 64-bit byte count and the cancelled flag. */
static inline void dmpi_status_set_bytes(MPI_Status *s, MPI_Count n)
{
    s->MPI_internal[0] = (int)(uint32_t)((uint64_t)n & 0xffffffffu);
    s->MPI_internal[1] = (int)(uint32_t)((uint64_t)n >> 32);
}
static inline MPI_Count dmpi_status_bytes(const MPI_Status *s)
{
    return (MPI_Count)(((uint64_t)(uint32_t)s->MPI_internal[1] << 32) |
                       (uint64_t)(uint32_t)s->MPI_internal[0]);
}
static inline void dmpi_status_set_cancelled(MPI_Status *s, int c) { s->MPI_internal[2] = c; }
static inline int dmpi_status_cancelled(const MPI_Status *s) { return s->MPI_internal[2]; }
static inline void dmpi_status_empty(MPI_Status *s)
{
    s->MPI_SOURCE = MPI_ANY_SOURCE;
    s->MPI_TAG = MPI_ANY_TAG;
    s->MPI_ERROR = MPI_SUCCESS;
    dmpi_status_set_bytes(s, 0);
    dmpi_status_set_cancelled(s, 0);
}
/* A status handed to the user: everything but MPI_ERROR. Only the calls
 * that complete several requests write that field, and only when they
 * return MPI_ERR_IN_STATUS (MPI 4.1 sec. 3.2.5); the others leave it as the
 * caller had it. */
static inline void dmpi_status_out(MPI_Status *dst, const MPI_Status *src)
{
    int keep = dst->MPI_ERROR;
    *dst = *src;
    dst->MPI_ERROR = keep;
}
/* An empty status for the user (source MPI_ANY_SOURCE, tag MPI_ANY_TAG,
 * count 0, not cancelled), MPI_ERROR left alone as above. */
static inline void dmpi_status_empty_out(MPI_Status *s)
{
    int keep = s->MPI_ERROR;
    dmpi_status_empty(s);
    s->MPI_ERROR = keep;
}

/* Environment knobs (DMPI_*): read through the table of core/knob_list.h
 * with dmpi_knob(DMPI_KNOB_X) (core/knob.h). dmpi_env_long reads a knob by
 * its name (through the table when it is listed there). */
long dmpi_env_long(const char *name, long dflt);
#include "core/knob.h"

#endif
