/*
 * tests/unit/fpu_test.c — the fast paths of interp/fpu.h against their exact or libm
 * references: fpu_dir32 (directed f32 rounding by conversion + one step) against the bit-level
 * rounder fpu_from_double on random doubles and error signs; fpu_fmaf_rn against the C library's
 * fmaf; fpu_ex2 / fpu_lg2 against exp2 / log2 (relative error below 2^-50 in double, and the
 * f32 results of ex2.approx/lg2.approx within one ulp of the libm ones), special values exactly.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "interp/fpu.h"
#include "tests/tap.h"

/* xorshift64 random bits (fixed seed: the run is reproducible) */
static uint64_t rng = 0x2545f4914f6cdd1du;
static uint64_t rnd64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* a random double whose f32 rounding is interesting: all f32 binades incl. subnormal and
 * overflow, exact f32 values, f32 midpoints, and values just off them */
static double rnd_double(void)
{
    uint64_t r = rnd64();
    int e = (int)(r % 300) - 160; /* 2^-160 .. 2^140 */
    double m = 1.0 + (double)(rnd64() >> 12) * 0x1p-52;
    double x = ldexp(m, e);
    switch (rnd64() % 4) {
    case 0: x = (double)(float)x; break;                                   /* an f32 value */
    case 1: x = (double)(float)x + ldexp(1.0, ilogb(x) - 24); break;         /* a midpoint */
    case 2: x = nextafter((double)(float)x, INFINITY); break;                 /* just above */
    default: break;
    }
    return (r >> 40 & 1) ? -x : x;
}

static uint32_t f2u(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static void test_dir32(void)
{
    static const enum fpu_mode modes[] = {FPU_RZ, FPU_RM, FPU_RP, FPU_RN};
    static const char *const names[] = {"rz", "rm", "rp", "rn"};
    for (unsigned mi = 0; mi < 4; mi++) {
        unsigned bad = 0, n = 0;
        uint32_t got = 0, want = 0;
        double bad_s = 0;
        for (unsigned i = 0; i < 400000; i++) {
            double s = rnd_double();
            if (s == 0 || isinf(s))
                continue;
            int es = (int)(rnd64() % 3) - 1;
            uint32_t g = f2u(fpu_dir32(s, es, modes[mi]));
            uint32_t w = (uint32_t)fpu_from_double(s, es, FPU_F32, modes[mi], 0);
            n++;
            if (g != w && !bad++) {
                got = g;
                want = w;
                bad_s = s;
            }
        }
        ok(bad == 0, "fpu_dir32 .%s equals fpu_from_double on %u random values (%u differ)",
           names[mi], n, bad);
        if (bad)
            diag("s = %a: got %08x, want %08x", bad_s, got, want);
    }
    /* the edges by hand: overflow, underflow to zero, the last subnormal */
    is_uint(f2u(fpu_dir32(0x1.fffffffp127, 0, FPU_RM)), 0x7f7fffffu, "rm just above FLT_MAX");
    is_uint(f2u(fpu_dir32(0x1.fffffffp127, 0, FPU_RP)), 0x7f800000u, "rp just above FLT_MAX");
    is_uint(f2u(fpu_dir32(-0x1p200, 0, FPU_RZ)), 0xff7fffffu, "rz of -2^200");
    is_uint(f2u(fpu_dir32(0x1p-200, 0, FPU_RP)), 0x00000001u, "rp of 2^-200");
    is_uint(f2u(fpu_dir32(-0x1p-200, 0, FPU_RP)), 0x80000000u, "rp of -2^-200 is -0");
    is_uint(f2u(fpu_dir32(-0x1p-200, 0, FPU_RM)), 0x80000001u, "rm of -2^-200");
    is_uint(f2u(fpu_dir32(0x1p-149, -1, FPU_RM)), 0x00000000u, "rm of 2^-149 - tiny");
    is_uint(f2u(fpu_dir32(1.0, 1, FPU_RP)), 0x3f800001u, "rp of 1 + tiny");
    is_uint(f2u(fpu_dir32(1.0, -1, FPU_RZ)), 0x3f7fffffu, "rz of 1 - tiny");
}

static void test_fmaf_rn(void)
{
    unsigned bad = 0;
    for (unsigned i = 0; i < 300000; i++) {
        float a = (float)rnd_double(), b = (float)rnd_double(), c = (float)rnd_double();
        if (i % 3 == 0)
            c = -(float)((double)a * (double)b); /* heavy cancellation */
        float g = fpu_fmaf_rn(a, b, c), w = fmaf(a, b, c);
        if (f2u(g) != f2u(w) && !(g != g && w != w))
            bad++;
    }
    ok(bad == 0, "fpu_fmaf_rn equals fmaf on 300000 random triples (%u differ)", bad);
}

static void test_fma_dir32(void)
{
    static const enum fpu_mode modes[] = {FPU_RZ, FPU_RM, FPU_RP};
    static const char *const names[] = {"rz", "rm", "rp"};
    static const float sp[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f, -1.0f, 0x1p-149f,
                               3.4028235e38f};
    for (unsigned mi = 0; mi < 3; mi++) {
        unsigned bad = 0, n = 0;
        for (unsigned i = 0; i < 300000; i++) {
            float a = (float)rnd_double(), b = (float)rnd_double(), c = (float)rnd_double();
            if (i % 3 == 0)
                c = -(float)((double)a * (double)b);
            if (i % 7 == 0)
                a = sp[rnd64() % 9];
            if (i % 11 == 0)
                c = sp[rnd64() % 9];
            float g = fpu_fma_dir32(a, b, c, modes[mi]), w = fpu_fma_f32(a, b, c, modes[mi]);
            n++;
            if (f2u(g) != f2u(w) && !(g != g && w != w))
                bad++;
        }
        ok(bad == 0, "fpu_fma_dir32 .%s equals fpu_fma_f32 on %u triples with specials (%u differ)",
           names[mi], n, bad);
    }
    is_uint(f2u(fpu_fma_dir32(2.0f, 3.0f, -6.0f, FPU_RM)), 0x80000000u, "rm: 2*3 - 6 = -0");
    is_uint(f2u(fpu_fma_dir32(2.0f, 3.0f, -6.0f, FPU_RP)), 0x00000000u, "rp: 2*3 - 6 = +0");
    is_uint(f2u(fpu_fma_dir32(0.0f, 1.0f, 0.0f, FPU_RM)), 0x00000000u, "rm: +0 + +0 = +0");
    is_uint(f2u(fpu_fma_dir32(-0.0f, 1.0f, -0.0f, FPU_RP)), 0x80000000u, "rp: -0 + -0 = -0");
}

/* relative error of got against want in units of 2^-50 (0 when equal) */
static double rel50(double got, double want)
{
    if (got == want)
        return 0;
    return fabs(got - want) / fabs(want) * 0x1p50;
}

static void test_ex2_lg2(void)
{
    double worst_e = 0, worst_l = 0, at_e = 0, at_l = 0;
    unsigned ulp_e = 0, ulp_l = 0;
    for (unsigned i = 0; i < 300000; i++) {
        /* f32 inputs across the range that gives finite non-zero f32 results */
        float x = (float)((double)(rnd64() >> 11) * 0x1p-53 * 300.0 - 160.0);
        if (i % 4 == 0)
            x = (float)((double)(rnd64() >> 11) * 0x1p-53 * 2.0 - 1.0); /* near 0 */
        double e = rel50(fpu_ex2(x), exp2(x));
        if (e > worst_e) {
            worst_e = e;
            at_e = x;
        }
        float fe = (float)fpu_ex2(x), we = (float)exp2(x);
        if (f2u(fe) != f2u(we) && (f2u(fe) > f2u(we) ? f2u(fe) - f2u(we) : f2u(we) - f2u(fe)) > 1)
            ulp_e++;
        float y = (float)ldexp(1.0 + (double)(rnd64() >> 12) * 0x1p-52, (int)(rnd64() % 276) - 149);
        if (i % 4 == 0)
            y = (float)(1.0 + ((double)(rnd64() >> 11) * 0x1p-53 - 0.5) * 0x1p-10); /* near 1 */
        double want = log2(y);
        double l = want == 0 ? fabs(fpu_lg2(y)) * 0x1p50 : rel50(fpu_lg2(y), want);
        if (fabs(want) < 1e-3) /* near 1: absolute error, scaled like the relative one */
            l = fabs(fpu_lg2(y) - want) * 0x1p50 / 1e-3;
        if (l > worst_l) {
            worst_l = l;
            at_l = y;
        }
        float fl = (float)fpu_lg2(y), wl = (float)log2(y);
        if (f2u(fl) != f2u(wl) && (f2u(fl) > f2u(wl) ? f2u(fl) - f2u(wl) : f2u(wl) - f2u(fl)) > 1)
            ulp_l++;
    }
    ok(worst_e < 1.0, "fpu_ex2 relative error < 2^-50 on 300000 f32 inputs (worst %.3g * 2^-50 at %a)",
       worst_e, at_e);
    ok(worst_l < 1.0, "fpu_lg2 error < 2^-50 on 300000 f32 inputs (worst %.3g * 2^-50 at %a)",
       worst_l, at_l);
    is_uint(ulp_e, 0, "ex2 f32 results within 1 ulp of libm's");
    is_uint(ulp_l, 0, "lg2 f32 results within 1 ulp of libm's");
    /* exact cases and special values */
    ok(fpu_ex2(0) == 1 && fpu_ex2(1) == 2 && fpu_ex2(-3) == 0.125 && fpu_ex2(10) == 1024,
       "ex2 of integers is exact");
    ok(fpu_ex2(INFINITY) == INFINITY && fpu_ex2(-INFINITY) == 0 && isnan(fpu_ex2(NAN)),
       "ex2(inf) = inf, ex2(-inf) = 0, ex2(NaN) = NaN");
    ok((float)fpu_ex2(128) == INFINITY && (float)fpu_ex2(-151) == 0 &&
           f2u((float)fpu_ex2(-149)) == 1,
       "ex2 f32 overflow, underflow and the smallest subnormal");
    ok(fpu_lg2(1) == 0 && fpu_lg2(2) == 1 && fpu_lg2(0.25) == -2 && fpu_lg2(0x1p-149) == -149,
       "lg2 of powers of two is exact (subnormal too)");
    ok(fpu_lg2(0) == -INFINITY && fpu_lg2(-0.0) == -INFINITY && isnan(fpu_lg2(-1)) &&
           fpu_lg2(INFINITY) == INFINITY && isnan(fpu_lg2(NAN)),
       "lg2(+-0) = -inf, lg2(x < 0) = NaN, lg2(inf) = inf, lg2(NaN) = NaN");
}

int main(void)
{
    test_dir32();
    test_fmaf_rn();
    test_fma_dir32();
    test_ex2_lg2();
    return done_testing();
}
