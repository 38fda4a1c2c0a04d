/*
 * interp/check_log.c — the sanitizer's report log, shared by every device and launch of a
 * session: the error count and print limit, the --check list, memcheck's fault reports, the
 * summary line, and the machine-readable report (--check-report: each printed report also
 * as a JSON object or an XML element, through the chk_rep_* emitters the other tools use).
 * The --fill-uninit patterns live here too.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "interp/check.h"
#include "interp/check_int.h"
#include "interp/internal.h"

/* Create a log printing to out (see interp.h). */
struct interp_check_log *interp_check_log_create(FILE *out, uint64_t print_limit)
{
    struct interp_check_log *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    pthread_mutex_init(&g->lock, NULL);
    g->out = out ? out : stderr;
    g->limit = print_limit;
    return g;
}

/* Write the machine-readable report too (see interp.h). */
void interp_check_log_report(struct interp_check_log *g, FILE *f, bool xml)
{
    pthread_mutex_lock(&g->lock);
    g->rep = f;
    g->xml = xml;
    g->rep_some = false;
    if (f)
        fputs(xml ? "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<reports>\n" : "[\n", f);
    pthread_mutex_unlock(&g->lock);
}

/*
 * The machine-readable report: one record per printed report, written through these
 * emitters (caller holds g->lock) as a JSON object ({"tool": …, "kind": …, "severity": …,
 * members}) or an XML element (<report tool= kind= severity=>children</report>). A member's
 * value is a string, a number, a hex address, an (x,y,z) triple or a nested record; NULL
 * strings are JSON nulls and absent XML elements.
 */
static void rep_text(FILE *o, const char *s, bool xml)
{
    for (; *s; s++) {
        const unsigned char c = (unsigned char)*s;
        if (xml && (c == '&' || c == '<' || c == '>' || c == '"'))
            fputs(c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : "&quot;", o);
        else if (!xml && (c == '"' || c == '\\'))
            fprintf(o, "\\%c", c);
        else if (c < 0x20)
            fprintf(o, xml ? "&#%u;" : "\\u%04x", c);
        else
            fputc(c, o);
    }
}

/* Start a record (see check_int.h). */
bool chk_rep_begin(struct interp_check_log *g, const char *tool, const char *kind, bool warning)
{
    FILE *o = g->rep;
    if (!o)
        return false;
    const char *sev = warning ? "warning" : "error";
    if (g->xml)
        fprintf(o, "  <report tool=\"%s\" kind=\"%s\" severity=\"%s\">", tool, kind, sev);
    else
        fprintf(o, "%s  {\"tool\": \"%s\", \"kind\": \"%s\", \"severity\": \"%s\"",
                g->rep_some ? ",\n" : "", tool, kind, sev);
    g->rep_some = true;
    g->rep_first = false;
    return true;
}

/* JSON: the member's name (after a comma unless it is the object's first). */
static void rep_key(struct interp_check_log *g, const char *key)
{
    fprintf(g->rep, "%s\"%s\": ", g->rep_first ? "" : ", ", key);
    g->rep_first = false;
}

/* A string member (see check_int.h). */
void chk_rep_str(struct interp_check_log *g, const char *key, const char *v)
{
    FILE *o = g->rep;
    if (g->xml) {
        if (!v)
            return;
        fprintf(o, "<%s>", key);
        rep_text(o, v, true);
        fprintf(o, "</%s>", key);
        return;
    }
    rep_key(g, key);
    if (!v) {
        fputs("null", o);
        return;
    }
    fputc('"', o);
    rep_text(o, v, false);
    fputc('"', o);
}

/* A number member (see check_int.h). */
void chk_rep_num(struct interp_check_log *g, const char *key, uint64_t v)
{
    if (g->xml) {
        fprintf(g->rep, "<%s>%" PRIu64 "</%s>", key, v, key);
        return;
    }
    rep_key(g, key);
    fprintf(g->rep, "%" PRIu64, v);
}

/* A hex address member (see check_int.h). */
void chk_rep_hex(struct interp_check_log *g, const char *key, uint64_t v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "0x%" PRIx64, v); /* (%#x would print 0 as "0") */
    chk_rep_str(g, key, buf);
}

/* An (x,y,z) member (see check_int.h). */
void chk_rep_xyz(struct interp_check_log *g, const char *key, const uint32_t v[3])
{
    if (g->xml) {
        fprintf(g->rep, "<%s x=\"%u\" y=\"%u\" z=\"%u\"/>", key, v[0], v[1], v[2]);
        return;
    }
    rep_key(g, key);
    fprintf(g->rep, "[%u, %u, %u]", v[0], v[1], v[2]);
}

/* A "file:line" member (NULL without a file; see check_int.h). */
void chk_rep_pos(struct interp_check_log *g, const char *key, const char *file, uint32_t line)
{
    char buf[600];
    if (file && *file)
        snprintf(buf, sizeof buf, "%s:%u", file, line);
    chk_rep_str(g, key, file && *file ? buf : NULL);
}

/* A nested record: chk_rep_open, its members, chk_rep_close. */
void chk_rep_open(struct interp_check_log *g, const char *key)
{
    if (g->xml) {
        fprintf(g->rep, "<%s>", key);
        return;
    }
    rep_key(g, key);
    fputc('{', g->rep);
    g->rep_first = true;
}

/* The end of a nested record (see check_int.h). */
void chk_rep_close(struct interp_check_log *g, const char *key)
{
    if (g->xml)
        fprintf(g->rep, "</%s>", key);
    else
        fputc('}', g->rep);
    g->rep_first = false;
}

/* A list member: chk_rep_list_open, its items (chk_rep_item_open, members, chk_rep_close),
 * chk_rep_list_close (see check_int.h). */
void chk_rep_list_open(struct interp_check_log *g, const char *key)
{
    if (g->xml) {
        fprintf(g->rep, "<%s>", key);
        return;
    }
    rep_key(g, key);
    fputc('[', g->rep);
    g->rep_first = true;
}

/* An item of a list (see check_int.h). */
void chk_rep_item_open(struct interp_check_log *g, const char *key)
{
    if (g->xml)
        fprintf(g->rep, "<%s>", key);
    else
        fputs(g->rep_first ? "{" : ", {", g->rep);
    g->rep_first = true;
}

/* The end of a list (see check_int.h). */
void chk_rep_list_close(struct interp_check_log *g, const char *key)
{
    if (g->xml)
        fprintf(g->rep, "</%s>", key);
    else
        fputc(']', g->rep);
    g->rep_first = false;
}

/* The end of a record (see check_int.h). */
void chk_rep_end(struct interp_check_log *g)
{
    fputs(g->xml ? "</report>\n" : "}", g->rep);
}

/* Free a log (its stream belongs to the caller). */
void interp_check_log_destroy(struct interp_check_log *g)
{
    if (!g)
        return;
    pthread_mutex_destroy(&g->lock);
    free(g);
}

/* Count one error; true when its report is to be printed (under the print limit). Caller
 * holds g->lock. */
bool chk_log_count(struct interp_check_log *g)
{
    g->errors++;
    if (g->limit && g->printed >= g->limit)
        return false;
    g->printed++;
    return true;
}

/* Parse a --check list (see interp.h). */
int interp_check_parse(const char *list, unsigned *bits, char *bad, size_t bad_len)
{
    static const struct {
        const char *name;
        unsigned bit;
    } tools[] = {{"memcheck", CHECK_MEMCHECK},   {"racecheck", CHECK_RACECHECK},
                 {"initcheck", CHECK_INITCHECK}, {"synccheck", CHECK_SYNCCHECK},
                 {"leakcheck", CHECK_LEAKCHECK}, {"asynccheck", CHECK_ASYNCCHECK},
                 {"all", CHECK_ALL}};
    unsigned b = CHECK_MEMCHECK;
    const char *p = list;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        size_t i = 0;
        for (; i < sizeof tools / sizeof tools[0]; i++)
            if (strlen(tools[i].name) == n && !strncmp(tools[i].name, p, n))
                break;
        if (i == sizeof tools / sizeof tools[0]) {
            if (bad_len)
                snprintf(bad, bad_len, "%.*s", (int)n, p);
            return -1;
        }
        b |= tools[i].bit;
        if (!e)
            break;
        p = e + 1;
    }
    *bits = b;
    return 0;
}

static const char *const space_names[] = {
    [SP_GLOBAL] = "global", [SP_SHARED] = "shared", [SP_LOCAL] = "local",
    [SP_CONST] = "const",   [SP_PARAM] = "param",
};

static const char *space_name(unsigned sp)
{
    if (sp == SP_SHARED_CTA || sp == SP_SHARED_CLUSTER)
        sp = SP_SHARED;
    return sp < sizeof space_names / sizeof space_names[0] && space_names[sp] ? space_names[sp]
                                                                              : "generic";
}

/* A fault as a report record. Caller holds g->lock. */
static void rep_trap(struct interp_check_log *g, const struct trap *t)
{
    static const char *const kinds[] = {
        [TRAP_OOB] = "out-of-bounds",
        [TRAP_MISALIGNED] = "misaligned",
        [TRAP_READONLY] = "read-only",
        [TRAP_TRAP] = "trap",
        [TRAP_BRKPT] = "breakpoint",
        [TRAP_ASSERT] = "assert",
        [TRAP_DEADLOCK] = "deadlock",
        [TRAP_BUDGET] = "budget",
        [TRAP_ILLEGAL] = "illegal-instruction",
        [TRAP_STACK] = "stack-overflow",
        [TRAP_HEAP] = "heap",
    };
    const char *kind = (unsigned)t->kind < sizeof kinds / sizeof kinds[0] && kinds[t->kind]
                           ? kinds[t->kind]
                           : "error";
    if (!chk_rep_begin(g, "memcheck", kind, false))
        return;
    chk_rep_str(g, "kernel", t->kernel);
    chk_rep_xyz(g, "block", t->cta);
    chk_rep_xyz(g, "thread", t->tid);
    chk_rep_str(g, "function", t->func[0] ? t->func : t->kernel);
    chk_rep_hex(g, "pc", (uint64_t)t->pc * 16);
    chk_rep_pos(g, "ptx", t->ptx_file ? t->ptx_file : "<ptx>", t->line);
    chk_rep_pos(g, "source", t->src_file, t->src_line);
    if (t->kind == TRAP_OOB || t->kind == TRAP_MISALIGNED || t->kind == TRAP_READONLY) {
        chk_rep_str(g, "space", space_name(t->space));
        chk_rep_str(g, "access", t->is_write ? "write" : "read");
        chk_rep_hex(g, "address", t->addr);
        chk_rep_num(g, "size", t->width);
    }
    chk_rep_str(g, "message", t->msg);
    chk_rep_end(g);
}

/* Count and print a fault (see interp.h). */
void interp_check_trap(struct interp_check_log *g, const struct trap *t)
{
    if (t->reported)
        return; /* a finding of its tool, counted and printed with the launch's findings */
    pthread_mutex_lock(&g->lock);
    if (chk_log_count(g)) {
        interp_trap_report(g->out, t);
        fflush(g->out);
        rep_trap(g, t);
    }
    pthread_mutex_unlock(&g->lock);
}

/* Errors so far (see interp.h). */
uint64_t interp_check_errors(struct interp_check_log *g)
{
    pthread_mutex_lock(&g->lock);
    uint64_t n = g->errors;
    pthread_mutex_unlock(&g->lock);
    return n;
}

/* The final summary line (see interp.h). */
void interp_check_summary(struct interp_check_log *g)
{
    pthread_mutex_lock(&g->lock);
    fprintf(g->out, "%s ERROR SUMMARY: %" PRIu64 " error%s\n", CHK_P, g->errors,
            g->errors == 1 ? "" : "s");
    if (g->limit && g->errors > g->printed)
        fprintf(g->out, "%s %" PRIu64 " error%s not printed (--print-limit %" PRIu64 ")\n", CHK_P,
                g->errors - g->printed, g->errors - g->printed == 1 ? "" : "s", g->limit);
    fflush(g->out);
    if (g->rep && g->xml)
        fprintf(g->rep,
                "  <summary errors=\"%" PRIu64 "\" reported=\"%" PRIu64 "\"/>\n</reports>\n",
                g->errors, g->printed);
    else if (g->rep)
        fprintf(g->rep,
                "%s  {\"summary\": {\"errors\": %" PRIu64 ", \"reported\": %" PRIu64 "}}\n]\n",
                g->rep_some ? ",\n" : "", g->errors, g->printed);
    if (g->rep) {
        fflush(g->rep);
        g->rep = NULL;
    }
    pthread_mutex_unlock(&g->lock);
}

/* ====================================================================== --fill-uninit */

/* Parse a fill pattern (see interp.h). */
int interp_fill_parse(const char *s, uint32_t *word)
{
    if (!strcmp(s, "nan")) {
        *word = 0x7fffffffu;
        return 0;
    }
    if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !s[2] || strlen(s) > 4)
        return -1;
    char *e;
    unsigned long b = strtoul(s + 2, &e, 16);
    if (*e || b > 0xff)
        return -1;
    *word = (uint32_t)b * 0x01010101u;
    return 0;
}

/* Fill memory with a pattern (see interp.h). */
void interp_fill(void *p, uint64_t addr, uint64_t n, uint32_t word)
{
    uint8_t *b = p;
    for (uint64_t i = 0; i < n; i++)
        b[i] = (uint8_t)(word >> 8 * ((addr + i) & 3));
}
