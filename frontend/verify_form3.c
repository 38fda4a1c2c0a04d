/*
 * frontend/verify_form3.c — more instruction forms ptxas 13 refuses, each probed on ptxas
 * (fixtures/ptx/diag/probed_forms13.ptx … probed_forms17.ptx), called from
 * verify_probed_forms2 (verify_form2.c):
 *   - the texture and surface operands (tex_coords, tex_operands): the number of coordinates
 *     a geometry needs, 32-bit coordinate and result registers, the array index of a layered
 *     geometry outside the vector rule, the offset vector (32-bit integers, at least one per
 *     dimension, none on cubemaps), tex.level's level (of the coordinate type), tex.grad's
 *     gradients (.f32, one per dimension), the depth-compare value (.f32, only with .f32
 *     coordinates), the scalar right after a plain tex's coordinates ("Operand vector size
 *     doesn't match geometry", "Illegal modifier '.cube'", "Arguments mismatch");
 *   - the sm_100 mixed-precision add / sub / fma .f32.{f16, bf16} (mixed_f32);
 *   - cvt to and from the packed narrow-float pairs (cvt_packed) and rounding modifiers
 *     (rounding_forms: one at most, none where nothing rounds, by the kinds cvt converts);
 *   - the state spaces of the memory instructions (space_forms);
 *   - the forms the differential test's seeds 2-4 found (misc_forms, tensor_forms).
 */
#include <stdio.h>

#include "frontend/verify_int.h"

/* The geometry of a texture or surface instruction. */
struct geom {
    const char *name; /* ".2d", ... (NULL: none) */
    unsigned dims;    /* 1, 2 or 3 (a cubemap's direction: 3) */
    bool layered, cube, ms;
};

static struct geom geom_of(const struct ir_func *f, const struct ir_insn *in)
{
    static const struct {
        enum ir_mod md;
        struct geom g;
    } tab[] = {
        {MOD_DIM1D, {".1d", 1, false, false, false}},
        {MOD_DIM2D, {".2d", 2, false, false, false}},
        {MOD_DIM3D, {".3d", 3, false, false, false}},
        {MOD_GEOM_A1D, {".a1d", 1, true, false, false}},
        {MOD_GEOM_A2D, {".a2d", 2, true, false, false}},
        {MOD_GEOM_CUBE, {".cube", 3, false, true, false}},
        {MOD_GEOM_ACUBE, {".acube", 3, true, true, false}},
        {MOD_GEOM_2DMS, {".2dms", 2, false, false, true}},
        {MOD_GEOM_A2DMS, {".a2dms", 2, true, false, true}},
    };
    for (unsigned k = 0; k < sizeof tab / sizeof tab[0]; k++)
        if (has_mod(f, in, tab[k].md))
            return tab[k].g;
    return (struct geom){0};
}

/* n rounded up to a vector size (3: 4). */
static unsigned vsize(unsigned n)
{
    return n == 3 ? 4 : n;
}

/* Does a register of the type the vector counts as (vt) hold a 32-bit integer as ptxas takes
 * one for an offset or a surface coordinate: a .b32 or 32-bit integer register, not .f16x2. */
static bool int32_type(unsigned vt)
{
    enum tkind k = type_kind(vt);
    return ir_type_size((enum ir_type)vt) == 4 && (k == TK_B || k == TK_I);
}

/* The register elements of vector o (elements from..o->n) are 32-bit; reported once. */
static bool elems32(struct vctx *v, const struct declmap *dm, const struct ir_insn *in,
                    const struct ir_opnd *o, unsigned from, unsigned idx)
{
    const struct ir_func *f = v->f;
    for (unsigned k = from; k < o->n; k++) {
        const struct ir_opnd *e = &f->opnds[o->first + k];
        const struct ir_regdecl *d = e->kind == OPK_REG ? decl_of(dm, f, e) : NULL;
        if (d && d->type != T_PRED && ir_type_size((enum ir_type)d->type) != 4) {
            char nm[80];
            reg_name(v, d, e, nm, sizeof nm);
            VERR(v, in, "operand %u of '%s': register %s is .%s, not a 32-bit register", idx + 1,
                 ir_op_name((enum ir_op)in->op), nm, ir_type_name((enum ir_type)d->type));
            return false;
        }
    }
    return true;
}

/* Vector o (operand idx; elements from..o->n) as a vector of 32-bit integers (offsets,
 * surface coordinates): 32-bit registers whose vector type (vec_type) is .b32 or an integer
 * type. */
static void int32_vec(struct vctx *v, const struct declmap *dm, const struct ir_insn *in,
                      const struct ir_opnd *o, unsigned from, unsigned idx, const char *what)
{
    if (o->kind != OPK_VEC && o->kind != OPK_TEX)
        return;
    struct ir_opnd sub = *o;
    sub.kind = OPK_VEC;
    sub.first = o->first + from;
    sub.n = o->n - from;
    if (!elems32(v, dm, in, &sub, 0, idx))
        return;
    const struct ir_regdecl *fd;
    const struct ir_opnd *fo;
    const unsigned vt = vec_type(v, dm, in, &sub, idx, &fd, &fo);
    if (vt == T_NONE || int32_type(vt))
        return;
    if (fd) { /* one type: named as a scalar register's mismatch */
        char nm[80];
        reg_name(v, fd, fo, nm, sizeof nm);
        VERR(v, in, "operand %u of '%s': register %s is .%s, not compatible with .s32", idx + 1,
             ir_op_name((enum ir_op)in->op), nm, ir_type_name((enum ir_type)vt));
    } else {
        VERR(v, in, "operand %u of '%s': %s are 32-bit integers, not .%s", idx + 1,
             ir_op_name((enum ir_op)in->op), what, ir_type_name((enum ir_type)vt));
    }
}

/* A scalar operand o (operand idx) of type want by the scalar rule: a register fitting want
 * exactly (.b32 for any), a literal of want's kind (an integer literal is no .f32 value, a
 * floating-point one no integer). */
static void scalar32(struct vctx *v, const struct declmap *dm, const struct ir_insn *in,
                     const struct ir_opnd *o, unsigned idx, unsigned want, const char *what)
{
    if (o->kind == OPK_REG && o->n <= 1) {
        check_reg(v, dm, in, o, idx, want, false, false);
    } else if (o->kind == OPK_IMM) {
        const bool flit = ir_type_is_float((enum ir_type)o->type);
        if (flit != ir_type_is_float((enum ir_type)want))
            VERR(v, in, "operand %u of '%s': %s is .%s, not %s literal", idx + 1,
                 ir_op_name((enum ir_op)in->op), what, ir_type_name((enum ir_type)want),
                 flit ? "a floating-point" : "an integer");
    }
}

/* The coordinates of a texture or surface address (operand idx, o the [h, {c}] operand with
 * the coordinates after its handles): as many as the geometry needs (1d 1, 2d 2, 3d 4, a1d 2,
 * a2d, cube, acube, 2dms, a2dms 4; more are taken, 3 never), 32-bit registers, the array
 * index of a layered geometry an integer outside the vector rule, the others by the ld/st
 * vector rule for the coordinate type (a surface's: 32-bit integers, not .f16x2). */
void tex_coords(struct vctx *v, const struct declmap *dm, const struct ir_insn *in,
                const struct ir_opnd *o, unsigned idx)
{
    const struct ir_func *f = v->f;
    const char *name = ir_op_name((enum ir_op)in->op);
    const bool surf = in->op == OP_SULD || in->op == OP_SUST || in->op == OP_SURED;
    const unsigned ct = surf ? T_S32 : in->type[1];
    const unsigned c = (unsigned)o->imm.u;
    if (o->kind != OPK_TEX || o->first + o->n > f->nopnds || c >= o->n ||
        (ct != T_S32 && ct != T_F32))
        return;
    const unsigned nc = o->n - c;
    if (nc == 3) { /* ptxas: "Illegal vector size: 3" */
        VERR(v, in, "operand %u of '%s': a coordinate vector has 1, 2 or 4 elements, not 3",
             idx + 1, name);
        return;
    }
    const struct geom g = geom_of(f, in);
    const unsigned need = vsize(g.dims + g.layered + g.ms);
    if (g.name && nc < need) {
        VERR(v, in, "operand %u of '%s': %s takes %u coordinates, not %u", idx + 1, name,
             g.name, need, nc);
        return;
    }
    if (!elems32(v, dm, in, o, c, idx))
        return;
    if (g.layered) { /* ptxas: "Array index ... has unexpected type. Expecting type .u32" */
        const struct ir_opnd *e = &f->opnds[o->first + c];
        const struct ir_regdecl *d = e->kind == OPK_REG ? decl_of(dm, f, e) : NULL;
        const int nerr = v->nerr;
        check_reg(v, dm, in, e, idx, T_S32, false, true);
        if (v->nerr == nerr && d && type_kind(d->type) == TK_H2) {
            char nm[80];
            reg_name(v, d, e, nm, sizeof nm);
            VERR(v, in, "operand %u of '%s': the array index %s is .%s, not a 32-bit integer",
                 idx + 1, name, nm, ir_type_name((enum ir_type)d->type));
        }
    }
    const unsigned from = c + (g.layered ? 1 : 0);
    if (from >= o->n)
        return;
    if (g.layered) { /* {%r6, %p1}: with the index, not a vector of predicates (ptxas) */
        bool allpred = true;
        for (unsigned k = from; k < o->n && allpred; k++) {
            const struct ir_opnd *e = &f->opnds[o->first + k];
            const struct ir_regdecl *d = e->kind == OPK_REG ? decl_of(dm, f, e) : NULL;
            allpred = d && d->type == T_PRED;
        }
        if (allpred)
            return;
    }
    if (surf) {
        int32_vec(v, dm, in, o, from, idx, "surface coordinates");
        return;
    }
    struct ir_opnd sub = *o;
    sub.kind = OPK_VEC;
    sub.first = o->first + from;
    sub.n = o->n - from;
    check_ldst_vec(v, dm, in, &sub, idx, ct);
}

/* The offset vector o (operand idx) of tex or tld4 with geometry g: not on a cubemap, 1, 2
 * or 4 elements and at least one per dimension, 32-bit integers. */
static void tex_offset(struct vctx *v, const struct declmap *dm, const struct ir_insn *in,
                       const struct ir_opnd *o, unsigned idx, const struct geom *g)
{
    const char *name = ir_op_name((enum ir_op)in->op);
    if (g->cube) {
        VERR(v, in, "'%s%s' takes no offset vector", name, g->name);
        return;
    }
    if (o->n == 3 || o->n > 4) {
        VERR(v, in, "operand %u of '%s': an offset vector has 1, 2 or 4 elements, not %u",
             idx + 1, name, o->n);
        return;
    }
    if (g->name && o->n < vsize(g->dims)) {
        VERR(v, in, "operand %u of '%s': an offset vector of %s has at least %u elements, not %u",
             idx + 1, name, g->name, vsize(g->dims), o->n);
        return;
    }
    int32_vec(v, dm, in, o, 0, idx, "offsets");
}

/* The depth-compare value o (operand idx): only with .f32 coordinates, a .f32 value. */
static void tex_depth(struct vctx *v, const struct declmap *dm, const struct ir_insn *in,
                      const struct ir_opnd *o, unsigned idx)
{
    if (in->type[1] != T_F32) {
        VERR(v, in, "operand %u of '%s': a depth-compare value needs .f32 coordinates", idx + 1,
             ir_op_name((enum ir_op)in->op));
        return;
    }
    scalar32(v, dm, in, o, idx, T_F32, "the depth-compare value");
}

/* tex d{|p}, [t{, s}, c] then lod (.level) or two gradient vectors (.grad), then an optional
 * offset vector and an optional depth-compare value; tld4 d{|p}, [t{, s}, c]{, offset{,
 * depth}}. The operands' forms (how many, which are vectors) are verify_other's. */
void tex_operands(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    const char *name = ir_op_name((enum ir_op)in->op);
    unsigned at = in->nopnd;
    for (unsigned i = 0; i < in->nopnd && at == in->nopnd; i++)
        if (ir_opnd(f, in, i)->kind == OPK_TEX)
            at = i;
    if (at == in->nopnd || ir_opnd(f, in, at)->first + ir_opnd(f, in, at)->n > f->nopnds)
        return;
    const struct geom g = geom_of(f, in);
    /* the result: 32-bit registers fitting the type as a ld vector's */
    const struct ir_opnd *d = ir_opnd(f, in, 0);
    const unsigned t = in->type[0];
    if (d->kind == OPK_VEC && d->first + d->n <= f->nopnds &&
        (t == T_F32 || t == T_U32 || t == T_S32 || t == T_F16X2) && elems32(v, dm, in, d, 0, 0))
        check_ldst_vec(v, dm, in, d, 0, t);
    tex_coords(v, dm, in, ir_opnd(f, in, at), at);
    const bool level = in->op == OP_TEX && has_mod(f, in, MOD_LEVEL);
    const bool grad = in->op == OP_TEX && has_mod(f, in, MOD_GRAD);
    if ((level || grad) && g.ms)
        VERR(v, in, "'%s%s' takes no multi-sample geometry (%s)", name,
             level ? ".level" : ".grad", g.name);
    unsigned i = at + 1;
    const unsigned ct = in->type[1];
    if (level && i < in->nopnd && (ct == T_F32 || ct == T_S32)) {
        const struct ir_opnd *l = ir_opnd(f, in, i++);
        if (l->kind != OPK_VEC)
            scalar32(v, dm, in, l, i - 1, ct, "the level");
    } else if (grad) {
        for (unsigned k = 0; k < 2 && i < in->nopnd; k++, i++) {
            const struct ir_opnd *gv = ir_opnd(f, in, i);
            if (gv->kind != OPK_VEC || gv->first + gv->n > f->nopnds)
                continue;
            if (g.name && gv->n != vsize(g.dims)) {
                VERR(v, in, "operand %u of 'tex.grad': a gradient vector of %s has %u elements, "
                            "not %u", i + 1, g.name, vsize(g.dims), gv->n);
                continue;
            }
            if (!elems32(v, dm, in, gv, 0, i))
                continue;
            const unsigned vt = vec_type(v, dm, in, gv, i, NULL, NULL);
            if (vt != T_NONE && !reg_fits(T_F32, vt, false, false))
                VERR(v, in, "operand %u of 'tex.grad': gradients are .f32, not .%s", i + 1,
                     ir_type_name((enum ir_type)vt));
        }
    }
    if (i < in->nopnd && ir_opnd(f, in, i)->kind == OPK_VEC &&
        ir_opnd(f, in, i)->first + ir_opnd(f, in, i)->n <= f->nopnds) {
        tex_offset(v, dm, in, ir_opnd(f, in, i), i, &g);
        i++;
        if (i < in->nopnd && ir_opnd(f, in, i)->kind != OPK_VEC)
            tex_depth(v, dm, in, ir_opnd(f, in, i), i);
    } else if (i < in->nopnd && ir_opnd(f, in, i)->kind != OPK_VEC) {
        const struct ir_opnd *s = ir_opnd(f, in, i);
        if (level || grad || in->op == OP_TLD4) {
            tex_depth(v, dm, in, s, i);
        } else if (s->kind == OPK_REG && s->n <= 1 && decl_of(dm, f, s)) {
            /* a plain tex's scalar right after the coordinates: ptxas takes any 32-bit
               register but a predicate or .f16x2, a floating-point one only with .f32
               coordinates */
            const struct ir_regdecl *sd = decl_of(dm, f, s);
            const enum tkind k = type_kind(sd->type);
            if (ir_type_size((enum ir_type)sd->type) != 4 || k == TK_PRED || k == TK_H2 ||
                k == TK_OTHER || k == TK_BH || (k == TK_F && ct != T_F32)) {
                char nm[80];
                reg_name(v, sd, s, nm, sizeof nm);
                VERR(v, in, "operand %u of 'tex': register %s is .%s, not a 32-bit value of "
                            "the coordinates' kind", i + 1, nm,
                     ir_type_name((enum ir_type)sd->type));
            }
        } else if (s->kind == OPK_IMM && ir_type_is_float((enum ir_type)s->type) &&
                   ct != T_F32) {
            VERR(v, in, "operand %u of 'tex': a floating-point literal needs .f32 coordinates",
                 i + 1);
        }
    }
}

/* Is t a packed pair of 8-, 6- or 4-bit floats (cvt's .e4m3x2 ... .ue8m0x2)? */
static bool narrow_x2(unsigned t)
{
    return t == T_E4M3X2 || t == T_E5M2X2 || t == T_E2M3X2 || t == T_E3M2X2 || t == T_E2M1X2 ||
           t == T_UE8M0X2;
}

/* Operand o (operand idx of in) is a register declared exactly rt (a packed narrow pair:
 * ptxas takes only the .bN register of its size, .b8 for .e2m1x2); reported otherwise. */
static void exact_reg(struct vctx *v, const struct declmap *dm, const struct ir_insn *in,
                      const struct ir_opnd *o, unsigned idx, unsigned rt, const char *what)
{
    const struct ir_regdecl *d = o->kind == OPK_REG && o->n <= 1 ? decl_of(dm, v->f, o) : NULL;
    if ((o->kind == OPK_REG && d && d->type == rt) || (o->kind == OPK_REG && !d))
        return;
    VERR(v, in, "operand %u of 'cvt': %s is a .%s register", idx + 1, what,
         ir_type_name((enum ir_type)rt));
}

/* A 32-bit register but a predicate (a .bf16x2 value of cvt: ptxas takes .b32, .u32, .s32,
 * .f32 and .f16x2 ones). */
static void any32_reg(struct vctx *v, const struct declmap *dm, const struct ir_insn *in,
                      const struct ir_opnd *o, unsigned idx)
{
    const struct ir_regdecl *d = o->kind == OPK_REG && o->n <= 1 ? decl_of(dm, v->f, o) : NULL;
    if (o->kind == OPK_REG && o->n <= 1 && (!d || (d->type != T_PRED &&
                                                   ir_type_size((enum ir_type)d->type) == 4)))
        return;
    VERR(v, in, "operand %u of 'cvt': a .bf16x2 value is a 32-bit register", idx + 1);
}

/* cvt to or from a packed pair of narrow floats as ptxas 13 takes it (probed on sm_100a):
 * .e4m3x2 / .e5m2x2 / .e2m1x2 from two .f32 sources or one .f16x2, .e2m3x2 / .e3m2x2 from two
 * .f32, .ue8m0x2 from two .f32 or one .bf16x2; .satfinite required but for .ue8m0x2, which
 * rounds .rz or .rp only; the pair is a .b16 register (.b8 for .e2m1x2), exactly ("Arguments
 * mismatch for instruction 'cvt'"). Back to .f16x2 (.bf16x2 from .ue8m0x2) with .rn, the result
 * a .b32 or .f16x2 register (for .bf16x2 any 32-bit one), without .satfinite; .ue8m0x2 never
 * with .relu (probed on sm_100a). */
void cvt_packed(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    const unsigned dt = in->type[0], st = in->type[1];
    if (in->op != OP_CVT || (!narrow_x2(dt) && !narrow_x2(st)))
        return;
    const char *dn = ir_type_name((enum ir_type)dt), *sn = ir_type_name((enum ir_type)st);
    /* .ue8m0x2 takes no .relu either way ("Illegal modifier '.relu' for instruction 'cvt'
       with type '.ue8m0x2'"); the conversions back from a pair no .satfinite ("Unexpected
       instruction types", "Illegal modifier '.satfinite'") */
    if ((dt == T_UE8M0X2 || st == T_UE8M0X2) && (in->fl & IR_FL(FL_RELU)))
        VERR(v, in, "'cvt.%s.%s' takes no .relu", dn, sn);
    if (narrow_x2(st) && (in->fl & IR_FL(FL_SATFINITE)))
        VERR(v, in, "'cvt.%s.%s' takes no .satfinite", dn, sn);
    if (narrow_x2(dt)) {
        const bool from_f32 = st == T_F32;
        const bool ok = from_f32 || (st == T_F16X2 && (dt == T_E4M3X2 || dt == T_E5M2X2 ||
                                                       dt == T_E2M1X2)) ||
                        (st == T_BF16X2 && dt == T_UE8M0X2);
        if (!ok) {
            VERR(v, in, "'cvt.%s' does not convert from .%s (%s)", dn, sn,
                 dt == T_UE8M0X2 ? ".f32 or .bf16x2" :
                 dt == T_E2M3X2 || dt == T_E3M2X2 ? ".f32" : ".f32 or .f16x2");
            return;
        }
        if (dt == T_UE8M0X2 && in->rnd != RND_RZ && in->rnd != RND_RP)
            VERR(v, in, "'cvt.ue8m0x2' rounds .rz or .rp");
        else if (dt != T_UE8M0X2 && in->rnd != RND_RN)
            VERR(v, in, "'cvt.%s' rounds .rn", dn);
        if (dt != T_UE8M0X2 && !(in->fl & IR_FL(FL_SATFINITE)))
            VERR(v, in, "'cvt.%s' needs .satfinite", dn);
        if (in->nopnd != (from_f32 ? 3u : 2u)) {
            VERR(v, in, "'cvt.%s.%s' takes %s", dn, sn,
                 from_f32 ? "a result and two .f32 sources" : "a result and one source");
            return;
        }
        exact_reg(v, dm, in, ir_opnd(f, in, 0), 0, dt == T_E2M1X2 ? T_B8 : T_B16,
                  "the packed result");
        for (unsigned i = 1; i < in->nopnd; i++) {
            const struct ir_opnd *o = ir_opnd(f, in, i);
            if (st == T_BF16X2)
                any32_reg(v, dm, in, o, i);
            else if (o->kind == OPK_REG && o->n <= 1)
                check_reg(v, dm, in, o, i, st, false, false);
        }
        return;
    }
    /* from a packed pair */
    const unsigned want = st == T_UE8M0X2 ? T_BF16X2 : T_F16X2;
    if (dt != want) {
        VERR(v, in, "'cvt' converts .%s to .%s, not .%s", sn, ir_type_name((enum ir_type)want),
             dn);
        return;
    }
    if (in->rnd != RND_RN)
        VERR(v, in, "'cvt.%s.%s' rounds .rn", dn, sn);
    if (in->nopnd != 2) {
        VERR(v, in, "'cvt.%s.%s' takes a result and one source", dn, sn);
        return;
    }
    if (dt == T_BF16X2)
        any32_reg(v, dm, in, ir_opnd(f, in, 0), 0);
    else if (ir_opnd(f, in, 0)->kind == OPK_REG && ir_opnd(f, in, 0)->n <= 1)
        check_reg(v, dm, in, ir_opnd(f, in, 0), 0, T_F16X2, false, false);
    exact_reg(v, dm, in, ir_opnd(f, in, 1), 1, st == T_E2M1X2 ? T_B8 : T_B16,
              "the packed source");
}

/* The sm_100 mixed-precision forms as ptxas 13 takes them (probed on sm_100a):
 * add / sub{.rnd}{.sat}.f32.{f16, bf16} d, a, c and fma.rnd{.sat}.f32.{f16, bf16} d, a, b, c;
 * no other opcode pairs .f32 with a 16-bit type ("Unexpected instruction types"), no .ftz
 * ("Illegal modifier"); a (and b) a .b16 register (.f16 too for .f16), d and c 32-bit .b / .f
 * registers, c also an f32 immediate ("Arguments mismatch"). */
void mixed_f32(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    const unsigned st = in->type[1];
    if (in->type[0] != T_F32 || (st != T_F16 && st != T_BF16))
        return;
    const char *name = ir_op_name((enum ir_op)in->op), *sn = ir_type_name((enum ir_type)st);
    if (in->op != OP_ADD && in->op != OP_SUB && in->op != OP_FMA) {
        VERR(v, in, "'%s' does not take .f32.%s (only add, sub and fma do)", name, sn);
        return;
    }
    if (in->fl & IR_FL(FL_FTZ))
        VERR(v, in, "'%s.f32.%s' takes no .ftz", name, sn);
    const unsigned nsrc16 = in->op == OP_FMA ? 2 : 1;
    if (in->nopnd != nsrc16 + 2)
        return; /* the operand count is the parser's */
    for (unsigned i = 0; i < in->nopnd; i++) {
        const struct ir_opnd *o = ir_opnd(f, in, i);
        const bool half = i >= 1 && i <= nsrc16;
        const struct ir_regdecl *d =
            o->kind == OPK_REG && o->n <= 1 ? decl_of(dm, f, o) : NULL;
        bool ok;
        if (o->kind != OPK_REG || o->n > 1)
            ok = !half && i > 0 && o->kind != OPK_VEC; /* an immediate c */
        else if (!d)
            ok = true;
        else if (half)
            ok = d->type == T_B16 || (d->type == T_F16 && st == T_F16);
        else
            ok = d->type == T_B32 || d->type == T_F32;
        if (!ok)
            VERR(v, in, "operand %u of '%s.f32.%s': %s", i + 1, name, sn,
                 half ? (st == T_F16 ? "a .b16 or .f16 register" : "a .b16 register")
                 : i == 0 ? "a .b32 or .f32 register"
                          : "a .b32 or .f32 register or an f32 value");
    }
}

/* Rounding modifiers as ptxas 13 takes them (probed on sm_100a): one at most on any
 * instruction ("Multiple rounding modifiers specified": .rn.rz, .rni.rzi, .rna.rn); none on
 * instructions that do not round (mov, min, max, abs, neg, copysign, selp, setp, set, testp,
 * rem, the .approx functions: "Illegal rounding modifier for instruction 'min'"), nor on
 * integer add / sub / mul / mad / div, nor with .approx or .full on div, sqrt and rcp
 * ("Rounding modifier or '.approx' modifier required"). */
void rounding_forms(struct vctx *v, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    const char *name = ir_op_name((enum ir_op)in->op);
    enum ir_mod first = (enum ir_mod)0;
    bool any = false;
    for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++) {
        const enum ir_mod md = (enum ir_mod)f->mods[in->mod + i];
        if (ir_mod_kind(md) != MK_RND)
            continue;
        if (any && md != first) {
            VERR(v, in, "'%s' takes one rounding modifier, not .%s and .%s", name,
                 ir_mod_name(first), ir_mod_name(md));
            return;
        }
        first = md;
        any = true;
    }
    if (!any)
        return;
    switch (in->op) {
    case OP_MOV: case OP_MIN: case OP_MAX: case OP_ABS: case OP_NEG: case OP_COPYSIGN:
    case OP_SELP: case OP_SETP: case OP_SET: case OP_TESTP: case OP_REM: case OP_RSQRT:
    case OP_EX2: case OP_LG2: case OP_SIN: case OP_COS: case OP_TANH:
        VERR(v, in, "'%s' takes no rounding modifier (.%s)", name, ir_mod_name(first));
        return;
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_MAD: case OP_FMA: case OP_DIV: {
        const enum tkind k = type_kind(in->type[0]);
        if (k == TK_I || k == TK_B) {
            VERR(v, in, "'%s.%s' takes no rounding modifier (.%s): integers do not round",
                 name, ir_type_name((enum ir_type)in->type[0]), ir_mod_name(first));
            return;
        }
        break;
    }
    default:
        break;
    }
    if (in->op == OP_CVT) {
        /* scalar integer and floating-point cvt: no rounding between integers, an integer
           rounding from a float to an integer, a floating-point one into a float of another
           size ("Illegal rounding modifier for instruction 'cvt'") */
        enum tkind dk = type_kind(in->type[0]), sk = type_kind(in->type[1]);
        dk = dk == TK_BH ? TK_F : dk; /* .bf16 rounds as a float */
        sk = sk == TK_BH ? TK_F : sk;
        const bool irnd = in->rnd == RND_RNI || in->rnd == RND_RZI || in->rnd == RND_RMI ||
                          in->rnd == RND_RPI;
        const char *dn = ir_type_name((enum ir_type)in->type[0]);
        const char *sn = ir_type_name((enum ir_type)in->type[1]);
        if ((dk != TK_I && dk != TK_F) || (sk != TK_I && sk != TK_F))
            return;
        if (dk == TK_I && sk == TK_I)
            VERR(v, in, "'cvt.%s.%s' takes no rounding modifier (.%s): integers do not round",
                 dn, sn, ir_mod_name(first));
        else if (dk == TK_I && !irnd)
            VERR(v, in, "'cvt.%s.%s' rounds to an integer (.rni, .rzi, .rmi, .rpi), not .%s", dn,
                 sn, ir_mod_name(first));
        else if (dk == TK_F && irnd && in->type[0] != in->type[1])
            VERR(v, in, "'cvt.%s.%s' takes a floating-point rounding (.rn, .rz, .rm, .rp), not "
                        ".%s", dn, sn, ir_mod_name(first));
        return;
    }
    if ((in->op == OP_DIV || in->op == OP_SQRT || in->op == OP_RCP) &&
        (in->fl & (IR_FL(FL_APPROX) | IR_FL(FL_FULL))))
        VERR(v, in, "'%s.%s' takes no rounding modifier (.%s)", name,
             in->fl & IR_FL(FL_APPROX) ? "approx" : "full", ir_mod_name(first));
}

/* Is sp a shared-memory space of one CTA (.shared, .shared::cta)? */
static bool cta_shared(unsigned sp)
{
    return sp == SP_SHARED || sp == SP_SHARED_CTA;
}

/* The state-space modifiers of in: how many, and the n-th (SP_NONE past the end). */
static unsigned nth_space(const struct ir_func *f, const struct ir_insn *in, unsigned n,
                          unsigned *count)
{
    unsigned c = 0, sp = SP_NONE;
    for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++) {
        const enum ir_mod md = (enum ir_mod)f->mods[in->mod + i];
        if (ir_mod_kind(md) != MK_SPACE)
            continue;
        if (c == n)
            sp = (unsigned)ir_mod_value(md);
        c++;
    }
    if (count)
        *count = c;
    return sp;
}

/* State spaces per instruction as ptxas 13 takes them (probed on sm_90 for every space and
 * ~60 instruction forms; ptxas: "State space incorrect for instruction 'atom'", "Modifier
 * '.relaxed' cannot be applied to '.local' space", "Modifier '.nc' requires .global space",
 * "Modifier '.evict_last' cannot be applied to '.shared' space", "Illegal modifier
 * '::cluster' for instruction 'mbarrier.init'", "Unexpected number of state spaces
 * specified in instruction 'cp.async'"). */
void space_forms(struct vctx *v, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    const char *name = ir_op_name((enum ir_op)in->op);
    const unsigned sp = in->space;
    const char *spn = sp == SP_NONE ? "a generic address (no state space)" : NULL;
    char buf[48];
    if (!spn) {
        for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++) {
            const enum ir_mod md = (enum ir_mod)f->mods[in->mod + i];
            if (ir_mod_kind(md) == MK_SPACE && (unsigned)ir_mod_value(md) == sp) {
                snprintf(buf, sizeof buf, ".%s", ir_mod_name(md));
                spn = buf;
                break;
            }
        }
        if (!spn)
            spn = "this state space";
    }
    const bool generic_or_global = sp == SP_NONE || sp == SP_GLOBAL;
    const bool noncoherent = sp == SP_LOCAL || sp == SP_PARAM || sp == SP_PARAM_ENTRY ||
                             sp == SP_PARAM_FUNC || sp == SP_CONST;
    switch (in->op) {
    case OP_LD: case OP_ST: {
        if (in->op == OP_ST && (sp == SP_CONST || sp == SP_PARAM_ENTRY)) {
            VERR(v, in, "'st' cannot store to %s", spn);
            return;
        }
        bool ordered = false, mmio = false;
        for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++) {
            const enum ir_mod md = (enum ir_mod)f->mods[in->mod + i];
            if (ir_mod_kind(md) == MK_SEM && md != MOD_WEAK)
                ordered = true;
            mmio |= md == MOD_MMIO;
        }
        if (ordered && noncoherent) {
            VERR(v, in, "'%s': a memory order or .volatile does not apply to %s", name, spn);
            return;
        }
        if (mmio && !generic_or_global) {
            VERR(v, in, "'%s.mmio' accesses global memory, not %s", name, spn);
            return;
        }
        if (in->op == OP_LD && (in->fl & IR_FL(FL_NC)) && sp != SP_GLOBAL) {
            VERR(v, in, "'ld.nc' needs .global, not %s", spn);
            return;
        }
        if (generic_or_global)
            return;
        for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++) {
            const enum ir_mod md = (enum ir_mod)f->mods[in->mod + i];
            if (md == MOD_L1_EVICT_NORMAL || md == MOD_L1_EVICT_UNCHANGED ||
                md == MOD_L1_EVICT_FIRST || md == MOD_L1_EVICT_LAST || md == MOD_L1_NO_ALLOCATE ||
                md == MOD_L2_CACHE_HINT || md == MOD_L2_64B || md == MOD_L2_128B ||
                md == MOD_L2_256B) {
                VERR(v, in, "'%s': .%s applies to global or generic memory, not %s", name,
                     ir_mod_name(md), spn);
                return;
            }
        }
        return;
    }
    case OP_LDU:
        if (!generic_or_global)
            VERR(v, in, "'ldu' loads from global or generic memory, not %s", spn);
        return;
    case OP_ATOM: case OP_RED:
        if (noncoherent)
            VERR(v, in, "'%s' works on global, shared or generic memory, not %s", name, spn);
        else if (in->vec > 1 && !generic_or_global)
            VERR(v, in, "'%s.v%u' works on global or generic memory, not %s", name, in->vec,
                 spn);
        return;
    case OP_PREFETCH: {
        bool evict = false;
        for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++) {
            const enum ir_mod md = (enum ir_mod)f->mods[in->mod + i];
            evict |= md == MOD_L2_EVICT_LAST || md == MOD_L2_EVICT_NORMAL ||
                     md == MOD_L2_EVICT_FIRST || md == MOD_L2_EVICT_UNCHANGED;
        }
        if (has_mod(f, in, MOD_TENSORMAP))
            return; /* prefetch{.const,.param}.tensormap: a tensor map anywhere */
        if (!generic_or_global && (evict || sp != SP_LOCAL))
            VERR(v, in, "'prefetch' takes global%s or generic memory, not %s",
                 evict ? "" : ", local", spn);
        return;
    }
    case OP_APPLYPRIORITY: case OP_DISCARD:
        if (!generic_or_global)
            VERR(v, in, "'%s' takes global or generic memory, not %s", name, spn);
        return;
    case OP_MAPA:
        if (sp != SP_NONE && sp != SP_SHARED_CLUSTER)
            VERR(v, in, "'mapa' takes .shared::cluster or no state space, not %s", spn);
        return;
    case OP_CVTA: case OP_ISSPACEP:
        if (sp == SP_PARAM_FUNC)
            VERR(v, in, "'%s' does not take .param::func", name);
        return;
    case OP_MBARRIER_INIT: case OP_MBARRIER_INVAL: case OP_MBARRIER_EXPECT_TX:
    case OP_MBARRIER_COMPLETE_TX: case OP_MBARRIER_ARRIVE: case OP_MBARRIER_ARRIVE_DROP:
    case OP_MBARRIER_TEST_WAIT: case OP_MBARRIER_TRY_WAIT:
        if (sp != SP_NONE && !cta_shared(sp) && sp != SP_SHARED_CLUSTER)
            VERR(v, in, "'%s' works on shared memory, not %s", name, spn);
        else if (sp == SP_SHARED_CLUSTER &&
                 (in->op == OP_MBARRIER_INIT || in->op == OP_MBARRIER_INVAL ||
                  in->op == OP_MBARRIER_TEST_WAIT || in->op == OP_MBARRIER_TRY_WAIT))
            VERR(v, in, "'%s' takes .shared or .shared::cta, not .shared::cluster", name);
        else if (sp == SP_SHARED_CLUSTER &&
                 (in->op == OP_MBARRIER_ARRIVE || in->op == OP_MBARRIER_ARRIVE_DROP) &&
                 in->nopnd >= 2 && ir_opnd(f, in, 0)->kind != OPK_SINK)
            VERR(v, in, "'%s' on .shared::cluster returns no state: its destination is '_'",
                 name);
        return;
    case OP_ST_ASYNC: {
        const bool mech = has_mod(f, in, MOD_MBARRIER_COMPLETE_TX_BYTES);
        if (noncoherent)
            VERR(v, in, "'st.async' cannot store to %s", spn);
        else if ((sp == SP_SHARED_CLUSTER || (sp == SP_NONE && in->nopnd >= 3)) && !mech)
            VERR(v, in, "'st.async' to .shared::cluster needs its completion mechanism "
                        "(.mbarrier::complete_tx::bytes)");
        else if (sp == SP_GLOBAL && mech)
            VERR(v, in, "'st.async.global' takes no mbarrier completion mechanism");
        return;
    }
    case OP_RED_ASYNC:
        if (noncoherent)
            VERR(v, in, "'red.async' cannot work on %s", spn);
        else if (in->scope == SCOPE_CLUSTER && sp != SP_NONE && sp != SP_SHARED_CLUSTER)
            VERR(v, in, "'red.async.cluster' works on .shared::cluster, not %s", spn);
        return;
    case OP_GETCTARANK:
        if (sp != SP_NONE && sp != SP_SHARED_CLUSTER)
            VERR(v, in, "'%s' takes .shared::cluster or no state space, not %s", name, spn);
        return;
    case OP_STMATRIX: {
        /* "Modifier '.trans' require for instruction stmatrix with shape '.m16n8'" */
        const bool m168 = has_mod(f, in, MOD_M16N8);
        if (m168 && !has_mod(f, in, MOD_TRANS))
            VERR(v, in, "'stmatrix.m16n8' needs .trans");
        /* "Incorrect instruction type specified for stmatrix with shape ...", "Unexpected
           instruction types specified for 'stmatrix'": .m8n8 .b16, .m16n8 .b8, one type */
        unsigned nt = 0;
        for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++)
            nt += ir_mod_kind((enum ir_mod)f->mods[in->mod + i]) == MK_TYPE;
        if (nt != 1 || in->type[0] != (m168 ? T_B8 : T_B16))
            VERR(v, in, "'stmatrix.%s' takes type %s", m168 ? "m16n8" : "m8n8",
                 m168 ? ".b8" : ".b16");
        /* "Vector of size N is expected for argument 1 of instruction 'stmatrix'" */
        const unsigned want = has_mod(f, in, MOD_X4) ? 4 : has_mod(f, in, MOD_X2) ? 2 : 1;
        const struct ir_opnd *r = in->nopnd > 1 ? ir_opnd(f, in, 1) : NULL;
        if (r && (r->kind != OPK_VEC || r->n != want))
            VERR(v, in, "operand 2 of 'stmatrix': a {...} vector of %u registers", want);
        return;
    }
    case OP_CP_ASYNC_BULK_TENSOR: case OP_CP_ASYNC_BULK_PREFETCH_TENSOR:
    case OP_CP_REDUCE_ASYNC_BULK_TENSOR:
        /* ".dim modifier required for instruction 'cp.async.bulk.tensor'" */
        if (!has_mod(f, in, MOD_DIM1D) && !has_mod(f, in, MOD_DIM2D) &&
            !has_mod(f, in, MOD_DIM3D) && !has_mod(f, in, MOD_DIM4D) &&
            !has_mod(f, in, MOD_DIM5D))
            VERR(v, in, "'%s' needs a dimension (.1d to .5d)", name);
        return;
    case OP_TENSORMAP_REPLACE:
        if (!generic_or_global && sp != SP_SHARED_CTA)
            VERR(v, in, "'tensormap.replace' takes .global, .shared::cta or no state space, "
                        "not %s", spn);
        return;
    case OP_MULTIMEM_LD_REDUCE: case OP_MULTIMEM_ST: case OP_MULTIMEM_RED:
        if (!generic_or_global)
            VERR(v, in, "'%s' takes global or generic memory, not %s", name, spn);
        return;
    case OP_MBARRIER_PENDING_COUNT: case OP_PREFETCHU:
        if (sp != SP_NONE)
            VERR(v, in, "'%s' takes no state space (%s)", name, spn);
        return;
    case OP_CP_ASYNC_MBARRIER_ARRIVE:
        if (sp != SP_NONE && !cta_shared(sp))
            VERR(v, in, "'%s' works on shared memory (.shared, .shared::cta), not %s", name, spn);
        return;
    case OP_CP_ASYNC: {
        unsigned n;
        const unsigned d = nth_space(f, in, 0, &n), s = nth_space(f, in, 1, NULL);
        if (n != 2 || !cta_shared(d) || s != SP_GLOBAL)
            VERR(v, in, "'cp.async' copies .global to .shared (or .shared::cta): two state "
                        "spaces, destination first");
        return;
    }
    default:
        return;
    }
}

/* Is o a 64-bit integer or bit register (a cache policy)? */
static bool reg64(const struct declmap *dm, const struct ir_func *f, const struct ir_opnd *o)
{
    const struct ir_regdecl *d = o->kind == OPK_REG && o->n <= 1 ? decl_of(dm, f, o) : NULL;
    const enum tkind k = d ? type_kind(d->type) : TK_OTHER;
    return d && ir_type_size((enum ir_type)d->type) == 8 && (k == TK_B || k == TK_I);
}

/* More forms ptxas 13 refuses that the differential test found (scripts/ptxas-diff.pl seeds
 * 2-4; each probed on sm_90/sm_100a): multimem.{ld_reduce,st,red} with a memory order but
 * no scope ("Modifier '.relaxed' requires scope"); clusterlaunchcontrol.query_cancel's
 * response in a .b128 register and its ctaid result in a 32-bit one; st.async's data
 * vector of the .vN it names ("Argument vector size mismatch"); cp.reduce.async.bulk's
 * operation/type pairs (add .u32 .s32 .u64 .f32 .f64 and .noftz .f16/.bf16; min/max .u32
 * .s32 .u64 .s64 .f16 .bf16; inc/dec .u32; and/or/xor .b32 .b64: "Incorrect type '.f32' for
 * operation '.min'"); tex.f16's result in 16-bit registers. */
void misc_forms(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    const char *name = ir_op_name((enum ir_op)in->op);
    switch (in->op) {
    case OP_MULTIMEM_LD_REDUCE: case OP_MULTIMEM_ST: case OP_MULTIMEM_RED:
        if (in->sem != SEM_NONE && in->sem != SEM_WEAK && in->scope == SCOPE_NONE)
            VERR(v, in, "'%s' with a memory order needs a scope (.cta, .cluster, .gpu, .sys)",
                 name);
        return;
    case OP_TENSORMAP_REPLACE:
        /* "Tensormap size modifier required for instruction 'tensormap.replace'" */
        if (!has_mod(f, in, MOD_B1024))
            VERR(v, in, "'tensormap.replace' needs the tensor-map size .b1024");
        return;
    case OP_ISTYPEP:
        /* the object: a variable or a 64-bit register ("Arguments mismatch") */
        if (in->nopnd > 1 && ir_opnd(f, in, 1)->kind == OPK_REG && !reg64(dm, f, ir_opnd(f, in, 1)))
            VERR(v, in, "operand 2 of 'istypep' is a 64-bit register or a variable");
        return;
    case OP_WMMA_MMA: {
        /* two types (.dtype.ctype, each .f16 or .f32) for f16 A and B, else four
           ("Unexpected instruction types specified for 'wmma.mma'") */
        unsigned t[5], nt = 0;
        for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods && nt < 5; i++)
            if (ir_mod_kind((enum ir_mod)f->mods[in->mod + i]) == MK_TYPE)
                t[nt++] = (unsigned)ir_mod_value((enum ir_mod)f->mods[in->mod + i]);
        const bool two = nt == 2 && (t[0] == T_F16 || t[0] == T_F32) &&
                         (t[1] == T_F16 || t[1] == T_F32);
        if (!two && nt != 4)
            VERR(v, in, "'wmma.mma' takes two types (.dtype.ctype of .f16/.f32) or four "
                        "(.dtype.atype.btype.ctype), not these %u", nt);
        return;
    }
    case OP_VOTE:
        if (in->mode == MODE_NONE)
            VERR(v, in, "'vote' needs a mode (.all, .any, .uni, .ballot)");
        return;
    case OP_TCGEN05_LD: case OP_TCGEN05_ST: case OP_TCGEN05_LD_RED: {
        /* "Shape modifier required for instruction 'tcgen05.ld'" */
        if (!has_mod(f, in, MOD_SHAPE_16X64B) && !has_mod(f, in, MOD_SHAPE_16X128B) &&
            !has_mod(f, in, MOD_SHAPE_16X256B) && !has_mod(f, in, MOD_SHAPE_32X32B) &&
            !has_mod(f, in, MOD_SHAPE_16X32BX2))
            VERR(v, in, "'%s' needs a shape (.16x64b, .16x128b, .16x256b, .32x32b, "
                        ".16x32bx2)", name);
        /* ".num modifier required for instruction 'tcgen05.ld'" */
        if (!has_mod(f, in, MOD_X1) && !has_mod(f, in, MOD_X2) && !has_mod(f, in, MOD_X4) &&
            !has_mod(f, in, MOD_X8) && !has_mod(f, in, MOD_X16) && !has_mod(f, in, MOD_X32) &&
            !has_mod(f, in, MOD_X64) && !has_mod(f, in, MOD_X128))
            VERR(v, in, "'%s' needs a repeat count (.x1 .. .x128)", name);
        unsigned nt = 0;
        for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++)
            nt += ir_mod_kind((enum ir_mod)f->mods[in->mod + i]) == MK_TYPE;
        if (nt > 1)
            VERR(v, in, "'%s' takes one type (%s), not %u", name,
                 in->op == OP_TCGEN05_LD_RED ? ".f32, .u32 or .s32" : ".b32", nt);
        return;
    }
    case OP_CLUSTERLAUNCHCONTROL_QUERY_CANCEL: {
        /* the types themselves: verify_form2.c (small_forms) */
        if (in->nopnd < 2)
            return;
        const struct ir_opnd *r = ir_opnd(f, in, 1), *d = ir_opnd(f, in, 0);
        const struct ir_regdecl *rd = r->kind == OPK_REG ? decl_of(dm, f, r) : NULL;
        if (r->kind == OPK_REG && rd && rd->type != T_B128)
            VERR(v, in, "operand 2 of '%s': the cancel response is a .b128 register", name);
        const struct ir_regdecl *dd = d->kind == OPK_REG && d->n <= 1 ? decl_of(dm, f, d)
                                                                      : NULL;
        if (dd && in->type[0] == T_B32 && !int_reg_ok(dm, f, d, 4))
            VERR(v, in, "operand 1 of '%s' is a 32-bit integer register", name);
        return;
    }
    case OP_ST_ASYNC: {
        const struct ir_opnd *d = in->nopnd >= 2 ? ir_opnd(f, in, 1) : NULL;
        if (d && d->kind == OPK_VEC && in->vec > 1 && d->n != in->vec)
            VERR(v, in, "operand 2 of 'st.async.v%u' is a vector of %u elements, not %u",
                 in->vec, in->vec, d->n);
        return;
    }
    case OP_CP_ASYNC_BULK: case OP_CP_ASYNC_BULK_TENSOR: case OP_CP_ASYNC_BULK_PREFETCH:
    case OP_CP_ASYNC_BULK_PREFETCH_TENSOR:
        /* a copy takes no reduction operation ("Illegal modifier '.add' for instruction
           'cp.async.bulk'"): that is cp.reduce.async.bulk */
        if (in->mode != MODE_NONE)
            VERR(v, in, "'%s' takes no reduction operation (that is cp.reduce.async.bulk)",
                 name);
        return;
    case OP_CP_REDUCE_ASYNC_BULK: case OP_CP_REDUCE_ASYNC_BULK_TENSOR: {
        /* "Reduction operation is required for instruction 'cp.reduce.async.bulk'" */
        if (in->mode == MODE_NONE) {
            VERR(v, in, "'%s' needs a reduction operation (.add, .min, .max, .inc, .dec, .and, "
                        ".or, .xor)", name);
            return;
        }
        unsigned nt = 0, t = T_NONE;
        for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++)
            if (ir_mod_kind((enum ir_mod)f->mods[in->mod + i]) == MK_TYPE) {
                t = (unsigned)ir_mod_value((enum ir_mod)f->mods[in->mod + i]);
                nt++;
            }
        if (in->op == OP_CP_REDUCE_ASYNC_BULK_TENSOR && nt == 0)
            return; /* the tensor form's type comes from the tensor map */
        if (nt != 1) {
            VERR(v, in, "'%s' takes one type, not %u", name, nt);
            return;
        }
        bool ok;
        switch (in->mode) {
        case MODE_ADD:
            ok = t == T_U32 || t == T_S32 || t == T_U64 || t == T_F32 || t == T_F64 ||
                 ((t == T_F16 || t == T_BF16) && (in->fl & IR_FL(FL_NOFTZ)));
            break;
        case MODE_MIN: case MODE_MAX:
            ok = t == T_U32 || t == T_S32 || t == T_U64 || t == T_S64 || t == T_F16 ||
                 t == T_BF16;
            break;
        case MODE_INC: case MODE_DEC: ok = t == T_U32; break;
        case MODE_AND: case MODE_OR: case MODE_XOR: ok = t == T_B32 || t == T_B64; break;
        default: ok = true; break;
        }
        if (!ok)
            VERR(v, in, "'%s' does not take this operation with type .%s%s", name,
                 ir_type_name((enum ir_type)t),
                 (t == T_F16 || t == T_BF16) && in->mode == MODE_ADD ? " (add needs .noftz)"
                                                                       : "");
        return;
    }
    case OP_TEX: {
        const struct ir_opnd *d = in->nopnd ? ir_opnd(f, in, 0) : NULL;
        if (in->type[0] != T_F16 || !d || d->kind != OPK_VEC || d->first + d->n > f->nopnds)
            return;
        for (unsigned k = 0; k < d->n; k++) {
            const struct ir_opnd *e = &f->opnds[d->first + k];
            const struct ir_regdecl *ed = e->kind == OPK_REG ? decl_of(dm, f, e) : NULL;
            if (ed && (ed->type == T_PRED || ir_type_size((enum ir_type)ed->type) != 2)) {
                char nm[80];
                reg_name(v, ed, e, nm, sizeof nm);
                VERR(v, in, "operand 1 of 'tex.f16': register %s is .%s, not a 16-bit register",
                     nm, ir_type_name((enum ir_type)ed->type));
                return;
            }
        }
        return;
    }
    default:
        return;
    }
}


/* Tensor-core and bulk-copy forms ptxas 13 refuses that the differential test found
 * (scripts/ptxas-diff.pl seeds 2-4, each probed on sm_100a): mma / mma.sp without both
 * layouts ("'.blayout' modifier required for instruction 'mma'"); wmma.mma's integer and
 * .b1 A and B fragments in 32-bit integer registers; tcgen05.ld/st's tensor-memory address
 * a 32-bit register; tcgen05.cp's .b8x16 and source format given together ("Unexpected number
 * of 'format conversion' modifiers"); tcgen05.mma's enable-input-d a predicate or a constant
 * in every form; the bulk copies' cache-policy operand exactly with .L2::cache_hint
 * ("Arguments mismatch for instruction 'cp.async.bulk'"). */
void tensor_forms(struct vctx *v, const struct declmap *dm, const struct ir_insn *in)
{
    const struct ir_func *f = v->f;
    const char *name = ir_op_name((enum ir_op)in->op);
    switch (in->op) {
    case OP_MMA: case OP_MMA_SP: case OP_MMA_SP_ORDERED: {
        unsigned nl = 0;
        for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++)
            nl += f->mods[in->mod + i] == MOD_ROW || f->mods[in->mod + i] == MOD_COL;
        if (nl != 2)
            VERR(v, in, "'%s' needs the layouts of A and B (.row.col, ...)", name);
        return;
    }
    case OP_WMMA_MMA: {
        unsigned t[6];
        unsigned n = 0;
        for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods && n < 6; i++)
            if (ir_mod_kind((enum ir_mod)f->mods[in->mod + i]) == MK_TYPE)
                t[n++] = (unsigned)ir_mod_value((enum ir_mod)f->mods[in->mod + i]);
        const unsigned a = n == 4 ? t[1] : T_NONE;
        if (a != T_S8 && a != T_U8 && a != T_S4 && a != T_U4 && a != T_B1)
            return;
        for (unsigned i = 1; i <= 2 && i < in->nopnd; i++) {
            const struct ir_opnd *o = ir_opnd(f, in, i);
            for (unsigned k = 0; o->kind == OPK_VEC && o->first + o->n <= f->nopnds && k < o->n;
                 k++)
                if (!int_reg_ok(dm, f, &f->opnds[o->first + k], 4)) {
                    VERR(v, in, "operand %u of 'wmma.mma': the .%s fragment is 32-bit integer "
                                "registers", i + 1, ir_type_name((enum ir_type)a));
                    break;
                }
        }
        return;
    }
    case OP_TCGEN05_LD: case OP_TCGEN05_ST: {
        const unsigned ai = in->op == OP_TCGEN05_LD ? 1 : 0;
        const struct ir_opnd *a = ai < in->nopnd ? ir_opnd(f, in, ai) : NULL;
        if (a && a->kind == OPK_ADDR && a->slot != IR_NOSLOT) {
            const struct ir_opnd base = {
                .kind = OPK_REG, .rf = a->rf, .slot = a->slot, .n = 1, .sym = IR_NOSYM};
            if (!int_reg_ok(dm, f, &base, 4))
                VERR(v, in, "operand %u of '%s': a tensor-memory address register is 32-bit",
                     ai + 1, name);
        }
        return;
    }
    case OP_TCGEN05_CP: {
        const bool b8 = has_mod(f, in, MOD_B8X16);
        const bool src = has_mod(f, in, MOD_B6X16_P32) || has_mod(f, in, MOD_B4X16_P64);
        if (b8 != src)
            VERR(v, in, "'tcgen05.cp' takes .b8x16 and a source format (.b6x16_p32, "
                        ".b4x16_p64) together");
        return;
    }
    case OP_TCGEN05_MMA: case OP_TCGEN05_MMA_SP: case OP_TCGEN05_MMA_WS:
    case OP_TCGEN05_MMA_WS_SP: {
        if (!has_mod(f, in, MOD_BLOCK_SCALE) || in->nopnd == 0)
            return; /* the plain forms: verify_form2.c */
        const struct ir_opnd *o = ir_opnd(f, in, in->nopnd - 1);
        const struct ir_regdecl *d = o->kind == OPK_REG ? decl_of(dm, f, o) : NULL;
        if (d && d->type != T_PRED)
            VERR(v, in, "operand %u of '%s': enable-input-d is a predicate or a constant",
                 in->nopnd, name);
        return;
    }
    case OP_CP_ASYNC_BULK: case OP_CP_ASYNC_BULK_PREFETCH: case OP_CP_ASYNC_BULK_TENSOR:
    case OP_CP_ASYNC_BULK_PREFETCH_TENSOR: case OP_CP_REDUCE_ASYNC_BULK:
    case OP_CP_REDUCE_ASYNC_BULK_TENSOR: {
        /* cp.async.bulk and .prefetch's operands after the size: verify_form2.c (bulk),
           which reports a register no modifier takes and a policy that is not 64-bit; here
           only their missing policy */
        const bool tensor = in->op != OP_CP_ASYNC_BULK && in->op != OP_CP_ASYNC_BULK_PREFETCH;
        if (in->nopnd == 0)
            return;
        const bool hint = (in->fl & IR_FL(FL_L2_HINT)) != 0;
        const struct ir_opnd *last = ir_opnd(f, in, in->nopnd - 1);
        if (!hint && tensor && reg64(dm, f, last))
            VERR(v, in, "operand %u of '%s': a cache-policy operand needs .L2::cache_hint",
                 in->nopnd, name);
        else if (hint && !has_mod(f, in, MOD_CP_MASK) &&
                 (tensor ? !reg64(dm, f, last) : last->kind != OPK_REG))
            VERR(v, in, "'%s.L2::cache_hint' needs its cache-policy operand (a 64-bit register)",
                 name);
        return;
    }
    default:
        return;
    }
}
