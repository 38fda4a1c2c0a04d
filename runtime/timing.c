/*
 * runtime/timing.c — timing mode for the runtime and the CLI: the configuration named by
 * --timing[=PRESET|FILE] / PTXEMU_TIMING (with --timing-set NAME=VALUE overrides), the
 * simulated GPU it creates, and the JSON statistics file.
 */
#include "runtime/rt.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The preset key of a --device spec: its first comma-separated word ("h100,nsm=4" → h100). */
static void device_key(const char *spec, char *out, size_t n)
{
    if (!spec || !*spec)
        spec = "h100";
    size_t k = strcspn(spec, ",");
    if (k >= n)
        k = n - 1;
    memcpy(out, spec, k);
    out[k] = 0;
}

/* Apply "NAME=VALUE" settings separated by ';' or newlines. */
static int apply_sets(struct tm_config *c, const char *list, char *err, size_t errlen)
{
    if (!list)
        return 0;
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ";\n");
        if (n) {
            char item[512];
            if (n >= sizeof item) {
                snprintf(err, errlen, "--timing-set: setting too long");
                return -EINVAL;
            }
            memcpy(item, p, n);
            item[n] = 0;
            char *eq = strchr(item, '=');
            if (!eq) {
                snprintf(err, errlen, "--timing-set: expected NAME=VALUE, not '%s'", item);
                return -EINVAL;
            }
            *eq = 0;
            const char *name = item[0] == '-' ? item + 1 : item;
            int r = tm_config_set(c, name, eq + 1, err, errlen);
            if (r)
                return r;
        }
        p += n;
        if (*p)
            p++;
    }
    return 0;
}

int rt_timing_kernels_check(const char *list, char *err, size_t errlen)
{
    const char *p = list;
    if (!p || !*p) {
        snprintf(err, errlen, "--timing-kernels: empty list");
        return -EINVAL;
    }
    while (*p) {
        size_t n = strcspn(p, ",");
        if (!n) {
            snprintf(err, errlen, "--timing-kernels: empty item in '%s'", list);
            return -EINVAL;
        }
        if (p[0] >= '0' && p[0] <= '9') {
            /* N or N-M */
            size_t i = 0;
            while (i < n && p[i] >= '0' && p[i] <= '9')
                i++;
            if (i < n && p[i] == '-') {
                size_t j = ++i;
                while (i < n && p[i] >= '0' && p[i] <= '9')
                    i++;
                if (i == j) {
                    snprintf(err, errlen, "--timing-kernels: bad range '%.*s'", (int)n, p);
                    return -EINVAL;
                }
            }
            if (i != n) {
                snprintf(err, errlen, "--timing-kernels: '%.*s' is neither a launch index, a "
                                      "range N-M nor a kernel name", (int)n, p);
                return -EINVAL;
            }
        }
        p += n;
        if (*p)
            p++;
    }
    return 0;
}

bool rt_timing_kernels_match(const char *list, const char *name, uint64_t idx)
{
    if (!list)
        return true;
    const char *p = list;
    size_t nl = name ? strlen(name) : 0;
    while (*p) {
        size_t n = strcspn(p, ",");
        if (p[0] >= '0' && p[0] <= '9') {
            char *e;
            unsigned long long lo = strtoull(p, &e, 10), hi = lo;
            if (*e == '-')
                hi = strtoull(e + 1, &e, 10);
            if (idx >= lo && idx <= hi)
                return true;
        } else if (name && n == nl && !memcmp(p, name, n)) {
            return true;
        }
        p += n;
        if (*p)
            p++;
    }
    return false;
}

/* --timing-report DIR: create DIR; the statistics go to --timing-stats FILE or DIR/stats.json
 * (the report reads them when the GPU closes). 0, or -1 with a message. */
static int report_setup(struct rt_timing *t, const struct rt_timing_opts *o, char *err,
                        size_t errlen)
{
    if (!o->report_dir || !*o->report_dir)
        return 0;
    if (mkdir(o->report_dir, 0777) && errno != EEXIST) {
        snprintf(err, errlen, "--timing-report: cannot create %s: %s", o->report_dir,
                 strerror(errno));
        return -1;
    }
    t->report_dir = strdup(o->report_dir);
    if (o->stats_path && *o->stats_path)
        t->json_path = strdup(o->stats_path);
    else if (t->report_dir && (t->json_path = malloc(strlen(o->report_dir) + 12)))
        sprintf(t->json_path, "%s/stats.json", o->report_dir);
    if (!t->report_dir || !t->json_path) {
        free(t->report_dir);
        free(t->json_path);
        t->report_dir = t->json_path = NULL;
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

int rt_timing_open(const struct rt_timing_opts *o, const char *device_spec, FILE *log,
                   struct rt_timing **out, char *err, size_t errlen)
{
    if (o->kernels && rt_timing_kernels_check(o->kernels, err, errlen))
        return -EINVAL;
    struct rt_timing *t = calloc(1, sizeof *t);
    if (!t)
        return -ENOMEM;
    if (o->kernels && !(t->kernels = strdup(o->kernels))) {
        free(t);
        return -ENOMEM;
    }
    struct tm_config cfg;
    char key[64];
    device_key(device_spec, key, sizeof key);
    int r = tm_config_load(&cfg, o->spec, key, o->strict, log ? log : stderr);
    if (r) {
        snprintf(err, errlen, "cannot load the timing configuration '%s'",
                 o->spec && *o->spec ? o->spec : key);
        free(t->kernels);
        free(t);
        return r;
    }
    /* the program sees the device's SM count: a --device nsm=N setting applies to the
     * simulated GPU too (-gpgpu_n_clusters, keeping -gpgpu_n_cores_per_cluster if it divides) */
    if (device_spec && *device_spec) {
        struct rt_device dev;
        char derr[256];
        rt_device_default(&dev);
        if (rt_device_parse(&dev, device_spec, derr, sizeof derr) == 0 && dev.nsm &&
            dev.nsm != cfg.n_sm) {
            int64_t per = cfg.o.gpgpu_n_cores_per_cluster;
            if (per < 1 || dev.nsm % per)
                per = 1;
            cfg.o.gpgpu_n_cores_per_cluster = per;
            cfg.o.gpgpu_n_clusters = dev.nsm / per;
        }
    }
    r = apply_sets(&cfg, o->set, err, errlen);
    if (!r)
        r = tm_config_derive(&cfg, err, errlen);
    if (r) {
        tm_config_free(&cfg);
        free(t->kernels);
        free(t);
        return r;
    }
    if (report_setup(t, o, err, errlen)) {
        tm_config_free(&cfg);
        free(t->kernels);
        free(t);
        return -EIO;
    }
    const char *stats_path = t->json_path ? t->json_path : o->stats_path;
    if (stats_path && *stats_path) {
        t->json = fopen(stats_path, "w");
        if (!t->json) {
            snprintf(err, errlen, "--timing-stats: cannot write %s: %s", stats_path,
                     strerror(errno));
            tm_config_free(&cfg);
            free(t->json_path);
            free(t->report_dir);
            free(t->kernels);
            free(t);
            return -EIO;
        }
    }
    /* a configuration file's directory is where its relative file options are found */
    char base[4096] = "";
    if (o->spec && strchr(o->spec, '/') && strlen(o->spec) < sizeof base) {
        strcpy(base, o->spec);
        *strrchr(base, '/') = 0;
        if (!*base)
            strcpy(base, "/");
    }
    char gerr[512] = "";
    r = tm_gpu_create(&cfg, *base ? base : NULL, log, t->json, &t->gpu, gerr, sizeof gerr);
    tm_config_free(&cfg);
    if (!r && o->threads > 1 && tm_gpu_set_threads(t->gpu, o->threads))
        fprintf(log ? log : stderr,
                "ptxemu: timing: cannot start %u host threads; the SMs run on one\n",
                o->threads);
    if (r) {
        if (t->json)
            fclose(t->json);
        free(t->json_path);
        free(t->report_dir);
        free(t->kernels);
        free(t);
        snprintf(err, errlen, "cannot create the simulated GPU%s%s", *gerr ? ": " : "", gerr);
        return r;
    }
    *out = t;
    return 0;
}

void rt_timing_finish(struct rt_timing *t)
{
    if (!t)
        return;
    if (t->json) {
        tm_gpu_close_json(t->gpu);
        fclose(t->json);
        t->json = NULL;
    }
    if (t->report_dir) {
        char err[512];
        if (rt_report_write(t->json_path, t->report_dir, err, sizeof err))
            fprintf(stderr, "ptxemu: --timing-report: %s\n", err);
        free(t->report_dir);
        t->report_dir = NULL;
    }
}

void rt_timing_close(struct rt_timing *t)
{
    if (!t)
        return;
    rt_timing_finish(t); /* closes the JSON array, then the report reads it */
    tm_gpu_destroy(t->gpu);
    free(t->json_path);
    free(t->report_dir);
    free(t->kernels);
    free(t);
}

int rt_timing_launch(struct rt_timing *t, struct interp_dev *d, const struct interp_launch *l,
                     struct interp_stats *st, struct trap *trap)
{
    uint64_t idx = atomic_fetch_add(&t->nlaunch, 1);
    if (t->kernels) {
        struct interp_kernel_info ki;
        interp_kernel_info(l->kernel, &ki);
        if (!rt_timing_kernels_match(t->kernels, ki.name, idx))
            return interp_launch(d, l, st, trap);
    }
    /* kernels of independent streams run together on the simulated GPU */
    return tm_launch(t->gpu, d, l, st, trap, NULL);
}

void rt_timing_h2d(struct rt_timing *t, uint64_t addr, uint64_t n)
{
    tm_gpu_memcpy_h2d(t->gpu, addr, n);
}

void rt_timing_copy(struct rt_timing *t, int kind, uint64_t n)
{
    tm_gpu_copy(t->gpu, (enum tm_copy_kind)kind, n);
}

double rt_timing_ns(struct rt_timing *t)
{
    return tm_gpu_ns(t->gpu);
}

/* Timing options from the environment (PTXEMU_TIMING, PTXEMU_TIMING_SET,
 * PTXEMU_TIMING_STATS, PTXEMU_TIMING_STRICT). */
void rt_timing_env(struct rt_timing_opts *o)
{
    memset(o, 0, sizeof *o);
    const char *v = getenv("PTXEMU_TIMING");
    if (!v || !strcmp(v, "0"))
        return;
    o->on = true;
    o->spec = (!*v || !strcmp(v, "1")) ? NULL : v;
    o->set = getenv("PTXEMU_TIMING_SET");
    o->stats_path = getenv("PTXEMU_TIMING_STATS");
    v = getenv("PTXEMU_TIMING_STRICT");
    o->strict = v && *v && strcmp(v, "0");
    v = getenv("PTXEMU_TIMING_KERNELS");
    o->kernels = v && *v ? v : NULL;
    v = getenv("PTXEMU_TIMING_REPORT");
    o->report_dir = v && *v ? v : NULL;
    v = getenv("PTXEMU_THREADS"); /* --threads: the SMs' host threads */
    o->threads = v && *v ? (unsigned)strtoul(v, NULL, 10) : 0;
}
