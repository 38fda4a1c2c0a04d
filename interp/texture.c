/*
 * interp/texture.c — texture and surface instructions: tex (1d/2d/3d/a1d/a2d/cube/acube,
 * plain, .level and .grad), tld4 (2d/a2d/cube/acube), txq,
 * istypep, suld.b, sust.b / sust.p, sured.b / sured.p, suq, on the descriptors of
 * interp/texture.h.
 *
 * One handler (TEXSURF, interp/ops/tex.inc) calls interp_tex_exec; interp_tex_ok decides at
 * load which forms the engine runs (the rest are refused with a reason, select.c).
 *
 * Sampling follows the CUDA programming guide's texture-fetching appendix:
 *   - normalized coordinates are scaled by the size (u = x * N);
 *   - point: i = floor(u); linear: xB = u - 0.5, i = floor(xB), α = frac(xB) kept in 9-bit
 *     fixed point with 8 fractional bits (α rounded to the nearest 1/256, ties up, so 1.0 is
 *     possible), then tex = (1-α)T[i] + αT[i+1] (2D/3D: the products of the per-dimension
 *     weights, summed in the guide's term order in f32; the weight products are exact);
 *   - the address mode applies to each texel index: wrap (i mod N), mirror (period 2N), clamp
 *     (to [0, N-1]), border (the border color); with unnormalized coordinates wrap and mirror
 *     act as clamp, as in CUDA;
 *   - readMode normalized float maps 8/16-bit unsigned v to v / (2^n - 1), signed to
 *     max(v / (2^(n-1) - 1), -1); half texels are widened to f32; otherwise the element's bits
 *     are returned (integers sign- or zero-extended to 32 bits);
 *   - 10-10-10-2 texels (cudaChannelFormatKindUnsignedNormalized1010102) are one 32-bit word,
 *     r in bits 0..9, g in 10..19, b in 20..29, a in 30..31, read as r, g, b / 1023 and
 *     a / 3. CUDA documents the format only as "4 channel unorm R10G10B10A2 RGB format"
 *     (cuda.h, CU_AD_FORMAT_UNORM_INT_101010_2) and "4 channel unsigned normalized (10-bit,
 *     10-bit, 10-bit, 2-bit)" (driver_types.h); the bit order is the one that name has in
 *     DXGI (DXGI_FORMAT_R10G10B10A2_UNORM), Vulkan (A2B10G10R10_UNORM_PACK32) and Metal
 *     (rgb10a2Unorm: red in the least significant bits), not verified on a GPU;
 *   - sRGB textures (8-bit unsigned, normalized read) decode r, g, b with the IEC 61966-2-1
 *     curve in f32 (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055)^2.4, host powf) before
 *     filtering; alpha stays linear;
 *   - block-compressed (BC1..BC7) texels are decoded from their 4x4 block (texture_bc.c,
 *     texture_bptc.c; a 3D resource's blocks are 4x4 texels of one slice) before sRGB and
 *     filtering;
 *   - a result component the format does not have is 0, alpha 1 (1.0f for float results);
 *   - the offset operand e of tex / tld4 (integers, in texels of the sampled level) is added to
 *     the texel indices after the floor (every index of a linear footprint), before the
 *     address mode; not the layer;
 *   - .f16 / .f16x2 results: the f32 result rounded to the nearest half (ties to even;
 *     integer results as numbers), .f16x2 packing r, g and b, a (first component low);
 *   - .s32 coordinates are texel indices (no filtering); a linear-memory resource (tex1Dfetch)
 *     returns 0 outside [0, width);
 *   - the layer of a1d/a2d is an integer clamped to [0, layers - 1];
 *   - 2dms / a2dms (a sample of a multisample texture) load, and fault when run: no CUDA API
 *     makes a multisample texture, and the ISA defines no result on other textures;
 *   - cube / acube: the direction's major axis picks the face, the guide's table the face
 *     coordinates (normalized); a cubemap is a layered 2D resource with 6 faces a cube, faces
 *     are sampled with clamp addressing, or with seamlessCubemap (ITEX_F_SEAMLESS) a texel
 *     past an edge is read from the adjacent face (tx_cube_wrap); tex.grad's
 *     direction gradients become face-coordinate gradients (tx_cube_grad);
 *   - tld4 (2d, a2d, cube, acube): the four texels of level 0 linear filtering would read
 *     (the ISA's bilerp footprint), (i, j+1), (i+1, j+1), (i+1, j), (i, j), component .comp
 *     of each; layer and cubemap face as for tex, so on a cubemap the footprint is clamped
 *     to the face or, seamless, continues on the adjacent face;
 *   - mipmaps (not in the guide's appendix; ptxemu's rule, tx_sample_lod): level of detail 0
 *     for tex, the operand of tex.level, log2 of the longer gradient in level-0 texels for
 *     tex.grad (with maxAnisotropy > 1: tx_sample_aniso's footprint); plus the bias, clamped to [lod_min, lod_max] and [0, levels - 1]; nearest level
 *     (ties up) or the two levels around it blended with a 9-bit fixed-point fraction.
 * Sampler queries of a .samplerref variable (independent mode; txq .force_unnormalized_coords,
 * .filter_mode, .addr_mode_N): the member its initializer sets (tx_sampler_member); an unset
 * member is refused at load.
 * Queries (tx_query): sizes in elements (txq.level: of that level, 0 past the last); array
 * size in layers (cubes of a cubemap array, 0 for a plain cubemap); mipmap levels 0 unless
 * mipmapped; the ISA's {nearest, linear} and {wrap, mirror, clamp_ogl, clamp_to_edge,
 * clamp_to_border} enumerations; channel data type / order as OpenCL's codes (the ISA leaves
 * them to the source language; CUDA has none).
 * Surfaces: the x coordinate of suld.b / sust.b is in bytes (must be a multiple of the access
 * width), of sust.p in elements; y, z and the layer in elements. Outside the surface, .trap
 * faults (an out-of-bounds report naming the coordinates), .clamp accesses the nearest valid
 * location, .zero loads zeros and drops stores. sured is a host atomic (interp/ops/helpers.h
 * vm_atomic) on the element, so reductions from CTAs on other host threads are atomic too.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "interp/internal.h"
#include "interp/ops/helpers.h"
#include "interp/tensor.h"
#include "interp/texture.h"
#include "interp/texture_bc.h"

/* ======================================================================== instruction forms */

enum tx_bound { TXB_TRAP = 0, TXB_CLAMP, TXB_ZERO };
enum tx_query {
    TXQ_NONE = 0, TXQ_WIDTH, TXQ_HEIGHT, TXQ_DEPTH, TXQ_ARRAY_SIZE, TXQ_LEVELS, TXQ_CHANNEL_TYPE,
    TXQ_CHANNEL_ORDER, TXQ_NORM_COORDS, TXQ_FILTER, TXQ_ADDR0, TXQ_ADDR1, TXQ_ADDR2, TXQ_SAMPLES,
    TXQ_LAYOUT, TXQ_FORCE_UNNORM
};
enum tx_lod { TXL_NONE = 0, TXL_LEVEL, TXL_GRAD };

struct tx_form {
    unsigned dims;   /* 1, 2, 3 */
    bool layered;    /* a1d / a2d / acube */
    bool cube;       /* cube / acube */
    bool ms;         /* 2dms / a2dms: a sample of a multisample texture */
    bool bad;        /* a modifier the engine does not implement */
    bool p;          /* sust.p */
    bool b;          /* .b */
    int comp;        /* tld4 component 0..3, -1 none */
    unsigned bound;  /* enum tx_bound */
    unsigned query;  /* enum tx_query */
    unsigned red;    /* sured operation (MODE_ADD …), 0 none */
    unsigned lod;    /* enum tx_lod: tex.level / tex.grad */
};

/* The modifiers of an instruction as a form. */
static struct tx_form tx_form_of(const uint16_t *mods, const struct ir_insn *in)
{
    struct tx_form t = {.comp = -1};
    for (unsigned i = 0; i < in->nmod; i++) {
        switch (mods[in->mod + i]) {
        case MOD_DIM1D: t.dims = 1; break;
        case MOD_DIM2D: t.dims = 2; break;
        case MOD_DIM3D: t.dims = 3; break;
        case MOD_GEOM_A1D: t.dims = 1; t.layered = true; break;
        case MOD_GEOM_A2D: t.dims = 2; t.layered = true; break;
        case MOD_GEOM_CUBE: t.dims = 2; t.cube = true; break;
        case MOD_GEOM_ACUBE: t.dims = 2; t.cube = true; t.layered = true; break;
        case MOD_GEOM_2DMS: t.dims = 2; t.ms = true; break;
        case MOD_GEOM_A2DMS: t.dims = 2; t.ms = true; t.layered = true; break;
        case MOD_R: t.comp = 0; break;
        case MOD_G: t.comp = 1; break;
        case MOD_B: t.comp = 2; t.b = true; break;
        case MOD_A: t.comp = 3; break;
        case MOD_P: t.p = true; break;
        case MOD_TRAP: t.bound = TXB_TRAP; break;
        case MOD_ZERO: t.bound = TXB_ZERO; break;
        case MOD_CLAMP: t.bound = TXB_CLAMP; break;
        case MOD_WIDTH: t.query = TXQ_WIDTH; break;
        case MOD_HEIGHT: t.query = TXQ_HEIGHT; break;
        case MOD_DEPTH: t.query = TXQ_DEPTH; break;
        case MOD_ARRAY_SIZE: t.query = TXQ_ARRAY_SIZE; break;
        case MOD_NUM_MIPMAP_LEVELS: t.query = TXQ_LEVELS; break;
        case MOD_CHANNEL_DATA_TYPE: t.query = TXQ_CHANNEL_TYPE; break;
        case MOD_CHANNEL_ORDER: t.query = TXQ_CHANNEL_ORDER; break;
        case MOD_NORMALIZED_COORDS: t.query = TXQ_NORM_COORDS; break;
        case MOD_FILTER_MODE: t.query = TXQ_FILTER; break;
        case MOD_ADDR_MODE_0: t.query = TXQ_ADDR0; break;
        case MOD_ADDR_MODE_1: t.query = TXQ_ADDR1; break;
        case MOD_ADDR_MODE_2: t.query = TXQ_ADDR2; break;
        case MOD_NUM_SAMPLES: t.query = TXQ_SAMPLES; break;
        case MOD_MEMORY_LAYOUT: t.query = TXQ_LAYOUT; break;
        case MOD_FORCE_UNNORMALIZED_COORDS: t.query = TXQ_FORCE_UNNORM; break;
        case MOD_LEVEL: t.lod = TXL_LEVEL; break;
        case MOD_GRAD: t.lod = TXL_GRAD; break;
        case MOD_ADD: t.red = MODE_ADD; break;
        case MOD_MIN: t.red = MODE_MIN; break;
        case MOD_MAX: t.red = MODE_MAX; break;
        case MOD_AND: t.red = MODE_AND; break;
        case MOD_OR: t.red = MODE_OR; break;
        case MOD_V2: case MOD_V4: case MOD_F32: case MOD_F16: case MOD_F16X2: case MOD_S32:
        case MOD_U32: case MOD_B8:
        case MOD_B16: case MOD_B32: case MOD_B64: case MOD_S64: case MOD_U64: case MOD_TEXREF: case MOD_SURFREF:
        case MOD_SAMPLERREF: case MOD_CA: case MOD_CG: case MOD_CS: case MOD_CV:
        case MOD_WB: case MOD_WT:
            break;
        default: t.bad = true; break;
        }
    }
    return t;
}

/* Coordinates a geometry takes (3d: x, y, z and an ignored fourth; a2d: layer, x, y, pad). */
static unsigned tx_ncoord(const struct tx_form *t)
{
    if (t->ms) /* sample, x, y and an ignored fourth; a2dms: layer, sample, x, y */
        return 4;
    if (t->cube) /* x, y, z and an ignored fourth; acube: layer, x, y, z */
        return 4;
    if (t->layered)
        return t->dims == 1 ? 2 : 4;
    return t->dims == 3 ? 4 : t->dims;
}

/* Is operand o a register of file rf (a destination may also be the sink `_`)? */
static bool tx_reg(const struct ir_opnd *o, unsigned rf, bool sink_ok)
{
    if (sink_ok && o->kind == OPK_SINK)
        return true;
    return (o->kind == OPK_REG || (!sink_ok && o->kind == OPK_IMM)) && o->rf == rf &&
           o->slot != IR_NOSLOT;
}

/* A coordinate address [handle, {c…}] with one handle in a .b64 register and n 32-bit
 * coordinates (elements of all[]). */
static bool tx_addr_ok(const struct ir_opnd *all, const struct ir_opnd *a, unsigned n)
{
    if (a->kind == OPK_ADDR) /* [h] of txq / suq */
        return n == 0 && a->sym == IR_NOSYM && a->slot != IR_NOSLOT && a->rf == RF_B64 &&
               a->imm.i == 0;
    if (a->kind != OPK_TEX || a->imm.u != 1 || a->n != 1 + n)
        return false;
    if (!tx_reg(&all[a->first], RF_B64, false) || all[a->first].kind != OPK_REG)
        return false;
    for (unsigned k = 0; k < n; k++)
        if (!tx_reg(&all[a->first + 1 + k], RF_B32, false))
            return false;
    return true;
}

/* Is the data operand o (n elements of file rf) usable: a vector of registers, or one
 * register for n == 1? */
static bool tx_data_ok(const struct ir_opnd *all, const struct ir_opnd *o, unsigned n,
                       unsigned rf, bool dst)
{
    if (o->kind == OPK_VEC) {
        if (o->n != n)
            return false;
        for (unsigned k = 0; k < n; k++)
            if (!tx_reg(&all[o->first + k], rf, dst))
                return false;
        return true;
    }
    return n == 1 && tx_reg(o, rf, dst);
}

static unsigned tx_rf_of(unsigned t)
{
    switch (ir_type_size((enum ir_type)t)) {
    case 1:
    case 2: return RF_B16;
    case 4: return RF_B32;
    default: return RF_B64;
    }
}

/* tex / tld4 operands are d, the optional residency predicate `|p` (OPK_NONE when absent;
 * else a predicate register or `_`: always true, as no CUDA array is sparse), then the
 * coordinate address, the lod or gradients of tex.level / tex.grad, and the optional offset
 * vector e (tx_lod_ok; no depth compare f). */
#define TX_PRED_OK(in, O)                                                                     \
    ((O)[1].kind == OPK_NONE || (O)[1].kind == OPK_SINK ||                                     \
     ((O)[1].kind == OPK_REG && (O)[1].rf == RF_PRED && (O)[1].slot != IR_NOSLOT))

/* The operands after a tex coordinate address: none, the level of tex.level (an f32 register
 * or immediate), or the two gradient vectors of tex.grad (one component per coordinate: 1, 2,
 * or 4 for 3d and cubemaps). */
static bool tx_lod_ok(const struct ir_opnd *all, const struct ir_insn *in,
                      const struct ir_opnd *O, const struct tx_form *t)
{
    const unsigned n = t->dims == 3 || t->cube ? 4 : t->dims; /* cube: x, y, z and a pad */
    const unsigned nl = t->lod == TXL_LEVEL ? 1 : t->lod == TXL_GRAD ? 2 : 0;
    /* then the offset e: a vector of n .s32 (not on cubemaps), never the depth compare f */
    if (in->nopnd == 4 + nl) {
        if (t->cube || O[3 + nl].kind != OPK_VEC || !tx_data_ok(all, &O[3 + nl], n, RF_B32, false))
            return false;
    } else if (in->nopnd != 3 + nl) {
        return false;
    }
    switch (t->lod) {
    case TXL_NONE: return true;
    case TXL_LEVEL: return in->type[1] == T_F32 && tx_reg(&O[3], RF_B32, false);
    default:
        return in->type[1] == T_F32 && tx_data_ok(all, &O[3], n, RF_B32, false) &&
               tx_data_ok(all, &O[4], n, RF_B32, false);
    }
}

/* The member sampler query q (txq .force_unnormalized_coords, .filter_mode, .addr_mode_N)
 * reads of module variable sym, from its initializer: true and *v (the ISA's enumerations:
 * {nearest, linear}, {wrap, mirror, clamp_ogl, clamp_to_edge, clamp_to_border}, 0 or 1), or
 * false when sym is no .samplerref of an independent-mode module or its initializer leaves
 * that member unset. Nothing but the initializer sets a sampler's members: CUDA 13 has no API
 * for samplers, and ptxas records an unset member as unset (its .nv.info sampler attributes),
 * leaving the driver's undocumented default. */
static bool tx_sampler_member(const struct ir_module *m, uint32_t sym, unsigned q, uint32_t *v)
{
    if (sym >= m->nsyms || m->syms[sym].type != T_SAMPLERREF || !m->texmode_independent)
        return false;
    unsigned want;
    switch (q) {
    case TXQ_FORCE_UNNORM: want = TXF_FORCE_UNNORMALIZED_COORDS; break;
    case TXQ_FILTER: want = TXF_FILTER_MODE; break;
    case TXQ_ADDR0: want = TXF_ADDR_MODE_0; break;
    case TXQ_ADDR1: want = TXF_ADDR_MODE_1; break;
    case TXQ_ADDR2: want = TXF_ADDR_MODE_2; break;
    default: return false;
    }
    const struct ir_sym *s = &m->syms[sym];
    bool found = false;
    for (uint32_t k = 0; k < s->ntex_init && s->tex_init + 8 * (uint64_t)(k + 1) <= m->ndata; k++) {
        uint32_t kv[2];
        memcpy(kv, m->data + s->tex_init + 8 * k, sizeof kv);
        if (kv[0] == want) { /* the last assignment of a member counts */
            *v = want == TXF_FILTER_MODE ? kv[1] - TXV_NEAREST : kv[1];
            found = true;
        }
    }
    return found;
}

/* Does the engine run this texture / surface instruction (see the file comment)? */
bool interp_tex_ok(const struct ir_module *m, const struct ir_func *f, const struct ir_insn *in,
                   const struct ir_opnd *O)
{
    const struct ir_opnd *all = f->opnds;
    struct tx_form t = tx_form_of(f->mods, in);
    if (t.bad)
        return false;
    switch (in->op) {
    case OP_TEX: /* (2dms / a2dms: integer coordinates, no level of detail) */
        if (t.ms && (t.lod || in->type[1] != T_S32))
            return false;
        return t.dims && !t.b && !t.p && t.comp < 0 && !t.query && TX_PRED_OK(in, O) &&
               tx_lod_ok(all, in, O, &t) &&
               (in->type[1] == T_F32 || in->type[1] == T_S32) &&
               (((in->type[0] == T_F32 || in->type[0] == T_S32 || in->type[0] == T_U32) &&
                 in->vec == 4 && tx_data_ok(all, &O[0], 4, RF_B32, true)) ||
                (in->type[0] == T_F16 && in->vec == 4 && tx_data_ok(all, &O[0], 4, RF_B16, true)) ||
                (in->type[0] == T_F16X2 && in->vec == 2 &&
                 tx_data_ok(all, &O[0], 2, RF_B32, true))) &&
               tx_addr_ok(all, &O[2], tx_ncoord(&t));
    case OP_TLD4: /* 2d, a2d, cube, acube (tx_lod_ok: no offset on cubemaps) */
        return t.dims == 2 && !t.ms && t.comp >= 0 && !t.p &&
               !t.query && !t.lod && TX_PRED_OK(in, O) && tx_lod_ok(all, in, O, &t) &&
               (in->type[0] == T_F32 || in->type[0] == T_S32 || in->type[0] == T_U32) &&
               in->type[1] == T_F32 && in->vec == 4 && tx_data_ok(all, &O[0], 4, RF_B32, true) &&
               tx_addr_ok(all, &O[2], tx_ncoord(&t));
    case OP_TXQ: /* txq.level: width / height / depth of the level in the third operand */
        if (in->nopnd == 2 && O[1].kind == OPK_ADDR && O[1].sym != IR_NOSYM) {
            uint32_t v; /* a sampler member of a .samplerref variable */
            return !t.dims && !t.lod && tx_reg(&O[0], RF_B32, false) && O[0].kind == OPK_REG &&
                   O[1].slot == IR_NOSLOT && ir_opnd(f, in, 1)->imm.i == 0 && /* [smp], no +k */
                   tx_sampler_member(m, O[1].sym, t.query, &v);
        }
        if (t.lod == TXL_LEVEL)
            return (t.query == TXQ_WIDTH || t.query == TXQ_HEIGHT || t.query == TXQ_DEPTH) &&
                   !t.dims && in->nopnd == 3 && tx_reg(&O[0], RF_B32, false) &&
                   O[0].kind == OPK_REG && tx_addr_ok(all, &O[1], 0) &&
                   tx_reg(&O[2], RF_B32, false);
        return t.query && t.query != TXQ_LAYOUT && t.query != TXQ_FORCE_UNNORM && !t.dims &&
               !t.lod && in->nopnd == 2 &&
               tx_reg(&O[0], RF_B32, false) && O[0].kind == OPK_REG && tx_addr_ok(all, &O[1], 0);
    case OP_SUQ: {
        const bool q = (t.query && t.query <= TXQ_CHANNEL_ORDER && t.query != TXQ_LEVELS) ||
                       t.query == TXQ_LAYOUT;
        return q && !t.dims && !t.lod && in->nopnd == 2 && tx_reg(&O[0], RF_B32, false) &&
               O[0].kind == OPK_REG && tx_addr_ok(all, &O[1], 0);
    }
    case OP_ISTYPEP:
        return in->nopnd == 2 &&
               (in->type[0] == T_TEXREF || in->type[0] == T_SURFREF ||
                in->type[0] == T_SAMPLERREF) &&
               O[0].kind == OPK_REG && O[0].rf == RF_PRED && tx_reg(&O[1], RF_B64, false);
    case OP_SURED: {
        const unsigned sz = ir_type_size((enum ir_type)in->type[0]);
        return t.dims && !t.cube && !t.query && !t.lod && t.red && t.b != t.p && in->nopnd == 2 &&
               in->vec <= 1 &&
               (sz == 4 || sz == 8) && vm_type_is_int(in->type[0]) &&
               vm_atom_form_ok(t.red, in->type[0]) && tx_addr_ok(all, &O[0], tx_ncoord(&t)) &&
               tx_data_ok(all, &O[1], 1, tx_rf_of(in->type[0]), false);
    }
    case OP_SULD:
    case OP_SUST: {
        const unsigned v = in->vec ? in->vec : 1, sz = ir_type_size((enum ir_type)in->type[0]);
        const bool ld = in->op == OP_SULD;
        if (!t.dims || t.cube || t.query || t.lod || (ld ? !t.b || t.p : t.b == t.p) || in->nopnd != 2)
            return false;
        if (t.p ? (sz != 4 || v > 4) : (sz != 1 && sz != 2 && sz != 4 && sz != 8) || v > 4)
            return false;
        const struct ir_opnd *a = ld ? &O[1] : &O[0], *d = ld ? &O[0] : &O[1];
        return tx_addr_ok(all, a, tx_ncoord(&t)) &&
               tx_data_ok(all, d, v, tx_rf_of(in->type[0]), ld);
    }
    default: return false;
    }
}

/* ========================================================================== descriptors */

/* The last descriptor a warp instruction looked up (handles are nearly always uniform). */
struct tx_cache {
    uint64_t h;
    const struct itex *t;
};

/* Elements along a dimension of n texels: blocks of 4 for a block-compressed resource. */
static uint64_t tx_blocks(const struct itex *t, uint64_t n)
{
    return t->bc ? (n + 3) / 4 : n;
}

/* Is the descriptor self-consistent: a known format, and every element it can address inside
 * its `bytes` (the descriptor is device memory a program can overwrite with cudaMemcpy, so the
 * engine trusts nothing it has not checked)? */
static bool tx_sane(const struct itex *t)
{
    if (t->bc) { /* block-compressed: float results from 8- or 16-byte blocks */
        static const uint8_t nch[ITEX_BC7 + 1] = {0, 4, 4, 4, 1, 2, 4, 4};
        static const uint8_t blk[ITEX_BC7 + 1] = {0, 8, 16, 16, 8, 16, 16, 16};
        if (t->bc > ITEX_BC7 || t->nchan != nch[t->bc] || t->elem != blk[t->bc] ||
            t->bits != (t->bc == ITEX_BC6H ? 16 : 8) || !t->read_norm || t->dims < 2 ||
            (t->fmt == ITEX_SINT && (t->bc < ITEX_BC4 || t->bc == ITEX_BC7)) ||
            t->fmt > ITEX_SINT)
            return false;
    } else if (t->packed) { /* 10-10-10-2: four unsigned channels in a 32-bit word */
        if (t->packed != ITEX_PK_1010102 || t->nchan != 4 || t->bits != 10 || t->elem != 4 ||
            t->fmt != ITEX_UINT)
            return false;
    } else if (t->elem != t->nchan * t->bits / 8) {
        return false;
    }
    if ((t->nchan != 1 && t->nchan != 2 && t->nchan != 4) ||
        (!t->packed && t->bits != 8 && t->bits != 16 && t->bits != 32) ||
        (t->packed && t->bc) ||
        t->fmt > ITEX_FLOAT || (t->fmt == ITEX_FLOAT && t->bits == 8) || t->dims < 1 ||
        t->dims > 3 || (t->layered && t->dims == 3) ||
        (t->cube && (!t->layered || t->dims != 2 || t->layers % 6 || t->width != t->height)))
        return false;
    const uint64_t lim = UINT64_C(1) << 40; /* sizes and strides far beyond any device */
    if (!t->width || !t->height || !t->depth || !t->layers || t->width >= lim ||
        t->height >= lim || t->depth >= lim || t->layers >= lim || t->pitch >= lim ||
        t->slice >= lim || t->bytes >= lim)
        return false;
    /* the last element: (slices - 1) * slice + (height - 1) * pitch + width * elem */
    const uint64_t slices = t->layered ? t->layers : t->depth;
    if (tx_blocks(t, t->width) * t->elem > t->pitch && tx_blocks(t, t->height) > 1)
        return false;
    unsigned __int128 end = (unsigned __int128)(slices - 1) * t->slice +
                            (unsigned __int128)(tx_blocks(t, t->height) - 1) * t->pitch +
                            tx_blocks(t, t->width) * t->elem;
    if (end > t->bytes || t->nlevels < 1 || t->nlevels > ITEX_MAX_LEVELS ||
        t->lv[0].base != t->base || t->lv[0].width != t->width ||
        t->lv[0].height != t->height || t->lv[0].depth != t->depth ||
        t->lv[0].pitch != t->pitch || t->lv[0].slice != t->slice || t->lv[0].bytes != t->bytes)
        return false;
    for (unsigned k = 1; k < t->nlevels; k++) { /* each level inside its own bytes */
        const struct itex_level *g = &t->lv[k];
        if (!g->width || !g->height || !g->depth || g->width > t->width ||
            g->height > t->height || g->depth > t->depth || g->pitch >= lim ||
            g->slice >= lim || g->bytes >= lim ||
            (tx_blocks(t, g->width) * t->elem > g->pitch && tx_blocks(t, g->height) > 1))
            return false;
        const uint64_t sl = t->layered ? t->layers : g->depth;
        end = (unsigned __int128)(sl - 1) * g->slice +
              (unsigned __int128)(tx_blocks(t, g->height) - 1) * g->pitch +
              tx_blocks(t, g->width) * t->elem;
        if (end > g->bytes)
            return false;
    }
    return true;
}

/* The live descriptor of handle h of kind `kind` in *out: 0, or TRAP_ILLEGAL (not a live,
 * consistent descriptor) / TRAP_OOB (its resource memory was freed: a fetch never reads freed
 * memory) with tf filled. */
static int tx_lookup(struct warp *w, struct tx_cache *c, uint64_t h, unsigned kind,
                     unsigned lane, struct tex_fault *tf, const struct itex **out)
{
    if (c->t && c->h == h) {
        *out = c->t;
        return 0;
    }
    const struct mem *m = w->cta->L->dev->mem;
    const struct mem_alloc *a = mem_find(m, h, sizeof(struct itex));
    const struct itex *t = a && a->base == h && (a->flags & MEM_F_CONST)
                               ? (const struct itex *)(uintptr_t)h
                               : NULL;
    if (!t || t->magic != ITEX_MAGIC || t->kind != kind || !tx_sane(t)) {
        tf->lane = lane;
        tf->addr = h;
        snprintf(tf->msg, sizeof tf->msg, "%#" PRIx64 " is not a live %s object", h,
                 kind == ITEX_TEXTURE ? "texture" : "surface");
        return TRAP_ILLEGAL;
    }
    unsigned gone = 0;
    while (gone < t->nlevels && mem_find(m, t->lv[gone].base, t->lv[gone].bytes))
        gone++;
    if (gone < t->nlevels) {
        tf->lane = lane;
        tf->addr = t->lv[gone].base;
        tf->width = t->elem;
        snprintf(tf->msg, sizeof tf->msg,
                 "the memory of %s object %#" PRIx64 " (%" PRIu64 " bytes at %#" PRIx64
                 ") is no longer allocated",
                 kind == ITEX_TEXTURE ? "texture" : "surface", h, t->lv[gone].bytes,
                 t->lv[gone].base);
        return TRAP_OOB;
    }
    c->h = h;
    c->t = t;
    *out = t;
    return 0;
}

/* ============================================================================ texels */

union tx_val {
    uint32_t u;
    int32_t s;
    float f;
};

/* Does a fetch of t return floats (and so may be filtered)? */
static bool tx_float_result(const struct itex *t)
{
    return t->fmt == ITEX_FLOAT || t->read_norm;
}

/* An sRGB-encoded color component as linear: IEC 61966-2-1 decoding in f32. */
static float tx_srgb(float v)
{
    return v <= 0.04045f ? v / 12.92f : powf((v + 0.055f) / 1.055f, 2.4f);
}

/* Channel c of the element at p, as the fetch returns it. */
static union tx_val tx_channel(const struct itex *t, const uint8_t *p, unsigned c)
{
    union tx_val v;
    uint32_t raw;
    if (t->packed) { /* ITEX_PK_1010102 (texture.h): r, g, b 10 bits from bit 0 up, a 2 bits */
        uint32_t word;
        memcpy(&word, p, 4);
        raw = c < 3 ? word >> (10 * c) & 0x3ffu : word >> 30;
        if (t->read_norm)
            v.f = (float)raw / (c < 3 ? 1023.0f : 3.0f);
        else
            v.u = raw;
        return v;
    }
    if (t->bits == 32) {
        memcpy(&raw, p + 4 * c, 4);
    } else if (t->bits == 16) {
        uint16_t h;
        memcpy(&h, p + 2 * c, 2);
        raw = h;
    } else {
        raw = p[c];
    }
    if (t->fmt == ITEX_FLOAT) {
        if (t->bits == 16)
            v.f = fpu_h2f((uint16_t)raw);
        else
            v.u = raw;
        return v;
    }
    int32_t sv = t->bits == 8 ? (int32_t)(int8_t)raw : t->bits == 16 ? (int32_t)(int16_t)raw
                                                                     : (int32_t)raw;
    if (t->read_norm && t->bits < 32) {
        if (t->fmt == ITEX_UINT) {
            v.f = (float)raw / (float)((1u << t->bits) - 1);
            if (t->srgb && c < 3)
                v.f = tx_srgb(v.f);
        } else {
            float x = (float)sv / (float)((1u << (t->bits - 1)) - 1);
            v.f = x < -1.0f ? -1.0f : x;
        }
        return v;
    }
    v.u = t->fmt == ITEX_SINT ? (uint32_t)sv : raw;
    return v;
}

/* All four result components of the texel at (x, y, z, layer), all in range. */
/* Where a fetch reports the texels it reads (stepping only): the recorder and the lane. */
struct tx_rep {
    const struct tc_mem *mr;
    unsigned lane;
};

static void tx_texel(const struct itex *t, const struct itex_level *g, uint64_t x, uint64_t y,
                     uint64_t z, uint64_t layer, union tx_val out[4], const struct tx_rep *rp)
{
    if (t->bc) { /* the texel of its 4x4 block (the components the format lacks as below) */
        const uint8_t *b = (const uint8_t *)(uintptr_t)(g->base + (layer + z) * g->slice +
                                                        y / 4 * g->pitch + x / 4 * t->elem);
        if (rp && rp->mr) /* stepping: the block's device address for the timing model */
            rp->mr->fn(rp->mr->ctx, rp->lane, (uint64_t)(uintptr_t)b, t->elem, false, SP_TEX, b);
        float v[4] = {0.0f, 0.0f, 0.0f, 1.0f};
        itex_bc_texel(t->bc, t->fmt == ITEX_SINT, b, (unsigned)(x & 3), (unsigned)(y & 3), v);
        for (unsigned c = 0; c < 4; c++)
            out[c].f = t->srgb && c < 3 && c < t->nchan ? tx_srgb(v[c]) : v[c];
        return;
    }
    const uint8_t *p = (const uint8_t *)(uintptr_t)(g->base + (layer + z) * g->slice +
                                                    y * g->pitch + x * t->elem);
    if (rp && rp->mr) /* stepping: the texel's device address for the timing model */
        rp->mr->fn(rp->mr->ctx, rp->lane, (uint64_t)(uintptr_t)p, t->elem, false, SP_TEX, p);
    const bool fl = tx_float_result(t);
    for (unsigned c = 0; c < 4; c++) {
        if (c < t->nchan)
            out[c] = tx_channel(t, p, c);
        else if (c == 3)
            out[c].u = fl ? 0x3f800000u : 1u;
        else
            out[c].u = 0;
    }
}

/* The border color as a result. */
static void tx_border(const struct itex *t, union tx_val out[4])
{
    const bool fl = tx_float_result(t);
    for (unsigned c = 0; c < 4; c++) {
        if (fl)
            out[c].f = t->border[c];
        else
            out[c].s = (int32_t)t->border[c];
    }
}

/* Texel index i of a dimension of n texels under address mode `mode`: true and *r in range,
 * or false for the border. */
static bool tx_index(int64_t i, uint64_t n, unsigned mode, bool norm, uint64_t *r)
{
    const int64_t N = (int64_t)n;
    if (i >= 0 && i < N) { /* inside: every mode agrees (no division) */
        *r = (uint64_t)i;
        return true;
    }
    if (!norm && (mode == ITEX_WRAP || mode == ITEX_MIRROR))
        mode = ITEX_CLAMP;
    switch (mode) {
    case ITEX_WRAP: *r = (uint64_t)(((i % N) + N) % N); return true;
    case ITEX_MIRROR: {
        int64_t k = ((i % (2 * N)) + 2 * N) % (2 * N);
        *r = (uint64_t)(k < N ? k : 2 * N - 1 - k);
        return true;
    }
    case ITEX_BORDER:
        if (i < 0 || i >= N)
            return false;
        *r = (uint64_t)i;
        return true;
    default: *r = (uint64_t)(i < 0 ? 0 : i >= N ? N - 1 : i); return true;
    }
}

/* A float coordinate as a 64-bit texel index (floor), saturated so huge values stay huge. */
static int64_t tx_floor(float u)
{
    if (!(u == u))
        return 0;
    if (u >= 0x1p62f)
        return INT64_C(1) << 62;
    if (u <= -0x1p62f)
        return -(INT64_C(1) << 62);
    int64_t i = (int64_t)u; /* toward zero; one less for negative non-integers */
    return (float)i > u ? i - 1 : i;
}

static void tx_cube_face(const float v[3], unsigned *face, float out[3]);

/* Seamless cubemap filtering: texel (i, j) of face layer % 6 of an n x n level lies past the
 * face's edge; the direction of its centre picks the face and texel it is on (the adjacent
 * face; past a corner, the face the tie rules of tx_cube_face pick). */
static void tx_cube_wrap(int64_t i, int64_t j, uint64_t n, uint64_t *layer, uint64_t *ri,
                         uint64_t *rj)
{
    const unsigned f = (unsigned)(*layer % 6);
    const float sc = (2.0f * (float)i + 1.0f) / (float)n - 1.0f,
                tc = (2.0f * (float)j + 1.0f) / (float)n - 1.0f;
    /* the inverse of tx_cube_st with |ma| = 1 */
    float v[3];
    switch (f) {
    case 0: v[0] = 1.0f, v[1] = -tc, v[2] = -sc; break;
    case 1: v[0] = -1.0f, v[1] = -tc, v[2] = sc; break;
    case 2: v[0] = sc, v[1] = 1.0f, v[2] = tc; break;
    case 3: v[0] = sc, v[1] = -1.0f, v[2] = -tc; break;
    case 4: v[0] = sc, v[1] = -tc, v[2] = 1.0f; break;
    default: v[0] = -sc, v[1] = -tc, v[2] = -1.0f; break;
    }
    unsigned face;
    float st[3];
    tx_cube_face(v, &face, st);
    *layer = *layer - f + face;
    const int64_t x = tx_floor(st[0] * (float)n), y = tx_floor(st[1] * (float)n);
    *ri = (uint64_t)(x < 0 ? 0 : x >= (int64_t)n ? (int64_t)n - 1 : x);
    *rj = (uint64_t)(y < 0 ? 0 : y >= (int64_t)n ? (int64_t)n - 1 : y);
}

/* Texel (i[0], i[1], i[2]) of layer `layer` of level g with the address modes applied. */
static void tx_fetch(const struct itex *t, const struct itex_level *g, const int64_t i[3],
                     uint64_t layer, bool border0, union tx_val out[4], const struct tx_rep *rp)
{
    uint64_t r[3] = {0, 0, 0};
    const uint64_t n[3] = {g->width, g->height, g->depth};
    if ((t->flags & ITEX_F_SEAMLESS) && t->cube && !border0 &&
        (i[0] < 0 || i[0] >= (int64_t)n[0] || i[1] < 0 || i[1] >= (int64_t)n[1])) {
        tx_cube_wrap(i[0], i[1], n[0], &layer, &r[0], &r[1]);
        tx_texel(t, g, r[0], r[1], 0, layer, out, rp);
        return;
    }
    for (unsigned d = 0; d < t->dims; d++) {
        bool in = border0 ? (i[d] >= 0 && (uint64_t)i[d] < n[d] && ((r[d] = (uint64_t)i[d]), 1))
                          : tx_index(i[d], n[d], t->cube ? ITEX_CLAMP : t->addr[d],
                                     t->norm_coords, &r[d]);
        if (!in) {
            if (border0)
                memset(out, 0, 4 * sizeof *out);
            else
                tx_border(t, out);
            return;
        }
    }
    tx_texel(t, g, r[0], r[1], r[2], layer, out, rp);
}

/* A fraction in [0, 1] as a 9-bit fixed-point weight: 0..256 (nearest 1/256, ties up). */
static uint32_t tx_weight(float fr)
{
    if (!(fr > 0.0f))
        return 0;
    uint32_t a = (uint32_t)(fr * 256.0f + 0.5f) /* >= 0: truncation is floor */;
    return a > 256 ? 256 : a;
}

/* Sample level g of t at coordinates x[] of one layer (unnormalized coordinates are level-0
 * texels, scaled to the level), the texel indices moved by off[] (tex's offset operand). */
static void tx_sample(const struct itex *t, const struct itex_level *g, const float x[3],
                      const int32_t off[3], uint64_t layer, union tx_val out[4],
                      const struct tx_rep *rp)
{
    float u[3];
    const uint64_t n[3] = {g->width, g->height, g->depth}, n0[3] = {t->width, t->height, t->depth};
    for (unsigned d = 0; d < t->dims; d++)
        u[d] = t->norm_coords ? x[d] * (float)n[d]
               : g == t->lv  ? x[d]
                             : x[d] * ((float)n[d] / (float)n0[d]);
    if (!t->linear || !tx_float_result(t)) {
        int64_t i[3] = {0, 0, 0};
        for (unsigned d = 0; d < t->dims; d++)
            i[d] = tx_floor(u[d]) + off[d];
        tx_fetch(t, g, i, layer, false, out, rp);
        return;
    }
    int64_t i0[3] = {0, 0, 0};
    uint32_t a[3] = {0, 0, 0}; /* α in 1/256 steps, 0..256 */
    for (unsigned d = 0; d < t->dims; d++) {
        float xb = u[d] - 0.5f;
        i0[d] = tx_floor(xb);
        /* frac(xB): exact; 0 for NaN and for |xB| >= 2^23 (those floats are integers) */
        const float fr = fabsf(xb) < 0x1p23f ? xb - (float)i0[d] : 0.0f;
        a[d] = tx_weight(fr);
    }
    float acc[4] = {0, 0, 0, 0};
    const unsigned nt = 1u << t->dims;
    for (unsigned k = 0; k < nt; k++) { /* the guide's order: x fastest, then y, then z */
        int64_t i[3];
        uint32_t wgt = 1;
        for (unsigned d = 0; d < 3; d++) {
            const unsigned hi = d < t->dims ? k >> d & 1 : 0;
            i[d] = i0[d] + hi + off[d];
            if (d < t->dims)
                wgt *= hi ? a[d] : 256 - a[d];
        }
        union tx_val v[4];
        tx_fetch(t, g, i, layer, false, v, rp);
        const float wf = (float)wgt * (t->dims == 1 ? 0x1p-8f : t->dims == 2 ? 0x1p-16f : 0x1p-24f);
        for (unsigned c = 0; c < 4; c++)
            acc[c] = k ? acc[c] + wf * v[c].f : wf * v[c].f;
    }
    for (unsigned c = 0; c < 4; c++)
        out[c].f = acc[c];
}

/* Sample t with level of detail lambda (before bias and clamps): the mipmap level(s) it
 * selects, point (nearest level, ties up) or linear (the two levels around it, weighted by
 * the fraction in 9-bit fixed point like the texel weights). */
static void tx_sample_lod(const struct itex *t, const float x[3], const int32_t off[3],
                          uint64_t layer, float lambda, union tx_val out[4],
                          const struct tx_rep *rp)
{
    if (t->nlevels <= 1) {
        tx_sample(t, t->lv, x, off, layer, out, rp);
        return;
    }
    float lam = lambda + t->lod_bias;
    if (!(lam >= t->lod_min)) /* NaN too */
        lam = t->lod_min;
    if (lam > t->lod_max)
        lam = t->lod_max;
    const float top = (float)(t->nlevels - 1);
    if (!(lam > 0.0f))
        lam = 0.0f;
    if (lam > top)
        lam = top;
    if (!t->mip_linear || !tx_float_result(t)) {
        tx_sample(t, &t->lv[(unsigned)floorf(lam + 0.5f)], x, off, layer, out, rp);
        return;
    }
    const unsigned l0 = (unsigned)floorf(lam);
    const uint32_t f = tx_weight(lam - (float)l0);
    if (l0 + 1 >= t->nlevels || f == 0) {
        tx_sample(t, &t->lv[l0], x, off, layer, out, rp);
        return;
    }
    union tx_val a[4], b[4];
    tx_sample(t, &t->lv[l0], x, off, layer, a, rp);
    tx_sample(t, &t->lv[l0 + 1], x, off, layer, b, rp);
    const float w0 = (float)(256 - f) * 0x1p-8f, w1 = (float)f * 0x1p-8f;
    for (unsigned c = 0; c < 4; c++)
        out[c].f = w0 * a[c].f + w1 * b[c].f;
}

/* The level of detail of tex.grad: log2 of the longer of the two gradients measured in
 * level-0 texels (isotropic: no anisotropic footprint). */
static float tx_grad_lod(const struct itex *t, const float dx[3], const float dy[3])
{
    const uint64_t n0[3] = {t->width, t->height, t->depth};
    float px = 0.0f, py = 0.0f;
    for (unsigned d = 0; d < t->dims; d++) {
        const float s = t->norm_coords ? (float)n0[d] : 1.0f;
        px += (dx[d] * s) * (dx[d] * s);
        py += (dy[d] * s) * (dy[d] * s);
    }
    return log2f(sqrtf(px > py ? px : py));
}

/* tex.grad of t with gradients dx, dy (coordinate units) at x[] when t allows anisotropy
 * (maxAnisotropy > 1, float results): the footprint of EXT_texture_filter_anisotropic. The
 * gradients' lengths in level-0 texels are Px, Py; N = min(ceil(Pmax / Pmin), maxAnisotropy)
 * probes along the major gradient at x + (i / (N + 1) - 1/2) * major (i = 1..N), each sampled
 * (texel and mipmap filtering as usual) at lambda = log2(Pmax / N), summed in f32 in order and
 * divided by N. N <= 1 is the isotropic tx_grad_lod. Returns false when N <= 1 (the caller
 * samples isotropically). */
static bool tx_sample_aniso(const struct itex *t, const float x[3], const int32_t off[3],
                            uint64_t layer, const float dx[3], const float dy[3],
                            union tx_val out[4], const struct tx_rep *rp)
{
    if (t->max_aniso <= 1 || !tx_float_result(t))
        return false;
    const uint64_t n0[3] = {t->width, t->height, t->depth};
    float px = 0.0f, py = 0.0f;
    for (unsigned d = 0; d < t->dims; d++) {
        const float s = t->norm_coords ? (float)n0[d] : 1.0f;
        px += (dx[d] * s) * (dx[d] * s);
        py += (dy[d] * s) * (dy[d] * s);
    }
    px = sqrtf(px);
    py = sqrtf(py);
    const bool xmaj = px >= py;
    const float pmax = xmaj ? px : py, pmin = xmaj ? py : px;
    if (!(pmax > pmin)) /* isotropic, or NaN */
        return false;
    const float ratio = pmin > 0.0f ? ceilf(pmax / pmin) : INFINITY;
    const unsigned n = ratio >= (float)t->max_aniso ? t->max_aniso : (unsigned)ratio;
    if (n <= 1)
        return false;
    const float lambda = log2f(pmax / (float)n);
    const float *maj = xmaj ? dx : dy;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (unsigned i = 1; i <= n; i++) {
        const float f = (float)i / (float)(n + 1) - 0.5f;
        float xp[3];
        for (unsigned d = 0; d < 3; d++)
            xp[d] = x[d] + f * maj[d];
        union tx_val v[4];
        tx_sample_lod(t, xp, off, layer, lambda, v, rp);
        for (unsigned c = 0; c < 4; c++)
            acc[c] += v[c].f;
    }
    for (unsigned c = 0; c < 4; c++)
        out[c].f = acc[c] / (float)n;
    return true;
}

/* ======================================================================== instructions */

static uint64_t tx_get(const struct warp *w, const struct ir_opnd *e, unsigned l)
{
    return vm_get(w, e, l);
}

static void tx_put(struct warp *w, const struct ir_opnd *all, const struct ir_opnd *d,
                   unsigned k, unsigned l, uint64_t v)
{
    const struct ir_opnd *e = d->kind == OPK_VEC ? &all[d->first + k] : d;
    if (e->kind != OPK_SINK)
        vm_set(w, e, l, v);
}

/* The clamp of a surface layer or coordinate: v inside [0, n). */
static int64_t tx_clampi(int64_t v, int64_t n)
{
    return v < 0 ? 0 : v >= n ? n - 1 : v;
}

/* Convert a sust.p source component to channel format of t (raw channel bits). */
static uint32_t tx_format(const struct itex *t, uint32_t v)
{
    if (t->fmt == ITEX_FLOAT) {
        if (t->bits == 32)
            return v;
        float f;
        memcpy(&f, &v, 4);
        return fpu_d2h_e((double)f, 0, FPU_RN);
    }
    return t->bits == 32 ? v : v & ((1u << t->bits) - 1);
}

/* suld / sust on lane l: 0, or a trap kind with tf filled. */
static int tx_surface(struct warp *w, const struct ir_insn *in, const struct ir_opnd *O,
                      const struct tx_form *fm, const struct itex *t, unsigned l,
                      struct tex_fault *tf, const struct tc_mem *mr)
{
    const struct ir_opnd *all = w->fn->opnds;
    const bool ld = in->op == OP_SULD;
    const struct ir_opnd *a = ld ? &O[1] : &O[0], *d = ld ? &O[0] : &O[1];
    const unsigned v = in->vec ? in->vec : 1, sz = ir_type_size((enum ir_type)in->type[0]);
    const unsigned width = fm->p ? t->elem : v * sz;
    int64_t c[4] = {0, 0, 0, 0};
    const unsigned nc = tx_ncoord(fm);
    for (unsigned k = 0; k < nc; k++)
        c[k] = (int32_t)tx_get(w, &all[a->first + 1 + k], l);
    int64_t layer = 0, x, y = 0, z = 0;
    if (fm->layered) {
        layer = (uint32_t)c[0];
        x = c[1];
        y = c[2];
    } else {
        x = c[0];
        y = c[1];
        z = c[2];
    }
    const int64_t xb = fm->p ? x * (int64_t)t->elem : x; /* byte offset in the row */
    const int64_t rowb = (int64_t)(t->width * t->elem);
    const int64_t H = (int64_t)t->height, D = (int64_t)t->depth, Ly = (int64_t)t->layers;
    if (!fm->p && (x % (int64_t)width) != 0) {
        tf->lane = l;
        tf->addr = t->base + (uint64_t)xb;
        tf->width = width;
        tf->wr = !ld;
        snprintf(tf->msg, sizeof tf->msg,
                 "surface x coordinate %" PRId64 " is not a multiple of the %u-byte access",
                 x, width);
        return TRAP_MISALIGNED;
    }
    const bool out = xb < 0 || xb + (int64_t)width > rowb || (t->dims >= 2 && (y < 0 || y >= H)) ||
                     (t->dims >= 3 && (z < 0 || z >= D)) ||
                     (t->layered && (layer < 0 || layer >= Ly));
    int64_t bx = xb;
    if (out) {
        switch (fm->bound) {
        case TXB_ZERO:
            if (ld)
                for (unsigned k = 0; k < v; k++)
                    tx_put(w, all, d, k, l, 0);
            return 0;
        case TXB_CLAMP:
            bx = xb < 0 ? 0 : xb + (int64_t)width > rowb ? (rowb - (int64_t)width) / width * width
                                                         : xb;
            y = tx_clampi(y, H);
            z = tx_clampi(z, D);
            layer = tx_clampi(layer, Ly);
            break;
        default:
            tf->lane = l;
            tf->addr = t->base + (uint64_t)(layer + z) * t->slice + (uint64_t)y * t->pitch +
                       (uint64_t)xb;
            tf->width = width;
            tf->wr = !ld;
            if (t->layered)
                snprintf(tf->msg, sizeof tf->msg,
                         "surface coordinate (x=%" PRId64 " bytes, y=%" PRId64 ", layer=%" PRId64
                         ") is outside the %" PRIu64 "x%" PRIu64 " surface of %" PRIu64
                         " layers (.trap)",
                         xb, y, layer, t->width, t->height, t->layers);
            else
                snprintf(tf->msg, sizeof tf->msg,
                         "surface coordinate (x=%" PRId64 " bytes, y=%" PRId64 ", z=%" PRId64
                         ") is outside the %" PRIu64 "x%" PRIu64 "x%" PRIu64
                         " surface of %u-byte elements (.trap)",
                         xb, y, z, t->width, t->height, t->depth, (unsigned)t->elem);
            return TRAP_OOB;
        }
    }
    uint8_t *p = (uint8_t *)(uintptr_t)(t->base + (uint64_t)(layer + z) * t->slice +
                                        (uint64_t)y * t->pitch + (uint64_t)bx);
    if (mr) { /* stepping: the element's device address (sured: its read, then its write) */
        if (ld || in->op == OP_SURED)
            mr->fn(mr->ctx, l, (uint64_t)(uintptr_t)p, width, false, SP_GLOBAL, p);
        if (!ld)
            mr->fn(mr->ctx, l, (uint64_t)(uintptr_t)p, width, true, SP_GLOBAL, p);
    }
    if (in->op == OP_SURED) {
        if (fm->p && t->elem % sz) { /* .p: the element must hold whole operands */
            tf->lane = l;
            tf->addr = (uint64_t)(uintptr_t)p;
            tf->width = sz;
            tf->wr = true;
            snprintf(tf->msg, sizeof tf->msg,
                     "sured.p on %u-byte surface elements with a %u-byte operand",
                     (unsigned)t->elem, sz);
            return TRAP_MISALIGNED;
        }
        uint64_t old;
        vm_atomic(p, sz, fm->red, in->type[0], tx_get(w, d, l), 0, &old);
    } else if (ld) {
        for (unsigned k = 0; k < v; k++) {
            uint64_t x64 = 0;
            memcpy(&x64, p + k * sz, sz);
            tx_put(w, all, d, k, l, x64);
        }
    } else if (!fm->p) {
        for (unsigned k = 0; k < v; k++) {
            const struct ir_opnd *e = d->kind == OPK_VEC ? &all[d->first + k] : d;
            uint64_t x64 = tx_get(w, e, l);
            memcpy(p + k * sz, &x64, sz);
        }
    } else if (t->packed) { /* sust.p of 10-10-10-2: each component's low bits into its field */
        uint32_t word;
        memcpy(&word, p, 4);
        for (unsigned k = 0; k < v && k < 4; k++) {
            const struct ir_opnd *e = d->kind == OPK_VEC ? &all[d->first + k] : d;
            const unsigned sh = 10 * k, m = k < 3 ? 0x3ffu : 0x3u;
            word = (word & ~(m << sh)) | ((uint32_t)tx_get(w, e, l) & m) << sh;
        }
        memcpy(p, &word, 4);
    } else {
        for (unsigned k = 0; k < v && k < t->nchan; k++) {
            const struct ir_opnd *e = d->kind == OPK_VEC ? &all[d->first + k] : d;
            uint32_t raw = tx_format(t, (uint32_t)tx_get(w, e, l));
            memcpy(p + k * (t->bits / 8u), &raw, t->bits / 8u);
        }
    }
    return 0;
}

/* The face axes sc, tc of face (0..5: +x, -x, +y, -y, +z, -z) of vector v (the guide's table;
 * linear in v, so it maps gradients too). */
static void tx_cube_st(unsigned face, const float v[3], float *sc, float *tc)
{
    switch (face) {
    case 0: *sc = -v[2], *tc = -v[1]; break;
    case 1: *sc = v[2], *tc = -v[1]; break;
    case 2: *sc = v[0], *tc = v[2]; break;
    case 3: *sc = v[0], *tc = -v[2]; break;
    case 4: *sc = v[0], *tc = -v[1]; break;
    default: *sc = -v[0], *tc = -v[1]; break;
    }
}

/* The face of cubemap direction (x, y, z) and its normalized face coordinates (CUDA
 * programming guide, cubemap textures: the major axis m picks the face, (s/m + 1) / 2 and
 * (t/m + 1) / 2 the position; ties go to x, then y). */
static void tx_cube_face(const float v[3], unsigned *face, float out[3])
{
    const float ax = fabsf(v[0]), ay = fabsf(v[1]), az = fabsf(v[2]);
    *face = ax >= ay && ax >= az ? (v[0] >= 0.0f ? 0 : 1)
            : ay >= az           ? (v[1] >= 0.0f ? 2 : 3)
                                 : (v[2] >= 0.0f ? 4 : 5);
    float sc, tc;
    tx_cube_st(*face, v, &sc, &tc);
    const float m = fabsf(v[*face / 2]);
    out[0] = (sc / m + 1.0f) * 0.5f;
    out[1] = (tc / m + 1.0f) * 0.5f;
    out[2] = 0.0f;
}

/* The gradient of the normalized face coordinates (s, t) of face `face` at direction v for a
 * direction gradient dv (tex.grad on cubemaps): the derivative of s = (sc / |ma| + 1) / 2,
 * i.e. ds = (dsc |ma| - sc d|ma|) / (2 ma^2), as OpenGL's cube-map LOD rule states it. */
static void tx_cube_grad(unsigned face, const float v[3], const float dv[3], float out[2])
{
    float sc, tc, dsc, dtc;
    tx_cube_st(face, v, &sc, &tc);
    tx_cube_st(face, dv, &dsc, &dtc);
    const float m = fabsf(v[face / 2]), dm = v[face / 2] >= 0.0f ? dv[face / 2] : -dv[face / 2];
    out[0] = 0.5f * (dsc * m - sc * dm) / (m * m);
    out[1] = 0.5f * (dtc * m - tc * dm) / (m * m);
}

/* tex / tld4 on lane l. */
static void tx_tex(struct warp *w, const struct ir_insn *in, const struct ir_opnd *O,
                   const struct tx_form *fm, const struct itex *t, unsigned l,
                   const struct tc_mem *mr)
{
    const struct tx_rep rep = {mr, l}, *rp = mr ? &rep : NULL;
    const struct ir_opnd *all = w->fn->opnds;
    const struct ir_opnd *a = &O[2];
    const unsigned nc = tx_ncoord(fm);
    uint32_t c[4] = {0, 0, 0, 0};
    for (unsigned k = 0; k < nc; k++)
        c[k] = (uint32_t)tx_get(w, &all[a->first + 1 + k], l);
    uint64_t layer = 0;
    const uint32_t *xc = c;
    if (fm->layered) {
        layer = (uint64_t)tx_clampi((int64_t)c[0], (int64_t)t->layers);
        xc = c + 1;
    }
    union tx_val r[4];
    const unsigned dims = t->dims < fm->dims ? t->dims : fm->dims;
    int32_t off[3] = {0, 0, 0}; /* the offset operand e (after the lod operands), if any */
    const unsigned eo = 3 + (fm->lod == TXL_LEVEL ? 1 : fm->lod == TXL_GRAD ? 2 : 0);
    if (in->nopnd > eo)
        for (unsigned d = 0; d < dims; d++)
            off[d] = (int32_t)(uint32_t)tx_get(w, &all[O[eo].first + d], l);
    float cx[3] = {0, 0, 0}, dir[3] = {0, 0, 0};
    unsigned face = 0;
    if (fm->cube) { /* the direction picks a face (layer) and normalized face coordinates */
        memcpy(dir, xc, sizeof dir);
        float x[3] = {0, 0, 0};
        tx_cube_face(dir, &face, x);
        const uint64_t cubes = t->cube ? t->layers / 6 : 1;
        layer = fm->layered ? (uint64_t)tx_clampi((int64_t)c[0], (int64_t)cubes) * 6 + face : face;
        if (!t->cube)
            layer = 0; /* not a cubemap: face 0 of layer 0 */
        if (!t->norm_coords) { /* tx_sample takes level-0 texels then */
            x[0] *= (float)t->width;
            x[1] *= (float)t->height;
        }
        memcpy(cx, x, sizeof cx);
    }
    if (in->op == OP_TLD4) {
        /* the texels linear filtering would read (tx_sample): of the layer a2d / acube
           select, on a cubemap the face the direction picks, at its face coordinates (cx);
           tx_fetch applies the address modes (per face: clamp, or the adjacent face's
           texel with seamlessCubemap) */
        float x[2];
        if (fm->cube)
            memcpy(x, cx, sizeof x);
        else
            memcpy(x, xc, sizeof x);
        int64_t i0[2];
        for (unsigned d = 0; d < 2; d++) {
            const uint64_t n = d ? t->height : t->width;
            i0[d] = tx_floor((t->norm_coords ? x[d] * (float)n : x[d]) - 0.5f);
        }
        /* (i, j+1), (i+1, j+1), (i+1, j), (i, j) */
        static const unsigned di[4] = {0, 1, 1, 0}, dj[4] = {1, 1, 0, 0};
        for (unsigned k = 0; k < 4; k++) {
            int64_t i[3] = {i0[0] + di[k] + off[0], i0[1] + dj[k] + off[1], 0};
            union tx_val v[4];
            tx_fetch(t, t->lv, i, layer, false, v, rp);
            r[k] = v[fm->comp];
        }
    } else if (in->type[1] == T_S32) {
        int64_t i[3] = {0, 0, 0};
        for (unsigned d = 0; d < dims; d++)
            i[d] = (int64_t)(int32_t)xc[d] + off[d];
        tx_fetch(t, t->lv, i, layer, t->res == ITEX_RES_LINEAR, r, rp);
    } else {
        float x[3] = {0, 0, 0};
        for (unsigned d = 0; d < dims; d++)
            memcpy(&x[d], &xc[d], 4);
        if (fm->cube)
            memcpy(x, cx, sizeof x);
        float lambda = 0.0f; /* tex: level 0 before bias and clamps */
        if (fm->lod == TXL_LEVEL) {
            uint32_t b = (uint32_t)tx_get(w, &O[3], l);
            memcpy(&lambda, &b, 4);
        } else if (fm->lod == TXL_GRAD) {
            float g[2][3] = {{0, 0, 0}, {0, 0, 0}};
            const unsigned gn = fm->cube ? 3 : dims;
            for (unsigned v = 0; v < 2; v++)
                for (unsigned d = 0; d < gn; d++) {
                    const struct ir_opnd *e = O[3 + v].kind == OPK_VEC ? &all[O[3 + v].first + d]
                                                                       : &O[3 + v];
                    uint32_t b = (uint32_t)tx_get(w, e, l);
                    memcpy(&g[v][d], &b, 4);
                }
            if (fm->cube) /* direction gradients to face-coordinate gradients, x's units */
                for (unsigned v = 0; v < 2; v++) {
                    float st[2];
                    tx_cube_grad(face, dir, g[v], st);
                    const float sz = t->norm_coords ? 1.0f : (float)t->width;
                    g[v][0] = st[0] * sz;
                    g[v][1] = st[1] * sz;
                    g[v][2] = 0.0f;
                }
            lambda = tx_grad_lod(t, g[0], g[1]);
            if (tx_sample_aniso(t, x, off, layer, g[0], g[1], r, rp))
                goto put;
        }
        tx_sample_lod(t, x, off, layer, lambda, r, rp);
    }
put:
    if (in->type[0] == T_F16 || in->type[0] == T_F16X2) { /* half results, rounded to nearest */
        uint16_t h[4];
        for (unsigned k = 0; k < 4; k++)
            h[k] = fpu_d2h_e(tx_float_result(t) ? (double)r[k].f
                             : t->fmt == ITEX_SINT ? (double)r[k].s
                                                   : (double)r[k].u,
                             0, FPU_RN);
        if (in->type[0] == T_F16)
            for (unsigned k = 0; k < 4; k++)
                tx_put(w, all, &O[0], k, l, h[k]);
        else
            for (unsigned k = 0; k < 2; k++)
                tx_put(w, all, &O[0], k, l, h[2 * k] | (uint32_t)h[2 * k + 1] << 16);
    } else {
        for (unsigned k = 0; k < 4; k++)
            tx_put(w, all, &O[0], k, l, r[k].u);
    }
    if (O[1].kind == OPK_REG) /* |p: resident (CUDA arrays are never sparse here) */
        vm_set(w, &O[1], l, 1);
}

/* OpenCL's cl_channel_type and cl_channel_order codes (what txq / suq .channel_data_type and
 * .channel_order return, see tx_query). */
enum {
    CL_SNORM_INT8 = 0x10D0, CL_SNORM_INT16 = 0x10D1, CL_UNORM_INT8 = 0x10D2,
    CL_UNORM_INT16 = 0x10D3, CL_SIGNED_INT8 = 0x10D7, CL_SIGNED_INT16 = 0x10D8,
    CL_SIGNED_INT32 = 0x10D9, CL_UNSIGNED_INT8 = 0x10DA, CL_UNSIGNED_INT16 = 0x10DB,
    CL_UNSIGNED_INT32 = 0x10DC, CL_HALF_FLOAT = 0x10DD, CL_FLOAT = 0x10DE,
    CL_UNORM_INT_101010_2 = 0x10E0,
    CL_R = 0x10B0, CL_RG = 0x10B2, CL_RGBA = 0x10B5, CL_SRGBA = 0x10C1
};

/* The answer of txq / suq on lane l of descriptor t (see the file comment). */
static uint64_t tx_query(struct warp *w, const struct ir_insn *in, const struct ir_opnd *O,
                         const struct tx_form *fm, const struct itex *t, unsigned l)
{
    const bool surf = in->op == OP_SUQ;
    switch (fm->query) {
    case TXQ_WIDTH:
    case TXQ_HEIGHT:
    case TXQ_DEPTH: {
        const struct itex_level *g = t->lv;
        if (fm->lod == TXL_LEVEL) { /* txq.level: that level's extent; 0 past the last */
            const int32_t k = (int32_t)(uint32_t)tx_get(w, &O[2], l);
            if (k < 0 || (uint32_t)k >= t->nlevels)
                return 0;
            g = &t->lv[k];
        }
        return fm->query == TXQ_WIDTH ? g->width : fm->query == TXQ_HEIGHT ? g->height : g->depth;
    }
    case TXQ_ARRAY_SIZE:
        if (t->cube && !surf) /* cubes of a cubemap array; a plain cubemap is no array */
            return t->flags & ITEX_F_CUBE_ARRAY ? t->layers / 6 : 0;
        return t->layered ? t->layers : 0;
    case TXQ_LEVELS: return t->flags & ITEX_F_MIPMAPPED ? t->nlevels : 0;
    case TXQ_CHANNEL_TYPE: {
        const bool norm = t->read_norm && !surf;
        if (t->packed) /* OpenCL 3.0's code for 10-10-10-2 (a surface's too: no other fits) */
            return CL_UNORM_INT_101010_2;
        if (t->bc)
            return t->bc == ITEX_BC6H ? CL_HALF_FLOAT
                   : t->fmt == ITEX_SINT ? CL_SNORM_INT8
                                         : CL_UNORM_INT8;
        if (t->fmt == ITEX_FLOAT)
            return t->bits == 16 ? CL_HALF_FLOAT : CL_FLOAT;
        if (t->fmt == ITEX_SINT)
            return t->bits == 8 ? (norm ? CL_SNORM_INT8 : CL_SIGNED_INT8)
                   : t->bits == 16 ? (norm ? CL_SNORM_INT16 : CL_SIGNED_INT16)
                                   : CL_SIGNED_INT32;
        return t->bits == 8 ? (norm ? CL_UNORM_INT8 : CL_UNSIGNED_INT8)
               : t->bits == 16 ? (norm ? CL_UNORM_INT16 : CL_UNSIGNED_INT16)
                               : CL_UNSIGNED_INT32;
    }
    case TXQ_CHANNEL_ORDER:
        if (t->srgb && !surf)
            return CL_SRGBA;
        return t->nchan == 1 ? CL_R : t->nchan == 2 ? CL_RG : CL_RGBA;
    case TXQ_NORM_COORDS: return t->norm_coords;
    case TXQ_FILTER: return t->linear; /* { nearest, linear } */
    case TXQ_ADDR0:
    case TXQ_ADDR1:
    case TXQ_ADDR2: {
        /* the ISA's { wrap, mirror, clamp_ogl, clamp_to_edge, clamp_to_border } */
        static const uint8_t code[4] = {[ITEX_WRAP] = 0, [ITEX_MIRROR] = 1, [ITEX_CLAMP] = 3,
                                        [ITEX_BORDER] = 4};
        return code[t->addr[fm->query - TXQ_ADDR0] & 3];
    }
    case TXQ_SAMPLES: return 0; /* no multisample resources in CUDA */
    default: return 0;          /* TXQ_LAYOUT: CUDA arrays are never linear-layout surfaces */
    }
}

/* Run one texture / surface instruction on lanes M (see the file comment). Returns 0, or a
 * trap kind with tf describing the fault (the handler reports it). */
int interp_tex_exec(struct warp *w, const struct ir_insn *in, const struct ir_opnd *O, uint32_t M,
                    struct tex_fault *tf, const struct tc_mem *mr)
{
    const struct ir_opnd *all = w->fn->opnds;
    const struct tx_form fm = tx_form_of(w->fn->f->mods, in);
    memset(tf, 0, sizeof *tf);
    struct tx_cache cache = {0, NULL};
    if (in->op == OP_ISTYPEP) {
        const struct mem *m = w->cta->L->dev->mem;
        const unsigned want = in->type[0] == T_SURFREF ? ITEX_SURFACE : ITEX_TEXTURE;
        for (unsigned l = 0; l < 32; l++) {
            if (!(M >> l & 1))
                continue;
            uint64_t h = tx_get(w, &O[1], l);
            const struct mem_alloc *a = mem_find(m, h, sizeof(struct itex));
            const struct itex *t = a && a->base == h && (a->flags & MEM_F_CONST)
                                       ? (const struct itex *)(uintptr_t)h
                                       : NULL;
            vm_set(w, &O[0], l, t && t->magic == ITEX_MAGIC && t->kind == want);
        }
        return 0;
    }
    if (in->op == OP_TXQ && O[1].kind == OPK_ADDR && O[1].sym != IR_NOSYM) {
        uint32_t v = 0; /* a .samplerref's member (interp_tex_ok made sure it is set) */
        tx_sampler_member(w->fn->m, O[1].sym, fm.query, &v);
        for (unsigned l = 0; l < 32; l++)
            if (M >> l & 1)
                vm_set(w, &O[0], l, v);
        return 0;
    }
    const unsigned kind = in->op == OP_SULD || in->op == OP_SUST || in->op == OP_SURED ||
                                  in->op == OP_SUQ
                              ? ITEX_SURFACE
                              : ITEX_TEXTURE;
    const struct ir_opnd *a = in->op == OP_SUST || in->op == OP_SURED  ? &O[0]
                              : in->op == OP_TEX || in->op == OP_TLD4 ? &O[2]
                                                                      : &O[1];
    for (unsigned l = 0; l < 32; l++) {
        if (!(M >> l & 1))
            continue;
        uint64_t h = a->kind == OPK_ADDR ? vm_get(w, a, l) : tx_get(w, &all[a->first], l);
        const struct itex *t = NULL;
        int k = tx_lookup(w, &cache, h, kind, l, tf, &t);
        if (k)
            return k;
        if (fm.ms) { /* never a multisample texture: CUDA makes none */
            tf->lane = l;
            tf->addr = h;
            snprintf(tf->msg, sizeof tf->msg,
                     "tex.%s reads a sample of a multisample texture, and texture object "
                     "%#" PRIx64 " is not one (no CUDA API creates a multisample array or "
                     "texture; the ISA defines no result for other textures)",
                     fm.layered ? "a2dms" : "2dms", h);
            return TRAP_ILLEGAL;
        }
        switch (in->op) {
        case OP_TEX:
        case OP_TLD4: tx_tex(w, in, O, &fm, t, l, mr); break;
        case OP_TXQ:
        case OP_SUQ: vm_set(w, &O[0], l, tx_query(w, in, O, &fm, t, l)); break;
        default:
            k = tx_surface(w, in, O, &fm, t, l, tf, mr);
            if (k)
                return k;
        }
    }
    return 0;
}
