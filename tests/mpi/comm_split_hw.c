/* comm_split_hw: MPI_Get_hw_resource_info and the hardware splits of
 * MPI_Comm_split_type (MPI 4.1 sec. 7.4.2). Each rank binds itself to one
 * processor (local rank modulo the processors it may use), then:
 *   - every "hwloc://TYPE" key of the hardware info is "true" or "false"
 *     (none without hwloc: the node-level checks still run);
 *   - MPI_COMM_TYPE_HW_GUIDED with each such key: a rank whose value is
 *     "true" gets a communicator inside its node communicator
 *     (MPI_COMM_TYPE_SHARED), "false" gets MPI_COMM_NULL; MPI_COMM_TYPE_
 *     RESOURCE_GUIDED gives the same sizes;
 *   - "hwloc://PU": exactly the ranks of the node bound to the same
 *     processor, ordered by key (reversed here);
 *   - "mpi_shared_memory": the node communicator; an unknown type, or no
 *     info: MPI_COMM_NULL everywhere;
 *   - MPI_COMM_TYPE_HW_UNGUIDED: a strict subset of the parent, or
 *     MPI_COMM_NULL, and the same on MPI_COMM_SELF (nothing is smaller:
 *     MPI_COMM_NULL). */
#include "common.h"

#include <sched.h>

static int size_of(MPI_Comm c)
{
    int s = -1;
    if (c != MPI_COMM_NULL) MPI_CHK(MPI_Comm_size(c, &s));
    return s;
}

static MPI_Comm split_guided(int type, const char *resource, int key)
{
    MPI_Info in = MPI_INFO_NULL;
    if (resource) {
        MPI_CHK(MPI_Info_create(&in));
        MPI_CHK(MPI_Info_set(in, "mpi_hw_resource_type", resource));
    }
    MPI_Comm c;
    MPI_CHK(MPI_Comm_split_type(MPI_COMM_WORLD, type, key, in, &c));
    if (in != MPI_INFO_NULL) MPI_CHK(MPI_Info_free(&in));
    return c;
}

/* Are all members of c members of node? */
static int inside(MPI_Comm c, MPI_Comm node)
{
    MPI_Group gc, gn;
    MPI_CHK(MPI_Comm_group(c, &gc));
    MPI_CHK(MPI_Comm_group(node, &gn));
    int n = size_of(c), ok = 1;
    for (int i = 0; i < n; i++) {
        int r;
        MPI_CHK(MPI_Group_translate_ranks(gc, 1, &i, gn, &r));
        ok &= r != MPI_UNDEFINED;
    }
    MPI_Group_free(&gc);
    MPI_Group_free(&gn);
    return ok;
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv);
    MPI_Comm node;
    MPI_CHK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int local = -1;
    MPI_CHK(MPI_Comm_rank(node, &local));

    /* bind to one of the processors this rank may use */
    cpu_set_t mask;
    int cpu = -1;
    if (sched_getaffinity(0, sizeof mask, &mask) == 0) {
        int n = CPU_COUNT(&mask), want = local % (n > 0 ? n : 1);
        for (int c = 0, seen = 0; c < CPU_SETSIZE && cpu < 0; c++)
            if (CPU_ISSET(c, &mask) && seen++ == want) cpu = c;
        CPU_ZERO(&mask);
        CPU_SET(cpu, &mask);
        if (cpu < 0 || sched_setaffinity(0, sizeof mask, &mask) != 0) cpu = -1;
    }
    int *cpus = malloc(sizeof *cpus * (size_t)t_size), *in_node = malloc(sizeof *in_node * (size_t)t_size);
    MPI_CHK(MPI_Allgather(&cpu, 1, MPI_INT, cpus, 1, MPI_INT, MPI_COMM_WORLD));
    /* which world ranks share my node */
    MPI_Group gw, gn;
    MPI_CHK(MPI_Comm_group(MPI_COMM_WORLD, &gw));
    MPI_CHK(MPI_Comm_group(node, &gn));
    for (int i = 0; i < t_size; i++) MPI_CHK(MPI_Group_translate_ranks(gw, 1, &i, gn, &in_node[i]));

    MPI_Info hw;
    MPI_CHK(MPI_Get_hw_resource_info(&hw));
    int nkeys = 0;
    MPI_CHK(MPI_Info_get_nkeys(hw, &nkeys));
    int ntypes = 0;
    for (int k = 0; k < nkeys; k++) {
        char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
        int len = (int)sizeof val, flag = 0;
        MPI_CHK(MPI_Info_get_nthkey(hw, k, key));
        if (strncmp(key, "hwloc://", 8) != 0) continue;
        MPI_CHK(MPI_Info_get_string(hw, key, &len, val, &flag));
        CHECK(flag && (!strcmp(val, "true") || !strcmp(val, "false")), "%s = '%s'", key, val);
        ntypes++;
    }
    /* every rank asks for every type any rank has (the split is collective) */
    int most = 0;
    MPI_CHK(MPI_Allreduce(&ntypes, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    CHECK(ntypes == most, "%d hwloc types here, %d elsewhere", ntypes, most);
    static const char *const types[] = {"hwloc://Package", "hwloc://NUMANode", "hwloc://L3Cache",
                                        "hwloc://L2Cache", "hwloc://L1Cache", "hwloc://Core", "hwloc://PU"};
    for (int t = 0; t < 7 && most > 0; t++) {
        char val[16] = "";
        int len = (int)sizeof val, flag = 0;
        MPI_CHK(MPI_Info_get_string(hw, types[t], &len, val, &flag));
        int key = t_size - t_rank; /* reversed order */
        MPI_Comm c = split_guided(MPI_COMM_TYPE_HW_GUIDED, types[t], key);
        MPI_Comm r = split_guided(MPI_COMM_TYPE_RESOURCE_GUIDED, types[t], key);
        int bound = flag && !strcmp(val, "true");
        CHECK(bound == (c != MPI_COMM_NULL), "%s = '%s' but the split gave %s", types[t], val,
              c == MPI_COMM_NULL ? "MPI_COMM_NULL" : "a communicator");
        CHECK(size_of(c) == size_of(r), "%s: HW_GUIDED size %d, RESOURCE_GUIDED %d", types[t], size_of(c),
              size_of(r));
        if (c != MPI_COMM_NULL) {
            CHECK(inside(c, node), "%s: a member is not on this node", types[t]);
            if (t == 6 && cpu >= 0) { /* PU: the ranks of the node bound to my processor, key order */
                int want = 0, below = 0, rank = -1;
                for (int i = 0; i < t_size; i++)
                    if (in_node[i] != MPI_UNDEFINED && cpus[i] == cpu) want++, below += i > t_rank;
                MPI_CHK(MPI_Comm_rank(c, &rank));
                CHECK(size_of(c) == want && rank == below, "PU split: rank %d of %d, want %d of %d", rank,
                      size_of(c), below, want);
            }
            MPI_CHK(MPI_Comm_free(&c));
        }
        if (r != MPI_COMM_NULL) MPI_CHK(MPI_Comm_free(&r));
    }
    MPI_CHK(MPI_Info_free(&hw));

    MPI_Comm c = split_guided(MPI_COMM_TYPE_HW_GUIDED, "mpi_shared_memory", 0);
    CHECK(size_of(c) == size_of(node), "mpi_shared_memory: size %d, node %d", size_of(c), size_of(node));
    if (c != MPI_COMM_NULL) MPI_CHK(MPI_Comm_free(&c));
    c = split_guided(MPI_COMM_TYPE_HW_GUIDED, "no-such-resource", 0);
    CHECK(c == MPI_COMM_NULL, "an unknown resource type gave a communicator");
    c = split_guided(MPI_COMM_TYPE_HW_GUIDED, NULL, 0);
    CHECK(c == MPI_COMM_NULL, "HW_GUIDED without info gave a communicator");

    MPI_CHK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &c));
    CHECK(c == MPI_COMM_NULL || (size_of(c) < t_size && inside(c, node)), "unguided: size %d of %d", size_of(c),
          t_size);
    if (c != MPI_COMM_NULL) MPI_CHK(MPI_Comm_free(&c));
    /* again with an info: it gets the level the result stands for, a value
     * HW_GUIDED takes, which must give the same communicator's size */
    MPI_Info lv;
    MPI_CHK(MPI_Info_create(&lv));
    MPI_CHK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, lv, &c));
    char level[MPI_MAX_INFO_VAL + 1] = "";
    int len = (int)sizeof level, flag = 0;
    MPI_CHK(MPI_Info_get_string(lv, "mpi_hw_resource_type", &len, level, &flag));
    CHECK((c != MPI_COMM_NULL) == (flag != 0), "unguided: %s, and the info %s the level",
          c != MPI_COMM_NULL ? "a communicator" : "MPI_COMM_NULL", flag ? "names" : "does not name");
    int any = flag, every = flag;
    MPI_CHK(MPI_Allreduce(&flag, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD));
    MPI_CHK(MPI_Allreduce(&flag, &every, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
    if (any && every) { /* the same level everywhere: split by it, guided */
        MPI_Comm g = split_guided(MPI_COMM_TYPE_HW_GUIDED, level, 0);
        CHECK(size_of(g) == size_of(c), "unguided level %s: size %d, guided %d", level, size_of(c), size_of(g));
        if (g != MPI_COMM_NULL) MPI_CHK(MPI_Comm_free(&g));
    }
    if (c != MPI_COMM_NULL) MPI_CHK(MPI_Comm_free(&c));
    MPI_CHK(MPI_Info_free(&lv));
    MPI_CHK(MPI_Comm_split_type(MPI_COMM_SELF, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &c));
    CHECK(c == MPI_COMM_NULL, "unguided on MPI_COMM_SELF gave a communicator");

    MPI_Group_free(&gw);
    MPI_Group_free(&gn);
    MPI_CHK(MPI_Comm_free(&node));
    free(cpus);
    free(in_node);
    return t_finish();
}
