/*
 * tests/unit/cfg_test.c — CFG, dominators, post-dominators and reconvergence PCs on
 * hand-built instruction arrays (no parser): if/else, nested loops with break/continue, early
 * return, switch via brx.idx, multiple exits, infinite loops, an irreducible loop, recursion,
 * calls inside divergence, dead code; every shape's blocks, idom and ipdom asserted exactly.
 * Then diagnostics, the verifier on random CFGs, predecode on a hand-built module, and a
 * 1,000,000-instruction function (CPU time and bytes per instruction reported as diagnostics).
 * The passes on parsed PTX (predecoded facts, module cache, verifier, every fixture) are
 * passes_test.c.
 */
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "frontend/cfg.h"
#include "frontend/diag.h"
#include "frontend/frontend.h"
#include "frontend/passes.h"
#include "tests/tap.h"

/* ============================================================== a tiny instruction builder */

#define MAXI 64

struct tf {
    struct ir_module m;
    struct ir_func f;
    struct ir_insn in[MAXI];
    struct ir_opnd op[4 * MAXI];
    uint32_t tab[32];
};

static void tf_init(struct tf *t, const char *text)
{
    memset(t, 0, sizeof *t);
    t->m.filename = "t.ptx";
    t->m.text = (char *)text;
    t->m.text_len = text ? strlen(text) : 0;
    t->m.strtab = "\0f";
    t->m.funcs = &t->f;
    t->m.nfuncs = 1;
    t->f.name = 1;
    t->f.defined = 1;
    t->f.insns = t->in;
    t->f.opnds = t->op;
    t->f.tables = t->tab;
    for (unsigned rf = 0; rf < RF__COUNT; rf++)
        t->f.nslots[rf] = t->f.ndeclared[rf] = 4;
}

static struct ir_insn *emit(struct tf *t, enum ir_op op, int guard)
{
    struct ir_insn *in = &t->in[t->f.ninsns];
    memset(in, 0, sizeof *in);
    in->op = (uint16_t)op;
    in->guard = guard < 0 ? IR_NOGUARD : (uint32_t)guard;
    in->opnd = t->f.nopnds;
    in->target = IR_NOPC;
    in->reconv = 12345; /* must be overwritten */
    in->line = t->f.ninsns + 1;
    in->col = 2;
    t->f.ninsns++;
    return in;
}

static struct ir_opnd *add_opnd(struct tf *t, struct ir_insn *in, unsigned kind)
{
    struct ir_opnd *o = &t->op[t->f.nopnds++];
    memset(o, 0, sizeof *o);
    o->kind = (uint8_t)kind;
    o->slot = IR_NOSLOT;
    o->sym = IR_NOSYM;
    in->nopnd++;
    return o;
}

static void I(struct tf *t, enum ir_op op)
{
    emit(t, op, -1);
}

static void G(struct tf *t, enum ir_op op, int guard)
{
    emit(t, op, guard);
}

static void BRA(struct tf *t, int guard, uint32_t target)
{
    struct ir_insn *in = emit(t, OP_BRA, guard);
    add_opnd(t, in, OPK_LABEL)->imm.u = target;
}

static void BRX(struct tf *t, int guard, unsigned n, const uint32_t *targets)
{
    struct ir_insn *in = emit(t, OP_BRX, guard);
    struct ir_opnd *idx = add_opnd(t, in, OPK_REG);
    idx->rf = RF_B32;
    idx->slot = 0;
    struct ir_opnd *o = add_opnd(t, in, OPK_TABLE);
    o->first = t->f.ntables;
    o->n = (uint8_t)n;
    for (unsigned i = 0; i < n; i++)
        t->tab[t->f.ntables++] = targets[i];
}

static void CALL(struct tf *t, int guard, uint32_t func)
{
    struct ir_insn *in = emit(t, OP_CALL, guard);
    add_opnd(t, in, OPK_FUNC)->imm.u = func;
}

/* ====================================================================== summaries */

static void bref(char *s, const struct cfg *c, uint32_t b)
{
    char tmp[16];
    if (b == CFG_NONE)
        strcpy(tmp, "-");
    else if (b == c->exit)
        strcpy(tmp, "X");
    else
        snprintf(tmp, sizeof tmp, "%u", b);
    strcat(s, tmp);
}

/* "first-last>succ,succ ..." per block */
static const char *sum_blocks(const struct cfg *c)
{
    static char s[1024];
    s[0] = 0;
    for (uint32_t b = 0; b < c->nblocks; b++) {
        char tmp[32];
        snprintf(tmp, sizeof tmp, "%s%u-%u>", b ? " " : "", c->blocks[b].first,
                 c->blocks[b].last);
        strcat(s, tmp);
        for (uint32_t i = 0; i < c->blocks[b].nsucc; i++) {
            if (i)
                strcat(s, ",");
            bref(s, c, c->succ[c->blocks[b].succ + i].to);
        }
    }
    return s;
}

static const char *sum_idom(const struct cfg *c, bool post)
{
    static char s[2][512];
    char *p = s[post];
    p[0] = 0;
    for (uint32_t b = 0; b < c->nblocks; b++) {
        if (b)
            strcat(p, ",");
        bref(p, c, post ? c->blocks[b].ipdom : c->blocks[b].idom);
    }
    return p;
}

/* reconv of every block-ending branch/exit: "pc:reconv" with X for IR_NOPC */
static const char *sum_reconv(const struct tf *t, const struct cfg *c)
{
    static char s[512];
    s[0] = 0;
    for (uint32_t b = 0; b < c->nblocks; b++) {
        uint32_t pc = c->blocks[b].last;
        const struct ir_insn *in = &t->in[pc];
        if (in->op != OP_BRA && in->op != OP_BRX)
            continue;
        char tmp[32];
        if (in->reconv == IR_NOPC)
            snprintf(tmp, sizeof tmp, "%s%u:X", s[0] ? " " : "", pc);
        else
            snprintf(tmp, sizeof tmp, "%s%u:%u", s[0] ? " " : "", pc, in->reconv);
        strcat(s, tmp);
    }
    return s;
}

static const char *sum_reach(const struct cfg *c)
{
    static char s[256];
    uint32_t i = 0;
    for (uint32_t b = 0; b < c->nblocks && i < sizeof s - 1; b++)
        s[i++] = (c->blocks[b].flags & CB_REACHABLE) ? '1' : '0';
    s[i] = 0;
    return s;
}

/* Build, then check the four summaries and run the verifier. */
static void check(struct tf *t, const char *name, const char *blocks, const char *idom,
                  const char *ipdom, const char *reconv)
{
    struct cfg *c = NULL;
    int r = cfg_build(&t->m, &t->f, stderr, &c);
    is_int(r, 0, "%s: cfg_build", name);
    if (!c) {
        skip(5, "no cfg");
        return;
    }
    t->f.cfg = c;
    is_str(sum_blocks(c), blocks, "%s: blocks and successors", name);
    is_str(sum_idom(c, false), idom, "%s: idom", name);
    is_str(sum_idom(c, true), ipdom, "%s: ipdom", name);
    is_str(sum_reconv(t, c), reconv, "%s: reconvergence PCs", name);
    is_int(ir_verify(&t->m, stderr), 0, "%s: verifier accepts", name);
}

static void done(struct tf *t)
{
    cfg_free(t->f.cfg);
    t->f.cfg = NULL;
}

enum { P = 0, Q = 1, R = 2 }; /* predicate slots */

/* ========================================================================= the shapes */

static void test_if_else(void)
{
    struct tf t;
    tf_init(&t, NULL);
    I(&t, OP_SETP);       /* 0 */
    BRA(&t, P, 4);        /* 1  @p bra ELSE */
    I(&t, OP_ADD);        /* 2  then */
    BRA(&t, -1, 5);       /* 3 */
    I(&t, OP_SUB);        /* 4  else */
    I(&t, OP_ADD);        /* 5  join */
    I(&t, OP_EXIT);       /* 6 */
    check(&t, "if/else", "0-1>2,1 2-3>3 4-4>3 5-6>X", "-,0,0,0", "3,3,3,X", "1:5 3:5");
    done(&t);
}

static void test_nested_loops(void)
{
    struct tf t;
    tf_init(&t, NULL);
    I(&t, OP_MOV);        /* 0  i = 0 */
    I(&t, OP_SETP);       /* 1  outer header */
    BRA(&t, P, 15);       /* 2  -> done */
    I(&t, OP_MOV);        /* 3  j = 0 */
    I(&t, OP_SETP);       /* 4  inner header */
    BRA(&t, P, 13);       /* 5  -> after inner */
    I(&t, OP_SETP);       /* 6 */
    BRA(&t, Q, 13);       /* 7  break */
    I(&t, OP_SETP);       /* 8 */
    BRA(&t, R, 11);       /* 9  continue */
    I(&t, OP_ADD);        /* 10 body */
    I(&t, OP_ADD);        /* 11 inner latch: j++ */
    BRA(&t, -1, 4);       /* 12 */
    I(&t, OP_ADD);        /* 13 outer latch: i++ */
    BRA(&t, -1, 1);       /* 14 */
    I(&t, OP_EXIT);       /* 15 */
    check(&t, "nested loops with break/continue",
          "0-0>1 1-2>9,2 3-3>3 4-5>8,4 6-7>8,5 8-9>7,6 10-10>7 11-12>3 13-14>1 15-15>X",
          "-,0,1,2,3,4,5,5,3,1", "1,9,3,8,8,7,7,3,1,X", "2:15 5:13 7:13 9:11 12:4 14:1");
    done(&t);
}

static void test_early_return(void)
{
    struct tf t;
    tf_init(&t, NULL);
    I(&t, OP_SETP);       /* 0 */
    BRA(&t, P, 5);        /* 1 */
    I(&t, OP_SETP);       /* 2 */
    G(&t, OP_RET, Q);     /* 3  @q ret */
    I(&t, OP_ADD);        /* 4 */
    I(&t, OP_ST);         /* 5 */
    I(&t, OP_RET);        /* 6 */
    check(&t, "early return", "0-1>3,1 2-3>X,2 4-4>3 5-6>X", "-,0,1,0", "X,X,3,X", "1:X");
    is_uint(t.in[3].reconv, IR_NOPC, "early return: guarded ret reconverges at exit");
    done(&t);
}

static void test_switch(void)
{
    struct tf t;
    tf_init(&t, NULL);
    static const uint32_t tab[] = {2, 4, 6, 2};
    I(&t, OP_LD);         /* 0 */
    BRX(&t, -1, 4, tab);  /* 1  brx.idx %r, {2,4,6,2} */
    I(&t, OP_ADD);        /* 2 */
    BRA(&t, -1, 8);       /* 3 */
    I(&t, OP_SUB);        /* 4 */
    BRA(&t, -1, 8);       /* 5 */
    I(&t, OP_MUL);        /* 6 */
    I(&t, OP_ADD);        /* 7  falls into 8 */
    I(&t, OP_EXIT);       /* 8 */
    check(&t, "switch via brx.idx", "0-1>1,2,3 2-3>4 4-5>4 6-7>4 8-8>X", "-,0,0,0,0",
          "4,4,4,4,X", "1:8 3:8 5:8");
    done(&t);

    /* guarded brx.idx also falls through */
    tf_init(&t, NULL);
    static const uint32_t tab2[] = {3, 4};
    I(&t, OP_LD);         /* 0 */
    BRX(&t, P, 2, tab2);  /* 1 */
    I(&t, OP_ADD);        /* 2 */
    I(&t, OP_ADD);        /* 3 */
    I(&t, OP_EXIT);       /* 4 */
    check(&t, "guarded brx.idx", "0-1>2,3,1 2-2>2 3-3>3 4-4>X", "-,0,0,0", "3,2,3,X", "1:4");
    done(&t);
}

static void test_multiple_exits(void)
{
    struct tf t;
    tf_init(&t, NULL);
    I(&t, OP_SETP);       /* 0 */
    BRA(&t, P, 4);        /* 1 */
    I(&t, OP_ST);         /* 2 */
    I(&t, OP_EXIT);       /* 3 */
    I(&t, OP_SETP);       /* 4 */
    BRA(&t, Q, 7);        /* 5 */
    I(&t, OP_TRAP);       /* 6 */
    I(&t, OP_EXIT);       /* 7 */
    check(&t, "multiple exits", "0-1>2,1 2-3>X 4-5>4,3 6-6>X 7-7>X", "-,0,0,2,2", "X,X,X,X,X",
          "1:X 5:X");
    done(&t);
}

static void test_infinite_loops(void)
{
    struct tf t;
    tf_init(&t, NULL);
    I(&t, OP_SETP);       /* 0 */
    BRA(&t, P, 7);        /* 1  if (!p) while (1) { if (q) a; else b; } */
    I(&t, OP_SETP);       /* 2  loop header */
    BRA(&t, Q, 5);        /* 3 */
    I(&t, OP_ADD);        /* 4 */
    I(&t, OP_SUB);        /* 5  latch */
    BRA(&t, -1, 2);       /* 6 */
    I(&t, OP_EXIT);       /* 7 */
    check(&t, "infinite loop", "0-1>4,1 2-3>3,2 4-4>3 5-6>1,X 7-7>X", "-,0,1,1,0", "X,3,3,X,X",
          "1:X 3:5 6:X");
    is_uint(t.f.cfg->nvirtual, 1, "infinite loop: one virtual exit edge");
    ok(t.f.cfg->blocks[3].flags & CB_VIRTUAL, "infinite loop: the latch got it");
    done(&t);

    /* two infinite loops, one nested in the other's path, plus a self loop */
    tf_init(&t, NULL);
    I(&t, OP_SETP);       /* 0 */
    BRA(&t, P, 4);        /* 1 */
    I(&t, OP_ADD);        /* 2  self loop */
    BRA(&t, -1, 2);       /* 3 */
    I(&t, OP_SETP);       /* 4  loop A: may jump into loop B, never back */
    BRA(&t, Q, 7);        /* 5 */
    BRA(&t, -1, 4);       /* 6 */
    I(&t, OP_ADD);        /* 7  loop B */
    BRA(&t, -1, 7);       /* 8 */
    check(&t, "infinite loops without any exit", "0-1>2,1 2-3>1,X 4-5>4,3 6-6>2 7-8>4,X",
          "-,0,0,2,2", "X,X,4,2,X", "1:X 3:X 5:7 6:4 8:X");
    is_uint(t.f.cfg->nvirtual, 2, "two sink loops: two virtual edges");
    done(&t);
}

static void test_irreducible(void)
{
    struct tf t;
    tf_init(&t, NULL);
    I(&t, OP_SETP);       /* 0 */
    BRA(&t, P, 4);        /* 1  enter the loop at A or at B */
    I(&t, OP_ADD);        /* 2  A */
    BRA(&t, Q, 6);        /* 3 */
    I(&t, OP_SUB);        /* 4  B */
    BRA(&t, R, 2);        /* 5 */
    I(&t, OP_EXIT);       /* 6 */
    check(&t, "irreducible loop", "0-1>2,1 2-3>3,2 4-5>1,3 6-6>X", "-,0,0,0", "3,3,3,X",
          "1:6 3:6 5:6");
    done(&t);
}

static void test_calls(void)
{
    struct tf t;
    tf_init(&t, NULL);
    I(&t, OP_SETP);       /* 0 */
    BRA(&t, P, 4);        /* 1 */
    CALL(&t, -1, 0);      /* 2  recursive call: falls through */
    I(&t, OP_ADD);        /* 3 */
    I(&t, OP_RET);        /* 4 */
    check(&t, "recursion", "0-1>2,1 2-3>2 4-4>X", "-,0,0", "2,2,X", "1:4");
    done(&t);

    tf_init(&t, NULL);
    I(&t, OP_SETP);       /* 0 */
    BRA(&t, P, 4);        /* 1 */
    CALL(&t, -1, 0);      /* 2  call inside divergence */
    CALL(&t, Q, 0);       /* 3  guarded call: not a terminator */
    I(&t, OP_BRKPT);      /* 4  brkpt falls through */
    I(&t, OP_EXIT);       /* 5 */
    check(&t, "call inside divergence", "0-1>2,1 2-3>2 4-5>X", "-,0,0", "2,2,X", "1:4");
    done(&t);
}

static void test_misc(void)
{
    struct tf t;
    tf_init(&t, NULL);
    BRA(&t, -1, 3);       /* 0 */
    I(&t, OP_ADD);        /* 1  dead code looping on itself */
    BRA(&t, -1, 1);       /* 2 */
    I(&t, OP_EXIT);       /* 3 */
    check(&t, "dead code", "0-0>2 1-2>1,X 3-3>X", "-,-,0", "2,X,X", "0:3 2:X");
    is_str(sum_reach(t.f.cfg), "101", "dead code: reachability");
    done(&t);

    tf_init(&t, NULL);
    BRA(&t, P, 2);        /* 0 */
    I(&t, OP_ADD);        /* 1 */
    I(&t, OP_ADD);        /* 2  falls off the end: implicit return */
    check(&t, "falling off the end", "0-0>2,1 1-1>2 2-2>X", "-,0,0", "2,2,X", "0:2");
    done(&t);

    tf_init(&t, NULL);
    BRA(&t, P, 1);        /* 0  guarded branch to the next instruction */
    I(&t, OP_EXIT);       /* 1 */
    check(&t, "branch to the next PC", "0-0>1 1-1>X", "-,0", "1,X", "0:1");
    done(&t);

    tf_init(&t, NULL);
    BRA(&t, P, 0);        /* 0  single-block loop with an exit */
    I(&t, OP_EXIT);       /* 1 */
    check(&t, "self loop", "0-0>0,1 1-1>X", "-,0", "1,X", "0:1");
    done(&t);
}

/* ====================================================================== PTXPlus */

static void LBL(struct tf *t, enum ir_op op, int guard, uint32_t target)
{
    struct ir_insn *in = emit(t, op, guard);
    add_opnd(t, in, OPK_LABEL)->imm.u = target;
}

static void test_ptxplus(void)
{
    struct tf t;
    tf_init(&t, NULL);
    LBL(&t, OP_BREAKADDR, -1, 6); /* 0 */
    I(&t, OP_SETP);               /* 1 loop */
    G(&t, OP_BREAK, P);           /* 2 @p break -> 6 */
    I(&t, OP_ADD);                /* 3 */
    BRA(&t, -1, 1);               /* 4 */
    I(&t, OP_EXIT);               /* 5 dead */
    I(&t, OP_ST);                 /* 6 break target */
    I(&t, OP_EXIT);               /* 7 */
    check(&t, "PTXPlus breakaddr/break", "0-0>1 1-2>4,2 3-4>1 5-5>X 6-7>X", "-,0,1,-,1",
          "1,4,1,X,X", "4:1");
    is_uint(t.in[2].reconv, 6, "break reconverges at its target");
    is_str(sum_reach(t.f.cfg), "11101", "break: reachability");
    done(&t);

    tf_init(&t, NULL);
    I(&t, OP_SETP);               /* 0 */
    LBL(&t, OP_CALLP, -1, 4);     /* 1 callp sub: falls through */
    I(&t, OP_ADD);                /* 2 */
    I(&t, OP_EXIT);               /* 3 */
    I(&t, OP_ADD);                /* 4 sub */
    BRA(&t, P, 7);                /* 5 */
    I(&t, OP_ADD);                /* 6 */
    G(&t, OP_RETP, -1);           /* 7 */
    check(&t, "PTXPlus callp/retp", "0-3>X 4-5>3,2 6-6>3 7-7>X", "-,-,-,-", "X,3,3,X", "5:7");
    is_str(sum_reach(t.f.cfg), "1000", "callp: the subroutine is reached only through callp");
    done(&t);

    /* break without a breakaddr above it */
    tf_init(&t, NULL);
    I(&t, OP_SETP);
    G(&t, OP_BREAK, P);
    I(&t, OP_EXIT);
    struct cfg *c = NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    int r = cfg_build(&t.m, &t.f, mem, &c);
    fclose(mem);
    is_int(r, -1, "break without breakaddr: an error");
    is_str(buf, "t.ptx:2:2: error: 'break' without a dominating 'breakaddr'\n",
           "break without breakaddr: message");
    free(buf);
    cfg_free(c);
}

/* ======================================================================== printing */

/* Print to a string; the instruction text (frontend/print.c) is replaced by <I>. */
static char *print_cfg(const struct tf *t, bool dot)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    cfg_print(mem, &t->m, &t->f, dot);
    fclose(mem);
    if (dot)
        return buf;
    char *out = malloc(len + 1), *q = out;
    for (char *line = buf; *line;) {
        char *nl = strchr(line, '\n');
        size_t ll = nl ? (size_t)(nl - line + 1) : strlen(line);
        char *pcp = strstr(line, "    pc "), *arrow = strstr(line, "  -> ");
        if (pcp == line && arrow && arrow < line + ll) {
            char *colon = strstr(line, ": ");
            size_t head = (size_t)(colon - line) + 2;
            memcpy(q, line, head);
            q += head;
            memcpy(q, "<I>", 3);
            q += 3;
            memcpy(q, arrow, (size_t)(line + ll - arrow));
            q += line + ll - arrow;
        } else {
            memcpy(q, line, ll);
            q += ll;
        }
        line += ll;
    }
    *q = 0;
    free(buf);
    return out;
}

static void test_print(void)
{
    struct tf t;
    tf_init(&t, NULL);
    I(&t, OP_SETP);
    BRA(&t, P, 4);
    I(&t, OP_ADD);
    BRA(&t, -1, 5);
    I(&t, OP_SUB);
    I(&t, OP_ADD);
    I(&t, OP_EXIT);
    struct cfg *c;
    cfg_build(&t.m, &t.f, stderr, &c);
    t.f.cfg = c;
    char *s = print_cfg(&t, false);
    is_str(s, ".func f: 7 instructions, 4 blocks\n"
              "  B0 [pc 0..1] lines 1-2\n"
              "    succs: B2 (taken), B1 (fallthrough)\n"
              "    preds: (entry)\n"
              "    idom: -  ipdom: B3\n"
              "    pc 1: <I>  -> reconverge at pc 5 (B3)\n"
              "  B1 [pc 2..3] lines 3-4\n"
              "    succs: B3 (jump)\n"
              "    preds: B0\n"
              "    idom: B0  ipdom: B3\n"
              "  B2 [pc 4..4] line 5\n"
              "    succs: B3 (fallthrough)\n"
              "    preds: B0\n"
              "    idom: B0  ipdom: B3\n"
              "  B3 [pc 5..6] lines 6-7\n"
              "    succs: exit\n"
              "    preds: B1, B2\n"
              "    idom: B0  ipdom: exit\n",
           "cfg_print text");
    free(s);
    s = print_cfg(&t, true);
    ok(strncmp(s, "digraph \"f\" {\n", 14) == 0, "dot: digraph header");
    ok(strstr(s, "  B0 -> B2 [label=\"T\"];\n") != NULL, "dot: taken edge labelled T");
    ok(strstr(s, "  B0 -> B1 [label=\"F\"];\n") != NULL, "dot: fall edge labelled F");
    ok(strstr(s, "  B0 -> B3 [style=dashed, color=blue, constraint=false, label=\"reconv\"];\n"),
       "dot: dashed reconvergence edge");
    ok(strstr(s, "  B3 -> exit;\n") != NULL, "dot: exit edge");
    ok(strstr(s, "  B1 [label=\"{B1 | pc 2..3, lines 3-4 | ") != NULL, "dot: record node");
    ok(strlen(s) > 2 && strcmp(s + strlen(s) - 2, "}\n") == 0, "dot: closed");
    free(s);
    done(&t);

    /* infinite loop: virtual edge and unreachable block are shown */
    tf_init(&t, NULL);
    BRA(&t, -1, 2);
    I(&t, OP_ADD);
    BRA(&t, -1, 2);
    cfg_build(&t.m, &t.f, stderr, &c);
    t.f.cfg = c;
    s = print_cfg(&t, false);
    is_str(s, ".func f: 3 instructions, 3 blocks, 1 virtual exit edge\n"
              "  B0 [pc 0..0] line 1\n"
              "    succs: B2 (jump)\n"
              "    preds: (entry)\n"
              "    idom: -  ipdom: B2\n"
              "  B1 [pc 1..1] line 2 (unreachable)\n"
              "    succs: B2 (fallthrough)\n"
              "    preds:\n"
              "    idom: -  ipdom: B2\n"
              "  B2 [pc 2..2] line 3\n"
              "    succs: B2 (jump), exit (virtual)\n"
              "    preds: B0, B1, B2\n"
              "    idom: B0  ipdom: exit\n",
           "cfg_print: unreachable block, virtual edge");
    free(s);
    done(&t);
}

/* ===================================================================== diagnostics */

static void test_diagnostics(void)
{
    static const char text[] = "line one\n\tbra L;\n\t@%p bra.uni $L__x;\n";
    struct tf t;
    tf_init(&t, text);
    I(&t, OP_ADD);
    BRA(&t, -1, 1);
    BRA(&t, P, 99);
    t.in[2].line = 3;
    t.in[2].col = 7;
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    struct cfg *c = (struct cfg *)1;
    int r = cfg_build(&t.m, &t.f, mem, &c);
    fclose(mem);
    is_int(r, -1, "bad target: one error");
    ok(c == NULL, "bad target: no cfg");
    is_str(buf, "t.ptx:3:7: error: branch target PC 99 is outside the function (3 instructions)\n"
                "\t@%p bra.uni $L__x;\n"
                "\t     ^\n",
           "bad target: message, source line, caret");
    free(buf);
}

/* Every diagnostic goes through diag.c: the offset-based reporter of the builder and the
 * line/column printer of cfg.c, predecode.c, verify.c and the engine's loader print the same
 * bytes for the same position. */
static char *diag_at(const char *text, uint32_t line, uint32_t col)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    diag_print_at(mem, "d.ptx", text, text ? strlen(text) : 0, line, col, DIAG_ERROR, "bad %d", 7);
    fclose(mem);
    return buf;
}

static void test_diag_printer(void)
{
    static const char text[] = ".version 8.0\r\n\tadd.s32 %r1, %r2;\nret;";
    char *s = diag_at(text, 2, 10);
    is_str(s, "d.ptx:2:10: error: bad 7\n\tadd.s32 %r1, %r2;\n\t        ^\n",
           "line/col: message, source line (CRLF cut), caret after a tab");
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    struct diag d;
    diag_init(&d, mem, "d.ptx", text, strlen(text), 0);
    diag_report(&d, DIAG_ERROR, 23, "bad %d", 7); /* byte 23 = line 2, column 10 */
    fclose(mem);
    is_str(buf, s, "offset reporter prints the same bytes as the line/col printer");
    free(buf);
    free(s);
    s = diag_at(text, 3, 40);
    is_str(s, "d.ptx:3:40: error: bad 7\nret;\n    ^\n", "column past the end: caret at the end");
    free(s);
    s = diag_at(text, 9, 1);
    is_str(s, "d.ptx:9:1: error: bad 7\n", "no such line: the message alone");
    free(s);
    s = diag_at(NULL, 2, 3);
    is_str(s, "d.ptx:2:3: error: bad 7\n", "no text: the message alone");
    free(s);
    s = diag_at(text, 0, 0);
    is_str(s, "d.ptx: error: bad 7\n", "no position");
    free(s);
}

/* ======================================================================== predecode */

static struct ir_sym *mksym(struct ir_sym *s, unsigned space, unsigned type, unsigned vec,
                            unsigned align, uint64_t size, int func)
{
    memset(s, 0, sizeof *s);
    s->space = (uint8_t)space;
    s->type = (uint8_t)type;
    s->vec = (uint8_t)vec;
    s->align = align;
    s->size = size;
    s->func = func;
    s->line = 1;
    return s;
}

static struct ir_opnd *pop(struct tf *t, struct ir_insn *in, unsigned kind, unsigned type)
{
    struct ir_opnd *o = add_opnd(t, in, kind);
    o->type = (uint8_t)type;
    return o;
}

static struct ir_insn *pins(struct tf *t, enum ir_op op, unsigned t0, unsigned t1)
{
    struct ir_insn *in = emit(t, op, -1);
    in->type[0] = (uint8_t)t0;
    in->type[1] = (uint8_t)t1;
    in->vec = 1;
    return in;
}

static struct ir_opnd *preg(struct tf *t, struct ir_insn *in, unsigned rf, uint32_t slot,
                            unsigned type)
{
    struct ir_opnd *o = pop(t, in, OPK_REG, type);
    o->rf = (uint8_t)rf;
    o->slot = slot;
    return o;
}

static void test_predecode(void)
{
    /* module: f0 = .entry k(p0 .u32, p1 .u64, p2 .align 8 .b8[12]); f1 = .func (r0) g(q0);
     * f2 = .func h (declared, never defined); f3 = .extern .func vprintf */
    struct tf t;
    tf_init(&t, NULL);
    static struct ir_func fn[4];
    static struct ir_sym sy[20];
    memset(fn, 0, sizeof fn);
    fn[0] = t.f;
    fn[0].is_entry = 1;
    fn[1].defined = 1;
    fn[2].defined = 0;
    fn[3].defined = 0;
    fn[3].linkage = LNK_EXTERN;
    t.m.funcs = fn;
    t.m.nfuncs = 4;
    t.m.syms = sy;
    t.m.address_size = 64;
    t.m.strtab = "\0k\0g\0h\0vprintf";
    fn[0].name = 1, fn[1].name = 3, fn[2].name = 5, fn[3].name = 7;
    unsigned ns = 0;
    mksym(&sy[ns++], SP_GLOBAL, T_B32, 1, 0, 4, -1);           /* 0 a   -> 0 */
    mksym(&sy[ns++], SP_GLOBAL, T_B8, 1, 16, 3, -1);           /* 1 b   -> 16 */
    mksym(&sy[ns++], SP_GLOBAL, T_F32, 4, 0, 16, -1);          /* 2 c   -> 32 */
    mksym(&sy[ns++], SP_CONST, T_F64, 1, 0, 8, -1);            /* 3 k   -> 0 */
    mksym(&sy[ns++], SP_SHARED, T_B8, 1, 0, 5, -1);            /* 4 s1  -> 0 */
    mksym(&sy[ns++], SP_SHARED, T_B64, 1, 0, 8, 0);            /* 5 s2  -> 8 */
    mksym(&sy[ns++], SP_SHARED, T_B8, 1, 8, 0, -1)->linkage = LNK_EXTERN; /* 6 dyn -> 16 */
    mksym(&sy[ns++], SP_PARAM, T_U32, 1, 0, 4, 0);             /* 7 p0  -> 0 */
    mksym(&sy[ns++], SP_PARAM, T_U64, 1, 0, 8, 0);             /* 8 p1  -> 8 */
    mksym(&sy[ns++], SP_PARAM, T_B8, 1, 8, 12, 0);             /* 9 p2  -> 16 */
    mksym(&sy[ns++], SP_PARAM, T_B32, 1, 0, 4, 1);             /* 10 q0 -> 0 */
    mksym(&sy[ns++], SP_PARAM, T_B64, 1, 0, 8, 1);             /* 11 r0 -> 8 */
    mksym(&sy[ns++], SP_LOCAL, T_B32, 1, 0, 12, 0);            /* 12 l0 -> 0 */
    mksym(&sy[ns++], SP_PARAM, T_B32, 1, 0, 4, 0);             /* 13 arg (body) -> 12 */
    mksym(&sy[ns++], SP_GLOBAL, T_U64, 1, 0, 8, -1);           /* 14 d  -> 48 */
    t.m.nsyms = ns;
    fn[0].param = 7, fn[0].nparam = 3;
    fn[1].param = 10, fn[1].nparam = 1, fn[1].ret = 11, fn[1].nret = 1;
    fn[0].nslots[RF_PRED] = 1, fn[0].nslots[RF_B16] = 2, fn[0].nslots[RF_B32] = 4;
    fn[0].nslots[RF_B64] = 3;
    for (unsigned rf = 0; rf < RF__COUNT; rf++)
        fn[0].ndeclared[rf] = 0; /* the builder leaves nslots = declared */

    /* instructions of f0 (t.f is copied into fn[0] at the end) */
    t.f.ninsns = 0;
    t.f.nopnds = 0;
    struct ir_insn *in;
    in = pins(&t, OP_ADD, T_S32, 0);                         /* 0 add.s32 %r0, %r1, 1 */
    preg(&t, in, RF_B32, 0, T_S32);
    preg(&t, in, RF_B32, 1, T_S32);
    pop(&t, in, OPK_IMM, T_S32)->imm.i = 1;
    in = pins(&t, OP_ADD, T_S32, 0);                         /* 1 add.s32 %r0, %r1, 1 */
    preg(&t, in, RF_B32, 0, T_S32);
    preg(&t, in, RF_B32, 1, T_S32);
    pop(&t, in, OPK_IMM, T_S32)->imm.i = 1;
    in = pins(&t, OP_ADD, T_S32, 0);                         /* 2 add.s32 %r0, %r1, -1 */
    preg(&t, in, RF_B32, 0, T_S32);
    preg(&t, in, RF_B32, 1, T_S32);
    pop(&t, in, OPK_IMM, T_S32)->imm.i = -1;
    in = pins(&t, OP_MOV, T_U64, 0);                         /* 3 mov.u64 %rd0, c+4 */
    preg(&t, in, RF_B64, 0, T_U64);
    struct ir_opnd *o = pop(&t, in, OPK_SYM, T_U64);
    o->sym = 2;
    o->imm.i = 4;
    in = pins(&t, OP_MOV, T_U64, 0);                         /* 4 mov.u64 %rd0, 36 */
    preg(&t, in, RF_B64, 0, T_U64);
    pop(&t, in, OPK_IMM, T_U64)->imm.u = 36;
    in = pins(&t, OP_MOV, T_U32, 0);                         /* 5 mov.u32 %r2, %tid.x */
    preg(&t, in, RF_B32, 2, T_U32);
    pop(&t, in, OPK_SREG, T_U32)->sreg = SR_TID_X;
    in = pins(&t, OP_MOV, T_U16, 0);                         /* 6 mov.u16 %rh0, %tid.x */
    preg(&t, in, RF_B16, 0, T_U16);
    pop(&t, in, OPK_SREG, T_U16)->sreg = SR_TID_X;
    in = pins(&t, OP_MOV, T_U32, 0);                         /* 7 mov.u32 %r2, %tid.x */
    preg(&t, in, RF_B32, 2, T_U32);
    pop(&t, in, OPK_SREG, T_U32)->sreg = SR_TID_X;
    in = pins(&t, OP_ADD, T_F32, 0);                         /* 8 add.f32 %r3, %r3, 0f3F800000 */
    preg(&t, in, RF_B32, 3, T_F32);
    preg(&t, in, RF_B32, 3, T_F32);
    pop(&t, in, OPK_IMM, T_F32)->imm.u = 0x3f800000;
    in = pins(&t, OP_CVT, T_F64, T_S32);                     /* 9 cvt.rn.f64.s32 %rd1, %r0 */
    preg(&t, in, RF_B64, 1, T_F64);
    preg(&t, in, RF_B32, 0, T_S32);
    in = pins(&t, OP_LD, T_F32, 0);                          /* 10 ld.global.v4.f32 */
    in->space = SP_GLOBAL;
    in->vec = 4;
    preg(&t, in, RF_B32, 0, T_F32)->n = 4;
    o = pop(&t, in, OPK_ADDR, T_NONE);
    o->rf = RF_B64;
    o->slot = 0;
    in = pins(&t, OP_MOV, T_U64, 0);                         /* 11 mov.u64 %rd2, g */
    preg(&t, in, RF_B64, 2, T_U64);
    pop(&t, in, OPK_FUNC, T_U64)->imm.u = 1;
    in = pins(&t, OP_CALL, 0, 0);                            /* 12 call g */
    pop(&t, in, OPK_FUNC, T_NONE)->imm.u = 1;
    in = pins(&t, OP_CALL, 0, 0);                            /* 13 call h: undefined */
    pop(&t, in, OPK_FUNC, T_NONE)->imm.u = 2;
    in->line = 40;
    in->col = 5;
    in = pins(&t, OP_CALL, 0, 0);                            /* 14 call vprintf: extern, ok */
    pop(&t, in, OPK_FUNC, T_NONE)->imm.u = 3;
    in = pins(&t, OP_BRA, 0, 0);                             /* 15 bra.uni 16 */
    in->fl = IR_FL(FL_UNI);
    pop(&t, in, OPK_LABEL, T_NONE)->imm.u = 16;
    in = pins(&t, OP_ST, T_B64, 0);                          /* 16 st.shared.b64 [s2], 0 */
    in->space = SP_SHARED;
    o = pop(&t, in, OPK_ADDR, T_NONE);
    o->sym = 5;
    pop(&t, in, OPK_IMM, T_B64)->imm.u = 0;
    in = pins(&t, OP_MOV, T_U64, 0);                         /* 17 mov.u64 %rd0, a (sym 0+0) */
    preg(&t, in, RF_B64, 0, T_U64);
    pop(&t, in, OPK_SYM, T_U64)->sym = 0;
    in = pins(&t, OP_RET, 0, 0);                             /* 18 ret (in an .entry) */
    uint32_t n0 = t.f.ninsns;
    fn[0].insns = t.in;
    fn[0].ninsns = n0;
    fn[0].opnds = t.op;
    fn[0].nopnds = t.f.nopnds;
    fn[0].nregdecls = 0;

    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    int r = ir_predecode(&t.m, mem);
    fclose(mem);
    is_int(r, -1, "predecode: one error (call to an undefined function)");
    is_str(buf, "t.ptx:40:5: error: call to 'h', which is declared but never defined (declare "
                "it .extern if another module defines it)\n",
           "predecode: undefined callee diagnostic");
    free(buf);

    /* layout */
    char got[256];
    snprintf(got, sizeof got, "a=%llu b=%llu c=%llu d=%llu gsize=%llu k=%llu csize=%llu",
             (unsigned long long)sy[0].offset, (unsigned long long)sy[1].offset,
             (unsigned long long)sy[2].offset, (unsigned long long)sy[14].offset,
             (unsigned long long)t.m.global_size, (unsigned long long)sy[3].offset,
             (unsigned long long)t.m.const_size);
    is_str(got, "a=0 b=16 c=32 d=48 gsize=56 k=0 csize=8", "layout: global and const segments");
    snprintf(got, sizeof got, "s1=%llu s2=%llu static=%llu k.shared=%u dyn=%llu dynflag=%d",
             (unsigned long long)sy[4].offset, (unsigned long long)sy[5].offset,
             (unsigned long long)t.m.shared_size, fn[0].shared_size,
             (unsigned long long)sy[6].offset, !!(sy[6].flags & VF_DYNAMIC));
    /* s2 (named by k) first; s1 (no kernel reaches it) after it; dyn: past the end */
    is_str(got, "s1=8 s2=0 static=13 k.shared=8 dyn=16 dynflag=1", "layout: shared");
    snprintf(got, sizeof got, "p0=%llu p1=%llu p2=%llu k=%u q0=%llu r0=%llu g=%u",
             (unsigned long long)sy[7].offset, (unsigned long long)sy[8].offset,
             (unsigned long long)sy[9].offset, fn[0].param_size,
             (unsigned long long)sy[10].offset, (unsigned long long)sy[11].offset,
             fn[1].param_size);
    is_str(got, "p0=0 p1=8 p2=16 k=28 q0=0 r0=8 g=16", "layout: parameter blocks");
    snprintf(got, sizeof got, "l0=%llu arg=%llu frame=%u", (unsigned long long)sy[12].offset,
             (unsigned long long)sy[13].offset, fn[0].local_size);
    is_str(got, "l0=0 arg=12 frame=16", "layout: local frame with body .param variables");

    /* slots */
    const struct ir_func *f = &fn[0];
    snprintf(got, sizeof got, "decl=%u,%u,%u,%u slots=%u,%u,%u,%u", f->ndeclared[0],
             f->ndeclared[1], f->ndeclared[2], f->ndeclared[3], f->nslots[0], f->nslots[1],
             f->nslots[2], f->nslots[3]);
    /* b16: tid.x(u16); b32: 1, -1, tid.x, 1.0f; b64: c+4, 36, g, 0, a */
    is_str(got, "decl=1,2,4,3 slots=1,3,8,8", "slots: declared and added per file");
    const struct ir_opnd *O = t.op;
    is_uint(O[t.in[0].opnd + 2].slot, 4, "imm 1 -> first b32 constant slot");
    is_uint(O[t.in[1].opnd + 2].slot, 4, "identical immediates share a slot");
    is_uint(O[t.in[2].opnd + 2].slot, 5, "imm -1 -> next slot");
    is_uint(f->const_vals[RF_B32][1], 0xffffffffu, "imm -1 image truncated to 32 bits");
    is_uint(f->const_vals[RF_B32][3], 0x3f800000u, "f32 immediate image");
    ok(O[t.in[0].opnd + 2].flags & OPF_CONST, "immediate flagged OPF_CONST");
    is_uint(O[t.in[3].opnd + 1].slot, 3, "sym c+4 -> first b64 constant slot");
    is_uint(f->const_vals[RF_B64][0], 36, "sym image = offset 32 + 4");
    is_uint(O[t.in[4].opnd + 1].slot, 4, "imm 36 does not share the symbol's slot");
    is_uint(O[t.in[5].opnd + 1].slot, 6, "tid.x (u32) -> b32 sreg slot");
    is_uint(O[t.in[7].opnd + 1].slot, 6, "second tid.x read shares it");
    is_uint(O[t.in[6].opnd + 1].rf, RF_B16, "tid.x read as u16 -> b16 file");
    is_uint(O[t.in[6].opnd + 1].slot, 2, "... in its own slot");
    is_uint(f->nsreg_slots, 2, "two sreg slots");
    ok(f->sreg_slots[0].sreg == SR_TID_X && f->sreg_slots[0].rf == RF_B32 &&
           f->sreg_slots[0].slot == 6,
       "sreg slot record");
    is_uint(f->naddr_slots, 3, "three address slots (c+4, g, a)");
    ok(f->addr_slots[0].sym == 2 && f->addr_slots[0].addend == 4 &&
           f->addr_slots[0].space == SP_GLOBAL && !f->addr_slots[0].is_func &&
           f->addr_slots[0].slot == 3 && f->addr_slots[0].rf == RF_B64,
       "address slot record for c+4");
    ok(f->addr_slots[1].is_func && f->addr_slots[1].sym == 1, "function value slot record");
    is_uint(f->const_vals[RF_B64][4], 0, "sym a+0 image 0 ...");
    is_uint(O[t.in[17].opnd + 1].slot, 7, "... in its own slot, not imm 0's (slot 6)");
    is_uint(O[t.in[16].opnd + 1].slot, 6, "st imm 0 b64 slot");
    is_uint(O[t.in[10].opnd + 1].slot, 0, "address operand keeps its base register");

    /* timing facts */
    is_uint(t.in[0].unit, U_INT, "add.s32 -> INT");
    is_uint(t.in[8].unit, U_SP, "add.f32 -> SP");
    is_uint(t.in[9].unit, U_DP, "cvt.f64.s32 -> DP");
    is_uint(t.in[10].unit, U_MEM, "ld -> MEM");
    is_uint(t.in[10].width, 4, "ld.v4.f32 width 4 per element");
    is_uint(t.in[16].width, 8, "st.b64 width 8");
    is_uint(t.in[15].iflags, IF_BRANCH | IF_TERM | IF_UNIFORM, "bra.uni flags");
    is_uint(t.in[15].target, 16, "bra target");
    is_uint(t.in[12].target, 1, "call target = function index");
    is_uint(t.in[12].iflags, IF_CALL, "call flags");
    is_uint(t.in[18].iflags, IF_RET | IF_TERM | IF_EXIT, "ret in an entry also exits");
    is_uint(t.in[0].target, IR_NOPC, "no target on add");

    fn[2].defined = 1; /* silence the callee error for the verifier run below */
    fn[2].ninsns = 0;
    fn[1].ninsns = 0;
    is_int(ir_verify(&t.m, stderr), 0, "verifier accepts the predecoded function");
    /* running predecode again gives the same slots */
    uint32_t before = f->nslots[RF_B32];
    is_int(ir_predecode(&t.m, NULL), 0, "predecode again: no errors");
    is_uint(f->nslots[RF_B32], before, "predecode again: same slot count");
    is_uint(O[t.in[2].opnd + 2].slot, 5, "predecode again: same slot");
    struct cfg *c;
    is_int(cfg_build(&t.m, &fn[0], stderr, &c), 0, "cfg of the predecoded function");
    fn[0].cfg = c;
    is_int(ir_verify(&t.m, stderr), 0, "verifier accepts it with its CFG");
    ir_passes_free(&t.m);
    ok(fn[0].cfg == NULL && fn[0].pd_mem == NULL && fn[0].const_vals[RF_B32] == NULL,
       "ir_passes_free resets");
}

/* ================================================================ random CFGs + verifier */

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Dominator and post-dominator sets by brute-force dataflow over bit sets (at most 64 nodes),
 * on the CFG's own edges (virtual edges included); returns how many idom/ipdom differ. */
static int brute_check(const struct cfg *c)
{
    uint32_t nn = c->nblocks + 1, ex = c->exit;
    uint64_t all = nn == 64 ? ~0ull : (1ull << nn) - 1, pd[64], dm[64];
    for (uint32_t b = 0; b < nn; b++) {
        pd[b] = b == ex ? 1ull << ex : all;
        dm[b] = b == 0 ? 1ull : all;
    }
    for (bool ch = true; ch;) {
        ch = false;
        for (uint32_t b = 0; b < c->nblocks; b++) {
            const struct cfg_block *k = &c->blocks[b];
            uint64_t x = all;
            for (uint32_t i = 0; i < k->nsucc; i++)
                x &= pd[c->succ[k->succ + i].to];
            x |= 1ull << b;
            if (x != pd[b])
                pd[b] = x, ch = true;
            if (b == 0 || !(k->flags & CB_REACHABLE))
                continue;
            uint64_t y = all;
            for (uint32_t i = 0; i < k->npred; i++) {
                uint32_t p = c->pred[k->pred + i];
                if (p < c->nblocks && (c->blocks[p].flags & CB_REACHABLE))
                    y &= dm[p];
            }
            y |= 1ull << b;
            if (y != dm[b])
                dm[b] = y, ch = true;
        }
    }
    int bad = 0;
    for (uint32_t b = 0; b < c->nblocks; b++) {
        /* the immediate one is the strict (post-)dominator with the largest set */
        uint32_t ip = CFG_NONE, id = CFG_NONE;
        int best = -1;
        for (uint32_t d = 0; d < nn; d++)
            if (d != b && (pd[b] >> d & 1) && __builtin_popcountll(pd[d]) > best)
                best = __builtin_popcountll(pd[d]), ip = d;
        best = -1;
        if (b && (c->blocks[b].flags & CB_REACHABLE))
            for (uint32_t d = 0; d < c->nblocks; d++)
                if (d != b && (dm[b] >> d & 1) && __builtin_popcountll(dm[d]) > best)
                    best = __builtin_popcountll(dm[d]), id = d;
        if (ip != c->blocks[b].ipdom || id != c->blocks[b].idom)
            bad++;
    }
    return bad;
}

/* Random functions of bra / guarded bra / exit / brx / plain instructions: the verifier checks
 * every reconvergence PC post-dominates its branch by an independent search. */
static void test_random(void)
{
    uint64_t s = 0x9e3779b97f4a7c15ull;
    int bad = 0, built = 0, brute = 0;
    for (int iter = 0; iter < 2000; iter++) {
        struct tf t;
        tf_init(&t, NULL);
        unsigned n = 2 + rng_next(&s) % 40;
        for (unsigned pc = 0; pc < n; pc++) {
            unsigned r = rng_next(&s) % 10;
            uint32_t tgt = rng_next(&s) % n;
            if (r < 4)
                I(&t, OP_ADD);
            else if (r < 6)
                BRA(&t, P, tgt);
            else if (r < 7)
                BRA(&t, -1, tgt);
            else if (r < 8)
                G(&t, OP_EXIT, rng_next(&s) % 2 ? P : -1);
            else if (r < 9 && t.f.ntables + 3 <= 32) {
                uint32_t tab[3] = {tgt, rng_next(&s) % n, rng_next(&s) % n};
                BRX(&t, rng_next(&s) % 2 ? P : -1, 3, tab);
            } else
                I(&t, OP_RET);
        }
        struct cfg *c;
        if (cfg_build(&t.m, &t.f, stderr, &c) != 0) {
            bad++;
            continue;
        }
        built++;
        t.f.cfg = c;
        if (ir_verify(&t.m, stderr) != 0)
            bad++;
        brute += brute_check(c);
        /* every block but the exit has an ipdom, every reachable block but 0 an idom */
        for (uint32_t b = 0; b < c->nblocks; b++) {
            if (c->blocks[b].ipdom == CFG_NONE)
                bad++;
            if (b && (c->blocks[b].flags & CB_REACHABLE) && c->blocks[b].idom == CFG_NONE)
                bad++;
            if (!cfg_postdominates(c, c->exit, b))
                bad++;
        }
        done(&t);
    }
    is_int(built, 2000, "random CFGs: all built");
    is_int(bad, 0, "random CFGs: verifier and invariants hold");
    is_int(brute, 0, "random CFGs: idom and ipdom equal brute-force dataflow");
}

/* =============================================================== a million instructions */

/* CPU time of this thread: steadier than the wall clock on a shared machine. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Loops of if/else diamonds, 1,000,000 instructions in one function. */
static void test_big(void)
{
    const uint32_t n = 1000000;
    struct ir_insn *in = calloc(n, sizeof *in);
    struct ir_opnd *op = calloc(3 * (size_t)n, sizeof *op);
    struct ir_module m;
    struct ir_func f;
    memset(&m, 0, sizeof m);
    memset(&f, 0, sizeof f);
    m.filename = "big.ptx";
    m.strtab = "\0big";
    m.funcs = &f;
    m.nfuncs = 1;
    f.name = 1;
    f.defined = 1;
    f.insns = in;
    f.opnds = op;
    f.nslots[RF_PRED] = f.ndeclared[RF_PRED] = 1;
    uint32_t no = 0;
    /* pattern of 10: 0 setp; 1 @p bra +4 (5); 2 add; 3 add; 4 bra +6 (6... */
    for (uint32_t pc = 0; pc < n; pc++) {
        struct ir_insn *x = &in[pc];
        x->guard = IR_NOGUARD;
        x->target = IR_NOPC;
        x->line = pc + 1;
        x->opnd = no;
        uint32_t base = pc - pc % 10, k = pc % 10;
        if (k == 1 || k == 4 || k == 8) {
            x->op = OP_BRA;
            uint32_t t = k == 1 ? base + 5 : k == 4 ? base + 6 : (base >= 100 ? base - 90 : 0);
            if (k != 4)
                x->guard = 0;
            op[no].kind = OPK_LABEL;
            op[no].imm.u = t < n ? t : n - 1;
            x->nopnd = 1;
            no++;
        } else if (pc == n - 1) {
            x->op = OP_EXIT;
        } else {
            /* add.s32 %r(k), %r(k+1), imm = pc % 1000 */
            x->op = k == 0 ? OP_SETP : OP_ADD;
            x->type[0] = T_S32;
            for (unsigned j = 0; j < 3; j++) {
                struct ir_opnd *o = &op[no++];
                o->kind = j < 2 ? OPK_REG : OPK_IMM;
                o->type = T_S32;
                o->rf = RF_B32;
                o->slot = j < 2 ? k + j : IR_NOSLOT;
                o->imm.i = j < 2 ? 0 : (int64_t)(pc % 1000);
            }
            x->nopnd = 3;
        }
    }
    f.nopnds = no;
    f.ninsns = n;
    f.nslots[RF_B32] = 16;
    double tp = now_s();
    int rp = ir_predecode(&m, stderr);
    double t0 = now_s();
    int r = cfg_build_module(&m, stderr);
    double t1 = now_s();
    is_int(rp, 0, "1M instructions: ir_predecode");
    /* immediates sit on PCs whose last digit is 0,2,3,5,6,7,9: 700 distinct values */
    is_uint(f.nslots[RF_B32], 16 + 700, "1M instructions: 700 distinct constants");
    diag("predecode of 1,000,000 instructions (%u operands): %.3f s cpu; IR %zu + %zu bytes per "
         "instruction/operand", no, t0 - tp, sizeof(struct ir_insn), sizeof(struct ir_opnd));
    diag("predecode + cfg: %.3f s cpu", t1 - tp);
    is_int(r, 0, "1M instructions: cfg_build_module");
    ok(f.cfg && f.cfg->nblocks > 200000, "1M instructions: %u blocks", f.cfg ? f.cfg->nblocks : 0);
    if (f.cfg)
        diag("cfg of 1,000,000 instructions: %.3f s cpu, %zu bytes (%.1f bytes/instruction), "
             "%u blocks, %u edges",
             t1 - t0, f.cfg->bytes, (double)f.cfg->bytes / n, f.cfg->nblocks, f.cfg->nedges);
    double t2 = now_s();
    int v = ir_verify(&m, stderr);
    double t3 = now_s();
    is_int(v, 0, "1M instructions: verifier accepts");
    diag("verify: %.3f s cpu", t3 - t2);
    ir_passes_free(&m);
    free(in);
    free(op);
}

int main(void)
{
    test_if_else();
    test_nested_loops();
    test_early_return();
    test_switch();
    test_multiple_exits();
    test_infinite_loops();
    test_irreducible();
    test_calls();
    test_misc();
    test_ptxplus();
    test_print();
    test_diagnostics();
    test_diag_printer();
    test_predecode();
    test_random();
    test_big();
    return done_testing();
}

#ifdef CFG_TEST_STANDALONE
/* Standalone build without frontend/print.c. */
void ir_print_insn(FILE *out, const struct ir_module *m, const struct ir_func *f,
                   const struct ir_insn *in)
{
    (void)m;
    (void)f;
    fprintf(out, "op%u", in->op);
}
#endif
