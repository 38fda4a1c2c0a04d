/*
 * runtime/report.c — `ptxemu report STATS.json -o DIR` and `--timing-report DIR` (issue 23
 * item 4): reads the statistics file the timing model writes (`--timing-stats`: an array of
 * kernel objects, timing/gpu.c and timing/sample.c) and writes DIR/index.html, one
 * self-contained page (inline CSS and SVG, no scripts, no external resources, well-formed
 * XML so any XML parser reads it): per kernel a summary (cycles, IPC, occupancy, cache hit
 * rates, DRAM bandwidth), line plots over time (IPC and active warps, the aggregate and the
 * first SMs; the issue / stall breakdown stacked; L1D and L2 hits and misses; DRAM
 * bandwidth) and the per-PTX-line and per-source-line tables sorted by stall cycles, with
 * the source text when the .loc file is readable. Power is not modelled (issue 23 item 5).
 *
 * The JSON reader is a small strict parser (RFC 8259 values; numbers as double) with
 * `file:line:col: error:` diagnostics.
 */
#include "runtime/rt.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ====================================================================== JSON */

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jval {
    enum jtype t;
    double num;
    char *str;           /* J_STR */
    struct jval **item;  /* J_ARR, J_OBJ values */
    char **key;          /* J_OBJ */
    size_t n, cap;
};

struct jparse {
    const char *s, *p, *end, *file;
    char *err;
    size_t errlen;
    int depth;
};

static void jfree(struct jval *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n; i++) {
        jfree(v->item[i]);
        if (v->key)
            free(v->key[i]);
    }
    free(v->item);
    free(v->key);
    free(v->str);
    free(v);
}

static struct jval *jerr(struct jparse *j, const char *msg)
{
    if (!*j->err) {
        int line = 1, col = 1;
        for (const char *q = j->s; q < j->p && q < j->end; q++) {
            if (*q == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        snprintf(j->err, j->errlen, "%s:%d:%d: error: %s", j->file, line, col, msg);
    }
    return NULL;
}

static void jws(struct jparse *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static struct jval *jnew(enum jtype t)
{
    struct jval *v = calloc(1, sizeof *v);
    if (v)
        v->t = t;
    return v;
}

static int jpush(struct jval *v, char *key, struct jval *x)
{
    if (v->n == v->cap) {
        size_t nc = v->cap ? v->cap * 2 : 8;
        struct jval **it = realloc(v->item, nc * sizeof *it);
        if (!it)
            return -1;
        v->item = it;
        if (v->t == J_OBJ) {
            char **k = realloc(v->key, nc * sizeof *k);
            if (!k)
                return -1;
            v->key = k;
        }
        v->cap = nc;
    }
    if (v->t == J_OBJ)
        v->key[v->n] = key;
    v->item[v->n++] = x;
    return 0;
}

static char *jstring(struct jparse *j)
{
    j->p++; /* the opening quote */
    size_t cap = 16, n = 0;
    char *o = malloc(cap);
    if (!o)
        return (char *)jerr(j, "out of memory");
    for (;;) {
        if (j->p >= j->end) {
            free(o);
            return (char *)jerr(j, "unterminated string");
        }
        unsigned char c = (unsigned char)*j->p++;
        uint32_t cp = c;
        if (c == '"')
            break;
        if (c < 0x20) {
            free(o);
            j->p--;
            return (char *)jerr(j, "control character in a string");
        }
        if (c == '\\') {
            if (j->p >= j->end) {
                free(o);
                return (char *)jerr(j, "unterminated string");
            }
            char e = *j->p++;
            switch (e) {
            case '"': cp = '"'; break;
            case '\\': cp = '\\'; break;
            case '/': cp = '/'; break;
            case 'b': cp = '\b'; break;
            case 'f': cp = '\f'; break;
            case 'n': cp = '\n'; break;
            case 'r': cp = '\r'; break;
            case 't': cp = '\t'; break;
            case 'u': {
                cp = 0;
                for (int k = 0; k < 4; k++) {
                    char h = j->p < j->end ? *j->p++ : 0;
                    int d = h >= '0' && h <= '9'   ? h - '0'
                            : h >= 'a' && h <= 'f' ? h - 'a' + 10
                            : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                                   : -1;
                    if (d < 0) {
                        free(o);
                        return (char *)jerr(j, "bad \\u escape");
                    }
                    cp = cp * 16 + (uint32_t)d;
                }
                if (cp >= 0xd800 && cp < 0xe000)
                    cp = 0xfffd; /* surrogates: not needed for ptxemu's files */
                break;
            }
            default:
                free(o);
                j->p--;
                return (char *)jerr(j, "bad escape in a string");
            }
        }
        if (n + 5 > cap) {
            cap *= 2;
            char *no = realloc(o, cap);
            if (!no) {
                free(o);
                return (char *)jerr(j, "out of memory");
            }
            o = no;
        }
        if (c == '\\' && cp >= 0x80) { /* UTF-8 of an escaped code point */
            if (cp < 0x800) {
                o[n++] = (char)(0xc0 | cp >> 6);
            } else {
                o[n++] = (char)(0xe0 | cp >> 12);
                o[n++] = (char)(0x80 | (cp >> 6 & 0x3f));
            }
            o[n++] = (char)(0x80 | (cp & 0x3f));
        } else {
            o[n++] = (char)cp;
        }
    }
    o[n] = 0;
    return o;
}

static struct jval *jvalue(struct jparse *j)
{
    jws(j);
    if (j->p >= j->end)
        return jerr(j, "unexpected end of file");
    if (++j->depth > 64)
        return jerr(j, "nesting deeper than 64");
    struct jval *v = NULL;
    char c = *j->p;
    if (c == '{' || c == '[') {
        bool obj = c == '{';
        v = jnew(obj ? J_OBJ : J_ARR);
        if (!v)
            return jerr(j, "out of memory");
        j->p++;
        jws(j);
        if (j->p < j->end && *j->p == (obj ? '}' : ']')) {
            j->p++;
            j->depth--;
            return v;
        }
        for (;;) {
            char *key = NULL;
            if (obj) {
                jws(j);
                if (j->p >= j->end || *j->p != '"') {
                    jfree(v);
                    return jerr(j, "expected a string key");
                }
                if (!(key = jstring(j))) {
                    jfree(v);
                    return NULL;
                }
                jws(j);
                if (j->p >= j->end || *j->p != ':') {
                    free(key);
                    jfree(v);
                    return jerr(j, "expected ':'");
                }
                j->p++;
            }
            struct jval *x = jvalue(j);
            if (!x || jpush(v, key, x)) {
                free(key);
                jfree(x);
                jfree(v);
                return x ? jerr(j, "out of memory") : NULL;
            }
            jws(j);
            if (j->p < j->end && *j->p == ',') {
                j->p++;
                continue;
            }
            if (j->p < j->end && *j->p == (obj ? '}' : ']')) {
                j->p++;
                break;
            }
            jfree(v);
            return jerr(j, obj ? "expected ',' or '}'" : "expected ',' or ']'");
        }
    } else if (c == '"') {
        char *s = jstring(j);
        if (!s)
            return NULL;
        if (!(v = jnew(J_STR))) {
            free(s);
            return jerr(j, "out of memory");
        }
        v->str = s;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        const char *q = j->p;
        if (*q == '-')
            q++;
        if (q >= j->end || *q < '0' || *q > '9')
            return jerr(j, "bad number");
        char buf[64];
        size_t len = 0;
        while (j->p + len < j->end && len < sizeof buf - 1 &&
               strchr("+-0123456789.eE", j->p[len]))
            len++;
        memcpy(buf, j->p, len);
        buf[len] = 0;
        char *e;
        double d = strtod(buf, &e);
        if (e != buf + len)
            return jerr(j, "bad number");
        if (!(v = jnew(J_NUM)))
            return jerr(j, "out of memory");
        v->num = d;
        j->p += len;
    } else {
        static const struct { const char *w; enum jtype t; int b; } lit[] = {
            {"true", J_BOOL, 1}, {"false", J_BOOL, 0}, {"null", J_NULL, 0}};
        for (size_t k = 0; k < 3 && !v; k++) {
            size_t l = strlen(lit[k].w);
            if ((size_t)(j->end - j->p) >= l && !memcmp(j->p, lit[k].w, l)) {
                if (!(v = jnew(lit[k].t)))
                    return jerr(j, "out of memory");
                v->num = lit[k].b;
                j->p += l;
            }
        }
        if (!v)
            return jerr(j, "unexpected character");
    }
    j->depth--;
    return v;
}

static struct jval *jparse_file(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (size_t r; buf && (r = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += r;
        if (n == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    fclose(f);
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    *err = 0;
    struct jparse j = {.s = buf, .p = buf, .end = buf + n, .file = path, .err = err,
                       .errlen = errlen};
    struct jval *v = jvalue(&j);
    if (v) {
        jws(&j);
        if (j.p != j.end) {
            jfree(v);
            v = jerr(&j, "text after the JSON value");
        }
    }
    free(buf);
    return v;
}

static const struct jval *jget(const struct jval *o, const char *key)
{
    if (!o || o->t != J_OBJ)
        return NULL;
    for (size_t i = 0; i < o->n; i++)
        if (!strcmp(o->key[i], key))
            return o->item[i];
    return NULL;
}

static double jnum(const struct jval *o, const char *key)
{
    const struct jval *v = jget(o, key);
    return v && v->t == J_NUM ? v->num : 0;
}

static const char *jstr(const struct jval *o, const char *key)
{
    const struct jval *v = jget(o, key);
    return v && v->t == J_STR ? v->str : NULL;
}

/* Element i of a numeric array (0 when absent). */
static double jat(const struct jval *a, size_t i)
{
    return a && a->t == J_ARR && i < a->n && a->item[i]->t == J_NUM ? a->item[i]->num : 0;
}

/* ====================================================================== HTML */

static void esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\t')
                fputc(*s, f);
        }
    }
}

struct series {
    const char *name;
    const char *color;
    double *y;
};

static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

/* One SVG plot of series over x (n points); stacked: areas of the running sums. */
static void plot(FILE *f, const char *title, const char *ylabel, const double *x, size_t n,
                 const struct series *s, size_t ns, bool stacked)
{
    const double W = 760, H = 240, L = 70, R = 170, T = 28, B = 36;
    double xmax = n ? x[n - 1] : 1, ymax = 0;
    if (xmax <= 0)
        xmax = 1;
    for (size_t i = 0; i < n; i++) {
        double acc = 0;
        for (size_t k = 0; k < ns; k++) {
            double y = s[k].y[i];
            acc = stacked ? acc + y : y;
            if (acc > ymax)
                ymax = acc;
        }
    }
    if (ymax <= 0)
        ymax = 1;
    double pw = W - L - R, ph = H - T - B;
    fprintf(f, "<svg class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
               "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" data-points=\"%zu\">\n",
            W, H, W, H, n);
    fputs("<text x=\"10\" y=\"18\" class=\"title\">", f);
    esc(f, title);
    fputs("</text>\n", f);
    fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" class=\"frame\"/>\n",
            L, T, pw, ph);
    for (int k = 0; k <= 4; k++) { /* y grid and labels */
        double yv = ymax * k / 4, yy = T + ph - ph * k / 4;
        fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" class=\"grid\"/>"
                   "<text x=\"%.0f\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%.4g</text>\n",
                L, yy, L + pw, yy, L - 4, yy + 4, yv);
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" class=\"tick\" text-anchor=\"middle\">0</text>"
               "<text x=\"%.0f\" y=\"%.0f\" class=\"tick\" text-anchor=\"end\">%.0f</text>"
               "<text x=\"%.0f\" y=\"%.0f\" class=\"tick\" text-anchor=\"middle\">cycles since "
               "launch</text>\n",
            L, H - B + 16, L + pw, H - B + 16, xmax, L + pw / 2, H - 6);
    fprintf(f, "<text x=\"14\" y=\"%.0f\" class=\"tick\" transform=\"rotate(-90 14 %.0f)\" "
               "text-anchor=\"middle\">",
            T + ph / 2, T + ph / 2);
    esc(f, ylabel);
    fputs("</text>\n", f);
    double *base = stacked ? calloc(n ? n : 1, sizeof *base) : NULL;
    for (size_t k = 0; k < ns; k++) {
        const char *col = s[k].color ? s[k].color : palette[k % 10];
        if (stacked && base) {
            fprintf(f, "<polygon class=\"series\" fill=\"%s\" fill-opacity=\"0.75\" "
                       "stroke=\"none\" points=\"",
                    col);
            for (size_t i = 0; i < n; i++)
                fprintf(f, "%.1f,%.1f ", L + pw * x[i] / xmax,
                        T + ph - ph * (base[i] + s[k].y[i]) / ymax);
            for (size_t i = n; i-- > 0;)
                fprintf(f, "%.1f,%.1f ", L + pw * x[i] / xmax, T + ph - ph * base[i] / ymax);
            fputs("\"/>\n", f);
            for (size_t i = 0; i < n; i++)
                base[i] += s[k].y[i];
        } else {
            fprintf(f, "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" "
                       "stroke-width=\"%s\" points=\"",
                    col, k ? "1.2" : "2");
            for (size_t i = 0; i < n; i++)
                fprintf(f, "%.1f,%.1f ", L + pw * x[i] / xmax, T + ph - ph * s[k].y[i] / ymax);
            fputs("\"/>\n", f);
        }
        fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                   "<text x=\"%.0f\" y=\"%.0f\" class=\"tick\">",
                L + pw + 10, T + 14.0 * (double)k, col, L + pw + 24, T + 14.0 * (double)k + 9);
        esc(f, s[k].name);
        fputs("</text>\n", f);
    }
    free(base);
    fputs("</svg>\n", f);
}

/* Source files named by .loc, read once (lines split in place). */
struct srcfile {
    char *name;
    char *text;
    char **line;
    size_t nline;
};

struct srccache {
    struct srcfile *f;
    size_t n;
};

static const char *src_line(struct srccache *c, const char *name, double ln)
{
    if (!name || ln < 1)
        return NULL;
    struct srcfile *sf = NULL;
    for (size_t i = 0; i < c->n && !sf; i++)
        if (!strcmp(c->f[i].name, name))
            sf = &c->f[i];
    if (!sf) {
        struct srcfile *nf = realloc(c->f, (c->n + 1) * sizeof *nf);
        if (!nf)
            return NULL;
        c->f = nf;
        sf = &c->f[c->n++];
        memset(sf, 0, sizeof *sf);
        sf->name = strdup(name);
        FILE *in = fopen(name, "rb");
        if (in) {
            size_t cap = 4096, n = 0;
            char *t = malloc(cap + 1);
            for (size_t r; t && n < (64u << 20) && (r = fread(t + n, 1, cap - n, in)) > 0;) {
                n += r;
                if (n == cap) {
                    char *nt = realloc(t, (cap *= 2) + 1);
                    if (!nt) {
                        free(t);
                        t = NULL;
                    }
                    t = nt;
                }
            }
            fclose(in);
            if (t) {
                t[n] = 0;
                size_t nl = 1;
                for (size_t i = 0; i < n; i++)
                    nl += t[i] == '\n';
                sf->line = malloc(nl * sizeof *sf->line);
                if (sf->line) {
                    char *p = t;
                    sf->line[sf->nline++] = p;
                    for (; *p; p++)
                        if (*p == '\n') {
                            *p = 0;
                            if (sf->nline < nl)
                                sf->line[sf->nline++] = p + 1;
                        }
                }
                sf->text = t;
            }
        }
    }
    size_t i = (size_t)ln - 1;
    return sf->line && i < sf->nline ? sf->line[i] : NULL;
}

static void src_free(struct srccache *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->f[i].name);
        free(c->f[i].text);
        free(c->f[i].line);
    }
    free(c->f);
}

static const char *const stall_keys[] = {"stall_ibuffer_empty", "stall_barrier", "stall_membar",
                                         "stall_scoreboard", "stall_pipeline_busy"};

static double stall_sum(const struct jval *r)
{
    double s = 0;
    for (size_t k = 0; k < 5; k++)
        s += jnum(r, stall_keys[k]);
    return s;
}

/* Indices of the rows of array a sorted by stall cycles (descending), then issued. */
static size_t *by_stalls(const struct jval *a)
{
    size_t n = a ? a->n : 0;
    size_t *ix = malloc((n ? n : 1) * sizeof *ix);
    if (!ix)
        return NULL;
    for (size_t i = 0; i < n; i++)
        ix[i] = i;
    for (size_t i = 1; i < n; i++) { /* insertion sort: stable, tables are small */
        size_t v = ix[i], j = i;
        double sv = stall_sum(a->item[v]), iv = jnum(a->item[v], "issued");
        while (j > 0) {
            double su = stall_sum(a->item[ix[j - 1]]), iu = jnum(a->item[ix[j - 1]], "issued");
            if (su > sv || (su == sv && iu >= iv))
                break;
            ix[j] = ix[j - 1];
            j--;
        }
        ix[j] = v;
    }
    return ix;
}

static void line_table(FILE *f, const struct jval *a, bool ptx, struct srccache *sc)
{
    size_t *ix = by_stalls(a);
    if (!ix || !a || a->t != J_ARR || !a->n) {
        fputs("<p>no per-line counters.</p>\n", f);
        free(ix);
        return;
    }
    size_t lim = a->n < 200 ? a->n : 200;
    fprintf(f, "<table class=\"%s\">\n<tr>", ptx ? "ptxlines" : "srclines");
    if (ptx)
        fputs("<th>PTX line</th><th>instruction</th>", f);
    fputs("<th>source</th><th>issued</th><th>stall cycles</th><th>ibuffer</th><th>barrier</th>"
          "<th>membar</th><th>scoreboard</th><th>pipeline</th><th>mem requests</th>"
          "<th>L1D accesses</th><th>L1D misses</th><th>L2 accesses</th><th>L2 misses</th>"
          "<th>DRAM sectors read</th></tr>\n",
          f);
    for (size_t r = 0; r < lim; r++) {
        const struct jval *o = a->item[ix[r]];
        fputs("<tr>", f);
        const char *file = jstr(o, "file");
        double sl = ptx ? jnum(o, "src_line") : jnum(o, "line");
        if (ptx) {
            fprintf(f, "<td>%.0f</td><td class=\"code\">", jnum(o, "line"));
            esc(f, jstr(o, "text"));
            fputs("</td>", f);
        }
        fputs("<td class=\"code\">", f);
        if (file) {
            const char *base = strrchr(file, '/');
            esc(f, base ? base + 1 : file);
            fprintf(f, ":%.0f", sl);
            const char *t = src_line(sc, file, sl);
            if (t) {
                while (*t == ' ' || *t == '\t')
                    t++;
                fputs(" <span class=\"src\">", f);
                esc(f, t);
                fputs("</span>", f);
            }
        }
        fputs("</td>", f);
        fprintf(f, "<td>%.0f</td><td>%.0f</td>", jnum(o, "issued"), stall_sum(o));
        for (size_t k = 0; k < 5; k++)
            fprintf(f, "<td>%.0f</td>", jnum(o, stall_keys[k]));
        fprintf(f, "<td>%.0f</td><td>%.0f</td><td>%.0f</td>", jnum(o, "mem_requests"),
                jnum(o, "l1d_accesses"), jnum(o, "l1d_misses"));
        fprintf(f, "<td>%.0f</td><td>%.0f</td><td>%.0f</td></tr>\n", jnum(o, "l2_accesses"),
                jnum(o, "l2_misses"), jnum(o, "dram_read_sectors"));
    }
    fputs("</table>\n", f);
    if (lim < a->n)
        fprintf(f, "<p>%zu more rows in the JSON.</p>\n", a->n - lim);
    free(ix);
}

static double pct(double a, double b) { return b > 0 ? 100.0 * a / b : 0; }

static void kernel_section(FILE *f, const struct jval *k, size_t idx, struct srccache *sc)
{
    const struct jval *tot = jget(k, "totals"), *mem = jget(k, "memory");
    const struct jval *l2 = jget(mem, "l2"), *smp = jget(k, "samples"), *sms = jget(k, "sm");
    double cycles = jnum(k, "gpu_sim_cycle"), insn = jnum(k, "gpu_sim_insn");
    double ns = jnum(k, "sim_time_ns");
    double nsm = sms && sms->t == J_ARR ? (double)sms->n : 0;
    double maxw = jnum(k, "max_warps_per_sm");
    double act = jnum(tot, "sm_active_cycles");
    double l1a = jnum(tot, "L1D_total_cache_accesses"), l1m = jnum(tot, "L1D_total_cache_misses");
    double l2a = jnum(l2, "accesses"), l2m = jnum(l2, "misses");
    double dram = 0;
    const struct jval *db = jget(smp, "dram_bytes");
    for (size_t i = 0; db && i < db->n; i++)
        dram += jat(db, i);
    fprintf(f, "<h2 id=\"k%zu\">", idx);
    esc(f, jstr(k, "kernel_name"));
    fprintf(f, " <small>(launch %.0f)</small></h2>\n", jnum(k, "kernel_launch_uid"));
    fputs("<table class=\"summary\">\n", f);
    fprintf(f, "<tr><th>cycles</th><td>%.0f (%.1f ns simulated)</td></tr>\n", cycles, ns);
    fprintf(f, "<tr><th>thread instructions</th><td>%.0f</td></tr>\n", insn);
    fprintf(f, "<tr><th>warp instructions</th><td>%.0f</td></tr>\n",
            jnum(tot, "gpgpu_n_tot_w_icount"));
    fprintf(f, "<tr><th>IPC</th><td>%.4f</td></tr>\n", cycles > 0 ? insn / cycles : 0);
    if (maxw > 0)
        fprintf(f, "<tr><th>occupancy</th><td>%.2f%%</td></tr>\n",
                pct(jnum(tot, "sm_resident_warp_cycles"), act * maxw));
    fprintf(f, "<tr><th>L1D hit rate</th><td>%s%.2f%% (%.0f accesses)</td></tr>\n",
            l1a > 0 ? "" : "n/a ", l1a > 0 ? 100 - pct(l1m, l1a) : 0, l1a);
    if (l2)
        fprintf(f, "<tr><th>L2 hit rate</th><td>%s%.2f%% (%.0f accesses)</td></tr>\n",
                l2a > 0 ? "" : "n/a ", l2a > 0 ? 100 - pct(l2m, l2a) : 0, l2a);
    else
        fputs("<tr><th>memory</th><td>perfect (-gpgpu_perfect_mem)</td></tr>\n", f);
    if (db)
        fprintf(f, "<tr><th>DRAM</th><td>%.0f bytes, %.2f GB/s</td></tr>\n", dram,
                ns > 0 ? dram / ns : 0);
    fputs("</table>\n", f);

    size_t n = 0;
    const struct jval *end = jget(smp, "end");
    if (end && end->t == J_ARR)
        n = end->n;
    if (!n) {
        fputs("<p>no time series (run with --timing-stats and a sample interval).</p>\n", f);
    } else {
        double start = jnum(smp, "start");
        double nspc = cycles > 0 ? ns / cycles : 0;
        size_t nshow = nsm < 4 ? (size_t)nsm : 4;
        /* columns: x, interval lengths, IPC (GPU + 4 SMs), warps (5), stall total, the 7
         * stall fractions, 4 cache series, DRAM bandwidth */
        double *buf = calloc((size_t)n * 26, sizeof *buf);
        if (!buf)
            return;
        double *x = buf, *len = buf + n;
        for (size_t i = 0; i < n; i++) {
            x[i] = jat(end, i) - start;
            len[i] = x[i] - (i ? x[i - 1] : 0);
            if (len[i] <= 0)
                len[i] = 1;
        }
        /* IPC and active warps: aggregate and the first SMs */
        struct series s[8];
        char names[8][32];
        double *col = buf + 2 * n;
        const struct jval *smarr = jget(smp, "sm");
        size_t nsmp = smarr && smarr->t == J_ARR ? smarr->n : 0;
        if (nshow > nsmp)
            nshow = nsmp;
        for (int which = 0; which < 2; which++) {
            const char *key = which ? "warp_cycles" : "thread_insn";
            size_t ns2 = 0;
            double *agg = col;
            col += n;
            s[ns2++] = (struct series){which ? "mean over SMs" : "GPU", NULL, agg};
            for (size_t m = 0; m < nsmp; m++) {
                const struct jval *a = jget(smarr->item[m], key);
                double *y = m < nshow ? col : NULL;
                if (y) {
                    snprintf(names[m], sizeof names[m], "SM %zu", m);
                    s[ns2++] = (struct series){names[m], NULL, y};
                    col += n;
                }
                for (size_t i = 0; i < n; i++) {
                    double v = jat(a, i) / len[i];
                    agg[i] += which ? v / (double)nsmp : v;
                    if (y)
                        y[i] = v;
                }
            }
            plot(f, which ? "active warps per SM" : "IPC (thread instructions per cycle)",
                 which ? "warps" : "IPC", x, n, s, ns2, false);
        }
        /* issue / stall breakdown (fractions of scheduler cycles), stacked */
        static const char *const sk[] = {"sched_issue", "stall_scoreboard", "stall_pipeline_busy",
                                         "stall_membar", "stall_barrier", "stall_ibuffer_empty",
                                         "stall_idle"};
        static const char *const sn[] = {"issued", "scoreboard", "pipeline busy", "membar",
                                         "barrier", "ibuffer empty", "idle"};
        col = buf + 13 * n;
        double *tot2 = buf + 12 * n;
        for (size_t k2 = 0; k2 < 7; k2++)
            for (size_t i = 0; i < n; i++)
                tot2[i] += jat(jget(smp, sk[k2]), i);
        for (size_t k2 = 0; k2 < 7; k2++) {
            s[k2] = (struct series){sn[k2], NULL, col + k2 * n};
            for (size_t i = 0; i < n; i++)
                s[k2].y[i] = tot2[i] > 0 ? jat(jget(smp, sk[k2]), i) / tot2[i] : 0;
        }
        plot(f, "scheduler cycles: issue and stall causes (fraction)", "fraction", x, n, s, 7,
             true);
        /* caches */
        col = buf + 20 * n;
        size_t nc = 0;
        double *l1h = col, *l1mm = col + n, *l2h = col + 2 * n, *l2mm = col + 3 * n;
        for (size_t i = 0; i < n; i++) {
            double a1 = jat(jget(smp, "l1d_accesses"), i), m1 = jat(jget(smp, "l1d_misses"), i);
            double a2 = jat(jget(smp, "l2_accesses"), i), m2 = jat(jget(smp, "l2_misses"), i);
            l1h[i] = a1 - m1;
            l1mm[i] = m1;
            l2h[i] = a2 - m2;
            l2mm[i] = m2;
        }
        s[nc++] = (struct series){"L1D hits", NULL, l1h};
        s[nc++] = (struct series){"L1D misses", NULL, l1mm};
        if (jget(smp, "l2_accesses")) {
            s[nc++] = (struct series){"L2 hits", NULL, l2h};
            s[nc++] = (struct series){"L2 misses", NULL, l2mm};
        }
        plot(f, "cache hits and misses per interval", "accesses", x, n, s, nc, false);
        if (db) {
            double *bw = buf + 24 * n;
            for (size_t i = 0; i < n; i++)
                bw[i] = nspc > 0 ? jat(db, i) / (len[i] * nspc) : 0;
            s[0] = (struct series){"DRAM", NULL, bw};
            plot(f, "DRAM bandwidth (GB/s)", "GB/s", x, n, s, 1, false);
        }
        free(buf);
    }
    fputs("<h3>PTX lines by stall cycles</h3>\n", f);
    line_table(f, jget(k, "ptx_lines"), true, sc);
    fputs("<h3>source lines by stall cycles</h3>\n", f);
    line_table(f, jget(k, "source_lines"), false, sc);
}

int rt_report_write(const char *json_path, const char *dir, char *err, size_t errlen)
{
    struct jval *root = jparse_file(json_path, err, errlen);
    if (!root)
        return -1;
    if (root->t != J_ARR) {
        snprintf(err, errlen, "%s: expected an array of kernels (a --timing-stats file)",
                 json_path);
        jfree(root);
        return -1;
    }
    if (mkdir(dir, 0777) && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
        jfree(root);
        return -1;
    }
    size_t pl = strlen(dir) + 12;
    char *path = malloc(pl);
    if (!path) {
        jfree(root);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    snprintf(path, pl, "%s/index.html", dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        free(path);
        jfree(root);
        return -1;
    }
    fputs("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
          "<meta charset=\"utf-8\"/>\n<title>ptxemu timing report</title>\n<style>\n"
          "body{font-family:sans-serif;margin:1em 2em;color:#222}\n"
          "table{border-collapse:collapse;margin:0.5em 0}\n"
          "td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px;text-align:right}\n"
          "th{background:#f0f0f0}\n.summary th{text-align:left}\n"
          "td.code{text-align:left;font-family:monospace;white-space:pre}\n"
          ".src{color:#555}\nsvg.plot{display:block;margin:0.5em 0}\n"
          ".title{font-size:14px;font-weight:bold}\n.tick{font-size:11px}\n"
          ".frame{fill:none;stroke:#888}\n.grid{stroke:#e4e4e4}\n"
          "</style>\n</head>\n<body>\n<h1>ptxemu timing report</h1>\n<p>from <code>",
          f);
    esc(f, json_path);
    fprintf(f, "</code>: %zu kernel launch%s. Power is not modelled.</p>\n<ul>\n", root->n,
            root->n == 1 ? "" : "es");
    for (size_t i = 0; i < root->n; i++) {
        fprintf(f, "<li><a href=\"#k%zu\">", i);
        esc(f, jstr(root->item[i], "kernel_name"));
        fprintf(f, "</a> — %.0f cycles</li>\n", jnum(root->item[i], "gpu_sim_cycle"));
    }
    fputs("</ul>\n", f);
    struct srccache sc = {0};
    for (size_t i = 0; i < root->n; i++)
        kernel_section(f, root->item[i], i, &sc);
    src_free(&sc);
    fputs("</body>\n</html>\n", f);
    int bad = ferror(f);
    if (fclose(f) || bad) {
        snprintf(err, errlen, "cannot write %s", path);
        free(path);
        jfree(root);
        return -1;
    }
    free(path);
    jfree(root);
    return 0;
}

int rt_report_main(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "ptxemu: report: unknown option '%s'\n", argv[i]);
            return 2;
        } else if (!in)
            in = argv[i];
        else {
            fprintf(stderr, "ptxemu: report: more than one statistics file\n");
            return 2;
        }
    }
    if (!in || !out) {
        fputs("usage: ptxemu report STATS.json -o DIR\n", stderr);
        return 2;
    }
    char err[1024];
    if (rt_report_write(in, out, err, sizeof err)) {
        fprintf(stderr, "ptxemu: report: %s\n", err);
        return 1;
    }
    return 0;
}
