/*
 * tests/unit/cache_test.c — the timing model's cache (timing/cache.c): hand-worked access
 * sequences with their exact outcomes, miss-queue contents and counters — cold miss, hit,
 * sector miss, pending hits and the merge limit, MSHR-full, miss-queue-full and line-allocation
 * reservation failures, LRU vs FIFO victims, write-through / write-back / write-evict /
 * read-only writes, lazy fetch-on-read and fetch-on-write, dirty evictions, fills releasing
 * tokens in order, streaming (allocate on fill), non-sectored lines, flush and invalidate,
 * the IPOLY / Fermi / XOR set-index functions, and the Volta L1D and L2 of configs/qv100.config.
 *
 * Geometries are written as GPGPU-Sim cache strings and decoded by timing/config.c, so the
 * decoder is exercised on every one.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tests/tap.h"
#include "timing/cache.h"
#include "timing/config.h"

/* Decode a cache string the way --timing does (tm_config_set + tm_config_derive). */
static struct tm_cache_geom geom(const char *s)
{
    struct tm_config cfg;
    char err[256] = "";
    struct tm_cache_geom g = {0};
    if (tm_config_init(&cfg))
        bail_out("tm_config_init");
    if (tm_config_set(&cfg, "gpgpu_cache:dl1", s, err, sizeof err) ||
        tm_config_derive(&cfg, err, sizeof err)) {
        diag("%s: %s", s, err);
        bail_out("a test geometry does not decode");
    }
    g = cfg.dl1;
    tm_config_free(&cfg);
    return g;
}

static struct tm_cache *mk(const char *s)
{
    struct tm_cache_geom g = geom(s);
    struct tm_cache *c;
    if (tm_cache_create(&c, &g, "T"))
        bail_out("tm_cache_create failed on a test geometry");
    return c;
}

static enum tm_cache_res rd(struct tm_cache *c, uint64_t a, uint8_t s, uint64_t tok, uint64_t t)
{
    return tm_cache_access(c, a, s, false, NULL, tok, t);
}

static enum tm_cache_res wr(struct tm_cache *c, uint64_t a, uint8_t s, uint64_t b0, uint64_t b1,
                            uint64_t tok, uint64_t t)
{
    const uint64_t bm[2] = {b0, b1};
    return tm_cache_access(c, a, s, true, bm, tok, t);
}

/* The miss queue as text (and emptied): "FILL 0x1000 s=1 b=…:… t=0; …". */
static const char *drain(struct tm_cache *c)
{
    static char buf[2048];
    static const char *const kind[] = {"FILL", "WRITE", "WRITEBACK"};
    size_t n = 0;
    buf[0] = 0;
    for (const struct tm_cache_out *o; (o = tm_cache_miss_peek(c)); tm_cache_miss_pop(c))
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s 0x%llx s=%x b=%llx:%llx t=%llu",
                              n ? "; " : "", kind[o->kind], (unsigned long long)o->addr, o->sectors,
                              (unsigned long long)o->bmask[1], (unsigned long long)o->bmask[0],
                              (unsigned long long)o->token);
    return buf;
}

/* Tokens ready now, in order (and popped): "10 12". */
static const char *ready(struct tm_cache *c)
{
    static char buf[512];
    size_t n = 0;
    buf[0] = 0;
    uint64_t tok;
    while (tm_cache_next_ready(c, &tok))
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%llu", n ? " " : "",
                              (unsigned long long)tok);
    return buf;
}

static uint64_t st(const struct tm_cache *c, enum tm_cache_stat s)
{
    return tm_cache_stats(c)[s];
}

/* Every counter as "NAME=v" for the non-zero ones. */
static const char *stats(const struct tm_cache *c)
{
    static char buf[1024];
    size_t n = 0;
    buf[0] = 0;
    for (int s = 0; s < TM_CS__COUNT; s++)
        if (st(c, s))
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s=%llu", n ? " " : "",
                                  tm_cache_stat_name(s), (unsigned long long)st(c, s));
    return buf;
}

enum {
    HIT = TM_CACHE_HIT,
    HRES = TM_CACHE_HIT_RESERVED,
    MISS = TM_CACHE_MISS,
    FAIL = TM_CACHE_RESFAIL
};

/* 2 sets x 2 ways of 4 sectors, write-through, allocate on miss, no write-allocate, linear,
 * 4 MSHR sectors with merge limit 2, miss queue 4. Line 0x1000 is in set 0 (0x1000 >> 7 = 32). */
#define G_SMALL "S:2:128:2,L:T:m:N:L,A:4:2,4:0,32"

static void test_read_basics(void)
{
    struct tm_cache *c = mk(G_SMALL);
    is_int(rd(c, 0x1000, 0x1, 1, 1), MISS, "cold read: MISS");
    is_str(drain(c), "FILL 0x1000 s=1 b=0:ffffffff t=1", "one fill of the missing sector");
    ok(!tm_cache_probe(c, 0x1000, 0x1), "pending: not a hit yet");
    is_int(rd(c, 0x1004, 0x1, 2, 2), HRES, "same sector pending: HIT_RESERVED");
    is_int(rd(c, 0x1000, 0x1, 3, 3), FAIL, "third waiter: merge limit 2 reached");
    is_str(drain(c), "", "merging queues nothing");
    ok(!tm_cache_idle(c), "busy with a fill outstanding");
    is_str(ready(c), "", "nothing ready before the fill");
    tm_cache_fill(c, 0x1000, 0x1, 5);
    is_str(ready(c), "1 2", "the fill releases both tokens in arrival order");
    ok(tm_cache_idle(c), "idle once the tokens are popped");
    is_int(rd(c, 0x1010, 0x1, 4, 6), HIT, "filled sector: HIT");
    ok(tm_cache_probe(c, 0x1000, 0x1), "probe agrees");
    ok(!tm_cache_probe(c, 0x1000, 0x3), "probe of an absent sector: no hit");
    is_int(rd(c, 0x1000, 0x2, 5, 7), MISS, "other sector of a present line: (sector) MISS");
    is_str(drain(c), "FILL 0x1000 s=2 b=0:ffffffff00000000 t=5", "fills only sector 1");
    is_int(rd(c, 0x1000, 0x3, 6, 8), HRES, "sectors 0 (valid) + 1 (pending): HIT_RESERVED");
    tm_cache_fill(c, 0x1000, 0x2, 9);
    is_str(ready(c), "5 6", "both waiters of sector 1 released");
    is_str(stats(c),
           "RD_HIT=1 RD_HIT_RESERVED=2 RD_MISS=1 RD_SECTOR_MISS=1 RD_RESERVATION_FAIL=1 "
           "MSHR_MERGE_ENRTY_FAIL=1 FILL_SECTORS=2",
           "counters");
    tm_cache_destroy(c);
}

static void test_mshr_full(void)
{
    struct tm_cache *c = mk(G_SMALL);
    is_int(rd(c, 0x1000, 0xF, 1, 1), MISS, "4 sectors: 4 MSHR entries");
    is_int(rd(c, 0x1080, 0x1, 2, 2), FAIL, "a fifth sector: no MSHR entry");
    is_uint(st(c, TM_CS_FAIL_MSHR_ENTRY), 1, "counted as MSHR_ENRTY_FAIL");
    tm_cache_fill(c, 0x1000, 0x3, 3);
    is_str(ready(c), "", "half filled: the token still waits");
    is_int(rd(c, 0x1080, 0x1, 2, 4), FAIL, "sectors 2,3 still pending; 0,1 held by the waiter");
    tm_cache_fill(c, 0x1000, 0xC, 5);
    is_int(rd(c, 0x1080, 0x1, 2, 6), FAIL, "filled but not popped: entries still held");
    is_str(ready(c), "1", "popped");
    is_int(rd(c, 0x1080, 0x1, 2, 7), MISS, "entries free again");
    is_uint(st(c, TM_CS_FAIL_MSHR_ENTRY), 3, "three entry failures");
    tm_cache_destroy(c);
}

static void test_miss_queue_full(void)
{
    struct tm_cache *c = mk(G_SMALL);
    /* a writable cache keeps 2 slots per read miss (fill + writeback), as GPGPU-Sim: with 4
     * slots the queue holds 3 fills before the next read is refused */
    is_int(rd(c, 0x0000, 0x1, 1, 1), MISS, "miss 1 (queue 0 -> 1)");
    is_int(rd(c, 0x0080, 0x1, 2, 1), MISS, "miss 2 (queue 1 -> 2)");
    is_int(rd(c, 0x0100, 0x1, 3, 1), MISS, "miss 3 (queue 2 -> 3)");
    is_int(rd(c, 0x0180, 0x1, 4, 1), FAIL, "miss 4: 3 + 2 > 4");
    is_int(rd(c, 0x0000, 0x1, 5, 1), FAIL, "a pending hit needs the room too (GPGPU-Sim)");
    is_uint(st(c, TM_CS_FAIL_MISS_QUEUE), 2, "MISS_QUEUE_FULL twice");
    tm_cache_miss_pop(c);
    is_int(rd(c, 0x0180, 0x1, 4, 2), MISS, "room after one pop");
    tm_cache_destroy(c);

    struct tm_cache *ro = mk("N:4:128:1,L:R:f:N:L,A:8:4,2");
    is_int(rd(ro, 0x0000, 0x1, 1, 1), MISS, "read-only: 1 slot per miss (queue 0 -> 1)");
    is_int(rd(ro, 0x0080, 0x1, 2, 1), MISS, "read-only: queue 1 -> 2");
    is_int(rd(ro, 0x0100, 0x1, 3, 1), FAIL, "read-only: full at 2");
    tm_cache_destroy(ro);
}

static void test_line_alloc(void)
{
    struct tm_cache *c = mk(G_SMALL);
    is_int(rd(c, 0x0000, 0x1, 1, 1), MISS, "set 0 way reserved");
    is_int(rd(c, 0x0100, 0x1, 2, 1), MISS, "set 0 second way reserved");
    is_int(rd(c, 0x0200, 0x1, 3, 1), FAIL, "third line in set 0: every way reserved");
    is_int(rd(c, 0x0080, 0x1, 4, 1), MISS, "set 1 unaffected");
    is_str(stats(c), "RD_MISS=3 RD_RESERVATION_FAIL=1 LINE_ALLOC_FAIL=1", "counters");
    drain(c);
    tm_cache_fill(c, 0x0100, 0x1, 2);
    is_int(rd(c, 0x0200, 0x1, 3, 3), MISS, "a filled way is a victim again");
    ok(!tm_cache_probe(c, 0x0100, 0x1), "it was the victim (line 0 still reserved)");
    tm_cache_destroy(c);
}

/* One set of 2 ways: A, B filled, A touched again, then C evicts B (LRU) or A (FIFO). */
static void victim_order(const char *s, bool lru)
{
    struct tm_cache *c = mk(s);
    const char *p = lru ? "LRU" : "FIFO";
    rd(c, 0x000, 1, 1, 1);
    tm_cache_fill(c, 0x000, 0, 2);
    rd(c, 0x080, 1, 2, 3);
    tm_cache_fill(c, 0x080, 0, 4);
    is_int(rd(c, 0x000, 1, 3, 5), HIT, "%s: A hits at 5", p);
    is_int(rd(c, 0x100, 1, 4, 6), MISS, "%s: C misses", p);
    ok(tm_cache_probe(c, 0x000, 1) == lru, "%s: A %s", p, lru ? "kept" : "evicted (oldest fill)");
    ok(tm_cache_probe(c, 0x080, 1) == !lru, "%s: B %s", p, lru ? "evicted (least recent)" : "kept");
    is_str(drain(c),
           "FILL 0x0 s=f b=ffffffffffffffff:ffffffffffffffff t=1; "
           "FILL 0x80 s=f b=ffffffffffffffff:ffffffffffffffff t=2; "
           "FILL 0x100 s=f b=ffffffffffffffff:ffffffffffffffff t=4",
           "%s: a non-sectored line is fetched whole", p);
    tm_cache_destroy(c);
}

static void test_replacement(void)
{
    victim_order("N:1:128:2,L:R:m:N:L,A:4:4,8", true);
    victim_order("N:1:128:2,F:R:m:N:L,A:4:4,8", false);

    /* warming (GPGPU-Sim's fill) does not refresh a present line's access time */
    struct tm_cache *c = mk("S:1:128:2,L:R:f:N:L,A:4:4,8:0,32");
    tm_cache_warm(c, 0x000, 0x1, 1);
    tm_cache_warm(c, 0x080, 0x1, 2);
    tm_cache_warm(c, 0x000, 0x2, 3);
    tm_cache_warm(c, 0x100, 0x1, 4);
    ok(!tm_cache_probe(c, 0x000, 0x1) && tm_cache_probe(c, 0x080, 0x1),
       "LRU after warm A, warm B, warm A again, warm C: A (accessed at 1) evicted");
    tm_cache_destroy(c);
}

static void test_non_sectored(void)
{
    struct tm_cache *c = mk("N:1:128:2,L:R:m:N:L,A:4:4,8");
    is_int(rd(c, 0x1000, 0x2, 1, 1), MISS, "one sector asked");
    is_str(drain(c), "FILL 0x1000 s=f b=ffffffffffffffff:ffffffffffffffff t=1",
           "the whole line is fetched");
    tm_cache_fill(c, 0x1000, 0x3, 2);
    is_str(ready(c), "", "a partial fill (sectored next level) leaves the line missing");
    ok(!tm_cache_probe(c, 0x1000, 0x1), "no hit on half a line");
    is_int(rd(c, 0x1000, 0x1, 2, 3), HRES, "the rest is pending: merged");
    tm_cache_fill(c, 0x1000, 0xC, 4);
    is_str(ready(c), "1 2", "last sectors arrive: both released");
    ok(tm_cache_probe(c, 0x1000, 0x8), "the line hits");
    tm_cache_destroy(c);

    /* lines shorter than a sector: one unit of line bytes */
    struct tm_cache *s16 = mk("N:4:16:1,L:R:f:N:L,A:4:4,4");
    is_int(rd(s16, 0x1018, 0x4, 1, 1), MISS, "16-byte line: MISS");
    is_str(drain(s16), "FILL 0x1010 s=1 b=0:ffff t=1", "the 16 bytes of line 0x1010");
    tm_cache_fill(s16, 0x1010, 0, 2);
    is_int(rd(s16, 0x101F, 0x1, 2, 3), HIT, "then a hit");
    ok(!tm_cache_probe(s16, 0x1020, 0x1), "the next line is another");
    tm_cache_destroy(s16);
}

static void test_write_through(void)
{
    struct tm_cache *c = mk(G_SMALL);
    is_int(wr(c, 0x1004, 0x1, 0xF0, 0, 77, 1), MISS, "write miss, no write-allocate");
    is_str(drain(c), "WRITE 0x1000 s=1 b=0:f0 t=77", "passed on with token and byte mask");
    ok(!tm_cache_probe(c, 0x1000, 0x1), "not allocated");
    rd(c, 0x1000, 0x1, 1, 2);
    drain(c);
    tm_cache_fill(c, 0x1000, 0x1, 3);
    ready(c);
    is_int(wr(c, 0x1000, 0x1, 0xFF, 0, 78, 4), HIT, "write hit");
    is_str(drain(c), "WRITE 0x1000 s=1 b=0:ff t=78", "written through");
    ok(tm_cache_probe(c, 0x1000, 0x1), "the line stays valid");
    is_str(stats(c), "RD_MISS=1 WR_HIT=1 WR_MISS=1 FILL_SECTORS=1", "counters");
    /* with the queue full (4 entries) a write-through write is refused */
    for (int k = 0; k < 4; k++)
        wr(c, 0x8000 + 0x80 * (uint64_t)k, 0x1, 1, 0, 100 + (uint64_t)k, 5);
    is_int(wr(c, 0x1000, 0x1, 1, 0, 200, 6), FAIL, "queue full: even a hit is refused");
    is_uint(st(c, TM_CS_WR_RESFAIL), 1, "WR_RESERVATION_FAIL");
    tm_cache_destroy(c);
}

/* 1 set, 1 way, write-back, lazy fetch-on-read: the L2's policies on a single line. */
#define G_WB "S:1:128:1,L:B:m:L:L,A:8:4,8:0,32"

static void test_write_back_lazy(void)
{
    struct tm_cache *c = mk(G_WB);
    is_int(wr(c, 0x0000, 0x1, 0xFF, 0, 9, 1), MISS, "partial write to sector 0: MISS");
    is_str(drain(c), "", "write-back + lazy: nothing sent, no fetch");
    is_int(wr(c, 0x0060, 0x8, 0, 0xFFFFFFFF00000000ull, 10, 2), MISS,
           "sector 3 written whole: MISS (sector not present)");
    is_uint(st(c, TM_CS_FULL_SECTOR_WRITES), 1, "sector 3 valid by the write alone");
    is_int(rd(c, 0x0060, 0x8, 11, 3), HIT, "read of the fully written sector: HIT, no fill");
    is_int(wr(c, 0x0000, 0x1, 0xFF00, 0, 12, 4), HIT, "writing a written sector again: HIT");
    is_int(rd(c, 0x0000, 0x1, 13, 5), MISS, "read of the partially written sector: MISS");
    is_str(drain(c), "FILL 0x0 s=1 b=0:ffffffff t=13", "it is fetched");
    tm_cache_fill(c, 0x0000, 0x1, 6);
    is_str(ready(c), "13", "read satisfied");
    is_int(rd(c, 0x0080, 0x1, 14, 7), MISS, "another line evicts the dirty one");
    is_str(drain(c),
           "WRITEBACK 0x0 s=9 b=ffffffff00000000:ffff t=0; FILL 0x80 s=1 b=0:ffffffff t=14",
           "writeback of exactly the written bytes (the fill kept them), then the fill");
    is_str(stats(c),
           "RD_HIT=1 RD_MISS=1 RD_SECTOR_MISS=1 WR_HIT=1 WR_MISS=2 FILL_SECTORS=1 "
           "WRITEBACKS=1 WRITEBACK_SECTORS=2 FULL_SECTOR_WRITES=1",
           "counters");
    /* two partial writes that together cover a sector make it valid */
    tm_cache_fill(c, 0x0080, 0x1, 8);
    ready(c);
    wr(c, 0x00A0, 0x2, 0x0000FFFF00000000ull, 0, 15, 9);
    ok(!tm_cache_probe(c, 0x00A0, 0x2), "half of sector 1: not readable");
    wr(c, 0x00A0, 0x2, 0xFFFF000000000000ull, 0, 16, 10);
    ok(tm_cache_probe(c, 0x00A0, 0x2), "the other half: sector 1 readable");
    is_uint(st(c, TM_CS_FULL_SECTOR_WRITES), 2, "FULL_SECTOR_WRITES");
    tm_cache_destroy(c);
}

static void test_fetch_on_write(void)
{
    struct tm_cache *c = mk("S:1:128:2,L:B:m:F:L,A:8:4,8:0,32");
    is_int(wr(c, 0x0000, 0x1, 0xFF, 0, 1, 1), MISS, "partial write, fetch-on-write");
    is_str(drain(c), "FILL 0x0 s=1 b=0:ffffffff t=1", "the sector is fetched (carrying the token; none waits)");
    is_int(wr(c, 0x0020, 0x2, 0xFFFFFFFF00000000ull, 0, 2, 2), MISS, "full sector 1");
    is_str(drain(c), "", "a whole sector needs no fetch");
    ok(tm_cache_probe(c, 0x0020, 0x2), "sector 1 valid");
    tm_cache_fill(c, 0x0000, 0x1, 3);
    is_str(ready(c), "", "the fetch had no waiter");
    ok(tm_cache_idle(c), "idle");
    ok(tm_cache_probe(c, 0x0000, 0x1), "sector 0 valid after the fill");
    is_uint(tm_cache_flush(c), 1, "one dirty line");
    is_str(drain(c), "WRITEBACK 0x0 s=3 b=0:ffffffff000000ff t=0", "written bytes of both sectors");
    tm_cache_destroy(c);

    struct tm_cache *n = mk("S:1:128:2,L:B:m:W:L,A:8:4,8:0,32");
    is_int(wr(n, 0x0000, 0x1, 0xFF, 0, 5, 1), MISS, "naive write-allocate");
    is_str(drain(n), "WRITE 0x0 s=1 b=0:ff t=5; FILL 0x0 s=1 b=0:ffffffff t=5",
           "the write is sent on and the sector fetched");
    tm_cache_fill(n, 0x0000, 0x1, 2);
    is_uint(tm_cache_flush(n), 0, "the line stays clean");
    tm_cache_destroy(n);
}

static void test_write_evict_and_read_only(void)
{
    struct tm_cache *c = mk("S:1:128:2,L:E:m:N:L,A:8:4,8:0,32");
    rd(c, 0x0000, 0x3, 1, 1);
    tm_cache_fill(c, 0x0000, 0x3, 2);
    ready(c);
    drain(c);
    is_int(wr(c, 0x0000, 0x1, 0xF, 0, 7, 3), HIT, "write-evict hit");
    is_str(drain(c), "WRITE 0x0 s=1 b=0:f t=7", "sent on");
    ok(!tm_cache_probe(c, 0x0000, 0x1), "sector 0 invalidated");
    ok(tm_cache_probe(c, 0x0020, 0x2), "sector 1 kept");
    tm_cache_destroy(c);

    /* local-write-back/global-write-through ('L') is modelled as write-evict: GPGPU-Sim's
     * global write path (the space is the owner's) */
    struct tm_cache *l = mk("N:1:128:2,L:L:m:N:L,A:8:4,8");
    rd(l, 0x0000, 0x1, 1, 1);
    tm_cache_fill(l, 0x0000, 0, 2);
    ready(l);
    drain(l);
    is_int(wr(l, 0x0000, 0x1, 0xF, 0, 8, 3), HIT, "'L' write hit");
    is_str(drain(l), "WRITE 0x0 s=1 b=0:f t=8", "sent on");
    ok(!tm_cache_probe(l, 0x0000, 0x1), "the (non-sectored) line is invalidated");
    tm_cache_destroy(l);

    struct tm_cache *r = mk("N:1:128:2,L:R:m:N:L,A:8:4,8");
    is_int(wr(r, 0x0000, 0x1, 0xF, 0, 9, 1), MISS, "write to a read-only cache: passed on");
    is_str(drain(r), "WRITE 0x0 s=1 b=0:f t=9", "no allocation, token kept");
    tm_cache_destroy(r);
}

static void test_fill_order(void)
{
    struct tm_cache *c = mk("S:1:128:2,L:T:m:N:L,A:8:4,8:0,32");
    is_int(rd(c, 0x0000, 0x1, 10, 1), MISS, "token 10: sector 0");
    is_int(rd(c, 0x0000, 0x2, 11, 2), MISS, "token 11: sector 1 (sector miss)");
    is_int(rd(c, 0x0000, 0x3, 12, 3), HRES, "token 12: both, both pending");
    tm_cache_fill(c, 0x0000, 0x2, 4);
    is_str(ready(c), "11", "sector 1 first: only 11");
    tm_cache_fill(c, 0x0000, 0x1, 5);
    is_str(ready(c), "10 12", "then 10 and 12, in arrival order");
    ok(tm_cache_idle(c) == false, "fills queued but not popped: not idle");
    drain(c);
    ok(tm_cache_idle(c), "idle");
    tm_cache_destroy(c);
}

static void test_streaming(void)
{
    /* 1 way, allocate on fill ('f') and streaming ('s', the same allocation) */
    const char *gs[] = {"S:1:128:1,L:T:s:N:L,A:8:4,8:0,32", "S:1:128:1,L:T:f:N:L,A:8:4,8:0,32"};
    for (int k = 0; k < 2; k++) {
        struct tm_cache *c = mk(gs[k]);
        is_int(rd(c, 0x000, 1, 1, 1), MISS, "%c: miss A", gs[k][14]);
        is_int(rd(c, 0x080, 1, 2, 2), MISS, "%c: miss B in the same 1-way set: nothing reserved",
               gs[k][14]);
        is_int(rd(c, 0x000, 1, 3, 3), HRES, "%c: A again: merged in the MSHR", gs[k][14]);
        tm_cache_fill(c, 0x080, 1, 4);
        ok(tm_cache_probe(c, 0x080, 1), "%c: B allocated at its fill", gs[k][14]);
        tm_cache_fill(c, 0x000, 1, 5);
        ok(tm_cache_probe(c, 0x000, 1) && !tm_cache_probe(c, 0x080, 1), "%c: A's fill evicts B",
           gs[k][14]);
        is_str(ready(c), "2 1 3", "%c: tokens in fill order", gs[k][14]);
        tm_cache_destroy(c);
    }
}

static void test_flush_invalidate(void)
{
    struct tm_cache *c = mk("S:2:128:2,L:B:m:L:L,A:8:4,8:0,32");
    wr(c, 0x0000, 0x1, 0xFFFFFFFF, 0, 1, 1);     /* sector 0 whole: valid + dirty */
    wr(c, 0x0080, 0x2, 0x100000000ull, 0, 2, 1); /* one byte of sector 1 of another line */
    is_uint(tm_cache_flush(c), 2, "two dirty lines written back");
    is_str(drain(c), "WRITEBACK 0x0 s=1 b=0:ffffffff t=0; WRITEBACK 0x80 s=2 b=0:100000000 t=0",
           "each with its written bytes");
    ok(tm_cache_probe(c, 0x0000, 0x1), "flushed line stays valid (clean)");
    is_uint(tm_cache_flush(c), 0, "nothing dirty any more");
    rd(c, 0x0100, 0x1, 5, 2);
    drain(c);
    tm_cache_invalidate(c);
    ok(!tm_cache_probe(c, 0x0000, 0x1), "invalidated");
    ok(!tm_cache_idle(c), "the pending fill stays");
    is_int(rd(c, 0x0100, 0x1, 6, 3), HRES, "a read of the pending sector still merges");
    tm_cache_fill(c, 0x0100, 0x1, 4);
    is_str(ready(c), "5 6", "both released");
    ok(tm_cache_probe(c, 0x0100, 0x1), "the fill allocated the line again");
    is_str(stats(c),
           "RD_HIT_RESERVED=1 RD_MISS=1 WR_MISS=2 FILL_SECTORS=1 WRITEBACKS=2 "
           "WRITEBACK_SECTORS=2 FULL_SECTOR_WRITES=1",
           "counters");
    tm_cache_destroy(c);
}

/* a and b map to the same set of a 1-way cache: b's warm-up evicts a. */
static bool same_set(struct tm_cache *c, uint64_t a, uint64_t b)
{
    tm_cache_invalidate(c);
    tm_cache_warm(c, a, 0, 1);
    tm_cache_warm(c, b, 0, 2);
    return !tm_cache_probe(c, a, 1);
}

static void test_set_index(void)
{
    /* IPOLY, 32 sets of 128 B: index = address bits 7-11, higher bits a[j] = bit 12 + j;
     * GPGPU-Sim's equations: a[0] -> set bits 0,2; a[1] -> 1,3; a[14] -> 1,2; a[15+] unused */
    struct tm_cache *p = mk("S:32:128:1,L:R:f:N:P,A:8:4,8:0,32");
    const struct {
        uint64_t addr;
        unsigned set;
    } ip[] = {
        {0x1000, 5},     /* a0: 0b00101 */
        {0x2000, 10},    /* a1: 0b01010 */
        {0x3080, 14},    /* index 1 ^ a0 ^ a1 = 1 ^ 5 ^ 10 */
        {1ull << 26, 6}, /* a14: 0b00110 */
        {1ull << 27, 0}, /* a15: beyond GPGPU-Sim's equations */
        {0x9000, 8},     /* a0 ^ a3: 0b00101 ^ 0b01101 (x^8 mod x^5+x^2+1 = x^3+x^2+1) */
    };
    for (size_t k = 0; k < sizeof ip / sizeof ip[0]; k++) {
        ok(same_set(p, ip[k].addr, (uint64_t)ip[k].set * 128), "IPOLY 32: 0x%llx is in set %u",
           (unsigned long long)ip[k].addr, ip[k].set);
        ok(!same_set(p, ip[k].addr, (uint64_t)((ip[k].set + 1) % 32) * 128),
           "IPOLY 32: 0x%llx is not in set %u", (unsigned long long)ip[k].addr,
           (ip[k].set + 1) % 32);
    }
    tm_cache_destroy(p);

    /* IPOLY, 64 sets: a[0] -> set bits 0,1 (x^6 mod x^6+x+1 = x+1); a[18] -> 0,4 */
    struct tm_cache *p64 = mk("S:64:128:1,L:R:f:N:P,A:8:4,8:0,32");
    ok(same_set(p64, 0x2000, 3 * 128), "IPOLY 64: 0x2000 is in set 3");
    ok(same_set(p64, 1ull << 31, 17 * 128), "IPOLY 64: 1<<31 (a18) is in set 17");
    ok(same_set(p64, 1ull << 32, 0), "IPOLY 64: 1<<32 (a19) unused: set 0");
    tm_cache_destroy(p64);

    /* IPOLY, 16 sets: a[0] -> set bits 0,1 (x^4+x+1), index = bits 7-10, a[j] = bit 11 + j */
    struct tm_cache *p16 = mk("S:16:128:1,L:R:f:N:P,A:8:4,8:0,32");
    ok(same_set(p16, 0x800, 3 * 128), "IPOLY 16: 0x800 is in set 3");
    ok(same_set(p16, 0x880, 2 * 128), "IPOLY 16: 0x880 is in set 1 ^ 3 = 2");
    tm_cache_destroy(p16);

    /* Fermi hash, 32 sets: bits 7-11 XOR (13,14,15,17,19) */
    struct tm_cache *h = mk("N:32:128:1,L:R:f:N:H,A:8:4,8");
    ok(same_set(h, 0x2000, 1 * 128), "Fermi 32: bit 13 -> set 1");
    ok(same_set(h, 0x20000, 8 * 128), "Fermi 32: bit 17 -> set 8");
    ok(same_set(h, 0x80080, 17 * 128), "Fermi 32: bit 19 + index 1 -> set 17");
    ok(same_set(h, 0x1000, 0), "Fermi 32: bit 12 unused -> set 0");
    tm_cache_destroy(h);
    /* 64 sets: bit 12 becomes set bit 5 */
    struct tm_cache *h64 = mk("N:64:128:1,L:R:f:N:H,A:8:4,8");
    ok(same_set(h64, 0x3000, 33 * 128), "Fermi 64: 0x3000 -> 1 | 32 = set 33");
    ok(!same_set(h64, 0x3000, 32 * 128), "Fermi 64: 0x3000 is not linear set 32");
    tm_cache_destroy(h64);

    /* bitwise XOR ('X'), 32 sets: index ^ (higher bits & 31) */
    struct tm_cache *x = mk("S:32:128:1,L:R:f:N:X,A:8:4,8:0,32");
    ok(same_set(x, 0x1000, 1 * 128), "XOR 32: 0x1000 -> set 1");
    ok(same_set(x, 0x1080, 0), "XOR 32: 0x1080 -> set 0");
    ok(same_set(x, 0x5000 + 6 * 128, 3 * 128), "XOR 32: 0x5300 -> 6 ^ 5 = set 3");
    tm_cache_destroy(x);

    /* linear with a set count that is not a power of two: modulo */
    struct tm_cache *m = mk("N:3:128:1,L:R:f:N:L,A:8:4,8");
    ok(same_set(m, 0x0000, 3 * 128), "linear 3 sets: line 3 -> set 0");
    ok(!same_set(m, 0x0000, 4 * 128), "linear 3 sets: line 4 -> set 1");
    tm_cache_destroy(m);
}

static void test_volta(void)
{
    /* configs/qv100.config */
    struct tm_cache_geom g = geom("S:4:128:64,L:T:m:L:L,A:512:8,16:0,32");
    ok(g.present && g.sectored && g.nset == 4 && g.line == 128 && g.assoc == 64 && g.repl == 'L' &&
           g.write == 'T' && g.alloc == 'm' && g.write_alloc == 'L' && g.set_index == 'L' &&
           g.mshr == 'A' && g.mshr_entries == 512 && g.mshr_merge == 8 && g.miss_queue == 16 &&
           g.fifo_entries == 0 && g.data_port_width == 32,
       "V100 L1D decodes field by field");
    struct tm_cache *l1;
    is_int(tm_cache_create(&l1, &g, "L1D"), 0, "V100 L1D created");
    is_int(wr(l1, 0x10000, 0x1, 0xF, 0, 1, 1), MISS, "L1D partial store: MISS");
    is_str(drain(l1), "WRITE 0x10000 s=1 b=0:f t=1", "written through, no fetch (lazy)");
    is_int(wr(l1, 0x10020, 0x2, 0xFFFFFFFF00000000ull, 0, 2, 2), MISS, "L1D full-sector store");
    drain(l1);
    is_int(rd(l1, 0x10020, 0x2, 3, 3), HIT, "L1D load of the stored sector: HIT");
    is_int(rd(l1, 0x10000, 0x1, 4, 4), MISS, "L1D load of the partly stored sector: MISS");
    drain(l1);
    int acc = 0;
    for (uint64_t k = 0; k < 20; k++)
        acc += rd(l1, 0x100000 + k * 128, 0x1, 10 + k, 5) == TM_CACHE_MISS;
    is_int(acc, 15, "L1D: 15 misses fit a 16-entry miss queue (2 slots kept per read)");
    is_uint(st(l1, TM_CS_FAIL_MISS_QUEUE), 5, "the other 5 are MISS_QUEUE_FULL");
    tm_cache_destroy(l1);

    g = geom("S:32:128:24,L:B:m:L:P,A:192:4,32:0,32");
    ok(g.present && g.sectored && g.nset == 32 && g.line == 128 && g.assoc == 24 &&
           g.write == 'B' && g.alloc == 'm' && g.write_alloc == 'L' && g.set_index == 'P' &&
           g.mshr_entries == 192 && g.mshr_merge == 4 && g.miss_queue == 32 &&
           g.data_port_width == 32,
       "V100 L2 decodes field by field");
    struct tm_cache *l2;
    is_int(tm_cache_create(&l2, &g, "L2"), 0, "V100 L2 created");
    /* 25 lines in set 0: address bits 27+ are outside the IPOLY equations, so k << 27 all
     * index set 0; each is written whole (no DRAM read), the 25th evicts the first */
    for (uint64_t k = 0; k < 25; k++)
        wr(l2, k << 27, 0xF, UINT64_MAX, UINT64_MAX, 100 + k, 1 + k);
    is_str(drain(l2), "WRITEBACK 0x0 s=f b=ffffffffffffffff:ffffffffffffffff t=0",
           "one writeback of the least recently written line, no fill at all");
    is_uint(st(l2, TM_CS_FULL_SECTOR_WRITES), 100, "every sector valid by writes alone");
    is_int(rd(l2, 1ull << 27, 0xF, 1, 30), HIT, "the second line is still there");
    ok(!tm_cache_probe(l2, 0, 0x1), "the first is gone");
    tm_cache_destroy(l2);
}

static void test_create_errors(void)
{
    struct tm_cache_geom g = geom(G_SMALL), b;
    struct tm_cache *c = (struct tm_cache *)&g;
    b = g;
    b.line = 256;
    is_int(tm_cache_create(&c, &b, "x"), -EINVAL, "256-byte lines: -EINVAL");
    ok(c == NULL, "*out cleared");
    b = g;
    b.mshr_entries = 0;
    is_int(tm_cache_create(&c, &b, "x"), -EINVAL, "no MSHR: -EINVAL");
    b = g;
    b.set_index = 'H';
    is_int(tm_cache_create(&c, &b, "x"), -EINVAL, "Fermi hash on 2 sets: -EINVAL");
    b = g;
    b.miss_queue = 1;
    is_int(tm_cache_create(&c, &b, "x"), -EINVAL, "miss queue smaller than a read miss needs");
    b = g;
    b.present = false;
    is_int(tm_cache_create(&c, &b, "x"), -EINVAL, "absent cache");
    is_str(tm_cache_stat_name(TM_CS_FAIL_MSHR_ENTRY), "MSHR_ENRTY_FAIL",
           "GPGPU-Sim's counter names, spelling included");
    is_str(tm_cache_stat_name(TM_CS_RD_HIT_RESERVED), "RD_HIT_RESERVED", "pending hits");
    c = mk(G_SMALL);
    ok(tm_cache_geom_of(c)->mshr_merge == 2 && tm_cache_geom_of(c)->miss_queue == 4,
       "the geometry is kept");
    tm_cache_destroy(c);
}

/* ------------------------------------------------------------------ random sequences */

static uint64_t rnd(uint64_t *x)
{
    *x = *x * 6364136223846793005ull + 1442695040888963407ull;
    return *x >> 33;
}

/* Random accesses, fills answered in random order (some split sector by sector), tokens
 * popped at random, occasional invalidate and flush, on every policy combination: every read
 * that did not hit comes back exactly once, the counters add up, and the cache ends idle. */
static void test_random(void)
{
    static const char *const types[] = {"N", "S"};
    static const char *const writes[] = {"T", "B", "E", "L", "R"};
    static const char *const allocs[] = {"m", "f", "s"};
    static const char *const wallocs[] = {"N", "W", "F", "L"};
    int combos = 0, bad = 0;
    for (int ti = 0; ti < 2; ti++)
        for (int wi = 0; wi < 5; wi++)
            for (int ai = 0; ai < 3; ai++)
                for (int ki = 0; ki < 4; ki++) {
                    char gs[96];
                    snprintf(gs, sizeof gs, "%s:2:128:2,%s:%s:%s:%s:L,A:6:3,8:0,32", types[ti],
                             (ki & 1) ? "F" : "L", writes[wi], allocs[ai], wallocs[ki]);
                    struct tm_cache *c = mk(gs);
                    enum { NTOK = 4096 };
                    static uint8_t state[NTOK]; /* 0 none, 1 waiting, 2 returned */
                    memset(state, 0, sizeof state);
                    struct {
                        uint64_t addr;
                        uint8_t sectors;
                    } fills[256];
                    int nfill = 0, waiting = 0, dup = 0, reads = 0, writes_n = 0;
                    uint64_t sent_sectors = 0, x = 12345 + (uint64_t)combos, tok = 0;
                    for (uint64_t t = 1; t < 3000 || nfill || waiting || tm_cache_miss_peek(c);
                         t++) {
                        bool ending = t >= 3000;
                        unsigned op = (unsigned)(rnd(&x) % 10);
                        if (!ending && op < 4 && tok < NTOK) {
                            uint64_t a = (rnd(&x) % 6) * 128 + (rnd(&x) % 128);
                            uint8_t secs = (uint8_t)(rnd(&x) % 15 + 1);
                            bool w = rnd(&x) % 3 == 0;
                            uint64_t b0 = rnd(&x) << 32 | rnd(&x), b1 = rnd(&x) << 32 | rnd(&x);
                            if (rnd(&x) % 2)
                                b0 = b1 = UINT64_MAX;
                            enum tm_cache_res r =
                                w ? wr(c, a, secs, b0, b1, tok, t) : rd(c, a, secs, tok, t);
                            if (w)
                                writes_n++;
                            else
                                reads++;
                            if (!w && (r == TM_CACHE_MISS || r == TM_CACHE_HIT_RESERVED)) {
                                state[tok] = 1;
                                waiting++;
                            }
                            tok++;
                        } else if (op < 6 || ending) {
                            const struct tm_cache_out *o = tm_cache_miss_peek(c);
                            if (o && o->kind == TM_COUT_FILL && nfill < 256) {
                                fills[nfill].addr = o->addr;
                                fills[nfill].sectors = o->sectors;
                                sent_sectors += (uint64_t)__builtin_popcount(o->sectors);
                                nfill++;
                                tm_cache_miss_pop(c);
                            } else if (o && o->kind != TM_COUT_FILL) {
                                tm_cache_miss_pop(c);
                            }
                            if (nfill && (rnd(&x) % 2 || ending)) {
                                int k = (int)(rnd(&x) % (uint64_t)nfill);
                                uint8_t s = fills[k].sectors, part = s & (uint8_t)-s;
                                if (rnd(&x) % 2 && part != s) { /* one sector now */
                                    tm_cache_fill(c, fills[k].addr, part, t);
                                    fills[k].sectors &= (uint8_t)~part;
                                } else {
                                    tm_cache_fill(c, fills[k].addr, s, t);
                                    fills[k] = fills[--nfill];
                                }
                            }
                        }
                        if ((op >= 6 && op < 9) || ending) {
                            uint64_t k;
                            while (tm_cache_next_ready(c, &k)) {
                                if (k >= NTOK || state[k] != 1)
                                    dup++;
                                else {
                                    state[k] = 2;
                                    waiting--;
                                }
                                if (rnd(&x) % 2 && !ending)
                                    break;
                            }
                        } else if (op == 9 && rnd(&x) % 8 == 0) {
                            tm_cache_invalidate(c);
                        } else if (op == 9) {
                            tm_cache_flush(c);
                        }
                        if (t > 200000)
                            break;
                    }
                    const uint64_t *S = tm_cache_stats(c);
                    bool good = !dup && !waiting && tm_cache_idle(c) &&
                                S[TM_CS_RD_HIT] + S[TM_CS_RD_HIT_RESERVED] + S[TM_CS_RD_MISS] +
                                        S[TM_CS_RD_SECTOR_MISS] + S[TM_CS_RD_RESFAIL] ==
                                    (uint64_t)reads &&
                                S[TM_CS_WR_HIT] + S[TM_CS_WR_MISS] + S[TM_CS_WR_RESFAIL] ==
                                    (uint64_t)writes_n &&
                                S[TM_CS_FILLS] == sent_sectors &&
                                S[TM_CS_RD_RESFAIL] + S[TM_CS_WR_RESFAIL] ==
                                    S[TM_CS_FAIL_LINE_ALLOC] + S[TM_CS_FAIL_MISS_QUEUE] +
                                        S[TM_CS_FAIL_MSHR_ENTRY] + S[TM_CS_FAIL_MSHR_MERGE];
                    if (!good) {
                        diag("%s: dup %d waiting %d idle %d reads %d writes %d fills %llu/%llu "
                             "%s",
                             gs, dup, waiting, tm_cache_idle(c), reads, writes_n,
                             (unsigned long long)S[TM_CS_FILLS], (unsigned long long)sent_sectors,
                             stats(c));
                        bad++;
                    }
                    combos++;
                    tm_cache_destroy(c);
                }
    is_int(combos, 120, "120 policy combinations");
    is_int(bad, 0, "every combination: each waiting read returned once, counters add up, idle");
}

/* Many lines in and out of a 256-set direct-mapped cache: every survivor is still found (the
 * line index keeps its probe runs intact when lines leave). */
static void test_many_lines(void)
{
    struct tm_cache *c = mk("N:256:128:1,L:R:f:N:L,A:8:4,8");
    for (uint64_t k = 0; k < 256; k++)
        tm_cache_warm(c, k * 128, 0, k);
    for (uint64_t k = 256; k < 384; k++) /* sets 0-127 again: lines 0-127 leave */
        tm_cache_warm(c, k * 128, 0, k);
    int in = 0, gone = 0;
    for (uint64_t k = 0; k < 384; k++) {
        bool p = tm_cache_probe(c, k * 128, 1);
        in += p && k >= 128;
        gone += !p && k < 128;
    }
    is_int(in, 256, "lines 128-383 all present");
    is_int(gone, 128, "lines 0-127 all evicted");
    for (uint64_t k = 128; k < 384; k += 2) /* a line of the same set evicts each even one */
        tm_cache_warm(c, (k + 1024) * 128, 0, 1000 + k);
    in = 0;
    for (uint64_t k = 128; k < 384; k++)
        in += tm_cache_probe(c, k * 128, 1) == (k % 2 == 1);
    is_int(in, 256, "after evicting every other line, exactly the odd ones are left");
    tm_cache_destroy(c);
}

int main(void)
{
    test_read_basics();
    test_mshr_full();
    test_miss_queue_full();
    test_line_alloc();
    test_replacement();
    test_non_sectored();
    test_write_through();
    test_write_back_lazy();
    test_fetch_on_write();
    test_write_evict_and_read_only();
    test_fill_order();
    test_streaming();
    test_flush_invalidate();
    test_set_index();
    test_volta();
    test_create_errors();
    test_random();
    test_many_lines();
    return done_testing();
}
