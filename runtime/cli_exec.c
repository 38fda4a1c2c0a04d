/*
 * runtime/cli_exec.c — `ptxemu exec FILE.ptx --kernel NAME --grid X[,Y,Z] --block X[,Y,Z]
 * --arg SPEC...`: one kernel of a PTX file on the emulated device, its arguments given on the
 * command line (scalars, device buffers from zeros, files, typed lists, iota, splitmix64
 * bytes), the buffers printed (--print) or written (--dump) afterwards. The formats are
 * cli.c's usage text.
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
        if (cli_parse_u64(v, &a->size) < 0)
            goto bad;
        a->uninit = kl == 6;
        return 0;
    }
    if (kl == 4 && !strncmp(b, "file", 4)) {
        size_t n;
        if (cli_read_file(v, &a->data, &n) < 0) {
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
        if (cli_parse_u64(sz, &a->size) < 0 || cli_parse_u64(comma + 1, &seed) < 0)
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
        if (!t || cli_parse_u64(v, &n) < 0 || n > (UINT64_C(1) << 32))
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
    if (t[tl] == ':' && (cli_parse_u64(t + tl + 1, &p->count) < 0 || p->count == 0))
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

int cli_cmd_exec(int argc, char **argv)
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
        int c = cli_common_opt(&o, argc, argv, &i);
        if (c < 0) {
            rc = EXIT_USAGE;
            goto out;
        }
        if (c > 0)
            continue;
        bool val = i + 1 < argc;
        if (a[0] != '-') {
            if (file) {
                rc = cli_usage_error("exec: unexpected argument '%s'", a);
                goto out;
            }
            file = a;
        } else if (!strcmp(a, "--kernel") && val) {
            kname = argv[++i];
        } else if (!strcmp(a, "--grid") && val) {
            if (parse_dims(argv[++i], grid) < 0) {
                rc = cli_usage_error("--grid: expected X[,Y,Z] of positive integers, not '%s'",
                                     argv[i]);
                goto out;
            }
            have_grid = true;
        } else if (!strcmp(a, "--block") && val) {
            if (parse_dims(argv[++i], block) < 0) {
                rc = cli_usage_error("--block: expected X[,Y,Z] of positive integers, not '%s'",
                                     argv[i]);
                goto out;
            }
            have_block = true;
        } else if (!strcmp(a, "--cluster") && val) {
            if (parse_dims(argv[++i], cluster) < 0) {
                rc = cli_usage_error("--cluster: expected X[,Y,Z] of positive integers, not '%s'",
                                     argv[i]);
                goto out;
            }
        } else if (!strcmp(a, "--shared") && val) {
            if (cli_parse_u64(argv[++i], &shared) < 0 || shared > UINT32_MAX) {
                rc = cli_usage_error("--shared: bad byte count '%s'", argv[i]);
                goto out;
            }
        } else if (!strcmp(a, "--repeat") && val) {
            if (cli_parse_u64(argv[++i], &repeat) < 0 || repeat == 0 || repeat > 1000000) {
                rc = cli_usage_error(
                    "--repeat: expected a launch count from 1 to 1000000, not '%s'", argv[i]);
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
                rc = cli_usage_error("--print: expected INDEX:TYPE[:COUNT], not '%s'", argv[i]);
                goto out;
            }
            nprints++;
        } else if (!strcmp(a, "--dump") && val) {
            if (parse_dump(argv[++i], &dumps[ndumps]) < 0) {
                rc = cli_usage_error("--dump: expected INDEX=PATH, not '%s'", argv[i]);
                goto out;
            }
            ndumps++;
        } else {
            rc = cli_usage_error("exec: unknown option or missing value: '%s'", a);
            goto out;
        }
    }
    if (!file) {
        rc = cli_usage_error("exec needs a PTX file%s", "");
        goto out;
    }
    if (!have_grid || !have_block) {
        rc = cli_usage_error("exec needs --grid and --block%s", "");
        goto out;
    }
    if (!o.check && (o.error_exitcode_set || o.print_limit_set || o.log_file ||
                     o.check_report)) {
        rc = cli_usage_error("--error-exitcode, --print-limit, --log-file and --check-report need "
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
        rt_device_parse(&dspec, o.device, derr, sizeof derr); /* validated by cli_common_opt */
    if (cli_load_module(file, false, &m) < 0)
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
        o.timing.threads = o.threads_set ? o.threads : 0;
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
