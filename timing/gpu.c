/*
 * timing/gpu.c — the simulated GPU: clock domains, the top loop of a kernel, CTA dispatch to
 * SMs, the memory system behind the SM ↔ memory queues (for now GPGPU-Sim's
 * -gpgpu_perfect_mem: every request answered after a fixed latency), statistics.
 */
#include "timing/tm_int.h"

#include "timing/mem.h"
#include "timing/par.h"
#include "timing/relax.h"
#include "timing/sample.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
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
enum { MDEF_MAX = 16, MCHUNK = 4 };

struct tm_gpu {
    struct tm_config cfg;
    FILE *log, *json;
    bool json_open;
    struct tm_sm *sm;
    uint32_t nsm;
    struct tm_mem *mem;         /* NULL: -gpgpu_perfect_mem */
    char *base_dir;             /* where file options are looked up (NULL: cwd) */
    size_t nmst;                /* tm_mem_nstats */
    uint64_t cycle;             /* core cycles since creation (gpu_tot_sim_cycle) */
    _Atomic uint64_t pub_cycle; /* the same, for readers on other threads (tm_gpu_ns) */
    uint64_t dom_cycle[DOM__COUNT];
    double dom_period[DOM__COUNT]; /* ns */
    double dom_next[DOM__COUNT];   /* ns of the domain's next edge */
    double idle_ns;             /* time added by tm_gpu_idle_ns */
    uint64_t tot_insn, tot_warp_insn;
    uint64_t tot_st[TM_ST__COUNT];
    uint64_t uid;
    /* SMs on host threads (par.c, par_cycle): the SMs to visit in a cycle (visit[0 … nvisit),
     * ascending) are claimed one at a time in that order by every thread (next);
     * pdone[j] == pgen when visit[j]'s parallel part is done and pres[SM] holds what its cycle
     * returned (PR_*); thread 0 finishes the SMs in visit order (rnext: the next one) */
    struct tm_pool *pool;       /* NULL: one thread */
    uint32_t nthreads;
    int8_t *pres;
    uint32_t *visit;
    uint32_t nvisit, rnext;
    _Atomic uint32_t next;
    _Atomic uint64_t *pdone;
    uint64_t pgen;
    bool pbusy, poom;           /* what thread 0's finishing found: a busy SM, out of memory */
    bool pstatic;               /* a kernel is profiled: SM i on thread i mod n (par_sms) */
    /* L2 and DRAM clock edges held back (with threads): those after a core cycle's last
     * interconnect edge touch no SM, so they run in the next parallel phase, a chunk of
     * channels per work item, while the SMs' cycles run; anything else that looks at the
     * memory system runs them first (mem_sync) */
    struct { uint8_t dom; uint64_t core_now, l2t; } mdef[MDEF_MAX]; /* l2t: L2 edges' port time */
    uint32_t ndef;
    uint32_t nmchunk;           /* this phase's work items 0 … nmchunk-1: the held-back edges
                                   of MCHUNK channels each (then visit[item - nmchunk]) */
    uint32_t last_sm;           /* CTA dispatch resumes after it */
    bool mem_idle;              /* the memory system is empty and no SM has a request for
                                   it: its clocks are only counted (mem_pend) */
    uint64_t mem_pend[DOM__COUNT]; /* clocks per domain it has not been stepped through */
    uint64_t *act;              /* bit i: SM i may be busy (set when it gets a CTA, cleared
                                   when tm_sm_busy says no): the only SMs the loop visits */
    /* relaxed mode (cfg.relax_q, relax.h): the SMs have run every cycle before rq_t; the
     * loop's cycles run the memory system, and at the last cycle of a quantum the SMs run
     * theirs, [rq_t, cycle + 1), all at once; rbusy: an SM was busy at the end of them */
    struct tm_relax *rx;
    uint64_t *rmask;            /* the SMs a dispatch inside a phase may give a CTA to */
    uint64_t rq_t;
    bool rbusy;
    /* the relaxed and lookahead modes with the memory system overlapped (cfg.relax_ovl): the
     * SMs' queues are split (struct tm_sm: to_net, net_rep, moved by ovl_exchange between
     * windows); netmask: SMs whose to_net may hold requests (the driver's any_to_mem) */
    bool ovl;
    uint64_t *netmask;

    /* Kernels of independent streams run together: each tm_launch caller adds its kernel
     * and waits; one of them at a time drives the cycles (until its own kernel is done). */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool driving;
    struct tm_kernel **run;     /* kernels on the GPU (only the driver touches this list) */
    uint32_t nrun, caprun;
    struct tm_kernel **pend;    /* added by tm_launch, taken by the driver (under mu) */
    uint32_t npend, cappend;
    _Atomic uint32_t pending;
    uint32_t next_kernel;       /* CTA dispatch: kernel to try first */
    bool oom;
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

int tm_gpu_create(const struct tm_config *cfg, const char *base_dir, FILE *log, FILE *json,
                  struct tm_gpu **out, char *err, size_t errlen)
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
    g->act = calloc((g->nsm + 63) / 64, sizeof *g->act);
    if (!g->sm || !g->act) {
        tm_gpu_destroy(g);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < g->nsm; i++)
        if (tm_sm_init(&g->sm[i], i, &g->cfg)) {
            tm_gpu_destroy(g);
            return -ENOMEM;
        }
    if (base_dir && !(g->base_dir = strdup(base_dir))) {
        tm_gpu_destroy(g);
        return -ENOMEM;
    }
    g->ovl = g->cfg.relax_ovl;
    if (g->cfg.relax_q && (tm_relax_create(g->sm, g->nsm, g, &g->rx) ||
                           !(g->rmask = calloc((g->nsm + 63) / 64, sizeof *g->rmask)) ||
                           (g->ovl &&
                            !(g->netmask = calloc((g->nsm + 63) / 64, sizeof *g->netmask))))) {
        tm_gpu_destroy(g);
        return -ENOMEM;
    }
    if (!g->cfg.o.gpgpu_perfect_mem) {
        int r = tm_mem_create(&g->mem, &g->cfg, g->nsm, base_dir, err, errlen);
        if (r) {
            tm_gpu_destroy(g);
            return r;
        }
        g->nmst = tm_mem_nstats(g->mem);
    }
    for (int d = 0; d < DOM__COUNT; d++) {
        g->dom_period[d] = 1000.0 / g->cfg.clock_mhz[d];
        g->dom_next[d] = g->dom_period[d];
    }
    g->last_sm = g->nsm - 1;
    g->nthreads = 1;
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
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
    free(g->act);
    tm_pool_destroy(g->pool);
    tm_relax_destroy(g->rx);
    free(g->rmask);
    free(g->netmask);
    free(g->pres);
    free(g->visit);
    free((void *)g->pdone);
    tm_mem_destroy(g->mem);
    free(g->base_dir);
    if (g->json && g->json_open)
        fputs("\n]\n", g->json);
    tm_config_free(&g->cfg);
    free(g->run);
    free(g->pend);
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
    free(g);
}

void tm_gpu_close_json(struct tm_gpu *g)
{
    pthread_mutex_lock(&g->mu); /* kernels write their statistics under mu */
    if (g->json && g->json_open)
        fputs("\n]\n", g->json);
    else if (g->json)
        fputs("[]\n", g->json);
    if (g->json)
        fflush(g->json);
    g->json = NULL;
    g->json_open = false;
    pthread_mutex_unlock(&g->mu);
}

void tm_gpu_memcpy_h2d(struct tm_gpu *g, uint64_t addr, uint64_t bytes)
{
    if (!g->mem || !g->cfg.o.gpgpu_perf_sim_memcpy)
        return;
    pthread_mutex_lock(&g->mu);
    if (!g->driving)
        tm_mem_memcpy_to_device(g->mem, addr, bytes);
    pthread_mutex_unlock(&g->mu);
}

uint64_t tm_gpu_cycle(const struct tm_gpu *g)
{
    return atomic_load_explicit(&((struct tm_gpu *)g)->pub_cycle, memory_order_relaxed);
}

double tm_gpu_ns(const struct tm_gpu *g)
{
    return (double)tm_gpu_cycle(g) * g->dom_period[DOM_CORE] + g->idle_ns;
}

void tm_gpu_idle_ns(struct tm_gpu *g, double ns)
{
    if (ns > 0)
        g->idle_ns += ns;
}

double tm_gpu_copy(struct tm_gpu *g, enum tm_copy_kind kind, uint64_t bytes)
{
    const struct tm_options *o = &g->cfg.o;
    if (!o->ptxemu_memcpy_timed || !bytes)
        return 0;
    double ns;
    if (kind == TM_COPY_D2D) {
        /* bytes per ns at the DRAM peak: channels x bus bytes x transfers per command clock */
        double peak = (double)o->gpgpu_n_mem * (double)o->gpgpu_dram_buswidth *
                      (double)o->dram_data_command_freq_ratio * g->cfg.clock_mhz[DOM_DRAM] / 1e3;
        ns = peak > 0 ? 2.0 * (double)bytes / peak : 0;
    } else {
        double bw = o->ptxemu_pcie_gbps > 0 ? o->ptxemu_pcie_gbps : 1; /* GB/s = bytes/ns */
        ns = (o->ptxemu_pcie_latency_ns > 0 ? o->ptxemu_pcie_latency_ns : 0) + (double)bytes / bw;
    }
    pthread_mutex_lock(&g->mu);
    g->idle_ns += ns;
    pthread_mutex_unlock(&g->mu);
    return ns;
}

const struct tm_config *tm_gpu_config(const struct tm_gpu *g) { return &g->cfg; }

int tm_gpu_set_threads(struct tm_gpu *g, uint32_t n)
{
    if (!n)
        n = 1;
    if (n > g->nsm)
        n = g->nsm ? g->nsm : 1;
    tm_pool_destroy(g->pool);
    g->pool = NULL;
    g->nthreads = 1;
    int r = 0;
    if (n > 1 && !g->pres &&
        (!(g->pres = calloc(g->nsm, sizeof *g->pres)) ||
         !(g->visit = calloc(g->nsm, sizeof *g->visit)) ||
         !(g->pdone = calloc(g->nsm, sizeof *g->pdone)))) {
        free(g->pres);
        free(g->visit);
        g->pres = NULL;
        g->visit = NULL;
        r = -ENOMEM;
    }
    if (n > 1 && !r) {
        TM_SYNC_VAR(g->pdone, g->nsm * sizeof *g->pdone);
        TM_SYNC_VAR(&g->next, sizeof g->next);
        r = tm_pool_create(n, &g->pool);
    }
    if (!r && n > 1)
        g->nthreads = n;
    for (uint32_t i = 0; i < g->nsm; i++)
        g->sm[i].pset = i % g->nthreads;
    return r;
}

/* %clock / %clock64: the SM's cycle (every SM steps at the GPU's cycle); %globaltimer:
 * simulated nanoseconds; the order of a fault (ENGINE_CLOCK_ORDER): the cycle, then the SM
 * holding the CTA, as the serial loop visits them. ctx: the kernel. */
static uint64_t clock_hook(void *ctx, enum engine_clock_kind kind, uint64_t cta, uint32_t warp)
{
    (void)warp;
    const struct tm_kernel *k = ctx;
    const struct tm_gpu *g = k->g;
    /* (relaxed: the SMs are at cycles of their own, and the loop's cycle may be moving on
     * another thread: the memory system's window) */
    const uint64_t cyc = g->rx && k->cta_sm && cta < k->limit ? g->sm[k->cta_sm[cta]].cycle
                                                             : g->cycle;
    if (kind == ENGINE_CLOCK_CYCLES)
        return cyc;
    if (kind == ENGINE_CLOCK_ORDER)
        return cyc << 16 | (k->cta_sm && cta < k->limit ? k->cta_sm[cta] : 0xffffu);
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
    /* the driver's per-CTA reservation (sm_80+) counts as the CTA's, as the occupancy API
     * counts it */
    k->shmem_per_cta = ki->shared_static + l->shared_dynamic +
                       (uint32_t)(c->o.ptxemu_shmem_reserved_per_cta > 0
                                      ? c->o.ptxemu_shmem_reserved_per_cta
                                      : 0);
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
    if (k->csize > 1 && (uint64_t)k->max_cta_per_sm * g->nsm < k->csize) {
        snprintf(trap->msg, sizeof trap->msg,
                 "timing: a cluster of %u CTAs does not fit the configured GPU (%u SMs x %u "
                 "CTAs of this kernel)",
                 k->csize, g->nsm, k->max_cta_per_sm);
        return -EINVAL;
    }
    return 0;
}

/* ====================================================================== statistics */

static void print_stats(struct tm_gpu *g, const char *name, const struct tm_kernel_result *r,
                        const struct tm_kernel *k, const uint64_t *md)
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
    fprintf(f, "kernel_launch_uid = %llu\n", (unsigned long long)k->uid);
    fprintf(f, "gpu_sim_cycle = %llu\n", (unsigned long long)r->cycles);
    fprintf(f, "gpu_sim_insn = %llu\n", (unsigned long long)r->thread_insns);
    fprintf(f, "gpu_ipc = %12.4f\n", ipc);
    fprintf(f, "gpu_tot_sim_cycle = %llu\n", (unsigned long long)g->cycle);
    fprintf(f, "gpu_tot_sim_insn = %llu\n", (unsigned long long)g->tot_insn);
    fprintf(f, "gpu_tot_ipc = %12.4f\n", tot_ipc);
    fprintf(f, "gpu_occupancy = %.4f%%\n", occ);
    fprintf(f, "gpu_sim_time_ns = %.1f\n", r->ns);
    fprintf(f, "max_cta_per_sm = %u\n", k->max_cta_per_sm);
    if (k->limit < k->nctas)
        fprintf(f, "gpu_sim_cycle_extrapolated = 1 (%llu of %llu CTAs simulated in %llu cycles, "
                   "the rest run functionally; counters are the simulated CTAs')\n",
                (unsigned long long)k->limit, (unsigned long long)k->nctas,
                (unsigned long long)k->sim_cycles);
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
    uint64_t l1a = r->st[TM_ST_L1D_ACCESS];
    if (g->mem && l1a)
        fprintf(f, "L1D_total_cache_miss_rate = %.4f\n",
                (double)r->st[TM_ST_L1D_MISS] / (double)l1a);
    if (g->mem && md) {
        tm_mem_print(g->mem, md, f);
    } else if (!g->mem) {
        fputs("L1D_total_cache = perfect (-gpgpu_perfect_mem)\n", f);
        fputs("L2_total_cache = perfect (-gpgpu_perfect_mem)\n", f);
        fputs("DRAM = perfect (-gpgpu_perfect_mem)\n", f);
    }
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

static void json_kernel(struct tm_gpu *g, const char *name, const struct tm_kernel_result *r,
                        const uint64_t *per, const uint64_t *md, const struct tm_prof *prof)
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
            "\"sim_time_ns\": %.1f, \"max_warps_per_sm\": %u,\n \"totals\": ",
            (unsigned long long)r->uid, (unsigned long long)r->cycles,
            (unsigned long long)r->thread_insns, (unsigned long long)g->cycle,
            (unsigned long long)g->tot_insn, (unsigned long long)r->start_cycle, r->ns,
            (unsigned)g->cfg.max_warps_per_sm);
    json_counters(f, r->st);
    fputs(",\n \"memory\": {", f);
    if (g->mem && md)
        tm_mem_json(g->mem, md, f);
    else
        fputs("\"perfect\": true", f);
    fputs("},\n \"sm\": [", f);
    for (uint32_t i = 0; i < g->nsm && per; i++) {
        fputs(i ? ",\n  " : "\n  ", f);
        json_counters(f, &per[(size_t)i * TM_ST__COUNT]);
    }
    fputc(']', f);
    tm_prof_json(prof, f);
    fputc('}', f);
    fflush(f);
}

/* ====================================================================== a kernel */

/* Core cycles per time-series sample: -ptxemu_timing_sample, else the interval of
 * -gpgpu_runtime_stat (GPGPU-Sim's periodic statistics); 0 without a JSON file. */
static uint64_t sample_interval(const struct tm_gpu *g)
{
    if (!g->json)
        return 0;
    if (g->cfg.o.ptxemu_timing_sample > 0)
        return (uint64_t)g->cfg.o.ptxemu_timing_sample;
    const char *rs = g->cfg.o.gpgpu_runtime_stat;
    if (!rs)
        return 0;
    char *end;
    unsigned long long v = strtoull(rs, &end, 10);
    return end != rs && *rs != '-' ? (uint64_t)v : 0;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void mem_sync(struct tm_gpu *g);

/* Move kernels added by tm_launch into the running list (driver only). */
static int admit(struct tm_gpu *g)
{
    if (!atomic_load_explicit(&g->pending, memory_order_acquire))
        return 0;
    mem_sync(g); /* (a profile attached changes what the L2 counts) */
    pthread_mutex_lock(&g->mu);
    int r = 0;
    if (g->nrun + g->npend > g->caprun) {
        uint32_t nc = (g->nrun + g->npend) * 2;
        struct tm_kernel **p = realloc(g->run, nc * sizeof *p);
        if (!p)
            r = -ENOMEM;
        else
            g->run = p, g->caprun = nc;
    }
    if (!r) {
        for (uint32_t i = 0; i < g->npend; i++) {
            if (g->mem && g->pend[i]->prof) /* its requests carry line ids from now on */
                tm_mem_prof_attach(g->mem, g->pend[i]->prof);
            g->run[g->nrun++] = g->pend[i];
        }
        g->npend = 0;
        atomic_store_explicit(&g->pending, 0, memory_order_release);
    }
    pthread_mutex_unlock(&g->mu);
    return r;
}

/* The cycle an SM gets a CTA at (dispatch_at): an idle SM starts running at `now`; a busy
 * one is at base, or later if it started later in the quantum (its cycle then). */
static inline void sm_at(struct tm_sm *s, uint64_t base, uint64_t now)
{
    if (!tm_sm_busy(s))
        s->cycle = now;
    else if (s->cycle < base)
        s->cycle = base;
}

/* Move k's next CTA (cluster) past those a clusterlaunchcontrol.try_cancel cancelled: they
 * never start (interp/clc.c; a cancel takes the lowest one not started, so they are at the
 * front of what k has left). */
static inline void skip_canceled(struct tm_kernel *k)
{
    const uint32_t C = k->csize > 1 ? k->csize : 1;
    while (k->next_cta < k->limit && engine_cluster_canceled(k->L, k->next_cta / C))
        k->next_cta += C;
}

/* CTA dispatch: each SM in round robin from the one after the last that got a CTA takes at
 * most one CTA per cycle, from the first running kernel (round robin) with CTAs left that
 * fits. The cycle is base + lag with the busy SMs at cycle base (sm_at): lag 0 in the exact
 * mode; the relaxed mode dispatches a quantum's cycles at its start (relax_dispatch), a CTA of
 * cycle base + lag on a busy SM with lag cycles more launch latency. only (NULL: every SM):
 * the SMs that may take a CTA; clusters are not dispatched then (the other SMs may be at later
 * cycles: clusters wait for the next quantum's start). Returns the CTAs (or
 * clusters) placed. (Inlined: the exact mode's call, lag 0 and no mask, costs what dispatch
 * did before the relaxed mode.) */
static inline __attribute__((always_inline)) uint32_t dispatch_at(struct tm_gpu *g, uint64_t base,
                                                                 uint64_t lag, const uint64_t *only)
{
    const uint64_t now = base + lag;
    uint32_t placed = 0;
    bool any = false; /* a kernel with CTAs to dispatch now (else nothing to visit) */
    for (uint32_t j = 0; j < g->nrun; j++) {
        skip_canceled(g->run[j]);
        any |= g->run[j]->next_cta < g->run[j]->limit && now >= g->run[j]->start_cycle;
    }
    if (!any) {
        if (g->nrun)
            g->next_kernel = (g->next_kernel + 1) % g->nrun;
        return 0;
    }
    const uint32_t first = g->last_sm + 1;
    const uint64_t tb_lat = (uint64_t)g->cfg.o.gpgpu_TB_launch_latency;
    for (uint32_t i = 0; i < g->nsm; i++) {
        uint32_t si = (first + i) % g->nsm;
        struct tm_sm *s = &g->sm[si];
        if (only && !(only[si / 64] >> (si % 64) & 1))
            continue;
        for (uint32_t j = 0; j < g->nrun; j++) {
            struct tm_kernel *k = g->run[(g->next_kernel + j) % g->nrun];
            if (k->csize > 1) /* clusters: dispatched whole, below */
                continue;
            if (k->next_cta >= k->limit || now < k->start_cycle || !tm_sm_can_take(s, k))
                continue;
            sm_at(s, base, now);
            int r = tm_sm_start_cta(s, k, k->next_cta,
                                    tb_lat + (now > s->cycle ? now - s->cycle : 0));
            if (r == -EBUSY)
                continue;
            if (r == -ECANCELED) { /* cancelled since skip_canceled: skip it */
                k->next_cta++;
                skip_canceled(k);
                continue;
            }
            if (r) {
                g->oom = true;
                return placed;
            }
            placed++;
            if (k->cta_sm)
                k->cta_sm[k->next_cta] = (uint16_t)si;
            k->next_cta++;
            skip_canceled(k);
            g->last_sm = si;
            g->act[si / 64] |= UINT64_C(1) << (si % 64);
            break;
        }
    }
    /* thread-block clusters: a cluster's CTAs start together (at most one cluster per kernel
     * per cycle), spread over the SMs from the one after the last that got a CTA, as many on
     * one SM as fit; a cluster waits until all of its CTAs fit */
    for (uint32_t j = 0; j < g->nrun; j++) {
        struct tm_kernel *k = g->run[j];
        if (k->csize < 2 || k->next_cta >= k->limit || now < k->start_cycle || only)
            continue;
        uint32_t room_total = 0;
        for (uint32_t i = 0; i < g->nsm && room_total < k->csize; i++)
            room_total += tm_sm_room(&g->sm[(first + i) % g->nsm], k);
        if (room_total < k->csize)
            continue;
        struct engine_cta *ec[32];
        const int cr =
            k->csize > 32 ? -ENOMEM : engine_cluster_create(k->L, k->next_cta / k->csize, ec);
        if (cr == -ECANCELED) { /* cancelled since skip_canceled: skip it */
            k->next_cta += k->csize;
            skip_canceled(k);
            continue;
        }
        if (cr) {
            g->oom = true;
            return placed;
        }
        uint32_t r = 0;
        for (uint32_t i = 0; i < g->nsm && r < k->csize; i++) {
            uint32_t si = (first + i) % g->nsm;
            struct tm_sm *s = &g->sm[si];
            sm_at(s, base, now);
            for (uint32_t room = tm_sm_room(s, k); room && r < k->csize; room--, r++) {
                if (tm_sm_place_cta(s, k, ec[r], tb_lat + (now > s->cycle ? now - s->cycle : 0))) {
                    g->oom = true; /* tm_sm_room said it fits: cannot happen */
                    return placed;
                }
                uint64_t lin = engine_cta_linear(ec[r]);
                if (k->cta_sm && lin < k->limit)
                    k->cta_sm[lin] = (uint16_t)si;
            }
            g->last_sm = si;
            g->act[si / 64] |= UINT64_C(1) << (si % 64);
        }
        k->next_cta += k->csize;
        skip_canceled(k);
        placed++;
    }
    if (g->nrun)
        g->next_kernel = (g->next_kernel + 1) % g->nrun;
    return placed;
}

static void dispatch(struct tm_gpu *g) { (void)dispatch_at(g, g->cycle, 0, NULL); }

/* Relaxed mode: the dispatch of cycles [from, to) to the SMs of only (NULL: all), at from (the
 * SMs' cycle then, or their first one of the phase): each cycle's round, with the room the SMs
 * have at from, until nothing is left to place. */
static void relax_dispatch(struct tm_gpu *g, uint64_t from, uint64_t to, const uint64_t *only)
{
    for (uint64_t lag = 0; from + lag < to; lag++) {
        uint64_t later = UINT64_MAX; /* the first start cycle still ahead */
        bool left = false;
        for (uint32_t j = 0; j < g->nrun; j++) {
            const struct tm_kernel *k = g->run[j];
            if (k->next_cta >= k->limit)
                continue;
            left = true;
            if (k->start_cycle > from + lag && k->start_cycle < later)
                later = k->start_cycle;
        }
        if (!left)
            return;
        uint32_t n = dispatch_at(g, from, lag, only);
        if (g->oom)
            return;
        if (!n) {
            if (later == UINT64_MAX)
                return; /* no room now, and none before the next quantum */
            lag = later - from - 1; /* (the loop's ++: the next kernel's first cycle) */
        }
    }
}

/* CTAs [k->limit, k->nctas) of a sampled kernel, run functionally: each cluster (or CTA) by
 * itself, its warps stepped in turn (at most 256 instructions at a time, so spin-waits on
 * another warp make progress), barriers released as the engine allows. Stops at a fault or a
 * deadlock (the launch's trap). */
static void run_rest(struct tm_kernel *k)
{
    struct engine_step_report r;
    const uint32_t C = k->csize ? k->csize : 1;
    for (uint64_t q = k->limit / C; q < k->nctas / C && !engine_launch_trapped(k->L); q++) {
        struct engine_cta *ec[32];
        const int cr = C > 32 ? -ENOMEM : engine_cluster_create(k->L, q, ec);
        if (cr == -ECANCELED)
            continue; /* cancelled by a try_cancel: never runs */
        if (cr)
            return;
        bool stop = false;
        while (!stop) {
            bool ran = false;
            for (uint32_t c = 0; c < C && !stop; c++)
                for (uint32_t w = 0; w < k->warps && !stop; w++)
                    for (uint32_t n = 0; n < 256; n++) {
                        if (engine_step(ec[c], w, &r))
                            break;
                        ran = true;
                        if (r.flags & ENGINE_STEP_FAULT) {
                            stop = true;
                            break;
                        }
                        if (r.flags & (ENGINE_STEP_BARRIER | ENGINE_STEP_WARP_DONE)) {
                            if (engine_cta_release(ec[c]) < 0)
                                stop = true;
                            break;
                        }
                    }
            if (stop || ran)
                continue;
            /* nothing could step: release what completed, else every warp is done (or a
             * deadlock was reported) */
            bool released = false;
            for (uint32_t c = 0; c < C; c++) {
                int rc = engine_cta_release(ec[c]);
                if (rc < 0)
                    stop = true;
                released |= rc > 0;
            }
            if (!released)
                break;
        }
        for (uint32_t c = 0; c < C; c++)
            engine_cta_destroy(ec[c]);
        if (stop)
            return;
    }
}

#define DEADLOCK_CHECK 65536u   /* cycles between progress checks */
#define DEADLOCK_WINDOW 16u     /* checks without progress that make a deadlock */

/* Something happened since the last look: an instruction issued, a response arrived or a CTA
 * started somewhere. */
static uint64_t progress_mark(const struct tm_gpu *g)
{
    uint64_t v = 0;
    for (uint32_t i = 0; i < g->nsm; i++)
        v += g->sm[i].st[TM_ST_WARP_INSN] + g->sm[i].st[TM_ST_MEM_RESPONSES] +
             g->sm[i].st[TM_ST_CTAS];
    return v;
}

/* Run the L2 and DRAM edges held back, in order (the memory system is then where the serial
 * loop has it). Every reader of the memory system's state other than the SMs' queues calls
 * it first. */
static void mem_sync_range(struct tm_gpu *g, uint32_t c0, uint32_t c1, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (g->mdef[i].dom == DOM_L2)
            tm_mem_l2_cycle_range(g->mem, g->mdef[i].core_now, g->mdef[i].l2t, c0, c1);
        else
            tm_mem_dram_cycle_range(g->mem, g->mdef[i].core_now, c0, c1);
    }
}

static void mem_sync(struct tm_gpu *g)
{
    if (g->ndef)
        mem_sync_range(g, 0, tm_mem_nchannels(g->mem), g->ndef);
    g->ndef = 0;
}

/* Before an interconnect edge: the held-back edges up to the last L2 edge. The interconnect
 * edge and the L2 slices share the sub-partitions' queues to and from the network; DRAM
 * edges touch neither those nor the network (their counters are other ones), so the DRAM
 * edges after the last L2 edge commute with it and stay held back. */
static void mem_sync_l2(struct tm_gpu *g)
{
    uint32_t n = g->ndef;
    while (n && g->mdef[n - 1].dom != DOM_L2)
        n--;
    if (!n)
        return;
    mem_sync_range(g, 0, tm_mem_nchannels(g->mem), n);
    memmove(g->mdef, g->mdef + n, (g->ndef - n) * sizeof *g->mdef);
    g->ndef -= n;
}

/* Step the idle memory system through the clocks it was only counted for, and let it run
 * cycle by cycle again. */
static void mem_flush(struct tm_gpu *g)
{
    mem_sync(g);
    if (g->mem)
        tm_mem_idle_cycles(g->mem, g->mem_pend[DOM_ICNT], g->mem_pend[DOM_DRAM]);
    memset(g->mem_pend, 0, sizeof g->mem_pend);
    g->mem_idle = false;
}

/* Has an SM that may be busy a request for the memory system? (Overlapped: has the memory
 * system's side of the queues one; bits of SMs found without are cleared.) */
static bool any_to_mem(struct tm_gpu *g)
{
    if (g->ovl) {
        for (uint32_t wi = 0; wi < (g->nsm + 63) / 64; wi++)
            for (uint64_t am = g->netmask[wi]; am; am &= am - 1) {
                uint32_t i = wi * 64 + (uint32_t)__builtin_ctzll(am);
                if (g->sm[i].to_net.n)
                    return true;
                g->netmask[wi] &= ~(UINT64_C(1) << (i % 64));
            }
        return false;
    }
    for (uint32_t wi = 0; wi < (g->nsm + 63) / 64; wi++)
        for (uint64_t am = g->act[wi]; am; am &= am - 1)
            if (g->sm[wi * 64 + (uint32_t)__builtin_ctzll(am)].to_mem.n)
                return true;
    return false;
}

/* Overlapped (ovl): has the memory system requests on its side of the queues (to_net), or
 * replies for the SMs that the next window's exchange delivers (net_rep)? Until then the
 * SMs cannot see them, so neither idle skipping nor a jump may pass over them. */
static bool ovl_pending(struct tm_gpu *g)
{
    if (any_to_mem(g))
        return true;
    for (uint32_t i = 0; i < g->nsm; i++)
        if (g->sm[i].net_rep.n)
            return true;
    return false;
}

static int relax_phase(struct tm_gpu *g, uint64_t to, bool overlap);

/* Bring every sleeping SM's counters, and the idle memory system's clocks, up to the current
 * cycle (before they are read); in the relaxed mode the SMs first run the cycles they lag. */
__attribute__((noinline)) static void wake_all(struct tm_gpu *g)
{
    if (g->rx && g->rq_t < g->cycle && relax_phase(g, g->cycle, false) < 0)
        g->oom = true;
    for (uint32_t i = 0; i < g->nsm; i++)
        tm_sm_wake(&g->sm[i], g->cycle);
    mem_flush(g);
}

static int drive_(struct tm_gpu *g, struct tm_kernel *mine);

/* The next edge of the other clock domains (interconnect, L2, DRAM) at or before core time t,
 * earliest first (the lowest domain on a tie): counts it and returns its domain, or -1 when
 * none is due. The serial loop and the idle jump step the domains with it. */
static inline int dom_edge(struct tm_gpu *g, double t)
{
    int dm = -1;
    for (int d = DOM_ICNT; d < DOM__COUNT; d++)
        if (g->dom_next[d] <= t && (dm < 0 || g->dom_next[d] < g->dom_next[dm]))
            dm = d;
    if (dm >= 0) {
        g->dom_cycle[dm]++;
        g->dom_next[dm] += g->dom_period[dm];
    }
    return dm;
}

/* One core cycle of the memory system: the clock domains' edges up to the core edge after
 * cycle g->cycle (which it advances), then the idle check. The loop's cycle, and in the
 * relaxed and lookahead modes the memory system's window (mem_window, on the driver while
 * the pool's threads run the SMs): it touches only the memory system, the clocks and the
 * memory system's side of the SMs' queues then. */
static inline __attribute__((always_inline)) void mem_edges(struct tm_gpu *g)
{
    if (g->mem_idle && any_to_mem(g))
        mem_flush(g); /* requests arrive: the memory system runs again from this cycle */
    uint64_t core_now = g->cycle;
    g->cycle++;
    atomic_store_explicit(&g->pub_cycle, g->cycle, memory_order_relaxed);
    /* the other clock domains follow the core's time: their edges up to this core edge,
     * earliest first (interconnect, L2, DRAM on a tie) */
    const double t = (double)g->cycle * g->dom_period[DOM_CORE];
    for (int dm; (dm = dom_edge(g, t)) >= 0;) {
        if (!g->mem)
            continue;
        if (g->mem_idle) { /* nothing in the memory system: its clocks are counted */
            g->mem_pend[dm]++;
            continue;
        }
        if (dm == DOM_ICNT) {
            mem_sync_l2(g); /* the L2 edges before it (and DRAM edges before those) */
            tm_mem_icnt_cycle(g->mem, g->sm, g->cycle);
        } else if (g->pool && !g->rx && g->ndef < MDEF_MAX) {
            g->mdef[g->ndef].dom = (uint8_t)dm; /* run later (mem_sync), in order */
            g->mdef[g->ndef].l2t = dm == DOM_L2 ? tm_mem_l2_tick(g->mem) : 0;
            g->mdef[g->ndef++].core_now = core_now;
        } else {
            mem_sync(g); /* (the list is full: the ones held back first) */
            if (dm == DOM_L2)
                tm_mem_l2_cycle(g->mem, core_now);
            else
                tm_mem_dram_cycle(g->mem, core_now);
        }
    }
    /* an empty memory system (checked every 8th cycle) idles until an SM sends a request */
    if (g->mem && !g->mem_idle && g->cfg.o.ptxemu_idle_skip && !(g->cycle & 7) &&
        !any_to_mem(g)) {
        mem_sync(g);
        if (!tm_mem_busy(g->mem))
            g->mem_idle = true;
    }
}

/* The memory system's window (relaxed and lookahead modes, tm_relax_set_pre): the loop's
 * next W - 1 cycles of it, on the driver while the pool's other threads run the SMs' window
 * (the loop then runs the window's last cycle with its checks). */
static void mem_window(void *ctx)
{
    struct tm_gpu *g = ctx;
    for (uint32_t i = 1; i < g->cfg.relax_q; i++)
        mem_edges(g);
}

/* Between windows (relaxed and lookahead modes, driver only): the replies the memory system
 * pushed on its side (net_rep) join the SMs' from_mem, the requests the SMs sent (to_mem) join
 * the memory system's to_net, in order; and what each side may count on of the other's queue
 * during the next window: the SM has room for cap - net_held requests, the memory system for
 * cap - rep_held replies (the other side only takes out meanwhile). */
static void ovl_exchange(struct tm_gpu *g)
{
    for (uint32_t i = 0; i < g->nsm; i++) {
        struct tm_sm *s = &g->sm[i];
        const struct tm_req *r;
        while ((r = tm_queue_front(&s->net_rep))) {
            tm_queue_push(&s->from_mem, r);
            tm_queue_pop(&s->net_rep);
        }
        while ((r = tm_queue_front(&s->to_mem))) {
            tm_queue_push(&s->to_net, r);
            tm_queue_pop(&s->to_mem);
        }
        if (s->to_net.n)
            g->netmask[i / 64] |= UINT64_C(1) << (i % 64);
        s->net_held = s->to_net.n;
        s->rep_held = s->from_mem.n;
    }
}

/* ====================================================================== relaxed mode */

/* The SMs' cycles [rq_t, to) (relax.h): dispatch for the phase's first cycle, then the SMs'
 * cycles until they reach `to` or, while CTAs wait to be dispatched, retire one: then, in
 * (cycle, SM) order, dispatch to each SM that stopped from the cycle after it, and on. With
 * `overlap` (a window of exactly W cycles, the memory system having run up to its last
 * one) the driver first runs the memory system's next W - 1 cycles while the pool's other
 * threads start on the SMs (mem_window). -1 when out of memory. */
__attribute__((noinline)) static int relax_phase(struct tm_gpu *g, uint64_t to, bool overlap)
{
    const uint64_t from = g->rq_t;
    if (g->ovl)
        ovl_exchange(g);
    relax_dispatch(g, from, to, NULL);
    if (g->oom)
        return -1;
    if (overlap)
        tm_relax_set_pre(g->rx, mem_window, g);
    bool one = false, fixed = false; /* clusters: one thread; profiles: SM i on thread i mod n */
    for (uint32_t j = 0; j < g->nrun; j++) {
        one |= g->run[j]->csize > 1 || !g->run[j]->cta_sm;
        fixed |= g->run[j]->prof != NULL;
    }
    tm_relax_begin(g->rx, g->act, from, to);
    for (;;) {
        bool left = false; /* CTAs wait: an SM that retires one stops for the dispatch */
        for (uint32_t j = 0; j < g->nrun && !left; j++)
            left = g->run[j]->next_cta < g->run[j]->limit;
        const struct tm_relax_stop *st;
        int ns = tm_relax_run(g->rx, one ? NULL : g->pool, fixed, left, &st);
        if (ns < 0)
            return -1;
        if (!ns)
            break;
        for (int a = 0, b; a < ns; a = b) { /* the SMs that stopped after one cycle */
            for (b = a; b < ns && st[b].cycle == st[a].cycle; b++)
                g->rmask[st[b].sm / 64] |= UINT64_C(1) << (st[b].sm % 64);
            relax_dispatch(g, st[a].cycle + 1, to, g->rmask);
            for (b = a; b < ns && st[b].cycle == st[a].cycle; b++)
                g->rmask[st[b].sm / 64] = 0;
            if (g->oom)
                return -1;
        }
    }
    g->rq_t = to;
    g->rbusy = tm_relax_end(g->rx, g->act) > 0;
    if (g->ovl) /* (what the SMs sent is the memory system's from its next cycle on) */
        ovl_exchange(g);
    return 0;
}

/* The SMs' part of a cycle in the relaxed mode: at the last cycle of a quantum (or later, after
 * the loop jumped), the SMs run every cycle up to this one; *busy: an SM was busy at the end
 * of its last phase. -1 when out of memory. */
__attribute__((noinline)) static int relax_step(struct tm_gpu *g, bool *busy)
{
    if (g->rq_t > g->cycle) /* (cannot happen: the SMs never run ahead of the loop) */
        g->rq_t = g->cycle;
    /* (overlapped: a window of W cycles runs the memory system's next W - 1 cycles too; a
     * longer one, after the loop jumped, runs alone and the loop catches up after it) */
    if (g->cycle + 1 >= g->rq_t + g->cfg.relax_q &&
        relax_phase(g, g->cycle + 1, g->ovl && g->cycle + 1 == g->rq_t + g->cfg.relax_q) < 0)
        return -1;
    *busy = g->rbusy;
    return 0;
}

/* ====================================================================== parallel SMs */

enum { PR_IDLE, PR_BUSY, PR_SUSPENDED, PR_OOM };

/* Claim the next work item of this phase: a chunk of memory channels, then the SMs of the
 * visit list in order. Runs a claimed memory chunk (mem_sync_range: the channels share
 * nothing then) and returns true with *j the visit index of a claimed SM, false when none
 * is left. */
static bool par_claim(struct tm_gpu *g, uint32_t *j)
{
    const uint32_t n = g->nmchunk + g->nvisit;
    for (;;) {
        if (atomic_load_explicit(&g->next, memory_order_relaxed) >= n)
            return false;
        uint32_t k = atomic_fetch_add_explicit(&g->next, 1, memory_order_relaxed);
        if (k >= n)
            return false;
        if (k >= g->nmchunk) {
            *j = k - g->nmchunk;
            return true;
        }
        uint32_t nch = tm_mem_nchannels(g->mem), c0 = k * MCHUNK;
        mem_sync_range(g, c0, c0 + MCHUNK < nch ? c0 + MCHUNK : nch, g->ndef);
    }
}

/* The parallel part of visit[j]'s cycle: the cycle up to the first scheduler that may step
 * an instruction with effects outside the SM. Writes only that SM (and its per-PTX-line
 * counters: copy pset) and pres[SM]; then marks it done. */
static void par_part(struct tm_gpu *g, uint32_t j)
{
    uint32_t i = g->visit[j];
    struct tm_sm *s = &g->sm[i];
    if (!tm_sm_busy(s)) {
        tm_sm_wake(s, g->cycle); /* it skipped busy cycles up to this one */
        g->pres[i] = PR_IDLE;
    } else if (tm_sm_asleep(s, g->cycle)) {
        g->pres[i] = PR_BUSY;
    } else {
        s->cycle = g->cycle;
        s->par = true;
        int r = tm_sm_cycle(s, g);
        s->par = false;
        g->pres[i] = r < 0 ? PR_OOM : r ? PR_SUSPENDED : PR_BUSY;
    }
    TM_HAPPENS_BEFORE(&g->pdone[j]);
    atomic_store_explicit(&g->pdone[j], g->pgen, memory_order_release);
}

/* Thread 0, in visit order: the act mask and the rest of a stopped cycle (tm_sm_resume). */
static void par_finish(struct tm_gpu *g, uint32_t j)
{
    uint32_t i = g->visit[j];
    switch (g->pres[i]) {
    case PR_IDLE:
        g->act[i / 64] &= ~(UINT64_C(1) << (i % 64));
        break;
    case PR_SUSPENDED:
        g->pbusy = true;
        if (tm_sm_resume(&g->sm[i], g) < 0)
            g->poom = true;
        break;
    case PR_OOM:
        g->poom = true;
        break;
    default:
        g->pbusy = true;
        break;
    }
}

/* Thread 0: finish the SMs whose parallel parts are done, in order, up to the first that is
 * not (wait: until all are). */
static void par_finish_ready(struct tm_gpu *g, bool wait)
{
    for (uint32_t k = 0; g->rnext < g->nvisit;) {
        if (atomic_load_explicit(&g->pdone[g->rnext], memory_order_acquire) == g->pgen) {
            TM_HAPPENS_AFTER(&g->pdone[g->rnext]);
            par_finish(g, g->rnext++);
            k = 0;
        } else if (wait) {
            tm_pool_pause(k++);
        } else {
            return;
        }
    }
}

/* The phase of a cycle on thread t. Every thread takes SMs in visit order; thread 0 (the
 * driver) after each of its SMs finishes every SM in order whose parallel part is done. So
 * the serial remainder of the stopped cycles (in SM order, as the serial loop runs their
 * steps) follows the claims closely and overlaps the other threads' parallel parts, and
 * thread 0, which runs it, takes fewer SMs: the claims balance the work whatever the mix.
 * The memory system's edges held back (mdef) touch no SM: the threads first run them, a
 * chunk of channels each (par_claim).
 * A profiled kernel's per-PTX-line counters are kept per thread (copy pset = SM mod threads,
 * also written later through the rows an instruction keeps): then (pstatic) SM i runs on
 * thread i mod n only and the remainders wait for the end of the phase (par_cycle), so one
 * thread at a time writes a copy. */
static void par_sms(void *ctx, uint32_t t)
{
    struct tm_gpu *g = ctx;
    uint32_t j;
    if (g->pstatic) {
        if (!t)
            mem_sync(g); /* (the L2 counts into copy 0 of a profile's counters) */
        for (j = 0; j < g->nvisit; j++)
            if (g->visit[j] % g->nthreads == t)
                par_part(g, j);
        return;
    }
    if (t) {
        while (par_claim(g, &j))
            par_part(g, j);
        return;
    }
    while (par_claim(g, &j)) {
        par_part(g, j);
        par_finish_ready(g, false);
    }
    par_finish_ready(g, true);
}

/* Can this cycle's SMs run on the pool? Not with thread-block clusters (their CTAs on
 * different SMs share barriers and shared memory) or a kernel without its CTA → SM map, and
 * not worth two hand-offs with fewer than two work items: awake SMs (asleep ones only count
 * their cycles) and chunks of memory channels with edges held back. Fills the visit list
 * (the SMs that may be busy, ascending) and sets nmchunk. */
static bool par_ok(struct tm_gpu *g)
{
    if (!g->pool)
        return false;
    for (uint32_t j = 0; j < g->nrun; j++)
        if (g->run[j]->csize > 1 || !g->run[j]->cta_sm)
            return false;
    uint32_t n = 0, awake = 0;
    for (uint32_t wi = 0; wi < (g->nsm + 63) / 64; wi++)
        for (uint64_t am = g->act[wi]; am; am &= am - 1) {
            uint32_t i = wi * 64 + (uint32_t)__builtin_ctzll(am);
            const struct tm_sm *s = &g->sm[i];
            g->visit[n++] = i;
            awake += tm_sm_busy(s) && !tm_sm_asleep(s, g->cycle);
        }
    g->nvisit = n;
    g->pstatic = false;
    for (uint32_t j = 0; j < g->nrun; j++)
        if (g->run[j]->prof)
            g->pstatic = true;
    g->nmchunk = 0;
    if (g->ndef && !g->pstatic && !tm_mem_profiled(g->mem) &&
        !tm_mem_ranges_coupled(g->mem))
        g->nmchunk = (tm_mem_nchannels(g->mem) + MCHUNK - 1) / MCHUNK;
    return awake + g->nmchunk >= 2;
}

/* One cycle of every SM that may be busy, on the pool (par_sms): every SM's cycle up to its
 * first step with effects outside it, in parallel; then, in SM order on thread 0, the act
 * mask and the rest of each stopped cycle (tm_sm_resume), so every step with effects outside
 * its SM runs in the order of the serial loop: (cycle, SM, issue). Steps of the parallel
 * parts touch only their CTA (tm_insn_shared), so running them earlier, or while thread 0
 * runs an earlier SM's remainder, changes nothing another SM sees. -1 when out of memory. */
static int par_cycle(struct tm_gpu *g, bool *busy)
{
    g->pgen++;
    g->rnext = 0;
    g->pbusy = g->poom = false;
    atomic_store_explicit(&g->next, 0, memory_order_relaxed);
    tm_pool_run(g->pool, par_sms, g); /* (publishes the above) */
    if (g->nmchunk)
        g->ndef = 0; /* (every chunk ran them) */
    par_finish_ready(g, true); /* (pstatic: all; else none left) */
    if (g->pbusy)
        *busy = true;
    return g->poom ? -1 : 0;
}

/* Every SM that may be busy is asleep and the memory system is idle: no cycle before the
 * earliest SM's wake-up (or a kernel's first dispatch, or the deadlock check `limit`) changes
 * anything but per-cycle counters. Jump there: the clock domains' edges are advanced one by
 * one as the loop would (the same floating-point sums), the idle memory system's clocks in
 * bulk; the sleeping SMs add their counters when they wake. */
static void fast_forward(struct tm_gpu *g, uint64_t limit)
{
    uint64_t until = limit;
    for (uint32_t j = 0; j < g->nrun; j++) {
        const struct tm_kernel *k = g->run[j];
        if (k->next_cta < k->limit) {
            if (k->start_cycle <= g->cycle)
                return; /* CTAs may be dispatched any cycle */
            if (k->start_cycle < until)
                until = k->start_cycle;
        }
    }
    if (atomic_load_explicit(&g->pending, memory_order_acquire) || (g->ovl && ovl_pending(g)))
        return; /* (overlapped: requests or replies wait on the memory system's side) */
    bool sleeper = false; /* (the launch may have just ended: then nothing waits) */
    for (uint32_t wi = 0; wi < (g->nsm + 63) / 64; wi++)
        for (uint64_t am = g->act[wi]; am; am &= am - 1) {
            const struct tm_sm *s = &g->sm[wi * 64 + (uint32_t)__builtin_ctzll(am)];
            if (s->to_mem.n || (!tm_sm_asleep(s, g->cycle) && tm_sm_busy(s)))
                return;
            if (tm_sm_busy(s)) {
                sleeper = true;
                if (s->sleep_until < until)
                    until = s->sleep_until;
            }
        }
    /* (edges held back: the memory system was busy at the last one; rather than run them
     * here, serially, wait for the idle check, which runs them and may find it idle) */
    if (!sleeper || until <= g->cycle || g->ndef ||
        (g->mem && !g->mem_idle && tm_mem_busy(g->mem)))
        return;
    while (g->cycle < until) {
        g->cycle++;
        const double t = (double)g->cycle * g->dom_period[DOM_CORE];
        for (int dm; (dm = dom_edge(g, t)) >= 0;)
            g->mem_pend[dm]++;
    }
    g->mem_idle = g->mem != NULL;
    atomic_store_explicit(&g->pub_cycle, g->cycle, memory_order_relaxed);
}

/* Run cycles until kernel `mine` is done. 0, -ENOMEM, or -EDEADLK (with
 * -gpgpu_deadlock_detect: nothing issued, answered or dispatched for
 * DEADLOCK_CHECK × DEADLOCK_WINDOW cycles while kernels wait: a timing-model deadlock).
 * Quiet SMs sleep inside; none is asleep when it returns. */
static int drive(struct tm_gpu *g, struct tm_kernel *mine)
{
    int r = drive_(g, mine);
    wake_all(g);
    return r;
}

static int drive_(struct tm_gpu *g, struct tm_kernel *mine)
{
    for (uint32_t i = 0; i < g->nsm; i++) /* the first cycle looks at every SM */
        g->act[i / 64] |= UINT64_C(1) << (i % 64);
    uint64_t last_mark = progress_mark(g), next_check = g->cycle + DEADLOCK_CHECK;
    uint32_t idle_checks = 0;
    while (!mine->done) {
        if (g->cycle >= next_check && g->cfg.o.gpgpu_deadlock_detect) {
            next_check = g->cycle + DEADLOCK_CHECK;
            uint64_t mk = progress_mark(g);
            idle_checks = mk == last_mark ? idle_checks + 1 : 0;
            last_mark = mk;
            if (idle_checks >= DEADLOCK_WINDOW)
                return -EDEADLK;
        }
        if (admit(g))
            return -ENOMEM;
        /* launches that faulted stop their warps; they drain and retire */
        for (uint32_t j = 0; j < g->nrun; j++) {
            struct tm_kernel *k = g->run[j];
            if (!k->faulted && engine_launch_trapped(k->L)) {
                k->faulted = true;
                k->next_cta = k->nctas;
                for (uint32_t i = 0; i < g->nsm; i++) {
                    tm_sm_wake(&g->sm[i], g->cycle);
                    tm_sm_stop_kernel(&g->sm[i], k);
                }
            }
        }
        bool busy = false;
        if (__builtin_expect(g->rx != NULL, 0)) { /* (the relaxed mode) */
            if (relax_step(g, &busy))
                return -ENOMEM;
        } else if (dispatch(g), g->oom) {
            return -ENOMEM;
        } else if (par_ok(g)) {
            if (par_cycle(g, &busy))
                return -ENOMEM;
        } else {
            for (uint32_t wi = 0; wi < (g->nsm + 63) / 64; wi++)
                for (uint64_t am = g->act[wi]; am; am &= am - 1) {
                    uint32_t i = wi * 64 + (uint32_t)__builtin_ctzll(am);
                    struct tm_sm *s = &g->sm[i];
                    if (!tm_sm_busy(s)) {
                        tm_sm_wake(s, g->cycle); /* it skipped busy cycles up to this one */
                        g->act[wi] &= ~(UINT64_C(1) << (i % 64));
                        continue;
                    }
                    busy = true;
                    if (tm_sm_asleep(s, g->cycle))
                        continue;
                    s->cycle = g->cycle;
                    if (tm_sm_cycle(s, g) < 0)
                        return -ENOMEM;
                }
        }
        if (!g->mem) {
            for (uint32_t i = 0; i < g->nsm; i++)
                if (g->sm[i].to_mem.n)
                    perfect_mem_cycle(g, &g->sm[i]);
        }
        mem_edges(g);
        if (g->mem && !busy && !g->mem_idle) {
            mem_sync(g);
            busy = tm_mem_busy(g->mem) || (g->ovl && ovl_pending(g));
        }
        /* kernels whose CTAs all retired are done */
        bool waiting = false;
        uint64_t next_start = UINT64_MAX;
        for (uint32_t j = 0; j < g->nrun;) {
            struct tm_kernel *k = g->run[j];
            if (k->prof && g->cycle >= k->prof->next) {
                mem_sync(g);
                tm_prof_sample(k->prof, g->sm, g->mem, g->cycle, 0);
            }
            if (k->next_cta >= k->limit && !k->live_ctas) {
                /* -gpgpu_flush_l2_cache 1 and no other kernel running: the L2 writes its
                 * dirty data back and empties; the kernel ends once the write-backs are
                 * written to DRAM */
                if (g->mem && g->cfg.o.gpgpu_flush_l2_cache && g->nrun == 1) {
                    mem_sync(g); /* (the L2 and DRAM edges held back first) */
                    if (!k->l2_flushed) {
                        k->l2_flushed = true;
                        tm_mem_l2_flush(g->mem);
                        if (g->mem_idle)
                            mem_flush(g);
                    }
                    if (tm_mem_l2_flush_busy(g->mem)) {
                        busy = true;
                        j++;
                        continue;
                    }
                }
                /* (relaxed: the SMs ran the quantum ahead of the loop's cycle; the kernel
                 * ends the cycle after its last CTA retired, as in the exact mode) */
                const uint64_t end = g->rx && !k->l2_flushed && k->t_end ? k->t_end : g->cycle;
                k->end_cycle = end;
                wake_all(g); /* its counters are read now */
                tm_prof_sample(k->prof, g->sm, g->mem, g->cycle, 1);
                if (k->limit < k->nctas && !k->faulted) {
                    /* sampled: the rest of the grid functionally, its time extrapolated (the
                     * GPU's clock then reads the extrapolated end) */
                    k->sim_cycles = end - k->start;
                    run_rest(k);
                    /* the rest at the rate CTAs retired after the first wave (the steady
                     * state); with one wave simulated, that wave's rate */
                    uint64_t ext = k->sim_cycles * k->nctas / k->limit;
                    if (k->t_wave > k->start && k->limit > k->wave && end > k->t_wave) {
                        double rate = (double)(k->limit - k->wave) / (double)(end - k->t_wave);
                        ext = k->sim_cycles + (uint64_t)((double)(k->nctas - k->limit) / rate + 0.5);
                    }
                    k->end_cycle = k->start + ext;
                    pthread_mutex_lock(&g->mu);
                    g->idle_ns += (double)(ext - k->sim_cycles) * g->dom_period[DOM_CORE];
                    pthread_mutex_unlock(&g->mu);
                }
                tm_mem_prof_detach(g->mem, k->prof); /* its launcher frees the profile */
                pthread_mutex_lock(&g->mu);
                k->done = true;
                pthread_cond_broadcast(&g->cv);
                pthread_mutex_unlock(&g->mu);
                g->run[j] = g->run[--g->nrun];
                continue;
            }
            if (k->next_cta < k->limit) {
                waiting = true;
                if (k->start_cycle < next_start)
                    next_start = k->start_cycle;
            }
            j++;
        }
        /* nothing to simulate until a launch latency ends: jump there */
        if (!busy && waiting && next_start > g->cycle && next_start != UINT64_MAX) {
            /* (the memory system is empty: the edges of the jump are only counted, not run
             * one by one in the next cycle) */
            if (g->mem && !g->mem_idle && g->cfg.o.ptxemu_idle_skip && !any_to_mem(g))
                g->mem_idle = true;
            g->cycle = next_start;
            atomic_store_explicit(&g->pub_cycle, g->cycle, memory_order_relaxed);
        }
        if (busy && !mine->done && g->cfg.o.ptxemu_idle_skip)
            fast_forward(g, next_check);
    }
    return 0;
}

int tm_launch(struct tm_gpu *g, struct interp_dev *d, const struct interp_launch *l,
              struct interp_stats *st, struct trap *trap, struct tm_kernel_result *res)
{
    double t0 = now_s();
    struct engine_launch *L;
    int r = engine_launch_begin(d, l, trap, &L);
    if (r)
        return r;
    struct interp_kernel_info info;
    interp_kernel_info(l->kernel, &info);
    struct tm_kernel *k = calloc(1, sizeof *k);
    if (k)
        k->st0 = malloc((size_t)g->nsm * TM_ST__COUNT * sizeof *k->st0);
    if (!k || !k->st0) {
        if (k)
            free(k->st0);
        free(k);
        engine_launch_end(L, NULL);
        snprintf(trap->msg, sizeof trap->msg, "timing: out of memory");
        return -ENOMEM;
    }
    k->L = L;
    k->g = g;
    engine_launch_set_clock(L, clock_hook, k);
    k->dmem = interp_dev_mem(d);
    k->info = &info;
    k->nctas = engine_launch_ctas(L);
    k->csize = engine_launch_cluster_size(L);
    r = kernel_setup(g, k, l, trap);
    k->limit = k->nctas;
    k->wave = (uint64_t)g->nsm * k->max_cta_per_sm;
    if (!r && g->cfg.o.ptxemu_timing_waves > 0) {
        uint64_t wave = k->wave;
        uint64_t lim = (uint64_t)g->cfg.o.ptxemu_timing_waves * wave;
        lim = (lim + k->csize - 1) / k->csize * k->csize; /* whole clusters */
        if (lim < k->nctas)
            k->limit = lim;
    }
    /* SMs on several threads: the SM of each CTA, the order of a fault (clock_hook); a grid
     * too large for the map runs its cycles on one thread (par_ok) */
    if (!r && (g->pool || g->rx) && k->limit <= (UINT64_C(1) << 26))
        k->cta_sm = calloc(k->limit ? k->limit : 1, sizeof *k->cta_sm);
    if (r) {
        free(k->st0);
        free(k);
        engine_launch_end(L, NULL);
        return r;
    }

    /* join the GPU: counters and clocks start now */
    pthread_mutex_lock(&g->mu);
    if (g->npend == g->cappend) {
        uint32_t nc = g->cappend ? g->cappend * 2 : 8;
        struct tm_kernel **p = realloc(g->pend, nc * sizeof *p);
        if (!p) {
            pthread_mutex_unlock(&g->mu);
            free(k->cta_sm);
            free(k->st0);
            free(k);
            engine_launch_end(L, NULL);
            snprintf(trap->msg, sizeof trap->msg, "timing: out of memory");
            return -ENOMEM;
        }
        g->pend = p;
        g->cappend = nc;
    }
    k->uid = ++g->uid;
    k->start = g->cycle;
    k->start_ns = (double)g->cycle * g->dom_period[DOM_CORE] + g->idle_ns;
    k->start_cycle = g->cycle + (uint64_t)g->cfg.o.gpgpu_kernel_launch_latency;
    for (uint32_t i = 0; i < g->nsm; i++)
        memcpy(&k->st0[(size_t)i * TM_ST__COUNT], g->sm[i].st, sizeof g->sm[i].st);
    if (g->mem) {
        k->mst0 = malloc(g->nmst * sizeof *k->mst0);
        if (k->mst0)
            tm_mem_snapshot(g->mem, k->mst0);
    }
    if (g->json) /* statistics requested: the time series and per-instruction counters */
        k->prof = tm_prof_create(info.module, sample_interval(g), 1, g->nthreads, k->start,
                                 g->sm, g->nsm, g->mem);
    g->pend[g->npend++] = k;
    atomic_store_explicit(&g->pending, 1, memory_order_release);
    pthread_cond_broadcast(&g->cv);
    int dr = 0;
    while (!k->done && !dr) {
        if (g->driving) {
            pthread_cond_wait(&g->cv, &g->mu);
            continue;
        }
        g->driving = true;
        pthread_mutex_unlock(&g->mu);
        dr = drive(g, k);
        pthread_mutex_lock(&g->mu);
        g->driving = false;
        pthread_cond_broadcast(&g->cv);
    }
    pthread_mutex_unlock(&g->mu);
    if (dr) { /* out of memory or a model deadlock: nothing can go on */
        for (uint32_t i = 0; i < g->nsm; i++)
            tm_sm_abort(&g->sm[i]);
        if (g->mem) { /* a fresh memory system (nothing of the abandoned one is in flight) */
            char err[256];
            tm_mem_destroy(g->mem);
            if (tm_mem_create(&g->mem, &g->cfg, g->nsm, g->base_dir, err, sizeof err))
                g->mem = NULL; /* out of memory: perfect memory from now on */
        }
        if (dr == -EDEADLK)
            snprintf(trap->msg, sizeof trap->msg,
                     "timing: the model made no progress for %u cycles at cycle %llu (a "
                     "timing-model deadlock, not the program's: please report it with the "
                     "configuration); the launch is abandoned",
                     DEADLOCK_CHECK * DEADLOCK_WINDOW, (unsigned long long)g->cycle);
        else
            snprintf(trap->msg, sizeof trap->msg, "timing: out of memory");
    }
    int trapped = engine_launch_end(L, st);

    /* this kernel's counters: what every SM did while it ran */
    struct tm_kernel_result kr = {.uid = k->uid, .start_cycle = k->start, .cycles = k->end_cycle - k->start,
                                  .start_ns = k->start_ns};
    kr.ns = (double)kr.cycles * g->dom_period[DOM_CORE];
    uint64_t *per = malloc((size_t)g->nsm * TM_ST__COUNT * sizeof *per);
    for (uint32_t i = 0; i < g->nsm; i++)
        for (int j = 0; j < TM_ST__COUNT; j++) {
            uint64_t v = g->sm[i].st[j] - k->st0[(size_t)i * TM_ST__COUNT + j];
            kr.st[j] += v;
            if (per)
                per[(size_t)i * TM_ST__COUNT + j] = v;
        }
    kr.warp_insns = kr.st[TM_ST_WARP_INSN];
    kr.thread_insns = kr.st[TM_ST_THREAD_INSN];
    kr.host_seconds = now_s() - t0;
    pthread_mutex_lock(&g->mu); /* statistics output: one kernel at a time */
    g->tot_insn += kr.thread_insns;
    g->tot_warp_insn += kr.warp_insns;
    for (int j = 0; j < TM_ST__COUNT; j++)
        g->tot_st[j] += kr.st[j];
    uint64_t *md = NULL;
    if (g->mem && k->mst0 && (md = malloc(g->nmst * sizeof *md))) {
        tm_mem_snapshot(g->mem, md);
        for (size_t j = 0; j < g->nmst; j++)
            md[j] -= k->mst0[j];
    }
    print_stats(g, info.name, &kr, k, md);
    tm_prof_merge(k->prof);
    json_kernel(g, info.name, &kr, per, md, k->prof);
    pthread_mutex_unlock(&g->mu);
    free(md);
    free(per);
    free(k->mst0);
    free(k->cta_sm);
    free(k->st0);
    tm_prof_free(k->prof);
    free(k);
    if (res)
        *res = kr;
    if (trapped)
        return 1;
    return dr ? dr : 0;
}
