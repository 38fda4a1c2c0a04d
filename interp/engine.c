/*
 * interp/engine.c — the engine seam (interp/engine.h): launches, CTAs and warps driven one
 * warp instruction at a time, for drivers other than the functional grid runner (grid.c).
 *
 * The launch set-up is launch.c's (the same as a functional launch); CTAs are cta.c's; a step
 * is the slow loop of exec_slow.c run for one instruction, whose report this file completes
 * from the instruction and the warp's state before and after.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "interp/engine.h"
#include "interp/internal.h"
#include "interp/tensor.h"

struct engine_cta;

struct engine_launch {
    struct launch_state L;
    _Atomic unsigned live; /* CTAs created and not yet destroyed */
    /* destroyed single CTAs kept with their buffers (warp arenas, shared and local memory)
     * for the next engine_cta_create: a timing run creates one CTA per dispatch, and freeing
     * and re-allocating half a megabyte of buffers each time cost page faults (the heap
     * trims freed memory back to the kernel) */
    pthread_mutex_t pool_mu;
    struct engine_cta *pool;
};

struct engine_cluster;

struct engine_cta {
    struct cta c;
    struct engine_launch *el;
    struct engine_cta *next;     /* the launch's pool of destroyed CTAs */
    struct cluster own;          /* a cluster of one: the CTA's own */
    struct engine_cluster *grp;  /* a cluster of several: shared with its peers, or NULL */
};

/* A cluster of several CTAs: its state and members, freed with its last member. */
struct engine_cluster {
    struct cluster cl;
    uint32_t refs;               /* members not yet destroyed */
    struct engine_cta *m[CLU_MAX];
};

/* ------------------------------------------------------------------ launches */

/* Validate a launch and create its state (see engine.h). */
int engine_launch_begin(struct interp_dev *d, const struct interp_launch *l, struct trap *trap,
                        struct engine_launch **out)
{
    *out = NULL;
    struct engine_launch *el = calloc(1, sizeof *el);
    if (!el)
        return -ENOMEM;
    int rc = launch_prepare(d, l, trap, &el->L);
    if (rc != 0) {
        free(el);
        return rc;
    }
    el->L.nworkers = 1;
    el->L.resident = 1;
    el->L.check = 0; /* stepping runs no checks (exec_slow.c); no shadow state per CTA */
    pthread_mutex_init(&el->pool_mu, NULL);
    *out = el;
    return 0;
}

/* Route the launch's clock reads through fn (see engine.h). */
void engine_launch_set_clock(struct engine_launch *el, engine_clock_fn fn, void *ctx)
{
    el->L.clock_fn = fn;
    el->L.clock_ctx = ctx;
}

/* CTAs in the grid. */
uint64_t engine_launch_ctas(const struct engine_launch *el)
{
    return el->L.nctas;
}

/* Threads per CTA. */
uint32_t engine_launch_threads(const struct engine_launch *el)
{
    return el->L.nthreads;
}

/* Warps per CTA. */
uint32_t engine_launch_warps(const struct engine_launch *el)
{
    return (el->L.nthreads + 31) / 32;
}

/* Has a fault been recorded? */
bool engine_launch_trapped(const struct engine_launch *el)
{
    return atomic_load(&el->L.stop) != 0;
}

/* End the launch (see engine.h). */
int engine_launch_end(struct engine_launch *el, struct interp_stats *st)
{
    struct launch_state *L = &el->L;
    if (st) {
        st->warp_insns += atomic_load(&L->eng_ninsn);
        st->thread_insns += atomic_load(&L->eng_nthread);
        st->ctas += atomic_load(&L->eng_nctas);
    }
    while (el->pool) {
        struct engine_cta *ec = el->pool;
        el->pool = ec->next;
        cta_free(&ec->c);
        free(ec);
    }
    pthread_mutex_destroy(&el->pool_mu);
    launch_finish(L);
    int rc = L->trapped ? 1 : 0;
    free(el);
    return rc;
}

/* ------------------------------------------------------------------ CTAs */

/* CTAs per cluster. */
uint32_t engine_launch_cluster_size(const struct engine_launch *el)
{
    return el->L.csize ? el->L.csize : 1;
}

/* Create the CTAs of cluster q together (see engine.h). */
int engine_cluster_create(struct engine_launch *el, uint64_t q, struct engine_cta **out)
{
    const uint32_t C = engine_launch_cluster_size(el);
    if (C == 1)
        return q < el->L.nctas ? engine_cta_create(el, q, out) : -EINVAL;
    if (q >= el->L.nctas / C || C > CLU_MAX)
        return -EINVAL;
    if (!clc_claim(&el->L, q))
        return -ECANCELED;
    struct engine_cluster *g = calloc(1, sizeof *g);
    if (!g)
        return -ENOMEM;
    cluster_init(&g->cl, &el->L, q);
    for (uint32_t r = 0; r < C; r++) {
        struct engine_cta *ec = calloc(1, sizeof *ec);
        if (ec) {
            ec->el = el;
            ec->grp = g;
            g->m[r] = ec;
        }
        if (!ec || cta_begin(&ec->c, &el->L, &g->cl, q, r) != 0) {
            for (uint32_t i = 0; i <= r; i++)
                if (g->m[i]) {
                    cta_free(&g->m[i]->c);
                    free(g->m[i]);
                }
            free(g);
            return -ENOMEM;
        }
    }
    g->refs = C;
    for (uint32_t r = 0; r < C; r++)
        out[r] = g->m[r];
    atomic_fetch_add(&el->live, C);
    return 0;
}

/* Create CTA `linear` (see engine.h). */
int engine_cta_create(struct engine_launch *el, uint64_t linear, struct engine_cta **out)
{
    *out = NULL;
    if (linear >= el->L.nctas || engine_launch_cluster_size(el) > 1)
        return -EINVAL;
    if (!clc_claim(&el->L, linear))
        return -ECANCELED;
    /* a destroyed CTA's record and buffers first (cta_begin reuses buffers that fit, as the
     * grid runner's slots do) */
    pthread_mutex_lock(&el->pool_mu);
    struct engine_cta *ec = el->pool;
    if (ec)
        el->pool = ec->next;
    pthread_mutex_unlock(&el->pool_mu);
    if (!ec && !(ec = calloc(1, sizeof *ec)))
        return -ENOMEM;
    ec->el = el;
    ec->next = NULL;
    cluster_init(&ec->own, &el->L, linear);
    if (cta_begin(&ec->c, &el->L, &ec->own, linear, 0) != 0) {
        cta_free(&ec->c);
        free(ec);
        return -ENOMEM;
    }
    atomic_fetch_add(&el->live, 1);
    *out = ec;
    return 0;
}

/* Was cluster q cancelled by a try_cancel (see engine.h)? */
bool engine_cluster_canceled(const struct engine_launch *el, uint64_t q)
{
    const struct launch_state *L = &el->L;
    return L->clc && q < L->nclusters && atomic_load(&L->clc[q]) == CLC_CANCELED;
}

/* The CTA's linear index. */
uint64_t engine_cta_linear(const struct engine_cta *ec)
{
    return ec->c.linear;
}

/* The CTA's (x, y, z) id. */
void engine_cta_id(const struct engine_cta *ec, uint32_t id[3])
{
    memcpy(id, ec->c.id, sizeof ec->c.id);
}

/* Retire a CTA: its counts go to the launch (see engine.h). */
void engine_cta_destroy(struct engine_cta *ec)
{
    if (!ec)
        return;
    struct launch_state *L = &ec->el->L;
    uint64_t ni = 0, nt = 0;
    for (uint32_t i = 0; i < ec->c.nwarps; i++) {
        ni += ec->c.warps[i].ninsn;
        nt += ec->c.warps[i].nthread;
    }
    atomic_fetch_add(&L->eng_ninsn, ni);
    atomic_fetch_add(&L->eng_nthread, nt);
    atomic_fetch_add(&L->eng_nctas, 1);
    atomic_fetch_sub(&ec->el->live, 1);
    struct engine_cluster *g = ec->grp;
    if (g) { /* peers may still read its shared memory: freed with the last member */
        for (uint32_t i = 0; i < ec->c.nwarps; i++)
            ec->c.warps[i].ninsn = ec->c.warps[i].nthread = 0; /* counted once */
        if (--g->refs)
            return;
        for (uint32_t r = 0; r < g->cl.n; r++) {
            cta_free(&g->m[r]->c);
            free(g->m[r]);
        }
        free(g);
        return;
    }
    ec->c.clu = NULL;
    pthread_mutex_lock(&ec->el->pool_mu);
    ec->next = ec->el->pool;
    ec->el->pool = ec;
    pthread_mutex_unlock(&ec->el->pool_mu);
}

/* Release completed barriers, or detect a deadlock (see engine.h). */
int engine_cta_release(struct engine_cta *ec)
{
    struct cta *c = &ec->c;
    int n = cta_release_pending(c);
    if (n > 0)
        return n;
    bool live = false;
    for (uint32_t i = 0; i < c->nwarps; i++) {
        enum warp_state s = c->warps[i].state;
        if (s == WS_RUN || s == WS_TRAP)
            return 0;
        live |= s == WS_PARKED;
    }
    if (!live || cta_cluster_peer_runs(c))
        return 0;
    cta_report_deadlock(c);
    return -1;
}

/* Has every warp exited? */
bool engine_cta_done(const struct engine_cta *ec)
{
    for (uint32_t i = 0; i < ec->c.nwarps; i++)
        if (ec->c.warps[i].state != WS_DONE)
            return false;
    return true;
}

/* End-of-CTA checks (see engine.h). */
int engine_cta_exit(struct engine_cta *ec)
{
    return tcgen05_cta_exit(&ec->c) ? -1 : 0;
}

/* ------------------------------------------------------------------ warps */

/* Apply pending reconvergence: pop SIMT entries whose pc reached their reconvergence pc, as
 * the loop's fetch does before it executes anything. */
static void settle(struct warp *w)
{
    while (w->state == WS_RUN && w->depth > 0) {
        const struct simt_entry *top = &w->stk[w->depth - 1];
        if (top->pc != top->rpc && top->mask != 0)
            return;
        uint32_t before = w->depth;
        warp_reconverge(w);
        if (w->depth == before)
            return;
    }
    if (w->state == WS_RUN && w->depth == 0)
        w->state = WS_DONE;
}

/* A warp's state (see engine.h). */
int engine_warp_query(struct engine_cta *ec, uint32_t warp, struct engine_warp_info *out)
{
    memset(out, 0, sizeof *out);
    if (warp >= ec->c.nwarps)
        return -EINVAL;
    struct warp *w = &ec->c.warps[warp];
    settle(w);
    switch (w->state) {
    case WS_RUN: out->status = ENGINE_WARP_READY; break;
    case WS_PARKED: out->status = ENGINE_WARP_BARRIER; break;
    case WS_DONE: out->status = ENGINE_WARP_EXITED; break;
    default: out->status = ENGINE_WARP_FAULTED; break;
    }
    out->valid = w->valid;
    out->exited = w->exited;
    out->simt_depth = w->depth;
    out->bar_id = w->state == WS_PARKED ? w->bar_id : 0;
    if (w->fn)
        out->func = w->fn->f;
    if (w->depth > 0 && w->state != WS_DONE) {
        out->pc = w->stk[w->depth - 1].pc;
        out->active = w->stk[w->depth - 1].mask;
    }
    return 0;
}

/* ------------------------------------------------------------------ stepping */

/* Execute one warp instruction and report it (see engine.h). */
int engine_step(struct engine_cta *ec, uint32_t warp, struct engine_step_report *r)
{
    if (warp >= ec->c.nwarps)
        return -EINVAL;
    struct warp *w = &ec->c.warps[warp];
    settle(w);
    if (w->state != WS_RUN)
        return -EAGAIN;
    memset(r, 0, offsetof(struct engine_step_report, access));
    const uint32_t depth0 = w->depth;
    const uint32_t exited0 = w->exited;
    const struct xfunc *fn0 = w->fn;
    w->last_bar_id = UINT32_MAX;
    enum warp_state st = exec_warp_step(w, r);
    settle(w);
    if (w->its && w->state == WS_RUN && ++w->its_steps >= w->cta->L->quantum) {
        w->its_steps = 0; /* a quantum of steps: the functional loop's ITS trigger (its.c) */
        its_quantum(w);
    }
    /* a quantum of steps: mbarrier spin deadlocks are judged as the functional loop does */
    if (w->state == WS_RUN && w->ninsn - w->mbw_base >= w->cta->L->quantum) {
        if (cta_mbw_quantum(w) && cta_mbw_deadlock(&ec->c))
            r->flags |= ENGINE_STEP_FAULT; /* recorded as the launch's fault */
    }
    st = w->state;

    const struct ir_insn *in = r->insn;
    const struct ir_insn *xin = &fn0->insns[r->pc]; /* the engine's copy: its handler id */
    r->unit = in ? in->unit : U_CTRL;
    r->lat = in ? in->lat : LAT_DEFAULT;
    if (r->exec_mask)
        r->flags |= ENGINE_STEP_EXECUTED;
    const unsigned iflags = in ? in->iflags : IF_RET;
    const unsigned op = in ? in->op : OP_RET;
    if (r->exec_mask && (iflags & IF_BRANCH) && op != OP_CALL && op != OP_RET &&
        op != OP_EXIT) {
        r->flags |= ENGINE_STEP_BRANCH;
        r->taken = r->exec_mask;
        r->target = xin->target != IR_NOPC ? xin->target : 0;
        r->reconv = in->reconv;
        if (w->depth > depth0)
            r->flags |= ENGINE_STEP_DIVERGED;
    }
    if (r->exec_mask && (iflags & IF_CALL)) {
        r->flags |= ENGINE_STEP_CALL;
        r->target = 0;
    }
    if (r->exec_mask && (iflags & IF_RET || !in))
        r->flags |= ENGINE_STEP_RET;
    if (r->exec_mask && op == OP_EXIT)
        r->flags |= ENGINE_STEP_EXIT;
    if (w->exited != exited0 && !(r->flags & ENGINE_STEP_RET))
        r->flags |= ENGINE_STEP_EXIT;
    if (w->last_bar_id != UINT32_MAX) {
        r->flags |= ENGINE_STEP_BARRIER;
        r->bar_id = w->last_bar_id;
        r->bar_count = w->last_bar_count;
        r->bar_arrived = w->last_bar_arrive;
    }
    if (r->exec_mask && op == OP_NANOSLEEP && xin->nopnd >= 1) {
        /* the delay of the first lane that ran it: an immediate lives in a constant slot */
        const struct ir_opnd *o = &fn0->opnds[xin->opnd];
        const unsigned lane = (unsigned)__builtin_ctz(r->exec_mask);
        r->sleep_ns = o->kind == OPK_IMM ? (uint32_t)o->imm.u : w->r32[o->slot][lane].u;
    }
    if (r->exec_mask && in && in->unit == U_TENSOR) {
        /* a multiply-accumulate's work, for the timing model's tensor-core rates */
        struct tensor_work tw;
        if (tensor_work_mma(fn0->f, xin, &tw) || wgmma_work(fn0->f, xin, &tw) ||
            tcgen05_work(w, fn0->f, r->exec_mask, xin, &fn0->opnds[xin->opnd], &tw)) {
            r->tc_macs = tw.macs;
            r->tc_bytes = tw.bytes;
            r->tc_class = tw.cls;
            r->tc_pair = tw.pair;
        }
    }
    if (r->exec_mask && (iflags & (IF_LOAD | IF_STORE | IF_ATOMIC)))
        r->flags |= ENGINE_STEP_MEMORY;
    if (r->exec_mask && (iflags & IF_ATOMIC)) {
        r->flags |= ENGINE_STEP_ATOMIC;
        r->atomic_op = in->mode;
    }
    if (st == WS_PARKED)
        r->flags |= ENGINE_STEP_PARKED;
    if (st == WS_TRAP)
        r->flags |= ENGINE_STEP_FAULT;
    if (st == WS_DONE)
        r->flags |= ENGINE_STEP_WARP_DONE;
    if ((st == WS_RUN || st == WS_PARKED) && w->depth > 0) {
        r->next_pc = w->stk[w->depth - 1].pc;
        r->active_after = st == WS_RUN ? w->stk[w->depth - 1].mask : 0;
        r->next_func = w->fn->f;
    }
    return 0;
}
