/*
 * interp/check_async.c — asynccheck (--check asynccheck, or --check-async): asynchronous
 * copies into shared memory complete when the program waits for them, not when issued.
 *
 * Without it the engine completes a cp.async at once (async.c), so a program that reads the
 * destination before cp.async.wait_group / wait_all or before the mbarrier its
 * cp.async.mbarrier.arrive signals has completed still gets the data, where a GPU may give it
 * the old bytes. Under asynccheck each lane's cp.async is recorded instead (the bytes it
 * copies, read from global memory at issue, and its zero fill) and its destination is
 * poisoned (0xff bytes: NaN as f32 / f16, -1 as integers) until the copy is delivered:
 *   - cp.async.commit_group closes the thread's open group; cp.async.wait_group N delivers the
 *     thread's copies of every committed group but the N most recent; cp.async.wait_all all of
 *     them (committed or not);
 *   - cp.async.mbarrier.arrive{.noinc} ties the thread's copies not yet delivered to that
 *     mbarrier; a mbarrier.test_wait / try_wait that finds the phase complete delivers the
 *     copies tied to the object (the engine's arrival itself still happens at once);
 *   - the copies of a CTA still pending when it exits are dropped with its shared memory.
 * A shared-memory access (any instruction's, also ldmatrix and the other matrix and
 * asynchronous instructions') that touches a byte still pending is a finding: a read sees the
 * poison ("Read of a cp.async destination before the copy was waited for"), a write would be
 * overwritten when the copy lands ("Write ..."), each naming the cp.async. Delivery counts as
 * a write for initcheck. Other threads' waits do not deliver a thread's copies, as on the GPU
 * (a CTA barrier orders only what each thread waited for before it).
 * Bulk and tensor copies (bulk.c) still complete at once.
 *
 * The state lives in the CTA slot's check_cta (check_int.h): the records (a growing array,
 * compacted when every record is delivered), a bit per shared byte pending, and per thread the
 * number of committed groups. Only the checking loop's threads touch it (one host thread per
 * CTA).
 */
#include <stdlib.h>
#include <string.h>

#include "interp/check.h"
#include "interp/check_int.h"
#include "interp/tensor.h"

/* The CTA's asynccheck state, made on first use (NULL out of memory: the copy then completes
 * at once, unchecked). */
static struct check_cta *as_state(struct warp *w)
{
    struct cta *c = w->cta;
    struct check_cta *k = c->chk;
    if (!k)
        return NULL;
    if (!k->apend) {
        k->apend = calloc(k->cap / 8 + 1, 1);
        k->agroup = calloc((size_t)k->nw * 32, sizeof *k->agroup);
        if (!k->apend || !k->agroup) {
            free(k->apend);
            free(k->agroup);
            k->apend = NULL;
            k->agroup = NULL;
            return NULL;
        }
    }
    return k;
}

/* See check.h. */
bool check_async_cp(struct warp *w, uint32_t pc, unsigned lane, uint32_t dst, const uint8_t *src,
                    unsigned n, unsigned cp)
{
    struct cta *c = w->cta;
    if (!(c->L->check & CHECK_ASYNCCHECK) || cp > 16 || dst + cp > c->shared_size)
        return false;
    struct check_cta *k = as_state(w);
    if (!k)
        return false;
    if (k->nar == k->car) {
        const uint32_t cap = k->car ? 2 * k->car : 64;
        struct async_rec *r = realloc(k->ar, cap * sizeof *r);
        if (!r)
            return false;
        k->ar = r;
        k->car = cap;
    }
    const uint32_t tid = w->id * 32 + lane;
    struct async_rec *r = &k->ar[k->nar++];
    memset(r, 0, sizeof *r);
    r->fn = w->fn;
    r->pc = pc;
    r->tid = tid;
    r->group = k->agroup[tid];
    r->dst = dst;
    r->n = (uint8_t)cp;
    r->live = true;
    if (n)
        memcpy(r->data, src, n);
    k->nlive++;
    memset(c->shared + dst, 0xff, cp); /* the poison until delivery */
    for (uint32_t i = dst; i < dst + cp; i++)
        k->apend[i >> 3] |= (uint8_t)(1u << (i & 7));
    return true;
}

/* Rebuild the pending bits of the bytes [dst, dst + n) from the live records (another copy may
 * still be pending there). */
static void as_remark(struct check_cta *k, uint32_t dst, unsigned n)
{
    for (uint32_t i = dst; i < dst + n; i++)
        k->apend[i >> 3] &= (uint8_t) ~(1u << (i & 7));
    for (uint32_t j = 0; j < k->nar; j++) {
        const struct async_rec *q = &k->ar[j];
        if (!q->live || q->dst >= dst + n || q->dst + q->n <= dst)
            continue;
        for (uint32_t i = q->dst; i < q->dst + q->n; i++)
            k->apend[i >> 3] |= (uint8_t)(1u << (i & 7));
    }
}

/* Deliver record r: its bytes land in shared memory, and count as written for initcheck. */
static void as_deliver(struct cta *c, struct check_cta *k, struct async_rec *r)
{
    memcpy(c->shared + r->dst, r->data, r->n);
    r->live = false;
    k->nlive--;
    as_remark(k, r->dst, r->n);
    if (c->L->check & CHECK_INITCHECK)
        for (uint32_t i = r->dst; i < r->dst + r->n; i++)
            k->shinit[i >> 3] |= (uint8_t)(1u << (i & 7));
    if (!k->nlive)
        k->nar = 0; /* every record delivered: start the array again */
}

/* See check.h. */
void check_async_group(struct warp *w, uint32_t M, const struct ir_insn *in, uint32_t keep)
{
    struct cta *c = w->cta;
    struct check_cta *k = c->chk;
    if (!(c->L->check & CHECK_ASYNCCHECK) || !k || !k->agroup)
        return;
    for (uint32_t m = M; m; m &= m - 1) {
        const uint32_t tid = w->id * 32 + (uint32_t)__builtin_ctz(m);
        if (in->op == OP_CP_ASYNC_COMMIT_GROUP) {
            k->agroup[tid]++;
            continue;
        }
        /* wait_all: every copy; wait_group N: those of the committed groups but the N
           most recent (groups below agroup - N) */
        const bool all = in->op == OP_CP_ASYNC_WAIT_ALL;
        const uint32_t lim = all ? UINT32_MAX : k->agroup[tid] > keep ? k->agroup[tid] - keep : 0;
        if (all)
            k->agroup[tid]++; /* wait_all commits the open group too */
        for (uint32_t j = 0; j < k->nar && k->nlive; j++) {
            struct async_rec *r = &k->ar[j];
            if (r->live && r->tid == tid && r->group < lim)
                as_deliver(c, k, r);
        }
    }
}

/* See check.h. */
void check_async_mbar_arrive(struct warp *w, unsigned lane, const uint8_t *mbar)
{
    struct check_cta *k = w->cta->chk;
    if (!(w->cta->L->check & CHECK_ASYNCCHECK) || !k || !k->nlive)
        return;
    const uint32_t tid = w->id * 32 + lane;
    for (uint32_t j = 0; j < k->nar; j++) {
        struct async_rec *r = &k->ar[j];
        if (r->live && r->tid == tid && !r->mbar)
            r->mbar = mbar;
    }
}

/* See check.h. */
void check_async_mbar_done(struct warp *w, const uint8_t *mbar)
{
    struct cta *c = w->cta;
    struct check_cta *k = c->chk;
    if (!(c->L->check & CHECK_ASYNCCHECK) || !k || !k->nlive)
        return;
    for (uint32_t j = 0; j < k->nar && k->nlive; j++) {
        struct async_rec *r = &k->ar[j];
        if (r->live && r->mbar == mbar)
            as_deliver(c, k, r);
    }
}

/* See check_int.h. */
void chk_async_access(struct warp *w, uint32_t pc, unsigned lane, const struct check_cta *k,
                      uint64_t addr, unsigned width, bool wr, uint64_t win)
{
    for (uint64_t i = addr; i < addr + width; i++) {
        if (!(k->apend[i >> 3] >> (i & 7) & 1))
            continue;
        /* the latest live copy covering the byte names the cp.async */
        const struct async_rec *q = NULL;
        for (uint32_t j = k->nar; j-- > 0;)
            if (k->ar[j].live && k->ar[j].dst <= i && i < k->ar[j].dst + k->ar[j].n) {
                q = &k->ar[j];
                break;
            }
        struct finding x;
        chk_finding_at(&x, w, pc, lane, wr ? F_ASYNC_WRITE : F_ASYNC_READ);
        x.addr = win + i;
        x.width = width;
        if (q) {
            x.fn2 = q->fn;
            x.pc2 = q->pc;
            x.need = q->tid;
        }
        chk_finding_add(w->cta->L, &x);
        return;
    }
}

/* See check_int.h. */
void chk_async_reset(struct check_cta *k)
{
    k->nar = k->nlive = 0;
    if (k->apend)
        memset(k->apend, 0, k->cap / 8 + 1);
    if (k->agroup)
        memset(k->agroup, 0, (size_t)k->nw * 32 * sizeof *k->agroup);
}
