/*
 * interp/devlib.c — the device library calls nvcc emits: printf (vprintf, formatted on the host
 * into the launch's FIFO), malloc and free (one device allocation per call; frees deferred to
 * the end of the launch).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "interp/internal.h"
#include "interp/ops/helpers.h"
#include "interp/printf.h"

/* ====================================================================== printf, malloc */

struct str_ctx {
    struct warp *w;
    unsigned lane;
    uint64_t bad; /* the first unreadable address read_dev_str met */
};

static int read_dev_str(void *ctx, uint64_t addr, char *buf, size_t cap)
{
    struct str_ctx *c = ctx;
    size_t i = 0;
    for (;; i++) {
        uint8_t *p;
        if (vm_xlate(c->w, XS_GENERIC, c->lane, addr + i, 1, false, &p) != 0) {
            c->bad = addr + i;
            return -EFAULT;
        }
        if (i + 1 < cap)
            buf[i] = (char)*p;
        if (*p == 0)
            break;
    }
    if (cap)
        buf[i + 1 < cap ? i : cap - 1] = 0;
    return (int)i;
}

/* Host bytes readable at generic address a (lane l): pointer and length, or NULL. */
static const uint8_t *dev_span(struct warp *w, unsigned l, uint64_t a, size_t *len)
{
    uint8_t *p;
    if (vm_xlate(w, XS_GENERIC, l, a, 1, false, &p) != 0)
        return NULL;
    const struct cta *c = w->cta;
    if (a - MEM_SHARED_BASE < MEM_SHARED_SIZE)
        *len = cluster_shared_left(w, a - MEM_SHARED_BASE);
    else if (a - MEM_LOCAL_BASE < MEM_LOCAL_SIZE)
        *len = c->local_stride - (a - MEM_LOCAL_BASE);
    else if (a - MEM_PARAM_BASE < MEM_PARAM_SIZE)
        *len = c->L->param_size - (a - MEM_PARAM_BASE);
    else
        *len = w->mc.lo + w->mc.span - a;
    return p;
}

/* Device printf by lane l: format on the host into the launch's FIFO. 0, -1 on a format
 * error or no memory; -2 when the format string, -3 when the argument buffer, -4 when a
 * non-NULL %s string is unreadable, with *bad = the unreadable address (the GPU's vprintf
 * reads all three on the device, so each is an illegal-address fault there). */
int interp_vprintf(struct warp *w, unsigned lane, uint64_t fmt, uint64_t args, uint64_t *bad)
{
    struct str_ctx ctx = {w, lane, 0};
    char sbuf[1024];
    int n = read_dev_str(&ctx, fmt, sbuf, sizeof sbuf);
    if (n < 0) {
        *bad = ctx.bad;
        return -2;
    }
    char *f = sbuf;
    if ((size_t)n >= sizeof sbuf) {
        f = malloc((size_t)n + 1);
        if (!f)
            return -1;
        read_dev_str(&ctx, fmt, f, (size_t)n + 1);
    }
    size_t alen = 0;
    const uint8_t *ap = args ? dev_span(w, lane, args, &alen) : NULL;
    if (args && !ap) {
        if (f != sbuf)
            free(f);
        *bad = args;
        return -3;
    }
    const struct cta *c = w->cta;
    int r = dev_printf_buf_printf(c->L->pf, c->linear, w->id, w->nprintf++ * 32 + lane, f, ap,
                                  alen, read_dev_str, &ctx);
    if (f != sbuf)
        free(f);
    if (r == -EFAULT) {
        *bad = ctx.bad;
        return -4;
    }
    return r < 0 ? -1 : 0;
}

/* leakcheck: record that lane `lane` of w allocated block addr at pc (caller holds
 * heap_lock). Out of memory: the block is listed without its site. */
static void heap_site_add(struct interp_dev *d, uint64_t addr, const struct warp *w, uint32_t pc,
                          unsigned lane)
{
    size_t t = 0;
    while (t < d->nhtext && (d->htext[t].serial != w->fn->serial || d->htext[t].pc != pc))
        t++;
    if (t == d->nhtext) {
        struct heap_site_text *n = realloc(d->htext, (d->nhtext + 1) * sizeof *n);
        if (!n)
            return;
        d->htext = n;
        char *text = check_site_text(w->fn, pc);
        if (!text)
            return;
        d->htext[d->nhtext++] = (struct heap_site_text){w->fn->serial, pc, text};
    }
    if (d->nhsites == d->hsites_cap) {
        size_t cap = d->hsites_cap ? 2 * d->hsites_cap : 64;
        struct heap_site *n = realloc(d->hsites, cap * sizeof *n);
        if (!n)
            return;
        d->hsites = n;
        d->hsites_cap = cap;
    }
    const uint32_t *b = w->cta->L->l->block, tid = w->id * 32 + lane;
    struct heap_site *s = &d->hsites[d->nhsites++];
    s->addr = addr;
    s->text = (uint32_t)t;
    s->tid[0] = tid % b[0];
    s->tid[1] = tid / b[0] % b[1];
    s->tid[2] = tid / (b[0] * b[1]);
    memcpy(s->cta, w->cta->id, sizeof s->cta);
}

/* The site of device malloc block addr (see internal.h). */
const struct heap_site *heap_site_find(const struct interp_dev *d, uint64_t addr,
                                       const char **text)
{
    for (size_t i = 0; i < d->nhsites; i++)
        if (d->hsites[i].addr == addr) {
            *text = d->htext[d->hsites[i].text].text;
            return &d->hsites[i];
        }
    return NULL;
}

/* Device malloc: one allocation per call (byte-precise bounds), within the heap limit. */
uint64_t interp_malloc(struct interp_dev *d, uint64_t size, const struct warp *w, uint32_t pc,
                       unsigned lane)
{
    uint64_t used = atomic_fetch_add(&d->heap_used, size);
    if (used + size > d->heap_size) {
        atomic_fetch_sub(&d->heap_used, size);
        return 0;
    }
    uint64_t a = 0;
    if (mem_alloc(d->mem, size, MEM_F_HEAP, &a) != 0) {
        atomic_fetch_sub(&d->heap_used, size);
        return 0;
    }
    if (d->cfg.fill) /* --fill-uninit: malloc'ed memory is not cleared on a GPU */
        interp_fill((void *)(uintptr_t)a, a, size, d->cfg.fill_word);
    if (d->cfg.check & CHECK_LEAKCHECK) {
        pthread_mutex_lock(&d->heap_lock);
        heap_site_add(d, a, w, pc, lane);
        pthread_mutex_unlock(&d->heap_lock);
    }
    return a;
}

static int addr_cmp(const void *pa, const void *pb)
{
    const uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

/* Device free of a malloc'ed pointer: checked now, released at the end of the launch.
 * 0, or -EINVAL (not from malloc, or freed twice). */
int interp_free(struct interp_dev *d, uint64_t addr)
{
    const struct mem_alloc *a = mem_find(d->mem, addr, 0);
    if (!a || a->base != addr || !(a->flags & MEM_F_HEAP))
        return -EINVAL;
    int rc = 0;
    pthread_mutex_lock(&d->heap_lock);
    for (size_t i = 0; i < d->ndeferred; i++)
        if (d->deferred[i] == addr)
            rc = -EINVAL;
    if (rc == 0 && d->ndeferred == d->deferred_cap) {
        size_t cap = d->deferred_cap ? 2 * d->deferred_cap : 64;
        uint64_t *n = realloc(d->deferred, cap * sizeof *n);
        if (!n)
            rc = -ENOMEM;
        else {
            d->deferred = n;
            d->deferred_cap = cap;
        }
    }
    if (rc == 0)
        d->deferred[d->ndeferred++] = addr;
    pthread_mutex_unlock(&d->heap_lock);
    return rc == -ENOMEM ? 0 : rc;
}

/* Release the frees deferred during a launch (see internal.h). */
void interp_heap_release(struct interp_dev *d)
{
    pthread_mutex_lock(&d->heap_lock); /* kernels of other streams may be running */
    if (d->nhsites && d->ndeferred) { /* leakcheck: the freed blocks' sites go */
        qsort(d->deferred, d->ndeferred, sizeof *d->deferred, addr_cmp);
        size_t n = 0;
        for (size_t i = 0; i < d->nhsites; i++)
            if (!bsearch(&d->hsites[i].addr, d->deferred, d->ndeferred, sizeof *d->deferred,
                         addr_cmp))
                d->hsites[n++] = d->hsites[i];
        d->nhsites = n;
    }
    for (size_t i = 0; i < d->ndeferred; i++) {
        const struct mem_alloc *a = mem_find(d->mem, d->deferred[i], 0);
        uint64_t size = a ? a->size : 0;
        if (mem_free(d->mem, d->deferred[i]) == 0)
            atomic_fetch_sub(&d->heap_used, size);
    }
    d->ndeferred = 0;
    pthread_mutex_unlock(&d->heap_lock);
}

