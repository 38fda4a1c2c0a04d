/*
 * timing/icnt.c — the interconnect between SMs and memory sub-partitions (timing/icnt.h):
 * the packet pool and per-node delivery queues every network shares, GPGPU-Sim's local
 * crossbar (-network_mode 2), and the front of the BookSim-style networks (-network_mode 1,
 * whose reader and routers are in icnt_booksim.c).
 *
 * The crossbar (per subnet, as GPGPU-Sim's xbar_router): an input buffer per source node of
 * -icnt_in_buffer_limit packets, an output buffer per destination of -icnt_out_buffer_limit
 * packets (the node's delivery queue: packets wait there until popped, plus those crossing
 * towards it). Each cycle the free outputs are matched with the free inputs whose oldest
 * packet is addressed to them; a matched pair then moves one flit per cycle, so a packet of
 * F flits holds its input and its output F cycles and is delivered (visible to tm_icnt_peek)
 * at the end of the F-th. Matching:
 *   -icnt_arbiter_algo 1 (iSLIP): each output grants the requesting input nearest at or after
 *   its pointer and the pointer moves one past the granted input (every -icnt_grant_cycles-th
 *   cycle with requests, as GPGPU-Sim counts grant cycles). An input requests one output only
 *   (its FIFO's head), so the accept step is trivially satisfied. GPGPU-Sim starts the search
 *   strictly after the pointer (std::upper_bound), which with the pointer already one past
 *   the granted input skips the next input and lets two inputs of one output starve the
 *   second; this is McKeown's iSLIP instead.
 *   -icnt_arbiter_algo 0 (round robin): the inputs are visited from a start that advances by
 *   one node every cycle (over SM and memory nodes, as GPGPU-Sim), each taking its head's
 *   output if no earlier input did: the nearest requester after the start wins.
 * A full input buffer refuses pushes; a full output buffer refuses grants, so a node that
 * does not pop stalls its senders. Cost: only input ports with packets are visited; a cycle
 * with nothing in flight returns after counting it.
 *
 * The hierarchical crossbar (-network_mode 3) is the same crossbar over ports instead of
 * nodes: the SMs of a TPC (-ptxemu_icnt_sms_per_tpc, 2 by default; 1 gives every SM its
 * port, as mode 2) share one port each way (taking turns, round robin), memory nodes have
 * one each. The L2 is split in two partitions (A100, H100):
 *   - SM → partition: SM s is in GPC g = s / -ptxemu_icnt_sms_per_gpc; with
 *     -ptxemu_icnt_gpc_interleave 0 the first half of the GPCs (2g < n_gpc) is near partition
 *     0 and the rest near partition 1, with 1 GPC g is near partition g mod 2;
 *   - address → partition: the address decoder names the sub-partition (its slice) and so the
 *     channel c = j / -gpgpu_n_sub_partition_per_mchannel of memory node j; with
 *     -ptxemu_icnt_mem_interleave 0 channel c is in partition 2c / -gpgpu_n_mem (halves), with
 *     1 in c mod 2.
 * A packet between an SM and a slice of the other partition (either way) takes the far link
 * after the crossbar: -ptxemu_icnt_far_latency cycles, and with -ptxemu_icnt_far_flits F > 0 a
 * link per direction and subnet that starts one packet at a time, F flits per cycle (a packet
 * of f flits holds it ceil(f / F) cycles and arrives ceil(f / F) - 1 + latency cycles after it
 * started); the packet counts against the destination's output buffer until it arrives.
 * Counters: request packets to a near and to a far slice, reply packets from a far slice, the
 * cycles far packets waited for their link.
 */
#include "timing/icnt_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ shared pieces */

/* A free packet slot (a new 256-packet chunk when none is left), or IC_NIL. */
uint32_t ic_pool_get(struct ic_pool *p)
{
    if (p->free == IC_NIL) {
        if (p->nchunk == p->cap_chunk) {
            uint32_t nc = p->cap_chunk ? p->cap_chunk * 2 : 8;
            struct ic_pkt **c = realloc(p->chunk, nc * sizeof *c);
            if (!c)
                return IC_NIL;
            p->chunk = c;
            p->cap_chunk = nc;
        }
        struct ic_pkt *blk = malloc(sizeof *blk << IC_CHUNK_BITS);
        if (!blk)
            return IC_NIL;
        p->chunk[p->nchunk] = blk;
        uint32_t base = p->nchunk++ << IC_CHUNK_BITS;
        for (uint32_t j = (1u << IC_CHUNK_BITS); j-- > 0;) {
            blk[j].next = p->free;
            p->free = base + j;
        }
    }
    uint32_t i = p->free;
    p->free = ic_pkt(p, i)->next;
    p->live++;
    return i;
}

/* Return a packet slot. */
void ic_pool_put(struct ic_pool *p, uint32_t i)
{
    ic_pkt(p, i)->next = p->free;
    p->free = i;
    p->live--;
}

/* Free every chunk. */
void ic_pool_free(struct ic_pool *p)
{
    for (uint32_t c = 0; c < p->nchunk; c++)
        free(p->chunk[c]);
    free(p->chunk);
    memset(p, 0, sizeof *p);
    p->free = IC_NIL;
}

/* Append packet i (it may be in no other queue). */
void ic_fifo_push(struct ic_fifo *q, const struct ic_pool *p, uint32_t i)
{
    ic_pkt(p, i)->next = IC_NIL;
    if (q->tail == IC_NIL)
        q->head = i;
    else
        ic_pkt(p, q->tail)->next = i;
    q->tail = i;
    q->n++;
}

/* Remove and return the oldest packet, or IC_NIL. */
uint32_t ic_fifo_pop(struct ic_fifo *q, const struct ic_pool *p)
{
    uint32_t i = q->head;
    if (i == IC_NIL)
        return IC_NIL;
    q->head = ic_pkt(p, i)->next;
    if (q->head == IC_NIL)
        q->tail = IC_NIL;
    q->n--;
    return i;
}

static void errf(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------ the crossbars */

/* One subnet of the crossbar. Inputs and outputs are ports: a port per node in mode 2; in
 * mode 3 the SMs of a TPC share one port each way (the TPC's link), memory nodes have
 * their own. */
struct xbar {
    struct ic_fifo *in;  /* per node: packets waiting at its input */
    uint32_t *cur;       /* per port: packet crossing from this input port, IC_NIL */
    uint64_t *done;      /* … the cycle its last flit crosses */
    uint8_t *pick;       /* per port: the member node whose turn is next (TPC round robin) */
    uint32_t *req;       /* per port: the member node requesting this cycle (scratch) */
    uint8_t *out_busy;   /* per port: an input is sending to this output */
    uint32_t *resv;      /* per port: packets crossing towards this output (or the far hop) */
    uint32_t *ptr;       /* per port: iSLIP pointer of this output */
    uint32_t *best;      /* per port: the winning requester this cycle (scratch) */
    uint32_t *touched, ntouched;
    uint32_t *active, nactive; /* input ports with a packet waiting or crossing */
    uint8_t *is_active;
    struct ic_fifo far[2]; /* mode 3: packets on the far link leaving partition 0 / 1 */
    uint64_t far_free[2];  /* … the first cycle that link may start a packet */
    uint32_t grant_count;
};

struct tm_icnt {
    int mode;                 /* -network_mode */
    uint32_t n_sm, n_mem, n_nodes, nsub;
    uint32_t flit_size;
    uint32_t in_limit, out_limit, algo, grant_cycles;
    uint64_t now;             /* icnt cycles simulated */
    uint64_t *stats;          /* TM_IS__COUNT; behind a pointer so can_push (const) counts */
    struct ic_pool pool;
    struct ic_fifo *deliver;  /* per node: delivered, not yet popped */
    uint32_t *waiting;        /* per node: flits of those */
    uint64_t in_network;      /* packets pushed and not yet delivered */
    /* crossbars (modes 2 and 3) */
    uint32_t nports;
    uint32_t *port_of;        /* per node: its port */
    uint32_t *port_first;     /* per port: its first node */
    uint8_t *port_cnt;        /* per port: how many nodes share it */
    uint32_t *port_pkts;      /* per port: delivered packets not yet popped */
    uint32_t sms_per_gpc, sms_per_tpc, n_gpc, far_lat, far_flits;
    uint32_t gpc_ilv, mem_ilv, sub_per_ch, n_ch;
    struct xbar xb[2];
    /* BookSim (mode 1) */
    struct ic_bs_net *bs[2];
    struct ic_bs_cfg bcfg;
    uint32_t *map;            /* GPU node -> network node */
    char desc[512];
};

static uint32_t subnet_from(const struct tm_icnt *n, uint32_t src)
{
    return n->nsub > 1 && src >= n->n_sm ? 1 : 0;
}

static uint32_t flits_of(const struct tm_icnt *n, uint32_t bytes)
{
    uint32_t f = (bytes + n->flit_size - 1) / n->flit_size;
    return f ? f : 1;
}

/* Mode 3: the L2 partition of a node (see the file comment): an SM's by its GPC, a memory
 * node's by its channel. */
static uint32_t half_of(const struct tm_icnt *n, uint32_t node)
{
    if (node < n->n_sm) {
        uint32_t g = node / n->sms_per_gpc;
        return n->gpc_ilv ? g % 2 : 2 * g / n->n_gpc;
    }
    uint32_t c = (node - n->n_sm) / n->sub_per_ch;
    return n->mem_ilv ? c % 2 : (uint32_t)(2 * (uint64_t)c / n->n_ch);
}

static void xbar_free(struct xbar *x)
{
    free(x->in);
    free(x->cur);
    free(x->done);
    free(x->pick);
    free(x->req);
    free(x->out_busy);
    free(x->resv);
    free(x->ptr);
    free(x->best);
    free(x->touched);
    free(x->active);
    free(x->is_active);
    memset(x, 0, sizeof *x);
}

static int xbar_init(struct xbar *x, uint32_t nodes, uint32_t ports, uint32_t grant_cycles)
{
    x->in = calloc(nodes, sizeof *x->in);
    x->cur = malloc(ports * sizeof *x->cur);
    x->done = calloc(ports, sizeof *x->done);
    x->pick = calloc(ports, 1);
    x->req = calloc(ports, sizeof *x->req);
    x->out_busy = calloc(ports, 1);
    x->resv = calloc(ports, sizeof *x->resv);
    x->ptr = calloc(ports, sizeof *x->ptr);
    x->best = malloc(ports * sizeof *x->best);
    x->touched = malloc(ports * sizeof *x->touched);
    x->active = malloc(ports * sizeof *x->active);
    x->is_active = calloc(ports, 1);
    if (!x->in || !x->cur || !x->done || !x->pick || !x->req || !x->out_busy || !x->resv ||
        !x->ptr || !x->best || !x->touched || !x->active || !x->is_active) {
        xbar_free(x);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < nodes; i++)
        ic_fifo_init(&x->in[i]);
    for (uint32_t i = 0; i < ports; i++) {
        x->cur[i] = IC_NIL;
        x->best[i] = IC_NIL;
    }
    ic_fifo_init(&x->far[0]);
    ic_fifo_init(&x->far[1]);
    x->grant_count = grant_cycles;
    return 0;
}

/* The packet pool, for icnt_booksim.c. */
struct ic_pool *ic_pool_of(struct tm_icnt *n)
{
    return &n->pool;
}

/* Flits delivered to node and not yet popped (BookSim's boundary buffer reads it). */
uint32_t ic_waiting(const struct tm_icnt *n, uint32_t node)
{
    return n->waiting[node];
}

/* Packet p reached its destination: count its latency, queue it for tm_icnt_peek. */
void ic_deliver(struct tm_icnt *n, uint32_t p)
{
    struct ic_pkt *k = ic_pkt(&n->pool, p);
    uint64_t lat = n->now - k->t_inject;
    n->stats[k->rep ? TM_IS_LAT_SUM_REP : TM_IS_LAT_SUM_REQ] += lat;
    uint64_t *mx = &n->stats[k->rep ? TM_IS_LAT_MAX_REP : TM_IS_LAT_MAX_REQ];
    if (lat > *mx)
        *mx = lat;
    ic_fifo_push(&n->deliver[k->dst], &n->pool, p);
    n->waiting[k->dst] += k->nflits;
    if (n->port_pkts)
        n->port_pkts[n->port_of[k->dst]]++;
    n->in_network--;
}

/* One cycle of one crossbar subnet (see the file comment). */
static void xbar_cycle(struct tm_icnt *n, struct xbar *x)
{
    uint32_t N = n->nports;
    bool islip = n->algo == 1;
    uint32_t start = (uint32_t)((n->now - 1) % N); /* round robin's start this cycle */
    bool requests = false;

    /* requests: every free input port with a waiting packet asks for its head's output; a
     * shared (TPC) port takes its members in turn */
    for (uint32_t a = 0; a < x->nactive; a++) {
        uint32_t i = x->active[a];
        if (x->cur[i] != IC_NIL)
            continue;
        uint32_t m = IC_NIL, cnt = n->port_cnt[i];
        for (uint32_t j = 0; j < cnt && m == IC_NIL; j++) {
            uint32_t node = n->port_first[i] + (x->pick[i] + j) % cnt;
            if (x->in[node].n)
                m = node;
        }
        if (m == IC_NIL)
            continue;
        requests = true;
        x->req[i] = m;
        uint32_t d = n->port_of[ic_pkt(&n->pool, x->in[m].head)->dst];
        if (x->out_busy[d])
            continue;
        uint32_t base = islip ? x->ptr[d] : start;
        if (x->best[d] == IC_NIL) {
            x->touched[x->ntouched++] = d;
            x->best[d] = i;
        } else if ((i + N - base) % N < (x->best[d] + N - base) % N) {
            x->best[d] = i;
        }
    }
    /* grants: every requested output with room takes its winner */
    for (uint32_t t = 0; t < x->ntouched; t++) {
        uint32_t d = x->touched[t], i = x->best[d];
        x->best[d] = IC_NIL;
        if (n->port_pkts[d] + x->resv[d] >= n->out_limit)
            continue;
        uint32_t m = x->req[i];
        uint32_t p = ic_fifo_pop(&x->in[m], &n->pool);
        x->pick[i] = (uint8_t)((m - n->port_first[i] + 1) % n->port_cnt[i]);
        x->cur[i] = p;
        x->done[i] = n->now + ic_pkt(&n->pool, p)->nflits - 1;
        x->out_busy[d] = 1;
        x->resv[d]++;
        if (islip && x->grant_count == 1)
            x->ptr[d] = (i + 1) % N;
    }
    x->ntouched = 0;
    if (islip && requests)
        x->grant_count = x->grant_count == 1 ? n->grant_cycles : x->grant_count - 1;

    /* transfers whose last flit crosses this cycle deliver (or take the far hop); idle
     * input ports leave the list */
    uint32_t keep = 0;
    for (uint32_t a = 0; a < x->nactive; a++) {
        uint32_t i = x->active[a];
        if (x->cur[i] != IC_NIL && x->done[i] == n->now) {
            uint32_t p = x->cur[i];
            struct ic_pkt *k = ic_pkt(&n->pool, p);
            uint32_t d = n->port_of[k->dst];
            x->cur[i] = IC_NIL;
            x->out_busy[d] = 0;
            uint32_t h = n->mode == 3 ? half_of(n, k->src) : 0;
            if (n->mode == 3 && h != half_of(n, k->dst) && (n->far_lat || n->far_flits)) {
                uint64_t start = n->now, hold = 1;
                if (n->far_flits) {
                    if (x->far_free[h] > start)
                        start = x->far_free[h];
                    hold = (k->nflits + n->far_flits - 1) / n->far_flits;
                    x->far_free[h] = start + hold;
                    n->stats[TM_IS_FAR_WAIT] += start - n->now;
                }
                k->t_due = start + hold - 1 + n->far_lat;
                ic_fifo_push(&x->far[h], &n->pool, p);
            } else {
                x->resv[d]--;
                ic_deliver(n, p);
            }
        }
        bool more = x->cur[i] != IC_NIL;
        for (uint32_t j = 0; j < n->port_cnt[i] && !more; j++)
            more = x->in[n->port_first[i] + j].n != 0;
        if (more)
            x->active[keep++] = i;
        else
            x->is_active[i] = 0;
    }
    x->nactive = keep;
    /* the far links: each starts its packets in order and delays them alike, so its queue
     * is in time order */
    for (uint32_t h = 0; h < 2; h++)
        while (x->far[h].n && ic_pkt(&n->pool, x->far[h].head)->t_due <= n->now) {
            uint32_t p = ic_fifo_pop(&x->far[h], &n->pool);
            x->resv[n->port_of[ic_pkt(&n->pool, p)->dst]]--;
            ic_deliver(n, p);
        }
}

/* Ports of the crossbar: mode 2 one per node; mode 3 one per TPC (SMs kt … kt+k-1, k =
 * -ptxemu_icnt_sms_per_tpc) and one per memory node. */
static int ports_init(struct tm_icnt *n)
{
    uint32_t k = n->mode == 3 ? n->sms_per_tpc : 1;
    uint32_t ntpc = (n->n_sm + k - 1) / k;
    n->nports = ntpc + n->n_mem;
    n->port_of = malloc(n->n_nodes * sizeof *n->port_of);
    n->port_first = malloc(n->nports * sizeof *n->port_first);
    n->port_cnt = malloc(n->nports);
    n->port_pkts = calloc(n->nports, sizeof *n->port_pkts);
    if (!n->port_of || !n->port_first || !n->port_cnt || !n->port_pkts)
        return -ENOMEM;
    for (uint32_t i = 0; i < n->n_nodes; i++)
        n->port_of[i] = i < n->n_sm ? i / k : ntpc + (i - n->n_sm);
    for (uint32_t p = 0; p < n->nports; p++) {
        if (p < ntpc) {
            n->port_first[p] = k * p;
            n->port_cnt[p] = (uint8_t)(k * p + k <= n->n_sm ? k : n->n_sm - k * p);
        } else {
            n->port_first[p] = n->n_sm + (p - ntpc);
            n->port_cnt[p] = 1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ the interface */

/* Open `file` (relative: under base_dir first) and parse it into n->bcfg. */
static int read_booksim(struct tm_icnt *n, const char *file, const char *base_dir,
                        char *path, size_t pathlen, char *err, size_t errlen)
{
    snprintf(path, pathlen, "%s", file);
    if (file[0] != '/' && base_dir && *base_dir) {
        char cand[4096];
        snprintf(cand, sizeof cand, "%s/%s", base_dir, file);
        FILE *f = fopen(cand, "r");
        if (f) {
            fclose(f);
            snprintf(path, pathlen, "%s", cand);
        }
    }
    return ic_bs_parse_file(&n->bcfg, path, stderr, err, errlen);
}

static int create_booksim(struct tm_icnt *n, const struct tm_config *cfg, const char *base_dir,
                          char *err, size_t errlen)
{
    const char *file = cfg->o.inter_config_file;
    if (!file || !*file) {
        errf(err, errlen, "-network_mode 1 needs -inter_config_file");
        return -EINVAL;
    }
    char path[4096];
    int rc = read_booksim(n, file, base_dir, path, sizeof path, err, errlen);
    if (rc)
        return rc;
    if (n->bcfg.flit_size < 0 || n->bcfg.flit_size > 65536) {
        errf(err, errlen, "%s: flit_size = %d: 1 to 65536 bytes", path, n->bcfg.flit_size);
        return -EINVAL;
    }
    if (n->bcfg.flit_size)
        n->flit_size = (uint32_t)n->bcfg.flit_size;
    if (n->bcfg.subnets)
        n->nsub = (uint32_t)n->bcfg.subnets;
    if (n->bcfg.subnets < 0 || (n->nsub != 1 && n->nsub != 2)) {
        errf(err, errlen, "%s: subnets = %d: 1 or 2 subnetworks", path, n->bcfg.subnets);
        return -EINVAL;
    }
    uint32_t nn = ic_bs_cfg_nodes(&n->bcfg);
    if (nn < n->n_nodes) {
        errf(err, errlen, "%s: the %s network has %u nodes; %u SMs and %u memory nodes need %u",
             path, n->bcfg.topology, nn, n->n_sm, n->n_mem, n->n_nodes);
        return -EINVAL;
    }
    n->map = malloc(n->n_nodes * sizeof *n->map);
    if (!n->map)
        return -ENOMEM;
    /* the networks check topology and routing first; the map they keep is filled after */
    for (uint32_t s = 0; s < n->nsub; s++) {
        rc = ic_bs_net_create(&n->bs[s], &n->bcfg, path, n->map, n->n_nodes, err, errlen);
        if (rc)
            return rc;
    }
    rc = ic_bs_node_map(&n->bcfg, path, n->n_sm, n->n_mem, n->map, err, errlen);
    if (rc)
        return rc;
    const struct ic_bs_cfg *b = &n->bcfg;
    const char *slash = strrchr(path, '/');
    char shape[48];
    if (!strcmp(b->topology, "crossbar"))
        snprintf(shape, sizeof shape, "%dx%d", b->k, b->k);
    else if (!strcmp(b->topology, "fly"))
        snprintf(shape, sizeof shape, "%d-ary %d-fly", b->k, b->n);
    else
        snprintf(shape, sizeof shape, "%d-ary %d-cube%s", b->k, b->n,
                 b->c > 1 ? " concentrated" : "");
    snprintf(n->desc, sizeof n->desc,
             "booksim %s %s (%.200s), %u SMs + %u memory nodes, %u subnet%s, %d VCs x %d flits, "
             "%u-byte flits",
             b->topology, shape, slash ? slash + 1 : path, n->n_sm, n->n_mem, n->nsub,
             n->nsub > 1 ? "s" : "", b->num_vcs, b->vc_buf_size, n->flit_size);
    return 0;
}

/* Build the network cfg chooses (see icnt.h). */
int tm_icnt_create(struct tm_icnt **out, const struct tm_config *cfg, uint32_t n_sm,
                   uint32_t n_mem, const char *base_dir, char *err, size_t errlen)
{
    *out = NULL;
    const struct tm_options *o = &cfg->o;
    if (!n_sm || !n_mem) {
        errf(err, errlen, "interconnect: %u SMs and %u memory nodes", n_sm, n_mem);
        return -EINVAL;
    }
    if (o->network_mode < 1 || o->network_mode > 3) {
        errf(err, errlen, "-network_mode %lld: 1 (BookSim network), 2 (crossbar) or 3 "
             "(hierarchical crossbar)", (long long)o->network_mode);
        return -EINVAL;
    }
    if (o->icnt_flit_size < 1 || o->icnt_flit_size > 65536) {
        errf(err, errlen, "-icnt_flit_size %lld: 1 to 65536 bytes", (long long)o->icnt_flit_size);
        return -EINVAL;
    }
    if (o->icnt_subnets != 1 && o->icnt_subnets != 2) {
        errf(err, errlen, "-icnt_subnets %lld: 1 or 2", (long long)o->icnt_subnets);
        return -EINVAL;
    }
    if (o->network_mode >= 2) {
        if (o->icnt_in_buffer_limit < 1 || o->icnt_out_buffer_limit < 1 ||
            o->icnt_in_buffer_limit > UINT32_MAX || o->icnt_out_buffer_limit > UINT32_MAX) {
            errf(err, errlen, "-icnt_in_buffer_limit %lld / -icnt_out_buffer_limit %lld: at "
                 "least 1 packet", (long long)o->icnt_in_buffer_limit,
                 (long long)o->icnt_out_buffer_limit);
            return -EINVAL;
        }
        if (o->icnt_arbiter_algo != 0 && o->icnt_arbiter_algo != 1) {
            errf(err, errlen, "-icnt_arbiter_algo %lld: 0 (round robin) or 1 (iSLIP)",
                 (long long)o->icnt_arbiter_algo);
            return -EINVAL;
        }
        if (o->icnt_grant_cycles < 1 || o->icnt_grant_cycles > UINT32_MAX) {
            errf(err, errlen, "-icnt_grant_cycles %lld: at least 1",
                 (long long)o->icnt_grant_cycles);
            return -EINVAL;
        }
    }
    if (o->network_mode == 3 &&
        (o->ptxemu_icnt_sms_per_gpc < 1 || o->ptxemu_icnt_sms_per_gpc > UINT32_MAX ||
         o->ptxemu_icnt_far_latency < 0 || o->ptxemu_icnt_far_latency > 1000000)) {
        errf(err, errlen, "-ptxemu_icnt_sms_per_gpc %lld / -ptxemu_icnt_far_latency %lld: at "
             "least 1 SM / 0 to 1000000 cycles", (long long)o->ptxemu_icnt_sms_per_gpc,
             (long long)o->ptxemu_icnt_far_latency);
        return -EINVAL;
    }
    if (o->network_mode == 3 &&
        ((o->ptxemu_icnt_gpc_interleave != 0 && o->ptxemu_icnt_gpc_interleave != 1) ||
         (o->ptxemu_icnt_mem_interleave != 0 && o->ptxemu_icnt_mem_interleave != 1) ||
         o->ptxemu_icnt_far_flits < 0 || o->ptxemu_icnt_far_flits > 65536 ||
         o->ptxemu_icnt_sms_per_tpc < 1 || o->ptxemu_icnt_sms_per_tpc > 32)) {
        errf(err, errlen, "-ptxemu_icnt_gpc_interleave %lld / -ptxemu_icnt_mem_interleave %lld / "
             "-ptxemu_icnt_far_flits %lld / -ptxemu_icnt_sms_per_tpc %lld: 0 (halves) or 1 "
             "(alternating) / the same / 0 (unlimited) to 65536 flits per cycle / 1 to 32 SMs",
             (long long)o->ptxemu_icnt_gpc_interleave, (long long)o->ptxemu_icnt_mem_interleave,
             (long long)o->ptxemu_icnt_far_flits, (long long)o->ptxemu_icnt_sms_per_tpc);
        return -EINVAL;
    }
    struct tm_icnt *n = calloc(1, sizeof *n);
    if (!n)
        return -ENOMEM;
    n->mode = (int)o->network_mode;
    n->n_sm = n_sm;
    n->n_mem = n_mem;
    n->n_nodes = n_sm + n_mem;
    n->nsub = (uint32_t)o->icnt_subnets;
    n->flit_size = (uint32_t)o->icnt_flit_size;
    n->in_limit = (uint32_t)o->icnt_in_buffer_limit;
    n->out_limit = (uint32_t)o->icnt_out_buffer_limit;
    n->algo = (uint32_t)o->icnt_arbiter_algo;
    n->grant_cycles = (uint32_t)o->icnt_grant_cycles;
    n->pool.free = IC_NIL;
    n->stats = calloc(TM_IS__COUNT, sizeof *n->stats);
    n->deliver = malloc(n->n_nodes * sizeof *n->deliver);
    n->waiting = calloc(n->n_nodes, sizeof *n->waiting);
    int rc = 0;
    if (!n->stats || !n->deliver || !n->waiting) {
        rc = -ENOMEM;
        goto fail;
    }
    for (uint32_t i = 0; i < n->n_nodes; i++)
        ic_fifo_init(&n->deliver[i]);
    if (n->mode >= 2) {
        if (n->mode == 3) {
            n->sms_per_gpc = (uint32_t)o->ptxemu_icnt_sms_per_gpc;
            n->sms_per_tpc = (uint32_t)o->ptxemu_icnt_sms_per_tpc;
            n->n_gpc = (n_sm + n->sms_per_gpc - 1) / n->sms_per_gpc;
            n->far_lat = (uint32_t)o->ptxemu_icnt_far_latency;
            n->far_flits = (uint32_t)o->ptxemu_icnt_far_flits;
            n->gpc_ilv = (uint32_t)o->ptxemu_icnt_gpc_interleave;
            n->mem_ilv = (uint32_t)o->ptxemu_icnt_mem_interleave;
            /* the memory nodes are the slices, -gpgpu_n_sub_partition_per_mchannel per channel
             * (one per channel when that does not divide them: a caller's own count) */
            int64_t spc = o->gpgpu_n_sub_partition_per_mchannel;
            n->sub_per_ch = spc >= 1 && spc <= n_mem && n_mem % (uint32_t)spc == 0
                                ? (uint32_t)spc : 1;
            n->n_ch = n_mem / n->sub_per_ch;
        }
        if ((rc = ports_init(n)))
            goto fail;
        for (uint32_t s = 0; s < n->nsub; s++)
            if ((rc = xbar_init(&n->xb[s], n->n_nodes, n->nports, n->grant_cycles)))
                goto fail;
        const char *arb = n->algo ? "iSLIP" : "round robin";
        if (n->mode == 2)
            snprintf(n->desc, sizeof n->desc,
                     "crossbar %ux%u, %u subnet%s, %s, %u-byte flits, buffers %u/%u packets",
                     n_sm, n_mem, n->nsub, n->nsub > 1 ? "s" : "", arb, n->flit_size,
                     n->in_limit, n->out_limit);
        else {
            char width[32];
            if (n->far_flits)
                snprintf(width, sizeof width, "%u flit%s/cycle", n->far_flits,
                         n->far_flits > 1 ? "s" : "");
            else
                snprintf(width, sizeof width, "unlimited width");
            snprintf(n->desc, sizeof n->desc,
                     "hierarchical crossbar: %u SMs in %u TPCs, %u GPC%s of %u SMs, 2 L2 "
                     "partitions of %u memory nodes (GPCs %s, channels %s), far link %u cycles, "
                     "%s, %u subnet%s, %s, %u-byte flits, buffers %u/%u packets",
                     n_sm, (n_sm + n->sms_per_tpc - 1) / n->sms_per_tpc, n->n_gpc, n->n_gpc > 1 ? "s" : "", n->sms_per_gpc,
                     n_mem, n->gpc_ilv ? "alternating" : "in halves",
                     n->mem_ilv ? "alternating" : "in halves", n->far_lat, width, n->nsub,
                     n->nsub > 1 ? "s" : "", arb, n->flit_size, n->in_limit, n->out_limit);
        }
    } else {
        if ((rc = create_booksim(n, cfg, base_dir, err, errlen)))
            goto fail;
    }
    *out = n;
    return 0;
fail:
    if (rc == -ENOMEM)
        errf(err, errlen, "interconnect: out of memory");
    tm_icnt_destroy(n);
    return rc;
}

/* Free everything the network owns (NULL is fine). */
void tm_icnt_destroy(struct tm_icnt *n)
{
    if (!n)
        return;
    for (uint32_t s = 0; s < 2; s++) {
        xbar_free(&n->xb[s]);
        ic_bs_net_destroy(n->bs[s]);
    }
    ic_bs_cfg_free(&n->bcfg);
    free(n->map);
    free(n->port_of);
    free(n->port_first);
    free(n->port_cnt);
    free(n->port_pkts);
    ic_pool_free(&n->pool);
    free(n->deliver);
    free(n->waiting);
    free(n->stats);
    free(n);
}

/* Room at src's input for a packet of `bytes`: crossbar, one packet in the input buffer
 * (GPGPU-Sim counts packets there); BookSim, its flits in the injection queue. A refusal is
 * counted (TM_IS_PUSH_REFUSED). */
bool tm_icnt_can_push(const struct tm_icnt *n, uint32_t src, uint32_t bytes)
{
    if (src >= n->n_nodes)
        return false;
    uint32_t s = subnet_from(n, src);
    bool ok;
    if (n->mode >= 2)
        ok = n->xb[s].in[src].n < n->in_limit;
    else
        ok = ic_bs_can_inject(n->bs[s], src, flits_of(n, bytes));
    if (!ok)
        n->stats[TM_IS_PUSH_REFUSED]++;
    return ok;
}

/* Copy *r into a new packet from src to dst and queue it at src's input. */
void tm_icnt_push(struct tm_icnt *n, uint32_t src, uint32_t dst, const struct tm_req *r,
                  uint32_t bytes)
{
    if (src >= n->n_nodes || dst >= n->n_nodes)
        return;
    uint32_t p = ic_pool_get(&n->pool);
    if (p == IC_NIL)
        return; /* out of memory: the packet is lost (the caller checked can_push) */
    struct ic_pkt *k = ic_pkt(&n->pool, p);
    k->req = *r;
    k->t_inject = n->now;
    k->src = src;
    k->dst = dst;
    k->nflits = flits_of(n, bytes);
    k->subnet = (uint8_t)subnet_from(n, src);
    k->rep = src >= n->n_sm;
    if (n->mode == 3) { /* near and far L2 accesses (requests), far replies */
        bool far = half_of(n, src) != half_of(n, dst);
        if (!k->rep)
            n->stats[far ? TM_IS_L2_FAR_REQ : TM_IS_L2_NEAR_REQ]++;
        else if (far)
            n->stats[TM_IS_L2_FAR_REP]++;
    }
    n->stats[k->rep ? TM_IS_PACKETS_REP : TM_IS_PACKETS_REQ]++;
    n->stats[k->rep ? TM_IS_FLITS_REP : TM_IS_FLITS_REQ] += k->nflits;
    n->in_network++;
    if (n->mode >= 2) {
        struct xbar *x = &n->xb[k->subnet];
        uint32_t port = n->port_of[src];
        ic_fifo_push(&x->in[src], &n->pool, p);
        if (!x->is_active[port]) {
            x->is_active[port] = 1;
            x->active[x->nactive++] = port;
        }
    } else {
        ic_bs_inject(n->bs[k->subnet], &n->pool, p);
    }
}

/* The oldest packet delivered to dst (valid until it is popped). */
const struct tm_req *tm_icnt_peek(const struct tm_icnt *n, uint32_t dst)
{
    if (dst >= n->n_nodes || n->deliver[dst].head == IC_NIL)
        return NULL;
    return &ic_pkt(&n->pool, n->deliver[dst].head)->req;
}

/* Remove the packet tm_icnt_peek shows (frees room in dst's output/boundary buffer). */
void tm_icnt_pop(struct tm_icnt *n, uint32_t dst)
{
    if (dst >= n->n_nodes)
        return;
    uint32_t p = ic_fifo_pop(&n->deliver[dst], &n->pool);
    if (p == IC_NIL)
        return;
    n->waiting[dst] -= ic_pkt(&n->pool, p)->nflits;
    if (n->port_pkts)
        n->port_pkts[n->port_of[dst]]--;
    ic_pool_put(&n->pool, p);
}

/* One interconnect clock: every subnet advances once. */
void tm_icnt_cycle(struct tm_icnt *n)
{
    n->now++;
    if (n->mode >= 2) {
        if (!n->in_network)
            return;
        n->stats[TM_IS_CYCLES]++;
        for (uint32_t s = 0; s < n->nsub; s++)
            if (n->xb[s].nactive || n->xb[s].far[0].n || n->xb[s].far[1].n)
                xbar_cycle(n, &n->xb[s]);
        return;
    }
    bool any = false;
    for (uint32_t s = 0; s < n->nsub; s++) {
        if (!ic_bs_busy(n->bs[s]))
            continue;
        any |= ic_bs_cycle(n->bs[s], n, n->now);
    }
    if (any)
        n->stats[TM_IS_CYCLES]++;
}

void tm_icnt_idle_cycles(struct tm_icnt *n, uint64_t cycles)
{
    /* nothing in flight: a clock only advances the network's time (no subnet is busy, no
     * cycle with a flit counts) */
    n->now += cycles;
}

/* Anything in flight or waiting to be popped. */
bool tm_icnt_busy(const struct tm_icnt *n)
{
    return n->pool.live != 0;
}

/* The counters (enum tm_icnt_stat). */
const uint64_t *tm_icnt_stats(const struct tm_icnt *n)
{
    return n->stats;
}

/* Whether the network splits the L2 in two partitions (network_mode 3). */
bool tm_icnt_partitioned(const struct tm_icnt *n)
{
    return n->mode == 3;
}

/* One line naming the network and its parameters. */
const char *tm_icnt_describe(const struct tm_icnt *n)
{
    return n->desc;
}
