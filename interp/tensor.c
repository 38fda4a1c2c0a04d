/*
 * interp/tensor.c — warp-level matrix instructions: mma.sync.aligned, wmma.load/store/mma,
 * ldmatrix, stmatrix, movmatrix. One call per warp instruction (interp/ops/tensor.inc).
 *
 * A matrix instruction gathers its operands from the 32 lanes' registers into dense row-major
 * matrices, computes D = A * B + C once, and scatters D back. The fragment layouts of mma,
 * ldmatrix, stmatrix and movmatrix are the PTX ISA's ("Matrix Fragments for mma.mMnNkK",
 * groupID = laneid >> 2, threadID_in_group = laneid % 4), see tc_rc. The wmma fragment layout
 * is unspecified by the ISA (only load, mma and store may interpret it): here element e of
 * lane l holds matrix element (e * 32 + l) mod (rows * cols) in row-major order, so a fragment
 * with more elements than the matrix has per lane (.f16 a/b) holds every element 2 or 4 times.
 * The sub-byte (.s4 / .u4 m8n8k32) and .b1 (m8n8k128) wmma matrices are packed LSB first in
 * memory (element e of a row at bit e * bits of the row, the stride in elements), as <mma.h>'s
 * experimental precisions store them.
 *
 * Numerics: products of f16 / bf16 / tf32 inputs are exact in double; they are summed in
 * double in k order starting from C, and the sum is rounded once (round to nearest even) to
 * the accumulator type. f64 is an fma chain in k order starting from C. Integer forms are exact
 * (wrapping to 32 bits, or clamped with .satfinite). tf32 inputs use their 19 high bits (the
 * low 13 bits of the .b32 register are ignored, as tensor cores do).
 */
#include <math.h>
#include <string.h>

#include "interp/internal.h"
#include "interp/ops/helpers.h"
#include "interp/engine.h"
#include "interp/tensor.h"

/* ====================================================================== decoding */

/* What the modifiers of a matrix instruction say. */
struct tc_insn {
    unsigned m, n, k;    /* shape (ldmatrix / stmatrix / movmatrix .m8n8: 8, 8, 0) */
    unsigned t[4], nt;   /* type modifiers in source order */
    bool col[2];         /* .row (false) / .col (true) in source order */
    unsigned nlay;
    unsigned num;        /* .x1 / .x2 / .x4 (0: none) */
    bool trans, satf;
    char which;          /* wmma.load .a/.b/.c, wmma.store .d (0: none) */
    char bop;            /* .b1 mma: 'x' (.xor) or 'a' (.and), with .popc */
    bool popc;
    bool other;          /* a modifier this file does not implement (.kind, .block_scale, …) */
};

/* Decode the modifier list of `in` (source order). */
static void tc_decode(const struct ir_func *f, const struct ir_insn *in, struct tc_insn *d)
{
    memset(d, 0, sizeof *d);
    for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++) {
        const enum ir_mod md = (enum ir_mod)f->mods[in->mod + i];
        if (ir_mod_kind(md) == MK_TYPE) {
            if (d->nt < 4)
                d->t[d->nt] = (unsigned)ir_mod_value(md);
            d->nt++;
            continue;
        }
        switch (md) {
        case MOD_M8N8K4: d->m = 8, d->n = 8, d->k = 4; break;
        case MOD_M8N8K16: d->m = 8, d->n = 8, d->k = 16; break;
        case MOD_M16N8K4: d->m = 16, d->n = 8, d->k = 4; break;
        case MOD_M16N8K8: d->m = 16, d->n = 8, d->k = 8; break;
        case MOD_M16N8K16: d->m = 16, d->n = 8, d->k = 16; break;
        case MOD_M16N8K32: d->m = 16, d->n = 8, d->k = 32; break;
        case MOD_M8N8K32: d->m = 8, d->n = 8, d->k = 32; break;
        case MOD_M16N8K64: d->m = 16, d->n = 8, d->k = 64; break;
        case MOD_M8N8K128: d->m = 8, d->n = 8, d->k = 128; break;
        case MOD_M16N8K128: d->m = 16, d->n = 8, d->k = 128; break;
        case MOD_M16N8K256: d->m = 16, d->n = 8, d->k = 256; break;
        case MOD_M16N16K16: d->m = 16, d->n = 16, d->k = 16; break;
        case MOD_M32N8K16: d->m = 32, d->n = 8, d->k = 16; break;
        case MOD_M8N32K16: d->m = 8, d->n = 32, d->k = 16; break;
        case MOD_M16N16K8: d->m = 16, d->n = 16, d->k = 8; break;
        case MOD_M8N8: d->m = 8, d->n = 8, d->k = 0; break;
        case MOD_ROW:
        case MOD_COL:
            if (d->nlay < 2)
                d->col[d->nlay] = md == MOD_COL;
            d->nlay++;
            break;
        case MOD_TRANS: d->trans = true; break;
        case MOD_X1: d->num = 1; break;
        case MOD_X2: d->num = 2; break;
        case MOD_X4: d->num = 4; break;
        case MOD_SATFINITE: d->satf = true; break;
        case MOD_A: d->which = 'a'; break;
        case MOD_B: d->which = 'b'; break;
        case MOD_C: d->which = 'c'; break;
        case MOD_D: d->which = 'd'; break;
        case MOD_XOR: d->bop = 'x'; break;
        case MOD_AND: d->bop = 'a'; break;
        case MOD_POPC: d->popc = true; break;
        case MOD_SYNC: case MOD_ALIGNED: case MOD_SHARED: case MOD_SHARED_CTA: case MOD_GLOBAL:
        case MOD_RN:
            break;
        default:
            d->other = true;
            break;
        }
    }
}

/* Bits of one element of type t in a fragment register (0: not a matrix element type). */
static unsigned tc_bits(unsigned t)
{
    switch (t) {
    case T_F16: case T_BF16: case T_B16: return 16;
    case T_TF32: case T_F32: case T_S32: return 32;
    case T_F64: return 64;
    case T_S8: case T_U8: case T_E4M3: case T_E5M2: return 8;
    case T_S4: case T_U4: return 4;
    case T_B1: return 1;
    default: return 0;
    }
}

/* ====================================================================== fragments */

/* Fragment layouts (PTX ISA, "Matrix Fragments for mma…"): which (row, col) of its matrix
 * element i of lane l holds. g = groupID, t = threadID_in_group. */
enum tc_frag {
    FR_A16,   /* A, 16-bit elements, m16 (k8, k16) */
    FR_B16,   /* B, 16-bit elements (k8, k16) */
    FR_A32,   /* A, tf32 / f64 elements, m16 (k4, k8, k16) */
    FR_B32,   /* B, tf32 / f64 elements (and m8n8k4 .f64) */
    FR_A8,    /* A, P = 32 / bits elements of 8, 4 or 1 bits per register, m16 */
    FR_B8,    /* B, P elements per register (m16n8 and m8n8 shapes) */
    FR_A8M8,  /* A, P elements per register, m8n8 */
    FR_A64M8, /* A, m8n8k4 .f64 */
    FR_C16,   /* C / D, m16n8 */
    FR_C8,    /* C / D, m8n8 */
};

/* P: elements per 32-bit register of the FR_A8 / FR_B8 / FR_A8M8 layouts (4 for .s8/.u8/fp8,
 * 8 for .s4/.u4, 32 for .b1: the ISA's "threadID_in_group * P + (i & (P - 1))" pattern, the
 * second register pair of A and the second register of B P * 4 columns / rows further). */
static inline void tc_rc(unsigned fr, unsigned P, unsigned l, unsigned i, unsigned *r,
                         unsigned *c)
{
    const unsigned g = l >> 2, t = l & 3;
    switch (fr) {
    case FR_A16: *r = g + 8 * ((i >> 1) & 1); *c = 2 * t + (i & 1) + 8 * (i >> 2); break;
    case FR_B16: *r = 2 * t + (i & 1) + 8 * (i >> 1); *c = g; break;
    case FR_A32: *r = g + 8 * (i & 1); *c = t + 4 * (i >> 1); break;
    case FR_B32: *r = t + 4 * i; *c = g; break;
    case FR_A8: *r = g + 8 * ((i / P) & 1); *c = P * t + i % P + 4 * P * (i / (2 * P)); break;
    case FR_B8: *r = P * t + i % P + 4 * P * (i / P); *c = g; break;
    case FR_A8M8: *r = g; *c = P * t + i; break;
    case FR_A64M8: *r = g; *c = t; break;
    case FR_C16: *r = g + 8 * (i >> 1); *c = 2 * t + (i & 1); break;
    default: *r = g; *c = 2 * t + i; break;
    }
}

/* Raw bits of element i (of `bits` bits, packed low to high in 32-bit registers, or one per
 * 64-bit register) of fragment operand o in lane l. */
static inline uint64_t tc_get(const struct warp *w, const struct ir_opnd *o, unsigned bits,
                              unsigned i, unsigned l)
{
    if (bits == 64) {
        const struct ir_opnd e = vm_elem(w->fn, o, i);
        return w->r64[e.slot][l].u;
    }
    const unsigned per = 32 / bits;
    const struct ir_opnd e = vm_elem(w->fn, o, i / per);
    const uint32_t v = w->r32[e.slot][l].u >> (i % per * bits);
    return bits == 32 ? v : v & ((1u << bits) - 1);
}

/* Element bits -> value: float types as double, integer types exactly (as double too: every
 * 8-bit product sum and s32 accumulator is exact in int64, see tc_gemm_int). */
static inline double tc_fval(unsigned t, uint64_t b)
{
    switch (t) {
    case T_F16: return fpu_h2d((uint16_t)b, 0);
    case T_BF16: return fpu_h2d((uint16_t)b, 1);
    case T_TF32: return (double)fpu_u2f((uint32_t)b & 0xffffe000u);
    case T_F32: return (double)fpu_u2f((uint32_t)b);
    case T_E4M3: return fpu_unpack(b, FPU_E4M3);
    case T_E5M2: return fpu_unpack(b, FPU_E5M2);
    default: return fpu_u2d(b);
    }
}
static inline int64_t tc_ival(unsigned t, uint64_t b)
{
    switch (t) {
    case T_S8: return (int8_t)(uint8_t)b;
    case T_U8: return (uint8_t)b;
    case T_S4: return (int64_t)((b & 15) ^ 8) - 8;
    case T_U4: return (int64_t)(b & 15);
    case T_B1: return (int64_t)(b & 1);
    default: return (int32_t)(uint32_t)b;
    }
}

/* A value of the accumulator type t as element bits. */
static inline uint64_t tc_fbits(unsigned t, double s)
{
    switch (t) {
    case T_F16: return fpu_d2h(s, FPU_RN, 0);
    case T_F64: return fpu_d2u(s);
    default: {
        const float f = (float)s;
        return f != f ? 0x7fffffffu : fpu_f2u(f);
    }
    }
}

/* Lane-major scatter buffer for a destination fragment: word k of lane l. */
struct tc_out {
    uint64_t v[16][32];
};

static inline void tc_put(struct tc_out *out, unsigned bits, unsigned i, unsigned l, uint64_t x)
{
    if (bits >= 32) {
        out->v[i][l] = x;
        return;
    }
    const unsigned per = 32 / bits, sh = i % per * bits;
    const uint64_t mask = ((UINT64_C(1) << bits) - 1) << sh;
    out->v[i / per][l] = (out->v[i / per][l] & ~mask) | (x << sh & mask);
}

/* Write the nw words of out to destination fragment o in lanes M. */
static void tc_write(struct warp *w, const struct ir_opnd *o, unsigned bits, unsigned nw,
                     const struct tc_out *out, uint32_t M)
{
    for (unsigned k = 0; k < nw; k++) {
        const struct ir_opnd e = vm_elem(w->fn, o, k);
        if (e.kind != OPK_REG)
            continue;
        for (unsigned l = 0; l < 32; l++)
            if (M >> l & 1) {
                if (bits == 64)
                    w->r64[e.slot][l].u = out->v[k][l];
                else
                    w->r32[e.slot][l].u = (uint32_t)out->v[k][l];
            }
    }
}

/* Registers of a fragment of `nelem` elements of `bits` bits. */
static inline unsigned tc_nregs(unsigned nelem, unsigned bits)
{
    return bits == 64 ? nelem : (nelem * bits + 31) / 32;
}

/* Is operand o a fragment of n registers of file rf (a vector, or one register for n == 1)?
 * Sources may be constants; destinations must be registers. */
static bool tc_frag_ok(const struct ir_func *f, const struct ir_opnd *o, unsigned n, unsigned rf,
                       bool dst)
{
    if (o->kind == OPK_REG && n == 1)
        return o->rf == rf && o->slot != IR_NOSLOT;
    if (o->kind != OPK_VEC || o->n != n || o->first + n > f->nopnds)
        return false;
    for (unsigned k = 0; k < n; k++) {
        const struct ir_opnd *e = &f->opnds[o->first + k];
        const bool src = e->kind == OPK_IMM || e->kind == OPK_REG;
        if ((dst ? e->kind != OPK_REG : !src) || e->rf != rf || e->slot == IR_NOSLOT)
            return false;
    }
    return true;
}

/* Space class xs's address addr as a memory report gives it: its space in *sp, a generic
 * address made an offset in its window (shared, local, param). */
static uint64_t tc_mem_where(unsigned xs, uint64_t addr, int *sp)
{
    *sp = vm_xs_space(xs, addr);
    if (xs != XS_GENERIC)
        return addr;
    return addr - (*sp == SP_SHARED  ? MEM_SHARED_BASE
                   : *sp == SP_LOCAL ? MEM_LOCAL_BASE
                   : *sp == SP_PARAM ? MEM_PARAM_BASE
                                     : 0);
}

/* See tensor.h. */
void tc_mem_report(const struct tc_mem *mr, unsigned l, uint64_t addr, unsigned xs,
                   unsigned width, bool wr, const void *val)
{
    if (!mr)
        return;
    int sp;
    addr = tc_mem_where(xs, addr, &sp);
    mr->fn(mr->ctx, l, addr, width, wr, sp, val);
}

/* See tensor.h. */
void tc_mem_range(const struct tc_mem *mr, unsigned l, uint64_t addr, unsigned xs, uint64_t n,
                  bool wr, const void *val, unsigned piece)
{
    if (!mr)
        return;
    if (!mr->range) {
        for (uint64_t o = 0; o < n; o += piece)
            tc_mem_report(mr, l, addr + o, xs, piece, wr, (const uint8_t *)val + o);
        return;
    }
    int sp;
    addr = tc_mem_where(xs, addr, &sp);
    mr->range(mr->ctx, l, addr, n, wr, sp, val, piece);
}

/* The whole warp must execute a .sync.aligned matrix instruction. */
static int tc_whole_warp(struct warp *w, uint32_t pc, uint32_t M, const char *what)
{
    if (M == 0xffffffffu)
        return 0;
    char msg[160];
    snprintf(msg, sizeof msg,
             "%s: a .sync.aligned matrix instruction executed by lanes %08x, not by the whole "
             "warp",
             what, M);
    interp_fault(w, pc, (unsigned)__builtin_ctz(~M), TRAP_ILLEGAL, 0, 0, 0, false, msg);
    return -1;
}

/* ====================================================================== the product */

/* Largest matrices: floating point 16 x 32 (mma A, k32) or 32 x 16 (wmma m32n8k16 A);
 * integer A 16 x 256 and B 256 x 8 (mma .b1 m16n8k256). */
enum { TC_MAXE = 512, TC_MAXA_INT = 4096, TC_MAXB_INT = 2048 };

/* A matrix operation: types and dense row-major operands. */
struct tc_gemm {
    unsigned m, n, k;
    unsigned td, ta, tb, tc;
    bool satf;
    char bop; /* .b1: 'x' / 'a': a bit product is a ^ b / a & b (summed: .popc) */
    double A[TC_MAXE], B[TC_MAXE], C[TC_MAXE / 2], D[TC_MAXE / 2];
    int64_t iA[TC_MAXA_INT], iB[TC_MAXB_INT], iC[TC_MAXE / 2];
};

static bool tc_is_int(unsigned t)
{
    return t == T_S8 || t == T_U8 || t == T_S4 || t == T_U4 || t == T_B1;
}

/* D = A * B + C per the numerics in the header comment, as doubles in g->D (integer results
 * already wrapped or clamped to 32 bits); tc_result turns them into D's element bits. */
static void tc_compute(struct tc_gemm *g)
{
    const unsigned M = g->m, N = g->n, K = g->k;
    /* i, q, j order: the j loop vectorizes; every D[i][j] still sums its products in k order
     * starting from C */
    if (tc_is_int(g->ta)) {
        int64_t acc[TC_MAXE / 2];
        memcpy(acc, g->iC, (size_t)M * N * sizeof *acc);
        for (unsigned i = 0; i < M; i++)
            for (unsigned q = 0; q < K; q++) {
                const int64_t a = g->iA[i * K + q];
                if (g->bop == 'x')
                    for (unsigned j = 0; j < N; j++)
                        acc[i * N + j] += a ^ g->iB[q * N + j];
                else if (g->bop == 'a')
                    for (unsigned j = 0; j < N; j++)
                        acc[i * N + j] += a & g->iB[q * N + j];
                else
                    for (unsigned j = 0; j < N; j++)
                        acc[i * N + j] += a * g->iB[q * N + j];
            }
        for (unsigned x = 0; x < M * N; x++) {
            int64_t s = acc[x];
            if (g->satf)
                s = s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s;
            g->D[x] = (double)(int32_t)(uint32_t)(uint64_t)s;
        }
        return;
    }
    memcpy(g->D, g->C, (size_t)M * N * sizeof *g->D);
    if (g->ta == T_F64) {
        for (unsigned i = 0; i < M; i++)
            for (unsigned q = 0; q < K; q++) {
                const double a = g->A[i * K + q];
                for (unsigned j = 0; j < N; j++)
                    g->D[i * N + j] = fma(a, g->B[q * N + j], g->D[i * N + j]);
            }
        return;
    }
    for (unsigned i = 0; i < M; i++)
        for (unsigned q = 0; q < K; q++) {
            const double a = g->A[i * K + q];
            for (unsigned j = 0; j < N; j++)
                g->D[i * N + j] += a * g->B[q * N + j];
        }
}

/* Element bits of D[idx] in D's type. */
static inline uint64_t tc_result(const struct tc_gemm *g, unsigned idx)
{
    if (g->td == T_S32)
        return (uint32_t)(int32_t)g->D[idx];
    return tc_fbits(g->td, g->D[idx]);
}

/* Store element bits b of type t at A / B (operand 0 / 1) or C (2) position idx. */
static inline void tc_set(struct tc_gemm *g, unsigned which, unsigned t, unsigned idx, uint64_t b)
{
    if (tc_is_int(t) || t == T_S32) {
        int64_t *dst = which == 0 ? g->iA : which == 1 ? g->iB : g->iC;
        dst[idx] = tc_ival(t, b);
    } else {
        double *dst = which == 0 ? g->A : which == 1 ? g->B : g->C;
        dst[idx] = tc_fval(t, b);
    }
}

/* ====================================================================== mma */

/* An mma form: fragments of A, B, C/D. */
struct tc_mma_form {
    unsigned fa, fb, fc;
    unsigned na, nb, nc; /* elements per lane */
    unsigned P;          /* elements per register of the 8/4/1-bit layouts (tc_rc) */
};

/* The form of an mma instruction this file implements (false: not implemented). */
static bool tc_mma_form(const struct tc_insn *d, struct tc_mma_form *fm)
{
    if (d->nt != 4 || d->nlay != 2 || d->col[0] || !d->col[1] || d->other || d->num ||
        d->trans || d->which)
        return false;
    if ((d->bop != 0) != (d->t[1] == T_B1) || d->popc != (d->bop != 0))
        return false; /* .b1 takes .xor.popc or .and.popc, nothing else does */
    const unsigned td = d->t[0], ta = d->t[1], tb = d->t[2], tc = d->t[3];
    const unsigned M = d->m, N = d->n, K = d->k;
    if (!M || !K)
        return false;
    fm->na = M * K / 32, fm->nb = K * N / 32, fm->nc = M * N / 32;
    fm->fc = M == 16 ? FR_C16 : FR_C8;
    fm->P = tc_bits(ta) && tc_bits(ta) <= 32 ? 32 / tc_bits(ta) : 1;
    if (ta == T_F16 || ta == T_BF16) {
        if (tb != ta || M != 16 || N != 8 || (K != 8 && K != 16) || d->satf)
            return false;
        if (ta == T_BF16 ? (td != T_F32 || tc != T_F32)
                         : ((td != T_F16 && td != T_F32) || (tc != T_F16 && tc != T_F32)))
            return false;
        fm->fa = FR_A16, fm->fb = FR_B16;
        return true;
    }
    if (ta == T_TF32) {
        if (tb != T_TF32 || td != T_F32 || tc != T_F32 || M != 16 || N != 8 ||
            (K != 4 && K != 8) || d->satf)
            return false;
        fm->fa = FR_A32, fm->fb = FR_B32;
        return true;
    }
    if (ta == T_F64) {
        if (tb != T_F64 || td != T_F64 || tc != T_F64 || d->satf)
            return false;
        if (M == 8 && N == 8 && K == 4) {
            fm->fa = FR_A64M8, fm->fb = FR_B32;
            return true;
        }
        if (M == 16 && N == 8 && (K == 4 || K == 8 || K == 16)) {
            fm->fa = FR_A32, fm->fb = FR_B32;
            return true;
        }
        return false;
    }
    if (ta == T_E4M3 || ta == T_E5M2) { /* sm_89: the 8-bit layouts of .s8 */
        if ((tb != T_E4M3 && tb != T_E5M2) || (td != T_F16 && td != T_F32) ||
            (tc != T_F16 && tc != T_F32) || M != 16 || N != 8 || (K != 16 && K != 32) || d->satf)
            return false;
        fm->fa = FR_A8, fm->fb = FR_B8;
        return true;
    }
    if (ta == T_S4 || ta == T_U4 || ta == T_B1) {
        const bool b1 = ta == T_B1;
        if ((b1 ? tb != T_B1 : (tb != T_S4 && tb != T_U4)) || td != T_S32 || tc != T_S32 ||
            (b1 && d->satf))
            return false;
        const unsigned k0 = b1 ? 128 : 32; /* m8n8k0, m16n8k0, m16n8k(2 k0) */
        if (M == 8 && N == 8 && K == k0) {
            fm->fa = FR_A8M8, fm->fb = FR_B8;
            return true;
        }
        if (M == 16 && N == 8 && (K == k0 || K == 2 * k0)) {
            fm->fa = FR_A8, fm->fb = FR_B8;
            return true;
        }
        return false;
    }
    if (tc_is_int(ta)) {
        if (!tc_is_int(tb) || td != T_S32 || tc != T_S32)
            return false;
        if (M == 8 && N == 8 && K == 16) {
            fm->fa = FR_A8M8, fm->fb = FR_B8;
            return true;
        }
        if (M == 16 && N == 8 && (K == 16 || K == 32)) {
            fm->fa = FR_A8, fm->fb = FR_B8;
            return true;
        }
    }
    return false;
}

static unsigned tc_rf(unsigned bits)
{
    return bits == 64 ? RF_B64 : RF_B32;
}

/* Is this the sm_70 quad-pair form mma.m8n8k4.alayout.blayout.dtype.f16.f16.ctype (four
 * independent 8x8x4 products, any layouts, f16 or f32 C/D; an f32 C needs an f32 D)? */
static bool tc_is_884(const struct tc_insn *d)
{
    return d->m == 8 && d->n == 8 && d->k == 4 && d->nt == 4 && d->t[1] == T_F16 &&
           d->t[2] == T_F16 && (d->t[0] == T_F16 || d->t[0] == T_F32) &&
           (d->t[3] == T_F16 || d->t[3] == T_F32) && !(d->t[3] == T_F32 && d->t[0] == T_F16) &&
           d->nlay == 2 && !d->other && !d->num &&
           !d->trans && !d->which && !d->satf && !d->bop && !d->popc;
}

/* Is this mma form implemented, with operand vectors of the right registers? */
static bool tc_mma_ok(const struct ir_func *f, const struct ir_insn *in, const struct ir_opnd *O)
{
    struct tc_insn d;
    struct tc_mma_form fm;
    tc_decode(f, in, &d);
    if (in->nopnd == 4 && tc_is_884(&d)) /* A, B: 2 .f16x2; C, D: 4 .f16x2 or 8 .f32 */
        return tc_frag_ok(f, &O[0], d.t[0] == T_F16 ? 4 : 8, RF_B32, true) &&
               tc_frag_ok(f, &O[1], 2, RF_B32, false) && tc_frag_ok(f, &O[2], 2, RF_B32, false) &&
               tc_frag_ok(f, &O[3], d.t[3] == T_F16 ? 4 : 8, RF_B32, false);
    if (in->nopnd != 4 || !tc_mma_form(&d, &fm))
        return false;
    const unsigned bd = tc_bits(d.t[0]), ba = tc_bits(d.t[1]), bb = tc_bits(d.t[2]),
                   bc = tc_bits(d.t[3]);
    return tc_frag_ok(f, &O[0], tc_nregs(fm.nc, bd), tc_rf(bd), true) &&
           tc_frag_ok(f, &O[1], tc_nregs(fm.na, ba), tc_rf(ba), false) &&
           tc_frag_ok(f, &O[2], tc_nregs(fm.nb, bb), tc_rf(bb), false) &&
           tc_frag_ok(f, &O[3], tc_nregs(fm.nc, bc), tc_rf(bc), false);
}

/* Accumulator position of element i of lane l in the quad-pair m8n8k4 form (h: the lane is in
 * the high group, lanes 16-31): a whole row for .f16, the ISA's X / col formula for .f32. */
static inline void tc_rc884(unsigned t, unsigned l, unsigned i, unsigned *r, unsigned *c)
{
    const unsigned h = l >= 16 ? 4 : 0;
    if (t == T_F16) {
        *r = l % 4 + h, *c = i;
        return;
    }
    *r = (l & 1) + (i & 2) + h;
    *c = (i & 4) + (l & 2) + (i & 1);
}

/* mma.sync.aligned.m8n8k4.alayout.blayout.dtype.f16.f16.ctype: four independent 8x8x4
 * products; product q uses lanes 4q..4q+3 (rows 0-3 of C/D, and of A or columns 0-3 of B) and
 * 16+4q..16+4q+3 (rows / columns 4-7), per the ISA's fragment formulas for each layout. */
static void tc_mma884(struct warp *w, const struct tc_insn *d, const struct ir_opnd *O,
                      uint32_t M)
{
    const unsigned td = d->t[0], tc = d->t[3];
    const unsigned bd = tc_bits(td), bc = tc_bits(tc), nc = 8;
    const bool acol = d->col[0], bcol = d->col[1];
    struct tc_gemm g;
    struct tc_out out;
    memset(&out, 0, sizeof out);
    g.m = 8, g.n = 8, g.k = 4, g.td = td, g.ta = T_F16, g.tb = T_F16, g.tc = tc;
    g.satf = false, g.bop = 0;
    for (unsigned q = 0; q < 4; q++) {
        for (unsigned hh = 0; hh < 2; hh++)
            for (unsigned j = 0; j < 4; j++) {
                const unsigned l = 4 * q + 16 * hh + j, h = 4 * hh;
                for (unsigned i = 0; i < 4; i++) {
                    const unsigned ra = acol ? i + h : j + h, ca = acol ? j : i;
                    const unsigned rb = bcol ? i : j, cb = bcol ? j + h : i + h;
                    tc_set(&g, 0, T_F16, ra * 4 + ca, tc_get(w, &O[1], 16, i, l));
                    tc_set(&g, 1, T_F16, rb * 8 + cb, tc_get(w, &O[2], 16, i, l));
                }
                for (unsigned i = 0; i < nc; i++) {
                    unsigned r, c;
                    tc_rc884(tc, l, i, &r, &c);
                    tc_set(&g, 2, tc, r * 8 + c, tc_get(w, &O[3], bc, i, l));
                }
            }
        tc_compute(&g);
        for (unsigned hh = 0; hh < 2; hh++)
            for (unsigned j = 0; j < 4; j++) {
                const unsigned l = 4 * q + 16 * hh + j;
                for (unsigned i = 0; i < nc; i++) {
                    unsigned r, c;
                    tc_rc884(td, l, i, &r, &c);
                    tc_put(&out, bd, i, l, tc_result(&g, r * 8 + c));
                }
            }
    }
    tc_write(w, &O[0], bd, tc_nregs(nc, bd), &out, M);
}

/* Execute mma.sync.aligned: gather A, B, C by the fragment layouts, compute, scatter D. */
int tensor_mma(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
               const struct ir_opnd *O)
{
    if (tc_whole_warp(w, pc, M, "mma"))
        return -1;
    struct tc_insn d;
    struct tc_mma_form fm;
    tc_decode(w->fn->f, in, &d);
    if (tc_is_884(&d)) {
        tc_mma884(w, &d, O, M);
        return 0;
    }
    if (!tc_mma_form(&d, &fm)) { /* selection lets only implemented forms through */
        interp_fault(w, pc, 0, TRAP_ILLEGAL, 0, 0, 0, false, "mma: form not implemented");
        return -1;
    }
    struct tc_gemm g;
    g.m = d.m, g.n = d.n, g.k = d.k;
    g.td = d.t[0], g.ta = d.t[1], g.tb = d.t[2], g.tc = d.t[3];
    g.satf = d.satf;
    g.bop = d.bop;
    const unsigned ba = tc_bits(g.ta), bb = tc_bits(g.tb), bc = tc_bits(g.tc),
                   bd = tc_bits(g.td);
    for (unsigned l = 0; l < 32; l++) {
        unsigned r, c;
        for (unsigned i = 0; i < fm.na; i++) {
            tc_rc(fm.fa, fm.P, l, i, &r, &c);
            tc_set(&g, 0, g.ta, r * g.k + c, tc_get(w, &O[1], ba, i, l));
        }
        for (unsigned i = 0; i < fm.nb; i++) {
            tc_rc(fm.fb, fm.P, l, i, &r, &c);
            tc_set(&g, 1, g.tb, r * g.n + c, tc_get(w, &O[2], bb, i, l));
        }
        for (unsigned i = 0; i < fm.nc; i++) {
            tc_rc(fm.fc, fm.P, l, i, &r, &c);
            tc_set(&g, 2, g.tc, r * g.n + c, tc_get(w, &O[3], bc, i, l));
        }
    }
    tc_compute(&g);
    struct tc_out out;
    memset(&out, 0, sizeof out);
    for (unsigned l = 0; l < 32; l++)
        for (unsigned i = 0; i < fm.nc; i++) {
            unsigned r, c;
            tc_rc(fm.fc, fm.P, l, i, &r, &c);
            tc_put(&out, bd, i, l, tc_result(&g, r * g.n + c));
        }
    tc_write(w, &O[0], bd, tc_nregs(fm.nc, bd), &out, M);
    return 0;
}

/* ====================================================================== ldmatrix & co. */

static bool tc_ldst_ok(const struct ir_func *f, const struct ir_insn *in, const struct ir_opnd *O,
                       bool st)
{
    struct tc_insn d;
    tc_decode(f, in, &d);
    if (d.other || d.m != 8 || d.n != 8 || d.k || d.nt != 1 || d.t[0] != T_B16 || !d.num ||
        d.nlay || d.which || d.satf || in->nopnd != 2)
        return false;
    const unsigned ia = st ? 0 : 1, iv = st ? 1 : 0;
    return O[ia].kind == OPK_ADDR && tc_frag_ok(f, &O[iv], d.num, RF_B32, !st);
}

/* The row addresses of ldmatrix / stmatrix: lanes 0 .. 8 * num - 1 give one 16-byte row each
 * (matrix j's row r comes from lane 8 * j + r); rows[l] is the host pointer. */
static int tc_rows(struct warp *w, uint32_t pc, const struct ir_opnd *a, unsigned num, bool wr,
                   const char *what, uint8_t *rows[32], uint64_t ads[32])
{
    const unsigned xs = vm_xs(w, a);
    for (unsigned l = 0; l < 8 * num; l++) {
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

/* ldmatrix.sync.aligned.m8n8.xN{.trans}{.shared{::cta}}.b16 d, [a]: lane l receives, for matrix
 * j, the elements (groupID, 2 * threadID_in_group + {0, 1}) (.trans: of the transpose). */
int tensor_ldmatrix(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                    const struct ir_opnd *O, const struct tc_mem *mr)
{
    if (tc_whole_warp(w, pc, M, "ldmatrix"))
        return -1;
    struct tc_insn d;
    tc_decode(w->fn->f, in, &d);
    uint8_t *rows[32];
    uint64_t ads[32];
    if (tc_rows(w, pc, &O[1], d.num, false, "ldmatrix", rows, ads))
        return -1;
    uint16_t mat[4][8][8];
    for (unsigned j = 0; j < d.num; j++)
        for (unsigned r = 0; r < 8; r++) {
            memcpy(mat[j][r], rows[8 * j + r], 16);
            tc_mem_report(mr, 8 * j + r, ads[8 * j + r], vm_xs(w, &O[1]), 16, false,
                          rows[8 * j + r]);
        }
    for (unsigned j = 0; j < d.num; j++) {
        const struct ir_opnd e = vm_elem(w->fn, &O[0], j);
        for (unsigned l = 0; l < 32; l++) {
            const unsigned g = l >> 2, t = l & 3;
            uint32_t lo, hi;
            if (d.trans)
                lo = mat[j][2 * t][g], hi = mat[j][2 * t + 1][g];
            else
                lo = mat[j][g][2 * t], hi = mat[j][g][2 * t + 1];
            w->r32[e.slot][l].u = lo | hi << 16;
        }
    }
    return 0;
}

/* stmatrix.sync.aligned.m8n8.xN{.trans}{.shared{::cta}}.b16 [a], r: the inverse of ldmatrix. */
int tensor_stmatrix(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                    const struct ir_opnd *O, const struct tc_mem *mr)
{
    if (tc_whole_warp(w, pc, M, "stmatrix"))
        return -1;
    struct tc_insn d;
    tc_decode(w->fn->f, in, &d);
    uint8_t *rows[32];
    uint64_t ads[32];
    if (tc_rows(w, pc, &O[0], d.num, true, "stmatrix", rows, ads))
        return -1;
    uint16_t mat[4][8][8];
    for (unsigned j = 0; j < d.num; j++) {
        const struct ir_opnd e = vm_elem(w->fn, &O[1], j);
        for (unsigned l = 0; l < 32; l++) {
            const unsigned g = l >> 2, t = l & 3;
            const uint32_t v = w->r32[e.slot][l].u;
            if (d.trans)
                mat[j][2 * t][g] = (uint16_t)v, mat[j][2 * t + 1][g] = (uint16_t)(v >> 16);
            else
                mat[j][g][2 * t] = (uint16_t)v, mat[j][g][2 * t + 1] = (uint16_t)(v >> 16);
        }
    }
    for (unsigned j = 0; j < d.num; j++)
        for (unsigned r = 0; r < 8; r++) {
            memcpy(rows[8 * j + r], mat[j][r], 16);
            tc_mem_report(mr, 8 * j + r, ads[8 * j + r], vm_xs(w, &O[0]), 16, true,
                          rows[8 * j + r]);
        }
    return 0;
}

/* movmatrix.sync.aligned.m8n8.trans.b16 d, a: a holds an 8x8 matrix in the ldmatrix layout,
 * d receives its transpose in the same layout. */
int tensor_movmatrix(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                     const struct ir_opnd *O)
{
    (void)in;
    if (tc_whole_warp(w, pc, M, "movmatrix"))
        return -1;
    uint16_t mat[8][8];
    const union r32 *a = w->r32[O[1].slot];
    for (unsigned l = 0; l < 32; l++) {
        const unsigned g = l >> 2, t = l & 3;
        mat[g][2 * t] = (uint16_t)a[l].u, mat[g][2 * t + 1] = (uint16_t)(a[l].u >> 16);
    }
    union r32 *dst = w->r32[O[0].slot];
    for (unsigned l = 0; l < 32; l++) {
        const unsigned g = l >> 2, t = l & 3;
        dst[l].u = mat[2 * t][g] | (uint32_t)mat[2 * t + 1][g] << 16;
    }
    return 0;
}

static bool tc_movmatrix_ok(const struct ir_func *f, const struct ir_insn *in,
                            const struct ir_opnd *O)
{
    struct tc_insn d;
    tc_decode(f, in, &d);
    return !d.other && d.m == 8 && d.n == 8 && !d.k && d.trans && d.nt == 1 &&
           d.t[0] == T_B16 && !d.num && in->nopnd == 2 && O[0].kind == OPK_REG &&
           O[0].rf == RF_B32 && O[1].kind == OPK_REG && O[1].rf == RF_B32;
}

/* ====================================================================== wmma */

/* The wmma matrix a fragment describes: rows x cols, element type, register count. */
struct tc_wfrag {
    unsigned rows, cols, t, bits, nelem, nregs;
};

/* Fragment of matrix `which` ('a', 'b', 'c' / 'd') of shape d with element type t; false for
 * a combination this file does not implement. */
static bool tc_wfrag(const struct tc_insn *d, char which, unsigned t, struct tc_wfrag *fr)
{
    const unsigned M = d->m, N = d->n, K = d->k;
    const bool f16shape = (M == 16 && N == 16 && K == 16) || (M == 32 && N == 8 && K == 16) ||
                          (M == 8 && N == 32 && K == 16);
    bool ok;
    if (which == 'a' || which == 'b') {
        switch (t) {
        case T_F16: case T_BF16: case T_S8: case T_U8: ok = f16shape; break;
        case T_TF32: ok = M == 16 && N == 16 && K == 8; break;
        case T_F64: ok = M == 8 && N == 8 && K == 4; break;
        case T_S4: case T_U4: ok = M == 8 && N == 8 && K == 32; break;
        case T_B1: ok = M == 8 && N == 8 && K == 128; break;
        default: ok = false; break;
        }
    } else {
        switch (t) {
        case T_F16: case T_F32: case T_S32: ok = f16shape || (M == 16 && N == 16 && K == 8 &&
                                                               t == T_F32) ||
                                                 (t == T_S32 && M == 8 && N == 8 &&
                                                  (K == 32 || K == 128)); break;
        case T_F64: ok = M == 8 && N == 8 && K == 4; break;
        default: ok = false; break;
        }
    }
    if (!ok)
        return false;
    fr->rows = which == 'b' ? K : M;
    fr->cols = which == 'a' ? K : N;
    fr->t = t;
    fr->bits = tc_bits(t);
    const unsigned total = fr->rows * fr->cols * fr->bits;
    if (t == T_F16 && (which == 'a' || which == 'b'))
        fr->nregs = 8; /* .f16 a/b: eight .f16x2 registers whatever the shape (replicated) */
    else
        fr->nregs = fr->bits == 64 ? fr->rows * fr->cols / 32 : total / 1024;
    fr->nelem = fr->bits == 64 ? fr->nregs : fr->nregs * (32 / fr->bits);
    return true;
}

/* Matrix position (row-major index) of element e of lane l of a wmma fragment. */
static inline unsigned tc_widx(const struct tc_wfrag *fr, unsigned e, unsigned l)
{
    return (e * 32 + l) % (fr->rows * fr->cols);
}

static bool tc_wmma_ldst_ok(const struct ir_func *f, const struct ir_insn *in,
                            const struct ir_opnd *O, bool st)
{
    struct tc_insn d;
    struct tc_wfrag fr;
    tc_decode(f, in, &d);
    if (d.other || d.nt != 1 || d.nlay != 1 || d.trans || d.num || d.satf || !d.k)
        return false;
    if (st ? d.which != 'd' : (d.which != 'a' && d.which != 'b' && d.which != 'c'))
        return false;
    if (!tc_wfrag(&d, st ? 'c' : d.which, d.t[0], &fr))
        return false;
    if (fr.bits < 8 && (d.which == 'b') != d.col[0])
        return false; /* sub-byte and .b1: A is .row, B .col only */
    if (in->nopnd < 2 || in->nopnd > 3)
        return false;
    if (in->nopnd == 3 && O[2].slot == IR_NOSLOT)
        return false;
    const unsigned ia = st ? 0 : 1, iv = st ? 1 : 0;
    return O[ia].kind == OPK_ADDR && tc_frag_ok(f, &O[iv], fr.nregs, tc_rf(fr.bits), !st);
}

/* Bit offset from the matrix's base of element (r, c) of a wmma matrix with stride (elements)
 * and layout, for elements of `bits` bits (the sub-byte and .b1 elements packed LSB first:
 * element e of a row at bit e % 8 / bits of byte e * bits / 8). */
static inline uint64_t tc_wbit(uint64_t stride, bool col, unsigned r, unsigned c, unsigned bits)
{
    return (col ? (uint64_t)c * stride + r : (uint64_t)r * stride + c) * bits;
}

/* wmma.load.{a,b,c}.sync.aligned.layout.shape{.space}.type r, [p]{, stride}: each lane reads
 * the elements its fragment holds (stride in elements; default: the matrix's row length for
 * .row, its column length for .col). */
int tensor_wmma_load(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                     const struct ir_opnd *O, const struct tc_mem *mr)
{
    if (tc_whole_warp(w, pc, M, "wmma.load"))
        return -1;
    struct tc_insn d;
    struct tc_wfrag fr;
    tc_decode(w->fn->f, in, &d);
    tc_wfrag(&d, d.which, d.t[0], &fr);
    const struct ir_opnd *a = &O[1];
    /* es: bytes read per element (one byte holding a sub-byte or .b1 element) */
    const unsigned xs = vm_xs(w, a), es = fr.bits < 8 ? 1 : fr.bits / 8;
    const uint64_t emask = fr.bits < 64 ? (UINT64_C(1) << fr.bits) - 1 : ~UINT64_C(0);
    const bool col = d.col[0];
    struct tc_out out;
    memset(&out, 0, sizeof out);
    for (unsigned l = 0; l < 32; l++) {
        const uint64_t base = vm_addr(w, a, l);
        const uint64_t stride = in->nopnd > 2 ? (uint32_t)vm_get(w, &O[2], l)
                                              : (col ? fr.rows : fr.cols);
        for (unsigned e = 0; e < fr.nelem; e++) {
            const unsigned idx = tc_widx(&fr, e, l);
            const uint64_t bit = tc_wbit(stride, col, idx / fr.cols, idx % fr.cols, fr.bits);
            const uint64_t ad = base + bit / 8;
            uint8_t *p;
            const int k = vm_xlate(w, xs, l, ad, es, false, &p);
            if (k) {
                interp_fault(w, pc, l, (enum trap_kind)k, ad, es, vm_xs_space(xs, ad), false,
                             NULL);
                return -1;
            }
            uint64_t v = 0;
            memcpy(&v, p, es);
            tc_mem_report(mr, l, ad, xs, es, false, p);
            tc_put(&out, fr.bits, e, l, v >> (bit % 8) & emask);
        }
    }
    tc_write(w, &O[0], fr.bits, fr.nregs, &out, M);
    return 0;
}

/* wmma.store.d.sync.aligned.layout.shape{.space}.type [p], r{, stride}. */
int tensor_wmma_store(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                      const struct ir_opnd *O, const struct tc_mem *mr)
{
    if (tc_whole_warp(w, pc, M, "wmma.store"))
        return -1;
    struct tc_insn d;
    struct tc_wfrag fr;
    tc_decode(w->fn->f, in, &d);
    tc_wfrag(&d, 'c', d.t[0], &fr);
    const struct ir_opnd *a = &O[0];
    const unsigned xs = vm_xs(w, a), es = fr.bits / 8;
    const bool col = d.col[0];
    for (unsigned l = 0; l < 32; l++) {
        const uint64_t base = vm_addr(w, a, l);
        const uint64_t stride = in->nopnd > 2 ? (uint32_t)vm_get(w, &O[2], l)
                                              : (col ? fr.rows : fr.cols);
        for (unsigned e = 0; e < fr.nelem; e++) {
            const unsigned idx = tc_widx(&fr, e, l);
            const uint64_t ad =
                base + tc_wbit(stride, col, idx / fr.cols, idx % fr.cols, fr.bits) / 8;
            uint8_t *p;
            const int k = vm_xlate(w, xs, l, ad, es, true, &p);
            if (k) {
                interp_fault(w, pc, l, (enum trap_kind)k, ad, es, vm_xs_space(xs, ad), true,
                             NULL);
                return -1;
            }
            const uint64_t v = tc_get(w, &O[1], fr.bits, e, l);
            memcpy(p, &v, es);
            tc_mem_report(mr, l, ad, xs, es, true, p);
        }
    }
    return 0;
}

/* The types of a wmma.mma: d, a, b, c (the .f16 forms name only dtype and ctype). */
static bool tc_wmma_types(const struct tc_insn *d, unsigned t[4])
{
    if (d->nt == 2) {
        t[0] = d->t[0], t[1] = T_F16, t[2] = T_F16, t[3] = d->t[1];
        return (t[0] == T_F16 || t[0] == T_F32) && (t[3] == T_F16 || t[3] == T_F32);
    }
    if (d->nt != 4)
        return false;
    memcpy(t, d->t, sizeof d->t);
    switch (t[1]) {
    case T_BF16: return t[2] == T_BF16 && t[0] == T_F32 && t[3] == T_F32;
    case T_TF32: return t[2] == T_TF32 && t[0] == T_F32 && t[3] == T_F32;
    case T_F64: return t[2] == T_F64 && t[0] == T_F64 && t[3] == T_F64;
    case T_S8: case T_U8:
        return (t[2] == T_S8 || t[2] == T_U8) && t[0] == T_S32 && t[3] == T_S32;
    case T_S4: case T_U4: /* ptxas takes .s4.s4 and .u4.u4 only */
    case T_B1: return t[2] == t[1] && t[0] == T_S32 && t[3] == T_S32;
    default: return false;
    }
}

static bool tc_wmma_mma_ok(const struct ir_func *f, const struct ir_insn *in,
                           const struct ir_opnd *O)
{
    struct tc_insn d;
    unsigned t[4];
    struct tc_wfrag fd, fa, fb, fc;
    tc_decode(f, in, &d);
    if (d.other || d.nlay != 2 || d.trans || d.num || d.which || !d.k || in->nopnd != 4 ||
        !tc_wmma_types(&d, t))
        return false;
    if (d.satf && (!tc_is_int(t[1]) || t[1] == T_B1))
        return false; /* .satfinite of floating-point results (PTX before 6.5): not
                         implemented; .b1 has none */
    if ((t[1] == T_B1) != (d.bop != 0) || d.popc != (d.bop != 0))
        return false; /* .b1 takes .xor.popc or .and.popc, nothing else does */
    if (tc_bits(t[1]) < 8 && (d.col[0] || !d.col[1]))
        return false; /* sub-byte and .b1: .row.col only */
    if (!tc_wfrag(&d, 'c', t[0], &fd) || !tc_wfrag(&d, 'a', t[1], &fa) ||
        !tc_wfrag(&d, 'b', t[2], &fb) || !tc_wfrag(&d, 'c', t[3], &fc))
        return false;
    return tc_frag_ok(f, &O[0], fd.nregs, tc_rf(fd.bits), true) &&
           tc_frag_ok(f, &O[1], fa.nregs, tc_rf(fa.bits), false) &&
           tc_frag_ok(f, &O[2], fb.nregs, tc_rf(fb.bits), false) &&
           tc_frag_ok(f, &O[3], fc.nregs, tc_rf(fc.bits), false);
}

/* Gather a wmma fragment into operand `which` (0 A, 1 B, 2 C) of g. */
static void tc_wgather(const struct warp *w, const struct ir_opnd *o, const struct tc_wfrag *fr,
                       struct tc_gemm *g, unsigned which)
{
    for (unsigned l = 0; l < 32; l++)
        for (unsigned e = 0; e < fr->nelem; e++)
            tc_set(g, which, fr->t, tc_widx(fr, e, l), tc_get(w, o, fr->bits, e, l));
}

/* wmma.mma{.op.popc}.sync.aligned.alayout.blayout.shape.dtype{.atype.btype}.ctype{.satfinite} d, a,
 * b, c (.b1: .xor.popc / .and.popc, the popcount of a ^ b / a & b summed onto c). */
int tensor_wmma_mma(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                    const struct ir_opnd *O)
{
    if (tc_whole_warp(w, pc, M, "wmma.mma"))
        return -1;
    struct tc_insn d;
    unsigned t[4];
    struct tc_wfrag fd, fa, fb, fc;
    tc_decode(w->fn->f, in, &d);
    tc_wmma_types(&d, t);
    tc_wfrag(&d, 'c', t[0], &fd), tc_wfrag(&d, 'a', t[1], &fa);
    tc_wfrag(&d, 'b', t[2], &fb), tc_wfrag(&d, 'c', t[3], &fc);
    struct tc_gemm g;
    g.m = d.m, g.n = d.n, g.k = d.k;
    g.td = t[0], g.ta = t[1], g.tb = t[2], g.tc = t[3];
    g.satf = d.satf;
    g.bop = d.bop;
    tc_wgather(w, &O[1], &fa, &g, 0);
    tc_wgather(w, &O[2], &fb, &g, 1);
    tc_wgather(w, &O[3], &fc, &g, 2);
    tc_compute(&g);
    struct tc_out out;
    memset(&out, 0, sizeof out);
    for (unsigned l = 0; l < 32; l++)
        for (unsigned e = 0; e < fd.nelem; e++)
            tc_put(&out, fd.bits, e, l, tc_result(&g, tc_widx(&fd, e, l)));
    tc_write(w, &O[0], fd.bits, fd.nregs, &out, M);
    return 0;
}

/* ====================================================================== shared with tensor_sp.c */

/* See tensor.h. */
bool tensor_frag_ok(const struct ir_func *f, const struct ir_opnd *o, unsigned n, unsigned rf,
                    bool dst)
{
    return tc_frag_ok(f, o, n, rf, dst);
}

/* See tensor.h. */
int tensor_whole_warp(struct warp *w, uint32_t pc, uint32_t M, const char *what)
{
    return tc_whole_warp(w, pc, M, what);
}

/* See tensor.h. */
double tensor_elem_value(unsigned t, uint64_t bits)
{
    return tc_is_int(t) || t == T_S32 ? (double)tc_ival(t, bits) : tc_fval(t, bits);
}

/* See tensor.h. */
uint64_t tensor_acc_bits(unsigned t, double s)
{
    return tc_fbits(t, s);
}

/* ====================================================================== selection */

/* See tensor.h. */
bool tensor_supported(const struct ir_func *f, const struct ir_insn *in, const struct ir_opnd *O)
{
    switch (in->op) {
    case OP_MMA: return tc_mma_ok(f, in, O);
    case OP_LDMATRIX: return tc_ldst_ok(f, in, O, false);
    case OP_STMATRIX: return tc_ldst_ok(f, in, O, true);
    case OP_MOVMATRIX: return tc_movmatrix_ok(f, in, O);
    case OP_WMMA_LOAD: return tc_wmma_ldst_ok(f, in, O, false);
    case OP_WMMA_STORE: return tc_wmma_ldst_ok(f, in, O, true);
    case OP_WMMA_MMA: return tc_wmma_mma_ok(f, in, O);
    case OP_MMA_SP:
    case OP_MMA_SP_ORDERED: return tensor_sp_supported(f, in, O);
    default: return false;
    }
}

/* See tensor.h. */
const char *tensor_unsupported_why(const struct ir_func *f, const struct ir_insn *in)
{
    if ((in->op == OP_MMA_SP || in->op == OP_MMA_SP_ORDERED) && tensor_kind_is_kind(f, in) &&
        !tensor_sp_supported_form(f, in))
        return "unsupported (mma.sp with .kind: implemented are the sm_120a "
               "mma.sp::ordered_metadata.sync.aligned.row.col forms m16n8k64 .kind::f8f6f4 "
               "(f16 or f32 C/D), m16n8k64 .kind::mxf8f6f4 .block_scale{.scale_vec::1X} "
               ".ue8m0, m16n8k128 .kind::mxf4 .block_scale{.scale_vec::2X} .ue8m0 and "
               ".kind::mxf4nvf4 .block_scale.scale_vec::2X .ue8m0 / ::4X .ue4m3 (f32 C/D), "
               "with the operands of those forms)";
    switch (in->op) {
    case OP_MMA:
        return "unsupported (mma: implemented are m8n8k4 .f16 and the dense .row.col forms "
               "m16n8k8/m16n8k16 "
               ".f16/.bf16, m16n8k4/m16n8k8 .tf32, m8n8k4/m16n8k4/m16n8k8/m16n8k16 .f64, "
               "m8n8k16/m16n8k16/m16n8k32 .s8/.u8, m8n8k32/m16n8k32/m16n8k64 .s4/.u4, "
               "m8n8k128/m16n8k128/m16n8k256 .b1, m16n8k16/m16n8k32 .e4m3/.e5m2, "
               "m16n8k32 .kind::f8f6f4, m16n8k32 .kind::mxf8f6f4 and m16n8k64 .kind::mxf4/"
               ".kind::mxf4nvf4 .block_scale; not this shape, type, .satfinite or operand "
               "form)";
    case OP_MMA_SP:
    case OP_MMA_SP_ORDERED:
        return tensor_sp_unsupported_why(f, in);
    case OP_WMMA_LOAD:
    case OP_WMMA_STORE:
    case OP_WMMA_MMA:
        return "unsupported (wmma: implemented are m16n16k16/m32n8k16/m8n32k16 .f16/.bf16/.s8/"
               ".u8, m16n16k8 .tf32, m8n8k4 .f64, m8n8k32 .s4/.u4 and m8n8k128 .b1 "
               "(.xor.popc / .and.popc); not floating-point .satfinite (PTX before 6.5))";
    case OP_LDMATRIX:
    case OP_STMATRIX:
        return "unsupported (ldmatrix/stmatrix: implemented are .m8n8 .x1/.x2/.x4 {.trans} "
               ".b16, ldmatrix .m16n16 .x1/.x2 .trans .b8 (also .b8x16.b6x16_p32/.b4x16_p64), "
               "ldmatrix .m8n16 .x1/.x2/.x4 .b8x16.b6x16_p32/.b4x16_p64 and stmatrix .m16n8 "
               ".x1/.x2/.x4 .trans .b8; not this form)";
    case OP_MOVMATRIX: return "unsupported (movmatrix: only .m8n8.trans.b16)";
    default: return NULL;
    }
}

/* ====================================================================== work (timing) */

/* See tensor.h. */
unsigned tensor_work_class(unsigned ta, unsigned td, bool f4kind)
{
    if (f4kind)
        return ENGINE_TC_F4;
    switch (ta) {
    case T_F16: return td == T_F16 ? ENGINE_TC_F16ACC : ENGINE_TC_F16;
    case T_TF32: return ENGINE_TC_TF32;
    case T_F64: return ENGINE_TC_F64;
    case T_S8: case T_U8: return ENGINE_TC_I8;
    case T_E4M3: case T_E5M2: case T_E2M3: case T_E3M2: case T_E2M1: case T_E2M1X2:
        return ENGINE_TC_F8;
    case T_S4: case T_U4: return ENGINE_TC_I4;
    case T_B1: return ENGINE_TC_B1;
    default: return ENGINE_TC_F16; /* bf16 (f32 accumulator only) */
    }
}

/* See tensor.h. */
bool tensor_work_mma(const struct ir_func *f, const struct ir_insn *in, struct tensor_work *o)
{
    if (in->op != OP_MMA && in->op != OP_MMA_SP && in->op != OP_MMA_SP_ORDERED &&
        in->op != OP_WMMA_MMA)
        return false;
    struct tc_insn d;
    tc_decode(f, in, &d);
    bool f4 = false;
    for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++)
        f4 |= f->mods[in->mod + i] == MOD_KIND_MXF4 || f->mods[in->mod + i] == MOD_KIND_MXF4NVF4;
    /* mma: D, A, B, C types; wmma.mma of f16 inputs names only D and C */
    const unsigned ta = in->op == OP_WMMA_MMA && d.nt == 2 ? T_F16 : d.t[1];
    o->macs = (uint64_t)d.m * d.n * d.k >> (in->op != OP_MMA && in->op != OP_WMMA_MMA);
    o->bytes = 0;
    o->cls = (uint8_t)tensor_work_class(ta, d.t[0], f4);
    o->pair = 0;
    return true;
}
