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
 *     the modifiers and types ptxas requires or refuses (verify_form.c).
 * Messages are compiler diagnostics at the instruction (`file:line:col: error: …`).
 */
#include <stdlib.h>
#include <string.h>

#include "frontend/verify_int.h"


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

/* The kind of type t for the rules above (verify_int.h). */
enum tkind type_kind(unsigned t)
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
bool reg_fits(unsigned it, unsigned rt, bool wide, bool elem)
{
    enum tkind ik = type_kind(it), rk = type_kind(rt);
    if (it == T_U16X2 || it == T_S16X2) /* packed halves: a .b32 or .f16x2 register (ptxas) */
        return ir_type_size((enum ir_type)rt) == 4 && (rk == TK_B || rk == TK_H2);
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

/* Fill dm for function f (verify_int.h). 0, or -1 out of memory. */
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
const struct ir_regdecl *decl_of(const struct declmap *dm, const struct ir_func *f,
                                 const struct ir_opnd *o)
{
    if ((o->kind != OPK_REG && o->kind != OPK_ADDR) || o->rf >= RF__COUNT ||
        o->slot >= f->ndeclared[o->rf])
        return NULL;
    uint32_t i = dm->of[o->rf][o->slot];
    return i == UINT32_MAX ? NULL : &f->regdecls[i];
}

/* Write the PTX name of register operand o (declared by d) into buf. */
void reg_name(const struct vctx *v, const struct ir_regdecl *d, const struct ir_opnd *o,
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
unsigned fmt_positions(enum ir_op op, char *pos, unsigned cap)
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
bool typed_op(unsigned op)
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
    if (type_kind(in->type[0]) == TK_OTHER && in->type[0] != T_U16X2 && in->type[0] != T_S16X2)
        return false;
    /* a second type the format has no position for (add.f32.f16, dp4a.u32.s32, …) */
    if (in->type[1] && !strchr(fmt, 's'))
        return false;
    if (in->type[1] && type_kind(in->type[1]) == TK_OTHER)
        return false;
    return true;
}

/* Report register operand o (operand idx of in) unless its declared type fits want. */
void check_reg(struct vctx *v, const struct declmap *dm, const struct ir_insn *in,
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
                       in->op == OP_PREFETCHU || in->op == OP_APPLYPRIORITY ||
                       in->op == OP_DISCARD ||
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
 * register of at most 64 bits; in 64-bit code a .global or generic access of ld, st, atom,
 * red, prefetch, applypriority and discard needs a 64-bit one (ptxas: "Program uses 32-bit
 * address ... conflicting with .address_size 64", then refuses to compile 32-bit code)
 * unless a 16-bit one is there too. */
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

/* Every ptxas-style check of one instruction: addresses, forms, then the register, vector
 * element and special-register operands of the probed opcodes, position by position. */
static void verify_types(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    const char *fmt = ir_op_format((enum ir_op)in->op);
    verify_addrs(v, dm, in);
    verify_other(v, dm, in);
    verify_probed_forms(v, dm, in);
    if (in->op == OP_CALL)
        verify_call(v, dm, in);
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
            /* mov's source; atom.cas's swap value (c, after the compare value b: ptxas
               "Arguments mismatch" for a register of another size) */
            if (in->op != OP_MOV && !(in->op == OP_ATOM && in->mode == MODE_CAS && i == 3))
                continue;
            want = in->type[0];
            break;
        default:
            continue;
        }
        if (want == T_NONE)
            continue;
        bool wide = data_wide && (c == 'd' || c == 'a' || c == 's');
        /* ptxas 13 takes a .b64 or .b128 register as the result of cvt to .f16x2 (not to
           .bf16x2, nor an integer or float register of those widths) */
        if (in->op == OP_CVT && c == 'd' && want == T_F16X2 && o->kind == OPK_REG &&
            o->n <= 1 && decl_of(dm, f, o) &&
            (decl_of(dm, f, o)->type == T_B64 || decl_of(dm, f, o)->type == T_B128))
            continue;
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
        } else if (o->kind == OPK_VEC && o->first + o->n <= f->nopnds && o->n &&
                   (in->op == OP_LD || in->op == OP_LDU || in->op == OP_ST) && wide) {
            check_ldst_vec(v, dm, in, o, i, want);
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
