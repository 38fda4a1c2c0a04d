/*
 * interp/texture.h — the texture / surface descriptor the engine reads (public: the runtime
 * writes them).
 *
 * A texture or surface object handle is the device address of one `struct itex` in device
 * memory (an allocation of its own, read-only for kernels). tex / tld4 / txq / istypep /
 * suld / sust / suq (interp/texture.c) read the descriptor through the handle: a handle that
 * is not the start of a live descriptor, or whose resource memory is no longer mapped, is a
 * fault, never a host crash. The resource is plain device memory described by base, pitch and
 * slice, so CUDA arrays (laid out by the runtime, a layout programs never see), linear and
 * pitched memory are read the same way.
 */
#ifndef PTXEMU_INTERP_TEXTURE_H
#define PTXEMU_INTERP_TEXTURE_H

#include <stdint.h>

#define ITEX_MAGIC 0x58455450u /* "PTEX" */

enum itex_kind { ITEX_TEXTURE = 1, ITEX_SURFACE = 2 };
/* channel format class */
enum itex_fmt { ITEX_UINT = 0, ITEX_SINT, ITEX_FLOAT /* 32-bit float or 16-bit half */ };
/* address modes (the values of enum cudaTextureAddressMode) */
enum itex_addr { ITEX_WRAP = 0, ITEX_CLAMP = 1, ITEX_MIRROR = 2, ITEX_BORDER = 3 };
/* what the resource is (what cudaResourceDesc said) */
enum itex_res { ITEX_RES_ARRAY = 0, ITEX_RES_LINEAR = 2, ITEX_RES_PITCH2D = 3 };
/* block-compressed formats (struct itex bc; the engine decodes them, interp/texture_bc.c and
   texture_bptc.c): a BC resource's width / height are texels, its elements 4x4-texel blocks
   (elem 8 or 16 bytes), pitch the bytes of a row of blocks; fmt ITEX_SINT marks signed BC4 /
   BC5 / BC6H; bits is 16 for BC6H (half floats), else 8 */
enum itex_bc { ITEX_BC_NONE = 0, ITEX_BC1, ITEX_BC2, ITEX_BC3, ITEX_BC4, ITEX_BC5, ITEX_BC6H, ITEX_BC7 };
/* packed formats (struct itex packed): channels of different widths in one element.
   ITEX_PK_1010102: cudaChannelFormatKindUnsignedNormalized1010102, one 32-bit little-endian
   word per element, r in bits 0..9, g 10..19, b 20..29, a 30..31 (fmt ITEX_UINT, nchan 4,
   bits 10, elem 4; fetches return r, g, b / 1023 and a / 3) */
enum itex_packed { ITEX_PK_NONE = 0, ITEX_PK_1010102 };

/* struct itex flags: made from a mipmapped array (txq .num_mipmap_levels is 0 otherwise); a
   layered cubemap (txq .array_size counts its cubes; a plain cubemap is no array) */
#define ITEX_F_MIPMAPPED  1u
#define ITEX_F_CUBE_ARRAY 2u
/* seamless cubemap filtering (cudaTextureDesc.seamlessCubemap): texels past a face's edge are
   read from the adjacent face */
#define ITEX_F_SEAMLESS 4u

/* Most levels a mipmapped resource has (1 + log2 of the largest 1D extent, 131072). */
#define ITEX_MAX_LEVELS 18

/* The memory of one mipmap level (level 0 repeats the descriptor's own fields). */
struct itex_level {
    uint64_t base, width, height, depth; /* as in struct itex */
    uint64_t pitch, slice, bytes;
};

struct itex {
    uint32_t magic;      /* ITEX_MAGIC */
    uint8_t kind;        /* enum itex_kind */
    uint8_t res;         /* enum itex_res */
    uint8_t fmt;         /* enum itex_fmt */
    uint8_t nchan;       /* channels: 1, 2 or 4 */
    uint8_t bits;        /* bits per channel: 8, 16 or 32 */
    uint8_t elem;        /* bytes per element: nchan * bits / 8 */
    uint8_t dims;        /* 1, 2 or 3 */
    uint8_t layered;     /* layers is the layer count of a layered 1D/2D resource */
    uint8_t addr[3];     /* enum itex_addr per dimension */
    uint8_t linear;      /* filter mode: 0 point, 1 linear */
    uint8_t read_norm;   /* readMode cudaReadModeNormalizedFloat (8/16-bit integer formats) */
    uint8_t norm_coords; /* normalized coordinates */
    uint8_t cube;        /* cubemap: layered 2D, 6 faces per cube, sampled by direction */
    uint8_t bc;          /* enum itex_bc: block-compressed (then read_norm 1) */
    uint8_t packed;      /* enum itex_packed: a packed format (then bits is not a size) */
    uint64_t base;                         /* device address of element (0, 0, 0) of layer 0 */
    uint64_t width, height, depth, layers; /* elements (height/depth 1 when absent) */
    uint64_t pitch;                        /* bytes between rows */
    uint64_t slice;                        /* bytes between 2D slices (3D) or layers */
    uint64_t bytes;  /* bytes from base the resource spans (checked before each access) */
    float border[4]; /* border color (address mode border) */
    /* mipmaps: nlevels >= 1 levels in lv[] (lv[0] is the fields above); the level of detail
       of a fetch is its LOD (0 for tex, the operand of tex.level, log2 of the gradients'
       footprint for tex.grad) + lod_bias, clamped to [lod_min, lod_max] and [0, nlevels-1] */
    uint32_t nlevels;
    uint8_t mip_linear; /* mipmap filter mode: 0 point, 1 linear */
    uint8_t srgb;       /* sRGB to linear on the color channels of 8-bit unorm reads */
    uint8_t max_aniso;  /* maxAnisotropy (0..16; above 1: tex.grad's anisotropic footprint) */
    uint8_t flags;      /* ITEX_F_*: what txq reports beyond the fields above */
    float lod_bias, lod_min, lod_max;
    struct itex_level lv[ITEX_MAX_LEVELS];
};

#endif
