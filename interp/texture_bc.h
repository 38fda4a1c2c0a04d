/*
 * interp/texture_bc.h — decoding one texel of a block-compressed (BC1..BC5) texture block
 * (private to interp/: interp/texture.c calls it).
 */
#ifndef PTXEMU_INTERP_TEXTURE_BC_H
#define PTXEMU_INTERP_TEXTURE_BC_H

#include <stdbool.h>
#include <stdint.h>

/* Texel (x, y) (each 0..3) of the 4x4 block at blk (8 bytes for BC1 / BC4, else 16) of format
 * bc (enum itex_bc; sgn: signed BC4 / BC5) as normalized floats in out[0..3] (r, g, b, a;
 * the components the format lacks are left alone). */
void itex_bc_texel(unsigned bc, bool sgn, const uint8_t *blk, unsigned x, unsigned y,
                   float out[4]);

#endif
