/*
 * interp/bulk.c — bulk asynchronous copies of sm_90: cp.async.bulk, cp.reduce.async.bulk,
 * cp.async.bulk.prefetch.L2 and the tensor instructions cp.async.bulk.tensor,
 * cp.reduce.async.bulk.tensor and cp.async.bulk.prefetch.tensor .{1..5}d in .tile, im2col and
 * gather4/scatter4 modes (tensor maps: interp/tmap.h).
 *
 * The functional engine completes a bulk copy when it is issued, as it does cp.async
 * (async.c): the destination holds the data right after the instruction, and a copy that
 * signals an mbarrier (.mbarrier::complete_tx::bytes) lowers that object's tx-count by the
 * bytes copied at once, which may complete its phase. The bulk async-groups (.bulk_group,
 * cp.async.bulk.commit_group / wait_group{.read}) therefore have nothing left to wait for.
 *
 * Each executing lane issues its own copy, in lane order. The ISA's rules are enforced: the
 * size is a multiple of 16 and both addresses are 16-byte aligned (otherwise a misaligned
 * fault), each range lies inside one allocation of its space (otherwise an out-of-bounds
 * fault). A cp.reduce.async.bulk into global memory reduces element by element with host
 * atomics (other CTAs may reduce into the same memory on other host threads); into shared
 * memory (the CTA's own or, through shared::cluster, another CTA of its cluster, which runs on
 * the same host thread) with plain read-modify-writes. The floating-point reductions (into
 * global memory only) go through vm_atom_elem (bk_reduce_fp). .multicast::cluster copies the
 * bytes into each CTA of the 16-bit ctaMask at the destination's CTA-relative offset and
 * signals each one's mbarrier at the mbarrier's offset. .cp_mask (shared::cta -> global)
 * copies byte i of each 16-byte chunk only where bit i of the 16-bit byteMask is set. The
 * prefetch is a hint: its operands are checked (alignment, size), nothing is read.
 *
 * A tensor copy moves the box of its map at the given (signed) coordinates element by element
 * between global memory and a dense, swizzled shared tile (bk_tensor; interp/README.md has the
 * layout); elements outside the tensor read as zeros (or the map's NaN) and are not stored. A
 * tensor reduction combines the tile into the tensor with host atomics of the map's element
 * type; a tensor prefetch checks its map and reads nothing. im2col copies walk pixels through
 * the map's bounding box (bk_tensor), the .im2col::w / ::w::128 loads walk W only (with the
 * wHalo halo pixels and the wOffset shift), gather4/scatter4 move four rows. A .cta_group::2
 * .multicast::cluster load signals, for each destination CTA, the mbarrier in that CTA or its
 * pair peer: the one whose rank has the parity of the mbarrier operand's CTA.
 */
#include <stdlib.h>
#include <string.h>

#include "interp/internal.h"
#include "interp/ops/helpers.h"
#include "interp/tensor.h"
#include "interp/tmap.h"

enum {
    BULK_ALIGN = 16, /* size and address granule of every bulk copy */
};

/* Does the instruction carry modifier `mod`? */
static bool bk_has(const struct ir_func *f, const struct ir_insn *in, unsigned mod)
{
    for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++)
        if (f->mods[in->mod + i] == mod)
            return true;
    return false;
}

/* The state spaces the instruction names, in source order (destination, then source);
 * SP_NONE where fewer are given. */
static void bk_spaces(const struct ir_func *f, const struct ir_insn *in, int sp[2])
{
    unsigned n = 0;
    sp[0] = sp[1] = SP_NONE;
    for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods && n < 2; i++) {
        const enum ir_mod md = (enum ir_mod)f->mods[in->mod + i];
        if (ir_mod_kind(md) == MK_SPACE)
            sp[n++] = ir_mod_value(md);
    }
}

/* The reduction operator of a cp.reduce.async.bulk (MOD_AND … MOD_DEC), or 0. */
static unsigned bk_redop(const struct ir_func *f, const struct ir_insn *in)
{
    static const unsigned ops[] = {MOD_AND, MOD_OR, MOD_XOR, MOD_ADD,
                                   MOD_MIN, MOD_MAX, MOD_INC, MOD_DEC};
    for (unsigned i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (bk_has(f, in, ops[i]))
            return ops[i];
    return 0;
}

/* Is (op, type) a reduction the ISA lists for cp.reduce.async.bulk (ptxas 13 agrees)? Into
 * shared::cluster the integer ones without .s64; into global memory also .add .f32 / .f64,
 * .add.noftz .f16 / .bf16 (.noftz is required there and allowed nowhere else) and .min / .max
 * .f16 / .bf16. */
static bool bk_red_ok(unsigned op, unsigned t, bool cluster, bool noftz)
{
    const bool half = t == T_F16 || t == T_BF16;
    if (noftz != (op == MOD_ADD && half))
        return false;
    switch (op) {
    case MOD_AND: case MOD_OR: case MOD_XOR: return t == T_B32 || t == T_B64;
    case MOD_ADD:
        return t == T_U32 || t == T_S32 || t == T_U64 ||
               (!cluster && (t == T_F32 || t == T_F64 || half));
    case MOD_INC: case MOD_DEC: return t == T_U32;
    case MOD_MIN: case MOD_MAX:
        return t == T_U32 || t == T_S32 || t == T_U64 || (!cluster && (t == T_S64 || half));
    default: return false;
    }
}

/* The atomic mode (MODE_*) of reduction operator op (MOD_*). */
static unsigned bk_mode(unsigned op)
{
    switch (op) {
    case MOD_AND: return MODE_AND;
    case MOD_OR: return MODE_OR;
    case MOD_XOR: return MODE_XOR;
    case MOD_ADD: return MODE_ADD;
    case MOD_MIN: return MODE_MIN;
    case MOD_MAX: return MODE_MAX;
    case MOD_INC: return MODE_INC;
    default: return MODE_DEC;
    }
}

static bool bk_value(const struct ir_opnd *o)
{
    return (o->kind == OPK_REG || o->kind == OPK_IMM) && o->slot != IR_NOSLOT;
}

/* Operands after the fixed ones: the cache policy of .L2::cache_hint, nothing else. */
static bool bk_tail_ok(const struct ir_insn *in, const struct ir_opnd *O, unsigned fixed)
{
    const bool hint = (in->fl & IR_FL(FL_L2_HINT)) != 0;
    if (in->nopnd != fixed + hint)
        return false;
    return !hint || bk_value(&O[fixed]);
}

/* The completion mechanism names the destination allows: an mbarrier for shared memory
 * destinations, a bulk async-group for global ones. */
static bool bk_form_ok(const struct ir_func *f, const struct ir_insn *in, const struct ir_opnd *O,
                       int dst, int src)
{
    if (in->nopnd < 3 || O[0].kind != OPK_ADDR || O[1].kind != OPK_ADDR || !bk_value(&O[2]))
        return false;
    const bool mcast = bk_has(f, in, MOD_MULTICAST_CLUSTER);
    const bool mbar = bk_has(f, in, MOD_MBARRIER_COMPLETE_TX_BYTES);
    if (bk_has(f, in, MOD_CP_MASK)) { /* [dstMem], [srcMem], size{, policy}, byteMask */
        const unsigned n = 4 + ((in->fl & IR_FL(FL_L2_HINT)) != 0);
        return in->op == OP_CP_ASYNC_BULK && dst == SP_GLOBAL && src == SP_SHARED_CTA &&
               bk_has(f, in, MOD_BULK_GROUP) && !mbar && !mcast && in->nopnd == n &&
               bk_value(&O[3]) && bk_value(&O[n - 1]);
    }
    if (mcast) /* [dstMem], [srcMem], size, [mbar], ctaMask{, policy} */
        return in->op == OP_CP_ASYNC_BULK && dst == SP_SHARED_CLUSTER && src == SP_GLOBAL &&
               mbar && !bk_has(f, in, MOD_BULK_GROUP) && in->nopnd >= 5 &&
               O[3].kind == OPK_ADDR && bk_value(&O[4]) && bk_tail_ok(in, O, 5);
    const bool group = bk_has(f, in, MOD_BULK_GROUP);
    if (dst == SP_GLOBAL)
        return src == SP_SHARED_CTA && group && !mbar && bk_tail_ok(in, O, 3);
    if (dst != SP_SHARED_CLUSTER && dst != SP_SHARED_CTA)
        return false;
    if (!mbar || group || in->nopnd < 4 || O[3].kind != OPK_ADDR)
        return false;
    if (src == SP_GLOBAL)
        return in->op == OP_CP_ASYNC_BULK && bk_tail_ok(in, O, 4);
    /* shared::cta -> shared::cluster (no cache hint) */
    return src == SP_SHARED_CTA && dst == SP_SHARED_CLUSTER && in->nopnd == 4;
}

/* The .Nd of a tensor copy (1 .. 5), 0 when absent. */
static unsigned bk_rank(const struct ir_func *f, const struct ir_insn *in)
{
    static const unsigned dims[] = {MOD_DIM1D, MOD_DIM2D, MOD_DIM3D, MOD_DIM4D, MOD_DIM5D};
    for (unsigned i = 0; i < 5; i++)
        if (bk_has(f, in, dims[i]))
            return i + 1;
    return 0;
}

/* [tmap, {c0, …}]: a .b64 register (or kernel-parameter symbol) holding the map's generic
 * address and `rank` 32-bit coordinates. */
static bool bk_tmap_ok(const struct ir_func *f, const struct ir_opnd *a, unsigned rank)
{
    if (a->kind != OPK_TEX || a->imm.u != 1 || a->n != 1 + rank)
        return false;
    const struct ir_opnd *h = &f->opnds[a->first];
    if (!(h->kind == OPK_REG && h->rf == RF_B64 && h->slot != IR_NOSLOT))
        return false;
    for (unsigned k = 1; k <= rank; k++) {
        const struct ir_opnd *c = &f->opnds[a->first + k];
        if (!bk_value(c) || c->rf != RF_B32)
            return false;
    }
    return true;
}

/* {o0, …}: the n 16-bit im2col offsets of an .im2col load or prefetch. */
static bool bk_offsets_ok(const struct ir_func *f, const struct ir_opnd *a, unsigned n)
{
    if (a->kind != OPK_VEC || a->n != n)
        return false;
    for (unsigned k = 0; k < n; k++)
        if (!bk_value(&f->opnds[a->first + k]))
            return false;
    return true;
}

/* The tensor instructions in .tile mode and, on 3D .. 5D tensors, in im2col mode (loads and
 * prefetches .im2col with their offsets, stores and reductions .im2col_no_offs) and the
 * im2col-wide modes (loads and prefetches .im2col::w / .im2col::w::128 with {wHalo, wOffset}):
 * loads global -> shared::cta/cluster on an mbarrier (to shared::cluster also
 * .multicast::cluster), stores shared::cta -> global in a bulk group, reductions shared::cta
 * -> global in a bulk group, prefetches into L2; loads also with .cta_group, 2D
 * .tile::gather4 loads and .tile::scatter4 stores. */
static bool bk_tensor_ok(const struct ir_func *f, const struct ir_insn *in,
                         const struct ir_opnd *O, int dst, int src)
{
    const bool iw = bk_has(f, in, MOD_IM2COL_W), iw128 = bk_has(f, in, MOD_IM2COL_W_128);
    if (iw && iw128)
        return false;
    unsigned rank = bk_rank(f, in);
    /* .tile::gather4 (loads) / .tile::scatter4 (stores): 2D, five coordinates {col, row0 ..
       row3} */
    const bool g4 = bk_has(f, in, MOD_TILE_GATHER4), s4 = bk_has(f, in, MOD_TILE_SCATTER4);
    if (g4 || s4) {
        if (rank != 2 || (g4 && s4) || iw || iw128 || in->op != OP_CP_ASYNC_BULK_TENSOR ||
            (g4 && dst == SP_GLOBAL) || (s4 && dst != SP_GLOBAL))
            return false;
        rank = 5; /* the coordinates' count for bk_tmap_ok */
    }
    if (!rank)
        return false;
    const bool wide = iw || iw128;
    const bool i2c = bk_has(f, in, MOD_IM2COL) || wide;
    const bool nooffs = bk_has(f, in, MOD_IM2COL_NO_OFFS);
    /* the offsets operand, when there is one ({wHalo, wOffset} in the wide modes) */
    const unsigned noff = wide ? 2 : i2c ? rank - 2 : 0;
    if ((i2c || nooffs) && (rank < 3 || (wide && (nooffs || bk_has(f, in, MOD_IM2COL)))))
        return false;
    const bool mcast = bk_has(f, in, MOD_MULTICAST_CLUSTER);
    const bool mbar = bk_has(f, in, MOD_MBARRIER_COMPLETE_TX_BYTES);
    const bool group = bk_has(f, in, MOD_BULK_GROUP);
    /* .cta_group on loads only */
    const bool cg1 = bk_has(f, in, MOD_CTA_GROUP_1), cg2 = bk_has(f, in, MOD_CTA_GROUP_2);
    if ((cg1 || cg2) && (in->op != OP_CP_ASYNC_BULK_TENSOR || dst == SP_GLOBAL || (cg1 && cg2)))
        return false;
    if (wide && in->op != OP_CP_ASYNC_BULK_PREFETCH_TENSOR &&
        (in->op != OP_CP_ASYNC_BULK_TENSOR || dst == SP_GLOBAL))
        return false; /* no im2col-wide stores or reductions */
    if (in->op == OP_CP_ASYNC_BULK_PREFETCH_TENSOR) /* [tmap, coords]{, offsets}{, policy} */
        return dst == SP_GLOBAL && bk_has(f, in, MOD_L2) && !mcast && !mbar && !group &&
               !nooffs && in->nopnd >= 1 + (i2c ? 1 : 0) && bk_tmap_ok(f, &O[0], rank) &&
               (!i2c || bk_offsets_ok(f, &O[1], noff)) && bk_tail_ok(in, O, i2c ? 2 : 1);
    if (in->op == OP_CP_REDUCE_ASYNC_BULK_TENSOR || dst == SP_GLOBAL)
        /* [tmap, coords], [srcMem]{, policy} */
        return dst == SP_GLOBAL && src == SP_SHARED_CTA && group && !mbar && !mcast && !i2c &&
               (in->op != OP_CP_REDUCE_ASYNC_BULK_TENSOR || bk_redop(f, in)) &&
               in->nopnd >= 2 && bk_tmap_ok(f, &O[0], rank) && O[1].kind == OPK_ADDR &&
               bk_tail_ok(in, O, 2);
    /* [dstMem], [tmap, coords], [mbar]{, offsets}{, ctaMask}{, policy} */
    const unsigned fixed = 3 + (i2c ? 1 : 0) + (mcast ? 1 : 0);
    return (dst == SP_SHARED_CLUSTER || (dst == SP_SHARED_CTA && !mcast)) &&
           src == SP_GLOBAL && mbar && !group && !nooffs && in->nopnd >= fixed &&
           O[0].kind == OPK_ADDR && bk_tmap_ok(f, &O[1], rank) && O[2].kind == OPK_ADDR &&
           (!i2c || bk_offsets_ok(f, &O[3], noff)) && (!mcast || bk_value(&O[fixed - 1])) &&
           bk_tail_ok(in, O, fixed);
}

/* See tensor.h. */
bool bulk_supported(const struct ir_func *f, const struct ir_insn *in, const struct ir_opnd *O)
{
    int sp[2];
    bk_spaces(f, in, sp);
    switch (in->op) {
    case OP_CP_ASYNC_BULK:
        return bk_form_ok(f, in, O, sp[0], sp[1]);
    case OP_CP_REDUCE_ASYNC_BULK:
        return bk_form_ok(f, in, O, sp[0], sp[1]) &&
               bk_red_ok(bk_redop(f, in), in->type[0], sp[0] == SP_SHARED_CLUSTER,
                         (in->fl & IR_FL(FL_NOFTZ)) != 0);
    case OP_CP_ASYNC_BULK_PREFETCH:
        return sp[0] == SP_GLOBAL && bk_has(f, in, MOD_L2) && in->nopnd >= 2 &&
               O[0].kind == OPK_ADDR && bk_value(&O[1]) && bk_tail_ok(in, O, 2);
    case OP_CP_ASYNC_BULK_TENSOR:
    case OP_CP_REDUCE_ASYNC_BULK_TENSOR:
    case OP_CP_ASYNC_BULK_PREFETCH_TENSOR:
        return bk_tensor_ok(f, in, O, sp[0], sp[1]);
    default:
        return false;
    }
}

/* See tensor.h. */
const char *bulk_unsupported_why(const struct ir_func *f, const struct ir_insn *in)
{
    (void)f;
    switch (in->op) {
    case OP_CP_ASYNC_BULK:
    case OP_CP_REDUCE_ASYNC_BULK:
    case OP_CP_ASYNC_BULK_PREFETCH:
        return "unsupported (this form of cp.async.bulk / cp.reduce.async.bulk: the engine "
               "runs global -> shared::cta/shared::cluster (.multicast::cluster too) and "
               "shared::cta -> shared::cluster with .mbarrier::complete_tx::bytes, shared::cta "
               "-> global with .bulk_group (.cp_mask too), and the reductions the ISA lists "
               "for them)";
    case OP_CP_ASYNC_BULK_TENSOR:
    case OP_CP_REDUCE_ASYNC_BULK_TENSOR:
    case OP_CP_ASYNC_BULK_PREFETCH_TENSOR:
        return "unsupported (cp.async.bulk.tensor / cp.reduce.async.bulk.tensor / "
               "cp.async.bulk.prefetch.tensor: the engine runs the .tile and 3D-5D .im2col / "
               ".im2col_no_offs forms (loads global -> shared::cta/shared::cluster with "
               ".mbarrier::complete_tx::bytes, .multicast::cluster too; stores and reductions "
               "shared::cta -> global with .bulk_group; prefetches .L2; loads also .cta_group::1 "
               "and .cta_group::2; 2D .tile::gather4 loads and "
               ".tile::scatter4 stores; 3D-5D .im2col::w / .im2col::w::128 loads and prefetches)";
    default:
        return NULL;
    }
}

/* The host pointer to [a, a + n) in space sp (SP_GLOBAL, SP_SHARED_CTA, SP_SHARED_CLUSTER) for
 * lane l, after the ISA's alignment rule; *xs: its space class for the reports. A fault
 * (recorded) returns -1. */
static int bk_range(struct warp *w, uint32_t pc, unsigned l, int sp, uint64_t a, uint64_t n,
                    bool wr, const char *what, const char *role, unsigned *xs, uint8_t **p)
{
    const struct cta *c = w->cta;
    const int space = sp == SP_GLOBAL ? SP_GLOBAL : SP_SHARED;
    char msg[160];
    int k = 0;
    *xs = sp == SP_GLOBAL ? XS_GLOBAL : XS_SHARED;
    if (a % BULK_ALIGN) {
        snprintf(msg, sizeof msg, "%s: the %s address is not a multiple of 16", what, role);
        interp_fault(w, pc, l, TRAP_MISALIGNED, a, BULK_ALIGN, space, wr, msg);
        return -1;
    }
    if (sp == SP_GLOBAL) {
        if (n && !mem_check(c->L->dev->mem, &w->mc, a, (unsigned)n))
            k = TRAP_OOB;
        else if (n && wr && (w->mc.flags & MEM_F_CONST))
            k = TRAP_READONLY;
        else
            *p = (uint8_t *)(uintptr_t)a;
    } else if (a < c->shared_size && c->shared_size - a >= n) {
        *p = c->shared + a;
    } else if (sp == SP_SHARED_CLUSTER && a >= CLU_STRIDE) {
        k = cluster_xlate(w, a, (unsigned)n, p);
    } else {
        k = TRAP_OOB;
    }
    if (k) {
        snprintf(msg, sizeof msg, "%s: %s of %llu bytes", what, role, (unsigned long long)n);
        interp_fault(w, pc, l, (enum trap_kind)k, a, (unsigned)(n < 256 ? n : 256), space, wr,
                     msg);
        return -1;
    }
    return 0;
}

/* Report n bytes at a (space class xs) to mr in 16-byte pieces, the copy granule. */
static void bk_report(const struct tc_mem *mr, unsigned l, uint64_t a, unsigned xs, uint64_t n,
                      bool wr, const uint8_t *p)
{
    tc_mem_range(mr, l, a, xs, n, wr, p, BULK_ALIGN);
}

/* One element of a reduction: op(d, s) for the type's width and signedness. */
static uint64_t bk_red1(unsigned op, unsigned t, uint64_t d, uint64_t s)
{
    const bool sg = t == T_S32 || t == T_S64;
    const bool w64 = ir_type_size((enum ir_type)t) == 8;
    const int64_t ds = w64 ? (int64_t)d : (int32_t)(uint32_t)d;
    const int64_t ss = w64 ? (int64_t)s : (int32_t)(uint32_t)s;
    switch (op) {
    case MOD_AND: return d & s;
    case MOD_OR: return d | s;
    case MOD_XOR: return d ^ s;
    case MOD_ADD: return d + s;
    case MOD_MIN: return sg ? (ds < ss ? d : s) : (d < s ? d : s);
    case MOD_MAX: return sg ? (ds > ss ? d : s) : (d > s ? d : s);
    case MOD_INC: return d >= s ? 0 : d + 1;         /* .u32: (d >= s) ? 0 : d + 1 */
    case MOD_DEC: return d == 0 || d > s ? s : d - 1; /* .u32: (d == 0 || d > s) ? s : d - 1 */
    default: return d;
    }
}

/* [dp + i] = op([dp + i], [sp + i]) element by element; atomic: with host atomics. */
static void bk_reduce(unsigned op, unsigned t, uint8_t *dp, const uint8_t *sp, uint64_t n,
                      bool atomic)
{
    const unsigned es = ir_type_size((enum ir_type)t);
    for (uint64_t o = 0; o < n; o += es) {
        if (es == 4) {
            uint32_t s, d;
            memcpy(&s, sp + o, 4);
            uint32_t *q = (uint32_t *)(void *)(dp + o);
            if (!atomic) {
                memcpy(&d, q, 4);
                d = (uint32_t)bk_red1(op, t, d, s);
                memcpy(q, &d, 4);
                continue;
            }
            d = __atomic_load_n(q, __ATOMIC_RELAXED);
            while (!__atomic_compare_exchange_n(q, &d, (uint32_t)bk_red1(op, t, d, s), false,
                                                __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                ;
        } else {
            uint64_t s, d;
            memcpy(&s, sp + o, 8);
            uint64_t *q = (uint64_t *)(void *)(dp + o);
            if (!atomic) {
                memcpy(&d, q, 8);
                d = bk_red1(op, t, d, s);
                memcpy(q, &d, 8);
                continue;
            }
            d = __atomic_load_n(q, __ATOMIC_RELAXED);
            while (!__atomic_compare_exchange_n(q, &d, bk_red1(op, t, d, s), false,
                                                __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                ;
        }
    }
}

/* The 16-byte chunk bits a swizzle mode XORs into a shared address: 128B: bits 4..6 ^= bits
 * 7..9, 64B: bits 4..5 ^= bits 7..8, 32B: bit 4 ^= bit 7 (repeating every 1024, 512, 256
 * bytes). */
static uint64_t bk_swizzle(unsigned mode, uint64_t a)
{
    static const uint64_t mask[] = {0, 1, 3, 7};
    return a ^ (((a >> 7) & mask[mode & 3]) << 4);
}

/* What a tensor instruction does with its box. */
enum bk_dir {
    BK_LOAD,     /* global -> shared (cp.async.bulk.tensor to shared memory) */
    BK_STORE,    /* shared -> global (cp.async.bulk.tensor to global memory) */
    BK_REDUCE,   /* shared op= into global (cp.reduce.async.bulk.tensor) */
    BK_PREFETCH, /* nothing moves (cp.async.bulk.prefetch.tensor: the map is checked) */
};

/* The encoder that writes maps of kind k (TMAP_*), for fault messages. */
static const char *bk_encoder(unsigned k)
{
    return k == TMAP_IM2COL     ? "cuTensorMapEncodeIm2col"
           : k == TMAP_IM2COL_W ? "cuTensorMapEncodeIm2colWide"
                                : "cuTensorMapEncodeTiled";
}


/* What makes tiled map m unusable (cuTensorMapEncodeTiled's rules: runtime/cudart_tensormap.c
 * checks them when it encodes; tensormap.replace writes one field at a time), or NULL. */
static const char *bk_tiled_bad(const struct tmap *m)
{
    static const unsigned span[] = {0, 32, 64, 128};
    if (m->rank < 1 || m->rank > TMAP_MAX_RANK || !m->esize ||
        m->esize != tmap_dtype_size(m->dtype) || m->swizzle > TMAP_SWZ_128B)
        return "its rank, element type or swizzle";
    if (m->addr % 16)
        return "a global address not a multiple of 16";
    for (unsigned d = 0; d < m->rank; d++) {
        if (m->box[d] < 1 || m->box[d] > 256)
            return "a box dimension outside 1 .. 256";
        if (m->estride[d] < 1 || m->estride[d] > 8)
            return "an element stride outside 1 .. 8";
        if (d && (!m->stride[d] || m->stride[d] % 16 || m->stride[d] >= UINT64_C(1) << 40))
            return "a global stride not a multiple of 16 in 16 .. 2^40 - 16";
    }
    if ((unsigned)m->box[0] * m->esize % 16)
        return "an inner box dimension not a multiple of 16 bytes";
    if (m->swizzle && (unsigned)m->box[0] * m->esize > span[m->swizzle])
        return "an inner box dimension wider than the swizzle span";
    if (m->oob_nan && !tmap_dtype_float(m->dtype))
        return "the NaN fill with an integer element type";
    return NULL;
}

/* Lane l's tensor map at the generic address in the [tmap, {c0, …}] operand t, copied to *m,
 * and its `ncoord` coordinates in c[] (0 beyond them; `rank` of them but for gather4 /
 * scatter4's five). A fault (recorded) returns -1 when the map is misaligned, unreadable, not
 * one cuTensorMapEncodeTiled / Im2col / Im2colWide wrote, of another rank, or of another kind
 * (TMAP_TILED / TMAP_IM2COL / TMAP_IM2COL_W) than the instruction's mode. */
static int bk_map(struct warp *w, uint32_t pc, unsigned l, const struct ir_opnd *t,
                  unsigned rank, unsigned ncoord, unsigned kind, const char *what,
                  struct tmap *m, int64_t c[TMAP_MAX_RANK])
{
    const struct ir_opnd *all = w->fn->opnds;
    const uint64_t ma = vm_get(w, &all[t->first], l);
    uint8_t *mp;
    char msg[200];
    int k = (ma & 63) ? TRAP_MISALIGNED : vm_xlate(w, XS_GENERIC, l, ma, 8, false, &mp);
    uint8_t *last;
    if (!k)
        k = vm_xlate(w, XS_GENERIC, l, ma + TMAP_SIZE - 8, 8, false, &last);
    if (k) {
        snprintf(msg, sizeof msg, "%s: the tensor map (128 bytes, 64-byte aligned)", what);
        interp_fault(w, pc, l, (enum trap_kind)k, ma, 8, vm_xs_space(XS_GENERIC, ma), false, msg);
        return -1;
    }
    memcpy(m, mp, sizeof *m);
    if (m->magic != TMAP_MAGIC || m->rank != rank) {
        if (m->magic != TMAP_MAGIC)
            snprintf(msg, sizeof msg,
                     "%s: no tensor map at this address (not made by "
                     "cuTensorMapEncodeTiled / Im2col / Im2colWide)",
                     what);
        else
            snprintf(msg, sizeof msg, "%s: a .%ud copy with a tensor map of rank %u", what, rank,
                     m->rank);
        interp_fault(w, pc, l, TRAP_ILLEGAL, ma, 8, vm_xs_space(XS_GENERIC, ma), false, msg);
        return -1;
    }
    if (m->kind != kind) {
        snprintf(msg, sizeof msg, "%s: %s with a tensor map made by %s", what,
                 kind == TMAP_IM2COL     ? "an im2col copy"
                 : kind == TMAP_IM2COL_W ? "an .im2col::w copy"
                                         : "a .tile copy",
                 bk_encoder(m->kind));
        interp_fault(w, pc, l, TRAP_ILLEGAL, ma, 8, vm_xs_space(XS_GENERIC, ma), false, msg);
        return -1;
    }
    /* a tiled map may have been modified on the device (tensormap.replace, tmap_replace.c,
       which checks each value but not the map as a whole): the encoder's rules again */
    const char *bad = m->kind == TMAP_TILED ? bk_tiled_bad(m) : NULL;
    if (bad) {
        snprintf(msg, sizeof msg, "%s: the tensor map (modified on the device?) is invalid: %s",
                 what, bad);
        interp_fault(w, pc, l, TRAP_ILLEGAL, ma, 8, vm_xs_space(XS_GENERIC, ma), false, msg);
        return -1;
    }
    for (unsigned d = 0; d < TMAP_MAX_RANK; d++)
        c[d] = d < ncoord ? (int32_t)(uint32_t)vm_get(w, &all[t->first + 1 + d], l) : 0;
    return 0;
}

/* The element type (T_*) cp.reduce.async.bulk.tensor reduces map data type dt with under
 * operator op (MOD_*), or 0 when the ISA does not list the pair: .add on u32, s32, u64, f32
 * (also the FTZ f32 type), f16, bf16; .min / .max on u32, s32, u64, s64, f16, bf16; .inc /
 * .dec on u32; .and / .or / .xor on the 32- and 64-bit integer types. */
static unsigned bk_tred_type(unsigned op, unsigned dt)
{
    /* CUtensorMapDataType: UINT32 2, INT32 3, UINT64 4, INT64 5, FLOAT16 6, FLOAT32 7,
       BFLOAT16 9, FLOAT32_FTZ 10 */
    static const unsigned char ty[TMAP_DTYPE_COUNT] = {
        [2] = T_U32, [3] = T_S32, [4] = T_U64, [5] = T_S64,
        [6] = T_F16, [7] = T_F32, [9] = T_BF16, [10] = T_F32};
    const unsigned t = dt < TMAP_DTYPE_COUNT ? ty[dt] : 0;
    switch (op) {
    case MOD_ADD: return t == T_S64 ? 0 : t;
    case MOD_MIN: case MOD_MAX: return t == T_F32 ? 0 : t;
    case MOD_INC: case MOD_DEC: return t == T_U32 ? t : 0;
    case MOD_AND: case MOD_OR: case MOD_XOR:
        return t == T_U32 || t == T_S32 || t == T_U64 || t == T_S64 ? t : 0;
    default: return 0;
    }
}

/* asynccheck: the shared bytes a tensor copy touched in CTA cta of the cluster (bk_tensor
 * fills it when asked): a bit per byte of [off, off + n) in mask (heap; the caller frees it),
 * n = 0 when the mask could not be allocated. */
struct bk_ac {
    uint8_t *mask;
    struct cta *cta;
    uint32_t off, n;
};

/* Pixel p (in shared-memory order) of an im2col-wide copy (map m, coordinates c, wHalo h,
 * wOffset o): its W coordinate *x and its N coordinate *nn (D and H stay the copy's). The
 * pixels walk W from c[1] + o by the traversal stride elementStrides[1] through the bounding
 * box [lower + o, globalDim[1] - 1 + upper + o] (the PTX ISA's "im2col::w and im2col::w::128
 * modes": wOffset moves the box and the start); past the box's end the walk wraps to its
 * start in the next image (N steps by its traversal stride), as in im2col mode with D and H
 * boxes of one pixel. .im2col::w moves ppc pixels and then the h halo pixels that follow them;
 * .im2col::w::128 moves 128 pixels, each group of 32 followed by the h pixels after it. The
 * caller ensures c[1] + o <= the box's end. */
static void bk_wide_pixel(const struct tmap *m, const int64_t *c, unsigned h, unsigned o,
                          uint64_t p, int64_t *x, int64_t *nn)
{
    const unsigned last = m->rank - 1u;
    const uint64_t j = m->wmode == TMAP_WIDE_W128 ? p / (32u + h) * 32u + p % (32u + h) : p;
    const int64_t s = m->estride[1], x0 = c[1] + (int64_t)o;
    const int64_t lo = m->lower[0] + (int64_t)o, hi = (int64_t)m->dim_m1[1] + m->upper[0] + o;
    const uint64_t first = (uint64_t)((hi - x0) / s) + 1u; /* the pixels left in the first row */
    if (j < first) {
        *x = x0 + (int64_t)j * s;
        *nn = c[last];
        return;
    }
    const uint64_t row = (uint64_t)((hi - lo) / s) + 1u, k = j - first;
    *x = lo + (int64_t)(k % row) * s;
    *nn = c[last] + (int64_t)(k / row + 1u) * m->estride[last];
}

/* A tensor instruction of lane l (dir) on the box of map m at coordinates c, with shared memory
 * at sa of space ssp (the shared layout: the box elements dense, dimension 0 fastest,
 * swizzled). BK_LOAD: global -> shared, out-of-bounds elements filled with zeros (or the NaN
 * of the map's OOB fill mode); BK_STORE: shared -> global, out-of-bounds elements skipped;
 * BK_REDUCE: the same with [global] = op([global], shared) as a host atomic per element
 * (operator op, MOD_*); BK_PREFETCH: nothing (the map is all it checks). *bytes: the box's
 * size in shared memory. off2c: the im2col offsets, or for an im2col-wide map {wHalo,
 * wOffset} (bk_tensor_insn checked them and the map's mode against the instruction's). */
static int bk_tensor(struct warp *w, uint32_t pc, unsigned l, const struct tmap *mp,
                     const int64_t *c, const int64_t *off2c, bool g4, int ssp, uint64_t sa,
                     enum bk_dir dir, unsigned op, const char *what, const struct tc_mem *mr,
                     uint64_t *bytes, struct bk_ac *ac)
{
    const struct tmap m = *mp;
    const unsigned rank = m.rank;
    const bool load = dir == BK_LOAD, i2c = m.kind == TMAP_IM2COL;
    const bool wide = m.kind == TMAP_IM2COL_W;
    const unsigned halo = wide ? (unsigned)off2c[0] : 0, woff = wide ? (unsigned)off2c[1] : 0;
    char msg[200];
    /* the box: n[d] elements along dimension d (elementStrides apply beyond dimension 0);
       im2col: ppc pixels of cpp channels */
    unsigned n[TMAP_MAX_RANK];
    uint64_t total = m.esize;
    for (unsigned d = 0; d < TMAP_MAX_RANK; d++) {
        n[d] = d < rank ? (d ? (m.box[d] + m.estride[d] - 1u) / m.estride[d] : m.box[d]) : 1;
        total *= n[d];
    }
    if (i2c)
        total = (uint64_t)m.esize * m.cpp * m.ppc;
    if (wide) { /* ::w: ppc pixels and the halo; ::w::128: four groups of 32 and their halos */
        const int64_t x0 = c[1] + woff, hi = (int64_t)m.dim_m1[1] + m.upper[0] + woff;
        if (x0 > hi) { /* the ISA: the first pixel may lie outside the box on its left only */
            snprintf(msg, sizeof msg,
                     "%s: the first pixel's W coordinate %lld (with wOffset %u) is right of the "
                     "bounding box's end %lld (the ISA allows it outside only on the left)",
                     what, (long long)x0, woff, (long long)hi);
            interp_fault(w, pc, l, TRAP_ILLEGAL, sa, 16, SP_SHARED, load, msg);
            return -1;
        }
        const uint64_t np = m.wmode == TMAP_WIDE_W128 ? 4u * (32u + halo) : m.ppc + (uint64_t)halo;
        total = (uint64_t)m.esize * m.cpp * np;
    }
    if (g4) { /* four rows of boxDim[0] elements */
        total = (uint64_t)m.esize * m.box[0] * 4;
        if (m.box[1] != 1) {
            snprintf(msg, sizeof msg,
                     "%s: .tile::gather4 / scatter4 with a tensor map of boxDim[1] = %u is not "
                     "implemented (boxDim[1] = 1 is)",
                     what, m.box[1]);
            interp_fault(w, pc, l, TRAP_ILLEGAL, sa, 16, SP_SHARED, load, msg);
            return -1;
        }
    }
    *bytes = total;
    if (dir == BK_PREFETCH)
        return 0;
    unsigned rt = 0; /* the reduction's element type */
    if (dir == BK_REDUCE && !(rt = bk_tred_type(op, m.dtype))) {
        snprintf(msg, sizeof msg,
                 "%s: .%s is not a reduction the ISA lists for the tensor map's data type "
                 "(CUtensorMapDataType %u)",
                 what, ir_mod_name((enum ir_mod)op), m.dtype);
        interp_fault(w, pc, l, TRAP_ILLEGAL, sa, 16, SP_SHARED, false, msg);
        return -1;
    }
    unsigned sxs;
    uint8_t *sp;
    if (sa % 128) {
        snprintf(msg, sizeof msg, "%s: the shared memory address is not a multiple of 128",
                 what);
        interp_fault(w, pc, l, TRAP_MISALIGNED, sa, 16, SP_SHARED, load, msg);
        return -1;
    }
    /* a swizzle permutes 16-byte chunks inside each 32/64/128-byte block: the bytes touched
       are the box's rounded up to a block */
    const uint64_t blk = m.swizzle ? UINT64_C(16) << m.swizzle : 1;
    const uint64_t ext = (total + blk - 1) / blk * blk;
    if (bk_range(w, pc, l, ssp, sa, ext, load, what, load ? "destination" : "source", &sxs,
                 &sp))
        return -1;
    uint8_t *wm = NULL; /* asynccheck: the bytes of the box's extent the copy touches */
    if (ac) {
        struct cta *ct = cluster_cta_holding(w->cta, sp, ext);
        ac->mask = NULL;
        ac->n = 0;
        if (ct && (wm = calloc(ext / 8 + 1, 1)) != NULL) {
            ac->mask = wm;
            ac->cta = ct;
            ac->off = (uint32_t)(sp - ct->shared);
            ac->n = (uint32_t)ext;
        }
    }
    const unsigned es = m.esize;
    uint8_t fill[8];
    memset(fill, 0, sizeof fill);
    if (m.oob_nan) { /* the canonical quiet NaN of the element type */
        static const uint64_t nan8[] = {0x7fffffffffffffffu};
        if (es == 2)
            memcpy(fill, &(uint16_t){0x7fff}, 2);
        else if (es == 4)
            memcpy(fill, &(uint32_t){0x7fffffffu}, 4);
        else
            memcpy(fill, nan8, 8);
    }
    const struct mem *mem = w->cta->L->dev->mem;
    const unsigned mode = bk_mode(op);
    uint64_t off = 0;
    unsigned i[TMAP_MAX_RANK] = {0};
    /* im2col: the current pixel (dimensions 1 .. rank - 1: W, H, D, N), its channel ch, the
       bounding box [lo, hi] of the spatial dimensions */
    int64_t px[TMAP_MAX_RANK], lo[TMAP_MAX_RANK], hi[TMAP_MAX_RANK];
    unsigned ch = 0;
    /* im2col-wide: the current pixel pix (shared-memory order), its W and N coordinates */
    uint64_t pix = 0;
    int64_t pw = 0, pn = 0;
    if (wide)
        bk_wide_pixel(&m, c, halo, woff, 0, &pw, &pn);
    for (unsigned d = 0; d < TMAP_MAX_RANK; d++) {
        px[d] = c[d];
        lo[d] = d >= 1 && d + 1 < rank ? m.lower[d - 1] : 0;
        hi[d] = d >= 1 && d + 1 < rank ? (int64_t)m.dim_m1[d] + m.upper[d - 1] : 0;
    }
    for (;;) {
        /* the element's global coordinates and address */
        bool in_b = true;
        uint64_t ga = m.addr;
        for (unsigned d = 0; d < rank; d++) {
            const uint64_t k = off / es; /* gather4: row k / boxDim[0], column k % … */
            /* im2col-wide: C from c[0], W and N of the pixel, D and H the copy's */
            const int64_t xw = d == 0 ? c[0] + ch : d == 1 ? pw : d + 1 < rank ? c[d] : pn;
            const int64_t x = g4 && d  ? c[1 + k / m.box[0]]
                              : g4     ? c[0] + (int64_t)(k % m.box[0])
                              : wide   ? xw
                              : !i2c ? c[d] + (int64_t)i[d] * (d ? m.estride[d] : 1)
                              : d == 0 ? c[0] + ch
                                       : px[d] + (d + 1 < rank ? off2c[d - 1] : 0);
            if (x < 0 || (uint64_t)x > m.dim_m1[d])
                in_b = false;
            else
                ga += (uint64_t)x * m.stride[d];
        }
        const uint64_t so = bk_swizzle(m.swizzle, sa + off) - sa;
        uint8_t *sq = sp + so;
        if (in_b) {
            if (!mem_check(mem, &w->mc, ga, es) || (!load && (w->mc.flags & MEM_F_CONST))) {
                snprintf(msg, sizeof msg, "%s: tensor element at coordinate offset %llu", what,
                         (unsigned long long)(off / es));
                interp_fault(w, pc, l, TRAP_OOB, ga, es, SP_GLOBAL, !load, msg);
                return -1;
            }
            uint8_t *gq = (uint8_t *)(uintptr_t)ga;
            if (load) {
                memcpy(sq, gq, es);
            } else if (dir == BK_STORE) {
                memcpy(gq, sq, es);
            } else {
                uint64_t v = 0, old;
                memcpy(&v, sq, es);
                if (vm_atom_elem(gq, rt, es, mode, v, 0, &old)) {
                    interp_fault(w, pc, l, TRAP_ILLEGAL, ga, es, SP_GLOBAL, true,
                                 "cp.reduce.async.bulk.tensor: reduction not implemented");
                    return -1;
                }
                tc_mem_range(mr, l, ga, XS_GLOBAL, es, false, gq, es);
            }
            tc_mem_range(mr, l, ga, XS_GLOBAL, es, !load, gq, es);
        } else if (load) {
            memcpy(sq, fill, es);
        }
        if (wm && (load || in_b))
            for (uint64_t b = so; b < so + es; b++)
                wm[b >> 3] |= (uint8_t)(1u << (b & 7));
        tc_mem_range(mr, l, sa + so, sxs, es, load, sq, es);
        off += es;
        if (g4) {
            if (off == total)
                break;
            continue;
        }
        if (wide) {
            if (off == total)
                break;
            if (++ch < m.cpp)
                continue;
            ch = 0;
            bk_wide_pixel(&m, c, halo, woff, ++pix, &pw, &pn);
            continue;
        }
        if (i2c) {
            if (off == total)
                break;
            if (++ch < m.cpp)
                continue;
            /* the next pixel: W steps by its traversal stride inside the bounding box, then
               wraps to the box's lower corner and H steps, …; N (the last dimension) steps
               without a box */
            ch = 0;
            for (unsigned d = 1; d < rank; d++) {
                px[d] += m.estride[d];
                if (d + 1 == rank || px[d] <= hi[d])
                    break;
                px[d] = lo[d];
            }
            continue;
        }
        unsigned d = 0;
        while (d < TMAP_MAX_RANK && ++i[d] == n[d])
            i[d++] = 0;
        if (d == TMAP_MAX_RANK)
            break;
    }
    return 0;
}

/* A tensor load of lane l (map m at coordinates c) into shared memory at sa of space ssp,
 * lowering the tx-count of the mbarrier at ba by the box's bytes. Under asynccheck (acheck),
 * the box is recorded in the CTA it lands in (this CTA or another of the cluster) to land at
 * the wait of the mbarrier phase it counted in (check_async.c). A fault (recorded) returns
 * -1. */
static int bk_tensor_load(struct warp *w, uint32_t pc, unsigned l, const struct tmap *m,
                          const int64_t *c, const int64_t *o2c, bool g4, int ssp, uint64_t sa,
                          uint64_t ba, const char *what, const struct tc_mem *mr, bool acheck)
{
    unsigned ph = 0;
    const uint8_t *mb = acheck ? async_mbar_at(w, l, ba, &ph, NULL) : NULL;
    struct bk_ac ac = {NULL, NULL, 0, 0};
    uint64_t bytes = 0;
    int rc = -1;
    if (!bk_tensor(w, pc, l, m, c, o2c, g4, ssp, sa, BK_LOAD, 0, what, mr, &bytes,
                   mb ? &ac : NULL) &&
        !async_complete_tx(w, pc, l, ba, bytes, what, mr)) {
        if (ac.mask)
            check_async_bulk_dst(w, pc, l, ac.cta, ac.off, ac.n, ac.mask, mb, ph);
        rc = 0;
    }
    free(ac.mask);
    return rc;
}

/* The shared::cluster address of shared address a (CTA-relative offset a mod CLU_STRIDE) in
 * the CTA of rank r of the cluster, for .multicast::cluster (lane l; ctaMask for the report).
 * A fault (recorded) returns -1 when r is outside the cluster. */
static int bk_mcast_addr(struct warp *w, uint32_t pc, unsigned l, uint64_t a, unsigned r,
                         uint32_t mask, const char *what, uint64_t *to)
{
    char why[128], msg[260];
    if (!cluster_mapa(w, a, r, false, to, why, sizeof why))
        return 0;
    snprintf(msg, sizeof msg, "%s .multicast::cluster, ctaMask 0x%04x: %s", what, mask, why);
    interp_fault(w, pc, l, TRAP_ILLEGAL, a, 16, SP_SHARED, true, msg);
    return -1;
}

/* Lane l's im2col offsets (the vector operand v: one per spatial dimension, W first) in o[],
 * unsigned 16-bit values below the range of the rank (2^16 for 3D, 2^8 for 4D, 2^5 for 5D,
 * the precision of the map's corners); a fault (recorded) returns -1 for one outside it. */
static int bk_offsets(struct warp *w, uint32_t pc, unsigned l, const struct ir_opnd *v,
                      unsigned rank, const char *what, int64_t *o)
{
    const unsigned bits = rank == 3 ? 16 : rank == 4 ? 8 : 5;
    for (unsigned k = 0; k + 2 < rank; k++) {
        const uint64_t x = vm_get(w, &w->fn->opnds[v->first + k], l) & 0xffffu;
        if (x >> bits) {
            char msg[200];
            snprintf(msg, sizeof msg,
                     "%s: im2col offset %u is %llu, outside 0 .. %u for a %ud tensor", what, k,
                     (unsigned long long)x, (1u << bits) - 1, rank);
            interp_fault(w, pc, l, TRAP_ILLEGAL, 0, 0, 0, false, msg);
            return -1;
        }
        o[k] = (int64_t)x;
    }
    return 0;
}

/* Lane l's {wHalo, wOffset} of an .im2col::w (w128: ::w::128) load or prefetch (the vector
 * operand v) in o[0], o[1]: unsigned 16-bit values the ISA bounds (wHalo below 512, or 32 in
 * ::w::128; wOffset below 32); a fault (recorded) returns -1 for one outside its range. */
static int bk_wide_info(struct warp *w, uint32_t pc, unsigned l, const struct ir_opnd *v,
                        bool w128, const char *what, int64_t *o)
{
    static const char *const name[2] = {"wHalo", "wOffset"};
    for (unsigned k = 0; k < 2; k++) {
        const uint64_t x = vm_get(w, &w->fn->opnds[v->first + k], l) & 0xffffu;
        const unsigned lim = k ? 32 : w128 ? 32 : 512;
        if (x >= lim) {
            char msg[200];
            snprintf(msg, sizeof msg, "%s: %s is %llu, outside 0 .. %u for .im2col::w%s", what,
                     name[k], (unsigned long long)x, lim - 1, w128 ? "::128" : "");
            interp_fault(w, pc, l, TRAP_ILLEGAL, 0, 0, 0, false, msg);
            return -1;
        }
        o[k] = (int64_t)x;
    }
    return 0;
}

/* A tensor instruction (cp.async.bulk.tensor, cp.reduce.async.bulk.tensor,
 * cp.async.bulk.prefetch.tensor) of the lanes M, in lane order. A load lowers its mbarrier's
 * tx-count by the box's bytes; with .multicast::cluster the box lands at the destination's
 * CTA-relative offset in each CTA of the 16-bit ctaMask (rank order) and, for each of those
 * CTAs, the mbarrier at the mbarrier's offset is signalled: in that CTA (.cta_group::1 or
 * none) or, with .cta_group::2, in the CTA of its pair whose rank has the parity of the rank of
 * the CTA holding the mbarrier operand (the destination CTA itself or its peer). */
static int bk_tensor_insn(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                          const struct ir_opnd *O, const int sp[2], const char *what,
                          const struct tc_mem *mr)
{
    const struct ir_func *f = w->fn->f;
    const unsigned rank = bk_rank(f, in);
    const bool mcast = bk_has(f, in, MOD_MULTICAST_CLUSTER);
    enum bk_dir dir = in->op == OP_CP_ASYNC_BULK_PREFETCH_TENSOR ? BK_PREFETCH
                      : in->op == OP_CP_REDUCE_ASYNC_BULK_TENSOR ? BK_REDUCE
                      : sp[0] == SP_GLOBAL                       ? BK_STORE
                                                                 : BK_LOAD;
    const struct ir_opnd *t = dir == BK_LOAD ? &O[1] : &O[0];
    const unsigned op = dir == BK_REDUCE ? bk_redop(f, in) : 0;
    const bool w128 = bk_has(f, in, MOD_IM2COL_W_128), wide = w128 || bk_has(f, in, MOD_IM2COL_W);
    const bool i2c = bk_has(f, in, MOD_IM2COL) || wide;
    const unsigned kind = wide ? TMAP_IM2COL_W
                          : i2c || bk_has(f, in, MOD_IM2COL_NO_OFFS) ? TMAP_IM2COL
                                                                      : TMAP_TILED;
    /* the im2col offsets (loads: after [mbar]; prefetches: after the map) and the ctaMask */
    const struct ir_opnd *ov = !i2c ? NULL : dir == BK_LOAD ? &O[3] : &O[1];
    const struct ir_opnd *cm = mcast ? &O[i2c ? 4 : 3] : NULL;
    const unsigned cg = bk_has(f, in, MOD_CTA_GROUP_1) ? 1 : bk_has(f, in, MOD_CTA_GROUP_2) ? 2 : 0;
    const bool g4 = bk_has(f, in, MOD_TILE_GATHER4) || bk_has(f, in, MOD_TILE_SCATTER4);
    const bool acheck = w->cta->L->check & CHECK_ASYNCCHECK;
    for (unsigned l = 0; l < 32; l++) {
        if (!(M >> l & 1))
            continue;
        struct tmap m;
        int64_t c[TMAP_MAX_RANK], o2c[TMAP_MAX_RANK - 2] = {0, 0, 0};
        uint64_t bytes = 0;
        if (bk_map(w, pc, l, t, rank, g4 ? 5 : rank, kind, what, &m, c))
            return -1;
        if (ov && !wide && bk_offsets(w, pc, l, ov, rank, what, o2c))
            return -1;
        if (wide && bk_wide_info(w, pc, l, ov, w128, what, o2c))
            return -1;
        if (wide && m.wmode != (w128 ? TMAP_WIDE_W128 : TMAP_WIDE_W)) {
            /* the ISA does not say what one mode's copy does with the other mode's map */
            char msg[200];
            snprintf(msg, sizeof msg,
                     "%s: an .im2col::w%s copy with a tensor map of mode "
                     "CU_TENSOR_MAP_IM2COL_WIDE_MODE_%s (the ISA does not define it)",
                     what, w128 ? "::128" : "", w128 ? "W" : "W128");
            interp_fault(w, pc, l, TRAP_ILLEGAL, 0, 0, 0, false, msg);
            return -1;
        }
        if (dir == BK_PREFETCH) { /* checks the map (and an im2col-wide start), reads nothing */
            if (bk_tensor(w, pc, l, &m, c, o2c, g4, SP_GLOBAL, 0, dir, 0, what, mr, &bytes,
                          NULL))
                return -1;
            continue;
        }
        struct bk_ac ac = {NULL, NULL, 0, 0};
        if (dir != BK_LOAD) { /* asynccheck: the source is read until the bulk group's wait */
            if (bk_tensor(w, pc, l, &m, c, o2c, g4, sp[1], vm_addr(w, &O[1], l), dir, op, what,
                          mr, &bytes, acheck ? &ac : NULL))
                return -1;
            if (ac.mask && ac.cta == w->cta)
                check_async_bulk_src(w, pc, l, ac.off, ac.n, ac.mask);
            free(ac.mask);
            continue;
        }
        const uint64_t da = vm_addr(w, &O[0], l), ba = vm_addr(w, &O[2], l);
        if (cg && !mcast) { /* the mbarrier in the destination's CTA (::1) or its pair (::2) */
            const uint32_t dr = cluster_rank_of(w, da, false), br = cluster_rank_of(w, ba, false);
            if (cg == 1 ? dr != br : dr >> 1 != br >> 1) {
                char msg[200];
                snprintf(msg, sizeof msg,
                         "%s .cta_group::%u: the mbarrier is in the CTA of rank %u, the "
                         "destination in rank %u (%s)",
                         what, cg, br, dr, cg == 1 ? "the same CTA is required"
                                                   : "the same CTA pair is required");
                interp_fault(w, pc, l, TRAP_ILLEGAL, ba, 8, SP_SHARED, true, msg);
                return -1;
            }
        }
        if (!mcast) {
            if (bk_tensor_load(w, pc, l, &m, c, o2c, g4, sp[0], da, ba, what, mr, acheck))
                return -1;
            continue;
        }
        const uint32_t mask = (uint32_t)vm_get(w, cm, l) & 0xffffu;
        /* .cta_group::2: the parity of the mbarrier's CTA picks the pair member signalled */
        const uint32_t bpar = cg == 2 ? cluster_rank_of(w, ba, false) & 1u : 0;
        for (unsigned r = 0; r < 16; r++) {
            uint64_t dr, br;
            if (!(mask >> r & 1))
                continue;
            if (bk_mcast_addr(w, pc, l, da, r, mask, what, &dr) ||
                bk_mcast_addr(w, pc, l, ba, cg == 2 ? (r & ~1u) | bpar : r, mask, what, &br) ||
                bk_tensor_load(w, pc, l, &m, c, o2c, g4, SP_SHARED_CLUSTER, dr, br, what, mr,
                               acheck))
                return -1;
        }
    }
    return 0;
}

/* [dp + i] = op([dp + i], [sp + i]) element by element as host atomics, for the types the
 * integer loop (bk_reduce) does not take: the floating-point ones (vm_atom_elem: .add.f32
 * flushes subnormal inputs and results to sign-preserving zero as red.add.f32 does, .add.f64
 * and .add.noftz.f16/.bf16 keep them; .min/.max.f16/.bf16 ignore a NaN operand, -0 < +0). */
static int bk_reduce_fp(unsigned op, unsigned t, uint8_t *dp, const uint8_t *sp, uint64_t n)
{
    const unsigned es = ir_type_size((enum ir_type)t);
    for (uint64_t o = 0; o < n; o += es) {
        uint64_t v = 0, old;
        memcpy(&v, sp + o, es);
        if (vm_atom_elem(dp + o, t, es, bk_mode(op), v, 0, &old))
            return -1;
    }
    return 0;
}

/* asynccheck: lane l's non-tensor bulk copy wrote n bytes at dp, in the shared memory of this
 * CTA or another of its cluster: they are recorded in that CTA to land at the wait of the
 * mbarrier mb's phase ph (cpm: a .cp_mask's 16-bit byte mask per 16-byte chunk, 0: every
 * byte). */
static void bk_async_dst(struct warp *w, uint32_t pc, unsigned l, const uint8_t *dp, uint64_t n,
                         uint32_t cpm, const uint8_t *mb, unsigned ph)
{
    struct cta *c = n ? cluster_cta_holding(w->cta, dp, n) : NULL;
    if (!c)
        return;
    uint8_t *m = NULL;
    if (cpm) {
        if (!(m = calloc(n / 8 + 1, 1)))
            return;
        for (uint64_t o = 0; o < n; o++)
            if (cpm >> (o % BULK_ALIGN) & 1)
                m[o >> 3] |= (uint8_t)(1u << (o & 7));
    }
    check_async_bulk_dst(w, pc, l, c, (uint32_t)(dp - c->shared), (uint32_t)n, m, mb, ph);
    free(m);
}

/* See tensor.h. */
int bulk_copy(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
              const struct ir_opnd *O, const struct tc_mem *mr)
{
    const struct ir_func *f = w->fn->f;
    const char *what = ir_op_name((enum ir_op)in->op);
    int sp[2];
    bk_spaces(f, in, sp);
    const bool prefetch = in->op == OP_CP_ASYNC_BULK_PREFETCH;
    const bool reduce = in->op == OP_CP_REDUCE_ASYNC_BULK;
    const unsigned op = reduce ? bk_redop(f, in) : 0;
    const bool mbar = !prefetch && sp[0] != SP_GLOBAL;
    const struct ir_opnd *size = prefetch ? &O[1] : &O[2];
    if (in->op == OP_CP_ASYNC_BULK_TENSOR || in->op == OP_CP_REDUCE_ASYNC_BULK_TENSOR ||
        in->op == OP_CP_ASYNC_BULK_PREFETCH_TENSOR)
        return bk_tensor_insn(w, pc, M, in, O, sp, what, mr);
    const bool mcast = bk_has(f, in, MOD_MULTICAST_CLUSTER);
    const bool cpmask = bk_has(f, in, MOD_CP_MASK);
    const bool fp = reduce && ir_type_is_float((enum ir_type)in->type[0]);
    const bool acheck = w->cta->L->check & CHECK_ASYNCCHECK;
    for (unsigned l = 0; l < 32; l++) {
        if (!(M >> l & 1))
            continue;
        const uint64_t n = vm_get(w, size, l) & 0xffffffffu;
        if (n % BULK_ALIGN) {
            char msg[128];
            snprintf(msg, sizeof msg, "%s: the size %llu is not a multiple of 16", what,
                     (unsigned long long)n);
            interp_fault(w, pc, l, TRAP_MISALIGNED, vm_addr(w, &O[0], l), BULK_ALIGN,
                         prefetch || sp[0] == SP_GLOBAL ? SP_GLOBAL : SP_SHARED, !prefetch,
                         msg);
            return -1;
        }
        if (prefetch) {
            const uint64_t a = vm_addr(w, &O[0], l);
            if (a % BULK_ALIGN) {
                char msg[128];
                snprintf(msg, sizeof msg, "%s: the address is not a multiple of 16", what);
                interp_fault(w, pc, l, TRAP_MISALIGNED, a, BULK_ALIGN, SP_GLOBAL, false, msg);
                return -1;
            }
            continue;
        }
        const uint64_t da = vm_addr(w, &O[0], l), sa = vm_addr(w, &O[1], l);
        unsigned dxs, sxs;
        uint8_t *dp, *spp;
        if (bk_range(w, pc, l, sp[1], sa, n, false, what, "source", &sxs, &spp))
            return -1;
        if (mcast) { /* the same bytes and complete_tx at the same offsets in each CTA of
                        the 16-bit ctaMask, in rank order */
            const uint32_t mask = (uint32_t)vm_get(w, &O[4], l) & 0xffffu;
            const uint64_t ba = vm_addr(w, &O[3], l);
            if (n)
                bk_report(mr, l, sa, sxs, n, false, spp);
            for (unsigned r = 0; r < 16; r++) {
                uint64_t dr, br;
                if (!(mask >> r & 1))
                    continue;
                if (bk_mcast_addr(w, pc, l, da, r, mask, what, &dr) ||
                    bk_mcast_addr(w, pc, l, ba, r, mask, what, &br) ||
                    bk_range(w, pc, l, SP_SHARED_CLUSTER, dr, n, true, what, "destination",
                             &dxs, &dp))
                    return -1;
                if (n) {
                    memmove(dp, spp, n);
                    bk_report(mr, l, dr, dxs, n, true, dp);
                }
                unsigned ph = 0; /* asynccheck: each CTA's copy lands at its mbarrier wait */
                const uint8_t *mb = acheck ? async_mbar_at(w, l, br, &ph, NULL) : NULL;
                if (async_complete_tx(w, pc, l, br, n, what, mr))
                    return -1;
                if (mb)
                    bk_async_dst(w, pc, l, dp, n, 0, mb, ph);
            }
            continue;
        }
        if (bk_range(w, pc, l, sp[0], da, n, true, what, "destination", &dxs, &dp))
            return -1;
        if (n) {
            bk_report(mr, l, sa, sxs, n, false, spp);
            if (fp) {
                if (bk_reduce_fp(op, in->type[0], dp, spp, n)) {
                    interp_fault(w, pc, l, TRAP_ILLEGAL, da, 16, SP_GLOBAL, true,
                                 "cp.reduce.async.bulk: reduction not implemented");
                    return -1;
                }
            } else if (reduce) {
                bk_reduce(op, in->type[0], dp, spp, n, sp[0] == SP_GLOBAL);
            } else if (cpmask) { /* byte i of each 16-byte chunk only where bit i is set */
                const uint32_t bm = (uint32_t)vm_get(w, &O[in->nopnd - 1], l) & 0xffffu;
                for (uint64_t o = 0; o < n; o++)
                    if (bm >> (o % BULK_ALIGN) & 1)
                        dp[o] = spp[o];
            } else {
                memmove(dp, spp, n);
            }
            bk_report(mr, l, da, dxs, n, true, dp);
        }
        /* asynccheck: a copy into this CTA's shared memory lands at the wait of its
           mbarrier's phase; one to global memory reads its shared source until the bulk
           group's wait */
        unsigned ph = 0;
        const uint8_t *mb =
            acheck && mbar ? async_mbar_at(w, l, vm_addr(w, &O[3], l), &ph, NULL) : NULL;
        if (mbar && async_complete_tx(w, pc, l, vm_addr(w, &O[3], l), n, what, mr))
            return -1;
        if (mb)
            bk_async_dst(w, pc, l, dp, n,
                         cpmask ? (uint32_t)vm_get(w, &O[in->nopnd - 1], l) & 0xffffu : 0, mb,
                         ph);
        else if (acheck && sp[0] == SP_GLOBAL && sp[1] != SP_GLOBAL && n &&
                 spp >= w->cta->shared && spp < w->cta->shared + w->cta->shared_size)
            check_async_bulk_src(w, pc, l, (uint32_t)(spp - w->cta->shared), (uint32_t)n, NULL);
    }
    return 0;
}
