/*
 * runtime/cudart.c — libcudart.so.13: the CUDA runtime API on the emulator.
 *
 * The only file that exports cuda* / __cuda* symbols (version node libcudart.so.13, see
 * libcudart.map). Types, enum values and prototypes come from the real CUDA 13 headers, so a
 * signature that drifts from NVIDIA's ABI is a compile error here.
 *
 * State: one process-wide default context (struct rt_ctx) created on first use; per host
 * thread: the last (non-sticky) error and the <<<>>> call-configuration stack.
 *
 * Execution model: all device work runs synchronously on the calling thread in submission
 * order, which satisfies CUDA's ordering rules for every stream; asynchronous calls return
 * after the work is done. A kernel fault is reported on stderr and becomes the context's sticky
 * error, returned by every later call (cudaGetLastError included), as on a GPU.
 */
#include <cuda_runtime_api.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/rt.h"

#define EXPORT __attribute__((visibility("default")))

_Static_assert(sizeof(struct cudaDeviceProp) == 1008, "CUDA 13 cudaDeviceProp is 1008 bytes");
_Static_assert((int)RT_ERR_INVALID_VALUE == (int)cudaErrorInvalidValue, "error values");
_Static_assert((int)RT_ERR_MEMORY_ALLOCATION == (int)cudaErrorMemoryAllocation, "error values");
_Static_assert((int)RT_ERR_INITIALIZATION == (int)cudaErrorInitializationError, "error values");
_Static_assert((int)RT_ERR_INVALID_CONFIGURATION == (int)cudaErrorInvalidConfiguration, "error values");
_Static_assert((int)RT_ERR_INVALID_SYMBOL == (int)cudaErrorInvalidSymbol, "error values");
_Static_assert((int)RT_ERR_INVALID_DEVICE_POINTER == (int)cudaErrorInvalidDevicePointer, "error values");
_Static_assert((int)RT_ERR_INVALID_MEMCPY_DIRECTION == (int)cudaErrorInvalidMemcpyDirection, "errors");
_Static_assert((int)RT_ERR_NO_KERNEL_IMAGE == (int)cudaErrorNoKernelImageForDevice, "error values");
_Static_assert((int)RT_ERR_INVALID_PTX == (int)cudaErrorInvalidPtx, "error values");
_Static_assert((int)RT_ERR_INVALID_SOURCE == (int)cudaErrorInvalidSource, "error values");
_Static_assert((int)RT_ERR_INVALID_RESOURCE_HANDLE == (int)cudaErrorInvalidResourceHandle, "errors");
_Static_assert((int)RT_ERR_NOT_READY == (int)cudaErrorNotReady, "error values");
_Static_assert((int)RT_ERR_LAUNCH_OUT_OF_RESOURCES == (int)cudaErrorLaunchOutOfResources, "errors");
_Static_assert((int)RT_ERR_INVALID_DEVICE_FUNCTION == (int)cudaErrorInvalidDeviceFunction, "errors");
_Static_assert((int)RT_ERR_NOT_SUPPORTED == (int)cudaErrorNotSupported, "error values");
_Static_assert((int)RT_ERR_UNKNOWN == (int)cudaErrorUnknown, "error values");
_Static_assert(720 == (int)cudaErrorCooperativeLaunchTooLarge, "error values");

/* Registration ABI (crt/host_runtime.h is C++-only; these match it). */
EXPORT void **__cudaRegisterFatBinary(void *fatCubin);
EXPORT void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
EXPORT void __cudaUnregisterFatBinary(void **fatCubinHandle);
EXPORT void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant,
                              int global);
EXPORT void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress,
                                     char *deviceAddress, const char *deviceName, int ext,
                                     size_t size, int constant, int global);
EXPORT char __cudaInitModule(void **fatCubinHandle);
EXPORT void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                                   const char *deviceName, int thread_limit, uint3 *tid,
                                   uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize);
EXPORT void __cudaRegisterTexture(void **fatCubinHandle, const void *hostVar,
                                  const void **deviceAddress, const char *deviceName, int dim,
                                  int norm, int ext);
EXPORT void __cudaRegisterSurface(void **fatCubinHandle, const void *hostVar,
                                  const void **deviceAddress, const char *deviceName, int dim,
                                  int ext);
EXPORT unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                            struct CUstream_st *stream);
EXPORT cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                              void *stream);
EXPORT cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *fun);
EXPORT cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                      void **args, size_t sharedMem, cudaStream_t stream);
EXPORT cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                           void **args, size_t sharedMem, cudaStream_t stream);

/* ================================================================ context and error state */

/* Handles the API gave out (streams, events, graphs), so a stale or foreign handle is an
 * error instead of a crash. */
struct handle_set {
    void **v;
    size_t n, cap;
};

/* The memory pool handle type of the API (one default pool; cudaMemPoolCreate makes more). */
struct CUmemPoolHandle_st {
    unsigned long long threshold;
};

/* The process's one default CUDA context: the runtime core's context plus the API objects.
 * The only mutable static state of the library. */
static struct cudart_ctx {
    struct rt_ctx rt;
    pthread_mutex_t hlock; /* handle sets */
    struct handle_set streams, events, graphs, execs;
    struct CUmemPoolHandle_st pool;
    unsigned long long next_stream_id, next_capture_id;
} G = {.hlock = PTHREAD_MUTEX_INITIALIZER, .next_stream_id = 16, .next_capture_id = 1};
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void ctx_init_once(void)
{
    rt_ctx_init(&G.rt);
}

static struct rt_ctx *ctx(void)
{
    pthread_once(&g_once, ctx_init_once);
    return &G.rt;
}

struct call_config {
    dim3 grid, block;
    size_t shared;
    void *stream;
};

#define CFG_STACK_MAX 32
static _Thread_local cudaError_t tls_last;
static _Thread_local struct call_config tls_cfg[CFG_STACK_MAX];
static _Thread_local int tls_ncfg;

/* Record e as the calling thread's last error (unless success) and return it. */
static cudaError_t ret(cudaError_t e)
{
    if (e != cudaSuccess)
        tls_last = e;
    return e;
}

static cudaError_t sticky(void)
{
    struct rt_ctx *c = ctx();
    pthread_mutex_lock(&c->lock);
    int s = c->sticky;
    pthread_mutex_unlock(&c->lock);
    return (cudaError_t)s;
}

#define CHECK_STICKY()                                                                        \
    do {                                                                                      \
        cudaError_t s_ = sticky();                                                            \
        if (s_)                                                                               \
            return ret(s_);                                                                   \
    } while (0)

/* The device memory store, creating the device on first use. */
static struct mem *dmem(void)
{
    struct rt_ctx *c = ctx();
    pthread_mutex_lock(&c->lock);
    struct interp_dev *d = rt_ctx_dev(c);
    pthread_mutex_unlock(&c->lock);
    if (!d) {
        static _Thread_local bool said;
        if (!said)
            fprintf(stderr, "ptxemu: %s\n", c->init_err);
        said = true;
        return NULL;
    }
    return interp_dev_mem(d);
}

static void sync_point(uint64_t seq);

static void not_supported(const char *what)
{
    fprintf(stderr, "ptxemu: %s is not supported yet (cudaErrorNotSupported)\n", what);
}

/* ============================================================================ handle sets */


static int hs_add(struct handle_set *s, void *p)
{
    pthread_mutex_lock(&G.hlock);
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 16;
        void **nv = realloc(s->v, nc * sizeof *nv);
        if (!nv) {
            pthread_mutex_unlock(&G.hlock);
            return -1;
        }
        s->v = nv;
        s->cap = nc;
    }
    s->v[s->n++] = p;
    pthread_mutex_unlock(&G.hlock);
    return 0;
}

static bool hs_has(struct handle_set *s, const void *p)
{
    bool r = false;
    pthread_mutex_lock(&G.hlock);
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i] == p) {
            r = true;
            break;
        }
    pthread_mutex_unlock(&G.hlock);
    return r;
}

static bool hs_del(struct handle_set *s, const void *p)
{
    bool r = false;
    pthread_mutex_lock(&G.hlock);
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i] == p) {
            s->v[i] = s->v[--s->n];
            r = true;
            break;
        }
    pthread_mutex_unlock(&G.hlock);
    return r;
}

/* ======================================================================== error functions */

struct err_row {
    int value;
    const char *name, *msg;
};

static const struct err_row err_rows[] = {
#define E(name, val, msg) {val, #name, msg},
#include "runtime/cuda_errors.h"
#undef E
};

static const struct err_row *err_find(cudaError_t e)
{
    for (size_t i = 0; i < sizeof err_rows / sizeof err_rows[0]; i++)
        if (err_rows[i].value == (int)e)
            return &err_rows[i];
    return NULL;
}

/* Name of an error code ("cudaErrorInvalidValue"). */
EXPORT const char *cudaGetErrorName(cudaError_t error)
{
    const struct err_row *r = err_find(error);
    return r ? r->name : "unrecognized error code";
}

/* Message of an error code ("invalid argument"). */
EXPORT const char *cudaGetErrorString(cudaError_t error)
{
    const struct err_row *r = err_find(error);
    return r ? r->msg : "unrecognized error code";
}

/* Return and clear the calling thread's last error; a sticky error cannot be cleared. */
EXPORT cudaError_t cudaGetLastError(void)
{
    cudaError_t e = tls_last;
    tls_last = cudaSuccess;
    cudaError_t s = sticky();
    return s ? s : e;
}

/* Return the last error without clearing it. */
EXPORT cudaError_t cudaPeekAtLastError(void)
{
    cudaError_t s = sticky();
    return s ? s : tls_last;
}

/* ======================================================================= registration ABI */

/* Register a fat binary (ELF constructor, before main). */
EXPORT void **__cudaRegisterFatBinary(void *fatCubin)
{
    struct rt_fatbin *fb = rt_reg_fatbin(ctx(), fatCubin);
    return fb ? &fb->handle_slot : NULL;
}

static struct rt_fatbin *fb_of(void **handle)
{
    return handle ? (struct rt_fatbin *)*handle : NULL;
}

/* End of registration for a fat binary: modules load lazily at first use. */
EXPORT void __cudaRegisterFatBinaryEnd(void **fatCubinHandle)
{
    (void)fatCubinHandle;
}

/* At exit: forget the fat binary. */
EXPORT void __cudaUnregisterFatBinary(void **fatCubinHandle)
{
    struct rt_fatbin *fb = fb_of(fatCubinHandle);
    if (!fb)
        return;
    sync_point(0);
    rt_unreg_fatbin(ctx(), fb);
}

/* A kernel: host stub address -> device function name. */
EXPORT void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                                   const char *deviceName, int thread_limit, uint3 *tid,
                                   uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize)
{
    (void)deviceFun;
    (void)thread_limit;
    (void)tid;
    (void)bid;
    (void)bDim;
    (void)gDim;
    (void)wSize;
    struct rt_fatbin *fb = fb_of(fatCubinHandle);
    if (fb)
        rt_reg_func(ctx(), fb, hostFun, deviceName);
}

/* A __device__ / __constant__ variable: host shadow -> device name. */
EXPORT void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant,
                              int global)
{
    (void)deviceAddress;
    (void)ext;
    (void)global;
    struct rt_fatbin *fb = fb_of(fatCubinHandle);
    if (fb)
        rt_reg_var(ctx(), fb, hostVar, NULL, deviceName, size, constant != 0, false);
}

/* A __managed__ variable: the host pointer variable at hostVarPtrAddress is pointed at the
 * device storage when the module loads (__cudaInitModule on first host access). */
EXPORT void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress,
                                     char *deviceAddress, const char *deviceName, int ext,
                                     size_t size, int constant, int global)
{
    (void)deviceAddress;
    (void)ext;
    (void)global;
    struct rt_fatbin *fb = fb_of(fatCubinHandle);
    if (fb)
        rt_reg_var(ctx(), fb, hostVarPtrAddress, hostVarPtrAddress, deviceName, size,
                   constant != 0, true);
}

/* Load the module now (host code is about to touch a managed variable). */
EXPORT char __cudaInitModule(void **fatCubinHandle)
{
    struct rt_fatbin *fb = fb_of(fatCubinHandle);
    if (!fb)
        return 0;
    return rt_fatbin_load(ctx(), fb) == RT_OK;
}

/* Texture / surface references (legacy): accepted, unusable until textures are supported. */
EXPORT void __cudaRegisterTexture(void **fatCubinHandle, const void *hostVar,
                                  const void **deviceAddress, const char *deviceName, int dim,
                                  int norm, int ext)
{
    (void)fatCubinHandle;
    (void)hostVar;
    (void)deviceAddress;
    (void)deviceName;
    (void)dim;
    (void)norm;
    (void)ext;
}

EXPORT void __cudaRegisterSurface(void **fatCubinHandle, const void *hostVar,
                                  const void **deviceAddress, const char *deviceName, int dim,
                                  int ext)
{
    (void)fatCubinHandle;
    (void)hostVar;
    (void)deviceAddress;
    (void)deviceName;
    (void)dim;
    (void)ext;
}

/* <<<grid, block, shared, stream>>>: push the configuration the host stub will pop. */
EXPORT unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                            struct CUstream_st *stream)
{
    if (tls_ncfg >= CFG_STACK_MAX)
        return 1;
    tls_cfg[tls_ncfg++] = (struct call_config){gridDim, blockDim, sharedMem, stream};
    return 0;
}

/* The host stub pops the configuration pushed by <<<>>>. */
EXPORT cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                              void *stream)
{
    if (tls_ncfg <= 0)
        return ret(cudaErrorMissingConfiguration);
    struct call_config *c = &tls_cfg[--tls_ncfg];
    *gridDim = c->grid;
    *blockDim = c->block;
    *sharedMem = c->shared;
    *(void **)stream = c->stream;
    return cudaSuccess;
}

/* Host stub -> kernel handle (our struct rt_func). */
EXPORT cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *fun)
{
    if (!kernel)
        return ret(cudaErrorInvalidValue);
    struct rt_func *f = rt_find_func(ctx(), fun);
    *kernel = (cudaKernel_t)f;
    return f ? cudaSuccess : ret(cudaErrorInvalidDeviceFunction);
}

EXPORT cudaError_t cudaGetKernel(cudaKernel_t *kernelPtr, const void *entryFuncAddr)
{
    return __cudaGetKernel(kernelPtr, entryFuncAddr);
}

EXPORT cudaError_t cudaGetFuncBySymbol(cudaFunction_t *functionPtr, const void *symbolPtr)
{
    if (!functionPtr)
        return ret(cudaErrorInvalidValue);
    struct rt_func *f = rt_find_func(ctx(), symbolPtr);
    if (!f)
        return ret(cudaErrorInvalidDeviceFunction);
    *functionPtr = (cudaFunction_t)f;
    return cudaSuccess;
}

/* A host stub, or a handle we gave out (cudaKernel_t / cudaFunction_t). */
static struct rt_func *resolve_func(const void *func)
{
    struct rt_ctx *c = ctx();
    if (!func)
        return NULL;
    struct rt_func *f = rt_find_func(c, func);
    if (f)
        return f;
    return rt_is_func(c, func) ? (struct rt_func *)func : NULL;
}

/* =========================================================================== streams */

#define STREAM_MAGIC 0x5354524dU
#define EVENT_MAGIC 0x45564e54U

struct cap_graph;

struct CUstream_st {
    uint32_t magic;
    unsigned flags;
    int priority;
    unsigned long long id;
    struct CUgraph_st *capture;   /* capturing into this graph, or NULL */
    uint64_t last_seq;            /* queue sequence number of its last operation */
    enum cudaStreamCaptureMode capture_mode;
    unsigned long long capture_id;
};

struct CUevent_st {
    uint32_t magic;
    unsigned flags;
    bool recorded;          /* set when a record operation ran */
    uint64_t seq;           /* queue sequence number of the last record (0: never) */
    struct timespec when;
};


/* Is s a valid stream argument (0, the legacy and per-thread handles, or a live stream)? */
static bool stream_ok(cudaStream_t s)
{
    return s == NULL || s == cudaStreamLegacy || s == cudaStreamPerThread || hs_has(&G.streams, s);
}

static struct CUstream_st *stream_obj(cudaStream_t s)
{
    return (s == NULL || s == cudaStreamLegacy || s == cudaStreamPerThread) ? NULL : s;
}

/* ============================================================================ graphs (data) */

enum node_kind { NK_KERNEL, NK_MEMCPY, NK_MEMSET, NK_HOST, NK_EMPTY, NK_MEMALLOC, NK_MEMFREE,
                 NK_GRAPH, NK_EVENT_RECORD, NK_WAIT_EVENT };

struct CUgraphNode_st {
    enum node_kind kind;
    struct CUgraph_st *graph;
    struct rt_func *func;             /* kernel */
    uint32_t grid[3], block[3];
    uint32_t shared;
    uint8_t *params;                  /* kernel parameter block copy */
    void *dst;                        /* memcpy / memset / memalloc result */
    const void *src;
    size_t size;                      /* memcpy bytes / memalloc bytes */
    size_t pitch, width, height;      /* memset (width in elements) */
    unsigned value, elem;             /* memset */
    cudaHostFn_t fn;                  /* host */
    void *user;
    struct CUgraph_st *child;         /* NK_GRAPH */
    cudaEvent_t event;
};

struct CUgraph_st {
    struct CUgraphNode_st **nodes;
    size_t n, cap;
};

struct CUgraphExec_st {
    struct CUgraph_st *g; /* a private clone */
};

static int graph_push(struct CUgraph_st *g, struct CUgraphNode_st *nd)
{
    if (g->n == g->cap) {
        size_t nc = g->cap ? g->cap * 2 : 8;
        struct CUgraphNode_st **nn = realloc(g->nodes, nc * sizeof *nn);
        if (!nn)
            return -1;
        g->nodes = nn;
        g->cap = nc;
    }
    g->nodes[g->n++] = nd;
    nd->graph = g;
    return 0;
}

static void graph_free(struct CUgraph_st *g);

static void node_free(struct CUgraphNode_st *nd)
{
    if (!nd)
        return;
    free(nd->params);
    if (nd->kind == NK_GRAPH && nd->child)
        graph_free(nd->child);
    free(nd);
}

static void graph_free(struct CUgraph_st *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->n; i++)
        node_free(g->nodes[i]);
    free(g->nodes);
    free(g);
}

static struct CUgraph_st *graph_clone(const struct CUgraph_st *g);

static struct CUgraphNode_st *node_clone(const struct CUgraphNode_st *nd)
{
    struct CUgraphNode_st *c = malloc(sizeof *c);
    if (!c)
        return NULL;
    *c = *nd;
    c->params = NULL;
    c->child = NULL;
    if (nd->params && nd->func) {
        uint32_t n = nd->func->info.param_size_total;
        c->params = malloc(n ? n : 1);
        if (!c->params) {
            free(c);
            return NULL;
        }
        memcpy(c->params, nd->params, n);
    }
    if (nd->kind == NK_GRAPH && nd->child) {
        c->child = graph_clone(nd->child);
        if (!c->child) {
            free(c->params);
            free(c);
            return NULL;
        }
    }
    return c;
}

static struct CUgraph_st *graph_clone(const struct CUgraph_st *g)
{
    struct CUgraph_st *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    for (size_t i = 0; i < g->n; i++) {
        struct CUgraphNode_st *nd = node_clone(g->nodes[i]);
        if (!nd || graph_push(c, nd) < 0) {
            node_free(nd);
            graph_free(c);
            return NULL;
        }
    }
    return c;
}

/* ============================================================================== operations */

static cudaError_t run_kernel(struct rt_func *f, const uint32_t grid[3], const uint32_t block[3],
                              size_t shared, void **args, const uint8_t *params,
                              bool cooperative);
static cudaError_t run_copy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind);
static cudaError_t run_memset2d(void *dst, size_t pitch, int value, size_t width, size_t height);
static cudaError_t graph_run(struct CUgraph_st *g);

static cudaError_t node_run(struct CUgraphNode_st *nd)
{
    switch (nd->kind) {
    case NK_KERNEL:
        return run_kernel(nd->func, nd->grid, nd->block, nd->shared, NULL, nd->params, false);
    case NK_MEMCPY:
        return run_copy(nd->dst, nd->src, nd->size, cudaMemcpyDefault);
    case NK_MEMSET:
        if (nd->elem == 1)
            return run_memset2d(nd->dst, nd->pitch, (int)nd->value, nd->width, nd->height);
        for (size_t y = 0; y < nd->height; y++) {
            uint8_t *row = (uint8_t *)nd->dst + y * nd->pitch;
            struct mem *m = dmem();
            if (!m || !mem_find(m, (uint64_t)(uintptr_t)row, nd->width * nd->elem))
                return cudaErrorInvalidValue;
            for (size_t x = 0; x < nd->width; x++) {
                if (nd->elem == 2) {
                    uint16_t v = (uint16_t)nd->value;
                    memcpy(row + x * 2, &v, 2);
                } else {
                    uint32_t v = nd->value;
                    memcpy(row + x * 4, &v, 4);
                }
            }
        }
        return cudaSuccess;
    case NK_HOST:
        fflush(stdout);
        nd->fn(nd->user);
        return cudaSuccess;
    case NK_GRAPH:
        return graph_run(nd->child);
    case NK_MEMALLOC: {
        struct mem *m = dmem();
        uint64_t a;
        if (!m || mem_alloc(m, nd->size, MEM_F_DEVICE, &a) < 0)
            return cudaErrorMemoryAllocation;
        nd->dst = (void *)(uintptr_t)a;
        return cudaSuccess;
    }
    case NK_MEMFREE: {
        struct mem *m = dmem();
        if (!m || mem_free(m, (uint64_t)(uintptr_t)nd->dst) < 0)
            return cudaErrorInvalidValue;
        return cudaSuccess;
    }
    case NK_EVENT_RECORD:
        if (nd->event) {
            clock_gettime(CLOCK_MONOTONIC, &nd->event->when);
            nd->event->recorded = true;
        }
        return cudaSuccess;
    case NK_WAIT_EVENT:
    case NK_EMPTY:
        return cudaSuccess;
    }
    return cudaErrorInvalidValue;
}

static cudaError_t graph_run(struct CUgraph_st *g)
{
    for (size_t i = 0; i < g->n; i++) {
        cudaError_t e = node_run(g->nodes[i]);
        if (e)
            return e;
        cudaError_t s = sticky();
        if (s)
            return s;
    }
    return cudaSuccess;
}

static void async_error(cudaError_t e)
{
    struct rt_ctx *c = ctx();
    pthread_mutex_lock(&c->lock);
    if (!c->async_err)
        c->async_err = (int)e;
    pthread_mutex_unlock(&c->lock);
}

/* The error of a finished asynchronous operation, returned (once) by a synchronizing call. */
static cudaError_t take_async_error(void)
{
    struct rt_ctx *c = ctx();
    pthread_mutex_lock(&c->lock);
    int e = c->sticky ? c->sticky : c->async_err;
    c->async_err = 0;
    pthread_mutex_unlock(&c->lock);
    return (cudaError_t)e;
}

static void node_op(struct rt_ctx *c, void *arg)
{
    (void)c;
    struct CUgraphNode_st *nd = arg;
    cudaError_t e = node_run(nd);
    if (e)
        async_error(e);
    node_free(nd);
}

static void note_seq(cudaStream_t s, uint64_t seq)
{
    struct CUstream_st *so = stream_obj(s);
    if (so)
        so->last_seq = seq;
}

/* Wait for device work (0: all), then flush device printf output: a CUDA flush point. */
static void sync_point(uint64_t seq)
{
    struct rt_ctx *c = ctx();
    rt_wait(c, seq);
    rt_printf_flush(c, true);
}

/* Queue a node behind earlier work, or append it to the capture graph of stream s.
 * Takes ownership of nd. */
static cudaError_t submit(cudaStream_t s, struct CUgraphNode_st *nd)
{
    struct CUstream_st *so = stream_obj(s);
    if (so && so->capture) {
        if (graph_push(so->capture, nd) < 0) {
            node_free(nd);
            return cudaErrorMemoryAllocation;
        }
        return cudaSuccess;
    }
    note_seq(s, rt_submit(ctx(), node_op, nd));
    return cudaSuccess;
}

static dim3 dim3_of(const uint32_t v[3])
{
    dim3 d;
    d.x = v[0];
    d.y = v[1];
    d.z = v[2];
    return d;
}

static struct CUgraphNode_st *node_new(enum node_kind k)
{
    struct CUgraphNode_st *nd = calloc(1, sizeof *nd);
    if (nd)
        nd->kind = k;
    return nd;
}

/* ============================================================================== launching */

static cudaError_t run_kernel(struct rt_func *f, const uint32_t grid[3], const uint32_t block[3],
                              size_t shared, void **args, const uint8_t *params,
                              bool cooperative)
{
    struct rt_ctx *c = ctx();
    void *argv_buf[64];
    void **argv = args;
    void **heap = NULL;
    if (params) {
        unsigned n = f->info.nparams;
        argv = n <= 64 ? argv_buf : (heap = malloc(n * sizeof *heap));
        if (!argv)
            return cudaErrorMemoryAllocation;
        for (unsigned i = 0; i < n; i++)
            argv[i] = (void *)(params + f->info.param_offset[i]);
    }
    struct rt_launch_req r = {.func = f, .shared = shared, .args = argv, .cooperative = cooperative};
    memcpy(r.grid, grid, sizeof r.grid);
    memcpy(r.block, block, sizeof r.block);
    int e = rt_launch(c, &r);
    free(heap);
    return (cudaError_t)e;
}

static void kernel_op(struct rt_ctx *c, void *arg)
{
    rt_launch_exec(c, arg);
}

static cudaError_t launch_common(struct rt_func *f, dim3 g, dim3 b, void **args, size_t shared,
                                 cudaStream_t stream, bool cooperative)
{
    CHECK_STICKY();
    if (!f)
        return ret(cudaErrorInvalidDeviceFunction);
    if (!stream_ok(stream))
        return ret(cudaErrorInvalidResourceHandle);
    uint32_t grid[3] = {g.x, g.y, g.z}, block[3] = {b.x, b.y, b.z};
    struct CUstream_st *so = stream_obj(stream);
    if (so && so->capture) {
        int le = rt_fatbin_load(ctx(), f->fb);
        if (le)
            return ret((cudaError_t)le);
        if (!f->kernel)
            return ret(cudaErrorInvalidDeviceFunction);
        struct CUgraphNode_st *nd = node_new(NK_KERNEL);
        uint32_t n = f->info.param_size_total;
        if (!nd || !(nd->params = malloc(n ? n : 1))) {
            node_free(nd);
            return ret(cudaErrorMemoryAllocation);
        }
        if (rt_build_params(&f->info, args, nd->params)) {
            node_free(nd);
            return ret(cudaErrorInvalidValue);
        }
        nd->func = f;
        memcpy(nd->grid, grid, sizeof grid);
        memcpy(nd->block, block, sizeof block);
        nd->shared = (uint32_t)shared;
        return ret(submit(stream, nd));
    }
    struct rt_launch_req r = {.func = f, .shared = shared, .args = args,
                              .cooperative = cooperative};
    memcpy(r.grid, grid, sizeof r.grid);
    memcpy(r.block, block, sizeof r.block);
    struct rt_kernel_op *k;
    struct rt_ctx *c = ctx();
    int e = rt_launch_prepare(c, &r, &k);
    if (e)
        return ret((cudaError_t)e);
    rt_printf_flush(c, false); /* a launch is a printf flush point */
    note_seq(stream, rt_submit(c, kernel_op, k));
    return cudaSuccess;
}

/* The launch the host stub of a <<<>>> call makes (CUDA 12.8+ ABI). */
EXPORT cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                      void **args, size_t sharedMem, cudaStream_t stream)
{
    struct rt_func *f = rt_is_func(ctx(), kernel) ? (struct rt_func *)kernel : NULL;
    return launch_common(f, gridDim, blockDim, args, sharedMem, stream, false);
}

EXPORT cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                           void **args, size_t sharedMem, cudaStream_t stream)
{
    return __cudaLaunchKernel(kernel, gridDim, blockDim, args, sharedMem, stream);
}

/* cudaLaunchKernel: func is a host stub (or a kernel handle). */
EXPORT cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                    size_t sharedMem, cudaStream_t stream)
{
    return launch_common(resolve_func(func), gridDim, blockDim, args, sharedMem, stream, false);
}

EXPORT cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                               void **args, size_t sharedMem, cudaStream_t stream)
{
    return launch_common(resolve_func(func), gridDim, blockDim, args, sharedMem, stream, true);
}

EXPORT cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func,
                                       void **args)
{
    if (!config)
        return ret(cudaErrorInvalidValue);
    bool coop = false;
    for (unsigned i = 0; i < config->numAttrs; i++) {
        const cudaLaunchAttribute *a = &config->attrs[i];
        if (a->id == cudaLaunchAttributeCooperative)
            coop = a->val.cooperative != 0;
    }
    return launch_common(resolve_func(func), config->gridDim, config->blockDim, args,
                         config->dynamicSmemBytes, config->stream, coop);
}

/* ======================================================================== kernel attributes */

static cudaError_t func_loaded(const void *func, struct rt_func **out)
{
    struct rt_func *f = resolve_func(func);
    if (!f)
        return cudaErrorInvalidDeviceFunction;
    int e = rt_fatbin_load(ctx(), f->fb);
    if (e)
        return (cudaError_t)e;
    if (!f->kernel)
        return cudaErrorInvalidDeviceFunction;
    *out = f;
    return cudaSuccess;
}

EXPORT cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    CHECK_STICKY();
    if (!attr)
        return ret(cudaErrorInvalidValue);
    struct rt_func *f;
    cudaError_t e = func_loaded(func, &f);
    if (e)
        return ret(e);
    const struct rt_device *d = &ctx()->dev;
    memset(attr, 0, sizeof *attr);
    attr->sharedSizeBytes = f->info.shared_static;
    attr->constSizeBytes = f->info.module ? f->info.module->const_size : 0;
    attr->localSizeBytes = f->info.local_size;
    attr->maxThreadsPerBlock = (int)(f->info.max_threads ? f->info.max_threads
                                                         : d->threads_per_block);
    attr->numRegs = (int)f->info.nregs;
    attr->ptxVersion = f->info.module ? f->info.module->version_major * 10 +
                                            f->info.module->version_minor
                                      : 0;
    attr->binaryVersion = (int)d->sm;
    attr->maxDynamicSharedSizeBytes =
        (int)(f->max_dynamic_shared ? f->max_dynamic_shared
                                    : d->shared_per_block - f->info.shared_static);
    attr->preferredShmemCarveout = f->preferred_carveout ? f->preferred_carveout : -1;
    return cudaSuccess;
}

EXPORT cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
    CHECK_STICKY();
    struct rt_func *f;
    cudaError_t e = func_loaded(func, &f);
    if (e)
        return ret(e);
    const struct rt_device *d = &ctx()->dev;
    switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize:
        if (value < 0 || (uint64_t)value + f->info.shared_static > d->shared_per_block_optin)
            return ret(cudaErrorInvalidValue);
        f->max_dynamic_shared = (uint32_t)value;
        return cudaSuccess;
    case cudaFuncAttributePreferredSharedMemoryCarveout:
        if (value < -1 || value > 100)
            return ret(cudaErrorInvalidValue);
        f->preferred_carveout = value;
        return cudaSuccess;
    case cudaFuncAttributeClusterDimMustBeSet:
    case cudaFuncAttributeRequiredClusterWidth:
    case cudaFuncAttributeRequiredClusterHeight:
    case cudaFuncAttributeRequiredClusterDepth:
        return ret(cudaErrorInvalidValue); /* read-only */
    case cudaFuncAttributeNonPortableClusterSizeAllowed:
    case cudaFuncAttributeClusterSchedulingPolicyPreference:
        return cudaSuccess;
    default:
        return ret(cudaErrorInvalidValue);
    }
}

EXPORT cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig)
{
    struct rt_func *f;
    cudaError_t e = func_loaded(func, &f);
    if (e)
        return ret(e);
    if ((unsigned)cacheConfig > cudaFuncCachePreferEqual)
        return ret(cudaErrorInvalidValue);
    f->cache_config = cacheConfig;
    return cudaSuccess;
}

EXPORT cudaError_t cudaFuncSetSharedMemConfig(const void *func, enum cudaSharedMemConfig config)
{
    (void)config;
    struct rt_func *f;
    cudaError_t e = func_loaded(func, &f);
    return e ? ret(e) : cudaSuccess;
}

/* Resident CTAs per SM for a block size: threads, CTA slots, registers and shared memory. */
static int occupancy(const struct rt_func *f, int block, size_t dyn)
{
    const struct rt_device *d = &ctx()->dev;
    unsigned warps = ((unsigned)block + d->warp - 1) / d->warp;
    unsigned n = d->threads_per_sm / (warps * d->warp);
    if (n > d->blocks_per_sm)
        n = d->blocks_per_sm;
    if (f->info.nregs) {
        unsigned regs = ((f->info.nregs + 7) & ~7u) * warps * d->warp;
        unsigned by_regs = regs ? d->regs_per_sm / regs : n;
        if (by_regs < n)
            n = by_regs;
    }
    uint64_t sh = f->info.shared_static + dyn + d->reserved_shared_per_block;
    if (sh) {
        uint64_t by_sh = d->shared_per_sm / sh;
        if (by_sh < n)
            n = (unsigned)by_sh;
    }
    return (int)n;
}

EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize, unsigned int flags)
{
    CHECK_STICKY();
    if (!numBlocks || blockSize <= 0 || flags > 1)
        return ret(cudaErrorInvalidValue);
    struct rt_func *f;
    cudaError_t e = func_loaded(func, &f);
    if (e)
        return ret(e);
    const struct rt_device *d = &ctx()->dev;
    if ((unsigned)blockSize > d->threads_per_block ||
        (f->info.max_threads && (unsigned)blockSize > f->info.max_threads) ||
        dynamicSMemSize + f->info.shared_static > d->shared_per_block_optin) {
        *numBlocks = 0;
        return cudaSuccess;
    }
    *numBlocks = occupancy(f, blockSize, dynamicSMemSize);
    return cudaSuccess;
}

EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
                                                                 int blockSize,
                                                                 size_t dynamicSMemSize)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize,
                                                                  dynamicSMemSize, 0);
}

EXPORT cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
                                                             const void *func, int numBlocks,
                                                             int blockSize)
{
    if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0)
        return ret(cudaErrorInvalidValue);
    struct rt_func *f;
    cudaError_t e = func_loaded(func, &f);
    if (e)
        return ret(e);
    const struct rt_device *d = &ctx()->dev;
    uint64_t per = d->shared_per_sm / (unsigned)numBlocks;
    uint64_t used = f->info.shared_static + d->reserved_shared_per_block;
    uint64_t avail = per > used ? per - used : 0;
    if (avail > d->shared_per_block_optin - f->info.shared_static)
        avail = d->shared_per_block_optin - f->info.shared_static;
    *dynamicSmemSize = avail;
    return cudaSuccess;
}

/* ============================================================================ device */

EXPORT cudaError_t cudaGetDeviceCount(int *count)
{
    if (!count)
        return ret(cudaErrorInvalidValue);
    *count = 1;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGetDevice(int *device)
{
    if (!device)
        return ret(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}

EXPORT cudaError_t cudaSetDevice(int device)
{
    if (device != 0)
        return ret(cudaErrorInvalidDevice);
    return ret(sticky());
}

EXPORT cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags)
{
    (void)deviceFlags;
    (void)flags;
    return cudaSetDevice(device);
}

EXPORT cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
    if (flags & ~(unsigned)(cudaDeviceScheduleMask | cudaDeviceMapHost | cudaDeviceLmemResizeToMax |
                            cudaDeviceSyncMemops))
        return ret(cudaErrorInvalidValue);
    return cudaSuccess;
}

EXPORT cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
    if (!flags)
        return ret(cudaErrorInvalidValue);
    *flags = cudaDeviceMapHost;
    return cudaSuccess;
}

EXPORT cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop)
{
    if (!device || !prop)
        return ret(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}

EXPORT cudaError_t cudaSetValidDevices(int *device_arr, int len)
{
    if (len < 0 || (len && !device_arr))
        return ret(cudaErrorInvalidValue);
    for (int i = 0; i < len; i++)
        if (device_arr[i] != 0)
            return ret(cudaErrorInvalidDevice);
    return cudaSuccess;
}

EXPORT cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int device)
{
    if (!p)
        return ret(cudaErrorInvalidValue);
    if (device != 0)
        return ret(cudaErrorInvalidDevice);
    const struct rt_device *d = &ctx()->dev;
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", d->name);
    memcpy(p->uuid.bytes, "ptxemu-device-00", 16);
    p->totalGlobalMem = d->global_mem;
    p->sharedMemPerBlock = d->shared_per_block;
    p->regsPerBlock = (int)d->regs_per_block;
    p->warpSize = (int)d->warp;
    p->memPitch = 2147483647;
    p->maxThreadsPerBlock = (int)d->threads_per_block;
    for (int i = 0; i < 3; i++) {
        p->maxThreadsDim[i] = (int)d->block_dim[i];
        p->maxGridSize[i] = (int)d->grid_dim[i];
    }
    p->totalConstMem = d->const_mem;
    p->major = (int)(d->sm / 10);
    p->minor = (int)(d->sm % 10);
    p->textureAlignment = 512;
    p->texturePitchAlignment = 32;
    p->multiProcessorCount = (int)d->nsm;
    p->canMapHostMemory = 1;
    p->maxTexture1D = 131072;
    p->maxTexture1DMipmap = 32768;
    p->maxTexture2D[0] = 131072;
    p->maxTexture2D[1] = 65536;
    p->maxTexture2DMipmap[0] = 32768;
    p->maxTexture2DMipmap[1] = 32768;
    p->maxTexture2DLinear[0] = 131072;
    p->maxTexture2DLinear[1] = 65000;
    p->maxTexture2DLinear[2] = 2097120;
    p->maxTexture2DGather[0] = 32768;
    p->maxTexture2DGather[1] = 32768;
    p->maxTexture3D[0] = p->maxTexture3D[1] = p->maxTexture3D[2] = 16384;
    p->maxTexture3DAlt[0] = p->maxTexture3DAlt[1] = 8192;
    p->maxTexture3DAlt[2] = 32768;
    p->maxTextureCubemap = 32768;
    p->maxTexture1DLayered[0] = 32768;
    p->maxTexture1DLayered[1] = 2048;
    p->maxTexture2DLayered[0] = p->maxTexture2DLayered[1] = 32768;
    p->maxTexture2DLayered[2] = 2048;
    p->maxTextureCubemapLayered[0] = 32768;
    p->maxTextureCubemapLayered[1] = 2046;
    p->maxSurface1D = 32768;
    p->maxSurface2D[0] = 131072;
    p->maxSurface2D[1] = 65536;
    p->maxSurface3D[0] = p->maxSurface3D[1] = p->maxSurface3D[2] = 16384;
    p->maxSurface1DLayered[0] = 32768;
    p->maxSurface1DLayered[1] = 2048;
    p->maxSurface2DLayered[0] = p->maxSurface2DLayered[1] = 32768;
    p->maxSurface2DLayered[2] = 2048;
    p->maxSurfaceCubemap = 32768;
    p->maxSurfaceCubemapLayered[0] = 32768;
    p->maxSurfaceCubemapLayered[1] = 2046;
    p->surfaceAlignment = 512;
    p->concurrentKernels = 1;
    p->ECCEnabled = 0;
    p->pciBusID = (int)d->pci_bus;
    p->pciDeviceID = (int)d->pci_device;
    p->pciDomainID = (int)d->pci_domain;
    p->asyncEngineCount = (int)d->async_engines;
    p->unifiedAddressing = 1;
    p->memoryBusWidth = (int)d->mem_bus_width;
    p->l2CacheSize = (int)d->l2_size;
    p->persistingL2CacheMaxSize = (int)d->persisting_l2_max;
    p->maxThreadsPerMultiProcessor = (int)d->threads_per_sm;
    p->streamPrioritiesSupported = 1;
    p->globalL1CacheSupported = 1;
    p->localL1CacheSupported = 1;
    p->sharedMemPerMultiprocessor = d->shared_per_sm;
    p->regsPerMultiprocessor = (int)d->regs_per_sm;
    p->managedMemory = 1;
    p->hostNativeAtomicSupported = 0;
    p->pageableMemoryAccess = 0;
    p->concurrentManagedAccess = 1;
    p->computePreemptionSupported = 1;
    p->canUseHostPointerForRegisteredMem = 1;
    p->cooperativeLaunch = 1;
    p->sharedMemPerBlockOptin = d->shared_per_block_optin;
    p->directManagedMemAccessFromHost = 0;
    p->maxBlocksPerMultiProcessor = (int)d->blocks_per_sm;
    p->accessPolicyMaxWindowSize = 134213632;
    p->reservedSharedMemPerBlock = d->reserved_shared_per_block;
    p->hostRegisterSupported = 1;
    p->sparseCudaArraySupported = 0;
    p->hostRegisterReadOnlySupported = 1;
    p->timelineSemaphoreInteropSupported = 0;
    p->memoryPoolsSupported = 1;
    p->gpuDirectRDMASupported = 0;
    p->memoryPoolSupportedHandleTypes = 0;
    p->deferredMappingCudaArraySupported = 0;
    p->ipcEventSupported = 0;
    p->clusterLaunch = d->sm >= 90;
    p->unifiedFunctionPointers = 1;
    p->deviceNumaConfig = 0;
    p->deviceNumaId = -1;
    p->mpsEnabled = 0;
    p->hostNumaId = -1;
    p->gpuPciDeviceID = 0;
    p->gpuPciSubsystemID = 0;
    return cudaSuccess;
}

/* Every cudaDeviceAttr, from the same description as cudaGetDeviceProperties. */
EXPORT cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    if (!value)
        return ret(cudaErrorInvalidValue);
    if (device != 0)
        return ret(cudaErrorInvalidDevice);
    struct cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    const struct rt_device *d = &ctx()->dev;
    int v;
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: v = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: v = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: v = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: v = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: v = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: v = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: v = p.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: v = (int)p.sharedMemPerBlock; break;
    case cudaDevAttrTotalConstantMemory: v = (int)p.totalConstMem; break;
    case cudaDevAttrWarpSize: v = p.warpSize; break;
    case cudaDevAttrMaxPitch: v = (int)p.memPitch; break;
    case cudaDevAttrMaxRegistersPerBlock: v = p.regsPerBlock; break;
    case cudaDevAttrClockRate: v = (int)d->clock_khz; break;
    case cudaDevAttrTextureAlignment: v = (int)p.textureAlignment; break;
    case cudaDevAttrGpuOverlap: v = 1; break;
    case cudaDevAttrMultiProcessorCount: v = p.multiProcessorCount; break;
    case cudaDevAttrKernelExecTimeout: v = 0; break;
    case cudaDevAttrIntegrated: v = p.integrated; break;
    case cudaDevAttrCanMapHostMemory: v = p.canMapHostMemory; break;
    case cudaDevAttrComputeMode: v = cudaComputeModeDefault; break;
    case cudaDevAttrMaxTexture1DWidth: v = p.maxTexture1D; break;
    case cudaDevAttrMaxTexture2DWidth: v = p.maxTexture2D[0]; break;
    case cudaDevAttrMaxTexture2DHeight: v = p.maxTexture2D[1]; break;
    case cudaDevAttrMaxTexture3DWidth: v = p.maxTexture3D[0]; break;
    case cudaDevAttrMaxTexture3DHeight: v = p.maxTexture3D[1]; break;
    case cudaDevAttrMaxTexture3DDepth: v = p.maxTexture3D[2]; break;
    case cudaDevAttrMaxTexture2DLayeredWidth: v = p.maxTexture2DLayered[0]; break;
    case cudaDevAttrMaxTexture2DLayeredHeight: v = p.maxTexture2DLayered[1]; break;
    case cudaDevAttrMaxTexture2DLayeredLayers: v = p.maxTexture2DLayered[2]; break;
    case cudaDevAttrSurfaceAlignment: v = (int)p.surfaceAlignment; break;
    case cudaDevAttrConcurrentKernels: v = p.concurrentKernels; break;
    case cudaDevAttrEccEnabled: v = p.ECCEnabled; break;
    case cudaDevAttrPciBusId: v = p.pciBusID; break;
    case cudaDevAttrPciDeviceId: v = p.pciDeviceID; break;
    case cudaDevAttrTccDriver: v = 0; break;
    case cudaDevAttrMemoryClockRate: v = (int)d->mem_clock_khz; break;
    case cudaDevAttrGlobalMemoryBusWidth: v = p.memoryBusWidth; break;
    case cudaDevAttrL2CacheSize: v = p.l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: v = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrAsyncEngineCount: v = p.asyncEngineCount; break;
    case cudaDevAttrUnifiedAddressing: v = p.unifiedAddressing; break;
    case cudaDevAttrMaxTexture1DLayeredWidth: v = p.maxTexture1DLayered[0]; break;
    case cudaDevAttrMaxTexture1DLayeredLayers: v = p.maxTexture1DLayered[1]; break;
    case cudaDevAttrMaxTexture2DGatherWidth: v = p.maxTexture2DGather[0]; break;
    case cudaDevAttrMaxTexture2DGatherHeight: v = p.maxTexture2DGather[1]; break;
    case cudaDevAttrMaxTexture3DWidthAlt: v = p.maxTexture3DAlt[0]; break;
    case cudaDevAttrMaxTexture3DHeightAlt: v = p.maxTexture3DAlt[1]; break;
    case cudaDevAttrMaxTexture3DDepthAlt: v = p.maxTexture3DAlt[2]; break;
    case cudaDevAttrPciDomainId: v = p.pciDomainID; break;
    case cudaDevAttrTexturePitchAlignment: v = (int)p.texturePitchAlignment; break;
    case cudaDevAttrMaxTextureCubemapWidth: v = p.maxTextureCubemap; break;
    case cudaDevAttrMaxTextureCubemapLayeredWidth: v = p.maxTextureCubemapLayered[0]; break;
    case cudaDevAttrMaxTextureCubemapLayeredLayers: v = p.maxTextureCubemapLayered[1]; break;
    case cudaDevAttrMaxSurface1DWidth: v = p.maxSurface1D; break;
    case cudaDevAttrMaxSurface2DWidth: v = p.maxSurface2D[0]; break;
    case cudaDevAttrMaxSurface2DHeight: v = p.maxSurface2D[1]; break;
    case cudaDevAttrMaxSurface3DWidth: v = p.maxSurface3D[0]; break;
    case cudaDevAttrMaxSurface3DHeight: v = p.maxSurface3D[1]; break;
    case cudaDevAttrMaxSurface3DDepth: v = p.maxSurface3D[2]; break;
    case cudaDevAttrMaxSurface1DLayeredWidth: v = p.maxSurface1DLayered[0]; break;
    case cudaDevAttrMaxSurface1DLayeredLayers: v = p.maxSurface1DLayered[1]; break;
    case cudaDevAttrMaxSurface2DLayeredWidth: v = p.maxSurface2DLayered[0]; break;
    case cudaDevAttrMaxSurface2DLayeredHeight: v = p.maxSurface2DLayered[1]; break;
    case cudaDevAttrMaxSurface2DLayeredLayers: v = p.maxSurface2DLayered[2]; break;
    case cudaDevAttrMaxSurfaceCubemapWidth: v = p.maxSurfaceCubemap; break;
    case cudaDevAttrMaxSurfaceCubemapLayeredWidth: v = p.maxSurfaceCubemapLayered[0]; break;
    case cudaDevAttrMaxSurfaceCubemapLayeredLayers: v = p.maxSurfaceCubemapLayered[1]; break;
    case cudaDevAttrMaxTexture1DLinearWidth: v = 268435456; break;
    case cudaDevAttrMaxTexture2DLinearWidth: v = p.maxTexture2DLinear[0]; break;
    case cudaDevAttrMaxTexture2DLinearHeight: v = p.maxTexture2DLinear[1]; break;
    case cudaDevAttrMaxTexture2DLinearPitch: v = p.maxTexture2DLinear[2]; break;
    case cudaDevAttrMaxTexture2DMipmappedWidth: v = p.maxTexture2DMipmap[0]; break;
    case cudaDevAttrMaxTexture2DMipmappedHeight: v = p.maxTexture2DMipmap[1]; break;
    case cudaDevAttrComputeCapabilityMajor: v = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: v = p.minor; break;
    case cudaDevAttrMaxTexture1DMipmappedWidth: v = p.maxTexture1DMipmap; break;
    case cudaDevAttrStreamPrioritiesSupported: v = p.streamPrioritiesSupported; break;
    case cudaDevAttrGlobalL1CacheSupported: v = p.globalL1CacheSupported; break;
    case cudaDevAttrLocalL1CacheSupported: v = p.localL1CacheSupported; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: v = (int)p.sharedMemPerMultiprocessor; break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: v = p.regsPerMultiprocessor; break;
    case cudaDevAttrManagedMemory: v = p.managedMemory; break;
    case cudaDevAttrIsMultiGpuBoard: v = 0; break;
    case cudaDevAttrMultiGpuBoardGroupID: v = 0; break;
    case cudaDevAttrHostNativeAtomicSupported: v = p.hostNativeAtomicSupported; break;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio: v = 2; break;
    case cudaDevAttrPageableMemoryAccess: v = p.pageableMemoryAccess; break;
    case cudaDevAttrConcurrentManagedAccess: v = p.concurrentManagedAccess; break;
    case cudaDevAttrComputePreemptionSupported: v = p.computePreemptionSupported; break;
    case cudaDevAttrCanUseHostPointerForRegisteredMem: v = p.canUseHostPointerForRegisteredMem; break;
    case cudaDevAttrCooperativeLaunch: v = p.cooperativeLaunch; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: v = (int)p.sharedMemPerBlockOptin; break;
    case cudaDevAttrCanFlushRemoteWrites: v = 0; break;
    case cudaDevAttrHostRegisterSupported: v = p.hostRegisterSupported; break;
    case cudaDevAttrPageableMemoryAccessUsesHostPageTables: v = 0; break;
    case cudaDevAttrDirectManagedMemAccessFromHost: v = p.directManagedMemAccessFromHost; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: v = p.maxBlocksPerMultiProcessor; break;
    case cudaDevAttrMaxPersistingL2CacheSize: v = p.persistingL2CacheMaxSize; break;
    case cudaDevAttrMaxAccessPolicyWindowSize: v = p.accessPolicyMaxWindowSize; break;
    case cudaDevAttrReservedSharedMemoryPerBlock: v = (int)p.reservedSharedMemPerBlock; break;
    case cudaDevAttrSparseCudaArraySupported: v = p.sparseCudaArraySupported; break;
    case cudaDevAttrHostRegisterReadOnlySupported: v = p.hostRegisterReadOnlySupported; break;
    case cudaDevAttrTimelineSemaphoreInteropSupported: v = 0; break;
    case cudaDevAttrMemoryPoolsSupported: v = p.memoryPoolsSupported; break;
    case cudaDevAttrGPUDirectRDMASupported: v = 0; break;
    case cudaDevAttrGPUDirectRDMAFlushWritesOptions: v = 0; break;
    case cudaDevAttrGPUDirectRDMAWritesOrdering: v = 0; break;
    case cudaDevAttrMemoryPoolSupportedHandleTypes: v = 0; break;
    case cudaDevAttrClusterLaunch: v = p.clusterLaunch; break;
    case cudaDevAttrDeferredMappingCudaArraySupported: v = 0; break;
    case cudaDevAttrIpcEventSupport: v = 0; break;
    case cudaDevAttrMemSyncDomainCount: v = d->sm >= 90 ? 4 : 1; break;
    case cudaDevAttrNumaConfig: v = 0; break;
    case cudaDevAttrNumaId: v = -1; break;
    case cudaDevAttrMpsEnabled: v = 0; break;
    case cudaDevAttrHostNumaId: v = -1; break;
    case cudaDevAttrD3D12CigSupported: v = 0; break;
    case cudaDevAttrVulkanCigSupported: v = 0; break;
    case cudaDevAttrGpuPciDeviceId: v = 0; break;
    case cudaDevAttrGpuPciSubsystemId: v = 0; break;
    case cudaDevAttrHostNumaMemoryPoolsSupported: v = 0; break;
    case cudaDevAttrHostNumaMultinodeIpcSupported: v = 0; break;
    case cudaDevAttrHostMemoryPoolsSupported: v = 0; break;
    case cudaDevAttrOnlyPartialHostNativeAtomicSupported: v = 0; break;
    case cudaDevAttrReserved92: case cudaDevAttrReserved93: case cudaDevAttrReserved94:
    case cudaDevAttrReserved96: case cudaDevAttrReserved122: case cudaDevAttrReserved123:
    case cudaDevAttrReserved124: case cudaDevAttrReserved127: case cudaDevAttrReserved128:
    case cudaDevAttrReserved129: case cudaDevAttrReserved132: case cudaDevAttrReserved141:
    case cudaDevAttrReserved145:
        v = 0;
        break;
    default:
        return ret(cudaErrorInvalidValue);
    }
    *value = v;
    return cudaSuccess;
}

EXPORT cudaError_t cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit)
{
    if (!pValue)
        return ret(cudaErrorInvalidValue);
    const struct interp_config *ic = &ctx()->icfg;
    switch (limit) {
    case cudaLimitStackSize: *pValue = ic->stack_size ? ic->stack_size : 1024; break;
    case cudaLimitPrintfFifoSize: *pValue = ic->printf_fifo ? ic->printf_fifo : 1 << 20; break;
    case cudaLimitMallocHeapSize: *pValue = ic->heap_size ? ic->heap_size : 8 << 20; break;
    case cudaLimitDevRuntimeSyncDepth: *pValue = 2; break;
    case cudaLimitDevRuntimePendingLaunchCount: *pValue = 2048; break;
    case cudaLimitMaxL2FetchGranularity: *pValue = 32; break;
    case cudaLimitPersistingL2CacheSize: *pValue = 0; break;
    default: return ret(cudaErrorUnsupportedLimit);
    }
    return cudaSuccess;
}

EXPORT cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
    struct rt_ctx *c = ctx();
    pthread_mutex_lock(&c->lock);
    bool created = c->idev != NULL;
    cudaError_t e = cudaSuccess;
    switch (limit) {
    case cudaLimitStackSize: c->icfg.stack_size = value; break;
    case cudaLimitPrintfFifoSize:
        if (created) e = cudaErrorInvalidValue; else c->icfg.printf_fifo = (unsigned)value;
        break;
    case cudaLimitMallocHeapSize:
        if (created) e = cudaErrorInvalidValue; else c->icfg.heap_size = value;
        break;
    case cudaLimitDevRuntimeSyncDepth:
    case cudaLimitDevRuntimePendingLaunchCount:
    case cudaLimitPersistingL2CacheSize:
        break;
    case cudaLimitMaxL2FetchGranularity:
        if (value > 128) e = cudaErrorInvalidValue;
        break;
    default: e = cudaErrorUnsupportedLimit; break;
    }
    pthread_mutex_unlock(&c->lock);
    return e ? ret(e) : cudaSuccess;
}

EXPORT cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    if (leastPriority)
        *leastPriority = 0;
    if (greatestPriority)
        *greatestPriority = -5;
    return cudaSuccess;
}

EXPORT cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig)
{
    return (unsigned)cacheConfig > cudaFuncCachePreferEqual ? ret(cudaErrorInvalidValue)
                                                            : cudaSuccess;
}

EXPORT cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig)
{
    if (!pCacheConfig)
        return ret(cudaErrorInvalidValue);
    *pCacheConfig = cudaFuncCachePreferNone;
    return cudaSuccess;
}

EXPORT cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
    if (!canAccessPeer)
        return ret(cudaErrorInvalidValue);
    if (device != 0 || peerDevice != 0)
        return ret(cudaErrorInvalidDevice);
    *canAccessPeer = 0;
    return cudaSuccess;
}

EXPORT cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
    if (!pciBusId || len <= 0)
        return ret(cudaErrorInvalidValue);
    if (device != 0)
        return ret(cudaErrorInvalidDevice);
    snprintf(pciBusId, (size_t)len, "0000:%02x:00.0", ctx()->dev.pci_bus);
    return cudaSuccess;
}

EXPORT cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId)
{
    if (!device || !pciBusId)
        return ret(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}

/* Wait for all device work: everything already ran; report the sticky error. */
EXPORT cudaError_t cudaDeviceSynchronize(void)
{
    sync_point(0);
    return ret(take_async_error());
}

EXPORT cudaError_t cudaThreadSynchronize(void)
{
    return cudaDeviceSynchronize();
}

/* Destroy all allocations and modules of the context and clear the sticky error; registered
 * fat binaries reload at their next use. */
EXPORT cudaError_t cudaDeviceReset(void)
{
    struct rt_ctx *c = ctx();
    sync_point(0);
    pthread_mutex_lock(&c->lock);
    c->async_err = 0;
    for (unsigned i = 0; i < c->reg.nfatbins; i++) {
        struct rt_fatbin *fb = c->reg.fatbins[i];
        if (fb->prog)
            interp_program_unload(fb->prog);
        fb->prog = NULL;
        free(fb->mods);
        fb->mods = NULL;
        fb->nmods = 0;
        fb->state = 0;
    }
    for (unsigned i = 0; i < c->reg.nfuncs; i++)
        c->reg.funcs[i]->kernel = NULL;
    for (unsigned i = 0; i < c->reg.nvars; i++)
        c->reg.vars[i]->addr = 0;
    if (c->idev)
        interp_dev_destroy(c->idev);
    c->idev = NULL;
    c->init_err[0] = 0;
    c->sticky = 0;
    pthread_mutex_unlock(&c->lock);
    tls_last = cudaSuccess;
    return cudaSuccess;
}

EXPORT cudaError_t cudaThreadExit(void)
{
    return cudaDeviceReset();
}

EXPORT cudaError_t cudaDriverGetVersion(int *driverVersion)
{
    if (!driverVersion)
        return ret(cudaErrorInvalidValue);
    *driverVersion = CUDART_VERSION;
    return cudaSuccess;
}

EXPORT cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)
{
    if (!runtimeVersion)
        return ret(cudaErrorInvalidValue);
    *runtimeVersion = CUDART_VERSION;
    return cudaSuccess;
}

EXPORT cudaError_t cudaProfilerStart(void)
{
    return cudaSuccess;
}

EXPORT cudaError_t cudaProfilerStop(void)
{
    return cudaSuccess;
}

EXPORT cudaError_t cudaCtxResetPersistingL2Cache(void)
{
    return cudaSuccess;
}

EXPORT cudaError_t cudaMemGetInfo(size_t *free_, size_t *total)
{
    CHECK_STICKY();
    struct mem *m = dmem();
    if (!m)
        return ret(cudaErrorInitializationError);
    uint64_t tot = ctx()->dev.global_mem, used = mem_used(m);
    if (free_)
        *free_ = used < tot ? tot - used : 0;
    if (total)
        *total = tot;
    return cudaSuccess;
}

/* =============================================================================== memory */

static cudaError_t alloc_common(void **p, size_t size, uint32_t flags)
{
    CHECK_STICKY();
    if (!p)
        return ret(cudaErrorInvalidValue);
    struct mem *m = dmem();
    if (!m)
        return ret(cudaErrorInitializationError);
    if ((flags & (MEM_F_DEVICE | MEM_F_MANAGED)) && size > ctx()->dev.global_mem - mem_used(m)) {
        *p = NULL;
        return ret(cudaErrorMemoryAllocation);
    }
    uint64_t a;
    if (mem_alloc(m, size, flags, &a) < 0) {
        *p = NULL;
        return ret(cudaErrorMemoryAllocation);
    }
    *p = (void *)(uintptr_t)a;
    return cudaSuccess;
}

EXPORT cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    return alloc_common(devPtr, size, MEM_F_DEVICE);
}

EXPORT cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    return alloc_common(ptr, size, MEM_F_HOST);
}

EXPORT cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    if (flags & ~(unsigned)(cudaHostAllocPortable | cudaHostAllocMapped |
                            cudaHostAllocWriteCombined))
        return ret(cudaErrorInvalidValue);
    return alloc_common(pHost, size, MEM_F_HOST);
}

EXPORT cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)
        return ret(cudaErrorInvalidValue);
    if (size == 0)
        return ret(cudaErrorInvalidValue);
    return alloc_common(devPtr, size, MEM_F_MANAGED);
}

EXPORT cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
    if (!pitch)
        return ret(cudaErrorInvalidValue);
    size_t p = (width + 511) & ~(size_t)511;
    if (!p)
        p = 512;
    cudaError_t e = alloc_common(devPtr, p * height, MEM_F_DEVICE);
    if (!e)
        *pitch = p;
    return e;
}

EXPORT cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent)
{
    if (!pitchedDevPtr)
        return ret(cudaErrorInvalidValue);
    size_t pitch;
    void *p;
    cudaError_t e = cudaMallocPitch(&p, &pitch, extent.width, extent.height * extent.depth);
    if (e)
        return e;
    pitchedDevPtr->ptr = p;
    pitchedDevPtr->pitch = pitch;
    pitchedDevPtr->xsize = extent.width;
    pitchedDevPtr->ysize = extent.height;
    return cudaSuccess;
}

static cudaError_t free_common(void *p, uint32_t want)
{
    CHECK_STICKY();
    if (!p)
        return cudaSuccess;
    rt_wait(ctx(), 0); /* cudaFree synchronizes with the device */
    struct mem *m = dmem();
    if (!m)
        return ret(cudaErrorInitializationError);
    const struct mem_alloc *a = mem_find(m, (uint64_t)(uintptr_t)p, 1);
    if (!a || a->base != (uint64_t)(uintptr_t)p || !(a->flags & want))
        return ret(cudaErrorInvalidValue);
    if (mem_free(m, (uint64_t)(uintptr_t)p) < 0)
        return ret(cudaErrorInvalidValue);
    return cudaSuccess;
}

EXPORT cudaError_t cudaFree(void *devPtr)
{
    return free_common(devPtr, MEM_F_DEVICE | MEM_F_MANAGED);
}

EXPORT cudaError_t cudaFreeHost(void *ptr)
{
    return free_common(ptr, MEM_F_HOST);
}

EXPORT cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    CHECK_STICKY();
    if (!ptr || !size || (flags & ~0xfu))
        return ret(cudaErrorInvalidValue);
    struct mem *m = dmem();
    if (!m)
        return ret(cudaErrorInitializationError);
    if (mem_find(m, (uint64_t)(uintptr_t)ptr, 1))
        return ret(cudaErrorHostMemoryAlreadyRegistered);
    if (mem_register(m, ptr, size, MEM_F_HOST | MEM_F_REGISTERED) < 0)
        return ret(cudaErrorInvalidValue);
    return cudaSuccess;
}

EXPORT cudaError_t cudaHostUnregister(void *ptr)
{
    CHECK_STICKY();
    struct mem *m = dmem();
    if (!ptr || !m)
        return ret(cudaErrorInvalidValue);
    rt_wait(ctx(), 0);
    const struct mem_alloc *a = mem_find(m, (uint64_t)(uintptr_t)ptr, 1);
    if (!a || !(a->flags & MEM_F_REGISTERED) || a->base != (uint64_t)(uintptr_t)ptr)
        return ret(cudaErrorHostMemoryNotRegistered);
    mem_free(m, a->base);
    return cudaSuccess;
}

EXPORT cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
    if (!pDevice || flags)
        return ret(cudaErrorInvalidValue);
    struct mem *m = dmem();
    if (!m || !mem_find(m, (uint64_t)(uintptr_t)pHost, 1))
        return ret(cudaErrorInvalidValue);
    *pDevice = pHost; /* unified addressing */
    return cudaSuccess;
}

EXPORT cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost)
{
    struct mem *m = dmem();
    if (!pFlags || !m || !mem_find(m, (uint64_t)(uintptr_t)pHost, 1))
        return ret(cudaErrorInvalidValue);
    *pFlags = cudaHostAllocMapped;
    return cudaSuccess;
}

EXPORT cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes,
                                            const void *ptr)
{
    if (!attributes)
        return ret(cudaErrorInvalidValue);
    struct mem *m = dmem();
    memset(attributes, 0, sizeof *attributes);
    const struct mem_alloc *a = m ? mem_find(m, (uint64_t)(uintptr_t)ptr, 1) : NULL;
    if (!a) {
        attributes->type = cudaMemoryTypeUnregistered;
        attributes->device = -2;
        attributes->hostPointer = (void *)ptr;
        return cudaSuccess;
    }
    attributes->device = 0;
    attributes->devicePointer = (void *)ptr;
    if (a->flags & MEM_F_MANAGED) {
        attributes->type = cudaMemoryTypeManaged;
        attributes->hostPointer = (void *)ptr;
    } else if (a->flags & MEM_F_HOST) {
        attributes->type = cudaMemoryTypeHost;
        attributes->hostPointer = (void *)ptr;
    } else {
        attributes->type = cudaMemoryTypeDevice;
    }
    return cudaSuccess;
}

/* Is [p, p+n) inside one allocation the device can access? */
static bool dev_range(struct mem *m, const void *p, size_t n)
{
    return mem_find(m, (uint64_t)(uintptr_t)p, n ? n : 1) != NULL;
}

static cudaError_t copy_check(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
    if ((unsigned)kind > cudaMemcpyDefault)
        return cudaErrorInvalidMemcpyDirection;
    if (!n)
        return cudaSuccess;
    if (!dst || !src)
        return cudaErrorInvalidValue;
    struct mem *m = dmem();
    if (!m)
        return cudaErrorInitializationError;
    bool dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    bool src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    if (kind == cudaMemcpyDefault) {
        /* unified addressing: a pointer inside an allocation is checked against its bounds */
        if (dev_range(m, dst, 1) && !dev_range(m, dst, n))
            return cudaErrorInvalidValue;
        if (dev_range(m, src, 1) && !dev_range(m, src, n))
            return cudaErrorInvalidValue;
    }
    if ((dst_dev && !dev_range(m, dst, n)) || (src_dev && !dev_range(m, src, n)))
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

static cudaError_t run_copy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
    cudaError_t e = copy_check(dst, src, n, kind);
    if (!e && n)
        memmove(dst, src, n);
    return e;
}

/* Host memory the device cannot address directly (pageable): copies with it are staged,
 * i.e. synchronous with the host. */
static bool pageable(const void *p)
{
    struct mem *m = dmem();
    return !m || !dev_range(m, p, 1);
}

static cudaError_t copy_submit(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
                               cudaStream_t stream, bool blocking)
{
    CHECK_STICKY();
    if (!stream_ok(stream))
        return ret(cudaErrorInvalidResourceHandle);
    struct CUstream_st *so = stream_obj(stream);
    if (so && so->capture) {
        struct CUgraphNode_st *nd = node_new(NK_MEMCPY);
        if (!nd)
            return ret(cudaErrorMemoryAllocation);
        nd->dst = dst;
        nd->src = src;
        nd->size = n;
        return ret(submit(stream, nd));
    }
    cudaError_t e = copy_check(dst, src, n, kind);
    if (e)
        return ret(e);
    if (!n)
        return cudaSuccess;
    if (blocking || pageable(dst) || pageable(src)) {
        sync_point(0);
        CHECK_STICKY();
        memmove(dst, src, n);
        return cudaSuccess;
    }
    struct CUgraphNode_st *nd = node_new(NK_MEMCPY);
    if (!nd)
        return ret(cudaErrorMemoryAllocation);
    nd->dst = dst;
    nd->src = src;
    nd->size = n;
    return ret(submit(stream, nd));
}

EXPORT cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    return copy_submit(dst, src, count, kind, NULL, true);
}

EXPORT cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
                                   enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return copy_submit(dst, src, count, kind, stream, false);
}

EXPORT cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice,
                                  size_t count)
{
    if (dstDevice != 0 || srcDevice != 0)
        return ret(cudaErrorInvalidDevice);
    return copy_submit(dst, src, count, cudaMemcpyDeviceToDevice, NULL, true);
}

EXPORT cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice,
                                       size_t count, cudaStream_t stream)
{
    if (dstDevice != 0 || srcDevice != 0)
        return ret(cudaErrorInvalidDevice);
    return copy_submit(dst, src, count, cudaMemcpyDeviceToDevice, stream, false);
}

static cudaError_t copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                          size_t height, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    CHECK_STICKY();
    if (width > dpitch || width > spitch)
        return ret(cudaErrorInvalidPitchValue);
    for (size_t y = 0; y < height; y++) {
        cudaError_t e = copy_submit((uint8_t *)dst + y * dpitch,
                                    (const uint8_t *)src + y * spitch, width, kind, stream,
                                    stream == NULL);
        if (e)
            return e;
    }
    return cudaSuccess;
}

EXPORT cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                                size_t width, size_t height, enum cudaMemcpyKind kind)
{
    return copy2d(dst, dpitch, src, spitch, width, height, kind, NULL);
}

EXPORT cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                     size_t width, size_t height, enum cudaMemcpyKind kind,
                                     cudaStream_t stream)
{
    return copy2d(dst, dpitch, src, spitch, width, height, kind, stream);
}

static cudaError_t copy3d(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
    if (!p)
        return ret(cudaErrorInvalidValue);
    if (p->srcArray || p->dstArray) {
        not_supported("cudaMemcpy3D with CUDA arrays");
        return ret(cudaErrorNotSupported);
    }
    const struct cudaPitchedPtr *s = &p->srcPtr, *d = &p->dstPtr;
    size_t w = p->extent.width, h = p->extent.height, dep = p->extent.depth;
    for (size_t z = 0; z < dep; z++)
        for (size_t y = 0; y < h; y++) {
            size_t so = ((z + p->srcPos.z) * s->ysize + y + p->srcPos.y) * s->pitch + p->srcPos.x;
            size_t dof = ((z + p->dstPos.z) * d->ysize + y + p->dstPos.y) * d->pitch + p->dstPos.x;
            cudaError_t e = copy_submit((uint8_t *)d->ptr + dof, (const uint8_t *)s->ptr + so, w,
                                        p->kind, stream, stream == NULL);
            if (e)
                return e;
        }
    return cudaSuccess;
}

EXPORT cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p)
{
    return copy3d(p, NULL);
}

EXPORT cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
    return copy3d(p, stream);
}

static cudaError_t run_memset2d(void *dst, size_t pitch, int value, size_t width, size_t height)
{
    struct mem *m = dmem();
    if (!m)
        return cudaErrorInitializationError;
    for (size_t y = 0; y < height; y++) {
        uint8_t *row = (uint8_t *)dst + y * pitch;
        if (width && !dev_range(m, row, width))
            return cudaErrorInvalidValue;
        memset(row, value, width);
    }
    return cudaSuccess;
}

static cudaError_t memset_submit(void *dst, size_t pitch, int value, size_t width, size_t height,
                                 cudaStream_t stream)
{
    CHECK_STICKY();
    if (!stream_ok(stream))
        return ret(cudaErrorInvalidResourceHandle);
    if (height > 1 && width > pitch)
        return ret(cudaErrorInvalidValue);
    if (width && height && !dst)
        return ret(cudaErrorInvalidValue);
    struct CUstream_st *so = stream_obj(stream);
    if (so && so->capture) {
        struct CUgraphNode_st *nd = node_new(NK_MEMSET);
        if (!nd)
            return ret(cudaErrorMemoryAllocation);
        nd->dst = dst;
        nd->pitch = pitch;
        nd->value = (unsigned)value & 0xff;
        nd->elem = 1;
        nd->width = width;
        nd->height = height;
        return ret(submit(stream, nd));
    }
    struct mem *m = dmem();
    if (!m)
        return ret(cudaErrorInitializationError);
    for (size_t y = 0; y < height; y++)
        if (width && !dev_range(m, (uint8_t *)dst + y * pitch, width))
            return ret(cudaErrorInvalidValue);
    struct CUgraphNode_st *nd = node_new(NK_MEMSET);
    if (!nd)
        return ret(cudaErrorMemoryAllocation);
    nd->dst = dst;
    nd->pitch = pitch;
    nd->value = (unsigned)value & 0xff;
    nd->elem = 1;
    nd->width = width;
    nd->height = height;
    return ret(submit(stream, nd));
}

EXPORT cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
    return memset_submit(devPtr, count, value, count, 1, NULL);
}

EXPORT cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    return memset_submit(devPtr, count, value, count, 1, stream);
}

EXPORT cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width,
                                size_t height)
{
    return memset_submit(devPtr, pitch, value, width, height, NULL);
}

EXPORT cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width,
                                     size_t height, cudaStream_t stream)
{
    return memset_submit(devPtr, pitch, value, width, height, stream);
}

EXPORT cudaError_t cudaMemset3D(struct cudaPitchedPtr p, int value, struct cudaExtent e)
{
    for (size_t z = 0; z < e.depth; z++) {
        cudaError_t r = memset_submit((uint8_t *)p.ptr + z * p.pitch * p.ysize, p.pitch, value,
                                      e.width, e.height, NULL);
        if (r)
            return r;
    }
    return cudaSuccess;
}

EXPORT cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr p, int value, struct cudaExtent e,
                                     cudaStream_t stream)
{
    (void)stream;
    return cudaMemset3D(p, value, e);
}

/* A registered variable's device storage (loads its module). */
static cudaError_t symbol_lookup(const void *symbol, uint64_t *addr, uint64_t *size)
{
    struct rt_ctx *c = ctx();
    struct rt_var *v = rt_find_var(c, symbol);
    if (!v)
        return cudaErrorInvalidSymbol;
    int e = rt_fatbin_load(c, v->fb);
    if (e)
        return (cudaError_t)e;
    if (!v->addr)
        return cudaErrorInvalidSymbol;
    *addr = v->addr;
    *size = v->size;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol)
{
    CHECK_STICKY();
    uint64_t a, s;
    if (!devPtr)
        return ret(cudaErrorInvalidValue);
    cudaError_t e = symbol_lookup(symbol, &a, &s);
    if (e)
        return ret(e);
    *devPtr = (void *)(uintptr_t)a;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol)
{
    CHECK_STICKY();
    uint64_t a, s;
    if (!size)
        return ret(cudaErrorInvalidValue);
    cudaError_t e = symbol_lookup(symbol, &a, &s);
    if (e)
        return ret(e);
    *size = s;
    return cudaSuccess;
}

static cudaError_t symbol_copy(bool to, void *host, const void *symbol, size_t count,
                               size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream,
                               bool blocking)
{
    CHECK_STICKY();
    uint64_t a, s;
    cudaError_t e = symbol_lookup(symbol, &a, &s);
    if (e)
        return ret(e);
    if (offset > s || count > s - offset)
        return ret(cudaErrorInvalidValue);
    if (to && kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice &&
        kind != cudaMemcpyDefault)
        return ret(cudaErrorInvalidMemcpyDirection);
    if (!to && kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice &&
        kind != cudaMemcpyDefault)
        return ret(cudaErrorInvalidMemcpyDirection);
    void *dev = (void *)(uintptr_t)(a + offset);
    return to ? copy_submit(dev, host, count, kind, stream, blocking)
              : copy_submit(host, dev, count, kind, stream, blocking);
}

EXPORT cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count,
                                      size_t offset, enum cudaMemcpyKind kind)
{
    return symbol_copy(true, (void *)src, symbol, count, offset, kind, NULL, true);
}

EXPORT cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count,
                                        size_t offset, enum cudaMemcpyKind kind)
{
    return symbol_copy(false, dst, symbol, count, offset, kind, NULL, true);
}

EXPORT cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                           size_t offset, enum cudaMemcpyKind kind,
                                           cudaStream_t stream)
{
    return symbol_copy(true, (void *)src, symbol, count, offset, kind, stream, false);
}

EXPORT cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count,
                                             size_t offset, enum cudaMemcpyKind kind,
                                             cudaStream_t stream)
{
    return symbol_copy(false, dst, symbol, count, offset, kind, stream, false);
}

EXPORT cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count,
                                        struct cudaMemLocation location, unsigned int flags,
                                        cudaStream_t stream)
{
    (void)location;
    (void)flags;
    CHECK_STICKY();
    struct mem *m = dmem();
    if (!m || !dev_range(m, devPtr, count))
        return ret(cudaErrorInvalidValue);
    return stream_ok(stream) ? cudaSuccess : ret(cudaErrorInvalidResourceHandle);
}

EXPORT cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
                                 struct cudaMemLocation location)
{
    (void)advice;
    (void)location;
    struct mem *m = dmem();
    if (!m || !dev_range(m, devPtr, count))
        return ret(cudaErrorInvalidValue);
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length,
                                            unsigned int flags)
{
    (void)length;
    (void)flags;
    if (!stream_ok(stream))
        return ret(cudaErrorInvalidResourceHandle);
    struct mem *m = dmem();
    if (!m || !dev_range(m, devPtr, 1))
        return ret(cudaErrorInvalidValue);
    return cudaSuccess;
}

/* Stream-ordered allocation (runs in order like everything else). */
EXPORT cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream)
{
    if (!stream_ok(hStream))
        return ret(cudaErrorInvalidResourceHandle);
    return alloc_common(devPtr, size, MEM_F_DEVICE);
}

EXPORT cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool,
                                           cudaStream_t stream)
{
    if (!memPool)
        return ret(cudaErrorInvalidValue);
    return cudaMallocAsync(ptr, size, stream);
}

EXPORT cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream)
{
    CHECK_STICKY();
    if (!stream_ok(hStream))
        return ret(cudaErrorInvalidResourceHandle);
    struct mem *m = dmem();
    const struct mem_alloc *a = m ? mem_find(m, (uint64_t)(uintptr_t)devPtr, 1) : NULL;
    if (!a || a->base != (uint64_t)(uintptr_t)devPtr || !(a->flags & MEM_F_DEVICE))
        return ret(cudaErrorInvalidValue);
    struct CUgraphNode_st *nd = node_new(NK_MEMFREE);
    if (!nd)
        return ret(cudaErrorMemoryAllocation);
    nd->dst = devPtr;
    return ret(submit(hStream, nd));
}

/* The one memory pool of the device (attributes are accepted and remembered). */

EXPORT cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device)
{
    if (!memPool)
        return ret(cudaErrorInvalidValue);
    if (device != 0)
        return ret(cudaErrorInvalidDevice);
    *memPool = &G.pool;
    return cudaSuccess;
}

EXPORT cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device)
{
    return cudaDeviceGetDefaultMemPool(memPool, device);
}

EXPORT cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
                                           void *value)
{
    if (memPool != &G.pool || !value)
        return ret(cudaErrorInvalidValue);
    if (attr == cudaMemPoolAttrReleaseThreshold)
        memcpy(&G.pool.threshold, value, sizeof G.pool.threshold);
    return cudaSuccess;
}

EXPORT cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
                                           void *value)
{
    if (memPool != &G.pool || !value)
        return ret(cudaErrorInvalidValue);
    switch (attr) {
    case cudaMemPoolAttrReleaseThreshold:
        memcpy(value, &G.pool.threshold, sizeof G.pool.threshold);
        break;
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
        *(int *)value = 1;
        break;
    default:
        *(unsigned long long *)value = 0;
        break;
    }
    return cudaSuccess;
}

EXPORT cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep)
{
    (void)minBytesToKeep;
    return memPool == &G.pool ? cudaSuccess : ret(cudaErrorInvalidValue);
}

EXPORT cudaError_t cudaDeviceGraphMemTrim(int device)
{
    return device == 0 ? cudaSuccess : ret(cudaErrorInvalidDevice);
}

EXPORT cudaError_t cudaDeviceGetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr,
                                                  void *value)
{
    (void)attr;
    if (device != 0)
        return ret(cudaErrorInvalidDevice);
    if (!value)
        return ret(cudaErrorInvalidValue);
    *(unsigned long long *)value = 0;
    return cudaSuccess;
}

/* ======================================================================= arrays / textures */

EXPORT cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                                   size_t width, size_t height, unsigned int flags)
{
    (void)array;
    (void)desc;
    (void)width;
    (void)height;
    (void)flags;
    not_supported("cudaMallocArray (CUDA arrays)");
    return ret(cudaErrorNotSupported);
}

EXPORT cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                                     struct cudaExtent extent, unsigned int flags)
{
    (void)array;
    (void)desc;
    (void)extent;
    (void)flags;
    not_supported("cudaMalloc3DArray (CUDA arrays)");
    return ret(cudaErrorNotSupported);
}

EXPORT cudaError_t cudaFreeArray(cudaArray_t array)
{
    if (!array)
        return cudaSuccess;
    not_supported("cudaFreeArray (CUDA arrays)");
    return ret(cudaErrorNotSupported);
}

EXPORT cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                     const void *src, size_t count, enum cudaMemcpyKind kind)
{
    (void)dst;
    (void)wOffset;
    (void)hOffset;
    (void)src;
    (void)count;
    (void)kind;
    not_supported("cudaMemcpyToArray (CUDA arrays)");
    return ret(cudaErrorNotSupported);
}

EXPORT cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                       const void *src, size_t spitch, size_t width,
                                       size_t height, enum cudaMemcpyKind kind)
{
    (void)dst;
    (void)wOffset;
    (void)hOffset;
    (void)src;
    (void)spitch;
    (void)width;
    (void)height;
    (void)kind;
    not_supported("cudaMemcpy2DToArray (CUDA arrays)");
    return ret(cudaErrorNotSupported);
}

EXPORT struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                          enum cudaChannelFormatKind f)
{
    struct cudaChannelFormatDesc d = {x, y, z, w, f};
    return d;
}

EXPORT cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject,
                                           const struct cudaResourceDesc *pResDesc,
                                           const struct cudaTextureDesc *pTexDesc,
                                           const struct cudaResourceViewDesc *pResViewDesc)
{
    (void)pTexObject;
    (void)pResDesc;
    (void)pTexDesc;
    (void)pResViewDesc;
    not_supported("cudaCreateTextureObject (textures)");
    return ret(cudaErrorNotSupported);
}

EXPORT cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject)
{
    (void)texObject;
    not_supported("cudaDestroyTextureObject (textures)");
    return ret(cudaErrorNotSupported);
}

EXPORT cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject,
                                           const struct cudaResourceDesc *pResDesc)
{
    (void)pSurfObject;
    (void)pResDesc;
    not_supported("cudaCreateSurfaceObject (surfaces)");
    return ret(cudaErrorNotSupported);
}

EXPORT cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject)
{
    (void)surfObject;
    not_supported("cudaDestroySurfaceObject (surfaces)");
    return ret(cudaErrorNotSupported);
}

/* ============================================================================ stream API */


static cudaError_t stream_create(cudaStream_t *pStream, unsigned flags, int priority)
{
    if (!pStream)
        return ret(cudaErrorInvalidValue);
    if (flags & ~(unsigned)cudaStreamNonBlocking)
        return ret(cudaErrorInvalidValue);
    struct CUstream_st *s = calloc(1, sizeof *s);
    if (!s)
        return ret(cudaErrorMemoryAllocation);
    s->magic = STREAM_MAGIC;
    s->flags = flags;
    s->priority = priority < -5 ? -5 : priority > 0 ? 0 : priority;
    s->id = __atomic_fetch_add(&G.next_stream_id, 1, __ATOMIC_RELAXED);
    if (hs_add(&G.streams, s) < 0) {
        free(s);
        return ret(cudaErrorMemoryAllocation);
    }
    *pStream = s;
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
    CHECK_STICKY();
    return stream_create(pStream, 0, 0);
}

EXPORT cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
    CHECK_STICKY();
    return stream_create(pStream, flags, 0);
}

EXPORT cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags,
                                                int priority)
{
    CHECK_STICKY();
    return stream_create(pStream, flags, priority);
}

EXPORT cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    if (!stream || stream == cudaStreamLegacy || stream == cudaStreamPerThread)
        return ret(cudaErrorInvalidResourceHandle);
    if (!hs_del(&G.streams, stream))
        return ret(cudaErrorInvalidResourceHandle);
    if (stream->capture)
        graph_free(stream->capture);
    stream->magic = 0;
    free(stream);
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    if (!stream_ok(stream))
        return ret(cudaErrorInvalidResourceHandle);
    struct CUstream_st *so = stream_obj(stream);
    if (so && so->capture)
        return ret(cudaErrorStreamCaptureUnsupported);
    sync_point(so ? so->last_seq : 0);
    return ret(take_async_error());
}

EXPORT cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    if (!stream_ok(stream))
        return ret(cudaErrorInvalidResourceHandle);
    CHECK_STICKY();
    struct CUstream_st *so = stream_obj(stream);
    struct rt_ctx *c = ctx();
    pthread_mutex_lock(&c->q.mu);
    uint64_t last = so ? so->last_seq : c->q.submitted;
    pthread_mutex_unlock(&c->q.mu);
    return rt_done(c, last) ? cudaSuccess : cudaErrorNotReady;
}

EXPORT cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags)
{
    if (!flags)
        return ret(cudaErrorInvalidValue);
    if (!stream_ok(hStream))
        return ret(cudaErrorInvalidResourceHandle);
    struct CUstream_st *so = stream_obj(hStream);
    *flags = so ? so->flags : 0;
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority)
{
    if (!priority)
        return ret(cudaErrorInvalidValue);
    if (!stream_ok(hStream))
        return ret(cudaErrorInvalidResourceHandle);
    struct CUstream_st *so = stream_obj(hStream);
    *priority = so ? so->priority : 0;
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamGetId(cudaStream_t hStream, unsigned long long *streamId)
{
    if (!streamId)
        return ret(cudaErrorInvalidValue);
    if (!stream_ok(hStream))
        return ret(cudaErrorInvalidResourceHandle);
    struct CUstream_st *so = stream_obj(hStream);
    *streamId = so ? so->id : (hStream == cudaStreamPerThread ? 2 : 1);
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    if (!stream_ok(stream) || !hs_has(&G.events, event))
        return ret(cudaErrorInvalidResourceHandle);
    if (flags & ~1u)
        return ret(cudaErrorInvalidValue);
    return ret(sticky());
}

struct callback_op {
    cudaStreamCallback_t fn;
    cudaStream_t stream;
    void *user;
};

static void callback_run(struct rt_ctx *c, void *arg)
{
    struct callback_op *op = arg;
    pthread_mutex_lock(&c->lock);
    int st = c->sticky;
    pthread_mutex_unlock(&c->lock);
    op->fn(op->stream, (cudaError_t)st, op->user);
    free(op);
}

EXPORT cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                         void *userData, unsigned int flags)
{
    if (!callback || flags)
        return ret(cudaErrorInvalidValue);
    if (!stream_ok(stream))
        return ret(cudaErrorInvalidResourceHandle);
    struct callback_op *op = malloc(sizeof *op);
    if (!op)
        return ret(cudaErrorMemoryAllocation);
    op->fn = callback;
    op->stream = stream;
    op->user = userData;
    note_seq(stream, rt_submit(ctx(), callback_run, op));
    return cudaSuccess;
}

EXPORT cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    CHECK_STICKY();
    if (!fn)
        return ret(cudaErrorInvalidValue);
    if (!stream_ok(stream))
        return ret(cudaErrorInvalidResourceHandle);
    struct CUgraphNode_st *nd = node_new(NK_HOST);
    if (!nd)
        return ret(cudaErrorMemoryAllocation);
    nd->fn = fn;
    nd->user = userData;
    return ret(submit(stream, nd));
}

EXPORT cudaError_t cudaStreamSetAttribute(cudaStream_t hStream, cudaStreamAttrID attr,
                                          const cudaStreamAttrValue *value)
{
    (void)attr;
    if (!value)
        return ret(cudaErrorInvalidValue);
    if (!stream_ok(hStream))
        return ret(cudaErrorInvalidResourceHandle);
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamGetAttribute(cudaStream_t hStream, cudaStreamAttrID attr,
                                          cudaStreamAttrValue *value_out)
{
    (void)attr;
    if (!value_out)
        return ret(cudaErrorInvalidValue);
    if (!stream_ok(hStream))
        return ret(cudaErrorInvalidResourceHandle);
    memset(value_out, 0, sizeof *value_out);
    return cudaSuccess;
}

/* ----------------------------------------------------------------------- stream capture */


EXPORT cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
    CHECK_STICKY();
    if (!stream_ok(stream))
        return ret(cudaErrorInvalidResourceHandle);
    struct CUstream_st *so = stream_obj(stream);
    if (!so)
        return ret(cudaErrorStreamCaptureUnsupported);
    if (so->capture)
        return ret(cudaErrorIllegalState);
    if ((unsigned)mode > cudaStreamCaptureModeRelaxed)
        return ret(cudaErrorInvalidValue);
    so->capture = calloc(1, sizeof *so->capture);
    if (!so->capture)
        return ret(cudaErrorMemoryAllocation);
    so->capture_mode = mode;
    so->capture_id = __atomic_fetch_add(&G.next_capture_id, 1, __ATOMIC_RELAXED);
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                                 const cudaGraphNode_t *dependencies,
                                                 const cudaGraphEdgeData *dependencyData,
                                                 size_t numDependencies,
                                                 enum cudaStreamCaptureMode mode)
{
    (void)dependencies;
    (void)dependencyData;
    (void)numDependencies;
    (void)graph;
    (void)mode;
    (void)stream;
    not_supported("cudaStreamBeginCaptureToGraph");
    return ret(cudaErrorNotSupported);
}

EXPORT cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph)
{
    if (!pGraph)
        return ret(cudaErrorInvalidValue);
    if (!stream_ok(stream))
        return ret(cudaErrorInvalidResourceHandle);
    struct CUstream_st *so = stream_obj(stream);
    if (!so || !so->capture)
        return ret(cudaErrorIllegalState);
    *pGraph = so->capture;
    so->capture = NULL;
    if (hs_add(&G.graphs, *pGraph) < 0)
        return ret(cudaErrorMemoryAllocation);
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
                                         enum cudaStreamCaptureStatus *pCaptureStatus)
{
    if (!pCaptureStatus)
        return ret(cudaErrorInvalidValue);
    if (!stream_ok(stream))
        return ret(cudaErrorInvalidResourceHandle);
    struct CUstream_st *so = stream_obj(stream);
    *pCaptureStatus = so && so->capture ? cudaStreamCaptureStatusActive
                                        : cudaStreamCaptureStatusNone;
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
                                            enum cudaStreamCaptureStatus *captureStatus_out,
                                            unsigned long long *id_out, cudaGraph_t *graph_out,
                                            const cudaGraphNode_t **dependencies_out,
                                            const cudaGraphEdgeData **edgeData_out,
                                            size_t *numDependencies_out)
{
    if (!captureStatus_out)
        return ret(cudaErrorInvalidValue);
    if (!stream_ok(stream))
        return ret(cudaErrorInvalidResourceHandle);
    struct CUstream_st *so = stream_obj(stream);
    bool on = so && so->capture;
    *captureStatus_out = on ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
    if (id_out)
        *id_out = on ? so->capture_id : 0;
    if (graph_out)
        *graph_out = on ? so->capture : NULL;
    if (dependencies_out)
        *dependencies_out = on && so->capture->n ? &so->capture->nodes[so->capture->n - 1] : NULL;
    if (edgeData_out)
        *edgeData_out = NULL;
    if (numDependencies_out)
        *numDependencies_out = on && so->capture->n ? 1 : 0;
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream,
                                                       cudaGraphNode_t *dependencies,
                                                       const cudaGraphEdgeData *dependencyData,
                                                       size_t numDependencies, unsigned int flags)
{
    (void)dependencies;
    (void)dependencyData;
    (void)numDependencies;
    if (flags > 1)
        return ret(cudaErrorInvalidValue);
    struct CUstream_st *so = stream_ok(stream) ? stream_obj(stream) : NULL;
    if (!so || !so->capture)
        return ret(cudaErrorIllegalState);
    return cudaSuccess; /* nodes run in capture order, which respects every dependency */
}

EXPORT cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
    if (!mode)
        return ret(cudaErrorInvalidValue);
    return cudaSuccess;
}

/* ================================================================================= events */

EXPORT cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    CHECK_STICKY();
    if (!event || (flags & ~(unsigned)(cudaEventBlockingSync | cudaEventDisableTiming |
                                       cudaEventInterprocess)))
        return ret(cudaErrorInvalidValue);
    if ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming))
        return ret(cudaErrorInvalidValue);
    struct CUevent_st *e = calloc(1, sizeof *e);
    if (!e)
        return ret(cudaErrorMemoryAllocation);
    e->magic = EVENT_MAGIC;
    e->flags = flags;
    if (hs_add(&G.events, e) < 0) {
        free(e);
        return ret(cudaErrorMemoryAllocation);
    }
    *event = e;
    return cudaSuccess;
}

EXPORT cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    return cudaEventCreateWithFlags(event, cudaEventDefault);
}

EXPORT cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    if (!event || !hs_del(&G.events, event))
        return ret(cudaErrorInvalidResourceHandle);
    rt_wait(ctx(), event->seq); /* a pending record still points at it */
    event->magic = 0;
    free(event);
    return cudaSuccess;
}

EXPORT cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
                                            unsigned int flags)
{
    CHECK_STICKY();
    if (!event || !hs_has(&G.events, event) || !stream_ok(stream))
        return ret(cudaErrorInvalidResourceHandle);
    if (flags & ~1u)
        return ret(cudaErrorInvalidValue);
    struct CUgraphNode_st *nd = node_new(NK_EVENT_RECORD);
    if (!nd)
        return ret(cudaErrorMemoryAllocation);
    nd->event = event;
    struct CUstream_st *so = stream_obj(stream);
    if (so && so->capture)
        return ret(submit(stream, nd));
    event->seq = rt_submit(ctx(), node_op, nd);
    note_seq(stream, event->seq);
    return cudaSuccess;
}

EXPORT cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    return cudaEventRecordWithFlags(event, stream, 0);
}

EXPORT cudaError_t cudaEventQuery(cudaEvent_t event)
{
    if (!event || !hs_has(&G.events, event))
        return ret(cudaErrorInvalidResourceHandle);
    CHECK_STICKY();
    return rt_done(ctx(), event->seq) ? cudaSuccess : cudaErrorNotReady;
}

EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    if (!event || !hs_has(&G.events, event))
        return ret(cudaErrorInvalidResourceHandle);
    sync_point(event->seq);
    return ret(take_async_error());
}

EXPORT cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    if (!ms)
        return ret(cudaErrorInvalidValue);
    if (!start || !end || !hs_has(&G.events, start) || !hs_has(&G.events, end))
        return ret(cudaErrorInvalidResourceHandle);
    if ((start->flags | end->flags) & cudaEventDisableTiming)
        return ret(cudaErrorInvalidResourceHandle);
    if (!start->seq || !end->seq)
        return ret(cudaErrorInvalidResourceHandle);
    if (!rt_done(ctx(), start->seq) || !rt_done(ctx(), end->seq))
        return ret(cudaErrorNotReady);
    double d = (double)(end->when.tv_sec - start->when.tv_sec) * 1e3 +
               (double)(end->when.tv_nsec - start->when.tv_nsec) / 1e6;
    *ms = (float)d;
    return cudaSuccess;
}

/* ================================================================================= graphs */

EXPORT cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags)
{
    if (!pGraph || flags)
        return ret(cudaErrorInvalidValue);
    struct CUgraph_st *g = calloc(1, sizeof *g);
    if (!g || hs_add(&G.graphs, g) < 0) {
        free(g);
        return ret(cudaErrorMemoryAllocation);
    }
    *pGraph = g;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    if (!graph || !hs_del(&G.graphs, graph))
        return ret(cudaErrorInvalidValue);
    graph_free(graph);
    return cudaSuccess;
}

static cudaError_t graph_add(cudaGraphNode_t *pNode, cudaGraph_t graph,
                             const cudaGraphNode_t *deps, size_t ndeps,
                             struct CUgraphNode_st *nd)
{
    if (!nd)
        return ret(cudaErrorMemoryAllocation);
    if (!pNode || !graph || !hs_has(&G.graphs, graph) || (ndeps && !deps)) {
        node_free(nd);
        return ret(cudaErrorInvalidValue);
    }
    for (size_t i = 0; i < ndeps; i++)
        if (!deps[i] || deps[i]->graph != graph) {
            node_free(nd);
            return ret(cudaErrorInvalidValue);
        }
    if (graph_push(graph, nd) < 0) {
        node_free(nd);
        return ret(cudaErrorMemoryAllocation);
    }
    *pNode = nd;
    return cudaSuccess;
}

static struct CUgraphNode_st *kernel_node(const struct cudaKernelNodeParams *p, cudaError_t *err)
{
    *err = cudaErrorInvalidValue;
    if (!p)
        return NULL;
    struct rt_func *f;
    if ((*err = func_loaded(p->func, &f)))
        return NULL;
    struct CUgraphNode_st *nd = node_new(NK_KERNEL);
    uint32_t n = f->info.param_size_total;
    if (!nd || !(nd->params = malloc(n ? n : 1))) {
        node_free(nd);
        *err = cudaErrorMemoryAllocation;
        return NULL;
    }
    if (p->extra) {
        node_free(nd);
        *err = cudaErrorNotSupported;
        return NULL;
    }
    if (rt_build_params(&f->info, p->kernelParams, nd->params)) {
        node_free(nd);
        *err = cudaErrorInvalidValue;
        return NULL;
    }
    nd->func = f;
    nd->grid[0] = p->gridDim.x;
    nd->grid[1] = p->gridDim.y;
    nd->grid[2] = p->gridDim.z;
    nd->block[0] = p->blockDim.x;
    nd->block[1] = p->blockDim.y;
    nd->block[2] = p->blockDim.z;
    nd->shared = p->sharedMemBytes;
    *err = cudaSuccess;
    return nd;
}

EXPORT cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                          const cudaGraphNode_t *pDependencies,
                                          size_t numDependencies,
                                          const struct cudaKernelNodeParams *pNodeParams)
{
    cudaError_t e;
    struct CUgraphNode_st *nd = kernel_node(pNodeParams, &e);
    if (!nd)
        return ret(e);
    return graph_add(pGraphNode, graph, pDependencies, numDependencies, nd);
}

EXPORT cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                            const cudaGraphNode_t *pDependencies,
                                            size_t numDependencies, void *dst, const void *src,
                                            size_t count, enum cudaMemcpyKind kind)
{
    if ((unsigned)kind > cudaMemcpyDefault)
        return ret(cudaErrorInvalidMemcpyDirection);
    struct CUgraphNode_st *nd = node_new(NK_MEMCPY);
    if (nd) {
        nd->dst = dst;
        nd->src = src;
        nd->size = count;
    }
    return graph_add(pGraphNode, graph, pDependencies, numDependencies, nd);
}

EXPORT cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                          const cudaGraphNode_t *pDependencies,
                                          size_t numDependencies,
                                          const struct cudaMemcpy3DParms *p)
{
    if (!p)
        return ret(cudaErrorInvalidValue);
    if (p->srcArray || p->dstArray) {
        not_supported("graph memcpy nodes with CUDA arrays");
        return ret(cudaErrorNotSupported);
    }
    /* 1D-equivalent copies only: contiguous rows */
    size_t w = p->extent.width, h = p->extent.height ? p->extent.height : 1,
           d = p->extent.depth ? p->extent.depth : 1;
    bool contiguous = (h * d == 1) || (p->srcPtr.pitch == w && p->dstPtr.pitch == w &&
                                       (d == 1 || (p->srcPtr.ysize == h && p->dstPtr.ysize == h)));
    if (!contiguous || p->srcPos.x || p->srcPos.y || p->srcPos.z || p->dstPos.x ||
        p->dstPos.y || p->dstPos.z) {
        not_supported("pitched graph memcpy nodes");
        return ret(cudaErrorNotSupported);
    }
    return cudaGraphAddMemcpyNode1D(pGraphNode, graph, pDependencies, numDependencies,
                                    p->dstPtr.ptr, p->srcPtr.ptr, w * h * d, p->kind);
}

EXPORT cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                          const cudaGraphNode_t *pDependencies,
                                          size_t numDependencies,
                                          const struct cudaMemsetParams *p)
{
    if (!p || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4) ||
        !p->height)
        return ret(cudaErrorInvalidValue);
    struct CUgraphNode_st *nd = node_new(NK_MEMSET);
    if (nd) {
        nd->dst = p->dst;
        nd->pitch = p->height > 1 ? p->pitch : p->width * p->elementSize;
        nd->value = p->value;
        nd->elem = p->elementSize;
        nd->width = p->width;
        nd->height = p->height;
    }
    return graph_add(pGraphNode, graph, pDependencies, numDependencies, nd);
}

EXPORT cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                        const cudaGraphNode_t *pDependencies,
                                        size_t numDependencies,
                                        const struct cudaHostNodeParams *p)
{
    if (!p || !p->fn)
        return ret(cudaErrorInvalidValue);
    struct CUgraphNode_st *nd = node_new(NK_HOST);
    if (nd) {
        nd->fn = p->fn;
        nd->user = p->userData;
    }
    return graph_add(pGraphNode, graph, pDependencies, numDependencies, nd);
}

EXPORT cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                         const cudaGraphNode_t *pDependencies,
                                         size_t numDependencies)
{
    return graph_add(pGraphNode, graph, pDependencies, numDependencies, node_new(NK_EMPTY));
}

EXPORT cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                              const cudaGraphNode_t *pDependencies,
                                              size_t numDependencies, cudaGraph_t childGraph)
{
    if (!childGraph || !hs_has(&G.graphs, childGraph))
        return ret(cudaErrorInvalidValue);
    struct CUgraphNode_st *nd = node_new(NK_GRAPH);
    if (nd && !(nd->child = graph_clone(childGraph))) {
        free(nd);
        nd = NULL;
    }
    return graph_add(pGraphNode, graph, pDependencies, numDependencies, nd);
}

EXPORT cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                            const cudaGraphNode_t *pDependencies,
                                            size_t numDependencies,
                                            struct cudaMemAllocNodeParams *nodeParams)
{
    if (!nodeParams || !nodeParams->bytesize)
        return ret(cudaErrorInvalidValue);
    /* CUDA returns the address at node creation: allocate it now, the node is a no-op */
    struct mem *m = dmem();
    uint64_t a;
    if (!m || mem_alloc(m, nodeParams->bytesize, MEM_F_DEVICE, &a) < 0)
        return ret(cudaErrorMemoryAllocation);
    nodeParams->dptr = (void *)(uintptr_t)a;
    return graph_add(pGraphNode, graph, pDependencies, numDependencies, node_new(NK_EMPTY));
}

EXPORT cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                           const cudaGraphNode_t *pDependencies,
                                           size_t numDependencies, void *dptr)
{
    struct CUgraphNode_st *nd = node_new(NK_MEMFREE);
    if (nd)
        nd->dst = dptr;
    return graph_add(pGraphNode, graph, pDependencies, numDependencies, nd);
}

EXPORT cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                    const cudaGraphNode_t *pDependencies,
                                    const cudaGraphEdgeData *dependencyData,
                                    size_t numDependencies, struct cudaGraphNodeParams *p)
{
    (void)dependencyData;
    if (!p)
        return ret(cudaErrorInvalidValue);
    switch (p->type) {
    case cudaGraphNodeTypeKernel:
        return cudaGraphAddKernelNode(pGraphNode, graph, pDependencies, numDependencies,
                                      (const struct cudaKernelNodeParams *)&p->kernel);
    case cudaGraphNodeTypeMemset:
        return cudaGraphAddMemsetNode(pGraphNode, graph, pDependencies, numDependencies,
                                      (const struct cudaMemsetParams *)&p->memset);
    case cudaGraphNodeTypeHost:
        return cudaGraphAddHostNode(pGraphNode, graph, pDependencies, numDependencies,
                                    (const struct cudaHostNodeParams *)&p->host);
    case cudaGraphNodeTypeEmpty:
        return cudaGraphAddEmptyNode(pGraphNode, graph, pDependencies, numDependencies);
    case cudaGraphNodeTypeMemFree:
        return cudaGraphAddMemFreeNode(pGraphNode, graph, pDependencies, numDependencies,
                                       p->free.dptr);
    default:
        not_supported("this cudaGraphAddNode node type");
        return ret(cudaErrorNotSupported);
    }
}

EXPORT cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes)
{
    if (!graph || !numNodes || !hs_has(&G.graphs, graph))
        return ret(cudaErrorInvalidValue);
    if (!nodes) {
        *numNodes = graph->n;
        return cudaSuccess;
    }
    size_t n = *numNodes < graph->n ? *numNodes : graph->n;
    for (size_t i = 0; i < n; i++)
        nodes[i] = graph->nodes[i];
    for (size_t i = n; i < *numNodes; i++)
        nodes[i] = NULL;
    *numNodes = n;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph)
{
    if (!pGraphClone || !originalGraph || !hs_has(&G.graphs, originalGraph))
        return ret(cudaErrorInvalidValue);
    struct CUgraph_st *c = graph_clone(originalGraph);
    if (!c || hs_add(&G.graphs, c) < 0) {
        graph_free(c);
        return ret(cudaErrorMemoryAllocation);
    }
    *pGraphClone = c;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *pHandle_out,
                                                    cudaGraph_t graph,
                                                    unsigned int defaultLaunchValue,
                                                    unsigned int flags)
{
    (void)pHandle_out;
    (void)graph;
    (void)defaultLaunchValue;
    (void)flags;
    not_supported("conditional graph nodes");
    return ret(cudaErrorNotSupported);
}

EXPORT cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                 unsigned long long flags)
{
    (void)flags;
    if (!pGraphExec || !graph || !hs_has(&G.graphs, graph))
        return ret(cudaErrorInvalidValue);
    struct CUgraphExec_st *x = calloc(1, sizeof *x);
    if (!x || !(x->g = graph_clone(graph)) || hs_add(&G.execs, x) < 0) {
        if (x)
            graph_free(x->g);
        free(x);
        return ret(cudaErrorMemoryAllocation);
    }
    *pGraphExec = x;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                        unsigned long long flags)
{
    return cudaGraphInstantiateWithFlags(pGraphExec, graph, flags);
}

EXPORT cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec)
{
    if (!graphExec || !hs_del(&G.execs, graphExec))
        return ret(cudaErrorInvalidValue);
    graph_free(graphExec->g);
    free(graphExec);
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    CHECK_STICKY();
    if (!graphExec || !hs_has(&G.execs, graphExec))
        return ret(cudaErrorInvalidValue);
    if (!stream_ok(stream))
        return ret(cudaErrorInvalidResourceHandle);
    struct CUstream_st *so = stream_obj(stream);
    if (so && so->capture) {
        struct CUgraphNode_st *nd = node_new(NK_GRAPH);
        if (!nd || !(nd->child = graph_clone(graphExec->g))) {
            free(nd);
            return ret(cudaErrorMemoryAllocation);
        }
        return ret(submit(stream, nd));
    }
    struct CUgraphNode_st *nd = node_new(NK_GRAPH);
    if (!nd || !(nd->child = graph_clone(graphExec->g))) {
        free(nd);
        return ret(cudaErrorMemoryAllocation);
    }
    return ret(submit(stream, nd));
}

EXPORT cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    if (!graphExec || !hs_has(&G.execs, graphExec))
        return ret(cudaErrorInvalidValue);
    return stream_ok(stream) ? cudaSuccess : ret(cudaErrorInvalidResourceHandle);
}

EXPORT cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec,
                                                    cudaGraphNode_t node,
                                                    const struct cudaKernelNodeParams *p)
{
    if (!hGraphExec || !hs_has(&G.execs, hGraphExec) || !node || node->kind != NK_KERNEL)
        return ret(cudaErrorInvalidValue);
    /* find the exec's copy: same index as node in its original graph */
    struct CUgraph_st *og = node->graph;
    size_t idx = SIZE_MAX;
    for (size_t i = 0; og && i < og->n; i++)
        if (og->nodes[i] == node)
            idx = i;
    if (idx == SIZE_MAX || idx >= hGraphExec->g->n ||
        hGraphExec->g->nodes[idx]->kind != NK_KERNEL)
        return ret(cudaErrorInvalidValue);
    cudaError_t e;
    struct CUgraphNode_st *nd = kernel_node(p, &e);
    if (!nd)
        return ret(e);
    node_free(hGraphExec->g->nodes[idx]);
    hGraphExec->g->nodes[idx] = nd;
    nd->graph = hGraphExec->g;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                       cudaGraphExecUpdateResultInfo *resultInfo)
{
    if (!hGraphExec || !hs_has(&G.execs, hGraphExec) || !hGraph || !hs_has(&G.graphs, hGraph))
        return ret(cudaErrorInvalidValue);
    bool same = hGraph->n == hGraphExec->g->n;
    for (size_t i = 0; same && i < hGraph->n; i++)
        same = hGraph->nodes[i]->kind == hGraphExec->g->nodes[i]->kind;
    if (resultInfo) {
        memset(resultInfo, 0, sizeof *resultInfo);
        resultInfo->result = same ? cudaGraphExecUpdateSuccess
                                  : cudaGraphExecUpdateErrorTopologyChanged;
    }
    if (!same)
        return ret(cudaErrorGraphExecUpdateFailure);
    struct CUgraph_st *c = graph_clone(hGraph);
    if (!c)
        return ret(cudaErrorMemoryAllocation);
    graph_free(hGraphExec->g);
    hGraphExec->g = c;
    return cudaSuccess;
}

/* ========================================================================= more queries */

EXPORT cudaError_t cudaFuncGetName(const char **name, const void *func)
{
    if (!name)
        return ret(cudaErrorInvalidValue);
    struct rt_func *f = resolve_func(func);
    if (!f)
        return ret(cudaErrorInvalidDeviceFunction);
    *name = f->name;
    return cudaSuccess;
}

EXPORT cudaError_t cudaFuncGetParamInfo(const void *func, size_t paramIndex, size_t *paramOffset,
                                        size_t *paramSize)
{
    struct rt_func *f;
    cudaError_t e = func_loaded(func, &f);
    if (e)
        return ret(e);
    if (paramIndex >= f->info.nparams)
        return ret(cudaErrorInvalidValue);
    if (paramOffset)
        *paramOffset = f->info.param_offset[paramIndex];
    if (paramSize)
        *paramSize = f->info.param_size[paramIndex];
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamGetDevice(cudaStream_t hStream, int *device)
{
    if (!device)
        return ret(cudaErrorInvalidValue);
    if (!stream_ok(hStream))
        return ret(cudaErrorInvalidResourceHandle);
    *device = 0;
    return cudaSuccess;
}

EXPORT cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *pConfig)
{
    if (!pConfig)
        return ret(cudaErrorInvalidValue);
    *pConfig = cudaSharedMemBankSizeFourByte;
    return cudaSuccess;
}

EXPORT cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config)
{
    return (unsigned)config > cudaSharedMemBankSizeEightByte ? ret(cudaErrorInvalidValue)
                                                             : cudaSuccess;
}

EXPORT cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool, const struct cudaMemPoolProps *props)
{
    if (!memPool || !props)
        return ret(cudaErrorInvalidValue);
    struct CUmemPoolHandle_st *p = calloc(1, sizeof *p);
    if (!p)
        return ret(cudaErrorMemoryAllocation);
    *memPool = p;
    return cudaSuccess;
}

EXPORT cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool)
{
    if (!memPool)
        return ret(cudaErrorInvalidValue);
    if (memPool != &G.pool)
        free(memPool);
    return cudaSuccess;
}

EXPORT cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool)
{
    if (device != 0)
        return ret(cudaErrorInvalidDevice);
    return memPool ? cudaSuccess : ret(cudaErrorInvalidValue);
}

EXPORT cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *pType)
{
    if (!node || !pType)
        return ret(cudaErrorInvalidValue);
    static const enum cudaGraphNodeType map[] = {
        [NK_KERNEL] = cudaGraphNodeTypeKernel,     [NK_MEMCPY] = cudaGraphNodeTypeMemcpy,
        [NK_MEMSET] = cudaGraphNodeTypeMemset,     [NK_HOST] = cudaGraphNodeTypeHost,
        [NK_EMPTY] = cudaGraphNodeTypeEmpty,       [NK_MEMALLOC] = cudaGraphNodeTypeMemAlloc,
        [NK_MEMFREE] = cudaGraphNodeTypeMemFree,   [NK_GRAPH] = cudaGraphNodeTypeGraph,
        [NK_EVENT_RECORD] = cudaGraphNodeTypeEventRecord,
        [NK_WAIT_EVENT] = cudaGraphNodeTypeWaitEvent,
    };
    *pType = map[node->kind];
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node,
                                                struct cudaKernelNodeParams *p)
{
    if (!node || !p || node->kind != NK_KERNEL)
        return ret(cudaErrorInvalidValue);
    memset(p, 0, sizeof *p);
    p->func = (void *)node->func->host;
    p->gridDim = dim3_of(node->grid);
    p->blockDim = dim3_of(node->block);
    p->sharedMemBytes = node->shared;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
                                                const struct cudaKernelNodeParams *p)
{
    if (!node || node->kind != NK_KERNEL)
        return ret(cudaErrorInvalidValue);
    cudaError_t e;
    struct CUgraphNode_st *nd = kernel_node(p, &e);
    if (!nd)
        return ret(e);
    free(node->params);
    node->params = nd->params;
    node->func = nd->func;
    memcpy(node->grid, nd->grid, sizeof node->grid);
    memcpy(node->block, nd->block, sizeof node->block);
    node->shared = nd->shared;
    free(nd);
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                               const cudaGraphNode_t *pDependencies,
                                               size_t numDependencies, cudaEvent_t event)
{
    if (!event || !hs_has(&G.events, event))
        return ret(cudaErrorInvalidResourceHandle);
    struct CUgraphNode_st *nd = node_new(NK_EVENT_RECORD);
    if (nd)
        nd->event = event;
    return graph_add(pGraphNode, graph, pDependencies, numDependencies, nd);
}

EXPORT cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                             const cudaGraphNode_t *pDependencies,
                                             size_t numDependencies, cudaEvent_t event)
{
    if (!event || !hs_has(&G.events, event))
        return ret(cudaErrorInvalidResourceHandle);
    struct CUgraphNode_st *nd = node_new(NK_WAIT_EVENT);
    if (nd)
        nd->event = event;
    return graph_add(pGraphNode, graph, pDependencies, numDependencies, nd);
}

/* Nodes run in insertion order, which already follows every dependency given at creation. */
EXPORT cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                            const cudaGraphNode_t *to,
                                            const cudaGraphEdgeData *edgeData,
                                            size_t numDependencies)
{
    (void)edgeData;
    if (!graph || !hs_has(&G.graphs, graph) || (numDependencies && (!from || !to)))
        return ret(cudaErrorInvalidValue);
    for (size_t i = 0; i < numDependencies; i++) {
        size_t fi = SIZE_MAX, ti = SIZE_MAX;
        for (size_t j = 0; j < graph->n; j++) {
            if (graph->nodes[j] == from[i])
                fi = j;
            if (graph->nodes[j] == to[i])
                ti = j;
        }
        if (fi == SIZE_MAX || ti == SIZE_MAX)
            return ret(cudaErrorInvalidValue);
        if (fi > ti) { /* move `to` right after `from` to keep a topological order */
            struct CUgraphNode_st *t = graph->nodes[ti];
            memmove(&graph->nodes[ti], &graph->nodes[ti + 1], (fi - ti) * sizeof t);
            graph->nodes[fi] = t;
        }
    }
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node)
{
    if (!node || !node->graph)
        return ret(cudaErrorInvalidValue);
    struct CUgraph_st *g = node->graph;
    for (size_t i = 0; i < g->n; i++)
        if (g->nodes[i] == node) {
            memmove(&g->nodes[i], &g->nodes[i + 1], (g->n - i - 1) * sizeof node);
            g->n--;
            node_free(node);
            return cudaSuccess;
        }
    return ret(cudaErrorInvalidValue);
}

EXPORT cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr,
                                           unsigned long long flags,
                                           enum cudaDriverEntryPointQueryResult *driverStatus)
{
    (void)flags;
    if (!symbol || !funcPtr)
        return ret(cudaErrorInvalidValue);
    *funcPtr = NULL;
    if (driverStatus)
        *driverStatus = cudaDriverEntryPointSymbolNotFound;
    fprintf(stderr, "ptxemu: the CUDA driver API (%s) is not available on the emulator\n", symbol);
    return ret(cudaErrorNotSupported);
}

/* ===================================================== per-thread default stream variants */

/* All work runs in order on the calling thread, so the per-thread default stream (_ptsz /
 * _ptds entry points, nvcc --default-stream per-thread) behaves like the legacy one. */
#define ALIAS(name, target) \
    EXPORT __typeof__(target) name __attribute__((alias(#target)));

ALIAS(cudaLaunchKernel_ptsz, cudaLaunchKernel)
ALIAS(cudaLaunchCooperativeKernel_ptsz, cudaLaunchCooperativeKernel)
ALIAS(cudaLaunchKernelExC_ptsz, cudaLaunchKernelExC)
ALIAS(cudaLaunchHostFunc_ptsz, cudaLaunchHostFunc)
ALIAS(cudaMemcpy_ptds, cudaMemcpy)
ALIAS(cudaMemcpyAsync_ptsz, cudaMemcpyAsync)
ALIAS(cudaMemcpy2D_ptds, cudaMemcpy2D)
ALIAS(cudaMemcpy2DAsync_ptsz, cudaMemcpy2DAsync)
ALIAS(cudaMemcpy3D_ptds, cudaMemcpy3D)
ALIAS(cudaMemcpy3DAsync_ptsz, cudaMemcpy3DAsync)
ALIAS(cudaMemcpyToSymbol_ptds, cudaMemcpyToSymbol)
ALIAS(cudaMemcpyFromSymbol_ptds, cudaMemcpyFromSymbol)
ALIAS(cudaMemcpyToSymbolAsync_ptsz, cudaMemcpyToSymbolAsync)
ALIAS(cudaMemcpyFromSymbolAsync_ptsz, cudaMemcpyFromSymbolAsync)
ALIAS(cudaMemset_ptds, cudaMemset)
ALIAS(cudaMemsetAsync_ptsz, cudaMemsetAsync)
ALIAS(cudaMemset2D_ptds, cudaMemset2D)
ALIAS(cudaMemset2DAsync_ptsz, cudaMemset2DAsync)
ALIAS(cudaMemset3D_ptds, cudaMemset3D)
ALIAS(cudaMemset3DAsync_ptsz, cudaMemset3DAsync)
ALIAS(cudaMallocAsync_ptsz, cudaMallocAsync)
ALIAS(cudaFreeAsync_ptsz, cudaFreeAsync)
ALIAS(cudaMallocFromPoolAsync_ptsz, cudaMallocFromPoolAsync)
ALIAS(cudaMemPrefetchAsync_ptsz, cudaMemPrefetchAsync)
ALIAS(cudaStreamAddCallback_ptsz, cudaStreamAddCallback)
ALIAS(cudaStreamAttachMemAsync_ptsz, cudaStreamAttachMemAsync)
ALIAS(cudaStreamBeginCapture_ptsz, cudaStreamBeginCapture)
ALIAS(cudaStreamBeginCaptureToGraph_ptsz, cudaStreamBeginCaptureToGraph)
ALIAS(cudaStreamEndCapture_ptsz, cudaStreamEndCapture)
ALIAS(cudaStreamGetCaptureInfo_ptsz, cudaStreamGetCaptureInfo)
ALIAS(cudaStreamIsCapturing_ptsz, cudaStreamIsCapturing)
ALIAS(cudaStreamUpdateCaptureDependencies_ptsz, cudaStreamUpdateCaptureDependencies)
ALIAS(cudaStreamGetFlags_ptsz, cudaStreamGetFlags)
ALIAS(cudaStreamGetPriority_ptsz, cudaStreamGetPriority)
ALIAS(cudaStreamGetId_ptsz, cudaStreamGetId)
ALIAS(cudaStreamQuery_ptsz, cudaStreamQuery)
ALIAS(cudaStreamSynchronize_ptsz, cudaStreamSynchronize)
ALIAS(cudaStreamWaitEvent_ptsz, cudaStreamWaitEvent)
ALIAS(cudaStreamSetAttribute_ptsz, cudaStreamSetAttribute)
ALIAS(cudaStreamGetAttribute_ptsz, cudaStreamGetAttribute)
ALIAS(cudaEventRecord_ptsz, cudaEventRecord)
ALIAS(cudaEventRecordWithFlags_ptsz, cudaEventRecordWithFlags)
ALIAS(cudaGraphLaunch_ptsz, cudaGraphLaunch)
ALIAS(cudaGraphUpload_ptsz, cudaGraphUpload)
