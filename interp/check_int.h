/*
 * interp/check_int.h — what the sanitizer's files (check*.c) share: the log, the findings,
 * the per-launch and per-CTA shadow state, and the helpers each tool calls. Private to them.
 */
#ifndef PTXEMU_INTERP_CHECK_INT_H
#define PTXEMU_INTERP_CHECK_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "interp/internal.h"

#define CHK_P "========="

/* ====================================================================== the log (check_log.c) */

struct interp_check_log {
    pthread_mutex_t lock;
    FILE *out;
    uint64_t limit;   /* reports printed at most (0: all) */
    uint64_t errors;  /* counted */
    uint64_t printed; /* reports printed */
    FILE *rep;        /* --check-report: the same reports as JSON or XML (NULL: none) */
    bool xml;         /* rep is XML (else JSON) */
    bool rep_some;    /* a report was written (JSON: the next one needs a comma) */
    bool rep_first;   /* no member written yet in the current JSON object */
};

/* Count one error; true when its report is to be printed (under the print limit). Caller
 * holds g->lock. */
bool chk_log_count(struct interp_check_log *g);

/*
 * The machine-readable report (caller holds g->lock): chk_rep_begin starts a record (false:
 * the log writes none, emit nothing), members follow, chk_rep_end closes it. A JSON object
 * ({"tool": …, "kind": …, "severity": …, members}) or an XML element (<report tool= kind=
 * severity=>children</report>). A member's value is a string (NULL: JSON null, no XML
 * element), a number, a hex address, an (x,y,z) triple, "file:line" (NULL without a file) or
 * a nested record (chk_rep_open, its members, chk_rep_close) or a list of records
 * (chk_rep_list_open; per item chk_rep_item_open, its members, chk_rep_close;
 * chk_rep_list_close: a JSON array, or an XML element holding an element per item).
 */
bool chk_rep_begin(struct interp_check_log *g, const char *tool, const char *kind, bool warning);
void chk_rep_str(struct interp_check_log *g, const char *key, const char *v);
void chk_rep_num(struct interp_check_log *g, const char *key, uint64_t v);
void chk_rep_hex(struct interp_check_log *g, const char *key, uint64_t v);
void chk_rep_xyz(struct interp_check_log *g, const char *key, const uint32_t v[3]);
void chk_rep_pos(struct interp_check_log *g, const char *key, const char *file, uint32_t line);
void chk_rep_open(struct interp_check_log *g, const char *key);
void chk_rep_close(struct interp_check_log *g, const char *key);
void chk_rep_list_open(struct interp_check_log *g, const char *key);
void chk_rep_item_open(struct interp_check_log *g, const char *key);
void chk_rep_list_close(struct interp_check_log *g, const char *key);
void chk_rep_end(struct interp_check_log *g);

/* ====================================================================== findings (check.c) */

enum fkind {
    F_RACE_WAW, /* ordered as printed within one pair of instructions */
    F_RACE_RAW,
    F_RACE_WAR,
    F_GRACE_WAW, /* global memory, same order */
    F_GRACE_RAW,
    F_GRACE_WAR,
    F_INIT_GLOBAL,
    F_INIT_SHARED,
    F_SYNC_BLOCK,
    F_SYNC_WARP,
    F_SYNC_COUNT,
    F_SYNC_PATH,
    F_INIT_REG,
    F_INIT_LOCAL,
    F_SYNC_MIXED, /* a barrier waited for with two thread counts in one phase */
    F_SYNC_CROSS, /* all threads wait at one barrier while threads wait at another */
    F_ASYNC_READ,  /* asynccheck: a shared byte read while a copy to it is pending (na: the
                      copy's enum async_kind) */
    F_ASYNC_WRITE, /* ... written while one is pending */
    F_ASYNC_SRC_WRITE, /* ... written while a bulk copy to global memory still reads it */
    F_MBAR_UNINIT, /* the sync misuses (enum sync_misuse), in its order */
    F_MBAR_ARRIVE,
    F_MBAR_NOCOMPLETE,
    F_MBAR_COUNT,
    F_MBAR_TX,
    F_CLU_WAIT,
    F_CLU_ARRIVE,
    F_MBAR_REINIT, /* mbarrier.init of an object the CTA initialized and did not invalidate */
};

/* One finding: kind, its instruction(s), how often, where first (lowest CTA, thread). */
struct finding {
    enum fkind kind;
    const struct xfunc *fn1, *fn2; /* fn2/pc2: the second access of a hazard */
    uint32_t pc1, pc2;
    uint64_t count;
    uint64_t cta_linear;
    uint32_t tid; /* thread in the CTA */
    uint32_t cta[3];
    uint64_t addr;       /* initcheck: first unwritten byte */
    uint64_t base, size; /* initcheck global: the allocation */
    unsigned width;
    uint32_t mask, need; /* synccheck: lanes that executed it, lanes it needed (F_SYNC_MIXED:
                            the thread count here and the barrier; F_SYNC_CROSS: the other
                            barrier and this one; `width`: the phase's first thread count) */
    char what[32];       /* synccheck warp and sync misuses: the instruction ("shfl.sync");
                            initcheck: the register ("%r1") */
    int64_t na, nb, nc;  /* sync misuses: their numbers (struct sync_what); `addr`: the
                            mbarrier's shared-memory offset in the CTA of cluster rank
                            `need` (the executing CTA's rank for the cluster barrier) */
    bool remote;         /* sync misuses: the mbarrier is another CTA's of the cluster */
    bool warning;        /* racecheck severity: Warning (else Error) */
};

struct gpage;

struct check_launch {
    pthread_mutex_t lock;
    struct finding *f;
    size_t n, cap;
    /* global-memory racecheck (under glock): the shadow pages in an open-addressed table
     * (the last one used cached), the functions its sites name, the release clocks */
    pthread_mutex_t glock;
    struct gpage **tab;
    size_t tcap, tn;
    struct gpage *last;
    const struct xfunc *fns[255];
    unsigned nfns;
    uint32_t gclk; /* bumped by every release at .gpu scope or wider */
    uint32_t cclk; /* bumped by every release at any scope */
};

/* Record an occurrence of finding *x in its launch (key: kind, fn1/pc1, fn2/pc2, severity;
 * the first thread is the lowest CTA, then thread). Out of memory the finding is lost. */
void chk_finding_add(struct launch_state *L, const struct finding *x);
/* Fill *x as a finding of `kind` at instruction pc of w, lane `lane`. */
void chk_finding_at(struct finding *x, const struct warp *w, uint32_t pc, unsigned lane,
                    enum fkind kind);

/* ====================================================================== per CTA */

/* asynccheck (check_async.c): one lane's asynchronous copy not complete yet. */
enum async_kind {
    AR_CP,       /* a cp.async: its destination pending until the thread's wait */
    AR_BULK_DST, /* a bulk / tensor copy into this CTA's shared memory: its destination
                    pending until a wait sees its mbarrier phase complete */
    AR_BULK_SRC, /* a bulk / tensor copy (or reduction) from shared memory to global memory:
                    its source may not be written until the thread's
                    cp.async.bulk.wait_group{.read} */
    AR_ST_ASYNC, /* an st.async into a CTA's shared memory: as AR_BULK_DST */
    AR_RED_ASYNC, /* a red.async: its destination pending as AR_BULK_DST's, but not poisoned
                     (the engine's reduction stays in place: a later reduction of the word
                     must see it) */
};
struct async_rec {
    const struct xfunc *fn; /* the copy instruction */
    uint32_t pc;
    uint32_t tid;        /* thread in the CTA */
    uint32_t group;      /* the thread's cp.async (AR_CP) or bulk (AR_BULK_SRC) group: its
                            committed count at issue */
    uint32_t dst;        /* shared offset of the first byte (AR_BULK_SRC: of the source) */
    uint32_t n;          /* bytes spanned: cp-size, or the bulk copy's extent */
    const uint8_t *mbar; /* the mbarrier it completes on (AR_CP: a cp.async.mbarrier.arrive
                            tied it to one; NULL: none) */
    uint8_t kind;        /* enum async_kind */
    uint8_t phase;       /* AR_BULK_DST: parity of the mbarrier phase it counted in */
    uint8_t rank;        /* cluster rank of the issuing thread's CTA (AR_BULK_DST: maybe
                            another CTA than the one holding the record) */
    bool live;
    uint8_t *big;        /* AR_BULK_DST: the bytes it copies, n of them (heap) */
    uint8_t *mask;       /* AR_BULK_*: a bit per byte of the span it touches (heap; NULL:
                            all of them) */
    uint8_t data[16];    /* AR_CP: the bytes it copies (and its zero fill) */
};

/* One access in a racecheck shadow cell. */
struct check_acc {
    const struct xfunc *fn; /* NULL: none */
    uint32_t pc;
    uint32_t ep;   /* CTA barrier epoch */
    uint32_t wep;  /* the warp's __syncwarp epoch */
    uint32_t step; /* CTA warp-instruction counter: one warp instruction */
    uint32_t tid;  /* thread in the CTA */
    uint8_t bytes; /* bit per byte of the word accessed */
};

struct check_cell {
    struct check_acc w, r, r2; /* last write; last read, and an earlier one by another thread */
};

/* A CTA slot's shadow state, sized for `cap` bytes of shared memory. Per 4-byte word of it,
 * two epochs let a read skip the cells: `wrote`, the last epoch a byte of the word was
 * written in (no write in this epoch: no read-after-write), and `sat`, the epoch in which
 * every byte of the word got two readers (nothing more to record). */
struct check_cta {
    size_t cap;
    struct check_cell *cell; /* racecheck, per 4-byte word */
    uint32_t *wrote, *sat;   /* racecheck, per word */
    uint8_t *shinit;         /* initcheck: bit per shared byte written */
    /* initcheck of local memory: per thread a row of `lrow` bytes holding a bit per byte of
     * its local area written (`lstride` bytes; made at the first local access, for
     * `lthreads` threads); rows are clean beyond byte `lhwm` of the area */
    uint8_t *linit;
    uint32_t lstride, lrow, lthreads, lhwm;
    struct {
        uint32_t ep; /* the CTA epoch of the first arrival (this phase if chk_ep) */
        const struct xfunc *fn;
        uint32_t pc;
        const struct xfunc *fn0; /* the first arrival of the barrier's current phase */
        uint32_t pc0;
    } bar[16];                    /* synccheck: where each barrier was first waited for */
    const struct mem_alloc *last; /* initcheck: allocation of the last global access */
    /* global racecheck: per warp, the release clocks (check_launch) seen at its last
     * acquire, and the barrier epoch up to which it has taken the CTA's barrier handoff;
     * the CTA's handoff: the largest clocks warps had when they arrived at a barrier */
    struct gwarp {
        uint32_t gacq, cacq, ep;
        /* synccheck under independent thread scheduling: the aligned barrier paths of the
         * warp wait at (jfn, jpc; jfn NULL: none), the lanes that reached it, the live lanes
         * when the first did, the lanes already reported at another barrier */
        const struct xfunc *jfn;
        uint32_t jpc, jarr, jneed, jrep;
    } * gw;
    uint32_t nw;
    uint32_t pend_g, pend_c;
    /* synccheck: the mbarrier objects of this CTA's shared memory that mbarrier.init made
     * and no mbarrier.inval ended since (their bytes, and the CTA's chk_step of the warp
     * instruction that made them: its other lanes initialize the same object once), nmb of
     * them */
    struct check_mbar {
        const uint8_t *p;
        uint32_t step;
    } * mb;
    uint32_t nmb, cmb;
    /* initcheck of registers: per warp, a frame per activation (kernel, then each call) with
     * a lane mask per tracked register of its function: the lanes that wrote it; the
     * functions' tracked registers, built when first met */
    struct rwarp *rw;
    struct rtrack *rt;
    uint32_t nrt;
    /* asynccheck: the copy records (nar of them, car allocated, nlive not delivered), a
     * bit per shared byte a live copy will write (apend) and one per byte a live bulk copy
     * to global memory still reads (asrc), per thread its committed cp.async group count
     * (agroup) and bulk async-group count (bgroup) */
    struct async_rec *ar;
    uint32_t nar, car, nlive;
    uint8_t *apend, *asrc;
    uint32_t *agroup, *bgroup;
};

/* asynccheck: lane's access of shared bytes [addr, addr + width) of the CTA whose state is k
 * (win: where its window starts in the address the program used) touches a byte a pending
 * copy will write, or writes one a pending bulk copy still reads: a finding naming the copy
 * (check_async.c). Caller checks k->nlive. */
void chk_async_access(struct warp *w, uint32_t pc, unsigned lane, const struct check_cta *k,
                      uint64_t addr, unsigned width, bool wr, uint64_t win);
/* asynccheck: forget every record and pending byte (a new CTA in the slot). */
void chk_async_reset(struct check_cta *k);
/* asynccheck: free the records' buffers and the arrays (the slot's state is freed). */
void chk_async_free(struct check_cta *k);

/* The registers of one function that initcheck tracks: those a thread may read before
 * writing them (the frame's `zero` spans, cfg_undef_regs), but for its .reg parameters. */
struct rtrack {
    uint64_t serial;          /* xfunc.serial */
    uint32_t n;               /* tracked registers */
    uint32_t *idx[RF__COUNT]; /* per declared slot: tracked index + 1, 0: not tracked */
};

struct rframe {
    uint64_t serial;   /* the function's xfunc.serial */
    uint32_t depth;    /* warp.ncalls of the activation */
    uint32_t n, cap;   /* tracked registers; written's capacity */
    uint32_t *written; /* lane mask per tracked register */
    const struct rtrack *t;
};

struct rwarp {
    struct rframe *f;
    uint32_t n, cap;
    bool pend; /* a call was issued at depth pend_depth: a new activation may follow */
    uint32_t pend_depth;
};

/* ====================================================================== global racecheck
 * (check_grace.c) */

/* The global accesses among the n lane accesses of instruction pc of w: racecheck them,
 * with the instruction's releases before them and its acquires after. */
void chk_grace_accesses(struct warp *w, uint32_t pc, const struct engine_access *acc, unsigned n);
/* Free the global racecheck shadow of a launch (check_launch_end). */
void chk_gshadow_free(struct check_launch *k);

#endif
