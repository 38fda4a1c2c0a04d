/*
 * timing/config.c — the option table built from config.def, defaults, setting an option from
 * text, and the derived quantities the model reads (tm_config_derive).
 */
#include "timing/config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct tm_opt_desc tm_opt_table[] = {
#define TM_OPT(name, field, type, def, flags, help)                                            \
    {name, type, def, flags, help, offsetof(struct tm_options, field)},
#include "timing/config.def"
#undef TM_OPT
};
const size_t tm_opt_count = sizeof tm_opt_table / sizeof tm_opt_table[0];

static void errf(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* Option row by name (linear: called only while reading a configuration). */
const struct tm_opt_desc *tm_opt_find(const char *name)
{
    for (size_t i = 0; i < tm_opt_count; i++)
        if (!strcmp(tm_opt_table[i].name, name))
            return &tm_opt_table[i];
    return NULL;
}

static int set_row(struct tm_config *c, const struct tm_opt_desc *d, const char *value,
                   char *err, size_t errlen)
{
    char *base = (char *)&c->o + d->offset;
    char *end;
    switch (d->type) {
    case TM_INT: {
        errno = 0;
        long long v = strtoll(value, &end, 0);
        while (*end == ' ' || *end == '\t')
            end++;
        if (end == value || *end || errno) {
            errf(err, errlen, "option -%s: '%s' is not an integer", d->name, value);
            return -EINVAL;
        }
        memcpy(base, &(int64_t){v}, sizeof(int64_t));
        return 0;
    }
    case TM_DBL: {
        errno = 0;
        double v = strtod(value, &end);
        while (*end == ' ' || *end == '\t')
            end++;
        if (end == value || *end || errno) {
            errf(err, errlen, "option -%s: '%s' is not a number", d->name, value);
            return -EINVAL;
        }
        memcpy(base, &v, sizeof v);
        return 0;
    }
    case TM_STR: {
        char *s = strdup(value);
        if (!s)
            return -ENOMEM;
        char *old;
        memcpy(&old, base, sizeof old);
        free(old);
        memcpy(base, &s, sizeof s);
        return 0;
    }
    }
    return -EINVAL;
}

/* Every option's default. */
int tm_config_init(struct tm_config *c)
{
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < tm_opt_count; i++) {
        int r = set_row(c, &tm_opt_table[i], tm_opt_table[i].def, NULL, 0);
        if (r) {
            tm_config_free(c);
            return r == -ENOMEM ? -ENOMEM : -EINVAL;
        }
    }
    return 0;
}

void tm_config_free(struct tm_config *c)
{
    for (size_t i = 0; i < tm_opt_count; i++) {
        if (tm_opt_table[i].type != TM_STR)
            continue;
        char *s;
        memcpy(&s, (char *)&c->o + tm_opt_table[i].offset, sizeof s);
        free(s);
        s = NULL;
        memcpy((char *)&c->o + tm_opt_table[i].offset, &s, sizeof s);
    }
}

int tm_config_set(struct tm_config *c, const char *name, const char *value, char *err,
                  size_t errlen)
{
    const struct tm_opt_desc *d = tm_opt_find(name);
    if (!d) {
        errf(err, errlen, "unknown option -%s", name);
        return -ENOENT;
    }
    return set_row(c, d, value, err, errlen);
}

/* ------------------------------------------------------------------ derivation */

/* Parse up to max unsigned integers separated by any of seps; returns how many, or -1 on a
 * malformed list. */
static int parse_uints(const char *s, const char *seps, uint32_t *out, int max)
{
    int n = 0;
    const char *p = s;
    while (*p == ' ')
        p++;
    if (!*p)
        return 0;
    for (;;) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(p, &end, 0);
        if (end == p || errno || v > UINT32_MAX || n == max)
            return -1;
        out[n++] = (uint32_t)v;
        while (*end == ' ')
            end++;
        if (!*end)
            return n;
        if (!strchr(seps, *end))
            return -1;
        p = end + 1;
    }
}

/* Cursor over a cache string for parse_cache. */
struct cache_cur {
    const char *p, *opt, *s;
    char *err;
    size_t errlen;
};

/* One policy letter that must be one of `allowed`; `what` names the field in the message. */
static int cache_letter(struct cache_cur *k, const char *what, const char *allowed, char *out)
{
    char ch = *k->p;
    if (!ch || !strchr(allowed, ch)) {
        char list[32];
        size_t n = 0;
        for (const char *a = allowed; *a && n + 3 < sizeof list; a++) {
            if (a != allowed)
                list[n++] = ',';
            list[n++] = *a;
        }
        list[n] = 0;
        errf(k->err, k->errlen, "option -%s: cache configuration '%s': %s must be one of %s",
             k->opt, k->s, what, list);
        return -EINVAL;
    }
    *out = ch;
    k->p++;
    return 0;
}

static int cache_uint(struct cache_cur *k, const char *what, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(k->p, &end, 10);
    if (end == k->p || *k->p == '-' || *k->p == '+' || errno || v > UINT32_MAX) {
        errf(k->err, k->errlen, "option -%s: cache configuration '%s': %s must be a number", k->opt,
             k->s, what);
        return -EINVAL;
    }
    *out = (uint32_t)v;
    k->p = end;
    return 0;
}

static int cache_sep(struct cache_cur *k, char sep, const char *before)
{
    if (*k->p != sep) {
        errf(k->err, k->errlen, "option -%s: cache configuration '%s': expected '%c' before %s",
             k->opt, k->s, sep, before);
        return -EINVAL;
    }
    k->p++;
    return 0;
}

/* GPGPU-Sim cache string, decoded field by field as cache_config::init reads it; "none" (or
 * empty) leaves the cache absent. The letters are checked as GPGPU-Sim checks them; the
 * optional fields are the result-FIFO size (":<fifo>" after the miss queue) and the data port
 * width (",<bytes>", default the line size, as GPGPU-Sim). "<mq>,<port>" without the FIFO field
 * reads the port width (GPGPU-Sim's sscanf stops at the second comma and keeps the default). */
static int parse_cache(const char *name, const char *s, struct tm_cache_geom *g, char *err,
                       size_t errlen)
{
    memset(g, 0, sizeof *g);
    if (!s || !*s || !strcmp(s, "none"))
        return 0;
    struct cache_cur k = {.p = s, .opt = name, .s = s, .err = err, .errlen = errlen};
    char ct = 0;
    int r;
    if ((r = cache_letter(&k, "the cache type", "NS", &ct)) ||
        (r = cache_sep(&k, ':', "the sets")) ||
        (r = cache_uint(&k, "the number of sets", &g->nset)) ||
        (r = cache_sep(&k, ':', "the line size")) ||
        (r = cache_uint(&k, "the line size", &g->line)) ||
        (r = cache_sep(&k, ':', "the associativity")) ||
        (r = cache_uint(&k, "the associativity", &g->assoc)) ||
        (r = cache_sep(&k, ',', "the replacement policy")) ||
        (r = cache_letter(&k, "the replacement policy", "LF", &g->repl)) ||
        (r = cache_sep(&k, ':', "the write policy")) ||
        (r = cache_letter(&k, "the write policy", "RBTEL", &g->write)) ||
        (r = cache_sep(&k, ':', "the allocation policy")) ||
        (r = cache_letter(&k, "the allocation policy", "mfs", &g->alloc)) ||
        (r = cache_sep(&k, ':', "the write-allocate policy")) ||
        (r = cache_letter(&k, "the write-allocate policy", "NWFL", &g->write_alloc)) ||
        (r = cache_sep(&k, ':', "the set-index function")) ||
        (r = cache_letter(&k, "the set-index function", "LHPCX", &g->set_index)) ||
        (r = cache_sep(&k, ',', "the MSHR type")) ||
        (r = cache_letter(&k, "the MSHR type", "AFTS", &g->mshr)) ||
        (r = cache_sep(&k, ':', "the MSHR entries")) ||
        (r = cache_uint(&k, "the number of MSHR entries", &g->mshr_entries)) ||
        (r = cache_sep(&k, ':', "the MSHR merge limit")) ||
        (r = cache_uint(&k, "the MSHR merge limit", &g->mshr_merge)) ||
        (r = cache_sep(&k, ',', "the miss queue size")) ||
        (r = cache_uint(&k, "the miss queue size", &g->miss_queue)))
        return r;
    if (*k.p == ':' && (k.p++, (r = cache_uint(&k, "the result FIFO size", &g->fifo_entries))))
        return r;
    if (*k.p == ',' && (k.p++, (r = cache_uint(&k, "the data port width", &g->data_port_width))))
        return r;
    if (*k.p) {
        errf(err, errlen, "option -%s: cache configuration '%s': unexpected '%s' at the end", name,
             s, k.p);
        return -EINVAL;
    }
    g->present = true;
    g->sectored = ct == 'S';
    if (!g->nset || !g->assoc || g->line < 2 || (g->line & (g->line - 1))) {
        errf(err, errlen,
             "option -%s: bad cache geometry in '%s' (sets and ways at least 1, the line a "
             "power of two of at least 2 bytes)",
             name, s);
        return -EINVAL;
    }
    if (g->line > 128) {
        errf(err, errlen,
             "option -%s: cache configuration '%s': lines of more than 128 bytes are not "
             "modelled",
             name, s);
        return -EINVAL;
    }
    if (g->sectored && g->line % 32) {
        errf(err, errlen,
             "option -%s: cache configuration '%s': a sectored cache needs a line "
             "of whole 32-byte sectors",
             name, s);
        return -EINVAL;
    }
    bool p2 = !(g->nset & (g->nset - 1));
    if ((g->set_index == 'H' && g->nset != 32 && g->nset != 64) ||
        ((g->set_index == 'P' || g->set_index == 'X') && !p2)) {
        errf(err, errlen, "option -%s: cache configuration '%s': set-index function '%c' needs %s",
             name, s, g->set_index,
             g->set_index == 'H' ? "32 or 64 sets" : "a power-of-two number of sets");
        return -EINVAL;
    }
    if (!g->mshr_entries || !g->mshr_merge || !g->miss_queue) {
        errf(err, errlen,
             "option -%s: cache configuration '%s': MSHR entries, merge limit and "
             "miss queue must be at least 1",
             name, s);
        return -EINVAL;
    }
    /* the miss-queue room one access may need (timing/cache.c, as GPGPU-Sim reserves it) */
    uint32_t room = g->write == 'R' ? 1 : g->write_alloc == 'W' ? 3 : 2;
    if (g->miss_queue < room) {
        errf(err, errlen,
             "option -%s: cache configuration '%s': a miss queue of %u cannot hold the %u "
             "entries one access may queue",
             name, s, g->miss_queue, room);
        return -EINVAL;
    }
    if (!g->data_port_width)
        g->data_port_width = g->line;
    if (g->line % g->data_port_width) {
        errf(err, errlen,
             "option -%s: cache configuration '%s': the data port width %u does "
             "not divide the line size %u",
             name, s, g->data_port_width, g->line);
        return -EINVAL;
    }
    return 0;
}

static int lat_list(const char *name, const char *s, uint32_t *v, int need, char *err,
                    size_t errlen)
{
    int n = parse_uints(s, ",", v, 8);
    if (n < need) {
        errf(err, errlen, "option -%s: expected %d comma-separated values, got '%s'", name,
             need, s);
        return -EINVAL;
    }
    for (int i = 0; i < n; i++)
        if (!v[i] || v[i] > 65535) {
            errf(err, errlen, "option -%s: value %u out of range 1..65535", name, v[i]);
            return -EINVAL;
        }
    return n;
}

/* The specialised units: -specialized_unit_N <enabled>,<units>,<max latency>,<ID_OC width>,
 * <OC_EX width>,<name> (GPGPU-Sim's format; the max latency sizes GPGPU-Sim's pipeline and is
 * checked only) and -trace_opcode_latency_initiation_spec_op_N <latency>,<initiation>.
 * Enabled units become unit kind TM_FU_SPEC + N - 1; which PTX instructions go there is decided
 * by the name (BRA: control, TENSOR: tensor cores; the first unit of each name). 0 or
 * -EINVAL. */
static int spec_units_derive(struct tm_config *c, char *err, size_t errlen)
{
    const struct tm_options *o = &c->o;
    const char *const str[8] = {o->specialized_unit_1, o->specialized_unit_2,
                                o->specialized_unit_3, o->specialized_unit_4,
                                o->specialized_unit_5, o->specialized_unit_6,
                                o->specialized_unit_7, o->specialized_unit_8};
    const char *const lat[8] = {
        o->trace_opcode_latency_initiation_spec_op_1, o->trace_opcode_latency_initiation_spec_op_2,
        o->trace_opcode_latency_initiation_spec_op_3, o->trace_opcode_latency_initiation_spec_op_4,
        o->trace_opcode_latency_initiation_spec_op_5, o->trace_opcode_latency_initiation_spec_op_6,
        o->trace_opcode_latency_initiation_spec_op_7, o->trace_opcode_latency_initiation_spec_op_8};
    c->spec_bra = c->spec_tensor = -1;
    for (int i = 0; i < 8; i++) {
        unsigned en, units, maxlat, idoc, ocex;
        char name[16];
        int used = 0;
        int k = sscanf(str[i], " %u , %u , %u , %u , %u , %15[A-Za-z0-9_] %n", &en, &units,
                       &maxlat, &idoc, &ocex, name, &used);
        if (k != 6 || str[i][used] != '\0') {
            errf(err, errlen,
                 "option -specialized_unit_%d: expected <enabled>,<units>,<max latency>,"
                 "<ID_OC width>,<OC_EX width>,<name>, got '%s'",
                 i + 1, str[i]);
            return -EINVAL;
        }
        c->n_units[TM_FU_SPEC + i] = 0;
        c->spec_idoc[i] = c->spec_ocex[i] = 0;
        c->spec_name[i][0] = '\0';
        if (!en)
            continue;
        if (units > 64 || !idoc || !ocex || !maxlat) {
            errf(err, errlen,
                 "option -specialized_unit_%d: 0..64 units, register widths and max latency "
                 "≥ 1, got '%s'",
                 i + 1, str[i]);
            return -EINVAL;
        }
        uint32_t parts = o->gpgpu_sub_core_model ? (uint32_t)o->gpgpu_num_sched_per_core : 1;
        if (parts && units % parts) {
            errf(err, errlen,
                 "option -specialized_unit_%d: %u units do not split over the %u sub-cores "
                 "(each needs its own)",
                 i + 1, units, parts);
            return -EINVAL;
        }
        uint32_t v[8];
        char nm[64];
        snprintf(nm, sizeof nm, "trace_opcode_latency_initiation_spec_op_%d", i + 1);
        int n = lat_list(nm, lat[i], v, 2, err, errlen);
        if (n < 0)
            return n;
        c->n_units[TM_FU_SPEC + i] = units;
        c->spec_idoc[i] = idoc;
        c->spec_ocex[i] = ocex;
        c->spec_lat[i] = (struct tm_oplat){(uint16_t)v[0], (uint16_t)v[1]};
        memcpy(c->spec_name[i], name, sizeof name);
        if (!units)
            continue;
        if (!strcmp(name, "BRA") && c->spec_bra < 0)
            c->spec_bra = TM_FU_SPEC + i;
        if (!strcmp(name, "TENSOR") && c->spec_tensor < 0)
            c->spec_tensor = TM_FU_SPEC + i;
    }
    return 0;
}

/* The L1D's banks (-gpgpu_l1_banks, -gpgpu_l1_banks_byte_interleaving,
 * -gpgpu_l1_banks_hashing_function) and what one bank serves per cycle (the dl1 data port
 * width, per bank). Bank and interleaving counts are powers of two (GPGPU-Sim takes their
 * logarithms); the hashing functions are GPGPU-Sim's set-index numbers: 0 linear, 1 bitwise
 * XOR, 2 IPOLY (for 16 and 32 banks GPGPU-Sim's x^4+x+1 / x^5+x^2+1 over 13 / 15 higher
 * bits, other counts a primitive polynomial over 40); 3 (Fermi) and 4 (custom) index sets of
 * 32/64 lines and none, so they are refused. 0 or -EINVAL. */
static int l1_banks_derive(struct tm_config *c, char *err, size_t errlen)
{
    const struct tm_options *o = &c->o;
    int64_t nb = o->gpgpu_l1_banks, il = o->gpgpu_l1_banks_byte_interleaving;
    if (nb < 1 || nb > 32 || (nb & (nb - 1)) || il < 1 || il > (1 << 20) || (il & (il - 1))) {
        errf(err, errlen,
             "options -gpgpu_l1_banks (1..32) and -gpgpu_l1_banks_byte_interleaving must be "
             "powers of two, got %lld and %lld",
             (long long)nb, (long long)il);
        return -EINVAL;
    }
    int64_t fn = o->gpgpu_l1_banks_hashing_function;
    if (fn < 0 || fn > 2) {
        errf(err, errlen,
             "option -gpgpu_l1_banks_hashing_function: 0 (linear), 1 (XOR) or 2 (IPOLY), got "
             "%lld",
             (long long)fn);
        return -EINVAL;
    }
    c->l1_banks = (uint32_t)nb;
    c->l1_bank_log2 = (uint32_t)__builtin_ctzll((uint64_t)nb);
    c->l1_bank_shift = (uint32_t)__builtin_ctzll((uint64_t)il);
    c->l1_bank_fn = (uint32_t)fn;
    uint32_t w = c->dl1.present && c->dl1.data_port_width ? c->dl1.data_port_width : 128;
    c->l1_bank_cap = w >= 32 ? w / 32 : 1;
    c->l1_bank_cycles = w >= 32 ? 1 : (32 + w - 1) / w;
    memset(c->l1_bank_ipoly, 0, sizeof c->l1_bank_ipoly);
    uint32_t n = c->l1_bank_log2;
    if (fn == 2 && n) {
        /* low terms of primitive polynomials x^n + … (n = 1 … 5) */
        static const uint32_t low[6] = {0, 0x1, 0x3, 0x3, 0x3, 0x5};
        uint32_t k = n == 4 ? 13 : n == 5 ? 15 : 40, rem = low[n]; /* x^n mod P */
        for (uint32_t j = 0; j < k; j++) {
            for (uint32_t i = 0; i < n; i++)
                if (rem >> i & 1)
                    c->l1_bank_ipoly[i] |= 1ull << j;
            rem <<= 1;
            if (rem >> n & 1)
                rem = (rem & ((1u << n) - 1)) ^ low[n];
        }
    }
    return 0;
}

int tm_config_derive(struct tm_config *c, char *err, size_t errlen)
{
    struct tm_options *o = &c->o;
    uint32_t v[16];
    int n;

    /* each factor bounded before the product: int64 overflow is undefined */
    if (o->gpgpu_n_clusters < 1 || o->gpgpu_n_cores_per_cluster < 1 ||
        o->gpgpu_n_clusters > 4096 || o->gpgpu_n_cores_per_cluster > 4096 ||
        o->gpgpu_n_clusters * o->gpgpu_n_cores_per_cluster > 4096) {
        errf(err, errlen, "options -gpgpu_n_clusters/-gpgpu_n_cores_per_cluster: 1..4096 SMs");
        return -EINVAL;
    }
    c->n_sm = (uint32_t)(o->gpgpu_n_clusters * o->gpgpu_n_cores_per_cluster);

    n = parse_uints(o->gpgpu_shader_core_pipeline, ":", v, 2);
    if (n != 2 || v[1] != 32 || v[0] < 32 || v[0] % 32 || v[0] > 4096) {
        errf(err, errlen,
             "option -gpgpu_shader_core_pipeline: expected <threads>:32 with threads a "
             "multiple of 32, got '%s'",
             o->gpgpu_shader_core_pipeline);
        return -EINVAL;
    }
    c->max_threads_per_sm = v[0];
    c->warp_size = v[1];
    c->max_warps_per_sm = v[0] / 32;

    n = parse_uints(o->gpgpu_pipeline_widths, ",", v, 16);
    if (n < TM_EX_WB + 1) {
        errf(err, errlen, "option -gpgpu_pipeline_widths: expected at least %d values, got '%s'",
             TM_EX_WB + 1, o->gpgpu_pipeline_widths);
        return -EINVAL;
    }
    for (int i = 0; i < TM_PIPE__COUNT; i++)
        c->pipe_width[i] = i < n ? v[i] : 0;
    if (n <= TM_OC_EX_TENSOR) { /* older configs: no tensor pipeline registers */
        c->pipe_width[TM_ID_OC_TENSOR] = 0;
        c->pipe_width[TM_OC_EX_TENSOR] = 0;
    }

    const struct { int64_t n; const char *name; } units[TM_FU__COUNT] = {
        [TM_FU_SP] = {o->gpgpu_num_sp_units, "gpgpu_num_sp_units"},
        [TM_FU_DP] = {o->gpgpu_num_dp_units, "gpgpu_num_dp_units"},
        [TM_FU_INT] = {o->gpgpu_num_int_units, "gpgpu_num_int_units"},
        [TM_FU_SFU] = {o->gpgpu_num_sfu_units, "gpgpu_num_sfu_units"},
        [TM_FU_TENSOR] = {o->gpgpu_tensor_core_avail ? o->gpgpu_num_tensor_core_units : 0,
                          "gpgpu_num_tensor_core_units"},
        [TM_FU_MEM] = {1, "-"},
    };
    for (int i = 0; i < TM_FU_SPEC; i++) {
        if (units[i].n < 0 || units[i].n > 64) {
            errf(err, errlen, "option -%s: 0..64 units", units[i].name);
            return -EINVAL;
        }
        c->n_units[i] = (uint32_t)units[i].n;
    }
    if (!c->n_units[TM_FU_SP] || !c->n_units[TM_FU_SFU]) {
        errf(err, errlen, "options -gpgpu_num_sp_units and -gpgpu_num_sfu_units must be ≥ 1");
        return -EINVAL;
    }
    if ((n = spec_units_derive(c, err, errlen)) < 0)
        return n;

    /* Specialised operand collectors: GPGPU-Sim adds, per unit kind, a collector set and
     * input ports that take that kind's ID_OC register into the set (or a generic unit) and
     * output ports that dispatch the set's collected instructions. Every kind that has units
     * must reach one: through generic ports and units, or through its own ports. */
    c->spec_oc = o->gpgpu_enable_specialized_operand_collector != 0;
    memset(c->oc_units, 0, sizeof c->oc_units);
    memset(c->oc_in, 0, sizeof c->oc_in);
    memset(c->oc_out, 0, sizeof c->oc_out);
    if (c->spec_oc) {
        static const char *const kname[TM_FU_SPEC] = {"sp", "dp", "int", "sfu", "tensor_core",
                                                      "mem"};
        const int64_t sets[TM_FU_SPEC][3] = {
            [TM_FU_SP] = {o->gpgpu_operand_collector_num_units_sp,
                          o->gpgpu_operand_collector_num_in_ports_sp,
                          o->gpgpu_operand_collector_num_out_ports_sp},
            [TM_FU_DP] = {o->gpgpu_operand_collector_num_units_dp,
                          o->gpgpu_operand_collector_num_in_ports_dp,
                          o->gpgpu_operand_collector_num_out_ports_dp},
            [TM_FU_INT] = {o->gpgpu_operand_collector_num_units_int,
                           o->gpgpu_operand_collector_num_in_ports_int,
                           o->gpgpu_operand_collector_num_out_ports_int},
            [TM_FU_SFU] = {o->gpgpu_operand_collector_num_units_sfu,
                           o->gpgpu_operand_collector_num_in_ports_sfu,
                           o->gpgpu_operand_collector_num_out_ports_sfu},
            [TM_FU_TENSOR] = {o->gpgpu_operand_collector_num_units_tensor_core,
                              o->gpgpu_operand_collector_num_in_ports_tensor_core,
                              o->gpgpu_operand_collector_num_out_ports_tensor_core},
            [TM_FU_MEM] = {o->gpgpu_operand_collector_num_units_mem,
                           o->gpgpu_operand_collector_num_in_ports_mem,
                           o->gpgpu_operand_collector_num_out_ports_mem},
        };
        int64_t gu = o->gpgpu_operand_collector_num_units_gen,
                gi = o->gpgpu_operand_collector_num_in_ports_gen,
                go = o->gpgpu_operand_collector_num_out_ports_gen;
        bool gen_path = gu > 0 && gi > 0 && go > 0;
        for (int f = TM_FU_SPEC; f < TM_FU__COUNT; f++)
            if (c->n_units[f] && !gen_path) { /* GPGPU-Sim: generic collectors only */
                errf(err, errlen,
                     "specialised operand collectors: the instructions of -specialized_unit_%d "
                     "need generic collector units and ports",
                     f - TM_FU_SPEC + 1);
                return -EINVAL;
            }
        for (int f = 0; f < TM_FU_SPEC; f++) {
            for (int k = 0; k < 3; k++)
                if (sets[f][k] < 0 || sets[f][k] > 64) {
                    errf(err, errlen, "option -gpgpu_operand_collector_num_%s_%s: 0..64",
                         k == 0 ? "units" : k == 1 ? "in_ports" : "out_ports", kname[f]);
                    return -EINVAL;
                }
            c->oc_units[f] = (uint32_t)sets[f][0];
            c->oc_in[f] = (uint32_t)sets[f][1];
            c->oc_out[f] = (uint32_t)sets[f][2];
            if (c->oc_units[f] && !c->oc_out[f]) {
                errf(err, errlen,
                     "option -gpgpu_operand_collector_num_out_ports_%s: %s collector units "
                     "need at least one output port",
                     kname[f], kname[f]);
                return -EINVAL;
            }
            bool used = f == TM_FU_MEM || c->n_units[f] || f == TM_FU_SP;
            bool own = c->oc_in[f] && (c->oc_units[f] || (gu > 0 && go > 0));
            if (used && !gen_path && !own) {
                errf(err, errlen,
                     "specialised operand collectors: %s instructions reach no collector unit "
                     "(give -gpgpu_operand_collector_num_in_ports_%s and _units_%s, or generic "
                     "units and ports)",
                     kname[f], kname[f], kname[f]);
                return -EINVAL;
            }
        }
    }

    /* Per-opcode latencies: ir_lat classes ADD MAX MUL MAD DIV map to the first five list
     * entries; SHFL to the integer list's sixth; SFU and TENSOR to their own options. */
    uint32_t il[8], ii[8], fl[8], fi[8], dl[8], di[8], sl[8], si[8], tl[8], ti[8];
    if ((n = lat_list("ptx_opcode_latency_int", o->ptx_opcode_latency_int, il, 5, err, errlen)) < 0)
        return n;
    if (n < 6)
        il[5] = il[0];
    if ((n = lat_list("ptx_opcode_initiation_int", o->ptx_opcode_initiation_int, ii, 5, err,
                      errlen)) < 0)
        return n;
    if (n < 6)
        ii[5] = ii[0];
    if ((n = lat_list("ptx_opcode_latency_fp", o->ptx_opcode_latency_fp, fl, 5, err, errlen)) < 0 ||
        (n = lat_list("ptx_opcode_initiation_fp", o->ptx_opcode_initiation_fp, fi, 5, err,
                      errlen)) < 0 ||
        (n = lat_list("ptx_opcode_latency_dp", o->ptx_opcode_latency_dp, dl, 5, err, errlen)) < 0 ||
        (n = lat_list("ptx_opcode_initiation_dp", o->ptx_opcode_initiation_dp, di, 5, err,
                      errlen)) < 0 ||
        (n = lat_list("ptx_opcode_latency_sfu", o->ptx_opcode_latency_sfu, sl, 1, err, errlen)) < 0 ||
        (n = lat_list("ptx_opcode_initiation_sfu", o->ptx_opcode_initiation_sfu, si, 1, err,
                      errlen)) < 0 ||
        (n = lat_list("ptx_opcode_latency_tesnor", o->ptx_opcode_latency_tesnor, tl, 1, err,
                      errlen)) < 0 ||
        (n = lat_list("ptx_opcode_initiation_tensor", o->ptx_opcode_initiation_tensor, ti, 1,
                      err, errlen)) < 0)
        return n;
    for (int u = 0; u <= U_NONE; u++) {
        const uint32_t *L = il, *I = ii;
        if (u == U_SP)
            L = fl, I = fi;
        else if (u == U_DP)
            L = dl, I = di;
        for (int k = 0; k < LAT__COUNT; k++) {
            uint32_t lat, ini;
            switch (k) {
            case LAT_MAX: lat = L[1], ini = I[1]; break;
            case LAT_MUL: lat = L[2], ini = I[2]; break;
            case LAT_MAD: lat = L[3], ini = I[3]; break;
            case LAT_DIV: lat = L[4], ini = I[4]; break;
            case LAT_SHFL: lat = il[5], ini = ii[5]; break;
            case LAT_SFU: lat = sl[0], ini = si[0]; break;
            case LAT_TENSOR: lat = tl[0], ini = ti[0]; break;
            default: lat = L[0], ini = I[0]; break;
            }
            if (u == U_SFU && k != LAT_DIV)
                lat = sl[0], ini = si[0];
            if (u == U_TENSOR)
                lat = tl[0], ini = ti[0];
            c->oplat[u][k] = (struct tm_oplat){(uint16_t)lat, (uint16_t)ini};
        }
    }

    /* Tensor-core rates. */
    c->tc_lat = tl[0];
    if ((n = parse_uints(o->ptxemu_tensor_rate, ":,", c->tc_rate, TM_TC_CLASSES)) < 1) {
        errf(err, errlen,
             "option -ptxemu_tensor_rate: expected 0 or up to %d multiply-adds per cycle "
             "f16:f16acc:tf32:f64:i8:f8:f4:i4:b1, got '%s'",
             TM_TC_CLASSES, o->ptxemu_tensor_rate);
        return -EINVAL;
    }
    c->tc_on = c->tc_rate[0] != 0;
    for (int i = 0; i < TM_TC_CLASSES; i++) {
        if (i >= n)
            c->tc_rate[i] = 0;
        if (c->tc_rate[i] > 1u << 20 || (!c->tc_on && c->tc_rate[i])) {
            errf(err, errlen,
                 "option -ptxemu_tensor_rate: %s",
                 c->tc_on ? "a rate above 1048576 multiply-adds per cycle"
                          : "the f16 rate (the first) is 0 but another is not");
            return -EINVAL;
        }
        if (!c->tc_rate[i])
            c->tc_rate[i] = c->tc_rate[0];
    }

    /* Expanded PTX ops: the SFU's machine instructions. */
    uint32_t mu[8];
    if ((n = lat_list("trace_opcode_latency_initiation_sfu", o->trace_opcode_latency_initiation_sfu,
                      mu, 2, err, errlen)) < 0)
        return n;
    c->mufu = (struct tm_oplat){(uint16_t)mu[0], (uint16_t)mu[1]};
    c->expand = o->ptxemu_expand_ptx != 0;

    /* Scheduler. */
    const char *s = o->gpgpu_scheduler;
    if (!strcmp(s, "lrr"))
        c->sched = TM_SCHED_LRR;
    else if (!strcmp(s, "gto"))
        c->sched = TM_SCHED_GTO;
    else if (!strcmp(s, "old"))
        c->sched = TM_SCHED_OLD;
    else if (!strcmp(s, "rrr"))
        c->sched = TM_SCHED_RRR;
    else if (!strncmp(s, "two_level_active", 16)) {
        c->sched = TM_SCHED_TWO_LEVEL;
        c->two_level_active = 6;
        if (s[16] == ':') {
            n = parse_uints(s + 17, ":", v, 3);
            if (n < 1 || !v[0]) {
                errf(err, errlen, "option -gpgpu_scheduler: bad two_level_active '%s'", s);
                return -EINVAL;
            }
            c->two_level_active = v[0];
        } else if (s[16]) {
            errf(err, errlen, "option -gpgpu_scheduler: unknown policy '%s'", s);
            return -EINVAL;
        }
    } else {
        errf(err, errlen,
             "option -gpgpu_scheduler: unknown policy '%s' (lrr, gto, old, rrr, "
             "two_level_active)",
             s);
        return -EINVAL;
    }
    if (o->gpgpu_num_sched_per_core < 1 || o->gpgpu_num_sched_per_core > 8) {
        errf(err, errlen, "option -gpgpu_num_sched_per_core: 1..8");
        return -EINVAL;
    }

    /* Clock domains. */
    {
        double d[4];
        char extra;
        if (sscanf(o->gpgpu_clock_domains, "%lf:%lf:%lf:%lf%c", &d[0], &d[1], &d[2], &d[3],
                   &extra) != 4 ||
            d[0] <= 0 || d[1] <= 0 || d[2] <= 0 || d[3] <= 0) {
            errf(err, errlen,
                 "option -gpgpu_clock_domains: expected <core>:<icnt>:<L2>:<DRAM> MHz, got '%s'",
                 o->gpgpu_clock_domains);
            return -EINVAL;
        }
        memcpy(c->clock_mhz, d, sizeof d);
    }

    /* Caches. */
    int r;
    if ((r = parse_cache("gpgpu_cache:il1", o->gpgpu_cache_il1, &c->il1, err, errlen)) ||
        (r = parse_cache("gpgpu_cache:dl1", o->gpgpu_cache_dl1, &c->dl1, err, errlen)) ||
        (r = parse_cache("gpgpu_const_cache:l1", o->gpgpu_const_cache_l1, &c->l1c, err, errlen)) ||
        (r = parse_cache("gpgpu_tex_cache:l1", o->gpgpu_tex_cache_l1, &c->l1t, err, errlen)) ||
        (r = parse_cache("gpgpu_cache:dl2", o->gpgpu_cache_dl2, &c->l2, err, errlen)))
        return r;
    if ((r = l1_banks_derive(c, err, errlen)))
        return r;

    /* Shared-memory carve-outs. */
    n = parse_uints(o->gpgpu_shmem_option, ",", c->shmem_opt, 16);
    if (n < 0) {
        errf(err, errlen, "option -gpgpu_shmem_option: bad list '%s'", o->gpgpu_shmem_option);
        return -EINVAL;
    }
    c->n_shmem_opt = (uint32_t)n;
    for (int i = 1; i < n; i++)
        if (c->shmem_opt[i] <= c->shmem_opt[i - 1]) {
            errf(err, errlen, "option -gpgpu_shmem_option: values must ascend");
            return -EINVAL;
        }

    if (o->gpgpu_shader_registers < 1 || o->gpgpu_shader_cta < 1 || o->gpgpu_shmem_size < 0 ||
        o->gpgpu_shmem_num_banks < 1 || o->gpgpu_num_reg_banks < 1 ||
        o->gpgpu_reg_file_port_throughput < 1 || o->gpgpu_max_insn_issue_per_warp < 1 ||
        o->gpgpu_inst_fetch_throughput < 1) {
        errf(err, errlen,
             "options -gpgpu_shader_registers, -gpgpu_shader_cta, -gpgpu_shmem_num_banks, "
             "-gpgpu_num_reg_banks, -gpgpu_reg_file_port_throughput, "
             "-gpgpu_max_insn_issue_per_warp, -gpgpu_inst_fetch_throughput must be ≥ 1");
        return -EINVAL;
    }
    c->perfect_mem_latency = (uint32_t)(o->ptxemu_perfect_mem_latency > 0
                                            ? o->ptxemu_perfect_mem_latency
                                            : o->gpgpu_l1_latency);
    if (o->ptxemu_timing_quantum < 0 || o->ptxemu_timing_quantum > 4096) {
        errf(err, errlen, "option -ptxemu_timing_quantum: %lld is not in 0 … 4096 cycles",
             (long long)o->ptxemu_timing_quantum);
        return -EINVAL;
    }
    c->relax_q = 0;
    if (o->ptxemu_timing_relaxed) {
        int64_t q = o->ptxemu_timing_quantum;
        if (!q) { /* the default: 32, the whole request delay (2Q) taken off the ROP delay */
            q = 32;
            if (o->gpgpu_l2_rop_latency > 0 && o->gpgpu_l2_rop_latency < 2 * q)
                q = o->gpgpu_l2_rop_latency / 2;
        }
        c->relax_q = (uint32_t)(q > 0 ? q : 1);
    }
    c->relax_ordered = false;
    if (o->ptxemu_timing_lookahead) {
        if (o->ptxemu_timing_lookahead < 0 || o->ptxemu_timing_lookahead > 4096) {
            errf(err, errlen, "option -ptxemu_timing_lookahead: %lld is not in 0 … 4096 cycles",
                 (long long)o->ptxemu_timing_lookahead);
            return -EINVAL;
        }
        if (o->ptxemu_timing_relaxed) {
            errf(err, errlen, "options -ptxemu_timing_lookahead and -ptxemu_timing_relaxed 1 "
                              "exclude each other (the lookahead mode is the relaxed mode's "
                              "windows with its global steps ordered)");
            return -EINVAL;
        }
        c->relax_q = (uint32_t)o->ptxemu_timing_lookahead;
        c->relax_ordered = true;
    }
    c->relax_ovl = c->relax_q && !o->gpgpu_perfect_mem;
    return 0;
}

