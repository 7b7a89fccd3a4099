/* The CUDA memory-kind backend. libcuda.so.1 is loaded with dlopen at
 * MPI_Init (only the toolkit's cuda.h is used to build), so the library
 * links nothing of CUDA and a machine without the driver or a GPU runs
 * host-only jobs as before: the backend is simply off. Buffers are
 * classified by cuPointerGetAttributes (memory type, managed flag,
 * device ordinal, buffer id); copies use unified addressing (cuMemcpy,
 * and cuMemcpyAsync on the backend's stream with an event per copy).
 * Built only with DMPI_HAVE_CUDA; otherwise every entry says so. */
#include "accel/accel.h"
#include "core/knob.h"

#include <mpi.h>

#ifdef DMPI_HAVE_CUDA

#include <cuda.h>
#include <dlfcn.h>
#include <stdlib.h>

/* The driver entry points: field, prototype in cuda.h, exported symbol. */
#define CU_FUNCS(X)                                                          \
    X(Init, cuInit, "cuInit")                                                \
    X(DeviceGetCount, cuDeviceGetCount, "cuDeviceGetCount")                  \
    X(DeviceGet, cuDeviceGet, "cuDeviceGet")                                 \
    X(PrimaryCtxRetain, cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") \
    X(PrimaryCtxRelease, cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2") \
    X(CtxGetCurrent, cuCtxGetCurrent, "cuCtxGetCurrent")                     \
    X(CtxSetCurrent, cuCtxSetCurrent, "cuCtxSetCurrent")                     \
    X(PointerGetAttributes, cuPointerGetAttributes, "cuPointerGetAttributes") \
    X(Memcpy, cuMemcpy, "cuMemcpy")                                          \
    X(MemcpyAsync, cuMemcpyAsync, "cuMemcpyAsync")                           \
    X(StreamCreate, cuStreamCreate, "cuStreamCreate")                        \
    X(StreamDestroy, cuStreamDestroy, "cuStreamDestroy_v2")                  \
    X(EventCreate, cuEventCreate, "cuEventCreate")                           \
    X(EventRecord, cuEventRecord, "cuEventRecord")                           \
    X(EventQuery, cuEventQuery, "cuEventQuery")                              \
    X(EventDestroy, cuEventDestroy, "cuEventDestroy_v2")                     \
    X(MemAlloc, cuMemAlloc, "cuMemAlloc_v2")                                 \
    X(MemAllocManaged, cuMemAllocManaged, "cuMemAllocManaged")               \
    X(MemFree, cuMemFree, "cuMemFree_v2")                                    \
    X(MemHostAlloc, cuMemHostAlloc, "cuMemHostAlloc")                        \
    X(MemFreeHost, cuMemFreeHost, "cuMemFreeHost")                           \
    X(GetErrorString, cuGetErrorString, "cuGetErrorString")

#define CU_FIELD(field, proto, sym) __typeof__(proto) *field;
static struct {
    CU_FUNCS(CU_FIELD)
} cu;

static void *lib;
static CUdevice dev;
static CUcontext primary;
static CUstream stream;

/* Records a failed driver call as the backend's error; returns its class. */
static int cu_fail(CUresult r, const char *what)
{
    const char *s = NULL;
    if (cu.GetErrorString) cu.GetErrorString(r, &s);
    dmpi_accel_set_error("CUDA %s failed: %s (error %d)", what, s ? s : "unknown", (int)r);
    return MPI_ERR_BUFFER;
}

/* The calling thread needs a context: the application's if it made one
 * current, else the primary context of the device picked at init. */
static int ensure_ctx(void)
{
    CUcontext cur = NULL;
    if (cu.CtxGetCurrent(&cur) == CUDA_SUCCESS && cur) return MPI_SUCCESS;
    CUresult r = cu.CtxSetCurrent(primary);
    return r == CUDA_SUCCESS ? MPI_SUCCESS : cu_fail(r, "cuCtxSetCurrent");
}

static void unload(void)
{
    if (lib) dlclose(lib);
    lib = NULL;
    primary = NULL;
}

static bool cuda_init(void)
{
    lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return false;
#define CU_LOAD(field, proto, sym)                              \
    if (!(*(void **)&cu.field = dlsym(lib, sym))) {             \
        unload();                                               \
        return false;                                           \
    }
    CU_FUNCS(CU_LOAD)
#undef CU_LOAD
    int n = 0;
    CUcontext cur = NULL;
    if (cu.Init(0) != CUDA_SUCCESS || cu.DeviceGetCount(&n) != CUDA_SUCCESS || n < 1) {
        unload();
        return false;
    }
    /* the device of the application's current context, else device 0 */
    bool have_cur = cu.CtxGetCurrent(&cur) == CUDA_SUCCESS && cur;
    int ordinal = 0;
    ordinal = (int)(dmpi_knob(DMPI_KNOB_CUDA_DEVICE) % n);
    if (cu.DeviceGet(&dev, ordinal) != CUDA_SUCCESS ||
        cu.PrimaryCtxRetain(&primary, dev) != CUDA_SUCCESS) {
        unload();
        return false;
    }
    if (!have_cur) cu.CtxSetCurrent(primary);
    if (cu.StreamCreate(&stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) {
        cu.PrimaryCtxRelease(dev);
        unload();
        return false;
    }
    return true;
}

/* The library stays loaded and the primary context retained: a staging
 * block freed after MPI_Finalize (a persistent request the program never
 * freed) still goes to cuMemFreeHost. */
static void cuda_fini(void)
{
    if (!lib) return;
    if (stream) cu.StreamDestroy(stream);
    stream = NULL;
}

static bool cuda_classify(const void *p, dmpi_mem_info *info)
{
    unsigned int type = 0;
    unsigned long long managed = 0; /* a boolean: wide enough whatever width the driver writes */
    int ordinal = -1;
    unsigned long long id = 0;
    CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                   CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                   CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                   CU_POINTER_ATTRIBUTE_BUFFER_ID};
    void *vals[] = {&type, &managed, &ordinal, &id};
    CUresult r = cu.PointerGetAttributes(4, attrs, vals, (CUdeviceptr)(uintptr_t)p);
    if (r == CUDA_ERROR_INVALID_CONTEXT && ensure_ctx() == MPI_SUCCESS) /* a new thread */
        r = cu.PointerGetAttributes(4, attrs, vals, (CUdeviceptr)(uintptr_t)p);
    if (r != CUDA_SUCCESS) return false; /* not something the driver knows: host memory */
    dmpi_mem_kind k;
    if (managed) k = DMPI_MEM_CUDA_MANAGED;
    else if (type == CU_MEMORYTYPE_DEVICE) k = DMPI_MEM_CUDA_DEVICE;
    else if (type == CU_MEMORYTYPE_HOST) k = DMPI_MEM_CUDA_HOST;
    else return false;
    if (info) *info = (dmpi_mem_info){k, ordinal, (uint64_t)id};
    return true;
}

static int cuda_copy(void *dst, dmpi_mem_kind dk, const void *src, dmpi_mem_kind sk, size_t n)
{
    int rc = ensure_ctx();
    if (rc != MPI_SUCCESS) return rc;
    CUresult r = cu.Memcpy((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src, n);
    return r == CUDA_SUCCESS ? MPI_SUCCESS : cu_fail(r, "cuMemcpy");
}

static int cuda_copy_start(dmpi_accel_xfer *c)
{
    int rc = ensure_ctx();
    if (rc != MPI_SUCCESS) return rc;
    CUevent ev;
    CUresult r = cu.EventCreate(&ev, CU_EVENT_DISABLE_TIMING);
    if (r != CUDA_SUCCESS) return cu_fail(r, "cuEventCreate");
    r = cu.MemcpyAsync((CUdeviceptr)(uintptr_t)c->dst, (CUdeviceptr)(uintptr_t)c->src, c->n,
                       stream);
    if (r == CUDA_SUCCESS) r = cu.EventRecord(ev, stream);
    if (r != CUDA_SUCCESS) {
        cu.EventDestroy(ev);
        return cu_fail(r, "cuMemcpyAsync");
    }
    c->event = ev;
    return MPI_SUCCESS;
}

static int cuda_copy_test(dmpi_accel_xfer *c, bool *done)
{
    CUresult r = cu.EventQuery((CUevent)c->event);
    *done = r != CUDA_ERROR_NOT_READY;
    if (*done) cu.EventDestroy((CUevent)c->event);
    return r == CUDA_SUCCESS || r == CUDA_ERROR_NOT_READY ? MPI_SUCCESS
                                                          : cu_fail(r, "an asynchronous copy");
}

static int cuda_dev_alloc(size_t n, dmpi_mem_kind kind, void **p)
{
    int rc = ensure_ctx();
    if (rc != MPI_SUCCESS) return rc;
    CUdeviceptr d = 0;
    void *h = NULL;
    size_t len = n ? n : 1;
    CUresult r;
    if (kind == DMPI_MEM_CUDA_DEVICE) r = cu.MemAlloc(&d, len);
    else if (kind == DMPI_MEM_CUDA_MANAGED) r = cu.MemAllocManaged(&d, len, CU_MEM_ATTACH_GLOBAL);
    else if (kind == DMPI_MEM_CUDA_HOST) r = cu.MemHostAlloc(&h, len, CU_MEMHOSTALLOC_PORTABLE);
    else return MPI_ERR_NO_MEM;
    if (r != CUDA_SUCCESS) {
        cu_fail(r, "allocation");
        return MPI_ERR_NO_MEM;
    }
    *p = h ? h : (void *)(uintptr_t)d;
    return MPI_SUCCESS;
}

static int cuda_dev_free(void *p)
{
    dmpi_mem_info info;
    if (!cuda_classify(p, &info)) return MPI_ERR_BASE;
    CUresult r = info.kind == DMPI_MEM_CUDA_HOST ? cu.MemFreeHost(p)
                                                 : cu.MemFree((CUdeviceptr)(uintptr_t)p);
    return r == CUDA_SUCCESS ? MPI_SUCCESS : cu_fail(r, "free");
}

static int cuda_pinned_alloc(size_t n, void **p)
{
    int rc = ensure_ctx();
    if (rc != MPI_SUCCESS) return rc;
    CUresult r = cu.MemHostAlloc(p, n ? n : 1, CU_MEMHOSTALLOC_PORTABLE);
    return r == CUDA_SUCCESS ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

static void cuda_pinned_free(void *p, size_t n) { cu.MemFreeHost(p); }

#else /* no CUDA headers at build time: the backend never comes up */

static bool cuda_init(void) { return false; }
static void cuda_fini(void) {}
static bool cuda_classify(const void *p, dmpi_mem_info *info) { return false; }

static int not_built(void)
{
    dmpi_accel_set_error("CUDA support is not built into this dmpi");
    return MPI_ERR_UNSUPPORTED_OPERATION;
}

static int cuda_copy(void *dst, dmpi_mem_kind dk, const void *src, dmpi_mem_kind sk, size_t n)
{
    return not_built();
}
static int cuda_copy_start(dmpi_accel_xfer *c) { return not_built(); }
static int cuda_copy_test(dmpi_accel_xfer *c, bool *done) { return not_built(); }
static int cuda_dev_alloc(size_t n, dmpi_mem_kind kind, void **p) { return not_built(); }
static int cuda_dev_free(void *p) { return not_built(); }
static int cuda_pinned_alloc(size_t n, void **p) { return not_built(); }
static void cuda_pinned_free(void *p, size_t n) {}

#endif

const dmpi_accel_ops dmpi_accel_cuda_ops = {
    .name = "cuda",
    .init = cuda_init,
    .fini = cuda_fini,
    .classify = cuda_classify,
    .copy = cuda_copy,
    .copy_start = cuda_copy_start,
    .copy_test = cuda_copy_test,
    .dev_alloc = cuda_dev_alloc,
    .dev_free = cuda_dev_free,
    .pinned_alloc = cuda_pinned_alloc,
    .pinned_free = cuda_pinned_free,
};
