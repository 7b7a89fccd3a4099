/* dtype_lifetime.c: freeing datatypes. A type freed by the user stays
 * alive while another type is built on it or a pending operation uses it:
 * inner types freed right after building the outer one, a receive posted
 * with a type that is freed before the message arrives (eager and
 * rendezvous sizes), persistent requests whose type was freed, a dup that
 * outlives its original; and many create/free cycles. */
#include "common.h"

static void fill(int *a, long n, int base)
{
    for (long i = 0; i < n; i++) a[i] = (int)(base + i);
}

/* Outer types keep their freed inner types alive. */
static void test_nested_free(void)
{
    MPI_Datatype a, b, c;
    MPI_Type_vector(3, 1, 2, MPI_INT, &a);      /* ints 0 2 4, extent 5 */
    MPI_Type_contiguous(2, a, &b);              /* ints 0 2 4 5 7 9 */
    MPI_Type_free(&a);
    MPI_Type_create_resized(b, 0, 12 * sizeof(int), &c);
    MPI_Type_free(&b);
    MPI_Type_commit(&c);
    int src[36], dst[18];
    fill(src, 36, 100 * t_rank);
    int peer = t_partner();
    MPI_CHK(MPI_Sendrecv(src, 3, c, peer, 1, dst, 18, MPI_INT, peer, 1, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
    static const int pick[6] = {0, 2, 4, 5, 7, 9};
    for (int e = 0; e < 3; e++)
        for (int k = 0; k < 6; k++)
            CHECK(dst[e * 6 + k] == 100 * peer + 12 * e + pick[k], "nested: element %d.%d is %d",
                  e, k, dst[e * 6 + k]);
    MPI_Datatype d;
    MPI_Type_dup(c, &d);
    MPI_Type_free(&c);
    int pos = 0;
    char buf[128];
    MPI_CHK(MPI_Pack(src, 1, d, buf, sizeof buf, &pos, MPI_COMM_WORLD)); /* dup was committed */
    CHECK(pos == 24, "dup of a freed type packs %d bytes", pos);
    MPI_Type_free(&d);
}

/* A receive holds its type: freed before the data comes. */
static void test_pending(long n)
{
    int peer = t_partner();
    MPI_Datatype v;
    MPI_Type_vector((int)n, 1, 3, MPI_INT, &v);
    MPI_Type_commit(&v);
    int *src = t_malloc(n * sizeof(int)), *dst = t_malloc(3 * n * sizeof(int));
    fill(src, n, t_rank * 7);
    for (long i = 0; i < 3 * n; i++) dst[i] = -1;
    MPI_Request r;
    MPI_CHK(MPI_Irecv(dst, 1, v, peer, 2, MPI_COMM_WORLD, &r));
    MPI_CHK(MPI_Type_free(&v));
    MPI_Barrier(MPI_COMM_WORLD); /* every receive is posted, its type freed */
    MPI_CHK(MPI_Send(src, (int)n, MPI_INT, peer, 2, MPI_COMM_WORLD));
    MPI_Status st;
    MPI_CHK(MPI_Wait(&r, &st));
    long bad = 0;
    for (long i = 0; i < 3 * n; i++) {
        int want = i % 3 ? -1 : (int)(peer * 7 + i / 3);
        if (dst[i] != want && bad++ < 3)
            CHECK(0, "pending receive (%ld ints): int %ld is %d, want %d", n, i, dst[i], want);
    }
    free(src);
    free(dst);
}

/* Persistent requests keep their type across starts. */
static void test_persistent(void)
{
    int peer = t_partner();
    MPI_Datatype s, r;
    MPI_Type_vector(100, 2, 4, MPI_DOUBLE, &s);
    MPI_Type_contiguous(200, MPI_DOUBLE, &r);
    MPI_Type_commit(&s);
    MPI_Type_commit(&r);
    double src[400], dst[200];
    MPI_Request req[2];
    MPI_CHK(MPI_Recv_init(dst, 1, r, peer, 3, MPI_COMM_WORLD, &req[0]));
    MPI_CHK(MPI_Send_init(src, 1, s, peer, 3, MPI_COMM_WORLD, &req[1]));
    MPI_Type_free(&s);
    MPI_Type_free(&r);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 400; i++) src[i] = round * 1000 + i + t_rank * 0.5;
        MPI_CHK(MPI_Startall(2, req));
        MPI_CHK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
        for (int k = 0; k < 200; k++) {
            double want = round * 1000 + (k / 2) * 4 + k % 2 + peer * 0.5;
            if (dst[k] != want) {
                CHECK(0, "persistent round %d: element %d is %g, want %g", round, k, dst[k], want);
                break;
            }
        }
    }
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);
}

/* Many types made and freed, including ones used by other types. */
static void test_churn(void)
{
    for (int i = 0; i < 5000; i++) {
        MPI_Datatype a, b;
        MPI_Type_vector(i % 7 + 1, 2, 3, MPI_INT, &a);
        MPI_Type_create_hvector(2, 1, 64, a, &b);
        MPI_Type_free(&a);
        MPI_Type_commit(&b);
        int size = 0;
        MPI_Type_size(b, &size);
        if (size != 2 * 2 * (i % 7 + 1) * 4) {
            CHECK(0, "churn %d: size %d", i, size);
            break;
        }
        MPI_Type_free(&b);
    }
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    test_nested_free();
    test_pending(10);
    test_pending(100000); /* rendezvous */
    test_persistent();
    test_churn();
    return t_finish();
}
