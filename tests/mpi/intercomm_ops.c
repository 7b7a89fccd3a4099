/* intercomm_ops.c: communicator calls on intercommunicators, from the text
 * of MPI 4.1 chapter 7:
 *  - MPI_Intercomm_create_from_groups (7.6.2) with leaders other than rank
 *    0 and uneven sides, and MPI_Comm_create_from_group (7.4.2);
 *  - MPI_Comm_create on an intercommunicator (7.4.2): each side gives a
 *    subgroup of its local group; the result is an intercommunicator
 *    between the two subgroups (in group order), MPI_COMM_NULL outside
 *    them and on both sides when either subgroup is empty;
 *  - MPI_Comm_split (color and key per side, both sides' parts joined),
 *    MPI_Comm_dup with attributes, names;
 *  - MPI_Comm_create_group refuses an intercommunicator (its comm is an
 *    intra-communicator) with MPI_ERR_COMM;
 *  - every result: local and remote groups (as MPI_COMM_WORLD ranks),
 *    an allreduce (gives the remote group's sum) and point-to-point
 *    between the ranks 0. Issue 22 (1). */
#include "common.h"

/* World ranks of the members of c's local (remote) group. */
static int world_of(MPI_Comm c, int remote, int *out)
{
    MPI_Group g, w;
    int n;
    MPI_CHK(remote ? MPI_Comm_remote_group(c, &g) : MPI_Comm_group(c, &g));
    MPI_CHK(MPI_Comm_group(MPI_COMM_WORLD, &w));
    MPI_CHK(MPI_Group_size(g, &n));
    int *idx = t_malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) idx[i] = i;
    MPI_CHK(MPI_Group_translate_ranks(g, n, idx, w, out));
    free(idx);
    MPI_CHK(MPI_Group_free(&g));
    MPI_CHK(MPI_Group_free(&w));
    return n;
}

/* ic is an intercommunicator between world ranks l[0..nl) (mine, in this
 * order) and r[0..nr). */
static void check_inter(MPI_Comm ic, const int *l, int nl, const int *r, int nr, const char *what)
{
    int flag = 0, got[64];
    MPI_CHK(MPI_Comm_test_inter(ic, &flag));
    CHECK(flag, "%s: not an intercommunicator", what);
    if (!flag) return;
    int n = world_of(ic, 0, got);
    CHECK(n == nl, "%s: local size %d, want %d", what, n, nl);
    for (int i = 0; i < n && i < nl; i++)
        CHECK(got[i] == l[i], "%s: local[%d] = %d, want %d", what, i, got[i], l[i]);
    n = world_of(ic, 1, got);
    CHECK(n == nr, "%s: remote size %d, want %d", what, n, nr);
    for (int i = 0; i < n && i < nr; i++)
        CHECK(got[i] == r[i], "%s: remote[%d] = %d, want %d", what, i, got[i], r[i]);
    int sum = 0, want = 0;
    for (int i = 0; i < nr; i++) want += r[i];
    MPI_CHK(MPI_Allreduce(&t_rank, &sum, 1, MPI_INT, MPI_SUM, ic));
    CHECK(sum == want, "%s: allreduce %d, want %d", what, sum, want);
    int rank;
    MPI_CHK(MPI_Comm_rank(ic, &rank));
    if (rank == 0) {
        int v = -1;
        MPI_CHK(MPI_Sendrecv(&t_rank, 1, MPI_INT, 0, 4, &v, 1, MPI_INT, 0, 4, ic,
                             MPI_STATUS_IGNORE));
        CHECK(v == r[0], "%s: rank 0 got %d, want %d", what, v, r[0]);
    }
}

/* Sides: world ranks below `cut` are side A, the rest side B. */
static int cut;
static int side_of(int w) { return w >= cut; }

/* The world ranks of my side (*mine) and of the other. */
static void sides(int *mine, int *nm, int *other, int *no)
{
    *nm = *no = 0;
    for (int w = 0; w < t_size; w++) {
        if (side_of(w) == side_of(t_rank)) mine[(*nm)++] = w;
        else other[(*no)++] = w;
    }
}

static MPI_Group world_incl(int n, const int *ranks)
{
    MPI_Group w, g;
    MPI_CHK(MPI_Comm_group(MPI_COMM_WORLD, &w));
    MPI_CHK(MPI_Group_incl(w, n, ranks, &g));
    MPI_CHK(MPI_Group_free(&w));
    return g;
}

static MPI_Comm from_groups(void)
{
    int mine[64], other[64], nm, no;
    sides(mine, &nm, other, &no);
    MPI_Group lg = world_incl(nm, mine), rg = world_incl(no, other);
    /* leaders: the last of side A, the first of side B */
    int ll = side_of(t_rank) ? 0 : nm - 1, rl = side_of(t_rank) ? no - 1 : 0;
    MPI_Comm ic, local;
    MPI_CHK(MPI_Intercomm_create_from_groups(lg, ll, rg, rl, "intercomm_ops", MPI_INFO_NULL,
                                             MPI_ERRORS_RETURN, &ic));
    check_inter(ic, mine, nm, other, no, "from_groups");
    MPI_Errhandler e;
    MPI_CHK(MPI_Comm_get_errhandler(ic, &e));
    CHECK(e == MPI_ERRORS_RETURN, "from_groups: error handler not the one given");
    MPI_CHK(MPI_Errhandler_free(&e));
    MPI_CHK(MPI_Comm_create_from_group(lg, "intercomm_ops local", MPI_INFO_NULL,
                                       MPI_ERRORS_ARE_FATAL, &local));
    int size, sum = 0, want = 0;
    MPI_CHK(MPI_Comm_size(local, &size));
    CHECK(size == nm, "from_group: size %d, want %d", size, nm);
    for (int i = 0; i < nm; i++) want += mine[i];
    MPI_CHK(MPI_Allreduce(&t_rank, &sum, 1, MPI_INT, MPI_SUM, local));
    CHECK(sum == want, "from_group: allreduce %d, want %d", sum, want);
    MPI_CHK(MPI_Comm_free(&local));
    MPI_CHK(MPI_Group_free(&lg));
    MPI_CHK(MPI_Group_free(&rg));
    return ic;
}

/* Comm_create with subgroups chosen by keep(side, index in side); the
 * subgroup of side A is given in reverse order. */
static void create(MPI_Comm ic, int (*keep)(int side, int i), const char *what)
{
    int mine[64], other[64], nm, no, sub[2][64], ns[2] = {0, 0};
    sides(mine, &nm, other, &no);
    int me = side_of(t_rank);
    const int *lists[2] = {me ? other : mine, me ? mine : other};
    int lens[2] = {me ? no : nm, me ? nm : no};
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < lens[s]; i++)
            if (keep(s, i)) sub[s][ns[s]++] = lists[s][i];
    for (int i = 0; i < ns[0] / 2; i++) { /* reverse side A's */
        int t = sub[0][i];
        sub[0][i] = sub[0][ns[0] - 1 - i];
        sub[0][ns[0] - 1 - i] = t;
    }
    MPI_Group g;
    if (ns[me]) g = world_incl(ns[me], sub[me]);
    else MPI_CHK(MPI_Group_incl(MPI_GROUP_EMPTY, 0, NULL, &g));
    MPI_Comm n;
    MPI_CHK(MPI_Comm_create(ic, g, &n));
    int in = 0;
    for (int i = 0; i < ns[me]; i++) in |= sub[me][i] == t_rank;
    if (in && ns[0] && ns[1]) {
        CHECK(n != MPI_COMM_NULL, "%s: got MPI_COMM_NULL", what);
        if (n != MPI_COMM_NULL) check_inter(n, sub[me], ns[me], sub[!me], ns[!me], what);
    } else {
        CHECK(n == MPI_COMM_NULL, "%s: want MPI_COMM_NULL", what);
    }
    if (n != MPI_COMM_NULL) MPI_CHK(MPI_Comm_free(&n));
    MPI_CHK(MPI_Group_free(&g));
}

static int keep_even(int s, int i) { (void)s; return i % 2 == 0; }
static int keep_not_first(int s, int i) { return s == 0 || i > 0; }
static int keep_none_of_b(int s, int i) { (void)i; return s == 0; }
static int keep_all(int s, int i) { (void)s, (void)i; return 1; }

static void split(MPI_Comm ic)
{
    int mine[64], other[64], nm, no;
    sides(mine, &nm, other, &no);
    int color = t_rank % 2, key = -t_rank; /* reverse order in each part */
    MPI_Comm n;
    MPI_CHK(MPI_Comm_split(ic, color, key, &n));
    int l[64], r[64], nl = 0, nr = 0;
    for (int i = nm - 1; i >= 0; i--)
        if (mine[i] % 2 == color) l[nl++] = mine[i];
    for (int i = no - 1; i >= 0; i--)
        if (other[i] % 2 == color) r[nr++] = other[i];
    if (nl && nr) {
        CHECK(n != MPI_COMM_NULL, "split: got MPI_COMM_NULL");
        if (n != MPI_COMM_NULL) check_inter(n, l, nl, r, nr, "split");
    } else {
        CHECK(n == MPI_COMM_NULL, "split: want MPI_COMM_NULL");
    }
    if (n != MPI_COMM_NULL) MPI_CHK(MPI_Comm_free(&n));
    MPI_CHK(MPI_Comm_split(ic, MPI_UNDEFINED, 0, &n));
    CHECK(n == MPI_COMM_NULL, "split undefined: want MPI_COMM_NULL");
}

static void dup_attr_name(MPI_Comm ic)
{
    int mine[64], other[64], nm, no;
    sides(mine, &nm, other, &no);
    int key;
    static int value = 42;
    MPI_CHK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    MPI_CHK(MPI_Comm_set_attr(ic, key, &value));
    MPI_CHK(MPI_Comm_set_name(ic, "an intercommunicator"));
    MPI_Comm d;
    MPI_CHK(MPI_Comm_dup(ic, &d));
    check_inter(d, mine, nm, other, no, "dup");
    int *v = NULL, flag = 0, len = 0;
    MPI_CHK(MPI_Comm_get_attr(d, key, &v, &flag));
    CHECK(flag && v == &value, "dup: attribute not copied (flag %d)", flag);
    char name[MPI_MAX_OBJECT_NAME];
    MPI_CHK(MPI_Comm_get_name(ic, name, &len));
    CHECK(!strcmp(name, "an intercommunicator"), "name '%s'", name);
    MPI_CHK(MPI_Comm_get_name(d, name, &len)); /* names are not copied */
    CHECK(strcmp(name, "an intercommunicator") != 0, "dup copied the name");
    MPI_CHK(MPI_Comm_free(&d));
    MPI_CHK(MPI_Comm_delete_attr(ic, key));
    MPI_CHK(MPI_Comm_free_keyval(&key));
}

static void create_group_refused(MPI_Comm ic)
{
    MPI_Group g;
    MPI_Comm n = MPI_COMM_NULL;
    MPI_CHK(MPI_Comm_group(ic, &g));
    CHECK_CLASS(MPI_Comm_create_group(ic, g, 0, &n), MPI_ERR_COMM);
    MPI_CHK(MPI_Group_free(&g));
}

static void merge(MPI_Comm ic)
{
    int mine[64], other[64], nm, no;
    sides(mine, &nm, other, &no);
    MPI_Comm m;
    int high = side_of(t_rank) == 0; /* side A goes last */
    MPI_CHK(MPI_Intercomm_merge(ic, high, &m));
    int rank, want = side_of(t_rank) ? 0 : no;
    for (int i = 0; i < nm; i++)
        if (mine[i] == t_rank) want += i;
    MPI_CHK(MPI_Comm_rank(m, &rank));
    CHECK(rank == want, "merge: rank %d, want %d", rank, want);
    MPI_CHK(MPI_Comm_free(&m));
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    if (t_size >= 2 && t_size <= 64) {
        for (cut = 1; cut < t_size; cut += (t_size > 4 ? 2 : 1)) {
            MPI_Comm ic = from_groups();
            create(ic, keep_even, "create even");
            create(ic, keep_not_first, "create not first");
            create(ic, keep_none_of_b, "create empty side");
            create(ic, keep_all, "create all");
            split(ic);
            dup_attr_name(ic);
            create_group_refused(ic);
            merge(ic);
            MPI_CHK(MPI_Comm_free(&ic));
        }
    }
    return t_finish();
}
