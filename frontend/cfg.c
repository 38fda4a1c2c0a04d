/*
 * frontend/cfg.c — basic blocks, edges, dominators, post-dominators and reconvergence PCs.
 *
 * Per function:
 *   1. leaders: PC 0, branch / brx.idx / breakaddr targets, the PC after every terminator
 *      (bra, brx.idx, ret, exit, trap, PTXPlus break/retp); call and brkpt fall through;
 *   2. edges (CSR arrays, deduplicated with a stamp array): guarded bra -> taken + fall,
 *      bra -> jump, brx.idx -> every table target (+ fall if guarded), exit/ret/trap -> the
 *      virtual exit (+ fall if guarded), falling off the end -> the virtual exit;
 *   3. reverse postorder from the entry, reachability, dominators (Cooper-Harvey-Kennedy);
 *      PTXPlus `break` jumps to the target of the nearest `breakaddr` found walking back
 *      through its block and then up the dominator tree, so those edges are added after a
 *      first dominator pass and everything is recomputed;
 *   4. blocks that cannot reach the virtual exit (infinite loops, and dead code looping on
 *      itself): Tarjan's SCCs of that subgraph; every sink SCC gets one virtual edge to the
 *      exit from its last block (highest PC: normally the latch), which makes every block reach
 *      the exit;
 *   5. post-dominators (Cooper-Harvey-Kennedy on the reverse graph rooted at the virtual exit),
 *      then ir_insn.reconv for every terminator = first PC of its block's ipdom.
 * Irreducible loops need nothing special (CHK iterates to the fixed point). Everything is
 * arrays: one scratch allocation per function and one allocation for the result.
 */
#include "frontend/cfg.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/diag.h"
#include "frontend/frontend.h"
#include "frontend/passes.h"

/* ================================================================= opcode classification */

static const char *const cfg_mnem[] = {
#define OP(id, mnem, fmt, unit, flags) mnem,
#include "frontend/ops.def"
#undef OP
};
static const unsigned cfg_opflags[] = {
#define OP(id, mnem, fmt, unit, flags) (unsigned)(flags),
#include "frontend/ops.def"
#undef OP
};
_Static_assert(sizeof cfg_mnem / sizeof cfg_mnem[0] == OP__COUNT, "ops.def mnemonics");
_Static_assert(sizeof cfg_opflags / sizeof cfg_opflags[0] == OP__COUNT, "ops.def flags");

enum cfg_kind { K_NORMAL, K_BRA, K_BRX, K_EXIT, K_BREAK, K_BREAKADDR, K_CALLP };

struct cfg_kinds {
    uint8_t k[OP__COUNT];
};

/* Control kind of every opcode. PTXPlus break/breakaddr/retp/callp are found by mnemonic so
 * this works whether or not ops.def has their rows. callp (a call to a subroutine label inside
 * the function) falls through like call; its label starts a block, and the subroutine, ending
 * in retp (an edge to the virtual exit), is reachable only through callp, so it is shown as
 * unreachable from the entry. */
static void cfg_kinds_init(struct cfg_kinds *t)
{
    for (unsigned op = 0; op < OP__COUNT; op++) {
        uint8_t k = K_NORMAL;
        if (op == OP_BRA)
            k = K_BRA;
        else if (op == OP_BRX)
            k = K_BRX;
        else if (op == OP_RET || op == OP_EXIT || op == OP_TRAP)
            k = K_EXIT;
        else if (strcmp(cfg_mnem[op], "retp") == 0)
            k = K_EXIT;
        else if (strcmp(cfg_mnem[op], "break") == 0)
            k = K_BREAK;
        else if (strcmp(cfg_mnem[op], "breakaddr") == 0)
            k = K_BREAKADDR;
        else if (strcmp(cfg_mnem[op], "callp") == 0)
            k = K_CALLP;
        else if (cfg_opflags[op] & IF_TERM)
            k = K_EXIT; /* an unknown terminator: conservatively leaves the function */
        t->k[op] = k;
    }
}

static unsigned cfg_kind_of(const struct cfg_kinds *t, const struct ir_insn *in)
{
    return in->op < OP__COUNT ? t->k[in->op] : K_NORMAL;
}

/* First operand of the given kind, or NULL. */
static const struct ir_opnd *cfg_find_opnd(const struct ir_func *f, const struct ir_insn *in,
                                           unsigned kind)
{
    for (unsigned i = 0; i < in->nopnd; i++) {
        const struct ir_opnd *o = ir_opnd(f, in, i);
        if (o->kind == kind)
            return o;
    }
    return NULL;
}

/* Entry count of an OPK_TABLE operand: n, or imm.u when the list is longer than 255. */
static uint32_t cfg_table_count(const struct ir_opnd *o)
{
    return o->imm.u > o->n ? (uint32_t)o->imm.u : o->n;
}

/* ========================================================================== diagnostics */

void cfg_error_at(FILE *diag, const struct ir_module *m, uint32_t line, uint32_t col,
                  const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vprint_at(diag, m ? m->filename : NULL, m ? m->text : NULL, m ? m->text_len : 0, line,
                   col, DIAG_ERROR, fmt, ap);
    va_end(ap);
}

/* ========================================================================= build state */

#define UNDEF UINT32_MAX

struct cfg_work {
    const struct ir_module *m;
    struct ir_func *f;
    FILE *diag;
    const struct cfg_kinds *kinds;
    uint32_t n, nb, exit; /* instructions, blocks, virtual exit id */

    uint32_t *bo;     /* n: PC -> block */
    uint32_t *first;  /* nb + 1: first PC of block (first[nb] = n) */
    uint32_t *brk;    /* nb: resolved break target block (PTXPlus), UNDEF if none */

    /* edges of the current graph (CSR over nb + 1 nodes; the exit has none) */
    struct cfg_edge *e;
    uint32_t ecap, ne;
    uint32_t *sstart; /* nb + 2 */
    uint32_t *pred;   /* ne */
    uint32_t *pstart; /* nb + 2 */

    /* per node scratch (nb + 1 each) */
    uint32_t *po, *order, *dom, *it, *stk, *stamp, *aux1, *aux2;
    uint8_t *flag;
    uint32_t norder;
};

static const struct cfg_edge *succ_of(const struct cfg_work *w, uint32_t b, uint32_t *cnt)
{
    *cnt = w->sstart[b + 1] - w->sstart[b];
    return w->e + w->sstart[b];
}

/* Build the edge lists of the current graph from the instructions (plus resolved breaks). */
static void cfg_make_edges(struct cfg_work *w)
{
    const struct ir_func *f = w->f;
    uint32_t ne = 0;
    for (uint32_t i = 0; i <= w->nb; i++)
        w->stamp[i] = UNDEF;
    for (uint32_t b = 0; b < w->nb; b++) {
        uint32_t last = w->first[b + 1] - 1;
        const struct ir_insn *in = &f->insns[last];
        unsigned k = cfg_kind_of(w->kinds, in);
        bool guarded = in->guard != IR_NOGUARD;
        uint32_t next = last + 1 < w->n ? w->bo[last + 1] : w->exit;
        uint8_t next_kind = last + 1 < w->n ? CE_FALL : CE_EXIT;
        w->sstart[b] = ne;
#define ADD(to_, kind_)                                                                       \
    do {                                                                                      \
        uint32_t t_ = (to_);                                                                  \
        if (w->stamp[t_] != b) {                                                              \
            w->stamp[t_] = b;                                                                 \
            w->e[ne].to = t_;                                                                 \
            w->e[ne].kind = (kind_);                                                          \
            ne++;                                                                             \
        }                                                                                     \
    } while (0)
        switch (k) {
        case K_BRA: {
            const struct ir_opnd *o = cfg_find_opnd(f, in, OPK_LABEL);
            uint32_t t = w->bo[o->imm.u];
            if (guarded) {
                ADD(t, CE_TAKEN);
                ADD(next, next_kind);
            } else {
                ADD(t, CE_JUMP);
            }
            break;
        }
        case K_BRX: {
            const struct ir_opnd *o = cfg_find_opnd(f, in, OPK_TABLE);
            uint32_t cnt = cfg_table_count(o);
            for (uint32_t i = 0; i < cnt; i++)
                ADD(w->bo[f->tables[o->first + i]], CE_TABLE);
            if (guarded)
                ADD(next, next_kind);
            break;
        }
        case K_EXIT:
            ADD(w->exit, CE_EXIT);
            if (guarded)
                ADD(next, next_kind);
            break;
        case K_BREAK:
            if (w->brk && w->brk[b] != UNDEF)
                ADD(w->brk[b], CE_BREAK);
            if (guarded)
                ADD(next, next_kind);
            break;
        default:
            ADD(next, next_kind);
            break;
        }
#undef ADD
    }
    w->sstart[w->nb] = ne;
    w->sstart[w->nb + 1] = ne;
    w->ne = ne;
}

/* Predecessor lists (CSR) from the successor lists, over nb + 1 nodes. */
static void cfg_make_preds(struct cfg_work *w)
{
    uint32_t nn = w->nb + 1;
    memset(w->pstart, 0, (nn + 1) * sizeof *w->pstart);
    for (uint32_t i = 0; i < w->ne; i++)
        w->pstart[w->e[i].to + 1]++;
    for (uint32_t i = 0; i < nn; i++)
        w->pstart[i + 1] += w->pstart[i];
    memcpy(w->it, w->pstart, nn * sizeof *w->it);
    for (uint32_t b = 0; b < nn; b++)
        for (uint32_t i = w->sstart[b]; i < w->sstart[b + 1]; i++)
            w->pred[w->it[w->e[i].to]++] = b;
}

/* Depth-first search from root, forward over successors (reverse = false) or backward over
 * predecessors: po[v] = postorder number (UNDEF if not visited), order = reverse postorder. */
static void cfg_dfs(struct cfg_work *w, uint32_t root, bool reverse)
{
    uint32_t nn = w->nb + 1, sp = 0, cnt = 0;
    for (uint32_t i = 0; i < nn; i++) {
        w->po[i] = UNDEF;
        w->it[i] = 0;
        w->flag[i] = 0;
    }
    w->flag[root] = 1;
    w->stk[sp++] = root;
    while (sp) {
        uint32_t v = w->stk[sp - 1];
        uint32_t deg, nxt = UNDEF;
        if (!reverse) {
            const struct cfg_edge *s = succ_of(w, v, &deg);
            if (w->it[v] < deg)
                nxt = s[w->it[v]].to;
        } else {
            deg = w->pstart[v + 1] - w->pstart[v];
            if (w->it[v] < deg)
                nxt = w->pred[w->pstart[v] + w->it[v]];
        }
        if (nxt != UNDEF) {
            w->it[v]++;
            if (!w->flag[nxt]) {
                w->flag[nxt] = 1;
                w->stk[sp++] = nxt;
            }
        } else {
            sp--;
            w->po[v] = cnt;
            w->aux1[cnt++] = v;
        }
    }
    for (uint32_t i = 0; i < cnt; i++)
        w->order[i] = w->aux1[cnt - 1 - i];
    w->norder = cnt;
}

static uint32_t cfg_intersect(const uint32_t *po, const uint32_t *dom, uint32_t a, uint32_t b)
{
    while (a != b) {
        while (po[a] < po[b])
            a = dom[a];
        while (po[b] < po[a])
            b = dom[b];
    }
    return a;
}

/* Cooper-Harvey-Kennedy: dom[] over the nodes of w->order (root first) using the postorder
 * numbers of the last cfg_dfs; the "predecessors" are successor lists when reverse. */
static void cfg_chk(struct cfg_work *w, bool reverse)
{
    uint32_t nn = w->nb + 1;
    for (uint32_t i = 0; i < nn; i++)
        w->dom[i] = UNDEF;
    if (!w->norder)
        return;
    uint32_t root = w->order[0];
    w->dom[root] = root;
    bool changed = true;
    while (changed) {
        changed = false;
        for (uint32_t i = 1; i < w->norder; i++) {
            uint32_t b = w->order[i], nd = UNDEF;
            uint32_t lo, hi;
            if (!reverse) {
                lo = w->pstart[b];
                hi = w->pstart[b + 1];
            } else {
                lo = w->sstart[b];
                hi = w->sstart[b + 1];
            }
            for (uint32_t j = lo; j < hi; j++) {
                uint32_t p = reverse ? w->e[j].to : w->pred[j];
                if (w->dom[p] == UNDEF)
                    continue;
                nd = nd == UNDEF ? p : cfg_intersect(w->po, w->dom, p, nd);
            }
            if (w->dom[b] != nd) {
                w->dom[b] = nd;
                changed = true;
            }
        }
    }
}

/* PTXPlus: resolve every block-ending `break` to the target of the nearest preceding
 * breakaddr (same block, then up the dominator tree). Needs dom[] from the forward pass. */
static int cfg_resolve_breaks(struct cfg_work *w)
{
    const struct ir_func *f = w->f;
    int nerr = 0;
    for (uint32_t b = 0; b < w->nb; b++) {
        w->brk[b] = UNDEF;
        uint32_t last = w->first[b + 1] - 1;
        if (cfg_kind_of(w->kinds, &f->insns[last]) != K_BREAK)
            continue;
        uint32_t blk = b, pc = last;
        while (blk != UNDEF && w->brk[b] == UNDEF) {
            for (uint32_t p = pc; p-- > w->first[blk];) {
                const struct ir_insn *in = &f->insns[p];
                if (cfg_kind_of(w->kinds, in) == K_BREAKADDR) {
                    const struct ir_opnd *o = cfg_find_opnd(f, in, OPK_LABEL);
                    w->brk[b] = w->bo[o->imm.u];
                    break;
                }
            }
            uint32_t up = w->dom[blk];
            blk = (up == blk) ? UNDEF : up;
            if (blk != UNDEF)
                pc = w->first[blk + 1];
        }
        if (w->brk[b] == UNDEF && w->dom[b] != UNDEF) {
            const struct ir_insn *in = &f->insns[last];
            cfg_error_at(w->diag, w->m, in->line, in->col,
                         "'break' without a dominating 'breakaddr'");
            nerr++;
        }
    }
    return nerr;
}

/* Tarjan's SCCs of the blocks that cannot reach the exit (flag[v] == 0 after the reverse DFS
 * from the exit); mark the last block of every sink SCC in virt[]. Returns how many. */
static uint32_t cfg_sink_sccs(struct cfg_work *w, uint8_t *virt)
{
    uint32_t nb = w->nb;
    uint32_t *index = w->po, *low = w->dom, *tpos = w->aux1, *cs = w->stk, *ts = w->order;
    uint32_t *comp = w->aux2;
    uint8_t *reach = w->flag;
    uint32_t idx = 0, csp = 0, tsp = 0, ncomp = 0, nv = 0;
    for (uint32_t i = 0; i < nb; i++) {
        index[i] = UNDEF;
        comp[i] = UNDEF;
        w->it[i] = 0;
        virt[i] = 0;
    }
    for (uint32_t r = 0; r < nb; r++) {
        if (reach[r] || index[r] != UNDEF)
            continue;
        index[r] = low[r] = idx++;
        tpos[r] = tsp;
        ts[tsp++] = r;
        cs[csp++] = r;
        while (csp) {
            uint32_t v = cs[csp - 1], deg;
            const struct cfg_edge *s = succ_of(w, v, &deg);
            if (w->it[v] < deg) {
                uint32_t x = s[w->it[v]++].to;
                if (x >= nb || reach[x])
                    continue;
                if (index[x] == UNDEF) {
                    index[x] = low[x] = idx++;
                    tpos[x] = tsp;
                    ts[tsp++] = x;
                    cs[csp++] = x;
                } else if (comp[x] == UNDEF && index[x] < low[v]) {
                    low[v] = index[x]; /* x is still on the Tarjan stack */
                }
                continue;
            }
            csp--;
            if (csp && low[v] < low[cs[csp - 1]])
                low[cs[csp - 1]] = low[v];
            if (low[v] != index[v])
                continue;
            uint32_t c = ncomp++, rep = v;
            bool sink = true;
            for (uint32_t i = tpos[v]; i < tsp; i++) {
                comp[ts[i]] = c;
                if (ts[i] > rep)
                    rep = ts[i];
            }
            for (uint32_t i = tpos[v]; i < tsp && sink; i++) {
                uint32_t d2;
                const struct cfg_edge *s2 = succ_of(w, ts[i], &d2);
                for (uint32_t j = 0; j < d2; j++)
                    if (s2[j].to < nb && comp[s2[j].to] != c) {
                        sink = false;
                        break;
                    }
            }
            tsp = tpos[v];
            if (sink) {
                virt[rep] = 1;
                nv++;
            }
        }
    }
    return nv;
}

/* Validate branch targets and mark leaders in bo[] (1 = leader). Returns errors. */
static int cfg_leaders(struct cfg_work *w, uint32_t *ntab, bool *has_break)
{
    const struct ir_func *f = w->f;
    uint32_t n = w->n;
    int nerr = 0;
    memset(w->bo, 0, n * sizeof *w->bo);
    w->bo[0] = 1;
    *ntab = 0;
    *has_break = false;
    for (uint32_t pc = 0; pc < n; pc++) {
        const struct ir_insn *in = &f->insns[pc];
        unsigned k = cfg_kind_of(w->kinds, in);
        if (k == K_NORMAL)
            continue;
        if (k == K_CALLP) {
            const struct ir_opnd *o = cfg_find_opnd(f, in, OPK_LABEL);
            if (o && o->imm.u < n)
                w->bo[o->imm.u] = 1;
            else if (o) {
                cfg_error_at(w->diag, w->m, in->line, in->col,
                             "callp target PC %llu is outside the function (%u instructions)",
                             (unsigned long long)o->imm.u, n);
                nerr++;
            }
            continue;
        }
        if (k == K_BRA || k == K_BREAKADDR) {
            const struct ir_opnd *o = cfg_find_opnd(f, in, OPK_LABEL);
            if (!o) {
                cfg_error_at(w->diag, w->m, in->line, in->col, "'%s' without a label operand",
                             cfg_mnem[in->op]);
                nerr++;
                continue;
            }
            if (o->imm.u >= n) {
                cfg_error_at(w->diag, w->m, in->line, in->col,
                             "branch target PC %llu is outside the function (%u instructions)",
                             (unsigned long long)o->imm.u, n);
                nerr++;
                continue;
            }
            w->bo[o->imm.u] = 1;
        } else if (k == K_BRX) {
            const struct ir_opnd *o = cfg_find_opnd(f, in, OPK_TABLE);
            uint32_t cnt = o ? cfg_table_count(o) : 0;
            if (!o || cnt == 0 || (uint64_t)o->first + cnt > f->ntables) {
                cfg_error_at(w->diag, w->m, in->line, in->col,
                             "brx.idx target list is missing or outside the function's tables");
                nerr++;
                continue;
            }
            for (uint32_t i = 0; i < cnt; i++) {
                uint32_t t = f->tables[o->first + i];
                if (t >= n) {
                    cfg_error_at(w->diag, w->m, in->line, in->col,
                                 "brx.idx target %u (PC %u) is outside the function", i, t);
                    nerr++;
                    continue;
                }
                w->bo[t] = 1;
            }
            *ntab += cnt;
        } else if (k == K_BREAK) {
            *has_break = true;
        }
        if (k != K_BREAKADDR && pc + 1 < n)
            w->bo[pc + 1] = 1;
    }
    return nerr;
}

/* ================================================================================ build */

static int cfg_build_k(const struct ir_module *m, struct ir_func *f, FILE *diag,
                       const struct cfg_kinds *kinds, struct cfg **out)
{
    struct cfg_work w;
    memset(&w, 0, sizeof w);
    w.m = m;
    w.f = f;
    w.diag = diag;
    w.n = f->ninsns;
    w.kinds = kinds;
    *out = NULL;
    int nerr = 0;
    void *scratch = NULL;
    uint8_t *virt = NULL;
    uint32_t n = w.n;

    if (n == 0) {
        struct cfg *c = calloc(1, sizeof *c + sizeof(struct cfg_block));
        if (!c)
            return -1;
        c->blocks = (struct cfg_block *)(c + 1);
        c->blocks[0].first = c->blocks[0].last = IR_NOPC;
        c->blocks[0].idom = c->blocks[0].ipdom = c->blocks[0].rpo = CFG_NONE;
        c->bytes = sizeof *c + sizeof(struct cfg_block);
        *out = c;
        return 0;
    }

    w.bo = malloc((size_t)n * sizeof *w.bo);
    if (!w.bo)
        return -1;
    uint32_t ntab;
    bool has_break;
    nerr = cfg_leaders(&w, &ntab, &has_break);
    if (nerr)
        goto fail;
    uint32_t nb = 0;
    for (uint32_t pc = 0; pc < n; pc++) {
        nb += w.bo[pc];
        w.bo[pc] = nb - 1;
    }
    w.nb = nb;
    w.exit = nb;

    /* scratch: first (nb+1), brk (nb), sstart/pstart (nb+2 each), 8 node arrays (nb+1),
     * flag (nb+1), virt (nb+1), edges (cap) and preds (cap) */
    uint64_t nn = (uint64_t)nb + 1;
    w.ecap = 2 * nb + ntab;
    size_t words = (size_t)(nn + nb + 2 * (nn + 1) + 8 * nn + w.ecap);
    size_t sbytes = words * sizeof(uint32_t) + (size_t)w.ecap * sizeof(struct cfg_edge) +
                    2 * (size_t)nn;
    scratch = malloc(sbytes);
    if (!scratch) {
        nerr = 1;
        goto fail;
    }
    w.e = scratch;
    uint32_t *p = (uint32_t *)(w.e + w.ecap);
    w.first = p, p += nn;
    w.brk = p, p += nb;
    w.sstart = p, p += nn + 1;
    w.pstart = p, p += nn + 1;
    w.po = p, p += nn;
    w.order = p, p += nn;
    w.dom = p, p += nn;
    w.it = p, p += nn;
    w.stk = p, p += nn;
    w.stamp = p, p += nn;
    w.aux1 = p, p += nn;
    w.aux2 = p, p += nn;
    w.pred = p, p += w.ecap;
    w.flag = (uint8_t *)p;
    virt = w.flag + nn;
    memset(virt, 0, nn);

    for (uint32_t pc = 0, b = 0; pc < n; pc++)
        if (pc == 0 || w.bo[pc] != w.bo[pc - 1])
            w.first[b++] = pc;
    w.first[nb] = n;
    for (uint32_t b = 0; b < nb; b++)
        w.brk[b] = UNDEF;

    /* forward graph, dominators */
    cfg_make_edges(&w);
    cfg_make_preds(&w);
    cfg_dfs(&w, 0, false);
    cfg_chk(&w, false);
    if (has_break) {
        nerr = cfg_resolve_breaks(&w);
        if (nerr)
            goto fail;
        cfg_make_edges(&w);
        cfg_make_preds(&w);
        cfg_dfs(&w, 0, false);
        cfg_chk(&w, false);
    }

    /* allocate the result and keep the forward facts */
    uint32_t nedge_max = w.ne + nb;
    size_t cbytes = sizeof(struct cfg) + (size_t)nn * sizeof(struct cfg_block) +
                    (size_t)nedge_max * (sizeof(struct cfg_edge) + sizeof(uint32_t)) +
                    (size_t)n * sizeof(uint32_t);
    struct cfg *c = malloc(cbytes);
    if (!c) {
        nerr = 1;
        goto fail;
    }
    c->ninsns = n;
    c->nblocks = nb;
    c->exit = nb;
    c->blocks = (struct cfg_block *)(c + 1);
    c->succ = (struct cfg_edge *)(c->blocks + nn);
    c->pred = (uint32_t *)(c->succ + nedge_max);
    c->block_of = c->pred + nedge_max;
    c->bytes = cbytes;
    memcpy(c->block_of, w.bo, (size_t)n * sizeof *w.bo);
    for (uint32_t b = 0; b < nn; b++) {
        struct cfg_block *blk = &c->blocks[b];
        memset(blk, 0, sizeof *blk);
        blk->first = b < nb ? w.first[b] : IR_NOPC;
        blk->last = b < nb ? w.first[b + 1] - 1 : IR_NOPC;
        blk->rpo = CFG_NONE;
        blk->idom = (b < nb && w.dom[b] != UNDEF && b != 0) ? w.dom[b] : CFG_NONE;
        if (b < nb && w.po[b] != UNDEF)
            blk->flags |= CB_REACHABLE;
        if (b < nb) {
            uint32_t lo = UINT32_MAX, hi = 0;
            for (uint32_t pc = blk->first; pc <= blk->last; pc++) {
                uint32_t l = f->insns[pc].line;
                lo = l < lo ? l : lo;
                hi = l > hi ? l : hi;
            }
            blk->line_lo = lo;
            blk->line_hi = hi;
        }
    }
    for (uint32_t i = 0; i < w.norder; i++)
        c->blocks[w.order[i]].rpo = i;

    /* which blocks reach the exit; virtual edges for the rest */
    cfg_dfs(&w, w.exit, true); /* flag[v] = reaches the exit */
    uint32_t nv = 0;
    if (w.norder < nn)
        nv = cfg_sink_sccs(&w, virt);
    c->nvirtual = nv;

    /* final successor lists with virtual edges, then predecessors */
    uint32_t ne = 0;
    for (uint32_t b = 0; b < nn; b++) {
        uint32_t deg;
        const struct cfg_edge *s = succ_of(&w, b, &deg);
        c->blocks[b].succ = ne;
        for (uint32_t i = 0; i < deg; i++) {
            c->succ[ne] = s[i];
            if (s[i].kind == CE_EXIT)
                c->blocks[b].flags |= CB_EXIT;
            ne++;
        }
        if (b < nb && virt[b]) {
            c->succ[ne].to = w.exit;
            c->succ[ne].kind = CE_VIRTUAL;
            ne++;
            c->blocks[b].flags |= CB_VIRTUAL;
        }
        c->blocks[b].nsucc = ne - c->blocks[b].succ;
    }
    c->nedges = ne;
    /* switch the work graph to the final edges (virtual edges included) */
    w.e = c->succ;
    w.ne = ne;
    w.pred = c->pred;
    for (uint32_t b = 0; b < nn; b++)
        w.sstart[b] = c->blocks[b].succ;
    w.sstart[nn] = ne;
    cfg_make_preds(&w);
    for (uint32_t b = 0; b < nn; b++) {
        c->blocks[b].pred = w.pstart[b];
        c->blocks[b].npred = w.pstart[b + 1] - w.pstart[b];
    }

    /* post-dominators on the reverse graph rooted at the virtual exit */
    cfg_dfs(&w, w.exit, true);
    cfg_chk(&w, true);
    for (uint32_t b = 0; b < nn; b++)
        c->blocks[b].ipdom = (b == w.exit || w.dom[b] == UNDEF) ? CFG_NONE : w.dom[b];

    /* reconvergence PCs */
    for (uint32_t pc = 0; pc < n; pc++)
        f->insns[pc].reconv = IR_NOPC;
    for (uint32_t b = 0; b < nb; b++) {
        struct ir_insn *in = &f->insns[c->blocks[b].last];
        unsigned k = cfg_kind_of(w.kinds, in);
        if (k == K_NORMAL || k == K_BREAKADDR || k == K_CALLP)
            continue;
        uint32_t ip = c->blocks[b].ipdom;
        in->reconv = (ip == CFG_NONE || ip == c->exit) ? IR_NOPC : c->blocks[ip].first;
    }

    free(scratch);
    free(w.bo);
    *out = c;
    return 0;

fail:
    free(scratch);
    free(w.bo);
    return -(nerr ? nerr : 1);
}

int cfg_build(const struct ir_module *m, struct ir_func *f, FILE *diag, struct cfg **out)
{
    struct cfg_kinds k;
    cfg_kinds_init(&k);
    return cfg_build_k(m, f, diag, &k, out);
}

void cfg_free(struct cfg *c)
{
    free(c);
}

void cfg_free_module(struct ir_module *m)
{
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        cfg_free(m->funcs[i].cfg);
        m->funcs[i].cfg = NULL;
    }
}

/* Build the CFG of every defined function of a module (passes.h). Errors in one function
 * do not stop the others; the count of errors is returned negated. */
int cfg_build_module(struct ir_module *m, FILE *diag)
{
    int nerr = 0;
    struct cfg_kinds k;
    cfg_kinds_init(&k);
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        struct ir_func *f = &m->funcs[i];
        cfg_free(f->cfg);
        f->cfg = NULL;
        if (!f->defined)
            continue;
        struct cfg *c;
        int r = cfg_build_k(m, f, diag, &k, &c);
        if (r < 0) {
            nerr += -r;
            continue;
        }
        f->cfg = c;
    }
    return -nerr;
}

bool cfg_dominates(const struct cfg *c, uint32_t a, uint32_t b)
{
    if (b >= c->nblocks || !(c->blocks[b].flags & CB_REACHABLE))
        return false;
    for (uint32_t x = b; x != CFG_NONE; x = c->blocks[x].idom)
        if (x == a)
            return true;
    return false;
}

bool cfg_postdominates(const struct cfg *c, uint32_t a, uint32_t b)
{
    for (uint32_t x = b, steps = 0; x != CFG_NONE && steps <= c->nblocks + 1;
         x = c->blocks[x].ipdom, steps++)
        if (x == a)
            return true;
    return false;
}

/* ==================================================== registers read before they are written */

/* Bit i of a bitmap. */
static inline bool cfg_bit(const uint64_t *b, uint32_t i)
{
    return (b[i >> 6] >> (i & 63)) & 1;
}

/* The declared registers an instruction defines for every lane that runs it: its destinations
 * when it is unguarded (a guarded write leaves the register as it was in lanes whose guard is
 * false). */
static void cfg_defs(const struct ir_func *f, uint32_t pc, const uint32_t *base, uint64_t *set)
{
    if (f->insns[pc].guard != IR_NOGUARD)
        return;
    uint32_t n;
    const struct ir_regref *r = ir_insn_regs(f, &f->insns[pc], &n);
    for (uint32_t i = 0; i < n && r[i].dst; i++)
        for (uint32_t k = 0; k < r[i].n && r[i].slot + k < f->ndeclared[r[i].rf]; k++) {
            uint32_t b = base[r[i].rf] + r[i].slot + k;
            set[b >> 6] |= UINT64_C(1) << (b & 63);
        }
}

/* IN of block b: nothing at the entry, else what every reachable predecessor's OUT has. */
static void cfg_block_in(const struct cfg *c, uint32_t b, const uint64_t *outs, size_t words,
                         uint64_t *in)
{
    memset(in, b == 0 ? 0 : 0xff, words * sizeof *in);
    if (b == 0)
        return;
    const struct cfg_block *bl = &c->blocks[b];
    for (uint32_t p = 0; p < bl->npred; p++) {
        uint32_t q = c->pred[bl->pred + p];
        if (q >= c->nblocks || c->blocks[q].rpo == CFG_NONE)
            continue;
        for (size_t w = 0; w < words; w++)
            in[w] &= outs[(size_t)q * words + w];
    }
}

int cfg_undef_regs(const struct ir_func *f, const struct cfg *c, uint64_t *const out[RF__COUNT])
{
    uint32_t base[RF__COUNT], nbits = 0;
    for (unsigned rf = 0; rf < RF__COUNT; rf++) {
        base[rf] = nbits;
        nbits += f->ndeclared[rf];
        if (out[rf])
            memset(out[rf], 0, ((f->ndeclared[rf] + 63) / 64) * sizeof(uint64_t));
    }
    const size_t words = (nbits + 63) / 64 ? (nbits + 63) / 64 : 1;
    uint64_t *mem = NULL;
    uint32_t *order = NULL;
    if (!c || !f->regrefs || (uint64_t)words * (c->nblocks + 1) > CFG_UNDEF_MAX_WORDS)
        goto all;
    mem = malloc((size_t)(c->nblocks + 1) * words * sizeof *mem);
    order = malloc((size_t)(c->nblocks + 1) * sizeof *order);
    if (!mem || !order)
        goto all;
    /* blocks in reverse postorder; OUT sets start at "everything defined" (the top of the
     * must-analysis lattice), the entry's IN is empty. The ranks count the virtual exit node
     * too (0 .. nblocks), and blocks that cannot reach the exit (a spin or trap loop) may come
     * after it: place by rank, then close the exit's gap. */
    uint32_t nord = 0;
    for (uint32_t i = 0; i <= c->nblocks; i++)
        order[i] = CFG_NONE;
    for (uint32_t b = 0; b < c->nblocks; b++)
        if (c->blocks[b].rpo != CFG_NONE && c->blocks[b].rpo <= c->nblocks)
            order[c->blocks[b].rpo] = b;
    for (uint32_t i = 0; i <= c->nblocks; i++)
        if (order[i] != CFG_NONE)
            order[nord++] = order[i];
    uint64_t *cur = mem + (size_t)c->nblocks * words;
    memset(mem, 0xff, (size_t)c->nblocks * words * sizeof *mem);
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = 0; i < nord; i++) {
            const struct cfg_block *bl = &c->blocks[order[i]];
            cfg_block_in(c, order[i], mem, words, cur);
            for (uint32_t pc = bl->first; pc <= bl->last; pc++)
                cfg_defs(f, pc, base, cur);
            uint64_t *o = mem + (size_t)order[i] * words;
            if (memcmp(o, cur, words * sizeof *cur)) {
                memcpy(o, cur, words * sizeof *cur);
                changed = true;
            }
        }
    }
    /* a read of a register not defined on every path to it: mark the register */
    for (uint32_t i = 0; i < nord; i++) {
        const struct cfg_block *bl = &c->blocks[order[i]];
        cfg_block_in(c, order[i], mem, words, cur);
        for (uint32_t pc = bl->first; pc <= bl->last; pc++) {
            uint32_t n;
            const struct ir_regref *r = ir_insn_regs(f, &f->insns[pc], &n);
            for (uint32_t j = 0; j < n; j++) {
                if (r[j].dst || r[j].rf >= RF__COUNT || !out[r[j].rf])
                    continue;
                for (uint32_t k = 0; k < r[j].n && r[j].slot + k < f->ndeclared[r[j].rf]; k++)
                    if (!cfg_bit(cur, base[r[j].rf] + r[j].slot + k))
                        out[r[j].rf][(r[j].slot + k) >> 6] |= UINT64_C(1) << ((r[j].slot + k) & 63);
            }
            cfg_defs(f, pc, base, cur);
        }
    }
    free(mem);
    free(order);
    return 0;
all:
    free(mem);
    free(order);
    for (unsigned rf = 0; rf < RF__COUNT; rf++)
        if (out[rf])
            for (uint32_t s = 0; s < f->ndeclared[rf]; s++)
                out[rf][s >> 6] |= UINT64_C(1) << (s & 63);
    return -1;
}

/* ============================================================================== printing */

static const char *const cfg_edge_names[] = {"fallthrough", "taken", "jump", "table",
                                             "break", "exit", "virtual"};

static void cfg_print_bref(FILE *out, const struct cfg *c, uint32_t b)
{
    if (b == CFG_NONE)
        fputs("-", out);
    else if (b == c->exit)
        fputs("exit", out);
    else
        fprintf(out, "B%u", b);
}

/* Record-label text: escape what Graphviz records treat specially. */
static void cfg_dot_escape(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (strchr("{}|<>\"\\", *s))
            fputc('\\', out);
        if (*s == '\n' || *s == '\t')
            fputc(' ', out);
        else
            fputc(*s, out);
    }
}

static void cfg_print_text(FILE *out, const struct ir_module *m, const struct ir_func *f)
{
    const struct cfg *c = f->cfg;
    fprintf(out, "%s %s: %u instructions, %u blocks", f->is_entry ? ".entry" : ".func",
            ir_str(m, f->name), f->ninsns, c->nblocks);
    if (c->nvirtual)
        fprintf(out, ", %u virtual exit edge%s", c->nvirtual, c->nvirtual == 1 ? "" : "s");
    fputc('\n', out);
    for (uint32_t b = 0; b < c->nblocks; b++) {
        const struct cfg_block *blk = &c->blocks[b];
        fprintf(out, "  B%u [pc %u..%u] ", b, blk->first, blk->last);
        if (blk->line_lo == blk->line_hi)
            fprintf(out, "line %u", blk->line_lo);
        else
            fprintf(out, "lines %u-%u", blk->line_lo, blk->line_hi);
        fputs((blk->flags & CB_REACHABLE) ? "\n" : " (unreachable)\n", out);
        fputs("    succs:", out);
        for (uint32_t i = 0; i < blk->nsucc; i++) {
            const struct cfg_edge *e = &c->succ[blk->succ + i];
            fputs(i ? ", " : " ", out);
            cfg_print_bref(out, c, e->to);
            if (e->kind != CE_EXIT)
                fprintf(out, " (%s)", cfg_edge_names[e->kind]);
        }
        fputs("\n    preds:", out);
        if (b == 0)
            fputs(" (entry)", out);
        for (uint32_t i = 0; i < blk->npred; i++) {
            fputs(i || b == 0 ? ", " : " ", out);
            cfg_print_bref(out, c, c->pred[blk->pred + i]);
        }
        fputs("\n    idom: ", out);
        cfg_print_bref(out, c, blk->idom);
        fputs("  ipdom: ", out);
        cfg_print_bref(out, c, blk->ipdom);
        fputc('\n', out);
        const struct ir_insn *in = &f->insns[blk->last];
        if (blk->nsucc - ((blk->flags & CB_VIRTUAL) ? 1 : 0) > 1) {
            fprintf(out, "    pc %u: ", blk->last);
            ir_print_insn(out, m, f, in);
            if (in->reconv == IR_NOPC)
                fputs("  -> reconverge at exit\n", out);
            else
                fprintf(out, "  -> reconverge at pc %u (B%u)\n", in->reconv,
                        c->block_of[in->reconv]);
        }
    }
}

static void cfg_print_dot(FILE *out, const struct ir_module *m, const struct ir_func *f)
{
    const struct cfg *c = f->cfg;
    const char *name = ir_str(m, f->name);
    fputs("digraph \"", out);
    cfg_dot_escape(out, name);
    fputs("\" {\n  node [shape=record, fontname=\"monospace\"];\n", out);
    char *buf = NULL;
    size_t len = 0;
    for (uint32_t b = 0; b < c->nblocks; b++) {
        const struct cfg_block *blk = &c->blocks[b];
        FILE *mem = open_memstream(&buf, &len);
        if (mem) {
            ir_print_insn(mem, m, f, &f->insns[blk->first]);
            fclose(mem);
        }
        fprintf(out, "  B%u [label=\"{B%u | pc %u..%u, ", b, b, blk->first, blk->last);
        if (blk->line_lo == blk->line_hi)
            fprintf(out, "line %u | ", blk->line_lo);
        else
            fprintf(out, "lines %u-%u | ", blk->line_lo, blk->line_hi);
        cfg_dot_escape(out, buf ? buf : "");
        if (blk->last != blk->first) {
            fputs(" | ... | ", out);
            free(buf);
            buf = NULL;
            mem = open_memstream(&buf, &len);
            if (mem) {
                ir_print_insn(mem, m, f, &f->insns[blk->last]);
                fclose(mem);
            }
            cfg_dot_escape(out, buf ? buf : "");
        }
        free(buf);
        buf = NULL;
        fprintf(out, "}\"%s];\n", (blk->flags & CB_REACHABLE) ? "" : ", style=dotted");
    }
    fputs("  exit [shape=doublecircle, label=\"exit\"];\n", out);
    for (uint32_t b = 0; b < c->nblocks; b++) {
        const struct cfg_block *blk = &c->blocks[b];
        for (uint32_t i = 0; i < blk->nsucc; i++) {
            const struct cfg_edge *e = &c->succ[blk->succ + i];
            fprintf(out, "  B%u -> ", b);
            cfg_print_bref(out, c, e->to);
            switch (e->kind) {
            case CE_TAKEN:
                fputs(" [label=\"T\"]", out);
                break;
            case CE_FALL:
                if (blk->nsucc > 1)
                    fputs(" [label=\"F\"]", out);
                break;
            case CE_TABLE:
                fputs(" [label=\"idx\"]", out);
                break;
            case CE_BREAK:
                fputs(" [label=\"break\"]", out);
                break;
            case CE_VIRTUAL:
                fputs(" [style=dotted, label=\"virtual\"]", out);
                break;
            default:
                break;
            }
            fputs(";\n", out);
        }
        const struct ir_insn *in = &f->insns[blk->last];
        if (blk->nsucc > 1 && in->reconv != IR_NOPC)
            fprintf(out, "  B%u -> B%u [style=dashed, color=blue, constraint=false, "
                         "label=\"reconv\"];\n",
                    b, c->block_of[in->reconv]);
    }
    fputs("}\n", out);
}

void cfg_print(FILE *out, const struct ir_module *m, const struct ir_func *f, bool dot)
{
    if (!f) {
        bool first = true;
        for (uint32_t i = 0; i < m->nfuncs; i++) {
            if (!m->funcs[i].defined)
                continue;
            if (!first)
                fputc('\n', out);
            first = false;
            cfg_print(out, m, &m->funcs[i], dot);
        }
        return;
    }
    if (!f->cfg) {
        fprintf(out, "%s %s: no CFG (%s)\n", f->is_entry ? ".entry" : ".func",
                ir_str(m, f->name), f->defined ? "not built" : "declaration only");
        return;
    }
    if (dot)
        cfg_print_dot(out, m, f);
    else
        cfg_print_text(out, m, f);
}
