/*
 * runtime/cudart_tensormap.c — the driver functions CUDA 13 programs reach through
 * cudaGetDriverEntryPoint{ByVersion} (they do not link libcuda): cuTensorMapEncodeTiled,
 * cuTensorMapEncodeIm2col and cuTensorMapEncodeIm2colWide (CUDA 12.8+), which build the tensor
 * maps of cp.async.bulk.tensor in the emulator's encoding (interp/tmap.h), with the driver's
 * parameter rules (CUDA_ERROR_INVALID_VALUE for each violation), and cuTensorMapReplaceAddress.
 *
 * Interleaved layouts and the sm_100 swizzle / packed-type forms are valid for the driver but
 * not implemented by the emulator's tensor copies: the encoder refuses them with
 * CUDA_ERROR_NOT_SUPPORTED and a line on stderr saying so.
 */
#include <cuda.h>
#include <stdio.h>
#include <string.h>

#include "interp/tmap.h"
#include "runtime/cudart_private.h"

/* Refuse a valid map the emulator cannot copy (fn: the encoder's name). */
static CUresult tm_unsupported(const char *fn, const char *what)
{
    fprintf(stderr, "ptxemu: %s: %s is not implemented\n", fn, what);
    return CUDA_ERROR_NOT_SUPPORTED;
}

/* The driver's rules both encoders share (cuda.h's documentation of cuTensorMapEncodeTiled and
 * cuTensorMapEncodeIm2col): the map 64-byte aligned, the enumerations in range, the global
 * address 16-byte aligned (32 for the 32B interleave), every dimension 1 .. 2^32, the strides
 * multiples of 16 (32) below 2^40, the element strides 1 .. 8, the 32B interleave with the 32B
 * swizzle only, the NaN fill for floating-point types only; then the valid maps the emulator
 * does not copy (packed sub-byte types, interleaved layouts, the 128B atom swizzles), and an
 * inner dimension of `inner` bytes wider than the swizzle span. On success *m is the common part
 * of the map. */
static CUresult tm_common(const char *fn, CUtensorMap *tensorMap,
                          CUtensorMapDataType tensorDataType, cuuint32_t tensorRank,
                          void *globalAddress, const cuuint64_t *globalDim,
                          const cuuint64_t *globalStrides, const cuuint32_t *elementStrides,
                          CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                          CUtensorMapL2promotion l2Promotion, CUtensorMapFloatOOBfill oobFill,
                          unsigned long long inner_elems, struct tmap *m)
{
    if (!tensorMap || ((uintptr_t)tensorMap & 63) || !globalDim || !elementStrides ||
        (tensorRank > 1 && !globalStrides))
        return CUDA_ERROR_INVALID_VALUE;
    const unsigned t = (unsigned)tensorDataType;
    if (t > CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B)
        return CUDA_ERROR_INVALID_VALUE;
    if ((unsigned)interleave > CU_TENSOR_MAP_INTERLEAVE_32B ||
        (unsigned)swizzle > CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B ||
        (unsigned)l2Promotion > CU_TENSOR_MAP_L2_PROMOTION_L2_256B ||
        (unsigned)oobFill > CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA)
        return CUDA_ERROR_INVALID_VALUE;
    if (interleave != CU_TENSOR_MAP_INTERLEAVE_NONE && tensorRank < 3)
        return CUDA_ERROR_INVALID_VALUE;
    if ((uintptr_t)globalAddress & 15)
        return CUDA_ERROR_INVALID_VALUE;
    if (interleave == CU_TENSOR_MAP_INTERLEAVE_32B && ((uintptr_t)globalAddress & 31))
        return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < tensorRank; i++)
        if (globalDim[i] == 0 || globalDim[i] > (UINT64_C(1) << 32))
            return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i + 1 < tensorRank; i++)
        if (globalStrides[i] % 16 || globalStrides[i] >= (UINT64_C(1) << 40) ||
            (interleave == CU_TENSOR_MAP_INTERLEAVE_32B && globalStrides[i] % 32))
            return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < tensorRank; i++)
        if (elementStrides[i] == 0 || elementStrides[i] > 8)
            return CUDA_ERROR_INVALID_VALUE;
    if (interleave == CU_TENSOR_MAP_INTERLEAVE_32B && swizzle != CU_TENSOR_MAP_SWIZZLE_32B)
        return CUDA_ERROR_INVALID_VALUE;
    if (oobFill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA && !tmap_dtype_float(t))
        return CUDA_ERROR_INVALID_VALUE;
    /* the packed sub-byte types (sm_100), interleaved layouts and the 128B atom swizzles are
       valid maps the emulator does not copy */
    if (t >= TMAP_DTYPE_COUNT)
        return tm_unsupported(fn, "a packed data type (16U4 / 16U6)");
    const unsigned es = tmap_dtype_size(t);
    if (interleave != CU_TENSOR_MAP_INTERLEAVE_NONE)
        return tm_unsupported(fn, "an interleaved layout");
    if (swizzle > CU_TENSOR_MAP_SWIZZLE_128B)
        return tm_unsupported(fn, "the 128B atom swizzle modes");
    static const unsigned span[] = {0, 32, 64, 128};
    if (swizzle != CU_TENSOR_MAP_SWIZZLE_NONE && inner_elems * es > span[swizzle])
        return CUDA_ERROR_INVALID_VALUE;

    memset(m, 0, sizeof *m);
    m->magic = TMAP_MAGIC;
    m->dtype = (uint8_t)t;
    m->rank = (uint8_t)tensorRank;
    m->esize = (uint8_t)es;
    m->swizzle = (uint8_t)swizzle;
    m->oob_nan = oobFill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA;
    m->l2promo = (uint8_t)l2Promotion;
    m->addr = (uint64_t)(uintptr_t)globalAddress;
    m->stride[0] = es;
    for (unsigned i = 0; i < tensorRank; i++) {
        m->dim_m1[i] = (uint32_t)(globalDim[i] - 1);
        m->estride[i] = (uint8_t)elementStrides[i];
        if (i > 0)
            m->stride[i] = globalStrides[i - 1];
    }
    return CUDA_SUCCESS;
}

/* Write map m into the opaque object. */
static void tm_store(CUtensorMap *tensorMap, const struct tmap *m)
{
    memset(tensorMap, 0, sizeof *tensorMap);
    memcpy(tensorMap, m, sizeof *m);
}

/* cuTensorMapEncodeTiled with the driver API's rules (cuda.h's documentation of the
 * function): the map at tensorMap (64-byte aligned) describes a tensorRank-dimensional tensor
 * (1 .. 5) at globalAddress and the box (1 .. 256 elements a dimension, the inner one a
 * multiple of 16 bytes) a tensor copy moves. */
static CUresult tm_encode_tiled(CUtensorMap *tensorMap, CUtensorMapDataType tensorDataType,
                                cuuint32_t tensorRank, void *globalAddress,
                                const cuuint64_t *globalDim, const cuuint64_t *globalStrides,
                                const cuuint32_t *boxDim, const cuuint32_t *elementStrides,
                                CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                CUtensorMapL2promotion l2Promotion,
                                CUtensorMapFloatOOBfill oobFill)
{
    if (!boxDim || tensorRank == 0 || tensorRank > TMAP_MAX_RANK)
        return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < tensorRank; i++)
        if (boxDim[i] == 0 || boxDim[i] > 256)
            return CUDA_ERROR_INVALID_VALUE;
    struct tmap m;
    CUresult r = tm_common("cuTensorMapEncodeTiled", tensorMap, tensorDataType, tensorRank,
                           globalAddress, globalDim, globalStrides, elementStrides, interleave,
                           swizzle, l2Promotion, oobFill, boxDim[0], &m);
    if (r != CUDA_SUCCESS)
        return r;
    if ((unsigned long long)boxDim[0] * m.esize % 16)
        return CUDA_ERROR_INVALID_VALUE;
    m.kind = TMAP_TILED;
    for (unsigned i = 0; i < tensorRank; i++)
        m.box[i] = (uint16_t)boxDim[i];
    tm_store(tensorMap, &m);
    return CUDA_SUCCESS;
}

/* cuTensorMapEncodeIm2col with the driver API's rules: a 3D .. 5D tensor in NWC / NHWC / NDHWC
 * order (dimension 0 the channels), the pixels' bounding box in the spatial dimensions W, H, D
 * (in that order in the corner arrays) from pixelBoxLowerCorner to globalDim - 1 +
 * pixelBoxUpperCorner, each corner within [-2^15, 2^15 - 1] (3D), [-128, 127] (4D) or [-16, 15]
 * (5D) and the box not empty; channelsPerPixel 1 .. 256, pixelsPerColumn 1 .. 1024. */
static CUresult tm_encode_im2col(CUtensorMap *tensorMap, CUtensorMapDataType tensorDataType,
                                 cuuint32_t tensorRank, void *globalAddress,
                                 const cuuint64_t *globalDim, const cuuint64_t *globalStrides,
                                 const int *pixelBoxLowerCorner, const int *pixelBoxUpperCorner,
                                 cuuint32_t channelsPerPixel, cuuint32_t pixelsPerColumn,
                                 const cuuint32_t *elementStrides,
                                 CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                 CUtensorMapL2promotion l2Promotion,
                                 CUtensorMapFloatOOBfill oobFill)
{
    if (tensorRank < 3 || tensorRank > TMAP_MAX_RANK || !pixelBoxLowerCorner ||
        !pixelBoxUpperCorner || !globalDim)
        return CUDA_ERROR_INVALID_VALUE;
    if (channelsPerPixel == 0 || channelsPerPixel > 256 || pixelsPerColumn == 0 ||
        pixelsPerColumn > 1024)
        return CUDA_ERROR_INVALID_VALUE;
    const int lim = tensorRank == 3 ? 32768 : tensorRank == 4 ? 128 : 16;
    for (unsigned k = 0; k + 2 < tensorRank; k++) {
        const long long lo = pixelBoxLowerCorner[k], hi = pixelBoxUpperCorner[k];
        if (lo < -lim || lo >= lim || hi < -lim || hi >= lim)
            return CUDA_ERROR_INVALID_VALUE;
        if ((long long)globalDim[k + 1] + hi - lo <= 0) /* an empty bounding box */
            return CUDA_ERROR_INVALID_VALUE;
    }
    struct tmap m;
    CUresult r = tm_common("cuTensorMapEncodeIm2col", tensorMap, tensorDataType, tensorRank,
                           globalAddress, globalDim, globalStrides, elementStrides, interleave,
                           swizzle, l2Promotion, oobFill, channelsPerPixel, &m);
    if (r != CUDA_SUCCESS)
        return r;
    m.kind = TMAP_IM2COL;
    for (unsigned k = 0; k + 2 < tensorRank; k++) {
        m.lower[k] = (int16_t)pixelBoxLowerCorner[k];
        m.upper[k] = (int16_t)pixelBoxUpperCorner[k];
    }
    m.cpp = (uint16_t)channelsPerPixel;
    m.ppc = (uint16_t)pixelsPerColumn;
    tm_store(tensorMap, &m);
    return CUDA_SUCCESS;
}

/* cuTensorMapEncodeIm2colWide (CUDA 12.8+) with the driver API's rules (cuda.h's documentation
 * of the function), for the .im2col::w / .im2col::w::128 copies of sm_100: a 3D .. 5D tensor in
 * NWC / NHWC / NDHWC order whose pixels' bounding box lies along W only, from
 * pixelBoxLowerCornerWidth to globalDim[1] - 1 + pixelBoxUpperCornerWidth (each corner within
 * [-2^15, 2^15 - 1], the box not empty; D and H are one pixel); channelsPerPixel 1 .. 256;
 * pixelsPerColumn 1 .. 1024 for CU_TENSOR_MAP_IM2COL_WIDE_MODE_W (ignored for _W128, whose copies
 * move 128 pixels); the swizzle one of 64B, 128B and 128B_ATOM_32B (the only ones the driver
 * lists; the atom swizzle is valid but not implemented); no interleave (the PTX ISA's "Interleave
 * layout": not supported for the im2col::w modes). */
static CUresult tm_encode_im2col_wide(CUtensorMap *tensorMap, CUtensorMapDataType tensorDataType,
                                      cuuint32_t tensorRank, void *globalAddress,
                                      const cuuint64_t *globalDim,
                                      const cuuint64_t *globalStrides,
                                      int pixelBoxLowerCornerWidth, int pixelBoxUpperCornerWidth,
                                      cuuint32_t channelsPerPixel, cuuint32_t pixelsPerColumn,
                                      const cuuint32_t *elementStrides,
                                      CUtensorMapInterleave interleave,
                                      CUtensorMapIm2ColWideMode mode, CUtensorMapSwizzle swizzle,
                                      CUtensorMapL2promotion l2Promotion,
                                      CUtensorMapFloatOOBfill oobFill)
{
    if (tensorRank < 3 || tensorRank > TMAP_MAX_RANK || !globalDim)
        return CUDA_ERROR_INVALID_VALUE;
    if ((unsigned)mode > CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128)
        return CUDA_ERROR_INVALID_VALUE;
    if (channelsPerPixel == 0 || channelsPerPixel > 256 ||
        (mode == CU_TENSOR_MAP_IM2COL_WIDE_MODE_W &&
         (pixelsPerColumn == 0 || pixelsPerColumn > 1024)))
        return CUDA_ERROR_INVALID_VALUE;
    const long long lo = pixelBoxLowerCornerWidth, hi = pixelBoxUpperCornerWidth;
    if (lo < -32768 || lo > 32767 || hi < -32768 || hi > 32767)
        return CUDA_ERROR_INVALID_VALUE;
    if (globalDim[1] <= (UINT64_C(1) << 32) && (long long)globalDim[1] + hi - lo <= 0)
        return CUDA_ERROR_INVALID_VALUE; /* an empty bounding box */
    if (interleave != CU_TENSOR_MAP_INTERLEAVE_NONE)
        return CUDA_ERROR_INVALID_VALUE;
    if (swizzle != CU_TENSOR_MAP_SWIZZLE_64B && swizzle != CU_TENSOR_MAP_SWIZZLE_128B &&
        swizzle != CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B)
        return CUDA_ERROR_INVALID_VALUE;
    struct tmap m;
    CUresult r = tm_common("cuTensorMapEncodeIm2colWide", tensorMap, tensorDataType, tensorRank,
                           globalAddress, globalDim, globalStrides, elementStrides, interleave,
                           swizzle, l2Promotion, oobFill, channelsPerPixel, &m);
    if (r != CUDA_SUCCESS)
        return r;
    m.kind = TMAP_IM2COL_W;
    m.wmode = mode == CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128 ? TMAP_WIDE_W128 : TMAP_WIDE_W;
    m.lower[0] = (int16_t)lo;
    m.upper[0] = (int16_t)hi;
    m.cpp = (uint16_t)channelsPerPixel;
    m.ppc = (uint16_t)(m.wmode == TMAP_WIDE_W128 ? 128 : pixelsPerColumn);
    tm_store(tensorMap, &m);
    return CUDA_SUCCESS;
}

/* cuTensorMapReplaceAddress: a new global address (16-byte aligned) in an encoded map. */
static CUresult tm_replace_address(CUtensorMap *tensorMap, void *globalAddress)
{
    struct tmap m;
    if (!tensorMap || ((uintptr_t)tensorMap & 63) || ((uintptr_t)globalAddress & 15))
        return CUDA_ERROR_INVALID_VALUE;
    memcpy(&m, tensorMap, sizeof m);
    if (m.magic != TMAP_MAGIC)
        return CUDA_ERROR_INVALID_VALUE;
    m.addr = (uint64_t)(uintptr_t)globalAddress;
    memcpy(tensorMap, &m, sizeof m);
    return CUDA_SUCCESS;
}

/* The driver functions a program may obtain, by name, and the CUDA version that introduced
 * each (*since: 12000 for 12.0). */
static void *tm_lookup(const char *symbol, unsigned *since)
{
    *since = 12000;
    if (!strcmp(symbol, "cuTensorMapEncodeTiled"))
        return (void *)tm_encode_tiled;
    if (!strcmp(symbol, "cuTensorMapEncodeIm2col"))
        return (void *)tm_encode_im2col;
    if (!strcmp(symbol, "cuTensorMapReplaceAddress"))
        return (void *)tm_replace_address;
    *since = 12080;
    if (!strcmp(symbol, "cuTensorMapEncodeIm2colWide"))
        return (void *)tm_encode_im2col_wide;
    return NULL;
}

/* cudaGetDriverEntryPointByVersion: the driver function `symbol` (of any ABI version up to
 * this CUDA's: the ones provided have had one version since CUDA 12.0, Im2colWide since 12.8),
 * or cudaErrorNotSupported with *driverStatus saying why (symbol not found, version too old). */
EXPORT cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr,
                                                    unsigned int cudaVersion,
                                                    unsigned long long flags,
                                                    enum cudaDriverEntryPointQueryResult *driverStatus)
{
    (void)flags;
    if (!symbol || !funcPtr)
        return cr_ret(cudaErrorInvalidValue);
    *funcPtr = NULL;
    unsigned since;
    void *fn = tm_lookup(symbol, &since);
    if (fn && cudaVersion < since) {
        if (driverStatus)
            *driverStatus = cudaDriverEntryPointVersionNotSufficent;
        return cr_ret(cudaErrorNotSupported);
    }
    if (!fn) {
        if (driverStatus)
            *driverStatus = cudaDriverEntryPointSymbolNotFound;
        fprintf(stderr, "ptxemu: the CUDA driver API function %s is not available on the emulator\n",
                symbol);
        return cr_ret(cudaErrorNotSupported);
    }
    *funcPtr = fn;
    if (driverStatus)
        *driverStatus = cudaDriverEntryPointSuccess;
    return cudaSuccess;
}

/* cudaGetDriverEntryPoint: as ByVersion for this CUDA version. */
EXPORT cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr,
                                           unsigned long long flags,
                                           enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return cudaGetDriverEntryPointByVersion(symbol, funcPtr, CUDART_VERSION, flags, driverStatus);
}

/* The per-thread default stream variant (no stream involved). */
EXPORT __typeof__(cudaGetDriverEntryPointByVersion) cudaGetDriverEntryPointByVersion_ptsz
    __attribute__((alias("cudaGetDriverEntryPointByVersion")));
