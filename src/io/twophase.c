/* Two-phase collective I/O for MPI_File_read/write(_at)_all and their
 * split forms: when the processes' file pieces interleave, the data is
 * exchanged so that a few aggregators (the first process of each node, or
 * cb_nodes of them) each access one contiguous file domain in large
 * operations, instead of every process issuing its own small ones.
 *
 * Each process lists its file pieces (the view map of its access, sorted by
 * file offset because views are monotonic) and packs its data into one
 * stream. [lo, hi) of all pieces is cut into one domain per aggregator, and
 * each domain into windows of cb_buffer_size bytes handled one per round:
 * in round k every process sends aggregator a the pieces (offset, length)
 * falling in a's k-th window, and for writes the data, which is one
 * contiguous slice of its stream (stream order is file order). A writing
 * aggregator assembles the window and writes it with one pwrite (reading
 * it first when the pieces leave holes, unless they cover under half of it
 * or the file is write-only: then each gapless run is written alone); a
 * reading aggregator reads the window's span once (data sieving) and sends
 * each process its slice.
 *
 * Used only for the native representation outside atomic mode, by default
 * only on network and parallel file systems; the choice (DMPI_IO_CB, hints
 * romio_cb_write/romio_cb_read) is the same on every process because it is
 * made from allgathered facts (the file system type as rank 0 sees it). */
#include "io/io.h"
#include "coll/coll.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/vfs.h>
#include <unistd.h>

typedef struct { MPI_Offset off, len; } piece;
typedef struct { MPI_Offset lo, hi, n, bytes, remote; } rank_info;
typedef struct { MPI_Offset off, len; int src; char *data; } entry;

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) dmpi_abort_job(1, "dmpi: rank %d: out of memory in collective I/O", dmpi_rt.world_rank);
    return p;
}

/* The file pieces of stream bytes [vpos, vpos+len), in file order. */
static piece *list_pieces(dmpi_file *f, MPI_Offset vpos, MPI_Offset len, MPI_Offset *n)
{
    MPI_Offset cap = 64, k = 0, done = 0, off[256], pl[256];
    piece *p = xmalloc((size_t)cap * sizeof *p);
    while (done < len) {
        MPI_Offset cov;
        int m = dmpi_view_map(f, vpos + done, len - done, off, pl, 256, &cov);
        if (m <= 0) break;
        for (int i = 0; i < m; i++) {
            if (k > 0 && p[k - 1].off + p[k - 1].len == off[i]) {
                p[k - 1].len += pl[i];
                continue;
            }
            if (k == cap) p = realloc(p, (size_t)(cap *= 2) * sizeof *p);
            if (!p) dmpi_abort_job(1, "dmpi: out of memory in collective I/O");
            p[k++] = (piece){off[i], pl[i]};
        }
        done += cov;
    }
    *n = k;
    return p;
}

/* Is fd on a network or parallel file system, where many small accesses
 * from many processes cost far more than on a local one? On a local file
 * system (the page cache) each process's own pwrites were 2-4x faster
 * than aggregation, even with 232-byte pieces (bench/io_bench, docs/io.md). */
static bool remote_fs(int fd)
{
    static const unsigned long magic[] = {
        0x6969,     /* NFS */         0x517B,     /* SMB */
        0xFF534D42, /* CIFS */        0xFE534D42, /* SMB2 */
        0x0BD00BD0, /* Lustre */      0x47504653, /* GPFS */
        0x19830326, /* BeeGFS */      0x00C36400, /* Ceph */
        0x01021997, /* 9p */          0x65735546, /* FUSE */
        0x5346414F, /* AFS */         0x7461636F, /* OCFS2 */
        0x01161970, /* GFS2 */        0xAAD7AAEA, /* PanFS */
    };
    struct statfs st;
    if (fstatfs(fd, &st) != 0) return false;
    for (size_t i = 0; i < sizeof magic / sizeof magic[0]; i++)
        if ((unsigned long)st.f_type == magic[i]) return true;
    return false;
}

/* 0 never, 1 when the pieces interleave on a network or parallel file
 * system, 2 whenever they interleave, 3 always. */
static int cb_mode(dmpi_file *f, bool wr)
{
    long m = dmpi_env_long("DMPI_IO_CB", 1);
    const char *h = f->hints ? dmpi_info_lookup(f->hints, wr ? "romio_cb_write" : "romio_cb_read")
                             : NULL;
    if (h && !strcasecmp(h, "enable")) m = 3;
    else if (h && !strcasecmp(h, "disable")) m = 0;
    else if (h && !strcasecmp(h, "automatic")) m = 1;
    return (int)m;
}

static MPI_Offset hint_long(dmpi_file *f, const char *key, MPI_Offset dflt)
{
    const char *v = f->hints ? dmpi_info_lookup(f->hints, key) : NULL;
    long long x = v ? atoll(v) : 0;
    return x > 0 ? x : dflt;
}

static int cmp_entry(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->off != y->off) return x->off < y->off ? -1 : 1;
    return x->src - y->src;
}

/* Writes the window's entries (sorted). buf holds cap bytes. Gapless
 * entries go out as one pwrite; with holes, the window is read first and
 * written whole when the entries cover at least half of it and the file
 * can be read, else each gapless run is written alone. */
static int write_window(dmpi_file *f, entry *e, int n, char *buf, MPI_Offset cap)
{
    MPI_Offset lo = e[0].off, hi = lo, covered = 0;
    bool gaps = false;
    for (int i = 0; i < n; i++) {
        if (e[i].off > hi) gaps = true;
        MPI_Offset end = e[i].off + e[i].len;
        covered += end > hi ? end - (e[i].off > hi ? e[i].off : hi) : 0;
        if (end > hi) hi = end;
    }
    if (hi - lo > cap) { /* cannot happen: windows are at most cap bytes */
        for (int i = 0; i < n; i++)
            if (dmpi_io_pwrite_full(f->fd, e[i].data, (size_t)e[i].len, e[i].off) < 0) return errno;
        return 0;
    }
    bool rmw = gaps && covered * 2 >= hi - lo && !(f->amode & MPI_MODE_WRONLY);
    if (rmw) {
        ssize_t got = dmpi_io_pread_full(f->fd, buf, (size_t)(hi - lo), lo);
        if (got < 0) return errno;
        memset(buf + got, 0, (size_t)(hi - lo - got));
    }
    for (int i = 0; i < n; i++) memcpy(buf + (e[i].off - lo), e[i].data, (size_t)e[i].len);
    if (!gaps || rmw)
        return dmpi_io_pwrite_full(f->fd, buf, (size_t)(hi - lo), lo) < 0 ? errno : 0;
    MPI_Offset rlo = e[0].off, rhi = rlo;
    for (int i = 0; i <= n; i++) {
        if (i < n && e[i].off <= rhi) {
            if (e[i].off + e[i].len > rhi) rhi = e[i].off + e[i].len;
            continue;
        }
        if (dmpi_io_pwrite_full(f->fd, buf + (rlo - lo), (size_t)(rhi - rlo), rlo) < 0) return errno;
        if (i < n) rlo = e[i].off, rhi = rlo + e[i].len;
    }
    return 0;
}

/* Reads the window's entries (sorted) into their data pointers. */
static int read_window(dmpi_file *f, entry *e, int n, char *buf, MPI_Offset cap)
{
    MPI_Offset lo = e[0].off, hi = lo, covered = 0;
    for (int i = 0; i < n; i++) {
        MPI_Offset end = e[i].off + e[i].len;
        covered += end > hi ? end - (e[i].off > hi ? e[i].off : hi) : 0;
        if (end > hi) hi = end;
    }
    if (hi - lo > cap || covered * 2 < hi - lo) {
        for (int i = 0; i < n; i++) {
            ssize_t got = dmpi_io_pread_full(f->fd, e[i].data, (size_t)e[i].len, e[i].off);
            if (got < 0) return errno;
            memset(e[i].data + got, 0, (size_t)(e[i].len - got));
        }
        return 0;
    }
    ssize_t got = dmpi_io_pread_full(f->fd, buf, (size_t)(hi - lo), lo);
    if (got < 0) return errno;
    memset(buf + got, 0, (size_t)(hi - lo - got));
    for (int i = 0; i < n; i++) memcpy(e[i].data, buf + (e[i].off - lo), (size_t)e[i].len);
    return 0;
}

typedef struct {
    dmpi_file *f;
    bool wr;
    piece *p;
    MPI_Offset np;
    char *stream;
    int naggr, *aggr, me_aggr; /* me_aggr: my index among the aggregators, or -1 */
    MPI_Offset lo, hi, dom, cb;
} plan;

/* My pieces inside [wlo, whi) from cursor *ci (split at the edges) into
 * out; their stream start in *s0 (cursor stream position *cs). */
static MPI_Offset window_pieces(const plan *P, MPI_Offset *ci, MPI_Offset *cs, MPI_Offset wlo,
                                MPI_Offset whi, piece *out, MPI_Offset *s0, MPI_Offset *bytes)
{
    MPI_Offset k = 0, b = 0;
    while (*ci < P->np && P->p[*ci].off + P->p[*ci].len <= wlo) *cs += P->p[(*ci)++].len;
    *s0 = *cs;
    for (MPI_Offset i = *ci; i < P->np && P->p[i].off < whi; i++) {
        MPI_Offset a = P->p[i].off > wlo ? P->p[i].off : wlo;
        MPI_Offset z = P->p[i].off + P->p[i].len < whi ? P->p[i].off + P->p[i].len : whi;
        if (i == *ci) *s0 = *cs + (a - P->p[i].off);
        out[k++] = (piece){a, z - a};
        b += z - a;
    }
    *bytes = b;
    return k;
}

static int run_rounds(plan *P, char *why)
{
    dmpi_file *f = P->f;
    dmpi_comm *c = f->comm;
    int n = c->size, tag = dmpi_coll_tag(c), err = 0;
    MPI_Offset nrounds = (P->dom + P->cb - 1) / P->cb;
    dmpi_datatype *i64 = dmpi_dt_builtin(MPI_INT64_T), *byte = dmpi_dt_builtin(MPI_BYTE);
    MPI_Offset *cur = xmalloc((size_t)P->naggr * 2 * sizeof *cur); /* piece cursor, stream pos */
    MPI_Offset *sc = xmalloc((size_t)n * 2 * sizeof *sc), *rc = xmalloc((size_t)n * 2 * sizeof *rc);
    piece **mine = xmalloc((size_t)P->naggr * sizeof *mine);
    MPI_Offset *mine_n = xmalloc((size_t)P->naggr * sizeof *mine_n);
    MPI_Offset *mine_s = xmalloc((size_t)P->naggr * sizeof *mine_s);
    piece **theirs = xmalloc((size_t)n * sizeof *theirs);
    char **tdata = xmalloc((size_t)n * sizeof *tdata);
    dmpi_request **rq = xmalloc((size_t)(4 * n + 2 * P->naggr) * sizeof *rq);
    char *wbuf = P->me_aggr >= 0 ? xmalloc((size_t)P->cb) : NULL;
    for (int a = 0; a < P->naggr; a++) cur[2 * a] = cur[2 * a + 1] = 0;
    for (int a = 0; a < P->naggr; a++) mine[a] = NULL;
    for (MPI_Offset k = 0; k < nrounds; k++) {
        /* my pieces for each aggregator's k-th window */
        memset(sc, 0, (size_t)n * 2 * sizeof *sc);
        for (int a = 0; a < P->naggr; a++) {
            MPI_Offset dlo = P->lo + a * P->dom, dhi = dlo + P->dom < P->hi ? dlo + P->dom : P->hi;
            MPI_Offset wlo = dlo + k * P->cb, whi = wlo + P->cb < dhi ? wlo + P->cb : dhi;
            free(mine[a]);
            mine[a] = NULL;
            mine_n[a] = 0;
            if (wlo >= whi) continue;
            MPI_Offset cnt = 0;
            for (MPI_Offset i = cur[2 * a]; i < P->np && P->p[i].off < whi; i++) cnt++;
            mine[a] = xmalloc((size_t)(cnt + 1) * sizeof(piece));
            MPI_Offset b = 0;
            mine_n[a] = window_pieces(P, &cur[2 * a], &cur[2 * a + 1], wlo, whi, mine[a],
                                      &mine_s[a], &b);
            sc[2 * P->aggr[a]] = mine_n[a];
            sc[2 * P->aggr[a] + 1] = b;
        }
        int e = dmpi_coll_alltoall(sc, 2, i64, rc, 2, i64, c);
        if (e != MPI_SUCCESS) return e;
        int nr = 0;
        /* metadata (and write data) to the aggregators */
        for (int a = 0; a < P->naggr; a++) {
            int to = P->aggr[a];
            if (!mine_n[a]) continue;
            dmpi_coll_isend(mine[a], mine_n[a] * 2, i64, to, tag, c, &rq[nr++]);
            if (P->wr)
                dmpi_coll_isend(P->stream + mine_s[a], sc[2 * to + 1], byte, to, tag, c, &rq[nr++]);
        }
        int ne = 0;
        for (int s = 0; s < n; s++) {
            theirs[s] = NULL;
            tdata[s] = NULL;
            if (P->me_aggr < 0 || !rc[2 * s]) continue;
            theirs[s] = xmalloc((size_t)rc[2 * s] * sizeof(piece));
            tdata[s] = xmalloc((size_t)rc[2 * s + 1]);
            dmpi_coll_irecv(theirs[s], rc[2 * s] * 2, i64, s, tag, c, &rq[nr++]);
            if (P->wr) dmpi_coll_irecv(tdata[s], rc[2 * s + 1], byte, s, tag, c, &rq[nr++]);
            ne += (int)rc[2 * s];
        }
        e = dmpi_waitall(nr, rq);
        if (e != MPI_SUCCESS) return e;
        nr = 0;
        if (P->me_aggr >= 0 && ne > 0) {
            entry *en = xmalloc((size_t)ne * sizeof *en);
            int m = 0;
            for (int s = 0; s < n; s++) {
                char *d = tdata[s];
                for (MPI_Offset i = 0; i < rc[2 * s]; i++) {
                    en[m++] = (entry){theirs[s][i].off, theirs[s][i].len, s, d};
                    d += theirs[s][i].len;
                }
            }
            qsort(en, (size_t)ne, sizeof *en, cmp_entry);
            int r = P->wr ? write_window(f, en, ne, wbuf, P->cb) : read_window(f, en, ne, wbuf, P->cb);
            if (r && !err) {
                err = r;
                snprintf(why, IO_WHY, "%s failed: %s", P->wr ? "pwrite" : "pread", strerror(r));
            }
            free(en);
        }
        /* reads: the data back to the requesters, into their streams */
        if (!P->wr) {
            for (int s = 0; s < n; s++)
                if (tdata[s])
                    dmpi_coll_isend(tdata[s], rc[2 * s + 1], byte, s, tag, c, &rq[nr++]);
            for (int a = 0; a < P->naggr; a++)
                if (mine_n[a])
                    dmpi_coll_irecv(P->stream + mine_s[a], sc[2 * P->aggr[a] + 1], byte,
                                    P->aggr[a], tag, c, &rq[nr++]);
            e = dmpi_waitall(nr, rq);
            if (e != MPI_SUCCESS) return e;
        }
        for (int s = 0; s < n; s++) {
            free(theirs[s]);
            free(tdata[s]);
        }
    }
    for (int a = 0; a < P->naggr; a++) free(mine[a]);
    free(cur), free(sc), free(rc), free(mine), free(mine_n), free(mine_s);
    free(theirs), free(tdata), free(rq), free(wbuf);
    return err ? dmpi_io_errno_class(err) : MPI_SUCCESS;
}

/* The aggregators: the first process of each node, at most cb_nodes. */
static int pick_aggregators(dmpi_file *f, int *aggr)
{
    dmpi_comm *c = f->comm;
    int n = 0, limit = (int)hint_long(f, "cb_nodes", c->size);
    for (int i = 0; i < c->size && n < limit; i++) {
        int node = dmpi_rt.node_of[c->group->world[i]], seen = 0;
        for (int j = 0; j < n && !seen; j++) seen = dmpi_rt.node_of[c->group->world[aggr[j]]] == node;
        if (!seen) aggr[n++] = i;
    }
    return n;
}

int dmpi_io_coll(dmpi_file *f, bool wr, MPI_Offset off, void *buf, MPI_Count count,
                 dmpi_datatype *dt, bool ok, MPI_Count *bytes, char *why)
{
    dmpi_comm *c = f->comm;
    *bytes = 0;
    int mode = cb_mode(f, wr);
    if (mode == 0 || c->size == 1 || f->rep != IO_REP_NATIVE || f->atomic) return -1;
    MPI_Offset T = ok ? count * dt->size : 0, np = 0;
    piece *p = list_pieces(f, off * f->etype->size, T, &np);
    rank_info me = {np ? p[0].off : 0, np ? p[np - 1].off + p[np - 1].len : 0, np, T,
                    mode == 1 && c->rank == 0 ? remote_fs(f->fd) : 0};
    rank_info *all = xmalloc((size_t)c->size * sizeof *all);
    dmpi_datatype *i64 = dmpi_dt_builtin(MPI_INT64_T);
    int rc = dmpi_coll_allgather(&me, 5, i64, all, 5, i64, c);
    if (rc != MPI_SUCCESS) {
        free(p), free(all);
        return rc;
    }
    /* interleaved: some process's range starts inside another's */
    MPI_Offset lo = -1, hi = 0;
    bool noncontig = false, inter = false;
    for (int i = 0; i < c->size; i++) {
        if (!all[i].n) continue;
        noncontig |= all[i].n > 1;
        for (int j = 0; j < c->size && !inter; j++)
            inter = j != i && all[j].n && all[i].lo < all[j].hi && all[j].lo < all[i].hi;
        if (lo < 0 || all[i].lo < lo) lo = all[i].lo;
        if (all[i].hi > hi) hi = all[i].hi;
    }
    bool remote = all[0].remote;
    free(all);
    if (lo < 0 || (mode < 3 && !(noncontig && inter)) || (mode == 1 && !remote)) {
        free(p);
        return -1; /* every process does its own, as independent I/O */
    }
    int *aggr = xmalloc((size_t)c->size * sizeof *aggr);
    plan P = {.f = f, .wr = wr, .p = p, .np = np, .aggr = aggr, .lo = lo, .hi = hi};
    P.naggr = pick_aggregators(f, aggr);
    P.me_aggr = -1;
    for (int a = 0; a < P.naggr; a++)
        if (aggr[a] == c->rank) P.me_aggr = a;
    MPI_Offset span = hi - lo;
    P.dom = (span + P.naggr - 1) / P.naggr;
    if (P.dom % 4096 && P.dom > 4096) P.dom += 4096 - P.dom % 4096;
    P.cb = hint_long(f, "cb_buffer_size", dmpi_env_long("DMPI_IO_CB_BUFFER", 16L << 20));
    if (P.cb > P.dom) P.cb = P.dom > 0 ? P.dom : 1;
    bool direct = dt->contiguous;
    P.stream = direct ? (char *)buf + dt->true_lb : xmalloc((size_t)T);
    if (wr && !direct && T) dmpi_dt_pack(buf, count, dt, 0, P.stream, T);
    rc = run_rounds(&P, why);
    int all_rc = dmpi_io_agree(c, rc, NULL);
    if (all_rc != MPI_SUCCESS && rc == MPI_SUCCESS)
        snprintf(why, IO_WHY, "an aggregator's %s failed", wr ? "write" : "read");
    if (all_rc == MPI_SUCCESS) {
        *bytes = T;
        if (!wr && T) {
            /* only what lies before the end of file counts */
            MPI_Offset size = 0, b = 0;
            dmpi_file_size(f, &size, why);
            for (MPI_Offset i = 0; i < np && p[i].off < size; i++)
                b += p[i].off + p[i].len <= size ? p[i].len : size - p[i].off;
            *bytes = b;
            if (!direct) dmpi_dt_unpack(buf, count, dt, 0, P.stream, b);
        }
    }
    if (!direct) free(P.stream);
    free(aggr);
    free(p);
    return all_rc;
}
