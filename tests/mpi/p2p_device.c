/* p2p_device: point-to-point with (emulated) device buffers on either side.
 *
 * Under DMPI_ACCEL=emul (set here before MPI_Init unless the environment
 * says otherwise; DMPI_TEST_DEVICE=cuda runs it on a GPU instead) every send and receive form runs with all four
 * combinations of device and host buffers: blocking, nonblocking,
 * synchronous, ready, buffered, persistent (started twice, the data
 * changed in between), Sendrecv, Isendrecv, Sendrecv_replace, Mprobe/Mrecv
 * and Improbe/Imrecv. Sizes 0, 1 B, 8 B, eager, 64 KiB, 1 MiB and 8 MiB of
 * bytes, and a vector and a struct type with holes (which must survive).
 * Every byte of every receive buffer is checked through the test's own
 * read-write view of the device memory (emul_mem.h). In each phase p rank
 * p sends to rank p+1 (both ways for the send-receive forms), so the test
 * runs at any size >= 2. */
#include "emul_mem.h"

enum { V_SEND, V_ISEND, V_SSEND, V_ISSEND, V_RSEND, V_IRSEND, V_BSEND, V_IBSEND, V_PERSIST,
       V_BPERSIST, V_SENDRECV, V_ISENDRECV, V_REPLACE, V_MPROBE, V_IMPROBE, V_N };
static const char *const vname[V_N] = {"Send", "Isend", "Ssend", "Issend", "Rsend",
                                       "Irsend", "Bsend", "Ibsend", "Send_init", "Bsend_init",
                                       "Sendrecv", "Isendrecv", "Sendrecv_replace", "Mprobe",
                                       "Improbe"};

typedef struct ttype {
    const char *name;
    MPI_Datatype type;
    size_t data, extent, true_extent; /* bytes of data, extent, true extent of one element */
} ttype;

static ttype types[3];
enum { T_BYTES, T_VEC, T_STRUCT };

static void make_types(void)
{
    types[T_BYTES] = (ttype){"bytes", MPI_BYTE, 1, 1, 1};
    MPI_Datatype v;
    /* 2 blocks of 3 ints, stride 5, resized to 40 bytes: 24 of data in 40 */
    MPI_Type_vector(2, 3, 5, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, 40, &types[T_VEC].type);
    MPI_Type_free(&v);
    MPI_Type_commit(&types[T_VEC].type);
    types[T_VEC].name = "vector";
    types[T_VEC].data = 24;
    types[T_VEC].extent = 40;
    types[T_VEC].true_extent = 32;
    /* {char; double; int} at 0, 8, 16: 13 bytes of data in 24 */
    int bl[3] = {1, 1, 1};
    MPI_Aint disp[3] = {0, 8, 16};
    MPI_Datatype tt[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    MPI_Type_create_struct(3, bl, disp, tt, &v);
    MPI_Type_create_resized(v, 0, 24, &types[T_STRUCT].type);
    MPI_Type_free(&v);
    MPI_Type_commit(&types[T_STRUCT].type);
    types[T_STRUCT].name = "struct";
    types[T_STRUCT].data = 13;
    types[T_STRUCT].extent = 24;
    types[T_STRUCT].true_extent = 20;
}

static size_t span(const ttype *t, MPI_Count count)
{
    return count ? (size_t)(count - 1) * t->extent + t->true_extent : 0;
}

static void fill(char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) p[i] = (char)(seed + i * 7 + (i >> 8) * 13 + 1);
}

/* What a receive buffer of count t's must hold after receiving the
 * pattern `seed` (sent with the same type): the data bytes, `hole` in the
 * holes. */
static char *expected_with(const ttype *t, MPI_Count count, unsigned seed, int hole)
{
    size_t n = span(t, count);
    char *src = malloc(n + 1), *ref = malloc(n + 1);
    fill(src, n, seed);
    memset(ref, hole, n + 1);
    int size = 0, pos = 0;
    MPI_Pack_size((int)count, t->type, MPI_COMM_WORLD, &size);
    char *packed = malloc((size_t)size + 1);
    MPI_Pack(src, (int)count, t->type, packed, size, &pos, MPI_COMM_WORLD);
    int at = 0;
    MPI_Unpack(packed, pos, &at, ref, (int)count, t->type, MPI_COMM_WORLD);
    free(packed);
    free(src);
    return ref;
}

static char *expected(const ttype *t, MPI_Count count, unsigned seed)
{
    return expected_with(t, count, seed, 0xEE);
}

static int nchecked;

static void check_buf(const t_dbuf *b, const ttype *t, MPI_Count count, unsigned seed,
                      const char *what)
{
    size_t n = span(t, count);
    t_dbuf_pull(b);
    char *ref = expected(t, count, seed);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (b->rw[i] != ref[i] && bad++ == 0) first = i;
    CHECK(bad == 0, "%s: %zu of %zu bytes wrong, first at %zu (0x%02x, want 0x%02x)", what, bad,
          n, first, bad ? (unsigned char)b->rw[first] : 0, bad ? (unsigned char)ref[first] : 0);
    free(ref);
    nchecked++;
}

static void check_count(const MPI_Status *st, const ttype *t, MPI_Count count, const char *what)
{
    int got = -1;
    MPI_Get_count(st, t->type, &got);
    CHECK(got == (int)count, "%s: count %d, want %lld", what, got, (long long)count);
}

typedef struct round {
    int var, sdev, rdev;
    const ttype *t;
    MPI_Count count;
    int tag;
    unsigned seed0;
    char what[128];
} round;

static unsigned seed_of(const round *r, int rank) { return r->seed0 + (unsigned)rank * 101u; }

/* One direction: `me` sends to `peer` (is_send) or receives from it. */
static void one_way(const round *r, int peer, bool is_send)
{
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Count c = r->count;
    MPI_Datatype ty = r->t->type;
    size_t n = span(r->t, c);
    t_dbuf b = t_dbuf_new(n, is_send ? r->sdev : r->rdev);
    MPI_Request q = MPI_REQUEST_NULL;
    MPI_Status st;
    if (is_send) {
        unsigned seed = seed_of(r, t_rank);
        fill(b.rw, n, seed);
        t_dbuf_push(&b);
        int tok;
        switch (r->var) {
        case V_SEND: MPI_CHK(MPI_Send(b.user, (int)c, ty, peer, r->tag, w)); break;
        case V_SSEND: MPI_CHK(MPI_Ssend(b.user, (int)c, ty, peer, r->tag, w)); break;
        case V_BSEND: MPI_CHK(MPI_Bsend(b.user, (int)c, ty, peer, r->tag, w)); break;
        case V_RSEND:
        case V_IRSEND: /* the receiver says its receive is posted */
            MPI_CHK(MPI_Recv(&tok, 1, MPI_INT, peer, r->tag, w, MPI_STATUS_IGNORE));
            if (r->var == V_RSEND) MPI_CHK(MPI_Rsend(b.user, (int)c, ty, peer, r->tag, w));
            else MPI_CHK(MPI_Irsend(b.user, (int)c, ty, peer, r->tag, w, &q));
            break;
        case V_ISEND: MPI_CHK(MPI_Isend(b.user, (int)c, ty, peer, r->tag, w, &q)); break;
        case V_ISSEND: MPI_CHK(MPI_Issend(b.user, (int)c, ty, peer, r->tag, w, &q)); break;
        case V_IBSEND: MPI_CHK(MPI_Ibsend(b.user, (int)c, ty, peer, r->tag, w, &q)); break;
        case V_PERSIST:
        case V_BPERSIST:
            if (r->var == V_PERSIST) MPI_CHK(MPI_Send_init(b.user, (int)c, ty, peer, r->tag, w, &q));
            else MPI_CHK(MPI_Bsend_init(b.user, (int)c, ty, peer, r->tag, w, &q));
            for (int k = 0; k < 2; k++) { /* the second start sends the new contents */
                fill(b.rw, n, seed + (unsigned)k);
                t_dbuf_push(&b);
                MPI_CHK(MPI_Start(&q));
                MPI_CHK(MPI_Wait(&q, MPI_STATUS_IGNORE));
            }
            MPI_CHK(MPI_Request_free(&q));
            break;
        default: /* the receive-side forms send plainly */
            MPI_CHK(MPI_Send(b.user, (int)c, ty, peer, r->tag, w));
        }
        if (q != MPI_REQUEST_NULL) MPI_CHK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        /* a send leaves its buffer alone */
        t_dbuf_pull(&b);
        char *orig = malloc(n + 1);
        fill(orig, n, r->var == V_PERSIST || r->var == V_BPERSIST ? seed + 1 : seed);
        CHECK(n == 0 || memcmp(orig, b.rw, n) == 0, "%s: the send changed its buffer", r->what);
        free(orig);
    } else {
        unsigned seed = seed_of(r, peer);
        memset(b.rw, 0xEE, n);
        t_dbuf_push(&b);
        MPI_Message m;
        int flag = 0, tok = 1;
        switch (r->var) {
        case V_RSEND:
        case V_IRSEND:
            MPI_CHK(MPI_Irecv(b.user, (int)c, ty, peer, r->tag, w, &q));
            MPI_CHK(MPI_Send(&tok, 1, MPI_INT, peer, r->tag, w));
            MPI_CHK(MPI_Wait(&q, &st));
            break;
        case V_ISEND:
        case V_ISSEND:
        case V_IBSEND:
            MPI_CHK(MPI_Irecv(b.user, (int)c, ty, peer, r->tag, w, &q));
            MPI_CHK(MPI_Wait(&q, &st));
            break;
        case V_PERSIST:
        case V_BPERSIST:
            MPI_CHK(MPI_Recv_init(b.user, (int)c, ty, peer, r->tag, w, &q));
            for (int k = 0; k < 2; k++) {
                memset(b.rw, 0xEE, n);
                t_dbuf_push(&b);
                MPI_CHK(MPI_Start(&q));
                MPI_CHK(MPI_Wait(&q, &st));
                if (k == 0) check_buf(&b, r->t, c, seed, r->what);
            }
            MPI_CHK(MPI_Request_free(&q));
            seed++;
            break;
        case V_MPROBE:
            MPI_CHK(MPI_Mprobe(peer, r->tag, w, &m, &st));
            MPI_CHK(MPI_Mrecv(b.user, (int)c, ty, &m, &st));
            break;
        case V_IMPROBE:
            while (!flag) MPI_CHK(MPI_Improbe(peer, r->tag, w, &flag, &m, &st));
            MPI_CHK(MPI_Imrecv(b.user, (int)c, ty, &m, &q));
            MPI_CHK(MPI_Wait(&q, &st));
            break;
        default: MPI_CHK(MPI_Recv(b.user, (int)c, ty, peer, r->tag, w, &st));
        }
        check_count(&st, r->t, c, r->what);
        check_buf(&b, r->t, c, seed, r->what);
    }
    t_dbuf_free(&b);
}

/* Both directions at once with `peer`: Sendrecv, Isendrecv, replace. */
static void exchange(const round *r, int peer, bool first)
{
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Count c = r->count;
    MPI_Datatype ty = r->t->type;
    size_t n = span(r->t, c);
    MPI_Status st;
    MPI_Request q;
    if (r->var == V_REPLACE) { /* the first of the pair holds sdev memory, the other rdev */
        t_dbuf b = t_dbuf_new(n, first ? r->sdev : r->rdev);
        fill(b.rw, n, seed_of(r, t_rank));
        t_dbuf_push(&b);
        char *ref = expected(r->t, c, seed_of(r, peer)), *mine = malloc(n + 1);
        char *other = expected_with(r->t, c, seed_of(r, peer), 0x11);
        fill(mine, n, seed_of(r, t_rank)); /* the holes keep the buffer's own bytes */
        for (size_t i = 0; i < n; i++)
            if (ref[i] != other[i]) ref[i] = mine[i];
        free(other);
        MPI_CHK(MPI_Sendrecv_replace(b.user, (int)c, ty, peer, r->tag, peer, r->tag, w, &st));
        t_dbuf_pull(&b);
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) bad += b.rw[i] != ref[i];
        CHECK(bad == 0, "%s: %zu of %zu bytes wrong", r->what, bad, n);
        check_count(&st, r->t, c, r->what);
        free(ref);
        free(mine);
        t_dbuf_free(&b);
        return;
    }
    t_dbuf s = t_dbuf_new(n, r->sdev), d = t_dbuf_new(n, r->rdev);
    fill(s.rw, n, seed_of(r, t_rank));
    memset(d.rw, 0xEE, n);
    t_dbuf_push(&s);
    t_dbuf_push(&d);
    if (r->var == V_SENDRECV) {
        MPI_CHK(MPI_Sendrecv(s.user, (int)c, ty, peer, r->tag, d.user, (int)c, ty, peer, r->tag,
                             w, &st));
    } else {
        MPI_CHK(MPI_Isendrecv(s.user, (int)c, ty, peer, r->tag, d.user, (int)c, ty, peer, r->tag,
                              w, &q));
        MPI_CHK(MPI_Wait(&q, &st));
    }
    check_count(&st, r->t, c, r->what);
    check_buf(&d, r->t, c, seed_of(r, peer), r->what);
    t_dbuf_free(&s);
    t_dbuf_free(&d);
}

static void run_round(round *r)
{
    static int ntag;
    r->tag = ntag++ % 30000;
    r->seed0 = (unsigned)r->tag * 31u;
    snprintf(r->what, sizeof r->what, "%s %s x%lld %s->%s", vname[r->var], r->t->name,
             (long long)r->count, r->sdev ? "dev" : "host", r->rdev ? "dev" : "host");
    bool both = r->var == V_SENDRECV || r->var == V_ISENDRECV || r->var == V_REPLACE;
    for (int p = 0; p < t_size; p++) {
        int s = p, d = (p + 1) % t_size;
        if (both && t_rank == s) exchange(r, d, true);
        else if (both && t_rank == d) exchange(r, s, false);
        else if (t_rank == s) one_way(r, d, true);
        else if (t_rank == d) one_way(r, s, false);
    }
}

/* Every device/host combination of one variant, type and byte size. */
static void all_kinds(int var, int type, size_t bytes)
{
    const ttype *t = &types[type];
    MPI_Count count = bytes ? (MPI_Count)((bytes + t->data - 1) / t->data) : 0;
    for (int k = 0; k < 4; k++) {
        round r = {.var = var, .sdev = k & 1, .rdev = k >> 1, .t = t, .count = count};
        run_round(&r);
    }
}

int main(int argc, char **argv)
{
    t_emul_request();
    t_init(&argc, &argv);
    if (t_size < 2) {
        if (t_rank == 0) printf(" No Errors\n");
        MPI_Finalize();
        return 0;
    }
    make_types();
    int bsize = 4 << 20;
    char *battach = malloc((size_t)bsize);
    MPI_Buffer_attach(battach, bsize);

    static const size_t all_sizes[] = {0, 1, 8, 4000, 65536, 1 << 20, 8 << 20};
    static const size_t typed_sizes[] = {0, 8, 4000, 65536, 1 << 20};
    static const size_t few_sizes[] = {0, 1, 65536};
    static const int main_vars[] = {V_SEND, V_ISEND, V_PERSIST, V_SENDRECV};
    for (size_t v = 0; v < sizeof main_vars / sizeof *main_vars; v++)
        for (size_t s = 0; s < sizeof all_sizes / sizeof *all_sizes; s++)
            all_kinds(main_vars[v], T_BYTES, all_sizes[s]);
    static const int typed_vars[] = {V_SEND, V_ISEND, V_SENDRECV, V_PERSIST};
    for (int t = T_VEC; t <= T_STRUCT; t++)
        for (size_t v = 0; v < sizeof typed_vars / sizeof *typed_vars; v++)
            for (size_t s = 0; s < sizeof typed_sizes / sizeof *typed_sizes; s++)
                all_kinds(typed_vars[v], t, typed_sizes[s]);
    for (int v = 0; v < V_N; v++) {
        for (size_t s = 0; s < sizeof few_sizes / sizeof *few_sizes; s++)
            all_kinds(v, T_BYTES, few_sizes[s]);
        all_kinds(v, T_VEC, 100);
        all_kinds(v, T_STRUCT, 100);
    }
    all_kinds(V_REPLACE, T_BYTES, 1 << 20);
    all_kinds(V_MPROBE, T_BYTES, 1 << 20);

    void *b;
    int bs;
    MPI_Buffer_detach(&b, &bs);
    free(battach);
    MPI_Type_free(&types[T_VEC].type);
    MPI_Type_free(&types[T_STRUCT].type);
    CHECK(nchecked > 0, "no buffer was checked");
    return t_finish();
}
