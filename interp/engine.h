/*
 * interp/engine.h — the engine seam: what a second driver of the functional engine (timing
 * mode) uses to run a kernel one warp instruction at a time.
 *
 * The functional grid runner (grid.c) and a timing model are two drivers of the same launch
 * set-up. A driver:
 *
 *   engine_launch_begin   validate the launch, lay out parameters / shared / local memory,
 *                         create the launch state (printf FIFO, trap record, clock hook)
 *   engine_cta_create     bring up CTA `linear` (warps at the kernel entry, shared memory
 *                         cleared), held in the driver's own structures
 *   engine_step           execute exactly one warp instruction of one warp, with a report of
 *                         what a timing model needs (PC, masks, memory accesses, branch
 *                         outcome, barrier arrival, exit, fault)
 *   engine_warp_query     a warp's next PC and mask, parked at a barrier, exited, faulted
 *   engine_cta_release    release barriers that completed because threads exited; detect a
 *                         deadlock (every live warp parked, no barrier can complete)
 *   engine_cta_exit       the checks of a CTA whose warps all exited (tensor memory freed)
 *   engine_cta_destroy    retire the CTA (its statistics go to the launch)
 *   engine_launch_end     flush device printf, release deferred frees, return the trap and
 *                         statistics, free the launch state
 *
 * The engine computes every value; the driver decides when each warp instruction executes.
 * CTAs of one launch may be stepped from several host threads as long as one CTA is stepped
 * by one thread at a time (device memory accesses are host atomics where PTX says so, as in
 * functional mode). Nothing here knows about cycles except the clock hook: %clock, %clock64
 * and %globaltimer read through it, so a kernel that times itself sees simulated time.
 *
 * PCs in reports and queries are indices into the IR function's instruction array
 * (ir_func.insns of the module the program was loaded from), never pointers into the engine's
 * private execution image. A PC equal to the function's ninsns is the implicit return at the
 * end of its body.
 */
#ifndef PTXEMU_INTERP_ENGINE_H
#define PTXEMU_INTERP_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "frontend/ir.h"
#include "interp/interp.h"

struct engine_launch; /* opaque: one launch's state */
struct engine_cta;    /* opaque: one CTA (warps, shared and local memory, barriers) */

/* ------------------------------------------------------------------ clock hook */

enum engine_clock_kind {
    ENGINE_CLOCK_CYCLES = 0, /* %clock, %clock_hi, %clock64: the SM's cycle counter */
    ENGINE_CLOCK_NS = 1,     /* %globaltimer, %globaltimer_lo/_hi: nanoseconds */
    ENGINE_CLOCK_ORDER = 2,  /* not a clock: the order key of a fault this warp raises now.
                                The launch keeps the fault with the lowest key (the earlier
                                one on a tie), so a driver stepping CTAs on several host
                                threads records the fault a serial run would (timing: the
                                cycle and the SM) */
};

/* Returns the value the kernel reads for `kind`, for warp `warp` of the CTA with linear index
 * `cta` (the driver maps CTAs to SMs). Called from engine_step on the stepping thread. */
typedef uint64_t (*engine_clock_fn)(void *ctx, enum engine_clock_kind kind, uint64_t cta,
                                    uint32_t warp);

/* ------------------------------------------------------------------ launches */

/*
 * Validate launch l of device d and create its state in *out: parameters copied, shared and
 * local memory laid out, printf FIFO and trap record ready (trap is filled by faults and must
 * outlive the launch). Returns 0; -EINVAL for an invalid configuration (bad dimensions, too
 * many threads, too much shared memory; message in trap->msg); -ENOMEM.
 */
int engine_launch_begin(struct interp_dev *d, const struct interp_launch *l, struct trap *trap,
                        struct engine_launch **out);

/* Route %clock/%clock64/%globaltimer of this launch through fn (NULL: the host clock, what
 * functional mode uses). Set before the first CTA is created. */
void engine_launch_set_clock(struct engine_launch *L, engine_clock_fn fn, void *ctx);

/* The launch's shape: CTAs in the grid, threads and warps per CTA. */
uint64_t engine_launch_ctas(const struct engine_launch *L);
uint32_t engine_launch_threads(const struct engine_launch *L);
uint32_t engine_launch_warps(const struct engine_launch *L);

/* Has a fault been recorded (by any CTA)? Drivers stop stepping once it is. */
bool engine_launch_trapped(const struct engine_launch *L);

/*
 * End the launch: flush device printf to the device's printf stream, release deferred device
 * frees, add the retired CTAs' instruction counts to *st (may be NULL), free L. Every CTA must
 * have been destroyed. Returns 1 when a fault was recorded (the trap record is filled), else 0.
 */
int engine_launch_end(struct engine_launch *L, struct interp_stats *st);

/* ------------------------------------------------------------------ CTAs */

/* Create CTA `linear` (0 ≤ linear < engine_launch_ctas) with every warp at the kernel's
 * entry. 0, -EINVAL (linear out of range, or a launch with clusters of several CTAs: those are
 * created a cluster at a time, engine_cluster_create), -ECANCELED (a clusterlaunchcontrol
 * .try_cancel cancelled it: it never runs, the driver skips it), -ENOMEM. */
int engine_cta_create(struct engine_launch *L, uint64_t linear, struct engine_cta **out);

/* CTAs per thread-block cluster of the launch (1: every CTA is a cluster of one). */
uint32_t engine_launch_cluster_size(const struct engine_launch *L);

/* Create the engine_launch_cluster_size(L) CTAs of cluster q (0 ≤ q < CTAs / size) together,
 * out[r] = the CTA of rank r: they share the cluster's barrier and see each other's shared
 * memory. A member's memory stays until every member was destroyed (peers may still read
 * it). The last barrier.cluster arrival, inside one member's step or release, releases warps
 * of the other members too: a driver re-queries their parked warps after any step or release
 * of a member. 0, -EINVAL, -ECANCELED (cancelled, see engine_cluster_canceled), -ENOMEM
 * (nothing created). */
int engine_cluster_create(struct engine_launch *L, uint64_t q, struct engine_cta **out);

/* Has a clusterlaunchcontrol.try_cancel of the launch cancelled cluster q (CTA q without
 * clusters)? Such a cluster must never start: a driver skips it (creating it says -ECANCELED).
 * A cancel takes the lowest cluster not started yet (interp/clc.c), so a driver that starts
 * clusters in order skips cancelled ones at the front of what it has left. */
bool engine_cluster_canceled(const struct engine_launch *L, uint64_t q);

/* The CTA's linear index and its (x, y, z) id in the grid. */
uint64_t engine_cta_linear(const struct engine_cta *c);
void engine_cta_id(const struct engine_cta *c, uint32_t id[3]);

/* Retire a CTA (finished or not): its instruction counts go to its launch; frees c. */
void engine_cta_destroy(struct engine_cta *c);

/*
 * Release the barriers of c that are complete (threads that exited no longer hold them up).
 * Returns the number of barriers released (parked warps become ready), or -1 when the CTA is
 * deadlocked — every live warp parked and none can be released — in which case the deadlock
 * is recorded as the launch's fault (engine_launch_trapped becomes true).
 */
int engine_cta_release(struct engine_cta *c);

/* Has every warp of c exited? */
bool engine_cta_done(const struct engine_cta *c);

/*
 * The checks the functional loop makes when every warp of c has exited, for a driver that
 * retires c after its last warp finished (not when it aborts a faulted launch): tensor memory
 * (tcgen05.alloc) still allocated is the launch's fault, as in functional mode. Returns 0, or
 * -1 when it recorded a fault (engine_launch_trapped becomes true).
 */
int engine_cta_exit(struct engine_cta *c);

/* ------------------------------------------------------------------ warps */

enum engine_warp_status {
    ENGINE_WARP_READY = 0, /* can be stepped */
    ENGINE_WARP_BARRIER,   /* parked at a barrier until it completes */
    ENGINE_WARP_EXITED,    /* every lane exited */
    ENGINE_WARP_FAULTED,   /* stopped by a fault (the launch's trap) */
};

struct engine_warp_info {
    enum engine_warp_status status;
    const struct ir_func *func; /* function holding pc (calls move into callees) */
    uint32_t pc;                /* next instruction (index into func->insns) */
    uint32_t active;            /* lanes that execute it (before its guard predicate) */
    uint32_t valid;             /* lanes that exist (a partial last warp has fewer) */
    uint32_t exited;            /* lanes that exited */
    uint32_t bar_id;            /* ENGINE_WARP_BARRIER: the barrier (16: barrier.cluster,
                                   17: a wgmma.mma_async waiting for its warpgroup, 18: every
                                   path of the warp waits, some at non-aligned barriers) */
    uint32_t simt_depth;        /* SIMT stack entries (divergence nesting) */
};

/* The state of warp `warp` of c (after any pending reconvergence). 0, or -EINVAL. */
int engine_warp_query(struct engine_cta *c, uint32_t warp, struct engine_warp_info *out);

/* ------------------------------------------------------------------ stepping */

/* What a step did (engine_step_report.flags). */
enum {
    ENGINE_STEP_EXECUTED = 1 << 0, /* the instruction ran for exec_mask != 0 lanes */
    ENGINE_STEP_BRANCH = 1 << 1,   /* bra / brx.idx: see taken, target, reconv */
    ENGINE_STEP_DIVERGED = 1 << 2, /* the branch split the warp (not every active lane went the
                                      same way) */
    ENGINE_STEP_CALL = 1 << 3,     /* call (target: the callee's first PC, 0) */
    ENGINE_STEP_RET = 1 << 4,      /* ret, or the end of a function body */
    ENGINE_STEP_EXIT = 1 << 5,     /* exit (lanes in exec_mask ended) */
    ENGINE_STEP_BARRIER = 1 << 6,  /* bar / barrier: see bar_id, bar_count, bar_arrived */
    ENGINE_STEP_PARKED = 1 << 7,   /* the warp now waits at the barrier */
    ENGINE_STEP_MEMORY = 1 << 8,   /* load / store / atomic: see access[] */
    ENGINE_STEP_ATOMIC = 1 << 9,   /* atom / red: atomic_op */
    ENGINE_STEP_FAULT = 1 << 10,   /* the instruction faulted: the launch's trap is set */
    ENGINE_STEP_WARP_DONE = 1 << 11, /* every lane of the warp has now exited */
};

/* One lane's memory access. Shared and local addresses are byte offsets in the CTA's shared
 * memory / the thread's local area (whatever the instruction's addressing: generic addresses
 * are resolved); global and const addresses are device addresses; param addresses are
 * offsets in the kernel's parameter block or the function's parameter frame. Texture fetches
 * report the texels read as SP_TEX device addresses (once per 32-byte sector over the warp),
 * surface instructions their elements as SP_GLOBAL accesses. */
struct engine_access {
    uint64_t addr;
    uint32_t lane;
    uint16_t width;  /* bytes (a vector access is one access of its whole width) */
    uint8_t space;   /* enum ir_space: SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_CONST, SP_PARAM, SP_TEX */
    uint8_t write;   /* 1: store (or the write of an atomic) */
};

#define ENGINE_MAX_ACCESS 64

/* A run of global bytes a bulk or tensor copy (cp.async.bulk{.tensor}, cp.reduce.async.bulk
 * {.tensor}) read or wrote: its pieces merged while contiguous (a box's rows), in the order
 * copied. Such copies report their global bytes here, not in access[], and not their
 * shared-memory side; access[] keeps their mbarrier accesses (complete_tx). */
struct engine_range {
    uint64_t addr;  /* device address */
    uint32_t bytes;
    uint16_t lane;
    uint8_t write;  /* 1: written (a store or the write of a reduction) */
    uint8_t pad;
};

#define ENGINE_MAX_RANGE 1024

/* The operand class of a tensor-core multiply-accumulate (engine_step_report.tc_class): what a
 * timing model's tensor cores run at different rates. */
enum engine_tc_class {
    ENGINE_TC_F16,    /* f16 / bf16 inputs, f32 accumulator */
    ENGINE_TC_F16ACC, /* f16 inputs, f16 accumulator */
    ENGINE_TC_TF32,
    ENGINE_TC_F64,
    ENGINE_TC_I8,     /* s8 / u8 */
    ENGINE_TC_F8,     /* e4m3 / e5m2, and the 6- and 4-bit types of .kind::f8f6f4 / mxf8f6f4 */
    ENGINE_TC_F4,     /* .kind::mxf4 / .kind::mxf4nvf4 (e2m1 at its own rate) */
    ENGINE_TC_I4,     /* s4 / u4 */
    ENGINE_TC_B1,
    ENGINE_TC__COUNT
};

struct engine_step_report {
    const struct ir_func *func; /* function of the instruction (its module's IR) */
    const struct ir_insn *insn; /* &func->insns[pc], NULL for the implicit end-of-body return */
    uint32_t pc;                /* index of the instruction in func->insns */
    uint32_t active_before;     /* lanes active at the instruction */
    uint32_t exec_mask;         /* active lanes whose guard predicate held: those that ran it */
    uint32_t active_after;      /* lanes active at the warp's next instruction (0: none) */
    uint32_t next_pc;           /* the warp's next PC (in next_func) */
    const struct ir_func *next_func;
    uint32_t flags;             /* ENGINE_STEP_* */
    uint8_t unit;               /* enum ir_unit (insn->unit; U_CTRL for the implicit return) */
    uint8_t lat;                /* enum ir_lat (insn->lat) */
    uint8_t atomic_op;          /* enum ir_mode of an atom / red (MODE_ADD, MODE_CAS, …) */
    uint32_t taken;             /* branch: lanes that went to target */
    uint32_t target;            /* branch: target PC (lane-varying brx.idx: the first lane's) */
    uint32_t reconv;            /* branch: reconvergence PC (IR_NOPC: the function's exit) */
    uint32_t bar_id;            /* barrier id */
    uint32_t bar_count;         /* barrier thread count operand (0: all threads of the CTA) */
    uint32_t bar_arrived;       /* lanes counted as arriving */
    uint32_t sleep_ns;          /* nanosleep: the requested delay (the first executing lane's
                                   operand; the ISA lets a GPU take 0..2x of it, a timing
                                   model takes it as given) */
    uint64_t tc_macs;           /* a tensor-core multiply-accumulate: the multiply-adds it does
                                   (M·N·K; half that with structured-sparse A): mma / mma.sp /
                                   wmma.mma the warp's, wgmma.mma_async the warp's quarter of
                                   the warpgroup's (16 rows), tcgen05.mma every executing
                                   lane's; 0 for other instructions */
    uint32_t tc_bytes;          /* tcgen05.cp / tcgen05.shift: bytes moved into tensor memory
                                   (every executing lane's) */
    uint8_t tc_class;           /* enum engine_tc_class of tc_macs */
    uint8_t tc_pair;            /* tcgen05 .cta_group::2: the work of the pair's two SMs
                                   (this CTA's SM does half) */
    uint32_t nrange;            /* entries of range[] (≤ ENGINE_MAX_RANGE) */
    uint64_t range_dropped;     /* bytes of runs beyond ENGINE_MAX_RANGE (not recorded) */
    uint32_t naccess;           /* entries of access[] (≤ ENGINE_MAX_ACCESS) */
    uint32_t access_dropped;    /* accesses beyond ENGINE_MAX_ACCESS (not recorded) */
    struct engine_access access[ENGINE_MAX_ACCESS];
    struct engine_range range[ENGINE_MAX_RANGE]; /* (after access[]: not cleared per step) */
};

/*
 * Execute exactly one warp instruction of warp `warp` of c and describe it in *r. A guard
 * predicate false for every active lane still counts as the instruction (exec_mask 0), as a
 * GPU issues it. Pending reconvergence is applied before and after, so r->next_pc / active_after
 * are what engine_warp_query would report next.
 * Returns 0 when an instruction was executed (it may have faulted: ENGINE_STEP_FAULT), or
 * -EAGAIN when the warp is not ready (parked, exited, faulted), or -EINVAL; *r is left as it
 * was on those errors.
 */
int engine_step(struct engine_cta *c, uint32_t warp, struct engine_step_report *r);

#endif
