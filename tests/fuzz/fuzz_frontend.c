/*
 * tests/fuzz/fuzz_frontend.c — libFuzzer harness for the front end.
 *
 * Every input is handed to fe_load as PTX text (not NUL-terminated: fe_load must not read past
 * len). Besides "no crash, no sanitizer report, no leak", the harness checks fe_load's
 * contract and, on modules it accepts, the IR invariants:
 *   - return 0 <=> *out != NULL; errors are negative;
 *   - an accepted module passes ir_verify (PCs, slots, reconvergence points in range);
 *   - an accepted module prints (ir_print_module) without crashing;
 *   - PTXEMU_FUZZ_ROUNDTRIP=1: the printed module loads again (frontend.h promises the
 *     canonical output re-parses), opt-in because it is a stronger, slower oracle.
 * A broken contract is a __builtin_trap(), which libFuzzer reports as a crash.
 *
 * Diagnostics go to /dev/null, through one FILE opened on the first call and kept for the
 * process (PTXEMU_FUZZ_DIAG=1 sends them to stderr instead, for reading a reproducer).
 *
 * Build: `ninja fuzz` (build-fuzz/fuzz_frontend); run: scripts/fuzz.sh (see tests/fuzz/README.md).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "frontend/frontend.h"
#include "frontend/passes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The sink for diagnostics: opened once, never closed (libFuzzer exits the process). */
static FILE *fuzz_diag(void)
{
    static FILE *sink;
    if (!sink) {
        const char *e = getenv("PTXEMU_FUZZ_DIAG");
        sink = (e && *e && *e != '0') ? stderr : fopen("/dev/null", "w");
        if (!sink)
            __builtin_trap(); /* the harness cannot run without a sink */
    }
    return sink;
}

static bool fuzz_roundtrip(void)
{
    static int on = -1;
    if (on < 0) {
        const char *e = getenv("PTXEMU_FUZZ_ROUNDTRIP");
        on = e && *e && *e != '0';
    }
    return on;
}

/* Load `len` bytes at `text`; trap when fe_load breaks its contract. Returns the module or
 * NULL (input rejected with diagnostics). */
static struct ir_module *fuzz_load(const char *text, size_t len, FILE *diag)
{
    struct fe_opts opts = { .diag = diag, .max_errors = 0, .no_cfg = false, .verify = true };
    struct ir_module *m = (struct ir_module *)(uintptr_t)1; /* must be overwritten */
    int rc = fe_load(text, len, "fuzz.ptx", &opts, &m);
    if (rc > 0)
        __builtin_trap(); /* errors are negative counts */
    if (rc == 0 && !m)
        __builtin_trap(); /* success without a module */
    if (rc < 0 && m)
        __builtin_trap(); /* failure must leave *out NULL */
    return m;
}

/* Print m into a malloc'd buffer (*len bytes); NULL when open_memstream fails. */
static char *fuzz_print(const struct ir_module *m, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f)
        return NULL;
    ir_print_module(f, m);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *diag = fuzz_diag();
    struct ir_module *m = fuzz_load((const char *)data, size, diag);
    if (!m)
        return 0;

    if (ir_verify(m, diag) != 0)
        __builtin_trap(); /* fe_load accepted a module the verifier rejects */

    size_t plen = 0;
    char *printed = fuzz_print(m, &plen);
    if (printed && fuzz_roundtrip()) {
        struct ir_module *m2 = fuzz_load(printed, plen, diag);
        if (!m2) {
            fprintf(stderr, "fuzz_frontend: printed module does not re-load:\n%.*s\n",
                    (int)plen, printed);
            __builtin_trap();
        }
        ir_module_free(m2);
    }
    free(printed);
    ir_module_free(m);
    return 0;
}
