/*
 * timing/mem.h — the memory system behind the SMs' request queues (issue 22): the
 * interconnect, memory sub-partitions with their L2 slices, ROP delay and queues, and one DRAM
 * controller per channel.
 *
 * Requests leave an SM through its `to_mem` queue (already filtered by the SM's L1D) and come
 * back through `from_mem`; the memory system touches an SM only through those two queues, in
 * its own phase of the cycle (tm_int.h's threading rule). Each clock domain has its step:
 * tm_mem_icnt_cycle (interconnect clock: SM queues ↔ network ↔ sub-partitions),
 * tm_mem_l2_cycle (L2 clock: the slices), tm_mem_dram_cycle (DRAM command clock).
 * The GPU calls them at their domains' edges in time order.
 *
 * Path of a read: SM to_mem → network (request subnet) → sub-partition ROP queue
 * (-gpgpu_l2_rop_latency core cycles) → L2 slice → on a miss the L2→DRAM queue
 * (-dram_latency core cycles) → DRAM channel → DRAM→L2 queue → L2 fill → L2→network queue →
 * network (reply subnet) → SM from_mem. Writes are acknowledged by the L2 slice. Queue depths
 * are -gpgpu_dram_partition_queues (icnt→L2 : L2→DRAM : DRAM→L2 : L2→icnt).
 *
 * With two chiplets (-gpgpu_n_chiplet_partition 2, Accel-Sim's model; timing/README.md) an
 * L2 miss on memory the other chiplet owns goes instead through an inter-chiplet latency
 * queue to the peer slice (same local index, other chiplet), which serves it through its L2
 * and DRAM and sends the data back through another; it then fills the requesting slice.
 */
#ifndef PTXEMU_TIMING_MEM_H
#define PTXEMU_TIMING_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "timing/config.h"

struct tm_sm;
struct tm_mem; /* opaque */

/* Build the memory system for n_sm SMs. 0; -EINVAL with a message in err (a configuration the
 * components refuse); -ENOMEM. base_dir: where relative file options (-inter_config_file) are
 * looked up first (NULL: the working directory). */
int tm_mem_create(struct tm_mem **out, const struct tm_config *cfg, uint32_t n_sm,
                  const char *base_dir, char *err, size_t errlen);
void tm_mem_destroy(struct tm_mem *m);

/* One interconnect cycle: requests from the SMs' to_mem queues into the network, requests out of
 * the network into the sub-partitions, replies into the network, replies out of it into the SMs'
 * from_mem queues (consumable from core cycle `core_now`). In the relaxed and lookahead modes
 * with the memory system overlapped (cfg relax_ovl) the SMs' side of the queues is not touched: the
 * requests come from to_net, the replies go to net_rep (room: cap - rep_held), which the GPU
 * moves between windows (struct tm_sm), so this may run while the SMs run on other threads. */
void tm_mem_icnt_cycle(struct tm_mem *m, struct tm_sm *sms, uint64_t core_now);
/* One L2 cycle of every sub-partition (core_now: the core cycle, for the ROP and DRAM delays). */
void tm_mem_l2_cycle(struct tm_mem *m, uint64_t core_now);
/* One DRAM command cycle of every channel. */
void tm_mem_dram_cycle(struct tm_mem *m, uint64_t core_now);
/* The same two steps for the DRAM channels [c0, c1) and their sub-partitions only (channel c
 * has sub-partitions c·n_sub … c·n_sub + n_sub − 1; the full steps are the range of all
 * channels). In these two steps channels share nothing but the per-PTX-line counters of
 * attached profiles and, with chiplets, the inter-chiplet queues between peer slices, so
 * with no profile attached (!tm_mem_profiled) and no chiplets (!tm_mem_ranges_coupled)
 * disjoint ranges may run
 * on different threads at once, each range its own sequence of these steps (the parallel
 * SMs' phases, gpu.c): as long as nothing else touches the memory system meanwhile, the
 * result is that of the full steps in the same order. */
void tm_mem_l2_cycle_range(struct tm_mem *m, uint64_t core_now, uint64_t l2t, uint32_t c0,
                           uint32_t c1);
/* The next L2 clock edge stepped (the data and fill ports' time, tm_mem_l2_cycle_range's
 * l2t): called in edge order by the driver, also for an edge it holds back and runs later
 * in ranges on several threads, which then need no shared counter. */
uint64_t tm_mem_l2_tick(struct tm_mem *m);
void tm_mem_dram_cycle_range(struct tm_mem *m, uint64_t core_now, uint32_t c0, uint32_t c1);
/* DRAM channels (memory partitions). */
uint32_t tm_mem_nchannels(const struct tm_mem *m);
/* Do the inter-chiplet queues couple sub-partitions of different channels
 * (-gpgpu_n_chiplet_partition 2)? Then channel ranges are not independent: the driver must
 * run tm_mem_l2_cycle_range / tm_mem_dram_cycle_range over all channels at once, on one
 * thread, as it must with a profile attached. */
bool tm_mem_ranges_coupled(const struct tm_mem *m);
/* Is a profile attached (tm_mem_prof_attach)? */
bool tm_mem_profiled(const struct tm_mem *m);
/* Anything in flight anywhere in the memory system? */
bool tm_mem_busy(const struct tm_mem *m);
/* Fast-forward an idle memory system (!tm_mem_busy, every SM's queue to memory empty) by
 * n_icnt interconnect and n_dram DRAM clocks: exactly what that many tm_mem_icnt_cycle /
 * tm_mem_dram_cycle calls would do (idle L2 slices do nothing per clock). */
void tm_mem_idle_cycles(struct tm_mem *m, uint64_t n_icnt, uint64_t n_dram);

/* Host-to-device copy of [addr, addr+bytes) with -gpgpu_perf_sim_memcpy: the L2 lines become
 * valid as GPGPU-Sim's perf memcpy makes them. */
void tm_mem_memcpy_to_device(struct tm_mem *m, uint64_t addr, uint64_t bytes);

/* -gpgpu_flush_l2_cache 1 when the last running kernel ended: every slice queues a write-back
 * of each dirty line towards DRAM (GPGPU-Sim's invalidateL2 drops them: a TODO there) and
 * then invalidates every line, so the next kernel starts with a cold L2; fills in flight
 * still complete. */
void tm_mem_l2_flush(struct tm_mem *m);
/* Are write-backs still on their way to DRAM or being written (an L2 miss queue, an
 * L2→DRAM queue or a DRAM controller not empty)? The flushing kernel ends when not. */
bool tm_mem_l2_flush_busy(const struct tm_mem *m);

/* Per-PTX-line L2 and DRAM counters (issue 23): a profile attached here gets GPU-wide line
 * ids (p->line0 + row; the SMs put them in their requests), and the L2 slices and DRAM
 * channels count each request's accesses, misses and DRAM sectors read into the profile's
 * rows (TM_PC_L2_ACCESS, TM_PC_L2_MISS, TM_PC_DRAM_RD). At most TM_MEM_MAXPROF profiles at a
 * time (a further one's requests carry no line). Driver thread only: attach when the kernel
 * joins the running set, detach before its profile is freed. */
#define TM_MEM_MAXPROF 16
struct tm_prof;
void tm_mem_prof_attach(struct tm_mem *m, struct tm_prof *p);
void tm_mem_prof_detach(struct tm_mem *m, struct tm_prof *p);

/* Counters: a flat vector (its length tm_mem_nstats) that tm_mem_snapshot copies out, so a
 * kernel's share is the difference of two snapshots. */
size_t tm_mem_nstats(const struct tm_mem *m);
void tm_mem_snapshot(const struct tm_mem *m, uint64_t *out);
/* Print the memory system's counters for the difference d (= snapshot after - before) in
 * GPGPU-Sim's format (L2_cache_stats_breakdown, L2_total_cache_*, DRAM[i]: n_cmd=…, icnt_*). */
void tm_mem_print(const struct tm_mem *m, const uint64_t *d, FILE *f);
/* The same as JSON members (`"l2": {…}, "dram": [...], "icnt": {…}`), without braces around. */
void tm_mem_json(const struct tm_mem *m, const uint64_t *d, FILE *f);
/* From the difference d: L2 accesses and misses (L2_total_cache_*) and DRAM bytes moved
 * (column commands x atom); what a time-series sample keeps (timing/sample.c). */
void tm_mem_sample_totals(const struct tm_mem *m, const uint64_t *d, uint64_t *l2_acc,
                          uint64_t *l2_miss, uint64_t *dram_bytes);

#endif
