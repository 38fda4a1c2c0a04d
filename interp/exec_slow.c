/*
 * interp/exec_slow.c — the slow dispatch loops: tracing (--trace) and checking (--check), and
 * single-stepping (the engine seam's engine_step, for timing models).
 *
 * Here every handler body of interp/ops/FAMILY.inc is a function of its own (compiled once,
 * quickly, and shared by both loops), called through a table; the loop state a body reads and
 * changes (pc, segment, counts) travels in a struct slow. The fast loops (exec_loop.h) keep
 * the bodies inline. Memory handlers report each lane's access through TRACE_MEM_ACCESS, which
 * here prints it (--trace mem) or records it in the step report.
 */
#include "interp/exec_loop.h"
#include "interp/check.h"

/* The checking/tracing loop has a second instantiation for x86-64-v3 hosts (exec_slow_v3.c:
 * this file compiled with AVX2 and FMA, its lane loops vectorized 8 wide as the fast loop's
 * are); exec_warp_trace picks it as exec_warp picks the fast one (launch_state.exec_isa). GCC
 * only (its `#pragma GCC target`). */
#if EXEC_HAVE_V3 && defined(__GNUC__) && !defined(__clang__)
#define EXEC_SLOW_HAVE_V3 1
#else
#define EXEC_SLOW_HAVE_V3 0
#endif

/* The loop state a handler sees and changes. */
struct slow {
    const struct ir_insn *in;
    const struct ir_opnd *O;
    uint32_t pc, active, rpc, seg, M;
    uint64_t ninsn, nthread, limit;
    struct engine_step_report *rep; /* stepping: accesses are recorded here */
    unsigned check;                 /* CHECK_LOOP tools on: accesses go to check_accesses */
    bool trace_mem;                 /* --trace mem: accesses are printed */
    bool crec;                      /* checking alone: slow_mem records into cacc */
    uint8_t cspace;                 /* checking: the instruction's space as step_space gives
                                       it (SP_*), or CSPACE_GENERIC: resolved per access */
    uint32_t cpc;                   /* checking: the instruction whose accesses are in cacc */
    unsigned ncacc;
    struct engine_access *cacc;     /* ENGINE_MAX_ACCESS entries */
};

/* How a handler left: where the loop goes on (the codes exec_cold_run returns to a fast loop). */
enum {
    SLOW_FETCH = EXEC_COLD_FETCH,
    SLOW_RELOAD = EXEC_COLD_RELOAD,
    SLOW_OUT = EXEC_COLD_OUT,
    SLOW_FAULT = EXEC_COLD_FAULT
};

typedef int (*slow_handler)(struct warp *w, struct slow *S);

static inline void slow_mem(struct warp *w, struct slow *S, unsigned l, uint64_t addr,
                            unsigned width, bool wr, const void *val);

#undef TRACE_MEM_ACCESS
#define TRACE_MEM_ACCESS(l, addr, width, wr, valp) slow_mem(w, S, (l), (addr), (width), (wr), (valp))
#ifdef EXEC_SLOW_V3
#define EXEC_HWFMA 1
#else
#define EXEC_HWFMA 0
#endif

/* ------------------------------------------------------------------ trace printing */

/* Name of register (rf, slot) of fn, e.g. "%r12", or "c12" for a constant slot. */
static void trace_reg_name(char *buf, size_t n, const struct xfunc *fn, unsigned rf, uint32_t slot)
{
    const struct ir_func *f = fn->f;
    for (uint32_t i = 0; i < f->nregdecls; i++) {
        const struct ir_regdecl *d = &f->regdecls[i];
        if (d->rf != rf)
            continue;
        uint32_t cnt = d->count ? d->count : 1;
        if (slot >= d->slot && slot < d->slot + cnt) {
            if (d->count)
                snprintf(buf, n, "%s%u", ir_str(fn->m, d->name), slot - d->slot);
            else
                snprintf(buf, n, "%s", ir_str(fn->m, d->name));
            return;
        }
    }
    snprintf(buf, n, "$%c%u", "pHWD"[rf], slot);
}

static bool trace_wanted(const struct warp *w)
{
    const struct launch_state *L = w->cta->L;
    int64_t t = L->cfg->trace_thread;
    if (t < 0)
        return true;
    uint64_t first = w->cta->linear * L->nthreads + (uint64_t)w->id * 32;
    return (uint64_t)t >= first && (uint64_t)t < first + 32;
}

static void trace_insn(const struct warp *w, uint32_t pc, uint32_t M)
{
    if (!trace_wanted(w))
        return;
    FILE *o = w->cta->L->trace_out;
    const struct xfunc *fn = w->fn;
    fprintf(o, "[cta (%u,%u,%u) warp %u] pc %u mask %08x  ", w->cta->id[0], w->cta->id[1],
            w->cta->id[2], w->id, pc, M);
    if (pc < fn->f->ninsns)
        ir_print_insn(o, fn->m, fn->f, &fn->f->insns[pc]);
    else
        fputs("ret; // end of function", o);
    fputc('\n', o);
}

static void trace_opnd_value(FILE *o, const struct warp *w, const struct ir_opnd *e, uint32_t M)
{
    char name[64];
    trace_reg_name(name, sizeof name, w->fn, e->rf, e->slot);
    fprintf(o, "    %s:", name);
    for (unsigned l = 0; l < 32; l++) {
        if (!(M >> l & 1))
            continue;
        switch (e->rf) {
        case RF_PRED: fprintf(o, " %u", w->pred[e->slot] >> l & 1); break;
        case RF_B16: fprintf(o, " %04x", w->r16[e->slot][l].u); break;
        case RF_B32: fprintf(o, " %08x", w->r32[e->slot][l].u); break;
        default: fprintf(o, " %016" PRIx64, w->r64[e->slot][l].u); break;
        }
    }
    fputc('\n', o);
}

static void trace_regs(const struct warp *w, const struct ir_insn *in, uint32_t M)
{
    if (!trace_wanted(w) || w->fn == NULL)
        return;
    FILE *o = w->cta->L->trace_out;
    const struct ir_opnd *O = &w->fn->opnds[in->opnd];
    for (unsigned i = 0; i < in->nopnd; i++) {
        const struct ir_opnd *e = &O[i];
        if (!(e->flags & OPF_DST))
            continue;
        if (e->kind == OPK_REG) {
            unsigned n = e->n ? e->n : 1;
            for (unsigned k = 0; k < n; k++) {
                struct ir_opnd t = *e;
                t.slot += k;
                trace_opnd_value(o, w, &t, M);
            }
        } else if (e->kind == OPK_VEC) {
            for (unsigned k = 0; k < e->n; k++) {
                const struct ir_opnd *v = &w->fn->opnds[e->first + k];
                if (v->kind == OPK_REG)
                    trace_opnd_value(o, w, v, M);
            }
        }
    }
}

static void trace_mem(const struct warp *w, unsigned l, uint64_t addr, unsigned width, bool wr,
                      const void *val)
{
    if (!trace_wanted(w))
        return;
    uint64_t v = 0;
    memcpy(&v, val, width < 8 ? width : 8);
    fprintf(w->cta->L->trace_out, "    lane %u %s [%#" PRIx64 "] %u bytes: %#" PRIx64 "\n", l,
            wr ? "st" : "ld", addr, width, v);
}

/* ------------------------------------------------------------------ step reports */

/* The space and address of an access as engine.h reports it: shared and local as offsets in
 * their windows, generic addresses resolved. */
static inline __attribute__((always_inline)) void step_space(const struct ir_insn *in,
                                                          uint64_t *addr, uint8_t *space)
{
    uint64_t a = *addr;
    switch (in->space) {
    case SP_SHARED: case SP_SHARED_CTA: case SP_SHARED_CLUSTER: *space = SP_SHARED; return;
    case SP_LOCAL: *space = SP_LOCAL; return;
    case SP_PARAM: case SP_PARAM_ENTRY: case SP_PARAM_FUNC: *space = SP_PARAM; return;
    case SP_CONST: *space = SP_CONST; return;
    case SP_GLOBAL: *space = SP_GLOBAL; return;
    default: break;
    }
    if (a - MEM_SHARED_BASE < MEM_SHARED_SIZE) {
        *space = SP_SHARED;
        *addr = a - MEM_SHARED_BASE;
    } else if (a - MEM_LOCAL_BASE < MEM_LOCAL_SIZE) {
        *space = SP_LOCAL;
        *addr = a - MEM_LOCAL_BASE;
    } else if (a - MEM_PARAM_BASE < MEM_PARAM_SIZE) {
        *space = SP_PARAM;
        *addr = a - MEM_PARAM_BASE;
    } else {
        *space = SP_GLOBAL;
    }
}

enum { CSPACE_GENERIC = 0xff };

/* The space of instruction in's accesses as step_space reports them, or CSPACE_GENERIC when
 * each address decides (generic addressing). */
static uint8_t insn_space(const struct ir_insn *in)
{
    switch (in->space) {
    case SP_SHARED: case SP_SHARED_CTA: case SP_SHARED_CLUSTER: return SP_SHARED;
    case SP_LOCAL: return SP_LOCAL;
    case SP_PARAM: case SP_PARAM_ENTRY: case SP_PARAM_FUNC: return SP_PARAM;
    case SP_CONST: return SP_CONST;
    case SP_GLOBAL: return SP_GLOBAL;
    default: return CSPACE_GENERIC;
    }
}

/* Checking: hand the accesses recorded for instruction S->cpc to the checks. */
static void check_flush(struct warp *w, struct slow *S)
{
    check_accesses(w, S->cpc, S->cacc, S->ncacc, S->in->op == OP_ATOM || S->in->op == OP_RED);
    S->ncacc = 0;
}

/* Append one access to step report r (counted in access_dropped once it is full); returns the
 * entry, or NULL when dropped. The space is the caller's to set. */
static struct engine_access *rep_add(struct engine_step_report *r, unsigned l, uint64_t addr,
                                     unsigned width, bool wr)
{
    if (r->naccess == ENGINE_MAX_ACCESS) {
        r->access_dropped++;
        return NULL;
    }
    struct engine_access *a = &r->access[r->naccess++];
    a->addr = addr;
    a->lane = l;
    a->width = (uint16_t)width;
    a->write = wr;
    return a;
}

/* One lane's memory access: recorded when stepping or checking, printed when tracing memory. */
static void slow_mem_out(struct warp *w, struct slow *S, unsigned l, uint64_t addr,
                         unsigned width, bool wr, const void *val);
static inline __attribute__((always_inline)) void slow_mem(struct warp *w, struct slow *S,
                                                           unsigned l, uint64_t addr,
                                                           unsigned width, bool wr,
                                                           const void *val)
{
    /* checking alone (the common case of the loop): record it here, in the handler, with
     * the space found once per instruction */
    if (S->crec && S->ncacc < ENGINE_MAX_ACCESS) {
        struct engine_access *a = &S->cacc[S->ncacc++];
        a->addr = addr;
        a->lane = l;
        a->width = (uint16_t)width;
        a->write = wr;
        if (S->cspace != CSPACE_GENERIC)
            a->space = S->cspace;
        else
            step_space(S->in, &a->addr, &a->space);
        return;
    }
    slow_mem_out(w, S, l, addr, width, wr, val);
}

static void slow_mem_out(struct warp *w, struct slow *S, unsigned l, uint64_t addr,
                         unsigned width, bool wr, const void *val)
{
    struct engine_step_report *r = S->rep;
    if (S->check) {
        if (S->ncacc == ENGINE_MAX_ACCESS)
            check_flush(w, S);
        struct engine_access *a = &S->cacc[S->ncacc++];
        a->addr = addr;
        a->lane = l;
        a->width = (uint16_t)width;
        a->write = wr;
        step_space(S->in, &a->addr, &a->space);
    }
    if (r) {
        struct engine_access *a = rep_add(r, l, addr, width, wr);
        if (a)
            step_space(S->in, &a->addr, &a->space);
        return;
    }
    if (S->trace_mem)
        trace_mem(w, l, addr, width, wr, val);
}

/* The tc_mem recorder of matrix and asynchronous instructions (interp/tensor.h): as slow_mem,
 * with the space each access names (cp.async reads global and writes shared memory). */
struct slow_tc {
    struct warp *w;
    struct slow *S;
};
static void slow_tc_mem(void *ctx, unsigned l, uint64_t addr, unsigned width, bool wr, int space,
                        const void *val)
{
    const struct slow_tc *c = ctx;
    struct engine_step_report *r = c->S->rep;
    if (c->S->check) {
        const struct engine_access a = {.addr = addr, .lane = l, .width = (uint16_t)width,
                                        .write = wr, .space = (uint8_t)space};
        check_async_accesses(c->w, c->S->cpc, &a, 1);
    }
    if (r) {
        struct engine_access *a = rep_add(r, l, addr, width, wr);
        if (a)
            a->space = (uint8_t)space;
        return;
    }
    if (c->w->cta->L->cfg->trace & TRACE_MEM)
        trace_mem(c->w, l, addr, width, wr, val);
}
/* The range recorder of bulk and tensor copies' data (tc_mem_range): checking and tracing see
 * the pieces as before; a step report keeps the global bytes as runs (range[]: a piece
 * contiguous with the last run of the same lane and direction, or the one before it (a
 * reduction reads and writes each element), extends it) and not the shared side. */
static void slow_tc_range(void *ctx, unsigned l, uint64_t addr, uint64_t n, bool wr, int space,
                          const void *val, unsigned piece)
{
    const struct slow_tc *c = ctx;
    struct engine_step_report *r = c->S->rep;
    const bool tr = !r && (c->w->cta->L->cfg->trace & TRACE_MEM);
    if (c->S->check || tr)
        for (uint64_t o = 0; o < n; o += piece) {
            if (c->S->check) {
                const struct engine_access a = {.addr = addr + o, .lane = l,
                                                .width = (uint16_t)piece, .write = wr,
                                                .space = (uint8_t)space};
                check_async_accesses(c->w, c->S->cpc, &a, 1);
            }
            if (tr)
                trace_mem(c->w, l, addr + o, piece, wr, (const uint8_t *)val + o);
        }
    if (!r || space != SP_GLOBAL)
        return;
    for (uint32_t k = r->nrange > 2 ? r->nrange - 2 : 0; k < r->nrange; k++) {
        struct engine_range *g = &r->range[k];
        if (g->lane == l && g->write == wr && g->addr + g->bytes == addr &&
            g->bytes + n <= UINT32_MAX) {
            g->bytes += (uint32_t)n;
            return;
        }
    }
    if (r->nrange == ENGINE_MAX_RANGE) {
        r->range_dropped += n;
        return;
    }
    r->range[r->nrange++] = (struct engine_range){.addr = addr, .bytes = (uint32_t)n,
                                                  .lane = (uint16_t)l, .write = wr};
}
#undef TC_MEM_REPORT
#define TC_MEM_REPORT                                                                          \
    (&(const struct tc_mem){slow_tc_mem, &(struct slow_tc){w, S}, slow_tc_range})

/* The recorder of texture and surface instructions: their texel / element addresses go into
 * the step report only (not to tracing or checking, which see the instruction as before).
 * Texels (SP_TEX) are recorded once per 32-byte sector over the warp (the first lane reading
 * it): a filtered fetch reads up to 8 texels per lane, and the timing model needs only the
 * sectors, so ENGINE_MAX_ACCESS covers 64 distinct sectors per fetch. */
static void slow_tex_mem(void *ctx, unsigned l, uint64_t addr, unsigned width, bool wr, int space,
                         const void *val)
{
    struct engine_step_report *r = ctx;
    (void)val;
    if (space == SP_TEX)
        for (uint32_t i = 0; i < r->naccess; i++)
            if (r->access[i].space == SP_TEX && r->access[i].addr >> 5 == addr >> 5)
                return;
    struct engine_access *a = rep_add(r, l, addr, width, wr);
    if (a)
        a->space = (uint8_t)space;
}
#undef TEX_MEM_REPORT
#define TEX_MEM_REPORT (S->rep ? &(const struct tc_mem){slow_tex_mem, S->rep, NULL} : NULL)

/* ------------------------------------------------------------------ handlers out of line */

/* Each body becomes a function with the loop's locals as locals: it reads them from S and
 * writes back what it may change; its exits (VM_NEXT's fetch, VM_JUMP's reload, out, fault)
 * return where the loop goes on. */
#define SLOW_LABEL(name, code)                                                                 \
    name:                                                                                      \
    __attribute__((unused));                                                                   \
    r_ = (code);                                                                               \
    goto save_;
/* A .sync collective's named lanes wait in other activations (interp/ops/warp.inc): run it
 * with them (exec_borrow_run) and leave the handler where that run left it. */
#define ITS_BORROW(need, mo)                                                                   \
    do {                                                                                       \
        struct exec_cold c_ = {in, O, pc, active, w->stk[w->depth - 1].rpc, seg, M,            \
                               ninsn, nthread, limit};                                         \
        r_ = exec_borrow_run(w, &c_, (mo), (need));                                            \
        pc = c_.pc;                                                                            \
        seg = c_.seg;                                                                          \
        ninsn = c_.ninsn;                                                                      \
        nthread = c_.nthread;                                                                  \
        goto save_;                                                                            \
    } while (0)
#define H(name, cond, ...)                                                                     \
    static int slow_##name(struct warp *w, struct slow *S)                                     \
    {                                                                                          \
        const struct ir_insn *const in = S->in;                                                \
        const struct ir_opnd *const O = S->O;                                                  \
        const uint32_t M = S->M, active = S->active;                                           \
        const uint64_t limit = S->limit;                                                       \
        uint32_t pc = S->pc, seg = S->seg;                                                     \
        uint64_t ninsn = S->ninsn, nthread = S->nthread;                                       \
        int r_;                                                                                \
        (void)w, (void)in, (void)O, (void)M, (void)active, (void)limit;                        \
        {                                                                                      \
            __VA_ARGS__;                                                                       \
        }                                                                                      \
        VM_NEXT;                                                                               \
        SLOW_LABEL(fetch, SLOW_FETCH)                                                          \
        SLOW_LABEL(reload, SLOW_RELOAD)                                                        \
        SLOW_LABEL(out, SLOW_OUT)                                                              \
        SLOW_LABEL(fault, SLOW_FAULT)                                                          \
    save_:                                                                                     \
        S->pc = pc;                                                                            \
        S->seg = seg;                                                                          \
        S->ninsn = ninsn;                                                                      \
        S->nthread = nthread;                                                                  \
        return r_;                                                                             \
    }
#define HMODE HMODE_BODY
#include "interp/ops/families.inc"
#undef HMODE
#undef H

/* HND_NONE: an instruction without a handler is refused at load; never dispatched. */
static int slow_NONE(struct warp *w, struct slow *S)
{
    interp_fault(w, S->pc, 0, TRAP_ILLEGAL, 0, 0, 0, false, "instruction has no handler");
    return SLOW_FAULT;
}

static const slow_handler slow_table[HND__COUNT] = {
    slow_NONE,
#define H(name, cond, ...) slow_##name,
#define HMODE HMODE_ENUM
#include "interp/ops/families.inc"
#undef HMODE
#undef H
};

#ifndef EXEC_SLOW_V3 /* one copy: the portable build of the handlers serves both fast loops */
/* A cold handler for a fast loop (exec_loop.h, interp/ops/cold.h): no step report, no checks,
 * no tracing, so its memory reports (if any) go nowhere, as in the inline loop. */
int exec_cold_run(struct warp *w, struct exec_cold *c)
{
    if (__builtin_expect(w->bor_mo != NULL, 0)) {
        const struct ir_opnd *mo = w->bor_mo;
        w->bor_mo = NULL;
        return exec_borrow_run(w, c, mo, w->bor_need);
    }
    struct slow S = {.in = c->in, .O = c->O, .pc = c->pc, .active = c->active, .rpc = c->rpc,
                     .seg = c->seg, .M = c->M, .ninsn = c->ninsn, .nthread = c->nthread,
                     .limit = c->limit};
    const int how = slow_table[c->in->handler](w, &S);
    c->pc = S.pc;
    c->seg = S.seg;
    c->ninsn = S.ninsn;
    c->nthread = S.nthread;
    return how;
}

/* See exec_loop.h. */
int exec_borrow_run(struct warp *w, struct exec_cold *c, const struct ir_opnd *mo, uint32_t need)
{
    const uint32_t pc = c->pc, M = c->M;
    uint32_t b = 0, nb = 0;
    const bool ok = its_collective_borrow(w, pc, M, need, c->in, &b);
    for (unsigned l = 0; l < 32; l++)
        if (b >> l & 1)
            nb |= (uint32_t)vm_get(w, mo, l);
    if (!ok || (nb & ~(M | b) & w->valid & ~w->exited) != 0) {
        its_collective_unborrow(w);
        interp_fault(w, pc, (unsigned)__builtin_ctz(M), TRAP_ILLEGAL, need, 0, 0, false,
                     "not supported: lanes named by the member mask reach this collective "
                     "through another call of the function and cannot all take part "
                     "(independent thread scheduling)");
        return EXEC_COLD_FAULT;
    }
    c->M = M | b;
    const int how = exec_cold_run(w, c);
    its_collective_return(w, pc);
    return how;
}
#endif

/* ------------------------------------------------------------------ checking hook */

/* Before warp instruction `in` at pc runs for lanes M (those of the active lanes A whose guard
 * holds) in the checking loop: count the step (racecheck tells one warp instruction's lanes
 * apart from later ones), synccheck barriers, warp collectives' member masks and mbarriers, let
 * bar.warp.sync order the warp's shared accesses, initcheck its registers. */
static void check_pre(struct warp *w, uint32_t pc, const struct ir_insn *in, uint32_t A,
                      uint32_t M, unsigned check)
{
    const struct ir_opnd *O = w->fn->opnds + in->opnd;
    check_step(w);
    if (check & CHECK_SYNCCHECK) {
        if ((in->op == OP_BAR || in->op == OP_BARRIER) && M) {
            const unsigned ci = in->mode == MODE_RED ? 2 : 1; /* the count operand */
            const uint32_t cnt = in->nopnd > ci + (in->mode == MODE_RED)
                                     ? (uint32_t)vm_get(w, &O[ci], (unsigned)__builtin_ctz(M))
                                     : 0;
            /* (lanes of a path that arrived already and waits, or was released and steps
             * past the barrier now, its.c, do not arrive again) */
            if (!(w->bw && (M & (w->bw->wait | w->bw->done))))
                check_bar_arrival(w, pc, M, cnt, in->mode != MODE_ARRIVE);
            if (in->mode != MODE_ARRIVE && (in->op == OP_BAR || (in->fl & IR_FL(FL_ALIGNED))))
                check_barrier(w, pc, M, w->valid & ~w->exited, cnt);
        } else if (in->op == OP_BARRIER_CLUSTER && (in->fl & IR_FL(FL_ALIGNED)) && M) {
            check_cluster_barrier(w, pc, M, w->valid & ~w->exited);
        } else if (in->nopnd >= 1 &&
                   (in->op == OP_BAR_WARP_SYNC ||
                    ((in->op == OP_SHFL || in->op == OP_VOTE || in->op == OP_MATCH ||
                      in->op == OP_REDUX || in->op == OP_ELECT) &&
                     (in->fl & IR_FL(FL_SYNC))))) {
            const struct ir_opnd *mo = in->op == OP_BAR_WARP_SYNC ? &O[0] : &O[in->nopnd - 1];
            uint32_t members[32] = {0};
            for (unsigned l = 0; l < 32; l++)
                if (M >> l & 1)
                    members[l] = (uint32_t)vm_get(w, mo, l);
            /* sm_70+: bar.warp.sync and the .sync collectives wait for the named live lanes
             * (its.c); only lanes that exited or do not exist can never arrive (lanes that
             * never come are a deadlock the engine reports) */
            const uint32_t live = w->its ? w->valid & ~w->exited : 0;
            check_warp_sync(w, pc, M | live, members);
        } else {
            check_mbarrier(w, pc, in, M); /* nothing for other instructions */
        }
    }
    if (in->op == OP_BAR_WARP_SYNC)
        check_syncwarp(w);
    /* (a function with no register it may read before writing has nothing to check; calls
     * are seen so that the callee's frame starts fresh) */
    if ((check & CHECK_INITCHECK) && (w->fn->nzero || in->op == OP_CALL))
        check_regs(w, pc, A, M);
    if ((check & CHECK_INITCHECK) && (in->op == OP_CALL || in->op == OP_ALLOCA) && M)
        check_local_fresh(w, M); /* reused stack bytes start unwritten */
    if ((check & CHECK_RACECHECK) && (in->op == OP_MEMBAR || in->op == OP_FENCE ||
                                      in->op == OP_BAR || in->op == OP_BARRIER))
        check_order(w, in);
}

/* ------------------------------------------------------------------ the loop */

/*
 * Run warp w: about one quantum of warp instructions with tracing (rep == NULL), or exactly one
 * warp instruction described in *rep (stepping; pending reconvergence is applied before and
 * after it).
 */
static enum warp_state slow_loop(struct warp *w, struct engine_step_report *rep)
{
    struct engine_access cbuf[ENGINE_MAX_ACCESS];
    struct slow S = {.limit = rep ? UINT64_MAX : w->cta->L->quantum, .rep = rep, .cacc = cbuf,
                     .check = rep ? 0 : w->cta->L->check,
                     .trace_mem = !rep && (w->cta->L->cfg->trace & TRACE_MEM)};
    S.crec = S.check && !S.trace_mem;
    const unsigned trace = rep ? 0 : w->cta->L->cfg->trace;
    bool stepped = false;

reload:
    if (w->state != WS_RUN || w->depth == 0)
        goto out;
    {
        const struct simt_entry *top = &w->stk[w->depth - 1];
        S.pc = top->pc;
        S.active = top->mask;
        S.rpc = top->rpc;
    }
    S.seg = S.pc;
    if (__builtin_expect(S.pc > w->fn->ninsns, 0)) {
        interp_fault(w, w->fn->ninsns, 0, TRAP_ILLEGAL, S.pc, 0, 0, false, "jump out of function");
        w->state = WS_TRAP;
        goto out;
    }
    if (S.ninsn >= S.limit)
        goto out;

fetch:
    if (S.pc == S.rpc || stepped) {
        S.ninsn += S.pc - S.seg;
        S.nthread += (uint64_t)(S.pc - S.seg) * (uint64_t)exec_popc(S.active);
        S.seg = S.pc;
        w->stk[w->depth - 1].pc = S.pc;
        if (S.pc != S.rpc)
            goto out; /* stepping: the one instruction ran */
        warp_reconverge(w);
        goto reload;
    }
    const struct ir_insn *in = w->fn->insns + S.pc;
    const uint32_t M = S.active & (w->pred[in->guard] ^ (0u - (uint32_t)in->guard_neg));
    if (trace & TRACE_INSN)
        trace_insn(w, S.pc, M);
    if (rep) {
        const struct ir_func *f = w->fn->f;
        stepped = true;
        rep->func = f;
        rep->pc = S.pc;
        rep->insn = S.pc < f->ninsns ? &f->insns[S.pc] : NULL;
        rep->active_before = S.active;
        rep->exec_mask = M;
    }
    if (M == 0) {
        /* initcheck: a guard that held in no lane was still read by every active one */
        if ((S.check & CHECK_INITCHECK) && w->fn->nzero)
            check_regs(w, S.pc, S.active, 0);
        S.pc++;
        goto fetch;
    }
    if (S.check) {
        check_pre(w, S.pc, in, S.active, M, S.check);
        S.cspace = insn_space(in);
    }
    S.in = in;
    S.O = w->fn->opnds + in->opnd;
    S.M = M;
    S.cpc = S.pc;
    const bool glocked = (S.check & CHECK_RACECHECK) && check_grace_enter(w, in);
    const int how = slow_table[in->handler](w, &S);
    if (S.ncacc) {
        if (how != SLOW_FAULT) /* a faulting instruction's accesses are memcheck's */
            check_flush(w, &S);
        S.ncacc = 0;
    }
    if (glocked)
        check_grace_leave(w);
    switch (how) {
    case SLOW_FETCH:
        if (trace & TRACE_REGS)
            trace_regs(w, in, M);
        goto fetch;
    case SLOW_RELOAD: goto reload;
    case SLOW_OUT: goto out;
    default: break;
    }
    /* fault */
    S.ninsn += S.pc + 1 - S.seg;
    S.nthread += (uint64_t)(S.pc + 1 - S.seg) * (uint64_t)exec_popc(S.active);
    w->state = WS_TRAP;
    w->ninsn += S.ninsn;
    w->nthread += S.nthread;
    return WS_TRAP;

out:
    w->ninsn += S.ninsn;
    w->nthread += S.nthread;
    if (w->state == WS_RUN && w->depth == 0)
        w->state = WS_DONE;
    return w->state;
}

enum warp_state exec_warp_trace_v3(struct warp *w);

#ifdef EXEC_SLOW_V3
/* exec_warp_trace on an x86-64-v3 host (exec_slow_v3.c). */
enum warp_state exec_warp_trace_v3(struct warp *w)
{
    return slow_loop(w, NULL);
}
#else
/* Run warp w for about one quantum with per-instruction tracing (--trace) and/or the
 * sanitizer's checks (launch_state.check). */
enum warp_state exec_warp_trace(struct warp *w)
{
#if EXEC_SLOW_HAVE_V3
    if (w->cta->L->exec_isa == EXEC_ISA_V3)
        return exec_warp_trace_v3(w);
#endif
    return slow_loop(w, NULL);
}

/* Execute one warp instruction of w, recording its memory accesses and PC/masks in *rep
 * (engine.c fills in the rest). */
enum warp_state exec_warp_step(struct warp *w, struct engine_step_report *rep)
{
    return slow_loop(w, rep);
}
#endif
