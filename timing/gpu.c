/*
 * timing/gpu.c — the simulated GPU: clock domains, the top loop of a kernel, CTA dispatch to
 * SMs, the memory system behind the SM ↔ memory queues (for now GPGPU-Sim's
 * -gpgpu_perfect_mem: every request answered after a fixed latency), statistics.
 */
#include "timing/tm_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const stat_names[TM_ST__COUNT] = {
#define TM_STAT(id, name, help) [TM_ST_##id] = name,
#include "timing/stats.def"
#undef TM_STAT
};

/* Printed name of a counter. */
const char *tm_stat_name(enum tm_stat s)
{
    return (unsigned)s < TM_ST__COUNT ? stat_names[s] : "?";
}

enum { DOM_CORE, DOM_ICNT, DOM_L2, DOM_DRAM, DOM__COUNT };

struct tm_gpu {
    struct tm_config cfg;
    FILE *log, *json;
    bool json_open;
    struct tm_sm *sm;
    uint32_t nsm;
    uint64_t cycle;             /* core cycles since creation (gpu_tot_sim_cycle) */
    uint64_t dom_cycle[DOM__COUNT];
    double dom_period[DOM__COUNT]; /* ns */
    double dom_next[DOM__COUNT];   /* ns of the domain's next edge */
    double idle_ns;             /* time added by tm_gpu_idle_ns */
    uint64_t tot_insn, tot_warp_insn;
    uint64_t tot_st[TM_ST__COUNT];
    uint64_t uid;
    struct tm_sm *stepping;     /* SM whose warp is in engine_step (clock hook) */
    uint32_t last_sm;           /* CTA dispatch resumes after it */
};

/* ====================================================================== configuration copy */

static int config_copy(struct tm_config *dst, const struct tm_config *src)
{
    *dst = *src;
    for (size_t i = 0; i < tm_opt_count; i++) {
        if (tm_opt_table[i].type != TM_STR)
            continue;
        char *s;
        memcpy(&s, (const char *)&src->o + tm_opt_table[i].offset, sizeof s);
        char *d = s ? strdup(s) : NULL;
        if (s && !d) {
            for (size_t j = 0; j < i; j++)
                if (tm_opt_table[j].type == TM_STR) {
                    char *x;
                    memcpy(&x, (char *)&dst->o + tm_opt_table[j].offset, sizeof x);
                    free(x);
                }
            return -ENOMEM;
        }
        memcpy((char *)&dst->o + tm_opt_table[i].offset, &d, sizeof d);
    }
    return 0;
}

/* ====================================================================== create / destroy */

int tm_gpu_create(const struct tm_config *cfg, FILE *log, FILE *json, struct tm_gpu **out)
{
    struct tm_gpu *g = calloc(1, sizeof *g);
    if (!g)
        return -ENOMEM;
    if (config_copy(&g->cfg, cfg)) {
        free(g);
        return -ENOMEM;
    }
    g->log = log;
    g->json = json;
    g->nsm = g->cfg.n_sm;
    g->sm = calloc(g->nsm, sizeof *g->sm);
    if (!g->sm) {
        tm_gpu_destroy(g);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < g->nsm; i++)
        if (tm_sm_init(&g->sm[i], i, &g->cfg)) {
            tm_gpu_destroy(g);
            return -ENOMEM;
        }
    for (int d = 0; d < DOM__COUNT; d++) {
        g->dom_period[d] = 1000.0 / g->cfg.clock_mhz[d];
        g->dom_next[d] = g->dom_period[d];
    }
    g->last_sm = g->nsm - 1;
    *out = g;
    return 0;
}

void tm_gpu_destroy(struct tm_gpu *g)
{
    if (!g)
        return;
    if (g->sm)
        for (uint32_t i = 0; i < g->nsm; i++)
            tm_sm_free(&g->sm[i]);
    free(g->sm);
    if (g->json && g->json_open)
        fputs("\n]\n", g->json);
    tm_config_free(&g->cfg);
    free(g);
}

uint64_t tm_gpu_cycle(const struct tm_gpu *g) { return g->cycle; }

double tm_gpu_ns(const struct tm_gpu *g)
{
    return (double)g->cycle * g->dom_period[DOM_CORE] + g->idle_ns;
}

void tm_gpu_idle_ns(struct tm_gpu *g, double ns)
{
    if (ns > 0)
        g->idle_ns += ns;
}

const struct tm_config *tm_gpu_config(const struct tm_gpu *g) { return &g->cfg; }

void tm_gpu_set_stepping(struct tm_gpu *g, struct tm_sm *s) { g->stepping = s; }

/* %clock / %clock64: the stepping SM's cycle; %globaltimer: simulated nanoseconds. */
static uint64_t clock_hook(void *ctx, enum engine_clock_kind kind, uint64_t cta, uint32_t warp)
{
    (void)cta;
    (void)warp;
    struct tm_gpu *g = ctx;
    uint64_t cyc = g->stepping ? g->stepping->cycle : g->cycle;
    if (kind == ENGINE_CLOCK_CYCLES)
        return cyc;
    return (uint64_t)llround((double)cyc * g->dom_period[DOM_CORE] + g->idle_ns);
}

/* ====================================================================== memory system */

/* -gpgpu_perfect_mem: every request is answered `perfect_mem_latency` core cycles after it
 * was sent. Requests stay in the SM's queue while its response queue is full. */
static void perfect_mem_cycle(struct tm_gpu *g, struct tm_sm *s)
{
    struct tm_req *r;
    while ((r = tm_queue_front(&s->to_mem)) && !tm_queue_full(&s->from_mem)) {
        struct tm_req resp = *r;
        uint64_t t = r->t_sent + g->cfg.perfect_mem_latency;
        resp.t_ready = t > g->cycle + 1 ? t : g->cycle + 1;
        tm_queue_push(&s->from_mem, &resp);
        tm_queue_pop(&s->to_mem);
    }
}

/* ====================================================================== occupancy */

/* The kernel's per-CTA resources and the CTAs one SM can hold; -EINVAL with a message when
 * not even one fits the configured SM. */
static int kernel_setup(struct tm_gpu *g, struct tm_kernel *k, const struct interp_launch *l,
                        struct trap *trap)
{
    const struct tm_config *c = &g->cfg;
    const struct interp_kernel_info *ki = k->info;
    k->threads = engine_launch_threads(k->L);
    k->warps = engine_launch_warps(k->L);
    uint32_t regs = (ki->nregs + 7) & ~7u;
    k->regs_per_cta = regs * k->warps * 32;
    k->shmem_per_cta = ki->shared_static + l->shared_dynamic;
    k->cooperative = l->cooperative;

    uint32_t n = (uint32_t)c->o.gpgpu_shader_cta;
    if (k->warps > c->max_warps_per_sm) {
        snprintf(trap->msg, sizeof trap->msg,
                 "timing: a CTA of %u threads exceeds the configured SM's %u threads",
                 k->threads, c->max_threads_per_sm);
        return -EINVAL;
    }
    if (c->max_warps_per_sm / k->warps < n)
        n = c->max_warps_per_sm / k->warps;
    if (!c->o.gpgpu_ignore_resources_limitation && k->regs_per_cta) {
        if (k->regs_per_cta > (uint64_t)c->o.gpgpu_shader_registers) {
            snprintf(trap->msg, sizeof trap->msg,
                     "timing: a CTA needs %u registers, the configured SM has %lld",
                     k->regs_per_cta, (long long)c->o.gpgpu_shader_registers);
            return -EINVAL;
        }
        uint32_t by = (uint32_t)(c->o.gpgpu_shader_registers / k->regs_per_cta);
        if (by < n)
            n = by;
    }
    /* the shared-memory carve-out: the smallest option that holds what the other limits
     * allow (GPGPU-Sim's adaptive cache configuration), else the fixed size */
    uint64_t sh = (uint64_t)c->o.gpgpu_shmem_size;
    if (c->o.gpgpu_adaptive_cache_config && c->n_shmem_opt) {
        uint64_t need = (uint64_t)k->shmem_per_cta * n;
        sh = (uint64_t)c->shmem_opt[c->n_shmem_opt - 1] * 1024;
        for (uint32_t i = 0; i < c->n_shmem_opt; i++)
            if (need <= (uint64_t)c->shmem_opt[i] * 1024) {
                sh = (uint64_t)c->shmem_opt[i] * 1024;
                break;
            }
    }
    k->shmem_per_sm = (uint32_t)sh;
    if (k->shmem_per_cta && !c->o.gpgpu_ignore_resources_limitation) {
        if (k->shmem_per_cta > sh) {
            snprintf(trap->msg, sizeof trap->msg,
                     "timing: a CTA needs %u bytes of shared memory, the configured SM has "
                     "%llu",
                     k->shmem_per_cta, (unsigned long long)sh);
            return -EINVAL;
        }
        if (sh / k->shmem_per_cta < n)
            n = (uint32_t)(sh / k->shmem_per_cta);
    }
    k->max_cta_per_sm = n ? n : 1;
    return 0;
}

/* ====================================================================== statistics */

static void print_stats(struct tm_gpu *g, const char *name, const struct tm_kernel_result *r,
                        const struct tm_kernel *k)
{
    FILE *f = g->log;
    if (!f)
        return;
    double ipc = r->cycles ? (double)r->thread_insns / (double)r->cycles : 0;
    double tot_ipc = g->cycle ? (double)g->tot_insn / (double)g->cycle : 0;
    uint64_t act = r->st[TM_ST_CYCLES_ACTIVE];
    double occ = act ? 100.0 * (double)r->st[TM_ST_WARP_CYCLES] /
                           ((double)act * g->cfg.max_warps_per_sm)
                     : 0;
    fprintf(f, "kernel_name = %s\n", name);
    fprintf(f, "kernel_launch_uid = %llu\n", (unsigned long long)g->uid);
    fprintf(f, "gpu_sim_cycle = %llu\n", (unsigned long long)r->cycles);
    fprintf(f, "gpu_sim_insn = %llu\n", (unsigned long long)r->thread_insns);
    fprintf(f, "gpu_ipc = %12.4f\n", ipc);
    fprintf(f, "gpu_tot_sim_cycle = %llu\n", (unsigned long long)g->cycle);
    fprintf(f, "gpu_tot_sim_insn = %llu\n", (unsigned long long)g->tot_insn);
    fprintf(f, "gpu_tot_ipc = %12.4f\n", tot_ipc);
    fprintf(f, "gpu_occupancy = %.4f%%\n", occ);
    fprintf(f, "gpu_sim_time_ns = %.1f\n", r->ns);
    fprintf(f, "max_cta_per_sm = %u\n", k->max_cta_per_sm);
    fprintf(f, "gpgpu_simulation_time = %.3f sec\n", r->host_seconds);
    double hs = r->host_seconds > 1e-9 ? r->host_seconds : 1e-9;
    fprintf(f, "gpgpu_simulation_rate = %llu (inst/sec)\n",
            (unsigned long long)((double)r->thread_insns / hs));
    fprintf(f, "gpgpu_simulation_rate = %llu (warp inst/sec)\n",
            (unsigned long long)((double)r->warp_insns / hs));
    fprintf(f, "gpgpu_simulation_rate = %llu (cycle/sec)\n",
            (unsigned long long)((double)r->cycles / hs));
    for (int i = 0; i < TM_ST__COUNT; i++)
        fprintf(f, "%s = %llu\n", stat_names[i], (unsigned long long)r->st[i]);
    fflush(f);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void json_counters(FILE *f, const uint64_t *st)
{
    fputc('{', f);
    for (int i = 0; i < TM_ST__COUNT; i++)
        fprintf(f, "%s\"%s\": %llu", i ? ", " : "", stat_names[i], (unsigned long long)st[i]);
    fputc('}', f);
}

static void json_kernel(struct tm_gpu *g, const char *name, const struct tm_kernel_result *r)
{
    FILE *f = g->json;
    if (!f)
        return;
    fputs(g->json_open ? ",\n" : "[\n", f);
    g->json_open = true;
    fputs("{\"kernel_name\": ", f);
    json_string(f, name);
    fprintf(f,
            ", \"kernel_launch_uid\": %llu, \"gpu_sim_cycle\": %llu, \"gpu_sim_insn\": %llu, "
            "\"gpu_tot_sim_cycle\": %llu, \"gpu_tot_sim_insn\": %llu, \"start_cycle\": %llu, "
            "\"sim_time_ns\": %.1f,\n \"totals\": ",
            (unsigned long long)g->uid, (unsigned long long)r->cycles,
            (unsigned long long)r->thread_insns, (unsigned long long)g->cycle,
            (unsigned long long)g->tot_insn, (unsigned long long)r->start_cycle, r->ns);
    json_counters(f, r->st);
    fputs(",\n \"sm\": [", f);
    for (uint32_t i = 0; i < g->nsm; i++) {
        fputs(i ? ",\n  " : "\n  ", f);
        json_counters(f, g->sm[i].st);
    }
    fputs("]}", f);
    fflush(f);
}

/* ====================================================================== a kernel */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int tm_launch(struct tm_gpu *g, struct interp_dev *d, const struct interp_launch *l,
              struct interp_stats *st, struct trap *trap, struct tm_kernel_result *res)
{
    double t0 = now_s();
    struct engine_launch *L;
    int r = engine_launch_begin(d, l, trap, &L);
    if (r)
        return r;
    engine_launch_set_clock(L, clock_hook, g);
    struct interp_kernel_info info;
    interp_kernel_info(l->kernel, &info);
    struct tm_kernel k = {.L = L, .info = &info};
    r = kernel_setup(g, &k, l, trap);
    if (r) {
        engine_launch_end(L, NULL);
        return r;
    }
    g->uid++;
    uint64_t start = g->cycle;
    double start_ns = tm_gpu_ns(g);
    k.start_cycle = start + (uint64_t)g->cfg.o.gpgpu_kernel_launch_latency;
    for (uint32_t i = 0; i < g->nsm; i++) {
        g->sm[i].k = &k;
        memset(g->sm[i].st, 0, sizeof g->sm[i].st);
    }

    const uint64_t nctas = engine_launch_ctas(L);
    uint64_t next = 0;
    bool fault = false;
    const uint64_t tb_lat = (uint64_t)g->cfg.o.gpgpu_TB_launch_latency;
    for (;;) {
        if (engine_launch_trapped(L)) {
            fault = true;
            break;
        }
        /* CTA dispatch: one CTA per SM per cycle, round robin from the SM after the last */
        if (next < nctas && g->cycle >= k.start_cycle) {
            const uint32_t first = g->last_sm + 1;
            for (uint32_t i = 0; i < g->nsm && next < nctas; i++) {
                uint32_t si = (first + i) % g->nsm;
                struct tm_sm *s = &g->sm[si];
                if (!tm_sm_can_take(s, &k))
                    continue;
                s->cycle = g->cycle;
                r = tm_sm_start_cta(s, next, tb_lat);
                if (r == -EBUSY)
                    continue;
                if (r) {
                    snprintf(trap->msg, sizeof trap->msg, "timing: cannot create CTA %llu",
                             (unsigned long long)next);
                    fault = true;
                    break;
                }
                next++;
                g->last_sm = si;
            }
            if (fault)
                break;
        }
        /* the core clock domain: every SM with work; the memory system after them */
        bool busy = false;
        for (uint32_t i = 0; i < g->nsm; i++) {
            struct tm_sm *s = &g->sm[i];
            if (!tm_sm_busy(s))
                continue;
            busy = true;
            s->cycle = g->cycle;
            if (tm_sm_cycle(s, g) < 0) {
                fault = true;
                break;
            }
        }
        g->stepping = NULL;
        if (fault)
            break;
        for (uint32_t i = 0; i < g->nsm; i++)
            if (g->sm[i].to_mem.n)
                perfect_mem_cycle(g, &g->sm[i]);
        g->cycle++;
        /* the other clock domains follow the core's time (no components in them yet) */
        double t = (double)g->cycle * g->dom_period[DOM_CORE];
        for (int dm = DOM_ICNT; dm < DOM__COUNT; dm++)
            while (g->dom_next[dm] <= t) {
                g->dom_cycle[dm]++;
                g->dom_next[dm] += g->dom_period[dm];
            }
        if (!busy && next >= nctas)
            break;
        if (!busy && g->cycle < k.start_cycle) /* launch latency: nothing to simulate */
            g->cycle = k.start_cycle;
    }
    if (fault || engine_launch_trapped(L))
        for (uint32_t i = 0; i < g->nsm; i++)
            tm_sm_abort(&g->sm[i]);
    int trapped = engine_launch_end(L, st);
    if (fault && !trapped && !trap->msg[0])
        snprintf(trap->msg, sizeof trap->msg, "timing: out of memory");

    struct tm_kernel_result kr = {.start_cycle = start, .cycles = g->cycle - start,
                                  .start_ns = start_ns};
    kr.ns = tm_gpu_ns(g) - start_ns;
    for (uint32_t i = 0; i < g->nsm; i++) {
        for (int j = 0; j < TM_ST__COUNT; j++)
            kr.st[j] += g->sm[i].st[j];
        g->sm[i].k = NULL;
    }
    kr.warp_insns = kr.st[TM_ST_WARP_INSN];
    kr.thread_insns = kr.st[TM_ST_THREAD_INSN];
    g->tot_insn += kr.thread_insns;
    g->tot_warp_insn += kr.warp_insns;
    for (int j = 0; j < TM_ST__COUNT; j++)
        g->tot_st[j] += kr.st[j];
    kr.host_seconds = now_s() - t0;
    print_stats(g, info.name, &kr, &k);
    json_kernel(g, info.name, &kr);
    if (res)
        *res = kr;
    if (trapped)
        return 1;
    return fault ? -ENOMEM : 0;
}
