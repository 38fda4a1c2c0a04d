/*
 * interp/bulk.c — bulk asynchronous copies of sm_90: cp.async.bulk, cp.reduce.async.bulk,
 * cp.async.bulk.prefetch.L2 and the .tile tensor copies cp.async.bulk.tensor.{1..5}d (tensor
 * maps: interp/tmap.h).
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
 * the same host thread) with plain read-modify-writes. Integer types only: the .f16 / .bf16 /
 * .f32 / .f64 forms are refused at load (bulk_unsupported_why). Multicast (.multicast::cluster)
 * and .cp_mask are refused too. The prefetch is a hint: its operands are checked (alignment,
 * size), nothing is read.
 *
 * A tensor copy moves the box of its map at the given (signed) coordinates element by element
 * between global memory and a dense, swizzled shared tile (bk_tensor; interp/README.md has the
 * layout); elements outside the tensor read as zeros (or the map's NaN) and are not stored.
 */
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

/* Is (op, type) an integer reduction the ISA lists for cp.reduce.async.bulk (shared::cluster
 * destinations have no .s64)? */
static bool bk_red_ok(unsigned op, unsigned t, bool cluster)
{
    switch (op) {
    case MOD_AND: case MOD_OR: case MOD_XOR: return t == T_B32 || t == T_B64;
    case MOD_ADD: return t == T_U32 || t == T_S32 || t == T_U64;
    case MOD_INC: case MOD_DEC: return t == T_U32;
    case MOD_MIN: case MOD_MAX:
        return t == T_U32 || t == T_S32 || t == T_U64 || (t == T_S64 && !cluster);
    default: return false;
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
    if (bk_has(f, in, MOD_MULTICAST_CLUSTER) || bk_has(f, in, MOD_CP_MASK))
        return false;
    const bool mbar = bk_has(f, in, MOD_MBARRIER_COMPLETE_TX_BYTES);
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

/* The .tile tensor copies: global -> shared::cta/cluster on an mbarrier, shared::cta -> global
 * in a bulk group; no multicast, cta_group, im2col or gather/scatter forms. */
static bool bk_tensor_ok(const struct ir_func *f, const struct ir_insn *in,
                         const struct ir_opnd *O, int dst, int src)
{
    static const unsigned no[] = {MOD_MULTICAST_CLUSTER, MOD_CTA_GROUP_1, MOD_CTA_GROUP_2,
                                  MOD_IM2COL, MOD_IM2COL_W, MOD_IM2COL_W_128,
                                  MOD_IM2COL_NO_OFFS, MOD_TILE_GATHER4, MOD_TILE_SCATTER4};
    for (unsigned i = 0; i < sizeof no / sizeof no[0]; i++)
        if (bk_has(f, in, no[i]))
            return false;
    const unsigned rank = bk_rank(f, in);
    if (!rank)
        return false;
    const bool mbar = bk_has(f, in, MOD_MBARRIER_COMPLETE_TX_BYTES);
    const bool group = bk_has(f, in, MOD_BULK_GROUP);
    if (dst == SP_GLOBAL)
        return src == SP_SHARED_CTA && group && !mbar && in->nopnd >= 2 &&
               bk_tmap_ok(f, &O[0], rank) && O[1].kind == OPK_ADDR && bk_tail_ok(in, O, 2);
    return (dst == SP_SHARED_CLUSTER || dst == SP_SHARED_CTA) && src == SP_GLOBAL && mbar &&
           !group && in->nopnd >= 3 && O[0].kind == OPK_ADDR && bk_tmap_ok(f, &O[1], rank) &&
           O[2].kind == OPK_ADDR && bk_tail_ok(in, O, 3);
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
               bk_red_ok(bk_redop(f, in), in->type[0], sp[0] == SP_SHARED_CLUSTER);
    case OP_CP_ASYNC_BULK_PREFETCH:
        return sp[0] == SP_GLOBAL && bk_has(f, in, MOD_L2) && in->nopnd >= 2 &&
               O[0].kind == OPK_ADDR && bk_value(&O[1]) && bk_tail_ok(in, O, 2);
    case OP_CP_ASYNC_BULK_TENSOR:
        return bk_tensor_ok(f, in, O, sp[0], sp[1]);
    default:
        return false;
    }
}

/* See tensor.h. */
const char *bulk_unsupported_why(const struct ir_func *f, const struct ir_insn *in)
{
    switch (in->op) {
    case OP_CP_ASYNC_BULK:
    case OP_CP_REDUCE_ASYNC_BULK:
    case OP_CP_ASYNC_BULK_PREFETCH:
        if (bk_has(f, in, MOD_MULTICAST_CLUSTER))
            return "unsupported (cp.async.bulk .multicast::cluster is not implemented)";
        if (bk_has(f, in, MOD_CP_MASK))
            return "unsupported (cp.async.bulk .cp_mask is not implemented)";
        if (in->op == OP_CP_REDUCE_ASYNC_BULK && ir_type_is_float((enum ir_type)in->type[0]))
            return "unsupported (cp.reduce.async.bulk of floating-point types is not "
                   "implemented; the integer operations are)";
        return "unsupported (this form of cp.async.bulk / cp.reduce.async.bulk: the engine "
               "runs global -> shared::cta/shared::cluster and shared::cta -> shared::cluster "
               "with .mbarrier::complete_tx::bytes, shared::cta -> global with .bulk_group, "
               "and the integer reductions the ISA lists for them)";
    case OP_CP_ASYNC_BULK_TENSOR:
        return "unsupported (cp.async.bulk.tensor: the engine runs the .tile forms global -> "
               "shared::cta/shared::cluster with .mbarrier::complete_tx::bytes and shared::cta "
               "-> global with .bulk_group, without .multicast::cluster or .cta_group; not "
               "im2col or gather4/scatter4)";
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
    if (!mr)
        return;
    for (uint64_t o = 0; o < n; o += BULK_ALIGN)
        tc_mem_report(mr, l, a + o, xs, BULK_ALIGN, wr, p + o);
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

/* A tensor copy of lane l: the map at the generic address in the [tmap, {coords}] operand t,
 * between the box at those coordinates and shared memory at sa (the shared layout: the box
 * elements dense, dimension 0 fastest, swizzled). load: global -> shared, out-of-bounds
 * elements filled with zeros (or the NaN of the map's OOB fill mode); store: shared -> global,
 * out-of-bounds elements skipped. *bytes: the box's size in shared memory. */
static int bk_tensor(struct warp *w, uint32_t pc, unsigned l, const struct ir_opnd *t, int ssp, uint64_t sa, bool load, unsigned rank,
                     const char *what, const struct tc_mem *mr, uint64_t *bytes)
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
    struct tmap m;
    memcpy(&m, mp, sizeof m);
    if (m.magic != TMAP_MAGIC || m.rank != rank) {
        if (m.magic != TMAP_MAGIC)
            snprintf(msg, sizeof msg,
                     "%s: no tensor map at this address (not made by cuTensorMapEncodeTiled)",
                     what);
        else
            snprintf(msg, sizeof msg, "%s: a .%ud copy with a tensor map of rank %u", what, rank,
                     m.rank);
        interp_fault(w, pc, l, TRAP_ILLEGAL, ma, 8, vm_xs_space(XS_GENERIC, ma), false, msg);
        return -1;
    }
    /* the box: n[d] elements along dimension d (elementStrides apply beyond dimension 0) */
    unsigned n[TMAP_MAX_RANK];
    int64_t c[TMAP_MAX_RANK];
    uint64_t total = m.esize;
    for (unsigned d = 0; d < TMAP_MAX_RANK; d++) {
        n[d] = d < rank ? (d ? (m.box[d] + m.estride[d] - 1u) / m.estride[d] : m.box[d]) : 1;
        c[d] = d < rank ? (int32_t)(uint32_t)vm_get(w, &all[t->first + 1 + d], l) : 0;
        total *= n[d];
    }
    *bytes = total;
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
    uint64_t off = 0;
    unsigned i[TMAP_MAX_RANK] = {0};
    for (;;) {
        /* the element's global coordinates and address */
        bool in_b = true;
        uint64_t ga = m.addr;
        for (unsigned d = 0; d < rank; d++) {
            const int64_t x = c[d] + (int64_t)i[d] * (d ? m.estride[d] : 1);
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
            if (load)
                memcpy(sq, gq, es);
            else
                memcpy(gq, sq, es);
            tc_mem_report(mr, l, ga, XS_GLOBAL, es, !load, gq);
        } else if (load) {
            memcpy(sq, fill, es);
        }
        tc_mem_report(mr, l, sa + so, sxs, es, load, sq);
        off += es;
        unsigned d = 0;
        while (d < TMAP_MAX_RANK && ++i[d] == n[d])
            i[d++] = 0;
        if (d == TMAP_MAX_RANK)
            break;
    }
    return 0;
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
    if (in->op == OP_CP_ASYNC_BULK_TENSOR) {
        const unsigned rank = bk_rank(f, in);
        const bool load = sp[0] != SP_GLOBAL;
        for (unsigned l = 0; l < 32; l++) {
            if (!(M >> l & 1))
                continue;
            uint64_t bytes = 0;
            if (load ? bk_tensor(w, pc, l, &O[1], sp[0], vm_addr(w, &O[0], l), true, rank,
                                 what, mr, &bytes)
                     : bk_tensor(w, pc, l, &O[0], sp[1], vm_addr(w, &O[1], l), false, rank,
                                 what, mr, &bytes))
                return -1;
            if (load && async_complete_tx(w, pc, l, vm_addr(w, &O[2], l), bytes, what, mr))
                return -1;
        }
        return 0;
    }
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
        if (bk_range(w, pc, l, sp[1], sa, n, false, what, "source", &sxs, &spp) ||
            bk_range(w, pc, l, sp[0], da, n, true, what, "destination", &dxs, &dp))
            return -1;
        if (n) {
            bk_report(mr, l, sa, sxs, n, false, spp);
            if (reduce)
                bk_reduce(op, in->type[0], dp, spp, n, sp[0] == SP_GLOBAL);
            else
                memmove(dp, spp, n);
            bk_report(mr, l, da, dxs, n, true, dp);
        }
        if (mbar && async_complete_tx(w, pc, l, vm_addr(w, &O[3], l), n, what, mr))
            return -1;
    }
    return 0;
}
