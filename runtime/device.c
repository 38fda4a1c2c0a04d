/*
 * runtime/device.c — the emulated device's description, the context's set-up from the
 * environment, and lazy creation of the interpreter device.
 */
#include "runtime/rt.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* ======================================================================== device presets */

/* What distinguishes one preset from another; everything else is common to sm_75…sm_120
 * (1,024 threads per block, 64 Ki registers per SM, 48 KiB default shared per block, …).
 * Per-SM limits follow cuda_occupancy.h for the compute capability; SM counts, memory and
 * clocks are the named product's. */
struct preset {
    const char *key, *name;
    unsigned sm, nsm, threads_per_sm, blocks_per_sm;
    unsigned shared_sm_kib, shared_optin_kib; /* shared memory per SM, per block (opt-in) */
    unsigned gmem_gib, l2_kib, persist_l2_kib;
    unsigned clock_mhz, mem_clock_mhz, mem_bus_width;
};

static const struct preset presets[] = {
    {"h100", "H100 (sm_90)", 90, 132, 2048, 32, 228, 227, 80, 51200, 34304, 1980, 2619, 5120},
    {"a100", "A100 (sm_80)", 80, 108, 2048, 32, 164, 163, 80, 40960, 30720, 1410, 1593, 5120},
    {"l4", "L4 (sm_89)", 89, 58, 1536, 24, 100, 99, 24, 49152, 34304, 2040, 6251, 192},
    {"rtx4090", "RTX 4090 (sm_89)", 89, 128, 1536, 24, 100, 99, 24, 73728, 34304, 2520, 10501, 384},
    {"t4", "T4 (sm_75)", 75, 40, 1024, 16, 64, 64, 16, 4096, 0, 1590, 5001, 256},
    /* Blackwell datacenter (compute capability 10.0): per-SM limits as sm_90's */
    {"b200", "B200 (sm_100)", 100, 148, 2048, 32, 228, 227, 180, 129024, 80896, 1965, 4000, 8192},
    /* Blackwell consumer (12.0): 1,536 threads, 24 blocks, at most 100 KiB shared per SM */
    {"rtx5090", "RTX 5090 (sm_120)", 120, 170, 1536, 24, 100, 99, 32, 98304, 73728, 2407,
     14001, 512},
    /* The GPUs of Accel-Sim's correlated configurations (timing presets configs/NAME.config);
     * clocks are the core clocks Accel-Sim correlated at. The Quadro GV100 is compute
     * capability 7.0, below what CUDA 13 compiles for: it reports 7.5 (the sm_75 floor) with
     * the GV100's resources (80 SMs, 96 KiB shared, 6 MiB L2, 4,096-bit HBM2). */
    {"qv100", "Quadro GV100 (sm_70 as sm_75)", 75, 80, 2048, 32, 96, 96, 32, 6144, 0, 1132, 850,
     4096},
    {"rtx2060", "RTX 2060 (sm_75)", 75, 30, 1024, 16, 64, 64, 6, 3072, 0, 1365, 7001, 192},
    {"rtx3070", "RTX 3070 (sm_86)", 86, 46, 1536, 16, 100, 99, 8, 4096, 3072, 1132, 7001, 256},
};

static void preset_apply(struct rt_device *d, const struct preset *p)
{
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "ptxemu %s", p->name);
    d->sm = p->sm;
    d->nsm = p->nsm;
    d->warp = 32;
    d->threads_per_block = 1024;
    d->threads_per_sm = p->threads_per_sm;
    d->blocks_per_sm = p->blocks_per_sm;
    d->block_dim[0] = 1024;
    d->block_dim[1] = 1024;
    d->block_dim[2] = 64;
    d->grid_dim[0] = 2147483647;
    d->grid_dim[1] = 65535;
    d->grid_dim[2] = 65535;
    d->regs_per_block = 65536;
    d->regs_per_sm = 65536;
    d->shared_per_block = 48 * 1024;
    d->shared_per_block_optin = p->shared_optin_kib * 1024;
    d->shared_per_sm = p->shared_sm_kib * 1024;
    d->reserved_shared_per_block = p->sm >= 80 ? 1024 : 0; /* 1 KiB from compute 8.0 on */
    d->global_mem = (uint64_t)p->gmem_gib << 30;
    d->mem_given = false;
    d->const_mem = 64 * 1024;
    d->l2_size = p->l2_kib * 1024;
    d->persisting_l2_max = p->persist_l2_kib * 1024;
    d->clock_khz = p->clock_mhz * 1000;
    d->mem_clock_khz = p->mem_clock_mhz * 1000;
    d->mem_bus_width = p->mem_bus_width;
    d->async_engines = 3;
    d->pci_bus = 1;
}

/* An H100 SXM5-class device (compute capability 9.0). */
void rt_device_default(struct rt_device *d)
{
    preset_apply(d, &presets[0]);
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
            const struct preset *pr = NULL;
            for (size_t i = 0; i < sizeof presets / sizeof presets[0] && !pr; i++)
                if (!strcasecmp(tok, presets[i].key))
                    pr = &presets[i];
            if (pr)
                preset_apply(d, pr);
            else if (!strncasecmp(tok, "sm_", 3) && atoi(tok + 3) >= 50)
                d->sm = (unsigned)atoi(tok + 3);
            else {
                snprintf(err, errlen,
                         "unknown device preset '%s' (h100, a100, l4, rtx4090, t4, b200, "
                         "rtx5090, qv100, rtx2060, rtx3070, sm_XX)",
                         tok);
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
        else if (!strcmp(k, "mem") && n >= 1 << 20) {
            d->global_mem = n;
            d->mem_given = true;
        }
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
        else if (!strcmp(k, "stack") && n >= 16 && n <= (UINT64_C(1) << 30))
            d->stack_size = n;
        else if (!strcmp(k, "heap") && n >= 1)
            d->heap_size = n;
        else if (!strcmp(k, "printf-fifo") && n >= 64 && n <= (UINT64_C(1) << 31))
            d->printf_fifo = n;
        else {
            snprintf(err, errlen, "unknown device setting or value out of range: %s=%s", k, v);
            return -1;
        }
    }
    return 0;
}

/* Host memory (see rt.h). */
uint64_t rt_host_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    uint64_t m = pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz : UINT64_MAX;
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < m)
        m = rl.rlim_cur;
    return m;
}

/* Cap global memory to the host (see rt.h): a preset's 80 GiB on a 23 GiB host would let a
 * program fill host RAM until the OOM killer came. */
void rt_device_fit_host(struct rt_device *d)
{
    uint64_t h = rt_host_memory();
    if (!d->mem_given && d->global_mem > h)
        d->global_mem = h & ~((UINT64_C(1) << 20) - 1);
}

/* Resident CTAs per SM (see rt.h). */
unsigned rt_occupancy(const struct rt_device *d, const struct interp_kernel_info *k,
                      unsigned block, uint64_t dyn)
{
    unsigned warps = (block + d->warp - 1) / d->warp;
    unsigned n = d->threads_per_sm / (warps * d->warp);
    if (n > d->blocks_per_sm)
        n = d->blocks_per_sm;
    if (k->nregs) {
        unsigned regs = ((k->nregs + 7) & ~7u) * warps * d->warp;
        unsigned by_regs = regs ? d->regs_per_sm / regs : n;
        if (by_regs < n)
            n = by_regs;
    }
    uint64_t sh = k->shared_static + dyn + d->reserved_shared_per_block;
    if (sh) {
        uint64_t by_sh = d->shared_per_sm / sh;
        if (by_sh < n)
            n = (unsigned)by_sh;
    }
    return n;
}

/* The largest cluster a launch may ask for (see rt.h). */
unsigned rt_cluster_max(const struct rt_device *d, bool nonportable)
{
    if (d->sm < 90)
        return 0;
    return nonportable ? 16 : 8;
}

/* Clusters of csize CTAs that fit on d at once (see rt.h): each GPC holds
 * floor(CTAs per SM * its SMs / csize) of them. */
uint64_t rt_cluster_occupancy(const struct rt_device *d, const struct interp_kernel_info *k,
                              unsigned block, uint64_t dyn, unsigned csize)
{
    if (!csize)
        return 0;
    const uint64_t per_sm = rt_occupancy(d, k, block, dyn);
    const unsigned full = d->nsm / RT_GPC_SMS, rest = d->nsm % RT_GPC_SMS;
    return full * (per_sm * RT_GPC_SMS / csize) + per_sm * rest / csize;
}

/* Check a launch's cluster shape (see rt.h). */
int rt_cluster_check(const struct rt_device *d, const struct interp_kernel_info *k,
                     const uint32_t grid[3], const uint32_t want[3], bool nonportable,
                     uint32_t out[3])
{
    const struct ir_func *f = k->func;
    const bool fk = f && f->reqnctapercluster[0];
    const bool lk = want[0] || want[1] || want[2];
    out[0] = out[1] = out[2] = 0;
    if (!fk && !lk)
        return f && f->explicitcluster ? RT_ERR_INVALID_CLUSTER_SIZE : RT_OK;
    uint32_t c[3];
    for (int i = 0; i < 3; i++) {
        c[i] = fk ? f->reqnctapercluster[i] : want[i];
        if (!c[i])
            c[i] = 1;
        if (fk && lk && (want[i] ? want[i] : 1) != c[i])
            return RT_ERR_INVALID_CLUSTER_SIZE;
    }
    unsigned max = rt_cluster_max(d, nonportable);
    if (f && f->maxclusterrank && f->maxclusterrank < max)
        max = f->maxclusterrank;
    if ((uint64_t)c[0] * c[1] * c[2] > max)
        return RT_ERR_INVALID_CLUSTER_SIZE;
    for (int i = 0; i < 3; i++)
        if (grid[i] % c[i])
            return RT_ERR_INVALID_CLUSTER_SIZE;
    memcpy(out, c, sizeof c);
    return RT_OK;
}

/* Help text for --device. */
void rt_device_help(FILE *out)
{
    fprintf(out,
            "device spec: comma-separated presets and key=value settings, applied in order\n"
            "  presets: h100 (default: sm_90, 132 SMs), a100 (sm_80, 108), l4 (sm_89, 58),\n"
            "           rtx4090 (sm_89, 128), t4 (sm_75, 40), b200 (sm_100, 148),\n"
            "           rtx5090 (sm_120, 170), qv100 (sm_70 reported as sm_75, 80),\n"
            "           rtx2060 (sm_75, 30), rtx3070 (sm_86, 46), sm_XX (compute capability only)\n"
            "  keys: sm, nsm, mem, name, shared, shared-optin, shared-sm, clock (kHz),\n"
            "        threads-sm, blocks-sm, regs-sm, stack (per-thread bytes, default 1K),\n"
            "        heap (device malloc, 8M), printf-fifo (1M)   (sizes take K/M/G suffixes)\n"
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
    pthread_mutex_init(&c->bt_lock, NULL);
    pthread_rwlockattr_t ra;
    pthread_rwlockattr_init(&ra);
    /* readers first: a queue worker must get in while a reset waits for the callers whose
     * work it runs */
    pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_READER_NP);
    pthread_rwlock_init(&c->reset_rw, &ra);
    pthread_rwlockattr_destroy(&ra);
    rt_device_default(&c->dev);
    char err[256];
    const char *v = getenv("PTXEMU_DEVICE");
    if (v && *v && rt_device_parse(&c->dev, v, err, sizeof err) < 0)
        fprintf(stderr, "ptxemu: PTXEMU_DEVICE: %s (ignored)\n", err);
    rt_device_fit_host(&c->dev);
    c->icfg.sm = c->dev.sm;
    c->icfg.nsm = c->dev.nsm;
    c->icfg.stack_size = c->dev.stack_size;
    c->icfg.heap_size = c->dev.heap_size;
    c->icfg.printf_fifo = (unsigned)c->dev.printf_fifo;
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
    if ((v = getenv("PTXEMU_FILL_UNINIT")) && *v) {
        if (interp_fill_parse(v, &c->icfg.fill_word) < 0)
            fprintf(stderr, "ptxemu: PTXEMU_FILL_UNINIT: expected 0xNN or nan, not '%s' "
                            "(ignored)\n", v);
        else
            c->icfg.fill = true;
    }
    if ((v = getenv("PTXEMU_CHECK")) && *v) {
        unsigned bits;
        char bad[64];
        if (interp_check_parse(v, &bits, bad, sizeof bad) < 0) {
            fprintf(stderr, "ptxemu: PTXEMU_CHECK: unknown tool '%s' (ignored)\n", bad);
        } else {
            const char *lf = getenv("PTXEMU_LOG_FILE");
            if (lf && *lf && !(c->chk_file = fopen(lf, "w")))
                fprintf(stderr, "ptxemu: PTXEMU_LOG_FILE: cannot write %s (using stderr)\n", lf);
            /* else the process's stderr as it is now: a program that redirects its stderr
             * later (freopen) does not take the reports with it, as compute-sanitizer's go to
             * its own process's output */
            int fd = c->chk_file ? -1 : dup(2);
            if (fd >= 0 && !(c->chk_file = fdopen(fd, "w")))
                close(fd);
            const char *pl = getenv("PTXEMU_PRINT_LIMIT");
            c->chk = interp_check_log_create(c->chk_file ? c->chk_file : stderr,
                                             pl && *pl ? strtoull(pl, NULL, 10) : 100);
            if (c->chk) {
                c->icfg.check = bits;
                c->icfg.check_log = c->chk;
                const char *jf = getenv("PTXEMU_CHECK_REPORT");
                if (jf && *jf && !(c->chk_json = fopen(jf, "w")))
                    fprintf(stderr, "ptxemu: PTXEMU_CHECK_REPORT: cannot write %s (no JSON "
                                    "report)\n",
                            jf);
                if (c->chk_json) /* FILE.xml: XML, else JSON */
                    interp_check_log_report(c->chk, c->chk_json,
                                            strlen(jf) > 4 && !strcmp(jf + strlen(jf) - 4, ".xml"));
            }
            if ((v = getenv("PTXEMU_ERROR_EXITCODE")) && *v)
                c->error_exitcode = (int)strtol(v, NULL, 10);
        }
    }
    c->stats = env_flag("PTXEMU_STATS");
    c->debug_reg = env_flag("PTXEMU_DEBUG_REG");
    c->sync = env_flag("PTXEMU_SYNC");
    rt_timing_env(&c->topts);
    /* kernels of independent streams run concurrently, except when the order must repeat */
    c->q.max_workers = (c->icfg.deterministic || c->icfg.trace) ? 1 : 16;
    pthread_mutex_init(&c->q.mu, NULL);
    pthread_cond_init(&c->q.work, NULL);
    /* device printf output waits here for CUDA's flush points (stream.c) */
    c->printf_mem = open_memstream(&c->printf_buf, &c->printf_len);
    c->icfg.printf_out = c->printf_mem ? c->printf_mem : stdout;
}

/* This thread's nesting of device uses, and whether it is a queue worker (per-thread state
 * of the reset protocol, see rt.h). */
static _Thread_local unsigned dev_depth;
static _Thread_local bool dev_worker;

void rt_dev_worker_thread(void)
{
    dev_worker = true;
}

bool rt_dev_is_worker(void)
{
    return dev_worker;
}

void rt_dev_enter(struct rt_ctx *c)
{
    if (dev_depth++ > 0)
        return;
    while (!dev_worker && atomic_load(&c->resetting)) {
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
    pthread_rwlock_rdlock(&c->reset_rw);
}

void rt_dev_leave(struct rt_ctx *c)
{
    if (--dev_depth == 0)
        pthread_rwlock_unlock(&c->reset_rw);
}

void rt_dev_reset_begin(struct rt_ctx *c)
{
    atomic_fetch_add(&c->resetting, 1);
    pthread_rwlock_wrlock(&c->reset_rw);
    atomic_fetch_add(&c->gen, 1);
}

void rt_dev_reset_end(struct rt_ctx *c)
{
    pthread_rwlock_unlock(&c->reset_rw);
    atomic_fetch_sub(&c->resetting, 1);
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
        snprintf(c->init_err, sizeof c->init_err, "cannot create the emulated device: %s",
                 r < 0 ? strerror(-r) : "unknown error");
        c->idev = NULL;
        return NULL;
    }
    if (c->topts.on && !c->timing) {
        char err[256] = "";
        if (rt_timing_open(&c->topts, getenv("PTXEMU_DEVICE"), stderr, &c->timing, err,
                           sizeof err) < 0) {
            snprintf(c->init_err, sizeof c->init_err, "timing mode: %s", err);
            interp_dev_destroy(c->idev);
            c->idev = NULL;
            return NULL;
        }
    }
    if (!c->cache)
        c->cache = fe_cache_new();
    return c->idev;
}

/* Sanitizer: leakcheck of the current device (see rt.h). Caller holds c->lock. */
void rt_check_leaks(struct rt_ctx *c)
{
    if (c->chk && (c->icfg.check & CHECK_LEAKCHECK) && c->idev)
        interp_check_leaks(c->chk, c->idev, rt_leak_bt_get, c);
    rt_leak_bt_clear(c); /* the allocations are gone with the device (reset) or the process */
}

/* Sanitizer at process exit (see rt.h). */
int rt_check_exit(struct rt_ctx *c)
{
    if (!c->chk)
        return -1;
    pthread_mutex_lock(&c->lock);
    rt_check_leaks(c);
    pthread_mutex_unlock(&c->lock);
    interp_check_summary(c->chk);
    int rc = c->error_exitcode && interp_check_errors(c->chk) ? c->error_exitcode : -1;
    if (c->chk_file)
        fflush(c->chk_file);
    if (c->chk_json) {
        if (fclose(c->chk_json) != 0)
            fprintf(stderr, "ptxemu: PTXEMU_CHECK_REPORT: cannot write the report\n");
        c->chk_json = NULL;
    }
    return rc;
}
