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

/* The allocation containing [addr, addr+len), or NULL. Lock-free. */
const struct mem_alloc *mem_find(const struct mem *m, uint64_t addr, uint64_t len);
/* The allocation containing addr (any length >= 1), or NULL. Used for error reports
 * ("address is 4 bytes past the end of a 1024-byte allocation at …"). */
const struct mem_alloc *mem_nearest(const struct mem *m, uint64_t addr);

/* A small per-warp cache of the last allocation hit, so a coalesced access costs one compare:
 * if (a - c->lo <= c->span - width) the access is in bounds. */
struct mem_cache {
    uint64_t lo;
    uint64_t span; /* size of the cached allocation (0 = empty: every test fails) */
    uint32_t flags;
};

/* Validate [addr, addr+width) against the store, refreshing *c on a hit. true if valid. */
bool mem_check(const struct mem *m, struct mem_cache *c, uint64_t addr, unsigned width);

/* Host-side copies for the runtime (bounds-checked): 0 or -EFAULT. */
int mem_read(const struct mem *m, void *dst, uint64_t src, uint64_t len);
int mem_write(struct mem *m, uint64_t dst, const void *src, uint64_t len);
int mem_set(struct mem *m, uint64_t dst, int byte, uint64_t len);

/* Bytes currently allocated with MEM_F_DEVICE|MEM_F_MANAGED (cudaMemGetInfo). */
uint64_t mem_used(const struct mem *m);

#endif
