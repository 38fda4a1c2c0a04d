/*
 * interp/ops/helpers.h — inline helpers for the control, memory, move and warp handler
 * families: generic operand access by register file, address computation and translation
 * of every state space to a host pointer. Included by exec.c only (before the loop).
 */
#ifndef PTXEMU_OPS_HELPERS_H
#define PTXEMU_OPS_HELPERS_H

#include <sched.h>
#include <string.h>

#include "interp/internal.h"

/* Space class of a memory operand: the loader keeps one per operand of an execution image
 * (xfunc.xspace, indexed as xfunc.opnds); the IR operand itself is never written. */
enum xspace { XS_GLOBAL = 0, XS_CONST, XS_SHARED, XS_LOCAL, XS_KPARAM, XS_FPARAM, XS_GENERIC };

/* Space class of memory operand a, an operand of the warp's current function's image. */
static inline unsigned vm_xs(const struct warp *w, const struct ir_opnd *a)
{
    return w->fn->xspace[a - w->fn->opnds];
}

/* Value of a register/constant operand in lane l, zero-extended to 64 bits. */
static inline uint64_t vm_get(const struct warp *w, const struct ir_opnd *e, unsigned l)
{
    switch (e->rf) {
    case RF_PRED: return w->pred[e->slot] >> l & 1;
    case RF_B16: return w->r16[e->slot][l].u;
    case RF_B32: return w->r32[e->slot][l].u;
    default: return w->r64[e->slot][l].u;
    }
}

/* Write v (truncated to the register's width) to lane l of a register operand. */
static inline void vm_set(struct warp *w, const struct ir_opnd *e, unsigned l, uint64_t v)
{
    switch (e->rf) {
    case RF_PRED:
        w->pred[e->slot] = (w->pred[e->slot] & ~(1u << l)) | ((uint32_t)(v != 0) << l);
        break;
    case RF_B16: w->r16[e->slot][l].u = (uint16_t)v; break;
    case RF_B32: w->r32[e->slot][l].u = (uint32_t)v; break;
    default: w->r64[e->slot][l].u = v; break;
    }
}

/* Bytes of a register file element. */
static inline unsigned vm_rf_size(unsigned rf)
{
    static const unsigned sz[RF__COUNT] = {1, 2, 4, 8};
    return sz[rf];
}

/* Address of a memory operand [base + imm] in lane l (imm resolved by the loader). */
static inline uint64_t vm_addr(const struct warp *w, const struct ir_opnd *a, unsigned l)
{
    uint64_t b = 0;
    if (a->slot != IR_NOSLOT) {
        if (a->rf == RF_B64)
            b = w->r64[a->slot][l].u;
        else if (a->rf == RF_B32)
            b = w->r32[a->slot][l].u;
        else
            b = w->r16[a->slot][l].u;
    } else if (a->sym != IR_NOSYM && vm_xs(w, a) == XS_LOCAL) {
        b = w->sp;
    }
    return b + a->imm.u;
}

/* Always inlined, also into the exec loop's x86-64-v3 instantiation (interp/exec.c), so these
 * lane loops are compiled for the caller's target and vectorize there. */
#if defined(__GNUC__) || defined(__clang__)
#define VM_INLINE static inline __attribute__((always_inline))
#else
#define VM_INLINE static inline
#endif

/*
 * Addresses of memory operand a in all 32 lanes (lanes outside the active mask are computed
 * from stale registers and never used): one branch per instruction instead of per lane, and
 * the lane loop vectorizes. Same values as vm_addr.
 */
VM_INLINE void vm_addrs(const struct warp *w, const struct ir_opnd *a, uint64_t ad[32])
{
    const uint64_t imm = a->imm.u;
    if (a->slot != IR_NOSLOT) {
        if (a->rf == RF_B64) {
            const union r64 *r = w->r64[a->slot];
            for (unsigned l = 0; l < 32; l++)
                ad[l] = r[l].u + imm;
        } else if (a->rf == RF_B32) {
            const union r32 *r = w->r32[a->slot];
            for (unsigned l = 0; l < 32; l++)
                ad[l] = r[l].u + imm;
        } else {
            const union r16 *r = w->r16[a->slot];
            for (unsigned l = 0; l < 32; l++)
                ad[l] = r[l].u + imm;
        }
    } else {
        const uint64_t b = (a->sym != IR_NOSYM && vm_xs(w, a) == XS_LOCAL) ? w->sp : 0;
        for (unsigned l = 0; l < 32; l++)
            ad[l] = b + imm;
    }
}

/* Largest offset ad[l] - base and OR of the addresses over the lanes M (bounds and alignment
 * of a warp's accesses in two reductions; the full-mask loop vectorizes). */
VM_INLINE void vm_lanes_span(const uint64_t ad[32], uint32_t M, uint64_t base, uint64_t *maxoff,
                             uint64_t *orr)
{
    uint64_t mx = 0, o = 0;
    if (M == 0xffffffffu) {
        for (unsigned l = 0; l < 32; l++) {
            const uint64_t d = ad[l] - base;
            mx = d > mx ? d : mx;
            o |= ad[l];
        }
    } else {
        for (unsigned l = 0; l < 32; l++) {
            if (M >> l & 1) {
                const uint64_t d = ad[l] - base;
                mx = d > mx ? d : mx;
                o |= ad[l];
            }
        }
    }
    *maxoff = mx;
    *orr = o;
}

/* Do the accesses of `width` (a power of two) bytes at ad[l], lanes M, all lie in [0, size)
 * and are aligned? The fast path of shared-memory handlers; a lane that fails takes the
 * handler's per-lane path, which reports the fault exactly as before. */
VM_INLINE bool vm_lanes_in(const uint64_t ad[32], uint32_t M, uint64_t size, unsigned width)
{
    if (size < width)
        return false;
    uint64_t mx, o;
    vm_lanes_span(ad, M, 0, &mx, &o);
    return mx <= size - width && (o & (width - 1)) == 0;
}

/* Do all 32 lanes' accesses of `width` (a power of two) bytes at r[l] + imm lie in [0, size)
 * and are they aligned? The full-warp fast path of shared-memory handlers whose address is a
 * 32-bit register: the check runs on 32-bit lanes (8 per AVX2 vector) and, by bounding every
 * r[l] by size - width - imm, also rules out a 32-bit wrap of r[l] + imm. */
VM_INLINE bool vm_s32_in(const union r32 *r, uint64_t imm, uint32_t size, unsigned width)
{
    if (size < width || imm > (uint64_t)(size - width))
        return false;
    const uint32_t lim = size - width - (uint32_t)imm;
    uint32_t mx = 0, o = 0;
    for (unsigned l = 0; l < 32; l++) {
        const uint32_t v = r[l].u;
        mx = v > mx ? v : mx;
        o |= v;
    }
    return mx <= lim && ((o | (uint32_t)imm) & (width - 1)) == 0;
}

/* Are the accesses at ad[l], lanes M, all inside the warp's cached global allocation (w->mc),
 * aligned, and (wr) writable? The coalesced fast path of global loads and stores. */
VM_INLINE bool vm_lanes_cached(const struct warp *w, const uint64_t ad[32], uint32_t M,
                               unsigned width, bool wr)
{
    if (wr && (w->mc.flags & MEM_F_CONST))
        return false;
    if (w->mc.span < width)
        return false;
    uint64_t mx, o;
    vm_lanes_span(ad, M, w->mc.lo, &mx, &o);
    return mx <= w->mc.span - width && (o & (width - 1)) == 0;
}

/* Sign/zero extension of an n-byte value v per type t. */
static inline uint64_t vm_extend(uint64_t v, unsigned n, unsigned t)
{
    if (n >= 8)
        return v;
    unsigned sh = 64 - 8 * n;
    if (vm_type_is_signed(t))
        return (uint64_t)((int64_t)(v << sh) >> sh);
    return v & (~UINT64_C(0) >> sh);
}

static inline bool vm_in(uint64_t off, uint64_t size, unsigned width)
{
    return off < size && size - off >= width;
}

/*
 * Translate an access of `width` bytes at address a in space class xs (lane l) to a host
 * pointer. Returns 0 and *p, or the trap kind (TRAP_OOB, TRAP_MISALIGNED, TRAP_READONLY).
 * A local write (wr) raises the warp's local_hwm, so the next CTA in this warp slot clears
 * what this one wrote (warp_init).
 */
static inline int vm_xlate(struct warp *w, unsigned xs, unsigned l, uint64_t a, unsigned width,
                           bool wr, uint8_t **p)
{
    const struct cta *c = w->cta;
    if (a & (width - 1))
        return TRAP_MISALIGNED;
    switch (xs) {
    case XS_GENERIC:
        if (a - MEM_SHARED_BASE < MEM_SHARED_SIZE) {
            a -= MEM_SHARED_BASE;
            goto shared;
        }
        if (a - MEM_LOCAL_BASE < MEM_LOCAL_SIZE) {
            a -= MEM_LOCAL_BASE;
            goto local;
        }
        if (a - MEM_PARAM_BASE < MEM_PARAM_SIZE) {
            a -= MEM_PARAM_BASE;
            goto kparam;
        }
        /* fall through */
    case XS_GLOBAL:
    case XS_CONST:
        if (!vm_in(a - w->mc.lo, w->mc.span, width)) {
            if (!mem_check(w->cta->L->dev->mem, &w->mc, a, width))
                return TRAP_OOB;
        }
        if (wr && (w->mc.flags & MEM_F_CONST))
            return TRAP_READONLY;
        *p = (uint8_t *)(uintptr_t)a;
        return 0;
    case XS_SHARED:
    shared:
        if (!vm_in(a, c->shared_size, width))
            return a >= CLU_STRIDE ? cluster_xlate(w, a, width, p) : TRAP_OOB;
        *p = c->shared + a;
        return 0;
    case XS_LOCAL:
    local:
        if (!vm_in(a, c->local_stride, width))
            return TRAP_OOB;
        if (wr && a + width > w->local_hwm)
            w->local_hwm = (uint32_t)(a + width);
        *p = w->local + (size_t)l * c->local_stride + a;
        return 0;
    case XS_KPARAM:
    kparam:
        if (!vm_in(a, c->L->param_size, width))
            return TRAP_OOB;
        if (wr)
            return TRAP_READONLY;
        *p = c->L->params + a;
        return 0;
    case XS_FPARAM:
        if (!vm_in(a, w->fn->param_frame, width))
            return TRAP_OOB;
        *p = w->params + (size_t)l * w->fn->param_frame + a;
        return 0;
    }
    return TRAP_OOB;
}

/* enum ir_space of a space class, for trap records. */
static inline int vm_xs_space(unsigned xs, uint64_t a)
{
    switch (xs) {
    case XS_GLOBAL: return SP_GLOBAL;
    case XS_CONST: return SP_CONST;
    case XS_SHARED: return SP_SHARED;
    case XS_LOCAL: return SP_LOCAL;
    case XS_KPARAM:
    case XS_FPARAM: return SP_PARAM;
    default:
        if (a - MEM_SHARED_BASE < MEM_SHARED_SIZE)
            return SP_SHARED;
        if (a - MEM_LOCAL_BASE < MEM_LOCAL_SIZE)
            return SP_LOCAL;
        if (a - MEM_PARAM_BASE < MEM_PARAM_SIZE)
            return SP_PARAM;
        return SP_GLOBAL;
    }
}

/* Element k of mov's vector operand o: of a {…} list or a .v2/.v4 register (an OPK_SINK
 * operand, which mov skips, past its elements); a scalar stands for every element. Bounded by
 * o's own element count, so an unverified mov (exec does not run the verifier) reads and
 * writes nothing outside o. */
static inline struct ir_opnd vm_velem(const struct xfunc *fn, const struct ir_opnd *o, unsigned k)
{
    struct ir_opnd e = *o;
    if (o->kind == OPK_VEC) {
        if (k < o->n)
            return fn->opnds[o->first + k];
        e.kind = OPK_SINK;
    } else if (o->kind == OPK_REG && o->n > 1) {
        if (k < o->n) {
            e.slot += k;
            e.n = 1;
        } else {
            e.kind = OPK_SINK;
        }
    }
    return e;
}

/* Element operand k of a (possibly vector) register operand: for OPK_VEC the k-th element,
 * for a register of n slots slot + k. */
static inline struct ir_opnd vm_elem(const struct xfunc *fn, const struct ir_opnd *o, unsigned k)
{
    if (o->kind == OPK_VEC)
        return fn->opnds[o->first + k];
    struct ir_opnd e = *o;
    if (e.kind == OPK_REG)
        e.slot += k;
    return e;
}

/*
 * Atomic read-modify-write of n (4 or 8) bytes at p with an integer or f32/f64 operation:
 * *old = the previous value; 0, or -1 for a mode/type vm_atom_form_ok rejects (selection
 * never lets one through; the caller reports it rather than doing nothing). Every form is a
 * host atomic (fetch-op or compare-and-swap loop), so it is atomic against CTAs on other host
 * threads. f32/f64 min/max follow the ALU's min/max (a NaN operand is ignored, -0 < +0).
 */
static inline int vm_atomic(uint8_t *p, unsigned n, unsigned mode, unsigned type, uint64_t b,
                            uint64_t c, uint64_t *oldp)
{
    const bool sg = vm_type_is_signed(type);
    if (n == 4) {
        uint32_t *q = (uint32_t *)p, old, nv, bb = (uint32_t)b;
        switch (mode) {
        case MODE_ADD:
            if (type != T_F32) {
                *oldp = __atomic_fetch_add(q, bb, __ATOMIC_SEQ_CST);
                return 0;
            }
            break;
        case MODE_AND: *oldp = __atomic_fetch_and(q, bb, __ATOMIC_SEQ_CST); return 0;
        case MODE_OR: *oldp = __atomic_fetch_or(q, bb, __ATOMIC_SEQ_CST); return 0;
        case MODE_XOR: *oldp = __atomic_fetch_xor(q, bb, __ATOMIC_SEQ_CST); return 0;
        case MODE_EXCH: *oldp = __atomic_exchange_n(q, bb, __ATOMIC_SEQ_CST); return 0;
        case MODE_CAS:
            old = bb;
            __atomic_compare_exchange_n(q, &old, (uint32_t)c, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST);
            *oldp = old;
            return 0;
        case MODE_MIN: case MODE_MAX: case MODE_INC: case MODE_DEC: break;
        default: return -1;
        }
        old = __atomic_load_n(q, __ATOMIC_RELAXED);
        do {
            switch (mode) {
            case MODE_ADD: /* f32 */
                nv = fpu_f2u(fpu_u2f(old) + fpu_u2f(bb));
                break;
            case MODE_MIN:
            case MODE_MAX:
                if (type == T_F32)
                    nv = fpu_f2u(fpu_fminmax32(fpu_u2f(old), fpu_u2f(bb), mode == MODE_MAX, 0, 0));
                else if (sg)
                    nv = ((int32_t)bb < (int32_t)old) == (mode == MODE_MIN) ? bb : old;
                else
                    nv = (bb < old) == (mode == MODE_MIN) ? bb : old;
                if (type != T_F32 && bb == old)
                    nv = old;
                break;
            case MODE_INC: nv = old >= bb ? 0 : old + 1; break;
            default: nv = (old == 0 || old > bb) ? bb : old - 1; break; /* MODE_DEC */
            }
        } while (!__atomic_compare_exchange_n(q, &old, nv, true, __ATOMIC_SEQ_CST,
                                              __ATOMIC_RELAXED));
        *oldp = old;
        return 0;
    }
    if (n == 8) {
        uint64_t *q = (uint64_t *)p, old, nv;
        switch (mode) {
        case MODE_ADD:
            if (type != T_F64) {
                *oldp = __atomic_fetch_add(q, b, __ATOMIC_SEQ_CST);
                return 0;
            }
            break;
        case MODE_AND: *oldp = __atomic_fetch_and(q, b, __ATOMIC_SEQ_CST); return 0;
        case MODE_OR: *oldp = __atomic_fetch_or(q, b, __ATOMIC_SEQ_CST); return 0;
        case MODE_XOR: *oldp = __atomic_fetch_xor(q, b, __ATOMIC_SEQ_CST); return 0;
        case MODE_EXCH: *oldp = __atomic_exchange_n(q, b, __ATOMIC_SEQ_CST); return 0;
        case MODE_CAS:
            old = b;
            __atomic_compare_exchange_n(q, &old, c, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            *oldp = old;
            return 0;
        case MODE_MIN: case MODE_MAX: case MODE_INC: case MODE_DEC: break;
        default: return -1;
        }
        old = __atomic_load_n(q, __ATOMIC_RELAXED);
        do {
            switch (mode) {
            case MODE_ADD: /* f64 */
                nv = fpu_d2u(fpu_u2d(old) + fpu_u2d(b));
                break;
            case MODE_MIN:
            case MODE_MAX:
                if (type == T_F64)
                    nv = fpu_d2u(fpu_fminmax64(fpu_u2d(old), fpu_u2d(b), mode == MODE_MAX));
                else if (sg)
                    nv = ((int64_t)b < (int64_t)old) == (mode == MODE_MIN) ? b : old;
                else
                    nv = (b < old) == (mode == MODE_MIN) ? b : old;
                if (type != T_F64 && b == old)
                    nv = old;
                break;
            case MODE_INC: nv = old >= b ? 0 : old + 1; break;
            default: nv = (old == 0 || old > b) ? b : old - 1; break; /* MODE_DEC */
            }
        } while (!__atomic_compare_exchange_n(q, &old, nv, true, __ATOMIC_SEQ_CST,
                                              __ATOMIC_RELAXED));
        *oldp = old;
        return 0;
    }
    if (n == 2) {
        uint16_t *q = (uint16_t *)p, old;
        if (mode == MODE_CAS) {
            old = (uint16_t)b;
            __atomic_compare_exchange_n(q, &old, (uint16_t)c, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST);
            *oldp = old;
            return 0;
        }
        if (mode == MODE_EXCH) {
            *oldp = __atomic_exchange_n(q, (uint16_t)b, __ATOMIC_SEQ_CST);
            return 0;
        }
    }
    return -1;
}

/* Half-precision helpers for atom.add.f16/bf16(x2): exact float round trips. */
static inline float vm_h2f(uint16_t h)
{
    uint32_t s = (uint32_t)(h >> 15) << 31, e = h >> 10 & 31, m = h & 1023, u;
    if (e == 0) {
        if (m == 0) {
            u = s;
        } else {
            e = 113;
            while (!(m & 1024)) {
                m <<= 1;
                e--;
            }
            u = s | e << 23 | (m & 1023) << 13;
        }
    } else if (e == 31) {
        u = s | 0x7f800000u | m << 13;
    } else {
        u = s | (e + 112) << 23 | m << 13;
    }
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline uint16_t vm_f2h(float f) /* round to nearest even */
{
    uint32_t u;
    memcpy(&u, &f, 4);
    uint32_t s = u >> 16 & 0x8000, a = u & 0x7fffffff;
    if (a > 0x7f800000)
        return (uint16_t)(s | 0x7e00);
    if (a >= 0x477ff000)
        return (uint16_t)(s | 0x7c00);
    if (a < 0x38800000) { /* subnormal half */
        if (a < 0x33000000)
            return (uint16_t)s;
        uint32_t e = a >> 23, m = (a & 0x7fffff) | 0x800000, sh = 126 - e;
        uint32_t r = m >> sh, rem = m & ((1u << sh) - 1), half = 1u << (sh - 1);
        if (rem > half || (rem == half && (r & 1)))
            r++;
        return (uint16_t)(s | r);
    }
    uint32_t r = a + 0xfff + ((a >> 13) & 1);
    return (uint16_t)(s | ((r - 0x38000000) >> 13));
}

static inline float vm_bf2f(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline uint16_t vm_f2bf(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffff) > 0x7f800000)
        return (uint16_t)((u >> 16) | 0x40);
    u += 0x7fff + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}

/* atom.add on packed halves (f16x2, bf16x2, f16, bf16): CAS loop. */
static inline uint64_t vm_atomic_half_add(uint8_t *p, unsigned n, bool bf, uint64_t b)
{
    if (n == 2) {
        uint16_t *q = (uint16_t *)p, old = __atomic_load_n(q, __ATOMIC_RELAXED), nv;
        do {
            nv = bf ? vm_f2bf(vm_bf2f(old) + vm_bf2f((uint16_t)b))
                    : vm_f2h(vm_h2f(old) + vm_h2f((uint16_t)b));
        } while (!__atomic_compare_exchange_n(q, &old, nv, true, __ATOMIC_SEQ_CST,
                                              __ATOMIC_RELAXED));
        return old;
    }
    uint32_t *q = (uint32_t *)p, old = __atomic_load_n(q, __ATOMIC_RELAXED), nv;
    do {
        uint16_t lo = (uint16_t)old, hi = (uint16_t)(old >> 16);
        uint16_t blo = (uint16_t)b, bhi = (uint16_t)(b >> 16);
        if (bf) {
            lo = vm_f2bf(vm_bf2f(lo) + vm_bf2f(blo));
            hi = vm_f2bf(vm_bf2f(hi) + vm_bf2f(bhi));
        } else {
            lo = vm_f2h(vm_h2f(lo) + vm_h2f(blo));
            hi = vm_f2h(vm_h2f(hi) + vm_h2f(bhi));
        }
        nv = (uint32_t)lo | (uint32_t)hi << 16;
    } while (!__atomic_compare_exchange_n(q, &old, nv, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    return old;
}

/*
 * Loads and stores another host thread may race with (ld/st .volatile, .relaxed/.acquire/
 * .release wider than the CTA, .mmio): one host atomic access of n = 1, 2, 4 or 8 bytes at p
 * (aligned: vm_xlate checked it), acquire or release ordered where PTX asks for it, relaxed
 * otherwise. Plain memcpy would be a data race with the other CTA's atomic or store, and on a
 * weakly ordered host an acquire load would not order the loads after it.
 */
static inline uint64_t vm_load_sync(const uint8_t *p, unsigned n, bool acquire)
{
    const int mo = acquire ? __ATOMIC_ACQUIRE : __ATOMIC_RELAXED;
    switch (n) {
    case 1: return __atomic_load_n(p, mo);
    case 2: return __atomic_load_n((const uint16_t *)(const void *)p, mo);
    case 4: return __atomic_load_n((const uint32_t *)(const void *)p, mo);
    default: return __atomic_load_n((const uint64_t *)(const void *)p, mo);
    }
}

/* The store half of vm_load_sync: x's low n bytes to p, released where PTX asks for it. */
static inline void vm_store_sync(uint8_t *p, unsigned n, uint64_t x, bool release)
{
    const int mo = release ? __ATOMIC_RELEASE : __ATOMIC_RELAXED;
    switch (n) {
    case 1: __atomic_store_n(p, (uint8_t)x, mo); break;
    case 2: __atomic_store_n((uint16_t *)(void *)p, (uint16_t)x, mo); break;
    case 4: __atomic_store_n((uint32_t *)(void *)p, (uint32_t)x, mo); break;
    default: __atomic_store_n((uint64_t *)(void *)p, x, mo); break;
    }
}

/*
 * One atomic element of n bytes at p (type t, mode md, operands b, c): *old = the previous
 * value; 0, or -1 for a form vm_atom_form_ok rejects. Beyond vm_atomic: f16/bf16(x2) add
 * (vm_atomic_half_add), f16/bf16(x2) min/max (CAS loop with the ALU's min/max: a NaN operand
 * is ignored, -0 < +0), and f32 add with subnormal inputs and results flushed to
 * sign-preserving zero, as PTX defines atom/red.add.f32. All are host atomics.
 */
static inline int vm_atom_elem(uint8_t *p, unsigned t, unsigned n, unsigned md, uint64_t b,
                               uint64_t c, uint64_t *old)
{
    const bool half = t == T_F16 || t == T_F16X2 || t == T_BF16 || t == T_BF16X2;
    const bool bf = t == T_BF16 || t == T_BF16X2;
    if (half && md == MODE_ADD) {
        *old = vm_atomic_half_add(p, n, bf, b);
        return 0;
    }
    if (half && (md == MODE_MIN || md == MODE_MAX) && n == 2) {
        uint16_t *q = (uint16_t *)p, o = __atomic_load_n(q, __ATOMIC_RELAXED), v;
        do {
            v = fpu_hminmax(o, (uint16_t)b, bf, md == MODE_MAX, 0, 0, 0, 0);
        } while (!__atomic_compare_exchange_n(q, &o, v, true, __ATOMIC_SEQ_CST,
                                              __ATOMIC_RELAXED));
        *old = o;
        return 0;
    }
    if (half && (md == MODE_MIN || md == MODE_MAX) && n == 4) {
        uint32_t *q = (uint32_t *)p, o = __atomic_load_n(q, __ATOMIC_RELAXED), v;
        do {
            v = fpu_hminmax2(o, (uint32_t)b, bf, md == MODE_MAX, 0, 0, 0, 0);
        } while (!__atomic_compare_exchange_n(q, &o, v, true, __ATOMIC_SEQ_CST,
                                              __ATOMIC_RELAXED));
        *old = o;
        return 0;
    }
    if (half && n == 4)
        return -1; /* no bitwise / exchange forms on packed halves */
    if (md == MODE_ADD && t == T_F32) {
        uint32_t *q = (uint32_t *)p, o = __atomic_load_n(q, __ATOMIC_RELAXED), v;
        do {
            v = fpu_f2u(fpu_ftz32(fpu_ftz32(fpu_u2f(o)) + fpu_ftz32(fpu_u2f((uint32_t)b))));
        } while (!__atomic_compare_exchange_n(q, &o, v, true, __ATOMIC_SEQ_CST,
                                              __ATOMIC_RELAXED));
        *old = o;
        return 0;
    }
    return vm_atomic(p, n, md, t, b, c, old);
}

/* The device's spin lock for the 16 bytes at p (atom.cas/exch.b128). */
static inline uint32_t *vm_lock128(struct interp_dev *d, const void *p)
{
    uintptr_t a = (uintptr_t)p >> 4;
    return &d->atom_lock[(a ^ a >> 6 ^ a >> 12) & (INTERP_ATOM_LOCKS - 1)];
}

/*
 * atom.cas.b128 (cas: replace *p by c if it equals b) / atom.exch.b128 (replace by b) on the
 * 16 bytes at p, returning the old value: under the address's spin lock from the device's
 * stripe table, so it is atomic against every other 16-byte atomic on any host thread (the
 * x86-64 baseline has no 16-byte compare-and-swap without libatomic).
 */
static inline unsigned __int128 vm_atomic128(struct interp_dev *d, uint8_t *p, bool cas,
                                             unsigned __int128 b, unsigned __int128 c)
{
    uint32_t *lk = vm_lock128(d, p);
    while (__atomic_exchange_n(lk, 1u, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(lk, __ATOMIC_RELAXED))
            sched_yield();
    unsigned __int128 old;
    memcpy(&old, p, 16);
    if (!cas)
        memcpy(p, &b, 16);
    else if (old == b)
        memcpy(p, &c, 16);
    __atomic_store_n(lk, 0u, __ATOMIC_RELEASE);
    return old;
}

/* ------------------------------------------------------------------ calls */

static inline void vm_call_ops(const struct xfunc *fn, const struct ir_insn *in,
                               const struct ir_opnd *O, struct call_ops *co)
{
    co->target = NULL;
    co->rets = co->args = NULL;
    co->nrets = co->nargs = 0;
    for (unsigned i = 0; i < in->nopnd; i++) {
        const struct ir_opnd *o = &O[i];
        if (o->kind == OPK_PARAMS) {
            if (co->target == NULL) {
                co->rets = &fn->opnds[o->first];
                co->nrets = o->n;
            } else if (co->args == NULL) {
                co->args = &fn->opnds[o->first];
                co->nargs = o->n;
            }
        } else if (co->target == NULL && (o->kind == OPK_FUNC || o->kind == OPK_REG)) {
            co->target = o;
        }
    }
}

/* A call argument / return element in lane l: a .param symbol of the caller's frame (the
 * loader stored its frame offset in `first`) or a register. */
static inline uint64_t vm_arg_get(const struct warp *w, const struct ir_opnd *e, unsigned l,
                                  unsigned size)
{
    if (e->kind == OPK_REG || e->kind == OPK_IMM)
        return vm_get(w, e, l);
    uint64_t v = 0;
    if (e->first + size <= w->fn->param_frame)
        memcpy(&v, w->params + (size_t)l * w->fn->param_frame + e->first, size);
    return v;
}

static inline void vm_arg_set(struct warp *w, const struct ir_opnd *e, unsigned l, unsigned size,
                              uint64_t v)
{
    if (e->kind == OPK_REG) {
        vm_set(w, e, l, v);
        return;
    }
    if (e->first + size <= w->fn->param_frame)
        memcpy(w->params + (size_t)l * w->fn->param_frame + e->first, &v, size);
}

/* The definition of function `fi` of module `mi` (externs resolved across modules). */
static inline struct xfunc *vm_callee(const struct warp *w, uint64_t fi, unsigned mi)
{
    const struct interp_program *p = w->cta->L->k->prog;
    if (mi >= p->nmods || fi >= p->mods[mi].m->nfuncs)
        return NULL;
    return p->mods[mi].link[fi];
}

/* The function at a function address (MEM_FUNC_BASE window), or NULL. */
static inline struct xfunc *vm_callee_addr(const struct warp *w, uint64_t a)
{
    uint64_t off = a - MEM_FUNC_BASE;
    if (off >= (UINT64_C(1) << 36) || (off & 15))
        return NULL;
    off >>= 4;
    return vm_callee(w, off & 0xfffff, (unsigned)(off >> 20));
}

/* Copy a NUL-terminated device string (generic address) into buf; "" when unreadable. */
static inline void vm_read_cstr(struct warp *w, unsigned l, uint64_t a, char *buf, size_t n)
{
    size_t i = 0;
    for (; i + 1 < n; i++) {
        uint8_t *p;
        if (vm_xlate(w, XS_GENERIC, l, a + i, 1, false, &p) != 0)
            break;
        if (*p == 0)
            break;
        buf[i] = (char)*p;
    }
    buf[i] = 0;
}

/* CUDA's device-assert line: "file:line: function: block: [x,y,z], thread: [x,y,z]
 * Assertion `expr` failed." */
static inline void vm_assert_message(struct warp *w, const struct call_ops *co, unsigned l,
                                     char *out, size_t n)
{
    char msg[160] = "", file[160] = "", func[160] = "";
    uint64_t line = 0;
    if (co->nargs > 0)
        vm_read_cstr(w, l, vm_arg_get(w, &co->args[0], l, 8), msg, sizeof msg);
    if (co->nargs > 1)
        vm_read_cstr(w, l, vm_arg_get(w, &co->args[1], l, 8), file, sizeof file);
    if (co->nargs > 2)
        line = vm_arg_get(w, &co->args[2], l, 4);
    if (co->nargs > 3)
        vm_read_cstr(w, l, vm_arg_get(w, &co->args[3], l, 8), func, sizeof func);
    const struct cta *c = w->cta;
    const uint32_t *nt = c->L->l->block;
    uint32_t t = w->id * 32 + l;
    /* file and function names are cut so the line fits the report's 512 bytes with the whole
     * assertion text */
    snprintf(out, n, "%.100s:%u: %.80s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.",
             file, (unsigned)line, func, c->id[0], c->id[1], c->id[2], t % nt[0],
             t / nt[0] % nt[1], t / (nt[0] * nt[1]), msg);
}

/* ==================================================================== warp-collective helpers */

/* Member mask of lane l for a .sync warp instruction whose member-mask operand is e (NULL: the
 * instruction has none): the lanes of the lane's own mask that execute the instruction (M).
 * Lanes may pass different masks (__reduce_max_sync(__match_any_sync(...), v)): each computes
 * over its own. A lane outside its own mask (undefined in PTX) sees that mask's lanes (elect:
 * their leader, not itself); a mask naming no executing lane counts the lane alone. */
static inline uint32_t vm_member(const struct warp *w, const struct ir_opnd *e, uint32_t M,
                                 unsigned l)
{
    const uint32_t m = e ? (uint32_t)vm_get(w, e, l) & M : M;
    return m ? m : 1u << l;
}

/* Does the instruction carry modifier mod (run-time test: the function's modifier list)? */
static inline bool vm_has_mod(const struct warp *w, const struct ir_insn *in, unsigned mod)
{
    const uint16_t *mods = w->fn->f->mods + in->mod;
    for (unsigned i = 0; i < in->nmod; i++)
        if (mods[i] == mod)
            return true;
    return false;
}

/* ======================================================================= video instructions */
/*
 * vadd/vsub/vabsdiff/vmin/vmax/vshl/vshr/vmad/vset (scalar, with byte/half selectors, .sat,
 * secondary .add/.min/.max or a merge into c by d's selector) and the SIMD vop2/vop4 forms
 * (vadd2 … vset2, vadd4 … vset4: element selectors over the 8 bytes of {b, a}, a d mask,
 * .sat, secondary .add accumulate or merge with c). Decoded from the modifier list once per
 * warp instruction (struct vm_vid), then computed per lane exactly as the PTX ISA's pseudo code
 * (intermediate values in 64/128 bits, so no step wraps early).
 */
struct vm_vid {
    unsigned op;             /* OP_VADD … */
    bool sd, sa, sb;         /* dtype, atype, btype signed (vset: d unsigned) */
    bool sat, clamp, po;     /* .sat; vshl/vshr .clamp (else .wrap); vmad .po */
    int op2;                 /* 0, MODE_ADD, MODE_MIN, MODE_MAX (secondary operation) */
    unsigned cmp;            /* vset: enum ir_cmp */
    unsigned shift;          /* vmad .shr7 / .shr15: 7, 15, else 0 */
    uint64_t dsel, asel, bsel; /* IR_SEL_* of the operands (0: none) */
    bool na, nb, nc;         /* vmad operand negation */
};

static inline uint64_t vm_vid_sel(const struct ir_opnd *o)
{
    return o->kind == OPK_REG ? o->imm.u : 0;
}

/* Decode instruction in (operands O) into *v. */
static inline void vm_vid_decode(const struct warp *w, const struct ir_insn *in,
                                 const struct ir_opnd *O, struct vm_vid *v)
{
    memset(v, 0, sizeof *v);
    v->op = in->op;
    const uint16_t *mods = w->fn->f->mods + in->mod;
    unsigned nt = 0, types[3] = {T_U32, T_U32, T_U32};
    for (unsigned i = 0; i < in->nmod; i++) {
        const unsigned md = mods[i];
        if (ir_mod_kind((enum ir_mod)md) == MK_TYPE && nt < 3)
            types[nt++] = (unsigned)ir_mod_value((enum ir_mod)md);
        else if (md == MOD_ADD)
            v->op2 = MODE_ADD;
        else if (md == MOD_MIN)
            v->op2 = MODE_MIN;
        else if (md == MOD_MAX)
            v->op2 = MODE_MAX;
        else if (md == MOD_SHR7)
            v->shift = 7;
        else if (md == MOD_SHR15)
            v->shift = 15;
        else if (md == MOD_PO)
            v->po = true;
    }
    const bool set = in->op == OP_VSET || in->op == OP_VSET2 || in->op == OP_VSET4;
    if (set) { /* vset.atype.btype: the result is unsigned */
        v->sa = vm_type_is_signed(types[0]);
        v->sb = vm_type_is_signed(types[1]);
    } else {
        v->sd = vm_type_is_signed(types[0]);
        v->sa = vm_type_is_signed(types[1]);
        v->sb = vm_type_is_signed(types[2]);
    }
    if (in->op == OP_VSHL || in->op == OP_VSHR)
        v->sb = false; /* the shift amount is .u32 */
    v->sat = (in->fl & IR_FL(FL_SAT)) != 0;
    v->clamp = (in->fl & IR_FL(FL_CLAMP)) != 0;
    v->cmp = in->cmp;
    v->dsel = vm_vid_sel(&O[0]);
    v->asel = vm_vid_sel(&O[1]);
    v->bsel = vm_vid_sel(&O[2]);
    v->na = (O[1].flags & OPF_NEG) != 0;
    v->nb = (O[2].flags & OPF_NEG) != 0;
    v->nc = in->nopnd > 3 && (O[3].flags & OPF_NEG) != 0;
}

/* Scalar operand part: the byte/half selected by sel (or the word), sign- or zero-extended. */
static inline int64_t vm_vid_part(uint32_t x, uint64_t sel, bool sg)
{
    if (!sel)
        return sg ? (int64_t)(int32_t)x : (int64_t)x;
    const unsigned k = IR_SEL_DIGIT(sel, 0);
    if (IR_SEL_LETTER(sel) == 'b') {
        const uint32_t b = x >> (8 * (k & 3)) & 0xffu;
        return sg ? (int64_t)(int8_t)b : (int64_t)b;
    }
    const uint32_t h = x >> (16 * (k & 1)) & 0xffffu;
    return sg ? (int64_t)(int16_t)h : (int64_t)h;
}

static inline int64_t vm_vid_clamp(int64_t x, int64_t lo, int64_t hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

/* optSaturate: clamp to the range of the destination part (dsel) and signedness. */
static inline int64_t vm_vid_sat(int64_t t, bool sg, uint64_t dsel)
{
    const unsigned bits = !dsel ? 32 : IR_SEL_LETTER(dsel) == 'b' ? 8 : 16;
    if (sg)
        return vm_vid_clamp(t, -(INT64_C(1) << (bits - 1)), (INT64_C(1) << (bits - 1)) - 1);
    return vm_vid_clamp(t, 0, (INT64_C(1) << bits) - 1);
}

/* The secondary operation or the merge of a scalar video result t with c. */
static inline uint32_t vm_vid_finish(const struct vm_vid *v, int64_t t, uint32_t c, bool sg)
{
    if (v->sat)
        t = vm_vid_sat(t, sg, v->dsel);
    if (v->dsel) { /* optMerge: t's low part replaces the selected part of c */
        const unsigned k = IR_SEL_DIGIT(v->dsel, 0);
        const bool byte = IR_SEL_LETTER(v->dsel) == 'b';
        const unsigned sh = byte ? 8 * (k & 3) : 16 * (k & 1);
        const uint32_t m = (byte ? 0xffu : 0xffffu) << sh;
        return (c & ~m) | (((uint32_t)t << sh) & m);
    }
    switch (v->op2) {
    case MODE_ADD: return (uint32_t)t + c;
    case MODE_MIN:
        return sg ? (uint32_t)(t < (int64_t)(int32_t)c ? t : (int32_t)c)
                  : (uint32_t)(t < (int64_t)c ? t : (int64_t)c);
    case MODE_MAX:
        return sg ? (uint32_t)(t > (int64_t)(int32_t)c ? t : (int32_t)c)
                  : (uint32_t)(t > (int64_t)c ? t : (int64_t)c);
    default: return (uint32_t)t;
    }
}

static inline bool vm_vid_cmp(unsigned cmp, int64_t a, int64_t b)
{
    switch (cmp) {
    case CMP_EQ: return a == b;
    case CMP_NE: return a != b;
    case CMP_LT: return a < b;
    case CMP_LE: return a <= b;
    case CMP_GT: return a > b;
    default: return a >= b;
    }
}

/* One lane of a scalar video instruction: d from a, b, c (c only read when present). */
static inline uint32_t vm_vid_scalar(const struct vm_vid *v, uint32_t a, uint32_t b, uint32_t c)
{
    const int64_t ta = vm_vid_part(a, v->asel, v->sa), tb = vm_vid_part(b, v->bsel, v->sb);
    int64_t t;
    switch (v->op) {
    case OP_VADD: t = ta + tb; break;
    case OP_VSUB: t = ta - tb; break;
    case OP_VABSDIFF: t = ta > tb ? ta - tb : tb - ta; break;
    case OP_VMIN: t = ta < tb ? ta : tb; break;
    case OP_VMAX: t = ta > tb ? ta : tb; break;
    case OP_VSET: return vm_vid_finish(v, vm_vid_cmp(v->cmp, ta, tb), c, false);
    case OP_VSHL:
    case OP_VSHR: {
        uint64_t n = (uint64_t)tb;
        n = v->clamp ? (n > 32 ? 32 : n) : (n & 31);
        if (v->op == OP_VSHL) {
            const __int128 s = (__int128)ta * ((__int128)1 << n);
            t = v->sat ? (int64_t)(s > INT64_MAX ? INT64_MAX : s < INT64_MIN ? INT64_MIN : s)
                       : (int64_t)(uint64_t)(unsigned __int128)s;
        } else {
            t = ta >> n; /* ta is sign- or zero-extended to 64 bits: arithmetic for signed */
        }
        break;
    }
    default: { /* vmad */
        const bool sf = v->sa || v->sb || (v->na != v->nb) || v->nc;
        __int128 p = (__int128)ta * tb, cc = 0;
        uint32_t cv = c;
        int lsb = 0;
        if (v->po)
            lsb = 1;
        else if (v->na != v->nb)
            p = ~p, lsb = 1;
        else if (v->nc)
            cv = ~cv, lsb = 1;
        cc = sf ? (__int128)(int32_t)cv : (__int128)cv;
        __int128 r = p + cc + lsb;
        if (v->shift)
            r = sf ? r >> v->shift : (__int128)((unsigned __int128)r >> v->shift);
        int64_t r64 = (int64_t)(uint64_t)(unsigned __int128)r;
        if (v->sat) {
            if (sf)
                r64 = r > INT32_MAX ? INT32_MAX : r < INT32_MIN ? INT32_MIN : (int64_t)r;
            else
                r64 = r < 0 ? 0 : r > UINT32_MAX ? UINT32_MAX : (int64_t)r;
        }
        return (uint32_t)r64;
    }
    }
    return vm_vid_finish(v, t, c, v->sd);
}

/* Element i of n (2 halves or 4 bytes) of {b, a} selected by sel (default def), extended. */
static inline int64_t vm_vid_elem(uint64_t ab, uint64_t sel, uint64_t def, unsigned n,
                                  unsigned i, bool sg)
{
    if (!sel || IR_SEL_NDIGITS(sel) != n)
        sel = def;
    const unsigned k = IR_SEL_DIGIT(sel, n - 1 - i);
    if (n == 4) {
        const uint32_t x = (uint32_t)(ab >> (8 * k)) & 0xffu;
        return sg ? (int64_t)(int8_t)x : (int64_t)x;
    }
    const uint32_t x = (uint32_t)(ab >> (16 * k)) & 0xffffu;
    return sg ? (int64_t)(int16_t)x : (int64_t)x;
}

/* One lane of vop2 (n = 2) / vop4 (n = 4): d from a, b, c. */
static inline uint32_t vm_vid_simd(const struct vm_vid *v, unsigned n, uint32_t a, uint32_t b,
                                   uint32_t c)
{
    const uint64_t ab = (uint64_t)b << 32 | a;
    const uint64_t da = n == 4 ? IR_SEL_MAKE('b', 4) | 3u << 16 | 2u << 19 | 1u << 22
                               : IR_SEL_MAKE('h', 2) | 1u << 16;
    const uint64_t db = n == 4 ? IR_SEL_MAKE('b', 4) | 7u << 16 | 6u << 19 | 5u << 22 | 4u << 25
                               : IR_SEL_MAKE('h', 2) | 3u << 16 | 2u << 19;
    const unsigned bits = 32 / n;
    const uint32_t em = n == 4 ? 0xffu : 0xffffu;
    unsigned mask = (1u << n) - 1;
    if (v->dsel) {
        mask = 0;
        for (unsigned j = 0; j < IR_SEL_NDIGITS(v->dsel); j++)
            mask |= 1u << (IR_SEL_DIGIT(v->dsel, j) & (n - 1));
    }
    const bool set = v->op == OP_VSET2 || v->op == OP_VSET4;
    uint32_t d = v->op2 == MODE_ADD ? c : 0;
    for (unsigned i = 0; i < n; i++) {
        const int64_t x = vm_vid_elem(ab, v->asel, da, n, i, v->sa);
        const int64_t y = vm_vid_elem(ab, v->bsel, db, n, i, v->sb);
        int64_t t;
        switch (v->op) {
        case OP_VADD2: case OP_VADD4: t = x + y; break;
        case OP_VSUB2: case OP_VSUB4: t = x - y; break;
        case OP_VAVRG2: case OP_VAVRG4: t = x + y >= 0 ? (x + y + 1) >> 1 : (x + y) >> 1; break;
        case OP_VABSDIFF2: case OP_VABSDIFF4: t = x > y ? x - y : y - x; break;
        case OP_VMIN2: case OP_VMIN4: t = x < y ? x : y; break;
        case OP_VMAX2: case OP_VMAX4: t = x > y ? x : y; break;
        default: t = vm_vid_cmp(v->cmp, x, y); break;
        }
        if (v->sat && !set)
            t = v->sd ? vm_vid_clamp(t, -(INT64_C(1) << (bits - 1)), (INT64_C(1) << (bits - 1)) - 1)
                      : vm_vid_clamp(t, 0, em);
        if (v->op2 == MODE_ADD)
            d += mask >> i & 1 ? (uint32_t)t : 0;
        else
            d |= ((mask >> i & 1 ? (uint32_t)t : c >> (bits * i)) & em) << (bits * i);
    }
    return d;
}

#endif
