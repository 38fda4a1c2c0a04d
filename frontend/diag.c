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

/* The one printer of every diagnostic: `file:line:col: level: message`, then (text non-NULL)
 * the source line text[start, end) and a caret under byte text[off] (tabs copied so the caret
 * lines up). line 0: `file: level: message` alone. */
static void diag_emit(FILE *out, const char *file, enum diag_level lvl, uint32_t line,
                      uint32_t col, const char *text, size_t start, size_t end, size_t off,
                      const char *fmt, va_list ap)
{
    if (line == 0)
        fprintf(out, "%s: %s: ", file, diag_names[lvl]);
    else
        fprintf(out, "%s:%u:%u: %s: ", file, line, col, diag_names[lvl]);
    vfprintf(out, fmt, ap);
    fputc('\n', out);
    if (line == 0 || !text)
        return;
    fprintf(out, "%.*s\n", (int)(end - start), text + start);
    for (size_t i = start; i < off && i < end; i++)
        fputc(text[i] == '\t' ? '\t' : ' ', out);
    fputs("^\n", out);
}

/* End of the line that starts at text[start] (before its '\n' or '\r'). */
static size_t diag_line_end(const char *text, size_t len, size_t start)
{
    size_t end = start;
    while (end < len && text[end] != '\n' && text[end] != '\r')
        end++;
    return end;
}

/* Print a diagnostic at 1-based (line, col) of text[0, len) (diag.h). */
void diag_vprint_at(FILE *out, const char *file, const char *text, size_t len, uint32_t line,
                    uint32_t col, enum diag_level lvl, const char *fmt, va_list ap)
{
    if (!out)
        return;
    file = file ? file : "<input>";
    size_t start = 0;
    if (text && line > 0) {
        uint32_t l = 1;
        while (l < line && start < len) {
            const char *nl = memchr(text + start, '\n', len - start);
            if (!nl) {
                start = len;
                break;
            }
            start = (size_t)(nl - text) + 1;
            l++;
        }
        if (l < line || start >= len)
            text = NULL; /* no such line: the message alone */
    }
    if (!text || line == 0) {
        /* keep the position in the first line of the message */
        if (line == 0)
            diag_emit(out, file, lvl, 0, 0, NULL, 0, 0, 0, fmt, ap);
        else
            diag_emit(out, file, lvl, line, col, NULL, 0, 0, 0, fmt, ap);
        return;
    }
    size_t end = diag_line_end(text, len, start);
    size_t off = start + (col ? col - 1 : 0);
    diag_emit(out, file, lvl, line, col, text, start, end, off, fmt, ap);
}

/* Print a diagnostic at (line, col) (printf-style; diag.h). */
void diag_print_at(FILE *out, const char *file, const char *text, size_t len, uint32_t line,
                   uint32_t col, enum diag_level lvl, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vprint_at(out, file, text, len, line, col, lvl, fmt, ap);
    va_end(ap);
}

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
        diag_emit(d->out, d->file, lvl, 0, 0, NULL, 0, 0, 0, fmt, ap);
        return;
    }
    uint32_t line, col;
    diag_linecol(d->text, d->len, off, &line, &col);
    if (off > d->len)
        off = d->len;
    size_t start = off - (col - 1);
    diag_emit(d->out, d->file, lvl, line, col, d->text, start,
              diag_line_end(d->text, d->len, start), off, fmt, ap);
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
