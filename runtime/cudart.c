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
 * Execution model: device work (kernels, copies, memsets, host functions, event records,
 * graph launches) is queued to one worker thread and runs in global submission order, which
 * satisfies CUDA's ordering rules for every stream while the host thread goes on; blocking
 * calls and copies with pageable memory wait for it. Graphs keep their dependency edges and a
 * launch runs a private copy in topological order. A kernel fault is reported on stderr and
 * becomes the context's sticky error, returned by every later call (cudaGetLastError
 * included), as on a GPU. See runtime/README.md.
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

/* A block a memory pool handed out (cudaMallocAsync / cudaMallocFromPoolAsync). */
struct pool_block {
    uint64_t addr;
    size_t size;
};

/* The memory pool handle type of the API: the device's default pool, or cudaMemPoolCreate's.
 * Blocks come from the device store; the pool keeps its attributes and usage counters. */
struct CUmemPoolHandle_st {
    unsigned long long threshold;
    unsigned long long used, used_high, reserved_high;
    int reuse[3]; /* FollowEventDependencies, AllowOpportunistic, AllowInternalDependencies */
    struct pool_block *blocks;
    size_t nblocks, capblocks;
};

/* The process's one default CUDA context: the runtime core's context plus the API objects.
 * The only mutable static state of the library. */
static struct cudart_ctx {
    struct rt_ctx rt;
    pthread_mutex_t hlock; /* handle sets */
    struct handle_set streams, events, graphs, execs;
    struct handle_set pools;  /* cudaMemPoolCreate pools */
    struct handle_set gmems;  /* live graph allocations (struct gmem) */
    struct CUmemPoolHandle_st pool;
    cudaMemPool_t cur_pool;   /* cudaDeviceSetMemPool; NULL: the default pool */
    unsigned long long next_stream_id, next_capture_id;
    pthread_key_t ptds_key;   /* frees a thread's per-thread default stream when it exits */
    bool ptds_key_ok;
} G = {.hlock = PTHREAD_MUTEX_INITIALIZER, .next_stream_id = 16, .next_capture_id = 1,
       .pool = {.reuse = {1, 1, 1}}};
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void ptds_free(void *p);

static void ctx_init_once(void)
{
    rt_ctx_init(&G.rt);
    G.ptds_key_ok = pthread_key_create(&G.ptds_key, ptds_free) == 0;
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
    return (cudaError_t)atomic_load_explicit(&ctx()->sticky, memory_order_acquire);
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
static void gmem_disown(uint64_t addr);
static void pool_forget(uint64_t addr);

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

/* A set of graph nodes: a node's dependencies, a capturing stream's or a captured event's
 * current dependency set. */
struct node_list {
    struct CUgraphNode_st **v;
    size_t n, cap;
};

struct CUstream_st {
    uint32_t magic;
    unsigned flags;
    int priority;
    unsigned long long id;
    struct CUgraph_st *capture;   /* capturing into this graph, or NULL */
    uint64_t last_seq;            /* queue sequence number of its last operation */
    enum cudaStreamCaptureMode capture_mode;
    unsigned long long capture_id;
    struct CUstream_st *capture_origin; /* the stream that began the capture (self if origin) */
    bool capture_external;        /* cudaStreamBeginCaptureToGraph: the graph is the user's */
    struct node_list cdeps;       /* nodes the next captured operation depends on */
};

struct CUevent_st {
    uint32_t magic;
    unsigned flags;
    bool recorded;          /* set when a record operation ran */
    uint64_t seq;           /* queue sequence number of the last record (0: never) */
    struct timespec when;
    struct CUgraph_st *cap_graph;   /* recorded in a capturing stream: that capture's graph */
    struct CUstream_st *cap_origin; /* ... and the capture's origin stream */
    struct node_list cap_deps;      /* ... and the recording stream's dependencies then */
};

static int nl_add(struct node_list *l, struct CUgraphNode_st *nd)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i] == nd)
            return 0;
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 4;
        struct CUgraphNode_st **nv = realloc(l->v, nc * sizeof *nv);
        if (!nv)
            return -1;
        l->v = nv;
        l->cap = nc;
    }
    l->v[l->n++] = nd;
    return 0;
}

static bool nl_del(struct node_list *l, const struct CUgraphNode_st *nd)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i] == nd) {
            memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof *l->v);
            l->n--;
            return true;
        }
    return false;
}

static int nl_copy(struct node_list *dst, const struct node_list *src)
{
    dst->n = 0;
    for (size_t i = 0; i < src->n; i++)
        if (nl_add(dst, src->v[i]) < 0)
            return -1;
    return 0;
}


/* Is s a valid stream argument (0, the legacy and per-thread handles, or a live stream)? */
static bool stream_ok(cudaStream_t s)
{
    return s == NULL || s == cudaStreamLegacy || s == cudaStreamPerThread || hs_has(&G.streams, s);
}

/* The calling thread's per-thread default stream (cudaStreamPerThread; stream 0 in programs
 * built with --default-stream per-thread): a blocking stream of its own, made on first use and
 * freed when the thread exits, so host threads' default-stream work runs concurrently as on a
 * GPU. NULL when it cannot be made: the legacy stream's (stronger) ordering applies. */
static _Thread_local struct CUstream_st *tls_ptds;

static void ptds_free(void *p)
{
    struct CUstream_st *s = p;
    if (s == tls_ptds)
        tls_ptds = NULL;
    free(s->cdeps.v);
    free(s);
}

static struct CUstream_st *ptds(void)
{
    if (tls_ptds)
        return tls_ptds;
    ctx();
    struct CUstream_st *s = G.ptds_key_ok ? calloc(1, sizeof *s) : NULL;
    if (!s)
        return NULL;
    if (pthread_setspecific(G.ptds_key, s) != 0) {
        free(s);
        return NULL;
    }
    s->magic = STREAM_MAGIC;
    s->id = 2; /* what cudaStreamGetId reports for the per-thread stream */
    return tls_ptds = s;
}

/* The stream object of handle s: NULL for the legacy stream (0, cudaStreamLegacy). */
static struct CUstream_st *stream_obj(cudaStream_t s)
{
    if (s == cudaStreamPerThread)
        return ptds();
    return (s == NULL || s == cudaStreamLegacy) ? NULL : s;
}

/* Stream 0 of an entry point of a --default-stream per-thread program (the _ptsz functions)
 * is the calling thread's per-thread stream. */
static cudaStream_t ptsz(cudaStream_t s)
{
    return s ? s : cudaStreamPerThread;
}

/* ============================================================================ graphs (data) */

enum node_kind { NK_KERNEL, NK_MEMCPY, NK_MEMSET, NK_HOST, NK_EMPTY, NK_MEMALLOC, NK_MEMFREE,
                 NK_GRAPH, NK_EVENT_RECORD, NK_WAIT_EVENT };

/* A copy of up to three dimensions: depth slices of height rows of width bytes. */
struct copy_desc {
    void *dst;
    const void *src;
    size_t width, height, depth;
    size_t dpitch, spitch;            /* bytes between rows */
    size_t dslice, sslice;            /* bytes between slices */
    enum cudaMemcpyKind kind;
};

/* Device memory of a graph memory-allocation node. CUDA gives its address out when the node is
 * created, so it is allocated then and lives while any graph or executable graph holding the
 * node does (refs), unless the program frees it itself (freed). */
struct gmem {
    uint64_t addr;
    size_t size;
    int refs;                         /* atomic */
    int freed;                        /* atomic: cudaFree / cudaFreeAsync outside a graph */
};

struct CUgraphNode_st {
    enum node_kind kind;
    struct CUgraph_st *graph;
    struct rt_func *func;             /* kernel */
    uint32_t grid[3], block[3];
    uint32_t shared;
    uint8_t *params;                  /* kernel parameter block copy */
    void *dst;                        /* memset / memfree target */
    struct copy_desc cp;              /* memcpy */
    size_t size;                      /* memalloc bytes */
    size_t pitch, width, height;      /* memset (width in elements) */
    unsigned value, elem;             /* memset */
    cudaHostFn_t fn;                  /* host */
    void *user;
    struct CUgraph_st *child;         /* NK_GRAPH */
    cudaEvent_t event;
    struct gmem *gm;                  /* NK_MEMALLOC */
    struct node_list deps;            /* edges into this node (same graph) */
    size_t idx;                       /* scratch: position while cloning / ordering */
    bool disabled;                    /* cudaGraphNodeSetEnabled(…, 0) in an executable graph */
};

struct CUgraph_st {
    struct CUgraphNode_st **nodes;
    size_t n, cap;
};

struct CUgraphExec_st {
    struct CUgraph_st *g; /* a private clone */
    unsigned long long flags;
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
static struct mem *dmem(void);

/* Graph allocations: G.gmems holds the live ones (looked up by address). */
static struct gmem *gmem_find(uint64_t addr);
static void gmem_forget(struct gmem *gm);

static void gmem_release(struct gmem *gm)
{
    if (!gm || __atomic_sub_fetch(&gm->refs, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    gmem_forget(gm);
    if (!__atomic_load_n(&gm->freed, __ATOMIC_ACQUIRE)) {
        struct mem *m = dmem();
        if (m)
            mem_free(m, gm->addr);
    }
    free(gm);
}

static void node_free(struct CUgraphNode_st *nd)
{
    if (!nd)
        return;
    free(nd->params);
    free(nd->deps.v);
    if (nd->kind == NK_GRAPH && nd->child)
        graph_free(nd->child);
    gmem_release(nd->gm);
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

static struct CUgraph_st *graph_clone(struct CUgraph_st *g);

static struct CUgraphNode_st *node_clone(const struct CUgraphNode_st *nd)
{
    struct CUgraphNode_st *c = malloc(sizeof *c);
    if (!c)
        return NULL;
    *c = *nd;
    c->params = NULL;
    c->child = NULL;
    c->deps = (struct node_list){0};
    c->gm = NULL;
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
    if (nd->gm) {
        __atomic_add_fetch(&nd->gm->refs, 1, __ATOMIC_ACQ_REL);
        c->gm = nd->gm;
    }
    return c;
}

/* A deep copy with the same edges (node i of the copy is the copy of node i). */
static struct CUgraph_st *graph_clone(struct CUgraph_st *g)
{
    struct CUgraph_st *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    for (size_t i = 0; i < g->n; i++) {
        g->nodes[i]->idx = i;
        struct CUgraphNode_st *nd = node_clone(g->nodes[i]);
        if (!nd || graph_push(c, nd) < 0) {
            node_free(nd);
            graph_free(c);
            return NULL;
        }
    }
    for (size_t i = 0; i < g->n; i++) {
        const struct node_list *d = &g->nodes[i]->deps;
        for (size_t j = 0; j < d->n; j++)
            if (nl_add(&c->nodes[i]->deps, c->nodes[d->v[j]->idx]) < 0) {
                graph_free(c);
                return NULL;
            }
    }
    return c;
}

/* Nodes in an order that runs every node after its dependencies (insertion order among the
 * ready ones). 0, or -1 for a cycle or no memory. The caller frees *out. */
static int graph_order(struct CUgraph_st *g, struct CUgraphNode_st ***out)
{
    size_t n = g->n, done = 0;
    struct CUgraphNode_st **order = malloc((n ? n : 1) * sizeof *order);
    bool *ran = calloc(n ? n : 1, 1);
    if (!order || !ran) {
        free(order);
        free(ran);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        g->nodes[i]->idx = i;
    while (done < n) {
        bool progress = false;
        for (size_t i = 0; i < n; i++) {
            if (ran[i])
                continue;
            const struct node_list *d = &g->nodes[i]->deps;
            bool ready = true;
            for (size_t j = 0; ready && j < d->n; j++)
                ready = ran[d->v[j]->idx];
            if (ready) {
                ran[i] = true;
                order[done++] = g->nodes[i];
                progress = true;
            }
        }
        if (!progress) {
            free(order);
            free(ran);
            return -1;
        }
    }
    free(ran);
    *out = order;
    return 0;
}

/* ============================================================================== operations */

static cudaError_t run_kernel(struct rt_func *f, const uint32_t grid[3], const uint32_t block[3],
                              size_t shared, void **args, const uint8_t *params,
                              bool cooperative);
static cudaError_t run_copy_desc(const struct copy_desc *cd);
static cudaError_t run_memset2d(void *dst, size_t pitch, int value, size_t width, size_t height);
static cudaError_t graph_run(struct CUgraph_st *g);

static cudaError_t node_run(struct CUgraphNode_st *nd)
{
    if (nd->disabled)
        return cudaSuccess;
    switch (nd->kind) {
    case NK_KERNEL:
        return run_kernel(nd->func, nd->grid, nd->block, nd->shared, NULL, nd->params, false);
    case NK_MEMCPY:
        return run_copy_desc(&nd->cp);
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
    case NK_MEMALLOC:
        return cudaSuccess; /* allocated when the node was made (struct gmem) */
    case NK_MEMFREE: {
        /* a graph allocation stays reserved for the graph's next launch */
        if (gmem_find((uint64_t)(uintptr_t)nd->dst))
            return cudaSuccess;
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
    struct CUgraphNode_st **order;
    if (graph_order(g, &order) < 0)
        return cudaErrorInvalidValue;
    cudaError_t e = cudaSuccess;
    for (size_t i = 0; i < g->n && !e; i++) {
        e = node_run(order[i]);
        if (!e)
            e = sticky();
    }
    free(order);
    return e;
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
    /* a faulted context runs no more device work; host functions and event records still
     * run so that waiting threads and callbacks see the error */
    bool skip = sticky() && nd->kind != NK_HOST && nd->kind != NK_EVENT_RECORD;
    cudaError_t e = skip ? cudaSuccess : node_run(nd);
    if (e)
        async_error(e);
    node_free(nd);
}

/* Where the next operation of stream s goes in the device work queue: after the stream's
 * previous operation, with the legacy default stream's barriers for its kind (rt.h). The
 * per-thread default stream is ordered as the legacy one. */
static struct rt_order order_of(cudaStream_t s)
{
    struct CUstream_st *so = stream_obj(s);
    struct rt_order o = {so, RT_ORDER_LEGACY, {0, 0}};
    if (so) {
        o.kind = (so->flags & cudaStreamNonBlocking) ? RT_ORDER_NONBLOCKING : RT_ORDER_BLOCKING;
        o.after[0] = so->last_seq;
    }
    return o;
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
        /* the node depends on the stream's current dependency set and becomes it */
        if (nl_copy(&nd->deps, &so->cdeps) < 0 || graph_push(so->capture, nd) < 0) {
            node_free(nd);
            return cudaErrorMemoryAllocation;
        }
        so->cdeps.n = 0;
        nl_add(&so->cdeps, nd);
        return cudaSuccess;
    }
    struct rt_order o = order_of(s);
    note_seq(s, rt_submit(ctx(), &o, node_op, nd));
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
    struct rt_order o = order_of(stream);
    note_seq(stream, rt_submit(c, &o, kernel_op, k));
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
    return __cudaLaunchKernel(kernel, gridDim, blockDim, args, sharedMem, ptsz(stream));
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
    if (!config || (config->numAttrs && !config->attrs))
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
    *numBlocks = (int)rt_occupancy(d, &f->info, (unsigned)blockSize, dynamicSMemSize);
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
    if (want & MEM_F_DEVICE) {
        gmem_disown((uint64_t)(uintptr_t)p);
        pool_forget((uint64_t)(uintptr_t)p);
    }
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

/* Check every row of a copy against the allocations its kind says are device memory. */
static cudaError_t copy_desc_check(const struct copy_desc *cd)
{
    if ((unsigned)cd->kind > cudaMemcpyDefault)
        return cudaErrorInvalidMemcpyDirection;
    if (!cd->width || !cd->height || !cd->depth)
        return cudaSuccess;
    if ((cd->height > 1 || cd->depth > 1) && (cd->width > cd->dpitch || cd->width > cd->spitch))
        return cudaErrorInvalidPitchValue;
    for (size_t z = 0; z < cd->depth; z++)
        for (size_t y = 0; y < cd->height; y++) {
            cudaError_t e = copy_check((uint8_t *)cd->dst + z * cd->dslice + y * cd->dpitch,
                                       (const uint8_t *)cd->src + z * cd->sslice + y * cd->spitch,
                                       cd->width, cd->kind);
            if (e)
                return e;
        }
    return cudaSuccess;
}

static void copy_desc_do(const struct copy_desc *cd)
{
    if (!cd->width)
        return;
    for (size_t z = 0; z < cd->depth; z++)
        for (size_t y = 0; y < cd->height; y++)
            memmove((uint8_t *)cd->dst + z * cd->dslice + y * cd->dpitch,
                    (const uint8_t *)cd->src + z * cd->sslice + y * cd->spitch, cd->width);
}

static cudaError_t run_copy_desc(const struct copy_desc *cd)
{
    cudaError_t e = copy_desc_check(cd);
    if (!e)
        copy_desc_do(cd);
    return e;
}

static struct copy_desc copy_1d(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
    struct copy_desc cd = {.dst = dst, .src = src, .width = n, .height = 1, .depth = 1,
                           .dpitch = n, .spitch = n, .dslice = n, .sslice = n, .kind = kind};
    return cd;
}

/* Host memory the device cannot address directly (pageable): copies with it are staged,
 * i.e. synchronous with the host. */
static bool pageable(const void *p)
{
    struct mem *m = dmem();
    return !m || !dev_range(m, p, 1);
}

/* A copy on a stream: captured into its graph or queued behind the stream's earlier work.
 * A blocking copy, or one with pageable host memory, then waits for its own completion (and
 * is a printf flush point): like the GPU's, it waits only for what its stream is ordered
 * after, so a non-blocking stream's kernel keeps running across a cudaMemcpy. */
static cudaError_t copy_submit_desc(const struct copy_desc *cd, cudaStream_t stream, bool blocking)
{
    CHECK_STICKY();
    if (!stream_ok(stream))
        return ret(cudaErrorInvalidResourceHandle);
    struct CUstream_st *so = stream_obj(stream);
    bool capturing = so && so->capture;
    cudaError_t e = capturing ? ((unsigned)cd->kind > cudaMemcpyDefault
                                     ? cudaErrorInvalidMemcpyDirection
                                     : cudaSuccess)
                              : copy_desc_check(cd);
    if (e)
        return ret(e);
    if (!capturing && (!cd->width || !cd->height || !cd->depth))
        return cudaSuccess;
    struct CUgraphNode_st *nd = node_new(NK_MEMCPY);
    if (!nd)
        return ret(cudaErrorMemoryAllocation);
    nd->cp = *cd;
    if (!capturing && (blocking || pageable(cd->dst) || pageable(cd->src))) {
        struct rt_order o = order_of(stream);
        uint64_t seq = rt_submit(ctx(), &o, node_op, nd);
        note_seq(stream, seq);
        sync_point(seq);
        CHECK_STICKY(); /* a faulted context skipped the copy */
        return cudaSuccess;
    }
    return ret(submit(stream, nd));
}

static cudaError_t copy_submit(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
                               cudaStream_t stream, bool blocking)
{
    struct copy_desc cd = copy_1d(dst, src, n, kind);
    return copy_submit_desc(&cd, stream, blocking);
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
                          size_t height, enum cudaMemcpyKind kind, cudaStream_t stream,
                          bool blocking)
{
    if (height && (width > dpitch || width > spitch))
        return ret(cudaErrorInvalidPitchValue);
    struct copy_desc cd = {.dst = dst, .src = src, .width = width, .height = height, .depth = 1,
                           .dpitch = dpitch, .spitch = spitch, .dslice = dpitch * height,
                           .sslice = spitch * height, .kind = kind};
    return copy_submit_desc(&cd, stream, blocking);
}

EXPORT cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                                size_t width, size_t height, enum cudaMemcpyKind kind)
{
    return copy2d(dst, dpitch, src, spitch, width, height, kind, NULL, true);
}

EXPORT cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                     size_t width, size_t height, enum cudaMemcpyKind kind,
                                     cudaStream_t stream)
{
    return copy2d(dst, dpitch, src, spitch, width, height, kind, stream, false);
}

/* cudaMemcpy3DParms (pitched pointers only) as a copy_desc. */
static cudaError_t desc_of_3d(const struct cudaMemcpy3DParms *p, struct copy_desc *cd)
{
    if (!p)
        return cudaErrorInvalidValue;
    if (p->srcArray || p->dstArray) {
        not_supported("cudaMemcpy3D and graph memcpy nodes with CUDA arrays");
        return cudaErrorNotSupported;
    }
    const struct cudaPitchedPtr *s = &p->srcPtr, *d = &p->dstPtr;
    size_t w = p->extent.width, h = p->extent.height, dep = p->extent.depth;
    if (w && h && dep) {
        if (!s->ptr || !d->ptr)
            return cudaErrorInvalidValue;
        if (w + p->srcPos.x > s->pitch || w + p->dstPos.x > d->pitch)
            return cudaErrorInvalidPitchValue;
        if (dep > 1 && (h + p->srcPos.y > s->ysize || h + p->dstPos.y > d->ysize))
            return cudaErrorInvalidValue;
    }
    cd->src = (const uint8_t *)s->ptr + (p->srcPos.z * s->ysize + p->srcPos.y) * s->pitch +
              p->srcPos.x;
    cd->dst = (uint8_t *)d->ptr + (p->dstPos.z * d->ysize + p->dstPos.y) * d->pitch +
              p->dstPos.x;
    cd->width = w;
    cd->height = h;
    cd->depth = dep;
    cd->spitch = s->pitch;
    cd->dpitch = d->pitch;
    cd->sslice = s->pitch * s->ysize;
    cd->dslice = d->pitch * d->ysize;
    cd->kind = p->kind;
    return cudaSuccess;
}

static cudaError_t copy3d(const struct cudaMemcpy3DParms *p, cudaStream_t stream, bool blocking)
{
    struct copy_desc cd;
    cudaError_t e = desc_of_3d(p, &cd);
    if (e)
        return ret(e);
    return copy_submit_desc(&cd, stream, blocking);
}

EXPORT cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p)
{
    return copy3d(p, NULL, true);
}

EXPORT cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
    return copy3d(p, stream, false);
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

static cudaError_t memset3d(struct cudaPitchedPtr p, int value, struct cudaExtent e,
                            cudaStream_t stream)
{
    if (e.depth > 1 && e.height > p.ysize)
        return ret(cudaErrorInvalidValue);
    for (size_t z = 0; z < e.depth; z++) {
        cudaError_t r = memset_submit((uint8_t *)p.ptr + z * p.pitch * p.ysize, p.pitch, value,
                                      e.width, e.height, stream);
        if (r)
            return r;
    }
    return cudaSuccess;
}

EXPORT cudaError_t cudaMemset3D(struct cudaPitchedPtr p, int value, struct cudaExtent e)
{
    return memset3d(p, value, e, NULL);
}

EXPORT cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr p, int value, struct cudaExtent e,
                                     cudaStream_t stream)
{
    return memset3d(p, value, e, stream);
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

/* ---------------------------------------------------------------- graph allocations */

static struct gmem *gmem_find(uint64_t addr)
{
    struct gmem *r = NULL;
    pthread_mutex_lock(&G.hlock);
    for (size_t i = 0; i < G.gmems.n; i++) {
        struct gmem *gm = G.gmems.v[i];
        if (gm->addr == addr) {
            r = gm;
            break;
        }
    }
    pthread_mutex_unlock(&G.hlock);
    return r;
}

static void gmem_forget(struct gmem *gm)
{
    hs_del(&G.gmems, gm);
}

/* Allocate the memory of a graph allocation node (its address is fixed from now on). */
static cudaError_t gmem_new(size_t size, struct gmem **out)
{
    struct mem *m = dmem();
    if (!m)
        return cudaErrorInitializationError;
    struct gmem *gm = calloc(1, sizeof *gm);
    uint64_t a;
    if (!gm || size > ctx()->dev.global_mem - mem_used(m) ||
        mem_alloc(m, size, MEM_F_DEVICE, &a) < 0) {
        free(gm);
        return cudaErrorMemoryAllocation;
    }
    gm->addr = a;
    gm->size = size;
    gm->refs = 1;
    if (hs_add(&G.gmems, gm) < 0) {
        mem_free(m, a);
        free(gm);
        return cudaErrorMemoryAllocation;
    }
    *out = gm;
    return cudaSuccess;
}

/* The program frees a graph allocation itself: the graph no longer owns it. */
static void gmem_disown(uint64_t addr)
{
    struct gmem *gm = gmem_find(addr);
    if (gm) {
        __atomic_store_n(&gm->freed, 1, __ATOMIC_RELEASE);
        gmem_forget(gm);
    }
}

/* ----------------------------------------------------------------------- memory pools */

static bool pool_ok(cudaMemPool_t p)
{
    return p && (p == &G.pool || hs_has(&G.pools, p));
}

static cudaMemPool_t pool_current(void)
{
    pthread_mutex_lock(&G.hlock);
    cudaMemPool_t p = G.cur_pool ? G.cur_pool : &G.pool;
    pthread_mutex_unlock(&G.hlock);
    return p;
}

static int pool_note(cudaMemPool_t p, uint64_t addr, size_t size)
{
    int r = 0;
    pthread_mutex_lock(&G.hlock);
    if (p->nblocks == p->capblocks) {
        size_t nc = p->capblocks ? p->capblocks * 2 : 16;
        struct pool_block *nb = realloc(p->blocks, nc * sizeof *nb);
        if (!nb) {
            r = -1;
            goto out;
        }
        p->blocks = nb;
        p->capblocks = nc;
    }
    p->blocks[p->nblocks++] = (struct pool_block){addr, size};
    p->used += size;
    if (p->used > p->used_high)
        p->used_high = p->used;
    if (p->used > p->reserved_high)
        p->reserved_high = p->used;
out:
    pthread_mutex_unlock(&G.hlock);
    return r;
}

static bool pool_forget_in(cudaMemPool_t p, uint64_t addr)
{
    for (size_t i = 0; i < p->nblocks; i++)
        if (p->blocks[i].addr == addr) {
            p->used -= p->blocks[i].size;
            p->blocks[i] = p->blocks[--p->nblocks];
            return true;
        }
    return false;
}

/* A pool block is freed (cudaFreeAsync / cudaFree): drop it from its pool's usage. */
static void pool_forget(uint64_t addr)
{
    pthread_mutex_lock(&G.hlock);
    if (!pool_forget_in(&G.pool, addr))
        for (size_t i = 0; i < G.pools.n; i++)
            if (pool_forget_in(G.pools.v[i], addr))
                break;
    pthread_mutex_unlock(&G.hlock);
}

/* Stream-ordered allocation. The address is known at once (as on a GPU); while the stream is
 * captured the allocation becomes a graph memory-allocation node. */
static cudaError_t malloc_async(void **devPtr, size_t size, cudaMemPool_t pool,
                                cudaStream_t stream)
{
    CHECK_STICKY();
    if (!devPtr || !pool_ok(pool))
        return ret(cudaErrorInvalidValue);
    if (!stream_ok(stream))
        return ret(cudaErrorInvalidResourceHandle);
    struct CUstream_st *so = stream_obj(stream);
    if (so && so->capture) {
        struct gmem *gm;
        cudaError_t e = gmem_new(size, &gm);
        if (e)
            return ret(e);
        struct CUgraphNode_st *nd = node_new(NK_MEMALLOC);
        if (!nd) {
            gmem_release(gm);
            return ret(cudaErrorMemoryAllocation);
        }
        nd->gm = gm;
        nd->size = size;
        *devPtr = (void *)(uintptr_t)gm->addr;
        return ret(submit(stream, nd));
    }
    cudaError_t e = alloc_common(devPtr, size, MEM_F_DEVICE);
    if (e)
        return e;
    if (pool_note(pool, (uint64_t)(uintptr_t)*devPtr, size) < 0) {
        free_common(*devPtr, MEM_F_DEVICE);
        *devPtr = NULL;
        return ret(cudaErrorMemoryAllocation);
    }
    return cudaSuccess;
}

EXPORT cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream)
{
    return malloc_async(devPtr, size, pool_current(), hStream);
}

EXPORT cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool,
                                           cudaStream_t stream)
{
    return malloc_async(ptr, size, memPool, stream);
}

/* Stream-ordered free: the memory is released when the stream reaches it. */
EXPORT cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream)
{
    CHECK_STICKY();
    if (!stream_ok(hStream))
        return ret(cudaErrorInvalidResourceHandle);
    uint64_t addr = (uint64_t)(uintptr_t)devPtr;
    struct CUstream_st *so = stream_obj(hStream);
    bool capturing = so && so->capture;
    if (!(capturing && gmem_find(addr))) {
        struct mem *m = dmem();
        const struct mem_alloc *a = m ? mem_find(m, addr, 1) : NULL;
        if (!a || a->base != addr || !(a->flags & MEM_F_DEVICE))
            return ret(cudaErrorInvalidValue);
    }
    if (!capturing) {
        gmem_disown(addr);
        pool_forget(addr);
    }
    struct CUgraphNode_st *nd = node_new(NK_MEMFREE);
    if (!nd)
        return ret(cudaErrorMemoryAllocation);
    nd->dst = devPtr;
    return ret(submit(hStream, nd));
}

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
    if (!memPool)
        return ret(cudaErrorInvalidValue);
    if (device != 0)
        return ret(cudaErrorInvalidDevice);
    *memPool = pool_current();
    return cudaSuccess;
}

EXPORT cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool)
{
    if (device != 0)
        return ret(cudaErrorInvalidDevice);
    if (!pool_ok(memPool))
        return ret(cudaErrorInvalidValue);
    pthread_mutex_lock(&G.hlock);
    G.cur_pool = memPool;
    pthread_mutex_unlock(&G.hlock);
    return cudaSuccess;
}

EXPORT cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool, const struct cudaMemPoolProps *props)
{
    if (!memPool || !props || props->allocType != cudaMemAllocationTypePinned ||
        props->location.type != cudaMemLocationTypeDevice || props->location.id != 0)
        return ret(cudaErrorInvalidValue);
    struct CUmemPoolHandle_st *p = calloc(1, sizeof *p);
    if (!p)
        return ret(cudaErrorMemoryAllocation);
    p->reuse[0] = p->reuse[1] = p->reuse[2] = 1;
    if (hs_add(&G.pools, p) < 0) {
        free(p);
        return ret(cudaErrorMemoryAllocation);
    }
    *memPool = p;
    return cudaSuccess;
}

/* Destroy a created pool (the default pool cannot be). Blocks still allocated stay valid
 * until freed, as in CUDA. */
EXPORT cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool)
{
    if (!memPool || memPool == &G.pool || !hs_del(&G.pools, memPool))
        return ret(cudaErrorInvalidValue);
    pthread_mutex_lock(&G.hlock);
    if (G.cur_pool == memPool)
        G.cur_pool = NULL;
    pthread_mutex_unlock(&G.hlock);
    free(memPool->blocks);
    free(memPool);
    return cudaSuccess;
}

EXPORT cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
                                           void *value)
{
    if (!pool_ok(memPool) || !value)
        return ret(cudaErrorInvalidValue);
    cudaError_t e = cudaSuccess;
    pthread_mutex_lock(&G.hlock);
    switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
        memPool->reuse[attr - cudaMemPoolReuseFollowEventDependencies] = *(int *)value != 0;
        break;
    case cudaMemPoolAttrReleaseThreshold:
        memcpy(&memPool->threshold, value, sizeof memPool->threshold);
        break;
    case cudaMemPoolAttrReservedMemHigh:
    case cudaMemPoolAttrUsedMemHigh: {
        unsigned long long v;
        memcpy(&v, value, sizeof v);
        if (v != 0)
            e = cudaErrorInvalidValue; /* high watermarks can only be reset */
        else if (attr == cudaMemPoolAttrUsedMemHigh)
            memPool->used_high = memPool->used;
        else
            memPool->reserved_high = memPool->used;
        break;
    }
    default:
        e = cudaErrorInvalidValue; /* the current counters are read-only */
        break;
    }
    pthread_mutex_unlock(&G.hlock);
    return e ? ret(e) : cudaSuccess;
}

EXPORT cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
                                           void *value)
{
    if (!pool_ok(memPool) || !value)
        return ret(cudaErrorInvalidValue);
    cudaError_t e = cudaSuccess;
    unsigned long long v = 0;
    pthread_mutex_lock(&G.hlock);
    switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
        *(int *)value = memPool->reuse[attr - cudaMemPoolReuseFollowEventDependencies];
        break;
    case cudaMemPoolAttrReleaseThreshold: v = memPool->threshold; break;
    case cudaMemPoolAttrReservedMemCurrent: v = memPool->used; break;
    case cudaMemPoolAttrReservedMemHigh: v = memPool->reserved_high; break;
    case cudaMemPoolAttrUsedMemCurrent: v = memPool->used; break;
    case cudaMemPoolAttrUsedMemHigh: v = memPool->used_high; break;
    default: e = cudaErrorInvalidValue; break;
    }
    pthread_mutex_unlock(&G.hlock);
    if (e)
        return ret(e);
    if (attr >= cudaMemPoolAttrReleaseThreshold)
        memcpy(value, &v, sizeof v);
    return cudaSuccess;
}

EXPORT cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep)
{
    (void)minBytesToKeep;
    return pool_ok(memPool) ? cudaSuccess : ret(cudaErrorInvalidValue);
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


/* End the capture into g: every stream that joined it leaves it, and events recorded in it
 * no longer carry its dependencies. */
static void capture_detach(struct CUgraph_st *g)
{
    pthread_mutex_lock(&G.hlock);
    for (size_t i = 0; i < G.streams.n; i++) {
        struct CUstream_st *o = G.streams.v[i];
        if (o->capture == g) {
            o->capture = NULL;
            o->capture_origin = NULL;
            o->cdeps.n = 0;
        }
    }
    for (size_t i = 0; i < G.events.n; i++) {
        struct CUevent_st *e = G.events.v[i];
        if (e->cap_graph == g) {
            e->cap_graph = NULL;
            e->cap_origin = NULL;
            e->cap_deps.n = 0;
        }
    }
    pthread_mutex_unlock(&G.hlock);
}

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
    if (stream->capture && stream->capture_origin == stream) {
        struct CUgraph_st *g = stream->capture;
        capture_detach(g); /* the capture is abandoned */
        if (!stream->capture_external)
            graph_free(g);
    }
    stream->magic = 0;
    free(stream->cdeps.v);
    free(stream);
    return cudaSuccess;
}

/* The operation cudaStreamWaitEvent queues: nothing to do, its dependencies are the point. */
static void wait_op(struct rt_ctx *c, void *arg)
{
    (void)c;
    (void)arg;
}

EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    if (!stream_ok(stream))
        return ret(cudaErrorInvalidResourceHandle);
    struct CUstream_st *so = stream_obj(stream);
    if (so && so->capture)
        return ret(cudaErrorStreamCaptureUnsupported);
    uint64_t seq = so ? so->last_seq : 0;
    if (!so) {
        /* the legacy stream: an empty operation there follows exactly what it synchronizes
         * with (its own work and blocking streams'), not non-blocking streams */
        struct rt_order o = order_of(stream);
        seq = rt_submit(ctx(), &o, wait_op, NULL);
    }
    if (seq)
        sync_point(seq);
    else
        rt_printf_flush(ctx(), true);
    return ret(take_async_error());
}

EXPORT cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    if (!stream_ok(stream))
        return ret(cudaErrorInvalidResourceHandle);
    CHECK_STICKY();
    struct CUstream_st *so = stream_obj(stream);
    bool done = so ? rt_done(ctx(), so->last_seq) : rt_legacy_idle(ctx());
    return done ? cudaSuccess : cudaErrorNotReady;
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

/* Is stream o still capturing into graph g (the capture an event was recorded in)? */
static bool capture_live(struct CUstream_st *o, struct CUgraph_st *g)
{
    return o && g && hs_has(&G.streams, o) && o->capture == g && o->capture_origin == o;
}

/* The stream's later work follows the event's last record: an empty operation in the stream
 * that depends on both. In stream capture, an event recorded in a capturing stream makes the
 * waiting stream depend on the recorded nodes, and a stream that is not capturing joins the
 * capture (fork/join capture). */
EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    if (!stream_ok(stream) || !event || !hs_has(&G.events, event))
        return ret(cudaErrorInvalidResourceHandle);
    if (flags & ~1u)
        return ret(cudaErrorInvalidValue);
    struct CUstream_st *so = stream_obj(stream);
    if (capture_live(event->cap_origin, event->cap_graph)) {
        if (!so)
            return ret(cudaErrorStreamCaptureImplicit);
        if (so->capture && so->capture != event->cap_graph)
            return ret(cudaErrorStreamCaptureMerge);
        if (!so->capture) {
            so->capture = event->cap_graph;
            so->capture_origin = event->cap_origin;
            so->capture_external = event->cap_origin->capture_external;
            so->capture_mode = event->cap_origin->capture_mode;
            so->capture_id = event->cap_origin->capture_id;
            so->cdeps.n = 0;
        }
        for (size_t i = 0; i < event->cap_deps.n; i++)
            if (nl_add(&so->cdeps, event->cap_deps.v[i]) < 0)
                return ret(cudaErrorMemoryAllocation);
        return cudaSuccess;
    }
    if (so && so->capture && event->cap_graph == NULL && event->seq == 0)
        return cudaSuccess; /* never recorded: no dependency */
    if (event->seq && !(so && so->capture)) {
        struct rt_order o = order_of(stream);
        o.after[1] = event->seq;
        note_seq(stream, rt_submit(ctx(), &o, wait_op, NULL));
    }
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
    struct CUstream_st *so = stream_obj(stream);
    if (so && so->capture)
        return ret(cudaErrorStreamCaptureUnsupported);
    struct callback_op *op = malloc(sizeof *op);
    if (!op)
        return ret(cudaErrorMemoryAllocation);
    op->fn = callback;
    op->stream = stream;
    op->user = userData;
    struct rt_order o = order_of(stream);
    note_seq(stream, rt_submit(ctx(), &o, callback_run, op));
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
    so->capture_origin = so;
    so->capture_external = false;
    so->cdeps.n = 0;
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
    (void)dependencyData;
    CHECK_STICKY();
    if (!stream_ok(stream))
        return ret(cudaErrorInvalidResourceHandle);
    struct CUstream_st *so = stream_obj(stream);
    if (!so)
        return ret(cudaErrorStreamCaptureUnsupported);
    if (so->capture)
        return ret(cudaErrorIllegalState);
    if (!graph || !hs_has(&G.graphs, graph) || (unsigned)mode > cudaStreamCaptureModeRelaxed ||
        (numDependencies && !dependencies))
        return ret(cudaErrorInvalidValue);
    so->cdeps.n = 0;
    for (size_t i = 0; i < numDependencies; i++) {
        if (!dependencies[i] || dependencies[i]->graph != graph)
            return ret(cudaErrorInvalidValue);
        if (nl_add(&so->cdeps, dependencies[i]) < 0)
            return ret(cudaErrorMemoryAllocation);
    }
    so->capture = graph;
    so->capture_origin = so;
    so->capture_external = true;
    so->capture_mode = mode;
    so->capture_id = __atomic_fetch_add(&G.next_capture_id, 1, __ATOMIC_RELAXED);
    return cudaSuccess;
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
    if (so->capture_origin != so)
        return ret(cudaErrorStreamCaptureUnmatched);
    struct CUgraph_st *g = so->capture;
    capture_detach(g);
    *pGraph = g;
    if (!so->capture_external && hs_add(&G.graphs, g) < 0)
        return ret(cudaErrorMemoryAllocation);
    so->capture_external = false;
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
        *dependencies_out = on && so->cdeps.n ? so->cdeps.v : NULL;
    if (edgeData_out)
        *edgeData_out = NULL;
    if (numDependencies_out)
        *numDependencies_out = on ? so->cdeps.n : 0;
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream,
                                                       cudaGraphNode_t *dependencies,
                                                       const cudaGraphEdgeData *dependencyData,
                                                       size_t numDependencies, unsigned int flags)
{
    (void)dependencyData;
    if (flags > cudaStreamSetCaptureDependencies || (numDependencies && !dependencies))
        return ret(cudaErrorInvalidValue);
    struct CUstream_st *so = stream_ok(stream) ? stream_obj(stream) : NULL;
    if (!so || !so->capture)
        return ret(cudaErrorIllegalState);
    for (size_t i = 0; i < numDependencies; i++)
        if (!dependencies[i] || dependencies[i]->graph != so->capture)
            return ret(cudaErrorInvalidValue);
    if (flags == cudaStreamSetCaptureDependencies)
        so->cdeps.n = 0;
    for (size_t i = 0; i < numDependencies; i++)
        if (nl_add(&so->cdeps, dependencies[i]) < 0)
            return ret(cudaErrorMemoryAllocation);
    return cudaSuccess;
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
    free(event->cap_deps.v);
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
    struct CUstream_st *so = stream_obj(stream);
    if (so && so->capture) {
        /* in a capture an event only carries dependencies (fork/join between streams) */
        if (nl_copy(&event->cap_deps, &so->cdeps) < 0)
            return ret(cudaErrorMemoryAllocation);
        event->cap_graph = so->capture;
        event->cap_origin = so->capture_origin;
        return cudaSuccess;
    }
    struct CUgraphNode_st *nd = node_new(NK_EVENT_RECORD);
    if (!nd)
        return ret(cudaErrorMemoryAllocation);
    nd->event = event;
    event->cap_graph = NULL;
    event->cap_origin = NULL;
    struct rt_order o = order_of(stream);
    event->seq = rt_submit(ctx(), &o, node_op, nd);
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
    if (!event->seq) /* never recorded: nothing to wait for */
        return ret(sticky());
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
        if (!deps[i] || deps[i]->graph != graph || nl_add(&nd->deps, deps[i]) < 0) {
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

/* New kernel parameters for an existing node (its edges stay). */
static cudaError_t kernel_node_update(struct CUgraphNode_st *node,
                                      const struct cudaKernelNodeParams *p)
{
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
    nd->params = NULL;
    node_free(nd);
    return cudaSuccess;
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
    if (count && (!dst || !src))
        return ret(cudaErrorInvalidValue);
    struct CUgraphNode_st *nd = node_new(NK_MEMCPY);
    if (nd)
        nd->cp = copy_1d(dst, src, count, kind);
    return graph_add(pGraphNode, graph, pDependencies, numDependencies, nd);
}

EXPORT cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                          const cudaGraphNode_t *pDependencies,
                                          size_t numDependencies,
                                          const struct cudaMemcpy3DParms *p)
{
    struct copy_desc cd;
    cudaError_t e = desc_of_3d(p, &cd);
    if (e)
        return ret(e);
    if ((unsigned)cd.kind > cudaMemcpyDefault)
        return ret(cudaErrorInvalidMemcpyDirection);
    struct CUgraphNode_st *nd = node_new(NK_MEMCPY);
    if (nd)
        nd->cp = cd;
    return graph_add(pGraphNode, graph, pDependencies, numDependencies, nd);
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
    if (!nodeParams || !nodeParams->bytesize ||
        nodeParams->poolProps.allocType != cudaMemAllocationTypePinned ||
        nodeParams->poolProps.location.type != cudaMemLocationTypeDevice ||
        nodeParams->poolProps.location.id != 0)
        return ret(cudaErrorInvalidValue);
    if (!pGraphNode || !graph || !hs_has(&G.graphs, graph))
        return ret(cudaErrorInvalidValue);
    /* CUDA gives the address out at node creation: allocate it now (struct gmem) */
    struct gmem *gm;
    cudaError_t e = gmem_new(nodeParams->bytesize, &gm);
    if (e)
        return ret(e);
    struct CUgraphNode_st *nd = node_new(NK_MEMALLOC);
    if (!nd) {
        gmem_release(gm);
        return ret(cudaErrorMemoryAllocation);
    }
    nd->gm = gm;
    nd->size = nodeParams->bytesize;
    e = graph_add(pGraphNode, graph, pDependencies, numDependencies, nd);
    if (!e)
        nodeParams->dptr = (void *)(uintptr_t)gm->addr;
    return e;
}

EXPORT cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                           const cudaGraphNode_t *pDependencies,
                                           size_t numDependencies, void *dptr)
{
    struct mem *m = dmem();
    if (!dptr || !m || !mem_find(m, (uint64_t)(uintptr_t)dptr, 1))
        return ret(cudaErrorInvalidValue);
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
    case cudaGraphNodeTypeMemcpy:
        return cudaGraphAddMemcpyNode(pGraphNode, graph, pDependencies, numDependencies,
                                      &p->memcpy.copyParams);
    case cudaGraphNodeTypeMemAlloc: {
        struct cudaMemAllocNodeParams ap;
        memset(&ap, 0, sizeof ap);
        ap.poolProps = p->alloc.poolProps;
        ap.accessDescs = p->alloc.accessDescs;
        ap.accessDescCount = p->alloc.accessDescCount;
        ap.bytesize = p->alloc.bytesize;
        cudaError_t e = cudaGraphAddMemAllocNode(pGraphNode, graph, pDependencies,
                                                 numDependencies, &ap);
        if (!e)
            p->alloc.dptr = ap.dptr;
        return e;
    }
    case cudaGraphNodeTypeGraph:
        return cudaGraphAddChildGraphNode(pGraphNode, graph, pDependencies, numDependencies,
                                          p->graph.graph);
    case cudaGraphNodeTypeEventRecord:
        return cudaGraphAddEventRecordNode(pGraphNode, graph, pDependencies, numDependencies,
                                           p->eventRecord.event);
    case cudaGraphNodeTypeWaitEvent:
        return cudaGraphAddEventWaitNode(pGraphNode, graph, pDependencies, numDependencies,
                                         p->eventWait.event);
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
    if (!pGraphExec || !graph || !hs_has(&G.graphs, graph) ||
        (flags & ~(unsigned long long)(cudaGraphInstantiateFlagAutoFreeOnLaunch |
                                       cudaGraphInstantiateFlagUpload |
                                       cudaGraphInstantiateFlagDeviceLaunch |
                                       cudaGraphInstantiateFlagUseNodePriority)))
        return ret(cudaErrorInvalidValue);
    struct CUgraphNode_st **order;
    if (graph_order(graph, &order) < 0)
        return ret(cudaErrorInvalidValue); /* a cycle */
    free(order);
    struct CUgraphExec_st *x = calloc(1, sizeof *x);
    if (x)
        x->flags = flags;
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

EXPORT cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                  cudaGraphInstantiateParams *instantiateParams)
{
    if (!instantiateParams)
        return ret(cudaErrorInvalidValue);
    cudaError_t e = cudaGraphInstantiateWithFlags(pGraphExec, graph, instantiateParams->flags);
    instantiateParams->errNode_out = NULL;
    instantiateParams->result_out = e ? cudaGraphInstantiateError : cudaGraphInstantiateSuccess;
    if (!e && (instantiateParams->flags & cudaGraphInstantiateFlagUpload))
        e = cudaGraphUpload(*pGraphExec, instantiateParams->uploadStream);
    return e;
}

EXPORT cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t graphExec, unsigned long long *flags)
{
    if (!graphExec || !flags || !hs_has(&G.execs, graphExec))
        return ret(cudaErrorInvalidValue);
    *flags = graphExec->flags;
    return cudaSuccess;
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

/* The executable graph's copy of node (a node of the graph it was instantiated from: same
 * index), if it has the given kind (or any kind for kind < 0). */
static struct CUgraphNode_st *exec_node(cudaGraphExec_t x, cudaGraphNode_t node, int kind)
{
    if (!x || !node || !hs_has(&G.execs, x))
        return NULL;
    struct CUgraph_st *og = node->graph;
    size_t idx = SIZE_MAX;
    for (size_t i = 0; og && i < og->n; i++)
        if (og->nodes[i] == node)
            idx = i;
    if (idx == SIZE_MAX || idx >= x->g->n || x->g->nodes[idx]->kind != node->kind ||
        (kind >= 0 && node->kind != (enum node_kind)kind))
        return NULL;
    return x->g->nodes[idx];
}

EXPORT cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec,
                                                    cudaGraphNode_t node,
                                                    const struct cudaKernelNodeParams *p)
{
    struct CUgraphNode_st *x = exec_node(hGraphExec, node, NK_KERNEL);
    if (!x)
        return ret(cudaErrorInvalidValue);
    return kernel_node_update(x, p);
}

EXPORT cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                       cudaGraphExecUpdateResultInfo *resultInfo)
{
    if (!hGraphExec || !hs_has(&G.execs, hGraphExec) || !hGraph || !hs_has(&G.graphs, hGraph))
        return ret(cudaErrorInvalidValue);
    struct CUgraph_st *xg = hGraphExec->g;
    bool same = hGraph->n == xg->n;
    for (size_t i = 0; same && i < hGraph->n; i++) {
        hGraph->nodes[i]->idx = xg->nodes[i]->idx = i;
        same = hGraph->nodes[i]->kind == xg->nodes[i]->kind &&
               hGraph->nodes[i]->deps.n == xg->nodes[i]->deps.n;
    }
    for (size_t i = 0; same && i < hGraph->n; i++)
        for (size_t j = 0; same && j < hGraph->nodes[i]->deps.n; j++)
            same = hGraph->nodes[i]->deps.v[j]->idx == xg->nodes[i]->deps.v[j]->idx;
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
    return kernel_node_update(node, p);
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

/* Are from[i] -> to[i] nodes of graph? */
static bool edges_ok(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                     size_t n)
{
    if (!graph || !hs_has(&G.graphs, graph) || (n && (!from || !to)))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!from[i] || !to[i] || from[i]->graph != graph || to[i]->graph != graph ||
            from[i] == to[i])
            return false;
    return true;
}

/* Edges are kept on the dependent node; launches run nodes in a topological order. */
EXPORT cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                            const cudaGraphNode_t *to,
                                            const cudaGraphEdgeData *edgeData,
                                            size_t numDependencies)
{
    (void)edgeData;
    if (!edges_ok(graph, from, to, numDependencies))
        return ret(cudaErrorInvalidValue);
    for (size_t i = 0; i < numDependencies; i++)
        for (size_t j = 0; j < to[i]->deps.n; j++)
            if (to[i]->deps.v[j] == from[i])
                return ret(cudaErrorInvalidValue); /* already there */
    for (size_t i = 0; i < numDependencies; i++)
        if (nl_add(&to[i]->deps, from[i]) < 0)
            return ret(cudaErrorMemoryAllocation);
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                               const cudaGraphNode_t *to,
                                               const cudaGraphEdgeData *edgeData,
                                               size_t numDependencies)
{
    (void)edgeData;
    if (!edges_ok(graph, from, to, numDependencies))
        return ret(cudaErrorInvalidValue);
    for (size_t i = 0; i < numDependencies; i++) {
        bool found = false;
        for (size_t j = 0; j < to[i]->deps.n; j++)
            found |= to[i]->deps.v[j] == from[i];
        if (!found)
            return ret(cudaErrorInvalidValue);
    }
    for (size_t i = 0; i < numDependencies; i++)
        nl_del(&to[i]->deps, from[i]);
    return cudaSuccess;
}

/* Fill a caller's node array CUDA-style: with NULL just count; else copy up to *n. */
static void node_out(cudaGraphNode_t *out, size_t *n, size_t k, cudaGraphNode_t nd)
{
    if (out && k < *n)
        out[k] = nd;
}

EXPORT cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to,
                                     cudaGraphEdgeData *edgeData, size_t *numEdges)
{
    if (!graph || !numEdges || !hs_has(&G.graphs, graph) || (!from != !to))
        return ret(cudaErrorInvalidValue);
    size_t k = 0;
    for (size_t i = 0; i < graph->n; i++)
        for (size_t j = 0; j < graph->nodes[i]->deps.n; j++, k++) {
            node_out(from, numEdges, k, graph->nodes[i]->deps.v[j]);
            node_out(to, numEdges, k, graph->nodes[i]);
            if (edgeData && from && k < *numEdges)
                memset(&edgeData[k], 0, sizeof edgeData[k]);
        }
    if (from && k < *numEdges)
        for (size_t i = k; i < *numEdges; i++)
            from[i] = to[i] = NULL;
    *numEdges = from && *numEdges < k ? *numEdges : k;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes,
                                         size_t *pNumRootNodes)
{
    if (!graph || !pNumRootNodes || !hs_has(&G.graphs, graph))
        return ret(cudaErrorInvalidValue);
    size_t k = 0;
    for (size_t i = 0; i < graph->n; i++)
        if (!graph->nodes[i]->deps.n)
            node_out(pRootNodes, pNumRootNodes, k++, graph->nodes[i]);
    *pNumRootNodes = pRootNodes && *pNumRootNodes < k ? *pNumRootNodes : k;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node,
                                                cudaGraphNode_t *pDependencies,
                                                cudaGraphEdgeData *edgeData,
                                                size_t *pNumDependencies)
{
    if (!node || !pNumDependencies)
        return ret(cudaErrorInvalidValue);
    size_t k = node->deps.n;
    for (size_t i = 0; i < k; i++) {
        node_out(pDependencies, pNumDependencies, i, node->deps.v[i]);
        if (edgeData && pDependencies && i < *pNumDependencies)
            memset(&edgeData[i], 0, sizeof edgeData[i]);
    }
    *pNumDependencies = pDependencies && *pNumDependencies < k ? *pNumDependencies : k;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node,
                                                  cudaGraphNode_t *pDependentNodes,
                                                  cudaGraphEdgeData *edgeData,
                                                  size_t *pNumDependentNodes)
{
    if (!node || !pNumDependentNodes || !node->graph)
        return ret(cudaErrorInvalidValue);
    struct CUgraph_st *g = node->graph;
    size_t k = 0;
    for (size_t i = 0; i < g->n; i++)
        for (size_t j = 0; j < g->nodes[i]->deps.n; j++)
            if (g->nodes[i]->deps.v[j] == node) {
                node_out(pDependentNodes, pNumDependentNodes, k, g->nodes[i]);
                if (edgeData && pDependentNodes && k < *pNumDependentNodes)
                    memset(&edgeData[k], 0, sizeof edgeData[k]);
                k++;
            }
    *pNumDependentNodes = pDependentNodes && *pNumDependentNodes < k ? *pNumDependentNodes : k;
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
            for (size_t j = 0; j < g->n; j++)
                nl_del(&g->nodes[j]->deps, node);
            node_free(node);
            return cudaSuccess;
        }
    return ret(cudaErrorInvalidValue);
}

EXPORT cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node,
                                                struct cudaMemcpy3DParms *p)
{
    if (!node || !p || node->kind != NK_MEMCPY)
        return ret(cudaErrorInvalidValue);
    const struct copy_desc *cd = &node->cp;
    memset(p, 0, sizeof *p);
    p->srcPtr.ptr = (void *)cd->src;
    p->srcPtr.pitch = cd->spitch;
    p->srcPtr.xsize = cd->width;
    p->srcPtr.ysize = cd->spitch ? cd->sslice / cd->spitch : 0;
    p->dstPtr.ptr = cd->dst;
    p->dstPtr.pitch = cd->dpitch;
    p->dstPtr.xsize = cd->width;
    p->dstPtr.ysize = cd->dpitch ? cd->dslice / cd->dpitch : 0;
    p->extent.width = cd->width;
    p->extent.height = cd->height;
    p->extent.depth = cd->depth;
    p->kind = cd->kind;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, struct cudaMemsetParams *p)
{
    if (!node || !p || node->kind != NK_MEMSET)
        return ret(cudaErrorInvalidValue);
    memset(p, 0, sizeof *p);
    p->dst = node->dst;
    p->pitch = node->pitch;
    p->value = node->value;
    p->elementSize = node->elem;
    p->width = node->width;
    p->height = node->height;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, struct cudaHostNodeParams *p)
{
    if (!node || !p || node->kind != NK_HOST)
        return ret(cudaErrorInvalidValue);
    p->fn = node->fn;
    p->userData = node->user;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t *pGraph)
{
    if (!node || !pGraph || node->kind != NK_GRAPH)
        return ret(cudaErrorInvalidValue);
    *pGraph = node->child;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node,
                                                  struct cudaMemAllocNodeParams *params_out)
{
    if (!node || !params_out || node->kind != NK_MEMALLOC || !node->gm)
        return ret(cudaErrorInvalidValue);
    memset(params_out, 0, sizeof *params_out);
    params_out->poolProps.allocType = cudaMemAllocationTypePinned;
    params_out->poolProps.location.type = cudaMemLocationTypeDevice;
    params_out->bytesize = node->size;
    params_out->dptr = (void *)(uintptr_t)node->gm->addr;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void *dptr_out)
{
    if (!node || !dptr_out || node->kind != NK_MEMFREE)
        return ret(cudaErrorInvalidValue);
    *(void **)dptr_out = node->dst;
    return cudaSuccess;
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

/* cudaLaunchKernel, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim,
                                         void **args, size_t sharedMem, cudaStream_t stream)
{
    return cudaLaunchKernel(func, gridDim, blockDim, args, sharedMem, ptsz(stream));
}
/* cudaLaunchCooperativeKernel, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim,
                                                    void **args, size_t sharedMem,
                                                    cudaStream_t stream)
{
    return cudaLaunchCooperativeKernel(func, gridDim, blockDim, args, sharedMem, ptsz(stream));
}
/* cudaLaunchKernelExC, where stream 0 in the configuration is the per-thread stream. */
EXPORT cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func,
                                            void **args)
{
    if (!config)
        return cudaLaunchKernelExC(config, func, args);
    cudaLaunchConfig_t c = *config;
    c.stream = ptsz(c.stream);
    return cudaLaunchKernelExC(&c, func, args);
}
/* cudaLaunchHostFunc, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    return cudaLaunchHostFunc(ptsz(stream), fn, userData);
}
ALIAS(cudaMemcpy_ptds, cudaMemcpy)
/* cudaMemcpyAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count,
                                        enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return cudaMemcpyAsync(dst, src, count, kind, ptsz(stream));
}
ALIAS(cudaMemcpy2D_ptds, cudaMemcpy2D)
/* cudaMemcpy2DAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src, size_t spitch,
                                          size_t width, size_t height, enum cudaMemcpyKind kind,
                                          cudaStream_t stream)
{
    return cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, ptsz(stream));
}
ALIAS(cudaMemcpy3D_ptds, cudaMemcpy3D)
/* cudaMemcpy3DAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
    return cudaMemcpy3DAsync(p, ptsz(stream));
}
ALIAS(cudaMemcpyToSymbol_ptds, cudaMemcpyToSymbol)
ALIAS(cudaMemcpyFromSymbol_ptds, cudaMemcpyFromSymbol)
/* cudaMemcpyToSymbolAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src, size_t count,
                                                size_t offset, enum cudaMemcpyKind kind,
                                                cudaStream_t stream)
{
    return cudaMemcpyToSymbolAsync(symbol, src, count, offset, kind, ptsz(stream));
}
/* cudaMemcpyFromSymbolAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t count,
                                                  size_t offset, enum cudaMemcpyKind kind,
                                                  cudaStream_t stream)
{
    return cudaMemcpyFromSymbolAsync(dst, symbol, count, offset, kind, ptsz(stream));
}
ALIAS(cudaMemset_ptds, cudaMemset)
/* cudaMemsetAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    return cudaMemsetAsync(devPtr, value, count, ptsz(stream));
}
ALIAS(cudaMemset2D_ptds, cudaMemset2D)
/* cudaMemset2DAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMemset2DAsync_ptsz(void *devPtr, size_t pitch, int value, size_t width,
                                          size_t height, cudaStream_t stream)
{
    return cudaMemset2DAsync(devPtr, pitch, value, width, height, ptsz(stream));
}
ALIAS(cudaMemset3D_ptds, cudaMemset3D)
/* cudaMemset3DAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMemset3DAsync_ptsz(struct cudaPitchedPtr p, int value, struct cudaExtent e,
                                          cudaStream_t stream)
{
    return cudaMemset3DAsync(p, value, e, ptsz(stream));
}
/* cudaMallocAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t hStream)
{
    return cudaMallocAsync(devPtr, size, ptsz(hStream));
}
/* cudaFreeAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t hStream)
{
    return cudaFreeAsync(devPtr, ptsz(hStream));
}
/* cudaMallocFromPoolAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size, cudaMemPool_t memPool,
                                                cudaStream_t stream)
{
    return cudaMallocFromPoolAsync(ptr, size, memPool, ptsz(stream));
}
/* cudaMemPrefetchAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMemPrefetchAsync_ptsz(const void *devPtr, size_t count,
                                             struct cudaMemLocation location, unsigned int flags,
                                             cudaStream_t stream)
{
    return cudaMemPrefetchAsync(devPtr, count, location, flags, ptsz(stream));
}
/* cudaStreamAddCallback, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback,
                                              void *userData, unsigned int flags)
{
    return cudaStreamAddCallback(ptsz(stream), callback, userData, flags);
}
/* cudaStreamAttachMemAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t stream, void *devPtr, size_t length,
                                                 unsigned int flags)
{
    return cudaStreamAttachMemAsync(ptsz(stream), devPtr, length, flags);
}
/* cudaStreamBeginCapture, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream,
                                               enum cudaStreamCaptureMode mode)
{
    return cudaStreamBeginCapture(ptsz(stream), mode);
}
/* cudaStreamBeginCaptureToGraph, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t stream, cudaGraph_t graph,
                                                      const cudaGraphNode_t *dependencies,
                                                      const cudaGraphEdgeData *dependencyData,
                                                      size_t numDependencies,
                                                      enum cudaStreamCaptureMode mode)
{
    return cudaStreamBeginCaptureToGraph(ptsz(stream), graph, dependencies, dependencyData,
                                         numDependencies, mode);
}
/* cudaStreamEndCapture, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *pGraph)
{
    return cudaStreamEndCapture(ptsz(stream), pGraph);
}
/* cudaStreamGetCaptureInfo, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream,
                                                 enum cudaStreamCaptureStatus *captureStatus_out,
                                                 unsigned long long *id_out,
                                                 cudaGraph_t *graph_out,
                                                 const cudaGraphNode_t **dependencies_out,
                                                 const cudaGraphEdgeData **edgeData_out,
                                                 size_t *numDependencies_out)
{
    return cudaStreamGetCaptureInfo(ptsz(stream), captureStatus_out, id_out, graph_out,
                                    dependencies_out, edgeData_out, numDependencies_out);
}
/* cudaStreamIsCapturing, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream,
                                              enum cudaStreamCaptureStatus *pCaptureStatus)
{
    return cudaStreamIsCapturing(ptsz(stream), pCaptureStatus);
}
/* cudaStreamUpdateCaptureDependencies, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(cudaStream_t stream,
                                                            cudaGraphNode_t *dependencies,
                                                            const cudaGraphEdgeData *dependencyData,
                                                            size_t numDependencies,
                                                            unsigned int flags)
{
    return cudaStreamUpdateCaptureDependencies(ptsz(stream), dependencies, dependencyData,
                                               numDependencies, flags);
}
/* cudaStreamGetFlags, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t hStream, unsigned int *flags)
{
    return cudaStreamGetFlags(ptsz(hStream), flags);
}
/* cudaStreamGetPriority, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t hStream, int *priority)
{
    return cudaStreamGetPriority(ptsz(hStream), priority);
}
/* cudaStreamGetId, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamGetId_ptsz(cudaStream_t hStream, unsigned long long *streamId)
{
    return cudaStreamGetId(ptsz(hStream), streamId);
}
/* cudaStreamQuery, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream)
{
    return cudaStreamQuery(ptsz(stream));
}
/* cudaStreamSynchronize, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream)
{
    return cudaStreamSynchronize(ptsz(stream));
}
/* cudaStreamWaitEvent, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event,
                                            unsigned int flags)
{
    return cudaStreamWaitEvent(ptsz(stream), event, flags);
}
/* cudaStreamSetAttribute, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t hStream, cudaStreamAttrID attr,
                                               const cudaStreamAttrValue *value)
{
    return cudaStreamSetAttribute(ptsz(hStream), attr, value);
}
/* cudaStreamGetAttribute, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t hStream, cudaStreamAttrID attr,
                                               cudaStreamAttrValue *value_out)
{
    return cudaStreamGetAttribute(ptsz(hStream), attr, value_out);
}
/* cudaEventRecord, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream)
{
    return cudaEventRecord(event, ptsz(stream));
}
/* cudaEventRecordWithFlags, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream,
                                                 unsigned int flags)
{
    return cudaEventRecordWithFlags(event, ptsz(stream), flags);
}
/* cudaGraphLaunch, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    return cudaGraphLaunch(graphExec, ptsz(stream));
}
/* cudaGraphUpload, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaGraphUpload_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    return cudaGraphUpload(graphExec, ptsz(stream));
}
ALIAS(cudaGraphInstantiateWithParams_ptsz, cudaGraphInstantiateWithParams)

/* ========================================================= more graph node parameters */

static cudaError_t memset_params(struct CUgraphNode_st *nd, const struct cudaMemsetParams *p)
{
    if (!p || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4) || !p->height ||
        !p->dst)
        return ret(cudaErrorInvalidValue);
    nd->dst = p->dst;
    nd->pitch = p->height > 1 ? p->pitch : p->width * p->elementSize;
    nd->value = p->value;
    nd->elem = p->elementSize;
    nd->width = p->width;
    nd->height = p->height;
    return cudaSuccess;
}

static cudaError_t memcpy_params(struct CUgraphNode_st *nd, const struct cudaMemcpy3DParms *p)
{
    struct copy_desc cd;
    cudaError_t e = desc_of_3d(p, &cd);
    if (e)
        return ret(e);
    if ((unsigned)cd.kind > cudaMemcpyDefault)
        return ret(cudaErrorInvalidMemcpyDirection);
    nd->cp = cd;
    return cudaSuccess;
}

static cudaError_t memcpy1d_params(struct CUgraphNode_st *nd, void *dst, const void *src,
                                   size_t count, enum cudaMemcpyKind kind)
{
    if ((unsigned)kind > cudaMemcpyDefault)
        return ret(cudaErrorInvalidMemcpyDirection);
    if (count && (!dst || !src))
        return ret(cudaErrorInvalidValue);
    nd->cp = copy_1d(dst, src, count, kind);
    return cudaSuccess;
}

static cudaError_t host_params(struct CUgraphNode_st *nd, const struct cudaHostNodeParams *p)
{
    if (!p || !p->fn)
        return ret(cudaErrorInvalidValue);
    nd->fn = p->fn;
    nd->user = p->userData;
    return cudaSuccess;
}

#define NODE_OF(node, k)  ((node) && (node)->kind == (k) ? (node) : NULL)
#define CHECKED(nd, call) ((nd) ? (call) : ret(cudaErrorInvalidValue))

EXPORT cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node,
                                                const struct cudaMemsetParams *pNodeParams)
{
    return CHECKED(NODE_OF(node, NK_MEMSET), memset_params(node, pNodeParams));
}

EXPORT cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node,
                                                const struct cudaMemcpy3DParms *pNodeParams)
{
    return CHECKED(NODE_OF(node, NK_MEMCPY), memcpy_params(node, pNodeParams));
}

EXPORT cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void *dst, const void *src,
                                                  size_t count, enum cudaMemcpyKind kind)
{
    return CHECKED(NODE_OF(node, NK_MEMCPY), memcpy1d_params(node, dst, src, count, kind));
}

EXPORT cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node,
                                              const struct cudaHostNodeParams *pNodeParams)
{
    return CHECKED(NODE_OF(node, NK_HOST), host_params(node, pNodeParams));
}

EXPORT cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec,
                                                    cudaGraphNode_t node,
                                                    const struct cudaMemsetParams *pNodeParams)
{
    struct CUgraphNode_st *x = exec_node(hGraphExec, node, NK_MEMSET);
    return CHECKED(x, memset_params(x, pNodeParams));
}

EXPORT cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hGraphExec,
                                                    cudaGraphNode_t node,
                                                    const struct cudaMemcpy3DParms *pNodeParams)
{
    struct CUgraphNode_st *x = exec_node(hGraphExec, node, NK_MEMCPY);
    return CHECKED(x, memcpy_params(x, pNodeParams));
}

EXPORT cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec,
                                                      cudaGraphNode_t node, void *dst,
                                                      const void *src, size_t count,
                                                      enum cudaMemcpyKind kind)
{
    struct CUgraphNode_st *x = exec_node(hGraphExec, node, NK_MEMCPY);
    return CHECKED(x, memcpy1d_params(x, dst, src, count, kind));
}

EXPORT cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                  const struct cudaHostNodeParams *pNodeParams)
{
    struct CUgraphNode_st *x = exec_node(hGraphExec, node, NK_HOST);
    return CHECKED(x, host_params(x, pNodeParams));
}

/* Disable / enable a node of an executable graph (kernel, memcpy and memset nodes). */
EXPORT cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                           unsigned int isEnabled)
{
    struct CUgraphNode_st *x = exec_node(hGraphExec, hNode, -1);
    if (!x || (x->kind != NK_KERNEL && x->kind != NK_MEMCPY && x->kind != NK_MEMSET))
        return ret(cudaErrorInvalidValue);
    x->disabled = !isEnabled;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                           unsigned int *isEnabled)
{
    struct CUgraphNode_st *x = exec_node(hGraphExec, hNode, -1);
    if (!x || !isEnabled || (x->kind != NK_KERNEL && x->kind != NK_MEMCPY && x->kind != NK_MEMSET))
        return ret(cudaErrorInvalidValue);
    *isEnabled = !x->disabled;
    return cudaSuccess;
}

/* The clone of originalNode in clonedGraph (made by cudaGraphClone: same index). */
EXPORT cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t *pNode, cudaGraphNode_t originalNode,
                                            cudaGraph_t clonedGraph)
{
    if (!pNode || !originalNode || !originalNode->graph || !clonedGraph ||
        !hs_has(&G.graphs, clonedGraph))
        return ret(cudaErrorInvalidValue);
    struct CUgraph_st *og = originalNode->graph;
    for (size_t i = 0; i < og->n; i++)
        if (og->nodes[i] == originalNode) {
            if (i >= clonedGraph->n || clonedGraph->nodes[i]->kind != originalNode->kind)
                break;
            *pNode = clonedGraph->nodes[i];
            return cudaSuccess;
        }
    return ret(cudaErrorInvalidValue);
}

/* ==================================================================== small remainders */

EXPORT cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src)
{
    return stream_ok(dst) && stream_ok(src) ? cudaSuccess : ret(cudaErrorInvalidResourceHandle);
}

static cudaError_t copy3d_peer(const struct cudaMemcpy3DPeerParms *p, cudaStream_t stream,
                               bool blocking)
{
    if (!p)
        return ret(cudaErrorInvalidValue);
    if (p->srcDevice != 0 || p->dstDevice != 0)
        return ret(cudaErrorInvalidDevice);
    struct cudaMemcpy3DParms q;
    memset(&q, 0, sizeof q);
    q.srcArray = p->srcArray;
    q.srcPos = p->srcPos;
    q.srcPtr = p->srcPtr;
    q.dstArray = p->dstArray;
    q.dstPos = p->dstPos;
    q.dstPtr = p->dstPtr;
    q.extent = p->extent;
    q.kind = cudaMemcpyDefault;
    return copy3d(&q, stream, blocking);
}

EXPORT cudaError_t cudaMemcpy3DPeer(const struct cudaMemcpy3DPeerParms *p)
{
    return copy3d_peer(p, NULL, true);
}

EXPORT cudaError_t cudaMemcpy3DPeerAsync(const struct cudaMemcpy3DPeerParms *p, cudaStream_t stream)
{
    return copy3d_peer(p, stream, false);
}

/* One device: there is no peer. */
EXPORT cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
{
    (void)peerDevice;
    return ret(flags ? cudaErrorInvalidValue : cudaErrorInvalidDevice);
}

EXPORT cudaError_t cudaDeviceDisablePeerAccess(int peerDevice)
{
    (void)peerDevice;
    return ret(cudaErrorInvalidDevice);
}

EXPORT cudaError_t cudaDeviceSetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr,
                                                  void *value)
{
    (void)attr;
    if (device != 0)
        return ret(cudaErrorInvalidDevice);
    return value ? cudaSuccess : ret(cudaErrorInvalidValue);
}

EXPORT cudaError_t cudaKernelSetAttributeForDevice(cudaKernel_t kernel, enum cudaFuncAttribute attr,
                                                   int value, int device)
{
    if (device != 0)
        return ret(cudaErrorInvalidDevice);
    return cudaFuncSetAttribute((const void *)kernel, attr, value);
}

EXPORT cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool,
                                        const struct cudaMemAccessDesc *descList, size_t count)
{
    if (!pool_ok(memPool) || (count && !descList))
        return ret(cudaErrorInvalidValue);
    for (size_t i = 0; i < count; i++)
        if (descList[i].location.type != cudaMemLocationTypeDevice || descList[i].location.id != 0)
            return ret(cudaErrorInvalidDevice);
    return cudaSuccess;
}

EXPORT cudaError_t cudaMemPoolGetAccess(enum cudaMemAccessFlags *flags, cudaMemPool_t memPool,
                                        struct cudaMemLocation *location)
{
    if (!flags || !location || !pool_ok(memPool))
        return ret(cudaErrorInvalidValue);
    *flags = location->type == cudaMemLocationTypeDevice && location->id == 0
                 ? cudaMemAccessFlagsProtReadWrite
                 : cudaMemAccessFlagsProtNone;
    return cudaSuccess;
}

/* Kernel node attributes (access policy windows, priorities, …) are accepted and read back
 * as defaults: they change nothing in the functional model. */
EXPORT cudaError_t cudaGraphKernelNodeGetAttribute(cudaGraphNode_t hNode, cudaKernelNodeAttrID attr,
                                                   cudaKernelNodeAttrValue *value_out)
{
    (void)attr;
    if (!NODE_OF(hNode, NK_KERNEL) || !value_out)
        return ret(cudaErrorInvalidValue);
    memset(value_out, 0, sizeof *value_out);
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t hNode, cudaKernelNodeAttrID attr,
                                                   const cudaKernelNodeAttrValue *value)
{
    (void)attr;
    return NODE_OF(hNode, NK_KERNEL) && value ? cudaSuccess : ret(cudaErrorInvalidValue);
}

EXPORT cudaError_t cudaGraphKernelNodeCopyAttributes(cudaGraphNode_t hDst, cudaGraphNode_t hSrc)
{
    return NODE_OF(hDst, NK_KERNEL) && NODE_OF(hSrc, NK_KERNEL) ? cudaSuccess
                                                                : ret(cudaErrorInvalidValue);
}

static cudaError_t event_node(cudaGraphNode_t node, enum node_kind k, cudaEvent_t *get,
                              cudaEvent_t set)
{
    if (!NODE_OF(node, k) || (get == NULL && (!set || !hs_has(&G.events, set))))
        return ret(get ? cudaErrorInvalidValue : cudaErrorInvalidResourceHandle);
    if (get)
        *get = node->event;
    else
        node->event = set;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event_out)
{
    return event_out ? event_node(node, NK_EVENT_RECORD, event_out, NULL)
                     : ret(cudaErrorInvalidValue);
}

EXPORT cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event)
{
    return event_node(node, NK_EVENT_RECORD, NULL, event);
}

EXPORT cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event_out)
{
    return event_out ? event_node(node, NK_WAIT_EVENT, event_out, NULL)
                     : ret(cudaErrorInvalidValue);
}

EXPORT cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event)
{
    return event_node(node, NK_WAIT_EVENT, NULL, event);
}

/* Symbol copies as graph nodes: the symbol's device address is resolved now. */
static cudaError_t symbol_node(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                               const cudaGraphNode_t *deps, size_t ndeps, bool to, void *host,
                               const void *symbol, size_t count, size_t offset,
                               enum cudaMemcpyKind kind)
{
    uint64_t a, sz;
    cudaError_t e = symbol_lookup(symbol, &a, &sz);
    if (e)
        return ret(e);
    if (offset > sz || count > sz - offset)
        return ret(cudaErrorInvalidValue);
    void *dev = (void *)(uintptr_t)(a + offset);
    return to ? cudaGraphAddMemcpyNode1D(pGraphNode, graph, deps, ndeps, dev, host, count, kind)
              : cudaGraphAddMemcpyNode1D(pGraphNode, graph, deps, ndeps, host, dev, count, kind);
}

EXPORT cudaError_t cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                  const cudaGraphNode_t *pDependencies,
                                                  size_t numDependencies, const void *symbol,
                                                  const void *src, size_t count, size_t offset,
                                                  enum cudaMemcpyKind kind)
{
    return symbol_node(pGraphNode, graph, pDependencies, numDependencies, true, (void *)src, symbol,
                       count, offset, kind);
}

EXPORT cudaError_t cudaGraphAddMemcpyNodeFromSymbol(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                    const cudaGraphNode_t *pDependencies,
                                                    size_t numDependencies, void *dst,
                                                    const void *symbol, size_t count, size_t offset,
                                                    enum cudaMemcpyKind kind)
{
    return symbol_node(pGraphNode, graph, pDependencies, numDependencies, false, dst, symbol, count,
                       offset, kind);
}

/* =========================================== families the emulator does not provide yet */

/* CUDA arrays, mipmapped arrays, texture/surface object queries, IPC, external memory and
 * semaphores, the library API, user objects, batched copies, pool export/import, cluster
 * occupancy, versioned driver entry points, memory-range queries and graph dot output: each
 * prints one line naming the function and returns cudaErrorNotSupported, so a program that
 * calls one gets an error instead of a symbol lookup failure. */
static cudaError_t unsupported(const char *fn)
{
    not_supported(fn);
    return ret(cudaErrorNotSupported);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
EXPORT cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent,
                                    unsigned int *flags, cudaArray_t array)
{
    return unsupported("cudaArrayGetInfo");
}

EXPORT cudaError_t cudaArrayGetPlane(cudaArray_t *pPlaneArray, cudaArray_t hArray,
                                     unsigned int planeIdx)
{
    return unsupported("cudaArrayGetPlane");
}

EXPORT cudaError_t cudaArrayGetMemoryRequirements(
    struct cudaArrayMemoryRequirements *memoryRequirements, cudaArray_t array, int device)
{
    return unsupported("cudaArrayGetMemoryRequirements");
}

EXPORT cudaError_t cudaArrayGetSparseProperties(struct cudaArraySparseProperties *sparseProperties,
                                                cudaArray_t array)
{
    return unsupported("cudaArrayGetSparseProperties");
}

EXPORT cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc *desc, cudaArray_const_t array)
{
    return unsupported("cudaGetChannelDesc");
}

EXPORT cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *mipmappedArray,
                                            const struct cudaChannelFormatDesc *desc,
                                            struct cudaExtent extent, unsigned int numLevels,
                                            unsigned int flags)
{
    return unsupported("cudaMallocMipmappedArray");
}

EXPORT cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t mipmappedArray)
{
    return unsupported("cudaFreeMipmappedArray");
}

EXPORT cudaError_t cudaGetMipmappedArrayLevel(cudaArray_t *levelArray,
                                              cudaMipmappedArray_const_t mipmappedArray,
                                              unsigned int level)
{
    return unsupported("cudaGetMipmappedArrayLevel");
}

EXPORT cudaError_t cudaMipmappedArrayGetMemoryRequirements(
    struct cudaArrayMemoryRequirements *memoryRequirements, cudaMipmappedArray_t mipmap, int device)
{
    return unsupported("cudaMipmappedArrayGetMemoryRequirements");
}

EXPORT cudaError_t cudaMipmappedArrayGetSparseProperties(
    struct cudaArraySparseProperties *sparseProperties, cudaMipmappedArray_t mipmap)
{
    return unsupported("cudaMipmappedArrayGetSparseProperties");
}

EXPORT cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                            cudaArray_const_t src, size_t wOffsetSrc,
                                            size_t hOffsetSrc, size_t width, size_t height,
                                            enum cudaMemcpyKind kind)
{
    return unsupported("cudaMemcpy2DArrayToArray");
}

EXPORT cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src,
                                         size_t wOffset, size_t hOffset, size_t width,
                                         size_t height, enum cudaMemcpyKind kind)
{
    return unsupported("cudaMemcpy2DFromArray");
}

EXPORT cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src,
                                              size_t wOffset, size_t hOffset, size_t width,
                                              size_t height, enum cudaMemcpyKind kind,
                                              cudaStream_t stream)
{
    return unsupported("cudaMemcpy2DFromArrayAsync");
}

EXPORT cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                            const void *src, size_t spitch, size_t width,
                                            size_t height, enum cudaMemcpyKind kind,
                                            cudaStream_t stream)
{
    return unsupported("cudaMemcpy2DToArrayAsync");
}

EXPORT cudaError_t cudaMemcpyArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                          cudaArray_const_t src, size_t wOffsetSrc,
                                          size_t hOffsetSrc, size_t count, enum cudaMemcpyKind kind)
{
    return unsupported("cudaMemcpyArrayToArray");
}

EXPORT cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset,
                                       size_t hOffset, size_t count, enum cudaMemcpyKind kind)
{
    return unsupported("cudaMemcpyFromArray");
}

EXPORT cudaError_t cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOffset,
                                            size_t hOffset, size_t count, enum cudaMemcpyKind kind,
                                            cudaStream_t stream)
{
    return unsupported("cudaMemcpyFromArrayAsync");
}

EXPORT cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                          const void *src, size_t count, enum cudaMemcpyKind kind,
                                          cudaStream_t stream)
{
    return unsupported("cudaMemcpyToArrayAsync");
}

EXPORT cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *pResDesc,
                                                    cudaTextureObject_t texObject)
{
    return unsupported("cudaGetTextureObjectResourceDesc");
}

EXPORT cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *pTexDesc,
                                                   cudaTextureObject_t texObject)
{
    return unsupported("cudaGetTextureObjectTextureDesc");
}

EXPORT cudaError_t cudaGetTextureObjectResourceViewDesc(struct cudaResourceViewDesc *pResViewDesc,
                                                        cudaTextureObject_t texObject)
{
    return unsupported("cudaGetTextureObjectResourceViewDesc");
}

EXPORT cudaError_t cudaGetSurfaceObjectResourceDesc(struct cudaResourceDesc *pResDesc,
                                                    cudaSurfaceObject_t surfObject)
{
    return unsupported("cudaGetSurfaceObjectResourceDesc");
}

EXPORT cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle, void *devPtr)
{
    return unsupported("cudaIpcGetMemHandle");
}

EXPORT cudaError_t cudaIpcOpenMemHandle(void **devPtr, cudaIpcMemHandle_t handle,
                                        unsigned int flags)
{
    return unsupported("cudaIpcOpenMemHandle");
}

EXPORT cudaError_t cudaIpcCloseMemHandle(void *devPtr)
{
    return unsupported("cudaIpcCloseMemHandle");
}

EXPORT cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *handle, cudaEvent_t event)
{
    return unsupported("cudaIpcGetEventHandle");
}

EXPORT cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *event, cudaIpcEventHandle_t handle)
{
    return unsupported("cudaIpcOpenEventHandle");
}

EXPORT cudaError_t cudaImportExternalMemory(
    cudaExternalMemory_t *extMem_out, const struct cudaExternalMemoryHandleDesc *memHandleDesc)
{
    return unsupported("cudaImportExternalMemory");
}

EXPORT cudaError_t
cudaExternalMemoryGetMappedBuffer(void **devPtr, cudaExternalMemory_t extMem,
                                  const struct cudaExternalMemoryBufferDesc *bufferDesc)
{
    return unsupported("cudaExternalMemoryGetMappedBuffer");
}

EXPORT cudaError_t cudaExternalMemoryGetMappedMipmappedArray(
    cudaMipmappedArray_t *mipmap, cudaExternalMemory_t extMem,
    const struct cudaExternalMemoryMipmappedArrayDesc *mipmapDesc)
{
    return unsupported("cudaExternalMemoryGetMappedMipmappedArray");
}

EXPORT cudaError_t cudaDestroyExternalMemory(cudaExternalMemory_t extMem)
{
    return unsupported("cudaDestroyExternalMemory");
}

EXPORT cudaError_t
cudaImportExternalSemaphore(cudaExternalSemaphore_t *extSem_out,
                            const struct cudaExternalSemaphoreHandleDesc *semHandleDesc)
{
    return unsupported("cudaImportExternalSemaphore");
}

EXPORT cudaError_t
cudaSignalExternalSemaphoresAsync(const cudaExternalSemaphore_t *extSemArray,
                                  const struct cudaExternalSemaphoreSignalParams *paramsArray,
                                  unsigned int numExtSems, cudaStream_t stream)
{
    return unsupported("cudaSignalExternalSemaphoresAsync");
}

EXPORT cudaError_t
cudaWaitExternalSemaphoresAsync(const cudaExternalSemaphore_t *extSemArray,
                                const struct cudaExternalSemaphoreWaitParams *paramsArray,
                                unsigned int numExtSems, cudaStream_t stream)
{
    return unsupported("cudaWaitExternalSemaphoresAsync");
}

EXPORT cudaError_t cudaDestroyExternalSemaphore(cudaExternalSemaphore_t extSem)
{
    return unsupported("cudaDestroyExternalSemaphore");
}

EXPORT cudaError_t cudaLibraryLoadData(cudaLibrary_t *library, const void *code,
                                       enum cudaJitOption *jitOptions, void **jitOptionsValues,
                                       unsigned int numJitOptions,
                                       enum cudaLibraryOption *libraryOptions,
                                       void **libraryOptionValues, unsigned int numLibraryOptions)
{
    return unsupported("cudaLibraryLoadData");
}

EXPORT cudaError_t cudaLibraryLoadFromFile(cudaLibrary_t *library, const char *fileName,
                                           enum cudaJitOption *jitOptions, void **jitOptionsValues,
                                           unsigned int numJitOptions,
                                           enum cudaLibraryOption *libraryOptions,
                                           void **libraryOptionValues,
                                           unsigned int numLibraryOptions)
{
    return unsupported("cudaLibraryLoadFromFile");
}

EXPORT cudaError_t cudaLibraryUnload(cudaLibrary_t library)
{
    return unsupported("cudaLibraryUnload");
}

EXPORT cudaError_t cudaLibraryGetKernel(cudaKernel_t *pKernel, cudaLibrary_t library,
                                        const char *name)
{
    return unsupported("cudaLibraryGetKernel");
}

EXPORT cudaError_t cudaLibraryGetGlobal(void **dptr, size_t *bytes, cudaLibrary_t library,
                                        const char *name)
{
    return unsupported("cudaLibraryGetGlobal");
}

EXPORT cudaError_t cudaLibraryGetManaged(void **dptr, size_t *bytes, cudaLibrary_t library,
                                         const char *name)
{
    return unsupported("cudaLibraryGetManaged");
}

EXPORT cudaError_t cudaLibraryGetUnifiedFunction(void **fptr, cudaLibrary_t library,
                                                 const char *symbol)
{
    return unsupported("cudaLibraryGetUnifiedFunction");
}

EXPORT cudaError_t cudaLibraryGetKernelCount(unsigned int *count, cudaLibrary_t lib)
{
    return unsupported("cudaLibraryGetKernelCount");
}

EXPORT cudaError_t cudaLibraryEnumerateKernels(cudaKernel_t *kernels, unsigned int numKernels,
                                               cudaLibrary_t lib)
{
    return unsupported("cudaLibraryEnumerateKernels");
}

EXPORT cudaError_t cudaUserObjectCreate(cudaUserObject_t *object_out, void *ptr,
                                        cudaHostFn_t destroy, unsigned int initialRefcount,
                                        unsigned int flags)
{
    return unsupported("cudaUserObjectCreate");
}

EXPORT cudaError_t cudaUserObjectRetain(cudaUserObject_t object, unsigned int count)
{
    return unsupported("cudaUserObjectRetain");
}

EXPORT cudaError_t cudaUserObjectRelease(cudaUserObject_t object, unsigned int count)
{
    return unsupported("cudaUserObjectRelease");
}

EXPORT cudaError_t cudaGraphRetainUserObject(cudaGraph_t graph, cudaUserObject_t object,
                                             unsigned int count, unsigned int flags)
{
    return unsupported("cudaGraphRetainUserObject");
}

EXPORT cudaError_t cudaGraphReleaseUserObject(cudaGraph_t graph, cudaUserObject_t object,
                                              unsigned int count)
{
    return unsupported("cudaGraphReleaseUserObject");
}

EXPORT cudaError_t cudaMemcpyBatchAsync(void *const *dsts, const void *const *srcs,
                                        const size_t *sizes, size_t count,
                                        struct cudaMemcpyAttributes *attrs, size_t *attrsIdxs,
                                        size_t numAttrs, cudaStream_t stream)
{
    return unsupported("cudaMemcpyBatchAsync");
}

EXPORT cudaError_t cudaMemcpy3DBatchAsync(size_t numOps, struct cudaMemcpy3DBatchOp *opList,
                                          unsigned long long flags, cudaStream_t stream)
{
    return unsupported("cudaMemcpy3DBatchAsync");
}

EXPORT cudaError_t cudaMemPoolExportToShareableHandle(void *shareableHandle, cudaMemPool_t memPool,
                                                      enum cudaMemAllocationHandleType handleType,
                                                      unsigned int flags)
{
    return unsupported("cudaMemPoolExportToShareableHandle");
}

EXPORT cudaError_t cudaMemPoolImportFromShareableHandle(cudaMemPool_t *memPool,
                                                        void *shareableHandle,
                                                        enum cudaMemAllocationHandleType handleType,
                                                        unsigned int flags)
{
    return unsupported("cudaMemPoolImportFromShareableHandle");
}

EXPORT cudaError_t cudaMemPoolExportPointer(struct cudaMemPoolPtrExportData *exportData, void *ptr)
{
    return unsupported("cudaMemPoolExportPointer");
}

EXPORT cudaError_t cudaMemPoolImportPointer(void **ptr, cudaMemPool_t memPool,
                                            struct cudaMemPoolPtrExportData *exportData)
{
    return unsupported("cudaMemPoolImportPointer");
}

EXPORT cudaError_t cudaOccupancyMaxActiveClusters(int *numClusters, const void *func,
                                                  const cudaLaunchConfig_t *launchConfig)
{
    return unsupported("cudaOccupancyMaxActiveClusters");
}

EXPORT cudaError_t cudaOccupancyMaxPotentialClusterSize(int *clusterSize, const void *func,
                                                        const cudaLaunchConfig_t *launchConfig)
{
    return unsupported("cudaOccupancyMaxPotentialClusterSize");
}

EXPORT cudaError_t cudaGetDriverEntryPointByVersion(
    const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
    enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return unsupported("cudaGetDriverEntryPointByVersion");
}

EXPORT cudaError_t cudaMemRangeGetAttribute(void *data, size_t dataSize,
                                            enum cudaMemRangeAttribute attribute,
                                            const void *devPtr, size_t count)
{
    return unsupported("cudaMemRangeGetAttribute");
}

EXPORT cudaError_t cudaMemRangeGetAttributes(void **data, size_t *dataSizes,
                                             enum cudaMemRangeAttribute *attributes,
                                             size_t numAttributes, const void *devPtr, size_t count)
{
    return unsupported("cudaMemRangeGetAttributes");
}

EXPORT cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char *path, unsigned int flags)
{
    return unsupported("cudaGraphDebugDotPrint");
}

#pragma GCC diagnostic pop

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* aliases of deprecated calls */
/* cudaStreamGetDevice, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t hStream, int *device)
{
    return cudaStreamGetDevice(ptsz(hStream), device);
}
/* cudaStreamCopyAttributes, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamCopyAttributes_ptsz(cudaStream_t dst, cudaStream_t src)
{
    return cudaStreamCopyAttributes(ptsz(dst), ptsz(src));
}
ALIAS(cudaMemcpy3DPeer_ptds, cudaMemcpy3DPeer)
/* cudaMemcpy3DPeerAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMemcpy3DPeerAsync_ptsz(const struct cudaMemcpy3DPeerParms *p,
                                              cudaStream_t stream)
{
    return cudaMemcpy3DPeerAsync(p, ptsz(stream));
}
ALIAS(cudaGetDriverEntryPoint_ptsz, cudaGetDriverEntryPoint)
ALIAS(cudaGetDriverEntryPointByVersion_ptsz, cudaGetDriverEntryPointByVersion)
ALIAS(cudaMemcpy2DArrayToArray_ptds, cudaMemcpy2DArrayToArray)
ALIAS(cudaMemcpy2DFromArray_ptds, cudaMemcpy2DFromArray)
/* cudaMemcpy2DFromArrayAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMemcpy2DFromArrayAsync_ptsz(void *dst, size_t dpitch, cudaArray_const_t src,
                                                   size_t wOffset, size_t hOffset, size_t width,
                                                   size_t height, enum cudaMemcpyKind kind,
                                                   cudaStream_t stream)
{
    return cudaMemcpy2DFromArrayAsync(dst, dpitch, src, wOffset, hOffset, width, height, kind,
                                      ptsz(stream));
}
ALIAS(cudaMemcpy2DToArray_ptds, cudaMemcpy2DToArray)
/* cudaMemcpy2DToArrayAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMemcpy2DToArrayAsync_ptsz(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                                 const void *src, size_t spitch, size_t width,
                                                 size_t height, enum cudaMemcpyKind kind,
                                                 cudaStream_t stream)
{
    return cudaMemcpy2DToArrayAsync(dst, wOffset, hOffset, src, spitch, width, height, kind,
                                    ptsz(stream));
}
ALIAS(cudaMemcpyArrayToArray_ptds, cudaMemcpyArrayToArray)
ALIAS(cudaMemcpyFromArray_ptds, cudaMemcpyFromArray)
/* cudaMemcpyFromArrayAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMemcpyFromArrayAsync_ptsz(void *dst, cudaArray_const_t src, size_t wOffset,
                                                 size_t hOffset, size_t count,
                                                 enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return cudaMemcpyFromArrayAsync(dst, src, wOffset, hOffset, count, kind, ptsz(stream));
}
ALIAS(cudaMemcpyToArray_ptds, cudaMemcpyToArray)
/* cudaMemcpyToArrayAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMemcpyToArrayAsync_ptsz(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                               const void *src, size_t count,
                                               enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return cudaMemcpyToArrayAsync(dst, wOffset, hOffset, src, count, kind, ptsz(stream));
}
/* cudaSignalExternalSemaphoresAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaSignalExternalSemaphoresAsync_ptsz(
                                                          const cudaExternalSemaphore_t *extSemArray,
                                                          const struct cudaExternalSemaphoreSignalParams *paramsArray,
                                                          unsigned int numExtSems,
                                                          cudaStream_t stream)
{
    return cudaSignalExternalSemaphoresAsync(extSemArray, paramsArray, numExtSems, ptsz(stream));
}
/* cudaWaitExternalSemaphoresAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaWaitExternalSemaphoresAsync_ptsz(const cudaExternalSemaphore_t *extSemArray,
                                                        const struct cudaExternalSemaphoreWaitParams *paramsArray,
                                                        unsigned int numExtSems,
                                                        cudaStream_t stream)
{
    return cudaWaitExternalSemaphoresAsync(extSemArray, paramsArray, numExtSems, ptsz(stream));
}
/* cudaMemcpyBatchAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMemcpyBatchAsync_ptsz(void *const *dsts, const void *const *srcs,
                                             const size_t *sizes, size_t count,
                                             struct cudaMemcpyAttributes *attrs, size_t *attrsIdxs,
                                             size_t numAttrs, cudaStream_t stream)
{
    return cudaMemcpyBatchAsync(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs,
                                ptsz(stream));
}
/* cudaMemcpy3DBatchAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMemcpy3DBatchAsync_ptsz(size_t numOps, struct cudaMemcpy3DBatchOp *opList,
                                               unsigned long long flags, cudaStream_t stream)
{
    return cudaMemcpy3DBatchAsync(numOps, opList, flags, ptsz(stream));
}
#pragma GCC diagnostic pop
