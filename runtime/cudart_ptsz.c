/*
 * runtime/cudart_ptsz.c — libcudart.so.13: the per-thread default stream entry points that
 * programs built with nvcc --default-stream per-thread call. A _ptsz function is its base
 * function with stream 0 meaning the calling thread's per-thread stream; a _ptds function (a
 * synchronous call) calls its base function.
 */
#include "runtime/cudart_private.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* variants of deprecated calls */

/* __cudaLaunchKernel, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                           void **args, size_t sharedMem, cudaStream_t stream)
{
    return __cudaLaunchKernel(kernel, gridDim, blockDim, args, sharedMem, cr_ptsz(stream));
}

/* cudaLaunchKernel, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim,
                                         void **args, size_t sharedMem, cudaStream_t stream)
{
    return cudaLaunchKernel(func, gridDim, blockDim, args, sharedMem, cr_ptsz(stream));
}
/* cudaLaunchCooperativeKernel, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim,
                                                    void **args, size_t sharedMem,
                                                    cudaStream_t stream)
{
    return cudaLaunchCooperativeKernel(func, gridDim, blockDim, args, sharedMem, cr_ptsz(stream));
}
/* cudaLaunchKernelExC, where stream 0 in the configuration is the per-thread stream. */
EXPORT cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func,
                                            void **args)
{
    if (!config)
        return cudaLaunchKernelExC(config, func, args);
    cudaLaunchConfig_t c = *config;
    c.stream = cr_ptsz(c.stream);
    return cudaLaunchKernelExC(&c, func, args);
}
/* cudaLaunchHostFunc, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    return cudaLaunchHostFunc(cr_ptsz(stream), fn, userData);
}
/* cudaMemcpy: a synchronous call, the same with the per-thread stream. */
EXPORT cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count,
                                   enum cudaMemcpyKind kind)
{
    return cudaMemcpy(dst, src, count, kind);
}
/* cudaMemcpyAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count,
                                        enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return cudaMemcpyAsync(dst, src, count, kind, cr_ptsz(stream));
}
/* cudaMemcpy2D: a synchronous call, the same with the per-thread stream. */
EXPORT cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src, size_t spitch,
                                     size_t width, size_t height, enum cudaMemcpyKind kind)
{
    return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}
/* cudaMemcpy2DAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src, size_t spitch,
                                          size_t width, size_t height, enum cudaMemcpyKind kind,
                                          cudaStream_t stream)
{
    return cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, cr_ptsz(stream));
}
/* cudaMemcpy3D: a synchronous call, the same with the per-thread stream. */
EXPORT cudaError_t cudaMemcpy3D_ptds(const struct cudaMemcpy3DParms *p)
{
    return cudaMemcpy3D(p);
}
/* cudaMemcpy3DAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
    return cudaMemcpy3DAsync(p, cr_ptsz(stream));
}
/* cudaMemcpyToSymbol: a synchronous call, the same with the per-thread stream. */
EXPORT cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t count,
                                           size_t offset, enum cudaMemcpyKind kind)
{
    return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}
/* cudaMemcpyFromSymbol: a synchronous call, the same with the per-thread stream. */
EXPORT cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t count,
                                             size_t offset, enum cudaMemcpyKind kind)
{
    return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}
/* cudaMemcpyToSymbolAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src, size_t count,
                                                size_t offset, enum cudaMemcpyKind kind,
                                                cudaStream_t stream)
{
    return cudaMemcpyToSymbolAsync(symbol, src, count, offset, kind, cr_ptsz(stream));
}
/* cudaMemcpyFromSymbolAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t count,
                                                  size_t offset, enum cudaMemcpyKind kind,
                                                  cudaStream_t stream)
{
    return cudaMemcpyFromSymbolAsync(dst, symbol, count, offset, kind, cr_ptsz(stream));
}
/* cudaMemset: a synchronous call, the same with the per-thread stream. */
EXPORT cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count)
{
    return cudaMemset(devPtr, value, count);
}
/* cudaMemsetAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    return cudaMemsetAsync(devPtr, value, count, cr_ptsz(stream));
}
/* cudaMemset2D: a synchronous call, the same with the per-thread stream. */
EXPORT cudaError_t cudaMemset2D_ptds(void *devPtr, size_t pitch, int value, size_t width,
                                     size_t height)
{
    return cudaMemset2D(devPtr, pitch, value, width, height);
}
/* cudaMemset2DAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMemset2DAsync_ptsz(void *devPtr, size_t pitch, int value, size_t width,
                                          size_t height, cudaStream_t stream)
{
    return cudaMemset2DAsync(devPtr, pitch, value, width, height, cr_ptsz(stream));
}
/* cudaMemset3D: a synchronous call, the same with the per-thread stream. */
EXPORT cudaError_t cudaMemset3D_ptds(struct cudaPitchedPtr p, int value, struct cudaExtent e)
{
    return cudaMemset3D(p, value, e);
}
/* cudaMemset3DAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMemset3DAsync_ptsz(struct cudaPitchedPtr p, int value, struct cudaExtent e,
                                          cudaStream_t stream)
{
    return cudaMemset3DAsync(p, value, e, cr_ptsz(stream));
}
/* cudaMallocAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t hStream)
{
    return cudaMallocAsync(devPtr, size, cr_ptsz(hStream));
}
/* cudaFreeAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t hStream)
{
    return cudaFreeAsync(devPtr, cr_ptsz(hStream));
}
/* cudaMallocFromPoolAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size, cudaMemPool_t memPool,
                                                cudaStream_t stream)
{
    return cudaMallocFromPoolAsync(ptr, size, memPool, cr_ptsz(stream));
}
/* cudaMemPrefetchAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMemPrefetchAsync_ptsz(const void *devPtr, size_t count,
                                             struct cudaMemLocation location, unsigned int flags,
                                             cudaStream_t stream)
{
    return cudaMemPrefetchAsync(devPtr, count, location, flags, cr_ptsz(stream));
}
/* cudaStreamAddCallback, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback,
                                              void *userData, unsigned int flags)
{
    return cudaStreamAddCallback(cr_ptsz(stream), callback, userData, flags);
}
/* cudaStreamAttachMemAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t stream, void *devPtr, size_t length,
                                                 unsigned int flags)
{
    return cudaStreamAttachMemAsync(cr_ptsz(stream), devPtr, length, flags);
}
/* cudaStreamBeginCapture, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream,
                                               enum cudaStreamCaptureMode mode)
{
    return cudaStreamBeginCapture(cr_ptsz(stream), mode);
}
/* cudaStreamBeginCaptureToGraph, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t stream, cudaGraph_t graph,
                                                      const cudaGraphNode_t *dependencies,
                                                      const cudaGraphEdgeData *dependencyData,
                                                      size_t numDependencies,
                                                      enum cudaStreamCaptureMode mode)
{
    return cudaStreamBeginCaptureToGraph(cr_ptsz(stream), graph, dependencies, dependencyData,
                                         numDependencies, mode);
}
/* cudaStreamEndCapture, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *pGraph)
{
    return cudaStreamEndCapture(cr_ptsz(stream), pGraph);
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
    return cudaStreamGetCaptureInfo(cr_ptsz(stream), captureStatus_out, id_out, graph_out,
                                    dependencies_out, edgeData_out, numDependencies_out);
}
/* cudaStreamIsCapturing, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream,
                                              enum cudaStreamCaptureStatus *pCaptureStatus)
{
    return cudaStreamIsCapturing(cr_ptsz(stream), pCaptureStatus);
}
/* cudaStreamUpdateCaptureDependencies, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(cudaStream_t stream,
                                                            cudaGraphNode_t *dependencies,
                                                            const cudaGraphEdgeData *dependencyData,
                                                            size_t numDependencies,
                                                            unsigned int flags)
{
    return cudaStreamUpdateCaptureDependencies(cr_ptsz(stream), dependencies, dependencyData,
                                               numDependencies, flags);
}
/* cudaStreamGetFlags, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t hStream, unsigned int *flags)
{
    return cudaStreamGetFlags(cr_ptsz(hStream), flags);
}
/* cudaStreamGetPriority, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t hStream, int *priority)
{
    return cudaStreamGetPriority(cr_ptsz(hStream), priority);
}
/* cudaStreamGetId, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamGetId_ptsz(cudaStream_t hStream, unsigned long long *streamId)
{
    return cudaStreamGetId(cr_ptsz(hStream), streamId);
}
/* cudaStreamQuery, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream)
{
    return cudaStreamQuery(cr_ptsz(stream));
}
/* cudaStreamSynchronize, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream)
{
    return cudaStreamSynchronize(cr_ptsz(stream));
}
/* cudaStreamWaitEvent, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event,
                                            unsigned int flags)
{
    return cudaStreamWaitEvent(cr_ptsz(stream), event, flags);
}
/* cudaStreamSetAttribute, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t hStream, cudaStreamAttrID attr,
                                               const cudaStreamAttrValue *value)
{
    return cudaStreamSetAttribute(cr_ptsz(hStream), attr, value);
}
/* cudaStreamGetAttribute, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t hStream, cudaStreamAttrID attr,
                                               cudaStreamAttrValue *value_out)
{
    return cudaStreamGetAttribute(cr_ptsz(hStream), attr, value_out);
}
/* cudaEventRecord, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream)
{
    return cudaEventRecord(event, cr_ptsz(stream));
}
/* cudaEventRecordWithFlags, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream,
                                                 unsigned int flags)
{
    return cudaEventRecordWithFlags(event, cr_ptsz(stream), flags);
}
/* cudaGraphLaunch, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    return cudaGraphLaunch(graphExec, cr_ptsz(stream));
}
/* cudaGraphUpload, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaGraphUpload_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    return cudaGraphUpload(graphExec, cr_ptsz(stream));
}
/* cudaGraphInstantiateWithParams: no stream 0 (the upload stream is the caller's). */
EXPORT cudaError_t cudaGraphInstantiateWithParams_ptsz(cudaGraphExec_t *pGraphExec,
                                                       cudaGraph_t graph,
                                                       cudaGraphInstantiateParams *params)
{
    return cudaGraphInstantiateWithParams(pGraphExec, graph, params);
}
/* cudaStreamGetDevice, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t hStream, int *device)
{
    return cudaStreamGetDevice(cr_ptsz(hStream), device);
}
/* cudaStreamCopyAttributes, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaStreamCopyAttributes_ptsz(cudaStream_t dst, cudaStream_t src)
{
    return cudaStreamCopyAttributes(cr_ptsz(dst), cr_ptsz(src));
}
/* cudaMemcpy3DPeer: a synchronous call, the same with the per-thread stream. */
EXPORT cudaError_t cudaMemcpy3DPeer_ptds(const struct cudaMemcpy3DPeerParms *p)
{
    return cudaMemcpy3DPeer(p);
}
/* cudaMemcpy3DPeerAsync, where stream 0 is the calling thread's per-thread stream. */
EXPORT cudaError_t cudaMemcpy3DPeerAsync_ptsz(const struct cudaMemcpy3DPeerParms *p,
                                              cudaStream_t stream)
{
    return cudaMemcpy3DPeerAsync(p, cr_ptsz(stream));
}
/* cudaGetDriverEntryPoint: no stream. */
EXPORT cudaError_t cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr,
                                                unsigned long long flags,
                                                enum cudaDriverEntryPointQueryResult *status)
{
    return cudaGetDriverEntryPoint(symbol, funcPtr, flags, status);
}

#pragma GCC diagnostic pop
