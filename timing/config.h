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

/* Index of each option in tm_opt_table (config.def order): TM_OPT_ID_<field>. */
enum tm_opt_id {
#define TM_OPT(name, field, type, def, flags, help) TM_OPT_ID_##field,
#include "timing/config.def"
#undef TM_OPT
    TM_OPT__COUNT
};

/* Who last assigned an option (struct tm_config.opt_src), for the "accepted, not modelled"
 * listing: options a compiled-in preset sets are not listed, those of the user's files are. */
enum tm_opt_src { TM_SRC_DEFAULT = 0, TM_SRC_PRESET, TM_SRC_FILE };

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
enum tm_fu { TM_FU_SP, TM_FU_DP, TM_FU_INT, TM_FU_SFU, TM_FU_TENSOR, TM_FU_MEM,
             TM_FU_SPEC, /* -specialized_unit_1 … _8: TM_FU_SPEC + 0 … 7 */
             TM_FU__COUNT = TM_FU_SPEC + 8 };

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
    char set_index;      /* 'L' linear, 'H' Fermi hash, 'P' IPOLY, 'X' bitwise XOR, 'C' custom */
    char mshr;           /* 'A' assoc, 'S' sector assoc, 'F' FIFO, 'T' sector FIFO (texture) */
    uint32_t mshr_entries, mshr_merge, miss_queue, fifo_entries;
    uint32_t data_port_width; /* bytes per cycle; the line size when the string leaves it out */
};

/* Latency and initiation interval of one operation class on one unit. */
struct tm_oplat {
    uint16_t lat;  /* cycles from dispatch to result */
    uint16_t init; /* cycles before the unit accepts the next warp instruction */
};

#define TM_TC_CLASSES 9 /* enum engine_tc_class (interp/engine.h) */

struct tm_config {
    struct tm_options o; /* raw option values */

    /* derived (tm_config_derive) */
    uint32_t n_sm;               /* gpgpu_n_clusters × gpgpu_n_cores_per_cluster */
    uint32_t max_threads_per_sm; /* -gpgpu_shader_core_pipeline <threads>:<warp size> */
    uint32_t warp_size;
    uint32_t max_warps_per_sm;
    uint32_t pipe_width[TM_PIPE__COUNT];
    uint32_t n_units[TM_FU__COUNT];      /* units per SM of each kind (MEM: 1) */
    /* specialised operand collectors (-gpgpu_enable_specialized_operand_collector 1): per unit
     * kind its collector units, input and output ports, per SM (GPGPU-Sim's SP_CUS, DP_CUS,
     * INT_CUS, SFU_CUS, TENSOR_CORE_CUS, MEM_CUS); all 0 when off */
    bool spec_oc;
    uint32_t oc_units[TM_FU__COUNT], oc_in[TM_FU__COUNT], oc_out[TM_FU__COUNT];
    /* specialised units (-specialized_unit_N, enabled): per N its pipeline register widths,
     * name and the latency/initiation of its instructions
     * (-trace_opcode_latency_initiation_spec_op_N); n_units[TM_FU_SPEC + N - 1] units. A unit
     * named BRA takes the control instructions, one named TENSOR the tensor-core ones (the
     * first of each name), as Accel-Sim's trace mode routes those SASS opcodes; others get
     * no PTX instruction. */
    uint32_t spec_idoc[8], spec_ocex[8];
    char spec_name[8][16];
    struct tm_oplat spec_lat[8];
    int spec_bra, spec_tensor;   /* TM_FU_SPEC + N - 1, or -1 */
    struct tm_oplat oplat[U_NONE + 1][LAT__COUNT]; /* by ir_unit × ir_lat */
    struct tm_oplat mufu;        /* one MUFU/I2F/F2I (-trace_opcode_latency_initiation_sfu) */
    /* -ptxemu_tensor_rate: multiply-adds per cycle of one tensor unit by enum engine_tc_class
     * (0 entries filled with the f16 rate); tc_on false: the fixed latency / initiation */
    bool tc_on;
    uint32_t tc_rate[TM_TC_CLASSES];
    uint32_t tc_lat;             /* -ptx_opcode_latency_tesnor's first value */
    bool expand;                 /* -ptxemu_expand_ptx: multi-instruction PTX ops (expand.h) */
    enum tm_sched_kind sched;
    uint32_t two_level_active;   /* two_level_active:<N>:… warps in the active pool */
    double clock_mhz[4];         /* core, interconnect, L2, DRAM */
    struct tm_cache_geom il1, dl1, l1c, l1t, l2;
    uint32_t shmem_opt[16];      /* -gpgpu_shmem_option carve-outs, KiB, ascending */
    uint32_t n_shmem_opt;
    uint32_t perfect_mem_latency; /* cycles of a global access with -gpgpu_perfect_mem */
    uint32_t relax_q;            /* -ptxemu_timing_relaxed 1: cycles per quantum; 0: exact mode */
    bool relax_ordered;          /* -ptxemu_timing_lookahead W: relax_q = W, and the SMs' global
                                    steps run in (cycle, SM) order (relax.c) */
    bool relax_ovl;              /* the relaxed and lookahead modes with a memory system: the
                                    driver runs the memory system's next quantum (window) while the
                                    SMs run theirs (gpu.c relax_phase); requests enter the network
                                    2Q cycles after they were sent, through queues split between
                                    the two sides */
    /* L1D banks (-gpgpu_l1_banks*): bank of a sector = hash of (address >> l1_bank_shift),
     * l1_bank_fn 0 linear, 1 XOR, 2 IPOLY (l1_bank_ipoly: per bank bit, the higher bits
     * folded into it); each bank serves l1_bank_cap sectors per cycle, one sector taking
     * l1_bank_cycles cycles (the dl1 data port width per bank: ≥ 32 bytes or less) */
    uint32_t l1_banks, l1_bank_shift, l1_bank_log2, l1_bank_fn, l1_bank_cap, l1_bank_cycles;
    uint64_t l1_bank_ipoly[5];

    /* set by the reader (config_read.c): enum tm_opt_src of each option's last assignment */
    uint8_t opt_src[TM_OPT__COUNT];
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

/* ======================================================================== reading files
 * timing/config_read.c: GPGPU-Sim's gpgpusim.config syntax, compiled-in presets, dumping.
 *
 * Syntax (as GPGPU-Sim's option parser reads it): `-name value` pairs separated by white
 * space, the value on the same line as its name; `#` starts a comment anywhere (also inside
 * quotes, as in GPGPU-Sim); a value in double quotes may span lines, each run of white space
 * in it (line breaks included) becoming one space; the last assignment wins; `-config FILE`
 * reads FILE at that point (a relative FILE is relative to the including file's directory;
 * nesting at most TM_CONFIG_MAX_DEPTH files deep; a file that is already being read is an
 * include cycle). The old name `-smem_latency` (earlier GPGPU-Sim 4.x; still in Accel-Sim's
 * Kepler config) is read as `-gpgpu_smem_latency`.
 *
 * Diagnostics go to `diag` (may be NULL) as `file:line: error: …` / `file:line: warning: …`.
 * An unknown option or stray text (not an -option) is a warning, an error when `strict`;
 * a malformed value, a missing value, an unterminated quote, an unreadable or cyclic
 * -config are errors. Reading goes on after an error (up to TM_CONFIG_MAX_ERRORS), so one run
 * reports them all; nothing exits. */

#define TM_CONFIG_MAX_DEPTH 16
#define TM_CONFIG_MAX_ERRORS 20

/* A preset compiled into the binary from configs/NAME.config (build/gen/tm_presets.c, made
 * by scripts/gen-presets.pl), so presets work from any directory. */
struct tm_preset {
    const char *name; /* "qv100" */
    const char *path; /* "configs/qv100.config": the name its diagnostics use */
    const char *text; /* the file's contents */
};
extern const struct tm_preset tm_presets[];
extern const size_t tm_preset_count;

/* Preset by name (case-insensitive), or NULL. */
const struct tm_preset *tm_preset_find(const char *name);

/* Read a gpgpusim.config-style file into *c (already initialised: tm_config_init), on top of
 * what it holds. 0; -EINVAL after error diagnostics; -ENOENT the file cannot be read;
 * -ENOMEM. Options it sets are marked TM_SRC_FILE. Does not derive. */
int tm_config_read_file(struct tm_config *c, const char *path, bool strict, FILE *diag);

/* The same for text in memory; `name` is the file name diagnostics give, `src` what the
 * options it sets are marked as (TM_SRC_FILE or TM_SRC_PRESET). A relative -config inside
 * is relative to the directory part of `name` (the working directory if it has none). */
int tm_config_read_text(struct tm_config *c, const char *name, const char *text,
                        enum tm_opt_src src, bool strict, FILE *diag);

/* The whole set-up the --timing switch needs: initialise *c to the defaults, read the
 * configuration `spec` names, list the accepted-but-unmodelled options the user's files set
 * (once, on diag), and derive.
 *   spec NULL or ""  the preset of the emulated device: `device_key` is the functional
 *                    device's preset key or spec ("h100", "a100,nsm=8": its first
 *                    comma-separated word); a key with no timing preset of its own falls back
 *                    to the preset of the same SM architecture (t4 -> rtx2060, l4 -> rtx4090,
 *                    sm_XX -> the preset of that compute capability); NULL or "" -> h100 (the
 *                    default device); anything else is an error.
 *   a preset name    that preset (tm_presets).
 *   otherwise        a file path (tm_config_read_file).
 * 0, or a negative errno after diagnostics on diag; on failure *c holds nothing to free. */
int tm_config_load(struct tm_config *c, const char *spec, const char *device_key, bool strict,
                   FILE *diag);

/* Print every option, one `-name value` line each in config.def order (what GPGPU-Sim prints
 * at start); values with white space, '#', or nothing in them are quoted. Reading the output
 * back gives the same options. */
void tm_config_dump(const struct tm_config *c, FILE *out);

/* Print `note: accepted, not modelled: -a, -b, …` listing the TM_ACCEPTED options set by the
 * user's files (TM_SRC_FILE), if any; returns how many. tm_config_load calls it once. */
size_t tm_config_list_accepted(const struct tm_config *c, FILE *out);

#endif
