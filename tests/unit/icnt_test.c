/*
 * tests/unit/icnt_test.c — the interconnect (timing/icnt.c, timing/icnt_booksim.c): exact
 * delivery cycles through the idle crossbar and idle BookSim networks (hops × the per-hop
 * pipeline), flits per packet, serialisation at one destination, back-pressure, iSLIP against
 * round-robin grant orders, subnets keeping replies out of a saturated request path, every
 * packet delivered exactly once with its payload under seeded random traffic, the fixtures
 * fixtures/icnt/*.icnt, and refused malformed files with file:line diagnostics.
 *
 * Run from the repository root (prove does): the fixtures are read by relative path.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/tap.h"
#include "timing/icnt.h"
#include "timing/icnt_int.h"

static char err[1024];

static uint64_t rng_next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* A configuration from "name value" pairs (NULL-terminated) on top of the defaults. */
static void cfg_make(struct tm_config *c, const char *const *kv)
{
    if (tm_config_init(c))
        bail_out("tm_config_init");
    for (; *kv; kv += 2)
        if (tm_config_set(c, kv[0], kv[1], err, sizeof err))
            bail_out(err);
}

static struct tm_icnt *make(const char *const *kv, uint32_t nsm, uint32_t nmem)
{
    struct tm_config c;
    cfg_make(&c, kv);
    struct tm_icnt *n = NULL;
    err[0] = 0;
    int rc = tm_icnt_create(&n, &c, nsm, nmem, NULL, err, sizeof err);
    tm_config_free(&c);
    if (rc)
        diag("tm_icnt_create: %s", err);
    return n;
}

static struct tm_req req(uint32_t id)
{
    struct tm_req r;
    memset(&r, 0, sizeof r);
    r.addr = (uint64_t)id * 128;
    r.inst = id;
    r.sm = (uint16_t)(id & 0xffff);
    r.bytes = (uint16_t)(id % 977);
    r.kind = (uint8_t)(id % 4);
    r.sectors = (uint8_t)(id * 7);
    r.bmask[0] = 0x0123456789abcdefull ^ id;
    r.bmask[1] = ~(uint64_t)id;
    return r;
}

static bool req_ok(const struct tm_req *r, uint32_t id)
{
    struct tm_req e = req(id);
    return r && !memcmp(r, &e, sizeof e);
}

/* Cycles until node dst has a packet (cycling first), at most `limit`; 0 if none came. */
static uint64_t cycles_until(struct tm_icnt *n, uint32_t dst, uint64_t limit)
{
    for (uint64_t c = 1; c <= limit; c++) {
        tm_icnt_cycle(n);
        if (tm_icnt_peek(n, dst))
            return c;
    }
    return 0;
}

/* ------------------------------------------------------------------ crossbar */

static const char *const XB[] = {"network_mode", "2", "icnt_flit_size", "40", "icnt_subnets",
                                 "2", "icnt_arbiter_algo", "1", NULL};

static void test_xbar_latency(void)
{
    struct tm_icnt *n = make(XB, 2, 2);
    if (!n)
        bail_out("crossbar");
    is_str(tm_icnt_describe(n),
           "crossbar 2x2, 2 subnets, iSLIP, 40-byte flits, buffers 64/64 packets",
           "crossbar description");
    ok(!tm_icnt_busy(n), "a new network is idle");
    struct tm_req r = req(7);
    ok(tm_icnt_can_push(n, 0, 32), "SM 0 may push");
    tm_icnt_push(n, 0, 2, &r, 32);
    ok(tm_icnt_busy(n) && !tm_icnt_peek(n, 2), "busy, nothing delivered before a cycle");
    is_uint(cycles_until(n, 2, 10), 1, "one flit crosses the idle crossbar in 1 cycle");
    ok(req_ok(tm_icnt_peek(n, 2), 7), "payload intact");
    tm_icnt_pop(n, 2);
    ok(!tm_icnt_busy(n) && !tm_icnt_peek(n, 2), "popped: idle again");

    /* flits per packet: ceil(bytes / 40), at least 1; an F-flit packet takes F cycles */
    static const uint32_t bytes[] = {0, 1, 40, 41, 80, 136};
    static const uint32_t flits[] = {1, 1, 1, 2, 2, 4};
    for (int i = 0; i < 6; i++) {
        uint64_t f0 = tm_icnt_stats(n)[TM_IS_FLITS_REQ];
        r = req(100 + (uint32_t)i);
        tm_icnt_push(n, 1, 3, &r, bytes[i]);
        is_uint(tm_icnt_stats(n)[TM_IS_FLITS_REQ] - f0, flits[i], "%u bytes: %u flit(s)",
                bytes[i], flits[i]);
        is_uint(cycles_until(n, 3, 20), flits[i], "%u bytes delivered after %u cycle(s)",
                bytes[i], flits[i]);
        tm_icnt_pop(n, 3);
    }
    const uint64_t *s = tm_icnt_stats(n);
    is_uint(s[TM_IS_PACKETS_REQ], 7, "7 request packets");
    is_uint(s[TM_IS_LAT_SUM_REQ], 1 + 1 + 1 + 1 + 2 + 2 + 4, "latency sum");
    is_uint(s[TM_IS_LAT_MAX_REQ], 4, "latency max");
    is_uint(s[TM_IS_CYCLES], 12, "12 cycles had a flit in the network");
    for (int i = 0; i < 100; i++)
        tm_icnt_cycle(n);
    is_uint(tm_icnt_stats(n)[TM_IS_CYCLES], 12, "idle cycles are not counted");

    /* a reply: memory node 3 -> SM 1 on the reply subnet */
    r = req(9);
    tm_icnt_push(n, 3, 1, &r, 136);
    is_uint(cycles_until(n, 1, 20), 4, "a 4-flit reply in 4 cycles");
    ok(req_ok(tm_icnt_peek(n, 1), 9), "reply payload intact");
    tm_icnt_pop(n, 1);
    is_uint(tm_icnt_stats(n)[TM_IS_PACKETS_REP], 1, "1 reply packet");
    is_uint(tm_icnt_stats(n)[TM_IS_FLITS_REP], 4, "4 reply flits");
    is_uint(tm_icnt_stats(n)[TM_IS_LAT_SUM_REP], 4, "reply latency");
    tm_icnt_destroy(n);
}

static void test_xbar_serialize(void)
{
    struct tm_icnt *n = make(XB, 2, 2);
    /* SM 0 and SM 1 each send a 2-flit packet to memory node 0 (node 2) at cycle 0 */
    struct tm_req a = req(1), b = req(2);
    tm_icnt_push(n, 0, 2, &a, 80);
    tm_icnt_push(n, 1, 2, &b, 80);
    uint64_t at[2] = {0, 0};
    uint32_t who[2] = {0, 0};
    int got = 0;
    for (uint64_t c = 1; c <= 10 && got < 2; c++) {
        tm_icnt_cycle(n);
        const struct tm_req *p = tm_icnt_peek(n, 2);
        if (p) {
            at[got] = c;
            who[got++] = p->inst;
            tm_icnt_pop(n, 2);
        }
    }
    is_uint(got, 2, "both delivered");
    is_uint(at[0], 2, "first at cycle 2 (2 flits)");
    is_uint(at[1], 4, "second at cycle 4: it waited for the output");
    ok(who[0] == 1 && who[1] == 2, "SM 0 first (the pointer starts at node 0)");
    tm_icnt_destroy(n);
}

static void test_xbar_backpressure(void)
{
    static const char *const kv[] = {"network_mode", "2", "icnt_in_buffer_limit", "2",
                                     "icnt_out_buffer_limit", "1", NULL};
    struct tm_icnt *n = make(kv, 2, 2);
    struct tm_req r[4] = {req(1), req(2), req(3), req(4)};
    tm_icnt_push(n, 0, 2, &r[0], 32);
    tm_icnt_push(n, 0, 2, &r[1], 32);
    ok(!tm_icnt_can_push(n, 0, 32), "input buffer of 2 packets full: can_push false");
    is_uint(tm_icnt_stats(n)[TM_IS_PUSH_REFUSED], 1, "refusal counted");
    ok(tm_icnt_can_push(n, 1, 32), "another SM's input has room");
    tm_icnt_cycle(n); /* packet 1 -> the output buffer (1 packet: full) */
    ok(tm_icnt_can_push(n, 0, 32), "one packet left the input: room again");
    tm_icnt_push(n, 0, 2, &r[2], 32);
    for (int i = 0; i < 20; i++)
        tm_icnt_cycle(n);
    ok(!tm_icnt_can_push(n, 0, 32), "output full, memory node never pops: input stays full");
    ok(req_ok(tm_icnt_peek(n, 2), 1), "packet 1 waits at the output");
    tm_icnt_pop(n, 2);
    ok(!tm_icnt_can_push(n, 0, 32), "popped, but no cycle yet");
    tm_icnt_cycle(n);
    ok(tm_icnt_can_push(n, 0, 32), "one cycle after the pop: room again");
    ok(req_ok(tm_icnt_peek(n, 2), 2), "packet 2 delivered in that cycle");
    tm_icnt_destroy(n);
}

/* Order in which memory node 0 receives 4 packets each from SM 0 and SM 1 (popping every
 * cycle), as a string of SM digits. */
static void grant_order(const char *algo, char *out)
{
    const char *kv[] = {"network_mode", "2", "icnt_arbiter_algo", algo, NULL};
    struct tm_icnt *n = make(kv, 2, 2);
    for (uint32_t j = 0; j < 4; j++)
        for (uint32_t s = 0; s < 2; s++) {
            struct tm_req r = req(s);
            tm_icnt_push(n, s, 2, &r, 8);
        }
    int k = 0;
    for (int c = 0; c < 20 && k < 8; c++) {
        tm_icnt_cycle(n);
        const struct tm_req *p = tm_icnt_peek(n, 2);
        if (p) {
            out[k++] = (char)('0' + p->inst);
            tm_icnt_pop(n, 2);
        }
    }
    out[k] = 0;
    tm_icnt_destroy(n);
}

static void test_xbar_arbiters(void)
{
    char o[16];
    grant_order("1", o);
    is_str(o, "01010101", "iSLIP alternates (the pointer moves past each grant)");
    grant_order("0", o);
    /* round robin's start rotates over all 4 nodes: starts 0,1,2,3,0 favour SM 0 at 2 and 3 */
    is_str(o, "01000111", "round robin: the start rotates over SM and memory nodes");

    /* -icnt_grant_cycles 2: the pointer moves every second cycle with requests */
    const char *kv[] = {"network_mode", "2", "icnt_grant_cycles", "2", NULL};
    struct tm_icnt *n = make(kv, 2, 2);
    for (uint32_t j = 0; j < 3; j++)
        for (uint32_t s = 0; s < 2; s++) {
            struct tm_req r = req(s);
            tm_icnt_push(n, s, 2, &r, 8);
        }
    int k = 0;
    for (int c = 0; c < 20 && k < 6; c++) {
        tm_icnt_cycle(n);
        const struct tm_req *p = tm_icnt_peek(n, 2);
        if (p) {
            o[k++] = (char)('0' + p->inst);
            tm_icnt_pop(n, 2);
        }
    }
    o[k] = 0;
    is_str(o, "001101", "grant cycles 2: SM 0 keeps priority for two cycles");
    tm_icnt_destroy(n);
}

/* ------------------------------------------------------------------ hierarchical crossbar */

static const char *const H3[] = {"network_mode", "3", "icnt_flit_size", "40",
                                 "ptxemu_icnt_sms_per_gpc", "2", "ptxemu_icnt_far_latency", "5",
                                 NULL};

/* Delivery cycles of packets pushed together (src, dst pairs), in push order. */
static void together(struct tm_icnt *n, const uint32_t (*pairs)[2], int np, uint32_t bytes,
                     uint64_t *at)
{
    for (int i = 0; i < np; i++) {
        struct tm_req r = req((uint32_t)i);
        tm_icnt_push(n, pairs[i][0], pairs[i][1], &r, bytes);
        at[i] = 0;
    }
    for (uint64_t c = 1; c <= 100; c++) {
        tm_icnt_cycle(n);
        for (int i = 0; i < np; i++) {
            const struct tm_req *p = tm_icnt_peek(n, pairs[i][1]);
            if (p && p->inst == (uint32_t)i) {
                at[i] = c;
                tm_icnt_pop(n, pairs[i][1]);
            }
        }
    }
}

static void test_hier(void)
{
    /* 4 SMs: TPC 0 = SMs 0, 1 (GPC 0, L2 half 0), TPC 1 = SMs 2, 3 (GPC 1, half 1);
     * memory 0, 1 (nodes 4, 5) in half 0, memory 2, 3 (nodes 6, 7) in half 1 */
    struct tm_icnt *n = make(H3, 4, 4);
    if (!n)
        bail_out("network_mode 3");
    is_str(tm_icnt_describe(n),
           "hierarchical crossbar: 4 SMs in 2 TPCs, 2 GPCs of 2 SMs, 2 L2 partitions of 4 "
           "memory nodes (GPCs in halves, channels in halves), far link 5 cycles, unlimited "
           "width, 2 subnets, iSLIP, 40-byte flits, buffers 64/64 packets",
           "hierarchical description");
    uint64_t at[4];
    static const uint32_t near[][2] = {{0, 4}};
    together(n, near, 1, 32, at);
    is_uint(at[0], 1, "SM 0 -> memory 0, near half: 1 cycle");
    static const uint32_t far[][2] = {{0, 6}};
    together(n, far, 1, 32, at);
    is_uint(at[0], 1 + 5, "SM 0 -> memory 2, far half: 1 + 5 cycles");
    static const uint32_t far2[][2] = {{3, 5}};
    together(n, far2, 1, 100, at);
    is_uint(at[0], 3 + 5, "SM 3 -> memory 1, 3 flits, far: 8 cycles");
    static const uint32_t rep[][2] = {{6, 0}, {7, 3}};
    together(n, rep, 2, 32, at);
    ok(at[0] == 6 && at[1] == 1, "replies: memory 2 -> SM 0 far (6), memory 3 -> SM 3 near (1)");
    /* one TPC port each way: two SMs of a TPC serialise where a flat crossbar would not;
     * the TPC takes its SMs in turn (SM 0 was served last above: SM 1 first now) */
    static const uint32_t tpc[][2] = {{0, 4}, {1, 5}};
    together(n, tpc, 2, 32, at);
    ok(at[0] == 2 && at[1] == 1, "SMs 0 and 1 share their TPC's link: cycles 2 and 1");
    static const uint32_t tpc4[][2] = {{0, 4}, {0, 4}, {1, 5}, {1, 5}};
    uint64_t at4[4];
    together(n, tpc4, 4, 32, at4);
    ok(at4[2] == 1 && at4[0] == 2 && at4[3] == 3 && at4[1] == 4,
       "two packets each: SM 1, SM 0, SM 1, SM 0 in cycles 1-4");
    static const uint32_t tpc_rep[][2] = {{4, 0}, {5, 1}};
    together(n, tpc_rep, 2, 32, at);
    ok(at[0] == 1 && at[1] == 2, "replies to SMs 0 and 1 share the TPC's link: 1 and 2");
    static const uint32_t diff[][2] = {{0, 4}, {2, 5}};
    together(n, diff, 2, 32, at);
    ok(at[0] == 1 && at[1] == 6, "different TPCs in parallel: 1, and 1 + 5 for the far one");
    /* requests above: near 0->4, 0->4, 1->5 (x2 in tpc, x3 in tpc4), 0->4, 0->4 (diff);
     * far 0->6, 3->5, 2->5; replies far 6->0 only (7->3, 4->0 and 5->1 are near) */
    const uint64_t *st = tm_icnt_stats(n);
    ok(st[TM_IS_L2_NEAR_REQ] == 8 && st[TM_IS_L2_FAR_REQ] == 3 && st[TM_IS_L2_FAR_REP] == 1 &&
       st[TM_IS_FAR_WAIT] == 0 && tm_icnt_partitioned(n),
       "counters: 8 near and 3 far requests, 1 far reply, no wait on an unlimited link "
       "(got %llu, %llu, %llu, %llu)", (unsigned long long)st[TM_IS_L2_NEAR_REQ],
       (unsigned long long)st[TM_IS_L2_FAR_REQ], (unsigned long long)st[TM_IS_L2_FAR_REP],
       (unsigned long long)st[TM_IS_FAR_WAIT]);
    tm_icnt_destroy(n);

    static const char *const flat[] = {"network_mode", "2", "icnt_flit_size", "40", NULL};
    n = make(flat, 4, 4);
    together(n, tpc, 2, 32, at);
    ok(at[0] == 1 && at[1] == 1, "the flat crossbar: both in cycle 1");
    ok(!tm_icnt_partitioned(n), "the flat crossbar has one L2 partition");
    tm_icnt_destroy(n);
}

/* The SM -> partition and channel -> partition functions and the far link's width. */
static void test_partitions(void)
{
    /* 4 SMs in 4 GPCs (one each; TPC 0 = SMs 0, 1, TPC 1 = SMs 2, 3), 8 slices in 4
     * channels (slice j = node 4 + j in channel j / 2). Halves: SMs 0, 1 and channels 0, 1
     * in partition 0. Alternating: SMs 0, 2 and channels 0, 2 in partition 0. Each call
     * sends one packet per TPC, so nothing waits in the crossbar. */
    static const char *const halves[] = {"network_mode", "3", "icnt_flit_size", "40",
        "ptxemu_icnt_sms_per_gpc", "1", "ptxemu_icnt_far_latency", "5",
        "gpgpu_n_sub_partition_per_mchannel", "2", NULL};
    static const char *const alt[] = {"network_mode", "3", "icnt_flit_size", "40",
        "ptxemu_icnt_sms_per_gpc", "1", "ptxemu_icnt_far_latency", "5",
        "gpgpu_n_sub_partition_per_mchannel", "2", "ptxemu_icnt_gpc_interleave", "1",
        "ptxemu_icnt_mem_interleave", "1", NULL};
    /* SM 0 -> slice 2 (channel 1), SM 2 -> slice 4 (channel 2); SM 1 -> slice 7 (channel 3),
     * SM 3 -> slice 1 (channel 0) */
    static const uint32_t pa[][2] = {{0, 6}, {2, 8}}, pb[][2] = {{1, 11}, {3, 5}};
    uint64_t at[2], bt[2];
    struct tm_icnt *n = make(halves, 4, 8);
    if (!n)
        bail_out("partitions in halves");
    together(n, pa, 2, 32, at);
    together(n, pb, 2, 32, bt);
    ok(at[0] == 1 && at[1] == 1 && bt[0] == 6 && bt[1] == 6,
       "halves: SM 0 -> channel 1 and SM 2 -> channel 2 near (1, 1), SM 1 -> channel 3 and "
       "SM 3 -> channel 0 far (6, 6) (got %llu %llu %llu %llu)", (unsigned long long)at[0],
       (unsigned long long)at[1], (unsigned long long)bt[0], (unsigned long long)bt[1]);
    tm_icnt_destroy(n);

    n = make(alt, 4, 8);
    if (!n)
        bail_out("alternating partitions");
    is_str(tm_icnt_describe(n),
           "hierarchical crossbar: 4 SMs in 2 TPCs, 4 GPCs of 1 SMs, 2 L2 partitions of 8 "
           "memory nodes (GPCs alternating, channels alternating), far link 5 cycles, "
           "unlimited width, 2 subnets, iSLIP, 40-byte flits, buffers 64/64 packets",
           "alternating description");
    together(n, pa, 2, 32, at);
    together(n, pb, 2, 32, bt);
    ok(at[0] == 6 && at[1] == 1 && bt[0] == 1 && bt[1] == 6,
       "alternating: SM 0 -> channel 1 far (6), SM 2 -> channel 2 near (1), SM 1 -> channel 3 "
       "near (1), SM 3 -> channel 0 far (6) (got %llu %llu %llu %llu)",
       (unsigned long long)at[0], (unsigned long long)at[1], (unsigned long long)bt[0],
       (unsigned long long)bt[1]);
    tm_icnt_destroy(n);

    /* the far link's width: 1 flit per cycle per direction */
    static const char *const narrow[] = {"network_mode", "3", "icnt_flit_size", "40",
        "ptxemu_icnt_sms_per_gpc", "2", "ptxemu_icnt_far_latency", "5",
        "ptxemu_icnt_far_flits", "1", NULL};
    n = make(narrow, 4, 4);
    if (!n)
        bail_out("narrow far link");
    is_str(tm_icnt_describe(n),
           "hierarchical crossbar: 4 SMs in 2 TPCs, 2 GPCs of 2 SMs, 2 L2 partitions of 4 "
           "memory nodes (GPCs in halves, channels in halves), far link 5 cycles, 1 flit/cycle, "
           "2 subnets, iSLIP, 40-byte flits, buffers 64/64 packets", "narrow link description");
    /* SMs 0 and 2 are in different TPCs and partitions: the crossbar passes both at once;
     * SM 0's goes far on link 0->1, SM 2's on link 1->0: no wait */
    static const uint32_t both[][2] = {{0, 6}, {2, 4}};
    together(n, both, 2, 32, at);
    ok(at[0] == 6 && at[1] == 6, "opposite directions do not share a link: 6 and 6");
    /* two 3-flit packets of TPC 0 (SM 1's turn first): the crossbar delivers them at 3 and
     * 6, the link holds each 3 cycles: 3 + 2 + 5 = 10 and 6 + 2 + 5 = 13 */
    static const uint32_t three[][2] = {{0, 6}, {1, 7}};
    together(n, three, 2, 100, at);
    ok(at[0] == 13 && at[1] == 10, "3-flit packets on a 1-flit link: 10 and 13 (got %llu %llu)",
       (unsigned long long)at[0], (unsigned long long)at[1]);
    /* SM 0 twice back to back: the crossbar gives 1 and 2, the link 6 and 7, no wait */
    uint64_t w0 = tm_icnt_stats(n)[TM_IS_FAR_WAIT];
    static const uint32_t two[][2] = {{0, 6}, {0, 7}};
    together(n, two, 2, 32, at);
    ok(at[0] == 6 && at[1] == 7 && tm_icnt_stats(n)[TM_IS_FAR_WAIT] == w0,
       "1-flit packets one cycle apart pass a 1-flit link without waiting: 6, 7");
    /* SM 1 (its turn on the TPC port) sends 3 flits, SM 0 one: crossbar 1-3 and 4; the link
     * holds SM 1's packet in cycles 3-5, so SM 0's starts at 6 (waited 2):
     * 3 + 2 + 5 = 10 and 6 + 0 + 5 = 11 */
    struct tm_req r0 = req(0), r1 = req(1);
    tm_icnt_push(n, 1, 7, &r1, 100);
    tm_icnt_push(n, 0, 6, &r0, 32);
    uint64_t a0 = 0, a1 = 0;
    for (uint64_t c = 1; c <= 40; c++) {
        tm_icnt_cycle(n);
        if (tm_icnt_peek(n, 6)) {
            a0 = c;
            tm_icnt_pop(n, 6);
        }
        if (tm_icnt_peek(n, 7)) {
            a1 = c;
            tm_icnt_pop(n, 7);
        }
    }
    ok(a1 == 10 && a0 == 11 && tm_icnt_stats(n)[TM_IS_FAR_WAIT] == w0 + 2,
       "a packet behind a 3-flit one waits 2 cycles for the link: 10 and 11, wait 2 "
       "(got %llu %llu, wait %llu)", (unsigned long long)a1, (unsigned long long)a0,
       (unsigned long long)(tm_icnt_stats(n)[TM_IS_FAR_WAIT] - w0));
    tm_icnt_destroy(n);

    static const char *const bad[] = {"network_mode", "3", "ptxemu_icnt_far_flits", "-1", NULL};
    struct tm_config c;
    cfg_make(&c, bad);
    struct tm_icnt *x = NULL;
    ok(tm_icnt_create(&x, &c, 4, 4, NULL, err, sizeof err) == -EINVAL && !x,
       "-ptxemu_icnt_far_flits -1 refused");
    tm_config_free(&c);
    static const char *const bad2[] = {"network_mode", "3", "ptxemu_icnt_gpc_interleave", "2",
                                       NULL};
    cfg_make(&c, bad2);
    ok(tm_icnt_create(&x, &c, 4, 4, NULL, err, sizeof err) == -EINVAL && !x,
       "-ptxemu_icnt_gpc_interleave 2 refused: %s", err);
    tm_config_free(&c);
}

/* ------------------------------------------------------------------ random traffic */

/* SMs send requests to random memory nodes; memory nodes answer each with a reply to its
 * SM; every packet must arrive exactly once, at its destination, intact. */
static void random_traffic(const char *what, const char *const *kv, uint32_t nsm, uint32_t nmem,
                           uint32_t npkt, uint64_t seed)
{
    struct tm_icnt *n = make(kv, nsm, nmem);
    if (!n) {
        ok(0, "%s: created", what);
        return;
    }
    uint8_t *seen_req = calloc(npkt, 1), *seen_rep = calloc(npkt, 1);
    uint32_t *pend = malloc(npkt * sizeof *pend); /* per memory node: replies to send (FIFO) */
    uint32_t sent = 0, got_req = 0, got_rep = 0, bad = 0;
    uint64_t s = seed, c = 0;
    (void)pend;
    while ((got_rep < npkt) && c < 2000000) {
        for (uint32_t k = 0; k < nsm && sent < npkt; k++) {
            uint32_t src = (uint32_t)rng_next(&s) % nsm;
            uint32_t bytes = 8 + (uint32_t)rng_next(&s) % 200;
            if (rng_next(&s) % 3 == 0 || !tm_icnt_can_push(n, src, bytes))
                continue;
            uint32_t dst = nsm + (uint32_t)rng_next(&s) % nmem;
            struct tm_req r = req(sent);
            r.sm = (uint16_t)src;
            r.bytes = (uint16_t)bytes;
            tm_icnt_push(n, src, dst, &r, bytes);
            sent++;
        }
        for (uint32_t m = nsm; m < nsm + nmem; m++) {
            const struct tm_req *p = tm_icnt_peek(n, m);
            if (!p || rng_next(&s) % 4 == 0)
                continue;
            uint32_t id = p->inst;
            uint32_t rb = 8 + id % 150;
            if (!tm_icnt_can_push(n, m, rb))
                continue;
            struct tm_req e = req(id);
            e.sm = p->sm;
            e.bytes = p->bytes;
            if (id >= npkt || seen_req[id] || memcmp(p, &e, sizeof e))
                bad++;
            else
                seen_req[id] = 1;
            got_req++;
            struct tm_req rep = *p;
            tm_icnt_pop(n, m);
            tm_icnt_push(n, m, rep.sm, &rep, rb);
        }
        for (uint32_t k = 0; k < nsm; k++) {
            const struct tm_req *p;
            while ((p = tm_icnt_peek(n, k))) {
                uint32_t id = p->inst;
                if (id >= npkt || seen_rep[id] || p->sm != k || p->addr != (uint64_t)id * 128)
                    bad++;
                else
                    seen_rep[id] = 1;
                got_rep++;
                tm_icnt_pop(n, k);
            }
        }
        tm_icnt_cycle(n);
        c++;
    }
    const uint64_t *st = tm_icnt_stats(n);
    ok(sent == npkt && got_req == npkt && got_rep == npkt && !bad,
       "%s: %u requests and %u replies delivered exactly once, intact (%llu cycles)", what,
       npkt, npkt, (unsigned long long)c);
    if (sent != npkt || got_req != npkt || got_rep != npkt || bad)
        diag("sent %u, requests %u, replies %u, bad %u", sent, got_req, got_rep, bad);
    ok(st[TM_IS_PACKETS_REQ] == npkt && st[TM_IS_PACKETS_REP] == npkt,
       "%s: packet counters", what);
    ok(!tm_icnt_busy(n), "%s: idle at the end", what);
    free(seen_req);
    free(seen_rep);
    free(pend);
    tm_icnt_destroy(n);
}

static void test_random(void)
{
    static const char *const x1[] = {"network_mode", "2", "icnt_in_buffer_limit", "4",
                                     "icnt_out_buffer_limit", "2", NULL};
    static const char *const x0[] = {"network_mode", "2", "icnt_arbiter_algo", "0",
                                     "icnt_in_buffer_limit", "3", "icnt_out_buffer_limit", "3",
                                     "icnt_flit_size", "32", NULL};
    static const char *const x1s[] = {"network_mode", "2", "icnt_subnets", "1",
                                      "icnt_in_buffer_limit", "2", "icnt_out_buffer_limit", "1",
                                      NULL};
    static const char *const mesh[] = {"network_mode", "1", "inter_config_file",
                                       "fixtures/icnt/mesh66.icnt", NULL};
    static const char *const fly[] = {"network_mode", "1", "inter_config_file",
                                      "fixtures/icnt/fly4x2.icnt", NULL};
    static const char *const torus[] = {"network_mode", "1", "inter_config_file",
                                        "fixtures/icnt/torus44.icnt", NULL};
    static const char *const torus1[] = {"network_mode", "1", "inter_config_file",
                                         "fixtures/icnt/torus44.icnt", "icnt_subnets", "1", NULL};
    static const char *const xbar[] = {"network_mode", "1", "inter_config_file",
                                       "fixtures/icnt/crossbar12.icnt", NULL};
    random_traffic("crossbar iSLIP", x1, 8, 4, 3000, 1);
    random_traffic("crossbar round robin", x0, 6, 5, 3000, 2);
    random_traffic("crossbar, one subnet", x1s, 5, 3, 2000, 3);
    static const char *const h3[] = {"network_mode", "3", "ptxemu_icnt_sms_per_gpc", "4",
                                     "ptxemu_icnt_far_latency", "7", "icnt_in_buffer_limit", "3",
                                     "icnt_out_buffer_limit", "2", NULL};
    random_traffic("hierarchical crossbar", h3, 13, 6, 3000, 9);
    random_traffic("mesh 6x6", mesh, 28, 8, 3000, 4);
    random_traffic("4-ary 2-fly", fly, 10, 6, 3000, 5);
    random_traffic("torus 4x4", torus, 8, 8, 3000, 6);
    random_traffic("torus 4x4, one subnet", torus1, 12, 4, 2000, 7);
    random_traffic("booksim crossbar", xbar, 8, 4, 3000, 8);
}

/* ------------------------------------------------------------------ BookSim networks */

static uint64_t one_packet(struct tm_icnt *n, uint32_t src, uint32_t dst, uint32_t bytes)
{
    struct tm_req r = req(src * 1000 + dst);
    tm_icnt_push(n, src, dst, &r, bytes);
    uint64_t c = cycles_until(n, dst, 1000);
    if (!req_ok(tm_icnt_peek(n, dst), src * 1000 + dst))
        c = 0;
    tm_icnt_pop(n, dst);
    for (int i = 0; i < 20; i++) /* let credits come home */
        tm_icnt_cycle(n);
    return c;
}

static void test_booksim_latency(void)
{
    /* mesh66: hop H = 0 + 1 + 1 + 0 + 1 + 1 = 4; latency 2 + (h + 1)·H + F − 1 */
    static const char *const mesh[] = {"network_mode", "1", "inter_config_file",
                                       "fixtures/icnt/mesh66.icnt", NULL};
    struct tm_icnt *n = make(mesh, 28, 8);
    if (!n)
        bail_out("mesh66");
    is_str(tm_icnt_describe(n),
           "booksim mesh 6-ary 2-cube (mesh66.icnt), 28 SMs + 8 memory nodes, 2 subnets, "
           "4 VCs x 8 flits, 32-byte flits",
           "mesh description");
    /* use_map (28, 8): memory 0 at node 3 = (3,0), memory 7 at node 32 = (2,5); SM 0 at
     * node 0, SM 3 at node 4 = (4,0) (node 3 is taken) */
    is_uint(one_packet(n, 0, 28 + 0, 32), 2 + 4 * 4, "mesh: SM 0 -> memory 0, 3 hops: 18");
    is_uint(one_packet(n, 0, 28 + 7, 32), 2 + 8 * 4, "mesh: SM 0 -> memory 7, 7 hops: 34");
    is_uint(one_packet(n, 0, 28 + 0, 100), 2 + 4 * 4 + 3, "mesh: 4 flits, 3 more cycles: 21");
    is_uint(one_packet(n, 3, 28 + 0, 32), 2 + 2 * 4, "mesh: SM 3 -> memory 0, 1 hop: 10");
    is_uint(one_packet(n, 28 + 7, 0, 32), 2 + 8 * 4, "mesh: reply memory 7 -> SM 0: 34");
    is_uint(tm_icnt_stats(n)[TM_IS_LAT_MAX_REQ], 34, "latency max");
    tm_icnt_destroy(n);

    /* torus44: H = 4; 8 SMs at nodes 0-7, memory at 8-15 */
    static const char *const torus[] = {"network_mode", "1", "inter_config_file",
                                        "fixtures/icnt/torus44.icnt", NULL};
    n = make(torus, 8, 8);
    if (!n)
        bail_out("torus44");
    is_uint(one_packet(n, 0, 8 + 0, 32), 2 + 3 * 4, "torus: (0,0) -> (0,2), 2 hops: 14");
    is_uint(one_packet(n, 0, 8 + 3, 32), 2 + 4 * 4,
            "torus: (0,0) -> (3,2), 1 hop back over the wrap link + 2: 18");
    is_uint(one_packet(n, 3, 8 + 4, 32), 2 + 3 * 4,
            "torus: (3,0) -> (0,3), wrap + and wrap -: 2 hops: 14");
    tm_icnt_destroy(n);

    /* fly4x2: H = 1 + 1 + 1 + 0 + 1 + 1 = 5, every path 1 router-to-router channel */
    static const char *const fly[] = {"network_mode", "1", "inter_config_file",
                                      "fixtures/icnt/fly4x2.icnt", NULL};
    n = make(fly, 8, 8);
    if (!n)
        bail_out("fly4x2");
    is_str(tm_icnt_describe(n),
           "booksim fly 4-ary 2-fly (fly4x2.icnt), 8 SMs + 8 memory nodes, 2 subnets, 2 VCs x 4 "
           "flits, 16-byte flits",
           "fly description");
    is_uint(one_packet(n, 0, 8, 16), 2 + 2 * 5, "fly: 1 flit: 12");
    is_uint(one_packet(n, 5, 15, 32), 2 + 2 * 5 + 1, "fly: 2 flits: 13");
    is_uint(one_packet(n, 15, 2, 64), 2 + 2 * 5 + 3, "fly: reply, 4 flits: 15");
    tm_icnt_destroy(n);

    /* crossbar12: H = 0 + 1 + 1 + 0 + 0 + 1 = 3, no router-to-router channel */
    static const char *const xb[] = {"network_mode", "1", "inter_config_file",
                                     "crossbar12.icnt", NULL};
    struct tm_config c;
    cfg_make(&c, xb);
    int rc = tm_icnt_create(&n, &c, 8, 4, "fixtures/icnt", err, sizeof err);
    tm_config_free(&c);
    ok(rc == 0, "a relative -inter_config_file is found under base_dir");
    if (rc)
        bail_out(err);
    is_uint(one_packet(n, 0, 8, 40), 2 + 3, "crossbar: 1 flit: 5");
    is_uint(one_packet(n, 7, 11, 200), 2 + 3 + 4, "crossbar: 5 flits: 9");
    tm_icnt_destroy(n);
}

/* Two sources, one destination, on the BookSim crossbar: the second packet's flits follow
 * the first's through the one ejection port. */
static void test_booksim_serialize(void)
{
    static const char *const xb[] = {"network_mode", "1", "inter_config_file",
                                     "fixtures/icnt/crossbar12.icnt", NULL};
    struct tm_icnt *n = make(xb, 8, 4);
    struct tm_req a = req(1), b = req(2);
    tm_icnt_push(n, 0, 8, &a, 80); /* 2 flits each */
    tm_icnt_push(n, 1, 8, &b, 80);
    uint64_t at[2] = {0, 0};
    int got = 0;
    for (uint64_t c = 1; c <= 30 && got < 2; c++) {
        tm_icnt_cycle(n);
        const struct tm_req *p = tm_icnt_peek(n, 8);
        if (p) {
            at[got++] = c;
            tm_icnt_pop(n, 8);
        }
    }
    /* H = 3, one VC per port, internal speedup 2. Heads arrive at cycle 2; SM 0's wins the
     * ejection port's only VC; at 3 both its flits cross (two switch rounds) and the tail
     * frees the VC; SM 1's head allocates it at 4 and crosses at 5. Ejection moves one flit
     * per VC per cycle: SM 0's flits arrive at 5, tail ejected at 6; SM 1's arrive at 7,
     * tail ejected at 8. */
    is_uint(got, 2, "both delivered");
    is_uint(at[0], 6, "first at cycle 6");
    is_uint(at[1], 8, "second at cycle 8: it waited for the output VC");
    tm_icnt_destroy(n);
}

/* A request flood towards a memory node that never pops fills the shared path; with two
 * subnets a reply crossing that path still arrives at the idle latency, with one it is
 * stuck. 1-D mesh of 4: SM 0, memory 0, SM 1, memory 1 (memory_node_map = {1, 3}). */
static void test_subnets(void)
{
    const char *text = "topology = mesh; k = 4; n = 1; routing_function = dor;\n"
                       "num_vcs = 2; vc_buf_size = 2; routing_delay = 0;\n"
                       "memory_node_map = {1, 3}; boundary_buffer_size = 4;\n";
    char path[] = "/tmp/icnt_test_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
        bail_out("temp file");
    close(fd);
    for (int sub = 1; sub <= 2; sub++) {
        const char *kv[] = {"network_mode", "1", "inter_config_file", path, "icnt_subnets",
                            sub == 1 ? "1" : "2", NULL};
        struct tm_icnt *n = make(kv, 2, 2);
        if (!n)
            bail_out("line mesh");
        /* H = 0 + 1 + 1 + 0 + 1 + 1 = 4 */
        for (int c = 0; c < 200; c++) {
            struct tm_req r = req(5);
            if (tm_icnt_can_push(n, 0, 32))
                tm_icnt_push(n, 0, 3, &r, 32); /* SM 0 -> memory 1: channels 0>1, 1>2, 2>3 */
            tm_icnt_cycle(n);
        }
        struct tm_req r = req(6);
        tm_icnt_push(n, 2, 1, &r, 32); /* memory 0 (node 1) -> SM 1 (node 2): channel 1>2 */
        uint64_t c = cycles_until(n, 1, 300);
        if (sub == 2)
            is_uint(c, 2 + 2 * 4, "two subnets: the reply crosses in 10 cycles despite the flood");
        else
            is_uint(c, 0, "one subnet: the reply is stuck behind the flood");
        tm_icnt_destroy(n);
    }
    unlink(path);
}

/* Credits: one router, one VC of one flit everywhere, credits back after credit_delay + 1 = 3
 * cycles. A 3-flit packet: each flit waits for the credit of the one before. */
static void test_credits(void)
{
    const char *text = "topology = crossbar; k = 2; routing_function = dest_tag; use_map = 0;\n"
                       "num_vcs = 1; vc_buf_size = 1; ejection_buffer_size = 1;\n"
                       "credit_delay = 2; routing_delay = 0; vc_alloc_delay = 1;\n"
                       "sw_alloc_delay = 1; st_final_delay = 0; flit_size = 8;\n";
    char path[] = "/tmp/icnt_cred_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
        bail_out("temp file");
    close(fd);
    const char *kv[] = {"network_mode", "1", "inter_config_file", path, NULL};
    struct tm_icnt *n = make(kv, 1, 1);
    if (!n)
        bail_out("credit network");
    /* H = 0 + 1 + 1 + 0 + 0 + 1 = 3. Head: injected 1, at the router 2, VC 2, switch 3,
     * ejected 5 (router credit home at 6 -> body injected 6, at the router 7; the ejection
     * credit of the head is home at 5 + 3 = 8) -> body switched 8, ejected 10 (its injection
     * credit home at 11 -> tail injected 11, at the router 12; ejection credit at 13) -> tail
     * switched 13, ejected 15. Without the credit waits: 2 + 3 + 2 = 7. */
    is_uint(one_packet(n, 0, 1, 24), 15, "3 flits, 1-flit buffers, 3-cycle credit loop: 15");
    is_uint(one_packet(n, 0, 1, 8), 2 + 3, "1 flit: 5");
    tm_icnt_destroy(n);
    unlink(path);
}

/* ------------------------------------------------------------------ the reader */

static int parse(const char *text, char *diag_out, size_t dlen)
{
    struct ic_bs_cfg c;
    FILE *d = fmemopen(diag_out, dlen, "w");
    int rc = ic_bs_parse(&c, "t.icnt", text, d, err, sizeof err);
    fclose(d);
    ic_bs_cfg_free(&c);
    return rc;
}

static void test_reader(void)
{
    char d[512];
    struct ic_bs_cfg c;
    memset(d, 0, sizeof d);
    int rc = ic_bs_parse(&c, "t.icnt",
                         "// comment\ntopology = mesh; k = 5;// trailing\n"
                         "n=3 ; internal_speedup = 1.5;\nwatch_out = \"-\";\n"
                         "packet_size = {{1,2},\n {3}};\nmemory_node_map = {4, 9,2};\n",
                         NULL, err, sizeof err);
    ok(rc == 0 && !strcmp(c.topology, "mesh") && c.k == 5 && c.n == 3 &&
           c.internal_speedup == 1.5 && c.n_memory_node_map == 3 &&
           c.memory_node_map[1] == 9 && c.memory_node_map[2] == 2,
       "keys, comments, strings, lists over lines, memory_node_map");
    ok(c.vc_buf_size == 8 && c.routing_delay == 1 && c.boundary_buffer_size == 16 &&
           c.use_map == 1 && c.c == 1,
       "BookSim's and GPGPU-Sim's defaults for the rest");
    ic_bs_cfg_free(&c);

    rc = parse("k = 4;\nfoo = 1;\nbar = x;\nfoo = 2;\n", d, sizeof d);
    is_int(rc, 0, "unknown keys are not errors");
    is_str(d, "t.icnt:2: warning: unknown key 'foo' (ignored)\n"
              "t.icnt:3: warning: unknown key 'bar' (ignored)\n",
           "unknown keys: a warning each, once");

    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"k = 4\nn = 2;\n", "t.icnt:2: error: expected ';' after the value '4'"},
        {"k 4;\n", "t.icnt:1: error: expected '=' after 'k'"},
        {"\n\nk = ;\n", "t.icnt:3: error: expected a value, found ';'"},
        {"topology = \"mesh;\n", "t.icnt:1: error: unterminated string"},
        {"x = {1, 2;\n", "t.icnt:1: error: unbalanced '{' in a list"},
        {"k = abc;\n", "t.icnt:1: error: k = abc: expected an integer"},
        {"k = 2.5;\n", "t.icnt:1: error: k = 2.5: expected an integer"},
        {"internal_speedup = fast;\n", "t.icnt:1: error: internal_speedup = fast: expected a number"},
        {"topology = 3;\n", "t.icnt:1: error: topology = 3: expected a name"},
        {"= 3;\n", "t.icnt:1: error: expected a key, found '='"},
        {"k = 4;\nn =", "t.icnt:2: error: expected a value, found the end of the file"},
        {"memory_node_map = {1, x};\n",
         "t.icnt:1: error: memory_node_map: '{1, x}' is not a list of node numbers"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        rc = parse(bad[i].text, d, sizeof d);
        ok(rc == -EINVAL && !strcmp(err, bad[i].msg), "refused: %s", bad[i].msg);
        if (strcmp(err, bad[i].msg))
            diag("got: %s", err);
    }
}

static void test_create_errors(void)
{
    static const struct {
        const char *text, *msg; /* msg after "<path>" */
    } bad[] = {
        {"topology = hypercube; routing_function = dor;",
         ": topology = hypercube is not supported (mesh, torus, fly, crossbar)"},
        {"topology = mesh; routing_function = min_adapt;",
         ": routing_function = min_adapt is not supported for topology mesh (dim_order or dor)"},
        {"topology = fly; k = 4; n = 2; routing_function = dor;",
         ": routing_function = dor is not supported for topology fly (dest_tag)"},
        {"topology = torus; k = 4; n = 2; routing_function = dor; num_vcs = 1; use_map = 0;",
         ": num_vcs = 1: a torus needs 2 or more (dateline classes)"},
        {"topology = mesh; k = 2; n = 2; routing_function = dor; use_map = 0;",
         ": the mesh network has 4 nodes; 4 SMs and 2 memory nodes need 6"},
        {"topology = mesh; k = 4; n = 2; routing_function = dor;",
         ": use_map = 1 has no placement for 4 SMs and 2 memory nodes (GPGPU-Sim's: 8+8, "
         "28+8, 56+8, 110+11); give memory_node_map or use_map = 0"},
        {"topology = mesh; k = 4; n = 2; routing_function = dor;\nmemory_node_map = {1};",
         ":2: error: memory_node_map lists 1 nodes; the GPU has 2 memory nodes"},
        {"topology = mesh; k = 4; n = 2; routing_function = dor;\nmemory_node_map = {1, 1};",
         ": memory node 1 placed at network node 1: placed twice"},
        {"topology = mesh; k = 4; n = 2; routing_function = dor;\nk = 4; k = x;",
         ":2: error: k = x: expected an integer"},
        {"topology = crossbar; k = 8; routing_function = dest_tag; use_map = 0; subnets = 3;",
         ": subnets = 3: 1 or 2 subnetworks"},
        {"topology = crossbar; k = 8; routing_function = dest_tag; flit_size = -4;",
         ": flit_size = -4: 1 to 65536 bytes"},
        {"topology = crossbar; k = 8; routing_function = dest_tag; subnets = -1;",
         ": subnets = -1: 1 or 2 subnetworks"},
        {"topology = mesh; k = 2; n = 16; routing_function = dor; use_map = 0;",
         ": 65536 routers x 33 ports x 16 VCs x 8 flits: too large to simulate"},
    };
    char path[] = "/tmp/icnt_bad_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        FILE *f = fopen(path, "w");
        fputs(bad[i].text, f);
        fclose(f);
        const char *kv[] = {"network_mode", "1", "inter_config_file", path, NULL};
        struct tm_config c;
        cfg_make(&c, kv);
        struct tm_icnt *n = NULL;
        err[0] = 0;
        int rc = tm_icnt_create(&n, &c, 4, 2, NULL, err, sizeof err);
        tm_config_free(&c);
        char want[512];
        snprintf(want, sizeof want, "%s%s", path, bad[i].msg);
        ok(rc == -EINVAL && !n && !strcmp(err, want), "refused:%s", bad[i].msg);
        if (strcmp(err, want))
            diag("got: %s", err);
        tm_icnt_destroy(n);
    }
    unlink(path);

    const char *kv[] = {"network_mode", "1", "inter_config_file", "/nonexistent/x.icnt", NULL};
    struct tm_config c;
    cfg_make(&c, kv);
    struct tm_icnt *n = NULL;
    int rc = tm_icnt_create(&n, &c, 4, 2, NULL, err, sizeof err);
    ok(rc == -ENOENT && strstr(err, "/nonexistent/x.icnt: cannot read"), "a missing file: %s",
       err);
    tm_config_free(&c);
    const char *kv2[] = {"network_mode", "7", NULL};
    cfg_make(&c, kv2);
    rc = tm_icnt_create(&n, &c, 4, 2, NULL, err, sizeof err);
    ok(rc == -EINVAL && !strcmp(err, "-network_mode 7: 1 (BookSim network), 2 (crossbar) or 3 (hierarchical crossbar)"),
       "an unknown network mode: %s", err);
    tm_config_free(&c);
}

/* Mutated fixtures (bytes replaced, cut short, lines dropped): the reader and the network
 * builder either accept or refuse with a file:line error; nothing crashes (ASan runs this). */
static void test_reader_fuzz(void)
{
    static const char *const files[] = {"fixtures/icnt/mesh66.icnt", "fixtures/icnt/fly4x2.icnt",
                                        "fixtures/icnt/torus44.icnt",
                                        "fixtures/icnt/crossbar12.icnt"};
    static const char alphabet[] = "=;{}\"/ \n0123456789-.kxn_a";
    uint64_t s = 42;
    int accepted = 0, refused = 0, bad = 0;
    for (int f = 0; f < 4; f++) {
        FILE *in = fopen(files[f], "rb");
        if (!in)
            bail_out("fixture");
        char orig[4096];
        size_t len = fread(orig, 1, sizeof orig - 1, in);
        fclose(in);
        orig[len] = 0;
        for (int round = 0; round < 300; round++) {
            char t[4096];
            memcpy(t, orig, len + 1);
            size_t l = len;
            int edits = 1 + (int)(rng_next(&s) % 4);
            for (int e = 0; e < edits && l; e++) {
                size_t at = rng_next(&s) % l;
                switch (rng_next(&s) % 3) {
                case 0:
                    t[at] = alphabet[rng_next(&s) % (sizeof alphabet - 1)];
                    break;
                case 1:
                    l = at;
                    t[l] = 0;
                    break;
                default: {
                    char *nl = strchr(t + at, '\n');
                    if (nl)
                        memmove(t + at, nl + 1, strlen(nl + 1) + 1), l = strlen(t);
                }
                }
            }
            struct ic_bs_cfg c;
            err[0] = 0;
            int rc = ic_bs_parse(&c, "t.icnt", t, NULL, err, sizeof err);
            if (rc == 0) {
                accepted++;
                uint32_t nodes = ic_bs_cfg_nodes(&c);
                if (nodes >= 2 && nodes <= 4096) {
                    uint32_t *map = malloc(nodes * sizeof *map);
                    struct ic_bs_net *b = NULL;
                    for (uint32_t i = 0; i < nodes; i++)
                        map[i] = i;
                    if (!ic_bs_net_create(&b, &c, "t.icnt", map, nodes, err, sizeof err))
                        ic_bs_net_destroy(b);
                    else if (strncmp(err, "t.icnt", 6))
                        bad++;
                    free(map);
                }
            } else if (rc == -EINVAL && !strncmp(err, "t.icnt:", 7) && strstr(err, ": error: ")) {
                refused++;
            } else {
                bad++;
                diag("rc %d: %s", rc, err);
            }
            ic_bs_cfg_free(&c);
        }
    }
    ok(!bad && accepted && refused, "1200 mutated files: %d accepted, %d refused with file:line",
       accepted, refused);
}

static void test_fixtures_parse(void)
{
    static const struct {
        const char *file;
        uint32_t nsm, nmem;
    } fx[] = {{"fixtures/icnt/mesh66.icnt", 28, 8},
              {"fixtures/icnt/fly4x2.icnt", 8, 8},
              {"fixtures/icnt/torus44.icnt", 10, 6},
              {"fixtures/icnt/crossbar12.icnt", 8, 4}};
    for (size_t i = 0; i < 4; i++) {
        char d[256] = {0};
        struct ic_bs_cfg c;
        FILE *df = fmemopen(d, sizeof d, "w");
        int rc = ic_bs_parse_file(&c, fx[i].file, df, err, sizeof err);
        fclose(df);
        ok(rc == 0 && !d[0], "%s parses without a diagnostic", fx[i].file);
        ic_bs_cfg_free(&c);
        const char *kv[] = {"network_mode", "1", "inter_config_file", fx[i].file, NULL};
        struct tm_icnt *n = make(kv, fx[i].nsm, fx[i].nmem);
        ok(n != NULL, "%s builds for %u SMs + %u memory nodes", fx[i].file, fx[i].nsm,
           fx[i].nmem);
        tm_icnt_destroy(n);
    }
}

/* With PTXEMU_ACCELSIM_CFGS naming Accel-Sim's configs/tested-cfgs: every DIR/*.icnt there
 * reads without a diagnostic, builds for half its nodes as SMs and a quarter as memory nodes,
 * and carries a packet each way. */
static void test_accelsim_icnt(void)
{
    const char *dir = getenv("PTXEMU_ACCELSIM_CFGS");
    DIR *d = dir ? opendir(dir) : NULL;
    if (!d) {
        skip(1, "PTXEMU_ACCELSIM_CFGS does not name Accel-Sim's configs/tested-cfgs");
        return;
    }
    int count = 0;
    for (struct dirent *e; (e = readdir(d));) {
        char sub[PATH_MAX];
        if (e->d_name[0] == '.' || snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name) >=
                                       (int)sizeof sub)
            continue;
        DIR *d2 = opendir(sub);
        if (!d2)
            continue;
        for (struct dirent *f; (f = readdir(d2));) {
            size_t l = strlen(f->d_name);
            char path[PATH_MAX];
            if (l < 6 || strcmp(f->d_name + l - 5, ".icnt") ||
                snprintf(path, sizeof path, "%s/%s", sub, f->d_name) >= (int)sizeof path)
                continue;
            char dg[512] = {0};
            struct ic_bs_cfg c;
            FILE *df = fmemopen(dg, sizeof dg, "w");
            int rc = ic_bs_parse_file(&c, path, df, err, sizeof err);
            fclose(df);
            uint32_t nodes = rc ? 0 : ic_bs_cfg_nodes(&c);
            ic_bs_cfg_free(&c);
            ok(rc == 0 && !dg[0], "%s reads without a diagnostic", path);
            if (rc || dg[0])
                diag("%s%s", err, dg);
            uint32_t nsm = nodes / 2, nmem = nodes / 4 ? nodes / 4 : 1;
            const char *kv[] = {"network_mode", "1", "inter_config_file", path, NULL};
            struct tm_config cf;
            cfg_make(&cf, kv);
            /* use_map = 1 files need one of GPGPU-Sim's placements: try 28+8 and 8+8 too */
            struct tm_icnt *n = NULL;
            static const uint32_t alt[][2] = {{0, 0}, {28, 8}, {8, 8}, {56, 8}, {110, 11}};
            uint32_t s_used = 0;
            for (int a = 0; a < 5 && !n; a++) {
                s_used = a ? alt[a][0] : nsm;
                if (tm_icnt_create(&n, &cf, s_used, a ? alt[a][1] : nmem, NULL, err,
                                   sizeof err))
                    n = NULL;
            }
            tm_config_free(&cf);
            ok(n && one_packet(n, 0, s_used, 32) && one_packet(n, s_used, 0, 136),
               "%s builds and carries a request and a reply", path);
            tm_icnt_destroy(n);
            count++;
        }
        closedir(d2);
    }
    closedir(d);
    if (!count)
        skip(1, "no DIR/*.icnt under PTXEMU_ACCELSIM_CFGS");
}

int main(void)
{
    test_xbar_latency();
    test_xbar_serialize();
    test_xbar_backpressure();
    test_xbar_arbiters();
    test_hier();
    test_partitions();
    test_booksim_latency();
    test_booksim_serialize();
    test_subnets();
    test_credits();
    test_reader();
    test_create_errors();
    test_fixtures_parse();
    test_reader_fuzz();
    test_random();
    test_accelsim_icnt();
    return done_testing();
}
