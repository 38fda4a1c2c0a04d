/*
 * runtime/cudart_tensormap.c — the driver functions CUDA 13 programs reach through
 * cudaGetDriverEntryPoint{ByVersion} (they do not link libcuda): cuTensorMapEncodeTiled, which
 * builds the tensor maps of cp.async.bulk.tensor in the emulator's encoding (interp/tmap.h),
 * with the driver's parameter rules (CUDA_ERROR_INVALID_VALUE for each violation), and
 * cuTensorMapReplaceAddress.
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

/* Refuse a valid map the emulator cannot copy. */
static CUresult tm_unsupported(const char *what)
{
    fprintf(stderr, "ptxemu: cuTensorMapEncodeTiled: %s is not implemented\n", what);
    return CUDA_ERROR_NOT_SUPPORTED;
}

/* cuTensorMapEncodeTiled with the driver API's rules (cuda.h's documentation of the
 * function): the map at tensorMap (64-byte aligned) describes a tensorRank-dimensional tensor
 * at globalAddress and the box a tensor copy moves. */
static CUresult tm_encode_tiled(CUtensorMap *tensorMap, CUtensorMapDataType tensorDataType,
                                cuuint32_t tensorRank, void *globalAddress,
                                const cuuint64_t *globalDim, const cuuint64_t *globalStrides,
                                const cuuint32_t *boxDim, const cuuint32_t *elementStrides,
                                CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                CUtensorMapL2promotion l2Promotion,
                                CUtensorMapFloatOOBfill oobFill)
{
    if (!tensorMap || ((uintptr_t)tensorMap & 63) || !globalDim || !boxDim || !elementStrides ||
        (tensorRank > 1 && !globalStrides))
        return CUDA_ERROR_INVALID_VALUE;
    const unsigned t = (unsigned)tensorDataType;
    if (t > CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B)
        return CUDA_ERROR_INVALID_VALUE;
    if (tensorRank == 0 || tensorRank > TMAP_MAX_RANK)
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
        if (boxDim[i] == 0 || boxDim[i] > 256 || elementStrides[i] == 0 ||
            elementStrides[i] > 8)
            return CUDA_ERROR_INVALID_VALUE;
    if (interleave == CU_TENSOR_MAP_INTERLEAVE_32B && swizzle != CU_TENSOR_MAP_SWIZZLE_32B)
        return CUDA_ERROR_INVALID_VALUE;
    if (oobFill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA && !tmap_dtype_float(t))
        return CUDA_ERROR_INVALID_VALUE;
    /* the packed sub-byte types (sm_100), interleaved layouts and the 128B atom swizzles are
       valid maps the emulator does not copy */
    if (t >= TMAP_DTYPE_COUNT)
        return tm_unsupported("a packed data type (16U4 / 16U6)");
    const unsigned es = tmap_dtype_size(t);
    if (interleave != CU_TENSOR_MAP_INTERLEAVE_NONE)
        return tm_unsupported("an interleaved layout");
    if ((unsigned long long)boxDim[0] * es % 16)
        return CUDA_ERROR_INVALID_VALUE;
    if (swizzle > CU_TENSOR_MAP_SWIZZLE_128B)
        return tm_unsupported("the 128B atom swizzle modes");
    static const unsigned span[] = {0, 32, 64, 128};
    if (swizzle != CU_TENSOR_MAP_SWIZZLE_NONE && boxDim[0] * es > span[swizzle])
        return CUDA_ERROR_INVALID_VALUE;

    struct tmap m;
    memset(&m, 0, sizeof m);
    m.magic = TMAP_MAGIC;
    m.dtype = (uint8_t)t;
    m.rank = (uint8_t)tensorRank;
    m.esize = (uint8_t)es;
    m.swizzle = (uint8_t)swizzle;
    m.oob_nan = oobFill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA;
    m.l2promo = (uint8_t)l2Promotion;
    m.addr = (uint64_t)(uintptr_t)globalAddress;
    m.stride[0] = es;
    for (unsigned i = 0; i < tensorRank; i++) {
        m.dim_m1[i] = (uint32_t)(globalDim[i] - 1);
        m.box[i] = (uint16_t)boxDim[i];
        m.estride[i] = (uint8_t)elementStrides[i];
        if (i > 0)
            m.stride[i] = globalStrides[i - 1];
    }
    memset(tensorMap, 0, sizeof *tensorMap);
    memcpy(tensorMap, &m, sizeof m);
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

/* The driver functions a program may obtain, by name. */
static void *tm_lookup(const char *symbol)
{
    if (!strcmp(symbol, "cuTensorMapEncodeTiled"))
        return (void *)tm_encode_tiled;
    if (!strcmp(symbol, "cuTensorMapReplaceAddress"))
        return (void *)tm_replace_address;
    return NULL;
}

/* cudaGetDriverEntryPointByVersion: the driver function `symbol` (of any ABI version up to
 * this CUDA's: the ones provided have had one version since CUDA 12.0), or
 * cudaErrorNotSupported with *driverStatus saying why (symbol not found, version too old). */
EXPORT cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr,
                                                    unsigned int cudaVersion,
                                                    unsigned long long flags,
                                                    enum cudaDriverEntryPointQueryResult *driverStatus)
{
    (void)flags;
    if (!symbol || !funcPtr)
        return cr_ret(cudaErrorInvalidValue);
    *funcPtr = NULL;
    void *fn = tm_lookup(symbol);
    if (fn && cudaVersion < 12000) {
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
