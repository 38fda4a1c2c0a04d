/*
 * interp/mem.h — device memory: a hashed paged store of allocations.
 *
 * Device addresses ARE host addresses (like CUDA's unified virtual addressing): an allocation
 * is a host block, registered page by page in a page table keyed by page number and hashed
 * with XXH3. An address is valid only inside a registered allocation (byte-precise bounds),
 * so a wild pointer is a fault, never a silent host access. Lookups are lock-free; allocation
 * and free take a writer lock (the table is republished, old tables retired until destroy).
 *
 * Generic-address windows for .shared, .local and .param are fixed ranges reserved with
 * PROT_NONE mappings at mem_create, so no allocation can ever land in them.
 */
#ifndef PTXEMU_MEM_H
#define PTXEMU_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Generic windows: an address a is in window W when a - W_BASE < W_SIZE. */
#define MEM_SHARED_BASE UINT64_C(0x0000100000000000)
#define MEM_SHARED_SIZE UINT64_C(0x0000000100000000)
#define MEM_LOCAL_BASE UINT64_C(0x0000110000000000)
#define MEM_LOCAL_SIZE UINT64_C(0x0000000100000000)
#define MEM_PARAM_BASE UINT64_C(0x0000120000000000)
#define MEM_PARAM_SIZE UINT64_C(0x0000000100000000)

enum {
    MEM_F_DEVICE = 1 << 0,   /* cudaMalloc */
    MEM_F_CONST = 1 << 1,    /* .const segment: read-only for kernels */
    MEM_F_HOST = 1 << 2,     /* pinned host memory (cudaMallocHost / HostAlloc) */
    MEM_F_MANAGED = 1 << 3,  /* cudaMallocManaged / __managed__ */
    MEM_F_REGISTERED = 1 << 4, /* cudaHostRegister: host block owned by the user */
    MEM_F_SYMBOL = 1 << 5,   /* module .global variables */
    MEM_F_HEAP = 1 << 6,     /* device malloc heap */
};

/* One allocation. */
struct mem_alloc {
    uint64_t base;   /* device address == host address of the block */
    uint64_t size;   /* bytes requested (bounds are byte-precise) */
    uint32_t flags;  /* MEM_F_* */
    uint32_t id;     /* stable id for reports */
    uint64_t canon;  /* deterministic address of the block (allocation order, 2 MiB-aligned
                        bump from 1 TiB): what the timing model decodes into channels, banks
                        and cache sets, so its results do not depend on where the host put
                        the block */
    uint8_t *init;   /* initcheck: bit per byte written since allocation (host copies and
                        memsets, kernel stores), updated atomically; NULL when not tracked */
};

struct mem;

/* Create the store and reserve the generic windows. 0 or -errno. */
int mem_create(struct mem **out);
/* Free every allocation and the store. */
void mem_destroy(struct mem *m);

/* Allocate size bytes (size 0 is allowed and returns a unique non-NULL address that no
 * access may touch), aligned to at least 256, zero-filled. 0 or -ENOMEM. */
int mem_alloc(struct mem *m, uint64_t size, uint32_t flags, uint64_t *addr);
/* Register a user-owned host block (cudaHostRegister): device address = host address. */
int mem_register(struct mem *m, void *host, uint64_t size, uint32_t flags);
/* Free / unregister the allocation starting exactly at addr. 0, or -EINVAL when addr is not the
 * start of a live allocation (cudaErrorInvalidValue / invalid device pointer). */
int mem_free(struct mem *m, uint64_t addr);

/* The allocation containing [addr, addr+len), or NULL. Lock-free. len 0 asks which allocation
 * addr belongs to: base <= addr < base + max(size, 1), so a size-0 allocation is found by its
 * own address (no access of length >= 1 ever is). */
const struct mem_alloc *mem_find(const struct mem *m, uint64_t addr, uint64_t len);
/* The allocation containing addr (any length >= 1); else the allocation closest to addr within
 * MEM_NEAREST_RANGE bytes below or above (the one below wins a tie); else NULL. Used for error
 * reports ("address is 4 bytes past the end of a 1024-byte allocation at …"). */
#define MEM_NEAREST_RANGE (UINT64_C(1) << 20)
const struct mem_alloc *mem_nearest(const struct mem *m, uint64_t addr);

/* A small per-warp cache of the last allocation hit, so a coalesced access costs one compare:
 * the access is in bounds when off = a - c->lo satisfies off + width <= c->span without
 * wrapping (equivalently off < span && span - off >= width). Note `off <= span - width` alone
 * is wrong when span < width (an empty cache, a tiny allocation): span - width wraps. */
struct mem_cache {
    uint64_t lo;
    uint64_t span; /* size of the cached allocation (0 = empty: every test fails) */
    uint32_t flags;
};

/* Validate [addr, addr+width) against the store, refreshing *c on a hit. true if valid.
 * The inline part is the cache hit: off = addr - lo, then off + width <= span with the add's
 * carry rejecting accesses that start below lo (a zeroed cache never hits). The slow path
 * (mem_check_slow) looks the page up in the table. A cache must not outlive a mem_free of the
 * allocation it holds (caches are per launch; cudaFree synchronizes the device). */
bool mem_check_slow(const struct mem *m, struct mem_cache *c, uint64_t addr, unsigned width);
static inline bool mem_check(const struct mem *m, struct mem_cache *c, uint64_t addr,
                             unsigned width)
{
    uint64_t end;
#if defined(__GNUC__)
    if (__builtin_expect(!__builtin_add_overflow(addr - c->lo, (uint64_t)width, &end) &&
                             end <= c->span,
                         1))
        return true;
#else
    end = addr - c->lo + width;
    if (end >= width && end <= c->span)
        return true;
#endif
    return mem_check_slow(m, c, addr, width);
}

/* Host-side copies for the runtime (bounds-checked): 0 or -EFAULT. */
int mem_read(const struct mem *m, void *dst, uint64_t src, uint64_t len);
int mem_write(struct mem *m, uint64_t dst, const void *src, uint64_t len);
int mem_set(struct mem *m, uint64_t dst, int byte, uint64_t len);

/* Read the NUL-terminated string at device address addr (printf formats and %s arguments,
 * assert messages): copies at most cap-1 bytes into buf and NUL-terminates it when cap > 0,
 * returning the string's full length; -EFAULT when addr is not in an allocation or the
 * allocation ends before a NUL. Same shape as printf.h's dev_printf_read_str. */
int mem_read_str(const struct mem *m, uint64_t addr, char *buf, size_t cap);

/* initcheck shadow. mem_track_init gives the allocation starting at addr its bitmap (all
 * unwritten): 0, -EINVAL, -ENOMEM. mem_mark_init records [addr, addr+len) as written in every
 * tracked allocation it touches; mem_write and mem_set do it themselves. mem_first_uninit:
 * the first never-written byte of [addr, addr+len) inside a, or UINT64_MAX. */
int mem_track_init(struct mem *m, uint64_t addr);
void mem_mark_init(const struct mem *m, uint64_t addr, uint64_t len);
uint64_t mem_first_uninit(const struct mem_alloc *a, uint64_t addr, uint64_t len);
/* Call fn for every live allocation with a flag in `flags`, in allocation order, holding the
 * store's lock (fn must not allocate or free). */
void mem_foreach(struct mem *m, uint32_t flags, void (*fn)(void *ctx, const struct mem_alloc *a),
                 void *ctx);

/* Bytes currently allocated with MEM_F_DEVICE|MEM_F_MANAGED (cudaMemGetInfo). */
uint64_t mem_used(const struct mem *m);

/* Free the page tables and records retired by earlier allocations and frees (they are kept so
 * lock-free readers never touch freed memory). Call only when no other thread can be inside a
 * mem_* lookup, e.g. between kernel launches. */
void mem_reclaim(struct mem *m);

#endif
