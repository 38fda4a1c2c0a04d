/*
 * runtime/cudart_memory.c — libcudart.so.13: memory management. Allocation (device, host,
 * managed, pitched), copies and memsets of one to three dimensions (synchronous with pageable
 * host memory, as in CUDA), symbols, prefetch/advice, stream-ordered allocation and memory
 * pools.
 *
 * Device memory is the interpreter's store (unified addressing: host-allocated and registered
 * memory is in it too). A copy or memset is a graph node queued in its stream's order
 * (cudart_stream.c), or recorded in the capture graph of a captured stream.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/cudart_private.h"

EXPORT cudaError_t cudaMemGetInfo(size_t *free_, size_t *total)
{
    CHECK_STICKY();
    CR_DEVICE_USE();
    struct mem *m = cr_dmem();
    if (!m)
        return cr_ret(cudaErrorInitializationError);
    uint64_t tot = cr_ctx()->dev.global_mem, used = mem_used(m);
    if (free_)
        *free_ = used < tot ? tot - used : 0;
    if (total)
        *total = tot;
    return cudaSuccess;
}

/* Allocate for CUDA API function api (leakcheck's backtrace names it; NULL: host memory). */
static cudaError_t alloc_common(void **p, size_t size, uint32_t flags, const char *api)
{
    CHECK_STICKY();
    if (!p)
        return cr_ret(cudaErrorInvalidValue);
    CR_DEVICE_USE();
    struct mem *m = cr_dmem();
    if (!m)
        return cr_ret(cudaErrorInitializationError);
    if ((flags & (MEM_F_DEVICE | MEM_F_MANAGED)) && size > cr_ctx()->dev.global_mem - mem_used(m)) {
        *p = NULL;
        return cr_ret(cudaErrorMemoryAllocation);
    }
    /* pinned host memory is host memory: no more than the host has (1 TiB used to succeed) */
    if ((flags & MEM_F_HOST) && size > rt_host_memory()) {
        *p = NULL;
        return cr_ret(cudaErrorMemoryAllocation);
    }
    uint64_t a;
    if (mem_alloc(m, size, flags, &a) < 0) {
        *p = NULL;
        return cr_ret(cudaErrorMemoryAllocation);
    }
    /* --check initcheck: cudaMalloc memory is not cleared on a GPU; track what is written */
    if ((flags & MEM_F_DEVICE) && (cr_ctx()->icfg.check & CHECK_INITCHECK))
        (void)mem_track_init(m, a); /* out of memory: the allocation goes unchecked */
    /* --fill-uninit: nor is it zero; the pattern shows what relied on it */
    if ((flags & (MEM_F_DEVICE | MEM_F_MANAGED)) && cr_ctx()->icfg.fill)
        interp_fill((void *)(uintptr_t)a, a, size, cr_ctx()->icfg.fill_word);
    /* --check leakcheck: where it was allocated, for the leak report */
    if (api && (flags & MEM_F_DEVICE))
        rt_leak_bt_alloc(cr_ctx(), m, a, api);
    *p = (void *)(uintptr_t)a;
    return cudaSuccess;
}

EXPORT cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    return alloc_common(devPtr, size, MEM_F_DEVICE, "cudaMalloc");
}

EXPORT cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    return alloc_common(ptr, size, MEM_F_HOST, NULL);
}

EXPORT cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    if (flags & ~(unsigned)(cudaHostAllocPortable | cudaHostAllocMapped |
                            cudaHostAllocWriteCombined))
        return cr_ret(cudaErrorInvalidValue);
    return alloc_common(pHost, size, MEM_F_HOST, NULL);
}

EXPORT cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)
        return cr_ret(cudaErrorInvalidValue);
    if (size == 0)
        return cr_ret(cudaErrorInvalidValue);
    return alloc_common(devPtr, size, MEM_F_MANAGED, NULL);
}

EXPORT cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
    if (!pitch)
        return cr_ret(cudaErrorInvalidValue);
    size_t p = (width + 511) & ~(size_t)511;
    if (!p)
        p = 512;
    cudaError_t e = alloc_common(devPtr, p * height, MEM_F_DEVICE, "cudaMallocPitch");
    if (!e)
        *pitch = p;
    return e;
}

EXPORT cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent)
{
    if (!pitchedDevPtr)
        return cr_ret(cudaErrorInvalidValue);
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
    if (!p) /* cudaFree(0) is CUDA's idiom for "start the runtime now": create the device */
        return cr_dmem() ? cudaSuccess : cr_ret(cudaErrorInitializationError);
    rt_wait(cr_ctx(), 0); /* cudaFree synchronizes with the device */
    CR_DEVICE_USE();
    struct mem *m = cr_dmem();
    if (!m)
        return cr_ret(cudaErrorInitializationError);
    uint64_t addr = (uint64_t)(uintptr_t)p;
    struct gmem *gm = (want & MEM_F_DEVICE) ? cr_gmem_find(addr) : NULL;
    if (gm) /* a graph allocation: valid while a launch has it allocated */
        return cr_ret(cr_gmem_program_free(addr) > 0 ? cr_gmem_unmap(gm) : cudaErrorInvalidValue);
    const struct mem_alloc *a = mem_find(m, addr, 1);
    if (!a || a->base != addr || !(a->flags & want))
        return cr_ret(cudaErrorInvalidValue);
    if (want & MEM_F_DEVICE)
        cr_pool_forget(addr);
    if (mem_free(m, (uint64_t)(uintptr_t)p) < 0)
        return cr_ret(cudaErrorInvalidValue);
    if (cr_ctx()->chk && (cr_ctx()->icfg.check & CHECK_LEAKCHECK))
        rt_leak_bt_free(cr_ctx(), addr);
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
        return cr_ret(cudaErrorInvalidValue);
    CR_DEVICE_USE();
    struct mem *m = cr_dmem();
    if (!m)
        return cr_ret(cudaErrorInitializationError);
    if (mem_find(m, (uint64_t)(uintptr_t)ptr, 1))
        return cr_ret(cudaErrorHostMemoryAlreadyRegistered);
    if (mem_register(m, ptr, size, MEM_F_HOST | MEM_F_REGISTERED) < 0)
        return cr_ret(cudaErrorInvalidValue);
    return cudaSuccess;
}

EXPORT cudaError_t cudaHostUnregister(void *ptr)
{
    CHECK_STICKY();
    CR_DEVICE_USE();
    struct mem *m = cr_dmem();
    if (!ptr || !m)
        return cr_ret(cudaErrorInvalidValue);
    rt_wait(cr_ctx(), 0);
    const struct mem_alloc *a = mem_find(m, (uint64_t)(uintptr_t)ptr, 1);
    if (!a || !(a->flags & MEM_F_REGISTERED) || a->base != (uint64_t)(uintptr_t)ptr)
        return cr_ret(cudaErrorHostMemoryNotRegistered);
    mem_free(m, a->base);
    return cudaSuccess;
}

EXPORT cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
    if (!pDevice || flags)
        return cr_ret(cudaErrorInvalidValue);
    CR_DEVICE_USE();
    struct mem *m = cr_dmem();
    if (!m || !mem_find(m, (uint64_t)(uintptr_t)pHost, 1))
        return cr_ret(cudaErrorInvalidValue);
    *pDevice = pHost; /* unified addressing */
    return cudaSuccess;
}

EXPORT cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost)
{
    CR_DEVICE_USE();
    struct mem *m = cr_dmem();
    if (!pFlags || !m || !mem_find(m, (uint64_t)(uintptr_t)pHost, 1))
        return cr_ret(cudaErrorInvalidValue);
    *pFlags = cudaHostAllocMapped;
    return cudaSuccess;
}

EXPORT cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes,
                                            const void *ptr)
{
    if (!attributes)
        return cr_ret(cudaErrorInvalidValue);
    CR_DEVICE_USE();
    struct mem *m = cr_dmem();
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
    uint64_t a = (uint64_t)(uintptr_t)p;
    /* a graph allocation a submitted launch allocates is valid for work ordered after it,
     * though the launch may not have mapped it yet */
    return mem_find(m, a, n ? n : 1) != NULL || cr_gmem_live_range(a, n ? n : 1);
}

static cudaError_t copy_check(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
    if ((unsigned)kind > cudaMemcpyDefault)
        return cudaErrorInvalidMemcpyDirection;
    if (!n)
        return cudaSuccess;
    if (!dst || !src)
        return cudaErrorInvalidValue;
    CR_DEVICE_USE();
    struct mem *m = cr_dmem();
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
    struct rt_timing *tm = cr_ctx()->timing;
    if (tm) { /* -ptxemu_memcpy_timed: the copy takes simulated time */
        const struct mem_alloc *sa = mem_find(cr_dmem(), (uint64_t)(uintptr_t)cd->src, 0);
        const struct mem_alloc *da = mem_find(cr_dmem(), (uint64_t)(uintptr_t)cd->dst, 0);
        bool sd = sa && (sa->flags & (MEM_F_DEVICE | MEM_F_MANAGED));
        bool dd = da && (da->flags & (MEM_F_DEVICE | MEM_F_MANAGED));
        int kind = sd && dd ? TM_COPY_D2D : dd ? TM_COPY_H2D : sd ? TM_COPY_D2H : -1;
        if (kind >= 0)
            rt_timing_copy(tm, kind, (uint64_t)cd->width * cd->height * cd->depth);
    }
    const struct mem_alloc *ta =
        tm && cd->kind == cudaMemcpyHostToDevice
            ? mem_find(cr_dmem(), (uint64_t)(uintptr_t)cd->dst, 0)
            : NULL;
    if (ta) /* -gpgpu_perf_sim_memcpy warms the L2 (at the block's canonical address) */
        for (size_t z = 0; z < cd->depth; z++)
            for (size_t y = 0; y < cd->height; y++)
                rt_timing_h2d(tm, (uint64_t)(uintptr_t)cd->dst + z * cd->dslice +
                                      y * cd->dpitch - ta->base + ta->canon,
                              cd->width);
    struct mem *m = cr_ctx()->icfg.check & CHECK_INITCHECK ? cr_dmem() : NULL;
    if (m) /* initcheck: the copy wrote its destination rows */
        for (size_t z = 0; z < cd->depth; z++)
            for (size_t y = 0; y < cd->height; y++)
                mem_mark_init(m, (uint64_t)(uintptr_t)cd->dst + z * cd->dslice + y * cd->dpitch,
                              cd->width);
}

cudaError_t cr_run_copy_desc(const struct copy_desc *cd)
{
    cudaError_t e = copy_desc_check(cd);
    if (!e)
        copy_desc_do(cd);
    return e;
}

struct copy_desc cr_copy_1d(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
    struct copy_desc cd = {.dst = dst, .src = src, .width = n, .height = 1, .depth = 1,
                           .dpitch = n, .spitch = n, .dslice = n, .sslice = n, .kind = kind};
    return cd;
}

/* Host memory the device cannot address directly (pageable): copies with it are staged,
 * i.e. synchronous with the host. */
static bool pageable(const void *p)
{
    CR_DEVICE_USE();
    struct mem *m = cr_dmem();
    return !m || !dev_range(m, p, 1);
}

/* A copy on a stream: captured into its graph or queued behind the stream's earlier work.
 * A blocking copy, or one with pageable host memory, then waits for its own completion (and
 * is a printf flush point): like the GPU's, it waits only for what its stream is ordered
 * after, so a non-blocking stream's kernel keeps running across a cudaMemcpy. */
static cudaError_t copy_submit_desc(const struct copy_desc *cd, cudaStream_t stream, bool blocking)
{
    CHECK_STICKY();
    if (!cr_stream_ok(stream))
        return cr_ret(cudaErrorInvalidResourceHandle);
    struct CUstream_st *so = cr_stream_obj(stream);
    bool capturing = so && so->capture;
    cudaError_t e = capturing ? ((unsigned)cd->kind > cudaMemcpyDefault
                                     ? cudaErrorInvalidMemcpyDirection
                                     : cudaSuccess)
                              : copy_desc_check(cd);
    if (e)
        return cr_ret(e);
    if (!capturing && (!cd->width || !cd->height || !cd->depth))
        return cudaSuccess;
    struct CUgraphNode_st *nd = cr_node_new(NK_MEMCPY);
    if (!nd)
        return cr_ret(cudaErrorMemoryAllocation);
    nd->cp = *cd;
    if (!capturing && (blocking || pageable(cd->dst) || pageable(cd->src))) {
        struct rt_order o = cr_order_of(stream);
        uint64_t seq = rt_submit(cr_ctx(), &o, cr_node_op, nd);
        cr_note_seq(stream, seq);
        cr_sync_point(seq);
        CHECK_STICKY(); /* a faulted context skipped the copy */
        return cudaSuccess;
    }
    return cr_ret(cr_submit(stream, nd));
}

static cudaError_t copy_submit(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
                               cudaStream_t stream, bool blocking)
{
    struct copy_desc cd = cr_copy_1d(dst, src, n, kind);
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
        return cr_ret(cudaErrorInvalidDevice);
    return copy_submit(dst, src, count, cudaMemcpyDeviceToDevice, NULL, true);
}

EXPORT cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice,
                                       size_t count, cudaStream_t stream)
{
    if (dstDevice != 0 || srcDevice != 0)
        return cr_ret(cudaErrorInvalidDevice);
    return copy_submit(dst, src, count, cudaMemcpyDeviceToDevice, stream, false);
}

static cudaError_t copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                          size_t height, enum cudaMemcpyKind kind, cudaStream_t stream,
                          bool blocking)
{
    if (height && (width > dpitch || width > spitch))
        return cr_ret(cudaErrorInvalidPitchValue);
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

/* cudaMemcpy3DParms (pitched pointers, or CUDA arrays: cudart_texture.c) as a copy_desc. */
cudaError_t cr_desc_of_3d(const struct cudaMemcpy3DParms *p, struct copy_desc *cd)
{
    if (!p)
        return cudaErrorInvalidValue;
    struct cudaMemcpy3DParms q = *p; /* arrays as pitched pointers to their storage */
    if ((p->srcArray && p->srcPtr.ptr) || (p->dstArray && p->dstPtr.ptr))
        return cudaErrorInvalidValue;
    size_t es = 0, ed = 0, sdep = 0, ddep = 0;
    if (p->srcArray) {
        cudaError_t e = cr_array_pitched(p->srcArray, &q.srcPtr, &es, &sdep);
        if (e)
            return e;
    }
    if (p->dstArray) {
        cudaError_t e = cr_array_pitched(p->dstArray, &q.dstPtr, &ed, &ddep);
        if (e)
            return e;
    }
    if (es && ed && es != ed)
        return cudaErrorInvalidValue;
    if (es || ed) { /* extent in elements; an array's x position too */
        q.extent.width *= es ? es : ed;
        q.srcPos.x *= es ? es : 1;
        q.dstPos.x *= ed ? ed : 1;
        const struct cudaExtent *x = &q.extent;
        if (x->width && x->height && x->depth &&
            ((es && (q.srcPos.x + x->width > q.srcPtr.xsize ||
                     q.srcPos.y + x->height > q.srcPtr.ysize || q.srcPos.z + x->depth > sdep)) ||
             (ed && (q.dstPos.x + x->width > q.dstPtr.xsize ||
                     q.dstPos.y + x->height > q.dstPtr.ysize || q.dstPos.z + x->depth > ddep))))
            return cudaErrorInvalidValue;
    }
    p = &q;
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
    cudaError_t e = cr_desc_of_3d(p, &cd);
    if (e)
        return cr_ret(e);
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

cudaError_t cr_run_memset2d(void *dst, size_t pitch, int value, size_t width, size_t height)
{
    CR_DEVICE_USE();
    struct mem *m = cr_dmem();
    if (!m)
        return cudaErrorInitializationError;
    for (size_t y = 0; y < height; y++) {
        uint8_t *row = (uint8_t *)dst + y * pitch;
        if (width && !dev_range(m, row, width))
            return cudaErrorInvalidValue;
        memset(row, value, width);
        mem_mark_init(m, (uint64_t)(uintptr_t)row, width); /* initcheck */
    }
    return cudaSuccess;
}

static cudaError_t memset_submit(void *dst, size_t pitch, int value, size_t width, size_t height,
                                 cudaStream_t stream)
{
    CHECK_STICKY();
    if (!cr_stream_ok(stream))
        return cr_ret(cudaErrorInvalidResourceHandle);
    if (height > 1 && width > pitch)
        return cr_ret(cudaErrorInvalidValue);
    if (width && height && !dst)
        return cr_ret(cudaErrorInvalidValue);
    struct CUstream_st *so = cr_stream_obj(stream);
    if (so && so->capture) {
        struct CUgraphNode_st *nd = cr_node_new(NK_MEMSET);
        if (!nd)
            return cr_ret(cudaErrorMemoryAllocation);
        nd->dst = dst;
        nd->pitch = pitch;
        nd->value = (unsigned)value & 0xff;
        nd->elem = 1;
        nd->width = width;
        nd->height = height;
        return cr_ret(cr_submit(stream, nd));
    }
    CR_DEVICE_USE();
    struct mem *m = cr_dmem();
    if (!m)
        return cr_ret(cudaErrorInitializationError);
    for (size_t y = 0; y < height; y++)
        if (width && !dev_range(m, (uint8_t *)dst + y * pitch, width))
            return cr_ret(cudaErrorInvalidValue);
    struct CUgraphNode_st *nd = cr_node_new(NK_MEMSET);
    if (!nd)
        return cr_ret(cudaErrorMemoryAllocation);
    nd->dst = dst;
    nd->pitch = pitch;
    nd->value = (unsigned)value & 0xff;
    nd->elem = 1;
    nd->width = width;
    nd->height = height;
    return cr_ret(cr_submit(stream, nd));
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
        return cr_ret(cudaErrorInvalidValue);
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
cudaError_t cr_symbol_lookup(const void *symbol, uint64_t *addr, uint64_t *size)
{
    struct rt_ctx *c = cr_ctx();
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
        return cr_ret(cudaErrorInvalidValue);
    cudaError_t e = cr_symbol_lookup(symbol, &a, &s);
    if (e)
        return cr_ret(e);
    *devPtr = (void *)(uintptr_t)a;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol)
{
    CHECK_STICKY();
    uint64_t a, s;
    if (!size)
        return cr_ret(cudaErrorInvalidValue);
    cudaError_t e = cr_symbol_lookup(symbol, &a, &s);
    if (e)
        return cr_ret(e);
    *size = s;
    return cudaSuccess;
}

static cudaError_t symbol_copy(bool to, void *host, const void *symbol, size_t count,
                               size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream,
                               bool blocking)
{
    CHECK_STICKY();
    uint64_t a, s;
    cudaError_t e = cr_symbol_lookup(symbol, &a, &s);
    if (e)
        return cr_ret(e);
    if (offset > s || count > s - offset)
        return cr_ret(cudaErrorInvalidValue);
    if (to && kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice &&
        kind != cudaMemcpyDefault)
        return cr_ret(cudaErrorInvalidMemcpyDirection);
    if (!to && kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice &&
        kind != cudaMemcpyDefault)
        return cr_ret(cudaErrorInvalidMemcpyDirection);
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
    CR_DEVICE_USE();
    struct mem *m = cr_dmem();
    if (!m || !dev_range(m, devPtr, count))
        return cr_ret(cudaErrorInvalidValue);
    return cr_stream_ok(stream) ? cudaSuccess : cr_ret(cudaErrorInvalidResourceHandle);
}

EXPORT cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
                                 struct cudaMemLocation location)
{
    (void)advice;
    (void)location;
    CR_DEVICE_USE();
    struct mem *m = cr_dmem();
    if (!m || !dev_range(m, devPtr, count))
        return cr_ret(cudaErrorInvalidValue);
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length,
                                            unsigned int flags)
{
    (void)length;
    (void)flags;
    if (!cr_stream_ok(stream))
        return cr_ret(cudaErrorInvalidResourceHandle);
    CR_DEVICE_USE();
    struct mem *m = cr_dmem();
    if (!m || !dev_range(m, devPtr, 1))
        return cr_ret(cudaErrorInvalidValue);
    return cudaSuccess;
}

static bool pool_ok(cudaMemPool_t p)
{
    return p && (p == &cr_g.pool || cr_hs_has(&cr_g.pools, p));
}

static cudaMemPool_t pool_current(void)
{
    pthread_mutex_lock(&cr_g.hlock);
    cudaMemPool_t p = cr_g.cur_pool ? cr_g.cur_pool : &cr_g.pool;
    pthread_mutex_unlock(&cr_g.hlock);
    return p;
}

static int pool_note(cudaMemPool_t p, uint64_t addr, size_t size)
{
    int r = 0;
    pthread_mutex_lock(&cr_g.hlock);
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
    pthread_mutex_unlock(&cr_g.hlock);
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
void cr_pool_forget(uint64_t addr)
{
    pthread_mutex_lock(&cr_g.hlock);
    if (!pool_forget_in(&cr_g.pool, addr))
        for (size_t i = 0; i < cr_g.pools.n; i++)
            if (pool_forget_in(cr_g.pools.v[i], addr))
                break;
    pthread_mutex_unlock(&cr_g.hlock);
}

/* Stream-ordered allocation. The address is known at once (as on a GPU); while the stream is
 * captured the allocation becomes a graph memory-allocation node. */
static cudaError_t malloc_async(void **devPtr, size_t size, cudaMemPool_t pool,
                                cudaStream_t stream)
{
    CHECK_STICKY();
    if (!devPtr || !pool_ok(pool))
        return cr_ret(cudaErrorInvalidValue);
    if (!cr_stream_ok(stream))
        return cr_ret(cudaErrorInvalidResourceHandle);
    struct CUstream_st *so = cr_stream_obj(stream);
    if (so && so->capture) {
        struct gmem *gm;
        cudaError_t e = cr_gmem_new(size, &gm);
        if (e)
            return cr_ret(e);
        struct CUgraphNode_st *nd = cr_node_new(NK_MEMALLOC);
        if (!nd) {
            cr_gmem_release(gm);
            return cr_ret(cudaErrorMemoryAllocation);
        }
        nd->gm = gm;
        nd->size = size;
        *devPtr = (void *)(uintptr_t)gm->addr;
        return cr_ret(cr_submit(stream, nd));
    }
    cudaError_t e = alloc_common(devPtr, size, MEM_F_DEVICE, "cudaMallocAsync");
    if (e)
        return e;
    if (pool_note(pool, (uint64_t)(uintptr_t)*devPtr, size) < 0) {
        free_common(*devPtr, MEM_F_DEVICE);
        *devPtr = NULL;
        return cr_ret(cudaErrorMemoryAllocation);
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
    if (!cr_stream_ok(hStream))
        return cr_ret(cudaErrorInvalidResourceHandle);
    uint64_t addr = (uint64_t)(uintptr_t)devPtr;
    struct CUstream_st *so = cr_stream_obj(hStream);
    bool capturing = so && so->capture;
    /* a graph allocation is checked (and stops being allocated) in program order: the launch
     * that allocates it may not have run yet; a captured free becomes a free node */
    int g = capturing ? (cr_gmem_find(addr) != NULL) : cr_gmem_program_free(addr);
    if (g < 0)
        return cr_ret(cudaErrorInvalidValue);
    if (g == 0) {
        CR_DEVICE_USE();
        struct mem *m = cr_dmem();
        const struct mem_alloc *a = m ? mem_find(m, addr, 1) : NULL;
        if (!a || a->base != addr || !(a->flags & MEM_F_DEVICE))
            return cr_ret(cudaErrorInvalidValue);
        if (!capturing)
            cr_pool_forget(addr);
    }
    struct CUgraphNode_st *nd = cr_node_new(NK_MEMFREE);
    if (!nd)
        return cr_ret(cudaErrorMemoryAllocation);
    nd->dst = devPtr;
    return cr_ret(cr_submit(hStream, nd));
}

EXPORT cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device)
{
    if (!memPool)
        return cr_ret(cudaErrorInvalidValue);
    if (device != 0)
        return cr_ret(cudaErrorInvalidDevice);
    *memPool = &cr_g.pool;
    return cudaSuccess;
}

EXPORT cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device)
{
    if (!memPool)
        return cr_ret(cudaErrorInvalidValue);
    if (device != 0)
        return cr_ret(cudaErrorInvalidDevice);
    *memPool = pool_current();
    return cudaSuccess;
}

EXPORT cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool)
{
    if (device != 0)
        return cr_ret(cudaErrorInvalidDevice);
    if (!pool_ok(memPool))
        return cr_ret(cudaErrorInvalidValue);
    pthread_mutex_lock(&cr_g.hlock);
    cr_g.cur_pool = memPool;
    pthread_mutex_unlock(&cr_g.hlock);
    return cudaSuccess;
}

EXPORT cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool, const struct cudaMemPoolProps *props)
{
    if (!memPool || !props || props->allocType != cudaMemAllocationTypePinned ||
        props->location.type != cudaMemLocationTypeDevice || props->location.id != 0)
        return cr_ret(cudaErrorInvalidValue);
    struct CUmemPoolHandle_st *p = calloc(1, sizeof *p);
    if (!p)
        return cr_ret(cudaErrorMemoryAllocation);
    p->reuse[0] = p->reuse[1] = p->reuse[2] = 1;
    if (cr_hs_add(&cr_g.pools, p) < 0) {
        free(p);
        return cr_ret(cudaErrorMemoryAllocation);
    }
    *memPool = p;
    return cudaSuccess;
}

/* Destroy a created pool (the default pool cannot be). Blocks still allocated stay valid
 * until freed, as in CUDA. */
EXPORT cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool)
{
    if (!memPool || memPool == &cr_g.pool || !cr_hs_del(&cr_g.pools, memPool))
        return cr_ret(cudaErrorInvalidValue);
    pthread_mutex_lock(&cr_g.hlock);
    if (cr_g.cur_pool == memPool)
        cr_g.cur_pool = NULL;
    pthread_mutex_unlock(&cr_g.hlock);
    free(memPool->blocks);
    free(memPool);
    return cudaSuccess;
}

EXPORT cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
                                           void *value)
{
    if (!pool_ok(memPool) || !value)
        return cr_ret(cudaErrorInvalidValue);
    cudaError_t e = cudaSuccess;
    pthread_mutex_lock(&cr_g.hlock);
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
    pthread_mutex_unlock(&cr_g.hlock);
    return e ? cr_ret(e) : cudaSuccess;
}

EXPORT cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
                                           void *value)
{
    if (!pool_ok(memPool) || !value)
        return cr_ret(cudaErrorInvalidValue);
    cudaError_t e = cudaSuccess;
    unsigned long long v = 0;
    pthread_mutex_lock(&cr_g.hlock);
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
    pthread_mutex_unlock(&cr_g.hlock);
    if (e)
        return cr_ret(e);
    if (attr >= cudaMemPoolAttrReleaseThreshold)
        memcpy(value, &v, sizeof v);
    return cudaSuccess;
}

EXPORT cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep)
{
    (void)minBytesToKeep;
    return pool_ok(memPool) ? cudaSuccess : cr_ret(cudaErrorInvalidValue);
}

EXPORT struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                          enum cudaChannelFormatKind f)
{
    struct cudaChannelFormatDesc d = {x, y, z, w, f};
    return d;
}

static cudaError_t copy3d_peer(const struct cudaMemcpy3DPeerParms *p, cudaStream_t stream,
                               bool blocking)
{
    if (!p)
        return cr_ret(cudaErrorInvalidValue);
    if (p->srcDevice != 0 || p->dstDevice != 0)
        return cr_ret(cudaErrorInvalidDevice);
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

EXPORT cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool,
                                        const struct cudaMemAccessDesc *descList, size_t count)
{
    if (!pool_ok(memPool) || (count && !descList))
        return cr_ret(cudaErrorInvalidValue);
    for (size_t i = 0; i < count; i++)
        if (descList[i].location.type != cudaMemLocationTypeDevice || descList[i].location.id != 0)
            return cr_ret(cudaErrorInvalidDevice);
    return cudaSuccess;
}

EXPORT cudaError_t cudaMemPoolGetAccess(enum cudaMemAccessFlags *flags, cudaMemPool_t memPool,
                                        struct cudaMemLocation *location)
{
    if (!flags || !location || !pool_ok(memPool))
        return cr_ret(cudaErrorInvalidValue);
    *flags = location->type == cudaMemLocationTypeDevice && location->id == 0
                 ? cudaMemAccessFlagsProtReadWrite
                 : cudaMemAccessFlagsProtNone;
    return cudaSuccess;
}
