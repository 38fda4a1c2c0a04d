/*
 * timing/addrdec.c — device address → channel, sub-partition, bank, row, column (issue 22
 * item 3), with GPGPU-Sim's address-mapping options and semantics:
 *
 * Masks. An empty -gpgpu_mem_addr_mapping takes GPGPU-Sim's built-in mapping selected by
 * -gpgpu_mem_address_mask (0, 1, 2, 3, 5, 6, 14, 15, 16, 100, 103, 106, 160: the dramid bit
 * and the bank/row/column masks of addrdec.cc); otherwise the string "dramid@<bit>;<64 chars>"
 * (or "<64 chars>" with explicit D chip bits) gives one field letter per address bit, most
 * significant first. With dramid@S and a power-of-two channel count, log2(n_mem) chip bits are
 * inserted at bit S and every bank/row/column bit at or above S moves up by that much, exactly
 * as GPGPU-Sim does.
 *
 * Channels that are not a power of two (GPGPU-Sim's "gap" case, e.g. 12, 24, 40, 80): the
 * chunk index x = addr >> S is split into chip = x mod n_mem and quotient q = x / n_mem; bank,
 * row and column are decoded from (q << S) | (addr mod 2^S), so consecutive 2^S-byte chunks
 * visit every channel once per n_mem chunks and no two addresses alias.
 *
 * Partition indexing (-gpgpu_memory_partition_indexing, GPGPU-Sim's numbers). Let s = chip *
 * n_sub + (bank mod n_sub) be the global sub-partition, T = n_mem * n_sub, and h the address
 * bits above the chip and sub-partition bits (power-of-two case; q in the gap case):
 *   0 consecutive, 5 custom   s unchanged (GPGPU-Sim's custom hook is empty).
 *   1 XOR                     chip ^= h mod n_mem (power of two, as GPGPU-Sim); gap: the chip
 *                             is rotated, chip = (chip + h) mod n_mem.
 *   2 IPOLY, 6 IPOLY-modulo   power-of-two T: s ^= IPOLY_T(h), the GF(2) residue of h·x^n
 *                             modulo a primitive polynomial of degree n = log2 T (for 16, 32
 *                             and 64 entries x^4+x+1, x^5+x^2+1, x^6+x+1 over 13, 15 and 19
 *                             bits of h: GPGPU-Sim's hashing.cc equations; other sizes use the
 *                             primitive polynomial of dramcfg's table over 3n+1 bits). Gap:
 *                             s = (s + IPOLY_P(h)) mod T with P the next power of two, a
 *                             rotation per quotient, so the spread stays exact (GPGPU-Sim
 *                             hashes into P and takes s mod T, which doubles some channels).
 *   3 PAE                     s ^= the XOR of all log2(T)-bit pieces of h (page-address
 *                             entropy: every row bit feeds the channel); gap: rotation by it.
 *   4 random                  s = mix64(addr >> (S - log2 n_sub)) mod T with a fixed 64-bit
 *                             mixer (deterministic; like GPGPU-Sim's srand(1) table it may
 *                             alias, it exists for studies).
 * chip = s / n_sub, sub = s mod n_sub.
 *
 * Banks. -dram_bnk_indexing_policy (GPGPU-Sim applies it in dram_req_t): 0 linear, 1 bank ^=
 * row mod nbk, 2 IPOLY of the row into the bank, 3 custom (= linear). The DRAM controller
 * derives the bank group as bank / (nbk / nbkgrp); -dram_bnkgrp_indexing_policy 1 (group from
 * the low bank bits, GPGPU-Sim's LOWER_BITS) is expressed by rotating the bank number so that
 * its low log2(nbkgrp) bits become the high ones.
 */
#include "timing/addrdec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "timing/dramcfg.h"

enum { F_CHIP, F_BK, F_ROW, F_COL, F_BURST };

enum {
    PI_CONSECUTIVE = 0,
    PI_XOR = 1,
    PI_IPOLY = 2,
    PI_PAE = 3,
    PI_RANDOM = 4,
    PI_CUSTOM = 5,
    PI_IPOLY_MODULO = 6,
};

static void errf(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static bool is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

static uint32_t log2u(uint64_t v)
{
    uint32_t r = 0;
    while (v > 1) {
        v >>= 1;
        r++;
    }
    return r;
}

/* Gather the bits of v selected by mask into the low bits of the result, lowest first. */
static uint64_t pext(uint64_t v, uint64_t mask)
{
    uint64_t r = 0;
    unsigned pos = 0;
    for (uint64_t m = mask; m; m &= m - 1) {
        unsigned b = (unsigned)__builtin_ctzll(m);
        r |= ((v >> b) & 1) << pos++;
    }
    return r;
}

/* Primitive polynomials over GF(2) of degree 1…12 (bit n set for x^n). */
static const uint32_t prim_poly[13] = {
    0, 0x3, 0x7, 0xB, 0x13, 0x25, 0x43, 0x83, 0x11D, 0x211, 0x409, 0x805, 0x1053,
};

/* The IPOLY matrix of degree n: out[i] = the bits j of h with x^(j+n) mod P having term x^i. */
static void ipoly_matrix(uint32_t n, uint64_t out[12])
{
    uint32_t nbits = n == 4 ? 13 : n == 5 ? 15 : n == 6 ? 19 : 3 * n + 1;
    if (nbits > 64)
        nbits = 64;
    memset(out, 0, 12 * sizeof out[0]);
    uint32_t p = prim_poly[n];
    uint32_t r = p & ((1u << n) - 1); /* x^n mod P */
    for (uint32_t j = 0; j < nbits; j++) {
        for (uint32_t i = 0; i < n; i++)
            if (r >> i & 1)
                out[i] |= 1ull << j;
        r <<= 1; /* times x */
        if (r >> n & 1)
            r ^= p;
    }
}

static uint32_t ipoly_apply(const uint64_t m[12], uint32_t n, uint64_t h)
{
    uint32_t v = 0;
    for (uint32_t i = 0; i < n; i++)
        v |= (uint32_t)__builtin_parityll(h & m[i]) << i;
    return v;
}

/* XOR of all n-bit pieces of h. */
static uint32_t fold(uint64_t h, uint32_t n)
{
    if (!n)
        return 0;
    uint64_t v = 0;
    for (; h; h >>= n)
        v ^= h & ((1ull << n) - 1);
    return (uint32_t)v;
}

static uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* GPGPU-Sim's built-in mappings (addrdec.cc, linear_to_raw_address_translation::init) by
 * -gpgpu_mem_address_mask: dramid bit, bank, row and column masks before chip insertion. */
struct builtin_map {
    int mask;
    int chip_s;
    uint64_t bk, row, col;
};
static const struct builtin_map builtin_maps[] = {
    {0, 10, 0x300, 0x7FFE000, 0x1CFF},   {1, 13, 0x1800, 0x7FFE000, 0x7FF},
    {2, 11, 0x1800, 0x7FFE000, 0x7FF},   {3, 11, 0x1800, 0xFFFE000, 0x7FF},
    {5, 5, 0x1800, 0x7FFE000, 0x7FF},    {6, 6, 0x1800, 0x7FFE000, 0x7FF},
    {14, 14, 0x1800, 0x7FFE000, 0x7FF},  {15, 15, 0x1800, 0x7FFE000, 0x7FF},
    {16, 16, 0x1800, 0x7FFE000, 0x7FF},  {100, 1, 0x3, 0x7FFE000, 0x1FFC},
    {103, 3, 0x3, 0x7FFE000, 0x1FFC},    {106, 6, 0x1800, 0x7FFE000, 0x7FF},
    {160, 6, 0x300, 0x7FFE000, 0x1CFF},
};

/* Parse a mapping string into masks and the dramid bit (-1: explicit D bits). */
static int parse_mapping(const char *opt, uint64_t mask[5], int32_t *chip_s, char *err,
                         size_t errlen)
{
    const char *p = opt;
    *chip_s = -1;
    if (!strncmp(p, "dramid@", 7)) {
        const char *q = p + 7;
        if (*q < '0' || *q > '9') {
            errf(err, errlen, "-gpgpu_mem_addr_mapping: expected a bit number after 'dramid@' "
                 "in '%s'", opt);
            return -EINVAL;
        }
        long v = 0;
        while (*q >= '0' && *q <= '9' && v < 1000)
            v = v * 10 + (*q++ - '0');
        if (v > 63) {
            errf(err, errlen, "-gpgpu_mem_addr_mapping: dramid bit %ld is not 0…63 in '%s'", v,
                 opt);
            return -EINVAL;
        }
        if (*q != ';') {
            errf(err, errlen, "-gpgpu_mem_addr_mapping: expected ';' after 'dramid@%ld' in '%s'",
                 v, opt);
            return -EINVAL;
        }
        *chip_s = (int32_t)v;
        p = q + 1;
    }
    memset(mask, 0, 5 * sizeof mask[0]);
    int ofs = 63;
    for (const char *c = p; *c; c++) {
        int f;
        switch (*c) {
        case 'D': case 'd': f = F_CHIP; break;
        case 'B': case 'b': f = F_BK; break;
        case 'R': case 'r': f = F_ROW; break;
        case 'C': case 'c': f = F_COL; break;
        case 'S': case 's': f = F_BURST; break;
        case '0': f = -1; break;
        case '|': case ' ': case '.': continue;
        default:
            errf(err, errlen, "-gpgpu_mem_addr_mapping: invalid character '%c' at position %zu "
                 "of '%s' (expected D, B, R, C, S, 0 or a separator . | space)", *c,
                 (size_t)(c - opt) + 1, opt);
            return -EINVAL;
        }
        if (ofs < 0) {
            errf(err, errlen, "-gpgpu_mem_addr_mapping: more than 64 address bits in '%s'", opt);
            return -EINVAL;
        }
        if (f == F_CHIP && *chip_s >= 0) {
            errf(err, errlen, "-gpgpu_mem_addr_mapping: chip bit 'D' at position %zu of '%s' "
                 "together with dramid@", (size_t)(c - opt) + 1, opt);
            return -EINVAL;
        }
        if (f == F_BURST) /* burst bits are column bits too (GPGPU-Sim) */
            mask[F_COL] |= 1ull << ofs;
        if (f >= 0)
            mask[f] |= 1ull << ofs;
        ofs--;
    }
    if (ofs != -1) {
        errf(err, errlen, "-gpgpu_mem_addr_mapping: %d address bits in '%s', need 64", 63 - ofs,
             opt);
        return -EINVAL;
    }
    return 0;
}

/* Insert n chip bits at bit s: bits at or above s move up by n. */
static uint64_t insert_bits(uint64_t m, uint32_t s, uint32_t n)
{
    uint64_t low = s >= 64 ? ~0ull : (1ull << s) - 1;
    return ((m & ~low) << n) | (m & low);
}

/* Build the decoder; see the file comment. */
int tm_addrdec_init(struct tm_addrdec *a, const struct tm_config *cfg, char *err, size_t errlen)
{
    const struct tm_options *o = &cfg->o;
    memset(a, 0, sizeof *a);
    struct tm_dram_timing t;
    int rc = tm_dram_timing_parse(o->gpgpu_dram_timing_opt, &t, err, errlen);
    if (rc)
        return rc;
    if (o->gpgpu_n_mem < 1 || o->gpgpu_n_mem > 4096) {
        errf(err, errlen, "-gpgpu_n_mem: %lld channels (1…4096)", (long long)o->gpgpu_n_mem);
        return -EINVAL;
    }
    int64_t nsub = o->gpgpu_n_sub_partition_per_mchannel;
    if (nsub < 1 || nsub > 64 || !is_pow2((uint64_t)nsub)) {
        errf(err, errlen, "-gpgpu_n_sub_partition_per_mchannel: %lld is not a power of two 1…64",
             (long long)nsub);
        return -EINVAL;
    }
    a->n_mem = (uint32_t)o->gpgpu_n_mem;
    a->n_sub = (uint32_t)nsub;
    a->nbk = t.nbk;
    a->nbkgrp = t.nbkgrp;
    a->n_total = a->n_mem * a->n_sub;
    a->log2_sub = log2u(a->n_sub);
    a->gap = !is_pow2(a->n_mem);
    if (a->nbk % a->n_sub) {
        errf(err, errlen, "-gpgpu_dram_timing_opt: nbk=%u is not a multiple of "
             "-gpgpu_n_sub_partition_per_mchannel %u", a->nbk, a->n_sub);
        return -EINVAL;
    }
    if (a->n_total > 4096) {
        errf(err, errlen, "-gpgpu_n_mem × -gpgpu_n_sub_partition_per_mchannel: %u sub-partitions "
             "(at most 4096)", a->n_total);
        return -EINVAL;
    }

    int64_t pol = o->gpgpu_memory_partition_indexing;
    if (pol < 0 || pol > 6) {
        errf(err, errlen, "-gpgpu_memory_partition_indexing: %lld is not 0 consecutive, 1 XOR, "
             "2 IPOLY, 3 PAE, 4 random, 5 custom or 6 IPOLY-modulo", (long long)pol);
        return -EINVAL;
    }
    a->policy = (uint32_t)pol;
    if (o->dram_bnk_indexing_policy < 0 || o->dram_bnk_indexing_policy > 3) {
        errf(err, errlen, "-dram_bnk_indexing_policy: %lld is not 0 linear, 1 XOR, 2 IPOLY or "
             "3 custom", (long long)o->dram_bnk_indexing_policy);
        return -EINVAL;
    }
    a->bnk_policy = (uint32_t)o->dram_bnk_indexing_policy;
    if (o->dram_bnkgrp_indexing_policy < 0 || o->dram_bnkgrp_indexing_policy > 1) {
        errf(err, errlen, "-dram_bnkgrp_indexing_policy: %lld is not 0 (high bank bits) or 1 "
             "(low bank bits)", (long long)o->dram_bnkgrp_indexing_policy);
        return -EINVAL;
    }
    a->bnkgrp_policy = (uint32_t)o->dram_bnkgrp_indexing_policy;
    if ((a->bnk_policy == 1 || a->bnk_policy == 2) && !is_pow2(a->nbk)) {
        errf(err, errlen, "-dram_bnk_indexing_policy %u needs a power-of-two bank count "
             "(nbk=%u)", a->bnk_policy, a->nbk);
        return -EINVAL;
    }
    if (a->bnk_policy == 2 && (a->nbk < 2 || a->nbk > 4096)) {
        errf(err, errlen, "-dram_bnk_indexing_policy 2: IPOLY needs 2…4096 banks (nbk=%u)",
             a->nbk);
        return -EINVAL;
    }
    if (a->bnkgrp_policy == 1 && a->nbkgrp > 1 && (!is_pow2(a->nbk) || !is_pow2(a->nbkgrp))) {
        errf(err, errlen, "-dram_bnkgrp_indexing_policy 1 needs power-of-two nbk and nbkgrp "
             "(nbk=%u, nbkgrp=%u)", a->nbk, a->nbkgrp);
        return -EINVAL;
    }
    a->log2_grp = log2u(a->nbkgrp);
    a->log2_bpg = log2u(a->nbk / a->nbkgrp);

    /* masks */
    const char *map = o->gpgpu_mem_addr_mapping ? o->gpgpu_mem_addr_mapping : "";
    if (*map) {
        rc = parse_mapping(map, a->mask, &a->chip_s, err, errlen);
        if (rc)
            return rc;
    } else {
        const struct builtin_map *b = NULL;
        for (size_t i = 0; i < sizeof builtin_maps / sizeof builtin_maps[0]; i++)
            if (builtin_maps[i].mask == o->gpgpu_mem_address_mask)
                b = &builtin_maps[i];
        if (!b) {
            errf(err, errlen, "-gpgpu_mem_address_mask: %lld is none of GPGPU-Sim's built-in "
                 "mappings (0, 1, 2, 3, 5, 6, 14, 15, 16, 100, 103, 106, 160) and "
                 "-gpgpu_mem_addr_mapping is empty", (long long)o->gpgpu_mem_address_mask);
            return -EINVAL;
        }
        a->chip_s = b->chip_s;
        a->mask[F_BK] = b->bk;
        a->mask[F_ROW] = b->row;
        a->mask[F_COL] = b->col;
    }
    uint32_t nchip = log2u(a->n_mem);
    if (a->chip_s < 0) {
        if (a->gap) {
            errf(err, errlen, "-gpgpu_mem_addr_mapping names the chip bits (D) but -gpgpu_n_mem "
                 "%u is not a power of two; use dramid@<bit>", a->n_mem);
            return -EINVAL;
        }
        uint32_t nd = (uint32_t)__builtin_popcountll(a->mask[F_CHIP]);
        if (nd != nchip) {
            errf(err, errlen, "-gpgpu_mem_addr_mapping has %u chip bits (D), -gpgpu_n_mem %u "
                 "needs %u", nd, a->n_mem, nchip);
            return -EINVAL;
        }
        a->high_shift = (a->mask[F_CHIP] ? 64 - (uint32_t)__builtin_clzll(a->mask[F_CHIP]) : 0)
                        + a->log2_sub;
        uint32_t lowchip = a->mask[F_CHIP] ? (uint32_t)__builtin_ctzll(a->mask[F_CHIP]) : 0;
        a->rand_shift = lowchip > a->log2_sub ? lowchip - a->log2_sub : 0;
    } else {
        uint32_t s = (uint32_t)a->chip_s;
        if (!a->gap) {
            for (int f = F_BK; f <= F_COL; f++)
                a->mask[f] = insert_bits(a->mask[f], s, nchip);
            a->mask[F_CHIP] = nchip ? (((1ull << nchip) - 1) << s) : 0;
        }
        a->high_shift = s + nchip + a->log2_sub;
        a->rand_shift = s > a->log2_sub ? s - a->log2_sub : 0;
    }
    uint32_t nbkbits = (uint32_t)__builtin_popcountll(a->mask[F_BK]);
    if (nbkbits > 12 || (1u << nbkbits) > a->nbk) {
        errf(err, errlen, "the address mapping has %u bank bits (%u banks) but "
             "-gpgpu_dram_timing_opt has nbk=%u", nbkbits, 1u << (nbkbits > 31 ? 31 : nbkbits),
             a->nbk);
        return -EINVAL;
    }
    if ((1u << nbkbits) < a->n_sub) {
        errf(err, errlen, "the address mapping has %u bank bits; %u sub-partitions per channel "
             "take their index from %u low bank bits", nbkbits, a->n_sub, a->log2_sub);
        return -EINVAL;
    }

    /* hashes */
    uint32_t n = log2u(a->n_total);
    uint32_t np2 = is_pow2(a->n_total) ? n : n + 1;
    a->log2_total_p2 = np2;
    if ((a->policy == PI_IPOLY || a->policy == PI_IPOLY_MODULO) && np2 > 0)
        ipoly_matrix(np2, a->phash);
    if (a->bnk_policy == 2)
        ipoly_matrix(log2u(a->nbk), a->bhash);
    return 0;
}

/* Decode addr; see the file comment for every step. */
void tm_addrdec_decode(const struct tm_addrdec *a, uint64_t addr, struct tm_addr *out)
{
    uint64_t rest = addr, high;
    uint32_t chip;
    if (a->gap) {
        uint32_t s = (uint32_t)a->chip_s;
        uint64_t x = addr >> s;
        chip = (uint32_t)(x % a->n_mem);
        high = x / a->n_mem;
        rest = (high << s) | (addr & ((1ull << s) - 1));
    } else {
        chip = (uint32_t)pext(addr, a->mask[F_CHIP]);
        high = a->high_shift >= 64 ? 0 : addr >> a->high_shift;
    }
    uint32_t bk = (uint32_t)pext(rest, a->mask[F_BK]);
    uint32_t row = (uint32_t)pext(rest, a->mask[F_ROW]);
    uint32_t col = (uint32_t)pext(rest, a->mask[F_COL]);

    uint32_t T = a->n_total, np2 = a->log2_total_p2;
    uint32_t sub_low = bk & (a->n_sub - 1);
    uint32_t s = chip * a->n_sub + sub_low;
    switch (a->policy) {
    case PI_XOR:
        if (a->gap)
            chip = (uint32_t)((chip + high % a->n_mem) % a->n_mem);
        else
            chip ^= (uint32_t)(high & (a->n_mem - 1));
        s = chip * a->n_sub + sub_low;
        break;
    case PI_IPOLY:
    case PI_IPOLY_MODULO: {
        uint32_t h = ipoly_apply(a->phash, np2, high);
        s = a->gap ? (uint32_t)((s + (uint64_t)h) % T) : s ^ h;
        break;
    }
    case PI_PAE: {
        uint32_t h = fold(high, np2);
        s = a->gap ? (uint32_t)((s + (uint64_t)h) % T) : s ^ h;
        break;
    }
    case PI_RANDOM:
        s = (uint32_t)(mix64(addr >> a->rand_shift) % T);
        break;
    default: /* consecutive, custom */
        break;
    }
    out->chip = s >> a->log2_sub;
    out->sub = s & (a->n_sub - 1);
    out->subp = s;

    switch (a->bnk_policy) {
    case 1:
        bk ^= row & (a->nbk - 1);
        break;
    case 2:
        bk ^= ipoly_apply(a->bhash, a->log2_grp + a->log2_bpg, row);
        break;
    default:
        break;
    }
    if (a->bnkgrp_policy == 1 && a->nbkgrp > 1)
        bk = ((bk & (a->nbkgrp - 1)) << a->log2_bpg) | (bk >> a->log2_grp);
    out->bk = bk;
    out->row = row;
    out->col = col;
}
