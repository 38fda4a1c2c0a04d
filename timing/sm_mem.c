/*
 * timing/sm_mem.c — the SM's memory pipeline, after GPGPU-Sim's ldst_unit: the coalescer
 * (lanes grouped by access width, 128-byte lines with 32-byte sector and byte masks; local
 * memory interleaved per thread; device addresses made canonical), the LD/ST unit
 * (shared-memory bank conflicts, constant-cache serialisation, one line per cycle), the
 * per-SM L1 data cache and the responses of the memory system.
 *
 * Everything here writes only the SM's own state (see tm_int.h).
 */
#include "timing/sm_int.h"
#include "timing/sample.h"

#include "timing/cache.h"
#include "interp/mem.h"

#include <errno.h>
#include <stdlib.h>

/* Start CTA `linear` of the running kernel: the engine brings it up, the SM gives it a CTA
 * slot and a contiguous run of warp slots (GPGPU-Sim's hardware thread ids). */
/* (Re)build one of the SM's read-only L1s (constant, texture) when `on` and configured:
 * 0, -ENOMEM, or -EINVAL (a geometry the cache model refuses: no such cache). */
static int l1_ro_make(struct tm_cache **c, const struct tm_cache_geom *g, bool on,
                      const char *name)
{
    tm_cache_destroy(*c);
    *c = NULL;
    if (!on || !g->present)
        return 0;
    return tm_cache_create(c, g, name);
}

/* (Re)build the L1T (when `on` and configured) and its texture pipeline (GPGPU-Sim's
 * tex_cache): the string's MSHR entries, merge limit and miss queue are the fragment FIFO,
 * request FIFO and reorder buffer sizes; the tag array behind them (cache.c) gets limits the
 * FIFOs never reach (an MSHR per reorder-buffer entry, any number of merges, a miss queue
 * one longer than the request FIFO), since GPGPU-Sim's texture tags are valid from the miss
 * on and a later access to the line is a hit that waits its turn in the fragment FIFO. */
static int l1t_make(struct tm_sm *s, bool on)
{
    const struct tm_cache_geom *g0 = &s->cfg->l1t;
    free(s->tf);
    s->tf = NULL;
    s->tf_cap = s->tf_head = s->tf_n = s->tf_rob = s->tf_req = 0;
    if (!on || !g0->present)
        return l1_ro_make(&s->l1t, g0, false, "L1T");
    struct tm_cache_geom g = *g0;
    g.mshr = 'A';
    g.mshr_entries = g0->miss_queue * (g0->sectored ? g0->line / 32 : 1); /* (sectors) */
    g.mshr_merge = g0->mshr_entries;
    g.miss_queue = g0->mshr_merge + 1;
    int r = l1_ro_make(&s->l1t, &g, true, "L1T");
    if (r)
        return r;
    s->tf = calloc(g0->mshr_entries, sizeof *s->tf);
    if (!s->tf)
        return -ENOMEM;
    s->tf_cap = g0->mshr_entries;
    s->tf_rob_cap = g0->miss_queue;
    s->tf_req_cap = g0->mshr_merge;
    return 0;
}

/*
 * (Re)build the SM's L1 caches for a kernel whose shared-memory carve-out is shmem_bytes.
 * The L1 data cache: with -gpgpu_adaptive_cache_config and -gpgpu_unified_l1d_size it gets
 * what the carve-out leaves of the unified array (ways = bytes / (sets × line)), as GPGPU-Sim
 * sizes it; none with -gpgpu_perfect_mem or -gpgpu_cache:dl1 none. Writes are modelled
 * write-through (the GPU's L1 is write-through for global memory; a write-back policy for
 * local memory is not modelled). The L1 constant cache (-gpgpu_const_cache:l1; none with
 * -gpgpu_perfect_inst_const_cache 1) and the L1 texture cache (-gpgpu_tex_cache:l1) are
 * built from their strings as given (none with -gpgpu_perfect_mem). With `keep`
 * (-gpgpu_flush_l1_cache 0 at a kernel boundary) an L1D of the same size is kept with its
 * lines. 0, -ENOMEM, or -EINVAL (a geometry the cache model refuses: that cache is absent).
 */
int tm_sm_l1d_make(struct tm_sm *s, uint32_t shmem_bytes, bool keep)
{
    const struct tm_config *cfg = s->cfg;
    bool mem = !cfg->o.gpgpu_perfect_mem;
    /* caches built and never accessed since (no CTA placed) are already what a rebuild
     * would make: the L1C and L1T always (they do not depend on the carve-out), the L1D for
     * the same carve-out (rebuilding frees and re-allocates, and touching fresh pages again
     * cost a first kernel's launch its share of page faults) */
    if (s->l1_fresh && shmem_bytes == s->l1_shmem)
        return 0;
    if (!s->l1_fresh &&
        (l1_ro_make(&s->l1c, &cfg->l1c, mem && !cfg->o.gpgpu_perfect_inst_const_cache, "L1C") ==
             -ENOMEM ||
         l1t_make(s, mem) == -ENOMEM))
        return -ENOMEM;
    if (s->l1c && !s->l1c_hit.buf &&
        tm_queue_init(&s->l1c_hit, 256))
        return -ENOMEM;
    struct tm_cache_geom g = cfg->dl1;
    if (g.write == 'B' || g.write == 'L')
        g.write = 'T';
    if (cfg->o.gpgpu_adaptive_cache_config && cfg->o.gpgpu_unified_l1d_size > 0) {
        uint64_t total = (uint64_t)cfg->o.gpgpu_unified_l1d_size * 1024;
        uint64_t left = total > shmem_bytes ? total - shmem_bytes : 0;
        uint64_t ways = left / ((uint64_t)g.nset * g.line);
        if (ways)
            g.assoc = (uint32_t)ways;
    }
    /* -gpgpu_flush_l1_cache 0: the L1D keeps its lines into the next kernel when the
     * carve-out leaves it the same ways */
    if (keep && s->l1d && mem && g.present && tm_cache_geom_of(s->l1d)->assoc == g.assoc)
        return 0;
    tm_cache_destroy(s->l1d);
    s->l1d = NULL;
    if (!mem || !cfg->dl1.present)
        return 0;
    int r = tm_cache_create(&s->l1d, &g, "L1D");
    s->l1_fresh = r == 0;
    s->l1_shmem = shmem_bytes;
    return r;
}

/* Invalidate the SM's L1s at a kernel boundary: the L1C and L1T always (constant memory and
 * textures may have been rewritten), the L1D with -gpgpu_flush_l1_cache 1 (GPGPU-Sim's
 * cache_invalidate when an SM's threads completed; the L1D is not coherent); fills in flight
 * still complete. */
void tm_sm_l1_invalidate(struct tm_sm *s)
{
    if (s->l1d && s->cfg->o.gpgpu_flush_l1_cache)
        tm_cache_invalidate(s->l1d);
    if (s->l1c)
        tm_cache_invalidate(s->l1c);
    if (s->l1t)
        tm_cache_invalidate(s->l1t);
}

/* Nothing in flight in the SM's L1s (MSHRs, miss queues, hits waiting for their latency)? */
bool tm_sm_l1_idle(const struct tm_sm *s)
{
    return !s->l1_hit.n && !s->l1c_hit.n && !s->tf_n &&
           (!s->l1d || tm_cache_idle(s->l1d)) && (!s->l1c || tm_cache_idle(s->l1c)) &&
           (!s->l1t || tm_cache_idle(s->l1t));
}

/* Free the L1s and their hit queues (tm_sm_free). */
void tm_sm_l1_free(struct tm_sm *s)
{
    tm_queue_free(&s->l1_hit);
    tm_queue_free(&s->l1c_hit);
    tm_cache_destroy(s->l1d);
    tm_cache_destroy(s->l1c);
    tm_cache_destroy(s->l1t);
    s->l1d = s->l1c = s->l1t = NULL;
    free(s->tf);
    s->tf = NULL;
}

/* The SM-local address of a local-memory access: the ABI interleaves 32-bit words of a
 * warp's threads, so a warp reading the same offset touches one 128-byte line. */
static uint64_t local_addr(const struct tm_sm *s, uint32_t wslot, uint64_t off, uint32_t lane)
{
    return (1ull << 62) | (uint64_t)s->id << 44 | (uint64_t)wslot << 32 |
           ((off >> 2) << 7 | lane << 2 | (off & 3));
}

/* The canonical address of a device-memory access (mem_alloc.canon: where allocation order,
 * not the host, put the block), so that channels, banks and cache sets, hence every cycle
 * count, are the same run to run. Addresses outside any block are kept. */
static uint64_t canon_addr(struct tm_sm *s, const struct tm_kernel *k, uint64_t addr)
{
    if (addr - s->cv_lo < s->cv_hi - s->cv_lo)
        return addr + s->cv_off;
    const struct mem_alloc *a = k && k->dmem ? mem_find(k->dmem, addr, 0) : NULL;
    if (!a)
        return addr;
    s->cv_lo = a->base;
    s->cv_hi = a->base + (a->size ? a->size : 1);
    s->cv_off = a->canon - a->base;
    return addr + s->cv_off;
}

/* Where kernel parameters live for the L1C and the memory system (above any device block
 * and the SMs' local windows at bit 62). */
#define PARAM_BASE (1ull << 61)

/* Set bits [a, b] (inclusive, b < 128) of a 128-bit byte mask, a word at a time. */
static inline void bytes_mask(uint64_t m[2], uint32_t a, uint32_t b)
{
    for (uint32_t w = a >> 6; w <= b >> 6; w++) {
        uint32_t lo = w == a >> 6 ? a & 63 : 0, hi = w == b >> 6 ? b & 63 : 63;
        m[w] |= (hi == 63 ? ~0ull : (1ull << (hi + 1)) - 1) & ~((1ull << lo) - 1);
    }
}

/* The index of line `ln` in memop m, searched from index `from` on; a new (empty) entry when
 * it is not there, or the last entry when the record is full (merged into it). */
static inline uint32_t memop_line(struct tm_memop *m, uint32_t from, uint64_t ln)
{
    uint32_t k = from;
    while (k < m->nline && m->line[k] != ln)
        k++;
    if (k < m->nline)
        return k;
    if (m->nline == TM_MAX_LINES)
        return TM_MAX_LINES - 1; /* beyond the record: merged into the last */
    m->line[k] = ln;
    m->sectors[k] = 0;
    m->bytes[k] = 0;
    m->bmask[k][0] = m->bmask[k][1] = 0;
    m->nline++;
    return k;
}

/* The memory part of a bulk or tensor copy (the step reported its global bytes as runs):
 * every 128-byte line each run touches is a request to memory, past the L1D (as the TMA's
 * copies on Hopper), read (a load), written (a store: answered by its acknowledgements) or
 * both (a reduction: an atomic request); the lines are made one per cycle as the LD/ST unit
 * sends them (bulk_line). The runs are kept in the memop (canonical addresses). */
static void bulk_fill(struct tm_sm *s, struct tm_memop *m, uint32_t wslot,
                      const struct engine_step_report *r)
{
    const uint16_t op = r->insn ? r->insn->op : 0;
    const bool red = op == OP_CP_REDUCE_ASYNC_BULK || op == OP_CP_REDUCE_ASYNC_BULK_TENSOR;
    bool wr = false;
    for (uint32_t i = 0; i < r->nrange; i++)
        wr |= r->range[i].write != 0;
    m->kind = red ? TM_REQ_ATOMIC : wr ? TM_REQ_WRITE : TM_REQ_READ;
    m->space = SP_GLOBAL;
    m->flags = TM_RQF_NOL1;
    m->bulk = 1;
    m->nrng = m->rng_k = 0;
    m->rng_off = 0;
    if (m->rng_cap < r->nrange) {
        struct tm_brange *p = realloc(m->rng, r->nrange * sizeof *p);
        if (p) {
            m->rng = p;
            m->rng_cap = r->nrange;
        }
    }
    const struct tm_kernel *k = s->w[wslot].cta->k;
    for (uint32_t i = 0; i < r->nrange && m->nrng < m->rng_cap; i++) {
        const struct engine_range *g = &r->range[i];
        if (!g->bytes || (wr && !g->write)) /* (a reduction: the written runs) */
            continue;
        const uint64_t a = canon_addr(s, k, g->addr);
        m->rng[m->nrng++] = (struct tm_brange){a, g->bytes};
        m->nline += (uint32_t)(((a + g->bytes - 1) >> 7) - (a >> 7) + 1);
    }
}

/* A bulk copy's next line request into line[0] (not sent yet: bulk_next moves on once it
 * is): the part of run rng_k from rng_off to the end of its 128-byte line. */
static void bulk_line(struct tm_memop *m)
{
    const struct tm_brange *g = &m->rng[m->rng_k];
    const uint64_t a = g->addr + m->rng_off, ln = a & ~127ull;
    const uint64_t end = g->addr + g->bytes - 1, hi = end < ln + 127 ? end : ln + 127;
    const uint32_t lo = (uint32_t)(a - ln), h = (uint32_t)(hi - ln);
    m->line[0] = ln;
    m->sectors[0] = (uint8_t)(((2u << (h >> 5)) - 1) & ~((1u << (lo >> 5)) - 1));
    m->bytes[0] = (uint16_t)(h - lo + 1);
    m->bmask[0][0] = m->bmask[0][1] = 0;
    bytes_mask(m->bmask[0], lo, h);
}

/* line[0] of bulk copy m was sent: on to the next line of its run, or the next run. */
static void bulk_next(struct tm_memop *m)
{
    const struct tm_brange *g = &m->rng[m->rng_k];
    m->rng_off += m->bytes[0];
    if (m->rng_off >= g->bytes) {
        m->rng_k++;
        m->rng_off = 0;
    }
}

/* The memory part of an LD/ST instruction, from the step's accesses. */
void tm_sm_memop_fill(struct tm_sm *s, struct tm_memop *m, uint32_t wslot,
                       const struct engine_step_report *r)
{
    const struct tm_config *cfg = s->cfg;
    m->nline = m->degree = m->sent = 0;
    m->sec_sent = 0;
    m->bulk = 0;
    if (r->nrange) {
        bulk_fill(s, m, wslot, r);
        return;
    }
    m->kind = (r->flags & ENGINE_STEP_ATOMIC) ? TM_REQ_ATOMIC : TM_REQ_READ;
    m->space = r->naccess ? r->access[0].space : SP_GLOBAL;
    for (uint32_t i = 0; i < r->naccess; i++) {
        const struct engine_access *a = &r->access[i];
        if (a->space == SP_GLOBAL || a->space == SP_LOCAL) {
            m->space = a->space; /* cp.async-like pairs: the global side decides */
            break;
        }
    }
    if (m->kind == TM_REQ_READ)
        for (uint32_t i = 0; i < r->naccess; i++)
            if (r->access[i].write && r->access[i].space == m->space)
                m->kind = TM_REQ_WRITE;

    if (m->space == SP_SHARED || m->space == SP_SHARED_CTA || m->space == SP_SHARED_CLUSTER) {
        /* n-way bank conflict: the most distinct 4-byte words any bank must serve */
        uint32_t nb = (uint32_t)cfg->o.gpgpu_shmem_num_banks;
        uint32_t parts = (uint32_t)cfg->o.gpgpu_shmem_warp_parts;
        if (!parts)
            parts = 1;
        uint32_t lanes_per = 32 / parts ? 32 / parts : 32;
        /* the distinct words of a part are chained per bank (bank = word mod banks, folded
         * into 64 chains), so finding a repeated word looks only at its bank's words, and
         * the degree is the longest chain: linear in the lanes, not quadratic */
        uint32_t total = 0;
        const bool pow2 = (nb & (nb - 1)) == 0;
        for (uint32_t p = 0; p < parts; p++) {
            uint64_t words[256];
            uint32_t nw = 0, multi = 0, deg = 0;
            uint8_t cnt[256];
            uint16_t link[256], head[64], per_bank[64];
            memset(per_bank, 0, sizeof per_bank);
            memset(head, 0xff, sizeof head);
            for (uint32_t i = 0; i < r->naccess; i++) {
                const struct engine_access *a = &r->access[i];
                if (a->lane / lanes_per != p || a->space != m->space)
                    continue;
                uint32_t nwd = a->width > 4 ? a->width / 4 : 1;
                for (uint32_t j = 0; j < nwd; j++) {
                    uint64_t wd = a->addr / 4 + j;
                    uint32_t b = (uint32_t)(pow2 ? wd & (nb - 1) : wd % nb) & 63;
                    uint32_t k = head[b];
                    while (k != 0xffff && words[k] != wd)
                        k = link[k];
                    if (k != 0xffff) {
                        if (cnt[k]++ == 1)
                            multi++;
                    } else if (nw < 256) {
                        words[nw] = wd;
                        cnt[nw] = 1;
                        link[nw] = head[b];
                        head[b] = (uint16_t)nw++;
                        if (++per_bank[b] > deg)
                            deg = per_bank[b];
                    }
                }
            }
            if (cfg->o.gpgpu_shmem_limited_broadcast && multi > deg)
                deg = multi;
            total += deg;
        }
        m->degree = (uint16_t)(total ? total : 1);
        return;
    }
    /* kernel parameters (ld.param of the entry's; a device function's .param accesses and
     * generic ones into the window stay on the global path below) */
    bool kparam = m->space == SP_PARAM && r->insn &&
                  (r->insn->space == SP_PARAM || r->insn->space == SP_PARAM_ENTRY);
    if (m->space == SP_CONST || kparam) {
        /* one distinct address per cycle (the constant cache broadcasts one address to the
         * lanes asking for it); with an L1C each is one access of the cache, at the canonical
         * address of the constant bank (a device block). Kernel parameters (through the L1C
         * only with -gpgpu_perfect_inst_const_cache 0) at an address of their own per kernel:
         * PARAM_BASE + kernel uid × 16 MiB + offset */
        uint64_t seen[64];
        uint32_t n = 0;
        for (uint32_t i = 0; i < r->naccess; i++) {
            uint64_t a = r->access[i].addr & ~3ull;
            uint32_t k = 0;
            while (k < n && seen[k] != a)
                k++;
            if (k == n && n < 64)
                seen[n++] = a;
        }
        m->degree = (uint16_t)(n ? n : 1);
        m->flags = 0;
        if (s->l1c) {
            uint32_t ln = cfg->l1c.line ? cfg->l1c.line : 64;
            for (uint32_t k = 0; k < n && k < TM_MAX_LINES; k++) {
                const struct tm_kernel *kr = s->w[wslot].cta->k;
                uint64_t a = m->space == SP_PARAM
                                 ? PARAM_BASE | (kr->uid & 0xFFFFFF) << 24 | (seen[k] & 0xFFFFFF)
                                 : canon_addr(s, kr, seen[k]);
                m->line[k] = a;
                m->sectors[k] = (uint8_t)(1u << ((a % ln) >> 5 & 3));
                m->bytes[k] = 4;
                m->bmask[k][0] = m->bmask[k][1] = 0;
            }
            m->nline = (uint16_t)(n < TM_MAX_LINES ? n : TM_MAX_LINES);
        }
        return;
    }
    if (m->space == SP_TEX) {
        /* texture fetches: the texels every lane read (the engine reports them per 32-byte
         * sector), merged per line of the texture cache over the whole warp */
        m->flags = 0;
        uint32_t ln = cfg->l1t.present && cfg->l1t.line ? cfg->l1t.line : 128;
        for (uint32_t i = 0; i < r->naccess; i++) {
            const struct engine_access *a = &r->access[i];
            if (a->space != SP_TEX)
                continue;
            uint64_t addr = canon_addr(s, s->w[wslot].cta->k, a->addr);
            uint64_t base = addr - addr % ln;
            uint32_t k = memop_line(m, 0, base);
            m->sectors[k] |= (uint8_t)(1u << ((addr - base) >> 5 & 3));
            m->bytes[k] = (uint16_t)(m->bytes[k] + (a->width ? a->width : 1));
        }
        return;
    }
    /* global, local (and other device memory): 128-byte lines, 32-byte sectors. The coalescer
     * groups lanes as the hardware does: wide accesses in sub-warps (64-bit: half warps,
     * 128-bit: quarter warps), each sub-warp's accesses merged per line, never across
     * sub-warps. */
    m->flags = 0;
    if (m->kind == TM_REQ_ATOMIC || cfg->o.gpgpu_gmem_skip_L1D ||
        (r->insn && (r->insn->fl & (IR_FL(FL_CG) | IR_FL(FL_CV)))))
        m->flags |= TM_RQF_NOL1;
    uint32_t group_first = 0; /* first line of the current sub-warp */
    uint32_t cur_group = UINT32_MAX;
    uint32_t last = UINT32_MAX; /* the line the previous one-line access merged into */
    for (uint32_t i = 0; i < r->naccess; i++) {
        const struct engine_access *a = &r->access[i];
        if (a->space != m->space)
            continue;
        uint32_t lanes = a->width >= 16 ? 8 : a->width == 8 ? 16 : 32;
        uint32_t grp = a->lane / lanes;
        if (grp != cur_group) {
            cur_group = grp;
            group_first = m->nline;
        }
        uint64_t addr = a->space == SP_LOCAL ? local_addr(s, wslot, a->addr, a->lane)
                                             : canon_addr(s, s->w[wslot].cta->k, a->addr);
        uint64_t end = addr + (a->width ? a->width : 1) - 1;
        if ((addr & ~127ull) == (end & ~127ull)) {
            /* the common case, one line: the lines of a sub-warp are distinct, so the line
             * the previous lane merged into (when it is of this sub-warp) is the one to try
             * first */
            uint64_t ln = addr & ~127ull;
            uint32_t lo = (uint32_t)(addr - ln), hi = (uint32_t)(end - ln);
            uint8_t sec = (uint8_t)(((2u << (hi >> 5)) - 1) & ~((1u << (lo >> 5)) - 1));
            uint32_t k = memop_line(m,
                                    last >= group_first && last < m->nline &&
                                            m->line[last] == ln
                                        ? last
                                        : group_first,
                                    ln);
            last = k;
            m->sectors[k] |= sec;
            m->bytes[k] = (uint16_t)(m->bytes[k] + (hi - lo + 1));
            if ((lo >> 6) == (hi >> 6))
                m->bmask[k][lo >> 6] |= (((hi & 63) == 63 ? ~0ull : (1ull << ((hi & 63) + 1)) - 1) &
                                         ~((1ull << (lo & 63)) - 1));
            else
                bytes_mask(m->bmask[k], lo, hi);
            continue;
        }
        for (uint64_t ln = addr & ~127ull; ln <= (end & ~127ull); ln += 128) {
            uint64_t lo = addr > ln ? addr : ln, hi = end < ln + 127 ? end : ln + 127;
            uint8_t sec = 0;
            for (uint64_t q = (lo - ln) >> 5; q <= (hi - ln) >> 5; q++)
                sec |= (uint8_t)(1u << q);
            uint32_t k = group_first;
            while (k < m->nline && m->line[k] != ln)
                k++;
            if (k == m->nline) {
                if (m->nline == TM_MAX_LINES)
                    k = TM_MAX_LINES - 1; /* beyond the record: merged into the last */
                else {
                    m->line[k] = ln;
                    m->sectors[k] = 0;
                    m->bytes[k] = 0;
                    m->bmask[k][0] = m->bmask[k][1] = 0;
                    m->nline++;
                }
            }
            m->sectors[k] |= sec;
            m->bytes[k] = (uint16_t)(m->bytes[k] + (hi - lo + 1));
            bytes_mask(m->bmask[k], (uint32_t)(lo - ln), (uint32_t)(hi - ln));
        }
    }
}

/* One access of L1 c (counters st0 … st0+3 in the order ACCESS, MISS, PENDING_HIT, RESFAIL;
 * hits answered through hq after lat cycles) for `sectors` of line k of instruction ii (a
 * write passes on only those sectors' bytes). false when refused (hit queue full, or a
 * reservation failure): nothing happened, try again next cycle. */
static bool l1_access(struct tm_sm *s, struct tm_cache *c, struct tm_queue *hq, int st0,
                      uint64_t lat, uint32_t ii, uint32_t k, uint8_t sectors)
{
    struct tm_inst *in = &s->inst[ii];
    struct tm_memop *m = &s->mop[in->memop];
    struct tm_warp *w = &s->w[in->warp];
    bool wr = m->kind == TM_REQ_WRITE;
    bool local = m->space == SP_LOCAL;
    if (!wr && tm_queue_full(hq)) {
        s->st[TM_ST_STALL_SHD_MEM]++;
        return false;
    }
    uint64_t bm[2] = {m->bmask[k][0], m->bmask[k][1]};
    if (sectors != m->sectors[k]) {
        uint64_t keep[2] = {0, 0};
        for (uint32_t q = 0; q < 4; q++)
            if (sectors >> q & 1)
                keep[q >> 1] |= 0xFFFFFFFFull << ((q & 1) * 32);
        bm[0] &= keep[0];
        bm[1] &= keep[1];
    }
    /* the instruction's profiled line id rides in the token's high half to the L2 and DRAM,
       which count there (issue 23) */
    uint32_t pline = in->prow ? tm_prof_line(w->cta->k->prof, in->prow) : 0;
    enum tm_cache_res res = tm_cache_access(c, m->line[k], sectors, wr, bm,
                                            (uint64_t)pline << 32 | (wr ? in->warp : ii),
                                            s->cycle);
    if (res == TM_CACHE_RESFAIL) {
        s->st[st0 + 3]++;
        s->st[TM_ST_STALL_SHD_MEM]++;
        return false;
    }
    s->st[st0]++;
    if (res == TM_CACHE_MISS)
        s->st[st0 + 1]++;
    else if (res == TM_CACHE_HIT_RESERVED)
        s->st[st0 + 2]++;
    if (in->prow && c == s->l1d) {
        in->prow[TM_PC_L1D_ACCESS]++;
        in->prow[TM_PC_L1D_MISS] += res == TM_CACHE_MISS;
    }
    w->mem_pending++; /* a read's data, or (write-through) the write's acknowledgement */
    w->ca_pending += in->ca_ord != 0;
    if (!wr && res == TM_CACHE_HIT) {
        struct tm_req h = {.addr = m->line[k], .t_sent = s->cycle, .t_ready = s->cycle + lat,
                           .inst = ii, .sm = (uint16_t)s->id, .kind = TM_REQ_READ};
        tm_queue_push(hq, &h);
    }
    if (c == s->l1d) {
        if (wr)
            s->st[local ? TM_ST_MEM_WRITE_LOCAL : TM_ST_MEM_WRITE_GLOBAL]++;
        else
            s->st[local ? TM_ST_MEM_READ_LOCAL : TM_ST_MEM_READ_GLOBAL]++;
    }
    return true;
}

/* Bank of the L1D sector at address a (GPGPU-Sim's l1d_cache_config::set_bank: the
 * set-index function over address >> log2(interleaving), with the bank count as sets). */
static inline uint32_t l1_bank_of(const struct tm_config *cfg, uint64_t a)
{
    uint64_t blk = a >> cfg->l1_bank_shift;
    uint32_t mask = cfg->l1_banks - 1;
    uint32_t b = (uint32_t)blk & mask;
    if (cfg->l1_bank_fn == 1) {
        b ^= (uint32_t)(blk >> cfg->l1_bank_log2) & mask;
    } else if (cfg->l1_bank_fn == 2) {
        uint64_t hi = blk >> cfg->l1_bank_log2;
        for (uint32_t i = 0; i < cfg->l1_bank_log2; i++)
            b ^= (uint32_t)__builtin_parityll(hi & cfg->l1_bank_ipoly[i]) << i;
    }
    return b;
}

/* Line k of texture load ii into the L1T's pipeline (GPGPU-Sim's tex_cache::access): refused
 * (a reservation failure, retried next cycle) while the fragment FIFO, the reorder buffer or
 * the request FIFO is full, whether or not the access would hit; else the tags are looked up
 * and the access joins the fragment FIFO: a hit has its data after the L1T's hit latency
 * `lat`, a miss (which takes a reorder-buffer entry and queues its request) or a pending hit
 * when the fill arrives. The tag array's outcome, or TM_CACHE_RESFAIL. */
static enum tm_cache_res tex_access(struct tm_sm *s, uint64_t lat, uint32_t ii, uint32_t k)
{
    struct tm_inst *in = &s->inst[ii];
    struct tm_memop *m = &s->mop[in->memop];
    struct tm_warp *w = &s->w[in->warp];
    enum tm_cache_res res = TM_CACHE_RESFAIL;
    uint32_t slot = s->tf_head + s->tf_n;
    if (slot >= s->tf_cap)
        slot -= s->tf_cap;
    if (s->tf_n < s->tf_cap && s->tf_rob < s->tf_rob_cap && s->tf_req < s->tf_req_cap) {
        uint32_t pline = in->prow ? tm_prof_line(w->cta->k->prof, in->prow) : 0;
        res = tm_cache_access(s->l1t, m->line[k], m->sectors[k], false, NULL,
                              (uint64_t)pline << 32 | slot, s->cycle);
    }
    if (res == TM_CACHE_RESFAIL) {
        s->st[TM_ST_L1T_ACCESS + 3]++;
        s->st[TM_ST_STALL_SHD_MEM]++;
        return res;
    }
    s->st[TM_ST_L1T_ACCESS]++;
    if (res == TM_CACHE_MISS)
        s->st[TM_ST_L1T_ACCESS + 1]++;
    else if (res == TM_CACHE_HIT_RESERVED)
        s->st[TM_ST_L1T_ACCESS + 2]++;
    w->mem_pending++;
    s->tf[slot] = (struct tm_tex_frag){
        .t_ready = res == TM_CACHE_HIT ? s->cycle + lat : UINT64_MAX, .ii = ii,
        .miss = res == TM_CACHE_MISS};
    s->tf_n++;
    if (res == TM_CACHE_MISS) {
        s->tf_rob++;
        s->tf_req++;
    }
    return res;
}

enum { BANKED_DONE, BANKED_BUSY, BANKED_STALL };

/*
 * The L1D part of the LD/ST unit's cycle (GPGPU-Sim's process_memory_access_queue_l1cache
 * with -gpgpu_l1_latency > 0): the sectors of instruction ii's lines go, in order, through
 * the L1D's banks; a bank serves cfg->l1_bank_cap sectors per cycle (its data port width over
 * 32 bytes; one sector every l1_bank_cycles cycles when narrower). The first sector whose
 * bank has no room ends the cycle (GPGPU-Sim's BK_CONF: no look-ahead). A line's sectors
 * that got through in one cycle are one cache access; a line split over cycles is one
 * access per part (each answered on its own). BANKED_DONE when every line was sent,
 * BANKED_BUSY when some remain, BANKED_STALL when the cache or the hit queue refused before
 * anything was sent this cycle.
 */
static int l1d_banked(struct tm_sm *s, uint32_t ii, uint64_t lat)
{
    const struct tm_config *cfg = s->cfg;
    struct tm_inst *in = &s->inst[ii];
    struct tm_memop *m = &s->mop[in->memop];
    uint8_t used[32] = {0};
    bool sent = false;
    while (m->sent < m->nline) {
        uint32_t k = m->sent;
        uint8_t left = m->sectors[k] & (uint8_t)~m->sec_sent, take = 0;
        uint32_t bank[4] = {0};
        for (uint32_t q = 0; q < 4; q++) {
            if (!(left >> q & 1))
                continue;
            uint32_t b = l1_bank_of(cfg, m->line[k] + 32 * q);
            if (s->l1_bank_free[b] > s->cycle || used[b] >= cfg->l1_bank_cap)
                break;
            used[b]++;
            bank[q] = b;
            take |= (uint8_t)(1u << q);
        }
        if (!take)
            return BANKED_BUSY;
        if (!l1_access(s, s->l1d, &s->l1_hit, TM_ST_L1D_ACCESS, lat, ii, k, take))
            return sent ? BANKED_BUSY : BANKED_STALL;
        sent = true;
        if (cfg->l1_bank_cycles > 1)
            for (uint32_t q = 0; q < 4; q++)
                if (take >> q & 1)
                    s->l1_bank_free[bank[q]] = s->cycle + cfg->l1_bank_cycles;
        if (take != left) { /* the rest of the line next cycle: one more answer */
            m->sec_sent |= take;
            if (m->kind != TM_REQ_WRITE)
                in->resp_left++;
            return BANKED_BUSY;
        }
        m->sec_sent = 0;
        m->sent++;
    }
    return BANKED_DONE;
}

void tm_sm_ldst_stage(struct tm_sm *s)
{
    const struct tm_config *cfg = s->cfg;
    if (s->ldst_busy_until > s->cycle) {
        s->st[TM_ST_UNIT_BUSY_MEM]++;
        return;
    }
    if (s->ldst_cur == TM_NONE) {
        uint32_t ii = pr_front(&s->oc_ex[TM_FU_MEM], 0);
        if (ii == TM_NONE)
            return;
        pr_pop(&s->oc_ex[TM_FU_MEM], 0);
        s->st[TM_ST_UNIT_MEM]++;
        struct tm_inst *in = &s->inst[ii];
        struct tm_memop *m = &s->mop[in->memop];
        /* (a kernel parameter's memop has a degree; other .param accesses take the global
         * path) */
        switch (m->space == SP_PARAM && !m->degree ? SP_GLOBAL : m->space) {
        case SP_CONST: case SP_PARAM:
            if (s->l1c && m->nline) { /* through the L1C, one address per cycle */
                s->st[TM_ST_CMEM_PORTCONFLICT] += m->degree - 1u;
                s->ldst_cur = ii;
                in->resp_left = m->nline;
                break;
            }
            /* fall through - no L1C (-gpgpu_perfect_inst_const_cache 1): a fixed latency */
        case SP_SHARED: case SP_SHARED_CTA: case SP_SHARED_CLUSTER: {
            bool sh = m->space != SP_CONST && m->space != SP_PARAM;
            uint32_t lat = (uint32_t)(sh ? cfg->o.gpgpu_smem_latency : cfg->o.gpgpu_l1_latency);
            s->ldst_busy_until = s->cycle + m->degree;
            s->st[sh ? TM_ST_SHMEM_BKCONFLICT : TM_ST_CMEM_PORTCONFLICT] += m->degree - 1u;
            s->st[TM_ST_STALL_SHD_MEM] += m->degree - 1u;
            struct tm_inst tmp = *in;
            tmp.lat.lat = (uint16_t)lat;
            in->t_ready = ready_at(&tmp, s->cycle + m->degree - 1 + lat);
            tm_sm_heap_push(s, in->t_ready, ii);
            return;
        }
        default:
            if (!m->nline) { /* no lane accessed memory (guard false everywhere) */
                if (m->bulk)
                    tm_sm_async_read_done(s, ii);
                tm_sm_heap_push(s, s->cycle + 1, ii);
                return;
            }
            if (m->bulk) { /* to the TMA unit, which sends its lines (tm_sm_tma_stage) */
                if (s->tma_n == s->tma_cap) {
                    uint32_t nc = s->tma_cap ? 2 * s->tma_cap : 16;
                    uint32_t *q = malloc(nc * sizeof *q);
                    if (!q) { /* (out of memory: the LD/ST unit tries again next cycle) */
                        pr_push(&s->oc_ex[TM_FU_MEM], 0, ii);
                        return;
                    }
                    for (uint32_t j = 0; j < s->tma_n; j++)
                        q[j] = s->tma_q[(s->tma_head + j) % s->tma_cap];
                    free(s->tma_q);
                    s->tma_q = q;
                    s->tma_cap = nc;
                    s->tma_head = 0;
                }
                s->tma_q[(s->tma_head + s->tma_n++) % s->tma_cap] = ii;
                in->resp_left = m->nline; /* (a store's: its acknowledgements) */
                return;
            }
            s->ldst_cur = ii;
            /* loads count their lines' answers from now: an L1 hit may answer an early line
             * before the last one is sent */
            if (m->kind != TM_REQ_WRITE)
                in->resp_left = m->nline;
            break;
        }
        if (s->ldst_cur == TM_NONE)
            return;
    }
    /* global / local / atomic: through the L1D's banks, or one line per cycle through the
     * L1C / L1T or into the queue to memory */
    uint32_t ii = s->ldst_cur;
    struct tm_inst *in = &s->inst[ii];
    struct tm_memop *m = &s->mop[in->memop];
    struct tm_warp *w = &s->w[in->warp];
    uint32_t k = m->sent;
    bool local = m->space == SP_LOCAL;
    /* the cache this access goes through: the L1C for constants, the L1T for texels, else
     * the L1D unless the access bypasses it; its counters and hit latency */
    struct tm_cache *c = NULL;
    struct tm_queue *hq = &s->l1_hit;
    int st0 = TM_ST_L1D_ACCESS;
    uint64_t lat = (uint64_t)cfg->o.gpgpu_l1_latency;
    if (m->space == SP_CONST || (m->space == SP_PARAM && m->degree)) {
        c = s->l1c;
        hq = &s->l1c_hit;
        st0 = TM_ST_L1C_ACCESS;
        if (cfg->o.ptxemu_l1c_latency > 0)
            lat = (uint64_t)cfg->o.ptxemu_l1c_latency;
    } else if (m->space == SP_TEX) {
        c = s->l1t; /* (through its texture pipeline: tex_access) */
        st0 = TM_ST_L1T_ACCESS;
        if (cfg->o.ptxemu_l1t_latency > 0)
            lat = (uint64_t)cfg->o.ptxemu_l1t_latency;
    } else if (!(m->flags & TM_RQF_NOL1) && m->kind != TM_REQ_ATOMIC) {
        c = s->l1d;
    }
    if (c && c == s->l1d) {
        int r = l1d_banked(s, ii, lat);
        if (r == BANKED_STALL)
            return;
        if (r == BANKED_BUSY) {
            s->st[TM_ST_UNIT_BUSY_MEM]++;
            return;
        }
    } else {
        if (c) {
            /* the L1C's / L1T's data port: a hit reads its bytes (an L1C access its 4-byte
             * word, an L1T access the sectors its texels fall in) at the cache string's data
             * port width W per cycle, ceil(bytes / W) cycles before the next access of that
             * cache (GPGPU-Sim leaves these ports unmodelled: one access per cycle, the same
             * whenever W covers what a hit reads, as in every preset) */
            int f = c == s->l1c ? 1 : 2;
            if (s->l1_data_free[f] > s->cycle) {
                s->st[TM_ST_UNIT_BUSY_MEM]++;
                return;
            }
            bool hit;
            if (c == s->l1t) {
                enum tm_cache_res res = tex_access(s, lat, ii, k);
                if (res == TM_CACHE_RESFAIL)
                    return;
                hit = res == TM_CACHE_HIT;
            } else {
                uint32_t nh = hq->n;
                if (!l1_access(s, c, hq, st0, lat, ii, k, m->sectors[k]))
                    return;
                hit = hq->n != nh;
            }
            if (hit) {
                const struct tm_cache_geom *g = tm_cache_geom_of(c);
                uint32_t bytes = f == 1 ? m->bytes[k]
                                        : 32u * (uint32_t)__builtin_popcount(m->sectors[k]);
                if (bytes > g->line)
                    bytes = g->line;
                uint32_t pw = g->data_port_width ? g->data_port_width : g->line;
                s->l1_data_free[f] = s->cycle + (bytes ? (bytes + pw - 1) / pw : 1);
            }
        } else {
            if (tm_sm_req_full(s)) {
                s->st[TM_ST_STALL_SHD_MEM]++;
                return;
            }
            struct tm_req rq = {.addr = m->line[k], .t_sent = s->cycle, .sm = (uint16_t)s->id,
                                .bytes = m->bytes[k], .kind = m->kind, .space = m->space,
                                .sectors = m->sectors[k], .flags = TM_RQF_NOL1,
                                .line = in->prow ? tm_prof_line(w->cta->k->prof, in->prow) : 0};
            rq.bmask[0] = m->bmask[k][0];
            rq.bmask[1] = m->bmask[k][1];
            rq.inst = m->kind == TM_REQ_WRITE ? in->warp : ii;
            tm_queue_push(&s->to_mem, &rq);
            w->mem_pending++;
            w->ca_pending += in->ca_ord != 0;
            s->st[TM_ST_MEM_SECTORS] += (uint64_t)__builtin_popcount(rq.sectors);
            if (m->kind == TM_REQ_ATOMIC)
                s->st[TM_ST_MEM_ATOMIC]++;
            else if (m->kind == TM_REQ_WRITE)
                s->st[local ? TM_ST_MEM_WRITE_LOCAL : TM_ST_MEM_WRITE_GLOBAL]++;
            else
                s->st[local ? TM_ST_MEM_READ_LOCAL : TM_ST_MEM_READ_GLOBAL]++;
        }
        if (++m->sent < m->nline) {
            s->st[TM_ST_UNIT_BUSY_MEM]++;
            return;
        }
    }
    s->ldst_cur = TM_NONE;
    if (m->kind == TM_REQ_WRITE) {
        /* stores retire once sent; the warp counts their acknowledgements */
        tm_sm_heap_push(s, s->cycle + 1, ii);
    }
}

/* The TMA unit's cycle: the oldest bulk or tensor copy sends its next line into the queue to
 * memory (past the L1D); one that has sent its last line has read its source
 * (tm_sm_async_read_done) and leaves, answered by its lines' responses (a store's by their
 * acknowledgements, TM_RQF_BULKW). */
void tm_sm_tma_stage(struct tm_sm *s)
{
    if (!s->tma_n || tm_sm_req_full(s))
        return;
    const uint32_t ii = s->tma_q[s->tma_head];
    struct tm_inst *in = &s->inst[ii];
    struct tm_memop *m = &s->mop[in->memop];
    struct tm_warp *w = &s->w[in->warp];
    bulk_line(m);
    struct tm_req rq = {.addr = m->line[0], .t_sent = s->cycle, .sm = (uint16_t)s->id,
                        .bytes = m->bytes[0], .kind = m->kind, .space = SP_GLOBAL,
                        .sectors = m->sectors[0], .inst = ii,
                        .flags = TM_RQF_NOL1 | (m->kind == TM_REQ_WRITE ? TM_RQF_BULKW : 0),
                        .line = in->prow ? tm_prof_line(w->cta->k->prof, in->prow) : 0};
    rq.bmask[0] = m->bmask[0][0];
    rq.bmask[1] = m->bmask[0][1];
    bulk_next(m);
    tm_queue_push(&s->to_mem, &rq);
    w->mem_pending++;
    w->ca_pending++;
    s->st[TM_ST_MEM_SECTORS] += (uint64_t)__builtin_popcount(rq.sectors);
    s->st[m->kind == TM_REQ_ATOMIC  ? TM_ST_MEM_ATOMIC
          : m->kind == TM_REQ_WRITE ? TM_ST_MEM_WRITE_GLOBAL
                                    : TM_ST_MEM_READ_GLOBAL]++;
    if (++m->sent < m->nline)
        return;
    if (++s->tma_head == s->tma_cap)
        s->tma_head = 0;
    s->tma_n--;
    tm_sm_async_read_done(s, ii);
}

/* Cache c's next miss, write-through or writeback into the queue to memory, as a request of
 * the given space carrying flags rqf (which L1 the fill is for). */
static void drain_one(struct tm_sm *s, struct tm_cache *c, uint8_t space, uint8_t rqf)
{
    const struct tm_cache_out *o = tm_cache_miss_peek(c);
    if (!o || tm_sm_req_full(s))
        return;
    /* sectors travel in the 128-byte frame of the memory system (an L1C line is 64 bytes);
     * the response is mapped back in tm_sm_response_stage */
    struct tm_req rq = {.addr = o->addr, .t_sent = s->cycle, .sm = (uint16_t)s->id,
                        .sectors = (uint8_t)(o->sectors << ((o->addr & 127) >> 5)),
                        .space = space, .flags = rqf,
                        .line = (uint32_t)(o->token >> 32)}; /* fills, write-throughs */
    rq.bmask[0] = o->bmask[0];
    rq.bmask[1] = o->bmask[1];
    uint32_t nb = (uint32_t)(__builtin_popcountll(o->bmask[0]) + __builtin_popcountll(o->bmask[1]));
    switch (o->kind) {
    case TM_COUT_FILL:
        rq.kind = TM_REQ_READ;
        rq.inst = TM_NONE; /* answered by tm_cache_fill */
        rq.bytes = (uint16_t)(32 * __builtin_popcount(o->sectors));
        break;
    case TM_COUT_WRITE:
        rq.kind = TM_REQ_WRITE;
        rq.inst = (uint32_t)o->token; /* the writing warp's slot */
        rq.bytes = (uint16_t)nb;
        break;
    default:
        rq.kind = TM_REQ_WRITE;
        rq.flags = TM_RQF_WRITEBACK;
        rq.inst = TM_NONE;
        rq.bytes = (uint16_t)nb;
        break;
    }
    s->st[TM_ST_MEM_SECTORS] += (uint64_t)__builtin_popcount(rq.sectors);
    if (c == s->l1t && o->kind == TM_COUT_FILL)
        s->tf_req--; /* out of the texture pipeline's request FIFO */
    tm_queue_push(&s->to_mem, &rq);
    tm_cache_miss_pop(c);
}

/* The L1s' misses and write-throughs into the queue to memory: each L1 one per cycle, the
 * L1D first. */
void tm_sm_l1d_drain(struct tm_sm *s)
{
    if (s->l1d)
        drain_one(s, s->l1d, SP_GLOBAL, 0);
    if (s->l1c)
        drain_one(s, s->l1c, SP_CONST, TM_RQF_L1C);
    if (s->l1t)
        drain_one(s, s->l1t, SP_TEX, TM_RQF_L1T);
}

/* One line of load instruction ii has its data. */
static void load_answered(struct tm_sm *s, uint32_t ii)
{
    struct tm_inst *in = &s->inst[ii];
    s->w[in->warp].mem_pending--;
    s->w[in->warp].ca_pending -= in->ca_ord != 0;
    if (--in->resp_left == 0)
        tm_sm_heap_push(s, s->cycle, ii);
}

void tm_sm_response_stage(struct tm_sm *s)
{
    struct tm_req *r;
    while ((r = tm_queue_front(&s->from_mem)) && r->t_ready <= s->cycle) {
        s->st[TM_ST_MEM_RESPONSES]++;
        s->st[TM_ST_MEM_LATENCY_SUM] += r->t_ready - r->t_sent;
        if (r->kind == TM_REQ_FETCH) {
            /* an L1I fill: the warps waiting for it fetch again */
            if (s->l1i)
                tm_cache_fill(s->l1i, r->addr, r->sectors, s->cycle);
        } else if (r->inst == TM_NONE) {
            /* an L1 fill: the loads waiting for it are answered below. Through the cache's
             * fill port (GPGPU-Sim's use_fill_port): data port width bytes per cycle, the
             * sectors filled (a sectored cache) or the whole line; while it is busy the
             * responses behind wait (the response FIFO is in order) */
            int f = r->flags & TM_RQF_L1C ? 1 : r->flags & TM_RQF_L1T ? 2 : 0;
            struct tm_cache *c = f == 1 ? s->l1c : f == 2 ? s->l1t : s->l1d;
            if (c && r->kind != TM_REQ_WRITE) {
                if (s->l1_fill_free[f] > s->cycle)
                    break;
                uint8_t sec = (uint8_t)(r->sectors >> ((r->addr & 127) >> 5));
                const struct tm_cache_geom *g = tm_cache_geom_of(c);
                uint32_t bytes = g->sectored && g->line >= 32
                                     ? 32u * (uint32_t)__builtin_popcount(sec ? sec : 1)
                                     : g->line;
                uint32_t pw = g->data_port_width ? g->data_port_width : g->line;
                s->l1_fill_free[f] = s->cycle + (bytes + pw - 1) / pw;
                tm_cache_fill(c, r->addr, sec, s->cycle);
            }
        } else if (r->flags & TM_RQF_BULKW) {
            load_answered(s, r->inst); /* a bulk copy's write acknowledged */
        } else if (r->kind == TM_REQ_WRITE) {
            struct tm_warp *w = &s->w[r->inst];
            w->mem_pending--;
            if (w->at_membar && w->inflight == w->ca_insts && w->mem_pending == w->ca_pending) {
                w->at_membar = false;
                wc_mark(s, (uint32_t)(w - s->w));
            }
            tm_sm_warp_try_finish(s, w);
        } else {
            load_answered(s, r->inst);
        }
        tm_queue_pop(&s->from_mem);
    }
    uint64_t tok;
    while (s->l1i && tm_cache_next_ready(s->l1i, &tok))
        s->w[tok].fetching = false;
    struct tm_cache *l1[2] = {s->l1d, s->l1c};
    struct tm_queue *hq[2] = {&s->l1_hit, &s->l1c_hit};
    for (int i = 0; i < 2; i++) {
        if (!l1[i])
            continue;
        while (tm_cache_next_ready(l1[i], &tok))
            load_answered(s, (uint32_t)tok);
        while ((r = tm_queue_front(hq[i])) && r->t_ready <= s->cycle) {
            load_answered(s, r->inst);
            tm_queue_pop(hq[i]);
        }
    }
    if (s->l1t) {
        /* the texture pipeline: fills make their fragments' data ready; the fragment at the
         * head answers its load once its data is there, one per cycle (GPGPU-Sim's result
         * FIFO, which the LD/ST unit empties one access per cycle) */
        while (tm_cache_next_ready(s->l1t, &tok))
            s->tf[(uint32_t)tok].t_ready = s->cycle;
        if (s->tf_n && s->tf[s->tf_head].t_ready <= s->cycle) {
            const struct tm_tex_frag *f = &s->tf[s->tf_head];
            s->tf_rob -= f->miss;
            uint32_t ii = f->ii;
            if (++s->tf_head == s->tf_cap)
                s->tf_head = 0;
            s->tf_n--;
            load_answered(s, ii);
        }
    }
}
