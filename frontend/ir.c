/*
 * frontend/ir.c — IR support: the module arena, opcode/modifier/type/special-register tables
 * (all generated from ops.def / mods.def at compile time, read-only), and module lookups.
 */
#include <stdlib.h>
#include <string.h>

#include "frontend/build.h"
#include "frontend/ir.h"
#include "frontend/passes.h"

/* ============================================================================== arena */

/* Memory of a module: bump-allocated chunks plus adopted malloc blocks, freed together. */
struct ir_arena_chunk {
    struct ir_arena_chunk *next;
    size_t used, cap;
    _Alignas(16) unsigned char mem[];
};

struct ir_arena {
    struct ir_arena_chunk *chunks;
    void **adopted;
    size_t nadopted, capadopted;
};

/* New empty arena, or NULL when out of memory. */
struct ir_arena *ir_arena_new(void)
{
    return calloc(1, sizeof(struct ir_arena));
}

/* Zeroed block of n bytes (16-byte aligned) owned by the arena, or NULL. */
void *ir_arena_alloc(struct ir_arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    struct ir_arena_chunk *c = a->chunks;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > 65536 ? n : 65536;
        c = malloc(sizeof *c + cap);
        if (!c)
            return NULL;
        c->cap = cap;
        c->used = 0;
        c->next = a->chunks;
        a->chunks = c;
    }
    void *p = c->mem + c->used;
    c->used += n;
    memset(p, 0, n);
    return p;
}

/* Make the arena own malloc'd block p (freed with the arena). Returns 0, or -1 (p is then
 * freed immediately so the caller never leaks). */
int ir_arena_adopt(struct ir_arena *a, void *p)
{
    if (!p)
        return 0;
    if (a->nadopted == a->capadopted) {
        size_t cap = a->capadopted ? a->capadopted * 2 : 64;
        void **n = realloc(a->adopted, cap * sizeof *n);
        if (!n) {
            free(p);
            return -1;
        }
        a->adopted = n;
        a->capadopted = cap;
    }
    a->adopted[a->nadopted++] = p;
    return 0;
}

/* Free an arena and everything it owns. */
void ir_arena_free(struct ir_arena *a)
{
    if (!a)
        return;
    for (struct ir_arena_chunk *c = a->chunks, *n; c; c = n) {
        n = c->next;
        free(c);
    }
    for (size_t i = 0; i < a->nadopted; i++)
        free(a->adopted[i]);
    free(a->adopted);
    free(a);
}

/* ============================================================================== tables */

struct ir_op_row {
    const char *mnem, *fmt;
    unsigned char unit;
    unsigned short flags;
};

static const struct ir_op_row ir_ops[] = {
#define OP(id, mnem, fmt, unit, flags) {mnem, fmt, unit, flags},
#include "frontend/ops.def"
#undef OP
};
_Static_assert(sizeof ir_ops / sizeof ir_ops[0] == OP__COUNT, "ops.def table length");

struct ir_mod_row {
    const char *text;
    unsigned char kind;
    int val;
};

static const struct ir_mod_row ir_mods[] = {
    {"", MK_OTHER, 0},
#define MOD(id, text, kind, val) {text, kind, val},
#include "frontend/mods.def"
#undef MOD
};
_Static_assert(sizeof ir_mods / sizeof ir_mods[0] == MOD__COUNT, "mods.def table length");

/* Mnemonic of an opcode. */
const char *ir_op_name(enum ir_op op)
{
    return (unsigned)op < OP__COUNT ? ir_ops[op].mnem : "?";
}

/* Operand format string of an opcode (ops.def column 3). */
const char *ir_op_format(enum ir_op op)
{
    return (unsigned)op < OP__COUNT ? ir_ops[op].fmt : "";
}

/* Default unit of an opcode (ops.def column 4). */
enum ir_unit ir_op_unit(enum ir_op op)
{
    return (unsigned)op < OP__COUNT ? (enum ir_unit)ir_ops[op].unit : U_NONE;
}

/* Default IF_* flags of an opcode (ops.def column 5). */
unsigned ir_op_flags(enum ir_op op)
{
    return (unsigned)op < OP__COUNT ? ir_ops[op].flags : 0;
}

/* Spelling of a modifier without its dot. */
const char *ir_mod_name(enum ir_mod mod)
{
    return (unsigned)mod < MOD__COUNT ? ir_mods[mod].text : "?";
}

/* Kind of a modifier (which insn field it fills). */
enum ir_mod_kind ir_mod_kind(enum ir_mod mod)
{
    return (unsigned)mod < MOD__COUNT ? (enum ir_mod_kind)ir_mods[mod].kind : MK_OTHER;
}

/* Value of a modifier (enum value of its kind). */
int ir_mod_value(enum ir_mod mod)
{
    return (unsigned)mod < MOD__COUNT ? ir_mods[mod].val : 0;
}

static bool ir_eq(const char *a, const char *s, size_t len)
{
    return strncmp(a, s, len) == 0 && a[len] == 0;
}

/* Opcode by mnemonic, or -1. A linear scan: the builder uses its own hash table (build.c);
 * this is for tools and tests. */
int ir_op_lookup(const char *s, size_t len)
{
    for (int i = 0; i < OP__COUNT; i++)
        if (ir_eq(ir_ops[i].mnem, s, len))
            return i;
    return -1;
}

/* Modifier by spelling without the dot, or MOD_NONE (linear scan, see ir_op_lookup). */
int ir_mod_lookup(const char *s, size_t len)
{
    if (len == 0)
        return MOD_NONE;
    for (int i = 1; i < MOD__COUNT; i++)
        if (ir_eq(ir_mods[i].text, s, len))
            return i;
    return MOD_NONE;
}

/* The columns of frontend/types.def. */
static const struct {
    const char *name;
    uint8_t bytes, cls, lanes;
} ir_types[T__COUNT] = {
#define TYPE(id, name, bytes, cls, lanes) [T_##id] = {name, bytes, cls, lanes},
#include "frontend/types.def"
#undef TYPE
};

/* Size in bytes of a PTX type (0 for none/pred/sub-byte types). */
unsigned ir_type_size(enum ir_type t)
{
    return (unsigned)t < T__COUNT ? ir_types[t].bytes : 0;
}

/* PTX spelling of a type without the dot ("" for T_NONE). */
const char *ir_type_name(enum ir_type t)
{
    return (unsigned)t < T__COUNT ? ir_types[t].name : "";
}

/* Class of a type (types.def); TC_NONE when out of range. */
enum ir_type_class ir_type_class(enum ir_type t)
{
    return (unsigned)t < T__COUNT ? (enum ir_type_class)ir_types[t].cls : TC_NONE;
}

/* Values packed in one value of a type (types.def). */
unsigned ir_type_lanes(enum ir_type t)
{
    return (unsigned)t < T__COUNT ? ir_types[t].lanes : 0;
}

/* ================================================================== special registers */

static const char *const ir_sreg_names[] = {
    [SR_TID_X] = "%tid.x", [SR_TID_Y] = "%tid.y", [SR_TID_Z] = "%tid.z",
    [SR_NTID_X] = "%ntid.x", [SR_NTID_Y] = "%ntid.y", [SR_NTID_Z] = "%ntid.z",
    [SR_CTAID_X] = "%ctaid.x", [SR_CTAID_Y] = "%ctaid.y", [SR_CTAID_Z] = "%ctaid.z",
    [SR_NCTAID_X] = "%nctaid.x", [SR_NCTAID_Y] = "%nctaid.y", [SR_NCTAID_Z] = "%nctaid.z",
    [SR_LANEID] = "%laneid", [SR_WARPID] = "%warpid", [SR_NWARPID] = "%nwarpid",
    [SR_SMID] = "%smid", [SR_NSMID] = "%nsmid", [SR_GRIDID] = "%gridid",
    [SR_LANEMASK_EQ] = "%lanemask_eq", [SR_LANEMASK_LE] = "%lanemask_le",
    [SR_LANEMASK_LT] = "%lanemask_lt", [SR_LANEMASK_GE] = "%lanemask_ge",
    [SR_LANEMASK_GT] = "%lanemask_gt", [SR_CLOCK] = "%clock", [SR_CLOCK_HI] = "%clock_hi",
    [SR_CLOCK64] = "%clock64", [SR_GLOBALTIMER] = "%globaltimer",
    [SR_GLOBALTIMER_LO] = "%globaltimer_lo", [SR_GLOBALTIMER_HI] = "%globaltimer_hi",
    [SR_ENVREG0 + 0] = "%envreg0", [SR_ENVREG0 + 1] = "%envreg1", [SR_ENVREG0 + 2] = "%envreg2",
    [SR_ENVREG0 + 3] = "%envreg3", [SR_ENVREG0 + 4] = "%envreg4", [SR_ENVREG0 + 5] = "%envreg5",
    [SR_ENVREG0 + 6] = "%envreg6", [SR_ENVREG0 + 7] = "%envreg7", [SR_ENVREG0 + 8] = "%envreg8",
    [SR_ENVREG0 + 9] = "%envreg9", [SR_ENVREG0 + 10] = "%envreg10",
    [SR_ENVREG0 + 11] = "%envreg11", [SR_ENVREG0 + 12] = "%envreg12",
    [SR_ENVREG0 + 13] = "%envreg13", [SR_ENVREG0 + 14] = "%envreg14",
    [SR_ENVREG0 + 15] = "%envreg15", [SR_ENVREG0 + 16] = "%envreg16",
    [SR_ENVREG0 + 17] = "%envreg17", [SR_ENVREG0 + 18] = "%envreg18",
    [SR_ENVREG0 + 19] = "%envreg19", [SR_ENVREG0 + 20] = "%envreg20",
    [SR_ENVREG0 + 21] = "%envreg21", [SR_ENVREG0 + 22] = "%envreg22",
    [SR_ENVREG0 + 23] = "%envreg23", [SR_ENVREG0 + 24] = "%envreg24",
    [SR_ENVREG0 + 25] = "%envreg25", [SR_ENVREG0 + 26] = "%envreg26",
    [SR_ENVREG0 + 27] = "%envreg27", [SR_ENVREG0 + 28] = "%envreg28",
    [SR_ENVREG0 + 29] = "%envreg29", [SR_ENVREG0 + 30] = "%envreg30",
    [SR_ENVREG0 + 31] = "%envreg31",
    [SR_DYNAMIC_SMEM_SIZE] = "%dynamic_smem_size", [SR_TOTAL_SMEM_SIZE] = "%total_smem_size",
    [SR_AGGR_SMEM_SIZE] = "%aggr_smem_size",
    [SR_RESERVED_SMEM_OFFSET_BEGIN] = "%reserved_smem_offset_begin",
    [SR_RESERVED_SMEM_OFFSET_END] = "%reserved_smem_offset_end",
    [SR_RESERVED_SMEM_OFFSET_CAP] = "%reserved_smem_offset_cap",
    [SR_RESERVED_SMEM_OFFSET_0] = "%reserved_smem_offset_0",
    [SR_RESERVED_SMEM_OFFSET_1] = "%reserved_smem_offset_1",
    [SR_CLUSTERID_X] = "%clusterid.x", [SR_CLUSTERID_Y] = "%clusterid.y",
    [SR_CLUSTERID_Z] = "%clusterid.z", [SR_NCLUSTERID_X] = "%nclusterid.x",
    [SR_NCLUSTERID_Y] = "%nclusterid.y", [SR_NCLUSTERID_Z] = "%nclusterid.z",
    [SR_CLUSTER_CTAID_X] = "%cluster_ctaid.x", [SR_CLUSTER_CTAID_Y] = "%cluster_ctaid.y",
    [SR_CLUSTER_CTAID_Z] = "%cluster_ctaid.z", [SR_CLUSTER_NCTAID_X] = "%cluster_nctaid.x",
    [SR_CLUSTER_NCTAID_Y] = "%cluster_nctaid.y", [SR_CLUSTER_NCTAID_Z] = "%cluster_nctaid.z",
    [SR_CLUSTER_CTARANK] = "%cluster_ctarank", [SR_CLUSTER_NCTARANK] = "%cluster_nctarank",
    [SR_IS_EXPLICIT_CLUSTER] = "%is_explicit_cluster",
    [SR_PM0 + 0] = "%pm0", [SR_PM0 + 1] = "%pm1", [SR_PM0 + 2] = "%pm2", [SR_PM0 + 3] = "%pm3",
    [SR_PM0 + 4] = "%pm4", [SR_PM0 + 5] = "%pm5", [SR_PM0 + 6] = "%pm6", [SR_PM0 + 7] = "%pm7",
    [SR_PM0_64 + 0] = "%pm0_64", [SR_PM0_64 + 1] = "%pm1_64", [SR_PM0_64 + 2] = "%pm2_64",
    [SR_PM0_64 + 3] = "%pm3_64", [SR_PM0_64 + 4] = "%pm4_64", [SR_PM0_64 + 5] = "%pm5_64",
    [SR_PM0_64 + 6] = "%pm6_64", [SR_PM0_64 + 7] = "%pm7_64",
    [SR_CURRENT_GRAPH_EXEC] = "%current_graph_exec",
};
_Static_assert(sizeof ir_sreg_names / sizeof ir_sreg_names[0] == SR__COUNT, "sreg names");

/* Name of a special register ("%tid.x"), "" for SR_NONE. */
const char *ir_sreg_name(enum ir_sreg s)
{
    return (unsigned)s < SR__COUNT && ir_sreg_names[s] ? ir_sreg_names[s] : "";
}

/* Special register by name (with the '%'), or -1. */
int ir_sreg_lookup(const char *s, size_t len)
{
    if (len < 2 || s[0] != '%')
        return -1;
    for (int i = 1; i < SR__COUNT; i++)
        if (ir_sreg_names[i] && ir_eq(ir_sreg_names[i], s, len))
            return i;
    return -1;
}

/* ==================================================== PTXPlus tests, texture initializers */

static const char *const ir_cc_names[CC__COUNT] = {
    "", "fl", "lt", "eq", "le", "gt", "ne", "ge", "num", "nan", "ltu", "equ", "leu",
    "gtu", "neu", "geu", "tr", "of", "cf", "ab", "sf", "nsf", "ble", "ncf", "nof",
};
static const char *const ir_texfield_names[TXF__COUNT] = {
    "addr_mode_0", "addr_mode_1", "addr_mode_2", "filter_mode", "force_unnormalized_coords",
    "normalized_coords", "width", "height", "depth", "channel_data_type", "channel_order",
};
static const char *const ir_texval_names[TXV__COUNT] = {
    "wrap", "mirror", "clamp_ogl", "clamp_to_edge", "clamp_to_border", "nearest", "linear",
};

/* Name of a PTXPlus condition-code test ("ne"), "" for CC_NONE or out of range. */
const char *ir_cc_name(enum ir_cc cc)
{
    return (unsigned)cc < CC__COUNT ? ir_cc_names[cc] : "";
}

/* PTXPlus condition-code test by name (without the dot), CC_NONE when unknown. */
enum ir_cc ir_cc_lookup(const char *s, size_t len)
{
    for (int i = 1; i < CC__COUNT; i++)
        if (ir_eq(ir_cc_names[i], s, len))
            return (enum ir_cc)i;
    return CC_NONE;
}

/* Name of a texture initializer member ("addr_mode_0"), "" when out of range. */
const char *ir_texfield_name(enum ir_texfield f)
{
    return (unsigned)f < TXF__COUNT ? ir_texfield_names[f] : "";
}

/* Name of a texture initializer keyword value ("clamp_to_edge"), "" when out of range. */
const char *ir_texval_name(enum ir_texval v)
{
    return (unsigned)v < TXV__COUNT ? ir_texval_names[v] : "";
}

/* Texture initializer member by name, or -1. */
int ir_texfield_lookup(const char *s, size_t len)
{
    for (int i = 0; i < TXF__COUNT; i++)
        if (ir_eq(ir_texfield_names[i], s, len))
            return i;
    return -1;
}

/* Texture initializer keyword value by name, or -1. */
int ir_texval_lookup(const char *s, size_t len)
{
    for (int i = 0; i < TXV__COUNT; i++)
        if (ir_eq(ir_texval_names[i], s, len))
            return i;
    return -1;
}

/* ============================================================================ modules */

/* Free a module and everything it owns (pass results included). */
void ir_module_free(struct ir_module *m)
{
    if (!m)
        return;
    ir_passes_free(m);
    free(m->filename);
    free(m->text);
    ir_arena_free(m->arena);
    free(m);
}

/* Function index by name, or -1. */
int ir_func_lookup(const struct ir_module *m, const char *name)
{
    for (uint32_t i = 0; i < m->nfuncs; i++)
        if (strcmp(ir_str(m, m->funcs[i].name), name) == 0)
            return (int)i;
    return -1;
}

/* Module-scope variable index by name, or -1. */
int ir_sym_lookup(const struct ir_module *m, const char *name)
{
    for (uint32_t i = 0; i < m->nsyms; i++)
        if (m->syms[i].func < 0 && !(m->syms[i].flags & VF_CALLPROTOTYPE) &&
            strcmp(ir_str(m, m->syms[i].name), name) == 0)
            return (int)i;
    return -1;
}

/* "inlined_at F L C" in a .loc's rest (ir_insn.loc_ext): 0 and *site, or -1 when absent. */
static int loc_inlined_at(const struct ir_module *m, uint32_t ext, struct ir_srcpos *site)
{
    if (!ext)
        return -1;
    const char *p = strstr(ir_str(m, ext), "inlined_at");
    if (!p)
        return -1;
    char *e;
    unsigned long v[3];
    p += sizeof "inlined_at" - 1;
    for (int i = 0; i < 3; i++) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p < '0' || *p > '9')
            return -1;
        v[i] = strtoul(p, &e, 10);
        if (v[i] > UINT32_MAX)
            return -1;
        p = e;
    }
    *site = (struct ir_srcpos){(uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2]};
    return 0;
}

/* The call sites instruction pc of function fi was inlined into (see ir.h). */
unsigned ir_inlined_chain(const struct ir_module *m, uint32_t fi, uint32_t pc,
                          struct ir_srcpos *out, unsigned max)
{
    if (fi >= m->nfuncs || pc >= m->funcs[fi].ninsns)
        return 0;
    const struct ir_func *f = &m->funcs[fi];
    uint32_t ext = f->insns[pc].loc_ext;
    unsigned n = 0;
    struct ir_srcpos site;
    while (n < max && loc_inlined_at(m, ext, &site) == 0) {
        out[n++] = site;
        /* the nearest .loc before pc naming the site: an instruction's or one without */
        int64_t best_insn = -1, best_loc = -1;
        for (uint32_t i = pc; i-- > 0;)
            if (f->insns[i].loc_file == site.file && f->insns[i].loc_line == site.line &&
                f->insns[i].loc_col == site.col) {
                best_insn = i;
                break;
            }
        for (uint32_t i = 0; i < m->nlocs; i++) {
            const struct ir_loc *l = &m->locs[i];
            if (l->func == (int32_t)fi && l->pc <= pc && l->file == site.file &&
                l->line == site.line && l->col == site.col)
                best_loc = i;
        }
        /* an instruction-less .loc at pc' stands after instruction pc' - 1 */
        if (best_loc >= 0 && (int64_t)m->locs[best_loc].pc > best_insn)
            ext = m->locs[best_loc].ext;
        else if (best_insn >= 0)
            ext = f->insns[best_insn].loc_ext;
        else
            break;
    }
    return n;
}
