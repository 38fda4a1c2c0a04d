/*
 * interp/cta.c — one CTA: its warps run round-robin in bounded quanta (so spin-waits on shared
 * or global memory between warps make progress), barriers park and release warps, and a CTA
 * whose live warps are all parked with no barrier able to complete is a deadlock.
 *
 * Barriers count threads: bar.sync / barrier.sync id [, count] by lanes M adds popcount(M);
 * without a count the barrier needs every live (not exited) thread of the CTA, so threads that
 * exited early do not hold it up. bar.arrive counts without waiting; bar.red also reduces a
 * predicate (popc / and / or) whose result every participating thread receives. On sm_70+
 * the paths of a diverged warp arrive at a non-aligned barrier one by one (its.c): each
 * path's lanes wait on their own (warp.bw), the release marks them released in every warp
 * and wakes warps whose paths all waited (CTA_BAR_PATHS).
 *
 * barrier.cluster is split phase: arrive counts the thread without waiting, wait parks until
 * every live thread of the cluster (all its CTAs, struct cluster) arrived in the phase the
 * waiter arrived in; the last arrival releases the waiting warps of every CTA of the cluster.
 * A thread that waits without having arrived, or arrives twice in one phase, is a fault
 * (synccheck's finding under --check synccheck: interp_sync_fault). A
 * CTA whose warps all wait is deadlocked only when no warp of its cluster can run.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "interp/internal.h"
#include "interp/tensor.h"

/* Release barrier id if complete: parked warps resume with their bar.red results. */
static bool try_release(struct cta *c, unsigned id)
{
    struct barrier *b = &c->bars[id];
    if (b->arrived == 0)
        return false;
    uint32_t need = b->expected ? b->expected : c->live_threads;
    if (b->arrived < need)
        return false;
    for (uint32_t i = 0; i < c->nwarps; i++) {
        struct warp *w = &c->warps[i];
        struct its_bw *B = w->bw;
        if (B && B->mask[id]) {
            /* paths waiting at it on their own (its.c): released, with their bar.red results */
            const uint32_t m = B->mask[id];
            B->mask[id] = 0;
            B->wait &= ~m;
            B->done |= m;
            for (unsigned l = 0; l < 32; l++)
                if (m >> l & 1)
                    B->val[l] = B->kind[l] == 1   ? b->popc
                                : B->kind[l] == 2 ? b->red_and
                                : B->kind[l] == 3 ? b->red_or
                                                  : 0;
            if (w->state == WS_PARKED && w->bar_id == CTA_BAR_PATHS) {
                w->state = WS_RUN;
                w->its_bar_yields = 0;
            }
            continue;
        }
        if (w->state != WS_PARKED || w->bar_id != id)
            continue;
        w->state = WS_RUN;
        if (w->bar_red) {
            const uint32_t m = w->bar_mask;
            const unsigned rf = w->bar_dst_rf;
            const uint32_t slot = w->bar_dst_slot;
            const uint32_t v = w->bar_red == 1 ? b->popc : w->bar_red == 2 ? b->red_and : b->red_or;
            if (rf == RF_PRED) {
                w->pred[slot] = (w->pred[slot] & ~m) | (v ? m : 0);
            } else if (rf == RF_B32) {
                for (unsigned l = 0; l < 32; l++)
                    if (m >> l & 1)
                        w->r32[slot][l].u = v;
            }
            /* lanes that stood at it in suspended activations (its.c): in their frames */
            if (w->bar_far)
                its_far_result(w, rf, slot, v);
            w->bar_red = 0;
            w->bar_far = false;
        }
    }
    b->arrived = 0;
    b->nparked = 0;
    c->bar_pending &= ~(1u << id);
    c->chk_ep++; /* racecheck: accesses before and after the barrier are ordered */
    return true;
}

/* Count the arrival of lanes `arrive` of w at barrier id (red > 0: reduce predicates predv of
 * lanes M). Inlined: it runs at every warp's arrival. */
static inline __attribute__((always_inline)) void bar_count(struct warp *w, uint32_t M, uint32_t arrive, unsigned id, unsigned count,
                      int red, uint32_t predv)
{
    struct cta *c = w->cta;
    struct barrier *b = &c->bars[id];
    w->last_bar_id = id;
    w->last_bar_count = count;
    w->last_bar_arrive = arrive;
    if (b->arrived == 0) {
        b->popc = 0;
        b->red_and = true;
        b->red_or = false;
        b->expected = count;
        b->mixed = false;
    } else if ((count ? count : c->L->nthreads) != (b->expected ? b->expected : c->L->nthreads) &&
               !b->mixed) {
        /* no count means every thread of the CTA */
        b->mixed = true;
        b->count2 = count;
    }
    b->arrived += (uint32_t)__builtin_popcount(arrive);
    if (red > 0) {
        uint32_t q = predv & M;
        b->popc += (uint32_t)__builtin_popcount(q);
        if (q != M)
            b->red_and = false;
        if (q)
            b->red_or = true;
    }
    c->bar_pending |= 1u << id;
}

/* A barrier instruction (see internal.h). */
void cta_barrier(struct warp *w, uint32_t M, uint32_t arrive, unsigned id, unsigned count, int red, uint32_t predv,
                 const struct ir_opnd *dst)
{
    struct cta *c = w->cta;
    struct barrier *b = &c->bars[id];
    bar_count(w, M, arrive, id, count, red, predv);
    if (red >= 0) {
        w->state = WS_PARKED;
        w->bar_id = (uint8_t)id;
        w->bar_red = (uint8_t)(red > 0 ? red : 0);
        w->bar_mask = M;
        if (dst && dst->kind == OPK_REG) {
            w->bar_dst_rf = dst->rf;
            w->bar_dst_slot = dst->slot;
        } else {
            w->bar_red = 0;
        }
        b->nparked++;
    }
    try_release(c, id);
}

/* A path's arrival at a non-aligned barrier (see internal.h). */
bool cta_bar_path(struct warp *w, uint32_t pc, uint32_t M, unsigned id, unsigned count, int red,
                  uint32_t predv)
{
    struct cta *c = w->cta;
    struct its_bw *B = w->bw;
    bar_count(w, M, M, id, count, red, predv);
    if (!B->mask[id]) {
        B->pc[id] = pc;
        B->fn[id] = w->fn;
    }
    B->mask[id] |= M;
    B->wait |= M;
    for (unsigned l = 0; l < 32; l++)
        if (M >> l & 1)
            B->kind[l] = (uint8_t)(red > 0 ? red : 0);
    c->bars[id].nparked++;
    try_release(c, id);
    return (B->done & M) != 0;
}

/* ------------------------------------------------------------------ barrier.cluster */

/* Threads of cluster cl that have not exited (CTAs not begun yet count whole). */
static uint32_t cluster_live(const struct cluster *cl, const struct launch_state *L)
{
    return cl->n * L->nthreads - cl->exited;
}

/* Complete the cluster barrier's phase if every live thread of the cluster arrived: waiting
 * warps of every CTA of the cluster resume, and every arrival of the phase counts as completed
 * (a later wait by those lanes goes through). */
static bool cluster_try_release(struct cluster *cl, const struct launch_state *L)
{
    if (cl->arrived == 0 || cl->arrived < cluster_live(cl, L))
        return false;
    for (uint32_t r = 0; r < cl->n; r++) {
        struct cta *c = cl->cta[r];
        if (!c)
            continue;
        for (uint32_t i = 0; i < c->nwarps; i++) {
            struct warp *w = &c->warps[i];
            w->clu_cur = 0;
            if (w->state == WS_PARKED && w->bar_id == CTA_BAR_CLUSTER) {
                w->state = WS_RUN;
                w->clu_arr &= ~w->bar_mask;
            }
        }
        c->chk_ep++;
    }
    cl->arrived = 0;
    cl->phase++;
    cl->pending = false;
    return true;
}

/* barrier.cluster.arrive (see internal.h). */
int cta_cluster_arrive(struct warp *w, uint32_t A)
{
    struct cta *c = w->cta;
    struct cluster *cl = c->clu;
    if (A & w->clu_cur)
        return -1;
    w->last_bar_id = CTA_BAR_CLUSTER;
    w->last_bar_count = 0;
    w->last_bar_arrive = A;
    w->clu_cur |= A;
    w->clu_arr |= A;
    cl->arrived += (uint32_t)__builtin_popcount(A);
    cl->pending = true;
    cluster_try_release(cl, c->L);
    return 0;
}

/* barrier.cluster.wait (see internal.h). */
int cta_cluster_wait(struct warp *w, uint32_t M)
{
    if (M & ~w->clu_arr)
        return -1;
    if (!(M & w->clu_cur)) {
        w->clu_arr &= ~M;
        return 0;
    }
    w->state = WS_PARKED;
    w->bar_id = CTA_BAR_CLUSTER;
    w->bar_red = 0;
    w->bar_mask = M;
    return 1;
}

/* Lanes of w exited (see internal.h); the phase may now be complete (release_pending). */
void cta_lanes_exited(struct warp *w, uint32_t lanes)
{
    struct cluster *cl = w->cta->clu;
    cl->arrived -= (uint32_t)__builtin_popcount(lanes & w->clu_cur);
    cl->exited += (uint32_t)__builtin_popcount(lanes);
    w->clu_cur &= ~lanes;
    w->clu_arr &= ~lanes;
}

/* Try every pending barrier (after threads exited); returns how many were released. */
int cta_release_pending(struct cta *c)
{
    int n = 0;
    for (unsigned id = 0; id < 16; id++)
        if (c->bar_pending >> id & 1)
            n += try_release(c, id);
    if (c->clu->pending)
        n += cluster_try_release(c->clu, c->L);
    return n;
}

/* May another CTA of c's cluster still release c's warps (see internal.h)? */
bool cta_cluster_peer_runs(const struct cta *c)
{
    const struct cluster *cl = c->clu;
    if (cl->n == 1)
        return false;
    if (cl->begun < cl->n)
        return true;
    for (uint32_t r = 0; r < cl->n; r++) {
        const struct cta *p = cl->cta[r];
        if (!p || p == c)
            continue;
        for (uint32_t i = 0; i < p->nwarps; i++)
            if (p->warps[i].state == WS_RUN)
                return true;
    }
    return false;
}

/* Make sure the CTA's buffers fit this launch. */
static int cta_buffers(struct cta *c, struct launch_state *L)
{
    uint32_t nwarps = (L->nthreads + 31) / 32;
    if (c->warps_cap < nwarps) {
        struct warp *ws = realloc(c->warps, nwarps * sizeof *ws);
        if (!ws)
            return -1;
        memset(ws + c->warps_cap, 0, (nwarps - c->warps_cap) * sizeof *ws);
        c->warps = ws;
        c->warps_cap = nwarps;
    }
    size_t sh = L->shared_total ? L->shared_total : 1;
    if (c->shared_cap < sh) {
        free(c->shared_buf);
        c->shared_buf = malloc(sh);
        if (!c->shared_buf)
            return -1;
        c->shared_cap = sh;
    }
    size_t lo = (size_t)nwarps * 32 * L->local_stride;
    if (lo == 0)
        lo = 1;
    if (c->local_cap < lo) {
        free(c->local_buf);
        c->local_buf = calloc(lo, 1);
        if (!c->local_buf)
            return -1;
        c->local_cap = lo;
        for (size_t i = 0; i < c->warps_cap; i++)
            c->warps[i].local_hwm = 0;
        c->local_layout = L->local_stride;
    } else if (c->local_layout != L->local_stride) {
        /* the lanes' areas move: clear what the warps wrote where the old stride put it */
        for (size_t i = 0; i < c->warps_cap; i++) {
            struct warp *w = &c->warps[i];
            for (size_t l = 0; l < 32 && w->local_hwm; l++)
                memset(c->local_buf + (i * 32 + l) * c->local_layout, 0, w->local_hwm);
            w->local_hwm = 0;
        }
        c->local_layout = L->local_stride;
    }
    return 0;
}

/* Free a CTA slot's buffers. */
void cta_free(struct cta *c)
{
    check_cta_free(c);
    wgmma_cta_free(c);
    tcgen05_cta_free(c);
    for (size_t i = 0; i < c->warps_cap; i++)
        warp_free(&c->warps[i]);
    free(c->warps);
    free(c->shared_buf);
    free(c->local_buf);
    memset(c, 0, sizeof *c);
}

/* A thread count as a deadlock report gives it ("all" for 0: every live thread). */
static void count_str(uint32_t count, char *buf, size_t n)
{
    if (count)
        snprintf(buf, n, "%u", count);
    else
        snprintf(buf, n, "all");
}

/* The lowest barrier id lanes of warp w wait at as a path of their own (its.c), or 16. */
static unsigned path_bar(const struct warp *w)
{
    for (unsigned id = 0; w->bw && id < 16; id++)
        if (w->bw->mask[id])
            return id;
    return 16;
}

/* Where warp o waits at barrier id: its instruction (the one it parked after, or for lanes of
 * its own paths the one the first of them waits at) as "NAME+0xPC (FILE:LINE)" into buf. */
static void wait_place(const struct warp *o, unsigned id, char *buf, size_t n)
{
    const struct xfunc *fn = o->fn;
    uint32_t p;
    if (o->bar_id == CTA_BAR_PATHS) {
        fn = o->bw->fn[id];
        p = o->bw->pc[id];
    } else {
        const uint32_t opc = o->stk[o->depth - 1].pc;
        p = opc ? opc - 1 : 0;
    }
    const struct ir_module *m = fn->m;
    const struct ir_insn *in = p < fn->ninsns ? &fn->f->insns[p] : &fn->insns[fn->ninsns];
    snprintf(buf, n, "%s+%#x (%s:%u)", ir_str(m, fn->f->name), p * 16,
             m->filename ? m->filename : "<ptx>", in->line);
}

/* The deadlock report of warp w waiting at CTA barrier id (parked there, or lanes of its
 * paths): how many threads arrived of how many, thread counts that differ within the phase,
 * the lanes of w that wait as paths of their own, and where the warps waiting at the other
 * barriers stand (the first warp at each, with its instruction). */
static void deadlock_msg(const struct cta *c, const struct warp *w, unsigned id, char *msg,
                         size_t n)
{
    const struct barrier *b = &c->bars[id];
    const uint32_t need = b->expected ? b->expected : c->live_threads;
    size_t k = (size_t)snprintf(msg, n, "barrier %u can never complete: %u of %u threads arrived",
                                id, b->arrived, need);
    if (b->mixed && k < n) {
        char c1[16], c2[16];
        count_str(b->expected, c1, sizeof c1);
        count_str(b->count2, c2, sizeof c2);
        k += (size_t)snprintf(msg + k, n - k,
                              " (threads waited for it with different thread counts: %s and %s)",
                              c1, c2);
    }
    if (k < n)
        k += (size_t)snprintf(msg + k, n - k, ", every other live warp is waiting or has exited");
    if (w->bar_id == CTA_BAR_PATHS && k < n)
        k += (size_t)snprintf(msg + k, n - k, "; lanes %08x of warp %u wait at it", w->bw->mask[id],
                              w->id);
    uint32_t shown = 1u << id;
    for (uint32_t i = 0; i < c->nwarps && k < n; i++) {
        const struct warp *o = &c->warps[i];
        if (o->state != WS_PARKED)
            continue;
        /* a warp parked at a barrier, or lanes of its paths waiting at barriers */
        uint32_t ids = 0;
        if (o->bar_id == CTA_BAR_PATHS) {
            for (unsigned j = 0; j < 16; j++)
                if (o->bw->mask[j])
                    ids |= 1u << j;
        } else if (o->bar_id < 16) {
            ids = 1u << o->bar_id;
        }
        for (ids &= ~shown; ids && k < n; ids &= ids - 1) {
            const unsigned ob_id = (unsigned)__builtin_ctz(ids);
            shown |= 1u << ob_id;
            char where[160];
            wait_place(o, ob_id, where, sizeof where);
            k += (size_t)snprintf(msg + k, n - k, "; %u threads wait at barrier %u (warp %u at %s)",
                                  c->bars[ob_id].arrived, ob_id, o->id, where);
        }
    }
}

/* Report a deadlock: every live warp is parked and no barrier can complete (see internal.h). */
void cta_report_deadlock(struct cta *c)
{
    for (uint32_t i = 0; i < c->nwarps; i++) {
        struct warp *w = &c->warps[i];
        if (w->state != WS_PARKED)
            continue;
        char msg[768];
        uint32_t pc = w->stk[w->depth - 1].pc, lane_mask = w->bar_mask;
        if (w->bar_id == CTA_BAR_WGMMA) {
            wgmma_deadlock_msg(w, msg, sizeof msg);
        } else if (w->bar_id == CTA_BAR_CLUSTER) {
            snprintf(msg, sizeof msg,
                     "barrier.cluster can never complete: %u of %u threads of the cluster "
                     "arrived, every other live warp is waiting or has exited",
                     c->clu->arrived, c->clu->n * c->L->nthreads - c->clu->exited);
        } else if (w->bar_id == CTA_BAR_PATHS) {
            /* the warp's paths wait (its.c): at the first barrier lanes of it wait at */
            const unsigned id = path_bar(w);
            pc++; /* the top path stands at its instruction, not past it */
            if (id < 16) {
                deadlock_msg(c, w, id, msg, sizeof msg);
                lane_mask = w->bw->mask[id];
                if (w->bw->fn[id] == w->fn)
                    pc = w->bw->pc[id] + 1;
            } else {
                snprintf(msg, sizeof msg, "the paths of warp %u wait for each other", w->id);
            }
        } else {
            deadlock_msg(c, w, w->bar_id, msg, sizeof msg);
        }
        interp_fault(w, pc ? pc - 1 : 0, (unsigned)__builtin_ctz(lane_mask ? lane_mask : 1),
                     TRAP_DEADLOCK, 0, 0, 0, false, msg);
        return;
    }
}

/*
 * Set up the CTA of rank `rank` of cluster q of launch L in slot c (see internal.h): buffers,
 * barriers, every warp at the kernel's entry. 0, or -1 when out of memory.
 */
int cta_begin(struct cta *c, struct launch_state *L, struct cluster *cl, uint64_t q,
              uint32_t rank)
{
    const uint32_t *g = L->l->grid, *cd = L->cdim;
    (void)q;
    if (cta_buffers(c, L) != 0)
        return -1;
    c->L = L;
    c->clu = cl;
    c->rank = rank;
    c->clc_failed = false;
    const uint32_t cr[3] = {rank % cd[0], rank / cd[0] % cd[1], rank / (cd[0] * cd[1])};
    for (int i = 0; i < 3; i++)
        c->id[i] = cl->id[i] * cd[i] + cr[i];
    c->linear = c->id[0] + (uint64_t)g[0] * (c->id[1] + (uint64_t)g[1] * c->id[2]);
    cl->cta[rank] = c;
    cl->begun++;
    c->nthreads = L->nthreads;
    c->nwarps = (L->nthreads + 31) / 32;
    c->live_threads = L->nthreads;
    c->shared = c->shared_buf;
    c->shared_size = L->shared_total;
    const struct interp_kernel *k = L->k;
    if (k->nshared_zero == UINT32_MAX) {
        memset(c->shared, 0, L->shared_total);
    } else {
        for (uint32_t i = 0; i < k->nshared_zero; i++)
            memset(c->shared + k->shared_zero[i].off, 0, k->shared_zero[i].len);
        if (k->shared_dyn_zero && L->shared_total > k->dyn_shared_offset)
            memset(c->shared + k->dyn_shared_offset, 0, L->shared_total - k->dyn_shared_offset);
    }
    if (L->cfg->fill) /* --fill-uninit: fresh shared memory holds the pattern */
        interp_fill(c->shared, 0, L->shared_total, L->cfg->fill_word);
    c->local_stride = L->local_stride;
    c->local_mem = c->local_buf;
    memset(c->bars, 0, sizeof c->bars);
    c->bar_pending = 0;
    wgmma_cta_reset(c);
    tcgen05_cta_reset(c);
    c->clock0 = 0;
    if (L->check && check_cta_begin(c) != 0)
        return -1;
    for (uint32_t i = 0; i < c->nwarps; i++) {
        uint32_t first = i * 32, n = L->nthreads - first;
        uint32_t valid = n >= 32 ? ~0u : ((1u << n) - 1);
        if (warp_init(&c->warps[i], c, i, L->xf, valid) != 0)
            return -1;
    }
    return 0;
}

/* mbarrier spin deadlocks: a quantum is a spin when it executed at least one failing mbarrier
 * wait per MBW_BODY warp instructions (a try_wait / test_wait loop, perhaps with a nanosleep)
 * on one object whose 8 bytes did not change and no wait of it passed; MBW_ROUNDS such quanta
 * in a row make a warp stuck. */
enum { MBW_BODY = 16, MBW_ROUNDS = 64 };

/* Is w's quantum so far (since mbw_base) nothing but failing waits on its unchanged object? */
static inline bool mbw_spinning(const struct warp *w)
{
    return !w->mbw_moved && (uint64_t)w->mbw_q * MBW_BODY >= w->ninsn - w->mbw_base;
}

/* See internal.h. */
bool cta_mbw_quantum(struct warp *w)
{
    if (w->mbw_q && mbw_spinning(w))
        w->mbw_rounds++;
    else
        w->mbw_rounds = 0;
    w->mbw_q = 0;
    w->mbw_moved = false;
    w->mbw_base = w->ninsn;
    return w->mbw_rounds >= MBW_ROUNDS;
}

/* See internal.h. Every live warp of every CTA of the cluster is either parked at a barrier
 * (a CTA barrier or barrier.cluster) or stuck in an mbarrier spin loop (also in the part of
 * its current quantum it has run: the step API ends warps' quanta at different steps), at
 * least one of them spinning: nothing else can then change the objects (copies, commits and
 * arrivals of this engine complete when issued, and only the cluster's own threads reach its
 * shared memory; one host thread runs all its CTAs, grid.c and the timing model, so their
 * warps' state is current). */
bool cta_mbw_deadlock(struct cta *c)
{
    const struct cluster *cl = c->clu;
    if (cl->begun < cl->n)
        return false; /* a CTA still to begin may arrive */
    struct warp *spin = NULL;
    uint32_t nspin = 0;
    for (uint32_t r = 0; r < cl->n; r++) {
        const struct cta *t = cl->cta[r]; /* (c itself among them) */
        for (uint32_t i = 0; t && i < t->nwarps; i++) {
            struct warp *w = &t->warps[i];
            if (w->state == WS_DONE || w->state == WS_PARKED)
                continue;
            if (w->state != WS_RUN || w->mbw_rounds < MBW_ROUNDS || !mbw_spinning(w))
                return false;
            uint64_t v; /* (another warp may have arrived since this one's last quantum) */
            memcpy(&v, w->mbw_p, 8);
            if (v != w->mbw_v)
                return false;
            if (!spin || (spin->cta != c && t == c))
                spin = w; /* the first spinning warp, of this CTA if it has one */
            nspin++;
        }
    }
    if (!spin)
        return false;
    const struct cta *sc = spin->cta;
    char st[160], msg[600], who[64];
    async_mbar_describe(spin->mbw_p, st, sizeof st);
    if (cl->n == 1)
        snprintf(who, sizeof who, "of the block");
    else
        snprintf(who, sizeof who, "of the cluster's %u blocks", cl->n);
    snprintf(msg, sizeof msg,
             "mbarrier deadlock: warp %u waits for the phase of parity %u of the mbarrier at "
             "shared 0x%x, which can never complete: %s; %u live warp%s %s %s on "
             "mbarrier waits, the others are parked at barriers or have exited",
             spin->id, spin->mbw_want, (unsigned)(spin->mbw_p - sc->shared), st, nspin,
             nspin == 1 ? "" : "s", who, nspin == 1 ? "spins" : "spin");
    interp_fault(spin, spin->mbw_pc, spin->mbw_lane, TRAP_DEADLOCK,
                 (uint64_t)(spin->mbw_p - sc->shared), 8, SP_SHARED, false, msg);
    return true;
}

/*
 * One scheduling round of CTA c: each runnable warp runs one quantum. Returns CTA_RUNNING,
 * CTA_DONE (every warp finished; statistics added to *ninsn / *nthread), or CTA_STOP (a fault
 * was recorded here or elsewhere in the launch).
 */
int cta_round(struct cta *c, uint64_t *ninsn, uint64_t *nthread)
{
    struct launch_state *L = c->L;
    const bool slow = L->trace || L->check; /* the tracing / checking loop */
    const uint64_t budget = L->cfg->insn_budget;
    bool ran = false, live = false;
    int rc = CTA_RUNNING;
    for (uint32_t i = 0; i < c->nwarps; i++) {
        struct warp *w = &c->warps[i];
        if (w->state == WS_DONE)
            continue;
        live = true;
        if (w->state != WS_RUN)
            continue;
        uint64_t before = w->ninsn;
        enum warp_state st = slow ? exec_warp_trace(w) : exec_warp(w);
        ran = true;
        if (st == WS_RUN)
            its_quantum(w); /* a path that makes no progress yields (its.c) */
        /* a quantum of nothing but mbarrier waits no lane passed, on one unchanged object
           (at least one per MBW_BODY instructions: a spin loop), counts towards a deadlock */
        cta_mbw_quantum(w); /* (its quantum began at mbw_base, the count before it ran) */
        if (st == WS_TRAP) {
            rc = CTA_STOP;
            goto done;
        }
        if (budget) {
            uint64_t d = w->ninsn - before;
            uint64_t used = atomic_fetch_add(&L->budget_used, d) + d;
            if (used > budget) {
                char msg[128];
                snprintf(msg, sizeof msg,
                         "instruction budget of %" PRIu64 " warp instructions exhausted", budget);
                uint32_t pc = w->depth ? w->stk[w->depth - 1].pc : 0;
                interp_fault(w, pc, 0, TRAP_BUDGET, 0, 0, 0, false, msg);
                rc = CTA_STOP;
                goto done;
            }
        }
        if (c->bar_pending)
            cta_release_pending(c);
    }
    if (atomic_load_explicit(&L->stop, memory_order_relaxed)) {
        rc = CTA_STOP;
        goto done;
    }
    if (!live) {
        rc = tcgen05_cta_exit(c) ? CTA_STOP : CTA_DONE;
        goto done;
    }
    if (!ran && !cta_release_pending(c) && !cta_cluster_peer_runs(c)) {
        cta_report_deadlock(c);
        rc = CTA_STOP;
        goto done;
    }
    if (ran && cta_mbw_deadlock(c)) {
        rc = CTA_STOP;
        goto done;
    }
    return CTA_RUNNING;
done:
    for (uint32_t i = 0; i < c->nwarps; i++) {
        *ninsn += c->warps[i].ninsn;
        *nthread += c->warps[i].nthread;
    }
    return rc;
}
