/*
 * runtime/rt.h — the runtime core shared by libcudart.so.13 (cudart_*.c) and the `ptxemu` CLI.
 *
 * Nothing here includes CUDA headers: errors are plain ints that cudart_*.c map to cudaError_t
 * (the values below are CUDA's, checked there with _Static_assert). The runtime keeps all state
 * in one struct rt_ctx; cudart_ctx.c owns the single default context of a process.
 */
#ifndef PTXEMU_RT_H
#define PTXEMU_RT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "frontend/frontend.h"
#include "interp/interp.h"
#include "runtime/fatbin.h"
#include "timing/timing.h"

/* CUDA error numbers the core produces (cudaError_t values; cudart_ctx.c asserts them). The
 * only place below the cudart_*.c files where CUDA error numbers appear (error.c maps trap kinds
 * to them). */
enum {
    RT_OK = 0,
    RT_ERR_INVALID_VALUE = 1,
    RT_ERR_MEMORY_ALLOCATION = 2,
    RT_ERR_INITIALIZATION = 3,
    RT_ERR_INVALID_CONFIGURATION = 9,
    RT_ERR_INVALID_SYMBOL = 13,
    RT_ERR_INVALID_DEVICE_POINTER = 17,
    RT_ERR_INVALID_MEMCPY_DIRECTION = 21,
    RT_ERR_INVALID_KERNEL_IMAGE = 200,
    RT_ERR_NO_KERNEL_IMAGE = 209,
    RT_ERR_INVALID_PTX = 218,
    RT_ERR_INVALID_SOURCE = 300,
    RT_ERR_INVALID_RESOURCE_HANDLE = 400,
    RT_ERR_NOT_READY = 600,
    RT_ERR_ILLEGAL_ADDRESS = 700,
    RT_ERR_LAUNCH_OUT_OF_RESOURCES = 701,
    RT_ERR_LAUNCH_TIMEOUT = 702,
    RT_ERR_CONTEXT_IS_DESTROYED = 709,
    RT_ERR_ASSERT = 710,
    RT_ERR_HARDWARE_STACK_ERROR = 714,
    RT_ERR_ILLEGAL_INSTRUCTION = 715,
    RT_ERR_MISALIGNED_ADDRESS = 716,
    RT_ERR_LAUNCH_FAILURE = 719,
    RT_ERR_COOPERATIVE_LAUNCH_TOO_LARGE = 720,
    RT_ERR_INVALID_CLUSTER_SIZE = 912,
    RT_ERR_INVALID_DEVICE_FUNCTION = 98,
    RT_ERR_NOT_SUPPORTED = 801,
    RT_ERR_UNKNOWN = 999,
};

/* ========================================================================= errors (error.c) */

/* Name and message of a cudaError_t value (CUDA 13's), NULL if there is no such error. */
const char *rt_error_name(int e);
const char *rt_error_string(int e);
/* The cudaError_t a GPU returns for a kernel fault of kind k (RT_ERR_ILLEGAL_ADDRESS for an
 * out-of-bounds access, …; RT_OK for TRAP_NONE). */
int rt_trap_error(enum trap_kind k);

/* ======================================================================= device (device.c) */

/* The emulated GPU: what cudaGetDeviceProperties / cudaDeviceGetAttribute report and what
 * launches are validated against. */
struct rt_device {
    char name[256];
    unsigned sm;                 /* 90 for sm_90 */
    unsigned nsm;                /* multiprocessors */
    unsigned warp;
    unsigned threads_per_block, threads_per_sm, blocks_per_sm;
    unsigned block_dim[3];
    unsigned grid_dim[3];
    unsigned regs_per_block, regs_per_sm;
    uint64_t shared_per_block;        /* default limit (48 KiB) */
    uint64_t shared_per_block_optin;  /* with cudaFuncAttributeMaxDynamicSharedMemorySize */
    uint64_t shared_per_sm;
    uint64_t reserved_shared_per_block;
    uint64_t global_mem;
    uint64_t const_mem;
    uint64_t l2_size;
    uint64_t persisting_l2_max;
    unsigned clock_khz, mem_clock_khz, mem_bus_width;
    unsigned async_engines;
    unsigned pci_bus, pci_device, pci_domain;
    /* the initial cudaLimitStackSize / MallocHeapSize / PrintfFifoSize (0: CUDA's defaults,
     * 1 KiB / 8 MiB / 1 MiB); keys stack, heap, printf-fifo */
    uint64_t stack_size, heap_size;
    uint64_t printf_fifo;
    bool mem_given;              /* `mem=` was set: not capped to the host (rt_device_fit_host) */
};

/* The bytes the host can back: physical memory, and the address-space limit (ulimit -v)
 * when lower. */
uint64_t rt_host_memory(void);
/* Cap the device's global memory to what the host can back, unless `mem=` set it. */
void rt_device_fit_host(struct rt_device *d);
/* Fill an H100-class sm_90 device. */
void rt_device_default(struct rt_device *d);
/* Apply a device spec: a comma-separated list of presets ("h100", "a100", "l4", "rtx4090",
 * "t4", "b200", "rtx5090", "qv100", "rtx2060", "rtx3070", "sm_80") and key=value settings (sm, nsm, mem, name, shared,
 * shared-optin, shared-sm, clock, threads-sm, blocks-sm, regs-sm), or the name of a file holding such settings one per
 * line. 0, or -1 with a message in err. */
int rt_device_parse(struct rt_device *d, const char *spec, char *err, size_t errlen);
/* Thread-block clusters: the largest cluster a launch may ask for on d (8, the portable size;
 * 16 with nonportable, on sm_90+; 0 before sm_90), and how many clusters of `csize` CTAs of a
 * kernel fit on d at once (its CTAs per SM from rt_occupancy, clusters confined to a GPC of
 * RT_GPC_SMS multiprocessors, as on sm_90 parts). */
#define RT_GPC_SMS 18u
unsigned rt_cluster_max(const struct rt_device *d, bool nonportable);
uint64_t rt_cluster_occupancy(const struct rt_device *d, const struct interp_kernel_info *k,
                              unsigned block, uint64_t dyn, unsigned csize);
/* Check a launch's cluster shape against the kernel and the device: the shape the kernel's
 * .reqnctapercluster fixes, else `want` (all 0: none) into out[3] (all 0: no cluster). RT_OK,
 * RT_ERR_INVALID_CLUSTER_SIZE (differs from the kernel's, too large, grid not a multiple, a
 * kernel with .explicitcluster without one) or RT_ERR_INVALID_CONFIGURATION. */
int rt_cluster_check(const struct rt_device *d, const struct interp_kernel_info *k,
                     const uint32_t grid[3], const uint32_t want[3], bool nonportable,
                     uint32_t out[3]);
/* Print the device spec keys and presets (help text). */
void rt_device_help(FILE *out);
/* CTAs of a kernel (k: registers per thread, static shared bytes) resident per SM of d for a
 * block of `block` threads with `dyn` bytes of dynamic shared memory: limited by threads, CTA
 * slots, registers and shared memory. What cudaOccupancyMaxActiveBlocksPerMultiprocessor
 * answers and what a cooperative launch must fit in (× SMs). */
unsigned rt_occupancy(const struct rt_device *d, const struct interp_kernel_info *k,
                      unsigned block, uint64_t dyn);

/* ============================================================================ the context */

struct rt_func;
struct rt_var;
struct rt_fatbin;
struct rt_ctx;

/* Registry of everything the program registered (registry.c). Guarded by rt_ctx.lock. */
struct rt_registry {
    struct rt_fatbin **fatbins;
    unsigned nfatbins, capfatbins;
    struct rt_func **funcs;
    unsigned nfuncs, capfuncs;
    struct rt_var **vars;
    unsigned nvars, capvars;
};

/* The device work queue (stream.c). Every operation carries CUDA's ordering constraints as
 * explicit dependencies: the previous operation of its stream, an awaited event's record, and
 * the legacy default stream's implicit barriers (a legacy-stream operation waits for all
 * earlier work of blocking streams; a blocking stream's operation waits for the last
 * legacy-stream operation). Worker threads run any operation whose dependencies are done, so
 * kernels of independent streams run concurrently while the host thread continues, as on a
 * GPU. Workers start on demand (one for purely sequential programs), at most one with
 * --deterministic or tracing. */
enum rt_order_kind {
    RT_ORDER_LEGACY,      /* the legacy default stream (and the per-thread default stream) */
    RT_ORDER_BLOCKING,    /* a stream created without cudaStreamNonBlocking */
    RT_ORDER_NONBLOCKING, /* cudaStreamNonBlocking: no implicit barrier with stream 0 */
    RT_ORDER_ALL,         /* after every earlier operation of every stream */
};

/* Where an operation goes: its stream (any key; NULL for the legacy and per-thread default
 * streams), the stream's kind, and up to two earlier operations (sequence numbers, 0 = none)
 * it must follow besides the stream's own previous one. */
struct rt_order {
    const void *stream;
    enum rt_order_kind kind;
    uint64_t after[2];
};

/* A dependency: an earlier operation, by sequence number and record (the record is valid
 * while the operation is not retired). */
struct rt_dep {
    uint64_t seq;
    struct rt_op *op;
};

struct rt_op {
    struct rt_op *next;       /* submission order (the queue's list) */
    struct rt_op *snext;      /* the stream's operations not yet started */
    uint64_t seq;
    void (*fn)(struct rt_ctx *c, void *arg);
    void *arg;
    enum rt_order_kind kind;
    bool started, done;
    unsigned ndeps;
    struct rt_dep *deps;      /* dep_inline, or allocated when there are more */
    struct rt_dep dep_inline[4];
};

/* One stream's place in the queue: its operations not yet started (in order: only the first
 * can be ready) and its last operation (what the stream's next one, and barriers, follow). */
struct rt_sq {
    const void *key;
    enum rt_order_kind kind;
    struct rt_op *head, *tail;
    struct rt_dep last;
};

/* A thread waiting for a dependency to be done (rt_wait, inline work), woken by name. */
struct rt_waiter {
    struct rt_dep d;             /* op NULL: wait for the retired prefix to reach d.seq */
    pthread_cond_t cv;
    struct rt_waiter *next;
};

struct rt_queue {
    pthread_mutex_t mu;
    pthread_cond_t work;         /* idle workers wait here */
    struct rt_waiter *waiters;   /* threads waiting for work to finish */
    struct rt_op *head, *tail;   /* operations not yet retired, in submission order */
    struct rt_sq *sq;            /* streams with operations not yet retired */
    unsigned nsq, capsq;
    uint64_t submitted;          /* sequence number of the last operation */
    uint64_t retired;            /* every operation up to this one is done */
    unsigned workers, idle;      /* worker threads started, and waiting for work */
    unsigned max_workers;        /* 1 when deterministic or tracing */
    unsigned running;            /* operations running now */
};

/* ========================================================================= timing.c */

/* What selects timing mode (CLI flags or PTXEMU_TIMING*). */
struct rt_timing_opts {
    bool on;
    const char *spec;       /* preset or file; NULL: the device's preset */
    const char *set;        /* "NAME=VALUE;…" overrides */
    const char *stats_path; /* JSON statistics file, or NULL */
    bool strict;            /* unknown options are errors */
    const char *kernels;    /* --timing-kernels LIST: which launches are simulated (NULL: all) */
    const char *report_dir; /* --timing-report DIR: HTML report written at close (NULL: none) */
    unsigned threads;       /* --threads N: host threads running the SMs (0, 1: one) */
};

/* A simulated GPU shared by the runtime's workers. */
struct rt_timing {
    struct tm_gpu *gpu;
    FILE *json;
    char *kernels;          /* copy of rt_timing_opts.kernels, or NULL */
    char *json_path;        /* with report_dir: the statistics file the report reads */
    char *report_dir;       /* --timing-report DIR, or NULL */
    _Atomic uint64_t nlaunch; /* launches seen (their 0-based index selects them too) */
};

/* Create the simulated GPU for options o and the --device spec (its preset names the default
 * timing configuration; an nsm=N setting there sets the simulated SM count too); statistics go
 * to log. 0, or negative with a message in err. */
int rt_timing_open(const struct rt_timing_opts *o, const char *device_spec, FILE *log,
                   struct rt_timing **out, char *err, size_t errlen);
/* At process exit (no synchronisation: work still running is not waited for): close the JSON
 * statistics and, with --timing-report, write the report. The GPU stays usable. */
void rt_timing_finish(struct rt_timing *t);
/* Close the JSON statistics and free the GPU; with --timing-report, write the report. */
void rt_timing_close(struct rt_timing *t);
/* tm_launch: kernels of workers of independent streams run on the GPU together. A launch the
 * --timing-kernels list does not select runs functionally (interp_launch) and takes no
 * simulated time. */
int rt_timing_launch(struct rt_timing *t, struct interp_dev *d, const struct interp_launch *l,
                     struct interp_stats *st, struct trap *trap);
/* A host-to-device copy wrote [addr, addr+n), addr canonical (mem_alloc.canon; the L2 warm-up
 * of -gpgpu_perf_sim_memcpy). */
void rt_timing_h2d(struct rt_timing *t, uint64_t addr, uint64_t n);
/* A copy of n bytes ran (kind: enum tm_copy_kind): simulated time advances by its cost when
 * copies are timed (-ptxemu_memcpy_timed 1). */
void rt_timing_copy(struct rt_timing *t, int kind, uint64_t n);
/* Simulated nanoseconds so far (event timestamps in timing mode). */
double rt_timing_ns(struct rt_timing *t);
/* Options from PTXEMU_TIMING, PTXEMU_TIMING_SET, PTXEMU_TIMING_STATS, PTXEMU_TIMING_STRICT,
 * PTXEMU_TIMING_KERNELS. */
void rt_timing_env(struct rt_timing_opts *o);
/* Is the --timing-kernels LIST well formed (comma-separated kernel names, launch indices N and
 * ranges N-M)? 0, or -EINVAL with a message in err. */
int rt_timing_kernels_check(const char *list, char *err, size_t errlen);
/* Does LIST select the launch of kernel `name` with 0-based launch index idx? */
bool rt_timing_kernels_match(const char *list, const char *name, uint64_t idx);

struct rt_ctx {
    pthread_mutex_t lock;       /* registry, lazy loading, device creation */
    /* cudaDeviceReset against other host threads' calls: every use of the device's state
     * (memory store, loaded modules, kernels) holds reset_rw for reading (rt_dev_enter), a
     * reset holds it for writing while it destroys them; `resetting` holds new calls back
     * meanwhile (queue workers, which finish earlier calls' work, are never held back), and
     * `gen` counts resets, so work queued before one is refused after it */
    pthread_rwlock_t reset_rw;
    _Atomic int resetting;
    _Atomic uint64_t gen;
    /* a kernel calling printf / malloc was launched since the device was created or reset:
     * their limits are fixed from then on (cudaDeviceSetLimit) */
    _Atomic bool used_printf, used_malloc;
    struct rt_device dev;
    struct interp_config icfg;
    struct interp_dev *idev;    /* created at first use */
    struct fe_cache *cache;
    struct rt_registry reg;
    bool stats;                 /* PTXEMU_STATS */
    bool debug_reg;             /* PTXEMU_DEBUG_REG */
    _Atomic int sticky;         /* sticky error (a kernel fault), 0 = none; written under
                                   lock, read without it on every API call */
    int async_err;              /* non-sticky error of an asynchronous operation, 0 = none */
    bool sync;                  /* PTXEMU_SYNC: run device work on the calling thread */
    struct rt_queue q;
    FILE *printf_mem;           /* device printf output waiting for the next flush point */
    char *printf_buf;
    size_t printf_len;
    char init_err[512];         /* why the device could not be created */
    struct rt_timing_opts topts; /* PTXEMU_TIMING* */
    struct rt_timing *timing;   /* timing mode: created with the device */
    /* sanitizer (PTXEMU_CHECK): the report log (NULL: off), its --log-file stream, its
     * PTXEMU_CHECK_REPORT JSON stream, the PTXEMU_ERROR_EXITCODE status (0: the program's own) */
    struct interp_check_log *chk;
    FILE *chk_file, *chk_json;
    int error_exitcode;
    /* leakcheck: the host backtraces of live device allocations (leak_bt.c) */
    pthread_mutex_t bt_lock;
    struct rt_leak_bt *bt;
};

/* leakcheck's host backtraces (leak_bt.c), kept only when leakcheck is on: record the
 * backtrace of device allocation addr of store m, made by CUDA API function api (a static
 * string, e.g. "cudaMalloc"); forget it when addr is freed; hand a leak's to its report
 * (the bt of interp_check_leaks, ctx the context: false when none was recorded); forget all
 * (after a leak check). */
void rt_leak_bt_alloc(struct rt_ctx *c, struct mem *m, uint64_t addr, const char *api);
void rt_leak_bt_free(struct rt_ctx *c, uint64_t addr);
bool rt_leak_bt_get(void *ctx, const struct mem_alloc *a, struct interp_host_bt *out);
void rt_leak_bt_clear(struct rt_ctx *c);

/* Initialise a context from the environment (PTXEMU_DEVICE, PTXEMU_THREADS, PTXEMU_STATS,
 * PTXEMU_TRACE, PTXEMU_TRACE_THREAD, PTXEMU_DETERMINISTIC, PTXEMU_BUDGET, PTXEMU_DEBUG_REG,
 * PTXEMU_CHECK, PTXEMU_ERROR_EXITCODE, PTXEMU_PRINT_LIMIT, PTXEMU_LOG_FILE).
 * Never fails: a bad setting is reported on stderr and ignored. */
void rt_ctx_init(struct rt_ctx *c);
/* Sanitizer: leakcheck of the current device (cudaDeviceReset, exit), when on. */
void rt_check_leaks(struct rt_ctx *c);
/* Sanitizer at process exit: leakcheck, the ERROR SUMMARY line; returns the exit status to
 * force (PTXEMU_ERROR_EXITCODE when errors were found), or -1 to keep the program's. */
int rt_check_exit(struct rt_ctx *c);
/* Release everything (device memory, modules, registry). */
void rt_ctx_fini(struct rt_ctx *c);
/* The interpreter device, created on first use. NULL (and c->init_err) on failure. */
struct interp_dev *rt_ctx_dev(struct rt_ctx *c);
/* Begin / end a use of the device's state by this thread (nested uses count once): it holds
 * reset_rw for reading; an outermost use by a thread that is not a queue worker first waits
 * while a reset is in progress. */
void rt_dev_enter(struct rt_ctx *c);
void rt_dev_leave(struct rt_ctx *c);
/* Mark the calling thread as a device-work queue worker (stream.c): it never waits for a
 * reset to finish before using the device (the reset may be waiting for its work). */
void rt_dev_worker_thread(void);
bool rt_dev_is_worker(void);
/* cudaDeviceReset's exclusive section: hold new calls back, wait for the ones in progress,
 * hold reset_rw for writing and count the reset (begin); release (end). */
void rt_dev_reset_begin(struct rt_ctx *c);
void rt_dev_reset_end(struct rt_ctx *c);
/* Parse a PTXEMU_TRACE-style list ("insn,regs,mem") into TRACE_* bits; -1 if malformed. */
int rt_parse_trace(const char *s);

/* ========================================================================= registry.c */

struct rt_fatbin {
    void *handle_slot;          /* the program's void** handle points here */
    const struct fatbin_wrapper *wrapper;
    _Atomic int state;          /* 0 not loaded, 1 loaded, -1 load failed; written under the
                                   context lock (1 last: a reader seeing it needs no lock) */
    int load_err;               /* RT_ERR_* when state < 0 */
    struct interp_program *prog;
    const struct ir_module **mods;
    unsigned nmods;
};

struct rt_func {
    const void *host;           /* host stub address */
    char *name;                 /* mangled device name */
    struct rt_fatbin *fb;
    const struct interp_kernel *kernel; /* resolved at load */
    struct interp_kernel_info info;
    uint32_t max_dynamic_shared; /* cudaFuncAttributeMaxDynamicSharedMemorySize */
    _Atomic unsigned devlib;    /* RT_DEVLIB_* bits of its module, once known */
    int preferred_carveout;
    int cache_config;
    bool nonportable_cluster;   /* cudaFuncAttributeNonPortableClusterSizeAllowed */
    int cluster_policy;         /* cudaFuncAttributeClusterSchedulingPolicyPreference */
};

struct rt_var {
    const void *host;           /* host shadow address */
    void **managed_ptr;         /* managed: host pointer variable to point at the storage */
    char *name;
    uint64_t size;
    bool constant, managed;
    struct rt_fatbin *fb;
    uint64_t addr;              /* device address after load */
};

struct rt_fatbin *rt_reg_fatbin(struct rt_ctx *c, const void *wrapper);
struct rt_func *rt_reg_func(struct rt_ctx *c, struct rt_fatbin *fb, const void *host,
                            const char *name);
struct rt_var *rt_reg_var(struct rt_ctx *c, struct rt_fatbin *fb, const void *host,
                          void **managed_ptr, const char *name, uint64_t size, bool constant,
                          bool managed);
void rt_unreg_fatbin(struct rt_ctx *c, struct rt_fatbin *fb);
/* Lookups by host address (stub / shadow); NULL if unknown. Take c->lock themselves. */
struct rt_func *rt_find_func(struct rt_ctx *c, const void *host);
struct rt_var *rt_find_var(struct rt_ctx *c, const void *host);
/* Is p one of our rt_func records (a cudaKernel_t handle)? */
bool rt_is_func(struct rt_ctx *c, const void *p);
/* Load a fat binary (choose PTX, parse, load onto the device, resolve functions and variables,
 * point managed shadows at their storage). Idempotent. 0 or RT_ERR_*; the reason is printed
 * to stderr once. */
int rt_fatbin_load(struct rt_ctx *c, struct rt_fatbin *fb);

/* ============================================================================ stream.c */

/* A launch request as the CUDA API gives it. */
struct rt_launch_req {
    struct rt_func *func;
    uint32_t grid[3], block[3];
    uint64_t shared;
    void **args;
    bool cooperative;
    uint32_t cluster[3];        /* cudaLaunchAttributeClusterDimension; all 0: none */
};

/* A validated launch with its own parameter block, ready to run. */
/* rt_func.devlib: its module calls device printf (vprintf) / malloc or free; bits known */
enum { RT_DEVLIB_PRINTF = 1, RT_DEVLIB_MALLOC = 2, RT_DEVLIB_KNOWN = 4 };

struct rt_kernel_op {
    struct rt_func *func;
    uint64_t gen;               /* rt_ctx.gen when prepared: refused after a reset */
    struct interp_launch l;
    uint8_t *params;
};

/* Validate a launch (module loaded, dimensions, shared memory, co-residency) and copy its
 * parameters. RT_OK with *out (free with rt_launch_exec), or the launch error. */
int rt_launch_prepare(struct rt_ctx *c, const struct rt_launch_req *r, struct rt_kernel_op **out);
/* Run a prepared launch and free it. A fault is reported on stderr and becomes c->sticky. */
void rt_launch_exec(struct rt_ctx *c, struct rt_kernel_op *k);
/* Prepare and run now (graph nodes, which already run on the worker). */
int rt_launch(struct rt_ctx *c, const struct rt_launch_req *r);

/* Operations the queue may hold (submitted, not retired) before rt_submit makes the submitting
 * host thread wait for the oldest, as a driver's full push buffer does: a program launching
 * without synchronizing runs in bounded memory. */
#define RT_QUEUE_DEPTH 1024u
/* Queue fn(c, arg) to run once the work o names is done (o NULL: after everything submitted
 * so far); returns its sequence number. Work runs inline, after all earlier work, when
 * c->sync or no worker thread can be started. */
uint64_t rt_submit(struct rt_ctx *c, const struct rt_order *o,
                   void (*fn)(struct rt_ctx *c, void *arg), void *arg);
/* Wait until the work with sequence number seq (0: everything submitted so far) is done. */
void rt_wait(struct rt_ctx *c, uint64_t seq);
/* Has the work with sequence number seq completed? */
bool rt_done(struct rt_ctx *c, uint64_t seq);
/* Is all work the legacy default stream synchronizes with (its own and blocking streams')
 * done? cudaStreamQuery of stream 0. */
bool rt_legacy_idle(struct rt_ctx *c);
/* Write pending device printf output to stdout (called at CUDA's flush points: kernel
 * launch, synchronization, blocking copies, module unload). Not blocking: skip when a kernel
 * is running. */
void rt_printf_flush(struct rt_ctx *c, bool blocking);

/* Lay out a parameter block from per-parameter argument pointers (CUDA's void **args). */
int rt_build_params(const struct interp_kernel_info *ki, void **args, uint8_t *block);

/* Print the --stats lines of a launch: counts and wall time, then the host threads' load
 * balance (CPU time summed and of the busiest thread, CTAs per thread). */
void rt_print_stats(FILE *out, const char *name, const uint32_t grid[3], const uint32_t block[3],
                    const struct interp_stats *st);

/* `ptxemu report STATS.json -o DIR` (runtime/report.c): the HTML report of a --timing-stats
 * file. Returns the process exit status. */
int rt_report_main(int argc, char **argv);
/* Write DIR/index.html from the statistics file json_path (created by --timing-stats);
 * 0, or -1 with a message in err. */
int rt_report_write(const char *json_path, const char *dir, char *err, size_t errlen);

#endif
