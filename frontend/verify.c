/*
 * frontend/verify.c — the IR verifier (passes.h): checks what the interpreter relies on
 * without re-checking it at run time.
 *
 *   - operands: indices inside ir_func.opnds; register operands inside the declared registers,
 *     constant / special-register slots inside [ndeclared, nslots) with a value image; labels,
 *     brx.idx tables, functions and symbols in range; guards in the predicate file;
 *   - the CFG: block ranges tile the function, edges in range; the dominator and
 *     post-dominator trees satisfy the parent property (for every edge u->v, idom(v) is an
 *     ancestor of u; ipdom(u) is an ancestor of v), which proves every tree ancestor really
 *     (post-)dominates — checked in linear time with pre/post numbers of the trees;
 *   - every terminator's reconv is the first PC of its block's ipdom (IR_NOPC for the virtual
 *     exit), and for functions of up to 4096 blocks, independently, that no path from the
 *     branch reaches the exit without passing its reconvergence block;
 *   - for PTX (not PTXPlus), what ptxas checks of operands and instruction forms, so that
 *     `ptxemu check` accepts and rejects what ptxas does (tests/ptxas_diff.t): every register
 *     operand's declared type against the type its ops.def format position gets ("Arguments
 *     mismatch for instruction"; rules above reg_fits), address registers and the spaces a
 *     variable's address reaches (verify_addrs), special registers of the right width, and
 *     the modifiers and types ptxas requires or refuses (verify_form, verify_other).
 * Messages are compiler diagnostics at the instruction (`file:line:col: error: …`).
 */
#include <stdlib.h>
#include <string.h>

#include "frontend/cfg.h"
#include "frontend/passes.h"

struct vctx {
    const struct ir_module *m;
    const struct ir_func *f;
    FILE *diag;
    int nerr;
    bool addr16; /* some .global/generic access has a 16-bit address register (narrow_addrs) */
};

#define VERR(v, in, ...)                                                                      \
    do {                                                                                      \
        (v)->nerr++;                                                                          \
        if ((v)->nerr <= 50)                                                                  \
            cfg_error_at((v)->diag, (v)->m, (in) ? (in)->line : (v)->f->line,                 \
                         (in) ? (in)->col : 1, __VA_ARGS__);                                  \
    } while (0)

/* ============================================================================= operands */

static void verify_opnd(struct vctx *v, const struct ir_insn *in, const struct ir_opnd *o,
                        unsigned idx, int depth)
{
    const struct ir_func *f = v->f;
    const struct ir_module *m = v->m;
    unsigned cnt = o->n ? o->n : 1;
    if (o->type == T_B128)
        cnt *= 2;
    switch (o->kind) {
    case OPK_REG:
        if (o->rf >= RF__COUNT || o->slot == IR_NOSLOT ||
            (uint64_t)o->slot + cnt > f->ndeclared[o->rf])
            VERR(v, in, "operand %u: register slot %u (file %u) is not a declared register "
                        "(%u declared)",
                 idx, o->slot, o->rf, o->rf < RF__COUNT ? f->ndeclared[o->rf] : 0);
        break;
    case OPK_IMM:
    case OPK_SYM:
    case OPK_SREG:
        if (o->rf >= RF__COUNT || o->slot == IR_NOSLOT || o->slot < f->ndeclared[o->rf] ||
            o->slot >= f->nslots[o->rf]) {
            VERR(v, in, "operand %u: constant/special slot %u (file %u) outside [%u, %u)", idx,
                 o->slot, o->rf, o->rf < RF__COUNT ? f->ndeclared[o->rf] : 0,
                 o->rf < RF__COUNT ? f->nslots[o->rf] : 0);
        } else if (o->kind != OPK_SREG && !f->const_vals[o->rf]) {
            VERR(v, in, "operand %u: constant slot without a value image", idx);
        }
        if (o->kind == OPK_SYM && o->sym >= m->nsyms)
            VERR(v, in, "operand %u: symbol %u out of range (%u symbols)", idx, o->sym,
                 m->nsyms);
        break;
    case OPK_ADDR:
    case OPK_PP_MEM:
        if (o->kind == OPK_PP_MEM && o->first != SP_GLOBAL && o->first != SP_SHARED &&
            o->first != SP_LOCAL && o->first != SP_CONST)
            VERR(v, in, "operand %u: PTXPlus memory operand space %u is not g/s/l/ce", idx,
                 o->first);
        if (o->slot != IR_NOSLOT &&
            (o->rf >= RF__COUNT || o->slot >= f->nslots[o->rf]))
            VERR(v, in, "operand %u: address base slot %u (file %u) out of range", idx, o->slot,
                 o->rf);
        if (o->sym != IR_NOSYM && o->sym >= m->nsyms)
            VERR(v, in, "operand %u: symbol %u out of range (%u symbols)", idx, o->sym,
                 m->nsyms);
        break;
    case OPK_VEC:
    case OPK_PARAMS:
    case OPK_TEX:
        if (o->kind == OPK_TEX && (o->imm.u < 1 || o->imm.u > 2 || o->imm.u > o->n))
            VERR(v, in, "operand %u: texture operand with %llu handles of %u elements", idx,
                 (unsigned long long)o->imm.u, o->n);
        if ((uint64_t)o->first + o->n > f->nopnds) {
            VERR(v, in, "operand %u: element list [%u, +%u) outside the operand array", idx,
                 o->first, o->n);
        } else if (depth == 0) {
            for (unsigned i = 0; i < o->n; i++)
                verify_opnd(v, in, &f->opnds[o->first + i], idx, 1);
        }
        break;
    case OPK_LABEL:
        if (o->imm.u >= f->ninsns)
            VERR(v, in, "operand %u: label PC %llu out of range (%u instructions)", idx,
                 (unsigned long long)o->imm.u, f->ninsns);
        break;
    case OPK_TABLE: {
        uint32_t n = o->imm.u > o->n ? (uint32_t)o->imm.u : o->n;
        if ((uint64_t)o->first + n > f->ntables) {
            VERR(v, in, "operand %u: target table [%u, +%u) outside the function's tables",
                 idx, o->first, n);
            break;
        }
        for (uint32_t i = 0; i < n; i++)
            if (f->tables[o->first + i] >= f->ninsns)
                VERR(v, in, "operand %u: table entry %u = PC %u out of range", idx, i,
                     f->tables[o->first + i]);
        break;
    }
    case OPK_FUNC:
        if (o->imm.u >= m->nfuncs)
            VERR(v, in, "operand %u: function %llu out of range (%u functions)", idx,
                 (unsigned long long)o->imm.u, m->nfuncs);
        break;
    default:
        break;
    }
}

/* ======================================================================== operand types */

/* What ptxas checks of a register operand against the type the instruction gives its
 * position (probed on ptxas 13 with every register type at every position of add, and, or,
 * mov, setp, selp, shl, mul.wide, mad.wide, fma, cvt, ld, st, atom, red, shfl, prmt, lop3):
 *   - the sizes match exactly, except at the data operands of ld, ldu, st and cvt, where a
 *     register may be wider than the instruction type ("Operand Size Exceeding
 *     Instruction-Type Size") — but a floating-point register only of exactly that size;
 *   - a .bN instruction type takes any register kind; .uN/.sN take .b/.u/.s (and .f16x2,
 *     which ptxas treats as an integer register); .fN takes .b and .f; .f16x2 takes .b32 and
 *     .f16x2; .bf16/.bf16x2 take only .b registers of their size;
 *   - predicates only where a predicate is expected, except as an element of a .b32 vector
 *     (ptxas takes `mov.b64 %rd, {%p1, %r1}`);
 *   - an address base register ([%r+4]) may be a .b/.u/.s register of any size up to 64 bits.
 * Instructions whose operands carry other types (mixed-precision add.f32.f16, the packed
 * 8-/6-/4-bit float formats, .b128 data, PTXPlus) are left alone: a false rejection of valid
 * PTX is worse than a missed one. */

/* Kinds of types for the rules above. */
enum tkind { TK_OTHER, TK_PRED, TK_B, TK_I, TK_F, TK_H2, TK_BH };

static enum tkind type_kind(unsigned t)
{
    switch (t) {
    case T_PRED: return TK_PRED;
    case T_B8: case T_B16: case T_B32: case T_B64: case T_B128: return TK_B;
    case T_U8: case T_U16: case T_U32: case T_U64:
    case T_S8: case T_S16: case T_S32: case T_S64: return TK_I;
    case T_F16: case T_F32: case T_F64: return TK_F;
    case T_F16X2: return TK_H2;
    case T_BF16: case T_BF16X2: return TK_BH;
    default: return TK_OTHER;
    }
}

/* Does a register declared rt fit a position of type it? wide: the relaxed ld/st/cvt data
 * rule; elem: an element of a vector operand. */
static bool reg_fits(unsigned it, unsigned rt, bool wide, bool elem)
{
    enum tkind ik = type_kind(it), rk = type_kind(rt);
    if (ik == TK_OTHER || rk == TK_OTHER)
        return true;
    if (ik == TK_PRED || rk == TK_PRED)
        return ik == rk || (elem && it == T_B32) || rk == TK_H2;
    unsigned is = ir_type_size((enum ir_type)it), rs = ir_type_size((enum ir_type)rt);
    if (ik == TK_H2 || ik == TK_BH)
        wide = false;
    if (rk == TK_F && ik != TK_B)
        wide = false; /* a wider .f register holds no narrower value */
    if (wide ? rs < is : rs != is)
        return false;
    switch (ik) {
    case TK_B: return true;
    case TK_I: return rk == TK_B || rk == TK_I || rk == TK_H2;
    case TK_F: return rk == TK_B || rk == TK_F;
    case TK_H2: return rk == TK_B || rk == TK_H2;
    default: return rk == TK_B;
    }
}

/* The declaration of every declared register slot of the function (per register file:
 * index into f->regdecls, UINT32_MAX for none), so operands can be checked against the type
 * the PTX declared (the IR keeps only the register file). */
struct declmap {
    uint32_t *of[RF__COUNT];
};

static int declmap_build(struct declmap *dm, const struct ir_func *f)
{
    for (unsigned rf = 0; rf < RF__COUNT; rf++) {
        dm->of[rf] = malloc(((size_t)f->ndeclared[rf] + 1) * sizeof *dm->of[rf]);
        if (!dm->of[rf])
            return -1;
        for (uint32_t s = 0; s < f->ndeclared[rf]; s++)
            dm->of[rf][s] = UINT32_MAX;
    }
    for (uint32_t i = 0; i < f->nregdecls; i++) {
        const struct ir_regdecl *d = &f->regdecls[i];
        if (d->rf >= RF__COUNT)
            continue;
        uint64_t per = (ir_type_size((enum ir_type)d->type) > 8 ? 2 : 1) * (d->vec ? d->vec : 1);
        uint64_t end = d->slot + per * (d->count ? d->count : 1);
        for (uint64_t s = d->slot; s < end && s < f->ndeclared[d->rf]; s++)
            dm->of[d->rf][s] = i;
    }
    return 0;
}

static void declmap_free(struct declmap *dm)
{
    for (unsigned rf = 0; rf < RF__COUNT; rf++)
        free(dm->of[rf]);
}

/* The declaration of register operand o, or NULL. */
static const struct ir_regdecl *decl_of(const struct declmap *dm, const struct ir_func *f,
                                        const struct ir_opnd *o)
{
    if ((o->kind != OPK_REG && o->kind != OPK_ADDR) || o->rf >= RF__COUNT ||
        o->slot >= f->ndeclared[o->rf])
        return NULL;
    uint32_t i = dm->of[o->rf][o->slot];
    return i == UINT32_MAX ? NULL : &f->regdecls[i];
}

/* Write the PTX name of register operand o (declared by d) into buf. */
static void reg_name(const struct vctx *v, const struct ir_regdecl *d, const struct ir_opnd *o,
                     char *buf, size_t cap)
{
    const char *nm = ir_str(v->m, d->name);
    if (!d->count) {
        snprintf(buf, cap, "%s", nm);
        return;
    }
    uint32_t per = (ir_type_size((enum ir_type)d->type) > 8 ? 2 : 1) * (d->vec ? d->vec : 1);
    snprintf(buf, cap, "%s%u", nm, (o->slot - d->slot) / per);
}

/* Format character of each top-level operand position of an opcode ('x' past the end). */
static unsigned fmt_positions(enum ir_op op, char *pos, unsigned cap)
{
    unsigned n = 0;
    for (const char *p = ir_op_format(op); *p && n < cap; p++) {
        if (*p == ',' || *p == '[' || *p == ']' || *p == ' ' || *p == '|')
            continue;
        if (*p == '*')
            break;
        pos[n++] = *p;
    }
    return n;
}

/* Do ptxas's operand type rules apply to this instruction, and which positions use the
 * relaxed (wide) rule? */
/* The opcodes whose operand types and forms were probed on ptxas and are checked here. */
static bool typed_op(unsigned op)
{
    switch (op) {
    /* the instructions whose rules were probed; others (matrix, tensor, texture, barrier
       and bulk-copy instructions, whose operands pack other types) are not checked */
    case OP_ADD: case OP_ADDC: case OP_SUB: case OP_SUBC: case OP_MUL: case OP_MAD:
    case OP_MADC: case OP_MUL24: case OP_MAD24: case OP_SAD: case OP_DIV: case OP_REM:
    case OP_ABS: case OP_NEG: case OP_MIN: case OP_MAX: case OP_POPC: case OP_CLZ:
    case OP_BFIND: case OP_BREV: case OP_BFE: case OP_BFI: case OP_FMA: case OP_RCP:
    case OP_SQRT: case OP_RSQRT: case OP_SIN: case OP_COS: case OP_LG2: case OP_EX2:
    case OP_TANH: case OP_COPYSIGN: case OP_TESTP: case OP_SETP: case OP_SET: case OP_SELP:
    case OP_SLCT: case OP_AND: case OP_OR: case OP_XOR: case OP_NOT: case OP_CNOT:
    case OP_LOP3: case OP_SHF: case OP_SHL: case OP_SHR: case OP_PRMT: case OP_MOV:
    case OP_SHFL: case OP_CVT: case OP_CVTA: case OP_LD: case OP_LDU: case OP_ST:
    case OP_ATOM: case OP_RED: case OP_REDUX: case OP_GETCTARANK: case OP_MAPA:
        return true;
    default:
        return false;
    }
}

/* Is instruction in one whose register operands verify_types checks (a probed opcode with
 * types the rules know, no mixed-precision second type)? */
static bool typed_insn(const struct ir_insn *in, const char *fmt)
{
    if (!typed_op(in->op))
        return false;
    if (type_kind(in->type[0]) == TK_OTHER)
        return false;
    /* a second type the format has no position for (add.f32.f16, dp4a.u32.s32, …) */
    if (in->type[1] && !strchr(fmt, 's'))
        return false;
    if (in->type[1] && type_kind(in->type[1]) == TK_OTHER)
        return false;
    return true;
}

/* Report register operand o (operand idx of in) unless its declared type fits want. */
static void check_reg(struct vctx *v, const struct declmap *dm, const struct ir_insn *in,
                      const struct ir_opnd *o, unsigned idx, unsigned want, bool wide,
                      bool elem)
{
    const struct ir_regdecl *d = decl_of(dm, v->f, o);
    if (!d || reg_fits(want, d->type, wide, elem))
        return;
    char nm[80];
    reg_name(v, d, o, nm, sizeof nm);
    VERR(v, in, "operand %u of '%s': register %s is .%s, not compatible with .%s", idx + 1,
         ir_op_name((enum ir_op)in->op), nm, ir_type_name((enum ir_type)d->type),
         ir_type_name((enum ir_type)want));
}

/* 64-bit special registers (the others are 32-bit). */
static bool sreg_is_64(unsigned s)
{
    return s == SR_CLOCK64 || s == SR_GLOBALTIMER || s == SR_GRIDID ||
           s == SR_CURRENT_GRAPH_EXEC || (s >= SR_PM0_64 && s < SR_PM0_64 + 8);
}


/* A state space with its sub-spaces folded (.shared::cta is .shared, a kernel's .param is
 * .param); SP_NONE for generic and for spaces the rules below do not know. */
static unsigned space_class(unsigned sp)
{
    switch (sp) {
    case SP_SHARED: case SP_SHARED_CTA: case SP_SHARED_CLUSTER: return SP_SHARED;
    case SP_PARAM: case SP_PARAM_ENTRY: case SP_PARAM_FUNC: return SP_PARAM;
    case SP_GLOBAL: case SP_LOCAL: case SP_CONST: return sp;
    case SP_GENERIC: default: return SP_NONE;
    }
}

static const char *space_word(unsigned sp)
{
    switch (sp) {
    case SP_SHARED: return ".shared";
    case SP_PARAM: return ".param";
    case SP_GLOBAL: return ".global";
    case SP_LOCAL: return ".local";
    case SP_CONST: return ".const";
    default: return "generic";
    }
}

/* A .global or generic access by ld, st, atom, red, prefetch or mbarrier.* (the ones whose
 * address width ptxas holds against .address_size). */
static bool global_access(const struct ir_insn *in)
{
    bool generic = in->space == SP_NONE || in->space == SP_GLOBAL || in->space == SP_GENERIC;
    return generic && (in->op == OP_LD || in->op == OP_LDU || in->op == OP_ST ||
                       in->op == OP_ATOM || in->op == OP_RED || in->op == OP_PREFETCH ||
                       in->op == OP_PREFETCHU ||
                       (in->op >= OP_MBARRIER_INIT && in->op <= OP_MBARRIER_PENDING_COUNT));
}

/* Does some .global/generic access of the module use an 8/16-bit address register? ptxas
 * then only warns about 32-bit ones too (it refuses 32-bit addresses only when they are the
 * narrowest), so the verifier must not reject them either. */
static bool narrow_addrs(const struct ir_module *m)
{
    for (uint32_t fi = 0; fi < m->nfuncs; fi++) {
        const struct ir_func *f = &m->funcs[fi];
        for (uint32_t pc = 0; f->defined && pc < f->ninsns; pc++) {
            const struct ir_insn *in = &f->insns[pc];
            if (!global_access(in) || (uint64_t)in->opnd + in->nopnd > f->nopnds)
                continue;
            for (unsigned i = 0; i < in->nopnd; i++) {
                const struct ir_opnd *o = ir_opnd(f, in, i);
                if (o->kind == OPK_ADDR && o->slot != IR_NOSLOT && !(o->flags & OPF_CONST) &&
                    o->rf == RF_B16)
                    return true;
            }
        }
    }
    return false;
}

/* Address operands of every instruction: the base register ([%r], [%rd+8]) must be a .b/.u/.s
 * register of at most 64 bits; in 64-bit code a .global or generic access of ld, st, atom, red
 * and prefetch needs a 64-bit one (ptxas: "Program uses 32-bit address ... conflicting with
 * .address_size 64", then refuses to compile 32-bit code) unless a 16-bit one is there too. */
static void verify_addrs(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    bool need64 = v->m->address_size == 64 && !v->addr16 && global_access(in);
    for (unsigned i = 0; i < in->nopnd; i++) {
        const struct ir_opnd *o = ir_opnd(f, in, i);
        if (o->kind == OPK_ADDR && o->sym < v->m->nsyms &&
            (in->op == OP_LD || in->op == OP_ST || in->op == OP_LDU)) {
            /* a variable's address with the instruction's space: generic takes .global,
               .shared and .local variables, an explicit space only its own */
            unsigned ss = space_class(v->m->syms[o->sym].space), is = space_class(in->space);
            bool ok = is == SP_NONE ? ss == SP_GLOBAL || ss == SP_SHARED || ss == SP_LOCAL
                                    : is == ss;
            if (!ok && ss != SP_NONE)
                VERR(v, in, "operand %u of '%s': variable '%s' is %s, which a %s access "
                            "cannot reach", i + 1, ir_op_name((enum ir_op)in->op),
                     ir_str(v->m, v->m->syms[o->sym].name), space_word(ss), space_word(is));
        }
        if (o->kind != OPK_ADDR || o->slot == IR_NOSLOT || (o->flags & OPF_CONST))
            continue;
        const struct ir_regdecl *d = decl_of(dm, f, o);
        enum tkind k = d ? type_kind(d->type) : TK_OTHER;
        if (!d || (k == TK_OTHER && d->type != T_B128))
            continue;
        unsigned sz = ir_type_size((enum ir_type)d->type);
        char nm[80];
        reg_name(v, d, o, nm, sizeof nm);
        if (!((k == TK_B || k == TK_I) && sz <= 8))
            VERR(v, in, "operand %u of '%s': address register %s is .%s, not an integer", i + 1,
                 ir_op_name((enum ir_op)in->op), nm, ir_type_name((enum ir_type)d->type));
        else if (need64 && sz == 4) /* ptxas takes a 16-bit one */
            VERR(v, in, "operand %u of '%s': %u-bit address register %s for a %s access in "
                        "64-bit code", i + 1, ir_op_name((enum ir_op)in->op), sz * 8, nm,
                 in->space == SP_GLOBAL ? ".global" : "generic");
    }
}

/* The instruction types ptxas takes, for the opcodes where nvcc's output and the mutations
 * meet them (ptxas: "Unexpected instruction types specified for 'add'"): arithmetic has no
 * .bN, .pred or 8-bit types, logic only .bN and .pred, shl only .bN, shr no floats, mov, setp
 * and selp no 8-bit types, ld/st no .pred, cvt no .bN or .pred. */
static void verify_type_allowed(struct vctx *v, const struct ir_insn *in, enum tkind k)
{
    unsigned t = in->type[0], sz = ir_type_size((enum ir_type)t);
    bool bad = false;
    switch (in->op) {
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_MAD: case OP_DIV: case OP_REM:
    case OP_MIN: case OP_MAX: case OP_ABS: case OP_NEG:
        bad = k == TK_B || k == TK_PRED || sz == 1 || (in->op == OP_REM && k != TK_I);
        break;
    case OP_AND: case OP_OR: case OP_XOR: case OP_NOT: case OP_CNOT: case OP_SHL: case OP_LOP3:
    case OP_PRMT:
        bad = k != TK_B && !(k == TK_PRED && in->op != OP_SHL && in->op != OP_LOP3 &&
                             in->op != OP_PRMT && in->op != OP_CNOT);
        break;
    case OP_SHR:
        bad = k != TK_B && k != TK_I;
        break;
    case OP_MOV: case OP_SELP:
        bad = sz == 1 || (k == TK_PRED && in->op != OP_MOV);
        break;
    case OP_LD: case OP_LDU: case OP_ST:
        bad = k == TK_PRED || k == TK_H2 || k == TK_BH || t == T_F16;
        break;
    case OP_CVTA: case OP_GETCTARANK: case OP_MAPA:
        bad = t != T_U32 && t != T_U64;
        break;
    case OP_SETP: case OP_SET:
        break;
    case OP_CVT:
        bad = k == TK_B || k == TK_PRED || type_kind(in->type[1]) == TK_B ||
              type_kind(in->type[1]) == TK_PRED;
        break;
    default:
        break;
    }
    if (in->op == OP_SETP || in->op == OP_SET) {
        unsigned ct = in->op == OP_SET ? in->type[1] : t;
        enum tkind ck = type_kind(ct);
        bad = ir_type_size((enum ir_type)ct) == 1 || ck == TK_PRED;
        bool unordered = in->cmp >= CMP_EQU;
        bool unsig = in->cmp >= CMP_LO && in->cmp <= CMP_HS;
        bool order = in->cmp != CMP_EQ && in->cmp != CMP_NE && in->cmp != CMP_NONE;
        if (!bad && ((ck == TK_B && order) || ((ck == TK_I || ck == TK_B) && unordered) ||
                     (ck != TK_B && unsig && !(ck == TK_I && (ct == T_U8 || ct == T_U16 ||
                                                              ct == T_U32 || ct == T_U64)))))
            VERR(v, in, "'%s': comparison not defined for .%s", ir_op_name((enum ir_op)in->op),
                 ir_type_name((enum ir_type)ct));
    }
    if (bad)
        VERR(v, in, "'%s' does not take type .%s", ir_op_name((enum ir_op)in->op),
             ir_type_name((enum ir_type)t));
}

/* wgmma.mma_async{.sp}.dtype.atype.btype: the A and B types ptxas pairs ("Unexpected
 * instruction types specified for 'wgmma.mma_async'"): .f16, .bf16, .tf32 and .b1 with
 * themselves, .e4m3 / .e5m2 with either, .s8 / .u8 with either. */
static void verify_wgmma_types(struct vctx *v, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    unsigned t[3] = {0, 0, 0}, n = 0;
    for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++) {
        enum ir_mod md = (enum ir_mod)f->mods[in->mod + i];
        if (ir_mod_kind(md) == MK_TYPE && n < 3)
            t[n++] = (unsigned)ir_mod_value(md);
    }
    if (n < 3)
        return;
    const unsigned a = t[1], b = t[2];
    const bool fp8 = (a == T_E4M3 || a == T_E5M2) && (b == T_E4M3 || b == T_E5M2);
    const bool i8 = (a == T_S8 || a == T_U8) && (b == T_S8 || b == T_U8);
    if (!fp8 && !i8 && a != b)
        VERR(v, in, "'%s' does not pair A type .%s with B type .%s",
             ir_op_name((enum ir_op)in->op), ir_type_name((enum ir_type)a),
             ir_type_name((enum ir_type)b));
}

/* The modifiers of an instruction as ptxas counts them: no modifier twice (types aside: mma's
 * .f16.f16 repeats them; so do the layouts of wmma.mma / mma, .row.row), the instruction types the opcode takes (cvt, set and slct two; add,
 * sub, mul, mad, fma, min and max one or two different ones, the mixed-precision forms; the
 * other probed instructions exactly one), a comparison for setp and set, .lo/.hi/.wide for
 * integer mul and mad, and for ld/st a vector operand exactly when .v2/.v4 is given. */
static void verify_form(struct vctx *v, const struct ir_insn *in, bool typed)
{
    const struct ir_func *f = v->f;
    const char *name = ir_op_name((enum ir_op)in->op);
    unsigned ntype = 0;
    for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++) {
        enum ir_mod md = (enum ir_mod)f->mods[in->mod + i];
        if (ir_mod_kind(md) == MK_TYPE) {
            ntype++;
            continue;
        }
        if (md == MOD_SYNC || md == MOD_UNI || md == MOD_SHIFTAMT) /* ptxas takes bar.sync.sync,
                                                        call.uni.uni, bfind.shiftamt.shiftamt */
            continue;
        /* the A and B layouts of wmma.mma / mma (.row.row, .col.col): two, not three */
        if ((md == MOD_ROW || md == MOD_COL) && (in->op == OP_WMMA_MMA || in->op == OP_MMA)) {
            unsigned nlay = 0;
            for (unsigned j = 0; j <= i; j++)
                nlay += f->mods[in->mod + j] == MOD_ROW || f->mods[in->mod + j] == MOD_COL;
            if (nlay == 3)
                VERR(v, in, "'%s' takes two layouts (of A and B), not more", name);
            continue;
        }
        for (unsigned j = 0; j < i; j++)
            if (f->mods[in->mod + j] == md) {
                VERR(v, in, "modifier '.%s' given twice to '%s'", ir_mod_name(md), name);
                break;
            }
    }
    if (in->op == OP_REDUX) {
        bool sync = false;
        for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++)
            sync |= f->mods[in->mod + i] == MOD_SYNC;
        if (!sync)
            VERR(v, in, "'redux' needs .sync");
        else if (in->mode < MODE_ADD || in->mode > MODE_XOR)
            VERR(v, in, "'redux' needs an operation (.add, .min, .max, .and, .or, .xor)");
    }
    /* mbarrier.* with .acquire/.release/.relaxed names a scope too (ptxas: "Modifier
       '.acquire' requires scope") */
    if (in->op >= OP_MBARRIER_INIT && in->op <= OP_MBARRIER_PENDING_COUNT &&
        in->sem != SEM_NONE && in->scope == SCOPE_NONE)
        VERR(v, in, "'%s' with .%s needs a scope (.cta or .cluster)", name,
             in->sem == SEM_ACQUIRE ? "acquire" : in->sem == SEM_RELEASE ? "release" : "relaxed");
    /* ... and a scope a semantics ("Modifier '.cta' requires order") */
    if (in->op >= OP_MBARRIER_INIT && in->op <= OP_MBARRIER_PENDING_COUNT &&
        in->scope != SCOPE_NONE && in->sem == SEM_NONE)
        VERR(v, in, "'%s' with a scope needs .acquire, .release or .relaxed", name);
    /* mbarrier operands are states, counts and phases, never predicates, but for the
       result of test_wait / try_wait ("Arguments mismatch") */
    if (in->op >= OP_MBARRIER_INIT && in->op <= OP_MBARRIER_PENDING_COUNT)
        for (unsigned i = 0; i < in->nopnd; i++) {
            const struct ir_opnd *o = ir_opnd(f, in, i);
            if (o->kind == OPK_REG && o->rf == RF_PRED &&
                !(i == 0 && (in->op == OP_MBARRIER_TEST_WAIT || in->op == OP_MBARRIER_TRY_WAIT)))
                VERR(v, in, "operand %u of '%s': a predicate where a value is expected", i + 1,
                     name);
        }
    if (!typed)
        return;
    unsigned want = in->op == OP_CVT || in->op == OP_SET || in->op == OP_SLCT ? 2 : 1;
    bool mixed = in->op == OP_ADD || in->op == OP_SUB || in->op == OP_MUL || in->op == OP_MAD ||
                 in->op == OP_FMA || in->op == OP_MIN || in->op == OP_MAX;
    if (ntype == 0)
        VERR(v, in, "'%s' needs an instruction type", name);
    else if (ntype != want && !(mixed && ntype == 2 && in->type[0] != in->type[1]))
        VERR(v, in, "'%s' takes %s instruction type%s, not %u", name, want == 2 ? "two" : "one",
             want == 2 ? "s" : "", ntype);
    if ((in->op == OP_SETP || in->op == OP_SET) && in->cmp == CMP_NONE)
        VERR(v, in, "'%s' needs a comparison (.eq, .lt, ...)", name);
    enum tkind k = type_kind(in->type[0]);
    if ((in->op == OP_MUL || in->op == OP_MAD) && (k == TK_I || k == TK_B) &&
        in->mode != MODE_LO && in->mode != MODE_HI && in->mode != MODE_WIDE)
        VERR(v, in, "integer '%s' needs .lo, .hi or .wide", name);
    if ((in->op == OP_MUL || in->op == OP_MAD) && k == TK_F &&
        (in->mode == MODE_LO || in->mode == MODE_HI || in->mode == MODE_WIDE))
        VERR(v, in, "'%s.%s' takes no .lo, .hi or .wide", name, ir_type_name(in->type[0]));
    /* rounding modifiers became mandatory with PTX ISA 2.0 (sm_20) */
    bool fp = k == TK_F && in->type[0] != T_F16 && v->m->version_major >= 2;
    if ((in->op == OP_FMA || (in->op == OP_MAD && fp)) && fp && in->rnd == RND_NONE)
        VERR(v, in, "'%s.%s' needs a rounding modifier", name, ir_type_name(in->type[0]));
    if ((in->op == OP_DIV || in->op == OP_RCP || in->op == OP_SQRT) && fp &&
        in->rnd == RND_NONE && !(in->fl & (IR_FL(FL_APPROX) | IR_FL(FL_FULL))))
        VERR(v, in, "'%s.%s' needs a rounding modifier or .approx", name,
             ir_type_name(in->type[0]));
    if ((in->op == OP_SIN || in->op == OP_COS || in->op == OP_LG2 || in->op == OP_EX2 ||
         in->op == OP_TANH || in->op == OP_RSQRT) && fp && !(in->fl & IR_FL(FL_APPROX)))
        VERR(v, in, "'%s.%s' needs .approx", name, ir_type_name(in->type[0]));
    if (in->op == OP_SHFL) {
        if (in->mode != MODE_UP && in->mode != MODE_DOWN && in->mode != MODE_BFLY &&
            in->mode != MODE_IDX)
            VERR(v, in, "'shfl' needs .up, .down, .bfly or .idx");
        bool sync = false;
        for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++)
            sync |= f->mods[in->mod + i] == MOD_SYNC;
        if (!sync && v->m->target_sm >= 70)
            VERR(v, in, "'shfl' needs .sync on sm_70 and later targets");
    }
    verify_type_allowed(v, in, k);
    if (in->op == OP_CVT && in->type[1]) {
        enum tkind sk = type_kind(in->type[1]);
        bool dfl = k == TK_F || k == TK_BH, sfl = sk == TK_F || sk == TK_BH;
        bool need = (dfl && sk == TK_I) || (k == TK_I && sfl) ||
                    (dfl && sfl && ir_type_size((enum ir_type)in->type[0]) <
                                       ir_type_size((enum ir_type)in->type[1]));
        if (need && in->rnd == RND_NONE && v->m->version_major >= 2)
            VERR(v, in, "'cvt.%s.%s' needs a rounding modifier", ir_type_name(in->type[0]),
                 ir_type_name(in->type[1]));
    }
    if (in->op == OP_CVTA && in->space == SP_NONE)
        VERR(v, in, "'cvta' needs a state space (.global, .shared, ...)");
    if (in->op == OP_MOV && in->nopnd >= 2) {
        /* mov.v2/.v4: element-wise between vectors of any type but .pred (ptxas: "Illegal
         * vector size", "Vector qualifier is not allowed"); without .vN a vector operand is
         * pack/unpack, .bN only, and a .v2/.v4 register its elements packed */
        const struct ir_opnd *o0 = ir_opnd(f, in, 0), *o1 = ir_opnd(f, in, 1);
        /* no memory operand, alone or in a list (ptxas: "must be register", "Arguments
         * mismatch", a syntax error in a list): mov has no address to read */
        bool mem = false;
        for (unsigned i = 0; i < 2; i++) {
            const struct ir_opnd *o = i ? o1 : o0;
            mem |= o->kind == OPK_ADDR;
            for (unsigned k = 0; o->kind == OPK_VEC && k < o->n && o->first + k < f->nopnds; k++)
                mem |= f->opnds[o->first + k].kind == OPK_ADDR;
        }
        if (mem)
            VERR(v, in, "'mov' takes registers, constants and variable names, not a memory "
                        "operand [...]");
        bool vv0 = o0->kind == OPK_VEC || (o0->kind == OPK_REG && o0->n > 1);
        bool vv1 = o1->kind == OPK_VEC || (o1->kind == OPK_REG && o1->n > 1);
        if (in->vec > 4)
            VERR(v, in, "'mov.v%u': illegal vector size (mov takes .v2 or .v4)", in->vec);
        else if (in->vec > 1 && k == TK_PRED)
            VERR(v, in, "'mov.v%u.pred': mov takes no vector of predicates", in->vec);
        else if (in->vec > 1 && !vv1 && o1->kind == OPK_REG)
            VERR(v, in, "'mov.v%u' needs a vector source of %u elements, not a scalar",
                 in->vec, in->vec);
        else if (in->vec <= 1 && (vv0 || vv1) && k != TK_B)
            VERR(v, in, "'mov' packs or unpacks vectors only with a .bN type, not .%s",
                 ir_type_name((enum ir_type)in->type[0]));
        else if (in->vec <= 1 && vv0 && vv1)
            VERR(v, in, "'mov' packs or unpacks: one operand is a scalar");
        else if (in->vec > 1 && vv1 && o1->n != in->vec)
            VERR(v, in, "'mov.v%u' needs a vector source of %u elements, not %u", in->vec,
                 in->vec, o1->n);
    }
    if ((in->op == OP_LD || in->op == OP_LDU || in->op == OP_ST || in->op == OP_RED ||
         (in->op == OP_ATOM && in->nopnd >= 3) || (in->op == OP_MOV && in->vec > 1)) &&
        in->nopnd >= 2) {
        unsigned di = in->op == OP_ST || in->op == OP_RED ? 1 : in->op == OP_ATOM ? 2 : 0;
        const struct ir_opnd *o = ir_opnd(f, in, di);
        unsigned n = o->kind == OPK_VEC ? o->n : o->kind == OPK_REG && o->n > 1 ? o->n : 1;
        unsigned vw = in->vec > 1 ? in->vec : 1;
        if (n != vw && vw > 1)
            VERR(v, in, "'%s.v%u' needs a vector of %u elements, not %u", name, vw, vw, n);
        else if (n != vw)
            VERR(v, in, "'%s' without .v2/.v4 takes a scalar, not a vector of %u", name, n);
        unsigned bytes = vw * ir_type_size((enum ir_type)in->type[0]);
        unsigned ver = v->m->version_major * 10u + v->m->version_minor;
        bool wide_ok = v->m->target_sm >= 100 && ver >= 88;
        if (bytes > 32 || (bytes > 16 && !wide_ok))
            VERR(v, in, "'%s': a vector of %u bytes (at most 16%s)", name, bytes,
                 wide_ok ? " or 32" : "; 32 from sm_100 and PTX ISA 8.8");
    }
}

/* Member masks (vote, match, elect, shfl), barrier numbers and thread counts (bar, barrier,
 * bar.warp.sync) are integers: ptxas refuses a floating-point register there ("Arguments
 * mismatch for instruction 'vote'"), though the size matches. */
static void verify_int_opnds(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    unsigned from = 0, to = 0; /* operand indexes [from, to) */
    switch (in->op) {
    case OP_VOTE: case OP_ELECT:
        from = in->nopnd >= 3 ? in->nopnd - 1 : in->nopnd;
        to = in->nopnd;
        break;
    case OP_MATCH:
        from = in->nopnd >= 4 ? in->nopnd - 1 : in->nopnd;
        to = in->nopnd;
        break;
    case OP_SHFL:
        from = in->nopnd >= 6 ? 5 : in->nopnd;
        to = in->nopnd;
        break;
    case OP_BAR: case OP_BARRIER:
        from = in->mode == MODE_RED ? 1 : 0;
        to = in->mode == MODE_RED && in->nopnd ? in->nopnd - 1 : in->nopnd;
        break;
    case OP_BAR_WARP_SYNC:
        to = in->nopnd ? 1 : 0;
        break;
    default:
        return;
    }
    for (unsigned i = from; i < to; i++) {
        const struct ir_opnd *o = ir_opnd(f, in, i);
        if (o->kind != OPK_REG || o->n > 1)
            continue;
        const struct ir_regdecl *d = decl_of(dm, f, o);
        if (!d || type_kind(d->type) != TK_F)
            continue;
        char nm[80];
        reg_name(v, d, o, nm, sizeof nm);
        VERR(v, in, "operand %u of '%s': register %s is .%s, not an integer", i + 1,
             ir_op_name((enum ir_op)in->op), nm, ir_type_name((enum ir_type)d->type));
    }
}

/* membar: exactly one level (.cta, .gl, .sys), or .proxy with its proxy kind (.alias), and
 * nothing else (ptxas: "Membar level required", "Illegal modifier"). */
static void verify_membar(struct vctx *v, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    unsigned lv = 0, px = 0, kind = 0;
    for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++) {
        const char *mn = ir_mod_name((enum ir_mod)f->mods[in->mod + i]);
        if (!strcmp(mn, "cta") || !strcmp(mn, "gl") || !strcmp(mn, "sys")) {
            lv |= 1u << (mn[0] == 'c' ? 0 : mn[0] == 'g' ? 1 : 2); /* a repeat: "given twice" */
        } else if (!strcmp(mn, "proxy")) {
            px++;
        } else if (!strcmp(mn, "alias")) {
            kind++;
        } else {
            VERR(v, in, "'membar' does not take .%s", mn);
            return;
        }
    }
    if (px && (lv || !kind))
        VERR(v, in, lv ? "'membar.proxy' takes no level" : "'membar.proxy' needs a proxy kind (.alias)");
    else if (!px && kind)
        VERR(v, in, "'membar' does not take .alias (only membar.proxy does)");
    else if (!px && lv == 0)
        VERR(v, in, "'membar' needs a level (.cta, .gl or .sys)");
    else if (lv & (lv - 1))
        VERR(v, in, "'membar' takes one level, not %d", __builtin_popcount(lv));
}

/* Instructions outside the typed list with fixed operand rules: 64-bit pointer, descriptor and
 * policy operands ('w' in ops.def, except cvta and isspacep, which follow their type or take
 * either width) are .b64/.u64/.s64 registers in 64-bit code; vote's destination is a .pred
 * (.all/.any/.uni) or 32-bit (.ballot.b32) register and its source a predicate; matrix
 * instructions need their shape (.m16n8k16); tex and tld4 take two types. */
static void verify_other(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    const char *name = ir_op_name((enum ir_op)in->op);
    char pos[16];
    unsigned np = fmt_positions((enum ir_op)in->op, pos, 16);
    if (in->op != OP_CVTA && in->op != OP_ISSPACEP && v->m->address_size == 64)
        for (unsigned i = 0; i < in->nopnd && i < np; i++) {
            const struct ir_opnd *o = ir_opnd(f, in, i);
            if (pos[i] == 'w' && o->kind == OPK_REG)
                check_reg(v, dm, in, o, i, T_U64, false, false);
        }
    if (in->op == OP_VOTE && in->nopnd >= 2) {
        bool ballot = in->mode == MODE_BALLOT;
        unsigned want = ballot ? T_B32 : T_PRED;
        if (in->type[0] != want)
            VERR(v, in, "'vote%s' takes type .%s", ballot ? ".ballot" : "",
                 ir_type_name((enum ir_type)want));
        else
            check_reg(v, dm, in, ir_opnd(f, in, 0), 0, want, false, false);
        check_reg(v, dm, in, ir_opnd(f, in, 1), 1, T_PRED, false, false);
    }
    bool shape = false, matrix = false;
    unsigned ntype = 0;
    switch (in->op) {
    case OP_MMA: case OP_MMA_SP: case OP_MMA_SP_ORDERED: case OP_WMMA_LOAD: case OP_WMMA_STORE:
    case OP_WMMA_MMA: case OP_LDMATRIX: case OP_STMATRIX: case OP_MOVMATRIX:
    case OP_WGMMA_MMA_ASYNC: case OP_WGMMA_MMA_ASYNC_SP:
        matrix = true;
        break;
    default:
        break;
    }
    for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++) {
        enum ir_mod md = (enum ir_mod)f->mods[in->mod + i];
        const char *mn = ir_mod_name(md);
        shape |= mn[0] == 'm' && mn[1] >= '0' && mn[1] <= '9';
        ntype += ir_mod_kind(md) == MK_TYPE;
    }
    bool level = false;
    for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++) {
        const char *mn = ir_mod_name((enum ir_mod)f->mods[in->mod + i]);
        level |= strncmp(mn, "L1", 2) == 0 || strncmp(mn, "L2", 2) == 0 ||
                 strcmp(mn, "tensormap") == 0;
    }
    if ((in->op == OP_PREFETCH || in->op == OP_PREFETCHU) && !level)
        VERR(v, in, "'%s' needs a cache level (.L1, .L2, ...)", name);
    if (in->op == OP_MEMBAR)
        verify_membar(v, in);
    if (in->op == OP_WGMMA_MMA_ASYNC || in->op == OP_WGMMA_MMA_ASYNC_SP)
        verify_wgmma_types(v, in);
    verify_int_opnds(v, dm, in);
    if (in->op == OP_BRX) { /* ptxas knows only brx.idx ("Not a name of any known instruction") */
        bool idx = false;
        for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++)
            idx |= f->mods[in->mod + i] == MOD_IDX;
        if (!idx)
            VERR(v, in, "'brx' needs .idx");
    }
    if ((in->op == OP_BAR || in->op == OP_BARRIER) && in->mode == MODE_NONE)
        VERR(v, in, "'%s' needs .sync, .arrive or .red", name);
    if ((in->op == OP_ATOM || in->op == OP_RED) && (in->mode < MODE_ADD || in->mode > MODE_XOR))
        VERR(v, in, "'%s' needs an operation (.add, .min, .cas, ...)", name);
    /* 32-bit operands of untyped instructions: .u32 ('u', 'U' in ops.def) positions take any
       32-bit register but a predicate */
    unsigned tsz = ir_type_size((enum ir_type)in->type[0]);
    if (!typed_op(in->op) && in->op != OP_ALLOCA && tsz != 8)
        for (unsigned i = 0; i < in->nopnd && i < np; i++) {
            const struct ir_opnd *o = ir_opnd(f, in, i);
            if ((pos[i] == 'u' || pos[i] == 'U') && o->kind == OPK_REG && o->n <= 1)
                check_reg(v, dm, in, o, i, T_B32, false, false);
        }
    /* the register elements of a vector expression have one size */
    for (unsigned i = 0; i < in->nopnd; i++) {
        const struct ir_opnd *o = ir_opnd(f, in, i);
        if ((o->kind != OPK_VEC && o->kind != OPK_TEX) || o->first + o->n > f->nopnds)
            continue;
        unsigned first = o->kind == OPK_TEX ? (unsigned)o->imm.u : 0, size = 0;
        for (unsigned k = first; k < o->n; k++) {
            const struct ir_regdecl *d = decl_of(dm, f, &f->opnds[o->first + k]);
            unsigned es = d && d->type != T_PRED ? ir_type_size((enum ir_type)d->type) : 0;
            if (!es)
                continue;
            if (size && es != size) {
                VERR(v, in, "operand %u of '%s': vector elements of %u and %u bytes", i + 1,
                     name, size, es);
                break;
            }
            size = es;
        }
    }
    if (matrix && !shape)
        VERR(v, in, "'%s' needs a shape (.m16n8k16, .m8n8, ...)", name);
    switch (in->op) {
    /* instructions with a single (optional) type: mbarrier.*, txq, suq, bar, vote, … */
    case OP_MBARRIER_INIT: case OP_MBARRIER_INVAL: case OP_MBARRIER_EXPECT_TX:
    case OP_MBARRIER_COMPLETE_TX: case OP_MBARRIER_ARRIVE: case OP_MBARRIER_ARRIVE_DROP:
    case OP_MBARRIER_TEST_WAIT: case OP_MBARRIER_TRY_WAIT: case OP_MBARRIER_PENDING_COUNT:
    case OP_TXQ: case OP_SUQ: case OP_BAR: case OP_BARRIER: case OP_VOTE: case OP_ACTIVEMASK:
    case OP_MATCH: case OP_TCGEN05_ALLOC: case OP_TCGEN05_DEALLOC:
        if (ntype > 1)
            VERR(v, in, "'%s' takes one instruction type, not %u", name, ntype);
        else if (in->op >= OP_MBARRIER_INIT && in->op <= OP_MBARRIER_PENDING_COUNT &&
                 (ntype == 0 || in->type[0] != T_B64))
            VERR(v, in, "'%s' takes type .b64", name); /* and needs it (ptxas) */
        break;
    case OP_SHFL:
        if (ntype == 1 && in->type[0] != T_B32)
            VERR(v, in, "'%s' takes type .b32", name);
        break;
    case OP_NANOSLEEP:
        if (ntype != 1 || in->type[0] != T_U32)
            VERR(v, in, "'%s' takes type .u32", name);
        break;
    default:
        break;
    }
    /* the one type ptxas takes ("Unexpected instruction types specified for 'activemask'") */
    if (ntype <= 1 &&
        ((in->op == OP_ACTIVEMASK && (ntype == 0 || in->type[0] != T_B32)) ||
         (in->op == OP_MATCH && (ntype == 0 || (in->type[0] != T_B32 && in->type[0] != T_B64)))))
        VERR(v, in, "'%s' takes type %s", name, in->op == OP_MATCH ? ".b32 or .b64" : ".b32");
    /* a barrier number is 0..15 (ptxas: "Barrier number '16' out of range") */
    if ((in->op == OP_BAR || in->op == OP_BARRIER) && in->nopnd >= 1) {
        const struct ir_opnd *id = ir_opnd(f, in, in->mode == MODE_RED ? 1 : 0);
        if (id->kind == OPK_IMM && id->imm.u > 15)
            VERR(v, in, "barrier number %llu is out of range (0..15)",
                 (unsigned long long)id->imm.u);
    }
    if ((in->op == OP_TEX || in->op == OP_TLD4) && ntype != 2)
        VERR(v, in, "'%s' takes two instruction types, not %u", name, ntype);
}

/* Every ptxas-style check of one instruction: addresses, forms, then the register, vector
 * element and special-register operands of the probed opcodes, position by position. */
static void verify_types(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    const char *fmt = ir_op_format((enum ir_op)in->op);
    verify_addrs(v, dm, in);
    verify_other(v, dm, in);
    bool typed = typed_insn(in, fmt);
    verify_form(v, in, typed_op(in->op));
    if (!typed)
        return;
    char pos[16];
    unsigned np = fmt_positions((enum ir_op)in->op, pos, 16);
    bool data_wide = in->op == OP_LD || in->op == OP_LDU || in->op == OP_ST || in->op == OP_CVT;
    for (unsigned i = 0; i < in->nopnd && i < np; i++) {
        const struct ir_opnd *o = ir_opnd(f, in, i);
        char c = pos[i];
        unsigned want;
        switch (c) {
        case 'd': case 'a': case 'D': case 'A': case 'h': case 's': case 'U':
            want = o->type;
            break;
        case 'u':
            want = (in->op == OP_PRMT || in->op == OP_SHFL) ? T_B32 : T_U32;
            break;
        case 'p': case 'q':
            want = T_PRED;
            break;
        case 'w':
            if (in->op != OP_CVTA)
                continue;
            want = in->type[0];
            break;
        case 'x':
            if (in->op != OP_MOV)
                continue;
            want = in->type[0];
            break;
        default:
            continue;
        }
        if (want == T_NONE)
            continue;
        bool wide = data_wide && (c == 'd' || c == 'a' || c == 's');
        if (o->kind == OPK_REG && o->n <= 1) {
            check_reg(v, dm, in, o, i, want, wide, false);
        } else if (o->kind == OPK_REG && in->op == OP_MOV && in->vec <= 1 &&
                   type_kind(in->type[0]) == TK_B) {
            /* mov.b64 %rd, %v (a .v2 .u32 register): its elements packed */
            unsigned sz = ir_type_size((enum ir_type)want) / o->n;
            unsigned ew = sz == 1 ? T_B8 : sz == 2 ? T_B16 : sz == 4 ? T_B32 : sz == 8 ? T_B64 : 0;
            if (ew)
                check_reg(v, dm, in, o, i, ew, false, true);
        } else if (o->kind == OPK_REG) {
            check_reg(v, dm, in, o, i, want, false, true); /* a .v2/.v4 register */
        } else if (o->kind == OPK_VEC && o->first + o->n <= f->nopnds && o->n) {
            unsigned ew = want;
            if (in->op == OP_MOV && in->vec <= 1) {
                /* mov.b64 %rd, {%r1, %r2}: elements of size/n bits */
                unsigned sz = ir_type_size((enum ir_type)want) / o->n;
                ew = sz == 1 ? T_B8 : sz == 2 ? T_B16 : sz == 4 ? T_B32 : sz == 8 ? T_B64 : 0;
                if (!ew)
                    continue;
            }
            /* 8-bit ld/st vector elements live in wider registers (there are no 8-bit
               ones: nvcc -G writes ld.param.v4.b8 {%rs1, …} for a returned uchar4); wider
               elements must match, as ptxas requires */
            const bool ewide = wide && ir_type_size((enum ir_type)ew) == 1;
            /* ptxas 13 takes a .pred element in a ld/st vector of a 32-bit integer type
               when another element is a register that is not one ({%r1, %p1}; the engine
               stores 0 or 1 and loads value != 0, not verified on a GPU) */
            bool pred_ok = false;
            if ((in->op == OP_LD || in->op == OP_LDU || in->op == OP_ST) &&
                (ew == T_U32 || ew == T_S32 || ew == T_B32))
                for (unsigned k = 0; k < o->n; k++) {
                    const struct ir_opnd *e = &f->opnds[o->first + k];
                    const struct ir_regdecl *d = e->kind == OPK_REG ? decl_of(dm, f, e) : NULL;
                    pred_ok |= d && d->type != T_PRED;
                }
            for (unsigned k = 0; k < o->n; k++) {
                const struct ir_opnd *e = &f->opnds[o->first + k];
                const struct ir_regdecl *d = e->kind == OPK_REG ? decl_of(dm, f, e) : NULL;
                if (e->kind == OPK_REG && !(pred_ok && d && d->type == T_PRED))
                    check_reg(v, dm, in, e, i, ew, ewide, true);
            }
        } else if (o->kind == OPK_SREG && type_kind(want) == TK_F) {
            VERR(v, in, "operand %u of '%s': special register %s used as .%s", i + 1,
                 ir_op_name((enum ir_op)in->op), ir_sreg_name((enum ir_sreg)o->sreg),
                 ir_type_name((enum ir_type)want));
        } else if (o->kind == OPK_SREG && type_kind(want) != TK_PRED) {
            unsigned ss = sreg_is_64(o->sreg) ? 8 : 4, is = ir_type_size((enum ir_type)want);
            if (wide ? ss < is : (ss != is && is != 2))
                VERR(v, in, "operand %u of '%s': %s is a %u-bit special register, not "
                            "compatible with .%s", i + 1, ir_op_name((enum ir_op)in->op),
                     ir_sreg_name((enum ir_sreg)o->sreg), ss * 8,
                     ir_type_name((enum ir_type)want));
        }
    }
}

static void verify_insns(struct vctx *v)
{
    const struct ir_func *f = v->f;
    for (uint32_t pc = 0; pc < f->ninsns; pc++) {
        const struct ir_insn *in = &f->insns[pc];
        if (in->op >= OP__COUNT) {
            VERR(v, in, "pc %u: opcode %u out of range", pc, in->op);
            continue;
        }
        if ((uint64_t)in->opnd + in->nopnd > f->nopnds) {
            VERR(v, in, "pc %u: operands [%u, +%u) outside the operand array", pc, in->opnd,
                 in->nopnd);
            continue;
        }
        if (in->guard != IR_NOGUARD && in->guard >= f->ndeclared[RF_PRED])
            VERR(v, in, "pc %u: guard predicate slot %u is not a declared predicate", pc,
                 in->guard);
        for (unsigned i = 0; i < in->nopnd; i++)
            verify_opnd(v, in, ir_opnd(f, in, i), i, 0);
        if (in->target != IR_NOPC) {
            uint32_t lim = (in->op == OP_CALL) ? v->m->nfuncs : f->ninsns;
            if (in->target >= lim)
                VERR(v, in, "pc %u: target %u out of range", pc, in->target);
        }
        if (in->reconv != IR_NOPC && in->reconv >= f->ninsns)
            VERR(v, in, "pc %u: reconvergence PC %u out of range", pc, in->reconv);
    }
    for (unsigned rf = 0; rf < RF__COUNT; rf++)
        if (f->ndeclared[rf] > f->nslots[rf])
            VERR(v, (const struct ir_insn *)NULL, "register file %u: %u declared > %u slots",
                 rf, f->ndeclared[rf], f->nslots[rf]);
    for (uint32_t i = 0; i < f->nsreg_slots; i++) {
        const struct ir_sreg_slot *s = &f->sreg_slots[i];
        if (s->rf >= RF__COUNT || s->slot < f->ndeclared[s->rf] || s->slot >= f->nslots[s->rf])
            VERR(v, (const struct ir_insn *)NULL, "special register slot %u out of range",
                 s->slot);
    }
}

/* ============================================================================ the CFG */

/* Pre/post numbers of a tree given by parent[] over nn nodes rooted at root (nodes not in the
 * tree keep UINT32_MAX). Returns 0, or -1 if some node's parent chain is broken. */
static int tree_numbers(const uint32_t *parent, uint32_t nn, uint32_t root, uint32_t *pre,
                        uint32_t *post, uint32_t *tmp)
{
    /* children CSR in tmp: cnt[nn+1] | child[nn] | stack[nn] | iter[nn] */
    uint32_t *start = tmp, *child = tmp + nn + 1, *stk = child + nn, *it = stk + nn;
    memset(start, 0, (nn + 1) * sizeof *start);
    for (uint32_t v = 0; v < nn; v++)
        if (v != root && parent[v] < nn)
            start[parent[v] + 1]++;
    for (uint32_t v = 0; v < nn; v++)
        start[v + 1] += start[v];
    memcpy(it, start, nn * sizeof *it);
    for (uint32_t v = 0; v < nn; v++)
        if (v != root && parent[v] < nn)
            child[it[parent[v]]++] = v;
    for (uint32_t v = 0; v < nn; v++) {
        pre[v] = post[v] = UINT32_MAX;
        it[v] = start[v];
    }
    uint32_t sp = 0, cpre = 0, cpost = 0;
    stk[sp++] = root;
    pre[root] = cpre++;
    while (sp) {
        uint32_t x = stk[sp - 1];
        if (it[x] < start[x + 1]) {
            uint32_t y = child[it[x]++];
            pre[y] = cpre++;
            stk[sp++] = y;
        } else {
            post[x] = cpost++;
            sp--;
        }
    }
    return 0;
}

/* a is an ancestor of b (reflexive) in the numbered tree */
static bool tree_anc(const uint32_t *pre, const uint32_t *post, uint32_t a, uint32_t b)
{
    return pre[a] != UINT32_MAX && pre[b] != UINT32_MAX && pre[a] <= pre[b] &&
           post[b] <= post[a];
}

/* Can the exit be reached from block b without entering block avoid? (iterative DFS) */
static bool reaches_exit_avoiding(const struct cfg *c, uint32_t b, uint32_t avoid,
                                  uint32_t *stamp, uint32_t mark, uint32_t *stk)
{
    uint32_t sp = 0;
    stk[sp++] = b;
    stamp[b] = mark;
    while (sp) {
        uint32_t x = stk[--sp];
        const struct cfg_block *blk = &c->blocks[x];
        for (uint32_t i = 0; i < blk->nsucc; i++) {
            uint32_t y = c->succ[blk->succ + i].to;
            if (y == avoid || stamp[y] == mark)
                continue;
            if (y == c->exit)
                return true;
            stamp[y] = mark;
            stk[sp++] = y;
        }
    }
    return false;
}

static void verify_cfg(struct vctx *v)
{
    const struct ir_func *f = v->f;
    const struct cfg *c = f->cfg;
    uint32_t nb = c->nblocks, nn = nb + 1;
    if (c->ninsns != f->ninsns || c->exit != nb) {
        VERR(v, (const struct ir_insn *)NULL, "CFG of %u instructions for a function of %u",
             c->ninsns, f->ninsns);
        return;
    }
    /* blocks tile the function */
    uint32_t expect = 0;
    for (uint32_t b = 0; b < nb; b++) {
        const struct cfg_block *blk = &c->blocks[b];
        if (blk->first != expect || blk->last < blk->first || blk->last >= f->ninsns) {
            VERR(v, (const struct ir_insn *)NULL, "block B%u [%u..%u] does not follow PC %u", b,
                 blk->first, blk->last, expect);
            return;
        }
        for (uint32_t pc = blk->first; pc <= blk->last; pc++)
            if (c->block_of[pc] != b) {
                VERR(v, &f->insns[pc], "pc %u: block_of says B%u, not B%u", pc,
                     c->block_of[pc], b);
                return;
            }
        for (uint32_t i = 0; i < blk->nsucc; i++)
            if ((uint64_t)blk->succ + i >= c->nedges || c->succ[blk->succ + i].to > nb) {
                VERR(v, (const struct ir_insn *)NULL, "block B%u: successor out of range", b);
                return;
            }
        expect = blk->last + 1;
    }
    if (expect != f->ninsns) {
        VERR(v, (const struct ir_insn *)NULL, "blocks end at PC %u, function at %u", expect,
             f->ninsns);
        return;
    }

    size_t words = (size_t)nn * 10 + 1;
    uint32_t *mem = malloc(words * sizeof *mem);
    if (!mem) {
        VERR(v, (const struct ir_insn *)NULL, "out of memory");
        return;
    }
    uint32_t *par = mem, *pre = par + nn, *post = pre + nn, *tmp = post + nn; /* tmp: 4nn+1 */
    uint32_t *stamp = tmp + 4 * nn + 1, *stk = stamp + nn;

    /* dominator tree parent property over reachable blocks */
    for (uint32_t b = 0; b < nn; b++)
        par[b] = (b < nb && (c->blocks[b].flags & CB_REACHABLE)) ? c->blocks[b].idom : UINT32_MAX;
    tree_numbers(par, nn, 0, pre, post, tmp);
    for (uint32_t u = 0; u < nb; u++) {
        if (!(c->blocks[u].flags & CB_REACHABLE))
            continue;
        if (u && pre[u] == UINT32_MAX)
            VERR(v, &f->insns[c->blocks[u].first], "B%u: reachable but not in the dominator tree",
                 u);
        const struct cfg_block *blk = &c->blocks[u];
        for (uint32_t i = 0; i < blk->nsucc; i++) {
            uint32_t w = c->succ[blk->succ + i].to;
            if (w >= nb || w == 0)
                continue;
            if (!tree_anc(pre, post, c->blocks[w].idom, u))
                VERR(v, &f->insns[blk->last], "edge B%u->B%u: idom(B%u) = B%u does not dominate B%u",
                     u, w, w, c->blocks[w].idom, u);
        }
    }

    /* post-dominator tree parent property on the reverse graph */
    for (uint32_t b = 0; b < nn; b++)
        par[b] = b == nb ? UINT32_MAX : c->blocks[b].ipdom;
    tree_numbers(par, nn, nb, pre, post, tmp);
    for (uint32_t u = 0; u < nb; u++) {
        const struct cfg_block *blk = &c->blocks[u];
        if (pre[u] == UINT32_MAX || blk->ipdom > nb) {
            VERR(v, &f->insns[blk->last], "B%u: no immediate post-dominator", u);
            continue;
        }
        for (uint32_t i = 0; i < blk->nsucc; i++) {
            uint32_t w = c->succ[blk->succ + i].to;
            if (!tree_anc(pre, post, blk->ipdom, w))
                VERR(v, &f->insns[blk->last],
                     "edge B%u->B%u: ipdom(B%u) does not post-dominate the successor", u, w, u);
        }
    }

    /* reconvergence PCs */
    bool deep = nb <= 4096;
    for (uint32_t b = 0; b < nn; b++)
        stamp[b] = UINT32_MAX;
    for (uint32_t b = 0; b < nb; b++) {
        const struct cfg_block *blk = &c->blocks[b];
        const struct ir_insn *in = &f->insns[blk->last];
        for (uint32_t pc = blk->first; pc < blk->last; pc++)
            if (f->insns[pc].reconv != IR_NOPC)
                VERR(v, &f->insns[pc], "pc %u: reconvergence PC on a non-terminator", pc);
        /* a block that can diverge (two real successors) must carry its reconvergence PC;
         * any other reconvergence PC present must agree with the ipdom too */
        uint32_t real = blk->nsucc - ((blk->flags & CB_VIRTUAL) ? 1 : 0);
        if ((real < 2 && in->reconv == IR_NOPC) || blk->ipdom > nb)
            continue;
        uint32_t want = blk->ipdom == nb ? IR_NOPC : c->blocks[blk->ipdom].first;
        if (in->reconv != want) {
            VERR(v, in, "pc %u: reconvergence PC %u, but the immediate post-dominator starts at %u",
                 blk->last, in->reconv, want);
            continue;
        }
        if (deep && in->reconv != IR_NOPC) {
            uint32_t r = c->block_of[in->reconv];
            if (r == b || reaches_exit_avoiding(c, b, r, stamp, b, stk))
                VERR(v, in, "pc %u: reconvergence PC %u does not post-dominate the branch",
                     blk->last, in->reconv);
        }
    }
    free(mem);
}

/* Verify every function of a module (passes.h). Returns 0 or minus the number of errors. */
int ir_verify(const struct ir_module *m, FILE *diag)
{
    struct vctx v = {m, NULL, diag, 0, false};
    /* ptxas's rules are about PTX source: IR built by hand (unit tests; no text) and PTXPlus
       get only the structural checks */
    bool ptx = m->dialect == DIALECT_PTX && m->text;
    if (ptx && m->address_size == 64)
        v.addr16 = narrow_addrs(m);
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        v.f = &m->funcs[i];
        if (!v.f->defined)
            continue;
        int before = v.nerr;
        verify_insns(&v);
        if (v.nerr == before && ptx) {
            struct declmap dm = {{NULL}};
            if (declmap_build(&dm, v.f) == 0) {
                for (uint32_t pc = 0; pc < v.f->ninsns; pc++)
                    verify_types(&v, &dm, &v.f->insns[pc]);
            } else {
                VERR(&v, (const struct ir_insn *)NULL, "out of memory");
            }
            declmap_free(&dm);
        }
        if (v.f->cfg)
            verify_cfg(&v);
    }
    if (v.nerr > 50 && diag)
        fprintf(diag, "%s: %d more verifier errors not shown\n",
                m->filename ? m->filename : "<input>", v.nerr - 50);
    return -v.nerr;
}
