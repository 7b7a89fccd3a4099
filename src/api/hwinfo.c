/* MPI_Get_hw_resource_info (MPI 4.1 sec. 9.x): an info object that
 * describes the hardware the calling process runs on, from what dmpi knows
 * and Linux's sysfs:
 *   mpi_hw_resource_type  the resource types MPI_COMM_TYPE_HW_GUIDED takes
 *                         here ("mpi_shared_memory": the node)
 *   dmpi_node             the host name
 *   dmpi_sockets, dmpi_cores, dmpi_hwthreads   processor packages, cores
 *                         and hardware threads online on the node
 *   dmpi_cpus_bound       hardware threads this process may run on
 *   dmpi_node_ranks       processes of this job on the node
 *   hwloc://Package, hwloc://NUMANode, hwloc://L3Cache, ..., hwloc://PU
 *                         (with hwloc, the types the node has): "true" when
 *                         this process's binding lies within one instance
 *                         of the type, else "false"; each key is a value
 *                         MPI_COMM_TYPE_HW_GUIDED's mpi_hw_resource_type
 *                         takes (core/hwtopo.c, api/comm.c) */
#include "api/api.h"
#include "core/hwtopo.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* An integer from a sysfs file, or -1. */
static int read_int(const char *path)
{
    FILE *f = fopen(path, "r");
    int v = -1;
    if (f) {
        if (fscanf(f, "%d", &v) != 1) v = -1;
        fclose(f);
    }
    return v;
}

/* Packages and cores of the online processors (the first 1024). */
static void count_topology(int *sockets, int *cores)
{
    enum { MAXC = 1024 };
    static int pkg_of[MAXC], core_of[MAXC];
    int n = 0;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    for (int cpu = 0; cpu < MAXC && n < online; cpu++) {
        char path[128];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
        int p = read_int(path);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/core_id", cpu);
        int c = read_int(path);
        if (p < 0 && c < 0) continue;
        pkg_of[n] = p;
        core_of[n] = c;
        n++;
    }
    *sockets = *cores = 0;
    for (int i = 0; i < n; i++) {
        bool new_pkg = true, new_core = true;
        for (int j = 0; j < i; j++) {
            if (pkg_of[j] == pkg_of[i]) new_pkg = false;
            if (pkg_of[j] == pkg_of[i] && core_of[j] == core_of[i]) new_core = false;
        }
        *sockets += new_pkg;
        *cores += new_core;
    }
    if (n == 0) { /* no sysfs: one package of online processors */
        *sockets = 1;
        *cores = (int)online;
    }
}

static int set_int(dmpi_info *in, const char *key, long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%ld", v);
    return dmpi_info_set_kv(in, key, buf);
}

int PMPI_Get_hw_resource_info(MPI_Info *hw_info)
{
    static const char *const FN = "MPI_Get_hw_resource_info";
    DMPI_CHECK_INIT(FN);
    DMPI_CHECK(NULL, hw_info, MPI_ERR_ARG, FN, "hw_info is NULL");
    dmpi_info *in = dmpi_info_new();
    if (!in) return dmpi_error_noobj(MPI_ERR_NO_MEM, FN, "out of memory");
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    int sockets, cores;
    count_topology(&sockets, &cores);
    cpu_set_t mask;
    long bound = sched_getaffinity(0, sizeof mask, &mask) == 0 ? CPU_COUNT(&mask) : -1;
    int rc = dmpi_info_set_kv(in, "mpi_hw_resource_type", "mpi_shared_memory");
    if (rc == MPI_SUCCESS) rc = dmpi_info_set_kv(in, "dmpi_node", host);
    if (rc == MPI_SUCCESS) rc = set_int(in, "dmpi_sockets", sockets);
    if (rc == MPI_SUCCESS) rc = set_int(in, "dmpi_cores", cores);
    if (rc == MPI_SUCCESS) rc = set_int(in, "dmpi_hwthreads", sysconf(_SC_NPROCESSORS_ONLN));
    if (rc == MPI_SUCCESS && bound > 0) rc = set_int(in, "dmpi_cpus_bound", bound);
    if (rc == MPI_SUCCESS) rc = set_int(in, "dmpi_node_ranks", dmpi_rt.local_size > 0 ? dmpi_rt.local_size : 1);
    for (int t = 0; t < DMPI_HW_NTYPES && rc == MPI_SUCCESS; t++) { /* with hwloc */
        int instance, r = dmpi_hw_instance(t, &instance);
        if (r >= 0) rc = dmpi_info_set_kv(in, dmpi_hw_type_name(t), r ? "true" : "false");
    }
    if (rc != MPI_SUCCESS) {
        dmpi_info_free(in);
        return dmpi_error_noobj(rc, FN, "cannot fill the info object");
    }
    *hw_info = dmpi_info_handle(in);
    return MPI_SUCCESS;
}
DMPI_ALIAS(Get_hw_resource_info)
