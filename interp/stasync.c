/*
 * interp/stasync.c — st.async and red.async (sm_90; the .release forms sm_100), and st.bulk
 * (sm_100: zero a range of shared memory, address and size multiples of 8).
 *
 * Two families of forms, told apart by the mbarrier operand:
 *
 *   st.async{.weak}{.cluster}{.shared::cluster}.mbarrier::complete_tx::bytes{.v2,.v4}.type
 *       [a], b, [mbar]
 *   red.async.relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes.op.type
 *       [a], b, [mbar]
 *     a store (a reduction: an atomic read-modify-write with atom's arithmetic, vm_atom_elem)
 *     into the shared memory of a CTA of the cluster which, once done, performs complete-tx on
 *     the mbarrier object mbar with the bytes stored (type size x vector length; a reduction:
 *     its type's size). The engine completes it when issued, like cp.async.bulk (bulk.c): the
 *     bytes are in place and the mbarrier's tx-count is lowered right after the instruction,
 *     which may complete the mbarrier's phase. Without .shared::cluster both addresses are
 *     generic and must lie in the shared window. The cluster's CTAs run on one host thread
 *     (grid.c), so the remote bytes and the mbarrier need no lock.
 *
 *   st.async{.mmio}.release.{gpu,sys}{.global}.type [a], b
 *   red.async{.mmio}.release.{gpu,sys}{.global}.add.type [a], b
 *     a release store (reduction) to global memory, a strong operation at once (other CTAs may
 *     run on other host threads: vm_store_sync / vm_atom_elem are host atomics). .mmio has no
 *     other meaning on the emulator's memory. Without .global the address is generic and must
 *     lie in global memory.
 *
 * What the PTX ISA leaves undefined is a fault (interp_fault: kernel, block, thread, PC, PTX
 * line): a destination or mbarrier address outside the window of its space or out of bounds
 * (the bytes of a CTA of the cluster), a destination not aligned to the bytes stored, an
 * mbarrier in another CTA than the destination, a red.async on the executing CTA's own shared
 * memory (the ISA requires another CTA of the cluster), an st.async in a cluster of one CTA
 * (the ISA requires %cluster_nctarank > 1); an mbarrier never initialized (or invalidated)
 * and a tx-count that leaves its range are async.c's faults (async_complete_tx).
 *
 * Memory reports (struct tc_mem: timing's step report, tracing, initcheck): the bytes written
 * at the address the program used (a reduction counts as a write, as atom's do); the
 * mbarrier's read and write are async_complete_tx's. No racecheck: the order of these
 * accesses against the destination CTA's reads is its mbarrier's (like bulk copies'). Under
 * asynccheck an st.async's bytes are recorded in the destination CTA and land at the wait of
 * the mbarrier phase it counted in (check_async_st_dst: a read before is a finding); a
 * red.async's too, without the poison (its reduction stays in place for the next one).
 */
#include <stdio.h>
#include <string.h>

#include "interp/internal.h"
#include "interp/ops/helpers.h"
#include "interp/tensor.h"

/* The reduction forms of red.async the engine runs: vm_atom_elem's integer ones. */
static bool sa_red_ok(const struct ir_insn *in)
{
    const unsigned t = in->type[0], n = ir_type_size((enum ir_type)t);
    return (n == 4 || n == 8) && vm_type_is_int(t) && in->mode >= MODE_ADD &&
           in->mode <= MODE_XOR && vm_atom_form_ok(in->mode, t);
}

static bool sa_value(const struct ir_opnd *o)
{
    return (o->kind == OPK_REG || o->kind == OPK_IMM) && o->slot != IR_NOSLOT;
}

/* See tensor.h. */
bool stasync_supported(const struct ir_func *f, const struct ir_insn *in, const struct ir_opnd *O)
{
    if (in->op != OP_ST_ASYNC && in->op != OP_RED_ASYNC)
        return false;
    const bool mbar = in->nopnd == 3;
    if ((in->nopnd != 2 && in->nopnd != 3) || O[0].kind != OPK_ADDR ||
        (mbar && O[2].kind != OPK_ADDR))
        return false;
    if (mbar ? in->space != SP_SHARED_CLUSTER && in->space != SP_NONE
             : in->space != SP_GLOBAL && in->space != SP_NONE)
        return false;
    const unsigned sz = ir_type_size((enum ir_type)in->type[0]);
    const unsigned v = in->vec ? in->vec : 1;
    if (in->op == OP_RED_ASYNC)
        return v == 1 && sa_red_ok(in) && sa_value(&O[1]);
    if (!(sz == 1 || sz == 2 || sz == 4 || sz == 8) || !(v == 1 || v == 2 || v == 4) ||
        sz * v > 16 || (!mbar && v != 1))
        return false;
    if (v == 1)
        return sa_value(&O[1]);
    if (O[1].kind != OPK_VEC || O[1].n != v || (uint64_t)O[1].first + v > f->nopnds)
        return false;
    for (unsigned k = 0; k < v; k++)
        if (!sa_value(&f->opnds[O[1].first + k]))
            return false;
    return true;
}

/* See tensor.h. */
const char *stasync_unsupported_why(const struct ir_func *f, const struct ir_insn *in)
{
    (void)f;
    switch (in->op) {
    case OP_ST_ASYNC:
        return "unsupported (st.async form: the engine runs st.async{.weak}{.cluster}"
               "{.shared::cluster}.mbarrier::complete_tx::bytes{.v2,.v4} of 32- and 64-bit "
               "types (at most 128 bits) and st.async{.mmio}.release.{gpu,sys}{.global} of "
               "one 8- to 64-bit value, with register or constant data)";
    case OP_RED_ASYNC:
        return "unsupported (red.async form: the engine runs the integer .add / .min / .max / "
               ".inc / .dec / .and / .or / .xor of .relaxed.cluster{.shared::cluster}"
               ".mbarrier::complete_tx::bytes and of {.mmio}.release.{gpu,sys}{.global}, one "
               "32- or 64-bit value in a register or constant)";
    default:
        return NULL;
    }
}

/* Record a fault of lane l at address ad (interp_fault) and return -1. */
static int sa_fault(struct warp *w, uint32_t pc, unsigned l, enum trap_kind k, uint64_t ad,
                    unsigned width, int space, bool wr, const char *msg)
{
    interp_fault(w, pc, l, k, ad, width, space, wr, msg);
    return -1;
}

/* The cluster form for lane l: the store or reduction of n bytes at a (shared::cluster, or
 * generic when `gen`) and complete_tx on the mbarrier at mb. */
static int sa_cluster(struct warp *w, uint32_t pc, unsigned l, const struct ir_insn *in,
                      const struct ir_opnd *O, bool gen, unsigned n, const char *what,
                      const struct tc_mem *mr)
{
    const bool red = in->op == OP_RED_ASYNC;
    const uint64_t a = vm_addr(w, &O[0], l), mb = vm_addr(w, &O[2], l);
    const unsigned xs = gen ? XS_GENERIC : XS_SHARED;
    const struct cluster *cl = w->cta->clu;
    char msg[240];
    if (gen && a - MEM_SHARED_BASE >= MEM_SHARED_SIZE) {
        snprintf(msg, sizeof msg,
                 "%s: the generic destination address %#llx is not in the shared::cluster "
                 "window",
                 what, (unsigned long long)a);
        return sa_fault(w, pc, l, TRAP_ILLEGAL, a, n, vm_xs_space(XS_GENERIC, a), true, msg);
    }
    if (gen && mb - MEM_SHARED_BASE >= MEM_SHARED_SIZE) {
        snprintf(msg, sizeof msg,
                 "%s: the generic mbarrier address %#llx is not in the shared::cluster window",
                 what, (unsigned long long)mb);
        return sa_fault(w, pc, l, TRAP_ILLEGAL, mb, 8, vm_xs_space(XS_GENERIC, mb), true, msg);
    }
    if (!red && cl->n < 2) {
        snprintf(msg, sizeof msg,
                 "%s: the cluster has one CTA (%%cluster_nctarank is 1); the ISA requires more "
                 "than one",
                 what);
        return sa_fault(w, pc, l, TRAP_ILLEGAL, a, n, SP_SHARED, true, msg);
    }
    uint8_t *p, *q;
    int k = vm_xlate(w, xs, l, a, n, true, &p);
    if (k) {
        snprintf(msg, sizeof msg, "%s: destination of %u bytes", what, n);
        return sa_fault(w, pc, l, (enum trap_kind)k, a, n, SP_SHARED, true, msg);
    }
    k = vm_xlate(w, xs, l, mb, 8, true, &q);
    if (k) {
        snprintf(msg, sizeof msg, "%s: mbarrier object", what);
        return sa_fault(w, pc, l, (enum trap_kind)k, mb, 8, SP_SHARED, true, msg);
    }
    const uint32_t ra = cluster_rank_of(w, a, gen), rb = cluster_rank_of(w, mb, gen);
    if (ra != rb) {
        snprintf(msg, sizeof msg,
                 "%s: the destination is in the shared memory of CTA rank %u of the cluster, "
                 "the mbarrier in that of CTA rank %u; the ISA requires both in the same CTA",
                 what, ra, rb);
        return sa_fault(w, pc, l, TRAP_ILLEGAL, mb, 8, SP_SHARED, true, msg);
    }
    if (red && ra == w->cta->rank) {
        snprintf(msg, sizeof msg,
                 "%s: the destination is in the executing CTA's own shared memory (CTA rank %u "
                 "of the cluster); the ISA requires another CTA of the cluster",
                 what, ra);
        return sa_fault(w, pc, l, TRAP_ILLEGAL, a, n, SP_SHARED, true, msg);
    }
    if (red) {
        uint64_t old;
        if (vm_atom_elem(p, in->type[0], n, in->mode, vm_get(w, &O[1], l), 0, &old))
            return sa_fault(w, pc, l, TRAP_ILLEGAL, a, n, SP_SHARED, true,
                            "red.async: operation not implemented");
    } else {
        const unsigned sz = ir_type_size((enum ir_type)in->type[0]);
        for (unsigned e = 0; e < n / sz; e++) {
            const struct ir_opnd x = vm_elem(w->fn, &O[1], e);
            const uint64_t v = vm_get(w, &x, l);
            memcpy(p + e * sz, &v, sz); /* little-endian host: the low sz bytes */
        }
    }
    tc_mem_report(mr, l, a, xs, n, true, p);
    /* asynccheck: the bytes land in the destination CTA at the wait of the mbarrier phase the
     * complete_tx counts in (read before the complete_tx may flip it; check_async_st_dst) */
    const uint64_t mbs = gen ? mb - MEM_SHARED_BASE : mb;
    unsigned ph = 0;
    const uint8_t *mbp =
        w->cta->L->check & CHECK_ASYNCCHECK ? async_mbar_at(w, l, mbs, &ph, NULL) : NULL;
    if (async_complete_tx(w, pc, l, mbs, n, what, mr))
        return -1;
    struct cta *dc = mbp ? cluster_cta_holding(w->cta, p, n) : NULL;
    if (dc)
        check_async_st_dst(w, pc, l, dc, (uint32_t)(p - dc->shared), n, mbp, ph, red);
    return 0;
}

/* The .release form for lane l: a release store or reduction of n bytes at a (global, or
 * generic when `gen`). */
static int sa_release(struct warp *w, uint32_t pc, unsigned l, const struct ir_insn *in,
                      const struct ir_opnd *O, bool gen, unsigned n, const char *what,
                      const struct tc_mem *mr)
{
    const uint64_t a = vm_addr(w, &O[0], l);
    const unsigned xs = gen ? XS_GENERIC : XS_GLOBAL;
    char msg[200];
    if (gen && vm_xs_space(XS_GENERIC, a) != SP_GLOBAL) {
        snprintf(msg, sizeof msg, "%s.release: the generic address %#llx is not in global memory",
                 what, (unsigned long long)a);
        return sa_fault(w, pc, l, TRAP_ILLEGAL, a, n, vm_xs_space(XS_GENERIC, a), true, msg);
    }
    uint8_t *p;
    const int k = vm_xlate(w, xs, l, a, n, true, &p);
    if (k) {
        snprintf(msg, sizeof msg, "%s: destination of %u bytes", what, n);
        return sa_fault(w, pc, l, (enum trap_kind)k, a, n, SP_GLOBAL, true, msg);
    }
    const uint64_t b = vm_get(w, &O[1], l);
    if (in->op == OP_RED_ASYNC) {
        uint64_t old;
        if (vm_atom_elem(p, in->type[0], n, in->mode, b, 0, &old))
            return sa_fault(w, pc, l, TRAP_ILLEGAL, a, n, SP_GLOBAL, true,
                            "red.async: operation not implemented");
    } else {
        vm_store_sync(p, n, b, true);
    }
    tc_mem_report(mr, l, a, xs, n, true, p);
    return 0;
}

/* See tensor.h. */
int stasync_exec(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                 const struct ir_opnd *O, const struct tc_mem *mr)
{
    const char *what = ir_op_name((enum ir_op)in->op);
    const bool gen = in->space == SP_NONE, mbar = in->nopnd == 3;
    const unsigned n = ir_type_size((enum ir_type)in->type[0]) * (in->vec ? in->vec : 1);
    for (unsigned l = 0; l < 32; l++) {
        if (!(M >> l & 1))
            continue;
        if (mbar ? sa_cluster(w, pc, l, in, O, gen, n, what, mr)
                 : sa_release(w, pc, l, in, O, gen, n, what, mr))
            return -1;
    }
    return 0;
}

/* See tensor.h. */
bool stbulk_supported(const struct ir_insn *in, const struct ir_opnd *O)
{
    return in->op == OP_ST_BULK && in->nopnd == 3 && O[0].kind == OPK_ADDR &&
           (O[1].kind == OPK_REG || O[1].kind == OPK_IMM) && O[1].slot != IR_NOSLOT &&
           O[2].kind == OPK_IMM && O[2].imm.u == 0 &&
           (in->space == SP_SHARED || in->space == SP_SHARED_CTA || in->space == SP_NONE);
}

/* See tensor.h. */
int stbulk_exec(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                const struct ir_opnd *O, const struct tc_mem *mr)
{
    const bool gen = in->space == SP_NONE;
    const unsigned xs = gen ? XS_GENERIC : XS_SHARED;
    for (unsigned l = 0; l < 32; l++) {
        if (!(M >> l & 1))
            continue;
        const uint64_t a = vm_addr(w, &O[0], l), n = vm_get(w, &O[1], l);
        char msg[200];
        if (gen && vm_xs_space(XS_GENERIC, a) != SP_SHARED) {
            snprintf(msg, sizeof msg,
                     "st.bulk: the generic address %#llx is not in the shared window",
                     (unsigned long long)a);
            return sa_fault(w, pc, l, TRAP_ILLEGAL, a, 8, vm_xs_space(XS_GENERIC, a), true, msg);
        }
        if (a % 8 || n % 8) {
            snprintf(msg, sizeof msg,
                     "st.bulk: the address and the size (%llu bytes) must be multiples of 8",
                     (unsigned long long)n);
            return sa_fault(w, pc, l, TRAP_MISALIGNED, a, 8, SP_SHARED, true, msg);
        }
        if (!n)
            continue;
        /* the first and the last 8 bytes, in one CTA's shared memory */
        uint8_t *p, *e;
        int k = n > UINT32_MAX ? TRAP_OOB : vm_xlate(w, xs, l, a, 8, true, &p);
        if (!k && (vm_xlate(w, xs, l, a + n - 8, 8, true, &e) || e != p + n - 8))
            k = TRAP_OOB;
        if (k) {
            snprintf(msg, sizeof msg, "st.bulk: %llu bytes", (unsigned long long)n);
            return sa_fault(w, pc, l, (enum trap_kind)k, a, (unsigned)(n < 16 ? n : 16),
                            SP_SHARED, true, msg);
        }
        memset(p, 0, n); /* initval: 0, the one value the ISA allows */
        for (uint64_t o = 0; o < n; o += 8)
            tc_mem_report(mr, l, a + o, xs, 8, true, p + o);
    }
    return 0;
}
