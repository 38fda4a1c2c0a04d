/*
 * interp/internal.h — the functional engine's private state: devices, loaded programs, per-
 * function execution images, warps (register files + SIMT stack), CTAs, launches.
 *
 * Only interp/FILE.c include this header. The exec loop (exec.c) and the handler families
 * (ops/FAMILY.inc) see a warp as structure-of-arrays register files: r32[slot][32] etc.
 */
#ifndef PTXEMU_INTERP_INTERNAL_H
#define PTXEMU_INTERP_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "frontend/ir.h"
#include "interp/engine.h"
#include "interp/interp.h"
#include "interp/mem.h"
#include "interp/vm.h"

/* ====================================================================== handler ids */

enum interp_handler {
    HND_NONE = 0, /* no handler: unsupported instruction (never dispatched) */
#define H(name, cond, ...) HND_##name,
#define HMODE HMODE_ENUM
#include "interp/ops/families.inc"
#undef HMODE
#undef H
    HND__COUNT
};

/* select.c: the handler for one instruction (HND_NONE if none matches). */
unsigned interp_select(const struct ir_module *m, const struct ir_func *f,
                       const struct ir_insn *in, const struct ir_opnd *O);
/* select.c: the reason an instruction without a handler is refused, or NULL */
const char *interp_unsupported_why(const struct ir_func *f, const struct ir_insn *in);
/* select.c: the handler's name ("ADD_S32"). */
const char *interp_handler_name(unsigned h);

/* Function addresses (call through a register, function-pointer tables): a window no data
 * allocation can be in. value = MEM_FUNC_BASE + (module << 20 | function) * 16. */
#define MEM_FUNC_BASE UINT64_C(0x0000130000000000)

/* ====================================================================== loaded program */

/* Patch of a constant slot that depends on the frame: value = frame base + off. */
struct slot_patch {
    uint8_t rf;
    uint8_t kind; /* PATCH_LOCAL: local stack pointer + off */
    uint32_t slot;
    uint64_t off;
};
enum { PATCH_LOCAL = 1 };

/* The execution image of one function: a copy of the instructions and operands with handlers
 * chosen, guards rewritten (no guard -> the always-true predicate slot) and memory operands'
 * symbol offsets resolved; a register-frame template with the constants broadcast. */
/* A byte range of a register frame. */
struct frame_span {
    uint32_t off, len;
};

struct xfunc {
    const struct ir_module *m;
    const struct ir_func *f;
    uint32_t mod_index, func_index;
    struct ir_insn *insns;
    struct ir_opnd *opnds;
    uint8_t *xspace;                /* per operand (indexed as opnds): the space class (enum
                                       xspace, ops/helpers.h) of a memory operand */
    uint32_t ninsns;
    /* register frame: r64 [n64][32], r32 [n32][32], r16 [n16][32], pred [npred] */
    uint32_t n16, n32, n64, npred;
    uint32_t off32, off16, offpred; /* byte offsets inside the frame */
    uint32_t frame_bytes;           /* register frame size (multiple of 64) */
    uint8_t *tmpl;                  /* frame_bytes: zeros + broadcast constants */
    uint64_t serial;                /* device-unique id of this image (warp.tmpl_serial) */
    struct frame_span *zero;        /* what warp_init clears when tmpl is already in place: */
    uint32_t nzero;                 /* the registers read before written (cfg_undef_regs) */
    struct slot_patch *patch;
    uint32_t npatch;
    uint32_t local_size;            /* .local bytes of one activation */
    uint32_t param_frame;           /* per-lane .param bytes (own params + call sites) */
    bool clc;                       /* holds a clusterlaunchcontrol.try_cancel: its launches
                                       track cancelled clusters (clc.c, launch_state.clc) */
};

struct interp_kernel {
    struct interp_program *prog;
    struct xfunc *xf;
    struct interp_kernel_info info;
    uint32_t *param_offset, *param_size;
    uint32_t shared_static;     /* static .shared bytes as ptxas counts them (the entry's
                                   ir_func.shared_size: what launches and attributes count) */
    uint32_t shared_extent;     /* static bytes a CTA's buffer holds: the entry's
                                   ir_func.shared_extent, or the module's ir_module.shared_size
                                   when the buffer is cleared whole (nshared_zero below) */
    uint32_t dyn_shared_offset; /* where dynamic shared memory starts (one offset per module:
                                   a CTA's buffer may be larger than shared_static + dynamic) */
    /* what cta_begin clears of the static segment (other kernels' variables may share
     * offsets with this kernel's): the ranges of the shared variables this kernel names;
     * nshared_zero == UINT32_MAX: the whole buffer. shared_dyn_zero: also the dynamic part. */
    struct frame_span *shared_zero;
    uint32_t nshared_zero;
    bool shared_dyn_zero;
};

/* Names to indices (load.c): open addressing over the names' hashes; the first index added
 * under a name is the one found. Lookups at load (externs) and by the runtime (kernels and
 * variables by name) cost one probe sequence, never a scan of the module. */
struct name_index {
    uint32_t *idx;  /* per slot: index + 1, 0 = empty */
    uint32_t *hash; /* per slot: the name's hash (low 32 bits), compared before the strings */
    uint32_t mask;  /* slots - 1 (a power of two minus one) */
};

struct prog_module {
    const struct ir_module *m;
    struct xfunc *xf;           /* per function (NULL insns for declarations) */
    uint64_t *sym_addr;         /* per module-scope global/const symbol: device address */
    uint32_t *param_off;        /* per symbol: offset of a .param symbol in its frame */
    struct xfunc **link;        /* per function: the definition it resolves to (externs) */
    uint32_t dyn_off;           /* where dynamic (extern) .shared starts: predecode's offset
                                   of the module's dynamic variables */
    struct name_index funcs_by_name; /* as ir_func_lookup: every function, first wins */
    struct name_index syms_by_name;  /* as ir_sym_lookup: module-scope variables */
};

struct interp_program {
    struct interp_dev *dev;
    struct prog_module *mods;
    unsigned nmods;
    struct interp_kernel *kernels;
    unsigned nkernels;
    struct name_index kernels_by_name; /* interp_program_kernel: the first of a name */
    uint64_t *allocs;           /* device allocations to free on unload */
    unsigned nallocs;
};

/* leakcheck: a device malloc block's allocation (devlib.c) */
struct heap_site {
    uint64_t addr;
    uint32_t text;   /* index into interp_dev.htext */
    uint32_t tid[3]; /* thread and block */
    uint32_t cta[3];
};
struct heap_site_text {
    uint64_t serial; /* xfunc.serial */
    uint32_t pc;
    char *text;
};

#define INTERP_ATOM_LOCKS 64 /* power of two */

#define DEV_PF_SPARES 8 /* printf buffers kept: one per launch that can run at once */

struct interp_dev {
    struct interp_config cfg;
    struct mem *mem;
    unsigned ncpu;
    _Atomic uint64_t heap_used;    /* device malloc bytes in use */
    uint64_t heap_size;
    /* device free()s take effect at the end of the launch: another warp's allocation cache
     * may still hold the block */
    pthread_mutex_t heap_lock;
    uint64_t *deferred;
    size_t ndeferred, deferred_cap;
    /* leakcheck (under heap_lock): where each live device malloc block was allocated, and
     * the text of each site (kept past its module: leaks are listed at exit) */
    struct heap_site *hsites;
    size_t nhsites, hsites_cap;
    struct heap_site_text *htext;
    size_t nhtext;
    /* spin locks (0 free, 1 held; zero-filled by calloc) serialising 16-byte atomics
     * (atom.cas/exch.b128) across host threads, picked by address (interp/ops/helpers.h) */
    uint32_t atom_lock[INTERP_ATOM_LOCKS];
    struct grid_pool *pool;        /* host threads running CTAs (grid.c); NULL: none */
    /* printf buffers of finished launches, kept for the next ones (a buffer is 1 MiB by
     * default: allocating and freeing one per launch cost more than a small launch) */
    pthread_mutex_t pf_lock;
    struct dev_printf_buf *pf_spare[DEV_PF_SPARES];
    unsigned npf_spare;
    _Atomic uint64_t xf_serial;    /* last xfunc.serial handed out */
};

/* ====================================================================== warps */

/* One SIMT stack entry: lanes `mask` execute from `pc` until `rpc`. */
struct simt_entry {
    uint32_t pc;
    uint32_t rpc; /* IR_NOPC: reconverges at the function's (virtual) exit */
    uint32_t mask;
    uint32_t susp; /* its.c: 0, or 1 + the warp.susp slot of the calls this (calling) entry
                      made, suspended while other paths of its activation run */
};

/* Independent thread scheduling (its.c, warp.c): the activations a path made calls into,
 * set aside while the warp runs other paths of the caller's activation (a __syncwarp in a
 * called function waiting for lanes of the caller's other paths): the SIMT entries above the
 * calling entry and the call records from its call on (bases relative to the first saved
 * entry), the innermost activation's state, the arena in use when it was suspended (its frames
 * stay there: calls of other paths go above them). */
struct its_susp {
    struct simt_entry *ent;
    struct call_rec *calls;
    uint32_t nent, ent_cap, ncall, call_cap;
    struct xfunc *fn;
    uint32_t frame_off, sp, alloca_top, arena_end;
    uint32_t bar_lanes; /* lanes of the innermost activation that its_warp_sync let through the
                           aligned barrier the warp arrived at last (a bar.red reduces their
                           predicates and gives them the result in this frame) */
    uint32_t borrow;    /* lanes of the innermost activation whose registers a .sync collective
                           run by another activation of the function borrowed (its.c) */
    bool used;
};

/* Independent thread scheduling (its.c, cta.c): the warp's lanes at non-aligned CTA barriers
 * (barrier.sync / barrier.red without .aligned), which each path of a warp arrives at on its
 * own. A path's lanes arrive (counted as threads), then wait in their SIMT entry, still at the
 * barrier instruction, while the warp's other paths run; the release moves them to `done`
 * with their bar.red result, and they step past the instruction when it runs for them next.
 * Allocated at a warp's first such wait. */
struct its_bw {
    uint32_t wait;              /* lanes that arrived and wait for a release */
    uint32_t done;              /* lanes released and not past the instruction yet */
    uint32_t mask[16];          /* waiting lanes per barrier id */
    uint32_t pc[16];            /* the instruction the first of them waits at, and its function */
    const struct xfunc *fn[16];
    uint8_t kind[32];           /* per lane: its bar.red (1 popc, 2 and, 3 or), 0 sync */
    uint32_t val[32];           /* per released lane: its bar.red result */
};

/* A call frame: where to return, and the caller's state to restore. */
struct call_rec {
    struct xfunc *caller;
    uint32_t frame_off;         /* caller's register frame in the arena */
    uint32_t base;              /* SIMT depth at the call (callee entries are above) */
    uint32_t sp;                /* caller's local stack pointer */
    uint32_t alloca_top;        /* caller's dynamic stack top */
    uint32_t arena_mark;        /* arena use to restore on return */
    uint32_t mask;              /* lanes that called */
    const struct ir_opnd *rets; /* the call's return elements (caller operands) */
    unsigned nrets;
};

enum warp_state { WS_RUN = 0, WS_PARKED, WS_DONE, WS_TRAP };

struct cta;

struct warp {
    /* hot: registers of the current frame */
    union r16 (*r16)[32];
    union r32 (*r32)[32];
    union r64 (*r64)[32];
    uint32_t *pred;
    uint8_t *params;            /* per-lane param frame: params + lane * fn->param_frame */
    struct xfunc *fn;           /* current function */
    struct mem_cache mc;        /* last global allocation hit */
    uint32_t sp;                /* local stack pointer (bytes into each lane's local area) */
    uint32_t alloca_top;        /* end of alloca area of this frame */

    struct cta *cta;
    uint32_t id;                /* warp index in the CTA */
    uint32_t valid;             /* lanes that exist (partial last warp) */
    uint32_t exited;            /* lanes that executed exit */
    uint32_t cc;                /* CC.CF carry flag per lane (add.cc/addc/sub.cc/subc/mad.cc/madc,
                                   interp/ops/int.inc) */
    enum warp_state state;
    uint8_t bar_id;             /* parked at this barrier */
    uint8_t bar_red;            /* pending bar.red result: 0 none, 1 popc, 2 and, 3 or */
    uint32_t bar_dst_slot;      /* destination slot of a pending bar.red */
    uint8_t bar_dst_rf;
    bool bar_far;               /* the pending bar.red also counts lanes of suspended
                                   activations (its_susp.bar_lanes, its.c) */
    uint32_t bar_mask;          /* lanes that arrived */

    /* SIMT stack */
    struct simt_entry *stk;
    uint32_t depth, stk_cap;
    struct call_rec *calls;
    uint32_t ncalls, calls_cap;

    /* frame arena: register frames + per-lane param frames, addressed by offset */
    uint8_t *arena;
    uint32_t arena_used, arena_cap;
    uint64_t tmpl_serial;       /* xfunc.serial of the kernel frame at arena offset 0 whose
                                   constant slots are intact (0: none) */
    uint32_t frame_off;         /* current frame */
    uint64_t nprintf;           /* printf records issued (ordering) */

    uint8_t *local;             /* lane l's local area: local + l * local_stride */
    uint32_t local_hwm;         /* bytes from the start of each lane's local area that may be
                                   nonzero (raised by local stores, helpers.h vm_xlate; cleared
                                   back to 0 by warp_init), so a CTA never reads another's data */
    uint64_t ninsn, nthread;    /* statistics */
    /* barrier.cluster (split phase, cta.c): lanes that arrived and have not waited yet, and
     * the subset whose arrival is in the cluster barrier's current (incomplete) phase */
    uint32_t clu_arr, clu_cur;
    /* the last barrier arrival (cta.c), for step reports: id (CTA_BAR_CLUSTER for
     * barrier.cluster), count operand, lanes counted */
    uint32_t last_bar_id, last_bar_count, last_bar_arrive;
    uint32_t chk_wep;           /* checking loop: __syncwarp epoch (bar.warp.sync count) */
    /* independent thread scheduling (its.c; targets >= sm_70): the top SIMT entry seen at the
     * end of the last quantum (depth, mask, rpc, call depth), quanta it stayed the same, and
     * the single-step count of engine_step towards the next quantum */
    bool its;
    uint32_t its_depth, its_mask, its_rpc, its_stall;
    uint32_t its_bar_yields;    /* barrier waits that yielded since the last quantum end */
    uint64_t its_steps;
    struct its_susp *susp;      /* suspended activations (slots), and how many are in use */
    uint32_t nsusp, susp_used;
    const struct ir_opnd *bor_mo; /* exec_cold_run: run the .sync collective with lanes of
                                     other activations (ITS_BORROW; NULL: a cold handler) */
    uint32_t bor_need;
    bool its_resumed;           /* suspended activations were resumed since the last barrier
                                   wait (its.c gives their other paths a turn first) */
    struct its_bw *bw;          /* paths at non-aligned CTA barriers (NULL before the first) */
    /* mbarrier spin deadlocks (async.c records, cta.c judges): the object and its 8 bytes at
     * the warp's last wait that no lane passed (its pc and first lane), failing waits with
     * that same object and value in the current quantum, whether a wait passed or the value
     * changed in it (progress), quanta in a row that were nothing but such waits, and the
     * warp's instruction count when the current quantum began */
    const uint8_t *mbw_p;
    uint64_t mbw_v, mbw_base;
    uint32_t mbw_pc, mbw_lane, mbw_q, mbw_rounds;
    uint8_t mbw_want;           /* the phase parity that wait waited for */
    bool mbw_moved;
};
/* warp.its_stall: quanta in a row with an unchanged signature (its.c), and this bit: a yield
 * is due but the activation running at the quantum's end had no other path (a spin loop that
 * calls a function): warp_ret yields when a call returns */
#define ITS_PENDING 0x80000000u

/* ====================================================================== CTAs */

struct barrier {
    uint32_t arrived;           /* threads arrived */
    uint32_t expected;          /* 0: all live threads of the CTA */
    uint32_t popc;
    bool red_and, red_or;
    bool mixed;                 /* a thread arrived in this phase with another thread count
                                   than `expected` (count2; undefined in PTX: deadlock reports
                                   name both) */
    uint32_t count2;
    uint32_t nparked;
};

struct launch_state;
struct cta;

/* Clusters (cluster.c): the shared::cluster window of a CTA's shared memory addresses is its
 * own shared memory at [0, CLU_STRIDE) and the shared memory of the cluster's CTA of rank r at
 * [(r + 1) * CLU_STRIDE, (r + 2) * CLU_STRIDE), for every CTA of the cluster alike (generic:
 * MEM_SHARED_BASE + that). CLU_MAX: most CTAs a cluster may have (sm_90's non-portable
 * limit). */
#define CLU_STRIDE UINT64_C(0x100000)
#define CLU_MAX 16u

/* A thread-block cluster: its CTAs (by rank; NULL while not begun), and the split-phase
 * barrier of barrier.cluster over all their threads. The grid
 * runner (grid.c) runs a cluster's CTAs on one host thread, interleaved round by round, so
 * nothing here needs a lock. Single-CTA launches run clusters of one. */
struct cluster {
    struct cta *cta[CLU_MAX];
    uint32_t n;                 /* CTAs in the cluster (%cluster_nctarank) */
    uint32_t id[3];             /* %clusterid */
    uint32_t exited;            /* threads of the cluster that exited */
    uint32_t arrived;           /* barrier.cluster: threads of the current phase that arrived
                                   (only live threads: an arrived thread that exits is taken
                                   out again) */
    uint32_t phase;             /* completed phases */
    uint32_t begun;             /* CTAs begun so far */
    bool pending;               /* arrivals in the current phase */
};

struct cta {
    struct launch_state *L;
    uint32_t id[3];
    uint64_t linear;
    struct cluster *clu;        /* its cluster */
    uint32_t rank;              /* %cluster_ctarank */
    uint32_t nthreads, nwarps;
    uint32_t live_threads;
    uint32_t live_warps;
    struct warp *warps;
    uint8_t *shared;
    uint32_t shared_size;
    uint32_t local_stride;      /* per-lane local bytes */
    uint8_t *local_mem;
    struct barrier bars[16];
    uint32_t bar_pending;       /* bit per barrier with arrivals */
    uint64_t clock0;
    /* buffers, reused by the next CTA run in this slot */
    size_t warps_cap;
    uint8_t *shared_buf;
    size_t shared_cap;
    uint8_t *local_buf;         /* zeroed when allocated; warps' local_hwm bound what is not */
    size_t local_cap;
    uint32_t local_layout;      /* the local_stride the warps' local_hwm refer to */
    /* set by loads and atomics of spin-waits on other CTAs (ld.volatile, atom.cas, nanosleep
     * …) during a scheduling round; the worker then yields its host thread (grid.c) */
    bool spin;
    /* checking loop (check*.c): barrier epoch (bumped at cta_begin and every barrier release),
     * warp-instruction counter, the shadow state (racecheck cells, initcheck bitmap of the
     * shared bytes written, …) kept for the slot's next CTAs */
    uint32_t chk_ep, chk_step;
    struct check_cta *chk;
    struct wg_cta *wg;          /* wgmma.c: warpgroup arrivals and scratch (NULL before the
                                   slot's first wgmma.mma_async) */
    struct tc5_cta *tm;         /* tcgen05.c: the CTA's tensor memory and its allocations (NULL
                                   before the slot's first tcgen05 instruction) */
    struct worker *wk;          /* the grid runner's host thread running it (NULL: a CTA of the
                                   engine seam); clc.c's deterministic cancel policy */
    bool clc_failed;            /* a thread saw a failed cancel (query_cancel.is_canceled false):
                                   a further try_cancel is a fault (clc.c) */
};

/* The cluster barrier's slot in warp.bar_id (after the 16 named ones): barrier.cluster waits
 * for every live thread of the CTA's cluster (struct cluster); CTA_BAR_WGMMA: the warp waits
 * at a wgmma.mma_async for the other warps of its warpgroup (wgmma.c); CTA_BAR_PATHS: every
 * path of the warp that could run waits, some at non-aligned CTA barriers (struct its_bw),
 * until one of those releases lanes of the warp. */
enum { CTA_BAR_CLUSTER = 16, CTA_BAR_WGMMA = 17, CTA_BAR_PATHS = 18 };

/* A host thread running CTAs: up to `nres` resident CTAs interleaved round by round (more
 * than one for cooperative launches, so CTAs spinning on each other make progress). */
struct worker {
    _Alignas(64) struct launch_state *L; /* one cache line per worker at least: its counters
                                            are written per CTA */
    unsigned index;
    struct cta *res;            /* resident CTA slots */
    unsigned nres;
    uint64_t next_det;          /* deterministic mode: next CTA of this worker */
    uint64_t chunk_next, chunk_end; /* CTAs taken and not started yet: [chunk_next, chunk_end) */
    uint64_t ninsn, nthread, nctas;
    double cpu;                 /* thread CPU seconds spent in this launch (when timed) */
    double t_start, t_end;      /* monotonic seconds this worker started and finished (when timed) */
    bool timed;                 /* measure cpu (statistics were asked for) */
    bool failed;                /* allocation failure */
    pthread_t thread;
};

struct launch_state {
    struct interp_dev *dev;
    const struct interp_config *cfg;
    const struct interp_kernel *k;
    const struct interp_launch *l;
    struct xfunc *xf;
    uint8_t *params;            /* kernel parameter block (copy) */
    uint32_t param_size;
    uint32_t nthreads;          /* per CTA */
    uint64_t nctas;
    uint32_t cdim[3];           /* cluster shape (%cluster_nctaid; 1,1,1 without clusters) */
    uint32_t csize;             /* CTAs per cluster */
    uint64_t nclusters;         /* nctas / csize: the grid runner's unit of work */
    bool explicit_cluster;      /* launched with a cluster shape (%is_explicit_cluster) */
    uint32_t shared_total;      /* bytes of a CTA's shared buffer (static + dynamic part) */
    uint32_t local_stride;
    uint64_t quantum;           /* warp instructions per scheduling quantum */
    unsigned nworkers;
    unsigned resident;          /* CTAs interleaved per worker */
    /* written by every host thread once per CTA: a cache line of its own, so taking a CTA
     * does not evict the read-mostly fields above from the other threads' caches */
    _Alignas(64) _Atomic uint64_t next_cta;  /* CTA queue */
    _Alignas(64) _Atomic int stop;           /* set on the first fault */
    _Atomic uint64_t budget_used;
    pthread_mutex_t trap_lock;
    bool trapped;
    struct trap *trap;
    bool trace;
    FILE *trace_out;
    struct dev_printf_buf *pf;  /* device printf FIFO (interp/printf.h) */
    uint64_t grid_ws;           /* cooperative launches: zeroed grid-sync workspace in device
                                   memory, handed to the kernel in %envreg1 (high 32 bits) and
                                   %envreg2 (low 32 bits) as the CUDA driver does; 0 otherwise */
    unsigned exec_isa;          /* fast-loop variant for this host (EXEC_ISA_*, exec.c), chosen
                                   once per launch by grid_run */
    engine_clock_fn clock_fn;   /* %clock / %globaltimer hook (NULL: host clock), engine.h */
    void *clock_ctx;
    uint64_t trap_key;          /* the recorded fault's ENGINE_CLOCK_ORDER key (fault.c) */
    /* CTAs retired through the engine seam (engine.c): their counts */
    _Atomic uint64_t eng_ninsn, eng_nthread, eng_nctas;
    unsigned check;             /* CHECK_LOOP bits on: warps run the checking loop */
    struct check_launch *chk;   /* their findings until launch_finish prints them (check.c) */
    /* cluster launch control (clc.c): per cluster CLC_PENDING / CLC_STARTED / CLC_CANCELED,
     * NULL when no function of the program holds a try_cancel; the non-deterministic cancel
     * policy's scan position (every cluster below it has left CLC_PENDING) */
    _Atomic uint8_t *clc;
    _Atomic uint64_t clc_front;
};

/* Cluster launch control: a cluster's state leaves CLC_PENDING exactly once (clc.c). */
enum { CLC_PENDING = 0, CLC_STARTED = 1, CLC_CANCELED = 2 };

/* May a driver start cluster q of L (CTA q without clusters)? Marks it started; false when a
 * try_cancel cancelled it (the driver then skips it for good). */
static inline bool clc_claim(struct launch_state *L, uint64_t q)
{
    if (!L->clc)
        return true;
    uint8_t z = CLC_PENDING;
    return atomic_compare_exchange_strong(&L->clc[q], &z, CLC_STARTED);
}

/* clc.c: the launch's cluster states (allocated when a function of the program holds a
 * try_cancel; 0, or -1 out of memory) and their release. */
int clc_launch_init(struct launch_state *L);
void clc_launch_free(struct launch_state *L);

/* ====================================================================== entry points */

/* The parts of a call instruction: call (rets), target, (args) [, prototype]. */
struct call_ops {
    const struct ir_opnd *target;
    const struct ir_opnd *rets, *args; /* element arrays in the function's operand list */
    unsigned nrets, nargs;
};

/* Is the call's target a function name (not a register)? Usable at selection. */
static inline bool vm_call_direct(const struct ir_opnd *O, unsigned nopnd)
{
    for (unsigned i = 0; i < nopnd; i++) {
        if (O[i].kind == OPK_FUNC)
            return true;
        if (O[i].kind == OPK_REG)
            return false;
    }
    return false;
}

/* its.c: independent thread scheduling of a warp's divergent paths (targets >= sm_70) */
void its_quantum(struct warp *w);
bool its_yield(struct warp *w);
int its_warp_sync(struct warp *w, uint32_t pc, uint32_t M, uint32_t need, bool bar);
/* A .sync warp collective (shfl, vote, match, redux, elect) at pc run by lanes M whose member
 * masks name the lanes `need`, some outside M: wait for them (0, run again later: the top
 * path waits or, once every named lane stands at pc, the paths waiting there merged into it),
 * go on with M (1: the named lanes that stand there cannot merge), -1 (one can never
 * arrive) or -2 (some stand there only in suspended activations: its_collective_borrow). */
int its_collective_sync(struct warp *w, uint32_t pc, uint32_t M, uint32_t need);
/* After its_collective_sync said -2 for the collective `in` at pc run by lanes M whose member
 * masks name `need`: the named lanes missing from M stand at pc in suspended activations of
 * the same function (nvcc -G calls __shfl_sync through a .func). Copies the registers of those
 * lanes (split off the leaf entries waiting at pc that hold them) into the current frame's
 * unused lanes and sets *run to those whose guard holds, to run the instruction once with
 * M | *run. False (nothing borrowed) when a named lane is not there after all.
 * its_collective_return (or _unborrow) must follow. */
bool its_collective_borrow(struct warp *w, uint32_t pc, uint32_t M, uint32_t need,
                           const struct ir_insn *in, uint32_t *run);
/* After the collective at pc ran with the lanes its_collective_borrow lent: their registers go
 * back to their own frames and their entries step past pc. */
void its_collective_return(struct warp *w, uint32_t pc);
/* Drop a borrow without running the instruction (a borrowed lane's member mask names a lane
 * that is not there): the lanes stay where they wait. */
void its_collective_unborrow(struct warp *w);
/* Would lanes M of warp w at pc (of the current function), needing the live lanes `need`,
 * pass a bar.warp.sync or aligned barrier now (every needed lane stands there, suspended
 * activations included), rather than wait for other paths? (synccheck asks, check.c) */
bool its_sync_ready(const struct warp *w, uint32_t pc, uint32_t M, uint32_t need);
/* After its_warp_sync let the warp through a bar.red (1): the lanes of suspended activations
 * (of the same function, reached through other call sites) standing at it in *lanes, and
 * their predicate register `slot` (bits of those lanes), read from their own frames. */
uint32_t its_far_pred(const struct warp *w, uint32_t slot, uint32_t *lanes);
/* The bar.red of those lanes completed: store result v in their register rf/slot (a
 * predicate when rf is RF_PRED, else a .b32 register), in their own frames. */
void its_far_result(struct warp *w, unsigned rf, uint32_t slot, uint32_t v);
/* A non-aligned CTA barrier (barrier.sync / barrier.red without .aligned; red: 0 sync, 1 popc,
 * 2 and, 3 or, predv the predicate bits) at pc executed by lanes M, the top entry's, of a warp
 * with independent thread scheduling whose other lanes may run elsewhere: fresh lanes arrive
 * (counted as threads) and wait, another path of the warp runs meanwhile (or the warp parks,
 * CTA_BAR_PATHS, until a release); lanes released since step past it. 1: lanes M pass the
 * barrier now (*v their bar.red result), the caller moves the top entry past pc; 0: the
 * caller reloads the top entry; -1: out of memory or SIMT stack. */
int its_bar_path(struct warp *w, uint32_t pc, uint32_t M, unsigned id, unsigned count, int red,
                 uint32_t predv, uint32_t *v);
/* Does warp w have lanes waiting at, or just released from, a non-aligned barrier (its.c)? */
static inline bool its_bar_busy(const struct warp *w)
{
    return w->bw && (w->bw->wait | w->bw->done) != 0;
}
/* its_warp_sync found that lanes of w can never join lanes M at the aligned barrier `id` at
 * pc (they wait elsewhere): the deadlock report's text, naming the lanes at each place, the
 * other place's barrier and its PTX position, in buf. */
void its_stuck_msg(const struct warp *w, uint32_t pc, uint32_t M, unsigned id, char *buf,
                   size_t n);
/* warp.c: set aside the activations of calls [keep, ncalls) (the top path's, see struct
 * its_susp): the warp continues in activation `keep`, whose calling entry is marked (0, or -1
 * out of memory); resume them when that entry is on top again (settle does). */
int warp_suspend(struct warp *w, uint32_t keep);

/* warp.c: SIMT stack and frames */
int warp_init(struct warp *w, struct cta *c, uint32_t id, struct xfunc *kf, uint32_t valid);
void warp_free(struct warp *w);
/* Divergent branch at pc: lanes `taken` go to `target`, the other active lanes to pc + 1. */
void warp_branch(struct warp *w, uint32_t pc, uint32_t taken, uint32_t target, uint32_t reconv);
/* brx.idx / multi-way: lane l of M goes to targets[l]. */
void warp_branch_multi(struct warp *w, uint32_t pc, uint32_t M, const uint32_t *targets,
                       uint32_t reconv);
/* Push an entry (0, or -1 when the stack cannot grow). */
int warp_push(struct warp *w, uint32_t pc, uint32_t rpc, uint32_t mask);
/* Pop entries whose pc reached their reconvergence pc, and empty entries. */
void warp_reconverge(struct warp *w);
/* exit: lanes leave the warp for good. */
void warp_exit(struct warp *w, uint32_t lanes);
/* ret: lanes leave the current call (at kernel level: exit). */
void warp_ret(struct warp *w, uint32_t lanes);
/* call: lanes M enter callee; args are copied into its param frame per the PTX ABI.
 * 0, or a trap kind (TRAP_STACK). */
int warp_call(struct warp *w, uint32_t M, struct xfunc *callee, const struct call_ops *co);

/* cta.c */
enum { CTA_RUNNING = 0, CTA_DONE = 1, CTA_STOP = 2 };
/* Release every pending barrier that is complete (threads exited). Returns how many. */
int cta_release_pending(struct cta *c);
/* May another CTA of c's cluster still run (not begun yet, or a warp of it runnable), so that
 * c's warps waiting at barrier.cluster are not deadlocked? */
bool cta_cluster_peer_runs(const struct cta *c);
/* Record a deadlock of c (every live warp parked, nothing to release) as the launch's fault. */
void cta_report_deadlock(struct cta *c);
/* Set up the CTA of rank `rank` of cluster `q` (clusters in grid order of %clusterid) of
 * launch L in slot c, as a member of cl (cluster_init made it for q). 0, or -1 out of memory. */
int cta_begin(struct cta *c, struct launch_state *L, struct cluster *cl, uint64_t q,
              uint32_t rank);
int cta_round(struct cta *c, uint64_t *ninsn, uint64_t *nthread);
void cta_free(struct cta *c);
/* A barrier instruction by lanes M, counting lanes `arrive` as arrived (red: -1 arrive, 0 sync, 1 popc, 2 and, 3 or; predv the
 * predicate bits; dst the bar.red destination). Parks the warp (state WS_PARKED) unless the
 * barrier completes or it only arrives. */
void cta_barrier(struct warp *w, uint32_t M, uint32_t arrive, unsigned id, unsigned count, int red, uint32_t predv,
                 const struct ir_opnd *dst);

/* The arrival of lanes M of w (a path under independent thread scheduling, its.c) at the
 * non-aligned CTA barrier id: counted as M's threads, M waits (w->bw) until the release.
 * true when this arrival completed the barrier (M, with every waiting lane, released). */
bool cta_bar_path(struct warp *w, uint32_t pc, uint32_t M, unsigned id, unsigned count, int red,
                  uint32_t predv);

/* barrier.cluster.arrive by lanes A (they do not wait). 0, or -1 when a lane of A already
 * arrived in the barrier's current phase (each thread arrives once per phase). */
int cta_cluster_arrive(struct warp *w, uint32_t A);
/* barrier.cluster.wait by lanes M: 0 when their phase is complete (they go on), 1 when the warp
 * parked (WS_PARKED) until it completes, -1 when a lane of M waits without having arrived. */
int cta_cluster_wait(struct warp *w, uint32_t M);
/* cta.c: mbarrier spin deadlocks. cta_mbw_quantum: the quantum of w that began at
 * w->mbw_base has ended (the functional loop: every quantum; the step API: every L->quantum
 * steps): it counts as a spin when it was nothing but failing mbarrier waits on one unchanged
 * object (at least one per 16 warp instructions); returns whether w has now spun 64 quanta in
 * a row. cta_mbw_deadlock: is c's cluster (c alone,
 * or all its CTAs) deadlocked on mbarriers - every live warp parked at a barrier or spinning
 * for 64 quanta in a row on an object that still holds what it saw? Then the first spinning
 * warp's wait is recorded as the launch's fault (a barrier deadlock) and it returns true. */
bool cta_mbw_quantum(struct warp *w);
bool cta_mbw_deadlock(struct cta *c);
/* warp.c calls this when lanes exit: an arrival of theirs in the current phase no longer
 * counts (the barrier waits for non-exited threads only). */
void cta_lanes_exited(struct warp *w, uint32_t lanes);

/* cluster.c: clusters and distributed shared memory. cluster_init: cl is cluster q of L, no
 * CTA begun. cluster_xlate: the host pointer of an access of `width` bytes at shared::cluster
 * offset a (a >= CLU_STRIDE: another window than the CTA's own), 0 or TRAP_OOB.
 * cluster_mapa: the address of shared address a (generic when `generic`) in the CTA of rank r;
 * -1 (the reason in why[n]) when r is outside the cluster or a is not a shared address. cluster_rank_of: rank of the
 * CTA owning (generic when `generic`) shared address a. cluster_window: is generic address a in
 * the CTA's own shared window (own) or in the cluster's (!own)? cluster_sreg: value of a
 * %cluster* special register. */
void cluster_init(struct cluster *cl, const struct launch_state *L, uint64_t q);
int cluster_xlate(const struct warp *w, uint64_t a, unsigned width, uint8_t **p);
int cluster_mapa(const struct warp *w, uint64_t a, uint64_t r, bool generic, uint64_t *out,
                 char *why, size_t n);
uint32_t cluster_rank_of(const struct warp *w, uint64_t a, bool generic);
bool cluster_window(const struct warp *w, uint64_t a, bool own);
uint64_t cluster_sreg(const struct cta *c, unsigned s);
/* cluster.c: bytes from shared::cluster offset o (valid: vm_xlate accepted it) to the end of
 * the shared memory of the CTA it is in. */
uint64_t cluster_shared_left(const struct warp *w, uint64_t o);
/* cluster.c: the CTA of c's cluster (c itself included) whose shared memory holds the n bytes
 * at host pointer p, or NULL (asynccheck: which CTA a copy lands in). */
struct cta *cluster_cta_holding(struct cta *c, const uint8_t *p, uint64_t n);

/* exec.c: run warp w for about one quantum. Returns the warp state. */
enum warp_state exec_warp(struct warp *w);
/* The fast loop's instantiations (exec_loop.h): portable (exec.c), x86-64-v3 (exec_v3.c). */
enum warp_state exec_loop_fast(struct warp *w);
enum warp_state exec_loop_fast_v3(struct warp *w);
/* exec_slow.c: one quantum with tracing and/or checks (launch_state.check); exactly one warp instruction, its PC, masks and
 * memory accesses recorded in *rep (engine.c fills in the rest of the report). */
enum warp_state exec_warp_trace(struct warp *w);
enum warp_state exec_warp_step(struct warp *w, struct engine_step_report *rep);
/* exec.c: the fast-loop variant this host can run (PTXEMU_EXEC_PORTABLE=1 forces portable). */
enum { EXEC_ISA_PORTABLE = 0, EXEC_ISA_V3 = 1 };
unsigned exec_select_isa(void);

/* check*.c: the checking loop's state and hooks. check_launch_begin/end (check.c): per-launch
 * findings (end prints them, sorted, to the device's check log); check_cta_begin: fresh shadow
 * state for a CTA (0 or -1 out of memory); check_accesses (check_mem.c): the n lane accesses
 * of one warp instruction at pc (engine_access: space SP_SHARED / SP_GLOBAL / …, shared
 * addresses as offsets; atomic: an atom/red); check_barrier (check_sync.c): synccheck of a
 * barrier executed by lanes M of w that needs the lanes `need`, with thread count `count` (0:
 * none); check_warp_sync: synccheck of a warp-collective whose lane l names members[l];
 * check_step: a new warp instruction; check_syncwarp: bar.warp.sync orders the warp's earlier
 * shared accesses before its later ones; check_bar_arrival: synccheck of any CTA barrier
 * arrival at pc (`waits`: not bar.arrive) with thread count `count` (0: none), when it makes a
 * mismatch certain (another thread count than the phase's, or a wait for every thread while
 * threads wait at another such barrier). */
int check_launch_begin(struct launch_state *L);
void check_launch_end(struct launch_state *L);
int check_cta_begin(struct cta *c);
void check_cta_free(struct cta *c);
void check_accesses(struct warp *w, uint32_t pc, const struct engine_access *acc, unsigned n,
                    bool atomic);
void check_barrier(struct warp *w, uint32_t pc, uint32_t M, uint32_t need, uint32_t count);
void check_bar_arrival(struct warp *w, uint32_t pc, uint32_t M, uint32_t count, bool waits);
void check_warp_sync(struct warp *w, uint32_t pc, uint32_t M, const uint32_t members[32]);
void check_step(struct warp *w);
void check_syncwarp(struct warp *w);

/* fault.c: fault recording (first fault wins) */
void interp_fault(struct warp *w, uint32_t pc, unsigned lane, enum trap_kind kind,
                  uint64_t addr, unsigned width, int space, bool is_write, const char *msg);

/* A misuse of an mbarrier object or of the cluster barrier that the PTX ISA leaves undefined
 * and the engine stops at (an illegal-instruction fault). */
enum sync_misuse {
    SM_MB_UNINIT,     /* an mbarrier used without mbarrier.init, or after mbarrier.inval */
    SM_MB_ARRIVE,     /* more arrivals than its phase waits for (a arrivals, b pending,
                         c expected per phase) */
    SM_MB_NOCOMPLETE, /* a .noComplete arrival that would complete the phase (a, b, c) */
    SM_MB_COUNT,      /* an init or arrive count outside 1 .. 2^20 - 1 (a the count) */
    SM_MB_TX,         /* a tx-count leaving -(2^20 - 1) .. 2^20 - 1 (a old, b change) */
    SM_CLU_WAIT,      /* barrier.cluster.wait by a thread that did not arrive */
    SM_CLU_ARRIVE,    /* barrier.cluster.arrive twice in one phase */
};

/* What a sync misuse is about: the mbarrier object (its bytes in the shared memory of a CTA
 * of the cluster; NULL for the cluster barrier), the instruction's name, numbers (see
 * enum sync_misuse). */
struct sync_what {
    enum sync_misuse kind;
    const uint8_t *mbar;
    const char *insn;
    int64_t a, b, c;
};

/* fault.c: the fault of sync misuse *x by lane `lane` of w at pc (the arguments after it as
 * interp_fault's). Under synccheck (check_sync.c) it is a synccheck finding, and the fault
 * record is marked reported so that the check log does not report it again; the launch
 * still fails as it does without the check. */
void interp_sync_fault(struct warp *w, uint32_t pc, unsigned lane, const struct sync_what *x,
                       uint64_t addr, unsigned width, int space, bool is_write, const char *msg);
/* devlib.c: device printf / malloc */
int interp_vprintf(struct warp *w, unsigned lane, uint64_t fmt, uint64_t args, uint64_t *bad);
/* Device malloc by lane `lane` of w at instruction pc (under leakcheck the block's site is
 * recorded for the leak report); 0 when the heap is exhausted. */
uint64_t interp_malloc(struct interp_dev *d, uint64_t size, const struct warp *w, uint32_t pc,
                       unsigned lane);
/* leakcheck: where device malloc block addr was allocated (its site's text in *text), or NULL.
 * Caller holds d->heap_lock. */
const struct heap_site *heap_site_find(const struct interp_dev *d, uint64_t addr,
                                       const char **text);
/* check.c: "K+0x40 (file.ptx:31) in a.cu:10" for instruction pc of fn, malloc'ed (NULL out of
 * memory): a site that outlives its module (leakcheck of device malloc blocks). */
char *check_site_text(const struct xfunc *fn, uint32_t pc);
int interp_free(struct interp_dev *d, uint64_t addr);
/* devlib.c: release the device frees deferred during a launch (launch.c calls it at the end). */
void interp_heap_release(struct interp_dev *d);

/* texture.c: tex / tld4 / txq / istypep / suld / sust / suq on the descriptors of
 * interp/texture.h. interp_tex_ok (selection, load time): does the engine run this form?
 * interp_tex_exec: run it on lanes M; 0, or a trap kind with *tf saying where and why. With mr
 * (the stepping path only, NULL in the fast loops) each lane's memory reads and writes are
 * reported to it: every texel a tex / tld4 read (device address, element size, space SP_TEX;
 * arrays, linear and pitched memory alike) and the element a suld / sust / sured touched
 * (SP_GLOBAL), so the timing model can send them through its caches. */
struct tc_mem;
struct tex_fault {
    unsigned lane;
    uint64_t addr;
    unsigned width;
    bool wr;
    char msg[256];
};
bool interp_tex_ok(const struct ir_module *m, const struct ir_func *f, const struct ir_insn *in,
                   const struct ir_opnd *O);
int interp_tex_exec(struct warp *w, const struct ir_insn *in, const struct ir_opnd *O,
                    uint32_t M, struct tex_fault *tf, const struct tc_mem *mr);

/* v rounded up to a multiple of a (a == 0: v). */
static inline uint32_t interp_align32(uint32_t v, uint32_t a)
{
    return a ? (v + a - 1) / a * a : v;
}

/* launch.c: validate launch l and fill *L (parameters, shared/local layout, printf FIFO,
 * cooperative workspace): 0, -EINVAL (message in trap->msg), -ENOMEM. launch_finish flushes
 * printf, releases deferred frees and frees what launch_prepare made. */
int launch_prepare(struct interp_dev *d, const struct interp_launch *l, struct trap *trap,
                   struct launch_state *L);
void launch_finish(struct launch_state *L);

/* grid.c */
struct grid_pool;
int grid_run(struct launch_state *L, struct interp_stats *st);
int grid_pool_create(struct interp_dev *d);
void grid_pool_destroy(struct grid_pool *p);

/* Host CPU count. */
unsigned interp_ncpu(void);

#endif
