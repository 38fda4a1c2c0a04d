/*
 * interp/interp.h — the functional engine's public API (used by runtime/ and later timing/).
 *
 * A device (struct interp_dev) owns device memory and configuration. Modules (IR from the front
 * end) are loaded onto it: their .global/.const variables are placed in device memory with their
 * initializers, and every instruction gets its handler — an instruction the engine cannot run is
 * reported at load ("unsupported: <instruction>" with file:line:col) and the load fails.
 * A launch runs a kernel over a grid and returns statistics, or a trap record describing the
 * first fault (kernel, CTA, thread, PC, PTX line, CUDA file:line).
 */
#ifndef PTXEMU_INTERP_H
#define PTXEMU_INTERP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "frontend/ir.h"
#include "interp/mem.h"

enum {
    TRACE_INSN = 1 << 0, /* each warp instruction: PC, mask, PTX text */
    TRACE_REGS = 1 << 1, /* plus destination values per lane */
    TRACE_MEM = 1 << 2,  /* plus memory addresses and values per lane */
};

struct interp_config {
    unsigned sm;             /* compute capability x10 (90 for sm_90) */
    unsigned nsm;            /* %nsmid, CTAs resident per round */
    unsigned threads;        /* host threads for CTAs (0: all cores) */
    bool deterministic;      /* fixed CTA order and thread assignment */
    uint64_t insn_budget;    /* warp instructions per launch before TRAP_BUDGET (0: none) */
    unsigned trace;          /* TRACE_* */
    int64_t trace_thread;    /* global linear thread id to trace, -1 for all */
    FILE *trace_out;         /* NULL: stderr */
    FILE *printf_out;        /* device printf output (NULL: stdout) */
    uint64_t heap_size;      /* device malloc heap bytes (0: 8 MiB) */
    uint64_t stack_size;     /* per-thread .local bytes limit (0: 1 KiB + frames) */
    unsigned printf_fifo;    /* device printf buffer bytes (0: 1 MiB) */
    unsigned check;          /* CHECK_* tools on (0: no sanitizer; faults still trap) */
    struct interp_check_log *check_log; /* where check reports go (needed when check != 0) */
    bool fill;               /* --fill-uninit: fresh shared and local memory and registers a
                                thread may read before writing hold fill_word, not zeros */
    uint32_t fill_word;      /* the pattern: 4 bytes, little-endian, by address modulo 4 */
};

/* Sanitizer tools (--check): memcheck is the engine's fault detection (always on; with a log
 * its reports are counted); the others run warps in the checking loop (exec_slow.c). */
enum {
    CHECK_MEMCHECK = 1 << 0,  /* out-of-bounds / misaligned accesses, traps (counted) */
    CHECK_RACECHECK = 1 << 1, /* shared-memory hazards between barriers */
    CHECK_INITCHECK = 1 << 2, /* reads of never-written global (cudaMalloc) and shared memory */
    CHECK_SYNCCHECK = 1 << 3, /* divergent barriers, warp-sync masks naming absent lanes */
    CHECK_LEAKCHECK = 1 << 4, /* device allocations not freed at exit / cudaDeviceReset */
    CHECK_ASYNCCHECK = 1 << 5, /* cp.async delivered at its wait; earlier accesses reported */
    CHECK_ALL = (1 << 6) - 1,
    CHECK_LOOP = CHECK_RACECHECK | CHECK_INITCHECK | CHECK_SYNCCHECK |
                 CHECK_ASYNCCHECK, /* need the slow loop */
};

enum trap_kind {
    TRAP_NONE = 0,
    TRAP_OOB,          /* address outside any allocation / shared / local bounds */
    TRAP_MISALIGNED,   /* address not aligned to the access width */
    TRAP_READONLY,     /* store to .const or to a read-only allocation */
    TRAP_TRAP,         /* trap instruction */
    TRAP_BRKPT,        /* brkpt instruction */
    TRAP_ASSERT,       /* __assertfail (device assert) */
    TRAP_DEADLOCK,     /* barrier that can never complete */
    TRAP_BUDGET,       /* instruction budget exhausted (runaway kernel) */
    TRAP_ILLEGAL,      /* illegal instruction at run time (bad call target, bad brx index…) */
    TRAP_STACK,        /* call stack / local frame overflow */
    TRAP_HEAP,         /* device malloc/free misuse */
};

/* The first fault of a launch. */
struct trap {
    enum trap_kind kind;
    char kernel[256];
    uint32_t cta[3];
    uint32_t tid[3];
    uint32_t lane, warp;
    uint32_t pc;             /* PC in function `func` */
    char func[256];          /* function containing the PC (may differ from kernel) */
    const char *ptx_file;    /* module file name */
    uint32_t line, col;      /* PTX source position */
    char src_file[256];      /* CUDA source file from .loc, "" if unknown */
    uint32_t src_line;
    char src_inlined[512];   /* "a.cu:12, a.cu:7": the call sites the code was inlined into
                                (.loc … inlined_at, innermost first), "" if none */
    uint64_t addr;           /* faulting address (memory faults) */
    unsigned width;          /* access width in bytes */
    uint8_t space;           /* enum ir_space of the access */
    bool is_write;
    char msg[512];           /* one-line detail ("address 0x… is 4 bytes after the end of a
                                1024-byte allocation at 0x…", assert message, …) */
    bool reported;           /* a check tool reported it as its finding (synccheck: an
                                mbarrier or cluster barrier misuse): the check log neither
                                prints nor counts it again */
};

/* Print a compute-sanitizer-style report of a trap. */
void interp_trap_report(FILE *out, const struct trap *t);

/* ------------------------------------------- sanitizer log (check_log.c, check_leak.c) */

/* A sanitizer session's report sink: every error found by any device and launch is counted
 * here and printed ("========= " lines) until print_limit of them were (0: no limit). It
 * outlives devices (cudaDeviceReset destroys the device, not the count). */
struct interp_check_log;
struct interp_check_log *interp_check_log_create(FILE *out, uint64_t print_limit);
void interp_check_log_destroy(struct interp_check_log *g);
/* Parse a --check list ("memcheck,racecheck", "all") into CHECK_* bits: 0, or -1 (the bad
 * word is copied into bad, bad_len bytes). memcheck is always included. */
int interp_check_parse(const char *list, unsigned *bits, char *bad, size_t bad_len);
/* Count and print a fault (memcheck), unless a tool reported it already (trap.reported). */
void interp_check_trap(struct interp_check_log *g, const struct trap *t);
struct mem_alloc;
struct interp_dev;
/* leakcheck: the host backtrace of a device allocation, as the runtime recorded it at the
 * allocating API call, for the leak's report (text, and the JSON/XML record). */
enum { INTERP_HOST_FRAMES = 24 };
struct interp_host_bt {
    const char *api; /* the allocating API function ("cudaMalloc") */
    unsigned n;      /* frames, from the API's caller outward */
    struct interp_host_frame {
        char func[512];     /* its symbol, demangled ("" when none is known; a longer name
                               is cut) */
        const char *module; /* the module's path; NULL: not resolved (off is the address) */
        uint64_t off;       /* the return address as an offset into module */
    } f[INTERP_HOST_FRAMES];
};
/* leakcheck: count and print every live cudaMalloc allocation of device d (and, after each,
 * its host backtrace when bt fills one in for it: bt may be NULL, returns false when it knows
 * none), then every device malloc block not freed (with the instruction and thread that
 * allocated it), then a LEAK SUMMARY line when there were any; returns how many. */
uint64_t interp_check_leaks(struct interp_check_log *g, struct interp_dev *d,
                            bool (*bt)(void *ctx, const struct mem_alloc *a,
                                       struct interp_host_bt *out),
                            void *ctx);

/* Errors counted so far. */
uint64_t interp_check_errors(struct interp_check_log *g);
/* Print the final "========= ERROR SUMMARY: N errors" line (and end the report file). */
void interp_check_summary(struct interp_check_log *g);
/* Also write every printed report to f (opened and closed by the caller), as one JSON object
 * of an array, or (xml) one <report> element of a <reports> document; interp_check_summary
 * writes the summary and ends the array or document. */
void interp_check_log_report(struct interp_check_log *g, FILE *f, bool xml);

/* --fill-uninit PATTERN: "0xff" or any byte "0xNN" (every byte), "nan" (0x7fffffff in every
 * 4-byte word: a NaN as f32 and as f64). 0 and *word, or -1. */
int interp_fill_parse(const char *s, uint32_t *word);
/* Fill n bytes at p, whose device address is addr, with the pattern word (byte i holds byte
 * (addr + i) % 4 of it). */
void interp_fill(void *p, uint64_t addr, uint64_t n, uint32_t word);

struct interp_dev;
struct interp_program;
struct interp_kernel;

/* Create / destroy a device: its memory store and its pool of host threads for CTAs
 * (cfg->threads - 1 of them, or one per extra core; they sleep between launches). */
int interp_dev_create(const struct interp_config *cfg, struct interp_dev **out);
void interp_dev_destroy(struct interp_dev *d);
/* The device's memory (for cudaMalloc, cudaMemcpy, exec arguments). */
struct mem *interp_dev_mem(struct interp_dev *d);
const struct interp_config *interp_dev_config(const struct interp_dev *d);
/* Set the stack size (0: default), heap and printf FIFO sizes (0: unchanged) for later
 * launches. */
void interp_dev_set_limits(struct interp_dev *d, uint64_t stack_size, uint64_t heap_size,
                           unsigned printf_fifo);

/* Load one or more modules as one program (n > 1 links -rdc modules: .extern variables and
 * functions resolve across modules). The modules must outlive the program. Errors (unsupported
 * instructions, unresolved externs, initializer relocation failures) are printed to diag as
 * compiler-style diagnostics; returns 0 or a negative count of errors. */
int interp_program_load(struct interp_dev *d, const struct ir_module *const *mods, unsigned n,
                        FILE *diag, struct interp_program **out);
void interp_program_unload(struct interp_program *p);

/* Device address and size of a module-scope variable (global, const, managed), by name. */
int interp_program_var(const struct interp_program *p, const char *name, uint64_t *addr,
                       uint64_t *size);
/* A kernel (.entry) by name, or NULL. */
const struct interp_kernel *interp_program_kernel(const struct interp_program *p,
                                                  const char *name);

/* What cudaFuncGetAttributes and launches need to know about a kernel. */
struct interp_kernel_info {
    const char *name;
    unsigned nparams;
    const uint32_t *param_offset; /* per parameter: byte offset in the parameter block */
    const uint32_t *param_size;   /* per parameter: bytes */
    uint32_t param_size_total;
    uint32_t shared_static;       /* static .shared bytes used by the kernel (incl. callees) */
    uint32_t local_size;          /* .local bytes per thread */
    uint32_t nregs;               /* registers per thread (estimate from declarations) */
    uint32_t maxntid[3], reqntid[3];
    uint32_t max_threads;         /* max threads per block it can be launched with */
    const struct ir_module *module;
    const struct ir_func *func;
};
void interp_kernel_info(const struct interp_kernel *k, struct interp_kernel_info *out);

struct interp_launch {
    const struct interp_kernel *kernel;
    uint32_t grid[3], block[3];
    uint32_t shared_dynamic;      /* bytes of dynamic shared memory */
    const void *params;           /* parameter block image (param_size_total bytes, ABI layout) */
    bool cooperative;             /* all CTAs co-resident (grid.sync) */
    uint32_t cluster[3];          /* cluster shape the launch asks for (cudaLaunchAttribute
                                     ClusterDimension); all 0: none (the kernel's
                                     .reqnctapercluster, else clusters of one CTA) */
};

struct interp_stats {
    uint64_t warp_insns;
    uint64_t thread_insns;
    uint64_t ctas;
    double seconds;          /* wall time of the grid */
    /* load balance over host threads: how many ran CTAs, their summed and largest CPU time
     * (thread CPU clock), the fewest and most CTAs one of them ran */
    unsigned host_threads;
    double cpu_seconds, cpu_max;
    uint64_t ctas_min, ctas_max;
    /* how far apart the host threads started and finished (wall seconds, largest minus
     * smallest): start-up latency and load imbalance, as opposed to per-CTA cost */
    double start_skew, end_skew;
};

/* Run a kernel to completion. Returns 0 when it completed, 1 when it trapped (*trap filled,
 * device printf output up to the trap still flushed), or a negative error for an invalid launch
 * (-EINVAL bad dimensions / too many threads / too much shared memory), with a message in
 * trap->msg. Device printf output is written to cfg->printf_out at kernel end. */
int interp_launch(struct interp_dev *d, const struct interp_launch *l, struct interp_stats *st,
                  struct trap *trap);

#endif
