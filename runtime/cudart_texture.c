/*
 * runtime/cudart_texture.c — libcudart.so.13: CUDA arrays, texture objects and surface
 * objects.
 *
 * A CUDA array (struct cudaArray, the opaque cudaArray_t) is one device allocation holding its
 * elements row by row, rows padded to 64 bytes, 2D slices (3D depth or layers) one after the
 * other. Programs only reach it through the copy functions, textures and surfaces, so the
 * layout is ours to choose. A block-compressed array (BC1..BC7) holds its 4x4-texel blocks
 * as they were copied in: its copy geometry (w, h, elem) is blocks, rows of blocks and the
 * block size, its texel size tw x th; the engine decodes blocks when a texture reads them. Copies with arrays are the pitched copies of cudart_memory.c on
 * that storage (same stream order, same checks).
 *
 * A mipmapped array is one such array per level (cudaGetMipmappedArrayLevel hands them out
 * for copies and surfaces; they are freed with it).
 *
 * A texture or surface object is a descriptor (interp/texture.h `struct itex`, followed by
 * the resource and texture descriptions the program gave) in a small read-only device
 * allocation; the handle is its address. The engine validates the handle on every use.
 */
#include <stdlib.h>
#include <string.h>

#include "interp/texture.h"
#include "runtime/cudart_private.h"

/* cudaMemcpyToArray and friends are deprecated, not gone: their _ptds / _ptsz variants call
 * them */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* ============================================================================== arrays */

#define ARRAY_MAGIC     0x41525241u /* "ARRA" */
#define ARRAY_ROW_ALIGN 64

struct cudaArray {
    uint32_t magic;
    struct cudaChannelFormatDesc desc;
    struct cudaExtent ext; /* as the program gave it (0 height / depth where absent) */
    unsigned flags;
    unsigned dims; /* 1, 2 or 3 */
    bool layered;  /* layers in d (a cubemap too: 6 faces a cube) */
    bool cube;
    uint8_t fmt, nchan, bits; /* enum itex_fmt, channels, bits per channel */
    bool norm;                /* a normalized-integer channel kind: reads are normalized floats */
    uint8_t bc;               /* enum itex_bc: block-compressed (elements are blocks) */
    bool srgb;                /* an sRGB block-compressed kind */
    size_t elem;              /* bytes per element */
    size_t w, h, d;           /* elements, rows, slices or layers (each >= 1) */
    size_t tw, th;            /* texels per row and rows of texels (w, h unless bc) */
    size_t pitch, slice, bytes;
    uint64_t dev; /* device address of the storage */
    bool level;   /* a level of a mipmapped array (freed with it, not alone) */
    uint8_t packed;           /* enum itex_packed: 10-10-10-2 */
    bool nv12;                /* an NV12 array: planes in plane[] (see nv12_new) */
    struct cudaArray *plane[2]; /* NV12: the Y and UV planes (arrays of their own) */
    struct cudaArray *parent;   /* a plane: its NV12 array (freed with it, not alone) */
};

/* Bytes of one 4x4 block of block-compressed format bc. */
static unsigned bc_block_bytes(unsigned bc)
{
    return bc == ITEX_BC1 || bc == ITEX_BC4 ? 8 : 16;
}

/* Bytes of one element: a block, a packed word or nchan channels of bits. */
static size_t elem_bytes(unsigned bc, unsigned packed, unsigned nchan, unsigned bits)
{
    return bc ? bc_block_bytes(bc) : packed ? 4 : (size_t)nchan * bits / 8;
}

/* A channel format as the engine sees it: 0, or the error a GPU gives for it. *bc (may be
 * NULL: then block-compressed kinds are cudaErrorInvalidChannelDescriptor, as for linear
 * memory) says which block-compressed format it is, *srgb whether that kind is sRGB, *packed
 * whether it is the packed 10-10-10-2 kind. NV12 is not a channel format of this kind (an
 * NV12 array is two arrays, nv12_new): cudaErrorInvalidChannelDescriptor. */
static cudaError_t fmt_of(const struct cudaChannelFormatDesc *c, uint8_t *fmt, uint8_t *nchan,
                          uint8_t *bits, bool *norm, uint8_t *bc, bool *srgb, uint8_t *packed)
{
    *norm = false;
    *packed = ITEX_PK_NONE;
    int k = (int)c->f;
    if (bc) {
        *bc = ITEX_BC_NONE;
        *srgb = false;
    }
    if (k == cudaChannelFormatKindUnsignedNormalized1010102) {
        /* the one descriptor cudaCreateChannelDesc<cudaChannelFormatKindUnsignedNormalized1010102>
           makes (the runtime maps exactly (10, 10, 10, 2) to CU_AD_FORMAT_UNORM_INT_101010_2) */
        if (c->x != 10 || c->y != 10 || c->z != 10 || c->w != 2)
            return cudaErrorInvalidChannelDescriptor;
        *fmt = ITEX_UINT;
        *nchan = 4;
        *bits = 10;
        *norm = true;
        *packed = ITEX_PK_1010102;
        return cudaSuccess;
    }
    if (k >= cudaChannelFormatKindUnsignedBlockCompressed1 &&
        k <= cudaChannelFormatKindUnsignedBlockCompressed7SRGB) {
        if (!bc)
            return cudaErrorInvalidChannelDescriptor;
        /* 17..30: BC1, BC1 sRGB, BC2, BC2 sRGB, BC3, BC3 sRGB, BC4, BC4 signed, BC5, BC5 s.,
           BC6H, BC6H signed, BC7, BC7 sRGB */
        static const uint8_t code[14] = {ITEX_BC1, ITEX_BC1,  ITEX_BC2,  ITEX_BC2, ITEX_BC3,
                                         ITEX_BC3, ITEX_BC4,  ITEX_BC4,  ITEX_BC5, ITEX_BC5,
                                         ITEX_BC6H, ITEX_BC6H, ITEX_BC7, ITEX_BC7};
        const int i = k - cudaChannelFormatKindUnsignedBlockCompressed1;
        *bc = code[i];
        *srgb = (*bc <= ITEX_BC3 || *bc == ITEX_BC7) && (i & 1);
        *fmt = (*bc == ITEX_BC4 || *bc == ITEX_BC5 || *bc == ITEX_BC6H) && (i & 1) ? ITEX_SINT
                                                                                  : ITEX_UINT;
        *nchan = *bc == ITEX_BC4 ? 1 : *bc == ITEX_BC5 ? 2 : 4;
        *bits = *bc == ITEX_BC6H ? 16 : 8; /* half-float endpoints; else bytes */
        *norm = true;
        return cudaSuccess;
    }
    if (k >= cudaChannelFormatKindUnsignedNormalized8X1 &&
        k <= cudaChannelFormatKindSignedNormalized16X4) {
        static const uint8_t ch[3] = {1, 2, 4};
        int i = k - cudaChannelFormatKindUnsignedNormalized8X1; /* 0..11 */
        *fmt = i < 6 ? ITEX_UINT : ITEX_SINT;
        *bits = (i % 6) < 3 ? 8 : 16;
        *nchan = ch[i % 3];
        *norm = true;
        return cudaSuccess;
    }
    if (k == cudaChannelFormatKindNone)
        return cudaErrorInvalidChannelDescriptor;
    /* NV12 is a format of arrays only (array_new makes them, nv12_new); no other kind exists */
    if (k != cudaChannelFormatKindSigned && k != cudaChannelFormatKindUnsigned &&
        k != cudaChannelFormatKindFloat)
        return cudaErrorInvalidChannelDescriptor;
    const int b[4] = {c->x, c->y, c->z, c->w};
    unsigned n = 0;
    while (n < 4 && b[n] != 0)
        n++;
    for (unsigned i = n; i < 4; i++)
        if (b[i] != 0)
            return cudaErrorInvalidChannelDescriptor;
    if (n != 1 && n != 2 && n != 4)
        return cudaErrorInvalidChannelDescriptor;
    for (unsigned i = 1; i < n; i++)
        if (b[i] != b[0])
            return cudaErrorInvalidChannelDescriptor;
    if (b[0] != 8 && b[0] != 16 && b[0] != 32)
        return cudaErrorInvalidChannelDescriptor;
    if (k == cudaChannelFormatKindFloat && b[0] == 8)
        return cudaErrorInvalidChannelDescriptor;
    *fmt = k == cudaChannelFormatKindFloat    ? ITEX_FLOAT
           : k == cudaChannelFormatKindSigned ? ITEX_SINT
                                              : ITEX_UINT;
    *nchan = (uint8_t)n;
    *bits = (uint8_t)b[0];
    return cudaSuccess;
}

/* Is a a live array of this context? */
static bool array_ok(const struct cudaArray *a)
{
    return a && cr_hs_has(&cr_g.arrays, a) && a->magic == ARRAY_MAGIC;
}

/* Largest extent per dimension (sm_80-class limits: maxTexture1D / 2D / 3D / layered). */
#define ARRAY_MAX_1D     131072
#define ARRAY_MAX_2D     65536
#define ARRAY_MAX_3D     16384
#define ARRAY_MAX_LAYERS 2048

/* A heap copy of array record a, registered as a live array (its storage is a->dev, not
 * allocated here): the copy, or NULL when out of host memory. */
static struct cudaArray *array_rec(const struct cudaArray *a)
{
    struct cudaArray *p = malloc(sizeof *p);
    if (!p || cr_hs_add(&cr_g.arrays, p) < 0) {
        free(p);
        return NULL;
    }
    *p = *a;
    return p;
}

/* Forget array record p (not its storage). */
static void array_rec_free(struct cudaArray *p)
{
    cr_hs_del(&cr_g.arrays, p);
    p->magic = 0;
    free(p);
}

/*
 * An NV12 array (cudaChannelFormatKindNV12: 8-bit planar 4:2:0 YUV) of width x height pixels:
 * the descriptor cudaCreateChannelDescNV12 makes, (8, 8, 8, 0); 2D only (layers, cubemaps and
 * 3D extents are cudaErrorInvalidValue), even width and height (the chroma plane is half of
 * each; odd sizes are refused, not verified against a GPU). As cudaArrayGetPlane documents,
 * plane 0 is a width x height array of one 8-bit unsigned channel (Y), plane 1 a width/2 x
 * height/2 array of two (interleaved U, V). The storage is the NV12 frame layout: height rows
 * of Y, then height/2 rows of UV, every row `width` bytes on one pitch; the NV12 array itself
 * copies as those height * 3 / 2 rows of `width` bytes (a whole frame in one 2D copy; CUDA does
 * not document the geometry of a copy into the whole array, so this is ptxemu's reading, not
 * verified against a GPU), the planes as the arrays they are.
 */
static cudaError_t nv12_new(cudaArray_t *out, const struct cudaChannelFormatDesc *desc,
                            struct cudaExtent e, unsigned flags)
{
    if (desc->x != 8 || desc->y != 8 || desc->z != 8 || desc->w != 0)
        return cr_ret(cudaErrorInvalidChannelDescriptor);
    if ((flags & (cudaArrayLayered | cudaArrayCubemap)) || e.depth != 0 || e.width == 0 ||
        e.height == 0 || e.width % 2 || e.height % 2 || e.width > ARRAY_MAX_2D ||
        e.height > ARRAY_MAX_2D)
        return cr_ret(cudaErrorInvalidValue);
    struct cudaArray a = {.magic = ARRAY_MAGIC, .desc = *desc, .ext = e, .flags = flags};
    a.nv12 = true;
    a.fmt = ITEX_UINT;
    a.nchan = 1;
    a.bits = 8;
    a.elem = 1;
    a.dims = 2;
    a.w = a.tw = e.width;
    a.h = a.th = e.height / 2 * 3; /* Y rows, then UV rows */
    a.d = 1;
    a.pitch = (a.w + ARRAY_ROW_ALIGN - 1) / ARRAY_ROW_ALIGN * ARRAY_ROW_ALIGN;
    a.slice = a.bytes = a.pitch * a.h;
    struct mem *m = cr_dmem();
    if (!m)
        return cr_ret(cudaErrorInitializationError);
    if (a.bytes > cr_ctx()->dev.global_mem - mem_used(m) ||
        mem_alloc(m, a.bytes, MEM_F_DEVICE, &a.dev) < 0)
        return cr_ret(cudaErrorMemoryAllocation);
    /* the planes: ordinary 2D arrays over parts of the storage */
    struct cudaArray y = a, uv = a;
    y.nv12 = uv.nv12 = false;
    y.desc = (struct cudaChannelFormatDesc){8, 0, 0, 0, cudaChannelFormatKindUnsigned};
    y.ext = (struct cudaExtent){e.width, e.height, 0};
    y.h = y.th = e.height;
    y.slice = y.bytes = a.pitch * y.h;
    uv.desc = (struct cudaChannelFormatDesc){8, 8, 0, 0, cudaChannelFormatKindUnsigned};
    uv.ext = (struct cudaExtent){e.width / 2, e.height / 2, 0};
    uv.nchan = 2;
    uv.elem = 2;
    uv.w = uv.tw = e.width / 2;
    uv.h = uv.th = e.height / 2;
    uv.dev = a.dev + y.bytes;
    uv.slice = uv.bytes = a.pitch * uv.h;
    struct cudaArray *p = array_rec(&a);
    struct cudaArray *py = p ? array_rec(&y) : NULL;
    struct cudaArray *puv = py ? array_rec(&uv) : NULL;
    if (!puv) {
        if (py)
            array_rec_free(py);
        if (p)
            array_rec_free(p);
        mem_free(m, a.dev);
        return cr_ret(cudaErrorMemoryAllocation);
    }
    py->parent = puv->parent = p;
    p->plane[0] = py;
    p->plane[1] = puv;
    *out = p;
    return cudaSuccess;
}

static cudaError_t array_new(cudaArray_t *out, const struct cudaChannelFormatDesc *desc,
                             struct cudaExtent e, unsigned flags)
{
    CHECK_STICKY();
    if (!out || !desc)
        return cr_ret(cudaErrorInvalidValue);
    *out = NULL;
    if (flags & (cudaArraySparse | cudaArrayDeferredMapping)) {
        cr_not_supported("sparse and deferred-mapping CUDA arrays");
        return cr_ret(cudaErrorNotSupported);
    }
    if (flags & ~(unsigned)(cudaArrayLayered | cudaArraySurfaceLoadStore | cudaArrayTextureGather |
                            cudaArrayColorAttachment | cudaArrayCubemap))
        return cr_ret(cudaErrorInvalidValue);
    if (desc->f == cudaChannelFormatKindNV12)
        return nv12_new(out, desc, e, flags);
    struct cudaArray a = {.magic = ARRAY_MAGIC, .desc = *desc, .ext = e, .flags = flags};
    cudaError_t err = fmt_of(desc, &a.fmt, &a.nchan, &a.bits, &a.norm, &a.bc, &a.srgb, &a.packed);
    if (err)
        return cr_ret(err);
    a.elem = elem_bytes(a.bc, a.packed, a.nchan, a.bits);
    a.cube = flags & cudaArrayCubemap;
    a.layered = (flags & cudaArrayLayered) || a.cube;
    if (e.width == 0 || (e.height == 0 && e.depth != 0 && !a.layered) ||
        (a.layered && e.depth == 0))
        return cr_ret(cudaErrorInvalidValue);
    /* a cubemap: square faces, 6 of them (a multiple of 6 when layered) */
    if (a.cube &&
        (e.width != e.height || ((flags & cudaArrayLayered) ? e.depth % 6 != 0 : e.depth != 6)))
        return cr_ret(cudaErrorInvalidValue);
    a.dims = e.height == 0 ? 1 : (e.depth == 0 || a.layered) ? 2 : 3;
    a.w = e.width;
    a.h = e.height ? e.height : 1;
    a.d = e.depth ? e.depth : 1;
    const size_t maxw = a.dims == 1 ? ARRAY_MAX_1D : a.dims == 2 ? ARRAY_MAX_2D : ARRAY_MAX_3D;
    if (a.w > maxw || (a.dims >= 2 && a.h > maxw) || (a.dims == 3 && a.d > ARRAY_MAX_3D) ||
        (a.layered && a.d > (a.cube ? 6 * ARRAY_MAX_LAYERS : ARRAY_MAX_LAYERS)))
        return cr_ret(cudaErrorInvalidValue);
    a.tw = a.w;
    a.th = a.h;
    if (a.bc) { /* 2D (layered, cubemap) and 3D; elements are 4x4-texel blocks (per slice) */
        if (a.dims == 1 || (flags & cudaArraySurfaceLoadStore))
            return cr_ret(cudaErrorInvalidValue);
        a.w = (a.tw + 3) / 4;
        a.h = (a.th + 3) / 4;
    }
    a.pitch = (a.w * a.elem + ARRAY_ROW_ALIGN - 1) / ARRAY_ROW_ALIGN * ARRAY_ROW_ALIGN;
    a.slice = a.pitch * a.h;
    a.bytes = a.slice * a.d;
    struct mem *m = cr_dmem();
    if (!m)
        return cr_ret(cudaErrorInitializationError);
    if (a.bytes > cr_ctx()->dev.global_mem - mem_used(m) ||
        mem_alloc(m, a.bytes, MEM_F_DEVICE, &a.dev) < 0)
        return cr_ret(cudaErrorMemoryAllocation);
    struct cudaArray *p = array_rec(&a);
    if (!p) {
        mem_free(m, a.dev);
        return cr_ret(cudaErrorMemoryAllocation);
    }
    *out = p;
    return cudaSuccess;
}

EXPORT cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                                   size_t width, size_t height, unsigned int flags)
{
    if (flags & (cudaArrayLayered | cudaArrayCubemap))
        return cr_ret(cudaErrorInvalidValue);
    struct cudaExtent e = {width, height, 0};
    return array_new(array, desc, e, flags);
}

EXPORT cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                                     struct cudaExtent extent, unsigned int flags)
{
    return array_new(array, desc, extent, flags);
}

EXPORT cudaError_t cudaFreeArray(cudaArray_t array)
{
    CHECK_STICKY();
    if (!array)
        return cudaSuccess;
    if (!array_ok(array))
        return cr_ret(cudaErrorInvalidResourceHandle);
    if (array->level || array->parent) /* cudaFreeMipmappedArray / the NV12 array frees it */
        return cr_ret(cudaErrorInvalidValue);
    rt_wait(cr_ctx(), 0); /* as cudaFree: work queued before it may still read it */
    if (!cr_hs_del(&cr_g.arrays, array))
        return cr_ret(cudaErrorInvalidResourceHandle);
    for (unsigned k = 0; k < 2; k++) /* an NV12 array's planes go with it */
        if (array->plane[k])
            array_rec_free(array->plane[k]);
    struct mem *m = cr_dmem();
    if (m)
        mem_free(m, array->dev);
    array->magic = 0;
    free(array);
    return cudaSuccess;
}

EXPORT cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent,
                                    unsigned int *flags, cudaArray_t array)
{
    if (!array_ok(array))
        return cr_ret(cudaErrorInvalidResourceHandle);
    if (desc)
        *desc = array->desc;
    if (extent)
        *extent = array->ext;
    if (flags)
        *flags = array->flags;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc *desc, cudaArray_const_t array)
{
    if (!desc)
        return cr_ret(cudaErrorInvalidValue);
    if (!array_ok(array))
        return cr_ret(cudaErrorInvalidResourceHandle);
    *desc = array->desc;
    return cudaSuccess;
}

/* An array as a pitched pointer for cudaMemcpy3D (cudart_memory.c): its storage, element
 * size and slice count. */
cudaError_t cr_array_pitched(cudaArray_const_t a, struct cudaPitchedPtr *pp, size_t *elem,
                             size_t *depth)
{
    if (!array_ok(a))
        return cudaErrorInvalidResourceHandle;
    pp->ptr = (void *)(uintptr_t)a->dev;
    pp->pitch = a->pitch;
    pp->xsize = a->w * a->elem;
    pp->ysize = a->h;
    *elem = a->elem;
    *depth = a->d;
    return cudaSuccess;
}

/* The widest 1D linear texture (tex1Dfetch over cudaResourceTypeLinear memory) of format
 * fmtDesc on device, in elements. CUDA documents the limit of such a texture as a number of
 * elements, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH ("the total number of elements
 * in the linear address range cannot exceed" it, cuTexObjectCreate), whatever the format:
 * this answers that attribute (cudaDevAttrMaxTexture1DLinearWidth, cudart_device.c) for every
 * format a linear texture can have; a format it cannot have (none, NV12, block-compressed, bad
 * widths) is cudaErrorInvalidValue, a device that does not exist cudaErrorInvalidDevice. */
EXPORT cudaError_t cudaDeviceGetTexture1DLinearMaxWidth(size_t *maxWidthInElements,
                                                        const struct cudaChannelFormatDesc *fmtDesc,
                                                        int device)
{
    if (!maxWidthInElements || !fmtDesc)
        return cr_ret(cudaErrorInvalidValue);
    int v;
    cudaError_t e = cudaDeviceGetAttribute(&v, cudaDevAttrMaxTexture1DLinearWidth, device);
    if (e)
        return e; /* recorded by cudaDeviceGetAttribute */
    uint8_t fmt, nchan, bits, packed;
    bool norm;
    if (fmt_of(fmtDesc, &fmt, &nchan, &bits, &norm, NULL, NULL, &packed) != cudaSuccess)
        return cr_ret(cudaErrorInvalidValue);
    *maxWidthInElements = (size_t)v;
    return cudaSuccess;
}

/* ------------------------------------------------------------------- mipmapped arrays */

#define MIPMAP_MAGIC 0x50494d4du /* "MMIP" */

struct cudaMipmappedArray {
    uint32_t magic;
    unsigned nlevels;
    struct cudaArray *lv[ITEX_MAX_LEVELS];
};

static bool mipmap_ok(const struct cudaMipmappedArray *m)
{
    return m && cr_hs_has(&cr_g.mipmaps, m) && m->magic == MIPMAP_MAGIC;
}

static void mipmap_free(struct cudaMipmappedArray *m)
{
    struct mem *dm = cr_dmem();
    for (unsigned k = 0; k < m->nlevels; k++) {
        struct cudaArray *a = m->lv[k];
        cr_hs_del(&cr_g.arrays, a);
        if (dm)
            mem_free(dm, a->dev);
        a->magic = 0;
        free(a);
    }
    m->magic = 0;
    free(m);
}

EXPORT cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *mipmappedArray,
                                            const struct cudaChannelFormatDesc *desc,
                                            struct cudaExtent extent, unsigned int numLevels,
                                            unsigned int flags)
{
    CHECK_STICKY();
    if (!mipmappedArray || !desc || numLevels == 0 || desc->f == cudaChannelFormatKindNV12)
        return cr_ret(cudaErrorInvalidValue); /* NV12: planar arrays have no mipmaps */
    *mipmappedArray = NULL;
    const bool layered = flags & (cudaArrayLayered | cudaArrayCubemap);
    /* levels: down to 1 x 1 x 1 in the largest dimension (layers and faces do not shrink) */
    size_t big = extent.width;
    if (extent.height > big)
        big = extent.height;
    if (!layered && extent.depth > big)
        big = extent.depth;
    unsigned most = 1;
    while (most < ITEX_MAX_LEVELS && (big >> most) != 0)
        most++;
    if (numLevels > most)
        numLevels = most;
    struct cudaMipmappedArray *m = calloc(1, sizeof *m);
    if (!m)
        return cr_ret(cudaErrorMemoryAllocation);
    m->magic = MIPMAP_MAGIC;
    for (unsigned k = 0; k < numLevels; k++) {
        struct cudaExtent e = extent;
        e.width = extent.width >> k ? extent.width >> k : 1;
        if (extent.height)
            e.height = extent.height >> k ? extent.height >> k : 1;
        if (extent.depth && !layered)
            e.depth = extent.depth >> k ? extent.depth >> k : 1;
        cudaError_t err = array_new(&m->lv[k], desc, e, flags);
        if (err) {
            mipmap_free(m);
            return err; /* array_new recorded it */
        }
        m->lv[k]->level = true;
        m->nlevels = k + 1;
    }
    if (cr_hs_add(&cr_g.mipmaps, m) < 0) {
        mipmap_free(m);
        return cr_ret(cudaErrorMemoryAllocation);
    }
    *mipmappedArray = m;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGetMipmappedArrayLevel(cudaArray_t *levelArray,
                                              cudaMipmappedArray_const_t mipmappedArray,
                                              unsigned int level)
{
    if (!levelArray)
        return cr_ret(cudaErrorInvalidValue);
    if (!mipmap_ok(mipmappedArray))
        return cr_ret(cudaErrorInvalidResourceHandle);
    if (level >= mipmappedArray->nlevels)
        return cr_ret(cudaErrorInvalidValue);
    *levelArray = mipmappedArray->lv[level];
    return cudaSuccess;
}

EXPORT cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t mipmappedArray)
{
    CHECK_STICKY();
    if (!mipmappedArray)
        return cudaSuccess;
    if (!mipmap_ok(mipmappedArray))
        return cr_ret(cudaErrorInvalidResourceHandle);
    rt_wait(cr_ctx(), 0);
    if (!cr_hs_del(&cr_g.mipmaps, mipmappedArray))
        return cr_ret(cudaErrorInvalidResourceHandle);
    mipmap_free(mipmappedArray);
    return cudaSuccess;
}

/* The planes of an NV12 array (nv12_new): 0 the Y plane, 1 the UV plane, arrays usable for
 * copies, textures and surfaces like any other and freed with the NV12 array. Another plane
 * index, or an array without a multi-planar format (every other kind, and the planes
 * themselves), is cudaErrorInvalidValue as CUDA documents; a handle that is no live array is
 * cudaErrorInvalidResourceHandle. */
EXPORT cudaError_t cudaArrayGetPlane(cudaArray_t *pPlaneArray, cudaArray_t hArray,
                                     unsigned int planeIdx)
{
    if (!pPlaneArray)
        return cr_ret(cudaErrorInvalidValue);
    if (!array_ok(hArray))
        return cr_ret(cudaErrorInvalidResourceHandle);
    if (!hArray->nv12 || planeIdx > 1)
        return cr_ret(cudaErrorInvalidValue);
    *pPlaneArray = hArray->plane[planeIdx];
    return cudaSuccess;
}

/* Sparse properties and memory requirements exist for arrays made with cudaArraySparse /
 * cudaArrayDeferredMapping, which ptxemu does not make: for every other array, level or
 * argument these return cudaErrorInvalidValue, as CUDA documents. */
EXPORT cudaError_t cudaArrayGetSparseProperties(struct cudaArraySparseProperties *sparseProperties,
                                                cudaArray_t array)
{
    (void)sparseProperties;
    (void)array;
    return cr_ret(cudaErrorInvalidValue);
}

EXPORT cudaError_t cudaMipmappedArrayGetSparseProperties(
    struct cudaArraySparseProperties *sparseProperties, cudaMipmappedArray_t mipmap)
{
    (void)sparseProperties;
    (void)mipmap;
    return cr_ret(cudaErrorInvalidValue);
}

EXPORT cudaError_t cudaArrayGetMemoryRequirements(
    struct cudaArrayMemoryRequirements *memoryRequirements, cudaArray_t array, int device)
{
    (void)memoryRequirements;
    (void)array;
    (void)device;
    return cr_ret(cudaErrorInvalidValue);
}

EXPORT cudaError_t cudaMipmappedArrayGetMemoryRequirements(
    struct cudaArrayMemoryRequirements *memoryRequirements, cudaMipmappedArray_t mipmap, int device)
{
    (void)memoryRequirements;
    (void)mipmap;
    (void)device;
    return cr_ret(cudaErrorInvalidValue);
}

/* ----------------------------------------------------------------- 2D copies with arrays */

/* The device address of byte (wOffset, hOffset) of slice 0 of a, after checking that a
 * width x height byte rectangle there fits. */
static cudaError_t array_at(cudaArray_const_t a, size_t wOffset, size_t hOffset, size_t width,
                            size_t height, void **p)
{
    if (!array_ok(a))
        return cudaErrorInvalidResourceHandle;
    if (wOffset > a->w * a->elem || width > a->w * a->elem - wOffset || hOffset > a->h ||
        height > a->h - hOffset)
        return cudaErrorInvalidValue;
    *p = (void *)(uintptr_t)(a->dev + hOffset * a->pitch + wOffset);
    return cudaSuccess;
}

/* A 2D copy to / from / between arrays: synchronous (stream NULL, blocking) or queued. */
static cudaError_t copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                          size_t height, enum cudaMemcpyKind kind, cudaStream_t stream, bool async)
{
    return async ? cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, stream)
                 : cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}

static cudaError_t to_array_2d(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                               size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind,
                               cudaStream_t stream, bool async)
{
    void *p;
    cudaError_t e = array_at(dst, wOffset, hOffset, width, height, &p);
    if (e)
        return cr_ret(e);
    if (kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyHostToHost)
        return cr_ret(cudaErrorInvalidMemcpyDirection);
    return copy2d(p, dst->pitch, src, spitch, width, height, kind, stream, async);
}

static cudaError_t from_array_2d(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                 size_t hOffset, size_t width, size_t height,
                                 enum cudaMemcpyKind kind, cudaStream_t stream, bool async)
{
    void *p;
    cudaError_t e = array_at(src, wOffset, hOffset, width, height, &p);
    if (e)
        return cr_ret(e);
    if (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyHostToHost)
        return cr_ret(cudaErrorInvalidMemcpyDirection);
    return copy2d(dst, dpitch, p, src->pitch, width, height, kind, stream, async);
}

EXPORT cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                       const void *src, size_t spitch, size_t width, size_t height,
                                       enum cudaMemcpyKind kind)
{
    return to_array_2d(dst, wOffset, hOffset, src, spitch, width, height, kind, NULL, false);
}

EXPORT cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                            const void *src, size_t spitch, size_t width,
                                            size_t height, enum cudaMemcpyKind kind,
                                            cudaStream_t stream)
{
    return to_array_2d(dst, wOffset, hOffset, src, spitch, width, height, kind, stream, true);
}

EXPORT cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src,
                                         size_t wOffset, size_t hOffset, size_t width,
                                         size_t height, enum cudaMemcpyKind kind)
{
    return from_array_2d(dst, dpitch, src, wOffset, hOffset, width, height, kind, NULL, false);
}

EXPORT cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src,
                                              size_t wOffset, size_t hOffset, size_t width,
                                              size_t height, enum cudaMemcpyKind kind,
                                              cudaStream_t stream)
{
    return from_array_2d(dst, dpitch, src, wOffset, hOffset, width, height, kind, stream, true);
}

EXPORT cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                            cudaArray_const_t src, size_t wOffsetSrc,
                                            size_t hOffsetSrc, size_t width, size_t height,
                                            enum cudaMemcpyKind kind)
{
    void *d, *s;
    cudaError_t e = array_at(dst, wOffsetDst, hOffsetDst, width, height, &d);
    if (!e)
        e = array_at(src, wOffsetSrc, hOffsetSrc, width, height, &s);
    if (e)
        return cr_ret(e);
    if (kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        return cr_ret(cudaErrorInvalidMemcpyDirection);
    return cudaMemcpy2D(d, dst->pitch, s, src->pitch, width, height, kind);
}

/* The deprecated linear forms: count bytes from byte (wOffset, hOffset) on, continuing on the
 * next rows: at most three rectangles (the rest of the first row, whole rows, the start of
 * the last row). */
static cudaError_t linear_copy(cudaArray_const_t a, size_t wOffset, size_t hOffset, void *host,
                               size_t count, bool to, enum cudaMemcpyKind kind, cudaStream_t stream,
                               bool async)
{
    if (!array_ok(a))
        return cr_ret(cudaErrorInvalidResourceHandle);
    const size_t row = a->w * a->elem;
    if (wOffset >= row || hOffset >= a->h || count > (a->h - hOffset) * row - wOffset)
        return cr_ret(count ? cudaErrorInvalidValue : cudaSuccess);
    uint8_t *h = host;
    while (count) {
        size_t n, rows;
        if (wOffset || count < row) {
            n = row - wOffset < count ? row - wOffset : count;
            rows = 1;
        } else {
            rows = count / row;
            n = row;
        }
        cudaError_t e = to ? to_array_2d((cudaArray_t)(uintptr_t)a, wOffset, hOffset, h, n, n, rows,
                                         kind, stream, async)
                           : from_array_2d(h, n, a, wOffset, hOffset, n, rows, kind, stream, async);
        if (e)
            return e;
        h += n * rows;
        count -= n * rows;
        hOffset += rows;
        wOffset = 0;
    }
    return cudaSuccess;
}

EXPORT cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                     const void *src, size_t count, enum cudaMemcpyKind kind)
{
    return linear_copy(dst, wOffset, hOffset, (void *)(uintptr_t)src, count, true, kind, NULL,
                       false);
}

EXPORT cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                          const void *src, size_t count, enum cudaMemcpyKind kind,
                                          cudaStream_t stream)
{
    return linear_copy(dst, wOffset, hOffset, (void *)(uintptr_t)src, count, true, kind, stream,
                       true);
}

EXPORT cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset,
                                       size_t hOffset, size_t count, enum cudaMemcpyKind kind)
{
    return linear_copy(src, wOffset, hOffset, dst, count, false, kind, NULL, false);
}

EXPORT cudaError_t cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOffset,
                                            size_t hOffset, size_t count, enum cudaMemcpyKind kind,
                                            cudaStream_t stream)
{
    return linear_copy(src, wOffset, hOffset, dst, count, false, kind, stream, true);
}

EXPORT cudaError_t cudaMemcpyArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                          cudaArray_const_t src, size_t wOffsetSrc,
                                          size_t hOffsetSrc, size_t count, enum cudaMemcpyKind kind)
{
    if (!array_ok(dst) || !array_ok(src))
        return cr_ret(cudaErrorInvalidResourceHandle);
    const size_t sr = src->w * src->elem, dr = dst->w * dst->elem;
    if (wOffsetDst || wOffsetSrc || sr != dr || count % sr) { /* whole rows only */
        if (count == 0)
            return cudaSuccess;
        if (wOffsetDst + count > dr || wOffsetSrc + count > sr)
            return cr_ret(cudaErrorInvalidValue);
        return cudaMemcpy2DArrayToArray(dst, wOffsetDst, hOffsetDst, src, wOffsetSrc, hOffsetSrc,
                                        count, 1, kind);
    }
    return cudaMemcpy2DArrayToArray(dst, 0, hOffsetDst, src, 0, hOffsetSrc, sr, count / sr, kind);
}

/* The _ptds / _ptsz entry points of --default-stream per-thread programs. */
EXPORT __typeof__(cudaMemcpyToArray) cudaMemcpyToArray_ptds
    __attribute__((alias("cudaMemcpyToArray")));
EXPORT __typeof__(cudaMemcpy2DToArray) cudaMemcpy2DToArray_ptds
    __attribute__((alias("cudaMemcpy2DToArray")));
EXPORT __typeof__(cudaMemcpy2DArrayToArray) cudaMemcpy2DArrayToArray_ptds
    __attribute__((alias("cudaMemcpy2DArrayToArray")));
EXPORT __typeof__(cudaMemcpy2DFromArray) cudaMemcpy2DFromArray_ptds
    __attribute__((alias("cudaMemcpy2DFromArray")));
EXPORT __typeof__(cudaMemcpyArrayToArray) cudaMemcpyArrayToArray_ptds
    __attribute__((alias("cudaMemcpyArrayToArray")));
EXPORT __typeof__(cudaMemcpyFromArray) cudaMemcpyFromArray_ptds
    __attribute__((alias("cudaMemcpyFromArray")));

EXPORT cudaError_t cudaMemcpy2DFromArrayAsync_ptsz(void *dst, size_t dpitch, cudaArray_const_t src,
                                                   size_t wOffset, size_t hOffset, size_t width,
                                                   size_t height, enum cudaMemcpyKind kind,
                                                   cudaStream_t stream)
{
    return cudaMemcpy2DFromArrayAsync(dst, dpitch, src, wOffset, hOffset, width, height, kind,
                                      cr_ptsz(stream));
}

EXPORT cudaError_t cudaMemcpy2DToArrayAsync_ptsz(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                                 const void *src, size_t spitch, size_t width,
                                                 size_t height, enum cudaMemcpyKind kind,
                                                 cudaStream_t stream)
{
    return cudaMemcpy2DToArrayAsync(dst, wOffset, hOffset, src, spitch, width, height, kind,
                                    cr_ptsz(stream));
}

EXPORT cudaError_t cudaMemcpyFromArrayAsync_ptsz(void *dst, cudaArray_const_t src, size_t wOffset,
                                                 size_t hOffset, size_t count,
                                                 enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return cudaMemcpyFromArrayAsync(dst, src, wOffset, hOffset, count, kind, cr_ptsz(stream));
}

EXPORT cudaError_t cudaMemcpyToArrayAsync_ptsz(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                               const void *src, size_t count,
                                               enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return cudaMemcpyToArrayAsync(dst, wOffset, hOffset, src, count, kind, cr_ptsz(stream));
}

/* ================================================================ texture and surface objects */

/* What a handle points to: the engine's descriptor, then what the program described. */
struct tex_obj {
    struct itex t;
    struct cudaResourceDesc rd;
    struct cudaTextureDesc td;
    struct cudaResourceViewDesc vd; /* the resource view, when has_view */
    bool has_view;
};

/* The live object of handle h of kind `kind`, or NULL. */
static struct tex_obj *obj_of(unsigned long long h, unsigned kind)
{
    struct mem *m = cr_dmem();
    if (!m || !h)
        return NULL;
    const struct mem_alloc *a = mem_find(m, h, sizeof(struct tex_obj));
    if (!a || a->base != h || !(a->flags & MEM_F_CONST))
        return NULL;
    struct tex_obj *o = (struct tex_obj *)(uintptr_t)h;
    return o->t.magic == ITEX_MAGIC && o->t.kind == kind ? o : NULL;
}

/* Level geometry of array a. */
static struct itex_level level_of(const struct cudaArray *a)
{
    struct itex_level g = {.base = a->dev,
                           .width = a->tw,
                           .height = a->th,
                           .depth = a->layered ? 1 : a->d,
                           .pitch = a->pitch,
                           .slice = a->slice,
                           .bytes = a->bytes};
    return g;
}

/* A texture or surface object of an NV12 array itself: CUDA documents the planes
 * (cudaArrayGetPlane) but not what a fetch or surface access of the whole YUV 4:2:0 array
 * returns, so ptxemu refuses it, with cudaErrorInvalidValue (the one error
 * cudaCreateTextureObject documents) and one line saying why. */
static void nv12_refused(bool surface)
{
    fprintf(stderr,
            "ptxemu: %s: a %s object of an NV12 array (cudaChannelFormatKindNV12) is refused "
            "(cudaErrorInvalidValue): CUDA does not document what accessing the whole planar "
            "YUV array returns; make it of a plane from cudaArrayGetPlane (0: Y, 1: UV)\n",
            surface ? "cudaCreateSurfaceObject" : "cudaCreateTextureObject",
            surface ? "surface" : "texture");
}

/* Describe resource rd in *t (kind, format, sizes, memory). */
static cudaError_t res_of(const struct cudaResourceDesc *rd, bool surface, struct itex *t)
{
    bool norm = false;
    cudaError_t e;
    switch (rd->resType) {
    case cudaResourceTypeArray: {
        const struct cudaArray *a = rd->res.array.array;
        if (!array_ok(a))
            return cudaErrorInvalidResourceHandle;
        if (surface && !(a->flags & cudaArraySurfaceLoadStore))
            return cudaErrorInvalidValue;
        if (a->nv12) { /* see nv12_refused */
            nv12_refused(surface);
            return cudaErrorInvalidValue;
        }
        t->res = ITEX_RES_ARRAY;
        t->packed = a->packed;
        t->fmt = a->fmt;
        t->nchan = a->nchan;
        t->bits = a->bits;
        t->bc = a->bc;
        t->srgb = a->srgb;
        norm = a->norm;
        t->dims = (uint8_t)a->dims;
        t->layered = a->layered;
        t->cube = a->cube;
        if (a->cube && (a->flags & cudaArrayLayered))
            t->flags |= ITEX_F_CUBE_ARRAY;
        t->width = a->tw;
        t->height = a->th;
        t->depth = a->layered ? 1 : a->d;
        t->layers = a->layered ? a->d : 1;
        t->pitch = a->pitch;
        t->slice = a->slice;
        t->base = a->dev;
        t->bytes = a->bytes;
        break;
    }
    case cudaResourceTypeLinear:
    case cudaResourceTypePitch2D: {
        if (surface)
            return cudaErrorInvalidValue;
        const bool lin = rd->resType == cudaResourceTypeLinear;
        e = fmt_of(lin ? &rd->res.linear.desc : &rd->res.pitch2D.desc, &t->fmt, &t->nchan, &t->bits,
                   &norm, NULL, NULL, &t->packed);
        if (e)
            return e;
        void *p = lin ? rd->res.linear.devPtr : rd->res.pitch2D.devPtr;
        const size_t elem = elem_bytes(ITEX_BC_NONE, t->packed, t->nchan, t->bits);
        t->res = lin ? ITEX_RES_LINEAR : ITEX_RES_PITCH2D;
        t->dims = lin ? 1 : 2;
        t->width = lin ? rd->res.linear.sizeInBytes / elem : rd->res.pitch2D.width;
        t->height = lin ? 1 : rd->res.pitch2D.height;
        t->depth = t->layers = 1;
        t->pitch = lin ? rd->res.linear.sizeInBytes : rd->res.pitch2D.pitchInBytes;
        t->slice = 0;
        t->base = (uint64_t)(uintptr_t)p;
        t->bytes =
            lin ? t->width * elem : (t->height ? (t->height - 1) * t->pitch + t->width * elem : 0);
        int maxw = 0;
        if (lin && cudaDeviceGetAttribute(&maxw, cudaDevAttrMaxTexture1DLinearWidth, 0) == 0 &&
            t->width > (uint64_t)maxw) /* the limit cudaDeviceGetTexture1DLinearMaxWidth says */
            return cudaErrorInvalidValue;
        if (!p || !t->width || !t->height || (!lin && t->pitch < t->width * elem))
            return cudaErrorInvalidValue;
        if (!mem_find(cr_dmem(), t->base, t->bytes))
            return cudaErrorInvalidValue;
        break;
    }
    case cudaResourceTypeMipmappedArray: {
        const struct cudaMipmappedArray *mm = rd->res.mipmap.mipmap;
        if (!mipmap_ok(mm))
            return cudaErrorInvalidResourceHandle;
        if (surface)
            return cudaErrorInvalidValue;
        struct cudaResourceDesc r0 = {.resType = cudaResourceTypeArray};
        r0.res.array.array = mm->lv[0];
        e = res_of(&r0, false, t);
        if (e)
            return e;
        t->nlevels = mm->nlevels;
        t->flags |= ITEX_F_MIPMAPPED;
        for (unsigned k = 0; k < mm->nlevels; k++)
            t->lv[k] = level_of(mm->lv[k]);
        return cudaSuccess;
    }
    default:
        return cudaErrorInvalidValue;
    }
    t->elem = (uint8_t)elem_bytes(t->bc, t->packed, t->nchan, t->bits);
    t->read_norm = norm;
    t->nlevels = 1;
    t->lv[0] = (struct itex_level){.base = t->base,
                                   .width = t->width,
                                   .height = t->height,
                                   .depth = t->depth,
                                   .pitch = t->pitch,
                                   .slice = t->slice,
                                   .bytes = t->bytes};
    return cudaSuccess;
}

/* The channel description a resource view format stands for (cudaResViewFormat*: 0x01..0x18
 * 8/16/32-bit unsigned, signed integers, half and float with 1, 2 or 4 channels; 0x19..0x22 the
 * block-compressed kinds), in *c: false for an unknown format. */
static bool view_chan(unsigned f, struct cudaChannelFormatDesc *c)
{
    memset(c, 0, sizeof *c);
    if (f >= cudaResViewFormatUnsignedChar1 && f <= cudaResViewFormatFloat4) {
        static const int bits[8] = {8, 8, 16, 16, 32, 32, 16, 32};
        static const enum cudaChannelFormatKind kind[8] = {
            cudaChannelFormatKindUnsigned, cudaChannelFormatKindSigned,
            cudaChannelFormatKindUnsigned, cudaChannelFormatKindSigned,
            cudaChannelFormatKindUnsigned, cudaChannelFormatKindSigned,
            cudaChannelFormatKindFloat,    cudaChannelFormatKindFloat};
        const unsigned i = f - cudaResViewFormatUnsignedChar1, g = i / 3, n = 1u << (i % 3);
        c->x = bits[g];
        c->y = n > 1 ? bits[g] : 0;
        c->z = c->w = n > 2 ? bits[g] : 0;
        c->f = kind[g];
        return true;
    }
    /* BC1, BC2, BC3, BC4, BC4 signed, BC5, BC5 signed, BC6H, BC6H signed, BC7 */
    static const enum cudaChannelFormatKind bc[10] = {
        cudaChannelFormatKindUnsignedBlockCompressed1,
        cudaChannelFormatKindUnsignedBlockCompressed2,
        cudaChannelFormatKindUnsignedBlockCompressed3,
        cudaChannelFormatKindUnsignedBlockCompressed4,
        cudaChannelFormatKindSignedBlockCompressed4,
        cudaChannelFormatKindUnsignedBlockCompressed5,
        cudaChannelFormatKindSignedBlockCompressed5,
        cudaChannelFormatKindUnsignedBlockCompressed6H,
        cudaChannelFormatKindSignedBlockCompressed6H,
        cudaChannelFormatKindUnsignedBlockCompressed7};
    if (f >= cudaResViewFormatUnsignedBlockCompressed1 &&
        f <= cudaResViewFormatUnsignedBlockCompressed7) {
        c->f = bc[f - cudaResViewFormatUnsignedBlockCompressed1];
        return true;
    }
    return false;
}

/*
 * Apply resource view v to the texture descriptor t that res_of made of rd, as
 * cudaCreateTextureObject documents it: only for arrays and mipmapped arrays not in a
 * block-compressed format; a view format (none: the array's) of the array's element size with
 * the same extent, or a block-compressed format over an array of 32-bit unsigned integers with
 * 2 channels (BC1, BC4) or 4 (the others), whose extent is then 4 times the array's in width
 * and height (blocks become 4x4 texels; 1D arrays have no blocks); levels first..last of a
 * mipmapped array (0, 0 otherwise) and layers first..last of a layered one (whole cubes of a
 * cubemap). Anything else is cudaErrorInvalidValue.
 */
static cudaError_t view_apply(const struct cudaResourceDesc *rd,
                              const struct cudaResourceViewDesc *v, struct itex *t)
{
    const struct cudaArray *a = rd->resType == cudaResourceTypeArray ? rd->res.array.array
                                : rd->resType == cudaResourceTypeMipmappedArray
                                    ? rd->res.mipmap.mipmap->lv[0]
                                    : NULL;
    if (!a || a->bc)
        return cudaErrorInvalidValue;
    uint8_t fmt = t->fmt, nchan = t->nchan, bits = t->bits, bc = ITEX_BC_NONE,
            packed = t->packed;
    bool norm = t->read_norm, srgb = false;
    uint64_t scale = 1;
    if (v->format != cudaResViewFormatNone) {
        struct cudaChannelFormatDesc c;
        if (!view_chan((unsigned)v->format, &c) ||
            fmt_of(&c, &fmt, &nchan, &bits, &norm, &bc, &srgb, &packed) != cudaSuccess)
            return cudaErrorInvalidValue;
        if (bc) { /* blocks of 8 bytes on uint2, 16 bytes on uint4 elements */
            if (t->fmt != ITEX_UINT || t->bits != 32 || t->read_norm ||
                t->nchan != (bc == ITEX_BC1 || bc == ITEX_BC4 ? 2 : 4) || a->dims == 1)
                return cudaErrorInvalidValue;
            scale = 4;
        } else if (elem_bytes(ITEX_BC_NONE, packed, nchan, bits) != t->elem) {
            return cudaErrorInvalidValue;
        }
    }
    if (v->width != a->ext.width * scale || v->height != a->ext.height * scale ||
        v->depth != a->ext.depth)
        return cudaErrorInvalidValue;
    if (v->firstMipmapLevel > v->lastMipmapLevel || v->lastMipmapLevel >= t->nlevels ||
        v->firstLayer > v->lastLayer || v->lastLayer >= t->layers)
        return cudaErrorInvalidValue;
    if (t->cube && (v->firstLayer % 6 || (v->lastLayer + 1) % 6))
        return cudaErrorInvalidValue;
    const unsigned n = v->lastMipmapLevel - v->firstMipmapLevel + 1;
    for (unsigned k = 0; k < n; k++) {
        struct itex_level g = t->lv[v->firstMipmapLevel + k];
        g.base += (uint64_t)v->firstLayer * g.slice;
        g.bytes -= (uint64_t)v->firstLayer * g.slice;
        g.width *= scale;
        g.height *= scale;
        t->lv[k] = g;
    }
    t->nlevels = n;
    if (n == 1)
        t->flags &= (uint8_t)~ITEX_F_MIPMAPPED;
    t->layers = v->lastLayer - v->firstLayer + 1;
    t->base = t->lv[0].base;
    t->bytes = t->lv[0].bytes;
    t->width = t->lv[0].width;
    t->height = t->lv[0].height;
    t->depth = t->lv[0].depth;
    t->pitch = t->lv[0].pitch;
    t->slice = t->lv[0].slice;
    t->fmt = fmt;
    t->nchan = nchan;
    t->bits = bits;
    t->bc = bc;
    t->packed = packed;
    t->srgb = srgb;
    t->read_norm = norm;
    t->elem = (uint8_t)elem_bytes(bc, packed, nchan, bits);
    return cudaSuccess;
}

/* A new descriptor in read-only device memory: its handle. */
static cudaError_t obj_new(const struct tex_obj *o, unsigned long long *h)
{
    struct mem *m = cr_dmem();
    if (!m)
        return cudaErrorInitializationError;
    uint64_t a;
    if (mem_alloc(m, sizeof *o, MEM_F_CONST, &a) < 0)
        return cudaErrorMemoryAllocation;
    memcpy((void *)(uintptr_t)a, o, sizeof *o);
    *h = a;
    return cudaSuccess;
}

static cudaError_t obj_destroy(unsigned long long h, unsigned kind)
{
    if (!h)
        return cudaSuccess;
    struct tex_obj *o = obj_of(h, kind);
    if (!o)
        return cr_ret(cudaErrorInvalidValue);
    rt_wait(cr_ctx(), 0); /* queued kernels may still use it */
    o->t.magic = 0;
    mem_free(cr_dmem(), h);
    return cudaSuccess;
}

EXPORT cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject,
                                           const struct cudaResourceDesc *pResDesc,
                                           const struct cudaTextureDesc *pTexDesc,
                                           const struct cudaResourceViewDesc *pResViewDesc)
{
    CHECK_STICKY();
    if (!pTexObject || !pResDesc || !pTexDesc)
        return cr_ret(cudaErrorInvalidValue);
    struct tex_obj o;
    memset(&o, 0, sizeof o);
    o.t.magic = ITEX_MAGIC;
    o.t.kind = ITEX_TEXTURE;
    cudaError_t e = res_of(pResDesc, false, &o.t);
    if (e)
        return cr_ret(e);
    if (pResViewDesc) {
        e = view_apply(pResDesc, pResViewDesc, &o.t);
        if (e)
            return cr_ret(e);
        o.vd = *pResViewDesc;
        o.has_view = true;
    }
    const struct cudaTextureDesc *td = pTexDesc;
    for (unsigned i = 0; i < 3; i++) {
        if ((unsigned)td->addressMode[i] > cudaAddressModeBorder)
            return cr_ret(cudaErrorInvalidValue);
        o.t.addr[i] = (uint8_t)td->addressMode[i];
    }
    if ((unsigned)td->filterMode > cudaFilterModeLinear ||
        (unsigned)td->readMode > cudaReadModeNormalizedFloat)
        return cr_ret(cudaErrorInvalidValue);
    if (td->readMode == cudaReadModeNormalizedFloat && o.t.fmt != ITEX_FLOAT) {
        if (o.t.bits == 32) /* only 8- and 16-bit integers have a normalized read */
            return cr_ret(cudaErrorInvalidValue);
        o.t.read_norm = 1;
    }
    /* sRGB decoding applies to 8-bit unsigned channels read as normalized floats */
    o.t.srgb = (td->sRGB && o.t.read_norm && o.t.fmt == ITEX_UINT && o.t.bits == 8 &&
                (!o.t.bc || o.t.bc <= ITEX_BC3 || o.t.bc == ITEX_BC7)) ||
               o.t.srgb; /* an sRGB block-compressed kind */
    o.t.linear = td->filterMode == cudaFilterModeLinear;
    if (o.t.linear && o.t.fmt != ITEX_FLOAT && !o.t.read_norm) /* filtering needs floats */
        return cr_ret(cudaErrorInvalidValue);
    o.t.norm_coords = td->normalizedCoords != 0;
    memcpy(o.t.border, td->borderColor, sizeof o.t.border);
    if ((unsigned)td->mipmapFilterMode > cudaFilterModeLinear)
        return cr_ret(cudaErrorInvalidValue);
    o.t.mip_linear = td->mipmapFilterMode == cudaFilterModeLinear;
    if (td->seamlessCubemap && o.t.cube)
        o.t.flags |= ITEX_F_SEAMLESS;
    o.t.max_aniso = (uint8_t)(td->maxAnisotropy > 16 ? 16 : td->maxAnisotropy); /* GPUs: 16 */
    o.t.lod_bias = td->mipmapLevelBias;
    o.t.lod_min = td->minMipmapLevelClamp;
    o.t.lod_max = td->maxMipmapLevelClamp;
    o.rd = *pResDesc;
    o.td = *pTexDesc;
    unsigned long long h;
    e = obj_new(&o, &h);
    if (e)
        return cr_ret(e);
    *pTexObject = h;
    return cudaSuccess;
}

EXPORT cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject)
{
    return obj_destroy(texObject, ITEX_TEXTURE);
}

EXPORT cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *pResDesc,
                                                    cudaTextureObject_t texObject)
{
    const struct tex_obj *o = obj_of(texObject, ITEX_TEXTURE);
    if (!pResDesc || !o)
        return cr_ret(cudaErrorInvalidValue);
    *pResDesc = o->rd;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *pTexDesc,
                                                   cudaTextureObject_t texObject)
{
    const struct tex_obj *o = obj_of(texObject, ITEX_TEXTURE);
    if (!pTexDesc || !o)
        return cr_ret(cudaErrorInvalidValue);
    *pTexDesc = o->td;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGetTextureObjectResourceViewDesc(struct cudaResourceViewDesc *pResViewDesc,
                                                        cudaTextureObject_t texObject)
{
    const struct tex_obj *o = obj_of(texObject, ITEX_TEXTURE);
    if (!pResViewDesc || !o ||
        !o->has_view) /* no view given: cudaErrorInvalidValue, as documented */
        return cr_ret(cudaErrorInvalidValue);
    *pResViewDesc = o->vd;
    return cudaSuccess;
}

EXPORT cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject,
                                           const struct cudaResourceDesc *pResDesc)
{
    CHECK_STICKY();
    if (!pSurfObject || !pResDesc)
        return cr_ret(cudaErrorInvalidValue);
    struct tex_obj o;
    memset(&o, 0, sizeof o);
    o.t.magic = ITEX_MAGIC;
    o.t.kind = ITEX_SURFACE;
    cudaError_t e = res_of(pResDesc, true, &o.t);
    if (e)
        return cr_ret(e);
    o.t.read_norm = 0;
    o.rd = *pResDesc;
    unsigned long long h;
    e = obj_new(&o, &h);
    if (e)
        return cr_ret(e);
    *pSurfObject = h;
    return cudaSuccess;
}

EXPORT cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject)
{
    return obj_destroy(surfObject, ITEX_SURFACE);
}

EXPORT cudaError_t cudaGetSurfaceObjectResourceDesc(struct cudaResourceDesc *pResDesc,
                                                    cudaSurfaceObject_t surfObject)
{
    const struct tex_obj *o = obj_of(surfObject, ITEX_SURFACE);
    if (!pResDesc || !o)
        return cr_ret(cudaErrorInvalidValue);
    *pResDesc = o->rd;
    return cudaSuccess;
}
