/*
 * interp/tensor_kind.c — the sm_120a .kind forms of mma.sync.aligned: .kind::f8f6f4 and the
 * block-scaled .kind::mxf8f6f4 / .kind::mxf4 / .kind::mxf4nvf4 (.block_scale{.scale_vec::NX}),
 * and the 8-bit sm_100a / sm_120a ldmatrix / stmatrix forms (see the second part below). One
 * call per warp instruction (interp/ops/tensor.inc, rows MMA_KIND, LDMATRIX_B8, STMATRIX_B8);
 * interp/tensor.c keeps the other forms and the refusal message of what neither implements.
 *
 * Forms (PTX ISA 8.7+, "mma" and "Warp-level matrix instructions with block scaling"; the
 * combinations are those ptxas 13.0 accepts for sm_120a):
 *   mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.dtype.atype.btype.ctype d, a, b, c
 *     atype / btype any of .e4m3 .e5m2 .e3m2 .e2m3 .e2m1, dtype = ctype .f16 or .f32;
 *   mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale{.scale_vec::1X}
 *     .f32.atype.btype.f32.ue8m0 d, a, b, c, sa, {bida, tida}, sb, {bidb, tidb};
 *   mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale{.scale_vec::2X}
 *     .f32.e2m1.e2m1.f32.ue8m0 (same operands);
 *   mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::2X ... .ue8m0,
 *     .scale_vec::4X ... .ue4m3.
 * The modifiers may come in any order (CUTLASS writes .kind before the shape).
 *
 * Fragments. m16n8k32: A four, B two 32-bit registers of four 8-bit containers each, in the
 * layout of the .e4m3 m16n8k32 form (tensor.c's FR_A8 / FR_B8 with P = 4: A element i of lane
 * l at row groupID + 8 * ((i / 4) % 2), column 4 * threadID_in_group + i % 4 + 16 * (i / 8); B
 * element i at row 4 * threadID_in_group + i % 4 + 16 * (i / 4), column groupID). A container
 * holds an e4m3 / e5m2 in all 8 bits, an e2m3 / e3m2 in bits 0-5 and an e2m1 in bits 2-5 (the
 * other bits ignored). The ISA gives the bits only in figures; CUTLASS documents the e2m1
 * position (cute/atom/mma_traits_sm120.hpp, fp4_shift_A: "MMA F8F6F4 expects the four-bit data
 * to be in the middle of the eight-bit container", 0b0000ABCD -> 0b00ABCD00; FP6 unshifted),
 * as interp/tcgen05.c's decompressing tcgen05.cp does. m16n8k64 (.kind::mxf4 / mxf4nvf4): the
 * e2m1 packed eight per register, the low nibble first, in the .s4 m16n8k64 layout (P = 8:
 * A element i at row groupID + 8 * ((i / 8) % 2), column 8 * threadID_in_group + i % 8 +
 * 32 * (i / 16); B at row 8 * threadID_in_group + i % 8 + 32 * (i / 8), column groupID; the
 * same as CUTLASS's SM120 16x8x64 ALayout / BLayout). C / D: the m16n8 accumulator layout
 * (row groupID + 8 * (i / 2), column 2 * threadID_in_group + i % 2), .f16 two per register.
 *
 * Block scaling. D = (SA x A) * (SB x B) + C where row m of A is scaled, for K block j (K /
 * NX elements: 32 with 1X and 2X, 16 with 4X), by scale byte bida + j of register sa of lane
 * 4 * (m % 8) + m / 8 + 2 * tida, and column n of B by byte bidb + j of sb of lane
 * 4 * n + tidb. The selectors are immediates or .b16 registers (then the same in every lane);
 * bid is 0..3 with 1X, 0 or 2 with 2X, 0 with 4X, tida 0..1, tidb 0..3 (ptxas's ranges). The
 * ISA draws this only in figures; the lane formulas are CUTLASS's SM120 SFALayout /
 * SFBLayout (rows m and m + 8 in lanes 4 (m % 8) + {0, 1}, the pair {2, 3} the tid = 1 copy;
 * column n in the four lanes of quad n) and agree with a hardware probe published alongside an
 * MXFP8 kernel ("A: row m <- lane 4*(m % 8) + 2*tid + (m / 8), byte bid; B: col n <- lane 4*n
 * + tid, byte bid"); the byte of K block j (bid + j) is the reading that makes CUTLASS's
 * 16-bit (2X) and 32-bit (4X) scale registers, passed with bid = 0, hold their blocks in k
 * order, and the same rule as tcgen05's scale-factor ID. ue8m0: 2^(b - 127), 0xff NaN; ue4m3:
 * the e4m3 of the low 7 bits (0x7f NaN), bit 7 ignored (interp/tcgen05.c's reading).
 *
 * The sparse .kind forms (mma.sp::ordered_metadata m16n8k64 / m16n8k128) run in tensor_sp.c,
 * which takes their form (tensor_kind_sp_form), element values (tensor_kind_elem) and block
 * scales (tensor_kind_scales) from here.
 *
 * Numerics as tensor.c's: every product a * sa * b * sb is exact in double (at most 4 + 4
 * significant bits times powers of two or 4-bit scales), the products are summed in double in
 * k order starting from C and the sum is rounded once (round to nearest even) to f32 or f16.
 * That is exact whenever the sum fits in double's 53 bits, as for operands of similar
 * magnitude; real tensor cores add with a narrower internal datapath (and truncation) and
 * may differ in the last bits for wide exponent spreads or cancellation. A NaN or infinity
 * among the inputs propagates as IEEE arithmetic does (an f32 NaN result is 0x7fffffff).
 */
#include <math.h>
#include <string.h>

#include "interp/internal.h"
#include "interp/ops/helpers.h"
#include "interp/tensor.h"

/* What the modifiers of an mma .kind form say. */
struct tk_insn {
    unsigned kind;     /* TK_* (0: no .kind modifier) */
    bool bs;           /* .block_scale */
    unsigned sv;       /* .scale_vec::1X / 2X / 4X: 1, 2, 4 (0: not given) */
    unsigned m, n, k;  /* shape */
    unsigned t[5], nt; /* type modifiers in source order: d, a, b, c{, scale} */
    bool col[2];
    unsigned nlay;
    bool other;        /* a modifier not of these forms (.satfinite, .xor, .x4, ...) */
};

enum { TK_F8F6F4 = 1, TK_MXF8F6F4, TK_MXF4, TK_MXF4NVF4 };

/* Decode the modifier list of `in`. */
static void tk_decode(const struct ir_func *f, const struct ir_insn *in, struct tk_insn *d)
{
    memset(d, 0, sizeof *d);
    for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++) {
        const enum ir_mod md = (enum ir_mod)f->mods[in->mod + i];
        if (ir_mod_kind(md) == MK_TYPE) {
            if (d->nt < 5)
                d->t[d->nt] = (unsigned)ir_mod_value(md);
            d->nt++;
            continue;
        }
        switch (md) {
        case MOD_KIND_F8F6F4: d->kind = TK_F8F6F4; break;
        case MOD_KIND_MXF8F6F4: d->kind = TK_MXF8F6F4; break;
        case MOD_KIND_MXF4: d->kind = TK_MXF4; break;
        case MOD_KIND_MXF4NVF4: d->kind = TK_MXF4NVF4; break;
        case MOD_BLOCK_SCALE: d->bs = true; break;
        case MOD_SCALE_VEC_1X: d->sv = 1; break;
        case MOD_SCALE_VEC_2X: d->sv = 2; break;
        case MOD_SCALE_VEC_4X: d->sv = 4; break;
        case MOD_M16N8K32: d->m = 16, d->n = 8, d->k = 32; break;
        case MOD_M16N8K64: d->m = 16, d->n = 8, d->k = 64; break;
        case MOD_M16N8K128: d->m = 16, d->n = 8, d->k = 128; break;
        case MOD_ROW:
        case MOD_COL:
            if (d->nlay < 2)
                d->col[d->nlay] = md == MOD_COL;
            d->nlay++;
            break;
        case MOD_SYNC: case MOD_ALIGNED: break;
        default: d->other = true; break;
        }
    }
}

/* Is t one of the element types of .kind::f8f6f4 / mxf8f6f4? */
static bool tk_f8f6f4(unsigned t)
{
    return t == T_E4M3 || t == T_E5M2 || t == T_E3M2 || t == T_E2M3 || t == T_E2M1;
}

/* Is d a form this file implements (sp: the sparse mma.sp::ordered_metadata forms, whose
 * dense K is twice the dense form's)? Fills the scale vector size (1, 2, 4; 0 unscaled). */
static bool tk_form(const struct tk_insn *d, bool sp, unsigned *nsf)
{
    const unsigned k8 = sp ? 64 : 32, k4 = sp ? 128 : 64;
    if (!d->kind || d->other || d->nlay != 2 || d->col[0] || !d->col[1] || d->n != 8 ||
        d->m != 16)
        return false;
    const unsigned td = d->t[0], ta = d->t[1], tb = d->t[2], tc = d->t[3];
    switch (d->kind) {
    case TK_F8F6F4:
        *nsf = 0;
        return !d->bs && !d->sv && d->nt == 4 && d->k == k8 && tk_f8f6f4(ta) && tk_f8f6f4(tb) &&
               td == tc && (td == T_F16 || td == T_F32);
    case TK_MXF8F6F4:
        *nsf = 1;
        return d->bs && (d->sv == 0 || d->sv == 1) && d->nt == 5 && d->k == k8 &&
               tk_f8f6f4(ta) && tk_f8f6f4(tb) && td == T_F32 && tc == T_F32 &&
               d->t[4] == T_UE8M0;
    case TK_MXF4:
    case TK_MXF4NVF4: {
        const unsigned sv = d->sv ? d->sv : d->kind == TK_MXF4 ? 2 : 0;
        *nsf = sv;
        if (!d->bs || d->nt != 5 || d->k != k4 || ta != T_E2M1 || tb != T_E2M1 ||
            td != T_F32 || tc != T_F32)
            return false;
        if (d->kind == TK_MXF4)
            return sv == 2 && d->t[4] == T_UE8M0;
        return (sv == 2 && d->t[4] == T_UE8M0) || (sv == 4 && d->t[4] == T_UE4M3);
    }
    default:
        return false;
    }
}

/* Is operand o n source registers of file rf (a vector, or one register for n == 1; constants
 * allowed), or for a destination (dst) n registers? */
static bool tk_opnd_ok(const struct ir_func *f, const struct ir_opnd *o, unsigned n, unsigned rf,
                       bool dst, bool any16)
{
    const struct ir_opnd *e = o;
    unsigned cnt = 1;
    if (o->kind == OPK_VEC) {
        if (o->n != n || o->first + n > f->nopnds)
            return false;
        e = &f->opnds[o->first];
        cnt = n;
    } else if (n != 1) {
        return false;
    }
    for (unsigned k = 0; k < cnt; k++, e++) {
        const bool src = e->kind == OPK_IMM || e->kind == OPK_REG;
        const bool rfok = e->rf == rf || (any16 && (e->rf == RF_B16 || e->rf == RF_B32));
        if ((dst ? e->kind != OPK_REG : !src) || !rfok || e->slot == IR_NOSLOT)
            return false;
    }
    return true;
}

/* See tensor.h. */
bool tensor_kind_supported(const struct ir_func *f, const struct ir_insn *in,
                           const struct ir_opnd *O)
{
    struct tk_insn d;
    unsigned nsf;
    tk_decode(f, in, &d);
    if (in->op != OP_MMA || !tk_form(&d, false, &nsf) || in->nopnd != (nsf ? 8u : 4u))
        return false;
    const unsigned nd = d.t[0] == T_F16 ? 2 : 4;
    if (!tk_opnd_ok(f, &O[0], nd, RF_B32, true, false) ||
        !tk_opnd_ok(f, &O[1], 4, RF_B32, false, false) ||
        !tk_opnd_ok(f, &O[2], 2, RF_B32, false, false) ||
        !tk_opnd_ok(f, &O[3], nd, RF_B32, false, false))
        return false;
    return !nsf || tensor_kind_scale_opnds_ok(f, &O[4]);
}

/* See tensor.h. */
bool tensor_kind_scale_opnds_ok(const struct ir_func *f, const struct ir_opnd *S)
{
    return tk_opnd_ok(f, &S[0], 1, RF_B32, false, false) &&
           tk_opnd_ok(f, &S[1], 2, RF_B32, false, true) &&
           tk_opnd_ok(f, &S[2], 1, RF_B32, false, false) &&
           tk_opnd_ok(f, &S[3], 2, RF_B32, false, true);
}

/* See tensor.h. */
bool tensor_kind_sp_form(const struct ir_func *f, const struct ir_insn *in,
                         struct tensor_kind_sp *o)
{
    struct tk_insn d;
    unsigned nsf;
    tk_decode(f, in, &d);
    if (in->op != OP_MMA_SP_ORDERED || !tk_form(&d, true, &nsf))
        return false;
    o->k = d.k, o->nsf = nsf, o->td = d.t[0], o->tc = d.t[3];
    o->ue8 = nsf && d.t[4] == T_UE8M0;
    /* the 4-bit kinds' packed e2m1 nibbles; the 8-bit containers of the others */
    o->ta = d.k == 128 ? T_E2M1X2 : d.t[1];
    o->tb = d.k == 128 ? T_E2M1X2 : d.t[2];
    return true;
}

/* See tensor.h. */
bool tensor_kind_is_kind(const struct ir_func *f, const struct ir_insn *in)
{
    struct tk_insn d;
    tk_decode(f, in, &d);
    return d.kind != 0 || d.bs;
}

/* Value of the 8-bit container c of element type t (.kind::f8f6f4 / mxf8f6f4), or of a
 * packed e2m1 nibble (t == T_E2M1X2). */
static inline double tk_val(unsigned t, uint32_t c)
{
    switch (t) {
    case T_E4M3: return fpu_unpack(c & 0xff, FPU_E4M3);
    case T_E5M2: return fpu_unpack(c & 0xff, FPU_E5M2);
    case T_E2M3: return fpu_minifloat(c & 0x3f, 2, 3);
    case T_E3M2: return fpu_minifloat(c & 0x3f, 3, 2);
    case T_E2M1: return fpu_minifloat(c >> 2 & 0xf, 2, 1);
    default: return fpu_minifloat(c & 0xf, 2, 1);
    }
}

/* See tensor.h. */
double tensor_kind_elem(unsigned t, uint32_t c)
{
    return tk_val(t, c);
}

/* Value of a scale byte: ue8m0 2^(b - 127) (0xff NaN), ue4m3 the e4m3 of the low 7 bits. */
static inline double tk_scale(bool ue8, uint32_t b)
{
    b &= 0xff;
    if (ue8)
        return b == 0xff ? NAN : ldexp(1.0, (int)b - 127);
    return fpu_unpack(b & 0x7f, FPU_E4M3);
}

/* The selector pair {bid, tid} of operand o: the same value in every lane (a register
 * selector that differs is a fault), bid and tid in their ranges. */
static int tk_selectors(struct warp *w, uint32_t pc, const struct ir_opnd *o, unsigned nsf,
                        char which, unsigned *bid, unsigned *tid)
{
    unsigned v[2];
    for (unsigned k = 0; k < 2; k++) {
        const struct ir_opnd e = vm_elem(w->fn, o, k);
        const uint64_t x = vm_get(w, &e, 0);
        for (unsigned l = 1; l < 32; l++)
            if (vm_get(w, &e, l) != x) {
                char msg[160];
                snprintf(msg, sizeof msg,
                         "mma: %s-id-%c differs between lanes 0 (%llu) and %u (%llu); the "
                         "selectors of a block-scaled mma are warp-uniform",
                         k ? "thread" : "byte", which, (unsigned long long)x, l,
                         (unsigned long long)vm_get(w, &e, l));
                interp_fault(w, pc, l, TRAP_ILLEGAL, 0, 0, 0, false, msg);
                return -1;
            }
        v[k] = (unsigned)(x & 0xffff);
    }
    const unsigned tmax = which == 'a' ? 1 : 3;
    const bool bok = nsf == 1 ? v[0] <= 3 : nsf == 2 ? v[0] == 0 || v[0] == 2 : v[0] == 0;
    if (!bok || v[1] > tmax) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "mma: selectors {byte-id-%c %u, thread-id-%c %u} out of range (byte-id %s with "
                 ".scale_vec::%uX, thread-id 0..%u)",
                 which, v[0], which, v[1], nsf == 1 ? "0..3" : nsf == 2 ? "0 or 2" : "0", nsf,
                 tmax);
        interp_fault(w, pc, 0, TRAP_ILLEGAL, 0, 0, 0, false, msg);
        return -1;
    }
    *bid = v[0], *tid = v[1];
    return 0;
}

/* Bits of 32-bit register element k of fragment operand o in lane l. */
static inline uint32_t tk_reg(const struct warp *w, const struct ir_opnd *o, unsigned k,
                              unsigned l)
{
    const struct ir_opnd e = vm_elem(w->fn, o, k);
    return w->r32[e.slot][l].u;
}

/* See tensor.h. */
int tensor_kind_scales(struct warp *w, uint32_t pc, const struct ir_opnd *S, unsigned nsf,
                       bool ue8, double sa[16][4], double sb[8][4])
{
    unsigned bida, tida, bidb, tidb;
    if (tk_selectors(w, pc, &S[1], nsf, 'a', &bida, &tida) ||
        tk_selectors(w, pc, &S[3], nsf, 'b', &bidb, &tidb))
        return -1;
    const struct ir_opnd ra = vm_elem(w->fn, &S[0], 0), rb = vm_elem(w->fn, &S[2], 0);
    for (unsigned m = 0; m < 16; m++) {
        const uint32_t v = w->r32[ra.slot][4 * (m % 8) + m / 8 + 2 * tida].u;
        for (unsigned j = 0; j < nsf; j++)
            sa[m][j] = tk_scale(ue8, v >> 8 * (bida + j));
    }
    for (unsigned n = 0; n < 8; n++) {
        const uint32_t v = w->r32[rb.slot][4 * n + tidb].u;
        for (unsigned j = 0; j < nsf; j++)
            sb[n][j] = tk_scale(ue8, v >> 8 * (bidb + j));
    }
    return 0;
}

/* See tensor.h. */
int tensor_kind_mma(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                    const struct ir_opnd *O)
{
    if (tensor_whole_warp(w, pc, M, "mma"))
        return -1;
    struct tk_insn d;
    unsigned nsf = 0;
    tk_decode(w->fn->f, in, &d);
    if (!tk_form(&d, false, &nsf)) { /* selection lets only implemented forms through */
        interp_fault(w, pc, 0, TRAP_ILLEGAL, 0, 0, 0, false, "mma: .kind form not implemented");
        return -1;
    }
    const unsigned K = d.k, P = K == 64 ? 8 : 4, bits = 32 / P;
    const unsigned ta = K == 64 ? T_E2M1X2 : d.t[1], tb = K == 64 ? T_E2M1X2 : d.t[2];
    const bool f16 = d.t[0] == T_F16;
    double A[16][64], B[8][64], D[16][8]; /* B transposed: B[n][k] */
    /* A: four registers, B: two, P elements each (FR_A8 / FR_B8 of tensor.c) */
    for (unsigned l = 0; l < 32; l++) {
        const unsigned g = l >> 2, t = l & 3;
        for (unsigned r = 0; r < 4; r++) {
            const uint32_t v = tk_reg(w, &O[1], r, l);
            for (unsigned e = 0; e < P; e++)
                A[g + 8 * (r & 1)][P * t + e + 4 * P * (r >> 1)] =
                    tk_val(ta, v >> (e * bits) & ((1u << bits) - 1));
        }
        for (unsigned r = 0; r < 2; r++) {
            const uint32_t v = tk_reg(w, &O[2], r, l);
            for (unsigned e = 0; e < P; e++)
                B[g][P * t + e + 4 * P * r] = tk_val(tb, v >> (e * bits) & ((1u << bits) - 1));
        }
        for (unsigned i = 0; i < 4; i++) {
            const unsigned r = g + 8 * (i >> 1), c = 2 * t + (i & 1);
            if (f16) {
                const uint32_t v = tk_reg(w, &O[3], i >> 1, l);
                D[r][c] = fpu_h2d((uint16_t)(v >> 16 * (i & 1)), 0);
            } else {
                D[r][c] = (double)fpu_u2f(tk_reg(w, &O[3], i, l));
            }
        }
    }
    if (nsf) { /* scale row m of A and column n of B block by block (K / nsf elements) */
        double sa[16][4], sb[8][4];
        if (tensor_kind_scales(w, pc, &O[4], nsf, d.t[4] == T_UE8M0, sa, sb))
            return -1;
        const unsigned vs = K / nsf;
        for (unsigned m = 0; m < 16; m++)
            for (unsigned q = 0; q < K; q++)
                A[m][q] *= sa[m][q / vs];
        for (unsigned n = 0; n < 8; n++)
            for (unsigned q = 0; q < K; q++)
                B[n][q] *= sb[n][q / vs];
    }
    /* exact products summed in k order from C (see the file comment) */
    for (unsigned i = 0; i < 16; i++)
        for (unsigned j = 0; j < 8; j++) {
            double s = D[i][j];
            for (unsigned q = 0; q < K; q++)
                s += A[i][q] * B[j][q];
            D[i][j] = s;
        }
    uint32_t out[4][32];
    memset(out, 0, sizeof out);
    for (unsigned l = 0; l < 32; l++) {
        const unsigned g = l >> 2, t = l & 3;
        for (unsigned i = 0; i < 4; i++) {
            const double s = D[g + 8 * (i >> 1)][2 * t + (i & 1)];
            if (f16) {
                out[i >> 1][l] |= (uint32_t)fpu_d2h(s, FPU_RN, 0) << 16 * (i & 1);
            } else {
                const float x = (float)s;
                out[i][l] = x != x ? 0x7fffffffu : fpu_f2u(x);
            }
        }
    }
    for (unsigned k = 0; k < (f16 ? 2u : 4u); k++) {
        const struct ir_opnd e = vm_elem(w->fn, &O[0], k);
        for (unsigned l = 0; l < 32; l++)
            w->r32[e.slot][l].u = out[k][l];
    }
    return 0;
}

/* ====================================================================== ldmatrix / stmatrix .b8 */

/*
 * The 8-bit forms of ldmatrix / stmatrix (sm_100a / sm_120a, PTX ISA 8.6):
 *   ldmatrix.sync.aligned.m16n16.{x1,x2}.trans{.shared{::cta}}.b8 r, [p]
 *   ldmatrix.sync.aligned.m16n16.{x1,x2}.trans{.ss}.b8x16.{b6x16_p32,b4x16_p64} r, [p]
 *   ldmatrix.sync.aligned.m8n16.{x1,x2,x4}{.ss}.b8x16.{b6x16_p32,b4x16_p64} r, [p]
 *   stmatrix.sync.aligned.m16n8.{x1,x2,x4}.trans{.ss}.b8 [p], r
 * Every lane whose address the form uses gives one 16-byte row. A .b6x16_p32 / .b4x16_p64
 * row is 16 elements of 6 / 4 bits packed LSB first and 32 / 64 bits of padding; each element
 * lands in bits 0-5 / 0-3 of its byte, the other bits 0 (CUTLASS fp4_shift_A: "ld.matrix
 * b4x16_p64 places FP4 data at the first four bits in each eight-bit container"). With
 * g = groupID and t = threadID_in_group of the receiving lane:
 *   .m16n16 (.trans): matrix j is the 16 rows of lanes 16 j .. 16 j + 15; register 2 j + h,
 *     byte e = byte g + 8 h of the row of lane 16 j + 4 t + e (the transpose: row g + 8 h,
 *     columns 4 t .. 4 t + 3 of the .m16n8k32 8-bit A fragment);
 *   .m8n16: matrix j is the rows of lanes 8 j .. 8 j + 7; register j, byte e = byte
 *     4 t + e of the row of lane 8 j + g;
 *   stmatrix .m16n8 (.trans): register j, byte q of lane (g, t) goes to byte g + 8 (q / 2) of
 *     the row of lane 8 j + 2 t + q % 2 (the m16n8 accumulator layout, transposed).
 * The ISA draws these only in figures; the layouts are CUTLASS's (cute/atom/
 * copy_traits_sm100.hpp SM100_U8x8/U8x16_LDSM_T, SM100_SU4/SU6_DU8x16_x1/x2/x4_LDSM_N,
 * SM100_U8x4/U8x8/U8x16_STSM_T; for the LDSM_T atoms before the byte shuffle
 * cute/arch/copy_sm100.hpp applies after the instruction).
 */
struct tk_ldst {
    unsigned shape; /* 1616 (.m16n16), 816 (.m8n16), 168 (.m16n8) */
    unsigned num;   /* .x1 / .x2 / .x4 */
    bool trans;
    unsigned src;   /* bits of a source element: 8 (.b8), 6 (.b6x16_p32), 4 (.b4x16_p64) */
    bool b8x16;     /* .b8x16 destination format given */
    unsigned nt;
    bool other;
};

static void tk_ldst_decode(const struct ir_func *f, const struct ir_insn *in, struct tk_ldst *d)
{
    memset(d, 0, sizeof *d);
    for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++) {
        const enum ir_mod md = (enum ir_mod)f->mods[in->mod + i];
        if (ir_mod_kind(md) == MK_TYPE) {
            const unsigned t = (unsigned)ir_mod_value(md);
            d->nt++;
            if (t == T_B8)
                d->src = 8;
            else if (t == T_B8X16)
                d->b8x16 = true;
            else if (t == T_B6X16_P32)
                d->src = 6;
            else if (t == T_B4X16_P64)
                d->src = 4;
            else
                d->other = true;
            continue;
        }
        switch (md) {
        case MOD_M16N16: d->shape = 1616; break;
        case MOD_M8N16: d->shape = 816; break;
        case MOD_M16N8: d->shape = 168; break;
        case MOD_X1: d->num = 1; break;
        case MOD_X2: d->num = 2; break;
        case MOD_X4: d->num = 4; break;
        case MOD_TRANS: d->trans = true; break;
        case MOD_SYNC: case MOD_ALIGNED: case MOD_SHARED: case MOD_SHARED_CTA: break;
        default: d->other = true; break;
        }
    }
}

/* Is d one of the forms above? Fills the destination / source registers and address rows. */
static bool tk_ldst_form(const struct tk_ldst *d, bool st, unsigned *nregs, unsigned *nrows)
{
    if (d->other || !d->num || !d->src)
        return false;
    const bool plain = d->src == 8 && !d->b8x16 && d->nt == 1;
    const bool packed = d->src != 8 && d->b8x16 && d->nt == 2;
    if (st) {
        *nregs = d->num, *nrows = 8 * d->num;
        return d->shape == 168 && d->trans && plain;
    }
    if (d->shape == 1616) {
        *nregs = 2 * d->num, *nrows = 16 * d->num;
        return d->num <= 2 && d->trans && (plain || packed);
    }
    *nregs = d->num, *nrows = 8 * d->num;
    return d->shape == 816 && !d->trans && packed;
}

/* See tensor.h. */
bool tensor_kind_ldst_supported(const struct ir_func *f, const struct ir_insn *in,
                                const struct ir_opnd *O, bool st)
{
    struct tk_ldst d;
    unsigned nregs, nrows;
    if (in->op != (st ? OP_STMATRIX : OP_LDMATRIX) || in->nopnd != 2)
        return false;
    tk_ldst_decode(f, in, &d);
    if (!tk_ldst_form(&d, st, &nregs, &nrows))
        return false;
    const unsigned ia = st ? 0 : 1, iv = st ? 1 : 0;
    return O[ia].kind == OPK_ADDR && tk_opnd_ok(f, &O[iv], nregs, RF_B32, !st, false);
}

/* The 16-byte rows of lanes 0 .. nrows - 1 (host pointers; a fault names the lane). */
static int tk_rows(struct warp *w, uint32_t pc, const struct ir_opnd *a, unsigned nrows,
                   bool wr, const char *what, uint8_t *rows[32], uint64_t ads[32])
{
    const unsigned xs = vm_xs(w, a);
    for (unsigned l = 0; l < nrows; l++) {
        const uint64_t ad = vm_addr(w, a, l);
        ads[l] = ad;
        const int k = vm_xlate(w, xs, l, ad, 16, wr, &rows[l]);
        if (k) {
            char msg[96];
            snprintf(msg, sizeof msg, "%s: row address of lane %u", what, l);
            interp_fault(w, pc, l, (enum trap_kind)k, ad, 16, vm_xs_space(xs, ad), wr, msg);
            return -1;
        }
    }
    return 0;
}

/* The 16 elements of a source row as bytes (6- and 4-bit elements unpacked, LSB first). */
static void tk_unpack_row(const uint8_t *p, unsigned src, uint8_t out[16])
{
    if (src == 8) {
        memcpy(out, p, 16);
        return;
    }
    uint64_t lo = 0, hi = 0;
    memcpy(&lo, p, 8);
    memcpy(&hi, p + 8, 8);
    for (unsigned e = 0; e < 16; e++) {
        const unsigned b = e * src;
        const uint64_t v =
            b >= 64 ? hi >> (b - 64) : (lo >> b | (b + src > 64 ? hi << (64 - b) : 0));
        out[e] = (uint8_t)(v & ((1u << src) - 1));
    }
}

/* See tensor.h. */
int tensor_kind_ldmatrix(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                         const struct ir_opnd *O, const struct tc_mem *mr)
{
    if (tensor_whole_warp(w, pc, M, "ldmatrix"))
        return -1;
    struct tk_ldst d;
    unsigned nregs = 0, nrows = 0;
    tk_ldst_decode(w->fn->f, in, &d);
    tk_ldst_form(&d, false, &nregs, &nrows);
    uint8_t *rows[32], el[32][16];
    uint64_t ads[32];
    if (tk_rows(w, pc, &O[1], nrows, false, "ldmatrix", rows, ads))
        return -1;
    const unsigned xs = vm_xs(w, &O[1]);
    for (unsigned r = 0; r < nrows; r++) {
        tk_unpack_row(rows[r], d.src, el[r]);
        tc_mem_report(mr, r, ads[r], xs, 16, false, rows[r]);
    }
    for (unsigned k = 0; k < nregs; k++) {
        const struct ir_opnd e = vm_elem(w->fn, &O[0], k);
        for (unsigned l = 0; l < 32; l++) {
            const unsigned g = l >> 2, t = l & 3;
            uint32_t v = 0;
            for (unsigned b = 0; b < 4; b++) {
                const uint8_t x = d.shape == 1616
                                      ? el[16 * (k >> 1) + 4 * t + b][g + 8 * (k & 1)]
                                      : el[8 * k + g][4 * t + b];
                v |= (uint32_t)x << 8 * b;
            }
            w->r32[e.slot][l].u = v;
        }
    }
    return 0;
}

/* See tensor.h. */
int tensor_kind_stmatrix(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                         const struct ir_opnd *O, const struct tc_mem *mr)
{
    if (tensor_whole_warp(w, pc, M, "stmatrix"))
        return -1;
    struct tk_ldst d;
    unsigned nregs = 0, nrows = 0;
    tk_ldst_decode(w->fn->f, in, &d);
    tk_ldst_form(&d, true, &nregs, &nrows);
    uint8_t *rows[32], el[32][16];
    uint64_t ads[32];
    if (tk_rows(w, pc, &O[0], nrows, true, "stmatrix", rows, ads))
        return -1;
    for (unsigned j = 0; j < nregs; j++) {
        const struct ir_opnd e = vm_elem(w->fn, &O[1], j);
        for (unsigned l = 0; l < 32; l++) {
            const unsigned g = l >> 2, t = l & 3;
            const uint32_t v = w->r32[e.slot][l].u;
            for (unsigned q = 0; q < 4; q++)
                el[8 * j + 2 * t + (q & 1)][g + 8 * (q >> 1)] = (uint8_t)(v >> 8 * q);
        }
    }
    const unsigned xs = vm_xs(w, &O[0]);
    for (unsigned r = 0; r < nrows; r++) {
        memcpy(rows[r], el[r], 16);
        tc_mem_report(mr, r, ads[r], xs, 16, true, rows[r]);
    }
    return 0;
}
