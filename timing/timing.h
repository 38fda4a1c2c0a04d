/*
 * timing/timing.h — timing mode's public interface: a simulated GPU that runs kernels cycle by
 * cycle on the functional engine (interp/engine.h) and counts what happened.
 *
 * A `struct tm_gpu` lives as long as the program (its cycle counter is GPGPU-Sim's
 * gpu_tot_sim_cycle); tm_launch runs one kernel to completion on it: CTAs are dispatched to
 * SMs as resources allow, every warp instruction is executed by the engine at the cycle the
 * model issues it (so the values are the functional engine's), and %clock/%clock64 read the
 * SM's cycle, %globaltimer simulated nanoseconds.
 */
#ifndef PTXEMU_TIMING_TIMING_H
#define PTXEMU_TIMING_TIMING_H

#include <stdint.h>
#include <stdio.h>

#include "interp/interp.h"
#include "timing/config.h"

struct tm_gpu; /* opaque */

/* Counter ids (stats.def). */
enum tm_stat {
#define TM_STAT(id, name, help) TM_ST_##id,
#include "timing/stats.def"
#undef TM_STAT
    TM_ST__COUNT
};

/* Printed name of a counter (GPGPU-Sim's where it exists). */
const char *tm_stat_name(enum tm_stat s);

/* What one kernel cost. */
struct tm_kernel_result {
    uint64_t uid;                 /* kernel_launch_uid */
    uint64_t start_cycle, cycles; /* gpu_tot_sim_cycle at launch; gpu_sim_cycle */
    uint64_t warp_insns, thread_insns;
    double start_ns, ns;          /* the same in simulated nanoseconds (core clock) */
    double host_seconds;          /* wall time the simulation took */
    uint64_t st[TM_ST__COUNT];    /* the kernel's counters, summed over SMs */
};

/*
 * Create a simulated GPU from a derived configuration (copied: cfg may be freed after).
 * `log` receives the per-kernel statistics (NULL: none); `json`, when not NULL, receives a JSON
 * array with one object per kernel (every counter per kernel and per SM), closed by
 * tm_gpu_destroy. base_dir (may be NULL): where file options such as -inter_config_file are
 * looked up first (the configuration file's directory). 0, -ENOMEM, or -EINVAL with a message
 * in err (a memory-system configuration its components refuse).
 */
int tm_gpu_create(const struct tm_config *cfg, const char *base_dir, FILE *log, FILE *json,
                  struct tm_gpu **out, char *err, size_t errlen);

/* Run the SMs' cycles on n host threads (0, 1: the caller's only; at most one per SM): SM i
 * on thread i mod n, every statistic and cycle count the same as with one (README.md,
 * "Parallel SMs"). Call before the first launch. 0, -ENOMEM or -EAGAIN (then one thread). */
int tm_gpu_set_threads(struct tm_gpu *g, uint32_t n);

/* Free the GPU; closes the JSON array. */
void tm_gpu_destroy(struct tm_gpu *g);

/* Close the JSON array now (at process exit, while kernels of other threads may still run:
 * their statistics are no longer written); tm_gpu_destroy then writes nothing more. */
void tm_gpu_close_json(struct tm_gpu *g);

/* Simulated time so far: core cycles (gpu_tot_sim_cycle) and nanoseconds. */
uint64_t tm_gpu_cycle(const struct tm_gpu *g);
double tm_gpu_ns(const struct tm_gpu *g);

/* Advance simulated time by ns nanoseconds with the GPU idle (host-side work such as a memcpy
 * the model does not time). */
void tm_gpu_idle_ns(struct tm_gpu *g, double ns);

/* A host-to-device copy wrote [addr, addr+bytes) (addr canonical: mem_alloc.canon plus the
 * offset in the block): with -gpgpu_perf_sim_memcpy 1 the L2 lines
 * it covers become valid, as GPGPU-Sim's perf memcpy makes them (the copy itself is not timed).
 * Ignored while a kernel is being simulated on another thread (the L2 belongs to it then) and
 * under -gpgpu_perfect_mem. */
void tm_gpu_memcpy_h2d(struct tm_gpu *g, uint64_t addr, uint64_t bytes);

/* Kinds of copies tm_gpu_copy times. */
enum tm_copy_kind { TM_COPY_H2D, TM_COPY_D2H, TM_COPY_D2D };

/* A copy of `bytes` bytes ran: with -ptxemu_memcpy_timed 1 simulated time advances by its
 * cost (host link: -ptxemu_pcie_latency_ns + bytes / -ptxemu_pcie_gbps; device to device:
 * each byte read and written at the DRAM peak), the GPU idle meanwhile (copies do not
 * overlap kernels in this model). Returns the nanoseconds added (0 when untimed). */
double tm_gpu_copy(struct tm_gpu *g, enum tm_copy_kind kind, uint64_t bytes);

/* The configuration the GPU runs (its own copy). */
const struct tm_config *tm_gpu_config(const struct tm_gpu *g);

/*
 * Run kernel launch l of device d on g to completion, cycle by cycle. Returns as
 * interp_launch does: 0 completed, 1 trapped (*trap filled), negative for an invalid launch
 * (message in trap->msg). *st (may be NULL) gets the functional counts, *res (may be NULL) what
 * the kernel cost in simulated time. Statistics are printed to the GPU's log.
 */
int tm_launch(struct tm_gpu *g, struct interp_dev *d, const struct interp_launch *l,
              struct interp_stats *st, struct trap *trap, struct tm_kernel_result *res);

#endif
