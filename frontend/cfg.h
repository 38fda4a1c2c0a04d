/*
 * frontend/cfg.h — control-flow graph of one function: basic blocks (PC ranges), successor and
 * predecessor lists, reachability, dominators and post-dominators, and the virtual exit.
 *
 * Built by cfg_build_module (passes.h) after predecode; ir_func.cfg points to it. Block ids are
 * in PC order (block 0 starts at PC 0). Block id `exit` (== nblocks) is the virtual exit: every
 * block ending in exit/ret/trap (or falling off the end of the function) has an edge to it, and
 * so does one block of every region that cannot reach it otherwise (an infinite loop), so that
 * post-dominators are defined for every block. The immediate post-dominator of the block of a
 * branch is the branch's reconvergence point (ir_insn.reconv = first PC of that block, IR_NOPC
 * when it is the virtual exit) — the scheme of GPGPU-Sim's SIMT stack.
 *
 * Each cfg is one allocation (struct + arrays); free it with cfg_free.
 */
#ifndef PTXEMU_CFG_H
#define PTXEMU_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "frontend/ir.h"

#define CFG_NONE UINT32_MAX

/* Why an edge exists (printing: T/F labels, dashed virtual edges). */
enum cfg_edge_kind {
    CE_FALL,    /* fall-through (also the not-taken side of a guarded branch/exit/ret) */
    CE_TAKEN,   /* taken side of a guarded bra */
    CE_JUMP,    /* unguarded bra */
    CE_TABLE,   /* brx.idx target */
    CE_BREAK,   /* PTXPlus break to its breakaddr target */
    CE_EXIT,    /* exit / ret / trap / retp / end of function -> virtual exit */
    CE_VIRTUAL, /* added so an infinite loop reaches the virtual exit (post-dominators only) */
};

struct cfg_edge {
    uint32_t to;  /* block id (cfg.exit for the virtual exit) */
    uint8_t kind; /* enum cfg_edge_kind */
};

enum {
    CB_REACHABLE = 1 << 0, /* reachable from the entry (PC 0) */
    CB_EXIT = 1 << 1,      /* has a CE_EXIT edge */
    CB_VIRTUAL = 1 << 2,   /* has a CE_VIRTUAL edge (chosen block of an infinite loop) */
};

struct cfg_block {
    uint32_t first, last; /* PC range, inclusive */
    uint32_t succ, nsucc; /* cfg.succ[succ .. succ + nsucc) */
    uint32_t pred, npred; /* cfg.pred[pred .. pred + npred): block ids */
    uint32_t idom;        /* immediate dominator; CFG_NONE for block 0 and unreachable blocks */
    uint32_t ipdom;       /* immediate post-dominator (cfg.exit = virtual exit); CFG_NONE for
                             the virtual exit itself */
    uint32_t rpo;         /* index in reverse postorder from the entry; CFG_NONE if unreachable */
    uint32_t line_lo, line_hi; /* PTX source lines covered */
    uint8_t flags;        /* CB_* */
};

struct cfg {
    uint32_t ninsns;
    uint32_t nblocks;          /* real blocks, ids 0 .. nblocks-1 */
    uint32_t exit;             /* id of the virtual exit (== nblocks) */
    struct cfg_block *blocks;  /* nblocks + 1 entries; blocks[exit] is the virtual exit */
    struct cfg_edge *succ;     /* nedges */
    uint32_t *pred;            /* nedges */
    uint32_t nedges;
    uint32_t *block_of;        /* PC -> block id */
    uint32_t nvirtual;         /* CE_VIRTUAL edges added */
    size_t bytes;              /* size of the allocation */
};

/* Build the CFG of one function and set ir_insn.reconv of its instructions. Returns 0 and
 * stores the CFG (caller frees with cfg_free) in *out, or a negative error count after printing
 * diagnostics to diag (NULL: none). The function's own cfg pointer is not touched. */
int cfg_build(const struct ir_module *m, struct ir_func *f, FILE *diag, struct cfg **out);

/* Free a CFG (NULL is fine). */
void cfg_free(struct cfg *c);

/* Free the CFGs of every function of a module and clear ir_func.cfg (called by
 * ir_module_free and before rebuilding). */
void cfg_free_module(struct ir_module *m);

/* Does block a dominate block b (reflexive)? Walks the idom chain. */
bool cfg_dominates(const struct cfg *c, uint32_t a, uint32_t b);

/* Does block a (or the virtual exit) post-dominate block b (reflexive)? Walks the ipdom chain. */
bool cfg_postdominates(const struct cfg *c, uint32_t a, uint32_t b);

/* The most bitmap words cfg_undef_regs keeps (blocks x declared registers / 64): 8 M words,
 * 64 MiB, past which it gives up and marks every register. */
#define CFG_UNDEF_MAX_WORDS (UINT64_C(8) << 20)

/*
 * Which declared registers of f a thread may read before it writes them, on some path from the
 * entry: a forward must-analysis over c (a register is defined after an unguarded write on
 * every path to a point; guarded writes define nothing, since lanes whose guard is false keep
 * the old value). out[rf] (NULL to skip a register file) receives a bitmap of ndeclared[rf]
 * bits, rounded up to 64-bit words. Why: the interpreter starts a warp by zeroing only these
 * registers instead of its whole frame (registers start as 0 in ptxemu, repeatably), and an
 * initcheck-style report can name them. Needs the predecoded register lists (ir_insn_regs).
 * Returns 0, or -1 when it could not run (no CFG or register lists, more state than
 * CFG_UNDEF_MAX_WORDS, out of memory): then every declared register is marked.
 */
int cfg_undef_regs(const struct ir_func *f, const struct cfg *c, uint64_t *const out[RF__COUNT]);

/* Print the CFG of f (built by cfg_build_module) for people: per block its PC range, source
 * lines, successors, predecessors, idom and ipdom, and each branch with its reconvergence PC.
 * With dot, a Graphviz digraph instead: record nodes (PC range and first instruction), branch
 * edges labelled T/F, dashed reconvergence edges. f NULL: every defined function of the module,
 * in order, separated by a blank line. Used by `ptxemu cfg`. */
void cfg_print(FILE *out, const struct ir_module *m, const struct ir_func *f, bool dot);

/* Print a compiler-style diagnostic `file:line:col: error: message`, the source line and a
 * caret under the column (shared by cfg.c, predecode.c and verify.c; printed by diag.c's
 * diag_vprint_at, like every diagnostic). diag NULL: nothing. */
void cfg_error_at(FILE *diag, const struct ir_module *m, uint32_t line, uint32_t col,
                  const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* Registers per thread function f needs (most 32-bit registers live at once over f->cfg; a
 * .b64 counts 2, predicates 0): what occupancy and cudaFuncGetAttributes use. Without a CFG,
 * the declared count. (regs.c) */
uint32_t ir_reg_pressure(const struct ir_func *f);
/* Registers per thread of kernel f of module m: its pressure, with calls the most any function
 * of m needs plus the ABI's, plus what an allocator reserves; 8 to 255 as ptxas allocates.
 * interp_kernel_info.nregs and `ptxemu info` report it. (regs.c) */
uint32_t ir_kernel_regs(const struct ir_module *m, const struct ir_func *f);

#endif
