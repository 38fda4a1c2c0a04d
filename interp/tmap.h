/*
 * interp/tmap.h — the emulator's encoding of a tensor map (the 128-byte opaque CUtensorMap of
 * the CUDA driver API), written by the runtime's cuTensorMapEncodeTiled, cuTensorMapEncodeIm2col
 * and cuTensorMapEncodeIm2colWide (runtime/cudart_tensormap.c) and read by the tensor
 * instructions (interp/bulk.c).
 *
 * Programs treat the object as opaque (they copy it into a __grid_constant__ kernel parameter
 * or global memory); only these two files know the layout. A map without TMAP_MAGIC is not one
 * of ours (never encoded, or overwritten): the device refuses it with a fault.
 */
#ifndef PTXEMU_INTERP_TMAP_H
#define PTXEMU_INTERP_TMAP_H

#include <stdint.h>

enum {
    TMAP_MAGIC = 0x504d5450u, /* "PTMP" */
    TMAP_SIZE = 128,          /* sizeof(CUtensorMap) */
    TMAP_MAX_RANK = 5,
    TMAP_SWZ_NONE = 0, /* CU_TENSOR_MAP_SWIZZLE_NONE/_32B/_64B/_128B */
    TMAP_SWZ_32B = 1,
    TMAP_SWZ_64B = 2,
    TMAP_SWZ_128B = 3,
};

/* The driver's CUtensorMapDataType values the encoder accepts (CU_TENSOR_MAP_DATA_TYPE_*):
 * UINT8 0, UINT16 1, UINT32 2, INT32 3, UINT64 4, INT64 5, FLOAT16 6, FLOAT32 7, FLOAT64 8,
 * BFLOAT16 9, FLOAT32_FTZ 10, TFLOAT32 11, TFLOAT32_FTZ 12. */
enum { TMAP_DTYPE_COUNT = 13 };

/* Element size of data type t (1..8 bytes), 0 for a type outside the table. */
static inline unsigned tmap_dtype_size(unsigned t)
{
    static const unsigned char sz[TMAP_DTYPE_COUNT] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
    return t < TMAP_DTYPE_COUNT ? sz[t] : 0;
}
/* Is data type t a floating-point type (the NaN out-of-bounds fill applies)? */
static inline int tmap_dtype_float(unsigned t)
{
    return t >= 6 && t < TMAP_DTYPE_COUNT;
}

/* The map's kind: which encoder wrote it, which copies may use it (.tile / .im2col /
 * .im2col::w and .im2col::w::128). */
enum { TMAP_TILED = 0, TMAP_IM2COL = 1, TMAP_IM2COL_W = 2 };
/* An im2col-wide map's mode (CUtensorMapIm2ColWideMode): .im2col::w (pixelsPerColumn pixels a
 * copy) or .im2col::w::128 (128 pixels a copy). */
enum { TMAP_WIDE_W = 0, TMAP_WIDE_W128 = 1 };

struct tmap {
    uint32_t magic;                  /* TMAP_MAGIC */
    uint8_t dtype;                   /* CUtensorMapDataType */
    uint8_t rank;                    /* 1 .. 5 (im2col: 3 .. 5) */
    uint8_t esize;                   /* element size in bytes */
    uint8_t swizzle;                 /* TMAP_SWZ_* */
    uint8_t oob_nan;                 /* CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA */
    uint8_t l2promo;                 /* CUtensorMapL2promotion (a hint: unused) */
    uint8_t kind;                    /* TMAP_TILED / TMAP_IM2COL / TMAP_IM2COL_W */
    uint8_t wmode;                   /* TMAP_IM2COL_W: TMAP_WIDE_W / TMAP_WIDE_W128 */
    uint8_t pad[4];
    uint64_t addr;                   /* global address of element (0, …, 0) */
    uint64_t stride[TMAP_MAX_RANK];  /* byte strides; stride[0] = esize */
    uint32_t dim_m1[TMAP_MAX_RANK];  /* globalDim - 1 (globalDim may be 2^32) */
    uint16_t box[TMAP_MAX_RANK];     /* boxDim, 1 .. 256 (tiled) */
    uint8_t estride[TMAP_MAX_RANK];  /* elementStrides, 1 .. 8 (estride[0] is ignored) */
    /* im2col: the bounding box of the pixels along the spatial dimensions 1 .. rank - 2 (W, H,
       D): from lower[d - 1] to globalDim[d] - 1 + upper[d - 1] (pixelBoxLower/UpperCorner);
       each copy moves `ppc` pixels (pixelsPerColumn) of `cpp` channels (channelsPerPixel).
       im2col-wide: the box along W only, lower[0] .. globalDim[1] - 1 + upper[0] (the
       driver's pixelBoxLower/UpperCornerWidth); D and H are one pixel (the copy's
       coordinates) */
    int16_t lower[TMAP_MAX_RANK - 2];
    int16_t upper[TMAP_MAX_RANK - 2];
    uint16_t cpp;
    uint16_t ppc;
};
_Static_assert(sizeof(struct tmap) <= TMAP_SIZE, "a tensor map fits in a CUtensorMap");

#endif
