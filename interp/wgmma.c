/*
 * interp/wgmma.c — warpgroup matrix instructions (sm_90a): wgmma.mma_async.sync.aligned and
 * wgmma.fence / commit_group / wait_group. One call per warp instruction
 * (interp/ops/tensor.inc).
 *
 * A warpgroup is four consecutive warps of the CTA (warps 4g .. 4g + 3). wgmma.mma_async is
 * one operation of the whole warpgroup: each warp that reaches it parks (like an aligned
 * barrier, warp.bar_id CTA_BAR_WGMMA) until the fourth arrives; the fourth checks that all
 * four stand at the same instruction, gathers A (shared memory through a matrix descriptor, or
 * the four warps' registers), B (shared memory) and D from the four warps, computes
 * D = A * B + (scale-d ? D : 0) once, scatters D and lets the others go on. The engine
 * completes the operation when the warpgroup issues it, so wgmma.commit_group / wait_group
 * have nothing to wait for and wgmma.fence orders nothing further: the results are in the
 * registers when wait_group returns, as the ISA requires.
 *
 * Fragments (PTX ISA "Register Fragments and Shared Memory Matrix Layouts" for wgmma; warp
 * q = 0..3 of the warpgroup owns rows 16q .. 16q + 15 of D and of a register A): element i of
 * lane l holds D row 16q + l/4 + 8 * ((i >> 1) & 1), column 8 * (i >> 2) + 2 * (l % 4) +
 * (i & 1); register A fragments are the mma.m16n8kK A layouts of the type (16-bit: row +8 by
 * (i >> 1) & 1, column 2 * (l % 4) + (i & 1) + 8 * (i >> 2); tf32: row +8 by i & 1, column l %
 * 4 + 4 * (i >> 1); 8-bit and .b1 with P = 4 / 32 elements per register: row +8 by (i / P) &
 * 1, column P * (l % 4) + i % P + 4P * (i / 2P)).
 *
 * Matrix descriptors (PTX ISA "Matrix Descriptor Format"): bits 0-13 start address >> 4,
 * 16-29 leading dimension byte offset (LBO) >> 4, 32-45 stride dimension byte offset (SBO)
 * >> 4, 49-51 base offset, 62-63 swizzle (0 none / interleave, 1 128B, 2 64B, 3 32B). Shared
 * memory is read in 16-byte chunks (the "core matrix" rows); with W = 1/2/4/8 chunks per
 * swizzle row (none, 32B, 64B, 128B) the chunk of an element is at:
 *   K-major (A not transposed, B "column-major"): row mn, 16-byte chunk kc (0, 1) along K:
 *     none:     start + (mn / 8) * SBO + kc * LBO + (mn % 8) * 16
 *     swizzled: start + (mn / 8) * SBO + (mn % 8) * 16W + kc * 16
 *   MN-major (imm-trans 1, .f16/.bf16 only): chunk c = mn / 8 along M/N, k along K:
 *     none:     start + c * SBO + (k / 8) * LBO + (k % 8) * 16
 *     swizzled: start + (c / W) * LBO + (c % W) * 16 + (k / 8) * SBO + (k % 8) * 16W
 * (CUTLASS's canonical GMMA layouts; the ISA's tables say the same). Swizzling then XORs the
 * chunk bits 4 .. 3 + log2 W of the address with the row bits 7 .. 6 + log2 W counted from
 * the pattern's start: row = ((address >> 7) - base offset) mod W — with base offset 0 the
 * address bits themselves, which is how TMA (bulk.c) writes swizzled tiles.
 *
 * wgmma.mma_async.sp (structured-sparse A: m64nNk32 .f16/.bf16, m64nNk16 .tf32, m64nNk64
 * .e4m3/.e5m2/.s8/.u8): the A operand (descriptor or registers) is the compressed 64 x K/2
 * matrix in the layouts of a dense A of K/2; the metadata (sp-meta, of the lanes sp-sel
 * selects) places its elements in the 64 x K row (wg_sparse_expand), B is the dense K x N
 * (K-major B of 64 bytes along K: four chunks LBO apart without swizzle, inside the swizzle
 * row with 64B / 128B swizzle; with 32B swizzle a fault, not modelled). The metadata layout
 * follows the mma.sp figures per warp; it is not verified on hardware.
 *
 * Numerics are tensor.c's: products of f16 / bf16 / tf32 / fp8 inputs are exact in double,
 * summed in k order from D (or 0) and rounded once to D's type; tf32 inputs keep their 19 high
 * bits; .s8/.u8 are exact and wrap to 32 bits (.satfinite clamps); .b1 is .and.popc. imm-scale
 * -1 negates A or B.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/internal.h"
#include "interp/ops/helpers.h"
#include "interp/tensor.h"

/* ====================================================================== decoding */

/* What the modifiers of a wgmma.mma_async say. */
struct wg_insn {
    unsigned n, k;     /* shape m64nNkK (K of the dense A for .sp) */
    unsigned td, ta, tb;
    bool satf, andpopc;
    bool sp;           /* wgmma.mma_async.sp: structured-sparse A */
    bool other;        /* a modifier not implemented */
};

static void wg_decode(const struct ir_func *f, const struct ir_insn *in, struct wg_insn *d)
{
    memset(d, 0, sizeof *d);
    d->sp = in->op == OP_WGMMA_MMA_ASYNC_SP;
    unsigned nt = 0;
    for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++) {
        const enum ir_mod md = (enum ir_mod)f->mods[in->mod + i];
        if (ir_mod_kind(md) == MK_TYPE) {
            const unsigned t = (unsigned)ir_mod_value(md);
            if (nt == 0)
                d->td = t;
            else if (nt == 1)
                d->ta = t;
            else if (nt == 2)
                d->tb = t;
            else
                d->other = true;
            nt++;
            continue;
        }
        if (md >= MOD_M64N8K8 && md <= MOD_M64N256K256) { /* (mods.def: N << 16 | K) */
            d->n = (unsigned)ir_mod_value(md) >> 16, d->k = ir_mod_value(md) & 0xffff;
            continue;
        }
        switch (md) {
        case MOD_SYNC: case MOD_ALIGNED: break;
        case MOD_SATFINITE: d->satf = true; break;
        case MOD_AND: d->andpopc = true; break;
        case MOD_POPC: break;
        default: d->other = true; break;
        }
    }
    if (nt != 3)
        d->other = true;
}

static bool wg_is_int(unsigned t)
{
    return t == T_S8 || t == T_U8;
}

/* Bits of an A / B element. */
static unsigned wg_bits(unsigned t)
{
    switch (t) {
    case T_F16: case T_BF16: return 16;
    case T_TF32: return 32;
    case T_B1: return 1;
    default: return 8;
    }
}

/* Is the form one of the ISA's (types, N for the type, .satfinite / .and.popc)? */
static bool wg_form_ok(const struct wg_insn *d)
{
    if (d->other || d->n < 8 || d->n > 256 || d->n % 8)
        return false;
    const unsigned ta = d->ta, tb = d->tb, td = d->td;
    const unsigned k1 = d->sp ? 2 : 1; /* .sp: A is 64 x 2K before compression */
    if (d->sp && ta == T_B1)
        return false;
    const bool fp8a = ta == T_E4M3 || ta == T_E5M2, fp8b = tb == T_E4M3 || tb == T_E5M2;
    if (ta == T_F16 || ta == T_BF16 || ta == T_TF32 || fp8a) {
        if (d->satf || d->andpopc)
            return false;
        if (ta == T_F16)
            return tb == T_F16 && d->k == 16 * k1 && (td == T_F16 || td == T_F32);
        if (ta == T_BF16)
            return tb == T_BF16 && d->k == 16 * k1 && td == T_F32;
        if (ta == T_TF32)
            return tb == T_TF32 && d->k == 8 * k1 && td == T_F32;
        return fp8b && d->k == 32 * k1 && (td == T_F16 || td == T_F32);
    }
    /* integer forms: N = 8, 16, 24 or a multiple of 16 */
    if (d->n > 24 && d->n % 16)
        return false;
    if (wg_is_int(ta))
        return wg_is_int(tb) && d->k == 32 * k1 && td == T_S32 && !d->andpopc;
    if (ta == T_B1)
        return tb == T_B1 && d->k == 256 && td == T_S32 && d->andpopc && !d->satf;
    return false;
}

/* Immediate operands after scale-d: imm-scale-a, imm-scale-b (floating-point forms), then
 * imm-trans-a (descriptor A) and imm-trans-b (.f16/.bf16 only). */
static unsigned wg_nimm(const struct wg_insn *d, bool areg)
{
    if (d->ta == T_F16 || d->ta == T_BF16)
        return areg ? 3 : 4;
    if (wg_is_int(d->ta) || d->ta == T_B1)
        return 0;
    return 2;
}

/* Is o a vector of n registers (dst) or registers / constants of file rf? */
static bool wg_vec_ok(const struct ir_func *f, const struct ir_opnd *o, unsigned n, unsigned rf,
                      bool dst)
{
    if (o->kind != OPK_VEC || o->n != n || o->first + n > f->nopnds)
        return false;
    for (unsigned k = 0; k < n; k++) {
        const struct ir_opnd *e = &f->opnds[o->first + k];
        const bool ok = dst ? e->kind == OPK_REG : e->kind == OPK_REG || e->kind == OPK_IMM;
        if (!ok || e->rf != rf || e->slot == IR_NOSLOT)
            return false;
    }
    return true;
}

/* A 64-bit register or constant (a descriptor). */
static bool wg_desc_ok(const struct ir_opnd *o)
{
    return (o->kind == OPK_REG || o->kind == OPK_IMM) && o->rf == RF_B64 && o->slot != IR_NOSLOT;
}

/* Registers of D: N / 2 (.f32 / .s32) or N / 4 (.f16 pairs). */
static unsigned wg_nd(const struct wg_insn *d)
{
    return d->td == T_F16 ? d->n / 4 : d->n / 2;
}

/* Index of scale-d: 3, or 5 after .sp's sp-meta and sp-sel. */
static unsigned wg_isd(const struct wg_insn *d)
{
    return d->sp ? 5 : 3;
}

/* The operands are of the form: d vector, A descriptor or 4 registers, B descriptor, (.sp:
 * sp-meta, a 32-bit register or constant, and sp-sel, a constant 0 or 1 for 16-bit and tf32
 * elements, 0 for 8-bit ones), scale-d (predicate or constant), the immediates of the type
 * with their allowed values. */
static bool wg_mma_ok(const struct ir_func *f, const struct ir_insn *in, const struct ir_opnd *O)
{
    struct wg_insn d;
    wg_decode(f, in, &d);
    const unsigned isd = wg_isd(&d);
    if (!wg_form_ok(&d) || in->nopnd < isd + 1)
        return false;
    const bool areg = O[1].kind == OPK_VEC;
    if (areg && d.ta == T_B1)
        return false; /* .b1 A comes from shared memory only */
    if (in->nopnd != isd + 1 + wg_nimm(&d, areg))
        return false;
    if (!wg_vec_ok(f, &O[0], wg_nd(&d), RF_B32, true))
        return false;
    if (areg ? !wg_vec_ok(f, &O[1], 4, RF_B32, false) : !wg_desc_ok(&O[1]))
        return false;
    if (!wg_desc_ok(&O[2]))
        return false;
    if (d.sp) {
        const bool meta_ok = O[3].kind == OPK_REG   ? O[3].rf == RF_B32
                             : O[3].kind == OPK_IMM ? O[3].rf != RF_PRED
                                                    : false;
        if (!meta_ok || O[3].slot == IR_NOSLOT)
            return false;
        const unsigned nsel = wg_bits(d.ta) == 8 ? 1 : 2;
        if (O[4].kind != OPK_IMM || O[4].imm.u >= nsel)
            return false;
    }
    if (!((O[isd].kind == OPK_REG && O[isd].rf == RF_PRED) || O[isd].kind == OPK_IMM) ||
        O[isd].slot == IR_NOSLOT)
        return false;
    for (unsigned i = isd + 1; i < in->nopnd; i++) {
        if (O[i].kind != OPK_IMM)
            return false;
        const int32_t v = (int32_t)O[i].imm.i; /* the builder keeps 32-bit immediates */
        if (i < isd + 3 ? v != 1 && v != -1 : v != 0 && v != 1)
            return false;
    }
    return true;
}

/* ====================================================================== per-CTA state */

enum { WG_MAXG = 8 }; /* warpgroups of a 1,024-thread CTA */

/* Warpgroup arrivals and the product's scratch matrices (allocated at a CTA slot's first
 * wgmma, kept for its next CTAs, freed with the slot). */
struct wg_cta {
    uint8_t arrived[WG_MAXG];     /* per warpgroup: bit q for warp 4g + q parked at pc */
    uint32_t pc[WG_MAXG];
    const struct xfunc *fn[WG_MAXG];
    double A[64 * 64];            /* row-major 64 x K (floating point and 8-bit) */
    double Ac[64 * 32];           /* .sp: the compressed A, 64 x K / 2 */
    double B[64 * 256];           /* row-major N x K (B transposed) */
    double D[64 * 256];
    uint64_t bA[64][4], bB[256][4]; /* .b1: a row of A, a column of B, 256 bits each */
};

/* See tensor.h. */
void wgmma_cta_reset(struct cta *c)
{
    if (c->wg)
        memset(c->wg->arrived, 0, sizeof c->wg->arrived);
}

/* See tensor.h. */
void wgmma_cta_free(struct cta *c)
{
    free(c->wg);
    c->wg = NULL;
}

/* See tensor.h. */
void wgmma_deadlock_msg(const struct warp *w, char *buf, size_t n)
{
    const struct wg_cta *s = w->cta->wg;
    const unsigned g = w->id / 4;
    snprintf(buf, n,
             "wgmma.mma_async can never complete: warps %02x of warpgroup %u (warps %u-%u) "
             "arrived, every other live warp is waiting or has exited",
             s ? s->arrived[g] : 0u, g, 4 * g, 4 * g + 3);
}

/* ====================================================================== the product */

/* A matrix descriptor's fields. */
struct wg_desc {
    uint32_t start, lbo, sbo, base;
    unsigned w; /* 16-byte chunks per swizzle row: 1 (none), 2, 4, 8 */
};

static uint32_t wg_chunk(const struct wg_desc *d, bool mnmajor, unsigned mn, unsigned kk);

static struct wg_desc wg_desc_decode(uint64_t v)
{
    struct wg_desc d;
    d.start = (uint32_t)(v & 0x3fff) << 4;
    d.lbo = (uint32_t)(v >> 16 & 0x3fff) << 4;
    d.sbo = (uint32_t)(v >> 32 & 0x3fff) << 4;
    d.base = (uint32_t)(v >> 49 & 7);
    static const unsigned wmode[4] = {1, 8, 4, 2};
    d.w = wmode[v >> 62 & 3];
    return d;
}

/* See tensor.h. */
uint32_t wgmma_chunk_addr(uint32_t start, uint32_t lbo, uint32_t sbo, uint32_t base, unsigned W,
                          bool mnmajor, unsigned mn, unsigned kk)
{
    const struct wg_desc d = {start, lbo, sbo, base, W};
    return wg_chunk(&d, mnmajor, mn, kk);
}

/* Shared-memory address of a chunk: K-major (row mn, chunk kc) or MN-major (chunk column
 * mn / 8, row k), then swizzled (see the file comment). */
static uint32_t wg_chunk(const struct wg_desc *d, bool mnmajor, unsigned mn, unsigned kk)
{
    const unsigned W = d->w;
    uint32_t a;
    if (!mnmajor) {
        a = W == 1 ? d->start + mn / 8 * d->sbo + kk * d->lbo + mn % 8 * 16
                   : d->start + mn / 8 * d->sbo + mn % 8 * 16 * W + kk * 16;
    } else {
        const unsigned c = mn / 8;
        a = W == 1 ? d->start + c * d->sbo + kk / 8 * d->lbo + kk % 8 * 16
                   : d->start + c / W * d->lbo + c % W * 16 + kk / 8 * d->sbo + kk % 8 * 16 * W;
    }
    if (W > 1)
        a ^= ((a >> 7) - d->base) % W << 4;
    return a;
}

/* Element bits -> value (floating-point and 8-bit integer types). */
static inline double wg_val(unsigned t, uint32_t b)
{
    switch (t) {
    case T_F16: return fpu_h2d((uint16_t)b, 0);
    case T_BF16: return fpu_h2d((uint16_t)b, 1);
    case T_TF32: return (double)fpu_u2f(b & 0xffffe000u);
    case T_E4M3: return fpu_unpack(b, FPU_E4M3);
    case T_E5M2: return fpu_unpack(b, FPU_E5M2);
    case T_S8: return (int8_t)(uint8_t)b;
    default: return (uint8_t)b;
    }
}

/* Read the 16-byte chunk at shared address a (reported to mr); NULL after a fault. */
static const uint8_t *wg_read(struct warp *w, uint32_t pc, uint32_t a, char which,
                              const struct tc_mem *mr)
{
    const struct cta *c = w->cta;
    if ((uint64_t)a + 16 > c->shared_size) {
        char msg[128];
        snprintf(msg, sizeof msg,
                 "wgmma.mma_async: matrix %c reaches shared bytes %u..%u, past the CTA's %u", which,
                 a, a + 15, c->shared_size);
        interp_fault(w, pc, 0, TRAP_OOB, a, 16, SP_SHARED, false, msg);
        return NULL;
    }
    const uint8_t *p = c->shared + a;
    if (mr)
        mr->fn(mr->ctx, 0, a, 16, false, SP_SHARED, p);
    return p;
}

/* Gather matrix X (A: rows = 64, B: rows = N; each row's K elements) from shared memory into
 * dense[row * K + k] (B is stored transposed by the caller's indexing) or, for .b1, bits. */
static int wg_gather(struct warp *w, uint32_t pc, uint64_t desc, bool mnmajor, unsigned rows,
                     unsigned K, unsigned t, bool neg, double *dense, uint64_t (*bits)[4],
                     char which, const struct tc_mem *mr)
{
    const struct wg_desc d = wg_desc_decode(desc);
    const unsigned eb = wg_bits(t);
    if (!mnmajor) {
        const unsigned per = 128 / eb, nch = K / per; /* elements per chunk, chunks per row */
        if (d.w > 1 && nch > d.w) {
            char msg[200];
            snprintf(msg, sizeof msg,
                     "wgmma.mma_async.sp: a K-major matrix %c of %u bytes along K in a %u-byte "
                     "swizzle row (not implemented: how its K chunks continue is not modelled)",
                     which, 16 * nch, 16 * d.w);
            interp_fault(w, pc, 0, TRAP_ILLEGAL, 0, 0, 0, false, msg);
            return -1;
        }
        for (unsigned r = 0; r < rows; r++)
            for (unsigned kc = 0; kc < nch; kc++) {
                const uint8_t *p = wg_read(w, pc, wg_chunk(&d, false, r, kc), which, mr);
                if (!p)
                    return -1;
                if (bits) {
                    memcpy(&bits[r][2 * kc], p, 16);
                    continue;
                }
                for (unsigned e = 0; e < per; e++) {
                    uint32_t b = 0;
                    memcpy(&b, p + e * eb / 8, eb / 8);
                    const double v = wg_val(t, b);
                    dense[r * K + kc * per + e] = neg ? -v : v;
                }
            }
        return 0;
    }
    for (unsigned c = 0; c < rows / 8; c++) /* 16-bit types: 8 elements per chunk */
        for (unsigned k = 0; k < K; k++) {
            const uint8_t *p = wg_read(w, pc, wg_chunk(&d, true, 8 * c, k), which, mr);
            if (!p)
                return -1;
            for (unsigned e = 0; e < 8; e++) {
                uint16_t b;
                memcpy(&b, p + 2 * e, 2);
                const double v = wg_val(t, b);
                dense[(8 * c + e) * K + k] = neg ? -v : v;
            }
        }
    return 0;
}

/* Register A fragment: (row, column) of element i of lane l, in warp q of the group. */
static inline void wg_arc(unsigned t, unsigned q, unsigned l, unsigned i, unsigned *r,
                          unsigned *c)
{
    const unsigned g = l >> 2, tq = l & 3;
    const unsigned bits = wg_bits(t);
    if (bits == 16) {
        *r = 16 * q + g + 8 * ((i >> 1) & 1);
        *c = 2 * tq + (i & 1) + 8 * (i >> 2);
    } else if (bits == 32) {
        *r = 16 * q + g + 8 * (i & 1);
        *c = tq + 4 * (i >> 1);
    } else {
        const unsigned P = 32 / bits;
        *r = 16 * q + g + 8 * ((i / P) & 1);
        *c = P * tq + i % P + 4 * P * (i / (2 * P));
    }
}

/* D fragment: (row, column) of element i of lane l in warp q. */
static inline unsigned wg_didx(unsigned N, unsigned q, unsigned l, unsigned i)
{
    const unsigned r = 16 * q + (l >> 2) + 8 * ((i >> 1) & 1);
    const unsigned c = 8 * (i >> 2) + 2 * (l & 3) + (i & 1);
    return r * N + c;
}

/* wgmma.mma_async.sp: place the compressed A (s->Ac, 64 x K / 2) into the dense s->A (64 x
 * K) by the metadata. A row's metadata is a string of 4-bit fields, one per chunk of 4
 * elements (2 for .tf32) along K: two 2-bit indices in the chunk, the low one for compressed
 * element 2n, the high one for 2n + 1 (.tf32: 0b0100 the chunk's first element, 0b1110 its
 * second). Of each group of four lanes (the rows g and g + 8 of the warp's 16), T = 2 lanes
 * (16-bit and .tf32: lanes 2 sel, 2 sel + 1) or T = 4 (8-bit, sel 0) hold the group's
 * metadata: lane j of them holds fields 4j .. 4j + 3 of row g in bits 0-15 and of row g + 8 in
 * bits 16-31 (the mma.sp m16n8k32 / m16n8k64 layouts, per warp of the warpgroup). An index
 * pair the ISA calls undefined is a fault. */
static int wg_sparse_expand(struct warp *w, uint32_t pc, struct warp *ws[4],
                            const struct wg_insn *d, const struct ir_opnd *O, struct wg_cta *s)
{
    const unsigned K = d->k, Kc = K / 2;
    const bool tf32 = wg_bits(d->ta) == 32;
    const unsigned nfield = tf32 ? K / 2 : K / 4, T = nfield / 4;
    const unsigned sel = (unsigned)O[4].imm.u;
    memset(s->A, 0, sizeof(double) * 64 * K);
    for (unsigned q = 0; q < 4; q++)
        for (unsigned g = 0; g < 8; g++)
            for (unsigned j = 0; j < T; j++) {
                const unsigned lane = 4 * g + (T == 2 ? 2 * sel : 0) + j;
                const uint32_t meta = (uint32_t)vm_get(ws[q], &O[3], lane);
                for (unsigned h = 0; h < 2; h++) {
                    const unsigned r = 16 * q + g + 8 * h;
                    for (unsigned f = 0; f < 4; f++) {
                        const unsigned n = 4 * j + f;
                        const unsigned v = meta >> (16 * h + 4 * f) & 0xf;
                        const unsigned i0 = v & 3, i1 = v >> 2;
                        const bool bad = tf32 ? v != 0x4 && v != 0xe : i0 == i1;
                        if (bad) {
                            char msg[220];
                            snprintf(msg, sizeof msg,
                                     "wgmma.mma_async.sp: sparsity metadata 0x%x for row %u, "
                                     "chunk %u (lane %u of warp %u) is not a valid index pair "
                                     "(undefined behaviour)",
                                     v, r, n, lane, ws[q]->id);
                            interp_fault(w, pc, 0, TRAP_ILLEGAL, 0, 0, 0, false, msg);
                            return -1;
                        }
                        if (tf32) {
                            s->A[r * K + 2 * n + (v == 0xe)] = s->Ac[r * Kc + n];
                        } else {
                            s->A[r * K + 4 * n + i0] = s->Ac[r * Kc + 2 * n];
                            s->A[r * K + 4 * n + i1] = s->Ac[r * Kc + 2 * n + 1];
                        }
                    }
                }
            }
    return 0;
}

/* The whole warpgroup's product, executed by its last warp to arrive (w); ws: the four
 * warps. */
static int wg_product(struct warp *w, uint32_t pc, struct warp *ws[4], const struct ir_insn *in,
                      const struct ir_opnd *O, struct wg_cta *s, const struct tc_mem *mr)
{
    struct wg_insn d;
    wg_decode(w->fn->f, in, &d);
    const unsigned N = d.n, K = d.k;
    const bool areg = O[1].kind == OPK_VEC;
    const struct warp *w0 = ws[0];
    const unsigned isd = wg_isd(&d);
    const bool negA = in->nopnd > isd + 1 && (int32_t)O[isd + 1].imm.i == -1;
    const bool negB = in->nopnd > isd + 2 && (int32_t)O[isd + 2].imm.i == -1;
    const bool transA = !areg && in->nopnd > isd + 3 && O[isd + 3].imm.i == 1;
    const bool transB = in->nopnd > isd + 3 && O[in->nopnd - 1].imm.i == 1;
    const bool scaled =
        (O[isd].kind == OPK_IMM ? O[isd].imm.i : (int64_t)vm_get(w0, &O[isd], 0)) != 0;
    const unsigned nd = wg_nd(&d);
    /* A as stored: 64 x K, or for .sp the compressed 64 x K / 2 */
    const unsigned Ka = d.sp ? K / 2 : K;
    double *const As = d.sp ? s->Ac : s->A;

    /* A */
    if (areg) {
        const unsigned ba = wg_bits(d.ta), na = 64 * Ka / 128; /* elements per lane */
        for (unsigned q = 0; q < 4; q++)
            for (unsigned l = 0; l < 32; l++)
                for (unsigned i = 0; i < na; i++) {
                    const struct ir_opnd e = vm_elem(ws[q]->fn, &O[1], i * ba / 32);
                    const uint32_t x = (uint32_t)vm_get(ws[q], &e, l);
                    const uint32_t b = ba == 32 ? x : x >> (i * ba % 32) & ((1u << ba) - 1);
                    unsigned r, c;
                    wg_arc(d.ta, q, l, i, &r, &c);
                    const double v = wg_val(d.ta, b);
                    As[r * Ka + c] = negA ? -v : v;
                }
    } else {
        const uint64_t da = vm_get(w0, &O[1], 0);
        if (wg_gather(w, pc, da, transA, 64, Ka, d.ta, negA, As, d.ta == T_B1 ? s->bA : NULL,
                      'A', mr))
            return -1;
    }
    if (d.sp && wg_sparse_expand(w, pc, ws, &d, O, s))
        return -1;
    /* B, as rows n of K elements (B^T) */
    const uint64_t db = vm_get(w0, &O[2], 0);
    if (wg_gather(w, pc, db, transB, N, K, d.tb, negB, s->B, d.tb == T_B1 ? s->bB : NULL, 'B',
                  mr))
        return -1;

    /* C = D, or 0 */
    for (unsigned q = 0; q < 4; q++)
        for (unsigned l = 0; l < 32; l++)
            for (unsigned k = 0; k < nd; k++) {
                const struct ir_opnd e = vm_elem(ws[q]->fn, &O[0], k);
                const uint32_t x = ws[q]->r32[e.slot][l].u;
                const unsigned per = d.td == T_F16 ? 2 : 1;
                for (unsigned h = 0; h < per; h++) {
                    const unsigned i = k * per + h;
                    double v = 0;
                    if (scaled)
                        v = d.td == T_F16   ? fpu_h2d((uint16_t)(x >> 16 * h), 0)
                            : d.td == T_F32 ? (double)fpu_u2f(x)
                                            : (double)(int32_t)x;
                    s->D[wg_didx(N, q, l, i)] = v;
                }
            }

    /* D += A * B: D[i][j] sums its products in k order */
    if (d.ta == T_B1) {
        for (unsigned i = 0; i < 64; i++)
            for (unsigned j = 0; j < N; j++) {
                int64_t acc = 0;
                for (unsigned x = 0; x < 4; x++)
                    acc += __builtin_popcountll(s->bA[i][x] & s->bB[j][x]);
                s->D[i * N + j] = (double)(int32_t)(uint32_t)((uint64_t)(int64_t)s->D[i * N + j] +
                                                              (uint64_t)acc);
            }
    } else {
        for (unsigned i = 0; i < 64; i++)
            for (unsigned j = 0; j < N; j++) {
                double acc = s->D[i * N + j];
                const double *a = &s->A[i * K], *b = &s->B[j * K];
                for (unsigned q = 0; q < K; q++)
                    acc += a[q] * b[q];
                s->D[i * N + j] = acc;
            }
    }

    /* scatter */
    for (unsigned q = 0; q < 4; q++)
        for (unsigned k = 0; k < nd; k++) {
            const struct ir_opnd e = vm_elem(ws[q]->fn, &O[0], k);
            for (unsigned l = 0; l < 32; l++) {
                uint32_t x;
                if (d.td == T_F16) {
                    x = (uint32_t)fpu_d2h(s->D[wg_didx(N, q, l, 2 * k)], FPU_RN, 0) |
                        (uint32_t)fpu_d2h(s->D[wg_didx(N, q, l, 2 * k + 1)], FPU_RN, 0) << 16;
                } else if (d.td == T_F32) {
                    const float f = (float)s->D[wg_didx(N, q, l, k)];
                    x = f != f ? 0x7fffffffu : fpu_f2u(f);
                } else {
                    double v = s->D[wg_didx(N, q, l, k)];
                    if (d.ta != T_B1) {
                        /* 8-bit sums are exact: wrap or clamp to 32 bits */
                        const int64_t t = (int64_t)v;
                        x = d.satf ? (uint32_t)(t > INT32_MAX   ? INT32_MAX
                                                : t < INT32_MIN ? INT32_MIN
                                                                : t)
                                   : (uint32_t)(uint64_t)t;
                    } else {
                        x = (uint32_t)(int32_t)v;
                    }
                }
                ws[q]->r32[e.slot][l].u = x;
            }
        }
    return 0;
}

/* ====================================================================== execution */

/* See tensor.h. */
int wgmma_mma(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
              const struct ir_opnd *O, const struct tc_mem *mr)
{
    struct cta *c = w->cta;
    char msg[200];
    if (M != 0xffffffffu) {
        snprintf(msg, sizeof msg,
                 "wgmma.mma_async: a .sync.aligned instruction executed by lanes %08x, not by "
                 "the whole warp",
                 M);
        interp_fault(w, pc, (unsigned)__builtin_ctz(~M), TRAP_ILLEGAL, 0, 0, 0, false, msg);
        return -1;
    }
    const unsigned g = w->id / 4, q = w->id % 4;
    if (4 * g + 3 >= c->nwarps) {
        snprintf(msg, sizeof msg,
                 "wgmma.mma_async: warp %u is in warpgroup %u, which the CTA's %u warps do not "
                 "complete",
                 w->id, g, c->nwarps);
        interp_fault(w, pc, 0, TRAP_ILLEGAL, 0, 0, 0, false, msg);
        return -1;
    }
    if (!c->wg) {
        c->wg = calloc(1, sizeof *c->wg);
        if (!c->wg) {
            interp_fault(w, pc, 0, TRAP_ILLEGAL, 0, 0, 0, false,
                         "wgmma.mma_async: out of host memory");
            return -1;
        }
    }
    struct wg_cta *s = c->wg;
    if (s->arrived[g] && (s->pc[g] != pc || s->fn[g] != w->fn)) {
        snprintf(msg, sizeof msg,
                 "wgmma.mma_async: the warps of warpgroup %u execute different instructions "
                 "(warps %02x wait at another wgmma.mma_async)",
                 g, s->arrived[g]);
        interp_fault(w, pc, 0, TRAP_ILLEGAL, 0, 0, 0, false, msg);
        return -1;
    }
    w->last_bar_id = CTA_BAR_WGMMA;
    w->last_bar_count = 128;
    w->last_bar_arrive = M;
    if ((s->arrived[g] | 1u << q) != 0xf) {
        s->arrived[g] |= (uint8_t)(1u << q);
        s->pc[g] = pc;
        s->fn[g] = w->fn;
        w->state = WS_PARKED;
        w->bar_id = CTA_BAR_WGMMA;
        w->bar_red = 0;
        w->bar_mask = M;
        return 1;
    }
    struct warp *ws[4];
    for (unsigned i = 0; i < 4; i++)
        ws[i] = &c->warps[4 * g + i];
    const int rc = wg_product(w, pc, ws, in, O, s, mr);
    s->arrived[g] = 0;
    for (unsigned i = 0; i < 4; i++)
        if (ws[i] != w && ws[i]->state == WS_PARKED && ws[i]->bar_id == CTA_BAR_WGMMA)
            ws[i]->state = WS_RUN;
    return rc;
}

/* See tensor.h. */
int wgmma_sync(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in)
{
    if (M == 0xffffffffu)
        return 0;
    char msg[160];
    snprintf(msg, sizeof msg,
             "%s: a .sync.aligned instruction executed by lanes %08x, not by the whole warp",
             in->op == OP_WGMMA_FENCE          ? "wgmma.fence"
             : in->op == OP_WGMMA_COMMIT_GROUP ? "wgmma.commit_group"
                                               : "wgmma.wait_group",
             M);
    interp_fault(w, pc, (unsigned)__builtin_ctz(~M), TRAP_ILLEGAL, 0, 0, 0, false, msg);
    return -1;
}

/* ====================================================================== selection */

/* See tensor.h. */
bool wgmma_supported(const struct ir_func *f, const struct ir_insn *in, const struct ir_opnd *O)
{
    switch (in->op) {
    case OP_WGMMA_MMA_ASYNC:
    case OP_WGMMA_MMA_ASYNC_SP: return wg_mma_ok(f, in, O);
    case OP_WGMMA_FENCE:
    case OP_WGMMA_COMMIT_GROUP: return in->nopnd == 0;
    case OP_WGMMA_WAIT_GROUP: return in->nopnd == 1 && O[0].kind == OPK_IMM;
    default: return false;
    }
}

/* See tensor.h. */
const char *wgmma_unsupported_why(const struct ir_func *f, const struct ir_insn *in)
{
    (void)f;
    switch (in->op) {
    case OP_WGMMA_MMA_ASYNC:
        return "unsupported (wgmma.mma_async: implemented are the dense m64nNk16 .f16/.bf16, "
               "m64nNk8 .tf32, m64nNk32 .e4m3/.e5m2 and .s8/.u8, m64nNk256 .b1 .and.popc forms "
               "with A from a descriptor or registers; not this form or operand list)";
    case OP_WGMMA_MMA_ASYNC_SP:
        return "unsupported (wgmma.mma_async.sp: implemented are the m64nNk32 .f16/.bf16, "
               "m64nNk16 .tf32, m64nNk64 .e4m3/.e5m2 and .s8/.u8 forms with A from a "
               "descriptor or registers, sp-meta a register, sp-sel a constant the type "
               "allows; not this form or operand list)";
    case OP_WGMMA_FENCE:
    case OP_WGMMA_COMMIT_GROUP:
    case OP_WGMMA_WAIT_GROUP: return "unsupported (wgmma: malformed operands)";
    default: return NULL;
    }
}

/* See tensor.h. */
bool wgmma_work(const struct ir_func *f, const struct ir_insn *in, struct tensor_work *o)
{
    if (in->op != OP_WGMMA_MMA_ASYNC && in->op != OP_WGMMA_MMA_ASYNC_SP)
        return false;
    struct wg_insn d;
    wg_decode(f, in, &d);
    o->macs = (uint64_t)16 * d.n * d.k >> d.sp;
    o->bytes = 0;
    o->cls = (uint8_t)tensor_work_class(d.ta, d.td, false);
    o->pair = 0;
    return true;
}
