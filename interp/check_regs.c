/*
 * interp/check_regs.c — initcheck of registers: per warp a frame per activation (the
 * kernel's, a fresh one per call) holds a lane mask per register its function may read before
 * writing it; a read in a lane that has not written the register is a finding.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "interp/check.h"
#include "interp/check_int.h"
#include "interp/internal.h"

/* The tracked registers of x (built on first use; NULL out of memory). */
static const struct rtrack *rtrack_of(struct check_cta *k, const struct xfunc *x)
{
    for (uint32_t i = 0; i < k->nrt; i++)
        if (k->rt[i].serial == x->serial)
            return &k->rt[i];
    struct rtrack *nt = realloc(k->rt, (k->nrt + 1) * sizeof *nt);
    if (!nt)
        return NULL;
    k->rt = nt;
    struct rtrack *t = &k->rt[k->nrt];
    memset(t, 0, sizeof *t);
    t->serial = x->serial;
    const struct ir_func *f = x->f;
    const uint32_t base[RF__COUNT] = {
        [RF_PRED] = x->offpred, [RF_B16] = x->off16, [RF_B32] = x->off32, [RF_B64] = 0};
    const uint32_t width[RF__COUNT] = {
        [RF_PRED] = 4, [RF_B16] = 64, [RF_B32] = 128, [RF_B64] = 256};
    for (unsigned rf = 0; rf < RF__COUNT; rf++) {
        if (!x->nzero || !f->ndeclared[rf])
            continue;
        if (!(t->idx[rf] = calloc(f->ndeclared[rf], sizeof *t->idx[rf]))) {
            for (unsigned r = 0; r < rf; r++)
                free(t->idx[r]);
            return NULL;
        }
        for (uint32_t s = 0; s < f->ndeclared[rf]; s++) {
            const uint32_t off = base[rf] + s * width[rf];
            for (uint32_t i = 0; i < x->nzero; i++)
                if (off >= x->zero[i].off && off - x->zero[i].off < x->zero[i].len) {
                    t->idx[rf][s] = ++t->n;
                    break;
                }
        }
    }
    /* .reg parameters and return values: the call writes them (or the body must) */
    for (uint32_t i = 0; i < f->nregdecls; i++) {
        const struct ir_regdecl *d = &f->regdecls[i];
        if (!d->param || d->rf >= RF__COUNT || !t->idx[d->rf])
            continue;
        for (uint32_t s = d->slot;
             s < d->slot + (d->count ? d->count : 1) && s < f->ndeclared[d->rf]; s++)
            t->idx[d->rf][s] = 0;
    }
    k->nrt++;
    return t;
}

/* The name of register (rf, slot) of f ("%r12"). */
static void reg_name(char *buf, size_t n, const struct xfunc *fn, unsigned rf, uint32_t slot)
{
    const struct ir_func *f = fn->f;
    for (uint32_t i = 0; i < f->nregdecls; i++) {
        const struct ir_regdecl *d = &f->regdecls[i];
        const uint32_t cnt = d->count ? d->count : 1;
        if (d->rf != rf || slot < d->slot || slot >= d->slot + cnt)
            continue;
        if (d->count)
            snprintf(buf, n, "%s%u", ir_str(fn->m, d->name), slot - d->slot);
        else
            snprintf(buf, n, "%s", ir_str(fn->m, d->name));
        return;
    }
    snprintf(buf, n, "$%c%u", "pHWD"[rf & 3], slot);
}

/* The warp's frame of its current activation: the kernel's, or a call's (pushed when the
 * warp is first seen deeper than its top frame, or right after a call at the same depth as
 * one that returned; popped when it is seen shallower). NULL out of memory. */
static struct rframe *rframe_of(struct check_cta *k, struct warp *w)
{
    struct rwarp *rw = &k->rw[w->id];
    const uint32_t depth = w->ncalls;
    while (rw->n && rw->f[rw->n - 1].depth > depth)
        rw->n--;
    const bool fresh = rw->pend && depth == rw->pend_depth + 1;
    rw->pend = false;
    if (rw->n && rw->f[rw->n - 1].depth == depth && !fresh &&
        rw->f[rw->n - 1].serial == w->fn->serial)
        return &rw->f[rw->n - 1];
    if (rw->n && rw->f[rw->n - 1].depth == depth)
        rw->n--; /* another activation at this depth */
    const struct rtrack *t = rtrack_of(k, w->fn);
    if (!t)
        return NULL;
    if (rw->n == rw->cap) {
        const uint32_t cap = rw->cap ? 2 * rw->cap : 4;
        struct rframe *nf = realloc(rw->f, cap * sizeof *nf);
        if (!nf)
            return NULL;
        memset(nf + rw->cap, 0, (cap - rw->cap) * sizeof *nf);
        rw->f = nf;
        rw->cap = cap;
    }
    struct rframe *fr = &rw->f[rw->n];
    if (fr->cap < t->n) {
        uint32_t *nw = realloc(fr->written, t->n * sizeof *nw);
        if (!nw)
            return NULL;
        fr->written = nw;
        fr->cap = t->n;
    }
    if (t->n)
        memset(fr->written, 0, t->n * sizeof *fr->written);
    fr->serial = w->fn->serial;
    fr->depth = depth;
    fr->n = t->n;
    fr->t = t;
    rw->n++;
    return fr;
}

/* initcheck of registers (see check.h). */
void check_regs(struct warp *w, uint32_t pc, uint32_t A, uint32_t M)
{
    struct check_cta *k = w->cta->chk;
    struct rframe *fr = rframe_of(k, w);
    const struct ir_func *f = w->fn->f;
    if (pc >= f->ninsns)
        return;
    const struct ir_insn *in = &f->insns[pc];
    if (in->op == OP_CALL && M) {
        k->rw[w->id].pend = true;
        k->rw[w->id].pend_depth = w->ncalls;
    }
    if (!fr || !fr->n)
        return; /* nothing tracked: nvcc's functions write every register first */
    uint32_t nr;
    const struct ir_regref *r = ir_insn_regs(f, in, &nr);
    const struct rtrack *t = fr->t;
    bool found = false;
    for (uint32_t i = 0; i < nr; i++) { /* the sources, before the writes */
        if (r[i].dst || r[i].rf >= RF__COUNT || !t->idx[r[i].rf])
            continue;
        /* the guard predicate is read by every active lane, the other sources only by the
         * lanes whose guard holds */
        const uint32_t rd =
            r[i].rf == RF_PRED && in->guard != IR_NOGUARD && r[i].slot == in->guard ? A : M;
        for (uint32_t s = r[i].slot; s < r[i].slot + r[i].n && s < f->ndeclared[r[i].rf]; s++) {
            const uint32_t x = t->idx[r[i].rf][s];
            const uint32_t miss = x ? rd & ~fr->written[x - 1] : 0;
            if (!miss || found)
                continue;
            /* one finding per instruction; each lane reading an unwritten register counts */
            struct finding y;
            chk_finding_at(&y, w, pc, (unsigned)__builtin_ctz(miss), F_INIT_REG);
            reg_name(y.what, sizeof y.what, w->fn, r[i].rf, s);
            chk_finding_add(w->cta->L, &y);
            for (uint32_t m = miss & (miss - 1); m; m &= m - 1) {
                chk_finding_at(&y, w, pc, (unsigned)__builtin_ctz(m), F_INIT_REG);
                reg_name(y.what, sizeof y.what, w->fn, r[i].rf, s);
                chk_finding_add(w->cta->L, &y);
            }
            found = true;
        }
    }
    for (uint32_t i = 0; i < nr; i++) {
        if (!r[i].dst || r[i].rf >= RF__COUNT || !t->idx[r[i].rf])
            continue;
        for (uint32_t s = r[i].slot; s < r[i].slot + r[i].n && s < f->ndeclared[r[i].rf]; s++) {
            const uint32_t x = t->idx[r[i].rf][s];
            if (x)
                fr->written[x - 1] |= M;
        }
    }
}
