/*
 * timing/par.c — the worker pool of parallel SM cycles (see par.h).
 *
 * Start of a phase: the caller stores the function, clears `done`, and bumps `gen`; workers
 * wait for `gen` to change. Part t of phase g is run by whoever claims it first (claim[t]
 * from g - 1 to g): its worker, or the caller once it has run part 0 — so a worker the host
 * does not schedule in time costs nothing but its part running on the caller (which part runs
 * on which thread changes no result: a part's SMs are written by one thread at a time). End:
 * `done` counts the parts 1 … n-1 finished; the caller waits for n - 1. Both
 * waits spin SPIN times, then sleep under `mu`: a sleeper registers in `sleepers` (under mu)
 * and re-checks the condition before waiting, and the waker checks `sleepers` after changing
 * the condition (sequentially consistent atomics: one of the two sees the other), so no
 * wake-up is lost and a phase with nobody asleep costs no lock.
 */
#include "timing/par.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#define SPIN 4000

#define HAPPENS_BEFORE(a) TM_HAPPENS_BEFORE(a) /* (par.h) */
#define HAPPENS_AFTER(a) TM_HAPPENS_AFTER(a)

struct tm_pool {
    uint32_t n;
    pthread_t *th;
    uint32_t started;
    tm_pool_fn fn;
    void *ctx;
    _Atomic uint32_t gen;      /* phases started */
    _Atomic uint32_t done;     /* parts 1 … n-1 finished in the current phase */
    _Atomic uint32_t *claim;   /* [n]: the phase (gen) that claimed part t */
    _Atomic uint32_t sleepers; /* threads asleep (or about to be) on cv */
    _Atomic bool quit;
    pthread_mutex_t mu;
    pthread_cond_t cv;         /* workers: a phase started; caller: the phase ended */
};

struct worker_arg {
    struct tm_pool *p;
    uint32_t t;
};

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

void tm_pool_pause(uint32_t i)
{
    if (i % 64 == 63)
        sched_yield();
    else
        relax();
}

/* Wait until (*a == v) != eq: until it changes from v (eq) or becomes v (!eq); spin, then
 * sleep on p->cv. */
static void wait_for(struct tm_pool *p, _Atomic uint32_t *a, uint32_t v, bool eq)
{
    for (int i = 0; i < SPIN; i++) {
        if ((atomic_load(a) == v) != eq)
            return;
        if (i % 64 == 63)
            sched_yield(); /* more threads than free cores: let the one we wait for run */
        else
            relax();
    }
    pthread_mutex_lock(&p->mu);
    atomic_fetch_add(&p->sleepers, 1);
    while ((atomic_load(a) == v) == eq)
        pthread_cond_wait(&p->cv, &p->mu);
    atomic_fetch_sub(&p->sleepers, 1);
    pthread_mutex_unlock(&p->mu);
}

/* Wake the sleepers after a change they may wait for. */
static void wake(struct tm_pool *p)
{
    if (!atomic_load(&p->sleepers))
        return;
    pthread_mutex_lock(&p->mu);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

static void *worker(void *arg)
{
    struct worker_arg *wa = arg;
    struct tm_pool *p = wa->p;
    const uint32_t t = wa->t;
    free(wa);
    uint32_t seen = 0;
    for (;;) {
        wait_for(p, &p->gen, seen, true);
        const uint32_t g = atomic_load(&p->gen);
        seen = g;
        if (atomic_load(&p->quit))
            return NULL;
        uint32_t exp = g - 1;
        if (!atomic_compare_exchange_strong(&p->claim[t], &exp, g))
            continue; /* the caller ran it (or a later phase started) */
        HAPPENS_AFTER(&p->gen);
        p->fn(p->ctx, t);
        HAPPENS_BEFORE(&p->done);
        if (atomic_fetch_add(&p->done, 1) + 1 == p->n - 1)
            wake(p);
    }
}

int tm_pool_create(uint32_t n, struct tm_pool **out)
{
    struct tm_pool *p = calloc(1, sizeof *p);
    if (!p)
        return -ENOMEM;
    p->n = n ? n : 1;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->th = calloc(p->n, sizeof *p->th);
    p->claim = calloc(p->n, sizeof *p->claim);
    if (!p->th || !p->claim) {
        tm_pool_destroy(p);
        return -ENOMEM;
    }
    for (uint32_t t = 1; t < p->n; t++) {
        struct worker_arg *wa = malloc(sizeof *wa);
        if (!wa) {
            tm_pool_destroy(p);
            return -ENOMEM;
        }
        wa->p = p;
        wa->t = t;
        if (pthread_create(&p->th[t], NULL, worker, wa)) {
            free(wa);
            tm_pool_destroy(p);
            return -EAGAIN;
        }
        p->started++;
    }
    *out = p;
    return 0;
}

uint32_t tm_pool_size(const struct tm_pool *p) { return p->n; }

void tm_pool_run(struct tm_pool *p, tm_pool_fn fn, void *ctx)
{
    if (p->n < 2) {
        fn(ctx, 0);
        return;
    }
    p->fn = fn;
    p->ctx = ctx;
    atomic_store(&p->done, 0);
    HAPPENS_BEFORE(&p->gen);
    const uint32_t g = atomic_fetch_add(&p->gen, 1) + 1; /* publishes fn, ctx */
    wake(p);
    fn(ctx, 0);
    for (uint32_t t = 1; t < p->n; t++) { /* the parts no worker has started yet */
        uint32_t exp = g - 1;
        if (atomic_compare_exchange_strong(&p->claim[t], &exp, g)) {
            fn(ctx, t);
            atomic_fetch_add(&p->done, 1);
        }
    }
    wait_for(p, &p->done, p->n - 1, false);
    HAPPENS_AFTER(&p->done);
}

void tm_pool_destroy(struct tm_pool *p)
{
    if (!p)
        return;
    if (p->started) {
        atomic_store(&p->quit, true);
        atomic_fetch_add(&p->gen, 1);
        pthread_mutex_lock(&p->mu);
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        for (uint32_t t = 1; t <= p->started; t++)
            pthread_join(p->th[t], NULL);
    }
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p->th);
    free((void *)p->claim);
    free(p);
}
