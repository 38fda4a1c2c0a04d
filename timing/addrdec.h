/*
 * timing/addrdec.h — device address → memory channel, sub-partition, DRAM bank/row/column
 * (issue 22 item 3), built once from -gpgpu_mem_addr_mapping, -gpgpu_mem_address_mask,
 * -gpgpu_n_mem, -gpgpu_n_sub_partition_per_mchannel, -gpgpu_memory_partition_indexing and the
 * DRAM geometry of -gpgpu_dram_timing_opt (nbk, nbkgrp) / -dram_bnk_indexing_policy /
 * -dram_bnkgrp_indexing_policy.
 *
 * Bit layout follows GPGPU-Sim's addrdec: "dramid@<bit>;<64 chars>" where the characters,
 * most significant bit first, say which field each address bit feeds (R row, B bank, C column,
 * D chip, S burst/ignored, '.' separators skipped, '0' unused). Partition indexing with
 * GPGPU-Sim's numbers: 0 consecutive, 1 XOR of higher bits into the channel, 2 IPOLY hash,
 * 3 PAE, 4 random (a fixed hash), 5 custom (= consecutive), 6 IPOLY-modulo; channel counts that
 * are not powers of two (24, 80, …) are supported by hashing into [0, n_mem) — where GPGPU-Sim
 * asserts. timing/addrdec.c describes each scheme.
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
    uint64_t mask[5];         /* address bits of chip, bank, row, column, burst (chip inserted) */
    uint64_t phash[12];       /* partition IPOLY: high address bits XORed into bit i of it */
    uint64_t bhash[12];       /* bank IPOLY (-dram_bnk_indexing_policy 2): row bits into bit i */
    uint32_t policy, bnk_policy, bnkgrp_policy;
    int32_t chip_s;           /* dramid@ bit; -1 when the mapping names the chip bits (D) */
    uint32_t high_shift;      /* high bits for the hashes: addr >> high_shift (power-of-two case) */
    uint32_t rand_shift;      /* -gpgpu_memory_partition_indexing 4: granule of the random map */
    uint32_t n_total, log2_sub, log2_total_p2, log2_grp, log2_bpg;
    uint32_t gap;             /* n_mem is not a power of two: chip = chunk index mod n_mem */
};

/* Build the decoder from cfg. 0, or -EINVAL with "…" in err (malformed mapping string, a bank
 * count the mapping cannot address, …). */
int tm_addrdec_init(struct tm_addrdec *a, const struct tm_config *cfg, char *err, size_t errlen);
/* Decode a device address. Pure function of (a, addr). */
void tm_addrdec_decode(const struct tm_addrdec *a, uint64_t addr, struct tm_addr *out);

#endif
