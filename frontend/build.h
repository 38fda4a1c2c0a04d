/*
 * frontend/build.h — internal interface between the lexer (ptx.re), the grammar (ptx.y) and
 * the builder (build*.c, pieces listed in build_int.h), plus the module arena of ir.c. Not a public header: only frontend/
 * sources include it.
 *
 * The grammar is an event stream: every lemon action is one call into the builder, made in
 * source order (LALR reduces left to right), and the builder is a state machine that turns the
 * events into struct ir_module (ir.h).
 */
#ifndef PTXEMU_BUILD_H
#define PTXEMU_BUILD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "frontend/diag.h"
#include "frontend/ir.h"

/* ------------------------------------------------------------------- arena (ir.c) */
struct ir_arena *ir_arena_new(void);
void *ir_arena_alloc(struct ir_arena *a, size_t n);
int ir_arena_adopt(struct ir_arena *a, void *p);
void ir_arena_free(struct ir_arena *a);

/* ------------------------------------------------------------------ lexer (ptx.re) */

/* A token: its bytes are text[off, off + len); line is 1-based. */
struct ptx_tok {
    uint32_t off, len, line;
};

struct ptx_lexer {
    const char *text;   /* NUL-terminated */
    size_t len;
    const char *cur;
    uint32_t line;
    struct diag *diag;
};

void ptx_lex_init(struct ptx_lexer *lx, const char *text, size_t len, struct diag *d);
/* Next token code (TK_* of ptx_gram.h), 0 at end of input. Bad characters are reported to
 * the diagnostics and skipped. */
int ptx_lex(struct ptx_lexer *lx, struct ptx_tok *t);

/* ---------------------------------------------------------------- parser (ptx.y) */
void *ptx_parseAlloc(void *(*malloc_proc)(size_t));
void ptx_parseFree(void *p, void (*free_proc)(void *));
struct ptx_builder;
void ptx_parse(void *p, int major, struct ptx_tok minor, struct ptx_builder *b);

/* ------------------------------------------------------------- builder (build*.c) */

/* Run lexer + parser + builder over text (NUL-terminated, len bytes). Returns the module (also
 * when there were errors, so diagnostics can be complete) and the number of errors via *nerr.
 * NULL only when out of memory. */
struct ir_module *ptx_build(const char *text, size_t len, const char *filename,
                            struct diag *d, int *nerr);

/* Architecture-specific (`a`) and family (`f`) targets that ptxas 13 knows, as bits of the
 * arch column of isa_req.def: a row with a non-zero arch exists only on the targets in its
 * set (wgmma: sm_90a only; tcgen05: the sm_100 and sm_110 families). ISA_AF_OTHER stands for
 * an a/f target not listed here (a later one); ISA_AF_ANY: every a/f target (needs one, any). */
enum {
    ISA_SM90A = 1 << 0,
    ISA_SM100A = 1 << 1,
    ISA_SM100F = 1 << 2,
    ISA_SM103A = 1 << 3,
    ISA_SM103F = 1 << 4,
    ISA_SM110A = 1 << 5,
    ISA_SM110F = 1 << 6,
    ISA_SM120A = 1 << 7,
    ISA_SM120F = 1 << 8,
    ISA_SM121A = 1 << 9,
    ISA_SM121F = 1 << 10,
    ISA_AF_OTHER = 1 << 11,
    ISA_AF_ANY = (1 << 12) - 1,
    /* families (sm_100f runs on sm_100 and sm_103; sm_120f on sm_120 and sm_121) */
    ISA_FAM_SM100 = ISA_SM100A | ISA_SM100F | ISA_SM103A | ISA_SM103F,
    ISA_FAM_SM110 = ISA_SM110A | ISA_SM110F,
    ISA_FAM_SM120 = ISA_SM120A | ISA_SM120F | ISA_SM121A | ISA_SM121F,
};

/* The minimum PTX ISA version (major << 8 | minor), target (sm_NN) and architecture-specific
 * target set (0, or the ISA_SM* bits of the targets that have it) of an opcode (isa_req.def);
 * all 0 for opcodes without a row (PTXPlus-only). For tests and tools: the builder notes
 * instructions newer than the module's .version and .target itself. */
void ptx_isa_op_req(unsigned op, unsigned *ver, unsigned *sm, int *arch);

/* Decode an integer literal token (all PTX forms, U suffix, WARP_SZ). Returns 0 or -1 on
 * overflow/bad. */
int ptx_parse_int(const char *s, size_t len, uint64_t *out);

/* Events (grammar actions). Specs of declarations: */
enum b_spec { BS_LINK, BS_SPACE, BS_ALIGN, BS_VEC, BS_TYPE, BS_PTR, BS_ATTR, BS_DOTNAME };
void b_syntax_error(struct ptx_builder *b, int major, struct ptx_tok t);
void b_parser_oom(struct ptx_builder *b);
void b_version(struct ptx_builder *b, struct ptx_tok t);
void b_target(struct ptx_builder *b, struct ptx_tok t);
void b_address_size(struct ptx_builder *b, struct ptx_tok kw, struct ptx_tok t);
void b_file(struct ptx_builder *b, struct ptx_tok idx, struct ptx_tok name);
void b_loc(struct ptx_builder *b, struct ptx_tok file, struct ptx_tok line, struct ptx_tok col);
void b_section(struct ptx_builder *b, struct ptx_tok t);
void b_pragma(struct ptx_builder *b, struct ptx_tok t);
void b_pragma_kw(struct ptx_builder *b, struct ptx_tok kw);
void b_pragma_end(struct ptx_builder *b);
void b_alias(struct ptx_builder *b, struct ptx_tok kw, struct ptx_tok a, struct ptx_tok c);

void b_spec(struct ptx_builder *b, enum b_spec kind, struct ptx_tok t);
void b_spec_align(struct ptx_builder *b, struct ptx_tok n);
void b_decl_name(struct ptx_builder *b, struct ptx_tok name);
void b_decl_range(struct ptx_builder *b, struct ptx_tok name, struct ptx_tok n);
void b_decl_dim(struct ptx_builder *b, struct ptx_tok n, int has);
void b_decl_finish(struct ptx_builder *b);
void b_decl_end(struct ptx_builder *b);
void b_init_open(struct ptx_builder *b, struct ptx_tok t);
void b_init_close(struct ptx_builder *b);
void b_init_num(struct ptx_builder *b, struct ptx_tok t, int neg);
void b_init_sym(struct ptx_builder *b, struct ptx_tok fn, struct ptx_tok sym, int has_fn,
                struct ptx_tok add, int addsign);

void b_init_mask(struct ptx_builder *b, struct ptx_tok mask, struct ptx_tok fn,
                 struct ptx_tok sym, int has_fn, struct ptx_tok add, int addsign);
void b_init_field(struct ptx_builder *b, struct ptx_tok key, struct ptx_tok val, int is_int);
void b_func_unified(struct ptx_builder *b, struct ptx_tok attr, struct ptx_tok x,
                    struct ptx_tok y);

void b_func_head(struct ptx_builder *b, struct ptx_tok kw, int is_entry);
void b_params_ret(struct ptx_builder *b);
void b_func_name(struct ptx_builder *b, struct ptx_tok name);
void b_param_name(struct ptx_builder *b, struct ptx_tok name);
void b_perf(struct ptx_builder *b, struct ptx_tok t);
void b_perf_int(struct ptx_builder *b, struct ptx_tok t);
void b_func_body(struct ptx_builder *b, struct ptx_tok t);
void b_func_end(struct ptx_builder *b, struct ptx_tok t);
void b_func_decl_end(struct ptx_builder *b);
void b_scope_begin(struct ptx_builder *b, struct ptx_tok t);
void b_scope_end(struct ptx_builder *b);

void b_label(struct ptx_builder *b, struct ptx_tok t);
void b_table_begin(struct ptx_builder *b, struct ptx_tok name, struct ptx_tok kw, int is_call);
void b_table_entry(struct ptx_builder *b, struct ptx_tok t);
void b_table_end(struct ptx_builder *b);
void b_proto(struct ptx_builder *b, struct ptx_tok name, struct ptx_tok kw, struct ptx_tok semi);

void b_guard(struct ptx_builder *b, struct ptx_tok t, int neg);
void b_insn_begin(struct ptx_builder *b, struct ptx_tok t);
void b_insn_end(struct ptx_builder *b, struct ptx_tok semi);
void b_o_id(struct ptx_builder *b, struct ptx_tok t, int flags);
void b_c_add(struct ptx_builder *b, struct ptx_tok t, int neg);
void b_o_idoff(struct ptx_builder *b, struct ptx_tok t, int neg);
void b_o_csum(struct ptx_builder *b);
void b_o_num(struct ptx_builder *b, struct ptx_tok t, int neg);
void b_o_sink(struct ptx_builder *b, struct ptx_tok t);
void b_o_pipe(struct ptx_builder *b);
void b_o_list_begin(struct ptx_builder *b, struct ptx_tok t, int kind);
void b_o_list_end(struct ptx_builder *b);
void b_a_begin(struct ptx_builder *b, struct ptx_tok t);
void b_a_base(struct ptx_builder *b, struct ptx_tok t, int is_num);
void b_a_off(struct ptx_builder *b, struct ptx_tok t, int neg);
void b_a_csum(struct ptx_builder *b);
void b_a_end(struct ptx_builder *b);
void b_a_postinc(struct ptx_builder *b, struct ptx_tok t);
void b_t_handle(struct ptx_builder *b, struct ptx_tok t);
void b_t_end(struct ptx_builder *b);
void b_pp_end(struct ptx_builder *b, struct ptx_tok space);
void b_o_flag(struct ptx_builder *b, int flags);

#endif
