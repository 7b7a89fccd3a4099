/* The hardware inside a node (hwtopo.h), from hwloc. Only hwloc's headers
 * are used to build: libhwloc.so.15 (hwloc 2.x) is loaded with dlopen the
 * first time a program asks (MPI_Get_hw_resource_info, a hardware-guided
 * MPI_Comm_split_type), so the library links nothing of hwloc, programs
 * that never ask never load it, and a machine without it answers with the
 * node alone. The topology is read once and kept until the process ends
 * (MPI_Get_hw_resource_info may also be called outside MPI's lifetime);
 * the binding is read on every question, since a program may rebind. */
#include "core/hwtopo.h"

#include <stddef.h>
#include <string.h>

static const char *const type_names[DMPI_HW_NTYPES] = {
    "hwloc://Package", "hwloc://NUMANode", "hwloc://L3Cache", "hwloc://L2Cache",
    "hwloc://L1Cache", "hwloc://Core",     "hwloc://PU",
};

const char *dmpi_hw_type_name(int type)
{
    return type >= 0 && type < DMPI_HW_NTYPES ? type_names[type] : NULL;
}

int dmpi_hw_type_of(const char *value)
{
    static const char prefix[] = "hwloc://";
    for (int t = 0; value && t < DMPI_HW_NTYPES; t++)
        if (strcmp(value, type_names[t]) == 0 || strcmp(value, type_names[t] + sizeof prefix - 1) == 0) return t;
    return -1;
}

#ifdef DMPI_HAVE_HWLOC
#include <dlfcn.h>
#include <hwloc.h>
#include <pthread.h>

#if HWLOC_API_VERSION < 0x00020000
#error "hwloc 2.x headers are needed (libhwloc.so.15)"
#endif

static const hwloc_obj_type_t hw_types[DMPI_HW_NTYPES] = {
    HWLOC_OBJ_PACKAGE, HWLOC_OBJ_NUMANODE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L2CACHE,
    HWLOC_OBJ_L1CACHE, HWLOC_OBJ_CORE,     HWLOC_OBJ_PU,
};

/* the few entry points used, from the loaded library */
static struct {
    unsigned (*api_version)(void);
    int (*topology_init)(hwloc_topology_t *);
    int (*topology_load)(hwloc_topology_t);
    void (*topology_destroy)(hwloc_topology_t);
    int (*type_depth)(hwloc_topology_t, hwloc_obj_type_t);
    unsigned (*nbobjs_by_depth)(hwloc_topology_t, int);
    hwloc_obj_t (*obj_by_depth)(hwloc_topology_t, int, unsigned);
    int (*get_cpubind)(hwloc_topology_t, hwloc_cpuset_t, int);
    hwloc_bitmap_t (*bitmap_alloc)(void);
    void (*bitmap_free)(hwloc_bitmap_t);
    int (*bitmap_isincluded)(hwloc_const_bitmap_t, hwloc_const_bitmap_t);
} hw;

static hwloc_topology_t topo;
static const char *not_known = "not looked at yet";
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
    void *h = dlopen("libhwloc.so.15", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        not_known = "libhwloc.so.15 (hwloc 2.x) cannot be loaded";
        return;
    }
#define SYM(field, name) (*(void **)&hw.field = dlsym(h, name)) != NULL
    bool all = SYM(api_version, "hwloc_get_api_version") && SYM(topology_init, "hwloc_topology_init") &&
               SYM(topology_load, "hwloc_topology_load") && SYM(topology_destroy, "hwloc_topology_destroy") &&
               SYM(type_depth, "hwloc_get_type_depth") && SYM(nbobjs_by_depth, "hwloc_get_nbobjs_by_depth") &&
               SYM(obj_by_depth, "hwloc_get_obj_by_depth") && SYM(get_cpubind, "hwloc_get_cpubind") &&
               SYM(bitmap_alloc, "hwloc_bitmap_alloc") && SYM(bitmap_free, "hwloc_bitmap_free") &&
               SYM(bitmap_isincluded, "hwloc_bitmap_isincluded");
#undef SYM
    if (!all || (hw.api_version() >> 16) != (HWLOC_API_VERSION >> 16)) {
        not_known = "the loaded libhwloc is not the hwloc 2.x dmpi was built with";
        dlclose(h);
        return;
    }
    hwloc_topology_t t;
    if (hw.topology_init(&t) != 0) {
        not_known = "hwloc cannot start";
        return;
    }
    if (hw.topology_load(t) != 0) {
        hw.topology_destroy(t);
        not_known = "hwloc cannot read the topology";
        return;
    }
    topo = t; /* the library stays loaded for it */
    not_known = NULL;
}

bool dmpi_hw_known(const char **why)
{
    pthread_once(&once, load);
    if (why) *why = not_known;
    return topo != NULL;
}

int dmpi_hw_instance(int type, int *instance)
{
    if (type < 0 || type >= DMPI_HW_NTYPES || !dmpi_hw_known(NULL)) return -1;
    int depth = hw.type_depth(topo, hw_types[type]);
    if (depth == HWLOC_TYPE_DEPTH_UNKNOWN || depth == HWLOC_TYPE_DEPTH_MULTIPLE) return -1;
    hwloc_bitmap_t bound = hw.bitmap_alloc();
    if (!bound) return 0;
    int found = 0;
    if (hw.get_cpubind(topo, bound, HWLOC_CPUBIND_PROCESS) == 0) {
        unsigned n = hw.nbobjs_by_depth(topo, depth);
        for (unsigned i = 0; i < n && !found; i++) {
            hwloc_obj_t o = hw.obj_by_depth(topo, depth, i);
            if (o && o->cpuset && hw.bitmap_isincluded(bound, o->cpuset)) {
                *instance = (int)o->logical_index;
                found = 1;
            }
        }
    }
    hw.bitmap_free(bound);
    return found;
}

#else /* built without hwloc's headers */

bool dmpi_hw_known(const char **why)
{
    if (why) *why = "dmpi was built without hwloc (Debian: libhwloc-dev)";
    return false;
}

int dmpi_hw_instance(int type, int *instance)
{
    (void)type;
    (void)instance;
    return -1;
}

#endif
