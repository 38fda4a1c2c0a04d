/*
 * frontend/verify_int.h — what the IR verifier's files share (verify.c: operands, operand
 * types, the CFG and ir_verify; verify_form.c: instruction forms and calls). Not public:
 * passes.h declares ir_verify.
 */
#ifndef PTXEMU_FRONTEND_VERIFY_INT_H
#define PTXEMU_FRONTEND_VERIFY_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "frontend/cfg.h"
#include "frontend/passes.h"

/* One verification run: the module, the function being checked, where diagnostics go and
 * how many errors so far. */
struct vctx {
    const struct ir_module *m;
    const struct ir_func *f;
    FILE *diag;
    int nerr;
    bool addr16; /* some .global/generic access has a 16-bit address register (narrow_addrs) */
};

/* Report an error at instruction in (NULL: the function's line); at most 50 are printed. */
#define VERR(v, in, ...)                                                                      \
    do {                                                                                      \
        (v)->nerr++;                                                                          \
        if ((v)->nerr <= 50)                                                                  \
            cfg_error_at((v)->diag, (v)->m, (in) ? (in)->line : (v)->f->line,                 \
                         (in) ? (in)->col : 1, __VA_ARGS__);                                  \
    } while (0)

/* Kinds of types for ptxas's operand rules (verify.c, above reg_fits). */
enum tkind { TK_OTHER, TK_PRED, TK_B, TK_I, TK_F, TK_H2, TK_BH };

/* The declaration of every declared register slot of the function (per register file:
 * index into f->regdecls, UINT32_MAX for none), so operands can be checked against the type
 * the PTX declared (the IR keeps only the register file). */
struct declmap {
    uint32_t *of[RF__COUNT];
};

/* verify.c: the kind of type t. */
enum tkind type_kind(unsigned t);
/* verify.c: does a register declared rt fit a position of type it? wide: the relaxed
 * ld/st/cvt data rule; elem: an element of a vector operand. */
bool reg_fits(unsigned it, unsigned rt, bool wide, bool elem);
/* verify.c: the declaration of register operand o, NULL when it has none. */
const struct ir_regdecl *decl_of(const struct declmap *dm, const struct ir_func *f,
                                 const struct ir_opnd *o);
/* verify.c: the PTX name of register operand o (declaration d) into nm. */
void reg_name(const struct vctx *v, const struct ir_regdecl *d, const struct ir_opnd *o,
              char *nm, size_t cap);
/* verify.c: the format characters of op's operand positions (ops.def); their count. */
unsigned fmt_positions(enum ir_op op, char *pos, unsigned cap);
/* verify.c: is op one whose operand types and forms were probed on ptxas? */
bool typed_op(unsigned op);
/* verify.c: report register operand o (operand idx of in) unless its type fits want. */
void check_reg(struct vctx *v, const struct declmap *dm, const struct ir_insn *in,
               const struct ir_opnd *o, unsigned idx, unsigned want, bool wide, bool elem);

/* verify_form.c: modifiers and instruction types of in as ptxas counts them (typed: a
 * probed opcode). */
void verify_form(struct vctx *v, const struct ir_insn *in, bool typed);
/* verify_form.c: the fixed operand rules of instructions outside the typed list. */
void verify_other(struct vctx *v, const struct declmap *dm, const struct ir_insn *in);
/* verify_form.c: forms of untyped instructions probed on ptxas (isspacep, vote, matrix,
 * texture and surface, elect, match, mbarrier). */
void verify_probed_forms(struct vctx *v, const struct declmap *dm, const struct ir_insn *in);
/* verify_form2.c: more forms probed on ptxas (bmsk, wmma.store, tex and wgmma types; tensor
 * coordinates, cp.async, wgmma and surface data operands); verify_probed_forms calls it. */
void verify_probed_forms2(struct vctx *v, const struct declmap *dm, const struct ir_insn *in);
/* verify_form.c: is register operand o (when it is one) a `size`-byte bit or integer
 * register, or not a declared register at all? */
bool int_reg_ok(const struct declmap *dm, const struct ir_func *f, const struct ir_opnd *o,
                unsigned size);
/* verify_form.c: is modifier md among in's? */
bool has_mod(const struct ir_func *f, const struct ir_insn *in, enum ir_mod md);
/* verify_form.c: a direct call's return values and arguments against the callee. */
void verify_call(struct vctx *v, const struct declmap *dm, const struct ir_insn *in);
/* verify_form.c: the type the {...} vector o (operand idx of in) counts as by ptxas's vector
 * rule (check_ldst_vec); T_NONE when it has no register elements or they do not agree
 * (reported). *first: the first register's declaration when every element has its type,
 * else NULL; *firsto: its operand. Either may be NULL. */
unsigned vec_type(struct vctx *v, const struct declmap *dm, const struct ir_insn *in,
                  const struct ir_opnd *o, unsigned idx, const struct ir_regdecl **first,
                  const struct ir_opnd **firsto);
/* verify_form.c: the {...} data vector o (operand idx) of ld/ldu/st or tex against want. */
void check_ldst_vec(struct vctx *v, const struct declmap *dm, const struct ir_insn *in,
                    const struct ir_opnd *o, unsigned idx, unsigned want);
/* verify_form.c: the coordinates of a texture / surface / tensor-copy address by that rule. */
void check_coord_vec(struct vctx *v, const struct declmap *dm, const struct ir_insn *in,
                     const struct ir_opnd *o, unsigned idx, unsigned want);
/* verify_form3.c: the coordinates of texture / surface address operand o (operand idx). */
void tex_coords(struct vctx *v, const struct declmap *dm, const struct ir_insn *in,
                const struct ir_opnd *o, unsigned idx);
/* verify_form3.c: the result, coordinates, level, gradients, offsets and depth-compare value
 * of tex and tld4. */
void tex_operands(struct vctx *v, const struct declmap *dm, const struct ir_insn *in);
/* verify_form3.c: cvt to or from a packed pair of 8-, 6- or 4-bit floats (.e4m3x2 ...). */
void cvt_packed(struct vctx *v, const struct declmap *dm, const struct ir_insn *in);
/* The sm_100 mixed-precision add / sub / fma .f32.{f16, bf16} forms' opcodes, modifiers and
 * operands as ptxas 13 takes them (verify_form3.c). */
void mixed_f32(struct vctx *v, const struct declmap *dm, const struct ir_insn *in);
/* verify_form3.c: one rounding modifier at most, and only where the instruction rounds. */
void rounding_forms(struct vctx *v, const struct ir_insn *in);
/* verify_form3.c: the state spaces each memory instruction takes, as ptxas 13. */
void space_forms(struct vctx *v, const struct ir_insn *in);
/* verify_form3.c: multimem scopes, clusterlaunchcontrol.query_cancel, st.async vectors,
 * cp.reduce.async.bulk operation/type pairs, tex.f16 results. */
void misc_forms(struct vctx *v, const struct declmap *dm, const struct ir_insn *in);
/* verify_form3.c: mma layouts, wmma.mma integer fragments, tcgen05 addresses, formats and
 * enable-input-d, the bulk copies' cache-policy operand. */
void tensor_forms(struct vctx *v, const struct declmap *dm, const struct ir_insn *in);

/* verify_form2.c: the data operand di of in (a register or a {...} vector) against type t,
 * as ptxas types multimem's and st.async's data. */
void data_opnd(struct vctx *v, const struct declmap *dm, const struct ir_insn *in, unsigned di,
               unsigned t);
/* verify_form4.c: atom / red operation and type pairs, .noftz and vector forms. */
void atom_red_forms(struct vctx *v, const struct ir_insn *in);
/* verify_form4.c: the forms scripts/ptxas-diff.pl seeds 12-21 found (a modifier repeating
 * the mnemonic, memory orders and scopes of ld / st / multimem, griddepcontrol, mma.sp
 * .aligned, surface and setmaxnreg types, st.async data, query_cancel's predicate, cache
 * policies, mma scale selectors and scale-vector size, sub-byte wmma C, bulk tensor value
 * operands, tensormap.replace .tile, indirect-call targets, .relu types). */
void seed_forms(struct vctx *v, const struct declmap *dm, const struct ir_insn *in);

#endif
