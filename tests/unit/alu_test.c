/*
 * tests/unit/alu_test.c — exact checks of the ALU helpers in interp/fpu.h: directed-rounding
 * f32 add/mul/fma/div/sqrt against the host FPU run in the same rounding mode (fesetround),
 * f16/bf16 conversions on all 65536 inputs against independent references, f32 -> f16/bf16
 * rounding against the host's _Float16 and a bit-level reference, prmt modes, bfind, fns,
 * bfe/bfi, div/rem edge cases, float -> int saturation, e4m3/e5m2 encodings, the sm_100 fp4 / fp6 /
 * ue8m0 and .rs conversions. TAP output.
 */
#include <fenv.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "interp/fpu.h"

static int ntest;
static int nfail;

static void ok(int cond, const char *desc)
{
    ntest++;
    if (!cond)
        nfail++;
    printf("%s %d - %s\n", cond ? "ok" : "not ok", ntest, desc);
}

/* xorshift64 random bits */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint64_t rnd64(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

/* a random f32 with interesting exponents: full range, near 1, subnormal, specials */
static float rndf(void)
{
    uint64_t r = rnd64();
    uint32_t u = (uint32_t)r;
    switch ((r >> 32) % 8) {
    case 0: u = (u & 0x807fffffu) | (uint32_t)((127 + (int)((r >> 40) % 8) - 4) << 23); break;
    case 1: u &= 0x807fffffu; break;                       /* subnormal */
    case 2: u = (u & 0x80ffffffu) | 0x7e000000u; break;    /* near overflow */
    case 3: u = (u & 0x80ffffffu) | 0x00800000u; break;    /* near underflow */
    default: break;
    }
    if ((r >> 48) % 64 == 0)
        u = (r >> 56) & 1 ? 0x7f800000u : 0x00000000u | ((uint32_t)(r >> 57) << 31);
    return fpu_u2f(u);
}

static const int host_modes[] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
static const char *mode_names[] = {"rn", "rz", "rm", "rp"};

/* host reference with volatile operands so the operation happens under the set mode */
static float host_op(int op, float a, float b, float c, int mode)
{
    volatile float x = a, y = b, z = c;
    float r;
    fesetround(host_modes[mode]);
    switch (op) {
    case 0: r = x + y; break;
    case 1: r = x * y; break;
    case 2: r = fmaf(x, y, z); break;
    case 3: r = x / y; break;
    default: r = sqrtf(x); break;
    }
    volatile float rr = r;
    fesetround(FE_TONEAREST);
    return rr;
}

static float ours_op(int op, float a, float b, float c, int mode)
{
    switch (op) {
    case 0: return fpu_add_f32(a, b, (enum fpu_mode)mode);
    case 1: return fpu_mul_f32(a, b, (enum fpu_mode)mode);
    case 2: return fpu_fma_f32(a, b, c, (enum fpu_mode)mode);
    case 3: return fpu_div_f32(a, b, (enum fpu_mode)mode);
    default: return fpu_sqrt_f32(a, (enum fpu_mode)mode);
    }
}

static int same_f32(float x, float y)
{
    if (x != x && y != y)
        return 1; /* both NaN (ours is canonical, the host's is not) */
    return fpu_f2u(x) == fpu_f2u(y);
}

static void test_directed(void)
{
    static const char *opn[] = {"add", "mul", "fma", "div", "sqrt"};
    for (int op = 0; op < 5; op++) {
        for (int mode = 0; mode < 4; mode++) {
            int bad = 0;
            float ba = 0, bb = 0, bc = 0;
            for (int i = 0; i < 200000; i++) {
                float a = rndf(), b = rndf(), c = rndf();
                if (op == 2 && i % 3 == 0)
                    c = -a * b; /* cancellation */
                if (op == 0 && i % 5 == 0)
                    b = -a;
                float h = host_op(op, a, b, c, mode), o = ours_op(op, a, b, c, mode);
                if (!same_f32(h, o) && !bad++) {
                    ba = a, bb = b, bc = c;
                }
            }
            char d[128];
            snprintf(d, sizeof d, "f32 %s.%s matches host on 200000 inputs", opn[op],
                     mode_names[mode]);
            if (bad)
                printf("# first mismatch a=%a b=%a c=%a (%d bad)\n", ba, bb, bc, bad);
            ok(bad == 0, d);
        }
    }
    /* the fast round-to-nearest fma */
    int bad = 0;
    for (int i = 0; i < 500000; i++) {
        float a = rndf(), b = rndf(), c = rndf();
        if (!same_f32(fpu_fmaf_rn(a, b, c), fmaf(a, b, c)))
            bad++;
    }
    /* a product that lands exactly on an f32 midpoint plus a tiny addend */
    float a = 1.0f + 0x1p-12f, b = 1.0f + 0x1p-12f; /* a*b = 1 + 2^-11 + 2^-24 */
    if (fpu_f2u(fpu_fmaf_rn(a, b, 0x1p-60f)) != fpu_f2u(fmaf(a, b, 0x1p-60f)))
        bad++;
    ok(bad == 0, "fpu_fmaf_rn equals libm fmaf (500000 inputs + midpoint case)");
    ok(fpu_f2u(fpu_add_f32(1.0f, -1.0f, FPU_RM)) == 0x80000000u &&
           fpu_f2u(fpu_add_f32(1.0f, -1.0f, FPU_RZ)) == 0 &&
           fpu_f2u(fpu_add_f32(-0.0f, -0.0f, FPU_RN)) == 0x80000000u,
       "exact zero sums: x-x is -0 only in .rm, -0 + -0 = -0");
    ok(fpu_f2u(fpu_add_f32(0x1p127f * 1.5f, 0x1p127f, FPU_RZ)) == 0x7f7fffffu &&
           fpu_f2u(fpu_add_f32(0x1p127f * 1.5f, 0x1p127f, FPU_RP)) == 0x7f800000u &&
           fpu_f2u(fpu_mul_f32(-0x1p127f, 4.0f, FPU_RP)) == 0xff7fffffu,
       "overflow: .rz gives MAX, .rp +inf, .rp of a negative overflow -MAX");
    ok(fpu_f2u(fpu_mul_f32(0x1p-149f, 0.5f, FPU_RP)) == 1 &&
           fpu_f2u(fpu_mul_f32(0x1p-149f, 0.5f, FPU_RN)) == 0 &&
           fpu_f2u(fpu_mul_f32(-0x1p-149f, 0.75f, FPU_RM)) == 0x80000001u,
       "underflow to the smallest subnormal per mode");
    ok(fpu_f2u(fpu_add_f32(fpu_u2f(0x7f800001u), 1.0f, FPU_RZ)) == FPU_NAN32 &&
           fpu_f2u(fpu_fmaf_rn(INFINITY, 0.0f, 1.0f)) == FPU_NAN32,
       "NaN results are the canonical 0x7fffffff");
}

/* f16 reference decode by formula */
static double ref_h2d(uint16_t h)
{
    int e = h >> 10 & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
    return (h & 0x8000) ? -v : v;
}

static void test_half(void)
{
    int bad = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        float f = fpu_h2f((uint16_t)h);
        double r = ref_h2d((uint16_t)h);
        if (r != r ? f == f : (double)f != r || (signbit(f) != 0) != (signbit(r) != 0))
            bad++;
        /* round trip: every f16 converts back exactly (NaN -> canonical) */
        uint16_t back = fpu_d2h(f, FPU_RN, 0);
        if (r != r ? back != 0x7fff : back != h)
            bad++;
        /* agrees with the host's _Float16 */
        _Float16 hf;
        memcpy(&hf, &h, 2);
        if (r == r && (float)hf != f)
            bad++;
    }
    ok(bad == 0, "f16 -> f32 exact and round-trips on all 65536 encodings");
    bad = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        float f = fpu_bf2f((uint16_t)h);
        uint16_t back = fpu_d2bf(f, FPU_RN, 0);
        if (f == f ? back != h : back != 0x7fff)
            bad++;
    }
    ok(bad == 0, "bf16 -> f32 -> bf16 round-trips on all 65536 encodings");
    /* f32 -> f16 .rn vs the host's _Float16 conversion, f32 -> bf16 .rn vs bit reference */
    int badh = 0, badb = 0, badd = 0;
    for (int i = 0; i < 1000000; i++) {
        float f = rndf();
        if (i % 2)
            f = fpu_u2f(((uint32_t)rnd64() & 0x8fffffffu) | 0x30000000u); /* f16 range */
        _Float16 hf = (_Float16)f;
        uint16_t hb;
        memcpy(&hb, &hf, 2);
        uint16_t o = fpu_d2h(f, FPU_RN, 0);
        if (f == f ? o != hb : o != 0x7fff)
            badh++;
        uint32_t u = fpu_f2u(f);
        uint16_t rb = (uint16_t)((u + 0x7fffu + (u >> 16 & 1)) >> 16);
        if (f == f && fpu_d2bf(f, FPU_RN, 0) != rb)
            badb++;
        /* directed modes bracket the value: rz <= |f|, rm <= f <= rp, neighbours */
        double dm = fpu_h2f(fpu_d2h(f, FPU_RM, 0)), dp = fpu_h2f(fpu_d2h(f, FPU_RP, 0));
        if (f == f && !(dm <= f && f <= dp && (dm == dp ? dm == f : 1)))
            badd++;
    }
    ok(badh == 0, "f32 -> f16 .rn equals _Float16 conversion (1000000 inputs)");
    ok(badb == 0, "f32 -> bf16 .rn equals the round-half-even bit formula (1000000 inputs)");
    ok(badd == 0, "f32 -> f16 .rm/.rp bracket the value, equal only when exact");
    ok(fpu_d2h(65520.0, FPU_RN, 0) == 0x7c00 && fpu_d2h(65520.0, FPU_RZ, 0) == 0x7bff &&
           fpu_d2h(1e9, FPU_RN, 1) == 0x7bff && fpu_d2h(-1e9, FPU_RN, 1) == 0xfbff &&
           fpu_d2h(0x1p-25, FPU_RN, 0) == 0 && fpu_d2h(0x1p-25 * 1.5, FPU_RN, 0) == 1 &&
           fpu_d2h(0x1p-30, FPU_RP, 0) == 1,
       "f16 overflow, satfinite, subnormal and tie cases");
    /* f16 arithmetic */
    ok(fpu_hop(0, 0x3c00, 0x3c00, 0, 0, FPU_RN, 0, 0, 0) == 0x4000 &&
           fpu_hop(1, 0x7bff, 0x4000, 0, 0, FPU_RN, 0, 0, 0) == 0x7c00 &&
           fpu_hop(2, 0x3c00, 0x3c00, 0xbc00, 0, FPU_RN, 0, 0, 0) == 0x0000 &&
           fpu_hop(0, 0x0001, 0x0000, 0, 0, FPU_RN, 1, 0, 0) == 0x0000 &&
           fpu_hop(0, 0x4000, 0x0000, 0, 0, FPU_RN, 0, 1, 0) == 0x3c00 &&
           fpu_hop(1, 0x7c00, 0x0000, 0, 0, FPU_RN, 0, 0, 0) == 0x7fff &&
           fpu_hop(2, 0xbc00, 0x3c00, 0x0000, 0, FPU_RN, 0, 0, 1) == 0x0000 &&
           fpu_hop(3, 0x3c00, 0x3c00, 0, 0, FPU_RM, 0, 0, 0) == 0x8000,
       "f16 add/mul/fma: 1+1, overflow, x-x, ftz, sat, inf*0 NaN, relu, .rm zero");
    /* fma single rounding: 1 + 2^-11 (tie) plus a tiny c must round up */
    ok(fpu_hop(2, 0x3c01, 0x3c00, 0x0001, 0, FPU_RN, 0, 0, 0) == 0x3c01 &&
           fpu_harith(2, 0x3c00, 0x3c00, 0x1000 /* 2^-11 */, 0, FPU_RN, 0) == 0x3c00 &&
           fpu_harith(2, 0x3c00, 0x3c00, 0x1001, 0, FPU_RN, 0) == 0x3c01,
       "f16 fma rounds once (tie to even, tie broken by sticky bits)");
    ok(fpu_hminmax(0x7e00, 0x3c00, 0, 0, 0, 0, 0, 0) == 0x3c00 &&
           fpu_hminmax(0x7e00, 0x3c00, 0, 0, 1, 0, 0, 0) == 0x7fff &&
           fpu_hminmax(0x8000, 0x0000, 0, 0, 0, 0, 0, 0) == 0x8000 &&
           fpu_hminmax(0x8000, 0x0000, 0, 1, 0, 0, 0, 0) == 0x0000 &&
           fpu_hminmax(0xc000, 0x3c00, 0, 0, 0, 1, 0, 0) == 0xbc00,
       "f16 min/max: NaN ignored, .NaN, -0 < +0, .xorsign.abs");
}

static void test_minmax_cvt(void)
{
    float qn = fpu_u2f(0x7fc00001u);
    ok(fpu_f2u(fpu_fminmax32(qn, 2.0f, 0, 0, 0)) == fpu_f2u(2.0f) &&
           fpu_f2u(fpu_fminmax32(qn, qn, 0, 0, 0)) == FPU_NAN32 &&
           fpu_f2u(fpu_fminmax32(1.0f, qn, 1, 1, 0)) == FPU_NAN32 &&
           fpu_f2u(fpu_fminmax32(-0.0f, 0.0f, 0, 0, 0)) == 0x80000000u &&
           fpu_f2u(fpu_fminmax32(-0.0f, 0.0f, 1, 0, 0)) == 0 &&
           fpu_f2u(fpu_fminmax32(-3.0f, 2.0f, 0, 0, 1)) == fpu_f2u(-2.0f),
       "f32 min/max NaN rules, signed zeros, xorsign.abs");
    ok(alu_f2i(NAN, 32, 1, FPU_RZ) == 0 && alu_f2i(3e9, 32, 1, FPU_RZ) == 0x7fffffff &&
           (uint32_t)alu_f2i(-3e9, 32, 1, FPU_RZ) == 0x80000000u &&
           alu_f2i(-1.5, 32, 0, FPU_RZ) == 0 && alu_f2i(5e9, 32, 0, FPU_RZ) == 0xffffffffu &&
           alu_f2i(2.5, 32, 1, FPU_RN) == 2 && alu_f2i(-2.5, 32, 1, FPU_RM) == 0xfffffffdu &&
           alu_f2i(2.1, 32, 1, FPU_RP) == 3 && alu_f2i(1e30, 64, 1, FPU_RZ) == INT64_MAX &&
           alu_f2i(INFINITY, 64, 0, FPU_RZ) == UINT64_MAX && alu_f2i(300.0, 8, 0, FPU_RZ) == 255 &&
           alu_f2i(-40000.0, 16, 1, FPU_RZ) == 0x8000,
       "float -> int: NaN 0, saturation per width, rni/rzi/rmi/rpi");
    ok(fpu_i2f(16777217, 0, FPU_F32, FPU_RN) == 0x4b800000u &&
           fpu_i2f(16777217, 0, FPU_F32, FPU_RP) == 0x4b800001u &&
           fpu_i2f((uint64_t)-16777217, 1, FPU_F32, FPU_RM) == 0xcb800001u &&
           fpu_i2f(UINT64_MAX, 0, FPU_F64, FPU_RZ) == 0x43efffffffffffffu &&
           fpu_i2f(UINT64_MAX, 0, FPU_F64, FPU_RN) == 0x43f0000000000000u &&
           fpu_i2f(65520, 0, FPU_F16, FPU_RN) == 0x7c00,
       "int -> float rounding in each mode (f32, f64, f16)");
    /* e4m3 / e5m2 */
    ok(fpu_cvt_narrow(448.0, FPU_E4M3, FPU_RN, 1, 0) == 0x7e &&
           fpu_cvt_narrow(1000.0, FPU_E4M3, FPU_RN, 1, 0) == 0x7e &&
           fpu_cvt_narrow(-1000.0, FPU_E4M3, FPU_RN, 1, 0) == 0xfe &&
           fpu_cvt_narrow(NAN, FPU_E4M3, FPU_RN, 1, 0) == 0x7f &&
           fpu_cvt_narrow(1.0, FPU_E4M3, FPU_RN, 1, 0) == 0x38 &&
           fpu_cvt_narrow(0x1p-9, FPU_E4M3, FPU_RN, 1, 0) == 0x01 &&
           fpu_cvt_narrow(-2.0, FPU_E4M3, FPU_RN, 1, 1) == 0x00 &&
           fpu_cvt_narrow(57344.0, FPU_E5M2, FPU_RN, 1, 0) == 0x7b &&
           fpu_cvt_narrow(INFINITY, FPU_E5M2, FPU_RN, 1, 0) == 0x7b &&
           fpu_cvt_narrow(INFINITY, FPU_E5M2, FPU_RN, 0, 0) == 0x7c &&
           fpu_cvt_narrow(1.0, FPU_E5M2, FPU_RN, 1, 0) == 0x3c,
       "e4m3/e5m2 encodings: max, satfinite, NaN, subnormal, relu, inf");
    int bad = 0;
    for (unsigned b = 0; b < 256; b++) {
        double v = fpu_unpack(b, FPU_E4M3);
        uint64_t back = fpu_cvt_narrow(v, FPU_E4M3, FPU_RN, 1, 0);
        if (v == v ? back != b : (b & 0x7f) != 0x7f)
            bad++;
        if ((b & 0x7f) == 0x7f ? v == v : v != v)
            bad++;
        double v5 = fpu_unpack(b, FPU_E5M2);
        if (v5 == v5 && !isinf(v5) && fpu_cvt_narrow(v5, FPU_E5M2, FPU_RN, 0, 0) != b)
            bad++;
    }
    ok(bad == 0, "e4m3/e5m2 decode/encode round trip on all 256 encodings");
    ok(fpu_f2tf32(1.0f + 0x1p-11f, FPU_RNA, 0, 0) == 0x3f802000u &&
           fpu_f2tf32(1.0f + 0x1p-11f, FPU_RN, 0, 0) == 0x3f800000u &&
           fpu_f2tf32(NAN, FPU_RNA, 0, 0) == FPU_NAN32,
       "tf32: .rna ties away, .rn ties to even, NaN canonical");
    struct alu_cvt c;
    memset(&c, 0, sizeof c);
    c.skind = 1, c.sbits = 32, c.dkind = 0, c.dbits = 8, c.sat = 1;
    int okc = alu_cvt_one(&c, 0xffffffffu) == 0 && alu_cvt_one(&c, 300) == 255;
    c.sat = 0;
    okc = okc && alu_cvt_one(&c, 300) == 44;
    c.dkind = 1;
    okc = okc && alu_cvt_one(&c, 200) == (uint64_t)(int64_t)-56;
    c.skind = 2, c.sbits = 32, c.sfmt = FPU_F32, c.dkind = 2, c.dbits = 32, c.dfmt = FPU_F32;
    c.irnd = 1, c.mode = FPU_RN;
    okc = okc && alu_cvt_one(&c, fpu_f2u(2.5f)) == fpu_f2u(2.0f) &&
          alu_cvt_one(&c, fpu_f2u(-0.4f)) == 0x80000000u;
    c.irnd = 0, c.ftz = 1;
    okc = okc && alu_cvt_one(&c, 0x80000001u) == 0x80000000u;
    ok(okc, "cvt: int .sat/truncate/sign-extend, .rni to integral f32, .ftz");
}

static void test_int(void)
{
    /* prmt (values from the PTX ISA tables: a = 0x33221100, b = 0x77665544) */
    uint32_t a = 0x33221100u, b = 0x77665544u;
    ok(alu_prmt(a, b, 0x3210, 0) == a && alu_prmt(a, b, 0x7654, 0) == b &&
           alu_prmt(0x00008000u, 0, 0x9991, 0) == 0xffffff80u &&
           alu_prmt(a, b, 0x0123, 0) == 0x00112233u,
       "prmt generic: identity, high word, sign replicate, byte reverse");
    ok(alu_prmt(a, b, 0, 1) == 0x33221100u && alu_prmt(a, b, 1, 1) == 0x44332211u &&
           alu_prmt(a, b, 3, 1) == 0x66554433u,
       "prmt.f4e");
    ok(alu_prmt(a, b, 0, 2) == 0x55667700u && alu_prmt(a, b, 3, 2) == 0x00112233u,
       "prmt.b4e");
    ok(alu_prmt(a, b, 2, 3) == 0x22222222u && alu_prmt(a, b, 1, 4) == 0x33221111u &&
           alu_prmt(a, b, 2, 5) == 0x22221100u && alu_prmt(a, b, 1, 6) == 0x33223322u &&
           alu_prmt(a, b, 2, 6) == 0x11001100u,
       "prmt.rc8 .ecl .ecr .rc16");
    ok(alu_bfind(0, 32, 0, 0) == 0xffffffffu && alu_bfind(1, 32, 0, 0) == 0 &&
           alu_bfind(0x80000000u, 32, 0, 0) == 31 && alu_bfind(0x80000000u, 32, 1, 0) == 30 &&
           alu_bfind(0xffffffffu, 32, 1, 0) == 0xffffffffu &&
           alu_bfind(1, 32, 0, 1) == 31 && alu_bfind(0, 64, 0, 1) == 0xffffffffu &&
           alu_bfind(UINT64_C(1) << 40, 64, 0, 0) == 40,
       "bfind: zero, msb, signed negative, -1, .shiftamt, 64-bit");
    ok(alu_fns(0xaaaaaaaau, 3, 1) == 3 && alu_fns(0xaaaaaaaau, 3, -1) == 3 &&
           alu_fns(0xaaaaaaaau, 2, 1) == 3 && alu_fns(0xaaaaaaaau, 2, -1) == 1 &&
           alu_fns(0xaaaaaaaau, 2, 0) == 0xffffffffu && alu_fns(0xaaaaaaaau, 3, 0) == 3 &&
           alu_fns(0xaaaaaaaau, 0, 16) == 31 && alu_fns(0xaaaaaaaau, 0, 17) == 0xffffffffu &&
           alu_fns(0xaaaaaaaau, 31, -16) == 1,
       "fns: the ISA examples, offset 0, last bit, not found");
    ok(alu_bfe(0xf0u, 4, 4, 32, 0) == 0xf && alu_bfe(0xf0u, 4, 4, 32, 1) == 0xffffffffu &&
           alu_bfe(0x80000000u, 31, 8, 32, 1) == 0xffffffffu &&
           alu_bfe(0x80000000u, 40, 8, 32, 1) == 0xffffffffu &&
           alu_bfe(0x80000000u, 40, 8, 32, 0) == 0 && alu_bfe(0x1234, 0, 0, 32, 1) == 0 &&
           alu_bfe(0x12345678u, 0x104, 0x208, 32, 0) == 0x67 &&
           alu_bfe(UINT64_C(0x8000000000000000), 60, 10, 64, 1) == ~UINT64_C(7),
       "bfe: zero/sign extension, pos beyond msb, len 0, byte fields only");
    ok(alu_bfi(0xff, 0, 4, 8, 32) == 0xff0 && alu_bfi(0xff, 0xffffffffu, 28, 8, 32) == 0xffffffffu &&
           alu_bfi(0, 0xffffffffu, 28, 8, 32) == 0x0fffffffu &&
           alu_bfi(1, 5, 40, 1, 32) == 5 && alu_bfi(1, 5, 3, 0, 32) == 5,
       "bfi: insert, clipping at the msb, pos >= width, len 0");
    ok(alu_divu32(7, 0) == 0xffffffffu && alu_remu32(7, 0) == 0xffffffffu && alu_rems32(-7, 0) == -1 &&
           alu_remu64(7, 0) == UINT64_MAX && alu_rems16(5, 0) == -1 && alu_divs32(INT32_MIN, -1) == INT32_MIN &&
           alu_rems32(INT32_MIN, -1) == 0 && alu_divs32(-7, 0) == -1 && alu_divs32(-7, 2) == -3 &&
           alu_rems32(-7, 2) == -1 && alu_divs64(INT64_MIN, -1) == INT64_MIN &&
           alu_divu64(1, 0) == UINT64_MAX && alu_rems64(INT64_MIN, -1) == 0 &&
           alu_divs16(INT16_MIN, -1) == INT16_MIN,
       "div/rem: x/0, x%0, INT_MIN/-1, truncation toward zero");
    ok(alu_lop3(0xf0f0f0f0u, 0xccccccccu, 0xaaaaaaaau, 0x80) == (0xf0f0f0f0u & 0xccccccccu & 0xaaaaaaaau) &&
           alu_lop3(0x12345678u, 0x9abcdef0u, 0x0f0f0f0fu, 0x96) == (0x12345678u ^ 0x9abcdef0u ^ 0x0f0f0f0fu) &&
           alu_lop3(1, 2, 3, 0xf0) == 1 && alu_lop3(1, 2, 3, 0xcc) == 2,
       "lop3 truth tables");
    ok(alu_adds32_sat(INT32_MAX, 1) == INT32_MAX && alu_subs32_sat(INT32_MIN, 1) == INT32_MIN &&
           alu_mulhi_s64(-1, 1) == -1 && alu_mulhi_u64(UINT64_MAX, UINT64_MAX) == UINT64_MAX - 1,
       "saturating add/sub, 64-bit mul.hi");
}

/* The sm_100 narrow conversions (fpu_cvt_narrow with the all-finite formats, fpu_cvt_rs,
 * fpu_f2ue8m0, fpu_ue8m02bf): directed cases whose results were measured on an NVIDIA B200
 * (published with the TVM tirx numerical simulator's codecs; the exhaustive exact-rational
 * check is fixtures/ptx/exec/cvt_narrow_sm100.ptx). */
static void test_narrow_sm100(void)
{
    /* e2m1 / e2m3 / e3m2 .rn.satfinite: NaN -> +MAX_NORM, infinity / overflow -> signed max */
    ok(fpu_cvt_narrow(NAN, FPU_E2M1, FPU_RN, 1, 0) == 0x7 &&
           fpu_cvt_narrow(-NAN, FPU_E2M1, FPU_RN, 1, 0) == 0x7 &&
           fpu_cvt_narrow(1e30, FPU_E2M1, FPU_RN, 1, 0) == 0x7 &&
           fpu_cvt_narrow(-INFINITY, FPU_E2M1, FPU_RN, 1, 0) == 0xf &&
           fpu_cvt_narrow(0.75, FPU_E2M1, FPU_RN, 1, 0) == 0x2 &&
           fpu_cvt_narrow(NAN, FPU_E2M3, FPU_RN, 1, 0) == 0x1f &&
           fpu_unpack(0x1f, FPU_E2M3) == 7.5 && fpu_unpack(0x21, FPU_E2M3) == -0.125 &&
           fpu_unpack(0x1f, FPU_E3M2) == 28.0 && fpu_unpack(0x01, FPU_E3M2) == 0.0625,
       "e2m1 / e2m3 / e3m2: NaN and overflow saturate, decode anchors");
    /* .rs: 1.0 plus m/65536 of an e4m3 ulp (f32 bits 0x3f800000 | m << 4) with 16 random bits
       carries exactly when the sum reaches one ulp */
    static const struct { uint32_t m, r; uint8_t want; } rs[] = {
        {0, 0xffff, 0x38},      {1, 0xfffe, 0x38},      {1, 0xffff, 0x39},
        {0x8000, 0x7fff, 0x38}, {0x8000, 0x8000, 0x39}, {0xffff, 1, 0x39}, {0xffff, 0, 0x38}};
    int bad = 0;
    for (unsigned i = 0; i < sizeof rs / sizeof *rs; i++)
        bad += fpu_cvt_rs(fpu_u2f(0x3f800000u | rs[i].m << 4), FPU_E4M3, rs[i].r, 16, 1, 0) !=
               rs[i].want;
    for (uint32_t r = 0; r <= 0xffff; r += 0x7fff) {
        bad += fpu_cvt_rs(1.0f, FPU_E4M3, r, 16, 1, 0) != 0x38;
        bad += fpu_cvt_rs(-6.0f, FPU_E2M1, r, 16, 1, 0) != 0xf;
        bad += fpu_cvt_rs(NAN, FPU_E5M2, r, 16, 1, 0) != 0x7f;
        bad += fpu_cvt_rs(-NAN, FPU_E2M1, r, 16, 1, 0) != 0x7;
        bad += fpu_cvt_rs(-INFINITY, FPU_E4M3, r, 16, 1, 0) != 0xfe;
        bad += fpu_cvt_rs(1e30f, FPU_E2M1, r, 16, 1, 0) != 0x7;
        bad += fpu_cvt_rs(-0.0f, FPU_E4M3, r, 16, 1, 0) != 0x80;
    }
    bad += fpu_cvt_rs(0.75f, FPU_E2M1, 0x7fff, 16, 1, 0) != 0x1;
    bad += fpu_cvt_rs(0.75f, FPU_E2M1, 0x8000, 16, 1, 0) != 0x2;
    ok(bad == 0, ".rs: the carry of random bits plus the discarded fraction (B200 cases)");
    /* ue8m0: exponent rounded down / up on the magnitude, clamped; .satfinite lowers 255 */
    ok(fpu_f2ue8m0(1.0f, 0, 0) == 127 && fpu_f2ue8m0(1.0f, 1, 0) == 127 &&
           fpu_f2ue8m0(1.5f, 0, 0) == 127 && fpu_f2ue8m0(1.5f, 1, 0) == 128 &&
           fpu_f2ue8m0(-3.0f, 0, 0) == 128 && fpu_f2ue8m0(-3.0f, 1, 0) == 129 &&
           fpu_f2ue8m0(0.75f, 0, 0) == 126 && fpu_f2ue8m0(0.75f, 1, 0) == 127 &&
           fpu_f2ue8m0(-0.0f, 1, 0) == 0 && fpu_f2ue8m0(fpu_u2f(0x00400000u), 1, 0) == 0 &&
           fpu_f2ue8m0(fpu_u2f(0x007fffffu), 0, 0) == 0 &&
           fpu_f2ue8m0(fpu_u2f(0x007fffffu), 1, 0) == 1 &&
           fpu_f2ue8m0(INFINITY, 0, 0) == 0xff && fpu_f2ue8m0(INFINITY, 0, 1) == 0xfe &&
           fpu_f2ue8m0(-INFINITY, 1, 1) == 0xfe && fpu_f2ue8m0(FLT_MAX, 1, 0) == 0xff &&
           fpu_f2ue8m0(FLT_MAX, 1, 1) == 0xfe && fpu_f2ue8m0(FLT_MAX, 0, 0) == 0xfe &&
           fpu_f2ue8m0(NAN, 0, 1) == 0xff && fpu_ue8m02bf(0) == 0x0040 &&
           fpu_ue8m02bf(127) == 0x3f80 && fpu_ue8m02bf(254) == 0x7f00 &&
           fpu_ue8m02bf(255) == 0x7fff,
       "ue8m0: .rz / .rp exponents, clamps, .satfinite, back to bf16 (B200 cases)");
}

int main(void)
{
    printf("1..55\n");
    test_directed();
    test_half();
    test_minmax_cvt();
    test_int();
    test_narrow_sm100();
    if (ntest != 55)
        printf("# planned 55, ran %d\n", ntest);
    return nfail != 0;
}
