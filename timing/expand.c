/*
 * timing/expand.c — the machine-instruction sequences of the PTX instructions ptxas expands
 * (see expand.h).
 *
 * Source: what ptxas 13 (CUDA 13; the oldest target it still compiles for is sm_75, Turing,
 * whose instruction set is Volta's) emits for one instruction of each kind, read from the
 * cubin's .text section (16 bytes per instruction: opcode in bits 0-11, guard predicate in
 * bits 12-15, destination and source registers in bits 16-23, 24-31, 32-39 and 64-71). The
 * sequences are the path taken for ordinary operands: ptxas guards IEEE division, reciprocal
 * and square root with a range check (FCHK, or an exponent test) and a branch to a slow-path
 * subroutine for denormals, infinities and huge or tiny quotients; that subroutine (CALL) is
 * not modelled. Dependences (dep[]) are the register and predicate data flow between the
 * sequence's instructions; reading the PTX operands needs them ready before the first one
 * issues (the scoreboard). Unit and latency class per SASS opcode:
 *   FFMA  SP MAD      FADD, FCHK, FSETP  SP ADD      FMUL  SP MUL
 *   DFMA  DP MAD      DMUL  DP MUL
 *   IMAD, IMAD.HI, IMAD.MOV  INT MAD      IADD3, LOP3, ISETP, IABS, MOV  INT ADD
 *   BRA   control (INT ADD)
 *   MUFU.RCP/RSQ/RCP64H/RSQ64H, I2F, F2I  the SFU, -trace_opcode_latency_initiation_sfu
 *     (conversions run at the MUFU's quarter rate on Volta/Turing: CUDA C++ Programming
 *     Guide, arithmetic instruction throughput, compute capability 7.x: 16 results per clock
 *     per SM for both)
 * Instruction counts per PTX instruction (the fast path): div.rn.f32 8 (MUFU.RCP, FCHK, 5
 * FFMA, BRA), rcp.rn.f32 8, sqrt.rn.f32 8, div.rn.f64 14, rcp.rn.f64 9, sqrt.rn.f64 16,
 * div.u32 18, rem.u32 17, div.s32 24, rem.s32 22. 64-bit integer division and remainder call a
 * subroutine even on the fast path and stay one instruction of the DIV class.
 */
#include "timing/expand.h"

#include <stddef.h>

#define OP_(k, u, l, a, b) {(k), (u), (l), {(a), (b)}}
#define F(l, a, b) OP_(TM_UOP_ALU, U_SP, LAT_##l, a, b)
#define D(l, a, b) OP_(TM_UOP_ALU, U_DP, LAT_##l, a, b)
#define I(l, a, b) OP_(TM_UOP_ALU, U_INT, LAT_##l, a, b)
#define B(a) OP_(TM_UOP_ALU, U_CTRL, LAT_ADD, a, -1)
#define M(a) OP_(TM_UOP_MUFU, U_SFU, LAT_SFU, a, -1)
#define N -1

/* div.rn.f32 d, a, b: r = MUFU.RCP b; FCHK P, a, b; e = -b*r+1; r = r*e+r; q = a*r;
 * e = -b*q+a; d = r*e+q; @!P BRA past the slow path */
static const struct tm_uop div_rn_f32[] = {
    M(N), F(ADD, N, N), F(MAD, 0, N), F(MAD, 2, 0), F(MAD, 3, N), F(MAD, 4, N), F(MAD, 5, 3),
    B(1)};
/* rcp.rn.f32 d, x: exponent test (IADD3, LOP3, ISETP, BRA), r = MUFU.RCP x; e = -x*r-1;
 * e = -e; d = r*e+r */
static const struct tm_uop rcp_rn_f32[] = {
    I(ADD, N, N), I(ADD, 0, N), I(ADD, 1, N), B(2), M(N), F(MAD, 4, N), F(ADD, 5, N),
    F(MAD, 6, 4)};
/* sqrt.rn.f32 d, x: IADD3 (range), r = MUFU.RSQ x, ISETP, BRA; s = x*r; h = r*0.5;
 * e = -s*s+x; d = e*h+s */
static const struct tm_uop sqrt_rn_f32[] = {
    I(ADD, N, N), M(N), I(ADD, 0, N), B(2), F(MUL, 1, N), F(MUL, 1, N), F(MAD, 4, N),
    F(MAD, 6, 5)};
/* div.rn.f64: MUFU.RCP64H, FSETP, Newton-Raphson in DFMA, DMUL, the correction, then the
 * range check (FFMA, FSETP) and BRA */
static const struct tm_uop div_rn_f64[] = {
    I(MAD, N, N), M(N), F(ADD, N, N), D(MAD, 1, 0), D(MAD, 3, N), D(MAD, 4, 1), D(MAD, 5, N),
    D(MAD, 6, 5), D(MUL, 7, N), D(MAD, 8, N), D(MAD, 9, 7), F(MAD, 1, N), F(ADD, 11, 2),
    B(12)};
/* rcp.rn.f64: MUFU.RCP64H, IADD3 and FSETP (range), four DFMA, BRA */
static const struct tm_uop rcp_rn_f64[] = {
    M(N), I(ADD, N, N), F(ADD, 1, N), D(MAD, 0, N), D(MAD, 3, N), D(MAD, 4, 0), D(MAD, 5, N),
    D(MAD, 6, 5), B(2)};
/* sqrt.rn.f64: constants (IMAD.MOV), MUFU.RSQ64H, range (IADD3, ISETP), DMUL/DFMA refinement,
 * BRA */
static const struct tm_uop sqrt_rn_f64[] = {
    I(MAD, N, N), I(MAD, N, N), M(N), I(ADD, N, N), I(ADD, 3, N), D(MUL, 2, N), D(MAD, 5, N),
    D(MAD, 6, 1), D(MUL, 6, 2), D(MAD, 8, 7), D(MUL, 9, N), I(ADD, 9, N), I(MAD, 9, N),
    D(MAD, 10, N), D(MAD, 13, 12), B(4)};
/* div.u32 d, a, b: I2F.U32.RP b, IMAD.MOV -b, ISETP b != 0, MUFU.RCP, IADD3, F2I (reciprocal
 * estimate), IMAD/IMAD.HI refinement, q = hi(a*r), remainder, two conditional increments
 * (ISETP, IADD3), LOP3 for b == 0 */
static const struct tm_uop div_u32[] = {
    M(N), I(MAD, N, N), I(ADD, N, N), M(0), I(ADD, 3, N), M(4), I(ADD, N, N), I(MAD, 5, 1),
    I(MAD, 7, N), I(MAD, 8, N), I(MAD, 9, N), I(MAD, 10, N), I(ADD, 11, N), I(ADD, 12, N),
    I(ADD, 12, 9), I(ADD, 13, N), I(ADD, 15, 14), I(ADD, 16, 2)};
/* rem.u32: as div.u32 up to the remainder, then two conditional subtractions and LOP3 */
static const struct tm_uop rem_u32[] = {
    M(N), I(MAD, N, N), I(ADD, N, N), M(0), I(ADD, 3, N), M(4), I(ADD, N, N), I(MAD, 5, 1),
    I(MAD, 7, N), I(MAD, 8, N), I(MAD, 9, N), I(MAD, 10, N), I(ADD, 11, N), I(ADD, 12, N),
    I(ADD, 13, N), I(ADD, 14, N), I(ADD, 15, 2)};
/* div.s32: IABS of both operands, the unsigned algorithm on them, the sign (LOP3, ISETP,
 * IMAD.MOV negation) and the b == 0 case */
static const struct tm_uop div_s32[] = {
    I(ADD, N, N), I(ADD, N, N), M(0), M(2), I(ADD, 3, N), I(ADD, N, N), I(ADD, N, N), M(4),
    I(ADD, N, N), I(MAD, N, N), I(MAD, 7, N), I(MAD, 10, 0), I(MAD, 1, N), I(MAD, 11, N),
    I(MAD, 13, 5), I(MAD, 14, 12), I(ADD, 15, N), I(MAD, 16, N), I(ADD, 16, N), I(ADD, 6, N),
    I(ADD, 17, N), I(ADD, 20, 18), I(MAD, 21, 19), I(ADD, 22, 8)};
/* rem.s32: IABS of both operands, the unsigned remainder, its sign and the b == 0 case */
static const struct tm_uop rem_s32[] = {
    I(ADD, N, N), I(ADD, N, N), I(ADD, N, N), M(0), I(ADD, N, N), M(3), I(ADD, 5, N),
    I(ADD, 1, N), M(6), I(MAD, N, N), I(MAD, 8, N), I(MAD, 10, 0), I(MAD, 11, N),
    I(MAD, 12, 2), I(MAD, 13, 7), I(ADD, 14, N), I(MAD, 15, N), I(ADD, N, N), I(ADD, 16, N),
    I(MAD, 18, N), I(ADD, 19, 4), I(ADD, 20, 17)};

#define SEQ(name, arr, res) {name, (uint8_t)(sizeof arr / sizeof arr[0]), res, arr}
static const struct tm_useq seqs[] = {
    SEQ("div.rn.f32", div_rn_f32, 6),  SEQ("rcp.rn.f32", rcp_rn_f32, 7),
    SEQ("sqrt.rn.f32", sqrt_rn_f32, 7), SEQ("div.rn.f64", div_rn_f64, 10),
    SEQ("rcp.rn.f64", rcp_rn_f64, 7),  SEQ("sqrt.rn.f64", sqrt_rn_f64, 14),
    SEQ("div.u32", div_u32, 17),       SEQ("rem.u32", rem_u32, 16),
    SEQ("div.s32", div_s32, 23),       SEQ("rem.s32", rem_s32, 21),
};
enum { S_DIV_F32, S_RCP_F32, S_SQRT_F32, S_DIV_F64, S_RCP_F64, S_SQRT_F64, S_DIV_U32,
       S_REM_U32, S_DIV_S32, S_REM_S32 };

const struct tm_useq *tm_useq_lookup(const struct ir_insn *in)
{
    unsigned t = in->type[0];
    switch (in->op) {
    case OP_DIV:
        if (t == T_F32 || t == T_F64) /* IEEE (a rounding modifier), not .approx / .full */
            return in->rnd ? &seqs[t == T_F32 ? S_DIV_F32 : S_DIV_F64] : NULL;
        return t == T_S32 ? &seqs[S_DIV_S32] : t == T_U32 ? &seqs[S_DIV_U32] : NULL;
    case OP_REM:
        return t == T_S32 ? &seqs[S_REM_S32] : t == T_U32 ? &seqs[S_REM_U32] : NULL;
    case OP_RCP:
        if (!in->rnd)
            return NULL;
        return t == T_F32 ? &seqs[S_RCP_F32] : t == T_F64 ? &seqs[S_RCP_F64] : NULL;
    case OP_SQRT:
        if (!in->rnd)
            return NULL;
        return t == T_F32 ? &seqs[S_SQRT_F32] : t == T_F64 ? &seqs[S_SQRT_F64] : NULL;
    default:
        return NULL;
    }
}

const struct tm_useq *tm_useq_all(unsigned *n)
{
    *n = sizeof seqs / sizeof seqs[0];
    return seqs;
}
