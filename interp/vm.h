/*
 * interp/vm.h — the handler conventions shared by exec.c and every interp/ops/FAMILY.inc family.
 *
 * A family file is a list of handlers, each written once:
 *
 *     H(ADD_S32, OPC(ADD) && T0INT(32) && !HAS(SAT) && !HAS(CC),
 *         union r32 *d = V32(0), *a = V32(1), *b = V32(2);
 *         LANES(d[l].u = a[l].u + b[l].u);
 *     )
 *
 * and included several times with H defined differently (Spike / Wren style, one place per
 * handler): to make the handler enum (HMODE_ENUM), the selection function that interp/select.c
 * runs once per instruction at load (HMODE_SELECT: first matching row wins, so put specific rows
 * before general ones), the names (HMODE_NAME), and the dispatch bodies inside the exec loop
 * (HMODE_BODY). The body is the variadic tail, so it may contain commas.
 *
 * Inside a body (the exec loop provides these):
 *   w        struct warp *            the executing warp
 *   in       const struct ir_insn *   the instruction
 *   O        const struct ir_opnd *   its operands (O[0] …)
 *   M        uint32_t                 lanes to execute (active mask & guard predicate), != 0
 *   l        lane index inside LANES(...)
 * Register operands and immediates are all slots (immediates and symbol addresses are constant
 * slots filled when the warp starts), so a handler reads every value operand the same way.
 * A handler that can fault calls FAULT(...) which leaves the loop with a trap record.
 * The exec loop advances the PC after the body (VM_NEXT); control handlers set w->pc themselves
 * and use VM_JUMP.
 */
#ifndef PTXEMU_VM_H
#define PTXEMU_VM_H

#include <stdint.h>
#include <string.h>

#include "frontend/ir.h"
#include "interp/fpu.h" /* arithmetic helpers of the ALU handler families */

union r16 {
    uint16_t u;
    int16_t s;
};
union r32 {
    uint32_t u;
    int32_t s;
    float f;
};
union r64 {
    uint64_t u;
    int64_t s;
    double f;
};

/* ---------------------------------------------------------------- selection (load time only) */
#define OPC(x) (in->op == OP_##x)
#define T0(x) (in->type[0] == T_##x)
#define T1(x) (in->type[1] == T_##x)
#define RND(x) (in->rnd == RND_##x)
#define CMPOP(x) (in->cmp == CMP_##x)
#define MODE(x) (in->mode == MODE_##x)
#define SPACE(x) (in->space == SP_##x)
#define HAS(f) ((in->fl & IR_FL(FL_##f)) != 0)
#define VEC(n) (in->vec == (n))
#define NOPND(n) (in->nopnd == (n))
#define ORF(i, rf) (O[i].rf == RF_##rf)
#define OKIND(i, k) (O[i].kind == OPK_##k)
/* operand i is a vector {…} of n elements that are all registers of file X (selection only:
 * reads the function's operand list f->opnds) */
#define VECREGS(i, n, X) vm_vec_regs(f->opnds, &O[i], (n), RF_##X)
/* integer type of the given bit width (b/u/s) */
#define T0INT(bits) (vm_type_is_int(in->type[0]) && ir_type_size(in->type[0]) * 8 == (bits))
#define T0SIGNED (vm_type_is_signed(in->type[0]))

static inline int vm_type_is_int(unsigned t)
{
    return (t >= T_B8 && t <= T_S64);
}
static inline int vm_type_is_signed(unsigned t)
{
    return t >= T_S8 && t <= T_S64;
}
/* Is o a vector operand of n register elements of file rf (elements at all[o->first …])? */
static inline int vm_vec_regs(const struct ir_opnd *all, const struct ir_opnd *o, unsigned n,
                              unsigned rf)
{
    if (o->kind != OPK_VEC || o->n != n)
        return 0;
    for (unsigned k = 0; k < n; k++) {
        const struct ir_opnd *e = &all[o->first + k];
        if (e->kind != OPK_REG || e->rf != rf || e->slot == IR_NOSLOT)
            return 0;
    }
    return 1;
}

/* Is atom/red .mode.type one the engine implements (interp/ops/helpers.h vm_atom_elem)?
 * Selection only: a form it does not implement is "unsupported" at load, never a silent no-op
 * at run time. 16-bit: cas/exch.b16, add/min/max .f16/.bf16; 32-bit: every integer operation,
 * f32 add/min/max/exch/cas, add/min/max .f16x2/.bf16x2; 64-bit: every integer operation, f64
 * add/min/max/exch/cas. (.b128 cas/exch have their own handler.) */
static inline int vm_atom_form_ok(unsigned mode, unsigned t)
{
    const unsigned n = ir_type_size((enum ir_type)t);
    const int half = t == T_F16 || t == T_BF16 || t == T_F16X2 || t == T_BF16X2;
    const int flt = t == T_F32 || t == T_F64;
    const int minmax = mode == MODE_MIN || mode == MODE_MAX;
    if (half)
        return (n == 2 || n == 4) && (mode == MODE_ADD || minmax);
    if (n == 2)
        return vm_type_is_int(t) && (mode == MODE_CAS || mode == MODE_EXCH);
    if (n != 4 && n != 8)
        return 0;
    if (flt)
        return mode == MODE_ADD || minmax || mode == MODE_CAS || mode == MODE_EXCH;
    if (!vm_type_is_int(t))
        return 0;
    switch (mode) {
    case MODE_ADD: case MODE_AND: case MODE_OR: case MODE_XOR: case MODE_EXCH: case MODE_CAS:
    case MODE_MIN: case MODE_MAX: case MODE_INC: case MODE_DEC: return 1;
    default: return 0;
    }
}

/* ------------------------------------------------------------------------ operand access */
#define V16(i) (w->r16[O[i].slot])  /* union r16 [32] */
#define V32(i) (w->r32[O[i].slot])  /* union r32 [32] */
#define V64(i) (w->r64[O[i].slot])  /* union r64 [32] */
#define PRED(i) (w->pred[O[i].slot]) /* uint32_t lane mask */

/* The full-mask loop of LANES: register slots are whole 32-lane arrays that are either the
 * same or disjoint, so there is no loop-carried dependence (tell the vectorizer). */
#if defined(__clang__)
#define VM_IVDEP /* clang vectorizes with run-time alias checks; assume_safety warns */
#elif defined(__GNUC__)
#define VM_IVDEP _Pragma("GCC ivdep")
#else
#define VM_IVDEP
#endif

/* Run stmt for every lane l in M; the full-mask path has no per-lane test so it vectorizes. */
#define LANES(...)                                                                             \
    do {                                                                                       \
        if (M == 0xffffffffu) {                                                                \
            VM_IVDEP                                                                           \
            for (unsigned l = 0; l < 32; l++) {                                                \
                __VA_ARGS__;                                                                   \
            }                                                                                  \
        } else {                                                                               \
            for (unsigned l = 0; l < 32; l++) {                                                \
                if (M >> l & 1) {                                                              \
                    __VA_ARGS__;                                                               \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
    } while (0)

/* Write a predicate destination: bits of v in M replace those of the register. */
#define SETPRED(i, v) (PRED(i) = (PRED(i) & ~M) | ((v) & M))

/* Handler-file modes. */
#define HMODE_ENUM 1
#define HMODE_SELECT 2
#define HMODE_NAME 3
#define HMODE_BODY 4

#endif
