/*
 * tests/unit/addrdec_test.c — address decoding (timing/addrdec.c): chip, sub-partition, bank,
 * row and column of sample addresses under the qv100 preset's mapping (IPOLY over 64
 * sub-partitions, bank groups from the low bank bits), GPGPU-Sim's built-in mapping with
 * consecutive, XOR and IPOLY indexing, channel counts that are not a power of two (24, 40 × 2,
 * 80: even spread over 1 MiB, no aliasing), the bank-index policies, and the diagnostics of
 * malformed mappings.
 *
 * Expected values are derived by hand in the comments: the mapping letters give each field's
 * address bits (after log2(n_mem) chip bits are inserted at the dramid bit); IPOLY of degree n
 * XORs x^(j+n) mod P into the index for every set bit j of the high address (P = x^4+x+1 for
 * 16 entries, x^6+x+1 for 64, GPGPU-Sim's hashing.cc). The two "busy" qv100 addresses were
 * checked against GPGPU-Sim's explicit IPOLY(64) equations evaluated independently.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tap.h"
#include "timing/addrdec.h"

static struct tm_config cfg;

/* Load preset `p` (NULL: the defaults) and apply name/value pairs (NULL-terminated). */
static int setup(const char *preset, const char *const *kv)
{
    int rc;
    if (preset) {
        rc = tm_config_load(&cfg, preset, NULL, false, NULL);
        if (rc)
            return rc;
    } else {
        if ((rc = tm_config_init(&cfg)))
            return rc;
    }
    char err[256];
    for (; kv && kv[0]; kv += 2)
        if ((rc = tm_config_set(&cfg, kv[0], kv[1], err, sizeof err))) {
            diag("set %s: %s", kv[0], err);
            return rc;
        }
    return 0;
}

static int init_dec(struct tm_addrdec *a, const char *preset, const char *const *kv, char *err,
                    size_t errlen)
{
    err[0] = 0;
    int rc = setup(preset, kv);
    if (!rc)
        rc = tm_addrdec_init(a, &cfg, err, errlen);
    tm_config_free(&cfg);
    return rc;
}

struct want {
    uint64_t addr;
    uint32_t chip, sub, subp, bk, row, col;
};

static void check(const struct tm_addrdec *a, const char *what, const struct want *w, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct tm_addr t;
        tm_addrdec_decode(a, w[i].addr, &t);
        bool good = t.chip == w[i].chip && t.sub == w[i].sub && t.subp == w[i].subp &&
                    t.bk == w[i].bk && t.row == w[i].row && t.col == w[i].col;
        ok(good, "%s: %#llx -> chip %u sub %u subp %u bk %u row %u col %#x", what,
           (unsigned long long)w[i].addr, w[i].chip, w[i].sub, w[i].subp, w[i].bk, w[i].row,
           w[i].col);
        if (!good)
            diag("got chip %u sub %u subp %u bk %u row %u col %#x", t.chip, t.sub, t.subp, t.bk,
                 t.row, t.col);
    }
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* Lines of 128 bytes over 1 MiB from `base`: per-chip and per-sub-partition counts must each
 * lie within one 2^S-byte chunk of each other (`slack` lines); no two 32-byte sectors may
 * decode to the same (chip, sub, bank, row, column). */
static void spread(const struct tm_addrdec *a, const char *what, uint64_t base, uint32_t slack,
                   uint32_t sub_slack)
{
    uint32_t *per_chip = calloc(a->n_mem, sizeof *per_chip);
    uint32_t *per_subp = calloc(a->n_mem * a->n_sub, sizeof *per_subp);
    for (uint64_t off = 0; off < (1u << 20); off += 128) {
        struct tm_addr t;
        tm_addrdec_decode(a, base + off, &t);
        if (t.chip < a->n_mem && t.subp < a->n_mem * a->n_sub) {
            per_chip[t.chip]++;
            per_subp[t.subp]++;
        }
    }
    uint32_t lo = UINT32_MAX, hi = 0, slo = UINT32_MAX, shi = 0, sum = 0;
    for (uint32_t c = 0; c < a->n_mem; c++) {
        lo = per_chip[c] < lo ? per_chip[c] : lo;
        hi = per_chip[c] > hi ? per_chip[c] : hi;
        sum += per_chip[c];
    }
    for (uint32_t s = 0; s < a->n_mem * a->n_sub; s++) {
        slo = per_subp[s] < slo ? per_subp[s] : slo;
        shi = per_subp[s] > shi ? per_subp[s] : shi;
    }
    ok(sum == 8192 && hi - lo <= slack && shi - slo <= sub_slack,
       "%s: 8192 lines over %u channels, %u…%u per channel (bound: %u apart), %u…%u per "
       "sub-partition (bound: %u apart)", what, a->n_mem, lo, hi, slack, slo, shi, sub_slack);
    free(per_chip);
    free(per_subp);

    /* no aliasing: sort the decoded sector keys */
    size_t n = (1u << 20) / 32;
    uint64_t *keys = malloc(n * sizeof *keys);
    for (size_t i = 0; i < n; i++) {
        struct tm_addr t;
        tm_addrdec_decode(a, base + i * 32, &t);
        keys[i] = ((uint64_t)t.subp << 52) | ((uint64_t)t.bk << 44) | ((uint64_t)t.row << 20) |
                  t.col;
    }
    qsort(keys, n, sizeof *keys, cmp_u64);
    size_t dup = 0;
    for (size_t i = 1; i < n; i++)
        dup += keys[i] == keys[i - 1];
    is_uint(dup, 0, "%s: the 32768 sectors of 1 MiB decode to distinct locations", what);
    free(keys);
}

static void expect_error(const char *what, const char *const *kv, const char *msg)
{
    struct tm_addrdec a;
    char err[512];
    int rc = init_dec(&a, NULL, kv, err, sizeof err);
    ok(rc == -EINVAL, "%s: -EINVAL", what);
    is_str(err, msg, "%s: message", what);
}

int main(void)
{
    struct tm_addrdec a;
    char err[512];

    /* ---- qv100: dramid@8;...0000RRRR.RRRRRRRR.RBBBCCCB.CCCSSSSS, 32 channels x 2, IPOLY,
     * nbk 16 in 4 groups, bank group from the low bank bits. After inserting 5 chip bits at 8:
     * chip = bits 8-12, bank = bits 13,17,18,19, column = bits 0-7 and 14-16, row = bits 20-32.
     * s = chip*2 + (bank & 1); high = addr >> 14; s ^= IPOLY64(high); bank group policy 1
     * turns bank b into (b & 3) << 2 | b >> 2. */
    int rc = init_dec(&a, "qv100", NULL, err, sizeof err);
    ok(rc == 0 && a.n_mem == 32 && a.n_sub == 2 && a.nbk == 16 && a.nbkgrp == 4,
       "qv100: 32 channels x 2 sub-partitions, 16 banks in 4 groups (%s)", err);
    static const struct want qv[] = {
        {0x0, 0, 0, 0, 0, 0, 0},
        /* bit 8: chip 1 -> s = 2; high 0 */
        {0x100, 1, 0, 2, 0, 0, 0},
        /* bit 13: bank bit 0 -> s = 1 (chip 0, sub 1); bank 1 -> group rotation 4 */
        {0x2000, 0, 1, 1, 4, 0, 0},
        /* bit 14: column bit 8 (0x100); high = 1: x^6 mod P = x+1 -> s = 3 */
        {0x4000, 1, 1, 3, 0, 0, 0x100},
        /* bit 20: row 1; high = 1<<6: x^12 = (x+1)^2 = x^2+1 -> s = 5 */
        {0x100000, 2, 1, 5, 0, 1, 0},
        /* chip 22, raw bank 4 (bit 18), row 0x123, column 0x180; IPOLY -> s = 10 */
        {0x12345680, 5, 0, 10, 1, 0x123, 0x180},
        {0xdeadbe00, 8, 1, 17, 7, 0xDEA, 0x600},
    };
    check(&a, "qv100", qv, sizeof qv / sizeof qv[0]);
    /* IPOLY over a power of two is a permutation per high part: exactly 128 lines each */
    spread(&a, "qv100 IPOLY", 0, 0, 0);

    /* ---- bank XOR (-dram_bnk_indexing_policy 1) on qv100: bank ^= row & 15 */
    static const char *const bx[] = {"dram_bnk_indexing_policy", "1", NULL};
    rc = init_dec(&a, "qv100", bx, err, sizeof err);
    static const struct want qvx[] = {
        /* row 1, raw bank 0 -> 1 -> group rotation 4 */
        {0x100000, 2, 1, 5, 4, 1, 0},
        /* row 0x123 (low 4 bits 3), raw bank 4 -> 7 -> (3 << 2) | 1 = 13 */
        {0x12345680, 5, 0, 10, 13, 0x123, 0x180},
    };
    ok(rc == 0, "qv100 with bank XOR initialises");
    check(&a, "qv100 bank XOR", qvx, 2);

    /* ---- GPGPU-Sim's built-in mapping (-gpgpu_mem_address_mask 0, empty mapping string),
     * 8 channels, 4 banks: dramid bit 10, bank 0x300, row 0x7FFE000, column 0x1CFF; inserting
     * 3 chip bits at 10 makes chip = bits 10-12, row = bits 16-29, column = bits 0-7, 13-15. */
    rc = init_dec(&a, NULL, NULL, err, sizeof err);
    ok(rc == 0 && a.n_mem == 8 && a.nbk == 4, "defaults: 8 channels, 4 banks (%s)", err);
    static const struct want def[] = {
        {0x400, 1, 0, 1, 0, 0, 0},
        {0x1C00, 7, 0, 7, 0, 0, 0},
        {0x300, 0, 0, 0, 3, 0, 0},
        {0x2000, 0, 0, 0, 0, 0, 0x100},
        {0x10000, 0, 0, 0, 0, 1, 0},
        /* 0x5678: bits 10-12 = 5, bits 8-9 = 2, bits 13-15 = 2; row 0x1234 */
        {0x12345678, 5, 0, 5, 2, 0x1234, 0x278},
    };
    check(&a, "default mapping", def, sizeof def / sizeof def[0]);

    /* ---- XOR indexing: chip ^= (addr >> 13) & 7; 0x12345678 >> 13 = 0x91A2 -> 5 ^ 2 = 7 */
    static const char *const xo[] = {"gpgpu_memory_partition_indexing", "1", NULL};
    rc = init_dec(&a, NULL, xo, err, sizeof err);
    static const struct want xw[] = {
        {0x12345678, 7, 0, 7, 2, 0x1234, 0x278},
        /* 0x2000: high = 1 -> chip 1; column bit 8 */
        {0x2000, 1, 0, 1, 0, 0, 0x100},
    };
    ok(rc == 0, "XOR indexing initialises");
    check(&a, "XOR", xw, 2);

    /* ---- IPOLY over 16 channels (default mapping): chip = bits 10-13, high = addr >> 14,
     * P = x^4+x+1; rows are bits 17-30 */
    static const char *const ip[] = {"gpgpu_memory_partition_indexing", "2", "gpgpu_n_mem",
                                     "16", NULL};
    rc = init_dec(&a, NULL, ip, err, sizeof err);
    static const struct want iw[] = {
        /* high 1: x^4 = x+1 -> 3 */
        {0x4000, 3, 0, 3, 0, 0, 0x100},
        /* high 1<<12: x^16 = x (x^15 = 1) -> 2; bit 26 is row bit 9 */
        {0x4000000, 2, 0, 2, 0, 0x200, 0},
        /* chip bits 10-13 of 0x5678 = 5, bank bits 8-9 = 2, row bits 17-30 = 0x91A, column
         * bits 0-7 and 14-16 = 0x178; IPOLY16 equations over addr >> 14 -> 11 */
        {0x12345678, 11, 0, 11, 2, 0x91A, 0x178},
    };
    ok(rc == 0, "IPOLY over 16 channels initialises");
    check(&a, "IPOLY16", iw, 3);

    /* ---- 24 channels x 2 (rtx4090: dramid@8;...RBBBCCCC.BCCSSSSS, bank bit 0 at bit 7):
     * chip = (addr >> 8) mod 24, rest = (addr >> 8) / 24 << 8 | (addr & 255). 0x1800 = chunk
     * 24 -> chip 0, rest 0x100 = column bit 7 (0x80). 0x80 -> raw bank 1 -> sub 1, bank 4. */
    rc = init_dec(&a, "rtx4090", NULL, err, sizeof err);
    ok(rc == 0 && a.n_mem == 24 && a.n_sub == 2, "rtx4090: 24 channels x 2 (%s)", err);
    static const struct want g[] = {
        {0x1800, 0, 0, 0, 0, 0, 0x80},
        {0x80, 0, 1, 1, 4, 0, 0},
        {0x1700, 23, 0, 46, 0, 0, 0},
    };
    check(&a, "24 channels consecutive", g, 3);
    spread(&a, "24 channels consecutive", 0, 2, 2);
    spread(&a, "24 channels consecutive, base 0x7654300", 0x7654300, 2, 2);
    static const char *const gx[] = {"gpgpu_memory_partition_indexing", "1", NULL};
    rc = init_dec(&a, "rtx4090", gx, err, sizeof err);
    /* XOR on 24: the chip is rotated by the quotient: chunk 24 -> (0 + 1) mod 24 */
    static const struct want gxw[] = {{0x1800, 1, 0, 2, 0, 0, 0x80}};
    ok(rc == 0, "24 channels XOR initialises");
    check(&a, "24 channels XOR", gxw, 1);
    spread(&a, "24 channels XOR", 0, 2, 2);
    static const char *const gi[] = {"gpgpu_memory_partition_indexing", "2", NULL};
    rc = init_dec(&a, "rtx4090", gi, err, sizeof err);
    /* IPOLY on 48 sub-partitions: s = (s + IPOLY64(q)) mod 48; q = 1 -> +3 */
    static const struct want giw[] = {{0x1800, 1, 1, 3, 0, 0, 0x80}};
    ok(rc == 0, "24 channels IPOLY initialises");
    check(&a, "24 channels IPOLY", giw, 1);
    spread(&a, "24 channels IPOLY", 0, 2, 2);
    static const char *const gp[] = {"gpgpu_memory_partition_indexing", "3", NULL};
    rc = init_dec(&a, "rtx4090", gp, err, sizeof err);
    ok(rc == 0, "24 channels PAE initialises");
    spread(&a, "24 channels PAE", 0, 2, 2);

    /* ---- h100: 40 channels x 2, IPOLY-modulo (6); and 80 channels x 1 */
    rc = init_dec(&a, "h100", NULL, err, sizeof err);
    ok(rc == 0 && a.n_mem == 40 && a.n_sub == 2, "h100: 40 channels x 2 (%s)", err);
    spread(&a, "h100 IPOLY-modulo (80 sub-partitions)", 0, 2, 2);
    static const char *const e80[] = {"gpgpu_n_mem", "80", "gpgpu_n_sub_partition_per_mchannel",
                                      "1", NULL};
    rc = init_dec(&a, "h100", e80, err, sizeof err);
    ok(rc == 0 && a.n_mem == 80, "80 channels x 1 (%s)", err);
    spread(&a, "80 channels IPOLY-modulo", 0, 2, 2);

    /* ---- every compiled-in preset decodes; consecutive 256-byte chunks spread over its
     * channels within one chunk (sub-partitions follow the preset's bank bits, not checked) */
    for (size_t i = 0; i < tm_preset_count; i++) {
        rc = init_dec(&a, tm_presets[i].name, NULL, err, sizeof err);
        ok(rc == 0, "preset %s: the decoder initialises (%s)", tm_presets[i].name, err);
        if (rc == 0)
            spread(&a, tm_presets[i].name, 0, 2, 8192);
    }

    /* ---- random indexing: a pure function in range */
    static const char *const rnd[] = {"gpgpu_memory_partition_indexing", "4", NULL};
    rc = init_dec(&a, "qv100", rnd, err, sizeof err);
    bool in_range = rc == 0;
    uint32_t seen = 0;
    for (uint64_t x = 0; x < (1u << 20); x += 256) {
        struct tm_addr t, u;
        tm_addrdec_decode(&a, x, &t);
        tm_addrdec_decode(&a, x, &u);
        in_range &= t.chip < 32 && t.subp < 64 && !memcmp(&t, &u, sizeof t);
        seen |= 1u << t.chip;
    }
    ok(in_range && seen == UINT32_MAX, "random indexing: deterministic, in range, all 32 used");

    /* ---- diagnostics */
    static const char *const m1[] = {"gpgpu_mem_addr_mapping", "dramid@8;0000000000000000000000000"
                                     "0000000RRRRRRRRRRRRRRRBBBXCCCCCCSSSSS", NULL};
    expect_error("bad letter", m1,
                 "-gpgpu_mem_addr_mapping: invalid character 'X' at position 60 of 'dramid@8;000000"
                 "00000000000000000000000000RRRRRRRRRRRRRRRBBBXCCCCCCSSSSS' (expected D, B, R, C, "
                 "S, 0 or a separator . | space)");
    static const char *const m2[] = {"gpgpu_mem_addr_mapping", "dramid@8;RRRRBBBBCCCC", NULL};
    expect_error("short mapping", m2,
                 "-gpgpu_mem_addr_mapping: 12 address bits in 'dramid@8;RRRRBBBBCCCC', need 64");
    static const char *const m3[] = {"gpgpu_mem_addr_mapping", "dramid@x;RRRR", NULL};
    expect_error("dramid without a number", m3,
                 "-gpgpu_mem_addr_mapping: expected a bit number after 'dramid@' in "
                 "'dramid@x;RRRR'");
    static const char *const m4[] = {"gpgpu_mem_addr_mapping", "dramid@8:RRRR", NULL};
    expect_error("dramid without ';'", m4,
                 "-gpgpu_mem_addr_mapping: expected ';' after 'dramid@8' in 'dramid@8:RRRR'");
    static const char *const m5[] = {
        "gpgpu_mem_addr_mapping",
        "00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCDDD.BCCSSSSS",
        "gpgpu_dram_timing_opt", "16:2:8:12:21:13:34:9:4:5:13:1:0:0", "gpgpu_n_mem", "16",
        NULL};
    expect_error("D bits short of n_mem", m5,
                 "-gpgpu_mem_addr_mapping has 3 chip bits (D), -gpgpu_n_mem 16 needs 4");
    static const char *const m6[] = {
        "gpgpu_mem_addr_mapping",
        "00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCDDD.BCCSSSSS",
        "gpgpu_dram_timing_opt", "16:2:8:12:21:13:34:9:4:5:13:1:0:0", "gpgpu_n_mem", "12",
        NULL};
    expect_error("D bits with 12 channels", m6,
                 "-gpgpu_mem_addr_mapping names the chip bits (D) but -gpgpu_n_mem 12 is not a "
                 "power of two; use dramid@<bit>");
    static const char *const m7[] = {
        "gpgpu_mem_addr_mapping",
        "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS",
        NULL};
    expect_error("16 banks mapped, nbk 4", m7,
                 "the address mapping has 4 bank bits (16 banks) but -gpgpu_dram_timing_opt has "
                 "nbk=4");
    static const char *const m8[] = {"gpgpu_mem_address_mask", "7", NULL};
    expect_error("unknown built-in mapping", m8,
                 "-gpgpu_mem_address_mask: 7 is none of GPGPU-Sim's built-in mappings (0, 1, 2, "
                 "3, 5, 6, 14, 15, 16, 100, 103, 106, 160) and -gpgpu_mem_addr_mapping is empty");
    static const char *const m9[] = {"gpgpu_mem_addr_mapping",
                                     "dramid@8;00000000.00000000.00000000.00000000.0000RRRR."
                                     "RRRRRRRR.RBBBCCDC.BCCSSSSS", NULL};
    expect_error("D with dramid", m9,
                 "-gpgpu_mem_addr_mapping: chip bit 'D' at position 70 of 'dramid@8;00000000."
                 "00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCDC.BCCSSSSS' together with "
                 "dramid@");
    static const char *const m10[] = {"gpgpu_memory_partition_indexing", "9", NULL};
    expect_error("unknown indexing", m10,
                 "-gpgpu_memory_partition_indexing: 9 is not 0 consecutive, 1 XOR, 2 IPOLY, 3 "
                 "PAE, 4 random, 5 custom or 6 IPOLY-modulo");
    static const char *const m11[] = {"gpgpu_n_sub_partition_per_mchannel", "3", NULL};
    expect_error("3 sub-partitions", m11,
                 "-gpgpu_n_sub_partition_per_mchannel: 3 is not a power of two 1…64");
    return done_testing();
}
