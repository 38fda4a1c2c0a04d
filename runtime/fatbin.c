/*
 * runtime/fatbin.c — parse nvcc's fat binary container, pick the PTX to run, decompress it.
 *
 * Layout (verified on nvcc 13.0 output, see DESIGN.md "Reference facts"):
 *   container: +0 u32 magic 0xBA55ED50, +4 u16 version, +6 u16 header size, +8 u64 payload size
 *   entry:     +0 u16 kind (1 PTX, 2 ELF), +4 u32 entry header size, +8 u64 payload size,
 *              +0x10 u32 compressed size, +0x18/+0x1a u16 minor/major, +0x1c u32 arch,
 *              +0x28 u64 flags, +0x38 u64 uncompressed size.
 * A stored (uncompressed) PTX payload may be padded with NULs; a compressed one decompresses
 * to `uncompressed` bytes, usually ending with a NUL.
 */
#include "runtime/fatbin.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

static uint16_t rd16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static uint64_t rd64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Total size of the container at p, or 0 when p does not start a container. */
uint64_t fatbin_container_size(const void *p)
{
    const uint8_t *b = p;
    if (!b || rd32(b) != FATBIN_MAGIC)
        return 0;
    uint16_t hs = rd16(b + 6);
    if (hs < 16)
        return 0;
    return hs + rd64(b + 8);
}

/* Walk a container's entries (see fatbin.h). */
int fatbin_foreach(const void *p, int (*fn)(const struct fatbin_entry *e, void *arg), void *arg)
{
    const uint8_t *b = p;
    if (!fatbin_container_size(p))
        return -1;
    uint64_t hs = rd16(b + 6), size = rd64(b + 8);
    const uint8_t *q = b + hs, *end = b + hs + size;
    while (q < end) {
        if ((uint64_t)(end - q) < 0x40)
            return -1;
        struct fatbin_entry e;
        uint32_t ehs = rd32(q + 4);
        if (ehs < 0x40 || ehs > (uint64_t)(end - q))
            return -1;
        e.kind = rd16(q);
        e.payload_size = rd64(q + 8);
        e.compressed = rd32(q + 0x10);
        e.minor = rd16(q + 0x18);
        e.major = rd16(q + 0x1a);
        e.arch = rd32(q + 0x1c);
        e.flags = rd64(q + 0x28);
        e.uncompressed = rd64(q + 0x38);
        e.payload = q + ehs;
        if (e.payload_size > (uint64_t)(end - e.payload))
            return -1;
        int r = fn(&e, arg);
        if (r)
            return r;
        q = e.payload + e.payload_size;
    }
    return 0;
}

/* LZ4 block format: sequences of (token, literals, 16-bit offset, match). Bounds-checked. */
long fatbin_lz4_decode(const uint8_t *src, size_t srclen, uint8_t *dst, size_t dstcap)
{
    size_t i = 0, o = 0;
    while (i < srclen) {
        uint8_t t = src[i++];
        size_t ll = t >> 4;
        if (ll == 15) {
            uint8_t x;
            do {
                if (i >= srclen)
                    return -1;
                x = src[i++];
                ll += x;
            } while (x == 255);
        }
        if (ll > srclen - i || ll > dstcap - o)
            return -1;
        memcpy(dst + o, src + i, ll);
        i += ll;
        o += ll;
        if (i >= srclen)
            break; /* the last sequence has literals only */
        if (srclen - i < 2)
            return -1;
        size_t off = (size_t)src[i] | (size_t)src[i + 1] << 8;
        i += 2;
        if (off == 0 || off > o)
            return -1;
        size_t ml = t & 15;
        if (ml == 15) {
            uint8_t x;
            do {
                if (i >= srclen)
                    return -1;
                x = src[i++];
                ml += x;
            } while (x == 255);
        }
        ml += 4;
        if (ml > dstcap - o)
            return -1;
        for (size_t k = 0; k < ml; k++, o++) /* byte-wise: matches may overlap */
            dst[o] = dst[o - off];
    }
    return (long)o;
}

struct select_state {
    unsigned sm;
    const struct fatbin_entry *best;
    struct fatbin_entry best_copy;
    unsigned nptx, nelf;
    unsigned newest_ptx;     /* highest PTX arch seen (any) */
    unsigned elf_archs[16];
    unsigned nelf_archs;
};

static int select_cb(const struct fatbin_entry *e, void *arg)
{
    struct select_state *s = arg;
    if (e->kind == FATBIN_KIND_ELF) {
        s->nelf++;
        if (s->nelf_archs < 16)
            s->elf_archs[s->nelf_archs++] = e->arch;
        return 0;
    }
    if (e->kind != FATBIN_KIND_PTX)
        return 0;
    s->nptx++;
    if (e->arch > s->newest_ptx)
        s->newest_ptx = e->arch;
    bool ok = (e->flags & FATBIN_F_ARCH_SPECIFIC) ? e->arch == s->sm : e->arch <= s->sm;
    if (ok && (!s->best || e->arch > s->best_copy.arch)) {
        s->best_copy = *e;
        s->best = &s->best_copy;
    }
    return 0;
}

/* Choose and decompress the PTX for a device of capability sm (see fatbin.h). */
int fatbin_select_ptx(const void *container, unsigned sm, struct fatbin_ptx *out, char *err,
                      size_t errlen)
{
    struct select_state s = {.sm = sm};
    memset(out, 0, sizeof *out);
    if (fatbin_foreach(container, select_cb, &s) < 0) {
        snprintf(err, errlen, "malformed fat binary container at %p", container);
        return -1;
    }
    if (!s.best) {
        if (s.nptx) {
            snprintf(err, errlen,
                     "the fat binary's PTX targets compute_%u, newer than the emulated device "
                     "(sm_%u): emulate a newer device (ptxemu run --device sm=%u) or rebuild "
                     "with -gencode arch=compute_%u,code=compute_%u",
                     s.newest_ptx, sm, s.newest_ptx, sm, sm);
        } else if (s.nelf) {
            char archs[128] = "";
            size_t n = 0;
            for (unsigned i = 0; i < s.nelf_archs && n < sizeof archs - 8; i++)
                n += (size_t)snprintf(archs + n, sizeof archs - n, "%ssm_%u", i ? ", " : "",
                                      s.elf_archs[i]);
            unsigned a = s.nelf_archs ? s.elf_archs[0] : sm;
            if (a > sm)
                a = sm;
            snprintf(err, errlen,
                     "the fat binary holds only SASS (%s) and no PTX; ptxemu runs PTX: rebuild "
                     "with -gencode arch=compute_%u,code=compute_%u",
                     archs, a, a);
        } else {
            snprintf(err, errlen, "the fat binary holds no code");
        }
        return -1;
    }
    const struct fatbin_entry *e = s.best;
    uint8_t *buf = NULL;
    size_t len = 0;
    if (e->flags & (FATBIN_F_ZSTD | FATBIN_F_LZ4)) {
        uint64_t clen = e->compressed ? e->compressed : e->payload_size;
        if (clen > e->payload_size || e->uncompressed == 0 || e->uncompressed > (UINT64_C(1) << 34)) {
            snprintf(err, errlen, "compressed PTX entry (compute_%u) has bad sizes", e->arch);
            return -1;
        }
        buf = malloc(e->uncompressed + 1);
        if (!buf) {
            snprintf(err, errlen, "out of memory decompressing PTX");
            return -1;
        }
        if (e->flags & FATBIN_F_ZSTD) {
            size_t r = ZSTD_decompress(buf, e->uncompressed, e->payload, clen);
            if (ZSTD_isError(r)) {
                snprintf(err, errlen, "zstd decompression of PTX (compute_%u) failed: %s",
                         e->arch, ZSTD_getErrorName(r));
                free(buf);
                return -1;
            }
            len = r;
        } else {
            long r = fatbin_lz4_decode(e->payload, clen, buf, e->uncompressed);
            if (r < 0) {
                snprintf(err, errlen,
                         "cannot decompress the LZ4-style (flag 0x2000) PTX entry for "
                         "compute_%u: rebuild with --compress-mode=none",
                         e->arch);
                free(buf);
                return -1;
            }
            len = (size_t)r;
        }
    } else {
        buf = malloc(e->payload_size + 1);
        if (!buf) {
            snprintf(err, errlen, "out of memory reading PTX");
            return -1;
        }
        memcpy(buf, e->payload, e->payload_size);
        len = e->payload_size;
    }
    while (len && buf[len - 1] == 0) /* padding / terminator */
        len--;
    buf[len] = 0;
    out->text = (char *)buf;
    out->len = len;
    out->arch = e->arch;
    return 0;
}

static int dump_cb(const struct fatbin_entry *e, void *arg)
{
    FILE *out = arg;
    fprintf(out, "  %s %s_%u%s flags 0x%llx size %llu", e->kind == FATBIN_KIND_PTX ? "PTX" : e->kind == FATBIN_KIND_ELF ? "ELF" : "???",
            e->kind == FATBIN_KIND_PTX ? "compute" : "sm", e->arch,
            (e->flags & FATBIN_F_ARCH_SPECIFIC) ? "a" : "", (unsigned long long)e->flags,
            (unsigned long long)e->payload_size);
    if (e->kind == FATBIN_KIND_PTX)
        fprintf(out, " isa %u.%u", e->major, e->minor);
    if (e->flags & FATBIN_F_ZSTD)
        fprintf(out, " zstd %llu->%llu", (unsigned long long)e->compressed,
                (unsigned long long)e->uncompressed);
    else if (e->flags & FATBIN_F_LZ4)
        fprintf(out, " lz4 %llu->%llu", (unsigned long long)e->compressed,
                (unsigned long long)e->uncompressed);
    fputc('\n', out);
    return 0;
}

/* One line per entry of a container (debugging aid). */
void fatbin_dump(FILE *out, const void *container)
{
    uint64_t size = fatbin_container_size(container);
    fprintf(out, "fatbin %p: %llu bytes\n", container, (unsigned long long)size);
    if (fatbin_foreach(container, dump_cb, out) < 0)
        fprintf(out, "  (malformed)\n");
}
