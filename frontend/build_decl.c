/*
 * frontend/build_decl.c — module directives (.version, .target, .address_size, .file, .loc,
 * .section, .pragma, .alias), declarations (variables with their initializers, registers)
 * and functions (header, parameters, performance directives, body, labels, branch and call
 * tables, prototypes).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/build_int.h"
#include "ptx_gram.h"

/* ======================================================================= module level */

/* The parser could not grow its stack (out of memory): the build stops as out of memory. */
void b_parser_oom(struct ptx_builder *b)
{
    b->oom = 1;
}

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
    b->csum.n = 0;
    b->has_guard = 0;
    b->guard = IR_NOGUARD;
    memset(&b->spec, 0, sizeof b->spec);
    b->decl.ndims = 0;
    b->decl.has_init = 0;
    b->decl.depth = 0;
}

/* .version MAJOR.MINOR */
/* The PTX ISA versions ptxas 13 accepts: major -> its highest minor (1.0-1.5, 2.0-2.3, ...,
 * 9.0; probed with ptxas: 7.9, 8.9, 9.1 and 99.0 are "Unsupported .version"). */
static const uint8_t ptx_version_max_minor[] = {[1] = 5, [2] = 3, [3] = 2, [4] = 3, [5] = 1,
                                                 [6] = 5, [7] = 8, [8] = 8, [9] = 0};
#define PTX_VERSION_LATEST "9.0"

/* The sm_NN targets ptxas 13 accepts (plain; the a/f forms: isa_af_bit), probed with ptxas:
 * anything else is "Unsupported .target". */
static const uint16_t ptx_targets[] = {10, 11, 12, 13, 20, 21, 30, 32, 35, 37, 50, 52, 53, 60,
                                       61, 62, 70, 72, 75, 80, 82, 86, 87, 88, 89, 90, 100, 101,
                                       103, 110, 120, 121};

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
    if (maj >= sizeof ptx_version_max_minor || min > ptx_version_max_minor[maj])
        b_err(b, t.off, "unsupported .version %.*s (ptxas 13 knows 1.0 to %s)", (int)t.len, s,
              PTX_VERSION_LATEST);
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
        uint32_t digits = 3;
        while (digits < t.len && s[digits] >= '0' && s[digits] <= '9')
            digits++;
        int known = 0;
        for (size_t i = 0; i < sizeof ptx_targets / sizeof *ptx_targets; i++)
            known |= ptx_targets[i] == v;
        if (digits == t.len - 1 && (suf == 'a' || suf == 'f'))
            known = known && (b->isa_af != ISA_AF_OTHER || v == 101); /* sm_101a/f too */
        else if (digits != t.len)
            known = 0;
        if (!known)
            b_err(b, t.off, "unsupported .target '%.*s'", (int)t.len, s);
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

/* A .reg declaration's type (at off) is one a register can have: ptxas 13 refuses the
 * instruction-only types ("Type .e4m3 may only be used as an instruction type"; .bf16, .tf32,
 * .b1, .s4, .e2m1 ...: "syntax error"). */
static void reg_type_check(struct ptx_builder *b, uint32_t off)
{
    if (!b->spec.has_space || b->spec.space != SP_REG)
        return;
    switch (b->spec.type) {
    case T_PRED: case T_B8: case T_B16: case T_B32: case T_B64: case T_B128: case T_U8:
    case T_U16: case T_U32: case T_U64: case T_S8: case T_S16: case T_S32: case T_S64:
    case T_F16: case T_F16X2: case T_F32: case T_F64:
        return;
    default:
        b_err(b, off, "type .%s may only be used as an instruction type, not for a register",
              ir_type_name((enum ir_type)b->spec.type));
    }
}

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
        b->spec.vec_off = t.off;
        break;
    case BS_TYPE: {
        int md = smap_get(&b->mods, s, n);
        if (md > 0 && ir_mod_kind((enum ir_mod)md) == MK_TYPE) {
            b->spec.type = (uint8_t)ir_mod_value((enum ir_mod)md);
            b->spec.has_type = 1;
            reg_type_check(b, t.off);
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
            reg_type_check(b, t.off);
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

static unsigned elem_size(struct ptx_builder *b);

/* The vector part of a declaration, as ptxas decides it (once per declaration): .v2 and .v4
 * only (.v8 is an instruction width, not a variable's), no vector of .pred, at most 128 bits. */
static void spec_vec_check(struct ptx_builder *b)
{
    if (b->spec.vec <= 1 || b->spec.vec_checked)
        return;
    b->spec.vec_checked = 1;
    if (b->spec.vec != 2 && b->spec.vec != 4)
        b_err(b, b->spec.vec_off, "'.v%u' in a declaration: variables and registers are .v2 or .v4",
              b->spec.vec);
    else if (b->spec.has_type && b->spec.type == T_PRED)
        b_err(b, b->spec.vec_off, "a .pred register cannot be a vector");
    else if (b->spec.has_type && elem_size(b) > 16)
        b_err(b, b->spec.vec_off, "'.v%u .%s' is %u bits, more than the 128 a vector may hold",
              b->spec.vec, ir_type_name((enum ir_type)b->spec.type), elem_size(b) * 8);
}

/* The name of a variable being declared (dimensions and initializer follow). */
void b_decl_name(struct ptx_builder *b, struct ptx_tok name)
{
    spec_vec_check(b);
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
    spec_vec_check(b);
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
    if (!p)
        return;
    size_t sz = ir_type_size(b->spec.type);
    if (sz <= sizeof v) {
        memcpy(p, &v, sz); /* little-endian host */
    } else {
        /* .b128: the 64-bit value, sign-extended when it was negative */
        memcpy(p, &v, sizeof v);
        memset(p + sizeof v, neg && (int64_t)v < 0 ? 0xff : 0, sz - sizeof v);
    }
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
    /* the members each type has, and a .samplerref's five at most (ptxas 13: "Unrecognized
       field name '…' in opaque struct initializer", "Too many elements in opaque struct
       initializer"; a .texref or .surfref may repeat a member) */
    const unsigned has = t == T_SAMPLERREF ? 0x1Fu      /* addr_mode_0..2, filter_mode, force_… */
                         : t == T_SURFREF  ? 0x7C0u     /* width … channel_order */
                                           : 0x7EFu;    /* all but force_unnormalized_coords */
    if (!(has >> f & 1)) {
        b_err(b, key.off, "a .%s has no member '%s'", ir_type_name((enum ir_type)t),
              ir_texfield_name((enum ir_texfield)f));
        return;
    }
    if (t == T_SAMPLERREF && b->decl.ntex >= 2 * 5) {
        b_err(b, key.off, "a .samplerref initializer has at most 5 members");
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
    b->fb.nlabel_blk = b->fb.nlabel_next = b->fb.nblk = b->fb.blk = 0;
    VEC_PUSH(b, b->fb.blk_parent, b->fb.nblk, b->fb.capblk, 0u); /* block 0: the body */
    memset(b->fb.nslots, 0, sizeof b->fb.nslots);
    b->nrpi = 0;
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
    spec_vec_check(b);
    if (!b->spec.has_type)
        b_err(b, name.off, "parameter '%.*s' without a type", (int)name.len, tok_s(b, name));
    if (b->spec.has_space && b->spec.space != SP_PARAM && b->spec.space != SP_REG)
        b_err(b, name.off, "parameter '%.*s' must be in .param or .reg", (int)name.len,
              tok_s(b, name));
    if (!b->spec.has_space)
        b->spec.space = SP_PARAM;
    if (b->spec.space == SP_REG && b->cur >= 0 && b->funcs[b->cur].is_entry)
        b_err(b, name.off, "kernel parameter '%.*s' must be in .param, not .reg", (int)name.len,
              tok_s(b, name));
    bool reg = b->spec.space == SP_REG;
    struct ir_sym s = sym_from_spec(b, name);
    s.space = SP_PARAM;
    if (reg)
        s.flags |= VF_REG_PARAM;
    if (reg && s.type == T_PRED && s.size == 0) {
        s.size = 1; /* a .reg .pred passes its bit in one byte of the parameter frame */
        s.align = s.align ? s.align : 1;
    }
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
            uint32_t fl = o->flags, line = o->line, rslot = o->reg_slot;
            uint8_t rrf = o->reg_rf;
            *o = b->pend[from + i];
            o->line = line; /* the first declaration's position (printing order) */
            o->reg_rf = rrf; /* a .reg parameter's register, if its body came first */
            o->reg_slot = rslot;
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
    /* a cluster shape is either required or bounded, as ptxas has it */
    if ((b->perf_kind == 5 && f->reqnctapercluster[0]) ||
        (b->perf_kind == 6 && f->maxclusterrank))
        b_err(b, t.off, "conflicting directives: .reqnctapercluster and .maxclusterrank cannot "
                        "both be specified");
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
        if (e >= 0 && (b->syms[si].flags & VF_REG_PARAM)) {
            /* a .reg parameter: a register of the body, which the call fills (warp.c) */
            uint32_t k = b->fb.nregs;
            reg_declare(b, e, b->syms[si].type, b->syms[si].vec, 0, t.off);
            if (b->fb.nregs == k + 1) {
                b->fb.regs[k].param = 1;
                b->syms[si].reg_rf = b->fb.regs[k].rf;
                b->syms[si].reg_slot = b->fb.regs[k].slot;
            }
        } else if (e >= 0) {
            bind_push(b, e, BK_SYM, si, t.off);
        }
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

/* '}' of a function body: resolve labels, move the arrays into the module arena. */
void b_func_end(struct ptx_builder *b, struct ptx_tok t)
{
    if (b->cur < 0 || !b->in_body)
        return;
    /* A label after the last instruction (thrust's radix sort branches there): ptxas takes it,
       running off the end of a body being a return. Make that return explicit, at the '}',
       so every branch target is an instruction of the function. */
    for (uint32_t i = 0; i < b->fb.nlabels; i++)
        if (b->fb.labels[i].pc == b->fb.ninsns) {
            struct ir_insn ret;
            memset(&ret, 0, sizeof ret);
            ret.op = OP_RET;
            ret.vec = 1;
            ret.guard = IR_NOGUARD;
            ret.target = IR_NOPC;
            ret.reconv = IR_NOPC;
            ret.line = t.line;
            uint32_t ls = t.off;
            while (ls > 0 && b->text[ls - 1] != '\n')
                ls--;
            ret.col = t.off - ls + 1;
            ret.mod = b->fb.nmods;
            ret.opnd = b->fb.nopnds;
            ret.unit = (uint8_t)ir_op_unit(OP_RET);
            ret.iflags = (uint16_t)ir_op_flags(OP_RET);
            VEC_PUSH(b, b->fb.insns, b->fb.ninsns, b->fb.capinsns, ret);
            break;
        }
    /* label fixups */
    for (uint32_t i = 0; i < b->fb.nfix; i++) {
        struct fixup *fx = &b->fb.fix[i];
        struct ent *en = &b->ents[fx->ent];
        if (en->label < 0) {
            b_err(b, fx->off, "undefined label '%s'", b->strtab + en->id);
            continue;
        }
        /* ptxas scopes labels by block: the use sees the label of its name in the innermost
         * block enclosing it that has one; one declared only in nested { } that do not
         * enclose the use is unknown there */
        int32_t hit = -1;
        for (uint32_t ub = fx->blk;; ub = b->fb.blk_parent[ub]) {
            for (int32_t j = en->label; j >= 0 && hit < 0; j = b->fb.label_next[j])
                if (b->fb.label_blk[j] == ub)
                    hit = j;
            if (hit >= 0 || ub == 0 || ub >= b->fb.nblk)
                break;
        }
        if (hit < 0) {
            b_err(b, fx->off,
                  "label '%s' is declared in a nested block ('{ ... }') that does not enclose "
                  "this use (ptxas: unknown symbol)",
                  b->strtab + en->id);
            continue;
        }
        uint32_t pc = b->fb.labels[hit].pc;
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
    if (b->depth >= PTX_MAX_NEST) {
        if (!b->nest_over++)
            b_err(b, t.off, "blocks nested deeper than %d levels (ptxas 13's limit)",
                  PTX_MAX_NEST);
        return;
    }
    b->scope_mark[b->depth] = b->nbinds;
    b->depth++;
    const uint32_t id = b->fb.nblk;
    VEC_PUSH(b, b->fb.blk_parent, b->fb.nblk, b->fb.capblk, b->fb.blk);
    if (b->fb.nblk == id + 1)
        b->fb.blk = id;
}

/* '}' of a nested block: its declarations go out of scope. */
void b_scope_end(struct ptx_builder *b)
{
    if (b->nest_over) {
        b->nest_over--;
        return;
    }
    if (b->depth <= 1)
        return;
    b->depth--;
    binds_pop_to(b, b->scope_mark[b->depth]);
    if (b->fb.blk < b->fb.nblk)
        b->fb.blk = b->fb.blk_parent[b->fb.blk];
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
    /* labels are block-scoped (ptxas): one name may label an instruction in each block, an
       inner block's shadowing an outer one's (an inline-asm { L: ... } inlined twice) */
    int32_t last = -1;
    for (int32_t j = b->ents[e].label; j >= 0; j = b->fb.label_next[j]) {
        if (b->fb.label_blk[j] == b->fb.blk) {
            b_err(b, t.off, "duplicate label '%.*s'", (int)t.len, tok_s(b, t));
            return;
        }
        last = j;
    }
    struct ir_label l = {b->ents[e].id, b->fb.ninsns};
    uint32_t k = b->fb.nlabels;
    VEC_PUSH(b, b->fb.labels, b->fb.nlabels, b->fb.caplabels, l);
    VEC_PUSH(b, b->fb.label_ents, b->fb.nlabel_ents, b->fb.caplabel_ents, (uint32_t)e);
    VEC_PUSH(b, b->fb.label_blk, b->fb.nlabel_blk, b->fb.caplabel_blk, b->fb.blk);
    VEC_PUSH(b, b->fb.label_next, b->fb.nlabel_next, b->fb.caplabel_next, -1);
    if (b->fb.nlabels != k + 1 || b->fb.nlabel_blk != k + 1 || b->fb.nlabel_next != k + 1)
        return; /* out of memory (reported) */
    if (last >= 0)
        b->fb.label_next[last] = (int32_t)k;
    else
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
    struct fixup fx = {UINT32_MAX, 0, (uint32_t)e, t.off, k, b->fb.blk};
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
