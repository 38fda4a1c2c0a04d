/*
 * frontend/diag.c — compiler-style diagnostics (see diag.h).
 */
#include "frontend/diag.h"

#include <string.h>

/* Set up a diagnostics sink. */
void diag_init(struct diag *d, FILE *out, const char *file, const char *text, size_t len,
               int max_errors)
{
    memset(d, 0, sizeof *d);
    d->out = out ? out : stderr;
    d->file = file ? file : "<input>";
    d->text = text;
    d->len = len;
    d->max_errors = max_errors > 0 ? max_errors : 20;
}

/* 1-based line and column of byte offset off (columns count bytes; a tab is one column). */
void diag_linecol(const char *text, size_t len, size_t off, uint32_t *line, uint32_t *col)
{
    if (off > len)
        off = len;
    uint32_t l = 1;
    size_t start = 0;
    for (const char *p = text, *e = text + off; (p = memchr(p, '\n', (size_t)(e - p)));) {
        l++;
        p++;
        start = (size_t)(p - text);
    }
    *line = l;
    *col = (uint32_t)(off - start + 1);
}

static const char *const diag_names[] = {"error", "warning", "note", "note"};

/* Report one message with its source line and caret. */
void diag_vreport(struct diag *d, enum diag_level lvl, size_t off, const char *fmt, va_list ap)
{
    if (lvl == DIAG_ERROR) {
        d->nerrors++;
        d->last_shown = d->nerrors <= d->max_errors;
        if (!d->last_shown)
            return;
    } else if (lvl == DIAG_NOTE) {
        if (!d->last_shown)
            return;
    } else if (lvl == DIAG_WARNING) {
        d->nwarnings++;
    }
    if (off == SIZE_MAX || !d->text) {
        fprintf(d->out, "%s: %s: ", d->file, diag_names[lvl]);
        vfprintf(d->out, fmt, ap);
        fputc('\n', d->out);
        return;
    }
    uint32_t line, col;
    diag_linecol(d->text, d->len, off, &line, &col);
    fprintf(d->out, "%s:%u:%u: %s: ", d->file, line, col, diag_names[lvl]);
    vfprintf(d->out, fmt, ap);
    fputc('\n', d->out);
    /* the source line, then a caret under the column (tabs copied so the caret lines up) */
    size_t start = off - (col - 1), end = start;
    while (end < d->len && d->text[end] != '\n' && d->text[end] != '\r')
        end++;
    fprintf(d->out, "%.*s\n", (int)(end - start), d->text + start);
    for (size_t i = start; i < off; i++)
        fputc(d->text[i] == '\t' ? '\t' : ' ', d->out);
    fputs("^\n", d->out);
}

/* Report one message (printf-style). */
void diag_report(struct diag *d, enum diag_level lvl, size_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(d, lvl, off, fmt, ap);
    va_end(ap);
}

/* Print the error summary; returns the number of errors. */
int diag_finish(struct diag *d)
{
    if (d->nerrors > 0)
        fprintf(d->out, "%d error%s generated.\n", d->nerrors, d->nerrors == 1 ? "" : "s");
    return d->nerrors;
}
