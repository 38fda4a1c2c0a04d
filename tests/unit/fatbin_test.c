/*
 * tests/unit/fatbin_test.c — the fat binary container parser and PTX selection
 * (runtime/fatbin.c): entry walking, newest-PTX-not-newer-than-the-device selection,
 * arch-specific ("a") entries, zstd and LZ4 payloads, and the messages for SASS-only and
 * too-new binaries. Containers are built here byte by byte in nvcc 13's layout.
 */
#include <string.h>
#include <zstd.h>

#include "runtime/fatbin.h"
#include "tests/tap.h"

struct builder {
    uint8_t buf[8192];
    size_t n;
};

static void put(struct builder *b, size_t at, const void *p, size_t len)
{
    memcpy(b->buf + at, p, len);
}

static void begin(struct builder *b)
{
    memset(b, 0, sizeof *b);
    uint32_t magic = FATBIN_MAGIC;
    uint16_t ver = 1, hs = 16;
    put(b, 0, &magic, 4);
    put(b, 4, &ver, 2);
    put(b, 6, &hs, 2);
    b->n = 16;
}

/* Append an entry; payload stored as given (already compressed when flags say so). */
static void entry(struct builder *b, uint16_t kind, uint32_t arch, uint64_t flags,
                  const void *payload, size_t len, uint32_t comp, uint64_t uncomp)
{
    size_t e = b->n;
    uint32_t ehs = 0x40;
    uint64_t psz = (len + 7) & ~(size_t)7;
    uint16_t minor = 0, major = kind == FATBIN_KIND_PTX ? 9 : 1;
    put(b, e, &kind, 2);
    put(b, e + 4, &ehs, 4);
    put(b, e + 8, &psz, 8);
    put(b, e + 0x10, &comp, 4);
    put(b, e + 0x18, &minor, 2);
    put(b, e + 0x1a, &major, 2);
    put(b, e + 0x1c, &arch, 4);
    put(b, e + 0x28, &flags, 8);
    put(b, e + 0x38, &uncomp, 8);
    put(b, e + ehs, payload, len);
    b->n = e + ehs + psz;
    uint64_t size = b->n - 16;
    put(b, 8, &size, 8);
}

static const char ptx75[] = ".version 9.0\n.target sm_75\n.address_size 64\n";
static const char ptx80[] = ".version 9.0\n.target sm_80\n.address_size 64\n// eighty\n";
static const char ptx90a[] = ".version 9.0\n.target sm_90a\n.address_size 64\n";

int main(void)
{
    struct builder b;
    struct fatbin_ptx out;
    char err[512];

    /* plain PTX entries + an ELF: newest PTX <= device */
    begin(&b);
    entry(&b, FATBIN_KIND_ELF, 80, 0x11, "\x7f" "ELF....", 8, 0, 0);
    entry(&b, FATBIN_KIND_PTX, 75, 0x11, ptx75, sizeof ptx75, 0, 0);
    entry(&b, FATBIN_KIND_PTX, 80, 0x11, ptx80, sizeof ptx80, 0, 0);
    ok(fatbin_container_size(b.buf) == b.n, "container size");
    ok(fatbin_container_size("nope, not a container") == 0, "non-container size 0");
    is_int(fatbin_select_ptx(b.buf, 90, &out, err, sizeof err), 0, "select on sm_90");
    is_uint(out.arch, 80, "newest PTX chosen");
    is_str(out.text, ptx80, "stored PTX text (padding stripped)");
    is_uint(out.len, strlen(ptx80), "length without NULs");
    free(out.text);
    is_int(fatbin_select_ptx(b.buf, 75, &out, err, sizeof err), 0, "select on sm_75");
    is_uint(out.arch, 75, "sm_75 device gets compute_75");
    free(out.text);

    /* arch-specific entries only match their own device */
    begin(&b);
    entry(&b, FATBIN_KIND_PTX, 80, 0x11, ptx80, sizeof ptx80, 0, 0);
    entry(&b, FATBIN_KIND_PTX, 90, 0x11 | FATBIN_F_ARCH_SPECIFIC, ptx90a, sizeof ptx90a, 0, 0);
    fatbin_select_ptx(b.buf, 90, &out, err, sizeof err);
    is_uint(out.arch, 90, "sm_90 device takes compute_90a");
    free(out.text);
    fatbin_select_ptx(b.buf, 100, &out, err, sizeof err);
    is_uint(out.arch, 80, "sm_100 device skips compute_90a");
    free(out.text);

    /* zstd-compressed PTX */
    uint8_t z[1024];
    size_t zn = ZSTD_compress(z, sizeof z, ptx80, sizeof ptx80, 3);
    ok(!ZSTD_isError(zn), "zstd compress");
    begin(&b);
    entry(&b, FATBIN_KIND_PTX, 80, 0x11 | FATBIN_F_ZSTD, z, zn, (uint32_t)zn, sizeof ptx80);
    is_int(fatbin_select_ptx(b.buf, 90, &out, err, sizeof err), 0, "zstd entry selected");
    is_str(out.text, ptx80, "zstd payload decompressed");
    free(out.text);
    /* corrupt zstd */
    b.buf[16 + 0x40 + 5] ^= 0xff;
    b.buf[16 + 0x40 + 0] ^= 0xff;
    is_int(fatbin_select_ptx(b.buf, 90, &out, err, sizeof err), -1, "corrupt zstd fails");
    ok(strstr(err, "zstd decompression") != NULL, "corrupt zstd message: %s", err);

    /* LZ4 block format (what --compress-mode=speed writes): literals, then a match */
    const uint8_t lz[] = {0x13, '\n', 0x01, 0x00, 0x50, 'a', 'b', 'c', 'd', 'e'};
    uint8_t dec[64];
    long dn = fatbin_lz4_decode(lz, sizeof lz, dec, sizeof dec);
    is_int(dn, 13, "lz4 decoded length");
    is_mem(dec, "\n\n\n\n\n\n\n\nabcde", 13, "lz4 overlapping match");
    is_int(fatbin_lz4_decode(lz, sizeof lz, dec, 10), -1, "lz4 output overflow rejected");
    const uint8_t badoff[] = {0x10, 'x', 0x05, 0x00, 0x00};
    is_int(fatbin_lz4_decode(badoff, sizeof badoff, dec, sizeof dec), -1,
           "lz4 offset before start rejected");
    begin(&b);
    entry(&b, FATBIN_KIND_PTX, 80, 0x11 | FATBIN_F_LZ4, lz, sizeof lz, sizeof lz, 13);
    is_int(fatbin_select_ptx(b.buf, 90, &out, err, sizeof err), 0, "lz4 entry selected");
    is_str(out.text, "\n\n\n\n\n\n\n\nabcde", "lz4 payload decompressed");
    free(out.text);

    /* SASS only: the message names the -gencode flag */
    begin(&b);
    entry(&b, FATBIN_KIND_ELF, 80, 0x11, "\x7f" "ELF....", 8, 0, 0);
    entry(&b, FATBIN_KIND_ELF, 90, 0x11, "\x7f" "ELF....", 8, 0, 0);
    is_int(fatbin_select_ptx(b.buf, 90, &out, err, sizeof err), -1, "SASS-only fails");
    is_str(err,
           "the fat binary holds only SASS (sm_80, sm_90) and no PTX; ptxemu runs PTX: rebuild "
           "with -gencode arch=compute_80,code=compute_80",
           "SASS-only message");

    /* only newer PTX */
    begin(&b);
    entry(&b, FATBIN_KIND_PTX, 100, 0x11, ptx80, sizeof ptx80, 0, 0);
    is_int(fatbin_select_ptx(b.buf, 90, &out, err, sizeof err), -1, "too-new PTX fails");
    is_str(err,
           "the fat binary's PTX targets compute_100, newer than the emulated device (sm_90): "
           "emulate a newer device (ptxemu run --device sm=100) or rebuild with "
           "-gencode arch=compute_90,code=compute_90",
           "too-new message");

    /* malformed: entry size beyond the container */
    begin(&b);
    entry(&b, FATBIN_KIND_PTX, 80, 0x11, ptx80, sizeof ptx80, 0, 0);
    uint64_t huge = 1 << 20;
    put(&b, 16 + 8, &huge, 8);
    is_int(fatbin_select_ptx(b.buf, 90, &out, err, sizeof err), -1, "malformed fails");
    ok(strstr(err, "malformed") != NULL, "malformed message");

    return done_testing();
}
