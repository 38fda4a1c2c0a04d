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
};

/* Total bytes of the container at p (header + payload), or 0 if p is not a container. */
uint64_t fatbin_container_size(const void *p);

/* Walk the entries of the container at p: calls fn for each; stops early when fn returns
 * non-zero and returns that value. Returns -1 for a malformed container. */
int fatbin_foreach(const void *p, int (*fn)(const struct fatbin_entry *e, void *arg), void *arg);

/* The PTX text chosen for a device of compute capability sm (x10). */
struct fatbin_ptx {
    char *text;     /* malloc'd, NUL-terminated */
    size_t len;     /* without the NUL */
    unsigned arch;
};

/* Select and decompress the newest PTX entry with arch <= sm (arch-specific "a" entries only
 * when arch == sm). Returns 0 with *out filled; -1 with a one-line explanation in err when
 * there is no usable PTX (SASS only: names the -gencode flag to add; only newer PTX: says so;
 * corrupt data). */
int fatbin_select_ptx(const void *container, unsigned sm, struct fatbin_ptx *out, char *err,
                      size_t errlen);

/* Decompress an LZ4 block-format buffer. Returns bytes written, or -1 when src is malformed
 * or would overflow dst. Exposed for tests. */
long fatbin_lz4_decode(const uint8_t *src, size_t srclen, uint8_t *dst, size_t dstcap);

/* Print one line per entry (kind, arch, flags, sizes) — `ptxemu fatbin` and PTXEMU_DEBUG_REG. */
void fatbin_dump(FILE *out, const void *container);

#endif
