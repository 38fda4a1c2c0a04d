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
 * and fill the per-instruction timing facts (unit by type, latency class, access width,
 * iflags) and register lists (ir_func.regrefs: destinations then sources). */
int ir_predecode(struct ir_module *m, FILE *diag);

/* cfg.c: basic blocks, dominators, post-dominators (virtual exit), and the reconvergence PC
 * (immediate post-dominator) of every branch, stored in ir_insn.reconv; ir_func.cfg set. */
int cfg_build_module(struct ir_module *m, FILE *diag);

/* verify.c: every branch's reconvergence PC post-dominates it, every register operand slot is
 * in range, every PC/target in range; and, for PTX (not PTXPlus), operand types, addresses and
 * instruction forms as ptxas checks them. Run by fe_load when opts->verify (`ptxemu check`)
 * or in PTXEMU_DEBUG. */
int ir_verify(const struct ir_module *m, FILE *diag);

/* Free what ir_predecode and cfg_build_module allocated for a module (constant images,
 * special-register and address slot lists, CFGs) and reset those fields; safe to call on a
 * module the passes never ran on. ir_module_free calls it. (predecode.c) */
void ir_passes_free(struct ir_module *m);

/* Phases of fe_load, for fe_load_timed. FE_PH_BUILD is lex + parse + build together (the
 * grammar drives the lexer and calls the builder as it reduces). */
enum fe_phase { FE_PH_BUILD, FE_PH_PREDECODE, FE_PH_CFG, FE_PH_VERIFY, FE_PH__COUNT };

/* Seconds per phase of one load: wall clock (CLOCK_MONOTONIC) and CPU time of the calling
 * thread (CLOCK_THREAD_CPUTIME_ID, steadier on a loaded machine). Phases not run stay 0. */
struct fe_phase_times {
    double wall[FE_PH__COUNT];
    double cpu[FE_PH__COUNT];
};

struct fe_opts;
struct ir_module;

/* fe_load (frontend.h) that also measures each phase into *t (load.c). For the front-end
 * benchmark (tests/bench/frontend_bench.c): fe_load itself measures nothing. */
int fe_load_timed(const char *text, size_t len, const char *filename,
                  const struct fe_opts *opts, struct ir_module **out, struct fe_phase_times *t);

/* Run only the lexer over text (need not be NUL-terminated) and return the number of tokens,
 * so the benchmark can split lexing from parsing + building (load.c). */
uint64_t fe_lex_only(const char *text, size_t len);

#endif
