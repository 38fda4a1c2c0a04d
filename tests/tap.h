/*
 * tap.h - a tiny header-only TAP (Test Anything Protocol) producer.
 *
 * Every tests/unit/NAME_test.c includes it and prints TAP for prove:
 *
 *     #include "tests/tap.h"
 *     int main(void)
 *     {
 *         plan(3);                          // or no plan and done_testing()
 *         ok(1 + 1 == 2, "addition");
 *         is_int(f(2), 4, "f(2) == %d", 4);  // descriptions are printf formats
 *         is_str(name, "cfg", "name");
 *         return done_testing();            // exit status: 0 iff all passed
 *     }
 *
 * On a failure the got/expected values follow as `#` diagnostic lines, the way
 * Perl's Test::More prints them:
 *
 *     not ok 2 - f(2) == 4
 *     #   Failed test at tests/unit/x_test.c line 7.
 *     #          got: 5
 *     #     expected: 4
 *
 * Also: is_uint, is_double (with tolerance), is_mem (first differing byte and
 * a hex window), skip(n, why), skip_all(why), todo_start(why)/todo_end(),
 * diag(fmt, ...), bail_out(why).
 *
 * All state is one static struct per translation unit (tap_state); a test is
 * one translation unit.  Its `out` stream may be redirected, which is how
 * tests/unit/tap_test.c checks failure output.
 */
#ifndef PTXEMU_TESTS_TAP_H
#define PTXEMU_TESTS_TAP_H

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define TAP_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define TAP_UNUSED       __attribute__((unused))
#else
#define TAP_PRINTF(f, a)
#define TAP_UNUSED
#endif

struct tap_state {
    FILE *out;        /* where TAP goes; NULL means stdout */
    int planned;      /* number from plan(), or -1 when no plan yet */
    int run;          /* tests run so far */
    int failed;       /* tests failed, not counting TODO ones */
    const char *todo; /* reason while inside todo_start()/todo_end() */
};

static struct tap_state tap_state TAP_UNUSED = {NULL, -1, 0, 0, NULL};

static inline FILE *tap_out_(void)
{
    return tap_state.out ? tap_state.out : stdout;
}

/* Prints "1..n".  Call once, before the first test, or not at all. */
static inline void plan(int n)
{
    tap_state.planned = n;
    fprintf(tap_out_(), "1..%d\n", n);
    fflush(tap_out_());
}

/* A "# ..." diagnostic line (may contain newlines: each line gets "# "). */
TAP_PRINTF(1, 2) static inline void diag(const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    FILE *f = tap_out_();
    const char *p = buf;
    for (;;) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        fprintf(f, "# %.*s\n", len, p);
        if (!nl || !nl[1])
            break;
        p = nl + 1;
    }
    fflush(f);
}

/* Reports one result; returns pass (1) or fail (0).  Use the ok() macro. */
static inline int tap_vresult_(int pass, const char *file, int line, const char *fmt, va_list ap)
{
    char desc[1024];
    vsnprintf(desc, sizeof desc, fmt, ap);
    FILE *f = tap_out_();
    tap_state.run++;
    fprintf(f, "%sok %d", pass ? "" : "not ", tap_state.run);
    if (desc[0]) {
        /* '#' would start a directive: escape it as TAP asks. */
        fputs(" - ", f);
        for (const char *p = desc; *p; p++) {
            if (*p == '#')
                fputc('\\', f);
            fputc(*p == '\n' ? ' ' : *p, f);
        }
    }
    if (tap_state.todo)
        fprintf(f, " # TODO %s", tap_state.todo);
    fputc('\n', f);
    if (!pass) {
        if (!tap_state.todo)
            tap_state.failed++;
        fprintf(f, "#   Failed %stest at %s line %d.\n", tap_state.todo ? "(TODO) " : "", file,
                line);
    }
    fflush(f);
    return pass;
}

TAP_PRINTF(4, 5)
static inline int tap_ok_(int pass, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = tap_vresult_(pass, file, line, fmt, ap);
    va_end(ap);
    return r;
}

TAP_PRINTF(5, 6)
static inline int tap_is_int_(long long got, long long exp, const char *file, int line,
                              const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = tap_vresult_(got == exp, file, line, fmt, ap);
    va_end(ap);
    if (!r)
        diag("         got: %lld\n    expected: %lld", got, exp);
    return r;
}

TAP_PRINTF(5, 6)
static inline int tap_is_uint_(unsigned long long got, unsigned long long exp, const char *file,
                               int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = tap_vresult_(got == exp, file, line, fmt, ap);
    va_end(ap);
    if (!r)
        diag("         got: %llu (0x%llx)\n    expected: %llu (0x%llx)", got, got, exp, exp);
    return r;
}

TAP_PRINTF(6, 7)
static inline int tap_is_double_(double got, double exp, double tol, const char *file, int line,
                                 const char *fmt, ...)
{
    int pass = (isnan(got) && isnan(exp)) || got == exp || fabs(got - exp) <= tol;
    va_list ap;
    va_start(ap, fmt);
    int r = tap_vresult_(pass, file, line, fmt, ap);
    va_end(ap);
    if (!r)
        diag("         got: %.17g\n    expected: %.17g (tolerance %g)", got, exp, tol);
    return r;
}

TAP_PRINTF(5, 6)
static inline int tap_is_str_(const char *got, const char *exp, const char *file, int line,
                              const char *fmt, ...)
{
    int pass = (got == NULL && exp == NULL) || (got && exp && strcmp(got, exp) == 0);
    va_list ap;
    va_start(ap, fmt);
    int r = tap_vresult_(pass, file, line, fmt, ap);
    va_end(ap);
    if (!r) {
        FILE *f = tap_out_();
        /* Multi-line strings: print line by line so the "# " prefix holds. */
        const char *lab[2] = {"         got: ", "    expected: "};
        const char *s[2] = {got, exp};
        for (int k = 0; k < 2; k++) {
            if (!s[k]) {
                fprintf(f, "# %sNULL\n", lab[k]);
                continue;
            }
            const char *p = s[k];
            fprintf(f, "# %s'", lab[k]);
            for (; *p; p++) {
                if (*p == '\n')
                    fprintf(f, "\\n'\n# %*s'", (int)strlen(lab[k]), "");
                else
                    fputc(*p, f);
            }
            fputs("'\n", f);
        }
        fflush(f);
    }
    return r;
}

static inline void tap_hex_window_(const char *label, const unsigned char *p, size_t n, size_t from)
{
    char line[16 * 3 + 1];
    size_t end = from + 16 < n ? from + 16 : n;
    size_t k = 0;
    for (size_t i = from; i < end; i++)
        k += (size_t)snprintf(line + k, sizeof line - k, " %02x", p[i]);
    line[k] = 0;
    diag("%s[%zu..%zu):%s", label, from, end, line);
}

TAP_PRINTF(6, 7)
static inline int tap_is_mem_(const void *got, const void *exp, size_t n, const char *file,
                              int line, const char *fmt, ...)
{
    const unsigned char *g = got, *e = exp;
    size_t at = 0;
    int pass = 1;
    if (!g || !e) {
        pass = g == e;
    } else {
        for (at = 0; at < n; at++)
            if (g[at] != e[at]) {
                pass = 0;
                break;
            }
    }
    va_list ap;
    va_start(ap, fmt);
    int r = tap_vresult_(pass, file, line, fmt, ap);
    va_end(ap);
    if (!r) {
        if (!g || !e) {
            diag("         got: %s\n    expected: %s", g ? "buffer" : "NULL",
                 e ? "buffer" : "NULL");
        } else {
            diag("    first difference at byte %zu of %zu: got 0x%02x, expected 0x%02x", at, n,
                 g[at], e[at]);
            size_t from = at & ~(size_t)15;
            tap_hex_window_("         got ", g, n, from);
            tap_hex_window_("    expected ", e, n, from);
        }
    }
    return r;
}

/* The assertions.  The description is a printf format and its arguments. */
#define ok(cond, ...) tap_ok_(!!(cond), __FILE__, __LINE__, "" __VA_ARGS__)
#define is_int(got, exp, ...) \
    tap_is_int_((long long)(got), (long long)(exp), __FILE__, __LINE__, "" __VA_ARGS__)
#define is_uint(got, exp, ...)                                                             \
    tap_is_uint_((unsigned long long)(got), (unsigned long long)(exp), __FILE__, __LINE__, \
                 "" __VA_ARGS__)
#define is_double(got, exp, tol, ...) \
    tap_is_double_((double)(got), (double)(exp), (double)(tol), __FILE__, __LINE__, "" __VA_ARGS__)
#define is_str(got, exp, ...)    tap_is_str_((got), (exp), __FILE__, __LINE__, "" __VA_ARGS__)
#define is_mem(got, exp, n, ...) tap_is_mem_((got), (exp), (n), __FILE__, __LINE__, "" __VA_ARGS__)

/* Records n skipped tests ("ok N # skip why"). */
static inline void skip(int n, const char *why)
{
    FILE *f = tap_out_();
    for (int i = 0; i < n; i++)
        fprintf(f, "ok %d # skip %s\n", ++tap_state.run, why ? why : "");
    fflush(f);
}

/* Skips the whole program: `return skip_all("no nvcc");` before any test. */
static inline int skip_all(const char *why)
{
    fprintf(tap_out_(), "1..0 # SKIP %s\n", why ? why : "");
    fflush(tap_out_());
    tap_state.planned = 0;
    return 0;
}

/* Tests between todo_start() and todo_end() may fail without failing the run. */
static inline void todo_start(const char *why)
{
    tap_state.todo = why ? why : "";
}

static inline void todo_end(void)
{
    tap_state.todo = NULL;
}

/* Stops the whole run: prove reports the reason and fails. */
static inline void bail_out(const char *why)
{
    fprintf(tap_out_(), "Bail out! %s\n", why ? why : "");
    fflush(tap_out_());
    exit(255);
}

/*
 * Ends the test program: prints the plan if there was none, complains about a
 * plan/run mismatch, and returns the exit status (0 iff everything passed):
 * `return done_testing();`.
 */
static inline int done_testing(void)
{
    if (tap_state.planned < 0) {
        tap_state.planned = tap_state.run;
        fprintf(tap_out_(), "1..%d\n", tap_state.run);
    } else if (tap_state.planned != tap_state.run) {
        diag("Looks like you planned %d tests but ran %d.", tap_state.planned, tap_state.run);
        fflush(tap_out_());
        return 255;
    }
    if (tap_state.failed)
        diag("Looks like you failed %d test%s of %d.", tap_state.failed,
             tap_state.failed == 1 ? "" : "s", tap_state.run);
    fflush(tap_out_());
    return tap_state.failed > 254 ? 254 : tap_state.failed;
}

#endif /* PTXEMU_TESTS_TAP_H */
