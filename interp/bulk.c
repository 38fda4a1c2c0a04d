/*
 * interp/bulk.c — bulk asynchronous copies of sm_90: cp.async.bulk, cp.reduce.async.bulk and
 * cp.async.bulk.prefetch.L2 (the non-tensor forms).
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
 */
#include <string.h>

#include "interp/internal.h"
#include "interp/ops/helpers.h"
#include "interp/tensor.h"

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
