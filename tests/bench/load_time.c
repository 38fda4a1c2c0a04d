/*
 * tests/bench/load_time.c — CPU time of program loading (interp_program_load), apart from the
 * front end.
 *
 *   load_time [-n RUNS] FILE.ptx...
 *
 * For each file: the front end loads it once (fe_load_file, its CPU time reported), then RUNS
 * times (default 5) the module is loaded onto a fresh one-thread device as a program, every
 * kernel is looked up by name as the CUDA runtime does after loading a fat binary
 * (interp_program_kernel), and the program is unloaded. Reported: the module's size (kernels,
 * functions, instructions, symbols) and, for the load and for the lookups, the median, minimum
 * and maximum CPU time of the process (CLOCK_PROCESS_CPUTIME_ID: loading runs on one thread).
 * One line per file:
 *
 *   FILE: K kernels, F functions, I insns, S symbols; front end 1.234 s; load 0.1234 s
 *   (min 0.1200, max 0.1300); lookups 0.0010 s (min 0.0010, max 0.0011)
 *
 * A measurement, never a test: it asserts nothing about time. Exit status 1 when a file does
 * not load. tests/bench/load_bench.pl (`ninja bench-load`) runs it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "frontend/frontend.h"
#include "frontend/ir.h"
#include "interp/interp.h"

#define LT_MAX_RUNS 99

static double lt_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int lt_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median, minimum and maximum of v[0..n) (sorts v). */
static void lt_stats(double *v, int n, double *med, double *mn, double *mx)
{
    qsort(v, (size_t)n, sizeof *v, lt_cmp);
    *med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    *mn = v[0];
    *mx = v[n - 1];
}

/* Time RUNS loads of one file; 0, or -1 when it does not load. */
static int lt_file(const char *path, int runs)
{
    struct fe_opts opts = {.diag = stderr};
    struct ir_module *m = NULL;
    double t0 = lt_cpu();
    if (fe_load_file(path, &opts, &m) < 0 || !m) {
        fprintf(stderr, "load_time: %s: the front end rejected it\n", path);
        return -1;
    }
    double t_fe = lt_cpu() - t0;
    uint64_t insns = 0;
    unsigned nk = 0;
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        insns += m->funcs[i].ninsns;
        nk += m->funcs[i].is_entry && m->funcs[i].defined;
    }
    double tl[LT_MAX_RUNS], tk[LT_MAX_RUNS];
    int rc = -1;
    for (int r = 0; r < runs; r++) {
        struct interp_config cfg = {.sm = m->target_sm ? m->target_sm : 80, .nsm = 1,
                                    .threads = 1};
        struct interp_dev *d = NULL;
        if (interp_dev_create(&cfg, &d) < 0 || !d) {
            fprintf(stderr, "load_time: cannot create a device\n");
            goto out;
        }
        const struct ir_module *mods[1] = {m};
        struct interp_program *p = NULL;
        t0 = lt_cpu();
        int lr = interp_program_load(d, mods, 1, stderr, &p);
        tl[r] = lt_cpu() - t0;
        if (lr < 0 || !p) {
            fprintf(stderr, "load_time: %s: interp_program_load failed\n", path);
            interp_dev_destroy(d);
            goto out;
        }
        unsigned found = 0;
        t0 = lt_cpu();
        for (uint32_t i = 0; i < m->nfuncs; i++)
            if (m->funcs[i].is_entry && m->funcs[i].defined)
                found += interp_program_kernel(p, ir_str(m, m->funcs[i].name)) != NULL;
        tk[r] = lt_cpu() - t0;
        interp_program_unload(p);
        interp_dev_destroy(d);
        if (found != nk) {
            fprintf(stderr, "load_time: %s: %u of %u kernels found by name\n", path, found, nk);
            goto out;
        }
    }
    double lm, ln, lx, km, kn, kx;
    lt_stats(tl, runs, &lm, &ln, &lx);
    lt_stats(tk, runs, &km, &kn, &kx);
    printf("%s: %u kernels, %u functions, %llu insns, %u symbols; front end %.3f s; "
           "load %.4f s (min %.4f, max %.4f); lookups %.4f s (min %.4f, max %.4f)\n",
           path, nk, m->nfuncs, (unsigned long long)insns, m->nsyms, t_fe, lm, ln, lx, km, kn,
           kx);
    rc = 0;
out:
    ir_module_free(m);
    return rc;
}

int main(int argc, char **argv)
{
    int runs = 5, i = 1, status = 0;
    if (i + 1 < argc && !strcmp(argv[i], "-n")) {
        runs = atoi(argv[i + 1]);
        i += 2;
    }
    if (runs < 1 || runs > LT_MAX_RUNS || i >= argc) {
        fprintf(stderr, "usage: load_time [-n RUNS (1-%d)] FILE.ptx...\n", LT_MAX_RUNS);
        return 2;
    }
    for (; i < argc; i++)
        if (lt_file(argv[i], runs) != 0)
            status = 1;
    return status;
}
