/*
 * frontend/verify_form.c — the verifier's rules for instruction forms (verify_int.h), as
 * ptxas 13 applies them: the instruction types an opcode takes, required and refused
 * modifiers (verify_form, verify_other, verify_probed_forms), the typing of ld/st/tex data
 * vectors (check_ldst_vec) and of call arguments against the callee's formal parameters
 * (verify_call). Each rule was probed on ptxas; tests/ptxas_diff.t measures the agreement.
 */
#include <string.h>

#include "frontend/verify_int.h"

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
        bad = k == TK_B || k == TK_PRED || sz == 1 || (in->op == OP_REM && k != TK_I) ||
              ((in->fl & IR_FL(FL_CC)) && k != TK_I); /* add.cc / sub.cc / mad.cc: integers */
        break;
    case OP_ADDC: case OP_SUBC: case OP_MADC: /* .u32/.s32/.u64/.s64 (not .bN) */
        bad = k != TK_I || (sz != 4 && sz != 8);
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
        /* the ISA's list: .b16/.b32/.b64 (mov also .b128, .pred), .u/.s 16-64, .f32, .f64;
           not .f16, .bf16, their x2 forms or .tf32 (ptxas: "Unexpected instruction types") */
        bad = sz == 1 || (k == TK_PRED && in->op != OP_MOV) ||
              !(k == TK_B || k == TK_I || k == TK_PRED || t == T_F32 || t == T_F64);
        break;
    case OP_LD: case OP_LDU: case OP_ST:
        bad = k == TK_PRED || k == TK_H2 || k == TK_BH || t == T_F16;
        break;
    case OP_CVTA:
        bad = t != T_U32 && t != T_U64;
        break;
    case OP_GETCTARANK: case OP_MAPA: /* ptxas also takes .s32 here */
        bad = t != T_U32 && t != T_U64 && t != T_S32;
        break;
    case OP_SIN: case OP_COS: case OP_LG2: case OP_EX2: case OP_TANH: case OP_RSQRT:
    case OP_RCP: case OP_SQRT: case OP_TESTP: case OP_COPYSIGN: case OP_FMA:
        bad = k != TK_F && k != TK_H2 && k != TK_BH && k != TK_OTHER; /* .f32x2 */
        break;
    case OP_POPC: case OP_CLZ: case OP_BREV:
        bad = t != T_B32 && t != T_B64;
        break;
    case OP_BFIND:
        bad = k != TK_I || (sz != 4 && sz != 8);
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
void verify_form(struct vctx *v, const struct ir_insn *in, bool typed)
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
        /* ptxas 13 takes these twice: bar.sync.sync, call.uni.uni, bfind.shiftamt.shiftamt,
           add.cc.cc, sub.sat.sat, ex2.approx.approx, max.relu.relu, min.NaN.NaN (it refuses
           a repeated .ftz, .volatile, rounding, comparison or state space) */
        if (md == MOD_SYNC || md == MOD_UNI || md == MOD_SHIFTAMT || md == MOD_CC ||
            md == MOD_SAT || md == MOD_APPROX || md == MOD_RELU || md == MOD_NAN_FLAG)
            continue;
        /* ... and cvt.satfinite.satfinite (cvt.rn.satfinite.satfinite.f16.f32, cvt.rs), also
           on mma and wmma.mma */
        if (md == MOD_SATFINITE &&
            (in->op == OP_CVT || in->op == OP_MMA || in->op == OP_WMMA_MMA))
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
        else if (in->mode < MODE_ADD || in->mode > MODE_XOR ||
                 (in->mode > MODE_MAX && in->mode < MODE_AND))
            VERR(v, in, "'redux' needs an operation (.add, .min, .max, .and, .or, .xor)");
        /* the type by operation (ptxas: "Incorrect type '.b32' for operation '.add'"):
           .add .u32/.s32, .min/.max .u32/.s32/.f32, .and/.or/.xor .b32 */
        else if (in->mode == MODE_AND || in->mode == MODE_OR || in->mode == MODE_XOR
                     ? in->type[0] != T_B32
                     : in->type[0] != T_U32 && in->type[0] != T_S32 &&
                           !(in->type[0] == T_F32 && in->mode != MODE_ADD))
            VERR(v, in, "'redux.%s' takes %s, not .%s",
                 in->mode == MODE_ADD ? "add" : in->mode == MODE_MIN ? "min"
                 : in->mode == MODE_MAX ? "max" : in->mode == MODE_AND ? "and"
                 : in->mode == MODE_OR ? "or" : "xor",
                 in->mode == MODE_AND || in->mode == MODE_OR || in->mode == MODE_XOR
                     ? ".b32"
                     : in->mode == MODE_ADD ? ".u32 or .s32" : ".u32, .s32 or .f32",
                 ir_type_name((enum ir_type)in->type[0]));
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
    /* min / max: .xorsign and .abs come as the pair .xorsign.abs (ptxas: "Modifier '.abs'
       requires modifier '.xorsign'" and the reverse) */
    if ((in->op == OP_MIN || in->op == OP_MAX) &&
        !(in->fl & IR_FL(FL_ABS)) != !(in->fl & IR_FL(FL_XORSIGN)))
        VERR(v, in, "'%s' takes .xorsign and .abs together (.xorsign.abs), not %s alone", name,
             in->fl & IR_FL(FL_ABS) ? ".abs" : ".xorsign");
    if (in->op == OP_SHFL) {
        if (in->mode != MODE_UP && in->mode != MODE_DOWN && in->mode != MODE_BFLY &&
            in->mode != MODE_IDX)
            VERR(v, in, "'shfl' needs .up, .down, .bfly or .idx");
        bool sync = false;
        for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++)
            sync |= f->mods[in->mod + i] == MOD_SYNC;
        if (!sync && v->m->target_sm >= 70 &&
            v->m->version_major * 10u + v->m->version_minor >= 64)
            VERR(v, in, "'shfl' needs .sync on sm_70 and later targets from PTX ISA 6.4");
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
        /* between floats of one size only integer rounding (.rni ...), widening none
           (ptxas: "Illegal rounding modifier for instruction 'cvt'") */
        const unsigned dsz = ir_type_size((enum ir_type)in->type[0]),
                       ssz = ir_type_size((enum ir_type)in->type[1]);
        if (k == TK_F && sk == TK_F && in->rnd != RND_NONE &&
            ((dsz == ssz && in->rnd < RND_RNI) || dsz > ssz))
            VERR(v, in, "'cvt.%s.%s' takes %s", ir_type_name(in->type[0]),
                 ir_type_name(in->type[1]),
                 dsz == ssz ? "only an integer rounding (.rni, .rzi, .rmi, .rpi)"
                            : "no rounding modifier");
    }
    /* integer mad takes .sat only as mad.hi.s32 ("Illegal modifier '.sat' for instruction
       'mad.lo'", "Modifier '.sat' does not apply to '.u32' type") */
    if (in->op == OP_MAD && (k == TK_I || k == TK_B) && (in->fl & IR_FL(FL_SAT)) &&
        (in->mode != MODE_HI || in->type[0] != T_S32))
        VERR(v, in, "integer 'mad' takes .sat only as mad.hi.s32");
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
void verify_other(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
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
    /* fence takes a state space only as fence.proxy.async{.global,.shared::{cta,cluster}}
       (ptxas 13: "No state space qualifier expected for instruction 'fence'", and "State
       space incorrect for instruction 'fence.proxy'" for the other proxy kinds) */
    if (in->op == OP_FENCE && in->space != SP_NONE &&
        !(has_mod(f, in, MOD_PROXY) && has_mod(f, in, MOD_ASYNC)))
        VERR(v, in, "'fence' takes a state space only as fence.proxy.async");
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
    case OP_MATCH: case OP_TCGEN05_ALLOC: case OP_TCGEN05_DEALLOC: case OP_STACKSAVE:
    case OP_STACKRESTORE: case OP_ALLOCA: case OP_BMSK: case OP_SZEXT: case OP_FNS:
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
    case OP_ELECT: /* "elect.sync d|p, membermask": no type */
        if (ntype)
            VERR(v, in, "'%s' takes no instruction type", name);
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

/* The data vector of ld/ldu/st (and tex's result; operand idx, o a {...} list) as ptxas 13
 * types it (probed: every pair of register types in .v2 and 1,296 .v4 orders):
 * neighbouring register elements have one size ("Incompatible elements of vector
 * expression"; a predicate counts as 32 bits) and kinds (bit, integer, float, .f16x2,
 * predicate) that agree unless one of the two is bit-typed ("Vector with elements of
 * different types are not allowed"): {%r1, %u1, %r1, %f1} is taken, {%u1, %f1} is not. The
 * vector then counts as one register of its elements' type when they all have one, else as
 * .bN of their size ({%u1, %s1} and {%r1, %p1} are .b32), and must fit the instruction type
 * want by the relaxed data rule, with one difference from a scalar: integer elements also
 * fill a float type of their size (ld.v2.f32 {%s1, %s2} is taken, ld.f32 %s1 is not). A
 * vector of predicates only fits no type. The engine stores a predicate element as 0 or 1
 * and loads it as value != 0 (not verified on a GPU). */
unsigned vec_type(struct vctx *v, const struct declmap *dm, const struct ir_insn *in,
                  const struct ir_opnd *o, unsigned idx, const struct ir_regdecl **first,
                  const struct ir_opnd **firsto)
{
    const struct ir_func *f = v->f;
    const char *name = ir_op_name((enum ir_op)in->op);
    const struct ir_regdecl *fd = NULL, *pd = NULL; /* the first and the previous element */
    const struct ir_opnd *fo = NULL, *po = NULL;
    bool uniform = true;
    unsigned size = 0, vsize = 0; /* vsize: of the value (non-predicate) registers */
    for (unsigned k = 0; k < o->n; k++) {
        const struct ir_opnd *e = &f->opnds[o->first + k];
        const struct ir_regdecl *d = e->kind == OPK_REG ? decl_of(dm, f, e) : NULL;
        unsigned es = d && d->type != T_PRED ? ir_type_size((enum ir_type)d->type) : 0;
        if (es && vsize && es != vsize)
            return T_NONE; /* value registers of two sizes: verify_other reports it */
        vsize = es ? es : vsize;
    }
    for (unsigned k = 0; k < o->n; k++) {
        const struct ir_opnd *e = &f->opnds[o->first + k];
        const struct ir_regdecl *d = e->kind == OPK_REG ? decl_of(dm, f, e) : NULL;
        if (!d)
            continue;
        enum tkind ek = type_kind(d->type);
        unsigned es = ek == TK_PRED ? 4 : ir_type_size((enum ir_type)d->type);
        if (pd) {
            enum tkind pk = type_kind(pd->type);
            bool pbit = pk == TK_B || pk == TK_OTHER, ebit = ek == TK_B || ek == TK_OTHER;
            char a[80], b[80];
            reg_name(v, pd, po, a, sizeof a);
            reg_name(v, d, e, b, sizeof b);
            if (es != size) { /* a predicate beside a register of another size */
                VERR(v, in, "operand %u of '%s': vector elements %s (.%s) and %s (.%s) are "
                        "incompatible (a predicate counts as 32 bits)", idx + 1, name,
                 a, ir_type_name((enum ir_type)pd->type), b,
                 ir_type_name((enum ir_type)d->type));
                return T_NONE;
            }
            if (ek != pk && !pbit && !ebit) {
                VERR(v, in, "operand %u of '%s': vector elements of different types (%s is "
                            ".%s, %s is .%s)", idx + 1, name, a,
                     ir_type_name((enum ir_type)pd->type), b,
                     ir_type_name((enum ir_type)d->type));
                return T_NONE;
            }
            uniform &= d->type == fd->type;
        } else {
            fd = d;
            fo = e;
        }
        pd = d;
        po = e;
        size = es;
    }
    if (!fd)
        return T_NONE;
    if (first)
        *first = uniform ? fd : NULL;
    if (firsto)
        *firsto = fo;
    return uniform ? fd->type : size == 1 ? T_B8 : size == 2 ? T_B16 : size == 4 ? T_B32
                              : size == 8 ? T_B64 : T_B128;
}

void check_ldst_vec(struct vctx *v, const struct declmap *dm, const struct ir_insn *in,
                    const struct ir_opnd *o, unsigned idx, unsigned want)
{
    const char *name = ir_op_name((enum ir_op)in->op);
    const struct ir_regdecl *fd;
    const struct ir_opnd *fo;
    const unsigned vt = vec_type(v, dm, in, o, idx, &fd, &fo);
    if (vt == T_NONE)
        return;
    if (vt == T_PRED) {
        VERR(v, in, "operand %u of '%s': a vector of predicates is not a .%s value", idx + 1,
             name, ir_type_name((enum ir_type)want));
        return;
    }
    enum tkind rk = type_kind(vt), wk = type_kind(want);
    unsigned rs = ir_type_size((enum ir_type)vt), ws = ir_type_size((enum ir_type)want);
    bool fits = rk == TK_I && wk == TK_F ? rs == ws : reg_fits(want, vt, true, true);
    if (fits)
        return;
    if (fd) {
        char nm[80];
        reg_name(v, fd, fo, nm, sizeof nm);
        VERR(v, in, "operand %u of '%s': register %s is .%s, not compatible with .%s", idx + 1,
             name, nm, ir_type_name((enum ir_type)fd->type), ir_type_name((enum ir_type)want));
    } else {
        VERR(v, in, "operand %u of '%s': a vector of mixed %u-bit elements counts as .%s, not "
                    "compatible with .%s", idx + 1, name, 8 * rs, ir_type_name((enum ir_type)vt),
             ir_type_name((enum ir_type)want));
    }
}

/* The coordinates of address-with-coordinates operand o (operand idx of in: the elements of
 * its {...} after the handles) checked as one data vector of type want (check_ldst_vec's rule,
 * which ptxas applies to texture, surface and tensor-copy coordinates alike). */
void check_coord_vec(struct vctx *v, const struct declmap *dm, const struct ir_insn *in,
                     const struct ir_opnd *o, unsigned idx, unsigned want)
{
    const unsigned c = (unsigned)o->imm.u;
    if (o->kind != OPK_TEX || c >= o->n)
        return;
    struct ir_opnd co = *o;
    co.kind = OPK_VEC;
    co.first = o->first + c;
    co.n = o->n - c;
    check_ldst_vec(v, dm, in, &co, idx, want);
}

/* Is register operand o (when it is one) a 32- or 64-bit (size) bit or integer register, or
 * not a declared register at all? For results and operands that ptxas takes as integers of
 * one width only: elect's and match's destinations, mbarrier states and phase parities. */
bool int_reg_ok(const struct declmap *dm, const struct ir_func *f, const struct ir_opnd *o,
                unsigned size)
{
    if (o->kind != OPK_REG || o->n > 1)
        return true;
    const struct ir_regdecl *d = decl_of(dm, f, o);
    if (!d)
        return true;
    enum tkind k = type_kind(d->type);
    return (k == TK_B || k == TK_I) && ir_type_size((enum ir_type)d->type) == size;
}

/* Is modifier md among in's? */
bool has_mod(const struct ir_func *f, const struct ir_insn *in, enum ir_mod md)
{
    for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++)
        if (f->mods[in->mod + i] == md)
            return true;
    return false;
}

/* Forms of untyped instructions probed on ptxas 13: isspacep needs a state space; vote
 * needs .sync on sm_70+ from PTX ISA 6.4; the warp-matrix instructions need .aligned; fns
 * takes .b32 and suld.b / sust.b / sust.p / sured.p bit types only; texture and surface
 * instructions need a geometry, surface ones their .b / .p mode, tld4 a .v4 result; elect's
 * and match's destinations are 32-bit integers and match's source has the instruction
 * type's width; mbarrier states are 64-bit and phase parities 32-bit integers; the
 * register elements of a matrix operand {...} share one kind ("Vector with elements of
 * different types"). */
void verify_probed_forms(struct vctx *v, const struct declmap *dm,
                                const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    const char *name = ir_op_name((enum ir_op)in->op);
    const unsigned ver = v->m->version_major * 10u + v->m->version_minor;
    switch (in->op) {
    case OP_ISSPACEP:
        if (in->space == SP_NONE)
            VERR(v, in, "'isspacep' needs a state space (.global, .shared, ...)");
        break;
    case OP_VOTE:
        if (!has_mod(f, in, MOD_SYNC) && v->m->target_sm >= 70 && ver >= 64)
            VERR(v, in, "'vote' needs .sync on sm_70 and later targets from PTX ISA 6.4");
        break;
    case OP_WMMA_LOAD: case OP_WMMA_STORE: case OP_WMMA_MMA: case OP_MMA: case OP_LDMATRIX:
    case OP_STMATRIX: case OP_MOVMATRIX:
        if (!(in->fl & IR_FL(FL_ALIGNED)))
            VERR(v, in, "'%s' needs .aligned", name);
        break;
    default:
        break;
    }
    switch (in->op) {
    case OP_LDMATRIX: case OP_STMATRIX:
        if (!has_mod(f, in, MOD_X1) && !has_mod(f, in, MOD_X2) && !has_mod(f, in, MOD_X4))
            VERR(v, in, "'%s' needs a matrix count (.x1, .x2 or .x4)", name);
        /* ptxas 13: "Illegal modifier '.cta' for instruction 'ldmatrix'" (.shared.cta is
           not .shared::cta), "State space incorrect for instruction 'stmatrix'" */
        for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++)
            if (ir_mod_kind((enum ir_mod)f->mods[in->mod + i]) == MK_SCOPE) {
                VERR(v, in, "'%s' takes no scope (.%s; the state space is .shared::cta)", name,
                     ir_mod_name((enum ir_mod)f->mods[in->mod + i]));
                break;
            }
        if (in->op == OP_STMATRIX && in->space != SP_NONE && in->space != SP_SHARED &&
            in->space != SP_SHARED_CTA)
            VERR(v, in, "'stmatrix' stores to shared memory (.shared, .shared::cta or no state "
                        "space)");
        break;
    case OP_MATCH:
        if (in->mode != MODE_ANY && in->mode != MODE_ALL)
            VERR(v, in, "'match' needs .any or .all");
        break;
    case OP_FNS:
        if (in->type[0] != T_B32)
            VERR(v, in, "'fns' takes type .b32");
        break;
    case OP_ALLOCA: case OP_STACKSAVE: case OP_STACKRESTORE:
        if (in->type[0] != T_U32 && in->type[0] != T_U64)
            VERR(v, in, "'%s' takes type .u32 or .u64", name);
        break;
    case OP_WGMMA_FENCE: case OP_WGMMA_COMMIT_GROUP: case OP_WGMMA_WAIT_GROUP:
        if (!has_mod(f, in, MOD_SYNC))
            VERR(v, in, "'%s' needs .sync", name);
        break;
    case OP_SZEXT:
        if (!(in->fl & (IR_FL(FL_WRAP) | IR_FL(FL_CLAMP))))
            VERR(v, in, "'szext' needs .wrap or .clamp");
        break;
    default:
        break;
    }
    /* texture and surface instructions name their geometry; surfaces their mode (suld and
       sured .b, sust .b or .p); tld4 returns a .v4 */
    if (in->op == OP_TEX || in->op == OP_TLD4 || in->op == OP_SULD || in->op == OP_SUST ||
        in->op == OP_SURED) {
        static const enum ir_mod geoms[] = {MOD_DIM1D, MOD_DIM2D, MOD_DIM3D, MOD_GEOM_A1D,
                                            MOD_GEOM_A2D, MOD_GEOM_CUBE, MOD_GEOM_ACUBE,
                                            MOD_GEOM_2DMS, MOD_GEOM_A2DMS};
        bool geom = false;
        for (unsigned g = 0; g < sizeof geoms / sizeof geoms[0]; g++)
            geom |= has_mod(f, in, geoms[g]);
        if (!geom)
            VERR(v, in, "'%s' needs a geometry (.1d, .2d, .3d, .a1d, .a2d, .cube, ...)", name);
        bool bm = has_mod(f, in, MOD_B), pm = has_mod(f, in, MOD_P);
        if (in->op == OP_SULD && !bm)
            VERR(v, in, "'suld' needs .b");
        else if ((in->op == OP_SUST || in->op == OP_SURED) && !bm && !pm)
            VERR(v, in, "'%s' needs .b or .p", name);
        /* ptxas 13: "Clamp modifier required for instruction 'sust.b'" (suld, sust and
           sured, .b and .p: the out-of-range mode .trap, .clamp or .zero is not optional) */
        if (in->op != OP_TEX && in->op != OP_TLD4 && !has_mod(f, in, MOD_TRAP) &&
            !has_mod(f, in, MOD_ZERO) && !(in->fl & IR_FL(FL_CLAMP)))
            VERR(v, in, "'%s' needs its out-of-range mode (.trap, .clamp or .zero)", name);
        if (in->op == OP_TLD4 && in->vec != 4)
            VERR(v, in, "'tld4' returns a .v4 vector");
    }
    /* a texture, sampler or surface handle in a register is 64-bit in 64-bit code; tex
       coordinates are .s32 or .f32, tld4's .f32 (ptxas: "Integer coordinates require .s32
       instruction type", "Unexpected instruction types") */
    if (in->op == OP_TEX || in->op == OP_TLD4 || in->op == OP_SULD || in->op == OP_SUST ||
        in->op == OP_SURED || in->op == OP_TXQ || in->op == OP_SUQ) {
        for (unsigned i = 0; i < in->nopnd; i++) {
            const struct ir_opnd *o = ir_opnd(f, in, i);
            unsigned nh = o->kind == OPK_TEX && o->first + o->n <= f->nopnds ? (unsigned)o->imm.u
                                                                            : 0;
            for (unsigned h = 0; h < nh && h < o->n; h++)
                if (v->m->address_size == 64 && !int_reg_ok(dm, f, &f->opnds[o->first + h], 8))
                    VERR(v, in, "operand %u of '%s': a texture or surface handle register is "
                                "64-bit", i + 1, name);
            /* txq / suq [%rd]: the handle is the address's base register (int_reg_ok
               looks at registers only, so ask about it as one) */
            const struct ir_opnd base = {
                .kind = OPK_REG, .rf = o->rf, .slot = o->slot, .n = 1, .sym = IR_NOSYM};
            if (o->kind == OPK_ADDR && (in->op == OP_TXQ || in->op == OP_SUQ) &&
                o->slot != IR_NOSLOT && v->m->address_size == 64 &&
                !int_reg_ok(dm, f, &base, 8))
                VERR(v, in, "operand %u of '%s': a texture or surface handle register is "
                            "64-bit", i + 1, name);
        }
        /* the coordinates (verify_form3.c; tex and tld4 from tex_operands) */
        for (unsigned i = 0; (in->op == OP_SULD || in->op == OP_SUST || in->op == OP_SURED) &&
                             i < in->nopnd; i++)
            if (ir_opnd(f, in, i)->kind == OPK_TEX)
                tex_coords(v, dm, in, ir_opnd(f, in, i), i);
        if ((in->op == OP_TEX && in->type[1] != T_S32 && in->type[1] != T_F32) ||
            (in->op == OP_TLD4 && in->type[1] != T_F32))
            VERR(v, in, "'%s' takes %s coordinates, not .%s", name,
                 in->op == OP_TEX ? ".s32 or .f32" : ".f32",
                 ir_type_name((enum ir_type)in->type[1]));
    }
    /* tex d, [t, c] then dPdx, dPdy (.grad: vectors) or lod (.level: a scalar), then an
       optional offset vector and an optional depth-compare scalar (their types:
       verify_form3.c's tex_operands) */
    if (in->op == OP_TEX) {
        unsigned at = in->nopnd;
        for (unsigned i = 0; i < in->nopnd; i++)
            if (ir_opnd(f, in, i)->kind == OPK_TEX) {
                at = i;
                break;
            }
        unsigned i = at + 1;
        bool ok = true;
        if (has_mod(f, in, MOD_GRAD))
            for (unsigned g = 0; g < 2; g++, i++)
                ok &= i < in->nopnd && ir_opnd(f, in, i)->kind == OPK_VEC;
        else if (has_mod(f, in, MOD_LEVEL))
            ok &= i < in->nopnd && ir_opnd(f, in, i++)->kind != OPK_VEC;
        if (ok && i < in->nopnd && ir_opnd(f, in, i)->kind == OPK_VEC)
            i++; /* the offset */
        if (ok && i < in->nopnd && ir_opnd(f, in, i)->kind != OPK_VEC)
            i++; /* the depth-compare value */
        if (at < in->nopnd && (!ok || i != in->nopnd))
            VERR(v, in, "'tex%s': operands after the address are %s[offset vector] "
                        "[depth compare]", has_mod(f, in, MOD_GRAD) ? ".grad" :
                                           has_mod(f, in, MOD_LEVEL) ? ".level" : "",
                 has_mod(f, in, MOD_GRAD) ? "two gradient vectors, " :
                 has_mod(f, in, MOD_LEVEL) ? "the level, " : "");
    }
    switch (in->op) {
    case OP_SULD: case OP_SUST: case OP_SURED: {
        bool pmode = has_mod(f, in, MOD_P);
        enum tkind k = type_kind(in->type[0]);
        if (in->op == OP_SURED && !pmode)
            break; /* sured.b takes .u32, .s32, .b32, .u64, ... per operation */
        if (in->type[0] && k != TK_B)
            VERR(v, in, "'%s.%s' takes bit types (.b8, .b16, .b32, .b64), not .%s", name,
                 pmode ? "p" : "b", ir_type_name((enum ir_type)in->type[0]));
        break;
    }
    case OP_ELECT:
        if (in->nopnd >= 1 && !int_reg_ok(dm, f, ir_opnd(f, in, 0), 4))
            VERR(v, in, "operand 1 of 'elect' is a 32-bit integer register");
        break;
    case OP_MATCH:
        if (in->nopnd >= 3) {
            const struct ir_opnd *a = ir_opnd(f, in, in->nopnd - 2);
            if (!int_reg_ok(dm, f, ir_opnd(f, in, 0), 4))
                VERR(v, in, "operand 1 of 'match' is a 32-bit integer register");
            const struct ir_regdecl *d = a->kind == OPK_REG && a->n <= 1 ? decl_of(dm, f, a)
                                                                         : NULL;
            if (d && ir_type_size((enum ir_type)d->type) !=
                         ir_type_size((enum ir_type)in->type[0]))
                VERR(v, in, "operand %u of 'match.%s': a %u-bit register", in->nopnd - 1,
                     ir_type_name((enum ir_type)in->type[0]),
                     8 * ir_type_size((enum ir_type)d->type));
        }
        break;
    case OP_MBARRIER_ARRIVE: case OP_MBARRIER_ARRIVE_DROP:
        if (in->nopnd >= 1 && !int_reg_ok(dm, f, ir_opnd(f, in, 0), 8))
            VERR(v, in, "operand 1 of '%s': the state is a 64-bit integer register", name);
        break;
    case OP_MBARRIER_TEST_WAIT: case OP_MBARRIER_TRY_WAIT:
        if (in->nopnd >= 3) {
            bool parity = has_mod(f, in, MOD_PARITY);
            if (!int_reg_ok(dm, f, ir_opnd(f, in, 2), parity ? 4 : 8))
                VERR(v, in, "operand 3 of '%s': the %s is a %u-bit integer register", name,
                     parity ? "phase parity" : "state", parity ? 32 : 64);
        }
        break;
    default:
        break;
    }
    if (in->op == OP_MMA || in->op == OP_MMA_SP || in->op == OP_MMA_SP_ORDERED ||
        in->op == OP_WMMA_MMA || in->op == OP_WMMA_LOAD || in->op == OP_WMMA_STORE) {
        /* ptxas 13 "Arguments mismatch for instruction 'mma'": the fragments (d, a, b, c) of
           an mma without .f64 are vectors of 32-bit registers (the block-scale selectors
           after them may be 16-bit) */
        const bool mma32 = (in->op == OP_MMA || in->op == OP_MMA_SP ||
                            in->op == OP_MMA_SP_ORDERED) && !has_mod(f, in, MOD_F64);
        for (unsigned i = 0; i < in->nopnd; i++) {
            const struct ir_opnd *o = ir_opnd(f, in, i);
            if (o->kind != OPK_VEC || o->first + o->n > f->nopnds)
                continue;
            enum tkind k0 = TK_OTHER;
            for (unsigned k = 0; k < o->n; k++) {
                const struct ir_opnd *e = &f->opnds[o->first + k];
                const struct ir_regdecl *d = e->kind == OPK_REG ? decl_of(dm, f, e) : NULL;
                if (mma32 && i < 4 && d && ir_type_size(d->type) != 4) {
                    VERR(v, in, "operand %u of '%s': a vector of 32-bit registers", i + 1,
                         name);
                    break;
                }
                enum tkind ek = d ? type_kind(d->type) : TK_OTHER;
                if (ek == TK_H2)
                    ek = TK_F;
                if (ek == TK_B || ek == TK_OTHER)
                    continue;
                if (k0 != TK_OTHER && ek != k0) {
                    VERR(v, in, "operand %u of '%s': vector elements of different types", i + 1,
                         name);
                    break;
                }
                k0 = ek;
            }
        }
    }
    verify_probed_forms2(v, dm, in);
}

/* Does argument e (a register, a .param variable or a constant) fit the formal parameter y
 * of a called function? As ptxas: a register or variable of the formal's size whose type
 * fits it by the strict rule (.u32 takes .s32 and .b32, not .f32); an array (`.b8 p[16]`)
 * only an array of as many bytes of a fitting element type; constants always. */
static bool arg_fits(const struct declmap *dm, const struct ir_func *f,
                     const struct ir_module *m, const struct ir_opnd *e, const struct ir_sym *y)
{
    unsigned ft = y->type;
    bool farr = y->ndims > 0 || y->vec > 1;
    if (e->kind == OPK_REG) {
        const struct ir_regdecl *d = decl_of(dm, f, e);
        return !d || e->n > 1 || (!farr && reg_fits(ft, d->type, false, false));
    }
    if (e->kind == OPK_ADDR && e->sym != IR_NOSYM && e->sym < m->nsyms) {
        const struct ir_sym *a = &m->syms[e->sym];
        bool aarr = a->ndims > 0 || a->vec > 1;
        if (aarr != farr)
            return false;
        if (farr)
            return a->size == y->size && reg_fits(ft, a->type, false, false);
        return reg_fits(ft, a->type, false, false);
    }
    return true;
}

/* A direct call names as many return values and arguments as the callee declares, each
 * fitting its formal parameter (ptxas: "Call has wrong number of parameters", "Type of
 * argument does not match formal parameter 'a'"); the engine would otherwise leave missing
 * arguments zero and drop extra ones. */
void verify_call(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_module *m = v->m;
    const struct ir_func *f = v->f;
    if (in->target == IR_NOPC || in->target >= m->nfuncs)
        return; /* indirect (through a register and a prototype; its target register:
                   verify_form4.c) */
    const struct ir_func *cf = &m->funcs[in->target];
    const struct ir_opnd *lists[2] = {NULL, NULL}; /* returns, arguments */
    bool seen_target = false;
    for (unsigned i = 0; i < in->nopnd; i++) {
        const struct ir_opnd *o = ir_opnd(f, in, i);
        if (o->kind == OPK_FUNC)
            seen_target = true;
        else if (o->kind == OPK_PARAMS && o->first + o->n <= f->nopnds)
            lists[seen_target ? 1 : 0] = o;
    }
    const unsigned nr = lists[0] ? lists[0]->n : 0, na = lists[1] ? lists[1]->n : 0;
    const char *fname = ir_str(m, cf->name);
    if (nr != cf->nret || na != cf->nparam) {
        VERR(v, in, "call of '%s' with %u return value%s and %u argument%s; it declares %u "
                    "and %u", fname, nr, nr == 1 ? "" : "s", na, na == 1 ? "" : "s",
             cf->nret, cf->nparam);
        return;
    }
    for (unsigned l = 0; l < 2; l++) {
        uint32_t first = l ? cf->param : cf->ret;
        for (unsigned k = 0; lists[l] && k < lists[l]->n; k++) {
            if (first + k >= m->nsyms)
                break;
            const struct ir_sym *y = &m->syms[first + k];
            const struct ir_opnd *e = &f->opnds[lists[l]->first + k];
            if (!arg_fits(dm, f, m, e, y))
                VERR(v, in, "call of '%s': %s %u does not match the type of formal parameter "
                            "'%s' (.%s%s)", fname, l ? "argument" : "return value", k + 1,
                     ir_str(m, y->name), ir_type_name((enum ir_type)y->type),
                     y->ndims ? " array" : "");
        }
    }
}
