/* libfabric, loaded at run time: the library links nothing of libfabric,
 * so a job on one node never loads it (Debian's libfabric pulls in
 * libpsm2 and libpsm_infinipath, whose constructors spend about 0.2 s per
 * process probing for hardware: docs/results/2026-11-26-slurm-startup).
 * dmpi_ofi_load() dlopens libfabric.so.1 the first time a job spans
 * nodes. Almost all of libfabric's API is inline calls through the
 * objects' operation tables; the few real functions are reached through
 * the pointers below, which the names used in ofi*.c are mapped onto. */
#ifndef DMPI_OFI_DL_H
#define DMPI_OFI_DL_H

#include <rdma/fabric.h>
#include <stddef.h>

typedef struct dmpi_fi_api {
    int (*getinfo)(uint32_t version, const char *node, const char *service, uint64_t flags,
                   const struct fi_info *hints, struct fi_info **info);
    void (*freeinfo)(struct fi_info *info);
    struct fi_info *(*dupinfo)(const struct fi_info *info);
    int (*fabric)(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context);
    const char *(*strerror)(int errnum);
} dmpi_fi_api;

extern dmpi_fi_api dmpi_fi;

/* Loads libfabric once: 0, or -1 with a one-line reason in why. */
int dmpi_ofi_load(char *why, size_t n);

/* strerror that works before libfabric is loaded too */
const char *dmpi_fi_strerror(int errnum);

#define fi_getinfo dmpi_fi.getinfo
#define fi_freeinfo dmpi_fi.freeinfo
#define fi_dupinfo dmpi_fi.dupinfo
#define fi_fabric dmpi_fi.fabric
#define fi_strerror dmpi_fi_strerror
/* fabric.h's inline fi_allocinfo calls fi_dupinfo by its real name */
#define dmpi_fi_allocinfo() dmpi_fi.dupinfo(NULL)

#endif
