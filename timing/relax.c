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

enum { RX_IDLE, RX_BUSY, RX_OOM };

struct tm_relax {
    struct tm_sm *sm;
    struct tm_gpu *g;
    uint32_t nsm;
    uint32_t *visit;        /* SMs of the phase, ascending */
    int8_t *res;            /* [visit index]: RX_* */
    uint32_t nvisit, nthreads;
    uint64_t from, to;
    bool fixed;
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
    rx->visit = calloc(nsm ? nsm : 1, sizeof *rx->visit);
    rx->res = calloc(nsm ? nsm : 1, sizeof *rx->res);
    if (!rx->visit || !rx->res) {
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
    free(rx);
}

/* Cycles [from, to) of s, as the serial loop steps an SM in each of them: not busy, it is
 * brought up to the cycle and leaves the loop; asleep, it skips to its wake-up (its response
 * queue does not change during the phase, so nothing else wakes it). An SM's cycle is the last
 * it ran, before from, unless dispatch started it at a later cycle of the quantum. */
static int8_t sm_quantum(struct tm_sm *s, struct tm_gpu *g, uint64_t from, uint64_t to)
{
    if (s->cycle > from)
        from = s->cycle; /* idle at from, it got a CTA later in the quantum (gpu.c's sm_at) */
    for (uint64_t c = from; c < to; c++) {
        if (!tm_sm_busy(s)) {
            tm_sm_wake(s, c); /* it skipped busy cycles up to this one */
            return RX_IDLE;
        }
        if (tm_sm_asleep(s, c)) {
            if (s->sleep_until >= to)
                return RX_BUSY;
            c = s->sleep_until - 1;
            continue;
        }
        s->cycle = c;
        if (tm_sm_cycle(s, g) < 0)
            return RX_OOM;
    }
    return RX_BUSY;
}

/* Part t of the phase. */
static void phase_part(void *ctx, uint32_t t)
{
    struct tm_relax *rx = ctx;
    if (rx->fixed) {
        for (uint32_t j = 0; j < rx->nvisit; j++)
            if (rx->visit[j] % rx->nthreads == t)
                rx->res[j] = sm_quantum(&rx->sm[rx->visit[j]], rx->g, rx->from, rx->to);
        return;
    }
    for (;;) {
        uint32_t j = atomic_fetch_add_explicit(&rx->next, 1, memory_order_relaxed);
        if (j >= rx->nvisit)
            return;
        rx->res[j] = sm_quantum(&rx->sm[rx->visit[j]], rx->g, rx->from, rx->to);
    }
}

int tm_relax_run(struct tm_relax *rx, struct tm_pool *pool, uint64_t *act, uint64_t from,
                 uint64_t to, bool fixed)
{
    uint32_t n = 0;
    for (uint32_t wi = 0; wi < (rx->nsm + 63) / 64; wi++)
        for (uint64_t am = act[wi]; am; am &= am - 1)
            rx->visit[n++] = wi * 64 + (uint32_t)__builtin_ctzll(am);
    rx->nvisit = n;
    rx->from = from;
    rx->to = to;
    rx->fixed = fixed;
    rx->nthreads = pool && n > 1 ? tm_pool_size(pool) : 1;
    atomic_store_explicit(&rx->next, 0, memory_order_relaxed);
    if (rx->nthreads > 1)
        tm_pool_run(pool, phase_part, rx); /* (publishes the above) */
    else
        phase_part(rx, 0);
    int busy = 0;
    for (uint32_t j = 0; j < n; j++) {
        uint32_t i = rx->visit[j];
        if (rx->res[j] == RX_OOM)
            return -1;
        if (rx->res[j] == RX_IDLE)
            act[i / 64] &= ~(UINT64_C(1) << (i % 64));
        else
            busy = 1;
    }
    return busy;
}
