/* coll_minmaxloc.c: MPI_MINLOC and MPI_MAXLOC with MPI_Reduce and
 * MPI_Allreduce on the pair types MPI_2INT, MPI_DOUBLE_INT, MPI_FLOAT_INT,
 * MPI_LONG_INT and MPI_SHORT_INT.  Values repeat across ranks so that ties
 * occur: the result must carry the extreme value and, among equal values,
 * the smallest index.  Counts 1 to 1000, several roots, MPI_IN_PLACE. */
#include "common.h"

struct i2 { int v, i; };
struct di { double v; int i; };
struct fi { float v; int i; };
struct li { long v; int i; };
struct si { short v; int i; };

/* Value and index that rank r contributes at position k. */
static int val_of(int r, int k)
{
    return (r * 7 + k * 3) % 5 - 2;
}
static int idx_of(int r, int k)
{
    return (r * 13 + k) % 17 + 100 * r;
}

static void expect(int k, int maxloc, int nranks, int *v, int *i)
{
    *v = val_of(0, k);
    *i = idx_of(0, k);
    for (int r = 1; r < nranks; r++) {
        int x = val_of(r, k), j = idx_of(r, k);
        if ((maxloc ? x > *v : x < *v) || (x == *v && j < *i)) {
            *v = x;
            *i = j;
        }
    }
}

/* The test for one pair type, T its C struct. */
#define DEFINE_RUN(NAME, T)                                                              \
    static void run_##NAME(MPI_Datatype dt, const char *tname, int count, int maxloc,    \
                           int root, int in_place)                                       \
    {                                                                                    \
        T *in = t_malloc((size_t)count * sizeof(T)), *out = t_malloc((size_t)count * sizeof(T)); \
        for (int k = 0; k < count; k++) {                                                \
            in[k].v = val_of(t_rank, k);                                                 \
            in[k].i = idx_of(t_rank, k);                                                 \
            out[k].v = 99;                                                               \
            out[k].i = -1;                                                               \
        }                                                                                \
        MPI_Op op = maxloc ? MPI_MAXLOC : MPI_MINLOC;                                    \
        int iamroot = root < 0 || root == t_rank;                                        \
        const void *sb = in;                                                             \
        if (in_place && iamroot) {                                                       \
            memcpy(out, in, (size_t)count * sizeof(T));                                  \
            sb = MPI_IN_PLACE;                                                           \
        }                                                                                \
        if (root < 0)                                                                    \
            MPI_CHK(MPI_Allreduce(sb, out, count, dt, op, MPI_COMM_WORLD));              \
        else                                                                             \
            MPI_CHK(MPI_Reduce(sb, out, count, dt, op, root, MPI_COMM_WORLD));           \
        if (iamroot)                                                                     \
            for (int k = 0; k < count; k++) {                                            \
                int wv, wi;                                                              \
                expect(k, maxloc, t_size, &wv, &wi);                                     \
                if ((int)out[k].v != wv || out[k].i != wi) {                             \
                    CHECK(0, "%s %s%s root %d count %d: element %d is (%d, %d), want "     \
                          "(%d, %d)", maxloc ? "MAXLOC" : "MINLOC", tname,               \
                          in_place ? " in place" : "", root, count, k, (int)out[k].v,   \
                          out[k].i, wv, wi);                                             \
                    break;                                                               \
                }                                                                        \
            }                                                                            \
        free(in);                                                                        \
        free(out);                                                                       \
    }

DEFINE_RUN(i2, struct i2)
DEFINE_RUN(di, struct di)
DEFINE_RUN(fi, struct fi)
DEFINE_RUN(li, struct li)
DEFINE_RUN(si, struct si)

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    static const int counts[] = { 1, 10, 1000 };
    int roots[3] = { -1, 0, t_size - 1 };
    for (int c = 0; c < 3; c++)
        for (int maxloc = 0; maxloc < 2; maxloc++)
            for (int ri = 0; ri < 3; ri++) {
                int n = counts[c], root = roots[ri], inp = (c + ri) % 2;
                run_i2(MPI_2INT, "MPI_2INT", n, maxloc, root, inp);
                run_di(MPI_DOUBLE_INT, "MPI_DOUBLE_INT", n, maxloc, root, inp);
                run_fi(MPI_FLOAT_INT, "MPI_FLOAT_INT", n, maxloc, root, !inp);
                run_li(MPI_LONG_INT, "MPI_LONG_INT", n, maxloc, root, inp);
                run_si(MPI_SHORT_INT, "MPI_SHORT_INT", n, maxloc, root, !inp);
            }
    return t_finish();
}
