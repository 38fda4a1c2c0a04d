/*
 * interp/launch.c — launches: validate the configuration, lay out parameters, shared and local
 * memory, run the grid (grid.c), flush device printf and release deferred frees.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "interp/internal.h"
#include "interp/printf.h"

#define DEV_MAX_SHARED (227u * 1024u)
#define DEV_QUANTUM 2048u

/* ====================================================================== launch */

/* A printf buffer for a launch: a kept one (empty: flushing empties it), else a new one. */
static int pf_take(struct interp_dev *d, struct dev_printf_buf **out)
{
    pthread_mutex_lock(&d->pf_lock);
    *out = d->npf_spare ? d->pf_spare[--d->npf_spare] : NULL;
    pthread_mutex_unlock(&d->pf_lock);
    return *out ? 0 : dev_printf_buf_create(d->cfg.printf_fifo, out);
}

/* Return a flushed printf buffer for later launches (freed when enough are kept). */
static void pf_give(struct interp_dev *d, struct dev_printf_buf *b)
{
    pthread_mutex_lock(&d->pf_lock);
    if (d->npf_spare < DEV_PF_SPARES) {
        d->pf_spare[d->npf_spare++] = b;
        b = NULL;
    }
    pthread_mutex_unlock(&d->pf_lock);
    dev_printf_buf_destroy(b);
}

/* The cluster shape of launch l into L (cdim, csize, nclusters, explicit_cluster): the
 * kernel's .reqnctapercluster, else the launch's, else clusters of one CTA. 0, or -EINVAL with
 * the reason in msg: the launch's shape differs from the kernel's, a kernel with
 * .explicitcluster launched without one, the grid not a multiple of it, more CTAs than
 * .maxclusterrank or CLU_MAX. */
static int cluster_shape(const struct interp_launch *l, const struct ir_func *f,
                         struct launch_state *L, char *msg, size_t n)
{
    const bool fk = f->reqnctapercluster[0] != 0;
    const bool lk = l->cluster[0] || l->cluster[1] || l->cluster[2];
    for (int i = 0; i < 3; i++) {
        uint32_t v = fk ? f->reqnctapercluster[i] : l->cluster[i];
        L->cdim[i] = v ? v : 1;
    }
    if (fk && lk) {
        for (int i = 0; i < 3; i++) {
            if ((l->cluster[i] ? l->cluster[i] : 1) != L->cdim[i]) {
                snprintf(msg, n,
                         "cluster dimension (%u,%u,%u) differs from the kernel's "
                         ".reqnctapercluster %u, %u, %u",
                         l->cluster[0], l->cluster[1], l->cluster[2], L->cdim[0], L->cdim[1],
                         L->cdim[2]);
                return -EINVAL;
            }
        }
    }
    if (f->explicitcluster && !fk && !lk) {
        snprintf(msg, n, "the kernel has .explicitcluster: it must be launched with a cluster "
                         "dimension");
        return -EINVAL;
    }
    L->explicit_cluster = fk || lk;
    const uint64_t cs = (uint64_t)L->cdim[0] * L->cdim[1] * L->cdim[2];
    if (cs > CLU_MAX || (f->maxclusterrank && cs > f->maxclusterrank)) {
        snprintf(msg, n, "cluster (%u,%u,%u) has %llu CTAs (at most %u)", L->cdim[0],
                 L->cdim[1], L->cdim[2], (unsigned long long)cs,
                 f->maxclusterrank && f->maxclusterrank < CLU_MAX ? f->maxclusterrank
                                                                  : CLU_MAX);
        return -EINVAL;
    }
    for (int i = 0; i < 3; i++) {
        if (l->grid[i] % L->cdim[i]) {
            snprintf(msg, n, "grid (%u,%u,%u) is not a multiple of the cluster (%u,%u,%u)",
                     l->grid[0], l->grid[1], l->grid[2], L->cdim[0], L->cdim[1], L->cdim[2]);
            return -EINVAL;
        }
    }
    L->csize = (uint32_t)cs;
    L->nclusters = L->nctas / cs;
    return 0;
}

/* Validate a launch and set up its state (see internal.h). */
int launch_prepare(struct interp_dev *d, const struct interp_launch *l, struct trap *trap,
                   struct launch_state *L)
{
    memset(trap, 0, sizeof *trap);
    memset(L, 0, sizeof *L);
    const struct interp_kernel *k = l->kernel;
    if (!k) {
        snprintf(trap->msg, sizeof trap->msg, "no kernel");
        return -EINVAL;
    }
    uint64_t nthreads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
    uint64_t nctas = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
    if (nthreads == 0 || nctas == 0) {
        snprintf(trap->msg, sizeof trap->msg, "invalid configuration: grid (%u,%u,%u) block (%u,%u,%u)",
                 l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2]);
        return -EINVAL;
    }
    if (nthreads > k->info.max_threads || l->block[2] > 64 || l->grid[1] > 65535 ||
        l->grid[2] > 65535 || l->grid[0] > INT32_MAX) {
        snprintf(trap->msg, sizeof trap->msg,
                 "invalid configuration: block (%u,%u,%u) has %" PRIu64
                 " threads (at most %u) or grid (%u,%u,%u) is too large",
                 l->block[0], l->block[1], l->block[2], nthreads, k->info.max_threads,
                 l->grid[0], l->grid[1], l->grid[2]);
        return -EINVAL;
    }
    /* the kernel uses its static bytes plus the dynamic ones; its CTAs' buffers hold its
     * variables where the module's layout put them and the dynamic part at the module's
     * offset, so they may be bigger */
    uint64_t used = (uint64_t)k->shared_static + l->shared_dynamic;
    if (used > DEV_MAX_SHARED) {
        snprintf(trap->msg, sizeof trap->msg,
                 "too much shared memory: %" PRIu64 " bytes (at most %u)", used,
                 DEV_MAX_SHARED);
        return -EINVAL;
    }
    uint64_t shared = k->shared_extent;
    if (l->shared_dynamic && (uint64_t)k->dyn_shared_offset + l->shared_dynamic > shared)
        shared = (uint64_t)k->dyn_shared_offset + l->shared_dynamic;

    L->dev = d;
    L->cfg = &d->cfg;
    L->k = k;
    L->l = l;
    L->xf = k->xf;
    L->param_size = k->info.param_size_total;
    L->params = calloc(1, L->param_size ? L->param_size : 1);
    if (!L->params)
        return -ENOMEM;
    if (l->params && L->param_size)
        memcpy(L->params, l->params, L->param_size);
    L->nthreads = (uint32_t)nthreads;
    L->nctas = nctas;
    if (cluster_shape(l, k->xf->f, L, trap->msg, sizeof trap->msg) != 0) {
        free(L->params);
        return -EINVAL;
    }
    L->shared_total = (uint32_t)shared;
    uint32_t maxlocal = 0;
    const struct interp_program *p = k->prog;
    for (unsigned mi = 0; mi < p->nmods; mi++)
        for (uint32_t fi = 0; fi < p->mods[mi].m->nfuncs; fi++)
            if (p->mods[mi].xf[fi].local_size > maxlocal)
                maxlocal = p->mods[mi].xf[fi].local_size;
    L->local_stride = interp_align32(k->xf->local_size, 16) +
                      (d->cfg.stack_size ? (uint32_t)d->cfg.stack_size : 1024u) + 4 * maxlocal;
    L->quantum = DEV_QUANTUM;
    L->trap = trap;
    L->trace = d->cfg.trace != 0;
    L->trace_out = d->cfg.trace_out ? d->cfg.trace_out : stderr;
    L->exec_isa = exec_select_isa();
    L->check = d->cfg.check_log ? d->cfg.check & CHECK_LOOP : 0;
    L->chk = NULL;
    if (L->check && check_launch_begin(L) != 0) {
        free(L->params);
        snprintf(trap->msg, sizeof trap->msg, "out of host memory");
        return -ENOMEM;
    }
    if (clc_launch_init(L) != 0) {
        check_launch_end(L);
        free(L->params);
        snprintf(trap->msg, sizeof trap->msg, "out of host memory");
        return -ENOMEM;
    }
    pthread_mutex_init(&L->trap_lock, NULL);
    int rc = pf_take(d, &L->pf);
    if (rc < 0) {
        clc_launch_free(L);
        check_launch_end(L);
        pthread_mutex_destroy(&L->trap_lock);
        free(L->params);
        return rc;
    }
    if (l->cooperative) {
        /* grid.sync() of cooperative groups counts arrivals in this workspace */
        if (mem_alloc(d->mem, 64, 0, &L->grid_ws) < 0 || mem_set(d->mem, L->grid_ws, 0, 64) < 0) {
            pf_give(d, L->pf);
            clc_launch_free(L);
            check_launch_end(L);
            pthread_mutex_destroy(&L->trap_lock);
            free(L->params);
            snprintf(trap->msg, sizeof trap->msg, "out of device memory");
            return -ENOMEM;
        }
    }
    return 0;
}

/* End a launch set up by launch_prepare (see internal.h). */
void launch_finish(struct launch_state *L)
{
    struct interp_dev *d = L->dev;
    if (L->grid_ws)
        mem_free(d->mem, L->grid_ws);
    dev_printf_buf_flush(L->pf, d->cfg.printf_out ? d->cfg.printf_out : stdout,
                         d->cfg.deterministic);
    pf_give(d, L->pf);
    check_launch_end(L); /* the sanitizer's findings, after the kernel's printf output */
    interp_heap_release(d);
    pthread_mutex_destroy(&L->trap_lock);
    clc_launch_free(L);
    free(L->params);
}

/* Run a kernel to completion (see interp.h): the functional driver of launch_prepare. */
int interp_launch(struct interp_dev *d, const struct interp_launch *l, struct interp_stats *st,
                  struct trap *trap)
{
    struct trap dummy;
    if (!trap)
        trap = &dummy;
    if (st)
        memset(st, 0, sizeof *st);
    struct launch_state L;
    int rc = launch_prepare(d, l, trap, &L);
    if (rc != 0)
        return rc;
    rc = grid_run(&L, st);
    launch_finish(&L);
    if (rc < 0) {
        snprintf(trap->msg, sizeof trap->msg, "out of host memory");
        return -ENOMEM;
    }
    return L.trapped ? 1 : 0;
}
