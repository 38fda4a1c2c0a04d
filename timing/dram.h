/*
 * timing/dram.h — one DRAM channel controller (issue 22 item 5), clocked by the DRAM clock
 * domain (-gpgpu_clock_domains' fourth value is the command clock).
 *
 * Built once from the configuration: -gpgpu_dram_timing_opt (positional
 * nbk:tCCD:tRRD:tRCD:tRAS:tRP:tRC:CL:WL:tCDLR:tWR:nbkgrp:tCCDL:tRTPL, or name=value pairs),
 * -gpgpu_dram_buswidth, -gpgpu_dram_burst_length, -dram_data_command_freq_ratio,
 * -gpgpu_n_mem_per_ctrlr, -dram_dual_bus_interface, -gpgpu_dram_scheduler (0 FIFO, 1 FR-FCFS),
 * -gpgpu_frfcfs_dram_sched_queue_size, -gpgpu_dram_return_queue_size,
 * -dram_seperate_write_queue_enable / -dram_write_queue_size, -dram_elimnate_rw_turnaround,
 * refresh (-ptxemu_dram_tREFI / -ptxemu_dram_tRFC, 0 = off as in the Accel-Sim presets), and
 * -gpgpu_simple_dram_model (fixed latency and bandwidth). The timing constraints are one table
 * (command × command × same bank / same bank group / other group) built at creation, so a cycle
 * checks table entries, never re-derives them.
 *
 * A request is one access of `bytes` bytes (a multiple of the atom size: 32-byte sectors) to the
 * already decoded bank/row/column. Reads come back through tm_dram_pop when their data burst
 * ends; writes complete silently (the L2 acknowledged them).
 */
#ifndef PTXEMU_TIMING_DRAM_H
#define PTXEMU_TIMING_DRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "timing/config.h"

struct tm_dram; /* opaque */

struct tm_dram_req {
    uint64_t addr;     /* device address (for the caller; the controller uses bk/row/col) */
    uint64_t token;    /* the caller's identity of the request, returned unchanged */
    uint32_t bk, row, col;
    uint32_t bytes;
    bool write;
};

enum tm_dram_stat {
    TM_DS_N_CMD,        /* command-clock cycles simulated (GPGPU-Sim n_cmd) */
    TM_DS_N_NOP,        /* cycles no command issued */
    TM_DS_N_ACTIVITY,   /* cycles with a request pending or in progress */
    TM_DS_N_ACT,
    TM_DS_N_PRE,
    TM_DS_N_REF,
    TM_DS_N_REQ,        /* requests accepted */
    TM_DS_N_RD,         /* read column commands */
    TM_DS_N_WR,         /* write column commands */
    TM_DS_BUS_BUSY,     /* cycles the data bus carried data (bw_util = BUS_BUSY / N_CMD) */
    TM_DS_ROW_HIT,      /* column access to an open row */
    TM_DS_ROW_MISS,     /* access to a closed bank (activate only) */
    TM_DS_ROW_CONFLICT, /* another row open: precharge + activate */
    TM_DS_RW_TURNAROUND,/* read↔write bus turnarounds */
    TM_DS_QUEUE_SUM,    /* sum over cycles of queued requests (average queue length) */
    TM_DS_LAT_SUM,      /* sum over returned reads of (return - accept) DRAM cycles */
    TM_DS__COUNT
};

/* Build channel `id`'s controller. 0; -EINVAL with a message in err (malformed
 * -gpgpu_dram_timing_opt, nbk not a multiple of nbkgrp, …); -ENOMEM. */
int tm_dram_create(struct tm_dram **out, const struct tm_config *cfg, uint32_t id, char *err,
                   size_t errlen);
void tm_dram_destroy(struct tm_dram *d);

/* Can the controller accept one more request now (scheduler queue not full)? */
bool tm_dram_can_accept(const struct tm_dram *d);
/* Accept a request (the caller checked tm_dram_can_accept). */
void tm_dram_push(struct tm_dram *d, const struct tm_dram_req *r);
/* One DRAM command-clock cycle: at most one command issued (two with the dual bus interface),
 * data bursts advanced, refresh. */
void tm_dram_cycle(struct tm_dram *d);
/* The oldest read whose data has returned, or NULL; tm_dram_pop removes it. A full return queue
 * (-gpgpu_dram_return_queue_size) stalls the controller. */
const struct tm_dram_req *tm_dram_peek(const struct tm_dram *d);
void tm_dram_pop(struct tm_dram *d);
/* Anything queued, in progress or waiting to be popped? */
bool tm_dram_busy(const struct tm_dram *d);
/* n cycles of a controller that nothing reaches meanwhile: exactly what n tm_dram_cycle calls
 * would do (in bulk while it is idle and no refresh is due, cycle by cycle otherwise). */
void tm_dram_idle_cycles(struct tm_dram *d, uint64_t n);
/* The cycle of a controller that nothing reaches this cycle, when it is idle and no refresh
 * is due: counted as tm_dram_idle_cycles(d, 1) counts it, true; otherwise nothing done, false
 * (the caller runs tm_dram_cycle). Lets the memory system pass idle channels cheaply. */
bool tm_dram_idle_tick(struct tm_dram *d);
/* How many more cycles tm_dram_idle_tick would count as idle if nothing reached the controller
 * (0 when it is busy or a refresh is pending or due; UINT64_MAX without refresh): the memory
 * system lets an idle channel sleep that long and counts the cycles in bulk. */
uint64_t tm_dram_idle_room(const struct tm_dram *d);
/* Counters (enum tm_dram_stat), cumulative since creation. */
const uint64_t *tm_dram_stats(const struct tm_dram *d);
/* GPGPU-Sim's names of the counters ("n_cmd", "n_nop", "n_activity", "n_act", "n_pre", "n_ref",
 * "n_req", "n_rd", "n_wr", …). */
const char *tm_dram_stat_name(enum tm_dram_stat s);

#endif
