/*
 * frontend/predecode.c — layout and predecode (passes.h: ir_predecode), run once per module
 * after the builder and before the CFG.
 *
 * Layout (ir_sym.offset, sizes):
 *   - .global / .const variables (any scope, extern and managed ones included as declared):
 *     offsets in the module's global / const segment, each at its .align (or natural
 *     alignment: element size x vector count); ir_module.global_size / const_size = the end;
 *   - static .shared variables (module or function scope): offsets in the CTA shared window,
 *     ir_module.shared_size = the end; ir_func.shared_size = bytes a function declares itself.
 *     An extern .shared array of unknown size is dynamic shared memory: VF_DYNAMIC is set and
 *     every such variable gets offset = align(static end, max(16, their largest .align)), so
 *     they all alias (as extern __shared__ arrays do in CUDA);
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
 *   OPK_ADDR keeps its base register slot; OPK_VEC / OPK_PARAMS elements are handled like
 *   top-level operands.
 *
 * Timing facts per instruction: unit (U_ALU refined: integer/bit/pred types -> U_INT;
 * f16/bf16/f32/tf32 -> U_SP; any f64 type -> U_DP), width (bytes per element of ld/ldu/st/
 * atom/red/prefetch), iflags (ops.def | IF_UNIFORM for .uni | IF_EXIT for ret in an .entry),
 * target (bra, PTXPlus breakaddr and callp: label PC; call: callee index, IR_NOPC for indirect
 * calls; brx.idx: IR_NOPC, its targets are the table).
 */
#include <stdlib.h>
#include <string.h>

#include "frontend/cfg.h"
#include "frontend/passes.h"

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

/* Bytes of a type (0 for none / pred / sub-byte types); handles, 8. */
static unsigned pd_type_size(unsigned t)
{
    switch (t) {
    case T_B8: case T_U8: case T_S8: case T_E4M3: case T_E5M2:
        return 1;
    case T_B16: case T_U16: case T_S16: case T_F16: case T_BF16: case T_E4M3X2: case T_E5M2X2:
    case T_E2M3X2: case T_E3M2X2: case T_E2M1X2: case T_UE8M0X2:
        return 2;
    case T_B32: case T_U32: case T_S32: case T_F32: case T_F16X2: case T_BF16X2: case T_TF32:
        return 4;
    case T_B64: case T_U64: case T_S64: case T_F64: case T_TEXREF: case T_SAMPLERREF:
    case T_SURFREF:
        return 8;
    case T_B128:
        return 16;
    default:
        return 0;
    }
}

static bool pd_type_float(unsigned t)
{
    return t == T_F16 || t == T_F16X2 || t == T_BF16 || t == T_BF16X2 || t == T_TF32 ||
           t == T_F32 || (t >= T_E4M3 && t <= T_UE8M0X2);
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

    uint64_t gend = 0, cend = 0, send = 0, lend0 = 0, dyn_align = 16;
    bool any_dyn = false;
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
            if ((s->flags & VF_DYNAMIC) || (s->linkage == LNK_EXTERN && s->size == 0)) {
                s->flags |= VF_DYNAMIC;
                any_dyn = true;
                uint64_t a = pd_sym_align(c, s);
                if (a > dyn_align)
                    dyn_align = a;
            } else {
                uint64_t sz = pd_place(c, s, &send);
                if (s->func >= 0 && (uint32_t)s->func < m->nfuncs)
                    m->funcs[s->func].shared_size += (uint32_t)sz;
            }
            break;
        case SP_LOCAL:
            if (s->func < 0)
                pd_place(c, s, &lend0);
            break;
        default:
            break;
        }
    }
    if (any_dyn) {
        uint64_t off = pd_align_up(send, dyn_align);
        for (uint32_t i = 0; i < m->nsyms; i++)
            if (m->syms[i].flags & VF_DYNAMIC)
                m->syms[i].offset = off;
    }
    m->global_size = gend;
    m->const_size = cend;
    m->shared_size = send;

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
    struct pd_key *tab;
    uint32_t mask;
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

/* Find or add the slot for a key; val is the initial constant image. Returns the slot or
 * IR_NOSLOT on allocation failure. */
static uint32_t pd_slot(struct pd_func *p, const struct ir_func *f, uint8_t tag, uint8_t rf,
                        uint64_t a, int64_t b, uint64_t val, uint8_t space)
{
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
        else if (pd_type_float(t0) || pd_type_float(t1))
            unit = U_SP;
        else
            unit = U_INT;
    }
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

static void pd_func_free_tmp(struct pd_func *p)
{
    free(p->tab);
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
    uint32_t cap = 16;
    while (cap < 2 * (uint64_t)f->nopnds + 2)
        cap *= 2;
    p.tab = calloc(cap, sizeof *p.tab);
    if (!p.tab)
        return -1;
    p.mask = cap - 1;

    int rc = 0;
    for (uint32_t pc = 0; pc < f->ninsns && rc == 0; pc++) {
        struct ir_insn *in = &f->insns[pc];
        pd_facts(c, f, in);
        if ((uint64_t)in->opnd + in->nopnd > f->nopnds) {
            PERR(c, in->line, in->col, "operands out of range");
            continue;
        }
        for (unsigned i = 0; i < in->nopnd && rc == 0; i++) {
            struct ir_opnd *o = &f->opnds[in->opnd + i];
            if (o->kind == OPK_VEC || o->kind == OPK_PARAMS) {
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
    size_t bytes = nvals * sizeof(uint64_t) + p.naddrs * sizeof(struct ir_addr_slot) +
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
                       pd_find_op("callp"), pd_find_op("retp")};
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
