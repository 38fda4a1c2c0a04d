/*
 * timing/mem.c — the memory system behind the SMs (issue 22): interconnect, memory
 * sub-partitions (ROP delay, L2 slice, the four partition queues), DRAM channels. See mem.h
 * for the path of a request.
 */
#include "timing/mem.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "timing/addrdec.h"
#include "timing/cache.h"
#include "timing/dram.h"
#include "timing/icnt.h"
#include "timing/sample.h"
#include "timing/tm_int.h"

/* L2 access types and outcomes (GPGPU-Sim's L2_cache_stats_breakdown rows and columns). */
enum { AT_GLOBAL_R, AT_LOCAL_R, AT_GLOBAL_W, AT_LOCAL_W, AT_L1_WRBK, AT_INST_R, AT_ATOMIC,
       AT__COUNT };
enum { AO_HIT, AO_HIT_RESERVED, AO_MISS, AO_RESFAIL, AO__COUNT };
static const char *const at_name[AT__COUNT] = {"GLOBAL_ACC_R", "LOCAL_ACC_R", "GLOBAL_ACC_W",
                                               "LOCAL_ACC_W", "L1_WRBK_ACC", "INST_ACC_R",
                                               "ATOMIC_ACC"};
static const char *const ao_name[AO__COUNT] = {"HIT", "HIT_RESERVED", "MISS",
                                               "RESERVATION_FAIL"};

/* Per sub-partition counters beyond the breakdown. */
enum {
    PS_REQ,          /* requests that reached the slice */
    PS_READ_REPLIES, /* read / atomic / fetch replies sent */
    PS_WRITE_ACKS,
    PS_LAT_REQ,      /* sum over read replies: SM → slice cycles (network + queues) */
    PS_LAT_PART,     /* sum over read replies: slice arrival → reply leaving (ROP, L2, DRAM) */
    PS_LAT_TOTAL,    /* sum over read replies delivered to an SM: sent → delivered */
    PS_DRAM_RD_SECT, /* sectors read from DRAM for this slice */
    PS_DRAM_WR_SECT,
    PS_STALL_ICNT_L2,/* cycles a request waited: ROP queue full */
    PS_STALL_L2_DRAM,/* cycles the L2 miss queue waited: L2→DRAM queue full */
    PS_STALL_L2_ICNT,/* cycles a reply waited: L2→icnt queue full */
    PS_DATA_PORT,    /* L2 cycles the data port was taken (hits, write-backs of misses) */
    PS_FILL_PORT,    /* L2 cycles the fill port was taken (fills from DRAM) */
    PS_STALL_DATA_PORT, /* L2 cycles a request waited for the data port */
    PS_STALL_FILL_PORT, /* L2 cycles a DRAM reply waited for the fill port */
    PS_LRC_MERGED,   /* reads the load request coalescer answered with another's data */
    PS_STALL_LRC,    /* icnt cycles a read waited in the network: every coalescer entry taken */
    PS__COUNT
};
static const char *const ps_name[PS__COUNT] = {
    "requests", "read_replies", "write_acks", "lat_req_sum", "lat_partition_sum",
    "lat_total_sum", "dram_read_sectors", "dram_write_sectors", "stall_icnt_to_l2_full",
    "stall_l2_to_dram_full", "stall_l2_to_icnt_full", "data_port_cycles", "fill_port_cycles",
    "stall_data_port", "stall_fill_port", "lrc_merged", "stall_lrc_full"};

/* Per sub-partition counters of the chiplet model (-gpgpu_n_chiplet_partition 2; Accel-Sim's
 * names where it has them), printed only with chiplets. */
enum {
    CP_RD_REQ,    /* L2 misses sent to the peer slice (owned by the other chiplet) */
    CP_RD_SECT,   /* their sectors */
    CP_WR_REQ,    /* write forwards (tag updates) sent to the peer slice */
    CP_QFULL,     /* L2 cycles a miss for the peer waited: request queue full */
    CP_WFAIL,     /* L2 cycles a write waited: request queue full (no room for its forward) */
    CP_WDROP,     /* write forwards dropped: request queue full */
    CP_PEER_RD,   /* requests from the peer slice this slice's L2 accepted */
    CP_PEER_WR,   /* write forwards from the peer applied to this slice's tags */
    CP_REP,       /* replies sent back to the peer slice */
    CP_REP_SECT,  /* their sectors */
    CP_REP_FULL,  /* icnt cycles a reply waited: reply queue full */
    CP_FILL,      /* replies from the peer into this slice's fill path (DRAM->L2 queue) */
    CP_FILL_WAIT, /* L2 cycles such a reply waited: DRAM->L2 queue full */
    CP_LAT,       /* sum over them: core cycles from the miss leaving to the reply arriving */
    CP__COUNT
};
static const char *const cp_name[CP__COUNT] = {
    "interchip_read_requests", "interchip_read_sectors", "interchip_write_requests",
    "chiplet_queue_full", "chiplet_write_fail", "chiplet_write_forward_dropped",
    "chiplet_peer_reads", "chiplet_peer_write_forwards", "chiplet_replies",
    "chiplet_reply_sectors", "chiplet_reply_queue_full", "chiplet_fills", "chiplet_fill_wait",
    "chiplet_latency_sum"};

#define CP_BASE (AT__COUNT * AO__COUNT + TM_CS__COUNT + PS__COUNT)
#define SLICE_NST (CP_BASE + CP__COUNT)

struct subpart {
    uint32_t id, chip;            /* chip: its DRAM channel */
    uint32_t chiplet, peer;       /* with chiplets: its chiplet, the slice of the same local
                                     index on the other chiplet */
    /* with chiplets: latency queues to the peer slice (t_ready: when the
     * -inter_chiplet_queue_latency ends), written by this slice, drained by the peer: its
     * misses and write forwards, and the replies to the peer's misses */
    struct tm_queue cq_req, cq_rep;
    struct tm_cache *l2;          /* NULL: no L2 (-gpgpu_cache:dl2 none) */
    struct tm_queue icnt_l2;      /* t_ready: when the ROP delay ends */
    struct tm_queue l2_dram;      /* t_ready: when -dram_latency ends */
    struct tm_queue dram_l2;
    struct tm_queue l2_icnt;
    /* requests waiting in the L2's MSHRs (token = index) */
    struct tm_req *pend;
    uint32_t *pfree;
    uint32_t npfree, pcap;
    /* the L2's data and fill ports (GPGPU-Sim's bandwidth_management): the L2 cycle (tm_mem's
     * l2_now) from which each is free again */
    uint64_t data_free, fill_free;
    /* the load request coalescer (-gpgpu_lrc_enabled): entries [lrc_cap], free list, the
     * requests merged into each (pend indices, lrc_max - 1 per entry), the line -> open
     * entry table (open addressing, linear probing, index + 1, 0 empty) */
    struct lrc_ent *lrc;
    uint32_t *lrc_free, *lrc_mrg, *lrc_tab;
    uint32_t lrc_nfree, lrc_tmask;
    uint64_t st[SLICE_NST];
};

/* A load request coalescer entry: the line and sectors its leader (the read sent on to the
 * L2) asked for, the reads merged into it, and whether it still takes reads (open: the
 * leader's reply not yet queued) and how many of the replies have entered the network. */
struct lrc_ent {
    uint64_t addr;
    uint8_t sectors;
    bool open;
    uint16_t n;    /* merged reads (the leader not counted) */
    uint16_t sent; /* replies in the network: the leader first, then the merged ones */
};

struct tm_mem {
    const struct tm_config *cfg;
    uint32_t n_sm, n_mem, n_sub, nsp;
    struct tm_addrdec ad;
    struct tm_icnt *icnt;
    struct subpart *sp;           /* [nsp] */
    struct tm_dram **dram;        /* [n_mem] */
    uint32_t *dram_rr;            /* [n_mem]: sub-partition to take from first */
    uint64_t rop_lat, dram_lat;
    uint64_t req_delay;           /* relaxed mode (-ptxemu_timing_relaxed): core cycles a request
                                     waits in its SM's queue before the network may take it (the
                                     quantum: the SMs run it after the memory system) */
    uint64_t rop_cut;             /* the part of it taken off the ROP delay (rop_lat is the rest) */
    bool ovl;                     /* relaxed or lookahead, overlapped with the SMs (relax_ovl):
                                     req_delay is two windows, the SMs' queues are to_net and
                                     net_rep (struct tm_sm) */
    uint64_t l2_now;              /* L2 clock edges stepped (the ports' time) */
    uint32_t port_w;              /* the dl2 string's data port width, bytes per L2 cycle */
    uint32_t lrc_cap, lrc_max;    /* -gpgpu_lrc_max_entries, _max_merged (0: no coalescer) */
    bool l2_ideal;
    /* chiplets (-gpgpu_n_chiplet_partition 2; nchip 1: off): slices per chiplet, the
     * inter-chiplet queues' latency (core cycles), the owner and partition strides, the
     * slice rule (-gpgpu_chiplet_interleave) and each SM's chiplet */
    uint32_t nchip, spc, cq_cap;
    uint64_t cq_lat, mem_stride, part_stride;
    bool part_inter;
    uint8_t *sm_chip;             /* [n_sm] */
    bool l2_tex_only;             /* -gpgpu_cache:dl2_texture_only 1: global, local, constant
                                     and instruction accesses bypass the L2 slices, texture
                                     fetches (SP_TEX) go through them */
    /* profiles whose per-line L2/DRAM counters the requests' line ids name */
    struct tm_prof *prof[TM_MEM_MAXPROF];
    uint32_t nprof;
    uint32_t next_line;           /* the next free GPU-wide line id (0 means none) */
    /* which components may have work (issue 24 item 3), so that each phase visits only those
     * (one byte each, not bits of a shared word: a range of channels, tm_mem_*_cycle_range,
     * writes only its own, and ranges run on several threads at once). sp_act: sub-partitions
     * whose ROP queue, DRAM-return queue or L2 may be busy (set when a request or fill enters
     * them and when the L2 is warmed or invalidated, cleared when the L2 phase finds them
     * idle); sp_rep: sub-partitions with replies queued for the network; dram_awake: the DRAM
     * channels stepped each DRAM cycle. A channel the DRAM phase finds idle with nothing
     * queued for it sleeps until a request is queued for it or its next refresh is due (after
     * dram_room[c] DRAM cycles; UINT64_MAX: none); the idle cycles it skipped (dram_skip[c])
     * are counted when it wakes, and added to its counters when they are read before
     * (tm_mem_snapshot). */
    uint8_t *sp_act, *sp_rep, *dram_awake;
    uint64_t *dram_skip, *dram_room;
};

/* Wake DRAM channel c (no-op when awake): count the idle cycles it skipped. */
static void dram_wake(struct tm_mem *m, uint32_t c)
{
    if (m->dram_awake[c])
        return;
    tm_dram_idle_cycles(m->dram[c], m->dram_skip[c]);
    m->dram_awake[c] = 1;
}

/* The per-instruction counters of line id `line` (a request's), or NULL. A handful of
 * profiles at most: a linear search, done only for requests that carry a line. */
static uint64_t *line_row(const struct tm_mem *m, uint32_t line)
{
    for (uint32_t i = 0; line && i < m->nprof; i++) {
        const struct tm_prof *p = m->prof[i];
        if (line - p->line0 < tm_prof_rows(p))
            return &p->pc[(size_t)(line - p->line0) * TM_PC__COUNT];
    }
    return NULL;
}

void tm_mem_prof_attach(struct tm_mem *m, struct tm_prof *p)
{
    uint32_t n = tm_prof_rows(p);
    if (!m || !n || m->nprof == TM_MEM_MAXPROF)
        return;
    if (m->next_line == 0 || m->next_line > UINT32_MAX - n)
        m->next_line = 1; /* wrapped (after 4 G lines): ids restart; none of them in use */
    p->line0 = m->next_line;
    m->next_line += n;
    m->prof[m->nprof++] = p;
}

void tm_mem_prof_detach(struct tm_mem *m, struct tm_prof *p)
{
    for (uint32_t i = 0; m && p && i < m->nprof; i++)
        if (m->prof[i] == p) {
            m->prof[i] = m->prof[--m->nprof];
            p->line0 = 0;
            return;
        }
}

/* ====================================================================== helpers */

static inline uint32_t popc8(uint8_t v) { return (uint32_t)__builtin_popcount(v); }

static uint32_t popc_mask(const uint64_t m[2])
{
    return (uint32_t)(__builtin_popcountll(m[0]) + __builtin_popcountll(m[1]));
}

/* Bytes a packet occupies on the network (GPGPU-Sim: 8-byte header; data only where it
 * travels). */
static uint32_t req_bytes(const struct tm_req *r)
{
    switch (r->kind) {
    case TM_REQ_WRITE: {
        uint32_t n = popc_mask(r->bmask);
        return 8 + (n ? n : r->bytes);
    }
    case TM_REQ_ATOMIC:
        return 8 + r->bytes;
    default:
        return 8;
    }
}

static uint32_t reply_bytes(const struct tm_req *r)
{
    switch (r->kind) {
    case TM_REQ_WRITE:
        return 8;
    case TM_REQ_ATOMIC:
        return 8 + r->bytes;
    default:
        return 8 + 32 * popc8(r->sectors);
    }
}

static uint32_t access_type(const struct tm_req *r)
{
    bool local = r->space == SP_LOCAL;
    switch (r->kind) {
    case TM_REQ_FETCH:
        return AT_INST_R;
    case TM_REQ_ATOMIC:
        return AT_ATOMIC;
    case TM_REQ_WRITE:
        if (r->flags & TM_RQF_WRITEBACK)
            return AT_L1_WRBK;
        return local ? AT_LOCAL_W : AT_GLOBAL_W;
    default:
        return local ? AT_LOCAL_R : AT_GLOBAL_R;
    }
}

static int pend_alloc(struct subpart *p, const struct tm_req *r, uint32_t *idx)
{
    if (!p->npfree) {
        uint32_t nc = p->pcap ? p->pcap * 2 : 256;
        struct tm_req *np = realloc(p->pend, nc * sizeof *np);
        if (!np)
            return -ENOMEM;
        p->pend = np;
        uint32_t *nf = realloc(p->pfree, nc * sizeof *nf);
        if (!nf)
            return -ENOMEM;
        p->pfree = nf;
        for (uint32_t i = nc; i > p->pcap; i--)
            p->pfree[p->npfree++] = i - 1;
        p->pcap = nc;
    }
    *idx = p->pfree[--p->npfree];
    p->pend[*idx] = *r;
    return 0;
}

static inline void pend_free(struct subpart *p, uint32_t idx) { p->pfree[p->npfree++] = idx; }

/* ====================================================================== create / destroy */

static int queue_depth(const char *spec, int k, uint32_t dflt)
{
    /* "-gpgpu_dram_partition_queues a:b:c:d" */
    const char *s = spec;
    for (int i = 0; s && i < k; i++) {
        s = strchr(s, ':');
        if (s)
            s++;
    }
    if (!s || !*s)
        return (int)dflt;
    char *e;
    long v = strtol(s, &e, 10);
    if (e == s || v <= 0)
        return (int)dflt;
    return (int)v;
}

/*
 * The chiplet options (-gpgpu_n_chiplet_partition and the rest). Accel-Sim's model, whose
 * write forwarding assumes a pair (it flips the chiplet id), is for 1 or 2 chiplets; channels
 * are split evenly: channel c (and its slices) is in chiplet c / (channels / chiplets), SM i
 * in chiplet (i's cluster) x chiplets / clusters (the first half of the clusters on chiplet
 * 0, as -ptxemu_icnt_gpc_interleave 0 puts the first half of the GPCs near L2 partition 0).
 */
static int chiplet_setup(struct tm_mem *m, const struct tm_config *cfg, char *err,
                         size_t errlen)
{
    const struct tm_options *o = &cfg->o;
    m->nchip = 1;
    m->spc = m->nsp;
    if (o->gpgpu_n_chiplet_partition == 1)
        return 0;
    if (o->gpgpu_n_chiplet_partition != 2) {
        snprintf(err, errlen, "-gpgpu_n_chiplet_partition %lld: 1 or 2 chiplets (Accel-Sim's "
                              "write forwarding pairs them)",
                 (long long)o->gpgpu_n_chiplet_partition);
        return -EINVAL;
    }
    if (m->n_mem % 2) {
        snprintf(err, errlen, "-gpgpu_n_chiplet_partition 2: -gpgpu_n_mem %u channels do not "
                              "split over 2 chiplets", m->n_mem);
        return -EINVAL;
    }
    if (o->chiplet_mem_stride < 1 || o->chiplet_partition_stride < 1) {
        snprintf(err, errlen, "-chiplet_mem_stride %lld / -chiplet_partition_stride %lld: "
                              "strides are positive byte counts",
                 (long long)o->chiplet_mem_stride, (long long)o->chiplet_partition_stride);
        return -EINVAL;
    }
    if (o->inter_chiplet_queue_size < 1 || o->inter_chiplet_queue_size > 65536 ||
        o->inter_chiplet_queue_latency < 0 || o->inter_chiplet_queue_latency > 1000000) {
        snprintf(err, errlen, "-inter_chiplet_queue_size %lld (1…65536) / "
                              "-inter_chiplet_queue_latency %lld (0…1000000 cycles)",
                 (long long)o->inter_chiplet_queue_size,
                 (long long)o->inter_chiplet_queue_latency);
        return -EINVAL;
    }
    if (o->gpgpu_chiplet_interleave != 0 && o->gpgpu_chiplet_interleave != 1) {
        snprintf(err, errlen, "-gpgpu_chiplet_interleave %lld: 0 (the SM's chiplet) or 1 "
                              "(by -chiplet_partition_stride)",
                 (long long)o->gpgpu_chiplet_interleave);
        return -EINVAL;
    }
    m->nchip = 2;
    m->spc = m->nsp / 2;
    m->cq_cap = (uint32_t)o->inter_chiplet_queue_size;
    m->cq_lat = (uint64_t)o->inter_chiplet_queue_latency;
    m->mem_stride = (uint64_t)o->chiplet_mem_stride;
    m->part_stride = (uint64_t)o->chiplet_partition_stride;
    m->part_inter = o->gpgpu_chiplet_interleave == 1;
    m->sm_chip = calloc(m->n_sm ? m->n_sm : 1, 1);
    if (!m->sm_chip)
        return -ENOMEM;
    uint64_t ncl = o->gpgpu_n_clusters > 0 ? (uint64_t)o->gpgpu_n_clusters : 1;
    uint64_t per = o->gpgpu_n_cores_per_cluster > 0 ? (uint64_t)o->gpgpu_n_cores_per_cluster : 1;
    for (uint32_t i = 0; i < m->n_sm; i++) {
        uint64_t cl = i / per;
        m->sm_chip[i] = (uint8_t)(cl < ncl ? cl * 2 / ncl : 1);
    }
    return 0;
}

/* With chiplets: the chiplet that owns address a's memory (its DRAM home). */
static inline uint32_t chiplet_owner(const struct tm_mem *m, uint64_t a)
{
    return (uint32_t)((a / m->mem_stride) % m->nchip);
}

/* The slice a request of SM `sm` for address a goes to, subp being the decoded one: without
 * chiplets subp; with them the slice of subp's local index (subp mod slices per chiplet) on
 * the SM's chiplet (-gpgpu_chiplet_interleave 0) or on chiplet (a / -chiplet_partition_stride)
 * mod chiplets (1). sm = UINT32_MAX: the owner's chiplet (for 0; host copies). */
static inline uint32_t chiplet_slice(const struct tm_mem *m, uint32_t sm, uint64_t a,
                                     uint32_t subp)
{
    subp %= m->nsp;
    if (m->nchip < 2)
        return subp;
    uint32_t c = m->part_inter        ? (uint32_t)((a / m->part_stride) % m->nchip)
                 : sm == UINT32_MAX ? chiplet_owner(m, a)
                                    : m->sm_chip[sm];
    return c * m->spc + subp % m->spc;
}

int tm_mem_create(struct tm_mem **out, const struct tm_config *cfg, uint32_t n_sm,
                  const char *base_dir, char *err, size_t errlen)
{
    struct tm_mem *m = calloc(1, sizeof *m);
    if (!m)
        return -ENOMEM;
    m->cfg = cfg;
    m->n_sm = n_sm;
    m->n_mem = cfg->o.gpgpu_n_mem > 0 ? (uint32_t)cfg->o.gpgpu_n_mem : 1;
    m->n_sub = cfg->o.gpgpu_n_sub_partition_per_mchannel > 0
                   ? (uint32_t)cfg->o.gpgpu_n_sub_partition_per_mchannel
                   : 1;
    m->nsp = m->n_mem * m->n_sub;
    m->rop_lat = cfg->o.gpgpu_l2_rop_latency > 0 ? (uint64_t)cfg->o.gpgpu_l2_rop_latency : 0;
    /* (the lookahead mode with the memory system overlapped: the SMs' window [T, T+W) runs
     * while the memory system runs [T+W, T+2W), so a request is seen two windows late) */
    m->ovl = cfg->relax_ovl;
    m->req_delay = m->ovl ? 2 * (uint64_t)cfg->relax_q : cfg->relax_q;
    m->rop_cut = m->req_delay < m->rop_lat ? m->req_delay : m->rop_lat;
    m->rop_lat -= m->rop_cut;
    m->dram_lat = cfg->o.dram_latency > 0 ? (uint64_t)cfg->o.dram_latency : 0;
    m->l2_ideal = cfg->o.l2_ideal != 0;
    m->l2_tex_only = cfg->o.gpgpu_cache_dl2_texture_only != 0;
    m->port_w = cfg->l2.data_port_width ? cfg->l2.data_port_width : 32;
    if (cfg->o.gpgpu_lrc_enabled && cfg->o.gpgpu_lrc_max_entries > 0 &&
        cfg->o.gpgpu_lrc_max_merged > 0) {
        m->lrc_cap = (uint32_t)cfg->o.gpgpu_lrc_max_entries;
        m->lrc_max = (uint32_t)cfg->o.gpgpu_lrc_max_merged;
        if (m->lrc_cap > 65535)
            m->lrc_cap = 65535; /* (tm_req.lrc holds an entry's index + 1 in 16 bits) */
    }
    int r = tm_addrdec_init(&m->ad, cfg, err, errlen);
    if (r)
        goto fail;
    r = chiplet_setup(m, cfg, err, errlen);
    if (r)
        goto fail;
    r = tm_icnt_create(&m->icnt, cfg, n_sm, m->nsp, base_dir, err, errlen);
    if (r)
        goto fail;
    m->sp = calloc(m->nsp, sizeof *m->sp);
    m->dram = calloc(m->n_mem, sizeof *m->dram);
    m->dram_rr = calloc(m->n_mem, sizeof *m->dram_rr);
    m->sp_act = malloc(m->nsp ? m->nsp : 1);
    m->sp_rep = calloc(m->nsp ? m->nsp : 1, 1);
    m->dram_awake = malloc(m->n_mem ? m->n_mem : 1);
    m->dram_skip = calloc(m->n_mem ? m->n_mem : 1, sizeof *m->dram_skip);
    m->dram_room = calloc(m->n_mem ? m->n_mem : 1, sizeof *m->dram_room);
    if (!m->sp || !m->dram || !m->dram_rr || !m->sp_act || !m->sp_rep || !m->dram_awake ||
        !m->dram_skip || !m->dram_room) {
        r = -ENOMEM;
        goto fail;
    }
    memset(m->sp_act, 1, m->nsp);
    memset(m->dram_awake, 1, m->n_mem);
    const char *qs = cfg->o.gpgpu_dram_partition_queues;
    uint32_t q[4];
    for (int i = 0; i < 4; i++)
        q[i] = (uint32_t)queue_depth(qs, i, 8);
    for (uint32_t i = 0; i < m->nsp; i++) {
        struct subpart *p = &m->sp[i];
        p->id = i;
        p->chip = i / m->n_sub;
        p->chiplet = i / m->spc;
        p->peer = m->nchip > 1 ? ((p->chiplet ^ 1) * m->spc + i % m->spc) : i;
        if (cfg->l2.present && !m->l2_ideal) {
            r = tm_cache_create(&p->l2, &cfg->l2, "L2");
            if (r) {
                snprintf(err, errlen, "timing: -gpgpu_cache:dl2: a geometry the model cannot "
                                      "hold");
                goto fail;
            }
        }
        if (m->lrc_cap) {
            uint32_t tn = 4;
            while (tn < 2 * m->lrc_cap)
                tn *= 2;
            p->lrc = calloc(m->lrc_cap, sizeof *p->lrc);
            p->lrc_free = calloc(m->lrc_cap, sizeof *p->lrc_free);
            p->lrc_mrg = calloc((size_t)m->lrc_cap * (m->lrc_max > 1 ? m->lrc_max - 1 : 1),
                                sizeof *p->lrc_mrg);
            p->lrc_tab = calloc(tn, sizeof *p->lrc_tab);
            if (!p->lrc || !p->lrc_free || !p->lrc_mrg || !p->lrc_tab) {
                r = -ENOMEM;
                goto fail;
            }
            p->lrc_tmask = tn - 1;
            for (uint32_t e = m->lrc_cap; e > 0; e--)
                p->lrc_free[p->lrc_nfree++] = e - 1;
        }
        if (tm_queue_init(&p->icnt_l2, q[0]) || tm_queue_init(&p->l2_dram, q[1]) ||
            tm_queue_init(&p->dram_l2, q[2]) || tm_queue_init(&p->l2_icnt, q[3]) ||
            (m->nchip > 1 && (tm_queue_init(&p->cq_req, m->cq_cap) ||
                              tm_queue_init(&p->cq_rep, m->cq_cap)))) {
            r = -ENOMEM;
            goto fail;
        }
    }
    for (uint32_t c = 0; c < m->n_mem; c++) {
        r = tm_dram_create(&m->dram[c], cfg, c, err, errlen);
        if (r)
            goto fail;
    }
    *out = m;
    return 0;
fail:
    tm_mem_destroy(m);
    return r;
}

void tm_mem_destroy(struct tm_mem *m)
{
    if (!m)
        return;
    for (uint32_t i = 0; m->sp && i < m->nsp; i++) {
        struct subpart *p = &m->sp[i];
        tm_cache_destroy(p->l2);
        tm_queue_free(&p->icnt_l2);
        tm_queue_free(&p->l2_dram);
        tm_queue_free(&p->dram_l2);
        tm_queue_free(&p->l2_icnt);
        tm_queue_free(&p->cq_req);
        tm_queue_free(&p->cq_rep);
        free(p->pend);
        free(p->pfree);
        free(p->lrc);
        free(p->lrc_free);
        free(p->lrc_mrg);
        free(p->lrc_tab);
    }
    for (uint32_t c = 0; m->dram && c < m->n_mem; c++)
        tm_dram_destroy(m->dram[c]);
    free(m->sp);
    free(m->dram);
    free(m->dram_rr);
    free(m->sp_act);
    free(m->sp_rep);
    free(m->dram_awake);
    free(m->dram_skip);
    free(m->dram_room);
    free(m->sm_chip);
    tm_icnt_destroy(m->icnt);
    free(m);
}

/* ====================================================================== load request coalescer */

#define PS(p, k) ((p)->st[AT__COUNT * AO__COUNT + TM_CS__COUNT + (k)])
#define CP(p, k) ((p)->st[CP_BASE + (k)])

static inline uint32_t lrc_home(const struct subpart *p, uint64_t addr)
{
    return (uint32_t)((addr >> 7) * 0x9E3779B97F4A7C15ull >> 40) & p->lrc_tmask;
}

/* The slot of line `addr` in the line -> open entry table (its entry, or the empty slot where
 * it would go). */
static uint32_t lrc_slot(const struct subpart *p, uint64_t addr)
{
    uint32_t h = lrc_home(p, addr);
    while (p->lrc_tab[h] && p->lrc[p->lrc_tab[h] - 1].addr != addr)
        h = (h + 1) & p->lrc_tmask;
    return h;
}

/* Entry e no longer takes reads: out of the table (backward-shift deletion). */
static void lrc_close(struct subpart *p, uint32_t e)
{
    struct lrc_ent *x = &p->lrc[e];
    if (!x->open)
        return;
    x->open = false;
    uint32_t h = lrc_slot(p, x->addr);
    if (p->lrc_tab[h] != e + 1)
        return;
    p->lrc_tab[h] = 0;
    for (uint32_t j = (h + 1) & p->lrc_tmask; p->lrc_tab[j]; j = (j + 1) & p->lrc_tmask) {
        uint32_t k = lrc_home(p, p->lrc[p->lrc_tab[j] - 1].addr);
        bool stays = h <= j ? (h < k && k <= j) : (h < k || k <= j);
        if (!stays) { /* its probe sequence passes the hole: move it there */
            p->lrc_tab[h] = p->lrc_tab[j];
            p->lrc_tab[j] = 0;
            h = j;
        }
    }
}

/*
 * A read arriving at sub-partition p with the load request coalescer on (Accel-Sim's
 * L2RequestCoalescer, -gpgpu_lrc_*): merged into the line's open entry when that entry's
 * leader asked for every sector it wants and holds fewer than -gpgpu_lrc_max_merged reads
 * (leader included): answered with the leader's data, it never reaches the L2. Else it leads
 * a new entry (the line's open one from now on) and goes on; with every entry taken it waits
 * in the network. Returns 1 merged (q kept in the pending pool), 0 go on (q->lrc set), -1 wait.
 */
static int lrc_insert(struct tm_mem *m, struct subpart *p, struct tm_req *q)
{
    uint64_t la = q->addr & ~127ull;
    uint8_t sec = q->sectors ? q->sectors : 0xf;
    uint32_t h = lrc_slot(p, la);
    if (p->lrc_tab[h]) {
        uint32_t e = p->lrc_tab[h] - 1;
        struct lrc_ent *x = &p->lrc[e];
        uint32_t idx;
        if (!(sec & (uint8_t)~x->sectors) && x->n + 1u < m->lrc_max &&
            pend_alloc(p, q, &idx) == 0) {
            p->lrc_mrg[(size_t)e * (m->lrc_max - 1) + x->n++] = idx;
            PS(p, PS_LRC_MERGED)++;
            return 1;
        }
    }
    if (!p->lrc_nfree)
        return -1;
    if (p->lrc_tab[h]) {
        lrc_close(p, p->lrc_tab[h] - 1); /* a newer entry becomes the line's open one */
        h = lrc_slot(p, la);
    }
    uint32_t e = p->lrc_free[--p->lrc_nfree];
    p->lrc[e] = (struct lrc_ent){.addr = la, .sectors = sec, .open = true};
    p->lrc_tab[h] = e + 1;
    q->lrc = (uint16_t)(e + 1);
    return 0;
}

/* ====================================================================== interconnect phase */

/* Sub-partition i's node in the interconnect phase: a request out of the network (when net:
 * packets are in it) into the ROP queue, its next reply into the network. */
static void icnt_subpart(struct tm_mem *m, uint32_t i, bool net, uint64_t core_now)
{
    struct subpart *p = &m->sp[i];
    uint32_t node = m->n_sm + i;
    /* requests out of the network into the ROP queue */
    const struct tm_req *r = net ? tm_icnt_peek(m->icnt, node) : NULL;
    if (r) {
        if (tm_queue_full(&p->icnt_l2)) {
            p->st[AT__COUNT * AO__COUNT + TM_CS__COUNT + PS_STALL_ICNT_L2]++;
        } else {
            struct tm_req q = *r;
            q.t_ready = core_now + m->rop_lat;
            q.d_req = (uint32_t)(core_now - m->rop_cut - q.t_sent);
            q.t_part = core_now - m->rop_cut;
            q.lrc = 0;
            /* reads (not writes, atomics or write-backs) through the coalescer */
            int c = p->lrc && (q.kind == TM_REQ_READ || q.kind == TM_REQ_FETCH)
                        ? lrc_insert(m, p, &q)
                        : 0;
            if (c < 0) {
                PS(p, PS_STALL_LRC)++;
            } else {
                if (c == 0) {
                    tm_queue_push(&p->icnt_l2, &q);
                    m->sp_act[i] = 1;
                }
                tm_icnt_pop(m->icnt, node);
            }
        }
    }
    /* replies into the network, one per cycle: a coalescer entry's leader, then the reads
     * merged into it (the same data), then the entry is free; a reply to the peer slice's
     * miss (chiplets) into the reply queue to it instead */
    struct tm_req *rp = tm_queue_front(&p->l2_icnt);
    if (rp && (rp->flags & TM_RQF_CHIPLET)) {
        if (tm_queue_full(&p->cq_rep)) {
            CP(p, CP_REP_FULL)++;
        } else {
            struct tm_req q = *rp;
            q.t_ready = core_now + m->cq_lat;
            tm_queue_push(&p->cq_rep, &q);
            CP(p, CP_REP)++;
            CP(p, CP_REP_SECT) += popc8(q.sectors ? q.sectors : 0xf);
            m->sp_act[p->peer] = 1;
            tm_queue_pop(&p->l2_icnt);
            if (!p->l2_icnt.n)
                m->sp_rep[i] = 0;
        }
    } else if (rp) {
        struct lrc_ent *x = rp->lrc ? &p->lrc[rp->lrc - 1] : NULL;
        struct tm_req *snd = rp;
        if (x && x->sent) {
            snd = &p->pend[p->lrc_mrg[(size_t)(rp->lrc - 1) * (m->lrc_max - 1) + x->sent - 1]];
            snd->subp = (uint16_t)p->id;
        }
        uint32_t b = reply_bytes(snd);
        if (tm_icnt_can_push(m->icnt, node, b)) {
            tm_icnt_push(m->icnt, node, snd->sm, snd, b);
            if (snd != rp)
                pend_free(p, (uint32_t)(snd - p->pend));
            if (!x || x->sent++ == x->n) {
                if (x)
                    p->lrc_free[p->lrc_nfree++] = rp->lrc - 1u;
                tm_queue_pop(&p->l2_icnt);
                if (!p->l2_icnt.n)
                    m->sp_rep[i] = 0;
            }
        }
    }
}

void tm_mem_icnt_cycle(struct tm_mem *m, struct tm_sm *sms, uint64_t core_now)
{
    /* SMs inject one request each per cycle (the memory system's side of the queues when
     * overlapped with the SMs: to_net, net_rep; the SMs' own are not touched then) */
    for (uint32_t i = 0; i < m->n_sm; i++) {
        struct tm_sm *s = &sms[i];
        struct tm_queue *sq = m->ovl ? &s->to_net : &s->to_mem;
        const struct tm_req *r = tm_queue_front(sq);
        if (!r || r->t_sent + m->req_delay >= core_now) /* (relaxed: not yet) */
            continue;
        struct tm_addr a;
        tm_addrdec_decode(&m->ad, r->addr, &a);
        uint32_t b = req_bytes(r);
        if (!tm_icnt_can_push(m->icnt, i, b))
            continue;
        tm_icnt_push(m->icnt, i, m->n_sm + chiplet_slice(m, i, r->addr, a.subp), r, b);
        tm_queue_pop(sq);
    }
    const bool net = tm_icnt_busy(m->icnt); /* anything to take out of the network? */
    /* every sub-partition's node when packets are in the network, else the ones with replies */
    for (uint32_t i = 0; i < m->nsp; i++)
        if (net || m->sp_rep[i])
            icnt_subpart(m, i, net, core_now);
    /* replies out of the network into the SMs */
    for (uint32_t i = 0; i < m->n_sm && net; i++) {
        const struct tm_req *r = tm_icnt_peek(m->icnt, i);
        struct tm_queue *rq = m->ovl ? &sms[i].net_rep : &sms[i].from_mem;
        if (!r || rq->n + sms[i].rep_held >= sms[i].from_mem.cap)
            continue;
        struct tm_req q = *r;
        q.t_ready = core_now;
        if (q.kind != TM_REQ_WRITE && q.subp < m->nsp)
            m->sp[q.subp].st[AT__COUNT * AO__COUNT + TM_CS__COUNT + PS_LAT_TOTAL] +=
                core_now - q.t_sent;
        tm_queue_push(rq, &q);
        tm_icnt_pop(m->icnt, i);
    }
    tm_icnt_cycle(m->icnt);
}

/* ====================================================================== L2 phase */

/* Queue the reply to r (read data, or a write's acknowledgement) for the network. The caller
 * checked there is room. */
static void reply(const struct tm_mem *m, struct subpart *p, const struct tm_req *r,
                  uint64_t core_now)
{
    struct tm_req q = *r;
    q.subp = (uint16_t)p->id;
    if (q.flags & TM_RQF_CHIPLET) {
        /* (the peer slice's miss: counted there when its reply arrives) */
    } else if (q.kind == TM_REQ_WRITE) {
        PS(p, PS_WRITE_ACKS)++;
    } else {
        PS(p, PS_READ_REPLIES)++;
        PS(p, PS_LAT_REQ) += q.d_req;
        PS(p, PS_LAT_PART) += core_now - q.t_part;
    }
    if (q.lrc) {
        /* a coalescer entry's leader: its reads merged so far are answered with it (the
         * network takes them after it), no more merge */
        uint32_t e = q.lrc - 1u;
        lrc_close(p, e);
        for (uint32_t k = 0; k < p->lrc[e].n; k++) {
            const struct tm_req *g = &p->pend[p->lrc_mrg[(size_t)e * (m->lrc_max - 1) + k]];
            PS(p, PS_READ_REPLIES)++;
            PS(p, PS_LAT_REQ) += g->d_req;
            PS(p, PS_LAT_PART) += core_now - g->t_part;
        }
    }
    tm_queue_push(&p->l2_icnt, &q);
}

/* L2 cycles an access holds the slice's data port (GPGPU-Sim's
 * bandwidth_management::use_data_port, port width W): a hit reads or writes its data,
 * ceil(bytes / W) cycles per 32-byte sector of a sectored L2 (GPGPU-Sim splits requests into
 * sector requests there; bytes = 32 for a read, the bytes written into that sector for a
 * write) or ceil(bytes / W) for the whole request otherwise; a miss or pending hit only reads
 * out what its eviction writes back, modified bytes / W (whole sectors of a sectored L2, the
 * line otherwise); a reservation failure nothing. */
static uint64_t data_port_cycles(const struct tm_mem *m, const struct tm_req *r,
                                 const uint64_t *bm, enum tm_cache_res res, uint64_t wbs,
                                 uint64_t wb_sectors)
{
    const struct tm_cache_geom *g = &m->cfg->l2;
    uint32_t w = m->port_w;
    if (res != TM_CACHE_HIT)
        return g->sectored ? wb_sectors * 32 / w : wbs * g->line / w;
    uint8_t sec = r->sectors ? r->sectors : 0xf;
    if (!g->sectored) {
        uint32_t bytes = bm ? popc_mask(bm) : 32 * popc8(sec);
        return bytes ? (bytes + w - 1) / w : 1;
    }
    uint64_t cyc = 0;
    for (uint32_t q = 0; q < 4; q++) {
        if (!(sec >> q & 1))
            continue;
        uint32_t bytes = 32;
        if (bm) {
            uint64_t half = bm[q >> 1] >> ((q & 1) * 32) & 0xFFFFFFFFull;
            bytes = half ? (uint32_t)__builtin_popcountll(half) : 32;
        }
        cyc += (bytes + w - 1) / w;
    }
    return cyc;
}

/* Chiplets: the first request of the peer slice's queue to p, when its latency has ended. */
static inline struct tm_req *peer_req(struct tm_mem *m, const struct subpart *p,
                                      uint64_t core_now)
{
    struct tm_req *r = tm_queue_front(&m->sp[p->peer].cq_req);
    return r && r->t_ready <= core_now ? r : NULL;
}

/* Chiplets: write w (from an SM) was accepted by p's L2 and did not hit: its sectors are
 * forwarded to the peer slice as a tag update (Accel-Sim's WRITE_FORWARD; dropped when the
 * queue is full, which the write's admission check makes rare). */
static void forward_write(struct tm_mem *m, struct subpart *p, const struct tm_req *w,
                          uint64_t core_now)
{
    if (tm_queue_full(&p->cq_req)) {
        CP(p, CP_WDROP)++;
        return;
    }
    struct tm_req q = {.addr = w->addr, .t_sent = core_now, .t_ready = core_now + m->cq_lat,
                       .kind = TM_REQ_WRITE, .sectors = w->sectors ? w->sectors : 0xf,
                       .flags = TM_RQF_WFWD, .subp = (uint16_t)p->id};
    tm_queue_push(&p->cq_req, &q);
    CP(p, CP_WR_REQ)++;
    m->sp_act[p->peer] = 1;
}

static void slice_cycle(struct tm_mem *m, struct subpart *p, uint64_t core_now, uint64_t l2t)
{
    /* 0. chiplets: a reply from the peer slice (to this slice's miss) enters the DRAM->L2
     * queue and fills the L2 like DRAM data */
    if (m->nchip > 1) {
        struct tm_queue *rq = &m->sp[p->peer].cq_rep;
        struct tm_req *pr = tm_queue_front(rq);
        if (pr && pr->t_ready <= core_now) {
            if (tm_queue_full(&p->dram_l2)) {
                CP(p, CP_FILL_WAIT)++;
            } else {
                struct tm_req q = *pr;
                q.flags &= (uint8_t)~TM_RQF_CHIPLET;
                q.subp = (uint16_t)p->id;
                tm_queue_push(&p->dram_l2, &q);
                CP(p, CP_FILL)++;
                CP(p, CP_LAT) += core_now - q.t_sent;
                tm_queue_pop(rq);
            }
        }
    }
    /* 1. data back from DRAM: fill the L2 (or answer directly without one) */
    struct tm_req *d = tm_queue_front(&p->dram_l2);
    if (d) {
        if (p->l2 && (d->flags & TM_RQF_L2FILL)) {
            if (p->fill_free > l2t) {
                PS(p, PS_STALL_FILL_PORT)++;
            } else {
                /* GPGPU-Sim's use_fill_port: an atom (a 32-byte sector; the line when not
                 * sectored) per fill, ceil(atom / port width) L2 cycles each */
                const struct tm_cache_geom *g = &m->cfg->l2;
                uint32_t atom = g->sectored ? 32 : g->line, n = g->sectored ? popc8(d->sectors ? d->sectors : 0xf) : 1;
                uint64_t cyc = (uint64_t)n * ((atom + m->port_w - 1) / m->port_w);
                p->fill_free = l2t + cyc;
                PS(p, PS_FILL_PORT) += cyc;
                tm_cache_fill(p->l2, d->addr, d->sectors, core_now);
                tm_queue_pop(&p->dram_l2);
            }
        } else if (!tm_queue_full(&p->l2_icnt)) {
            reply(m, p, d, core_now);
            tm_queue_pop(&p->dram_l2);
        }
    }
    /* 2. requests the fills satisfied */
    uint64_t tok;
    while (p->l2 && !tm_queue_full(&p->l2_icnt) && tm_cache_next_ready(p->l2, &tok)) {
        reply(m, p, &p->pend[(uint32_t)tok], core_now);
        pend_free(p, (uint32_t)tok);
    }
    /* 3. the next request whose ROP delay ended; with chiplets, or the peer slice's next
     * request (Accel-Sim's alternating priority: the peer's first on even L2 cycles, the
     * network's on odd ones); a write forward only updates the tags */
    struct tm_queue *src = &p->icnt_l2;
    struct tm_req *r = tm_queue_front(src);
    if (r && r->t_ready > core_now)
        r = NULL;
    if (m->nchip > 1) {
        struct tm_req *pr = peer_req(m, p, core_now);
        if (pr && (!r || !(l2t & 1))) {
            r = pr;
            src = &m->sp[p->peer].cq_req;
        }
    }
    if (r && (r->flags & TM_RQF_WFWD)) {
        if (p->l2)
            tm_cache_warm(p->l2, r->addr, r->sectors, core_now);
        CP(p, CP_PEER_WR)++;
        tm_queue_pop(src);
        r = NULL;
    }
    if (r) {
        bool ack = !(r->kind == TM_REQ_WRITE && (r->flags & TM_RQF_WRITEBACK));
        uint32_t at = access_type(r);
        if (ack && tm_queue_full(&p->l2_icnt)) {
            PS(p, PS_STALL_L2_ICNT)++;
        } else if (m->l2_ideal) {
            p->st[at * AO__COUNT + AO_HIT]++;
            uint64_t *row = line_row(m, r->line);
            if (row)
                row[TM_PC_L2_ACCESS]++;
            PS(p, PS_REQ)++;
            if (ack)
                reply(m, p, r, core_now);
            tm_queue_pop(src);
        } else if (!p->l2 ||
                   (m->l2_tex_only && r->space != SP_TEX && !(r->flags & TM_RQF_CHIPLET))) {
            /* no L2 (or one for textures only, and this is no texture fetch): straight to
             * DRAM */
            if (tm_queue_full(&p->l2_dram)) {
                PS(p, PS_STALL_L2_DRAM)++;
            } else {
                struct tm_req q = *r;
                q.t_ready = core_now + m->dram_lat;
                PS(p, PS_REQ)++;
                p->st[at * AO__COUNT + AO_MISS]++;
                uint64_t *row = line_row(m, r->line);
                if (row) {
                    row[TM_PC_L2_ACCESS]++;
                    row[TM_PC_L2_MISS]++;
                }
                if (r->kind == TM_REQ_WRITE) {
                    q.flags |= TM_RQF_WRITEBACK; /* DRAM writes are not answered */
                    if (ack)
                        reply(m, p, r, core_now);
                }
                tm_queue_push(&p->l2_dram, &q);
                tm_queue_pop(src);
            }
        } else if (m->nchip > 1 && r->kind == TM_REQ_WRITE && tm_queue_full(&p->cq_req)) {
            CP(p, CP_WFAIL)++; /* no room for its forward (Accel-Sim's chiplet_write_fail) */
        } else if (p->data_free > l2t) {
            PS(p, PS_STALL_DATA_PORT)++; /* the data port still busy (GPGPU-Sim's
                                            data_port_free) */
        } else {
            bool write = r->kind == TM_REQ_WRITE;
            uint32_t idx = 0;
            const uint64_t *cs = tm_cache_stats(p->l2);
            uint64_t wb0 = cs[TM_CS_WRITEBACKS], wbs0 = cs[TM_CS_WRITEBACK_SECTORS];
            if (!write && pend_alloc(p, r, &idx) < 0) {
                /* out of memory: leave the request queued (retried next cycle) */
            } else {
                uint64_t full[2] = {~0ull, ~0ull};
                const uint64_t *bm = write ? (popc_mask(r->bmask) ? r->bmask : full) : NULL;
                /* the token: the pending request's index, the line id above it (a fill the
                 * access queues carries it to DRAM) */
                enum tm_cache_res res =
                    tm_cache_access(p->l2, r->addr, r->sectors ? r->sectors : 0xf, write, bm,
                                    (uint64_t)r->line << 32 | idx, core_now);
                uint64_t *row = res == TM_CACHE_RESFAIL ? NULL : line_row(m, r->line);
                if (row) {
                    row[TM_PC_L2_ACCESS]++;
                    row[TM_PC_L2_MISS] += res == TM_CACHE_MISS;
                }
                switch (res) {
                case TM_CACHE_HIT:
                    p->st[at * AO__COUNT + AO_HIT]++;
                    break;
                case TM_CACHE_HIT_RESERVED:
                    p->st[at * AO__COUNT + AO_HIT_RESERVED]++;
                    break;
                case TM_CACHE_MISS:
                    p->st[at * AO__COUNT + AO_MISS]++;
                    break;
                case TM_CACHE_RESFAIL:
                    p->st[at * AO__COUNT + AO_RESFAIL]++;
                    break;
                }
                if (res != TM_CACHE_RESFAIL) {
                    uint64_t cyc = data_port_cycles(m, r, bm, res, cs[TM_CS_WRITEBACKS] - wb0,
                                                    cs[TM_CS_WRITEBACK_SECTORS] - wbs0);
                    p->data_free = l2t + cyc;
                    PS(p, PS_DATA_PORT) += cyc;
                }
                if (res == TM_CACHE_RESFAIL) {
                    if (!write)
                        pend_free(p, idx);
                } else {
                    PS(p, PS_REQ)++;
                    if (r->flags & TM_RQF_CHIPLET)
                        CP(p, CP_PEER_RD)++;
                    if (write && m->nchip > 1 && res != TM_CACHE_HIT)
                        forward_write(m, p, r, core_now);
                    if (write) {
                        if (ack)
                            reply(m, p, r, core_now);
                    } else if (res == TM_CACHE_HIT) {
                        reply(m, p, r, core_now);
                        pend_free(p, idx);
                    }
                    tm_queue_pop(src);
                }
            }
        }
    }
    /* 4. the L2's misses and write-backs towards DRAM */
    const struct tm_cache_out *o;
    while (p->l2 && (o = tm_cache_miss_peek(p->l2))) {
        if (o->kind == TM_COUT_FILL && m->nchip > 1 && chiplet_owner(m, o->addr) != p->chiplet) {
            /* chiplets: the other chiplet owns it: to the peer slice, not DRAM */
            if (tm_queue_full(&p->cq_req)) {
                CP(p, CP_QFULL)++;
                break;
            }
            struct tm_req q = {.addr = o->addr, .t_sent = core_now,
                               .t_ready = core_now + m->cq_lat, .kind = TM_REQ_READ,
                               .sectors = o->sectors, .flags = TM_RQF_L2FILL | TM_RQF_CHIPLET,
                               .subp = (uint16_t)p->id, .line = (uint32_t)(o->token >> 32)};
            tm_queue_push(&p->cq_req, &q);
            CP(p, CP_RD_REQ)++;
            CP(p, CP_RD_SECT) += popc8(o->sectors ? o->sectors : 0xf);
            m->sp_act[p->peer] = 1;
            tm_cache_miss_pop(p->l2);
            break;
        }
        if (tm_queue_full(&p->l2_dram)) {
            PS(p, PS_STALL_L2_DRAM)++;
            break;
        }
        struct tm_req q = {.addr = o->addr, .t_sent = core_now,
                           .t_ready = core_now + m->dram_lat, .sectors = o->sectors,
                           .subp = (uint16_t)p->id};
        if (o->kind == TM_COUT_FILL) {
            q.kind = TM_REQ_READ;
            q.flags = TM_RQF_L2FILL;
            q.line = (uint32_t)(o->token >> 32); /* of the access that missed */
        } else {
            q.kind = TM_REQ_WRITE;
            q.flags = TM_RQF_WRITEBACK;
            q.bmask[0] = o->bmask[0];
            q.bmask[1] = o->bmask[1];
        }
        tm_queue_push(&p->l2_dram, &q);
        tm_cache_miss_pop(p->l2);
        break; /* one per cycle */
    }
}

void tm_mem_l2_cycle(struct tm_mem *m, uint64_t core_now)
{
    tm_mem_l2_cycle_range(m, core_now, tm_mem_l2_tick(m), 0, m->n_mem);
}

uint32_t tm_mem_nchannels(const struct tm_mem *m) { return m->n_mem; }

bool tm_mem_profiled(const struct tm_mem *m) { return m->nprof != 0; }

bool tm_mem_ranges_coupled(const struct tm_mem *m) { return m->nchip > 1; }

uint64_t tm_mem_l2_tick(struct tm_mem *m) { return ++m->l2_now; }

void tm_mem_l2_cycle_range(struct tm_mem *m, uint64_t core_now, uint64_t l2t, uint32_t c0,
                           uint32_t c1)
{
    for (uint32_t i = c0 * m->n_sub; i < c1 * m->n_sub; i++) {
        if (!m->sp_act[i])
            continue;
        struct subpart *p = &m->sp[i];
        if (!p->icnt_l2.n && !p->dram_l2.n && (!p->l2 || tm_cache_idle(p->l2)) &&
            (m->nchip < 2 || (!m->sp[p->peer].cq_req.n && !m->sp[p->peer].cq_rep.n))) {
            /* idle until a request or fill enters it; it stays counted as busy
             * (tm_mem_busy) while a port is (the ports' time runs only while stepped) */
            if (p->data_free <= l2t && p->fill_free <= l2t)
                m->sp_act[i] = 0;
            continue;
        }
        slice_cycle(m, p, core_now, l2t);
        if (p->l2_icnt.n)
            m->sp_rep[i] = 1;
        if (p->l2_dram.n)
            dram_wake(m, p->chip); /* (channel i / n_sub: in the range) */
    }
}

/* ====================================================================== DRAM phase */

/* DRAM channel c's cycle: one request from its sub-partitions, the controller's cycle, the
 * returned data to its sub-partition. A channel with nothing queued for it and nothing to do
 * only counts its cycle, and sleeps as long as it will stay so (struct tm_mem.dram_awake).
 * DRAM read token: the sub-partition (high half) and the index of the request kept in its
 * pending pool while DRAM serves it (the L2's fill request, or the original request without
 * an L2). */
static void dram_channel(struct tm_mem *m, uint32_t c, uint64_t core_now)
{
    struct tm_dram *d = m->dram[c];
    bool queued = false;
    for (uint32_t k = 0; k < m->n_sub && !queued; k++)
        queued = m->sp[c * m->n_sub + k].l2_dram.n != 0;
    if (!queued && tm_dram_idle_tick(d)) {
        uint64_t room = tm_dram_idle_room(d);
        if (room) {
            m->dram_awake[c] = 0;
            m->dram_skip[c] = 0;
            m->dram_room[c] = room;
        }
        return;
    }
    /* accept one request from this channel's sub-partitions, round robin */
    for (uint32_t k = 0; k < m->n_sub; k++) {
        uint32_t si = c * m->n_sub + (m->dram_rr[c] + k) % m->n_sub;
        struct subpart *p = &m->sp[si];
        struct tm_req *r = tm_queue_front(&p->l2_dram);
        if (!r || r->t_ready > core_now)
            continue;
        if (!tm_dram_can_accept(d))
            break;
        struct tm_addr a;
        tm_addrdec_decode(&m->ad, r->addr, &a);
        uint8_t sect = r->sectors ? r->sectors : 0xf;
        struct tm_dram_req q = {.addr = r->addr, .bk = a.bk, .row = a.row, .col = a.col,
                                .bytes = 32 * popc8(sect),
                                .write = r->kind == TM_REQ_WRITE};
        if (q.write) {
            PS(p, PS_DRAM_WR_SECT) += popc8(sect);
        } else {
            uint32_t idx;
            if (pend_alloc(p, r, &idx) < 0)
                break;
            PS(p, PS_DRAM_RD_SECT) += popc8(sect);
            uint64_t *row = line_row(m, r->line);
            if (row)
                row[TM_PC_DRAM_RD] += popc8(sect);
            q.token = (uint64_t)si << 32 | idx;
        }
        tm_dram_push(d, &q);
        tm_queue_pop(&p->l2_dram);
        m->dram_rr[c] = (si - c * m->n_sub + 1) % m->n_sub;
        break;
    }
    tm_dram_cycle(d);
    /* returned data to its sub-partition */
    const struct tm_dram_req *q = tm_dram_peek(d);
    if (q) {
        uint32_t si = (uint32_t)(q->token >> 32), idx = (uint32_t)q->token;
        struct subpart *p = &m->sp[si];
        if (tm_queue_full(&p->dram_l2))
            return;
        tm_queue_push(&p->dram_l2, &p->pend[idx]);
        m->sp_act[si] = 1;
        pend_free(p, idx);
        tm_dram_pop(d);
    }
}

void tm_mem_dram_cycle(struct tm_mem *m, uint64_t core_now)
{
    tm_mem_dram_cycle_range(m, core_now, 0, m->n_mem);
}

void tm_mem_dram_cycle_range(struct tm_mem *m, uint64_t core_now, uint32_t c0, uint32_t c1)
{
    for (uint32_t c = c0; c < c1; c++) {
        if (!m->dram_awake[c]) {
            if (m->dram_skip[c] < m->dram_room[c]) {
                m->dram_skip[c]++; /* asleep: this cycle is an idle one it skips */
                continue;
            }
            dram_wake(m, c); /* its refresh is due */
        }
        dram_channel(m, c, core_now);
    }
}

void tm_mem_idle_cycles(struct tm_mem *m, uint64_t n_icnt, uint64_t n_dram)
{
    tm_icnt_idle_cycles(m->icnt, n_icnt);
    for (uint32_t c = 0; c < m->n_mem; c++) {
        dram_wake(m, c); /* (its skipped cycles came first) */
        tm_dram_idle_cycles(m->dram[c], n_dram);
    }
}

bool tm_mem_busy(const struct tm_mem *m)
{
    if (tm_icnt_busy(m->icnt))
        return true;
    /* a busy sub-partition is in sp_act (its ROP or return queue, its L2) or sp_rep (replies);
     * one with requests for DRAM, and a busy channel, are of an awake channel */
    for (uint32_t i = 0; i < m->nsp; i++) {
        if (!m->sp_act[i] && !m->sp_rep[i])
            continue;
        const struct subpart *p = &m->sp[i];
        if (p->icnt_l2.n || p->l2_dram.n || p->dram_l2.n || p->l2_icnt.n ||
            (p->l2 && !tm_cache_idle(p->l2)) || p->data_free > m->l2_now ||
            p->fill_free > m->l2_now) /* (the ports' time runs only while stepped) */
            return true;
    }
    for (uint32_t i = 0; m->nchip > 1 && i < m->nsp; i++)
        if (m->sp[i].cq_req.n || m->sp[i].cq_rep.n)
            return true;
    for (uint32_t c = 0; c < m->n_mem; c++) {
        if (!m->dram_awake[c])
            continue;
        if (tm_dram_busy(m->dram[c]))
            return true;
        for (uint32_t k = 0; k < m->n_sub; k++)
            if (m->sp[c * m->n_sub + k].l2_dram.n)
                return true;
    }
    return false;
}

void tm_mem_memcpy_to_device(struct tm_mem *m, uint64_t addr, uint64_t bytes)
{
    if (!bytes)
        return;
    for (uint64_t ln = addr & ~127ull; ln < addr + bytes; ln += 128) {
        struct tm_addr a;
        tm_addrdec_decode(&m->ad, ln, &a);
        uint32_t si = chiplet_slice(m, UINT32_MAX, ln, a.subp);
        struct subpart *p = &m->sp[si];
        if (!p->l2)
            return;
        m->sp_act[si] = 1; /* warming may queue write-backs */
        uint64_t lo = addr > ln ? addr : ln, hi = addr + bytes < ln + 128 ? addr + bytes : ln + 128;
        uint8_t sec = 0;
        for (uint64_t q = (lo - ln) >> 5; q <= (hi - 1 - ln) >> 5; q++)
            sec |= (uint8_t)(1u << q);
        tm_cache_warm(p->l2, ln, sec, 0);
    }
}

void tm_mem_l2_flush(struct tm_mem *m)
{
    for (uint32_t i = 0; i < m->nsp; i++)
        if (m->sp[i].l2) {
            tm_cache_flush(m->sp[i].l2);
            tm_cache_invalidate(m->sp[i].l2); /* (the queued write-backs stay) */
            m->sp_act[i] = 1;
        }
}

bool tm_mem_l2_flush_busy(const struct tm_mem *m)
{
    for (uint32_t i = 0; i < m->nsp; i++) {
        const struct subpart *p = &m->sp[i];
        if (p->l2_dram.n || (p->l2 && tm_cache_miss_peek(p->l2)))
            return true;
    }
    for (uint32_t c = 0; c < m->n_mem; c++)
        if (tm_dram_busy(m->dram[c]))
            return true;
    return false;
}

/* ====================================================================== statistics */

size_t tm_mem_nstats(const struct tm_mem *m)
{
    return (size_t)m->nsp * SLICE_NST + (size_t)m->n_mem * TM_DS__COUNT + TM_IS__COUNT;
}

void tm_mem_snapshot(const struct tm_mem *m, uint64_t *out)
{
    for (uint32_t i = 0; i < m->nsp; i++) {
        const struct subpart *p = &m->sp[i];
        uint64_t *o = out + (size_t)i * SLICE_NST;
        memcpy(o, p->st, sizeof p->st);
        if (p->l2)
            memcpy(o + AT__COUNT * AO__COUNT, tm_cache_stats(p->l2),
                   TM_CS__COUNT * sizeof *o);
    }
    uint64_t *o = out + (size_t)m->nsp * SLICE_NST;
    for (uint32_t c = 0; c < m->n_mem; c++) {
        memcpy(o + (size_t)c * TM_DS__COUNT, tm_dram_stats(m->dram[c]),
               TM_DS__COUNT * sizeof *o);
        if (!m->dram_awake[c]) { /* the idle cycles a sleeping channel skipped */
            o[(size_t)c * TM_DS__COUNT + TM_DS_N_CMD] += m->dram_skip[c];
            o[(size_t)c * TM_DS__COUNT + TM_DS_N_NOP] += m->dram_skip[c];
        }
    }
    memcpy(o + (size_t)m->n_mem * TM_DS__COUNT, tm_icnt_stats(m->icnt),
           TM_IS__COUNT * sizeof *o);
}

struct mem_totals {
    uint64_t bd[AT__COUNT][AO__COUNT];
    uint64_t cs[TM_CS__COUNT];
    uint64_t ps[PS__COUNT];
    uint64_t cp[CP__COUNT];
    uint64_t acc, miss, pend, fail;
};

static void totals(const struct tm_mem *m, const uint64_t *d, struct mem_totals *t)
{
    memset(t, 0, sizeof *t);
    for (uint32_t i = 0; i < m->nsp; i++) {
        const uint64_t *s = d + (size_t)i * SLICE_NST;
        for (int a = 0; a < AT__COUNT; a++)
            for (int o = 0; o < AO__COUNT; o++)
                t->bd[a][o] += s[a * AO__COUNT + o];
        for (int k = 0; k < TM_CS__COUNT; k++)
            t->cs[k] += s[AT__COUNT * AO__COUNT + k];
        for (int k = 0; k < PS__COUNT; k++)
            t->ps[k] += s[AT__COUNT * AO__COUNT + TM_CS__COUNT + k];
        for (int k = 0; k < CP__COUNT; k++)
            t->cp[k] += s[CP_BASE + k];
    }
    for (int a = 0; a < AT__COUNT; a++) {
        t->acc += t->bd[a][AO_HIT] + t->bd[a][AO_HIT_RESERVED] + t->bd[a][AO_MISS];
        t->miss += t->bd[a][AO_MISS];
        t->pend += t->bd[a][AO_HIT_RESERVED];
        t->fail += t->bd[a][AO_RESFAIL];
    }
}

static double ratio(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0.0; }

void tm_mem_print(const struct tm_mem *m, const uint64_t *d, FILE *f)
{
    struct mem_totals t;
    totals(m, d, &t);
    bool perfect_l2 = m->l2_ideal;
    for (int a = 0; a < AT__COUNT; a++)
        for (int o = 0; o < AO__COUNT; o++)
            if (t.bd[a][o])
                fprintf(f, "L2_cache_stats_breakdown[%s][%s] = %" PRIu64 "\n", at_name[a],
                        ao_name[o], t.bd[a][o]);
    if (perfect_l2) {
        fprintf(f, "L2_total_cache_accesses = %" PRIu64 "\n", t.acc);
        fputs("L2_total_cache_misses = perfect\n", f);
    } else if (!m->cfg->l2.present) {
        fputs("L2_total_cache = none\n", f);
    } else if (m->l2_tex_only) {
        /* the slices' own counters hold the texture fetches only */
        fputs("L2_total_cache = texture only (-gpgpu_cache:dl2_texture_only 1)\n", f);
        for (int k = 0; k < TM_CS__COUNT; k++)
            fprintf(f, "L2_cache_%s = %" PRIu64 "\n", tm_cache_stat_name((enum tm_cache_stat)k),
                    t.cs[k]);
    } else {
        fprintf(f, "L2_total_cache_accesses = %" PRIu64 "\n", t.acc);
        fprintf(f, "L2_total_cache_misses = %" PRIu64 "\n", t.miss);
        fprintf(f, "L2_total_cache_miss_rate = %.4f\n", ratio(t.miss, t.acc));
        fprintf(f, "L2_total_cache_pending_hits = %" PRIu64 "\n", t.pend);
        fprintf(f, "L2_total_cache_reservation_fails = %" PRIu64 "\n", t.fail);
        for (int k = 0; k < TM_CS__COUNT; k++)
            fprintf(f, "L2_cache_%s = %" PRIu64 "\n", tm_cache_stat_name((enum tm_cache_stat)k),
                    t.cs[k]);
    }
    for (int k = 0; k < PS__COUNT; k++)
        fprintf(f, "L2_partition_%s = %" PRIu64 "\n", ps_name[k], t.ps[k]);
    if (m->nchip > 1) { /* (only then, so other configurations' output stays as it was) */
        for (int k = 0; k < CP__COUNT; k++)
            fprintf(f, "%s = %" PRIu64 "\n", cp_name[k], t.cp[k]);
        fprintf(f, "chiplet_avg_latency = %.1f\n", ratio(t.cp[CP_LAT], t.cp[CP_FILL]));
    }
    uint64_t nrep = t.ps[PS_READ_REPLIES];
    fprintf(f, "averagemflatency = %.1f\n", ratio(t.ps[PS_LAT_TOTAL], nrep));
    fprintf(f, "avg_latency_request_net = %.1f\n", ratio(t.ps[PS_LAT_REQ], nrep));
    fprintf(f, "avg_latency_partition = %.1f\n", ratio(t.ps[PS_LAT_PART], nrep));
    fprintf(f, "avg_latency_reply_net = %.1f\n",
            ratio(t.ps[PS_LAT_TOTAL] > t.ps[PS_LAT_REQ] + t.ps[PS_LAT_PART]
                      ? t.ps[PS_LAT_TOTAL] - t.ps[PS_LAT_REQ] - t.ps[PS_LAT_PART]
                      : 0,
                  nrep));
    const uint64_t *dd = d + (size_t)m->nsp * SLICE_NST;
    for (uint32_t c = 0; c < m->n_mem; c++) {
        const uint64_t *s = dd + (size_t)c * TM_DS__COUNT;
        fprintf(f, "DRAM[%u]:", c);
        for (int k = 0; k < TM_DS__COUNT; k++)
            fprintf(f, " %s=%" PRIu64, tm_dram_stat_name((enum tm_dram_stat)k), s[k]);
        fprintf(f, " bw_util=%.4f\n", ratio(s[TM_DS_BUS_BUSY], s[TM_DS_N_CMD]));
    }
    const uint64_t *is = dd + (size_t)m->n_mem * TM_DS__COUNT;
    fprintf(f, "icnt: %s\n", tm_icnt_describe(m->icnt));
    fprintf(f, "icnt_packets_req = %" PRIu64 "\nicnt_packets_rep = %" PRIu64 "\n",
            is[TM_IS_PACKETS_REQ], is[TM_IS_PACKETS_REP]);
    fprintf(f, "icnt_flits_req = %" PRIu64 "\nicnt_flits_rep = %" PRIu64 "\n",
            is[TM_IS_FLITS_REQ], is[TM_IS_FLITS_REP]);
    fprintf(f, "icnt_avg_latency_req = %.1f\nicnt_avg_latency_rep = %.1f\n",
            ratio(is[TM_IS_LAT_SUM_REQ], is[TM_IS_PACKETS_REQ]),
            ratio(is[TM_IS_LAT_SUM_REP], is[TM_IS_PACKETS_REP]));
    fprintf(f, "icnt_max_latency_req = %" PRIu64 "\nicnt_max_latency_rep = %" PRIu64 "\n",
            is[TM_IS_LAT_MAX_REQ], is[TM_IS_LAT_MAX_REP]);
    if (tm_icnt_partitioned(m->icnt))
        fprintf(f, "icnt_l2_near_req = %" PRIu64 "\nicnt_l2_far_req = %" PRIu64
                   "\nicnt_l2_far_rep = %" PRIu64 "\nicnt_l2_far_wait = %" PRIu64 "\n",
                is[TM_IS_L2_NEAR_REQ], is[TM_IS_L2_FAR_REQ], is[TM_IS_L2_FAR_REP],
                is[TM_IS_FAR_WAIT]);
}

void tm_mem_json(const struct tm_mem *m, const uint64_t *d, FILE *f)
{
    struct mem_totals t;
    totals(m, d, &t);
    fprintf(f, "\"l2\": {\"perfect\": %s, \"accesses\": %" PRIu64 ", \"misses\": %" PRIu64
               ", \"pending_hits\": %" PRIu64 ", \"reservation_fails\": %" PRIu64,
            m->l2_ideal ? "true" : "false", t.acc, t.miss, t.pend, t.fail);
    for (int a = 0; a < AT__COUNT; a++)
        for (int o = 0; o < AO__COUNT; o++)
            fprintf(f, ", \"%s.%s\": %" PRIu64, at_name[a], ao_name[o], t.bd[a][o]);
    for (int k = 0; k < TM_CS__COUNT; k++)
        fprintf(f, ", \"cache.%s\": %" PRIu64, tm_cache_stat_name((enum tm_cache_stat)k),
                t.cs[k]);
    for (int k = 0; k < PS__COUNT; k++)
        fprintf(f, ", \"%s\": %" PRIu64, ps_name[k], t.ps[k]);
    if (m->nchip > 1) {
        fputs(", \"chiplet\": {", f);
        for (int k = 0; k < CP__COUNT; k++)
            fprintf(f, "%s\"%s\": %" PRIu64, k ? ", " : "", cp_name[k], t.cp[k]);
        fputc('}', f);
    }
    fputs(", \"slices\": [", f);
    for (uint32_t i = 0; i < m->nsp; i++) {
        const uint64_t *s = d + (size_t)i * SLICE_NST;
        uint64_t acc = 0, miss = 0;
        for (int a = 0; a < AT__COUNT; a++) {
            acc += s[a * AO__COUNT + AO_HIT] + s[a * AO__COUNT + AO_HIT_RESERVED] +
                   s[a * AO__COUNT + AO_MISS];
            miss += s[a * AO__COUNT + AO_MISS];
        }
        fprintf(f, "%s{\"accesses\": %" PRIu64 ", \"misses\": %" PRIu64 "}", i ? ", " : "",
                acc, miss);
    }
    fputs("]},\n \"dram\": [", f);
    const uint64_t *dd = d + (size_t)m->nsp * SLICE_NST;
    for (uint32_t c = 0; c < m->n_mem; c++) {
        const uint64_t *s = dd + (size_t)c * TM_DS__COUNT;
        fputs(c ? ", {" : "{", f);
        for (int k = 0; k < TM_DS__COUNT; k++)
            fprintf(f, "%s\"%s\": %" PRIu64, k ? ", " : "",
                    tm_dram_stat_name((enum tm_dram_stat)k), s[k]);
        fputc('}', f);
    }
    const uint64_t *is = dd + (size_t)m->n_mem * TM_DS__COUNT;
    fprintf(f, "],\n \"icnt\": {\"packets_req\": %" PRIu64 ", \"packets_rep\": %" PRIu64
               ", \"flits_req\": %" PRIu64 ", \"flits_rep\": %" PRIu64
               ", \"latency_sum_req\": %" PRIu64 ", \"latency_sum_rep\": %" PRIu64,
            is[TM_IS_PACKETS_REQ], is[TM_IS_PACKETS_REP], is[TM_IS_FLITS_REQ],
            is[TM_IS_FLITS_REP], is[TM_IS_LAT_SUM_REQ], is[TM_IS_LAT_SUM_REP]);
    if (tm_icnt_partitioned(m->icnt)) /* (only then, so other presets' JSON stays as it was) */
        fprintf(f, ", \"l2_near_req\": %" PRIu64 ", \"l2_far_req\": %" PRIu64
                   ", \"l2_far_rep\": %" PRIu64 ", \"far_wait\": %" PRIu64,
                is[TM_IS_L2_NEAR_REQ], is[TM_IS_L2_FAR_REQ], is[TM_IS_L2_FAR_REP],
                is[TM_IS_FAR_WAIT]);
    fputc('}', f);
}

/* Totals a time-series sample keeps (timing/sample.c): L2 accesses and misses (as
 * L2_total_cache_*) and DRAM bytes moved (column commands × atom) in the counters d. */
void tm_mem_sample_totals(const struct tm_mem *m, const uint64_t *d, uint64_t *l2_acc,
                          uint64_t *l2_miss, uint64_t *dram_bytes)
{
    struct mem_totals t;
    totals(m, d, &t);
    *l2_acc = t.acc;
    *l2_miss = t.miss;
    const struct tm_options *o = &m->cfg->o;
    uint64_t atom = (uint64_t)o->gpgpu_dram_burst_length * (uint64_t)o->gpgpu_dram_buswidth *
                    (uint64_t)o->gpgpu_n_mem_per_ctrlr;
    const uint64_t *dd = d + (size_t)m->nsp * SLICE_NST;
    uint64_t cmds = 0;
    for (uint32_t c = 0; c < m->n_mem; c++)
        cmds += dd[(size_t)c * TM_DS__COUNT + TM_DS_N_RD] + dd[(size_t)c * TM_DS__COUNT + TM_DS_N_WR];
    *dram_bytes = cmds * atom;
}
