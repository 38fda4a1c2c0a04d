/*
 * frontend/load.c — the front-end pipeline (frontend.h): text -> lex/parse/build (build.c)
 * -> predecode -> CFG -> (verify), and the module cache keyed by XXH3 of the text.
 */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "frontend/build.h"
#include "frontend/frontend.h"
#include "frontend/passes.h"

/* Parse, build, predecode and analyse a module (see frontend.h). */
int fe_load(const char *text, size_t len, const char *filename, const struct fe_opts *opts,
            struct ir_module **out)
{
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
    struct ir_module *m = ptx_build(copy, len, fname, &d, &nerr);
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
        int r = ir_predecode(m, d.out);
        if (r < 0)
            d.nerrors += -r;
        if (d.nerrors == 0) {
            r = cfg_build_module(m, d.out);
            if (r < 0)
                d.nerrors += -r;
        }
        bool verify = opts->verify;
#ifdef PTXEMU_DEBUG
        verify = true;
#endif
        if (d.nerrors == 0 && verify) {
            r = ir_verify(m, d.out);
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
