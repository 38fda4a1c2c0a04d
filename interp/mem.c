/*
 * interp/mem.c — device memory: allocations registered in a lock-free hashed page table.
 *
 * Layout. The address space is cut into table pages of MEM_PAGE bytes (4 KiB). A table slot
 * holds a pointer to an immutable page record; a record covers the pages [first, last] and
 * lists, sorted by base, the allocations overlapping them. Two kinds of record:
 *   - a boundary record covers one page that an allocation covers only partly; several small
 *     allocations may share the page, so the record lists all of them (at most a few dozen with
 *     256-byte alignment) and a lookup binary-searches it;
 *   - an interior record covers the run of pages an allocation covers completely; it lists just
 *     that allocation and one record is shared by every slot of the run. The run is keyed by
 *     page at its ends and by 2 MiB superpage (key MEM_SUPER_TAG | page >> 9) where it covers
 *     whole superpages, so a 1 GiB allocation costs one record and ~512 slots.
 * Slots are found by open addressing (linear probing) from XXH3_64bits(key); a lookup probes
 * the page key, then the superpage key. A slot matches when its record covers the page (not by
 * key equality), so a slot holds just one pointer and is published with one atomic store.
 *
 * Concurrency. Readers (mem_find, mem_check, …) take no lock: they load the table pointer and
 * slot pointers with acquire ordering and only ever read immutable records. Writers (alloc,
 * register, free) hold m->lock, build new records, publish them with one release store per
 * slot, and retire what they replace (records, freed allocation nodes, old tables) to a list
 * freed by mem_reclaim or mem_destroy, so a reader never touches freed memory. Removed slots
 * become tombstones (a record matching no page) so probe chains stay intact; the table is
 * rebuilt (and republished) when live slots plus tombstones would exceed half of it.
 *
 * Generic windows. mem_create reserves the .shared/.local/.param windows with PROT_NONE
 * mappings. The reservations are never unmapped: they cost no memory, and keeping them makes a
 * second store in the same process (or one created after a destroy) find them already in place
 * without any process-wide state.
 */
#include "interp/mem.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#define MEM_PAGE_SHIFT 12
#define MEM_PAGE       (UINT64_C(1) << MEM_PAGE_SHIFT)
#define MEM_ALIGN      256                  /* alignment of every mem_alloc block */
#define MEM_MMAP_MIN   (UINT64_C(64) << 10) /* blocks this large come from mmap */
#define MEM_MAX_SIZE   (UINT64_C(1) << 46)  /* larger requests are -ENOMEM outright */
#define MEM_MIN_SLOTS  1024
/* Interior runs are keyed by 2 MiB superpage where they cover whole superpages. */
#define MEM_SUPER_SHIFT 9 /* table pages per superpage: 512 */
#define MEM_SUPER_TAG   (UINT64_C(1) << 63)

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#if defined(__SANITIZE_ADDRESS__)
#define MEM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MEM_ASAN 1
#endif
#endif
#ifndef MEM_ASAN
#define MEM_ASAN 0
#endif
/* TSan refuses mappings outside its application ranges; the windows lie in its shadow, where
 * no host allocation can land either, so under TSan they are left unreserved. */
#if defined(__SANITIZE_THREAD__)
#define MEM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MEM_TSAN 1
#endif
#endif
#ifndef MEM_TSAN
#define MEM_TSAN 0
#endif

/* ================================================================ records and table */

struct rec_ent {
    uint64_t base; /* copy of a->base: the binary search reads one array */
    const struct mem_alloc *a;
};

struct page_rec {
    uint64_t first, last; /* table pages covered */
    uint32_t n;           /* allocations listed */
    uint32_t interior;    /* 1: the interior run of a single allocation */
    struct rec_ent e[];   /* sorted by base, non-overlapping */
};

/* Tombstone: matches no page (first > last), so probes continue past it. */
static const struct page_rec mem_tomb = {.first = 1, .last = 0};

struct mem_table {
    uint64_t mask; /* slots - 1 (a power of two minus one) */
    _Atomic(const struct page_rec *) slot[];
};

/* An allocation and its bookkeeping; readers only see &node->a. */
struct mem_node {
    struct mem_alloc a;
    struct mem_node *prev, *next;
    void *host;                /* block to release: NULL for registered user blocks */
    uint64_t maplen;           /* munmap length, or 0 when the block came from aligned_alloc */
    struct page_rec *interior; /* this allocation's interior record, or NULL */
};

struct mem {
    _Atomic(struct mem_table *) tab;
    pthread_mutex_t lock;
    uint64_t nused; /* non-NULL slots of tab (tombstones included) */
    uint64_t nlive; /* slots holding a real record */
    struct mem_node *head;
    void **retired; /* blocks readers might still see; freed by mem_reclaim/mem_destroy */
    size_t nretired, capretired;
    uint32_t next_id;
    uint64_t next_canon; /* mem_alloc.canon of the next block */
    _Atomic uint64_t used_bytes;
    uint64_t populate_budget; /* back large blocks up front while used_bytes stays below */
};

static inline uint64_t mem_page_hash(uint64_t page)
{
    return XXH3_64bits(&page, sizeof page);
}

static inline bool rec_covers(const struct page_rec *r, uint64_t page)
{
    return r->first <= page && page <= r->last;
}

/* The first record covering page on key's probe chain, or NULL. Lock-free. */
static const struct page_rec *tab_probe(const struct mem_table *t, uint64_t key, uint64_t page)
{
    uint64_t i = mem_page_hash(key) & t->mask;
    for (;;) {
        const struct page_rec *r = atomic_load_explicit(&t->slot[i], memory_order_acquire);
        if (!r)
            return NULL;
        if (rec_covers(r, page))
            return r;
        i = (i + 1) & t->mask;
    }
}

/* The record covering page: keyed by the page itself, or by its superpage when it lies in the
 * whole-superpage part of an interior run. */
static const struct page_rec *tab_lookup(const struct mem_table *t, uint64_t page)
{
    const struct page_rec *r = tab_probe(t, page, page);
    return r ? r : tab_probe(t, MEM_SUPER_TAG | page >> MEM_SUPER_SHIFT, page);
}

/* The slot keys of an interior run of pages [f, l]: up to three runs of keys — pages before the
 * first whole superpage, the whole superpages, pages after the last one. */
struct key_runs {
    unsigned n;
    uint64_t lo[3], hi[3]; /* inclusive, pages or superpage numbers */
    bool super[3];
};

static void interior_keys(uint64_t f, uint64_t l, struct key_runs *k)
{
    uint64_t sf = (f + (UINT64_C(1) << MEM_SUPER_SHIFT) - 1) >> MEM_SUPER_SHIFT;
    uint64_t sl_end = (l + 1) >> MEM_SUPER_SHIFT; /* superpages below this end before l+1 */
    k->n = 0;
    if (sl_end <= sf) {
        k->lo[0] = f, k->hi[0] = l, k->super[0] = false, k->n = 1;
        return;
    }
    if (f < sf << MEM_SUPER_SHIFT)
        k->lo[k->n] = f, k->hi[k->n] = (sf << MEM_SUPER_SHIFT) - 1, k->super[k->n++] = false;
    k->lo[k->n] = sf, k->hi[k->n] = sl_end - 1, k->super[k->n++] = true;
    if ((sl_end << MEM_SUPER_SHIFT) <= l)
        k->lo[k->n] = sl_end << MEM_SUPER_SHIFT, k->hi[k->n] = l, k->super[k->n++] = false;
}

static uint64_t key_runs_count(const struct key_runs *k)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < k->n; i++)
        n += k->hi[i] - k->lo[i] + 1;
    return n;
}

/* Key and a page it covers, for element x of run i. */
static inline uint64_t run_key(const struct key_runs *k, unsigned i, uint64_t x)
{
    return k->super[i] ? MEM_SUPER_TAG | x : x;
}
static inline uint64_t run_page(const struct key_runs *k, unsigned i, uint64_t x)
{
    return k->super[i] ? x << MEM_SUPER_SHIFT : x;
}

/* The allocation in r with the greatest base <= addr, or NULL. */
static const struct mem_alloc *rec_floor(const struct page_rec *r, uint64_t addr)
{
    uint32_t lo = 0, hi = r->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->e[mid].base <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? r->e[lo - 1].a : NULL;
}

/* The allocation with the greatest base <= addr among those on addr's page, or NULL. */
static const struct mem_alloc *mem_floor(const struct mem *m, uint64_t addr)
{
    const struct mem_table *t = atomic_load_explicit(&m->tab, memory_order_acquire);
    const struct page_rec *r = tab_lookup(t, addr >> MEM_PAGE_SHIFT);
    return r ? rec_floor(r, addr) : NULL;
}

/* ================================================================ lookups (lock-free) */

/* The allocation containing [addr, addr+len); see mem.h for len 0. */
const struct mem_alloc *mem_find(const struct mem *m, uint64_t addr, uint64_t len)
{
    const struct mem_alloc *a = mem_floor(m, addr);
    if (!a)
        return NULL;
    uint64_t off = addr - a->base;
    if (len == 0)
        return off < (a->size ? a->size : 1) ? a : NULL;
    if (off >= a->size || len > a->size - off)
        return NULL;
    return a;
}

/* Cache miss: look the page up and refresh the cache on a hit. */
bool mem_check_slow(const struct mem *m, struct mem_cache *c, uint64_t addr, unsigned width)
{
    const struct mem_alloc *a = mem_find(m, addr, width ? width : 1);
    if (!a)
        return false;
    c->lo = a->base;
    c->span = a->size;
    c->flags = a->flags;
    return true;
}

/* Distance from addr to the bytes of a (0 inside; a size-0 allocation counts as its base). */
static uint64_t alloc_distance(const struct mem_alloc *a, uint64_t addr)
{
    if (addr < a->base)
        return a->base - addr;
    uint64_t end = a->base + a->size;
    if (addr < end)
        return 0;
    return addr - end + (a->size ? 1 : 0);
}

/* Containing allocation, or the nearest one within MEM_NEAREST_RANGE: scan pages outward from
 * addr's page. Error path only, so a few hundred lookups are fine. */
const struct mem_alloc *mem_nearest(const struct mem *m, uint64_t addr)
{
    const struct mem_table *t = atomic_load_explicit(&m->tab, memory_order_acquire);
    const uint64_t page = addr >> MEM_PAGE_SHIFT;
    const uint64_t reach = MEM_NEAREST_RANGE >> MEM_PAGE_SHIFT;
    const struct mem_alloc *best = NULL;
    uint64_t best_d = UINT64_MAX;
    bool below_done = false, above_done = false;

    for (uint64_t k = 0; k <= reach && !(below_done && above_done); k++) {
        for (int dir = 0; dir < 2; dir++) {
            if (k == 0 && dir == 1)
                continue;
            if (dir == 0 ? below_done : above_done)
                continue;
            uint64_t p;
            if (dir == 0) {
                if (page < k) {
                    below_done = true;
                    continue;
                }
                p = page - k;
            } else {
                if (page + k < page) {
                    above_done = true;
                    continue;
                }
                p = page + k;
            }
            const struct page_rec *r = tab_lookup(t, p);
            if (!r)
                continue;
            bool found = false;
            for (uint32_t i = 0; i < r->n; i++) {
                const struct mem_alloc *a = r->e[i].a;
                uint64_t d = alloc_distance(a, addr);
                /* only allocations on the scanned side count in this direction */
                bool side_ok = (dir == 0) ? a->base <= addr : a->base > addr;
                if (k == 0)
                    side_ok = true;
                if (!side_ok)
                    continue;
                found = true;
                if (d < best_d || (d == best_d && best && a->base < best->base)) {
                    best = a;
                    best_d = d;
                }
            }
            if (found && k > 0) {
                if (dir == 0)
                    below_done = true;
                else
                    above_done = true;
            }
        }
        if (best_d == 0)
            break;
    }
    if (best && best_d > MEM_NEAREST_RANGE)
        return NULL;
    return best;
}

/* Device + managed bytes live now (kept by alloc/free, read without the lock). */
uint64_t mem_used(const struct mem *m)
{
    return atomic_load_explicit(&m->used_bytes, memory_order_relaxed);
}

/* ================================================================ writer side (m->lock held) */

/* Make room for n more retired pointers, so the mutation that follows cannot fail halfway. */
static int retire_reserve(struct mem *m, size_t n)
{
    if (m->nretired + n <= m->capretired)
        return 0;
    size_t cap = m->capretired ? m->capretired * 2 : 64;
    while (cap < m->nretired + n)
        cap *= 2;
    void **p = realloc(m->retired, cap * sizeof *p);
    if (!p)
        return -ENOMEM;
    m->retired = p;
    m->capretired = cap;
    return 0;
}

static void retire(struct mem *m, const void *p)
{
    if (p && p != &mem_tomb)
        m->retired[m->nretired++] = (void *)(uintptr_t)p;
}

static struct mem_table *tab_new(uint64_t nslots)
{
    struct mem_table *t = calloc(1, sizeof *t + nslots * sizeof t->slot[0]);
    if (t)
        t->mask = nslots - 1;
    return t;
}

/* Insert into a private (not yet published) table without tombstones. */
static void tab_put_fresh(struct mem_table *t, uint64_t key, const struct page_rec *r)
{
    uint64_t i = mem_page_hash(key) & t->mask;
    while (atomic_load_explicit(&t->slot[i], memory_order_relaxed))
        i = (i + 1) & t->mask;
    atomic_store_explicit(&t->slot[i], r, memory_order_relaxed);
}

/* Rebuild the table so `need` more slots fit under half load, then publish it. */
static int tab_grow(struct mem *m, uint64_t need)
{
    struct mem_table *old = atomic_load_explicit(&m->tab, memory_order_relaxed);
    uint64_t want = (m->nlive + need) * 4, nslots = MEM_MIN_SLOTS;
    while (nslots < want)
        nslots *= 2;
    struct mem_table *t = tab_new(nslots);
    if (!t)
        return -ENOMEM;
    int rc = retire_reserve(m, 1);
    if (rc) {
        free(t);
        return rc;
    }
    uint64_t live = 0;
    for (uint64_t i = 0; i <= old->mask; i++) {
        const struct page_rec *r = atomic_load_explicit(&old->slot[i], memory_order_relaxed);
        if (r && r != &mem_tomb && !r->interior) {
            tab_put_fresh(t, r->first, r);
            live++;
        }
    }
    for (struct mem_node *n = m->head; n; n = n->next) {
        const struct page_rec *r = n->interior;
        if (!r)
            continue;
        struct key_runs k;
        interior_keys(r->first, r->last, &k);
        for (unsigned i = 0; i < k.n; i++)
            for (uint64_t x = k.lo[i]; x <= k.hi[i]; x++) {
                tab_put_fresh(t, run_key(&k, i, x), r);
                live++;
            }
    }
    atomic_store_explicit(&m->tab, t, memory_order_release);
    retire(m, old);
    m->nused = m->nlive = live;
    return 0;
}

static int tab_reserve(struct mem *m, uint64_t need)
{
    const struct mem_table *t = atomic_load_explicit(&m->tab, memory_order_relaxed);
    if ((m->nused + need) * 2 <= t->mask + 1)
        return 0;
    return tab_grow(m, need);
}

/* Point key's slot at r (or a tombstone), returning the record it replaces (NULL if none): the
 * slot replaced is the first on key's chain whose record covers page. For an interior run every
 * such slot holds the same record, and one call per key tombstones exactly one of them, so a
 * run's removal clears all its slots whichever order the chains interleave in.
 * Room must have been reserved. */
static const struct page_rec *tab_set(struct mem *m, uint64_t key, uint64_t page,
                                      const struct page_rec *r)
{
    struct mem_table *t = atomic_load_explicit(&m->tab, memory_order_relaxed);
    uint64_t i = mem_page_hash(key) & t->mask, tomb_at = UINT64_MAX;
    for (;;) {
        const struct page_rec *cur = atomic_load_explicit(&t->slot[i], memory_order_relaxed);
        if (!cur)
            break;
        if (cur == &mem_tomb) {
            if (tomb_at == UINT64_MAX)
                tomb_at = i;
        } else if (rec_covers(cur, page)) {
            atomic_store_explicit(&t->slot[i], r, memory_order_release);
            if (r == &mem_tomb)
                m->nlive--;
            return cur;
        }
        i = (i + 1) & t->mask;
    }
    if (r == &mem_tomb)
        return NULL;
    if (tomb_at != UINT64_MAX) {
        i = tomb_at;
    } else {
        m->nused++;
    }
    m->nlive++;
    atomic_store_explicit(&t->slot[i], r, memory_order_release);
    return NULL;
}

/* Current record of page in the live table (tombstones are reported as NULL). */
static const struct page_rec *tab_get(const struct mem *m, uint64_t page)
{
    const struct mem_table *t = atomic_load_explicit(&m->tab, memory_order_relaxed);
    return tab_lookup(t, page);
}

static struct page_rec *rec_new(uint64_t first, uint64_t last, uint32_t n, uint32_t interior)
{
    struct page_rec *r = malloc(sizeof *r + n * sizeof r->e[0]);
    if (r) {
        r->first = first;
        r->last = last;
        r->n = n;
        r->interior = interior;
    }
    return r;
}

/* Bytes an allocation occupies for overlap purposes (a size-0 one holds its base). */
static uint64_t alloc_extent(const struct mem_alloc *a)
{
    return a->size ? a->size : 1;
}

/* Page span of an allocation: all pages [pf, pl], interior pages [if_, il] (empty if if_ > il). */
struct span {
    uint64_t pf, pl, if_, il;
};

static struct span alloc_span(const struct mem_alloc *a)
{
    uint64_t end = a->base + alloc_extent(a);
    struct span s;
    s.pf = a->base >> MEM_PAGE_SHIFT;
    s.pl = (end - 1) >> MEM_PAGE_SHIFT;
    s.if_ = (a->base + MEM_PAGE - 1) >> MEM_PAGE_SHIFT;
    s.il = (end >> MEM_PAGE_SHIFT) - 1; /* may wrap below if_ when empty */
    if (a->size == 0 || (end >> MEM_PAGE_SHIFT) == 0 || s.if_ > s.il)
        s.if_ = 1, s.il = 0;
    return s;
}

/* Boundary pages of a span: those not interior (at most two). Returns how many. */
static unsigned span_boundary(const struct span *s, uint64_t out[2])
{
    unsigned n = 0;
    for (uint64_t p = s->pf; p <= s->pl && n < 2; p++) {
        if (s->if_ <= s->il && p >= s->if_ && p <= s->il) {
            p = s->il; /* jump over the interior run */
            continue;
        }
        out[n++] = p;
    }
    return n;
}

static bool overlaps(const struct mem_alloc *a, uint64_t base, uint64_t ext)
{
    return a->base < base + ext && base < a->base + alloc_extent(a);
}

/* Publish node's allocation in the table. 0, -EEXIST when it overlaps a live allocation, or
 * -ENOMEM; on failure nothing changed. full_check probes every page of the interior run for an
 * overlap (user blocks); a block fresh from the host allocator only has its keys and the ends
 * of its superpages probed. */
static int mem_insert(struct mem *m, struct mem_node *node, bool full_check)
{
    const struct mem_alloc *a = &node->a;
    struct span s = alloc_span(a);
    uint64_t bpages[2];
    unsigned nb = span_boundary(&s, bpages);
    struct key_runs keys = {.n = 0};
    if (s.if_ <= s.il)
        interior_keys(s.if_, s.il, &keys);
    uint64_t nkeys = key_runs_count(&keys);
    struct page_rec *newb[2] = {NULL, NULL}, *inter = NULL;
    int rc;

    /* overlap checks first, so a failure changes nothing */
    if (full_check) {
        for (uint64_t p = s.if_; p <= s.il && nkeys; p++)
            if (tab_get(m, p))
                return -EEXIST;
    } else {
        for (unsigned i = 0; i < keys.n; i++)
            for (uint64_t x = keys.lo[i]; x <= keys.hi[i]; x++) {
                uint64_t p = run_page(&keys, i, x);
                if (tab_get(m, p) ||
                    (keys.super[i] && tab_get(m, p + (UINT64_C(1) << MEM_SUPER_SHIFT) - 1)))
                    return -EEXIST;
            }
    }
    for (unsigned k = 0; k < nb; k++) {
        const struct page_rec *cur = tab_get(m, bpages[k]);
        for (uint32_t i = 0; cur && i < cur->n; i++)
            if (overlaps(cur->e[i].a, a->base, alloc_extent(a)))
                return -EEXIST;
    }
    if ((rc = tab_reserve(m, nkeys + nb)) || (rc = retire_reserve(m, 2)))
        return rc;

    /* build every new record before publishing any */
    for (unsigned k = 0; k < nb; k++) {
        const struct page_rec *cur = tab_get(m, bpages[k]);
        uint32_t n = cur ? cur->n : 0, j = 0;
        newb[k] = rec_new(bpages[k], bpages[k], n + 1, 0);
        if (!newb[k])
            goto nomem;
        bool placed = false;
        for (uint32_t i = 0; i < n; i++) {
            if (!placed && a->base < cur->e[i].base) {
                newb[k]->e[j++] = (struct rec_ent){a->base, a};
                placed = true;
            }
            newb[k]->e[j++] = cur->e[i];
        }
        if (!placed)
            newb[k]->e[j++] = (struct rec_ent){a->base, a};
    }
    if (nkeys) {
        inter = rec_new(s.if_, s.il, 1, 1);
        if (!inter)
            goto nomem;
        inter->e[0] = (struct rec_ent){a->base, a};
    }

    node->interior = inter;
    for (unsigned i = 0; i < keys.n; i++)
        for (uint64_t x = keys.lo[i]; x <= keys.hi[i]; x++)
            tab_set(m, run_key(&keys, i, x), run_page(&keys, i, x), inter);
    for (unsigned k = 0; k < nb; k++)
        retire(m, tab_set(m, bpages[k], bpages[k], newb[k]));
    node->prev = NULL;
    node->next = m->head;
    if (m->head)
        m->head->prev = node;
    m->head = node;
    return 0;

nomem:
    free(newb[0]);
    free(newb[1]);
    free(inter);
    return -ENOMEM;
}

/* Unpublish node's allocation and retire its records and the node itself. */
static int mem_remove(struct mem *m, struct mem_node *node)
{
    const struct mem_alloc *a = &node->a;
    struct span s = alloc_span(a);
    uint64_t bpages[2];
    unsigned nb = span_boundary(&s, bpages);
    struct page_rec *newb[2] = {NULL, NULL};
    int rc = retire_reserve(m, 4);
    if (rc)
        return rc;

    for (unsigned k = 0; k < nb; k++) {
        const struct page_rec *cur = tab_get(m, bpages[k]);
        if (!cur || cur->n < 1)
            continue;
        if (cur->n == 1)
            continue; /* becomes a tombstone */
        newb[k] = rec_new(bpages[k], bpages[k], cur->n - 1, 0);
        if (!newb[k]) {
            free(newb[0]);
            return -ENOMEM;
        }
        uint32_t j = 0;
        for (uint32_t i = 0; i < cur->n; i++)
            if (cur->e[i].a != a)
                newb[k]->e[j++] = cur->e[i];
        newb[k]->n = j;
    }
    for (unsigned k = 0; k < nb; k++)
        retire(m, tab_set(m, bpages[k], bpages[k], newb[k] ? newb[k] : &mem_tomb));
    if (node->interior) {
        struct key_runs keys;
        interior_keys(s.if_, s.il, &keys);
        for (unsigned i = 0; i < keys.n; i++)
            for (uint64_t x = keys.lo[i]; x <= keys.hi[i]; x++)
                tab_set(m, run_key(&keys, i, x), run_page(&keys, i, x), &mem_tomb);
        retire(m, node->interior);
        node->interior = NULL;
    }
    if (node->prev)
        node->prev->next = node->next;
    else
        m->head = node->next;
    if (node->next)
        node->next->prev = node->prev;
    return 0;
}

static void node_release_host(struct mem_node *n)
{
    free(n->a.init);
    n->a.init = NULL;
    if (!n->host)
        return;
    if (n->maplen)
        munmap(n->host, n->maplen);
    else
        free(n->host);
    n->host = NULL;
}

static bool in_windows(uint64_t base, uint64_t ext)
{
    static const uint64_t w[3][2] = {{MEM_SHARED_BASE, MEM_SHARED_SIZE},
                                     {MEM_LOCAL_BASE, MEM_LOCAL_SIZE},
                                     {MEM_PARAM_BASE, MEM_PARAM_SIZE}};
    for (int i = 0; i < 3; i++)
        if (base < w[i][0] + w[i][1] && w[i][0] < base + ext)
            return true;
    return false;
}

static uint64_t counted_bytes(const struct mem_alloc *a)
{
    return (a->flags & (MEM_F_DEVICE | MEM_F_MANAGED)) ? a->size : 0;
}

#define MEM_CANON_ALIGN (UINT64_C(2) << 20) /* canonical blocks start 2 MiB apart, as cudaMalloc's */

static int mem_publish(struct mem *m, struct mem_node *node, bool full_check)
{
    pthread_mutex_lock(&m->lock);
    node->a.id = ++m->next_id;
    if (!m->next_canon)
        m->next_canon = UINT64_C(1) << 40;
    node->a.canon = m->next_canon;
    int rc = mem_insert(m, node, full_check);
    if (rc == 0) {
        uint64_t span = (node->a.size + MEM_CANON_ALIGN - 1) & ~(MEM_CANON_ALIGN - 1);
        m->next_canon += span ? span : MEM_CANON_ALIGN;
    }
    if (rc == 0)
        atomic_fetch_add_explicit(&m->used_bytes, counted_bytes(&node->a), memory_order_relaxed);
    pthread_mutex_unlock(&m->lock);
    return rc;
}

/* ================================================================ public writer API */

#define MEM_POPULATE_MAX (UINT64_C(256) << 20) /* largest block backed up front */
#define MEM_HUGE (UINT64_C(2) << 20) /* x86-64 / arm64 transparent huge page size */

/* mmap len (a multiple of MEM_PAGE) zero-filled bytes for a large block; NULL on failure.
 * Blocks of 2 MiB and more are placed on a 2 MiB boundary and marked MADV_HUGEPAGE, so a
 * kernel's first touch of a fresh cudaMalloc costs one fault per 2 MiB instead of one per
 * 4 KiB (page faults serialize host threads on the address-space lock and dominated
 * memory-bound kernels); MAP_NORESERVE: mem_alloc decides whether to back it up front. */
static void *map_block(uint64_t len)
{
    int prot = PROT_READ | PROT_WRITE, fl = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    if (len < MEM_HUGE) {
        void *p = mmap(NULL, len, prot, fl, -1, 0);
        return p == MAP_FAILED ? NULL : p;
    }
    uint64_t span = len + MEM_HUGE;
    if (span < len)
        return NULL;
    char *raw = mmap(NULL, span, prot, fl, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    uintptr_t start = ((uintptr_t)raw + MEM_HUGE - 1) & ~(uintptr_t)(MEM_HUGE - 1);
    if (start > (uintptr_t)raw)
        munmap(raw, start - (uintptr_t)raw);
    uintptr_t end = start + len, raw_end = (uintptr_t)raw + span;
    if (raw_end > end)
        munmap((void *)end, raw_end - end);
#ifdef MADV_HUGEPAGE
    (void)madvise((void *)start, len, MADV_HUGEPAGE); /* advisory: failure only costs speed */
#endif
    return (void *)start;
}

/* Allocate a zero-filled block aligned to >= 256 and publish it; small blocks come from
 * aligned_alloc, large ones from mmap (MAP_NORESERVE), backed up front when at most 256 MiB
 * and the device's memory is under a quarter of host RAM, lazily otherwise (so huge test
 * allocations do not commit host memory). */
int mem_alloc(struct mem *m, uint64_t size, uint32_t flags, uint64_t *addr)
{
    if (size > MEM_MAX_SIZE)
        return -ENOMEM;
    struct mem_node *node = calloc(1, sizeof *node);
    if (!node)
        return -ENOMEM;
    if (size >= MEM_MMAP_MIN) {
        uint64_t len = (size + MEM_PAGE - 1) & ~(MEM_PAGE - 1);
        void *p = map_block(len);
        if (!p) {
            free(node);
            return -ENOMEM;
        }
        /* A GPU's cudaMalloc is backed when it returns. Do the same for blocks of up to
         * MEM_POPULATE_MAX while the device's memory stays within a quarter of host RAM, so
         * first-touch page faults (which serialize the host threads on the address-space
         * lock) are not paid inside a kernel; bigger blocks stay lazily backed (backing
         * costs about 2 ms per MiB on a VM's fresh memory, wasted on huge test
         * allocations that are never touched). */
#ifdef MADV_POPULATE_WRITE
        if (len <= MEM_POPULATE_MAX &&
            atomic_load_explicit(&m->used_bytes, memory_order_relaxed) + len <=
                m->populate_budget)
            (void)madvise(p, len, MADV_POPULATE_WRITE); /* advisory: failure costs speed */
#endif
        node->host = p;
        node->maplen = len;
    } else {
        uint64_t len = (size + MEM_ALIGN - 1) & ~(uint64_t)(MEM_ALIGN - 1);
        if (len == 0)
            len = MEM_ALIGN; /* size 0: a real block gives a unique address */
        void *p = aligned_alloc(MEM_ALIGN, len);
        if (!p) {
            free(node);
            return -ENOMEM;
        }
        memset(p, 0, len);
        node->host = p;
    }
    node->a.base = (uint64_t)(uintptr_t)node->host;
    node->a.size = size;
    node->a.flags = flags;
    int rc =
        in_windows(node->a.base, alloc_extent(&node->a)) ? -ENOMEM : mem_publish(m, node, false);
    if (rc) {
        node_release_host(node);
        free(node);
        return rc == -EEXIST ? -ENOMEM : rc;
    }
    *addr = node->a.base;
    return 0;
}

/* Publish a user-owned host block (cudaHostRegister). -EINVAL for NULL/size 0/wrapping or
 * window ranges, -EEXIST when it overlaps a live allocation or registration. */
int mem_register(struct mem *m, void *host, uint64_t size, uint32_t flags)
{
    uint64_t base = (uint64_t)(uintptr_t)host;
    if (!host || size == 0 || size > MEM_MAX_SIZE || base + size < base || in_windows(base, size))
        return -EINVAL;
    struct mem_node *node = calloc(1, sizeof *node);
    if (!node)
        return -ENOMEM;
    node->a.base = base;
    node->a.size = size;
    node->a.flags = flags | MEM_F_REGISTERED;
    int rc = mem_publish(m, node, true);
    if (rc)
        free(node);
    return rc;
}

/* Free (or unregister) the allocation starting exactly at addr. */
int mem_free(struct mem *m, uint64_t addr)
{
    pthread_mutex_lock(&m->lock);
    int rc = -EINVAL;
    const struct mem_alloc *a = mem_find(m, addr, 0);
    if (a && a->base == addr) {
        struct mem_node *node = (struct mem_node *)(uintptr_t)a; /* a is node->a (first) */
        rc = mem_remove(m, node);
        if (rc == 0) {
            atomic_fetch_sub_explicit(&m->used_bytes, counted_bytes(a), memory_order_relaxed);
            node_release_host(node);
            retire(m, node);
        }
    }
    pthread_mutex_unlock(&m->lock);
    return rc;
}

/* ================================================================ host copies */

/* Host copies: the whole range must lie in one allocation (a copy spanning two adjacent
 * allocations is as invalid as on a GPU). A zero length is always fine. */
int mem_read(const struct mem *m, void *dst, uint64_t src, uint64_t len)
{
    if (len == 0)
        return 0;
    if (!mem_find(m, src, len))
        return -EFAULT;
    memcpy(dst, (const void *)(uintptr_t)src, len);
    return 0;
}

int mem_write(struct mem *m, uint64_t dst, const void *src, uint64_t len)
{
    if (len == 0)
        return 0;
    if (!mem_find(m, dst, len))
        return -EFAULT;
    memcpy((void *)(uintptr_t)dst, src, len);
    mem_mark_init(m, dst, len);
    return 0;
}

int mem_set(struct mem *m, uint64_t dst, int byte, uint64_t len)
{
    if (len == 0)
        return 0;
    if (!mem_find(m, dst, len))
        return -EFAULT;
    memset((void *)(uintptr_t)dst, byte, len);
    mem_mark_init(m, dst, len);
    return 0;
}

/* ================================================================ initcheck shadow */

/* Give the allocation at addr its written-bytes bitmap (see mem.h). */
int mem_track_init(struct mem *m, uint64_t addr)
{
    pthread_mutex_lock(&m->lock);
    int rc = -EINVAL;
    const struct mem_alloc *a = mem_find(m, addr, 0);
    if (a && a->base == addr) {
        struct mem_node *node = (struct mem_node *)(uintptr_t)a;
        rc = 0;
        if (!node->a.init) {
            node->a.init = calloc(1, (size_t)(a->size / 8 + 1));
            if (!node->a.init)
                rc = -ENOMEM;
        }
    }
    pthread_mutex_unlock(&m->lock);
    return rc;
}

/* Set bits [lo, hi) of a bitmap, atomically per byte (CTAs on several host threads). */
static void bits_set(uint8_t *b, uint64_t lo, uint64_t hi)
{
    while (lo < hi && (lo & 7)) {
        __atomic_fetch_or(&b[lo >> 3], (uint8_t)(1u << (lo & 7)), __ATOMIC_RELAXED);
        lo++;
    }
    if (hi - lo >= 8 && lo < hi) {
        uint64_t nb = (hi - lo) >> 3;
        for (uint64_t i = 0; i < nb; i++)
            __atomic_store_n(&b[(lo >> 3) + i], (uint8_t)0xff, __ATOMIC_RELAXED);
        lo += nb << 3;
    }
    while (lo < hi) {
        __atomic_fetch_or(&b[lo >> 3], (uint8_t)(1u << (lo & 7)), __ATOMIC_RELAXED);
        lo++;
    }
}

/* Record [addr, addr+len) as written in the tracked allocations it touches (see mem.h). */
void mem_mark_init(const struct mem *m, uint64_t addr, uint64_t len)
{
    uint64_t end = addr + len < addr ? UINT64_MAX : addr + len;
    while (addr < end) {
        const struct mem_alloc *a = mem_find(m, addr, 1);
        if (!a)
            return; /* copies lie in one allocation (callers checked) */
        uint64_t aend = a->base + a->size, hi = end < aend ? end : aend;
        if (a->init)
            bits_set(a->init, addr - a->base, hi - a->base);
        addr = hi;
    }
}

/* The first byte of [addr, addr+len) in a never written, or UINT64_MAX (see mem.h). */
uint64_t mem_first_uninit(const struct mem_alloc *a, uint64_t addr, uint64_t len)
{
    if (!a->init)
        return UINT64_MAX;
    for (uint64_t i = addr - a->base, e = i + len; i < e && i < a->size; i++)
        if (!(__atomic_load_n(&a->init[i >> 3], __ATOMIC_RELAXED) >> (i & 7) & 1))
            return a->base + i;
    return UINT64_MAX;
}

/* Visit the live allocations with one of `flags` (see mem.h). */
void mem_foreach(struct mem *m, uint32_t flags, void (*fn)(void *ctx, const struct mem_alloc *a),
                 void *ctx)
{
    pthread_mutex_lock(&m->lock);
    struct mem_node *last = m->head;
    while (last && last->next)
        last = last->next;
    for (struct mem_node *n = last; n; n = n->prev)
        if (n->a.flags & flags)
            fn(ctx, &n->a);
    pthread_mutex_unlock(&m->lock);
}

/* The string must end (NUL) inside the allocation that holds addr. */
int mem_read_str(const struct mem *m, uint64_t addr, char *buf, size_t cap)
{
    const struct mem_alloc *a = mem_find(m, addr, 1);
    if (!a)
        return -EFAULT;
    const char *s = (const char *)(uintptr_t)addr;
    const char *nul = memchr(s, 0, a->base + a->size - addr);
    if (!nul)
        return -EFAULT;
    size_t n = (size_t)(nul - s);
    if (cap > 0) {
        size_t k = n < cap - 1 ? n : cap - 1;
        memcpy(buf, s, k);
        buf[k] = 0;
    }
    return n > INT32_MAX ? INT32_MAX : (int)n;
}

/* ================================================================ windows, create, destroy */

/* Is [base, base+size) entirely covered by mappings we accept as a reservation? Any mapping in
 * the range that is not PROT_NONE is refused (except under ASan, whose shadow memory occupies
 * part of the .shared window: no host allocation can land there either). Returns 0 when every
 * gap could be reserved, or -errno. */
static int reserve_gaps(uint64_t base, uint64_t size)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return -errno;
    uint64_t cur = base, end = base + size;
    char line[512];
    int rc = 0;
    while (rc == 0 && cur < end && fgets(line, sizeof line, f)) {
        uint64_t lo, hi;
        char perms[8];
        if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s", &lo, &hi, perms) != 3)
            continue;
        if (hi <= cur || lo >= end)
            continue;
        if (!MEM_ASAN && strcmp(perms, "---p") != 0) {
            rc = -EEXIST;
            break;
        }
        if (lo > cur) {
            void *p =
                mmap((void *)(uintptr_t)cur, lo - cur, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
            if (p == MAP_FAILED)
                rc = -errno;
            else if ((uint64_t)(uintptr_t)p != cur) {
                munmap(p, lo - cur);
                rc = -EEXIST;
            }
        }
        cur = hi;
    }
    fclose(f);
    if (rc == 0 && cur < end) {
        void *p = mmap((void *)(uintptr_t)cur, end - cur, PROT_NONE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
        if (p == MAP_FAILED)
            rc = -errno;
        else if ((uint64_t)(uintptr_t)p != cur) {
            munmap(p, end - cur);
            rc = -EEXIST;
        }
    }
    return rc;
}

/* Reserve one generic window with a PROT_NONE mapping. An existing PROT_NONE reservation (a
 * store created earlier in this process) is accepted as is. */
static int reserve_window(uint64_t base, uint64_t size)
{
    void *want = (void *)(uintptr_t)base;
    void *p = mmap(want, size, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == want)
        return 0;
    if (p != MAP_FAILED) /* a kernel without MAP_FIXED_NOREPLACE took it as a hint */
        munmap(p, size);
    else if (errno != EEXIST)
        return -errno;
    int rc = -EEXIST;
    for (int attempt = 0; attempt < 3 && rc == -EEXIST; attempt++)
        rc = reserve_gaps(base, size);
    return rc;
}

/* Create the store and reserve the generic windows. -EEXIST when a window is occupied by a
 * host mapping (the address-space layout cannot host the emulator), -ENOMEM, or another -errno
 * from mmap. */
int mem_create(struct mem **out)
{
    *out = NULL;
    static const uint64_t w[3][2] = {{MEM_SHARED_BASE, MEM_SHARED_SIZE},
                                     {MEM_LOCAL_BASE, MEM_LOCAL_SIZE},
                                     {MEM_PARAM_BASE, MEM_PARAM_SIZE}};
    for (int i = 0; i < 3 && !MEM_TSAN; i++) {
        int rc = reserve_window(w[i][0], w[i][1]);
        /* Under an address-space limit (ulimit -v) the 12 GiB of PROT_NONE reservations may
         * not fit: go on without them. They only keep host mappings out of the windows;
         * allocations and registrations that would overlap a window are refused anyway
         * (in_windows), and the kernel places mappings far below these addresses. */
        struct rlimit rl;
        if (rc == -ENOMEM && getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
            break;
        if (rc)
            return rc;
    }
    struct mem *m = calloc(1, sizeof *m);
    if (!m)
        return -ENOMEM;
    struct mem_table *t = tab_new(MEM_MIN_SLOTS);
    if (!t) {
        free(m);
        return -ENOMEM;
    }
    if (pthread_mutex_init(&m->lock, NULL) != 0) {
        free(t);
        free(m);
        return -ENOMEM;
    }
    atomic_init(&m->tab, t);
    atomic_init(&m->used_bytes, 0);
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    m->populate_budget = pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz / 4 : 0;
    *out = m;
    return 0;
}

/* Free everything retired so far; the caller guarantees there are no concurrent readers. */
void mem_reclaim(struct mem *m)
{
    pthread_mutex_lock(&m->lock);
    for (size_t i = 0; i < m->nretired; i++)
        free(m->retired[i]);
    m->nretired = 0;
    pthread_mutex_unlock(&m->lock);
}

/* Free every allocation (registered user blocks are only forgotten), every record and table.
 * The window reservations stay (see the file comment). */
void mem_destroy(struct mem *m)
{
    if (!m)
        return;
    mem_reclaim(m);
    /* the table first: its slots may point at the nodes' interior records, freed below */
    struct mem_table *t = atomic_load_explicit(&m->tab, memory_order_relaxed);
    for (uint64_t i = 0; i <= t->mask; i++) {
        const struct page_rec *r = atomic_load_explicit(&t->slot[i], memory_order_relaxed);
        if (r && r != &mem_tomb && !r->interior)
            free((void *)(uintptr_t)r);
    }
    free(t);
    struct mem_node *n = m->head;
    while (n) {
        struct mem_node *next = n->next;
        node_release_host(n);
        free(n->interior);
        free(n);
        n = next;
    }
    free(m->retired);
    pthread_mutex_destroy(&m->lock);
    free(m);
}
