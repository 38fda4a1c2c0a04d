/*
 * interp/check_sync.c — synccheck: an aligned barrier (bar.sync, barrier.sync.aligned,
 * __syncthreads) executed by part of the warp's live lanes, a CTA-wide barrier waited for at
 * two instructions in one phase, a barrier thread count that is not a multiple of the warp
 * size, and a .sync warp collective whose member mask names lanes that do not execute it.
 * At the arrival that makes it certain: a barrier waited for with another thread count than
 * its phase's first arrival gave, and a wait for every thread of the CTA at one barrier while
 * threads wait for every thread at another (neither can complete). An aligned cluster barrier
 * executed by part of the warp's live lanes. Misuses of mbarrier objects and of the cluster
 * barrier: those the engine stops at (interp_sync_fault) as findings, and two it does not,
 * found with a per-CTA list of the objects mbarrier.init made (a second init without inval,
 * and a use of bytes that look like an object their CTA never made).
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "interp/check.h"
#include "interp/check_int.h"
#include "interp/internal.h"
#include "interp/ops/helpers.h"

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

/* ====================================================================== mbarrier and cluster
 * barrier misuse */

/* The CTA of w's cluster whose shared memory holds p (NULL: none), its offset in *off. */
static struct cta *mbar_owner(const struct warp *w, const uint8_t *p, uint64_t *off)
{
    struct cta *c = w->cta;
    if (p >= c->shared && p < c->shared + c->shared_size) {
        *off = (uint64_t)(p - c->shared);
        return c;
    }
    const struct cluster *cl = c->clu;
    for (uint32_t r = 0; cl && r < cl->n; r++) {
        struct cta *t = cl->cta[r];
        if (t && p >= t->shared && p < t->shared + t->shared_size) {
            *off = (uint64_t)(p - t->shared);
            return t;
        }
    }
    return NULL;
}

/* A finding of `kind` at (w, pc, lane) about the mbarrier at p (NULL: the cluster barrier). */
static void misuse_at(struct finding *x, struct warp *w, uint32_t pc, unsigned lane,
                      enum fkind kind, const uint8_t *p, const char *insn)
{
    chk_finding_at(x, w, pc, lane, kind);
    snprintf(x->what, sizeof x->what, "%s", insn);
    x->need = w->cta->rank;
    if (p) {
        const struct cta *o = mbar_owner(w, p, &x->addr);
        if (o) {
            x->need = o->rank;
            x->remote = o != w->cta;
        }
    }
}

_Static_assert(F_CLU_ARRIVE - F_MBAR_UNINIT == (int)SM_CLU_ARRIVE - (int)SM_MB_UNINIT,
               "the F_MBAR_* / F_CLU_* findings follow enum sync_misuse");

/* synccheck of a misuse the engine stops at (see check.h). */
void check_sync_misuse(struct warp *w, uint32_t pc, unsigned lane, const struct sync_what *x)
{
    struct finding f;
    misuse_at(&f, w, pc, lane, (enum fkind)(F_MBAR_UNINIT + (int)x->kind), x->mbar, x->insn);
    f.na = x->a;
    f.nb = x->b;
    f.nc = x->c;
    chk_finding_add(w->cta->L, &f);
}

/* The index of the mbarrier at p among those CTA c made, or -1. */
static int mbar_find(const struct check_cta *k, const uint8_t *p)
{
    for (uint32_t i = 0; i < k->nmb; i++)
        if (k->mb[i].p == p)
            return (int)i;
    return -1;
}

/* mbarrier.init of the object at p by lane `lane`: a finding when its CTA made it already
 * (another lane of this warp instruction making it does not count), else it is now made. */
static void mbar_init(struct warp *w, uint32_t pc, unsigned lane, const uint8_t *p)
{
    struct check_cta *k = w->cta->chk;
    const int i = mbar_find(k, p);
    if (i >= 0 && k->mb[i].step == w->cta->chk_step)
        return; /* another lane of the warp instruction that made it */
    if (i >= 0) {
        struct finding x;
        misuse_at(&x, w, pc, lane, F_MBAR_REINIT, p, "mbarrier.init");
        chk_finding_add(w->cta->L, &x);
        return;
    }
    if (k->nmb == k->cmb) {
        const uint32_t nc = k->cmb ? k->cmb * 2 : 8;
        struct check_mbar *nm = realloc(k->mb, nc * sizeof *nm);
        if (!nm)
            return; /* out of memory: the object goes unchecked */
        k->mb = nm;
        k->cmb = nc;
    }
    k->mb[k->nmb++] = (struct check_mbar){p, w->cta->chk_step};
}

/* mbarrier.inval of the object at p: no longer made. */
static void mbar_inval(struct warp *w, const uint8_t *p)
{
    uint64_t off;
    struct cta *o = mbar_owner(w, p, &off);
    struct check_cta *k = o ? o->chk : NULL;
    const int i = k ? mbar_find(k, p) : -1;
    if (i >= 0)
        k->mb[i] = k->mb[--k->nmb];
}

/* Instruction `insn` of lane `lane` uses the object at p (whose bytes look valid): a finding
 * when its CTA never made it. */
static void mbar_use(struct warp *w, uint32_t pc, unsigned lane, const uint8_t *p,
                     const char *insn)
{
    uint64_t off;
    struct cta *o = mbar_owner(w, p, &off);
    if (!o || !o->chk || mbar_find(o->chk, p) >= 0)
        return;
    struct finding x;
    misuse_at(&x, w, pc, lane, F_MBAR_UNINIT, p, insn);
    chk_finding_add(w->cta->L, &x);
}

/* synccheck of an mbarrier instruction before it runs (see check.h). */
void check_mbarrier(struct warp *w, uint32_t pc, const struct ir_insn *in, uint32_t M)
{
    const struct ir_opnd *O = w->fn->opnds + in->opnd;
    const struct ir_opnd *a;
    switch (in->op) {
    case OP_MBARRIER_ARRIVE:
    case OP_MBARRIER_ARRIVE_DROP: a = &O[1]; break;
    case OP_MBARRIER_INIT:
    case OP_MBARRIER_INVAL:
    case OP_MBARRIER_EXPECT_TX:
    case OP_MBARRIER_COMPLETE_TX:
    case OP_CP_ASYNC_MBARRIER_ARRIVE: a = &O[0]; break;
    default: return;
    }
    if (in->nopnd < 1 || a->kind != OPK_ADDR)
        return;
    const unsigned xs = vm_xs(w, a);
    const char *insn = ir_op_name((enum ir_op)in->op);
    const bool makes = in->op == OP_MBARRIER_INIT || in->op == OP_MBARRIER_INVAL;
    uint64_t last = UINT64_MAX;
    for (unsigned l = 0; l < 32; l++) {
        if (!(M >> l & 1))
            continue;
        const uint64_t ad = vm_addr(w, a, l);
        if (!makes && ad == last)
            continue; /* the lane before used the same object: nothing changed since */
        last = ad;
        uint8_t *p;
        if (vm_xs_space(xs, ad) != SP_SHARED || vm_xlate(w, xs, l, ad, 8, false, &p))
            continue; /* the engine's fault */
        if (in->op == OP_MBARRIER_INIT) {
            mbar_init(w, pc, l, p);
            continue;
        }
        if (!async_mbarrier_valid(p))
            continue; /* the engine's fault (interp_sync_fault) */
        mbar_use(w, pc, l, p, insn);
        if (in->op == OP_MBARRIER_INVAL)
            mbar_inval(w, p);
    }
}

/* synccheck of an aligned cluster barrier (see check.h). */
void check_cluster_barrier(struct warp *w, uint32_t pc, uint32_t M, uint32_t need)
{
    if (w->its && !sync_join(w, pc, &M, &need))
        return;
    if (M != need)
        sync_block(w, w->fn, pc, M, need);
}
