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

static void put16(struct builder *b, size_t at, uint16_t v) { put(b, at, &v, 2); }
static void put32(struct builder *b, size_t at, uint32_t v) { put(b, at, &v, 4); }
static void put64(struct builder *b, size_t at, uint64_t v) { put(b, at, &v, 8); }

/* select on b (b->n bytes available); expect rc and, for errors, the exact message */
static void expect(struct builder *b, size_t avail, int rc, const char *msg, const char *what)
{
    struct fatbin_ptx out;
    char err[512] = "";
    int r = fatbin_select_ptx(b->buf, avail, 90, &out, err, sizeof err);
    is_int(r, rc, "%s: result", what);
    if (r == 0)
        free(out.text);
    else
        is_str(err, msg, "%s: message", what);
}

/* One case per malformed field: every read is bounded by the container and the bytes
 * available, each answer is FATBIN_EINVALID (cudaErrorInvalidKernelImage) with its reason. */
static void malformed(struct builder *b, const char *ptx, const uint8_t *z, size_t zn)
{
    const size_t e0 = 16; /* first entry header */
    size_t plen = strlen(ptx) + 1;

    /* container header size 0xFFFF (the SIGSEGV of issue 20 item 13) */
    begin(b);
    entry(b, FATBIN_KIND_PTX, 80, 0x11, ptx, plen, 0, 0);
    put16(b, 6, 0xffff);
    expect(b, b->n, FATBIN_EINVALID, "container header size 65535 outside 16..136",
           "header size 0xFFFF");
    is_uint(fatbin_container_size(b->buf, b->n), 0, "header size 0xFFFF: no container size");
    put16(b, 6, 8);
    expect(b, b->n, FATBIN_EINVALID, "container header size 8 outside 16..136",
           "header size 8");

    /* container size past what is available, and a size that overflows hs + size */
    begin(b);
    entry(b, FATBIN_KIND_PTX, 80, 0x11, ptx, plen, 0, 0);
    expect(b, b->n - 8, FATBIN_EINVALID,
           "container size 120 + header 16 runs past the 128 bytes available",
           "container larger than its section");
    put64(b, 8, UINT64_MAX - 8);
    expect(b, b->n, FATBIN_EINVALID,
           "container size 18446744073709551607 + header 16 runs past the 136 bytes available",
           "container size near 2^64");
    expect(b, 10, FATBIN_EINVALID, "truncated container header: 10 of 16 bytes",
           "10 bytes available");
    put32(b, 0, 0x12345678);
    expect(b, b->n, FATBIN_EINVALID, "bad magic 0x12345678 (expected 0xba55ed50)", "bad magic");

    /* entry header size: past the end, 0xFFFFFFFF, below 64 */
    begin(b);
    entry(b, FATBIN_KIND_PTX, 80, 0x11, ptx, plen, 0, 0);
    put32(b, e0 + 4, 0x90);
    expect(b, b->n, FATBIN_EINVALID,
           "entry 0 (at +0x10): header size 144 outside 64..120 (container end)",
           "entry header size past the end");
    put32(b, e0 + 4, 0xffffffff);
    expect(b, b->n, FATBIN_EINVALID,
           "entry 0 (at +0x10): header size 4294967295 outside 64..120 (container end)",
           "entry header size 0xFFFFFFFF");
    put32(b, e0 + 4, 0x20);
    expect(b, b->n, FATBIN_EINVALID,
           "entry 0 (at +0x10): header size 32 outside 64..120 (container end)",
           "entry header size 32");

    /* a second entry whose header is cut by the container end */
    begin(b);
    entry(b, FATBIN_KIND_PTX, 80, 0x11, ptx, plen, 0, 0);
    put64(b, 8, b->n - 16 + 40);
    expect(b, b->n + 40, FATBIN_EINVALID,
           "entry 1 (at +0x88): header truncated: 40 of 64 bytes", "truncated entry header");

    /* payload size past the end, and 2^64 - 1 (overflows off + header + payload) */
    begin(b);
    entry(b, FATBIN_KIND_PTX, 80, 0x11, ptx, plen, 0, 0);
    put64(b, e0 + 8, 65);
    expect(b, b->n, FATBIN_EINVALID,
           "entry 0 (at +0x10): payload size 65 runs past the container end (56 bytes left)",
           "payload size past the end");
    put64(b, e0 + 8, UINT64_MAX);
    expect(b, b->n, FATBIN_EINVALID,
           "entry 0 (at +0x10): payload size 18446744073709551615 runs past the container end "
           "(56 bytes left)",
           "payload size 2^64-1");

    /* compressed size > payload size */
    begin(b);
    entry(b, FATBIN_KIND_PTX, 80, 0x11 | FATBIN_F_ZSTD, z, zn, (uint32_t)zn, plen);
    put32(b, e0 + 0x10, 0xffffffff);
    expect(b, b->n, FATBIN_EINVALID,
           "entry 0 (at +0x10): compressed size 4294967295 exceeds the payload size 64",
           "compressed size > payload");

    /* uncompressed size 0 and 2^64 - 1 */
    begin(b);
    entry(b, FATBIN_KIND_PTX, 80, 0x11 | FATBIN_F_ZSTD, z, zn, (uint32_t)zn, 0);
    expect(b, b->n, FATBIN_EINVALID,
           "entry 0 (at +0x10): uncompressed size 0 outside 1..4294967296", "uncompressed 0");
    put64(b, e0 + 0x38, UINT64_MAX);
    expect(b, b->n, FATBIN_EINVALID,
           "entry 0 (at +0x10): uncompressed size 18446744073709551615 outside 1..4294967296",
           "uncompressed 2^64-1");
    /* 4 GiB declared, 50 bytes real: allowed, and allocates what the frame produces */
    put64(b, e0 + 0x38, UINT64_C(1) << 32);
    expect(b, b->n, 0, "", "uncompressed 4 GiB declared, small frame");
    /* fewer bytes declared than the frame produces */
    put64(b, e0 + 0x38, 10);
    expect(b, b->n, FATBIN_EINVALID,
           "zstd PTX entry (compute_80) decompresses to more than the 10 bytes its header "
           "declares",
           "uncompressed smaller than the frame");

    /* zstd frame truncated: the compressed size says fewer bytes than the frame has */
    begin(b);
    entry(b, FATBIN_KIND_PTX, 80, 0x11 | FATBIN_F_ZSTD, z, zn, (uint32_t)zn - 5, plen);
    expect(b, b->n, FATBIN_EINVALID,
           "zstd decompression of PTX (compute_80) failed: truncated frame (59 compressed "
           "bytes)",
           "zstd frame truncated");

    /* zero-length entries: an empty PTX entry is invalid; empty ELF entries are skipped */
    begin(b);
    entry(b, FATBIN_KIND_PTX, 80, 0x11, "", 0, 0, 0);
    expect(b, b->n, FATBIN_EINVALID,
           "entry 0 (at +0x10): the PTX entry for compute_80 is empty", "empty PTX entry");
    begin(b);
    for (int i = 0; i < 100; i++)
        entry(b, FATBIN_KIND_ELF, 80, 0x11, "", 0, 0, 0);
    entry(b, FATBIN_KIND_PTX, 80, 0x11, ptx, plen, 0, 0);
    expect(b, b->n, 0, "", "100 empty ELF entries, then PTX");
    begin(b);
    expect(b, b->n, FATBIN_ENOIMAGE, "the fat binary holds no code", "container with no entry");

    /* huge counts: many entries, each walked in bounds; the last one cut short */
    begin(b);
    for (int i = 0; i < 120; i++)
        entry(b, FATBIN_KIND_ELF, 80 + (unsigned)i, 0x11, "", 0, 0, 0);
    expect(b, b->n, FATBIN_ENOIMAGE,
           "the fat binary holds only SASS (sm_80, sm_81, sm_82, sm_83, sm_84, sm_85, sm_86, "
           "sm_87, sm_88, sm_89, sm_90, sm_91, sm_92, sm_93, sm_94, sm_95) and no PTX; "
           "ptxemu runs PTX: rebuild with -gencode arch=compute_80,code=compute_80",
           "120 SASS entries");
    put64(b, 8, b->n - 16 - 1);
    expect(b, b->n, FATBIN_EINVALID,
           "entry 119 (at +0x1dd0): header truncated: 63 of 64 bytes", "120 entries, cut");

    /* the walk and the dump report the same reason */
    begin(b);
    entry(b, FATBIN_KIND_PTX, 80, 0x11, ptx, plen, 0, 0);
    put64(b, e0 + 8, 65);
    char err[256] = "";
    FILE *devnull = fopen("/dev/null", "w");
    is_int(fatbin_dump(devnull, b->buf, b->n, err, sizeof err), FATBIN_EINVALID, "dump fails");
    is_str(err,
           "entry 0 (at +0x10): payload size 65 runs past the container end (56 bytes left)",
           "dump reason");
    fclose(devnull);
}

/* fatbin_locate on memory of this test: a static array (its section), the heap (its
 * mapping), NULL and an unmapped address. */
static const uint8_t in_rodata[4096] = {1};

static void locate(void)
{
    size_t avail = 0;
    char where[600];
    is_int(fatbin_locate(in_rodata + 100, &avail, where, sizeof where), 0, "locate .rodata");
    ok(strstr(where, "section .rodata of ") != NULL, "in .rodata: %s", where);
    ok(avail >= sizeof in_rodata - 100 && avail < (1u << 20),
       "bounded by the section: %zu bytes", avail);
    uint8_t *h = malloc(100);
    is_int(fatbin_locate(h, &avail, where, sizeof where), 0, "locate heap");
    ok(avail >= 100, "heap: %zu bytes readable", avail);
    ok(strstr(where, "memory of no loaded object") != NULL, "heap: %s", where);
    free(h);
    is_int(fatbin_locate(NULL, &avail, where, sizeof where), -1, "locate NULL");
    is_str(where, "a null pointer", "NULL message");
    is_int(fatbin_locate((void *)(uintptr_t)4096, &avail, where, sizeof where), -1,
           "locate unmapped");
    is_str(where, "0x1000 (not readable memory)", "unmapped message");
}

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
    ok(fatbin_container_size(b.buf, b.n) == b.n, "container size");
    ok(fatbin_container_size("nope, not a container", 22) == 0, "non-container size 0");
    is_int(fatbin_select_ptx(b.buf, b.n, 90, &out, err, sizeof err), 0, "select on sm_90");
    is_uint(out.arch, 80, "newest PTX chosen");
    is_str(out.text, ptx80, "stored PTX text (padding stripped)");
    is_uint(out.len, strlen(ptx80), "length without NULs");
    free(out.text);
    is_int(fatbin_select_ptx(b.buf, b.n, 75, &out, err, sizeof err), 0, "select on sm_75");
    is_uint(out.arch, 75, "sm_75 device gets compute_75");
    free(out.text);

    /* arch-specific entries only match their own device */
    begin(&b);
    entry(&b, FATBIN_KIND_PTX, 80, 0x11, ptx80, sizeof ptx80, 0, 0);
    entry(&b, FATBIN_KIND_PTX, 90, 0x11 | FATBIN_F_ARCH_SPECIFIC, ptx90a, sizeof ptx90a, 0, 0);
    fatbin_select_ptx(b.buf, b.n, 90, &out, err, sizeof err);
    is_uint(out.arch, 90, "sm_90 device takes compute_90a");
    free(out.text);
    fatbin_select_ptx(b.buf, b.n, 100, &out, err, sizeof err);
    is_uint(out.arch, 80, "sm_100 device skips compute_90a");
    free(out.text);

    /* nvcc -arch=sm_90a also writes a generic compute_90 entry, ahead of compute_90a, whose
     * arch-specific code is compiled out: a 9.0 device takes compute_90a, as the driver runs
     * the sm_90a code; a 10.0 device can only take compute_90 */
    begin(&b);
    entry(&b, FATBIN_KIND_PTX, 90, 0x11, ptx80, sizeof ptx80, 0, 0);
    entry(&b, FATBIN_KIND_PTX, 90, 0x11 | FATBIN_F_ARCH_SPECIFIC, ptx90a, sizeof ptx90a, 0, 0);
    is_int(fatbin_select_ptx(b.buf, b.n, 90, &out, err, sizeof err), 0, "select compute_90 + 90a");
    is_str(out.text, ptx90a, "sm_90 device prefers compute_90a to compute_90");
    free(out.text);
    fatbin_select_ptx(b.buf, b.n, 100, &out, err, sizeof err);
    is_str(out.text, ptx80, "sm_100 device takes the generic compute_90");
    free(out.text);

    /* zstd-compressed PTX */
    uint8_t z[1024];
    size_t zn = ZSTD_compress(z, sizeof z, ptx80, sizeof ptx80, 3);
    ok(!ZSTD_isError(zn), "zstd compress");
    begin(&b);
    entry(&b, FATBIN_KIND_PTX, 80, 0x11 | FATBIN_F_ZSTD, z, zn, (uint32_t)zn, sizeof ptx80);
    is_int(fatbin_select_ptx(b.buf, b.n, 90, &out, err, sizeof err), 0, "zstd entry selected");
    is_str(out.text, ptx80, "zstd payload decompressed");
    free(out.text);
    /* corrupt zstd */
    b.buf[16 + 0x40 + 5] ^= 0xff;
    b.buf[16 + 0x40 + 0] ^= 0xff;
    is_int(fatbin_select_ptx(b.buf, b.n, 90, &out, err, sizeof err), FATBIN_EINVALID, "corrupt zstd fails");
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
    is_int(fatbin_select_ptx(b.buf, b.n, 90, &out, err, sizeof err), 0, "lz4 entry selected");
    is_str(out.text, "\n\n\n\n\n\n\n\nabcde", "lz4 payload decompressed");
    free(out.text);

    /* SASS only: the message names the -gencode flag */
    begin(&b);
    entry(&b, FATBIN_KIND_ELF, 80, 0x11, "\x7f" "ELF....", 8, 0, 0);
    entry(&b, FATBIN_KIND_ELF, 90, 0x11, "\x7f" "ELF....", 8, 0, 0);
    is_int(fatbin_select_ptx(b.buf, b.n, 90, &out, err, sizeof err), FATBIN_ENOIMAGE, "SASS-only fails");
    is_str(err,
           "the fat binary holds only SASS (sm_80, sm_90) and no PTX; ptxemu runs PTX: rebuild "
           "with -gencode arch=compute_80,code=compute_80",
           "SASS-only message");

    /* only newer PTX */
    begin(&b);
    entry(&b, FATBIN_KIND_PTX, 100, 0x11, ptx80, sizeof ptx80, 0, 0);
    is_int(fatbin_select_ptx(b.buf, b.n, 90, &out, err, sizeof err), FATBIN_ENOIMAGE, "too-new PTX fails");
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
    is_int(fatbin_select_ptx(b.buf, b.n, 90, &out, err, sizeof err), FATBIN_EINVALID,
           "malformed fails");
    is_str(err, "entry 0 (at +0x10): payload size 1048576 runs past the container end "
                "(56 bytes left)", "malformed message");

    malformed(&b, ptx80, z, zn);

    locate();
    return done_testing();
}
