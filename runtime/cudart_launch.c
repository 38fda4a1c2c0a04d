/*
 * runtime/cudart_launch.c — libcudart.so.13: the registration ABI nvcc's host code calls
 * before main (__cudaRegisterFatBinary/Function/Var/ManagedVar), <<<>>> call configurations,
 * kernel launches (cudaLaunchKernel, cooperative and extensible launches), kernel attributes
 * and occupancy.
 *
 * A launch is validated and its parameters copied at once (configuration errors are returned
 * by the call); it then runs on the device work queue in its stream's order (stream.c), or is
 * recorded as a kernel node while its stream is captured.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/cudart_private.h"

/* The <<<>>> configurations pushed and not yet popped, per host thread. */
struct call_config {
    dim3 grid, block;
    size_t shared;
    void *stream;
};

#define CFG_STACK_MAX 32
static _Thread_local struct call_config tls_cfg[CFG_STACK_MAX];
static _Thread_local int tls_ncfg;

/* Register a fat binary (ELF constructor, before main). */
EXPORT void **__cudaRegisterFatBinary(void *fatCubin)
{
    struct rt_fatbin *fb = rt_reg_fatbin(cr_ctx(), fatCubin);
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
    cr_sync_point(0);
    rt_unreg_fatbin(cr_ctx(), fb);
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
        rt_reg_func(cr_ctx(), fb, hostFun, deviceName);
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
        rt_reg_var(cr_ctx(), fb, hostVar, NULL, deviceName, size, constant != 0, false);
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
        rt_reg_var(cr_ctx(), fb, hostVarPtrAddress, hostVarPtrAddress, deviceName, size,
                   constant != 0, true);
}

/* Load the module now (host code is about to touch a managed variable). */
EXPORT char __cudaInitModule(void **fatCubinHandle)
{
    struct rt_fatbin *fb = fb_of(fatCubinHandle);
    if (!fb)
        return 0;
    return rt_fatbin_load(cr_ctx(), fb) == RT_OK;
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
        return cr_ret(cudaErrorMissingConfiguration);
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
        return cr_ret(cudaErrorInvalidValue);
    struct rt_func *f = rt_find_func(cr_ctx(), fun);
    *kernel = (cudaKernel_t)f;
    return f ? cudaSuccess : cr_ret(cudaErrorInvalidDeviceFunction);
}

EXPORT cudaError_t cudaGetKernel(cudaKernel_t *kernelPtr, const void *entryFuncAddr)
{
    return __cudaGetKernel(kernelPtr, entryFuncAddr);
}

EXPORT cudaError_t cudaGetFuncBySymbol(cudaFunction_t *functionPtr, const void *symbolPtr)
{
    if (!functionPtr)
        return cr_ret(cudaErrorInvalidValue);
    struct rt_func *f = rt_find_func(cr_ctx(), symbolPtr);
    if (!f)
        return cr_ret(cudaErrorInvalidDeviceFunction);
    *functionPtr = (cudaFunction_t)f;
    return cudaSuccess;
}

/* A host stub, or a handle we gave out (cudaKernel_t / cudaFunction_t). */
static struct rt_func *resolve_func(const void *func)
{
    struct rt_ctx *c = cr_ctx();
    if (!func)
        return NULL;
    struct rt_func *f = rt_find_func(c, func);
    if (f)
        return f;
    return rt_is_func(c, func) ? (struct rt_func *)func : NULL;
}

cudaError_t cr_run_kernel(struct rt_func *f, const uint32_t grid[3], const uint32_t block[3],
                              size_t shared, void **args, const uint8_t *params,
                              bool cooperative, const uint32_t *cluster)
{
    struct rt_ctx *c = cr_ctx();
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
    if (cluster)
        memcpy(r.cluster, cluster, sizeof r.cluster);
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

/* A launch (cluster: the cudaLaunchAttributeClusterDimension shape; NULL: none). */
static cudaError_t launch_common(struct rt_func *f, dim3 g, dim3 b, void **args, size_t shared,
                                 cudaStream_t stream, bool cooperative, const uint32_t *cluster)
{
    CHECK_STICKY();
    if (!f)
        return cr_ret(cudaErrorInvalidDeviceFunction);
    if (!cr_stream_ok(stream))
        return cr_ret(cudaErrorInvalidResourceHandle);
    uint32_t grid[3] = {g.x, g.y, g.z}, block[3] = {b.x, b.y, b.z};
    struct CUstream_st *so = cr_stream_obj(stream);
    if (so && so->capture) {
        int le = rt_fatbin_load(cr_ctx(), f->fb);
        if (le)
            return cr_ret((cudaError_t)le);
        if (!f->kernel)
            return cr_ret(cudaErrorInvalidDeviceFunction);
        struct CUgraphNode_st *nd = cr_node_new(NK_KERNEL);
        uint32_t n = f->info.param_size_total;
        if (!nd || !(nd->params = malloc(n ? n : 1))) {
            cr_node_free(nd);
            return cr_ret(cudaErrorMemoryAllocation);
        }
        if (rt_build_params(&f->info, args, nd->params)) {
            cr_node_free(nd);
            return cr_ret(cudaErrorInvalidValue);
        }
        nd->func = f;
        if (cluster)
            memcpy(nd->cluster, cluster, sizeof nd->cluster);
        memcpy(nd->grid, grid, sizeof grid);
        memcpy(nd->block, block, sizeof block);
        nd->shared = (uint32_t)shared;
        return cr_ret(cr_submit(stream, nd));
    }
    struct rt_launch_req r = {.func = f, .shared = shared, .args = args,
                              .cooperative = cooperative};
    if (cluster)
        memcpy(r.cluster, cluster, sizeof r.cluster);
    memcpy(r.grid, grid, sizeof r.grid);
    memcpy(r.block, block, sizeof r.block);
    struct rt_kernel_op *k;
    struct rt_ctx *c = cr_ctx();
    int e = rt_launch_prepare(c, &r, &k);
    if (e)
        return cr_ret((cudaError_t)e);
    rt_printf_flush(c, false); /* a launch is a printf flush point */
    struct rt_order o = cr_order_of(stream);
    cr_note_seq(stream, rt_submit(c, &o, kernel_op, k));
    return cudaSuccess;
}

/* The launch the host stub of a <<<>>> call makes (CUDA 12.8+ ABI). */
EXPORT cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                      void **args, size_t sharedMem, cudaStream_t stream)
{
    struct rt_func *f = rt_is_func(cr_ctx(), kernel) ? (struct rt_func *)kernel : NULL;
    return launch_common(f, gridDim, blockDim, args, sharedMem, stream, false, NULL);
}

/* cudaLaunchKernel: func is a host stub (or a kernel handle). */
EXPORT cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                    size_t sharedMem, cudaStream_t stream)
{
    return launch_common(resolve_func(func), gridDim, blockDim, args, sharedMem, stream, false,
                         NULL);
}

EXPORT cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                               void **args, size_t sharedMem, cudaStream_t stream)
{
    return launch_common(resolve_func(func), gridDim, blockDim, args, sharedMem, stream, true,
                         NULL);
}

/* The launch attributes of config: cooperative, the cluster shape (all 0: none). The
 * cluster scheduling policy preference is accepted (spread and load balancing are placement
 * hints; every cluster's CTAs run together whatever it says). cudaErrorInvalidValue for a
 * malformed list or a zero cluster dimension. */
static cudaError_t launch_attrs(const cudaLaunchConfig_t *config, bool *coop, uint32_t cluster[3])
{
    if (!config || (config->numAttrs && !config->attrs))
        return cudaErrorInvalidValue;
    *coop = false;
    cluster[0] = cluster[1] = cluster[2] = 0;
    for (unsigned i = 0; i < config->numAttrs; i++) {
        const cudaLaunchAttribute *a = &config->attrs[i];
        if (a->id == cudaLaunchAttributeCooperative) {
            *coop = a->val.cooperative != 0;
        } else if (a->id == cudaLaunchAttributeClusterDimension) {
            if (!a->val.clusterDim.x || !a->val.clusterDim.y || !a->val.clusterDim.z)
                return cudaErrorInvalidValue;
            cluster[0] = a->val.clusterDim.x;
            cluster[1] = a->val.clusterDim.y;
            cluster[2] = a->val.clusterDim.z;
        } else if (a->id == cudaLaunchAttributeClusterSchedulingPolicyPreference) {
            if ((unsigned)a->val.clusterSchedulingPolicyPreference >
                cudaClusterSchedulingPolicyLoadBalancing)
                return cudaErrorInvalidValue;
        }
    }
    return cudaSuccess;
}

EXPORT cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func,
                                       void **args)
{
    bool coop;
    uint32_t cl[3];
    cudaError_t e = launch_attrs(config, &coop, cl);
    if (e)
        return cr_ret(e);
    return launch_common(resolve_func(func), config->gridDim, config->blockDim, args,
                         config->dynamicSmemBytes, config->stream, coop, cl);
}

cudaError_t cr_func_loaded(const void *func, struct rt_func **out)
{
    struct rt_func *f = resolve_func(func);
    if (!f)
        return cudaErrorInvalidDeviceFunction;
    int e = rt_fatbin_load(cr_ctx(), f->fb);
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
        return cr_ret(cudaErrorInvalidValue);
    struct rt_func *f;
    cudaError_t e = cr_func_loaded(func, &f);
    if (e)
        return cr_ret(e);
    const struct rt_device *d = &cr_ctx()->dev;
    memset(attr, 0, sizeof *attr);
    attr->sharedSizeBytes = f->info.shared_static;
    attr->constSizeBytes = f->info.module ? f->info.module->const_size : 0;
    attr->localSizeBytes = f->info.local_size;
    attr->maxThreadsPerBlock = (int)(f->info.max_threads ? f->info.max_threads
                                                         : d->threads_per_block);
    attr->numRegs = (int)f->info.nregs;
    /* CUDA's versions are compute capabilities x 10, not the PTX ISA version: ptxVersion is
     * the virtual architecture the PTX targets (80 for compute_80: what the kernel saw as
     * __CUDA_ARCH__ / 10, and what CUB picks its tuning policy by), binaryVersion the SASS
     * architecture, which for PTX JIT-compiled at load is the device's. */
    const struct ir_module *m = f->info.module;
    attr->ptxVersion = (int)(m && m->target_sm ? m->target_sm : d->sm);
    attr->binaryVersion = (int)d->sm;
    attr->maxDynamicSharedSizeBytes =
        (int)(f->max_dynamic_shared ? f->max_dynamic_shared
                                    : d->shared_per_block - f->info.shared_static);
    attr->preferredShmemCarveout = f->preferred_carveout ? f->preferred_carveout : -1;
    /* a kernel's cluster shape: .reqnctapercluster (__cluster_dims__), .explicitcluster */
    const struct ir_func *fn = f->info.func;
    if (fn && fn->reqnctapercluster[0]) {
        attr->requiredClusterWidth = (int)fn->reqnctapercluster[0];
        attr->requiredClusterHeight = (int)(fn->reqnctapercluster[1] ? fn->reqnctapercluster[1] : 1);
        attr->requiredClusterDepth = (int)(fn->reqnctapercluster[2] ? fn->reqnctapercluster[2] : 1);
    }
    attr->clusterDimMustBeSet = fn && fn->explicitcluster && !fn->reqnctapercluster[0];
    attr->clusterSchedulingPolicyPreference = f->cluster_policy;
    attr->nonPortableClusterSizeAllowed = f->nonportable_cluster;
    return cudaSuccess;
}

EXPORT cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
    CHECK_STICKY();
    struct rt_func *f;
    cudaError_t e = cr_func_loaded(func, &f);
    if (e)
        return cr_ret(e);
    const struct rt_device *d = &cr_ctx()->dev;
    switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize:
        if (value < 0 || (uint64_t)value + f->info.shared_static > d->shared_per_block_optin)
            return cr_ret(cudaErrorInvalidValue);
        f->max_dynamic_shared = (uint32_t)value;
        return cudaSuccess;
    case cudaFuncAttributePreferredSharedMemoryCarveout:
        if (value < -1 || value > 100)
            return cr_ret(cudaErrorInvalidValue);
        f->preferred_carveout = value;
        return cudaSuccess;
    case cudaFuncAttributeClusterDimMustBeSet:
    case cudaFuncAttributeRequiredClusterWidth:
    case cudaFuncAttributeRequiredClusterHeight:
    case cudaFuncAttributeRequiredClusterDepth:
        return cr_ret(cudaErrorInvalidValue); /* read-only */
    case cudaFuncAttributeNonPortableClusterSizeAllowed:
        if (value < 0 || value > 1)
            return cr_ret(cudaErrorInvalidValue);
        f->nonportable_cluster = value == 1 && d->sm >= 90;
        return cudaSuccess;
    case cudaFuncAttributeClusterSchedulingPolicyPreference:
        if (value < 0 || value > (int)cudaClusterSchedulingPolicyLoadBalancing)
            return cr_ret(cudaErrorInvalidValue);
        f->cluster_policy = value;
        return cudaSuccess;
    default:
        return cr_ret(cudaErrorInvalidValue);
    }
}

EXPORT cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig)
{
    struct rt_func *f;
    cudaError_t e = cr_func_loaded(func, &f);
    if (e)
        return cr_ret(e);
    if ((unsigned)cacheConfig > cudaFuncCachePreferEqual)
        return cr_ret(cudaErrorInvalidValue);
    f->cache_config = cacheConfig;
    return cudaSuccess;
}

EXPORT cudaError_t cudaFuncSetSharedMemConfig(const void *func, enum cudaSharedMemConfig config)
{
    (void)config;
    struct rt_func *f;
    cudaError_t e = cr_func_loaded(func, &f);
    return e ? cr_ret(e) : cudaSuccess;
}

EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize, unsigned int flags)
{
    CHECK_STICKY();
    if (!numBlocks || blockSize <= 0 || flags > 1)
        return cr_ret(cudaErrorInvalidValue);
    struct rt_func *f;
    cudaError_t e = cr_func_loaded(func, &f);
    if (e)
        return cr_ret(e);
    const struct rt_device *d = &cr_ctx()->dev;
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

/* The cluster size of an occupancy query: the kernel's __cluster_dims__, else config's
 * cudaLaunchAttributeClusterDimension; 0 when neither gives one. cudaErrorInvalidValue for
 * a malformed config, cudaErrorInvalidClusterSize when config's differs from the kernel's. */
static cudaError_t occ_cluster(const struct rt_func *f, const cudaLaunchConfig_t *config,
                               unsigned *size)
{
    bool coop;
    uint32_t want[3];
    cudaError_t e = launch_attrs(config, &coop, want);
    if (e)
        return e;
    const struct ir_func *fn = f->info.func;
    const bool lk = want[0] || want[1] || want[2];
    *size = 0;
    if (fn && fn->reqnctapercluster[0]) {
        unsigned n = 1;
        for (int i = 0; i < 3; i++) {
            uint32_t c = fn->reqnctapercluster[i] ? fn->reqnctapercluster[i] : 1;
            if (lk && want[i] != c)
                return cudaErrorInvalidClusterSize;
            n *= c;
        }
        *size = n;
    } else if (lk) {
        *size = want[0] * want[1] * want[2];
    }
    return cudaSuccess;
}

/* Does config's block fit the kernel and device (threads, shared memory)? */
static bool occ_fits(const struct rt_device *d, const struct rt_func *f,
                     const cudaLaunchConfig_t *config, unsigned *threads)
{
    const uint64_t t = (uint64_t)config->blockDim.x * config->blockDim.y * config->blockDim.z;
    *threads = (unsigned)t;
    return t && t <= d->threads_per_block && (!f->info.max_threads || t <= f->info.max_threads) &&
           config->dynamicSmemBytes + f->info.shared_static <= d->shared_per_block_optin;
}

/* The most clusters of config's shape (or the kernel's) resident at once: clusters stay within
 * a GPC (rt_cluster_occupancy). 0 when a block does not fit; cudaErrorInvalidClusterSize for a
 * cluster larger than the kernel may have (8, 16 with the non-portable attribute). */
EXPORT cudaError_t cudaOccupancyMaxActiveClusters(int *numClusters, const void *func,
                                                  const cudaLaunchConfig_t *launchConfig)
{
    CHECK_STICKY();
    if (!numClusters || !launchConfig)
        return cr_ret(cudaErrorInvalidValue);
    struct rt_func *f;
    cudaError_t e = cr_func_loaded(func, &f);
    if (e)
        return cr_ret(e);
    unsigned cs;
    if ((e = occ_cluster(f, launchConfig, &cs)))
        return cr_ret(e);
    const struct rt_device *d = &cr_ctx()->dev;
    if (!cs)
        return cr_ret(cudaErrorInvalidValue); /* no cluster shape from the kernel or config */
    unsigned max = rt_cluster_max(d, f->nonportable_cluster);
    const struct ir_func *fn = f->info.func;
    if (fn && fn->maxclusterrank && fn->maxclusterrank < max)
        max = fn->maxclusterrank;
    if (cs > max)
        return cr_ret(cudaErrorInvalidClusterSize);
    unsigned threads;
    if (!occ_fits(d, f, launchConfig, &threads)) {
        *numClusters = 0;
        return cudaSuccess;
    }
    uint64_t n = rt_cluster_occupancy(d, &f->info, threads, launchConfig->dynamicSmemBytes, cs);
    *numClusters = n > INT32_MAX ? INT32_MAX : (int)n;
    return cudaSuccess;
}

/* The largest cluster size at which at least one cluster of the kernel fits (config's cluster
 * dimension ignored; the kernel's own when it has one): at most 8, or 16 with the non-portable
 * attribute, and no more than .maxclusterrank. */
EXPORT cudaError_t cudaOccupancyMaxPotentialClusterSize(int *clusterSize, const void *func,
                                                        const cudaLaunchConfig_t *launchConfig)
{
    CHECK_STICKY();
    if (!clusterSize || !launchConfig)
        return cr_ret(cudaErrorInvalidValue);
    struct rt_func *f;
    cudaError_t e = cr_func_loaded(func, &f);
    if (e)
        return cr_ret(e);
    const struct rt_device *d = &cr_ctx()->dev;
    const struct ir_func *fn = f->info.func;
    if (fn && fn->reqnctapercluster[0]) {
        unsigned n = 1;
        for (int i = 0; i < 3; i++)
            n *= fn->reqnctapercluster[i] ? fn->reqnctapercluster[i] : 1;
        *clusterSize = (int)n;
        return cudaSuccess;
    }
    bool coop;
    uint32_t want[3];
    if ((e = launch_attrs(launchConfig, &coop, want)))
        return cr_ret(e);
    unsigned threads, best = 0;
    if (occ_fits(d, f, launchConfig, &threads)) {
        unsigned max = rt_cluster_max(d, f->nonportable_cluster);
        if (fn && fn->maxclusterrank && fn->maxclusterrank < max)
            max = fn->maxclusterrank;
        for (unsigned cs = max; cs >= 1 && !best; cs--)
            if (rt_cluster_occupancy(d, &f->info, threads, launchConfig->dynamicSmemBytes, cs))
                best = cs;
    }
    *clusterSize = (int)best;
    return cudaSuccess;
}

EXPORT cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
                                                             const void *func, int numBlocks,
                                                             int blockSize)
{
    if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0)
        return cr_ret(cudaErrorInvalidValue);
    struct rt_func *f;
    cudaError_t e = cr_func_loaded(func, &f);
    if (e)
        return cr_ret(e);
    const struct rt_device *d = &cr_ctx()->dev;
    uint64_t per = d->shared_per_sm / (unsigned)numBlocks;
    uint64_t used = f->info.shared_static + d->reserved_shared_per_block;
    uint64_t avail = per > used ? per - used : 0;
    if (avail > d->shared_per_block_optin - f->info.shared_static)
        avail = d->shared_per_block_optin - f->info.shared_static;
    *dynamicSmemSize = avail;
    return cudaSuccess;
}

EXPORT cudaError_t cudaFuncGetName(const char **name, const void *func)
{
    if (!name)
        return cr_ret(cudaErrorInvalidValue);
    struct rt_func *f = resolve_func(func);
    if (!f)
        return cr_ret(cudaErrorInvalidDeviceFunction);
    *name = f->name;
    return cudaSuccess;
}

EXPORT cudaError_t cudaFuncGetParamInfo(const void *func, size_t paramIndex, size_t *paramOffset,
                                        size_t *paramSize)
{
    struct rt_func *f;
    cudaError_t e = cr_func_loaded(func, &f);
    if (e)
        return cr_ret(e);
    if (paramIndex >= f->info.nparams)
        return cr_ret(cudaErrorInvalidValue);
    if (paramOffset)
        *paramOffset = f->info.param_offset[paramIndex];
    if (paramSize)
        *paramSize = f->info.param_size[paramIndex];
    return cudaSuccess;
}

EXPORT cudaError_t cudaKernelSetAttributeForDevice(cudaKernel_t kernel, enum cudaFuncAttribute attr,
                                                   int value, int device)
{
    if (device != 0)
        return cr_ret(cudaErrorInvalidDevice);
    return cudaFuncSetAttribute((const void *)kernel, attr, value);
}
