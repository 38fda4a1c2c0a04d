/*
 * runtime/stream.c — executing work on the emulated device: kernel launches (validation,
 * parameter block, statistics, fault handling), the device work queue, and device printf
 * flushing.
 *
 * Work queue: operations carry their CUDA ordering constraints as dependencies (rt.h: the
 * stream's previous operation, awaited events, the legacy default stream's barriers); worker
 * threads run whatever is ready, oldest first, so independent streams' kernels run
 * concurrently and the host thread overlaps with device work as on a GPU. A worker starts
 * only when work is ready and every started worker is busy, so a program using one stream
 * has one worker. PTXEMU_SYNC=1 runs work on the calling thread instead.
 *
 * Device printf: the interpreter writes a kernel's output into a memory stream; it reaches
 * stdout at CUDA's flush points (next launch, synchronization, blocking copy, module unload),
 * so host and device output interleave as they do with a GPU.
 */
#include "runtime/rt.h"

#include <stdlib.h>
#include <string.h>

/* ============================================================================ launching */

/* Copy each argument into its slot of the parameter block. */
int rt_build_params(const struct interp_kernel_info *ki, void **args, uint8_t *block)
{
    memset(block, 0, ki->param_size_total);
    if (ki->nparams && !args)
        return RT_ERR_INVALID_VALUE;
    for (unsigned i = 0; i < ki->nparams; i++) {
        if (!args[i])
            return RT_ERR_INVALID_VALUE;
        memcpy(block + ki->param_offset[i], args[i], ki->param_size[i]);
    }
    return RT_OK;
}

/* The --stats line. */
void rt_print_stats(FILE *out, const char *name, const uint32_t grid[3], const uint32_t block[3],
                    const struct interp_stats *st)
{
    fprintf(out,
            "kernel %s grid (%u,%u,%u) block (%u,%u,%u): %llu warp instructions, %llu thread "
            "instructions, %.6f s\n",
            name, grid[0], grid[1], grid[2], block[0], block[1], block[2],
            (unsigned long long)st->warp_insns, (unsigned long long)st->thread_insns, st->seconds);
    fprintf(out,
            "kernel %s: host threads %u, CPU %.6f s (busiest %.6f s), CTAs per thread %llu-%llu, "
            "started within %.6f s, finished within %.6f s\n",
            name, st->host_threads, st->cpu_seconds, st->cpu_max,
            (unsigned long long)st->ctas_min, (unsigned long long)st->ctas_max, st->start_skew,
            st->end_skew);
}

/* RT_DEVLIB_* bits of module m: does it call device printf (vprintf) or malloc/free, whose
 * limits a launch fixes (cudaDeviceSetLimit)? */
static unsigned devlib_of(const struct ir_module *m)
{
    unsigned r = 0;
    for (uint32_t i = 0; m && i < m->nfuncs; i++) {
        const struct ir_func *f = &m->funcs[i];
        if (f->defined)
            continue;
        const char *n = ir_str(m, f->name);
        if (!strcmp(n, "vprintf"))
            r |= RT_DEVLIB_PRINTF;
        else if (!strcmp(n, "malloc") || !strcmp(n, "free"))
            r |= RT_DEVLIB_MALLOC;
    }
    return r;
}

/* Validate a launch and copy its parameters (see rt.h). */
int rt_launch_prepare(struct rt_ctx *c, const struct rt_launch_req *r, struct rt_kernel_op **out)
{
    struct rt_func *f = r->func;
    *out = NULL;
    if (!f)
        return RT_ERR_INVALID_DEVICE_FUNCTION;
    int e = rt_fatbin_load(c, f->fb);
    if (e)
        return e;
    if (!f->kernel) {
        fprintf(stderr, "ptxemu: kernel %s is not in the program's PTX\n", f->name);
        return RT_ERR_INVALID_DEVICE_FUNCTION;
    }
    const struct rt_device *d = &c->dev;
    uint64_t threads = (uint64_t)r->block[0] * r->block[1] * r->block[2];
    for (int i = 0; i < 3; i++)
        if (!r->grid[i] || !r->block[i] || r->grid[i] > d->grid_dim[i] ||
            r->block[i] > d->block_dim[i])
            return RT_ERR_INVALID_CONFIGURATION;
    if (threads > d->threads_per_block)
        return RT_ERR_INVALID_CONFIGURATION;
    if (f->info.max_threads && threads > f->info.max_threads)
        return RT_ERR_INVALID_CONFIGURATION;
    uint64_t dyn_limit = f->max_dynamic_shared
                             ? f->max_dynamic_shared
                             : (d->shared_per_block > f->info.shared_static
                                    ? d->shared_per_block - f->info.shared_static
                                    : 0);
    if (r->shared > dyn_limit || f->info.shared_static + r->shared > d->shared_per_block_optin)
        return RT_ERR_INVALID_VALUE;
    uint32_t cluster[3];
    e = rt_cluster_check(d, &f->info, r->grid, r->cluster, f->nonportable_cluster, cluster);
    if (e)
        return e;
    if (r->cooperative) {
        /* all CTAs must be co-resident: at most what the occupancy calculator says fits */
        uint64_t per_sm = rt_occupancy(d, &f->info, (unsigned)threads, r->shared);
        uint64_t ctas = (uint64_t)r->grid[0] * r->grid[1] * r->grid[2];
        if (ctas > per_sm * d->nsm)
            return RT_ERR_COOPERATIVE_LAUNCH_TOO_LARGE;
    }
    struct rt_kernel_op *k = calloc(1, sizeof *k);
    if (!k || !(k->params = malloc(f->info.param_size_total ? f->info.param_size_total : 1))) {
        free(k);
        return RT_ERR_MEMORY_ALLOCATION;
    }
    e = rt_build_params(&f->info, r->args, k->params);
    if (e) {
        free(k->params);
        free(k);
        return e;
    }
    k->func = f;
    k->gen = atomic_load(&c->gen);
    unsigned dl = atomic_load(&f->devlib);
    if (!(dl & RT_DEVLIB_KNOWN)) {
        dl = RT_DEVLIB_KNOWN | devlib_of(f->info.module);
        atomic_store(&f->devlib, dl);
    }
    if (dl & RT_DEVLIB_PRINTF)
        atomic_store(&c->used_printf, true);
    if (dl & RT_DEVLIB_MALLOC)
        atomic_store(&c->used_malloc, true);
    k->l.kernel = f->kernel;
    memcpy(k->l.grid, r->grid, sizeof k->l.grid);
    memcpy(k->l.block, r->block, sizeof k->l.block);
    k->l.shared_dynamic = (uint32_t)r->shared;
    k->l.params = k->params;
    k->l.cooperative = r->cooperative;
    memcpy(k->l.cluster, cluster, sizeof k->l.cluster);
    *out = k;
    return RT_OK;
}

/* Run a prepared launch and free it (see rt.h). */
void rt_launch_exec(struct rt_ctx *c, struct rt_kernel_op *k)
{
    struct interp_stats st = {0};
    struct trap trap;
    memset(&trap, 0, sizeof trap);
    rt_dev_enter(c);
    pthread_mutex_lock(&c->lock);
    int prior = c->sticky;
    bool stale = k->gen != atomic_load(&c->gen) || !c->idev;
    if (stale && !prior && !c->async_err)
        c->async_err = RT_ERR_CONTEXT_IS_DESTROYED;
    pthread_mutex_unlock(&c->lock);
    if (stale) {
        /* cudaDeviceReset ran between the launch and now: its module is gone */
        fprintf(stderr, "ptxemu: launch of %s dropped: cudaDeviceReset ran after it was "
                        "queued (cudaErrorContextIsDestroyed)\n", k->func->name);
        goto out;
    }
    if (prior) /* a faulted context runs nothing more */
        goto out;
    /* statistics only when printed: they cost two CPU-clock system calls per host thread */
    int lr = c->timing ? rt_timing_launch(c->timing, c->idev, &k->l, c->stats ? &st : NULL, &trap)
                       : interp_launch(c->idev, &k->l, c->stats ? &st : NULL, &trap);
    if (lr < 0) {
        fprintf(stderr, "ptxemu: launch of %s failed: %s\n", k->func->name,
                trap.msg[0] ? trap.msg : "rejected by the device");
        pthread_mutex_lock(&c->lock);
        if (!c->async_err)
            c->async_err = RT_ERR_INVALID_CONFIGURATION;
        pthread_mutex_unlock(&c->lock);
        goto out;
    }
    if (c->stats)
        rt_print_stats(stderr, k->func->name, k->l.grid, k->l.block, &st);
    if (lr == 1) {
        rt_printf_flush(c, true); /* output up to the fault, then the report */
        fflush(stdout);
        if (c->chk)
            interp_check_trap(c->chk, &trap);
        else
            interp_trap_report(stderr, &trap);
        pthread_mutex_lock(&c->lock);
        if (!c->sticky)
            c->sticky = rt_trap_error(trap.kind);
        pthread_mutex_unlock(&c->lock);
    }
out:
    rt_dev_leave(c);
    free(k->params);
    free(k);
}

/* Prepare and run now. */
int rt_launch(struct rt_ctx *c, const struct rt_launch_req *r)
{
    struct rt_kernel_op *k;
    int e = rt_launch_prepare(c, r, &k);
    if (e)
        return e;
    rt_launch_exec(c, k);
    return RT_OK;
}

/* ============================================================================ the queue */

/* Is dependency d done? Caller holds q->mu. */
static bool q_dep_done(const struct rt_queue *q, const struct rt_dep *d)
{
    return d->seq <= q->retired || (d->op && d->op->done);
}

/* Wait until d is done, woken only when it is (not at every completion: a host thread
 * waiting in cudaMemcpy behind 100,000 queued launches sleeps through all of them). Caller
 * holds q->mu; released while sleeping. */
static void q_wait_dep(struct rt_queue *q, struct rt_dep d)
{
    if (q_dep_done(q, &d))
        return;
    struct rt_waiter w = {.d = d, .next = q->waiters};
    pthread_cond_init(&w.cv, NULL);
    q->waiters = &w;
    while (!q_dep_done(q, &w.d))
        pthread_cond_wait(&w.cv, &q->mu);
    struct rt_waiter **pp = &q->waiters;
    while (*pp != &w)
        pp = &(*pp)->next;
    *pp = w.next;
    pthread_cond_destroy(&w.cv);
}

/* Wake the waiters whose dependency is done now. Caller holds q->mu. */
static void q_notify(struct rt_queue *q)
{
    for (struct rt_waiter *w = q->waiters; w; w = w->next)
        if (q_dep_done(q, &w->d))
            pthread_cond_signal(&w->cv);
}

/* Can op start now? Caller holds q->mu. */
static bool q_ready(const struct rt_queue *q, const struct rt_op *op)
{
    for (unsigned i = 0; i < op->ndeps; i++)
        if (!q_dep_done(q, &op->deps[i]))
            return false;
    return true;
}

/* The oldest operation that can start, taken off its stream's list of unstarted work, or
 * NULL; *more tells whether another one could start as well. Only a stream's first unstarted
 * operation can be ready (each follows its predecessor), so this looks at one per stream.
 * Caller holds q->mu. */
static struct rt_op *q_pick(struct rt_queue *q, bool *more)
{
    int best = -1;
    *more = false;
    for (unsigned i = 0; i < q->nsq; i++) {
        struct rt_op *op = q->sq[i].head;
        if (!op || !q_ready(q, op))
            continue;
        if (best >= 0)
            *more = true;
        if (best < 0 || op->seq < q->sq[best].head->seq)
            best = (int)i;
    }
    if (best < 0)
        return NULL;
    struct rt_sq *e = &q->sq[best];
    struct rt_op *op = e->head;
    e->head = op->snext;
    if (!e->head)
        e->tail = NULL;
    return op;
}

/* The record of operation seq, NULL once retired. Caller holds q->mu. */
static struct rt_op *q_find(const struct rt_queue *q, uint64_t seq)
{
    if (seq <= q->retired)
        return NULL;
    for (unsigned i = 0; i < q->nsq; i++)
        if (q->sq[i].last.seq == seq)
            return q->sq[i].last.op;
    for (struct rt_op *op = q->head; op; op = op->next)
        if (op->seq == seq)
            return op;
    return NULL;
}

/* The entry of stream key, made when missing (after dropping entries whose work is all
 * retired); NULL when out of memory. Caller holds q->mu. */
static struct rt_sq *q_stream(struct rt_queue *q, const void *key)
{
    for (unsigned i = 0; i < q->nsq; i++)
        if (q->sq[i].key == key)
            return &q->sq[i];
    for (unsigned i = 0; i < q->nsq;)
        if (!q->sq[i].head && q->sq[i].last.seq <= q->retired)
            q->sq[i] = q->sq[--q->nsq];
        else
            i++;
    if (q->nsq == q->capsq) {
        unsigned cap = q->capsq ? 2 * q->capsq : 8;
        struct rt_sq *n = realloc(q->sq, cap * sizeof *n);
        if (!n)
            return NULL;
        q->sq = n;
        q->capsq = cap;
    }
    struct rt_sq *e = &q->sq[q->nsq++];
    memset(e, 0, sizeof *e);
    e->key = key;
    return e;
}

/* Add dependency seq to op (ignoring done and repeated ones). 0, or -1 when out of memory.
 * Caller holds q->mu. */
static int q_dep_add(struct rt_queue *q, struct rt_op *op, uint64_t seq, struct rt_op *rec)
{
    if (!seq || seq <= q->retired)
        return 0;
    for (unsigned i = 0; i < op->ndeps; i++)
        if (op->deps[i].seq == seq)
            return 0;
    if (!rec)
        rec = q_find(q, seq);
    if (rec && rec->done)
        return 0;
    unsigned cap = op->deps == op->dep_inline ? 4 : op->ndeps;
    if (op->ndeps == cap) {
        size_t ncap = 2 * (size_t)cap;
        struct rt_dep *n = malloc(ncap * sizeof *n);
        if (!n)
            return -1;
        memcpy(n, op->deps, op->ndeps * sizeof *n);
        if (op->deps != op->dep_inline)
            free(op->deps);
        op->deps = n;
    }
    op->deps[op->ndeps++] = (struct rt_dep){seq, rec};
    return 0;
}

static void op_free(struct rt_op *op)
{
    if (op->deps != op->dep_inline)
        free(op->deps);
    free(op);
}

static void *worker_main(void *arg);

/* Start one more worker when work is waiting and no started worker is free. Caller holds
 * q->mu. */
static void q_grow(struct rt_ctx *c)
{
    struct rt_queue *q = &c->q;
    if (q->idle || q->workers >= q->max_workers)
        return;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, 8u << 20); /* host callbacks run user code */
    pthread_t t;
    if (pthread_create(&t, &at, worker_main, c) == 0) {
        pthread_detach(t);
        q->workers++;
        q->idle++; /* counted as idle until it takes its first operation */
    }
    pthread_attr_destroy(&at);
}

static void *worker_main(void *arg)
{
    struct rt_ctx *c = arg;
    struct rt_queue *q = &c->q;
    rt_dev_worker_thread();
    pthread_mutex_lock(&q->mu);
    for (;;) {
        bool more;
        struct rt_op *op = q_pick(q, &more);
        if (!op) {
            pthread_cond_wait(&q->work, &q->mu);
            continue;
        }
        op->started = true;
        q->idle--;
        q->running++;
        if (more) { /* other ready work: an idle worker takes it, or a new one starts */
            q_grow(c);
            pthread_cond_signal(&q->work);
        }
        pthread_mutex_unlock(&q->mu);
        op->fn(c, op->arg);
        pthread_mutex_lock(&q->mu);
        q->running--;
        q->idle++;
        op->done = true;
        while (q->head && q->head->done) {
            struct rt_op *h = q->head;
            q->retired = h->seq;
            q->head = h->next;
            if (!q->head)
                q->tail = NULL;
            op_free(h);
        }
        /* work that waited on op is picked by this worker's next q_pick, which wakes another
         * idle worker when more than one operation is ready */
        q_notify(q);
    }
    return NULL;
}

/* Run fn inline after all earlier work (PTXEMU_SYNC, or no worker). Caller holds q->mu;
 * released and retaken. */
static uint64_t q_inline(struct rt_ctx *c, void (*fn)(struct rt_ctx *c, void *arg), void *arg)
{
    struct rt_queue *q = &c->q;
    uint64_t seq = ++q->submitted;
    q_wait_dep(q, (struct rt_dep){seq - 1, NULL});
    pthread_mutex_unlock(&q->mu);
    fn(c, arg);
    pthread_mutex_lock(&q->mu);
    if (q->retired < seq)
        q->retired = seq;
    q_notify(q);
    return seq;
}

/* Queue work after what o names (see rt.h). */
uint64_t rt_submit(struct rt_ctx *c, const struct rt_order *o,
                   void (*fn)(struct rt_ctx *c, void *arg), void *arg)
{
    struct rt_queue *q = &c->q;
    struct rt_op *op = c->sync ? NULL : calloc(1, sizeof *op);
    pthread_mutex_lock(&q->mu);
    /* back-pressure (RT_QUEUE_DEPTH): wait for the oldest operation; a queue worker (a graph
     * or callback submitting) never waits, the work it would wait for may be its own */
    while (op && q->submitted - q->retired >= RT_QUEUE_DEPTH && !rt_dev_is_worker())
        q_wait_dep(q, (struct rt_dep){q->submitted - RT_QUEUE_DEPTH + 1, NULL});
    if (op && !q->workers)
        q_grow(c);
    const enum rt_order_kind kind = o ? o->kind : RT_ORDER_ALL;
    struct rt_sq *e = op && q->workers ? q_stream(q, o ? o->stream : NULL) : NULL;
    if (!e) {
        free(op);
        uint64_t seq = q_inline(c, fn, arg);
        pthread_mutex_unlock(&q->mu);
        return seq;
    }
    op->fn = fn;
    op->arg = arg;
    op->seq = ++q->submitted;
    op->kind = kind;
    op->deps = op->dep_inline;
    /* the stream's previous operation, the caller's extra ones, and the legacy barriers */
    int err = q_dep_add(q, op, e->last.seq, e->last.op);
    for (int i = 0; o && i < 2; i++)
        if (o->after[i] < op->seq)
            err |= q_dep_add(q, op, o->after[i], NULL);
    for (unsigned i = 0; i < q->nsq; i++) {
        const struct rt_sq *x = &q->sq[i];
        bool follow = kind == RT_ORDER_ALL ||
                      (kind == RT_ORDER_LEGACY && x->kind != RT_ORDER_NONBLOCKING) ||
                      (kind == RT_ORDER_BLOCKING &&
                       (x->kind == RT_ORDER_LEGACY || x->kind == RT_ORDER_ALL));
        if (follow && x != e)
            err |= q_dep_add(q, op, x->last.seq, x->last.op);
    }
    if (err) { /* out of memory for the dependency list: run it in order, here */
        q->submitted--;
        op_free(op);
        uint64_t seq = q_inline(c, fn, arg);
        pthread_mutex_unlock(&q->mu);
        return seq;
    }
    e->kind = kind;
    e->last = (struct rt_dep){op->seq, op};
    if (e->tail)
        e->tail->snext = op;
    else
        e->head = op;
    e->tail = op;
    if (q->tail)
        q->tail->next = op;
    else
        q->head = op;
    q->tail = op;
    if (q_ready(q, op))
        q_grow(c);
    pthread_cond_signal(&q->work);
    uint64_t seq = op->seq;
    pthread_mutex_unlock(&q->mu);
    return seq;
}

/* Wait for work seq (0: all submitted so far). */
void rt_wait(struct rt_ctx *c, uint64_t seq)
{
    struct rt_queue *q = &c->q;
    pthread_mutex_lock(&q->mu);
    if (!seq) /* everything: the retired prefix must reach it */
        q_wait_dep(q, (struct rt_dep){q->submitted, NULL});
    else
        q_wait_dep(q, (struct rt_dep){seq, q_find(q, seq)});
    pthread_mutex_unlock(&q->mu);
}

/* Has work seq completed? */
bool rt_done(struct rt_ctx *c, uint64_t seq)
{
    struct rt_queue *q = &c->q;
    pthread_mutex_lock(&q->mu);
    struct rt_dep d = {seq, q_find(q, seq)};
    bool r = q_dep_done(q, &d);
    pthread_mutex_unlock(&q->mu);
    return r;
}

/* Is every operation of the legacy and blocking streams done? */
bool rt_legacy_idle(struct rt_ctx *c)
{
    struct rt_queue *q = &c->q;
    bool idle = true;
    pthread_mutex_lock(&q->mu);
    for (unsigned i = 0; i < q->nsq && idle; i++)
        idle = q->sq[i].kind == RT_ORDER_NONBLOCKING || q_dep_done(q, &q->sq[i].last);
    pthread_mutex_unlock(&q->mu);
    return idle;
}

/* Move pending device printf output to stdout. Kernels append a launch's output at its end
 * under the stream's lock, so taking that lock gives whole launches; the flag is kept for
 * callers that must not wait (none has to: the lock is held only while output is copied). */
void rt_printf_flush(struct rt_ctx *c, bool blocking)
{
    (void)blocking;
    if (!c->printf_mem)
        return;
    flockfile(c->printf_mem);
    if (fflush(c->printf_mem) == 0 && c->printf_len) {
        fflush(stdout);
        fwrite(c->printf_buf, 1, c->printf_len, stdout);
        fflush(stdout);
        rewind(c->printf_mem);
        fflush(c->printf_mem); /* the length is the position after a flush */
    }
    funlockfile(c->printf_mem);
}
