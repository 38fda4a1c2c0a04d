/*
 * frontend/diag.h — compiler-style diagnostics over one source buffer:
 *
 *   file:line:col: error: message
 *       source line
 *       ^
 *
 * Positions are byte offsets; line and column are computed only when a message is printed.
 * After max_errors errors further errors are counted but not printed; diag_finish prints
 * the summary `N errors generated.` (when N > 0).
 */
#ifndef PTXEMU_DIAG_H
#define PTXEMU_DIAG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* DIAG_NOTE follows an error (shown only when that error was); DIAG_REMARK is a stand-alone
 * note (also printed as `note:`, always shown, never counted as an error). */
enum diag_level { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE, DIAG_REMARK };

struct diag {
    FILE *out;            /* where messages go */
    const char *file;     /* name printed in front of every message */
    const char *text;     /* the source (NUL-terminated) */
    size_t len;
    int max_errors;       /* errors printed before going quiet */
    int nerrors, nwarnings;
    int last_shown;       /* the last error was printed (notes follow it or not) */
};

/* Set up a diagnostics sink for text of len bytes named file. */
void diag_init(struct diag *d, FILE *out, const char *file, const char *text, size_t len,
               int max_errors);

/* Report at byte offset off (SIZE_MAX: no position, prints `file: error: msg`). */
void diag_report(struct diag *d, enum diag_level lvl, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void diag_vreport(struct diag *d, enum diag_level lvl, size_t off, const char *fmt,
                  va_list ap);

/* Print one diagnostic at 1-based (line, col) of the source text[0, len) named file, in the
 * same format as diag_report (file NULL: "<input>"; text NULL, or no such line: the first
 * line alone; line 0: `file: level: message`). For passes that hold line/column pairs instead
 * of byte offsets (cfg.c, predecode.c, verify.c, the engine's loader); counts nothing. */
void diag_vprint_at(FILE *out, const char *file, const char *text, size_t len, uint32_t line,
                    uint32_t col, enum diag_level lvl, const char *fmt, va_list ap);
void diag_print_at(FILE *out, const char *file, const char *text, size_t len, uint32_t line,
                   uint32_t col, enum diag_level lvl, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));

/* 1-based line and column of byte offset off. */
void diag_linecol(const char *text, size_t len, size_t off, uint32_t *line, uint32_t *col);

/* Print the `N errors generated.` summary if there were errors; returns the error count. */
int diag_finish(struct diag *d);

#endif
