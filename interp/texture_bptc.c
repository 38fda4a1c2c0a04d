/*
 * interp/texture_bptc.c — BPTC texel decoding: BC7 (RGBA unorm) and BC6H (RGB half float,
 * signed or unsigned), for texture fetches of CUDA arrays of
 * cudaChannelFormatKind{Unsigned,Signed}BlockCompressed6H and ...BlockCompressed7{,SRGB}.
 *
 * Written from the Khronos Data Format Specification's "BPTC Compressed Texture Image
 * Formats" chapter (derived from OpenGL 4.4's, the same formats as Direct3D 11's BC6H / BC7).
 * A block is 128 bits, little-endian; texel (x, y) of a block is index i = y * 4 + x.
 *
 * BC7: the mode is the number of zeros below the lowest set bit of byte 0 (byte 0 == 0 is
 * reserved: every channel of every texel 0). After the mode come partition, rotation, index
 * selection, colour endpoints (channel, then subset, then endpoint), alpha endpoints,
 * per-endpoint or shared P-bits, primary and secondary indices (bptc7_modes). A P-bit is
 * appended below an endpoint's bits, then the top bits are replicated into the rest of the
 * byte. Each subset's anchor texel (texel 0; the anchor tables for subsets 1 and 2) has one
 * index bit less (its top bit is 0). A channel is ((64 - w) e0 + w e1 + 32) >> 6 with w from
 * the 2/3/4-bit weight table; mode 4's index selection bit swaps which index set colour and
 * alpha use; rotation 1..3 swaps alpha with r, g or b. Results are byte / 255 (sRGB, when
 * the kind says so, is applied by the caller like for the other formats).
 *
 * BC6H: mode = the low 2 bits when below 2, else the low 5 bits (19, 23, 27, 31 are reserved:
 * (0, 0, 0, 1)). Each mode scatters its endpoint bits over the block in its own order
 * (bptc6_steps, the spec's block descriptions; v^a..b puts the next stream bits into bits b,
 * b±1 … a of v). Transformed modes store E1..E3 as deltas of the delta width, sign-extended,
 * added to E0 and wrapped to the endpoint width; signed formats sign-extend every endpoint
 * from the endpoint width. Endpoints are unquantized (the spec's formulas), interpolated as
 * BC7 (3-bit indices from bit 82 with two subsets and the first 32 two-subset partitions,
 * 4-bit indices from bit 65 with one), then scaled by 31/64 (unsigned) or 31/32 with the
 * sign restored (signed) into half-float bits, which are the result (alpha 1). Both formats
 * are bit-exact by specification.
 */
#include "interp/fpu.h"
#include "interp/texture_bc.h"

/* =========================================================================== the tables */

/* Subset of each texel (bit i: texel i in subset 1) of the 64 two-subset partitions. */
static const uint16_t bptc_part2[64] = {
    0xcccc, 0x8888, 0xeeee, 0xecc8, 0xc880, 0xfeec, 0xfec8, 0xec80,
    0xc800, 0xffec, 0xfe80, 0xe800, 0xffe8, 0xff00, 0xfff0, 0xf000,
    0xf710, 0x008e, 0x7100, 0x08ce, 0x008c, 0x7310, 0x3100, 0x8cce,
    0x088c, 0x3110, 0x6666, 0x366c, 0x17e8, 0x0ff0, 0x718e, 0x399c,
    0xaaaa, 0xf0f0, 0x5a5a, 0x33cc, 0x3c3c, 0x55aa, 0x9696, 0xa55a,
    0x73ce, 0x13c8, 0x324c, 0x3bdc, 0x6996, 0xc33c, 0x9966, 0x0660,
    0x0272, 0x04e4, 0x4e40, 0x2720, 0xc936, 0x936c, 0x39c6, 0x639c,
    0x9336, 0x9cc6, 0x817e, 0xe718, 0xccf0, 0x0fcc, 0x7744, 0xee22,
};

/* Subset of texel i (bits 2i+1..2i) of the 64 three-subset partitions. */
static const uint32_t bptc_part3[64] = {
    0xaa685050, 0x6a5a5040, 0x5a5a4200, 0x5450a0a8,
    0xa5a50000, 0xa0a05050, 0x5555a0a0, 0x5a5a5050,
    0xaa550000, 0xaa555500, 0xaaaa5500, 0x90909090,
    0x94949494, 0xa4a4a4a4, 0xa9a59450, 0x2a0a4250,
    0xa5945040, 0x0a425054, 0xa5a5a500, 0x55a0a0a0,
    0xa8a85454, 0x6a6a4040, 0xa4a45000, 0x1a1a0500,
    0x0050a4a4, 0xaaa59090, 0x14696914, 0x69691400,
    0xa08585a0, 0xaa821414, 0x50a4a450, 0x6a5a0200,
    0xa9a58000, 0x5090a0a8, 0xa8a09050, 0x24242424,
    0x00aa5500, 0x24924924, 0x24499224, 0x50a50a50,
    0x500aa550, 0xaaaa4444, 0x66660000, 0xa5a0a5a0,
    0x50a050a0, 0x69286928, 0x44aaaa44, 0x66666600,
    0xaa444444, 0x54a854a8, 0x95809580, 0x96969600,
    0xa85454a8, 0x80959580, 0xaa141414, 0x96960000,
    0xaaaa1414, 0xa05050a0, 0xa0a5a5a0, 0x96000000,
    0x40804080, 0xa9a8a9a8, 0xaaaaaa44, 0x2a4a5254,
};

/* Anchor texel of subset 1 of the two-subset partitions, and of subsets 1 and 2 of the
 * three-subset partitions. */
static const uint8_t bptc_anchor2[64] = {
    15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
    15, 2,  8,  2,  2,  8,  8,  15, 2,  8,  2,  2,  8,  8,  2,  2,
    15, 15, 6,  8,  2,  8,  15, 15, 2,  8,  2,  2,  2,  15, 15, 6,
    6,  2,  6,  8,  15, 15, 2,  2,  15, 15, 15, 15, 15, 2,  2,  15,
};
static const uint8_t bptc_anchor3a[64] = {
    3,  3,  15, 15, 8,  3,  15, 15, 8,  8,  6,  6,  6,  5,  3,  3,
    3,  3,  8,  15, 3,  3,  6,  10, 5,  8,  8,  6,  8,  5,  15, 15,
    8,  15, 3,  5,  6,  10, 8,  15, 15, 3,  15, 5,  15, 15, 15, 15,
    3,  15, 5,  5,  5,  8,  5,  10, 5,  10, 8,  13, 15, 12, 3,  3,
};
static const uint8_t bptc_anchor3b[64] = {
    15, 8,  8,  3,  15, 15, 3,  8,  15, 15, 15, 15, 15, 15, 15, 8,
    15, 8,  15, 3,  15, 8,  15, 8,  3,  15, 6,  10, 15, 15, 10, 8,
    15, 3,  15, 10, 10, 8,  9,  10, 6,  15, 8,  15, 3,  6,  6,  8,
    15, 3,  15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 3,  15, 15, 8,
};

/* Interpolation weights (out of 64) of 2-, 3- and 4-bit indices. */
static const uint8_t bptc_w2[4] = {0, 21, 43, 64};
static const uint8_t bptc_w3[8] = {0, 9, 18, 27, 37, 46, 55, 64};
static const uint8_t bptc_w4[16] = {0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64};

static const uint8_t *bptc_weights(unsigned bits)
{
    return bits == 2 ? bptc_w2 : bits == 3 ? bptc_w3 : bptc_w4;
}

/* The 128-bit block as a bit stream. */
struct bptc_bits {
    const uint8_t *p;
    unsigned pos;
};

/* The next n (<= 32) bits, least significant first. */
static uint32_t bptc_read(struct bptc_bits *s, unsigned n)
{
    uint32_t v = 0;
    for (unsigned k = 0; k < n; k++, s->pos++)
        v |= (uint32_t)(s->p[s->pos >> 3] >> (s->pos & 7) & 1) << k;
    return v;
}

/* Subset of texel i of partition `part` of a block of ns subsets. */
static unsigned bptc_subset(unsigned ns, unsigned part, unsigned i)
{
    if (ns == 2)
        return bptc_part2[part] >> i & 1;
    if (ns == 3)
        return bptc_part3[part] >> (2 * i) & 3;
    return 0;
}

/* Is texel i an anchor (its index one bit shorter) of partition `part` of ns subsets? */
static bool bptc_anchor(unsigned ns, unsigned part, unsigned i)
{
    if (i == 0)
        return true;
    if (ns == 2)
        return i == bptc_anchor2[part];
    if (ns == 3)
        return i == bptc_anchor3a[part] || i == bptc_anchor3b[part];
    return false;
}

/* The index of texel i in an index field of `bits` bits per texel starting at bit `start`
 * (anchors one bit shorter). */
static unsigned bptc_index(const uint8_t *blk, unsigned start, unsigned bits, unsigned ns,
                           unsigned part, unsigned i)
{
    struct bptc_bits s = {blk, start};
    for (unsigned k = 0; k < i; k++)
        s.pos += bits - bptc_anchor(ns, part, k);
    return bptc_read(&s, bits - bptc_anchor(ns, part, i));
}

/* ================================================================================ BC7 */

/* Per mode: subsets, partition bits, rotation bits, index-selection bits, colour bits,
 * alpha bits, per-endpoint P-bits, shared P-bits, index bits, secondary index bits. */
static const struct bptc7_mode {
    uint8_t ns, pb, rb, isb, cb, ab, epb, spb, ib, ib2;
} bptc7_modes[8] = {
    {3, 4, 0, 0, 4, 0, 1, 0, 3, 0}, {2, 6, 0, 0, 6, 0, 0, 1, 3, 0},
    {3, 6, 0, 0, 5, 0, 0, 0, 2, 0}, {2, 6, 0, 0, 7, 0, 1, 0, 2, 0},
    {1, 0, 2, 1, 5, 6, 0, 0, 2, 3}, {1, 0, 2, 0, 7, 8, 0, 0, 2, 2},
    {1, 0, 0, 0, 7, 7, 1, 0, 4, 0}, {2, 6, 0, 0, 5, 5, 1, 0, 2, 0},
};

/* An endpoint channel of n bits (P-bit included) widened to 8 bits by replicating its top
 * bits. */
static unsigned bptc_widen(unsigned v, unsigned n)
{
    return n >= 8 ? v : (v << (8 - n)) | (v >> (2 * n - 8));
}

/* see texture_bc.h */
void itex_bc7_texel(const uint8_t *blk, unsigned i, float out[4])
{
    unsigned mode = 0;
    while (mode < 8 && !(blk[0] >> mode & 1))
        mode++;
    if (mode == 8) { /* reserved */
        out[0] = out[1] = out[2] = out[3] = 0.0f;
        return;
    }
    const struct bptc7_mode *m = &bptc7_modes[mode];
    struct bptc_bits s = {blk, mode + 1};
    const unsigned part = bptc_read(&s, m->pb), rot = bptc_read(&s, m->rb),
                   isel = bptc_read(&s, m->isb);
    unsigned e[6][4]; /* [subset * 2 + endpoint][channel], raw bits */
    for (unsigned c = 0; c < 4; c++) {
        const unsigned n = c < 3 ? m->cb : m->ab;
        for (unsigned k = 0; k < 2u * m->ns; k++)
            e[k][c] = n ? bptc_read(&s, n) : 255;
    }
    unsigned p[6] = {0, 0, 0, 0, 0, 0};
    const bool pbit = m->epb || m->spb;
    for (unsigned k = 0; k < 2u * m->ns; k++) {
        if (m->epb)
            p[k] = bptc_read(&s, 1);
        else if (m->spb && !(k & 1))
            p[k] = p[k + 1] = bptc_read(&s, 1);
    }
    for (unsigned k = 0; k < 2u * m->ns; k++)
        for (unsigned c = 0; c < 4; c++) {
            const unsigned n = c < 3 ? m->cb : m->ab;
            if (n)
                e[k][c] = pbit ? bptc_widen(e[k][c] << 1 | p[k], n + 1) : bptc_widen(e[k][c], n);
        }
    const unsigned sub = bptc_subset(m->ns, part, i);
    const unsigned ib_start = s.pos, ib2_start = s.pos + 16 * m->ib - m->ns;
    const unsigned i1 = bptc_index(blk, ib_start, m->ib, m->ns, part, i);
    /* colour and alpha index, and their widths (mode 4/5: two index sets) */
    unsigned ci = i1, cb = m->ib, ai = i1, ab = m->ib;
    if (m->ib2) {
        const unsigned i2 = bptc_index(blk, ib2_start, m->ib2, 1, 0, i);
        if (isel) {
            ci = i2, cb = m->ib2;
        } else {
            ai = i2, ab = m->ib2;
        }
    }
    unsigned v[4];
    for (unsigned c = 0; c < 4; c++) {
        const unsigned w = c < 3 ? bptc_weights(cb)[ci] : bptc_weights(ab)[ai];
        v[c] = ((64 - w) * e[2 * sub][c] + w * e[2 * sub + 1][c] + 32) >> 6;
    }
    if (rot) { /* swap alpha with r, g or b */
        const unsigned t = v[3];
        v[3] = v[rot - 1];
        v[rot - 1] = t;
    }
    for (unsigned c = 0; c < 4; c++)
        out[c] = (float)v[c] / 255.0f;
}

/* =============================================================================== BC6H */

/* Endpoint fields: component c of endpoint e is e * 3 + c; PB the partition number. */
enum { R0, G0, B0, R1, G1, B1, R2, G2, B2, R3, G3, B3, PB };

/* One step of a mode's layout: the next |a - b| + 1 stream bits go to bits b, b±1, …, a of
 * field f (END: no more steps). */
struct bptc6_step {
    uint8_t f, a, b;
};
#define S(f, a, b) {f, a, b}
#define END        {255, 0, 0}

/* The 14 modes in the order of bptc6_modes. */
static const struct bptc6_step bptc6_steps[14][25] = {
    /*  0 */ {S(G2, 4, 4), S(B2, 4, 4), S(B3, 4, 4), S(R0, 9, 0), S(G0, 9, 0), S(B0, 9, 0),
              S(R1, 4, 0), S(G3, 4, 4), S(G2, 3, 0), S(G1, 4, 0), S(B3, 0, 0), S(G3, 3, 0),
              S(B1, 4, 0), S(B3, 1, 1), S(B2, 3, 0), S(R2, 4, 0), S(B3, 2, 2), S(R3, 4, 0),
              S(B3, 3, 3), S(PB, 4, 0), END},
    /*  1 */ {S(G2, 5, 5), S(G3, 4, 4), S(G3, 5, 5), S(R0, 6, 0), S(B3, 0, 0), S(B3, 1, 1),
              S(B2, 4, 4), S(G0, 6, 0), S(B2, 5, 5), S(B3, 2, 2), S(G2, 4, 4), S(B0, 6, 0),
              S(B3, 3, 3), S(B3, 5, 5), S(B3, 4, 4), S(R1, 5, 0), S(G2, 3, 0), S(G1, 5, 0),
              S(G3, 3, 0), S(B1, 5, 0), S(B2, 3, 0), S(R2, 5, 0), S(R3, 5, 0), S(PB, 4, 0), END},
    /*  2 */ {S(R0, 9, 0), S(G0, 9, 0), S(B0, 9, 0), S(R1, 4, 0), S(R0, 10, 10), S(G2, 3, 0),
              S(G1, 3, 0), S(G0, 10, 10), S(B3, 0, 0), S(G3, 3, 0), S(B1, 3, 0), S(B0, 10, 10),
              S(B3, 1, 1), S(B2, 3, 0), S(R2, 4, 0), S(B3, 2, 2), S(R3, 4, 0), S(B3, 3, 3),
              S(PB, 4, 0), END},
    /*  6 */ {S(R0, 9, 0), S(G0, 9, 0), S(B0, 9, 0), S(R1, 3, 0), S(R0, 10, 10), S(G3, 4, 4),
              S(G2, 3, 0), S(G1, 4, 0), S(G0, 10, 10), S(G3, 3, 0), S(B1, 3, 0), S(B0, 10, 10),
              S(B3, 1, 1), S(B2, 3, 0), S(R2, 3, 0), S(B3, 0, 0), S(B3, 2, 2), S(R3, 3, 0),
              S(G2, 4, 4), S(B3, 3, 3), S(PB, 4, 0), END},
    /* 10 */ {S(R0, 9, 0), S(G0, 9, 0), S(B0, 9, 0), S(R1, 3, 0), S(R0, 10, 10), S(B2, 4, 4),
              S(G2, 3, 0), S(G1, 3, 0), S(G0, 10, 10), S(B3, 0, 0), S(G3, 3, 0), S(B1, 4, 0),
              S(B0, 10, 10), S(B2, 3, 0), S(R2, 3, 0), S(B3, 1, 1), S(B3, 2, 2), S(R3, 3, 0),
              S(B3, 4, 4), S(B3, 3, 3), S(PB, 4, 0), END},
    /* 14 */ {S(R0, 8, 0), S(B2, 4, 4), S(G0, 8, 0), S(G2, 4, 4), S(B0, 8, 0), S(B3, 4, 4),
              S(R1, 4, 0), S(G3, 4, 4), S(G2, 3, 0), S(G1, 4, 0), S(B3, 0, 0), S(G3, 3, 0),
              S(B1, 4, 0), S(B3, 1, 1), S(B2, 3, 0), S(R2, 4, 0), S(B3, 2, 2), S(R3, 4, 0),
              S(B3, 3, 3), S(PB, 4, 0), END},
    /* 18 */ {S(R0, 7, 0), S(G3, 4, 4), S(B2, 4, 4), S(G0, 7, 0), S(B3, 2, 2), S(G2, 4, 4),
              S(B0, 7, 0), S(B3, 3, 3), S(B3, 4, 4), S(R1, 5, 0), S(G2, 3, 0), S(G1, 4, 0),
              S(B3, 0, 0), S(G3, 3, 0), S(B1, 4, 0), S(B3, 1, 1), S(B2, 3, 0), S(R2, 5, 0),
              S(R3, 5, 0), S(PB, 4, 0), END},
    /* 22 */ {S(R0, 7, 0), S(B3, 0, 0), S(B2, 4, 4), S(G0, 7, 0), S(G2, 5, 5), S(G2, 4, 4),
              S(B0, 7, 0), S(G3, 5, 5), S(B3, 4, 4), S(R1, 4, 0), S(G3, 4, 4), S(G2, 3, 0),
              S(G1, 5, 0), S(G3, 3, 0), S(B1, 4, 0), S(B3, 1, 1), S(B2, 3, 0), S(R2, 4, 0),
              S(B3, 2, 2), S(R3, 4, 0), S(B3, 3, 3), S(PB, 4, 0), END},
    /* 26 */ {S(R0, 7, 0), S(B3, 1, 1), S(B2, 4, 4), S(G0, 7, 0), S(B2, 5, 5), S(G2, 4, 4),
              S(B0, 7, 0), S(B3, 5, 5), S(B3, 4, 4), S(R1, 4, 0), S(G3, 4, 4), S(G2, 3, 0),
              S(G1, 4, 0), S(B3, 0, 0), S(G3, 3, 0), S(B1, 5, 0), S(B2, 3, 0), S(R2, 4, 0),
              S(B3, 2, 2), S(R3, 4, 0), S(B3, 3, 3), S(PB, 4, 0), END},
    /* 30 */ {S(R0, 5, 0), S(G3, 4, 4), S(B3, 0, 0), S(B3, 1, 1), S(B2, 4, 4), S(G0, 5, 0),
              S(G2, 5, 5), S(B2, 5, 5), S(B3, 2, 2), S(G2, 4, 4), S(B0, 5, 0), S(G3, 5, 5),
              S(B3, 3, 3), S(B3, 5, 5), S(B3, 4, 4), S(R1, 5, 0), S(G2, 3, 0), S(G1, 5, 0),
              S(G3, 3, 0), S(B1, 5, 0), S(B2, 3, 0), S(R2, 5, 0), S(R3, 5, 0), S(PB, 4, 0), END},
    /*  3 */ {S(R0, 9, 0), S(G0, 9, 0), S(B0, 9, 0), S(R1, 9, 0), S(G1, 9, 0), S(B1, 9, 0), END},
    /*  7 */ {S(R0, 9, 0), S(G0, 9, 0), S(B0, 9, 0), S(R1, 8, 0), S(R0, 10, 10), S(G1, 8, 0),
              S(G0, 10, 10), S(B1, 8, 0), S(B0, 10, 10), END},
    /* 11 */ {S(R0, 9, 0), S(G0, 9, 0), S(B0, 9, 0), S(R1, 7, 0), S(R0, 10, 11), S(G1, 7, 0),
              S(G0, 10, 11), S(B1, 7, 0), S(B0, 10, 11), END},
    /* 15 */ {S(R0, 9, 0), S(G0, 9, 0), S(B0, 9, 0), S(R1, 3, 0), S(R0, 10, 15), S(G1, 3, 0),
              S(G0, 10, 15), S(B1, 3, 0), S(B0, 10, 15), END},
};
#undef S
#undef END

/* Per mode: its number, transformed endpoints, subsets, endpoint bits, delta bits (r, g, b). */
static const struct bptc6_mode {
    uint8_t num, transformed, ns, epb, db[3];
} bptc6_modes[14] = {
    {0, 1, 2, 10, {5, 5, 5}},   {1, 1, 2, 7, {6, 6, 6}},   {2, 1, 2, 11, {5, 4, 4}},
    {6, 1, 2, 11, {4, 5, 4}},   {10, 1, 2, 11, {4, 4, 5}}, {14, 1, 2, 9, {5, 5, 5}},
    {18, 1, 2, 8, {6, 5, 5}},   {22, 1, 2, 8, {5, 6, 5}},  {26, 1, 2, 8, {5, 5, 6}},
    {30, 0, 2, 6, {6, 6, 6}},   {3, 0, 1, 10, {10, 10, 10}}, {7, 1, 1, 11, {9, 9, 9}},
    {11, 1, 1, 12, {8, 8, 8}},  {15, 1, 1, 16, {4, 4, 4}},
};

/* v's low n bits as a two's-complement number. */
static int32_t bptc_sext(uint32_t v, unsigned n)
{
    v &= n >= 32 ? 0xffffffffu : (1u << n) - 1;
    return n < 32 && (v >> (n - 1) & 1) ? (int32_t)v - (int32_t)(1u << n) : (int32_t)v;
}

/* An endpoint component of n bits unquantized to 16 bits (sgn: the signed format). */
static int32_t bptc_unq(int32_t x, unsigned n, bool sgn)
{
    if (!sgn) {
        if (n >= 15)
            return x;
        if (x == 0)
            return 0;
        if (x == (int32_t)((1u << n) - 1))
            return 0xffff;
        return (int32_t)((((uint32_t)x << 15) + 0x4000) >> (n - 1));
    }
    if (n >= 16)
        return x;
    const bool neg = x < 0;
    uint32_t a = (uint32_t)(neg ? -x : x), u;
    if (a == 0)
        u = 0;
    else if (a >= (1u << (n - 1)) - 1)
        u = 0x7fff;
    else
        u = ((a << 15) + 0x4000) >> (n - 1);
    return neg ? -(int32_t)u : (int32_t)u;
}

/* see texture_bc.h */
void itex_bc6h_texel(const uint8_t *blk, bool sgn, unsigned i, float out[4])
{
    unsigned num = blk[0] & 3, mbits = 2;
    if (num >= 2) {
        num = blk[0] & 31;
        mbits = 5;
    }
    const struct bptc6_mode *m = NULL;
    unsigned mi = 0;
    for (; mi < 14; mi++)
        if (bptc6_modes[mi].num == num) {
            m = &bptc6_modes[mi];
            break;
        }
    out[3] = 1.0f;
    if (!m) { /* reserved */
        out[0] = out[1] = out[2] = 0.0f;
        return;
    }
    uint32_t f[13] = {0};
    struct bptc_bits s = {blk, mbits};
    for (const struct bptc6_step *st = bptc6_steps[mi]; st->f != 255; st++) {
        const bool up = st->a >= st->b;
        const unsigned n = up ? st->a - st->b + 1u : st->b - st->a + 1u;
        for (unsigned k = 0; k < n; k++) {
            const unsigned bit = up ? st->b + k : st->b - k;
            f[st->f] |= bptc_read(&s, 1) << bit;
        }
    }
    int32_t e[4][3]; /* endpoints as signed / unsigned integers of epb bits */
    const unsigned ne = 2u * m->ns;
    for (unsigned c = 0; c < 3; c++) {
        e[0][c] = sgn ? bptc_sext(f[c], m->epb) : (int32_t)f[c];
        for (unsigned k = 1; k < ne; k++) {
            const uint32_t raw = f[k * 3 + c];
            if (m->transformed) {
                const uint32_t sum = f[c] + (uint32_t)bptc_sext(raw, m->db[c]);
                const uint32_t w = sum & ((1u << m->epb) - 1);
                e[k][c] = sgn ? bptc_sext(w, m->epb) : (int32_t)w;
            } else {
                e[k][c] = sgn ? bptc_sext(raw, m->epb) : (int32_t)raw;
            }
        }
    }
    const unsigned part = f[PB], sub = m->ns == 2 ? bptc_part2[part] >> i & 1 : 0;
    const unsigned ib = m->ns == 2 ? 3 : 4;
    const unsigned idx = bptc_index(blk, m->ns == 2 ? 82 : 65, ib, m->ns, part, i);
    const int32_t w = bptc_weights(ib)[idx];
    for (unsigned c = 0; c < 3; c++) {
        const int32_t a = bptc_unq(e[2 * sub][c], m->epb, sgn),
                      b = bptc_unq(e[2 * sub + 1][c], m->epb, sgn);
        const int32_t v = ((64 - w) * a + w * b + 32) >> 6; /* arithmetic shift: floor */
        uint16_t h;
        if (!sgn)
            h = (uint16_t)((v * 31) >> 6);
        else
            h = (uint16_t)(v < 0 ? (((-v) * 31) >> 5) | 0x8000 : (v * 31) >> 5);
        out[c] = fpu_h2f(h);
    }
}
