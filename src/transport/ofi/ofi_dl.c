/* Loads libfabric with dlopen when a job first needs it (see ofi_dl.h). */
#include "transport/ofi/ofi_dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

dmpi_fi_api dmpi_fi;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[256];

static void *need(void *h, const char *name)
{
    void *f = dlsym(h, name);
    if (!f && !load_error[0]) snprintf(load_error, sizeof load_error, "libfabric.so.1 has no %s", name);
    return f;
}

static void load(void)
{
    void *h = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(load_error, sizeof load_error, "cannot load libfabric.so.1 (%s); install libfabric1",
                 e ? e : "not found");
        return;
    }
    dmpi_fi_api api;
    *(void **)&api.getinfo = need(h, "fi_getinfo");
    *(void **)&api.freeinfo = need(h, "fi_freeinfo");
    *(void **)&api.dupinfo = need(h, "fi_dupinfo");
    *(void **)&api.fabric = need(h, "fi_fabric");
    *(void **)&api.strerror = need(h, "fi_strerror");
    if (load_error[0]) {
        dlclose(h);
        return;
    }
    dmpi_fi = api; /* the handle stays open: endpoints live until exit */
}

int dmpi_ofi_load(char *why, size_t n)
{
    pthread_once(&once, load);
    if (!load_error[0]) return 0;
    snprintf(why, n, "%s", load_error);
    return -1;
}

const char *dmpi_fi_strerror(int errnum)
{
    if (dmpi_fi.strerror) return dmpi_fi.strerror(errnum);
    return strerror(errnum); /* libfabric's codes below 256 are errno values */
}
