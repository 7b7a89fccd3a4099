/* Shared-memory collectives: blocking collectives of small and middle-sized
 * data on a communicator whose processes share a node, done through one
 * area of the node's shared heap instead of point-to-point messages.
 *
 * The area of a communicator of p processes holds, for each of two
 * parities, one 64-byte line per process (a sequence word and up to 56
 * bytes of inline data) and one data slot per process
 * (DMPI_COLL_SHM_SLOT bytes). Each blocking shared-memory collective is an
 * epoch e = 1, 2, 3, ... of the communicator and uses parity e & 1. In its
 * epoch every process writes only its own line and slot and then
 * publishes: it stores e into its line's sequence word (release). Readers
 * wait for the sequence word (acquire) and then read the data.
 *
 * Reuse rule: a process publishes epoch e-1 only after it has finished
 * everything it reads in epoch e-2 (collectives run one after the other).
 * So before writing its parity-(e&1) line and slot in epoch e, a process
 * makes sure every other process has published e-1; the all-to-all
 * collectives (barrier, allreduce, allgather, alltoall, the root of
 * reduce and gather) learn that for free, so the check is usually no work.
 *
 * Algorithms (all processes read the lines directly; no process relays):
 *   barrier     publish, wait for everyone;
 *   allreduce   publish my data, wait for everyone, every process reduces
 *               all p contributions itself in one fixed order (the same
 *               bits everywhere);
 *   reduce      the same, only the root reads;
 *   bcast       the root publishes, the others copy and publish;
 *   allgather, alltoall, gather, scatter: the same pattern with blocks.
 * Data goes through the slots in packed form (dmpi_dt_pack), so any
 * datatype works; reductions need a predefined op and a type made of one
 * basic type without padding (decided from the type signature, so every
 * process makes the same choice).
 *
 * The area is set up on the first such collective of a communicator: its
 * rank 0 allocates it from its slice of the shared heap and broadcasts
 * the address with a point-to-point broadcast (0 means "no area": the
 * communicator then keeps using the point-to-point algorithms). When a
 * process frees the communicator it counts itself out in the area; rank 0
 * gives the memory back once everyone is out (until then the area waits
 * on a list that is swept at each new set-up and at finalize).
 *
 * Used when: the heap is on (DMPI_SHM_HEAP_MB > 0), the communicator is an
 * intracommunicator of 2 to DMPI_COLL_SHM_MAX_RANKS processes, the tuning
 * table (tuning.c) picks "shm" for the call and its data fits the slot;
 * nonblocking and persistent collectives keep their schedules. */
#include "coll/shm_coll.h"

#include "transport/shm/heap.h"

#include <stdlib.h>
#include <string.h>

#define LINE 64
#define INLINE_MAX (LINE - 8)

typedef struct shm_line {
    _Alignas(LINE) _Atomic uint64_t seq; /* last epoch this process published */
    unsigned char data[INLINE_MAX];
} shm_line;

typedef struct shm_area {
    _Alignas(LINE) _Atomic int detached; /* processes that freed the communicator */
    int nprocs;
} shm_area;

typedef struct shm_comm {
    shm_area *area; /* NULL: no area, the point-to-point algorithms run */
    int p, r;
    size_t slot;
    uint64_t epoch; /* last epoch begun here */
    uint64_t known; /* every process is known to have published this epoch */
    shm_line *lines;      /* lines[par * p + j] */
    unsigned char *data;  /* slot (par, j) at data + (par * p + j) * slot */
} shm_comm;

static size_t slot_bytes, max_ranks;
static bool config_read;

/* Areas of freed communicators that other processes may still read. */
static shm_area **retired;
static int nretired, cap_retired;

static void read_config(void)
{
    long s = dmpi_env_long("DMPI_COLL_SHM_SLOT", 16384);
    if (s < LINE) s = LINE;
    slot_bytes = ((size_t)s + LINE - 1) / LINE * LINE;
    long m = dmpi_env_long("DMPI_COLL_SHM_MAX_RANKS", 64);
    max_ranks = m < 0 ? 0 : (size_t)m;
    config_read = true;
}

static void sweep_retired(void)
{
    for (int i = 0; i < nretired;) {
        shm_area *a = retired[i];
        if (atomic_load_explicit(&a->detached, memory_order_acquire) == a->nprocs) {
            dmpi_heap_free(a);
            retired[i] = retired[--nretired];
        } else {
            i++;
        }
    }
}

static size_t area_size(int p, size_t slot)
{
    return LINE + 2 * (size_t)p * (LINE + slot);
}

/* Collective over c: agree on an area (or on having none). */
static shm_comm *setup(dmpi_comm *c)
{
    shm_comm *st = calloc(1, sizeof *st);
    /* Falling back alone would leave the others waiting in the area. */
    if (!st) dmpi_abort_job(1, "dmpi: out of memory setting up shared-memory collectives");
    st->p = c->size;
    st->r = c->rank;
    st->slot = slot_bytes;
    uint64_t addr = 0;
    if (c->rank == 0) {
        sweep_retired();
        size_t n = area_size(st->p, st->slot);
        void *m = dmpi_heap_alloc(n);
        if (m) {
            memset(m, 0, n);
            ((shm_area *)m)->nprocs = st->p;
            addr = (uint64_t)(uintptr_t)m;
        }
    }
    dmpi_coll_args b = {.coll = DMPI_COLL_BCAST, .rbuf = &addr, .rcount = sizeof addr,
                        .rdt = dmpi_coll_byte(), .root = 0};
    if (dmpi_coll_run_sched(c, &b) != MPI_SUCCESS) addr = 0;
    if (addr) {
        st->area = (shm_area *)(uintptr_t)addr;
        st->lines = (shm_line *)((char *)st->area + LINE);
        st->data = (unsigned char *)(st->lines + 2 * st->p);
    }
    c->shm_coll = st;
    return st;
}

void dmpi_coll_comm_gone(dmpi_comm *c)
{
    shm_comm *st = c->shm_coll;
    if (!st) return;
    c->shm_coll = NULL;
    shm_area *a = st->area;
    free(st);
    if (!a) return;
    atomic_fetch_add_explicit(&a->detached, 1, memory_order_acq_rel);
    if (c->rank != 0) return; /* rank 0 allocated it and gives it back */
    if (nretired == cap_retired) {
        int cap = cap_retired ? 2 * cap_retired : 8;
        shm_area **n = realloc(retired, (size_t)cap * sizeof *n);
        if (!n) return; /* the heap keeps the area until finalize */
        retired = n;
        cap_retired = cap;
    }
    retired[nretired++] = a;
    sweep_retired();
}

void dmpi_coll_finalize(void)
{
    /* The heap is unmapped with the segment; only our own records go. */
    dmpi_coll_comm_gone(&dmpi_comm_world_obj);
    dmpi_coll_comm_gone(&dmpi_comm_self_obj);
    free(retired);
    retired = NULL;
    nretired = cap_retired = 0;
}

/* ------------------------------------------------------------ epochs */
static shm_line *line_of(shm_comm *st, uint64_t e, int j)
{
    return &st->lines[(size_t)(e & 1) * st->p + j];
}

/* Where process j puts `need` bytes in epoch e: inline in its line when
 * they fit, else its slot. */
static unsigned char *slot_of(shm_comm *st, uint64_t e, int j, size_t need)
{
    if (need <= INLINE_MAX) return line_of(st, e, j)->data;
    return st->data + ((size_t)(e & 1) * st->p + j) * st->slot;
}

static void wait_seq(shm_line *l, uint64_t e)
{
    unsigned idle = 0;
    while (atomic_load_explicit(&l->seq, memory_order_acquire) < e) {
        if (dmpi_progress()) idle = 0;
        else dmpi_progress_idle(&idle);
    }
}

static void wait_all(shm_comm *st, uint64_t e)
{
    for (int j = 0; j < st->p; j++)
        if (j != st->r) wait_seq(line_of(st, e, j), e);
    st->known = e;
}

/* Starts the next epoch: afterwards this process may write its line and
 * slot of the epoch's parity. */
static uint64_t begin(shm_comm *st)
{
    uint64_t e = ++st->epoch;
    if (st->known + 1 < e) wait_all(st, e - 1);
    return e;
}

static void publish(shm_comm *st, uint64_t e)
{
    atomic_store_explicit(&line_of(st, e, st->r)->seq, e, memory_order_release);
}

/* ------------------------------------------------------- the collectives */
static void *at(const void *buf, MPI_Count i, const dmpi_datatype *dt)
{
    return (void *)((uintptr_t)buf + (uintptr_t)(i * dt->extent));
}

static int barrier(shm_comm *st)
{
    uint64_t e = begin(st);
    publish(st, e);
    wait_all(st, e);
    return MPI_SUCCESS;
}

/* The basic type a reduction may run on in packed form, or NULL. */
static dmpi_datatype *packed_reduction_type(const dmpi_coll_args *a)
{
    if (!a->op->builtin || !a->rdt->basic) return NULL;
    dmpi_datatype *b = dmpi_dt_builtin((MPI_Datatype)(uintptr_t)a->rdt->basic);
    return b && b->contiguous && b->size > 0 ? b : NULL;
}

/* Reduce (root >= 0) or allreduce (root < 0). */
static int reduction(shm_comm *st, const dmpi_coll_args *a, int root, dmpi_datatype *bdt)
{
    dmpi_datatype *dt = a->rdt;
    MPI_Count count = a->rcount;
    size_t n = (size_t)(count * dt->size);
    const void *src = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    uint64_t e = begin(st);
    dmpi_dt_pack(src, count, dt, 0, slot_of(st, e, st->r, n), (MPI_Count)n);
    publish(st, e);
    if (root >= 0 && st->r != root) return MPI_SUCCESS;
    wait_all(st, e);
    /* res = x[p-1] op (... op (x[1] op x[0])), in the same order everywhere. */
    void *tmp = NULL, *res;
    if (dt->contiguous) {
        res = (void *)((uintptr_t)a->rbuf + (uintptr_t)dt->true_lb);
    } else if (!(res = tmp = malloc(n))) {
        return MPI_ERR_NO_MEM;
    }
    memcpy(res, slot_of(st, e, 0, n), n);
    MPI_Count nb = (MPI_Count)n / bdt->size;
    int rc = MPI_SUCCESS;
    for (int j = 1; j < st->p && rc == MPI_SUCCESS; j++)
        rc = dmpi_op_apply(a->op, slot_of(st, e, j, n), res, nb, bdt);
    if (tmp) {
        dmpi_dt_unpack(a->rbuf, count, dt, 0, tmp, (MPI_Count)n);
        free(tmp);
    }
    return rc;
}

static int bcast(shm_comm *st, const dmpi_coll_args *a)
{
    size_t n = (size_t)(a->rcount * a->rdt->size);
    uint64_t e = begin(st);
    if (st->r == a->root) {
        dmpi_dt_pack(a->rbuf, a->rcount, a->rdt, 0, slot_of(st, e, st->r, n), (MPI_Count)n);
    } else {
        wait_seq(line_of(st, e, a->root), e);
        dmpi_dt_unpack(a->rbuf, a->rcount, a->rdt, 0, slot_of(st, e, a->root, n),
                       (MPI_Count)n);
    }
    publish(st, e);
    return MPI_SUCCESS;
}

/* Allgather, alltoall, gather and scatter: each process's slot holds one
 * block (allgather, gather) or p blocks (alltoall, scatter: block j for
 * process j) of b bytes. The root of gather and scatter may be MPI_IN_PLACE,
 * and its own block then stays where it is. */
static int blocks(shm_comm *st, const dmpi_coll_args *a, size_t b)
{
    int p = st->p, r = st->r, coll = a->coll;
    bool all = coll == DMPI_COLL_ALLGATHER || coll == DMPI_COLL_ALLTOALL;
    bool root = !all && r == a->root;
    bool many = coll == DMPI_COLL_ALLTOALL || coll == DMPI_COLL_SCATTER; /* p blocks out */
    size_t need = many ? (size_t)p * b : b;
    const void *sbuf = a->sbuf;
    MPI_Count scount = a->scount;
    const dmpi_datatype *sdt = a->sdt;
    if (sbuf == MPI_IN_PLACE) { /* allgather, alltoall: the data is in rbuf */
        sbuf = coll == DMPI_COLL_ALLGATHER ? at(a->rbuf, r * a->rcount, a->rdt) : a->rbuf;
        scount = a->rcount;
        sdt = a->rdt;
    }
    uint64_t e = begin(st);
    unsigned char *mine = slot_of(st, e, r, need);
    bool gives = coll == DMPI_COLL_SCATTER ? root : !(root && a->sbuf == MPI_IN_PLACE);
    if (gives) {
        if (many) {
            for (int j = 0; j < p; j++)
                dmpi_dt_pack(at(sbuf, j * scount, sdt), scount, sdt, 0, mine + j * b,
                             (MPI_Count)b);
        } else {
            dmpi_dt_pack(sbuf, scount, sdt, 0, mine, (MPI_Count)b);
        }
    }
    publish(st, e);
    if (coll == DMPI_COLL_SCATTER) {
        if (!root) {
            wait_seq(line_of(st, e, a->root), e);
            dmpi_dt_unpack(a->rbuf, a->rcount, a->rdt, 0,
                           slot_of(st, e, a->root, need) + (size_t)r * b, (MPI_Count)b);
        } else if (a->rbuf != MPI_IN_PLACE) {
            dmpi_dt_unpack(a->rbuf, a->rcount, a->rdt, 0, mine + (size_t)r * b, (MPI_Count)b);
        }
        return MPI_SUCCESS;
    }
    if (coll == DMPI_COLL_GATHER && !root) return MPI_SUCCESS;
    wait_all(st, e);
    for (int j = 0; j < p; j++) {
        if (root && j == r && a->sbuf == MPI_IN_PLACE) continue;
        size_t off = coll == DMPI_COLL_ALLTOALL ? (size_t)r * b : 0;
        dmpi_dt_unpack(at(a->rbuf, j * a->rcount, a->rdt), a->rcount, a->rdt, 0,
                       slot_of(st, e, j, need) + off, (MPI_Count)b);
    }
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ dispatch */
/* Bytes of one block as every process sees them (only arguments that are
 * significant at every process), and the bytes the tuning rules look at. */
static size_t block_bytes(const dmpi_coll_args *a, int r)
{
    switch (a->coll) {
    case DMPI_COLL_GATHER:
        return (size_t)(r == a->root && a->sbuf == MPI_IN_PLACE ? a->rcount * a->rdt->size
                                                                : a->scount * a->sdt->size);
    case DMPI_COLL_SCATTER:
        return (size_t)(r == a->root && a->rbuf == MPI_IN_PLACE ? a->scount * a->sdt->size
                                                                : a->rcount * a->rdt->size);
    default:
        return (size_t)(a->rcount * a->rdt->size);
    }
}

bool dmpi_coll_shm_try(dmpi_comm *c, const dmpi_coll_args *a, int *rc)
{
    if (!config_read) read_config();
    int p = c->size, coll = a->coll;
    if (p < 2 || (size_t)p > max_ranks || !dmpi_heap.enabled || c->remote_group ||
        c->coll_state)
        return false;
    size_t b = 0, need = 0;
    dmpi_datatype *bdt = NULL;
    switch (coll) {
    case DMPI_COLL_BARRIER:
        break;
    case DMPI_COLL_REDUCE:
    case DMPI_COLL_ALLREDUCE:
        if (!(bdt = packed_reduction_type(a))) return false;
        /* fall through */
    case DMPI_COLL_BCAST:
        need = b = block_bytes(a, c->rank);
        break;
    case DMPI_COLL_ALLGATHER:
    case DMPI_COLL_GATHER:
    case DMPI_COLL_ALLTOALL:
    case DMPI_COLL_SCATTER:
        b = block_bytes(a, c->rank);
        need = coll == DMPI_COLL_ALLTOALL || coll == DMPI_COLL_SCATTER ? (size_t)p * b : b;
        break;
    default:
        return false;
    }
    if (need > slot_bytes) return false;
    MPI_Count tuned = coll == DMPI_COLL_BARRIER || coll == DMPI_COLL_BCAST ||
                              coll == DMPI_COLL_REDUCE || coll == DMPI_COLL_ALLREDUCE
                          ? (MPI_Count)b
                          : (MPI_Count)b * p;
    if (!dmpi_coll_choose_shm(coll, tuned, p)) return false;
    shm_comm *st = c->shm_coll ? c->shm_coll : setup(c);
    if (!st->area) return false;
    switch (coll) {
    case DMPI_COLL_BARRIER: *rc = barrier(st); break;
    case DMPI_COLL_REDUCE: *rc = reduction(st, a, a->root, bdt); break;
    case DMPI_COLL_ALLREDUCE: *rc = reduction(st, a, -1, bdt); break;
    case DMPI_COLL_BCAST: *rc = bcast(st, a); break;
    default: *rc = blocks(st, a, b); break;
    }
    return true;
}
