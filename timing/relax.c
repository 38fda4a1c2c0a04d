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

/* A visit's state after a run: idle (left the loop), busy at `to`, to run (RX_STOP: also the
 * relaxed mode's stop after a retire), out of memory; the lookahead mode (ordered) adds: held
 * after a retire for the dispatch at at[j] (RX_HOLD), blocked in cycle at[j] before a step with
 * effects outside the SM (RX_BLOCK: tm_sm_resume runs the rest when its key is the least). */
enum { RX_IDLE, RX_BUSY, RX_STOP, RX_OOM, RX_HOLD, RX_BLOCK };

/* The lookahead mode's order of events: (cycle, kind, SM), kind 0 a dispatch at the start of
 * the cycle, 1 the SM's steps with effects outside it in that cycle. A visit publishes the key
 * of its next possible event (a lower bound while it runs); KEY_DONE: none left in the phase. */
#define KEY(c, kind, sm) ((uint64_t)(c) << 17 | (uint64_t)(kind) << 16 | (uint64_t)(sm))
#define KEY_DONE UINT64_MAX

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
    /* the lookahead mode (ordered, -ptxemu_timing_lookahead): per visit index the key of
     * its next event (KEY), its state (RX_*: read by every thread, written by the one that
     * holds it), whether a thread holds it (grab), and the CTAs it had at the start of the
     * cycle it is blocked in */
    bool ordered;
    _Atomic uint64_t *key;
    _Atomic int8_t *ares;
    _Atomic uint8_t *grab;
    uint32_t *ncta0;
    _Atomic bool oom;
    /* work the caller's part runs first at the next run (tm_relax_set_pre): the memory
     * system's next window, overlapped with the other threads' SMs */
    void (*pre)(void *);
    void *pre_ctx;
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
    rx->ordered = g && tm_gpu_config(g)->relax_ordered;
    if (rx->ordered) {
        rx->key = calloc(n, sizeof *rx->key);
        rx->ares = calloc(n, sizeof *rx->ares);
        rx->grab = calloc(n, sizeof *rx->grab);
        rx->ncta0 = calloc(n, sizeof *rx->ncta0);
    }
    if (!rx->visit || !rx->res || !rx->at || !rx->stops ||
        (rx->ordered && (!rx->key || !rx->ares || !rx->grab || !rx->ncta0))) {
        tm_relax_destroy(rx);
        return -ENOMEM;
    }
    TM_SYNC_VAR(&rx->next, sizeof rx->next);
    if (rx->ordered) {
        TM_SYNC_VAR(rx->key, n * sizeof *rx->key);
        TM_SYNC_VAR(rx->ares, n * sizeof *rx->ares);
        TM_SYNC_VAR(rx->grab, n * sizeof *rx->grab);
        TM_SYNC_VAR(&rx->oom, sizeof rx->oom);
    }
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
    free((void *)rx->key);
    free((void *)rx->ares);
    free((void *)rx->grab);
    free(rx->ncta0);
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

/* The caller's part of a run (part 0) first does its own work, once (rx->pre: the memory
 * system's window), while the other threads run SMs. */
static void run_pre(struct tm_relax *rx)
{
    if (rx->pre) {
        void (*pre)(void *) = rx->pre;
        rx->pre = NULL;
        pre(rx->pre_ctx);
    }
}

/* Part t of a run: the visits still running (res RX_STOP). */
static void phase_part(void *ctx, uint32_t t)
{
    struct tm_relax *rx = ctx;
    if (!t)
        run_pre(rx);
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

/* ---------------------------------------------------------------- the lookahead mode */

static inline void key_set(struct tm_relax *rx, uint32_t j, uint64_t k)
{
    TM_HAPPENS_BEFORE(&rx->key[j]); /* (for helgrind: what this SM did is ordered before) */
    atomic_store_explicit(&rx->key[j], k, memory_order_release);
}

/* The least key of the phase's SMs now. Keys only grow, so a blocked SM (whose key does not
 * change) whose key equals a least key read earlier is still the least: no SM has an event
 * before its steps, and what the SMs with lesser keys did before they published greater ones
 * (their global steps) is visible after these acquiring loads. (Keys are distinct: they hold
 * the SM.) */
static uint64_t key_least(struct tm_relax *rx)
{
    uint64_t m = KEY_DONE;
    for (uint32_t i = 0; i < rx->nvisit; i++) {
        uint64_t k = atomic_load_explicit(&rx->key[i], memory_order_acquire);
        m = k < m ? k : m;
    }
    return m;
}

/* Visit j (held by the caller) in the lookahead mode, from the state res: blocked, the rest
 * of its cycle (its key is the least: its steps with effects outside the SM come next in
 * (cycle, SM) order); then its cycles as sm_quantum runs them, publishing before each the key
 * of the cycle, until one stops before such a step (RX_BLOCK, at[j] that cycle), or, with
 * rx->stop, after a cycle in which a CTA retired (RX_HOLD, at[j] the next cycle, whose
 * dispatch the caller serves in key order), or the SM is idle or at `to`. */
static int8_t sm_ordered(struct tm_relax *rx, uint32_t j, int8_t res)
{
    const uint32_t id = rx->visit[j];
    struct tm_sm *s = &rx->sm[id];
    const uint64_t to = rx->to;
    uint64_t c = rx->at[j];
    if (res == RX_BLOCK) {
        if (tm_sm_resume(s, rx->g) < 0)
            return RX_OOM;
        if (rx->stop && s->ncta < rx->ncta0[j] && c + 1 < to) {
            rx->at[j] = c + 1;
            key_set(rx, j, KEY(c + 1, 0, id));
            return RX_HOLD;
        }
        c++;
    } else if (s->cycle > c) {
        c = s->cycle; /* dispatch started it at a later cycle */
    }
    for (; c < to; c++) {
        key_set(rx, j, KEY(c, 1, id));
        if (!tm_sm_busy(s)) {
            tm_sm_wake(s, c);
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
        s->par = true;
        int r = tm_sm_cycle(s, rx->g);
        s->par = false;
        if (r < 0)
            return RX_OOM;
        if (r > 0) {
            rx->ncta0[j] = ncta;
            rx->at[j] = c;
            return RX_BLOCK;
        }
        if (rx->stop && s->ncta < ncta && c + 1 < to) {
            rx->at[j] = c + 1;
            key_set(rx, j, KEY(c + 1, 0, id));
            return RX_HOLD;
        }
    }
    rx->at[j] = to;
    return RX_BUSY;
}

/* Part t of a lookahead run: every thread visits the SMs (from its own starting point; with
 * `fixed` only those i mod n = t), takes one that may run (to run, or blocked with the least
 * key) if no other thread holds it, and runs it to its next event; when it found nothing to
 * run, the run ends if the least key is a held SM's (a dispatch: the caller's) or no SM has
 * events left, else it waits for the others' progress. */
static void ordered_part(void *ctx, uint32_t t)
{
    struct tm_relax *rx = ctx;
    if (!t)
        run_pre(rx);
    const uint32_t n = rx->nvisit, nt = rx->nthreads;
    const uint32_t first = rx->fixed ? 0 : (uint32_t)((uint64_t)t * n / nt);
    for (uint32_t tries = 0;;) {
        bool ran = false;
        uint64_t m = key_least(rx);
        for (uint32_t q = 0; q < n; q++) {
            uint32_t j = first + q < n ? first + q : first + q - n;
            if (rx->fixed && rx->visit[j] % nt != t)
                continue;
            int8_t res = atomic_load_explicit(&rx->ares[j], memory_order_relaxed);
            if ((res != RX_STOP && res != RX_BLOCK) ||
                (res == RX_BLOCK && atomic_load_explicit(&rx->key[j], memory_order_relaxed) != m))
                continue;
            if (atomic_exchange_explicit(&rx->grab[j], 1, memory_order_acquire))
                continue;
            TM_HAPPENS_AFTER(&rx->grab[j]);
            res = atomic_load_explicit(&rx->ares[j], memory_order_relaxed);
            if (res == RX_STOP ||
                (res == RX_BLOCK && atomic_load_explicit(&rx->key[j], memory_order_relaxed) == m)) {
                if (res == RX_BLOCK) /* (for helgrind: after every SM's earlier steps) */
                    for (uint32_t i = 0; i < n; i++)
                        TM_HAPPENS_AFTER(&rx->key[i]);
                const bool least = atomic_load_explicit(&rx->key[j], memory_order_relaxed) == m;
                res = sm_ordered(rx, j, res);
                if (res == RX_OOM)
                    atomic_store_explicit(&rx->oom, true, memory_order_relaxed);
                if (res == RX_IDLE || res == RX_BUSY || res == RX_OOM)
                    key_set(rx, j, KEY_DONE);
                atomic_store_explicit(&rx->ares[j], res, memory_order_relaxed);
                ran = true;
                TM_HAPPENS_BEFORE(&rx->grab[j]);
                atomic_store_explicit(&rx->grab[j], 0, memory_order_release);
                if (least) /* it moved on: the next blocked SM may be the least (else m, */
                    m = key_least(rx); /* older, is still a lower bound of every key) */
                continue;
            }
            TM_HAPPENS_BEFORE(&rx->grab[j]);
            atomic_store_explicit(&rx->grab[j], 0, memory_order_release);
        }
        if (ran) {
            tries = 0;
            continue;
        }
        if (atomic_load_explicit(&rx->oom, memory_order_relaxed))
            return;
        m = key_least(rx);
        if (m == KEY_DONE || !(m >> 16 & 1))
            return;
        tm_pool_pause(tries++);
    }
}

/* tm_relax_run in the lookahead mode: held SMs run again when no CTA waits; after the run,
 * the held SMs of the least cycle (all of them: no SM has an earlier event) are returned,
 * to run at the next call, the others stay held. */
static int ordered_run(struct tm_relax *rx, struct tm_pool *pool, bool fixed, bool stop,
                       const struct tm_relax_stop **stops)
{
    uint32_t run = 0;
    for (uint32_t j = 0; j < rx->nvisit; j++) {
        int8_t r = atomic_load_explicit(&rx->ares[j], memory_order_relaxed);
        if (!stop && r == RX_HOLD) {
            r = RX_STOP;
            atomic_store_explicit(&rx->ares[j], r, memory_order_relaxed);
            key_set(rx, j, KEY(rx->at[j], 1, rx->visit[j]));
        }
        run += r == RX_STOP || r == RX_BLOCK;
    }
    rx->fixed = fixed;
    rx->stop = stop;
    rx->nthreads = pool && run > 1 ? tm_pool_size(pool) : 1;
    atomic_store_explicit(&rx->oom, false, memory_order_relaxed);
    if (rx->nthreads > 1)
        tm_pool_run(pool, ordered_part, rx);
    else
        ordered_part(rx, 0);
    if (atomic_load_explicit(&rx->oom, memory_order_relaxed))
        return -1;
    uint64_t least = UINT64_MAX;
    for (uint32_t j = 0; j < rx->nvisit; j++)
        if (atomic_load_explicit(&rx->ares[j], memory_order_relaxed) == RX_HOLD &&
            rx->at[j] < least)
            least = rx->at[j];
    uint32_t ns = 0;
    for (uint32_t j = 0; j < rx->nvisit; j++)
        if (atomic_load_explicit(&rx->ares[j], memory_order_relaxed) == RX_HOLD &&
            rx->at[j] == least) {
            rx->stops[ns++] = (struct tm_relax_stop){.cycle = least - 1, .sm = rx->visit[j]};
            atomic_store_explicit(&rx->ares[j], RX_STOP, memory_order_relaxed);
            key_set(rx, j, KEY(least, 1, rx->visit[j]));
        }
    *stops = rx->stops;
    return (int)ns;
}

void tm_relax_set_pre(struct tm_relax *rx, void (*fn)(void *), void *ctx)
{
    rx->pre = fn;
    rx->pre_ctx = ctx;
}

void tm_relax_begin(struct tm_relax *rx, const uint64_t *act, uint64_t from, uint64_t to)
{
    uint32_t n = 0;
    for (uint32_t wi = 0; wi < (rx->nsm + 63) / 64; wi++)
        for (uint64_t am = act[wi]; am; am &= am - 1) {
            rx->visit[n] = wi * 64 + (uint32_t)__builtin_ctzll(am);
            rx->res[n] = RX_STOP; /* (runs at the next tm_relax_run) */
            if (rx->ordered) {
                atomic_store_explicit(&rx->ares[n], RX_STOP, memory_order_relaxed);
                atomic_store_explicit(&rx->grab[n], 0, memory_order_relaxed);
                key_set(rx, n, KEY(from, 1, rx->visit[n]));
            }
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
    if (rx->ordered)
        return ordered_run(rx, pool, fixed, stop, stops);
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
        if (rx->ordered)
            rx->res[j] = atomic_load_explicit(&rx->ares[j], memory_order_relaxed);
        if (rx->res[j] == RX_IDLE)
            act[i / 64] &= ~(UINT64_C(1) << (i % 64));
        else
            busy = 1;
    }
    rx->nvisit = 0;
    return busy;
}
