/*
 * runtime/cudart_private.h — what the cudart_*.c files (libcudart.so.13, the CUDA runtime API)
 * share: the API's object types (streams, events, graphs and their nodes, memory pools), the
 * one default context of the process, and the helpers each chapter of the API uses.
 *
 * Only the cudart_*.c files include it (it includes NVIDIA's cuda_runtime_api.h, so types,
 * enum values and prototypes are CUDA 13's). Everything declared here is internal: the
 * version script (libcudart.map) exports only cuda* / __cuda*; shared helpers carry the cr_
 * prefix.
 */
#ifndef PTXEMU_CUDART_PRIVATE_H
#define PTXEMU_CUDART_PRIVATE_H

#include <cuda_runtime_api.h>
#include <time.h>

#include "runtime/rt.h"

/* Marks a definition as part of the library's interface (cuda* / __cuda*). */
#define EXPORT __attribute__((visibility("default")))

/* ================================================================ registration ABI */

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

/* ======================================================================= unsupported table */

/* One index per entry point of cudart_unsupported.def (the "said once" flags). */
enum cr_unsupported {
#define U(name, params) CR_UNSUP_##name,
#define A(variant, name)
#include "runtime/cudart_unsupported.def"
#undef U
#undef A
    CR_UNSUP_COUNT
};

/* ============================================================================ the context */

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


/* ========================================================================= API objects */

#define STREAM_MAGIC 0x5354524dU
#define EVENT_MAGIC 0x45564e54U

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

/* The memory of a graph memory-allocation node (cudart_graph.c, "graph memory"). CUDA gives its
 * address out when the node is made: a host block reserved then, which the device store maps
 * while a launch has the allocation allocated. Under cr_g.hlock. */
struct gmem {
    uint64_t addr;                    /* == host */
    void *host;
    size_t size;
    int refs;                         /* nodes (of graphs, executable graphs, launches) */
    bool live;                        /* allocated, in program order (launch submitted, no
                                         free submitted since) */
    bool mapped;                      /* allocated, in device order (mapped in the store) */
};

struct CUgraphNode_st {
    enum node_kind kind;
    struct CUgraph_st *graph;
    struct rt_func *func;             /* kernel */
    uint32_t grid[3], block[3];
    uint32_t cluster[3];              /* kernel: cluster shape of a captured launch (0: none) */
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

/* The process's one default CUDA context: the runtime core's context plus the API objects.
 * The only mutable static state of the library (defined in cudart_ctx.c). */
struct cudart_ctx {
    struct rt_ctx rt;
    pthread_mutex_t hlock; /* handle sets */
    struct handle_set streams, events, graphs, execs;
    struct handle_set pools;  /* cudaMemPoolCreate pools */
    struct handle_set gmems;  /* graph allocations (struct gmem) */
    struct handle_set arrays; /* CUDA arrays (cudart_texture.c) */
    struct handle_set mipmaps; /* mipmapped arrays (cudart_texture.c) */
    struct CUmemPoolHandle_st pool;
    cudaMemPool_t cur_pool;   /* cudaDeviceSetMemPool; NULL: the default pool */
    unsigned long long next_stream_id, next_capture_id;
    pthread_key_t ptds_key;   /* frees a thread's per-thread default stream when it exits */
    bool ptds_key_ok;
    atomic_bool unsup_said[CR_UNSUP_COUNT]; /* unsupported entry point already reported */
};
extern struct cudart_ctx cr_g;

/* The runtime core's context, initialised on first use. */
struct rt_ctx *cr_ctx(void);
/* Record e as the calling thread's last error (unless success) and return it. */
cudaError_t cr_ret(cudaError_t e);
/* Clear the calling thread's last error (cudaDeviceReset). */
void cr_clear_last_error(void);
/* The context's sticky error (a kernel fault), cudaSuccess if none. */
cudaError_t cr_sticky(void);
/* Return the sticky error from an API call. */
/* Hold the device's state against a concurrent cudaDeviceReset until the end of the
 * enclosing block (rt_dev_enter / rt_dev_leave; nested uses count once). */
static inline void cr_dev_use_end(int *unused)
{
    (void)unused;
    rt_dev_leave(cr_ctx());
}
#define CR_DEV_CAT2(a, b) a##b
#define CR_DEV_CAT(a, b) CR_DEV_CAT2(a, b)
#define CR_DEVICE_USE()                                                                       \
    __attribute__((cleanup(cr_dev_use_end), unused)) int CR_DEV_CAT(cr_dev_use_, __LINE__) = \
        (rt_dev_enter(cr_ctx()), 0)
/* Every API call that checks the sticky error also holds the device (CR_DEVICE_USE). */
#define CHECK_STICKY()                                                                        \
    CR_DEVICE_USE();                                                                          \
    do {                                                                                      \
        cudaError_t s_ = cr_sticky();                                                         \
        if (s_)                                                                               \
            return cr_ret(s_);                                                                \
    } while (0)
/* The device memory store, creating the device on first use (NULL, reported once, if it
 * cannot be created). */
struct mem *cr_dmem(void);
/* One line on stderr: `what` is not supported yet (cudaErrorNotSupported). */
void cr_not_supported(const char *what);
/* Note the error of a finished asynchronous operation / return it (once) from a
 * synchronizing call (the sticky error first). */
void cr_async_error(cudaError_t e);
cudaError_t cr_take_async_error(void);
/* Handle sets (under cr_g.hlock): add (0 / -1 out of memory), membership, removal. */
int cr_hs_add(struct handle_set *s, void *p);
bool cr_hs_has(struct handle_set *s, const void *p);
bool cr_hs_del(struct handle_set *s, const void *p);

/* ======================================================================= launches (launch) */

/* A registered kernel that is loaded, from a host stub or a handle (cudaErrorInvalid… else). */
cudaError_t cr_func_loaded(const void *func, struct rt_func **out);
/* Run a kernel now (graph nodes, on the worker): args per parameter, or a parameter block;
 * cluster: the launch's cluster shape (NULL: none). */
cudaError_t cr_run_kernel(struct rt_func *f, const uint32_t grid[3], const uint32_t block[3],
                          size_t shared, void **args, const uint8_t *params, bool cooperative,
                          const uint32_t *cluster);

/* ====================================================================== streams (stream) */

/* Is s a valid stream argument (0, the legacy and per-thread handles, or a live stream)? */
bool cr_stream_ok(cudaStream_t s);
/* The stream object of handle s: NULL for the legacy stream (0, cudaStreamLegacy). */
struct CUstream_st *cr_stream_obj(cudaStream_t s);
/* Stream 0 of a _ptsz entry point is the calling thread's per-thread stream. */
cudaStream_t cr_ptsz(cudaStream_t s);
/* Frees a thread's per-thread default stream (the ptds_key destructor). */
void cr_ptds_free(void *p);
/* Where the next operation of stream s goes in the work queue, and noting it went there. */
struct rt_order cr_order_of(cudaStream_t s);
void cr_note_seq(cudaStream_t s, uint64_t seq);
/* Wait for device work seq (0: all), then flush device printf output: a CUDA flush point. */
void cr_sync_point(uint64_t seq);
/* Queue a node behind earlier work of stream s, or append it to its capture graph. Takes
 * ownership of nd. */
cudaError_t cr_submit(cudaStream_t s, struct CUgraphNode_st *nd);

/* ====================================================================== memory (memory) */

/* Copies and memsets as the worker runs them (checked against the allocations). */
cudaError_t cr_run_copy_desc(const struct copy_desc *cd);
cudaError_t cr_run_memset2d(void *dst, size_t pitch, int value, size_t width, size_t height);
/* A 1-D copy; a cudaMemcpy3DParms (pitched pointers) as a copy. */
struct copy_desc cr_copy_1d(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind);
cudaError_t cr_desc_of_3d(const struct cudaMemcpy3DParms *p, struct copy_desc *cd);
/* A registered variable's device storage (loads its module). */
cudaError_t cr_symbol_lookup(const void *symbol, uint64_t *addr, uint64_t *size);
/* A pool block is freed: drop it from its pool's usage. */
void cr_pool_forget(uint64_t addr);

/* =================================================================== arrays (texture) */

/* A CUDA array as a pitched pointer (its storage), its element size and its slice (depth or
 * layer) count; cudaErrorInvalidResourceHandle for anything else. */
cudaError_t cr_array_pitched(cudaArray_const_t a, struct cudaPitchedPtr *pp, size_t *elem,
                             size_t *depth);

/* ======================================================================== graphs (graph) */

/* Node lists: add (no duplicates; -1 out of memory), remove, copy. */
int cr_nl_add(struct node_list *l, struct CUgraphNode_st *nd);
bool cr_nl_del(struct node_list *l, const struct CUgraphNode_st *nd);
int cr_nl_copy(struct node_list *dst, const struct node_list *src);
/* A new node of kind k (NULL out of memory); free a node; append a node to a graph; free a
 * graph with its nodes. */
struct CUgraphNode_st *cr_node_new(enum node_kind k);
void cr_node_free(struct CUgraphNode_st *nd);
int cr_graph_push(struct CUgraph_st *g, struct CUgraphNode_st *nd);
void cr_graph_free(struct CUgraph_st *g);
/* The queue operation that runs a node (stream work is made of nodes) and frees it. */
void cr_node_op(struct rt_ctx *c, void *arg);
/* Add node nd (taken over, freed on error; NULL: out of memory) to graph with its ndeps
 * dependencies and return it in *pNode: cudaGraphAdd*Node's common part (cudart_graph.c, and
 * the event and symbol nodes of cudart_graph_node.c). */
cudaError_t cr_graph_add(cudaGraphNode_t *pNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                         size_t ndeps, struct CUgraphNode_st *nd);
/* New kernel parameters for an existing kernel node (its edges stay): the graph's node or an
 * executable graph's copy. */
cudaError_t cr_kernel_node_update(struct CUgraphNode_st *node,
                                  const struct cudaKernelNodeParams *p);
/* Graph allocations: a new one (address fixed from now on), the one at addr, dropping a node's
 * reference; the program freeing one (program order: 1 it was allocated, -1 it was not, 0 no
 * graph allocation), and unmapping it (device order). */
cudaError_t cr_gmem_new(size_t size, struct gmem **out);
struct gmem *cr_gmem_find(uint64_t addr);
void cr_gmem_release(struct gmem *gm);
int cr_gmem_program_free(uint64_t addr);
/* Is [addr, addr+n) inside a graph allocation that is allocated in program order? */
bool cr_gmem_live_range(uint64_t addr, size_t n);
cudaError_t cr_gmem_unmap(struct gmem *gm);

#endif
