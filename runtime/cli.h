/*
 * runtime/cli.h — what the files of the `ptxemu` command share (cli.c, cli_exec.c, cli_run.c):
 * the exit status of usage errors, the options `exec`, `run` and `timing-config` have in
 * common, small parsers, and the commands' entry points. Private to the command.
 */
#ifndef PTXEMU_RUNTIME_CLI_H
#define PTXEMU_RUNTIME_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/rt.h"

struct ir_module;

/* Exit status of a usage error (bad command line). */
#define EXIT_USAGE 2

/* Common options of exec and run. */
struct run_opts {
    const char *device;
    unsigned threads;
    bool threads_set;
    bool stats, deterministic;
    const char *trace;
    int trace_bits;
    int64_t trace_thread;
    bool trace_thread_set;
    uint64_t budget;
    bool budget_set;
    struct rt_timing_opts timing; /* --timing[=SPEC], --timing-set, --timing-stats, --timing-strict */
    char *timing_set;             /* accumulated --timing-set NAME=VALUE (';'-separated) */
    const char *check;          /* --check list (NULL: no sanitizer) */
    unsigned check_bits;        /* CHECK_* */
    char check_buf[160];        /* --check-async: the --check list with asynccheck added */
    uint64_t print_limit;
    bool print_limit_set;
    const char *log_file;
    const char *check_report;   /* --check-report FILE.json */
    uint64_t error_exitcode;
    bool error_exitcode_set;
    const char *fill;           /* --fill-uninit PATTERN (NULL: fresh memory is zero) */
    uint32_t fill_word;
};

/* Print "ptxemu: " and fmt (one %s: arg), then the usage text, on stderr; returns EXIT_USAGE.
 * Every command's usage errors go through here, so they all look alike. */
int cli_usage_error(const char *fmt, const char *arg);

/* Parse a whole decimal/hex/octal unsigned number (strtoull base 0, no sign): 0, or -1. */
int cli_parse_u64(const char *s, uint64_t *out);

/* Read the whole file at path into a malloc'd buffer (*data, *len): 0, or -1.
 * For --arg buf:file=PATH and for executables (run, fatbin). */
int cli_read_file(const char *path, uint8_t **data, size_t *len);

/* Load the PTX file at path (diagnostics on stderr; no_cfg: skip building the CFG) into *m:
 * 0, or -1. check, print, cfg, info and exec read their module through here. */
int cli_load_module(const char *path, bool no_cfg, struct ir_module **m);

/* Try to consume an option of exec / run / timing-config at argv[*i] (advancing *i past its
 * value): 1 consumed, 0 not one of them, -1 error (usage printed). */
int cli_common_opt(struct run_opts *o, int argc, char **argv, int *i);

/* The commands, given the arguments after their name; each returns the exit status. */
int cli_cmd_exec(int argc, char **argv);   /* cli_exec.c */
int cli_cmd_run(int argc, char **argv);    /* cli_run.c */
int cli_cmd_fatbin(int argc, char **argv); /* cli_run.c */

#endif /* PTXEMU_RUNTIME_CLI_H */
