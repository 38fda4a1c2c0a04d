/*
 * timing/icnt.h — the interconnect between SMs and memory sub-partitions (issue 22 item 4).
 *
 * Nodes 0 … n_sm-1 are SMs, n_sm … n_sm+n_mem-1 the memory sub-partitions (L2 slices). Two
 * subnetworks as in GPGPU-Sim (-icnt_subnets 2): requests travel SM → memory, replies
 * memory → SM; with -icnt_subnets 1 both share one network. A packet carries one struct tm_req
 * (the payload is copied, never interpreted) and is cut into ceil(bytes / -icnt_flit_size) flits
 * that compete for links and buffers; credits give back-pressure, so a full network refuses
 * pushes (tm_icnt_can_push false) instead of growing.
 *
 * Networks (chosen by -network_mode):
 *   2  GPGPU-Sim's local crossbar (-icnt_in_buffer_limit, -icnt_out_buffer_limit,
 *      -icnt_arbiter_algo 0 round robin / 1 iSLIP, -icnt_grant_cycles);
 *   1  a BookSim-style network read from -inter_config_file (topology mesh, torus, fly,
 *      crossbar; k, n, c; routing_function; num_vcs; vc_buf_size; input/output speedup;
 *      routing_delay, vc_alloc_delay, sw_alloc_delay; flit size…), with nodes mapped as the
 *      file's (or GPGPU-Sim's default) SM/memory placement says;
 *   3  the hierarchical crossbar (SM → TPC → GPC → L2 partition) with near/far latencies and
 *      a far link of limited width (options -ptxemu_icnt_*; icnt.c says which SMs and slices
 *      are in which partition).
 * Idle routers cost nothing: a cycle with no flit anywhere returns at once.
 *
 * Threading (issue 24): the interconnect is touched only from the memory-system phase of a cycle.
 */
#ifndef PTXEMU_TIMING_ICNT_H
#define PTXEMU_TIMING_ICNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "timing/config.h"

struct tm_req;
struct tm_icnt; /* opaque */

enum tm_icnt_stat {
    TM_IS_PACKETS_REQ,   /* packets injected into the request subnet */
    TM_IS_PACKETS_REP,   /* … into the reply subnet */
    TM_IS_FLITS_REQ,
    TM_IS_FLITS_REP,
    TM_IS_LAT_SUM_REQ,   /* sum over delivered packets of (delivered - injected) icnt cycles */
    TM_IS_LAT_SUM_REP,
    TM_IS_LAT_MAX_REQ,
    TM_IS_LAT_MAX_REP,
    TM_IS_PUSH_REFUSED,  /* tm_icnt_can_push answered false */
    TM_IS_CYCLES,        /* icnt cycles simulated with a flit in the network */
    /* network_mode 3 (two L2 partitions): */
    TM_IS_L2_NEAR_REQ,   /* request packets from an SM to a slice of its own partition */
    TM_IS_L2_FAR_REQ,    /* … to a slice of the other partition */
    TM_IS_L2_FAR_REP,    /* reply packets from a slice to an SM of the other partition */
    TM_IS_FAR_WAIT,      /* icnt cycles far packets waited for their link (-ptxemu_icnt_far_flits) */
    TM_IS__COUNT
};

/* Build the network for n_sm SMs and n_mem memory nodes from cfg. 0; -EINVAL with a message
 * in err (unknown network_mode, unreadable or malformed -inter_config_file: "file:line: …");
 * -ENOMEM. `base_dir`, when not NULL, is where a relative -inter_config_file is looked up
 * first (the directory of the configuration file). */
int tm_icnt_create(struct tm_icnt **out, const struct tm_config *cfg, uint32_t n_sm,
                   uint32_t n_mem, const char *base_dir, char *err, size_t errlen);
void tm_icnt_destroy(struct tm_icnt *n);

/* May node src inject a packet of `bytes` bytes now? */
bool tm_icnt_can_push(const struct tm_icnt *n, uint32_t src, uint32_t bytes);
/* Inject a packet from src to dst carrying *r (copied). The caller checked tm_icnt_can_push. */
void tm_icnt_push(struct tm_icnt *n, uint32_t src, uint32_t dst, const struct tm_req *r,
                  uint32_t bytes);
/* The oldest packet delivered to node dst, or NULL; tm_icnt_pop removes it. Delivered packets
 * wait in the node's ejection buffer (bounded: a node that does not pop stalls the network). */
const struct tm_req *tm_icnt_peek(const struct tm_icnt *n, uint32_t dst);
void tm_icnt_pop(struct tm_icnt *n, uint32_t dst);
/* One interconnect clock. */
void tm_icnt_cycle(struct tm_icnt *n);
/* Any packet in flight or waiting to be popped? */
bool tm_icnt_busy(const struct tm_icnt *n);
/* n interconnect clocks of an idle network (!tm_icnt_busy): what n tm_icnt_cycle calls do. */
void tm_icnt_idle_cycles(struct tm_icnt *n, uint64_t cycles);
/* Counters (enum tm_icnt_stat), cumulative since creation. */
const uint64_t *tm_icnt_stats(const struct tm_icnt *n);
/* Whether the L2 is split in two partitions with a far link (network_mode 3): the
 * TM_IS_L2_* and TM_IS_FAR_WAIT counters are kept only then. */
bool tm_icnt_partitioned(const struct tm_icnt *n);
/* One line naming the network, e.g. "crossbar 80x64, 2 subnets, iSLIP, 40-byte flits". */
const char *tm_icnt_describe(const struct tm_icnt *n);

#endif
