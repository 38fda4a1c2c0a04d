/*
 * interp/warp.c — a warp's SIMT stack and call frames.
 *
 * The stack holds (pc, reconvergence pc, mask) entries: the immediate post-dominator scheme of
 * GPGPU-Sim's simt_stack. A divergent branch turns the top entry into the reconvergence entry
 * (pc = ipdom, mask = all active lanes) and pushes one entry per path (rpc = ipdom); an entry
 * whose pc reaches its rpc is popped, and the lanes wait in the entry below. When the top
 * entry already reconverges at the same ipdom (loops), it is replaced instead, so the stack
 * does not grow per iteration.
 *
 * Calls push a call record (caller frame, SIMT depth) and an entry for the callee
 * (pc 0, rpc = IR_NOPC, the calling lanes). `ret` removes lanes from the callee's entries and
 * `exit` from every entry; when the stack drops back to the call's depth the call is finished:
 * return parameters are copied back and the caller's frame restored. Recursion works because
 * every activation gets its own register frame, .param frame and .local frame.
 *
 * Register frames live in a per-warp arena addressed by offsets (it may be reallocated).
 *
 * Independent thread scheduling (its.c) may suspend the activations a path called into
 * (warp_suspend: a __syncwarp in a called function waits for lanes of the caller's other
 * paths): they are set aside, the calling entry is marked, and settle puts them back on top
 * when that entry is on top again. Their register frames stay in the arena (a return never
 * lowers it below them); their .local frames may be reused by other paths' calls, which is
 * safe because those write other lanes' local memory.
 */
#include <stdlib.h>
#include <string.h>

#include "interp/internal.h"

#define WARP_MAX_DEPTH (1u << 21)
/* Calls are bounded by the per-thread stack (cudaLimitStackSize): each activation takes its
 * .local frame (which holds nvcc's call-site .param blocks), at least WARP_CALL_FRAME bytes, as
 * a GPU's ABI call saves the return address and registers on the stack (ptxas gives a small
 * recursive function 16-24 bytes of stack frame). WARP_MAX_CALLS only bounds a warp's call
 * records (the largest stack, 16 MiB, in minimal frames). */
#define WARP_CALL_FRAME 16u
#define WARP_MAX_CALLS (1u << 20)

static uint32_t align_up(uint32_t v, uint32_t a)
{
    return (v + a - 1) & ~(a - 1);
}

/* Point the warp's register-file pointers at the frame at w->frame_off. */
static void warp_bind(struct warp *w)
{
    uint8_t *b = w->arena + w->frame_off;
    const struct xfunc *fn = w->fn;
    w->r64 = (union r64(*)[32])(void *)b;
    w->r32 = (union r32(*)[32])(void *)(b + fn->off32);
    w->r16 = (union r16(*)[32])(void *)(b + fn->off16);
    w->pred = (uint32_t *)(void *)(b + fn->offpred);
    w->params = b + fn->frame_bytes;
}

/* Ensure `need` more bytes in the arena (64-aligned); returns the offset or UINT32_MAX. */
static uint32_t arena_take(struct warp *w, uint32_t need)
{
    uint32_t off = align_up(w->arena_used, 64);
    if ((uint64_t)off + need > UINT32_MAX / 2)
        return UINT32_MAX;
    if (off + need > w->arena_cap) {
        uint32_t cap = w->arena_cap ? w->arena_cap : 65536;
        while (cap < off + need)
            cap *= 2;
        uint8_t *a = realloc(w->arena, cap);
        if (!a)
            return UINT32_MAX;
        w->arena = a;
        w->arena_cap = cap;
        if (w->fn)
            warp_bind(w);
    }
    w->arena_used = off + need;
    return off;
}

/* Broadcast v to every lane of slot (rf, slot) of the current frame. */
static void frame_set_all(struct warp *w, unsigned rf, uint32_t slot, uint64_t v)
{
    switch (rf) {
    case RF_PRED: w->pred[slot] = v ? ~0u : 0u; break;
    case RF_B16:
        for (unsigned l = 0; l < 32; l++)
            w->r16[slot][l].u = (uint16_t)v;
        break;
    case RF_B32:
        for (unsigned l = 0; l < 32; l++)
            w->r32[slot][l].u = (uint32_t)v;
        break;
    default:
        for (unsigned l = 0; l < 32; l++)
            w->r64[slot][l].u = v;
        break;
    }
}

static void frame_set(struct warp *w, unsigned rf, uint32_t slot, unsigned l, uint64_t v)
{
    switch (rf) {
    case RF_PRED: w->pred[slot] = (w->pred[slot] & ~(1u << l)) | ((uint32_t)(v != 0) << l); break;
    case RF_B16: w->r16[slot][l].u = (uint16_t)v; break;
    case RF_B32: w->r32[slot][l].u = (uint32_t)v; break;
    default: w->r64[slot][l].u = v; break;
    }
}

static uint64_t frame_get(const struct warp *w, unsigned rf, uint32_t slot, unsigned l)
{
    switch (rf) {
    case RF_PRED: return w->pred[slot] >> l & 1;
    case RF_B16: return w->r16[slot][l].u;
    case RF_B32: return w->r32[slot][l].u;
    default: return w->r64[slot][l].u;
    }
}

/*
 * Move function fn's .reg parameters (VF_REG_PARAM) among syms [first, first + n) between
 * its parameter frame, where the call put the arguments and where finish_call takes return
 * values from, and the registers its body reads and writes them as: into the registers
 * (to_regs, at a call) or out of them (at its return). Lanes M; fn's frame is the current one.
 */
static void reg_params_move(struct warp *w, const struct xfunc *fn, uint32_t first, uint32_t n,
                            uint32_t M, bool to_regs)
{
    /* the builder declares a function's .reg parameters first in its body: none there, none
     * at all (the common case, checked once per call) */
    const struct ir_func *f = fn->f;
    if (n == 0 || f->nregdecls == 0 || !f->regdecls[0].param)
        return;
    const struct interp_program *p = w->cta->L->k->prog;
    const uint32_t *poff = p->mods[fn->mod_index].param_off;
    const uint32_t pf = fn->param_frame;
    for (uint32_t k = 0; k < n; k++) {
        const struct ir_sym *s = &fn->m->syms[first + k];
        if (!(s->flags & VF_REG_PARAM))
            continue;
        const unsigned spe = s->type == T_B128 ? 2 : 1; /* slots per element */
        const unsigned ne = (s->vec > 1 ? s->vec : 1) * spe;
        const unsigned cb = (unsigned)(s->size / ne); /* frame bytes per slot */
        if (cb == 0 || cb > 8 || (uint64_t)poff[first + k] + s->size > pf ||
            (uint64_t)s->reg_slot + ne > fn->f->nslots[s->reg_rf])
            continue;
        for (unsigned l = 0; l < 32; l++) {
            if (!(M >> l & 1))
                continue;
            uint8_t *pp = w->params + (size_t)l * pf + poff[first + k];
            for (unsigned e = 0; e < ne; e++, pp += cb) {
                uint64_t v = 0;
                if (to_regs) {
                    memcpy(&v, pp, cb);
                    frame_set(w, s->reg_rf, s->reg_slot + e, l, v);
                } else {
                    v = frame_get(w, s->reg_rf, s->reg_slot + e, l);
                    memcpy(pp, &v, cb);
                }
            }
        }
    }
}

/* Value of special register s in lane l of warp w. */
static uint64_t sreg_value(const struct warp *w, unsigned s, unsigned l)
{
    const struct cta *c = w->cta;
    const struct launch_state *L = c->L;
    const uint32_t *b = L->l->block, *g = L->l->grid;
    const uint32_t t = w->id * 32 + l;
    switch (s) {
    case SR_TID_X: return t % b[0];
    case SR_TID_Y: return t / b[0] % b[1];
    case SR_TID_Z: return t / (b[0] * b[1]);
    case SR_NTID_X: return b[0];
    case SR_NTID_Y: return b[1];
    case SR_NTID_Z: return b[2];
    case SR_CTAID_X: return c->id[0];
    case SR_CTAID_Y: return c->id[1];
    case SR_CTAID_Z: return c->id[2];
    case SR_NCTAID_X: return g[0];
    case SR_NCTAID_Y: return g[1];
    case SR_NCTAID_Z: return g[2];
    case SR_CLUSTERID_X: case SR_CLUSTERID_Y: case SR_CLUSTERID_Z: case SR_NCLUSTERID_X:
    case SR_NCLUSTERID_Y: case SR_NCLUSTERID_Z: case SR_CLUSTER_CTAID_X:
    case SR_CLUSTER_CTAID_Y: case SR_CLUSTER_CTAID_Z: case SR_CLUSTER_NCTAID_X:
    case SR_CLUSTER_NCTAID_Y: case SR_CLUSTER_NCTAID_Z: case SR_CLUSTER_CTARANK:
    case SR_CLUSTER_NCTARANK: case SR_IS_EXPLICIT_CLUSTER:
        return cluster_sreg(c, s);
    case SR_LANEID: return l;
    case SR_WARPID: return w->id;
    case SR_NWARPID: return 64;
    case SR_SMID: return L->cfg->nsm ? c->linear % L->cfg->nsm : 0;
    case SR_NSMID: return L->cfg->nsm ? L->cfg->nsm : 1;
    case SR_GRIDID: return 1;
    case SR_ENVREG0 + 1: return (uint32_t)(L->grid_ws >> 32);
    case SR_ENVREG0 + 2: return (uint32_t)L->grid_ws;
    case SR_LANEMASK_EQ: return UINT32_C(1) << l;
    case SR_LANEMASK_LE: return (uint32_t)((UINT64_C(2) << l) - 1);
    case SR_LANEMASK_LT: return (UINT32_C(1) << l) - 1;
    case SR_LANEMASK_GE: return ~((UINT32_C(1) << l) - 1);
    case SR_LANEMASK_GT: return ~(uint32_t)((UINT64_C(2) << l) - 1);
    case SR_DYNAMIC_SMEM_SIZE: return L->l->shared_dynamic;
    case SR_TOTAL_SMEM_SIZE: case SR_AGGR_SMEM_SIZE:
        return L->k->shared_static + L->l->shared_dynamic; /* not the buffer: see launch */
    default: return 0;
    }
}

/* Does special register s differ between the lanes of a warp? (The others are filled by one
 * broadcast per warp.) */
static bool sreg_per_lane(unsigned s)
{
    switch (s) {
    case SR_TID_X: case SR_TID_Y: case SR_TID_Z: case SR_LANEID:
    case SR_LANEMASK_EQ: case SR_LANEMASK_LE: case SR_LANEMASK_LT: case SR_LANEMASK_GE:
    case SR_LANEMASK_GT:
        return true;
    default:
        return false;
    }
}

/* Fill the special-register slots and frame-dependent constants of the current frame. */
static void frame_fill(struct warp *w)
{
    const struct xfunc *fn = w->fn;
    const struct ir_func *f = fn->f;
    for (uint32_t i = 0; i < f->nsreg_slots; i++) {
        const struct ir_sreg_slot *s = &f->sreg_slots[i];
        if (!sreg_per_lane(s->sreg)) {
            frame_set_all(w, s->rf, s->slot, sreg_value(w, s->sreg, 0));
        } else if (s->sreg == SR_TID_X && s->rf == RF_B32) {
            /* tid.x = (warp * 32 + lane) % ntid.x, stepped without a division per lane */
            const uint32_t bx = w->cta->L->l->block[0];
            uint32_t t = (w->id * 32) % bx;
            union r32 *d = w->r32[s->slot];
            for (unsigned l = 0; l < 32; l++) {
                d[l].u = t;
                t = t + 1 == bx ? 0 : t + 1;
            }
        } else {
            for (unsigned l = 0; l < 32; l++)
                frame_set(w, s->rf, s->slot, l, sreg_value(w, s->sreg, l));
        }
    }
    for (uint32_t i = 0; i < fn->npatch; i++) {
        const struct slot_patch *p = &fn->patch[i];
        if (p->kind == PATCH_LOCAL)
            frame_set_all(w, p->rf, p->slot, w->sp + p->off);
    }
}

/*
 * Start warp `id` of CTA c at the kernel's entry with lanes `valid`. Reuses the warp's arena
 * and stacks from a previous CTA. 0 or -ENOMEM.
 */
int warp_init(struct warp *w, struct cta *c, uint32_t id, struct xfunc *kf, uint32_t valid)
{
    w->cta = c;
    w->id = id;
    w->valid = valid;
    w->exited = 0;
    w->clu_arr = w->clu_cur = 0;
    w->state = WS_RUN;
    w->its = kf->m->target_sm >= 70; /* independent thread scheduling (its.c) */
    w->its_depth = w->its_stall = w->its_bar_yields = 0;
    w->its_steps = 0;
    w->mbw_p = NULL;
    w->mbw_v = w->mbw_base = 0;
    w->mbw_q = w->mbw_rounds = 0;
    w->mbw_moved = false;
    for (uint32_t i = 0; i < w->nsusp; i++)
        w->susp[i].used = false;
    w->susp_used = 0;
    w->its_resumed = false;
    if (w->bw)
        memset(w->bw, 0, sizeof *w->bw);
    w->bar_red = 0;
    w->bar_far = false;
    w->mc.lo = 0;
    w->mc.span = 0;
    w->mc.flags = 0;
    w->ncalls = 0;
    w->depth = 0;
    w->ninsn = w->nthread = 0;
    w->nprintf = 0;
    w->fn = NULL;
    w->arena_used = 0;
    uint32_t off = arena_take(w, kf->frame_bytes + 32 * kf->param_frame);
    if (off == UINT32_MAX)
        return -1;
    w->fn = kf;
    w->frame_off = off;
    warp_bind(w);
    if (off == 0 && w->tmpl_serial == kf->serial) {
        for (uint32_t i = 0; i < kf->nzero; i++)
            memset(w->arena + kf->zero[i].off, 0, kf->zero[i].len);
    } else {
        memcpy(w->arena + off, kf->tmpl, kf->frame_bytes);
        w->tmpl_serial = off == 0 ? kf->serial : 0;
    }
    const struct interp_config *cfg = c->L->cfg;
    if (cfg->fill) /* --fill-uninit: registers read before written hold the pattern */
        for (uint32_t i = 0; i < kf->nzero; i++)
            interp_fill(w->arena + off + kf->zero[i].off, 0, kf->zero[i].len, cfg->fill_word);
    w->sp = 0;
    w->alloca_top = align_up(kf->local_size, 16);
    w->local = c->local_mem + (size_t)id * 32 * c->local_stride;
    /* fresh local memory reads as zero: clear what the slot's previous CTA wrote (the
     * buffer starts zeroed, every local store raises local_hwm) */
    if (w->local_hwm)
        for (unsigned l = 0; l < 32; l++)
            memset(w->local + (size_t)l * c->local_stride, 0, w->local_hwm);
    w->local_hwm = 0;
    if (cfg->fill && c->local_stride) { /* and fresh local memory (cleared again after) */
        for (unsigned l = 0; l < 32; l++)
            interp_fill(w->local + (size_t)l * c->local_stride, 0, c->local_stride,
                        cfg->fill_word);
        w->local_hwm = c->local_stride;
    }
    frame_fill(w);
    if (warp_push(w, 0, IR_NOPC, valid) != 0)
        return -1;
    return 0;
}

/* Release a warp's arena and stacks. */
void warp_free(struct warp *w)
{
    free(w->arena);
    free(w->stk);
    free(w->calls);
    for (uint32_t i = 0; i < w->nsusp; i++) {
        free(w->susp[i].ent);
        free(w->susp[i].calls);
    }
    free(w->susp);
    w->susp = NULL;
    free(w->bw);
    w->bw = NULL;
    w->nsusp = w->susp_used = 0;
    w->arena = NULL;
    w->tmpl_serial = 0;
    w->stk = NULL;
    w->calls = NULL;
    w->arena_cap = w->stk_cap = w->calls_cap = 0;
}

/* Push a SIMT entry. */
int warp_push(struct warp *w, uint32_t pc, uint32_t rpc, uint32_t mask)
{
    if (w->depth == w->stk_cap) {
        uint32_t cap = w->stk_cap ? w->stk_cap * 2 : 16;
        if (cap > WARP_MAX_DEPTH)
            return -1;
        struct simt_entry *s = realloc(w->stk, cap * sizeof *s);
        if (!s)
            return -1;
        w->stk = s;
        w->stk_cap = cap;
    }
    w->stk[w->depth++] = (struct simt_entry){pc, rpc, mask, 0};
    return 0;
}

/* ------------------------------------------------------------------ suspended activations */

/* Array p (elements of size sz, capacity *cap) grown to hold n: the array, or NULL out of
 * memory (p is then still valid). */
static void *grow(void *p, uint32_t *cap, uint32_t n, size_t sz)
{
    if (n <= *cap && p)
        return p;
    uint32_t c = *cap ? *cap : 8;
    while (c < n)
        c *= 2;
    void *q = realloc(p, c * sz);
    if (q)
        *cap = c;
    return q;
}

/* Suspend the activations of calls [keep, ncalls) (see internal.h). */
int warp_suspend(struct warp *w, uint32_t keep)
{
    uint32_t i = 0;
    while (i < w->nsusp && w->susp[i].used)
        i++;
    if (i == w->nsusp) {
        struct its_susp *n = realloc(w->susp, (w->nsusp + 1) * sizeof *n);
        if (!n)
            return -1;
        w->susp = n;
        memset(&n[w->nsusp++], 0, sizeof *n);
    }
    struct its_susp *P = &w->susp[i];
    const uint32_t b = w->calls[keep].base;
    const uint32_t ne = w->depth - b, nc = w->ncalls - keep;
    struct simt_entry *e = grow(P->ent, &P->ent_cap, ne, sizeof *e);
    if (!e)
        return -1;
    P->ent = e;
    struct call_rec *c = grow(P->calls, &P->call_cap, nc, sizeof *c);
    if (!c)
        return -1;
    P->calls = c;
    memcpy(P->ent, &w->stk[b], ne * sizeof *P->ent);
    memcpy(P->calls, &w->calls[keep], nc * sizeof *P->calls);
    for (uint32_t k = 0; k < nc; k++)
        P->calls[k].base -= b;
    P->nent = ne;
    P->ncall = nc;
    P->fn = w->fn;
    P->frame_off = w->frame_off;
    P->sp = w->sp;
    P->alloca_top = w->alloca_top;
    P->arena_end = w->arena_used;
    P->bar_lanes = 0;
    P->borrow = 0;
    P->used = true;
    w->susp_used++;
    /* back in the calling activation, as if the call had returned (its frames stay) */
    const struct call_rec *r = &w->calls[keep];
    w->fn = r->caller;
    w->frame_off = r->frame_off;
    warp_bind(w);
    w->sp = r->sp;
    w->alloca_top = r->alloca_top;
    w->depth = b;
    w->ncalls = keep;
    w->stk[b - 1].susp = i + 1;
    return 0;
}

/* The top entry made calls that were suspended: put them back on top. 0, or -1 when the
 * stacks cannot grow. */
static int resume(struct warp *w)
{
    struct its_susp *P = &w->susp[w->stk[w->depth - 1].susp - 1];
    const uint32_t b = w->depth;
    if (b + P->nent > WARP_MAX_DEPTH)
        return -1;
    struct simt_entry *s = grow(w->stk, &w->stk_cap, b + P->nent, sizeof *s);
    if (!s)
        return -1;
    w->stk = s;
    struct call_rec *c = grow(w->calls, &w->calls_cap, w->ncalls + P->ncall, sizeof *c);
    if (!c)
        return -1;
    w->calls = c;
    w->stk[b - 1].susp = 0;
    memcpy(&w->stk[b], P->ent, P->nent * sizeof *P->ent);
    for (uint32_t k = 0; k < P->ncall; k++) {
        w->calls[w->ncalls + k] = P->calls[k];
        w->calls[w->ncalls + k].base += b;
    }
    w->depth += P->nent;
    w->ncalls += P->ncall;
    w->fn = P->fn;
    w->frame_off = P->frame_off;
    warp_bind(w);
    w->sp = P->sp;
    w->alloca_top = P->alloca_top;
    P->used = false;
    w->susp_used--;
    w->its_resumed = true;
    return 0;
}

/* Copy the callee's return parameters back and restore the caller's frame. */
static void finish_call(struct warp *w)
{
    struct call_rec *r = &w->calls[--w->ncalls];
    const struct xfunc *callee = w->fn;
    const struct interp_program *p = w->cta->L->k->prog;
    const uint32_t *poff = p->mods[callee->mod_index].param_off;
    const struct ir_func *cf = callee->f;
    const uint8_t *cparams = w->params;
    const uint32_t cpf = callee->param_frame;
    const uint32_t lanes = r->mask & ~w->exited;

    reg_params_move(w, callee, cf->ret, cf->nret, lanes, false);
    w->fn = r->caller;
    w->frame_off = r->frame_off;
    warp_bind(w);
    w->arena_used = r->arena_mark;
    /* frames of suspended activations (its.c) stay where they are */
    for (uint32_t i = 0; w->susp_used && i < w->nsusp; i++)
        if (w->susp[i].used && w->susp[i].arena_end > w->arena_used)
            w->arena_used = w->susp[i].arena_end;
    w->sp = r->sp;
    w->alloca_top = r->alloca_top;

    unsigned nret = r->nrets < cf->nret ? r->nrets : cf->nret;
    for (unsigned k = 0; k < nret; k++) {
        const struct ir_sym *s = &callee->m->syms[cf->ret + k];
        uint32_t src = poff[cf->ret + k];
        const struct ir_opnd *e = &r->rets[k];
        uint32_t size = (uint32_t)s->size;
        for (unsigned l = 0; l < 32; l++) {
            if (!(lanes >> l & 1))
                continue;
            const uint8_t *sp = cparams + (size_t)l * cpf + src;
            if (e->kind == OPK_REG) {
                uint64_t v = 0;
                memcpy(&v, sp, size < 8 ? size : 8);
                frame_set(w, e->rf, e->slot, l, v);
            } else if (e->first + size <= w->fn->param_frame) {
                memcpy(w->params + (size_t)l * w->fn->param_frame + e->first, sp, size);
            }
        }
    }
}

/* Pop reconverged and empty entries; finish calls whose entries are gone; finish the warp
 * when nothing is left. */
static void settle(struct warp *w)
{
    while (w->depth > 0) {
        struct simt_entry *t = &w->stk[w->depth - 1];
        if (t->susp) {
            const uint32_t pc = t->pc, lane = (uint32_t)__builtin_ctz(t->mask | 1u << 31);
            if (resume(w) != 0) {
                interp_fault(w, pc, lane, TRAP_STACK, 0, 0, 0, false, "SIMT stack overflow");
                w->state = WS_TRAP;
                return;
            }
            continue;
        }
        if (t->mask != 0 && t->pc != t->rpc)
            break;
        w->depth--;
        if (w->ncalls > 0 && w->depth == w->calls[w->ncalls - 1].base)
            finish_call(w);
    }
    if (w->depth == 0)
        w->state = WS_DONE;
}

/* The top entry's pc reached its reconvergence point (or the entry is empty). */
void warp_reconverge(struct warp *w)
{
    settle(w);
}

/* Divergent branch (see the file comment). */
void warp_branch(struct warp *w, uint32_t pc, uint32_t taken, uint32_t target, uint32_t reconv)
{
    struct simt_entry *t = &w->stk[w->depth - 1];
    const uint32_t A = t->mask, T = taken & A, NT = A & ~taken;
    if (NT == 0) {
        t->pc = target;
        settle(w);
        return;
    }
    if (T == 0) {
        t->pc = pc + 1;
        settle(w);
        return;
    }
    if (t->rpc == reconv) {
        t->pc = pc + 1;
        t->mask = NT;
    } else {
        t->pc = reconv;
        if (warp_push(w, pc + 1, reconv, NT) != 0)
            goto overflow;
    }
    if (warp_push(w, target, reconv, T) != 0)
        goto overflow;
    settle(w);
    return;
overflow:
    interp_fault(w, pc, (unsigned)__builtin_ctz(A), TRAP_STACK, 0, 0, 0, false,
                 "SIMT stack overflow");
    w->state = WS_TRAP;
}

/* Multi-way branch: one entry per distinct target. */
void warp_branch_multi(struct warp *w, uint32_t pc, uint32_t M, const uint32_t *targets,
                       uint32_t reconv)
{
    struct simt_entry *t = &w->stk[w->depth - 1];
    const uint32_t A = t->mask;
    uint32_t left = M;
    if (t->rpc == reconv) {
        /* the remaining lanes (not in M: guard false) fall through */
        t->pc = pc + 1;
        t->mask = A & ~M;
    } else {
        t->pc = reconv;
        if ((A & ~M) && warp_push(w, pc + 1, reconv, A & ~M) != 0)
            goto overflow;
    }
    while (left) {
        unsigned l0 = (unsigned)__builtin_ctz(left);
        uint32_t g = 0;
        for (unsigned l = l0; l < 32; l++)
            if ((left >> l & 1) && targets[l] == targets[l0])
                g |= 1u << l;
        left &= ~g;
        if (warp_push(w, targets[l0], reconv, g) != 0)
            goto overflow;
    }
    settle(w);
    return;
overflow:
    interp_fault(w, pc, (unsigned)__builtin_ctz(A), TRAP_STACK, 0, 0, 0, false,
                 "SIMT stack overflow");
    w->state = WS_TRAP;
}

/* exit: lanes end for good (removed from every entry, every call level). */
void warp_exit(struct warp *w, uint32_t lanes)
{
    uint32_t fresh = lanes & ~w->exited;
    w->exited |= lanes;
    w->cta->live_threads -= (uint32_t)__builtin_popcount(fresh);
    cta_lanes_exited(w, fresh);
    for (uint32_t i = 0; i < w->depth; i++)
        w->stk[i].mask &= ~lanes;
    settle(w);
}

/* ret: lanes leave the current activation. */
void warp_ret(struct warp *w, uint32_t lanes)
{
    if (w->ncalls == 0) {
        warp_exit(w, lanes);
        return;
    }
    for (uint32_t i = w->calls[w->ncalls - 1].base; i < w->depth; i++)
        w->stk[i].mask &= ~lanes;
    const uint32_t ncalls = w->ncalls;
    settle(w);
    /* independent thread scheduling: a yield due while the warp was in the call (its.c) */
    if ((w->its_stall & ITS_PENDING) && w->ncalls < ncalls && w->state == WS_RUN &&
        its_yield(w))
        w->its_stall = 0;
}

/* call: see the file comment. */
int warp_call(struct warp *w, uint32_t M, struct xfunc *callee, const struct call_ops *co)
{
    if (w->ncalls >= WARP_MAX_CALLS)
        return TRAP_STACK;
    uint32_t sp = align_up(w->alloca_top, 16);
    const uint32_t frame = callee->local_size > WARP_CALL_FRAME ? callee->local_size
                                                                : WARP_CALL_FRAME;
    if ((uint64_t)sp + frame > w->cta->local_stride)
        return TRAP_STACK;
    if (w->ncalls == w->calls_cap) {
        uint32_t cap = w->calls_cap ? w->calls_cap * 2 : 8;
        struct call_rec *c = realloc(w->calls, cap * sizeof *c);
        if (!c)
            return TRAP_STACK;
        w->calls = c;
        w->calls_cap = cap;
    }
    uint32_t mark = w->arena_used;
    uint32_t off = arena_take(w, callee->frame_bytes + 32 * callee->param_frame);
    if (off == UINT32_MAX)
        return TRAP_STACK;

    /* arguments: caller's .param (or registers) -> callee's parameter frame */
    const struct interp_program *p = w->cta->L->k->prog;
    const uint32_t *poff = p->mods[callee->mod_index].param_off;
    const struct ir_func *cf = callee->f;
    uint8_t *cparams = w->arena + off + callee->frame_bytes;
    const uint32_t cpf = callee->param_frame;
    memcpy(w->arena + off, callee->tmpl, callee->frame_bytes);
    unsigned nargs = co->nargs < cf->nparam ? co->nargs : cf->nparam;
    for (unsigned k = 0; k < nargs; k++) {
        const struct ir_sym *s = &callee->m->syms[cf->param + k];
        uint32_t dst = poff[cf->param + k], size = (uint32_t)s->size;
        const struct ir_opnd *e = &co->args[k];
        for (unsigned l = 0; l < 32; l++) {
            if (!(M >> l & 1))
                continue;
            uint8_t *dp = cparams + (size_t)l * cpf + dst;
            if (e->kind == OPK_REG || e->kind == OPK_IMM) {
                uint64_t v;
                switch (e->rf) {
                case RF_PRED: v = w->pred[e->slot] >> l & 1; break;
                case RF_B16: v = w->r16[e->slot][l].u; break;
                case RF_B32: v = w->r32[e->slot][l].u; break;
                default: v = w->r64[e->slot][l].u; break;
                }
                memcpy(dp, &v, size < 8 ? size : 8);
            } else if (e->first + size <= w->fn->param_frame) {
                memcpy(dp, w->params + (size_t)l * w->fn->param_frame + e->first, size);
            }
        }
    }

    struct call_rec *r = &w->calls[w->ncalls++];
    r->caller = w->fn;
    r->frame_off = w->frame_off;
    r->base = w->depth;
    r->sp = w->sp;
    r->alloca_top = w->alloca_top;
    r->arena_mark = mark;
    r->mask = M;
    r->rets = co->rets;
    r->nrets = co->nrets;

    w->fn = callee;
    w->frame_off = off;
    warp_bind(w);
    w->sp = sp;
    w->alloca_top = align_up(sp + frame, 16);
    frame_fill(w);
    const struct interp_config *cfg = w->cta->L->cfg;
    if (cfg->fill) /* --fill-uninit: the callee's registers read before written too (its .reg
                    * parameters are then moved in over it) */
        for (uint32_t i = 0; i < callee->nzero; i++)
            interp_fill(w->arena + off + callee->zero[i].off, 0, callee->zero[i].len,
                        cfg->fill_word);
    reg_params_move(w, callee, cf->param, cf->nparam, M, true);
    if (warp_push(w, 0, IR_NOPC, M) != 0)
        return TRAP_STACK;
    return 0;
}
