/*
 * frontend/predecode.c — layout and predecode (passes.h: ir_predecode), run once per module
 * after the builder and before the CFG.
 *
 * Layout (ir_sym.offset, sizes):
 *   - .global / .const variables (any scope, extern and managed ones included as declared):
 *     offsets in the module's global / const segment, each at its .align (or natural
 *     alignment: element size x vector count); ir_module.global_size / const_size = the end;
 *   - static .shared variables (module or function scope): offsets in the CTA shared window
 *     (pd_layout_shared): variables one kernel can reach never overlap, those of different
 *     kernels may share addresses; ir_func.shared_size = the static bytes the function
 *     reaches (its own, its callees', the module-scope ones they name) laid out on their own
 *     in source order: for an .entry, ptxas -v's "bytes smem", what a launch counts;
 *     ir_func.shared_extent = the end of the furthest of them in the module's layout (what a
 *     CTA buffer of the kernel must hold);
 *     ir_module.shared_size = the end of all of them (the most a kernel's CTA buffer needs).
 *     An extern .shared array of unknown size is dynamic shared memory: VF_DYNAMIC is set and
 *     every such variable gets offset = align(furthest end of the variables of the kernels
 *     that name one, max(16, their largest .align)), so they all alias (as extern __shared__
 *     arrays do in CUDA);
 *   - a function's parameters (ir_func.param..+nparam) then its return parameters
 *     (ir_func.ret..+nret) form its parameter block (the kernel launch buffer for an .entry):
 *     offsets in declaration order, each aligned; ir_func.param_size = the end;
 *   - a function's .local variables then the .param variables declared in its body (call
 *     arguments and return slots) form its per-thread frame: ir_func.local_size = the end.
 *     Module-scope .local variables (deprecated in PTX) occupy the start of every frame.
 *
 * Constant slots (ir_func.nslots / ndeclared / const_vals / sreg_slots / addr_slots):
 *   slots [0, ndeclared[rf]) are the declared registers as the builder numbered them (the
 *   builder leaves nslots[rf] = declared count); predecode appends, per register file:
 *   - OPK_IMM: one slot per distinct (rf, value); the value is imm.u truncated to the file's
 *     width (a predicate immediate becomes an all-lanes mask 0xffffffff or 0); the register
 *     file comes from the operand's type (8/16-bit -> B16, 32 -> B32, 64 -> B64, pred -> PRED);
 *   - OPK_SYM (a variable's address as a value): one slot per distinct (rf, sym, imm), never
 *     shared with an immediate; const_vals holds sym.offset + imm and an ir_addr_slot record
 *     tells the interpreter to add the base of the symbol's space at load;
 *   - OPK_FUNC used as a value outside call: slot holding the function index (record with
 *     is_func);
 *   - OPK_SREG: one per-warp slot per distinct (sreg, rf), listed in sreg_slots; const_vals
 *     holds 0 there (the interpreter fills it when a warp starts);
 *   nslots[rf] = ndeclared[rf] + slots added; const_vals[rf][i] is slot ndeclared[rf] + i.
 *   OPK_ADDR keeps its base register slot; OPK_VEC / OPK_PARAMS / OPK_TEX elements are
 *   handled like top-level operands (a texture operand's symbol handles and immediate
 *   coordinates get constant slots; its registers are always sources in the regrefs).
 *
 * Timing facts per instruction: unit (U_ALU refined: integer/bit/pred types -> U_INT;
 * f16/bf16/f32/tf32 -> U_SP; any f64 type -> U_DP; U_SFU with an f64 type -> U_DP), lat (enum
 * ir_lat: ADD/MAX/MUL/MAD/DIV per opcode for INT/SP/DP, SHFL for warp collectives, SFU,
 * TENSOR; LAT_DEFAULT for memory, barrier and control), width (bytes per element of ld/ldu/st/
 * atom/red/prefetch; vec is the element count), iflags (ops.def | IF_UNIFORM for .uni |
 * IF_EXIT for ret in an .entry), target (bra, PTXPlus breakaddr and callp: label PC; call:
 * callee index, IR_NOPC for indirect calls; brx.idx: IR_NOPC, its targets are the table).
 *
 * Register lists (ir_func.regrefs, ir_insn.regs, read with ir_insn_regs): per instruction the
 * declared registers it writes (operands flagged OPF_DST, operand 0 of opcodes whose format
 * says 'x'/'w' there but which write it: cvta, vote, mma, ldmatrix, …; the return list of
 * call), then those it reads (sources, address bases, list elements, wgmma's accumulator, the
 * guard). Duplicates within one instruction are dropped; constant and special-register slots
 * never appear. Lists above PD_RR_HANDOVER bytes are their own allocation (regrefs_own).
 */
#include <stdlib.h>
#include <string.h>

#include "frontend/cfg.h"
#include "frontend/passes.h"

/* Register reference lists bigger than this get their own allocation (see pd_function). */
#define PD_RR_HANDOVER (1u << 20)

/* ========================================================================= tables */

static const unsigned pd_opunit[] = {
#define OP(id, mnem, fmt, unit, flags) (unsigned)(unit),
#include "frontend/ops.def"
#undef OP
};
static const unsigned pd_opflags[] = {
#define OP(id, mnem, fmt, unit, flags) (unsigned)(flags),
#include "frontend/ops.def"
#undef OP
};
static const char *const pd_mnem[] = {
#define OP(id, mnem, fmt, unit, flags) mnem,
#include "frontend/ops.def"
#undef OP
};
_Static_assert(sizeof pd_opunit / sizeof pd_opunit[0] == OP__COUNT, "ops.def units");

/* Bytes of a type (0 for none / pred / sub-byte types); handles, 8 (types.def). */
static unsigned pd_type_size(unsigned t)
{
    return ir_type_size((enum ir_type)t);
}

/* Register file for a value of type t; -1 when the type does not say. */
static int pd_rf_of_type(unsigned t)
{
    if (t == T_PRED)
        return RF_PRED;
    switch (pd_type_size(t)) {
    case 1: case 2: return RF_B16;
    case 4: return RF_B32;
    case 8: return RF_B64;
    default: return -1;
    }
}

static bool pd_sreg_is_64(unsigned s)
{
    return s == SR_CLOCK64 || s == SR_GLOBALTIMER || s == SR_GRIDID ||
           s == SR_CURRENT_GRAPH_EXEC || (s >= SR_PM0_64 && s < SR_PM0_64 + 8);
}

static uint64_t pd_align_up(uint64_t x, uint64_t a)
{
    return a > 1 ? (x + a - 1) / a * a : x;
}

/* ========================================================================== layout */

struct pd_ctx {
    struct ir_module *m;
    FILE *diag;
    int nerr;
    int op_breakaddr, op_break, op_callp, op_retp; /* PTXPlus opcodes, -1 if not in ops.def */
    /* register reference lists under construction, reused from function to function */
    struct ir_regref *rr;
    uint32_t nrr, caprr;
    /* the constant-slot hash table, reused from function to function (pd_func.tab) */
    void *tab;
    uint32_t tabcap;
};

static int pd_find_op(const char *mn)
{
    for (int op = 0; op < OP__COUNT; op++)
        if (strcmp(pd_mnem[op], mn) == 0)
            return op;
    return -1;
}

#define PERR(c, line, col, ...)                                                               \
    do {                                                                                      \
        (c)->nerr++;                                                                          \
        cfg_error_at((c)->diag, (c)->m, (line), (col), __VA_ARGS__);                          \
    } while (0)

/* Alignment of a variable: .align, else element size x vector count, else 1. */
static uint64_t pd_sym_align(struct pd_ctx *c, const struct ir_sym *s)
{
    uint64_t a = s->align;
    if (a == 0) {
        a = (uint64_t)pd_type_size(s->type) * (s->vec ? s->vec : 1);
        if (a == 0)
            a = 1;
    }
    if (a & (a - 1)) {
        PERR(c, s->line, 1, "alignment %llu of '%s' is not a power of two",
             (unsigned long long)a, ir_str(c->m, s->name));
        a = 1;
    }
    return a;
}

static uint64_t pd_place(struct pd_ctx *c, struct ir_sym *s, uint64_t *end)
{
    uint64_t a = pd_sym_align(c, s);
    s->offset = pd_align_up(*end, a);
    *end = s->offset + s->size;
    return s->size;
}

/* ------------------------------------------------------------------ static shared layout */

/*
 * A kernel's static shared memory is what ptxas -v reports as its "bytes smem": the .shared
 * variables it can reach, laid out with their alignments. A function reaches the variables
 * it declares, the .shared variables any of its instructions name (module-scope ones
 * included), and what every function it calls reaches; an indirect call (through a register)
 * may call any function whose address the module takes (mov of a function, .calltargets,
 * an initializer). An instruction addressing shared memory without a variable (an absolute
 * address, PTXPlus s[…]) reaches every variable, and so does every kernel a variable whose
 * address an initializer holds.
 *
 * ptxas lays out each kernel's variables on their own, in source order, each at its
 * alignment: that sum is ir_func.shared_size. Here each variable gets one offset for the
 * whole module instead (instructions carry it): in source order, each goes after the
 * variables already placed that share a kernel with it. Variables of different kernels may
 * share addresses, so a kernel's variables usually start at 0 and end at its shared_size; a
 * .func's variables that several kernels reach can leave one of them a gap (its extent,
 * ir_func.shared_extent, the end of the furthest variable it reaches, exceeds shared_size: its
 * CTAs get the bigger buffer, launches count shared_size). Variables no kernel reaches (a library's functions)
 * go after all others, each at its own address.
 */

struct pd_reach {
    const struct ir_module *m;
    uint32_t gen;      /* visit stamp of the current walk */
    uint32_t *fmark;   /* per function: gen when reached */
    uint32_t *smark;   /* per symbol: gen when reached by the current walk */
    uint32_t *queue;   /* nfuncs */
    uint8_t *taken;    /* per function: its address is taken */
    const int32_t *vidx;    /* per symbol: index among the static .shared variables, or -1 */
    const uint32_t *fvar0;  /* per function + 1: its declared static variables are
                               fvars[fvar0[f], fvar0[f + 1]) */
    const uint32_t *fvars;
    const uint8_t *fdyn;    /* per function: declares or names a dynamic variable */
    const uint32_t *pins;   /* static variables whose address an initializer holds */
    uint32_t npins;
    uint32_t *list;    /* the walk's reached static variables (indices), ns */
    uint32_t nlist;
    bool all;          /* the walk met an access that names no variable: reaches everything */
    bool dyn;          /* the walk reaches a dynamic variable */
};

static bool pd_shared_space(unsigned sp)
{
    return sp == SP_SHARED || sp == SP_SHARED_CTA || sp == SP_SHARED_CLUSTER;
}

/* Static variable v (symbol si) is reached: listed once per walk. */
static void pd_reach_var(struct pd_reach *r, uint32_t si)
{
    if (r->smark[si] == r->gen)
        return;
    r->smark[si] = r->gen;
    r->list[r->nlist++] = (uint32_t)r->vidx[si];
}

static int pd_u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Walk the functions root reaches: r->list (sorted: source order), r->all, r->dyn. The cost
 * is the size of what is reached, never the number of variables or kernels. */
static void pd_reach(struct pd_reach *r, uint32_t root)
{
    const struct ir_module *m = r->m;
    uint32_t qn = 0;
    bool indirect_done = false;
    r->gen++;
    r->all = false;
    r->dyn = false;
    r->nlist = 0;
    r->fmark[root] = r->gen;
    r->queue[qn++] = root;
    for (uint32_t qi = 0; qi < qn; qi++) {
        uint32_t fi = r->queue[qi];
        const struct ir_func *f = &m->funcs[fi];
        r->dyn |= r->fdyn[fi] != 0;
        for (uint32_t k = r->fvar0[fi]; k < r->fvar0[fi + 1]; k++)
            pd_reach_var(r, r->fvars[k]);
        for (uint32_t i = 0; i < f->nopnds; i++) {
            const struct ir_opnd *o = &f->opnds[i];
            if (o->sym != IR_NOSYM && o->sym < m->nsyms && r->vidx[o->sym] >= 0)
                pd_reach_var(r, o->sym);
        }
        for (uint32_t pc = 0; pc < f->ninsns; pc++) {
            const struct ir_insn *in = &f->insns[pc];
            bool callee = false, label = false;
            for (unsigned i = 0; i < in->nopnd && in->opnd + i < f->nopnds; i++) {
                const struct ir_opnd *o = ir_opnd(f, in, i);
                if (in->op == OP_CALL && o->kind == OPK_FUNC && !callee) {
                    callee = true;
                    if (o->imm.u < m->nfuncs && r->fmark[o->imm.u] != r->gen) {
                        r->fmark[o->imm.u] = r->gen;
                        r->queue[qn++] = (uint32_t)o->imm.u;
                    }
                }
                label |= o->kind == OPK_LABEL;
                if ((o->kind == OPK_ADDR && o->sym == IR_NOSYM && o->slot == IR_NOSLOT &&
                     (pd_shared_space(in->space) || in->space == SP_NONE ||
                      in->space == SP_GENERIC)) ||
                    o->kind == OPK_PP_MEM)
                    r->all = true;
            }
            if (in->op == OP_CALL && !callee && !label && !indirect_done) {
                indirect_done = true;
                for (uint32_t g = 0; g < m->nfuncs; g++)
                    if (r->taken[g] && r->fmark[g] != r->gen) {
                        r->fmark[g] = r->gen;
                        r->queue[qn++] = g;
                    }
            }
        }
    }
    for (uint32_t k = 0; k < r->npins; k++)
        pd_reach_var(r, r->pins[k]);
    if (r->all)
        r->dyn = true;
    else
        qsort(r->list, r->nlist, sizeof *r->list, pd_u32_cmp);
}

/* Lay out the .shared variables (see above): ir_sym.offset of each; ir_func.shared_size of
 * each function = the static bytes it reaches as ptxas counts them, ir_func.shared_extent =
 * where the last of them ends (the module's end when it reaches all); ir_module.shared_size =
 * the end of all of them (no kernel's variables end further). Dynamic variables (VF_DYNAMIC)
 * all get one offset: past the extent of every kernel that names one, aligned to max(16,
 * their .align). Linear in the module plus what the kernels reach (kernel -> variable lists,
 * each variable placed after the furthest end among its kernels). 0, or -1 out of memory. */
static int pd_layout_shared(struct pd_ctx *c)
{
    struct ir_module *m = c->m;
    const uint32_t nf = m->nfuncs;
    uint32_t ns = 0, nk = 0;
    uint64_t dyn_align = 16;
    bool any_dyn = false;
    for (uint32_t i = 0; i < nf; i++) {
        m->funcs[i].shared_size = 0;
        m->funcs[i].shared_extent = 0;
        nk += m->funcs[i].is_entry && m->funcs[i].defined;
    }
    for (uint32_t i = 0; i < m->nsyms; i++) {
        struct ir_sym *s = &m->syms[i];
        if (!pd_shared_space(s->space))
            continue;
        if (s->flags & VF_DYNAMIC) {
            uint64_t a = pd_sym_align(c, s);
            any_dyn = true;
            if (a > dyn_align)
                dyn_align = a;
        } else {
            ns++;
        }
    }
    m->shared_size = 0;
    if (ns == 0) {
        for (uint32_t i = 0; i < m->nsyms; i++)
            if (m->syms[i].flags & VF_DYNAMIC)
                m->syms[i].offset = 0;
        return 0;
    }

    struct pd_reach r = {.m = m};
    uint32_t *sv = malloc(ns * sizeof *sv);          /* static variables, source order */
    uint64_t *al = malloc(ns * sizeof *al);          /* their alignments */
    int32_t *vidx = malloc(m->nsyms * sizeof *vidx);
    uint32_t *fvar0 = calloc((size_t)nf + 2, sizeof *fvar0);
    uint32_t *fvars = malloc(ns * sizeof *fvars);
    uint8_t *fdyn = calloc(nf ? nf : 1, 1);
    uint32_t *pins = malloc(ns * sizeof *pins);
    uint8_t *kdyn = calloc(nk ? nk : 1, 1);          /* kernel reaches a dynamic variable */
    uint8_t *kall = calloc(nk ? nk : 1, 1);          /* kernel reaches every variable */
    uint32_t *kv0 = calloc((size_t)nk + 1, sizeof *kv0); /* kernel k's variables:   */
    uint32_t *kv = NULL, nkv = 0, capkv = 0;             /* kv[kv0[k], kv0[k + 1]) */
    uint32_t *vk0 = calloc((size_t)ns + 1, sizeof *vk0); /* variable v's kernels (transpose) */
    uint32_t *vk = NULL;
    uint64_t *kend = calloc(nk ? nk : 1, sizeof *kend); /* furthest end placed per kernel */
    r.fmark = calloc(nf ? nf : 1, sizeof *r.fmark);
    r.smark = calloc(m->nsyms, sizeof *r.smark);
    r.queue = malloc((nf ? nf : 1) * sizeof *r.queue);
    r.taken = calloc(nf ? nf : 1, 1);
    r.list = malloc(ns * sizeof *r.list);
    int rc = -1;
    if (!sv || !al || !vidx || !fvar0 || !fvars || !fdyn || !pins || !kdyn || !kall || !kv0 ||
        !vk0 || !kend || !r.fmark || !r.smark || !r.queue || !r.taken || !r.list)
        goto out;

    ns = 0;
    for (uint32_t i = 0; i < m->nsyms; i++) {
        const struct ir_sym *s = &m->syms[i];
        vidx[i] = -1;
        if (!pd_shared_space(s->space))
            continue;
        bool own = s->func >= 0 && (uint32_t)s->func < nf;
        if (s->flags & VF_DYNAMIC) {
            if (own)
                fdyn[s->func] = 1;
            continue;
        }
        al[ns] = pd_sym_align(c, s);
        vidx[i] = (int32_t)ns;
        sv[ns++] = i;
        if (own)
            fvar0[s->func + 2]++;
    }
    /* declared variables per function (counting sort: source order kept) */
    for (uint32_t f = 0; f < nf; f++)
        fvar0[f + 2] += fvar0[f + 1];
    for (uint32_t v = 0; v < ns; v++) {
        const struct ir_sym *s = &m->syms[sv[v]];
        if (s->func >= 0 && (uint32_t)s->func < nf)
            fvars[fvar0[s->func + 1]++] = sv[v];
    }
    /* functions whose address is taken; functions naming a dynamic variable; variables
       whose address an initializer holds */
    for (uint32_t fi = 0; fi < nf; fi++) {
        const struct ir_func *f = &m->funcs[fi];
        for (uint32_t i = 0; i < f->nopnds; i++) {
            const struct ir_opnd *o = &f->opnds[i];
            if (o->sym != IR_NOSYM && o->sym < m->nsyms && pd_shared_space(m->syms[o->sym].space) &&
                (m->syms[o->sym].flags & VF_DYNAMIC))
                fdyn[fi] = 1;
        }
        for (uint32_t pc = 0; pc < f->ninsns; pc++) {
            const struct ir_insn *in = &f->insns[pc];
            bool callee = false;
            for (unsigned i = 0; i < in->nopnd && in->opnd + i < f->nopnds; i++) {
                const struct ir_opnd *o = ir_opnd(f, in, i);
                if (o->kind != OPK_FUNC || o->imm.u >= nf)
                    continue;
                if (in->op == OP_CALL && !callee)
                    callee = true;
                else
                    r.taken[o->imm.u] = 1;
            }
        }
        for (uint32_t t = 0; t < f->ntable_names; t++) {
            const struct ir_table_name *tn = &f->table_names[t];
            for (uint32_t k = 0; tn->is_call && k < tn->n && tn->first + k < f->ntables; k++)
                if (f->tables[tn->first + k] < nf)
                    r.taken[f->tables[tn->first + k]] = 1;
        }
    }
    for (uint32_t i = 0; i < m->nrelocs; i++) {
        const struct ir_reloc *x = &m->relocs[i];
        if (x->is_func && x->sym < nf)
            r.taken[x->sym] = 1;
        else if (!x->is_func && x->sym < m->nsyms && vidx[x->sym] >= 0 &&
                 r.smark[x->sym] != UINT32_MAX) {
            r.smark[x->sym] = UINT32_MAX; /* listed once; reset below */
            pins[r.npins++] = x->sym;
        }
    }
    for (uint32_t k = 0; k < r.npins; k++)
        r.smark[pins[k]] = 0;
    r.vidx = vidx;
    r.fvar0 = fvar0;
    r.fvars = fvars;
    r.fdyn = fdyn;
    r.pins = pins;

    /* the variables each kernel reaches (all of them: a flag, not a list) */
    bool any_all = false;
    for (uint32_t fi = 0, k = 0; fi < nf; fi++) {
        if (!m->funcs[fi].is_entry || !m->funcs[fi].defined)
            continue;
        pd_reach(&r, fi);
        kdyn[k] = r.dyn;
        kall[k] = r.all;
        any_all |= r.all;
        if (!r.all && r.nlist) {
            if (nkv + r.nlist > capkv) {
                uint32_t cap = capkv ? capkv : 256;
                while (cap < nkv + r.nlist)
                    cap *= 2;
                uint32_t *nb = realloc(kv, (size_t)cap * sizeof *kv);
                if (!nb)
                    goto out;
                kv = nb;
                capkv = cap;
            }
            memcpy(kv + nkv, r.list, r.nlist * sizeof *kv);
            nkv += r.nlist;
        }
        kv0[++k] = nkv;
    }
    /* transpose: the kernels of each variable */
    vk = malloc((nkv ? nkv : 1) * sizeof *vk);
    if (!vk)
        goto out;
    for (uint32_t i = 0; i < nkv; i++)
        vk0[kv[i] + 1]++;
    for (uint32_t v = 0; v < ns; v++)
        vk0[v + 1] += vk0[v];
    {
        uint32_t *fill = malloc((ns ? ns : 1) * sizeof *fill);
        if (!fill)
            goto out;
        memcpy(fill, vk0, ns * sizeof *fill);
        for (uint32_t k = 0; k < nk; k++)
            for (uint32_t i = kv0[k]; i < kv0[k + 1]; i++)
                vk[fill[kv[i]]++] = k;
        free(fill);
    }

    /* the reached variables in source order, each past the furthest end among its kernels
       (a kernel that reaches everything: past all); then the others after everything */
    uint64_t end = 0;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t v = 0; v < ns; v++) {
            bool any = any_all || vk0[v + 1] > vk0[v];
            if (any != (pass == 0))
                continue;
            struct ir_sym *s = &m->syms[sv[v]];
            uint64_t off = pass || any_all ? end : 0;
            for (uint32_t i = vk0[v]; i < vk0[v + 1]; i++)
                if (kend[vk[i]] > off)
                    off = kend[vk[i]];
            s->offset = off = pd_align_up(off, al[v]);
            for (uint32_t i = vk0[v]; i < vk0[v + 1]; i++)
                kend[vk[i]] = off + s->size;
            if (off + s->size > end)
                end = off + s->size;
        }
    m->shared_size = end;

    /* each function's count and extent; where the dynamic variables go */
    uint64_t dyn_at = 0, all_own = 0;
    bool dyn_named = false;
    for (uint32_t v = 0; v < ns; v++)
        all_own = pd_align_up(all_own, al[v]) + m->syms[sv[v]].size;
    for (uint32_t fi = 0, k = 0; fi < nf; fi++) {
        struct ir_func *f = &m->funcs[fi];
        if (!f->defined)
            continue;
        pd_reach(&r, fi);
        uint64_t ext = 0, own = 0;
        if (r.all) {
            own = all_own;
            ext = end;
        }
        for (uint32_t i = 0; i < r.nlist && !r.all; i++) {
            uint32_t v = r.list[i];
            const struct ir_sym *s = &m->syms[sv[v]];
            own = pd_align_up(own, al[v]) + s->size;
            if (s->offset + s->size > ext)
                ext = s->offset + s->size;
        }
        f->shared_size = (uint32_t)own;
        f->shared_extent = (uint32_t)ext;
        if (f->is_entry) {
            if (kdyn[k] && ext >= dyn_at) {
                dyn_at = ext;
                dyn_named = true;
            }
            k++;
        }
    }
    if (any_dyn) {
        uint64_t off = pd_align_up(dyn_named ? dyn_at : end, dyn_align);
        for (uint32_t i = 0; i < m->nsyms; i++)
            if (m->syms[i].flags & VF_DYNAMIC)
                m->syms[i].offset = off;
    }
    rc = 0;
out:
    free(sv);
    free(al);
    free(vidx);
    free(fvar0);
    free(fvars);
    free(fdyn);
    free(pins);
    free(kdyn);
    free(kall);
    free(kv0);
    free(kv);
    free(vk0);
    free(vk);
    free(kend);
    free(r.fmark);
    free(r.smark);
    free(r.queue);
    free(r.taken);
    free(r.list);
    return rc;
}

enum { ROLE_NONE, ROLE_PARAM };

static int pd_layout(struct pd_ctx *c)
{
    struct ir_module *m = c->m;
    uint8_t *role = calloc(m->nsyms ? m->nsyms : 1, 1);
    if (!role)
        return -1;
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        const struct ir_func *f = &m->funcs[i];
        for (uint32_t k = 0; k < f->nparam && f->param + k < m->nsyms; k++)
            role[f->param + k] = ROLE_PARAM;
        for (uint32_t k = 0; k < f->nret && f->ret + k < m->nsyms; k++)
            role[f->ret + k] = ROLE_PARAM;
    }

    uint64_t gend = 0, cend = 0, lend0 = 0;
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        m->funcs[i].shared_size = 0;
        m->funcs[i].local_size = 0;
        m->funcs[i].param_size = 0;
    }
    /* module segments, shared window, module-scope locals */
    for (uint32_t i = 0; i < m->nsyms; i++) {
        struct ir_sym *s = &m->syms[i];
        switch (s->space) {
        case SP_GLOBAL:
            pd_place(c, s, &gend);
            break;
        case SP_CONST:
            pd_place(c, s, &cend);
            break;
        case SP_SHARED:
        case SP_SHARED_CTA:
        case SP_SHARED_CLUSTER:
            if (s->linkage == LNK_EXTERN && s->size == 0)
                s->flags |= VF_DYNAMIC;
            break; /* pd_layout_shared */
        case SP_LOCAL:
            if (s->func < 0)
                pd_place(c, s, &lend0);
            break;
        default:
            break;
        }
    }
    m->global_size = gend;
    m->const_size = cend;
    if (pd_layout_shared(c) != 0) {
        free(role);
        return -1;
    }

    /* parameter blocks */
    for (uint32_t fi = 0; fi < m->nfuncs; fi++) {
        struct ir_func *f = &m->funcs[fi];
        uint64_t end = 0;
        for (uint32_t k = 0; k < f->nparam && f->param + k < m->nsyms; k++)
            pd_place(c, &m->syms[f->param + k], &end);
        for (uint32_t k = 0; k < f->nret && f->ret + k < m->nsyms; k++)
            pd_place(c, &m->syms[f->ret + k], &end);
        f->param_size = (uint32_t)end;
    }
    /* frames: locals first, then body .param variables */
    uint64_t *fend = calloc(m->nfuncs ? m->nfuncs : 1, sizeof *fend);
    if (!fend) {
        free(role);
        return -1;
    }
    for (uint32_t fi = 0; fi < m->nfuncs; fi++)
        fend[fi] = lend0;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < m->nsyms; i++) {
            struct ir_sym *s = &m->syms[i];
            if (s->func < 0 || (uint32_t)s->func >= m->nfuncs || role[i] == ROLE_PARAM)
                continue;
            bool param = s->space == SP_PARAM || s->space == SP_PARAM_FUNC ||
                         s->space == SP_PARAM_ENTRY;
            if ((pass == 0 && s->space == SP_LOCAL) || (pass == 1 && param))
                pd_place(c, s, &fend[s->func]);
        }
    for (uint32_t fi = 0; fi < m->nfuncs; fi++)
        m->funcs[fi].local_size = (uint32_t)fend[fi];
    free(fend);
    free(role);
    return 0;
}

/* ================================================================== constant slots */

enum { KEY_IMM = 1, KEY_SYM, KEY_FUNC, KEY_SREG };

struct pd_key {
    uint64_t a;   /* value / sym / func / sreg */
    int64_t b;    /* addend */
    uint32_t slot;
    uint8_t tag;  /* KEY_*, 0 = empty */
    uint8_t rf;
};

struct pd_func {
    struct pd_key *tab; /* open addressing, at most half full; storage owned by pd_ctx */
    uint32_t mask, used;
    struct pd_ctx *ctx;
    uint32_t added[RF__COUNT];
    /* growing lists of new slots */
    uint64_t *vals[RF__COUNT];
    uint32_t cap[RF__COUNT];
    struct ir_sreg_slot *sregs;
    uint32_t nsregs, capsregs;
    struct ir_addr_slot *addrs;
    uint32_t naddrs, capaddrs;
};

static uint64_t pd_hash(uint8_t tag, uint8_t rf, uint64_t a, int64_t b)
{
    uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (uint64_t)b * 0xc2b2ae3d27d4eb4full;
    h ^= ((uint64_t)tag << 8 | rf) * 0x165667b19e3779f9ull;
    h ^= h >> 31;
    return h * 0xd6e8feb86659fd93ull;
}

static int pd_grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    uint32_t nc = *cap ? *cap * 2 : 16;
    while (nc < need)
        nc *= 2;
    void *q = realloc(*p, (size_t)nc * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = nc;
    return 0;
}

/* Use the context's table with room for cap entries (a power of two), cleared. */
static int pd_tab_reset(struct pd_func *p, uint32_t cap)
{
    struct pd_ctx *c = p->ctx;
    if (cap > c->tabcap) {
        free(c->tab);
        c->tab = malloc((size_t)cap * sizeof(struct pd_key));
        c->tabcap = c->tab ? cap : 0;
        if (!c->tab)
            return -1;
    }
    p->tab = c->tab;
    memset(p->tab, 0, (size_t)cap * sizeof *p->tab);
    p->mask = cap - 1;
    p->used = 0;
    return 0;
}

/* Double the table when it is half full (rehashing every key). */
static int pd_tab_grow(struct pd_func *p)
{
    uint32_t cap = (p->mask + 1) * 2;
    struct pd_key *old = p->tab, *nt = calloc(cap, sizeof *nt);
    if (!nt)
        return -1;
    for (uint32_t k = 0; k <= p->mask; k++) {
        if (!old[k].tag)
            continue;
        uint32_t i = (uint32_t)pd_hash(old[k].tag, old[k].rf, old[k].a, old[k].b) & (cap - 1);
        while (nt[i].tag)
            i = (i + 1) & (cap - 1);
        nt[i] = old[k];
    }
    free(p->ctx->tab);
    p->ctx->tab = nt;
    p->ctx->tabcap = cap;
    p->tab = nt;
    p->mask = cap - 1;
    return 0;
}

/* Find or add the slot for a key; val is the initial constant image. Returns the slot or
 * IR_NOSLOT on allocation failure. */
static uint32_t pd_slot(struct pd_func *p, const struct ir_func *f, uint8_t tag, uint8_t rf,
                        uint64_t a, int64_t b, uint64_t val, uint8_t space)
{
    if (2 * (p->used + 1) > p->mask + 1 && pd_tab_grow(p) < 0)
        return IR_NOSLOT;
    uint32_t i = (uint32_t)pd_hash(tag, rf, a, b) & p->mask;
    while (p->tab[i].tag) {
        const struct pd_key *k = &p->tab[i];
        if (k->tag == tag && k->rf == rf && k->a == a && k->b == b)
            return k->slot;
        i = (i + 1) & p->mask;
    }
    uint32_t n = p->added[rf];
    if (pd_grow((void **)&p->vals[rf], &p->cap[rf], n + 1, sizeof(uint64_t)))
        return IR_NOSLOT;
    uint32_t slot = f->ndeclared[rf] + n;
    p->vals[rf][n] = val;
    p->added[rf]++;
    if (tag == KEY_SREG) {
        if (pd_grow((void **)&p->sregs, &p->capsregs, p->nsregs + 1, sizeof *p->sregs))
            return IR_NOSLOT;
        p->sregs[p->nsregs].sreg = (uint8_t)a;
        p->sregs[p->nsregs].rf = rf;
        p->sregs[p->nsregs].slot = slot;
        p->nsregs++;
    } else if (tag == KEY_SYM || tag == KEY_FUNC) {
        if (pd_grow((void **)&p->addrs, &p->capaddrs, p->naddrs + 1, sizeof *p->addrs))
            return IR_NOSLOT;
        struct ir_addr_slot *r = &p->addrs[p->naddrs++];
        memset(r, 0, sizeof *r);
        r->sym = (uint32_t)a;
        r->slot = slot;
        r->addend = b;
        r->rf = rf;
        r->space = space;
        r->is_func = tag == KEY_FUNC;
    }
    p->used++;
    p->tab[i].tag = tag;
    p->tab[i].rf = rf;
    p->tab[i].a = a;
    p->tab[i].b = b;
    p->tab[i].slot = slot;
    return slot;
}

static uint64_t pd_trunc(unsigned rf, uint64_t v)
{
    switch (rf) {
    case RF_PRED: return v ? 0xffffffffu : 0;
    case RF_B16: return v & 0xffffu;
    case RF_B32: return v & 0xffffffffu;
    default: return v;
    }
}

/* One operand: give it its slot. */
static int pd_opnd(struct pd_ctx *c, struct pd_func *p, struct ir_func *f,
                   const struct ir_insn *in, struct ir_opnd *o)
{
    struct ir_module *m = c->m;
    int rf = pd_rf_of_type(o->type);
    uint32_t slot = 0;
    switch (o->kind) {
    case OPK_IMM:
        if (rf < 0) /* untyped: the smallest of B32 / B64 that holds the value */
            rf = (o->imm.i >= INT32_MIN && o->imm.i <= (int64_t)UINT32_MAX) ? RF_B32 : RF_B64;
        slot = pd_slot(p, f, KEY_IMM, (uint8_t)rf, pd_trunc((unsigned)rf, o->imm.u), 0,
                       pd_trunc((unsigned)rf, o->imm.u), SP_NONE);
        o->flags |= OPF_CONST;
        break;
    case OPK_SYM: {
        if (o->sym >= m->nsyms) {
            PERR(c, in->line, in->col, "operand refers to an unknown variable (#%u)", o->sym);
            return 0;
        }
        if (rf < 0 || rf == RF_PRED || rf == RF_B16)
            rf = m->address_size == 32 ? RF_B32 : RF_B64;
        const struct ir_sym *s = &m->syms[o->sym];
        slot = pd_slot(p, f, KEY_SYM, (uint8_t)rf, o->sym, o->imm.i,
                       pd_trunc((unsigned)rf, s->offset + o->imm.u), s->space);
        o->flags |= OPF_CONST;
        break;
    }
    case OPK_FUNC:
        if (in->op == OP_CALL)
            return 0; /* call target: no slot */
        if (o->imm.u >= m->nfuncs) {
            PERR(c, in->line, in->col, "operand refers to an unknown function (#%llu)",
                 (unsigned long long)o->imm.u);
            return 0;
        }
        if (rf < 0 || rf == RF_PRED || rf == RF_B16)
            rf = m->address_size == 32 ? RF_B32 : RF_B64;
        slot = pd_slot(p, f, KEY_FUNC, (uint8_t)rf, o->imm.u, 0, o->imm.u, SP_NONE);
        o->flags |= OPF_CONST;
        break;
    case OPK_SREG:
        if (rf < 0 || rf == RF_PRED)
            rf = pd_sreg_is_64(o->sreg) ? RF_B64 : RF_B32;
        slot = pd_slot(p, f, KEY_SREG, (uint8_t)rf, o->sreg, 0, 0, SP_NONE);
        break;
    default:
        return 0;
    }
    if (slot == IR_NOSLOT)
        return -1;
    o->rf = (uint8_t)rf;
    o->slot = slot;
    return 0;
}

/* ============================================================== timing facts, checks */

static unsigned pd_lat(unsigned op, unsigned unit);

static void pd_facts(struct pd_ctx *c, struct ir_func *f, struct ir_insn *in)
{
    struct ir_module *m = c->m;
    if (in->op >= OP__COUNT) {
        PERR(c, in->line, in->col, "opcode %u out of range", in->op);
        return;
    }
    unsigned unit = pd_opunit[in->op];
    unsigned t0 = in->type[0], t1 = in->type[1];
    if (unit == U_ALU) {
        if (t0 == T_F64 || t1 == T_F64)
            unit = U_DP;
        else if (ir_type_is_float((enum ir_type)t0) || ir_type_is_float((enum ir_type)t1))
            unit = U_SP;
        else
            unit = U_INT;
    }
    else if (unit == U_SFU && (t0 == T_F64 || t1 == T_F64))
        unit = U_DP; /* rcp/sqrt/rsqrt .f64 run on the double-precision unit */
    in->unit = (uint8_t)unit;
    unsigned fl = pd_opflags[in->op];
    /* PTXPlus control flow, whatever its ops.def row says */
    if (in->op == c->op_break)
        fl |= IF_BRANCH | IF_TERM;
    else if (in->op == c->op_retp)
        fl |= IF_RET | IF_TERM;
    else if (in->op == c->op_callp)
        fl |= IF_CALL;
    if (in->fl & IR_FL(FL_UNI))
        fl |= IF_UNIFORM;
    if (in->op == OP_RET && f->is_entry)
        fl |= IF_EXIT;
    in->iflags = (uint16_t)fl;
    in->lat = (uint16_t)pd_lat(in->op, unit);
    in->width = 0;
    if (in->op == OP_LD || in->op == OP_LDU || in->op == OP_ST || in->op == OP_ATOM ||
        in->op == OP_RED || in->op == OP_PREFETCH || in->op == OP_PREFETCHU ||
        (fl & (IF_LOAD | IF_STORE | IF_ATOMIC)))
        in->width = (uint8_t)pd_type_size(t0);

    in->target = IR_NOPC;
    in->reconv = IR_NOPC; /* cfg.c sets it on terminators */
    if (in->op == OP_BRA || in->op == c->op_breakaddr) {
        for (unsigned i = 0; i < in->nopnd; i++) {
            const struct ir_opnd *o = ir_opnd(f, in, i);
            if (o->kind == OPK_LABEL) {
                in->target = (uint32_t)o->imm.u;
                break;
            }
        }
    } else if (in->op == OP_CALL || in->op == c->op_callp) {
        for (unsigned i = 0; i < in->nopnd; i++) {
            const struct ir_opnd *o = ir_opnd(f, in, i);
            if (o->kind == OPK_LABEL) { /* PTXPlus callp to a subroutine label */
                in->target = (uint32_t)o->imm.u;
                break;
            }
            if (o->kind != OPK_FUNC)
                continue;
            if (o->imm.u >= m->nfuncs) {
                PERR(c, in->line, in->col, "call to an unknown function (#%llu)",
                     (unsigned long long)o->imm.u);
                break;
            }
            const struct ir_func *g = &m->funcs[o->imm.u];
            if (!g->defined && g->linkage != LNK_EXTERN)
                PERR(c, in->line, in->col,
                     "call to '%s', which is declared but never defined (declare it .extern "
                     "if another module defines it)",
                     ir_str(m, g->name));
            else if (g->is_entry)
                PERR(c, in->line, in->col, "call to kernel '%s' (only .func can be called)",
                     ir_str(m, g->name));
            in->target = (uint32_t)o->imm.u;
            break;
        }
    }
}

/* Latency class (enum ir_lat) of an instruction of the given (refined) unit. */
static unsigned pd_lat(unsigned op, unsigned unit)
{
    switch (op) {
    case OP_MIN: case OP_MAX:
        return LAT_MAX;
    case OP_MUL: case OP_MUL24:
        return LAT_MUL;
    case OP_MAD: case OP_MADC: case OP_MAD24: case OP_FMA: case OP_SAD: case OP_DP4A:
    case OP_DP2A:
        return LAT_MAD;
    case OP_DIV: case OP_REM:
        return LAT_DIV;
    case OP_SHFL: case OP_VOTE: case OP_MATCH: case OP_REDUX: case OP_ACTIVEMASK:
        return LAT_SHFL;
    case OP_RCP: case OP_SQRT: case OP_RSQRT: case OP_SIN: case OP_COS: case OP_LG2:
    case OP_EX2: case OP_TANH:
        return LAT_SFU;
    case OP_MMA: case OP_MMA_SP: case OP_MMA_SP_ORDERED: case OP_WMMA_MMA:
    case OP_WGMMA_MMA_ASYNC: case OP_WGMMA_MMA_ASYNC_SP: case OP_TCGEN05_MMA:
    case OP_TCGEN05_MMA_SP: case OP_TCGEN05_MMA_WS: case OP_TCGEN05_MMA_WS_SP:
        return LAT_TENSOR;
    default:
        break;
    }
    if (unit == U_INT || unit == U_SP || unit == U_DP)
        return LAT_ADD;
    if (unit == U_SFU)
        return LAT_SFU;
    if (unit == U_TENSOR)
        return LAT_TENSOR;
    return LAT_DEFAULT;
}

/* Opcodes whose operand 0 is written although its format character ('x', 'w') does not say
 * so (the builder flags OPF_DST only for d/D/h/U/p positions; tcgen05.ld.red writes its
 * operand 1 too, see pd_regrefs). */
static bool pd_x0_writes(unsigned op)
{
    switch (op) {
    case OP_CVTA: case OP_CREATEPOLICY: case OP_ALLOCA: case OP_STACKSAVE: case OP_VOTE:
    case OP_ELECT: case OP_MBARRIER_ARRIVE: case OP_MBARRIER_ARRIVE_DROP:
    case OP_CLUSTERLAUNCHCONTROL_QUERY_CANCEL: case OP_WMMA_LOAD: case OP_WMMA_MMA:
    case OP_MMA: case OP_MMA_SP: case OP_MMA_SP_ORDERED: case OP_LDMATRIX:
    case OP_WGMMA_MMA_ASYNC: case OP_WGMMA_MMA_ASYNC_SP: case OP_TCGEN05_LD:
    case OP_TCGEN05_LD_RED:
        return true;
    default:
        return false;
    }
}

/* Append one register reference (deduplicated within the instruction from index from). */
static int pd_rr_add(struct pd_ctx *c, uint32_t from, uint8_t rf, uint32_t slot, unsigned n,
                     bool dst)
{
    if (n == 0)
        n = 1;
    if (n > 255)
        n = 255;
    for (uint32_t i = from; i < c->nrr; i++)
        if (c->rr[i].slot == slot && c->rr[i].rf == rf && c->rr[i].n == n &&
            c->rr[i].dst == dst)
            return 0;
    if (pd_grow((void **)&c->rr, &c->caprr, c->nrr + 1, sizeof *c->rr))
        return -1;
    c->rr[c->nrr++] = (struct ir_regref){slot, rf, (uint8_t)n, dst ? 1 : 0, 0};
    return 0;
}

/* The registers of one operand (list elements included), as destinations (want_dst) or as
 * sources. A register operand is a destination when flagged OPF_DST or when is_dst says so
 * (operand 0 of pd_x0_writes opcodes, the return list of call); address bases are sources. */
static int pd_rr_opnd(struct pd_ctx *c, const struct ir_func *f, const struct ir_opnd *o,
                      uint32_t from, bool want_dst, bool is_dst, int depth)
{
    switch (o->kind) {
    case OPK_REG: {
        bool d = is_dst || (o->flags & OPF_DST);
        if (d != want_dst || o->rf >= RF__COUNT || o->slot >= f->ndeclared[o->rf])
            return 0;
        /* a .b128 register is two B64 slots; the elements of a mov.b128 pack / unpack list
           ({lo, hi}) are one slot each, whatever type they carry */
        unsigned n = (o->n ? o->n : 1) * (o->type == T_B128 && !depth ? 2u : 1u);
        return pd_rr_add(c, from, o->rf, o->slot, n, d);
    }
    case OPK_ADDR:
    case OPK_PP_MEM:
        if (want_dst || o->slot == IR_NOSLOT || o->rf >= RF__COUNT ||
            o->slot >= f->ndeclared[o->rf])
            return 0;
        return pd_rr_add(c, from, o->rf, o->slot, 1, false);
    case OPK_VEC:
    case OPK_PARAMS:
    case OPK_TEX: /* handles and coordinates: always read */
        if (depth || (uint64_t)o->first + o->n > f->nopnds)
            return 0;
        for (unsigned j = 0; j < o->n; j++)
            if (pd_rr_opnd(c, f, &f->opnds[o->first + j], from, want_dst,
                           o->kind != OPK_TEX && (is_dst || (o->flags & OPF_DST)), 1))
                return -1;
        return 0;
    default:
        return 0;
    }
}

/* ir_insn.regs and the register references of one instruction: destinations, then sources,
 * then the guard predicate. */
static int pd_regrefs(struct pd_ctx *c, const struct ir_func *f, struct ir_insn *in)
{
    uint32_t from = c->nrr;
    in->regs = from;
    if ((uint64_t)in->opnd + in->nopnd > f->nopnds)
        return 0;
    bool x0 = pd_x0_writes(in->op);
    for (int pass = 0; pass < 2; pass++) {
        bool want_dst = pass == 0;
        bool before_func = true; /* call: the list before the callee is the return list */
        for (unsigned i = 0; i < in->nopnd; i++) {
            const struct ir_opnd *o = &f->opnds[in->opnd + i];
            /* operand 0 of x0 opcodes is written; wgmma accumulates into it, so in the
               source pass it is read too */
            bool is_dst = i == 0 && x0 &&
                          !(!want_dst && (in->op == OP_WGMMA_MMA_ASYNC ||
                                          in->op == OP_WGMMA_MMA_ASYNC_SP));
            /* tcgen05.ld.red r, redval, [taddr]: redval is written too */
            if (in->op == OP_TCGEN05_LD_RED && i == 1)
                is_dst = true;
            /* bar.red / barrier.red d, a{, b}, {!}c writes d (the other barriers write
               nothing) */
            if ((in->op == OP_BAR || in->op == OP_BARRIER) && in->mode == MODE_RED)
                is_dst = i == 0;
            if (in->op == OP_CALL) {
                if (o->kind == OPK_FUNC || o->kind == OPK_REG)
                    before_func = false; /* direct or indirect (register) callee */
                is_dst = o->kind == OPK_PARAMS && before_func;
            }
            if (pd_rr_opnd(c, f, o, from, want_dst, is_dst, 0))
                return -1;
        }
    }
    if (in->guard != IR_NOGUARD && in->guard < f->ndeclared[RF_PRED])
        return pd_rr_add(c, from, RF_PRED, in->guard, 1, false);
    return 0;
}

static void pd_func_free_tmp(struct pd_func *p)
{
    for (unsigned rf = 0; rf < RF__COUNT; rf++)
        free(p->vals[rf]);
    free(p->sregs);
    free(p->addrs);
}

static void pd_reset_func(struct ir_func *f)
{
    if (f->pd_mem) {
        for (unsigned rf = 0; rf < RF__COUNT; rf++)
            f->nslots[rf] = f->ndeclared[rf];
        free(f->pd_mem);
    }
    f->pd_mem = NULL;
    for (unsigned rf = 0; rf < RF__COUNT; rf++)
        f->const_vals[rf] = NULL;
    f->sreg_slots = NULL;
    f->nsreg_slots = 0;
    f->addr_slots = NULL;
    f->naddr_slots = 0;
    if (f->regrefs_own)
        free(f->regrefs);
    f->regrefs_own = 0;
    f->regrefs = NULL;
    f->nregrefs = 0;
}

static int pd_function(struct pd_ctx *c, struct ir_func *f)
{
    bool again = f->pd_mem != NULL;
    pd_reset_func(f);
    for (unsigned rf = 0; rf < RF__COUNT; rf++)
        if (!again && f->nslots[rf] > f->ndeclared[rf])
            f->ndeclared[rf] = f->nslots[rf];

    struct pd_func p;
    memset(&p, 0, sizeof p);
    p.ctx = c;
    /* distinct constants are far fewer than operands: start small, grow when half full */
    uint32_t cap = 64;
    while (cap < f->ninsns / 2 && cap < (1u << 20))
        cap *= 2;
    if (pd_tab_reset(&p, cap) < 0)
        return -1;

    int rc = 0;
    c->nrr = 0;
    for (uint32_t pc = 0; pc < f->ninsns && rc == 0; pc++) {
        struct ir_insn *in = &f->insns[pc];
        pd_facts(c, f, in);
        rc = pd_regrefs(c, f, in);
        if ((uint64_t)in->opnd + in->nopnd > f->nopnds) {
            PERR(c, in->line, in->col, "operands out of range");
            continue;
        }
        for (unsigned i = 0; i < in->nopnd && rc == 0; i++) {
            struct ir_opnd *o = &f->opnds[in->opnd + i];
            if (o->kind == OPK_VEC || o->kind == OPK_PARAMS || o->kind == OPK_TEX) {
                if ((uint64_t)o->first + o->n > f->nopnds) {
                    PERR(c, in->line, in->col, "operand list out of range");
                    continue;
                }
                for (unsigned j = 0; j < o->n && rc == 0; j++)
                    rc = pd_opnd(c, &p, f, in, &f->opnds[o->first + j]);
            } else {
                rc = pd_opnd(c, &p, f, in, o);
            }
        }
    }
    if (rc) {
        pd_func_free_tmp(&p);
        return -1;
    }

    /* one allocation: const images per rf, sreg slots, address slots */
    size_t nvals = 0;
    for (unsigned rf = 0; rf < RF__COUNT; rf++)
        nvals += p.added[rf];
    /* register references: a big list is handed over (shrunk in place) rather than copied
       into fresh memory; a small one is copied into pd_mem and the scratch reused */
    bool own_rr = (size_t)c->nrr * sizeof(struct ir_regref) > PD_RR_HANDOVER;
    size_t bytes = nvals * sizeof(uint64_t) + p.naddrs * sizeof(struct ir_addr_slot) +
                   (own_rr ? 0 : (size_t)c->nrr * sizeof(struct ir_regref)) +
                   p.nsregs * sizeof(struct ir_sreg_slot) + 8;
    char *mem = malloc(bytes);
    if (!mem) {
        pd_func_free_tmp(&p);
        return -1;
    }
    char *q = mem;
    for (unsigned rf = 0; rf < RF__COUNT; rf++) {
        f->const_vals[rf] = (uint64_t *)q;
        if (p.added[rf])
            memcpy(q, p.vals[rf], p.added[rf] * sizeof(uint64_t));
        q += p.added[rf] * sizeof(uint64_t);
        f->nslots[rf] = f->ndeclared[rf] + p.added[rf];
    }
    f->addr_slots = (struct ir_addr_slot *)q;
    if (p.naddrs)
        memcpy(q, p.addrs, p.naddrs * sizeof *p.addrs);
    f->naddr_slots = p.naddrs;
    q += p.naddrs * sizeof(struct ir_addr_slot);
    if (own_rr) {
        struct ir_regref *rr = realloc(c->rr, (size_t)c->nrr * sizeof *rr);
        f->regrefs = rr ? rr : c->rr;
        f->regrefs_own = 1;
        c->rr = NULL;
        c->caprr = 0;
    } else {
        f->regrefs = (struct ir_regref *)q;
        if (c->nrr)
            memcpy(q, c->rr, (size_t)c->nrr * sizeof *c->rr);
        q += (size_t)c->nrr * sizeof(struct ir_regref);
    }
    f->nregrefs = c->nrr;
    f->sreg_slots = (struct ir_sreg_slot *)q;
    if (p.nsregs)
        memcpy(q, p.sregs, p.nsregs * sizeof *p.sregs);
    f->nsreg_slots = p.nsregs;
    f->pd_mem = mem;
    pd_func_free_tmp(&p);
    return 0;
}

/* Layout, constant and special-register slots, timing facts (passes.h). */
int ir_predecode(struct ir_module *m, FILE *diag)
{
    struct pd_ctx c = {m, diag, 0, pd_find_op("breakaddr"), pd_find_op("break"),
                       pd_find_op("callp"), pd_find_op("retp"), NULL, 0, 0, NULL, 0};
    if (pd_layout(&c) < 0)
        return c.nerr ? -c.nerr : -1;
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        struct ir_func *f = &m->funcs[i];
        if (!f->defined && f->ninsns == 0)
            continue;
        if (pd_function(&c, f) < 0) {
            if (diag)
                fprintf(diag, "%s: error: out of memory in predecode\n",
                        m->filename ? m->filename : "<input>");
            c.nerr++;
        }
    }
    free(c.rr);
    free(c.tab);
    return -c.nerr;
}

void ir_passes_free(struct ir_module *m)
{
    if (!m)
        return;
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        pd_reset_func(&m->funcs[i]);
        cfg_free(m->funcs[i].cfg);
        m->funcs[i].cfg = NULL;
    }
}
