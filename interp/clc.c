/*
 * interp/clc.c — cluster launch control (sm_100, PTX ISA 8.6): work stealing between the
 * clusters (CTAs, without clusters) of one grid.
 *
 *   clusterlaunchcontrol.try_cancel.async{.shared::cta}.mbarrier::complete_tx::bytes
 *       {.multicast::cluster::all}.b128 [addr], [mbar]
 *     atomically cancels the launch of a cluster of the same grid that has not started yet,
 *     writes a 16-byte opaque response to shared memory at addr and performs complete-tx(16)
 *     on the mbarrier at mbar; with .multicast::cluster::all the response goes to addr and the
 *     complete-tx to mbar in every CTA of the executing cluster (the same offsets in each).
 *   clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, resp
 *   clusterlaunchcontrol.query_cancel.get_first_ctaid{::x,::y,::z}.b32.b128 d, resp
 *   clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {x, y, z, _}, resp
 *     decode a response (a .b128 register: two B64 slots, low half first).
 *
 * Each executing lane makes one request. The engine completes it when issued (like its bulk
 * copies): the response is in place and the mbarrier's tx-count lowered right after the
 * instruction.
 *
 * Which cluster a cancel gets (the ISA only promises one that has not started, never handed
 * to two cancels, the launch of which never happens): the launch keeps a state byte per
 * cluster (launch_state.clc: pending, started, cancelled; only for programs holding a
 * try_cancel, xfunc.clc), and a cluster leaves `pending` exactly once, by a compare-and-swap:
 * the grid runner (grid.c next_cta) and the engine's CTA creation (engine_cta_create /
 * engine_cluster_create, which timing's dispatch calls) to start it, a cancel to cancel it. A
 * cluster a host thread took in its chunk but has not started yet can thus be cancelled (its
 * thread skips it). Policy:
 *   - `--deterministic` (functional): the next cluster of the canceller's own host thread's
 *     fixed sequence (worker i runs clusters i, i + T, …): every host thread's clusters, started
 *     or cancelled, depend on its own CTAs only, so the run repeats for any thread count;
 *   - otherwise: the lowest pending cluster of the grid (launch_state.clc_front passes the
 *     clusters that left `pending`, each once), which is what the hardware's launch order would
 *     start next; in timing mode the dispatcher starts clusters in that order, so a cancel takes
 *     the next one it would dispatch, and a step with effects outside its SM (try_cancel is one)
 *     runs in (cycle, SM) order, so the result is the same for any --threads.
 * A cancel fails (the response says "not canceled") when no cluster is pending (in the
 * deterministic mode: none of the canceller's host thread).
 *
 * Response (16 bytes, words little-endian): x, y, z of the first CTA of the cancelled cluster,
 * then CLC_TAG | 1; a failed cancel: 0, 0, 0, CLC_TAG. A query of 16 bytes without the tag (a
 * response read before the mbarrier completed it, or never written) is a fault, so is
 * get_first_ctaid of a failed response (undefined in the ISA).
 *
 * Faults (the ISA leaves these undefined; interp_fault: kernel, block, thread, PC, PTX line):
 * addr not 16-byte aligned, addr or mbar outside the executing CTA's shared memory (the
 * .shared::cta window), mbar not an initialized mbarrier (async.c's fault), a try_cancel by a
 * CTA that observed a failed cancel (a query_cancel.is_canceled of a CTA's thread returned
 * false: "if the executing CTA has already observed the completion of a try_cancel as failed,
 * the behavior of issuing a subsequent try_cancel is undefined"), and a multicast try_cancel
 * when a CTA of the cluster has exited.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/internal.h"
#include "interp/ops/helpers.h"
#include "interp/tensor.h"

/* The response's fourth word: the tag, bit 0 set when the cancel succeeded. */
#define CLC_TAG 0x434c4300u

/* Does the instruction carry modifier `mod`? */
static bool clc_has(const struct ir_func *f, const struct ir_insn *in, unsigned mod)
{
    for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++)
        if (f->mods[in->mod + i] == mod)
            return true;
    return false;
}

/* See tensor.h. */
bool clc_supported(const struct ir_func *f, const struct ir_insn *in, const struct ir_opnd *O)
{
    if (in->op == OP_CLUSTERLAUNCHCONTROL_TRY_CANCEL)
        return in->nopnd == 2 && O[0].kind == OPK_ADDR && O[1].kind == OPK_ADDR &&
               (in->space == SP_NONE || in->space == SP_SHARED || in->space == SP_SHARED_CTA);
    if (in->op != OP_CLUSTERLAUNCHCONTROL_QUERY_CANCEL || in->nopnd != 2)
        return false;
    if (O[1].kind != OPK_REG || O[1].rf != RF_B64 || O[1].slot == IR_NOSLOT)
        return false; /* the .b128 response: two B64 slots */
    if (clc_has(f, in, MOD_IS_CANCELED))
        return O[0].kind == OPK_REG && O[0].rf == RF_PRED;
    if (O[0].kind == OPK_REG)
        return O[0].rf == RF_B32 && O[0].slot != IR_NOSLOT &&
               (clc_has(f, in, MOD_GET_FIRST_CTAID_X) || clc_has(f, in, MOD_GET_FIRST_CTAID_Y) ||
                clc_has(f, in, MOD_GET_FIRST_CTAID_Z));
    if (O[0].kind != OPK_VEC || O[0].n != 4 || (uint64_t)O[0].first + 4 > f->nopnds ||
        !clc_has(f, in, MOD_GET_FIRST_CTAID))
        return false;
    for (unsigned k = 0; k < 4; k++) {
        const struct ir_opnd *e = &f->opnds[O[0].first + k];
        if (e->kind != OPK_SINK && (e->kind != OPK_REG || e->rf != RF_B32))
            return false;
    }
    return true;
}

/* See internal.h. */
int clc_launch_init(struct launch_state *L)
{
    const struct interp_program *p = L->k->prog;
    bool any = false;
    for (unsigned mi = 0; mi < p->nmods && !any; mi++)
        for (uint32_t fi = 0; fi < p->mods[mi].m->nfuncs && !any; fi++)
            any = p->mods[mi].xf[fi].clc;
    L->clc = NULL;
    atomic_store(&L->clc_front, 0);
    if (!any)
        return 0;
    L->clc = calloc(L->nclusters, sizeof *L->clc);
    return L->clc ? 0 : -1;
}

/* See internal.h. */
void clc_launch_free(struct launch_state *L)
{
    free((void *)L->clc);
    L->clc = NULL;
}

/* Cancel a pending cluster for a thread of CTA c: its index, or UINT64_MAX when none is left
 * (the policy in the file comment). */
static uint64_t clc_pick(struct cta *c)
{
    struct launch_state *L = c->L;
    struct worker *wk = c->wk;
    if (!L->clc)
        return UINT64_MAX; /* (a launch of a program with a try_cancel always has them) */
    if (wk && L->cfg->deterministic) {
        /* the canceller's host thread's own sequence: only that thread touches it */
        while (wk->next_det < L->nclusters) {
            const uint64_t i = wk->next_det;
            wk->next_det += L->nworkers;
            uint8_t z = CLC_PENDING;
            if (atomic_compare_exchange_strong(&L->clc[i], &z, CLC_CANCELED))
                return i;
        }
        return UINT64_MAX;
    }
    uint64_t i = atomic_load(&L->clc_front);
    while (i < L->nclusters) {
        uint8_t z = CLC_PENDING;
        if (atomic_compare_exchange_strong(&L->clc[i], &z, CLC_CANCELED))
            return i;
        /* cluster i left `pending` for good: move the front past it (another thread may have) */
        uint64_t e = i;
        if (atomic_compare_exchange_weak(&L->clc_front, &e, i + 1))
            e = i + 1;
        i = e;
    }
    return UINT64_MAX;
}

/* Record lane l's fault and return -1. */
static int clc_fault(struct warp *w, uint32_t pc, unsigned l, enum trap_kind k, uint64_t a,
                     unsigned width, bool wr, const char *msg)
{
    interp_fault(w, pc, l, k, a, width, SP_SHARED, wr, msg);
    return -1;
}

/* The shared::cta offset of lane l's address operand o (generic when gen), or a fault (-1)
 * when it is not in the executing CTA's own shared memory or not aligned to `align`. */
static int clc_offset(struct warp *w, uint32_t pc, unsigned l, const struct ir_opnd *o, bool gen,
                      unsigned align, const char *name, uint64_t *off)
{
    const char *what = "clusterlaunchcontrol.try_cancel";
    char msg[240];
    uint64_t a = vm_addr(w, o, l);
    if (gen) {
        if (a - MEM_SHARED_BASE >= MEM_SHARED_SIZE) {
            snprintf(msg, sizeof msg,
                     "%s: the generic %s address %#llx is not in the shared window", what, name,
                     (unsigned long long)a);
            interp_fault(w, pc, l, TRAP_ILLEGAL, a, align, vm_xs_space(XS_GENERIC, a), true, msg);
            return -1;
        }
        a -= MEM_SHARED_BASE;
    }
    if (a % align) {
        snprintf(msg, sizeof msg, "%s: the %s address %#llx is not %u-byte aligned", what, name,
                 (unsigned long long)a, align);
        return clc_fault(w, pc, l, TRAP_MISALIGNED, a, align, true, msg);
    }
    if (a >= CLU_STRIDE || a + align > w->cta->shared_size) {
        snprintf(msg, sizeof msg,
                 "%s: the %s address %#llx is outside the executing CTA's shared memory (%u "
                 "bytes; the ISA requires the .shared::cta window)",
                 what, name, (unsigned long long)a, w->cta->shared_size);
        return clc_fault(w, pc, l, TRAP_OOB, a, align, true, msg);
    }
    *off = a;
    return 0;
}

/* One request of lane l. */
static int clc_cancel_lane(struct warp *w, uint32_t pc, unsigned l, const struct ir_opnd *O,
                           bool gen, bool mcast, const struct tc_mem *mr)
{
    const char *what = "clusterlaunchcontrol.try_cancel";
    struct cta *c = w->cta;
    struct launch_state *L = c->L;
    const struct cluster *cl = c->clu;
    uint64_t ra, mb;
    if (clc_offset(w, pc, l, &O[0], gen, 16, "response", &ra) ||
        clc_offset(w, pc, l, &O[1], gen, 8, "mbarrier", &mb))
        return -1;
    char msg[300];
    if (c->clc_failed) {
        snprintf(msg, sizeof msg,
                 "%s after this CTA observed a failed cancel (a query_cancel.is_canceled of one "
                 "of its threads was false): the ISA leaves a further try_cancel undefined",
                 what);
        return clc_fault(w, pc, l, TRAP_ILLEGAL, ra, 16, true, msg);
    }
    const uint32_t n = mcast ? cl->n : 1;
    for (uint32_t r = 0; r < n; r++) {
        const struct cta *t = mcast ? cl->cta[r] : c;
        unsigned ph;
        const uint64_t m = mcast ? (r + 1) * CLU_STRIDE + mb : mb;
        if (mcast && (!t || t->live_threads == 0)) {
            snprintf(msg, sizeof msg,
                     "%s.multicast::cluster::all: CTA rank %u of the cluster has exited (the "
                     "ISA leaves the multicast undefined then)",
                     what, r);
            return clc_fault(w, pc, l, TRAP_ILLEGAL, ra, 16, true, msg);
        }
        if (async_mbar_at(w, l, m, &ph, NULL))
            continue;
        uint8_t *p;
        if (!mcast || vm_xlate(w, XS_SHARED, l, m, 8, false, &p)) {
            async_complete_tx(w, pc, l, m, 16, what, mr); /* its fault: not an mbarrier */
            return -1;
        }
        snprintf(msg, sizeof msg,
                 "%s.multicast::cluster::all: the mbarrier object at %#llx of CTA rank %u of the "
                 "cluster is not initialized (no mbarrier.init, or after mbarrier.inval)",
                 what, (unsigned long long)mb, r);
        const struct sync_what x = {SM_MB_UNINIT, p, what, 0, 0, 0};
        interp_sync_fault(w, pc, l, &x, m, 8, SP_SHARED, true, msg);
        return -1;
    }
    const uint64_t q = clc_pick(c);
    uint32_t resp[4] = {0, 0, 0, CLC_TAG};
    if (q != UINT64_MAX) {
        struct cluster first;
        cluster_init(&first, L, q);
        for (int i = 0; i < 3; i++)
            resp[i] = first.id[i] * L->cdim[i];
        resp[3] |= 1;
    }
    for (uint32_t r = 0; r < n; r++) {
        const uint64_t a = mcast ? (r + 1) * CLU_STRIDE + ra : ra;
        const uint64_t m = mcast ? (r + 1) * CLU_STRIDE + mb : mb;
        uint8_t *p;
        if (vm_xlate(w, XS_SHARED, l, a, 16, true, &p))
            return clc_fault(w, pc, l, TRAP_OOB, a, 16, true,
                             "clusterlaunchcontrol.try_cancel: response");
        memcpy(p, resp, 16);
        tc_mem_report(mr, l, a, XS_SHARED, 16, true, p);
        if (async_complete_tx(w, pc, l, m, 16, what, mr))
            return -1;
    }
    return 0;
}

/* See tensor.h. */
int clc_try_cancel(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                   const struct ir_opnd *O, const struct tc_mem *mr)
{
    const bool gen = in->space == SP_NONE;
    const bool mcast = clc_has(w->fn->f, in, MOD_MULTICAST_CLUSTER_ALL);
    for (unsigned l = 0; l < 32; l++)
        if (M >> l & 1 && clc_cancel_lane(w, pc, l, O, gen, mcast, mr))
            return -1;
    return 0;
}

/* See tensor.h. */
int clc_query(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
              const struct ir_opnd *O)
{
    const struct ir_func *f = w->fn->f;
    const bool is_canceled = clc_has(f, in, MOD_IS_CANCELED);
    const union r64 *lo = w->r64[O[1].slot], *hi = w->r64[O[1].slot + 1];
    const char *what = "clusterlaunchcontrol.query_cancel";
    for (unsigned l = 0; l < 32; l++) {
        if (!(M >> l & 1))
            continue;
        const uint32_t v[4] = {(uint32_t)lo[l].u, (uint32_t)(lo[l].u >> 32), (uint32_t)hi[l].u,
                               (uint32_t)(hi[l].u >> 32)};
        char msg[300];
        if ((v[3] & ~1u) != CLC_TAG) {
            snprintf(msg, sizeof msg,
                     "%s: the operand (%08x %08x %08x %08x) is not a response written by "
                     "clusterlaunchcontrol.try_cancel (read before its mbarrier completed?)",
                     what, v[0], v[1], v[2], v[3]);
            interp_fault(w, pc, l, TRAP_ILLEGAL, 0, 0, SP_NONE, false, msg);
            return -1;
        }
        const bool ok = v[3] & 1;
        if (is_canceled) {
            vm_set(w, &O[0], l, ok);
            if (!ok)
                w->cta->clc_failed = true;
            continue;
        }
        if (!ok) {
            snprintf(msg, sizeof msg,
                     "%s.get_first_ctaid of a response whose cancel failed (the ISA leaves the "
                     "ctaid undefined then; test .is_canceled first)",
                     what);
            interp_fault(w, pc, l, TRAP_ILLEGAL, 0, 0, SP_NONE, false, msg);
            return -1;
        }
        if (O[0].kind == OPK_VEC) {
            for (unsigned k = 0; k < 4; k++) {
                const struct ir_opnd *e = &w->fn->opnds[O[0].first + k];
                if (e->kind != OPK_SINK)
                    vm_set(w, e, l, k < 3 ? v[k] : 0);
            }
        } else {
            const unsigned k = clc_has(f, in, MOD_GET_FIRST_CTAID_X)   ? 0
                               : clc_has(f, in, MOD_GET_FIRST_CTAID_Y) ? 1
                                                                       : 2;
            vm_set(w, &O[0], l, v[k]);
        }
    }
    return 0;
}
