/*
 * interp/check_mem.c — the lane accesses of each warp instruction (check_accesses, the
 * checking loop's hottest hook): initcheck of memory and shared-memory racecheck; global
 * accesses go on to check_grace.c.
 *
 * racecheck: every 4-byte word of a CTA's shared memory has a shadow cell holding its last
 *   write and its last two reads by different threads (with the bytes each touched), each
 *   stamped with the CTA's barrier epoch (bumped when a barrier completes, cta.c, and when an
 *   mbarrier phase does, async.c), the accessing warp's __syncwarp epoch and the CTA's
 *   instruction counter. Two accesses of one epoch by different threads, at least one a write,
 *   are a hazard unless they are one warp instruction (lanes of one access) or the same warp
 *   with a bar.warp.sync between them (independent thread scheduling: lock step is not an
 *   ordering). Atomics are never hazards. Epochs only grow, so a CTA needs no shadow clearing.
 * initcheck: cudaMalloc allocations carry a written-bytes bitmap (mem.h), set by host copies,
 *   memsets and kernel stores; a CTA's shared memory has one, cleared at the CTA's start, and
 *   each of its threads' local areas one (cleared too, as far as the last CTA wrote).
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "interp/check.h"
#include "interp/check_int.h"
#include "interp/internal.h"

/* Do access a (earlier) and cur conflict: different threads not ordered by a barrier, by a
 * __syncwarp of their warp, or by being one warp instruction? */
static inline bool race_conflict(const struct cta *c, const struct check_acc *a,
                                 const struct check_acc *cur)
{
    if (!a->fn || a->ep != c->chk_ep || a->tid == cur->tid || a->step == cur->step ||
        !(a->bytes & cur->bytes))
        return false;
    return !(a->tid / 32 == cur->tid / 32 && a->wep != cur->wep);
}

static void race_report(struct warp *w, unsigned lane, enum fkind kind, const struct check_acc *a,
                        const struct check_acc *cur)
{
    struct finding x;
    chk_finding_at(&x, w, cur->pc, lane, kind);
    x.fn1 = a->fn;
    x.pc1 = a->pc;
    x.fn2 = cur->fn;
    x.pc2 = cur->pc;
    chk_finding_add(w->cta->L, &x);
}

/* Record read *cur of shared word j: keep at most two readers of the epoch, by different
 * threads (any later writer differs from one of them); further reads add nothing (and cost
 * cache traffic), so a word whose every byte has two is `sat`. */
static inline void race_note_read(struct check_cta *k, uint64_t j, const struct check_acc *cur)
{
    struct check_cell *cell = &k->cell[j];
    const uint32_t ep = cur->ep;
    const bool rl = cell->r.fn && cell->r.ep == ep;
    if (!rl) {
        cell->r = *cur;
    } else if (cell->r.tid != cur->tid && !(cell->r2.fn && cell->r2.ep == ep)) {
        cell->r2 = cell->r;
        cell->r = *cur;
    }
    if (cell->r2.fn && cell->r2.ep == ep && cell->r.ep == ep &&
        (cell->r.bytes & cell->r2.bytes) == 0xf)
        k->sat[j] = ep;
}

/* racecheck of one lane's access to shared bytes [off, off+width). One report per kind per
 * access (the first conflicting word). */
static void race_access(struct warp *w, uint32_t pc, unsigned lane, uint64_t off, unsigned width,
                        bool wr)
{
    struct cta *c = w->cta;
    struct check_cta *k = c->chk;
    const uint32_t ep = c->chk_ep;
    const uint64_t w0 = off / 4, w1 = (off + width - 1) / 4;
    if (!wr) {
        uint64_t j = w0;
        while (j <= w1 && k->wrote[j] != ep && k->sat[j] == ep)
            j++;
        if (j > w1)
            return; /* no write this epoch, two readers of every byte known */
    }
    struct check_acc cur = {.fn = w->fn,
                            .pc = pc,
                            .ep = ep,
                            .wep = w->chk_wep,
                            .step = c->chk_step,
                            .tid = w->id * 32 + lane};
    bool waw = false, war = false, raw = false;
    for (uint64_t j = w0; j <= w1; j++) {
        if (w0 == w1) { /* within one word (the common case) */
            cur.bytes = (uint8_t)(((1u << width) - 1) << (off & 3));
        } else {
            const uint64_t lo = j * 4 > off ? j * 4 : off,
                           hi = j * 4 + 4 < off + width ? j * 4 + 4 : off + width;
            cur.bytes = (uint8_t)(((1u << (hi - lo)) - 1) << (lo & 3));
        }
        struct check_cell *cell = &k->cell[j];
        if (wr) {
            if (!waw && race_conflict(c, &cell->w, &cur)) {
                waw = true;
                race_report(w, lane, F_RACE_WAW, &cell->w, &cur);
            }
            if (!war) {
                const struct check_acc *r = race_conflict(c, &cell->r, &cur)    ? &cell->r
                                            : race_conflict(c, &cell->r2, &cur) ? &cell->r2
                                                                                : NULL;
                if (r) {
                    war = true;
                    race_report(w, lane, F_RACE_WAR, r, &cur);
                }
            }
            cell->w = cur;
            k->wrote[j] = ep;
        } else {
            if (!raw && race_conflict(c, &cell->w, &cur)) {
                raw = true;
                race_report(w, lane, F_RACE_RAW, &cell->w, &cur);
            }
            race_note_read(k, j, &cur);
        }
    }
}

/* racecheck of one lane's aligned 4-byte read of shared word j that was written in this
 * epoch or has fewer than two readers on record (race_access for the common case). */
static inline void race_read4(struct warp *w, uint32_t pc, unsigned lane, uint64_t j)
{
    struct cta *c = w->cta;
    struct check_cta *k = c->chk;
    const struct check_acc cur = {.fn = w->fn,
                                  .pc = pc,
                                  .ep = c->chk_ep,
                                  .wep = w->chk_wep,
                                  .step = c->chk_step,
                                  .tid = w->id * 32 + lane,
                                  .bytes = 0xf};
    struct check_cell *cell = &k->cell[j];
    if (race_conflict(c, &cell->w, &cur))
        race_report(w, lane, F_RACE_RAW, &cell->w, &cur);
    race_note_read(k, j, &cur);
}

/* Bits [i, i+n) of bitmap b all set? (n <= 16) */
static inline bool bits_all(const uint8_t *b, uint64_t i, unsigned n)
{
    if ((i & 7) + n <= 8) { /* within one byte (an aligned access of up to 8 bytes) */
        const unsigned m = ((1u << n) - 1) << (i & 7);
        return (b[i >> 3] & m) == m;
    }
    uint32_t v = b[i >> 3] | (uint32_t)b[(i >> 3) + 1] << 8 | (uint32_t)b[(i >> 3) + 2] << 16;
    uint32_t m = ((1u << n) - 1) << (i & 7);
    return (v & m) == m;
}

/*
 * initcheck of one lane's access to bytes [off, off+width) of its local area (the thread's
 * stack: the kernel's .local variables, the frames of the functions it calls, allocas; a call
 * or alloca clears what was written above the stack top, check_local_fresh). A bit per byte
 * written, per thread, made at the CTA slot's first local access (out of memory: not
 * checked).
 */
static void local_access(struct warp *w, uint32_t pc, unsigned lane, uint64_t off,
                         unsigned width, bool wr)
{
    struct cta *c = w->cta;
    struct check_cta *k = c->chk;
    const uint32_t stride = c->local_stride, nthreads = c->L->nthreads;
    if (off >= stride || width > stride - off)
        return; /* a fault (memcheck) */
    if (!k->linit || k->lstride != stride || k->lthreads < nthreads) {
        free(k->linit);
        k->lrow = (stride + 7) / 8;
        /* (bits_all reads two bytes beyond a row's last) */
        k->linit = calloc((size_t)k->lrow * nthreads + 3, 1);
        k->lstride = k->linit ? stride : 0;
        k->lthreads = k->linit ? nthreads : 0;
        k->lhwm = 0;
        if (!k->linit)
            return;
    }
    const uint32_t tid = w->id * 32 + lane;
    if (tid >= k->lthreads)
        return;
    uint8_t *b = k->linit + (size_t)tid * k->lrow;
    if (wr) {
        for (uint64_t i = off; i < off + width; i++)
            b[i >> 3] |= (uint8_t)(1u << (i & 7));
        if (off + width > k->lhwm)
            k->lhwm = (uint32_t)(off + width);
        return;
    }
    if (width <= 16 && bits_all(b, off, width))
        return;
    for (uint64_t i = off; i < off + width; i++)
        if (!(b[i >> 3] >> (i & 7) & 1)) {
            struct finding x;
            chk_finding_at(&x, w, pc, lane, F_INIT_LOCAL);
            x.addr = i;
            x.width = width;
            chk_finding_add(c->L, &x);
            return;
        }
}

/* initcheck of local memory at a call or alloca (check.h): a callee's frame (warp_call) and an
 * allocation (ops/mem.inc ALLOCA) are placed at the warp's stack top, over whatever an earlier
 * call's frame or a released allocation left there, so every byte of lanes M's areas from that
 * top up (as far as anything was written) is unwritten again: reused stack reads as
 * uninitialized, as on a GPU. */
void check_local_fresh(struct warp *w, uint32_t M)
{
    struct check_cta *k = w->cta->chk;
    const uint32_t top = w->alloca_top;
    if (!k || !k->linit || top >= k->lhwm || top >= k->lstride)
        return;
    const uint32_t from = (top + 7) / 8, to = (k->lhwm + 7) / 8;
    for (uint32_t m = M; m; m &= m - 1) {
        const uint32_t tid = w->id * 32 + (uint32_t)__builtin_ctz(m);
        if (tid >= k->lthreads)
            continue;
        uint8_t *b = k->linit + (size_t)tid * k->lrow;
        if (top & 7) /* the bits of bytes below the top in top's bitmap byte stay */
            b[top >> 3] &= (uint8_t)((1u << (top & 7)) - 1);
        if (to > from)
            memset(b + from, 0, to - from);
    }
}

/* One lane's access (space and address as engine_access has them) for the tools `tools`. */
static inline __attribute__((always_inline)) void check_one(struct warp *w, uint32_t pc,
                                                            unsigned lane, uint64_t addr,
                                                            unsigned width, bool wr, unsigned space,
                                                            bool atomic, unsigned tools)
{
    struct cta *c = w->cta;
    struct launch_state *L = c->L;
    if (space == SP_SHARED) {
        struct cta *t = c; /* whose shared memory: another CTA's through the cluster window */
        uint64_t win = 0;  /* where t's bytes start in the address the program used */
        if (addr >= CLU_STRIDE) {
            const uint64_t s = addr / CLU_STRIDE;
            if (s > c->clu->n || !(t = c->clu->cta[s - 1]))
                return; /* a fault (memcheck) */
            win = s * CLU_STRIDE;
            addr -= win;
        }
        if (addr >= t->shared_size || width > t->shared_size - addr)
            return; /* a fault (memcheck) */
        if (tools & CHECK_INITCHECK) {
            uint8_t *b = t->chk->shinit;
            if ((wr || atomic) && width <= 16) {
                const uint32_t m = ((1u << width) - 1) << (addr & 7);
                b[addr >> 3] |= (uint8_t)m;
                b[(addr >> 3) + 1] |= (uint8_t)(m >> 8);
                b[(addr >> 3) + 2] |= (uint8_t)(m >> 16);
            } else if (wr || atomic) {
                for (uint64_t i = addr; i < addr + width; i++)
                    b[i >> 3] |= (uint8_t)(1u << (i & 7));
            } else if (width > 16 || !bits_all(b, addr, width)) {
                for (uint64_t i = addr; i < addr + width; i++)
                    if (!(b[i >> 3] >> (i & 7) & 1)) {
                        struct finding x;
                        chk_finding_at(&x, w, pc, lane, F_INIT_SHARED);
                        x.addr = win + i;
                        x.width = width;
                        chk_finding_add(L, &x);
                        break;
                    }
            }
        }
        if ((tools & CHECK_ASYNCCHECK) && t->chk->nlive)
            chk_async_access(w, pc, lane, t->chk, addr, width, wr || atomic, win);
        if ((tools & CHECK_RACECHECK) && !atomic && t == c) /* (within one CTA) */
            race_access(w, pc, lane, addr, width, wr);
    } else if (space == SP_LOCAL && (tools & CHECK_INITCHECK)) {
        local_access(w, pc, lane, addr, width, wr || atomic);
    } else if (space == SP_GLOBAL && (tools & CHECK_INITCHECK)) {
        const struct mem_alloc *a = c->chk->last;
        if (!a || addr < a->base || addr - a->base + width > a->size) {
            a = mem_find(L->dev->mem, addr, width);
            if (!a)
                return;
            c->chk->last = a;
        }
        if (!a->init)
            return;
        if (wr || atomic) {
            mem_mark_init(L->dev->mem, addr, width);
            return;
        }
        const uint64_t off = addr - a->base;
        if ((off & 7) + width <= 8) { /* within one byte of the bitmap: test it here */
            const unsigned m = ((1u << width) - 1) << (off & 7);
            if ((__atomic_load_n(&a->init[off >> 3], __ATOMIC_RELAXED) & m) == m)
                return;
        }
        uint64_t bad = mem_first_uninit(a, addr, width);
        if (bad != UINT64_MAX) {
            struct finding x;
            chk_finding_at(&x, w, pc, lane, F_INIT_GLOBAL);
            x.addr = bad;
            x.width = width;
            x.base = a->base;
            x.size = a->size;
            chk_finding_add(L, &x);
        }
    }
}

/* The width, space and write fields of a struct engine_access as one word (acc_sig). */
_Static_assert(offsetof(struct engine_access, space) == offsetof(struct engine_access, width) + 2 &&
                   offsetof(struct engine_access, write) ==
                       offsetof(struct engine_access, width) + 3 &&
                   sizeof(((struct engine_access *)0)->width) == 2,
               "engine_access: width, space, write are adjacent");
static inline uint32_t acc_sig(unsigned width, unsigned space, unsigned write)
{
    const struct engine_access a = {
        .width = (uint16_t)width, .space = (uint8_t)space, .write = (uint8_t)write};
    uint32_t sig;
    memcpy(&sig, &a.width, sizeof sig);
    return sig;
}

/* The accesses of one warp instruction (see internal.h). The common case, a lane's access
 * inside the CTA's own shared memory, is handled here with the CTA's state loaded once per
 * instruction (most of the checking loop's time: a tiled kernel reads shared words that every
 * check has already seen); a read of one word nobody wrote in this epoch and that has two
 * readers on record costs the initcheck bit test and two epoch compares, and has no effect on
 * the shadow state, so the other lanes of the instruction reading that word (a broadcast, a
 * half-warp reading what the other half reads) skip it: `clear` has a bit per word of a
 * 64-word window from the first such read. Everything else goes to check_one. */
void check_accesses(struct warp *w, uint32_t pc, const struct engine_access *acc, unsigned n,
                    bool atomic)
{
    struct cta *c = w->cta;
    const unsigned tools = c->L->check;
    struct check_cta *k = c->chk;
    const uint32_t ssz = c->shared_size, ep = c->chk_ep;
    const bool init = tools & CHECK_INITCHECK, race = (tools & CHECK_RACECHECK) && !atomic;
    bool global = false;
    uint64_t base = UINT64_MAX, clear = 0; /* words base + i with bit i: reads known clean */
    /* an aligned 4-byte shared read (most of them) is recognised by one compare of its
     * width, space and write fields */
    const uint32_t rd4 = atomic ? UINT32_MAX : acc_sig(4, SP_SHARED, 0);
    const uint64_t end4 = ssz >= 4 ? ssz - 3 : 0; /* a 4-byte read below it is in bounds */
    for (unsigned i = 0; i < n; i++) {
        const struct engine_access *a = &acc[i];
        const uint64_t addr = a->addr;
        uint32_t sig;
        memcpy(&sig, &a->width, sizeof sig);
        if (sig == rd4 && !(addr & 3) && addr < end4 && !(k->nlive && (tools & CHECK_ASYNCCHECK))) {
            const uint64_t j = addr >> 2, d = j - base;
            if (d < 64 && (clear >> d & 1))
                continue; /* the word another lane of this instruction read cleanly */
            const unsigned m = 0xfu << (addr & 4);
            if (!init || (k->shinit[addr >> 3] & m) == m) {
                if (race && (k->wrote[j] == ep || k->sat[j] != ep)) {
                    race_read4(w, pc, a->lane, j);
                    continue;
                }
                if (base == UINT64_MAX)
                    base = j;
                if (j - base < 64)
                    clear |= UINT64_C(1) << (j - base);
                continue;
            }
        }
        const unsigned width = a->width;
        if (a->space != SP_SHARED || addr >= ssz || width > ssz - addr || width > 16 ||
            (init && (a->write || atomic))) {
            global |= a->space == SP_GLOBAL;
            check_one(w, pc, a->lane, addr, width, a->write, a->space, atomic, tools);
            continue;
        }
        /* own shared memory, in bounds: a read (or, without initcheck, a write) */
        if (init && !bits_all(k->shinit, addr, width)) {
            check_one(w, pc, a->lane, addr, width, a->write, a->space, atomic, tools);
            continue;
        }
        if (k->nlive && (tools & CHECK_ASYNCCHECK)) /* a cp.async still pending there? */
            chk_async_access(w, pc, a->lane, k, addr, width, a->write || atomic, 0);
        if (!a->write && (addr & 3) + width <= 4) {
            const uint64_t j = addr >> 2;
            if (!race || (k->wrote[j] != ep && k->sat[j] == ep)) {
                /* no write this epoch, two readers of every byte known: nothing to do */
                if (width == 4 && !atomic) {
                    if (base == UINT64_MAX)
                        base = j;
                    if (j - base < 64)
                        clear |= UINT64_C(1) << (j - base);
                }
                continue;
            }
        }
        if (race)
            race_access(w, pc, a->lane, addr, width, a->write);
    }
    if (global && (tools & CHECK_RACECHECK))
        chk_grace_accesses(w, pc, acc, n);
}

/* The accesses of a matrix or asynchronous instruction, for initcheck (see check.h). */
void check_async_accesses(struct warp *w, uint32_t pc, const struct engine_access *acc, unsigned n)
{
    struct launch_state *L = w->cta->L;
    const unsigned tools = L->check & (CHECK_INITCHECK | CHECK_ASYNCCHECK);
    if (!tools)
        return;
    for (unsigned i = 0; i < n; i++)
        check_one(w, pc, acc[i].lane, acc[i].addr, acc[i].width, acc[i].write, acc[i].space, false,
                  tools);
}
