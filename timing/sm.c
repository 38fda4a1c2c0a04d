/*
 * timing/sm.c — one streaming multiprocessor, cycle by cycle, after GPGPU-Sim's shader core
 * with the Volta+ sub-core organisation:
 *
 *   fetch/decode   an instruction buffer of TM_IBUF entries per warp, filled from the L1
 *                  instruction cache (perfect, or tags with misses sent to memory)
 *   issue          per scheduler one warp per cycle (lrr, gto, old, rrr, two_level_active);
 *                  the scoreboard holds each in-flight instruction's destination registers;
 *                  the engine executes the instruction now (engine_step), so values are the
 *                  functional engine's and the branch outcome / addresses are known
 *   read operands  collector units; register banks serve -gpgpu_reg_file_port_throughput reads
 *                  each per cycle; conflicts delay the instruction
 *   execute        SP / DP / INT / SFU / TENSOR units with latency and initiation interval
 *                  per opcode class (config.c: oplat); the LD/ST unit with shared-memory bank
 *                  conflicts, constant-cache serialisation, and line requests to memory
 *   writeback      -gpgpu_pipeline_widths EX_WB results per cycle release the scoreboard
 *
 * Latency semantics: an instruction of latency L issued at cycle t makes its result available
 * to a dependent instruction issuing at cycle t + L, unless a structural hazard (busy unit,
 * bank conflict, full pipeline register, writeback ports) delayed it — so a dependent chain
 * measured with clock64() shows exactly the configured latency.
 *
 * Everything here writes only the SM's own state (see tm_int.h).
 */
#include "timing/sm_int.h"
#include "timing/sample.h"

#include "timing/cache.h"
#include "timing/expand.h"
#include "interp/mem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ====================================================================== small containers */

int tm_queue_init(struct tm_queue *q, uint32_t cap)
{
    q->buf = calloc(cap, sizeof *q->buf);
    q->cap = cap;
    q->head = q->n = 0;
    return q->buf ? 0 : -ENOMEM;
}

void tm_queue_free(struct tm_queue *q)
{
    free(q->buf);
    q->buf = NULL;
}

static int pr_init(struct tm_pipereg *p, uint32_t parts, uint32_t cap)
{
    p->cap = cap ? cap : 1;
    p->slot = calloc((size_t)parts * p->cap, sizeof *p->slot);
    p->n = calloc(parts, sizeof *p->n);
    return p->slot && p->n ? 0 : -ENOMEM;
}

static void pr_free(struct tm_pipereg *p)
{
    free(p->slot);
    free(p->n);
}





/* Completion heap ordered by (t, seq). */
int tm_sm_heap_push(struct tm_sm *s, uint64_t t, uint32_t inst)
{
    if (s->heap_n == s->heap_cap) {
        uint32_t nc = s->heap_cap ? s->heap_cap * 2 : 64;
        struct tm_heap_ent *h = realloc(s->heap, nc * sizeof *h);
        if (!h)
            return -ENOMEM;
        s->heap = h;
        s->heap_cap = nc;
    }
    struct tm_heap_ent e = {t, inst, s->heap_seq++};
    uint32_t i = s->heap_n++;
    while (i) {
        uint32_t p = (i - 1) / 2;
        struct tm_heap_ent *hp = &s->heap[p];
        if (hp->t < e.t || (hp->t == e.t && hp->seq < e.seq))
            break;
        s->heap[i] = *hp;
        i = p;
    }
    s->heap[i] = e;
    return 0;
}

static void heap_pop(struct tm_sm *s)
{
    struct tm_heap_ent e = s->heap[--s->heap_n];
    uint32_t i = 0, n = s->heap_n;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && (s->heap[c + 1].t < s->heap[c].t ||
                          (s->heap[c + 1].t == s->heap[c].t && s->heap[c + 1].seq < s->heap[c].seq)))
            c++;
        if (e.t < s->heap[c].t || (e.t == s->heap[c].t && e.seq < s->heap[c].seq))
            break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (n)
        s->heap[i] = e;
}

/* Instruction and memop pools: index-based free lists, grown by doubling (allocation only
 * while the SM warms up). */
static uint32_t inst_alloc(struct tm_sm *s)
{
    if (s->inst_free == TM_NONE) {
        uint32_t nc = s->inst_cap ? s->inst_cap * 2 : 256;
        struct tm_inst *p = realloc(s->inst, nc * sizeof *p);
        if (!p)
            return TM_NONE;
        for (uint32_t i = s->inst_cap; i < nc; i++)
            p[i].next = i + 1 < nc ? i + 1 : TM_NONE;
        s->inst = p;
        s->inst_free = s->inst_cap;
        s->inst_cap = nc;
    }
    uint32_t i = s->inst_free;
    s->inst_free = s->inst[i].next;
    return i;
}

static void inst_release(struct tm_sm *s, uint32_t i)
{
    struct tm_inst *in = &s->inst[i];
    if (in->memop != TM_NONE) {
        s->mop[in->memop].next = s->mop_free;
        s->mop_free = in->memop;
    }
    in->next = s->inst_free;
    s->inst_free = i;
}

static uint32_t mop_alloc(struct tm_sm *s)
{
    if (s->mop_free == TM_NONE) {
        uint32_t nc = s->mop_cap ? s->mop_cap * 2 : 32;
        struct tm_memop *p = realloc(s->mop, nc * sizeof *p);
        if (!p)
            return TM_NONE;
        for (uint32_t i = s->mop_cap; i < nc; i++) {
            p[i].next = i + 1 < nc ? i + 1 : TM_NONE;
            p[i].rng = NULL;
            p[i].rng_cap = 0;
        }
        s->mop = p;
        s->mop_free = s->mop_cap;
        s->mop_cap = nc;
    }
    uint32_t i = s->mop_free;
    s->mop_free = s->mop[i].next;
    return i;
}

/* ====================================================================== set-up */


int tm_sm_init(struct tm_sm *s, uint32_t id, const struct tm_config *cfg)
{
    memset(s, 0, sizeof *s);
    s->id = id;
    s->cfg = cfg;
    s->nsched = (uint32_t)cfg->o.gpgpu_num_sched_per_core;
    s->nparts = cfg->o.gpgpu_sub_core_model ? s->nsched : 1;
    s->ncta_slots = (uint32_t)cfg->o.gpgpu_shader_cta;
    s->nwarp_slots = cfg->max_warps_per_sm;
    s->inst_free = s->mop_free = TM_NONE;
    s->ldst_cur = TM_NONE;
    s->resume_k = TM_NONE;
    s->cta = calloc(s->ncta_slots, sizeof *s->cta);
    s->w = calloc(s->nwarp_slots, sizeof *s->w);
    s->last_issued = malloc(s->nsched * sizeof *s->last_issued);
    s->rr_start = calloc(s->nsched, sizeof *s->rr_start);
    s->occ_ok = s->nwarp_slots <= 64;
    s->occ = calloc(s->nsched ? s->nsched : 1, sizeof *s->occ);
    s->wc = calloc((size_t)(s->nsched ? s->nsched : 1) * TM_WCLS, sizeof *s->wc);
    s->wc_dirty = calloc(s->nsched ? s->nsched : 1, sizeof *s->wc_dirty);
    if (!s->occ || !s->wc || !s->wc_dirty)
        goto nomem;
    s->order = calloc(s->nsched, sizeof *s->order);
    s->norder = calloc(s->nsched, sizeof *s->norder);
    if (!s->cta || !s->w || !s->last_issued || !s->rr_start || !s->order || !s->norder)
        goto nomem;
    for (uint32_t i = 0; i < s->nsched; i++) {
        s->last_issued[i] = TM_NONE;
        s->order[i] = malloc(s->nwarp_slots * sizeof **s->order);
        if (!s->order[i])
            goto nomem;
    }
    if (cfg->sched == TM_SCHED_TWO_LEVEL) {
        s->active_pool = malloc((size_t)s->nsched * cfg->two_level_active * sizeof *s->active_pool);
        if (!s->active_pool)
            goto nomem;
        for (uint32_t i = 0; i < s->nsched * cfg->two_level_active; i++)
            s->active_pool[i] = TM_NONE;
    }
    for (uint32_t i = 0; i < s->nwarp_slots; i++)
        s->w[i].part = (uint8_t)(i % s->nsched);

    /* pipeline registers: ID_OC/OC_EX widths, split among sub-cores */
    static const enum tm_pipe idoc[TM_FU_SPEC] = {TM_ID_OC_SP, TM_ID_OC_DP, TM_ID_OC_INT,
                                                  TM_ID_OC_SFU, TM_ID_OC_TENSOR, TM_ID_OC_MEM};
    static const enum tm_pipe ocex[TM_FU_SPEC] = {TM_OC_EX_SP, TM_OC_EX_DP, TM_OC_EX_INT,
                                                  TM_OC_EX_SFU, TM_OC_EX_TENSOR, TM_OC_EX_MEM};
    for (int f = 0; f < TM_FU__COUNT; f++) {
        /* (specialised units: their ID_OC_SPEC / OC_EX_SPEC widths; 0 when disabled) */
        uint32_t wi = f < TM_FU_SPEC ? cfg->pipe_width[idoc[f]] : cfg->spec_idoc[f - TM_FU_SPEC];
        uint32_t wo = f < TM_FU_SPEC ? cfg->pipe_width[ocex[f]] : cfg->spec_ocex[f - TM_FU_SPEC];
        if (f == TM_FU_TENSOR && !wi) /* configs without tensor pipeline registers */
            wi = wo = cfg->pipe_width[TM_ID_OC_SP];
        uint32_t pi = s->nparts > 1 ? (wi + s->nparts - 1) / s->nparts : wi;
        /* the LD/ST unit is shared by the sub-cores: one OC_EX_MEM register set */
        uint32_t po = f == TM_FU_MEM ? wo : (s->nparts > 1 ? (wo + s->nparts - 1) / s->nparts : wo);
        if (pr_init(&s->id_oc[f], s->nparts, pi) ||
            pr_init(&s->oc_ex[f], f == TM_FU_MEM ? 1 : s->nparts, po))
            goto nomem;
    }
    uint32_t coll = (uint32_t)cfg->o.gpgpu_operand_collector_num_units_gen;
    if (!coll && !cfg->spec_oc)
        coll = 1;
    s->ngen = s->ncoll = (coll + s->nparts - 1) / s->nparts;
    for (int f = 0; f < TM_FU__COUNT; f++) { /* specialised sets, split among sub-cores */
        s->cs_base[f] = s->ncoll;
        s->cs_n[f] = (cfg->oc_units[f] + s->nparts - 1) / s->nparts;
        s->ncoll += s->cs_n[f];
    }
    s->coll = malloc((size_t)s->nparts * (s->ncoll ? s->ncoll : 1) * sizeof *s->coll);
    s->nbanks = (uint32_t)cfg->o.gpgpu_num_reg_banks / s->nparts;
    if (!s->nbanks)
        s->nbanks = 1;
    s->bank_used = calloc((size_t)s->nparts * s->nbanks, sizeof *s->bank_used);
    if (!s->coll || !s->bank_used)
        goto nomem;
    for (uint32_t i = 0; i < s->nparts * s->ncoll; i++)
        s->coll[i] = TM_NONE;

    s->nfu = TM_FU_SPEC;
    for (int f = TM_FU_SPEC; f < TM_FU__COUNT; f++)
        if (cfg->n_units[f])
            s->nfu = (uint32_t)f + 1;
    /* units: unit j of a kind belongs to sub-core j mod parts (the LD/ST unit is apart) */
    for (int f = 0; f < TM_FU__COUNT; f++)
        if (f != TM_FU_MEM)
            s->nunit += cfg->n_units[f];
    s->unit = calloc(s->nunit ? s->nunit : 1, sizeof *s->unit);
    if (!s->unit)
        goto nomem;
    uint32_t u = 0;
    for (int f = 0; f < TM_FU__COUNT; f++)
        for (uint32_t j = 0; f != TM_FU_MEM && j < cfg->n_units[f]; j++, u++) {
            s->unit[u].fu = (uint8_t)f;
            s->unit[u].part = (uint8_t)(j % s->nparts);
        }

    if (!cfg->o.gpgpu_perfect_inst_const_cache && cfg->il1.present &&
        tm_cache_create(&s->l1i, &cfg->il1, "L1I") == -ENOMEM)
        goto nomem;
    /* (relaxed and lookahead modes with a memory system: the network takes a request two
     * quanta after it was sent, so the room holds two quanta's worth more, counted over
     * to_mem and the memory system's side, to_net: about the exact mode's room of 64) */
    const uint32_t req_cap = 64 + (cfg->relax_ovl ? 2 * cfg->relax_q : cfg->relax_q);
    if (tm_queue_init(&s->to_mem, req_cap) || tm_queue_init(&s->from_mem, 4096) ||
        tm_queue_init(&s->l1_hit, 256))
        goto nomem;
    if (cfg->relax_ovl &&
        (tm_queue_init(&s->to_net, req_cap) || tm_queue_init(&s->net_rep, 4096)))
        goto nomem;
    if (tm_sm_l1d_make(s, 0, false) == -ENOMEM)
        goto nomem;
    return 0;
nomem:
    tm_sm_free(s);
    return -ENOMEM;
}

void tm_sm_free(struct tm_sm *s)
{
    tm_sm_abort(s);
    free(s->cta);
    free(s->w);
    free(s->last_issued);
    free(s->rr_start);
    if (s->order)
        for (uint32_t i = 0; i < s->nsched; i++)
            free(s->order[i]);
    free(s->order);
    free(s->norder);
    free(s->occ);
    free(s->wc);
    free(s->wc_dirty);
    free(s->active_pool);
    for (int f = 0; f < TM_FU__COUNT; f++) {
        pr_free(&s->id_oc[f]);
        pr_free(&s->oc_ex[f]);
    }
    free(s->coll);
    free(s->bank_used);
    free(s->unit);
    free(s->inst);
    for (uint32_t i = 0; i < s->mop_cap; i++)
        free(s->mop[i].rng);
    free(s->mop);
    free(s->tma_q);
    free(s->heap);
    tm_cache_destroy(s->l1i);
    tm_queue_free(&s->to_mem);
    tm_queue_free(&s->from_mem);
    tm_queue_free(&s->to_net);
    tm_queue_free(&s->net_rep);
    tm_sm_l1_free(s);
    memset(s, 0, sizeof *s);
}

/* ====================================================================== helpers */

/* The execution unit of an ir_unit other than U_MEM: control instructions go to a
 * specialised unit named BRA, tensor-core ones to one named TENSOR, when the configuration
 * has them. */
static uint8_t fu_of_unit(const struct tm_config *cfg, unsigned unit)
{
    if (unit == U_CTRL && cfg->spec_bra >= 0)
        return (uint8_t)cfg->spec_bra;
    if (unit == U_TENSOR && cfg->spec_tensor >= 0)
        return (uint8_t)cfg->spec_tensor;
    switch (unit) {
    case U_SP:
        return TM_FU_SP;
    case U_DP:
        return cfg->n_units[TM_FU_DP] ? TM_FU_DP : TM_FU_SP;
    case U_SFU:
        return TM_FU_SFU;
    case U_TENSOR:
        return cfg->n_units[TM_FU_TENSOR] ? TM_FU_TENSOR : TM_FU_SP;
    default:
        return cfg->n_units[TM_FU_INT] ? TM_FU_INT : TM_FU_SP;
    }
}

/* The execution unit an instruction goes to. */
static uint8_t fu_of(const struct tm_config *cfg, const struct ir_insn *in)
{
    if (!in) /* the implicit return at the end of a body */
        return fu_of_unit(cfg, U_CTRL);
    switch (in->unit) {
    case U_MEM:
        /* parameter reads are constant-bank operands in machine code; with an L1C
         * (-gpgpu_perfect_inst_const_cache 0) they are its accesses, as GPGPU-Sim's
         * param_space_kernel loads */
        if ((in->space == SP_PARAM || in->space == SP_PARAM_ENTRY) &&
            (cfg->o.gpgpu_perfect_inst_const_cache || cfg->o.gpgpu_perfect_mem ||
             !cfg->l1c.present))
            return cfg->n_units[TM_FU_INT] ? TM_FU_INT : TM_FU_SP;
        return TM_FU_MEM;
    default:
        return fu_of_unit(cfg, in->unit);
    }
}

static inline uint32_t sb_key(uint32_t rf, uint32_t slot) { return rf << 24 | slot; }

static bool sb_has(const struct tm_warp *w, uint32_t key)
{
    for (uint32_t i = 0; i < w->nsb; i++)
        if (w->sb[i] == key)
            return true;
    return false;
}

static void sb_release(struct tm_warp *w, uint32_t key)
{
    for (uint32_t i = 0; i < w->nsb; i++)
        if (w->sb[i] == key) {
            w->sbc = 0;
            w->sb[i] = w->sb[--w->nsb];
            return;
        }
}

static const struct ir_insn *ib_insn(const struct tm_warp *w, uint32_t k)
{
    const struct ir_func *f = w->ib[k].f;
    return w->ib[k].pc < f->ninsns ? &f->insns[w->ib[k].pc] : NULL;
}

/* Would the instruction at the head of w's buffer read or write a reserved register? */
static bool sb_blocked(const struct tm_warp *w, const struct ir_func *f, const struct ir_insn *in)
{
    if (!in || !w->nsb)
        return false;
    uint32_t n;
    const struct ir_regref *rr = ir_insn_regs(f, in, &n);
    uint32_t ndst = 0;
    for (uint32_t i = 0; i < n; i++) {
        for (uint32_t j = 0; j < rr[i].n; j++)
            if (sb_has(w, sb_key(rr[i].rf, rr[i].slot + j)))
                return true;
        if (rr[i].dst)
            ndst += rr[i].n;
    }
    return w->nsb + ndst > TM_SB_MAX;
}

/* Scoreboard key of machine instruction k of an expanded PTX instruction (expand.h): a
 * register file of its own. */
#define RF_UOP 0xffu
static inline uint32_t uop_key(uint32_t k) { return sb_key(RF_UOP, k); }

/* The sequence the instruction at the head of w's buffer expands into, or NULL. */
static inline const struct tm_useq *head_seq(const struct tm_sm *s, const struct tm_warp *w)
{
    return s->cfg->expand ? tm_useq_of(ib_insn(w, 0)) : NULL;
}

/* Is the head of w's buffer blocked by the scoreboard? *fu: its unit. When it expands, this is
 * about its next machine instruction: the first waits for the PTX instruction's registers (as
 * an instruction that does not expand), the others for the results of the sequence's
 * instructions they read and for their own key (WAW). */
static inline bool head_blocked(const struct tm_sm *s, const struct tm_warp *w, uint8_t *fu)
{
    const struct ir_insn *in = ib_insn(w, 0);
    const struct tm_useq *q = head_seq(s, w);
    if (!q) {
        *fu = fu_of(s->cfg, in);
        return sb_blocked(w, w->ib[0].f, in);
    }
    const struct tm_uop *u = &q->op[w->uk];
    *fu = fu_of_unit(s->cfg, u->unit);
    if (w->uk == 0 && sb_blocked(w, w->ib[0].f, in))
        return true;
    for (int i = 0; i < 2; i++)
        if (u->dep[i] >= 0 && sb_has(w, uop_key((uint32_t)u->dep[i])))
            return true;
    return sb_has(w, uop_key(w->uk)) || w->nsb + 1 + TM_MAX_DST > TM_SB_MAX;
}

/* head_blocked into w's cache (sbc, fu0). */
static void head_cache(const struct tm_sm *s, struct tm_warp *w)
{
    uint8_t fu;
    w->sbc = head_blocked(s, w, &fu) ? 2 : 1;
    w->fu0 = fu;
}

/* Re-read the state of warps parked at a barrier of c after the engine released one. */
static void requery_barrier(struct tm_sm *s, struct tm_cta *c)
{
    for (uint32_t i = 0; i < c->nwarps && c->ec; i++) {
        struct tm_warp *w = &s->w[c->warp0 + i];
        if (w->cta != c || !w->at_bar)
            continue;
        struct engine_warp_info info;
        if (engine_warp_query(c->ec, w->ew, &info) || info.status == ENGINE_WARP_BARRIER)
            continue;
        w->at_bar = false;
        wc_mark(s, c->warp0 + i);
        if (info.status == ENGINE_WARP_EXITED || info.status == ENGINE_WARP_FAULTED) {
            w->done = true;
            w->nib = 0;
            ibe_mark(s, w);
            tm_sm_warp_try_finish(s, w);
            continue;
        }
        if (info.func != w->func || info.pc != w->pc) {
            w->func = info.func;
            w->pc = info.pc;
            w->nib = 0;
            ibe_mark(s, w);
        }
    }
}

/* Release barriers of c that completed (the last arrival may have released one inside its
 * step, exits release them here); -1 on a deadlock (the launch's fault). */
static int cta_release(struct tm_sm *s, struct tm_cta *c)
{
    int n = engine_cta_release(c->ec);
    if (n < 0)
        return -1;
    if (n > 0 && c->k->csize > 1)
        c->k->clu_epoch++; /* the release may have freed warps of the cluster's other CTAs */
    requery_barrier(s, c);
    return 0;
}

/* ====================================================================== issue */

enum stall { ST_NONE, ST_IDLE, ST_IBUF, ST_BAR, ST_MEMBAR, ST_SB, ST_PIPE };

/* Latency and initiation interval of one machine instruction of a sequence, on unit fu. */
static inline struct tm_oplat uop_lat(const struct tm_config *cfg, const struct tm_uop *u,
                                      uint8_t fu)
{
    if (fu >= TM_FU_SPEC) /* a specialised unit: -trace_opcode_latency_initiation_spec_op_N */
        return cfg->spec_lat[fu - TM_FU_SPEC];
    return u->kind == TM_UOP_MUFU ? cfg->mufu : cfg->oplat[u->unit][u->lat];
}

/* The registers of instruction x (of function f) into in, issued by warp slot ws: with srcs its
 * source registers as reads from their banks, with dsts its destinations reserved in the
 * scoreboard. */
static inline void inst_regs(struct tm_sm *s, struct tm_warp *w, uint32_t ws, struct tm_inst *in,
                             const struct ir_func *f, const struct ir_insn *x, bool srcs,
                             bool dsts)
{
    uint32_t n;
    const struct ir_regref *rr = ir_insn_regs(f, x, &n);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < rr[i].n; j++) {
            uint32_t slot = rr[i].slot + j;
            if (rr[i].dst) {
                if (dsts && in->ndst < TM_MAX_DST && w->nsb < TM_SB_MAX) {
                    uint32_t key = sb_key(rr[i].rf, slot);
                    in->dst[in->ndst++] = key;
                    w->sb[w->nsb++] = key;
                }
            } else if (srcs && rr[i].rf != RF_PRED && in->nsrc < TM_MAX_SRC) {
                in->src_bank[in->nsrc] = (uint16_t)((slot + ws) % s->nbanks);
                in->src_left |= 1u << in->nsrc;
                in->nsrc++;
            }
        }
}

/* In-flight instruction ii, issued now by warp slot ws to unit fu: its common fields set
 * (no memory operation, registers, operands or responses yet). */
static struct tm_inst *inst_begin(struct tm_sm *s, uint32_t ii, uint32_t ws, uint8_t fu)
{
    struct tm_inst *in = &s->inst[ii];
    in->warp = ws;
    in->memop = TM_NONE;
    in->fu = fu;
    in->part = s->w[ws].part % s->nparts;
    in->ndst = in->nsrc = 0;
    in->src_left = 0;
    in->resp_left = 0;
    in->ca_ord = 0;
    in->tc5 = 0;
    in->tc_work = 0;
    in->t_issue = s->cycle;
    in->t_ready = 0;
    return in;
}

/* Issue machine instruction w->uk (not the last) of the expanded instruction at the head of
 * w's buffer (expand.h): through the collectors and unit fu like any instruction, without
 * stepping the engine. Its scoreboard key carries its result to the sequence's later
 * instructions; the first reads the PTX sources, the result instruction reserves the PTX
 * destinations. 1, or -1 when out of memory. */
static int issue_uop(struct tm_sm *s, uint32_t ws, uint8_t fu, const struct tm_useq *q)
{
    struct tm_warp *w = &s->w[ws];
    uint32_t ii = inst_alloc(s);
    if (ii == TM_NONE)
        return -1;
    struct tm_inst *in = inst_begin(s, ii, ws, fu);
    const struct tm_uop *u = &q->op[w->uk];
    in->prow = NULL;
    in->lat = uop_lat(s->cfg, u, fu);
    in->dst[in->ndst++] = uop_key(w->uk);
    w->sb[w->nsb++] = uop_key(w->uk);
    if (w->uk == 0 || w->uk == q->result)
        inst_regs(s, w, ws, in, w->ib[0].f, ib_insn(w, 0), w->uk == 0, w->uk == q->result);
    w->uk++;
    w->sbc = 0;
    w->inflight++;
    pr_push(&s->id_oc[fu], in->part, ii);
    s->idoc_n[in->part]++;
    s->st[TM_ST_UOP_ISSUE]++;
    return 1;
}

/* ---------------------------------------------------------------- asynchronous copies */

/* Ordinal a is before b (ordinals wrap at 2^32). */
static inline bool ca_before(uint32_t a, uint32_t b) { return (int32_t)(a - b) < 0; }

static inline bool ca_in_flight(const struct tm_warp *w, unsigned k, uint32_t o)
{
    return w->ca_out[k][(o % TM_CA_WIN) / 64] >> (o % 64) & 1;
}

/* Is warp w (at_async) still waiting? On its groups (ca_mbar == TM_NONE): until every copy
 * of kind ca_wk of an ordinal below ca_need has completed. On an mbarrier (a test_wait /
 * try_wait whose phase a cp.async.mbarrier.arrive or a bulk copy's complete_tx completes):
 * while a warp of its CTA has an arrival on that mbarrier whose copies have not all
 * completed. */
static bool async_blocked(const struct tm_sm *s, const struct tm_warp *w)
{
    if (w->ca_mbar == TM_NONE)
        return ca_before(w->ca_lo[w->ca_wk], w->ca_need);
    const struct tm_cta *c = w->cta;
    if (!c)
        return false;
    for (uint32_t i = 0; i < c->nwarps; i++) {
        const struct tm_warp *v = &s->w[c->warp0 + i];
        for (uint32_t k = 0; k < v->ca_narr; k++)
            if (v->ca_arr[k].addr == w->ca_mbar &&
                ca_before(v->ca_lo[v->ca_arr[k].kind], v->ca_arr[k].need))
                return true;
    }
    return false;
}

/* Copy `ord` of kind k of warp w has completed (its last request returned): the window
 * moves on, the arrivals it satisfied go, and the warps of w's CTA waiting on w's copies may
 * go on. */
static void async_done(struct tm_sm *s, struct tm_warp *w, unsigned k, uint32_t ord)
{
    w->ca_out[k][(ord % TM_CA_WIN) / 64] &= ~(UINT64_C(1) << (ord % 64));
    while (w->ca_lo[k] != w->ca_n[k] && !ca_in_flight(w, k, w->ca_lo[k]))
        w->ca_lo[k]++;
    if (w->at_async && !async_blocked(s, w))
        w->at_async = false; /* (retire marks w) */
    if (!w->ca_narr)
        return;
    uint32_t n = 0;
    for (uint32_t j = 0; j < w->ca_narr; j++)
        if (ca_before(w->ca_lo[w->ca_arr[j].kind], w->ca_arr[j].need))
            w->ca_arr[n++] = w->ca_arr[j];
    if (n == w->ca_narr)
        return;
    w->ca_narr = (uint8_t)n;
    const struct tm_cta *c = w->cta;
    if (!c)
        return;
    for (uint32_t i = 0; i < c->nwarps; i++) {
        struct tm_warp *v = &s->w[c->warp0 + i];
        if (v->at_async && v->ca_mbar != TM_NONE && !async_blocked(s, v)) {
            v->at_async = false;
            wc_mark(s, c->warp0 + i);
        }
    }
}

/* See sm_int.h: kind 2 (the bulk copies' reads) of copy ii. */
void tm_sm_async_read_done(struct tm_sm *s, uint32_t ii)
{
    const struct tm_inst *in = &s->inst[ii];
    struct tm_warp *w = &s->w[in->warp];
    const uint32_t o = in->ca_ord - 1;
    if (in->ca_ord && in->ca_kind == 1 && ca_in_flight(w, 2, o)) {
        async_done(s, w, 2, o);
        wc_mark(s, in->warp);
    }
}

/* An arrival of warp w on the mbarrier at shared address a, once its copies of kind k below
 * ordinal need have completed. */
static void async_arrival(struct tm_warp *w, uint32_t a, unsigned k, uint32_t need)
{
    uint32_t j = 0;
    while (j < w->ca_narr && !(w->ca_arr[j].addr == a && w->ca_arr[j].kind == k))
        j++;
    if (j == w->ca_narr) {
        if (w->ca_narr < TM_CA_ARR) {
            w->ca_narr++;
        } else { /* full: replace the first one of this kind, or the first */
            j = 0;
            while (j < TM_CA_ARR && w->ca_arr[j].kind != k)
                j++;
            if (j == TM_CA_ARR)
                j = 0;
        }
    }
    w->ca_arr[j].addr = a;
    w->ca_arr[j].kind = k;
    w->ca_arr[j].need = need;
}

/* The group ring of copy kind k (0, 1 and 2, 3; kind 4 has no groups). */
static inline unsigned ca_gk(unsigned k) { return k == 0 ? 0 : k <= 2 ? 1 : 2; }

/* A group wait of warp w on its copies of kind k: every group but the `keep` most recent
 * (~0u: every copy issued); kind 2 (bulk reads) has kind 1's groups. */
static void async_wait_groups(struct tm_warp *w, unsigned k, uint64_t keep)
{
    const unsigned gk = ca_gk(k);
    uint32_t need = w->ca_n[k];
    if (keep != ~0u) {
        if (w->ca_ngrp[gk] <= keep)
            return;
        uint32_t g = w->ca_ngrp[gk] - (uint32_t)keep - 1; /* the newest group to complete */
        if (w->ca_ngrp[gk] - g > TM_CA_GRP)
            g = w->ca_ngrp[gk] - TM_CA_GRP; /* older than remembered: the oldest remembered */
        need = w->ca_grp[gk][g % TM_CA_GRP];
    }
    w->ca_wk = (uint8_t)k;
    w->ca_need = need;
    w->ca_mbar = TM_NONE;
    w->at_async = ca_before(w->ca_lo[k], need);
}

/* Warp w issued x, executed as report r (instruction in): the asynchronous copies'
 * bookkeeping. A copy gets its ordinal (its completion is its retirement, when its last
 * request has returned); commit_group closes a group; wait_group N / wait_all make the warp
 * wait (at_async) for every group but the N most recent; cp.async.mbarrier.arrive records an
 * arrival that happens once the warp's cp.async copies so far complete, a bulk copy's
 * complete_tx one that happens once it (and the warp's earlier bulk copies) completes; an
 * mbarrier test_wait / try_wait waits for the arrivals recorded on its mbarrier. Per warp:
 * the lanes of a warp commit and wait together. */
static void async_issue(struct tm_sm *s, struct tm_warp *w, struct tm_inst *in,
                        const struct ir_insn *x, const struct engine_step_report *r)
{
    if (!(r->flags & ENGINE_STEP_EXECUTED))
        return;
    unsigned k = 1;
    switch (x->op) {
    case OP_CP_ASYNC:
        k = 0;
        /* fall through */
    case OP_CP_ASYNC_BULK: case OP_CP_ASYNC_BULK_TENSOR: case OP_CP_REDUCE_ASYNC_BULK:
    case OP_CP_REDUCE_ASYNC_BULK_TENSOR: {
        const uint32_t o = w->ca_n[k]++;
        in->ca_ord = o + 1;
        w->ca_insts++;
        in->ca_kind = (uint8_t)k;
        w->ca_out[k][(o % TM_CA_WIN) / 64] |= UINT64_C(1) << (o % 64);
        if (k == 1) {
            /* its source read, with the same ordinal; complete_tx on the mbarriers it
               reported */
            w->ca_n[2]++;
            w->ca_out[2][(o % TM_CA_WIN) / 64] |= UINT64_C(1) << (o % 64);
            for (uint32_t i = 0; i < r->naccess; i++)
                if (r->access[i].space == SP_SHARED)
                    async_arrival(w, (uint32_t)r->access[i].addr, 1, o + 1);
        }
        if (w->ca_n[k] - w->ca_lo[k] >= TM_CA_WIN) { /* the window is full: the oldest */
            w->at_async = true;
            w->ca_mbar = TM_NONE;
            w->ca_wk = (uint8_t)k;
            w->ca_need = w->ca_n[k] - TM_CA_WIN + 1;
        }
        return;
    }
    case OP_CP_ASYNC_COMMIT_GROUP:
    case OP_CP_ASYNC_WAIT_ALL:
        k = 0;
        /* fall through */
    case OP_CP_ASYNC_BULK_COMMIT_GROUP:
        w->ca_grp[ca_gk(k)][w->ca_ngrp[ca_gk(k)]++ % TM_CA_GRP] = w->ca_n[k];
        if (x->op == OP_CP_ASYNC_WAIT_ALL) /* (commit_group; wait_group 0) */
            async_wait_groups(w, k, ~0u);
        return;
    case OP_CP_ASYNC_WAIT_GROUP:
        async_wait_groups(w, 0, r->func->opnds[x->opnd].imm.u);
        return;
    case OP_CP_ASYNC_BULK_WAIT_GROUP: {
        bool rd = false; /* .read: until the sources are read */
        for (uint32_t i = 0; i < x->nmod && x->mod + i < r->func->nmods; i++)
            rd |= r->func->mods[x->mod + i] == MOD_READ;
        async_wait_groups(w, rd ? 2 : 1, r->func->opnds[x->opnd].imm.u);
        return;
    }
    case OP_CP_ASYNC_MBARRIER_ARRIVE:
        if (w->ca_lo[0] == w->ca_n[0])
            return; /* no copy in flight: the arrival has happened */
        for (uint32_t i = 0; i < r->naccess; i++)
            if (r->access[i].space == SP_SHARED)
                async_arrival(w, (uint32_t)r->access[i].addr, 0, w->ca_n[0]);
        return;
    case OP_MBARRIER_TEST_WAIT:
    case OP_MBARRIER_TRY_WAIT:
        for (uint32_t i = 0; i < r->naccess; i++)
            if (r->access[i].space == SP_SHARED) {
                w->ca_mbar = (uint32_t)r->access[i].addr;
                w->at_async = async_blocked(s, w);
                return;
            }
        return;
    default:
        return;
    }
}

/* A new asynchronous operation of kind k (3: wgmma.mma_async, 4: tcgen05.mma / cp / shift) of
 * warp w, instruction in: its ordinal, so group waits and commit arrivals wait for its
 * retirement (a fence does not). */
static void async_begin(struct tm_warp *w, struct tm_inst *in, unsigned k)
{
    const uint32_t o = w->ca_n[k]++;
    in->ca_ord = o + 1;
    in->ca_kind = (uint8_t)k;
    w->ca_insts++;
    w->ca_out[k][(o % TM_CA_WIN) / 64] |= UINT64_C(1) << (o % 64);
    if (w->ca_n[k] - w->ca_lo[k] >= TM_CA_WIN) { /* the window is full: the oldest */
        w->at_async = true;
        w->ca_mbar = TM_NONE;
        w->ca_wk = (uint8_t)k;
        w->ca_need = w->ca_n[k] - TM_CA_WIN + 1;
    }
}

/* Is x a wgmma.mma_async (asynchronous: its destinations are not reserved; wait_group waits
 * for it)? */
static inline bool is_wgmma(const struct ir_insn *x)
{
    return x && (x->op == OP_WGMMA_MMA_ASYNC || x->op == OP_WGMMA_MMA_ASYNC_SP);
}

/* Cycles w multiply-adds of class cls take on n tensor units at -ptxemu_tensor_rate (at
 * least 1, at most 65535). */
static uint32_t tc_cycles(const struct tm_config *cfg, uint64_t w, unsigned cls, unsigned n)
{
    const uint64_t rate = (uint64_t)cfg->tc_rate[cls < TM_TC_CLASSES ? cls : 0] * (n ? n : 1);
    uint64_t c = (w + rate - 1) / rate;
    return c < 1 ? 1 : c > 65535 ? 65535 : (uint32_t)c;
}

/* Warp w issued x (not a memory instruction), executed as report r (instruction in): a
 * tensor-core multiply-accumulate's time (-ptxemu_tensor_rate), and the asynchronous ones' bookkeeping.
 * mma / wmma.mma / wgmma.mma_async occupy the warp's tensor unit for their multiply-adds at
 * its rate and complete -ptx_opcode_latency_tesnor later; a wgmma.mma_async is a copy-like
 * operation of kind 3 (commit_group closes a group, wait_group N waits for all but the N
 * newest). tcgen05.mma / cp / shift go through the SM's tcgen05 queue in dispatch order (an
 * MMA at the rate of all the SM's tensor units; half the work of a .cta_group::2 pair's on
 * each SM; cp at the shared memory's bank width per cycle) as kind 4, and tcgen05.commit's
 * mbarrier arrival waits for the warp's kind-4 operations so far. */
static void tensor_issue(struct tm_sm *s, struct tm_warp *w, struct tm_inst *in,
                         const struct ir_insn *x, const struct engine_step_report *r)
{
    const struct tm_config *cfg = s->cfg;
    switch (x->op) {
    case OP_WGMMA_COMMIT_GROUP:
        w->ca_grp[2][w->ca_ngrp[2]++ % TM_CA_GRP] = w->ca_n[3];
        return;
    case OP_WGMMA_WAIT_GROUP:
        async_wait_groups(w, 3, r->func->opnds[x->opnd].imm.u);
        return;
    case OP_TCGEN05_COMMIT:
        if (w->ca_lo[4] == w->ca_n[4] || !(r->flags & ENGINE_STEP_EXECUTED))
            return; /* nothing in flight: the arrival has happened */
        for (uint32_t i = 0; i < r->naccess; i++)
            if (r->access[i].space == SP_SHARED || r->access[i].space == SP_SHARED_CLUSTER)
                async_arrival(w, (uint32_t)r->access[i].addr, 4, w->ca_n[4]);
        return;
    case OP_TCGEN05_MMA: case OP_TCGEN05_MMA_SP: case OP_TCGEN05_MMA_WS:
    case OP_TCGEN05_MMA_WS_SP: case OP_TCGEN05_CP: case OP_TCGEN05_SHIFT: {
        if (!(r->flags & ENGINE_STEP_EXECUTED))
            return;
        uint32_t c = 1;
        if (r->tc_macs)
            c = cfg->tc_on ? tc_cycles(cfg, r->tc_macs >> r->tc_pair, r->tc_class,
                                       cfg->n_units[TM_FU_TENSOR])
                           : in->lat.init;
        else if (r->tc_bytes) /* shared memory → tensor memory at the banks' width */
            c = (uint32_t)((r->tc_bytes + 4u * cfg->o.gpgpu_shmem_num_banks - 1) /
                           (4u * cfg->o.gpgpu_shmem_num_banks));
        in->tc5 = c ? c : 1;
        in->lat.init = 1; /* (the queue, not the unit, holds it) */
        s->st[TM_ST_TENSOR_MAC] += r->tc_macs >> r->tc_pair;
        async_begin(w, in, 4);
        return;
    }
    default:
        break;
    }
    if (!r->tc_macs || !(r->flags & ENGINE_STEP_EXECUTED))
        return; /* (every other instruction) */
    s->st[TM_ST_TENSOR_MAC] += r->tc_macs;
    if (cfg->tc_on && in->fu < TM_FU_SPEC) { /* (a specialised TENSOR unit: its own timing) */
        const uint32_t c = tc_cycles(cfg, r->tc_macs, r->tc_class, 1);
        in->lat.init = (uint16_t)c;
        in->lat.lat = (uint16_t)(cfg->tc_lat + c > 65535 ? 65535 : cfg->tc_lat + c);
        in->tc_work = (uint16_t)c;
        if (is_wgmma(x))
            in->lat.init = 1; /* queued: the warp's next instructions do not wait for the unit */
    }
    if (is_wgmma(x))
        async_begin(w, in, 3);
}

/* Issue the instruction at the head of w's buffer: the engine executes it now. Returns 1 when
 * issued, 0 when the warp turned out not ready, -1 when out of memory. A fault (or a barrier
 * deadlock) is recorded by the engine as the launch's trap; the driver sees it and stops the
 * launch's warps (tm_sm_stop_kernel), and this warp stops at once. */
static int issue_one(struct tm_sm *s, struct tm_gpu *g, uint32_t ws, uint8_t fu)
{
    struct tm_warp *w = &s->w[ws];
    struct tm_cta *c = w->cta;
    struct engine_step_report r;
    (void)g;
    const struct tm_useq *hq = head_seq(s, w);
    if (hq && w->uk + 1 < hq->n)
        return issue_uop(s, ws, fu, hq);
    int rc = engine_step(c->ec, w->ew, &r);
    if (rc) {
        struct engine_warp_info info;
        if (engine_warp_query(c->ec, w->ew, &info))
            return 0;
        if (info.status == ENGINE_WARP_BARRIER) {
            w->at_bar = true;
        } else if (info.status == ENGINE_WARP_EXITED || info.status == ENGINE_WARP_FAULTED) {
            w->done = true;
            w->nib = 0;
            cta_release(s, c); /* its exit may complete a barrier */
            tm_sm_warp_try_finish(s, w);
        }
        return 0;
    }
    uint32_t ii = inst_alloc(s);
    if (ii == TM_NONE)
        return -1;
    struct tm_inst *in = inst_begin(s, ii, ws, fu);
    const struct ir_insn *x = r.insn;
    in->prow = c->k && c->k->prof && x && r.func
                   ? tm_prof_pc(c->k->prof, s->pset, r.func, (uint32_t)(x - r.func->insns))
                   : NULL;
    unsigned lat = x && x->lat ? x->lat : LAT_ADD;
    if (lat >= LAT__COUNT)
        lat = LAT_ADD;
    in->lat = fu >= TM_FU_SPEC ? s->cfg->spec_lat[fu - TM_FU_SPEC]
                               : s->cfg->oplat[x ? x->unit : U_CTRL][lat];
    /* an expanded instruction: its last machine instruction; the first read the sources, the
     * result's reserved the destinations (issue_uop) */
    const struct tm_useq *q = x ? hq : NULL; /* (x is the head of the buffer) */
    if (q) {
        in->lat = uop_lat(s->cfg, &q->op[q->n - 1], fu);
        w->uk = 0;
    }
    if (x) /* (a wgmma.mma_async's accumulators: wgmma.wait_group waits for them) */
        inst_regs(s, w, ws, in, r.func, x, !q, (!q || q->result == q->n - 1) && !is_wgmma(x));
    if (x && x->unit == U_MEM)
        async_issue(s, w, in, x, &r);
    else if (x) /* (wgmma / tcgen05 bookkeeping is on the integer pipe) */
        tensor_issue(s, w, in, x, &r);
    if (fu == TM_FU_MEM) {
        uint32_t mi = mop_alloc(s);
        if (mi == TM_NONE)
            return -1;
        in = &s->inst[ii]; /* (pools do not move each other, but keep the pattern) */
        in->memop = mi;
        tm_sm_memop_fill(s, &s->mop[mi], ws, &r);
        struct tm_memop *m = &s->mop[mi];
        uint64_t shm0 = s->st[TM_ST_N_SHMEM];
        switch (m->space) {
        case SP_SHARED: case SP_SHARED_CTA: case SP_SHARED_CLUSTER:
            s->st[TM_ST_N_SHMEM]++;
            break;
        case SP_CONST:
            s->st[TM_ST_N_CONST]++;
            break;
        case SP_TEX:
            s->st[TM_ST_N_TEX]++;
            break;
        case SP_PARAM:
            if (m->degree) { /* a kernel parameter through the L1C */
                s->st[TM_ST_N_PARAM]++;
                break;
            }
            /* fall through - other .param accesses: loads and stores */
        default:
            if (m->kind == TM_REQ_ATOMIC)
                s->st[TM_ST_N_ATOMIC]++;
            else if (m->kind == TM_REQ_WRITE)
                s->st[TM_ST_N_STORE]++;
            else
                s->st[TM_ST_N_LOAD]++;
            break;
        }
        if (in->prow) /* shared / constant: one access; else the lines sent */
            in->prow[TM_PC_MEM_REQ] += m->space == SP_CONST ||
                                               (m->space == SP_PARAM && m->degree) ||
                                               s->st[TM_ST_N_SHMEM] != shm0
                                           ? 1
                                           : m->nline;
    } else if (x && x->unit == U_MEM) {
        s->st[TM_ST_N_PARAM]++;
    }
    if (in->prow) {
        in->prow[TM_PC_ISSUED]++;
        in->prow[TM_PC_THREAD_INSN] += (uint64_t)__builtin_popcount(r.exec_mask);
    }
    w->inflight++;
    pr_push(&s->id_oc[fu], in->part, ii);
    s->idoc_n[in->part]++;
    s->st[TM_ST_WARP_INSN]++;
    s->st[TM_ST_THREAD_INSN] += (uint64_t)__builtin_popcount(r.exec_mask);

    /* the buffer: drop the issued entry; keep the next one only if it is where the warp goes */
    w->ib[0] = w->ib[1];
    w->nib--;
    w->sbc = 0; /* new scoreboard entries, a new head */
    if (r.next_func) {
        w->func = r.next_func;
        w->pc = r.next_pc;
    }
    if (w->nib && (w->ib[0].f != w->func || w->ib[0].pc != w->pc)) {
        w->nib = 0;
        s->st[TM_ST_IBUF_FLUSH]++;
    }
    if (r.flags & ENGINE_STEP_FAULT) {
        w->done = true;
        w->nib = 0;
        return 1;
    }
    if (x && (x->iflags & IF_FENCE) && x->op != OP_CP_ASYNC_WAIT_GROUP &&
        x->op != OP_CP_ASYNC_WAIT_ALL && x->op != OP_CP_ASYNC_BULK_WAIT_GROUP &&
        x->op != OP_WGMMA_WAIT_GROUP) /* (they wait for their groups: async_issue) */
        w->at_membar = true;
    if (r.sleep_ns) {
        /* nanosleep: the warp issues nothing for the delay, at the core clock */
        uint64_t t = s->cycle + (uint64_t)((double)r.sleep_ns * s->cfg->clock_mhz[0] / 1e3 + 0.5);
        if (t > w->ready_at)
            w->ready_at = t;
    }
    if (r.flags & ENGINE_STEP_PARKED)
        w->at_bar = true;
    if (r.flags & ENGINE_STEP_WARP_DONE) {
        w->done = true;
        w->nib = 0;
    }
    if (r.flags & (ENGINE_STEP_BARRIER | ENGINE_STEP_WARP_DONE)) {
        cta_release(s, c); /* a deadlock is the launch's trap (the driver stops it) */
        if (c->k && c->k->csize > 1)
            c->k->clu_epoch++; /* warps of its cluster's other CTAs may have been released */
    }
    return 1;
}

/* The rotating policies' (lrr, rrr) first slot index of scheduler k; rrr advances it. */
static uint32_t rot_start(struct tm_sm *s, uint32_t k, uint32_t per)
{
    if (s->cfg->sched == TM_SCHED_LRR)
        return s->last_issued[k] == TM_NONE ? 0 : (s->last_issued[k] / s->nsched + 1) % per;
    return s->rr_start[k]++ % per;
}

/* Candidate warps of scheduler k in the policy's priority order, into s->order[k]. */
static void sched_order(struct tm_sm *s, uint32_t k)
{
    const struct tm_config *cfg = s->cfg;
    uint32_t *o = s->order[k], n = 0;
    uint32_t per = (s->nwarp_slots + s->nsched - 1 - k) / s->nsched; /* slots k, k+nsched, … */
    if (!per) {
        s->norder[k] = 0;
        return;
    }
    switch (cfg->sched) {
    case TM_SCHED_LRR:
    case TM_SCHED_RRR: {
        uint32_t start = rot_start(s, k, per);
        if (s->occ_ok) { /* the running slots j >= start, then j < start */
            uint64_t m = s->occ[k];
            uint64_t hi = start < 64 ? m >> start : 0;
            uint64_t lo = start ? m & ((UINT64_C(1) << start) - 1) : 0;
            for (; hi; hi &= hi - 1)
                o[n++] = (start + (uint32_t)__builtin_ctzll(hi)) * s->nsched + k;
            for (; lo; lo &= lo - 1)
                o[n++] = (uint32_t)__builtin_ctzll(lo) * s->nsched + k;
            break;
        }
        for (uint32_t i = 0; i < per; i++) {
            uint32_t ws = ((start + i) % per) * s->nsched + k;
            if (s->w[ws].cta)
                o[n++] = ws;
        }
        break;
    }
    case TM_SCHED_GTO:
    case TM_SCHED_OLD: {
        uint32_t greedy = cfg->sched == TM_SCHED_GTO ? s->last_issued[k] : TM_NONE;
        if (greedy != TM_NONE && s->w[greedy].cta)
            o[n++] = greedy;
        uint32_t base = n;
        uint64_t m = s->occ_ok ? s->occ[k] : 0;
        for (uint32_t i = s->occ_ok ? (m ? (uint32_t)__builtin_ctzll(m) : per) : 0; i < per;
             i = s->occ_ok ? ((m &= m - 1) ? (uint32_t)__builtin_ctzll(m) : per) : i + 1) {
            uint32_t ws = i * s->nsched + k;
            if (!s->w[ws].cta || ws == greedy)
                continue;
            /* insertion by age (few warps per scheduler) */
            uint32_t j = n++;
            while (j > base && s->w[o[j - 1]].age > s->w[ws].age) {
                o[j] = o[j - 1];
                j--;
            }
            o[j] = ws;
        }
        break;
    }
    case TM_SCHED_TWO_LEVEL: {
        uint32_t na = cfg->two_level_active;
        uint32_t *pool = &s->active_pool[k * na];
        /* drop finished warps and warps waiting on memory; refill with the oldest others */
        for (uint32_t i = 0; i < na; i++)
            if (pool[i] != TM_NONE &&
                (!s->w[pool[i]].cta || (s->w[pool[i]].mem_pending && s->w[pool[i]].nsb)))
                pool[i] = TM_NONE;
        for (uint32_t i = 0; i < na; i++) {
            if (pool[i] != TM_NONE)
                continue;
            uint32_t best = TM_NONE;
            for (uint32_t j = 0; j < per; j++) {
                uint32_t ws = j * s->nsched + k;
                const struct tm_warp *w = &s->w[ws];
                if (!w->cta || (w->mem_pending && w->nsb))
                    continue;
                bool in = false;
                for (uint32_t q = 0; q < na; q++)
                    in |= pool[q] == ws;
                if (!in && (best == TM_NONE || w->age < s->w[best].age))
                    best = ws;
            }
            pool[i] = best;
        }
        uint32_t start = s->rr_start[k] % na;
        for (uint32_t i = 0; i < na; i++) {
            uint32_t ws = pool[(start + i) % na];
            if (ws != TM_NONE)
                o[n++] = ws;
        }
        break;
    }
    }
    s->norder[k] = n;
}

/* A stalled scheduler-cycle charged to the next instruction of warp ws (--timing-stats'
 * per-instruction counters). */
static void prof_stall(struct tm_sm *s, uint32_t ws, enum stall why)
{
    static const uint8_t col[] = {[ST_IBUF] = TM_PC_STALL_IBUF, [ST_BAR] = TM_PC_STALL_BAR,
                                  [ST_MEMBAR] = TM_PC_STALL_MEMBAR, [ST_SB] = TM_PC_STALL_SB,
                                  [ST_PIPE] = TM_PC_STALL_PIPE};
    const struct tm_warp *w = &s->w[ws];
    if (!w->cta || !w->cta->k || !w->cta->k->prof)
        return;
    uint64_t *row = tm_prof_pc(w->cta->k->prof, s->pset, w->func, w->pc);
    if (row)
        row[col[why]]++;
}

static inline bool maybe_shared(const struct ir_insn *in)
{
    /* (the common case inline: no call, no memory unit, no load, store or atomic) */
    return !in || (in->iflags & (IF_CALL | IF_LOAD | IF_STORE | IF_ATOMIC)) ||
                   in->unit == U_MEM
               ? tm_insn_shared(in)
               : false;
}

/* ---------------------------------------------------------------- warps by issue class */

/* Warp w's issue class (struct tm_sm.wc): the reason the walk of the issue stage would give
 * it before any pipeline-register check, ST_PIPE when it may issue, ST_NONE when not
 * running. Caches the head's unit and scoreboard hazard as the walk does. */
static enum stall warp_class(const struct tm_sm *s, struct tm_warp *w)
{
    if (!w->cta || w->done)
        return ST_NONE;
    if (w->at_bar)
        return ST_BAR;
    if (w->at_membar || w->at_async)
        return ST_MEMBAR;
    if (!w->nib || w->ready_at > s->cycle)
        return ST_IBUF;
    if (!w->sbc)
        head_cache(s, w);
    return w->sbc == 2 ? ST_SB : ST_PIPE;
}

/* Reclassify the marked warps of scheduler k; the ones still in a launch or sleep latency
 * stay marked (their class changes with time). */
static void wc_refresh_(struct tm_sm *s, uint32_t k)
{
    uint64_t *m = &s->wc[k * TM_WCLS], keep = 0;
    for (uint64_t d = s->wc_dirty[k]; d; d &= d - 1) {
        uint32_t j = (uint32_t)__builtin_ctzll(d);
        uint64_t b = UINT64_C(1) << j;
        struct tm_warp *w = &s->w[j * s->nsched + k];
        enum stall c = warp_class(s, w);
        m[w->cls] &= ~b;
        m[c] |= b;
        w->cls = (uint8_t)c;
        if (c != ST_NONE && w->ready_at > s->cycle)
            keep |= b;
    }
    s->wc_dirty[k] = keep;
}

static inline void wc_refresh(struct tm_sm *s, uint32_t k)
{
    if (s->wc_dirty[k])
        wc_refresh_(s, k);
}

/* With the masks: scheduler k's warps of mask m (bit j = slot j * nsched + k) in the policy's
 * priority order into o, as sched_order orders them: lrr/rrr from slot index start on,
 * wrapping; gto/old the greedy warp first (when in m), then by age. Returns how many. */
static uint32_t order_of_mask(const struct tm_sm *s, uint32_t k, uint64_t m, uint32_t start,
                              uint32_t greedy, uint32_t *o)
{
    uint32_t n = 0;
    if (s->cfg->sched == TM_SCHED_LRR || s->cfg->sched == TM_SCHED_RRR) {
        uint64_t hi = start < 64 ? m >> start : 0;
        uint64_t lo = start ? m & ((UINT64_C(1) << start) - 1) : 0;
        for (; hi; hi &= hi - 1)
            o[n++] = (start + (uint32_t)__builtin_ctzll(hi)) * s->nsched + k;
        for (; lo; lo &= lo - 1)
            o[n++] = (uint32_t)__builtin_ctzll(lo) * s->nsched + k;
        return n;
    }
    if (greedy != TM_NONE && (m >> (greedy / s->nsched) & 1)) {
        o[n++] = greedy;
        m &= ~(UINT64_C(1) << (greedy / s->nsched));
    }
    uint32_t base = n;
    for (; m; m &= m - 1) {
        uint32_t ws = (uint32_t)__builtin_ctzll(m) * s->nsched + k;
        uint32_t j = n++; /* insertion by age (few warps per scheduler) */
        while (j > base && s->w[o[j - 1]].age > s->w[ws].age) {
            o[j] = o[j - 1];
            j--;
        }
        o[j] = ws;
    }
    return n;
}

/* The first warp of mask m (non-empty) in scheduler k's priority order (order_of_mask's). */
static uint32_t first_of_mask(const struct tm_sm *s, uint32_t k, uint64_t m, uint32_t start,
                              uint32_t greedy)
{
    if (s->cfg->sched == TM_SCHED_LRR || s->cfg->sched == TM_SCHED_RRR) {
        uint64_t hi = start < 64 ? m >> start : 0;
        return (hi ? start + (uint32_t)__builtin_ctzll(hi) : (uint32_t)__builtin_ctzll(m)) *
                   s->nsched + k;
    }
    if (greedy != TM_NONE && (m >> (greedy / s->nsched) & 1))
        return greedy;
    uint32_t best = TM_NONE;
    for (; m; m &= m - 1) {
        uint32_t ws = (uint32_t)__builtin_ctzll(m) * s->nsched + k;
        if (best == TM_NONE || s->w[ws].age < s->w[best].age)
            best = ws;
    }
    return best;
}

/* ---------------------------------------------------------------- the issue stage */

/* In the parallel phase (s->par), at the warp a scheduler is about to issue (its first
 * instruction this cycle): must the SM stop here, leaving the scheduler to tm_sm_resume?
 * When the instruction, or the next one with dual issue, has effects outside the SM
 * (tm_insn_shared), or when the engine would refuse the step (a warp the engine has parked
 * or ended: the serial loop would then go on to the next warp, past a point the phase could
 * not restart from). Until this point the scheduler's scan changed nothing but caches (and
 * the rotation the caller restores), so the resume runs the scheduler again from its start
 * and makes the same choice. */
static bool par_must_stop(struct tm_sm *s, struct tm_warp *w)
{
    if (maybe_shared(ib_insn(w, 0)))
        return true;
    if (s->cfg->o.gpgpu_max_insn_issue_per_warp > 1 && w->nib > 1 &&
        maybe_shared(ib_insn(w, 1)))
        return true;
    struct engine_warp_info info;
    return engine_warp_query(w->cta->ec, w->ew, &info) || info.status != ENGINE_WARP_READY;
}

/* warp_issue, walk_order, issue_fast: the parallel phase stops at the warp about to issue
 * (par_must_stop), before anything but caches changed. */
#define ISSUE_STOP (-2)

/* Try warp ws (running, not done) of scheduler k: up to -gpgpu_max_insn_issue_per_warp
 * instructions (different units with -gpgpu_dual_issue_diff_exec_units). Returns how many
 * issued (the scheduler's issue counted), -1 when out of memory, ISSUE_STOP when the parallel
 * phase stops at this warp; when none, *stp is why. */
static int warp_issue(struct tm_sm *s, struct tm_gpu *g, uint32_t k, uint32_t ws,
                      enum stall *stp)
{
    const struct tm_config *cfg = s->cfg;
    struct tm_warp *w = &s->w[ws];
    enum stall st = ST_NONE;
    uint32_t nissued = 0;
    uint8_t first_fu = 0xff;
    while (nissued < cfg->o.gpgpu_max_insn_issue_per_warp) {
        if (w->at_bar)
            st = ST_BAR;
        else if (w->at_membar || w->at_async)
            st = ST_MEMBAR;
        else if (!w->nib || w->ready_at > s->cycle)
            st = ST_IBUF;
        else {
            if (!w->sbc) /* the head changed: its unit and hazard, cached */
                head_cache(s, w);
            uint8_t fu = w->fu0;
            if (w->sbc == 2)
                st = ST_SB;
            else if (!pr_has_room(&s->id_oc[fu], w->part % s->nparts) ||
                     (nissued && cfg->o.gpgpu_dual_issue_diff_exec_units && fu == first_fu))
                st = ST_PIPE;
            else {
                if (s->par && !nissued && par_must_stop(s, w))
                    return ISSUE_STOP;
                int r = issue_one(s, g, ws, fu);
                if (r < 0)
                    return -1;
                wc_mark(s, ws);
                if (!w->nib)
                    ibe_mark(s, w);
                if (r == 0)
                    st = ST_BAR;
                else {
                    first_fu = fu;
                    nissued++;
                    if (w->done)
                        break;
                    continue;
                }
            }
        }
        break;
    }
    if (nissued) {
        s->last_issued[k] = ws;
        s->st[TM_ST_ISSUE]++;
        if (nissued > 1)
            s->st[TM_ST_ISSUE_DUAL]++;
    }
    *stp = st;
    return (int)nissued;
}

/* The walk over s->order[k][from …]: each running warp tried in turn until one issues; the
 * reason of each that cannot raises *why (*why_ws: the first warp of the highest reason).
 * 1 when a warp issued, 0 when none did, -1 when out of memory, ISSUE_STOP (warp_issue). */
static int walk_order(struct tm_sm *s, struct tm_gpu *g, uint32_t k, uint32_t from,
                      enum stall *why, uint32_t *why_ws)
{
    for (uint32_t i = from; i < s->norder[k]; i++) {
        uint32_t ws = s->order[k][i];
        const struct tm_warp *w = &s->w[ws];
        if (!w->cta || w->done)
            continue;
        enum stall st;
        int r = warp_issue(s, g, k, ws, &st);
        if (r)
            return r < 0 ? r : 1;
        if (st > *why) {
            *why = st;
            *why_ws = ws;
        }
    }
    return 0;
}

/* Scheduler k's issue from the class masks (lrr, rrr, gto, old): only the warps that may issue
 * are tried, in priority order, and a stalled scheduler's reason is the highest class present
 * — what walk_order over every warp gives, since a warp that may issue but finds its pipeline
 * register full stalls for the highest reason, ST_PIPE, and the others' reasons are their
 * classes. When the engine refuses a step (the warp turned out to be at a barrier or exited,
 * which may release or retire other warps), the stage goes on as the walk would: the warps
 * before it in the order count with their classes, the ones after it are tried as they are
 * now. Returns as walk_order. */
static int issue_fast(struct tm_sm *s, struct tm_gpu *g, uint32_t k, uint32_t per,
                      enum stall *why, uint32_t *why_ws)
{
    const enum tm_sched_kind pol = s->cfg->sched;
    const bool rot = pol == TM_SCHED_LRR || pol == TM_SCHED_RRR;
    wc_refresh(s, k);
    const uint64_t *m = &s->wc[k * TM_WCLS];
    const uint64_t occ0 = s->occ[k], ready = m[ST_PIPE];
    uint32_t start = 0, greedy = TM_NONE;
    if (rot)
        start = rot_start(s, k, per);
    else if (pol == TM_SCHED_GTO)
        greedy = s->last_issued[k];
    if (ready) { /* every ID_OC register of the part full: each may-issue warp stalls */
        const uint32_t part = k % s->nparts;
        bool room = false;
        for (int f = 0; f < (int)s->nfu && !room; f++)
            room = pr_has_room(&s->id_oc[f], part);
        if (!room) {
            *why = ST_PIPE;
            *why_ws = first_of_mask(s, k, ready, start, greedy);
            return 0;
        }
    }
    uint32_t *o = s->order[k];
    uint32_t n = 0;
    uint64_t hi = 0, lo = 0; /* lrr/rrr: the ready slots from start on, then before it */
    if (rot) {
        hi = start < 64 ? ready >> start : 0;
        lo = start ? ready & ((UINT64_C(1) << start) - 1) : 0;
    } else if (ready) {
        n = order_of_mask(s, k, ready, start, greedy, o);
    }
    for (uint32_t i = 0;; i++) {
        uint32_t ws;
        if (!rot) {
            if (i == n)
                break;
            ws = o[i];
        } else if (hi) {
            ws = (start + (uint32_t)__builtin_ctzll(hi)) * s->nsched + k;
            hi &= hi - 1;
        } else if (lo) {
            ws = (uint32_t)__builtin_ctzll(lo) * s->nsched + k;
            lo &= lo - 1;
        } else {
            break;
        }
        enum stall st;
        int r = 0;
        if (!pr_has_room(&s->id_oc[s->w[ws].fu0], k % s->nparts))
            st = ST_PIPE; /* (warp_issue's first check, made here) */
        else if ((r = warp_issue(s, g, k, ws, &st)))
            return r < 0 ? r : 1;
        if (st == ST_PIPE) {
            if (*why < ST_PIPE) {
                *why = ST_PIPE;
                *why_ws = ws;
            }
            continue;
        }
        /* refused by the engine: the full order as the stage began, on from ws */
        s->norder[k] = order_of_mask(s, k, occ0, start, greedy, o);
        uint32_t p = 0;
        *why = ST_IDLE;
        *why_ws = TM_NONE;
        for (; o[p] != ws; p++)
            if (s->w[o[p]].cls > *why) {
                *why = (enum stall)s->w[o[p]].cls;
                *why_ws = o[p];
            }
        if (st > *why) {
            *why = st;
            *why_ws = ws;
        }
        return walk_order(s, g, k, p + 1, why, why_ws);
    }
    if (*why < ST_PIPE)
        for (int c = ST_SB; c >= ST_IBUF; c--)
            if (m[c]) {
                *why = (enum stall)c;
                *why_ws = first_of_mask(s, k, m[c], start, greedy);
                break;
            }
    return 0;
}

/* The issue stage from scheduler k0 on. 1 when it stopped in scheduler resume_k (the
 * parallel phase, par_must_stop), -1 out of memory, else 0. Every scheduler-cycle is counted
 * once: issued, or stalled for the highest reason of its warps. */
static int issue_stage(struct tm_sm *s, struct tm_gpu *g, uint32_t k0)
{
    const struct tm_config *cfg = s->cfg;
    /* the class masks serve every policy but two_level (which tries only its active pool) */
    const bool fast = s->occ_ok && cfg->sched != TM_SCHED_TWO_LEVEL;
    for (uint32_t k = k0; k < s->nsched; k++) {
        const uint32_t rr0 = s->rr_start[k]; /* (restored when the parallel phase stops) */
        uint32_t per = (s->nwarp_slots + s->nsched - 1 - k) / s->nsched;
        enum stall why = ST_IDLE;
        uint32_t why_ws = TM_NONE; /* the warp whose state decided `why` */
        int r;
        if (fast && per) {
            r = issue_fast(s, g, k, per, &why, &why_ws);
        } else {
            sched_order(s, k);
            r = walk_order(s, g, k, 0, &why, &why_ws);
        }
        if (r == ISSUE_STOP) { /* the resume runs scheduler k again from its start */
            s->rr_start[k] = rr0;
            s->resume_k = k;
            return 1;
        }
        if (r < 0)
            return -1;
        if (cfg->sched == TM_SCHED_TWO_LEVEL && !r)
            s->rr_start[k]++;
        if (r)
            continue;
        switch (why) {
        case ST_PIPE: s->st[TM_ST_STALL_PIPE]++; break;
        case ST_SB: s->st[TM_ST_STALL_SCOREBOARD]++; break;
        case ST_MEMBAR: s->st[TM_ST_STALL_MEMBAR]++; break;
        case ST_BAR: s->st[TM_ST_STALL_BARRIER]++; break;
        case ST_IBUF: s->st[TM_ST_STALL_IBUFFER]++; break;
        default: s->st[TM_ST_STALL_IDLE]++; break;
        }
        if (why_ws != TM_NONE && why > ST_IDLE)
            prof_stall(s, why_ws, why);
    }
    return 0;
}

/* ====================================================================== read operands */

/* The first free collector unit among coll[lo, lo + n), or TM_NONE. */
static inline uint32_t coll_free(const uint32_t *coll, uint32_t lo, uint32_t n)
{
    for (uint32_t cu = lo; cu < lo + n; cu++)
        if (coll[cu] == TM_NONE)
            return cu;
    return TM_NONE;
}

/* Step 3 of the operand stage for the collector units coll[lo, lo + n) of part p: up to
 * `ports` collected instructions go to their unit's OC_EX register, oldest first (a fixed or
 * cycle-parity order starves a collector when a unit frees every other cycle). Returns how
 * many went. */
static inline uint32_t coll_dispatch(struct tm_sm *s, uint32_t p, uint32_t *coll, uint32_t lo,
                                     uint32_t n, uint32_t ports)
{
    uint32_t sent = 0;
    while (sent < ports) {
        uint32_t best = TM_NONE;
        for (uint32_t cu = lo; cu < lo + n; cu++) {
            uint32_t ii = coll[cu];
            if (ii == TM_NONE || s->inst[ii].src_left)
                continue;
            uint32_t part = s->inst[ii].fu == TM_FU_MEM ? 0 : p;
            if (!pr_has_room(&s->oc_ex[s->inst[ii].fu], part))
                continue;
            if (best == TM_NONE || s->inst[ii].t_issue < s->inst[coll[best]].t_issue)
                best = cu;
        }
        if (best == TM_NONE)
            break;
        uint32_t ii = coll[best];
        pr_push(&s->oc_ex[s->inst[ii].fu], s->inst[ii].fu == TM_FU_MEM ? 0 : p, ii);
        coll[best] = TM_NONE;
        s->coll_n[p]--;
        sent++;
    }
    return sent;
}

/* Read operands: per sub-core, (1) instructions in the ID_OC registers take collector units,
 * (2) the register banks serve the collectors' reads, (3) collected instructions go to their
 * unit's OC_EX register. Generic ports and units (-gpgpu_operand_collector_num_*_gen) are
 * split among the sub-cores and take any kind, oldest first. With
 * -gpgpu_enable_specialized_operand_collector 1, as GPGPU-Sim's opndcoll_rfu_t: after the
 * generic ports, kind X's -gpgpu_operand_collector_num_in_ports_X ports each move the front of
 * ID_OC_X into a free unit of X's set (units split among the sub-cores) or else a free generic
 * one, and -gpgpu_operand_collector_num_out_ports_X ports dispatch X's set; those port counts
 * are per SM (GPGPU-Sim's ports serve every sub-core), shared by the sub-cores in turn. */
static void operand_stage(struct tm_sm *s)
{
    const struct tm_config *cfg = s->cfg;
    uint32_t gen_in = (uint32_t)cfg->o.gpgpu_operand_collector_num_in_ports_gen;
    uint32_t gen_out = (uint32_t)cfg->o.gpgpu_operand_collector_num_out_ports_gen;
    uint32_t inports = gen_in / s->nparts;
    uint32_t outports = gen_out / s->nparts;
    if (!inports && (gen_in || !cfg->spec_oc))
        inports = 1;
    if (!outports && (gen_out || !cfg->spec_oc))
        outports = 1;
    if (!s->ngen)
        inports = outports = 0;
    /* specialised ports left this cycle (per SM), in GPGPU-Sim's port order */
    static const uint8_t spec_order[TM_FU_SPEC] = {TM_FU_SP, TM_FU_DP, TM_FU_SFU,
                                                   TM_FU_TENSOR, TM_FU_MEM, TM_FU_INT};
    uint32_t in_left[TM_FU__COUNT], out_left[TM_FU__COUNT];
    if (cfg->spec_oc) {
        memcpy(in_left, cfg->oc_in, sizeof in_left);
        memcpy(out_left, cfg->oc_out, sizeof out_left);
    }
    uint32_t tput = (uint32_t)cfg->o.gpgpu_reg_file_port_throughput;
    memset(s->bank_used, 0, (size_t)s->nparts * s->nbanks * sizeof *s->bank_used);
    for (uint32_t pi = 0; pi < s->nparts; pi++) {
        /* sub-cores take turns first (the shared OC_EX_MEM register goes round robin) */
        uint32_t p = (uint32_t)((pi + s->cycle) % s->nparts);
        uint32_t *coll = &s->coll[p * s->ncoll];
        /* 1. instructions waiting in ID_OC registers take free collector units, oldest first */
        for (uint32_t port = 0; port < inports && s->idoc_n[p]; port++) {
            uint32_t best = TM_NONE;
            int bf = -1;
            for (int f = 0; f < (int)s->nfu; f++) {
                uint32_t i = pr_front(&s->id_oc[f], p);
                if (i != TM_NONE && (best == TM_NONE || s->inst[i].t_issue < s->inst[best].t_issue))
                    best = i, bf = f;
            }
            if (best == TM_NONE)
                break;
            uint32_t cu = coll_free(coll, 0, s->ngen);
            if (cu == TM_NONE) {
                s->st[TM_ST_OC_ALLOC_STALL]++;
                break;
            }
            coll[cu] = best;
            s->coll_n[p]++;
            pr_pop(&s->id_oc[bf], p);
            s->idoc_n[p]--;
        }
        if (cfg->spec_oc) /* 1b. the specialised ports: their kind's set, else generic */
            for (int k = 0; k < TM_FU_SPEC && s->idoc_n[p]; k++) {
                int f = spec_order[k];
                while (in_left[f]) {
                    uint32_t i = pr_front(&s->id_oc[f], p);
                    if (i == TM_NONE)
                        break;
                    uint32_t cu = coll_free(coll, s->cs_base[f], s->cs_n[f]);
                    if (cu == TM_NONE)
                        cu = coll_free(coll, 0, s->ngen);
                    if (cu == TM_NONE) {
                        s->st[TM_ST_OC_ALLOC_STALL]++;
                        break;
                    }
                    coll[cu] = i;
                    s->coll_n[p]++;
                    pr_pop(&s->id_oc[f], p);
                    s->idoc_n[p]--;
                    in_left[f]--;
                }
            }
        /* 2. register banks serve `tput` reads each */
        if (!s->coll_n[p])
            continue; /* (steps 2 and 3 have nothing to do) */
        uint32_t *used = &s->bank_used[p * s->nbanks];
        for (uint32_t q = 0; q < s->ncoll; q++) {
            uint32_t cu = (s->coll_rr + q) % s->ncoll;
            if (coll[cu] == TM_NONE)
                continue;
            struct tm_inst *in = &s->inst[coll[cu]];
            for (uint32_t b = in->src_left; b; b &= b - 1) {
                uint32_t i = (uint32_t)__builtin_ctz(b);
                uint32_t bank = in->src_bank[i];
                if (used[bank] < tput) {
                    used[bank]++;
                    in->src_left &= ~(1u << i);
                    s->st[TM_ST_REG_READS]++;
                } else {
                    s->st[TM_ST_REG_BANK_CONFLICT]++;
                }
            }
        }
        /* 3. collected instructions go to their unit's OC_EX register */
        coll_dispatch(s, p, coll, 0, s->ngen, outports);
        if (cfg->spec_oc)
            for (int k = 0; k < TM_FU_SPEC; k++) {
                int f = spec_order[k];
                if (out_left[f] && s->cs_n[f])
                    out_left[f] -= coll_dispatch(s, p, coll, s->cs_base[f], s->cs_n[f],
                                                 out_left[f]);
            }
    }
    s->coll_rr++;
}

/* ====================================================================== execute */

static const enum tm_stat unit_dispatch_stat[TM_FU__COUNT] = {
    TM_ST_UNIT_SP, TM_ST_UNIT_DP, TM_ST_UNIT_INT, TM_ST_UNIT_SFU, TM_ST_UNIT_TENSOR,
    TM_ST_UNIT_MEM, TM_ST_UNIT_SPEC, TM_ST_UNIT_SPEC, TM_ST_UNIT_SPEC, TM_ST_UNIT_SPEC,
    TM_ST_UNIT_SPEC, TM_ST_UNIT_SPEC, TM_ST_UNIT_SPEC, TM_ST_UNIT_SPEC};
static const enum tm_stat unit_busy_stat[TM_FU__COUNT] = {
    TM_ST_UNIT_BUSY_SP, TM_ST_UNIT_BUSY_DP, TM_ST_UNIT_BUSY_INT, TM_ST_UNIT_BUSY_SFU,
    TM_ST_UNIT_BUSY_TENSOR, TM_ST_UNIT_BUSY_MEM, TM_ST_UNIT_BUSY_SPEC, TM_ST_UNIT_BUSY_SPEC,
    TM_ST_UNIT_BUSY_SPEC, TM_ST_UNIT_BUSY_SPEC, TM_ST_UNIT_BUSY_SPEC, TM_ST_UNIT_BUSY_SPEC,
    TM_ST_UNIT_BUSY_SPEC, TM_ST_UNIT_BUSY_SPEC};


_Static_assert(TM_TC_CLASSES == ENGINE_TC__COUNT, "-ptxemu_tensor_rate's classes");

static void execute_stage(struct tm_sm *s)
{
    for (uint32_t u = 0; u < s->nunit; u++) {
        struct tm_unit *un = &s->unit[u];
        if (un->busy_until > s->cycle) {
            s->st[unit_busy_stat[un->fu]]++;
            continue;
        }
        uint32_t ii = pr_front(&s->oc_ex[un->fu], un->part);
        if (ii == TM_NONE)
            continue;
        pr_pop(&s->oc_ex[un->fu], un->part);
        struct tm_inst *in = &s->inst[ii];
        un->busy_until = s->cycle + (in->lat.init ? in->lat.init : 1);
        if (in->tc5) { /* the SM's tcgen05 queue: after the operations dispatched before */
            const uint64_t t0 = s->tc5_free > s->cycle + 1 ? s->tc5_free : s->cycle + 1;
            s->tc5_free = t0 + in->tc5;
            s->st[TM_ST_TC5_BUSY] += in->tc5;
            in->t_ready = t0 + in->tc5 + in->lat.lat;
        } else {
            in->t_ready = ready_at(in, s->cycle + 1);
            if (in->tc_work) { /* its work starts when the unit's previous MMA's ends */
                const uint64_t t0 = un->mma_end > in->t_issue ? un->mma_end : in->t_issue;
                un->mma_end = t0 + in->tc_work;
                if (in->t_ready < t0 + in->lat.lat)
                    in->t_ready = t0 + in->lat.lat;
            }
        }
        tm_sm_heap_push(s, in->t_ready, ii);
        s->st[unit_dispatch_stat[un->fu]]++;
    }
    tm_sm_ldst_stage(s);
    tm_sm_tma_stage(s);
}

/* ====================================================================== writeback */

static void retire(struct tm_sm *s, uint32_t ii)
{
    struct tm_inst *in = &s->inst[ii];
    struct tm_warp *w = &s->w[in->warp];
    for (uint32_t i = 0; i < in->ndst; i++)
        sb_release(w, in->dst[i]);
    if (in->ca_ord) {
        w->ca_insts--;
        if (in->ca_kind == 1 && ca_in_flight(w, 2, in->ca_ord - 1))
            async_done(s, w, 2, in->ca_ord - 1); /* (read no later than completed) */
        async_done(s, w, in->ca_kind, in->ca_ord - 1);
    }
    w->inflight--;
    inst_release(s, ii);
    if (w->at_membar && w->inflight == w->ca_insts && w->mem_pending == w->ca_pending)
        w->at_membar = false; /* (a fence does not wait for asynchronous copies) */
    wc_mark(s, in->warp); /* its scoreboard, maybe its fence */
    tm_sm_warp_try_finish(s, w);
}

static void writeback_stage(struct tm_sm *s)
{
    uint32_t ports = s->cfg->pipe_width[TM_EX_WB];
    while (s->heap_n && s->heap[0].t <= s->cycle) {
        uint32_t ii = s->heap[0].inst;
        if (s->inst[ii].ndst) {
            if (!ports)
                break; /* out of writeback ports: the rest wait a cycle */
            ports--;
            s->st[TM_ST_WB]++;
        }
        heap_pop(s);
        retire(s, ii);
    }
}

/* ====================================================================== fetch and decode */

/* Fill w's instruction buffer from its PC: the instruction and, when it does not end a block,
 * the next one. */
static void decode(struct tm_warp *w)
{
    w->ib[0].f = w->func;
    w->ib[0].pc = w->pc;
    w->sbc = 0;
    w->uk = 0;
    w->nib = 1;
    const struct ir_insn *in = w->pc < w->func->ninsns ? &w->func->insns[w->pc] : NULL;
    if (in && !(in->iflags & (IF_TERM | IF_BRANCH | IF_CALL | IF_BARRIER)) &&
        w->pc + 1 <= w->func->ninsns) {
        w->ib[1].f = w->func;
        w->ib[1].pc = w->pc + 1;
        w->nib = 2;
    }
}

static void fetch_stage(struct tm_sm *s)
{
    const struct tm_config *cfg = s->cfg;
    uint32_t budget = (uint32_t)cfg->o.gpgpu_inst_fetch_throughput;
    /* running slots from fetch_rr on, wrapping (all slots when the masks are off) */
    uint32_t start = s->fetch_rr % s->nwarp_slots;
    uint64_t hi = ~UINT64_C(0), lo = 0;
    if (s->occ_ok) { /* (running warps whose buffer may be empty: the others are skipped) */
        uint64_t cand = s->occ_all & s->ibe;
        hi = cand >> start;
        lo = start ? cand & ((UINT64_C(1) << start) - 1) : 0;
    }
    for (uint32_t i = 0; i < s->nwarp_slots && budget; i++) {
        uint32_t ws;
        if (s->occ_ok) {
            if (hi) {
                ws = start + (uint32_t)__builtin_ctzll(hi);
                hi &= hi - 1;
            } else if (lo) {
                ws = (uint32_t)__builtin_ctzll(lo);
                lo &= lo - 1;
            } else {
                break;
            }
        } else {
            ws = (start + i) % s->nwarp_slots;
        }
        struct tm_warp *w = &s->w[ws];
        if (w->nib) {
            if (s->occ_ok)
                s->ibe &= ~(UINT64_C(1) << ws);
            continue;
        }
        if (!w->cta || w->done || w->fetching || w->at_bar || !w->func || w->ready_at > s->cycle)
            continue;
        budget--;
        s->fetch_rr = ws + 1;
        s->st[TM_ST_FETCH]++;
        if (s->l1i) {
            /* instruction addresses: the function's PTX line and the PC, so they are the same
             * run to run (16 bytes per instruction) */
            uint64_t addr = (UINT64_C(1) << 50) +
                            (((uint64_t)w->func->line << 20) + w->pc) * 16;
            uint32_t nsec = cfg->il1.line >= 32 ? cfg->il1.line / 32 : 1;
            enum tm_cache_res res = tm_cache_access(s->l1i, addr, (uint8_t)((1u << nsec) - 1),
                                                    false, NULL, ws, s->cycle);
            if (res == TM_CACHE_RESFAIL)
                continue;
            if (res != TM_CACHE_HIT) {
                s->st[TM_ST_FETCH_MISS]++;
                w->fetching = true;
                continue;
            }
        }
        decode(w);
        wc_mark(s, ws);
        if (s->occ_ok)
            s->ibe &= ~(UINT64_C(1) << ws);
    }
    /* the L1I's misses into the queue to memory */
    const struct tm_cache_out *o;
    if (s->l1i && (o = tm_cache_miss_peek(s->l1i)) && !tm_sm_req_full(s)) {
        struct tm_req rq = {.addr = o->addr, .t_sent = s->cycle, .inst = TM_NONE,
                            .sm = (uint16_t)s->id,
                            .bytes = (uint16_t)(32 * __builtin_popcount(o->sectors)),
                            .kind = TM_REQ_FETCH, .space = SP_NONE, .sectors = o->sectors,
                            .flags = TM_RQF_NOL1};
        tm_queue_push(&s->to_mem, &rq);
        tm_cache_miss_pop(s->l1i);
    }
}

/* ====================================================================== the cycle */

/* Warps parked at a barrier.cluster that a step elsewhere in the cluster (maybe on another
 * SM) released: re-query the CTAs whose kernel's epoch moved. */
static void cluster_requery(struct tm_sm *s)
{
    for (uint32_t i = 0; i < s->ncta_slots; i++) {
        struct tm_cta *c = &s->cta[i];
        if (!c->ec || c->k->csize < 2 || c->clu_seen == c->k->clu_epoch)
            continue;
        c->clu_seen = c->k->clu_epoch;
        cta_release(s, c);
    }
}

/* ====================================================================== quiet cycles */

static inline void min_after(uint64_t *m, uint64_t t, uint64_t now)
{
    if (t > now && t < *m)
        *m = t;
}

/* Is the SM's cycle s->cycle quiet — one that changes nothing but counters (and the
 * round-robin pointers tm_sm_wake advances)? Then the first later cycle at which a time
 * comparison of a stage flips (a completion, a response or L1 hit due, a unit or the LD/ST
 * unit freeing, a warp's launch latency ending), UINT64_MAX when none (only the memory system
 * or a new CTA can wake it); 0 when not quiet. Conservative: every stage is checked for work
 * it could do: no cluster CTAs, nothing due in the completion heap or the response queues,
 * the pipeline registers, collector units and LD/ST unit empty, no L1 miss to send, and no
 * running warp that could issue (not at a barrier or fence, buffer filled, launched, no
 * scoreboard hazard) or fetch. */
static uint64_t quiet_until(struct tm_sm *s)
{
    const uint64_t now = s->cycle;
    uint64_t m = UINT64_MAX;
    if (s->nclu || s->ldst_cur != TM_NONE || s->tma_n)
        return 0;
    if (s->heap_n) {
        if (s->heap[0].t <= now)
            return 0;
        m = s->heap[0].t;
    }
    const struct tm_req *r;
    if ((r = tm_queue_front((struct tm_queue *)&s->from_mem))) {
        if (r->t_ready <= now)
            return 0;
        min_after(&m, r->t_ready, now);
    }
    const struct tm_queue *hq[2] = {&s->l1_hit, &s->l1c_hit};
    for (int q = 0; q < 2; q++) /* the L1D's and L1C's hits */
        if ((r = tm_queue_front((struct tm_queue *)hq[q]))) {
            if (r->t_ready <= now)
                return 0;
            min_after(&m, r->t_ready, now);
        }
    if (s->tf_n) { /* the L1T's fragment FIFO: its head answers when its data is there */
        uint64_t t = s->tf[s->tf_head].t_ready;
        if (t <= now)
            return 0;
        if (t != UINT64_MAX)
            min_after(&m, t, now);
    }
    for (int f = 0; f < (int)s->nfu; f++) /* (one OC_EX_MEM set: the LD/ST unit is shared) */
        for (uint32_t p = 0; p < s->nparts; p++)
            if (s->id_oc[f].n[p] || s->oc_ex[f].n[f == TM_FU_MEM ? 0 : p])
                return 0;
    for (uint32_t i = 0; i < s->nparts * s->ncoll; i++)
        if (s->coll[i] != TM_NONE)
            return 0;
    if ((s->l1d && tm_cache_miss_peek(s->l1d)) || (s->l1i && tm_cache_miss_peek(s->l1i)) ||
        (s->l1c && tm_cache_miss_peek(s->l1c)) || (s->l1t && tm_cache_miss_peek(s->l1t)))
        return 0;
    for (uint32_t u = 0; u < s->nunit; u++)
        min_after(&m, s->unit[u].busy_until, now);
    min_after(&m, s->ldst_busy_until, now);
    if (s->occ_ok) {
        /* the warps by class, reclassified now (issue_fast's masks): one that may issue, one
         * that may fetch (only slots of ibe can have an empty buffer), the ends of launch and
         * sleep latencies (the slots that stay marked) */
        for (uint32_t k = 0; k < s->nsched; k++) {
            wc_refresh(s, k);
            if (s->wc[k * TM_WCLS + ST_PIPE])
                return 0; /* would issue */
            for (uint64_t d = s->wc_dirty[k]; d; d &= d - 1) {
                const struct tm_warp *w = &s->w[(uint32_t)__builtin_ctzll(d) * s->nsched + k];
                if (w->cta && !w->done)
                    min_after(&m, w->ready_at, now);
            }
        }
        for (uint64_t e = s->occ_all & s->ibe; e; e &= e - 1) {
            const struct tm_warp *w = &s->w[__builtin_ctzll(e)];
            if (w->cta && !w->done && w->ready_at <= now && !w->at_bar && !w->nib &&
                !w->fetching && w->func)
                return 0; /* would fetch */
        }
        return m;
    }
    uint64_t mask = s->occ_all;
    for (uint32_t i = 0; s->occ_ok ? mask != 0 : i < s->nwarp_slots; i++) {
        uint32_t ws = i;
        if (s->occ_ok) {
            ws = (uint32_t)__builtin_ctzll(mask);
            mask &= mask - 1;
        }
        const struct tm_warp *w = &s->w[ws];
        if (!w->cta || w->done)
            continue;
        if (w->ready_at > now) {
            min_after(&m, w->ready_at, now);
            continue;
        }
        if (w->at_bar)
            continue;
        if (!w->nib) {
            if (!w->fetching && w->func)
                return 0; /* would fetch */
            continue;
        }
        uint8_t fu;
        if (!w->at_membar && !w->at_async &&
            !(w->sbc ? w->sbc == 2 : head_blocked(s, w, &fu)))
            return 0; /* would issue */
    }
    return m;
}

void tm_sm_wake(struct tm_sm *s, uint64_t now)
{
    if (!s->sleep_until)
        return;
    uint64_t n = now > s->sleep_from ? now - s->sleep_from : 0;
    s->sleep_until = 0;
    if (!n)
        return;
    for (int i = 0; i < TM_ST__COUNT; i++)
        s->st[i] += s->sleep_d[i] * n;
    /* what every quiet cycle advances: the collector round robin, and the rotating
     * schedulers' start (rrr: each scheduler with warp slots; two-level: every scheduler
     * that did not issue) */
    s->coll_rr += (uint32_t)n;
    for (uint32_t k = 0; k < s->nsched; k++) {
        uint32_t per = (s->nwarp_slots + s->nsched - 1 - k) / s->nsched;
        if ((s->cfg->sched == TM_SCHED_RRR && per) || s->cfg->sched == TM_SCHED_TWO_LEVEL)
            s->rr_start[k] += (uint32_t)n;
    }
}

static int sm_cycle(struct tm_sm *s, struct tm_gpu *g)
{
    if (s->nclu)
        cluster_requery(s);
    s->st[TM_ST_CYCLES_ACTIVE]++;
    s->st[TM_ST_WARP_CYCLES] += s->warps_used;
    tm_sm_response_stage(s);
    writeback_stage(s);
    execute_stage(s);
    tm_sm_l1d_drain(s);
    operand_stage(s);
    int r = issue_stage(s, g, 0);
    if (r)
        return r; /* out of memory, or stopped (tm_sm_resume does the rest) */
    fetch_stage(s);
    return 0;
}

int tm_sm_resume(struct tm_sm *s, struct tm_gpu *g)
{
    uint32_t k = s->resume_k;
    s->resume_k = TM_NONE;
    s->par = false;
    if (issue_stage(s, g, k) < 0)
        return -1;
    fetch_stage(s);
    return 0;
}

bool tm_insn_shared(const struct ir_insn *in)
{
    if (!in)
        return false; /* the implicit return at the end of a body */
    if (in->iflags & IF_CALL)
        return true; /* printf, malloc, device functions (their bodies are stepped later) */
    if (in->unit != U_MEM && !(in->iflags & (IF_LOAD | IF_STORE | IF_ATOMIC)))
        return false;
    if (in->op != OP_LD && in->op != OP_ST && in->op != OP_ATOM && in->op != OP_RED &&
        in->op != OP_LDU)
        return true; /* texture, surface, bulk and async copies, fences, prefetches, … */
    switch (in->space) {
    case SP_SHARED: case SP_SHARED_CTA: case SP_LOCAL: case SP_CONST: case SP_PARAM:
    case SP_PARAM_ENTRY: case SP_PARAM_FUNC:
        return false;
    default:
        return true; /* global, generic (may be global), shared::cluster */
    }
}

int tm_sm_cycle(struct tm_sm *s, struct tm_gpu *g)
{
    tm_sm_wake(s, s->cycle);
    /* no skipping while the kernel is profiled (--timing-stats / --timing-report): its
     * per-PTX-line stall counters are charged cycle by cycle */
    uint64_t until = s->cfg->o.ptxemu_idle_skip && !(s->kernel && s->kernel->prof)
                         ? quiet_until(s) : 0;
    if (until <= s->cycle + 1)
        return sm_cycle(s, g);
    /* a quiet cycle: run it, remember what it counted, skip the next ones. It steps nothing
     * (no warp can issue and none is released), so it runs whole in a parallel phase too. */
    s->par = false;
    uint64_t st0[TM_ST__COUNT];
    memcpy(st0, s->st, sizeof st0);
    if (sm_cycle(s, g) < 0)
        return -1;
    for (int i = 0; i < TM_ST__COUNT; i++)
        s->sleep_d[i] = s->st[i] - st0[i];
    s->sleep_from = s->cycle + 1;
    s->sleep_until = until;
    s->sleep_nresp = s->from_mem.n;
    return 0;
}
