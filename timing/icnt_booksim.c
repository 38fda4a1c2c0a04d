/*
 * timing/icnt_booksim.c — BookSim-style networks for -network_mode 1: the reader of BookSim's
 * configuration format and a cycle-level model of input-queued virtual-channel routers.
 *
 * Format: `key = value;` statements; `//` starts a comment to the end of the line; a value is
 * a number, a bare word, a "string" or a {…} list (nested braces allowed). Keys the model
 * reads are listed in `keys[]` below with BookSim's defaults; keys BookSim's traffic
 * generator or statistics use (traffic, injection_rate, packet_size, sim_type, …) are
 * accepted and ignored; any other key is warned about once, naming the file and line.
 *
 * Topologies: `mesh` and `torus` (k-ary n-cube, k^n routers, c nodes per router, routing
 * `dim_order`/`dor`: the lowest unresolved dimension first, the torus the shorter way round,
 * ties in the positive direction, its virtual channels split in two dateline classes), `fly`
 * (k-ary n-fly: n stages of k^(n-1) k×k routers, routing `dest_tag`), and `crossbar` (one
 * k×k router, routing `dest_tag`; the same as a 1-stage fly).
 *
 * Router (per hop, in an idle network): a head flit written into an input VC at cycle t may
 * allocate an output VC at t + routing_delay, compete for the switch vc_alloc_delay cycles
 * after winning its VC, and a flit granted the switch at cycle s is written into the next
 * router's input VC (or the node's ejection buffer) at s + sw_alloc_delay + st_prepare_delay +
 * st_final_delay + 1 (the channel). A hop therefore costs H = routing_delay + vc_alloc_delay +
 * sw_alloc_delay + st_prepare_delay + st_final_delay + 1 cycles, body flits follow one per
 * cycle. Flow control is credit based: an output VC holds a credit per free slot of the
 * downstream VC buffer (vc_buf_size flits; ejection_buffer_size, or vc_buf_size when 0, at
 * the ejection port); a credit returns credit_delay + 1 cycles after its flit leaves the
 * buffer. An output VC is allocated to one packet until its tail has left (with
 * wait_for_tail_credit = 1: until the tail's credit has come back). Allocation is round robin
 * (whatever vc_allocator/sw_allocator say): per cycle floor(internal_speedup) switch rounds
 * (fractional speedups accumulate), in each an input port sends at most input_speedup flits
 * and an output port takes at most output_speedup.
 * Injection: a node's packets wait in its injection queue (input_buffer_size flits, 9 when 0,
 * as GPGPU-Sim; a packet is always admitted into an empty queue) and enter the router one
 * flit per cycle over a 1-cycle channel. Ejection: each cycle a node moves one flit per VC
 * from its ejection buffer into its boundary buffer (boundary_buffer_size flits, shared with
 * delivered packets waiting to be popped; a node with nothing waiting always takes a flit),
 * returning the credit; the tail completes the packet (delivered).
 * So an idle network delivers an F-flit packet crossing h router-to-router channels
 * 2 + (h + 1)·H + F − 1 cycles after it was pushed.
 * Cost: only routers holding flits and nodes injecting or ejecting are visited.
 */
#include "timing/icnt_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static void errf(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ================================================================== the reader */

enum kkind { K_INT, K_DBL, K_STR, K_MAP, K_IGN };

struct key {
    const char *name;
    enum kkind kind;
    size_t off;   /* in struct ic_bs_cfg */
    size_t size;  /* K_STR: buffer size */
};

#define KI(name) {#name, K_INT, offsetof(struct ic_bs_cfg, name), 0}
#define KS(name) {#name, K_STR, offsetof(struct ic_bs_cfg, name), sizeof(((struct ic_bs_cfg *)0)->name)}
#define KX(name) {#name, K_IGN, 0, 0}

static const struct key keys[] = {
    KS(topology), KS(routing_function), KS(vc_allocator), KS(sw_allocator),
    KI(k), KI(n), KI(c), KI(num_vcs), KI(vc_buf_size), KI(input_buffer_size),
    KI(ejection_buffer_size), KI(boundary_buffer_size), KI(wait_for_tail_credit),
    KI(alloc_iters), KI(credit_delay), KI(routing_delay), KI(vc_alloc_delay),
    KI(sw_alloc_delay), KI(st_prepare_delay), KI(st_final_delay), KI(input_speedup),
    KI(output_speedup), {"internal_speedup", K_DBL, offsetof(struct ic_bs_cfg, internal_speedup), 0},
    KI(flit_size), KI(use_map), KI(subnets),
    {"memory_node_map", K_MAP, 0, 0},
    /* BookSim/GPGPU-Sim keys the model has no use for (traffic generator, statistics,
     * per-class VC ranges that only split requests from replies on one subnet, power) */
    KX(network_count), KX(traffic), KX(packet_size), KX(packet_size_rate), KX(sim_type),
    KX(injection_rate), KX(injection_rate_uses_flits), KX(injection_process), KX(use_read_write),
    KX(read_request_subnet), KX(read_reply_subnet), KX(write_request_subnet),
    KX(write_reply_subnet), KX(read_request_begin_vc), KX(read_request_end_vc),
    KX(write_request_begin_vc), KX(write_request_end_vc), KX(read_reply_begin_vc),
    KX(read_reply_end_vc), KX(write_reply_begin_vc), KX(write_reply_end_vc),
    KX(read_request_size), KX(read_reply_size), KX(write_request_size), KX(write_reply_size),
    KX(sample_period), KX(warmup_periods), KX(max_samples), KX(latency_thres), KX(seed),
    KX(print_activity), KX(print_csv_results), KX(viewer_trace), KX(watch_out),
    KX(watch_file), KX(watch_flits), KX(watch_packets), KX(sim_power), KX(power_output_file),
    KX(tech_file), KX(channel_width), KX(perfect_icnt), KX(fixed_lat_per_hop),
    KX(output_extra_latency), KX(enable_link_stats), KX(MATLAB_OUTPUT), KX(DISPLAY_LAT_DIST),
    KX(DISPLAY_HOP_DIST), KX(DISPLAY_PAIR_LATENCY), KX(priority), KX(classes), KX(router),
    KX(output_buffer_size), KX(noq), KX(hold_switch_for_packet), KX(vc_busy_when_full),
    KX(vc_prioritize_empty), KX(vc_priority_donation), KX(speculative), KX(spec_check_elig),
    KX(spec_check_cred), KX(spec_mask_by_reqs), KX(arb_type), KX(deadlock_warn_timeout),
    KX(stats_out), KX(sim_count), KX(include_queuing), KX(hop_stats), KX(pair_stats),
    KX(measure_stats), KX(routing_delay_mode), KX(dim_sizes), KX(x), KX(y), KX(xr), KX(yr),
    KX(link_failures), KX(fail_seed), KX(in_ports), KX(out_ports),
};

static void cfg_defaults(struct ic_bs_cfg *c)
{
    memset(c, 0, sizeof *c);
    /* BookSim 2's defaults (booksim_config.cpp) and GPGPU-Sim's (intersim_config.cpp) */
    strcpy(c->topology, "torus");
    strcpy(c->routing_function, "none");
    strcpy(c->vc_allocator, "islip");
    strcpy(c->sw_allocator, "islip");
    c->k = 8;
    c->n = 2;
    c->c = 1;
    c->num_vcs = 16;
    c->vc_buf_size = 8;
    c->boundary_buffer_size = 16;
    c->alloc_iters = 1;
    c->credit_delay = 1;
    c->routing_delay = 1;
    c->vc_alloc_delay = 1;
    c->sw_alloc_delay = 1;
    c->st_final_delay = 1;
    c->input_speedup = 1;
    c->output_speedup = 1;
    c->internal_speedup = 1.0;
    c->use_map = 1;
}

/* Free what a parsed configuration owns (its memory_node_map). */
void ic_bs_cfg_free(struct ic_bs_cfg *c)
{
    free(c->memory_node_map);
    c->memory_node_map = NULL;
    c->n_memory_node_map = 0;
}

struct lex {
    const char *p, *name;
    int line;
    char *err;
    size_t errlen;
};

static void skip_space(struct lex *L)
{
    for (;;) {
        if (*L->p == '\n') {
            L->line++;
            L->p++;
        } else if (isspace((unsigned char)*L->p)) {
            L->p++;
        } else if (L->p[0] == '/' && L->p[1] == '/') {
            while (*L->p && *L->p != '\n')
                L->p++;
        } else {
            return;
        }
    }
}

static int lex_error(struct lex *L, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    errf(L->err, L->errlen, "%s:%d: error: %s", L->name, L->line, msg);
    return -EINVAL;
}

/* The value after '=' (up to the ';', which is consumed) into buf; *kind: 'n' number,
 * 'w' word, 's' string, 'l' list. */
static int lex_value(struct lex *L, char *buf, size_t cap, char *kind)
{
    skip_space(L);
    const char *s = L->p;
    size_t len;
    if (*s == '"') {
        const char *e = s + 1;
        while (*e && *e != '"' && *e != '\n')
            e++;
        if (*e != '"')
            return lex_error(L, "unterminated string");
        s++;
        len = (size_t)(e - s);
        L->p = e + 1;
        *kind = 's';
    } else if (*s == '{') {
        int depth = 0;
        const char *e = s;
        int line0 = L->line;
        for (; *e; e++) {
            if (*e == '{')
                depth++;
            else if (*e == '}' && --depth == 0)
                break;
            else if (*e == '\n')
                L->line++;
            else if (*e == ';')
                break;
        }
        if (*e != '}') {
            L->line = line0;
            return lex_error(L, "unbalanced '{' in a list");
        }
        len = (size_t)(e + 1 - s);
        L->p = e + 1;
        *kind = 'l';
    } else if (isdigit((unsigned char)*s) || ((*s == '-' || *s == '+' || *s == '.') &&
                                              (isdigit((unsigned char)s[1]) || s[1] == '.'))) {
        char *e;
        strtod(s, &e);
        len = (size_t)(e - s);
        L->p = e;
        *kind = 'n';
    } else if (isalpha((unsigned char)*s) || *s == '_' || *s == '-' || *s == '/' || *s == '.') {
        const char *e = s;
        while (isalnum((unsigned char)*e) || strchr("_-./", *e))
            e++;
        len = (size_t)(e - s);
        L->p = e;
        *kind = 'w';
    } else {
        if (!*s)
            return lex_error(L, "expected a value, found the end of the file");
        return lex_error(L, "expected a value, found '%c'", *s);
    }
    if (len >= cap)
        return lex_error(L, "value too long");
    memcpy(buf, s, len);
    buf[len] = 0;
    skip_space(L);
    if (*L->p != ';')
        return lex_error(L, "expected ';' after the value '%s'", buf);
    L->p++;
    return 0;
}

static int parse_map(struct ic_bs_cfg *c, struct lex *L, const char *v, char kind)
{
    ic_bs_cfg_free(c);
    uint32_t cap = 16, n = 0;
    uint32_t *m = malloc(cap * sizeof *m);
    if (!m)
        return -ENOMEM;
    const char *p = v;
    if (kind == 'l')
        p++;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ',')
            p++;
        if (!*p || *p == '}')
            break;
        char *e;
        long x = strtol(p, &e, 10);
        if (e == p || x < 0) {
            free(m);
            return lex_error(L, "memory_node_map: '%s' is not a list of node numbers", v);
        }
        if (n == cap) {
            uint32_t *mm = realloc(m, (cap *= 2) * sizeof *m);
            if (!mm) {
                free(m);
                return -ENOMEM;
            }
            m = mm;
        }
        m[n++] = (uint32_t)x;
        p = e;
    }
    c->memory_node_map = m;
    c->n_memory_node_map = n;
    c->map_line = L->line;
    return 0;
}

/* Read BookSim's format (see the file comment). */
int ic_bs_parse(struct ic_bs_cfg *c, const char *name, const char *text, FILE *diag, char *err,
                size_t errlen)
{
    cfg_defaults(c);
    struct lex L = {text, name, 1, err, errlen};
    char warned[64][64];
    int nwarned = 0;
    char val[4096];
    for (;;) {
        skip_space(&L);
        if (!*L.p)
            return 0;
        if (!isalpha((unsigned char)*L.p) && *L.p != '_')
            return lex_error(&L, "expected a key, found '%c'", *L.p);
        const char *ks = L.p;
        while (isalnum((unsigned char)*L.p) || *L.p == '_')
            L.p++;
        char key[64];
        size_t kl = (size_t)(L.p - ks);
        if (kl >= sizeof key)
            return lex_error(&L, "key too long");
        memcpy(key, ks, kl);
        key[kl] = 0;
        int kline = L.line;
        skip_space(&L);
        if (*L.p != '=')
            return lex_error(&L, "expected '=' after '%s'", key);
        L.p++;
        char kind = 0;
        int rc = lex_value(&L, val, sizeof val, &kind);
        if (rc)
            return rc;
        const struct key *k = NULL;
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
            if (!strcmp(keys[i].name, key))
                k = &keys[i];
        if (!k) {
            bool seen = false;
            for (int i = 0; i < nwarned; i++)
                seen |= !strcmp(warned[i], key);
            if (!seen) {
                if (diag)
                    fprintf(diag, "%s:%d: warning: unknown key '%s' (ignored)\n", name, kline,
                            key);
                if (nwarned < 64)
                    snprintf(warned[nwarned++], sizeof warned[0], "%s", key);
            }
            continue;
        }
        int save = L.line;
        L.line = kline;
        switch (k->kind) {
        case K_INT: {
            char *e;
            errno = 0;
            long x = kind == 'n' ? strtol(val, &e, 10) : 0;
            if (kind != 'n' || *e || errno || x < -1000000000L || x > 1000000000L)
                return lex_error(&L, "%s = %s: expected an integer", key, val);
            memcpy((char *)c + k->off, &(int){(int)x}, sizeof(int));
            break;
        }
        case K_DBL: {
            char *e;
            double x = kind == 'n' ? strtod(val, &e) : 0;
            if (kind != 'n' || *e || !isfinite(x))
                return lex_error(&L, "%s = %s: expected a number", key, val);
            memcpy((char *)c + k->off, &x, sizeof x);
            break;
        }
        case K_STR:
            if (kind != 'w' && kind != 's')
                return lex_error(&L, "%s = %s: expected a name", key, val);
            if (strlen(val) >= k->size)
                return lex_error(&L, "%s = %s: name too long", key, val);
            strcpy((char *)c + k->off, val);
            break;
        case K_MAP:
            if ((rc = parse_map(c, &L, val, kind)))
                return rc;
            break;
        case K_IGN:
            break;
        }
        L.line = save;
    }
}

/* Read and parse a BookSim file (diagnostics name `path`). */
int ic_bs_parse_file(struct ic_bs_cfg *c, const char *path, FILE *diag, char *err,
                     size_t errlen)
{
    cfg_defaults(c);
    FILE *f = fopen(path, "rb");
    if (!f) {
        errf(err, errlen, "%s: cannot read the interconnect configuration: %s", path,
             strerror(errno));
        return -ENOENT;
    }
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0;) {
        len += got;
        if (len + 1 == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    fclose(f);
    if (!buf) {
        errf(err, errlen, "%s: out of memory", path);
        return -ENOMEM;
    }
    buf[len] = 0;
    if (strlen(buf) != len) {
        free(buf);
        errf(err, errlen, "%s:1: error: the file contains a NUL byte", path);
        return -EINVAL;
    }
    int rc = ic_bs_parse(c, path, buf, diag, err, errlen);
    free(buf);
    return rc;
}

/* ================================================================== node placement */

static uint32_t ipow(uint32_t b, uint32_t e)
{
    uint64_t r = 1;
    while (e--) {
        r *= b;
        if (r > (1u << 24))
            return 1u << 24; /* caps absurd sizes; the node count check refuses them */
    }
    return (uint32_t)r;
}

/* Network nodes of the topology (0 for impossible sizes), to check them against the GPU. */
uint32_t ic_bs_cfg_nodes(const struct ic_bs_cfg *c)
{
    if (c->k < 1 || c->n < 1 || c->c < 1)
        return 0;
    if (!strcmp(c->topology, "crossbar"))
        return (uint32_t)c->k;
    uint32_t r = ipow((uint32_t)c->k, (uint32_t)c->n);
    if (!strcmp(c->topology, "mesh") || !strcmp(c->topology, "torus"))
        return r * (uint32_t)c->c;
    return r;
}

/* GPU node -> network node, as GPGPU-Sim's _CreateNodeMap places them. */
int ic_bs_node_map(const struct ic_bs_cfg *c, const char *name, uint32_t n_sm, uint32_t n_mem,
                   uint32_t *map, char *err, size_t errlen)
{
    uint32_t total = ic_bs_cfg_nodes(c);
    if (!c->use_map) {
        for (uint32_t i = 0; i < n_sm + n_mem; i++)
            map[i] = i;
        return 0;
    }
    /* GPGPU-Sim's memory positions, tuned for meshes */
    static const uint32_t m8_8[] = {1, 3, 4, 6, 9, 11, 12, 14};
    static const uint32_t m28_8[] = {3, 7, 10, 12, 23, 25, 28, 32};
    static const uint32_t m56_8[] = {3, 15, 17, 29, 36, 47, 49, 61};
    static const uint32_t m110_11[] = {12, 20, 25, 28, 57, 60, 63, 92, 95, 100, 108};
    const uint32_t *mem = NULL;
    if (c->memory_node_map) {
        if (c->n_memory_node_map != n_mem) {
            errf(err, errlen, "%s:%d: error: memory_node_map lists %u nodes; the GPU has %u "
                 "memory nodes", name, c->map_line, c->n_memory_node_map, n_mem);
            return -EINVAL;
        }
        mem = c->memory_node_map;
    } else if (n_sm == 8 && n_mem == 8) {
        mem = m8_8;
    } else if (n_sm == 28 && n_mem == 8) {
        mem = m28_8;
    } else if (n_sm == 56 && n_mem == 8) {
        mem = m56_8;
    } else if (n_sm == 110 && n_mem == 11) {
        mem = m110_11;
    } else {
        errf(err, errlen, "%s: use_map = 1 has no placement for %u SMs and %u memory nodes "
             "(GPGPU-Sim's: 8+8, 28+8, 56+8, 110+11); give memory_node_map or use_map = 0",
             name, n_sm, n_mem);
        return -EINVAL;
    }
    uint8_t *used = calloc(total ? total : 1, 1);
    if (!used)
        return -ENOMEM;
    for (uint32_t j = 0; j < n_mem; j++) {
        if (mem[j] >= total || used[mem[j]]) {
            errf(err, errlen, "%s: memory node %u placed at network node %u: %s", name, j,
                 mem[j], mem[j] >= total ? "no such node" : "placed twice");
            free(used);
            return -EINVAL;
        }
        used[mem[j]] = 1;
        map[n_sm + j] = mem[j];
    }
    uint32_t next = 0;
    for (uint32_t i = 0; i < n_sm; i++) {
        while (next < total && used[next])
            next++;
        map[i] = next++;
    }
    free(used);
    return 0;
}

/* ================================================================== the routers */

enum { VC_IDLE, VC_VA, VC_SA };
enum { EV_FLIT, EV_EJECT, EV_CREDIT_R, EV_CREDIT_N };
enum { T_MESH, T_TORUS, T_FLY, T_XBAR };

struct flit {
    uint32_t pkt;
    uint32_t seq;
    uint64_t arrive;
};

/* A FIFO of flits with a fixed capacity. */
struct fring {
    struct flit *f;
    uint32_t cap, head, n;
};

struct vcst {
    struct fring buf;
    uint8_t state;
    uint16_t out_port, out_vc;
    uint16_t vc_lo, vc_hi; /* output VCs the head may take */
    uint64_t ready;
};

struct inport {
    struct vcst *vc;
    uint32_t up_router, up_port; /* IC_NIL: fed by node up_node */
    uint32_t up_node;
};

struct outport {
    uint32_t to_router, to_port; /* to_router IC_NIL: to node to_node (IC_NIL: unconnected) */
    uint32_t to_node;
    int32_t *credits;
    uint32_t *owner;   /* input VC index (port * V + vc) or IC_NIL */
    uint8_t *tail_sent;
    int32_t cap;
};

struct router {
    uint32_t nport;
    struct inport *in;
    struct outport *out;
    uint32_t va_ptr, sa_ptr;
    uint32_t flits;   /* buffered in input VCs */
    uint8_t active;
    uint32_t *used_in, *used_out; /* scratch per switch round */
};

struct node {
    uint32_t router, port; /* injection input / ejection output port of its router */
    struct ic_fifo q;      /* packets waiting to be injected */
    uint32_t q_flits;      /* flits of those plus the rest of cur */
    uint32_t cur, cur_seq, cur_vc;
    int32_t *inj_credits;  /* per VC of the router's injection port */
    struct fring *ej;      /* per VC: ejection buffer */
    uint32_t ej_flits;
    uint32_t partial;      /* flits in the boundary buffer of packets not yet complete */
    uint8_t active;
};

struct ev {
    uint8_t kind;
    uint16_t vc;
    uint32_t a, b;
    uint32_t pkt, seq;
};

struct evslot {
    struct ev *e;
    uint32_t n, cap;
};

struct ic_bs_net {
    int topo;
    uint32_t k, n, c, V, per_stage;
    uint32_t nrouter, nnode;
    struct router *r;
    struct node *nd;
    const uint32_t *map;       /* GPU node -> network node */
    int rd, vd, sd, sp, fd, cd;
    int in_speed, out_speed;
    double internal;
    bool wait_tail;
    uint32_t inj_cap, bnd_cap;
    struct evslot *wheel;
    uint32_t wmask;
    uint64_t nev;              /* events pending */
    uint64_t flits;            /* flits anywhere (injection queues to boundary) */
    uint32_t *act_r, nact_r;
    uint32_t *act_n, nact_n;
};

static int fring_init(struct fring *r, uint32_t cap)
{
    r->f = malloc((cap ? cap : 1) * sizeof *r->f);
    r->cap = cap;
    r->head = r->n = 0;
    return r->f ? 0 : -ENOMEM;
}
static inline struct flit *fring_front(struct fring *r) { return &r->f[r->head]; }
static inline void fring_push(struct fring *r, struct flit f)
{
    uint32_t t = r->head + r->n;
    if (t >= r->cap)
        t -= r->cap;
    r->f[t] = f;
    r->n++;
}
static inline void fring_pop(struct fring *r)
{
    r->head = r->head + 1 == r->cap ? 0 : r->head + 1;
    r->n--;
}

/* Free a subnetwork (NULL and half-built ones too). */
void ic_bs_net_destroy(struct ic_bs_net *b)
{
    if (!b)
        return;
    for (uint32_t i = 0; b->r && i < b->nrouter; i++) {
        struct router *r = &b->r[i];
        for (uint32_t p = 0; p < r->nport; p++) {
            if (r->in) {
                for (uint32_t v = 0; r->in[p].vc && v < b->V; v++)
                    free(r->in[p].vc[v].buf.f);
                free(r->in[p].vc);
            }
            if (r->out) {
                free(r->out[p].credits);
                free(r->out[p].owner);
                free(r->out[p].tail_sent);
            }
        }
        free(r->in);
        free(r->out);
        free(r->used_in);
        free(r->used_out);
    }
    free(b->r);
    for (uint32_t i = 0; b->nd && i < b->nnode; i++) {
        free(b->nd[i].inj_credits);
        for (uint32_t v = 0; b->nd[i].ej && v < b->V; v++)
            free(b->nd[i].ej[v].f);
        free(b->nd[i].ej);
    }
    free(b->nd);
    for (uint32_t i = 0; b->wheel && i <= b->wmask; i++)
        free(b->wheel[i].e);
    free(b->wheel);
    free(b->act_r);
    free(b->act_n);
    free(b);
}

static void connect(struct ic_bs_net *b, uint32_t r, uint32_t p, uint32_t r2, uint32_t p2)
{
    b->r[r].out[p].to_router = r2;
    b->r[r].out[p].to_port = p2;
    b->r[r2].in[p2].up_router = r;
    b->r[r2].in[p2].up_port = p;
}

static void attach(struct ic_bs_net *b, uint32_t node, uint32_t r, uint32_t p)
{
    b->nd[node].router = r;
    b->nd[node].port = p;
    b->r[r].in[p].up_node = node;
    b->r[r].out[p].to_node = node;
}

static uint32_t digit(uint32_t x, uint32_t k, uint32_t i)
{
    for (; i; i--)
        x /= k;
    return x % k;
}

/* Build one subnetwork: check the parameters, allocate routers and nodes, wire the topology. */
int ic_bs_net_create(struct ic_bs_net **out, const struct ic_bs_cfg *c, const char *name,
                     const uint32_t *map, uint32_t n_nodes, char *err, size_t errlen)
{
    *out = NULL;
    int topo;
    const char *rf = c->routing_function;
    bool dor = !strcmp(rf, "dim_order") || !strcmp(rf, "dor");
    if (!strcmp(c->topology, "mesh"))
        topo = T_MESH, dor |= !strcmp(rf, "dim_order_mesh");
    else if (!strcmp(c->topology, "torus"))
        topo = T_TORUS, dor |= !strcmp(rf, "dim_order_torus");
    else if (!strcmp(c->topology, "fly"))
        topo = T_FLY, dor = !strcmp(rf, "dest_tag");
    else if (!strcmp(c->topology, "crossbar"))
        topo = T_XBAR, dor = !strcmp(rf, "dest_tag");
    else {
        errf(err, errlen, "%s: topology = %s is not supported (mesh, torus, fly, crossbar)",
             name, c->topology);
        return -EINVAL;
    }
    if (!dor) {
        errf(err, errlen, "%s: routing_function = %s is not supported for topology %s (%s)",
             name, rf, c->topology,
             topo == T_MESH || topo == T_TORUS ? "dim_order or dor" : "dest_tag");
        return -EINVAL;
    }
#define NEED(cond, ...)                                                                        \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            errf(err, errlen, __VA_ARGS__);                                                    \
            return -EINVAL;                                                                    \
        }                                                                                      \
    } while (0)
    NEED(c->k >= 2 && c->k <= 4096, "%s: k = %d: 2 to 4096", name, c->k);
    NEED(c->n >= 1 && c->n <= 16, "%s: n = %d: 1 to 16", name, c->n);
    NEED(c->c >= 1 && c->c <= 64, "%s: c = %d: 1 to 64", name, c->c);
    NEED(c->c == 1 || topo == T_MESH || topo == T_TORUS,
         "%s: c = %d: concentration applies to mesh and torus only", name, c->c);
    NEED(c->num_vcs >= 1 && c->num_vcs <= 64, "%s: num_vcs = %d: 1 to 64", name, c->num_vcs);
    NEED(topo != T_TORUS || c->num_vcs >= 2,
         "%s: num_vcs = %d: a torus needs 2 or more (dateline classes)", name, c->num_vcs);
    NEED(c->vc_buf_size >= 1 && c->vc_buf_size <= 65536, "%s: vc_buf_size = %d: 1 to 65536",
         name, c->vc_buf_size);
    NEED(c->ejection_buffer_size >= 0 && c->ejection_buffer_size <= 65536 &&
             c->input_buffer_size >= 0 && c->input_buffer_size <= 1 << 24,
         "%s: input_buffer_size / ejection_buffer_size out of range", name);
    NEED(c->boundary_buffer_size >= 1 && c->boundary_buffer_size <= 1 << 24,
         "%s: boundary_buffer_size = %d: at least 1", name, c->boundary_buffer_size);
    int dl[] = {c->credit_delay, c->routing_delay, c->vc_alloc_delay, c->sw_alloc_delay,
                c->st_prepare_delay, c->st_final_delay};
    for (int i = 0; i < 6; i++)
        NEED(dl[i] >= 0 && dl[i] <= 1000, "%s: pipeline delays are 0 to 1000 cycles", name);
    NEED(c->input_speedup >= 1 && c->input_speedup <= 64 && c->output_speedup >= 1 &&
             c->output_speedup <= 64,
         "%s: input_speedup / output_speedup: 1 to 64", name);
    NEED(c->internal_speedup > 0 && c->internal_speedup <= 64,
         "%s: internal_speedup = %g: more than 0, at most 64", name, c->internal_speedup);
    uint32_t nn = ic_bs_cfg_nodes(c);
    NEED(nn >= n_nodes && nn < (1u << 20), "%s: %u network nodes for %u GPU nodes", name, nn,
         n_nodes);

    struct ic_bs_net *b = calloc(1, sizeof *b);
    if (!b)
        return -ENOMEM;
    b->topo = topo;
    b->k = (uint32_t)c->k;
    b->n = (uint32_t)c->n;
    b->c = (uint32_t)c->c;
    b->V = (uint32_t)c->num_vcs;
    b->map = map;
    b->rd = c->routing_delay;
    b->vd = c->vc_alloc_delay;
    b->sd = c->sw_alloc_delay;
    b->sp = c->st_prepare_delay;
    b->fd = c->st_final_delay;
    b->cd = c->credit_delay;
    b->in_speed = c->input_speedup;
    b->out_speed = c->output_speedup;
    b->internal = c->internal_speedup;
    b->wait_tail = c->wait_for_tail_credit != 0;
    b->inj_cap = c->input_buffer_size ? (uint32_t)c->input_buffer_size : 9;
    b->bnd_cap = (uint32_t)c->boundary_buffer_size;
    uint32_t ej_cap = (uint32_t)(c->ejection_buffer_size ? c->ejection_buffer_size
                                                         : c->vc_buf_size);
    b->nnode = nn;
    uint32_t nports;
    switch (topo) {
    case T_MESH:
    case T_TORUS:
        b->nrouter = ipow(b->k, b->n);
        nports = 2 * b->n + b->c;
        break;
    case T_FLY:
        b->per_stage = ipow(b->k, b->n - 1);
        b->nrouter = b->n * b->per_stage;
        nports = b->k;
        break;
    default:
        b->nrouter = 1;
        nports = b->k;
        break;
    }
    /* buffer slots the model would allocate: refuse absurd networks instead of exhausting
     * memory (2^24 flit slots, 384 MiB; GPGPU-Sim's largest configurations need < 2^17) */
    uint64_t slots = (uint64_t)b->nrouter * nports * b->V * (uint64_t)c->vc_buf_size +
                     (uint64_t)b->nnode * b->V * ej_cap;
    if (slots > (1u << 24)) {
        errf(err, errlen, "%s: %u routers x %u ports x %u VCs x %d flits: too large to simulate",
             name, b->nrouter, nports, b->V, c->vc_buf_size);
        ic_bs_net_destroy(b);
        return -EINVAL;
    }
    int maxd = b->sd + b->sp + b->fd + 1;
    if (b->cd + 1 > maxd)
        maxd = b->cd + 1;
    uint32_t w = 4;
    while (w < (uint32_t)maxd + 2)
        w *= 2;
    b->wmask = w - 1;
    b->wheel = calloc(w, sizeof *b->wheel);
    b->r = calloc(b->nrouter, sizeof *b->r);
    b->nd = calloc(b->nnode, sizeof *b->nd);
    b->act_r = malloc(b->nrouter * sizeof *b->act_r);
    b->act_n = malloc(b->nnode * sizeof *b->act_n);
    if (!b->wheel || !b->r || !b->nd || !b->act_r || !b->act_n)
        goto nomem;
    for (uint32_t i = 0; i < b->nrouter; i++) {
        struct router *r = &b->r[i];
        r->nport = nports;
        r->in = calloc(nports, sizeof *r->in);
        r->out = calloc(nports, sizeof *r->out);
        r->used_in = calloc(nports, sizeof *r->used_in);
        r->used_out = calloc(nports, sizeof *r->used_out);
        if (!r->in || !r->out || !r->used_in || !r->used_out)
            goto nomem;
        for (uint32_t p = 0; p < nports; p++) {
            struct inport *ip = &r->in[p];
            struct outport *op = &r->out[p];
            ip->up_router = ip->up_port = ip->up_node = IC_NIL;
            op->to_router = op->to_port = op->to_node = IC_NIL;
            ip->vc = calloc(b->V, sizeof *ip->vc);
            op->credits = calloc(b->V, sizeof *op->credits);
            op->owner = malloc(b->V * sizeof *op->owner);
            op->tail_sent = calloc(b->V, 1);
            if (!ip->vc || !op->credits || !op->owner || !op->tail_sent)
                goto nomem;
            for (uint32_t v = 0; v < b->V; v++) {
                if (fring_init(&ip->vc[v].buf, (uint32_t)c->vc_buf_size))
                    goto nomem;
                op->owner[v] = IC_NIL;
            }
        }
    }
    for (uint32_t i = 0; i < b->nnode; i++) {
        struct node *d = &b->nd[i];
        ic_fifo_init(&d->q);
        d->cur = IC_NIL;
        d->inj_credits = calloc(b->V, sizeof *d->inj_credits);
        d->ej = calloc(b->V, sizeof *d->ej);
        if (!d->inj_credits || !d->ej)
            goto nomem;
        for (uint32_t v = 0; v < b->V; v++) {
            d->inj_credits[v] = c->vc_buf_size;
            if (fring_init(&d->ej[v], ej_cap))
                goto nomem;
        }
    }
    /* wiring */
    if (topo == T_MESH || topo == T_TORUS) {
        for (uint32_t r = 0; r < b->nrouter; r++) {
            uint32_t stride = 1;
            for (uint32_t i = 0; i < b->n; i++, stride *= b->k) {
                uint32_t x = digit(r, b->k, i);
                if (x + 1 < b->k || topo == T_TORUS) /* + : into the neighbour's port 2i+1 */
                    connect(b, r, 2 * i, x + 1 < b->k ? r + stride : r - x * stride, 2 * i + 1);
                if (x > 0 || topo == T_TORUS)        /* - : into the neighbour's port 2i */
                    connect(b, r, 2 * i + 1, x > 0 ? r - stride : r + (b->k - 1) * stride,
                            2 * i);
            }
            for (uint32_t l = 0; l < b->c; l++)
                attach(b, r * b->c + l, r, 2 * b->n + l);
        }
    } else if (topo == T_FLY) {
        for (uint32_t s = 0; s < b->n; s++)
            for (uint32_t a = 0; a < b->per_stage; a++) {
                uint32_t r = s * b->per_stage + a;
                for (uint32_t p = 0; p < b->k; p++) {
                    if (s == 0)
                        attach(b, a * b->k + p, r, p);
                    if (s == b->n - 1) {
                        b->r[r].out[p].to_node = a * b->k + p; /* ejection, same port */
                    } else {
                        /* replace digit (n-s-2) of the address by p; arrive on its old value */
                        uint32_t sh = ipow(b->k, b->n - s - 2);
                        uint32_t old = (a / sh) % b->k;
                        connect(b, r, p, (s + 1) * b->per_stage + a - old * sh + p * sh, old);
                    }
                }
            }
    } else {
        for (uint32_t p = 0; p < b->k; p++)
            attach(b, p, 0, p);
    }
    for (uint32_t i = 0; i < b->nrouter; i++)
        for (uint32_t p = 0; p < nports; p++) {
            struct outport *op = &b->r[i].out[p];
            op->cap = op->to_router != IC_NIL ? c->vc_buf_size : (int32_t)ej_cap;
            for (uint32_t v = 0; v < b->V; v++)
                op->credits[v] = op->cap;
        }
    *out = b;
    return 0;
nomem:
    ic_bs_net_destroy(b);
    errf(err, errlen, "interconnect: out of memory");
    return -ENOMEM;
#undef NEED
}

/* In a fly the injecting router (stage 0) and the ejecting one (last stage) differ: a node's
 * `router`/`port` name its injection side; ejection is found from the last stage. */
static uint32_t fly_eject_router(const struct ic_bs_net *b, uint32_t node)
{
    return (b->n - 1) * b->per_stage + node / b->k;
}

static void add_ev(struct ic_bs_net *b, uint64_t t, struct ev e)
{
    struct evslot *s = &b->wheel[t & b->wmask];
    if (s->n == s->cap) {
        uint32_t nc = s->cap ? s->cap * 2 : 16;
        struct ev *ne = realloc(s->e, nc * sizeof *ne);
        if (!ne)
            return; /* out of memory: the event is lost (documented limit of the model) */
        s->e = ne;
        s->cap = nc;
    }
    s->e[s->n++] = e;
    b->nev++;
}

static void activate_router(struct ic_bs_net *b, uint32_t r)
{
    if (!b->r[r].active) {
        b->r[r].active = 1;
        b->act_r[b->nact_r++] = r;
    }
}

static void activate_node(struct ic_bs_net *b, uint32_t nd)
{
    if (!b->nd[nd].active) {
        b->nd[nd].active = 1;
        b->act_n[b->nact_n++] = nd;
    }
}

/* Room in the node's injection queue (flits; an empty queue takes any packet). */
bool ic_bs_can_inject(const struct ic_bs_net *b, uint32_t node, uint32_t nflits)
{
    const struct node *d = &b->nd[b->map[node]];
    return d->q_flits == 0 || d->q_flits + nflits <= b->inj_cap;
}

/* Queue a pushed packet at its source node. */
void ic_bs_inject(struct ic_bs_net *b, const struct ic_pool *pool, uint32_t pkt)
{
    const struct ic_pkt *k = ic_pkt(pool, pkt);
    uint32_t nd = b->map[k->src];
    ic_fifo_push(&b->nd[nd].q, pool, pkt);
    b->nd[nd].q_flits += k->nflits;
    b->flits += k->nflits;
    activate_node(b, nd);
}

/* Flits anywhere or events (flits, credits) on the way. */
bool ic_bs_busy(const struct ic_bs_net *b)
{
    return b->flits || b->nev;
}

/* Output port and allowed VC range at router r for a packet to network node dst. */
static void route(const struct ic_bs_net *b, uint32_t r, const struct ic_pkt *k, uint32_t dst,
                  uint16_t *port, uint16_t *lo, uint16_t *hi)
{
    *lo = 0;
    *hi = (uint16_t)b->V;
    switch (b->topo) {
    case T_MESH:
    case T_TORUS: {
        uint32_t dr = dst / b->c;
        for (uint32_t i = 0; i < b->n; i++) {
            uint32_t x = digit(r, b->k, i), y = digit(dr, b->k, i);
            if (x == y)
                continue;
            bool plus;
            if (b->topo == T_MESH) {
                plus = y > x;
            } else {
                uint32_t dist = (y + b->k - x) % b->k;
                plus = dist <= b->k / 2;
                /* dateline: class 1 once the path in this dimension has wrapped */
                uint32_t s = digit(b->map[k->src] / b->c, b->k, i);
                uint32_t nx = plus ? (x + 1) % b->k : (x + b->k - 1) % b->k;
                bool crossed = plus ? nx < s : nx > s;
                uint16_t half = (uint16_t)(b->V / 2);
                *lo = crossed ? half : 0;
                *hi = crossed ? (uint16_t)b->V : half;
            }
            *port = (uint16_t)(2 * i + (plus ? 0 : 1));
            return;
        }
        *port = (uint16_t)(2 * b->n + dst % b->c);
        return;
    }
    case T_FLY: {
        uint32_t stage = r / b->per_stage;
        *port = (uint16_t)digit(dst, b->k, b->n - 1 - stage);
        return;
    }
    default:
        *port = (uint16_t)dst;
        return;
    }
}

/* The head at the front of VC v of input port p of router ri: route it, await VA. */
static void head_to_front(struct ic_bs_net *b, const struct ic_pool *pool, uint32_t ri,
                          struct vcst *vc, uint64_t ready)
{
    const struct flit *f = fring_front(&vc->buf);
    const struct ic_pkt *k = ic_pkt(pool, f->pkt);
    route(b, ri, k, b->map[k->dst], &vc->out_port, &vc->vc_lo, &vc->vc_hi);
    vc->state = VC_VA;
    vc->ready = ready;
}

static void router_cycle(struct ic_bs_net *b, const struct ic_pool *pool, uint32_t ri,
                         uint64_t now, uint32_t rounds)
{
    struct router *r = &b->r[ri];
    uint32_t V = b->V, nvc = r->nport * V;
    /* VC allocation, round robin over the input VCs */
    for (uint32_t j = 0; j < nvc; j++) {
        uint32_t idx = (r->va_ptr + j) % nvc;
        struct vcst *vc = &r->in[idx / V].vc[idx % V];
        if (vc->state != VC_VA || vc->ready > now)
            continue;
        struct outport *op = &r->out[vc->out_port];
        for (uint32_t v = vc->vc_lo; v < vc->vc_hi; v++) {
            if (op->owner[v] != IC_NIL)
                continue;
            op->owner[v] = idx;
            op->tail_sent[v] = 0;
            vc->out_vc = (uint16_t)v;
            vc->state = VC_SA;
            vc->ready = now + (uint64_t)b->vd;
            r->va_ptr = (idx + 1) % nvc;
            break;
        }
    }
    /* switch allocation */
    for (uint32_t round = 0; round < rounds; round++) {
        memset(r->used_in, 0, r->nport * sizeof *r->used_in);
        memset(r->used_out, 0, r->nport * sizeof *r->used_out);
        uint32_t start = r->sa_ptr;
        for (uint32_t j = 0; j < nvc; j++) {
            uint32_t idx = (start + j) % nvc;
            uint32_t p = idx / V, v = idx % V;
            struct inport *ip = &r->in[p];
            struct vcst *vc = &ip->vc[v];
            if (vc->state != VC_SA || vc->ready > now || !vc->buf.n)
                continue;
            struct outport *op = &r->out[vc->out_port];
            if (op->credits[vc->out_vc] <= 0 || r->used_in[p] >= (uint32_t)b->in_speed ||
                r->used_out[vc->out_port] >= (uint32_t)b->out_speed)
                continue;
            r->used_in[p]++;
            r->used_out[vc->out_port]++;
            struct flit f = *fring_front(&vc->buf);
            fring_pop(&vc->buf);
            r->flits--;
            r->sa_ptr = (idx + 1) % nvc;
            /* the freed slot's credit goes upstream */
            uint64_t tc = now + (uint64_t)b->cd + 1;
            if (ip->up_router != IC_NIL)
                add_ev(b, tc, (struct ev){EV_CREDIT_R, (uint16_t)v, ip->up_router, ip->up_port, 0, 0});
            else
                add_ev(b, tc, (struct ev){EV_CREDIT_N, (uint16_t)v, ip->up_node, 0, 0, 0});
            /* the flit goes downstream */
            op->credits[vc->out_vc]--;
            uint64_t ta = now + (uint64_t)(b->sd + b->sp + b->fd) + 1;
            if (op->to_router != IC_NIL)
                add_ev(b, ta, (struct ev){EV_FLIT, vc->out_vc, op->to_router, op->to_port, f.pkt, f.seq});
            else
                add_ev(b, ta, (struct ev){EV_EJECT, vc->out_vc, op->to_node, 0, f.pkt, f.seq});
            const struct ic_pkt *k = ic_pkt(pool, f.pkt);
            if (f.seq + 1 == k->nflits) {
                if (b->wait_tail && op->credits[vc->out_vc] < op->cap)
                    op->tail_sent[vc->out_vc] = 1;
                else
                    op->owner[vc->out_vc] = IC_NIL;
                if (vc->buf.n) {
                    uint64_t rdy = fring_front(&vc->buf)->arrive + (uint64_t)b->rd;
                    head_to_front(b, pool, ri, vc, rdy > now + 1 ? rdy : now + 1);
                } else {
                    vc->state = VC_IDLE;
                }
            }
        }
    }
}

static void node_cycle(struct ic_bs_net *b, struct tm_icnt *n, struct ic_pool *pool,
                       uint32_t ni, uint64_t now)
{
    struct node *d = &b->nd[ni];
    /* injection: one flit per cycle into the router's injection port */
    if (d->cur == IC_NIL && d->q.n) {
        for (uint32_t j = 0; j < b->V; j++) {
            uint32_t v = (d->cur_vc + 1 + j) % b->V;
            if (d->inj_credits[v] > 0) {
                d->cur = ic_fifo_pop(&d->q, pool);
                d->cur_seq = 0;
                d->cur_vc = v;
                break;
            }
        }
    }
    if (d->cur != IC_NIL && d->inj_credits[d->cur_vc] > 0) {
        d->inj_credits[d->cur_vc]--;
        add_ev(b, now + 1, (struct ev){EV_FLIT, (uint16_t)d->cur_vc, d->router, d->port, d->cur,
                                       d->cur_seq});
        d->q_flits--;
        if (++d->cur_seq == ic_pkt(pool, d->cur)->nflits)
            d->cur = IC_NIL;
    }
    /* ejection: one flit per VC into the boundary buffer while it has room */
    for (uint32_t v = 0; v < b->V && d->ej_flits; v++) {
        struct fring *e = &d->ej[v];
        if (!e->n)
            continue;
        uint32_t waiting = ic_waiting(n, ic_pkt(pool, fring_front(e)->pkt)->dst);
        if (waiting + d->partial >= b->bnd_cap && waiting)
            break;
        struct flit f = *fring_front(e);
        fring_pop(e);
        d->ej_flits--;
        d->partial++;
        b->flits--;
        uint32_t er = b->topo == T_FLY ? fly_eject_router(b, ni) : d->router;
        uint32_t ep = b->topo == T_FLY ? ni % b->k : d->port;
        add_ev(b, now + (uint64_t)b->cd + 1, (struct ev){EV_CREDIT_R, (uint16_t)v, er, ep, 0, 0});
        const struct ic_pkt *k = ic_pkt(pool, f.pkt);
        if (f.seq + 1 == k->nflits) {
            d->partial -= k->nflits;
            ic_deliver(n, f.pkt);
        }
    }
}

/* One cycle: due events, then every active router (VC, switch allocation), then every active node (injection, ejection). */
bool ic_bs_cycle(struct ic_bs_net *b, struct tm_icnt *n, uint64_t now)
{
    struct ic_pool *pool = ic_pool_of(n);
    bool had = b->flits != 0;
    /* events due now */
    struct evslot *s = &b->wheel[now & b->wmask];
    for (uint32_t i = 0; i < s->n; i++) {
        struct ev e = s->e[i];
        switch (e.kind) {
        case EV_FLIT: {
            struct router *r = &b->r[e.a];
            struct vcst *vc = &r->in[e.b].vc[e.vc];
            fring_push(&vc->buf, (struct flit){e.pkt, e.seq, now});
            r->flits++;
            activate_router(b, e.a);
            if (vc->state == VC_IDLE && vc->buf.n == 1)
                head_to_front(b, pool, e.a, vc, now + (uint64_t)b->rd);
            break;
        }
        case EV_EJECT: {
            struct node *d = &b->nd[e.a];
            fring_push(&d->ej[e.vc], (struct flit){e.pkt, e.seq, now});
            d->ej_flits++;
            activate_node(b, e.a);
            break;
        }
        case EV_CREDIT_R: {
            struct outport *op = &b->r[e.a].out[e.b];
            op->credits[e.vc]++;
            if (op->tail_sent[e.vc] && op->credits[e.vc] == op->cap) {
                op->tail_sent[e.vc] = 0;
                op->owner[e.vc] = IC_NIL;
            }
            activate_router(b, e.a); /* a credit may unblock it (cheap if it holds nothing) */
            break;
        }
        case EV_CREDIT_N:
            b->nd[e.a].inj_credits[e.vc]++;
            activate_node(b, e.a);
            break;
        }
    }
    b->nev -= s->n;
    s->n = 0;
    /* switch rounds this cycle: floor(now * speedup) - floor((now - 1) * speedup) */
    uint32_t rounds = (uint32_t)(floor((double)now * b->internal) -
                                 floor((double)(now - 1) * b->internal));
    uint32_t keep = 0;
    for (uint32_t i = 0; i < b->nact_r; i++) {
        uint32_t ri = b->act_r[i];
        if (b->r[ri].flits)
            router_cycle(b, pool, ri, now, rounds);
        if (b->r[ri].flits)
            b->act_r[keep++] = ri;
        else
            b->r[ri].active = 0;
    }
    b->nact_r = keep;
    keep = 0;
    for (uint32_t i = 0; i < b->nact_n; i++) {
        uint32_t ni = b->act_n[i];
        node_cycle(b, n, pool, ni, now);
        struct node *d = &b->nd[ni];
        if (d->q.n || d->cur != IC_NIL || d->ej_flits)
            b->act_n[keep++] = ni;
        else
            d->active = 0;
    }
    b->nact_n = keep;
    return had;
}
