/*
 * runtime/leak_bt.c — leakcheck's host backtraces: the call stack of every device allocation
 * (cudaMalloc, cudaMallocPitch, cudaMalloc3D, cudaMallocAsync), captured with glibc's
 * backtrace() when the allocation is made, and only when leakcheck is on (no cost otherwise);
 * handed to leakcheck (interp_check_leaks), which prints them under the allocation's
 * "Leaked" line as compute-sanitizer does, and puts them in its JSON/XML record:
 *
 *   =========     Saved host backtrace up to driver entry point at cudaMalloc time
 *   =========         Host Frame:main [0x1189] in /path/to/program
 *
 * one frame per caller, from the function that called the CUDA API outward to main (the
 * frames up to the runtime's last one are left out; without a main frame, all callers), the symbol from
 * dladdr (the program's own functions need -rdynamic to be named), demangled when the program
 * has the C++ runtime's __cxa_demangle (looked up, not linked), the address as an offset into
 * its module. Backtraces live in an open-addressed table keyed by
 * address, each with the allocation's id (mem.h) so a reused address never shows another
 * allocation's backtrace; cudaFree drops them, a leak check at cudaDeviceReset or exit clears
 * them all.
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/mem.h"
#include "runtime/rt.h"

enum { BT_FRAMES = 24 };

struct bt_entry {
    uint64_t addr; /* 0: free slot */
    uint32_t id;   /* mem_alloc.id of the allocation */
    uint8_t n;
    const char *api;
    void *pc[BT_FRAMES];
};

struct rt_leak_bt {
    struct bt_entry *tab;
    size_t cap, n; /* cap: a power of two (or 0) */
};

static size_t bt_hash(uint64_t addr, size_t cap)
{
    return (size_t)((addr >> 8) * 0x9e3779b97f4a7c15ull >> 17) & (cap - 1);
}

/* The slot of addr, or the free slot where it would go. Caller holds c->bt_lock. */
static struct bt_entry *bt_slot(struct rt_leak_bt *t, uint64_t addr)
{
    size_t h = bt_hash(addr, t->cap);
    while (t->tab[h].addr && t->tab[h].addr != addr)
        h = (h + 1) & (t->cap - 1);
    return &t->tab[h];
}

static int bt_grow(struct rt_leak_bt *t)
{
    const size_t nc = t->cap ? 2 * t->cap : 256;
    struct bt_entry *old = t->tab, *nt = calloc(nc, sizeof *nt);
    if (!nt)
        return -1;
    const size_t oc = t->cap;
    t->tab = nt;
    t->cap = nc;
    for (size_t i = 0; i < oc; i++)
        if (old[i].addr)
            *bt_slot(t, old[i].addr) = old[i];
    free(old);
    return 0;
}

/* Record the host backtrace of device allocation addr, made by CUDA API function api (see
 * rt.h). */
void rt_leak_bt_alloc(struct rt_ctx *c, struct mem *m, uint64_t addr, const char *api)
{
    if (!c->chk || !(c->icfg.check & CHECK_LEAKCHECK) || !addr)
        return;
    const struct mem_alloc *a = mem_find(m, addr, 0);
    if (!a)
        return;
    struct bt_entry e = {.addr = addr, .id = a->id, .api = api};
    e.n = (uint8_t)backtrace(e.pc, BT_FRAMES);
    pthread_mutex_lock(&c->bt_lock);
    struct rt_leak_bt *t = c->bt;
    if (!t && (t = c->bt = calloc(1, sizeof *t)) == NULL)
        goto out; /* out of memory: the leak is listed without its backtrace */
    if (2 * (t->n + 1) > t->cap && bt_grow(t) < 0)
        goto out;
    struct bt_entry *s = bt_slot(t, addr);
    if (!s->addr)
        t->n++;
    *s = e;
out:
    pthread_mutex_unlock(&c->bt_lock);
}

/* Forget the backtrace of freed allocation addr (see rt.h). */
void rt_leak_bt_free(struct rt_ctx *c, uint64_t addr)
{
    pthread_mutex_lock(&c->bt_lock);
    struct rt_leak_bt *t = c->bt;
    if (t && t->n && addr) {
        struct bt_entry *s = bt_slot(t, addr);
        if (s->addr) {
            /* backward-shift deletion: later entries of the probe run move up */
            size_t i = (size_t)(s - t->tab), j = i;
            for (;;) {
                j = (j + 1) & (t->cap - 1);
                if (!t->tab[j].addr)
                    break;
                const size_t h = bt_hash(t->tab[j].addr, t->cap);
                if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
                    t->tab[i] = t->tab[j];
                    i = j;
                }
            }
            t->tab[i].addr = 0;
            t->n--;
        }
    }
    pthread_mutex_unlock(&c->bt_lock);
}

typedef char *(*demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

/* The host backtrace of leaked allocation a, for its report (see rt.h). */
bool rt_leak_bt_get(void *ctx, const struct mem_alloc *a, struct interp_host_bt *out)
{
    struct rt_ctx *c = ctx;
    Dl_info self;
    if (!dladdr((void *)&rt_leak_bt_get, &self))
        self.dli_fbase = NULL;
    demangle_fn demangle;
    *(void **)&demangle = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    pthread_mutex_lock(&c->bt_lock);
    struct rt_leak_bt *t = c->bt;
    const struct bt_entry *e = t && t->n ? bt_slot(t, a->base) : NULL;
    const bool found = e && e->addr && e->id == a->id;
    if (found) {
        out->api = e->api;
        out->n = 0;
        /* from the CUDA API's caller on: the frames up to the runtime's last one go (and
         * with them a sanitizer's backtrace interceptor, which comes first) */
        unsigned first = 0;
        for (unsigned i = 0; i < e->n; i++) {
            Dl_info di;
            if (self.dli_fbase && dladdr(e->pc[i], &di) && di.dli_fbase == self.dli_fbase)
                first = i + 1;
        }
        for (unsigned i = first; i < e->n && out->n < INTERP_HOST_FRAMES; i++) {
            struct interp_host_frame *f = &out->f[out->n++];
            Dl_info di;
            if (!dladdr(e->pc[i], &di)) {
                f->func[0] = '\0';
                f->module = NULL;
                f->off = (uintptr_t)e->pc[i];
                continue;
            }
            int st = -1;
            char *dm = demangle && di.dli_sname && di.dli_sname[0] == '_' && di.dli_sname[1] == 'Z'
                           ? demangle(di.dli_sname, NULL, NULL, &st)
                           : NULL;
            snprintf(f->func, sizeof f->func, "%s",
                     dm && st == 0  ? dm
                     : di.dli_sname ? di.dli_sname
                                    : "");
            free(dm);
            f->module = di.dli_fname ? di.dli_fname : "?";
            f->off = (uintptr_t)e->pc[i] - (uintptr_t)di.dli_fbase;
            if (di.dli_sname && !strcmp(di.dli_sname, "main"))
                break; /* the program's start-up frames say nothing */
        }
    }
    pthread_mutex_unlock(&c->bt_lock);
    return found;
}

/* Forget every backtrace (see rt.h). */
void rt_leak_bt_clear(struct rt_ctx *c)
{
    pthread_mutex_lock(&c->bt_lock);
    if (c->bt) {
        free(c->bt->tab);
        free(c->bt);
        c->bt = NULL;
    }
    pthread_mutex_unlock(&c->bt_lock);
}
