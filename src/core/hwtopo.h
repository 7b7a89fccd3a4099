/* The hardware inside a node, for MPI_Get_hw_resource_info and the
 * hardware-guided splits of MPI_Comm_split_type (MPI 4.1 sec. 7.4.2 and
 * 11.4): which instance of each hwloc resource type (package, NUMA node,
 * caches, core, hardware thread) this process is restricted to, by its
 * current binding. From hwloc when the build found its headers and
 * libhwloc.so.15 loads at run time (hwtopo.c); otherwise no type is known
 * and only the node ("mpi_shared_memory") remains. */
#ifndef DMPI_CORE_HWTOPO_H
#define DMPI_CORE_HWTOPO_H

#include <stdbool.h>

/* The resource types, coarse to fine: 0 .. DMPI_HW_NTYPES-1. */
enum { DMPI_HW_NTYPES = 7 };

/* "hwloc://Package", "hwloc://NUMANode", "hwloc://L3Cache",
 * "hwloc://L2Cache", "hwloc://L1Cache", "hwloc://Core", "hwloc://PU". */
const char *dmpi_hw_type_name(int type);

/* The type a mpi_hw_resource_type value names ("hwloc://Core", or the bare
 * hwloc name "Core"), or -1. */
int dmpi_hw_type_of(const char *value);

/* Whether the node's topology is known (hwloc loaded and the topology read);
 * why it is not otherwise (why may be NULL). */
bool dmpi_hw_known(const char **why);

/* 1 and *instance (a number for that instance, unique on the node) when
 * this process's current binding lies within one instance of the type;
 * 0 when it spans several; -1 when the type does not exist here or the
 * topology is not known. */
int dmpi_hw_instance(int type, int *instance);

#endif
