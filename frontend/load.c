/*
 * frontend/load.c — the front-end pipeline (frontend.h): text -> lex/parse/build (build.c)
 * -> predecode -> CFG -> (verify), and the module cache keyed by XXH3 of the text.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>

#include "frontend/build.h"
#include "frontend/frontend.h"
#include "frontend/passes.h"

/* ======================================================================== phase clock */

struct fe_clock {
    struct fe_phase_times *t;
    struct timespec w, c;
};

static double fe_ts_diff(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) * 1e-9;
}

static void fe_clock_start(struct fe_clock *k)
{
    if (!k->t)
        return;
    clock_gettime(CLOCK_MONOTONIC, &k->w);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &k->c);
}

static void fe_clock_stop(struct fe_clock *k, enum fe_phase ph)
{
    if (!k->t)
        return;
    struct timespec w, c;
    clock_gettime(CLOCK_MONOTONIC, &w);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c);
    k->t->wall[ph] += fe_ts_diff(&k->w, &w);
    k->t->cpu[ph] += fe_ts_diff(&k->c, &c);
}

/* ============================================================================= loading */

static int fe_load_impl(const char *text, size_t len, const char *filename,
                        const struct fe_opts *opts, struct ir_module **out,
                        struct fe_phase_times *times);

/* Parse, build, predecode and analyse a module (see frontend.h). */
int fe_load(const char *text, size_t len, const char *filename, const struct fe_opts *opts,
            struct ir_module **out)
{
    return fe_load_impl(text, len, filename, opts, out, NULL);
}

/* fe_load measuring each phase (passes.h). */
int fe_load_timed(const char *text, size_t len, const char *filename,
                  const struct fe_opts *opts, struct ir_module **out, struct fe_phase_times *t)
{
    if (t)
        memset(t, 0, sizeof *t);
    return fe_load_impl(text, len, filename, opts, out, t);
}

/* Lexer alone over a NUL-terminated copy of text (passes.h). */
uint64_t fe_lex_only(const char *text, size_t len)
{
    char *copy = malloc(len + 1);
    if (!copy)
        return 0;
    if (len)
        memcpy(copy, text, len);
    copy[len] = 0;
    struct diag d;
    diag_init(&d, NULL, "<lex>", copy, len, 1);
    struct ptx_lexer lx;
    struct ptx_tok tok;
    uint64_t n = 0;
    ptx_lex_init(&lx, copy, len, &d);
    while (ptx_lex(&lx, &tok) != 0)
        n++;
    diag_finish(&d);
    free(copy);
    return n;
}

static int fe_load_impl(const char *text, size_t len, const char *filename,
                        const struct fe_opts *opts, struct ir_module **out,
                        struct fe_phase_times *times)
{
    struct fe_clock clk = {times, {0, 0}, {0, 0}};
    struct fe_opts def = {0};
    if (!opts)
        opts = &def;
    *out = NULL;
    if (!filename)
        filename = "<input>";
    char *copy = malloc(len + 1);
    char *fname = strdup(filename);
    struct diag d;
    diag_init(&d, opts->diag, filename, copy, len, opts->max_errors);
    if (!copy || !fname) {
        free(copy);
        free(fname);
        diag_report(&d, DIAG_ERROR, SIZE_MAX, "out of memory");
        return -1;
    }
    if (len)
        memcpy(copy, text, len);
    copy[len] = 0;
    int nerr = 0;
    fe_clock_start(&clk);
    struct ir_module *m = ptx_build(copy, len, fname, &d, &nerr);
    fe_clock_stop(&clk, FE_PH_BUILD);
    if (!m) {
        free(copy);
        free(fname);
        diag_finish(&d);
        return nerr ? -nerr : -1;
    }
    m->text = copy;
    m->text_len = len;
    m->filename = fname;
    m->hash = XXH3_64bits(copy, len);
    if (d.nerrors == 0 && !opts->no_cfg) {
        fe_clock_start(&clk);
        int r = ir_predecode(m, d.out);
        fe_clock_stop(&clk, FE_PH_PREDECODE);
        if (r < 0)
            d.nerrors += -r;
        if (d.nerrors == 0) {
            fe_clock_start(&clk);
            r = cfg_build_module(m, d.out);
            fe_clock_stop(&clk, FE_PH_CFG);
            if (r < 0)
                d.nerrors += -r;
        }
        bool verify = opts->verify;
#ifdef PTXEMU_DEBUG
        verify = true;
#endif
        if (d.nerrors == 0 && verify) {
            fe_clock_start(&clk);
            r = ir_verify(m, d.out);
            fe_clock_stop(&clk, FE_PH_VERIFY);
            if (r < 0)
                d.nerrors += -r;
        }
    }
    int n = diag_finish(&d);
    if (n) {
        ir_module_free(m);
        return -n;
    }
    *out = m;
    return 0;
}

/* Read a file and fe_load it. */
int fe_load_file(const char *path, const struct fe_opts *opts, struct ir_module **out)
{
    *out = NULL;
    FILE *diag = opts && opts->diag ? opts->diag : stderr;
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(diag, "%s: error: cannot open file\n", path);
        return -1;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            size_t nc = cap ? cap * 2 : 65536;
            char *nb = realloc(buf, nc);
            if (!nb) {
                free(buf);
                fclose(f);
                fprintf(diag, "%s: error: out of memory\n", path);
                return -1;
            }
            buf = nb;
            cap = nc;
        }
        size_t r = fread(buf + len, 1, cap - len, f);
        len += r;
        if (r == 0)
            break;
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(buf);
        fprintf(diag, "%s: error: read error\n", path);
        return -1;
    }
    int r = fe_load(buf, len, path, opts, out);
    free(buf);
    return r;
}

/* ============================================================================ cache */

struct fe_cache_ent {
    uint64_t hash;
    struct ir_module *m;
};

struct fe_cache {
    struct fe_cache_ent *ents;
    size_t n, cap;
};

/* New empty module cache (NULL when out of memory). */
struct fe_cache *fe_cache_new(void)
{
    return calloc(1, sizeof(struct fe_cache));
}

/* Free a cache and every module it holds. */
void fe_cache_free(struct fe_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++)
        ir_module_free(c->ents[i].m);
    free(c->ents);
    free(c);
}

/* fe_load through the cache: the same text (same XXH3 and same bytes) is loaded once. */
int fe_cache_load(struct fe_cache *c, const char *text, size_t len, const char *filename,
                  const struct fe_opts *opts, const struct ir_module **out)
{
    uint64_t h = XXH3_64bits(text, len);
    *out = NULL;
    for (size_t i = 0; i < c->n; i++) {
        struct ir_module *m = c->ents[i].m;
        if (c->ents[i].hash == h && m->text_len == len && memcmp(m->text, text, len) == 0) {
            *out = m;
            return 0;
        }
    }
    struct ir_module *m = NULL;
    int r = fe_load(text, len, filename, opts, &m);
    if (r < 0)
        return r;
    if (c->n == c->cap) {
        size_t nc = c->cap ? c->cap * 2 : 8;
        struct fe_cache_ent *ne = realloc(c->ents, nc * sizeof *ne);
        if (!ne) {
            ir_module_free(m);
            return -1;
        }
        c->ents = ne;
        c->cap = nc;
    }
    c->ents[c->n++] = (struct fe_cache_ent){h, m};
    *out = m;
    return 0;
}
