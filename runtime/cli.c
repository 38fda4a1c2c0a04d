/*
 * runtime/cli.c — the `ptxemu` command.
 *
 *   ptxemu check FILE.ptx                 parse + check; diagnostics on stderr; exit 0 / 1
 *   ptxemu print FILE.ptx                 canonical PTX of the module on stdout
 *   ptxemu cfg FILE.ptx [--kernel NAME] [--dot]
 *   ptxemu info FILE.ptx                  per kernel: parameter, static shared, local bytes
 *   ptxemu exec FILE.ptx --kernel NAME --grid X[,Y,Z] --block X[,Y,Z] --arg SPEC ...
 *   ptxemu run [OPTIONS] -- PROGRAM ARGS...   run a CUDA program on libcudart.so.13 from ptxemu
 *   ptxemu fatbin PROGRAM                 list the fat binary entries of a CUDA executable
 *
 * Exit status: 0 success; 1 diagnostics, a kernel fault or a failed run; 2 usage errors.
 * See usage_text for the exact --arg / --print formats.
 *
 * The command is four files: this one (usage, the options exec and run share, check / print /
 * cfg / info / timing-config, main), cli_exec.c (`exec`: argument values, buffers, printing),
 * cli_run.c (`run` and `fatbin`: executables, their ELF dynamic section and fat binaries), and
 * cli.h, what they share.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frontend/frontend.h"
#include "interp/interp.h"
#include "interp/mem.h"
#include "runtime/cli.h"
#include "runtime/fatbin.h"
#include "runtime/rt.h"

#if defined(__has_include)
#if __has_include("frontend/cfg.h")
#include "frontend/cfg.h"
#define HAVE_CFG_PRINT 1
#endif
#endif

#define PTXEMU_VERSION "0.1.0"

static const char usage_text[] =
    "usage: ptxemu COMMAND [OPTIONS]\n"
    "\n"
    "commands:\n"
    "  check FILE.ptx                     parse and check a PTX file (exit 0 if clean)\n"
    "  print FILE.ptx                     print the module as canonical PTX\n"
    "  cfg FILE.ptx [--kernel NAME] [--dot]\n"
    "                                     print control-flow graphs (text or Graphviz)\n"
    "  info FILE.ptx                      per kernel: parameter, static shared and local bytes\n"
    "  exec FILE.ptx --kernel NAME --grid X[,Y,Z] --block X[,Y,Z] [OPTIONS] --arg SPEC...\n"
    "                                     run one kernel of a PTX file\n"
    "  run [OPTIONS] -- PROGRAM ARGS...   run a CUDA program built with nvcc -cudart shared\n"
    "  fatbin PROGRAM                     list the fat binary entries of a CUDA executable\n"
    "  timing-config [--timing[=SPEC]] [--timing-set NAME=VALUE] [--device D]\n"
    "                                     print every option of a timing configuration\n"
    "  report STATS.json -o DIR           write DIR/index.html from a --timing-stats file:\n"
    "                                     per-kernel summaries, plots over time, per-line tables\n"
    "  --help, --version\n"
    "\n"
    "exec options:\n"
    "  --arg SPEC          one per kernel parameter, in order:\n"
    "      TYPE:VALUE          scalar; TYPE is u8..u64, s8..s64, b8..b64, f16, f32, f64\n"
    "      buf:zero=SIZE       device buffer of SIZE zero bytes (its address is passed)\n"
    "      buf:uninit=SIZE     device buffer never written: zero bytes, but --check initcheck\n"
    "                          reports reads of it (cudaMalloc memory is not cleared on a GPU)\n"
    "      buf:file=PATH       device buffer holding the file's bytes\n"
    "      buf:rand=SIZE,SEED  SIZE bytes of splitmix64(SEED) output, 8 little-endian bytes\n"
    "                          per step (the last step truncated)\n"
    "      buf:TYPE=v1,v2,...  device buffer of typed values\n"
    "      buf:iota.TYPE=N     device buffer of N values 0, 1, ..., N-1 of TYPE\n"
    "  --shared BYTES      dynamic shared memory per block\n"
    "  --cluster X[,Y,Z]   thread-block cluster shape (cudaLaunchAttributeClusterDimension;\n"
    "                      default: the kernel's .reqnctapercluster, else clusters of one)\n"
    "  --print INDEX:TYPE[:COUNT]\n"
    "                      after the kernel, print buffer argument INDEX (0-based parameter\n"
    "                      index) one value per line: integers in decimal, f32 as %.9g,\n"
    "                      f64 as %.17g, f16 converted to f32 as %.5g; COUNT defaults to the\n"
    "                      whole buffer\n"
    "  --dump INDEX=PATH   after the kernel, write buffer argument INDEX's raw bytes to PATH\n"
    "  --repeat N          launch the kernel N times on the same buffers (warm launches;\n"
    "                      --stats reports each; --print/--dump show the buffers after the last)\n"
    "  --stats             print 'kernel NAME grid (x,y,z) block (x,y,z): W warp instructions,\n"
    "                      T thread instructions, S s' and 'kernel NAME: host threads N, CPU\n"
    "                      S s (busiest S s), CTAs per thread MIN-MAX, started within S s,\n"
    "                      finished within S s' to stderr\n"
    "  --device SPEC       emulated device (default h100: sm_90, 132 SMs); see --help-device\n"
    "  --threads N         host threads running CTAs (default: all cores); with --timing,\n"
    "                      running the SMs (default: 1), statistics identical for any N\n"
    "  --deterministic     fixed CTA order\n"
    "  --trace insn|regs|mem[,...]   trace to stderr; --trace-thread N limits it to one thread\n"
    "  --budget N          stop after N warp instructions (runaway kernels)\n"
    "  --timing[=PRESET|FILE]\n"
    "                      timing mode: run cycle by cycle on a simulated GPU (default: the\n"
    "                      device's preset) and print GPGPU-Sim-style statistics per kernel to\n"
    "                      stderr; %clock/%clock64/%globaltimer read simulated time\n"
    "  --timing-set NAME=VALUE  override one timing option (repeatable)\n"
    "  --timing-stats FILE.json every counter per kernel and per SM, a time series sampled\n"
    "                      every N cycles and counters per PTX / source line\n"
    "  --timing-sample N   time-series interval in core cycles (default: the interval of\n"
    "                      -gpgpu_runtime_stat, 10000)\n"
    "  --timing-report DIR write DIR/index.html (plots and per-line tables) at the end;\n"
    "                      the statistics go to DIR/stats.json unless --timing-stats names\n"
    "                      a file\n"
    "  --timing-strict     unknown options in timing configurations are errors\n"
    "  --timing-ctas N     simulate the first N waves of each kernel's CTAs (a wave: SMs x\n"
    "                      CTAs per SM), run the rest functionally, extrapolate its cycles\n"
    "  --timing-relaxed    relaxed parallel timing: the SMs run quanta of cycles between\n"
    "                      their exchanges with the memory system (faster with --threads N;\n"
    "                      cycle counts close to, not equal to, the exact mode's)\n"
    "  --timing-quantum Q  core cycles per quantum of --timing-relaxed (default 32)\n"
    "  --timing-lookahead W  parallel timing in windows of W cycles (the relaxed mode's\n"
    "                      channels, global memory steps in (cycle, SM) order): the\n"
    "                      same statistics for any --threads N\n"
    "  --timing-kernels LIST  simulate only these launches (kernel names, 0-based launch\n"
    "                      indices N, ranges N-M; comma-separated); the others run\n"
    "                      functionally and take no simulated time\n"
    "  --check TOOL[,TOOL...]  sanitizer: memcheck (always on), racecheck, initcheck,\n"
    "                      synccheck, leakcheck, asynccheck, all; reports in\n"
    "                      compute-sanitizer's format and a final '========= ERROR\n"
    "                      SUMMARY: N errors' line\n"
    "  --check-async       add asynccheck: cp.async copies land at their wait\n"
    "                      (cp.async.wait_group / wait_all / the mbarrier), the\n"
    "                      destination holds 0xff bytes until then, earlier accesses\n"
    "                      are reported\n"
    "  --error-exitcode N  with --check: exit with N when any error was found\n"
    "  --print-limit N     with --check: print at most N reports (default 100, 0: all)\n"
    "  --log-file PATH     with --check: write the reports to PATH instead of stderr\n"
    "  --check-report FILE.json|FILE.xml  with --check: the reports also as a JSON array\n"
    "                      of objects or an XML <reports> document (tool, kind, severity,\n"
    "                      kernel, block, thread, function, pc, ptx and source file:line,\n"
    "                      space, address, size, count), then the summary\n"
    "  --fill-uninit=PATTERN  fresh device memory (cudaMalloc*, malloc, buf:uninit), shared\n"
    "                      and local memory and registers read before written hold PATTERN\n"
    "                      instead of zeros: 0xNN (every byte) or nan (0x7fffffff words)\n"
    "\n"
    "run options (passed to the program as PTXEMU_* environment variables):\n"
    "  --device SPEC, --threads N, --stats, --deterministic, --trace LIST, --trace-thread N,\n"
    "  --budget N, --timing[=SPEC], --timing-set NAME=VALUE, --timing-stats FILE,\n"
    "  --timing-strict, --timing-kernels LIST, --timing-ctas N, --timing-sample N,\n"
    "  --timing-relaxed, --timing-quantum Q, --timing-lookahead W,\n"
    "  --timing-report DIR, --check LIST,\n"
    "  --error-exitcode N, --print-limit N, --log-file PATH, --check-report FILE.json,\n"
    "  --fill-uninit=PATTERN\n";

int cli_usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "ptxemu: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n\n%s", usage_text);
    return EXIT_USAGE;
}

/* ============================================================================ argument parse */

int cli_parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!*s || *s == '-')
        return -1;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end)
        return -1;
    *out = v;
    return 0;
}

int cli_read_file(const char *path, uint8_t **data, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 4096, n = 0;
    uint8_t *b = malloc(cap);
    while (b) {
        if (n == cap) {
            uint8_t *nb = realloc(b, cap * 2);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
        size_t r = fread(b + n, 1, cap - n, f);
        n += r;
        if (r == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (!b || bad) {
        free(b);
        return -1;
    }
    *data = b;
    *len = n;
    return 0;
}

/* Append NAME=VALUE to the --timing-set overrides. 0, or -1 out of memory. */
static int timing_set_add(struct run_opts *o, const char *v)
{
    size_t old = o->timing_set ? strlen(o->timing_set) : 0;
    char *ns = realloc(o->timing_set, old + strlen(v) + 2);
    if (!ns)
        return -1;
    if (old)
        ns[old++] = ';';
    strcpy(ns + old, v);
    o->timing_set = ns;
    o->timing.set = ns;
    return 0;
}

/* Try to consume a common option at argv[*i]. 1 consumed, 0 not ours, -1 error (printed). */
int cli_common_opt(struct run_opts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    bool has_val = !strcmp(a, "--device") || !strcmp(a, "--threads") || !strcmp(a, "--trace") ||
                   !strcmp(a, "--trace-thread") || !strcmp(a, "--budget") ||
                   !strcmp(a, "--timing-set") || !strcmp(a, "--timing-stats") ||
                   !strcmp(a, "--timing-kernels") || !strcmp(a, "--timing-ctas") ||
                   !strcmp(a, "--timing-sample") || !strcmp(a, "--timing-report") ||
                   !strcmp(a, "--timing-quantum") || !strcmp(a, "--timing-lookahead") ||
                   !strcmp(a, "--check") || !strcmp(a, "--error-exitcode") ||
                   !strcmp(a, "--print-limit") || !strcmp(a, "--log-file") ||
                   !strcmp(a, "--check-report");
    if (!strcmp(a, "--timing") || !strncmp(a, "--timing=", 9)) {
        o->timing.on = true;
        o->timing.spec = a[8] == '=' && a[9] ? a + 9 : NULL;
        return 1;
    }
    if (!strncmp(a, "--fill-uninit", 13) && (a[13] == '=' || !a[13])) {
        const char *v = a[13] ? a + 14 : *i + 1 < argc ? argv[++*i] : NULL;
        if (!v || interp_fill_parse(v, &o->fill_word) < 0) {
            cli_usage_error("--fill-uninit: expected 0xNN (a byte) or nan, not '%s'", v ? v : "");
            return -1;
        }
        o->fill = v;
        return 1;
    }
    if (!strcmp(a, "--timing-strict")) {
        o->timing.strict = true;
        return 1;
    }
    if (!strcmp(a, "--check-async")) { /* the same as adding asynccheck to --check */
        snprintf(o->check_buf, sizeof o->check_buf, "%s%sasynccheck", o->check ? o->check : "",
                 o->check ? "," : "");
        o->check = o->check_buf;
        o->check_bits |= CHECK_MEMCHECK | CHECK_ASYNCCHECK;
        return 1;
    }
    if (!strcmp(a, "--timing-relaxed")) /* an alias of -ptxemu_timing_relaxed 1 */
        return timing_set_add(o, "ptxemu_timing_relaxed=1") ? -1 : 1;
    if (!strcmp(a, "--stats")) {
        o->stats = true;
        return 1;
    }
    if (!strcmp(a, "--deterministic")) {
        o->deterministic = true;
        return 1;
    }
    if (!has_val)
        return 0;
    if (*i + 1 >= argc) {
        cli_usage_error("%s needs a value", a);
        return -1;
    }
    const char *v = argv[++*i];
    uint64_t n;
    if (!strcmp(a, "--device")) {
        struct rt_device d;
        char err[256];
        rt_device_default(&d);
        if (rt_device_parse(&d, v, err, sizeof err) < 0) {
            cli_usage_error("--device: %s", err);
            return -1;
        }
        o->device = v;
    } else if (!strcmp(a, "--threads")) {
        if (cli_parse_u64(v, &n) < 0 || n > 4096) {
            cli_usage_error("--threads: bad count '%s'", v);
            return -1;
        }
        o->threads = (unsigned)n;
        o->threads_set = true;
    } else if (!strcmp(a, "--trace")) {
        o->trace_bits = rt_parse_trace(v);
        if (o->trace_bits < 0) {
            cli_usage_error("--trace: expected insn, regs or mem (comma-separated), not '%s'", v);
            return -1;
        }
        o->trace = v;
    } else if (!strcmp(a, "--timing-set") || !strcmp(a, "--timing-ctas") ||
               !strcmp(a, "--timing-sample") || !strcmp(a, "--timing-quantum") ||
               !strcmp(a, "--timing-lookahead")) {
        char waves[64];
        if (!strcmp(a, "--timing-lookahead")) { /* an alias of -ptxemu_timing_lookahead W */
            uint64_t w;
            if (cli_parse_u64(v, &w) < 0 || w < 1 || w > 4096) {
                cli_usage_error("--timing-lookahead: expected a number of cycles (1 to 4096), "
                                "not '%s'", v);
                return -1;
            }
            snprintf(waves, sizeof waves, "ptxemu_timing_lookahead=%llu", (unsigned long long)w);
            v = waves;
        }
        if (!strcmp(a, "--timing-quantum")) { /* an alias of -ptxemu_timing_quantum Q */
            uint64_t q;
            if (cli_parse_u64(v, &q) < 0 || q < 1 || q > 4096) {
                cli_usage_error("--timing-quantum: expected a number of cycles (1 to 4096), "
                                "not '%s'", v);
                return -1;
            }
            snprintf(waves, sizeof waves, "ptxemu_timing_quantum=%llu", (unsigned long long)q);
            v = waves;
        }
        if (!strcmp(a, "--timing-sample")) { /* an alias of -ptxemu_timing_sample N */
            uint64_t c;
            if (cli_parse_u64(v, &c) < 0 || c < 1 || c > INT64_MAX) {
                cli_usage_error("--timing-sample: expected a number of cycles (1 or more), not '%s'",
                            v);
                return -1;
            }
            snprintf(waves, sizeof waves, "ptxemu_timing_sample=%llu", (unsigned long long)c);
            v = waves;
        }
        if (!strcmp(a, "--timing-ctas")) { /* an alias of -ptxemu_timing_waves N */
            uint64_t w;
            if (cli_parse_u64(v, &w) < 0 || w > 1000000000) {
                cli_usage_error("--timing-ctas: expected a number of CTA waves, not '%s'", v);
                return -1;
            }
            snprintf(waves, sizeof waves, "ptxemu_timing_waves=%llu", (unsigned long long)w);
            v = waves;
        }
        if (!strchr(v, '=')) {
            cli_usage_error("--timing-set: expected NAME=VALUE, not '%s'", v);
            return -1;
        }
        if (timing_set_add(o, v))
            return -1;
    } else if (!strcmp(a, "--timing-stats")) {
        o->timing.stats_path = v;
    } else if (!strcmp(a, "--timing-report")) {
        o->timing.report_dir = v;
    } else if (!strcmp(a, "--timing-kernels")) {
        char kerr[256];
        if (rt_timing_kernels_check(v, kerr, sizeof kerr)) {
            cli_usage_error("%s", kerr);
            return -1;
        }
        o->timing.kernels = v;
    } else if (!strcmp(a, "--trace-thread")) {
        if (cli_parse_u64(v, &n) < 0 || n > INT64_MAX) {
            cli_usage_error("--trace-thread: bad thread id '%s'", v);
            return -1;
        }
        o->trace_thread = (int64_t)n;
        o->trace_thread_set = true;
    } else if (!strcmp(a, "--check")) {
        char bad[64];
        const unsigned had = o->check_bits & CHECK_ASYNCCHECK; /* an earlier --check-async */
        if (interp_check_parse(v, &o->check_bits, bad, sizeof bad) < 0) {
            cli_usage_error(
                "--check: unknown tool '%s' (memcheck, racecheck, initcheck, synccheck, "
                "leakcheck, asynccheck, all)",
                bad);
            return -1;
        }
        o->check_bits |= had;
        if (had) {
            snprintf(o->check_buf, sizeof o->check_buf, "%s,asynccheck", v);
            o->check = o->check_buf;
        } else
            o->check = v;
    } else if (!strcmp(a, "--error-exitcode")) {
        if (cli_parse_u64(v, &n) < 0 || n > 255) {
            cli_usage_error("--error-exitcode: expected an exit status from 0 to 255, not '%s'", v);
            return -1;
        }
        o->error_exitcode = n;
        o->error_exitcode_set = true;
    } else if (!strcmp(a, "--print-limit")) {
        if (cli_parse_u64(v, &n) < 0) {
            cli_usage_error("--print-limit: bad count '%s'", v);
            return -1;
        }
        o->print_limit = n;
        o->print_limit_set = true;
    } else if (!strcmp(a, "--check-report")) {
        if (!*v) {
            cli_usage_error("--check-report: empty path%s", "");
            return -1;
        }
        o->check_report = v;
    } else if (!strcmp(a, "--log-file")) {
        if (!*v) {
            cli_usage_error("--log-file: empty path%s", "");
            return -1;
        }
        o->log_file = v;
    } else {
        if (cli_parse_u64(v, &n) < 0) {
            cli_usage_error("--budget: bad count '%s'", v);
            return -1;
        }
        o->budget = n;
        o->budget_set = true;
    }
    return 1;
}

/* ================================================================== check / print / cfg */

int cli_load_module(const char *path, bool no_cfg, struct ir_module **m)
{
    struct fe_opts opts = {.diag = stderr, .no_cfg = no_cfg};
    return fe_load_file(path, &opts, m) < 0 || !*m ? -1 : 0;
}

static int cmd_check(int argc, char **argv)
{
    if (argc != 1 || argv[0][0] == '-')
        return cli_usage_error("check takes one PTX file%s", "");
    struct ir_module *m = NULL;
    struct fe_opts opts = {.diag = stderr, .verify = true};
    int r = fe_load_file(argv[0], &opts, &m);
    if (r < 0 || !m)
        return 1;
    ir_module_free(m);
    return 0;
}

/* `print` and `info`: load the one PTX file the command takes, show it on stdout. */
static int cmd_show(int argc, char **argv, const char *cmd, bool no_cfg,
                    void (*show)(FILE *, const struct ir_module *))
{
    if (argc != 1 || argv[0][0] == '-')
        return cli_usage_error("%s takes one PTX file", cmd);
    struct ir_module *m = NULL;
    if (cli_load_module(argv[0], no_cfg, &m) < 0)
        return 1;
    show(stdout, m);
    ir_module_free(m);
    return fflush(stdout) ? 1 : 0;
}

static int cmd_cfg(int argc, char **argv)
{
    const char *file = NULL, *kernel = NULL;
    bool dot = false;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--dot"))
            dot = true;
        else if (!strcmp(argv[i], "--kernel") && i + 1 < argc)
            kernel = argv[++i];
        else if (argv[i][0] != '-' && !file)
            file = argv[i];
        else
            return cli_usage_error("cfg: unexpected argument '%s'", argv[i]);
    }
    if (!file)
        return cli_usage_error("cfg needs a PTX file%s", "");
#ifdef HAVE_CFG_PRINT
    struct ir_module *m = NULL;
    if (cli_load_module(file, false, &m) < 0)
        return 1;
    const struct ir_func *f = NULL;
    if (kernel) {
        int fi = ir_func_lookup(m, kernel);
        if (fi < 0) {
            fprintf(stderr, "ptxemu: %s: no function named %s\n", file, kernel);
            ir_module_free(m);
            return EXIT_USAGE;
        }
        f = &m->funcs[fi];
    }
    cfg_print(stdout, m, f, dot);
    ir_module_free(m);
    return 0;
#else
    (void)dot;
    (void)kernel;
    fprintf(stderr, "ptxemu: cfg: this build has no CFG printer (frontend/cfg.h missing)\n");
    return 1;
#endif
}

/*
 * `ptxemu info FILE.ptx`: one line per kernel (.entry with a body), in module order,
 *   kernel NAME: param P bytes, shared S bytes, local L bytes, regs R
 * P: its parameter block; S: the static .shared bytes it reaches, its own and its callees'
 * (what cudaFuncGetAttributes reports as sharedSizeBytes and ptxas -v as "bytes smem");
 * L: its own .local frame per thread; R: registers per thread estimated from live ranges
 * (numRegs, what occupancy counts; ptxas -v's "registers"). So scripts and tests can compare
 * with ptxas without running anything.
 */
static void show_info(FILE *out, const struct ir_module *m)
{
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        const struct ir_func *f = &m->funcs[i];
        if (f->is_entry && f->defined)
            fprintf(out, "kernel %s: param %u bytes, shared %u bytes, local %u bytes, regs %u\n",
                    ir_str(m, f->name), f->param_size, f->shared_size, f->local_size,
                    ir_kernel_regs(m, f));
    }
}


/* ============================================================================= timing-config */

/* Print every timing option of the configuration --timing[=SPEC] (with --timing-set and
 * --device) would use, as `-name value` lines a gpgpusim.config file could hold. */
static int cmd_timing_config(int argc, char **argv)
{
    struct run_opts o = {.trace_thread = -1};
    for (int i = 0; i < argc; i++) {
        int c = cli_common_opt(&o, argc, argv, &i);
        if (c < 0)
            return EXIT_USAGE;
        if (c == 0) {
            free(o.timing_set);
            return cli_usage_error("timing-config: unexpected argument '%s'", argv[i]);
        }
    }
    struct tm_config cfg;
    char key[64];
    const char *dev = o.device ? o.device : "h100";
    size_t k = strcspn(dev, ",");
    snprintf(key, sizeof key, "%.*s", (int)(k < sizeof key ? k : sizeof key - 1), dev);
    int rc = 0;
    if (tm_config_load(&cfg, o.timing.spec, key, o.timing.strict, stderr) < 0) {
        free(o.timing_set);
        return 1;
    }
    char err[256] = "";
    const char *p = o.timing_set;
    while (p && *p && !rc) {
        size_t n = strcspn(p, ";");
        char item[512];
        snprintf(item, sizeof item, "%.*s", (int)(n < sizeof item ? n : sizeof item - 1), p);
        char *eq = strchr(item, '=');
        *eq = 0;
        if (tm_config_set(&cfg, item[0] == '-' ? item + 1 : item, eq + 1, err, sizeof err) < 0)
            rc = 1;
        p += n + (p[n] != 0);
    }
    if (!rc && tm_config_derive(&cfg, err, sizeof err) < 0)
        rc = 1;
    if (rc)
        fprintf(stderr, "ptxemu: timing-config: %s\n", err);
    else
        tm_config_dump(&cfg, stdout);
    tm_config_free(&cfg);
    free(o.timing_set);
    return rc;
}

/* ======================================================================================= main */

int main(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error("missing command%s", "");
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (!strcmp(cmd, "--help-device")) {
        rt_device_help(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("ptxemu %s (PTX ISA 9.0, CUDA 13 runtime API)\n", PTXEMU_VERSION);
        return 0;
    }
    if (!strcmp(cmd, "check"))
        return cmd_check(argc - 2, argv + 2);
    if (!strcmp(cmd, "print"))
        return cmd_show(argc - 2, argv + 2, "print", false, ir_print_module);
    if (!strcmp(cmd, "info"))
        return cmd_show(argc - 2, argv + 2, "info", false, show_info);
    if (!strcmp(cmd, "timing-config"))
        return cmd_timing_config(argc - 2, argv + 2);
    if (!strcmp(cmd, "cfg"))
        return cmd_cfg(argc - 2, argv + 2);
    if (!strcmp(cmd, "exec"))
        return cli_cmd_exec(argc - 2, argv + 2);
    if (!strcmp(cmd, "run"))
        return cli_cmd_run(argc - 2, argv + 2);
    if (!strcmp(cmd, "fatbin"))
        return cli_cmd_fatbin(argc - 2, argv + 2);
    if (!strcmp(cmd, "report"))
        return rt_report_main(argc - 2, argv + 2);
    return cli_usage_error("unknown command '%s'", cmd);
}
