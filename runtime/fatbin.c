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
 *
 * Nothing here trusts a size field: the container is read within the bytes the caller says
 * are available (for a registered container, fatbin_locate finds them: the rest of the ELF
 * section holding it), each entry within the container, all arithmetic on offsets, and
 * decompression allocates what the data produces rather than what a header claims.
 */
#include "runtime/fatbin.h"

#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
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

/* ============================================================================ container */

/* Why a container is malformed: "entry 2 (at +0x60): …" into err (if any); FATBIN_EINVALID. */
static int bad(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return FATBIN_EINVALID;
}

/* Check the 16-byte container header at p against the avail bytes readable there; on success
 * *hs is the header size and *size the bytes of entries after it. */
static int check_header(const uint8_t *b, size_t avail, uint64_t *hs, uint64_t *size, char *err,
                        size_t errlen)
{
    if (!b || avail < 16)
        return bad(err, errlen, "truncated container header: %zu of 16 bytes", b ? avail : 0);
    if (rd32(b) != FATBIN_MAGIC)
        return bad(err, errlen, "bad magic 0x%08x (expected 0x%08x)", rd32(b), FATBIN_MAGIC);
    *hs = rd16(b + 6);
    *size = rd64(b + 8);
    if (*hs < 16 || *hs > avail)
        return bad(err, errlen, "container header size %llu outside 16..%zu",
                   (unsigned long long)*hs, avail);
    if (*size > avail - *hs)
        return bad(err, errlen,
                   "container size %llu + header %llu runs past the %zu bytes available",
                   (unsigned long long)*size, (unsigned long long)*hs, avail);
    return 0;
}

/* Total size of the container at p if it fits in avail bytes, else 0 (see fatbin.h). */
uint64_t fatbin_container_size(const void *p, size_t avail)
{
    uint64_t hs, size;
    if (check_header(p, avail, &hs, &size, NULL, 0) < 0)
        return 0;
    return hs + size;
}

/* Walk a container's entries (see fatbin.h). Every field is checked as an offset from the
 * container start against the container's own size, which was checked against avail, so no
 * pointer is formed outside [p, p + avail). */
int fatbin_foreach(const void *p, size_t avail, int (*fn)(const struct fatbin_entry *e, void *arg),
                   void *arg, char *err, size_t errlen)
{
    const uint8_t *b = p;
    uint64_t hs, size;
    if (check_header(b, avail, &hs, &size, err, errlen) < 0)
        return FATBIN_EINVALID;
    uint64_t end = hs + size, off = hs; /* end <= avail */
    for (unsigned idx = 0; off < end; idx++) {
        if (end - off < 0x40)
            return bad(err, errlen, "entry %u (at +0x%llx): header truncated: %llu of 64 bytes",
                       idx, (unsigned long long)off, (unsigned long long)(end - off));
        const uint8_t *q = b + off;
        struct fatbin_entry e;
        uint32_t ehs = rd32(q + 4);
        if (ehs < 0x40 || ehs > end - off)
            return bad(err, errlen,
                       "entry %u (at +0x%llx): header size %u outside 64..%llu (container end)",
                       idx, (unsigned long long)off, ehs, (unsigned long long)(end - off));
        e.kind = rd16(q);
        e.payload_size = rd64(q + 8);
        e.compressed = rd32(q + 0x10);
        e.minor = rd16(q + 0x18);
        e.major = rd16(q + 0x1a);
        e.arch = rd32(q + 0x1c);
        e.flags = rd64(q + 0x28);
        e.uncompressed = rd64(q + 0x38);
        if (e.payload_size > end - off - ehs)
            return bad(err, errlen,
                       "entry %u (at +0x%llx): payload size %llu runs past the container end "
                       "(%llu bytes left)",
                       idx, (unsigned long long)off, (unsigned long long)e.payload_size,
                       (unsigned long long)(end - off - ehs));
        e.payload = q + ehs;
        e.index = idx;
        e.offset = off;
        int r = fn(&e, arg);
        if (r)
            return r;
        off += ehs + e.payload_size; /* <= end */
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
    const bool as = (e->flags & FATBIN_F_ARCH_SPECIFIC) != 0;
    bool ok = as ? e->arch == s->sm : e->arch <= s->sm;
    /* the newest PTX the device can run; at one arch the arch-specific one (compute_90a runs
     * only on 9.0, where the driver runs the sm_90a code nvcc -arch=sm_90a builds beside it:
     * the generic compute_90 PTX of such a build has the arch-specific code compiled out) */
    if (ok && (!s->best || e->arch > s->best_copy.arch ||
               (e->arch == s->best_copy.arch && as &&
                !(s->best_copy.flags & FATBIN_F_ARCH_SPECIFIC)))) {
        s->best_copy = *e;
        s->best = &s->best_copy;
    }
    return 0;
}

/* Decompress a zstd payload that declares `declared` bytes of output. The buffer grows with
 * what the frames really produce (a corrupt size field costs no memory), and more output than
 * declared is an error. Returns 0 with *buf (malloc'd, one spare byte) and *len. */
static int zstd_payload(const struct fatbin_entry *e, uint64_t clen, uint8_t **buf, size_t *len,
                        char *err, size_t errlen)
{
    uint64_t declared = e->uncompressed;
    size_t cap = clen < declared / 8 ? (size_t)clen * 8 : (size_t)declared;
    if (cap < 4096)
        cap = declared < 4096 ? (size_t)declared : 4096;
    uint8_t *b = malloc(cap + 1);
    ZSTD_DCtx *z = ZSTD_createDCtx();
    int rc = FATBIN_EINVALID;
    if (!b || !z) {
        bad(err, errlen, "out of memory decompressing PTX");
        goto out;
    }
    ZSTD_inBuffer in = {e->payload, (size_t)clen, 0};
    ZSTD_outBuffer o = {b, cap, 0};
    for (;;) {
        size_t r = ZSTD_decompressStream(z, &o, &in);
        if (ZSTD_isError(r)) {
            bad(err, errlen, "zstd decompression of PTX (compute_%u) failed: %s", e->arch,
                ZSTD_getErrorName(r));
            goto out;
        }
        if (r == 0 && in.pos == in.size)
            break; /* every frame complete, all input used */
        if (o.pos < o.size && in.pos == in.size) {
            bad(err, errlen, "zstd decompression of PTX (compute_%u) failed: truncated frame "
                             "(%llu compressed bytes)", e->arch, (unsigned long long)clen);
            goto out;
        }
        if (o.pos == o.size) {
            if (cap >= declared) {
                bad(err, errlen, "zstd PTX entry (compute_%u) decompresses to more than the "
                                 "%llu bytes its header declares", e->arch,
                    (unsigned long long)declared);
                goto out;
            }
            size_t nc = cap > declared / 2 ? (size_t)declared : cap * 2;
            uint8_t *nb = realloc(b, nc + 1);
            if (!nb) {
                bad(err, errlen, "out of memory decompressing PTX");
                goto out;
            }
            b = nb;
            cap = nc;
            o.dst = b;
            o.size = cap;
        }
    }
    *buf = b;
    *len = o.pos;
    b = NULL;
    rc = 0;
out:
    free(b);
    ZSTD_freeDCtx(z);
    return rc;
}

/* Choose and decompress the PTX for a device of capability sm (see fatbin.h). */
int fatbin_select_ptx(const void *container, size_t avail, unsigned sm, struct fatbin_ptx *out,
                      char *err, size_t errlen)
{
    struct select_state s = {.sm = sm};
    memset(out, 0, sizeof *out);
    if (fatbin_foreach(container, avail, select_cb, &s, err, errlen) < 0)
        return FATBIN_EINVALID;
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
        return FATBIN_ENOIMAGE;
    }
    const struct fatbin_entry *e = s.best;
    uint8_t *buf = NULL;
    size_t len = 0;
    if (!e->payload_size)
        return bad(err, errlen, "entry %u (at +0x%llx): the PTX entry for compute_%u is empty",
                   e->index, (unsigned long long)e->offset, e->arch);
    if (e->flags & (FATBIN_F_ZSTD | FATBIN_F_LZ4)) {
        uint64_t clen = e->compressed ? e->compressed : e->payload_size;
        if (clen > e->payload_size)
            return bad(err, errlen,
                       "entry %u (at +0x%llx): compressed size %llu exceeds the payload size "
                       "%llu",
                       e->index, (unsigned long long)e->offset, (unsigned long long)clen,
                       (unsigned long long)e->payload_size);
        if (e->uncompressed == 0 || e->uncompressed > FATBIN_MAX_PTX)
            return bad(err, errlen,
                       "entry %u (at +0x%llx): uncompressed size %llu outside 1..%llu",
                       e->index, (unsigned long long)e->offset,
                       (unsigned long long)e->uncompressed, (unsigned long long)FATBIN_MAX_PTX);
        if (e->flags & FATBIN_F_ZSTD) {
            int r = zstd_payload(e, clen, &buf, &len, err, errlen);
            if (r < 0)
                return r;
        } else {
            /* an LZ4 block expands at most 255-fold (+ the 19-byte minimum match): allocate
             * no more than the data can produce, whatever the header claims */
            uint64_t cap = e->uncompressed;
            if (cap > clen * 255 + 64)
                cap = clen * 255 + 64;
            buf = malloc(cap + 1);
            if (!buf) {
                snprintf(err, errlen, "out of memory decompressing PTX");
                return FATBIN_EINVALID;
            }
            long r = fatbin_lz4_decode(e->payload, clen, buf, cap);
            if (r < 0) {
                snprintf(err, errlen,
                         "cannot decompress the LZ4-style (flag 0x2000) PTX entry for "
                         "compute_%u: rebuild with --compress-mode=none",
                         e->arch);
                free(buf);
                return FATBIN_EINVALID;
            }
            len = (size_t)r;
        }
    } else {
        buf = malloc(e->payload_size + 1);
        if (!buf) {
            snprintf(err, errlen, "out of memory reading PTX");
            return FATBIN_EINVALID;
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

/* One line per entry of a container (see fatbin.h). */
int fatbin_dump(FILE *out, const void *container, size_t avail, char *err, size_t errlen)
{
    uint64_t size = fatbin_container_size(container, avail);
    if (!size)
        return fatbin_foreach(container, avail, dump_cb, out, err, errlen); /* the reason */
    fprintf(out, "fatbin %p: %llu bytes\n", container, (unsigned long long)size);
    return fatbin_foreach(container, avail, dump_cb, out, err, errlen);
}

/* ============================================================================ ELF sections */

/* Each section of an ELF64 little-endian image (see fatbin.h). */
int fatbin_elf_sections(const uint8_t *b, size_t n,
                        int (*fn)(const struct fatbin_elf_section *s, void *arg), void *arg)
{
    if (n < 64 || memcmp(b, "\x7f" "ELF", 4) || b[4] != 2 || b[5] != 1)
        return -1;
    uint64_t shoff = rd64(b + 0x28);
    uint16_t shentsize = rd16(b + 0x3a), shnum = rd16(b + 0x3c), shstrndx = rd16(b + 0x3e);
    if (!shoff || !shnum)
        return -1; /* no section headers (or more than 0xff00: not produced by nvcc's host
                      linker for programs we run) */
    if (shentsize < 64 || shoff > n || (uint64_t)shnum * shentsize > n - shoff)
        return -1;
    const uint8_t *strs = NULL;
    uint64_t nstrs = 0;
    if (shstrndx < shnum) {
        const uint8_t *sh = b + shoff + (uint64_t)shstrndx * shentsize;
        uint64_t off = rd64(sh + 0x18), size = rd64(sh + 0x20);
        if (off <= n && size <= n - off) {
            strs = b + off;
            nstrs = size;
        }
    }
    for (unsigned i = 0; i < shnum; i++) {
        const uint8_t *sh = b + shoff + (uint64_t)i * shentsize;
        struct fatbin_elf_section s = {
            .name = "",
            .type = rd32(sh + 4),
            .flags = rd64(sh + 8),
            .addr = rd64(sh + 0x10),
            .offset = rd64(sh + 0x18),
            .size = rd64(sh + 0x20),
        };
        uint32_t name = rd32(sh);
        if (strs && name < nstrs && memchr(strs + name, 0, nstrs - name))
            s.name = (const char *)strs + name;
        int r = fn(&s, arg);
        if (r)
            return r;
    }
    return 0;
}

/* ============================================================= where a registered container is */

struct phdr_query {
    uintptr_t p;
    bool found;
    char path[512];
    uintptr_t bias;
    uintptr_t seg_end; /* end of the readable PT_LOAD segment holding p */
};

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct phdr_query *q = arg;
    for (unsigned i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R))
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (q->p < lo || q->p >= hi)
            continue;
        q->found = true;
        q->bias = info->dlpi_addr;
        q->seg_end = hi;
        if (info->dlpi_name && *info->dlpi_name) {
            snprintf(q->path, sizeof q->path, "%s", info->dlpi_name);
        } else { /* the main program */
            ssize_t n = readlink("/proc/self/exe", q->path, sizeof q->path - 1);
            if (n <= 0)
                snprintf(q->path, sizeof q->path, "/proc/self/exe");
            else
                q->path[n] = 0;
        }
        return 1;
    }
    return 0;
}

struct section_query {
    uint64_t vaddr;     /* link-time address of p */
    const char *name;   /* out: the section holding it */
    uint64_t addr, end; /* out: its address range */
    char namebuf[64];
};

static int section_cb(const struct fatbin_elf_section *s, void *arg)
{
    struct section_query *q = arg;
    if (!(s->flags & 2 /* SHF_ALLOC */) || s->type == 8 /* SHT_NOBITS */ || !s->size)
        return 0;
    if (q->vaddr < s->addr || q->vaddr - s->addr >= s->size)
        return 0;
    snprintf(q->namebuf, sizeof q->namebuf, "%s", s->name);
    q->name = q->namebuf;
    q->addr = s->addr;
    q->end = s->addr + s->size;
    return 1;
}

/* The readable mapping around p from /proc/self/maps (memory no loaded object owns, such as
 * a container a program built on the heap): bytes readable from p through contiguous
 * readable mappings. 0 when p is not mapped readable. */
static size_t maps_extent(uintptr_t p)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return 0;
    char line[512];
    uintptr_t end = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3)
            continue;
        if (perms[0] != 'r') {
            if (end)
                break;
            continue;
        }
        if (!end && p >= lo && p < hi)
            end = hi;
        else if (end && lo == end)
            end = hi;
        else if (end)
            break;
    }
    fclose(f);
    return end ? end - p : 0;
}

/* Bytes readable at a container a program registered (see fatbin.h). */
int fatbin_locate(const void *p, size_t *avail, char *where, size_t wherelen)
{
    struct phdr_query q = {.p = (uintptr_t)p};
    *avail = 0;
    if (!p) {
        snprintf(where, wherelen, "a null pointer");
        return -1;
    }
    dl_iterate_phdr(phdr_cb, &q);
    if (!q.found) {
        size_t n = maps_extent((uintptr_t)p);
        if (!n) {
            snprintf(where, wherelen, "%p (not readable memory)", p);
            return -1;
        }
        snprintf(where, wherelen, "%p (memory of no loaded object)", p);
        *avail = n;
        return 0;
    }
    *avail = q.seg_end - (uintptr_t)p;
    snprintf(where, wherelen, "%s at %p", q.path, p);
    /* Tighter: the section holding p, from the object file's section headers (mapped, not
     * read: only the pages of the headers are touched). */
    int fd = open(q.path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    void *map = MAP_FAILED;
    if (fstat(fd, &st) == 0 && st.st_size > 0)
        map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return 0;
    struct section_query sq = {.vaddr = (uintptr_t)p - q.bias};
    if (fatbin_elf_sections(map, (size_t)st.st_size, section_cb, &sq) > 0 && sq.name) {
        uint64_t left = sq.end - sq.vaddr;
        if (left < *avail)
            *avail = (size_t)left;
        snprintf(where, wherelen, "section %s of %s at +0x%llx", sq.name, q.path,
                 (unsigned long long)(sq.vaddr - sq.addr));
    }
    munmap(map, (size_t)st.st_size);
    return 0;
}
