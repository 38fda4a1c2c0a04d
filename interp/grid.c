/*
 * interp/grid.c — the CTAs of a launch over a pool of host threads.
 *
 * Workers take CTAs from a shared atomic counter (dynamic load balance), or, when the
 * configuration asks for `deterministic`, worker i runs CTAs i, i + T, i + 2T, … (a fixed
 * assignment; with the printf FIFO flushed in (CTA, warp, order) order the output repeats).
 * Device memory is shared: atomics are host atomics, so CTAs on different host threads see
 * each other's writes as a GPU's CTAs do. The first fault stops every worker after its
 * current quantum.
 */
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

/* The next CTA for worker wk, or UINT64_MAX when there is none. */
static uint64_t next_cta(struct worker *wk)
{
    struct launch_state *L = wk->L;
    if (L->cfg->deterministic) {
        uint64_t i = wk->next_det;
        wk->next_det += L->nworkers;
        return i < L->nctas ? i : UINT64_MAX;
    }
    uint64_t i = atomic_fetch_add(&L->next_cta, 1);
    return i < L->nctas ? i : UINT64_MAX;
}

static void *worker_main(void *arg)
{
    struct worker *wk = arg;
    struct launch_state *L = wk->L;
    bool busy[64] = {false};
    unsigned nbusy = 0;
    bool more = true;
    wk->next_det = wk->index;
    for (;;) {
        while (more && nbusy < wk->nres) {
            if (atomic_load_explicit(&L->stop, memory_order_relaxed))
                return NULL;
            uint64_t i = next_cta(wk);
            if (i == UINT64_MAX) {
                more = false;
                break;
            }
            unsigned s = 0;
            while (busy[s])
                s++;
            if (cta_begin(&wk->res[s], L, i) != 0) {
                wk->failed = true;
                atomic_store(&L->stop, 1);
                return NULL;
            }
            busy[s] = true;
            nbusy++;
        }
        if (nbusy == 0)
            return NULL;
        for (unsigned s = 0; s < wk->nres; s++) {
            if (!busy[s])
                continue;
            int r = cta_round(&wk->res[s], &wk->ninsn, &wk->nthread);
            if (r == CTA_RUNNING)
                continue;
            if (r == CTA_STOP) {
                atomic_store(&L->stop, 1);
                return NULL;
            }
            busy[s] = false;
            nbusy--;
            wk->nctas++;
        }
    }
}

static void worker_free(struct worker *wk)
{
    for (unsigned i = 0; i < wk->nres; i++)
        cta_free(&wk->res[i]);
    free(wk->res);
}

/*
 * Run every CTA of launch L on min(threads, CTAs) host threads; statistics into st.
 * Returns 0, or -ENOMEM when a worker could not get memory.
 */
int grid_run(struct launch_state *L, struct interp_stats *st)
{
    unsigned T = L->cfg->threads ? L->cfg->threads : interp_ncpu();
    if (L->trace)
        T = 1; /* one ordered trace */
    if (T > L->nctas)
        T = (unsigned)L->nctas;
    if (T == 0)
        T = 1;
    L->nworkers = T;
    L->exec_isa = exec_select_isa();
    struct worker *wk = calloc(T, sizeof *wk);
    if (!wk)
        return -1;
    /* resident CTAs per worker: all of a cooperative grid must be co-resident */
    unsigned R = 1;
    if (L->l->cooperative)
        R = (unsigned)((L->nctas + T - 1) / T);
    if (R > 64)
        R = 64;
    L->resident = R;
    for (unsigned i = 0; i < T; i++) {
        wk[i].L = L;
        wk[i].index = i;
        wk[i].nres = R;
        wk[i].res = calloc(R, sizeof *wk[i].res);
        if (!wk[i].res) {
            for (unsigned j = 0; j < i; j++)
                free(wk[j].res);
            free(wk);
            return -1;
        }
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
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
    clock_gettime(CLOCK_MONOTONIC, &t1);
    int rc = 0;
    for (unsigned i = 0; i < T; i++) {
        if (st) {
            st->warp_insns += wk[i].ninsn;
            st->thread_insns += wk[i].nthread;
            st->ctas += wk[i].nctas;
        }
        if (wk[i].failed)
            rc = -1;
        worker_free(&wk[i]);
    }
    if (st)
        st->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    free(wk);
    return rc;
}
