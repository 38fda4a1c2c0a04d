/*
 * interp/tensor_sp.c — sparse warp-level matrix multiply: mma.sp.sync.aligned and
 * mma.sp::ordered_metadata.sync.aligned (PTX ISA 9.0, "Matrix multiply-accumulate operation
 * using mma.sp instruction with sparse matrix A"), the sm_80 / sm_89 forms (.row.col):
 *
 *   .f16 / .bf16  m16n8k16, m16n8k32 (.f16: f16 or f32 C/D; .bf16: f32)   2:4
 *   .tf32         m16n8k8, m16n8k16 (f32 C/D)                              1:2
 *   .s8 / .u8     m16n8k32, m16n8k64 (s32, .satfinite optional)           2:4
 *   .s4 / .u4     m16n8k64, m16n8k128 (s32, .satfinite optional)          4:8 in pairs
 *   .e4m3 / .e5m2 m16n8k64 (f32 C/D; sm_89)                               2:4
 *
 * and the sm_120a / sm_121a .kind forms (PTX ISA 8.7+, mma.sp::ordered_metadata only; ptxas
 * refuses them under plain mma.sp), D = (SA x A) * (SB x B) + C:
 *
 *   m16n8k64 .kind::f8f6f4 .dtype.atype.btype.ctype (f16 or f32 C/D)        2:4
 *   m16n8k64 .kind::mxf8f6f4 .block_scale{.scale_vec::1X} .f32...ue8m0      2:4
 *   m16n8k128 .kind::mxf4 .block_scale{.scale_vec::2X} .f32.e2m1.e2m1.f32.ue8m0   4:8 pairs
 *   m16n8k128 .kind::mxf4nvf4 .block_scale.scale_vec::2X ...ue8m0 / ::4X ...ue4m3  4:8 pairs
 *
 * operands d, a, b, c, e, f{, sa, {bid-a, tid-a}, sb, {bid-b, tid-b}} (CUTLASS
 * cute/arch/mma_sm120_sparse.hpp). atype / btype of the 8-bit kinds are any of .e4m3 .e5m2
 * .e3m2 .e2m3 .e2m1 in 8-bit containers (tensor_kind_elem: e2m1 in bits 2-5), metadata 2:4 as
 * the .e4m3 form; the 4-bit kinds hold packed e2m1, eight a register, metadata 4:8 in pairs
 * as .s4 (the ISA's sparse granularity). The fragments are those of the .e4m3 m16n8k64 and
 * .s4 m16n8k128 forms (the same as CUTLASS's SM120_SPARSE_16x8x64_TN / 16x8x128_TN_VS
 * ALayout / BLayout); ptxas takes only selector 0 (all four lanes of a group hold metadata).
 * Block scales (tensor_kind_scales): row m of A and column n of B scaled per K block of
 * K / scale_vec dense columns (64 with .kind::mxf8f6f4, CUTLASS's VS of its sparse 16x8x64
 * atom; 64 / 32 with the 4-bit kinds), a stored element by the block of its dense column, in
 * the lanes and bytes of the dense forms (tensor_kind.c). Not verified on hardware: the
 * metadata lanes are this file's reading of the ISA's metadata figures for every form, while
 * CUTLASS's ELayouts (its SM80 and SM120 sparse atoms, values stride 0 or 16) partition the
 * metadata by lane 4 g + a + 2 b = row g + 8 a, K half b; CUTLASS stores its metadata
 * reordered, so the two need not conflict, but a probe on sm_120 hardware would settle it.
 *
 * One call per warp instruction (interp/ops/tensor.inc). A holds the 16 x K/2 stored (non-zero)
 * elements of the 16 x K sparse matrix, in the fragment layout of a dense A of K/2 (the ISA's
 * sparse A figures give the same rows and columns: firstcol = 4 * threadID_in_group for the
 * 2:4 16-bit chunks, 8 * threadID_in_group for the 8-bit ones...), B is the dense K x 8, C/D
 * the usual m16n8 accumulators.
 *
 * Metadata (operand e, a .b32 register): a 4-bit code per chunk of a row (4
 * elements; .tf32: 2; .s4/.u4: 8 as four pairs), two 2-bit indices, the low one for the first
 * stored element (pair) of the chunk, the high one for the second. .tf32's 1:2 chunks have two
 * codes: 0b0100 (the chunk's first element) and 0b1110 (its second). Of each group of four
 * lanes (groupID g: rows g and g + 8), T lanes hold the group's codes, T = chunks per row / 4:
 * lane 4 g + T * f + j (f the sparsity selector, a constant 0 .. 4 / T - 1) holds the codes of
 * chunks 4 j .. 4 j + 3 of row g in bits 0-15 and of row g + 8 in bits 16-31 (the ISA's
 * metadata figures; wgmma.c's wg_sparse_expand reads the same layout per warp).
 *
 * mma.sp and mma.sp::ordered_metadata differ in the codes they allow: mma.sp takes any two
 * different indices (0b0000, 0b0101, 0b1010, 0b1111 are undefined), ::ordered_metadata only
 * the increasing pairs (0b0100, 0b1000, 0b1001, 0b1100, 0b1101, 0b1110). A code the ISA leaves
 * undefined is a fault naming the lane that holds it, the row and the chunk, never a guess.
 *
 * Numerics are tensor.c's: products of f16 / bf16 / tf32 / fp8 inputs are exact in double,
 * summed in k order (the dense K's, whatever the order of a chunk's two indices) starting
 * from C, rounded once to D's type (tensor_acc_bits); integers are exact (wrapping to 32 bits,
 * or clamped with .satfinite). Only the K/2 stored elements are multiplied: the pruned zeros
 * contribute nothing (no 0 * inf), as the tensor core selects B's rows by the metadata.
 */
#include <stdio.h>
#include <string.h>

#include "interp/internal.h"
#include "interp/ops/helpers.h"
#include "interp/tensor.h"

/* ====================================================================== forms */

/* A sparse mma form: what its modifiers say and the geometry derived from them. */
struct sp_form {
    unsigned k;              /* K of the dense A (16 x K) */
    unsigned td, ta, tb, tc; /* D, A, B, C element types */
    bool satf, ordered, other;
    unsigned bits;           /* bits of an A / B element */
    unsigned unit;           /* elements one 2-bit index places: 1, or 2 (.s4/.u4 pairs) */
    bool tf32;               /* 1:2 chunks of two elements, codes 0b0100 / 0b1110 */
    unsigned chunk;          /* elements of A per metadata code (4, 2 .tf32, 8 .s4/.u4) */
    unsigned T;              /* lanes of a group of four that hold its metadata (1, 2, 4) */
    unsigned na, nb;         /* elements per lane of A (stored) and B */
    unsigned ra, rb, rc, rd; /* registers of the A, B, C, D fragments */
    bool kind;               /* a sparse sm_120a .kind form (tensor_kind.c's elements) */
    unsigned nsf;            /* its scale factors per row of A / column of B (0: none) */
    bool ue8;                /* ue8m0 scales (else ue4m3) */
};

static unsigned sp_bits(unsigned t)
{
    switch (t) {
    case T_F16:
    case T_BF16:
        return 16;
    case T_TF32:
    case T_F32:
    case T_S32:
        return 32;
    case T_S8:
    case T_U8:
    case T_E4M3:
    case T_E5M2:
        return 8;
    case T_S4:
    case T_U4:
        return 4;
    default:
        return 0;
    }
}

/* Decode the modifiers of a sparse mma (source order: shape, .row, .col, .satfinite, types). */
static void sp_decode(const struct ir_func *f, const struct ir_insn *in, struct sp_form *fm,
                      unsigned *m, unsigned *n, unsigned t[4], unsigned *nt, bool lay[2],
                      unsigned *nlay)
{
    memset(fm, 0, sizeof *fm);
    *m = *n = *nt = *nlay = 0;
    fm->ordered = in->op == OP_MMA_SP_ORDERED;
    for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++) {
        const enum ir_mod md = (enum ir_mod)f->mods[in->mod + i];
        if (ir_mod_kind(md) == MK_TYPE) {
            if (*nt < 4)
                t[*nt] = (unsigned)ir_mod_value(md);
            (*nt)++;
            continue;
        }
        switch (md) {
        case MOD_M16N8K8:
            *m = 16, *n = 8, fm->k = 8;
            break;
        case MOD_M16N8K16:
            *m = 16, *n = 8, fm->k = 16;
            break;
        case MOD_M16N8K32:
            *m = 16, *n = 8, fm->k = 32;
            break;
        case MOD_M16N8K64:
            *m = 16, *n = 8, fm->k = 64;
            break;
        case MOD_M16N8K128:
            *m = 16, *n = 8, fm->k = 128;
            break;
        case MOD_ROW:
        case MOD_COL:
            if (*nlay < 2)
                lay[*nlay] = md == MOD_COL;
            (*nlay)++;
            break;
        case MOD_SATFINITE:
            fm->satf = true;
            break;
        case MOD_SYNC:
        case MOD_ALIGNED:
            break;
        default:
            fm->other = true;
            break; /* another shape… (the .kind forms: tensor_kind_sp_form) */
        }
    }
}

/* The lanes holding metadata and the fragment sizes of form fm (k, bits, chunk, types set). */
static void sp_geometry(struct sp_form *fm)
{
    fm->T = fm->k / fm->chunk / 4;
    fm->na = 16 * fm->k / 2 / 32, fm->nb = fm->k * 8 / 32;
    fm->ra = fm->na * fm->bits / 32, fm->rb = fm->nb * fm->bits / 32;
    fm->rc = fm->tc == T_F16 ? 2 : 4, fm->rd = fm->td == T_F16 ? 2 : 4;
}

/* The form of a sparse mma this file implements, or false. */
static bool sp_form(const struct ir_func *f, const struct ir_insn *in, struct sp_form *fm)
{
    unsigned m, n, t[4] = {0}, nt;
    bool lay[2] = {false, false};
    unsigned nlay;
    struct tensor_kind_sp ks;
    if (tensor_kind_sp_form(f, in, &ks)) {
        /* .kind::f8f6f4 / mxf8f6f4: 8-bit containers, 2:4 like .e4m3; .kind::mxf4 /
         * mxf4nvf4: packed e2m1, 4:8 in pairs like .s4 (PTX ISA sparse granularity) */
        memset(fm, 0, sizeof *fm);
        fm->ordered = fm->kind = true;
        fm->k = ks.k, fm->td = ks.td, fm->tc = ks.tc, fm->ta = ks.ta, fm->tb = ks.tb;
        fm->nsf = ks.nsf, fm->ue8 = ks.ue8;
        fm->bits = ks.k == 128 ? 4 : 8;
        fm->unit = fm->bits == 4 ? 2 : 1;
        fm->chunk = 4 * fm->unit;
        sp_geometry(fm);
        return true;
    }
    sp_decode(f, in, fm, &m, &n, t, &nt, lay, &nlay);
    if (fm->other || nt != 4 || nlay != 2 || lay[0] || !lay[1] || m != 16 || n != 8)
        return false;
    fm->td = t[0], fm->ta = t[1], fm->tb = t[2], fm->tc = t[3];
    const unsigned K = fm->k, ta = fm->ta, tb = fm->tb, td = fm->td, tc = fm->tc;
    bool ok;
    switch (ta) {
    case T_F16:
        ok = tb == T_F16 && (K == 16 || K == 32) && (td == T_F16 || td == T_F32) && tc == td &&
             !fm->satf;
        break;
    case T_BF16:
        ok = tb == T_BF16 && (K == 16 || K == 32) && td == T_F32 && tc == T_F32 && !fm->satf;
        break;
    case T_TF32:
        ok = tb == T_TF32 && (K == 8 || K == 16) && td == T_F32 && tc == T_F32 && !fm->satf;
        break;
    case T_E4M3:
    case T_E5M2:
        ok = (tb == T_E4M3 || tb == T_E5M2) && K == 64 && td == T_F32 && tc == T_F32 && !fm->satf;
        break;
    case T_S8:
    case T_U8:
        ok = (tb == T_S8 || tb == T_U8) && (K == 32 || K == 64) && td == T_S32 && tc == T_S32;
        break;
    case T_S4:
    case T_U4:
        ok = (tb == T_S4 || tb == T_U4) && (K == 64 || K == 128) && td == T_S32 && tc == T_S32;
        break;
    default:
        ok = false;
        break;
    }
    if (!ok)
        return false;
    fm->bits = sp_bits(ta);
    fm->tf32 = ta == T_TF32;
    fm->unit = fm->bits == 4 ? 2 : 1;
    fm->chunk = fm->tf32 ? 2 : 4 * fm->unit;
    sp_geometry(fm);
    return true;
}

/* See tensor.h. */
bool tensor_sp_supported(const struct ir_func *f, const struct ir_insn *in, const struct ir_opnd *O)
{
    struct sp_form fm;
    if ((in->op != OP_MMA_SP && in->op != OP_MMA_SP_ORDERED) || !sp_form(f, in, &fm) ||
        in->nopnd != (fm.nsf ? 10u : 6u))
        return false;
    if (fm.nsf && !tensor_kind_scale_opnds_ok(f, &O[6]))
        return false;
    if (!tensor_frag_ok(f, &O[0], fm.rd, RF_B32, true) ||
        !tensor_frag_ok(f, &O[1], fm.ra, RF_B32, false) ||
        !tensor_frag_ok(f, &O[2], fm.rb, RF_B32, false) ||
        !tensor_frag_ok(f, &O[3], fm.rc, RF_B32, false))
        return false;
    if (O[4].kind != OPK_REG || O[4].rf != RF_B32 || O[4].slot == IR_NOSLOT)
        return false; /* the metadata: a .b32 register (ptxas takes no constant) */
    return O[5].kind == OPK_IMM && O[5].imm.u < 4 / fm.T;
}

/* See tensor.h. */
bool tensor_sp_supported_form(const struct ir_func *f, const struct ir_insn *in)
{
    struct sp_form fm;
    return (in->op == OP_MMA_SP || in->op == OP_MMA_SP_ORDERED) && sp_form(f, in, &fm);
}

/* See tensor.h. */
const char *tensor_sp_unsupported_why(const struct ir_func *f, const struct ir_insn *in)
{
    struct sp_form fm;
    if (in->op != OP_MMA_SP && in->op != OP_MMA_SP_ORDERED)
        return NULL;
    const struct ir_opnd *sel = in->nopnd >= 6 ? ir_opnd(f, in, 5) : NULL;
    if (sp_form(f, in, &fm) && sel && sel->kind == OPK_IMM && sel->imm.u >= 4 / fm.T) {
        switch (fm.T) {
        case 1:
            return "unsupported (mma.sp: the sparsity selector of this shape and type is "
                   "0, 1, 2 or 3; other values are undefined)";
        case 2:
            return "unsupported (mma.sp: the sparsity selector of this shape and type is 0 "
                   "(threads T0, T1) or 1 (T2, T3); other values are undefined)";
        default:
            return "unsupported (mma.sp: the sparsity selector of this shape and type is "
                   "0 (all four threads of a group hold metadata); other values are "
                   "undefined)";
        }
    }
    return "unsupported (mma.sp: implemented are the .row.col forms m16n8k16/m16n8k32 .f16 "
           "(f16 or f32 C/D) and .bf16, m16n8k8/m16n8k16 .tf32, m16n8k32/m16n8k64 .s8/.u8, "
           "m16n8k64/m16n8k128 .s4/.u4, m16n8k64 .e4m3/.e5m2 with f32 C/D, metadata a .b32 "
           "register and a constant sparsity selector, and the sm_120a "
           "mma.sp::ordered_metadata forms m16n8k64 .kind::f8f6f4 (f16 or f32 C/D), m16n8k64 "
           ".kind::mxf8f6f4 .block_scale.scale_vec::1X .ue8m0, m16n8k128 .kind::mxf4 "
           ".block_scale.scale_vec::2X .ue8m0 and .kind::mxf4nvf4 .block_scale "
           ".scale_vec::2X .ue8m0 / ::4X .ue4m3 (f32 C/D, selector 0))";
}

/* ====================================================================== execution */

/* Raw bits of element i (of `bits` bits, packed low to high in 32-bit registers) of fragment
 * operand o in lane l. */
static inline uint32_t sp_get(const struct warp *w, const struct ir_opnd *o, unsigned bits,
                              unsigned i, unsigned l)
{
    const unsigned per = 32 / bits;
    const struct ir_opnd e = vm_elem(w->fn, o, i / per);
    const uint32_t v = w->r32[e.slot][l].u >> (i % per * bits);
    return bits == 32 ? v : v & ((1u << bits) - 1);
}

/* Row and column of element i of lane l (g = groupID, t = threadID_in_group) in the stored
 * 16 x K/2 A (the dense mma layouts of K/2) and in the K x 8 B. P: elements per register of
 * the 8- and 4-bit layouts. */
static inline void sp_rc_a(unsigned bits, unsigned l, unsigned i, unsigned *r, unsigned *c)
{
    const unsigned g = l >> 2, t = l & 3, P = 32 / bits;
    switch (bits) {
    case 16:
        *r = g + 8 * ((i >> 1) & 1), *c = 2 * t + (i & 1) + 8 * (i >> 2);
        break;
    case 32:
        *r = g + 8 * (i & 1), *c = t + 4 * (i >> 1);
        break;
    default:
        *r = g + 8 * ((i / P) & 1), *c = P * t + i % P + 4 * P * (i / (2 * P));
        break;
    }
}
static inline void sp_rc_b(unsigned bits, unsigned l, unsigned i, unsigned *r, unsigned *c)
{
    const unsigned g = l >> 2, t = l & 3, P = 32 / bits;
    *c = g;
    switch (bits) {
    case 16:
        *r = 2 * t + (i & 1) + 8 * (i >> 1);
        break;
    case 32:
        *r = t + 4 * i;
        break;
    default:
        *r = P * t + i % P + 4 * P * (i / P);
        break;
    }
}

/* Largest operands: the stored A 16 x 64 (.s4 m16n8k128), B 128 x 8. */
enum { SP_MAXKC = 64, SP_MAXK = 128 };

/* The product of one warp instruction: the stored A with the dense column of each stored
 * element (k order within each row), B, C and D. */
struct sp_op {
    double A[16][SP_MAXKC];    /* stored elements, row by row in increasing dense column */
    unsigned kc[16][SP_MAXKC]; /* their dense columns */
    double B[SP_MAXK][8];
    double C[16][8];
};

/* Read the metadata of every row into op->kc (placing the stored elements op->A, read in the
 * fragment's stored order, at their dense columns, each row in increasing column order). A
 * code the ISA leaves undefined is a fault at the lane that holds it. */
static int sp_meta(struct warp *w, uint32_t pc, const struct ir_opnd *O, const struct sp_form *fm,
                   const double As[16][SP_MAXKC], struct sp_op *op)
{
    const unsigned sel = (unsigned)O[5].imm.u, T = fm->T;
    const unsigned stored = fm->tf32 ? 1 : 2 * fm->unit; /* stored elements per chunk */
    for (unsigned g = 0; g < 8; g++)
        for (unsigned j = 0; j < T; j++) {
            const unsigned lane = 4 * g + T * sel + j;
            const uint32_t meta = (uint32_t)vm_get(w, &O[4], lane);
            for (unsigned h = 0; h < 2; h++) {
                const unsigned r = g + 8 * h;
                for (unsigned q = 0; q < 4; q++) {
                    const unsigned ch = 4 * j + q, code = meta >> (16 * h + 4 * q) & 0xf;
                    const unsigned i0 = code & 3, i1 = code >> 2, s0 = ch * stored;
                    const char *bad = NULL;
                    if (fm->tf32)
                        bad = code == 0x4 || code == 0xe ? NULL
                                                         : "is not 0b0100 or 0b1110, the two "
                                                           ".tf32 codes";
                    else if (i0 == i1)
                        bad = "has two equal indices";
                    else if (fm->ordered && i0 > i1)
                        bad = "is not an increasing index pair, as ::ordered_metadata requires";
                    if (bad) {
                        char msg[300];
                        snprintf(msg, sizeof msg,
                                 "%s: sparsity metadata 0x%x (bits %u..%u of lane %u's "
                                 "metadata, selector %u) for row %u, columns %u..%u of A %s "
                                 "(undefined behaviour)",
                                 fm->ordered ? "mma.sp::ordered_metadata" : "mma.sp", code,
                                 16 * h + 4 * q, 16 * h + 4 * q + 3, lane, sel, r, ch * fm->chunk,
                                 ch * fm->chunk + fm->chunk - 1, bad);
                        interp_fault(w, pc, lane, TRAP_ILLEGAL, 0, 0, 0, false, msg);
                        return -1;
                    }
                    if (fm->tf32) {
                        op->A[r][s0] = As[r][s0];
                        op->kc[r][s0] = 2 * ch + (code == 0xe);
                        continue;
                    }
                    /* the unit of the lower index first: k order */
                    const unsigned lo = i0 < i1 ? 0 : 1, ilo = i0 < i1 ? i0 : i1,
                                   ihi = i0 < i1 ? i1 : i0;
                    for (unsigned e = 0; e < fm->unit; e++) {
                        const unsigned d0 = s0 + e, d1 = s0 + fm->unit + e;
                        op->A[r][d0] = As[r][s0 + lo * fm->unit + e];
                        op->kc[r][d0] = ch * fm->chunk + ilo * fm->unit + e;
                        op->A[r][d1] = As[r][s0 + (1 - lo) * fm->unit + e];
                        op->kc[r][d1] = ch * fm->chunk + ihi * fm->unit + e;
                    }
                }
            }
        }
    return 0;
}

/* See tensor.h. */
int tensor_mma_sp(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                  const struct ir_opnd *O)
{
    struct sp_form fm;
    sp_form(w->fn->f, in, &fm);
    if (tensor_whole_warp(w, pc, M, fm.ordered ? "mma.sp::ordered_metadata" : "mma.sp"))
        return -1;
    const unsigned K = fm.k, Kc = K / 2;
    struct sp_op op;
    double As[16][SP_MAXKC];
    for (unsigned l = 0; l < 32; l++) {
        unsigned r, c;
        for (unsigned i = 0; i < fm.na; i++) {
            sp_rc_a(fm.bits, l, i, &r, &c);
            const uint32_t x = sp_get(w, &O[1], fm.bits, i, l);
            As[r][c] = fm.kind ? tensor_kind_elem(fm.ta, x) : tensor_elem_value(fm.ta, x);
        }
        for (unsigned i = 0; i < fm.nb; i++) {
            sp_rc_b(fm.bits, l, i, &r, &c);
            const uint32_t x = sp_get(w, &O[2], fm.bits, i, l);
            op.B[r][c] = fm.kind ? tensor_kind_elem(fm.tb, x) : tensor_elem_value(fm.tb, x);
        }
        const unsigned cb = fm.tc == T_F16 ? 16 : 32;
        for (unsigned i = 0; i < 4; i++) /* C/D m16n8: row g + 8 (i / 2), column 2 t + i % 2 */
            op.C[(l >> 2) + 8 * (i >> 1)][2 * (l & 3) + (i & 1)] =
                tensor_elem_value(fm.tc, sp_get(w, &O[3], cb, i, l));
    }
    if (sp_meta(w, pc, O, &fm, (const double(*)[SP_MAXKC])As, &op))
        return -1;
    if (fm.nsf) { /* block scales (tensor_kind.c): dense K block j = k / (K / nsf) */
        double sa[16][4], sb[8][4];
        if (tensor_kind_scales(w, pc, &O[6], fm.nsf, fm.ue8, sa, sb))
            return -1;
        const unsigned vs = K / fm.nsf;
        for (unsigned r = 0; r < 16; r++)
            for (unsigned p = 0; p < Kc; p++)
                op.A[r][p] *= sa[r][op.kc[r][p] / vs];
        for (unsigned k = 0; k < K; k++)
            for (unsigned j = 0; j < 8; j++)
                op.B[k][j] *= sb[j][k / vs];
    }
    /* D = C + the stored products in k order; every sum is exact in double for the integer
     * forms (|products| <= 2^14, at most 64 of them, |C| < 2^31) */
    double D[16][8];
    for (unsigned r = 0; r < 16; r++) {
        double acc[8];
        memcpy(acc, op.C[r], sizeof acc);
        for (unsigned p = 0; p < Kc; p++) {
            const double a = op.A[r][p];
            const double *b = op.B[op.kc[r][p]];
            for (unsigned j = 0; j < 8; j++)
                acc[j] += a * b[j];
        }
        memcpy(D[r], acc, sizeof acc);
    }
    const unsigned bd = fm.td == T_F16 ? 16 : 32;
    uint32_t out[4][32];
    memset(out, 0, sizeof out);
    for (unsigned l = 0; l < 32; l++)
        for (unsigned i = 0; i < 4; i++) {
            const double s = D[(l >> 2) + 8 * (i >> 1)][2 * (l & 3) + (i & 1)];
            uint32_t x;
            if (fm.td == T_S32) {
                int64_t v = (int64_t)s;
                if (fm.satf)
                    v = v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v;
                x = (uint32_t)(uint64_t)v;
            } else {
                x = (uint32_t)tensor_acc_bits(fm.td, s);
            }
            if (bd == 16)
                out[i >> 1][l] |= (x & 0xffffu) << (16 * (i & 1));
            else
                out[i][l] = x;
        }
    for (unsigned k = 0; k < fm.rd; k++) {
        const struct ir_opnd e = vm_elem(w->fn, &O[0], k);
        for (unsigned l = 0; l < 32; l++)
            w->r32[e.slot][l].u = out[k][l];
    }
    return 0;
}
