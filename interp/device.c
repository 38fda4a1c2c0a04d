/*
 * interp/device.c — the engine's public API (interp/interp.h): devices, program loading,
 * launches, fault records and their sanitizer-style reports, device printf and malloc.
 *
 * Loading builds an execution image per function (struct xfunc): the instructions and operands
 * are copied, every memory operand's symbol is resolved to an address in its space, symbol-
 * address constants get their final values, call arguments their .param frame offsets, each
 * instruction its handler (an instruction without one is reported as unsupported), and a
 * register-frame template with the constants broadcast to 32 lanes is built. Module-scope
 * .global and .const variables get one device allocation each (byte-precise bounds for
 * reports), initialized from the IR's images with relocations applied.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/cfg.h"
#include "frontend/frontend.h"
#include "interp/internal.h"
#include "interp/ops/helpers.h"
#include "interp/printf.h"

#define DEV_MAX_THREADS 1024u
#define DEV_MAX_SHARED (227u * 1024u)
#define DEV_QUANTUM 2048u

static uint32_t align_up32(uint32_t v, uint32_t a)
{
    return a ? (v + a - 1) / a * a : v;
}

/* ====================================================================== device */

/* Create a device with its own memory store. 0 or a negative errno. */
int interp_dev_create(const struct interp_config *cfg, struct interp_dev **out)
{
    *out = NULL;
    struct interp_dev *d = calloc(1, sizeof *d);
    if (!d)
        return -ENOMEM;
    if (cfg)
        d->cfg = *cfg;
    if (d->cfg.sm == 0)
        d->cfg.sm = 80;
    if (d->cfg.nsm == 0)
        d->cfg.nsm = 80;
    d->heap_size = d->cfg.heap_size ? d->cfg.heap_size : (UINT64_C(8) << 20);
    d->ncpu = interp_ncpu();
    pthread_mutex_init(&d->heap_lock, NULL);
    pthread_mutex_init(&d->pf_lock, NULL);
    int r = mem_create(&d->mem);
    if (r >= 0 && (r = grid_pool_create(d)) < 0)
        mem_destroy(d->mem);
    if (r < 0) {
        pthread_mutex_destroy(&d->heap_lock);
        pthread_mutex_destroy(&d->pf_lock);
        free(d);
        return r;
    }
    *out = d;
    return 0;
}

/* Destroy a device and all its memory. */
void interp_dev_destroy(struct interp_dev *d)
{
    if (!d)
        return;
    grid_pool_destroy(d->pool);
    mem_destroy(d->mem);
    pthread_mutex_destroy(&d->heap_lock);
    for (unsigned i = 0; i < d->npf_spare; i++)
        dev_printf_buf_destroy(d->pf_spare[i]);
    pthread_mutex_destroy(&d->pf_lock);
    free(d->deferred);
    free(d);
}

/* The device memory store. */
struct mem *interp_dev_mem(struct interp_dev *d)
{
    return d->mem;
}

/* The configuration the device was created with (defaults filled in). */
const struct interp_config *interp_dev_config(const struct interp_dev *d)
{
    return &d->cfg;
}

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

/* Print a load error at an instruction: file:line:col: error: <what>: <instruction>. */
static void load_error(FILE *diag, const struct ir_module *m, const struct ir_func *f,
                       const struct ir_insn *in, const char *what)
{
    if (!diag)
        return;
    fprintf(diag, "%s:%u:%u: error: %s: ", m->filename ? m->filename : "<ptx>", in->line, in->col,
            what);
    ir_print_insn(diag, m, f, in);
    fputc('\n', diag);
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

/* Offset of each function's non-kernel .param symbols in that function's per-lane frame. */
static void layout_params(struct prog_module *pm)
{
    const struct ir_module *m = pm->m;
    for (uint32_t fi = 0; fi < m->nfuncs; fi++) {
        const struct ir_func *f = &m->funcs[fi];
        uint32_t cur = 0;
        for (uint32_t s = 0; s < m->nsyms; s++) {
            const struct ir_sym *y = &m->syms[s];
            if (!is_param_space(y->space))
                continue;
            bool own = (s >= f->param && s < f->param + f->nparam) ||
                       (s >= f->ret && s < f->ret + f->nret);
            if (!own && y->func != (int32_t)fi)
                continue;
            if (own && y->func >= 0 && y->func != (int32_t)fi)
                continue;
            if (f->is_entry && s >= f->param && s < f->param + f->nparam) {
                pm->param_off[s] = (uint32_t)y->offset;
                continue;
            }
            uint32_t al = y->align ? y->align : 1;
            if (al > 16)
                al = 16;
            cur = align_up32(cur, al);
            pm->param_off[s] = cur;
            cur += (uint32_t)(y->size ? y->size : 8);
        }
        pm->xf[fi].param_frame = align_up32(cur, 8);
    }
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
            uint64_t *na = realloc(p->allocs, (p->nallocs + 1) * sizeof *na);
            if (!na) {
                errors++;
                continue;
            }
            p->allocs = na;
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
                int t = ir_sym_lookup(p->mods[mj].m, name);
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

/* Decode the context modifiers the handlers key on into in->mode: when the builder left it
 * unset, and always for bar/barrier (whose .red op is what matters, not .red itself). */
static void fix_mode(const struct ir_func *f, struct ir_insn *in)
{
    static const struct { uint16_t mod; uint8_t mode; } map[] = {
        {MOD_ADD, MODE_ADD}, {MOD_MIN, MODE_MIN}, {MOD_MAX, MODE_MAX}, {MOD_INC, MODE_INC},
        {MOD_DEC, MODE_DEC}, {MOD_EXCH, MODE_EXCH}, {MOD_CAS, MODE_CAS}, {MOD_AND, MODE_AND},
        {MOD_OR, MODE_OR}, {MOD_XOR, MODE_XOR}, {MOD_POPC, MODE_POPC}, {MOD_ALL, MODE_ALL},
        {MOD_ANY, MODE_ANY}, {MOD_BALLOT, MODE_BALLOT}, {MOD_UP, MODE_UP},
        {MOD_DOWN, MODE_DOWN}, {MOD_BFLY, MODE_BFLY}, {MOD_IDX, MODE_IDX}, {MOD_TO, MODE_TO},
        {MOD_ARRIVE, MODE_ARRIVE},
    };
    const bool bar = in->op == OP_BAR || in->op == OP_BARRIER;
    if (in->mode != MODE_NONE && !bar)
        return;
    for (unsigned i = 0; i < in->nmod; i++) {
        unsigned md = f->mods[in->mod + i];
        if (md == MOD_UNI && in->op == OP_VOTE) {
            in->mode = MODE_UNI;
            return;
        }
        if (bar && md != MOD_ARRIVE && md != MOD_POPC && md != MOD_AND && md != MOD_OR)
            continue;
        for (unsigned k = 0; k < sizeof map / sizeof map[0]; k++)
            if (map[k].mod == md) {
                in->mode = map[k].mode;
                return;
            }
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

/*
 * Which parts of the shared buffer a CTA of kernel k starts with cleared (cta_begin). The
 * buffer spans the module's dynamic offset, and variables of other kernels may share
 * addresses with this kernel's, so only what the kernel can reach matters. A kernel without
 * calls can only reach the variables it names (an address into shared memory comes from a
 * symbol), so only their ranges are cleared; a kernel that calls functions, uses an absolute
 * shared address, or touches shared memory without naming a variable gets the whole buffer.
 * Also k->shared_extent, the static part of that buffer: the end of the variables the kernel
 * names or declares, or for the others the end of all the module's (predecode's layout keeps
 * every kernel's variables below ir_module.shared_size). 0, or -1 out of memory.
 */
static int build_shared_spans(struct interp_kernel *k, const struct ir_module *m,
                              const struct ir_func *f)
{
    bool whole = false, named = false, touches = false;
    for (uint32_t i = 0; i < m->nrelocs; i++) /* an initializer holds a shared address */
        if (!m->relocs[i].is_func && m->relocs[i].sym < m->nsyms &&
            is_shared_space(m->syms[m->relocs[i].sym].space))
            whole = true;
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
    uint64_t ext = 0;
    for (uint32_t i = 0; i < m->nsyms && !whole; i++) {
        const struct ir_sym *y = &m->syms[i];
        if (is_shared_space(y->space) && !(y->flags & VF_DYNAMIC) && y->func >= 0 &&
            &m->funcs[y->func] == f && y->offset + y->size > ext)
            ext = y->offset + y->size;
    }
    for (uint32_t i = 0; i < f->nopnds && !whole; i++) {
        const struct ir_opnd *o = &f->opnds[i];
        if (o->sym < m->nsyms && is_shared_space(m->syms[o->sym].space) &&
            !(m->syms[o->sym].flags & VF_DYNAMIC) &&
            m->syms[o->sym].offset + m->syms[o->sym].size > ext)
            ext = m->syms[o->sym].offset + m->syms[o->sym].size;
    }
    k->shared_extent = (uint32_t)(ext > k->shared_static ? ext : k->shared_static);
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
        uint32_t lo = (uint32_t)y->offset, hi = (uint32_t)(y->offset + y->size);
        uint32_t j;
        for (j = 0; j < k->nshared_zero; j++)
            if (k->shared_zero[j].off == lo && k->shared_zero[j].len == hi - lo)
                break;
        if (j < k->nshared_zero)
            continue;
        if (k->nshared_zero == cap) {
            cap = cap ? 2 * cap : 8;
            struct frame_span *z = realloc(k->shared_zero, cap * sizeof *z);
            if (!z)
                return -1;
            k->shared_zero = z;
        }
        k->shared_zero[k->nshared_zero++] = (struct frame_span){lo, hi - lo};
    }
    if (whole || (touches && !named)) {
        k->nshared_zero = UINT32_MAX;
        k->shared_dyn_zero = true;
        if (m->shared_size > k->shared_extent)
            k->shared_extent = (uint32_t)m->shared_size;
    }
    return 0;
}

/* Build the execution image of function fi of module mi. Returns the number of errors. */
static int build_xfunc(struct interp_program *p, unsigned mi, uint32_t fi, FILE *diag)
{
    struct prog_module *pm = &p->mods[mi];
    const struct ir_module *m = pm->m;
    const struct ir_func *f = &m->funcs[fi];
    struct xfunc *x = &pm->xf[fi];
    x->m = m;
    x->f = f;
    x->mod_index = mi;
    x->func_index = fi;
    if (!f->defined || f->ninsns == 0)
        return 0;
    int errors = 0;

    x->n16 = f->nslots[RF_B16];
    x->n32 = f->nslots[RF_B32];
    x->n64 = f->nslots[RF_B64];
    x->npred = f->nslots[RF_PRED] + 1; /* + the always-true guard */
    x->off32 = x->n64 * 32 * 8;
    x->off16 = x->off32 + x->n32 * 32 * 4;
    x->offpred = x->off16 + x->n16 * 32 * 2;
    x->frame_bytes = align_up32(x->offpred + x->npred * 4, 64);
    x->tmpl = calloc(1, x->frame_bytes);
    x->ninsns = f->ninsns;
    x->insns = calloc((size_t)f->ninsns + 1, sizeof *x->insns);
    x->opnds = calloc((size_t)f->nopnds + 1, sizeof *x->opnds);
    x->patch = calloc((size_t)f->nopnds + 1, sizeof *x->patch);
    if (!x->tmpl || !x->insns || !x->opnds || !x->patch || build_zero_spans(x, f) != 0)
        return 1;
    x->serial = atomic_fetch_add(&p->dev->xf_serial, 1) + 1;
    memcpy(x->insns, f->insns, f->ninsns * sizeof *x->insns);
    if (f->nopnds)
        memcpy(x->opnds, f->opnds, f->nopnds * sizeof *x->opnds);

    /* local frame size */
    uint32_t local = f->local_size;
    for (uint32_t s = 0; s < m->nsyms; s++) {
        const struct ir_sym *y = &m->syms[s];
        if (y->space == SP_LOCAL && y->func == (int32_t)fi && y->offset + y->size > local)
            local = (uint32_t)(y->offset + y->size);
    }
    x->local_size = align_up32(local, 16);

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
        fix_mode(f, in);
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
                    e->pad_ = (uint8_t)mem_class(m, f, in, e);
                    if (e->pad_ == XS_GENERIC) {
                        if (is_shared_space(y->space))
                            base += MEM_SHARED_BASE;
                        else if (is_param_space(y->space) && is_kernel_param(m, e->sym))
                            base += MEM_PARAM_BASE;
                        else if (is_param_space(y->space))
                            e->pad_ = XS_FPARAM;
                        else if (local)
                            e->pad_ = XS_LOCAL; /* [depot] as generic: the lane's memory */
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
                    list[k]->pad_ = (uint8_t)mem_class(m, f, in, list[k]);
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
        ((struct ir_insn *)&f->insns[pc])->handler = (uint16_t)h;
        if (h == HND_NONE) {
            load_error(diag, m, f, &f->insns[pc],
                       pp ? "unsupported (PTXPlus form not executed yet)" : "unsupported");
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
            if (f->defined && f->ninsns) {
                pm->link[fi] = &pm->xf[fi];
                continue;
            }
            const char *name = ir_str(m, f->name);
            for (unsigned mj = 0; mj < p->nmods && !pm->link[fi]; mj++) {
                int t = ir_func_lookup(p->mods[mj].m, name);
                if (t >= 0 && p->mods[mj].m->funcs[t].defined && p->mods[mj].m->funcs[t].ninsns)
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
    for (unsigned mi = 0; mi < n; mi++) {
        struct prog_module *pm = &p->mods[mi];
        const struct ir_module *m = mods[mi];
        pm->m = m;
        pm->xf = calloc(m->nfuncs ? m->nfuncs : 1, sizeof *pm->xf);
        pm->sym_addr = calloc(m->nsyms ? m->nsyms : 1, sizeof *pm->sym_addr);
        pm->param_off = calloc(m->nsyms ? m->nsyms : 1, sizeof *pm->param_off);
        pm->link = calloc(m->nfuncs ? m->nfuncs : 1, sizeof *pm->link);
        if (!pm->xf || !pm->sym_addr || !pm->param_off || !pm->link) {
            interp_program_unload(p);
            return -1;
        }
        /* predecode placed every dynamic variable at one offset; without one, launches
         * with dynamic shared memory get it past every static variable */
        pm->dyn_off = align_up32((uint32_t)m->shared_size, 16);
        for (uint32_t s = 0; s < m->nsyms; s++)
            if (is_shared_space(m->syms[s].space) && (m->syms[s].flags & VF_DYNAMIC)) {
                pm->dyn_off = (uint32_t)m->syms[s].offset;
                break;
            }
        layout_params(pm);
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
            errors += build_xfunc(p, mi, fi, diag);
    link_functions(p);
    errors += check_calls(p, diag);

    /* kernels */
    unsigned nk = 0;
    for (unsigned mi = 0; mi < n; mi++)
        for (uint32_t fi = 0; fi < mods[mi]->nfuncs; fi++)
            if (mods[mi]->funcs[fi].is_entry && mods[mi]->funcs[fi].defined)
                nk++;
    p->kernels = calloc(nk ? nk : 1, sizeof *p->kernels);
    if (!p->kernels) {
        interp_program_unload(p);
        return -1;
    }
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
            if (!k->param_offset || !k->param_size) {
                interp_program_unload(p);
                return -1;
            }
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
            if (build_shared_spans(k, m, f) != 0) {
                interp_program_unload(p);
                return -1;
            }
            struct interp_kernel_info *ki = &k->info;
            ki->name = ir_str(m, f->name);
            ki->nparams = f->nparam;
            ki->param_offset = k->param_offset;
            ki->param_size = k->param_size;
            ki->param_size_total = total;
            ki->shared_static = k->shared_static;
            ki->local_size = k->xf->local_size;
            uint32_t regs = 0;
            for (uint32_t i = 0; i < f->nregdecls; i++) {
                const struct ir_regdecl *rd = &f->regdecls[i];
                uint32_t c = rd->count ? rd->count : 1;
                regs += rd->rf == RF_B64 ? 2 * c : rd->rf == RF_PRED ? 0 : c;
            }
            ki->nregs = regs < 255 ? regs : 255;
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
    if (errors) {
        interp_program_unload(p);
        return -errors;
    }
    *out = p;
    return 0;
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
                free(pm->xf[fi].tmpl);
                free(pm->xf[fi].zero);
                free(pm->xf[fi].patch);
            }
        free(pm->xf);
        free(pm->sym_addr);
        free(pm->param_off);
        free(pm->link);
    }
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
        int s = ir_sym_lookup(m, name);
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

/* A kernel by name (NULL when absent). */
const struct interp_kernel *interp_program_kernel(const struct interp_program *p,
                                                  const char *name)
{
    for (unsigned i = 0; i < p->nkernels; i++)
        if (!strcmp(p->kernels[i].info.name, name))
            return &p->kernels[i];
    return NULL;
}

/* What a launch (and cudaFuncGetAttributes) needs to know about a kernel. */
void interp_kernel_info(const struct interp_kernel *k, struct interp_kernel_info *out)
{
    *out = k->info;
}

/* ====================================================================== faults */

/* Record the first fault of a launch (later ones are ignored) and stop the other CTAs. */
void interp_fault(struct warp *w, uint32_t pc, unsigned lane, enum trap_kind kind, uint64_t addr,
                  unsigned width, int space, bool is_write, const char *msg)
{
    struct cta *c = w->cta;
    struct launch_state *L = c->L;
    pthread_mutex_lock(&L->trap_lock);
    if (L->trapped) {
        pthread_mutex_unlock(&L->trap_lock);
        return;
    }
    L->trapped = true;
    atomic_store(&L->stop, 1);
    struct trap *t = L->trap;
    memset(t, 0, sizeof *t);
    t->kind = kind;
    snprintf(t->kernel, sizeof t->kernel, "%s", L->k->info.name);
    memcpy(t->cta, c->id, sizeof t->cta);
    const uint32_t *b = L->l->block;
    uint32_t tl = w->id * 32 + lane;
    t->tid[0] = tl % b[0];
    t->tid[1] = tl / b[0] % b[1];
    t->tid[2] = tl / (b[0] * b[1]);
    t->lane = lane;
    t->warp = w->id;
    t->pc = pc;
    const struct xfunc *fn = w->fn;
    if (fn) {
        const struct ir_module *m = fn->m;
        snprintf(t->func, sizeof t->func, "%s", ir_str(m, fn->f->name));
        t->ptx_file = m->filename;
        const struct ir_insn *in = pc < fn->ninsns ? &fn->f->insns[pc] : &fn->insns[fn->ninsns];
        t->line = in->line;
        t->col = in->col;
        if (in->loc_file && in->loc_file < m->nfiles && m->files[in->loc_file])
            snprintf(t->src_file, sizeof t->src_file, "%s", ir_str(m, m->files[in->loc_file]));
        t->src_line = in->loc_line;
        struct ir_srcpos site[8];
        uint32_t fi = (uint32_t)(fn->f - m->funcs);
        unsigned ns = pc < fn->ninsns ? ir_inlined_chain(m, fi, pc, site, 8) : 0;
        size_t k = 0;
        t->src_inlined[0] = 0;
        for (unsigned i = 0; i < ns && k < sizeof t->src_inlined; i++) {
            const char *sf = site[i].file < m->nfiles && m->files[site[i].file]
                                 ? ir_str(m, m->files[site[i].file])
                                 : "?";
            int w = snprintf(t->src_inlined + k, sizeof t->src_inlined - k, "%s%s:%u",
                             i ? ", " : "", sf, site[i].line);
            if (w < 0)
                break;
            k += (size_t)w;
        }
    }
    t->addr = addr;
    t->width = width;
    t->space = (uint8_t)space;
    t->is_write = is_write;
    if (msg) {
        snprintf(t->msg, sizeof t->msg, "%s", msg);
    } else if (kind == TRAP_OOB && space == SP_GLOBAL) {
        const struct mem_alloc *a = mem_nearest(L->dev->mem, addr);
        if (a && addr >= a->base + a->size)
            snprintf(t->msg, sizeof t->msg,
                     "and is %" PRIu64 " bytes after the nearest allocation at %#" PRIx64
                     " of size %" PRIu64 " bytes",
                     addr - (a->base + a->size), a->base, a->size);
        else if (a && addr < a->base)
            snprintf(t->msg, sizeof t->msg,
                     "and is %" PRIu64 " bytes before the nearest allocation at %#" PRIx64
                     " of size %" PRIu64 " bytes",
                     a->base - addr, a->base, a->size);
        else if (a)
            snprintf(t->msg, sizeof t->msg,
                     "and crosses the end of the allocation at %#" PRIx64 " of size %" PRIu64
                     " bytes",
                     a->base, a->size);
    } else if (kind == TRAP_OOB && space == SP_SHARED) {
        snprintf(t->msg, sizeof t->msg, "and the CTA has %u bytes of shared memory",
                 c->shared_size);
    } else if (kind == TRAP_OOB && space == SP_LOCAL) {
        snprintf(t->msg, sizeof t->msg, "and each thread has %u bytes of local memory",
                 c->local_stride);
    }
    pthread_mutex_unlock(&L->trap_lock);
}

static const char *space_word(unsigned sp)
{
    switch (sp) {
    case SP_SHARED: case SP_SHARED_CTA: case SP_SHARED_CLUSTER: return "__shared__";
    case SP_LOCAL: return "__local__";
    case SP_PARAM: case SP_PARAM_ENTRY: case SP_PARAM_FUNC: return "__param__";
    case SP_CONST: return "__constant__";
    default: return "__global__";
    }
}

/* Print a compute-sanitizer-style report of a trap (see interp.h). */
void interp_trap_report(FILE *out, const struct trap *t)
{
    const char *P = "=========";
    switch (t->kind) {
    case TRAP_OOB:
    case TRAP_MISALIGNED:
    case TRAP_READONLY:
        fprintf(out, "%s Invalid %s %s of size %u bytes\n", P, space_word(t->space),
                t->is_write ? "write" : "read", t->width);
        break;
    case TRAP_TRAP: fprintf(out, "%s Trap instruction executed\n", P); break;
    case TRAP_BRKPT: fprintf(out, "%s Breakpoint instruction executed\n", P); break;
    case TRAP_ASSERT: fprintf(out, "%s Device assertion failed\n", P); break;
    case TRAP_DEADLOCK: fprintf(out, "%s Barrier deadlock\n", P); break;
    case TRAP_BUDGET: fprintf(out, "%s Instruction budget exhausted\n", P); break;
    case TRAP_ILLEGAL: fprintf(out, "%s Illegal instruction\n", P); break;
    case TRAP_STACK: fprintf(out, "%s Stack overflow\n", P); break;
    case TRAP_HEAP: fprintf(out, "%s Invalid device heap operation\n", P); break;
    default: fprintf(out, "%s Error\n", P); break;
    }
    fprintf(out, "%s     at %s+%#x (%s:%u)", P, t->func[0] ? t->func : t->kernel, t->pc * 16,
            t->ptx_file ? t->ptx_file : "<ptx>", t->line);
    if (t->src_file[0])
        fprintf(out, " in %s:%u", t->src_file, t->src_line);
    if (t->src_file[0] && t->src_inlined[0])
        fprintf(out, " inlined at %s", t->src_inlined);
    fputc('\n', out);
    fprintf(out, "%s     by thread (%u,%u,%u) in block (%u,%u,%u)\n", P, t->tid[0], t->tid[1],
            t->tid[2], t->cta[0], t->cta[1], t->cta[2]);
    switch (t->kind) {
    case TRAP_OOB:
        fprintf(out, "%s     Address %#" PRIx64 " is out of bounds\n", P, t->addr);
        break;
    case TRAP_MISALIGNED:
        fprintf(out, "%s     Address %#" PRIx64 " is misaligned\n", P, t->addr);
        break;
    case TRAP_READONLY:
        fprintf(out, "%s     Address %#" PRIx64 " is in read-only memory\n", P, t->addr);
        break;
    default: break;
    }
    if (t->msg[0])
        fprintf(out, "%s     %s\n", P, t->msg);
}

/* Name of the CUDA error a GPU returns for a trap kind. */
const char *interp_trap_cuda_name(enum trap_kind k)
{
    switch (k) {
    case TRAP_NONE: return "cudaSuccess";
    case TRAP_OOB: case TRAP_READONLY: return "cudaErrorIllegalAddress";
    case TRAP_MISALIGNED: return "cudaErrorMisalignedAddress";
    case TRAP_ASSERT: return "cudaErrorAssert";
    case TRAP_ILLEGAL: return "cudaErrorIllegalInstruction";
    case TRAP_STACK: return "cudaErrorHardwareStackError";
    case TRAP_DEADLOCK: case TRAP_BUDGET: return "cudaErrorLaunchTimeout";
    default: return "cudaErrorLaunchFailure";
    }
}

/* Numeric cudaError_t for a trap kind (CUDA 13 driver_types.h). */
int interp_trap_cuda_error(enum trap_kind k)
{
    switch (k) {
    case TRAP_NONE: return 0;
    case TRAP_OOB: case TRAP_READONLY: return 700;
    case TRAP_MISALIGNED: return 716;
    case TRAP_ASSERT: return 710;
    case TRAP_ILLEGAL: return 715;
    case TRAP_STACK: return 714;
    case TRAP_DEADLOCK: case TRAP_BUDGET: return 702;
    default: return 719;
    }
}

/* ====================================================================== printf, malloc */

struct str_ctx {
    struct warp *w;
    unsigned lane;
};

static int read_dev_str(void *ctx, uint64_t addr, char *buf, size_t cap)
{
    struct str_ctx *c = ctx;
    size_t i = 0;
    for (;; i++) {
        uint8_t *p;
        if (vm_xlate(c->w, XS_GENERIC, c->lane, addr + i, 1, false, &p) != 0)
            return -EFAULT;
        if (i + 1 < cap)
            buf[i] = (char)*p;
        if (*p == 0)
            break;
    }
    if (cap)
        buf[i + 1 < cap ? i : cap - 1] = 0;
    return (int)i;
}

/* Host bytes readable at generic address a (lane l): pointer and length, or NULL. */
static const uint8_t *dev_span(struct warp *w, unsigned l, uint64_t a, size_t *len)
{
    uint8_t *p;
    if (vm_xlate(w, XS_GENERIC, l, a, 1, false, &p) != 0)
        return NULL;
    const struct cta *c = w->cta;
    if (a - MEM_SHARED_BASE < MEM_SHARED_SIZE)
        *len = c->shared_size - (a - MEM_SHARED_BASE);
    else if (a - MEM_LOCAL_BASE < MEM_LOCAL_SIZE)
        *len = c->local_stride - (a - MEM_LOCAL_BASE);
    else if (a - MEM_PARAM_BASE < MEM_PARAM_SIZE)
        *len = c->L->param_size - (a - MEM_PARAM_BASE);
    else
        *len = w->mc.lo + w->mc.span - a;
    return p;
}

/* Device printf by lane l: format on the host into the launch's FIFO. 0, -1 on a format
 * error, -2 when the format string is unreadable. */
int interp_vprintf(struct warp *w, unsigned lane, uint64_t fmt, uint64_t args)
{
    struct str_ctx ctx = {w, lane};
    char sbuf[1024];
    int n = read_dev_str(&ctx, fmt, sbuf, sizeof sbuf);
    if (n < 0)
        return -2;
    char *f = sbuf;
    if ((size_t)n >= sizeof sbuf) {
        f = malloc((size_t)n + 1);
        if (!f)
            return -1;
        read_dev_str(&ctx, fmt, f, (size_t)n + 1);
    }
    size_t alen = 0;
    const uint8_t *ap = args ? dev_span(w, lane, args, &alen) : NULL;
    if (args && !ap) {
        if (f != sbuf)
            free(f);
        return -2;
    }
    const struct cta *c = w->cta;
    int r = dev_printf_buf_printf(c->L->pf, c->linear, w->id, w->nprintf++ * 32 + lane, f, ap,
                                  alen, read_dev_str, &ctx);
    if (f != sbuf)
        free(f);
    return r < 0 ? -1 : 0;
}

/* Device malloc: one allocation per call (byte-precise bounds), within the heap limit. */
uint64_t interp_malloc(struct interp_dev *d, uint64_t size)
{
    uint64_t used = atomic_fetch_add(&d->heap_used, size);
    if (used + size > d->heap_size) {
        atomic_fetch_sub(&d->heap_used, size);
        return 0;
    }
    uint64_t a = 0;
    if (mem_alloc(d->mem, size, MEM_F_HEAP, &a) != 0) {
        atomic_fetch_sub(&d->heap_used, size);
        return 0;
    }
    return a;
}

/* Device free of a malloc'ed pointer: checked now, released at the end of the launch.
 * 0, or -EINVAL (not from malloc, or freed twice). */
int interp_free(struct interp_dev *d, uint64_t addr)
{
    const struct mem_alloc *a = mem_find(d->mem, addr, 0);
    if (!a || a->base != addr || !(a->flags & MEM_F_HEAP))
        return -EINVAL;
    int rc = 0;
    pthread_mutex_lock(&d->heap_lock);
    for (size_t i = 0; i < d->ndeferred; i++)
        if (d->deferred[i] == addr)
            rc = -EINVAL;
    if (rc == 0 && d->ndeferred == d->deferred_cap) {
        size_t cap = d->deferred_cap ? 2 * d->deferred_cap : 64;
        uint64_t *n = realloc(d->deferred, cap * sizeof *n);
        if (!n)
            rc = -ENOMEM;
        else {
            d->deferred = n;
            d->deferred_cap = cap;
        }
    }
    if (rc == 0)
        d->deferred[d->ndeferred++] = addr;
    pthread_mutex_unlock(&d->heap_lock);
    return rc == -ENOMEM ? 0 : rc;
}

/* Release the frees deferred during a launch. */
static void heap_release(struct interp_dev *d)
{
    pthread_mutex_lock(&d->heap_lock); /* kernels of other streams may be running */
    for (size_t i = 0; i < d->ndeferred; i++) {
        const struct mem_alloc *a = mem_find(d->mem, d->deferred[i], 0);
        uint64_t size = a ? a->size : 0;
        if (mem_free(d->mem, d->deferred[i]) == 0)
            atomic_fetch_sub(&d->heap_used, size);
    }
    d->ndeferred = 0;
    pthread_mutex_unlock(&d->heap_lock);
}

/* ====================================================================== launch */

/* A printf buffer for a launch: a kept one (empty: flushing empties it), else a new one. */
static int pf_take(struct interp_dev *d, struct dev_printf_buf **out)
{
    pthread_mutex_lock(&d->pf_lock);
    *out = d->npf_spare ? d->pf_spare[--d->npf_spare] : NULL;
    pthread_mutex_unlock(&d->pf_lock);
    return *out ? 0 : dev_printf_buf_create(d->cfg.printf_fifo, out);
}

/* Return a flushed printf buffer for later launches (freed when enough are kept). */
static void pf_give(struct interp_dev *d, struct dev_printf_buf *b)
{
    pthread_mutex_lock(&d->pf_lock);
    if (d->npf_spare < DEV_PF_SPARES) {
        d->pf_spare[d->npf_spare++] = b;
        b = NULL;
    }
    pthread_mutex_unlock(&d->pf_lock);
    dev_printf_buf_destroy(b);
}

/* Run a kernel to completion (see interp.h). */
int interp_launch(struct interp_dev *d, const struct interp_launch *l, struct interp_stats *st,
                  struct trap *trap)
{
    struct trap dummy;
    if (!trap)
        trap = &dummy;
    memset(trap, 0, sizeof *trap);
    if (st)
        memset(st, 0, sizeof *st);
    const struct interp_kernel *k = l->kernel;
    if (!k) {
        snprintf(trap->msg, sizeof trap->msg, "no kernel");
        return -EINVAL;
    }
    uint64_t nthreads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
    uint64_t nctas = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
    if (nthreads == 0 || nctas == 0) {
        snprintf(trap->msg, sizeof trap->msg, "invalid configuration: grid (%u,%u,%u) block (%u,%u,%u)",
                 l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2]);
        return -EINVAL;
    }
    if (nthreads > k->info.max_threads || l->block[2] > 64 || l->grid[1] > 65535 ||
        l->grid[2] > 65535 || l->grid[0] > INT32_MAX) {
        snprintf(trap->msg, sizeof trap->msg,
                 "invalid configuration: block (%u,%u,%u) has %" PRIu64
                 " threads (at most %u) or grid (%u,%u,%u) is too large",
                 l->block[0], l->block[1], l->block[2], nthreads, k->info.max_threads,
                 l->grid[0], l->grid[1], l->grid[2]);
        return -EINVAL;
    }
    /* the kernel uses its static bytes plus the dynamic ones; its CTAs' buffers hold its
     * variables where the module's layout put them and the dynamic part at the module's
     * offset, so they may be bigger */
    uint64_t used = (uint64_t)k->shared_static + l->shared_dynamic;
    if (used > DEV_MAX_SHARED) {
        snprintf(trap->msg, sizeof trap->msg,
                 "too much shared memory: %" PRIu64 " bytes (at most %u)", used,
                 DEV_MAX_SHARED);
        return -EINVAL;
    }
    uint64_t shared = k->shared_extent;
    if (l->shared_dynamic && (uint64_t)k->dyn_shared_offset + l->shared_dynamic > shared)
        shared = (uint64_t)k->dyn_shared_offset + l->shared_dynamic;

    struct launch_state L;
    memset(&L, 0, sizeof L);
    L.dev = d;
    L.cfg = &d->cfg;
    L.k = k;
    L.l = l;
    L.xf = k->xf;
    L.param_size = k->info.param_size_total;
    L.params = calloc(1, L.param_size ? L.param_size : 1);
    if (!L.params)
        return -ENOMEM;
    if (l->params && L.param_size)
        memcpy(L.params, l->params, L.param_size);
    L.nthreads = (uint32_t)nthreads;
    L.nctas = nctas;
    L.shared_total = (uint32_t)shared;
    uint32_t maxlocal = 0;
    const struct interp_program *p = k->prog;
    for (unsigned mi = 0; mi < p->nmods; mi++)
        for (uint32_t fi = 0; fi < p->mods[mi].m->nfuncs; fi++)
            if (p->mods[mi].xf[fi].local_size > maxlocal)
                maxlocal = p->mods[mi].xf[fi].local_size;
    L.local_stride = align_up32(k->xf->local_size, 16) +
                     (d->cfg.stack_size ? (uint32_t)d->cfg.stack_size : 1024u) + 4 * maxlocal;
    L.quantum = DEV_QUANTUM;
    L.trap = trap;
    L.trace = d->cfg.trace != 0;
    L.trace_out = d->cfg.trace_out ? d->cfg.trace_out : stderr;
    pthread_mutex_init(&L.trap_lock, NULL);
    int rc = pf_take(d, &L.pf);
    if (rc < 0) {
        free(L.params);
        return rc;
    }
    if (l->cooperative) {
        /* grid.sync() of cooperative groups counts arrivals in this workspace */
        if (mem_alloc(d->mem, 64, 0, &L.grid_ws) < 0 || mem_set(d->mem, L.grid_ws, 0, 64) < 0) {
            pf_give(d, L.pf);
            pthread_mutex_destroy(&L.trap_lock);
            free(L.params);
            snprintf(trap->msg, sizeof trap->msg, "out of device memory");
            return -ENOMEM;
        }
    }
    rc = grid_run(&L, st);
    if (L.grid_ws)
        mem_free(d->mem, L.grid_ws);
    dev_printf_buf_flush(L.pf, d->cfg.printf_out ? d->cfg.printf_out : stdout,
                         d->cfg.deterministic);
    pf_give(d, L.pf);
    heap_release(d);
    pthread_mutex_destroy(&L.trap_lock);
    free(L.params);
    if (rc < 0) {
        snprintf(trap->msg, sizeof trap->msg, "out of host memory");
        return -ENOMEM;
    }
    return L.trapped ? 1 : 0;
}
