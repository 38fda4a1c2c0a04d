/*
 * interp/load.c — program loading (interp_program_load): the execution images of functions.
 *
 * Loading builds an execution image per function (struct xfunc): the instructions and operands
 * are copied, every memory operand's symbol is resolved to an address in its space (its space
 * class kept in the image's own xspace array), symbol-address constants get their final
 * values, call arguments their .param frame offsets, each instruction its handler (an
 * instruction without one is reported as unsupported), and a register-frame template with the
 * constants broadcast to 32 lanes is built. The IR itself is never written. Module-scope
 * .global and .const variables get one device allocation each (byte-precise bounds for
 * reports), initialized from the IR's images with relocations applied.
 *
 * Linear in the size of the modules: per-function steps read the function's own variables
 * (struct func_syms), the kernels' shared-memory extents come from predecode, and names are
 * found through hash indexes (struct name_index), never by scanning a module per item.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "frontend/cfg.h"
#include "frontend/diag.h"
#include "frontend/frontend.h"
#include "interp/internal.h"
#include "interp/ops/helpers.h"

#define DEV_MAX_THREADS 1024u

/* ====================================================================== loading */

/* Is sym a parameter of kernel fi of module m (lives in the launch's parameter block)? */
static bool is_kernel_param(const struct ir_module *m, uint32_t sym)
{
    const struct ir_sym *s = &m->syms[sym];
    if (s->func < 0 || (uint32_t)s->func >= m->nfuncs)
        return false;
    const struct ir_func *f = &m->funcs[s->func];
    return f->is_entry && sym >= f->param && sym < f->param + f->nparam;
}

static bool is_param_space(unsigned sp)
{
    return sp == SP_PARAM || sp == SP_PARAM_ENTRY || sp == SP_PARAM_FUNC;
}

static bool is_shared_space(unsigned sp)
{
    return sp == SP_SHARED || sp == SP_SHARED_CTA || sp == SP_SHARED_CLUSTER;
}

/* Print a load error at an instruction through diag.c: file:line:col: error: <what>:
 * <instruction>, the source line and a caret. */
static void load_error(FILE *diag, const struct ir_module *m, const struct ir_func *f,
                       const struct ir_insn *in, const char *what)
{
    if (!diag)
        return;
    char *insn = NULL;
    size_t n = 0;
    FILE *ms = open_memstream(&insn, &n);
    if (ms) {
        ir_print_insn(ms, m, f, in);
        fclose(ms);
    }
    diag_print_at(diag, m->filename ? m->filename : "<ptx>", m->text, m->text_len, in->line,
                  in->col, DIAG_ERROR, "%s: %s", what, insn ? insn : "");
    free(insn);
}

/* Does the instruction use a PTXPlus-only form the engine does not execute yet (condition-code
 * guards and tests, flag-setting destinations, register halves, |x|, g[]/s[]/ce#c#[] operands,
 * post-increment)? Such instructions are reported at load instead of running as plain PTX. */
static bool ptxplus_form(const struct ir_insn *in, const struct ir_opnd *O)
{
    if (in->guard_cc)
        return true;
    for (unsigned i = 0; i < in->nopnd; i++) {
        if (O[i].kind == OPK_PP_MEM || O[i].cc ||
            (O[i].flags & (OPF_LO | OPF_HI | OPF_ABS | OPF_CCDST | OPF_POSTINC)))
            return true;
    }
    return false;
}

/* ---------------------------------------------------------------------- name indexes */

/* The name of entry i of what an index covers (functions, variables, kernels). */
typedef const char *name_of_fn(const void *ctx, uint32_t i);

static uint64_t name_hash(const char *name)
{
    return XXH3_64bits(name, strlen(name));
}

/* Slot of `name` in x: where it is, or the empty slot where it would go. */
static uint32_t name_index_slot(const struct name_index *x, const char *name, uint64_t h,
                                name_of_fn *name_of, const void *ctx)
{
    uint32_t i = (uint32_t)(h >> 32) & x->mask;
    while (x->idx[i] && (x->hash[i] != (uint32_t)h || strcmp(name_of(ctx, x->idx[i] - 1), name)))
        i = (i + 1) & x->mask;
    return i;
}

/* Index entries 0..n-1 of ctx by name (the first of a name wins), skipping those keep rejects
 * (keep NULL: all). 0, or -1 out of memory. */
static int name_index_build(struct name_index *x, uint32_t n, name_of_fn *name_of,
                            const void *ctx, bool (*keep)(const void *ctx, uint32_t i))
{
    uint32_t cap = 16;
    while (cap < 2 * (uint64_t)n && cap < (UINT32_C(1) << 31))
        cap *= 2;
    x->idx = calloc(cap, sizeof *x->idx);
    x->hash = malloc(cap * sizeof *x->hash);
    x->mask = cap - 1;
    if (!x->idx || !x->hash)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        if (keep && !keep(ctx, i))
            continue;
        const char *name = name_of(ctx, i);
        uint64_t h = name_hash(name);
        uint32_t k = name_index_slot(x, name, h, name_of, ctx);
        if (!x->idx[k]) {
            x->idx[k] = i + 1;
            x->hash[k] = (uint32_t)h;
        }
    }
    return 0;
}

/* The index of `name`, or -1. */
static int64_t name_index_find(const struct name_index *x, const char *name, name_of_fn *name_of,
                               const void *ctx)
{
    if (!x->idx)
        return -1;
    uint32_t k = name_index_slot(x, name, name_hash(name), name_of, ctx);
    return x->idx[k] ? (int64_t)x->idx[k] - 1 : -1;
}

static void name_index_free(struct name_index *x)
{
    free(x->idx);
    free(x->hash);
}

static const char *func_name(const void *ctx, uint32_t i)
{
    const struct ir_module *m = ctx;
    return ir_str(m, m->funcs[i].name);
}

static const char *sym_name(const void *ctx, uint32_t i)
{
    const struct ir_module *m = ctx;
    return ir_str(m, m->syms[i].name);
}

/* The variables ir_sym_lookup finds: module scope, not a call prototype. */
static bool sym_is_module_var(const void *ctx, uint32_t i)
{
    const struct ir_module *m = ctx;
    return m->syms[i].func < 0 && !(m->syms[i].flags & VF_CALLPROTOTYPE);
}

static const char *kernel_name(const void *ctx, uint32_t i)
{
    const struct interp_program *p = ctx;
    return p->kernels[i].info.name;
}

/* Function index of `name` in module mi (as ir_func_lookup), or -1. */
static int64_t prog_func_lookup(const struct prog_module *pm, const char *name)
{
    return name_index_find(&pm->funcs_by_name, name, func_name, pm->m);
}

/* Module-scope variable index of `name` in module mi (as ir_sym_lookup), or -1. */
static int64_t prog_sym_lookup(const struct prog_module *pm, const char *name)
{
    return name_index_find(&pm->syms_by_name, name, sym_name, pm->m);
}

/* ------------------------------------------------------- each function's own variables */

/* The variables each function of a module owns (ir_sym.func), in symbol order: those of
 * function fi are sym[start[fi] .. start[fi + 1]). Built once per module, so that no
 * per-function step looks at the module's other variables. */
struct func_syms {
    uint32_t *start; /* nfuncs + 1 */
    uint32_t *sym;
};

/* 0, or -1 out of memory. */
static int func_syms_build(struct func_syms *fs, const struct ir_module *m)
{
    fs->start = calloc((size_t)m->nfuncs + 2, sizeof *fs->start);
    fs->sym = malloc((m->nsyms ? m->nsyms : 1) * sizeof *fs->sym);
    if (!fs->start || !fs->sym)
        return -1;
    for (uint32_t s = 0; s < m->nsyms; s++)
        if (m->syms[s].func >= 0 && (uint32_t)m->syms[s].func < m->nfuncs)
            fs->start[m->syms[s].func + 2]++;
    for (uint32_t fi = 0; fi < m->nfuncs; fi++)
        fs->start[fi + 2] += fs->start[fi + 1];
    for (uint32_t s = 0; s < m->nsyms; s++)
        if (m->syms[s].func >= 0 && (uint32_t)m->syms[s].func < m->nfuncs)
            fs->sym[fs->start[m->syms[s].func + 1]++] = s;
    return 0;
}

static void func_syms_free(struct func_syms *fs)
{
    free(fs->start);
    free(fs->sym);
}

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/*
 * Offset of each function's non-kernel .param symbols in that function's per-lane frame: its
 * parameters and return parameters (those of no other function), then the .param variables it
 * declares (call arguments), in symbol order. Linear in the module: each function looks at its
 * own ranges and variables only. 0, or -1 out of memory.
 */
static int layout_params(struct prog_module *pm, const struct func_syms *fs)
{
    const struct ir_module *m = pm->m;
    uint32_t *list = NULL;
    size_t cap = 0;
    for (uint32_t fi = 0; fi < m->nfuncs; fi++) {
        const struct ir_func *f = &m->funcs[fi];
        uint32_t p0 = f->param < m->nsyms ? f->param : m->nsyms;
        uint32_t p1 = f->nparam < m->nsyms - p0 ? p0 + f->nparam : m->nsyms;
        uint32_t r0 = f->ret < m->nsyms ? f->ret : m->nsyms;
        uint32_t r1 = f->nret < m->nsyms - r0 ? r0 + f->nret : m->nsyms;
        size_t need = (size_t)(p1 - p0) + (r1 - r0) + (fs->start[fi + 1] - fs->start[fi]);
        if (need > cap) {
            uint32_t *nl = realloc(list, need * sizeof *nl);
            if (!nl) {
                free(list);
                return -1;
            }
            list = nl;
            cap = need;
        }
        size_t n = 0;
        for (uint32_t s = p0; s < p1; s++)
            if (m->syms[s].func < 0 || m->syms[s].func == (int32_t)fi)
                list[n++] = s;
        for (uint32_t s = r0; s < r1; s++)
            if ((m->syms[s].func < 0 || m->syms[s].func == (int32_t)fi) && (s < p0 || s >= p1))
                list[n++] = s;
        for (uint32_t k = fs->start[fi]; k < fs->start[fi + 1]; k++) {
            uint32_t s = fs->sym[k];
            if ((s < p0 || s >= p1) && (s < r0 || s >= r1))
                list[n++] = s;
        }
        if (n > 1)
            qsort(list, n, sizeof *list, u32_cmp);
        uint32_t cur = 0;
        for (size_t k = 0; k < n; k++) {
            uint32_t s = list[k];
            const struct ir_sym *y = &m->syms[s];
            if (!is_param_space(y->space))
                continue;
            if (f->is_entry && s >= p0 && s < p1) {
                pm->param_off[s] = (uint32_t)y->offset;
                continue;
            }
            uint32_t al = y->align ? y->align : 1;
            if (al > 16)
                al = 16;
            cur = interp_align32(cur, al);
            pm->param_off[s] = cur;
            cur += (uint32_t)(y->size ? y->size : 8);
        }
        pm->xf[fi].param_frame = interp_align32(cur, 8);
    }
    free(list);
    return 0;
}

/* Address of a module-scope variable or function for relocations and symbol constants. */
static uint64_t sym_value(const struct prog_module *pm, unsigned mi, uint32_t sym, bool is_func)
{
    if (is_func)
        return MEM_FUNC_BASE + (((uint64_t)mi << 20) | sym) * 16;
    return pm->sym_addr[sym];
}

/* Allocate and initialize module-scope .global/.const variables of every module, then resolve
 * externs by name. Returns the number of errors. */
static int place_variables(struct interp_program *p, FILE *diag)
{
    int errors = 0;
    struct mem *mem = p->dev->mem;
    size_t nvars = 0; /* the allocation list is sized once (it grew by one per variable) */
    for (unsigned mi = 0; mi < p->nmods; mi++)
        for (uint32_t s = 0; s < p->mods[mi].m->nsyms; s++) {
            const struct ir_sym *y = &p->mods[mi].m->syms[s];
            nvars += (y->space == SP_GLOBAL || y->space == SP_CONST) &&
                     !(y->linkage == LNK_EXTERN && y->ninit == 0);
        }
    p->allocs = malloc((nvars ? nvars : 1) * sizeof *p->allocs);
    if (!p->allocs)
        return 1;
    for (unsigned mi = 0; mi < p->nmods; mi++) {
        struct prog_module *pm = &p->mods[mi];
        const struct ir_module *m = pm->m;
        for (uint32_t s = 0; s < m->nsyms; s++) {
            const struct ir_sym *y = &m->syms[s];
            if (y->space != SP_GLOBAL && y->space != SP_CONST)
                continue;
            if (y->linkage == LNK_EXTERN && y->ninit == 0)
                continue;
            uint32_t fl = y->space == SP_CONST ? MEM_F_CONST : MEM_F_SYMBOL;
            if (y->flags & VF_MANAGED)
                fl |= MEM_F_MANAGED;
            uint64_t a = 0;
            if (mem_alloc(mem, y->size, fl, &a) != 0) {
                if (diag)
                    fprintf(diag, "%s: error: out of device memory for '%s'\n", m->filename,
                            ir_str(m, y->name));
                errors++;
                continue;
            }
            pm->sym_addr[s] = a;
            p->allocs[p->nallocs++] = a;
        }
    }
    /* externs */
    for (unsigned mi = 0; mi < p->nmods; mi++) {
        struct prog_module *pm = &p->mods[mi];
        const struct ir_module *m = pm->m;
        for (uint32_t s = 0; s < m->nsyms; s++) {
            const struct ir_sym *y = &m->syms[s];
            if ((y->space != SP_GLOBAL && y->space != SP_CONST) || pm->sym_addr[s])
                continue;
            const char *name = ir_str(m, y->name);
            for (unsigned mj = 0; mj < p->nmods && !pm->sym_addr[s]; mj++) {
                int64_t t = prog_sym_lookup(&p->mods[mj], name);
                if (t >= 0 && p->mods[mj].sym_addr[t])
                    pm->sym_addr[s] = p->mods[mj].sym_addr[t];
            }
            if (!pm->sym_addr[s]) {
                if (diag)
                    fprintf(diag, "%s:%u: error: unresolved external variable '%s'\n",
                            m->filename, y->line, name);
                errors++;
            }
        }
    }
    /* initializers and relocations */
    for (unsigned mi = 0; mi < p->nmods; mi++) {
        struct prog_module *pm = &p->mods[mi];
        const struct ir_module *m = pm->m;
        for (uint32_t s = 0; s < m->nsyms; s++) {
            const struct ir_sym *y = &m->syms[s];
            if ((y->space != SP_GLOBAL && y->space != SP_CONST) || !pm->sym_addr[s] ||
                y->linkage == LNK_EXTERN)
                continue;
            if (y->ninit == 0 && y->nreloc == 0)
                continue;
            uint8_t *img = calloc(1, y->size ? y->size : 1);
            if (!img) {
                errors++;
                continue;
            }
            if (y->ninit)
                memcpy(img, m->data + y->init, y->ninit < y->size ? y->ninit : y->size);
            for (uint32_t r = 0; r < y->nreloc; r++) {
                const struct ir_reloc *rl = &m->relocs[y->reloc + r];
                uint64_t v;
                if (rl->is_func) {
                    v = sym_value(pm, mi, rl->sym, true);
                } else {
                    const struct ir_sym *t = &m->syms[rl->sym];
                    if (is_shared_space(t->space))
                        v = t->offset + (rl->generic ? MEM_SHARED_BASE : 0);
                    else
                        v = pm->sym_addr[rl->sym];
                }
                v += (uint64_t)rl->addend;
                if (rl->mask_byte)
                    v = v >> (8 * (rl->mask_byte - 1)) & 0xff;
                if (rl->at + rl->size <= y->size)
                    memcpy(img + rl->at, &v, rl->size <= 8 ? rl->size : 8);
            }
            if (mem_write(mem, pm->sym_addr[s], img, y->size) != 0)
                errors++;
            free(img);
        }
    }
    return errors;
}

/* Space class of a memory operand of instruction in (function f). */
static unsigned mem_class(const struct ir_module *m, const struct ir_func *f,
                          const struct ir_insn *in, const struct ir_opnd *o)
{
    switch (in->space) {
    case SP_GLOBAL: return XS_GLOBAL;
    case SP_CONST: return XS_CONST;
    case SP_SHARED: case SP_SHARED_CTA: case SP_SHARED_CLUSTER: return XS_SHARED;
    case SP_LOCAL: return XS_LOCAL;
    case SP_PARAM: case SP_PARAM_ENTRY: case SP_PARAM_FUNC:
        if (o->sym != IR_NOSYM)
            return is_kernel_param(m, o->sym) ? XS_KPARAM : XS_FPARAM;
        return f->is_entry ? XS_KPARAM : XS_FPARAM;
    default: return XS_GENERIC;
    }
}

/*
 * The byte ranges of x's frame that warp_init clears when x's template is already in place (the
 * previous CTA's warp ran the same kernel, so the constant slots still hold their values): the
 * declared registers a thread may read before writing them (cfg_undef_regs), which must read as
 * 0 as they did in a fresh frame; everything else is written before it is read. Adjacent ranges
 * are merged. 0, or -1 out of memory.
 */
static int build_zero_spans(struct xfunc *x, const struct ir_func *f)
{
    uint64_t *bits[RF__COUNT] = {0};
    int rc = -1;
    for (unsigned rf = 0; rf < RF__COUNT; rf++)
        if (!(bits[rf] = calloc((f->ndeclared[rf] + 63) / 64 + 1, sizeof(uint64_t))))
            goto out;
    cfg_undef_regs(f, f->cfg, bits);
    const uint32_t off[RF__COUNT] = {[RF_PRED] = x->offpred, [RF_B16] = x->off16,
                                     [RF_B32] = x->off32, [RF_B64] = 0};
    const uint32_t width[RF__COUNT] = {[RF_PRED] = 4, [RF_B16] = 64, [RF_B32] = 128,
                                       [RF_B64] = 256};
    for (unsigned rf = 0; rf < RF__COUNT; rf++)
        for (uint32_t s = 0; s < f->ndeclared[rf]; s++) {
            if (!((bits[rf][s >> 6] >> (s & 63)) & 1))
                continue;
            uint32_t o = off[rf] + s * width[rf];
            if (x->nzero && x->zero[x->nzero - 1].off + x->zero[x->nzero - 1].len == o) {
                x->zero[x->nzero - 1].len += width[rf];
                continue;
            }
            struct frame_span *z = realloc(x->zero, (x->nzero + 1) * sizeof *z);
            if (!z)
                goto out;
            x->zero = z;
            x->zero[x->nzero++] = (struct frame_span){o, width[rf]};
        }
    rc = 0;
out:
    for (unsigned rf = 0; rf < RF__COUNT; rf++)
        free(bits[rf]);
    return rc;
}

static int span_cmp(const void *a, const void *b)
{
    const struct frame_span *x = a, *y = b;
    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    return (x->len > y->len) - (x->len < y->len);
}

/*
 * Which parts of the shared buffer a CTA of kernel k starts with cleared (cta_begin). The
 * buffer spans the module's dynamic offset, and variables of other kernels may share
 * addresses with this kernel's, so only what the kernel can reach matters. A kernel without
 * calls can only reach the variables it names (an address into shared memory comes from a
 * symbol), so only their ranges are cleared (each distinct range once, by offset); a kernel
 * that calls functions, uses an absolute shared address, runs in a module whose initializers
 * hold a shared address (shared_reloc), or touches shared memory without naming a variable gets
 * the whole buffer. Also k->shared_extent, the static part of that buffer: where predecode's
 * layout put the end of the variables the kernel reaches (ir_func.shared_extent), or for a
 * whole buffer the end of all the module's (ir_module.shared_size). Linear in the kernel's
 * instructions and operands. 0, or -1 out of memory.
 */
static int build_shared_spans(struct interp_kernel *k, const struct ir_module *m,
                              const struct ir_func *f, bool shared_reloc)
{
    bool whole = shared_reloc, named = false, touches = false;
    for (uint32_t pc = 0; pc < f->ninsns && !whole; pc++) {
        const struct ir_insn *in = &f->insns[pc];
        if (in->op == OP_CALL)
            whole = true;
        if (is_shared_space(in->space))
            touches = true;
        for (unsigned i = 0; i < in->nopnd && in->opnd + i < f->nopnds; i++) {
            const struct ir_opnd *o = &f->opnds[in->opnd + i];
            if ((o->kind == OPK_ADDR && o->sym == IR_NOSYM && o->slot == IR_NOSLOT &&
                 (is_shared_space(in->space) || in->space == SP_NONE ||
                  in->space == SP_GENERIC)) ||
                o->kind == OPK_PP_MEM)
                whole = true;
        }
    }
    k->shared_extent = f->shared_extent;
    uint32_t cap = 0;
    for (uint32_t i = 0; i < f->nopnds && !whole; i++) {
        const struct ir_opnd *o = &f->opnds[i];
        if (o->sym == IR_NOSYM || o->sym >= m->nsyms || !is_shared_space(m->syms[o->sym].space))
            continue;
        const struct ir_sym *y = &m->syms[o->sym];
        named = true;
        if (y->flags & VF_DYNAMIC) {
            k->shared_dyn_zero = true;
            continue;
        }
        if (y->size == 0)
            continue;
        if (k->nshared_zero == cap) {
            cap = cap ? 2 * cap : 8;
            struct frame_span *z = realloc(k->shared_zero, cap * sizeof *z);
            if (!z)
                return -1;
            k->shared_zero = z;
        }
        k->shared_zero[k->nshared_zero++] =
            (struct frame_span){(uint32_t)y->offset, (uint32_t)y->size};
    }
    if (whole || (touches && !named)) {
        k->nshared_zero = UINT32_MAX;
        k->shared_dyn_zero = true;
        if (m->shared_size > k->shared_extent)
            k->shared_extent = (uint32_t)m->shared_size;
        return 0;
    }
    /* each distinct range once */
    if (k->nshared_zero > 1) /* (none: shared_zero is NULL, which qsort must not get) */
        qsort(k->shared_zero, k->nshared_zero, sizeof *k->shared_zero, span_cmp);
    uint32_t n = 0;
    for (uint32_t i = 0; i < k->nshared_zero; i++)
        if (!n || span_cmp(&k->shared_zero[n - 1], &k->shared_zero[i]) != 0)
            k->shared_zero[n++] = k->shared_zero[i];
    k->nshared_zero = n;
    return 0;
}

/* Build the execution image of function fi of module mi (fs: the module's variables by
 * function). Returns the number of errors. */
static int build_xfunc(struct interp_program *p, unsigned mi, uint32_t fi, FILE *diag,
                       const struct func_syms *fs)
{
    struct prog_module *pm = &p->mods[mi];
    const struct ir_module *m = pm->m;
    const struct ir_func *f = &m->funcs[fi];
    struct xfunc *x = &pm->xf[fi];
    x->m = m;
    x->f = f;
    x->mod_index = mi;
    x->func_index = fi;
    if (!f->defined)
        return 0; /* a declaration; an empty body {} still gets an image: its implicit ret */
    int errors = 0;

    x->n16 = f->nslots[RF_B16];
    x->n32 = f->nslots[RF_B32];
    x->n64 = f->nslots[RF_B64];
    x->npred = f->nslots[RF_PRED] + 1; /* + the always-true guard */
    x->off32 = x->n64 * 32 * 8;
    x->off16 = x->off32 + x->n32 * 32 * 4;
    x->offpred = x->off16 + x->n16 * 32 * 2;
    x->frame_bytes = interp_align32(x->offpred + x->npred * 4, 64);
    x->tmpl = calloc(1, x->frame_bytes);
    x->ninsns = f->ninsns;
    x->insns = calloc((size_t)f->ninsns + 1, sizeof *x->insns);
    x->opnds = calloc((size_t)f->nopnds + 1, sizeof *x->opnds);
    x->xspace = calloc((size_t)f->nopnds + 1, sizeof *x->xspace);
    x->patch = calloc((size_t)f->nopnds + 1, sizeof *x->patch);
    if (!x->tmpl || !x->insns || !x->opnds || !x->xspace || !x->patch ||
        build_zero_spans(x, f) != 0)
        return 1;
    x->serial = atomic_fetch_add(&p->dev->xf_serial, 1) + 1;
    memcpy(x->insns, f->insns, f->ninsns * sizeof *x->insns);
    if (f->nopnds)
        memcpy(x->opnds, f->opnds, f->nopnds * sizeof *x->opnds);

    /* local frame size */
    uint32_t local = f->local_size;
    for (uint32_t k = fs->start[fi]; k < fs->start[fi + 1]; k++) {
        const struct ir_sym *y = &m->syms[fs->sym[k]];
        if (y->space == SP_LOCAL && y->offset + y->size > local)
            local = (uint32_t)(y->offset + y->size);
    }
    x->local_size = interp_align32(local, 16);

    /* template: constants broadcast */
    uint32_t *pred = (uint32_t *)(void *)(x->tmpl + x->offpred);
    pred[x->npred - 1] = ~0u;
    for (unsigned rf = 0; rf < RF__COUNT; rf++) {
        if (!f->const_vals[rf])
            continue;
        for (uint32_t s = f->ndeclared[rf]; s < f->nslots[rf]; s++) {
            uint64_t v = f->const_vals[rf][s - f->ndeclared[rf]];
            for (unsigned l = 0; l < 32; l++) {
                switch (rf) {
                case RF_PRED: pred[s] = v ? ~0u : 0u; break;
                case RF_B16: ((uint16_t *)(void *)(x->tmpl + x->off16))[s * 32 + l] = (uint16_t)v; break;
                case RF_B32: ((uint32_t *)(void *)(x->tmpl + x->off32))[s * 32 + l] = (uint32_t)v; break;
                default: ((uint64_t *)(void *)x->tmpl)[s * 32 + l] = v; break;
                }
            }
        }
    }

    /* operands: symbol constants, memory operands, call elements */
    for (uint32_t pc = 0; pc < f->ninsns; pc++) {
        struct ir_insn *in = &x->insns[pc];
        if (in->guard == IR_NOGUARD) {
            in->guard = x->npred - 1;
            in->guard_neg = 0;
        }
        for (unsigned i = 0; i < in->nopnd; i++) {
            struct ir_opnd *o = &x->opnds[in->opnd + i];
            struct ir_opnd *list[40];
            unsigned nl = 0;
            list[nl++] = o;
            if (o->kind == OPK_VEC || o->kind == OPK_PARAMS)
                for (unsigned k = 0; k < o->n && nl < 40; k++)
                    list[nl++] = &x->opnds[o->first + k];
            for (unsigned k = 0; k < nl; k++) {
                struct ir_opnd *e = list[k];
                if (e->sym == IR_NOSYM || e->sym >= m->nsyms)
                    continue;
                const struct ir_sym *y = &m->syms[e->sym];
                uint64_t base = 0;
                bool local = false;
                if (y->space == SP_GLOBAL || y->space == SP_CONST)
                    base = pm->sym_addr[e->sym];
                else if (is_shared_space(y->space))
                    base = (y->flags & VF_DYNAMIC) ? pm->dyn_off : y->offset;
                else if (y->space == SP_LOCAL)
                    base = y->offset, local = true;
                else if (is_param_space(y->space))
                    base = is_kernel_param(m, e->sym) ? y->offset : pm->param_off[e->sym];
                if (e->kind == OPK_ADDR) {
                    uint8_t *xs = &x->xspace[e - x->opnds];
                    *xs = (uint8_t)mem_class(m, f, in, e);
                    if (*xs == XS_GENERIC) {
                        if (is_shared_space(y->space))
                            base += MEM_SHARED_BASE;
                        else if (is_param_space(y->space) && is_kernel_param(m, e->sym))
                            base += MEM_PARAM_BASE;
                        else if (is_param_space(y->space))
                            *xs = XS_FPARAM;
                        else if (local)
                            *xs = XS_LOCAL; /* [depot] as generic: the lane's memory */
                    }
                    e->imm.u = base + e->imm.u;
                    if (o->kind == OPK_PARAMS && k > 0)
                        e->first = (uint32_t)e->imm.u;
                    continue;
                }
                if (e->kind != OPK_SYM)
                    continue;
                uint64_t v = base + e->imm.u;
                if (o->kind == OPK_PARAMS && k > 0) {
                    e->first = (uint32_t)v;
                    continue;
                }
                if (e->slot == IR_NOSLOT || e->rf >= RF__COUNT)
                    continue;
                if (local) {
                    x->patch[x->npatch++] = (struct slot_patch){e->rf, PATCH_LOCAL, e->slot, v};
                    continue;
                }
                for (unsigned l = 0; l < 32; l++) {
                    switch (e->rf) {
                    case RF_B16: ((uint16_t *)(void *)(x->tmpl + x->off16))[e->slot * 32 + l] = (uint16_t)v; break;
                    case RF_B32: ((uint32_t *)(void *)(x->tmpl + x->off32))[e->slot * 32 + l] = (uint32_t)v; break;
                    case RF_B64: ((uint64_t *)(void *)x->tmpl)[e->slot * 32 + l] = v; break;
                    default: break;
                    }
                }
            }
            /* memory operands without a symbol still need their space class */
            for (unsigned k = 0; k < nl; k++)
                if (list[k]->kind == OPK_ADDR && list[k]->sym == IR_NOSYM)
                    x->xspace[list[k] - x->opnds] = (uint8_t)mem_class(m, f, in, list[k]);
        }
    }

    /* function addresses used as values (mov.u64 %rd, func) */
    for (uint32_t i = 0; i < f->naddr_slots; i++) {
        const struct ir_addr_slot *as = &f->addr_slots[i];
        if (!as->is_func || as->rf != RF_B64)
            continue;
        uint64_t v = sym_value(pm, mi, as->sym, true) + (uint64_t)as->addend;
        for (unsigned l = 0; l < 32; l++)
            ((uint64_t *)(void *)x->tmpl)[as->slot * 32 + l] = v;
    }

    /* handlers */
    for (uint32_t pc = 0; pc < f->ninsns; pc++) {
        struct ir_insn *in = &x->insns[pc];
        const bool pp = ptxplus_form(in, &x->opnds[in->opnd]);
        unsigned h = pp ? HND_NONE : interp_select(m, f, in, &x->opnds[in->opnd]);
        in->handler = (uint16_t)h;
        if (in->op == OP_CLUSTERLAUNCHCONTROL_TRY_CANCEL)
            x->clc = true; /* its launches track cancelled clusters (clc.c) */
        if (h == HND_NONE) {
            const char *why = pp ? "unsupported (PTXPlus form not executed yet)"
                                 : interp_unsupported_why(f, in);
            load_error(diag, m, f, &f->insns[pc], why ? why : "unsupported");
            errors++;
        }
    }
    /* an implicit ret after the last instruction */
    struct ir_insn *end = &x->insns[f->ninsns];
    memset(end, 0, sizeof *end);
    end->op = OP_RET;
    end->guard = x->npred - 1;
    end->opnd = f->nopnds;
    end->target = end->reconv = IR_NOPC;
    end->line = f->ninsns ? f->insns[f->ninsns - 1].line : f->line;
    end->handler = (uint16_t)interp_select(m, f, end, &x->opnds[f->nopnds]);
    return errors;
}

/* Link table: each function's definition, searched by name across modules for externs. */
static int link_functions(struct interp_program *p)
{
    for (unsigned mi = 0; mi < p->nmods; mi++) {
        struct prog_module *pm = &p->mods[mi];
        const struct ir_module *m = pm->m;
        for (uint32_t fi = 0; fi < m->nfuncs; fi++) {
            const struct ir_func *f = &m->funcs[fi];
            if (f->defined) {
                pm->link[fi] = &pm->xf[fi];
                continue;
            }
            const char *name = ir_str(m, f->name);
            for (unsigned mj = 0; mj < p->nmods && !pm->link[fi]; mj++) {
                int64_t t = prog_func_lookup(&p->mods[mj], name);
                if (t >= 0 && p->mods[mj].m->funcs[t].defined)
                    pm->link[fi] = &p->mods[mj].xf[t];
            }
        }
    }
    return 0;
}

/* Every direct call must reach a body or be a library call the engine implements. */
static int check_calls(struct interp_program *p, FILE *diag)
{
    int errors = 0;
    for (unsigned mi = 0; mi < p->nmods; mi++) {
        struct prog_module *pm = &p->mods[mi];
        const struct ir_module *m = pm->m;
        for (uint32_t fi = 0; fi < m->nfuncs; fi++) {
            const struct xfunc *x = &pm->xf[fi];
            if (!x->insns)
                continue;
            for (uint32_t pc = 0; pc < x->ninsns; pc++) {
                const struct ir_insn *in = &x->insns[pc];
                if (in->handler != HND_CALL)
                    continue;
                const struct ir_opnd *O = &x->opnds[in->opnd];
                for (unsigned i = 0; i < in->nopnd; i++) {
                    if (O[i].kind != OPK_FUNC)
                        continue;
                    if (O[i].imm.u >= m->nfuncs || !pm->link[O[i].imm.u]) {
                        char what[300];
                        snprintf(what, sizeof what, "unresolved function '%s'",
                                 O[i].imm.u < m->nfuncs ? ir_str(m, m->funcs[O[i].imm.u].name)
                                                        : "?");
                        load_error(diag, m, &m->funcs[fi], &m->funcs[fi].insns[pc], what);
                        errors++;
                    }
                    break;
                }
            }
        }
    }
    return errors;
}

/*
 * Load modules as one program: variables placed and initialized, every function given its
 * execution image and every instruction its handler. See interp.h.
 */
int interp_program_load(struct interp_dev *d, const struct ir_module *const *mods, unsigned n,
                        FILE *diag, struct interp_program **out)
{
    *out = NULL;
    struct interp_program *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    p->dev = d;
    p->nmods = n;
    p->mods = calloc(n ? n : 1, sizeof *p->mods);
    if (!p->mods) {
        free(p);
        return -1;
    }
    int errors = 0;
    struct func_syms *fs = calloc(n ? n : 1, sizeof *fs);
    bool *shared_reloc = calloc(n ? n : 1, sizeof *shared_reloc);
    if (!fs || !shared_reloc) {
        free(fs);
        free(shared_reloc);
        interp_program_unload(p);
        return -1;
    }
    for (unsigned mi = 0; mi < n; mi++) {
        struct prog_module *pm = &p->mods[mi];
        const struct ir_module *m = mods[mi];
        pm->m = m;
        pm->xf = calloc(m->nfuncs ? m->nfuncs : 1, sizeof *pm->xf);
        pm->sym_addr = calloc(m->nsyms ? m->nsyms : 1, sizeof *pm->sym_addr);
        pm->param_off = calloc(m->nsyms ? m->nsyms : 1, sizeof *pm->param_off);
        pm->link = calloc(m->nfuncs ? m->nfuncs : 1, sizeof *pm->link);
        if (!pm->xf || !pm->sym_addr || !pm->param_off || !pm->link ||
            func_syms_build(&fs[mi], m) != 0 ||
            name_index_build(&pm->funcs_by_name, m->nfuncs, func_name, m, NULL) != 0 ||
            name_index_build(&pm->syms_by_name, m->nsyms, sym_name, m, sym_is_module_var) != 0 ||
            layout_params(pm, &fs[mi]) != 0)
            goto oom;
        /* an initializer holding a shared address: every kernel's CTAs clear their whole
         * buffer (build_shared_spans) */
        for (uint32_t i = 0; i < m->nrelocs; i++)
            if (!m->relocs[i].is_func && m->relocs[i].sym < m->nsyms &&
                is_shared_space(m->syms[m->relocs[i].sym].space))
                shared_reloc[mi] = true;
        /* predecode placed every dynamic variable at one offset; without one, launches
         * with dynamic shared memory get it past every static variable */
        pm->dyn_off = interp_align32((uint32_t)m->shared_size, 16);
        for (uint32_t s = 0; s < m->nsyms; s++)
            if (is_shared_space(m->syms[s].space) && (m->syms[s].flags & VF_DYNAMIC)) {
                pm->dyn_off = (uint32_t)m->syms[s].offset;
                break;
            }
    }
    /* 32-bit addressing (.address_size 32, or plain PTX without the directive, which the ISA
     * defines as 32-bit): device memory lives at 64-bit host addresses, so such a module would
     * truncate every pointer. Refused at load with one clear line instead of faulting later. */
    for (unsigned mi = 0; mi < n; mi++) {
        const struct ir_module *m = mods[mi];
        if (m->address_size != 32 || m->dialect != DIALECT_PTX)
            continue;
        if (diag)
            fprintf(diag, "%s: error: unsupported: 32-bit addressing (%s); ptxemu executes "
                          "64-bit PTX (.address_size 64)\n",
                    m->filename ? m->filename : "<ptx>",
                    m->address_size_declared ? ".address_size 32"
                                             : "no .address_size directive: 32-bit by default");
        errors++;
    }
    errors += place_variables(p, diag);
    for (unsigned mi = 0; mi < n; mi++)
        for (uint32_t fi = 0; fi < mods[mi]->nfuncs; fi++)
            errors += build_xfunc(p, mi, fi, diag, &fs[mi]);
    link_functions(p);
    errors += check_calls(p, diag);

    /* kernels */
    unsigned nk = 0;
    for (unsigned mi = 0; mi < n; mi++)
        for (uint32_t fi = 0; fi < mods[mi]->nfuncs; fi++)
            if (mods[mi]->funcs[fi].is_entry && mods[mi]->funcs[fi].defined)
                nk++;
    p->kernels = calloc(nk ? nk : 1, sizeof *p->kernels);
    if (!p->kernels)
        goto oom;
    for (unsigned mi = 0; mi < n; mi++) {
        const struct ir_module *m = mods[mi];
        for (uint32_t fi = 0; fi < m->nfuncs; fi++) {
            const struct ir_func *f = &m->funcs[fi];
            if (!f->is_entry || !f->defined)
                continue;
            struct interp_kernel *k = &p->kernels[p->nkernels++];
            k->prog = p;
            k->xf = &p->mods[mi].xf[fi];
            k->param_offset = calloc(f->nparam ? f->nparam : 1, sizeof *k->param_offset);
            k->param_size = calloc(f->nparam ? f->nparam : 1, sizeof *k->param_size);
            if (!k->param_offset || !k->param_size)
                goto oom;
            uint32_t total = f->param_size;
            for (uint32_t i = 0; i < f->nparam; i++) {
                const struct ir_sym *y = &m->syms[f->param + i];
                k->param_offset[i] = (uint32_t)y->offset;
                k->param_size[i] = (uint32_t)y->size;
                if (y->offset + y->size > total)
                    total = (uint32_t)(y->offset + y->size);
            }
            k->shared_static = f->shared_size;
            k->dyn_shared_offset = p->mods[mi].dyn_off;
            if (build_shared_spans(k, m, f, shared_reloc[mi]) != 0)
                goto oom;
            struct interp_kernel_info *ki = &k->info;
            ki->name = ir_str(m, f->name);
            ki->nparams = f->nparam;
            ki->param_offset = k->param_offset;
            ki->param_size = k->param_size;
            ki->param_size_total = total;
            ki->shared_static = k->shared_static;
            ki->local_size = k->xf->local_size;
            ki->nregs = ir_kernel_regs(m, f);
            memcpy(ki->maxntid, f->maxntid, sizeof ki->maxntid);
            memcpy(ki->reqntid, f->reqntid, sizeof ki->reqntid);
            uint32_t mt = DEV_MAX_THREADS;
            if (f->maxntid[0]) {
                uint64_t t = (uint64_t)f->maxntid[0] * (f->maxntid[1] ? f->maxntid[1] : 1) *
                             (f->maxntid[2] ? f->maxntid[2] : 1);
                if (t < mt)
                    mt = (uint32_t)t;
            }
            ki->max_threads = mt;
            ki->module = m;
            ki->func = f;
        }
    }
    if (name_index_build(&p->kernels_by_name, p->nkernels, kernel_name, p, NULL) != 0)
        goto oom;
    for (unsigned mi = 0; mi < n; mi++)
        func_syms_free(&fs[mi]);
    free(fs);
    free(shared_reloc);
    if (errors) {
        interp_program_unload(p);
        return -errors;
    }
    *out = p;
    return 0;
oom:
    for (unsigned mi = 0; mi < n; mi++)
        func_syms_free(&fs[mi]);
    free(fs);
    free(shared_reloc);
    interp_program_unload(p);
    return -1;
}

/* Free a program's images and its variables' device memory. */
void interp_program_unload(struct interp_program *p)
{
    if (!p)
        return;
    for (unsigned i = 0; i < p->nallocs; i++)
        mem_free(p->dev->mem, p->allocs[i]);
    free(p->allocs);
    for (unsigned mi = 0; mi < p->nmods; mi++) {
        struct prog_module *pm = &p->mods[mi];
        if (pm->xf && pm->m)
            for (uint32_t fi = 0; fi < pm->m->nfuncs; fi++) {
                free(pm->xf[fi].insns);
                free(pm->xf[fi].opnds);
                free(pm->xf[fi].xspace);
                free(pm->xf[fi].tmpl);
                free(pm->xf[fi].zero);
                free(pm->xf[fi].patch);
            }
        free(pm->xf);
        free(pm->sym_addr);
        free(pm->param_off);
        free(pm->link);
        name_index_free(&pm->funcs_by_name);
        name_index_free(&pm->syms_by_name);
    }
    name_index_free(&p->kernels_by_name);
    for (unsigned i = 0; i < p->nkernels; i++) {
        free(p->kernels[i].param_offset);
        free(p->kernels[i].param_size);
        free(p->kernels[i].shared_zero);
    }
    free(p->kernels);
    free(p->mods);
    free(p);
}

/* Device address and size of a module-scope variable by name. 0, or -ENOENT. */
int interp_program_var(const struct interp_program *p, const char *name, uint64_t *addr,
                       uint64_t *size)
{
    for (unsigned mi = 0; mi < p->nmods; mi++) {
        const struct ir_module *m = p->mods[mi].m;
        int64_t s = prog_sym_lookup(&p->mods[mi], name);
        if (s < 0 || !p->mods[mi].sym_addr[s])
            continue;
        if (m->syms[s].linkage == LNK_EXTERN && m->syms[s].ninit == 0)
            continue;
        if (addr)
            *addr = p->mods[mi].sym_addr[s];
        if (size)
            *size = m->syms[s].size;
        return 0;
    }
    return -ENOENT;
}

/* A kernel by name (NULL when absent): one probe of the program's kernel index, so a runtime
 * that resolves each of K registered kernels after loading does O(K) work, not O(K^2). */
const struct interp_kernel *interp_program_kernel(const struct interp_program *p,
                                                  const char *name)
{
    int64_t i = name_index_find(&p->kernels_by_name, name, kernel_name, p);
    return i >= 0 ? &p->kernels[i] : NULL;
}

/* What a launch (and cudaFuncGetAttributes) needs to know about a kernel. */
void interp_kernel_info(const struct interp_kernel *k, struct interp_kernel_info *out)
{
    *out = k->info;
}

