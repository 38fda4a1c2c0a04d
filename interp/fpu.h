/*
 * interp/fpu.h — arithmetic helpers for the ALU handler families (ops/int.inc, fp.inc,
 * half.inc, cvt.inc, cmp.inc, sfu.inc): bit casts, flush-to-zero, a softfloat-style rounder
 * that packs an exact value into any of f64/f32/tf32/f16/bf16/e4m3/e5m2 in any rounding mode,
 * directed-rounding f32 add/mul/fma/div/sqrt that never touch the host FP environment, f16 and
 * bf16 arithmetic, and the integer operations whose PTX semantics need more than one C
 * operator (prmt, bfe, bfi, bfind, fns, div/rem edge cases, saturating float->int).
 *
 * Everything is static inline and depends only on the C library, so tests/unit/alu_test.c can
 * include this header alone.
 *
 * Directed rounding of f32 operations: the operation is evaluated in double, where the
 * product of two f32 values is exact and the sum/quotient/root is rounded once; the exact error
 * of that double result is recovered with an error-free transform (TwoSum, or an fma residual
 * for div/sqrt, exact here because f32 operands are far from the double range limits). The
 * rounder then rounds (double + sign of error) to f32: no double-rounding error is possible
 * because every f32 boundary and midpoint is a double. f64 directed rounding is done by the
 * handlers with fpu_rnd_begin/fpu_rnd_end once per handler body (see fp.inc).
 *
 * NaN: PTX f32/f16/bf16 arithmetic returns the canonical NaN (0x7fffffff, 0x7fff) for any NaN
 * result; f64 results keep the host's NaN.
 */
#ifndef PTXEMU_FPU_H
#define PTXEMU_FPU_H

#include <fenv.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* ================================================================ bit casts, constants */

#define FPU_NAN32 UINT32_C(0x7fffffff)
#define FPU_NAN16 UINT16_C(0x7fff)
#define FPU_NAN64 UINT64_C(0x7fffffffffffffff)

static inline uint32_t fpu_f2u(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static inline float fpu_u2f(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline uint64_t fpu_d2u(double f)
{
    uint64_t u;
    memcpy(&u, &f, 8);
    return u;
}
static inline double fpu_u2d(uint64_t u)
{
    double f;
    memcpy(&f, &u, 8);
    return f;
}

/* Flush an f32 subnormal to a zero of the same sign (PTX .ftz). */
static inline float fpu_ftz32(float f)
{
    uint32_t u = fpu_f2u(f);
    return (u & 0x7f800000u) == 0 ? fpu_u2f(u & 0x80000000u) : f;
}
static inline double fpu_ftz64(double f)
{
    uint64_t u = fpu_d2u(f);
    return (u & UINT64_C(0x7ff0000000000000)) == 0 ? fpu_u2d(u & UINT64_C(0x8000000000000000)) : f;
}
/* Canonical NaN for any NaN result (PTX f32 arithmetic). */
static inline float fpu_canon32(float f)
{
    return f != f ? fpu_u2f(FPU_NAN32) : f;
}
/* f64 NaN result of an operation on a, b, c (pass 0.0 for missing operands): the first NaN
 * operand in a, b, c order, quieted, sign and payload kept; when no operand is NaN (an invalid
 * operation) the default NaN 0xfff8000000000000 (CUDART_NAN). r is returned when it is not NaN.
 * The host's choice between two NaN operands depends on operand order, which the vectorizer
 * may swap for commutative operations, so it is fixed here. */
static inline double fpu_nan64(double r, double a, double b, double c)
{
    if (r == r)
        return r;
    const uint64_t q = UINT64_C(0x0008000000000000);
    if (a != a)
        return fpu_u2d(fpu_d2u(a) | q);
    if (b != b)
        return fpu_u2d(fpu_d2u(b) | q);
    if (c != c)
        return fpu_u2d(fpu_d2u(c) | q);
    return fpu_u2d(UINT64_C(0xfff8000000000000));
}
/* .sat: clamp to [0.0, 1.0], NaN -> +0.0 */
static inline float fpu_sat32(float f)
{
    return f > 0.0f ? (f < 1.0f ? f : 1.0f) : 0.0f;
}
static inline double fpu_sat64(double f)
{
    return f > 0.0 ? (f < 1.0 ? f : 1.0) : 0.0;
}

/* ================================================================ the rounder */

/* Rounding directions (PTX .rn .rz .rm .rp .rna). */
enum fpu_mode { FPU_RN = 0, FPU_RZ, FPU_RM, FPU_RP, FPU_RNA };

/* A binary floating-point format: mbits explicit mantissa bits, ebits exponent bits. */
struct fpu_fmt {
    uint8_t mbits, ebits;
    uint8_t noinf;  /* 1 (e4m3): no infinity, S.1111.111 is the only NaN; 2 (e2m1, e2m3,
                     * e3m2): every encoding finite, no infinity and no NaN */
    uint8_t pad_;
};
#define FPU_F64 ((struct fpu_fmt){52, 11, 0, 0})
#define FPU_F32 ((struct fpu_fmt){23, 8, 0, 0})
#define FPU_TF32 ((struct fpu_fmt){10, 8, 0, 0})
#define FPU_F16 ((struct fpu_fmt){10, 5, 0, 0})
#define FPU_BF16 ((struct fpu_fmt){7, 8, 0, 0})
#define FPU_E4M3 ((struct fpu_fmt){3, 4, 1, 0})
#define FPU_E5M2 ((struct fpu_fmt){2, 5, 0, 0})
#define FPU_E2M1 ((struct fpu_fmt){1, 2, 2, 0})
#define FPU_E2M3 ((struct fpu_fmt){3, 2, 2, 0})
#define FPU_E3M2 ((struct fpu_fmt){2, 3, 2, 0})

/* Largest finite magnitude encoding of a format (without sign). */
static inline uint64_t fpu_maxfinite(struct fpu_fmt f)
{
    uint64_t emax_field = (UINT64_C(1) << f.ebits) - (f.noinf ? 1 : 2);
    uint64_t man = (UINT64_C(1) << f.mbits) - (f.noinf == 1 ? 2 : 1);
    return emax_field << f.mbits | man;
}
static inline uint64_t fpu_inf_bits(struct fpu_fmt f)
{
    return ((UINT64_C(1) << f.ebits) - 1) << f.mbits;
}
/* Canonical (positive, all-ones payload) NaN of a format; for the all-finite formats
 * (noinf 2: e2m1, e2m3, e3m2) what cvt .satfinite gives a NaN, positive MAX_NORM (the same
 * all-ones pattern). */
static inline uint64_t fpu_nan_bits(struct fpu_fmt f)
{
    return (UINT64_C(1) << (f.ebits + f.mbits)) - 1;
}

/*
 * Round the exact value (-1)^sign * (sig + frac) * 2^exp to format f in mode m, where sig is
 * a non-zero integer and frac is an unknown fraction in (0, 1) when sticky, 0 otherwise.
 * satfinite: overflow gives the largest finite value instead of infinity (or NaN for e4m3).
 * Returns the encoding (sign bit at ebits + mbits).
 */
static inline uint64_t fpu_round_pack(int sign, uint64_t sig, int exp, int sticky,
                                      struct fpu_fmt f, enum fpu_mode m, int satfinite)
{
    const int bias = (1 << (f.ebits - 1)) - 1;
    const int emin = 1 - bias;
    const uint64_t sbit = (uint64_t)(sign != 0) << (f.ebits + f.mbits);
    int lz = __builtin_clzll(sig);
    sig <<= lz;
    exp -= lz; /* value = sig * 2^exp, bit 63 set; unbiased exponent E = exp + 63 */
    int E = exp + 63;
    int q = (E < emin ? emin : E) - f.mbits; /* exponent of the last kept bit */
    int sh = q - exp;                        /* bits to drop, >= 63 - mbits >= 11 */
    uint64_t kept, rem, half;
    if (sh >= 64) {
        kept = 0;
        rem = sig;
        half = sh == 64 ? UINT64_C(1) << 63 : 0;
        if (sh > 64) {
            /* below half an ulp: only the sticky matters */
            sticky |= rem != 0;
            rem = 0;
        }
    } else {
        kept = sig >> sh;
        rem = sig & ((UINT64_C(1) << sh) - 1);
        half = UINT64_C(1) << (sh - 1);
    }
    int inexact = rem != 0 || sticky;
    int up = 0;
    switch (m) {
    case FPU_RN:
        up = half && (rem > half || (rem == half && (sticky || (kept & 1))));
        break;
    case FPU_RNA: up = half && rem >= half; break;
    case FPU_RZ: up = 0; break;
    case FPU_RM: up = inexact && sign; break;
    case FPU_RP: up = inexact && !sign; break;
    }
    kept += (uint64_t)up;
    if (kept >> (f.mbits + 1)) { /* carry into a new binade */
        kept >>= 1;
        q++;
    }
    uint64_t mag;
    if (kept >> f.mbits) { /* normal */
        int ef = q + f.mbits + bias;
        mag = (uint64_t)ef << f.mbits | (kept & ((UINT64_C(1) << f.mbits) - 1));
    } else {
        mag = kept; /* subnormal or zero */
    }
    uint64_t maxf = fpu_maxfinite(f);
    int emax = f.noinf ? bias + 1 : bias;
    int ovf = (kept >> f.mbits) && (q + f.mbits > emax || mag > maxf);
    if (ovf) {
        int to_max = satfinite || m == FPU_RZ || (m == FPU_RM && !sign) || (m == FPU_RP && sign);
        if (to_max)
            mag = maxf;
        else
            mag = f.noinf ? fpu_nan_bits(f) : fpu_inf_bits(f);
    }
    return sbit | mag;
}

/* Decompose a finite non-zero double into sign, integer significand and exponent. */
static inline void fpu_split64(double x, int *sign, uint64_t *sig, int *exp)
{
    uint64_t u = fpu_d2u(x);
    *sign = (int)(u >> 63);
    int e = (int)(u >> 52 & 0x7ff);
    uint64_t m = u & ((UINT64_C(1) << 52) - 1);
    if (e == 0) {
        *sig = m;
        *exp = -1074;
    } else {
        *sig = m | UINT64_C(1) << 52;
        *exp = e - 1075;
    }
}

/*
 * Round s + err to format f, where err is an exact error term whose sign only is given
 * (esign: -1, 0, +1; |err| < ulp(s) / 2 in double). Handles NaN (canonical NaN of f), infinity
 * and zero. Exact for every target format narrower than double.
 */
static inline uint64_t fpu_from_double(double s, int esign, struct fpu_fmt f, enum fpu_mode m,
                                       int satfinite)
{
    int sign;
    uint64_t sig;
    int exp;
    if (s != s)
        return fpu_nan_bits(f);
    uint64_t sb = (uint64_t)(fpu_d2u(s) >> 63) << (f.ebits + f.mbits);
    if (isinf(s)) {
        if (satfinite)
            return sb | fpu_maxfinite(f);
        return sb | (f.noinf ? fpu_nan_bits(f) : fpu_inf_bits(f));
    }
    if (s == 0) /* an exact zero (callers fix the sign of exact cancellation) */
        return sb;
    fpu_split64(s, &sign, &sig, &exp);
    int sticky = 0;
    if (esign != 0) {
        /* the exact value is slightly above (same sign as s) or below |s| */
        int same = (esign > 0) == (sign == 0);
        sig <<= 2;
        exp -= 2;
        if (!same)
            sig -= 1;
        sticky = 1;
    }
    return fpu_round_pack(sign, sig, exp, sticky, f, m, satfinite);
}

/* Sign (-1, 0, 1) of a double. */
static inline int fpu_sgn(double e)
{
    return (e > 0) - (e < 0);
}

/* ============================================================ f32 with directed rounding */

/* Sign of an exact zero result a + b in mode m (IEEE 754: x + (-x) is -0 only when rounding
 * toward -inf; the sum of two zeros of the same sign keeps it). */
static inline double fpu_zero_sum(double a, double b, enum fpu_mode m)
{
    if (a == 0 && b == 0 && signbit(a) == signbit(b))
        return a;
    return m == FPU_RM ? -0.0 : 0.0;
}

/*
 * s + err rounded to f32 in mode m, where err is an exact error term whose sign only is given
 * (esign) and |err| < ulp(s) / 2 in double; s finite and non-zero. The same result as
 * fpu_from_double(s, esign, FPU_F32, m, 0), computed with the host's round-to-nearest
 * conversion and one comparison: for a directed mode the answer is that neighbour of s or the
 * next float toward the rounding direction (an f32 ulp is far coarser than err). Overflow
 * gives infinity or the largest finite value as IEEE directs.
 */
static inline float fpu_dir32(double s, int esign, enum fpu_mode m)
{
    if (m != FPU_RZ && m != FPU_RM && m != FPU_RP)
        return fpu_u2f((uint32_t)fpu_from_double(s, esign, FPU_F32, m, 0));
    /* selects only (no branches), so callers' lane loops vectorize; a NaN, infinite or zero s
     * (with esign 0) takes no step and passes through */
    const float f = (float)s;
    const double fd = f;
    const uint32_t u = fpu_f2u(f), neg = u >> 31;
    const bool down = m == FPU_RM || (m == FPU_RZ && s > 0);
    const bool step = down ? (fd > s || (fd == s && esign < 0)) : (fd < s || (fd == s && esign > 0));
    const uint32_t dn = f == 0 ? 0x80000001u : neg ? u + 1 : u - 1; /* next float toward -inf */
    const uint32_t up = f == 0 ? 0x00000001u : neg ? u - 1 : u + 1; /* next float toward +inf */
    return fpu_u2f(step ? (down ? dn : up) : u);
}

/* a + b on f32 values, rounded in mode m (exact; no host FP environment change). */
static inline float fpu_add_f32(float a, float b, enum fpu_mode m)
{
    double x = a, y = b, s = x + y;
    if (s != s || isinf(s))
        return fpu_canon32((float)s);
    double bb = s - x, e = (x - (s - bb)) + (y - bb); /* TwoSum */
    if (s == 0 && e == 0)
        return (float)fpu_zero_sum(x, y, m);
    return fpu_dir32(s, fpu_sgn(e), m);
}

/* a * b on f32 values in mode m: the double product is exact. */
static inline float fpu_mul_f32(float a, float b, enum fpu_mode m)
{
    double p = (double)a * (double)b;
    if (p != p)
        return fpu_u2f(FPU_NAN32);
    if (p == 0 || isinf(p))
        return (float)p;
    return fpu_dir32(p, 0, m);
}

/* a * b + c on f32 values in mode m, one rounding. */
static inline float fpu_fma_f32(float a, float b, float c, enum fpu_mode m)
{
    double p = (double)a * (double)b, z = c, s = p + z;
    if (s != s || isinf(s))
        return fpu_canon32((float)s);
    double bb = s - p, e = (p - (s - bb)) + (z - bb);
    if (s == 0 && e == 0)
        return (float)fpu_zero_sum(p, z, m);
    return fpu_dir32(s, fpu_sgn(e), m);
}

/*
 * fma.{rz,rm,rp}.f32 without branches, so the lane loop vectorizes: the same result as
 * fpu_fma_f32(a, b, c, m) for those modes, except that a NaN result is any NaN (the caller
 * canonicalizes). The double product is exact, TwoSum gives the sum's exact error e, and
 * fpu_dir32's single step (done with selects) rounds s + e; an infinite or NaN s passes through
 * (e is then NaN, so no step); an exact zero sum is -0 under .rm unless both addends are +0.
 */
static inline float fpu_fma_dir32(float a, float b, float c, enum fpu_mode m)
{
    const double p = (double)a * (double)b, z = c, s = p + z;
    const double bb = s - p, e = (p - (s - bb)) + (z - bb);
    const float r = fpu_dir32(s, (e > 0) - (e < 0), m); /* a NaN e (infinite s) is sign 0 */
    if (m != FPU_RM)
        return r;
    /* signbit() blocks vectorization: test the sign bits as integers */
    return s == 0 ? fpu_u2f((int64_t)(fpu_d2u(p) | fpu_d2u(z)) < 0 ? 0x80000000u : 0u) : r;
}

/* a / b on f32 values in mode m (IEEE division, .rn/.rz/.rm/.rp). */
static inline float fpu_div_f32(float a, float b, enum fpu_mode m)
{
    double x = a, y = b, q = x / y;
    if (q != q)
        return fpu_u2f(FPU_NAN32);
    if (q == 0 || isinf(q))
        return (float)q;
    double r = fma(-q, y, x); /* exact residual x - q*y */
    return fpu_dir32(q, fpu_sgn(r) * (y > 0 ? 1 : -1), m);
}

/* sqrt(a) on an f32 value in mode m. */
static inline float fpu_sqrt_f32(float a, enum fpu_mode m)
{
    double x = a, s = sqrt(x);
    if (s != s)
        return fpu_u2f(FPU_NAN32);
    if (s == 0 || isinf(s))
        return (float)s;
    double r = fma(-s, s, x);
    return fpu_dir32(s, fpu_sgn(r), m);
}

/* ================================================== ex2 / lg2 approximations (SFU) */

/*
 * 2^x for the ex2.approx family, in double precision with no libm call and no branch, so lane
 * loops vectorize: x = n + f with n = rint(x), |f| <= 1/2, 2^f by its Taylor series to degree
 * 13 (truncation < 2^-57), times 2^n built in the exponent field. Relative error below 2^-50;
 * results of f32/f16/bf16 callers are then rounded once. Beyond [-1000, 1000] the result is
 * 0 or infinity (as for every format narrower than double); NaN propagates.
 * Integer conversions use the 1.5 * 2^52 bias trick (round to nearest in the default mode).
 */
static inline double fpu_ex2(double x)
{
    const double xc = x != x ? 0.0 : x < -1000.0 ? -1000.0 : x > 1000.0 ? 1000.0 : x;
    const double nb = xc + 0x1.8p52, n = nb - 0x1.8p52, f = xc - n;
    double p = 1.3691488853904124e-12; /* (ln 2)^k / k!, k = 13 down to 0 */
    p = p * f + 2.5678435993488196e-11;
    p = p * f + 4.44553827187081e-10;
    p = p * f + 7.054911620801121e-09;
    p = p * f + 1.0178086009239696e-07;
    p = p * f + 1.3215486790144305e-06;
    p = p * f + 1.5252733804059838e-05;
    p = p * f + 0.00015403530393381606;
    p = p * f + 0.0013333558146428441;
    p = p * f + 0.009618129107628477;
    p = p * f + 0.055504108664821576;
    p = p * f + 0.2402265069591007;
    p = p * f + 0.6931471805599453;
    p = p * f + 1.0;
    /* the low bits of nb hold n (two's complement): 2^n has exponent field n + 1023 */
    const uint64_t ni = fpu_d2u(nb) - UINT64_C(0x4338000000000000);
    const double r = p * fpu_u2d((ni + 1023) << 52);
    return x != x ? x : x > 1000.0 ? INFINITY : x < -1000.0 ? 0.0 : r;
}

/*
 * log2(x) for the lg2.approx family, in double precision without libm: x = 2^e * m with m in
 * [sqrt(1/2), sqrt(2)), ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172, by its series to
 * s^23 (truncation < 2^-60 relative). Relative error below 2^-50 (absolute near x = 1);
 * log2(0) = -inf, log2(x < 0) = NaN, log2(inf) = inf, NaN propagates. Subnormal doubles are
 * scaled up first, so every f32 input is exact.
 */
static inline double fpu_lg2(double x)
{
    const bool sub = x > 0 && x < 0x1p-1000;
    const double xs = sub ? x * 0x1p200 : x;
    const uint64_t u = fpu_d2u(xs);
    uint64_t mu = (u & UINT64_C(0x000fffffffffffff)) | UINT64_C(0x3ff0000000000000);
    const bool hi = mu > UINT64_C(0x3ff6a09e667f3bcd); /* m > sqrt(2) */
    mu -= hi ? UINT64_C(0x0010000000000000) : 0;      /* m / 2 */
    /* exponent field as a double (exact), then unbias */
    const double ef = fpu_u2d(UINT64_C(0x4330000000000000) | (u >> 52 & 0x7ff)) - 0x1p52;
    const double e = ef - 1023.0 + (hi ? 1.0 : 0.0) - (sub ? 200.0 : 0.0);
    const double m = fpu_u2d(mu), t = (m - 1.0) / (m + 1.0), t2 = t * t;
    double q = 2.0 / 23; /* 2 / (2k + 1), k = 11 down to 0 */
    q = q * t2 + 2.0 / 21;
    q = q * t2 + 2.0 / 19;
    q = q * t2 + 2.0 / 17;
    q = q * t2 + 2.0 / 15;
    q = q * t2 + 2.0 / 13;
    q = q * t2 + 2.0 / 11;
    q = q * t2 + 2.0 / 9;
    q = q * t2 + 2.0 / 7;
    q = q * t2 + 2.0 / 5;
    q = q * t2 + 2.0 / 3;
    q = q * t2 + 2.0;
    const double r = e + q * t * 1.4426950408889634; /* 1 / ln 2 */
    return x != x ? x : x < 0 ? NAN : x == 0 ? -INFINITY : isinf(x) ? x : r;
}

/* Host rounding mode for a PTX mode, set once around a handler's lane loop (f64 only). */
static inline int fpu_rnd_begin(enum fpu_mode m)
{
    int old = fegetround();
    static const int map[] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD, FE_TONEAREST};
    fesetround(map[m]);
    return old;
}
static inline void fpu_rnd_end(int old)
{
    fesetround(old);
}

/* =================================================================== f16 and bf16 */

/* f16 bits -> float (exact). */
static inline float fpu_h2f(uint16_t h)
{
    uint32_t s = (uint32_t)(h >> 15) << 31, e = h >> 10 & 0x1f, m = h & 0x3ff;
    if (e == 0x1f)
        return fpu_u2f(s | 0x7f800000u | m << 13);
    if (e == 0) {
        float v = (float)m * 0x1p-24f;
        return s ? -v : v;
    }
    return fpu_u2f(s | (e + 112) << 23 | m << 13);
}
/* bf16 bits -> float (exact). */
static inline float fpu_bf2f(uint16_t h)
{
    return fpu_u2f((uint32_t)h << 16);
}
/* double -> f16 / bf16 bits in mode m (NaN -> canonical 0x7fff). */
static inline uint16_t fpu_d2h(double x, enum fpu_mode m, int satfinite)
{
    return (uint16_t)fpu_from_double(x, 0, FPU_F16, m, satfinite);
}
static inline uint16_t fpu_d2bf(double x, enum fpu_mode m, int satfinite)
{
    return (uint16_t)fpu_from_double(x, 0, FPU_BF16, m, satfinite);
}
/* The same with the sign of an exact error term (results of a double TwoSum). */
static inline uint16_t fpu_d2h_e(double x, int esign, enum fpu_mode m)
{
    return (uint16_t)fpu_from_double(x, esign, FPU_F16, m, 0);
}
static inline uint16_t fpu_d2bf_e(double x, int esign, enum fpu_mode m)
{
    return (uint16_t)fpu_from_double(x, esign, FPU_BF16, m, 0);
}

/* 16-bit format selector for the half helpers: 0 = f16, 1 = bf16. */
static inline double fpu_h2d(uint16_t h, int bf)
{
    return bf ? (double)fpu_bf2f(h) : (double)fpu_h2f(h);
}
/* Flush a subnormal f16 (bf16) to signed zero. */
static inline uint16_t fpu_hftz(uint16_t h, int bf)
{
    uint16_t em = bf ? 0x7f80 : 0x7c00;
    return (h & em) == 0 ? (uint16_t)(h & 0x8000) : h;
}
static inline int fpu_hisnan(uint16_t h, int bf)
{
    return bf ? (h & 0x7fff) > 0x7f80 : (h & 0x7fff) > 0x7c00;
}

/* Round a double that is s + exact error e to a 16-bit format. */
static inline uint16_t fpu_hround(double s, double e, int bf, enum fpu_mode m)
{
    return bf ? fpu_d2bf_e(s, fpu_sgn(e), m) : fpu_d2h_e(s, fpu_sgn(e), m);
}

/* a + b (op 0), a * b (op 1) or a * b + c (op 2) on f16/bf16 values, rounded once in mode m.
 * ftz flushes subnormal inputs and results; NaN results are 0x7fff. */
static inline uint16_t fpu_harith(int op, uint16_t a, uint16_t b, uint16_t c, int bf,
                                  enum fpu_mode m, int ftz)
{
    if (ftz) {
        a = fpu_hftz(a, bf);
        b = fpu_hftz(b, bf);
        c = fpu_hftz(c, bf);
    }
    double x = fpu_h2d(a, bf), y = fpu_h2d(b, bf), z = fpu_h2d(c, bf);
    double s, e = 0;
    if (op == 1) {
        s = x * y; /* exact: at most 22 significant bits */
    } else {
        double p = op == 0 ? x : x * y, q = op == 0 ? y : z;
        s = p + q;
        double bb = s - p;
        e = (p - (s - bb)) + (q - bb);
        if (s == 0 && e == 0)
            s = fpu_zero_sum(p, q, m);
    }
    uint16_t r;
    if (s != s)
        return FPU_NAN16;
    r = fpu_hround(s, e, bf, m);
    return ftz ? fpu_hftz(r, bf) : r;
}

/* ====================================================================== integers */

/* prmt: byte permute of {b, a} by selector c; mode 0 = generic, 1..6 = f4e b4e rc8 ecl ecr
 * rc16. */
static inline uint32_t alu_prmt(uint32_t a, uint32_t b, uint32_t c, unsigned mode)
{
    uint64_t t = (uint64_t)b << 32 | a;
    unsigned sel[4];
    unsigned s = c & 3;
    switch (mode) {
    default: /* generic: four 4-bit selectors, bit 3 replicates the byte's sign */
    {
        uint32_t d = 0;
        for (unsigned i = 0; i < 4; i++) {
            unsigned ctl = c >> (4 * i) & 0xf;
            uint32_t byte = (uint32_t)(t >> (8 * (ctl & 7))) & 0xff;
            if (ctl & 8)
                byte = (byte & 0x80) ? 0xff : 0;
            d |= byte << (8 * i);
        }
        return d;
    }
    case 1: /* f4e: forward 4 extract */
        for (unsigned i = 0; i < 4; i++)
            sel[i] = (s + i) & 7;
        break;
    case 2: /* b4e: backward 4 extract */
        for (unsigned i = 0; i < 4; i++)
            sel[i] = (s - i) & 7;
        break;
    case 3: /* rc8: replicate byte s */
        for (unsigned i = 0; i < 4; i++)
            sel[i] = s;
        break;
    case 4: /* ecl: edge clamp left */
        for (unsigned i = 0; i < 4; i++)
            sel[i] = i > s ? i : s;
        break;
    case 5: /* ecr: edge clamp right */
        for (unsigned i = 0; i < 4; i++)
            sel[i] = i < s ? i : s;
        break;
    case 6: /* rc16: replicate half-word s & 1 */
        for (unsigned i = 0; i < 4; i++)
            sel[i] = (s & 1) * 2 + (i & 1);
        break;
    }
    uint32_t d = 0;
    for (unsigned i = 0; i < 4; i++)
        d |= ((uint32_t)(t >> (8 * sel[i])) & 0xff) << (8 * i);
    return d;
}

/* bfind on a value of `bits` (32/64) width: position of the most significant non-sign bit,
 * 0xffffffff if none; shiftamt returns bits-1-pos instead. */
static inline uint32_t alu_bfind(uint64_t a, unsigned bits, int is_signed, int shiftamt)
{
    if (bits == 32)
        a &= 0xffffffffu;
    if (is_signed && (a >> (bits - 1) & 1))
        a = ~a & (bits == 32 ? 0xffffffffu : ~UINT64_C(0));
    if (a == 0)
        return 0xffffffffu;
    uint32_t pos = 63u - (uint32_t)__builtin_clzll(a);
    return shiftamt ? bits - 1 - pos : pos;
}

/* fns: position of the |offset|-th set bit of mask searching up (offset > 0) or down
 * (offset < 0) from base; offset 0 tests bit base. 0xffffffff if not found. */
static inline uint32_t alu_fns(uint32_t mask, uint32_t base, int32_t offset)
{
    if (base > 31)
        return 0xffffffffu; /* undefined in PTX; we report "not found" */
    if (offset == 0)
        return (mask >> base & 1) ? base : 0xffffffffu;
    uint32_t n = offset > 0 ? (uint32_t)offset : 0u - (uint32_t)offset;
    if (offset > 0) {
        uint32_t m = mask & (0xffffffffu << base);
        while (m) {
            uint32_t pos = (uint32_t)__builtin_ctz(m);
            if (--n == 0)
                return pos;
            m &= m - 1;
        }
    } else {
        uint32_t m = mask & (0xffffffffu >> (31 - base));
        while (m) {
            uint32_t pos = 31u - (uint32_t)__builtin_clz(m);
            if (--n == 0)
                return pos;
            m &= ~(1u << pos);
        }
    }
    return 0xffffffffu;
}

/* bfe: bits [pos, pos+len) of a (width bits), zero-extended, or sign-extended from the last
 * extracted bit (bit min(pos+len-1, msb)) for signed types; pos and len are the low bytes. */
static inline uint64_t alu_bfe(uint64_t a, uint32_t b, uint32_t c, unsigned bits, int is_signed)
{
    unsigned pos = b & 0xff, len = c & 0xff, msb = bits - 1;
    uint64_t wmask = bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
    a &= wmask;
    if (len == 0)
        return 0;
    unsigned top = pos + len - 1 > msb ? msb : pos + len - 1;
    uint64_t sbit = is_signed ? (a >> top & 1) : 0;
    if (pos > msb)
        return sbit ? wmask : 0; /* every bit comes from beyond the msb: the sign fill */
    uint64_t v = a >> pos;
    unsigned got = bits - pos; /* bits actually available */
    unsigned n = len < got ? len : got;
    uint64_t m = n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;
    v &= m;
    if (sbit)
        v |= ~m;
    return v & wmask;
}

/* bfi: b with bits [pos, pos+len) replaced by the low bits of a (bits beyond msb dropped). */
static inline uint64_t alu_bfi(uint64_t a, uint64_t b, uint32_t c, uint32_t d, unsigned bits)
{
    unsigned pos = c & 0xff, len = d & 0xff;
    uint64_t wmask = bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
    if (len == 0 || pos >= bits)
        return b & wmask;
    uint64_t m = len >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << len) - 1;
    m = (m << pos) & wmask;
    return ((b & ~m) | ((a << pos) & m)) & wmask;
}

/*
 * Integer division and remainder with the values NVIDIA's division sequences produce where C
 * has undefined behaviour: x / 0 = all ones (0xffffffff / 0xffffffffffffffff, i.e. -1 for
 * signed types), x % 0 = all ones as well (the remainder sequences force it), INT_MIN / -1 =
 * INT_MIN, INT_MIN % -1 = 0.
 */
static inline uint32_t alu_divu32(uint32_t a, uint32_t b)
{
    return b ? a / b : 0xffffffffu;
}
static inline uint32_t alu_remu32(uint32_t a, uint32_t b)
{
    return b ? a % b : 0xffffffffu;
}
static inline int32_t alu_divs32(int32_t a, int32_t b)
{
    if (b == 0)
        return -1;
    if (b == -1)
        return (int32_t)(0u - (uint32_t)a);
    return a / b;
}
static inline int32_t alu_rems32(int32_t a, int32_t b)
{
    if (b == 0)
        return -1;
    if (b == -1)
        return 0;
    return a % b;
}
static inline uint64_t alu_divu64(uint64_t a, uint64_t b)
{
    return b ? a / b : ~UINT64_C(0);
}
static inline uint64_t alu_remu64(uint64_t a, uint64_t b)
{
    return b ? a % b : ~UINT64_C(0);
}
static inline int64_t alu_divs64(int64_t a, int64_t b)
{
    if (b == 0)
        return -1;
    if (b == -1)
        return (int64_t)(0u - (uint64_t)a);
    return a / b;
}
static inline int64_t alu_rems64(int64_t a, int64_t b)
{
    if (b == 0)
        return -1;
    if (b == -1)
        return 0;
    return a % b;
}
static inline uint16_t alu_divu16(uint16_t a, uint16_t b)
{
    return b ? (uint16_t)(a / b) : 0xffffu;
}
static inline uint16_t alu_remu16(uint16_t a, uint16_t b)
{
    return b ? (uint16_t)(a % b) : 0xffffu;
}
static inline int16_t alu_divs16(int16_t a, int16_t b)
{
    return b ? (int16_t)(a / b) : (int16_t)-1; /* promoted to int: INT16_MIN / -1 wraps */
}
static inline int16_t alu_rems16(int16_t a, int16_t b)
{
    return b ? (int16_t)(a % b) : (int16_t)-1;
}

/* Saturating signed 32-bit add/sub. */
static inline int32_t alu_adds32_sat(int32_t a, int32_t b)
{
    int64_t s = (int64_t)a + b;
    return s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : (int32_t)s;
}
static inline int32_t alu_subs32_sat(int32_t a, int32_t b)
{
    int64_t s = (int64_t)a - b;
    return s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : (int32_t)s;
}

/* High 64 bits of a 64x64 product. */
static inline uint64_t alu_mulhi_u64(uint64_t a, uint64_t b)
{
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
}
static inline int64_t alu_mulhi_s64(int64_t a, int64_t b)
{
    return (int64_t)(((__int128)a * b) >> 64);
}

/* lop3: bit-wise function of a, b, c given by the 8-bit truth table lut
 * (lut = F(0xf0, 0xcc, 0xaa)). */
static inline uint32_t alu_lop3(uint32_t a, uint32_t b, uint32_t c, uint32_t lut)
{
    uint32_t d = 0;
    for (unsigned i = 0; i < 8; i++) {
        uint32_t t = ((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? c : ~c);
        d |= (lut >> i & 1) ? t : 0;
    }
    return d;
}

/*
 * Float (exactly given as a double) to integer of `bits` width, signed or not, rounded with
 * mode (.rni/.rzi/.rmi/.rpi as FPU_RN/RZ/RM/RP): NaN gives 0, out-of-range values saturate
 * (PTX float-to-int conversions always clamp to the destination range).
 */
static inline uint64_t alu_f2i(double x, unsigned bits, int is_signed, enum fpu_mode m)
{
    if (x != x)
        return 0;
    double r;
    switch (m) {
    case FPU_RZ: r = trunc(x); break;
    case FPU_RM: r = floor(x); break;
    case FPU_RP: r = ceil(x); break;
    case FPU_RNA: r = round(x); break;
    default: r = nearbyint(x); break; /* host default: round half to even */
    }
    if (is_signed) {
        double lo = -ldexp(1.0, (int)bits - 1), hi = ldexp(1.0, (int)bits - 1);
        if (r < lo)
            r = lo;
        if (r >= hi)
            return bits == 64 ? (uint64_t)INT64_MAX : (UINT64_C(1) << (bits - 1)) - 1;
        int64_t v = (int64_t)r;
        return bits == 64 ? (uint64_t)v : (uint64_t)v & ((UINT64_C(1) << bits) - 1);
    }
    if (r <= 0)
        return 0;
    if (r >= ldexp(1.0, (int)bits))
        return bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
    return (uint64_t)r;
}

/* Round a double to an integral double (cvt.rni/.rzi/.rmi/.rpi float-to-float). */
static inline double fpu_rint(double x, enum fpu_mode m)
{
    switch (m) {
    case FPU_RZ: return trunc(x);
    case FPU_RM: return floor(x);
    case FPU_RP: return ceil(x);
    default: return nearbyint(x);
    }
}

/* Integer (signed or not, 64-bit) to a float format in mode m (exact rounding). */
static inline uint64_t fpu_i2f(uint64_t v, int is_signed, struct fpu_fmt f, enum fpu_mode m)
{
    int sign = 0;
    if (is_signed && (int64_t)v < 0) {
        sign = 1;
        v = 0 - v;
    }
    if (v == 0)
        return 0;
    return fpu_round_pack(sign, v, 0, 0, f, m, 0);
}

/* fma(a, b, c) on f32 values rounded to nearest even, without a host fma instruction: the
 * double product is exact, one double addition, and the rare cases where the double sum sits
 * exactly on an f32 rounding midpoint (or in the f32 subnormal range) take the exact path. */
static inline float fpu_fmaf_rn(float a, float b, float c)
{
    double p = (double)a * (double)b, z = c, s = p + z;
    double bb = s - p, e = (p - (s - bb)) + (z - bb);
    uint64_t u = fpu_d2u(s);
    int slow = (e != 0 && (u & 0x1fffffffu) == 0x10000000u) || fabs(s) < 0x1p-125;
    if (__builtin_expect(slow, 0))
        return fpu_fma_f32(a, b, c, FPU_RN);
    return fpu_canon32((float)s);
}

/*
 * PTX min/max on f32: a NaN operand is ignored (both NaN: canonical NaN); nanp (.NaN) makes any
 * NaN operand give the canonical NaN; -0.0 is below +0.0; xs (.xorsign.abs) compares
 * magnitudes and gives the result the XOR of the operands' signs.
 */
static inline float fpu_fminmax32(float a, float b, int ismax, int nanp, int xs)
{
    uint32_t sx = (fpu_f2u(a) ^ fpu_f2u(b)) & 0x80000000u;
    if (xs) {
        a = fabsf(a);
        b = fabsf(b);
    }
    int na = a != a, nb = b != b;
    float r;
    if (na || nb) {
        if (nanp || (na && nb))
            return fpu_u2f(FPU_NAN32);
        r = na ? b : a;
    } else if (a == b) {
        /* equal (incl. +0 / -0): min takes the negative one, max the positive one */
        int sa = signbit(a) != 0;
        r = (ismax ? !sa : sa) ? a : b;
    } else {
        r = ((a < b) != (ismax != 0)) ? a : b;
    }
    if (xs)
        r = fpu_u2f((fpu_f2u(r) & 0x7fffffffu) | sx);
    return r;
}
static inline double fpu_fminmax64(double a, double b, int ismax)
{
    int na = a != a, nb = b != b;
    if (na || nb)
        return (na && nb) ? fpu_u2d(FPU_NAN64) : na ? b : a;
    if (a == b) {
        int sa = signbit(a) != 0;
        return (ismax ? !sa : sa) ? a : b;
    }
    return ((a < b) != (ismax != 0)) ? a : b;
}

/* ===================================================================== half precision ops */

/* f16/bf16 arithmetic for the half handlers: op 0 add, 1 mul, 2 fma, 3 sub; then .sat
 * (clamp to [0, 1], NaN -> 0) or .relu (negative -> +0, NaN -> canonical NaN). */
static inline uint16_t fpu_hop(int op, uint16_t a, uint16_t b, uint16_t c, int bf,
                               enum fpu_mode m, int ftz, int sat, int relu)
{
    if (op == 3) {
        b ^= 0x8000;
        op = 0;
    }
    uint16_t r = fpu_harith(op, a, b, c, bf, m, ftz);
    if (fpu_hisnan(r, bf))
        return sat ? 0 : FPU_NAN16;
    if (sat) {
        if (r & 0x8000)
            return 0;
        uint16_t one = bf ? 0x3f80 : 0x3c00;
        return r > one ? one : r;
    }
    if (relu && (r & 0x8000))
        return 0;
    return r;
}

/* Apply fpu_hop to both halves of packed x2 operands. */
static inline uint32_t fpu_hop2(int op, uint32_t a, uint32_t b, uint32_t c, int bf,
                                enum fpu_mode m, int ftz, int sat, int relu)
{
    uint32_t lo = fpu_hop(op, (uint16_t)a, (uint16_t)b, (uint16_t)c, bf, m, ftz, sat, relu);
    uint32_t hi = fpu_hop(op, (uint16_t)(a >> 16), (uint16_t)(b >> 16), (uint16_t)(c >> 16), bf, m,
                          ftz, sat, relu);
    return lo | hi << 16;
}

/* min/max on f16/bf16 (same rules as fpu_fminmax32; values are exact in f32). */
static inline uint16_t fpu_hminmax(uint16_t a, uint16_t b, int bf, int ismax, int nanp, int xs,
                                   int ftz, int relu)
{
    if (ftz) {
        a = fpu_hftz(a, bf);
        b = fpu_hftz(b, bf);
    }
    float x = bf ? fpu_bf2f(a) : fpu_h2f(a), y = bf ? fpu_bf2f(b) : fpu_h2f(b);
    float r = fpu_fminmax32(x, y, ismax, nanp, xs);
    if (r != r)
        return FPU_NAN16;
    if (relu && r < 0)
        r = 0;
    return bf ? (uint16_t)(fpu_f2u(r) >> 16) : fpu_d2h(r, FPU_RN, 0);
}
static inline uint32_t fpu_hminmax2(uint32_t a, uint32_t b, int bf, int ismax, int nanp, int xs,
                                    int ftz, int relu)
{
    return fpu_hminmax((uint16_t)a, (uint16_t)b, bf, ismax, nanp, xs, ftz, relu) |
           (uint32_t)fpu_hminmax((uint16_t)(a >> 16), (uint16_t)(b >> 16), bf, ismax, nanp, xs, ftz,
                                 relu) << 16;
}

/* ======================================================================= conversions */

/* Value of a 6- or 4-bit float without infinity or NaN (the e2m3, e3m2 and e2m1 of the tensor
 * instructions' .kind::f8f6f4 / mxf4 kinds; subnormals at exponent 0) of eb exponent and mb
 * mantissa bits, its sign at bit eb + mb of b. Exact in double. */
static inline double fpu_minifloat(uint32_t b, unsigned eb, unsigned mb)
{
    const unsigned e = b >> mb & ((1u << eb) - 1), m = b & ((1u << mb) - 1);
    const int bias = (1 << (eb - 1)) - 1;
    const double v = e ? ldexp((double)(m | 1u << mb), (int)e - bias - (int)mb)
                       : ldexp((double)m, 1 - bias - (int)mb);
    return b >> (eb + mb) & 1 ? -v : v;
}

/* Value of an encoding of format f as a double (exact for every format up to f64). */
static inline double fpu_unpack(uint64_t bits, struct fpu_fmt f)
{
    if (f.mbits == 52)
        return fpu_u2d(bits);
    if (f.mbits == 23)
        return (double)fpu_u2f((uint32_t)bits);
    unsigned w = f.ebits + f.mbits;
    int sign = (int)(bits >> w & 1);
    uint64_t e = bits >> f.mbits & ((UINT64_C(1) << f.ebits) - 1);
    uint64_t m = bits & ((UINT64_C(1) << f.mbits) - 1);
    uint64_t emax = (UINT64_C(1) << f.ebits) - 1;
    int bias = (1 << (f.ebits - 1)) - 1;
    double v;
    if (f.noinf == 2)
        ; /* every encoding finite */
    else if (f.noinf ? (e == emax && m == (UINT64_C(1) << f.mbits) - 1) : (e == emax && m != 0))
        return fpu_u2d(FPU_NAN64);
    if (!f.noinf && e == emax)
        v = INFINITY;
    else if (e == 0)
        v = ldexp((double)m, 1 - bias - (int)f.mbits);
    else
        v = ldexp((double)(m | UINT64_C(1) << f.mbits), (int)e - bias - (int)f.mbits);
    return sign ? -v : v;
}

/* Float -> narrow float as cvt does it: mode m, .satfinite, .relu (negative -> +0, NaN stays
 * the canonical NaN). Returns the encoding of f. */
static inline uint64_t fpu_cvt_narrow(double x, struct fpu_fmt f, enum fpu_mode m, int satfinite,
                                      int relu)
{
    if (x != x)
        return fpu_nan_bits(f);
    if (relu && (x < 0 || (x == 0 && signbit(x))))
        return 0;
    return fpu_from_double(x, 0, f, m, satfinite);
}

/*
 * f32 -> format f with stochastic rounding (cvt.rs): the rbits random bits in rnd are added,
 * as an integer, to the bits of x's significand that the conversion discards, aligned with the
 * most significant discarded bit (below it when fewer bits are discarded than rbits holds, the
 * random bits' low end is dropped), and the sum is truncated: a carry out of the discarded
 * field rounds away from zero, none toward zero. Deterministic given rnd. NaN gives the
 * format's canonical NaN (+MAX_NORM for the all-finite formats); .relu a +0 for negative
 * values (-0 included); an infinity, or a result past MAX_NORM, gives the signed MAX_NORM with
 * .satfinite, else infinity (a finite overflow that did not carry stays at MAX_NORM, as
 * rounding toward zero would).
 */
static inline uint64_t fpu_cvt_rs(float x, struct fpu_fmt f, uint32_t rnd, unsigned rbits,
                                  int satfinite, int relu)
{
    const uint32_t u = fpu_f2u(x);
    if (x != x)
        return fpu_nan_bits(f);
    if (relu && (u >> 31))
        return 0;
    const uint64_t sb = (uint64_t)(u >> 31) << (f.ebits + f.mbits);
    const unsigned e = u >> 23 & 0xff;
    const uint64_t maxf = fpu_maxfinite(f);
    const uint64_t big = f.noinf ? maxf : fpu_inf_bits(f);
    if (e == 0xff)
        return sb | (satfinite ? maxf : big);
    const uint64_t sig = e ? (u & 0x7fffffu) | 0x800000u : (u & 0x7fffffu);
    if (sig == 0)
        return sb;
    const int ex = (e ? (int)e : 1) - 150;                  /* |x| = sig * 2^ex */
    const int E = ex + 63 - __builtin_clzll(sig);           /* floor(log2 |x|) */
    const int bias = (1 << (f.ebits - 1)) - 1, emin = 1 - bias;
    int q = (E < emin ? emin : E) - f.mbits;                /* exponent of the last kept bit */
    const int D = q - ex;                                   /* discarded bits, >= 0 */
    uint64_t kept = 0;
    int carry = 0;
    if (D < 48) {
        const uint64_t add = D >= (int)rbits ? (uint64_t)rnd << (D - (int)rbits)
                                             : (uint64_t)(rnd >> ((int)rbits - D));
        kept = (sig + add) >> D;
        carry = kept != sig >> D;
    }
    if (kept >> (f.mbits + 1)) { /* the carry reached a new binade: 2^(mbits+1), exact */
        kept >>= 1;
        q++;
    }
    if (!(kept >> f.mbits))
        return sb | kept; /* subnormal or zero */
    const int ef = q + f.mbits + bias;
    const uint64_t mag = (uint64_t)ef << f.mbits | (kept & ((UINT64_C(1) << f.mbits) - 1));
    if (ef >= (1 << f.ebits) || mag > maxf)
        return sb | (satfinite || !carry ? maxf : big);
    return sb | mag;
}

/* f32 -> ue8m0 (a biased power-of-two exponent, 0 = 2^-127 .. 254 = 2^127, 255 = NaN) for
 * cvt.{rz,rp}{.satfinite}.ue8m0x2: the magnitude's exponent rounded down (.rz) or up (.rp,
 * when not a power of two), clamped to 0 at the bottom (every magnitude at or below 2^-127,
 * zeros included) and to 255 at the top (254 with .satfinite); NaN -> 255, infinity -> 255
 * (254 with .satfinite). The sign is ignored (the format has none). */
static inline uint8_t fpu_f2ue8m0(float x, int up, int satfinite)
{
    const uint32_t u = fpu_f2u(x) & 0x7fffffffu;
    const int top = satfinite ? 254 : 255;
    if (u > 0x7f800000u)
        return 255;
    if (u == 0x7f800000u)
        return (uint8_t)top;
    if (u == 0)
        return 0;
    const unsigned e = u >> 23, m = u & 0x7fffffu;
    int b; /* floor(log2 |x|) + 127 */
    int inexact;
    if (e) {
        b = (int)e;
        inexact = m != 0;
    } else {
        b = 31 - __builtin_clz(m) - 149 + 127;
        inexact = (m & (m - 1)) != 0;
    }
    if (up && inexact)
        b++;
    return (uint8_t)(b < 0 ? 0 : b > top ? top : b);
}

/* The 16 low bits of v in reverse order (bit 0 <-> bit 15): the random bits the first element
 * of each pair of a cvt.rs x4 conversion reads. */
static inline uint32_t fpu_rev16(uint32_t v)
{
    uint32_t r = 0;
    for (unsigned i = 0; i < 16; i++)
        r |= (v >> i & 1u) << (15 - i);
    return r;
}

/* ue8m0 -> bf16 bits (cvt.rn.bf16x2.ue8m0x2): 2^(c - 127), exact (2^-127 is the bf16
 * subnormal 0x0040); 255 -> the canonical NaN 0x7fff. */
static inline uint16_t fpu_ue8m02bf(uint8_t c)
{
    if (c == 255)
        return 0x7fff;
    if (c == 0)
        return 0x0040;
    return (uint16_t)((unsigned)c << 7);
}

/* f32 -> tf32 (an f32 bit pattern with the low 13 bits zero); NaN -> 0x7fffffff. */
static inline uint32_t fpu_f2tf32(float x, enum fpu_mode m, int satfinite, int relu)
{
    if (x != x)
        return FPU_NAN32;
    return (uint32_t)fpu_cvt_narrow(x, FPU_TF32, m, satfinite, relu) << 13;
}

/* Saturate a signed 64-bit value to an integer type of `bits` width (signed or not). */
static inline uint64_t alu_sat_int(int64_t v, unsigned bits, int is_signed)
{
    if (is_signed) {
        int64_t hi = bits == 64 ? INT64_MAX : (INT64_C(1) << (bits - 1)) - 1, lo = -hi - 1;
        return (uint64_t)(v > hi ? hi : v < lo ? lo : v);
    }
    uint64_t hi = bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
    return v < 0 ? 0 : (uint64_t)v > hi ? hi : (uint64_t)v;
}
/* The same for an unsigned 64-bit source value. */
static inline uint64_t alu_sat_uint(uint64_t v, unsigned bits, int is_signed)
{
    uint64_t hi = is_signed ? (UINT64_C(1) << (bits - 1)) - 1
                            : bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
    return v > hi ? hi : v;
}

/* One scalar cvt, described once per instruction. kinds: 0 unsigned int, 1 signed int,
 * 2 float (fmt; f64 = FPU_F64). */
struct alu_cvt {
    uint8_t skind, sbits, dkind, dbits;
    struct fpu_fmt sfmt, dfmt;
    uint8_t mode;      /* enum fpu_mode */
    uint8_t irnd;      /* .rni/.rzi/.rmi/.rpi: round to an integral value */
    uint8_t ftz, sat, relu, satfinite, tf32;
};

/*
 * cvt of one value: raw source bits (zero-extended register contents) to the destination
 * encoding, extended to 64 bits the way a wider destination register receives it (sign for
 * signed integer destinations). PTX rules: float -> int rounds by .irnd (default .rzi here),
 * saturates to the destination range, NaN -> 0; int -> int truncates, or clamps with .sat;
 * float -> float rounds by .frnd (default .rn) or to an integral value by .irnd; .ftz flushes
 * f32 subnormal inputs and results; .sat clamps float results to [0, 1] (NaN -> 0).
 */
static inline uint64_t alu_cvt_one(const struct alu_cvt *c, uint64_t raw)
{
    enum fpu_mode m = (enum fpu_mode)c->mode;
    uint64_t smask = c->sbits >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << c->sbits) - 1;
    uint64_t dmask = c->dbits >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << c->dbits) - 1;
    raw &= smask;
    uint64_t r;
    if (c->skind != 2) {
        int64_t sv = (int64_t)raw;
        if (c->skind == 1 && c->sbits < 64)
            sv = (int64_t)(raw << (64 - c->sbits)) >> (64 - c->sbits);
        if (c->dkind != 2) {
            if (c->sat)
                r = c->skind == 1 ? alu_sat_int(sv, c->dbits, c->dkind == 1)
                                  : alu_sat_uint(raw, c->dbits, c->dkind == 1);
            else
                r = (uint64_t)sv;
        } else {
            r = fpu_i2f(c->skind == 1 ? (uint64_t)sv : raw, c->skind == 1, c->dfmt, m);
            if (c->sat) {
                double x = fpu_unpack(r, c->dfmt);
                x = x > 1 ? 1 : x;
                r = x <= 0 ? 0 : fpu_from_double(x, 0, c->dfmt, FPU_RN, 0);
            }
        }
    } else {
        double x = fpu_unpack(raw, c->sfmt);
        if (c->ftz && c->sfmt.mbits == 23 && c->sbits == 32)
            x = fpu_ftz32((float)x);
        if (c->dkind != 2) {
            r = alu_f2i(x, c->dbits, c->dkind == 1, c->irnd || c->mode ? m : FPU_RZ);
        } else {
            if (c->irnd)
                x = fpu_rint(x, m);
            if (c->sat)
                x = x != x ? 0 : x > 1 ? 1 : x < 0 ? 0 : x;
            if (c->tf32) {
                r = fpu_f2tf32((float)x, m, c->satfinite, c->relu);
            } else if (c->dfmt.mbits == 52) {
                r = fpu_d2u(x);
            } else {
                r = fpu_cvt_narrow(x, c->dfmt, c->irnd ? FPU_RN : m, c->satfinite, c->relu);
            }
            if (c->ftz && c->dbits == 32 && !c->tf32 && (r & 0x7f800000u) == 0)
                r &= 0x80000000u;
        }
    }
    r &= dmask;
    if (c->dkind == 1 && c->dbits < 64)
        r = (uint64_t)((int64_t)(r << (64 - c->dbits)) >> (64 - c->dbits));
    return r;
}

#ifdef PTXEMU_IR_H
/* Kind, width and format of a PTX type for struct alu_cvt (kind 3: not a scalar cvt type). */
static inline void alu_cvt_type(unsigned t, uint8_t *kind, uint8_t *bits, struct fpu_fmt *f)
{
    *f = FPU_F32;
    switch (t) {
    case T_U8: case T_B8: *kind = 0; *bits = 8; return;
    case T_U16: case T_B16: *kind = 0; *bits = 16; return;
    case T_U32: case T_B32: *kind = 0; *bits = 32; return;
    case T_U64: case T_B64: *kind = 0; *bits = 64; return;
    case T_S8: *kind = 1; *bits = 8; return;
    case T_S16: *kind = 1; *bits = 16; return;
    case T_S32: *kind = 1; *bits = 32; return;
    case T_S64: *kind = 1; *bits = 64; return;
    case T_F16: *kind = 2; *bits = 16; *f = FPU_F16; return;
    case T_BF16: *kind = 2; *bits = 16; *f = FPU_BF16; return;
    case T_F32: case T_TF32: *kind = 2; *bits = 32; *f = FPU_F32; return;
    case T_F64: *kind = 2; *bits = 64; *f = FPU_F64; return;
    case T_E4M3: *kind = 2; *bits = 8; *f = FPU_E4M3; return;
    case T_E5M2: *kind = 2; *bits = 8; *f = FPU_E5M2; return;
    default: *kind = 3; *bits = 0; return;
    }
}

/* The cvt descriptor of an instruction (dkind or skind 3 when unsupported). */
static inline struct alu_cvt alu_cvt_desc(const struct ir_insn *in)
{
    struct alu_cvt c;
    memset(&c, 0, sizeof c);
    alu_cvt_type(in->type[0], &c.dkind, &c.dbits, &c.dfmt);
    alu_cvt_type(in->type[1], &c.skind, &c.sbits, &c.sfmt);
    unsigned r = in->rnd;
    c.irnd = r == RND_RNI || r == RND_RZI || r == RND_RMI || r == RND_RPI;
    c.mode = (uint8_t)(r == RND_RZ || r == RND_RZI ? FPU_RZ
                       : r == RND_RM || r == RND_RMI ? FPU_RM
                       : r == RND_RP || r == RND_RPI ? FPU_RP
                       : r == RND_RNA ? FPU_RNA : FPU_RN);
    c.ftz = (in->fl & IR_FL(FL_FTZ)) != 0;
    c.sat = (in->fl & IR_FL(FL_SAT)) != 0;
    c.relu = (in->fl & IR_FL(FL_RELU)) != 0;
    c.satfinite = (in->fl & IR_FL(FL_SATFINITE)) != 0;
    c.tf32 = in->type[0] == T_TF32;
    if (c.dkind == 2 && c.skind != 2 && c.mode == FPU_RN && !c.irnd)
        c.mode = FPU_RN;
    return c;
}
#endif

#endif
