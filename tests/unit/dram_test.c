/*
 * tests/unit/dram_test.c — one DRAM channel (timing/dram.c): exact return cycles derived by
 * hand from the timing parameters, the counters, the schedulers, refresh, queues, the simple
 * model, and the -gpgpu_dram_timing_opt spellings (positional, name=value, memory types).
 *
 * Base configuration (unless a test says otherwise):
 *   nbk=4 CCD=2 RRD=3 RCD=5 RAS=10 RP=4 RC=16 CL=6 WL=2 CDLR=3 WR=4 nbkgrp=1,
 *   burst length 4, data/command ratio 2 -> BLc = 4/2 = 2 command cycles per burst, bus 8 bytes
 *   -> 32-byte atoms; FR-FCFS, single command bus.
 * Derived: tRTW = CL+BLc+2-WL = 8, tWTR = WL+BLc+CDLR = 7, tWTP = WL+BLc+WR = 8,
 *   tRCDWR = RCD-(WL+1) = 2, column-to-column max(CCD, BLc) = 2.
 * "Returns at n" means tm_dram_peek first sees the read after n tm_dram_cycle calls (cycles
 * 0 … n-1), the read having been pushed before cycle 0 unless stated; a read whose RD issues
 * at cycle t returns at t + CL + BLc = t + 8.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tap.h"
#include "timing/dram.h"
#include "timing/dramcfg.h"

#define BASE "nbk=4:CCD=2:RRD=3:RCD=5:RAS=10:RP=4:RC=16:CL=6:WL=2:CDLR=3:WR=4:nbkgrp=1"

static struct tm_dram *d;
static uint64_t cyc; /* tm_dram_cycle calls so far */

/* A controller from the defaults, the base timing and name/value overrides. */
static int make(const char *const *kv, char *err, size_t errlen)
{
    struct tm_config c;
    tm_config_init(&c);
    static const char *const base[] = {
        "gpgpu_dram_timing_opt", BASE, "gpgpu_dram_burst_length", "4",
        "dram_data_command_freq_ratio", "2", "gpgpu_dram_buswidth", "8",
        "gpgpu_dram_scheduler", "1", "gpgpu_frfcfs_dram_sched_queue_size", "16",
        "dram_dual_bus_interface", "0", NULL};
    int rc = 0;
    for (const char *const *p = base; !rc && *p; p += 2)
        rc = tm_config_set(&c, p[0], p[1], err, errlen);
    for (const char *const *p = kv; !rc && p && *p; p += 2)
        rc = tm_config_set(&c, p[0], p[1], err, errlen);
    if (!rc)
        rc = tm_dram_create(&d, &c, 0, err, errlen);
    tm_config_free(&c);
    cyc = 0;
    return rc;
}

static void push(uint32_t bk, uint32_t row, bool write, uint64_t token)
{
    struct tm_dram_req r = {.addr = token * 32, .token = token, .bk = bk, .row = row, .col = 0,
                            .bytes = 32, .write = write};
    if (!tm_dram_can_accept(d))
        diag("queue full at token %llu", (unsigned long long)token);
    tm_dram_push(d, &r);
}

/* Cycle until a read has returned (at most 10000 cycles); its token in *tok. */
static uint64_t until_ret(uint64_t *tok)
{
    for (int i = 0; i < 10000 && !tm_dram_peek(d); i++) {
        tm_dram_cycle(d);
        cyc++;
    }
    const struct tm_dram_req *r = tm_dram_peek(d);
    *tok = r ? r->token : UINT64_MAX;
    if (r)
        tm_dram_pop(d);
    return cyc;
}

static void run_to(uint64_t n)
{
    while (cyc < n) {
        tm_dram_cycle(d);
        cyc++;
    }
}

static uint64_t st(enum tm_dram_stat s) { return tm_dram_stats(d)[s]; }

/* Returns of n reads in order: cycles and tokens. */
static void returns(const char *what, size_t n, const uint64_t *when, const uint64_t *tok)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t t;
        uint64_t c = until_ret(&t);
        ok(c == when[i] && t == tok[i], "%s: read %llu returns at %llu", what,
           (unsigned long long)tok[i], (unsigned long long)when[i]);
        if (c != when[i] || t != tok[i])
            diag("got read %llu at %llu", (unsigned long long)t, (unsigned long long)c);
    }
}

static void counters(const char *what, uint64_t act, uint64_t pre, uint64_t rd, uint64_t wr,
                     uint64_t hit, uint64_t miss, uint64_t conflict)
{
    bool good = st(TM_DS_N_ACT) == act && st(TM_DS_N_PRE) == pre && st(TM_DS_N_RD) == rd &&
                st(TM_DS_N_WR) == wr && st(TM_DS_ROW_HIT) == hit &&
                st(TM_DS_ROW_MISS) == miss && st(TM_DS_ROW_CONFLICT) == conflict;
    ok(good, "%s: n_act %llu n_pre %llu n_rd %llu n_wr %llu, row hits %llu misses %llu "
       "conflicts %llu", what, (unsigned long long)act, (unsigned long long)pre,
       (unsigned long long)rd, (unsigned long long)wr, (unsigned long long)hit,
       (unsigned long long)miss, (unsigned long long)conflict);
    if (!good)
        diag("got %llu %llu %llu %llu %llu %llu %llu", (unsigned long long)st(TM_DS_N_ACT),
             (unsigned long long)st(TM_DS_N_PRE), (unsigned long long)st(TM_DS_N_RD),
             (unsigned long long)st(TM_DS_N_WR), (unsigned long long)st(TM_DS_ROW_HIT),
             (unsigned long long)st(TM_DS_ROW_MISS), (unsigned long long)st(TM_DS_ROW_CONFLICT));
}

int main(void)
{
    char err[512];

    /* ---- one read to an idle bank: ACT at 0, RD at tRCD = 5, data over cycles 11-12:
     * returns at tRCD + CL + BL/ratio = 5 + 6 + 4/2 = 13 */
    ok(make(NULL, err, sizeof err) == 0, "base controller (%s)", err);
    push(0, 1, false, 1);
    returns("idle bank", 1, (uint64_t[]){13}, (uint64_t[]){1});
    counters("idle bank", 1, 0, 1, 0, 0, 1, 0);
    ok(st(TM_DS_N_CMD) == 13 && st(TM_DS_N_NOP) == 11 && st(TM_DS_N_ACTIVITY) == 13 &&
           st(TM_DS_N_REQ) == 1 && st(TM_DS_BUS_BUSY) == 2 && st(TM_DS_LAT_SUM) == 13,
       "idle bank: n_cmd 13, n_nop 11, n_activity 13, n_req 1, bwutil 2, latency sum 13");
    ok(!tm_dram_busy(d), "idle bank: nothing left");
    tm_dram_destroy(d);

    /* ---- a second read to the open row: RD at 5 + max(tCCD, BLc) = 7, returns at 15 */
    make(NULL, err, sizeof err);
    push(0, 1, false, 1);
    push(0, 1, false, 2);
    returns("row hit", 2, (uint64_t[]){13, 15}, (uint64_t[]){1, 2});
    counters("row hit", 1, 0, 2, 0, 1, 1, 0);
    tm_dram_destroy(d);

    /* ---- another row of the same bank: RD A at 5; PRE at max(ACT + tRAS = 10, RD + BLc = 7)
     * = 10; ACT at max(PRE + tRP = 14, ACT + tRC = 16) = 16; RD B at 21, returns at 29 */
    make(NULL, err, sizeof err);
    push(0, 1, false, 1);
    push(0, 2, false, 2);
    returns("row conflict, tRC-bound", 2, (uint64_t[]){13, 29}, (uint64_t[]){1, 2});
    counters("row conflict", 2, 1, 2, 0, 0, 1, 1);
    tm_dram_destroy(d);
    /* with tRC = 10: PRE at tRAS = 10, ACT at 10 + tRP = 14, RD at 19, returns at 27 (without
     * tRAS it would be 24) */
    static const char *const rc10[] = {
        "gpgpu_dram_timing_opt",
        "nbk=4:CCD=2:RRD=3:RCD=5:RAS=10:RP=4:RC=10:CL=6:WL=2:CDLR=3:WR=4:nbkgrp=1", NULL};
    make(rc10, err, sizeof err);
    push(0, 1, false, 1);
    push(0, 2, false, 2);
    returns("row conflict, tRAS + tRP-bound", 2, (uint64_t[]){13, 27}, (uint64_t[]){1, 2});
    tm_dram_destroy(d);

    /* ---- tRRD: ACT bank 0 at 0, ACT bank 1 at tRRD = 3, RD bank 1 at 8, returns at 16 */
    make(NULL, err, sizeof err);
    push(0, 1, false, 1);
    push(1, 1, false, 2);
    returns("tRRD", 2, (uint64_t[]){13, 16}, (uint64_t[]){1, 2});
    counters("tRRD", 2, 0, 2, 0, 0, 2, 0);
    tm_dram_destroy(d);

    /* ---- bank groups: nbkgrp=2 (banks 0,1 | 2,3), tCCD 2, tCCDL 5. Rows opened first, then
     * two reads pushed together: same group RD at T and T+5 (return T+8, T+13), other group
     * RD at T and T+2 (return T+8, T+10) */
    static const char *const bg[] = {
        "gpgpu_dram_timing_opt",
        "nbk=4:CCD=2:RRD=3:RCD=5:RAS=10:RP=4:RC=16:CL=6:WL=2:CDLR=3:WR=4:nbkgrp=2:CCDL=5:RTPL=2",
        NULL};
    make(bg, err, sizeof err);
    uint64_t t;
    push(0, 1, false, 1);
    push(1, 1, false, 2);
    push(2, 1, false, 3);
    for (int i = 0; i < 3; i++)
        until_ret(&t);
    run_to(100);
    push(0, 1, false, 4);
    push(1, 1, false, 5);
    returns("same bank group (tCCDL)", 2, (uint64_t[]){108, 113}, (uint64_t[]){4, 5});
    run_to(200);
    push(0, 1, false, 6);
    push(2, 1, false, 7);
    returns("other bank group (tCCD)", 2, (uint64_t[]){208, 210}, (uint64_t[]){6, 7});
    tm_dram_destroy(d);

    /* ---- tRTPL: nbkgrp=2, RTPL=6. Row 1 open in banks 1 and 2; then a hit on bank 0 and a
     * conflict on bank 1 (same group): RD bank 0 at T, PRE bank 1 at T + 6, ACT T + 10, RD
     * T + 15, returns T + 23; with the conflict on bank 2 (other group) PRE at T + 1 (the
     * RD took cycle T), ACT T + 5, RD T + 10, returns T + 18 */
    static const char *const rt[] = {
        "gpgpu_dram_timing_opt",
        "nbk=4:CCD=2:RRD=3:RCD=5:RAS=10:RP=4:RC=16:CL=6:WL=2:CDLR=3:WR=4:nbkgrp=2:CCDL=2:RTPL=6",
        NULL};
    make(rt, err, sizeof err);
    push(0, 1, false, 1);
    push(1, 1, false, 2);
    push(2, 1, false, 3);
    for (int i = 0; i < 3; i++)
        until_ret(&t);
    run_to(100);
    push(0, 1, false, 4);
    push(1, 2, false, 5);
    returns("read -> precharge in the same group (tRTPL)", 2, (uint64_t[]){108, 123},
            (uint64_t[]){4, 5});
    run_to(200);
    push(0, 1, false, 6);
    push(2, 2, false, 7);
    returns("read -> precharge in another group", 2, (uint64_t[]){208, 218}, (uint64_t[]){6, 7});
    tm_dram_destroy(d);

    /* ---- write -> read: ACT at 0 (for the write), WR at tRCDWR = 2; RD at max(ACT + tRCD = 5,
     * WR + tWTR = 9) = 9, returns at 17; without turnaround at max(5, 2 + 2) = 5 -> 13 */
    make(NULL, err, sizeof err);
    push(0, 1, true, 1);
    push(0, 1, false, 2);
    returns("write -> read (tWTR)", 1, (uint64_t[]){17}, (uint64_t[]){2});
    counters("write -> read", 1, 0, 1, 1, 1, 1, 0);
    is_uint(st(TM_DS_RW_TURNAROUND), 1, "write -> read: one turnaround");
    tm_dram_destroy(d);
    static const char *const nt[] = {"dram_elimnate_rw_turnaround", "1", NULL};
    make(nt, err, sizeof err);
    push(0, 1, true, 1);
    push(0, 1, false, 2);
    returns("write -> read, turnaround eliminated", 1, (uint64_t[]){13}, (uint64_t[]){2});
    tm_dram_destroy(d);
    /* read, write, read: RD 5, WR 5 + tRTW = 13, RD 13 + tWTR = 20 -> returns 13 and 28;
     * eliminated: RD 5, WR 7, RD 9 -> 13 and 17 */
    make(NULL, err, sizeof err);
    push(0, 1, false, 1);
    push(0, 1, true, 2);
    push(0, 1, false, 3);
    returns("read -> write -> read", 2, (uint64_t[]){13, 28}, (uint64_t[]){1, 3});
    is_uint(st(TM_DS_RW_TURNAROUND), 2, "read -> write -> read: two turnarounds");
    tm_dram_destroy(d);
    make(nt, err, sizeof err);
    push(0, 1, false, 1);
    push(0, 1, true, 2);
    push(0, 1, false, 3);
    returns("read -> write -> read, eliminated", 2, (uint64_t[]){13, 17}, (uint64_t[]){1, 3});
    tm_dram_destroy(d);

    /* ---- refresh every 100 cycles for 20: the read at 0 leaves row 1 open; at 100 the bank
     * is precharged, REF issues at 100 + tRP = 104 and blocks until 124; a read pushed at 101
     * activates at 124, RD 129, returns at 137, leaving row 1 open again; so at 200 the bank
     * is precharged, REF at 204 blocks until 224, and a read pushed at 201 activates at 224,
     * RD 229, returns at 237. */
    static const char *const rf[] = {"ptxemu_dram_tREFI", "100", "ptxemu_dram_tRFC", "20", NULL};
    ok(make(rf, err, sizeof err) == 0, "refresh controller (%s)", err);
    push(0, 1, false, 1);
    returns("refresh: first read", 1, (uint64_t[]){13}, (uint64_t[]){1});
    run_to(101);
    push(0, 1, false, 2);
    returns("refresh: read behind the first refresh", 1, (uint64_t[]){137}, (uint64_t[]){2});
    run_to(201);
    push(0, 1, false, 3);
    returns("refresh: read behind the second refresh", 1, (uint64_t[]){237}, (uint64_t[]){3});
    run_to(250);
    ok(st(TM_DS_N_REF) == 2, "refresh: 2 refreshes in 250 cycles");
    counters("refresh", 3, 2, 3, 0, 0, 3, 0);
    tm_dram_destroy(d);

    /* ---- FR-FCFS vs FIFO on rows A, B, A, B of one bank.
     * FIFO: A ACT 0 RD 5 (13); B PRE 10 ACT 16 RD 21 (29); A PRE max(16+10, 21+2) = 26,
     * ACT max(30, 16+16) = 32, RD 37 (45); B PRE 42, ACT 48, RD 53 (61).
     * FR-FCFS: A RD 5 (13), A RD 7 (15), B PRE 10 ACT 16 RD 21 (29), B RD 23 (31). */
    static const char *const ff[] = {"gpgpu_dram_scheduler", "0", NULL};
    make(ff, err, sizeof err);
    push(0, 1, false, 1);
    push(0, 2, false, 2);
    push(0, 1, false, 3);
    push(0, 2, false, 4);
    returns("FIFO A,B,A,B", 4, (uint64_t[]){13, 29, 45, 61}, (uint64_t[]){1, 2, 3, 4});
    counters("FIFO A,B,A,B", 4, 3, 4, 0, 0, 1, 3);
    tm_dram_destroy(d);
    make(NULL, err, sizeof err);
    push(0, 1, false, 1);
    push(0, 2, false, 2);
    push(0, 1, false, 3);
    push(0, 2, false, 4);
    returns("FR-FCFS A,B,A,B", 4, (uint64_t[]){13, 15, 29, 31}, (uint64_t[]){1, 3, 2, 4});
    counters("FR-FCFS A,B,A,B", 2, 1, 4, 0, 2, 1, 1);
    tm_dram_destroy(d);

    /* ---- a full return queue stalls: one entry; the second read's RD waits for the pop at
     * cycle 50, issues at 50 and returns at 58 */
    static const char *const rq[] = {"gpgpu_dram_return_queue_size", "1", NULL};
    make(rq, err, sizeof err);
    push(0, 1, false, 1);
    push(0, 1, false, 2);
    run_to(50);
    const struct tm_dram_req *r = tm_dram_peek(d);
    ok(r && r->token == 1 && st(TM_DS_N_RD) == 1, "return queue full: 1 read done by cycle 50, "
       "the second not issued");
    tm_dram_pop(d);
    returns("return queue full", 1, (uint64_t[]){58}, (uint64_t[]){2});
    tm_dram_destroy(d);

    /* ---- dual bus (RRD = 5 = RCD): single bus issues RD bank 0 at 5 and ACT bank 1 at 6
     * (RD at 11, returns 19); dual bus both at 5 (RD at 10, returns 18) */
    static const char *const r5[] = {
        "gpgpu_dram_timing_opt",
        "nbk=4:CCD=2:RRD=5:RCD=5:RAS=10:RP=4:RC=16:CL=6:WL=2:CDLR=3:WR=4:nbkgrp=1", NULL};
    make(r5, err, sizeof err);
    push(0, 1, false, 1);
    push(1, 1, false, 2);
    returns("single bus", 2, (uint64_t[]){13, 19}, (uint64_t[]){1, 2});
    tm_dram_destroy(d);
    static const char *const r5d[] = {
        "gpgpu_dram_timing_opt",
        "nbk=4:CCD=2:RRD=5:RCD=5:RAS=10:RP=4:RC=16:CL=6:WL=2:CDLR=3:WR=4:nbkgrp=1",
        "dram_dual_bus_interface", "1", NULL};
    make(r5d, err, sizeof err);
    push(0, 1, false, 1);
    push(1, 1, false, 2);
    returns("dual bus", 2, (uint64_t[]){13, 18}, (uint64_t[]){1, 2});
    tm_dram_destroy(d);

    /* ---- separate write queue (8 entries, drain from 3 down to below 1): two writes to row 2
     * then a read to row 1: reads first, RD at 5, returns at 13. Three writes reach the high
     * mark: WR at 2, 4, 6, then the read: PRE max(10, 6 + tWTP = 14) = 14, ACT 18, RD 23,
     * returns at 31. Without the write queue the two older writes go first: PRE at
     * max(10, 4 + 8) = 12, ACT 16, RD 21, returns at 29. */
    static const char *const wq[] = {"dram_seperate_write_queue_enable", "1",
                                     "dram_write_queue_size", "8:3:1", NULL};
    make(wq, err, sizeof err);
    push(0, 2, true, 1);
    push(0, 2, true, 2);
    push(0, 1, false, 3);
    returns("write queue below the mark", 1, (uint64_t[]){13}, (uint64_t[]){3});
    run_to(100);
    ok(st(TM_DS_N_WR) == 2 && !tm_dram_busy(d), "write queue: the writes drain when no read waits");
    tm_dram_destroy(d);
    make(wq, err, sizeof err);
    push(0, 2, true, 1);
    push(0, 2, true, 2);
    push(0, 2, true, 3);
    push(0, 1, false, 4);
    returns("write queue at the high mark", 1, (uint64_t[]){31}, (uint64_t[]){4});
    tm_dram_destroy(d);
    make(NULL, err, sizeof err);
    push(0, 2, true, 1);
    push(0, 2, true, 2);
    push(0, 1, false, 3);
    returns("no write queue", 1, (uint64_t[]){29}, (uint64_t[]){3});
    tm_dram_destroy(d);

    /* ---- the simple model: in order, the bus busy BLc = 2 cycles per 32-byte read, latency
     * tRCD + CL + 2 = 13: returns at 13, 15, 17 whatever the banks and rows; with clock
     * multiplier 2 the bus time is ceil(2 / 2) = 1 cycle: latency 5 + 6 + 1 = 12, returns at
     * 12, 13, 14 */
    static const char *const sm[] = {"gpgpu_simple_dram_model", "1", NULL};
    make(sm, err, sizeof err);
    push(0, 1, false, 1);
    push(0, 2, false, 2);
    push(1, 1, false, 3);
    returns("simple model", 3, (uint64_t[]){13, 15, 17}, (uint64_t[]){1, 2, 3});
    counters("simple model", 0, 0, 3, 0, 0, 0, 0);
    tm_dram_destroy(d);
    static const char *const sm2[] = {"gpgpu_simple_dram_model", "1",
                                      "gpgpu_simple_dram_clock_multiplier", "2", NULL};
    make(sm2, err, sizeof err);
    push(0, 1, false, 1);
    push(0, 2, false, 2);
    push(1, 1, false, 3);
    returns("simple model x2", 3, (uint64_t[]){12, 13, 14}, (uint64_t[]){1, 2, 3});
    tm_dram_destroy(d);

    /* ---- a 128-byte read is 4 column commands (atom 32): RD at 5, 7, 9, 11 -> returns 19 */
    make(NULL, err, sizeof err);
    struct tm_dram_req big = {.token = 9, .bk = 0, .row = 1, .bytes = 128};
    tm_dram_push(d, &big);
    returns("128-byte read", 1, (uint64_t[]){19}, (uint64_t[]){9});
    ok(st(TM_DS_N_RD) == 4 && st(TM_DS_BUS_BUSY) == 8, "128-byte read: 4 RD, bus busy 8");
    tm_dram_destroy(d);

    /* ---- an "unbounded" queue (size 0) holds 1024 requests */
    static const char *const ub[] = {"gpgpu_frfcfs_dram_sched_queue_size", "0", NULL};
    make(ub, err, sizeof err);
    unsigned n = 0;
    while (tm_dram_can_accept(d) && n < 5000) {
        struct tm_dram_req q = {.token = n, .bk = n % 4, .row = n, .bytes = 32};
        tm_dram_push(d, &q);
        n++;
    }
    is_uint(n, 1024, "queue size 0: 1024 requests accepted");
    tm_dram_destroy(d);

    /* ---- timing option spellings */
    struct tm_dram_timing a, b;
    ok(tm_dram_timing_parse("16:2:6:12:28:12:40:12:4:5:12:4:3:2", &a, err, sizeof err) == 0 &&
           tm_dram_timing_parse("GDDR5", &b, err, sizeof err) == 0 && !memcmp(&a, &b, sizeof a),
       "positional equals the GDDR5 preset");
    ok(tm_dram_timing_parse("4:2:8:12:21:13:34:9:4:5:13", &a, err, sizeof err) == 0 &&
           a.nbkgrp == 1 && a.tCCDL == 0 && a.tRTPL == 0 && a.tWR == 13,
       "11 positional fields: nbkgrp 1, tCCDL 0, tRTPL 0");
    ok(tm_dram_timing_parse("hbm2", &a, err, sizeof err) == 0 && a.nbk == 16 && a.tRCD == 12 &&
           a.CL == 12 && a.nbkgrp == 4, "hbm2 (any case) is the QV100 set");
    for (size_t i = 0; i < tm_dram_preset_count; i++)
        ok(tm_dram_timing_parse(tm_dram_presets[i].name, &a, err, sizeof err) == 0 &&
               a.nbk == 16 && a.nbkgrp == 4 && a.tRC >= a.tRP,
           "preset %s parses (%s)", tm_dram_presets[i].name, err);
    static const struct {
        const char *opt, *msg;
    } bad[] = {
        {"nbk=4:CCD=2", "-gpgpu_dram_timing_opt: RRD is missing in 'nbk=4:CCD=2'"},
        {"nbk=4:CCD=2:XYZ=3", "-gpgpu_dram_timing_opt: unknown timing 'XYZ' in "
                              "'nbk=4:CCD=2:XYZ=3' (nbk, CCD, RRD, RCD, RAS, RP, RC, CL, WL, "
                              "CDLR, WR, nbkgrp, CCDL, RTPL)"},
        {"nbk=4:CCD=x", "-gpgpu_dram_timing_opt: CCD='x' is not a non-negative integer"},
        {"4:2:8:12:21:13:34:9:4:5", "-gpgpu_dram_timing_opt: 10 fields in "
                                    "'4:2:8:12:21:13:34:9:4:5', need at least 11 "
                                    "(nbk:CCD:RRD:RCD:RAS:RP:RC:CL:WL:CDLR:WR)"},
        {"4:2:8:12:21:13:34:9:4:5:13:3:0:0", "-gpgpu_dram_timing_opt: nbk=4 is not a multiple "
                                             "of nbkgrp=3"},
        {"GDDR9", "-gpgpu_dram_timing_opt: field 1 (nbk) 'GDDR9' is not a non-negative integer "
                  "in 'GDDR9' (positional nbk:CCD:RRD:RCD:RAS:RP:RC:CL:WL:CDLR:WR[:nbkgrp:CCDL:"
                  "RTPL], name=value pairs, or a memory type GDDR5, GDDR6, GDDR6X, GDDR7, HBM2, "
                  "HBM2e, HBM3, HBM3e)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        int rc = tm_dram_timing_parse(bad[i].opt, &a, err, sizeof err);
        ok(rc == -EINVAL, "'%s' is rejected", bad[i].opt);
        is_str(err, bad[i].msg, "'%s': message", bad[i].opt);
    }
    static const char *const badc[] = {"gpgpu_dram_timing_opt", "nbk=4:CCD=2", NULL};
    ok(make(badc, err, sizeof err) == -EINVAL && d == NULL,
       "tm_dram_create rejects a malformed timing option");

    /* ---- every compiled-in preset builds a controller that serves a read */
    for (size_t i = 0; i < tm_preset_count; i++) {
        struct tm_config c;
        int rc = tm_config_load(&c, tm_presets[i].name, NULL, false, NULL);
        uint64_t want = 0;
        if (!rc)
            rc = tm_dram_timing_parse(c.o.gpgpu_dram_timing_opt, &a, err, sizeof err);
        if (!rc) {
            uint64_t bl = (uint64_t)c.o.gpgpu_dram_burst_length;
            uint64_t ratio = (uint64_t)c.o.dram_data_command_freq_ratio;
            want = a.tRCD + a.CL + (bl + ratio - 1) / ratio;
            rc = tm_dram_create(&d, &c, 0, err, sizeof err);
        }
        if (!rc) {
            cyc = 0;
            push(0, 1, false, 1);
            until_ret(&t);
            tm_dram_destroy(d);
            tm_config_free(&c);
        }
        ok(rc == 0 && t == 1 && cyc == want,
           "preset %s: a read to an idle bank returns after tRCD + CL + BL/ratio = %llu cycles",
           tm_presets[i].name, (unsigned long long)want);
    }

    /* ---- tm_dram_idle_tick (the memory system's cheap pass over idle channels): a channel
     * stepped with it wherever it accepts, tm_dram_cycle otherwise, counts and returns
     * exactly as one stepped with tm_dram_cycle alone, across refreshes and reads; it
     * refuses a busy channel and a cycle at which a refresh is due */
    {
        static const char *const rf[] = {"ptxemu_dram_tREFI", "100", "ptxemu_dram_tRFC", "20",
                                         NULL};
        char err[256];
        struct tm_dram *dd[2] = {NULL, NULL};
        uint64_t ret[2][4] = {{0}}, nret[2] = {0, 0}, ticks = 0;
        bool refused_busy = false, refused_ref = false;
        for (int v = 0; v < 2; v++) {
            if (make(rf, err, sizeof err)) {
                diag("%s", err);
                break;
            }
            dd[v] = d;
            for (uint64_t t = 0; t < 260; t++) {
                if (t == 30 || t == 150 || t == 199) {
                    push((uint32_t)(t % 4), (uint32_t)t, false, t);
                    if (v == 1 && t == 30)
                        refused_busy = !tm_dram_idle_tick(d);
                }
                bool ticked = v == 1 && tm_dram_idle_tick(d);
                if (v == 1 && t == 100)
                    refused_ref = !ticked;
                if (ticked)
                    ticks++;
                else
                    tm_dram_cycle(d);
                const struct tm_dram_req *r = tm_dram_peek(d);
                if (r && nret[v] < 4) {
                    ret[v][nret[v]++] = t << 16 | r->token;
                    tm_dram_pop(d);
                }
            }
        }
        bool same = dd[0] && dd[1] &&
                    !memcmp(tm_dram_stats(dd[0]), tm_dram_stats(dd[1]),
                            TM_DS__COUNT * sizeof(uint64_t)) &&
                    nret[0] == 3 && nret[1] == 3 && !memcmp(ret[0], ret[1], sizeof ret[0]);
        ok(same && ticks > 150 && refused_busy && refused_ref,
           "idle ticks: same counters and returns as tm_dram_cycle (%llu of 260 cycles "
           "ticked), refused when busy or a refresh is due", (unsigned long long)ticks);
        if (!same)
            diag("returns %llu and %llu, counters %s", (unsigned long long)nret[0],
                 (unsigned long long)nret[1],
                 dd[0] && dd[1] && !memcmp(tm_dram_stats(dd[0]), tm_dram_stats(dd[1]),
                                           TM_DS__COUNT * sizeof(uint64_t))
                     ? "same" : "differ");
        for (int k = 0; !same && dd[0] && dd[1] && k < TM_DS__COUNT; k++)
            if (tm_dram_stats(dd[0])[k] != tm_dram_stats(dd[1])[k])
                diag("%s: %llu vs %llu", tm_dram_stat_name((enum tm_dram_stat)k),
                     (unsigned long long)tm_dram_stats(dd[0])[k],
                     (unsigned long long)tm_dram_stats(dd[1])[k]);
        tm_dram_destroy(dd[0]);
        tm_dram_destroy(dd[1]);
        d = NULL;
    }

    /* ---- counter names */
    ok(!strcmp(tm_dram_stat_name(TM_DS_N_CMD), "n_cmd") &&
           !strcmp(tm_dram_stat_name(TM_DS_N_ACT), "n_act") &&
           !strcmp(tm_dram_stat_name(TM_DS_N_PRE), "n_pre") &&
           !strcmp(tm_dram_stat_name(TM_DS_N_RD), "n_rd") &&
           !strcmp(tm_dram_stat_name(TM_DS_N_WR), "n_wr") &&
           !strcmp(tm_dram_stat_name(TM_DS_N_REQ), "n_req") &&
           !strcmp(tm_dram_stat_name(TM_DS_N_ACTIVITY), "n_activity") &&
           !strcmp(tm_dram_stat_name(TM_DS_N_NOP), "n_nop"),
       "GPGPU-Sim's counter names");
    for (int s = 0; s < TM_DS__COUNT; s++)
        ok(tm_dram_stat_name((enum tm_dram_stat)s) && *tm_dram_stat_name((enum tm_dram_stat)s),
           "counter %d has a name", s);
    return done_testing();
}
