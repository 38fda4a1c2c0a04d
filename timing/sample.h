/*
 * timing/sample.h — per-kernel profiles for the statistics JSON and `ptxemu report` (issue 23
 * item 4): a time series of interval samples and per-instruction counters. Internal to
 * timing/ (gpu.c, sm.c, sm_mem.c and sample.c include it).
 *
 * Time series: every `interval` core cycles from the kernel's start (and once at its end) the
 * per-SM counter arrays are compared with the previous snapshot; a sample keeps, per SM, the
 * deltas of thread instructions, warp instructions and resident-warp cycles, and for the GPU
 * the issue / stall-cause deltas, L1D accesses and misses, sectors sent to memory, L2
 * accesses and misses and DRAM bytes. Nothing runs per cycle but one compare.
 *
 * Per instruction: one row of TM_PC__COUNT counters per PC of every function of the kernel's
 * module (allocated once at launch), incremented at issue, at each stalled scheduler-cycle
 * (charged to the next instruction of the warp that decided the stall cause), and by the
 * LD/ST unit (line requests, L1D misses), and by the memory system for the requests that
 * carry the instruction's line id (L2 accesses and misses, DRAM sectors read).
 */
#ifndef PTXEMU_TIMING_SAMPLE_H
#define PTXEMU_TIMING_SAMPLE_H

#include <stdint.h>
#include <stdio.h>

#include "frontend/ir.h"
#include "timing/timing.h"

/* Per-instruction counters. */
enum tm_pc_stat {
    TM_PC_ISSUED,       /* warp instructions issued */
    TM_PC_THREAD_INSN,  /* thread instructions (lanes whose guard held) */
    TM_PC_STALL_IBUF,   /* scheduler stall cycles charged to it, by cause (as stats.def) */
    TM_PC_STALL_BAR,
    TM_PC_STALL_MEMBAR,
    TM_PC_STALL_SB,
    TM_PC_STALL_PIPE,
    TM_PC_MEM_REQ,      /* memory requests: lines of global/local/atomic accesses (to the L1D or
                           memory), one per shared or constant access */
    TM_PC_L1D_ACCESS,   /* L1D accesses of its lines */
    TM_PC_L1D_MISS,     /* of which misses */
    TM_PC_L2_ACCESS,    /* L2 accesses of requests it caused (L1 fills and write-throughs, L1
                           bypassing requests), counted by the L2 slice (mem.c) */
    TM_PC_L2_MISS,      /* of which misses */
    TM_PC_DRAM_RD,      /* 32-byte sectors DRAM read for it (the L2's fills of its misses) */
    TM_PC__COUNT
};

/* Per-SM values of a sample, and the GPU-wide ones. */
enum { TM_SMP_SM_THREAD_INSN, TM_SMP_SM_WARP_INSN, TM_SMP_SM_WARP_CYCLES, TM_SMP_SM__COUNT };
enum {
    TM_SMP_ISSUE, TM_SMP_STALL_IDLE, TM_SMP_STALL_IBUF, TM_SMP_STALL_SB, TM_SMP_STALL_PIPE,
    TM_SMP_STALL_BAR, TM_SMP_STALL_MEMBAR, TM_SMP_L1D_ACCESS, TM_SMP_L1D_MISS,
    TM_SMP_MEM_SECTORS, TM_SMP_L2_ACCESS, TM_SMP_L2_MISS, TM_SMP_DRAM_BYTES, TM_SMP__COUNT
};

struct tm_mem;
struct tm_sm;

/* A kernel's profile. */
struct tm_prof {
    uint64_t interval;     /* core cycles per sample; 0: no time series */
    uint64_t start;        /* core cycle the kernel joined the GPU */
    uint64_t next;         /* absolute cycle of the next sample boundary (UINT64_MAX: none) */
    uint64_t last;         /* end cycle of the last sample taken */
    uint32_t nsm;
    size_t nmst;           /* memory-system counters (0: perfect memory) */
    uint64_t *prev;        /* per SM counters at the last sample [nsm][TM_ST__COUNT] */
    uint64_t *mprev;       /* memory-system counters then [nmst] */
    uint64_t *mcur;        /* scratch [nmst] */
    size_t row;            /* uint64_t per sample: end cycle, per SM values, GPU values */
    uint64_t *rows;        /* the samples */
    size_t nrows, caprows;
    /* per instruction */
    const struct ir_module *mod;
    uint32_t *foff;        /* first row of each function of mod [nfuncs + 1] */
    size_t npc;            /* foff[nfuncs]: rows of one set */
    uint32_t nsets;        /* copies of the rows: one per host thread running SMs (par.c),
                              summed into the first by tm_prof_merge */
    uint64_t *pc;          /* [nsets][npc][TM_PC__COUNT] */
    uint32_t line0;        /* GPU-wide id of row 0 while attached to the memory system
                              (tm_mem_prof_attach; requests carry line0 + row); 0: detached */
};

/* A profile for a kernel of module mod starting at cycle `start`, sampled every `interval`
 * cycles (0: none), with per-instruction counters when per_pc, in nsets copies (SMs on
 * different host threads add to different copies: no shared counter). sms/mem give the
 * counters' starting values. NULL when out of memory (the kernel then runs unprofiled). */
struct tm_prof *tm_prof_create(const struct ir_module *mod, uint64_t interval, int per_pc,
                               uint32_t nsets, uint64_t start, const struct tm_sm *sms,
                               uint32_t nsm, const struct tm_mem *mem);
/* Sum the per-instruction counter copies into the first (before tm_prof_json; sums of
 * integers, so the result does not depend on which SM ran on which thread). */
void tm_prof_merge(struct tm_prof *p);
void tm_prof_free(struct tm_prof *p);

/* Take the samples whose boundaries are at or before `cycle` (the caller compares
 * cycle >= p->next first); with final, also the partial interval ending at `cycle`. */
void tm_prof_sample(struct tm_prof *p, const struct tm_sm *sms, const struct tm_mem *mem,
                    uint64_t cycle, int final);

/* Row of instruction pc of function f in copy `set`, or NULL when f is not of the profiled
 * module. */
static inline uint64_t *tm_prof_pc(struct tm_prof *p, uint32_t set, const struct ir_func *f,
                                   uint32_t pc)
{
    if (!p || !p->foff || !f || f < p->mod->funcs || f >= p->mod->funcs + p->mod->nfuncs)
        return NULL;
    size_t fi = (size_t)(f - p->mod->funcs);
    if (pc >= p->foff[fi + 1] - p->foff[fi])
        return NULL;
    return &p->pc[((size_t)set * p->npc + p->foff[fi] + pc) * TM_PC__COUNT];
}

/* The GPU-wide line id a request of the instruction with counters prow (a row of any of the
 * profile's per-thread sets) carries (struct tm_req's line): 0 when p is not attached to the
 * memory system or prow is NULL. */
static inline uint32_t tm_prof_line(const struct tm_prof *p, const uint64_t *prow)
{
    if (!p || !prow || !p->line0)
        return 0;
    return p->line0 + (uint32_t)((size_t)(prow - p->pc) / TM_PC__COUNT % p->npc);
}

/* Rows of the profile (foff[nfuncs]); 0 without per-instruction counters. */
static inline uint32_t tm_prof_rows(const struct tm_prof *p)
{
    return p && p->foff ? p->foff[p->mod->nfuncs] : 0;
}

/* Write `, "samples": {…}, "lines": {…}` (what the profile holds) into a kernel's JSON. */
void tm_prof_json(const struct tm_prof *p, FILE *f);

#endif
