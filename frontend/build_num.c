/*
 * frontend/build_num.c — numeric literals: integer forms (decimal, 0x, 0b, octal, U suffix),
 * 0f/0d bit patterns and decimal floats, converted to the bits of an operand's type (f16,
 * bf16 rounded to nearest even from the double).
 */
#include <stdlib.h>
#include <string.h>

#include "frontend/build_int.h"

/* ============================================================================ numbers */

/* Decode an integer literal token (decimal, 0x, 0b, octal, U suffix, or the predefined
 * constant WARP_SZ, which nvcc emits for warpSize: 32, as ptxas takes it). */
int ptx_parse_int(const char *s, size_t len, uint64_t *out)
{
    if (len == 7 && memcmp(s, "WARP_SZ", 7) == 0) {
        *out = 32;
        return 0;
    }
    if (len && (s[len - 1] == 'U' || s[len - 1] == 'u'))
        len--;
    if (!len)
        return -1;
    unsigned base = 10;
    size_t i = 0;
    if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        base = 16, i = 2;
    else if (len > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
        base = 2, i = 2;
    else if (len > 1 && s[0] == '0')
        base = 8, i = 1;
    uint64_t v = 0;
    for (; i < len; i++) {
        char c = s[i];
        unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                            : 99;
        if (d >= base)
            return -1;
        if (v > (UINT64_MAX - d) / base)
            return -1;
        v = v * base + d;
    }
    *out = v;
    return 0;
}

static uint64_t hexbits(const char *s, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        v = v << 4 | (uint64_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return v;
}

int num_decode(struct ptx_builder *b, struct ptx_tok t, int neg, struct num *n)
{
    const char *s = tok_s(b, t);
    memset(n, 0, sizeof *n);
    if (t.len == 10 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F')) {
        n->is_float = 1;
        n->u = hexbits(s + 2, 8);
        float f;
        uint32_t u32 = (uint32_t)n->u;
        memcpy(&f, &u32, 4);
        n->f = f;
        if (neg) {
            n->u ^= 0x80000000u;
            n->f = -n->f;
        }
        return 0;
    }
    if (t.len == 18 && s[0] == '0' && (s[1] == 'd' || s[1] == 'D')) {
        n->is_float = 2;
        n->u = hexbits(s + 2, 16);
        memcpy(&n->f, &n->u, 8);
        if (neg) {
            n->u ^= UINT64_C(1) << 63;
            n->f = -n->f;
        }
        return 0;
    }
    int isf = 0;
    for (uint32_t i = 0; i < t.len; i++)
        if (s[i] == '.' || ((s[i] == 'e' || s[i] == 'E') && !(t.len > 1 && (s[1] == 'x' || s[1] == 'X'))))
            isf = 1;
    if (isf) {
        char buf[128];
        size_t l = t.len < sizeof buf - 1 ? t.len : sizeof buf - 1;
        memcpy(buf, s, l);
        buf[l] = 0;
        n->is_float = 3;
        n->f = strtod(buf, NULL);
        if (neg)
            n->f = -n->f;
        memcpy(&n->u, &n->f, 8);
        return 0;
    }
    if (ptx_parse_int(s, t.len, &n->u) < 0) {
        b_err(b, t.off, "invalid integer literal '%.*s'", (int)t.len, s);
        return -1;
    }
    if (neg)
        n->u = 0 - n->u;
    return 0;
}

/* Bits of double v rounded (to nearest, ties to even) to a binary format with ebits exponent
 * and mbits mantissa bits: subnormals, overflow to infinity, NaN kept quiet. Integer code
 * only (no _Float16, which not every compiler has), and a single rounding from the double. */
static uint32_t f64_to_small(double v, unsigned ebits, unsigned mbits)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    uint32_t sign = (uint32_t)(u >> 63) << (ebits + mbits);
    int e = (int)(u >> 52 & 0x7ff);
    uint64_t man = u & ((UINT64_C(1) << 52) - 1);
    uint32_t emax = (1u << ebits) - 1;
    if (e == 0x7ff) /* inf / NaN */
        return sign | emax << mbits | (man ? 1u << (mbits - 1) | (uint32_t)(man >> (52 - mbits)) : 0);
    if (e == 0 && man == 0)
        return sign;
    int bias = (1 << (ebits - 1)) - 1;
    int ne = e - 1023 + bias; /* biased exponent in the small format */
    uint64_t sig = man | (e ? UINT64_C(1) << 52 : 0); /* 53-bit significand, value sig * 2^(e-1075) */
    if (e == 0)
        ne = 1 - 1023 + bias; /* double subnormal: far below any small format's range */
    unsigned shift = 52 - mbits; /* bits dropped for a normal result */
    if (ne <= 0) {               /* subnormal result: drop 1 - ne more bits */
        unsigned extra = (unsigned)(1 - ne);
        shift = extra > 63 ? 63 : shift + extra;
        if (shift > 63)
            shift = 63; /* everything is dropped: rounds to zero (sig < 2^53) */
        ne = 0;
    }
    uint64_t q = sig >> shift;
    uint64_t rem = sig & ((UINT64_C(1) << shift) - 1);
    uint64_t half = UINT64_C(1) << (shift - 1);
    if (rem > half || (rem == half && (q & 1)))
        q++;
    /* q holds the implicit bit for normals; carry into the exponent is handled by addition */
    uint64_t bits;
    if (ne == 0)
        bits = q; /* subnormal (may round up into the smallest normal: the encoding is right) */
    else
        bits = ((uint64_t)(unsigned)ne << mbits) + (q - (UINT64_C(1) << mbits));
    if (bits >= (uint64_t)emax << mbits)
        bits = (uint64_t)emax << mbits; /* overflow: infinity */
    return sign | (uint32_t)bits;
}

/* Bits of literal n as a value of type t; -1 (reported) when the literal does not fit the
 * type's kind. */
int num_convert(struct ptx_builder *b, const struct num *n, unsigned t, uint32_t off,
                       uint64_t *out)
{
    unsigned sz = ir_type_size((enum ir_type)t);
    if (ir_type_class((enum ir_type)t) == TC_FLOAT && ir_type_lanes((enum ir_type)t) == 1) {
        double v = n->is_float ? n->f : (double)(int64_t)n->u;
        if (n->is_float == 0 && sz != 8 && t != T_F32) {
            /* integer literal for a half type: take the bits (ptxas accepts bit patterns) */
            *out = n->u;
            return 0;
        }
        if (n->is_float == 0) {
            b_err(b, off, "integer literal used as a floating-point operand (use 0f/0d)");
            return -1;
        }
        if (sz == 8) { /* .f64, PTXPlus .ff64 */
            if (n->is_float == 1) {
                v = n->f;
            }
            memcpy(out, &v, 8);
        } else if (t == T_F32 || t == T_TF32) {
            float f = (float)v;
            uint32_t u;
            memcpy(&u, &f, 4);
            *out = n->is_float == 1 ? (n->u & 0xffffffffu) : u;
        } else if (t == T_F16) {
            *out = f64_to_small(v, 5, 10);
        } else {
            *out = f64_to_small(v, 8, 7);
        }
        return 0;
    }
    if (n->is_float == 3) {
        b_err(b, off, "floating-point literal used as an integer operand");
        return -1;
    }
    uint64_t v = n->u;
    if (sz && sz < 8) {
        unsigned bits = sz * 8;
        v &= (UINT64_C(1) << bits) - 1;
        if (ir_type_is_signed((enum ir_type)t) && ir_type_lanes((enum ir_type)t) == 1)
            v = (uint64_t)((int64_t)(v << (64 - bits)) >> (64 - bits));
    }
    *out = v;
    return 0;
}
