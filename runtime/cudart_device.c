/*
 * runtime/cudart_device.c — libcudart.so.13: device management (the one emulated device, its
 * properties and attributes, limits, flags, synchronization and reset), versions, peer access
 * (there is no peer) and the driver entry point query.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/cudart_private.h"

EXPORT cudaError_t cudaGetDeviceCount(int *count)
{
    if (!count)
        return cr_ret(cudaErrorInvalidValue);
    *count = 1;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGetDevice(int *device)
{
    if (!device)
        return cr_ret(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}

EXPORT cudaError_t cudaSetDevice(int device)
{
    if (device != 0)
        return cr_ret(cudaErrorInvalidDevice);
    return cr_ret(cr_sticky());
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
        return cr_ret(cudaErrorInvalidValue);
    return cudaSuccess;
}

EXPORT cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
    if (!flags)
        return cr_ret(cudaErrorInvalidValue);
    *flags = cudaDeviceMapHost;
    return cudaSuccess;
}

EXPORT cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop)
{
    if (!device || !prop)
        return cr_ret(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}

EXPORT cudaError_t cudaSetValidDevices(int *device_arr, int len)
{
    if (len < 0 || (len && !device_arr))
        return cr_ret(cudaErrorInvalidValue);
    for (int i = 0; i < len; i++)
        if (device_arr[i] != 0)
            return cr_ret(cudaErrorInvalidDevice);
    return cudaSuccess;
}

EXPORT cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int device)
{
    if (!p)
        return cr_ret(cudaErrorInvalidValue);
    if (device != 0)
        return cr_ret(cudaErrorInvalidDevice);
    const struct rt_device *d = &cr_ctx()->dev;
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
        return cr_ret(cudaErrorInvalidValue);
    if (device != 0)
        return cr_ret(cudaErrorInvalidDevice);
    struct cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    const struct rt_device *d = &cr_ctx()->dev;
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
        return cr_ret(cudaErrorInvalidValue);
    }
    *value = v;
    return cudaSuccess;
}

EXPORT cudaError_t cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit)
{
    if (!pValue)
        return cr_ret(cudaErrorInvalidValue);
    const struct interp_config *ic = &cr_ctx()->icfg;
    switch (limit) {
    case cudaLimitStackSize: *pValue = ic->stack_size ? ic->stack_size : 1024; break;
    case cudaLimitPrintfFifoSize: *pValue = ic->printf_fifo ? ic->printf_fifo : 1 << 20; break;
    case cudaLimitMallocHeapSize: *pValue = ic->heap_size ? ic->heap_size : 8 << 20; break;
    case cudaLimitDevRuntimeSyncDepth: *pValue = 2; break;
    case cudaLimitDevRuntimePendingLaunchCount: *pValue = 2048; break;
    case cudaLimitMaxL2FetchGranularity: *pValue = 32; break;
    case cudaLimitPersistingL2CacheSize: *pValue = 0; break;
    default: return cr_ret(cudaErrorUnsupportedLimit);
    }
    return cudaSuccess;
}

EXPORT cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
    struct rt_ctx *c = cr_ctx();
    /* limits apply to later launches: earlier work finishes first */
    if (limit == cudaLimitStackSize || limit == cudaLimitPrintfFifoSize ||
        limit == cudaLimitMallocHeapSize)
        cr_sync_point(0);
    CR_DEVICE_USE();
    pthread_mutex_lock(&c->lock);
    cudaError_t e = cudaSuccess;
    switch (limit) {
    case cudaLimitStackSize:
        /* the per-thread stack: each call takes a frame of it (interp/warp.c), recursion
         * deeper than it holds is a stack-overflow fault */
        if (value > (size_t)16 << 20) e = cudaErrorMemoryAllocation;
        else c->icfg.stack_size = value ? value : 16;
        break;
    case cudaLimitPrintfFifoSize: /* fixed once a kernel calling printf was launched */
        if (atomic_load(&c->used_printf) || value < 64 || value > (size_t)1 << 31)
            e = cudaErrorInvalidValue;
        else
            c->icfg.printf_fifo = (unsigned)value;
        break;
    case cudaLimitMallocHeapSize: /* fixed once a kernel calling malloc was launched */
        if (atomic_load(&c->used_malloc) || value == 0) e = cudaErrorInvalidValue;
        else c->icfg.heap_size = value;
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
    if (!e && c->idev)
        interp_dev_set_limits(c->idev, c->icfg.stack_size, c->icfg.heap_size,
                              c->icfg.printf_fifo);
    pthread_mutex_unlock(&c->lock);
    return e ? cr_ret(e) : cudaSuccess;
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
    return (unsigned)cacheConfig > cudaFuncCachePreferEqual ? cr_ret(cudaErrorInvalidValue)
                                                            : cudaSuccess;
}

EXPORT cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig)
{
    if (!pCacheConfig)
        return cr_ret(cudaErrorInvalidValue);
    *pCacheConfig = cudaFuncCachePreferNone;
    return cudaSuccess;
}

EXPORT cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
    if (!canAccessPeer)
        return cr_ret(cudaErrorInvalidValue);
    if (device != 0 || peerDevice != 0)
        return cr_ret(cudaErrorInvalidDevice);
    *canAccessPeer = 0;
    return cudaSuccess;
}

EXPORT cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
    if (!pciBusId || len <= 0)
        return cr_ret(cudaErrorInvalidValue);
    if (device != 0)
        return cr_ret(cudaErrorInvalidDevice);
    snprintf(pciBusId, (size_t)len, "0000:%02x:00.0", cr_ctx()->dev.pci_bus);
    return cudaSuccess;
}

EXPORT cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId)
{
    if (!device || !pciBusId)
        return cr_ret(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}

/* Wait for all device work: everything already ran; report the sticky error. */
EXPORT cudaError_t cudaDeviceSynchronize(void)
{
    cr_sync_point(0);
    return cr_ret(cr_take_async_error());
}

EXPORT cudaError_t cudaThreadSynchronize(void)
{
    return cudaDeviceSynchronize();
}

/* Destroy all allocations and modules of the context and clear the sticky error; registered
 * fat binaries reload at their next use. */
EXPORT cudaError_t cudaDeviceReset(void)
{
    struct rt_ctx *c = cr_ctx();
    cr_sync_point(0);
    /* other host threads' calls finish first; their later work is refused (rt.h) */
    rt_dev_reset_begin(c);
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
    rt_check_leaks(c); /* --check leakcheck: what the program did not free */
    if (c->idev)
        interp_dev_destroy(c->idev);
    c->idev = NULL;
    c->init_err[0] = 0;
    c->sticky = 0;
    /* the limits are the context's: back to the device's defaults */
    c->icfg.stack_size = c->dev.stack_size;
    c->icfg.heap_size = c->dev.heap_size;
    c->icfg.printf_fifo = (unsigned)c->dev.printf_fifo;
    atomic_store(&c->used_printf, false);
    atomic_store(&c->used_malloc, false);
    pthread_mutex_unlock(&c->lock);
    rt_dev_reset_end(c);
    cr_clear_last_error();
    return cudaSuccess;
}

EXPORT cudaError_t cudaThreadExit(void)
{
    return cudaDeviceReset();
}

EXPORT cudaError_t cudaDriverGetVersion(int *driverVersion)
{
    if (!driverVersion)
        return cr_ret(cudaErrorInvalidValue);
    *driverVersion = CUDART_VERSION;
    return cudaSuccess;
}

EXPORT cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)
{
    if (!runtimeVersion)
        return cr_ret(cudaErrorInvalidValue);
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

EXPORT cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *pConfig)
{
    if (!pConfig)
        return cr_ret(cudaErrorInvalidValue);
    *pConfig = cudaSharedMemBankSizeFourByte;
    return cudaSuccess;
}

EXPORT cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config)
{
    return (unsigned)config > cudaSharedMemBankSizeEightByte ? cr_ret(cudaErrorInvalidValue)
                                                             : cudaSuccess;
}

/* One device: there is no peer. */
EXPORT cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
{
    (void)peerDevice;
    return cr_ret(flags ? cudaErrorInvalidValue : cudaErrorInvalidDevice);
}

EXPORT cudaError_t cudaDeviceDisablePeerAccess(int peerDevice)
{
    (void)peerDevice;
    return cr_ret(cudaErrorInvalidDevice);
}
