/*
 * runtime/device.c — the emulated device's description, the context's set-up from the
 * environment, and lazy creation of the interpreter device.
 */
#include "runtime/rt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* ======================================================================== device presets */

/* An H100 SXM5-class device (compute capability 9.0). */
void rt_device_default(struct rt_device *d)
{
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "ptxemu H100 (sm_90)");
    d->sm = 90;
    d->nsm = 132;
    d->warp = 32;
    d->threads_per_block = 1024;
    d->threads_per_sm = 2048;
    d->blocks_per_sm = 32;
    d->block_dim[0] = 1024;
    d->block_dim[1] = 1024;
    d->block_dim[2] = 64;
    d->grid_dim[0] = 2147483647;
    d->grid_dim[1] = 65535;
    d->grid_dim[2] = 65535;
    d->regs_per_block = 65536;
    d->regs_per_sm = 65536;
    d->shared_per_block = 48 * 1024;
    d->shared_per_block_optin = 227 * 1024;
    d->shared_per_sm = 228 * 1024;
    d->reserved_shared_per_block = 1024;
    d->global_mem = UINT64_C(80) << 30;
    d->const_mem = 64 * 1024;
    d->l2_size = 50 * 1024 * 1024;
    d->persisting_l2_max = 32 * 1024 * 1024 + 512 * 1024; /* 33.5 MiB as on H100 SXM */
    d->clock_khz = 1980000;
    d->mem_clock_khz = 2619000;
    d->mem_bus_width = 5120;
    d->async_engines = 3;
    d->pci_bus = 1;
}

static void preset_a100(struct rt_device *d)
{
    rt_device_default(d);
    snprintf(d->name, sizeof d->name, "ptxemu A100 (sm_80)");
    d->sm = 80;
    d->nsm = 108;
    d->shared_per_block_optin = 163 * 1024;
    d->shared_per_sm = 164 * 1024;
    d->global_mem = UINT64_C(80) << 30;
    d->l2_size = 40 * 1024 * 1024;
    d->persisting_l2_max = 30 * 1024 * 1024;
    d->clock_khz = 1410000;
    d->mem_clock_khz = 1593000;
}

static void preset_l4(struct rt_device *d)
{
    rt_device_default(d);
    snprintf(d->name, sizeof d->name, "ptxemu L4 (sm_89)");
    d->sm = 89;
    d->nsm = 58;
    d->threads_per_sm = 1536;
    d->blocks_per_sm = 24;
    d->shared_per_block_optin = 99 * 1024;
    d->shared_per_sm = 100 * 1024;
    d->global_mem = UINT64_C(24) << 30;
    d->l2_size = 48 * 1024 * 1024;
    d->clock_khz = 2040000;
    d->mem_clock_khz = 6251000;
    d->mem_bus_width = 192;
}

static void preset_rtx4090(struct rt_device *d)
{
    preset_l4(d);
    snprintf(d->name, sizeof d->name, "ptxemu RTX 4090 (sm_89)");
    d->nsm = 128;
    d->l2_size = 72 * 1024 * 1024;
    d->clock_khz = 2520000;
    d->mem_clock_khz = 10501000;
    d->mem_bus_width = 384;
}

static void preset_t4(struct rt_device *d)
{
    rt_device_default(d);
    snprintf(d->name, sizeof d->name, "ptxemu T4 (sm_75)");
    d->sm = 75;
    d->nsm = 40;
    d->threads_per_sm = 1024;
    d->blocks_per_sm = 16;
    d->shared_per_block_optin = 64 * 1024;
    d->shared_per_sm = 64 * 1024;
    d->global_mem = UINT64_C(16) << 30;
    d->l2_size = 4 * 1024 * 1024;
    d->persisting_l2_max = 0;
    d->clock_khz = 1590000;
    d->mem_clock_khz = 5001000;
    d->mem_bus_width = 256;
}

/* Parse a byte size with an optional K/M/G suffix (powers of 1024). */
static int parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s)
        return -1;
    switch (*end) {
    case 'k': case 'K': v <<= 10; end++; break;
    case 'm': case 'M': v <<= 20; end++; break;
    case 'g': case 'G': v <<= 30; end++; break;
    default: break;
    }
    if (*end)
        return -1;
    *out = v;
    return 0;
}

/* Read a device spec file: settings separated by commas or newlines, '#' comments. */
static int read_spec_file(const char *path, char *buf, size_t cap, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot read device file %s", path);
        return -1;
    }
    size_t n = 0;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "#\r\n")] = 0;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        size_t len = strlen(p);
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
            p[--len] = 0;
        if (!len)
            continue;
        if (n + len + 2 > cap) {
            fclose(f);
            snprintf(err, errlen, "device file %s too long", path);
            return -1;
        }
        if (n)
            buf[n++] = ',';
        memcpy(buf + n, p, len);
        n += len;
    }
    buf[n] = 0;
    fclose(f);
    return 0;
}

/* Apply a device spec (see rt.h); a spec naming a readable file is read from it. */
int rt_device_parse(struct rt_device *d, const char *spec, char *err, size_t errlen)
{
    char buf[2048];
    if (strchr(spec, '/') || !access(spec, R_OK)) {
        if (read_spec_file(spec, buf, sizeof buf, err, errlen) < 0)
            return -1;
    } else {
        if (strlen(spec) >= sizeof buf) {
            snprintf(err, errlen, "device spec too long");
            return -1;
        }
        strcpy(buf, spec);
    }
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) {
            if (!strcasecmp(tok, "h100"))
                rt_device_default(d);
            else if (!strcasecmp(tok, "a100"))
                preset_a100(d);
            else if (!strcasecmp(tok, "l4"))
                preset_l4(d);
            else if (!strcasecmp(tok, "rtx4090"))
                preset_rtx4090(d);
            else if (!strcasecmp(tok, "t4"))
                preset_t4(d);
            else if (!strncasecmp(tok, "sm_", 3) && atoi(tok + 3) >= 50)
                d->sm = (unsigned)atoi(tok + 3);
            else {
                snprintf(err, errlen, "unknown device preset '%s' (h100, a100, l4, rtx4090, t4, sm_XX)", tok);
                return -1;
            }
            continue;
        }
        *eq = 0;
        const char *k = tok, *v = eq + 1;
        uint64_t n = 0;
        if (!strcmp(k, "name")) {
            snprintf(d->name, sizeof d->name, "%s", v);
            continue;
        }
        if (parse_size(v, &n) < 0) {
            snprintf(err, errlen, "device setting %s: bad number '%s'", k, v);
            return -1;
        }
        if (!strcmp(k, "sm") && n >= 50 && n < 1000)
            d->sm = (unsigned)n;
        else if (!strcmp(k, "nsm") && n >= 1 && n <= 4096)
            d->nsm = (unsigned)n;
        else if (!strcmp(k, "mem") && n >= 1 << 20)
            d->global_mem = n;
        else if (!strcmp(k, "shared") && n <= d->shared_per_block_optin)
            d->shared_per_block = n;
        else if (!strcmp(k, "shared-optin") && n >= d->shared_per_block && n <= d->shared_per_sm)
            d->shared_per_block_optin = n;
        else if (!strcmp(k, "shared-sm") && n >= d->shared_per_block_optin)
            d->shared_per_sm = n;
        else if (!strcmp(k, "clock") && n >= 1)
            d->clock_khz = (unsigned)n;
        else if (!strcmp(k, "threads-sm") && n >= 32 && n <= 65536)
            d->threads_per_sm = (unsigned)n;
        else if (!strcmp(k, "blocks-sm") && n >= 1 && n <= 1024)
            d->blocks_per_sm = (unsigned)n;
        else if (!strcmp(k, "regs-sm") && n >= 1024)
            d->regs_per_sm = (unsigned)n;
        else {
            snprintf(err, errlen, "unknown device setting or value out of range: %s=%s", k, v);
            return -1;
        }
    }
    return 0;
}

/* Help text for --device. */
void rt_device_help(FILE *out)
{
    fprintf(out,
            "device spec: comma-separated presets and key=value settings, applied in order\n"
            "  presets: h100 (default: sm_90, 132 SMs), a100 (sm_80, 108), l4 (sm_89, 58),\n"
            "           rtx4090 (sm_89, 128), t4 (sm_75, 40), sm_XX (compute capability only)\n"
            "  keys: sm, nsm, mem, name, shared, shared-optin, shared-sm, clock (kHz),\n"
            "        threads-sm, blocks-sm, regs-sm   (sizes take K/M/G suffixes)\n"
            "  a spec naming a file is read from it: one setting per line, # comments\n");
}

/* ================================================================ context from environment */

/* Parse "insn,regs,mem" into TRACE_* bits. */
int rt_parse_trace(const char *s)
{
    int bits = 0;
    const char *p = s;
    while (*p) {
        size_t n = strcspn(p, ",");
        if (n == 4 && !strncmp(p, "insn", 4))
            bits |= TRACE_INSN;
        else if (n == 4 && !strncmp(p, "regs", 4))
            bits |= TRACE_INSN | TRACE_REGS;
        else if (n == 3 && !strncmp(p, "mem", 3))
            bits |= TRACE_INSN | TRACE_MEM;
        else
            return -1;
        p += n;
        if (*p == ',')
            p++;
    }
    return bits;
}

static bool env_flag(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

/* Context from the environment (see rt.h). */
void rt_ctx_init(struct rt_ctx *c)
{
    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->lock, NULL);
    rt_device_default(&c->dev);
    char err[256];
    const char *v = getenv("PTXEMU_DEVICE");
    if (v && *v && rt_device_parse(&c->dev, v, err, sizeof err) < 0)
        fprintf(stderr, "ptxemu: PTXEMU_DEVICE: %s (ignored)\n", err);
    c->icfg.sm = c->dev.sm;
    c->icfg.nsm = c->dev.nsm;
    c->icfg.trace_thread = -1;
    if ((v = getenv("PTXEMU_THREADS")) && *v)
        c->icfg.threads = (unsigned)strtoul(v, NULL, 10);
    c->icfg.deterministic = env_flag("PTXEMU_DETERMINISTIC");
    if ((v = getenv("PTXEMU_BUDGET")) && *v)
        c->icfg.insn_budget = strtoull(v, NULL, 10);
    if ((v = getenv("PTXEMU_TRACE")) && *v) {
        int t = rt_parse_trace(v);
        if (t < 0)
            fprintf(stderr, "ptxemu: PTXEMU_TRACE: expected insn,regs,mem (ignored)\n");
        else
            c->icfg.trace = (unsigned)t;
    }
    if ((v = getenv("PTXEMU_TRACE_THREAD")) && *v)
        c->icfg.trace_thread = strtoll(v, NULL, 10);
    c->stats = env_flag("PTXEMU_STATS");
    c->debug_reg = env_flag("PTXEMU_DEBUG_REG");
    c->sync = env_flag("PTXEMU_SYNC");
    /* kernels of independent streams run concurrently, except when the order must repeat */
    c->q.max_workers = (c->icfg.deterministic || c->icfg.trace) ? 1 : 16;
    pthread_mutex_init(&c->q.mu, NULL);
    pthread_cond_init(&c->q.work, NULL);
    /* device printf output waits here for CUDA's flush points (stream.c) */
    c->printf_mem = open_memstream(&c->printf_buf, &c->printf_len);
    c->icfg.printf_out = c->printf_mem ? c->printf_mem : stdout;
}

/* The interpreter device, created on first use (caller holds c->lock). */
struct interp_dev *rt_ctx_dev(struct rt_ctx *c)
{
    if (c->idev)
        return c->idev;
    if (c->init_err[0])
        return NULL;
    int r = interp_dev_create(&c->icfg, &c->idev);
    if (r < 0 || !c->idev) {
        snprintf(c->init_err, sizeof c->init_err, "cannot create the emulated device (%d)", r);
        c->idev = NULL;
        return NULL;
    }
    if (!c->cache)
        c->cache = fe_cache_new();
    return c->idev;
}
