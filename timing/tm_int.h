/*
 * timing/tm_int.h — the timing model's internal structures: the SM ↔ memory request record and
 * queues, the SM (warps, CTAs, pipeline registers, collectors, units, LD/ST), the GPU.
 *
 * The rule that makes SMs simulable on separate host threads (issue 24): code running an SM's
 * cycle (sm.c) reads the shared launch description (`struct tm_kernel`, read-only while the
 * kernel runs) and writes only its own `struct tm_sm`, including the two request queues it
 * shares with the memory system. The memory system (gpu.c, later timing/mem/) touches an SM
 * only through those queues, in its own phase of the cycle.
 */
#ifndef PTXEMU_TIMING_TM_INT_H
#define PTXEMU_TIMING_TM_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "interp/engine.h"
#include "timing/timing.h"

/* ------------------------------------------------------------------ requests */

enum tm_req_kind { TM_REQ_READ, TM_REQ_WRITE, TM_REQ_ATOMIC, TM_REQ_FETCH };

/* One request between an SM and the memory system, and (the same record, sent back) its
 * response. Addresses are 128-byte-line aligned; sectors says which 32-byte sectors. */
struct tm_req {
    uint64_t addr;
    uint64_t t_sent;   /* core cycle the SM sent it */
    uint64_t t_ready;  /* core cycle the response may be consumed (set by the memory system) */
    uint32_t inst;     /* SM's in-flight instruction index (TM_REQ_FETCH: warp slot) */
    uint16_t sm;
    uint16_t bytes;    /* bytes requested (sum over lanes) */
    uint8_t kind;      /* enum tm_req_kind */
    uint8_t space;     /* enum ir_space of the access (SP_NONE: instruction fetch) */
    uint8_t sectors;   /* bit i: sector i of the line */
    uint8_t flags;     /* TM_RQF_* */
    uint32_t line;     /* profiled PTX line of the instruction behind it (sample.h's
                          tm_prof_line: GPU-wide, registered with tm_mem_prof_attach), 0: none;
                          the L2 and DRAM count its outcomes there (fills in its padding) */
    uint64_t bmask[2]; /* writes: bytes of the line written (bit i = byte i) */
    /* set by the memory system (latency breakdown) */
    uint64_t t_part;   /* core cycle it reached its memory sub-partition */
    uint32_t d_req;    /* cycles from t_sent to t_part */
    uint16_t subp;     /* sub-partition that answered */
    uint16_t lrc;      /* a read leading an entry of its sub-partition's load request
                          coalescer (mem.c): the entry's index + 1; 0 otherwise */
};

#define TM_RQF_NOL1 1u      /* bypasses the L1 (.cg/.cv, atomics, -gpgpu_gmem_skip_L1D) */
#define TM_RQF_WRITEBACK 2u /* an eviction from a cache above (no acknowledgement wanted) */
#define TM_RQF_L1C 4u       /* a fill for the SM's L1 constant cache */
#define TM_RQF_L1T 8u       /* a fill for the SM's L1 texture cache */
#define TM_RQF_L2FILL 16u   /* a DRAM read filling an L2 slice (not a request passing it) */
#define TM_RQF_CHIPLET 32u  /* an L2 slice's miss sent to its peer slice on the owning chiplet
                               (mem.c): answered back through the inter-chiplet queues */
#define TM_RQF_BULKW 128u   /* a bulk or tensor copy's write: inst is the instruction, whose
                               acknowledgements it counts like a load's answers */
#define TM_RQF_WFWD 64u     /* a write forwarded to the peer chiplet's slice: a tag update */

/* One access in the L1T's fragment FIFO: the load instruction it answers, whether it missed
 * (holds a reorder-buffer entry) and the cycle its data is there (UINT64_MAX: not yet). */
struct tm_tex_frag {
    uint64_t t_ready;
    uint32_t ii;
    bool miss;
};

/* Bounded FIFO of requests (ring buffer). */
struct tm_queue {
    struct tm_req *buf;
    uint32_t cap, head, n;
};

int tm_queue_init(struct tm_queue *q, uint32_t cap);
void tm_queue_free(struct tm_queue *q);
static inline bool tm_queue_full(const struct tm_queue *q) { return q->n == q->cap; }
static inline struct tm_req *tm_queue_front(struct tm_queue *q)
{
    return q->n ? &q->buf[q->head] : NULL;
}
static inline void tm_queue_pop(struct tm_queue *q)
{
    q->head = q->head + 1 == q->cap ? 0 : q->head + 1;
    q->n--;
}
static inline void tm_queue_push(struct tm_queue *q, const struct tm_req *r)
{
    uint32_t t = q->head + q->n;
    if (t >= q->cap)
        t -= q->cap;
    q->buf[t] = *r;
    q->n++;
}

/* ------------------------------------------------------------------ the kernel being run */

/* What every SM reads about a running launch (read-only during cycles, except the counters
 * the driver keeps). */
struct tm_kernel {
    struct engine_launch *L;
    const struct mem *dmem;   /* the device's memory (canonical addresses of its blocks) */
    uint64_t nctas, next_cta; /* CTAs in the grid; the next one to dispatch */
    uint64_t limit;           /* CTAs simulated (nctas, or the first -ptxemu_timing_waves
                                 waves); the rest run functionally after them */
    uint64_t sim_cycles;      /* cycles the simulated CTAs took (when limit < nctas) */
    uint64_t wave;            /* CTAs of one wave (SMs x CTAs per SM) */
    _Atomic uint64_t retired; /* CTAs retired so far (SMs on several host threads retire) */
    uint64_t t_wave;          /* core cycle the first wave's worth of CTAs had retired */
    _Atomic uint64_t t_end;   /* relaxed mode: the cycle after the last CTA retired */
    _Atomic uint32_t live_ctas; /* dispatched, not yet retired */
    bool done;                /* every CTA retired (or the launch faulted and drained) */
    bool faulted;             /* its warps were stopped after a fault */
    bool l2_flushed;          /* -gpgpu_flush_l2_cache: its end started the L2 flush; done once
                                 the write-backs reached DRAM (tm_mem_l2_flush_busy) */
    uint64_t uid;
    uint64_t start, end_cycle; /* gpu cycle at launch and when the last CTA retired */
    double start_ns;
    uint64_t *st0;            /* per SM: counters when the kernel started [nsm][TM_ST__COUNT] */
    uint64_t *mst0;           /* the memory system's counters then (tm_mem_snapshot), or NULL */
    const struct interp_kernel_info *info;
    uint32_t threads, warps;  /* per CTA */
    uint32_t regs_per_cta, shmem_per_cta;
    uint32_t max_cta_per_sm;  /* occupancy limit */
    uint32_t shmem_per_sm;    /* shared memory carve-out chosen for the kernel, bytes */
    uint64_t start_cycle;     /* first core cycle CTAs may be dispatched */
    bool cooperative;
    uint32_t csize;           /* CTAs per thread-block cluster (dispatched together) */
    uint64_t clu_epoch;       /* bumped when a step or release may have released warps of
                                 another CTA of a cluster: SMs re-query theirs */
    struct tm_prof *prof;     /* time series / per-instruction counters (sample.h), or NULL */
    struct tm_gpu *g;         /* the GPU it runs on (the clock hook's context is the kernel) */
    uint16_t *cta_sm;         /* parallel SMs (par.c): SM of each dispatched CTA [limit], the
                                 order key of a fault; NULL when one host thread runs the SMs */
};

/* ------------------------------------------------------------------ SM */

#define TM_IBUF 2
#define TM_MAX_DST 8
#define TM_MAX_SRC 32
#define TM_SB_MAX 64
#define TM_MAX_LINES 64
/* cp.async bookkeeping per warp (struct tm_warp): copies in flight at once (a warp that has
 * this many waits for its oldest before it issues on), committed groups remembered (a
 * wait_group N with N >= TM_CA_GRP waits for the oldest one remembered), cp.async.mbarrier
 * arrivals remembered (a further one replaces the one waiting for the fewest copies) */
#define TM_CA_WIN 256
#define TM_CA_GRP 32
#define TM_CA_ARR 8
#define TM_CA_KINDS 5
#define TM_NONE UINT32_MAX
#define TM_WCLS 7             /* issue classes of a warp (struct tm_sm.wc) */
#define TM_MAX_PARTS 8        /* sub-cores per SM: config.c limits -gpgpu_num_sched_per_core to 8 */

/* Memory part of an in-flight memory instruction (computed at issue from the step report). */
struct tm_memop {
    uint8_t space;     /* enum ir_space (resolved) */
    uint8_t kind;      /* enum tm_req_kind; TM_REQ_READ/WRITE for shared/const too */
    uint8_t bulk;      /* a bulk or tensor copy: its lines come from rng[], line[0] holds the
                          one to send next */
    uint16_t degree;   /* shared: bank-conflict degree; const: distinct words (with an L1C:
                          one entry of line[] per distinct word, one per cycle) */
    uint32_t nline;    /* line requests (global/local/atomic) */
    uint32_t sent;     /* line requests sent so far */
    uint32_t nrng, rng_cap; /* bulk: runs of global bytes (canonical addresses) in rng[] */
    uint32_t rng_k;    /* bulk: the run line[0] is in, and its offset there */
    uint64_t rng_off;
    struct tm_brange { uint64_t addr, bytes; } *rng; /* (grown on demand, kept when reused) */
    uint8_t sec_sent;  /* sectors of line[sent] already sent (an L1D line split over banked
                          cycles) */
    uint8_t flags;     /* TM_RQF_NOL1 when the instruction's cache operator bypasses the L1 */
    uint32_t next;     /* free list */
    uint64_t line[TM_MAX_LINES];
    uint8_t sectors[TM_MAX_LINES];
    uint16_t bytes[TM_MAX_LINES];
    uint64_t bmask[TM_MAX_LINES][2]; /* bytes of each line accessed */
};

/* One in-flight warp instruction, from issue to writeback. */
struct tm_inst {
    uint32_t warp;     /* SM warp slot */
    uint32_t memop;    /* TM_NONE or index in tm_sm.mop */
    uint32_t next;     /* free list / queue link */
    uint8_t fu;        /* enum tm_fu */
    uint8_t part;      /* sub-core (scheduler) it belongs to */
    uint8_t ndst, nsrc;
    uint32_t src_left; /* bit i: source i not read yet */
    uint16_t src_bank[TM_MAX_SRC];
    uint32_t dst[TM_MAX_DST]; /* scoreboard keys */
    struct tm_oplat lat;
    uint64_t t_issue, t_ready;
    uint32_t resp_left; /* memory responses still to come */
    uint32_t ca_ord;    /* an asynchronous copy: its ordinal in the warp's copies of its kind
                           + 1; 0 otherwise */
    uint8_t ca_kind;    /* its kind (struct tm_warp's ca_*) */
    uint32_t tc5;       /* a tcgen05.mma / cp / shift: its cycles in the SM's tcgen05 queue
                           (0: not one) */
    uint16_t tc_work;   /* an mma / wmma.mma / wgmma.mma_async at -ptxemu_tensor_rate: the
                           cycles of its work on its tensor unit, which begins when the unit's
                           previous MMA's ends (0: not one) */
    uint64_t *prow;     /* its per-instruction counters (sample.h), or NULL */
};

struct tm_cta;
struct tm_cache;
struct mem;

struct tm_warp {
    struct tm_cta *cta;       /* NULL: not running (finished, or the slot is free) */
    bool held;                /* the slot belongs to a resident CTA (freed when it retires) */
    uint32_t ew;              /* warp index in the CTA (engine) */
    uint8_t part;             /* scheduler */
    bool done;                /* every lane exited (functionally) */
    bool at_bar, at_membar, fetching;
    const struct ir_func *func; /* next instruction to fetch */
    uint32_t pc;
    uint32_t nib;             /* valid instruction-buffer entries */
    struct { const struct ir_func *f; uint32_t pc; } ib[TM_IBUF];
    uint64_t ready_at;        /* may fetch from this cycle (CTA launch latency) */
    uint64_t age;             /* dynamic warp id: lower is older (GTO, old) */
    uint32_t inflight;        /* issued, not yet written back / retired */
    uint32_t mem_pending;     /* memory requests outstanding (loads, stores, atomics) */
    uint8_t sbc;              /* sb_blocked of the buffer's head, cached: 0 unknown, 1 free,
                                 2 blocked (reset when the scoreboard or the buffer changes) */
    uint8_t fu0;              /* the head's unit (fu_of), valid while sbc != 0 */
    uint8_t cls;              /* issue class at its last classification: the mask of
                                 struct tm_sm.wc its bit is in (kept when the slot is reused) */
    uint8_t uk;               /* the head expands (expand.h): its machine instructions issued
                                 so far; the last one steps the engine */
    uint32_t nsb;             /* (the fields the issue stage reads every cycle come first) */
    uint32_t sb[TM_SB_MAX];   /* reserved destination registers */
    /* asynchronous copies (sm.c, "Asynchronous copies" in timing/README.md), per kind
       (0: cp.async, 1: bulk and tensor copies, 2: the same bulk copies' source reads, done
       when their last line is sent; kinds 1 and 2 number them alike, kind 2's groups are
       kind 1's; 3: wgmma.mma_async, done when its product is, with wgmma's groups; 4:
       tcgen05.mma / cp / shift, whose completion tcgen05.commit's arrivals wait for): the
       warp's copies numbered in issue order
       (ordinals), which of the last TM_CA_WIN are in flight, the committed groups' ends;
       the mbarrier arrivals (cp.async.mbarrier.arrive, complete_tx) still waiting for
       copies; what a waiting warp (at_async) waits for */
    bool at_async;            /* issues nothing until async_blocked() says no */
    uint8_t ca_narr;          /* entries of ca_arr */
    uint8_t ca_wk;            /* at_async on groups: the kind */
    uint32_t ca_insts;        /* of inflight: asynchronous copies (a fence does not wait for
                                 them, nor for their requests) */
    uint32_t ca_pending;      /* of mem_pending: the copies' requests */
    uint32_t ca_need;         /* at_async on groups: ca_lo[ca_wk] must reach it */
    uint32_t ca_mbar;         /* at_async on an mbarrier: its shared address (else TM_NONE) */
    uint32_t ca_n[TM_CA_KINDS];  /* copies issued (the next one's ordinal) */
    uint32_t ca_lo[TM_CA_KINDS]; /* every copy of a lower ordinal has completed */
    uint32_t ca_ngrp[3];      /* groups committed (kind 0; 1 and 2; 3) */
    uint32_t ca_grp[3][TM_CA_GRP];      /* ca_n at the last TM_CA_GRP commits (ring) */
    uint64_t ca_out[TM_CA_KINDS][TM_CA_WIN / 64]; /* bit o % TM_CA_WIN: copy o in flight */
    struct { uint32_t addr, need, kind; } ca_arr[TM_CA_ARR]; /* an arrival on the mbarrier
                                                  at shared address addr once ca_lo[kind] >= need */
};

struct tm_cta {
    struct engine_cta *ec;    /* NULL: slot free */
    struct tm_kernel *k;      /* the launch it belongs to */
    uint32_t warp0, nwarps;   /* SM warp slots warp0 … warp0+nwarps-1 */
    uint32_t live;            /* warps not yet finished (done and drained) */
    uint64_t clu_seen;        /* k->clu_epoch when its parked warps were last re-queried */
};

/* A register set between two stages: per part (sub-core) a FIFO of instruction indices. */
struct tm_pipereg {
    uint32_t cap;             /* per part */
    uint32_t *slot;           /* [part * cap + k] */
    uint32_t *n;              /* [part] */
};

struct tm_unit {
    uint64_t busy_until;      /* accepts a new instruction from this cycle */
    uint64_t mma_end;         /* its last MMA at -ptxemu_tensor_rate ends its work */
    uint8_t fu, part;
};

struct tm_heap_ent {
    uint64_t t;
    uint32_t inst;
    uint32_t seq;
};

struct tm_sm {
    uint32_t id;
    const struct tm_config *cfg;
    uint64_t cycle;           /* core cycles since the GPU started (gpu_tot_sim_cycle + n) */
    uint32_t nparts;          /* sub-cores: schedulers (sub-core model) or 1 */
    uint32_t nsched;

    /* resources (with -gpgpu_concurrent_kernel_sm 0 every resident CTA is of `kernel`) */
    struct tm_kernel *kernel;
    uint32_t ncta, threads_used, regs_used, shmem_used, warps_used;
    uint32_t ncta_slots, nwarp_slots;
    struct tm_cta *cta;
    struct tm_warp *w;
    uint64_t next_age;
    /* running warps (w->cta != NULL) as bit masks, when nwarp_slots <= 64 (else 0 and the
     * stages scan): occ_all bit i = slot i; occ[k] bit j = slot j * nsched + k */
    bool occ_ok;
    uint64_t occ_all;
    uint64_t *occ;            /* [nsched] */
    uint64_t ibe;             /* with the masks: slots whose instruction buffer may be empty
                                 (every running warp with nib == 0 has its bit; fetch visits
                                 only these and clears the bits of filled ones) */
    /* with the masks, the warps of each scheduler by issue class (issue 24 item 3), so that
     * the issue stage visits only the warps that may issue and finds a stalled scheduler's
     * reason without walking its warps: wc[k * TM_WCLS + c] bit j = slot j * nsched + k is in
     * class c (sm.c's stall order: 1 idle (unused), 2 empty buffer or not launched, 3 barrier,
     * 4 fence, 5 scoreboard, 6 may issue; 0: not running) as of its last classification;
     * wc_dirty[k]: slots whose class may have changed since (wc_mark at every event that
     * changes a warp's barrier, fence, buffer, scoreboard, launch or running state; slots
     * still in their launch or sleep latency stay marked), reclassified when scheduler k's
     * issue stage starts (and by the quiet-cycle check) */
    uint64_t *wc;             /* [nsched * TM_WCLS] */
    uint64_t *wc_dirty;       /* [nsched] */

    /* schedulers */
    uint32_t *last_issued;    /* [sched] warp slot, TM_NONE */
    uint32_t *rr_start;       /* [sched] */
    uint32_t **order;         /* [sched] scratch: candidate warps in priority order */
    uint32_t *norder;
    uint32_t *active_pool;    /* two-level: [sched * two_level_active + k], TM_NONE = empty */
    uint32_t fetch_rr;

    /* instruction pool */
    struct tm_inst *inst;
    uint32_t inst_cap, inst_free;
    struct tm_memop *mop;
    uint32_t mop_cap, mop_free;

    /* pipeline */
    uint32_t nfu;             /* unit kinds the stages scan: TM_FU_SPEC, plus the specialised
                                 ones up to the last configured */
    struct tm_pipereg id_oc[TM_FU__COUNT];
    struct tm_pipereg oc_ex[TM_FU__COUNT];
    uint32_t idoc_n[TM_MAX_PARTS]; /* instructions in the ID_OC registers of each part */
    uint32_t coll_n[TM_MAX_PARTS]; /* collector units of each part holding an instruction */
    uint32_t ncoll;           /* collector units per part: generic ones k < ngen, then the
                                 specialised sets (cs_base[f] … + cs_n[f]; none when off) */
    uint32_t ngen;
    uint32_t cs_base[TM_FU__COUNT], cs_n[TM_FU__COUNT];
    uint32_t *coll;           /* [part * ncoll + k]: instruction or TM_NONE */
    uint32_t coll_rr;
    uint32_t nbanks;          /* register banks per part */
    uint32_t *bank_used;      /* [part * nbanks + b]: reads granted this cycle */
    struct tm_unit *unit;
    uint32_t nunit;
    uint32_t ldst_cur;        /* instruction in the LD/ST unit, TM_NONE */
    uint32_t *tma_q;          /* bulk and tensor copies sending their lines, oldest first (the
                                 TMA unit beside the LD/ST unit; a ring, grown on demand) */
    uint32_t tma_cap, tma_head, tma_n;
    uint64_t ldst_busy_until;
    uint64_t tc5_free;        /* the tcgen05 queue (tcgen05.mma / cp / shift of every CTA, in
                                 dispatch order) takes the next one from this cycle */

    /* completion heap (t_ready order) */
    struct tm_heap_ent *heap;
    uint32_t heap_n, heap_cap, heap_seq;

    /* instruction cache (when not perfect) */
    struct tm_cache *l1i;     /* NULL: -gpgpu_perfect_inst_const_cache 1 */

    /* L1 data cache (NULL: none, or -gpgpu_perfect_mem) and its hits in flight (t_ready =
     * when the data is back, inst = the instruction; pushed in t_ready order) */
    struct tm_cache *l1d;
    struct tm_queue l1_hit;
    uint64_t l1d_kernel;      /* uid of the kernel the L1D was last invalidated for */
    bool l1_fresh;            /* the L1s are as tm_sm_l1d_make built them for a carve-out of
                                 l1_shmem bytes, never accessed since (no CTA placed) */
    uint32_t l1_shmem;
    /* L1 constant and texture caches (NULL: -gpgpu_perfect_mem, -gpgpu_perfect_inst_const_cache
     * 1 for the L1C, or the option "none") and their hits in flight, as l1_hit */
    struct tm_cache *l1c, *l1t;
    struct tm_queue l1c_hit;
    /* the L1s' fill ports (L1D, L1C, L1T): free from this cycle on; the L1D's banks (data
     * ports narrower than a sector stay busy several cycles) */
    uint64_t l1_fill_free[3];
    uint64_t l1_bank_free[32];
    /* the L1C's and L1T's data ports ([1], [2]; [0] unused, the L1D has its banks): free from
     * this cycle on */
    uint64_t l1_data_free[3];
    /* the L1T's texture pipeline (GPGPU-Sim's tex_cache; the fields of the MSHR and miss-queue
     * part of -gpgpu_tex_cache:l1): accepted accesses in order in the fragment FIFO (a ring
     * of tf_cap entries), each answered when it reaches the head and its data is there, one
     * per cycle; misses hold a reorder-buffer entry (tf_rob of tf_rob_cap) until answered and
     * wait in the request FIFO (tf_req of tf_req_cap: the L1T's miss queue) until sent */
    struct tm_tex_frag *tf;
    uint32_t tf_cap, tf_head, tf_n, tf_rob, tf_rob_cap, tf_req, tf_req_cap;
    /* the last device block an access fell in: [cv_lo, cv_hi) maps to canonical + cv_off */
    uint64_t cv_lo, cv_hi, cv_off;
    uint32_t nclu;            /* resident CTAs of multi-CTA clusters */

    /* queues shared with the memory system; in the relaxed and lookahead modes, the memory
     * system overlapped with the SMs (cfg relax_ovl), the two sides never touch the same
     * queue in a window: the SM pushes into to_mem and pops from_mem, the memory system pops
     * to_net and pushes into net_rep, and between windows the driver moves to_mem into
     * to_net and net_rep into from_mem (gpu.c ovl_exchange), noting what each side may
     * assume of the other's queue for the window: net_held (to_net's requests, counted
     * against to_mem's room) and rep_held (from_mem's replies, counted against its room by
     * the memory system) */
    struct tm_queue to_mem, from_mem;
    struct tm_queue to_net, net_rep;
    uint32_t net_held, rep_held;

    uint64_t st[TM_ST__COUNT];

    /* Quiet SMs skip cycles (issue 24): after a cycle that changed nothing but counters, the
     * SM sleeps until sleep_until (its next internal event) or until the memory system
     * pushes a response (from_mem.n != sleep_nresp); tm_sm_wake then adds sleep_d, the
     * counters that one quiet cycle added, once per skipped cycle [sleep_from, now). */
    uint64_t sleep_until;     /* 0: awake */
    uint64_t sleep_from;
    uint32_t sleep_nresp;
    uint64_t sleep_d[TM_ST__COUNT];

    /* SMs on several host threads (par.c): in the parallel phase of a cycle (par) the issue
     * stage stops at the first warp it would issue an instruction with effects outside the
     * SM (global memory, atomics, calls: tm_insn_shared) and leaves the rest of the cycle
     * (scheduler resume_k on) to tm_sm_resume, in SM order. pset: the copy of the
     * per-instruction counters this SM adds to (its host thread's). */
    bool par;
    uint32_t resume_k;        /* TM_NONE: not suspended */
    uint32_t pset;
};

int tm_sm_init(struct tm_sm *s, uint32_t id, const struct tm_config *cfg);
void tm_sm_free(struct tm_sm *s);
/* Can the SM take one more CTA of kernel k? */
bool tm_sm_can_take(const struct tm_sm *s, const struct tm_kernel *k);
/* Start CTA `linear` of kernel k on s. 0, -EBUSY (no room), or a negative error. */
int tm_sm_start_cta(struct tm_sm *s, struct tm_kernel *k, uint64_t linear,
                    uint64_t launch_latency);
/* How many more CTAs of kernel k fit on s now (CTA slots, contiguous warp slots, registers,
 * shared memory, the occupancy limit)? */
uint32_t tm_sm_room(const struct tm_sm *s, const struct tm_kernel *k);
/* Start the already created CTA ec of kernel k on s (a member of a cluster; the caller checked
 * tm_sm_room). 0, or -EBUSY when it does not fit after all (ec untouched). */
int tm_sm_place_cta(struct tm_sm *s, struct tm_kernel *k, struct engine_cta *ec,
                    uint64_t launch_latency);
/* Stop the warps of kernel k's CTAs on s (after k faulted): they issue nothing more, their
 * instructions in flight drain, then the CTAs retire. */
void tm_sm_stop_kernel(struct tm_sm *s, const struct tm_kernel *k);
/* One core cycle of s. Returns -1 when out of memory (stop everything), 1 when s->par is set
 * and the cycle stopped before a step with effects outside the SM (finish it with
 * tm_sm_resume), else 0. */
int tm_sm_cycle(struct tm_sm *s, struct tm_gpu *g);
/* The rest of a cycle tm_sm_cycle left (returned 1): the remaining schedulers' issue, then
 * fetch; run serially, in SM order. -1 when out of memory, else 0. */
int tm_sm_resume(struct tm_sm *s, struct tm_gpu *g);
/* May stepping `in` touch anything outside its CTA's SM (global, generic, texture or surface
 * memory, atomics there, calls: printf, malloc)? Instructions for which this is false only
 * read and write the CTA's registers, shared and local memory (a fault is ordered by the
 * engine's ENGINE_CLOCK_ORDER key). */
bool tm_insn_shared(const struct ir_insn *in);
/* Has s's request queue no room (with the memory system overlapped, the requests the memory
 * system still held at the window's start count too: net_held, 0 otherwise)? */
static inline bool tm_sm_req_full(const struct tm_sm *s)
{
    return s->to_mem.n + s->net_held >= s->to_mem.cap;
}
/* Is s asleep at core cycle now (quiet: skipping its cycles, see struct tm_sm)? */
static inline bool tm_sm_asleep(const struct tm_sm *s, uint64_t now)
{
    return s->sleep_until > now && s->from_mem.n == s->sleep_nresp;
}
/* Wake s at core cycle now (before anything changes it from outside, or before reading its
 * counters): add the counters of the cycles it skipped. No-op when awake. */
void tm_sm_wake(struct tm_sm *s, uint64_t now);
/* Has s anything left to do (CTAs resident, requests in flight)? */
bool tm_sm_busy(const struct tm_sm *s);
/* Retire every CTA (after a fault). */
void tm_sm_abort(struct tm_sm *s);


#endif
