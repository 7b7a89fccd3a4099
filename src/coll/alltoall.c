/* MPI_Alltoall, MPI_Alltoallv and MPI_Alltoallw schedules.
 *  - linear: every send and receive in one round (the progress engine
 *    overlaps them);
 *  - pairwise: in step i send to rank+i and receive from rank-i, one pair
 *    of blocks in flight (large data);
 *  - Bruck (alltoall, small blocks): log p rounds; in round k every block
 *    whose rotated index has bit k set moves k ranks on, packed together;
 *  - MPI_IN_PLACE: a round-robin schedule in which, in round k, rank r
 *    swaps with k - r (mod p), through a temporary.
 * The three collectives share one description: block i is sent from
 * sbuf + sdisp[i] bytes (scount[i] elements of stype[i]) and received at
 * rbuf + rdisp[i] bytes. */
#include "coll/coll.h"

typedef struct side {
    char *buf;
    const MPI_Count *count;
    const MPI_Aint *disp; /* bytes */
    dmpi_datatype *const *dt;
} side;

typedef struct blocks {
    side snd, rcv;
    MPI_Count n1;         /* alltoall: the uniform block */
} blocks;

/* Byte displacements and per-block types for the three forms. */
static bool describe(dmpi_sched *s, const dmpi_coll_args *a, int p, blocks *b)
{
    bool in_place = a->sbuf == MPI_IN_PLACE;
    b->snd.buf = (char *)a->sbuf;
    b->rcv.buf = a->rbuf;
    if (a->coll == DMPI_COLL_ALLTOALLW) {
        b->snd = (side){(char *)a->sbuf, a->scounts, a->sdispls, a->sdts};
        b->rcv = (side){a->rbuf, a->rcounts, a->rdispls, a->rdts};
        if (in_place) b->snd = b->rcv;
        return true;
    }
    MPI_Count *cnt = dmpi_sched_alloc(s, (size_t)(2 * p) * sizeof *cnt);
    MPI_Aint *disp = dmpi_sched_alloc(s, (size_t)(2 * p) * sizeof *disp);
    dmpi_datatype **dts = dmpi_sched_alloc(s, (size_t)(2 * p) * sizeof *dts);
    if (!cnt || !disp || !dts) return false;
    bool v = a->coll == DMPI_COLL_ALLTOALLV;
    for (int i = 0; i < p; i++) {
        cnt[p + i] = v ? a->rcounts[i] : a->rcount;
        disp[p + i] = (v ? a->rdispls[i] : i * a->rcount) * a->rdt->extent;
        dts[p + i] = a->rdt;
        if (!in_place) {
            cnt[i] = v ? a->scounts[i] : a->scount;
            disp[i] = (v ? a->sdispls[i] : i * a->scount) * a->sdt->extent;
            dts[i] = a->sdt;
        }
    }
    b->rcv = (side){a->rbuf, cnt + p, disp + p, dts + p};
    b->snd = in_place ? b->rcv : (side){(char *)a->sbuf, cnt, disp, dts};
    return true;
}

#define SND(i) b->snd.buf + b->snd.disp[i], b->snd.count[i], b->snd.dt[i]
#define RCV(i) b->rcv.buf + b->rcv.disp[i], b->rcv.count[i], b->rcv.dt[i]

static void linear(dmpi_sched *s, int p, int r, const blocks *b)
{
    for (int i = 1; i < p; i++) {
        int src = (r - i + p) % p, dst = (r + i) % p;
        dmpi_sched_recv(s, RCV(src), src);
        dmpi_sched_send(s, SND(dst), dst);
    }
}

static void pairwise(dmpi_sched *s, int p, int r, const blocks *b)
{
    for (int i = 1; i < p; i++) {
        int src = (r - i + p) % p, dst = (r + i) % p;
        dmpi_sched_recv(s, RCV(src), src);
        dmpi_sched_send(s, SND(dst), dst);
        dmpi_sched_fence(s);
    }
}

static void in_place(dmpi_sched *s, int p, int r, const blocks *b)
{
    for (int k = 0; k < p; k++) {
        int peer = ((k - r) % p + p) % p;
        if (peer == r) continue;
        dmpi_datatype *dt = b->rcv.dt[peer];
        MPI_Count n = b->rcv.count[peer];
        if (n <= 0 || dt->size == 0) continue;
        void *tmp = dmpi_sched_tmp(s, n, dt);
        if (!tmp) return;
        dmpi_sched_copy(s, RCV(peer), tmp, n, dt);
        dmpi_sched_send(s, tmp, n, dt, peer);
        dmpi_sched_recv(s, RCV(peer), peer);
        dmpi_sched_fence(s);
    }
}

static void bruck(dmpi_sched *s, int p, int r, const blocks *b)
{
    dmpi_datatype *byte = dmpi_coll_byte();
    MPI_Count bb = b->rcv.count[0] * b->rcv.dt[0]->size;
    int half = (p + 1) / 2;
    char *tmp = dmpi_sched_alloc(s, (size_t)(p * bb));
    char *out = dmpi_sched_alloc(s, (size_t)(half * bb));
    char *in = dmpi_sched_alloc(s, (size_t)(half * bb));
    if (!tmp || !out || !in) return;
    for (int i = 0; i < p; i++) /* tmp[i] = block for rank r + i */
        dmpi_sched_copy(s, SND((r + i) % p), tmp + i * bb, bb, byte);
    for (int k = 1; k < p; k <<= 1) {
        int n = 0;
        for (int i = 0; i < p; i++)
            if (i & k) dmpi_sched_copy(s, tmp + i * bb, bb, byte, out + n++ * bb, bb, byte);
        dmpi_sched_send(s, out, n * bb, byte, (r + k) % p);
        dmpi_sched_recv(s, in, n * bb, byte, (r - k + p) % p);
        dmpi_sched_fence(s);
        n = 0;
        for (int i = 0; i < p; i++)
            if (i & k) dmpi_sched_copy(s, in + n++ * bb, bb, byte, tmp + i * bb, bb, byte);
    }
    for (int i = 0; i < p; i++) /* tmp[i] came from rank r - i */
        dmpi_sched_copy(s, tmp + i * bb, bb, byte, RCV((r - i + p) % p));
}

static void build(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a, int coll)
{
    int p = c->size, r = c->rank;
    blocks bb, *b = &bb;
    if (!describe(s, a, p, b)) return;
    if (a->sbuf == MPI_IN_PLACE) {
        in_place(s, p, r, b);
        return;
    }
    dmpi_sched_copy(s, SND(r), RCV(r));
    if (p == 1) return;
    /* The algorithm is chosen by what this rank receives; a rank that
     * receives nothing in alltoallv/w may still have blocks to send. */
    MPI_Count bytes = 0, sent = 0;
    for (int i = 0; i < p; i++) {
        bytes += b->rcv.count[i] * b->rcv.dt[i]->size;
        sent += b->snd.count[i] * b->snd.dt[i]->size;
    }
    if (bytes == 0 && sent == 0) return;
    int algo = dmpi_coll_choose(coll, bytes, p);
    if (coll == DMPI_COLL_ALLTOALL && algo == DMPI_ALLTOALL_BRUCK) bruck(s, p, r, b);
    else if (algo == DMPI_ALLTOALL_PAIRWISE) pairwise(s, p, r, b);
    else linear(s, p, r, b);
}

void dmpi_build_alltoall(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a)
{
    build(s, c, a, DMPI_COLL_ALLTOALL);
}

void dmpi_build_alltoallv(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a)
{
    build(s, c, a, DMPI_COLL_ALLTOALLV);
}

void dmpi_build_alltoallw(dmpi_sched *s, dmpi_comm *c, const dmpi_coll_args *a)
{
    build(s, c, a, DMPI_COLL_ALLTOALLW);
}
