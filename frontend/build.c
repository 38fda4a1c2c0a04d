/*
 * frontend/build.c — the builder: turns the grammar's event stream (build.h) into a module
 * (ir.h). Names are interned once (an open-addressing table keyed by XXH3); each interned name
 * carries its current bindings (function-scope register/variable, label, module variable or
 * function, special register), so resolving an operand is one hash probe. Register operands
 * become slots, labels PCs (forward references fixed at the end of the function), symbols
 * indices; immediates are decoded to the operand's type.
 *
 * Operand conventions (beyond ir.h):
 *   - a format item `X|Y` always yields two operands; the second is OPK_NONE when the source
 *     has no `|y` (so operand positions are fixed: setp's first source is operand 2);
 *   - call: operands as written: [(rets),] target, [(args)] [, prototype]; the target is
 *     OPK_FUNC (imm = function index) or a register (indirect); list elements that name .param
 *     variables are OPK_ADDR with sym set; a prototype operand is OPK_SYM of a
 *     VF_CALLPROTOTYPE variable (its declaration text is string id ir_sym.init);
 *   - bar/barrier .red: mode = MODE_RED, bop = AND/OR, BOP_NONE meaning .popc.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "frontend/build.h"
#include "ptx_gram.h"

/* ========================================================================= containers */

#define VEC_PUSH(b, arr, n, cap, val)                                                         \
    do {                                                                                      \
        if ((n) == (cap) && b_grow(b, (void **)&(arr), &(cap), sizeof *(arr)) < 0)            \
            break;                                                                            \
        (arr)[(n)++] = (val);                                                                 \
    } while (0)

/* An interned name and what it currently means. */
struct ent {
    uint32_t id, len;
    uint64_t hash;
    int32_t bind;   /* innermost function-scope binding, or -1 */
    int32_t label;  /* label index in the current function, or -1 */
    int32_t gsym;   /* module variable index, or -1 */
    int32_t gfunc;  /* function index, or -1 */
    int32_t sreg;   /* special register, or 0 */
};

enum { BK_REG, BK_RANGE, BK_SYM, BK_TABLE };

struct binding {
    uint32_t ent;
    int32_t prev;
    uint32_t depth;
    uint8_t kind;
    uint32_t idx;
};

/* A small string -> int map (keys are stable pointers: static tables or the source text). */
struct smap {
    const char **keys;
    uint32_t *lens;
    int32_t *vals;
    uint32_t cap; /* power of two */
    uint32_t n;
};

struct fixup {
    uint32_t opnd;  /* index in fb.opnds, or UINT32_MAX for table entries */
    uint32_t insn;
    uint32_t ent;
    uint32_t off;
    uint32_t table; /* index in tables for table entries */
};

struct decoded {   /* a decoded mnemonic token (cached by its spelling) */
    int16_t op;
    uint16_t nmods;
    uint32_t mods;  /* index into b->dmods */
    /* minimum PTX ISA version and target of this spelling (isa_req.def), computed at its
       first use (req_done); *_rule / *_mod name the cause for the note (rule 0: the opcode
       itself, mod 0: no modifier) */
    uint8_t req_done, arch_rule;
    uint16_t ver_req, sm_req, arch_sm;
    uint8_t ver_rule, sm_rule, af_rule;
    uint16_t ver_mod, sm_mod, arch_mod;
    /* the a/f targets that have every feature of the spelling (ISA_AF_FREE: no restriction);
       af_rule / af_mod: the rule that narrowed it last */
    uint16_t af_mask, af_mod;
};

struct fmtpos {
    char c;
    uint8_t opt, pipe2;
};
struct fmtinfo {
    struct fmtpos pos[16];
    uint8_t n, nreq, star;
};

struct pending_reloc {
    uint32_t reloc;
    uint32_t ent;
    uint32_t off;
};

struct ptx_builder {
    struct ir_module *m;
    struct diag *d;
    const char *text;
    size_t len;
    int oom;

    /* interning */
    struct ent *ents;
    uint32_t nents, capents;
    uint32_t *htab;  /* 1-based entry index, 0 empty */
    uint32_t hcap;
    char *strtab;
    uint32_t nstr, capstr;

    struct smap ops, mods, tokcache;
    struct decoded *dec;
    uint32_t ndec, capdec;
    uint16_t *dmods;
    uint32_t ndmods, capdmods;
    struct fmtinfo fmt[OP__COUNT];

    /* module vectors */
    struct ir_func *funcs;
    uint32_t nfuncs, capfuncs;
    struct ir_sym *syms;
    uint32_t nsyms, capsyms;
    struct ir_reloc *relocs;
    uint32_t nrelocs, caprelocs;
    struct pending_reloc *prelocs;
    uint32_t nprelocs, capprelocs;
    uint8_t *data;
    uint32_t ndata, capdata;
    uint32_t *files;
    uint32_t nfiles, capfiles;
    uint32_t *sections;
    uint32_t nsections, capsections;
    struct ir_pragma *pragmas;
    uint32_t npragmas, cappragmas;
    char *pbuf;              /* the .pragma string list being read */
    uint32_t npbuf, cappbuf;
    uint32_t pragma_line, pragma_off;
    uint32_t head_pragma_off; /* first .pragma of the function header being read + 1, 0 = none */
    uint32_t body_sym0, body_reg0; /* syms / regs before the body's first statement */
    struct ir_loc *locs;     /* .loc directives no instruction carries */
    uint32_t nlocs, caplocs;
    uint32_t head_line;
    struct ir_regdecl *mregs; /* module-scope .reg declarations */
    uint32_t nmregs, capmregs;

    /* declaration state */
    struct {
        uint8_t linkage, space, type, vec, ptr, managed, has_space, has_type, ptr_space;
        uint32_t align;
        uint32_t ptr_align; /* `.ptr … .align N`: the pointee's alignment */
        uint32_t off;
    } spec;
    struct {
        struct ptx_tok name;
        uint32_t dims[4];
        uint8_t ndims;
        uint8_t has_init, depth;
        uint32_t pos;     /* next element index of the initializer */
        uint8_t *img;
        uint32_t nimg, capimg;
        uint32_t reloc0;
        uint32_t *tex;    /* texture initializer (field, value) pairs */
        uint32_t ntex, captex;
    } decl;
    int has_unified;         /* .attribute(.unified(a, b)) of the function header */
    uint64_t unified[2];

    /* function state */
    int32_t cur;             /* function index being built, -1 at module scope */
    int in_body;
    struct ir_sym *pend;     /* parameters seen before the function exists */
    uint32_t npend, cappend;
    uint32_t npend_ret;
    int pend_is_ret;
    int perf_kind;
    uint32_t perf_n;
    struct {
        struct ir_insn *insns;
        uint32_t ninsns, capinsns;
        struct ir_opnd *opnds;
        uint32_t nopnds, capopnds;
        uint16_t *mods;
        uint32_t nmods, capmods;
        uint32_t *tables;
        uint32_t ntables, captables;
        struct ir_label *labels;
        uint32_t nlabels, caplabels;
        uint32_t *label_ents;
        uint32_t nlabel_ents, caplabel_ents;
        struct ir_regdecl *regs;
        uint32_t nregs, capregs;
        uint32_t nslots[RF__COUNT];
        struct fixup *fix;
        uint32_t nfix, capfix;
        struct ir_table_name *tabn;
        uint32_t ntabn, captabn;
    } fb;
    struct binding *binds;
    uint32_t nbinds, capbinds;
    uint32_t depth;
    uint32_t scope_mark[64];
    uint32_t loc_file, loc_line, loc_col, loc_ext;
    uint32_t loc_nlabel;     /* labels defined before the current .loc */
    int loc_pending;         /* the current .loc has no instruction yet */
    uint32_t table_cur, table_n; /* .branchtargets being read */
    int table_call;
    int32_t table_ent;

    /* instruction state */
    int in_insn;
    struct ir_insn insn;
    struct ptx_tok insn_tok;
    uint32_t guard;
    uint8_t guard_neg, guard_cc;
    int has_guard;
    int ccd_cand;            /* operand 0 is a predicate where a value is due: a PTXPlus
                                flag destination `$p|$r` if a '|' follows, else an error */
    uint32_t ccd_off, ccd_len;
    int has_ccd;             /* ccd holds the PTXPlus flag destination (appended at the end) */
    struct ir_opnd ccd;
    struct ir_opnd ops_top[64];
    uint32_t ops_off[64];
    uint32_t ntop;
    uint32_t pos;            /* format position of the next top-level operand */
    int pipe_pending;
    int pipe_seen;           /* the instruction has a `d|p` destination (ISA notes) */
    int in_list;             /* OPK_VEC / OPK_PARAMS being read */
    uint32_t list_top;       /* its index in ops_top */
    struct ir_opnd *elems;
    uint32_t nelems, capelems;
    int in_addr;
    struct ir_opnd addr;
    uint32_t addr_off;
    int insn_bad;

    /* ISA version / target notes (isa_req.def) */
    uint16_t isa_ver;        /* module .version as major << 8 | minor; UINT16_MAX: absent */
    uint16_t isa_sm;         /* module .target sm_NN; UINT16_MAX: absent */
    uint16_t isa_af;         /* the target's ISA_SM* bit (ISA_AF_OTHER: an unknown a/f
                                target), 0: a plain sm_NN, ISA_AF_ANY: no sm_ target */
    char isa_target[16];     /* the sm_ token as written */
    uint32_t isa_nnotes, isa_suppressed;
    uint8_t *isa_seen;       /* 3 bits per (rule, opcode): note given for version/target/arch */
};

/* ===================================================== ISA version / target notes */

/* A minimum PTX ISA version (major << 8 | minor) and target (sm_NN, arch 'a': needs an
 * architecture-specific or family target) — one per opcode and one per rule (isa_req.def). */
struct isa_req {
    uint16_t ver;
    uint16_t sm;
    uint16_t arch; /* 0 or ISA_SM* bits (build.h) */
};

static const struct isa_req isa_op_req[OP__COUNT] = {
#define REQ(id, maj, min, sm, arch) [OP_##id] = {(maj) << 8 | (min), sm, arch},
#include "frontend/isa_req.def"
#undef REQ
};

enum isa_rule {
    ISR_OPCODE = 0, /* the opcode's own row */
#define RULE(id, maj, min, sm, arch) ISR_##id,
#include "frontend/isa_req.def"
#undef RULE
    ISR__COUNT
};
_Static_assert(ISR__COUNT <= 256, "rule ids are kept in 8 bits");

static const struct isa_req isa_rule_req[ISR__COUNT] = {
#define RULE(id, maj, min, sm, arch) [ISR_##id] = {(maj) << 8 | (min), sm, arch},
#include "frontend/isa_req.def"
#undef RULE
};

/* The a/f targets of the ISA_SM* bits, in bit order (the names in "not supported" notes). */
static const struct {
    uint16_t sm;
    char suffix;
} isa_af_targets[] = {{90, 'a'},  {100, 'a'}, {100, 'f'}, {103, 'a'}, {103, 'f'}, {110, 'a'},
                      {110, 'f'}, {120, 'a'}, {120, 'f'}, {121, 'a'}, {121, 'f'}};
_Static_assert(sizeof isa_af_targets / sizeof *isa_af_targets + 1 == 12 &&
                   ISA_AF_OTHER == 1 << 11,
               "one isa_af_targets row per ISA_SM* bit");

/* The ISA_SM* bit of target sm_<sm><suffix> (suffix 'a' or 'f'); ISA_AF_OTHER if unknown. */
static unsigned isa_af_bit(unsigned sm, char suffix)
{
    for (unsigned i = 0; i < sizeof isa_af_targets / sizeof *isa_af_targets; i++)
        if (isa_af_targets[i].sm == sm && isa_af_targets[i].suffix == suffix)
            return 1u << i;
    return ISA_AF_OTHER;
}

static void isa_feature(struct ptx_builder *b, unsigned rule, const char *what, int len,
                        uint32_t off);
#define ISA_FEATURE(b, rule, lit, off) isa_feature(b, rule, lit, (int)sizeof(lit) - 1, off)

#define ISA_AF_FREE 0xffffu /* decoded.af_mask: no a/f restriction (ISA_AF_ANY is one) */
_Static_assert(ISA_AF_ANY < ISA_AF_FREE, "ISA_AF_FREE is not a set of targets");
#define ISA_NOTE_CAP 20 /* notes per module; the rest are counted in one summary note */
#define TB(t) (UINT64_C(1) << (t))
_Static_assert(T__COUNT <= 64, "type sets are 64-bit masks");

static int b_grow(struct ptx_builder *b, void **arr, uint32_t *cap, size_t esz)
{
    uint32_t ncap = *cap ? *cap * 2 : 16;
    void *p = realloc(*arr, (size_t)ncap * esz);
    if (!p) {
        b->oom = 1;
        return -1;
    }
    *arr = p;
    *cap = ncap;
    return 0;
}

static void b_err(struct ptx_builder *b, uint32_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void b_err(struct ptx_builder *b, uint32_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(b->d, DIAG_ERROR, off, fmt, ap);
    va_end(ap);
}

static inline const char *tok_s(const struct ptx_builder *b, struct ptx_tok t)
{
    return b->text + t.off;
}

/* ------------------------------------------------------------------------ string map */

static uint64_t b_hash(const char *s, size_t n)
{
    return XXH3_64bits(s, n);
}

static int smap_init(struct smap *m, uint32_t cap)
{
    m->cap = cap;
    m->n = 0;
    m->keys = calloc(cap, sizeof *m->keys);
    m->lens = calloc(cap, sizeof *m->lens);
    m->vals = calloc(cap, sizeof *m->vals);
    return m->keys && m->lens && m->vals ? 0 : -1;
}

static void smap_free(struct smap *m)
{
    free(m->keys);
    free(m->lens);
    free(m->vals);
}

static int32_t smap_get(const struct smap *m, const char *s, size_t n)
{
    uint32_t i = (uint32_t)b_hash(s, n) & (m->cap - 1);
    for (; m->keys[i]; i = (i + 1) & (m->cap - 1))
        if (m->lens[i] == n && memcmp(m->keys[i], s, n) == 0)
            return m->vals[i];
    return -1;
}

static int smap_put(struct smap *m, const char *s, size_t n, int32_t v)
{
    if (2 * (m->n + 1) > m->cap) {
        struct smap nm;
        if (smap_init(&nm, m->cap * 2) < 0) {
            smap_free(&nm);
            return -1;
        }
        for (uint32_t i = 0; i < m->cap; i++)
            if (m->keys[i])
                smap_put(&nm, m->keys[i], m->lens[i], m->vals[i]);
        smap_free(m);
        *m = nm;
    }
    uint32_t i = (uint32_t)b_hash(s, n) & (m->cap - 1);
    for (; m->keys[i]; i = (i + 1) & (m->cap - 1))
        if (m->lens[i] == n && memcmp(m->keys[i], s, n) == 0) {
            m->vals[i] = v;
            return 0;
        }
    m->keys[i] = s;
    m->lens[i] = (uint32_t)n;
    m->vals[i] = v;
    m->n++;
    return 0;
}

/* ------------------------------------------------------------------------ interning */

static int32_t ent_find(struct ptx_builder *b, const char *s, size_t n, uint64_t h)
{
    for (uint32_t i = (uint32_t)h & (b->hcap - 1);; i = (i + 1) & (b->hcap - 1)) {
        uint32_t e = b->htab[i];
        if (!e)
            return -1;
        struct ent *en = &b->ents[e - 1];
        if (en->hash == h && en->len == n && memcmp(b->strtab + en->id, s, n) == 0)
            return (int32_t)(e - 1);
    }
}

/* Entry of name s (created when absent). -1 when out of memory. */
static int32_t ent_get(struct ptx_builder *b, const char *s, size_t n)
{
    uint64_t h = b_hash(s, n);
    int32_t e = ent_find(b, s, n, h);
    if (e >= 0)
        return e;
    if (2 * (b->nents + 1) > b->hcap) {
        uint32_t ncap = b->hcap * 2;
        uint32_t *nt = calloc(ncap, sizeof *nt);
        if (!nt) {
            b->oom = 1;
            return -1;
        }
        for (uint32_t k = 0; k < b->nents; k++) {
            uint32_t i = (uint32_t)b->ents[k].hash & (ncap - 1);
            while (nt[i])
                i = (i + 1) & (ncap - 1);
            nt[i] = k + 1;
        }
        free(b->htab);
        b->htab = nt;
        b->hcap = ncap;
    }
    while (b->nstr + n + 1 > b->capstr) {
        uint32_t c = b->capstr;
        if (b_grow(b, (void **)&b->strtab, &c, 1) < 0)
            return -1;
        b->capstr = c;
    }
    uint32_t id = b->nstr;
    memcpy(b->strtab + id, s, n);
    b->strtab[id + n] = 0;
    b->nstr += (uint32_t)n + 1;
    struct ent en = {id, (uint32_t)n, h, -1, -1, -1, -1, 0};
    uint32_t k = b->nents;
    VEC_PUSH(b, b->ents, b->nents, b->capents, en);
    if (b->nents != k + 1)
        return -1;
    uint32_t i = (uint32_t)h & (b->hcap - 1);
    while (b->htab[i])
        i = (i + 1) & (b->hcap - 1);
    b->htab[i] = k + 1;
    return (int32_t)k;
}

static uint32_t str_id(struct ptx_builder *b, const char *s, size_t n)
{
    int32_t e = ent_get(b, s, n);
    return e >= 0 ? b->ents[e].id : 0;
}

/* ======================================================================= setup, tables */

static void fmt_parse(struct fmtinfo *fi, const char *f)
{
    memset(fi, 0, sizeof *fi);
    int opt = 0;
    for (const char *p = f; *p; p++) {
        char c = *p;
        if (c == ',' || c == ']' || c == ' ')
            continue;
        if (c == '[') {
            opt = 1;
            continue;
        }
        if (c == '*') {
            fi->star = 1;
            continue;
        }
        if (c == '|') {
            if (p[1] && fi->n < 16) {
                p++;
                fi->pos[fi->n++] = (struct fmtpos){*p, (uint8_t)opt, 1};
            }
            continue;
        }
        if (fi->n < 16)
            fi->pos[fi->n++] = (struct fmtpos){c, (uint8_t)opt, 0};
    }
    fi->nreq = 0;
    for (unsigned i = 0; i < fi->n; i++)
        if (!fi->pos[i].opt && !fi->pos[i].pipe2)
            fi->nreq = (uint8_t)(i + 1);
}

static int b_setup(struct ptx_builder *b)
{
    b->hcap = 4096;
    b->htab = calloc(b->hcap, sizeof *b->htab);
    b->capstr = 65536;
    b->strtab = malloc(b->capstr);
    if (!b->htab || !b->strtab)
        return -1;
    b->strtab[0] = 0;
    b->nstr = 1;
    if (smap_init(&b->ops, 1024) < 0 || smap_init(&b->mods, 2048) < 0 ||
        smap_init(&b->tokcache, 4096) < 0)
        return -1;
    for (int i = 0; i < OP__COUNT; i++) {
        const char *s = ir_op_name((enum ir_op)i);
        if (smap_put(&b->ops, s, strlen(s), i) < 0)
            return -1;
        fmt_parse(&b->fmt[i], ir_op_format((enum ir_op)i));
    }
    for (int i = 1; i < MOD__COUNT; i++) {
        const char *s = ir_mod_name((enum ir_mod)i);
        if (smap_put(&b->mods, s, strlen(s), i) < 0)
            return -1;
    }
    for (int i = 1; i < SR__COUNT; i++) {
        const char *s = ir_sreg_name((enum ir_sreg)i);
        if (!*s)
            continue;
        int32_t e = ent_get(b, s, strlen(s));
        if (e < 0)
            return -1;
        b->ents[e].sreg = i;
    }
    b->cur = -1;
    b->guard = IR_NOGUARD;
    return b->oom ? -1 : 0;
}

/* ============================================================================ numbers */

/* Decode an integer literal token (decimal, 0x, 0b, octal, U suffix). */
int ptx_parse_int(const char *s, size_t len, uint64_t *out)
{
    if (len && (s[len - 1] == 'U' || s[len - 1] == 'u'))
        len--;
    if (!len)
        return -1;
    unsigned base = 10;
    size_t i = 0;
    if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        base = 16, i = 2;
    else if (len > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
        base = 2, i = 2;
    else if (len > 1 && s[0] == '0')
        base = 8, i = 1;
    uint64_t v = 0;
    for (; i < len; i++) {
        char c = s[i];
        unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                            : 99;
        if (d >= base)
            return -1;
        if (v > (UINT64_MAX - d) / base)
            return -1;
        v = v * base + d;
    }
    *out = v;
    return 0;
}

static uint64_t hexbits(const char *s, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        v = v << 4 | (uint64_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return v;
}

/* A numeric literal, classified. */
struct num {
    int is_float;   /* 0 integer, 1 0f (f32 bits), 2 0d (f64 bits), 3 decimal float */
    uint64_t u;     /* integer value or bits */
    double f;       /* value for floats */
};

static int num_decode(struct ptx_builder *b, struct ptx_tok t, int neg, struct num *n)
{
    const char *s = tok_s(b, t);
    memset(n, 0, sizeof *n);
    if (t.len == 10 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F')) {
        n->is_float = 1;
        n->u = hexbits(s + 2, 8);
        float f;
        uint32_t u32 = (uint32_t)n->u;
        memcpy(&f, &u32, 4);
        n->f = f;
        if (neg) {
            n->u ^= 0x80000000u;
            n->f = -n->f;
        }
        return 0;
    }
    if (t.len == 18 && s[0] == '0' && (s[1] == 'd' || s[1] == 'D')) {
        n->is_float = 2;
        n->u = hexbits(s + 2, 16);
        memcpy(&n->f, &n->u, 8);
        if (neg) {
            n->u ^= UINT64_C(1) << 63;
            n->f = -n->f;
        }
        return 0;
    }
    int isf = 0;
    for (uint32_t i = 0; i < t.len; i++)
        if (s[i] == '.' || ((s[i] == 'e' || s[i] == 'E') && !(t.len > 1 && (s[1] == 'x' || s[1] == 'X'))))
            isf = 1;
    if (isf) {
        char buf[128];
        size_t l = t.len < sizeof buf - 1 ? t.len : sizeof buf - 1;
        memcpy(buf, s, l);
        buf[l] = 0;
        n->is_float = 3;
        n->f = strtod(buf, NULL);
        if (neg)
            n->f = -n->f;
        memcpy(&n->u, &n->f, 8);
        return 0;
    }
    if (ptx_parse_int(s, t.len, &n->u) < 0) {
        b_err(b, t.off, "invalid integer literal '%.*s'", (int)t.len, s);
        return -1;
    }
    if (neg)
        n->u = 0 - n->u;
    return 0;
}

static int type_is_float(unsigned t)
{
    return t == T_F16 || t == T_F16X2 || t == T_BF16 || t == T_BF16X2 || t == T_F32 ||
           t == T_F64 || t == T_TF32 || t == T_F32X2;
}

/* Bits of double v rounded (to nearest, ties to even) to a binary format with ebits exponent
 * and mbits mantissa bits: subnormals, overflow to infinity, NaN kept quiet. Integer code
 * only (no _Float16, which not every compiler has), and a single rounding from the double. */
static uint32_t f64_to_small(double v, unsigned ebits, unsigned mbits)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    uint32_t sign = (uint32_t)(u >> 63) << (ebits + mbits);
    int e = (int)(u >> 52 & 0x7ff);
    uint64_t man = u & ((UINT64_C(1) << 52) - 1);
    uint32_t emax = (1u << ebits) - 1;
    if (e == 0x7ff) /* inf / NaN */
        return sign | emax << mbits | (man ? 1u << (mbits - 1) | (uint32_t)(man >> (52 - mbits)) : 0);
    if (e == 0 && man == 0)
        return sign;
    int bias = (1 << (ebits - 1)) - 1;
    int ne = e - 1023 + bias; /* biased exponent in the small format */
    uint64_t sig = man | (e ? UINT64_C(1) << 52 : 0); /* 53-bit significand, value sig * 2^(e-1075) */
    if (e == 0)
        ne = 1 - 1023 + bias; /* double subnormal: far below any small format's range */
    unsigned shift = 52 - mbits; /* bits dropped for a normal result */
    if (ne <= 0) {               /* subnormal result: drop 1 - ne more bits */
        unsigned extra = (unsigned)(1 - ne);
        shift = extra > 63 ? 63 : shift + extra;
        if (shift > 63)
            shift = 63; /* everything is dropped: rounds to zero (sig < 2^53) */
        ne = 0;
    }
    uint64_t q = sig >> shift;
    uint64_t rem = sig & ((UINT64_C(1) << shift) - 1);
    uint64_t half = UINT64_C(1) << (shift - 1);
    if (rem > half || (rem == half && (q & 1)))
        q++;
    /* q holds the implicit bit for normals; carry into the exponent is handled by addition */
    uint64_t bits;
    if (ne == 0)
        bits = q; /* subnormal (may round up into the smallest normal: the encoding is right) */
    else
        bits = ((uint64_t)(unsigned)ne << mbits) + (q - (UINT64_C(1) << mbits));
    if (bits >= (uint64_t)emax << mbits)
        bits = (uint64_t)emax << mbits; /* overflow: infinity */
    return sign | (uint32_t)bits;
}

/* Bits of literal n as a value of type t; -1 (reported) when the literal does not fit the
 * type's kind. */
static int num_convert(struct ptx_builder *b, const struct num *n, unsigned t, uint32_t off,
                       uint64_t *out)
{
    if (type_is_float(t) && t != T_F16X2 && t != T_BF16X2 && t != T_F32X2) {
        double v = n->is_float ? n->f : (double)(int64_t)n->u;
        if (n->is_float == 0 && t != T_F64 && t != T_F32) {
            /* integer literal for a half type: take the bits (ptxas accepts bit patterns) */
            *out = n->u;
            return 0;
        }
        if (n->is_float == 0) {
            b_err(b, off, "integer literal used as a floating-point operand (use 0f/0d)");
            return -1;
        }
        if (t == T_F64) {
            if (n->is_float == 1) {
                v = n->f;
            }
            memcpy(out, &v, 8);
        } else if (t == T_F32 || t == T_TF32) {
            float f = (float)v;
            uint32_t u;
            memcpy(&u, &f, 4);
            *out = n->is_float == 1 ? (n->u & 0xffffffffu) : u;
        } else if (t == T_F16) {
            *out = f64_to_small(v, 5, 10);
        } else {
            *out = f64_to_small(v, 8, 7);
        }
        return 0;
    }
    if (n->is_float == 3) {
        b_err(b, off, "floating-point literal used as an integer operand");
        return -1;
    }
    uint64_t v = n->u;
    unsigned sz = ir_type_size(t);
    if (sz && sz < 8) {
        unsigned bits = sz * 8;
        v &= (UINT64_C(1) << bits) - 1;
        if (t == T_S8 || t == T_S16 || t == T_S32)
            v = (uint64_t)((int64_t)(v << (64 - bits)) >> (64 - bits));
    }
    *out = v;
    return 0;
}

/* ======================================================================== registers */

static unsigned rf_of_type(unsigned t)
{
    if (t == T_PRED)
        return RF_PRED;
    unsigned s = ir_type_size(t);
    if (s <= 2)
        return RF_B16;
    if (s == 4)
        return RF_B32;
    return RF_B64;
}

static unsigned slots_of_type(unsigned t)
{
    return ir_type_size(t) > 8 ? (ir_type_size(t) + 7) / 8 : 1;
}

static void bind_push(struct ptx_builder *b, int32_t e, uint8_t kind, uint32_t idx, uint32_t off)
{
    struct ent *en = &b->ents[e];
    if (en->bind >= 0 && b->binds[en->bind].depth == b->depth) {
        b_err(b, off, "duplicate declaration of '%s'", b->strtab + en->id);
        return;
    }
    struct binding bd = {(uint32_t)e, en->bind, b->depth, kind, idx};
    uint32_t k = b->nbinds;
    VEC_PUSH(b, b->binds, b->nbinds, b->capbinds, bd);
    if (b->nbinds == k + 1)
        b->ents[e].bind = (int32_t)k;
}

static void binds_pop_to(struct ptx_builder *b, uint32_t mark)
{
    while (b->nbinds > mark) {
        struct binding *bd = &b->binds[--b->nbinds];
        b->ents[bd->ent].bind = bd->prev;
    }
}

static void reg_declare(struct ptx_builder *b, int32_t e, unsigned type, unsigned vec,
                        uint32_t count, uint32_t off)
{
    if (b->cur < 0) {
        struct ir_regdecl r = {b->ents[e].id, count, (uint8_t)type, (uint8_t)vec,
                               (uint8_t)rf_of_type(type), 0, 0};
        VEC_PUSH(b, b->mregs, b->nmregs, b->capmregs, r);
        return;
    }
    unsigned rf = rf_of_type(type);
    uint32_t per = slots_of_type(type) * (vec ? vec : 1);
    uint32_t n = count ? count : 1;
    struct ir_regdecl r = {b->ents[e].id, count, (uint8_t)type, (uint8_t)(vec ? vec : 1),
                           (uint8_t)rf, 0, b->fb.nslots[rf]};
    if ((uint64_t)b->fb.nslots[rf] + (uint64_t)n * per > (1u << 24)) {
        b_err(b, off, "too many registers");
        return;
    }
    b->fb.nslots[rf] += n * per;
    uint32_t k = b->fb.nregs;
    VEC_PUSH(b, b->fb.regs, b->fb.nregs, b->fb.capregs, r);
    if (b->fb.nregs == k + 1)
        bind_push(b, e, count ? BK_RANGE : BK_REG, k, off);
}

/* Resolve a register name: 0 and *out filled, or -1 when not a register. */
static int reg_resolve(struct ptx_builder *b, const char *s, size_t n, int32_t e,
                       const struct ir_regdecl **rd, uint32_t *slot)
{
    if (e >= 0 && b->ents[e].bind >= 0) {
        struct binding *bd = &b->binds[b->ents[e].bind];
        if (bd->kind == BK_REG) {
            *rd = &b->fb.regs[bd->idx];
            *slot = (*rd)->slot;
            return 0;
        }
        return -1;
    }
    size_t k = n;
    while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9')
        k--;
    if (k == n || k == 0 || (n - k > 1 && s[k] == '0') || n - k > 9)
        return -1;
    uint64_t h = b_hash(s, k);
    int32_t pe = ent_find(b, s, k, h);
    if (pe < 0 || b->ents[pe].bind < 0)
        return -1;
    struct binding *bd = &b->binds[b->ents[pe].bind];
    if (bd->kind != BK_RANGE)
        return -1;
    uint32_t idx = 0;
    for (size_t i = k; i < n; i++)
        idx = idx * 10 + (uint32_t)(s[i] - '0');
    const struct ir_regdecl *r = &b->fb.regs[bd->idx];
    if (idx >= r->count)
        return -1;
    *rd = r;
    *slot = r->slot + idx * slots_of_type(r->type) * r->vec;
    return 0;
}

/* ======================================================================= module level */

/* Report a syntax error at the offending token and abandon the statement being built. */
void b_syntax_error(struct ptx_builder *b, int major, struct ptx_tok t)
{
    if (major == 0)
        b_err(b, t.off, "syntax error at end of input");
    else
        b_err(b, t.off, "syntax error at '%.*s'", (int)(t.len > 40 ? 40 : t.len),
              tok_s(b, t));
    b->in_insn = 0;
    b->in_list = 0;
    b->in_addr = 0;
    b->has_guard = 0;
    b->guard = IR_NOGUARD;
    memset(&b->spec, 0, sizeof b->spec);
    b->decl.ndims = 0;
    b->decl.has_init = 0;
    b->decl.depth = 0;
}

/* .version MAJOR.MINOR */
void b_version(struct ptx_builder *b, struct ptx_tok t)
{
    const char *s = tok_s(b, t);
    unsigned maj = 0, min = 0;
    uint32_t i = 0;
    for (; i < t.len && s[i] != '.'; i++)
        maj = maj * 10 + (unsigned)(s[i] - '0');
    for (i++; i < t.len; i++)
        if (s[i] >= '0' && s[i] <= '9')
            min = min * 10 + (unsigned)(s[i] - '0');
    if (maj > 255 || min > 255 || maj == 0) {
        b_err(b, t.off, "invalid .version '%.*s'", (int)t.len, s);
        return;
    }
    b->m->version_major = (uint8_t)maj;
    b->m->version_minor = (uint8_t)min;
    b->isa_ver = (uint16_t)(maj << 8 | min);
}

/* One item of .target (sm_XX[a|f], texmode_*, debug, map_f64_to_f32). */
void b_target(struct ptx_builder *b, struct ptx_tok t)
{
    struct ir_module *m = b->m;
    const char *s = tok_s(b, t);
    size_t cl = strlen(m->target);
    if (cl + t.len + 3 < sizeof m->target) {
        if (cl)
            strcat(m->target, ", ");
        strncat(m->target, s, t.len);
    }
    if (t.len > 3 && memcmp(s, "sm_", 3) == 0) {
        unsigned v = 0;
        for (uint32_t i = 3; i < t.len && s[i] >= '0' && s[i] <= '9'; i++)
            v = v * 10 + (unsigned)(s[i] - '0');
        m->target_sm = v;
        b->isa_sm = (uint16_t)(v < UINT16_MAX ? v : UINT16_MAX - 1);
        char suf = s[t.len - 1];
        b->isa_af = (uint16_t)(suf == 'a' || suf == 'f' ? isa_af_bit(v, suf) : 0);
        snprintf(b->isa_target, sizeof b->isa_target, "%.*s", (int)t.len, s);
    } else if (t.len == 5 && memcmp(s, "debug", 5) == 0) {
        m->target_debug = true;
        ISA_FEATURE(b, ISR_DIR_TARGET_DEBUG, ".target debug", t.off);
    } else if (t.len == 19 && memcmp(s, "texmode_independent", 19) == 0) {
        m->texmode_independent = true;
    } else if (t.len == 14 && memcmp(s, "map_f64_to_f32", 14) == 0) {
        m->map_f64_to_f32 = true;
    } else if (!(t.len == 15 && memcmp(s, "texmode_unified", 15) == 0) &&
               !(t.len > 8 && memcmp(s, "compute_", 8) == 0)) {
        b_err(b, t.off, "unknown target '%.*s'", (int)t.len, s);
    }
}

/* .address_size 32|64 */
void b_address_size(struct ptx_builder *b, struct ptx_tok kw, struct ptx_tok t)
{
    uint64_t v = 0;
    if (ptx_parse_int(tok_s(b, t), t.len, &v) < 0 || (v != 32 && v != 64)) {
        b_err(b, t.off, ".address_size must be 32 or 64");
        return;
    }
    b->m->address_size = (uint8_t)v;
    b->m->address_size_declared = true;
    ISA_FEATURE(b, ISR_DIR_ADDRESS_SIZE, ".address_size", kw.off);
}

/* .file N "name" */
void b_file(struct ptx_builder *b, struct ptx_tok idx, struct ptx_tok name)
{
    uint64_t v = 0;
    if (ptx_parse_int(tok_s(b, idx), idx.len, &v) < 0 || v > 65535) {
        b_err(b, idx.off, "invalid .file index");
        return;
    }
    while (b->nfiles <= v)
        VEC_PUSH(b, b->files, b->nfiles, b->capfiles, 0u);
    if (b->oom)
        return;
    b->files[v] = str_id(b, tok_s(b, name) + 1, name.len - 2);
    /* `, timestamp, size` after the name (the grammar's fextra; the source is NUL-terminated) */
    for (const char *p = tok_s(b, name) + name.len; *p && *p != '\n' && *p != '/'; p++)
        if (*p == ',') {
            ISA_FEATURE(b, ISR_DIR_FILE_TIMESTAMP, ".file timestamp and size",
                        (uint32_t)(p - tok_s(b, name)) + name.off);
            break;
        }
}

/* The current .loc had no instruction before the next .loc or the end of the body: keep it
 * (ir_module.locs). */
static void loc_flush(struct ptx_builder *b)
{
    if (!b->loc_pending || b->cur < 0)
        return;
    b->loc_pending = 0;
    struct ir_loc l = {b->cur, b->fb.ninsns, b->loc_nlabel, b->loc_file, b->loc_line,
                       b->loc_col, b->loc_ext};
    VEC_PUSH(b, b->locs, b->nlocs, b->caplocs, l);
}

/* .loc FILE LINE COL[, function_name L][, inlined_at F L C]: later instructions carry
 * FILE:LINE:COL; what follows the column is kept as written (printed back). */
void b_loc(struct ptx_builder *b, struct ptx_tok file, struct ptx_tok line, struct ptx_tok col)
{
    uint64_t f = 0, l = 0, c = 0;
    if (ptx_parse_int(tok_s(b, file), file.len, &f) < 0 ||
        ptx_parse_int(tok_s(b, line), line.len, &l) < 0 ||
        ptx_parse_int(tok_s(b, col), col.len, &c) < 0 || f > UINT32_MAX || l > UINT32_MAX ||
        c > UINT32_MAX) {
        b_err(b, file.off, "invalid .loc");
        return;
    }
    loc_flush(b);
    b->loc_pending = b->cur >= 0 && b->in_body;
    b->loc_nlabel = b->fb.nlabels;
    b->loc_file = (uint32_t)f;
    b->loc_line = (uint32_t)l;
    b->loc_col = (uint32_t)c;
    b->loc_ext = 0;
    /* the rest of the line (the grammar's locx), up to a comment; the source is
       NUL-terminated */
    const char *p = tok_s(b, col) + col.len, *e = p;
    while (*e && *e != '\n' && !(e[0] == '/' && (e[1] == '/' || e[1] == '*')))
        e++;
    while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        e--;
    if (e > p)
        b->loc_ext = str_id(b, p, (size_t)(e - p));
    static const char ia[] = "inlined_at";
    for (; p < e; p++)
        if (*p == 'i' && strncmp(p, ia, sizeof ia - 1) == 0) {
            ISA_FEATURE(b, ISR_DIR_LOC_INLINED_AT, ".loc inlined_at",
                        (uint32_t)(p - tok_s(b, col)) + col.off);
            break;
        }
}

/* .section .debug_* { … }: kept verbatim (ir_module.sections) for printing. Label definitions
 * (PTX 7.0) and label+immediate expressions (PTX 3.2) in the block are noted at their line. */
void b_section(struct ptx_builder *b, struct ptx_tok t)
{
    uint32_t id = str_id(b, tok_s(b, t), t.len);
    VEC_PUSH(b, b->sections, b->nsections, b->capsections, id);
    const char *s = tok_s(b, t), *e = s + t.len, *p = memchr(s, '{', t.len);
    if (!p || b->isa_ver >= (7u << 8))
        return;
    while (p && p < e) {
        const char *l = p + 1, *q;
        p = memchr(l, '\n', (size_t)(e - l));
        const char *le = p ? p : e;
        while (l < le && (*l == ' ' || *l == '\t'))
            l++;
        q = l;
        if (q < le && *q == '.') /* .b8 / .b16 / .b32 / .b64 item */
            while (q < le && *q != ' ' && *q != '\t')
                q++;
        if (q == l) { /* NAME: */
            while (q < le && (isalnum((unsigned char)*q) || *q == '_' || *q == '$' || *q == '.'))
                q++;
            if (q > l && q < le && *q == ':')
                ISA_FEATURE(b, ISR_DIR_SECTION_LABEL, "label in a .section",
                            (uint32_t)(l - s) + t.off);
            continue;
        }
        while (q < le && (*q == ' ' || *q == '\t'))
            q++;
        const char *v = q;
        if (q < le && (isalpha((unsigned char)*q) || *q == '_' || *q == '$' || *q == '.'))
            while (q < le && (isalnum((unsigned char)*q) || *q == '_' || *q == '$' || *q == '.'))
                q++;
        while (q < le && (*q == ' ' || *q == '\t'))
            q++;
        if (q > v && q < le && (*q == '+' || *q == '-'))
            ISA_FEATURE(b, ISR_DIR_SECTION_LABEL_EXPR, "label + immediate in a .section",
                        (uint32_t)(v - s) + t.off);
    }
}

/* A string of a .pragma list: checked ("used_bytes_mask" needs PTX 8.3, noted) and appended
 * to the list being read. */
void b_pragma(struct ptx_builder *b, struct ptx_tok t)
{
    static const char ubm[] = "\"used_bytes_mask";
    static const char spill[] = "\"enable_smem_spilling";
    if (t.len >= sizeof ubm - 1 && memcmp(tok_s(b, t), ubm, sizeof ubm - 1) == 0)
        ISA_FEATURE(b, ISR_DIR_USED_BYTES_MASK, ".pragma \"used_bytes_mask\"", t.off);
    if (t.len >= sizeof spill - 1 && memcmp(tok_s(b, t), spill, sizeof spill - 1) == 0)
        ISA_FEATURE(b, ISR_DIR_SMEM_SPILLING, ".pragma \"enable_smem_spilling\"", t.off);
    uint32_t need = b->npbuf + t.len + 3;
    if (need > b->cappbuf) {
        uint32_t cap = b->cappbuf ? b->cappbuf : 64;
        while (cap < need)
            cap *= 2;
        char *nb = realloc(b->pbuf, cap);
        if (!nb) {
            b->oom = 1;
            return;
        }
        b->pbuf = nb;
        b->cappbuf = cap;
    }
    if (b->npbuf) {
        memcpy(b->pbuf + b->npbuf, ", ", 2);
        b->npbuf += 2;
    }
    memcpy(b->pbuf + b->npbuf, tok_s(b, t), t.len);
    b->npbuf += t.len;
}

/* The .pragma keyword (its version note): a new string list starts. */
void b_pragma_kw(struct ptx_builder *b, struct ptx_tok kw)
{
    ISA_FEATURE(b, ISR_DIR_PRAGMA, ".pragma", kw.off);
    b->npbuf = 0;
    b->pragma_line = kw.line;
    b->pragma_off = kw.off;
}

/* ';' of a .pragma: record it (ir_module.pragmas) with where it stood — module scope, a
 * function header, or before the next instruction of a body (after the labels so far). */
void b_pragma_end(struct ptx_builder *b)
{
    if (!b->npbuf)
        return;
    struct ir_pragma pr = {.str = str_id(b, b->pbuf, b->npbuf), .func = -1,
                           .line = b->pragma_line, .where = PRAGMA_MODULE};
    if (b->cur >= 0) {
        pr.func = b->cur;
        if (b->in_body) {
            pr.where = b->fb.ninsns == 0 && b->fb.nlabels == 0 && b->nsyms == b->body_sym0 &&
                               b->fb.nregs == b->body_reg0 && b->fb.ntabn == 0
                           ? PRAGMA_BODY_TOP
                           : PRAGMA_BODY;
            pr.pc = b->fb.ninsns;
            pr.nlabel = b->fb.nlabels;
        } else {
            pr.where = PRAGMA_HEAD;
            if (!b->head_pragma_off)
                b->head_pragma_off = b->pragma_off + 1;
        }
    }
    b->npbuf = 0;
    VEC_PUSH(b, b->pragmas, b->npragmas, b->cappragmas, pr);
}

/* .alias a, b: a names the same function as b. */
void b_alias(struct ptx_builder *b, struct ptx_tok kw, struct ptx_tok a, struct ptx_tok c)
{
    ISA_FEATURE(b, ISR_DIR_ALIAS, ".alias", kw.off);
    int32_t ec = ent_get(b, tok_s(b, c), c.len), ea = ent_get(b, tok_s(b, a), a.len);
    if (ec < 0 || ea < 0)
        return;
    if (b->ents[ec].gfunc < 0) {
        b_err(b, c.off, "undefined function '%.*s'", (int)c.len, tok_s(b, c));
        return;
    }
    if (b->ents[ea].gfunc < 0) {
        b_err(b, a.off, "undefined function '%.*s'", (int)a.len, tok_s(b, a));
        return;
    }
    if (b->ents[ea].gfunc != b->ents[ec].gfunc)
        b->funcs[b->ents[ea].gfunc].alias_of = (uint32_t)b->ents[ec].gfunc + 1;
    b->ents[ea].gfunc = b->ents[ec].gfunc;
}

/* ======================================================================= declarations */

/* One declaration specifier (.global, .align, .v4, .u32, .visible, .ptr, …). */
void b_spec(struct ptx_builder *b, enum b_spec kind, struct ptx_tok t)
{
    const char *s = tok_s(b, t) + 1;
    size_t n = t.len - 1;
    if (!b->spec.has_space && !b->spec.has_type && !b->spec.linkage)
        b->spec.off = t.off;
    switch (kind) {
    case BS_LINK:
        b->spec.linkage = s[0] == 'v' ? LNK_VISIBLE : s[0] == 'e' ? LNK_EXTERN
                          : s[0] == 'w' ? LNK_WEAK : LNK_COMMON;
        if (b->spec.linkage == LNK_WEAK)
            ISA_FEATURE(b, ISR_DIR_WEAK, ".weak", t.off);
        if (b->spec.linkage == LNK_COMMON)
            ISA_FEATURE(b, ISR_DIR_COMMON, ".common", t.off);
        break;
    case BS_SPACE: {
        unsigned sp = SP_NONE;
        if (n == 3 && memcmp(s, "reg", 3) == 0)
            sp = SP_REG;
        else if (n == 4 && memcmp(s, "sreg", 4) == 0)
            sp = SP_SREG;
        else if (n == 3 && memcmp(s, "tex", 3) == 0)
            sp = SP_TEX;
        else {
            int md = smap_get(&b->mods, s, n);
            sp = md > 0 ? (unsigned)ir_mod_value((enum ir_mod)md) : SP_NONE;
        }
        if (b->spec.ptr) { /* .ptr .global: the pointed-to space */
            if (sp != SP_GLOBAL && sp != SP_SHARED && sp != SP_CONST && sp != SP_LOCAL)
                b_err(b, t.off, "'.ptr' must be followed by .global, .shared, .const or .local");
            b->spec.ptr_space = (uint8_t)sp;
            break;
        }
        b->spec.space = (uint8_t)sp;
        b->spec.has_space = 1;
        break;
    }
    case BS_VEC:
        b->spec.vec = (uint8_t)(s[1] - '0');
        break;
    case BS_TYPE: {
        int md = smap_get(&b->mods, s, n);
        if (md > 0 && ir_mod_kind((enum ir_mod)md) == MK_TYPE) {
            b->spec.type = (uint8_t)ir_mod_value((enum ir_mod)md);
            b->spec.has_type = 1;
            if (b->spec.type == T_B128)
                ISA_FEATURE(b, ISR_DIR_B128, ".b128", t.off);
        } else {
            b_err(b, t.off, "unknown type '%.*s'", (int)t.len, tok_s(b, t));
        }
        break;
    }
    case BS_PTR:
        b->spec.ptr = 1;
        ISA_FEATURE(b, ISR_DIR_PTR, ".ptr", t.off);
        break;
    case BS_ALIGN:
        break;
    case BS_ATTR:
        if (n == 7 && memcmp(s, "managed", 7) == 0) {
            b->spec.managed = 1;
            ISA_FEATURE(b, ISR_DIR_MANAGED, ".attribute(.managed)", t.off);
        }
        break;
    case BS_DOTNAME: {
        int md = smap_get(&b->mods, s, n);
        if (md > 0 && ir_mod_kind((enum ir_mod)md) == MK_TYPE) {
            b->spec.type = (uint8_t)ir_mod_value((enum ir_mod)md);
            b->spec.has_type = 1;
        } else {
            b_err(b, t.off, "unexpected '%.*s' in declaration", (int)t.len, tok_s(b, t));
        }
        break;
    }
    }
}

/* .align N; after `.ptr` it is the pointee's alignment (`.param .u64 .ptr .align 1 p`), which
 * leaves the parameter's own (natural) alignment and so the parameter layout alone. */
void b_spec_align(struct ptx_builder *b, struct ptx_tok n)
{
    uint64_t v = 0;
    if (ptx_parse_int(tok_s(b, n), n.len, &v) < 0 || v == 0 || (v & (v - 1)) || v > 65536) {
        b_err(b, n.off, "alignment must be a power of two");
        return;
    }
    if (b->spec.ptr)
        b->spec.ptr_align = (uint32_t)v;
    else
        b->spec.align = (uint32_t)v;
}

/* The name of a variable being declared (dimensions and initializer follow). */
void b_decl_name(struct ptx_builder *b, struct ptx_tok name)
{
    b->decl.name = name;
    b->decl.ndims = 0;
    b->decl.has_init = 0;
    b->decl.depth = 0;
    b->decl.pos = 0;
    b->decl.nimg = 0;
    b->decl.ntex = 0;
    b->decl.reloc0 = b->nrelocs;
}

/* %r<N>: a range of N registers. */
void b_decl_range(struct ptx_builder *b, struct ptx_tok name, struct ptx_tok n)
{
    uint64_t v = 0;
    if (b->spec.space != SP_REG) {
        b_err(b, name.off, "'<N>' ranges are only allowed for .reg");
        return;
    }
    if (ptx_parse_int(tok_s(b, n), n.len, &v) < 0 || v == 0 || v > (1u << 24)) {
        b_err(b, n.off, "invalid register count");
        return;
    }
    int32_t e = ent_get(b, tok_s(b, name), name.len);
    if (e >= 0)
        reg_declare(b, e, b->spec.type, b->spec.vec, (uint32_t)v, name.off);
}

/* One array dimension ([N] or [] when has == 0). */
void b_decl_dim(struct ptx_builder *b, struct ptx_tok n, int has)
{
    uint64_t v = 0;
    if (has && (ptx_parse_int(tok_s(b, n), n.len, &v) < 0 || v == 0 || v > (1u << 31))) {
        b_err(b, n.off, "invalid array dimension");
        v = 1;
    }
    if (b->decl.ndims >= 4) {
        b_err(b, n.off, "too many array dimensions");
        return;
    }
    b->decl.dims[b->decl.ndims++] = (uint32_t)v;
}

static unsigned elem_size(struct ptx_builder *b)
{
    return ir_type_size(b->spec.type) * (b->spec.vec ? b->spec.vec : 1);
}

static uint8_t *init_slot(struct ptx_builder *b, uint32_t off)
{
    unsigned es = ir_type_size(b->spec.type);
    if (!es) {
        b_err(b, off, "initializer for a variable without a sized type");
        return NULL;
    }
    uint64_t at = (uint64_t)b->decl.pos * es;
    if (at + es > (1u << 30)) {
        b_err(b, off, "initializer too large");
        return NULL;
    }
    while (b->decl.capimg < at + es) {
        uint32_t c = b->decl.capimg;
        if (b_grow(b, (void **)&b->decl.img, &c, 1) < 0)
            return NULL;
        memset(b->decl.img + b->decl.capimg, 0, c - b->decl.capimg);
        b->decl.capimg = c;
    }
    if (b->decl.nimg < at + es)
        b->decl.nimg = (uint32_t)(at + es);
    b->decl.pos++;
    return b->decl.img + at;
}

/* '{' of an initializer. */
void b_init_open(struct ptx_builder *b, struct ptx_tok t)
{
    (void)t;
    b->decl.has_init = 1;
    b->decl.depth++;
}

/* '}' of an initializer: a nested list pads to its sub-array size. */
void b_init_close(struct ptx_builder *b)
{
    unsigned d = b->decl.depth;
    if (d >= 2 && d - 1 < b->decl.ndims) {
        uint64_t stride = 1;
        for (unsigned i = d - 1; i < b->decl.ndims; i++)
            stride *= b->decl.dims[i] ? b->decl.dims[i] : 1;
        stride *= b->spec.vec ? b->spec.vec : 1;
        if (stride && b->decl.pos % stride)
            b->decl.pos += (uint32_t)(stride - b->decl.pos % stride);
    }
    if (b->decl.depth)
        b->decl.depth--;
}

/* A numeric initializer element. */
void b_init_num(struct ptx_builder *b, struct ptx_tok t, int neg)
{
    struct num n;
    uint64_t v;
    b->decl.has_init = 1;
    if (num_decode(b, t, neg, &n) < 0 || num_convert(b, &n, b->spec.type, t.off, &v) < 0)
        return;
    uint8_t *p = init_slot(b, t.off);
    if (p)
        memcpy(p, &v, ir_type_size(b->spec.type)); /* little-endian host */
}

static void init_sym(struct ptx_builder *b, struct ptx_tok fn, struct ptx_tok sym, int has_fn,
                     struct ptx_tok add, int addsign, unsigned mask_byte);

/* A symbol initializer element: sym, sym+N, generic(sym), generic(sym)+N. */
void b_init_sym(struct ptx_builder *b, struct ptx_tok fn, struct ptx_tok sym, int has_fn,
                struct ptx_tok add, int addsign)
{
    init_sym(b, fn, sym, has_fn, add, addsign, 0);
}

/* A byte of an address: MASK(sym…) with MASK = 0xFF << 8k stores byte k of the address (the
 * PTX mask(…) initializer form, ir_reloc.mask_byte = k + 1). */
void b_init_mask(struct ptx_builder *b, struct ptx_tok mask, struct ptx_tok fn,
                 struct ptx_tok sym, int has_fn, struct ptx_tok add, int addsign)
{
    uint64_t v = 0;
    b->decl.has_init = 1;
    unsigned k = 0;
    ISA_FEATURE(b, ISR_DIR_INIT_MASK, "mask operator in an initializer", mask.off);
    if (ptx_parse_int(tok_s(b, mask), mask.len, &v) < 0)
        k = 8;
    while (k < 8 && v != (UINT64_C(0xff) << (8 * k)))
        k++;
    if (k == 8) {
        b_err(b, mask.off, "invalid mask '%.*s' (expected 0xFF shifted by a whole byte)",
              (int)mask.len, tok_s(b, mask));
        return;
    }
    init_sym(b, fn, sym, has_fn, add, addsign, k + 1);
}

/* One member of a .texref / .samplerref / .surfref initializer: KEY = keyword or integer. */
void b_init_field(struct ptx_builder *b, struct ptx_tok key, struct ptx_tok val, int is_int)
{
    b->decl.has_init = 1;
    unsigned t = b->spec.type;
    if (t != T_TEXREF && t != T_SAMPLERREF && t != T_SURFREF) {
        b_err(b, key.off, "member initializers are only allowed for .texref, .samplerref and "
                          ".surfref variables");
        return;
    }
    int f = ir_texfield_lookup(tok_s(b, key), key.len);
    if (f < 0) {
        b_err(b, key.off, "unknown texture member '%.*s'", (int)key.len, tok_s(b, key));
        return;
    }
    if (f == TXF_FORCE_UNNORMALIZED_COORDS)
        ISA_FEATURE(b, ISR_TXQ_UNNORM, "force_unnormalized_coords", key.off);
    int kw = f == TXF_ADDR_MODE_0 || f == TXF_ADDR_MODE_1 || f == TXF_ADDR_MODE_2 ||
             f == TXF_FILTER_MODE;
    uint64_t v = 0;
    if (kw) {
        int x = is_int ? -1 : ir_texval_lookup(tok_s(b, val), val.len);
        int ok = x >= 0 && (f == TXF_FILTER_MODE ? x >= TXV_NEAREST : x < TXV_NEAREST);
        if (!ok) {
            b_err(b, val.off, "invalid value '%.*s' for '%s'", (int)val.len, tok_s(b, val),
                  ir_texfield_name((enum ir_texfield)f));
            return;
        }
        v = (uint64_t)x;
    } else if (!is_int || ptx_parse_int(tok_s(b, val), val.len, &v) < 0 || v > UINT32_MAX) {
        b_err(b, val.off, "invalid value '%.*s' for '%s'", (int)val.len, tok_s(b, val),
              ir_texfield_name((enum ir_texfield)f));
        return;
    }
    VEC_PUSH(b, b->decl.tex, b->decl.ntex, b->decl.captex, (uint32_t)f);
    VEC_PUSH(b, b->decl.tex, b->decl.ntex, b->decl.captex, (uint32_t)v);
}

static void init_sym(struct ptx_builder *b, struct ptx_tok fn, struct ptx_tok sym, int has_fn,
                     struct ptx_tok add, int addsign, unsigned mask_byte)
{
    b->decl.has_init = 1;
    int generic = 0;
    ISA_FEATURE(b, ISR_DIR_INIT_ADDR, "address in an initializer", sym.off);
    if (has_fn)
        ISA_FEATURE(b, ISR_DIR_INIT_GENERIC, "generic() in an initializer", fn.off);
    if (has_fn) {
        if (fn.len == 7 && memcmp(tok_s(b, fn), "generic", 7) == 0)
            generic = 1;
        else {
            b_err(b, fn.off, "unknown initializer operator '%.*s'", (int)fn.len, tok_s(b, fn));
            return;
        }
    }
    int64_t addend = 0;
    if (addsign) {
        uint64_t v = 0;
        if (ptx_parse_int(tok_s(b, add), add.len, &v) < 0) {
            b_err(b, add.off, "invalid offset");
            return;
        }
        addend = (int64_t)(addsign < 0 ? 0 - v : v);
    }
    unsigned es = ir_type_size(b->spec.type);
    if (mask_byte ? (es != 1 && es != 2 && es != 4 && es != 8) : (es != 4 && es != 8)) {
        b_err(b, sym.off, "address initializer needs a 32- or 64-bit element type");
        return;
    }
    uint32_t at = b->decl.pos * es;
    if (!init_slot(b, sym.off))
        return;
    int32_t e = ent_get(b, tok_s(b, sym), sym.len);
    if (e < 0)
        return;
    struct ir_reloc r = {at, addend, 0, (uint8_t)es, (uint8_t)generic, 0, (uint8_t)mask_byte};
    uint32_t k = b->nrelocs;
    VEC_PUSH(b, b->relocs, b->nrelocs, b->caprelocs, r);
    if (b->nrelocs != k + 1)
        return;
    struct pending_reloc pr = {k, (uint32_t)e, sym.off};
    VEC_PUSH(b, b->prelocs, b->nprelocs, b->capprelocs, pr);
}

static struct ir_sym sym_from_spec(struct ptx_builder *b, struct ptx_tok name)
{
    struct ir_sym s;
    memset(&s, 0, sizeof s);
    s.name = str_id(b, tok_s(b, name), name.len);
    s.space = b->spec.space;
    s.type = b->spec.type;
    s.vec = b->spec.vec ? b->spec.vec : 1;
    s.linkage = b->spec.linkage;
    s.align = b->spec.align;
    if (!s.align) {
        unsigned es = ir_type_size(s.type) * s.vec;
        s.align = es ? es : 1;
    }
    if (b->spec.managed)
        s.flags |= VF_MANAGED;
    if (b->spec.ptr) {
        s.flags |= VF_PARAM_PTR;
        s.ptr_space = b->spec.ptr_space;
        s.ptr_align = b->spec.ptr_align;
    }
    s.func = b->cur;
    s.ndims = b->decl.ndims;
    uint64_t size = elem_size(b);
    for (unsigned i = 0; i < s.ndims; i++) {
        s.dims[i] = b->decl.dims[i];
        size *= b->decl.dims[i];
    }
    s.size = size;
    s.line = name.line;
    s.reloc = s.nreloc = 0;
    return s;
}

/* End of one declared name: create the register or variable. */
void b_decl_finish(struct ptx_builder *b)
{
    struct ptx_tok name = b->decl.name;
    if (!b->spec.has_space) {
        b_err(b, name.off, "declaration of '%.*s' without a state space", (int)name.len,
              tok_s(b, name));
        return;
    }
    if (b->spec.space == SP_REG) {
        if (b->decl.ndims || b->decl.has_init) {
            b_err(b, name.off, "registers cannot be arrays or have initializers");
            return;
        }
        int32_t e = ent_get(b, tok_s(b, name), name.len);
        if (e >= 0)
            reg_declare(b, e, b->spec.type, b->spec.vec, 0, name.off);
        return;
    }
    if (!b->spec.has_type) {
        b_err(b, name.off, "declaration of '%.*s' without a type", (int)name.len,
              tok_s(b, name));
        return;
    }
    struct ir_sym s = sym_from_spec(b, name);
    if (b->decl.has_init) {
        unsigned es = elem_size(b);
        if (s.ndims && s.dims[0] == 0 && es) {
            uint64_t inner = 1;
            for (unsigned i = 1; i < s.ndims; i++)
                inner *= s.dims[i];
            uint64_t cnt = ((uint64_t)b->decl.nimg + es - 1) / es;
            s.dims[0] = (uint32_t)((cnt + inner - 1) / (inner ? inner : 1));
            s.size = (uint64_t)s.dims[0] * inner * es;
        }
        if (b->decl.nimg > s.size) {
            b_err(b, name.off, "too many initializers for '%.*s'", (int)name.len,
                  tok_s(b, name));
            b->nrelocs = b->decl.reloc0;
            return;
        }
        s.init = b->ndata;
        s.ninit = b->decl.nimg;
        for (uint32_t i = 0; i < b->decl.nimg; i++)
            VEC_PUSH(b, b->data, b->ndata, b->capdata, b->decl.img[i]);
        s.reloc = b->decl.reloc0;
        s.nreloc = b->nrelocs - b->decl.reloc0;
        if (b->decl.ntex) {
            while (b->ndata % 4)
                VEC_PUSH(b, b->data, b->ndata, b->capdata, 0);
            s.tex_init = b->ndata;
            s.ntex_init = b->decl.ntex / 2;
            for (uint32_t i = 0; i < b->decl.ntex; i++)
                for (unsigned k = 0; k < 4; k++)
                    VEC_PUSH(b, b->data, b->ndata, b->capdata,
                             (uint8_t)(b->decl.tex[i] >> (8 * k)));
        }
    }
    if (s.space == SP_SHARED && s.linkage == LNK_EXTERN && s.ndims && s.dims[0] == 0)
        s.flags |= VF_DYNAMIC;
    int32_t e = ent_get(b, tok_s(b, name), name.len);
    if (e < 0)
        return;
    uint32_t k = b->nsyms;
    if (b->cur < 0) {
        int32_t old = b->ents[e].gsym;
        if (old >= 0) {
            struct ir_sym *o = &b->syms[old];
            if (o->linkage == LNK_EXTERN || s.linkage == LNK_EXTERN ||
                o->linkage == LNK_WEAK || o->linkage == LNK_COMMON) {
                if (s.linkage != LNK_EXTERN)
                    *o = s;
                return;
            }
            b_err(b, name.off, "duplicate declaration of '%.*s'", (int)name.len,
                  tok_s(b, name));
            return;
        }
        if (b->ents[e].gfunc >= 0) {
            b_err(b, name.off, "'%.*s' is already declared as a function", (int)name.len,
                  tok_s(b, name));
            return;
        }
    }
    VEC_PUSH(b, b->syms, b->nsyms, b->capsyms, s);
    if (b->nsyms != k + 1)
        return;
    if (b->cur < 0)
        b->ents[e].gsym = (int32_t)k;
    else
        bind_push(b, e, BK_SYM, k, name.off);
}

/* ';' after a declaration: forget its specifiers. */
void b_decl_end(struct ptx_builder *b)
{
    memset(&b->spec, 0, sizeof b->spec);
    b->decl.ndims = 0;
}

/* ========================================================================== functions */

static void fb_reset(struct ptx_builder *b)
{
    b->fb.ninsns = b->fb.nopnds = b->fb.nmods = b->fb.ntables = 0;
    b->fb.nlabels = b->fb.nlabel_ents = b->fb.nregs = b->fb.nfix = b->fb.ntabn = 0;
    memset(b->fb.nslots, 0, sizeof b->fb.nslots);
}

/* .entry / .func keyword: a function header starts (linkage from the specifiers). */
void b_func_head(struct ptx_builder *b, struct ptx_tok kw, int is_entry)
{
    struct ir_func f;
    memset(&f, 0, sizeof f);
    f.is_entry = (uint8_t)is_entry;
    f.linkage = b->spec.linkage;
    f.line = kw.line;
    b->head_line = kw.line;
    memset(&b->spec, 0, sizeof b->spec);
    b->npend = 0;
    b->npend_ret = 0;
    b->cur = -1;
    b->in_body = 0;
    b->has_unified = 0;
    /* the function is created at its name; keep the header in funcs[nfuncs] scratch */
    if (b->nfuncs == b->capfuncs && b_grow(b, (void **)&b->funcs, &b->capfuncs, sizeof f) < 0)
        return;
    b->funcs[b->nfuncs] = f;
}

/* .attribute(.unified(uid0, uid1)) after .func: the function's unified identity. */
void b_func_unified(struct ptx_builder *b, struct ptx_tok attr, struct ptx_tok x,
                    struct ptx_tok y)
{
    if (!(attr.len == 8 && memcmp(tok_s(b, attr), ".unified", 8) == 0)) {
        b_err(b, attr.off, "unknown function attribute '%.*s'", (int)attr.len, tok_s(b, attr));
        return;
    }
    ISA_FEATURE(b, ISR_DIR_UNIFIED, ".attribute(.unified)", attr.off);
    if (ptx_parse_int(tok_s(b, x), x.len, &b->unified[0]) < 0 ||
        ptx_parse_int(tok_s(b, y), y.len, &b->unified[1]) < 0) {
        b_err(b, x.off, "invalid .unified identifier");
        return;
    }
    b->has_unified = 1;
}

/* ')' of the return parameter list: what was collected so far are return parameters. */
void b_params_ret(struct ptx_builder *b)
{
    b->npend_ret = b->npend;
}

/* One parameter name (its specifiers and dimensions were given before). */
void b_param_name(struct ptx_builder *b, struct ptx_tok name)
{
    if (!b->spec.has_type)
        b_err(b, name.off, "parameter '%.*s' without a type", (int)name.len, tok_s(b, name));
    if (b->spec.has_space && b->spec.space != SP_PARAM && b->spec.space != SP_REG)
        b_err(b, name.off, "parameter '%.*s' must be in .param or .reg", (int)name.len,
              tok_s(b, name));
    if (!b->spec.has_space)
        b->spec.space = SP_PARAM;
    struct ir_sym s = sym_from_spec(b, name);
    s.space = SP_PARAM;
    memset(&b->spec, 0, sizeof b->spec);
    b->decl.ndims = 0;
    VEC_PUSH(b, b->pend, b->npend, b->cappend, s);
}

static void pend_flush(struct ptx_builder *b, uint32_t from, uint32_t to, uint32_t *first,
                       uint32_t *count, int is_ret)
{
    if (*count && *count == to - from) {
        /* a declaration seen before: reuse its parameter variables (names as now written) */
        for (uint32_t i = 0; i < *count; i++) {
            struct ir_sym *o = &b->syms[*first + i];
            uint32_t fl = o->flags, line = o->line;
            *o = b->pend[from + i];
            o->line = line; /* the first declaration's position (printing order) */
            o->func = b->cur;
            o->flags |= (fl & VF_RETURN) | (is_ret ? VF_RETURN : 0);
        }
        return;
    }
    if (*count)
        b_err(b, 0, "conflicting parameter lists for '%s'",
              b->strtab + b->funcs[b->cur].name);
    *first = b->nsyms;
    *count = to - from;
    for (uint32_t i = from; i < to; i++) {
        struct ir_sym s = b->pend[i];
        s.func = b->cur;
        if (is_ret)
            s.flags |= VF_RETURN;
        VEC_PUSH(b, b->syms, b->nsyms, b->capsyms, s);
    }
}

/* The function's name: create (or find the earlier declaration of) the function. */
void b_func_name(struct ptx_builder *b, struct ptx_tok name)
{
    if (b->oom || b->nfuncs >= b->capfuncs)
        return;
    int32_t e = ent_get(b, tok_s(b, name), name.len);
    if (e < 0)
        return;
    struct ir_func f = b->funcs[b->nfuncs];
    f.name = b->ents[e].id;
    int32_t old = b->ents[e].gfunc;
    if (b->ents[e].gsym >= 0) {
        b_err(b, name.off, "'%.*s' is already declared as a variable", (int)name.len,
              tok_s(b, name));
    }
    if (old >= 0) {
        b->cur = old;
        struct ir_func *o = &b->funcs[old];
        if (o->is_entry != f.is_entry)
            b_err(b, name.off, "'%.*s' redeclared as a different kind of function",
                  (int)name.len, tok_s(b, name));
        if (f.linkage && f.linkage != LNK_EXTERN)
            o->linkage = f.linkage;
    } else {
        b->cur = (int32_t)b->nfuncs++;
        b->funcs[b->cur] = f;
        b->ents[e].gfunc = b->cur;
    }
    struct ir_func *cf = &b->funcs[b->cur];
    if (b->has_unified) {
        cf->has_unified = 1;
        cf->unified[0] = b->unified[0];
        cf->unified[1] = b->unified[1];
    }
    pend_flush(b, 0, b->npend_ret, &cf->ret, &cf->nret, 1);
    b->npend = 0;
    b->npend_ret = 0;
    b->perf_kind = 0;
}

static void params_done(struct ptx_builder *b)
{
    if (b->cur < 0 || b->npend == UINT32_MAX)
        return;
    struct ir_func *cf = &b->funcs[b->cur];
    pend_flush(b, 0, b->npend, &cf->param, &cf->nparam, 0);
    b->npend = UINT32_MAX;
}

/* A performance directive keyword (.maxntid, .reqntid, .noreturn, …). */
void b_perf(struct ptx_builder *b, struct ptx_tok t)
{
    params_done(b);
    if (b->cur < 0)
        return;
    const char *s = tok_s(b, t) + 1;
    size_t n = t.len - 1;
    struct ir_func *f = &b->funcs[b->cur];
    b->perf_n = 0;
#define IS(w) (n == sizeof(w) - 1 && memcmp(s, w, n) == 0)
    b->perf_kind = IS("maxntid") ? 1 : IS("reqntid") ? 2 : IS("minnctapersm") ? 3
                   : IS("maxnreg") ? 4 : IS("maxclusterrank") ? 5
                   : IS("reqnctapercluster") ? 6 : IS("abi_preserve") ? 7
                   : IS("abi_preserve_control") ? 8 : IS("local_maxnreg") ? 9 : 0;
    if (IS("noreturn")) {
        f->noreturn = 1;
        isa_feature(b, ISR_DIR_NORETURN, s - 1, (int)t.len, t.off);
    }
    if (b->perf_kind == 2)
        isa_feature(b, ISR_DIR_REQNTID, s - 1, (int)t.len, t.off);
    if (b->perf_kind == 3)
        isa_feature(b, ISR_DIR_MINNCTAPERSM, s - 1, (int)t.len, t.off);
    if (b->perf_kind == 9)
        isa_feature(b, ISR_DIR_LOCAL_MAXNREG, s - 1, (int)t.len, t.off);
    if (IS("blocksareclusters")) {
        f->blocksareclusters = 1;
        isa_feature(b, ISR_DIR_BLOCKSARECLUSTERS, s - 1, (int)t.len, t.off);
    }
    if (IS("explicitcluster"))
        f->explicitcluster = 1;
    if (IS("explicitcluster") || b->perf_kind == 5 || b->perf_kind == 6)
        isa_feature(b, ISR_DIR_CLUSTER, s - 1, (int)t.len, t.off);
    if (b->perf_kind == 7 || b->perf_kind == 8)
        isa_feature(b, ISR_DIR_ABI_PRESERVE, s - 1, (int)t.len, t.off);
#undef IS
}

/* One integer of a performance directive. */
void b_perf_int(struct ptx_builder *b, struct ptx_tok t)
{
    uint64_t v = 0;
    if (b->cur < 0)
        return;
    if (ptx_parse_int(tok_s(b, t), t.len, &v) < 0 || v > UINT32_MAX) {
        b_err(b, t.off, "invalid value");
        return;
    }
    struct ir_func *f = &b->funcs[b->cur];
    unsigned i = b->perf_n++;
    uint32_t *dst = NULL;
    switch (b->perf_kind) {
    case 1: dst = i < 3 ? &f->maxntid[i] : NULL; break;
    case 2: dst = i < 3 ? &f->reqntid[i] : NULL; break;
    case 3: dst = i < 1 ? &f->minnctapersm : NULL; break;
    case 4: dst = i < 1 ? &f->maxnreg : NULL; break;
    case 5: dst = i < 1 ? &f->maxclusterrank : NULL; break;
    case 6: dst = i < 3 ? &f->reqnctapercluster[i] : NULL; break;
    case 7: dst = i < 1 ? &f->abi_preserve : NULL; break;
    case 8: dst = i < 1 ? &f->abi_preserve_control : NULL; break;
    case 9: dst = i < 1 ? &f->local_maxnreg : NULL; break;
    default: break;
    }
    if (dst)
        *dst = (uint32_t)v;
    else if (b->perf_kind)
        b_err(b, t.off, "too many values");
}

/* '{' of a function body: bind parameters, start instruction arrays. */
void b_func_body(struct ptx_builder *b, struct ptx_tok t)
{
    params_done(b);
    b->head_pragma_off = 0;
    if (b->cur < 0)
        return;
    struct ir_func *f = &b->funcs[b->cur];
    if (f->defined)
        b_err(b, t.off, "redefinition of function '%s'", b->strtab + f->name);
    f->defined = 1;
    f->line = b->head_line;
    fb_reset(b);
    b->in_body = 1;
    b->depth = 1;
    b->nbinds = 0;
    b->loc_file = b->loc_line = b->loc_col = b->loc_ext = 0;
    b->loc_pending = 0;
    for (uint32_t i = 0; i < f->nret + f->nparam; i++) {
        uint32_t si = i < f->nret ? f->ret + i : f->param + i - f->nret;
        const char *nm = b->strtab + b->syms[si].name;
        int32_t e = ent_get(b, nm, strlen(nm));
        if (e >= 0)
            bind_push(b, e, BK_SYM, si, t.off);
        f = &b->funcs[b->cur];
    }
    for (uint32_t i = 0; i < b->nmregs; i++) {
        struct ir_regdecl r = b->mregs[i];
        const char *nm = b->strtab + r.name;
        int32_t e = ent_get(b, nm, strlen(nm));
        if (e >= 0)
            reg_declare(b, e, r.type, r.vec, r.count, t.off);
    }
    b->body_sym0 = b->nsyms;
    b->body_reg0 = b->fb.nregs;
}

/* ';' of a function declaration without a body. */
void b_func_decl_end(struct ptx_builder *b)
{
    params_done(b);
    if (b->head_pragma_off) /* as ptxas: a syntax error there */
        b_err(b, b->head_pragma_off - 1, ".pragma in a function declaration (allowed in the "
                                         "header of a definition)");
    b->head_pragma_off = 0;
    b->cur = -1;
}

#define ADOPT(dst, src, n)                                                                    \
    do {                                                                                      \
        size_t bytes_ = (size_t)(n) * sizeof *(src);                                          \
        void *p_ = ir_arena_alloc(b->m->arena, bytes_ ? bytes_ : 1);                          \
        if (!p_) {                                                                            \
            b->oom = 1;                                                                       \
            break;                                                                            \
        }                                                                                     \
        if (bytes_)                                                                           \
            memcpy(p_, (src), bytes_);                                                        \
        (dst) = p_;                                                                           \
    } while (0)

/* '}' of a function body: resolve labels, move the arrays into the module arena. */
void b_func_end(struct ptx_builder *b, struct ptx_tok t)
{
    (void)t;
    if (b->cur < 0 || !b->in_body)
        return;
    /* label fixups */
    for (uint32_t i = 0; i < b->fb.nfix; i++) {
        struct fixup *fx = &b->fb.fix[i];
        struct ent *en = &b->ents[fx->ent];
        if (en->label < 0) {
            b_err(b, fx->off, "undefined label '%s'", b->strtab + en->id);
            continue;
        }
        uint32_t pc = b->fb.labels[en->label].pc;
        if (fx->opnd == UINT32_MAX) {
            b->fb.tables[fx->table] = pc;
        } else {
            b->fb.opnds[fx->opnd].imm.u = pc;
            struct ir_insn *in = &b->fb.insns[fx->insn];
            if (in->op == OP_BRA || in->op == OP_BREAKADDR || in->op == OP_SSY ||
                in->op == OP_CALLP)
                in->target = pc;
        }
    }
    loc_flush(b);
    for (uint32_t i = 0; i < b->fb.nlabel_ents; i++)
        b->ents[b->fb.label_ents[i]].label = -1;
    binds_pop_to(b, 0);
    struct ir_func *f = &b->funcs[b->cur];
    /* copied into the arena: the builder keeps its grown arrays for the next function */
    ADOPT(f->insns, b->fb.insns, b->fb.ninsns);
    f->ninsns = b->fb.ninsns;
    ADOPT(f->opnds, b->fb.opnds, b->fb.nopnds);
    f->nopnds = b->fb.nopnds;
    ADOPT(f->mods, b->fb.mods, b->fb.nmods);
    f->nmods = b->fb.nmods;
    ADOPT(f->tables, b->fb.tables, b->fb.ntables);
    f->ntables = b->fb.ntables;
    ADOPT(f->labels, b->fb.labels, b->fb.nlabels);
    f->nlabels = b->fb.nlabels;
    ADOPT(f->regdecls, b->fb.regs, b->fb.nregs);
    f->nregdecls = b->fb.nregs;
    ADOPT(f->table_names, b->fb.tabn, b->fb.ntabn);
    f->ntable_names = b->fb.ntabn;
    for (int r = 0; r < RF__COUNT; r++)
        f->nslots[r] = f->ndeclared[r] = b->fb.nslots[r];
    b->cur = -1;
    b->in_body = 0;
    b->depth = 0;
}

/* '{' of a nested block. */
void b_scope_begin(struct ptx_builder *b, struct ptx_tok t)
{
    if (b->depth >= 63) {
        b_err(b, t.off, "blocks nested too deeply");
        return;
    }
    b->scope_mark[b->depth] = b->nbinds;
    b->depth++;
}

/* '}' of a nested block: its declarations go out of scope. */
void b_scope_end(struct ptx_builder *b)
{
    if (b->depth <= 1)
        return;
    b->depth--;
    binds_pop_to(b, b->scope_mark[b->depth]);
}

/* NAME: — a label at the next instruction. */
void b_label(struct ptx_builder *b, struct ptx_tok t)
{
    if (b->cur < 0 || !b->in_body) {
        b_err(b, t.off, "label outside a function body");
        return;
    }
    int32_t e = ent_get(b, tok_s(b, t), t.len);
    if (e < 0)
        return;
    if (b->ents[e].label >= 0) {
        b_err(b, t.off, "duplicate label '%.*s'", (int)t.len, tok_s(b, t));
        return;
    }
    struct ir_label l = {b->ents[e].id, b->fb.ninsns};
    uint32_t k = b->fb.nlabels;
    VEC_PUSH(b, b->fb.labels, b->fb.nlabels, b->fb.caplabels, l);
    VEC_PUSH(b, b->fb.label_ents, b->fb.nlabel_ents, b->fb.caplabel_ents, (uint32_t)e);
    if (b->fb.nlabels == k + 1)
        b->ents[e].label = (int32_t)k;
}

/* NAME: .branchtargets (labels for brx.idx) / .calltargets (functions for an indirect call:
 * the table holds function indices). */
void b_table_begin(struct ptx_builder *b, struct ptx_tok name, struct ptx_tok kw, int is_call)
{
    isa_feature(b, is_call ? ISR_DIR_CALLTARGETS : ISR_DIR_BRANCHTARGETS, tok_s(b, kw),
                (int)kw.len, kw.off);
    b->table_call = is_call;
    b->table_cur = b->fb.ntables;
    b->table_n = 0;
    b->table_ent = -1;
    if (b->cur < 0 || !b->in_body) {
        b_err(b, name.off, "label list outside a function body");
        return;
    }
    b->table_ent = ent_get(b, tok_s(b, name), name.len);
}

/* One label of a list. */
void b_table_entry(struct ptx_builder *b, struct ptx_tok t)
{
    if (b->table_ent < 0)
        return;
    int32_t e = ent_get(b, tok_s(b, t), t.len);
    if (e < 0)
        return;
    uint32_t k = b->fb.ntables;
    if (b->table_call) {
        if (b->ents[e].gfunc < 0) {
            b_err(b, t.off, "undefined function '%.*s'", (int)t.len, tok_s(b, t));
            return;
        }
        VEC_PUSH(b, b->fb.tables, b->fb.ntables, b->fb.captables, (uint32_t)b->ents[e].gfunc);
        b->table_n++;
        return;
    }
    VEC_PUSH(b, b->fb.tables, b->fb.ntables, b->fb.captables, IR_NOPC);
    struct fixup fx = {UINT32_MAX, 0, (uint32_t)e, t.off, k};
    VEC_PUSH(b, b->fb.fix, b->fb.nfix, b->fb.capfix, fx);
    b->table_n++;
}

/* ';' of a label list: bind its name. */
void b_table_end(struct ptx_builder *b)
{
    if (b->table_ent < 0)
        return;
    /* the binding index packs first (24 bits) and count (8 bits) */
    if (b->table_n > 255 || b->table_cur >= (1u << 24)) {
        b_err(b, 0, "label list too long");
        return;
    }
    bind_push(b, b->table_ent, BK_TABLE, b->table_cur << 8 | b->table_n, 0);
    struct ir_table_name tn = {b->ents[b->table_ent].id, b->table_cur, b->table_n,
                               (uint8_t)b->table_call, {0, 0, 0}};
    VEC_PUSH(b, b->fb.tabn, b->fb.ntabn, b->fb.captabn, tn);
}

/* NAME: .callprototype …; — kept as a VF_CALLPROTOTYPE variable whose init is the string id
 * of the declaration text (from .callprototype to before ';'). */
void b_proto(struct ptx_builder *b, struct ptx_tok name, struct ptx_tok kw, struct ptx_tok semi)
{
    ISA_FEATURE(b, ISR_DIR_CALLPROTOTYPE, ".callprototype", kw.off);
    struct ir_sym s;
    memset(&s, 0, sizeof s);
    int32_t e = ent_get(b, tok_s(b, name), name.len);
    if (e < 0)
        return;
    s.name = b->ents[e].id;
    s.func = b->cur;
    s.flags = VF_CALLPROTOTYPE;
    s.vec = 1;
    s.line = name.line;
    s.init = str_id(b, b->text + kw.off, semi.off - kw.off);
    uint32_t k = b->nsyms;
    VEC_PUSH(b, b->syms, b->nsyms, b->capsyms, s);
    if (b->nsyms == k + 1) {
        if (b->cur >= 0)
            bind_push(b, e, BK_SYM, k, name.off);
        else
            b->ents[e].gsym = (int32_t)k;
    }
}

/* ======================================================================= instructions */

/* Position of the last '.' of an identifier token (a register suffix: `$p0.ne`, `%r1.b0`,
 * `$r0.lo`, `%v.x`), or 0 when there is none. */
static uint32_t id_dot(const char *s, uint32_t n)
{
    for (uint32_t i = n; i-- > 1;)
        if (s[i] == '.')
            return i;
    return 0;
}

/* Resolve the register of an identifier with a suffix: base name before the last '.'. */
static int reg_resolve_base(struct ptx_builder *b, const char *s, uint32_t dot,
                            const struct ir_regdecl **rd, uint32_t *slot)
{
    int32_t e = ent_find(b, s, dot, b_hash(s, dot));
    return reg_resolve(b, s, dot, e, rd, slot);
}

/* @p / @!p guard of the next instruction (PTXPlus: @$p0.ne tests a condition code). */
void b_guard(struct ptx_builder *b, struct ptx_tok t, int neg)
{
    const char *s = tok_s(b, t);
    int32_t e = ent_find(b, s, t.len, b_hash(s, t.len));
    const struct ir_regdecl *rd;
    uint32_t slot;
    b->has_guard = 1;
    b->guard = IR_NOGUARD;
    b->guard_neg = (uint8_t)neg;
    b->guard_cc = 0;
    uint32_t dot = id_dot(s, t.len);
    if (reg_resolve(b, s, t.len, e, &rd, &slot) < 0) {
        if (dot && reg_resolve_base(b, s, dot, &rd, &slot) == 0 && rd->rf == RF_PRED) {
            enum ir_cc cc = ir_cc_lookup(s + dot + 1, t.len - dot - 1);
            if (cc == CC_NONE) {
                b_err(b, t.off + dot, "unknown condition-code test '%.*s'",
                      (int)(t.len - dot), s + dot);
                b->guard = IR_NOGUARD - 1;
                return;
            }
            b->guard_cc = (uint8_t)cc;
            b->m->dialect = DIALECT_PTXPLUS;
            b->guard = slot;
            return;
        }
        b_err(b, t.off, "undefined predicate '%.*s'", (int)t.len, s);
        b->guard = IR_NOGUARD - 1;
        return;
    }
    if (rd->rf != RF_PRED) {
        b_err(b, t.off, "guard '%.*s' is not a predicate", (int)t.len, s);
        return;
    }
    b->guard = slot;
}

static int mod_ctx(struct ptx_builder *b, struct ir_insn *in, int md, uint32_t off)
{
    unsigned op = in->op;
    int is_cmp = op == OP_SETP || op == OP_SET || op == OP_VSET || op == OP_VSET2 ||
                 op == OP_VSET4;
    int is_bar = op == OP_BAR || op == OP_BARRIER || op == OP_BARRIER_CLUSTER;
    (void)b;
    (void)off;
    switch (md) {
    case MOD_LO: if (is_cmp) in->cmp = CMP_LO; else in->mode = MODE_LO; break;
    case MOD_HI: if (is_cmp) in->cmp = CMP_HI; else in->mode = MODE_HI; break;
    case MOD_WIDE: in->mode = MODE_WIDE; break;
    case MOD_AND:
    case MOD_OR:
    case MOD_XOR: {
        unsigned bop = md == MOD_AND ? BOP_AND : md == MOD_OR ? BOP_OR : BOP_XOR;
        unsigned mode = md == MOD_AND ? MODE_AND : md == MOD_OR ? MODE_OR : MODE_XOR;
        if (is_cmp || is_bar || op == OP_LOP3)
            in->bop = (uint8_t)bop;
        else
            in->mode = (uint8_t)mode;
        break;
    }
    case MOD_ADD: in->mode = MODE_ADD; break;
    case MOD_MIN: in->mode = MODE_MIN; break;
    case MOD_MAX: in->mode = MODE_MAX; break;
    case MOD_INC: in->mode = MODE_INC; break;
    case MOD_DEC: in->mode = MODE_DEC; break;
    case MOD_EXCH: in->mode = MODE_EXCH; break;
    case MOD_CAS: in->mode = MODE_CAS; break;
    case MOD_POPC: if (!is_bar) in->mode = MODE_POPC; break;
    case MOD_ALL: in->mode = MODE_ALL; break;
    case MOD_ANY: in->mode = MODE_ANY; break;
    case MOD_BALLOT: in->mode = MODE_BALLOT; break;
    case MOD_UP: in->mode = MODE_UP; break;
    case MOD_DOWN: in->mode = MODE_DOWN; break;
    case MOD_BFLY: in->mode = MODE_BFLY; break;
    case MOD_IDX: in->mode = MODE_IDX; break;
    case MOD_F4E: in->mode = MODE_F4E; break;
    case MOD_B4E: in->mode = MODE_B4E; break;
    case MOD_RC8: in->mode = MODE_RC8; break;
    case MOD_ECL: in->mode = MODE_ECL; break;
    case MOD_ECR: in->mode = MODE_ECR; break;
    case MOD_RC16: in->mode = MODE_RC16; break;
    case MOD_L: in->mode = MODE_L; break;
    case MOD_R: in->mode = MODE_R; break;
    case MOD_TO: in->mode = MODE_TO; break;
    case MOD_ARRIVE: if (is_bar) in->mode = MODE_ARRIVE; break;
    case MOD_RED: if (is_bar) in->mode = MODE_RED; break;
    case MOD_SYNC: if (is_bar) in->mode = MODE_SYNC; else in->fl |= IR_FL(FL_SYNC); break;
    case MOD_GL: in->scope = SCOPE_GPU; break;
    default: break;
    }
    return 0;
}

static void apply_mod(struct ptx_builder *b, struct ir_insn *in, int md, uint32_t off)
{
    int v = ir_mod_value((enum ir_mod)md);
    switch (ir_mod_kind((enum ir_mod)md)) {
    case MK_TYPE:
        if (!in->type[0])
            in->type[0] = (uint8_t)v;
        else if (!in->type[1])
            in->type[1] = (uint8_t)v;
        break;
    case MK_RND: in->rnd = (uint8_t)v; break;
    case MK_CMP: in->cmp = (uint8_t)v; break;
    case MK_SPACE: in->space = (uint8_t)v; break;
    case MK_VEC: in->vec = (uint8_t)v; break;
    case MK_SCOPE: in->scope = (uint8_t)v; break;
    case MK_SEM: in->sem = (uint8_t)v; break;
    case MK_FLAG: in->fl |= IR_FL(v); break;
    case MK_CTX: mod_ctx(b, in, md, off); break;
    case MK_OTHER: break;
    }
}

/* ISA notes (continued): rules and reports */

/* Raise dc's requirements to those of rule (ISR_OPCODE: the opcode row); mod is the modifier
 * that triggered the rule (0: the opcode itself), named in the note. */
static void isa_need(struct decoded *dc, unsigned rule, unsigned mod)
{
    const struct isa_req *r = rule ? &isa_rule_req[rule] : &isa_op_req[dc->op];
    if (r->ver > dc->ver_req) {
        dc->ver_req = r->ver;
        dc->ver_rule = (uint8_t)rule;
        dc->ver_mod = (uint16_t)mod;
    }
    if (r->sm > dc->sm_req) {
        dc->sm_req = r->sm;
        dc->sm_rule = (uint8_t)rule;
        dc->sm_mod = (uint16_t)mod;
    }
    if (r->arch && r->sm > dc->arch_sm) {
        dc->arch_sm = r->sm;
        dc->arch_rule = (uint8_t)rule;
        dc->arch_mod = (uint16_t)mod;
    }
    if (r->arch && (dc->af_mask & r->arch) != dc->af_mask) {
        dc->af_mask &= r->arch;
        dc->af_rule = (uint8_t)rule;
        dc->af_mod = (uint16_t)mod;
    }
}

/* Minimum version / target of an opcode (build.h). */
void ptx_isa_op_req(unsigned op, unsigned *ver, unsigned *sm, int *arch)
{
    const struct isa_req *r = op < OP__COUNT ? &isa_op_req[op] : &isa_rule_req[0];
    *ver = r->ver;
    *sm = r->sm;
    *arch = r->arch;
}

/* The first modifier of mods[0, n) that is one of the types in set (0 if none). */
static unsigned isa_type_mod(const uint16_t *mods, unsigned n, uint64_t set)
{
    for (unsigned i = 0; i < n; i++)
        if (ir_mod_kind((enum ir_mod)mods[i]) == MK_TYPE &&
            (set & TB(ir_mod_value((enum ir_mod)mods[i]))))
            return mods[i];
    return 0;
}

/* The first modifier of mods[0, n) of the given kind (0 if none). */
static unsigned isa_kind_mod(const uint16_t *mods, unsigned n, enum ir_mod_kind k)
{
    for (unsigned i = 0; i < n; i++)
        if (ir_mod_kind((enum ir_mod)mods[i]) == k)
            return mods[i];
    return 0;
}

/* Compute the version / target requirements of a decoded mnemonic from its opcode row and
 * the rules its modifiers and types match (in: the instruction with the modifiers applied;
 * map_f64: the module's .target has map_f64_to_f32, so .f64 needs no sm_13). Runs once per
 * distinct mnemonic spelling. */
static void isa_rules(struct decoded *dc, const struct ir_insn *in, const uint16_t *mods,
                      unsigned n, int map_f64)
{
    const uint64_t f16s = TB(T_F16) | TB(T_F16X2), bf16s = TB(T_BF16) | TB(T_BF16X2);
    const uint64_t fp8 = TB(T_E4M3) | TB(T_E5M2) | TB(T_E4M3X2) | TB(T_E5M2X2) |
                         TB(T_E4M3X4) | TB(T_E5M2X4);
    const uint64_t fp64 = TB(T_E2M1) | TB(T_E2M3) | TB(T_E3M2) | TB(T_UE8M0) | TB(T_UE4M3) |
                          TB(T_E2M3X2) | TB(T_E3M2X2) | TB(T_E2M1X2) | TB(T_UE8M0X2) |
                          TB(T_E2M3X4) | TB(T_E3M2X4) | TB(T_E2M1X4);
    const uint64_t w64 = TB(T_B64) | TB(T_U64) | TB(T_S64);
    const uint64_t f64 = map_f64 ? 0 : TB(T_F64);
    uint64_t tys = 0;
    for (unsigned i = 0; i < n; i++)
        if (ir_mod_kind((enum ir_mod)mods[i]) == MK_TYPE)
            tys |= TB(ir_mod_value((enum ir_mod)mods[i]));
#define NEED_T(rule, set)                                                                     \
    do {                                                                                      \
        if (tys & (set))                                                                      \
            isa_need(dc, ISR_##rule, isa_type_mod(mods, n, set));                             \
    } while (0)
#define NEED_M(rule, md)                                                                      \
    do {                                                                                      \
        for (unsigned i_ = 0; i_ < n; i_++)                                                   \
            if (mods[i_] == (md)) {                                                           \
                isa_need(dc, ISR_##rule, md);                                                 \
                break;                                                                        \
            }                                                                                 \
    } while (0)
    dc->af_mask = ISA_AF_FREE;
    isa_need(dc, ISR_OPCODE, 0);
    switch (in->op) {
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_SETP: case OP_SET:
        if (in->op == OP_SET && !(TB(in->type[0]) & (f16s | bf16s)))
            NEED_T(SET_F16, f16s);
        if (in->type[0] == T_F32 && (tys & (f16s | bf16s)))
            isa_need(dc, ISR_MIXED_F32, isa_type_mod(mods, n, f16s | bf16s));
        NEED_T(F16_ARITH, f16s);
        NEED_T(BF16_ARITH, bf16s);
        NEED_T(F32X2, TB(T_F32X2));
        NEED_T(F64, f64);
        break;
    case OP_FMA:
        NEED_T(F16_ARITH, f16s);
        NEED_T(BF16_FMA, bf16s);
        NEED_T(F32X2, TB(T_F32X2));
        NEED_T(F32_IEEE, TB(T_F32));
        if (in->type[0] == T_F32 && (tys & (f16s | bf16s)))
            isa_need(dc, ISR_MIXED_F32, isa_type_mod(mods, n, f16s | bf16s));
        NEED_M(FMA_RELU, MOD_RELU);
        NEED_M(FMA_OOB, MOD_OOB);
        break;
    case OP_MAD:
        NEED_M(MAD_CC, MOD_CC);
        if (in->rnd)
            NEED_T(F32_IEEE, TB(T_F32));
        NEED_T(F64, f64);
        break;
    case OP_NEG: case OP_ABS:
        NEED_T(F16_NEGABS, f16s);
        if (in->op == OP_ABS)
            NEED_T(F16_ABS, f16s);
        NEED_T(BF16_FMA, bf16s);
        NEED_T(F64, f64);
        break;
    case OP_MIN: case OP_MAX:
        NEED_T(HALF_MINMAX, f16s | bf16s);
        NEED_T(INT_MINMAX_X2, TB(T_U16X2) | TB(T_S16X2));
        if ((in->fl & IR_FL(FL_RELU)) && !(tys & (f16s | bf16s | TB(T_F32) | TB(T_F64))))
            isa_need(dc, ISR_INT_MINMAX_X2, MOD_RELU);
        NEED_M(MINMAX_NAN, MOD_NAN_FLAG);
        NEED_M(MINMAX_XORSIGN, MOD_XORSIGN);
        NEED_T(F64, f64);
        break;
    case OP_EX2: case OP_TANH:
        NEED_T(F16_SFU, f16s);
        NEED_T(BF16_SFU, bf16s);
        break;
    case OP_DIV: case OP_RCP: case OP_SQRT:
        if (in->rnd && (tys & TB(T_F32)))
            isa_need(dc, ISR_F32_IEEE, isa_kind_mod(mods, n, MK_RND));
        if (in->op == OP_RCP && !in->rnd && (tys & TB(T_F64)))
            isa_need(dc, ISR_RCP_APPROX_F64, MOD_APPROX);
        NEED_T(F64, f64);
        break;
    case OP_RSQRT:
        if ((tys & TB(T_F64)) && (in->fl & IR_FL(FL_FTZ)))
            isa_need(dc, ISR_RSQRT_FTZ_F64, MOD_FTZ);
        break;
    case OP_PMEVENT:
        NEED_M(PMEVENT_MASK, MOD_MASK);
        break;
    case OP_MOV:
        NEED_T(B128_LDST, TB(T_B128));
        break;
    case OP_LD: case OP_ST: case OP_LDU:
        NEED_T(B128_LDST, TB(T_B128));
        if (in->vec * ir_type_size((enum ir_type)in->type[0]) == 32)
            isa_need(dc, ISR_LDST_256, in->vec == 8 ? MOD_V8 : MOD_V4);
        NEED_M(LD_NC, MOD_NC);
        if (in->sem == SEM_WEAK || (in->sem >= SEM_RELAXED && in->sem <= SEM_ACQ_REL))
            isa_need(dc, ISR_MEM_SEM, isa_kind_mod(mods, n, MK_SEM));
        break;
    case OP_ATOM: case OP_RED:
        NEED_T(B128_ATOM, TB(T_B128));
        if (in->vec > 1)
            isa_need(dc, ISR_ATOM_VEC, in->vec == 2 ? MOD_V2 : in->vec == 4 ? MOD_V4 : MOD_V8);
        if (in->mode == MODE_ADD) {
            NEED_T(ATOM_F64, TB(T_F64));
            NEED_T(ATOM_F16, TB(T_F16));
            NEED_T(ATOM_F16X2, TB(T_F16X2));
            NEED_T(ATOM_BF16, bf16s);
            NEED_T(ATOM_F32, TB(T_F32));
        }
        NEED_T(ATOM_SM12, w64);
        if (in->mode >= MODE_MIN && in->mode <= MODE_MAX && (tys & w64))
            isa_need(dc, ISR_ATOM64_MINMAX, isa_type_mod(mods, n, w64));
        if (in->mode >= MODE_AND && in->mode <= MODE_XOR && (tys & w64))
            isa_need(dc, ISR_ATOM64_MINMAX, isa_type_mod(mods, n, w64));
        if (in->mode == MODE_CAS)
            NEED_T(ATOM_CAS16, TB(T_B16));
        NEED_M(ATOM_SM12, MOD_SHARED);
        if (in->scope == SCOPE_CTA || in->scope == SCOPE_GPU || in->scope == SCOPE_SYS)
            isa_need(dc, ISR_ATOM_SCOPE, isa_kind_mod(mods, n, MK_SCOPE));
        if (in->sem >= SEM_RELAXED && in->sem <= SEM_ACQ_REL)
            isa_need(dc, ISR_MEM_SEM, isa_kind_mod(mods, n, MK_SEM));
        break;
    case OP_VOTE: case OP_SHFL:
        NEED_M(WARP_SYNC, MOD_SYNC);
        break;
    case OP_CVT:
        NEED_T(FP8, fp8);
        NEED_T(FP6_FP4, fp64);
        NEED_T(CVT_SM80, TB(T_TF32) | bf16s);
        NEED_M(CVT_SM80, MOD_RELU);
        if (in->type[0] == T_F16X2 && in->type[1] == T_F32)
            isa_need(dc, ISR_CVT_SM80, MOD_F16X2);
        NEED_T(F64, f64);
        if (in->rnd == RND_RS)
            isa_need(dc, ISR_CVT_RS, MOD_RS);
        if (in->type[0] == T_TF32 && in->rnd == RND_RN)
            isa_need(dc, ISR_CVT_TF32_RN, MOD_RN);
        if (in->type[0] == T_TF32 && (in->fl & IR_FL(FL_SATFINITE)) && in->rnd != RND_RNA)
            isa_need(dc, ISR_CVT_TF32_SATFINITE, MOD_SATFINITE);
        if (in->type[0] == T_F32 && in->type[1] == T_BF16)
            isa_need(dc, ISR_CVT_F32_BF16, isa_type_mod(mods, n, TB(T_BF16)));
        break;
    case OP_CVT_PACK:
        NEED_T(CVT_PACK_SUB, TB(T_U4) | TB(T_S4));
        break;
    case OP_CVTA: case OP_ISSPACEP:
        NEED_M(CVTA_PARAM, MOD_PARAM);
        NEED_M(CVTA_CONST, MOD_CONST);
        break;
    case OP_LOP3:
        if (in->bop)
            isa_need(dc, ISR_LOP3_BOOL,
                     in->bop == BOP_AND ? MOD_AND : in->bop == BOP_OR ? MOD_OR : MOD_XOR);
        break;
    case OP_MBARRIER_ARRIVE: case OP_MBARRIER_ARRIVE_DROP: case OP_MBARRIER_TEST_WAIT:
    case OP_MBARRIER_TRY_WAIT:
        NEED_M(MBAR_EXPECT_TX, MOD_EXPECT_TX);
        if (in->sem == SEM_RELEASE || in->sem == SEM_ACQUIRE || in->sem == SEM_RELAXED)
            isa_need(dc, ISR_MBAR_SEM, isa_kind_mod(mods, n, MK_SEM));
        if (in->sem == SEM_RELAXED)
            isa_need(dc, ISR_MBAR_RELAXED, isa_kind_mod(mods, n, MK_SEM));
        break;
    case OP_BARRIER_CLUSTER:
        if (in->sem == SEM_RELEASE || in->sem == SEM_ACQUIRE || in->sem == SEM_RELAXED)
            isa_need(dc, ISR_BARRIER_CLUSTER_SEM, isa_kind_mod(mods, n, MK_SEM));
        break;
    case OP_BARRIER:
        NEED_M(BAR_CTA, MOD_CTA);
        break;
    case OP_ST_ASYNC: case OP_RED_ASYNC:
        NEED_M(ASYNC_GLOBAL, MOD_GLOBAL);
        break;
    case OP_REDUX:
        NEED_T(REDUX_F32, TB(T_F32));
        break;
    case OP_TEX:
        NEED_M(TEX_SM30, MOD_GEOM_2DMS);
        NEED_M(TEX_SM30, MOD_GEOM_A2DMS);
        NEED_T(F16_ARITH, f16s);
        NEED_M(TEX_LEVEL_GRAD, MOD_LEVEL);
        NEED_M(TEX_LEVEL_GRAD, MOD_GRAD);
        NEED_M(TEX_LEVEL_GRAD, MOD_BASE);
        NEED_M(TEX_ARRAY, MOD_GEOM_A1D);
        NEED_M(TEX_ARRAY, MOD_GEOM_A2D);
        NEED_M(TEX_CUBE_SURF_3D, MOD_GEOM_CUBE);
        NEED_M(TEX_CUBE_SURF_3D, MOD_GEOM_ACUBE);
        break;
    case OP_TLD4:
        NEED_M(TEX_SM30, MOD_GEOM_A2D);
        NEED_M(TEX_SM30, MOD_GEOM_CUBE);
        NEED_M(TEX_SM30, MOD_GEOM_ACUBE);
        NEED_M(TLD4_TXQ_LEVEL, MOD_GEOM_A2D);
        NEED_M(TLD4_TXQ_LEVEL, MOD_GEOM_CUBE);
        NEED_M(TLD4_TXQ_LEVEL, MOD_GEOM_ACUBE);
        break;
    case OP_TXQ: case OP_SUQ:
        NEED_M(TEX_SM30, MOD_LEVEL);
        NEED_M(TEX_SM30, MOD_NUM_SAMPLES);
        NEED_M(TLD4_TXQ_LEVEL, MOD_LEVEL);
        NEED_M(TXQ_CHANNEL, MOD_CHANNEL_DATA_TYPE);
        NEED_M(TXQ_CHANNEL, MOD_CHANNEL_ORDER);
        NEED_M(TXQ_UNNORM, MOD_FORCE_UNNORMALIZED_COORDS);
        NEED_M(TXQ_ARRAY_MIPMAP, MOD_ARRAY_SIZE);
        NEED_M(TXQ_ARRAY_MIPMAP, MOD_NUM_MIPMAP_LEVELS);
        NEED_M(TXQ_ARRAY_MIPMAP, MOD_NUM_SAMPLES);
        NEED_M(SUQ_MEMORY_LAYOUT, MOD_MEMORY_LAYOUT);
        break;
    case OP_SULD: case OP_SUST: case OP_SURED:
        NEED_M(TEX_ARRAY, MOD_GEOM_A1D);
        NEED_M(TEX_ARRAY, MOD_GEOM_A2D);
        NEED_M(TEX_CUBE_SURF_3D, MOD_GEOM_A1D);
        NEED_M(TEX_CUBE_SURF_3D, MOD_GEOM_A2D);
        NEED_M(TEX_CUBE_SURF_3D, MOD_DIM3D);
        if (in->op == OP_SURED && (in->mode == MODE_MIN || in->mode == MODE_MAX) &&
            (tys & w64))
            isa_need(dc, ISR_SURED_B64_MINMAX, isa_type_mod(mods, n, w64));
        break;
    case OP_BAR:
        NEED_M(BAR_CTA, MOD_CTA);
        NEED_M(BAR_ARRIVE_RED, MOD_ARRIVE);
        NEED_M(BAR_ARRIVE_RED, MOD_RED);
        break;
    case OP_MEMBAR:
        NEED_M(MEMBAR_SYS, MOD_SYS);
        NEED_M(MEMBAR_PROXY, MOD_PROXY);
        break;
    case OP_FENCE:
        NEED_M(FENCE_PROXY, MOD_PROXY);
        NEED_M(PROXY_ASYNC, MOD_ASYNC);
        NEED_M(PROXY_TENSORMAP, MOD_TENSORMAP_GENERIC);
        NEED_M(PROXY_TENSORMAP, MOD_ASYNC_GENERIC);
        NEED_M(FENCE_MBARRIER_INIT, MOD_MBARRIER_INIT);
        NEED_M(SYNC_RESTRICT, MOD_SYNC_RESTRICT_SHARED_CTA);
        NEED_M(SYNC_RESTRICT, MOD_SYNC_RESTRICT_SHARED_CLUSTER);
        break;
    case OP_PREFETCH:
        NEED_M(PREFETCH_EVICT, MOD_L2_EVICT_LAST);
        NEED_M(PREFETCH_EVICT, MOD_L2_EVICT_NORMAL);
        NEED_M(PREFETCH_TENSORMAP, MOD_TENSORMAP);
        break;
    case OP_LDMATRIX: case OP_STMATRIX:
        NEED_M(LDMATRIX_SM100, MOD_M16N16);
        NEED_M(LDMATRIX_SM100, MOD_M8N16);
        if (in->op == OP_STMATRIX)
            NEED_M(LDMATRIX_SM100, MOD_M16N8);
        NEED_T(LDMATRIX_SM100, TB(T_B8));
        break;
    case OP_MMA: case OP_MMA_SP: case OP_MMA_SP_ORDERED:
        NEED_M(MMA_SM75, MOD_M16N8K8);
        NEED_M(MMA_SM75, MOD_M8N8K16);
        NEED_M(MMA_SM75, MOD_M8N8K32);
        NEED_M(MMA_SM75, MOD_M8N8K128);
        NEED_M(MMA_SM80, MOD_M16N8K4);
        NEED_M(MMA_SM80, MOD_M16N8K16);
        NEED_M(MMA_SM80, MOD_M16N8K32);
        NEED_M(MMA_SM80, MOD_M16N8K64);
        NEED_M(MMA_SM80, MOD_M16N8K128);
        NEED_M(MMA_SM80, MOD_M16N8K256);
        NEED_T(MMA_SM80, TB(T_F64) | TB(T_BF16) | TB(T_TF32));
        if (tys & TB(T_F64)) {
            NEED_M(MMA_F64_SM90, MOD_M16N8K4);
            NEED_M(MMA_F64_SM90, MOD_M16N8K8);
            NEED_M(MMA_F64_SM90, MOD_M16N8K16);
        }
        NEED_T(MMA_FP8, fp8);
        if (tys & fp8) {
            NEED_M(MMA_FP8_SM120, MOD_M16N8K16);
            if (in->type[0] == T_F16)
                isa_need(dc, ISR_MMA_FP8_SM120, isa_type_mod(mods, n, TB(T_F16)));
        }
        NEED_M(MMA_AND, MOD_AND);
        NEED_T(FP6_FP4, fp64);
        for (unsigned i = 0; i < n; i++)
            if ((mods[i] >= MOD_KIND_F16 && mods[i] <= MOD_KIND_MXF4NVF4) ||
                mods[i] == MOD_BLOCK_SCALE) {
                isa_need(dc, ISR_MMA_KIND, mods[i]);
                break;
            }
        break;
    case OP_TCGEN05_MMA: case OP_TCGEN05_MMA_SP: case OP_TCGEN05_MMA_WS:
    case OP_TCGEN05_MMA_WS_SP:
        NEED_M(TCGEN05_KIND_I8, MOD_KIND_I8);
        NEED_M(TCGEN05_SCALE_VEC, MOD_SCALE_VEC_1X);
        NEED_M(TCGEN05_SCALE_VEC, MOD_SCALE_VEC_2X);
        NEED_M(TCGEN05_SCALE_VEC, MOD_SCALE_VEC_4X);
        NEED_M(TCGEN05_BLOCK_N, MOD_BLOCK16);
        NEED_M(TCGEN05_BLOCK_N, MOD_BLOCK32);
        NEED_M(TCGEN05_MXF4NVF4, MOD_KIND_MXF4NVF4);
        NEED_M(TCGEN05_MXF4NVF4, MOD_SCALE_VEC_4X);
        break;
    case OP_WGMMA_MMA_ASYNC: case OP_WGMMA_MMA_ASYNC_SP:
        if (in->op == OP_WGMMA_MMA_ASYNC_SP)
            isa_need(dc, ISR_WGMMA_SP, 0);
        if ((tys & TB(T_S8)) && (tys & TB(T_U8)))
            isa_need(dc, ISR_WGMMA_MIXED_INT, isa_type_mod(mods, n, TB(T_S8) | TB(T_U8)));
        break;
    case OP_CP_ASYNC_BULK: /* .dst.src: .shared::cta as the first state space */
        if (isa_kind_mod(mods, n, MK_SPACE) == MOD_SHARED_CTA)
            isa_need(dc, ISR_BULK_SHARED_CTA, MOD_SHARED_CTA);
        break;
    case OP_CP_ASYNC_BULK_TENSOR: case OP_CP_ASYNC_BULK_PREFETCH_TENSOR:
        NEED_M(BULK_TENSOR_SM100, MOD_CTA_GROUP_1);
        NEED_M(BULK_TENSOR_SM100, MOD_CTA_GROUP_2);
        NEED_M(BULK_TENSOR_SM100, MOD_IM2COL_W);
        NEED_M(BULK_TENSOR_SM100, MOD_IM2COL_W_128);
        NEED_M(BULK_TENSOR_SM100, MOD_TILE_SCATTER4);
        NEED_M(BULK_GATHER4, MOD_TILE_GATHER4);
        break;
    case OP_TENSORMAP_REPLACE:
        NEED_M(TENSORMAP_SWIZZLE_ATOM, MOD_SWIZZLE_ATOMICITY);
        break;
    case OP_CLUSTERLAUNCHCONTROL_TRY_CANCEL:
        NEED_M(CLC_MULTICAST_ALL, MOD_MULTICAST_CLUSTER_ALL);
        break;
    case OP_MULTIMEM_LD_REDUCE: case OP_MULTIMEM_ST: case OP_MULTIMEM_RED:
        NEED_T(MULTIMEM_FP8, TB(T_E4M3X4) | TB(T_E5M2X4));
        NEED_M(MULTIMEM_FP8, MOD_ACC_F16);
        NEED_M(MULTIMEM_ACC_F32, MOD_ACC_F32);
        break;
    case OP_WMMA_LOAD: case OP_WMMA_STORE: case OP_WMMA_MMA:
        NEED_T(WMMA_SM80, TB(T_F64) | TB(T_BF16) | TB(T_TF32));
        NEED_T(WMMA_INT, TB(T_S8) | TB(T_U8) | TB(T_S32));
        NEED_T(WMMA_SUBBYTE, TB(T_S4) | TB(T_U4) | TB(T_B1));
        NEED_M(WMMA_SUBBYTE, MOD_M8N8K32);
        NEED_M(WMMA_SUBBYTE, MOD_M8N8K128);
        NEED_M(WMMA_ALIGNED, MOD_ALIGNED);
        break;
    default:
        break;
    }
    /* modifiers that need a newer ISA on any opcode */
    NEED_M(CLUSTER, MOD_SHARED_CLUSTER);
    NEED_M(CLUSTER, MOD_CLUSTER);
    NEED_M(CLUSTER, MOD_MULTICAST_CLUSTER);
    NEED_M(CLUSTER, MOD_MULTICAST_CLUSTER_ALL);
    NEED_M(L2_CACHE_HINT, MOD_L2_CACHE_HINT);
    NEED_M(CP_MASK, MOD_CP_MASK);
    if (in->op != OP_CP_ASYNC) /* ptxas 13 takes cp.async.shared::cta from PTX 7.0 */
        NEED_M(SHARED_CTA, MOD_SHARED_CTA);
    NEED_M(MMIO, MOD_MMIO);
    NEED_M(PARAM_SUBSPACE, MOD_PARAM_FUNC);
    NEED_M(PARAM_SUBSPACE, MOD_PARAM_ENTRY);
    NEED_M(L2_PREFETCH, MOD_L2_64B);
    NEED_M(L2_PREFETCH, MOD_L2_128B);
    NEED_M(L2_256B, MOD_L2_256B);
    for (unsigned i = 0; i < n; i++)
        if ((mods[i] >= MOD_L1_EVICT_NORMAL && mods[i] <= MOD_L2_EVICT_LAST)) {
            isa_need(dc, ISR_EVICT, mods[i]);
            break;
        }
#undef NEED_T
#undef NEED_M
    dc->req_done = 1;
}

/* Has the note of (rule, opcode, reason 0 version / 1 target / 2 arch) been given? Marks it. */
static int isa_seen(struct ptx_builder *b, unsigned rule, unsigned op, unsigned reason)
{
#ifdef PTXEMU_ISA_NOTE_ALL /* validation builds (fixtures/ptx/isa/README.md): every note */
    (void)b, (void)rule, (void)op, (void)reason;
    return 0;
#endif
    if (!b->isa_seen) {
        b->isa_seen = calloc((size_t)ISR__COUNT * (OP__COUNT + 1), 1);
        if (!b->isa_seen)
            return 1; /* no memory for the bookkeeping: no notes (never an error) */
    }
    uint8_t *p = &b->isa_seen[(size_t)rule * (OP__COUNT + 1) + op];
    if (*p & (1u << reason))
        return 1;
    *p |= (uint8_t)(1u << reason);
    return 0;
}

static void isa_report(struct ptx_builder *b, uint32_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void isa_report(struct ptx_builder *b, uint32_t off, const char *fmt, ...)
{
#ifndef PTXEMU_ISA_NOTE_ALL
    if (b->isa_nnotes >= ISA_NOTE_CAP) {
        b->isa_suppressed++;
        return;
    }
#endif
    b->isa_nnotes++;
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(b->d, DIAG_REMARK, off, fmt, ap);
    va_end(ap);
}

/* Write the targets of the ISA_SM* set mask into req[0, cap) as "sm_100a, sm_100f or sm_110a"
 * (ISA_AF_OTHER: "a later a/f target"). */
static void isa_af_list(unsigned mask, char *req, size_t cap)
{
    size_t n = 0;
    unsigned left = mask;
    req[0] = 0;
    for (unsigned i = 0; left && n < cap; i++) {
        if (!(left & (1u << i)))
            continue;
        left &= ~(1u << i);
        if (i >= sizeof isa_af_targets / sizeof *isa_af_targets) {
            n += (size_t)snprintf(req + n, cap - n, "%sa later a/f target", n ? " or " : "");
            break;
        }
        n += (size_t)snprintf(req + n, cap - n, "%ssm_%u%c", !n ? "" : left ? ", " : " or ",
                              isa_af_targets[i].sm, isa_af_targets[i].suffix);
    }
}

/* An instruction whose version / target requirement (dc) exceeds the module's: note it once
 * per (opcode, cause, reason). off: the mnemonic. */
static void isa_note(struct ptx_builder *b, const struct decoded *dc, uint32_t off)
{
    const char *nm = ir_op_name((enum ir_op)dc->op);
    if (dc->ver_req > b->isa_ver && !isa_seen(b, dc->ver_rule, (unsigned)dc->op, 0))
        isa_report(b, off, "'%s'%s%s requires PTX ISA .version %u.%u or later (module declares "
                   ".version %u.%u)", nm, dc->ver_mod ? " with ." : "",
                   dc->ver_mod ? ir_mod_name((enum ir_mod)dc->ver_mod) : "",
                   dc->ver_req >> 8, dc->ver_req & 0xff, b->isa_ver >> 8, b->isa_ver & 0xff);
    if (dc->sm_req > b->isa_sm && !isa_seen(b, dc->sm_rule, (unsigned)dc->op, 1)) {
        int arch = dc->arch_sm && dc->arch_sm == dc->sm_req;
        isa_report(b, off, "'%s'%s%s requires .target sm_%u%s (module declares .target %s)",
                   nm, dc->sm_mod ? " with ." : "",
                   dc->sm_mod ? ir_mod_name((enum ir_mod)dc->sm_mod) : "", dc->sm_req,
                   arch ? "a" : " or higher", b->isa_target);
    } else if (dc->af_mask != ISA_AF_FREE && dc->sm_req <= b->isa_sm &&
               !(dc->af_mask & (b->isa_af ? b->isa_af : isa_af_bit(b->isa_sm, 'a')))) {
        /* a later family (or another branch) without the feature */
        if (isa_seen(b, dc->af_rule, (unsigned)dc->op, 3))
            return;
        char req[128];
        isa_af_list(dc->af_mask, req, sizeof req);
        isa_report(b, off, "'%s'%s%s is not supported on .target %s (requires %s)", nm,
                   dc->af_mod ? " with ." : "",
                   dc->af_mod ? ir_mod_name((enum ir_mod)dc->af_mod) : "", b->isa_target, req);
    } else if (dc->af_mask != ISA_AF_FREE && !b->isa_af && dc->sm_req <= b->isa_sm &&
               !isa_seen(b, dc->arch_rule, (unsigned)dc->op, 2)) {
        isa_report(b, off, "'%s'%s%s requires an architecture-specific .target such as sm_%ua "
                   "(module declares .target %s)", nm, dc->arch_mod ? " with ." : "",
                   dc->arch_mod ? ir_mod_name((enum ir_mod)dc->arch_mod) : "", b->isa_sm,
                   b->isa_target);
    }
}

/* A feature other than an instruction's mnemonic (a special register, a function directive,
 * an operand count: what[0, len) names it) that needs rule's version / target: note it once
 * per rule per module when the module declares less. */
static void isa_feature(struct ptx_builder *b, unsigned rule, const char *what, int len,
                        uint32_t off)
{
    const struct isa_req *r = &isa_rule_req[rule];
    if (b->m->dialect != DIALECT_PTX)
        return;
    if (r->ver > b->isa_ver && !isa_seen(b, rule, OP__COUNT, 0))
        isa_report(b, off, "'%.*s' requires PTX ISA .version %u.%u or later (module declares "
                   ".version %u.%u)", len, what, r->ver >> 8, r->ver & 0xff, b->isa_ver >> 8,
                   b->isa_ver & 0xff);
    if (r->sm > b->isa_sm && !isa_seen(b, rule, OP__COUNT, 1)) {
        isa_report(b, off, "'%.*s' requires .target sm_%u or higher (module declares .target "
                   "%s)", len, what, r->sm, b->isa_target);
    } else if (r->arch && b->isa_af && b->isa_af != ISA_AF_ANY && !(r->arch & b->isa_af) &&
               !isa_seen(b, rule, OP__COUNT, 3)) {
        /* an a/f target outside the rule's set (a plain target: the mnemonic's own note) */
        char req[128];
        isa_af_list(r->arch, req, sizeof req);
        isa_report(b, off, "'%.*s' is not supported on .target %s (requires %s)", len, what,
                   b->isa_target, req);
    }
}

/* The rule a special register needs beyond PTX 1.0 / sm_10 (0: none). */
static unsigned isa_sreg_rule(unsigned sr)
{
    if (sr >= SR_CLUSTERID_X && sr <= SR_IS_EXPLICIT_CLUSTER)
        return ISR_SREG_CLUSTER;
    if ((sr >= SR_LANEMASK_EQ && sr <= SR_LANEMASK_GT) || sr == SR_CLOCK64 ||
        sr == SR_NWARPID || sr == SR_NSMID || (sr >= SR_ENVREG0 && sr < SR_ENVREG0 + 32))
        return ISR_SREG_SM20;
    if (sr >= SR_GLOBALTIMER && sr <= SR_GLOBALTIMER_HI)
        return ISR_SREG_GLOBALTIMER;
    if (sr == SR_DYNAMIC_SMEM_SIZE || sr == SR_TOTAL_SMEM_SIZE)
        return ISR_SREG_SMEM;
    if (sr == SR_AGGR_SMEM_SIZE)
        return ISR_SREG_AGGR_SMEM;
    if (sr >= SR_RESERVED_SMEM_OFFSET_BEGIN && sr <= SR_RESERVED_SMEM_OFFSET_1)
        return ISR_SREG_RESERVED_SMEM;
    if (sr == SR_CURRENT_GRAPH_EXEC)
        return ISR_SREG_GRAPH;
    return 0;
}

/* Decode a mnemonic token (cached by spelling). Returns the cache index or -1 (reported). */
static int32_t decode_mnem(struct ptx_builder *b, struct ptx_tok t)
{
    const char *s = tok_s(b, t);
    int32_t c = smap_get(&b->tokcache, s, t.len);
    if (c >= 0)
        return c;
    /* split into pieces at '.' */
    uint32_t starts[64], lens[64], np = 0;
    for (uint32_t i = 0; i <= t.len && np < 64;) {
        uint32_t j = i;
        while (j < t.len && s[j] != '.')
            j++;
        starts[np] = i;
        lens[np++] = j - i;
        i = j + 1;
    }
    if (np >= 64) {
        b_err(b, t.off, "too many modifiers");
        return -1;
    }
    int op = -1;
    uint32_t used = 0;
    for (uint32_t k = np < 5 ? np : 5; k >= 1; k--) {
        uint32_t l = starts[k - 1] + lens[k - 1];
        op = smap_get(&b->ops, s, l);
        if (op >= 0) {
            used = k;
            break;
        }
    }
    if (op < 0) {
        b_err(b, t.off, "unknown instruction '%.*s'", (int)lens[0], s);
        return -1;
    }
    struct decoded dc = {.op = (int16_t)op, .nmods = 0, .mods = b->ndmods};
    for (uint32_t k = used; k < np; k++) {
        int md = lens[k] ? smap_get(&b->mods, s + starts[k], lens[k]) : -1;
        if (md <= 0) {
            b_err(b, t.off + starts[k] - 1, "unknown modifier '.%.*s' for '%s'", (int)lens[k],
                  s + starts[k], ir_op_name((enum ir_op)op));
            b->ndmods = dc.mods;
            return -1;
        }
        VEC_PUSH(b, b->dmods, b->ndmods, b->capdmods, (uint16_t)md);
        dc.nmods++;
    }
    int32_t k = (int32_t)b->ndec;
    VEC_PUSH(b, b->dec, b->ndec, b->capdec, dc);
    if (b->oom || smap_put(&b->tokcache, s, t.len, k) < 0) {
        b->oom = 1;
        return -1;
    }
    return k;
}

/* The mnemonic (with modifiers) of an instruction. */
void b_insn_begin(struct ptx_builder *b, struct ptx_tok t)
{
    struct ir_insn *in = &b->insn;
    memset(in, 0, sizeof *in);
    b->in_insn = 1;
    b->insn_bad = 0;
    b->insn_tok = t;
    b->ntop = 0;
    b->pos = 0;
    b->pipe_pending = 0;
    b->pipe_seen = 0;
    b->in_list = 0;
    b->in_addr = 0;
    b->nelems = 0;
    in->guard = b->has_guard ? b->guard : IR_NOGUARD;
    in->guard_neg = b->has_guard ? b->guard_neg : 0;
    in->guard_cc = b->has_guard ? b->guard_cc : 0;
    if (in->guard == IR_NOGUARD - 1)
        b->insn_bad = 1;
    b->has_guard = 0;
    b->ccd_cand = 0;
    b->has_ccd = 0;
    b->guard = IR_NOGUARD;
    in->vec = 1;
    in->target = IR_NOPC;
    in->reconv = IR_NOPC;
    in->line = t.line;
    uint32_t ls = t.off;
    while (ls > 0 && b->text[ls - 1] != '\n')
        ls--;
    in->col = t.off - ls + 1;
    in->loc_file = b->loc_file;
    in->loc_line = b->loc_line;
    in->loc_col = b->loc_col;
    in->loc_ext = b->loc_ext;
    b->loc_pending = 0;
    if (b->cur < 0 || !b->in_body) {
        b_err(b, t.off, "instruction outside a function body");
        b->insn_bad = 1;
        return;
    }
    int32_t k = decode_mnem(b, t);
    if (k < 0) {
        b->insn_bad = 1;
        return;
    }
    struct decoded *dc = &b->dec[k];
    in->op = (uint16_t)dc->op;
    in->mod = b->fb.nmods;
    in->nmod = (uint8_t)(dc->nmods > 255 ? 255 : dc->nmods);
    for (uint32_t i = 0; i < dc->nmods; i++) {
        uint16_t md = b->dmods[dc->mods + i];
        VEC_PUSH(b, b->fb.mods, b->fb.nmods, b->fb.capmods, md);
        apply_mod(b, in, md, t.off);
    }
    if (in->op == OP_VOTE && (in->fl & IR_FL(FL_UNI)))
        in->mode = MODE_UNI;
    if (!dc->req_done)
        isa_rules(dc, in, b->dmods ? b->dmods + dc->mods : NULL, dc->nmods,
                  b->m->map_f64_to_f32); /* no modifier seen yet: dmods is NULL */
    if ((dc->ver_req > b->isa_ver || dc->sm_req > b->isa_sm ||
         (dc->af_mask != ISA_AF_FREE && !(dc->af_mask & b->isa_af))) &&
        b->m->dialect == DIALECT_PTX)
        isa_note(b, dc, t.off);
    in->unit = (uint8_t)ir_op_unit((enum ir_op)in->op);
    in->iflags = (uint16_t)ir_op_flags((enum ir_op)in->op);
    if (in->iflags & IF_PTXPLUS)
        b->m->dialect = DIALECT_PTXPLUS;
    if (in->fl & IR_FL(FL_UNI))
        in->iflags |= IF_UNIFORM;
}

/* Type an operand at format position pos is read or written as. */
static unsigned pos_type(const struct ptx_builder *b, char c, uint32_t pos)
{
    const struct ir_insn *in = &b->insn;
    unsigned t0 = in->type[0];
    int wide = in->mode == MODE_WIDE && (in->op == OP_MUL || in->op == OP_MAD ||
                                         in->op == OP_MUL24 || in->op == OP_MAD24);
    if (in->op == OP_BAR || in->op == OP_BARRIER)
        return T_U32; /* barrier ids and thread counts (bar.red's type is the result's) */
    if (wide && (c == 'd' || (c == 'a' && in->op == OP_MAD && pos == 3)))
        c = c == 'd' ? 'D' : 'A';
    switch (c) {
    case 'd':
    case 'a':
    case 'x':
        return t0;
    case 'D':
    case 'A':
        switch (t0) {
        case T_U16: return T_U32;
        case T_S16: return T_S32;
        case T_U32: return T_U64;
        case T_S32: return T_S64;
        case T_B16: return T_B32;
        case T_B32: return T_B64;
        case T_F32: return T_F64;
        default: return t0;
        }
    case 'h':
        switch (t0) {
        case T_U64: return T_U32;
        case T_S64: return T_S32;
        case T_U32: return T_U16;
        case T_S32: return T_S16;
        case T_B64: return T_B32;
        default: return t0;
        }
    case 's':
        return in->type[1] ? in->type[1] : t0;
    case 'u':
    case 'U':
        return T_U32;
    case 'w':
        return b->m->address_size == 32 ? T_U32 : T_U64;
    case 'p':
    case 'q':
        return T_PRED;
    default:
        return t0;
    }
}

static int pos_is_dst(char c)
{
    return c == 'd' || c == 'D' || c == 'h' || c == 'U' || c == 'p';
}

/* Current format character for a new top-level operand (handles the `|` positions). */
static char top_fmt(struct ptx_builder *b, uint32_t *pos_out)
{
    if (b->insn_bad)
        return 'x';
    const struct fmtinfo *fi = &b->fmt[b->insn.op];
    if (!b->pipe_pending && b->pos < fi->n && fi->pos[b->pos].pipe2 && b->ntop < 64) {
        /* `X|Y` item without `|Y`: an OPK_NONE placeholder */
        struct ir_opnd none;
        memset(&none, 0, sizeof none);
        none.slot = IR_NOSLOT;
        none.sym = IR_NOSYM;
        b->ops_off[b->ntop] = 0;
        b->ops_top[b->ntop++] = none;
        b->pos++;
    }
    b->pipe_pending = 0;
    *pos_out = b->pos;
    if (b->pos < fi->n)
        return fi->pos[b->pos].c;
    return 'x';
}

/* Append a finished operand (top level or list element). */
static void push_opnd(struct ptx_builder *b, struct ir_opnd o, uint32_t off)
{
    if (b->in_list) {
        VEC_PUSH(b, b->elems, b->nelems, b->capelems, o);
        return;
    }
    if (b->ntop >= 64) {
        if (b->ntop == 64)
            b_err(b, off, "too many operands");
        b->ntop = 65;
        b->insn_bad = 1;
        return;
    }
    b->ops_off[b->ntop] = off;
    b->ops_top[b->ntop++] = o;
    b->pos++;
}

static struct ir_opnd opnd_new(unsigned kind)
{
    struct ir_opnd o;
    memset(&o, 0, sizeof o);
    o.kind = (uint8_t)kind;
    o.slot = IR_NOSLOT;
    o.sym = IR_NOSYM;
    return o;
}

/* The format character and type for the operand being read now (list elements use the
 * list's own position). */
static void ccd_reject(struct ptx_builder *b);

/* Type of the next coordinate of an OPK_TEX operand being read. */
static unsigned tex_coord_type(const struct ptx_builder *b)
{
    const struct ir_insn *in = &b->insn;
    if (in->op != OP_TEX && in->op != OP_TLD4)
        return T_S32; /* surfaces (.b32 coordinates), tensor maps (.s32) */
    const struct ir_opnd *l = &b->ops_top[b->list_top];
    uint32_t idx = b->nelems - l->first - (uint32_t)l->imm.u;
    if (idx == 0)
        for (unsigned i = 0; i < in->nmod; i++) {
            uint16_t md = b->fb.mods[in->mod + i];
            if (md == MOD_GEOM_A1D || md == MOD_GEOM_A2D || md == MOD_GEOM_ACUBE ||
                md == MOD_GEOM_A2DMS)
                return T_U32; /* the array index */
        }
    return in->type[1] ? in->type[1] : T_S32;
}

static char cur_fmt(struct ptx_builder *b, unsigned *type)
{
    uint32_t pos;
    char c;
    if (b->ccd_cand)
        ccd_reject(b);
    if (b->in_list) {
        c = b->ops_top[b->list_top].pad_;
        pos = b->ops_top[b->list_top].cc;
        if (b->ops_top[b->list_top].kind == OPK_TEX) {
            *type = tex_coord_type(b);
            return c;
        }
    } else {
        c = top_fmt(b, &pos);
    }
    *type = pos_type(b, c, pos);
    return c;
}

static int label_ok(char c, unsigned op)
{
    return c == 'l' || c == 'x' || c == '*' || op == OP_CALL || op == OP_CALLP;
}

/* Report a predicate operand 0 that was not followed by '|' (not a flag destination). */
static void ccd_reject(struct ptx_builder *b)
{
    b->ccd_cand = 0;
    if (b->insn_bad || b->ntop == 0)
        return;
    unsigned type = pos_type(b, b->fmt[b->insn.op].pos[0].c, 0);
    b_err(b, b->ccd_off, "predicate '%.*s' used where a .%s value is expected",
          (int)b->ccd_len, b->text + b->ccd_off, ir_type_name((enum ir_type)type));
    b->insn_bad = 1;
}

/* Vector component letter index (x y z w / r g b a), or -1. */
static int vec_comp(char c)
{
    switch (c) {
    case 'x': case 'r': return 0;
    case 'y': case 'g': return 1;
    case 'z': case 'b': return 2;
    case 'w': case 'a': return 3;
    default: return -1;
    }
}

/* Video selector suffix ("b0", "h1", "h10", "b3210") encoded as IR_SEL_*, or 0. */
static uint64_t sel_parse(const char *s, size_t n)
{
    if (n < 2 || n > 5 || (s[0] != 'b' && s[0] != 'h'))
        return 0;
    char max = s[0] == 'b' ? '7' : '3';
    uint64_t u = IR_SEL_MAKE(s[0], n - 1);
    for (size_t i = 1; i < n; i++) {
        if (s[i] < '0' || s[i] > max)
            return 0;
        u |= (uint64_t)(s[i] - '0') << (16 + 3 * (i - 1));
    }
    return u;
}

/* A register operand with a suffix after its name (rd/slot: the base register): a vector
 * component, a video selector, a PTXPlus half (.lo/.hi) or condition-code test. Fills o;
 * -1 (reported) when the suffix does not apply. */
static int reg_suffix(struct ptx_builder *b, struct ptx_tok t, uint32_t dot,
                      const struct ir_regdecl *rd, uint32_t slot, struct ir_opnd *o)
{
    const char *s = tok_s(b, t) + dot + 1;
    uint32_t n = t.len - dot - 1;
    o->rf = rd->rf;
    o->slot = slot;
    o->n = (uint8_t)rd->vec;
    if (rd->rf == RF_PRED) {
        enum ir_cc cc = ir_cc_lookup(s, n);
        if (cc != CC_NONE) {
            o->cc = (uint8_t)cc;
            b->m->dialect = DIALECT_PTXPLUS;
            return 0;
        }
    } else if (rd->vec > 1 && n == 1 && vec_comp(s[0]) >= 0) {
        unsigned k = (unsigned)vec_comp(s[0]);
        if (k >= rd->vec) {
            b_err(b, t.off + dot, "vector '%.*s' has no component '.%c'", (int)dot,
                  tok_s(b, t), s[0]);
            return -1;
        }
        o->slot = slot + k * slots_of_type(rd->type);
        o->n = 1;
        return 0;
    } else if (rd->vec <= 1 && n == 2 && (memcmp(s, "lo", 2) == 0 || memcmp(s, "hi", 2) == 0)) {
        o->flags |= s[0] == 'l' ? OPF_LO : OPF_HI;
        b->m->dialect = DIALECT_PTXPLUS;
        return 0;
    } else if (rd->vec <= 1 && (o->imm.u = sel_parse(s, n)) != 0) {
        return 0;
    }
    b_err(b, t.off + dot, "unknown register suffix '.%.*s' on '%.*s'", (int)n, s, (int)dot,
          tok_s(b, t));
    return -1;
}

/* An identifier operand: register, special register, variable, function or label. */
void b_o_id(struct ptx_builder *b, struct ptx_tok t, int flags)
{
    if (!b->in_insn)
        return;
    if (flags & OPF_ABS)
        b->m->dialect = DIALECT_PTXPLUS; /* |x|: a PTXPlus-only operand form */
    unsigned type;
    char c = cur_fmt(b, &type);
    if (b->insn_bad)
        return;
    const char *s = tok_s(b, t);
    uint64_t h = b_hash(s, t.len);
    int32_t e = ent_find(b, s, t.len, h);
    const struct ir_regdecl *rd;
    uint32_t slot;
    struct ir_opnd o = opnd_new(OPK_REG);
    o.flags = (uint8_t)flags;
    o.type = (uint8_t)type;
    if (b->in_list && b->ops_top[b->list_top].kind == OPK_PARAMS && e >= 0 &&
        b->ents[e].bind >= 0 && b->binds[b->ents[e].bind].kind == BK_SYM) {
        o.kind = OPK_ADDR;
        o.sym = b->binds[b->ents[e].bind].idx;
        o.type = b->syms[o.sym].type;
        push_opnd(b, o, t.off);
        return;
    }
    int found = reg_resolve(b, s, t.len, e, &rd, &slot) == 0;
    if (!found && !(e >= 0 && b->ents[e].sreg)) {
        uint32_t dot = id_dot(s, t.len);
        if (dot && reg_resolve_base(b, s, dot, &rd, &slot) == 0) {
            if (reg_suffix(b, t, dot, rd, slot, &o) < 0) {
                b->insn_bad = 1;
                return;
            }
            found = 2;
        }
    }
    if (found) {
        if (found == 1) {
            o.rf = rd->rf;
            o.slot = slot;
            o.n = (uint8_t)rd->vec; /* elements; a .b128 element spans two B64 slots */
        }
        if (c == 'p' || c == 'q') {
            if (rd->rf != RF_PRED) {
                b_err(b, t.off, "operand '%.*s' of '%s' must be a predicate", (int)t.len, s,
                      ir_op_name((enum ir_op)b->insn.op));
                b->insn_bad = 1;
            }
        } else if (strchr("daDAhsuUw", c) && type && type != T_PRED && rd->rf == RF_PRED) {
            if (!b->in_list && b->ntop == 0 && b->pos == 0 && !b->has_ccd) {
                /* maybe a PTXPlus flag destination `$p|$r`: decided by what follows */
                b->ccd_cand = 1;
                b->ccd_off = t.off;
                b->ccd_len = t.len;
            } else {
                b_err(b, t.off, "predicate '%.*s' used where a .%s value is expected",
                      (int)t.len, s, ir_type_name((enum ir_type)type));
                b->insn_bad = 1;
            }
        } else if (strchr("daDAhsuUw", c) && type == T_PRED && rd->rf != RF_PRED) {
            b_err(b, t.off, "operand '%.*s' of '%s' must be a predicate", (int)t.len, s,
                  ir_op_name((enum ir_op)b->insn.op));
            b->insn_bad = 1;
        }
        if (!b->in_list && pos_is_dst(c))
            o.flags |= OPF_DST;
        if (!type)
            o.type = rd->type;
        push_opnd(b, o, t.off);
        return;
    }
    if (e >= 0 && b->ents[e].sreg) {
        o.kind = OPK_SREG;
        o.sreg = (uint8_t)b->ents[e].sreg;
        if (!type)
            type = b->ents[e].sreg == SR_CLOCK64 ? T_U64 : T_U32;
        o.type = (uint8_t)type;
        o.rf = (uint8_t)rf_of_type(type);
        unsigned rule = isa_sreg_rule(o.sreg);
        if (rule)
            isa_feature(b, rule, s, (int)t.len, t.off);
        push_opnd(b, o, t.off);
        return;
    }
    if (e >= 0 && b->ents[e].bind >= 0) {
        struct binding *bd = &b->binds[b->ents[e].bind];
        if (bd->kind == BK_SYM) {
            o.kind = OPK_SYM;
            o.sym = bd->idx;
            o.rf = (uint8_t)rf_of_type(type ? type : T_U64);
            push_opnd(b, o, t.off);
            return;
        }
        if (bd->kind == BK_TABLE) {
            o.kind = OPK_TABLE;
            o.first = bd->idx >> 8;
            o.n = (uint8_t)(bd->idx & 0xff);
            push_opnd(b, o, t.off);
            return;
        }
    }
    if (e >= 0 && b->ents[e].gsym >= 0 && c != 'l') {
        o.kind = OPK_SYM;
        o.sym = (uint32_t)b->ents[e].gsym;
        o.rf = (uint8_t)rf_of_type(type ? type : T_U64);
        push_opnd(b, o, t.off);
        return;
    }
    if (e >= 0 && b->ents[e].gfunc >= 0 && c != 'l') {
        o.kind = OPK_FUNC;
        o.imm.u = (uint64_t)b->ents[e].gfunc;
        o.rf = (uint8_t)rf_of_type(type ? type : T_U64);
        if (b->insn.op == OP_CALL && b->insn.target == IR_NOPC)
            b->insn.target = (uint32_t)b->ents[e].gfunc;
        push_opnd(b, o, t.off);
        return;
    }
    if (label_ok(c, b->insn.op) && b->insn.op != OP_CALL) {
        if (e < 0)
            e = ent_get(b, s, t.len);
        if (e < 0)
            return;
        o.kind = OPK_LABEL;
        o.imm.u = IR_NOPC;
        /* fixup: operand index known at b_insn_end; record the element position now */
        if (!b->in_list && b->ntop < 64) {
            b->ops_off[b->ntop] = t.off;
            o.first = (uint32_t)e; /* ent index until resolved (reset at insn end) */
            b->ops_top[b->ntop++] = o;
            b->pos++;
        } else {
            b_err(b, t.off, "label '%.*s' not allowed here", (int)t.len, s);
            b->insn_bad = 1;
        }
        return;
    }
    if (s[0] == '%')
        b_err(b, t.off, "undefined register '%.*s'", (int)t.len, s);
    else
        b_err(b, t.off, "undefined identifier '%.*s'", (int)t.len, s);
    b->insn_bad = 1;
}

/* sym+N / sym-N as a value operand. */
void b_o_idoff(struct ptx_builder *b, struct ptx_tok t, struct ptx_tok off, int neg)
{
    if (!b->in_insn)
        return;
    uint32_t n0 = b->in_list ? b->nelems : b->ntop;
    b_o_id(b, t, 0);
    if (b->insn_bad)
        return;
    struct ir_opnd *o = b->in_list ? (b->nelems > n0 ? &b->elems[n0] : NULL)
                                   : (b->ntop > n0 ? &b->ops_top[n0] : NULL);
    uint64_t v = 0;
    if (!o || o->kind != OPK_SYM || ptx_parse_int(tok_s(b, off), off.len, &v) < 0) {
        b_err(b, t.off, "'+offset' needs a variable");
        b->insn_bad = 1;
        return;
    }
    o->imm.u = neg ? 0 - v : v;
}

/* A numeric operand. */
void b_o_num(struct ptx_builder *b, struct ptx_tok t, int neg)
{
    if (!b->in_insn)
        return;
    unsigned type;
    char c = cur_fmt(b, &type);
    if (b->insn_bad)
        return;
    struct num n;
    uint64_t v;
    if (pos_is_dst(c) && !b->in_list) {
        b_err(b, t.off, "destination of '%s' cannot be a constant",
              ir_op_name((enum ir_op)b->insn.op));
        b->insn_bad = 1;
        return;
    }
    if (c == 'l' || c == 'm' || c == 't' || c == 'f') {
        b_err(b, t.off, "unexpected constant operand for '%s'",
              ir_op_name((enum ir_op)b->insn.op));
        b->insn_bad = 1;
        return;
    }
    if (!type)
        type = T_U32;
    if (num_decode(b, t, neg, &n) < 0) {
        b->insn_bad = 1;
        return;
    }
    if ((c == 'x' || c == '*') && n.is_float && !type_is_float(type) &&
        !(n.is_float == 1 && ir_type_size((enum ir_type)type) == 4))
        type = n.is_float == 2 ? T_F64 : T_F32; /* e.g. createpolicy's fraction: a float of an untyped operand */
    else if ((c == 'x' || c == '*') && n.is_float == 0 && type_is_float(type))
        type = T_S32; /* e.g. wgmma's imm-scale operands: integers of an untyped operand */
    if (num_convert(b, &n, type, t.off, &v) < 0) {
        b->insn_bad = 1;
        return;
    }
    struct ir_opnd o = opnd_new(OPK_IMM);
    o.type = (uint8_t)type;
    o.rf = (uint8_t)rf_of_type(type);
    o.imm.u = v;
    if (type == T_PRED)
        o.imm.u = v != 0;
    push_opnd(b, o, t.off);
}

/* '_' sink operand. */
void b_o_sink(struct ptx_builder *b, struct ptx_tok t)
{
    if (!b->in_insn)
        return;
    unsigned type;
    cur_fmt(b, &type);
    if (b->insn_bad)
        return;
    struct ir_opnd o = opnd_new(OPK_SINK);
    o.type = (uint8_t)type;
    push_opnd(b, o, t.off);
}

/* '|' joining a second destination. */
void b_o_pipe(struct ptx_builder *b)
{
    if (!b->in_insn || b->insn_bad || b->in_list)
        return;
    const struct fmtinfo *fi = &b->fmt[b->insn.op];
    if (b->ccd_cand && b->ntop == 1) {
        /* PTXPlus `$p|$r`: the predicate receives the flags; the value operand follows */
        b->ccd_cand = 0;
        b->ccd = b->ops_top[0];
        b->ccd.flags |= OPF_DST | OPF_CCDST;
        b->ccd.type = T_PRED;
        b->has_ccd = 1;
        b->ntop = 0;
        b->pos = 0;
        b->m->dialect = DIALECT_PTXPLUS;
        return;
    }
    if (b->pos >= fi->n || !fi->pos[b->pos].pipe2) {
        b_err(b, b->insn_tok.off, "'%s' has no second destination ('|')",
              ir_op_name((enum ir_op)b->insn.op));
        b->insn_bad = 1;
        return;
    }
    b->pipe_pending = 1;
    b->pipe_seen = 1;
}

/* '{' or '(' of a vector / parameter list operand. */
void b_o_list_begin(struct ptx_builder *b, struct ptx_tok t, int kind)
{
    if (!b->in_insn)
        return;
    if (b->in_list) {
        b_err(b, t.off, "nested operand lists are not allowed");
        b->insn_bad = 1;
        return;
    }
    unsigned type;
    uint32_t pos = b->pos;
    char c = cur_fmt(b, &type);
    pos = b->pos;
    if (b->insn_bad)
        return;
    struct ir_opnd o = opnd_new((unsigned)kind);
    o.type = (uint8_t)type;
    o.pad_ = (uint8_t)c;   /* format char and position while reading (reset at the end) */
    o.cc = (uint8_t)pos;
    o.first = b->nelems;
    if (pos_is_dst(c))
        o.flags |= OPF_DST;
    b->list_top = b->ntop;
    push_opnd(b, o, t.off);
    if (b->ntop == b->list_top + 1)
        b->in_list = 1;
}

/* Close the open element list of the current operand (vector, call list, texture
 * coordinates): its element count, or NULL after the diagnostic `too_many`. */
static struct ir_opnd *list_close(struct ptx_builder *b, const char *too_many)
{
    b->in_list = 0;
    struct ir_opnd *o = &b->ops_top[b->list_top];
    uint32_t n = b->nelems - o->first;
    if (n > 255) {
        b_err(b, b->ops_off[b->list_top], "%s", too_many);
        b->insn_bad = 1;
        return NULL;
    }
    o->n = (uint8_t)n;
    o->pad_ = 0;
    o->cc = 0;
    return o;
}

/* '}' or ')' of a list operand. */
void b_o_list_end(struct ptx_builder *b)
{
    if (!b->in_insn || !b->in_list)
        return;
    struct ir_opnd *o = list_close(b, "too many list elements");
    if (o && (o->flags & OPF_DST))
        for (uint32_t i = o->first; i < b->nelems; i++)
            if (b->elems[i].kind == OPK_REG)
                b->elems[i].flags |= OPF_DST;
}

/* '[' of an address operand. */
void b_a_begin(struct ptx_builder *b, struct ptx_tok t)
{
    if (!b->in_insn)
        return;
    b->in_addr = 1;
    b->addr = opnd_new(OPK_ADDR);
    b->addr_off = t.off;
}

/* Base of an address: register, variable, or an absolute address. */
void b_a_base(struct ptx_builder *b, struct ptx_tok t, int is_num)
{
    if (!b->in_insn || b->insn_bad)
        return;
    struct ir_opnd *a = &b->addr;
    if (is_num) {
        uint64_t v = 0;
        if (ptx_parse_int(tok_s(b, t), t.len, &v) < 0) {
            b_err(b, t.off, "invalid address");
            b->insn_bad = 1;
        }
        a->imm.u = v;
        return;
    }
    const char *s = tok_s(b, t);
    int32_t e = ent_find(b, s, t.len, b_hash(s, t.len));
    const struct ir_regdecl *rd;
    uint32_t slot;
    if (reg_resolve(b, s, t.len, e, &rd, &slot) == 0) {
        if (rd->rf == RF_PRED) {
            b_err(b, t.off, "predicate '%.*s' used as an address", (int)t.len, s);
            b->insn_bad = 1;
        }
        a->rf = rd->rf;
        a->slot = slot;
        return;
    }
    if (e >= 0 && b->ents[e].bind >= 0 && b->binds[b->ents[e].bind].kind == BK_SYM) {
        a->sym = b->binds[b->ents[e].bind].idx;
        return;
    }
    if (e >= 0 && b->ents[e].gsym >= 0) {
        a->sym = (uint32_t)b->ents[e].gsym;
        return;
    }
    b_err(b, t.off, "undefined identifier '%.*s'", (int)t.len, s);
    b->insn_bad = 1;
}

/* +N / -N offset of an address. */
void b_a_off(struct ptx_builder *b, struct ptx_tok t, int neg)
{
    if (!b->in_insn || b->insn_bad)
        return;
    uint64_t v = 0;
    if (ptx_parse_int(tok_s(b, t), t.len, &v) < 0) {
        b_err(b, t.off, "invalid address offset");
        b->insn_bad = 1;
        return;
    }
    b->addr.imm.u += neg ? 0 - v : v;
}

/* ']' of an address operand. */
void b_a_end(struct ptx_builder *b)
{
    if (!b->in_insn)
        return;
    b->in_addr = 0;
    unsigned type;
    char c = cur_fmt(b, &type);
    if (b->insn_bad)
        return;
    if (c != 'm' && c != 'x' && c != '*') {
        b_err(b, b->addr_off, "unexpected memory operand for '%s'",
              ir_op_name((enum ir_op)b->insn.op));
        b->insn_bad = 1;
        return;
    }
    if (b->addr.flags & OPF_POSTINC) {
        b_err(b, b->addr_off, "'+=' addressing is PTXPlus only (g[…], s[…], l[…])");
        b->insn_bad = 1;
        return;
    }
    b->addr.type = (uint8_t)type;
    push_opnd(b, b->addr, b->addr_off);
}

/* +=N of a PTXPlus address ($ofs post-increment). */
void b_a_postinc(struct ptx_builder *b, struct ptx_tok t)
{
    if (!b->in_insn || b->insn_bad)
        return;
    b_a_off(b, t, 0);
    b->addr.flags |= OPF_POSTINC;
}

/* ']' of a PTXPlus memory operand SPACE[…]: g (global), s (shared), l (local) or ce#c#
 * (a constant bank: the variable of that name). Valid at any operand position. */
void b_pp_end(struct ptx_builder *b, struct ptx_tok sp)
{
    if (!b->in_insn)
        return;
    b->in_addr = 0;
    unsigned type;
    char c = cur_fmt(b, &type);
    if (b->insn_bad)
        return;
    const char *s = tok_s(b, sp);
    struct ir_opnd a = b->addr;
    a.kind = OPK_PP_MEM;
    if (sp.len == 1 && (s[0] == 'g' || s[0] == 's' || s[0] == 'l')) {
        a.type = (uint8_t)type;
        a.first = s[0] == 'g' ? SP_GLOBAL : s[0] == 's' ? SP_SHARED : SP_LOCAL;
    } else {
        uint32_t i = 0;
        int ok = sp.len > 3 && s[0] == 'c' && s[1] == 'e';
        for (i = 2; ok && i < sp.len && s[i] >= '0' && s[i] <= '9'; i++)
            ;
        ok = ok && i > 2 && i + 1 < sp.len && s[i] == 'c';
        for (i++; ok && i < sp.len; i++)
            ok = s[i] >= '0' && s[i] <= '9';
        if (!ok) {
            b_err(b, sp.off, "unknown PTXPlus memory space '%.*s[' (expected g[, s[, l[ or "
                             "ce#c#[)", (int)sp.len, s);
            b->insn_bad = 1;
            return;
        }
        int32_t e = ent_find(b, s, sp.len, b_hash(s, sp.len));
        if (e < 0 || b->ents[e].gsym < 0) {
            b_err(b, sp.off, "undefined constant bank '%.*s'", (int)sp.len, s);
            b->insn_bad = 1;
            return;
        }
        if (a.sym != IR_NOSYM) {
            b_err(b, b->addr_off, "a constant bank operand cannot add a variable");
            b->insn_bad = 1;
            return;
        }
        a.sym = (uint32_t)b->ents[e].gsym;
        a.first = SP_CONST;
        a.type = (uint8_t)type;
    }
    if (pos_is_dst(c) && !b->in_list)
        a.flags |= OPF_DST;
    b->m->dialect = DIALECT_PTXPLUS;
    push_opnd(b, a, sp.off);
}

/* PTXPlus operand modifiers on the operand just read: OPF_NEG (-g[…]) and OPF_ABS (|x|);
 * both make the module PTXPlus. */
void b_o_flag(struct ptx_builder *b, int flags)
{
    if (!b->in_insn || b->insn_bad)
        return;
    struct ir_opnd *o = b->in_list ? (b->nelems ? &b->elems[b->nelems - 1] : NULL)
                                   : (b->ntop && b->ntop <= 64 ? &b->ops_top[b->ntop - 1] : NULL);
    if (o)
        o->flags |= (uint8_t)flags;
    b->m->dialect = DIALECT_PTXPLUS;
}

/* A handle of a texture / surface / tensor-map operand ([tex, …], [tex, sampler, …]): the
 * first one opens the OPK_TEX operand, whose element list the coordinates continue. */
void b_t_handle(struct ptx_builder *b, struct ptx_tok t)
{
    if (!b->in_insn || b->insn_bad)
        return;
    if (!b->in_list) {
        unsigned type;
        uint32_t pos = b->pos;
        char c = cur_fmt(b, &type);
        pos = b->pos;
        if (b->insn_bad)
            return;
        if (c != 'm' && c != 'x' && c != '*') {
            b_err(b, b->addr_off, "unexpected texture/tensor operand for '%s'",
                  ir_op_name((enum ir_op)b->insn.op));
            b->insn_bad = 1;
            return;
        }
        struct ir_opnd o = opnd_new(OPK_TEX);
        o.type = (uint8_t)type;
        o.pad_ = (uint8_t)c; /* format char and position while reading (reset at the end) */
        o.cc = (uint8_t)pos;
        o.first = b->nelems;
        b->list_top = b->ntop;
        push_opnd(b, o, b->addr_off);
        if (b->ntop != b->list_top + 1)
            return;
        b->in_list = 1;
    }
    struct ir_opnd *l = &b->ops_top[b->list_top];
    if (l->imm.u >= 2) {
        b_err(b, t.off, "too many handles in a texture operand (texture, sampler, {coordinates})");
        b->insn_bad = 1;
        return;
    }
    const char *s = tok_s(b, t);
    int32_t e = ent_find(b, s, t.len, b_hash(s, t.len));
    const struct ir_regdecl *rd;
    uint32_t slot;
    struct ir_opnd h = opnd_new(OPK_REG);
    if (reg_resolve(b, s, t.len, e, &rd, &slot) == 0) {
        if (rd->rf == RF_PRED) {
            b_err(b, t.off, "predicate '%.*s' used as a texture handle", (int)t.len, s);
            b->insn_bad = 1;
            return;
        }
        h.rf = rd->rf;
        h.slot = slot;
        h.n = 1;
        h.type = rd->type;
    } else if (e >= 0 && ((b->ents[e].bind >= 0 && b->binds[b->ents[e].bind].kind == BK_SYM) ||
                          (b->ents[e].bind < 0 && b->ents[e].gsym >= 0))) {
        h.kind = OPK_SYM;
        h.sym = b->ents[e].bind >= 0 ? b->binds[b->ents[e].bind].idx : (uint32_t)b->ents[e].gsym;
        h.type = b->m->address_size == 32 ? T_U32 : T_U64;
        h.rf = (uint8_t)rf_of_type(h.type);
    } else {
        b_err(b, t.off, "undefined identifier '%.*s'", (int)t.len, s);
        b->insn_bad = 1;
        return;
    }
    VEC_PUSH(b, b->elems, b->nelems, b->capelems, h);
    l->imm.u++;
}

/* ']' of a texture / surface / tensor-map operand. */
void b_t_end(struct ptx_builder *b)
{
    if (!b->in_insn)
        return;
    b->in_addr = 0;
    if (b->in_list)
        list_close(b, "too many coordinates");
}

/* Rules that depend on the operands rather than the mnemonic (isa_req.def, "operand forms"):
 * noted once per rule per module, at the mnemonic. */
static void isa_operand_rules(struct ptx_builder *b, const struct ir_insn *in)
{
    uint32_t off = b->insn_tok.off;
    const char *w;
    int nc = 0;
    switch (in->op) {
    case OP_TEX: case OP_TLD4: {
        w = in->op == OP_TEX ? "tex with a d|p destination" : "tld4 with a d|p destination";
        if (b->pipe_seen)
            isa_feature(b, ISR_TEX_PRED, w, (int)strlen(w), off);
        /* [h, {c}] then (tex) the lod / dPdx, dPdy, then {offset} and depth-compare */
        int ind = 0, grad = 0, vecs = 0, seen = 0;
        for (unsigned i = 0; i < in->nmod; i++)
            grad |= b->fb.mods[in->mod + i] == MOD_GRAD;
        for (uint32_t i = 0; i < b->ntop && i < 64; i++) {
            const struct ir_opnd *o = &b->ops_top[i];
            if (o->kind == OPK_TEX) {
                seen = 1;
                ind |= o->n && o->first < b->nelems && b->elems[o->first].kind == OPK_REG;
            } else if (seen && o->kind == OPK_VEC) {
                vecs++;
            }
        }
        w = "indirect texture access";
        if (ind)
            isa_feature(b, ISR_TEX_INDIRECT, w, (int)strlen(w), off);
        if (in->op == OP_TEX && vecs > (grad ? 2 : 0))
            ISA_FEATURE(b, ISR_TEX_OFFSET, "tex with an offset operand", off);
        break;
    }
    case OP_MBARRIER_ARRIVE: case OP_MBARRIER_ARRIVE_DROP:
        for (unsigned i = 0; i < in->nmod; i++)
            if (b->fb.mods[in->mod + i] == MOD_NOCOMPLETE ||
                b->fb.mods[in->mod + i] == MOD_EXPECT_TX)
                nc = 1;
        w = in->op == OP_MBARRIER_ARRIVE ? "mbarrier.arrive with a count operand"
                                         : "mbarrier.arrive_drop with a count operand";
        if (b->ntop >= 3 && !nc)
            isa_feature(b, ISR_MBAR_COUNT, w, (int)strlen(w), off);
        w = in->op == OP_MBARRIER_ARRIVE ? "mbarrier.arrive with a '_' destination"
                                         : "mbarrier.arrive_drop with a '_' destination";
        if (b->ntop >= 1 && b->ops_top[0].kind == OPK_SINK)
            isa_feature(b, ISR_MBAR_SINK, w, (int)strlen(w), off);
        break;
    case OP_MOV: case OP_CVTA:
        for (uint32_t i = 1; i < b->ntop && i < 64; i++)
            if (b->ops_top[i].kind == OPK_FUNC)
                ISA_FEATURE(b, ISR_DIR_INIT_ADDR, "function address", off);
        break;
    case OP_CALL:
        if (in->target == IR_NOPC)
            ISA_FEATURE(b, ISR_CALL_INDIRECT, "call through a register", off);
        break;
    case OP_TXQ: case OP_SUQ: case OP_SULD: case OP_SUST: case OP_SURED: {
        int ind = 0;
        for (uint32_t i = 0; i < b->ntop && i < 64; i++) {
            const struct ir_opnd *o = &b->ops_top[i];
            if (o->kind == OPK_TEX && o->n && o->first < b->nelems &&
                b->elems[o->first].kind == OPK_REG)
                ind = 1;
            if (o->kind == OPK_ADDR && o->sym == IR_NOSYM && o->slot != IR_NOSLOT)
                ind = 1;
        }
        w = in->op == OP_TXQ ? "indirect texture access" : "indirect surface access";
        if (ind)
            isa_feature(b, ISR_TEX_INDIRECT, w, (int)strlen(w), off);
        break;
    }
    case OP_TCGEN05_MMA: case OP_TCGEN05_MMA_SP:
        /* [d], a, b, idesc, {lanes,} enable-input-d, scale-input-d: an immediate last */
        if (b->ntop >= 6 && b->ntop <= 64 && b->ops_top[b->ntop - 1].kind == OPK_IMM)
            ISA_FEATURE(b, ISR_TCGEN05_SCALE_D_IMM, "tcgen05.mma with an immediate scale-input-d",
                        off);
        break;
    default:
        break;
    }
}

/* ';' of an instruction: check the operand count, append to the function. */
void b_insn_end(struct ptx_builder *b, struct ptx_tok semi)
{
    if (!b->in_insn)
        return;
    if (b->ccd_cand)
        ccd_reject(b);
    b->in_insn = 0;
    if (b->insn_bad)
        return;
    struct ir_insn *in = &b->insn;
    const struct fmtinfo *fi = &b->fmt[in->op];
    /* a trailing `X|Y` item without `|Y` */
    if (b->pos < fi->n && fi->pos[b->pos].pipe2 && b->ntop < 64) {
        uint32_t p;
        (void)top_fmt(b, &p);
    }
    uint32_t given = 0;
    for (uint32_t i = 0; i < b->ntop; i++)
        given++;
    const char *nm = ir_op_name((enum ir_op)in->op);
    if (b->pos < fi->nreq) {
        b_err(b, semi.off, "too few operands for '%s' (expected %u)", nm, fi->nreq);
        return;
    }
    if (!fi->star && b->pos > fi->n) {
        b_err(b, b->ops_off[fi->n] ? b->ops_off[fi->n] : semi.off,
              "too many operands for '%s' (expected at most %u)", nm, fi->n);
        return;
    }
    if ((in->op == OP_MIN || in->op == OP_MAX) && b->ntop == 4)
        isa_feature(b, ISR_MINMAX3, in->op == OP_MIN ? "min with three sources"
                    : "max with three sources", 22, b->insn_tok.off);
    if (b->m->dialect == DIALECT_PTX)
        isa_operand_rules(b, in);
    if (in->op == OP_BRA && (b->ntop < 1 || b->ops_top[0].kind != OPK_LABEL)) {
        b_err(b, b->ops_off[0], "'bra' needs a label");
        return;
    }
    if (b->has_ccd && b->ntop < 64)
        b->ops_top[b->ntop++] = b->ccd; /* the flag destination goes last */
    given = b->ntop;
    in->nopnd = (uint8_t)given;
    in->opnd = b->fb.nopnds;
    uint32_t ebase = b->fb.nopnds + given;
    uint32_t insn_idx = b->fb.ninsns;
    for (uint32_t i = 0; i < given; i++) {
        struct ir_opnd o = b->ops_top[i];
        if (o.kind == OPK_VEC || o.kind == OPK_PARAMS || o.kind == OPK_TEX)
            o.first += ebase;
        if (o.kind == OPK_LABEL) {
            struct fixup fx = {b->fb.nopnds, insn_idx, o.first, b->ops_off[i], 0};
            o.first = 0;
            VEC_PUSH(b, b->fb.fix, b->fb.nfix, b->fb.capfix, fx);
        }
        VEC_PUSH(b, b->fb.opnds, b->fb.nopnds, b->fb.capopnds, o);
    }
    for (uint32_t i = 0; i < b->nelems; i++)
        VEC_PUSH(b, b->fb.opnds, b->fb.nopnds, b->fb.capopnds, b->elems[i]);
    VEC_PUSH(b, b->fb.insns, b->fb.ninsns, b->fb.capinsns, *in);
}

/* ========================================================================== driver */

static void b_finish_module(struct ptx_builder *b)
{
    struct ir_module *m = b->m;
    for (uint32_t i = 0; i < b->nprelocs; i++) {
        struct pending_reloc *pr = &b->prelocs[i];
        struct ent *en = &b->ents[pr->ent];
        struct ir_reloc *r = &b->relocs[pr->reloc];
        if (en->gsym >= 0) {
            r->sym = (uint32_t)en->gsym;
        } else if (en->gfunc >= 0) {
            r->sym = (uint32_t)en->gfunc;
            r->is_func = 1;
        } else {
            b_err(b, pr->off, "undefined identifier '%s' in initializer", b->strtab + en->id);
        }
    }
    ADOPT(m->funcs, b->funcs, b->nfuncs);
    m->nfuncs = b->nfuncs;
    ADOPT(m->syms, b->syms, b->nsyms);
    m->nsyms = b->nsyms;
    ADOPT(m->relocs, b->relocs, b->nrelocs);
    m->nrelocs = b->nrelocs;
    ADOPT(m->data, b->data, b->ndata);
    m->ndata = b->ndata;
    ADOPT(m->files, b->files, b->nfiles);
    m->nfiles = b->nfiles;
    ADOPT(m->sections, b->sections, b->nsections);
    m->nsections = b->nsections;
    ADOPT(m->pragmas, b->pragmas, b->npragmas);
    m->npragmas = b->npragmas;
    ADOPT(m->locs, b->locs, b->nlocs);
    m->nlocs = b->nlocs;
    ADOPT(m->strtab, b->strtab, b->nstr);
    m->nstrtab = b->nstr;
}

static void b_free(struct ptx_builder *b)
{
    free(b->ents);
    free(b->htab);
    free(b->strtab);
    smap_free(&b->ops);
    smap_free(&b->mods);
    smap_free(&b->tokcache);
    free(b->dec);
    free(b->dmods);
    free(b->funcs);
    free(b->syms);
    free(b->relocs);
    free(b->prelocs);
    free(b->data);
    free(b->files);
    free(b->sections);
    free(b->pragmas);
    free(b->pbuf);
    free(b->locs);
    free(b->mregs);
    free(b->decl.img);
    free(b->decl.tex);
    free(b->fb.tabn);
    free(b->pend);
    free(b->fb.insns);
    free(b->fb.opnds);
    free(b->fb.mods);
    free(b->fb.tables);
    free(b->fb.labels);
    free(b->fb.label_ents);
    free(b->fb.regs);
    free(b->fb.fix);
    free(b->binds);
    free(b->elems);
    free(b->isa_seen);
}

/* Lex, parse and build text into a new module (see build.h). */
struct ir_module *ptx_build(const char *text, size_t len, const char *filename,
                            struct diag *d, int *nerr)
{
    (void)filename;
    struct ptx_builder *b = calloc(1, sizeof *b);
    struct ir_module *m = calloc(1, sizeof *m);
    void *parser = NULL;
    if (!b || !m)
        goto oom;
    m->arena = ir_arena_new();
    if (!m->arena)
        goto oom;
    m->address_size = 32; /* no .address_size directive: 32-bit addresses (the ISA default) */
    b->m = m;
    b->d = d;
    b->text = text;
    b->len = len;
    b->isa_ver = UINT16_MAX;
    b->isa_sm = UINT16_MAX;
    b->isa_af = ISA_AF_ANY;
    if (b_setup(b) < 0)
        goto oom;
    parser = ptx_parseAlloc(malloc);
    if (!parser)
        goto oom;
    struct ptx_lexer lx;
    ptx_lex_init(&lx, text, len, d);
    struct ptx_tok t;
    int code;
    do {
        code = ptx_lex(&lx, &t);
        ptx_parse(parser, code, t, b);
    } while (code != 0 && !b->oom);
    if (b->oom)
        goto oom;
    if (b->cur >= 0 && b->in_body)
        b_func_end(b, t);
    b_finish_module(b);
    if (b->oom)
        goto oom;
    if (b->isa_suppressed)
        diag_report(d, DIAG_REMARK, SIZE_MAX,
                    "%u more instructions need a newer .version or .target (notes not shown)",
                    b->isa_suppressed);
    ptx_parseFree(parser, free);
    b_free(b);
    free(b);
    *nerr = d->nerrors;
    return m;
oom:
    if (parser)
        ptx_parseFree(parser, free);
    if (b) {
        b_free(b);
        free(b);
    }
    if (m) {
        ir_arena_free(m->arena);
        free(m);
    }
    diag_report(d, DIAG_ERROR, SIZE_MAX, "out of memory");
    *nerr = d->nerrors;
    return NULL;
}
