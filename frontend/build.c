/*
 * frontend/build.c — the builder: turns the grammar's event stream (build.h) into a module
 * (ir.h). Names are interned once (an open-addressing table keyed by XXH3); each interned name
 * carries its current bindings (function-scope register/variable, label, module variable or
 * function, special register), so resolving an operand is one hash probe. Register operands
 * become slots, labels PCs (forward references fixed at the end of the function), symbols
 * indices; immediates are decoded to the operand's type. This file is the driver; the pieces
 * by role are listed in build_int.h.
 *
 * Operand conventions (beyond ir.h):
 *   - a format item `X|Y` always yields two operands; the second is OPK_NONE when the source
 *     has no `|y` (so operand positions are fixed: setp's first source is operand 2);
 *   - call: operands as written: [(rets),] target, [(args)] [, prototype]; the target is
 *     OPK_FUNC (imm = function index) or a register (indirect); list elements that name .param
 *     variables are OPK_ADDR with sym set; a prototype operand is OPK_SYM of a
 *     VF_CALLPROTOTYPE variable (its declaration text is string id ir_sym.init);
 *   - bar/barrier .red: mode = MODE_RED, bop = AND/OR, BOP_NONE meaning .popc.
 */
#include <stdlib.h>
#include <string.h>

#include "frontend/build_int.h"
#include "ptx_gram.h"

/* ========================================================================= errors */

int b_grow(struct ptx_builder *b, void **arr, uint32_t *cap, size_t esz)
{
    uint32_t ncap = *cap ? *cap * 2 : 16;
    void *p = realloc(*arr, (size_t)ncap * esz);
    if (!p) {
        b->oom = 1;
        return -1;
    }
    *arr = p;
    *cap = ncap;
    return 0;
}

void b_err(struct ptx_builder *b, uint32_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void b_err(struct ptx_builder *b, uint32_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(b->d, DIAG_ERROR, off, fmt, ap);
    va_end(ap);
}

/* ======================================================================= setup, tables */

static void fmt_parse(struct fmtinfo *fi, const char *f)
{
    memset(fi, 0, sizeof *fi);
    int opt = 0;
    for (const char *p = f; *p; p++) {
        char c = *p;
        if (c == ',' || c == ']' || c == ' ')
            continue;
        if (c == '[') {
            opt = 1;
            continue;
        }
        if (c == '*') {
            fi->star = 1;
            continue;
        }
        if (c == '|') {
            if (p[1] && fi->n < 16) {
                p++;
                fi->pos[fi->n++] = (struct fmtpos){*p, (uint8_t)opt, 1};
            }
            continue;
        }
        if (fi->n < 16)
            fi->pos[fi->n++] = (struct fmtpos){c, (uint8_t)opt, 0};
    }
    fi->nreq = 0;
    for (unsigned i = 0; i < fi->n; i++)
        if (!fi->pos[i].opt && !fi->pos[i].pipe2)
            fi->nreq = (uint8_t)(i + 1);
}

static int b_setup(struct ptx_builder *b)
{
    b->hcap = 4096;
    b->htab = calloc(b->hcap, sizeof *b->htab);
    b->capstr = 65536;
    b->strtab = malloc(b->capstr);
    if (!b->htab || !b->strtab)
        return -1;
    b->strtab[0] = 0;
    b->nstr = 1;
    if (smap_init(&b->ops, 1024) < 0 || smap_init(&b->mods, 2048) < 0 ||
        smap_init(&b->tokcache, 4096) < 0)
        return -1;
    for (int i = 0; i < OP__COUNT; i++) {
        const char *s = ir_op_name((enum ir_op)i);
        if (smap_put(&b->ops, s, strlen(s), i) < 0)
            return -1;
        fmt_parse(&b->fmt[i], ir_op_format((enum ir_op)i));
    }
    for (int i = 1; i < MOD__COUNT; i++) {
        const char *s = ir_mod_name((enum ir_mod)i);
        if (smap_put(&b->mods, s, strlen(s), i) < 0)
            return -1;
    }
    for (int i = 1; i < SR__COUNT; i++) {
        const char *s = ir_sreg_name((enum ir_sreg)i);
        if (!*s)
            continue;
        int32_t e = ent_get(b, s, strlen(s));
        if (e < 0)
            return -1;
        b->ents[e].sreg = i;
    }
    b->cur = -1;
    b->guard = IR_NOGUARD;
    return b->oom ? -1 : 0;
}

/* ========================================================================== driver */

static void b_finish_module(struct ptx_builder *b)
{
    struct ir_module *m = b->m;
    for (uint32_t i = 0; i < b->nprelocs; i++) {
        struct pending_reloc *pr = &b->prelocs[i];
        struct ent *en = &b->ents[pr->ent];
        struct ir_reloc *r = &b->relocs[pr->reloc];
        if (en->gsym >= 0) {
            r->sym = (uint32_t)en->gsym;
        } else if (en->gfunc >= 0) {
            r->sym = (uint32_t)en->gfunc;
            r->is_func = 1;
        } else {
            b_err(b, pr->off, "undefined identifier '%s' in initializer", b->strtab + en->id);
        }
    }
    ADOPT(m->funcs, b->funcs, b->nfuncs);
    m->nfuncs = b->nfuncs;
    ADOPT(m->syms, b->syms, b->nsyms);
    m->nsyms = b->nsyms;
    ADOPT(m->relocs, b->relocs, b->nrelocs);
    m->nrelocs = b->nrelocs;
    ADOPT(m->data, b->data, b->ndata);
    m->ndata = b->ndata;
    ADOPT(m->files, b->files, b->nfiles);
    m->nfiles = b->nfiles;
    ADOPT(m->sections, b->sections, b->nsections);
    m->nsections = b->nsections;
    ADOPT(m->pragmas, b->pragmas, b->npragmas);
    m->npragmas = b->npragmas;
    ADOPT(m->locs, b->locs, b->nlocs);
    m->nlocs = b->nlocs;
    ADOPT(m->strtab, b->strtab, b->nstr);
    m->nstrtab = b->nstr;
}

static void b_free(struct ptx_builder *b)
{
    free(b->ents);
    free(b->htab);
    free(b->strtab);
    smap_free(&b->ops);
    smap_free(&b->mods);
    smap_free(&b->tokcache);
    free(b->dec);
    free(b->dmods);
    free(b->funcs);
    free(b->syms);
    free(b->relocs);
    free(b->prelocs);
    free(b->data);
    free(b->files);
    free(b->sections);
    free(b->pragmas);
    free(b->pbuf);
    free(b->locs);
    free(b->mregs);
    free(b->decl.img);
    free(b->decl.tex);
    free(b->fb.tabn);
    free(b->pend);
    free(b->fb.insns);
    free(b->fb.opnds);
    free(b->fb.mods);
    free(b->fb.tables);
    free(b->fb.labels);
    free(b->fb.label_ents);
    free(b->fb.label_blk);
    free(b->fb.label_next);
    free(b->fb.blk_parent);
    free(b->fb.regs);
    free(b->fb.fix);
    free(b->binds);
    free(b->elems);
    free(b->isa_seen);
}

/* ptxas 13 wants `.version` as the first statement and `.target` right after it ("Missing
 * .version directive at start of file", also for an empty file; "Missing .target directive
 * at start of file"), and one .version only (a second is a syntax error). Checked on the
 * token stream: token n of the file is t (code 0: end of input). */
static void header_check(struct ptx_builder *b, int code, struct ptx_tok t, uint32_t n)
{
    if (n == 0 && code != TK_VERSION)
        b_err(b, t.off, "missing .version directive at the start of the file");
    else if (n == 2 && b->first_is_version && code != TK_TARGET)
        b_err(b, t.off, "missing .target directive after .version");
    else if (n > 0 && code == TK_VERSION && b->first_is_version)
        b_err(b, t.off, "a second .version directive");
    if (n == 0)
        b->first_is_version = code == TK_VERSION;
}

/* Lex, parse and build text into a new module (see build.h). */
struct ir_module *ptx_build(const char *text, size_t len, const char *filename,
                            struct diag *d, int *nerr)
{
    (void)filename;
    struct ptx_builder *b = calloc(1, sizeof *b);
    struct ir_module *m = calloc(1, sizeof *m);
    void *parser = NULL;
    if (!b || !m)
        goto oom;
    m->arena = ir_arena_new();
    if (!m->arena)
        goto oom;
    m->address_size = 32; /* no .address_size directive: 32-bit addresses (the ISA default) */
    b->m = m;
    b->d = d;
    b->text = text;
    b->len = len;
    b->isa_ver = UINT16_MAX;
    b->isa_sm = UINT16_MAX;
    b->isa_af = ISA_AF_ANY;
    if (b_setup(b) < 0)
        goto oom;
    parser = ptx_parseAlloc(malloc);
    if (!parser)
        goto oom;
    struct ptx_lexer lx;
    ptx_lex_init(&lx, text, len, d);
    struct ptx_tok t;
    int code;
    uint32_t ntok = 0;
    do {
        code = ptx_lex(&lx, &t);
        header_check(b, code, t, ntok++);
        ptx_parse(parser, code, t, b);
    } while (code != 0 && !b->oom);
    if (b->oom)
        goto oom;
    if (b->cur >= 0 && b->in_body)
        b_func_end(b, t);
    b_finish_module(b);
    if (b->oom)
        goto oom;
    if (b->isa_suppressed)
        diag_report(d, DIAG_REMARK, SIZE_MAX,
                    "%u more instructions need a newer .version or .target (notes not shown)",
                    b->isa_suppressed);
    ptx_parseFree(parser, free);
    b_free(b);
    free(b);
    *nerr = d->nerrors;
    return m;
oom:
    if (parser)
        ptx_parseFree(parser, free);
    if (b) {
        b_free(b);
        free(b);
    }
    if (m) {
        ir_arena_free(m->arena);
        free(m);
    }
    diag_report(d, DIAG_ERROR, SIZE_MAX, "out of memory");
    *nerr = d->nerrors;
    return NULL;
}

