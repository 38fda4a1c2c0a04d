/*
 * interp/exec_loop.h — what every instantiation of the dispatch loop shares: dispatch macros,
 * the clock, and (when EXEC_FN is defined) the inline loop itself.
 *
 * The fast loop is one function holding every handler body of interp/ops/FAMILY.inc, so the
 * compiler sees a warp's straight-line code as one piece. It is instantiated by exec.c (the
 * portable loop; computed goto, or `switch` with -DPTXEMU_VM_SWITCH) and exec_v3.c (the same
 * compiled for x86-64-v3 hosts) — one translation unit each, so they compile in parallel. The
 * slow loops (tracing, single-step for timing models) are exec_slow.c: handlers out of line.
 *
 * One dispatch per warp instruction: fetch, guard mask M = active & (pred ^ neg), skip when
 * M == 0, jump to the handler. The loop carries no tracing or statistics branches per
 * instruction: warp and thread instruction counts are added per straight-line segment when
 * control leaves it (a jump, a reconvergence, a call), and the quantum is checked there too.
 *
 * The handlers interp/ops/cold.h lists are not inline: their cases jump to one call of
 * exec_slow.c's copy of the body (exec_cold_run), which keeps the function small enough to
 * compile in well under a minute.
 *
 * An includer that wants the loop defines, before including:
 *   EXEC_FN     the function's name (external: declared in internal.h)
 *   EXEC_ATTR   function attributes (target ISA), may be empty
 *   EXEC_HWFMA  1 if fma.rn.f32 may use the host's fused multiply-add
 */
#ifndef PTXEMU_EXEC_LOOP_H
#define PTXEMU_EXEC_LOOP_H

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "frontend/frontend.h"
#include "interp/engine.h"
#include "interp/fpu.h"
#include "interp/internal.h"
#include "interp/ops/cold.h"
#include "interp/ops/helpers.h"
#include "interp/tensor.h"

/* x86-64 with GCC or Clang: a second fast loop compiled for x86-64-v3 (exec_v3.c). */
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
        nthread += k_ * (uint64_t)exec_popc(active);                                           \
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

/* Memory handlers report each lane's access here: a no-op in the fast loops (exec_slow.c
 * records them for tracing and for step reports). */
#ifndef TRACE_MEM_ACCESS
#define TRACE_MEM_ACCESS(l, addr, width, wr, valp)
#endif

/* Matrix and asynchronous instructions (interp/tensor.h) report their accesses here: nothing
 * to report in the fast loops (exec_slow.c defines a recorder). */
#ifndef TC_MEM_REPORT
#define TC_MEM_REPORT NULL
#endif

/* Texture and surface instructions report the texels / elements they touched here: nothing in
 * the fast loops (exec_slow.c records them into a step report). */
#ifndef TEX_MEM_REPORT
#define TEX_MEM_REPORT NULL
#endif

/* Population count without a libgcc call (the default x86-64 target has no popcnt). */
static inline unsigned exec_popc(uint32_t x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0fu;
    return (x * 0x01010101u) >> 24;
}

/* %clock* (cycles != 0) or %globaltimer* as warp w reads it: through the launch's clock hook
 * (timing mode: simulated cycles / nanoseconds), else host monotonic nanoseconds (%clock
 * counted from the CTA's start). */
static inline uint64_t exec_clock(const struct warp *w, int cycles)
{
    const struct launch_state *L = w->cta->L;
    if (L->clock_fn)
        return L->clock_fn(L->clock_ctx, cycles ? ENGINE_CLOCK_CYCLES : ENGINE_CLOCK_NS,
                           w->cta->linear, w->id);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return cycles ? ns - w->cta->clock0 : ns;
}

/* A cold handler (interp/ops/cold.h) run out of line for a fast loop: the loop state its body
 * reads, and the part it changes (pc, seg, ninsn, nthread) handed back. */
struct exec_cold {
    const struct ir_insn *in;
    const struct ir_opnd *O;
    uint32_t pc, active, rpc, seg, M;
    uint64_t ninsn, nthread, limit;
};
/* Where the loop goes on after exec_cold_run. */
enum { EXEC_COLD_FETCH, EXEC_COLD_RELOAD, EXEC_COLD_OUT, EXEC_COLD_FAULT };
/* exec_slow.c: run the handler of c->in (in->handler) for warp w with the fast loop's state *c,
 * as the inline body would: no tracing, no checks, no step report. */
int exec_cold_run(struct warp *w, struct exec_cold *c);
/* exec_slow.c: run the .sync collective c->in once for its lanes c->M and the lanes of other
 * activations of the function that its member masks (operand mo) name, `need`, borrowing their
 * registers (its.c its_collective_borrow); a fault naming the collective when they cannot all
 * take part. Returns where the loop goes on, as exec_cold_run. */
int exec_borrow_run(struct warp *w, struct exec_cold *c, const struct ir_opnd *mo, uint32_t need);

/* EXEC_IS_COLD(NAME): 1 if interp/ops/cold.h lists HND_NAME, else 0 (a listed name expands to
 * "~, 1", shifting the 1 into the picked position). */
#define EXEC_COLD_PICK_(x, n, ...) n
#define EXEC_COLD_PICK(...) EXEC_COLD_PICK_(__VA_ARGS__, 0, ~)
#define EXEC_IS_COLD(name) EXEC_COLD_PICK(EXEC_COLD_##name)
/* A fast-loop case's code: the body inline (0) or a jump to the out-of-line call (1). */
#define EXEC_CASE_BODY(cold, ...) EXEC_CASE_BODY_(cold, __VA_ARGS__)
#define EXEC_CASE_BODY_(cold, ...) EXEC_CASE_BODY_##cold(__VA_ARGS__)
#define EXEC_CASE_BODY_0(...)                                                                  \
    {                                                                                          \
        __VA_ARGS__;                                                                           \
    }
#define EXEC_CASE_BODY_1(...) goto cold_handler;

#endif /* PTXEMU_EXEC_LOOP_H */

/* ====================================================================== the inline loop */
#ifdef EXEC_FN

EXEC_ATTR enum warp_state EXEC_FN(struct warp *w)
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
/* A .sync collective's named lanes `need` (member mask operand mo) wait in other activations:
 * run it out of line through the cold-handler exit (exec_cold_run sees w->bor_mo and calls
 * exec_borrow_run), so the loop's hot path carries no code of its own for it. */
#define ITS_BORROW(need, mo)                                                                   \
    do {                                                                                       \
        w->bor_need = (need);                                                                  \
        w->bor_mo = (mo);                                                                      \
        goto cold_handler;                                                                     \
    } while (0)

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
    if (M == 0) {
        pc++;
        goto fetch;
    }
    O = opnds + in->opnd;
    VM_DISPATCH(in->handler)
    {
        VM_CASE(HND_NONE)
        {
            FAULT(0, TRAP_ILLEGAL, 0, 0, 0, false, "instruction has no handler");
        }
#define H(name, cond, ...)                                                                     \
    VM_CASE(HND_##name)                                                                        \
    EXEC_CASE_BODY(EXEC_IS_COLD(name), __VA_ARGS__)                                            \
    VM_NEXT;
#define HMODE HMODE_BODY
#include "interp/ops/families.inc"
#undef HMODE
#undef H
#if !VM_COMPUTED_GOTO
    default:
        FAULT(0, TRAP_ILLEGAL, 0, 0, 0, false, "bad handler id");
#endif
    }

    /* the cold handlers (interp/ops/cold.h): the same body, out of line in exec_slow.c */
cold_handler: {
    struct exec_cold c = {in, O, pc, active, rpc, seg, M, ninsn, nthread, limit};
    const int how = exec_cold_run(w, &c);
    pc = c.pc;
    seg = c.seg;
    ninsn = c.ninsn;
    nthread = c.nthread;
    if (how == EXEC_COLD_FETCH)
        goto fetch;
    if (how == EXEC_COLD_RELOAD)
        goto reload;
    if (how == EXEC_COLD_OUT)
        goto out;
}

fault:
    ninsn += pc + 1 - seg;
    nthread += (uint64_t)(pc + 1 - seg) * (uint64_t)exec_popc(active);
    w->state = WS_TRAP;
    w->ninsn += ninsn;
    w->nthread += nthread;
    return WS_TRAP;

out:
    w->ninsn += ninsn;
    w->nthread += nthread;
    if (w->state == WS_RUN && w->depth == 0)
        w->state = WS_DONE;
    return w->state;
}

#endif /* EXEC_FN */
