/*
 * interp/exec.c — the dispatch loop, and nothing else.
 *
 * One dispatch per warp instruction: fetch, guard mask M = active & (pred ^ neg), skip when
 * M == 0, jump to the handler (computed goto on GCC/Clang, `switch` with -DPTXEMU_VM_SWITCH).
 * Handler bodies come from interp/ops/FAMILY.inc (families.inc). The loop carries no tracing or
 * statistics branches per instruction: warp and thread instruction counts are added per
 * straight-line segment when control leaves it (a jump, a reconvergence, a call), and the
 * quantum is checked there too. The traced variant is the same loop compiled a second time
 * with EXEC_TRACE=1 (this file includes itself).
 */
#ifndef EXEC_PASS

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "frontend/frontend.h"
#include "interp/fpu.h"
#include "interp/internal.h"
#include "interp/ops/helpers.h"

/* x86-64 with GCC or Clang: a second fast loop compiled for x86-64-v3 (see below). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) &&                        \
    !defined(PTXEMU_NO_ISA_VARIANTS)
#define EXEC_HAVE_V3 1
#else
#define EXEC_HAVE_V3 0
#endif

/* ------------------------------------------------------------------ dispatch macros */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(PTXEMU_VM_SWITCH)
#define VM_COMPUTED_GOTO 1
#define VM_DISPATCH(h) goto *vm_labels[(h)];
#define VM_CASE(h) L_##h:
#define VM_END
#else
#define VM_COMPUTED_GOTO 0
#define VM_DISPATCH(h) switch (h)
#define VM_CASE(h) case h:
#endif

/* Next instruction in sequence / after a control handler changed the warp's state. */
#define VM_NEXT                                                                                \
    do {                                                                                       \
        pc++;                                                                                  \
        goto fetch;                                                                            \
    } while (0)
#define VM_JUMP goto reload

/* Close the current straight-line segment (it ends with the instruction at pc). */
#define VM_ACCOUNT()                                                                           \
    do {                                                                                       \
        uint64_t k_ = (uint64_t)(pc + 1 - seg);                                                \
        ninsn += k_;                                                                           \
        nthread += k_ * (uint64_t)exec_popc(active);                                  \
        seg = pc + 1;                                                                          \
    } while (0)
/* Publish pc to the SIMT stack before calling into warp.c. */
#define VM_SYNC() (w->stk[w->depth - 1].pc = pc)

/* Leave the loop with a fault at the current instruction. */
#define FAULT(lane, kind, addr, width, space, wr, msg)                                        \
    do {                                                                                       \
        interp_fault(w, pc, (lane), (kind), (addr), (width), (space), (wr), (msg));            \
        goto fault;                                                                            \
    } while (0)

/* Trace hooks used by memory handlers (no-ops in the fast loop). */
#define TRACE_MEM_ACCESS(l, addr, width, wr, valp)

/* Population count without a libgcc call (the default x86-64 target has no popcnt). */
static inline unsigned exec_popc(uint32_t x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0fu;
    return (x * 0x01010101u) >> 24;
}

static uint64_t exec_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

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

/* The loop, instantiated two or three times: the portable fast loop, the fast loop for
 * x86-64-v3 hosts (AVX2 + FMA: the lane loops vectorize 8 wide and fma.rn.f32 is the host's
 * fused multiply-add, bit-identical to the portable correctly rounded fpu_fmaf_rn), and the
 * traced loop. EXEC_ATTR is the function attribute of an instantiation, EXEC_HWFMA says that
 * the host fma instruction may be used. */
#define EXEC_PASS 1
#define EXEC_TRACE 0
#define EXEC_HWFMA 0
#define EXEC_ATTR
#define EXEC_FN exec_loop_fast
#include "interp/exec.c"
#undef EXEC_FN
#undef EXEC_ATTR
#undef EXEC_HWFMA
#if EXEC_HAVE_V3
#define EXEC_HWFMA 1
#define EXEC_ATTR __attribute__((target("avx2,fma,bmi,bmi2,popcnt")))
#define EXEC_FN exec_loop_fast_v3
#include "interp/exec.c"
#undef EXEC_FN
#undef EXEC_ATTR
#undef EXEC_HWFMA
#endif
#undef EXEC_TRACE
#define EXEC_HWFMA 0
#define EXEC_ATTR
#undef TRACE_MEM_ACCESS
#define TRACE_MEM_ACCESS(l, addr, width, wr, valp)                                             \
    do {                                                                                       \
        if (w->cta->L->cfg->trace & TRACE_MEM)                                                 \
            trace_mem(w, (l), (addr), (width), (wr), (valp));                                  \
    } while (0)
#define EXEC_TRACE 1
#define EXEC_FN exec_loop_trace
#include "interp/exec.c"
#undef EXEC_TRACE
#undef EXEC_FN
#undef EXEC_ATTR
#undef EXEC_HWFMA

/*
 * The fast-loop variant for this host, chosen once per launch (grid.c stores it in
 * launch_state.exec_isa): EXEC_ISA_V3 when the CPU has AVX2 and FMA, else EXEC_ISA_PORTABLE.
 * PTXEMU_EXEC_PORTABLE=1 in the environment forces the portable loop (tests run both).
 */
unsigned exec_select_isa(void)
{
#if EXEC_HAVE_V3
    const char *e = getenv("PTXEMU_EXEC_PORTABLE");
    if (e && *e && strcmp(e, "0") != 0)
        return EXEC_ISA_PORTABLE;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
        __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") &&
        __builtin_cpu_supports("popcnt"))
        return EXEC_ISA_V3;
#endif
    return EXEC_ISA_PORTABLE;
}

/*
 * Run warp w until it parks at a barrier, finishes, faults, or has run about one quantum of
 * warp instructions. The fast loop: no tracing branches.
 */
enum warp_state exec_warp(struct warp *w)
{
#if EXEC_HAVE_V3
    if (w->cta->L->exec_isa == EXEC_ISA_V3)
        return exec_loop_fast_v3(w);
#endif
    return exec_loop_fast(w);
}

/* The same with per-instruction tracing (--trace): a separate instantiation of the loop. */
enum warp_state exec_warp_trace(struct warp *w)
{
    return exec_loop_trace(w);
}

#else /* EXEC_PASS: the loop body */

static EXEC_ATTR enum warp_state EXEC_FN(struct warp *w)
{
#if VM_COMPUTED_GOTO
    static const void *const vm_labels[HND__COUNT] = {
        &&L_HND_NONE,
#define H(name, cond, ...) &&L_HND_##name,
#define HMODE HMODE_ENUM
#include "interp/ops/families.inc"
#undef HMODE
#undef H
    };
#endif
    const uint64_t limit = w->cta->L->quantum;
    uint64_t ninsn = 0, nthread = 0;
    const struct ir_insn *insns;
    const struct ir_opnd *opnds;
    const struct ir_insn *in;
    const struct ir_opnd *O;
    uint32_t pc, active, rpc, seg, M;

reload:
    if (w->state != WS_RUN || w->depth == 0)
        goto out;
    {
        const struct simt_entry *top = &w->stk[w->depth - 1];
        pc = top->pc;
        active = top->mask;
        rpc = top->rpc;
    }
    insns = w->fn->insns;
    opnds = w->fn->opnds;
    seg = pc;
    if (__builtin_expect(pc > w->fn->ninsns, 0)) {
        interp_fault(w, w->fn->ninsns, 0, TRAP_ILLEGAL, pc, 0, 0, false, "jump out of function");
        w->state = WS_TRAP;
        goto out;
    }
    if (ninsn >= limit)
        goto out;

fetch:
    if (__builtin_expect(pc == rpc, 0)) {
        /* reached the reconvergence point of the top entry */
        ninsn += pc - seg;
        nthread += (uint64_t)(pc - seg) * (uint64_t)exec_popc(active);
        seg = pc;
        VM_SYNC();
        warp_reconverge(w);
        goto reload;
    }
    in = insns + pc;
    M = active & (w->pred[in->guard] ^ (0u - (uint32_t)in->guard_neg));
#if EXEC_TRACE
    if (w->cta->L->cfg->trace & TRACE_INSN)
        trace_insn(w, pc, M);
#endif
    if (M == 0) {
        pc++;
        goto fetch;
    }
    O = opnds + in->opnd;
#if EXEC_TRACE
    if (w->cta->L->cfg->trace & TRACE_REGS) {
        /* run the body through a one-instruction detour so values are printed after it */
        goto dispatch;
    traced_next:
        trace_regs(w, in, M);
        pc++;
        goto fetch;
    }
dispatch:
#endif
    VM_DISPATCH(in->handler)
    {
        VM_CASE(HND_NONE)
        {
            FAULT(0, TRAP_ILLEGAL, 0, 0, 0, false, "instruction has no handler");
        }
#define H(name, cond, ...)                                                                     \
    VM_CASE(HND_##name)                                                                        \
    {                                                                                          \
        __VA_ARGS__;                                                                           \
    }                                                                                          \
    VM_NEXT_AFTER_BODY;
#define HMODE HMODE_BODY
#if EXEC_TRACE
#define VM_NEXT_AFTER_BODY                                                                     \
    do {                                                                                       \
        if (w->cta->L->cfg->trace & TRACE_REGS)                                                \
            goto traced_next;                                                                  \
        VM_NEXT;                                                                               \
    } while (0)
#else
#define VM_NEXT_AFTER_BODY VM_NEXT
#endif
#include "interp/ops/families.inc"
#undef VM_NEXT_AFTER_BODY
#undef HMODE
#undef H
#if !VM_COMPUTED_GOTO
    default:
        FAULT(0, TRAP_ILLEGAL, 0, 0, 0, false, "bad handler id");
#endif
    }

fault:
    ninsn += pc + 1 - seg;
    nthread += (uint64_t)(pc + 1 - seg) * (uint64_t)exec_popc(active);
    w->state = WS_TRAP;
    w->ninsn += ninsn;
    w->nthread += nthread;
    return WS_TRAP;

out:
    if (w->state == WS_RUN && w->depth > 0)
        w->stk[w->depth - 1].pc = w->stk[w->depth - 1].pc; /* already synced */
    w->ninsn += ninsn;
    w->nthread += nthread;
    if (w->state == WS_RUN && w->depth == 0)
        w->state = WS_DONE;
    return w->state;
}

#endif /* EXEC_PASS */
