/*
 * timing/sm_cta.c — an SM's CTAs: whether it can take one of a kernel (threads, registers,
 * shared memory, CTA slots, concurrent kernels), placing one (its warps, the engine's CTA,
 * the L1s for the kernel's carve-out), retiring it, aborting and stopping a kernel's CTAs.
 * Split from sm.c, whose cycle this serves; what they share is in sm_int.h.
 *
 * Everything here writes only the SM's own state (see tm_int.h).
 */
#include "timing/sm_int.h"
#include "timing/sample.h"

#include "timing/cache.h"
#include "interp/mem.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static int tm_sm_place_cta_(struct tm_sm *s, struct tm_kernel *k, struct engine_cta *ec,
                            uint64_t linear, uint64_t latency);

bool tm_sm_can_take(const struct tm_sm *s, const struct tm_kernel *k)
{
    if (s->ncta >= s->ncta_slots)
        return false;
    if (s->ncta && s->kernel != k && !s->cfg->o.gpgpu_concurrent_kernel_sm)
        return false;
    if (k->cooperative)
        return s->warps_used + k->warps <= s->nwarp_slots;
    uint32_t mine = s->ncta; /* without concurrent kernels every resident CTA is of k (above) */
    if (s->cfg->o.gpgpu_concurrent_kernel_sm) {
        mine = 0;
        for (uint32_t i = 0; i < s->ncta_slots; i++)
            mine += s->cta[i].ec && s->cta[i].k == k;
    }
    if (mine >= k->max_cta_per_sm)
        return false;
    if (s->warps_used + k->warps > s->nwarp_slots)
        return false;
    if (s->cfg->o.gpgpu_ignore_resources_limitation)
        return true;
    return s->regs_used + k->regs_per_cta <= (uint64_t)s->cfg->o.gpgpu_shader_registers &&
           s->shmem_used + k->shmem_per_cta <= k->shmem_per_sm;
}

uint32_t tm_sm_room(const struct tm_sm *s, const struct tm_kernel *k)
{
    if (s->ncta >= s->ncta_slots || !k->warps)
        return 0;
    if (s->ncta && s->kernel != k && !s->cfg->o.gpgpu_concurrent_kernel_sm)
        return 0;
    uint32_t n = s->ncta_slots - s->ncta;
    /* contiguous runs of free warp slots, each holding whole CTAs */
    uint32_t by_warps = 0, run = 0;
    for (uint32_t i = 0; i <= s->nwarp_slots; i++) {
        if (i < s->nwarp_slots && !s->w[i].held) {
            run++;
            continue;
        }
        by_warps += run / k->warps;
        run = 0;
    }
    if (by_warps < n)
        n = by_warps;
    if (k->cooperative || !n)
        return n;
    uint32_t mine = 0;
    for (uint32_t i = 0; i < s->ncta_slots; i++)
        mine += s->cta[i].ec && s->cta[i].k == k;
    uint32_t left = mine < k->max_cta_per_sm ? k->max_cta_per_sm - mine : 0;
    if (left < n)
        n = left;
    if (s->cfg->o.gpgpu_ignore_resources_limitation)
        return n;
    if (k->regs_per_cta) {
        uint64_t free_regs = (uint64_t)s->cfg->o.gpgpu_shader_registers > s->regs_used
                                 ? (uint64_t)s->cfg->o.gpgpu_shader_registers - s->regs_used
                                 : 0;
        if (free_regs / k->regs_per_cta < n)
            n = (uint32_t)(free_regs / k->regs_per_cta);
    }
    if (k->shmem_per_cta) {
        uint32_t free_sh = k->shmem_per_sm > s->shmem_used ? k->shmem_per_sm - s->shmem_used : 0;
        if (free_sh / k->shmem_per_cta < n)
            n = free_sh / k->shmem_per_cta;
    }
    return n;
}

int tm_sm_start_cta(struct tm_sm *s, struct tm_kernel *k, uint64_t linear, uint64_t latency)
{
    return tm_sm_place_cta_(s, k, NULL, linear, latency);
}

int tm_sm_place_cta(struct tm_sm *s, struct tm_kernel *k, struct engine_cta *ec,
                    uint64_t latency)
{
    return tm_sm_place_cta_(s, k, ec, engine_cta_linear(ec), latency);
}

/* Start a CTA of k on s: ec, or (ec NULL) CTA `linear` created here. */
static int tm_sm_place_cta_(struct tm_sm *s, struct tm_kernel *k, struct engine_cta *ec,
                            uint64_t linear, uint64_t latency)
{
    tm_sm_wake(s, s->cycle);
    uint32_t slot = 0;
    while (slot < s->ncta_slots && s->cta[slot].ec)
        slot++;
    uint32_t w0 = 0, run = 0;
    for (uint32_t i = 0; i < s->nwarp_slots && run < k->warps; i++) {
        if (s->w[i].held) {
            run = 0;
            w0 = i + 1;
        } else {
            run++;
        }
    }
    if (slot == s->ncta_slots || run < k->warps)
        return -EBUSY;
    /* a kernel's first CTA here: the L1D starts empty (the GPU invalidates it at a kernel
     * boundary; not with -gpgpu_flush_l1_cache 0) and takes what the kernel's carve-out
     * leaves */
    if (s->l1d_kernel != k->uid && tm_sm_l1_idle(s)) {
        if (!s->ncta) {
            bool keep = !s->cfg->o.gpgpu_flush_l1_cache;
            if (tm_sm_l1d_make(s, k->shmem_per_sm, keep) == -ENOMEM)
                return -ENOMEM;
        } else {
            tm_sm_l1_invalidate(s);
        }
        s->l1d_kernel = k->uid;
        s->cv_lo = s->cv_hi = 0; /* blocks may have been freed and reused since */
    }
    s->l1_fresh = false; /* its warps may access the L1s from now */
    struct tm_cta *c = &s->cta[slot];
    if (ec) {
        c->ec = ec;
    } else {
        int r = engine_cta_create(k->L, linear, &c->ec);
        if (r)
            return r;
    }
    c->k = k;
    c->clu_seen = k->clu_epoch;
    if (k->csize > 1)
        s->nclu++;
    c->warp0 = w0;
    c->nwarps = k->warps;
    c->live = k->warps;
    for (uint32_t i = 0; i < k->warps; i++) {
        struct tm_warp *w = &s->w[w0 + i];
        uint8_t part = w->part, cls = w->cls; /* (cls: the class mask its bit is in) */
        memset(w, 0, sizeof *w);
        w->part = part;
        w->cls = cls;
        w->cta = c;
        occ_set(s, w0 + i, true);
        ibe_mark(s, w);
        w->held = true;
        w->ew = i;
        w->ready_at = s->cycle + latency;
        w->age = s->next_age++;
        struct engine_warp_info info;
        if (engine_warp_query(c->ec, i, &info) == 0) {
            w->func = info.func;
            w->pc = info.pc;
            w->done = info.status == ENGINE_WARP_EXITED;
        }
    }
    s->ncta++;
    s->kernel = k;
    k->live_ctas++;
    s->threads_used += k->threads;
    s->warps_used += k->warps;
    s->regs_used += k->regs_per_cta;
    s->shmem_used += k->shmem_per_cta;
    s->st[TM_ST_CTAS]++;
    s->st[TM_ST_WARPS] += k->warps;
    return 0;
}

static void cta_retire(struct tm_sm *s, struct tm_cta *c)
{
    struct tm_kernel *k = c->k;
    for (uint32_t i = 0; i < c->nwarps; i++) /* hardware warp slots free with their CTA */
        s->w[c->warp0 + i].held = false;
    engine_cta_destroy(c->ec);
    c->ec = NULL;
    c->k = NULL;
    if (k->csize > 1) {
        s->nclu--;
        k->clu_epoch++; /* its exit may complete a barrier.cluster of its peers */
    }
    if (++k->retired == k->wave)
        k->t_wave = s->cycle;
    if (s->cfg->relax_q) { /* (SMs of several threads retire: the largest) */
        uint64_t e = atomic_load_explicit(&k->t_end, memory_order_relaxed);
        while (e < s->cycle + 1 &&
               !atomic_compare_exchange_weak_explicit(&k->t_end, &e, s->cycle + 1,
                                                      memory_order_relaxed, memory_order_relaxed))
            ;
    }
    k->live_ctas--;
    s->ncta--;
    s->threads_used -= k->threads;
    s->warps_used -= k->warps;
    s->regs_used -= k->regs_per_cta;
    s->shmem_used -= k->shmem_per_cta;
}

/* A warp whose lanes all exited and whose instructions all drained leaves its slot. */
void tm_sm_warp_try_finish(struct tm_sm *s, struct tm_warp *w)
{
    if (!w->cta || !w->done || w->inflight || w->mem_pending)
        return;
    struct tm_cta *c = w->cta;
    w->cta = NULL;
    occ_set(s, (uint32_t)(w - s->w), false);
    if (--c->live == 0) {
        engine_cta_exit(c->ec); /* a fault stops the kernel at the loop's next check */
        cta_retire(s, c);
    }
}

void tm_sm_abort(struct tm_sm *s)
{
    if (!s->cta)
        return;
    for (uint32_t i = 0; i < s->ncta_slots; i++)
        if (s->cta[i].ec)
            cta_retire(s, &s->cta[i]);
    for (uint32_t i = 0; i < s->nwarp_slots; i++) {
        s->w[i].cta = NULL;
        s->w[i].held = false;
    }
    s->occ_all = 0;
    if (s->occ)
        memset(s->occ, 0, s->nsched * sizeof *s->occ);
    if (s->wc) { /* no warp runs: no classes, nothing to reclassify */
        memset(s->wc, 0, (size_t)s->nsched * TM_WCLS * sizeof *s->wc);
        memset(s->wc_dirty, 0, s->nsched * sizeof *s->wc_dirty);
    }
    /* drop everything in flight */
    if (s->inst_cap) {
        for (uint32_t i = 0; i < s->inst_cap; i++)
            s->inst[i].next = i + 1 < s->inst_cap ? i + 1 : TM_NONE;
        s->inst_free = 0;
    }
    if (s->mop_cap) {
        for (uint32_t i = 0; i < s->mop_cap; i++)
            s->mop[i].next = i + 1 < s->mop_cap ? i + 1 : TM_NONE;
        s->mop_free = 0;
    }
    for (int f = 0; f < TM_FU__COUNT; f++) {
        if (s->id_oc[f].n)
            memset(s->id_oc[f].n, 0, s->nparts * sizeof *s->id_oc[f].n);
        if (s->oc_ex[f].n)
            memset(s->oc_ex[f].n, 0, (f == TM_FU_MEM ? 1 : s->nparts) * sizeof *s->oc_ex[f].n);
    }
    if (s->coll)
        for (uint32_t i = 0; i < s->nparts * s->ncoll; i++)
            s->coll[i] = TM_NONE;
    memset(s->idoc_n, 0, sizeof s->idoc_n);
    memset(s->coll_n, 0, sizeof s->coll_n);
    s->ldst_cur = TM_NONE;
    s->tma_n = 0;
    s->heap_n = 0;
    s->to_mem.n = s->from_mem.n = s->l1_hit.n = s->l1c_hit.n = 0;
    s->to_net.n = s->net_rep.n = s->net_held = s->rep_held = 0;
    if (s->l1d || s->l1c || s->l1t) /* their MSHRs name abandoned instructions */
        (void)tm_sm_l1d_make(s, 0, false);
}

void tm_sm_stop_kernel(struct tm_sm *s, const struct tm_kernel *k)
{
    for (uint32_t i = 0; i < s->nwarp_slots; i++) {
        struct tm_warp *w = &s->w[i];
        if (!w->cta || w->cta->k != k)
            continue;
        w->done = true;
        w->at_bar = w->at_membar = w->at_async = false;
        w->nib = 0;
        ibe_mark(s, w);
    }
    for (uint32_t i = 0; i < s->nwarp_slots; i++)
        if (s->w[i].cta && s->w[i].cta->k == k)
            tm_sm_warp_try_finish(s, &s->w[i]);
}

bool tm_sm_busy(const struct tm_sm *s)
{
    return s->ncta || s->heap_n || s->tma_n || s->to_mem.n || s->from_mem.n ||
           !tm_sm_l1_idle(s);
}

