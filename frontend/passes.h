/*
 * frontend/passes.h — the passes fe_load runs after the builder, in this order.
 * Each returns 0, or a negative count of errors reported to diag as compiler diagnostics.
 */
#ifndef PTXEMU_PASSES_H
#define PTXEMU_PASSES_H

#include <stdio.h>

#include "frontend/ir.h"

/* predecode.c: lay out variables (module segments, CTA shared, local frames, parameter blocks
 * per the PTX ABI), give every immediate / symbol-address operand a constant slot and every
 * special-register operand a per-warp slot (filling ir_func.nslots, const_vals, sreg_slots),
 * and fill the per-instruction timing facts (unit by type, access width, iflags). */
int ir_predecode(struct ir_module *m, FILE *diag);

/* cfg.c: basic blocks, dominators, post-dominators (virtual exit), and the reconvergence PC
 * (immediate post-dominator) of every branch, stored in ir_insn.reconv; ir_func.cfg set. */
int cfg_build_module(struct ir_module *m, FILE *diag);

/* verify.c: every branch's reconvergence PC post-dominates it, every register operand slot is
 * in range, every PC/target in range. Run by fe_load when opts->verify or in PTXEMU_DEBUG. */
int ir_verify(const struct ir_module *m, FILE *diag);

/* Free what ir_predecode and cfg_build_module allocated for a module (constant images,
 * special-register and address slot lists, CFGs) and reset those fields; safe to call on a
 * module the passes never ran on. ir_module_free calls it. (predecode.c) */
void ir_passes_free(struct ir_module *m);

#endif
