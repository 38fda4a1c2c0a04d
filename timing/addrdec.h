/*
 * timing/addrdec.h — device address → memory channel, sub-partition, DRAM bank/row/column
 * (issue 22 item 3), built once from -gpgpu_mem_addr_mapping, -gpgpu_mem_address_mask,
 * -gpgpu_n_mem, -gpgpu_n_sub_partition_per_mchannel, -gpgpu_memory_partition_indexing and the
 * DRAM geometry of -gpgpu_dram_timing_opt (nbk, nbkgrp) / -dram_bnk_indexing_policy /
 * -dram_bnkgrp_indexing_policy.
 *
 * Bit layout follows GPGPU-Sim's addrdec: "dramid@<bit>;<64 chars>" where the characters,
 * most significant bit first, say which field each address bit feeds (R row, B bank, C column,
 * D chip, S burst/ignored, '.' separators skipped, '0' unused). Partition indexing: 0 linear,
 * 1 XOR of row bits into the channel, 2 IPOLY hash, 3 custom, 4 random (seeded, fixed),
 * 5 PAE; channel counts that are not powers of two (24, 80, …) are supported by hashing into
 * [0, n_mem) — where GPGPU-Sim asserts.
 */
#ifndef PTXEMU_TIMING_ADDRDEC_H
#define PTXEMU_TIMING_ADDRDEC_H

#include <stddef.h>
#include <stdint.h>

#include "timing/config.h"

struct tm_addr {
    uint32_t chip;    /* memory channel, 0 … n_mem-1 */
    uint32_t sub;     /* sub-partition of the channel, 0 … n_sub-1 */
    uint32_t subp;    /* global sub-partition id: chip * n_sub + sub */
    uint32_t bk;      /* bank, 0 … nbk-1 (bank group = bk / (nbk / nbkgrp)) */
    uint32_t row, col;
};

struct tm_addrdec {
    uint32_t n_mem, n_sub, nbk, nbkgrp;
    /* the decoder's private state (masks, shifts, hash tables); filled by tm_addrdec_init */
    uint64_t mask[8];
    uint8_t lo[8], hi[8];
    uint32_t policy, bnk_policy, bnkgrp_policy, dramid_bit;
    uint64_t addr_mask;
    uint32_t flags;
};

/* Build the decoder from cfg. 0, or -EINVAL with "…" in err (malformed mapping string, a bank
 * count the mapping cannot address, …). */
int tm_addrdec_init(struct tm_addrdec *a, const struct tm_config *cfg, char *err, size_t errlen);
/* Decode a device address. Pure function of (a, addr). */
void tm_addrdec_decode(const struct tm_addrdec *a, uint64_t addr, struct tm_addr *out);

#endif
