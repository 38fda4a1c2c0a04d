/*
 * timing/cache.c — the cache model behind timing/cache.h: a tag array of 32-byte sectors with
 * per-sector valid / reserved / written state and per-byte write masks, MSHRs that merge
 * reads of data already being fetched, a miss queue towards the next level, and GPGPU-Sim's
 * allocation, write-hit, write-miss, replacement and set-index policies.
 *
 * Semantics follow GPGPU-Sim's gpu-cache.cc (tag_array, mshr_table, read_only_cache,
 * data_cache); where this model decides differently it says so here and in timing/README.md
 * ("The cache model"). In short:
 *
 *   - State per line: `valid` (sectors whose whole data is present), `pend` (sectors reserved
 *     for a fill: allocate-on-miss only), `wsec` + `wb[2]` (sectors / bytes written; in a
 *     write-back cache these are the dirty data). A non-sectored cache keeps the same state but
 *     treats the line as one unit: an access asks for every sector, a fetch asks for every
 *     sector not present, and a partial fill (a sectored next level answering sector by sector,
 *     GPGPU-Sim's 'S' MSHR kind) leaves the line missing until its last sector arrived.
 *   - MSHRs are keyed by line; an entry counts against `mshr_entries` once per sector in a
 *     sectored cache (GPGPU-Sim's mshr_addr is the sector address there) and once per line
 *     otherwise. A unit (sector, or line) stays occupied while it is being fetched or any
 *     access that waited for it has not been handed back by tm_cache_next_ready (GPGPU-Sim
 *     releases an entry when its last merged request is consumed). The merge limit counts the
 *     accesses held by a unit, the one that started the fetch included.
 *   - Reservation failures are checked in GPGPU-Sim's order: no allocatable line, then miss
 *     queue room, then MSHR merge slot, then MSHR entry. Room is what GPGPU-Sim reserves: a
 *     read that does not hit needs 2 free miss-queue slots in a writable cache (fill + a
 *     possible writeback) and 1 in a read-only one; a write needs 1, 2 when it fetches
 *     (fetch-on-write of a partial sector), 3 with the naive write-allocate ('W').
 *
 * Everything is allocated at create; an access never allocates and never divides when the set
 * count is a power of two. Only fills, tm_cache_warm and tm_cache_flush may grow the miss
 * queue past its limit (their evictions cannot be refused).
 */
#include "timing/cache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE      UINT32_MAX
#define SECTOR    32u
#define MAX_UNITS 4 /* sectors per line: lines are at most 128 bytes */

/* Per-line state; the tag is in tm_cache.tags (found via tm_cache.lidx), the victim key in vkey. */
struct line {
    uint64_t t_access; /* last access (LRU) */
    uint64_t t_alloc;  /* allocation (FIFO) */
    uint64_t wb[2];    /* bytes written since allocation or the last writeback */
    uint8_t valid;     /* sectors whose data is present */
    uint8_t pend;      /* sectors reserved for a fill (allocate-on-miss) */
    uint8_t wsec;      /* sectors with written bytes: dirty in a write-back cache */
};

/* One MSHR: the fetches outstanding for a line and the accesses waiting for them. */
struct mshr {
    uint64_t line;
    uint32_t hnext;            /* hash chain, or free list */
    uint32_t whead, wtail;     /* waiting accesses in arrival order (not yet satisfied) */
    uint16_t nwait[MAX_UNITS]; /* per unit: accesses held (waiting, or ready and not popped) */
    uint8_t pend;              /* sectors being fetched */
    uint8_t held;              /* units occupying an MSHR entry */
};

/* An access waiting for sectors (then on the ready list until popped). */
struct waiter {
    uint64_t token;
    uint32_t next;  /* MSHR waiting list, ready list, or free list */
    uint32_t entry; /* its MSHR */
    uint8_t need;   /* sectors still awaited */
    uint8_t units;  /* units whose nwait it counts in */
};

struct tm_cache {
    struct tm_cache_geom g;
    char name[16];
    uint32_t nsec;      /* 32-byte sectors per line (1 for lines up to 32 bytes) */
    uint32_t nunits;    /* MSHR units per line: nsec (sectored) or 1 */
    uint8_t full;       /* every sector */
    uint64_t lbytes[2]; /* every byte of a line */
    uint64_t lmask;     /* line - 1 */
    uint32_t line_log2, set_log2, set_mask;
    bool set_pow2;
    char wpol;          /* 'B' write-back, 'T' write-through, 'E' write-evict ('L' and 'R' too) */
    char walloc;        /* 'N', 'W', 'F', 'L' ('N' for read-only caches) */
    bool on_miss;       /* allocate (reserve) lines when the miss is sent */
    uint32_t rd_room;   /* miss-queue slots a non-hitting read needs */
    uint64_t ipoly[16]; /* IPOLY: per set-index bit, the higher address bits folded into it */

    uint32_t nlines;
    uint64_t *tags; /* [set * assoc + way]: line address | 1, or 0 when empty */
    struct line *lines;
    uint64_t *vkey; /* victim key: 0 empty, UINT64_MAX reserved, else replacement time + 1 */
    uint32_t *lidx; /* line address -> line: open addressing, linear probing, NONE empty */
    uint32_t lidx_mask, lidx_shift;

    struct mshr *ent;
    uint32_t *bucket;
    uint32_t bucket_shift;
    uint32_t ent_free;
    uint32_t used; /* MSHR units occupied */

    struct waiter *w;
    uint32_t w_cap, w_top, w_free;
    uint32_t rhead, rtail; /* ready list */

    struct tm_cache_out *mq;
    uint32_t mq_cap, mq_head, mq_n;

    uint64_t stats[TM_CS__COUNT];
};

/* ------------------------------------------------------------------ set index */

static inline unsigned parity64(uint64_t v)
{
    return (unsigned)__builtin_parityll(v);
}

/* GPGPU-Sim's cache_config::set_index for the cache's function. */
static inline uint32_t set_of(const struct tm_cache *c, uint64_t a)
{
    uint64_t blk = a >> c->line_log2;
    switch (c->g.set_index) {
    case 'H': {
        /* Fermi (Nugteren et al., HPCA 2014): address bits 7-11 XOR bits 13,14,15,17,19; with
         * 64 sets bit 12 is the sixth set bit. Absolute bit positions, as in GPGPU-Sim. */
        uint32_t lower = (uint32_t)blk & 0x1f;
        uint32_t upper =
            (uint32_t)(((a & 0xE000) >> 13) | ((a & 0x20000) >> 14) | ((a & 0x80000) >> 15));
        uint32_t s = lower ^ upper;
        if (c->g.nset == 64)
            s |= (uint32_t)((a & 0x1000) >> 7);
        return s;
    }
    case 'P': {
        uint32_t s = (uint32_t)blk & c->set_mask;
        uint64_t hi = blk >> c->set_log2;
        for (uint32_t i = 0; i < c->set_log2; i++)
            s ^= parity64(hi & c->ipoly[i]) << i;
        return s;
    }
    case 'X':
        return (uint32_t)(blk ^ (blk >> c->set_log2)) & c->set_mask;
    default:
        return c->set_pow2 ? (uint32_t)blk & c->set_mask : (uint32_t)(blk % c->g.nset);
    }
}

/* IPOLY: the set number is the block number modulo a polynomial over GF(2), i.e. index bit i
 * is the index bit XOR the parity of the higher bits j whose x^(n+j) mod P has bit i. For 16,
 * 32 and 64 sets GPGPU-Sim's hashing.cc uses P = x^4+x+1, x^5+x^2+1, x^6+x+1 over the 13, 15
 * and 19 lowest higher bits (its equations are exactly these residues); other power-of-two
 * counts (GPGPU-Sim asserts) use a primitive polynomial of the degree over all higher bits. */
static void ipoly_init(struct tm_cache *c)
{
    /* low terms of primitive polynomials x^n + …, n = 1 … 16 (Peterson's table) */
    static const uint32_t low[17] = {0,    0x1, 0x3, 0x3,  0x3,  0x5,   0x3, 0x3,   0x1D,
                                     0x11, 0x9, 0x5, 0x53, 0x1B, 0x443, 0x3, 0x100B};
    uint32_t n = c->set_log2;
    uint32_t k = 64 - c->line_log2 - n;
    if (n == 4)
        k = 13;
    else if (n == 5)
        k = 15;
    else if (n == 6)
        k = 19;
    uint32_t rem = low[n]; /* x^n mod P */
    for (uint32_t j = 0; j < k && j < 64; j++) {
        for (uint32_t i = 0; i < n; i++)
            if (rem >> i & 1)
                c->ipoly[i] |= 1ull << j;
        /* multiply by x */
        rem <<= 1;
        if (rem >> n & 1)
            rem = (rem & ((1u << n) - 1)) ^ low[n];
    }
}

/* ------------------------------------------------------------------ helpers */

static inline uint8_t units_of(const struct tm_cache *c, uint8_t sectors)
{
    return c->g.sectored ? sectors : (uint8_t)(sectors != 0);
}

/* Bytes of sector s within the line. */
static inline void sector_bytes(const struct tm_cache *c, unsigned s, uint64_t out[2])
{
    out[0] = out[1] = 0;
    if (c->nsec == 1) {
        out[0] = c->lbytes[0];
        out[1] = c->lbytes[1];
        return;
    }
    out[s >> 1] = 0xFFFFFFFFull << ((s & 1) * 32);
}

static void bytes_of_sectors(const struct tm_cache *c, uint8_t sectors, uint64_t out[2])
{
    out[0] = out[1] = 0;
    for (unsigned s = 0; s < c->nsec; s++)
        if (sectors >> s & 1) {
            uint64_t b[2];
            sector_bytes(c, s, b);
            out[0] |= b[0];
            out[1] |= b[1];
        }
}

static uint8_t sectors_of_bytes(const struct tm_cache *c, const uint64_t bm[2])
{
    uint8_t m = 0;
    for (unsigned s = 0; s < c->nsec; s++) {
        uint64_t b[2];
        sector_bytes(c, s, b);
        if ((bm[0] & b[0]) | (bm[1] & b[1]))
            m |= (uint8_t)(1u << s);
    }
    return m;
}

/* The sector holding addr, as a mask. */
static inline uint8_t sector_at(const struct tm_cache *c, uint64_t addr)
{
    return c->nsec == 1 ? 1 : (uint8_t)(1u << ((addr & c->lmask) / SECTOR));
}

/* Sectors an access concerns: the given ones (the sector of addr when none), every sector of
 * the line in a non-sectored cache. */
static inline uint8_t norm_sectors(const struct tm_cache *c, uint64_t addr, uint8_t sectors)
{
    if (!c->g.sectored)
        return c->full;
    sectors &= c->full;
    return sectors ? sectors : sector_at(c, addr);
}

static inline uint32_t line_hash(const struct tm_cache *c, uint64_t key)
{
    return (uint32_t)(((key >> c->line_log2) * 0x9E3779B97F4A7C15ull) >> c->lidx_shift);
}

/* The line holding key (line address | 1), or NONE: one hash probe, so a hit costs the same
 * at any associativity (the set is computed only when a victim is needed). */
static inline uint32_t find_line(const struct tm_cache *c, uint64_t key)
{
    for (uint32_t h = line_hash(c, key);; h = (h + 1) & c->lidx_mask) {
        uint32_t i = c->lidx[h];
        if (i == NONE || c->tags[i] == key)
            return i;
    }
}

static void lidx_insert(struct tm_cache *c, uint32_t i)
{
    uint32_t h = line_hash(c, c->tags[i]);
    while (c->lidx[h] != NONE)
        h = (h + 1) & c->lidx_mask;
    c->lidx[h] = i;
}

/* Remove line i (its tag still set) from the index, shifting later entries of its probe run
 * back so lookups never meet a hole. */
static void lidx_remove(struct tm_cache *c, uint32_t i)
{
    uint32_t h = line_hash(c, c->tags[i]);
    while (c->lidx[h] != i)
        h = (h + 1) & c->lidx_mask;
    c->lidx[h] = NONE;
    for (uint32_t j = h;;) {
        j = (j + 1) & c->lidx_mask;
        uint32_t e = c->lidx[j];
        if (e == NONE)
            return;
        uint32_t r = line_hash(c, c->tags[e]);
        bool stays = h <= j ? (h < r && r <= j) : (h < r || r <= j);
        if (stays)
            continue;
        c->lidx[h] = e;
        c->lidx[j] = NONE;
        h = j;
    }
}

/* Empty line i. */
static void clear_line(struct tm_cache *c, uint32_t i)
{
    if (c->tags[i])
        lidx_remove(c, i);
    c->tags[i] = 0;
    c->vkey[i] = 0;
    memset(&c->lines[i], 0, sizeof c->lines[i]);
}

/* GPGPU-Sim's victim: among lines not reserved for a fill, the last empty way, else the least
 * recently accessed (LRU) or earliest allocated (FIFO), the lowest way on a tie. NONE when
 * every way is reserved. One pass over the set's victim keys (tm_cache.vkey). */
static uint32_t pick_victim(const struct tm_cache *c, uint32_t set)
{
    uint32_t base = set * c->g.assoc, inv = NONE, best = NONE;
    const uint64_t *k = c->vkey + base;
    uint64_t bt = UINT64_MAX;
    for (uint32_t w = 0; w < c->g.assoc; w++) {
        if (!k[w])
            inv = base + w;
        else if (k[w] < bt) {
            bt = k[w];
            best = base + w;
        }
    }
    return inv != NONE ? inv : best;
}

/* Recompute line i's victim key after its tag, reservation or times changed. */
static inline void vkey_set(struct tm_cache *c, uint32_t i)
{
    const struct line *l = &c->lines[i];
    uint64_t t = c->g.repl == 'F' ? l->t_alloc : l->t_access;
    c->vkey[i] = !c->tags[i]          ? 0
                 : l->pend            ? UINT64_MAX
                 : t < UINT64_MAX - 2 ? t + 1
                                      : UINT64_MAX - 1;
}

static inline void touch(struct tm_cache *c, uint32_t i, uint64_t now)
{
    c->lines[i].t_access = now;
    vkey_set(c, i);
}

static inline bool line_dirty(const struct tm_cache *c, uint32_t i)
{
    return c->wpol == 'B' && c->lines[i].wsec;
}

/* ------------------------------------------------------------------ miss queue */

static bool mq_reserve(struct tm_cache *c, uint32_t n)
{
    if (c->mq_n + n <= c->mq_cap)
        return true;
    uint32_t cap = c->mq_cap;
    while (cap < c->mq_n + n) {
        if (cap > UINT32_MAX / 2)
            return false;
        cap *= 2;
    }
    struct tm_cache_out *q = malloc((size_t)cap * sizeof *q);
    if (!q)
        return false;
    for (uint32_t k = 0; k < c->mq_n; k++)
        q[k] = c->mq[(c->mq_head + k) % c->mq_cap];
    free(c->mq);
    c->mq = q;
    c->mq_cap = cap;
    c->mq_head = 0;
    return true;
}

/* Append (room was checked or reserved). */
static void mq_push(struct tm_cache *c, uint8_t kind, uint64_t addr, uint64_t token,
                    const uint64_t bm[2], uint8_t sectors)
{
    uint32_t t = c->mq_head + c->mq_n;
    if (t >= c->mq_cap)
        t -= c->mq_cap;
    c->mq[t] = (struct tm_cache_out){
        .addr = addr, .token = token, .bmask = {bm[0], bm[1]}, .sectors = sectors, .kind = kind};
    c->mq_n++;
}

/* ------------------------------------------------------------------ lines */

/* Write back line i if dirty (queue room is the caller's), then empty it. */
static void evict(struct tm_cache *c, uint32_t i)
{
    struct line *l = &c->lines[i];
    if (line_dirty(c, i)) {
        uint8_t secs = c->g.sectored ? l->wsec : c->full;
        mq_push(c, TM_COUT_WRITEBACK, c->tags[i] & ~1ull, 0, l->wb, secs);
        c->stats[TM_CS_WRITEBACKS]++;
        c->stats[TM_CS_WRITEBACK_SECTORS] += (uint64_t)__builtin_popcount(secs);
    }
    clear_line(c, i);
}

static void alloc_line(struct tm_cache *c, uint32_t i, uint64_t key, uint64_t now)
{
    c->tags[i] = key;
    c->lines[i] = (struct line){.t_access = now, .t_alloc = now};
    vkey_set(c, i);
    lidx_insert(c, i);
}

/* Record written bytes; sectors they now cover completely become valid without a fill. */
static void apply_write(struct tm_cache *c, uint32_t i, const uint64_t bm[2], uint8_t ws)
{
    struct line *l = &c->lines[i];
    l->wb[0] |= bm[0];
    l->wb[1] |= bm[1];
    l->wsec |= ws;
    for (unsigned s = 0; s < c->nsec; s++) {
        if (!(ws >> s & 1) || (l->valid >> s & 1))
            continue;
        uint64_t b[2];
        sector_bytes(c, s, b);
        if ((l->wb[0] & b[0]) == b[0] && (l->wb[1] & b[1]) == b[1]) {
            l->valid |= (uint8_t)(1u << s);
            c->stats[TM_CS_FULL_SECTOR_WRITES]++;
        }
    }
}

/* Sectors of ws that the written bytes (existing + bm) would cover completely. */
static uint8_t covered_after(const struct tm_cache *c, uint32_t i, const uint64_t bm[2], uint8_t ws)
{
    uint64_t w0 = bm[0], w1 = bm[1];
    if (i != NONE) {
        w0 |= c->lines[i].wb[0];
        w1 |= c->lines[i].wb[1];
    }
    uint8_t m = 0;
    for (unsigned s = 0; s < c->nsec; s++) {
        uint64_t b[2];
        sector_bytes(c, s, b);
        if ((ws >> s & 1) && (w0 & b[0]) == b[0] && (w1 & b[1]) == b[1])
            m |= (uint8_t)(1u << s);
    }
    return m;
}

/* Drop sectors from line i (write-evict); the line empties when nothing is left. */
static void invalidate_sectors(struct tm_cache *c, uint32_t i, uint8_t secs)
{
    struct line *l = &c->lines[i];
    uint64_t b[2];
    bytes_of_sectors(c, secs, b);
    l->valid &= (uint8_t)~secs;
    l->wsec &= (uint8_t)~secs;
    l->wb[0] &= ~b[0];
    l->wb[1] &= ~b[1];
    if (!l->valid && !l->pend && !l->wsec)
        clear_line(c, i);
}

/* ------------------------------------------------------------------ MSHRs */

static inline uint32_t mshr_hash(const struct tm_cache *c, uint64_t la)
{
    return (uint32_t)(((la >> c->line_log2) * 0x9E3779B97F4A7C15ull) >> c->bucket_shift);
}

static uint32_t mshr_find(const struct tm_cache *c, uint64_t la)
{
    for (uint32_t e = c->bucket[mshr_hash(c, la)]; e != NONE; e = c->ent[e].hnext)
        if (c->ent[e].line == la)
            return e;
    return NONE;
}

static uint32_t mshr_new(struct tm_cache *c, uint64_t la)
{
    uint32_t e = c->ent_free; /* never NONE: entries in use ≤ units in use < mshr_entries */
    struct mshr *m = &c->ent[e];
    c->ent_free = m->hnext;
    uint32_t h = mshr_hash(c, la);
    *m = (struct mshr){.line = la, .hnext = c->bucket[h], .whead = NONE, .wtail = NONE};
    c->bucket[h] = e;
    return e;
}

/* Recompute the units entry e occupies; release it when none is left. */
static void mshr_update(struct tm_cache *c, uint32_t e)
{
    struct mshr *m = &c->ent[e];
    uint8_t h = units_of(c, m->pend);
    for (uint32_t u = 0; u < c->nunits; u++)
        if (m->nwait[u])
            h |= (uint8_t)(1u << u);
    c->used -= (uint32_t)__builtin_popcount(m->held & ~h);
    c->used += (uint32_t)__builtin_popcount(h & ~m->held);
    m->held = h;
    if (h)
        return;
    uint32_t *p = &c->bucket[mshr_hash(c, m->line)];
    while (*p != e)
        p = &c->ent[*p].hnext;
    *p = m->hnext;
    m->hnext = c->ent_free;
    c->ent_free = e;
}

static uint32_t waiter_new(struct tm_cache *c)
{
    uint32_t k = c->w_free;
    if (k != NONE) {
        c->w_free = c->w[k].next;
        return k;
    }
    return c->w_top < c->w_cap ? c->w_top++ : NONE;
}

/* ------------------------------------------------------------------ create / destroy */

static bool pow2(uint32_t v)
{
    return v && !(v & (v - 1));
}

static uint32_t log2u(uint64_t v)
{
    uint32_t n = 0;
    while (v > 1) {
        v >>= 1;
        n++;
    }
    return n;
}

int tm_cache_create(struct tm_cache **out, const struct tm_cache_geom *g, const char *name)
{
    *out = NULL;
    if (!g || !g->present || !pow2(g->line) || g->line < 2 || g->line > 128 || !g->nset ||
        !g->assoc || (uint64_t)g->nset * g->assoc > (1u << 24))
        return -EINVAL;
    if (g->sectored && g->line % SECTOR)
        return -EINVAL;
    if (!strchr("LF", g->repl) || !g->repl || !strchr("RBTEL", g->write) || !g->write ||
        !strchr("mfs", g->alloc) || !g->alloc || !strchr("NWFL", g->write_alloc) ||
        !g->write_alloc || !strchr("LHPXC", g->set_index) || !g->set_index ||
        !strchr("ASFT", g->mshr) || !g->mshr)
        return -EINVAL;
    if ((g->set_index == 'H' && g->nset != 32 && g->nset != 64) ||
        ((g->set_index == 'P' || g->set_index == 'X') && !pow2(g->nset)) ||
        (g->set_index == 'P' && (g->nset < 2 || g->nset > 65536)))
        return -EINVAL;
    if (!g->mshr_entries || !g->mshr_merge || g->mshr_merge > 65535 ||
        (uint64_t)g->mshr_entries * g->mshr_merge > (1u << 24))
        return -EINVAL;
    uint32_t rd_room = g->write == 'R' ? 1 : 2;
    uint32_t wr_room = g->write == 'R'         ? 1
                       : g->write_alloc == 'W' ? 3
                       : g->write_alloc == 'F' ? 2
                                               : 1;
    if (g->miss_queue < rd_room || g->miss_queue < wr_room || g->miss_queue > (1u << 24))
        return -EINVAL;

    struct tm_cache *c = calloc(1, sizeof *c);
    if (!c)
        return -ENOMEM;
    c->g = *g;
    snprintf(c->name, sizeof c->name, "%s", name ? name : "cache");
    c->nsec = g->line >= SECTOR ? g->line / SECTOR : 1;
    c->nunits = g->sectored ? c->nsec : 1;
    c->full = (uint8_t)((1u << c->nsec) - 1);
    c->lbytes[0] = g->line >= 64 ? UINT64_MAX : (1ull << g->line) - 1;
    c->lbytes[1] = g->line == 128 ? UINT64_MAX : 0;
    c->lmask = g->line - 1;
    c->line_log2 = log2u(g->line);
    c->set_pow2 = pow2(g->nset);
    c->set_log2 = c->set_pow2 ? log2u(g->nset) : 0;
    c->set_mask = g->nset - 1;
    c->wpol = g->write == 'B' || g->write == 'T' ? g->write : 'E';
    c->walloc = g->write == 'R' ? 'N' : g->write_alloc;
    c->on_miss = g->alloc == 'm';
    c->rd_room = rd_room;
    if (g->set_index == 'P')
        ipoly_init(c);

    c->nlines = g->nset * g->assoc;
    c->tags = calloc(c->nlines, sizeof *c->tags);
    c->lines = calloc(c->nlines, sizeof *c->lines);
    c->vkey = calloc(c->nlines, sizeof *c->vkey);
    uint32_t nl = 1;
    while (nl < 2 * c->nlines)
        nl *= 2;
    c->lidx = malloc((size_t)nl * sizeof *c->lidx);
    c->lidx_mask = nl - 1;
    c->lidx_shift = 64 - log2u(nl);
    c->ent = calloc(g->mshr_entries, sizeof *c->ent);
    uint32_t nb = 1;
    while (nb < 2 * g->mshr_entries)
        nb *= 2;
    c->bucket = malloc((size_t)nb * sizeof *c->bucket);
    c->bucket_shift = 64 - log2u(nb);
    c->w_cap = g->mshr_entries * g->mshr_merge;
    /* untouched until used: a large merge limit costs address space, not memory */
    c->w = malloc((size_t)c->w_cap * sizeof *c->w);
    c->mq_cap = g->miss_queue + 4;
    c->mq = malloc((size_t)c->mq_cap * sizeof *c->mq);
    if (!c->tags || !c->lines || !c->vkey || !c->lidx || !c->ent || !c->bucket || !c->w || !c->mq) {
        tm_cache_destroy(c);
        return -ENOMEM;
    }
    for (uint32_t k = 0; k < nb; k++)
        c->bucket[k] = NONE;
    memset(c->lidx, 0xFF, (size_t)nl * sizeof *c->lidx);
    for (uint32_t e = 0; e < g->mshr_entries; e++)
        c->ent[e].hnext = e + 1 < g->mshr_entries ? e + 1 : NONE;
    c->ent_free = 0;
    c->w_free = NONE;
    c->rhead = c->rtail = NONE;
    *out = c;
    return 0;
}

void tm_cache_destroy(struct tm_cache *c)
{
    if (!c)
        return;
    free(c->tags);
    free(c->lines);
    free(c->vkey);
    free(c->lidx);
    free(c->ent);
    free(c->bucket);
    free(c->w);
    free(c->mq);
    free(c);
}

/* ------------------------------------------------------------------ access */

static enum tm_cache_res resfail(struct tm_cache *c, bool write, enum tm_cache_stat cause)
{
    c->stats[write ? TM_CS_WR_RESFAIL : TM_CS_RD_RESFAIL]++;
    c->stats[cause]++;
    return TM_CACHE_RESFAIL;
}

static enum tm_cache_res read_access(struct tm_cache *c, uint64_t addr, uint8_t sectors,
                                     uint64_t token, uint64_t now)
{
    uint64_t la = addr & ~c->lmask;
    uint8_t want = norm_sectors(c, addr, sectors);
    uint32_t i = find_line(c, la | 1);
    uint8_t miss = want & (uint8_t) ~(i != NONE ? c->lines[i].valid : 0);
    if (!miss) {
        touch(c, i, now);
        c->stats[TM_CS_RD_HIT]++;
        return TM_CACHE_HIT;
    }
    uint32_t e = mshr_find(c, la);
    uint8_t fetch = miss & (uint8_t) ~(e != NONE ? c->ent[e].pend : 0);
    uint32_t v = NONE;
    if (i == NONE && fetch && c->on_miss && (v = pick_victim(c, set_of(c, la))) == NONE)
        return resfail(c, false, TM_CS_FAIL_LINE_ALLOC);
    if (c->mq_n + c->rd_room > c->g.miss_queue)
        return resfail(c, false, TM_CS_FAIL_MISS_QUEUE);
    uint8_t um = units_of(c, miss), held = e != NONE ? c->ent[e].held : 0;
    for (uint32_t u = 0; u < c->nunits; u++)
        if ((um & held) >> u & 1 && c->ent[e].nwait[u] >= c->g.mshr_merge)
            return resfail(c, false, TM_CS_FAIL_MSHR_MERGE);
    uint32_t newu = (uint32_t)__builtin_popcount(um & (uint8_t)~held);
    if (c->used + newu > c->g.mshr_entries)
        return resfail(c, false, TM_CS_FAIL_MSHR_ENTRY);
    uint32_t k = waiter_new(c);
    if (k == NONE) /* cannot happen: waiters ≤ units × merge limit */
        return resfail(c, false, TM_CS_FAIL_MSHR_MERGE);

    bool present = i != NONE;
    if (v != NONE) {
        evict(c, v);
        alloc_line(c, v, la | 1, now);
        i = v;
    }
    if (i != NONE) {
        if (c->on_miss)
            c->lines[i].pend |= fetch;
        touch(c, i, now);
    }
    if (e == NONE)
        e = mshr_new(c, la);
    struct mshr *m = &c->ent[e];
    if (fetch) {
        uint64_t b[2];
        bytes_of_sectors(c, fetch, b);
        mq_push(c, TM_COUT_FILL, la, token, b, fetch);
        m->pend |= fetch;
    }
    c->w[k] = (struct waiter){.token = token, .next = NONE, .entry = e, .need = miss, .units = um};
    if (m->wtail == NONE)
        m->whead = k;
    else
        c->w[m->wtail].next = k;
    m->wtail = k;
    for (uint32_t u = 0; u < c->nunits; u++)
        if (um >> u & 1)
            m->nwait[u]++;
    mshr_update(c, e);
    if (!fetch) {
        c->stats[TM_CS_RD_HIT_RESERVED]++;
        return TM_CACHE_HIT_RESERVED;
    }
    c->stats[present ? TM_CS_RD_SECTOR_MISS : TM_CS_RD_MISS]++;
    return TM_CACHE_MISS;
}

static enum tm_cache_res write_access(struct tm_cache *c, uint64_t addr, uint8_t sectors,
                                      const uint64_t bmask[2], uint64_t token, uint64_t now)
{
    uint64_t la = addr & ~c->lmask;
    uint64_t bm[2];
    uint8_t ws;
    if (bmask) {
        bm[0] = bmask[0] & c->lbytes[0];
        bm[1] = bmask[1] & c->lbytes[1];
        ws = (uint8_t)((sectors & c->full) | sectors_of_bytes(c, bm));
        if (!ws)
            ws = sector_at(c, addr);
    } else {
        ws = sectors & c->full;
        if (!ws)
            ws = sector_at(c, addr);
        bytes_of_sectors(c, ws, bm);
    }
    uint8_t hs = c->g.sectored ? ws : c->full; /* what must be present for a hit */
    uint32_t i = find_line(c, la | 1);
    uint8_t have = i != NONE ? (uint8_t)(c->lines[i].valid | c->lines[i].wsec) : 0;

    if (!(hs & (uint8_t)~have)) { /* hit */
        if (c->wpol != 'B' && c->mq_n + 1 > c->g.miss_queue)
            return resfail(c, true, TM_CS_FAIL_MISS_QUEUE);
        if (c->wpol == 'E') {
            invalidate_sectors(c, i, hs);
        } else {
            apply_write(c, i, bm, ws);
            touch(c, i, now);
        }
        if (c->wpol != 'B')
            mq_push(c, TM_COUT_WRITE, la, token, bm, ws);
        c->stats[TM_CS_WR_HIT]++;
        return TM_CACHE_HIT;
    }

    if (c->walloc == 'N') {
        if (c->mq_n + 1 > c->g.miss_queue)
            return resfail(c, true, TM_CS_FAIL_MISS_QUEUE);
        if (c->wpol == 'E' && i != NONE)
            invalidate_sectors(c, i, hs & c->lines[i].valid);
        mq_push(c, TM_COUT_WRITE, la, token, bm, ws);
        c->stats[TM_CS_WR_MISS]++;
        return TM_CACHE_MISS;
    }

    /* write-allocate: 'L' lazy fetch-on-read, 'F' fetch-on-write, 'W' naive */
    uint32_t v = NONE;
    if (i == NONE && (v = pick_victim(c, set_of(c, la))) == NONE)
        return resfail(c, true, TM_CS_FAIL_LINE_ALLOC);
    uint32_t e = mshr_find(c, la);
    uint8_t pend = e != NONE ? c->ent[e].pend : 0;
    uint8_t valid = i != NONE ? c->lines[i].valid : 0;
    uint8_t fetch = 0;
    if (c->walloc == 'W')
        fetch = hs & (uint8_t)~valid & (uint8_t)~pend;
    else if (c->walloc == 'F')
        fetch = hs & (uint8_t)~valid & (uint8_t)~pend & (uint8_t)~covered_after(c, i, bm, hs);
    uint32_t room = c->walloc == 'W' ? 3 : fetch ? 2 : 1;
    if (c->mq_n + room > c->g.miss_queue)
        return resfail(c, true, TM_CS_FAIL_MISS_QUEUE);
    uint8_t um = units_of(c, fetch), held = e != NONE ? c->ent[e].held : 0;
    uint32_t newu = (uint32_t)__builtin_popcount(um & (uint8_t)~held);
    if (c->used + newu > c->g.mshr_entries)
        return resfail(c, true, TM_CS_FAIL_MSHR_ENTRY);

    if (v != NONE) {
        evict(c, v);
        alloc_line(c, v, la | 1, now);
        i = v;
    }
    if (c->walloc != 'W') /* the naive write-allocate sends the write on: the line stays clean */
        apply_write(c, i, bm, ws);
    touch(c, i, now);
    if (c->wpol != 'B' || c->walloc == 'W')
        mq_push(c, TM_COUT_WRITE, la, token, bm, ws);
    if (fetch) {
        if (e == NONE)
            e = mshr_new(c, la);
        uint64_t b[2];
        bytes_of_sectors(c, fetch, b);
        mq_push(c, TM_COUT_FILL, la, token, b, fetch);
        c->ent[e].pend |= fetch;
        if (c->on_miss) {
            c->lines[i].pend |= fetch;
            vkey_set(c, i);
        }
        mshr_update(c, e);
    }
    c->stats[TM_CS_WR_MISS]++;
    return TM_CACHE_MISS;
}

enum tm_cache_res tm_cache_access(struct tm_cache *c, uint64_t addr, uint8_t sectors, bool write,
                                  const uint64_t bmask[2], uint64_t token, uint64_t now)
{
    return write ? write_access(c, addr, sectors, bmask, token, now)
                 : read_access(c, addr, sectors, token, now);
}

/* ------------------------------------------------------------------ miss queue, fills */

const struct tm_cache_out *tm_cache_miss_peek(const struct tm_cache *c)
{
    return c->mq_n ? &c->mq[c->mq_head] : NULL;
}

void tm_cache_miss_pop(struct tm_cache *c)
{
    if (!c->mq_n)
        return;
    c->mq_head = c->mq_head + 1 == c->mq_cap ? 0 : c->mq_head + 1;
    c->mq_n--;
}

/* Line for la in set, allocating one (evicting a victim) when absent; NONE when every way is
 * reserved or the victim's writeback cannot be queued. */
static uint32_t line_for_fill(struct tm_cache *c, uint64_t la, uint64_t now)
{
    uint32_t i = find_line(c, la | 1);
    if (i != NONE)
        return i;
    uint32_t v = pick_victim(c, set_of(c, la));
    if (v == NONE || (line_dirty(c, v) && !mq_reserve(c, 1)))
        return NONE;
    evict(c, v);
    alloc_line(c, v, la | 1, now);
    return v;
}

void tm_cache_fill(struct tm_cache *c, uint64_t addr, uint8_t sectors, uint64_t now)
{
    uint64_t la = addr & ~c->lmask;
    uint8_t s = sectors & c->full;
    if (!s)
        s = c->full;
    c->stats[TM_CS_FILLS] += (uint64_t)__builtin_popcount(s);
    /* the data is cached if a line can hold it; the waiting accesses get it either way */
    uint32_t i = line_for_fill(c, la, now);
    if (i != NONE) {
        c->lines[i].valid |= s;
        c->lines[i].pend &= (uint8_t)~s;
        vkey_set(c, i);
    }
    uint32_t e = mshr_find(c, la);
    if (e == NONE)
        return;
    struct mshr *m = &c->ent[e];
    m->pend &= (uint8_t)~s;
    uint32_t prev = NONE;
    for (uint32_t k = m->whead; k != NONE;) {
        struct waiter *w = &c->w[k];
        uint32_t next = w->next;
        w->need &= (uint8_t)~s;
        if (w->need) {
            prev = k;
        } else {
            if (prev == NONE)
                m->whead = next;
            else
                c->w[prev].next = next;
            if (m->wtail == k)
                m->wtail = prev;
            w->next = NONE;
            if (c->rtail == NONE)
                c->rhead = k;
            else
                c->w[c->rtail].next = k;
            c->rtail = k;
        }
        k = next;
    }
    mshr_update(c, e);
}

bool tm_cache_next_ready(struct tm_cache *c, uint64_t *token)
{
    uint32_t k = c->rhead;
    if (k == NONE)
        return false;
    struct waiter *w = &c->w[k];
    c->rhead = w->next;
    if (c->rhead == NONE)
        c->rtail = NONE;
    *token = w->token;
    struct mshr *m = &c->ent[w->entry];
    for (uint32_t u = 0; u < c->nunits; u++)
        if (w->units >> u & 1)
            m->nwait[u]--;
    mshr_update(c, w->entry);
    w->next = c->w_free;
    c->w_free = k;
    return true;
}

/* ------------------------------------------------------------------ whole-cache operations */

void tm_cache_warm(struct tm_cache *c, uint64_t addr, uint8_t sectors, uint64_t now)
{
    uint64_t la = addr & ~c->lmask;
    uint8_t s = c->g.sectored && (sectors & c->full) ? sectors & c->full : c->full;
    uint32_t i = line_for_fill(c, la, now);
    if (i == NONE)
        return;
    /* as GPGPU-Sim's tag_array::fill: a line already present keeps its access time */
    c->lines[i].valid |= s;
}

void tm_cache_invalidate(struct tm_cache *c)
{
    memset(c->tags, 0, (size_t)c->nlines * sizeof *c->tags);
    memset(c->lines, 0, (size_t)c->nlines * sizeof *c->lines);
    memset(c->vkey, 0, (size_t)c->nlines * sizeof *c->vkey);
    memset(c->lidx, 0xFF, ((size_t)c->lidx_mask + 1) * sizeof *c->lidx);
}

uint32_t tm_cache_flush(struct tm_cache *c)
{
    uint32_t n = 0;
    if (c->wpol != 'B')
        return 0;
    for (uint32_t i = 0; i < c->nlines; i++) {
        struct line *l = &c->lines[i];
        if (!c->tags[i] || !l->wsec)
            continue;
        if (!mq_reserve(c, 1))
            break;
        uint8_t secs = c->g.sectored ? l->wsec : c->full;
        mq_push(c, TM_COUT_WRITEBACK, c->tags[i] & ~1ull, 0, l->wb, secs);
        c->stats[TM_CS_WRITEBACKS]++;
        c->stats[TM_CS_WRITEBACK_SECTORS] += (uint64_t)__builtin_popcount(secs);
        l->wsec = 0;
        l->wb[0] = l->wb[1] = 0;
        if (!l->valid && !l->pend)
            clear_line(c, i);
        n++;
    }
    return n;
}

bool tm_cache_probe(const struct tm_cache *c, uint64_t addr, uint8_t sectors)
{
    uint64_t la = addr & ~c->lmask;
    uint32_t i = find_line(c, la | 1);
    return i != NONE && !(norm_sectors(c, addr, sectors) & (uint8_t)~c->lines[i].valid);
}

bool tm_cache_idle(const struct tm_cache *c)
{
    return !c->used && !c->mq_n && c->rhead == NONE;
}

const uint64_t *tm_cache_stats(const struct tm_cache *c)
{
    return c->stats;
}

/* GPGPU-Sim's outcome and failure names (cache_request_status_str, cache_fail_status_str,
 * including its spelling "ENRTY"), prefixed RD_/WR_ where reads and writes are apart. */
const char *tm_cache_stat_name(enum tm_cache_stat s)
{
    static const char *const names[TM_CS__COUNT] = {
        [TM_CS_RD_HIT] = "RD_HIT",
        [TM_CS_RD_HIT_RESERVED] = "RD_HIT_RESERVED",
        [TM_CS_RD_MISS] = "RD_MISS",
        [TM_CS_RD_SECTOR_MISS] = "RD_SECTOR_MISS",
        [TM_CS_RD_RESFAIL] = "RD_RESERVATION_FAIL",
        [TM_CS_WR_HIT] = "WR_HIT",
        [TM_CS_WR_MISS] = "WR_MISS",
        [TM_CS_WR_RESFAIL] = "WR_RESERVATION_FAIL",
        [TM_CS_FAIL_LINE_ALLOC] = "LINE_ALLOC_FAIL",
        [TM_CS_FAIL_MISS_QUEUE] = "MISS_QUEUE_FULL",
        [TM_CS_FAIL_MSHR_ENTRY] = "MSHR_ENRTY_FAIL",
        [TM_CS_FAIL_MSHR_MERGE] = "MSHR_MERGE_ENRTY_FAIL",
        [TM_CS_FILLS] = "FILL_SECTORS",
        [TM_CS_WRITEBACKS] = "WRITEBACKS",
        [TM_CS_WRITEBACK_SECTORS] = "WRITEBACK_SECTORS",
        [TM_CS_FULL_SECTOR_WRITES] = "FULL_SECTOR_WRITES",
    };
    return (unsigned)s < TM_CS__COUNT ? names[s] : "?";
}

const struct tm_cache_geom *tm_cache_geom_of(const struct tm_cache *c)
{
    return &c->g;
}
