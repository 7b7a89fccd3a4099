/* The memory-kind front: picks the device backends at MPI_Init from
 * DMPI_ACCEL and what the machine has, classifies buffers by asking the
 * active backends, and sends each copy to the backend of its device side.
 * Host memory never gets here while dmpi_accel_on is false (accel.h). */
#include "accel/accel.h"
#include "core/knob.h"

#include <mpi.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool dmpi_accel_on;

enum { MAX_BACKENDS = 2 };
static const dmpi_accel_ops *active[MAX_BACKENDS];
static int nactive;
static bool inited;
/* The backend whose pinned blocks staging uses (pool.c): kept after fini,
 * so that a block freed late goes back where it came from. */
const dmpi_accel_ops *dmpi_accel_pinned_ops = &dmpi_accel_host_ops;
static bool cuda_found;
static char kinds_value[128] = "system,mpi";
static _Thread_local char last_error[256];

void dmpi_accel_set_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
}

const char *dmpi_accel_error(void) { return last_error[0] ? last_error : "no error"; }

static void activate(const dmpi_accel_ops *ops)
{
    if (nactive < MAX_BACKENDS && ops->init()) active[nactive++] = ops;
}

/* Says so on stderr when DMPI_ACCEL has a word dmpi does not know. */
static void check_words(const char *want)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", want);
    for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save))
        if (strcmp(w, "auto") && strcmp(w, "none") && strcmp(w, "cuda") && strcmp(w, "emul"))
            fprintf(stderr, "dmpi: DMPI_ACCEL: unknown backend \"%s\" ignored "
                            "(auto, none, cuda, emul)\n", w);
}

void dmpi_accel_init(void)
{
    if (inited) return;
    inited = true;
    char kb[DMPI_KNOB_STR_MAX];
    const char *want = dmpi_knob_str(DMPI_KNOB_ACCEL, kb);
    if (!want || !*want) want = "auto";
    check_words(want);
    bool all = strcmp(want, "auto") == 0;
    if (strcmp(want, "none") != 0 && (all || strstr(want, "cuda"))) {
        activate(&dmpi_accel_cuda_ops);
        cuda_found = nactive > 0;
        if (cuda_found) strcat(kinds_value, ",cuda:device,cuda:host,cuda:managed");
    }
    if (strstr(want, "emul")) {
        int before = nactive;
        activate(&dmpi_accel_emul_ops);
        if (nactive > before) strcat(kinds_value, ",emul:device");
    }
    dmpi_accel_on = nactive > 0;
    dmpi_accel_pinned_ops = nactive ? active[0] : &dmpi_accel_host_ops;
}

void dmpi_accel_fini(void)
{
    dmpi_accel_pool_drain();
    dmpi_accel_on = false;
    for (int i = 0; i < nactive; i++) active[i]->fini();
    nactive = 0;
    inited = false;
    cuda_found = false;
    strcpy(kinds_value, "system,mpi");
}

const char *dmpi_accel_alloc_kinds(void) { return kinds_value; }
int dmpi_accel_cuda_found(void) { return cuda_found; }

static const dmpi_accel_ops *owner(const void *p, dmpi_mem_info *info)
{
    for (int i = 0; i < nactive; i++)
        if (active[i]->classify(p, info)) return active[i];
    return NULL;
}

dmpi_mem_kind dmpi_accel_classify(const void *p, dmpi_mem_info *info)
{
    dmpi_mem_info tmp;
    if (!info) info = &tmp;
    if (!p || !owner(p, info)) {
        info->kind = DMPI_MEM_HOST;
        info->device = -1;
        info->buffer_id = 0;
    }
    return info->kind;
}

const char *dmpi_mem_kind_name(dmpi_mem_kind k)
{
    static const char *const names[DMPI_MEM_NKINDS] = {
        [DMPI_MEM_HOST] = "host memory",
        [DMPI_MEM_CUDA_DEVICE] = "CUDA device memory",
        [DMPI_MEM_CUDA_HOST] = "CUDA host-pinned memory",
        [DMPI_MEM_CUDA_MANAGED] = "CUDA managed memory",
        [DMPI_MEM_EMUL_DEVICE] = "emulated device memory",
    };
    return (unsigned)k < DMPI_MEM_NKINDS ? names[k] : "memory of an unknown kind";
}

static const struct {
    const char *name;
    dmpi_mem_kind kind;
} kind_names[] = {
    {"system", DMPI_MEM_HOST},
    {"mpi", DMPI_MEM_HOST},
    {"cuda:device", DMPI_MEM_CUDA_DEVICE},
    {"cuda:host", DMPI_MEM_CUDA_HOST},
    {"cuda:managed", DMPI_MEM_CUDA_MANAGED},
    {"emul:device", DMPI_MEM_EMUL_DEVICE},
};

int dmpi_mem_kind_from_name(const char *s)
{
    for (size_t i = 0; i < sizeof kind_names / sizeof kind_names[0]; i++)
        if (strcmp(s, kind_names[i].name) == 0) return (int)kind_names[i].kind;
    return -1;
}

/* The backend that handles memory of kind k, or NULL when none is active. */
static const dmpi_accel_ops *backend_of(dmpi_mem_kind k)
{
    const dmpi_accel_ops *want = k == DMPI_MEM_EMUL_DEVICE ? &dmpi_accel_emul_ops
                                 : k == DMPI_MEM_HOST      ? NULL
                                                           : &dmpi_accel_cuda_ops;
    for (int i = 0; i < nactive; i++)
        if (active[i] == want) return want;
    return NULL;
}

/* The backend for a copy: the one of its device side (host both sides:
 * the host backend). Two different device families have no path yet. */
static const dmpi_accel_ops *copy_backend(dmpi_mem_kind dk, dmpi_mem_kind sk)
{
    if (dk == DMPI_MEM_HOST && sk == DMPI_MEM_HOST) return &dmpi_accel_host_ops;
    const dmpi_accel_ops *d = backend_of(dk), *s = backend_of(sk);
    if (dk != DMPI_MEM_HOST && !d) {
        dmpi_accel_set_error("the destination is %s and that backend is off",
                             dmpi_mem_kind_name(dk));
        return NULL;
    }
    if (sk != DMPI_MEM_HOST && !s) {
        dmpi_accel_set_error("the source is %s and that backend is off", dmpi_mem_kind_name(sk));
        return NULL;
    }
    if (d && s && d != s) {
        dmpi_accel_set_error("copies between %s and %s are not implemented yet",
                             dmpi_mem_kind_name(sk), dmpi_mem_kind_name(dk));
        return NULL;
    }
    return d ? d : s;
}

int dmpi_accel_copy(void *dst, dmpi_mem_kind dk, const void *src, dmpi_mem_kind sk, size_t n)
{
    if (n == 0) return MPI_SUCCESS;
    const dmpi_accel_ops *b = copy_backend(dk, sk);
    return b ? b->copy(dst, dk, src, sk, n) : MPI_ERR_BUFFER;
}

int dmpi_accel_copy_async(void *dst, dmpi_mem_kind dk, const void *src, dmpi_mem_kind sk,
                          size_t n, dmpi_accel_xfer *c)
{
    memset(c, 0, sizeof *c);
    if (n == 0) return MPI_SUCCESS;
    const dmpi_accel_ops *b = copy_backend(dk, sk);
    if (!b) return MPI_ERR_BUFFER;
    *c = (dmpi_accel_xfer){.ops = b, .dst = dst, .src = src, .n = n, .dk = dk, .sk = sk};
    int rc = b->copy_start(c);
    if (rc != MPI_SUCCESS) c->ops = NULL;
    return rc;
}

int dmpi_accel_copy_test(dmpi_accel_xfer *c, bool *done)
{
    if (!c->ops) {
        *done = true;
        return MPI_SUCCESS;
    }
    int rc = c->ops->copy_test(c, done);
    if (rc != MPI_SUCCESS || *done) c->ops = NULL;
    return rc;
}

int dmpi_accel_copy_wait(dmpi_accel_xfer *c)
{
    bool done = false;
    int rc;
    while ((rc = dmpi_accel_copy_test(c, &done)) == MPI_SUCCESS && !done) {
    }
    return rc;
}

int dmpi_accel_dev_alloc(size_t n, dmpi_mem_kind kind, void **p)
{
    const dmpi_accel_ops *b = backend_of(kind);
    if (!b) {
        dmpi_accel_set_error("%s is not available (DMPI_ACCEL, driver)", dmpi_mem_kind_name(kind));
        return MPI_ERR_NO_MEM;
    }
    return b->dev_alloc(n, kind, p);
}

bool dmpi_accel_dev_free(void *p, int *rc)
{
    if (!dmpi_accel_on) return false;
    dmpi_mem_info info;
    const dmpi_accel_ops *b = owner(p, &info);
    if (!b) return false;
    *rc = b->dev_free(p);
    return true;
}
