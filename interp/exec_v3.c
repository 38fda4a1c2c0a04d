/*
 * interp/exec_v3.c — the fast dispatch loop compiled for x86-64-v3 hosts (AVX2 + FMA): the lane
 * loops vectorize 8 wide and fma.rn.f32 is the host's fused multiply-add, bit-identical to the
 * portable correctly rounded fpu_fmaf_rn. exec.c's exec_warp picks it when the CPU has them.
 * Empty where EXEC_HAVE_V3 is 0 (other hosts, -DPTXEMU_NO_ISA_VARIANTS).
 */
#include "interp/exec_loop.h"

#if EXEC_HAVE_V3
#define EXEC_FN exec_loop_fast_v3
#define EXEC_ATTR __attribute__((target("avx2,fma,bmi,bmi2,popcnt")))
#define EXEC_HWFMA 1
#include "interp/exec_loop.h"
#else
typedef int exec_v3_unused; /* ISO C: a translation unit declares something */
#endif
