/*
 * interp/check_grace.c — racecheck of global memory (see the comment below for the model).
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "interp/check.h"
#include "interp/check_int.h"
#include "interp/internal.h"

/*
 * Global memory: a shadow record per 4-byte word a launch touches — its last write and its
 * last read (24 bytes each), in pages of GP_WORDS words found through an open-addressed
 * table, made when first touched and freed with the launch (a launch boundary orders
 * everything). Each access carries the launch's two release clocks as they were when it ran:
 * gclk counts releases at .gpu scope or wider (fences, membar.gl, st/atom/red .release), cclk
 * releases at any scope. A warp's acquire (a fence, an atom, ld.acquire) records the clocks
 * as they are before its own release. An earlier access A by another warp is ordered before
 * the current one when the current warp has acquired since a release that followed A: for a
 * thread of another CTA, gacq > A.tg; of the same CTA, cacq > A.tc or a CTA barrier between
 * them (A's barrier epoch is not the CTA's). A barrier hands the clocks its arriving warps had
 * acquired to the warps it releases (thread 0's atomic, __syncthreads, then all read). The
 * clocks are launch-wide, so a release by a third thread can order a pair (a missed race,
 * never a false one). Two morally strong accesses (atomics, volatile, relaxed/acquire/
 * release at a scope holding both threads) never race; an unordered pair with one strong
 * access is a Warning (a programming-model hazard the author may intend, as a plain read of
 * a flag set by an atomic), with two weak ones an Error. Lanes of one warp are compared as
 * shared-memory racecheck compares them: under independent thread scheduling a warp's lanes
 * are not in lock step, so two accesses of one warp are ordered only by being one warp
 * instruction (the same CTA step) or by a bar.warp.sync between them (the warp's __syncwarp
 * epoch), besides the fences and barriers that order any two threads. A strong access runs
 * and is recorded under glock (check_grace_enter), so strong accesses to a word are recorded
 * in the order memory saw them; a strong read of a strong write marks the write observed by
 * the reader's thread (gacc.obs), whose later accesses to the word are then ordered after it
 * (PTX's observation order: a flag read with ld.volatile and reset by its reader).
 */
enum { GP_SHIFT = 8, GP_WORDS = 1u << GP_SHIFT };
enum {
    GA_STRONG = 1,
    GA_CTA = 2,
    GA_RMW = 4
}; /* gacc.fl: strong access; its scope is the
    CTA; an atomic read-modify-write */

struct gacc {
    uint32_t site;   /* (function index + 1) << 24 | pc; 0: none */
    uint32_t thread; /* CTA linear * threads per CTA + thread in the CTA (mod 2^32) */
    uint32_t tg, tc; /* the launch's release clocks at the access */
    uint16_t ep;     /* the CTA's barrier epoch (mod 2^16) */
    uint16_t step;   /* the CTA's warp-instruction counter (mod 2^16): one warp instruction */
    uint16_t wep;    /* the warp's __syncwarp epoch (mod 2^16) */
    uint8_t bytes;   /* bit per byte of the word accessed */
    uint8_t fl;      /* GA_* */
    uint32_t obs;    /* a write's: 1 + the thread whose strong read last read it (0: none) */
};

struct gpage {
    uint64_t key;       /* word index >> GP_SHIFT */
    struct gacc *w, *r; /* GP_WORDS each, made when the page is first written / read */
};

/* Free the global racecheck shadow of a launch. */
void chk_gshadow_free(struct check_launch *k)
{
    for (size_t i = 0; i < k->tcap; i++)
        if (k->tab[i]) {
            free(k->tab[i]->w);
            free(k->tab[i]->r);
            free(k->tab[i]);
        }
    free(k->tab);
}

/* The page of word index j, made when first touched; NULL out of memory. Caller holds glock. */
static struct gpage *gpage_get(struct check_launch *k, uint64_t j)
{
    const uint64_t key = j >> GP_SHIFT;
    if (k->last && k->last->key == key)
        return k->last;
    if (2 * (k->tn + 1) > k->tcap) {
        size_t nc = k->tcap ? 2 * k->tcap : 64;
        struct gpage **nt = calloc(nc, sizeof *nt);
        if (!nt)
            return NULL;
        for (size_t i = 0; i < k->tcap; i++) {
            if (!k->tab[i])
                continue;
            size_t h = (size_t)(k->tab[i]->key * 0x9e3779b97f4a7c15ull >> 20) & (nc - 1);
            while (nt[h])
                h = (h + 1) & (nc - 1);
            nt[h] = k->tab[i];
        }
        free(k->tab);
        k->tab = nt;
        k->tcap = nc;
    }
    size_t h = (size_t)(key * 0x9e3779b97f4a7c15ull >> 20) & (k->tcap - 1);
    while (k->tab[h] && k->tab[h]->key != key)
        h = (h + 1) & (k->tcap - 1);
    if (!k->tab[h]) {
        struct gpage *p = calloc(1, sizeof *p);
        if (!p)
            return NULL;
        p->key = key;
        k->tab[h] = p;
        k->tn++;
    }
    return k->last = k->tab[h];
}

/* The site number of (fn, pc); 0 when it cannot be numbered (more than 255 functions, a pc
 * beyond 2^24: the access is not recorded). Caller holds glock. */
static uint32_t gsite(struct check_launch *k, const struct xfunc *fn, uint32_t pc)
{
    if (pc >= 1u << 24)
        return 0;
    unsigned i = 0;
    while (i < k->nfns && k->fns[i] != fn)
        i++;
    if (i == k->nfns) {
        if (k->nfns == sizeof k->fns / sizeof k->fns[0])
            return 0;
        k->fns[k->nfns++] = fn;
    }
    return (uint32_t)(i + 1) << 24 | pc;
}

/* The warp's racecheck view, with the handoff of a barrier completed since it last looked. */
static struct gwarp *gwarp_of(struct warp *w)
{
    struct cta *c = w->cta;
    struct gwarp *g = &c->chk->gw[w->id];
    if (g->ep != c->chk_ep) {
        if (c->chk->pend_g > g->gacq)
            g->gacq = c->chk->pend_g;
        if (c->chk->pend_c > g->cacq)
            g->cacq = c->chk->pend_c;
        g->ep = c->chk_ep;
    }
    return g;
}

/* A release at scope `cta` (only the CTA) or wider, then an acquire. Caller holds glock. */
static void gfence(struct check_launch *k, struct gwarp *g, bool cta)
{
    g->cacq = k->cclk++;
    if (!cta)
        g->gacq = k->gclk++;
}

/* Does the earlier access a (a write if a_wr) race with cur (a write if cur_wr; by the warp
 * whose view is g)? 0: no, 1: a Warning, 2: an Error. */
static inline int gconflict(const struct gacc *a, bool a_wr, const struct gacc *cur, bool cur_wr,
                            const struct gwarp *g, uint32_t nthreads)
{
    if (!a->site || !(a->bytes & cur->bytes) || a->thread == cur->thread)
        return 0;
    if (a_wr && a->obs == cur->thread + 1)
        return 0; /* observation order: cur's thread read this write with a strong read */
    const bool same = a->thread / nthreads == cur->thread / nthreads;
    if (same) {
        if (a->ep != cur->ep || g->cacq > a->tc)
            return 0;
        if (a->thread % nthreads / 32 == cur->thread % nthreads / 32 &&
            (a->step == cur->step || a->wep != cur->wep))
            return 0; /* one warp: lanes of one instruction, or a __syncwarp between */
    } else if (g->gacq > a->tg) {
        return 0;
    }
    const bool as = (a->fl & GA_STRONG) && (same || !(a->fl & GA_CTA)),
               cs = (cur->fl & GA_STRONG) && (same || !(cur->fl & GA_CTA));
    if (as && cs)
        return 0;
    /* a plain read next to atomic updates (the first guess of an atomicCAS loop, a progress
     * read): whatever value it gets is one the atomics made, as the author expects */
    if ((as && (a->fl & GA_RMW) && !cur_wr) || (cs && (cur->fl & GA_RMW) && !a_wr))
        return 0;
    return as || cs ? 1 : 2;
}

static void grace_report(struct warp *w, unsigned lane, enum fkind kind, int sev,
                         const struct check_launch *k, const struct gacc *a, uint32_t pc,
                         uint64_t addr)
{
    struct finding x;
    chk_finding_at(&x, w, pc, lane, kind);
    x.fn1 = k->fns[(a->site >> 24) - 1];
    x.pc1 = a->site & 0xffffff;
    x.fn2 = w->fn;
    x.pc2 = pc;
    x.addr = addr;
    x.warning = sev == 1;
    chk_finding_add(w->cta->L, &x);
}

/* racecheck of one lane's global access [addr, addr+width); *tmpl: the access (site,
 * thread, clocks, epoch, strength) but for its bytes. One report per kind per access. Caller
 * holds glock. */
static void grace_access(struct warp *w, struct gwarp *g, uint32_t pc, unsigned lane, uint64_t addr,
                         unsigned width, bool wr, const struct gacc *tmpl)
{
    struct check_launch *k = w->cta->L->chk;
    const uint32_t nthreads = w->cta->L->nthreads;
    struct gacc cur = *tmpl;
    bool waw = false, war = false, raw = false;
    for (uint64_t a = addr; a < addr + width;) {
        const uint64_t j = a / 4;
        const unsigned lo = (unsigned)(a & 3);
        const unsigned n = (unsigned)(addr + width - a < 4 - lo ? addr + width - a : 4 - lo);
        cur.bytes = (uint8_t)(((1u << n) - 1) << lo);
        struct gpage *p = gpage_get(k, j);
        if (!p)
            return;
        /* a half of the page is made when it is first needed: read-only inputs get no write
         * records, outputs no read records */
        struct gacc **mine = wr ? &p->w : &p->r;
        if (!*mine && !(*mine = calloc(GP_WORDS, sizeof **mine)))
            return;
        struct gacc *pw = p->w ? &p->w[j & (GP_WORDS - 1)] : NULL,
                    *pr = p->r ? &p->r[j & (GP_WORDS - 1)] : NULL;
        int s;
        if (wr) {
            if (!waw && (s = gconflict(pw, true, &cur, true, g, nthreads))) {
                waw = true;
                grace_report(w, lane, F_GRACE_WAW, s, k, pw, pc, a);
            }
            if (pr && !war && (s = gconflict(pr, false, &cur, true, g, nthreads))) {
                war = true;
                grace_report(w, lane, F_GRACE_WAR, s, k, pr, pc, a);
            }
            *pw = cur;
        } else {
            if (pw && !raw && (s = gconflict(pw, true, &cur, false, g, nthreads))) {
                raw = true;
                grace_report(w, lane, F_GRACE_RAW, s, k, pw, pc, a);
            }
            /* a strong read of a strong write (morally strong: a scope holding both) reads
             * its value, so what this thread does next is ordered after that write (PTX's
             * observation order; a flag read with ld.volatile, then reset with a plain store) */
            if (pw && pw->site && (cur.fl & GA_STRONG) && (pw->fl & GA_STRONG) &&
                (pw->bytes & cur.bytes) &&
                (pw->thread / nthreads == cur.thread / nthreads ||
                 !((pw->fl | cur.fl) & GA_CTA)))
                pw->obs = cur.thread + 1;
            /* one reader kept: the newest, unless the kept one is another thread's and not
             * ordered before this read (then it stays, for a later writer to meet) */
            if (!pr->site || pr->thread == cur.thread ||
                !gconflict(pr, false,
                           &(struct gacc){.site = 1,
                                          .thread = cur.thread,
                                          .tg = cur.tg,
                                          .tc = cur.tc,
                                          .ep = cur.ep,
                                          .step = cur.step,
                                          .wep = cur.wep,
                                          .bytes = pr->bytes},
                           true, g, nthreads))
                *pr = cur;
        }
        a += n;
    }
}

/* Scope of a memory-ordering instruction: true when it is the CTA only. */
static bool scope_cta(const struct ir_insn *in)
{
    return in->scope == SCOPE_CTA;
}

/* Whether instruction in may access global memory (a shared, local, param or const
 * instruction cannot). */
static bool may_be_global(const struct ir_insn *in)
{
    switch (in->space) {
    case SP_SHARED:
    case SP_SHARED_CTA:
    case SP_SHARED_CLUSTER:
    case SP_LOCAL:
    case SP_PARAM:
    case SP_PARAM_ENTRY:
    case SP_PARAM_FUNC:
    case SP_CONST:
        return false;
    default:
        return true;
    }
}

/* Take glock around a strong global access (see check.h). */
bool check_grace_enter(struct warp *w, const struct ir_insn *in)
{
    struct cta *c = w->cta;
    if (!(c->L->check & CHECK_RACECHECK) || !c->chk || !may_be_global(in))
        return false;
    const bool strong = in->op == OP_ATOM || in->op == OP_RED ||
                        ((in->op == OP_LD || in->op == OP_ST) && in->sem != SEM_NONE &&
                         in->sem != SEM_WEAK);
    if (!strong)
        return false;
    pthread_mutex_lock(&c->L->chk->glock);
    return true;
}

/* Release what check_grace_enter took (see check.h). */
void check_grace_leave(struct warp *w)
{
    pthread_mutex_unlock(&w->cta->L->chk->glock);
}

/* Global-memory ordering (see check.h). */
void check_order(struct warp *w, const struct ir_insn *in)
{
    struct cta *c = w->cta;
    if (!(c->L->check & CHECK_RACECHECK) || !c->chk)
        return;
    struct gwarp *g = gwarp_of(w);
    if (in->op == OP_MEMBAR || in->op == OP_FENCE) {
        struct check_launch *k = c->L->chk;
        pthread_mutex_lock(&k->glock);
        gfence(k, g, scope_cta(in));
        pthread_mutex_unlock(&k->glock);
    } else if (in->op == OP_BAR || in->op == OP_BARRIER) {
        if (g->gacq > c->chk->pend_g)
            c->chk->pend_g = g->gacq;
        if (g->cacq > c->chk->pend_c)
            c->chk->pend_c = g->cacq;
    }
}

/* The global accesses of one warp instruction: releases before them, acquires after. */
void chk_grace_accesses(struct warp *w, uint32_t pc, const struct engine_access *acc, unsigned n)
{
    const struct ir_insn *in = &w->fn->insns[pc];
    if (!may_be_global(in))
        return;
    unsigned i = 0;
    while (i < n && acc[i].space != SP_GLOBAL)
        i++;
    if (i == n)
        return;
    const bool atomic = in->op == OP_ATOM || in->op == OP_RED;
    const bool cta = scope_cta(in);
    uint8_t fl = 0;
    if (atomic || (in->sem != SEM_NONE && in->sem != SEM_WEAK))
        fl = GA_STRONG | (cta ? GA_CTA : 0) | (atomic ? GA_RMW : 0);
    const bool rel = in->sem == SEM_RELEASE || in->sem == SEM_ACQ_REL || in->sem == SEM_SC;
    const bool acq = (in->op == OP_ATOM || in->sem == SEM_ACQUIRE || in->sem == SEM_ACQ_REL ||
                      in->sem == SEM_SC) &&
                     in->op != OP_RED;
    struct gwarp *g = gwarp_of(w);
    struct check_launch *k = w->cta->L->chk;
    pthread_mutex_lock(&k->glock);
    const uint32_t g0 = k->gclk, c0 = k->cclk; /* what an acquire sees: not its own release */
    if (rel) {
        k->cclk++;
        if (!cta)
            k->gclk++;
    }
    struct cta *c = w->cta;
    const struct gacc tmpl = {.site = gsite(k, w->fn, pc),
                              .thread = (uint32_t)(c->linear * c->L->nthreads) + w->id * 32,
                              .tg = k->gclk,
                              .tc = k->cclk,
                              .ep = (uint16_t)c->chk_ep,
                              .step = (uint16_t)c->chk_step,
                              .wep = (uint16_t)w->chk_wep,
                              .fl = fl};
    if (tmpl.site) {
        struct gacc t = tmpl;
        for (; i < n; i++)
            if (acc[i].space == SP_GLOBAL) {
                t.thread = tmpl.thread + acc[i].lane;
                grace_access(w, g, pc, acc[i].lane, acc[i].addr, acc[i].width, acc[i].write, &t);
            }
    }
    if (acq) {
        g->cacq = c0;
        if (!cta)
            g->gacq = g0;
    }
    pthread_mutex_unlock(&k->glock);
}
