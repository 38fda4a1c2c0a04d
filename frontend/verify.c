/*
 * frontend/verify.c — the IR verifier (passes.h): checks what the interpreter relies on
 * without re-checking it at run time.
 *
 *   - operands: indices inside ir_func.opnds; register operands inside the declared registers,
 *     constant / special-register slots inside [ndeclared, nslots) with a value image; labels,
 *     brx.idx tables, functions and symbols in range; guards in the predicate file;
 *   - the CFG: block ranges tile the function, edges in range; the dominator and
 *     post-dominator trees satisfy the parent property (for every edge u->v, idom(v) is an
 *     ancestor of u; ipdom(u) is an ancestor of v), which proves every tree ancestor really
 *     (post-)dominates — checked in linear time with pre/post numbers of the trees;
 *   - every terminator's reconv is the first PC of its block's ipdom (IR_NOPC for the virtual
 *     exit), and for functions of up to 4096 blocks, independently, that no path from the
 *     branch reaches the exit without passing its reconvergence block.
 * Messages are compiler diagnostics at the instruction (`file:line:col: error: …`).
 */
#include <stdlib.h>
#include <string.h>

#include "frontend/cfg.h"
#include "frontend/passes.h"

struct vctx {
    const struct ir_module *m;
    const struct ir_func *f;
    FILE *diag;
    int nerr;
};

#define VERR(v, in, ...)                                                                      \
    do {                                                                                      \
        (v)->nerr++;                                                                          \
        if ((v)->nerr <= 50)                                                                  \
            cfg_error_at((v)->diag, (v)->m, (in) ? (in)->line : (v)->f->line,                 \
                         (in) ? (in)->col : 1, __VA_ARGS__);                                  \
    } while (0)

/* ============================================================================= operands */

static void verify_opnd(struct vctx *v, const struct ir_insn *in, const struct ir_opnd *o,
                        unsigned idx, int depth)
{
    const struct ir_func *f = v->f;
    const struct ir_module *m = v->m;
    unsigned cnt = o->n ? o->n : 1;
    if (o->type == T_B128)
        cnt *= 2;
    switch (o->kind) {
    case OPK_REG:
        if (o->rf >= RF__COUNT || o->slot == IR_NOSLOT ||
            (uint64_t)o->slot + cnt > f->ndeclared[o->rf])
            VERR(v, in, "operand %u: register slot %u (file %u) is not a declared register "
                        "(%u declared)",
                 idx, o->slot, o->rf, o->rf < RF__COUNT ? f->ndeclared[o->rf] : 0);
        break;
    case OPK_IMM:
    case OPK_SYM:
    case OPK_SREG:
        if (o->rf >= RF__COUNT || o->slot == IR_NOSLOT || o->slot < f->ndeclared[o->rf] ||
            o->slot >= f->nslots[o->rf]) {
            VERR(v, in, "operand %u: constant/special slot %u (file %u) outside [%u, %u)", idx,
                 o->slot, o->rf, o->rf < RF__COUNT ? f->ndeclared[o->rf] : 0,
                 o->rf < RF__COUNT ? f->nslots[o->rf] : 0);
        } else if (o->kind != OPK_SREG && !f->const_vals[o->rf]) {
            VERR(v, in, "operand %u: constant slot without a value image", idx);
        }
        if (o->kind == OPK_SYM && o->sym >= m->nsyms)
            VERR(v, in, "operand %u: symbol %u out of range (%u symbols)", idx, o->sym,
                 m->nsyms);
        break;
    case OPK_ADDR:
    case OPK_PP_MEM:
        if (o->kind == OPK_PP_MEM && o->first != SP_GLOBAL && o->first != SP_SHARED &&
            o->first != SP_LOCAL && o->first != SP_CONST)
            VERR(v, in, "operand %u: PTXPlus memory operand space %u is not g/s/l/ce", idx,
                 o->first);
        if (o->slot != IR_NOSLOT &&
            (o->rf >= RF__COUNT || o->slot >= f->nslots[o->rf]))
            VERR(v, in, "operand %u: address base slot %u (file %u) out of range", idx, o->slot,
                 o->rf);
        if (o->sym != IR_NOSYM && o->sym >= m->nsyms)
            VERR(v, in, "operand %u: symbol %u out of range (%u symbols)", idx, o->sym,
                 m->nsyms);
        break;
    case OPK_VEC:
    case OPK_PARAMS:
    case OPK_TEX:
        if (o->kind == OPK_TEX && (o->imm.u < 1 || o->imm.u > 2 || o->imm.u > o->n))
            VERR(v, in, "operand %u: texture operand with %llu handles of %u elements", idx,
                 (unsigned long long)o->imm.u, o->n);
        if ((uint64_t)o->first + o->n > f->nopnds) {
            VERR(v, in, "operand %u: element list [%u, +%u) outside the operand array", idx,
                 o->first, o->n);
        } else if (depth == 0) {
            for (unsigned i = 0; i < o->n; i++)
                verify_opnd(v, in, &f->opnds[o->first + i], idx, 1);
        }
        break;
    case OPK_LABEL:
        if (o->imm.u >= f->ninsns)
            VERR(v, in, "operand %u: label PC %llu out of range (%u instructions)", idx,
                 (unsigned long long)o->imm.u, f->ninsns);
        break;
    case OPK_TABLE: {
        uint32_t n = o->imm.u > o->n ? (uint32_t)o->imm.u : o->n;
        if ((uint64_t)o->first + n > f->ntables) {
            VERR(v, in, "operand %u: target table [%u, +%u) outside the function's tables",
                 idx, o->first, n);
            break;
        }
        for (uint32_t i = 0; i < n; i++)
            if (f->tables[o->first + i] >= f->ninsns)
                VERR(v, in, "operand %u: table entry %u = PC %u out of range", idx, i,
                     f->tables[o->first + i]);
        break;
    }
    case OPK_FUNC:
        if (o->imm.u >= m->nfuncs)
            VERR(v, in, "operand %u: function %llu out of range (%u functions)", idx,
                 (unsigned long long)o->imm.u, m->nfuncs);
        break;
    default:
        break;
    }
}

static void verify_insns(struct vctx *v)
{
    const struct ir_func *f = v->f;
    for (uint32_t pc = 0; pc < f->ninsns; pc++) {
        const struct ir_insn *in = &f->insns[pc];
        if (in->op >= OP__COUNT) {
            VERR(v, in, "pc %u: opcode %u out of range", pc, in->op);
            continue;
        }
        if ((uint64_t)in->opnd + in->nopnd > f->nopnds) {
            VERR(v, in, "pc %u: operands [%u, +%u) outside the operand array", pc, in->opnd,
                 in->nopnd);
            continue;
        }
        if (in->guard != IR_NOGUARD && in->guard >= f->ndeclared[RF_PRED])
            VERR(v, in, "pc %u: guard predicate slot %u is not a declared predicate", pc,
                 in->guard);
        for (unsigned i = 0; i < in->nopnd; i++)
            verify_opnd(v, in, ir_opnd(f, in, i), i, 0);
        if (in->target != IR_NOPC) {
            uint32_t lim = (in->op == OP_CALL) ? v->m->nfuncs : f->ninsns;
            if (in->target >= lim)
                VERR(v, in, "pc %u: target %u out of range", pc, in->target);
        }
        if (in->reconv != IR_NOPC && in->reconv >= f->ninsns)
            VERR(v, in, "pc %u: reconvergence PC %u out of range", pc, in->reconv);
    }
    for (unsigned rf = 0; rf < RF__COUNT; rf++)
        if (f->ndeclared[rf] > f->nslots[rf])
            VERR(v, (const struct ir_insn *)NULL, "register file %u: %u declared > %u slots",
                 rf, f->ndeclared[rf], f->nslots[rf]);
    for (uint32_t i = 0; i < f->nsreg_slots; i++) {
        const struct ir_sreg_slot *s = &f->sreg_slots[i];
        if (s->rf >= RF__COUNT || s->slot < f->ndeclared[s->rf] || s->slot >= f->nslots[s->rf])
            VERR(v, (const struct ir_insn *)NULL, "special register slot %u out of range",
                 s->slot);
    }
}

/* ============================================================================ the CFG */

/* Pre/post numbers of a tree given by parent[] over nn nodes rooted at root (nodes not in the
 * tree keep UINT32_MAX). Returns 0, or -1 if some node's parent chain is broken. */
static int tree_numbers(const uint32_t *parent, uint32_t nn, uint32_t root, uint32_t *pre,
                        uint32_t *post, uint32_t *tmp)
{
    /* children CSR in tmp: cnt[nn+1] | child[nn] | stack[nn] | iter[nn] */
    uint32_t *start = tmp, *child = tmp + nn + 1, *stk = child + nn, *it = stk + nn;
    memset(start, 0, (nn + 1) * sizeof *start);
    for (uint32_t v = 0; v < nn; v++)
        if (v != root && parent[v] < nn)
            start[parent[v] + 1]++;
    for (uint32_t v = 0; v < nn; v++)
        start[v + 1] += start[v];
    memcpy(it, start, nn * sizeof *it);
    for (uint32_t v = 0; v < nn; v++)
        if (v != root && parent[v] < nn)
            child[it[parent[v]]++] = v;
    for (uint32_t v = 0; v < nn; v++) {
        pre[v] = post[v] = UINT32_MAX;
        it[v] = start[v];
    }
    uint32_t sp = 0, cpre = 0, cpost = 0;
    stk[sp++] = root;
    pre[root] = cpre++;
    while (sp) {
        uint32_t x = stk[sp - 1];
        if (it[x] < start[x + 1]) {
            uint32_t y = child[it[x]++];
            pre[y] = cpre++;
            stk[sp++] = y;
        } else {
            post[x] = cpost++;
            sp--;
        }
    }
    return 0;
}

/* a is an ancestor of b (reflexive) in the numbered tree */
static bool tree_anc(const uint32_t *pre, const uint32_t *post, uint32_t a, uint32_t b)
{
    return pre[a] != UINT32_MAX && pre[b] != UINT32_MAX && pre[a] <= pre[b] &&
           post[b] <= post[a];
}

/* Can the exit be reached from block b without entering block avoid? (iterative DFS) */
static bool reaches_exit_avoiding(const struct cfg *c, uint32_t b, uint32_t avoid,
                                  uint32_t *stamp, uint32_t mark, uint32_t *stk)
{
    uint32_t sp = 0;
    stk[sp++] = b;
    stamp[b] = mark;
    while (sp) {
        uint32_t x = stk[--sp];
        const struct cfg_block *blk = &c->blocks[x];
        for (uint32_t i = 0; i < blk->nsucc; i++) {
            uint32_t y = c->succ[blk->succ + i].to;
            if (y == avoid || stamp[y] == mark)
                continue;
            if (y == c->exit)
                return true;
            stamp[y] = mark;
            stk[sp++] = y;
        }
    }
    return false;
}

static void verify_cfg(struct vctx *v)
{
    const struct ir_func *f = v->f;
    const struct cfg *c = f->cfg;
    uint32_t nb = c->nblocks, nn = nb + 1;
    if (c->ninsns != f->ninsns || c->exit != nb) {
        VERR(v, (const struct ir_insn *)NULL, "CFG of %u instructions for a function of %u",
             c->ninsns, f->ninsns);
        return;
    }
    /* blocks tile the function */
    uint32_t expect = 0;
    for (uint32_t b = 0; b < nb; b++) {
        const struct cfg_block *blk = &c->blocks[b];
        if (blk->first != expect || blk->last < blk->first || blk->last >= f->ninsns) {
            VERR(v, (const struct ir_insn *)NULL, "block B%u [%u..%u] does not follow PC %u", b,
                 blk->first, blk->last, expect);
            return;
        }
        for (uint32_t pc = blk->first; pc <= blk->last; pc++)
            if (c->block_of[pc] != b) {
                VERR(v, &f->insns[pc], "pc %u: block_of says B%u, not B%u", pc,
                     c->block_of[pc], b);
                return;
            }
        for (uint32_t i = 0; i < blk->nsucc; i++)
            if ((uint64_t)blk->succ + i >= c->nedges || c->succ[blk->succ + i].to > nb) {
                VERR(v, (const struct ir_insn *)NULL, "block B%u: successor out of range", b);
                return;
            }
        expect = blk->last + 1;
    }
    if (expect != f->ninsns) {
        VERR(v, (const struct ir_insn *)NULL, "blocks end at PC %u, function at %u", expect,
             f->ninsns);
        return;
    }

    size_t words = (size_t)nn * 10 + 1;
    uint32_t *mem = malloc(words * sizeof *mem);
    if (!mem) {
        VERR(v, (const struct ir_insn *)NULL, "out of memory");
        return;
    }
    uint32_t *par = mem, *pre = par + nn, *post = pre + nn, *tmp = post + nn; /* tmp: 4nn+1 */
    uint32_t *stamp = tmp + 4 * nn + 1, *stk = stamp + nn;

    /* dominator tree parent property over reachable blocks */
    for (uint32_t b = 0; b < nn; b++)
        par[b] = (b < nb && (c->blocks[b].flags & CB_REACHABLE)) ? c->blocks[b].idom : UINT32_MAX;
    tree_numbers(par, nn, 0, pre, post, tmp);
    for (uint32_t u = 0; u < nb; u++) {
        if (!(c->blocks[u].flags & CB_REACHABLE))
            continue;
        if (u && pre[u] == UINT32_MAX)
            VERR(v, &f->insns[c->blocks[u].first], "B%u: reachable but not in the dominator tree",
                 u);
        const struct cfg_block *blk = &c->blocks[u];
        for (uint32_t i = 0; i < blk->nsucc; i++) {
            uint32_t w = c->succ[blk->succ + i].to;
            if (w >= nb || w == 0)
                continue;
            if (!tree_anc(pre, post, c->blocks[w].idom, u))
                VERR(v, &f->insns[blk->last], "edge B%u->B%u: idom(B%u) = B%u does not dominate B%u",
                     u, w, w, c->blocks[w].idom, u);
        }
    }

    /* post-dominator tree parent property on the reverse graph */
    for (uint32_t b = 0; b < nn; b++)
        par[b] = b == nb ? UINT32_MAX : c->blocks[b].ipdom;
    tree_numbers(par, nn, nb, pre, post, tmp);
    for (uint32_t u = 0; u < nb; u++) {
        const struct cfg_block *blk = &c->blocks[u];
        if (pre[u] == UINT32_MAX || blk->ipdom > nb) {
            VERR(v, &f->insns[blk->last], "B%u: no immediate post-dominator", u);
            continue;
        }
        for (uint32_t i = 0; i < blk->nsucc; i++) {
            uint32_t w = c->succ[blk->succ + i].to;
            if (!tree_anc(pre, post, blk->ipdom, w))
                VERR(v, &f->insns[blk->last],
                     "edge B%u->B%u: ipdom(B%u) does not post-dominate the successor", u, w, u);
        }
    }

    /* reconvergence PCs */
    bool deep = nb <= 4096;
    for (uint32_t b = 0; b < nn; b++)
        stamp[b] = UINT32_MAX;
    for (uint32_t b = 0; b < nb; b++) {
        const struct cfg_block *blk = &c->blocks[b];
        const struct ir_insn *in = &f->insns[blk->last];
        for (uint32_t pc = blk->first; pc < blk->last; pc++)
            if (f->insns[pc].reconv != IR_NOPC)
                VERR(v, &f->insns[pc], "pc %u: reconvergence PC on a non-terminator", pc);
        /* a block that can diverge (two real successors) must carry its reconvergence PC;
         * any other reconvergence PC present must agree with the ipdom too */
        uint32_t real = blk->nsucc - ((blk->flags & CB_VIRTUAL) ? 1 : 0);
        if ((real < 2 && in->reconv == IR_NOPC) || blk->ipdom > nb)
            continue;
        uint32_t want = blk->ipdom == nb ? IR_NOPC : c->blocks[blk->ipdom].first;
        if (in->reconv != want) {
            VERR(v, in, "pc %u: reconvergence PC %u, but the immediate post-dominator starts at %u",
                 blk->last, in->reconv, want);
            continue;
        }
        if (deep && in->reconv != IR_NOPC) {
            uint32_t r = c->block_of[in->reconv];
            if (r == b || reaches_exit_avoiding(c, b, r, stamp, b, stk))
                VERR(v, in, "pc %u: reconvergence PC %u does not post-dominate the branch",
                     blk->last, in->reconv);
        }
    }
    free(mem);
}

/* Verify every function of a module (passes.h). Returns 0 or minus the number of errors. */
int ir_verify(const struct ir_module *m, FILE *diag)
{
    struct vctx v = {m, NULL, diag, 0};
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        v.f = &m->funcs[i];
        if (!v.f->defined)
            continue;
        verify_insns(&v);
        if (v.f->cfg)
            verify_cfg(&v);
    }
    if (v.nerr > 50 && diag)
        fprintf(diag, "%s: %d more verifier errors not shown\n",
                m->filename ? m->filename : "<input>", v.nerr - 50);
    return -v.nerr;
}
