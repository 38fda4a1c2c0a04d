/*
 * timing/icnt_int.h — what the interconnect's two translation units share: the packet pool
 * (packets never move once allocated, so a tm_icnt_peek pointer stays valid across pushes),
 * per-node delivery queues, the counters, and the BookSim-style network (icnt_booksim.c) that
 * icnt.c's tm_icnt_create builds for -network_mode 1.
 *
 * Not a public header: timing/icnt.c, timing/icnt_booksim.c and tests/unit/icnt_test.c only.
 */
#ifndef PTXEMU_TIMING_ICNT_INT_H
#define PTXEMU_TIMING_ICNT_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "timing/icnt.h"
#include "timing/tm_int.h"

#define IC_NIL UINT32_MAX
#define IC_CHUNK_BITS 8 /* packets per pool chunk: 256 */

/* One packet in flight (or delivered and waiting to be popped). */
struct ic_pkt {
    struct tm_req req;   /* the payload, copied on push */
    uint64_t t_inject;   /* icnt cycle count when pushed */
    uint64_t t_due;      /* hierarchical crossbar: cycle it leaves the far hop */
    uint32_t src, dst;   /* GPU node numbers */
    uint32_t nflits;
    uint32_t next;       /* queue link / free list */
    uint8_t subnet;      /* network it travels (replies share subnet 0 with -icnt_subnets 1) */
    uint8_t rep;         /* sent by a memory node: counted as a reply */
};

/* Packets in fixed chunks (indices stay valid, addresses never move). */
struct ic_pool {
    struct ic_pkt **chunk;
    uint32_t nchunk, cap_chunk;
    uint32_t free;       /* free list head */
    uint32_t live;
};

static inline struct ic_pkt *ic_pkt(const struct ic_pool *p, uint32_t i)
{
    return &p->chunk[i >> IC_CHUNK_BITS][i & ((1u << IC_CHUNK_BITS) - 1)];
}
/* A new packet's index, or IC_NIL when memory runs out. */
uint32_t ic_pool_get(struct ic_pool *p);
void ic_pool_put(struct ic_pool *p, uint32_t i);
void ic_pool_free(struct ic_pool *p);

/* FIFO of packets linked through ic_pkt.next. */
struct ic_fifo {
    uint32_t head, tail, n;
};
static inline void ic_fifo_init(struct ic_fifo *q) { q->head = q->tail = IC_NIL, q->n = 0; }
void ic_fifo_push(struct ic_fifo *q, const struct ic_pool *p, uint32_t i);
uint32_t ic_fifo_pop(struct ic_fifo *q, const struct ic_pool *p);

/* icnt.c, for icnt_booksim.c: the packet pool; hand packet p to its destination's delivery
 * queue (counts its latency); flits delivered to `node` and not yet popped. */
struct ic_pool *ic_pool_of(struct tm_icnt *n);
void ic_deliver(struct tm_icnt *n, uint32_t p);
uint32_t ic_waiting(const struct tm_icnt *n, uint32_t node);

/* ------------------------------------------------------------------ BookSim-style networks */

/* A parsed BookSim configuration file (keys the router model uses; the rest are accepted). */
struct ic_bs_cfg {
    char topology[32];         /* mesh, torus, fly, crossbar */
    char routing_function[32];
    char vc_allocator[32], sw_allocator[32];
    int k, n, c;
    int num_vcs, vc_buf_size;
    int input_buffer_size, ejection_buffer_size, boundary_buffer_size;
    int wait_for_tail_credit;
    int alloc_iters;
    int credit_delay, routing_delay, vc_alloc_delay, sw_alloc_delay, st_prepare_delay,
        st_final_delay;
    int input_speedup, output_speedup;
    double internal_speedup;
    int flit_size;             /* 0: not set (the caller's -icnt_flit_size) */
    int use_map;
    int subnets;               /* 0: not set (the caller's -icnt_subnets) */
    uint32_t *memory_node_map; /* memory_node_map = {…}; NULL if absent */
    uint32_t n_memory_node_map;
    int map_line;              /* line of memory_node_map (diagnostics) */
};

/* Read BookSim's `key = value;` format from text (`name` is the file name diagnostics use).
 * Comments `//` to the end of a line; values are numbers, bare words, "strings" or {…} lists.
 * An unknown key is a warning on diag (may be NULL), "name:line: warning: unknown key 'x'
 * (ignored)", each key once. 0, or -EINVAL with "name:line: error: …" in err. */
int ic_bs_parse(struct ic_bs_cfg *c, const char *name, const char *text, FILE *diag, char *err,
                size_t errlen);
/* Read a file: 0, -ENOENT (message in err), -EINVAL, -ENOMEM. */
int ic_bs_parse_file(struct ic_bs_cfg *c, const char *path, FILE *diag, char *err,
                     size_t errlen);
void ic_bs_cfg_free(struct ic_bs_cfg *c);

struct ic_bs_net; /* one subnetwork of routers */

/* Build one subnetwork from a parsed file for GPU nodes 0…n_nodes-1 placed at network nodes
 * map[node]. `name` is the file name for diagnostics. 0; -EINVAL (err); -ENOMEM. */
int ic_bs_net_create(struct ic_bs_net **out, const struct ic_bs_cfg *c, const char *name,
                     const uint32_t *map, uint32_t n_nodes, char *err, size_t errlen);
void ic_bs_net_destroy(struct ic_bs_net *b);
/* Network nodes the topology has (k^n, c·k^n for mesh/torus). */
uint32_t ic_bs_cfg_nodes(const struct ic_bs_cfg *c);
/* Flits the injection queue of GPU node `node` still has room for. */
bool ic_bs_can_inject(const struct ic_bs_net *b, uint32_t node, uint32_t nflits);
/* Queue packet `pkt` (already in the pool) for injection at its source. */
void ic_bs_inject(struct ic_bs_net *b, const struct ic_pool *pool, uint32_t pkt);
/* One cycle at icnt time `now` (after the increment); a packet whose tail reaches its node's
 * boundary buffer is handed to ic_deliver. Returns whether a flit was in the network. */
bool ic_bs_cycle(struct ic_bs_net *b, struct tm_icnt *n, uint64_t now);
/* Flits or credits inside the network. */
bool ic_bs_busy(const struct ic_bs_net *b);
/* GPGPU-Sim's default SM/memory placement (use_map = 1) for n_sm SMs and n_mem memory
 * nodes into map[n_sm + n_mem]: memory nodes at memory_node_map or the built-in table for
 * (8,8), (28,8), (56,8), (110,11); SMs fill the other positions in order. use_map = 0:
 * sequential. 0, or -EINVAL (err) when use_map asks for a placement that does not exist. */
int ic_bs_node_map(const struct ic_bs_cfg *c, const char *name, uint32_t n_sm, uint32_t n_mem,
                   uint32_t *map, char *err, size_t errlen);

#endif
