/*
 * timing/config_read.c — the gpgpusim.config reader (syntax in config.h), the compiled-in
 * presets, tm_config_load (what --timing calls), the option dump and the "accepted, not
 * modelled" listing.
 *
 * A file is read whole into memory and scanned once; `-config` recurses with a stack of the
 * canonical paths being read (cycle detection, depth limit). Nothing here is global: the
 * reader's state is a `struct reader` on the caller's stack.
 */
#include "timing/config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Largest configuration file read (Accel-Sim's are under 10 KB). */
#define MAX_FILE_BYTES (4u << 20)

struct reader {
    struct tm_config *c;
    bool strict;
    FILE *diag;
    enum tm_opt_src src;
    int errors;                       /* error diagnostics so far */
    int depth;                        /* files on the stack */
    char *stack[TM_CONFIG_MAX_DEPTH]; /* canonical paths of the files being read */
};

/* Old option names read as their current ones. */
static const struct {
    const char *old, *cur;
} aliases[] = {
    {"smem_latency", "gpgpu_smem_latency"},
};

/* ------------------------------------------------------------------ diagnostics */

static void say(struct reader *r, const char *file, int line, bool error, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void say(struct reader *r, const char *file, int line, bool error, const char *fmt, ...)
{
    if (error && ++r->errors > TM_CONFIG_MAX_ERRORS)
        return;
    if (!r->diag)
        return;
    if (line > 0)
        fprintf(r->diag, "%s:%d: %s: ", file, line, error ? "error" : "warning");
    else
        fprintf(r->diag, "%s: %s: ", file, error ? "error" : "warning");
    va_list ap;
    va_start(ap, fmt);
    vfprintf(r->diag, fmt, ap);
    va_end(ap);
    fputc('\n', r->diag);
    if (error && r->errors == TM_CONFIG_MAX_ERRORS)
        fprintf(r->diag, "%s: note: too many errors, reading stops here\n", file);
}

/* An unknown option or stray text: a warning, or an error in strict mode. */
#define complain(r, file, line, ...) say(r, file, line, (r)->strict, __VA_ARGS__)

static bool too_many(const struct reader *r)
{
    return r->errors >= TM_CONFIG_MAX_ERRORS;
}

/* ------------------------------------------------------------------ files */

/* Whole file into a NUL-terminated buffer (caller frees); NULL with errno set. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap) {
            if (cap >= MAX_FILE_BYTES) {
                free(buf);
                buf = NULL;
                errno = EFBIG;
                break;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                errno = ENOMEM;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        errno = 0;
        size_t got = fread(buf + n, 1, cap - 1 - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                int e = errno ? errno : EIO; /* EISDIR for a directory */
                free(buf);
                buf = NULL;
                errno = e;
            } else {
                buf[n] = 0;
                if (memchr(buf, 0, n)) { /* a binary file is not a configuration */
                    free(buf);
                    buf = NULL;
                    errno = EINVAL;
                }
            }
            break;
        }
    }
    fclose(f);
    return buf;
}

static int read_text(struct reader *r, const char *name, const char *text);

/* `-config FILE` (or the top-level file when from is NULL). */
static int read_file(struct reader *r, const char *path, const char *from, int from_line)
{
    char *canon = realpath(path, NULL);
    char *text = canon ? slurp(path) : NULL;
    if (!text) {
        int e = errno;
        free(canon);
        if (e == ENOMEM)
            return -ENOMEM;
        if (from)
            say(r, from, from_line, true, "-config %s: cannot read: %s", path, strerror(e));
        else
            say(r, path, 0, true, "cannot read: %s", strerror(e));
        return from ? 0 : -ENOENT;
    }
    for (int i = 0; i < r->depth; i++)
        if (!strcmp(r->stack[i], canon)) {
            say(r, from, from_line, true, "-config %s: include cycle (%s is already being read)",
                path, canon);
            free(canon);
            free(text);
            return 0;
        }
    if (r->depth == TM_CONFIG_MAX_DEPTH) {
        say(r, from, from_line, true, "-config %s: nested deeper than %d files", path,
            TM_CONFIG_MAX_DEPTH);
        free(canon);
        free(text);
        return 0;
    }
    r->stack[r->depth++] = canon;
    int rc = read_text(r, path, text);
    free(r->stack[--r->depth]);
    free(text);
    return rc;
}

/* `-config FILE` met in `name`: a relative FILE is relative to name's directory. */
static int include(struct reader *r, const char *name, int line, const char *file)
{
    const char *slash = strrchr(name, '/');
    if (file[0] == '/' || !slash)
        return read_file(r, file, name, line);
    size_t dl = (size_t)(slash - name) + 1;
    char *path = malloc(dl + strlen(file) + 1);
    if (!path)
        return -ENOMEM;
    memcpy(path, name, dl);
    strcpy(path + dl, file);
    int rc = read_file(r, path, name, line);
    free(path);
    return rc;
}

/* ------------------------------------------------------------------ scanning */

static bool is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* One `-name value` pair. */
static int apply(struct reader *r, const char *file, int line, const char *name, const char *value)
{
    if (!strcmp(name, "config"))
        return include(r, file, line, value);
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (!strcmp(name, aliases[i].old))
            name = aliases[i].cur;
    const struct tm_opt_desc *d = tm_opt_find(name);
    if (!d) {
        complain(r, file, line, "unknown option -%s", name);
        return 0;
    }
    char err[256];
    int rc = tm_config_set(r->c, d->name, value, err, sizeof err);
    if (rc == -ENOMEM)
        return rc;
    if (rc) {
        say(r, file, line, true, "%s", err);
        return 0;
    }
    r->c->opt_src[d - tm_opt_table] = (uint8_t)r->src;
    return 0;
}

/* Scan one file's text. Returns 0 or -ENOMEM (errors are counted in r). */
static int read_text(struct reader *r, const char *name, const char *text)
{
    const char *p = text;
    int line = 1;
    size_t cap = 256;
    char *tok = malloc(cap), *val = malloc(cap);
    int rc = 0;
    if (!tok || !val) {
        rc = -ENOMEM;
        goto out;
    }
#define PUT(buf, n, ch)                                                                \
    do {                                                                               \
        if ((n) + 2 > cap) {                                                           \
            char *t1 = realloc(tok, cap * 2), *t2 = t1 ? realloc(val, cap * 2) : NULL; \
            if (t1)                                                                    \
                tok = t1;                                                              \
            if (!t2) {                                                                 \
                rc = -ENOMEM;                                                          \
                goto out;                                                              \
            }                                                                          \
            val = t2;                                                                  \
            cap *= 2;                                                                  \
        }                                                                              \
        (buf)[(n)++] = (ch);                                                           \
    } while (0)

    while (!too_many(r)) {
        /* white space and comments between pairs */
        while (*p) {
            if (*p == '\n')
                line++, p++;
            else if (is_space(*p))
                p++;
            else if (*p == '#')
                p += strcspn(p, "\n");
            else
                break;
        }
        if (!*p)
            break;

        /* the option name */
        size_t n = 0;
        if (*p != '-' || p[1] == 0 || is_space(p[1]) || p[1] == '\n' || p[1] == '#') {
            const char *e = p + strcspn(p, " \t\r\v\f\n#");
            complain(r, name, line, "stray text '%.*s' ignored (expected -option)",
                     (int)(e - p > 40 ? 40 : e - p), p);
            /* one diagnostic for the run of stray words up to the next -option of the line */
            for (p = e; *p && *p != '\n' && *p != '#';) {
                while (is_space(*p))
                    p++;
                if (*p == '-' || *p == '\n' || *p == '#' || !*p)
                    break;
                p += strcspn(p, " \t\r\v\f\n#");
            }
            continue;
        }
        p++;
        while (*p && !is_space(*p) && *p != '\n' && *p != '#')
            PUT(tok, n, *p++);
        tok[n] = 0;

        /* its value, on the same line */
        while (is_space(*p))
            p++;
        if (!*p || *p == '\n' || *p == '#') {
            say(r, name, line, true, "option -%s has no value", tok);
            continue;
        }
        int vline = line;
        size_t m = 0;
        if (*p == '"') {
            p++;
            bool gap = false; /* white space seen since the last character kept */
            while (*p && *p != '"') {
                if (*p == '#') { /* a comment, as GPGPU-Sim strips them first */
                    p += strcspn(p, "\n");
                    continue;
                }
                if (*p == '\n' || is_space(*p)) {
                    if (*p == '\n')
                        line++;
                    gap = true;
                    p++;
                    continue;
                }
                if (gap && m)
                    PUT(val, m, ' ');
                gap = false;
                PUT(val, m, *p++);
            }
            if (!*p) {
                say(r, name, vline, true, "unterminated quoted value of option -%s", tok);
                break;
            }
            p++; /* closing quote */
        } else {
            while (*p && !is_space(*p) && *p != '\n' && *p != '#')
                PUT(val, m, *p++);
        }
        val[m] = 0;
        if ((rc = apply(r, name, vline, tok, val)))
            goto out;
    }
#undef PUT
out:
    free(tok);
    free(val);
    return rc;
}

/* ------------------------------------------------------------------ public entry points */

static int finish(const struct reader *r, int rc)
{
    if (rc)
        return rc;
    return r->errors ? -EINVAL : 0;
}

/* Read a configuration file (see config.h). */
int tm_config_read_file(struct tm_config *c, const char *path, bool strict, FILE *diag)
{
    struct reader r = {.c = c, .strict = strict, .diag = diag, .src = TM_SRC_FILE};
    int rc = read_file(&r, path, NULL, 0);
    return finish(&r, rc);
}

/* Read configuration text held in memory (see config.h). */
int tm_config_read_text(struct tm_config *c, const char *name, const char *text,
                        enum tm_opt_src src, bool strict, FILE *diag)
{
    struct reader r = {.c = c, .strict = strict, .diag = diag, .src = src};
    int rc = read_text(&r, name, text);
    return finish(&r, rc);
}

/* Preset by name (linear: eight presets, looked up once per run). */
const struct tm_preset *tm_preset_find(const char *name)
{
    for (size_t i = 0; i < tm_preset_count; i++)
        if (!strcasecmp(tm_presets[i].name, name))
            return &tm_presets[i];
    return NULL;
}

/* Timing preset for a functional device key; NULL when there is none. */
static const struct tm_preset *device_preset(const char *key, FILE *diag)
{
    static const struct {
        const char *key, *preset;
    } fallback[] = {
        {"t4", "rtx2060"},  {"l4", "rtx4090"},     {"sm_70", "qv100"},   {"sm_75", "rtx2060"},
        {"sm_80", "a100"},  {"sm_86", "rtx3070"},  {"sm_89", "rtx4090"}, {"sm_90", "h100"},
        {"sm_100", "b200"}, {"sm_120", "rtx5090"},
    };
    char word[32];
    size_t n = strcspn(key, ",");
    if (n >= sizeof word)
        return NULL;
    memcpy(word, key, n);
    word[n] = 0;
    const struct tm_preset *p = tm_preset_find(word);
    if (p)
        return p;
    for (size_t i = 0; i < sizeof fallback / sizeof fallback[0]; i++)
        if (!strcasecmp(word, fallback[i].key)) {
            p = tm_preset_find(fallback[i].preset);
            if (p && diag)
                fprintf(diag,
                        "note: no timing preset for device %s; using %s (same SM "
                        "architecture)\n",
                        word, p->name);
            return p;
        }
    return NULL;
}

/* Defaults, the configuration spec names, the accepted listing, derivation (see config.h). */
int tm_config_load(struct tm_config *c, const char *spec, const char *device_key, bool strict,
                   FILE *diag)
{
    int rc = tm_config_init(c);
    if (rc)
        return rc;
    const struct tm_preset *p = NULL;
    const char *source;
    if (!spec || !*spec) {
        const char *key = device_key && *device_key ? device_key : "h100";
        p = device_preset(key, diag);
        if (!p) {
            if (diag) {
                fprintf(diag, "error: no timing preset for device '%s' (presets:", key);
                for (size_t i = 0; i < tm_preset_count; i++)
                    fprintf(diag, " %s", tm_presets[i].name);
                fprintf(diag, "); name one or a configuration file\n");
            }
            tm_config_free(c);
            return -ENOENT;
        }
    } else {
        p = tm_preset_find(spec);
    }
    if (p) {
        source = p->path;
        rc = tm_config_read_text(c, p->path, p->text, TM_SRC_PRESET, strict, diag);
    } else {
        source = spec;
        rc = tm_config_read_file(c, spec, strict, diag);
    }
    if (!rc) {
        char err[512];
        rc = tm_config_derive(c, err, sizeof err);
        if (rc && diag)
            fprintf(diag, "%s: error: %s\n", source, err);
    }
    if (rc) {
        tm_config_free(c);
        return rc;
    }
    tm_config_list_accepted(c, diag);
    return 0;
}

/* Shortest decimal form that reads back as the same double. */
static void put_double(double v, FILE *out)
{
    char buf[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    fputs(buf, out);
}

/* Every option as `-name value` (see config.h). */
void tm_config_dump(const struct tm_config *c, FILE *out)
{
    for (size_t i = 0; i < tm_opt_count; i++) {
        const struct tm_opt_desc *d = &tm_opt_table[i];
        const char *base = (const char *)&c->o + d->offset;
        fprintf(out, "-%s ", d->name);
        switch (d->type) {
        case TM_INT: {
            int64_t v;
            memcpy(&v, base, sizeof v);
            fprintf(out, "%" PRId64, v);
            break;
        }
        case TM_DBL: {
            double v;
            memcpy(&v, base, sizeof v);
            put_double(v, out);
            break;
        }
        case TM_STR: {
            const char *s;
            memcpy(&s, base, sizeof s);
            if (!s)
                s = "";
            if (!*s || strpbrk(s, " \t\r\n\v\f#") || s[0] == '"')
                fprintf(out, "\"%s\"", s);
            else
                fputs(s, out);
            break;
        }
        }
        fputc('\n', out);
    }
}

/* The accepted-but-unmodelled options the user's files set (see config.h). */
size_t tm_config_list_accepted(const struct tm_config *c, FILE *out)
{
    size_t n = 0;
    for (size_t i = 0; i < tm_opt_count; i++) {
        if ((tm_opt_table[i].flags & TM_MODELLED) || c->opt_src[i] != TM_SRC_FILE)
            continue;
        if (out)
            fprintf(out, "%s-%s",
                    n ? ", " : "note: accepted, not modelled: ", tm_opt_table[i].name);
        n++;
    }
    if (n && out)
        fputc('\n', out);
    return n;
}
