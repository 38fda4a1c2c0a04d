/*
 * timing/sample.c — per-kernel profiles (issue 23 item 4): the interval time series and the
 * per-instruction counters behind `--timing-stats` JSON's "samples" and "lines" sections and
 * `ptxemu report`. See sample.h for what is counted where.
 */
#include "timing/sample.h"

#include "frontend/frontend.h"
#include "timing/mem.h"
#include "timing/tm_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const pc_names[TM_PC__COUNT] = {
    [TM_PC_ISSUED] = "issued",         [TM_PC_THREAD_INSN] = "thread_insn",
    [TM_PC_STALL_IBUF] = "stall_ibuffer_empty", [TM_PC_STALL_BAR] = "stall_barrier",
    [TM_PC_STALL_MEMBAR] = "stall_membar", [TM_PC_STALL_SB] = "stall_scoreboard",
    [TM_PC_STALL_PIPE] = "stall_pipeline_busy", [TM_PC_MEM_REQ] = "mem_requests",
    [TM_PC_L1D_ACCESS] = "l1d_accesses", [TM_PC_L1D_MISS] = "l1d_misses",
    [TM_PC_L2_ACCESS] = "l2_accesses", [TM_PC_L2_MISS] = "l2_misses",
    [TM_PC_DRAM_RD] = "dram_read_sectors",
};

static const char *const smp_sm_names[TM_SMP_SM__COUNT] = {"thread_insn", "warp_insn",
                                                           "warp_cycles"};
static const char *const smp_names[TM_SMP__COUNT] = {
    "sched_issue", "stall_idle", "stall_ibuffer_empty", "stall_scoreboard",
    "stall_pipeline_busy", "stall_barrier", "stall_membar", "l1d_accesses", "l1d_misses",
    "mem_sectors", "l2_accesses", "l2_misses", "dram_bytes"};
/* the SM counter behind each GPU value (TM_ST__COUNT: from the memory system) */
static const int smp_stat[TM_SMP__COUNT] = {
    TM_ST_ISSUE, TM_ST_STALL_IDLE, TM_ST_STALL_IBUFFER, TM_ST_STALL_SCOREBOARD,
    TM_ST_STALL_PIPE, TM_ST_STALL_BARRIER, TM_ST_STALL_MEMBAR, TM_ST_L1D_ACCESS,
    TM_ST_L1D_MISS, TM_ST_MEM_SECTORS, TM_ST__COUNT, TM_ST__COUNT, TM_ST__COUNT};
static const int smp_sm_stat[TM_SMP_SM__COUNT] = {TM_ST_THREAD_INSN, TM_ST_WARP_INSN,
                                                  TM_ST_WARP_CYCLES};

static void snapshot(struct tm_prof *p, const struct tm_sm *sms, const struct tm_mem *mem)
{
    for (uint32_t i = 0; i < p->nsm; i++)
        memcpy(&p->prev[(size_t)i * TM_ST__COUNT], sms[i].st, sizeof sms[i].st);
    if (p->nmst)
        tm_mem_snapshot(mem, p->mprev);
}

struct tm_prof *tm_prof_create(const struct ir_module *mod, uint64_t interval, int per_pc,
                               uint32_t nsets, uint64_t start, const struct tm_sm *sms,
                               uint32_t nsm, const struct tm_mem *mem)
{
    struct tm_prof *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->interval = interval;
    p->start = p->last = start;
    p->next = interval ? start + interval : UINT64_MAX;
    p->nsm = nsm;
    p->mod = mod;
    p->row = 1 + (size_t)nsm * TM_SMP_SM__COUNT + TM_SMP__COUNT;
    if (interval) {
        p->prev = malloc((size_t)nsm * TM_ST__COUNT * sizeof *p->prev);
        p->nmst = mem ? tm_mem_nstats(mem) : 0;
        if (p->nmst) {
            p->mprev = malloc(p->nmst * sizeof *p->mprev);
            p->mcur = malloc(p->nmst * sizeof *p->mcur);
        }
        if (!p->prev || (p->nmst && (!p->mprev || !p->mcur))) {
            tm_prof_free(p);
            return NULL;
        }
        snapshot(p, sms, mem);
    }
    if (per_pc && mod) {
        p->foff = malloc(((size_t)mod->nfuncs + 1) * sizeof *p->foff);
        if (!p->foff) {
            tm_prof_free(p);
            return NULL;
        }
        size_t n = 0;
        for (uint32_t i = 0; i < mod->nfuncs; i++) {
            p->foff[i] = (uint32_t)n;
            n += mod->funcs[i].ninsns;
        }
        p->foff[mod->nfuncs] = (uint32_t)n;
        p->npc = n;
        p->nsets = nsets ? nsets : 1;
        p->pc = calloc(n ? n * TM_PC__COUNT * p->nsets : 1, sizeof *p->pc);
        if (!p->pc) {
            tm_prof_free(p);
            return NULL;
        }
    }
    return p;
}

void tm_prof_merge(struct tm_prof *p)
{
    if (!p || !p->pc)
        return;
    const size_t n = p->npc * TM_PC__COUNT;
    for (uint32_t k = 1; k < p->nsets; k++) {
        uint64_t *c = &p->pc[k * n];
        for (size_t i = 0; i < n; i++) {
            p->pc[i] += c[i];
            c[i] = 0;
        }
    }
}

void tm_prof_free(struct tm_prof *p)
{
    if (!p)
        return;
    free(p->prev);
    free(p->mprev);
    free(p->mcur);
    free(p->rows);
    free(p->foff);
    free(p->pc);
    free(p);
}

/* Append one sample ending at `end` holding the deltas since the last one (zero when
 * `empty`: a stretch the GPU jumped over). */
static void take(struct tm_prof *p, const struct tm_sm *sms, const struct tm_mem *mem,
                 uint64_t end, int empty)
{
    if (p->nrows == p->caprows) {
        size_t nc = p->caprows ? p->caprows * 2 : 64;
        uint64_t *r = realloc(p->rows, nc * p->row * sizeof *r);
        if (!r) { /* out of memory: the series stops here (the JSON says how far it got) */
            p->next = UINT64_MAX;
            return;
        }
        p->rows = r;
        p->caprows = nc;
    }
    uint64_t *r = &p->rows[p->nrows++ * p->row];
    memset(r, 0, p->row * sizeof *r);
    r[0] = end;
    p->last = end;
    if (empty)
        return;
    uint64_t *g = r + 1 + (size_t)p->nsm * TM_SMP_SM__COUNT;
    for (uint32_t i = 0; i < p->nsm; i++) {
        const uint64_t *cur = sms[i].st, *pr = &p->prev[(size_t)i * TM_ST__COUNT];
        for (int j = 0; j < TM_SMP_SM__COUNT; j++)
            r[1 + (size_t)i * TM_SMP_SM__COUNT + j] = cur[smp_sm_stat[j]] - pr[smp_sm_stat[j]];
        for (int j = 0; j < TM_SMP__COUNT; j++)
            if (smp_stat[j] < TM_ST__COUNT)
                g[j] += cur[smp_stat[j]] - pr[smp_stat[j]];
    }
    if (p->nmst) {
        tm_mem_snapshot(mem, p->mcur);
        for (size_t j = 0; j < p->nmst; j++) {
            uint64_t v = p->mcur[j];
            p->mcur[j] -= p->mprev[j];
            p->mprev[j] = v;
        }
        tm_mem_sample_totals(mem, p->mcur, &g[TM_SMP_L2_ACCESS], &g[TM_SMP_L2_MISS],
                             &g[TM_SMP_DRAM_BYTES]);
    }
    for (uint32_t i = 0; i < p->nsm; i++)
        memcpy(&p->prev[(size_t)i * TM_ST__COUNT], sms[i].st, sizeof sms[i].st);
}

void tm_prof_sample(struct tm_prof *p, const struct tm_sm *sms, const struct tm_mem *mem,
                    uint64_t cycle, int final)
{
    if (!p || !p->interval)
        return;
    int first = 1;
    while (p->next <= cycle) {
        uint64_t b = p->next;
        p->next += p->interval;
        take(p, sms, mem, b, !first);
        first = 0;
    }
    if (final) {
        if (cycle > p->last)
            take(p, sms, mem, cycle, 0);
        p->next = UINT64_MAX;
    }
}

/* ---------------------------------------------------------------- JSON */

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void json_column(FILE *f, const struct tm_prof *p, size_t col)
{
    fputc('[', f);
    for (size_t i = 0; i < p->nrows; i++)
        fprintf(f, "%s%" PRIu64, i ? "," : "", p->rows[i * p->row + col]);
    fputc(']', f);
}

static void json_samples(const struct tm_prof *p, FILE *f)
{
    fprintf(f, ",\n \"samples\": {\"interval\": %" PRIu64 ", \"start\": %" PRIu64
               ", \"count\": %zu, \"end\": ",
            p->interval, p->start, p->nrows);
    json_column(f, p, 0);
    size_t g0 = 1 + (size_t)p->nsm * TM_SMP_SM__COUNT;
    for (int j = 0; j < TM_SMP__COUNT; j++) {
        if (j >= TM_SMP_L2_ACCESS && !p->nmst)
            break; /* perfect memory: no L2 or DRAM */
        fprintf(f, ",\n  \"%s\": ", smp_names[j]);
        json_column(f, p, g0 + (size_t)j);
    }
    fputs(",\n  \"sm\": [", f);
    for (uint32_t i = 0; i < p->nsm; i++) {
        fputs(i ? ",\n   {" : "\n   {", f);
        for (int j = 0; j < TM_SMP_SM__COUNT; j++) {
            fprintf(f, "%s\"%s\": ", j ? ", " : "", smp_sm_names[j]);
            json_column(f, p, 1 + (size_t)i * TM_SMP_SM__COUNT + (size_t)j);
        }
        fputc('}', f);
    }
    fputs("]}", f);
}

/* An instruction with counts, for aggregation by PTX line or by source line. */
struct pcref {
    uint32_t fi, pc;
    uint32_t k1, k2; /* sort key: (PTX line, 0) or (.loc file, .loc line) */
};

static int pcref_cmp(const void *a, const void *b)
{
    const struct pcref *x = a, *y = b;
    if (x->k1 != y->k1)
        return x->k1 < y->k1 ? -1 : 1;
    if (x->k2 != y->k2)
        return x->k2 < y->k2 ? -1 : 1;
    if (x->fi != y->fi)
        return x->fi < y->fi ? -1 : 1;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

static const char *mod_str(const struct ir_module *m, uint32_t id)
{
    return id < m->nstrtab ? m->strtab + id : "";
}

static void json_counts(FILE *f, const uint64_t *c)
{
    for (int j = 0; j < TM_PC__COUNT; j++)
        fprintf(f, ", \"%s\": %" PRIu64, pc_names[j], c[j]);
}

/* "ptx_lines": one row per PTX line with counts (instructions of one line summed), in line
 * order, with the first instruction's text and .loc; "source_lines": per .loc file:line. */
static void json_lines(const struct tm_prof *p, FILE *f)
{
    const struct ir_module *m = p->mod;
    size_t n = 0, tot = p->foff[m->nfuncs];
    for (size_t i = 0; i < tot; i++) {
        const uint64_t *c = &p->pc[i * TM_PC__COUNT];
        for (int j = 0; j < TM_PC__COUNT; j++)
            if (c[j]) {
                n++;
                break;
            }
    }
    struct pcref *v = malloc((n ? n : 1) * sizeof *v);
    fputs(",\n \"ptx_lines\": [", f);
    if (!v) {
        fputs("], \"source_lines\": []", f);
        return;
    }
    n = 0;
    for (uint32_t fi = 0; fi < m->nfuncs; fi++)
        for (uint32_t pc = 0; pc < m->funcs[fi].ninsns; pc++) {
            const uint64_t *c = &p->pc[((size_t)p->foff[fi] + pc) * TM_PC__COUNT];
            for (int j = 0; j < TM_PC__COUNT; j++)
                if (c[j]) {
                    v[n++] = (struct pcref){fi, pc, m->funcs[fi].insns[pc].line, 0};
                    break;
                }
        }
    qsort(v, n, sizeof *v, pcref_cmp);
    char *text = NULL;
    size_t tlen = 0;
    for (size_t i = 0, rows = 0; i < n;) {
        uint64_t sum[TM_PC__COUNT] = {0};
        size_t j = i;
        for (; j < n && v[j].k1 == v[i].k1; j++)
            for (int k = 0; k < TM_PC__COUNT; k++)
                sum[k] += p->pc[((size_t)p->foff[v[j].fi] + v[j].pc) * TM_PC__COUNT + k];
        const struct ir_func *fn = &m->funcs[v[i].fi];
        const struct ir_insn *in = &fn->insns[v[i].pc];
        fputs(rows++ ? ",\n  {" : "\n  {", f);
        fprintf(f, "\"line\": %u, \"func\": ", in->line);
        json_str(f, mod_str(m, fn->name));
        fprintf(f, ", \"pc\": %u, \"text\": ", v[i].pc);
        FILE *ms = open_memstream(&text, &tlen);
        if (ms) {
            ir_print_insn(ms, m, fn, in);
            fclose(ms);
        }
        json_str(f, ms && text ? text : "");
        free(text);
        text = NULL;
        if (in->loc_file && in->loc_file < m->nfiles && in->loc_line) {
            fputs(", \"file\": ", f);
            json_str(f, mod_str(m, m->files[in->loc_file]));
            fprintf(f, ", \"src_line\": %u", in->loc_line);
        }
        json_counts(f, sum);
        fputc('}', f);
        i = j;
    }
    fputs("],\n \"source_lines\": [", f);
    size_t nl = 0;
    for (size_t i = 0; i < n; i++) {
        const struct ir_insn *in = &m->funcs[v[i].fi].insns[v[i].pc];
        if (in->loc_file && in->loc_file < m->nfiles && in->loc_line)
            v[nl++] = (struct pcref){v[i].fi, v[i].pc, in->loc_file, in->loc_line};
    }
    qsort(v, nl, sizeof *v, pcref_cmp);
    for (size_t i = 0, rows = 0; i < nl;) {
        uint64_t sum[TM_PC__COUNT] = {0};
        size_t j = i;
        for (; j < nl && v[j].k1 == v[i].k1 && v[j].k2 == v[i].k2; j++)
            for (int k = 0; k < TM_PC__COUNT; k++)
                sum[k] += p->pc[((size_t)p->foff[v[j].fi] + v[j].pc) * TM_PC__COUNT + k];
        fputs(rows++ ? ",\n  {" : "\n  {", f);
        fputs("\"file\": ", f);
        json_str(f, mod_str(m, m->files[v[i].k1]));
        fprintf(f, ", \"line\": %u, \"instructions\": %zu", v[i].k2, j - i);
        json_counts(f, sum);
        fputc('}', f);
        i = j;
    }
    fputc(']', f);
    free(v);
}

void tm_prof_json(const struct tm_prof *p, FILE *f)
{
    if (!p)
        return;
    if (p->interval)
        json_samples(p, f);
    if (p->foff)
        json_lines(p, f);
}
