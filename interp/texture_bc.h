/*
 * interp/texture_bc.h — decoding one texel of a block-compressed (BC1..BC7) texture block
 * (private to interp/: interp/texture.c calls it; BC6H / BC7 live in texture_bptc.c).
 */
#ifndef PTXEMU_INTERP_TEXTURE_BC_H
#define PTXEMU_INTERP_TEXTURE_BC_H

#include <stdbool.h>
#include <stdint.h>

/* Texel (x, y) (each 0..3) of the 4x4 block at blk (8 bytes for BC1 / BC4, else 16) of format
 * bc (enum itex_bc; sgn: signed BC4 / BC5 / BC6H) as floats in out[0..3] (r, g, b, a;
 * the components the format lacks are left alone). */
void itex_bc_texel(unsigned bc, bool sgn, const uint8_t *blk, unsigned x, unsigned y,
                   float out[4]);

/* Texel i (y * 4 + x) of the 16-byte BC7 block blk as r, g, b, a in [0, 1] (bytes / 255). */
void itex_bc7_texel(const uint8_t *blk, unsigned i, float out[4]);

/* Texel i of the 16-byte BC6H block blk (sgn: the signed format) as r, g, b (the decoded
 * half floats, widened) and a = 1. */
void itex_bc6h_texel(const uint8_t *blk, bool sgn, unsigned i, float out[4]);

#endif
