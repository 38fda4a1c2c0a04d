/*
 * timing/dram.c — one DRAM channel controller (issue 22 item 5), clocked by the DRAM command
 * clock; semantics after GPGPU-Sim's dram.cc / dram_sched.cc, written as a constraint table.
 *
 * Geometry and derived timing (GPGPU-Sim's memory_config::init):
 *   BLc    = ceil(BL / ratio)   command cycles one burst occupies the data bus (BL =
 *                               -gpgpu_dram_burst_length, ratio = -dram_data_command_freq_ratio)
 *   atom   = BL × -gpgpu_dram_buswidth × -gpgpu_n_mem_per_ctrlr   bytes per column command
 *   tRTW   = CL + BLc + 2 − WL  read → write turnaround   } 0 with -dram_elimnate_rw_turnaround
 *   tWTR   = WL + BLc + tCDLR   write → read turnaround   }
 *   tWTP   = WL + BLc + tWR     write → precharge, same bank
 *   tRCDWR = tRCD − (WL + 1)    activate → write (0 if negative)
 *   group  = bank / (nbk / nbkgrp)
 *
 * The constraint table T[prev][next][scope] (commands ACT, PRE, RD, WR, REF; scopes same bank,
 * same bank group, any bank of the channel) is built once at creation:
 *   ACT→ACT  bank tRC, channel tRRD        ACT→RD bank tRCD    ACT→WR bank tRCDWR
 *   ACT→PRE  bank tRAS                     ACT→REF bank tRC   PRE→ACT, PRE→REF bank tRP
 *   RD→RD, WR→WR    channel max(tCCD, BLc), group tCCDL
 *   RD→WR    channel max(tRTW, tCCD, BLc), group tCCDL      RD→PRE bank BLc, group tRTPL
 *   WR→RD    channel max(tWTR, tCCD, BLc), group tCCDL      WR→PRE bank tWTP
 *   REF→any  every bank tRFC
 * Each entry of a narrower scope is the maximum over the wider ones, so issuing command c on bank
 * b at cycle t raises three "earliest cycle" rows — bank b's, its group's and the channel's — to
 * t + T[c][·][scope], and a command is legal when the cycle reaches the maximum of its three
 * entries. (The data bus: column commands are at least one burst apart — GPGPU-Sim lets tCCD
 * below BLc overlap bursts.)
 *
 * Each cycle (a tm_dram_cycle call is command cycle `now`):
 *  1. Refresh (-ptxemu_dram_tREFI/-ptxemu_dram_tRFC, both > 0): from cycle k·tREFI a refresh is
 *     pending: no ACT or column command issues, open banks are precharged, then REF issues once
 *     every bank is closed and its constraints allow; all banks then wait tRFC.
 *  2. Requests move from the queue into free bank slots (one request in service per bank, as
 *     GPGPU-Sim's bk[]->mrq). FIFO (-gpgpu_dram_scheduler 0): only the oldest queued request, and
 *     only when its bank is free (head-of-line blocking). FR-FCFS (1): each free bank takes its
 *     oldest request to the open row, else its oldest request. With
 *     -dram_seperate_write_queue_enable writes wait in their own queue: banks serve reads only
 *     (writes too when no read is queued) until the write queue reaches the drain high mark,
 *     then writes only until it falls below the low mark.
 *  3. Commands: one per cycle; with -dram_dual_bus_interface one row command (ACT/PRE/REF) and
 *     one column command (RD/WR). Column commands come first; among the banks whose command is
 *     legal the oldest request wins. A read's first column command needs a free return-queue
 *     slot (reserved until the data returns), so a full return queue stalls reads.
 *  4. A read's data returns CL + BLc cycles after its last column command: a read to an idle
 *     bank pushed before cycle 0 is visible to tm_dram_peek after tRCD + CL + BLc cycles.
 *
 * Queues are preallocated: -gpgpu_frfcfs_dram_sched_queue_size entries (0 means unbounded in
 * GPGPU-Sim; here TM_DRAM_UNBOUNDED_QUEUE = 1024 entries; the FIFO scheduler uses the same size
 * where GPGPU-Sim's FIFO holds 2), the write queue's size, one slot per bank, and
 * -gpgpu_dram_return_queue_size return entries (0: 1024, GPGPU-Sim's default). Since
 * tm_dram_can_accept does not know the next request's kind, with a separate write queue it
 * answers true only while both queues have room; tm_dram_push ignores a request it has no room
 * for (the caller checks first). A bank number >= nbk is taken modulo nbk.
 *
 * -gpgpu_simple_dram_model 1: no banks; requests are served in arrival order, each occupying
 * the data bus ceil(atoms × BLc / -gpgpu_simple_dram_clock_multiplier) cycles, and a read
 * returns tRCD + CL + that many cycles after it starts (an idle-bank access).
 *
 * Row-buffer counters are per request: a hit needed no ACT, a miss an ACT only, a conflict a
 * precharge of another row first.
 */
#include "timing/dram.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "timing/dramcfg.h"

#define TM_DRAM_UNBOUNDED_QUEUE 1024u
#define TM_DRAM_DEFAULT_RETQ    1024u
#define NONE                    UINT32_MAX

enum { C_ACT, C_PRE, C_RD, C_WR, C_REF, C__N };
enum { SC_BANK, SC_GROUP, SC_CHAN, SC__N };

static void errf(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ======================================================================== timing option */

/* The memory-type presets. Values are command-clock cycles at clock_mhz. */
const struct tm_dram_preset tm_dram_presets[] = {
    {"GDDR5", "nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12:nbkgrp=4:"
              "CCDL=3:RTPL=2", 1800.0,
     "Hynix H5GQ1H24AFR GDDR5 as GPGPU-Sim's GTX480/TITANX configs and Accel-Sim's tuner "
     "(GDDR5_Timing_1800MHZ) use it"},
    {"GDDR6", "nbk=16:CCD=4:RRD=12:RCD=24:RAS=55:RP=24:RC=78:CL=24:WL=8:CDLR=10:WR=24:nbkgrp=4:"
              "CCDL=6:RTPL=4", 3500.0,
     "Accel-Sim SM75_RTX2060 / SM86_RTX3070 tested configs (14 Gbps GDDR6)"},
    {"GDDR6X", "nbk=16:CCD=4:RRD=18:RCD=36:RAS=83:RP=36:RC=117:CL=36:WL=12:CDLR=15:WR=36:"
               "nbkgrp=4:CCDL=9:RTPL=6", 5250.0,
     "the GDDR6 set's nanoseconds at 5,250 MHz (21 Gbps), each cycle count × 1.5 rounded up "
     "(Accel-Sim tuner's scale_timing_for_new_freq rule; tCCD stays 4 = BL/ratio)"},
    {"GDDR7", "nbk=16:CCD=4:RRD=24:RCD=48:RAS=110:RP=48:RC=156:CL=48:WL=16:CDLR=20:WR=48:"
              "nbkgrp=4:CCDL=12:RTPL=8", 7000.0,
     "the GDDR6 set's nanoseconds at 7,000 MHz (28 Gbps), each cycle count × 2 (same rule)"},
    {"HBM2", "nbk=16:CCD=1:RRD=3:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=2:CDLR=3:WR=10:nbkgrp=4:"
             "CCDL=2:RTPL=3", 850.0,
     "Accel-Sim SM7_QV100 tested config (HBM2 at 850 MHz)"},
    {"HBM2e", "nbk=16:CCD=1:RRD=7:RCD=22:RAS=50:RP=22:RC=72:CL=22:WL=4:CDLR=5:WR=19:nbkgrp=4:"
              "CCDL=4:RTPL=7", 1593.0,
     "configs/a100.config (Accel-Sim SM80_A100, HBM2e at 1,593 MHz)"},
    {"HBM3", "nbk=16:CCD=1:RRD=6:RCD=19:RAS=45:RP=19:RC=50:CL=19:WL=6:CDLR=8:WR=21:nbkgrp=4:"
             "CCDL=6:RTPL=8", 3106.0,
     "configs/h100.config (Accel-Sim SM90_H100, HBM3 at 3,106 MHz)"},
    {"HBM3e", "nbk=16:CCD=1:RRD=8:RCD=25:RAS=58:RP=25:RC=65:CL=25:WL=8:CDLR=11:WR=28:nbkgrp=4:"
              "CCDL=8:RTPL=11", 4000.0,
     "the HBM3 set's nanoseconds at 4,000 MHz (8 Gbps), each cycle count × 4000/3106 rounded "
     "up (same rule)"},
};
const size_t tm_dram_preset_count = sizeof tm_dram_presets / sizeof tm_dram_presets[0];

static const char *const key_names[14] = {"nbk", "CCD", "RRD",  "RCD",    "RAS",
                                          "RP",  "RC",  "CL",   "WL",     "CDLR",
                                          "WR",  "nbkgrp", "CCDL", "RTPL"};

static uint32_t *field(struct tm_dram_timing *t, int i)
{
    uint32_t *f[14] = {&t->nbk, &t->tCCD, &t->tRRD, &t->tRCD, &t->tRAS, &t->tRP, &t->tRC,
                       &t->CL,  &t->WL,   &t->tCDLR, &t->tWR, &t->nbkgrp, &t->tCCDL, &t->tRTPL};
    return f[i];
}

/* A non-negative decimal integer of at most 7 digits spanning [s, e). */
static bool parse_uint(const char *s, const char *e, uint32_t *v)
{
    while (s < e && (*s == ' ' || *s == '\t'))
        s++;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
    if (s == e || e - s > 7)
        return false;
    uint32_t r = 0;
    for (; s < e; s++) {
        if (*s < '0' || *s > '9')
            return false;
        r = r * 10 + (uint32_t)(*s - '0');
    }
    *v = r;
    return true;
}

/* Parse -gpgpu_dram_timing_opt; see dramcfg.h. */
int tm_dram_timing_parse(const char *opt, struct tm_dram_timing *t, char *err, size_t errlen)
{
    if (!opt)
        opt = "";
    char name[16];
    size_t n = strspn(opt, " \t");
    const char *o = opt + n;
    size_t len = strlen(o);
    while (len && (o[len - 1] == ' ' || o[len - 1] == '\t'))
        len--;
    if (len < sizeof name) {
        memcpy(name, o, len);
        name[len] = 0;
        for (size_t i = 0; i < tm_dram_preset_count; i++)
            if (!strcasecmp(name, tm_dram_presets[i].name))
                return tm_dram_timing_parse(tm_dram_presets[i].timing, t, err, errlen);
    }
    memset(t, 0, sizeof *t);
    t->nbkgrp = 1;
    if (strchr(o, '=')) {
        bool seen[14] = {false};
        const char *p = o, *end = o + len;
        while (p < end) {
            const char *q = p;
            while (q < end && *q != ':' && *q != ';')
                q++;
            const char *eq = memchr(p, '=', (size_t)(q - p));
            if (!eq) {
                errf(err, errlen, "-gpgpu_dram_timing_opt: '%.*s' is not name=value in '%s'",
                     (int)(q - p), p, opt);
                return -EINVAL;
            }
            const char *k0 = p, *k1 = eq;
            while (k0 < k1 && (*k0 == ' ' || *k0 == '\t'))
                k0++;
            while (k1 > k0 && (k1[-1] == ' ' || k1[-1] == '\t'))
                k1--;
            int key = -1;
            for (int i = 0; i < 14; i++)
                if ((size_t)(k1 - k0) == strlen(key_names[i]) &&
                    !strncmp(k0, key_names[i], (size_t)(k1 - k0)))
                    key = i;
            if (key < 0) {
                errf(err, errlen, "-gpgpu_dram_timing_opt: unknown timing '%.*s' in '%s' (nbk, "
                     "CCD, RRD, RCD, RAS, RP, RC, CL, WL, CDLR, WR, nbkgrp, CCDL, RTPL)",
                     (int)(k1 - k0), k0, opt);
                return -EINVAL;
            }
            if (!parse_uint(eq + 1, q, field(t, key))) {
                errf(err, errlen, "-gpgpu_dram_timing_opt: %s='%.*s' is not a non-negative "
                     "integer", key_names[key], (int)(q - eq - 1), eq + 1);
                return -EINVAL;
            }
            seen[key] = true;
            p = q < end ? q + 1 : q;
        }
        for (int i = 0; i < 11; i++)
            if (!seen[i]) {
                errf(err, errlen, "-gpgpu_dram_timing_opt: %s is missing in '%s'", key_names[i],
                     opt);
                return -EINVAL;
            }
    } else {
        const char *p = o, *end = o + len;
        int i = 0;
        while (p <= end) {
            const char *q = p;
            while (q < end && *q != ':')
                q++;
            if (i == 14) {
                errf(err, errlen, "-gpgpu_dram_timing_opt: more than 14 fields in '%s' "
                     "(nbk:CCD:RRD:RCD:RAS:RP:RC:CL:WL:CDLR:WR:nbkgrp:CCDL:RTPL, or a memory "
                     "type GDDR5 … HBM3e)", opt);
                return -EINVAL;
            }
            if (!parse_uint(p, q, field(t, i))) {
                errf(err, errlen, "-gpgpu_dram_timing_opt: field %d (%s) '%.*s' is not a "
                     "non-negative integer in '%s' (positional "
                     "nbk:CCD:RRD:RCD:RAS:RP:RC:CL:WL:CDLR:WR[:nbkgrp:CCDL:RTPL], name=value "
                     "pairs, or a memory type GDDR5, GDDR6, GDDR6X, GDDR7, HBM2, HBM2e, HBM3, "
                     "HBM3e)", i + 1, key_names[i], (int)(q - p), p, opt);
                return -EINVAL;
            }
            i++;
            p = q + 1;
        }
        if (i < 11) {
            errf(err, errlen, "-gpgpu_dram_timing_opt: %d fields in '%s', need at least 11 "
                 "(nbk:CCD:RRD:RCD:RAS:RP:RC:CL:WL:CDLR:WR)", i, opt);
            return -EINVAL;
        }
    }
    if (t->nbk < 1 || t->nbk > 256) {
        errf(err, errlen, "-gpgpu_dram_timing_opt: nbk=%u banks (1…256)", t->nbk);
        return -EINVAL;
    }
    if (t->nbkgrp < 1 || t->nbk % t->nbkgrp) {
        errf(err, errlen, "-gpgpu_dram_timing_opt: nbk=%u is not a multiple of nbkgrp=%u",
             t->nbk, t->nbkgrp);
        return -EINVAL;
    }
    return 0;
}

/* ======================================================================== the controller */

struct dreq {
    struct tm_dram_req r;
    uint64_t seq;       /* arrival order */
    uint64_t accept;    /* cycle it was accepted */
    uint32_t atoms;     /* column commands still to issue */
    uint32_t next;      /* next in its list (queue or free list) */
    bool started;       /* a column command issued */
    bool did_act, did_pre;
};

struct dbank {
    bool open;
    uint32_t row;
    uint32_t cur;               /* request in service, or NONE */
    uint32_t qh[2], qt[2];      /* queued requests: [0] reads (and writes), [1] writes */
};

struct rentry {
    struct tm_dram_req r;
    uint64_t accept, done;
};

struct tm_dram {
    uint32_t id, nbk, nbkgrp, bpg, blc, atom;
    uint32_t tRCD, CL, mult;
    bool fifo, dual, sepwq, simple;
    uint32_t wq_hi, wq_lo;
    uint64_t tREFI, tRFC;
    uint32_t T[C__N][C__N][SC__N];

    uint64_t now, seq;
    struct dreq *pool;
    uint32_t pool_n, free_head;
    struct dbank *bank;
    uint64_t (*bank_ready)[C__N];
    uint64_t (*grp_ready)[C__N];
    uint64_t chan_ready[C__N];

    /* queue: FIFO ring of pool indices (FIFO scheduler, simple model) */
    uint32_t *ring;
    uint32_t ring_cap, ring_head, ring_n;
    uint32_t q_cap, wq_cap;     /* capacities */
    uint32_t nq[2];             /* queued (not in a bank): [0] main, [1] write queue */
    bool write_mode;

    /* return path: ring of ret_n reads from ret_head; the first ret_done have returned, the
     * rest have their data in flight */
    struct rentry *ret;
    uint32_t ret_cap, ret_head, ret_done, ret_n;
    uint32_t ret_reserved;      /* reads started, not yet in the ring */

    uint32_t active;            /* requests in bank slots */
    bool ref_pending;
    uint64_t ref_due;
    int last_col;               /* C_RD, C_WR or -1 */
    uint64_t bus_free;          /* simple model */

    uint64_t stat[TM_DS__COUNT];
};

static uint32_t max3(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t m = a > b ? a : b;
    return m > c ? m : c;
}

/* The constraint table; see the file comment. */
static void build_table(struct tm_dram *d, const struct tm_dram_timing *t, uint32_t blc,
                        bool no_turn)
{
    memset(d->T, 0, sizeof d->T);
    uint32_t tRTW = no_turn ? 0 : (t->CL + blc + 2 > t->WL ? t->CL + blc + 2 - t->WL : 0);
    uint32_t tWTR = no_turn ? 0 : t->WL + blc + t->tCDLR;
    uint32_t tWTP = t->WL + blc + t->tWR;
    uint32_t tRCDWR = t->tRCD > t->WL + 1 ? t->tRCD - (t->WL + 1) : 0;
    uint32_t ccd = t->tCCD > blc ? t->tCCD : blc;

    d->T[C_ACT][C_ACT][SC_BANK] = t->tRC;
    d->T[C_ACT][C_ACT][SC_CHAN] = t->tRRD;
    d->T[C_ACT][C_RD][SC_BANK] = t->tRCD;
    d->T[C_ACT][C_WR][SC_BANK] = tRCDWR;
    d->T[C_ACT][C_PRE][SC_BANK] = t->tRAS;
    d->T[C_ACT][C_REF][SC_BANK] = t->tRC;
    d->T[C_PRE][C_ACT][SC_BANK] = t->tRP;
    d->T[C_PRE][C_REF][SC_BANK] = t->tRP;
    d->T[C_RD][C_RD][SC_CHAN] = ccd;
    d->T[C_WR][C_WR][SC_CHAN] = ccd;
    d->T[C_RD][C_WR][SC_CHAN] = max3(tRTW, ccd, 0);
    d->T[C_WR][C_RD][SC_CHAN] = max3(tWTR, ccd, 0);
    for (int a = C_RD; a <= C_WR; a++)
        for (int b = C_RD; b <= C_WR; b++)
            d->T[a][b][SC_GROUP] = t->tCCDL;
    d->T[C_RD][C_PRE][SC_BANK] = blc;
    d->T[C_RD][C_PRE][SC_GROUP] = t->tRTPL;
    d->T[C_WR][C_PRE][SC_BANK] = tWTP;
    for (int b = 0; b < C__N; b++)
        d->T[C_REF][b][SC_BANK] = (uint32_t)d->tRFC;
    /* a narrower scope includes the wider ones */
    for (int a = 0; a < C__N; a++)
        for (int b = 0; b < C__N; b++) {
            uint32_t *e = d->T[a][b];
            e[SC_GROUP] = e[SC_GROUP] > e[SC_CHAN] ? e[SC_GROUP] : e[SC_CHAN];
            e[SC_BANK] = e[SC_BANK] > e[SC_GROUP] ? e[SC_BANK] : e[SC_GROUP];
        }
}

static int parse_wq(const char *s, uint32_t v[3], char *err, size_t errlen)
{
    const char *p = s ? s : "";
    for (int i = 0; i < 3; i++) {
        const char *q = p;
        while (*q && *q != ':')
            q++;
        if (!parse_uint(p, q, &v[i]) || (i < 2 && *q != ':') || (i == 2 && *q)) {
            errf(err, errlen, "-dram_write_queue_size: expected <entries>:<high mark>:<low mark>, "
                 "got '%s'", s ? s : "");
            return -EINVAL;
        }
        p = q + 1;
    }
    if (v[0] < 1 || v[1] > v[0] || v[2] > v[1] || v[1] < 1) {
        errf(err, errlen, "-dram_write_queue_size: '%s' needs 1 <= high mark <= entries and low "
             "mark <= high mark", s);
        return -EINVAL;
    }
    return 0;
}

/* Build channel `id`'s controller from cfg. */
int tm_dram_create(struct tm_dram **out, const struct tm_config *cfg, uint32_t id, char *err,
                   size_t errlen)
{
    *out = NULL;
    const struct tm_options *o = &cfg->o;
    struct tm_dram_timing t;
    int rc = tm_dram_timing_parse(o->gpgpu_dram_timing_opt, &t, err, errlen);
    if (rc)
        return rc;
#define CHECK_RANGE(opt, lo, hi)                                                                \
    if (o->opt < (lo) || o->opt > (hi)) {                                                      \
        errf(err, errlen, "-%s: %lld is not %lld…%lld", #opt, (long long)o->opt,                \
             (long long)(lo), (long long)(hi));                                                 \
        return -EINVAL;                                                                         \
    }
    CHECK_RANGE(gpgpu_dram_buswidth, 1, 1024)
    CHECK_RANGE(gpgpu_dram_burst_length, 1, 1024)
    CHECK_RANGE(dram_data_command_freq_ratio, 1, 64)
    CHECK_RANGE(gpgpu_n_mem_per_ctrlr, 1, 64)
    CHECK_RANGE(gpgpu_dram_scheduler, 0, 1)
    CHECK_RANGE(gpgpu_frfcfs_dram_sched_queue_size, 0, 1 << 20)
    CHECK_RANGE(gpgpu_dram_return_queue_size, 0, 1 << 20)
    CHECK_RANGE(ptxemu_dram_tREFI, 0, 1 << 30)
    CHECK_RANGE(ptxemu_dram_tRFC, 0, 1 << 30)
    CHECK_RANGE(gpgpu_simple_dram_clock_multiplier, 1, 1024)
#undef CHECK_RANGE
    if (o->ptxemu_dram_tREFI && o->ptxemu_dram_tRFC >= o->ptxemu_dram_tREFI) {
        errf(err, errlen, "-ptxemu_dram_tRFC %lld must be below -ptxemu_dram_tREFI %lld",
             (long long)o->ptxemu_dram_tRFC, (long long)o->ptxemu_dram_tREFI);
        return -EINVAL;
    }
    uint32_t wq[3] = {0, 0, 0};
    bool sepwq = o->dram_seperate_write_queue_enable != 0;
    if (sepwq && (rc = parse_wq(o->dram_write_queue_size, wq, err, errlen)))
        return rc;

    struct tm_dram *d = calloc(1, sizeof *d);
    if (!d)
        return -ENOMEM;
    uint32_t BL = (uint32_t)o->gpgpu_dram_burst_length;
    uint32_t ratio = (uint32_t)o->dram_data_command_freq_ratio;
    d->id = id;
    d->nbk = t.nbk;
    d->nbkgrp = t.nbkgrp;
    d->bpg = t.nbk / t.nbkgrp;
    d->blc = (BL + ratio - 1) / ratio;
    d->atom = BL * (uint32_t)o->gpgpu_dram_buswidth * (uint32_t)o->gpgpu_n_mem_per_ctrlr;
    d->tRCD = t.tRCD;
    d->CL = t.CL;
    d->mult = (uint32_t)o->gpgpu_simple_dram_clock_multiplier;
    d->fifo = o->gpgpu_dram_scheduler == 0;
    d->dual = o->dram_dual_bus_interface != 0;
    d->simple = o->gpgpu_simple_dram_model != 0;
    d->sepwq = sepwq && !d->fifo && !d->simple;
    d->wq_cap = d->sepwq ? wq[0] : 0;
    d->wq_hi = wq[1];
    d->wq_lo = wq[2];
    d->tREFI = d->simple ? 0 : (uint64_t)o->ptxemu_dram_tREFI;
    d->tRFC = (uint64_t)o->ptxemu_dram_tRFC;
    if (!d->tREFI)
        d->tRFC = 0;
    d->ref_due = d->tREFI ? d->tREFI : UINT64_MAX;
    d->last_col = -1;
    build_table(d, &t, d->blc, o->dram_elimnate_rw_turnaround != 0);

    d->q_cap = o->gpgpu_frfcfs_dram_sched_queue_size
                   ? (uint32_t)o->gpgpu_frfcfs_dram_sched_queue_size
                   : TM_DRAM_UNBOUNDED_QUEUE;
    d->ret_cap = o->gpgpu_dram_return_queue_size ? (uint32_t)o->gpgpu_dram_return_queue_size
                                                 : TM_DRAM_DEFAULT_RETQ;
    d->pool_n = d->q_cap + d->wq_cap + d->nbk;
    d->ring_cap = d->q_cap;
    d->pool = calloc(d->pool_n, sizeof *d->pool);
    d->bank = calloc(d->nbk, sizeof *d->bank);
    d->bank_ready = calloc(d->nbk, sizeof *d->bank_ready);
    d->grp_ready = calloc(d->nbkgrp, sizeof *d->grp_ready);
    d->ring = calloc(d->ring_cap, sizeof *d->ring);
    d->ret = calloc(d->ret_cap, sizeof *d->ret);
    if (!d->pool || !d->bank || !d->bank_ready || !d->grp_ready || !d->ring || !d->ret) {
        tm_dram_destroy(d);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < d->pool_n; i++)
        d->pool[i].next = i + 1 < d->pool_n ? i + 1 : NONE;
    d->free_head = 0;
    for (uint32_t b = 0; b < d->nbk; b++) {
        d->bank[b].cur = NONE;
        d->bank[b].qh[0] = d->bank[b].qh[1] = NONE;
        d->bank[b].qt[0] = d->bank[b].qt[1] = NONE;
    }
    *out = d;
    return 0;
}

/* Free the controller. */
void tm_dram_destroy(struct tm_dram *d)
{
    if (!d)
        return;
    free(d->pool);
    free(d->bank);
    free(d->bank_ready);
    free(d->grp_ready);
    free(d->ring);
    free(d->ret);
    free(d);
}

/* Room for one more request of either kind (the interface does not say which comes next). */
bool tm_dram_can_accept(const struct tm_dram *d)
{
    if (d->fifo || d->simple)
        return d->ring_n < d->ring_cap;
    if (d->sepwq)
        return d->nq[0] < d->q_cap && d->nq[1] < d->wq_cap;
    return d->nq[0] < d->q_cap;
}

/* Accept a request into the queue. */
void tm_dram_push(struct tm_dram *d, const struct tm_dram_req *r)
{
    uint32_t i = d->free_head;
    if (i == NONE || !tm_dram_can_accept(d))
        return; /* the caller checks tm_dram_can_accept; never overrun the preallocated pool */
    struct dreq *q = &d->pool[i];
    d->free_head = q->next;
    q->r = *r;
    if (q->r.bk >= d->nbk)
        q->r.bk %= d->nbk;
    q->seq = d->seq++;
    q->accept = d->now;
    q->atoms = r->bytes ? (r->bytes + d->atom - 1) / d->atom : 1;
    q->next = NONE;
    q->started = q->did_act = q->did_pre = false;
    d->stat[TM_DS_N_REQ]++;
    if (d->fifo || d->simple) {
        d->ring[(d->ring_head + d->ring_n) % d->ring_cap] = i;
        d->ring_n++;
        d->nq[0]++;
        return;
    }
    int l = d->sepwq && r->write ? 1 : 0;
    struct dbank *b = &d->bank[q->r.bk];
    if (b->qt[l] == NONE)
        b->qh[l] = i;
    else
        d->pool[b->qt[l]].next = i;
    b->qt[l] = i;
    d->nq[l]++;
}

static void free_req(struct tm_dram *d, uint32_t i)
{
    d->pool[i].next = d->free_head;
    d->free_head = i;
}

/* Remove pool entry i from bank b's list l (prev = its predecessor or NONE). */
static void unlink_req(struct tm_dram *d, struct dbank *b, int l, uint32_t prev, uint32_t i)
{
    uint32_t nx = d->pool[i].next;
    if (prev == NONE)
        b->qh[l] = nx;
    else
        d->pool[prev].next = nx;
    if (b->qt[l] == i)
        b->qt[l] = prev;
    d->pool[i].next = NONE;
    d->nq[l]--;
}

/* FR-FCFS pick from bank b's list l: the oldest request to the open row, else the oldest. */
static void pick(struct tm_dram *d, uint32_t bk, int l)
{
    struct dbank *b = &d->bank[bk];
    uint32_t prev = NONE, sel = NONE, selprev = NONE;
    if (b->open)
        for (uint32_t i = b->qh[l]; i != NONE; prev = i, i = d->pool[i].next)
            if (d->pool[i].r.row == b->row) {
                sel = i;
                selprev = prev;
                break;
            }
    if (sel == NONE) {
        sel = b->qh[l];
        selprev = NONE;
    }
    if (sel == NONE)
        return;
    unlink_req(d, b, l, selprev, sel);
    b->cur = sel;
    d->active++;
}

static void assign(struct tm_dram *d)
{
    if (d->fifo) {
        while (d->ring_n) {
            uint32_t i = d->ring[d->ring_head];
            struct dbank *b = &d->bank[d->pool[i].r.bk];
            if (b->cur != NONE)
                break;
            b->cur = i;
            d->active++;
            d->ring_head = (d->ring_head + 1) % d->ring_cap;
            d->ring_n--;
            d->nq[0]--;
        }
        return;
    }
    int l = 0;
    if (d->sepwq) {
        if (!d->write_mode && d->nq[1] >= d->wq_hi)
            d->write_mode = true;
        else if (d->write_mode && (d->nq[1] < d->wq_lo || d->nq[1] == 0))
            d->write_mode = false;
        l = d->write_mode || d->nq[0] == 0 ? 1 : 0;
    }
    if (!d->nq[l])
        return;
    for (uint32_t bk = 0; bk < d->nbk; bk++)
        if (d->bank[bk].cur == NONE && d->bank[bk].qh[l] != NONE)
            pick(d, bk, l);
}

static uint64_t ready_at(const struct tm_dram *d, uint32_t bk, int c)
{
    uint64_t r = d->bank_ready[bk][c];
    uint64_t g = d->grp_ready[bk / d->bpg][c];
    if (g > r)
        r = g;
    return d->chan_ready[c] > r ? d->chan_ready[c] : r;
}

static void raise_to(uint64_t *slot, uint64_t v)
{
    if (v > *slot)
        *slot = v;
}

/* Record command c on bank bk at cycle now in the earliest-cycle rows. */
static void constrain(struct tm_dram *d, uint32_t bk, int c)
{
    uint32_t g = bk / d->bpg;
    for (int n = 0; n < C__N; n++) {
        raise_to(&d->bank_ready[bk][n], d->now + d->T[c][n][SC_BANK]);
        raise_to(&d->grp_ready[g][n], d->now + d->T[c][n][SC_GROUP]);
        raise_to(&d->chan_ready[n], d->now + d->T[c][n][SC_CHAN]);
    }
}

static bool issue_col(struct tm_dram *d)
{
    if (d->ref_pending || !d->active)
        return false;
    uint32_t best = NONE;
    for (uint32_t bk = 0; bk < d->nbk; bk++) {
        struct dbank *b = &d->bank[bk];
        if (b->cur == NONE || !b->open)
            continue;
        struct dreq *q = &d->pool[b->cur];
        if (q->r.row != b->row)
            continue;
        int c = q->r.write ? C_WR : C_RD;
        if (ready_at(d, bk, c) > d->now)
            continue;
        if (c == C_RD && !q->started && d->ret_n + d->ret_reserved >= d->ret_cap)
            continue;
        if (best == NONE || q->seq < d->pool[d->bank[best].cur].seq)
            best = bk;
    }
    if (best == NONE)
        return false;
    struct dbank *b = &d->bank[best];
    uint32_t i = b->cur;
    struct dreq *q = &d->pool[i];
    int c = q->r.write ? C_WR : C_RD;
    constrain(d, best, c);
    d->stat[c == C_RD ? TM_DS_N_RD : TM_DS_N_WR]++;
    d->stat[TM_DS_BUS_BUSY] += d->blc;
    if (d->last_col >= 0 && d->last_col != c)
        d->stat[TM_DS_RW_TURNAROUND]++;
    d->last_col = c;
    if (!q->started) {
        q->started = true;
        d->stat[!q->did_act ? TM_DS_ROW_HIT : q->did_pre ? TM_DS_ROW_CONFLICT : TM_DS_ROW_MISS]++;
        if (c == C_RD)
            d->ret_reserved++;
    }
    if (--q->atoms == 0) {
        if (c == C_RD) {
            d->ret_reserved--;
            struct rentry *e = &d->ret[(d->ret_head + d->ret_n) % d->ret_cap];
            e->r = q->r;
            e->accept = q->accept;
            e->done = d->now + d->CL + d->blc;
            d->ret_n++;
        }
        b->cur = NONE;
        d->active--;
        free_req(d, i);
    }
    return true;
}

static bool issue_row(struct tm_dram *d)
{
    if (d->ref_pending) {
        bool all_closed = true;
        for (uint32_t bk = 0; bk < d->nbk; bk++) {
            struct dbank *b = &d->bank[bk];
            if (!b->open)
                continue;
            all_closed = false;
            if (ready_at(d, bk, C_PRE) <= d->now) {
                constrain(d, bk, C_PRE);
                b->open = false;
                d->stat[TM_DS_N_PRE]++;
                return true;
            }
        }
        if (!all_closed)
            return false;
        for (uint32_t bk = 0; bk < d->nbk; bk++)
            if (ready_at(d, bk, C_REF) > d->now)
                return false;
        /* REF: every bank waits tRFC (the channel row of the table) */
        for (int n = 0; n < C__N; n++)
            raise_to(&d->chan_ready[n], d->now + d->T[C_REF][n][SC_BANK]);
        d->stat[TM_DS_N_REF]++;
        d->ref_pending = false;
        d->ref_due += d->tREFI;
        return true;
    }
    if (!d->active)
        return false;
    uint32_t best = NONE;
    int bestc = 0;
    for (uint32_t bk = 0; bk < d->nbk; bk++) {
        struct dbank *b = &d->bank[bk];
        if (b->cur == NONE)
            continue;
        struct dreq *q = &d->pool[b->cur];
        int c;
        if (!b->open)
            c = C_ACT;
        else if (b->row != q->r.row)
            c = C_PRE;
        else
            continue;
        if (ready_at(d, bk, c) > d->now)
            continue;
        if (best == NONE || q->seq < d->pool[d->bank[best].cur].seq) {
            best = bk;
            bestc = c;
        }
    }
    if (best == NONE)
        return false;
    struct dbank *b = &d->bank[best];
    struct dreq *q = &d->pool[b->cur];
    constrain(d, best, bestc);
    if (bestc == C_ACT) {
        b->open = true;
        b->row = q->r.row;
        q->did_act = true;
        d->stat[TM_DS_N_ACT]++;
    } else {
        b->open = false;
        q->did_pre = true;
        d->stat[TM_DS_N_PRE]++;
    }
    return true;
}

/* The simple model: start the oldest request when the data bus is free. */
static bool simple_cycle(struct tm_dram *d)
{
    if (!d->ring_n || d->bus_free > d->now)
        return false;
    uint32_t i = d->ring[d->ring_head];
    struct dreq *q = &d->pool[i];
    if (!q->r.write && d->ret_n >= d->ret_cap)
        return false;
    uint64_t busy = ((uint64_t)q->atoms * d->blc + d->mult - 1) / d->mult;
    if (!busy)
        busy = 1;
    d->bus_free = d->now + busy;
    d->stat[q->r.write ? TM_DS_N_WR : TM_DS_N_RD] += q->atoms;
    d->stat[TM_DS_BUS_BUSY] += busy;
    if (!q->r.write) {
        struct rentry *e = &d->ret[(d->ret_head + d->ret_n) % d->ret_cap];
        e->r = q->r;
        e->accept = q->accept;
        e->done = d->now + d->tRCD + d->CL + busy;
        d->ret_n++;
    }
    d->ring_head = (d->ring_head + 1) % d->ring_cap;
    d->ring_n--;
    d->nq[0]--;
    free_req(d, i);
    return true;
}

/* One command-clock cycle; see the file comment for its steps. */
void tm_dram_cycle(struct tm_dram *d)
{
    bool work = d->nq[0] || d->nq[1] || d->active || d->ret_reserved || d->ret_done < d->ret_n;
    bool issued = false;
    if (d->now >= d->ref_due)
        d->ref_pending = true;
    if (d->simple) {
        issued = simple_cycle(d);
    } else if (work || d->ref_pending) {
        assign(d);
        bool col = issue_col(d);
        bool row = (d->dual || !col) ? issue_row(d) : false;
        issued = col || row;
    }
    d->stat[TM_DS_N_CMD]++;
    if (!issued)
        d->stat[TM_DS_N_NOP]++;
    if (work)
        d->stat[TM_DS_N_ACTIVITY]++;
    d->stat[TM_DS_QUEUE_SUM] += d->nq[0] + d->nq[1];
    /* data whose burst ends with this cycle becomes visible */
    while (d->ret_done < d->ret_n) {
        const struct rentry *e = &d->ret[(d->ret_head + d->ret_done) % d->ret_cap];
        if (e->done > d->now + 1)
            break;
        d->stat[TM_DS_LAT_SUM] += e->done - e->accept;
        d->ret_done++;
    }
    d->now++;
}

/* The oldest returned read, or NULL. */
const struct tm_dram_req *tm_dram_peek(const struct tm_dram *d)
{
    return d->ret_done ? &d->ret[d->ret_head].r : NULL;
}

/* Remove the oldest returned read. */
void tm_dram_pop(struct tm_dram *d)
{
    if (!d->ret_done)
        return;
    d->ret_head = (d->ret_head + 1) % d->ret_cap;
    d->ret_n--;
    d->ret_done--;
}

/* Anything queued, in service, in flight or waiting to be popped? */
bool tm_dram_busy(const struct tm_dram *d)
{
    return d->nq[0] || d->nq[1] || d->active || d->ret_reserved || d->ret_n;
}

void tm_dram_idle_cycles(struct tm_dram *d, uint64_t n)
{
    while (n) {
        if (tm_dram_busy(d) || d->ref_pending || d->now >= d->ref_due) {
            tm_dram_cycle(d);
            n--;
            continue;
        }
        /* idle: a cycle issues nothing (a NOP) and only counts, until the refresh is due */
        uint64_t k = d->ref_due - d->now;
        if (k > n)
            k = n;
        d->stat[TM_DS_N_CMD] += k;
        d->stat[TM_DS_N_NOP] += k;
        d->now += k;
        n -= k;
    }
}

bool tm_dram_idle_tick(struct tm_dram *d)
{
    if (tm_dram_busy(d) || d->ref_pending || d->now >= d->ref_due)
        return false;
    d->stat[TM_DS_N_CMD]++;
    d->stat[TM_DS_N_NOP]++;
    d->now++;
    return true;
}

uint64_t tm_dram_idle_room(const struct tm_dram *d)
{
    if (tm_dram_busy(d) || d->ref_pending || d->now >= d->ref_due)
        return 0;
    return d->ref_due == UINT64_MAX ? UINT64_MAX : d->ref_due - d->now;
}

/* Counters since creation. */
const uint64_t *tm_dram_stats(const struct tm_dram *d) { return d->stat; }

/* GPGPU-Sim's names of the counters. */
const char *tm_dram_stat_name(enum tm_dram_stat s)
{
    static const char *const names[TM_DS__COUNT] = {
        [TM_DS_N_CMD] = "n_cmd",
        [TM_DS_N_NOP] = "n_nop",
        [TM_DS_N_ACTIVITY] = "n_activity",
        [TM_DS_N_ACT] = "n_act",
        [TM_DS_N_PRE] = "n_pre",
        [TM_DS_N_REF] = "n_ref",
        [TM_DS_N_REQ] = "n_req",
        [TM_DS_N_RD] = "n_rd",
        [TM_DS_N_WR] = "n_wr",
        [TM_DS_BUS_BUSY] = "bwutil",
        [TM_DS_ROW_HIT] = "row_buffer_hits",
        [TM_DS_ROW_MISS] = "row_buffer_misses",
        [TM_DS_ROW_CONFLICT] = "row_buffer_conflicts",
        [TM_DS_RW_TURNAROUND] = "rw_turnarounds",
        [TM_DS_QUEUE_SUM] = "ave_mrqs",
        [TM_DS_LAT_SUM] = "dram_latency_sum",
    };
    return (unsigned)s < TM_DS__COUNT ? names[s] : "?";
}
