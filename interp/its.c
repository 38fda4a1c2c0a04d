/*
 * interp/its.c — independent thread scheduling (Volta and later: targets >= sm_70).
 *
 * The warp still runs one path at a time from its SIMT stack (warp.c), but a path that makes
 * no progress gives way to the others, so an intra-warp spin lock, a producer/consumer pair
 * of lanes or a divergent mutex completes as it does on a GPU:
 *
 *  - Trigger: at the end of each quantum (cta.c; every quantum of single steps in engine.c)
 *    its_quantum compares the top SIMT entry (depth, mask, reconvergence pc; in a call, the
 *    kernel's entry that made the outermost call) with the one at the end of the previous
 *    quantum. A whole quantum with the same entry (a loop that neither diverged nor
 *    reconverged) makes the path yield; when the activation running then has no other path
 *    (a spin loop that calls a function, as nvcc -G's atomics), when a call returns (warp_ret). The
 *    trigger counts warp instructions only, so --deterministic runs stay repeatable.
 *  - Yield (its_yield): among the entries of the current activation, the top entry's siblings
 *    (entries with the same reconvergence pc) and the lanes already waiting at that pc in the
 *    parent entry are the other paths. When lanes wait in the parent, they are detached: the
 *    parent becomes a sibling path of its own (its lanes continue past the reconvergence pc),
 *    every sibling now reconverges where the parent did, and the yielding entry goes to the
 *    bottom of the group. Otherwise the siblings rotate (top to bottom). A top entry with no
 *    sibling and an empty parent replaces the parent and the search goes one level out.
 *  - bar.warp.sync (its_warp_sync, from ops/warp.inc when lanes named by the mask are not
 *    executing): the executing lanes wait at the instruction (their entry yields) until every
 *    named live lane stands at it; then sibling entries waiting there merge into the
 *    executing entry (the lanes reconverge) and other waiting entries step past it. An
 *    aligned CTA barrier (bar.sync, barrier.sync.aligned: __syncthreads) is per thread too:
 *    the warp arrives once all its live lanes stand at it (a lane spinning on another CTA
 *    before __syncthreads is waited for); a bar.red then reduces the predicates of all of
 *    them (each path's lanes kept theirs in the register while they waited). Paths waiting
 *    at the same barrier that are siblings (one reconvergence pc) leave it as one path: a
 *    GPU reconverges them before the barrier (cooperative groups' grid.sync() spins in lane
 *    0 only, and __activemask() after it must name the whole warp).
 *  - .sync collectives (shfl, vote, match, redux, elect; its_collective_sync, from
 *    ops/warp.inc): wait as bar.warp.sync does for the live lanes their member masks name;
 *    once all stand there the sibling paths merge and the instruction runs once for them all.
 *    Named lanes that stand there in suspended activations of the same function (nvcc -G
 *    calls __shfl_sync through a .func, so each path reaches it in a call of its own) take
 *    part through their registers: they are copied into the current frame's lanes (a lane is
 *    in one activation only, so those are unused), the instruction runs once for all, and
 *    their registers go back to their own frames, where they step past it
 *    (its_collective_borrow / _return).
 *  - A non-aligned CTA barrier (barrier.sync / barrier.red without .aligned, which the
 *    threads of a warp may reach at different instructions: cooperative groups'
 *    thread_block::sync, __barrier_sync_count) is per path (its_bar_path): the path's
 *    threads arrive (the barrier counts threads, cta.c) and wait in their entry, still at the
 *    instruction (struct its_bw), while the warp's other paths run; when no path can run the
 *    warp parks (CTA_BAR_PATHS) until a release, which marks every waiting lane of every
 *    warp released: each path steps past its instruction (with its bar.red result) when it
 *    runs next. A warp whose paths all wait is no deadlock while the barrier can complete.
 *    Arrivals count threads, as on the stack-based targets: a thread count reached by parts
 *    of warps completes the barrier (the PTX ISA has each thread also wait for the other
 *    non-exited threads of its warp; where part of a warp never arrives, a GPU may hang).
 *  - Calls: entries below the current call's base belong to the caller's frame, and a quantum
 *    yield switches paths within one activation. A path waiting at bar.warp.sync or a barrier
 *    inside a called function (nvcc -G calls __syncwarp through a .func) for lanes of its
 *    callers' other paths suspends the activations it called into (warp_suspend, warp.c):
 *    they are set aside with their frames, the calling entry is marked, and paths of the
 *    caller run; lanes of a suspended activation standing at the same instruction of the
 *    same function count as arrived (they step past it when all are there), and the
 *    activations are resumed when the calling entry is on top again (warp.c settle). When
 *    every lane has come to such a barrier (a non-aligned one releases them, an aligned one
 *    or bar.warp.sync lets them through), a suspended activation standing at it that made
 *    the same call from a sibling path of the same calling activation joins the current one
 *    (its_join): its lanes' registers and parameters are copied into the current frame, its
 *    lanes join the top entry, the call record and the calling entry, and its own calling
 *    entry goes, so the lanes return as one path (nvcc -G's grid.sync(), whose lane 0 spins
 *    before the barrier call: __activemask() after it names the whole warp again).
 *
 * Warps that never diverge pay one comparison per quantum.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/internal.h"

/* Quantum ends in a row that found the same top SIMT entry as the one before, before the
 * path yields (1: it ran a whole quantum without diverging or reconverging). */
#define ITS_STALL 1u

/* First SIMT index of the current activation. */
static uint32_t its_base(const struct warp *w)
{
    return w->ncalls ? w->calls[w->ncalls - 1].base : 0;
}

/*
 * Let another path of warp w run (see the file comment). Returns false when the current
 * activation has no other path. Called with the top entry's pc published.
 */
bool its_yield(struct warp *w)
{
    const uint32_t b = its_base(w);
    struct simt_entry *s = w->stk;
    while (w->depth >= b + 2) {
        uint32_t t = w->depth - 1;
        const uint32_t R = s[t].rpc;
        uint32_t g = t;
        while (g > b && s[g - 1].rpc == R)
            g--;
        /* drop finished siblings (at R, their lanes wait in the parent) and empty ones */
        uint32_t k = g;
        for (uint32_t i = g; i < t; i++)
            if (s[i].mask != 0 && (s[i].pc != R || s[i].susp))
                s[k++] = s[i];
        s[k] = s[t];
        w->depth = k + 1;
        t = k;
        const bool parent = g > b && s[g - 1].pc == R && !s[g - 1].susp;
        uint32_t U = 0;
        for (uint32_t i = g; i <= t; i++)
            U |= s[i].mask;
        if (parent && (s[g - 1].mask & ~U) != 0) {
            /* detach the lanes waiting in the parent: [top, siblings…, parent's lanes] */
            const uint32_t p = g - 1, O = s[p].rpc;
            const struct simt_entry top = s[t];
            const struct simt_entry pn = {R, O, s[p].mask & ~U, 0};
            memmove(&s[p + 1], &s[g], (size_t)(t - g) * sizeof *s);
            s[p] = top;
            s[t] = pn;
            for (uint32_t i = p; i < t; i++)
                s[i].rpc = O;
            warp_reconverge(w);
            return true;
        }
        if (g < t) {
            /* rotate the siblings: the top entry goes to the bottom of its group */
            const struct simt_entry top = s[t];
            memmove(&s[g + 1], &s[g], (size_t)(t - g) * sizeof *s);
            s[g] = top;
            warp_reconverge(w);
            return true;
        }
        if (!parent)
            return false;
        /* an only child of a parent with no lanes of its own: take the parent's place */
        s[t].rpc = s[g - 1].rpc;
        s[g - 1] = s[t];
        w->depth--;
    }
    return false;
}

/*
 * End of a quantum of warp w (still running): yield when the signature entry has not changed
 * for ITS_STALL quanta. The signature entry is the top SIMT entry, or while the warp is in a
 * call the entry of the kernel that made the outermost call (its loop spins through calls).
 * Nothing to do for targets before sm_70 or a warp with no divergent path.
 */
void its_quantum(struct warp *w)
{
    w->its_bar_yields = 0;
    if (!w->its || w->state != WS_RUN || w->depth <= w->ncalls + 1) {
        w->its_stall = 0;
        return;
    }
    const uint32_t i = w->ncalls ? w->calls[0].base - 1 : w->depth - 1;
    const struct simt_entry *e = &w->stk[i];
    if (w->its_depth == i + 1 && w->its_mask == e->mask && w->its_rpc == e->rpc) {
        if ((w->its_stall & ~ITS_PENDING) + 1 >= ITS_STALL || (w->its_stall & ITS_PENDING))
            w->its_stall = its_yield(w) ? 0 : ITS_PENDING;
        else
            w->its_stall++;
    } else {
        w->its_stall = 0;
    }
    const uint32_t j = w->ncalls ? w->calls[0].base - 1 : w->depth - 1;
    w->its_depth = w->depth ? j + 1 : 0;
    w->its_mask = w->depth ? w->stk[j].mask : 0;
    w->its_rpc = w->depth ? w->stk[j].rpc : 0;
}

/* Lanes of leaf entries among e[from, to) (no lanes of theirs in an entry above; `seen`: the
 * lanes of entries at and above `to`) whose pc is pc, calling entries of suspended activations
 * left out. */
static uint32_t leaves_at(const struct simt_entry *e, uint32_t from, uint32_t to, uint32_t seen,
                          uint32_t pc)
{
    uint32_t at = 0;
    for (uint32_t i = to; i-- > from;) {
        const uint32_t own = e[i].mask & ~seen;
        if (own == e[i].mask && e[i].pc == pc && !e[i].susp)
            at |= own;
        seen |= e[i].mask;
    }
    return at;
}

/* First entry of the innermost activation of suspended activations P. */
static uint32_t susp_base(const struct its_susp *P)
{
    return P->calls[P->ncall - 1].base;
}

/* Lanes of warp w standing at pc of its current function: the executing lanes M and the
 * top entry's (those a guard left out too), leaves of the current activation at pc, and the
 * leaves at pc of suspended activations in the same function (their innermost activation). */
static uint32_t lanes_at(const struct warp *w, uint32_t pc, uint32_t M)
{
    const uint32_t t = w->depth - 1;
    const struct simt_entry *s = w->stk;
    uint32_t at = M | s[t].mask | leaves_at(s, its_base(w), t, s[t].mask, pc);
    for (uint32_t i = 0; w->susp_used && i < w->nsusp; i++) {
        const struct its_susp *P = &w->susp[i];
        if (P->used && P->fn == w->fn)
            at |= leaves_at(P->ent, susp_base(P), P->nent, 0, pc);
    }
    return at;
}

/* Lanes of `need` that can still arrive: those that did not exit, whatever activation or
 * path they are in. */
static uint32_t need_live(const struct warp *w, uint32_t need)
{
    return need & w->valid & ~w->exited;
}

/* Would the lanes M at pc pass now (see internal.h)? */
bool its_sync_ready(const struct warp *w, uint32_t pc, uint32_t M, uint32_t need)
{
    return (need_live(w, need) & ~lanes_at(w, pc, M)) == 0;
}

/*
 * The top entry of warp w waits for lanes `miss`, `at` (lanes standing where it waits) being
 * there already: let another path run. 0, or -1 when no other path can run now (see
 * its_warp_sync).
 */
static int its_wait(struct warp *w, uint32_t miss, uint32_t at, bool resumed)
{
    /* Every path waiting at a barrier (each at a different one) hands the warp to the next
     * for ever, no instruction but barriers running: far more barrier yields in one quantum
     * than the warp has paths means none can ever arrive (a deadlock, reported by the
     * caller). A path that works between its barrier waits ends the quantum and resets the
     * count (its_quantum). */
    if (++w->its_bar_yields > 4 * (w->depth + 1) + 8)
        return -1;
    const uint32_t b = its_base(w), t = w->depth - 1;
    uint32_t act = 0; /* lanes in this activation's entries */
    for (uint32_t i = b; i <= t; i++)
        act |= w->stk[i].mask;
    /* The missing lanes are all in callers' activations: suspend this one (and those between)
     * and run the innermost caller's activation that holds one (activation k's lanes: those
     * of call k - 1; the kernel's: all). Paths of this activation that do not wait here
     * (lanes the masks do not name) get a turn first after each resume. */
    if (w->ncalls && !(miss & w->calls[w->ncalls - 1].mask) && !(resumed && (act & ~at))) {
        uint32_t k = w->ncalls - 1;
        while (k > 0 && !(miss & w->calls[k - 1].mask))
            k--;
        if (warp_suspend(w, k) != 0)
            return -1;
    }
    return its_yield(w) ? 0 : -1;
}

/* No path of warp w can run now: when lanes of it wait at non-aligned barriers (its_bar_path),
 * park it until one of those releases lanes of it (cta.c wakes it) and return true. */
static bool its_bar_park(struct warp *w)
{
    if (!w->bw || !w->bw->wait)
        return false;
    w->state = WS_PARKED;
    w->bar_id = CTA_BAR_PATHS;
    w->bar_red = 0;
    w->bar_mask = w->bw->wait;
    return true;
}

static uint32_t its_join(struct warp *w, uint32_t pc, uint32_t allow);

/*
 * Merge into the top entry of warp w the leaf entries standing at pc (not calling entries of
 * suspended activations) among its siblings, the entries just below it with its reconvergence
 * pc: those whose lanes all lie in `within` and some in `named` (the lanes reconverge there, as
 * a GPU's convergence barrier before a barrier or collective has them). Returns the lanes
 * merged; *end (if asked) is the index just past the entries below the sibling group, *seen the
 * lanes of the entries from there up.
 */
static uint32_t merge_siblings(struct warp *w, uint32_t pc, uint32_t within, uint32_t named,
                               uint32_t *end, uint32_t *seenp)
{
    struct simt_entry *s = w->stk;
    const uint32_t b = its_base(w), t = w->depth - 1, R = s[t].rpc;
    uint32_t seen = s[t].mask, merged = 0, i = t;
    while (i > b && s[i - 1].rpc == R) {
        i--;
        const uint32_t own = s[i].mask & ~seen;
        seen |= s[i].mask;
        if (own == 0 || own != s[i].mask || s[i].pc != pc || s[i].susp || (own & ~within) != 0 ||
            (own & named) == 0)
            continue;
        s[t].mask |= own;
        s[i].mask = 0;
        merged |= own;
    }
    if (end)
        *end = i;
    if (seenp)
        *seenp = seen;
    return merged;
}


/* A non-aligned CTA barrier reached by a path of the warp (see internal.h). */
int its_bar_path(struct warp *w, uint32_t pc, uint32_t M, unsigned id, unsigned count, int red,
                 uint32_t predv, uint32_t *v)
{
    struct its_bw *B = w->bw;
    if (!B) {
        B = calloc(1, sizeof *B);
        if (!B)
            return -1;
        w->bw = B;
    }
    const uint32_t t = w->depth - 1;
    struct simt_entry *s = w->stk;
    const uint32_t A = s[t].mask, rpc = s[t].rpc;
    s[t].pc = pc;
    /* one kind of lanes at a time (released, waiting, arriving): the others stay in an entry
     * of their own at pc, below, and run the instruction again after these */
    const uint32_t D = M & B->done, W = M & B->wait, F = M & ~(B->done | B->wait);
    const uint32_t X = D ? D : W ? W : F;
    if (X != M) {
        s[t].mask = A & ~X;
        return warp_push(w, pc, rpc, X) != 0 ? -1 : 0;
    }
    if (D || (F && cta_bar_path(w, pc, F, id, count, red, predv))) {
        /* released (now, or while they waited): past the barrier with the result */
        *v = B->val[__builtin_ctz(M)];
        B->done &= ~M;
        /* sibling paths released at this instruction leave it with this one, as one path (a
         * GPU reconverges them before the barrier: __activemask() after cooperative groups'
         * grid.sync(), whose lane 0 spins apart, is the whole warp again) */
        B->done &= ~merge_siblings(w, pc, B->done, ~0u, NULL, NULL);
        /* so do the lanes released here in other calls of the function (nvcc -G) */
        B->done &= ~its_join(w, pc, B->done);
        return 1;
    }
    if (F && A != F) {
        /* lanes the guard left out go on past the barrier, the arrived ones wait below */
        s[t].mask = F;
        if (warp_push(w, pc + 1, rpc, A & ~F) != 0)
            return -1;
        warp_reconverge(w);
        return 0;
    }
    /* wait: another path runs, else the warp parks until a release */
    const uint32_t live = w->valid & ~w->exited;
    const bool resumed = w->its_resumed;
    w->its_resumed = false;
    if ((live & ~B->wait) == 0 || its_wait(w, live & ~B->wait, B->wait, resumed) < 0)
        its_bar_park(w);
    return 0;
}

/*
 * bar.warp.sync (bar false) or an aligned CTA barrier (bar true) at pc executed by lanes M
 * (the top entry) that needs the lanes `need`, which holds live lanes outside M. When every
 * needed live lane waits at pc (in this activation or a suspended one of the same function),
 * all pass it: sibling entries of the top waiting there (same reconvergence pc) merge into it
 * (the lanes reconverge, as a GPU's convergence barrier before the instruction has them), other
 * entries waiting there step past pc; for bar.warp.sync the top steps past pc too (0), for a
 * barrier it stays at pc to arrive for the whole warp (1, the caller goes on with the barrier:
 * after it, __activemask() of those lanes is the whole group again); leaves at pc of
 * suspended activations step past it in both cases. Else the top entry waits at pc and another
 * path runs (0): one of this activation while a missing lane is in it, else (the missing
 * lanes are all in callers' activations) the activations from the call out of the innermost
 * activation holding a missing lane are suspended (warp_suspend) and a path of that one runs
 * (after a resume, paths of this activation not waiting here run first, once).
 * -1 when no other path can ever arrive (nothing to switch to, or every path keeps waiting at
 * a barrier of its own: more than 4 × (paths + 1) + 8 barrier yields in one quantum).
 */
int its_warp_sync(struct warp *w, uint32_t pc, uint32_t M, uint32_t need, bool bar)
{
    uint32_t b = its_base(w), t = w->depth - 1;
    struct simt_entry *s = w->stk;
    need = need_live(w, need);
    const uint32_t at = lanes_at(w, pc, M), miss = need & ~at;
    const bool resumed = w->its_resumed;
    w->its_resumed = false;
    s[t].pc = pc;
    if (miss != 0) {
        const int r = its_wait(w, miss, at, resumed);
        if (r < 0 && its_bar_park(w))
            return 0; /* lanes wait at a non-aligned barrier: until its release */
        return r;
    }
    /* everyone is here: other calls of the function standing here join this one (nvcc -G),
     * siblings of the top merge into it, other waiting leaves step on */
    if (its_join(w, pc, need) != 0) {
        b = its_base(w);
        t = w->depth - 1;
    }
    uint32_t g, seen;
    merge_siblings(w, pc, ~0u, ~0u, &g, &seen);
    for (uint32_t i = g; i-- > b;) {
        const uint32_t own = s[i].mask & ~seen;
        seen |= s[i].mask;
        if (own == s[i].mask && own != 0 && s[i].pc == pc && !s[i].susp)
            s[i].pc = pc + 1;
    }
    for (uint32_t j = 0; w->susp_used && j < w->nsusp; j++) {
        struct its_susp *P = &w->susp[j];
        P->bar_lanes = 0;
        if (!P->used || P->fn != w->fn)
            continue;
        seen = 0;
        for (uint32_t i = P->nent; i-- > susp_base(P);) {
            const uint32_t own = P->ent[i].mask & ~seen;
            seen |= P->ent[i].mask;
            if (own == P->ent[i].mask && own != 0 && P->ent[i].pc == pc && !P->ent[i].susp) {
                P->ent[i].pc = pc + 1;
                if (bar)
                    P->bar_lanes |= own & ~w->exited;
            }
        }
    }
    if (bar)
        return 1;
    s[t].pc = pc + 1;
    warp_reconverge(w);
    return 0;
}

/*
 * A .sync warp collective (see internal.h). PTX: the executing threads wait until every
 * non-exited thread of the member mask has executed the same instruction, so all of them take
 * part in one exchange (a shuffle reduction after a loop whose trip count differs per lane:
 * the lanes that left the loop early wait for the rest instead of reading the registers of
 * lanes still in it). While a named live lane is elsewhere, the top entry waits at pc and
 * another path runs, as at bar.warp.sync. When every one stands at pc, the sibling entries
 * waiting there (one reconvergence pc) merge into the top, which runs the instruction again
 * with all their lanes (0). Lanes at pc in other entries (another reconvergence pc, a
 * suspended activation) cannot merge: in this activation the top goes on with its own lanes
 * (1) and they run the instruction on their own, as before; lanes that stand there only in
 * suspended activations (the function was called by another path, as nvcc -G code calls
 * __shfl_sync) hold their registers in other frames: -2, and the caller (ITS_COLLECTIVE)
 * runs the instruction once with them borrowed (its_collective_borrow).
 */
int its_collective_sync(struct warp *w, uint32_t pc, uint32_t M, uint32_t need)
{
    need = need_live(w, need);
    if ((need & ~lanes_at(w, pc, M)) != 0)
        return its_warp_sync(w, pc, M, need, false); /* waits: 0, or -1 */
    const uint32_t b = its_base(w), t = w->depth - 1;
    struct simt_entry *s = w->stk;
    const uint32_t merged = merge_siblings(w, pc, ~0u, need, NULL, NULL);
    /* named lanes standing here only in a suspended activation (they called this function
     * from another path: nvcc -G): their registers are in another frame */
    if (need & ~(M | s[t].mask | leaves_at(s, b, t, s[t].mask, pc)))
        return -2;
    if (merged == 0)
        return 1;
    s[t].pc = pc;
    return 0;
}

/* Copy the registers of lanes L from frame src to frame dst, both frames of function fn. */
static void frame_lanes_copy(const struct xfunc *fn, uint8_t *dst, const uint8_t *src, uint32_t L)
{
    union r64(*d64)[32] = (union r64(*)[32])(void *)dst;
    const union r64(*s64)[32] = (const union r64(*)[32])(const void *)src;
    union r32(*d32)[32] = (union r32(*)[32])(void *)(dst + fn->off32);
    const union r32(*s32)[32] = (const union r32(*)[32])(const void *)(src + fn->off32);
    union r16(*d16)[32] = (union r16(*)[32])(void *)(dst + fn->off16);
    const union r16(*s16)[32] = (const union r16(*)[32])(const void *)(src + fn->off16);
    uint32_t *dp = (uint32_t *)(void *)(dst + fn->offpred);
    const uint32_t *sp = (const uint32_t *)(const void *)(src + fn->offpred);
    for (uint32_t l = 0; l < 32; l++) {
        if (!(L >> l & 1))
            continue;
        for (uint32_t r = 0; r < fn->n64; r++)
            d64[r][l] = s64[r][l];
        for (uint32_t r = 0; r < fn->n32; r++)
            d32[r][l] = s32[r][l];
        for (uint32_t r = 0; r < fn->n16; r++)
            d16[r][l] = s16[r][l];
    }
    for (uint32_t r = 0; r < fn->npred; r++)
        dp[r] = (dp[r] & ~L) | (sp[r] & L);
}

/* See internal.h. A lane of the warp is in one activation only, so the lanes a suspended
 * activation holds are unused in the current frame: the instruction reads and writes their
 * registers there, and its_collective_return copies them back. */
bool its_collective_borrow(struct warp *w, uint32_t pc, uint32_t M, uint32_t need,
                           const struct ir_insn *in, uint32_t *run)
{
    *run = 0;
    need = need_live(w, need);
    uint32_t B = 0;
    for (uint32_t j = 0; w->susp_used && j < w->nsusp; j++) {
        struct its_susp *P = &w->susp[j];
        P->borrow = 0;
        if (!P->used || P->fn != w->fn)
            continue;
        uint32_t seen = 0;
        for (uint32_t i = P->nent; i-- > susp_base(P);) {
            struct simt_entry *e = &P->ent[i];
            const uint32_t own = e->mask & ~seen;
            seen |= e->mask;
            if (own != e->mask || own == 0 || e->pc != pc || e->susp)
                continue;
            /* a leaf waiting here: its named lanes take part now; the others (their own masks
             * name other lanes) stay in a sibling entry, still at pc */
            const uint32_t take = own & need & ~(M | B);
            if (take == 0)
                continue;
            if (take != own) {
                struct simt_entry *n = P->nent < P->ent_cap ? P->ent : NULL;
                if (!n) {
                    n = realloc(P->ent, (size_t)(P->nent + 1) * sizeof *n);
                    if (!n)
                        continue;
                    P->ent = n;
                    P->ent_cap = P->nent + 1;
                }
                e = &P->ent[i];
                e->mask = own & ~take;
                P->ent[P->nent++] = (struct simt_entry){pc, e->rpc, take, 0};
            }
            P->borrow |= take;
        }
        B |= P->borrow;
    }
    if ((need & ~(M | B)) != 0 || B == 0) {
        its_collective_unborrow(w);
        return false;
    }
    uint8_t *cur = w->arena + w->frame_off;
    for (uint32_t j = 0; j < w->nsusp; j++) {
        const struct its_susp *P = &w->susp[j];
        if (P->used && P->borrow)
            frame_lanes_copy(w->fn, cur, w->arena + P->frame_off, P->borrow);
    }
    *run = B & (w->pred[in->guard] ^ (0u - (uint32_t)in->guard_neg));
    return true;
}

/* See internal.h. */
void its_collective_return(struct warp *w, uint32_t pc)
{
    const uint8_t *cur = w->arena + w->frame_off;
    for (uint32_t j = 0; w->susp_used && j < w->nsusp; j++) {
        struct its_susp *P = &w->susp[j];
        if (!P->used || !P->borrow)
            continue;
        frame_lanes_copy(w->fn, w->arena + P->frame_off, cur, P->borrow);
        uint32_t seen = 0;
        for (uint32_t i = P->nent; i-- > susp_base(P);) {
            struct simt_entry *e = &P->ent[i];
            const uint32_t own = e->mask & ~seen;
            seen |= e->mask;
            if (own == e->mask && own != 0 && e->pc == pc && !e->susp && (own & ~P->borrow) == 0)
                e->pc = pc + 1;
        }
        P->borrow = 0;
    }
}

/* See internal.h. */
void its_collective_unborrow(struct warp *w)
{
    for (uint32_t j = 0; w->susp_used && j < w->nsusp; j++)
        w->susp[j].borrow = 0;
}

/*
 * Join into the current activation of warp w (its top entry standing at pc) the suspended
 * activations of the same function that made the same call from a sibling path of the same
 * calling activation and stand at pc too, each as one entry of lanes within `allow`: a GPU
 * reconverges such lanes at the barrier (nvcc -G calls __syncthreads / __syncwarp / the
 * cooperative-groups barrier through a .func, so after a divergent spin each path reaches it
 * in a call of its own, and __activemask() after it must name them all). Their registers and
 * parameters are copied into the current frame's lanes (unused: a lane is in one activation),
 * their lanes join the top entry, the call and the calling entry, their calling entry and
 * slot go. Returns the lanes joined.
 */
static uint32_t its_join(struct warp *w, uint32_t pc, uint32_t allow)
{
    const uint32_t n = w->ncalls;
    if (!w->susp_used || n == 0)
        return 0;
    uint32_t cb = w->calls[n - 1].base, joined = 0;
    if (w->depth != cb + 1 || w->stk[cb].pc != pc)
        return 0;
    const struct xfunc *fn = w->fn;
    for (uint32_t j = 0; j < w->nsusp; j++) {
        struct its_susp *P = &w->susp[j];
        if (!P->used || P->fn != fn || P->ncall != 1 || P->nent != 1 || P->ent[0].pc != pc ||
            P->ent[0].susp || P->ent[0].rpc != w->stk[cb].rpc || P->ent[0].mask == 0 ||
            (P->ent[0].mask & ~allow) != 0)
            continue;
        const struct call_rec *pc0 = &P->calls[0], *cr = &w->calls[n - 1];
        if (pc0->caller != cr->caller || pc0->frame_off != cr->frame_off || pc0->rets != cr->rets ||
            pc0->nrets != cr->nrets || pc0->sp != cr->sp)
            continue;
        /* its calling entry: a sibling of ours in the calling activation, at the same call */
        const uint32_t ab = n >= 2 ? w->calls[n - 2].base : 0;
        uint32_t ci = cb - 1;
        for (uint32_t i = ab; i + 1 < cb; i++)
            if (w->stk[i].susp == j + 1)
                ci = i;
        if (ci == cb - 1 || w->stk[ci].pc != w->stk[cb - 1].pc ||
            w->stk[ci].rpc != w->stk[cb - 1].rpc || w->stk[ci].mask != pc0->mask)
            continue;
        const uint32_t L = P->ent[0].mask;
        uint8_t *cur = w->arena + w->frame_off;
        const uint8_t *src = w->arena + P->frame_off;
        frame_lanes_copy(fn, cur, src, L);
        for (uint32_t l = 0; l < 32; l++)
            if (L >> l & 1)
                memcpy(cur + fn->frame_bytes + (size_t)l * fn->param_frame,
                       src + fn->frame_bytes + (size_t)l * fn->param_frame, fn->param_frame);
        w->stk[cb].mask |= L;
        w->stk[cb - 1].mask |= pc0->mask;
        w->calls[n - 1].mask |= pc0->mask;
        if (pc0->arena_mark < w->calls[n - 1].arena_mark)
            w->calls[n - 1].arena_mark = pc0->arena_mark; /* its frames go when we return */
        /* drop its calling entry (entries above it and the call bases move down one) */
        memmove(&w->stk[ci], &w->stk[ci + 1], (size_t)(w->depth - ci - 1) * sizeof *w->stk);
        w->depth--;
        for (uint32_t k = 0; k < n; k++)
            if (w->calls[k].base > ci)
                w->calls[k].base--;
        cb--;
        P->used = false;
        P->borrow = P->bar_lanes = 0;
        w->susp_used--;
        joined |= L;
    }
    return joined;
}

/* Lanes and predicate bits of suspended activations at the bar.red just let through (see
 * internal.h). */
uint32_t its_far_pred(const struct warp *w, uint32_t slot, uint32_t *lanes)
{
    uint32_t v = 0, at = 0;
    for (uint32_t i = 0; w->susp_used && i < w->nsusp; i++) {
        const struct its_susp *P = &w->susp[i];
        if (!P->used || !P->bar_lanes)
            continue;
        const uint32_t *pred =
            (const uint32_t *)(const void *)(w->arena + P->frame_off + P->fn->offpred);
        v |= pred[slot] & P->bar_lanes;
        at |= P->bar_lanes;
    }
    *lanes = at;
    return v;
}

/* A bar.red result for the lanes of suspended activations (see internal.h). */
void its_far_result(struct warp *w, unsigned rf, uint32_t slot, uint32_t v)
{
    for (uint32_t i = 0; w->susp_used && i < w->nsusp; i++) {
        struct its_susp *P = &w->susp[i];
        const uint32_t m = P->used ? P->bar_lanes & ~w->exited : 0;
        P->bar_lanes = 0;
        if (!m)
            continue;
        uint8_t *b = w->arena + P->frame_off;
        if (rf == RF_PRED) {
            uint32_t *pred = (uint32_t *)(void *)(b + P->fn->offpred);
            pred[slot] = (pred[slot] & ~m) | (v ? m : 0);
        } else if (rf == RF_B32) {
            union r32(*r32)[32] = (union r32(*)[32])(void *)(b + P->fn->off32);
            for (unsigned l = 0; l < 32; l++)
                if (m >> l & 1)
                    r32[slot][l].u = v;
        }
    }
}

/* Entry i of the SIMT entries e (calls c[0, nc), bases relative to e; `inner` the function of
 * the innermost activation, `outer` that of the activation below c[0]): its function. */
static const struct xfunc *entry_fn(const struct call_rec *c, uint32_t nc, uint32_t i,
                                    const struct xfunc *inner, const struct xfunc *outer)
{
    uint32_t k = 0;
    while (k < nc && c[k].base <= i)
        k++;
    if (k == nc)
        return inner;
    return k == 0 ? outer : c[k].caller;
}

/* "NAME+0xPC (FILE:LINE)" of instruction pc of fn, and "barrier N " before it when it is a
 * CTA barrier with an immediate id, into buf. */
static void place_str(const struct xfunc *fn, uint32_t pc, char *buf, size_t n)
{
    const struct ir_module *m = fn->m;
    const struct ir_insn *in = pc < fn->ninsns ? &fn->f->insns[pc] : &fn->insns[fn->ninsns];
    const struct ir_insn *x = pc < fn->ninsns ? &fn->insns[pc] : NULL;
    char bar[24] = "";
    if (x && (x->op == OP_BAR || x->op == OP_BARRIER) && x->nopnd >= 1 + (x->mode == MODE_RED)) {
        const struct ir_opnd *id = &fn->opnds[x->opnd + (x->mode == MODE_RED ? 1 : 0)];
        if (id->kind == OPK_IMM)
            snprintf(bar, sizeof bar, "barrier %" PRIu64 " at ", id->imm.u);
    }
    snprintf(buf, n, "%s%s+%#x (%s:%u)", bar, ir_str(m, fn->f->name), pc * 16,
             m->filename ? m->filename : "<ptx>", in->line);
}

/* The deadlock report of lanes that can never join the barrier (see internal.h). */
void its_stuck_msg(const struct warp *w, uint32_t pc, uint32_t M, unsigned id, char *buf, size_t n)
{
    const uint32_t live = w->valid & ~w->exited, at = lanes_at(w, pc, M) & live;
    uint32_t miss = live & ~at;
    size_t k = (size_t)snprintf(buf, n,
                                "barrier %u can never complete: lanes %08x of warp %u wait at "
                                "it,",
                                id, at, w->id);
    /* the leaf entries holding missing lanes: this warp's stack, then suspended activations */
    const uint32_t nc = w->ncalls;
    const struct xfunc *outer = nc ? w->calls[0].caller : w->fn;
    uint32_t seen = 0;
    for (uint32_t i = w->depth; i-- > 0 && miss && k < n;) {
        const struct simt_entry *e = &w->stk[i];
        const uint32_t own = e->mask & ~seen & miss;
        seen |= e->mask;
        if (!own || e->susp)
            continue;
        char where[160];
        place_str(entry_fn(w->calls, nc, i, w->fn, outer), e->pc, where, sizeof where);
        k += (size_t)snprintf(buf + k, n - k, " lanes %08x of the warp wait at %s,", own, where);
        miss &= ~own;
    }
    for (uint32_t j = 0; w->susp_used && j < w->nsusp && miss && k < n; j++) {
        const struct its_susp *P = &w->susp[j];
        if (!P->used)
            continue;
        seen = 0;
        for (uint32_t i = P->nent; i-- > 0 && miss && k < n;) {
            const struct simt_entry *e = &P->ent[i];
            const uint32_t own = e->mask & ~seen & miss;
            seen |= e->mask;
            if (!own || e->susp)
                continue;
            char where[160];
            place_str(entry_fn(P->calls, P->ncall, i, P->fn, P->calls[0].caller), e->pc, where,
                      sizeof where);
            k +=
                (size_t)snprintf(buf + k, n - k, " lanes %08x of the warp wait at %s,", own, where);
            miss &= ~own;
        }
    }
    if (miss && k < n)
        snprintf(buf + k, n - k, " lanes %08x of the warp elsewhere,", miss);
    const size_t len = strlen(buf);
    if (len > 0 && buf[len - 1] == ',')
        buf[len - 1] = 0;
}
