/*
 * frontend/verify_form4.c — instruction forms ptxas 13 refuses that scripts/ptxas-diff.pl
 * seeds 12-21 found outside the allowlist, each probed on ptxas (sm_90, sm_100a, sm_120a;
 * fixtures/ptx/diag/probed_forms22.ptx … probed_forms24.ptx), called from
 * verify_probed_forms2 (verify_form2.c):
 *   - atom / red operation and type pairs (atom_red_forms): the whole table, .noftz, the
 *     vector forms, no .exch / .cas on red;
 *   - a modifier repeating a word of the mnemonic (cp.async.async, multimem.red.red);
 *   - multimem's scope only with a memory order, never with .weak;
 *   - griddepcontrol's one action; mma.sp's .aligned; the surface instructions' one type;
 *   - ld / st: a memory order exactly with a scope (seed 17), .mmio only .relaxed.sys (19);
 *   - tensormap.replace's .tile, setmaxnreg's type, mxf4nvf4's scale-vector size, an
 *     indirect call's target register (seeds 18-19), min / max .relu's types (21);
 *   - cp.async.bulk.tensor's value operands: a CTA mask only with .multicast::cluster (16);
 *   - operand kinds: st.async's data against its type, the .is_canceled predicate of
 *     clusterlaunchcontrol.query_cancel, the 64-bit cache policy of ld / st / atom / red,
 *     mma .block_scale's 16-bit scale selectors, the accumulator of the sub-byte wmma.mma.
 */
#include <string.h>

#include "frontend/verify_int.h"

/* Is t one of the 16-bit float types atom / red take with .noftz? */
static bool half_type(unsigned t)
{
    return t == T_F16 || t == T_BF16 || t == T_F16X2 || t == T_BF16X2;
}

/* atom / red: the types each operation takes (ptxas 13 on sm_90: "Operation .and requires
 * .b32 or .b64 type", "Unexpected instruction types specified for 'red'"): .add .u32 .s32
 * .u64 .f32 .f64; .min / .max .u32 .s32 .u64 .s64; .and / .or / .xor .b32 .b64; .exch .b32
 * .b64 .b128; .cas .b16 .b32 .b64 .b128; .inc / .dec .u32; the 16-bit floats (.f16, .bf16
 * and their x2 pairs) with .add, .min and .max and only with .noftz ("'.noftz' modifier
 * required"), which nothing else takes ("Illegal modifier '.noftz'"); their .min / .max only
 * as a vector ("Vector modifier required"); a vector only of them or of .f32 for .add
 * ("Vector qualifier is not allowed"); red has no .exch or .cas. No 8- or 16-bit integer
 * operation at all (ptxas takes atom.cas.b16 only). */
void atom_red_forms(struct vctx *v, const struct ir_insn *in)
{
    const char *name = ir_op_name((enum ir_op)in->op);
    const unsigned t = in->type[0], md = in->mode;
    if (md == MODE_INC || md == MODE_DEC) {
        if (t != T_U32)
            VERR(v, in, "'%s.%s' takes type .u32", name, md == MODE_INC ? "inc" : "dec");
        return;
    }
    if (in->op == OP_RED && (md == MODE_EXCH || md == MODE_CAS)) {
        VERR(v, in, "'red' takes no .%s (that is atom)", md == MODE_EXCH ? "exch" : "cas");
        return;
    }
    if (t == T_NONE || md < MODE_ADD || md > MODE_XOR)
        return; /* reported by verify_form / verify_other */
    const bool h = half_type(t);
    bool ok;
    switch (md) {
    case MODE_ADD:
        ok = t == T_U32 || t == T_S32 || t == T_U64 || t == T_F32 || t == T_F64 || h;
        break;
    case MODE_MIN: case MODE_MAX:
        ok = t == T_U32 || t == T_S32 || t == T_U64 || t == T_S64 || h;
        break;
    case MODE_EXCH:
        ok = t == T_B32 || t == T_B64 || t == T_B128;
        break;
    case MODE_CAS:
        ok = t == T_B16 || t == T_B32 || t == T_B64 || t == T_B128;
        break;
    default: /* .and .or .xor */
        ok = t == T_B32 || t == T_B64;
        break;
    }
    if (!ok) {
        VERR(v, in, "'%s' does not take this operation with type .%s", name,
             ir_type_name((enum ir_type)t));
        return;
    }
    const bool noftz = (in->fl & IR_FL(FL_NOFTZ)) != 0;
    if (h && !noftz)
        VERR(v, in, "'%s' of type .%s needs .noftz", name, ir_type_name((enum ir_type)t));
    else if (!h && noftz)
        VERR(v, in, "'%s' takes .noftz only with .f16, .bf16, .f16x2 or .bf16x2", name);
    if (in->vec > 1 && !h && !(t == T_F32 && md == MODE_ADD))
        VERR(v, in, "'%s' takes a vector only of .f16, .bf16, .f16x2, .bf16x2 (and .f32 for "
                    ".add)", name);
    else if (in->vec <= 1 && h && (md == MODE_MIN || md == MODE_MAX))
        VERR(v, in, "'%s.%s' of .%s needs a vector (.v2, .v4, .v8)", name,
             md == MODE_MIN ? "min" : "max", ir_type_name((enum ir_type)t));
}

/* Is modifier md spelled as one of the dot-separated words of mnemonic op (cp.async.async,
 * multimem.red.red, mbarrier.arrive.arrive: ptxas "Illegal modifier '.async' for instruction
 * 'cp.async'", "Unknown modifier '.red'"; probed on every dotted mnemonic whose word is a
 * modifier's name too)? */
static bool repeats_mnemonic(const char *op, const char *md)
{
    const size_t n = strlen(md);
    for (const char *p = op; *p;) {
        const char *e = strchr(p, '.');
        const size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == n && strncmp(p, md, n) == 0)
            return true;
        if (!e)
            break;
        p = e + 1;
    }
    return false;
}

/* Is register operand o (a single register) declared .pred? */
static bool pred_reg(const struct declmap *dm, const struct ir_func *f, const struct ir_opnd *o)
{
    const struct ir_regdecl *d = o->kind == OPK_REG && o->n <= 1 ? decl_of(dm, f, o) : NULL;
    return d && d->type == T_PRED;
}

/* Is o a 64-bit bit or integer register (a cache policy)? */
static bool policy_reg(const struct declmap *dm, const struct ir_func *f, const struct ir_opnd *o)
{
    const struct ir_regdecl *d = o->kind == OPK_REG && o->n <= 1 ? decl_of(dm, f, o) : NULL;
    if (!d)
        return o->kind != OPK_REG;
    const enum tkind k = type_kind(d->type);
    return ir_type_size((enum ir_type)d->type) == 8 && (k == TK_B || k == TK_I);
}

/* The forms of seeds 12-21 (see the file comment; verify_int.h). */
void seed_forms(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    const char *name = ir_op_name((enum ir_op)in->op);
    for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++) {
        const enum ir_mod md = (enum ir_mod)f->mods[in->mod + i];
        /* bar.warp.sync.sync is taken, as .sync twice anywhere (verify_form) */
        if (ir_mod_kind(md) != MK_TYPE && md != MOD_SYNC &&
            repeats_mnemonic(name, ir_mod_name(md))) {
            VERR(v, in, "modifier '.%s' repeats a word of the mnemonic '%s'", ir_mod_name(md),
                 name);
            break;
        }
    }
    switch (in->op) {
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_FMA:
        /* "Illegal modifier '.sat' for instruction 'add'" (the sm_100 .f32x2 forms) */
        if (in->type[0] == T_F32X2 && (in->fl & IR_FL(FL_SAT)))
            VERR(v, in, "'%s.f32x2' takes no .sat", name);
        return;
    case OP_ST_BULK: {
        /* "Argument 1 of instruction 'st.bulk': unexpected value '12', expected to be multiple
           of 8", "Argument 2 ...: expected to be zero" */
        const struct ir_opnd *sz = in->nopnd > 1 ? ir_opnd(f, in, 1) : NULL;
        const struct ir_opnd *iv = in->nopnd > 2 ? ir_opnd(f, in, 2) : NULL;
        if (sz && sz->kind == OPK_IMM && sz->imm.u % 8)
            VERR(v, in, "'st.bulk' size %llu is not a multiple of 8",
                 (unsigned long long)sz->imm.u);
        else if (iv && iv->kind == OPK_IMM && iv->imm.u)
            VERR(v, in, "'st.bulk' initial value %llu is not 0 (the one value allowed)",
                 (unsigned long long)iv->imm.u);
        return;
    }
    case OP_MULTIMEM_LD_REDUCE: case OP_MULTIMEM_ST: case OP_MULTIMEM_RED:
        /* "Modifier '.gpu' requires order", "Modifier '.weak' cannot be combined with
           modifier '.gpu'" (a memory order without a scope: misc_forms) */
        if (in->scope != SCOPE_NONE && in->sem == SEM_NONE)
            VERR(v, in, "'%s' with a scope needs a memory order (.relaxed, .acquire, "
                        ".release)", name);
        else if (in->scope != SCOPE_NONE && in->sem == SEM_WEAK)
            VERR(v, in, "'%s.weak' takes no scope", name);
        return;
    case OP_GRIDDEPCONTROL: {
        /* "'.launch_dependents' or '.wait' modifier required", "Modifier '.wait' cannot be
           combined with modifier '.launch_dependents'" */
        const bool w = has_mod(f, in, MOD_WAIT), l = has_mod(f, in, MOD_LAUNCH_DEPENDENTS);
        if (w == l)
            VERR(v, in, "'griddepcontrol' takes one of .wait and .launch_dependents");
        return;
    }
    case OP_MMA_SP: case OP_MMA_SP_ORDERED:
        /* ".aligned modifier required for instruction 'mma'" (plain mma: verify_form.c) */
        if (!(in->fl & IR_FL(FL_ALIGNED)))
            VERR(v, in, "'%s' needs .aligned", name);
        return;
    case OP_SULD: case OP_SUST: case OP_SURED: {
        /* "Unexpected instruction types specified for 'sured.b'" */
        unsigned nt = 0;
        for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++)
            nt += ir_mod_kind((enum ir_mod)f->mods[in->mod + i]) == MK_TYPE;
        if (nt > 1)
            VERR(v, in, "'%s' takes one type, not %u", name, nt);
        return;
    }
    case OP_ST_ASYNC: {
        /* .b32 .b64 .u32 .s32 .u64 .s64 .f32 .f64, and without an mbarrier (the .release
           global form, sm_100) also .b8 .b16 .u8 .u16 .s8 .s16 (ptxas 13; not .f16), the
           data of that type ("Arguments mismatch for instruction 'st.async'"; vectors by the
           vector rule) */
        const unsigned t = in->type[0];
        const enum tkind k = type_kind(t);
        const unsigned sz = ir_type_size((enum ir_type)t);
        const bool small = (sz == 1 || sz == 2) && k != TK_F && in->nopnd == 2;
        if (t == T_NONE)
            return;
        if ((sz != 4 && sz != 8 && !small) || (k != TK_B && k != TK_I && k != TK_F))
            VERR(v, in, "'st.async' does not take type .%s", ir_type_name((enum ir_type)t));
        else if (in->nopnd >= 2)
            data_opnd(v, dm, in, 1, t);
        return;
    }
    case OP_CLUSTERLAUNCHCONTROL_QUERY_CANCEL:
        /* .is_canceled.pred: the result a predicate ("Arguments mismatch"; the ctaid
           queries' 32-bit result: misc_forms) */
        if (in->type[0] == T_PRED && in->nopnd >= 1 && ir_opnd(f, in, 0)->kind == OPK_REG &&
            !pred_reg(dm, f, ir_opnd(f, in, 0)))
            VERR(v, in, "operand 1 of '%s.is_canceled' is a predicate", name);
        return;
    case OP_LD: case OP_ST: case OP_ATOM: case OP_RED: {
        /* ld / st: a memory order (.relaxed, .acquire, .release, .mmio) exactly with a scope,
           .weak / .volatile with none ("Modifier '.relaxed' requires scope with 'ld'
           instruction", "Modifier '.gpu' requires memory order", "Modifier '.weak' cannot
           be combined with modifier '.gpu'"; seed 17); atom / red take either alone */
        if (in->op == OP_LD || in->op == OP_ST) {
            const bool weak = in->sem == SEM_WEAK || in->sem == SEM_VOLATILE;
            const bool mmio = has_mod(f, in, MOD_MMIO);
            /* .mmio: with .relaxed and .sys only ("Modifier '.mmio' requires modifier
               '.relaxed'", "cannot be combined with modifier '.gpu'"; seed 19) */
            if (mmio && (!has_mod(f, in, MOD_RELAXED) ||
                         (in->scope != SCOPE_NONE && in->scope != SCOPE_SYS)))
                VERR(v, in, "'%s.mmio' goes with .relaxed and .sys", name);
            else if ((in->fl & IR_FL(FL_NC)) && in->sem != SEM_NONE) /* "cannot be combined" */
                VERR(v, in, "'ld.global.nc' takes no .weak, .volatile or memory order");
            else if (in->scope != SCOPE_NONE && weak)
                VERR(v, in, "'%s.%s' takes no scope", name,
                     in->sem == SEM_WEAK ? "weak" : "volatile");
            else if (in->scope != SCOPE_NONE && in->sem == SEM_NONE)
                VERR(v, in, "'%s' with a scope needs a memory order (.relaxed, .acquire, "
                            ".release)", name);
            else if (in->scope == SCOPE_NONE && in->sem != SEM_NONE && !weak)
                VERR(v, in, "'%s' with a memory order needs a scope (.cta, .cluster, .gpu, "
                            ".sys)", name);
        }
        /* .L2::cache_hint's policy: a 64-bit integer register ("Arguments mismatch for
           instruction 'st'"); it follows the data (ld / st / red: operand 3; atom: 4).
           atom.cas takes no hint ("Illegal modifier '.L2::cache_hint'") */
        const unsigned pi = in->op != OP_ATOM ? 2 : 3;
        if (!(in->fl & IR_FL(FL_L2_HINT)))
            return;
        if (in->op == OP_ATOM && in->mode == MODE_CAS)
            VERR(v, in, "'atom.cas' takes no .L2::cache_hint");
        else if (in->nopnd > pi && !policy_reg(dm, f, ir_opnd(f, in, pi)))
            VERR(v, in, "operand %u of '%s': the cache policy is a 64-bit integer register",
                 pi + 1, name);
        return;
    }
    case OP_CP_ASYNC_BULK_TENSOR: {
        /* the value operands after the addresses (and im2col's offset vector): the CTA mask
           of .multicast::cluster, then the policy of .L2::cache_hint, no other ("Arguments
           mismatch for instruction 'cp.async.bulk.tensor'"; seed 16) */
        const unsigned want = has_mod(f, in, MOD_MULTICAST_CLUSTER) +
                              ((in->fl & IR_FL(FL_L2_HINT)) != 0);
        unsigned nval = 0;
        for (unsigned i = 0; i < in->nopnd; i++) {
            const enum ir_opnd_kind k = (enum ir_opnd_kind)ir_opnd(f, in, i)->kind;
            nval += k == OPK_REG || k == OPK_IMM;
        }
        if (nval > want)
            VERR(v, in, "'%s' takes %u value operand%s after its addresses, not %u (a CTA mask "
                        "needs .multicast::cluster, a policy .L2::cache_hint)", name, want,
                 want == 1 ? "" : "s", nval);
        return;
    }
    case OP_MIN: case OP_MAX:
        /* .relu only on .s32 and .s16x2 ("Illegal modifier '.relu' for instruction 'max'
           with type '.u32'", "Unexpected instruction types" for the floats; seed 21;
           .u16x2: verify_form2.c) */
        if ((in->fl & IR_FL(FL_RELU)) && in->type[0] != T_S32 && in->type[0] != T_S16X2 &&
            in->type[0] != T_U16X2)
            VERR(v, in, "'%s.relu' takes type .s32 or .s16x2, not .%s", name,
                 ir_type_name((enum ir_type)in->type[0]));
        return;
    case OP_TENSORMAP_REPLACE:
        /* ".tile modifier required for instruction 'tensormap.replace'" (seed 18) */
        if (!has_mod(f, in, MOD_TILE))
            VERR(v, in, "'tensormap.replace' needs .tile");
        return;
    case OP_SETMAXNREG:
        /* .u32 or .s32 ("Unexpected instruction types specified for 'setmaxnreg.dec'";
           seed 19) */
        if (in->type[0] != T_U32 && in->type[0] != T_S32)
            VERR(v, in, "'setmaxnreg' takes type .u32 or .s32");
        return;
    case OP_CALL:
        /* an indirect call's target: a 32- or 64-bit integer register ("Arguments mismatch
           for instruction 'call'" for a predicate or a float, "Illegal target" for 16 bits;
           seed 18) */
        for (unsigned i = 0; i < in->nopnd; i++) {
            const struct ir_opnd *o = ir_opnd(f, in, i);
            const struct ir_regdecl *d = o->kind == OPK_REG && o->n <= 1 ? decl_of(dm, f, o)
                                                                          : NULL;
            if (!d)
                continue;
            const enum tkind k = type_kind(d->type);
            const unsigned sz = ir_type_size((enum ir_type)d->type);
            if ((k != TK_B && k != TK_I) || (sz != 4 && sz != 8))
                VERR(v, in, "operand %u of 'call': an indirect call's target is a 32- or "
                            "64-bit integer register", i + 1);
            break;
        }
        return;
    case OP_MMA:
        /* .kind::mxf4nvf4 names its scale-vector size (".scale_vec_size modifier required
           for instruction 'mma'"; seed 18; the other kinds have a default) */
        if (has_mod(f, in, MOD_KIND_MXF4NVF4) && !has_mod(f, in, MOD_SCALE_VEC_2X) &&
            !has_mod(f, in, MOD_SCALE_VEC_4X))
            VERR(v, in, "'mma.kind::mxf4nvf4' needs .scale_vec::2X or .scale_vec::4X");
        /* .block_scale's selectors {byte-id, thread-id} (operands 6 and 8): 16-bit bit or
           integer registers or constants, no predicate or .f16 ("Incompatible elements of vector
           expression", "Arguments mismatch for instruction 'mma'") */
        if (!has_mod(f, in, MOD_BLOCK_SCALE))
            return;
        for (unsigned i = 5; i <= 7 && i < in->nopnd; i += 2) {
            const struct ir_opnd *o = ir_opnd(f, in, i);
            for (unsigned k = 0; o->kind == OPK_VEC && o->first + o->n <= f->nopnds && k < o->n;
                 k++) {
                const struct ir_opnd *e = &f->opnds[o->first + k];
                const struct ir_regdecl *d = e->kind == OPK_REG ? decl_of(dm, f, e) : NULL;
                const enum tkind dk = d ? type_kind(d->type) : TK_OTHER;
                if (d && ((dk != TK_B && dk != TK_I) ||
                          ir_type_size((enum ir_type)d->type) != 2)) {
                    VERR(v, in, "operand %u of 'mma': a scale selector is 16-bit integer "
                                "registers or constants", i + 1);
                    break;
                }
            }
        }
        return;
    case OP_WMMA_MMA: {
        /* the sub-byte forms (.u4, .s4, .b1): no predicate in the accumulator C ("Type of
           argument does not match formal parameter 'c0'"; ptxas takes one in D, and in C of
           the 8-bit forms) */
        unsigned t[6], n = 0;
        for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods && n < 6; i++)
            if (ir_mod_kind((enum ir_mod)f->mods[in->mod + i]) == MK_TYPE)
                t[n++] = (unsigned)ir_mod_value((enum ir_mod)f->mods[in->mod + i]);
        if (n != 4 || (t[1] != T_U4 && t[1] != T_S4 && t[1] != T_B1) || in->nopnd < 4)
            return;
        const struct ir_opnd *o = ir_opnd(f, in, 3);
        for (unsigned k = 0; o->kind == OPK_VEC && o->first + o->n <= f->nopnds && k < o->n; k++)
            if (pred_reg(dm, f, &f->opnds[o->first + k])) {
                VERR(v, in, "operand 4 of 'wmma.mma': a predicate in the accumulator of a "
                            "sub-byte (.%s) form", ir_type_name((enum ir_type)t[1]));
                break;
            }
        return;
    }
    default:
        return;
    }
}
