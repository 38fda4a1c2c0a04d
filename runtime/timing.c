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
    pthread_mutex_init(&t->mu, NULL);
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
    pthread_mutex_destroy(&t->mu);
    free(t);
}

int rt_timing_launch(struct rt_timing *t, struct interp_dev *d, const struct interp_launch *l,
                     struct interp_stats *st, struct trap *trap)
{
    pthread_mutex_lock(&t->mu);
    int r = tm_launch(t->gpu, d, l, st, trap, NULL);
    pthread_mutex_unlock(&t->mu);
    return r;
}

double rt_timing_ns(struct rt_timing *t)
{
    pthread_mutex_lock(&t->mu);
    double ns = tm_gpu_ns(t->gpu);
    pthread_mutex_unlock(&t->mu);
    return ns;
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
