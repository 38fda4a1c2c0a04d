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
 * See usage() for the exact --arg / --print formats.
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
#include "runtime/fatbin.h"
#include "runtime/rt.h"

#if defined(__has_include)
#if __has_include("frontend/cfg.h")
#include "frontend/cfg.h"
#define HAVE_CFG_PRINT 1
#endif
#endif

#define PTXEMU_VERSION "0.1.0"
#define EXIT_USAGE 2

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
    "  --threads N         host threads running CTAs (default: all cores)\n"
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
    "  --timing-kernels LIST  simulate only these launches (kernel names, 0-based launch\n"
    "                      indices N, ranges N-M; comma-separated); the others run\n"
    "                      functionally and take no simulated time\n"
    "  --check TOOL[,TOOL...]  sanitizer: memcheck (always on), racecheck, initcheck,\n"
    "                      synccheck, leakcheck, all; reports in compute-sanitizer's format\n"
    "                      and a final '========= ERROR SUMMARY: N errors' line\n"
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
    "  --timing-report DIR, --check LIST,\n"
    "  --error-exitcode N, --print-limit N, --log-file PATH, --check-report FILE.json,\n"
    "  --fill-uninit=PATTERN\n";

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "ptxemu: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n\n%s", usage_text);
    return EXIT_USAGE;
}

/* ============================================================================= value types */

enum vkind { VK_U, VK_S, VK_B, VK_F };

struct vtype {
    const char *name;
    unsigned size;
    enum vkind kind;
};

static const struct vtype vtypes[] = {
    {"u8", 1, VK_U},  {"u16", 2, VK_U}, {"u32", 4, VK_U}, {"u64", 8, VK_U},
    {"s8", 1, VK_S},  {"s16", 2, VK_S}, {"s32", 4, VK_S}, {"s64", 8, VK_S},
    {"b8", 1, VK_B},  {"b16", 2, VK_B}, {"b32", 4, VK_B}, {"b64", 8, VK_B},
    {"f16", 2, VK_F}, {"f32", 4, VK_F}, {"f64", 8, VK_F},
};

static const struct vtype *vtype_lookup(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof vtypes / sizeof vtypes[0]; i++)
        if (strlen(vtypes[i].name) == n && !strncmp(vtypes[i].name, s, n))
            return &vtypes[i];
    return NULL;
}

/* float -> IEEE binary16 bits, round to nearest even. */
static uint16_t f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000;
    uint32_t exp = (x >> 23) & 0xff;
    uint32_t man = x & 0x7fffff;
    if (exp == 0xff)
        return (uint16_t)(sign | 0x7c00 | (man ? 0x200 | (man >> 13) : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00);
    if (e <= 0) {
        if (e < -10)
            return (uint16_t)sign;
        man |= 0x800000;
        unsigned shift = (unsigned)(14 - e);
        uint32_t h = man >> shift, rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1)))
            h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((uint32_t)e << 10) | (man >> 13);
    uint32_t rem = man & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
        h++; /* may carry into the exponent: correct, up to infinity */
    return (uint16_t)(sign | h);
}

static float f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, x;
    if (exp == 0x1f) {
        x = sign | 0x7f800000 | (man << 13);
    } else if (exp == 0) {
        if (!man) {
            x = sign;
        } else {
            int e = -1;
            do {
                man <<= 1;
                e++;
            } while (!(man & 0x400));
            x = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ff) << 13);
        }
    } else {
        x = sign | ((exp - 15 + 127) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &x, 4);
    return f;
}

/* Encode one value of type t from text into out (t->size bytes, little-endian). */
static int encode_value(const struct vtype *t, const char *s, uint8_t *out)
{
    char *end;
    errno = 0;
    if (t->kind == VK_F) {
        double v = strtod(s, &end);
        if (end == s || *end)
            return -1;
        if (t->size == 8) {
            memcpy(out, &v, 8);
        } else if (t->size == 4) {
            float f = (float)v;
            memcpy(out, &f, 4);
        } else {
            uint16_t h = f32_to_f16((float)v);
            memcpy(out, &h, 2);
        }
        return 0;
    }
    uint64_t bits;
    if (t->kind == VK_S || (t->kind == VK_B && s[0] == '-')) {
        long long v = strtoll(s, &end, 0);
        if (end == s || *end || errno)
            return -1;
        if (t->size < 8) {
            long long lo = -(1LL << (t->size * 8 - 1)), hi = (1LL << (t->size * 8 - 1)) - 1;
            if (v < lo || v > hi)
                return -1;
        }
        bits = (uint64_t)v;
    } else {
        if (s[0] == '-')
            return -1;
        unsigned long long v = strtoull(s, &end, 0);
        if (end == s || *end || errno)
            return -1;
        if (t->size < 8 && v >> (t->size * 8))
            return -1;
        bits = v;
    }
    memcpy(out, &bits, t->size); /* little-endian host */
    return 0;
}

/* Encode the integer i as a value of type t. */
static void encode_index(const struct vtype *t, uint64_t i, uint8_t *out)
{
    if (t->kind == VK_F) {
        if (t->size == 8) {
            double v = (double)i;
            memcpy(out, &v, 8);
        } else if (t->size == 4) {
            float v = (float)i;
            memcpy(out, &v, 4);
        } else {
            uint16_t h = f32_to_f16((float)i);
            memcpy(out, &h, 2);
        }
        return;
    }
    memcpy(out, &i, t->size);
}

/* Print one value in the documented --print format. */
static void print_value(FILE *out, const struct vtype *t, const uint8_t *p)
{
    if (t->kind == VK_F) {
        if (t->size == 8) {
            double v;
            memcpy(&v, p, 8);
            fprintf(out, "%.17g\n", v);
        } else if (t->size == 4) {
            float v;
            memcpy(&v, p, 4);
            fprintf(out, "%.9g\n", (double)v);
        } else {
            uint16_t h;
            memcpy(&h, p, 2);
            fprintf(out, "%.5g\n", (double)f16_to_f32(h));
        }
        return;
    }
    uint64_t u = 0;
    memcpy(&u, p, t->size);
    if (t->kind == VK_S) {
        unsigned sh = 64 - t->size * 8;
        int64_t s = (int64_t)(u << sh) >> sh;
        fprintf(out, "%lld\n", (long long)s);
    } else {
        fprintf(out, "%llu\n", (unsigned long long)u);
    }
}

/* splitmix64 (Steele, Lea, Flood 2014): the documented PRNG of buf:rand. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* ============================================================================ argument parse */

static int parse_u64(const char *s, uint64_t *out)
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

static int parse_dims(const char *s, uint32_t d[3])
{
    d[0] = d[1] = d[2] = 1;
    const char *p = s;
    for (int i = 0; i < 3; i++) {
        char *end;
        errno = 0;
        if (*p < '0' || *p > '9')
            return -1;
        unsigned long v = strtoul(p, &end, 10);
        if (errno || end == p || v == 0 || v > UINT32_MAX)
            return -1;
        d[i] = (uint32_t)v;
        if (!*end)
            return 0;
        if (*end != ',')
            return -1;
        p = end + 1;
    }
    return -1;
}

static int read_file(const char *path, uint8_t **data, size_t *len)
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

/* One --arg. */
struct exec_arg {
    const char *spec;
    bool is_buf;
    uint8_t scalar[8];
    unsigned scalar_size;
    uint8_t *data; /* buffer initial contents (NULL: zero) */
    uint64_t size;
    uint64_t addr; /* device address once allocated */
    bool uninit;   /* buf:uninit: never written (initcheck reports reads of it) */
};

/* Parse an --arg SPEC; on error prints a message and returns -1. */
static int parse_arg(struct exec_arg *a, const char *spec)
{
    memset(a, 0, sizeof *a);
    a->spec = spec;
    if (strncmp(spec, "buf:", 4) != 0) {
        const char *colon = strchr(spec, ':');
        const struct vtype *t = colon ? vtype_lookup(spec, (size_t)(colon - spec)) : NULL;
        if (!t) {
            fprintf(stderr, "ptxemu: --arg %s: expected TYPE:VALUE or buf:...\n", spec);
            return -1;
        }
        if (encode_value(t, colon + 1, a->scalar) < 0) {
            fprintf(stderr, "ptxemu: --arg %s: bad %s value '%s'\n", spec, t->name, colon + 1);
            return -1;
        }
        a->scalar_size = t->size;
        return 0;
    }
    a->is_buf = true;
    const char *b = spec + 4;
    const char *eq = strchr(b, '=');
    if (!eq) {
        fprintf(stderr, "ptxemu: --arg %s: expected buf:KIND=...\n", spec);
        return -1;
    }
    size_t kl = (size_t)(eq - b);
    const char *v = eq + 1;
    if ((kl == 4 && !strncmp(b, "zero", 4)) || (kl == 6 && !strncmp(b, "uninit", 6))) {
        if (parse_u64(v, &a->size) < 0)
            goto bad;
        a->uninit = kl == 6;
        return 0;
    }
    if (kl == 4 && !strncmp(b, "file", 4)) {
        size_t n;
        if (read_file(v, &a->data, &n) < 0) {
            fprintf(stderr, "ptxemu: --arg %s: cannot read %s: %s\n", spec, v, strerror(errno));
            return -1;
        }
        a->size = n;
        return 0;
    }
    if (kl == 4 && !strncmp(b, "rand", 4)) {
        const char *comma = strchr(v, ',');
        char sz[32];
        uint64_t seed;
        if (!comma || (size_t)(comma - v) >= sizeof sz)
            goto bad;
        memcpy(sz, v, (size_t)(comma - v));
        sz[comma - v] = 0;
        if (parse_u64(sz, &a->size) < 0 || parse_u64(comma + 1, &seed) < 0)
            goto bad;
        a->data = malloc(a->size ? a->size : 1);
        if (!a->data)
            goto nomem;
        uint64_t st = seed;
        for (uint64_t i = 0; i < a->size; i += 8) {
            uint64_t r = splitmix64(&st);
            uint64_t n = a->size - i < 8 ? a->size - i : 8;
            memcpy(a->data + i, &r, n);
        }
        return 0;
    }
    if (kl > 5 && !strncmp(b, "iota.", 5)) {
        const struct vtype *t = vtype_lookup(b + 5, kl - 5);
        uint64_t n;
        if (!t || parse_u64(v, &n) < 0 || n > (UINT64_C(1) << 32))
            goto bad;
        a->size = n * t->size;
        a->data = malloc(a->size ? a->size : 1);
        if (!a->data)
            goto nomem;
        for (uint64_t i = 0; i < n; i++)
            encode_index(t, i, a->data + i * t->size);
        return 0;
    }
    const struct vtype *t = vtype_lookup(b, kl);
    if (!t)
        goto bad;
    size_t count = 1;
    for (const char *p = v; *p; p++)
        count += *p == ',';
    a->size = count * t->size;
    a->data = malloc(a->size);
    if (!a->data)
        goto nomem;
    const char *p = v;
    for (size_t i = 0; i < count; i++) {
        size_t n = strcspn(p, ",");
        char tmp[128];
        if (n >= sizeof tmp)
            goto bad;
        memcpy(tmp, p, n);
        tmp[n] = 0;
        if (encode_value(t, tmp, a->data + i * t->size) < 0) {
            fprintf(stderr, "ptxemu: --arg %s: bad %s value '%s'\n", spec, t->name, tmp);
            return -1;
        }
        p += n + (p[n] == ',');
    }
    return 0;
bad:
    fprintf(stderr, "ptxemu: --arg %s: malformed buffer spec (buf:zero=SIZE, buf:uninit=SIZE, "
                    "buf:file=PATH, buf:rand=SIZE,SEED, buf:TYPE=v1,v2,..., buf:iota.TYPE=N)\n",
            spec);
    return -1;
nomem:
    fprintf(stderr, "ptxemu: --arg %s: out of memory\n", spec);
    return -1;
}

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
    uint64_t print_limit;
    bool print_limit_set;
    const char *log_file;
    const char *check_report;   /* --check-report FILE.json */
    uint64_t error_exitcode;
    bool error_exitcode_set;
    const char *fill;           /* --fill-uninit PATTERN (NULL: fresh memory is zero) */
    uint32_t fill_word;
};

/* Try to consume a common option at argv[*i]. 1 consumed, 0 not ours, -1 error (printed). */
static int common_opt(struct run_opts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    bool has_val = !strcmp(a, "--device") || !strcmp(a, "--threads") || !strcmp(a, "--trace") ||
                   !strcmp(a, "--trace-thread") || !strcmp(a, "--budget") ||
                   !strcmp(a, "--timing-set") || !strcmp(a, "--timing-stats") ||
                   !strcmp(a, "--timing-kernels") || !strcmp(a, "--timing-ctas") ||
                   !strcmp(a, "--timing-sample") || !strcmp(a, "--timing-report") ||
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
            usage_error("--fill-uninit: expected 0xNN (a byte) or nan, not '%s'", v ? v : "");
            return -1;
        }
        o->fill = v;
        return 1;
    }
    if (!strcmp(a, "--timing-strict")) {
        o->timing.strict = true;
        return 1;
    }
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
        usage_error("%s needs a value", a);
        return -1;
    }
    const char *v = argv[++*i];
    uint64_t n;
    if (!strcmp(a, "--device")) {
        struct rt_device d;
        char err[256];
        rt_device_default(&d);
        if (rt_device_parse(&d, v, err, sizeof err) < 0) {
            usage_error("--device: %s", err);
            return -1;
        }
        o->device = v;
    } else if (!strcmp(a, "--threads")) {
        if (parse_u64(v, &n) < 0 || n > 4096) {
            usage_error("--threads: bad count '%s'", v);
            return -1;
        }
        o->threads = (unsigned)n;
        o->threads_set = true;
    } else if (!strcmp(a, "--trace")) {
        o->trace_bits = rt_parse_trace(v);
        if (o->trace_bits < 0) {
            usage_error("--trace: expected insn, regs or mem (comma-separated), not '%s'", v);
            return -1;
        }
        o->trace = v;
    } else if (!strcmp(a, "--timing-set") || !strcmp(a, "--timing-ctas") ||
               !strcmp(a, "--timing-sample")) {
        char waves[64];
        if (!strcmp(a, "--timing-sample")) { /* an alias of -ptxemu_timing_sample N */
            uint64_t c;
            if (parse_u64(v, &c) < 0 || c < 1 || c > INT64_MAX) {
                usage_error("--timing-sample: expected a number of cycles (1 or more), not '%s'",
                            v);
                return -1;
            }
            snprintf(waves, sizeof waves, "ptxemu_timing_sample=%llu", (unsigned long long)c);
            v = waves;
        }
        if (!strcmp(a, "--timing-ctas")) { /* an alias of -ptxemu_timing_waves N */
            uint64_t w;
            if (parse_u64(v, &w) < 0 || w > 1000000000) {
                usage_error("--timing-ctas: expected a number of CTA waves, not '%s'", v);
                return -1;
            }
            snprintf(waves, sizeof waves, "ptxemu_timing_waves=%llu", (unsigned long long)w);
            v = waves;
        }
        if (!strchr(v, '=')) {
            usage_error("--timing-set: expected NAME=VALUE, not '%s'", v);
            return -1;
        }
        size_t old = o->timing_set ? strlen(o->timing_set) : 0;
        char *ns = realloc(o->timing_set, old + strlen(v) + 2);
        if (!ns)
            return -1;
        if (old)
            ns[old++] = ';';
        strcpy(ns + old, v);
        o->timing_set = ns;
        o->timing.set = ns;
    } else if (!strcmp(a, "--timing-stats")) {
        o->timing.stats_path = v;
    } else if (!strcmp(a, "--timing-report")) {
        o->timing.report_dir = v;
    } else if (!strcmp(a, "--timing-kernels")) {
        char kerr[256];
        if (rt_timing_kernels_check(v, kerr, sizeof kerr)) {
            usage_error("%s", kerr);
            return -1;
        }
        o->timing.kernels = v;
    } else if (!strcmp(a, "--trace-thread")) {
        if (parse_u64(v, &n) < 0 || n > INT64_MAX) {
            usage_error("--trace-thread: bad thread id '%s'", v);
            return -1;
        }
        o->trace_thread = (int64_t)n;
        o->trace_thread_set = true;
    } else if (!strcmp(a, "--check")) {
        char bad[64];
        if (interp_check_parse(v, &o->check_bits, bad, sizeof bad) < 0) {
            usage_error("--check: unknown tool '%s' (memcheck, racecheck, initcheck, synccheck, "
                        "leakcheck, all)",
                        bad);
            return -1;
        }
        o->check = v;
    } else if (!strcmp(a, "--error-exitcode")) {
        if (parse_u64(v, &n) < 0 || n > 255) {
            usage_error("--error-exitcode: expected an exit status from 0 to 255, not '%s'", v);
            return -1;
        }
        o->error_exitcode = n;
        o->error_exitcode_set = true;
    } else if (!strcmp(a, "--print-limit")) {
        if (parse_u64(v, &n) < 0) {
            usage_error("--print-limit: bad count '%s'", v);
            return -1;
        }
        o->print_limit = n;
        o->print_limit_set = true;
    } else if (!strcmp(a, "--check-report")) {
        if (!*v) {
            usage_error("--check-report: empty path%s", "");
            return -1;
        }
        o->check_report = v;
    } else if (!strcmp(a, "--log-file")) {
        if (!*v) {
            usage_error("--log-file: empty path%s", "");
            return -1;
        }
        o->log_file = v;
    } else {
        if (parse_u64(v, &n) < 0) {
            usage_error("--budget: bad count '%s'", v);
            return -1;
        }
        o->budget = n;
        o->budget_set = true;
    }
    return 1;
}

/* ================================================================== check / print / cfg */

static int load_module(const char *path, bool no_cfg, struct ir_module **m)
{
    struct fe_opts opts = {.diag = stderr, .no_cfg = no_cfg};
    return fe_load_file(path, &opts, m) < 0 || !*m ? -1 : 0;
}

static int cmd_check(int argc, char **argv)
{
    if (argc != 1 || argv[0][0] == '-')
        return usage_error("check takes one PTX file%s", "");
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
        return usage_error("%s takes one PTX file", cmd);
    struct ir_module *m = NULL;
    if (load_module(argv[0], no_cfg, &m) < 0)
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
            return usage_error("cfg: unexpected argument '%s'", argv[i]);
    }
    if (!file)
        return usage_error("cfg needs a PTX file%s", "");
#ifdef HAVE_CFG_PRINT
    struct ir_module *m = NULL;
    if (load_module(file, false, &m) < 0)
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

/* ======================================================================================= exec */

struct print_req {
    unsigned index;
    const struct vtype *t;
    uint64_t count; /* 0: whole buffer */
};

struct dump_req {
    unsigned index;
    const char *path;
};

static int parse_print(const char *s, struct print_req *p)
{
    char *end;
    errno = 0;
    unsigned long idx = strtoul(s, &end, 10);
    if (end == s || *end != ':' || errno || idx > 4096)
        return -1;
    const char *t = end + 1;
    size_t tl = strcspn(t, ":");
    p->index = (unsigned)idx;
    p->t = vtype_lookup(t, tl);
    p->count = 0;
    if (!p->t)
        return -1;
    if (t[tl] == ':' && (parse_u64(t + tl + 1, &p->count) < 0 || p->count == 0))
        return -1;
    return 0;
}

static int parse_dump(const char *s, struct dump_req *d)
{
    char *end;
    errno = 0;
    unsigned long idx = strtoul(s, &end, 10);
    if (end == s || *end != '=' || errno || idx > 4096 || !end[1])
        return -1;
    d->index = (unsigned)idx;
    d->path = end + 1;
    return 0;
}

static void list_kernels(FILE *out, const struct ir_module *m)
{
    fprintf(out, "kernels in %s:", m->filename);
    for (uint32_t i = 0; i < m->nfuncs; i++)
        if (m->funcs[i].is_entry && m->funcs[i].defined)
            fprintf(out, " %s", ir_str(m, m->funcs[i].name));
    fputc('\n', out);
}

static int cmd_exec(int argc, char **argv)
{
    const char *file = NULL, *kname = NULL;
    uint32_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0}, cluster[3] = {0, 0, 0};
    uint64_t shared = 0, repeat = 1;
    struct run_opts o = {.trace_thread = -1};
    int rc = 1;
    struct exec_arg *args = calloc((size_t)argc + 1, sizeof *args);
    struct print_req *prints = calloc((size_t)argc + 1, sizeof *prints);
    struct dump_req *dumps = calloc((size_t)argc + 1, sizeof *dumps);
    unsigned nargs = 0, nprints = 0, ndumps = 0;
    struct ir_module *m = NULL;
    struct interp_dev *dev = NULL;
    struct interp_program *prog = NULL;
    struct rt_timing *timing = NULL;
    uint8_t *params = NULL;
    bool have_grid = false, have_block = false;
    struct interp_check_log *chk = NULL;
    FILE *logf = NULL, *jsonf = NULL;
    bool launched = false;
    if (!args || !prints || !dumps) {
        fprintf(stderr, "ptxemu: out of memory\n");
        goto out;
    }
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int c = common_opt(&o, argc, argv, &i);
        if (c < 0) {
            rc = EXIT_USAGE;
            goto out;
        }
        if (c > 0)
            continue;
        bool val = i + 1 < argc;
        if (a[0] != '-') {
            if (file) {
                rc = usage_error("exec: unexpected argument '%s'", a);
                goto out;
            }
            file = a;
        } else if (!strcmp(a, "--kernel") && val) {
            kname = argv[++i];
        } else if (!strcmp(a, "--grid") && val) {
            if (parse_dims(argv[++i], grid) < 0) {
                rc = usage_error("--grid: expected X[,Y,Z] of positive integers, not '%s'", argv[i]);
                goto out;
            }
            have_grid = true;
        } else if (!strcmp(a, "--block") && val) {
            if (parse_dims(argv[++i], block) < 0) {
                rc = usage_error("--block: expected X[,Y,Z] of positive integers, not '%s'", argv[i]);
                goto out;
            }
            have_block = true;
        } else if (!strcmp(a, "--cluster") && val) {
            if (parse_dims(argv[++i], cluster) < 0) {
                rc = usage_error("--cluster: expected X[,Y,Z] of positive integers, not '%s'",
                                 argv[i]);
                goto out;
            }
        } else if (!strcmp(a, "--shared") && val) {
            if (parse_u64(argv[++i], &shared) < 0 || shared > UINT32_MAX) {
                rc = usage_error("--shared: bad byte count '%s'", argv[i]);
                goto out;
            }
        } else if (!strcmp(a, "--repeat") && val) {
            if (parse_u64(argv[++i], &repeat) < 0 || repeat == 0 || repeat > 1000000) {
                rc = usage_error("--repeat: expected a launch count from 1 to 1000000, not '%s'",
                                 argv[i]);
                goto out;
            }
        } else if (!strcmp(a, "--arg") && val) {
            if (parse_arg(&args[nargs], argv[++i]) < 0) {
                rc = EXIT_USAGE;
                goto out;
            }
            nargs++;
        } else if (!strcmp(a, "--print") && val) {
            if (parse_print(argv[++i], &prints[nprints]) < 0) {
                rc = usage_error("--print: expected INDEX:TYPE[:COUNT], not '%s'", argv[i]);
                goto out;
            }
            nprints++;
        } else if (!strcmp(a, "--dump") && val) {
            if (parse_dump(argv[++i], &dumps[ndumps]) < 0) {
                rc = usage_error("--dump: expected INDEX=PATH, not '%s'", argv[i]);
                goto out;
            }
            ndumps++;
        } else {
            rc = usage_error("exec: unknown option or missing value: '%s'", a);
            goto out;
        }
    }
    if (!file) {
        rc = usage_error("exec needs a PTX file%s", "");
        goto out;
    }
    if (!have_grid || !have_block) {
        rc = usage_error("exec needs --grid and --block%s", "");
        goto out;
    }
    if (!o.check && (o.error_exitcode_set || o.print_limit_set || o.log_file ||
                     o.check_report)) {
        rc = usage_error("--error-exitcode, --print-limit, --log-file and --check-report need "
                         "--check%s",
                         "");
        goto out;
    }
    if (o.check) {
        if (o.log_file && !(logf = fopen(o.log_file, "w"))) {
            fprintf(stderr, "ptxemu: --log-file: cannot write %s: %s\n", o.log_file,
                    strerror(errno));
            goto out;
        }
        chk = interp_check_log_create(logf ? logf : stderr,
                                      o.print_limit_set ? o.print_limit : 100);
        if (!chk) {
            fprintf(stderr, "ptxemu: out of memory\n");
            goto out;
        }
        if (o.check_report) {
            if (!(jsonf = fopen(o.check_report, "w"))) {
                fprintf(stderr, "ptxemu: --check-report: cannot write %s: %s\n",
                        o.check_report, strerror(errno));
                goto out;
            }
            const size_t nl = strlen(o.check_report); /* FILE.xml: XML, else JSON */
            interp_check_log_report(chk, jsonf,
                                    nl > 4 && !strcmp(o.check_report + nl - 4, ".xml"));
        }
    }
    struct rt_device dspec;
    rt_device_default(&dspec);
    char derr[256];
    if (o.device)
        rt_device_parse(&dspec, o.device, derr, sizeof derr); /* validated by common_opt */
    if (load_module(file, false, &m) < 0)
        goto out;
    if (!kname) {
        unsigned n = 0;
        for (uint32_t i = 0; i < m->nfuncs; i++)
            if (m->funcs[i].is_entry && m->funcs[i].defined) {
                kname = ir_str(m, m->funcs[i].name);
                n++;
            }
        if (n != 1) {
            fprintf(stderr, "ptxemu: exec: --kernel NAME is required when the module does not "
                            "have exactly one kernel\n");
            list_kernels(stderr, m);
            rc = EXIT_USAGE;
            goto out;
        }
    }
    struct interp_config cfg = {
        .sm = dspec.sm,
        .nsm = dspec.nsm,
        .stack_size = dspec.stack_size,
        .heap_size = dspec.heap_size,
        .printf_fifo = (unsigned)dspec.printf_fifo,
        .threads = o.threads,
        .deterministic = o.deterministic,
        .insn_budget = o.budget,
        .trace = o.trace ? (unsigned)o.trace_bits : 0,
        .trace_thread = o.trace_thread_set ? o.trace_thread : -1,
        .check = o.check_bits,
        .check_log = chk,
        .fill = o.fill != NULL,
        .fill_word = o.fill_word,
    };
    if (m->target_sm > cfg.sm)
        cfg.sm = m->target_sm;
    int dr = interp_dev_create(&cfg, &dev);
    if (dr < 0 || !dev) {
        fprintf(stderr, "ptxemu: cannot create the emulated device: %s\n",
                dr < 0 ? strerror(-dr) : "unknown error");
        dev = NULL;
        goto out;
    }
    if (o.timing.on) {
        char terr[256] = "";
        if (rt_timing_open(&o.timing, o.device, stderr, &timing, terr, sizeof terr) < 0) {
            fprintf(stderr, "ptxemu: timing mode: %s\n", terr[0] ? terr : "cannot start");
            timing = NULL;
            rc = EXIT_USAGE;
            goto out;
        }
    }
    const struct ir_module *mods[1] = {m};
    if (interp_program_load(dev, mods, 1, stderr, &prog) < 0 || !prog) {
        prog = NULL;
        goto out;
    }
    const struct interp_kernel *k = interp_program_kernel(prog, kname);
    if (!k) {
        fprintf(stderr, "ptxemu: %s: no kernel named %s\n", file, kname);
        list_kernels(stderr, m);
        rc = EXIT_USAGE;
        goto out;
    }
    struct interp_kernel_info ki;
    interp_kernel_info(k, &ki);
    if (nargs != ki.nparams) {
        fprintf(stderr, "ptxemu: kernel %s takes %u parameter%s (", kname, ki.nparams,
                ki.nparams == 1 ? "" : "s");
        for (unsigned i = 0; i < ki.nparams; i++)
            fprintf(stderr, "%s%u bytes", i ? ", " : "", ki.param_size[i]);
        fprintf(stderr, "), %u --arg given\n", nargs);
        rc = EXIT_USAGE;
        goto out;
    }
    for (unsigned i = 0; i < nprints; i++)
        if (prints[i].index >= nargs || !args[prints[i].index].is_buf) {
            fprintf(stderr, "ptxemu: --print %u: parameter %u is not a buffer argument\n",
                    prints[i].index, prints[i].index);
            rc = EXIT_USAGE;
            goto out;
        }
    for (unsigned i = 0; i < ndumps; i++)
        if (dumps[i].index >= nargs || !args[dumps[i].index].is_buf) {
            fprintf(stderr, "ptxemu: --dump %u: parameter %u is not a buffer argument\n",
                    dumps[i].index, dumps[i].index);
            rc = EXIT_USAGE;
            goto out;
        }
    params = calloc(1, ki.param_size_total ? ki.param_size_total : 1);
    if (!params)
        goto out;
    struct mem *mem = interp_dev_mem(dev);
    unsigned addr_bytes = m->address_size == 32 ? 4 : 8;
    for (unsigned i = 0; i < nargs; i++) {
        struct exec_arg *a = &args[i];
        if (a->is_buf) {
            if (ki.param_size[i] != addr_bytes) {
                fprintf(stderr, "ptxemu: --arg %u (%s): parameter is %u bytes, not a %u-byte "
                                "pointer\n",
                        i, a->spec, ki.param_size[i], addr_bytes);
                rc = EXIT_USAGE;
                goto out;
            }
            if (mem_alloc(mem, a->size, MEM_F_DEVICE, &a->addr) < 0) {
                fprintf(stderr, "ptxemu: --arg %u: cannot allocate %llu bytes\n", i,
                        (unsigned long long)a->size);
                goto out;
            }
            /* initcheck: the buffer is written at allocation unless it is buf:uninit */
            if ((o.check_bits & CHECK_INITCHECK) && mem_track_init(mem, a->addr) < 0) {
                fprintf(stderr, "ptxemu: --arg %u: out of memory\n", i);
                goto out;
            }
            if (a->data && a->size && mem_write(mem, a->addr, a->data, a->size) < 0) {
                fprintf(stderr, "ptxemu: --arg %u: cannot initialise the buffer\n", i);
                goto out;
            }
            if (!a->data && !a->uninit)
                mem_mark_init(mem, a->addr, a->size);
            else if (a->uninit && o.fill) /* a cudaMalloc never filled: the pattern */
                interp_fill((void *)(uintptr_t)a->addr, a->addr, a->size, o.fill_word);
            memcpy(params + ki.param_offset[i], &a->addr, addr_bytes);
        } else {
            if (ki.param_size[i] != a->scalar_size) {
                fprintf(stderr, "ptxemu: --arg %u (%s): parameter is %u bytes, value is %u\n", i,
                        a->spec, ki.param_size[i], a->scalar_size);
                rc = EXIT_USAGE;
                goto out;
            }
            memcpy(params + ki.param_offset[i], a->scalar, a->scalar_size);
        }
    }
    struct interp_launch l = {.kernel = k, .shared_dynamic = (uint32_t)shared, .params = params};
    memcpy(l.grid, grid, sizeof grid);
    memcpy(l.block, block, sizeof block);
    memcpy(l.cluster, cluster, sizeof cluster);
    struct interp_stats st = {0};
    struct trap trap;
    memset(&trap, 0, sizeof trap);
    /* --repeat: the same launch again on the same buffers (warm host threads and CTA slots,
     * as a GPU benchmark's timed launches after a warm-up); --stats reports each launch */
    for (uint64_t r = 0; r < repeat; r++) {
        fflush(stdout);
        int lr = timing ? rt_timing_launch(timing, dev, &l, &st, &trap)
                        : interp_launch(dev, &l, &st, &trap);
        fflush(stdout);
        launched = true;
        if (lr < 0) {
            fprintf(stderr, "ptxemu: invalid launch of %s: %s\n", kname,
                    trap.msg[0] ? trap.msg : "rejected by the device");
            goto out;
        }
        if (o.stats)
            rt_print_stats(stderr, kname, grid, block, &st);
        if (lr == 1) {
            if (chk)
                interp_check_trap(chk, &trap);
            else
                interp_trap_report(stderr, &trap);
            goto out;
        }
    }
    for (unsigned i = 0; i < nprints; i++) {
        struct exec_arg *a = &args[prints[i].index];
        const struct vtype *t = prints[i].t;
        uint64_t avail = a->size / t->size;
        uint64_t n = prints[i].count ? prints[i].count : avail;
        if (n > avail) {
            fprintf(stderr, "ptxemu: --print %u: buffer holds %llu %s values, not %llu\n",
                    prints[i].index, (unsigned long long)avail, t->name, (unsigned long long)n);
            rc = EXIT_USAGE;
            goto out;
        }
        uint8_t v[8];
        for (uint64_t j = 0; j < n; j++) {
            if (mem_read(mem, v, a->addr + j * t->size, t->size) < 0)
                goto out;
            print_value(stdout, t, v);
        }
    }
    for (unsigned i = 0; i < ndumps; i++) {
        struct exec_arg *a = &args[dumps[i].index];
        uint8_t *buf = malloc(a->size ? a->size : 1);
        if (!buf)
            goto out;
        FILE *f = NULL;
        int ok = mem_read(mem, buf, a->addr, a->size) == 0 && (f = fopen(dumps[i].path, "wb")) &&
                 fwrite(buf, 1, a->size, f) == a->size;
        if (f && fclose(f) != 0)
            ok = 0;
        free(buf);
        if (!ok) {
            fprintf(stderr, "ptxemu: --dump %u: cannot write %s: %s\n", dumps[i].index,
                    dumps[i].path, strerror(errno));
            goto out;
        }
    }
    rc = fflush(stdout) ? 1 : 0;
out:
    rt_timing_close(timing);
    free(o.timing_set);
    if (chk && launched) {
        interp_check_summary(chk);
        if (o.error_exitcode_set && o.error_exitcode && interp_check_errors(chk))
            rc = (int)o.error_exitcode;
    }
    interp_check_log_destroy(chk);
    if (jsonf && fclose(jsonf) != 0) {
        fprintf(stderr, "ptxemu: --check-report: cannot write %s\n", o.check_report);
        rc = 1;
    }
    if (logf && fclose(logf) != 0) {
        fprintf(stderr, "ptxemu: --log-file: cannot write %s\n", o.log_file);
        rc = 1;
    }
    if (prog)
        interp_program_unload(prog);
    if (dev)
        interp_dev_destroy(dev);
    if (m)
        ir_module_free(m);
    if (args)
        for (unsigned i = 0; i < nargs; i++)
            free(args[i].data);
    free(args);
    free(prints);
    free(dumps);
    free(params);
    return rc;
}

/* ============================================================================== ELF reading */

/* Read the whole file (executables are small enough). */
static int slurp(const char *path, uint8_t **data, size_t *len)
{
    return read_file(path, data, len);
}

/* 1 if the ELF file needs libcudart.so.13, 0 if not, -1 if not a 64-bit ELF. *other gets a
 * different libcudart soname if one is needed. Reads the dynamic section via the program
 * headers (PT_DYNAMIC, strtab address mapped through PT_LOAD). */
static int elf_needs_cudart(const uint8_t *b, size_t n, char *other, size_t otherlen)
{
    other[0] = 0;
    if (n < 64 || memcmp(b, "\x7f" "ELF", 4) || b[4] != 2 || b[5] != 1)
        return -1;
    uint64_t phoff;
    uint16_t phentsize, phnum;
    memcpy(&phoff, b + 0x20, 8);
    memcpy(&phentsize, b + 0x36, 2);
    memcpy(&phnum, b + 0x38, 2);
    if (phentsize < 56 || phoff > n || (uint64_t)phnum * phentsize > n - phoff)
        return -1;
    uint64_t dyn_off = 0, dyn_size = 0;
    for (unsigned i = 0; i < phnum; i++) {
        const uint8_t *ph = b + phoff + (uint64_t)i * phentsize;
        uint32_t type;
        memcpy(&type, ph, 4);
        if (type == 2 /* PT_DYNAMIC */) {
            memcpy(&dyn_off, ph + 8, 8);
            memcpy(&dyn_size, ph + 32, 8);
        }
    }
    if (!dyn_size || dyn_off > n || dyn_size > n - dyn_off)
        return 0; /* static executable */
    uint64_t strtab = 0, strsz = 0;
    for (uint64_t o = 0; o + 16 <= dyn_size; o += 16) {
        int64_t tag;
        uint64_t val;
        memcpy(&tag, b + dyn_off + o, 8);
        memcpy(&val, b + dyn_off + o + 8, 8);
        if (tag == 0)
            break;
        if (tag == 5)
            strtab = val;
        else if (tag == 10)
            strsz = val;
    }
    /* map the strtab virtual address to a file offset */
    uint64_t str_off = UINT64_MAX;
    for (unsigned i = 0; i < phnum; i++) {
        const uint8_t *ph = b + phoff + (uint64_t)i * phentsize;
        uint32_t type;
        uint64_t off, vaddr, filesz;
        memcpy(&type, ph, 4);
        memcpy(&off, ph + 8, 8);
        memcpy(&vaddr, ph + 16, 8);
        memcpy(&filesz, ph + 32, 8);
        if (type == 1 && strtab >= vaddr && strtab < vaddr + filesz)
            str_off = strtab - vaddr + off;
    }
    if (str_off == UINT64_MAX || str_off > n)
        return -1;
    if (strsz > n - str_off)
        strsz = n - str_off;
    int found = 0;
    for (uint64_t o = 0; o + 16 <= dyn_size; o += 16) {
        int64_t tag;
        uint64_t val;
        memcpy(&tag, b + dyn_off + o, 8);
        memcpy(&val, b + dyn_off + o + 8, 8);
        if (tag == 0)
            break;
        if (tag != 1 /* DT_NEEDED */ || val >= strsz)
            continue;
        const char *name = (const char *)b + str_off + val;
        size_t maxlen = strsz - val;
        if (strnlen(name, maxlen) == maxlen)
            continue;
        if (!strcmp(name, "libcudart.so.13"))
            found = 1;
        else if (!strncmp(name, "libcudart.so", 12))
            snprintf(other, otherlen, "%s", name);
    }
    return found;
}

/* Resolve PROGRAM like execvp does (no slash: search PATH). */
static int find_program(const char *prog, char *out, size_t outlen)
{
    if (strchr(prog, '/')) {
        snprintf(out, outlen, "%s", prog);
        return access(out, X_OK) == 0 ? 0 : -1;
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        snprintf(out, outlen, "%.*s/%s", (int)n, n ? path : ".", prog);
        if (access(out, X_OK) == 0)
            return 0;
        path += n + (path[n] == ':');
    }
    return -1;
}

/* The directory holding our libcudart.so.13: $PTXEMU_LIBDIR, or lib/ next to the ptxemu
 * binary (build/ptxemu -> build/lib), or ../lib (installed: bin/ptxemu -> lib/). */
static int find_libdir(char *out, size_t outlen)
{
    const char *env = getenv("PTXEMU_LIBDIR");
    char probe[PATH_MAX + 32];
    if (env && *env) {
        snprintf(out, outlen, "%s", env);
        return 0;
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = 0;
    char *slash = strrchr(self, '/');
    if (!slash)
        return -1;
    *slash = 0;
    const char *cands[] = {"lib", "../lib"};
    for (int i = 0; i < 2; i++) {
        snprintf(probe, sizeof probe, "%s/%s/libcudart.so.13", self, cands[i]);
        if (access(probe, R_OK) == 0) {
            snprintf(probe, sizeof probe, "%s/%s", self, cands[i]);
            char *r = realpath(probe, NULL);
            if (!r)
                return -1;
            snprintf(out, outlen, "%s", r);
            free(r);
            return 0;
        }
    }
    return -1;
}

/* The sections of an executable that hold fat binaries. */
struct fatbin_sections {
    struct fatbin_elf_section s[8];
    unsigned n;
};

static int fatbin_section_cb(const struct fatbin_elf_section *s, void *arg)
{
    struct fatbin_sections *fs = arg;
    if (strcmp(s->name, ".nv_fatbin") && strcmp(s->name, "__nv_relfatbin"))
        return 0;
    if (s->type == 8 /* SHT_NOBITS */)
        return 0;
    if (fs->n < sizeof fs->s / sizeof fs->s[0])
        fs->s[fs->n++] = *s;
    return 0;
}

static int count_entry(const struct fatbin_entry *e, void *arg)
{
    (void)e;
    (void)arg;
    return 0;
}

/* List the containers of one fat binary section (or of a whole raw .fatbin file): they follow
 * each other, 8-byte aligned, with zero padding between them. 0, or 1 after printing one line
 * on the first malformed container. */
static int fatbin_list(const char *file, const char *sect, const uint8_t *b, uint64_t off,
                       uint64_t size, unsigned *found)
{
    uint64_t pos = 0;
    while (pos < size) {
        uint64_t left = size - pos;
        if (left >= 8 && !memcmp(b + off + pos, "\0\0\0\0\0\0\0\0", 8)) {
            pos += 8; /* padding */
            continue;
        }
        char err[512];
        if (fatbin_foreach(b + off + pos, (size_t)left, count_entry, NULL, err, sizeof err) <
            0) {
            fflush(stdout);
            fprintf(stderr,
                    "ptxemu: %s: malformed fat binary at file offset 0x%llx (%s +0x%llx): %s\n",
                    file, (unsigned long long)(off + pos), sect, (unsigned long long)pos, err);
            return 1;
        }
        printf("at file offset 0x%llx: ", (unsigned long long)(off + pos));
        fatbin_dump(stdout, b + off + pos, (size_t)left, NULL, 0);
        (*found)++;
        pos += (fatbin_container_size(b + off + pos, (size_t)left) + 7) & ~(uint64_t)7;
    }
    return 0;
}

/* `ptxemu fatbin PROGRAM`: the entries of every container in the program's .nv_fatbin and
 * __nv_relfatbin sections (or of a raw container file, `nvcc -fatbin`). Exit 1 when there
 * is none or one is malformed (one line on stderr saying where and which field). */
static int cmd_fatbin(int argc, char **argv)
{
    if (argc != 1)
        return usage_error("fatbin takes one executable%s", "");
    uint8_t *b;
    size_t n;
    if (slurp(argv[0], &b, &n) < 0) {
        fprintf(stderr, "ptxemu: cannot read %s: %s\n", argv[0], strerror(errno));
        return 1;
    }
    unsigned found = 0;
    int rc = 0;
    uint32_t magic = 0;
    if (n >= 4)
        memcpy(&magic, b, 4);
    struct fatbin_sections fs = {.n = 0};
    if (magic == FATBIN_MAGIC) {
        rc = fatbin_list(argv[0], "file", b, 0, n, &found);
    } else if (fatbin_elf_sections(b, n, fatbin_section_cb, &fs) < 0) {
        fprintf(stderr, "ptxemu: %s is neither an ELF file with section headers nor a fat "
                        "binary\n", argv[0]);
        rc = 1;
    } else {
        for (unsigned i = 0; i < fs.n && !rc; i++) {
            const struct fatbin_elf_section *s = &fs.s[i];
            if (s->offset > n || s->size > n - s->offset) {
                fprintf(stderr, "ptxemu: %s: section %s (offset 0x%llx, %llu bytes) runs past "
                                "the end of the file (%zu bytes)\n",
                        argv[0], s->name, (unsigned long long)s->offset,
                        (unsigned long long)s->size, n);
                rc = 1;
                break;
            }
            rc = fatbin_list(argv[0], s->name, b, s->offset, s->size, &found);
        }
    }
    free(b);
    if (!rc && !found) {
        fprintf(stderr, "ptxemu: %s holds no fat binary\n", argv[0]);
        rc = 1;
    }
    return rc;
}

/* ============================================================================= timing-config */

/* Print every timing option of the configuration --timing[=SPEC] (with --timing-set and
 * --device) would use, as `-name value` lines a gpgpusim.config file could hold. */
static int cmd_timing_config(int argc, char **argv)
{
    struct run_opts o = {.trace_thread = -1};
    for (int i = 0; i < argc; i++) {
        int c = common_opt(&o, argc, argv, &i);
        if (c < 0)
            return EXIT_USAGE;
        if (c == 0) {
            free(o.timing_set);
            return usage_error("timing-config: unexpected argument '%s'", argv[i]);
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

/* ======================================================================================= run */

static int cmd_run(int argc, char **argv)
{
    struct run_opts o = {.trace_thread = -1};
    int i = 0;
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "--")) {
            i++;
            break;
        }
        int c = common_opt(&o, argc, argv, &i);
        if (c < 0)
            return EXIT_USAGE;
        if (c == 0) {
            if (argv[i][0] == '-')
                return usage_error("run: unknown option '%s'", argv[i]);
            break; /* the program (without --) */
        }
    }
    if (i >= argc)
        return usage_error("run needs a program: ptxemu run [OPTIONS] -- PROGRAM ARGS...%s", "");
    if (!o.check && (o.error_exitcode_set || o.print_limit_set || o.log_file || o.check_report))
        return usage_error("--error-exitcode, --print-limit, --log-file and --check-report need "
                           "--check%s",
                           "");
    char path[PATH_MAX];
    if (find_program(argv[i], path, sizeof path) < 0) {
        fprintf(stderr, "ptxemu: %s: no such executable\n", argv[i]);
        return 1;
    }
    uint8_t *b;
    size_t n;
    if (slurp(path, &b, &n) == 0) {
        char other[128];
        int need = elf_needs_cudart(b, n, other, sizeof other);
        free(b);
        if (need == 0) {
            if (other[0])
                fprintf(stderr,
                        "ptxemu: %s needs %s, not libcudart.so.13: rebuild it with CUDA 13 "
                        "(nvcc -cudart shared)\n",
                        argv[i], other);
            else
                fprintf(stderr,
                        "ptxemu: %s does not load libcudart.so.13: it was linked with the static "
                        "CUDA runtime (nvcc's default), which ptxemu cannot replace; rebuild it "
                        "with `nvcc -cudart shared`\n",
                        argv[i]);
            return 1;
        }
        /* need < 0: not a 64-bit ELF (a script?): run it anyway */
    }
    char libdir[PATH_MAX];
    if (find_libdir(libdir, sizeof libdir) < 0) {
        fprintf(stderr, "ptxemu: cannot find libcudart.so.13 next to the ptxemu binary "
                        "(expected lib/ or ../lib/; set PTXEMU_LIBDIR)\n");
        return 1;
    }
    const char *old = getenv("LD_LIBRARY_PATH");
    size_t len = strlen(libdir) + (old ? strlen(old) : 0) + 2;
    char *ld = malloc(len);
    if (!ld)
        return 1;
    if (old && *old)
        snprintf(ld, len, "%s:%s", libdir, old);
    else
        snprintf(ld, len, "%s", libdir);
    setenv("LD_LIBRARY_PATH", ld, 1);
    free(ld);
    char num[32];
    if (o.device)
        setenv("PTXEMU_DEVICE", o.device, 1);
    if (o.threads_set) {
        snprintf(num, sizeof num, "%u", o.threads);
        setenv("PTXEMU_THREADS", num, 1);
    }
    if (o.stats)
        setenv("PTXEMU_STATS", "1", 1);
    if (o.deterministic)
        setenv("PTXEMU_DETERMINISTIC", "1", 1);
    if (o.trace)
        setenv("PTXEMU_TRACE", o.trace, 1);
    if (o.trace_thread_set) {
        snprintf(num, sizeof num, "%lld", (long long)o.trace_thread);
        setenv("PTXEMU_TRACE_THREAD", num, 1);
    }
    if (o.budget_set) {
        snprintf(num, sizeof num, "%llu", (unsigned long long)o.budget);
        setenv("PTXEMU_BUDGET", num, 1);
    }
    if (o.timing.on) {
        setenv("PTXEMU_TIMING", o.timing.spec ? o.timing.spec : "1", 1);
        if (o.timing.set)
            setenv("PTXEMU_TIMING_SET", o.timing.set, 1);
        if (o.timing.stats_path)
            setenv("PTXEMU_TIMING_STATS", o.timing.stats_path, 1);
        if (o.timing.strict)
            setenv("PTXEMU_TIMING_STRICT", "1", 1);
        if (o.timing.kernels)
            setenv("PTXEMU_TIMING_KERNELS", o.timing.kernels, 1);
        if (o.timing.report_dir)
            setenv("PTXEMU_TIMING_REPORT", o.timing.report_dir, 1);
    }
    if (o.check)
        setenv("PTXEMU_CHECK", o.check, 1);
    if (o.error_exitcode_set) {
        snprintf(num, sizeof num, "%llu", (unsigned long long)o.error_exitcode);
        setenv("PTXEMU_ERROR_EXITCODE", num, 1);
    }
    if (o.print_limit_set) {
        snprintf(num, sizeof num, "%llu", (unsigned long long)o.print_limit);
        setenv("PTXEMU_PRINT_LIMIT", num, 1);
    }
    if (o.log_file)
        setenv("PTXEMU_LOG_FILE", o.log_file, 1);
    if (o.check_report)
        setenv("PTXEMU_CHECK_REPORT", o.check_report, 1);
    if (o.fill)
        setenv("PTXEMU_FILL_UNINIT", o.fill, 1);
    fflush(NULL);
    execv(path, argv + i);
    fprintf(stderr, "ptxemu: cannot run %s: %s\n", path, strerror(errno));
    return 1;
}

/* ======================================================================================= main */

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage_error("missing command%s", "");
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
        return cmd_exec(argc - 2, argv + 2);
    if (!strcmp(cmd, "run"))
        return cmd_run(argc - 2, argv + 2);
    if (!strcmp(cmd, "fatbin"))
        return cmd_fatbin(argc - 2, argv + 2);
    if (!strcmp(cmd, "report"))
        return rt_report_main(argc - 2, argv + 2);
    return usage_error("unknown command '%s'", cmd);
}
