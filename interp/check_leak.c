/*
 * interp/check_leak.c — leakcheck: the device allocations (cudaMalloc*, MEM_F_DEVICE) and the
 * device malloc blocks (MEM_F_HEAP) still live when the runtime asks (at exit or
 * cudaDeviceReset), each a report in the log with its size and address, the host backtrace
 * of its allocation (the runtime's record of it) or the device site that malloc'ed it; the
 * JSON/XML record carries the same.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "interp/check.h"
#include "interp/check_int.h"
#include "interp/internal.h"

struct leak_walk {
    struct interp_check_log *g;
    struct interp_dev *d;
    bool (*bt)(void *ctx, const struct mem_alloc *a, struct interp_host_bt *out);
    void *ctx;
    uint64_t n, bytes;
    struct interp_host_bt b; /* the current leak's host backtrace */
};

/* Print host backtrace b under a leak's line, as compute-sanitizer does. */
static void bt_print(FILE *o, const struct interp_host_bt *b)
{
    fprintf(o, "%s     Saved host backtrace up to driver entry point at %s time\n", CHK_P, b->api);
    for (unsigned i = 0; i < b->n; i++) {
        const struct interp_host_frame *f = &b->f[i];
        if (f->module)
            fprintf(o, "%s         Host Frame:%s [%#" PRIx64 "] in %s\n", CHK_P, f->func, f->off,
                    f->module);
        else
            fprintf(o, "%s         Host Frame: [%#" PRIx64 "]\n", CHK_P, f->off);
    }
}

/* Host backtrace b as a "backtrace" member of the current record: {"api": …, "frames":
 * [{"function": …, "offset": …, "module": …}, …]} (an unresolved frame: function and module
 * null, offset its address). */
static void bt_rep(struct interp_check_log *g, const struct interp_host_bt *b)
{
    chk_rep_open(g, "backtrace");
    chk_rep_str(g, "api", b->api);
    chk_rep_list_open(g, "frames");
    for (unsigned i = 0; i < b->n; i++) {
        const struct interp_host_frame *f = &b->f[i];
        chk_rep_item_open(g, "frame");
        chk_rep_str(g, "function", f->module ? f->func : NULL);
        chk_rep_hex(g, "offset", f->off);
        chk_rep_str(g, "module", f->module);
        chk_rep_close(g, "frame");
    }
    chk_rep_list_close(g, "frames");
    chk_rep_close(g, "backtrace");
}

static void leak_one(void *ctx, const struct mem_alloc *a)
{
    struct leak_walk *lw = ctx;
    const bool heap = a->flags & MEM_F_HEAP;
    lw->n++;
    lw->bytes += a->size;
    if (chk_log_count(lw->g)) {
        FILE *o = lw->g->out;
        fprintf(o, "%s Leaked %" PRIu64 " bytes at %#" PRIx64 "%s\n", CHK_P, a->size, a->base,
                heap ? " on the device heap" : "");
        const char *site = NULL;
        const struct heap_site *hs = heap ? heap_site_find(lw->d, a->base, &site) : NULL;
        if (hs) {
            fprintf(o, "%s     Saved device site at malloc time: %s\n", CHK_P, site);
            fprintf(o, "%s     by thread (%u,%u,%u) in block (%u,%u,%u)\n", CHK_P, hs->tid[0],
                    hs->tid[1], hs->tid[2], hs->cta[0], hs->cta[1], hs->cta[2]);
        }
        const bool bt = !heap && lw->bt && lw->bt(lw->ctx, a, &lw->b);
        if (bt)
            bt_print(o, &lw->b);
        if (chk_rep_begin(lw->g, "leakcheck", "leak", false)) {
            chk_rep_hex(lw->g, "address", a->base);
            chk_rep_num(lw->g, "size", a->size);
            if (heap)
                chk_rep_str(lw->g, "space", "heap");
            if (site)
                chk_rep_str(lw->g, "site", site);
            if (bt)
                bt_rep(lw->g, &lw->b);
            chk_rep_end(lw->g);
        }
    }
}

/* leakcheck (see interp.h). */
uint64_t interp_check_leaks(struct interp_check_log *g, struct interp_dev *d,
                            bool (*bt)(void *ctx, const struct mem_alloc *a,
                                       struct interp_host_bt *out),
                            void *ctx)
{
    struct leak_walk w = {.g = g, .d = d, .bt = bt, .ctx = ctx}, *lw = &w;
    pthread_mutex_lock(&g->lock);
    mem_foreach(d->mem, MEM_F_DEVICE, leak_one, lw);
    pthread_mutex_lock(&d->heap_lock); /* (before the store's lock, as interp_heap_release) */
    mem_foreach(d->mem, MEM_F_HEAP, leak_one, lw);
    pthread_mutex_unlock(&d->heap_lock);
    if (lw->n)
        fprintf(g->out, "%s LEAK SUMMARY: %" PRIu64 " bytes leaked in %" PRIu64 " allocation%s\n",
                CHK_P, lw->bytes, lw->n, lw->n == 1 ? "" : "s");
    fflush(g->out);
    pthread_mutex_unlock(&g->lock);
    return lw->n;
}
