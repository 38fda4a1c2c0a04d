/*
 * interp/select.c — handler selection, run once per instruction when a program is loaded.
 *
 * The handler families (interp/ops/FAMILY.inc, listed by families.inc) are included here with
 * H(name, cond, body) turned into `if (cond) return HND_name;`: the first row whose condition
 * holds wins. Conditions see `in` (the instruction), `O` (its operands), `f` and `m`.
 */
#include <stddef.h>
#include <string.h>

#include "interp/internal.h"
#include "interp/tensor.h"

/* Does the instruction carry modifier `mod` (in source order list)? */
static bool sel_has_mod(const struct ir_func *f, const struct ir_insn *in, unsigned mod)
{
    for (unsigned i = 0; i < in->nmod; i++)
        if (f->mods[in->mod + i] == mod)
            return true;
    return false;
}

/* Is .param symbol `sym` a parameter of the kernel `f` (lives in the launch's param block)? */
static bool sel_kernel_param(const struct ir_module *m, const struct ir_func *f, uint32_t sym)
{
    if (!f->is_entry || sym == IR_NOSYM || sym >= m->nsyms)
        return false;
    uint32_t fi = (uint32_t)(f - m->funcs);
    (void)fi;
    return sym >= f->param && sym < f->param + f->nparam;
}

/* Operand i is a register or constant slot of register file rf. */
static bool sel_rf(const struct ir_opnd *o, unsigned rf)
{
    return (o->kind == OPK_REG || o->kind == OPK_IMM || o->kind == OPK_SREG ||
            o->kind == OPK_SYM) && o->rf == rf && o->slot != IR_NOSLOT;
}

/* Can mov read (dst false) or write operand o element by element: a register, or (a source)
 * a constant, special register or address slot, or a {…} list of those and '_'? Anything
 * else (an address, a label) has no slot to read or write. */
static bool sel_vec_elem_ok(const struct ir_opnd *e, bool dst)
{
    if (e->slot == IR_NOSLOT)
        return false;
    return e->kind == OPK_REG ||
           (!dst && (e->kind == OPK_IMM || e->kind == OPK_SREG || e->kind == OPK_SYM));
}

static bool sel_vec_ok(const struct ir_func *f, const struct ir_opnd *o, bool dst)
{
    if (o->kind != OPK_VEC)
        return sel_vec_elem_ok(o, dst);
    if ((uint64_t)o->first + o->n > f->nopnds)
        return false;
    for (unsigned k = 0; k < o->n; k++) {
        const struct ir_opnd *e = &f->opnds[o->first + k];
        if (e->kind != OPK_SINK && !sel_vec_elem_ok(e, dst))
            return false;
    }
    return true;
}

/* Is the direct call target the function named `name` (a library call the engine runs)? */
static bool sel_callee_is(const struct ir_module *m, const struct ir_insn *in,
                          const struct ir_opnd *O, const char *name)
{
    for (unsigned i = 0; i < in->nopnd; i++)
        if (O[i].kind == OPK_FUNC)
            return O[i].imm.u < m->nfuncs && !m->funcs[O[i].imm.u].defined &&
                   !strcmp(ir_str(m, m->funcs[O[i].imm.u].name), name);
    return false;
}

#define CALLEE_IS(name) sel_callee_is(m, in, O, name)
#define HASMOD(x) sel_has_mod(f, in, MOD_##x)
#define KPARAM(i) sel_kernel_param(m, f, O[i].sym)
#define RFIS(i, x) sel_rf(&O[i], RF_##x)
#define TSIZE0 (ir_type_size(in->type[0]))
#define SREGIS(i, x) (O[i].kind == OPK_SREG && O[i].sreg == SR_##x)
#define VECOK(i, dst) sel_vec_ok(f, &O[i], dst)

/*
 * Pick the handler for one instruction (HND_NONE when the engine cannot run it): used by
 * interp_program_load, which reports HND_NONE as "unsupported".
 */
unsigned interp_select(const struct ir_module *m, const struct ir_func *f,
                       const struct ir_insn *in, const struct ir_opnd *O)
{
    (void)m;
#define H(name, cond, ...)                                                                     \
    if (cond)                                                                                  \
        return HND_##name;
#define HMODE HMODE_SELECT
#include "interp/ops/families.inc"
#undef HMODE
#undef H
    return HND_NONE;
}

static const char *const handler_names[HND__COUNT] = {
    "NONE",
#define H(name, cond, ...) #name,
#define HMODE HMODE_NAME
#include "interp/ops/families.inc"
#undef HMODE
#undef H
};

/* Name of handler h, for traces and diagnostics. */
const char *interp_handler_name(unsigned h)
{
    return h < HND__COUNT ? handler_names[h] : "?";
}

/*
 * Why an instruction the engine refuses (interp_select gave HND_NONE) is not executed, for the
 * load error, or NULL when there is nothing more specific to say than "unsupported".
 */
const char *interp_unsupported_why(const struct ir_func *f, const struct ir_insn *in)
{
    /* ptxas 13 takes a .pred register among the .b32 elements of a texture, surface or
       matrix instruction's data vector; what the predicate then holds is not documented (the
       engine defines it for ld/st/mov data vectors only: stored as 0 or 1, loaded as != 0) */
    switch (in->op) {
    case OP_TEX: case OP_TLD4: case OP_SULD: case OP_SUST: case OP_MMA: case OP_MMA_SP:
    case OP_MMA_SP_ORDERED: case OP_WMMA_LOAD: case OP_WMMA_STORE: case OP_WMMA_MMA:
    case OP_WGMMA_MMA_ASYNC: case OP_WGMMA_MMA_ASYNC_SP:
        for (unsigned i = 0; i < in->nopnd; i++) {
            const struct ir_opnd *o = ir_opnd(f, in, i);
            for (unsigned k = 0; o->kind == OPK_VEC && k < o->n && o->first + k < f->nopnds; k++)
                if (f->opnds[o->first + k].kind == OPK_REG &&
                    f->opnds[o->first + k].rf == RF_PRED)
                    return "unsupported (a .pred register as an element of a data vector: "
                           "ptxas takes it, but what the predicate holds there is not "
                           "documented; the engine defines it only for ld, st and mov data "
                           "vectors)";
        }
        break;
    default:
        break;
    }
    const char *why = tensor_unsupported_why(f, in);
    if (why || (why = async_unsupported_why(f, in)) || (why = bulk_unsupported_why(f, in)) ||
        (why = wgmma_unsupported_why(f, in)) || (why = tcgen05_unsupported_why(f, in)) ||
        (why = stasync_unsupported_why(f, in)))
        return why;
    switch (in->op) {
    case OP_MULTIMEM_LD_REDUCE:
    case OP_MULTIMEM_ST:
    case OP_MULTIMEM_RED:
        return "unsupported (multimem: multicast memory spans several GPUs, which the emulator "
               "does not have)";
    case OP_TEX:
    case OP_TLD4:
        return "unsupported (texture form: the engine runs tex{.level,.grad}.{1d,2d,3d,a1d,a2d,"
               "cube,acube}.v4 (and .v4.f16 / .v2.f16x2) and tld4.{r,g,b,a}.{2d,a2d,cube,"
               "acube}.v4 of .f32/.s32/.u32 on a "
               "texture object in a .b64 register, with an optional offset vector (not on "
               "cubemaps), without the depth compare operand (CUDA makes no depth "
               "textures), and tex.{2dms,a2dms}.v4 with .s32 "
               "coordinates (which fault when run: CUDA makes no multisample textures); "
               "texture references (.texref "
               "variables) cannot be bound: CUDA 13 has no API for them, use texture objects)";
    case OP_TXQ:
    case OP_SUQ:
        return "unsupported (query form: the engine answers txq .width, .height, .depth (also "
               "with .level), .array_size, .num_mipmap_levels, .num_samples, .channel_data_type, "
               ".channel_order, .normalized_coords, .filter_mode, .addr_mode_{0,1,2} and suq "
               ".width, .height, .depth, .array_size, .channel_data_type, .channel_order, "
               ".memory_layout of an object in a .b64 register, and txq "
               ".force_unnormalized_coords, .filter_mode, .addr_mode_{0,1,2} of a .samplerref "
               "variable (independent mode) whose initializer sets that member; "
               ".force_unnormalized_coords is defined only for those (the ISA: independent-mode "
               ".samplerref; a GPU answers it for a texture object from driver state no document "
               "describes), a member an initializer leaves unset has the driver's undocumented "
               "default (CUDA 13 has no API to set it), and .texref variables cannot be bound)";
    case OP_SULD:
    case OP_SUST:
    case OP_SURED:
        return "unsupported (surface form: the engine runs suld.b / sust.b / sust.p and 32/64-bit "
               "integer sured.b / sured.p {1d,2d,3d,a1d,a2d} on a surface object in a .b64 "
               "register; surface references (.surfref variables) cannot be bound: CUDA 13 has "
               "no API for them, use surface objects)";
    default: return NULL;
    }
}
