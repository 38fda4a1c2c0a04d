/*
 * interp/ops/alu_macros.h — macros shared by the ALU handler families (int.inc, fp.inc,
 * half.inc, cvt.inc, cmp.inc, sfu.inc). Macros only (no declarations), so the families may
 * include it wherever they are included (inside enums and functions).
 *
 * Selection conditions check every register operand's file (ARF) so that a handler never
 * reads a slot of the wrong width: an instruction whose operands do not fit gets no handler
 * (reported as unsupported at load) instead of a wrong answer.
 */
#ifndef PTXEMU_ALU_MACROS_H
#define PTXEMU_ALU_MACROS_H

/* operand i is a value slot of register file X */
#define ARF(i, X) (O[i].rf == RF_##X && O[i].slot != IR_NOSLOT && O[i].kind != OPK_VEC)
#define ARF2(X) (ARF(0, X) && ARF(1, X))
#define ARF3(X) (ARF(0, X) && ARF(1, X) && ARF(2, X))
#define ARF4(X) (ARF(0, X) && ARF(1, X) && ARF(2, X) && ARF(3, X))
/* type tests */
#define T0IN2(x, y) (T0(x) || T0(y))
#define T0U(bits) (T0INT(bits) && !T0SIGNED)
#define T0S(bits) (T0INT(bits) && T0SIGNED)
#define T1INT(bits) (vm_type_is_int(in->type[1]) && ir_type_size(in->type[1]) * 8 == (bits))
#define T1SIGNED (vm_type_is_signed(in->type[1]))
#define T1U(bits) (T1INT(bits) && !T1SIGNED)
#define T1S(bits) (T1INT(bits) && T1SIGNED)
/* rounding mode of the instruction as an enum fpu_mode (no modifier = .rn) */
#define ALU_FMODE(r)                                                                           \
    ((r) == RND_RZ || (r) == RND_RZI ? FPU_RZ                                                  \
     : (r) == RND_RM || (r) == RND_RMI ? FPU_RM                                                \
     : (r) == RND_RP || (r) == RND_RPI ? FPU_RP                                                \
     : (r) == RND_RNA                  ? FPU_RNA                                               \
                                       : FPU_RN)
/* lane mask of a predicate source, honouring !%p */
#define QV(i) (PRED(i) ^ ((O[i].flags & OPF_NEG) ? 0xffffffffu : 0u))
/* combine a comparison result with predicate c by the instruction's .and/.or/.xor */
#define ALU_BOP(r, c)                                                                          \
    (in->bop == BOP_AND ? ((r) & (c)) : in->bop == BOP_OR ? ((r) | (c))                        \
     : in->bop == BOP_XOR ? ((r) ^ (c)) : (r))

/* d = EXPR over lanes, all operands of width W (16/32/64) */
#define ALU_BIN(NAME, W, COND, EXPR)                                                           \
    H(NAME, (COND) && ARF3(B##W),                                                              \
      union r##W *d = V##W(0), *a = V##W(1), *b = V##W(2);                                     \
      LANES(d[l].u = (EXPR));)
#define ALU_UN(NAME, W, COND, EXPR)                                                            \
    H(NAME, (COND) && ARF2(B##W),                                                              \
      union r##W *d = V##W(0), *a = V##W(1);                                                   \
      LANES(d[l].u = (EXPR));)
#define ALU_TER(NAME, W, COND, EXPR)                                                           \
    H(NAME, (COND) && ARF4(B##W),                                                              \
      union r##W *d = V##W(0), *a = V##W(1), *b = V##W(2), *c = V##W(3);                      \
      LANES(d[l].u = (EXPR));)

#endif
