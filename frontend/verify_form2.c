/*
 * frontend/verify_form2.c — more instruction forms as ptxas 13 refuses them, each probed on
 * ptxas (fixtures/ptx/diag/probed_forms5.ptx): the types of bmsk, wmma.store, tex and
 * wgmma.mma_async{.sp}, bar.red / barrier.red (operation, type, operands), the
 * barrier.cluster semantics, mma's types (D against C and A, A against B, the .kind and
 * block-scale forms), multimem (operation / type pairs, semantics, vectors, data
 * registers), tcgen05 (alloc / dealloc / commit types and operands, ld.red's
 * operation, type and operands, mma's .kind and operands, wait's .sync.aligned), dp4a / dp2a, the
 * video instructions (types, .clamp/.wrap, comparison, secondary operation and operand count), txq
 * / suq (their one query and its operands), tensormap.replace's value type per field, the bulk
 * copies' state spaces, loads and stores over 128 bits, and the operand kinds of the tensor
 * copies' coordinates, cp.async, cp.async.bulk{.prefetch}, wgmma.mma_async{.sp} (A descriptor,
 * sparsity selector, scale-d)
 * and the surface instructions' data (ptxas: "Unexpected instruction types specified for …",
 * "Arguments mismatch for instruction …", "Instruction 'tex.f32' requires .v4 type").
 */
#include <string.h>

#include "frontend/verify_int.h"

/* Kind and byte size of register operand o when it is one declared register. */
static bool reg_shape(const struct declmap *dm, const struct ir_func *f, const struct ir_opnd *o,
                      enum tkind *k, unsigned *size)
{
    if (o->kind != OPK_REG || o->n > 1)
        return false;
    const struct ir_regdecl *d = decl_of(dm, f, o);
    if (!d)
        return false;
    *k = type_kind(d->type);
    *size = ir_type_size((enum ir_type)d->type);
    return true;
}

/* The instruction types of in, in order (at most n). */
static unsigned insn_types(const struct ir_func *f, const struct ir_insn *in, unsigned *t,
                           unsigned n)
{
    unsigned c = 0;
    for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods && c < n; i++) {
        enum ir_mod md = (enum ir_mod)f->mods[in->mod + i];
        if (ir_mod_kind(md) == MK_TYPE)
            t[c++] = (unsigned)ir_mod_value(md);
    }
    return c;
}

/* The elements of data operand o (a {...} vector or one register) each hold at least `size`
 * bytes and are no predicates (but among .b32 registers); `nofloat`: no floating-point registers either (sured.b). As
 * ptxas types the data of suld / sust / sured. */
static void surf_data(struct vctx *v, const struct declmap *dm, const struct ir_insn *in,
                      const struct ir_opnd *o, unsigned idx, unsigned size, bool nofloat)
{
    const struct ir_func *f = v->f;
    const struct ir_opnd *e = o;
    unsigned n = 1;
    if (o->kind == OPK_VEC) {
        if (o->first + o->n > f->nopnds)
            return;
        e = &f->opnds[o->first];
        n = o->n;
    }
    /* ptxas takes a predicate among the 32-bit bit-typed registers of a .b32 vector
       ({%r1, %p1}), not alone, beside a typed register or in a vector of predicates */
    bool pred_ok = o->kind == OPK_VEC && size == 4, any = false;
    for (unsigned j = 0; pred_ok && j < n; j++) {
        enum tkind k;
        unsigned sz;
        if (reg_shape(dm, f, &e[j], &k, &sz) && k != TK_PRED) {
            pred_ok = k == TK_B && sz == 4;
            any = true;
        }
    }
    pred_ok = pred_ok && any;
    for (unsigned j = 0; j < n; j++) {
        enum tkind k;
        unsigned sz;
        if (!reg_shape(dm, f, &e[j], &k, &sz) || (k == TK_PRED && pred_ok))
            continue;
        if (k == TK_PRED || sz < size || (nofloat && k == TK_F)) {
            VERR(v, in, "operand %u of '%s': a %s register cannot hold .b%u surface data", idx + 1,
                 ir_op_name((enum ir_op)in->op),
                 k == TK_PRED           ? "predicate"
                 : k == TK_F && nofloat ? "floating-point"
                                        : "narrower",
                 8 * size);
            return;
        }
    }
}

/* wmma.store's fragment: 32-bit bit/f16x2 registers for .f16, 32-bit non-float for .s32,
 * 32-bit for .f32, 64-bit .f64/.b64 for .f64; no other type. */
static void wmma_store(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    const unsigned t = in->type[0];
    if (t != T_F16 && t != T_F32 && t != T_S32 && t != T_F64) {
        VERR(v, in, "'wmma.store' takes type .f16, .f32, .s32 or .f64, not .%s",
             ir_type_name((enum ir_type)t));
        return;
    }
    const struct ir_opnd *o = in->nopnd >= 2 ? ir_opnd(f, in, 1) : NULL;
    if (!o || o->kind != OPK_VEC || o->first + o->n > f->nopnds)
        return;
    /* a vector with a bit-typed element counts as .bN of its size (ptxas's vector rule):
       {%r1, %f1} holds .s32 data, {%f1, %f2} does not */
    bool bits = false;
    for (unsigned j = 0; j < o->n; j++) {
        enum tkind k;
        unsigned sz;
        bits |= reg_shape(dm, f, &f->opnds[o->first + j], &k, &sz) && k == TK_B;
    }
    for (unsigned j = 0; j < o->n; j++) {
        enum tkind k;
        unsigned sz;
        if (!reg_shape(dm, f, &f->opnds[o->first + j], &k, &sz))
            continue;
        bool ok = t == T_F64   ? sz == 8 && (k == TK_F || k == TK_B)
                  : t == T_F16 ? sz == 4 && (k == TK_B || k == TK_H2)
                  : t == T_S32 ? sz == 4 && (k != TK_F || bits)
                               : sz == 4 && k != TK_PRED;
        if (!ok) {
            VERR(v, in,
                 "operand 2 of 'wmma.store': a fragment element of type .%s does not "
                 "hold .%s data",
                 ir_type_name((enum ir_type)decl_of(dm, f, &f->opnds[o->first + j])->type),
                 ir_type_name((enum ir_type)t));
            return;
        }
    }
}

/* wgmma.mma_async{.sp}: the D type its A type allows (.f16 from .f16 / fp8, .f32 from every
 * float type, .s32 from .s8 / .u8 / .b1), A a 64-bit descriptor register when not a
 * fragment vector, the sparsity selector a constant, scale-d a predicate or a constant. */
static void wgmma(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    const char *name = ir_op_name((enum ir_op)in->op);
    const bool sp = in->op == OP_WGMMA_MMA_ASYNC_SP;
    unsigned t[4]; /* a fourth counts too: wgmma...f32.bf16.bf16.bf16 is refused */
    const unsigned nt = insn_types(f, in, t, 4);
    if (nt != 3)
        VERR(v, in, "'%s' takes three types (D, A and B)", name);
    const struct ir_opnd *dv = in->nopnd ? ir_opnd(f, in, 0) : NULL;
    if (dv && dv->kind == OPK_VEC && dv->first + dv->n <= f->nopnds) {
        enum tkind k0 = TK_OTHER;
        for (unsigned j = 0; j < dv->n; j++) {
            enum tkind ek;
            unsigned esz;
            if (!reg_shape(dm, f, &f->opnds[dv->first + j], &ek, &esz) || ek == TK_B)
                continue;
            /* a predicate is a kind of its own: it mixes with bit-typed registers only
               ({%r1, %r2, %p1, %r4} of .b32 registers is taken, {%f1, %p1} not) */
            if (k0 != TK_OTHER && ek != k0) {
                VERR(v, in, "operand 1 of '%s': vector elements of different types", name);
                break;
            }
            k0 = ek;
        }
    }
    if (nt == 3) {
        const unsigned d = t[0], a = t[1];
        const bool fp8 = a == T_E4M3 || a == T_E5M2, i8 = a == T_S8 || a == T_U8 || a == T_B1;
        const bool ok = d == T_F16   ? a == T_F16 || fp8
                        : d == T_F32 ? a == T_F16 || a == T_BF16 || a == T_TF32 || fp8
                        : d == T_S32 ? i8
                                     : false;
        if (!ok)
            VERR(v, in, "'%s' does not take D type .%s with A type .%s", name,
                 ir_type_name((enum ir_type)d), ir_type_name((enum ir_type)a));
    }
    enum tkind k;
    unsigned sz;
    if (in->nopnd >= 2 && reg_shape(dm, f, ir_opnd(f, in, 1), &k, &sz) &&
        (sz != 8 || (k != TK_B && k != TK_I)))
        VERR(v, in, "operand 2 of '%s': the A descriptor is a 64-bit integer register", name);
    if (sp && in->nopnd >= 5 && ir_opnd(f, in, 4)->kind != OPK_IMM)
        VERR(v, in, "operand 5 of '%s': the sparsity selector is a constant", name);
    const unsigned sd = sp ? 5 : 3;
    if (in->nopnd > sd && reg_shape(dm, f, ir_opnd(f, in, sd), &k, &sz) && k != TK_PRED)
        VERR(v, in, "operand %u of '%s': scale-d is a predicate or a constant", sd + 1, name);
}

/* cp.async [d], [s], cp-size{, src-size | ignore-src}{, cache-policy}: cp-size a constant,
 * src-size a 32-bit integer (or the ignore-src predicate), the policy (.L2::cache_hint) a
 * 64-bit integer. */
static void cp_async(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    if (in->nopnd >= 3 && ir_opnd(f, in, 2)->kind != OPK_IMM)
        VERR(v, in, "operand 3 of 'cp.async': cp-size is a constant");
    const bool hint = (in->fl & IR_FL(FL_L2_HINT)) != 0;
    const unsigned nsz = in->nopnd - (hint ? 1u : 0u); /* operands before the policy */
    enum tkind k;
    unsigned sz;
    if (nsz >= 4 && reg_shape(dm, f, ir_opnd(f, in, 3), &k, &sz) && k != TK_PRED &&
        (sz != 4 || (k != TK_B && k != TK_I)))
        VERR(v, in,
             "operand 4 of 'cp.async': src-size is a 32-bit integer register (or the "
             "ignore-src predicate)");
    if (hint && in->nopnd >= 4 && reg_shape(dm, f, ir_opnd(f, in, in->nopnd - 1), &k, &sz) &&
        (sz != 8 || (k != TK_B && k != TK_I)))
        VERR(v, in, "operand %u of 'cp.async': the cache policy is a 64-bit integer register",
             in->nopnd);
}

/* dp4a / dp2a: two types, each .u32 or .s32; dp2a a .lo or .hi; every operand a 32-bit
 * integer register. */
static void dp_ab(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    const char *name = ir_op_name((enum ir_op)in->op);
    unsigned t[3];
    const unsigned n = insn_types(f, in, t, 3);
    if (n != 2 || (t[0] != T_U32 && t[0] != T_S32) || (t[1] != T_U32 && t[1] != T_S32))
        VERR(v, in, "'%s' takes two types, each .u32 or .s32", name);
    if (in->op == OP_DP2A && !has_mod(f, in, MOD_LO) && !has_mod(f, in, MOD_HI))
        VERR(v, in, "'dp2a' needs .lo or .hi");
    for (unsigned i = 0; i < in->nopnd; i++)
        if (!int_reg_ok(dm, f, ir_opnd(f, in, i), 4)) {
            VERR(v, in, "operand %u of '%s' is a 32-bit integer register", i + 1, name);
            break;
        }
}

/* txq / suq: type .b32 and exactly one query the instruction has (txq.level: .width, .height
 * or .depth, and its level operand, a 32-bit integer). */
static void query(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    static const enum ir_mod tq[] = {MOD_WIDTH,         MOD_HEIGHT,
                                     MOD_DEPTH,         MOD_CHANNEL_DATA_TYPE,
                                     MOD_CHANNEL_ORDER, MOD_NORMALIZED_COORDS,
                                     MOD_ARRAY_SIZE,    MOD_NUM_MIPMAP_LEVELS,
                                     MOD_NUM_SAMPLES,   MOD_FILTER_MODE,
                                     MOD_ADDR_MODE_0,   MOD_ADDR_MODE_1,
                                     MOD_ADDR_MODE_2,   MOD_FORCE_UNNORMALIZED_COORDS,
                                     MOD_MEMORY_LAYOUT};
    const struct ir_func *f = v->f;
    const bool txq = in->op == OP_TXQ, level = txq && has_mod(f, in, MOD_LEVEL);
    const char *name = ir_op_name((enum ir_op)in->op);
    if (in->type[0] != T_B32)
        VERR(v, in, "'%s' takes type .b32", name);
    unsigned nq = 0;
    enum ir_mod q = MOD_WIDTH;
    for (unsigned i = 0; i < sizeof tq / sizeof tq[0]; i++)
        if (has_mod(f, in, tq[i])) {
            nq++;
            q = tq[i];
        }
    if (nq != 1) {
        VERR(v, in, "'%s' needs exactly one query (.width, .height, ...), not %u", name, nq);
        return;
    }
    const bool ok = level ? q == MOD_WIDTH || q == MOD_HEIGHT || q == MOD_DEPTH
                    : txq ? q != MOD_MEMORY_LAYOUT
                          : q == MOD_WIDTH || q == MOD_HEIGHT || q == MOD_DEPTH ||
                                q == MOD_CHANNEL_DATA_TYPE || q == MOD_CHANNEL_ORDER ||
                                q == MOD_ARRAY_SIZE || q == MOD_MEMORY_LAYOUT;
    if (!ok)
        VERR(v, in, "'%s%s' does not take the query .%s", name, level ? ".level" : "",
             ir_mod_name(q));
    if (level && in->nopnd < 3)
        VERR(v, in, "'txq.level' needs the level operand");
    else if (txq && !level && in->nopnd > 2)
        VERR(v, in, "'txq' takes a level operand only with .level");
    else if (level && !int_reg_ok(dm, f, ir_opnd(f, in, 2), 4))
        VERR(v, in, "operand 3 of 'txq.level': the level is a 32-bit integer register");
}

/* cp.async.bulk{.prefetch}: the size a 32-bit integer, the multicast CTA mask and the byte
 * mask (.cp_mask) 16-bit integers, the cache policy (.L2::cache_hint) a 64-bit integer. */
static void bulk(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    const char *name = ir_op_name((enum ir_op)in->op);
    const unsigned si = in->op == OP_CP_ASYNC_BULK ? 2 : 1;
    if (in->nopnd > si && !int_reg_ok(dm, f, ir_opnd(f, in, si), 4))
        VERR(v, in, "operand %u of '%s': the size is a 32-bit integer register", si + 1, name);
    /* the value operands after the size, in order: ctaMask, policy, byteMask */
    const bool mc = has_mod(f, in, MOD_MULTICAST_CLUSTER), hint = (in->fl & IR_FL(FL_L2_HINT));
    const bool bm = has_mod(f, in, MOD_CP_MASK);
    unsigned role = 0; /* 0 ctaMask, 1 policy, 2 byteMask */
    for (unsigned i = si + 1; i < in->nopnd; i++) {
        const struct ir_opnd *o = ir_opnd(f, in, i);
        if (o->kind == OPK_ADDR)
            continue;
        while (role < 3 && !(role == 0 ? mc : role == 1 ? hint : bm))
            role++;
        if (role == 3) {
            /* ptxas: "Arguments mismatch" (a CTA mask without .multicast::cluster, ...) */
            VERR(v, in, "operand %u of '%s': no modifier takes it (the operands after the "
                        "size are the CTA mask of .multicast::cluster, the policy of "
                        ".L2::cache_hint and the mask of .cp_mask, in that order)",
                 i + 1, name);
            break;
        }
        const unsigned want = role == 1 ? 8 : 2;
        if (!int_reg_ok(dm, f, o, want))
            VERR(v, in, "operand %u of '%s': the %s is a %u-bit integer register", i + 1, name,
                 role == 0   ? "multicast CTA mask"
                 : role == 1 ? "cache policy"
                             : "byte mask",
                 8 * want);
        role++;
    }
}

/* The video instructions: three types (vset, vset2, vset4: two), each .u32 or .s32, vshl /
 * vshr's b type .u32 and one of .clamp / .wrap, vset's comparison; a scalar one with a
 * secondary operation (.add, .min, .max) or a selector on d takes c; every register operand
 * 32-bit integer. */
static void video(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    const char *name = ir_op_name((enum ir_op)in->op);
    const bool set = in->op == OP_VSET || in->op == OP_VSET2 || in->op == OP_VSET4;
    const bool shift = in->op == OP_VSHL || in->op == OP_VSHR;
    const bool scalar = in->op == OP_VADD || in->op == OP_VSUB || in->op == OP_VABSDIFF ||
                        in->op == OP_VMIN || in->op == OP_VMAX || shift || in->op == OP_VSET;
    unsigned t[4];
    const unsigned n = insn_types(f, in, t, 4), want = set ? 2 : 3;
    bool ok = n == want;
    for (unsigned i = 0; ok && i < n; i++)
        ok = t[i] == T_U32 || t[i] == T_S32;
    if (!ok)
        VERR(v, in, "'%s' takes %u types, each .u32 or .s32", name, want);
    else if (shift && t[2] != T_U32)
        VERR(v, in, "'%s' takes a .u32 shift amount (b type), not .%s", name,
             ir_type_name((enum ir_type)t[2]));
    if (shift && !(in->fl & IR_FL(FL_CLAMP)) == !(in->fl & IR_FL(FL_WRAP)))
        VERR(v, in, "'%s' needs one of .clamp and .wrap", name);
    if (set && in->cmp == CMP_NONE)
        VERR(v, in, "'%s' needs a comparison", name);
    if (scalar && in->nopnd == 3) {
        const struct ir_opnd *d = ir_opnd(f, in, 0);
        if (has_mod(f, in, MOD_ADD) || has_mod(f, in, MOD_MIN) || has_mod(f, in, MOD_MAX))
            VERR(v, in, "'%s' with a secondary operation takes c", name);
        else if (d->kind == OPK_REG && d->imm.u)
            VERR(v, in, "'%s' with a selector on d merges into c: it takes c", name);
    }
    for (unsigned i = 0; i < in->nopnd; i++)
        if (!int_reg_ok(dm, f, ir_opnd(f, in, i), 4)) {
            VERR(v, in, "operand %u of '%s' is a 32-bit integer register", i + 1, name);
            break;
        }
}

/* bar.red / barrier.red d, a{, b}, {!}c: .popc with type .u32 and a 32-bit integer d, .and /
 * .or with type .pred and a predicate d; no other operation, no .sync; a and b 32-bit
 * integers, c a predicate or a constant. */
static void bar_red(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    const char *name = ir_op_name((enum ir_op)in->op);
    const bool popc = has_mod(f, in, MOD_POPC);
    const bool logic = has_mod(f, in, MOD_AND) || has_mod(f, in, MOD_OR);
    if (!popc && !logic) {
        VERR(v, in, "'%s.red' takes .popc, .and or .or", name);
        return;
    }
    const unsigned want = popc ? T_U32 : T_PRED;
    if (in->type[0] != want)
        VERR(v, in, "'%s.red.%s' takes type .%s", name, popc ? "popc" : "and/.or",
             ir_type_name((enum ir_type)want));
    if (has_mod(f, in, MOD_SYNC))
        VERR(v, in, "'%s.red' takes no .sync", name);
    if (in->nopnd < 3) {
        VERR(v, in, "'%s.red' takes d, the barrier, [the thread count,] and a predicate", name);
        return;
    }
    enum tkind k;
    unsigned sz;
    if (reg_shape(dm, f, ir_opnd(f, in, 0), &k, &sz) &&
        (popc ? k == TK_PRED || k == TK_F || sz != 4 : k != TK_PRED))
        VERR(v, in, "operand 1 of '%s.red': d is a %s", name,
             popc ? "32-bit integer register" : "predicate");
    for (unsigned i = 1; i + 1 < in->nopnd; i++)
        if (!int_reg_ok(dm, f, ir_opnd(f, in, i), 4))
            VERR(v, in, "operand %u of '%s.red' is a 32-bit integer", i + 1, name);
    const struct ir_opnd *c = ir_opnd(f, in, in->nopnd - 1);
    if ((c->kind != OPK_REG && c->kind != OPK_IMM) ||
        (reg_shape(dm, f, c, &k, &sz) && k != TK_PRED))
        VERR(v, in, "operand %u of '%s.red' is a predicate (or a constant)", in->nopnd, name);
}

/* barrier.cluster: .arrive (with .release or .relaxed) or .wait (with .acquire), one of them. */
static void bar_cluster(struct vctx *v, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    const bool arrive = in->mode == MODE_ARRIVE || has_mod(f, in, MOD_ARRIVE);
    const bool wait = has_mod(f, in, MOD_WAIT);
    if (arrive == wait) {
        VERR(v, in, "'barrier.cluster' needs exactly one of .arrive and .wait");
        return;
    }
    if (arrive && has_mod(f, in, MOD_ACQUIRE))
        VERR(v, in, "'barrier.cluster.arrive' takes .release or .relaxed, not .acquire");
    if (wait && (has_mod(f, in, MOD_RELEASE) || has_mod(f, in, MOD_RELAXED)))
        VERR(v, in, "'barrier.cluster.wait' takes .acquire only");
}

/* The bulk copies' state spaces, destination then source, as ptxas 13 takes them ("State
 * space incorrect for instruction", "State space modifier required"; probed_forms11.ptx):
 * cp.async.bulk .shared::cluster.global, .shared::cta.global, .global.shared::cta or
 * .shared::cluster.shared::cta; cp.reduce.async.bulk the last two; cp.async.bulk.tensor the
 * first three; cp.reduce.async.bulk.tensor .global.shared::cta; the prefetches .global
 * (after .L2). */
static void bulk_spaces(struct vctx *v, const struct ir_insn *in)
{
    static const char *const copy[] = {"shared::cluster.global", "shared::cta.global",
                                       "global.shared::cta", "shared::cluster.shared::cta", NULL};
    static const char *const red[] = {"global.shared::cta", "shared::cluster.shared::cta", NULL};
    static const char *const tensor[] = {"shared::cluster.global", "shared::cta.global",
                                         "global.shared::cta", NULL};
    static const char *const tred[] = {"global.shared::cta", NULL};
    static const char *const pre[] = {"global", NULL};
    const char *const *ok;
    switch (in->op) {
    case OP_CP_ASYNC_BULK: ok = copy; break;
    case OP_CP_REDUCE_ASYNC_BULK: ok = red; break;
    case OP_CP_ASYNC_BULK_TENSOR: ok = tensor; break;
    case OP_CP_REDUCE_ASYNC_BULK_TENSOR: ok = tred; break;
    default: ok = pre; break;
    }
    const struct ir_func *f = v->f;
    char got[64] = "";
    size_t n = 0;
    for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++) {
        const enum ir_mod md = (enum ir_mod)f->mods[in->mod + i];
        if (ir_mod_kind(md) == MK_SPACE && n < sizeof got)
            n += (size_t)snprintf(got + n, sizeof got - n, "%s%s", n ? "." : "", ir_mod_name(md));
    }
    for (unsigned k = 0; ok[k]; k++)
        if (strcmp(got, ok[k]) == 0)
            return;
    char want[160] = "";
    size_t w = 0;
    for (unsigned k = 0; ok[k] && w < sizeof want; k++)
        w += (size_t)snprintf(want + w, sizeof want - w, "%s.%s",
                              k ? (ok[k + 1] ? ", " : " or ") : "", ok[k]);
    VERR(v, in, "'%s' takes the state spaces %s, not %s%s", ir_op_name((enum ir_op)in->op), want,
         n ? "." : "none", got);
}

static bool addr_reg_ok(const struct declmap *dm, const struct ir_func *f, const struct ir_opnd *o,
                        unsigned size);

/* Loads and stores wider than 128 bits per lane (.v8.b32, .v4.b64; sm_100): only ld / st of
 * global (or generic) memory; ldu and st.async move at most 128 bits (ptxas 13: "global state
 * space expected for feature '256 bit wide load/store'", "Vector type too large, exceeds 128
 * bit limit"; probed_forms11.ptx). */
static void wide_ldst(struct vctx *v, const struct ir_insn *in)
{
    const unsigned bytes = ir_type_size((enum ir_type)in->type[0]) * (in->vec > 1 ? in->vec : 1);
    if (bytes <= 16)
        return;
    const char *name = ir_op_name((enum ir_op)in->op);
    if (in->op == OP_LDU || in->op == OP_ST_ASYNC)
        VERR(v, in, "'%s' moves at most 128 bits per thread, not %u", name, 8 * bytes);
    else if (in->space != SP_NONE && in->space != SP_GLOBAL)
        VERR(v, in, "'%s' of %u bits per thread needs global memory (.global or generic)", name,
             8 * bytes);
}

/* tensormap.cp_fenceproxy: ptxas 13 requires every qualifier of its one form
 * (.global.shared::cta.tensormap::generic.release.scope.sync.aligned): "Unexpected number of
 * state spaces", ".tensormap::generic / .release / .sync / .aligned modifier required", "scope
 * modifier required" (scripts/ptxas-diff.pl moddrop mutations of fixtures/ptx/isa/async.ptx). */
static void tensormap_cp_fenceproxy(struct vctx *v, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    static const struct {
        enum ir_mod md;
        const char *name;
    } req[] = {{MOD_GLOBAL, ".global"},   {MOD_SHARED_CTA, ".shared::cta"},
               {MOD_TENSORMAP_GENERIC, ".tensormap::generic"},
               {MOD_RELEASE, ".release"}, {MOD_SYNC, ".sync"}};
    for (unsigned i = 0; i < sizeof req / sizeof req[0]; i++)
        if (!has_mod(f, in, req[i].md)) {
            VERR(v, in, "'tensormap.cp_fenceproxy' needs %s (its one form is "
                        ".global.shared::cta.tensormap::generic.release.scope.sync.aligned)",
                 req[i].name);
            return;
        }
    if (!(in->fl & IR_FL(FL_ALIGNED)))
        VERR(v, in, "'tensormap.cp_fenceproxy' needs .aligned");
    else if (!has_mod(f, in, MOD_CTA) && !has_mod(f, in, MOD_CLUSTER) &&
             !has_mod(f, in, MOD_GPU) && !has_mod(f, in, MOD_SYS))
        VERR(v, in, "'tensormap.cp_fenceproxy' needs a scope (.cta, .cluster, .gpu or .sys)");
}

/* tensormap.replace: the address is a 32- or 64-bit register; the new value's type is .b64
 * for the fields .global_address and .global_stride and .b32 for the others (ptxas 13: "Unexpected instruction types specified
 * for 'tensormap.replace'" for any other type, "Illegal modifier '.FIELD'" for the other width;
 * probed_forms11.ptx). */
static void tensormap_replace(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    /* ptxas 13: a 16-bit address is an "Arguments mismatch" */
    if (in->nopnd >= 1 && !addr_reg_ok(dm, f, ir_opnd(f, in, 0), 0))
        VERR(v, in, "operand 1 of 'tensormap.replace': the address register is 32- or 64-bit");
    const unsigned t = in->type[in->type[0] == T_B1024 ? 1 : 0]; /* after .b1024 */
    const bool wide = has_mod(f, in, MOD_GLOBAL_ADDRESS) || has_mod(f, in, MOD_GLOBAL_STRIDE);
    unsigned ts[4];
    if (insn_types(f, in, ts, 4) > 2) /* .b1024 and one value type (probed_forms_s10.ptx) */
        VERR(v, in, "'tensormap.replace' takes one value type after .b1024");
    else if (t != T_B32 && t != T_B64)
        VERR(v, in, "'tensormap.replace' takes type .b32 or .b64, not .%s",
             ir_type_name((enum ir_type)t));
    else if ((t == T_B64) != wide)
        VERR(v, in, "'tensormap.replace' takes type .b64 for .global_address and .global_stride, "
             ".b32 for the other fields");
}

/* The base register of address operand o (when it has one) of a `size`-byte integer (size
 * 0: 4 or 8 bytes)? */
static bool addr_reg_ok(const struct declmap *dm, const struct ir_func *f, const struct ir_opnd *o,
                        unsigned size)
{
    if (o->kind != OPK_ADDR || o->slot == IR_NOSLOT)
        return true;
    const struct ir_opnd r = {
        .kind = OPK_REG, .rf = o->rf, .slot = o->slot, .n = 1, .sym = IR_NOSYM};
    return size ? int_reg_ok(dm, f, &r, size)
                : int_reg_ok(dm, f, &r, 4) || int_reg_ok(dm, f, &r, 8);
}

/* tcgen05.mma operand lists and block scaling, as ptxas 13 checks them: [sp-meta-tmem] after b
 * exactly with .sp; the disable-output-lane vector of four values (eight with .cta_group::2),
 * none on .ws; .block_scale goes with (and only with)
 * .kind::mxf8f6f4 / mxf4 / mxf4nvf4 and not on .ws (whose kinds are f16, tf32, f8f6f4 and
 * i8); at most one scale-vector size, only with .block_scale: .kind::mxf8f6f4 .scale_vec::1X
 * or .block32, .kind::mxf4 .scale_vec::2X or .block32, .kind::mxf4nvf4 one of .scale_vec::2X /
 * 4X, .block16 / .block32 (required); a block-scaled MMA names [scale-A-tmem] and
 * [scale-B-tmem] after idesc and then only enable-input-d, any other has no address there. */
static void tcgen05_mma_form(struct vctx *v, const struct ir_insn *in, const char *name)
{
    const struct ir_func *f = v->f;
    const bool sp = in->op == OP_TCGEN05_MMA_SP || in->op == OP_TCGEN05_MMA_WS_SP;
    if (in->nopnd > 3 && sp != (ir_opnd(f, in, 3)->kind == OPK_ADDR)) {
        VERR(v, in, sp ? "'%s' takes [sp-meta-tmem] after b" : "'%s' takes an address after b "
                                                              "only with .sp ([sp-meta-tmem])",
             name);
        return;
    }
    /* the disable-output-lane vector: four 32-bit values, eight with .cta_group::2 (ptxas 13:
       "Argument vector size mismatch") */
    const unsigned nmask = has_mod(f, in, MOD_CTA_GROUP_2) ? 8 : 4;
    for (unsigned j = 0; j < in->nopnd; j++) {
        const struct ir_opnd *o = ir_opnd(f, in, j);
        if (o->kind == OPK_VEC && o->n != nmask && in->op != OP_TCGEN05_MMA_WS &&
            in->op != OP_TCGEN05_MMA_WS_SP) {
            VERR(v, in, "'%s' takes a disable-output-lane vector of %u 32-bit values with "
                        ".cta_group::%u",
                 name, nmask, nmask / 4);
            return;
        }
    }
    if (in->op == OP_TCGEN05_MMA_WS || in->op == OP_TCGEN05_MMA_WS_SP)
        for (unsigned j = 0; j < in->nopnd; j++)
            if (ir_opnd(f, in, j)->kind == OPK_VEC) {
                VERR(v, in, "'%s' takes no disable-output-lane vector", name);
                return;
            }
    const bool bs = has_mod(f, in, MOD_BLOCK_SCALE);
    const bool ws = in->op == OP_TCGEN05_MMA_WS || in->op == OP_TCGEN05_MMA_WS_SP;
    const bool k8 = has_mod(f, in, MOD_KIND_MXF8F6F4), k4 = has_mod(f, in, MOD_KIND_MXF4),
               knv = has_mod(f, in, MOD_KIND_MXF4NVF4);
    static const enum ir_mod vecs[] = {MOD_SCALE_VEC_1X, MOD_SCALE_VEC_2X, MOD_SCALE_VEC_4X,
                                       MOD_BLOCK16, MOD_BLOCK32};
    static const char *const vname[] = {"scale_vec::1X", "scale_vec::2X", "scale_vec::4X",
                                        "block16", "block32"};
    /* the sizes each kind takes: bit i for vecs[i] */
    const unsigned allowed = k8 ? 0x11u : k4 ? 0x12u : knv ? 0x1eu : 0;
    unsigned nvec = 0, which = 0;
    for (unsigned i = 0; i < 5; i++)
        if (has_mod(f, in, vecs[i]))
            nvec++, which = i;
    if (ws && (bs || k8 || k4 || knv)) {
        VERR(v, in, "'%s' takes .kind::f16, .kind::tf32, .kind::f8f6f4 or .kind::i8, without "
                    ".block_scale", name);
        return;
    }
    if (bs != (k8 || k4 || knv)) {
        VERR(v, in, bs ? "'%s' takes .block_scale only with .kind::mxf8f6f4, .kind::mxf4 or "
                         ".kind::mxf4nvf4"
                       : "'%s' with .kind::mxf8f6f4, .kind::mxf4 or .kind::mxf4nvf4 needs "
                         ".block_scale", name);
        return;
    }
    if (nvec > 1)
        VERR(v, in, "'%s' takes one scale-vector size (.scale_vec::* or .block16 / .block32)",
             name);
    else if (nvec && !bs)
        VERR(v, in, "'%s': .%s needs .block_scale", name, vname[which]);
    else if (nvec && !(allowed >> which & 1))
        VERR(v, in, "'%s' with .kind::%s does not take .%s", name,
             k8 ? "mxf8f6f4" : k4 ? "mxf4" : "mxf4nvf4", vname[which]);
    else if (knv && !nvec)
        VERR(v, in, "'%s' with .kind::mxf4nvf4 needs a scale-vector size (.scale_vec::2X / 4X, "
                    ".block16 or .block32)", name);
    /* the operands after idesc (after [d], a, b{, [sp-meta]}) */
    unsigned i = 3;
    while (i < in->nopnd && ir_opnd(f, in, i)->kind == OPK_ADDR)
        i++;
    unsigned naddr = 0;
    for (i++; i < in->nopnd && ir_opnd(f, in, i)->kind == OPK_ADDR; i++)
        naddr++;
    if (bs ? naddr != 2 || i + 1 != in->nopnd : naddr != 0)
        VERR(v, in, bs ? "'%s' with .block_scale takes [d-tmem], a, b, idesc, [scale-A-tmem], "
                         "[scale-B-tmem], enable-input-d (.sp: [sp-meta-tmem] before idesc)"
                       : "'%s' takes scale-factor addresses only with .block_scale", name);
}

/* The tcgen05 instructions that carry a .cta_group. */
static bool tc5_grouped(unsigned op)
{
    switch (op) {
    case OP_TCGEN05_ALLOC: case OP_TCGEN05_DEALLOC: case OP_TCGEN05_RELINQUISH_ALLOC_PERMIT:
    case OP_TCGEN05_COMMIT: case OP_TCGEN05_CP: case OP_TCGEN05_SHIFT: case OP_TCGEN05_MMA:
    case OP_TCGEN05_MMA_SP: case OP_TCGEN05_MMA_WS: case OP_TCGEN05_MMA_WS_SP:
        return true;
    default:
        return false;
    }
}

/* tcgen05: alloc, dealloc, relinquish_alloc_permit, commit, cp, shift and the mmas need their
 * .cta_group, one value in a function (ptxas 13: "Function uses single CTA(.cta_group::1) and
 * CTA pair granularity(.cta_group::2) and that is not allowed"; the ISA: "All tcgen05
 * instructions within a kernel must specify the same value for the .cta_group qualifier");
 * alloc / dealloc .b32 and commit .b64, their addresses 32- or 64-bit, column counts and
 * tensor-memory addresses 32-bit integers; ld.red .min or .max of .f32 / .u32 /
 * .s32 (.abs and .NaN only for .f32) into 32-bit registers from a 32-bit reduction value and
 * tensor-memory address; mma a .kind, its A a 64-bit descriptor when not in tensor memory,
 * idesc a 32-bit integer, enable-input-d a predicate or a constant; wait .sync.aligned. */
static void tcgen05(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    const char *name = ir_op_name((enum ir_op)in->op);
    const unsigned t = in->type[0];
    switch (in->op) { /* ptxas 13: ".cta_group modifier required for instruction ..." */
    case OP_TCGEN05_ALLOC: case OP_TCGEN05_DEALLOC: case OP_TCGEN05_RELINQUISH_ALLOC_PERMIT:
    case OP_TCGEN05_COMMIT: case OP_TCGEN05_CP: case OP_TCGEN05_SHIFT: case OP_TCGEN05_MMA:
    case OP_TCGEN05_MMA_SP: case OP_TCGEN05_MMA_WS: case OP_TCGEN05_MMA_WS_SP:
        if (!has_mod(f, in, MOD_CTA_GROUP_1) && !has_mod(f, in, MOD_CTA_GROUP_2))
            VERR(v, in, "'%s' needs .cta_group::1 or .cta_group::2", name);
        else /* one .cta_group a function: the first tcgen05 instruction with one sets it */
            for (const struct ir_insn *p = f->insns; p < in; p++) {
                if (!tc5_grouped(p->op))
                    continue;
                const bool g1 = has_mod(f, p, MOD_CTA_GROUP_1), g2 = has_mod(f, p, MOD_CTA_GROUP_2);
                if (!g1 && !g2)
                    continue;
                if (g1 != has_mod(f, in, MOD_CTA_GROUP_1))
                    VERR(v, in, "'%s' with .cta_group::%d in a function whose tcgen05 "
                                "instructions have .cta_group::%d (one .cta_group a function)",
                         name, g1 ? 2 : 1, g1 ? 1 : 2);
                break;
            }
        break;
    default:
        break;
    }
    switch (in->op) {
    case OP_TCGEN05_RELINQUISH_ALLOC_PERMIT:
        if (!has_mod(f, in, MOD_SYNC) || !(in->fl & IR_FL(FL_ALIGNED)))
            VERR(v, in, "'%s' needs .sync.aligned", name);
        break;
    case OP_TCGEN05_CP:
    case OP_TCGEN05_SHIFT:
        /* [taddr]: a 32-bit tensor-memory address ("Arguments mismatch") */
        if (in->nopnd && !addr_reg_ok(dm, f, ir_opnd(f, in, 0), 4))
            VERR(v, in, "operand 1 of '%s': a tensor-memory address register is 32-bit", name);
        break;
    case OP_TCGEN05_ALLOC:
    case OP_TCGEN05_DEALLOC:
    case OP_TCGEN05_COMMIT: {
        /* alloc / dealloc: ".sync modifier required", ".aligned modifier required" */
        if (in->op != OP_TCGEN05_COMMIT &&
            (!has_mod(f, in, MOD_SYNC) || !(in->fl & IR_FL(FL_ALIGNED))))
            VERR(v, in, "'%s' needs .sync.aligned", name);
        /* commit's .multicast::cluster CTA mask: a 16-bit register ("Arguments mismatch") */
        if (in->op == OP_TCGEN05_COMMIT && in->nopnd > 1) {
            enum tkind k;
            unsigned sz;
            const struct ir_opnd *m = ir_opnd(f, in, 1);
            if (!reg_shape(dm, f, m, &k, &sz) || sz != 2 || (k != TK_B && k != TK_I))
                VERR(v, in, "operand 2 of '%s': the CTA mask is a 16-bit register", name);
        }
        const unsigned want = in->op == OP_TCGEN05_COMMIT ? T_B64 : T_B32;
        if (t != want)
            VERR(v, in, "'%s' takes type .%s", name, ir_type_name((enum ir_type)want));
        for (unsigned i = 0; i < in->nopnd; i++) {
            const struct ir_opnd *o = ir_opnd(f, in, i);
            if (o->kind == OPK_ADDR ? !addr_reg_ok(dm, f, o, 0)
                                    : in->op != OP_TCGEN05_COMMIT && !int_reg_ok(dm, f, o, 4))
                VERR(v, in, "operand %u of '%s': %s", i + 1, name,
                     o->kind == OPK_ADDR ? "an address register is 32- or 64-bit"
                                         : "a 32-bit integer register");
        }
        break;
    }
    case OP_TCGEN05_LD_RED: {
        const bool mn = has_mod(f, in, MOD_MIN) || has_mod(f, in, MOD_MAX);
        if (!mn || has_mod(f, in, MOD_ADD))
            VERR(v, in, "'tcgen05.ld.red' takes the operation .min or .max");
        if (t != T_F32 && t != T_U32 && t != T_S32)
            VERR(v, in, "'tcgen05.ld.red' takes type .f32, .u32 or .s32");
        else if (t != T_F32 && (in->fl & (IR_FL(FL_ABS) | IR_FL(FL_NAN))))
            VERR(v, in, "'tcgen05.ld.red' takes .abs and .NaN only with .f32");
        if (in->nopnd >= 3) {
            enum tkind k;
            unsigned sz;
            const struct ir_opnd *d = ir_opnd(f, in, 0);
            for (unsigned j = 0; d->kind == OPK_VEC && d->first + d->n <= f->nopnds && j < d->n;
                 j++)
                if (reg_shape(dm, f, &f->opnds[d->first + j], &k, &sz) &&
                    (sz != 4 || k == TK_PRED)) {
                    VERR(v, in,
                         "operand 1 of 'tcgen05.ld.red': the elements are 32-bit "
                         "registers");
                    break;
                }
            if (reg_shape(dm, f, ir_opnd(f, in, 1), &k, &sz) && (sz != 4 || k == TK_PRED))
                VERR(v, in, "operand 2 of 'tcgen05.ld.red' is a 32-bit register");
            if (!addr_reg_ok(dm, f, ir_opnd(f, in, 2), 4))
                VERR(v, in,
                     "operand 3 of 'tcgen05.ld.red': the tensor-memory address is a "
                     "32-bit integer register");
        }
        break;
    }
    case OP_TCGEN05_MMA:
    case OP_TCGEN05_MMA_SP:
    case OP_TCGEN05_MMA_WS:
    case OP_TCGEN05_MMA_WS_SP: {
        static const enum ir_mod kinds[] = {MOD_KIND_F16,     MOD_KIND_TF32,     MOD_KIND_F8F6F4,
                                            MOD_KIND_I8,      MOD_KIND_MXF8F6F4, MOD_KIND_MXF4,
                                            MOD_KIND_MXF4NVF4};
        bool kind = false;
        for (unsigned i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
            kind |= has_mod(f, in, kinds[i]);
        if (!kind)
            VERR(v, in, "'%s' needs a .kind", name);
        tcgen05_mma_form(v, in, name);
        for (unsigned j = 0; j < in->nopnd; j++) /* tensor-memory addresses: 32-bit */
            if (ir_opnd(f, in, j)->kind == OPK_ADDR && !addr_reg_ok(dm, f, ir_opnd(f, in, j), 4))
                VERR(v, in, "operand %u of '%s': a tensor or shared memory address register is "
                            "32-bit", j + 1, name);
        enum tkind k;
        unsigned sz;
        if (in->nopnd >= 2 && reg_shape(dm, f, ir_opnd(f, in, 1), &k, &sz) &&
            (sz != 8 || (k != TK_B && k != TK_I)))
            VERR(v, in, "operand 2 of '%s': the A descriptor is a 64-bit integer register", name);
        /* idesc: the first value operand after b (and the sparsity metadata address), then
           enable-input-d (a disable-output-lane vector may stand between) */
        unsigned i = 3;
        while (i < in->nopnd && ir_opnd(f, in, i)->kind == OPK_ADDR)
            i++;
        if (i < in->nopnd && !int_reg_ok(dm, f, ir_opnd(f, in, i), 4))
            VERR(v, in, "operand %u of '%s': idesc is a 32-bit integer register", i + 1, name);
        for (i++; i < in->nopnd && ir_opnd(f, in, i)->kind == OPK_VEC; i++)
            ;
        if (i < in->nopnd && reg_shape(dm, f, ir_opnd(f, in, i), &k, &sz) && k != TK_PRED)
            VERR(v, in, "operand %u of '%s': enable-input-d is a predicate or a constant", i + 1,
                 name);
        break;
    }
    case OP_TCGEN05_WAIT_LD:
    case OP_TCGEN05_WAIT_ST:
        if (!has_mod(f, in, MOD_SYNC) || !(in->fl & IR_FL(FL_ALIGNED)))
            VERR(v, in, "'%s' needs .sync.aligned", name);
        break;
    default:
        break;
    }
}

/* multimem.ld_reduce / .red: an operation (.add of .u32 .s32 .u64 .f32 .f64 .f16x2 .bf16x2;
 * .min / .max of .u32 .s32 .u64 .s64 .f16x2 .bf16x2; both also .e5m2x4 .e4m3x4 for ld_reduce;
 * .and / .or / .xor of .b32 .b64), a vector only of a floating-point type (or those), red's
 * address a 64-bit register; ld_reduce not
 * .release, st and red not .acquire; the data registers of the instruction type (the strict rule;
 * a vector by ptxas's vector rule: mixed elements count as .bN, integers fill a float type).
 */
static void multimem(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    const char *name = ir_op_name((enum ir_op)in->op);
    const unsigned t = in->type[0];
    if (in->op != OP_MULTIMEM_ST) {
        const bool add = has_mod(f, in, MOD_ADD);
        const bool mm = has_mod(f, in, MOD_MIN) || has_mod(f, in, MOD_MAX);
        const bool lg =
            has_mod(f, in, MOD_AND) || has_mod(f, in, MOD_OR) || has_mod(f, in, MOD_XOR);
        if (add + mm + lg != 1) {
            VERR(v, in, "'%s' takes one operation (.add, .min, .max, .and, .or, .xor)", name);
            return;
        }
        const bool h2 = t == T_F16X2 || t == T_BF16X2;
        const bool f8 = in->op == OP_MULTIMEM_LD_REDUCE && (t == T_E5M2X4 || t == T_E4M3X4);
        const bool ok =
            add  ? t == T_U32 || t == T_S32 || t == T_U64 || t == T_F32 || t == T_F64 || h2 || f8
            : mm ? t == T_U32 || t == T_S32 || t == T_U64 || t == T_S64 || h2 || f8
                 : t == T_B32 || t == T_B64;
        if (!ok)
            VERR(v, in, "'%s' does not take type .%s for its operation", name,
                 ir_type_name((enum ir_type)t));
    }
    if (in->vec > 1 && type_kind(t) != TK_F && type_kind(t) != TK_H2 && type_kind(t) != TK_BH &&
        t != T_E5M2X4 && t != T_E4M3X4)
        VERR(v, in, "'%s' takes a vector only of a floating-point type", name);
    if (in->op == OP_MULTIMEM_LD_REDUCE ? has_mod(f, in, MOD_RELEASE) : has_mod(f, in, MOD_ACQUIRE))
        VERR(v, in, "'%s' does not take .%s", name,
             in->op == OP_MULTIMEM_LD_REDUCE ? "release" : "acquire");
    if (in->op == OP_MULTIMEM_RED && in->nopnd >= 1 && !addr_reg_ok(dm, f, ir_opnd(f, in, 0), 8))
        VERR(v, in, "operand 1 of 'multimem.red': the address register is 64-bit");
    const unsigned di = in->op == OP_MULTIMEM_LD_REDUCE ? 0 : 1;
    if (in->nopnd > di && t)
        data_opnd(v, dm, in, di, t);
}

/* The data operand di of in (one register or a {...} vector) against type t, as ptxas
 * types multimem's and st.async's data ("Arguments mismatch"). */
void data_opnd(struct vctx *v, const struct declmap *dm, const struct ir_insn *in, unsigned di,
               unsigned t)
{
    const struct ir_func *f = v->f;
    const char *name = ir_op_name((enum ir_op)in->op);
    const struct ir_opnd *o = ir_opnd(f, in, di);
    if (o->kind == OPK_REG)
        check_reg(v, dm, in, o, di, t, false, false);
    else if (o->kind == OPK_VEC && o->first + o->n <= f->nopnds) {
        /* a vector of mixed element types counts as .bN (vec_type: {%r1, %f1} is .b32) */
        const struct ir_regdecl *fd = NULL;
        const int nerr = v->nerr;
        const unsigned vt = vec_type(v, dm, in, o, di, &fd, NULL);
        if (v->nerr != nerr)
            return;
        if (vt != T_NONE && !fd) {
            if (!reg_fits(t, vt, false, true))
                VERR(v, in, "operand %u of '%s': a vector of mixed elements counts as .%s, not "
                            "compatible with .%s", di + 1, name, ir_type_name((enum ir_type)vt),
                     ir_type_name((enum ir_type)t));
            return;
        }
        if (fd && type_kind(fd->type) == TK_I && type_kind(t) == TK_F &&
            ir_type_size((enum ir_type)fd->type) == ir_type_size((enum ir_type)t))
            return; /* integer elements fill a float type of their size, as in a ld vector */
        for (unsigned j = 0; j < o->n; j++)
            if (f->opnds[o->first + j].kind == OPK_REG)
                check_reg(v, dm, in, &f->opnds[o->first + j], di, t, false, true);
    }
}

/* Is t one of the 4-, 6- and 8-bit float types of kind::f8f6f4? */
static bool f8f6f4(unsigned t)
{
    return t == T_E4M3 || t == T_E5M2 || t == T_E3M2 || t == T_E2M3 || t == T_E2M1;
}

/* mma's types: d.a.b.c (.block_scale: and the scale type); C is D's type (f16 A: also a .f16
 * C for a .f32 D); A and B alike but for signedness (8- and 4-bit integers), fp8 encodings and
 * the kind::f8f6f4 types; integer A: .s32 D; .bf16 / .tf32: .f32; .f64: .f64; f16 and the
 * 8-bit floats: .f16 or .f32; the block-scaled kinds .f32 with scale type .ue8m0 (mxf4nvf4 also
 * .ue4m3) and .e2m1 A and B for mxf4 / mxf4nvf4. */
/* wmma.mma's accumulator types (d and c): .f16 / .f32 for the two-type form, .s32 for integer
 * and single-bit A, .f32 for .bf16 / .tf32, .f64 for .f64 (ptxas 13: "Unexpected instruction
 * types specified for 'wmma.mma'"). */
static void wmma_mma_types(struct vctx *v, const struct ir_insn *in)
{
    unsigned t[6];
    const unsigned n = insn_types(v->f, in, t, 6);
    if (n != 2 && n != 4)
        return; /* the builder's type count rules report these */
    const unsigned d = t[0], c = t[n - 1], a = n == 4 ? t[1] : T_F16;
    /* the four-type form: A of .s8 .u8 .s4 .u4 .b1 .bf16 .tf32 .f64 (.f16 A is the two-type
       form's), B its type (ptxas-diff seed 17: "Unexpected instruction types") */
    if (n == 4 && a != T_S8 && a != T_U8 && a != T_S4 && a != T_U4 && a != T_B1 &&
        a != T_BF16 && a != T_TF32 && a != T_F64) {
        VERR(v, in, "'wmma.mma' takes A type .s8, .u8, .s4, .u4, .b1, .bf16, .tf32 or .f64 "
                    "with four types, not .%s", ir_type_name((enum ir_type)a));
        return;
    }
    bool ok;
    if (a == T_S8 || a == T_U8 || a == T_S4 || a == T_U4 || a == T_B1)
        ok = d == T_S32 && c == T_S32;
    else if (a == T_BF16 || a == T_TF32)
        ok = d == T_F32 && c == T_F32;
    else if (a == T_F64)
        ok = d == T_F64 && c == T_F64;
    else
        ok = (d == T_F16 || d == T_F32) && (c == T_F16 || c == T_F32);
    if (!ok)
        VERR(v, in, "'wmma.mma' with A type .%s does not take D type .%s and C type .%s",
             ir_type_name((enum ir_type)a), ir_type_name((enum ir_type)d),
             ir_type_name((enum ir_type)c));
    const struct ir_func *f = v->f;
    const unsigned b = n == 4 ? t[2] : T_F16;
    const bool intab = a == T_S8 || a == T_U8 || a == T_S4 || a == T_U4 || a == T_B1;
    if (n == 4 && b != a) /* .s8.u8, .u4.s4, .f64.s16: "Unexpected instruction types" */
        VERR(v, in, "'wmma.mma' with A type .%s takes B type .%s, not .%s",
             ir_type_name((enum ir_type)a), ir_type_name((enum ir_type)a),
             ir_type_name((enum ir_type)b));
    const bool sub = a == T_S4 || a == T_U4 || a == T_B1;
    /* the layouts in source order: sub-byte and .b1 take .row.col ("Illegal blayout") */
    bool lay[2] = {false, false};
    unsigned nl = 0;
    for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++) {
        const enum ir_mod md = (enum ir_mod)f->mods[in->mod + i];
        if ((md == MOD_ROW || md == MOD_COL) && nl < 2)
            lay[nl++] = md == MOD_COL;
    }
    if (sub && nl == 2 && (lay[0] || !lay[1]))
        VERR(v, in, "'wmma.mma' of .%s takes layouts .row.col", ir_type_name((enum ir_type)a));
    const bool bop = has_mod(f, in, MOD_XOR) || has_mod(f, in, MOD_AND);
    const bool popc = has_mod(f, in, MOD_POPC);
    if (a == T_B1 && (!bop || !popc)) /* "Boolean operation is required" */
        VERR(v, in, "'wmma.mma' of .b1 needs .xor.popc or .and.popc");
    else if (a != T_B1 && (bop || popc))
        VERR(v, in, "'wmma.mma' of .%s takes no .xor / .and / .popc",
             ir_type_name((enum ir_type)a));
    const bool satf = has_mod(f, in, MOD_SATFINITE) || (in->fl & IR_FL(FL_SATFINITE));
    if (satf && a == T_B1)
        VERR(v, in, "'wmma.mma' of .b1 takes no .satfinite");
    else if (satf && !intab && v->m->version_major * 10u + v->m->version_minor >= 65)
        VERR(v, in, "'wmma.mma' of floating-point types takes no .satfinite from PTX ISA 6.5");
}

static void mma_types(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    const bool bs = has_mod(f, in, MOD_BLOCK_SCALE);
    const bool kf = has_mod(f, in, MOD_KIND_F8F6F4), kmx8 = has_mod(f, in, MOD_KIND_MXF8F6F4);
    const bool kmx4 = has_mod(f, in, MOD_KIND_MXF4), knv = has_mod(f, in, MOD_KIND_MXF4NVF4);
    unsigned t[6];
    const unsigned n = insn_types(f, in, t, 6), want = bs ? 5 : 4;
    if (n != want) {
        VERR(v, in, "'mma' takes %u types (%s), not %u", want,
             bs ? "d, a, b, c and the scale type" : "d, a, b and c", n);
        return;
    }
    const unsigned d = t[0], a = t[1], b = t[2], c = t[3];
    const bool ia = a == T_S8 || a == T_U8 || a == T_S4 || a == T_U4 || a == T_B1;
    const bool ib = b == T_S8 || b == T_U8 || b == T_S4 || b == T_U4 || b == T_B1;
    const bool f8 = (a == T_E4M3 || a == T_E5M2) && (b == T_E4M3 || b == T_E5M2);
    bool ok;
    if (kf || kmx8)
        ok = f8f6f4(a) && f8f6f4(b);
    else if (kmx4 || knv)
        ok = a == T_E2M1 && b == T_E2M1;
    else
        ok = a == b ||
             (ia && ib && ir_type_size((enum ir_type)a) == ir_type_size((enum ir_type)b)) || f8;
    if (!ok) {
        VERR(v, in, "'mma' does not pair A type .%s with B type .%s", ir_type_name((enum ir_type)a),
             ir_type_name((enum ir_type)b));
        return;
    }
    if (bs)
        ok = d == T_F32 && c == T_F32 && (t[4] == T_UE8M0 || (knv && t[4] == T_UE4M3));
    else if (ia)
        ok = d == T_S32 && c == T_S32;
    else if (a == T_BF16 || a == T_TF32)
        ok = d == T_F32 && c == T_F32;
    else if (a == T_F64)
        ok = d == T_F64 && c == T_F64;
    else /* D .f32 with C .f16 only on m8n8k4 (ptxas 13: ".dtype must be '.f16' when .ctype
            is '.f16'" on m16n8k8 / m16n8k16, "Arguments mismatch" on mma.sp) */
        ok = (d == T_F16 || d == T_F32) &&
             (c == d || (a == T_F16 && d == T_F32 && c == T_F16 && has_mod(f, in, MOD_M8N8K4)));
    if (!ok) {
        VERR(v, in, "'mma' with A type .%s does not take D type .%s and C type .%s%s",
             ir_type_name((enum ir_type)a), ir_type_name((enum ir_type)d),
             ir_type_name((enum ir_type)c), bs ? " (and this scale type)" : "");
        return;
    }
    /* ptxas 13 "Arguments mismatch for instruction 'mma'": a fragment lives in .f32 registers
       only when its type is .f32 (D, C), or for A and B also .bf16 / .tf32 of mma.sp (ptxas
       takes those; a dense mma's A and B never: probed_forms_s10.ptx); .f64 is checked apart */
    const bool sp = in->op == OP_MMA_SP || in->op == OP_MMA_SP_ORDERED;
    for (unsigned i = 0; a != T_F64 && i < 4 && i < in->nopnd; i++) {
        const struct ir_opnd *o = ir_opnd(f, in, i);
        const unsigned ft = t[i == 0 ? 0 : i == 3 ? 3 : i];
        const bool f32ok = ft == T_F32 || (sp && (i == 1 || i == 2) && (ft == T_BF16 || ft == T_TF32));
        if (o->kind != OPK_VEC || o->first + o->n > f->nopnds || f32ok)
            continue;
        for (unsigned k = 0; k < o->n; k++) {
            const struct ir_opnd *e = &f->opnds[o->first + k];
            const struct ir_regdecl *rd = e->kind == OPK_REG ? decl_of(dm, f, e) : NULL;
            if (rd && rd->type == T_F32) {
                VERR(v, in, "operand %u of '%s': a .%s fragment is not held in .f32 registers",
                     i + 1, ir_op_name((enum ir_op)in->op), ir_type_name((enum ir_type)ft));
                break;
            }
        }
    }
    if (!sp)
        return;
    /* mma.sp d, a, b, c, e, f: the metadata e a register ("Arguments mismatch"), the sparsity
       selector f a constant in the range ptxas 13 takes: 0 where all four threads of a group
       hold metadata (m16n8k64 8-bit, m16n8k128 4-bit), 0..1 where a thread pair does, else
       0..3 (ptxas also takes 0..3 for m16n8k32 .f16, whose ISA range is 0..1) */
    if (in->nopnd >= 5 && ir_opnd(f, in, 4)->kind != OPK_REG)
        VERR(v, in, "operand 5 of '%s': the sparsity metadata is a 32-bit register",
             ir_op_name((enum ir_op)in->op));
    const struct ir_opnd *sel = in->nopnd >= 6 ? ir_opnd(f, in, 5) : NULL;
    if (sel && sel->kind == OPK_IMM) {
        const bool k128 = has_mod(f, in, MOD_M16N8K128), k64 = has_mod(f, in, MOD_M16N8K64),
                   k32 = has_mod(f, in, MOD_M16N8K32), k16 = has_mod(f, in, MOD_M16N8K16);
        const unsigned bits = (unsigned)ir_type_size((enum ir_type)a) * 8;
        unsigned max = 3;
        if (k128 || (k64 && !(a == T_S4 || a == T_U4)))
            max = 0;
        else if ((k64 && (a == T_S4 || a == T_U4)) || (k32 && (a == T_BF16 || bits == 8)) ||
                 (k16 && a == T_TF32))
            max = 1;
        if (sel->imm.u > max)
            VERR(v, in, "operand 6 of '%s': sparsity selector %llu out of range 0..%u",
                 ir_op_name((enum ir_op)in->op), (unsigned long long)sel->imm.u, max);
    }
}

/* Small forms: CTA barriers name their barrier (.arrive also its thread count); createpolicy
 * a .fractional, .range or .cvt form; cp.async.mbarrier.arrive .b64; cp.reduce.async.bulk's
 * size a 32-bit integer; cvt to .f16x2 / .bf16x2 a rounding; tcgen05.shift .down, tcgen05.ld /
 * .st .b32 with .sync and 32-bit data registers; surface instructions a type; a mov of a
 * variable's address no float type; cvt.pack's destination an integer register of 32 bits or
 * more, its c a register of 32 bits or more. */
/* Stochastic rounding (sm_100a; ptxas 13): cvt.rs{.relu}{.satfinite}.{f16x2, bf16x2}.f32 d, a,
 * b, rbits and cvt.rs.satfinite{.relu}.{e4m3x4, e5m2x4, e2m3x4, e3m2x4, e2m1x4}.f32 d, {a, b,
 * c, e}, rbits: .rs converts .f32 to those types only, the x4 types only with .rs and
 * .satfinite ("Illegal rounding modifier", "'.satfinite' modifier required"); an x4 result
 * is a .b32 register (.b16 for e2m1x4) and its source a vector of four 32-bit registers that
 * fit .f32 as a ld vector's do; rbits is a .b32 register ("Arguments mismatch"). */
static void cvt_rs(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    const unsigned t = in->type[0];
    const bool x4 = t == T_E4M3X4 || t == T_E5M2X4 || t == T_E2M3X4 || t == T_E3M2X4 ||
                    t == T_E2M1X4;
    if (x4 && in->rnd != RND_RS)
        VERR(v, in, "'cvt.%s' needs .rs", ir_type_name((enum ir_type)t));
    if (in->rnd != RND_RS)
        return;
    if (!x4 && t != T_F16X2 && t != T_BF16X2) {
        VERR(v, in, "'cvt.rs' converts to .f16x2, .bf16x2 or a packed x4 type, not .%s",
             ir_type_name((enum ir_type)t));
        return;
    }
    if (in->type[1] != T_F32) {
        VERR(v, in, "'cvt.rs' converts from .f32, not .%s", ir_type_name((enum ir_type)in->type[1]));
        return;
    }
    if (x4 && !(in->fl & IR_FL(FL_SATFINITE)) && !has_mod(f, in, MOD_SATFINITE))
        VERR(v, in, "'cvt.rs.%s' needs .satfinite", ir_type_name((enum ir_type)t));
    const unsigned want = x4 ? 3 : 4; /* operands: d, {a, b, c, e}, rbits / d, a, b, rbits */
    if (in->nopnd != want || (x4 && ir_opnd(f, in, 1)->kind != OPK_VEC)) {
        VERR(v, in, "'cvt.rs.%s' takes %s", ir_type_name((enum ir_type)t),
             x4 ? "a result, a vector of four sources and the random bits"
                : "a result, two sources and the random bits");
        return;
    }
    const struct ir_opnd *r = ir_opnd(f, in, in->nopnd - 1);
    const struct ir_regdecl *rd = r->kind == OPK_REG && r->n <= 1 ? decl_of(dm, f, r) : NULL;
    if (r->kind != OPK_REG || (rd && rd->type != T_B32))
        VERR(v, in, "operand %u of 'cvt.rs': the random bits are a .b32 register", in->nopnd);
    if (!x4) {
        /* to .bf16x2 the sources are .f32 values, no wider register (cvt's relaxed data
           rule; to .f16x2 ptxas 13 takes a .b64 or .b128 register) */
        for (unsigned i = 1; i < 3 && t == T_BF16X2; i++)
            if (ir_opnd(f, in, i)->kind == OPK_REG && ir_opnd(f, in, i)->n <= 1)
                check_reg(v, dm, in, ir_opnd(f, in, i), i, T_F32, false, false);
        return;
    }
    const struct ir_opnd *d = ir_opnd(f, in, 0);
    const struct ir_regdecl *dd = d->kind == OPK_REG && d->n <= 1 ? decl_of(dm, f, d) : NULL;
    const unsigned dt = t == T_E2M1X4 ? T_B16 : T_B32;
    if (dd && dd->type != dt)
        VERR(v, in, "operand 1 of 'cvt.rs.%s' is a .%s register", ir_type_name((enum ir_type)t),
             ir_type_name((enum ir_type)dt));
    const struct ir_opnd *a = ir_opnd(f, in, 1);
    if (a->n != 4 || a->first + a->n > f->nopnds) {
        VERR(v, in, "operand 2 of 'cvt.rs.%s' is a vector of four registers",
             ir_type_name((enum ir_type)t));
        return;
    }
    check_ldst_vec(v, dm, in, a, 1, T_F32);
    for (unsigned j = 0; j < a->n; j++) {
        const struct ir_opnd *e = &f->opnds[a->first + j];
        const struct ir_regdecl *ed = e->kind == OPK_REG ? decl_of(dm, f, e) : NULL;
        if (ed && type_kind(ed->type) == TK_I) {
            VERR(v, in, "operand 2 of 'cvt.rs.%s': an integer register is no .f32 source",
                 ir_type_name((enum ir_type)t));
            break;
        }
    }
}

static void small_forms(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    const char *name = ir_op_name((enum ir_op)in->op);
    /* packed 16-bit integer pairs (ptxas 13): add, min and max only, no .sat, .relu with
       .s16x2 only ("Unexpected instruction types specified for 'sub'") */
    if ((in->type[0] == T_U16X2 || in->type[0] == T_S16X2) &&
        (in->op == OP_ADD || in->op == OP_SUB || in->op == OP_MIN || in->op == OP_MAX)) {
        const char *tn = ir_type_name((enum ir_type)in->type[0]);
        if (in->op == OP_SUB)
            VERR(v, in, "'sub' does not take type .%s (add, min and max do)", tn);
        else if (in->fl & IR_FL(FL_SAT))
            VERR(v, in, "'%s.%s' takes no .sat", name, tn);
        else if ((in->fl & IR_FL(FL_RELU)) && in->type[0] == T_U16X2)
            VERR(v, in, "'%s.relu' takes type .s16x2, not .u16x2", name);
    }
    /* modifiers ptxas 13 requires (".sync modifier required for instruction 'match'") */
    if ((in->op == OP_MATCH || in->op == OP_ELECT || in->op == OP_MMA || in->op == OP_MMA_SP ||
         in->op == OP_MMA_SP_ORDERED) && !(in->fl & IR_FL(FL_SYNC)))
        VERR(v, in, "'%s' needs .sync", name);
    if (in->op == OP_MMA && has_mod(f, in, MOD_BLOCK_SCALE) &&
        !has_mod(f, in, MOD_KIND_MXF8F6F4) && !has_mod(f, in, MOD_KIND_MXF4) &&
        !has_mod(f, in, MOD_KIND_MXF4NVF4))
        VERR(v, in, "'mma.block_scale' needs .kind::mxf8f6f4, .kind::mxf4 or .kind::mxf4nvf4");
    /* mbarrier counts are 32-bit integer registers (ptxas: "Arguments mismatch") */
    if (in->op == OP_MBARRIER_INIT || in->op == OP_MBARRIER_EXPECT_TX ||
        in->op == OP_MBARRIER_COMPLETE_TX || in->op == OP_MBARRIER_ARRIVE ||
        in->op == OP_MBARRIER_ARRIVE_DROP) {
        const unsigned ci =
            in->op == OP_MBARRIER_ARRIVE || in->op == OP_MBARRIER_ARRIVE_DROP ? 2 : 1;
        if (in->nopnd > ci && !int_reg_ok(dm, f, ir_opnd(f, in, ci), 4))
            VERR(v, in, "operand %u of '%s': the count is a 32-bit integer register", ci + 1, name);
    }
    /* sured's operation / type pairs (ptxas 13, probed: "Unexpected instruction types"):
       .b: add .u32 .s32 .u64, min / max .u32 .s32 .u64 .s64, and / or .b32 only; .p: any
       32- or 64-bit integer type but .b64 with add, and, or */
    if (in->op == OP_SURED) {
        const unsigned t = in->type[0];
        const bool bits = in->mode == MODE_AND || in->mode == MODE_OR;
        const bool i32 = t == T_U32 || t == T_S32, anyint = i32 || t == T_B32 || t == T_U64 ||
                                                         t == T_S64 || t == T_B64;
        bool ok;
        if (has_mod(f, in, MOD_P))
            ok = anyint && !(t == T_B64 && (bits || in->mode == MODE_ADD));
        else if (bits)
            ok = t == T_B32;
        else
            ok = i32 || t == T_U64 || (t == T_S64 && in->mode != MODE_ADD);
        if (!ok)
            VERR(v, in, "'sured' does not take this operation with type .%s",
                 ir_type_name((enum ir_type)t));
    }
    if (in->op == OP_CREATEPOLICY && in->type[0] != T_B64)
        VERR(v, in, "'createpolicy' takes type .b64, not .%s",
             ir_type_name((enum ir_type)in->type[0]));
    /* .f32x2 arithmetic works on 64-bit registers */
    if (in->type[0] == T_F32X2)
        for (unsigned i = 0; i < in->nopnd; i++) {
            enum tkind k;
            unsigned sz;
            if (reg_shape(dm, f, ir_opnd(f, in, i), &k, &sz) && (k != TK_B || sz != 8))
                VERR(v, in, "operand %u of '%s.f32x2' is a .b64 register", i + 1, name);
        }
    switch (in->op) {
    case OP_BAR:
    case OP_BARRIER:
        if (in->mode == MODE_ARRIVE ? in->nopnd != 2 : in->nopnd < 1)
            VERR(v, in, "'%s.%s' takes %s", name, in->mode == MODE_ARRIVE ? "arrive" : "sync",
                 in->mode == MODE_ARRIVE ? "a barrier and a thread count" : "a barrier");
        break;
    case OP_CREATEPOLICY:
        if (!has_mod(f, in, MOD_FRACTIONAL) && !has_mod(f, in, MOD_RANGE) &&
            !has_mod(f, in, MOD_CVT))
            VERR(v, in, "'createpolicy' needs .fractional, .range or .cvt");
        else if (!has_mod(f, in, MOD_CVT) && !has_mod(f, in, MOD_L2_EVICT_NORMAL) &&
                 !has_mod(f, in, MOD_L2_EVICT_UNCHANGED) && !has_mod(f, in, MOD_L2_EVICT_FIRST) &&
                 !has_mod(f, in, MOD_L2_EVICT_LAST))
            VERR(v, in, "'createpolicy.%s' needs an eviction priority (.L2::evict_*)",
                 has_mod(f, in, MOD_RANGE) ? "range" : "fractional");
        break;
    case OP_CP_ASYNC_MBARRIER_ARRIVE:
        if (in->type[0] != T_B64)
            VERR(v, in, "'cp.async.mbarrier.arrive' takes type .b64");
        break;
    case OP_CP_REDUCE_ASYNC_BULK:
        bulk_spaces(v, in);
        if (in->nopnd >= 3 && !int_reg_ok(dm, f, ir_opnd(f, in, 2), 4))
            VERR(v, in,
                 "operand 3 of 'cp.reduce.async.bulk': the size is a 32-bit integer "
                 "register");
        break;
    case OP_CVT:
        if ((in->type[0] == T_F16X2 || in->type[0] == T_BF16X2) && in->type[1] == T_F32 &&
            in->rnd == RND_NONE)
            VERR(v, in, "'cvt.%s.f32' needs a rounding modifier",
                 ir_type_name((enum ir_type)in->type[0]));
        cvt_rs(v, dm, in);
        break;
    case OP_MOV:
        /* a variable's address is an integer: no floating-point mov */
        if (in->nopnd >= 2 && ir_opnd(f, in, 1)->kind == OPK_SYM &&
            ir_opnd(f, in, 1)->sym != IR_NOSYM && type_kind(in->type[0]) == TK_F)
            VERR(v, in, "'mov.%s' of a variable's address: the type is an integer or bit type",
                 ir_type_name((enum ir_type)in->type[0]));
        break;
    case OP_CVT_PACK: {
        /* cvt.pack.sat.{u16,s16}.s32 d, a, b; cvt.pack.sat.{u8,s8,u4,s4,u2,s2}.s32.b32 d, a, b,
         * c ("Unexpected instruction types specified for 'cvt.pack'") */
        unsigned t[4];
        const unsigned nt = insn_types(f, in, t, 4);
        const bool w16 = nt == 2 && (t[0] == T_U16 || t[0] == T_S16) && t[1] == T_S32;
        const bool nar = nt == 3 && t[1] == T_S32 && t[2] == T_B32 &&
                         (t[0] == T_U8 || t[0] == T_S8 || t[0] == T_U4 || t[0] == T_S4 ||
                          t[0] == T_U2 || t[0] == T_S2);
        if (!w16 && !nar)
            VERR(v, in, "'cvt.pack' takes the types .u16/.s16 then .s32, or .u8/.s8/.u4/.s4/"
                        ".u2/.s2 then .s32 then .b32");
    }
        if (in->nopnd >= 1) {
            enum tkind k;
            unsigned sz;
            if (reg_shape(dm, f, ir_opnd(f, in, 0), &k, &sz) &&
                ((k != TK_B && k != TK_I) || sz < 4))
                VERR(v, in, "operand 1 of 'cvt.pack' is an integer register of 32 bits or more");
        }
        if (in->nopnd >= 4) {
            enum tkind k;
            unsigned sz;
            if (reg_shape(dm, f, ir_opnd(f, in, 3), &k, &sz) && (k == TK_PRED || sz < 4))
                VERR(v, in, "operand 4 of 'cvt.pack' is a register of 32 bits or more");
        }
        break;
    case OP_TCGEN05_SHIFT:
        if (!has_mod(f, in, MOD_DOWN))
            VERR(v, in, "'tcgen05.shift' needs .down");
        break;
    case OP_TCGEN05_LD:
    case OP_TCGEN05_ST: {
        if (in->type[0] != T_B32)
            VERR(v, in, "'%s' takes type .b32", name);
        if (!has_mod(f, in, MOD_SYNC))
            VERR(v, in, "'%s' needs .sync", name);
        /* the data registers: 32-bit, no predicates */
        const unsigned di = in->op == OP_TCGEN05_LD ? 0 : in->nopnd - 1;
        const struct ir_opnd *d = in->nopnd ? ir_opnd(f, in, di) : NULL;
        enum tkind k;
        unsigned sz;
        for (unsigned j = 0; d && d->kind == OPK_VEC && d->first + d->n <= f->nopnds && j < d->n;
             j++)
            if (reg_shape(dm, f, &f->opnds[d->first + j], &k, &sz) && (sz != 4 || k == TK_PRED)) {
                VERR(v, in, "operand %u of '%s': the data are 32-bit registers", di + 1, name);
                break;
            }
        break;
    }
    case OP_SULD:
    case OP_SUST:
    case OP_SURED:
        if (in->type[0] == T_NONE)
            VERR(v, in, "'%s' needs a type", name);
        break;
    case OP_MADC:
        if (in->mode != MODE_HI && in->mode != MODE_LO)
            VERR(v, in, "'madc' needs .hi or .lo");
        break;
    case OP_ATOM:
    case OP_RED:
        atom_red_forms(v, in); /* verify_form4.c */
        break;
    case OP_MBARRIER_PENDING_COUNT: /* the count: a 32-bit integer register */
        if (in->nopnd >= 1 && !int_reg_ok(dm, f, ir_opnd(f, in, 0), 4))
            VERR(v, in, "operand 1 of 'mbarrier.pending_count' is a 32-bit integer register");
        break;
    case OP_REDUX:
        /* redux.b32's values in integer or bit registers ("Arguments mismatch": not .f32) */
        for (unsigned i = 0; in->type[0] == T_B32 && i < 2 && i < in->nopnd; i++) {
            enum tkind k;
            unsigned sz;
            if (reg_shape(dm, f, ir_opnd(f, in, i), &k, &sz) && k == TK_F) {
                VERR(v, in, "operand %u of 'redux.b32': a float register where an integer or "
                            "bit register is expected", i + 1);
                break;
            }
        }
        break;
    case OP_LDU:
        /* "Illegal modifier '.nc' for instruction 'ldu'" (ld.nc's state space: verify_form3.c) */
        if (in->fl & IR_FL(FL_NC))
            VERR(v, in, "'ldu' takes no .nc");
        break;
    case OP_ABS:
    case OP_NEG:
        /* "Instruction 'neg' applies only to signed numeric types" */
        if (in->type[0] == T_U16 || in->type[0] == T_U32 || in->type[0] == T_U64)
            VERR(v, in, "'%s' takes signed or floating-point types, not .%s", name,
                 ir_type_name((enum ir_type)in->type[0]));
        break;
    case OP_CLUSTERLAUNCHCONTROL_QUERY_CANCEL: {
        /* the result type then .b128: .pred for .is_canceled, .b32 for the ctaid queries
         * ("Unexpected instruction types specified") */
        unsigned t[4];
        const unsigned nt = insn_types(f, in, t, 4);
        const unsigned want = has_mod(f, in, MOD_IS_CANCELED) ? T_PRED : T_B32;
        if (nt != 2 || t[0] != want || t[1] != T_B128)
            VERR(v, in, "'clusterlaunchcontrol.query_cancel' takes two types: .pred.b128 for "
                        ".is_canceled, .b32.b128 for the ctaid queries");
        break;
    }
    case OP_LOP3: {
        /* lop3.BoolOp.b32 d|p, a, b, c, immLut, q: .or / .and exactly with both the predicate
         * output and input ("Boolean operation is required", "Predicate output expected",
         * "Arguments mismatch") */
        const bool p = in->nopnd > 1 && ir_opnd(f, in, 1)->kind == OPK_REG;
        const bool q = in->nopnd > 6;
        const bool bop = in->bop == BOP_AND || in->bop == BOP_OR;
        if (in->bop == BOP_XOR)
            VERR(v, in, "'lop3' takes .or or .and, not .xor");
        else if (p != bop || q != bop)
            VERR(v, in, "'lop3.or' / 'lop3.and' go with a predicate output (d|p) and a "
                        "predicate input q; plain 'lop3' with neither");
        break;
    }
    case OP_BARRIER_CLUSTER:
        /* barrier.cluster.cluster.arrive: ptxas reads no scope there */
        if (in->scope != SCOPE_NONE)
            VERR(v, in, "'barrier.cluster' takes no scope");
        break;
    case OP_TCGEN05_CP:
        if (!has_mod(f, in, MOD_SHAPE_128X256B) && !has_mod(f, in, MOD_SHAPE_128X128B) &&
            !has_mod(f, in, MOD_SHAPE_64X128B) && !has_mod(f, in, MOD_SHAPE_32X128B) &&
            !has_mod(f, in, MOD_SHAPE_4X256B))
            VERR(v, in, "'tcgen05.cp' needs a shape (.128x256b, .4x256b, .128x128b, "
                        ".64x128b, .32x128b)");
        break;
    case OP_FENCE:
        if (in->space != SP_NONE) /* only fence.proxy.async takes one: verify_form.c */
            break;
        /* scopes (probed on ptxas 13): a memory-order fence names one ("Scope modifier
           required for instruction 'fence'"), so do fence.proxy.tensormap::generic's
           .acquire/.release; .mbarrier_init and .sync_restrict take exactly .cluster, and so
           does fence.proxy.async::generic with .sync_restrict */
        if ((has_mod(f, in, MOD_MBARRIER_INIT) ||
                  has_mod(f, in, MOD_SYNC_RESTRICT_SHARED_CTA) ||
                  has_mod(f, in, MOD_SYNC_RESTRICT_SHARED_CLUSTER)) &&
                 in->scope != SCOPE_CLUSTER)
            VERR(v, in, "'fence' with .%s takes the scope .cluster",
                 has_mod(f, in, MOD_MBARRIER_INIT) ? "mbarrier_init" : "sync_restrict");
        else if (in->sem != SEM_NONE && in->scope == SCOPE_NONE)
            VERR(v, in, "'fence' with a memory order needs a scope (.cta, .cluster, .gpu, "
                        ".sys)");
        break;
    default:
        break;
    }
}

/* The register elements of vector operand o (operand idx of in) are 32-bit. */
static void vec32(struct vctx *v, const struct declmap *dm, const struct ir_insn *in,
                  const struct ir_opnd *o, unsigned idx)
{
    const struct ir_func *f = v->f;
    for (unsigned j = 0; o->kind == OPK_VEC && o->first + o->n <= f->nopnds && j < o->n; j++) {
        const struct ir_opnd *e = &f->opnds[o->first + j];
        enum tkind k;
        unsigned sz;
        if (reg_shape(dm, f, e, &k, &sz) && k != TK_PRED && sz != 4) {
            const struct ir_regdecl *d = decl_of(dm, f, e);
            char nm[80];
            reg_name(v, d, e, nm, sizeof nm);
            VERR(v, in, "operand %u of '%s': register %s is .%s, not a 32-bit register", idx + 1,
                 ir_op_name((enum ir_op)in->op), nm, ir_type_name((enum ir_type)d->type));
            return;
        }
    }
}

/* tld4.comp.geom.v4.dtype.f32 d{|p}, [t{, s}, c]{, offset{, depth}}: one component (.r, .g, .b
 * or .a; ptxas: "Component modifier required", "Multiple component modifiers specified"),
 * dtype .u32, .s32 or .f32 ("Unexpected instruction types"); its operands' types are
 * verify_form3.c's (tex_operands). */
static void tld4(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    const unsigned nc = has_mod(f, in, MOD_R) + has_mod(f, in, MOD_G) + has_mod(f, in, MOD_B) +
                        has_mod(f, in, MOD_A);
    if (nc != 1)
        VERR(v, in, "'tld4' needs %s component modifier (.r, .g, .b or .a)",
             nc ? "exactly one" : "a");
    const unsigned t = in->type[0];
    if (t != T_U32 && t != T_S32 && t != T_F32) {
        VERR(v, in, "'tld4' does not take type .%s (.u32, .s32, .f32)",
             ir_type_name((enum ir_type)t));
        return;
    }
    tex_operands(v, dm, in); /* result, coordinates, offsets, depth: verify_form3.c */
}

/* ldmatrix.sync.aligned.shape.num{.trans}{.shared{::cta}}.types d, [a] (ptxas 13): .sync
 * (".sync modifier required"), one matrix count (.x1 / .x2 / .x4: "Multiple .num modifiers"),
 * the shared state space or none ("State space incorrect"); per shape its types: .m8n8 .b16,
 * .m16n16 (.trans, .x1 or .x2) .b8 or .b8x16 with a source format (.b6x16_p32 or
 * .b4x16_p64), .m8n16 (no .trans) .b8x16 with a source format ("Unexpected number of
 * instruction types", "Incorrect instruction type specified for ldmatrix with shape",
 * "Unexpected number of 'format conversion' modifiers"); d a {...} vector of one 32-bit
 * register per matrix (two per .m16n16 matrix; "Vector of size N is expected"), predicates
 * allowed. */
static void ldmatrix(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    if (!has_mod(f, in, MOD_SYNC))
        VERR(v, in, "'ldmatrix' needs .sync");
    const unsigned nx = has_mod(f, in, MOD_X1) + has_mod(f, in, MOD_X2) + has_mod(f, in, MOD_X4);
    if (nx > 1)
        VERR(v, in, "'ldmatrix' takes one matrix count (.x1, .x2 or .x4)");
    if (in->space != SP_NONE && in->space != SP_SHARED && in->space != SP_SHARED_CTA)
        VERR(v, in, "'ldmatrix' loads from shared memory (.shared or no state space)");
    unsigned t[4];
    const unsigned nt = insn_types(f, in, t, 4);
    const bool trans = has_mod(f, in, MOD_TRANS);
    const bool fmt = nt == 2 && t[0] == T_B8X16 && (t[1] == T_B6X16_P32 || t[1] == T_B4X16_P64);
    unsigned per = 1; /* registers per matrix */
    if (has_mod(f, in, MOD_M8N8)) {
        if (nt != 1 || t[0] != T_B16)
            VERR(v, in, "'ldmatrix.m8n8' takes type .b16");
    } else if (has_mod(f, in, MOD_M16N16)) {
        per = 2;
        if (!(nt == 1 && t[0] == T_B8) && !fmt)
            VERR(v, in, "'ldmatrix.m16n16' takes type .b8 or .b8x16 with a source format "
                        "(.b6x16_p32, .b4x16_p64)");
        if (!trans)
            VERR(v, in, "'ldmatrix.m16n16' needs .trans");
        if (has_mod(f, in, MOD_X4))
            VERR(v, in, "'ldmatrix.m16n16' loads one or two matrices (.x1, .x2)");
    } else if (has_mod(f, in, MOD_M8N16)) {
        if (!fmt)
            VERR(v, in, "'ldmatrix.m8n16' takes type .b8x16 with a source format (.b6x16_p32, "
                        ".b4x16_p64)");
        if (trans)
            VERR(v, in, "'ldmatrix.m8n16' takes no .trans");
    }
    const unsigned want = per * (has_mod(f, in, MOD_X4) ? 4 : has_mod(f, in, MOD_X2) ? 2 : 1);
    const struct ir_opnd *d = in->nopnd ? ir_opnd(f, in, 0) : NULL;
    if (!d || nx != 1)
        return;
    if (d->kind != OPK_VEC || d->n != want) {
        VERR(v, in, "operand 1 of 'ldmatrix': a {...} vector of %u registers", want);
        return;
    }
    vec32(v, dm, in, d, 0);
}

/* red.async.relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes.op.type [a], b{,
 * [mbar]} and red.async{.mmio}.release.{gpu, sys}{.global}.op.type [a], b (ptxas 13): .async
 * once, an order (.relaxed or .release; "order modifier required", .mmio only with .release)
 * and a scope ("requires scope"); .release with .gpu or .sys only, .cluster with the mbarrier
 * completion, .gpu / .sys not on shared::cluster; an operation and one type that go together
 * (.add .u32 / .s32 / .u64 / .s64, .min / .max .u32 / .s32, .inc / .dec .u32, .and / .or /
 * .xor .b32: "Unexpected instruction types", "Incorrect type for operation"); b a register
 * of the type's size that fits it (without the mbarrier, not a float one either); addresses in
 * 32- or 64-bit registers (with .shared::cluster the mbarrier's may be narrower). And a plain red completes no mbarrier and takes no .mmio
 * ("Arguments mismatch for instruction 'red'", "Illegal modifier '.mmio'"). */
static void red_async(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    const bool mbar = has_mod(f, in, MOD_MBARRIER_COMPLETE_TX_BYTES);
    if (in->op == OP_RED) {
        if (mbar)
            VERR(v, in, "'red' completes no mbarrier (.mbarrier::complete_tx::bytes is "
                        "red.async's)");
        if (has_mod(f, in, MOD_MMIO))
            VERR(v, in, "'red' takes no .mmio (red.async does)");
        return;
    }
    if (has_mod(f, in, MOD_ASYNC))
        VERR(v, in, "'red.async' takes .async once");
    if (in->sem == SEM_MMIO)
        VERR(v, in, "'red.async.mmio' needs .release");
    else if (in->sem != SEM_RELAXED && in->sem != SEM_RELEASE)
        VERR(v, in, "'red.async' needs its memory order (.relaxed or .release)");
    if (in->scope == SCOPE_NONE)
        VERR(v, in, "'red.async' needs a scope");
    else if (in->sem == SEM_RELEASE && in->scope != SCOPE_GPU && in->scope != SCOPE_SYS)
        VERR(v, in, "'red.async.release' takes scope .gpu or .sys");
    else if (in->scope == SCOPE_CLUSTER && !mbar)
        VERR(v, in, "'red.async.cluster' needs .mbarrier::complete_tx::bytes");
    else if ((in->scope == SCOPE_GPU || in->scope == SCOPE_SYS) &&
             in->space == SP_SHARED_CLUSTER)
        VERR(v, in, "'red.async' with scope .gpu or .sys works on .global memory");
    unsigned t[4];
    const unsigned nt = insn_types(f, in, t, 4);
    if (in->mode < MODE_ADD || in->mode > MODE_XOR) {
        VERR(v, in, "'red.async' needs an operation (.add, .min, .max, .inc, .dec, .and, .or, "
                    ".xor)");
        return;
    }
    const unsigned ty = nt == 1 ? t[0] : T_NONE;
    bool ok;
    switch (in->mode) {
    case MODE_ADD: ok = ty == T_U32 || ty == T_S32 || ty == T_U64 || ty == T_S64; break;
    case MODE_MIN:
    case MODE_MAX: ok = ty == T_U32 || ty == T_S32; break;
    case MODE_INC:
    case MODE_DEC: ok = ty == T_U32; break;
    case MODE_AND:
    case MODE_OR:
    case MODE_XOR: ok = ty == T_B32; break;
    default: ok = false; break;
    }
    if (!ok) {
        VERR(v, in, "'red.async' does not take %s for this operation",
             nt == 1 ? "this type" : nt ? "several types" : "no type");
        return;
    }
    for (unsigned i = 0; i < in->nopnd; i += 2)
        if ((i == 0 || in->space != SP_SHARED_CLUSTER) &&
            !addr_reg_ok(dm, f, ir_opnd(f, in, i), 0))
            VERR(v, in, "operand %u of 'red.async': an address register is a 32- or 64-bit "
                        "integer (the mbarrier's may be narrower with .shared::cluster)", i + 1);
    if (in->nopnd < 2 || ir_opnd(f, in, 1)->kind != OPK_REG)
        return;
    const struct ir_opnd *b = ir_opnd(f, in, 1);
    check_reg(v, dm, in, b, 1, ty, false, false);
    const struct ir_regdecl *bd = decl_of(dm, f, b);
    if (bd && type_kind(bd->type) == TK_F && !mbar)
        VERR(v, in, "operand 2 of 'red.async': a floating-point register is no .%s value",
             ir_type_name((enum ir_type)ty));
}

/* wmma.load.{a,b,c}.sync.aligned.layout.shape{.ss}.type d, [p]{, stride} (ptxas 13): a matrix
 * (.a, .b or .c), .sync, one layout (.row or .col; .b1 and .s4 / .u4: A .row, B .col), one
 * type the shape takes for that matrix, the generic, global or shared space; d a vector of
 * the fragment's registers ("Argument vector size mismatch"): per shape and type, 32-bit
 * registers (for .f64 64-bit ones) typed as a ld vector's: with a bit-typed element any, else
 * of the kind the data takes (.f16x2 for .f16, none for .bf16 / .tf32, integer for .s8 / .u8
 * and .s32 C, float for .f32 C and .f64, any for .s4 / .u4 / .b1); the stride a 32-bit
 * integer. The C of .m8n8k32 / .m8n8k128 may be typed .f32 too.
 * Fragments: .f16 A/B 8, C 4; .s8 / .u8 A/B 2 (m16n16k16), 1 / 4 (m8n32k16 A / B), 4 / 1
 * (m32n8k16); .bf16 A/B 4, 2 / 8, 8 / 2; .f32 / .s32 C 8; .tf32 A/B 4; .s4 / .u4 / .b1 A/B 1,
 * C 2; .f64 A/B 1, C 2. */
static void wmma_load(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    const int mx = has_mod(f, in, MOD_A) ? 0 : has_mod(f, in, MOD_B) ? 1 : has_mod(f, in, MOD_C) ? 2
                                                                                        : -1;
    if (mx < 0) {
        VERR(v, in, "'wmma.load' needs the matrix (.a, .b or .c)");
        return;
    }
    if (!has_mod(f, in, MOD_SYNC))
        VERR(v, in, "'wmma.load' needs .sync");
    const bool row = has_mod(f, in, MOD_ROW), col = has_mod(f, in, MOD_COL);
    if (row == col)
        VERR(v, in, "'wmma.load' needs one layout (.row or .col)");
    if (in->space != SP_NONE && in->space != SP_GLOBAL && in->space != SP_SHARED &&
        in->space != SP_SHARED_CTA)
        VERR(v, in, "'wmma.load' loads from generic, global or shared memory");
    unsigned ts[4];
    const unsigned nt = insn_types(f, in, ts, 4);
    const unsigned t = nt == 1 ? ts[0] : T_NONE;
    const bool k16 = has_mod(f, in, MOD_M16N16K16), n32 = has_mod(f, in, MOD_M8N32K16),
               m32 = has_mod(f, in, MOD_M32N8K16);
    unsigned n = 0; /* fragment registers, 0: the shape does not take the type */
    if (k16 || n32 || m32) {
        const unsigned i = k16 ? 0 : n32 ? 1 : 2; /* m16n16k16, m8n32k16, m32n8k16 */
        static const unsigned s8[3][2] = {{2, 2}, {1, 4}, {4, 1}}, bf[3][2] = {{4, 4}, {2, 8},
                                                                                {8, 2}};
        if (mx < 2)
            n = t == T_F16 ? 8 : t == T_S8 || t == T_U8 ? s8[i][mx] : t == T_BF16 ? bf[i][mx] : 0;
        else
            n = t == T_F16 ? 4 : t == T_F32 || t == T_S32 ? 8 : 0;
    } else if (has_mod(f, in, MOD_M16N16K8)) {
        n = mx < 2 ? (t == T_TF32 ? 4 : 0) : (t == T_F32 ? 8 : 0);
    } else if (has_mod(f, in, MOD_M8N8K32) || has_mod(f, in, MOD_M8N8K128)) {
        const bool b1 = has_mod(f, in, MOD_M8N8K128);
        n = mx < 2 ? ((b1 ? t == T_B1 : t == T_S4 || t == T_U4) ? 1 : 0)
                   : (t == T_S32 || t == T_F32 ? 2 : 0);
        if (mx < 2 && n && (mx == 0 ? !row : !col))
            VERR(v, in, "'wmma.load.%s' of .%s takes layout .%s", mx ? "b" : "a",
                 ir_type_name((enum ir_type)t), mx ? "col" : "row");
    } else if (has_mod(f, in, MOD_M8N8K4)) {
        n = t == T_F64 ? (mx < 2 ? 1 : 2) : 0;
    }
    if (!n) {
        VERR(v, in, "'wmma.load.%c' of this shape does not take %s", "abc"[mx],
             nt == 1 ? "this type" : nt ? "several types" : "no type");
        return;
    }
    const struct ir_opnd *d = in->nopnd ? ir_opnd(f, in, 0) : NULL;
    if (!d || d->kind != OPK_VEC || d->n != n || d->first + d->n > f->nopnds) {
        VERR(v, in, "operand 1 of 'wmma.load.%c': a {...} vector of %u registers", "abc"[mx], n);
        return;
    }
    /* as a ld vector: a bit-typed element makes the vector .bN (any data of its size);
       else the elements' one kind must suit the data */
    bool bit = false;
    for (unsigned j = 0; j < d->n; j++) {
        enum tkind k;
        unsigned sz;
        bit |= reg_shape(dm, f, &f->opnds[d->first + j], &k, &sz) && k == TK_B;
    }
    for (unsigned j = 0; j < d->n; j++) {
        enum tkind k;
        unsigned sz;
        if (!reg_shape(dm, f, &f->opnds[d->first + j], &k, &sz))
            continue;
        bool ok;
        if (sz != (t == T_F64 ? 8u : 4u) || k == TK_PRED)
            ok = false;
        else if (bit || k == TK_B)
            ok = true;
        else if (t == T_F64)
            ok = k == TK_F;
        else if (t == T_F16 || t == T_BF16 || t == T_TF32)
            ok = t == T_F16 && k == TK_H2;
        else if (t == T_S8 || t == T_U8 || (mx == 2 && t == T_S32))
            ok = k == TK_I;
        else if (mx == 2 && t == T_F32)
            ok = k == TK_F;
        else
            ok = true; /* .s4 / .u4 / .b1 */
        if (!ok) {
            VERR(v, in,
                 "operand 1 of 'wmma.load.%c': a fragment element of type .%s does not hold .%s "
                 "data",
                 "abc"[mx],
                 ir_type_name((enum ir_type)decl_of(dm, f, &f->opnds[d->first + j])->type),
                 ir_type_name((enum ir_type)t));
            return;
        }
    }
    if (in->nopnd >= 2 && !addr_reg_ok(dm, f, ir_opnd(f, in, 1), 0))
        VERR(v, in, "operand 2 of 'wmma.load.%c': the address register is a 32- or 64-bit "
                    "integer", "abc"[mx]);
    if (in->nopnd >= 3 && ir_opnd(f, in, 2)->kind == OPK_REG &&
        !int_reg_ok(dm, f, ir_opnd(f, in, 2), 4))
        VERR(v, in, "operand 3 of 'wmma.load.%c': the stride is a 32-bit integer", "abc"[mx]);
}

/* Forms probed on ptxas 13 (see the file comment; verify_int.h). */
void verify_probed_forms2(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    small_forms(v, dm, in);
    rounding_forms(v, in);
    space_forms(v, in);
    misc_forms(v, dm, in);
    tensor_forms(v, dm, in);
    seed_forms(v, dm, in);
    if (in->op == OP_ADD || in->op == OP_SUB || in->op == OP_FMA || in->op == OP_MUL ||
        in->op == OP_MAD || in->op == OP_MIN || in->op == OP_MAX || in->op == OP_DIV)
        mixed_f32(v, dm, in);
    const char *name = ir_op_name((enum ir_op)in->op);
    switch (in->op) {
    case OP_BMSK:
        if (in->type[0] != T_B32)
            VERR(v, in, "'bmsk' takes type .b32, not .%s", ir_type_name((enum ir_type)in->type[0]));
        else if (in->nopnd >= 1 && !int_reg_ok(dm, f, ir_opnd(f, in, 0), 4))
            VERR(v, in, "operand 1 of 'bmsk' is a 32-bit integer register");
        break;
    case OP_WMMA_STORE:
        wmma_store(v, dm, in);
        break;
    case OP_WMMA_LOAD:
        wmma_load(v, dm, in);
        break;
    case OP_WMMA_MMA:
        wmma_mma_types(v, in);
        break;
    case OP_TEX: {
        const unsigned t = in->type[0];
        if (t != T_U32 && t != T_S32 && t != T_F32 && t != T_F16 && t != T_F16X2)
            VERR(v, in, "'tex' does not take type .%s (.u32, .s32, .f32, .f16, .f16x2)",
                 ir_type_name((enum ir_type)t));
        else if (in->vec != (t == T_F16X2 ? 2 : 4))
            VERR(v, in, "'tex.%s' returns a .v%u vector", ir_type_name((enum ir_type)t),
                 t == T_F16X2 ? 2 : 4);
        tex_operands(v, dm, in);
        break;
    }
    case OP_TLD4:
        tld4(v, dm, in);
        break;
    case OP_CVT:
        cvt_packed(v, dm, in);
        break;
    case OP_LDMATRIX:
        ldmatrix(v, dm, in);
        break;
    case OP_RED:
    case OP_RED_ASYNC:
        red_async(v, dm, in);
        break;
    case OP_WGMMA_MMA_ASYNC:
    case OP_WGMMA_MMA_ASYNC_SP:
        wgmma(v, dm, in);
        break;
    case OP_CP_ASYNC:
        cp_async(v, dm, in);
        break;
    case OP_CP_ASYNC_BULK:
    case OP_CP_ASYNC_BULK_PREFETCH:
        bulk(v, dm, in);
        bulk_spaces(v, in);
        break;
    case OP_VADD:
    case OP_VSUB:
    case OP_VABSDIFF:
    case OP_VMIN:
    case OP_VMAX:
    case OP_VSHL:
    case OP_VSHR:
    case OP_VMAD:
    case OP_VSET:
    case OP_VADD2:
    case OP_VSUB2:
    case OP_VAVRG2:
    case OP_VABSDIFF2:
    case OP_VMIN2:
    case OP_VMAX2:
    case OP_VSET2:
    case OP_VADD4:
    case OP_VSUB4:
    case OP_VAVRG4:
    case OP_VABSDIFF4:
    case OP_VMIN4:
    case OP_VMAX4:
    case OP_VSET4:
        video(v, dm, in);
        break;
    case OP_BAR:
    case OP_BARRIER:
        if (in->mode == MODE_RED || has_mod(f, in, MOD_RED))
            bar_red(v, dm, in);
        break;
    case OP_BARRIER_CLUSTER:
        bar_cluster(v, in);
        break;
    case OP_TENSORMAP_REPLACE:
        tensormap_replace(v, dm, in);
        break;
    case OP_TENSORMAP_CP_FENCEPROXY:
        tensormap_cp_fenceproxy(v, in);
        break;
    case OP_LD:
    case OP_ST:
    case OP_LDU:
    case OP_ST_ASYNC:
        wide_ldst(v, in);
        break;
    case OP_TCGEN05_ALLOC:
    case OP_TCGEN05_DEALLOC:
    case OP_TCGEN05_COMMIT:
    case OP_TCGEN05_LD_RED:
    case OP_TCGEN05_MMA:
    case OP_TCGEN05_MMA_SP:
    case OP_TCGEN05_MMA_WS:
    case OP_TCGEN05_MMA_WS_SP:
    case OP_TCGEN05_WAIT_LD:
    case OP_TCGEN05_WAIT_ST:
    case OP_TCGEN05_RELINQUISH_ALLOC_PERMIT:
    case OP_TCGEN05_CP:
    case OP_TCGEN05_SHIFT:
        tcgen05(v, dm, in);
        break;
    case OP_MULTIMEM_LD_REDUCE:
    case OP_MULTIMEM_ST:
    case OP_MULTIMEM_RED:
        multimem(v, dm, in);
        break;
    case OP_MMA:
    case OP_MMA_SP:
    case OP_MMA_SP_ORDERED:
        mma_types(v, dm, in);
        break;
    case OP_DP4A:
    case OP_DP2A:
        dp_ab(v, dm, in);
        break;
    case OP_TXQ:
    case OP_SUQ:
        query(v, dm, in);
        break;
    case OP_CP_ASYNC_BULK_TENSOR:
    case OP_CP_REDUCE_ASYNC_BULK_TENSOR:
    case OP_CP_ASYNC_BULK_PREFETCH_TENSOR:
        bulk_spaces(v, in);
        for (unsigned i = 0; i < in->nopnd; i++) {
            const struct ir_opnd *o = ir_opnd(f, in, i);
            if (o->kind != OPK_TEX || o->first + o->n > f->nopnds)
                continue;
            /* 32-bit registers whose kinds follow the ld/st vector rule for .s32 (ptxas takes
               {%r1, %f1} and {%s1, %u1}, not {%f1, %f2}) */
            bool bad = false;
            for (unsigned c = (unsigned)o->imm.u; c < o->n; c++) {
                enum tkind k;
                unsigned sz;
                bad |= reg_shape(dm, f, &f->opnds[o->first + c], &k, &sz) && sz != 4 &&
                       k != TK_PRED; /* a predicate counts as a .b32 element (ptxas) */
            }
            if (bad) {
                VERR(v, in, "operand %u of '%s': tensor coordinates are 32-bit registers", i + 1,
                     name);
            } else {
                check_coord_vec(v, dm, in, o, i, T_S32);
            }
        }
        break;
    case OP_SULD:
    case OP_SUST:
    case OP_SURED: {
        const unsigned t = in->type[0], size = ir_type_size((enum ir_type)t);
        const bool pmode = has_mod(f, in, MOD_P);
        if (in->op == OP_SURED && !pmode && type_kind(t) == TK_F) {
            VERR(v, in, "'sured.b' takes integer or bit types, not .%s",
                 ir_type_name((enum ir_type)t));
            break;
        }
        if (!size || in->nopnd < 2)
            break;
        const unsigned di = in->op == OP_SULD ? 0 : 1;
        surf_data(v, dm, in, ir_opnd(f, in, di), di, size, in->op == OP_SURED && !pmode);
        break;
    }
    default:
        break;
    }
}
