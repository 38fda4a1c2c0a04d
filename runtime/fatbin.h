/*
 * runtime/fatbin.h — the CUDA fat binary container (as nvcc 13 writes it) and PTX selection.
 *
 * A container is a 16-byte header {u32 magic 0xBA55ED50; u16 version 1; u16 header size; u64
 * payload size} followed by entries, each with its own header (kind PTX or ELF, target arch,
 * flags, sizes) and payload. ptxemu runs PTX only: it picks the newest PTX entry whose target is
 * not newer than the emulated device and decompresses it (zstd, flag 0x8000, or LZ4 block format,
 * flag 0x2000 — what `--compress-mode=speed` writes).
 */
#ifndef PTXEMU_RT_FATBIN_H
#define PTXEMU_RT_FATBIN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define FATBIN_MAGIC 0xBA55ED50u
#define FATBIN_WRAPPER_MAGIC 0x466243B1
#define FATBIN_KIND_PTX 1
#define FATBIN_KIND_ELF 2
#define FATBIN_F_LZ4 UINT64_C(0x2000)
#define FATBIN_F_ZSTD UINT64_C(0x8000)
#define FATBIN_F_ARCH_SPECIFIC UINT64_C(0x100000) /* sm_90a-style "a" target */

/* The registration wrapper (__fatBinC_Wrapper_t, section .nvFatBinSegment). */
struct fatbin_wrapper {
    int32_t magic;   /* FATBIN_WRAPPER_MAGIC */
    int32_t version; /* 1, or 2 for -rdc (linked) programs */
    const void *data;              /* container */
    const void *filename_or_fatbins; /* v2: NULL-terminated array of per-file containers */
};

/* Results of the reader besides 0. */
enum {
    FATBIN_EINVALID = -1, /* malformed container or payload: cudaErrorInvalidKernelImage */
    FATBIN_ENOIMAGE = -2, /* well-formed, but no PTX this device can run:
                             cudaErrorNoKernelImageForDevice */
};

/* Largest PTX text a compressed entry may declare (bytes after decompression). */
#define FATBIN_MAX_PTX (UINT64_C(1) << 32)

/* One entry as described by its header. */
struct fatbin_entry {
    unsigned kind;          /* FATBIN_KIND_* */
    unsigned arch;          /* 80 for sm_80 / compute_80 */
    unsigned major, minor;  /* PTX ISA version (PTX entries) */
    uint64_t flags;
    const uint8_t *payload;
    uint64_t payload_size;  /* bytes stored (padded) */
    uint64_t compressed;    /* compressed bytes (0: stored) */
    uint64_t uncompressed;  /* bytes after decompression (0: stored) */
    unsigned index;         /* position in the container (0 = first), for messages */
    uint64_t offset;        /* byte offset of the entry header from the container start */
};

/*
 * Every function below reads only the `avail` bytes at the container: the header's size
 * fields are checked against avail, then every entry's against the container's end, all as
 * offsets (no pointer is formed past the bound). A container a program registered has no
 * length of its own: fatbin_locate gives the bound.
 */

/* Total bytes of the container at p (header + entries), or 0 if p does not start a container
 * or its size fields run past avail. */
uint64_t fatbin_container_size(const void *p, size_t avail);

/* Walk the entries of the container at p: calls fn for each; stops early when fn returns
 * non-zero and returns that value. Returns FATBIN_EINVALID for a malformed container, with a
 * one-line reason in err (when err is not NULL): which field of which entry, and the bound. */
int fatbin_foreach(const void *p, size_t avail, int (*fn)(const struct fatbin_entry *e, void *arg),
                   void *arg, char *err, size_t errlen);

/* The PTX text chosen for a device of compute capability sm (x10). */
struct fatbin_ptx {
    char *text;     /* malloc'd, NUL-terminated */
    size_t len;     /* without the NUL */
    unsigned arch;
};

/* Select and decompress the newest PTX entry with arch <= sm (arch-specific "a" entries only
 * when arch == sm, and then before the generic entry of the same arch). Returns 0 with *out filled, or a one-line explanation in err and
 * FATBIN_ENOIMAGE when there is no usable PTX (SASS only: names the -gencode flag to add;
 * only newer PTX: says so), FATBIN_EINVALID when the container or the chosen payload is
 * malformed (bad sizes, empty entry, corrupt or truncated compressed data). Decompression
 * allocates what the data really produces, never what a size field merely claims. */
int fatbin_select_ptx(const void *container, size_t avail, unsigned sm, struct fatbin_ptx *out,
                      char *err, size_t errlen);

/* Decompress an LZ4 block-format buffer. Returns bytes written, or -1 when src is malformed
 * or would overflow dst. Exposed for tests. */
long fatbin_lz4_decode(const uint8_t *src, size_t srclen, uint8_t *dst, size_t dstcap);

/* Print one line per entry (kind, arch, flags, sizes) — `ptxemu fatbin` and PTXEMU_DEBUG_REG.
 * Returns 0, or FATBIN_EINVALID with the reason in err (the entries before the bad one are
 * printed). */
int fatbin_dump(FILE *out, const void *container, size_t avail, char *err, size_t errlen);

/* One section header of an ELF file. */
struct fatbin_elf_section {
    const char *name;       /* "" when the name is out of the string table */
    uint32_t type;          /* SHT_* */
    uint64_t flags, addr, offset, size;
};

/* Call fn for each section of the 64-bit little-endian ELF image b (n bytes), stopping when
 * it returns non-zero (returned). -1 when b is not such an ELF or its section header table
 * lies outside b. Used to find .nv_fatbin / __nv_relfatbin in a file (ptxemu fatbin) and the
 * section holding a registered container (fatbin_locate). */
int fatbin_elf_sections(const uint8_t *b, size_t n,
                        int (*fn)(const struct fatbin_elf_section *s, void *arg), void *arg);

/* How many bytes can be read at p, a container a CUDA program registered (wrapper->data or
 * an -rdc per-file container): the rest of the ELF section holding it (.nv_fatbin,
 * __nv_relfatbin — from the section headers of the object file, found with
 * dl_iterate_phdr), capped by the end of the loaded segment holding it; for memory no
 * loaded object owns, the readable mappings from p on (/proc/self/maps). Returns 0 with
 * *avail and a description of the place in `where` ("section .nv_fatbin of PATH at +0x10"),
 * or -1 when p is not readable memory. */
int fatbin_locate(const void *p, size_t *avail, char *where, size_t wherelen);

#endif
