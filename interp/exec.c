/*
 * interp/exec.c — the portable fast dispatch loop (exec_loop.h instantiated once: computed
 * goto on GCC/Clang, `switch` with -DPTXEMU_VM_SWITCH), and the choice of fast loop per host.
 *
 * The other instantiations are translation units of their own, so ninja compiles them in
 * parallel: exec_v3.c (x86-64-v3 hosts), exec_slow.c (tracing and single-stepping).
 */
#ifndef PTXEMU_SLOW_LOOP_ONLY
#define EXEC_FN exec_loop_fast
#define EXEC_ATTR
#define EXEC_HWFMA 0
#endif
#include "interp/exec_loop.h"

#ifdef PTXEMU_SLOW_LOOP_ONLY
/* -DPTXEMU_SLOW_LOOP_ONLY (the instrumented fuzz build, tests/fuzz/fuzz.ninja): no inline loop;
 * warps run exec_slow.c's loop, whose handlers are the same bodies as small functions (clang
 * with coverage and sanitizers takes minutes on the inline loop, seconds on those). */
unsigned exec_select_isa(void)
{
    return EXEC_ISA_PORTABLE;
}

enum warp_state exec_warp(struct warp *w)
{
    return exec_warp_trace(w);
}
#else

/*
 * The fast-loop variant for this host, chosen once per launch (grid.c stores it in
 * launch_state.exec_isa): EXEC_ISA_V3 when the CPU has AVX2 and FMA, else EXEC_ISA_PORTABLE.
 * PTXEMU_EXEC_PORTABLE=1 in the environment forces the portable loop (tests run both).
 */
unsigned exec_select_isa(void)
{
#if EXEC_HAVE_V3
    const char *e = getenv("PTXEMU_EXEC_PORTABLE");
    if (e && *e && strcmp(e, "0") != 0)
        return EXEC_ISA_PORTABLE;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
        __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") &&
        __builtin_cpu_supports("popcnt"))
        return EXEC_ISA_V3;
#endif
    return EXEC_ISA_PORTABLE;
}

/*
 * Run warp w until it parks at a barrier, finishes, faults, or has run about one quantum of
 * warp instructions. The fast loop: no tracing branches.
 */
enum warp_state exec_warp(struct warp *w)
{
#if EXEC_HAVE_V3
    if (w->cta->L->exec_isa == EXEC_ISA_V3)
        return exec_loop_fast_v3(w);
#endif
    return exec_loop_fast(w);
}
#endif
