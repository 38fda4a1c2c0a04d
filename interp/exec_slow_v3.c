/*
 * interp/exec_slow_v3.c — the tracing and checking loop of exec_slow.c compiled for x86-64-v3
 * hosts (AVX2 + FMA): its handlers' lane loops vectorize 8 wide and fma.rn.f32 is the host's
 * fused multiply-add, as in the fast loop of exec_v3.c (bit-identical to the portable one).
 * exec_slow.c's exec_warp_trace picks it when the launch runs the v3 fast loop. Empty on
 * other hosts and compilers (EXEC_SLOW_HAVE_V3 in exec_slow.c).
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&                        \
    !defined(PTXEMU_NO_ISA_VARIANTS)
#pragma GCC target("avx2,fma,bmi,bmi2,popcnt")
#define EXEC_SLOW_V3 1
#include "interp/exec_slow.c"
#else
typedef int exec_slow_v3_unused; /* ISO C: a translation unit declares something */
#endif
