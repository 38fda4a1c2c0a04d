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
 *
 * Bulk and tensor copies (bulk.c) into shared memory that complete on an mbarrier
 * (cp.async.bulk{.tensor} ... .mbarrier::complete_tx::bytes, into this CTA's shared memory or,
 * through shared::cluster, another CTA's of the cluster; every destination CTA's part of a
 * .multicast::cluster copy) are recorded the same way after the engine has copied them (the
 * bytes, and a bit per byte the copy wrote: a tensor box with its swizzle and out-of-bounds
 * fill, a .cp_mask), in the CTA whose shared memory they land in: the destination holds 0xff
 * until a mbarrier.test_wait / try_wait of any thread finds the phase complete that the
 * copy's complete_tx counted in (the parity of the object's phase when it was issued); a
 * finding names the issuing thread and, when it is another CTA's, that CTA's cluster rank. An
 * st.async (stasync.c) is recorded the same way; so is a red.async, but its bytes keep the
 * engine's reduction instead of the poison (a later reduction of the same word must see it):
 * an access before the wait is still a finding. A
 * bulk or tensor copy (or reduction) from shared memory to global memory (.bulk_group
 * completion) reads its source until the thread's cp.async.bulk.wait_group{.read} N covers
 * its bulk async-group (cp.async.bulk.commit_group): a write to such a byte before that is a
 * finding ("Write of a bulk copy source before the copy was waited for"); reads are fine. A
 * copy whose records cannot be allocated completes at once.
 *
 * The state lives in the CTA slot's check_cta (check_int.h): the records (a growing array,
 * compacted when every record is delivered), a bit per shared byte pending (apend: a copy will
 * write it; asrc: a bulk copy still reads it), and per thread the number of committed cp.async
 * and bulk groups. Only the checking loop's threads touch it: one host thread runs every CTA
 * of a cluster (grid.c; the timing model runs clusters on one thread too), so a copy into
 * another CTA of the cluster may record there and a wait may deliver there.
 */
#include <stdlib.h>
#include <string.h>

#include "interp/check.h"
#include "interp/check_int.h"
#include "interp/tensor.h"

/* CTA c's asynccheck state, made on first use (NULL out of memory: the copy then completes
 * at once, unchecked). */
static struct check_cta *as_state(struct cta *c)
{
    struct check_cta *k = c->chk;
    if (!k)
        return NULL;
    if (!k->apend) {
        k->apend = calloc(k->cap / 8 + 1, 1);
        k->asrc = calloc(k->cap / 8 + 1, 1);
        k->agroup = calloc((size_t)k->nw * 32, sizeof *k->agroup);
        k->bgroup = calloc((size_t)k->nw * 32, sizeof *k->bgroup);
        if (!k->apend || !k->asrc || !k->agroup || !k->bgroup) {
            free(k->apend);
            free(k->asrc);
            free(k->agroup);
            free(k->bgroup);
            k->apend = k->asrc = NULL;
            k->agroup = k->bgroup = NULL;
            return NULL;
        }
    }
    return k;
}

/* A new record of lane `lane` of w at pc (zeroed but for the site, thread and live), or NULL
 * out of memory. */
static struct async_rec *as_new(struct check_cta *k, struct warp *w, uint32_t pc, unsigned lane)
{
    if (k->nar == k->car && k->nlive <= k->nar / 2) {
        /* mostly delivered records (a pipeline always has some copy in flight, so the array
           never empties): drop the delivered ones, keeping the live ones in issue order */
        uint32_t n = 0;
        for (uint32_t j = 0; j < k->nar; j++)
            if (k->ar[j].live)
                k->ar[n++] = k->ar[j];
        k->nar = n;
    }
    if (k->nar == k->car) {
        const uint32_t cap = k->car ? 2 * k->car : 64;
        struct async_rec *r = realloc(k->ar, cap * sizeof *r);
        if (!r)
            return NULL;
        k->ar = r;
        k->car = cap;
    }
    struct async_rec *r = &k->ar[k->nar++];
    memset(r, 0, sizeof *r);
    r->fn = w->fn;
    r->pc = pc;
    r->tid = w->id * 32 + lane;
    r->rank = (uint8_t)w->cta->rank;
    r->live = true;
    k->nlive++;
    return r;
}

/* Does record r touch shared byte i? */
static inline bool as_covers(const struct async_rec *r, uint32_t i)
{
    return r->live && r->dst <= i && i - r->dst < r->n &&
           (!r->mask || (r->mask[(i - r->dst) >> 3] >> ((i - r->dst) & 7) & 1));
}

/* The pending-byte bitmap of r's kind: apend (a copy will write the byte), asrc (a bulk copy
 * reads it). */
static inline uint8_t *as_bits(struct check_cta *k, const struct async_rec *r)
{
    return r->kind == AR_BULK_SRC ? k->asrc : k->apend;
}

/* Set r's bytes in its bitmap and, for a destination, poison them. */
static void as_mark(struct cta *c, struct check_cta *k, const struct async_rec *r)
{
    uint8_t *b = as_bits(k, r);
    for (uint32_t i = r->dst; i < r->dst + r->n; i++)
        if (as_covers(r, i)) {
            b[i >> 3] |= (uint8_t)(1u << (i & 7));
            if (r->kind != AR_BULK_SRC && r->kind != AR_RED_ASYNC)
                c->shared[i] = 0xff; /* the poison until delivery */
        }
}

/* Rebuild the bits of the bytes [dst, dst + n) in bitmap b from the live records that use it
 * (another copy may still be pending there). */
static void as_remark(struct check_cta *k, uint8_t *b, uint32_t dst, uint32_t n)
{
    for (uint32_t i = dst; i < dst + n; i++)
        b[i >> 3] &= (uint8_t) ~(1u << (i & 7));
    for (uint32_t j = 0; j < k->nar; j++) {
        const struct async_rec *q = &k->ar[j];
        if (!q->live || as_bits(k, q) != b || q->dst >= dst + n || q->dst + q->n <= dst)
            continue;
        for (uint32_t i = q->dst; i < q->dst + q->n; i++)
            if (as_covers(q, i))
                b[i >> 3] |= (uint8_t)(1u << (i & 7));
    }
}

/* Free record r's buffers. */
static void as_drop(struct async_rec *r)
{
    free(r->big);
    free(r->mask);
    r->big = r->mask = NULL;
    r->live = false;
}

/* Deliver record r: a destination's bytes land in shared memory and count as written for
 * initcheck; a source is free again. */
static void as_deliver(struct cta *c, struct check_cta *k, struct async_rec *r)
{
    const bool init = r->kind != AR_BULK_SRC && (c->L->check & CHECK_INITCHECK);
    if (r->kind != AR_BULK_SRC && r->kind != AR_RED_ASYNC) {
        const uint8_t *src = r->kind == AR_CP ? r->data : r->big;
        for (uint32_t i = r->dst; i < r->dst + r->n; i++)
            if (as_covers(r, i)) {
                c->shared[i] = src[i - r->dst];
                if (init)
                    k->shinit[i >> 3] |= (uint8_t)(1u << (i & 7));
            }
    }
    uint8_t *b = as_bits(k, r);
    as_drop(r);
    k->nlive--;
    as_remark(k, b, r->dst, r->n);
    if (!k->nlive)
        k->nar = 0; /* every record delivered: start the array again */
}

/* See check.h. */
bool check_async_cp(struct warp *w, uint32_t pc, unsigned lane, uint32_t dst, const uint8_t *src,
                    unsigned n, unsigned cp)
{
    struct cta *c = w->cta;
    if (!(c->L->check & CHECK_ASYNCCHECK) || cp > 16 || dst + cp > c->shared_size)
        return false;
    struct check_cta *k = as_state(c);
    struct async_rec *r = k ? as_new(k, w, pc, lane) : NULL;
    if (!r)
        return false;
    r->kind = AR_CP;
    r->group = k->agroup[r->tid];
    r->dst = dst;
    r->n = cp;
    if (n)
        memcpy(r->data, src, n);
    as_mark(c, k, r);
    return true;
}

/* Record lane's copy (kind AR_BULK_DST or AR_ST_ASYNC) of the n bytes at dst of CTA c's shared
 * memory (mask: the bytes it wrote, NULL: all), completing on mbar's phase of parity phase. */
static void as_dst(struct warp *w, uint32_t pc, unsigned lane, struct cta *c, uint32_t dst,
                   uint32_t n, const uint8_t *mask, const uint8_t *mbar, unsigned phase,
                   uint8_t kind)
{
    if (!n || dst > c->shared_size || n > c->shared_size - dst)
        return;
    struct check_cta *k = as_state(c);
    if (!k)
        return;
    uint8_t *big = malloc(n), *m = mask ? malloc(n / 8 + 1) : NULL;
    struct async_rec *r = big && (m || !mask) ? as_new(k, w, pc, lane) : NULL;
    if (!r) {
        free(big);
        free(m);
        return;
    }
    memcpy(big, c->shared + dst, n);
    if (m)
        memcpy(m, mask, n / 8 + 1);
    r->kind = kind;
    r->dst = dst;
    r->n = n;
    r->big = big;
    r->mask = m;
    r->mbar = mbar;
    r->phase = (uint8_t)(phase & 1);
    as_mark(c, k, r);
}

/* See tensor.h. */
void check_async_bulk_dst(struct warp *w, uint32_t pc, unsigned lane, struct cta *c,
                          uint32_t dst, uint32_t n, const uint8_t *mask, const uint8_t *mbar,
                          unsigned phase)
{
    as_dst(w, pc, lane, c, dst, n, mask, mbar, phase, AR_BULK_DST);
}

/* See tensor.h. */
void check_async_st_dst(struct warp *w, uint32_t pc, unsigned lane, struct cta *c, uint32_t dst,
                        uint32_t n, const uint8_t *mbar, unsigned phase, bool red)
{
    as_dst(w, pc, lane, c, dst, n, NULL, mbar, phase, red ? AR_RED_ASYNC : AR_ST_ASYNC);
}

/* See tensor.h. */
void check_async_bulk_src(struct warp *w, uint32_t pc, unsigned lane, uint32_t src, uint32_t n,
                          const uint8_t *mask)
{
    struct cta *c = w->cta;
    if (!n || src > c->shared_size || n > c->shared_size - src)
        return;
    struct check_cta *k = as_state(c);
    if (!k)
        return;
    uint8_t *m = mask ? malloc(n / 8 + 1) : NULL;
    struct async_rec *r = m || !mask ? as_new(k, w, pc, lane) : NULL;
    if (!r) {
        free(m);
        return;
    }
    if (m)
        memcpy(m, mask, n / 8 + 1);
    r->kind = AR_BULK_SRC;
    r->group = k->bgroup[r->tid];
    r->dst = src;
    r->n = n;
    r->mask = m;
    as_mark(c, k, r);
}

/* See check.h. */
void check_async_group(struct warp *w, uint32_t M, const struct ir_insn *in, uint32_t keep)
{
    struct cta *c = w->cta;
    struct check_cta *k = c->chk;
    if (!(c->L->check & CHECK_ASYNCCHECK) || !k || !k->agroup)
        return;
    const bool bulk =
        in->op == OP_CP_ASYNC_BULK_COMMIT_GROUP || in->op == OP_CP_ASYNC_BULK_WAIT_GROUP;
    uint32_t *grp = bulk ? k->bgroup : k->agroup;
    for (uint32_t m = M; m; m &= m - 1) {
        const uint32_t tid = w->id * 32 + (uint32_t)__builtin_ctz(m);
        if (in->op == OP_CP_ASYNC_COMMIT_GROUP || in->op == OP_CP_ASYNC_BULK_COMMIT_GROUP) {
            grp[tid]++;
            continue;
        }
        /* wait_all: every copy; wait_group N: those of the committed groups but the N
           most recent (groups below the count - N); the bulk wait_group (with or without
           .read) frees the sources of those groups */
        const bool all = in->op == OP_CP_ASYNC_WAIT_ALL;
        const uint32_t lim = all ? UINT32_MAX : grp[tid] > keep ? grp[tid] - keep : 0;
        if (all)
            grp[tid]++; /* wait_all commits the open group too */
        const uint8_t kind = bulk ? AR_BULK_SRC : AR_CP;
        for (uint32_t j = 0; j < k->nar && k->nlive; j++) {
            struct async_rec *r = &k->ar[j];
            if (r->live && r->kind == kind && r->tid == tid && r->group < lim)
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
        if (r->live && r->kind == AR_CP && r->tid == tid && !r->mbar)
            r->mbar = mbar;
    }
}

/* See check.h. */
void check_async_mbar_done(struct warp *w, const uint8_t *mbar, unsigned parity)
{
    struct cta *c = w->cta;
    if (!(c->L->check & CHECK_ASYNCCHECK))
        return;
    /* the copies completing on it landed in this CTA or (bulk copies into distributed shared
       memory) in another of the cluster: the same host thread runs every CTA of a cluster */
    const struct cluster *cl = c->clu; /* (cl->cta[c->rank] is c) */
    for (uint32_t i = 0; i < cl->n; i++) {
        struct cta *t = cl->cta[i];
        struct check_cta *k = t ? t->chk : NULL;
        if (!k || !k->nlive)
            continue;
        for (uint32_t j = 0; j < k->nar && k->nlive; j++) {
            struct async_rec *r = &k->ar[j];
            if (r->live && r->mbar == mbar && r->kind != AR_BULK_SRC &&
                (r->kind == AR_CP || r->phase == (parity & 1)))
                as_deliver(t, k, r);
        }
    }
}

/* See check_int.h. */
void chk_async_access(struct warp *w, uint32_t pc, unsigned lane, const struct check_cta *k,
                      uint64_t addr, unsigned width, bool wr, uint64_t win)
{
    for (uint64_t i = addr; i < addr + width; i++) {
        const bool dst = k->apend[i >> 3] >> (i & 7) & 1;
        if (!dst && !(wr && (k->asrc[i >> 3] >> (i & 7) & 1)))
            continue;
        /* the latest live copy touching the byte names the copy */
        const struct async_rec *q = NULL;
        for (uint32_t j = k->nar; j-- > 0;)
            if (as_covers(&k->ar[j], (uint32_t)i) && (k->ar[j].kind != AR_BULK_SRC) == dst) {
                q = &k->ar[j];
                break;
            }
        /* red.async reductions of one word need no order among themselves */
        if (q && q->kind == AR_RED_ASYNC && pc < w->fn->ninsns &&
            w->fn->insns[pc].op == OP_RED_ASYNC)
            continue;
        struct finding x;
        chk_finding_at(&x, w, pc, lane,
                       !dst ? F_ASYNC_SRC_WRITE : wr ? F_ASYNC_WRITE : F_ASYNC_READ);
        x.addr = win + i;
        x.width = width;
        if (q) {
            x.fn2 = q->fn;
            x.pc2 = q->pc;
            x.need = q->tid;
            x.na = q->kind;
            x.nb = q->rank;
            x.remote = q->rank != w->cta->rank; /* issued by another CTA of the cluster */
        }
        chk_finding_add(w->cta->L, &x);
        return;
    }
}

/* See check_int.h. */
void chk_async_reset(struct check_cta *k)
{
    for (uint32_t j = 0; j < k->nar; j++)
        as_drop(&k->ar[j]);
    k->nar = k->nlive = 0;
    if (k->apend) {
        memset(k->apend, 0, k->cap / 8 + 1);
        memset(k->asrc, 0, k->cap / 8 + 1);
        memset(k->agroup, 0, (size_t)k->nw * 32 * sizeof *k->agroup);
        memset(k->bgroup, 0, (size_t)k->nw * 32 * sizeof *k->bgroup);
    }
}

/* See check_int.h. */
void chk_async_free(struct check_cta *k)
{
    chk_async_reset(k);
    free(k->ar);
    free(k->apend);
    free(k->asrc);
    free(k->agroup);
    free(k->bgroup);
}
