/*
 * interp/async.c — asynchronous copies (cp.async) and mbarrier objects in shared memory.
 *
 * The functional engine completes a cp.async when it is issued: the destination holds the data
 * (and the zero fill) right after the instruction, so cp.async.commit_group / wait_group /
 * wait_all have nothing left to wait for. A program that reads the destination before waiting
 * still gets the data here; a GPU could give it stale bytes: asynccheck (--check-async,
 * check_async.c) delays the copies to their wait, poisons the destination meanwhile and
 * reports the accesses to it.
 *
 * An mbarrier is the 64-bit object at its shared-memory address, in this encoding (opaque to
 * programs, as on the GPU):
 *     bits  0..19  pending arrivals of the current phase
 *     bits 20..39  expected arrivals per phase (set by init, lowered by arrive_drop)
 *     bits 40..61  the phase's tx-count, two's complement (raised by expect_tx, lowered by
 *                  complete_tx and by the bytes of bulk copies that complete on the object;
 *                  the ISA's range is -(2^20 - 1) .. 2^20 - 1, leaving it is a fault)
 *     bit  62      valid (set by init, cleared by inval: an object used without init is a fault)
 *     bit  63      phase parity
 * A misuse the engine stops at (an object used uninitialized, too many arrivals, a count or
 * tx-count out of range) is an illegal-instruction fault, synccheck's finding under
 * --check synccheck (interp_sync_fault); synccheck's checking loop also follows which objects
 * each CTA made (check_mbarrier, check_sync.c).
 * The phase completes when both the pending arrivals and the tx-count are zero; then the
 * pending count is reset to the expected count and the tx-count to zero.
 * mbarrier.arrive returns as its state the phase it arrived in (bit 63) and the arrivals that
 * phase still waited for after this one (bits 0..19, what mbarrier.pending_count reads; the
 * ISA defines that count for .noComplete arrivals, which must not complete the phase);
 * test_wait / try_wait compare the state's phase with the current one (.parity: the given
 * parity). A
 * CTA's shared memory is only touched by the host thread running that CTA, so these are plain
 * read-modify-writes, in lane order.
 */
#include <string.h>

#include "interp/check.h"
#include "interp/internal.h"
#include "interp/ops/helpers.h"
#include "interp/tensor.h"

enum {
    MB_CNT_BITS = 20,
    MB_TX_SHIFT = 40,
    MB_TX_BITS = 22,
};
#define MB_CNT_MASK ((UINT64_C(1) << MB_CNT_BITS) - 1)
#define MB_TX_MASK ((UINT64_C(1) << MB_TX_BITS) - 1)
#define MB_VALID (UINT64_C(1) << 62)
#define MB_PHASE (UINT64_C(1) << 63)
#define MB_MAX_COUNT ((UINT64_C(1) << 20) - 1)
#define MB_MAX_TX ((INT64_C(1) << 20) - 1)

static inline uint64_t mb_pending(uint64_t v)
{
    return v & MB_CNT_MASK;
}
static inline uint64_t mb_expected(uint64_t v)
{
    return v >> MB_CNT_BITS & MB_CNT_MASK;
}
static inline int64_t mb_tx(uint64_t v)
{
    const uint64_t t = v >> MB_TX_SHIFT & MB_TX_MASK;
    return (int64_t)(t ^ (UINT64_C(1) << (MB_TX_BITS - 1))) - (INT64_C(1) << (MB_TX_BITS - 1));
}
static inline uint64_t mb_make_tx(uint64_t phase, uint64_t expected, uint64_t pending,
                                  int64_t tx)
{
    return phase | MB_VALID | ((uint64_t)tx & MB_TX_MASK) << MB_TX_SHIFT |
           expected << MB_CNT_BITS | pending;
}
static inline uint64_t mb_make(uint64_t phase, uint64_t expected, uint64_t pending)
{
    return mb_make_tx(phase, expected, pending, 0);
}

/* Does p hold a valid mbarrier object (see check.h)? */
bool async_mbarrier_valid(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return (v & MB_VALID) != 0;
}

/* Does the instruction carry modifier `mod`? */
static bool as_has(const struct ir_func *f, const struct ir_insn *in, unsigned mod)
{
    for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++)
        if (f->mods[in->mod + i] == mod)
            return true;
    return false;
}

/* A modifier that names a form this file does not implement (::cluster spaces except for
 * mbarrier.arrive / arrive_drop, expect_tx and complete_tx, the forms PTX allows on another
 * CTA's mbarrier; .expect_tx on anything but those arrivals). */
static bool as_unimplemented_mod(const struct ir_func *f, const struct ir_insn *in)
{
    return (as_has(f, in, MOD_EXPECT_TX) && in->op != OP_MBARRIER_ARRIVE &&
            in->op != OP_MBARRIER_ARRIVE_DROP && in->op != OP_MBARRIER_EXPECT_TX) ||
           (in->space == SP_SHARED_CLUSTER && in->op != OP_MBARRIER_ARRIVE &&
            in->op != OP_MBARRIER_ARRIVE_DROP && in->op != OP_MBARRIER_EXPECT_TX &&
            in->op != OP_MBARRIER_COMPLETE_TX);
}

static bool as_value_opnd(const struct ir_opnd *o)
{
    return (o->kind == OPK_REG || o->kind == OPK_IMM) && o->slot != IR_NOSLOT;
}

/* ====================================================================== selection */

/* See tensor.h. */
bool async_supported(const struct ir_func *f, const struct ir_insn *in, const struct ir_opnd *O)
{
    if (as_unimplemented_mod(f, in))
        return false;
    switch (in->op) {
    case OP_CP_ASYNC: {
        if (in->nopnd < 3 || in->nopnd > 5 || O[0].kind != OPK_ADDR || O[1].kind != OPK_ADDR ||
            O[2].kind != OPK_IMM)
            return false;
        const uint64_t n = O[2].imm.u;
        if (n != 4 && n != 8 && n != 16)
            return false;
        if (in->fl & IR_FL(FL_CG) ? n != 16 : !(in->fl & IR_FL(FL_CA)))
            return false;
        for (unsigned i = 3; i < in->nopnd; i++)
            if (!as_value_opnd(&O[i]))
                return false;
        return true;
    }
    case OP_CP_ASYNC_MBARRIER_ARRIVE:
    case OP_MBARRIER_INVAL:
        return in->nopnd == 1 && O[0].kind == OPK_ADDR;
    case OP_MBARRIER_INIT:
        return in->nopnd == 2 && O[0].kind == OPK_ADDR && as_value_opnd(&O[1]);
    case OP_MBARRIER_ARRIVE:
    case OP_MBARRIER_ARRIVE_DROP:
        /* .shared::cluster (an mbarrier of any CTA of the cluster: vm_xlate's shared::cluster
         * window) has no state to return: the destination is the sink `_` */
        if (in->space == SP_SHARED_CLUSTER && O[0].kind != OPK_SINK)
            return false;
        /* .expect_tx: the third operand is the tx-count (one arrival) */
        if (as_has(f, in, MOD_EXPECT_TX) && in->nopnd != 3)
            return false;
        return (in->nopnd == 2 || in->nopnd == 3) && O[1].kind == OPK_ADDR &&
               ((O[0].kind == OPK_REG && O[0].rf == RF_B64) || O[0].kind == OPK_SINK) &&
               (in->nopnd == 2 || as_value_opnd(&O[2]));
    case OP_MBARRIER_TEST_WAIT:
    case OP_MBARRIER_TRY_WAIT:
        return (in->nopnd == 3 || (in->nopnd == 4 && OP_MBARRIER_TRY_WAIT == in->op)) &&
               O[0].kind == OPK_REG && O[0].rf == RF_PRED && O[1].kind == OPK_ADDR &&
               as_value_opnd(&O[2]);
    case OP_MBARRIER_PENDING_COUNT:
        return in->nopnd == 2 && O[0].kind == OPK_REG && as_value_opnd(&O[1]);
    case OP_MBARRIER_EXPECT_TX:
    case OP_MBARRIER_COMPLETE_TX:
        return in->nopnd == 2 && O[0].kind == OPK_ADDR && as_value_opnd(&O[1]);
    default:
        return false;
    }
}

/* See tensor.h. */
const char *async_unsupported_why(const struct ir_func *f, const struct ir_insn *in)
{
    switch (in->op) {
    case OP_CP_ASYNC:
    case OP_CP_ASYNC_MBARRIER_ARRIVE:
    case OP_MBARRIER_INIT: case OP_MBARRIER_INVAL: case OP_MBARRIER_ARRIVE:
    case OP_MBARRIER_ARRIVE_DROP: case OP_MBARRIER_TEST_WAIT: case OP_MBARRIER_TRY_WAIT:
    case OP_MBARRIER_PENDING_COUNT: case OP_MBARRIER_EXPECT_TX: case OP_MBARRIER_COMPLETE_TX:
        if (in->space == SP_SHARED_CLUSTER)
            return "unsupported (an mbarrier of another CTA of the cluster (.shared::cluster) "
                   "is implemented for mbarrier.arrive / arrive_drop{.expect_tx} with the sink "
                   "destination `_` and for expect_tx / complete_tx, the forms PTX allows)";
        if (as_has(f, in, MOD_EXPECT_TX))
            return "unsupported (.expect_tx is implemented on mbarrier.arrive / arrive_drop "
                   "only)";
        return "unsupported (this operand form of cp.async / mbarrier is not implemented)";
    default: return NULL;
    }
}

/* ====================================================================== cp.async */

/* cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size | ignore-src}{,
 * policy}: copy min(src-size, cp-size) bytes and zero-fill the rest of cp-size; completed at
 * once. */
int async_cp(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
             const struct ir_opnd *O, const struct tc_mem *mr)
{
    const unsigned cp = (unsigned)O[2].imm.u;
    const bool hint = (in->fl & IR_FL(FL_L2_HINT)) != 0;
    const struct ir_opnd *sz = NULL;
    if (in->nopnd == 5 || (in->nopnd == 4 && !(hint && O[3].rf == RF_B64)))
        sz = &O[3];
    /* asynccheck (the checking loop only): the copies are delivered at their wait */
    const bool ac = (w->cta->L->check & CHECK_ASYNCCHECK) != 0;
    for (unsigned l = 0; l < 32; l++) {
        if (!(M >> l & 1))
            continue;
        unsigned n = cp;
        if (sz && sz->rf == RF_PRED) {
            const bool ig = ((w->pred[sz->slot] >> l) & 1) ^ ((sz->flags & OPF_NEG) != 0);
            n = ig ? 0 : cp;
        } else if (sz) {
            const uint64_t s = vm_get(w, sz, l);
            n = s < cp ? (unsigned)s : cp;
        }
        const uint64_t da = vm_addr(w, &O[0], l), sa = vm_addr(w, &O[1], l);
        uint8_t *dp, *sp = NULL;
        int k = vm_xlate(w, XS_SHARED, l, da, cp, true, &dp);
        if (k) {
            interp_fault(w, pc, l, (enum trap_kind)k, da, cp, SP_SHARED, true,
                         "cp.async: destination");
            return -1;
        }
        if (n) {
            uint8_t *last;
            k = sa & (cp - 1) ? TRAP_MISALIGNED : vm_xlate(w, XS_GLOBAL, l, sa, 1, false, &sp);
            if (!k)
                k = vm_xlate(w, XS_GLOBAL, l, sa + n - 1, 1, false, &last);
            if (k) {
                interp_fault(w, pc, l, (enum trap_kind)k, sa, n, SP_GLOBAL, false,
                             "cp.async: source");
                return -1;
            }
            tc_mem_report(mr, l, sa, XS_GLOBAL, n, false, sp);
            /* asynccheck: delivered at the wait (check_async.c); the destination's write is
               then the delivery's */
            if (ac && check_async_cp(w, pc, l, (uint32_t)(dp - w->cta->shared), sp, n, cp))
                continue;
            memmove(dp, sp, n);
        } else if (ac && check_async_cp(w, pc, l, (uint32_t)(dp - w->cta->shared), NULL, 0, cp))
            continue;
        memset(dp + n, 0, cp - n);
        tc_mem_report(mr, l, da, XS_SHARED, cp, true, dp);
    }
    return 0;
}

/* ====================================================================== mbarrier */

/* The mbarrier object at address ad of space class xs (lane l): a host pointer to its 8 bytes
 * in the shared memory of this CTA (or, through the shared::cluster window, of another CTA of
 * its cluster). */
static int mb_ptr_at(struct warp *w, uint32_t pc, unsigned xs, uint64_t ad, unsigned l,
                     const char *what, uint8_t **p)
{
    const int space = vm_xs_space(xs, ad);
    char msg[128];
    if (space != SP_SHARED) {
        snprintf(msg, sizeof msg, "%s: the mbarrier object is not in shared memory", what);
        interp_fault(w, pc, l, TRAP_ILLEGAL, ad, 8, space, false, msg);
        return -1;
    }
    const int k = vm_xlate(w, xs, l, ad, 8, true, p);
    if (k) {
        snprintf(msg, sizeof msg, "%s: mbarrier object", what);
        interp_fault(w, pc, l, (enum trap_kind)k, ad, 8, space, true, msg);
        return -1;
    }
    return 0;
}

/* The mbarrier object of lane l's address operand a. */
static int mb_ptr(struct warp *w, uint32_t pc, const struct ir_opnd *a, unsigned l,
                  const char *what, uint8_t **p)
{
    return mb_ptr_at(w, pc, vm_xs(w, a), vm_addr(w, a, l), l, what, p);
}

/* Read the valid mbarrier object at (xs, ad) for lane l (a fault when it was never
 * initialized or was invalidated); the read is reported to mr. */
static int mb_load_at(struct warp *w, uint32_t pc, unsigned xs, uint64_t ad, unsigned l,
                      const char *what, uint8_t **p, uint64_t *v, const struct tc_mem *mr)
{
    if (mb_ptr_at(w, pc, xs, ad, l, what, p))
        return -1;
    memcpy(v, *p, 8);
    tc_mem_report(mr, l, ad, xs, 8, false, *p);
    if (!(*v & MB_VALID)) {
        char msg[128];
        snprintf(msg, sizeof msg,
                 "%s: the mbarrier object is not initialized (no mbarrier.init, or after "
                 "mbarrier.inval)",
                 what);
        const struct sync_what x = {SM_MB_UNINIT, *p, what, 0, 0, 0};
        interp_sync_fault(w, pc, l, &x, ad, 8, vm_xs_space(xs, ad), false, msg);
        return -1;
    }
    return 0;
}

/* mb_load_at for lane l's address operand a. */
static int mb_load(struct warp *w, uint32_t pc, const struct ir_opnd *a, unsigned l,
                   const char *what, uint8_t **p, uint64_t *v, const struct tc_mem *mr)
{
    return mb_load_at(w, pc, vm_xs(w, a), vm_addr(w, a, l), l, what, p, v, mr);
}

/* The object with `pend` arrivals and tx-count `tx` left in its phase: when both are zero the
 * phase completes (parity flips, the pending count restarts at the expected count). */
static uint64_t mb_settle(uint64_t ph, uint64_t exp, uint64_t pend, int64_t tx)
{
    if (pend == 0 && tx == 0) {
        ph ^= MB_PHASE;
        pend = exp;
    }
    return mb_make_tx(ph, exp, pend, tx);
}

/* Arrive `cnt` times on *v (drop: also lower the expected count) after raising its tx-count
 * by tx_add (.expect_tx); the phase completes when no arrival and no transaction byte is
 * pending. -1 when more arrivals than pending, when a .noComplete arrival (nocomp) would
 * complete the phase, or when the tx-count leaves its range. */
static int mb_arrive(uint64_t *v, uint64_t cnt, bool drop, bool nocomp, int64_t tx_add)
{
    uint64_t pend = mb_pending(*v), exp = mb_expected(*v), ph = *v & MB_PHASE;
    const int64_t tx = mb_tx(*v) + tx_add;
    if (cnt > pend || (drop && cnt > exp) || tx > MB_MAX_TX || tx < -MB_MAX_TX ||
        (nocomp && cnt == pend && tx == 0))
        return -1;
    pend -= cnt;
    if (drop)
        exp -= cnt;
    *v = mb_settle(ph, exp, pend, tx);
    return 0;
}

/* Lower the tx-count of *v by n bytes (complete_tx; expect_tx is n < 0). -1 when the count
 * leaves its range. */
static int mb_tx_add(uint64_t *v, int64_t delta)
{
    const int64_t tx = mb_tx(*v) + delta;
    if (tx > MB_MAX_TX || tx < -MB_MAX_TX)
        return -1;
    *v = mb_settle(*v & MB_PHASE, mb_expected(*v), mb_pending(*v), tx);
    return 0;
}

/* The fault of a tx-count out of range on the object at ad (mapped at p). */
static void mb_tx_fault(struct warp *w, uint32_t pc, unsigned l, unsigned xs, uint64_t ad,
                        const uint8_t *p, const char *what, uint64_t old, int64_t delta)
{
    char msg[200];
    snprintf(msg, sizeof msg,
             "%s: the mbarrier tx-count %lld %c %lld leaves its range -(2^20 - 1) .. 2^20 - 1",
             what, (long long)mb_tx(old), delta < 0 ? '-' : '+',
             (long long)(delta < 0 ? -delta : delta));
    const struct sync_what x = {SM_MB_TX, p, what, mb_tx(old), delta, 0};
    interp_sync_fault(w, pc, l, &x, ad, 8, vm_xs_space(xs, ad), true, msg);
}

/* Store the new state v (old before) of the object at (xs, ad), mapped at p, and report the
 * write; a phase that completed starts a new racecheck epoch (see async_mbarrier). */
static void mb_store_at(struct warp *w, unsigned l, unsigned xs, uint64_t ad, uint8_t *p,
                        uint64_t v, uint64_t old, const struct tc_mem *mr)
{
    memcpy(p, &v, 8);
    tc_mem_report(mr, l, ad, xs, 8, true, p);
    if ((v ^ old) & MB_PHASE)
        w->cta->chk_ep++;
}

/* Change the tx-count of the object at (xs, ad) by delta and store it back (reported). */
static int mb_tx_at(struct warp *w, uint32_t pc, unsigned l, unsigned xs, uint64_t ad,
                    int64_t delta, const char *what, const struct tc_mem *mr)
{
    uint8_t *p;
    uint64_t v;
    if (mb_load_at(w, pc, xs, ad, l, what, &p, &v, mr))
        return -1;
    const uint64_t old = v;
    if (mb_tx_add(&v, delta)) {
        mb_tx_fault(w, pc, l, xs, ad, p, what, old, delta);
        return -1;
    }
    mb_store_at(w, l, xs, ad, p, v, old, mr);
    return 0;
}

/* See tensor.h. */
void async_mbar_describe(const uint8_t *p, char *buf, size_t n)
{
    uint64_t v;
    memcpy(&v, p, 8);
    snprintf(buf, n, "its current phase (parity %u) has %llu of %llu arrivals and %lld "
                     "transaction bytes pending",
             (unsigned)(v >> 63), (unsigned long long)mb_pending(v),
             (unsigned long long)mb_expected(v), (long long)mb_tx(v));
}

/* See tensor.h. */
const uint8_t *async_mbar_at(struct warp *w, unsigned l, uint64_t ad, unsigned *phase,
                             struct cta **owner)
{
    uint8_t *p;
    struct cta *t;
    if (vm_xlate(w, XS_SHARED, l, ad, 8, false, &p) || !(t = cluster_cta_holding(w->cta, p, 8)) ||
        !async_mbarrier_valid(p))
        return NULL;
    *phase = p[7] >> 7; /* the phase bit, bit 63 of the little-endian word */
    if (owner)
        *owner = t;
    return p;
}

/* See tensor.h. */
int async_complete_tx(struct warp *w, uint32_t pc, unsigned l, uint64_t ad, uint64_t bytes,
                      const char *what, const struct tc_mem *mr)
{
    return mb_tx_at(w, pc, l, XS_SHARED, ad, -(int64_t)bytes, what, mr);
}

/* See tensor.h. */
int async_arrive_one(struct warp *w, uint32_t pc, unsigned l, unsigned xs, uint64_t ad,
                     const char *what, const struct tc_mem *mr)
{
    uint8_t *p;
    uint64_t v;
    if (mb_load_at(w, pc, xs, ad, l, what, &p, &v, mr))
        return -1;
    const uint64_t old = v;
    if (mb_arrive(&v, 1, false, false, 0)) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "%s: an arrival on an mbarrier phase with %llu pending (expected %llu per "
                 "phase)",
                 what, (unsigned long long)mb_pending(old), (unsigned long long)mb_expected(old));
        const struct sync_what x = {SM_MB_ARRIVE, p, what, 1, (int64_t)mb_pending(old),
                                    (int64_t)mb_expected(old)};
        interp_sync_fault(w, pc, l, &x, ad, 8, vm_xs_space(xs, ad), true, msg);
        return -1;
    }
    mb_store_at(w, l, xs, ad, p, v, old, mr);
    return 0;
}

/* mbarrier.init / inval / arrive / arrive_drop / test_wait / try_wait / pending_count and
 * cp.async.mbarrier.arrive, lane by lane in lane order. */
int async_mbarrier(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                   const struct ir_opnd *O, const struct tc_mem *mr)
{
    const char *what = ir_op_name((enum ir_op)in->op);
    const struct ir_func *f = w->fn->f;
    if (in->op == OP_MBARRIER_PENDING_COUNT) {
        for (unsigned l = 0; l < 32; l++)
            if (M >> l & 1)
                vm_set(w, &O[0], l, mb_pending(vm_get(w, &O[1], l)));
        return 0;
    }
    if (in->op == OP_MBARRIER_TEST_WAIT || in->op == OP_MBARRIER_TRY_WAIT) {
        const bool parity = as_has(f, in, MOD_PARITY);
        const unsigned l0 = M ? (unsigned)__builtin_ctz(M) : 32;
        uint32_t done = 0;
        for (unsigned l = 0; l < 32; l++) {
            if (!(M >> l & 1))
                continue;
            uint8_t *p;
            uint64_t v;
            if (mb_load(w, pc, &O[1], l, what, &p, &v, mr))
                return -1;
            const uint64_t s = vm_get(w, &O[2], l);
            const uint64_t want = parity ? (s & 1) : (s >> 63);
            done |= (uint32_t)((v >> 63) != want) << l;
            if ((v >> 63) != want && (w->cta->L->check & CHECK_ASYNCCHECK))
                check_async_mbar_done(w, p, (unsigned)want); /* asynccheck: copies land */
            if (l == l0 && !done) { /* the first lane's object, for spin deadlocks (cta.c) */
                if (p == w->mbw_p && v == w->mbw_v) {
                    w->mbw_q++;
                } else { /* another object, or this one changed: progress */
                    w->mbw_p = p;
                    w->mbw_v = v;
                    w->mbw_moved = true;
                }
                w->mbw_pc = pc;
                w->mbw_lane = l;
                w->mbw_want = (uint8_t)want;
            }
        }
        if (done)
            w->mbw_moved = true; /* a wait passed */
        w->pred[O[0].slot] = (w->pred[O[0].slot] & ~M) | done;
        return 0;
    }
    if (in->op == OP_MBARRIER_EXPECT_TX || in->op == OP_MBARRIER_COMPLETE_TX) {
        for (unsigned l = 0; l < 32; l++) {
            if (!(M >> l & 1))
                continue;
            const int64_t n = (int64_t)(vm_get(w, &O[1], l) & 0xffffffffu);
            if (mb_tx_at(w, pc, l, vm_xs(w, &O[0]), vm_addr(w, &O[0], l),
                         in->op == OP_MBARRIER_EXPECT_TX ? n : -n, what, mr))
                return -1;
        }
        return 0;
    }
    const struct ir_opnd *a = in->op == OP_MBARRIER_ARRIVE || in->op == OP_MBARRIER_ARRIVE_DROP
                                  ? &O[1]
                                  : &O[0];
    const bool expect_tx = as_has(f, in, MOD_EXPECT_TX);
    for (unsigned l = 0; l < 32; l++) {
        if (!(M >> l & 1))
            continue;
        uint8_t *p;
        uint64_t v;
        switch (in->op) {
        case OP_MBARRIER_INIT: {
            if (mb_ptr(w, pc, a, l, what, &p))
                return -1;
            const uint64_t c = vm_get(w, &O[1], l);
            if (c < 1 || c > MB_MAX_COUNT) {
                const struct sync_what x = {SM_MB_COUNT, p, what, (int64_t)c, 0, 0};
                interp_sync_fault(w, pc, l, &x, c, 0, 0, false,
                                  "mbarrier.init: the count must be in 1 .. 2^20 - 1");
                return -1;
            }
            v = mb_make(0, c, c);
            memcpy(p, &v, 8);
            tc_mem_report(mr, l, vm_addr(w, a, l), vm_xs(w, a), 8, true, p);
            break;
        }
        case OP_MBARRIER_INVAL:
            if (mb_load(w, pc, a, l, what, &p, &v, mr))
                return -1;
            v = 0;
            memcpy(p, &v, 8);
            tc_mem_report(mr, l, vm_addr(w, a, l), vm_xs(w, a), 8, true, p);
            break;
        case OP_CP_ASYNC_MBARRIER_ARRIVE:
            if (mb_load(w, pc, a, l, what, &p, &v, mr))
                return -1;
            if (w->cta->L->check & CHECK_ASYNCCHECK) /* the thread's copies signal it */
                check_async_mbar_arrive(w, l, p);
            /* without .noinc the pending count is raised by one before the asynchronous
             * arrival, which lowers it again when the thread's copies complete (at once here):
             * no change. With .noinc the arrival counts as one of the phase's. */
            if (!as_has(f, in, MOD_NOINC))
                break;
            /* fall through */
        case OP_MBARRIER_ARRIVE:
        case OP_MBARRIER_ARRIVE_DROP: {
            if (in->op != OP_CP_ASYNC_MBARRIER_ARRIVE && mb_load(w, pc, a, l, what, &p, &v, mr))
                return -1;
            const uint64_t old = v;
            const uint64_t c = in->op != OP_CP_ASYNC_MBARRIER_ARRIVE && in->nopnd > 2 &&
                                       !expect_tx
                                   ? vm_get(w, &O[2], l)
                                   : 1;
            const int64_t tx = expect_tx ? (int64_t)(vm_get(w, &O[2], l) & 0xffffffffu) : 0;
            const bool nocomp = as_has(f, in, MOD_NOCOMPLETE);
            if (c >= 1 && c <= MB_MAX_COUNT && c <= mb_pending(v) &&
                (in->op != OP_MBARRIER_ARRIVE_DROP || c <= mb_expected(v)) &&
                (mb_tx(v) + tx > MB_MAX_TX)) {
                mb_tx_fault(w, pc, l, vm_xs(w, a), vm_addr(w, a, l), p, what, v, tx);
                return -1;
            }
            if (c < 1 || c > MB_MAX_COUNT ||
                mb_arrive(&v, c, in->op == OP_MBARRIER_ARRIVE_DROP, nocomp, tx)) {
                char msg[200];
                snprintf(msg, sizeof msg,
                         "%s: %llu arrival(s) on an mbarrier phase with %llu pending (expected "
                         "%llu per phase)%s",
                         what, (unsigned long long)c, (unsigned long long)mb_pending(old),
                         (unsigned long long)mb_expected(old),
                         nocomp ? "; a .noComplete arrival must not complete the phase" : "");
                const uint64_t ad = vm_addr(w, a, l);
                const struct sync_what x = {c < 1 || c > MB_MAX_COUNT ? SM_MB_COUNT
                                            : c > mb_pending(old)     ? SM_MB_ARRIVE
                                                                      : SM_MB_NOCOMPLETE,
                                            p,
                                            what,
                                            (int64_t)c,
                                            (int64_t)mb_pending(old),
                                            (int64_t)mb_expected(old)};
                interp_sync_fault(w, pc, l, &x, ad, 8, SP_SHARED, true, msg);
                return -1;
            }
            memcpy(p, &v, 8);
            tc_mem_report(mr, l, vm_addr(w, a, l), vm_xs(w, a), 8, true, p);
            if ((v ^ old) & MB_PHASE) /* racecheck: a completed phase orders the accesses
                                         before its arrivals and after its waits (for the
                                         whole CTA: at worst a race is missed) */
                w->cta->chk_ep++;
            if (in->op != OP_CP_ASYNC_MBARRIER_ARRIVE && O[0].kind == OPK_REG)
                w->r64[O[0].slot][l].u = (old & MB_PHASE) | MB_VALID |
                                         (mb_pending(old) - c); /* see the header */
            break;
        }
        default:
            interp_fault(w, pc, l, TRAP_ILLEGAL, 0, 0, 0, false, "mbarrier: not implemented");
            return -1;
        }
    }
    return 0;
}
