/*
 * frontend/build_insn.c — instructions: the guard, the mnemonic with its modifiers (decoded
 * once per spelling), each operand (registers, immediates, addresses, lists, texture
 * operands, PTXPlus forms) typed by its position in the ops.def format, and the
 * instruction's end (operand count, appended to the function).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/build_int.h"
#include "ptx_gram.h"

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

/* Byte offset of the start of token t's line. Tokens come in source order, so the start of
 * the current line is remembered: each line is scanned once, however many instructions it
 * holds (40,000 on one line used to rescan the line for each: quadratic). */
static uint32_t line_start(struct ptx_builder *b, struct ptx_tok t)
{
    if (t.line == b->ls_line && t.off >= b->ls_off)
        return b->ls_off;
    uint32_t ls = t.off;
    while (ls > 0 && b->text[ls - 1] != '\n')
        ls--;
    b->ls_line = t.line;
    b->ls_off = ls;
    return ls;
}

/* The mnemonic (with modifiers) of an instruction. */
void b_insn_begin(struct ptx_builder *b, struct ptx_tok t)
{
    struct ir_insn *in = &b->insn;
    memset(in, 0, sizeof *in);
    b->in_insn = 1;
    b->insn_bad = 0;
    b->csum.n = 0;
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
    in->col = t.off - line_start(b, t) + 1;
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
    bool l2 = false;
    for (uint32_t i = 0; i < dc->nmods; i++) {
        uint16_t md = b->dmods[dc->mods + i];
        VEC_PUSH(b, b->fb.mods, b->fb.nmods, b->fb.capmods, md);
        apply_mod(b, in, md, t.off);
        l2 |= md == MOD_L2;
    }
    if (in->op == OP_DISCARD && !l2) { /* the only level the ISA defines, and ptxas wants it */
        b_err(b, t.off, "'discard' needs the .L2 modifier (discard.global.L2 [a], 128)");
        b->insn_bad = 1;
    }
    if (in->op == OP_VOTE && (in->fl & IR_FL(FL_UNI)))
        in->mode = MODE_UNI;
    isa_check_mnemonic(b, dc, in, t.off);
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

/* A .pred register may be an element of a ld/st vector of a type of at most 32 bits (ptxas
 * 13 takes {%r1, %p1} for .u32, .u16 and .f32 alike: the predicate counts as a .b32
 * element; the verifier requires another element that is a bit-typed register), and of a
 * tld4 result or offset vector or the source vector of cvt.rs to an x4 type (the same rule). */
static bool pred_elem_ok(unsigned op, unsigned type)
{
    return (op == OP_LD || op == OP_LDU || op == OP_ST || op == OP_TLD4 || op == OP_CVT ||
            op == OP_TEX || op == OP_SULD || op == OP_SUST) &&
           type != T_PRED &&
           ir_type_size((enum ir_type)type) <= 4;
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
        } else if (c == 'x' && b->insn.op == OP_CREATEPOLICY && rd->rf == RF_PRED) {
            /* createpolicy.cvt's source is a 64-bit cache policy, never a predicate */
            b_err(b, t.off, "predicate '%.*s' used where a .b64 value is expected", (int)t.len,
                  s);
            b->insn_bad = 1;
        } else if (strchr("daDAhsuUw", c) && type && type != T_PRED && rd->rf == RF_PRED &&
                   !(b->in_list && pred_elem_ok(b->insn.op, type))) {
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

/* One integer term of a sum (`WARP_SZ+1`, the N of `reg+N`, an address offset), added to
 * b->csum, which its consumer (b_o_csum, b_o_idoff, b_a_csum) reads and clears. */
void b_c_add(struct ptx_builder *b, struct ptx_tok t, int neg)
{
    if (!b->csum.n) {
        b->csum.v = 0;
        b->csum.first = t;
        b->csum.first_neg = neg;
        b->csum.bad = 0;
    }
    b->csum.n++;
    uint64_t v = 0;
    if (ptx_parse_int(tok_s(b, t), t.len, &v) < 0) {
        if (!b->csum.bad && b->in_insn && !b->insn_bad)
            b_err(b, t.off, "invalid integer literal '%.*s'", (int)t.len, tok_s(b, t));
        b->csum.bad = 1;
    }
    b->csum.v += neg ? 0 - v : v;
}

/* reg+N as a source operand: ptxas reads the register's value plus N (`st.u64 [x], %rd1+1`
 * stores %rd1 + 1; `mov.u32 %r2, %r1+1` is `add.u32 %r2, %r1, 1`, the same cubin). The
 * builder emits `add.uNN %__rpiK, reg, N` (a temporary of the register's width) just before
 * the instruction and lets the operand read the temporary. Not on floating-point operands
 * (ptxas crashes on `mov.f32 %f2, %f1+1`), predicates, destinations or lists (ptxas: syntax
 * error). */
static void reg_plus_imm(struct ptx_builder *b, struct ir_opnd *o, uint64_t v,
                         struct ptx_tok t)
{
    const char *s = tok_s(b, t);
    const char *why = b->in_list ? "in an operand list"
                      : (o->flags & OPF_DST) ? "as a destination"
                      : o->rf == RF_PRED ? "on a predicate"
                      : ir_type_is_float((enum ir_type)o->type) ? "on a floating-point operand"
                      : o->flags || o->n > 1 || o->rf > RF_B64 ? "on this register"
                                                               : NULL;
    if (why) {
        b_err(b, t.off, "'%.*s+offset' is not allowed %s", (int)t.len, s, why);
        b->insn_bad = 1;
        return;
    }
    unsigned rf = o->rf;
    unsigned ty = rf == RF_B16 ? T_U16 : rf == RF_B32 ? T_U32 : T_U64;
    if (b->fb.nslots[rf] + 1 > (1u << 24)) {
        b_err(b, t.off, "too many registers");
        b->insn_bad = 1;
        return;
    }
    char name[24];
    int len = snprintf(name, sizeof name, "%%__rpi%u", b->nrpi++);
    struct ir_regdecl r = {str_id(b, name, (size_t)len), 0, (uint8_t)ty, 1, (uint8_t)rf, 0,
                           b->fb.nslots[rf]++};
    VEC_PUSH(b, b->fb.regs, b->fb.nregs, b->fb.capregs, r);
    struct ir_insn add;
    memset(&add, 0, sizeof add);
    add.op = OP_ADD;
    add.type[0] = (uint8_t)ty;
    add.vec = 1;
    add.guard = IR_NOGUARD;
    add.target = IR_NOPC;
    add.reconv = IR_NOPC;
    add.line = b->insn.line;
    add.col = b->insn.col;
    add.loc_file = b->insn.loc_file;
    add.loc_line = b->insn.loc_line;
    add.loc_col = b->insn.loc_col;
    add.loc_ext = b->insn.loc_ext;
    add.unit = (uint8_t)ir_op_unit(OP_ADD);
    add.iflags = (uint16_t)ir_op_flags(OP_ADD);
    add.mod = b->fb.nmods;
    add.nmod = 1;
    const char *tn = ir_type_name((enum ir_type)ty);
    VEC_PUSH(b, b->fb.mods, b->fb.nmods, b->fb.capmods,
             (uint16_t)smap_get(&b->mods, tn, strlen(tn)));
    add.opnd = b->fb.nopnds;
    add.nopnd = 3;
    struct ir_opnd d = opnd_new(OPK_REG), a = *o, k = opnd_new(OPK_IMM);
    d.rf = (uint8_t)rf;
    d.slot = r.slot;
    d.type = (uint8_t)ty;
    d.n = 1;
    d.flags = OPF_DST;
    a.type = (uint8_t)ty;
    k.rf = (uint8_t)rf;
    k.type = (uint8_t)ty;
    unsigned bits = ir_type_size((enum ir_type)ty) * 8;
    k.imm.u = bits < 64 ? v & ((UINT64_C(1) << bits) - 1) : v;
    VEC_PUSH(b, b->fb.opnds, b->fb.nopnds, b->fb.capopnds, d);
    VEC_PUSH(b, b->fb.opnds, b->fb.nopnds, b->fb.capopnds, a);
    VEC_PUSH(b, b->fb.opnds, b->fb.nopnds, b->fb.capopnds, k);
    VEC_PUSH(b, b->fb.insns, b->fb.ninsns, b->fb.capinsns, add);
    o->slot = r.slot;
}

/* sym+N / sym-N / reg+N as a value operand (N: the sum in b->csum). */
void b_o_idoff(struct ptx_builder *b, struct ptx_tok t, int neg)
{
    uint64_t v = b->csum.v;
    int bad = b->csum.bad;
    b->csum.n = 0;
    if (!b->in_insn)
        return;
    uint32_t n0 = b->in_list ? b->nelems : b->ntop;
    b_o_id(b, t, 0);
    if (b->insn_bad)
        return;
    if (bad) {
        b->insn_bad = 1;
        return;
    }
    /* the operand just pushed (the last: a pending `|q` may have pushed an empty one first) */
    struct ir_opnd *o = b->in_list ? (b->nelems > n0 ? &b->elems[b->nelems - 1] : NULL)
                                   : (b->ntop > n0 ? &b->ops_top[b->ntop - 1] : NULL);
    if (o && o->kind == OPK_SYM) {
        o->imm.u = v;
        return;
    }
    if (o && o->kind == OPK_REG && !neg) {
        reg_plus_imm(b, o, v, t);
        return;
    }
    b_err(b, t.off, o && o->kind == OPK_REG ? "a register takes '+offset' only (not '-')"
                                            : "'+offset' needs a variable or a register");
    b->insn_bad = 1;
}

static void o_num(struct ptx_builder *b, struct ptx_tok t, int neg, const struct num *pre);

/* A sum of integers as an operand (one term: the literal itself, typed as b_o_num does). */
void b_o_csum(struct ptx_builder *b)
{
    struct ptx_tok t = b->csum.first;
    int neg = b->csum.first_neg, bad = b->csum.bad;
    uint32_t n = b->csum.n;
    struct num v = {0, b->csum.v, 0};
    b->csum.n = 0;
    if (n <= 1)
        o_num(b, t, neg, NULL);
    else if (bad)
        b->insn_bad = 1;
    else
        o_num(b, t, 0, &v);
}

/* A numeric operand: token t (negated when neg), or the value *pre at t's position. */
static void o_num(struct ptx_builder *b, struct ptx_tok t, int neg, const struct num *pre)
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
    if (pre)
        n = *pre;
    else if (num_decode(b, t, neg, &n) < 0) {
        b->insn_bad = 1;
        return;
    }
    int arith_float = ir_type_class((enum ir_type)type) == TC_FLOAT;
    if (b->insn.op == OP_MOV && n.is_float == 0 && (type == T_F32 || type == T_F64)) {
        /* ptxas 13: mov.f32 / .f64 of an integer literal is an "Arguments mismatch" */
        b_err(b, t.off, "integer literal used as a floating-point operand (use 0f/0d)");
        b->insn_bad = 1;
        return;
    }
    if ((c == 'x' || c == '*') && n.is_float && !arith_float &&
        !(n.is_float == 1 && ir_type_size((enum ir_type)type) == 4))
        type = n.is_float == 2 ? T_F64 : T_F32; /* e.g. createpolicy's fraction: a float of an untyped operand */
    else if ((c == 'x' || c == '*') && n.is_float == 0 && arith_float)
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

/* A numeric operand (a float literal, or an integer sum of one term). */
void b_o_num(struct ptx_builder *b, struct ptx_tok t, int neg)
{
    o_num(b, t, neg, NULL);
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

/* +N (a sum of integers) offset of an address: [x+WARP_SZ+4]. */
void b_a_csum(struct ptx_builder *b)
{
    uint64_t v = b->csum.v;
    int bad = b->csum.bad;
    b->csum.n = 0;
    if (!b->in_insn || b->insn_bad)
        return;
    if (bad)
        b->insn_bad = 1;
    b->addr.imm.u += v;
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
            struct fixup fx = {b->fb.nopnds, insn_idx, o.first, b->ops_off[i], 0, b->fb.blk};
            o.first = 0;
            VEC_PUSH(b, b->fb.fix, b->fb.nfix, b->fb.capfix, fx);
        }
        VEC_PUSH(b, b->fb.opnds, b->fb.nopnds, b->fb.capopnds, o);
    }
    for (uint32_t i = 0; i < b->nelems; i++)
        VEC_PUSH(b, b->fb.opnds, b->fb.nopnds, b->fb.capopnds, b->elems[i]);
    VEC_PUSH(b, b->fb.insns, b->fb.ninsns, b->fb.capinsns, *in);
}
