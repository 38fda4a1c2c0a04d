/*
 * interp/check_sync.c — synccheck: an aligned barrier (bar.sync, barrier.sync.aligned,
 * __syncthreads) executed by part of the warp's live lanes, a CTA-wide barrier waited for at
 * two instructions in one phase, a barrier thread count that is not a multiple of the warp
 * size, and a .sync warp collective whose member mask names lanes that do not execute it.
 * At the arrival that makes it certain: a barrier waited for with another thread count than
 * its phase's first arrival gave, and a wait for every thread of the CTA at one barrier while
 * threads wait for every thread at another (neither can complete).
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "interp/check.h"
#include "interp/check_int.h"
#include "interp/internal.h"

/* A divergent aligned barrier: lanes M of warp w executed the one at fn/pc, `need` had to. */
static void sync_block(struct warp *w, const struct xfunc *fn, uint32_t pc, uint32_t M,
                       uint32_t need)
{
    struct finding x;
    chk_finding_at(&x, w, pc, (unsigned)__builtin_ctz(M), F_SYNC_BLOCK);
    x.fn1 = fn;
    x.mask = M;
    x.need = need;
    chk_finding_add(w->cta->L, &x);
}

/*
 * Under independent thread scheduling (sm_70+) the paths of a warp reach an aligned barrier
 * one after the other and its.c joins them there (the warp arrives once all its live lanes
 * stand at it): judge the barrier when the warp arrives, with every lane that reached it and
 * the live lanes when the first did (lanes that exited meanwhile never reached it). A path
 * reaching another barrier while one waits is divergent at once, both barriers (each lane
 * once per wait). False while the path waits (nothing to judge yet); else true with *M and
 * *need set for the warp's arrival.
 */
static bool sync_join(struct warp *w, uint32_t pc, uint32_t *M, uint32_t *need)
{
    struct gwarp *g = &w->cta->chk->gw[w->id];
    if (g->jfn && (g->jfn != w->fn || g->jpc != pc)) {
        if (g->jarr & ~g->jrep)
            sync_block(w, g->jfn, g->jpc, g->jarr, g->jneed);
        if (*M & ~g->jrep)
            sync_block(w, w->fn, pc, *M, *need);
        g->jrep |= g->jarr | *M;
        return false;
    }
    if (!g->jfn) {
        g->jfn = w->fn;
        g->jpc = pc;
        g->jarr = g->jrep = 0;
        g->jneed = *need;
    }
    g->jarr |= *M;
    if (!its_sync_ready(w, pc, *M, *need))
        return false;
    g->jfn = NULL;
    if (g->jrep)
        return false; /* reported when a path reached another barrier */
    *M = g->jarr;
    *need = g->jneed;
    return true;
}

/* synccheck of a barrier (see internal.h). */
void check_barrier(struct warp *w, uint32_t pc, uint32_t M, uint32_t need, uint32_t count)
{
    struct finding x;
    if (w->its && !sync_join(w, pc, &M, &need))
        return;
    if (count % 32) {
        chk_finding_at(&x, w, pc, (unsigned)__builtin_ctz(M), F_SYNC_COUNT);
        x.need = count;
        chk_finding_add(w->cta->L, &x);
    }
    if (M != need)
        sync_block(w, w->fn, pc, M, need);
    /* a barrier for the whole CTA (no thread count, immediate id: what __syncthreads is)
     * waited for at two instructions in one phase: warps took different paths to it */
    const struct ir_insn *in = &w->fn->insns[pc];
    const struct ir_opnd *id = &w->fn->opnds[in->opnd + (in->mode == MODE_RED ? 1 : 0)];
    struct cta *c = w->cta;
    if (count || id->kind != OPK_IMM || id->imm.u > 15)
        return;
    struct check_cta *k = c->chk;
    unsigned b = (unsigned)id->imm.u;
    if (k->bar[b].ep != c->chk_ep) {
        k->bar[b].ep = c->chk_ep;
        k->bar[b].fn = w->fn;
        k->bar[b].pc = pc;
    } else if (k->bar[b].fn != w->fn || k->bar[b].pc != pc) {
        chk_finding_at(&x, w, pc, (unsigned)__builtin_ctz(M), F_SYNC_PATH);
        x.fn2 = k->bar[b].fn;
        x.pc2 = k->bar[b].pc;
        x.need = b;
        chk_finding_add(c->L, &x);
    }
}

/* synccheck of a warp collective (see internal.h). */
void check_warp_sync(struct warp *w, uint32_t pc, uint32_t M, const uint32_t members[32])
{
    for (unsigned l = 0; l < 32; l++) {
        if (!(M >> l & 1) || !(members[l] & ~M))
            continue;
        struct finding x;
        chk_finding_at(&x, w, pc, l, F_SYNC_WARP);
        x.mask = M;
        x.need = members[l];
        const struct ir_insn *in = &w->fn->f->insns[pc];
        snprintf(x.what, sizeof x.what, "%s",
                 in->op == OP_SHFL    ? "shfl.sync"
                 : in->op == OP_VOTE  ? "vote.sync"
                 : in->op == OP_MATCH ? "match.sync"
                 : in->op == OP_REDUX ? "redux.sync"
                 : in->op == OP_ELECT ? "elect.sync"
                                      : "bar.warp.sync");
        chk_finding_add(w->cta->L, &x);
        return;
    }
}

/* The immediate barrier id of CTA barrier instruction pc of fn, or -1. */
static int bar_id_imm(const struct xfunc *fn, uint32_t pc)
{
    const struct ir_insn *in = &fn->insns[pc];
    const struct ir_opnd *id = &fn->opnds[in->opnd + (in->mode == MODE_RED ? 1 : 0)];
    return id->kind == OPK_IMM && id->imm.u <= 15 ? (int)id->imm.u : -1;
}

/* synccheck of a barrier arrival (see internal.h). */
void check_bar_arrival(struct warp *w, uint32_t pc, uint32_t M, uint32_t count, bool waits)
{
    const int b = bar_id_imm(w->fn, pc);
    if (b < 0 || !M)
        return;
    struct cta *c = w->cta;
    struct check_cta *k = c->chk;
    const struct barrier *cb = &c->bars[b];
    struct finding x;
    if (cb->arrived == 0 || !k->bar[b].fn0) {
        k->bar[b].fn0 = w->fn;
        k->bar[b].pc0 = pc;
    } else if ((count ? count : c->L->nthreads) !=
               (cb->expected ? cb->expected : c->L->nthreads)) { /* none: the whole CTA */
        chk_finding_at(&x, w, pc, (unsigned)__builtin_ctz(M), F_SYNC_MIXED);
        x.fn2 = k->bar[b].fn0;
        x.pc2 = k->bar[b].pc0;
        x.mask = count;
        x.need = (uint32_t)b;
        x.width = cb->expected;
        chk_finding_add(c->L, &x);
    }
    if (!waits || count)
        return;
    for (unsigned o = 0; o < 16; o++) {
        const struct barrier *ob = &c->bars[o];
        if (o == (unsigned)b || !ob->nparked || ob->expected || !k->bar[o].fn0)
            continue;
        chk_finding_at(&x, w, pc, (unsigned)__builtin_ctz(M), F_SYNC_CROSS);
        x.fn2 = k->bar[o].fn0;
        x.pc2 = k->bar[o].pc0;
        x.mask = o;
        x.need = (uint32_t)b;
        chk_finding_add(c->L, &x);
        return;
    }
}
