/*
 * timing/relax.c — the SM phase of the relaxed timing mode (see relax.h).
 *
 * A phase is one pool run: the SMs to visit (the act mask's, ascending) are claimed one at a
 * time by every thread (or, `fixed`, SM i by thread i mod n); a claimed SM runs all the
 * phase's cycles before the next is claimed, so the threads meet twice per quantum instead
 * of twice per cycle (the exact mode, gpu.c's par_cycle). Inside the quantum nothing stops
 * an SM: steps with effects outside it (global memory, atomics, printf) run when their SM
 * reaches them, on whichever thread runs it, so two SMs' effects within one quantum are
 * ordered by the host (see timing/README.md on what that makes deterministic).
 */
#include "timing/relax.h"

#include "timing/par.h"
#include "timing/tm_int.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>

enum { RX_IDLE, RX_BUSY, RX_STOP, RX_OOM };

struct tm_relax {
    struct tm_sm *sm;
    struct tm_gpu *g;
    uint32_t nsm;
    uint32_t *visit;        /* SMs of the phase, ascending */
    int8_t *res;            /* [visit index]: RX_* */
    uint64_t *at;           /* [visit index]: the next cycle it runs */
    struct tm_relax_stop *stops; /* [nsm]: the SMs that stopped, by (cycle, SM) */
    uint32_t nvisit, nthreads;
    uint64_t to;
    bool fixed, stop;
    _Atomic uint32_t next;  /* the next visit index to claim */
};

int tm_relax_create(struct tm_sm *sm, uint32_t nsm, struct tm_gpu *g, struct tm_relax **out)
{
    struct tm_relax *rx = calloc(1, sizeof *rx);
    if (!rx)
        return -ENOMEM;
    rx->sm = sm;
    rx->g = g;
    rx->nsm = nsm;
    size_t n = nsm ? nsm : 1;
    rx->visit = calloc(n, sizeof *rx->visit);
    rx->res = calloc(n, sizeof *rx->res);
    rx->at = calloc(n, sizeof *rx->at);
    rx->stops = calloc(n, sizeof *rx->stops);
    if (!rx->visit || !rx->res || !rx->at || !rx->stops) {
        tm_relax_destroy(rx);
        return -ENOMEM;
    }
    TM_SYNC_VAR(&rx->next, sizeof rx->next);
    *out = rx;
    return 0;
}

void tm_relax_destroy(struct tm_relax *rx)
{
    if (!rx)
        return;
    free(rx->visit);
    free(rx->res);
    free(rx->at);
    free(rx->stops);
    free(rx);
}

/* Visit j's cycles from at[j] (or the later cycle dispatch started it at) up to `to`, as the
 * serial loop steps an SM in each of them: not busy, it is brought up to the cycle and leaves
 * the loop; asleep, it skips to its wake-up (its response queue does not change during the
 * phase, so nothing else wakes it); with rx->stop, it stops after a cycle in which a CTA of it
 * retired. */
static int8_t sm_quantum(struct tm_relax *rx, uint32_t j)
{
    struct tm_sm *s = &rx->sm[rx->visit[j]];
    const uint64_t to = rx->to;
    uint64_t c = rx->at[j];
    if (s->cycle > c)
        c = s->cycle; /* idle before, dispatch started it at a later cycle (gpu.c's sm_at) */
    for (; c < to; c++) {
        if (!tm_sm_busy(s)) {
            tm_sm_wake(s, c); /* it skipped busy cycles up to this one */
            return RX_IDLE;
        }
        if (tm_sm_asleep(s, c)) {
            if (s->sleep_until >= to)
                break;
            c = s->sleep_until - 1;
            continue;
        }
        const uint32_t ncta = s->ncta;
        s->cycle = c;
        if (tm_sm_cycle(s, rx->g) < 0)
            return RX_OOM;
        if (rx->stop && s->ncta < ncta && c + 1 < to) {
            rx->at[j] = c + 1;
            return RX_STOP;
        }
    }
    rx->at[j] = to;
    return RX_BUSY;
}

/* Part t of a run: the visits still running (res RX_STOP). */
static void phase_part(void *ctx, uint32_t t)
{
    struct tm_relax *rx = ctx;
    if (rx->fixed) {
        for (uint32_t j = 0; j < rx->nvisit; j++)
            if (rx->res[j] == RX_STOP && rx->visit[j] % rx->nthreads == t)
                rx->res[j] = sm_quantum(rx, j);
        return;
    }
    for (;;) {
        uint32_t j = atomic_fetch_add_explicit(&rx->next, 1, memory_order_relaxed);
        if (j >= rx->nvisit)
            return;
        if (rx->res[j] == RX_STOP)
            rx->res[j] = sm_quantum(rx, j);
    }
}

void tm_relax_begin(struct tm_relax *rx, const uint64_t *act, uint64_t from, uint64_t to)
{
    uint32_t n = 0;
    for (uint32_t wi = 0; wi < (rx->nsm + 63) / 64; wi++)
        for (uint64_t am = act[wi]; am; am &= am - 1) {
            rx->visit[n] = wi * 64 + (uint32_t)__builtin_ctzll(am);
            rx->res[n] = RX_STOP; /* (runs at the next tm_relax_run) */
            rx->at[n++] = from;
        }
    rx->nvisit = n;
    rx->to = to;
}

static int stop_cmp(const void *a, const void *b)
{
    const struct tm_relax_stop *x = a, *y = b;
    if (x->cycle != y->cycle)
        return x->cycle < y->cycle ? -1 : 1;
    return x->sm < y->sm ? -1 : x->sm > y->sm;
}

int tm_relax_run(struct tm_relax *rx, struct tm_pool *pool, bool fixed, bool stop,
                 const struct tm_relax_stop **stops)
{
    uint32_t run = 0;
    for (uint32_t j = 0; j < rx->nvisit; j++)
        run += rx->res[j] == RX_STOP;
    rx->fixed = fixed;
    rx->stop = stop;
    rx->nthreads = pool && run > 1 ? tm_pool_size(pool) : 1;
    atomic_store_explicit(&rx->next, 0, memory_order_relaxed);
    if (rx->nthreads > 1)
        tm_pool_run(pool, phase_part, rx); /* (publishes the above) */
    else
        phase_part(rx, 0);
    uint32_t ns = 0;
    for (uint32_t j = 0; j < rx->nvisit; j++) {
        if (rx->res[j] == RX_OOM)
            return -1;
        if (rx->res[j] == RX_STOP)
            rx->stops[ns++] = (struct tm_relax_stop){.cycle = rx->at[j] - 1, .sm = rx->visit[j]};
    }
    qsort(rx->stops, ns, sizeof *rx->stops, stop_cmp);
    *stops = rx->stops;
    return (int)ns;
}

int tm_relax_end(struct tm_relax *rx, uint64_t *act)
{
    int busy = 0;
    for (uint32_t j = 0; j < rx->nvisit; j++) {
        uint32_t i = rx->visit[j];
        if (rx->res[j] == RX_IDLE)
            act[i / 64] &= ~(UINT64_C(1) << (i % 64));
        else
            busy = 1;
    }
    rx->nvisit = 0;
    return busy;
}
