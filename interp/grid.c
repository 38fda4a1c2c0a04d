/*
 * interp/grid.c — the CTAs of a launch over a pool of host threads.
 *
 * The unit of work is a thread-block cluster (a CTA when clusters are single CTAs): a worker
 * begins every CTA of a cluster at once and runs them round-robin on its host thread, so they
 * can wait for each other (cluster.c). Workers take runs of consecutive clusters from a shared
 * atomic counter (guided self-scheduling:
 * a share of what is left, at most GRID_CHUNK_MAX, one at a time near the end; one at a time
 * for cooperative grids, whose taken CTAs must all be resident), or, when the
 * configuration asks for `deterministic`, worker i runs CTAs i, i + T, i + 2T, … (a fixed
 * assignment; with the printf FIFO flushed in (CTA, warp, order) order the output repeats).
 * Device memory is shared: atomics are host atomics, so CTAs on different host threads see
 * each other's writes as a GPU's CTAs do. The first fault stops every worker after its
 * current quantum.
 *
 * The host threads are a pool made with the device (grid_pool_create): creating a thread costs
 * milliseconds on some hosts, as long as a whole small kernel, and a launch only wakes the
 * pool (the launching thread sleeps meanwhile; one-thread launches run on it). Pool threads are
 * pinned one per CPU when there are as many as CPUs, and keep their CTA slots (warps,
 * register arenas, shared and local buffers) from launch to launch. Launches that run at the
 * same time (kernels of independent streams, or launches from several host threads) each take
 * a pool of their own: the device keeps a chain of pools, adding one when every pool is busy
 * (at most GRID_MAX_POOLS; past that a launch starts threads of its own for its duration).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "interp/internal.h"

/* Number of host CPUs available to this process. */
unsigned interp_ncpu(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

/* Most consecutive CTAs a worker takes at once. */
#define GRID_CHUNK_MAX 32

/* The next cluster (a CTA, without clusters) worker wk takes, or UINT64_MAX when there is
 * none; next_cta below skips those a try_cancel cancelled. */
static uint64_t take_cta(struct worker *wk)
{
    struct launch_state *L = wk->L;
    if (L->cfg->deterministic) {
        uint64_t i = wk->next_det;
        wk->next_det += L->nworkers;
        return i < L->nclusters ? i : UINT64_MAX;
    }
    if (wk->chunk_next < wk->chunk_end)
        return wk->chunk_next++;
    /* A CTA that spins until a later CTA of the same run starts waits for its own worker: a
     * wait CUDA gives no forward-progress guarantee for either (CTAs waiting on earlier ones,
     * as in chained scans, always progress). */
    /* guided self-scheduling: a run of consecutive CTAs per grab, a share of what is left
     * (at most GRID_CHUNK_MAX, down to one near the end for balance), so each host thread
     * streams through contiguous memory instead of every other CTA's (interleaved CTAs cost
     * the memory-bound kernels a fifth of their speed on two threads: the threads' hardware
     * prefetchers fetched each other's lines) */
    uint64_t n = atomic_load_explicit(&L->next_cta, memory_order_relaxed);
    for (;;) {
        if (n >= L->nclusters)
            return UINT64_MAX;
        uint64_t c = (L->nclusters - n) / (4u * L->nworkers);
        c = c < 1 ? 1 : c > GRID_CHUNK_MAX ? GRID_CHUNK_MAX : c;
        if (L->resident > 1)
            c = 1; /* co-resident grids (cooperative): a taken CTA must become resident now */
        if (atomic_compare_exchange_weak_explicit(&L->next_cta, &n, n + c, memory_order_relaxed,
                                                  memory_order_relaxed)) {
            wk->chunk_next = n + 1;
            wk->chunk_end = n + c;
            return n;
        }
    }
}

/* The next cluster for worker wk to start, or UINT64_MAX when there is none: take_cta's,
 * claimed (clc_claim) so that a try_cancel can no longer cancel it; clusters a try_cancel
 * cancelled, also those in wk's chunk, are skipped (clc.c). */
static uint64_t next_cta(struct worker *wk)
{
    for (;;) {
        const uint64_t q = take_cta(wk);
        if (q == UINT64_MAX || clc_claim(wk->L, q))
            return q;
    }
}

static double mono_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double thread_cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void run_ctas(struct worker *wk);
static void run_slots(struct worker *wk, bool *busy, uint32_t *left, struct cluster *clu);

/* A worker: run CTAs until none is left or the launch stops; its CPU time into wk->cpu when
 * statistics are wanted (the thread CPU clock is a system call, not a vDSO read). */
static void *worker_main(void *arg)
{
    struct worker *wk = arg;
    if (!wk->timed) {
        run_ctas(wk);
        return NULL;
    }
    wk->t_start = mono_now();
    double c0 = thread_cpu();
    run_ctas(wk);
    wk->cpu = thread_cpu() - c0;
    wk->t_end = mono_now();
    return NULL;
}

static void run_ctas(struct worker *wk)
{
    struct launch_state *L = wk->L;
    const unsigned ng = wk->nres / L->csize;
    bool busy_one[64] = {false};
    uint32_t left_one[64];
    struct cluster clu_one[4];
    /* cooperative grids may hold more than 64 CTAs per host thread */
    bool *busy = ng <= 64 ? busy_one : calloc(ng, sizeof *busy);
    uint32_t *left = ng <= 64 ? left_one : calloc(ng, sizeof *left);
    struct cluster *clu = ng <= 4 ? clu_one : calloc(ng, sizeof *clu);
    if (busy && left && clu)
        run_slots(wk, busy, left, clu);
    else
        wk->failed = true;
    if (wk->failed)
        atomic_store(&L->stop, 1);
    if (busy != busy_one)
        free(busy);
    if (left != left_one)
        free(left);
    if (clu != clu_one)
        free(clu);
}

/* run_ctas with the state of the worker's slot groups: a group is csize consecutive slots
 * running the CTAs of one cluster (one slot without clusters), busy until all of them finished
 * (a finished CTA's shared memory stays readable by the others), left[g] of them still
 * running, clu[g] their cluster. The slots run round-robin, a quantum per warp per round, so
 * a cluster's CTAs make progress together on one host thread and wait for each other in
 * barrier.cluster or on each other's shared memory without locks. */
static void run_slots(struct worker *wk, bool *busy, uint32_t *left, struct cluster *clu)
{
    struct launch_state *L = wk->L;
    const uint32_t C = L->csize;
    const unsigned ng = wk->nres / C;
    unsigned nbusy = 0;
    bool more = true;
    wk->next_det = wk->index;
    wk->chunk_next = wk->chunk_end = 0;
    for (;;) {
        while (more && nbusy < ng) {
            if (atomic_load_explicit(&L->stop, memory_order_relaxed))
                return;
            uint64_t q = next_cta(wk);
            if (q == UINT64_MAX) {
                more = false;
                break;
            }
            unsigned g = 0;
            while (busy[g])
                g++;
            cluster_init(&clu[g], L, q);
            for (uint32_t r = 0; r < C; r++) {
                if (cta_begin(&wk->res[g * C + r], L, &clu[g], q, r) != 0) {
                    wk->failed = true;
                    return;
                }
                wk->res[g * C + r].wk = wk;
            }
            busy[g] = true;
            left[g] = C;
            nbusy++;
        }
        if (nbusy == 0)
            return;
        for (unsigned g = 0; g < ng; g++) {
            if (!busy[g])
                continue;
            for (uint32_t r = 0; r < C; r++) {
                struct cta *c = &wk->res[g * C + r];
                if (!c->clu) /* finished, its cluster still running */
                    continue;
                int rc = cta_round(c, &wk->ninsn, &wk->nthread);
                if (rc == CTA_RUNNING) {
                    if (c->spin) {
                        /* maybe waiting for a CTA of another host thread: if that thread
                         * waits for a core, give it this one now, not at the end of our
                         * time slice */
                        c->spin = false;
                        sched_yield();
                    }
                    continue;
                }
                if (rc == CTA_STOP) {
                    atomic_store(&L->stop, 1);
                    return;
                }
                wk->nctas++;
                c->clu = NULL;
                if (--left[g] == 0) {
                    busy[g] = false;
                    nbusy--;
                }
            }
        }
    }
}

/* Free a worker's CTA slots. */
static void slots_free(struct cta *res, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        cta_free(&res[i]);
    free(res);
}

/* ------------------------------------------------------------------ the device's pool */

/* One pool thread (worker index = pool index) and its CTA slots. */
struct pool_thread {
    struct grid_pool *p;
    unsigned index;
    pthread_t thread;
    struct cta *res; /* kept across launches */
    unsigned nres;
};

struct grid_pool {
    pthread_mutex_t use;   /* held by the launch using the pool */
    pthread_mutex_t lock;  /* the fields below */
    pthread_cond_t go;     /* a launch (gen changed) or shutdown */
    pthread_cond_t done;   /* running reached 0 */
    uint64_t gen;          /* launch generation */
    struct worker *wk;     /* this launch's workers (index = pool index) */
    unsigned active;       /* workers of this launch */
    unsigned running;      /* pool threads still working on generation gen */
    bool shutdown;
    unsigned n;            /* pool threads */
    struct pool_thread *th; /* [n] */
    struct pool_thread own; /* CTA slots of one-thread launches, run by the launching thread */
    struct grid_pool *_Atomic next; /* the next pool of the device's chain */
    /* the first pool of a chain only: */
    pthread_mutex_t grow;  /* adding a pool */
    unsigned count;        /* pools in the chain */
    unsigned want;         /* threads per pool */
};

/* Most pools a device keeps: launches running at the same time beyond this many start threads
 * of their own. */
#define GRID_MAX_POOLS 8

static void *pool_main(void *arg)
{
    struct pool_thread *t = arg;
    struct grid_pool *p = t->p;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->shutdown && p->gen == seen)
            pthread_cond_wait(&p->go, &p->lock);
        if (p->shutdown)
            break;
        seen = p->gen;
        if (t->index >= p->active)
            continue;
        struct worker *wk = &p->wk[t->index];
        pthread_mutex_unlock(&p->lock);
        worker_main(wk);
        pthread_mutex_lock(&p->lock);
        if (--p->running == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* When the pool has one thread per CPU this process may run on, pin thread i to the i-th of
 * them: threads that wake together then never queue on one CPU waiting for the scheduler to
 * spread them (on a 2-vCPU VM that wait was milliseconds, a third of a small kernel). A pool
 * smaller than the CPU set stays unpinned, so processes with few threads each (--threads N,
 * several emulator processes on one big host) do not all land on the same first CPUs. */
static void pool_pin(struct grid_pool *p)
{
    cpu_set_t all;
    if (sched_getaffinity(0, sizeof all, &all) != 0 || (unsigned)CPU_COUNT(&all) != p->n)
        return;
    unsigned k = 0;
    for (int c = 0; c < CPU_SETSIZE && k < p->n; c++) {
        if (!CPU_ISSET(c, &all))
            continue;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(c, &one);
        (void)pthread_setaffinity_np(p->th[k++].thread, sizeof one, &one); /* advisory */
    }
}

/* A pool of T host threads (none when T is 1), pinned when pin and they cover the CPU set;
 * fewer threads when the host refuses some. NULL when out of memory. */
static struct grid_pool *pool_new(unsigned T, bool pin)
{
    struct grid_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->th = calloc(T, sizeof *p->th);
    if (!p->th) {
        free(p);
        return NULL;
    }
    pthread_mutex_init(&p->use, NULL);
    pthread_mutex_init(&p->lock, NULL);
    pthread_mutex_init(&p->grow, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->done, NULL);
    p->count = 1;
    p->want = T;
    for (unsigned i = 0; T > 1 && i < T; i++) {
        p->th[i].p = p;
        p->th[i].index = i;
        if (pthread_create(&p->th[i].thread, NULL, pool_main, &p->th[i]) != 0)
            break;
        p->n = i + 1;
    }
    if (pin)
        pool_pin(p);
    return p;
}

/* Stop and join one pool's threads; free it and its CTA slots. */
static void pool_free(struct grid_pool *p)
{
    pthread_mutex_lock(&p->lock);
    p->shutdown = true;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->lock);
    for (unsigned i = 0; i < p->n; i++) {
        pthread_join(p->th[i].thread, NULL);
        slots_free(p->th[i].res, p->th[i].nres);
    }
    slots_free(p->own.res, p->own.nres);
    pthread_cond_destroy(&p->go);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->lock);
    pthread_mutex_destroy(&p->grow);
    pthread_mutex_destroy(&p->use);
    free(p->th);
    free(p);
}

/*
 * Create d's first pool: with two or more threads (the configured count, or every core) that
 * many host threads, sleeping until a launch (pinned one per CPU when they cover the CPU set);
 * with one, none (launches run on the launching thread). 0, or -ENOMEM.
 */
int grid_pool_create(struct interp_dev *d)
{
    struct grid_pool *p = pool_new(d->cfg.threads ? d->cfg.threads : d->ncpu, true);
    if (!p)
        return -ENOMEM;
    d->pool = p;
    return 0;
}

/* Stop and join the threads of d's pools; free their CTA slots. */
void grid_pool_destroy(struct grid_pool *p)
{
    while (p) {
        struct grid_pool *next = atomic_load(&p->next);
        pool_free(p);
        p = next;
    }
}

/* A pool for one launch, its `use` lock held: the first free pool of the chain that starts at
 * first, or a new one (unpinned: it shares the CPUs with the busy ones) appended to it. NULL
 * when there is no chain, or every pool is busy and no more may be added. */
static struct grid_pool *pool_acquire(struct grid_pool *first)
{
    for (struct grid_pool *p = first; p; p = atomic_load(&p->next))
        if (pthread_mutex_trylock(&p->use) == 0)
            return p;
    if (!first)
        return NULL;
    struct grid_pool *np = NULL;
    pthread_mutex_lock(&first->grow);
    if (first->count < GRID_MAX_POOLS && (np = pool_new(first->want, false))) {
        pthread_mutex_lock(&np->use);
        struct grid_pool *last = first;
        while (atomic_load(&last->next))
            last = atomic_load(&last->next);
        atomic_store(&last->next, np);
        first->count++;
    }
    pthread_mutex_unlock(&first->grow);
    return np;
}

/* Give worker wk n CTA slots, reusing (and growing) t's. 0 or -1. */
static int slots_take(struct pool_thread *t, struct worker *wk, unsigned n)
{
    if (t->nres < n) {
        struct cta *r = realloc(t->res, n * sizeof *r);
        if (!r)
            return -1;
        memset(r + t->nres, 0, (n - t->nres) * sizeof *r);
        t->res = r;
        t->nres = n;
    }
    wk->res = t->res;
    return 0;
}

/*
 * Run every CTA of launch L on min(threads, CTAs) host threads (a free pool of the device's,
 * or new threads when all GRID_MAX_POOLS are busy); statistics into st. Returns 0, or -1 when a
 * worker could not get memory.
 */
int grid_run(struct launch_state *L, struct interp_stats *st)
{
    struct grid_pool *p = NULL;
    unsigned T = L->cfg->threads ? L->cfg->threads : L->dev->ncpu; /* counted once per device */
    if (L->trace)
        T = 1; /* one ordered trace */
    if (T > L->nclusters)
        T = (unsigned)L->nclusters;
    if (T == 0)
        T = 1;
    p = pool_acquire(L->dev->pool);
    const bool pooled = p != NULL;
    if (pooled && T > p->n)
        T = p->n ? p->n : 1; /* the host refused some pool threads, or there are none */
    L->nworkers = T;
    /* resident CTAs per worker: all of a cooperative grid must be co-resident (the runtime
     * refuses grids that do not fit the emulated device, cudaErrorCooperativeLaunchTooLarge;
     * a smaller cap here would leave CTAs never started while the others wait in grid.sync) */
    unsigned R = 1;
    if (L->l->cooperative)
        R = (unsigned)((L->nclusters + T - 1) / T);
    L->resident = R;
    R *= L->csize; /* slots: a group of csize per resident cluster */
    struct worker *wk = aligned_alloc(_Alignof(struct worker), T * sizeof *wk);
    if (wk)
        memset(wk, 0, T * sizeof *wk);
    unsigned ready = 0;
    for (; wk && ready < T; ready++) {
        wk[ready].L = L;
        wk[ready].index = ready;
        wk[ready].nres = R;
        wk[ready].timed = st != NULL;
        if (pooled ? slots_take(T > 1 ? &p->th[ready] : &p->own, &wk[ready], R) != 0
                   : !(wk[ready].res = calloc(R, sizeof *wk[ready].res)))
            break;
    }
    if (ready < T) {
        for (unsigned j = 0; !pooled && j < ready; j++)
            free(wk[j].res);
        free(wk);
        if (pooled)
            pthread_mutex_unlock(&p->use);
        return -1;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (pooled && T == 1) {
        worker_main(&wk[0]);
    } else if (pooled) {
        /* every worker on a pool thread; the launching thread sleeps */
        pthread_mutex_lock(&p->lock);
        p->wk = wk;
        p->active = T;
        p->running = T;
        p->gen++;
        pthread_cond_broadcast(&p->go);
        while (p->running)
            pthread_cond_wait(&p->done, &p->lock);
        pthread_mutex_unlock(&p->lock);
    } else {
        unsigned started = 1;
        for (unsigned i = 1; i < T; i++) {
            if (pthread_create(&wk[i].thread, NULL, worker_main, &wk[i]) != 0)
                break;
            started++;
        }
        worker_main(&wk[0]);
        for (unsigned i = 1; i < started; i++)
            pthread_join(wk[i].thread, NULL);
        for (unsigned i = started; i < T; i++)
            worker_main(&wk[i]); /* deterministic assignment of threads that failed to start */
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    int rc = 0;
    double s_lo = 0, s_hi = 0, e_lo = 0, e_hi = 0;
    if (st) {
        st->host_threads = T;
        st->ctas_min = UINT64_MAX;
        s_lo = s_hi = wk[0].t_start;
        e_lo = e_hi = wk[0].t_end;
    }
    for (unsigned i = 0; i < T; i++) {
        if (st) {
            st->warp_insns += wk[i].ninsn;
            st->thread_insns += wk[i].nthread;
            st->ctas += wk[i].nctas;
            st->cpu_seconds += wk[i].cpu;
            st->cpu_max = wk[i].cpu > st->cpu_max ? wk[i].cpu : st->cpu_max;
            st->ctas_min = wk[i].nctas < st->ctas_min ? wk[i].nctas : st->ctas_min;
            st->ctas_max = wk[i].nctas > st->ctas_max ? wk[i].nctas : st->ctas_max;
            s_lo = wk[i].t_start < s_lo ? wk[i].t_start : s_lo;
            s_hi = wk[i].t_start > s_hi ? wk[i].t_start : s_hi;
            e_lo = wk[i].t_end < e_lo ? wk[i].t_end : e_lo;
            e_hi = wk[i].t_end > e_hi ? wk[i].t_end : e_hi;
        }
        if (wk[i].failed)
            rc = -1;
        if (!pooled)
            slots_free(wk[i].res, R);
    }
    if (pooled)
        pthread_mutex_unlock(&p->use);
    if (st) {
        st->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
        st->start_skew = s_hi - s_lo;
        st->end_skew = e_hi - e_lo;
    }
    free(wk);
    return rc;
}
