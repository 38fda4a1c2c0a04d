/*
 * frontend/frontend.h — the front end's public API: PTX / PTXPlus text in, a checked,
 * predecoded module (ir.h) with a CFG per function out.
 *
 * Pipeline: lex (ptx.re) -> parse (ptx.y) -> build (build.c) -> layout + predecode
 * (predecode.c) -> cfg (cfg.c). Diagnostics go to opts->diag as
 * `file:line:col: error: message`, the source line and a caret.
 */
#ifndef PTXEMU_FRONTEND_H
#define PTXEMU_FRONTEND_H

#include <stdio.h>

#include "frontend/ir.h"

struct fe_opts {
    FILE *diag;          /* where diagnostics go (NULL: stderr) */
    int max_errors;      /* stop reporting after this many (0: 20) */
    bool no_cfg;         /* skip predecode + CFG (printing/checking the syntax only) */
    bool verify;         /* run the IR verifier (always on in PTXEMU_DEBUG builds) */
};

/* Parse, build, predecode and analyse a module from text (need not be NUL-terminated).
 * On success returns 0 and *out owns the module. On error returns the (negative) number of
 * errors, with all diagnostics printed, and *out is NULL. Never crashes on any input. */
int fe_load(const char *text, size_t len, const char *filename, const struct fe_opts *opts,
            struct ir_module **out);

/* Read a file and fe_load it. Returns -1 and prints a message when the file can't be read. */
int fe_load_file(const char *path, const struct fe_opts *opts, struct ir_module **out);

/* Print the module as canonical PTX (frontend/print.c). The output re-parses to an identical
 * IR and assembles with ptxas for the module's .target. */
void ir_print_module(FILE *out, const struct ir_module *m);

/* Print one instruction as PTX text (no indentation, no newline): used by traces and
 * fault reports. */
void ir_print_insn(FILE *out, const struct ir_module *m, const struct ir_func *f,
                   const struct ir_insn *in);

/* Module cache keyed by XXH3 of the text: the same PTX loaded twice is parsed once. The
 * cache owns the modules; it is an explicit object (no global state). */
struct fe_cache;
struct fe_cache *fe_cache_new(void);
void fe_cache_free(struct fe_cache *c);
/* Like fe_load, but returns a cached module (owned by the cache: do not free) when the same
 * text was loaded before. */
int fe_cache_load(struct fe_cache *c, const char *text, size_t len, const char *filename,
                  const struct fe_opts *opts, const struct ir_module **out);

#endif
