/*
 * timing/config.h — timing-mode configuration: every option of timing/config.def (GPGPU-Sim's
 * gpgpusim.config names where the concept is the same), their defaults, and the quantities
 * derived from them once at start (pipeline widths, per-opcode latencies, cache geometries,
 * clock periods, scheduler kind).
 *
 * Raw values live in `struct tm_options` (one field per config.def row; the field is the option
 * name with ':' spelled '_'); derived ones in `struct tm_config`. Model code reads the derived
 * fields where they exist and the raw ones otherwise. Nothing here is global: a config is a
 * value the caller owns (tm_config_init / tm_config_free).
 */
#ifndef PTXEMU_TIMING_CONFIG_H
#define PTXEMU_TIMING_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "frontend/ir.h"

/* Option value kinds (config.def column `type`). */
enum tm_opt_type {
    TM_INT, /* integer (decimal, 0x hex); booleans are 0/1 */
    TM_DBL, /* floating point */
    TM_STR, /* string, parsed by tm_config_derive where the model uses it */
};

/* Option flags (config.def column `flags`). */
enum {
    TM_MODELLED = 1 << 0, /* the model implements it: it takes effect */
    TM_ACCEPTED = 0,      /* accepted for compatibility, not modelled (listed once) */
};

struct tm_options {
#define TM_OPT(name, field, type, def, flags, help) TM_FIELD_##type field;
#define TM_FIELD_TM_INT int64_t
#define TM_FIELD_TM_DBL double
#define TM_FIELD_TM_STR char *
#include "timing/config.def"
#undef TM_FIELD_TM_INT
#undef TM_FIELD_TM_DBL
#undef TM_FIELD_TM_STR
#undef TM_OPT
};

/* Row of the option table (tm_opt_table). */
struct tm_opt_desc {
    const char *name; /* without the leading '-' */
    enum tm_opt_type type;
    const char *def;  /* default, as it would be written in a config file */
    unsigned flags;   /* TM_MODELLED … */
    const char *help;
    size_t offset;    /* of the field in struct tm_options */
};

/* Pipeline register sets between issue, operand collection, execution and writeback, in the
 * order of GPGPU-Sim's -gpgpu_pipeline_widths. */
enum tm_pipe {
    TM_ID_OC_SP, TM_ID_OC_DP, TM_ID_OC_INT, TM_ID_OC_SFU, TM_ID_OC_MEM,
    TM_OC_EX_SP, TM_OC_EX_DP, TM_OC_EX_INT, TM_OC_EX_SFU, TM_OC_EX_MEM,
    TM_EX_WB, TM_ID_OC_TENSOR, TM_OC_EX_TENSOR,
    TM_PIPE__COUNT
};

/* Execution unit kinds of the SM model. */
enum tm_fu { TM_FU_SP, TM_FU_DP, TM_FU_INT, TM_FU_SFU, TM_FU_TENSOR, TM_FU_MEM, TM_FU__COUNT };

/* Warp scheduler policies (-gpgpu_scheduler). */
enum tm_sched_kind { TM_SCHED_LRR, TM_SCHED_GTO, TM_SCHED_TWO_LEVEL, TM_SCHED_OLD,
                     TM_SCHED_RRR };

/* A cache's geometry and policies, from GPGPU-Sim's cache string
 * "<N|S>:<nsets>:<line>:<assoc>,<repl>:<write>:<alloc>:<write_alloc>:<set_index>,
 *  <mshr>:<entries>:<merge>,<miss_queue>[:<fifo>][,<data_port_width>]". */
struct tm_cache_geom {
    bool present;        /* the option was given and is not "none" */
    bool sectored;       /* 'S': 32-byte sectors of each line */
    uint32_t nset, line, assoc;
    char repl;           /* 'L' LRU, 'F' FIFO */
    char write;          /* 'R' read-only, 'B' write-back, 'T' write-through, 'E' evict, 'L' local wb/global wt */
    char alloc;          /* 'm' on miss, 'f' on fill, 's' streaming */
    char write_alloc;    /* 'N' no, 'W' write-allocate, 'F' fetch-on-write, 'L' lazy fetch-on-read */
    char set_index;      /* 'L' linear, 'H' hash (Fermi), 'P' IPOLY, 'X' custom */
    char mshr;           /* 'A' associative, 'F' FIFO, 'T' texture FIFO, 'S' sector assoc */
    uint32_t mshr_entries, mshr_merge, miss_queue, fifo_entries, data_port_width;
};

/* Latency and initiation interval of one operation class on one unit. */
struct tm_oplat {
    uint16_t lat;  /* cycles from dispatch to result */
    uint16_t init; /* cycles before the unit accepts the next warp instruction */
};

struct tm_config {
    struct tm_options o; /* raw option values */

    /* derived (tm_config_derive) */
    uint32_t n_sm;               /* gpgpu_n_clusters × gpgpu_n_cores_per_cluster */
    uint32_t max_threads_per_sm; /* -gpgpu_shader_core_pipeline <threads>:<warp size> */
    uint32_t warp_size;
    uint32_t max_warps_per_sm;
    uint32_t pipe_width[TM_PIPE__COUNT];
    uint32_t n_units[TM_FU__COUNT];      /* units per SM of each kind (MEM: 1) */
    struct tm_oplat oplat[U_NONE + 1][LAT__COUNT]; /* by ir_unit × ir_lat */
    enum tm_sched_kind sched;
    uint32_t two_level_active;   /* two_level_active:<N>:… warps in the active pool */
    double clock_mhz[4];         /* core, interconnect, L2, DRAM */
    struct tm_cache_geom il1, dl1, l1c, l1t, l2;
    uint32_t shmem_opt[16];      /* -gpgpu_shmem_option carve-outs, KiB, ascending */
    uint32_t n_shmem_opt;
    uint32_t perfect_mem_latency; /* cycles of a global access with -gpgpu_perfect_mem */
};

/* The option table (config.def rows in order) and its length. */
extern const struct tm_opt_desc tm_opt_table[];
extern const size_t tm_opt_count;

/* Option row by name (without '-'), or NULL. */
const struct tm_opt_desc *tm_opt_find(const char *name);

/* Fill *c with every option's default (not yet derived). 0, or -ENOMEM. */
int tm_config_init(struct tm_config *c);

/* Free the strings *c owns. */
void tm_config_free(struct tm_config *c);

/* Set option `name` (no '-') from its textual value. 0; -ENOENT unknown option; -EINVAL a
 * malformed value (message in err). Last assignment wins. */
int tm_config_set(struct tm_config *c, const char *name, const char *value, char *err,
                  size_t errlen);

/* Compute the derived fields from the raw options and check them. 0, or -EINVAL with a
 * message naming the option in err. Call after the last tm_config_set. */
int tm_config_derive(struct tm_config *c, char *err, size_t errlen);

/* Load the configuration `spec` names: NULL or "" the preset of device `device_key`, a preset
 * name, or a gpgpusim.config file (strict: unknown options are errors). Defaults first; not yet
 * derived. 0, or a negative error after a diagnostic on diag. */
int tm_config_load(struct tm_config *c, const char *spec, const char *device_key, bool strict,
                   FILE *diag);

#endif
