/*
 * tests/bench/frontend_bench.c — front-end throughput and module memory.
 *
 *   frontend_bench [-n RUNS] FILE.ptx...
 *
 * For each file (read into memory once) it runs, RUNS times (default 3; medians reported):
 *   - the lexer alone (fe_lex_only), to split lexing from parsing + building;
 *   - the full fe_load through fe_load_timed (passes.h), which times each phase: lex + parse +
 *     build, layout/predecode, CFG/dominators/post-dominators, and, in one extra run with
 *     opts.verify, the verifier;
 * wall-clock and thread CPU time per phase (CPU time is steadier on a shared machine), and the
 * memory a loaded module holds: heap bytes (glibc mallinfo2, with the module alive) per
 * instruction, with and without the module's copy of the source, and a breakdown computed from
 * the IR itself (instructions, operands, modifiers, tables/labels/register declarations,
 * predecode constants and register reference lists, CFGs), plus the peak RSS growth.
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

#include "frontend/cfg.h"
#include "frontend/frontend.h"
#include "frontend/passes.h"

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

/* Bytes of the IR by part, summed over the functions of a module. */
struct bench_mem {
    size_t insns, opnds, mods, misc, predecode, regrefs, cfg;
    uint64_t nopnds, nregrefs;
};

static void bench_ir_bytes(const struct ir_module *m, struct bench_mem *b)
{
    memset(b, 0, sizeof *b);
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        const struct ir_func *f = &m->funcs[i];
        b->insns += (size_t)f->ninsns * sizeof(struct ir_insn);
        b->opnds += (size_t)f->nopnds * sizeof(struct ir_opnd);
        b->nopnds += f->nopnds;
        b->mods += (size_t)f->nmods * sizeof(uint16_t);
        b->misc += (size_t)f->ntables * sizeof(uint32_t) +
                   (size_t)f->nlabels * sizeof(struct ir_label) +
                   (size_t)f->nregdecls * sizeof(struct ir_regdecl);
        for (unsigned rf = 0; rf < RF__COUNT; rf++)
            b->predecode += (size_t)(f->nslots[rf] - f->ndeclared[rf]) * sizeof(uint64_t);
        b->predecode += (size_t)f->naddr_slots * sizeof(struct ir_addr_slot) +
                        (size_t)f->nsreg_slots * sizeof(struct ir_sreg_slot);
        b->regrefs += (size_t)f->nregrefs * sizeof(struct ir_regref);
        b->nregrefs += f->nregrefs;
        if (f->cfg)
            b->cfg += f->cfg->bytes;
    }
}

struct bench_result {
    double t_lex, wall[FE_PH__COUNT], cpu[FE_PH__COUNT]; /* medians, seconds */
    double t_total_wall, t_total_cpu;                     /* medians of the sums (no verify) */
    uint64_t insns, tokens;
    uint32_t funcs, blocks, edges;
    size_t heap_full;     /* heap bytes held by a full module */
    size_t text_copy;     /* of which the module's copy of the source */
    struct bench_mem mem;
};

/* One timed load; returns 0, or -1 when the load failed. *held is the heap growth with the
 * module alive and *mp the module (caller frees). */
static int bench_load_once(const char *text, size_t len, const char *name, bool verify,
                           struct fe_phase_times *t, size_t *held, struct ir_module **mp)
{
    struct fe_opts opts = {.diag = stderr, .verify = verify};
    size_t before = bench_heap_bytes();
    int rc = fe_load_timed(text, len, name, &opts, mp, t);
    if (rc != 0 || !*mp)
        return -1;
    size_t after = bench_heap_bytes();
    *held = after > before ? after - before : 0;
    return 0;
}

static int bench_file(const char *path, int runs, struct bench_result *r)
{
    size_t len = 0;
    char *text = bench_read(path, &len);
    if (!text)
        return -1;
    double tl[BENCH_MAX_RUNS], tw[FE_PH__COUNT][BENCH_MAX_RUNS], tc[FE_PH__COUNT][BENCH_MAX_RUNS];
    double sw[BENCH_MAX_RUNS], sc[BENCH_MAX_RUNS];
    int err = -1;
    memset(r, 0, sizeof *r);
    for (int i = 0; i < runs; i++) {
        double t0 = bench_now();
        r->tokens = fe_lex_only(text, len);
        tl[i] = bench_now() - t0;
        /* run `runs` is the extra verify run, timed for the verifier only */
        struct ir_module *m = NULL;
        struct fe_phase_times t;
        size_t held = 0;
        if (bench_load_once(text, len, path, false, &t, &held, &m) != 0) {
            fprintf(stderr, "frontend_bench: %s does not load\n", path);
            goto out;
        }
        sw[i] = sc[i] = 0;
        for (int p = 0; p < FE_PH__COUNT; p++) {
            tw[p][i] = t.wall[p];
            tc[p][i] = t.cpu[p];
            sw[i] += t.wall[p];
            sc[i] += t.cpu[p];
        }
        if (i == 0) {
            r->heap_full = held;
            r->insns = bench_count_insns(m);
            r->funcs = m->nfuncs;
            r->text_copy = m->text ? m->text_len + 1 : 0;
            bench_ir_bytes(m, &r->mem);
            for (uint32_t k = 0; k < m->nfuncs; k++)
                if (m->funcs[k].cfg) {
                    r->blocks += m->funcs[k].cfg->nblocks;
                    r->edges += m->funcs[k].cfg->nedges;
                }
        }
        ir_module_free(m);
    }
    for (int p = 0; p < FE_PH__COUNT; p++) {
        r->wall[p] = bench_median(tw[p], runs);
        r->cpu[p] = bench_median(tc[p], runs);
    }
    r->t_total_wall = bench_median(sw, runs);
    r->t_total_cpu = bench_median(sc, runs);
    r->t_lex = bench_median(tl, runs);
    {
        struct ir_module *m = NULL;
        struct fe_phase_times t;
        size_t held = 0;
        if (bench_load_once(text, len, path, true, &t, &held, &m) != 0) {
            fprintf(stderr, "frontend_bench: %s does not verify\n", path);
            goto out;
        }
        r->wall[FE_PH_VERIFY] = t.wall[FE_PH_VERIFY];
        r->cpu[FE_PH_VERIFY] = t.cpu[FE_PH_VERIFY];
        ir_module_free(m);
    }
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
        printf("%s: %.2f MB, %llu instructions, %llu tokens, %u functions, %u blocks, %u edges,"
               " median of %d runs\n",
               path, mb, (unsigned long long)r.insns, (unsigned long long)r.tokens, r.funcs,
               r.blocks, r.edges, runs);
        static const char *const names[FE_PH__COUNT] = {
            "lex+parse+build", "layout+predecode", "CFG+dom+postdom", "verify (extra)"};
        printf("  %-22s %9s %9s %10s\n", "phase", "wall s", "cpu s", "ns/insn");
        printf("  %-22s %9.3f %9s %10.1f   (%.1f MB/s; lexer alone, not in the total)\n",
               "lex only", r.t_lex, "", r.t_lex / n * 1e9, mb / r.t_lex);
        for (int p = 0; p < FE_PH__COUNT; p++)
            printf("  %-22s %9.3f %9.3f %10.1f\n", names[p], r.wall[p], r.cpu[p],
                   r.cpu[p] / n * 1e9);
        printf("  %-22s %9.3f %9.3f %10.1f   (%.2f M insns/s wall)\n", "total fe_load",
               r.t_total_wall, r.t_total_cpu, r.t_total_cpu / n * 1e9, n / r.t_total_wall / 1e6);
        double heap = (double)r.heap_full, copy = (double)r.text_copy;
        printf("  module heap:          %8.1f MB  %6.1f B/insn  (%.1f B/insn without the "
               "%.1f MB source copy)\n",
               heap / 1e6, heap / n, (heap - copy) / n, copy / 1e6);
        const struct bench_mem *b = &r.mem;
        printf("  IR by part, B/insn:   insns %.1f (%zu B each), operands %.1f (%.2f/insn x %zu B),"
               " modifiers %.1f, tables/labels/regdecls %.1f,\n"
               "                        predecode constants %.1f, register refs %.1f "
               "(%.2f/insn x %zu B), CFG %.1f\n",
               b->insns / n, sizeof(struct ir_insn), b->opnds / n, (double)b->nopnds / n,
               sizeof(struct ir_opnd), b->mods / n, b->misc / n, b->predecode / n,
               b->regrefs / n, (double)b->nregrefs / n, sizeof(struct ir_regref), b->cfg / n);
        printf("  peak RSS growth:      %8.1f MB\n", (rss1 - rss0) / 1e3);
        fflush(stdout);
    }
    return status;
}
