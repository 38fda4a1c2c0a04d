/*
 * interp/texture_bc.c — block-compressed texel decoding (BC1..BC5; BC6H and BC7 in
 * texture_bptc.c), for texture fetches of CUDA arrays of
 * cudaChannelFormatKind{Uns,S}ignedBlockCompressed{1..7}.
 *
 * The block formats are the ones Microsoft's "Texture Block Compression in Direct3D 11" and
 * the Khronos Data Format Specification ("S3TC" / "RGTC" sections) describe; texel (x, y) of
 * a block is index y * 4 + x, all fields little-endian:
 *   - BC1: color0, color1 (RGB 5:6:5), then 2-bit indices. Index 0 / 1 are the endpoints;
 *     when color0 > color1 (as 16-bit integers) 2 = (2 c0 + c1) / 3 and 3 = (c0 + 2 c1) / 3,
 *     else 2 = (c0 + c1) / 2 and 3 is transparent black (alpha 0); alpha is otherwise 1.
 *   - BC2: 64 bits of 4-bit alpha (a / 15), then a BC1 color block always in its four-color
 *     form.
 *   - BC3: a BC4-style alpha block, then a four-color BC1 color block.
 *   - BC4: red0, red1 (8 bits), then 3-bit indices. red0 > red1: six values between them
 *     (k = 2..7: ((8 - k) r0 + (k - 1) r1) / 7); else four ((6 - k) r0 + (k - 1) r1) / 5 for
 *     k = 2..5, 6 is 0 (signed: -1) and 7 is 1. Signed BC4 has two's-complement endpoints,
 *     -128 read as -127, compared as signed.
 *   - BC5: two BC4 blocks, red then green.
 * Each value is the exact rational of those formulas with the endpoints as unorm / snorm
 * fractions (5-bit / 31, 6-bit / 63, 8-bit / 255 or / 127) rounded once to f32 (the quotient
 * of two small integers in double is correctly rounded and cannot fall on an f32 midpoint).
 * The formats allow a decoder some error in the interpolated values; a GPU's texture unit
 * may differ from this in the last bits of interpolated texels (not verified against one).
 */
#include "interp/texture_bc.h"
#include "interp/texture.h"

/* num / den rounded once to f32. */
static float bc_q(int64_t num, int64_t den)
{
    return (float)((double)num / (double)den);
}

static uint64_t bc_le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* Texel i of the BC4-style 8-byte block p (sgn: signed endpoints). */
static float bc_channel(const uint8_t *p, bool sgn, unsigned i)
{
    int32_t r0 = sgn ? (int8_t)p[0] : p[0], r1 = sgn ? (int8_t)p[1] : p[1];
    const int32_t m = sgn ? 127 : 255;
    if (sgn) {
        r0 = r0 < -127 ? -127 : r0;
        r1 = r1 < -127 ? -127 : r1;
    }
    const unsigned k = (unsigned)(bc_le64(p) >> (16 + 3 * i)) & 7;
    if (k == 0)
        return bc_q(r0, m);
    if (k == 1)
        return bc_q(r1, m);
    if (r0 > r1)
        return bc_q((int64_t)(8 - k) * r0 + (int64_t)(k - 1) * r1, 7 * m);
    if (k == 6)
        return sgn ? -1.0f : 0.0f;
    if (k == 7)
        return 1.0f;
    return bc_q((int64_t)(6 - k) * r0 + (int64_t)(k - 1) * r1, 5 * m);
}

/* Texel i of the BC1 color block p into out[0..3] (four: the four-color form always). */
static void bc_color(const uint8_t *p, bool four, unsigned i, float out[4])
{
    const uint32_t c0 = p[0] | (uint32_t)p[1] << 8, c1 = p[2] | (uint32_t)p[3] << 8;
    const uint32_t idx = (uint32_t)(bc_le64(p) >> 32);
    const unsigned k = (idx >> (2 * i)) & 3;
    static const unsigned shift[3] = {11, 5, 0}, max[3] = {31, 63, 31};
    if (!four && c0 <= c1 && k == 3) { /* transparent black */
        out[0] = out[1] = out[2] = out[3] = 0.0f;
        return;
    }
    for (unsigned c = 0; c < 3; c++) {
        const int64_t e0 = (c0 >> shift[c]) & max[c], e1 = (c1 >> shift[c]) & max[c];
        const int64_t m = max[c];
        if (k == 0)
            out[c] = bc_q(e0, m);
        else if (k == 1)
            out[c] = bc_q(e1, m);
        else if (four || c0 > c1)
            out[c] = k == 2 ? bc_q(2 * e0 + e1, 3 * m) : bc_q(e0 + 2 * e1, 3 * m);
        else
            out[c] = bc_q(e0 + e1, 2 * m);
    }
    out[3] = 1.0f;
}

/* see texture_bc.h */
void itex_bc_texel(unsigned bc, bool sgn, const uint8_t *blk, unsigned x, unsigned y,
                   float out[4])
{
    const unsigned i = (y & 3) * 4 + (x & 3);
    switch (bc) {
    case ITEX_BC1: bc_color(blk, false, i, out); break;
    case ITEX_BC2:
        bc_color(blk + 8, true, i, out);
        out[3] = bc_q((int64_t)((bc_le64(blk) >> (4 * i)) & 15), 15);
        break;
    case ITEX_BC3:
        bc_color(blk + 8, true, i, out);
        out[3] = bc_channel(blk, false, i);
        break;
    case ITEX_BC4: out[0] = bc_channel(blk, sgn, i); break;
    case ITEX_BC5:
        out[0] = bc_channel(blk, sgn, i);
        out[1] = bc_channel(blk + 8, sgn, i);
        break;
    case ITEX_BC6H: itex_bc6h_texel(blk, sgn, i, out); break;
    case ITEX_BC7: itex_bc7_texel(blk, i, out); break;
    default: break;
    }
}
