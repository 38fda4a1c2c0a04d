/*
 * interp/tmap_replace.c — tensor maps modified on the device (sm_90a): tensormap.replace and
 * tensormap.cp_fenceproxy.
 *
 *   tensormap.replace.tile.field{.global,.shared::cta}.b1024.type [addr], {ord,} new_val
 *     writes one field of the 128-byte tiled tensor map at addr (tmap.h's encoding, the one
 *     cuTensorMapEncodeTiled writes): .global_address (b64), .rank (new_val + 1: the field is
 *     zero-based, the CUDA programming guide), .box_dim / .global_dim / .element_stride [ord]
 *     (b32) and .global_stride [ord] (b64: the byte stride of dimension ord + 1), .elemtype
 *     (the CUtensorMapDataType codes 0 .. 12), .interleave_layout (0: none), .swizzle_mode
 *     (0 none, 1 32B, 2 64B, 3 128B), .swizzle_atomicity (0: 16 bytes), .fill_mode (0 zero,
 *     1 NaN). A value outside the ISA's validity table for its field is a fault naming it, and
 *     so are the values the ISA allows that the engine's tensor copies do not implement
 *     (interleaved layouts, the 96B swizzle, other swizzle atomicities, the packed 4/6-bit
 *     element types). On sm_90a a zero-filled 128-byte buffer may be the starting value (the
 *     programming guide's "encoding a tensor map purely on device"): its first replace makes
 *     it a tiled map of rank 1, u8 elements, every other field 0 until written. Maps made by
 *     the im2col encoders cannot be modified (the ISA: tiled maps only).
 *   tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope.sync.aligned
 *     [dst], [src], 128: copies the map (the fence orders nothing more in this engine: copies
 *     and their uses are in program order).
 * The tensor copies (bulk.c bk_map) check a map's fields before they use it, so a map left
 * incomplete is a fault at its first use, not garbage.
 */
#include <stdio.h>
#include <string.h>

#include "interp/internal.h"
#include "interp/ops/helpers.h"
#include "interp/tensor.h"
#include "interp/tmap.h"

/* The field a tensormap.replace writes (its MOD_*), 0 if none. */
static unsigned tr_field(const struct ir_func *f, const struct ir_insn *in)
{
    for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++)
        switch (f->mods[in->mod + i]) {
        case MOD_GLOBAL_ADDRESS: case MOD_RANK: case MOD_BOX_DIM: case MOD_GLOBAL_DIM:
        case MOD_GLOBAL_STRIDE: case MOD_ELEMENT_STRIDE: case MOD_ELEMTYPE:
        case MOD_INTERLEAVE_LAYOUT: case MOD_SWIZZLE_MODE: case MOD_SWIZZLE_ATOMICITY:
        case MOD_FILL_MODE:
            return f->mods[in->mod + i];
        default: break;
        }
    return 0;
}

/* See tensor.h. */
bool tmapr_supported(const struct ir_func *f, const struct ir_insn *in, const struct ir_opnd *O)
{
    if (in->op == OP_TENSORMAP_CP_FENCEPROXY)
        return in->nopnd == 3 && O[0].kind == OPK_ADDR && O[1].kind == OPK_ADDR &&
               O[2].kind == OPK_IMM;
    if (in->op != OP_TENSORMAP_REPLACE || !tr_field(f, in) || O[0].kind != OPK_ADDR)
        return false;
    const unsigned fd = tr_field(f, in);
    const bool ord = fd == MOD_BOX_DIM || fd == MOD_GLOBAL_DIM || fd == MOD_GLOBAL_STRIDE ||
                     fd == MOD_ELEMENT_STRIDE;
    if (in->nopnd != (ord ? 3u : 2u) || (ord && O[1].kind != OPK_IMM))
        return false;
    const struct ir_opnd *v = &O[in->nopnd - 1];
    return (v->kind == OPK_REG || v->kind == OPK_IMM) && v->slot != IR_NOSLOT;
}

/* The space class of in's [addr] operand (.global, .shared::cta, or generic). */
static unsigned tr_xs(int space)
{
    return space == SP_GLOBAL ? XS_GLOBAL
           : space == SP_SHARED || space == SP_SHARED_CTA ? XS_SHARED
                                                          : XS_GENERIC;
}

/* buf = "WHAT V is outside LO .. HI" when v is, else NULL. */
static const char *tr_out(char *buf, size_t n, const char *what, uint32_t v, uint32_t lo,
                          uint32_t hi)
{
    if (v >= lo && v <= hi)
        return NULL;
    snprintf(buf, n, "%s %u is outside %u .. %u", what, v, lo, hi);
    return buf;
}

/* buf = "WHAT V (WHY) is not implemented" when cond, else NULL. */
static const char *tr_unimpl(char *buf, size_t n, bool cond, const char *what, uint32_t v,
                             const char *why)
{
    if (!cond)
        return NULL;
    snprintf(buf, n, "%s %u (%s) is not implemented", what, v, why);
    return buf;
}

/* Lane l's replace of field fd by v (ordinal ord) in map m; NULL, or why it is refused. */
static const char *tr_apply(struct tmap *m, unsigned fd, unsigned ord, uint64_t v, char *buf,
                            size_t n)
{
    const uint32_t v32 = (uint32_t)v;
    const char *bad;
    const bool ordf = fd == MOD_BOX_DIM || fd == MOD_GLOBAL_DIM || fd == MOD_GLOBAL_STRIDE ||
                      fd == MOD_ELEMENT_STRIDE;
    if (ordf && (bad = tr_out(buf, n, "ordinal", ord, 0,
                              fd == MOD_GLOBAL_STRIDE ? TMAP_MAX_RANK - 2 : TMAP_MAX_RANK - 1)))
        return bad;
    switch (fd) {
    case MOD_GLOBAL_ADDRESS:
        if (v % 16) {
            snprintf(buf, n, "global address %#llx is not a multiple of 16",
                     (unsigned long long)v);
            return buf;
        }
        m->addr = v;
        return NULL;
    case MOD_RANK: /* zero-based */
        if ((bad = tr_out(buf, n, "rank value (the rank minus one)", v32, 0, TMAP_MAX_RANK - 1)))
            return bad;
        m->rank = (uint8_t)(v32 + 1);
        return NULL;
    case MOD_BOX_DIM:
        if ((bad = tr_out(buf, n, "box dimension", v32, 1, 256)))
            return bad;
        m->box[ord] = (uint16_t)v32;
        return NULL;
    case MOD_GLOBAL_DIM:
        if ((bad = tr_out(buf, n, "global dimension", v32, 1, UINT32_MAX)))
            return bad;
        m->dim_m1[ord] = v32 - 1;
        return NULL;
    case MOD_GLOBAL_STRIDE:
        if (v % 16 || v >= UINT64_C(1) << 40) {
            snprintf(buf, n, "global stride %llu is not a multiple of 16 below 2^40",
                     (unsigned long long)v);
            return buf;
        }
        m->stride[ord + 1] = v;
        return NULL;
    case MOD_ELEMENT_STRIDE:
        if ((bad = tr_out(buf, n, "element stride", v32, 1, 8)))
            return bad;
        m->estride[ord] = (uint8_t)v32;
        return NULL;
    case MOD_ELEMTYPE:
        if ((bad = tr_out(buf, n, "element type", v32, 0, 15)) ||
            (bad = tr_unimpl(buf, n, v32 >= TMAP_DTYPE_COUNT, "element type", v32,
                             "a packed 4/6-bit type")))
            return bad;
        m->dtype = (uint8_t)v32;
        m->esize = (uint8_t)tmap_dtype_size(v32);
        m->stride[0] = m->esize;
        return NULL;
    case MOD_INTERLEAVE_LAYOUT:
        return (bad = tr_out(buf, n, "interleave layout", v32, 0, 2))
                   ? bad
                   : tr_unimpl(buf, n, v32 != 0, "interleave layout", v32,
                               v32 == 1 ? "16 bytes" : "32 bytes");
    case MOD_SWIZZLE_MODE:
        if ((bad = tr_out(buf, n, "swizzle mode", v32, 0, 4)) ||
            (bad = tr_unimpl(buf, n, v32 == 4, "swizzle mode", v32, "96 bytes")))
            return bad;
        m->swizzle = (uint8_t)v32;
        return NULL;
    case MOD_SWIZZLE_ATOMICITY:
        return (bad = tr_out(buf, n, "swizzle atomicity", v32, 0, 3))
                   ? bad
                   : tr_unimpl(buf, n, v32 != 0, "swizzle atomicity", v32, "not 16 bytes");
    case MOD_FILL_MODE:
        if ((bad = tr_out(buf, n, "fill mode", v32, 0, 1)))
            return bad;
        m->oob_nan = (uint8_t)v32;
        return NULL;
    default: return "unknown field";
    }
}

/* See tensor.h. */
int tmapr_exec(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
               const struct ir_opnd *O, const struct tc_mem *mr)
{
    const struct ir_func *f = w->fn->f;
    const char *what = ir_op_name((enum ir_op)in->op);
    char why[160], msg[300];
    for (unsigned l = 0; l < 32; l++) {
        if (!(M >> l & 1))
            continue;
        if (in->op == OP_TENSORMAP_CP_FENCEPROXY) {
            const uint64_t da = vm_addr(w, &O[0], l), sa = vm_addr(w, &O[1], l);
            const uint64_t n = O[2].imm.u;
            uint8_t *dp, *sp;
            int k = n != TMAP_SIZE ? TRAP_ILLEGAL
                    : (da | sa) % 64 ? TRAP_MISALIGNED
                                     : vm_xlate(w, XS_SHARED, l, sa, TMAP_SIZE, false, &sp);
            if (!k)
                k = vm_xlate(w, XS_GLOBAL, l, da, TMAP_SIZE, true, &dp);
            if (k) {
                snprintf(msg, sizeof msg,
                         "%s: a %llu-byte copy of a tensor map (128 bytes, 64-byte aligned) "
                         "from shared %#llx to global %#llx",
                         what, (unsigned long long)n, (unsigned long long)sa,
                         (unsigned long long)da);
                interp_fault(w, pc, l, (enum trap_kind)k, da, TMAP_SIZE, SP_GLOBAL, true, msg);
                return -1;
            }
            memmove(dp, sp, TMAP_SIZE);
            tc_mem_report(mr, l, sa, XS_SHARED, TMAP_SIZE, false, sp);
            tc_mem_report(mr, l, da, XS_GLOBAL, TMAP_SIZE, true, dp);
            continue;
        }
        const unsigned xs = tr_xs(in->space), fd = tr_field(f, in);
        const uint64_t a = vm_addr(w, &O[0], l);
        uint8_t *p;
        int k = a % 64 ? TRAP_MISALIGNED : vm_xlate(w, xs, l, a, TMAP_SIZE, true, &p);
        if (k) {
            snprintf(msg, sizeof msg, "%s: the tensor map (128 bytes, 64-byte aligned)", what);
            interp_fault(w, pc, l, (enum trap_kind)k, a, TMAP_SIZE, vm_xs_space(xs, a), true,
                         msg);
            return -1;
        }
        struct tmap m;
        memcpy(&m, p, sizeof m);
        if (m.magic != TMAP_MAGIC) {
            static const uint8_t zero[TMAP_SIZE];
            if (memcmp(p, zero, TMAP_SIZE)) {
                snprintf(msg, sizeof msg,
                         "%s: no tensor map at this address (neither made by "
                         "cuTensorMapEncodeTiled nor a zero-filled 128-byte buffer)",
                         what);
                interp_fault(w, pc, l, TRAP_ILLEGAL, a, TMAP_SIZE, vm_xs_space(xs, a), true,
                             msg);
                return -1;
            }
            memset(&m, 0, sizeof m); /* a map built on the device from zeros: rank 1, u8 */
            m.magic = TMAP_MAGIC;
            m.kind = TMAP_TILED;
            m.rank = 1;
            m.esize = 1;
            m.stride[0] = 1;
        }
        if (m.kind != TMAP_TILED) {
            snprintf(msg, sizeof msg, "%s: the tensor map is an im2col one (only tiled maps "
                                      "may be modified on the device)",
                     what);
            interp_fault(w, pc, l, TRAP_ILLEGAL, a, TMAP_SIZE, vm_xs_space(xs, a), true, msg);
            return -1;
        }
        const bool ordf = in->nopnd == 3;
        const unsigned ord = ordf ? (unsigned)O[1].imm.u : 0;
        const char *bad = tr_apply(&m, fd, ord, vm_get(w, &O[in->nopnd - 1], l), why, sizeof why);
        if (bad) {
            snprintf(msg, sizeof msg, "%s.%s: %s", what, ir_mod_name((enum ir_mod)fd), bad);
            interp_fault(w, pc, l, TRAP_ILLEGAL, a, TMAP_SIZE, vm_xs_space(xs, a), true, msg);
            return -1;
        }
        memcpy(p, &m, sizeof m);
        tc_mem_report(mr, l, a, xs, TMAP_SIZE, true, p);
    }
    return 0;
}
