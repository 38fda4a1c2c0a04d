/*
 * tests/bench/frontend_bench.c — front-end throughput and module memory.
 *
 *   frontend_bench [-n RUNS] FILE.ptx...
 *
 * For each file (read into memory once) it runs, RUNS times each (default 3; the median is
 * reported):
 *   - fe_load with no_cfg = true: lex + parse + build, as MB/s of PTX text and instructions/s;
 *   - the full fe_load (+ layout/predecode + CFG/post-dominators);
 * and reports the instruction count, the heap bytes a loaded module holds (glibc mallinfo2:
 * bytes in use after the load minus before, with the module alive), per instruction, with and
 * without the module's own copy of the source text, and the growth of the peak RSS.
 * A measurement, never a test: it asserts nothing about time. Exit status 1 when a file does
 * not load. Run with `ninja bench-frontend` (see build.ninja) or by hand.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "frontend/frontend.h"

#define BENCH_MAX_RUNS 99

static double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Heap bytes in use (small blocks + mmap'd blocks). */
static size_t bench_heap_bytes(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

static long bench_maxrss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Read a whole file; NULL (and a message) on error. */
static char *bench_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;
    if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
        goto fail;
    buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
        goto fail;
    fclose(f);
    *len = (size_t)n;
    return buf;
fail:
    perror(path);
    free(buf);
    if (f)
        fclose(f);
    return NULL;
}

static uint64_t bench_count_insns(const struct ir_module *m)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < m->nfuncs; i++)
        n += m->funcs[i].ninsns;
    return n;
}

struct bench_result {
    double t_parse;       /* median seconds, no_cfg */
    double t_full;        /* median seconds, full fe_load */
    uint64_t insns;
    uint32_t funcs;
    size_t heap_parse;    /* heap bytes held by a no_cfg module */
    size_t heap_full;     /* heap bytes held by a full module */
    size_t text_copy;     /* of which the module's copy of the source */
};

/* One timed load; returns the seconds, or a negative value when the load failed. On success
 * *held is the heap growth with the module alive and *mp the module (caller frees). */
static double bench_load_once(const char *text, size_t len, const char *name, bool no_cfg,
                              size_t *held, struct ir_module **mp)
{
    struct fe_opts opts = { .diag = stderr, .no_cfg = no_cfg };
    size_t before = bench_heap_bytes();
    double t0 = bench_now();
    int rc = fe_load(text, len, name, &opts, mp);
    double t = bench_now() - t0;
    if (rc != 0 || !*mp)
        return -1;
    size_t after = bench_heap_bytes();
    *held = after > before ? after - before : 0;
    return t;
}

static int bench_file(const char *path, int runs, struct bench_result *r)
{
    size_t len = 0;
    char *text = bench_read(path, &len);
    if (!text)
        return -1;
    double tp[BENCH_MAX_RUNS], tf[BENCH_MAX_RUNS];
    int err = -1;
    memset(r, 0, sizeof *r);
    for (int i = 0; i < runs; i++) {
        for (int full = 0; full < 2; full++) {
            struct ir_module *m = NULL;
            size_t held = 0;
            double t = bench_load_once(text, len, path, !full, &held, &m);
            if (t < 0) {
                fprintf(stderr, "frontend_bench: %s does not load (%s)\n", path,
                        full ? "full" : "no_cfg");
                goto out;
            }
            (full ? tf : tp)[i] = t;
            if (i == 0) {
                if (full) {
                    r->heap_full = held;
                    r->insns = bench_count_insns(m);
                    r->funcs = m->nfuncs;
                    r->text_copy = m->text ? m->text_len + 1 : 0;
                } else {
                    r->heap_parse = held;
                }
            }
            ir_module_free(m);
        }
    }
    r->t_parse = bench_median(tp, runs);
    r->t_full = bench_median(tf, runs);
    err = 0;
out:
    free(text);
    return err;
}

int main(int argc, char **argv)
{
    int runs = 3, argi = 1, status = 0;
    if (argi + 1 < argc && !strcmp(argv[argi], "-n")) {
        runs = atoi(argv[argi + 1]);
        argi += 2;
    }
    if (argi >= argc || runs < 1 || runs > BENCH_MAX_RUNS) {
        fprintf(stderr, "usage: frontend_bench [-n RUNS(1..%d)] FILE.ptx...\n", BENCH_MAX_RUNS);
        return 2;
    }
    for (; argi < argc; argi++) {
        const char *path = argv[argi];
        long rss0 = bench_maxrss_kb();
        struct bench_result r;
        size_t bytes = 0;
        free(bench_read(path, &bytes)); /* size only; the read itself is not timed */
        if (bench_file(path, runs, &r) != 0) {
            status = 1;
            continue;
        }
        long rss1 = bench_maxrss_kb();
        double mb = (double)bytes / 1e6, n = (double)(r.insns ? r.insns : 1);
        printf("%s: %.2f MB, %llu instructions, %u functions, median of %d runs\n", path, mb,
               (unsigned long long)r.insns, r.funcs, runs);
        printf("  parse+build (no_cfg): %8.3f s  %7.1f MB/s  %6.2f M insns/s\n", r.t_parse,
               mb / r.t_parse, n / r.t_parse / 1e6);
        printf("  full fe_load:         %8.3f s  %7.1f MB/s  %6.2f M insns/s  (predecode+CFG "
               "%.3f s)\n",
               r.t_full, mb / r.t_full, n / r.t_full / 1e6, r.t_full - r.t_parse);
        double heap = (double)r.heap_full, copy = (double)r.text_copy;
        printf("  module heap (full):   %8.1f MB  %6.1f B/insn  (%.1f B/insn without the "
               "%.1f MB source copy)\n",
               heap / 1e6, heap / n, (heap - copy) / n, copy / 1e6);
        printf("  module heap (no_cfg): %8.1f MB  %6.1f B/insn\n", r.heap_parse / 1e6,
               r.heap_parse / n);
        printf("  peak RSS growth:      %8.1f MB\n", (rss1 - rss0) / 1e3);
        fflush(stdout);
    }
    return status;
}
