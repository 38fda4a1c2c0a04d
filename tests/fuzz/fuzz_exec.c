/*
 * tests/fuzz/fuzz_exec.c — libFuzzer harness that runs what it loads: front end, program load
 * and a launch of every kernel.
 *
 * Each input is PTX text. A module fe_load accepts is loaded onto a fresh emulated device
 * (interp_program_load), and every defined .entry is launched once on a tiny grid:
 *   - grid (2,1,1), block (32,1,1) — or the kernel's .reqntid when it has one (.maxntid is
 *     respected by taking the smaller), so barriers, warp shuffles and CTA-wide code run;
 *   - every 8-byte parameter (what pointers are in 64-bit PTX) points at its own zeroed 4 KiB
 *     global buffer; other parameters are zero; 256 bytes of dynamic shared memory;
 *   - an instruction budget of FUZZ_EXEC_BUDGET warp instructions per launch (runaway loops end
 *     as TRAP_BUDGET, not as a libFuzzer timeout), one host thread, deterministic order;
 *   - bounded memory: a 64 KiB device malloc heap, and modules whose .global/.const variables
 *     total more than 1 MiB, or whose kernels need more than 48 KiB of shared or 64 KiB of
 *     local memory per thread, are not run (the store would allocate what they declare: an
 *     honest out-of-memory, not a bug).
 * Faults are the expected outcome of most mutated kernels: a trap record is fine, a crash,
 * sanitizer report, leak or hang is a finding. The harness traps (__builtin_trap) when
 * interp_launch breaks its contract: a result other than 0, 1 or negative, or a trap record
 * with kind TRAP_NONE after result 1.
 *
 * Diagnostics, trap reports and device printf output go to /dev/null (PTXEMU_FUZZ_DIAG=1:
 * to stderr, for reading a reproducer).
 *
 * Build: `ninja fuzz` (build-fuzz/fuzz_exec); run: scripts/fuzz.sh exec (tests/fuzz/README.md).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "interp/interp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum {
    FUZZ_EXEC_BUDGET = 20000,          /* warp instructions per launch */
    FUZZ_EXEC_BUF = 4096,              /* bytes behind each pointer parameter */
    FUZZ_EXEC_MAX_VARS = 1 << 20,      /* .global + .const bytes a module may declare */
    FUZZ_EXEC_MAX_SHARED = 48 << 10,   /* static .shared bytes per kernel */
    FUZZ_EXEC_MAX_LOCAL = 64 << 10,    /* .local bytes per thread */
    FUZZ_EXEC_MAX_PARAMS = 4096,       /* parameter block bytes */
};

static bool fuzz_verbose(void)
{
    static int on = -1;
    if (on < 0) {
        const char *e = getenv("PTXEMU_FUZZ_DIAG");
        on = e && *e && *e != '0';
    }
    return on;
}

/* The sink for diagnostics, trap reports and printf output: opened once, kept. */
static FILE *fuzz_sink(void)
{
    static FILE *sink;
    if (!sink) {
        sink = fuzz_verbose() ? stderr : fopen("/dev/null", "w");
        if (!sink)
            __builtin_trap();
    }
    return sink;
}

/* Would running m allocate more than the harness allows? (See the header comment.) */
static bool fuzz_too_big(const struct ir_module *m)
{
    uint64_t vars = 0;
    for (uint32_t i = 0; i < m->nsyms; i++) {
        const struct ir_sym *s = &m->syms[i];
        if (s->space == SP_GLOBAL || s->space == SP_CONST) {
            vars += s->size;
            if (vars > FUZZ_EXEC_MAX_VARS)
                return true;
        }
    }
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        const struct ir_func *f = &m->funcs[i];
        if (f->shared_size > FUZZ_EXEC_MAX_SHARED || f->local_size > FUZZ_EXEC_MAX_LOCAL ||
            f->param_size > FUZZ_EXEC_MAX_PARAMS)
            return true;
    }
    return false;
}

/* The block size for kernel ki: 32 threads, or what .reqntid / .maxntid demand. */
static void fuzz_block(const struct interp_kernel_info *ki, uint32_t block[3])
{
    block[0] = 32, block[1] = 1, block[2] = 1;
    if (ki->reqntid[0]) {
        memcpy(block, ki->reqntid, 3 * sizeof *block);
        for (int i = 0; i < 3; i++)
            if (!block[i])
                block[i] = 1;
        return;
    }
    if (ki->max_threads && ki->max_threads < 32)
        block[0] = ki->max_threads;
}

/* Launch kernel k once; buffer arguments are allocated in d's store and freed again. */
static void fuzz_launch(struct interp_dev *d, const struct interp_kernel *k, FILE *sink)
{
    struct interp_kernel_info ki;
    interp_kernel_info(k, &ki);
    struct mem *mem = interp_dev_mem(d);
    uint8_t params[FUZZ_EXEC_MAX_PARAMS] = {0};
    uint64_t bufs[FUZZ_EXEC_MAX_PARAMS / 8];
    unsigned nbufs = 0;
    if (ki.param_size_total > sizeof params)
        return;
    for (unsigned i = 0; i < ki.nparams; i++) {
        if (ki.param_size[i] != 8 || ki.param_offset[i] + 8 > ki.param_size_total)
            continue;
        uint64_t a;
        if (mem_alloc(mem, FUZZ_EXEC_BUF, 0, &a) < 0)
            break;
        mem_set(mem, a, 0, FUZZ_EXEC_BUF);
        bufs[nbufs++] = a;
        memcpy(params + ki.param_offset[i], &a, 8);
    }
    struct interp_launch l = {.kernel = k, .grid = {2, 1, 1}, .shared_dynamic = 256,
                              .params = params};
    fuzz_block(&ki, l.block);
    struct interp_stats st;
    struct trap trap;
    memset(&st, 0, sizeof st);
    memset(&trap, 0, sizeof trap);
    int r = interp_launch(d, &l, &st, &trap);
    if (r > 1)
        __builtin_trap(); /* 0, 1 or a negative error */
    if (r == 1) {
        if (trap.kind == TRAP_NONE)
            __builtin_trap(); /* "trapped" without a trap */
        if (fuzz_verbose())
            interp_trap_report(sink, &trap);
    } else if (r < 0 && fuzz_verbose()) {
        fprintf(sink, "fuzz_exec: launch of %s rejected: %s\n", ki.name, trap.msg);
    }
    for (unsigned i = 0; i < nbufs; i++)
        mem_free(mem, bufs[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *sink = fuzz_sink();
    struct fe_opts opts = {.diag = sink};
    struct ir_module *m = NULL;
    if (fe_load((const char *)data, size, "fuzz.ptx", &opts, &m) != 0 || !m)
        return 0;
    if (fuzz_too_big(m)) {
        ir_module_free(m);
        return 0;
    }
    struct interp_config cfg = {
        .sm = m->target_sm > 90 ? m->target_sm : 90,
        .nsm = 4,
        .threads = 1,
        .deterministic = true,
        .insn_budget = FUZZ_EXEC_BUDGET,
        .trace_thread = -1,
        .printf_out = sink,
        .heap_size = 64 << 10,
        .printf_fifo = 64 << 10,
    };
    struct interp_dev *d = NULL;
    if (interp_dev_create(&cfg, &d) < 0 || !d) {
        ir_module_free(m);
        return 0;
    }
    const struct ir_module *mods[1] = {m};
    struct interp_program *prog = NULL;
    if (interp_program_load(d, mods, 1, sink, &prog) == 0 && prog) {
        for (uint32_t i = 0; i < m->nfuncs; i++) {
            const struct ir_func *f = &m->funcs[i];
            if (!f->is_entry || !f->defined)
                continue;
            const struct interp_kernel *k = interp_program_kernel(prog, ir_str(m, f->name));
            if (k)
                fuzz_launch(d, k, sink);
        }
        interp_program_unload(prog);
    }
    interp_dev_destroy(d);
    ir_module_free(m);
    return 0;
}
