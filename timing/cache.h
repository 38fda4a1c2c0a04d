/*
 * timing/cache.h — one cache model for the L1 data, texture, constant and instruction caches
 * and the L2 slices (issue 22 item 2), configured by GPGPU-Sim's cache option strings
 * (struct tm_cache_geom, decoded by config.c).
 *
 * Tags and state only, never data (the functional engine holds the values). Lines of
 * geom.line bytes, sectored caches keep 32-byte sectors each with its own valid/dirty/pending
 * state and, for lazy fetch-on-read write-back caches (-gpgpu_cache:dl2 …,L:B:m:L:…), a byte
 * mask of what was written, so a fully written sector never needs a fill. MSHRs merge requests
 * to a line (or sector) already being fetched up to the configured merge limit; misses,
 * write-throughs and evicted dirty lines go to the miss queue, which the owner drains into the
 * next level.
 *
 * Every access is identified by a 64-bit token of the owner's choosing; a read that missed (or
 * merged) is answered by tm_cache_next_ready once the fills it waits for arrived.
 *
 * A refused access (TM_CACHE_RESFAIL) changes nothing but the counters: retry next cycle.
 */
#ifndef PTXEMU_TIMING_CACHE_H
#define PTXEMU_TIMING_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "timing/config.h"

enum tm_cache_res {
    TM_CACHE_HIT,          /* every requested sector valid */
    TM_CACHE_HIT_RESERVED, /* every missing sector already being fetched: merged (pending hit) */
    TM_CACHE_MISS,         /* the line (or some sectors) missing: fill queued, answer later;
                              for writes: sent on (write-through / no write-allocate) */
    TM_CACHE_RESFAIL,      /* no MSHR, merge slot, miss-queue room or allocatable line */
};

enum tm_cache_stat {
    /* outcomes, reads and writes (GPGPU-Sim's cache_stats) */
    TM_CS_RD_HIT, TM_CS_RD_HIT_RESERVED, TM_CS_RD_MISS, TM_CS_RD_SECTOR_MISS, TM_CS_RD_RESFAIL,
    TM_CS_WR_HIT, TM_CS_WR_MISS, TM_CS_WR_RESFAIL,
    /* reservation failures by cause */
    TM_CS_FAIL_LINE_ALLOC, TM_CS_FAIL_MISS_QUEUE, TM_CS_FAIL_MSHR_ENTRY, TM_CS_FAIL_MSHR_MERGE,
    TM_CS_FILLS,           /* sectors filled */
    TM_CS_WRITEBACKS,      /* dirty lines written back on eviction or flush */
    TM_CS_WRITEBACK_SECTORS,
    TM_CS_FULL_SECTOR_WRITES, /* sectors made valid by writes alone (no fill needed) */
    TM_CS__COUNT
};

/* What the owner sends to the next level, from the miss queue. */
enum tm_cache_out_kind {
    TM_COUT_FILL,      /* read these sectors of the line (answer with tm_cache_fill) */
    TM_COUT_WRITE,     /* a write passed on (write-through, no-allocate miss, …): token = the
                          writer's, bmask = bytes written */
    TM_COUT_WRITEBACK, /* an evicted dirty line's written sectors (bmask = bytes to write) */
};

struct tm_cache_out {
    uint64_t addr;     /* line address */
    uint64_t token;    /* TM_COUT_FILL, TM_COUT_WRITE: the token of the access that queued it
                          (the owner may keep a request's identity in it); otherwise 0 */
    uint64_t bmask[2]; /* bytes of the line concerned (bit i = byte i; lines ≤ 128 bytes) */
    uint8_t sectors;   /* sectors concerned */
    uint8_t kind;      /* enum tm_cache_out_kind */
};

struct tm_cache; /* opaque */

/* Build a cache of geometry g (g->present). `name` ("L1D", "L2", …) is used in messages.
 * 0, -EINVAL (a geometry the model cannot hold: line > 128 bytes, assoc 0, …), -ENOMEM. */
int tm_cache_create(struct tm_cache **out, const struct tm_cache_geom *g, const char *name);
void tm_cache_destroy(struct tm_cache *c);

/*
 * Access `sectors` of the line at `addr` (any address in the line); for writes bmask gives the
 * bytes written within the line. `now` is the owner's cycle (replacement order).
 *   read  HIT: done. HIT_RESERVED / MISS: `token` comes back from tm_cache_next_ready.
 *   write HIT / MISS as the write policy says: write-through caches always queue a
 *         TM_COUT_WRITE carrying `token`; write-back caches keep the bytes (dirty) and evict
 *         later. A write never waits on tm_cache_next_ready.
 *   RESFAIL: nothing happened; try again later.
 */
enum tm_cache_res tm_cache_access(struct tm_cache *c, uint64_t addr, uint8_t sectors, bool write,
                                  const uint64_t bmask[2], uint64_t token, uint64_t now);

/* The front of the miss queue (NULL when empty) and its removal. */
const struct tm_cache_out *tm_cache_miss_peek(const struct tm_cache *c);
void tm_cache_miss_pop(struct tm_cache *c);

/* The next level answered a TM_COUT_FILL: the sectors become valid (bytes written meanwhile are
 * kept) and the tokens waiting for them become ready. */
void tm_cache_fill(struct tm_cache *c, uint64_t addr, uint8_t sectors, uint64_t now);

/* Pop one token whose read is now satisfied. false when none. */
bool tm_cache_next_ready(struct tm_cache *c, uint64_t *token);

/* Mark sectors valid without a request (host-to-device copies with -gpgpu_perf_sim_memcpy);
 * evictions it causes are queued as usual. */
void tm_cache_warm(struct tm_cache *c, uint64_t addr, uint8_t sectors, uint64_t now);

/* Invalidate every line (L1 at a kernel boundary); dirty data is dropped. Pending fills stay. */
void tm_cache_invalidate(struct tm_cache *c);
/* Queue a writeback of every dirty line and mark them clean (L2 flush). Returns lines queued;
 * the miss queue may grow past its limit for this. */
uint32_t tm_cache_flush(struct tm_cache *c);

/* Would a read of `sectors` of addr hit now (no side effect)? */
bool tm_cache_probe(const struct tm_cache *c, uint64_t addr, uint8_t sectors);
/* Nothing pending (MSHRs empty, miss queue empty, no ready token)? */
bool tm_cache_idle(const struct tm_cache *c);
/* Counters (enum tm_cache_stat) and their GPGPU-Sim-style names. */
const uint64_t *tm_cache_stats(const struct tm_cache *c);
const char *tm_cache_stat_name(enum tm_cache_stat s);
/* The geometry it was built with. */
const struct tm_cache_geom *tm_cache_geom_of(const struct tm_cache *c);

#endif
