/*
 * runtime/timing.c — timing mode for the runtime and the CLI: the configuration named by
 * --timing[=PRESET|FILE] / PTXEMU_TIMING (with --timing-set NAME=VALUE overrides), the
 * simulated GPU it creates, and the JSON statistics file.
 */
#include "runtime/rt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

int rt_timing_open(const struct rt_timing_opts *o, const char *device_spec, FILE *log,
                   struct rt_timing **out, char *err, size_t errlen)
{
    struct rt_timing *t = calloc(1, sizeof *t);
    if (!t)
        return -ENOMEM;
    struct tm_config cfg;
    char key[64];
    device_key(device_spec, key, sizeof key);
    int r = tm_config_load(&cfg, o->spec, key, o->strict, log ? log : stderr);
    if (r) {
        snprintf(err, errlen, "cannot load the timing configuration '%s'",
                 o->spec && *o->spec ? o->spec : key);
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
        free(t);
        return r;
    }
    if (o->stats_path && *o->stats_path) {
        t->json = fopen(o->stats_path, "w");
        if (!t->json) {
            snprintf(err, errlen, "--timing-stats: cannot write %s: %s", o->stats_path,
                     strerror(errno));
            tm_config_free(&cfg);
            free(t);
            return -EIO;
        }
    }
    r = tm_gpu_create(&cfg, log, t->json, &t->gpu);
    tm_config_free(&cfg);
    if (r) {
        if (t->json)
            fclose(t->json);
        free(t);
        snprintf(err, errlen, "cannot create the simulated GPU");
        return r;
    }
    *out = t;
    return 0;
}

void rt_timing_close(struct rt_timing *t)
{
    if (!t)
        return;
    tm_gpu_destroy(t->gpu);
    if (t->json)
        fclose(t->json);
    free(t);
}

int rt_timing_launch(struct rt_timing *t, struct interp_dev *d, const struct interp_launch *l,
                     struct interp_stats *st, struct trap *trap)
{
    /* kernels of independent streams run together on the simulated GPU */
    return tm_launch(t->gpu, d, l, st, trap, NULL);
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
}
