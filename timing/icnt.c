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
 * does not pop stalls its senders. Cost: only inputs with packets are visited; a cycle with
 * nothing in flight returns after counting it.
 */
#include "timing/icnt_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ shared pieces */

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

void ic_pool_put(struct ic_pool *p, uint32_t i)
{
    ic_pkt(p, i)->next = p->free;
    p->free = i;
    p->live--;
}

void ic_pool_free(struct ic_pool *p)
{
    for (uint32_t c = 0; c < p->nchunk; c++)
        free(p->chunk[c]);
    free(p->chunk);
    memset(p, 0, sizeof *p);
    p->free = IC_NIL;
}

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

/* ------------------------------------------------------------------ the crossbar */

struct xbar {
    struct ic_fifo *in;  /* per node: packets waiting at the input */
    uint32_t *cur;       /* per node: packet crossing from this input, IC_NIL */
    uint64_t *done;      /* … the cycle its last flit crosses */
    uint8_t *out_busy;   /* per node: an input is sending to this output */
    uint32_t *resv;      /* per node: packets crossing towards this output */
    uint32_t *ptr;       /* per node: iSLIP pointer of this output */
    uint32_t *best;      /* per node: the winning requester this cycle (scratch) */
    uint32_t *touched, ntouched;
    uint32_t *active, nactive; /* inputs with a packet waiting or crossing */
    uint8_t *is_active;
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
    struct xbar xb[2];
    struct ic_bs_net *bs[2];
    struct ic_bs_cfg bcfg;
    uint32_t *map;            /* BookSim: GPU node -> network node */
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

static void xbar_free(struct xbar *x)
{
    free(x->in);
    free(x->cur);
    free(x->done);
    free(x->out_busy);
    free(x->resv);
    free(x->ptr);
    free(x->best);
    free(x->touched);
    free(x->active);
    free(x->is_active);
    memset(x, 0, sizeof *x);
}

static int xbar_init(struct xbar *x, uint32_t nodes, uint32_t grant_cycles)
{
    x->in = calloc(nodes, sizeof *x->in);
    x->cur = malloc(nodes * sizeof *x->cur);
    x->done = calloc(nodes, sizeof *x->done);
    x->out_busy = calloc(nodes, 1);
    x->resv = calloc(nodes, sizeof *x->resv);
    x->ptr = calloc(nodes, sizeof *x->ptr);
    x->best = malloc(nodes * sizeof *x->best);
    x->touched = malloc(nodes * sizeof *x->touched);
    x->active = malloc(nodes * sizeof *x->active);
    x->is_active = calloc(nodes, 1);
    if (!x->in || !x->cur || !x->done || !x->out_busy || !x->resv || !x->ptr || !x->best ||
        !x->touched || !x->active || !x->is_active) {
        xbar_free(x);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < nodes; i++) {
        ic_fifo_init(&x->in[i]);
        x->cur[i] = IC_NIL;
        x->best[i] = IC_NIL;
    }
    x->grant_count = grant_cycles;
    return 0;
}

struct ic_pool *ic_pool_of(struct tm_icnt *n)
{
    return &n->pool;
}

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
    n->in_network--;
}

/* One cycle of one crossbar subnet (see the file comment). */
static void xbar_cycle(struct tm_icnt *n, struct xbar *x)
{
    uint32_t N = n->n_nodes;
    bool islip = n->algo == 1;
    uint32_t start = (uint32_t)((n->now - 1) % N); /* round robin's start this cycle */
    bool requests = false;

    /* requests: every free input with a waiting packet asks for its head's output */
    for (uint32_t a = 0; a < x->nactive; a++) {
        uint32_t i = x->active[a];
        if (x->cur[i] != IC_NIL || !x->in[i].n)
            continue;
        requests = true;
        uint32_t d = ic_pkt(&n->pool, x->in[i].head)->dst;
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
        if (n->deliver[d].n + x->resv[d] >= n->out_limit)
            continue;
        uint32_t p = ic_fifo_pop(&x->in[i], &n->pool);
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

    /* transfers whose last flit crosses this cycle deliver; idle inputs leave the list */
    uint32_t keep = 0;
    for (uint32_t a = 0; a < x->nactive; a++) {
        uint32_t i = x->active[a];
        if (x->cur[i] != IC_NIL && x->done[i] == n->now) {
            uint32_t p = x->cur[i];
            uint32_t d = ic_pkt(&n->pool, p)->dst;
            x->cur[i] = IC_NIL;
            x->out_busy[d] = 0;
            x->resv[d]--;
            ic_deliver(n, p);
        }
        if (x->cur[i] != IC_NIL || x->in[i].n)
            x->active[keep++] = i;
        else
            x->is_active[i] = 0;
    }
    x->nactive = keep;
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
    if (n->bcfg.flit_size)
        n->flit_size = (uint32_t)n->bcfg.flit_size;
    if (n->bcfg.subnets)
        n->nsub = (uint32_t)n->bcfg.subnets;
    if (n->nsub != 1 && n->nsub != 2) {
        errf(err, errlen, "%s: subnets = %u: 1 or 2 subnetworks", path, n->nsub);
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
    if (o->network_mode != 1 && o->network_mode != 2) {
        errf(err, errlen, "-network_mode %lld: 1 (BookSim network) or 2 (crossbar)",
             (long long)o->network_mode);
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
    if (o->network_mode == 2) {
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
    if (n->mode == 2) {
        for (uint32_t s = 0; s < n->nsub; s++)
            if ((rc = xbar_init(&n->xb[s], n->n_nodes, n->grant_cycles)))
                goto fail;
        snprintf(n->desc, sizeof n->desc,
                 "crossbar %ux%u, %u subnet%s, %s, %u-byte flits, buffers %u/%u packets",
                 n_sm, n_mem, n->nsub, n->nsub > 1 ? "s" : "",
                 n->algo ? "iSLIP" : "round robin", n->flit_size, n->in_limit, n->out_limit);
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
    if (n->mode == 2)
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
    n->stats[k->rep ? TM_IS_PACKETS_REP : TM_IS_PACKETS_REQ]++;
    n->stats[k->rep ? TM_IS_FLITS_REP : TM_IS_FLITS_REQ] += k->nflits;
    n->in_network++;
    if (n->mode == 2) {
        struct xbar *x = &n->xb[k->subnet];
        ic_fifo_push(&x->in[src], &n->pool, p);
        if (!x->is_active[src]) {
            x->is_active[src] = 1;
            x->active[x->nactive++] = src;
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
    ic_pool_put(&n->pool, p);
}

/* One interconnect clock: every subnet advances once. */
void tm_icnt_cycle(struct tm_icnt *n)
{
    n->now++;
    if (n->mode == 2) {
        if (!n->in_network)
            return;
        n->stats[TM_IS_CYCLES]++;
        for (uint32_t s = 0; s < n->nsub; s++)
            if (n->xb[s].nactive)
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

/* One line naming the network and its parameters. */
const char *tm_icnt_describe(const struct tm_icnt *n)
{
    return n->desc;
}
