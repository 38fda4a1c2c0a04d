/*
 * tests/unit/interp_test.c — the interpreter core on hand-built IR (no parser involved):
 * SIMT divergence and reconvergence, barriers (also barrier.cluster) and deadlock, calls
 * with .param passing under divergence, warp votes, the fault kinds and their reports,
 * parallel CTAs with atomics, atom forms rejected at load.
 *
 * Kernels use only move / memory / control / warp instructions (shfl.up's validity predicate
 * makes a lane-dependent predicate without the ALU families); results are accumulated with
 * red.global so each test checks one exact number computed by hand.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "interp/interp.h"
#include "interp/mem.h"
#include "tests/tap.h"

/* ------------------------------------------------------------------ a tiny IR builder */

#define NI 64
#define NO 256

struct tb {
    struct ir_module m;
    struct ir_func fn[2];
    struct ir_insn insns[2][NI];
    struct ir_opnd opnds[2][NO];
    uint64_t consts[2][RF__COUNT][32];
    struct ir_sreg_slot sregs[2][4];
    struct ir_sym syms[16];
    char strtab[512];
    uint16_t mods[2][NI * 2];
    int cur; /* function being built */
};

static uint32_t tb_str(struct tb *t, const char *s)
{
    uint32_t at = t->m.nstrtab;
    size_t n = strlen(s) + 1;
    memcpy(t->strtab + at, s, n);
    t->m.nstrtab += (uint32_t)n;
    return at;
}

/* Start function `name` (entry or not) with nregs declared registers per file. */
static void tb_func(struct tb *t, int fi, const char *name, bool entry, uint32_t n16,
                    uint32_t n32, uint32_t n64, uint32_t npred)
{
    struct ir_func *f = &t->fn[fi];
    t->cur = fi;
    f->name = tb_str(t, name);
    f->is_entry = entry;
    f->defined = 1;
    f->insns = t->insns[fi];
    f->opnds = t->opnds[fi];
    f->mods = t->mods[fi];
    uint32_t n[RF__COUNT] = {npred, n16, n32, n64};
    for (int rf = 0; rf < RF__COUNT; rf++) {
        f->ndeclared[rf] = f->nslots[rf] = n[rf];
        f->const_vals[rf] = t->consts[fi][rf];
    }
    f->sreg_slots = t->sregs[fi];
    if (fi >= (int)t->m.nfuncs)
        t->m.nfuncs = (uint32_t)fi + 1;
}

static struct ir_opnd R(unsigned rf, uint32_t slot)
{
    return (struct ir_opnd){.kind = OPK_REG, .rf = (uint8_t)rf, .slot = slot, .sym = IR_NOSYM};
}
static struct ir_opnd D(unsigned rf, uint32_t slot)
{
    struct ir_opnd o = R(rf, slot);
    o.flags = OPF_DST;
    return o;
}

/* An immediate with its own constant slot in rf. */
static struct ir_opnd I(struct tb *t, unsigned rf, uint64_t v)
{
    struct ir_func *f = &t->fn[t->cur];
    uint32_t s = f->nslots[rf]++;
    t->consts[t->cur][rf][s - f->ndeclared[rf]] = v;
    return (struct ir_opnd){.kind = OPK_IMM, .rf = (uint8_t)rf, .slot = s, .sym = IR_NOSYM,
                            .imm.u = v};
}

/* %laneid etc. as a per-warp slot. */
static struct ir_opnd S(struct tb *t, unsigned sreg)
{
    struct ir_func *f = &t->fn[t->cur];
    uint32_t s = f->nslots[RF_B32]++;
    f->sreg_slots[f->nsreg_slots++] = (struct ir_sreg_slot){(uint8_t)sreg, RF_B32, s};
    return (struct ir_opnd){.kind = OPK_SREG, .rf = RF_B32, .slot = s, .sreg = (uint8_t)sreg,
                            .sym = IR_NOSYM};
}

static struct ir_opnd A(unsigned rf, uint32_t slot, uint32_t sym, int64_t off)
{
    return (struct ir_opnd){.kind = OPK_ADDR, .rf = (uint8_t)rf, .slot = slot, .sym = sym,
                            .imm.i = off};
}

static struct ir_opnd FN(uint32_t fi)
{
    return (struct ir_opnd){.kind = OPK_FUNC, .slot = IR_NOSLOT, .sym = IR_NOSYM, .imm.u = fi};
}

/* A .param symbol of function fi. */
static uint32_t tb_param(struct tb *t, const char *name, int fi, uint64_t size, uint64_t off)
{
    uint32_t s = t->m.nsyms++;
    t->syms[s] = (struct ir_sym){.name = tb_str(t, name), .space = SP_PARAM, .type = T_B8,
                                 .vec = 1, .align = 8, .size = size, .offset = off, .func = fi};
    return s;
}

/* A (rets / args) list referring to symbols. */
static struct ir_opnd tb_plist(struct tb *t, const uint32_t *syms, unsigned n)
{
    struct ir_func *f = &t->fn[t->cur];
    uint32_t first = f->nopnds;
    for (unsigned i = 0; i < n; i++)
        f->opnds[f->nopnds++] = (struct ir_opnd){.kind = OPK_SYM, .rf = RF_B64,
                                                 .slot = IR_NOSLOT, .sym = syms[i]};
    return (struct ir_opnd){.kind = OPK_PARAMS, .n = (uint8_t)n, .first = first,
                            .slot = IR_NOSLOT, .sym = IR_NOSYM};
}

struct iopt {
    unsigned t0, space, mode, vec;
    uint32_t guard;
    bool neg;
    uint32_t target, reconv;
    uint16_t mod1;
};

/* Append an instruction; returns its PC. */
static uint32_t tb_ins(struct tb *t, unsigned op, struct iopt o, unsigned n, ...)
{
    struct ir_func *f = &t->fn[t->cur];
    uint32_t pc = f->ninsns++;
    struct ir_insn *in = &f->insns[pc];
    memset(in, 0, sizeof *in);
    in->op = (uint16_t)op;
    in->type[0] = (uint8_t)o.t0;
    in->space = (uint8_t)o.space;
    in->mode = (uint8_t)o.mode;
    in->vec = (uint8_t)(o.vec ? o.vec : 1);
    in->guard = o.guard ? o.guard - 1 : IR_NOGUARD;
    in->guard_neg = o.neg;
    in->target = o.target ? o.target - 1 : IR_NOPC;
    in->reconv = o.reconv ? o.reconv - 1 : IR_NOPC;
    in->line = pc + 10;
    in->col = 2;
    in->mod = f->nmods;
    if (o.mod1) {
        f->mods[f->nmods++] = o.mod1;
        in->nmod = 1;
    }
    in->opnd = f->nopnds;
    in->nopnd = (uint8_t)n;
    va_list ap;
    va_start(ap, n);
    for (unsigned i = 0; i < n; i++)
        f->opnds[f->nopnds++] = va_arg(ap, struct ir_opnd);
    va_end(ap);
    return pc;
}

static struct tb *tb_new(void)
{
    struct tb *t = calloc(1, sizeof *t);
    t->m.filename = (char *)"hand.ptx";
    t->m.funcs = t->fn;
    t->m.syms = t->syms;
    t->m.strtab = t->strtab;
    t->m.nstrtab = 1; /* string id 0 = "" */
    t->m.address_size = 64;
    return t;
}

/* ------------------------------------------------------------------ running */

struct run {
    int rc;
    struct trap trap;
    struct interp_stats st;
    uint32_t out[4];
    char report[2048];
};

/* Load t, run kernel 0 over grid x block with a 16-byte zeroed output buffer. */
static void run(struct tb *t, unsigned grid, unsigned block, unsigned threads, struct run *r)
{
    memset(r, 0, sizeof *r);
    struct interp_config cfg = {.sm = 80, .nsm = 4, .threads = threads, .trace_thread = -1};
    struct interp_dev *d = NULL;
    struct interp_program *p = NULL;
    r->rc = -100;
    if (interp_dev_create(&cfg, &d) != 0)
        return;
    const struct ir_module *mods[1] = {&t->m};
    if (interp_program_load(d, mods, 1, stderr, &p) != 0) {
        r->rc = -101;
        interp_dev_destroy(d);
        return;
    }
    uint64_t out = 0;
    mem_alloc(interp_dev_mem(d), 16, MEM_F_DEVICE, &out);
    const struct interp_kernel *k = interp_program_kernel(p, ir_str(&t->m, t->fn[0].name));
    struct interp_launch l = {.kernel = k, .grid = {grid, 1, 1}, .block = {block, 1, 1},
                              .params = &out};
    r->rc = interp_launch(d, &l, &r->st, &r->trap);
    mem_read(interp_dev_mem(d), r->out, out, 16);
    if (r->rc == 1) {
        FILE *f = fmemopen(r->report, sizeof r->report - 1, "w");
        interp_trap_report(f, &r->trap);
        fclose(f);
        /* device addresses differ per run: long hex numbers become X */
        char *w = r->report;
        for (const char *q = r->report; *q;) {
            size_t n = 0;
            if (q[0] == '0' && q[1] == 'x')
                while (isxdigit((unsigned char)q[2 + n]))
                    n++;
            if (n >= 6) {
                *w++ = 'X';
                q += 2 + n;
            } else {
                *w++ = *q++;
            }
        }
        *w = 0;
    }
    interp_program_unload(p);
    interp_dev_destroy(d);
}

/* Kernel prologue: %rd0 = out (param 0 at offset 0); %p0 = laneid >= 16 (shfl.up validity). */
static void prologue(struct tb *t, uint32_t *psym)
{
    *psym = tb_param(t, "out", 0, 8, 0);
    t->fn[0].param = *psym;
    t->fn[0].nparam = 1;
    t->fn[0].param_size = 8;
    tb_ins(t, OP_LD, (struct iopt){.t0 = T_U64, .space = SP_PARAM}, 2, D(RF_B64, 0),
           A(RF_B64, IR_NOSLOT, *psym, 0));
    tb_ins(t, OP_SHFL, (struct iopt){.t0 = T_B32, .mode = MODE_UP}, 6, D(RF_B32, 1),
           D(RF_PRED, 0), S(t, SR_LANEID), I(t, RF_B32, 16), I(t, RF_B32, 0),
           I(t, RF_B32, 0xffffffff));
}

/* if (lane >= 16) r2 = 222; else r2 = 111;  red.add [out], r2 */
static struct tb *k_diverge(void)
{
    struct tb *t = tb_new();
    uint32_t ps;
    tb_func(t, 0, "diverge", true, 0, 4, 2, 2);
    prologue(t, &ps);
    /* 2 */ tb_ins(t, OP_BRA, (struct iopt){.guard = 1, .target = 6, .reconv = 7}, 1,
                   (struct ir_opnd){.kind = OPK_LABEL, .imm.u = 5, .slot = IR_NOSLOT});
    /* 3 */ tb_ins(t, OP_MOV, (struct iopt){.t0 = T_U32}, 2, D(RF_B32, 2), I(t, RF_B32, 111));
    /* 4 */ tb_ins(t, OP_BRA, (struct iopt){.target = 7, .reconv = 7}, 1,
                   (struct ir_opnd){.kind = OPK_LABEL, .imm.u = 6, .slot = IR_NOSLOT});
    /* 5 */ tb_ins(t, OP_MOV, (struct iopt){.t0 = T_U32}, 2, D(RF_B32, 2), I(t, RF_B32, 222));
    /* 6 */ tb_ins(t, OP_RED, (struct iopt){.t0 = T_U32, .space = SP_GLOBAL, .mode = MODE_ADD},
                   2, A(RF_B64, 0, IR_NOSYM, 0), R(RF_B32, 2));
    /* 7 */ tb_ins(t, OP_EXIT, (struct iopt){0}, 0);
    return t;
}

/* Every thread: atom.shared.add [0], 1; bar.sync 0 (guarded by lane >= 16 when `half`);
 * ld.shared r2, [0]; red.add [out], r2. */
static struct tb *k_barrier(bool half)
{
    struct tb *t = tb_new();
    uint32_t ps;
    tb_func(t, 0, "barrier", true, 0, 4, 2, 2);
    uint32_t sh = t->m.nsyms++;
    t->syms[sh] = (struct ir_sym){.name = tb_str(t, "cnt"), .space = SP_SHARED, .type = T_U32,
                                  .vec = 1, .align = 4, .size = 4, .offset = 0, .func = -1};
    t->m.shared_size = 4;
    t->fn[0].shared_size = 4; /* the kernel's static shared bytes (predecode's layout) */
    t->fn[0].shared_extent = 4; /* and where they end in it */
    prologue(t, &ps);
    tb_ins(t, OP_ATOM, (struct iopt){.t0 = T_U32, .space = SP_SHARED, .mode = MODE_ADD}, 3,
           D(RF_B32, 3), A(RF_B32, IR_NOSLOT, sh, 0), I(t, RF_B32, 1));
    if (half) {
        /* p = tid.x < 32: warp 0 waits at barrier 0, warp 1 at barrier 1 (PTX 9.0: an aligned
           barrier marks the arrival of the executing warp, so only warp-uniform guards make
           a real deadlock) */
        uint32_t pc = tb_ins(t, OP_SETP, (struct iopt){.t0 = T_U32}, 4, D(RF_PRED, 0),
                             (struct ir_opnd){.kind = OPK_NONE, .slot = IR_NOSLOT,
                                              .sym = IR_NOSYM},
                             S(t, SR_TID_X), I(t, RF_B32, 32));
        t->fn[t->cur].insns[pc].cmp = CMP_LT;
        tb_ins(t, OP_BAR, (struct iopt){.mode = MODE_SYNC, .guard = 1}, 1, I(t, RF_B32, 0));
        tb_ins(t, OP_BAR, (struct iopt){.mode = MODE_SYNC, .guard = 1, .neg = true}, 1,
               I(t, RF_B32, 1));
    } else {
        tb_ins(t, OP_BAR, (struct iopt){.mode = MODE_SYNC}, 1, I(t, RF_B32, 0));
    }
    tb_ins(t, OP_LD, (struct iopt){.t0 = T_U32, .space = SP_SHARED}, 2, D(RF_B32, 2),
           A(RF_B32, IR_NOSLOT, sh, 0));
    tb_ins(t, OP_RED, (struct iopt){.t0 = T_U32, .space = SP_GLOBAL, .mode = MODE_ADD}, 2,
           A(RF_B64, 0, IR_NOSYM, 0), R(RF_B32, 2));
    tb_ins(t, OP_EXIT, (struct iopt){0}, 0);
    return t;
}

/* barrier.cluster split phase. Every thread: atom.shared.add [cnt], 1; barrier.cluster.arrive;
 * atom.shared.add [cnt2], 1 (work between arrive and wait); barrier.cluster.wait;
 * ld.shared r2, [cnt]; red.add [out], r2. `mode` 1: warps other than 0 wait at bar.sync 1
 * instead of arriving (a deadlock); 2: lanes >= 16 wait without having arrived (a fault). */
static struct tb *k_cluster(int mode)
{
    struct tb *t = tb_new();
    uint32_t ps;
    tb_func(t, 0, "cluster", true, 0, 4, 2, 2);
    uint32_t sh = t->m.nsyms++;
    t->syms[sh] = (struct ir_sym){.name = tb_str(t, "cnt"), .space = SP_SHARED, .type = T_U32,
                                  .vec = 1, .align = 4, .size = 8, .offset = 0, .func = -1};
    t->m.shared_size = 8;
    t->fn[0].shared_size = 8;
    t->fn[0].shared_extent = 8;
    prologue(t, &ps);
    tb_ins(t, OP_ATOM, (struct iopt){.t0 = T_U32, .space = SP_SHARED, .mode = MODE_ADD}, 3,
           D(RF_B32, 3), A(RF_B32, IR_NOSLOT, sh, 0), I(t, RF_B32, 1));
    if (mode == 1) {
        uint32_t pc = tb_ins(t, OP_SETP, (struct iopt){.t0 = T_U32}, 4, D(RF_PRED, 1),
                             (struct ir_opnd){.kind = OPK_NONE, .slot = IR_NOSLOT,
                                              .sym = IR_NOSYM},
                             S(t, SR_TID_X), I(t, RF_B32, 32));
        t->fn[t->cur].insns[pc].cmp = CMP_LT;
        tb_ins(t, OP_BAR, (struct iopt){.mode = MODE_SYNC, .guard = 2, .neg = true}, 1,
               I(t, RF_B32, 1));
        tb_ins(t, OP_BARRIER_CLUSTER, (struct iopt){.mode = MODE_ARRIVE, .guard = 2}, 0);
    } else if (mode == 2) {
        /* %p0 (lane >= 16, from the prologue) skips the arrive */
        tb_ins(t, OP_BARRIER_CLUSTER, (struct iopt){.mode = MODE_ARRIVE, .guard = 1, .neg = true},
               0);
    } else {
        tb_ins(t, OP_BARRIER_CLUSTER, (struct iopt){.mode = MODE_ARRIVE}, 0);
    }
    tb_ins(t, OP_ATOM, (struct iopt){.t0 = T_U32, .space = SP_SHARED, .mode = MODE_ADD}, 3,
           D(RF_B32, 3), A(RF_B32, IR_NOSLOT, sh, 4), I(t, RF_B32, 1));
    tb_ins(t, OP_BARRIER_CLUSTER, (struct iopt){.mod1 = MOD_WAIT}, 0);
    tb_ins(t, OP_LD, (struct iopt){.t0 = T_U32, .space = SP_SHARED}, 2, D(RF_B32, 2),
           A(RF_B32, IR_NOSLOT, sh, 0));
    tb_ins(t, OP_RED, (struct iopt){.t0 = T_U32, .space = SP_GLOBAL, .mode = MODE_ADD}, 2,
           A(RF_B64, 0, IR_NOSYM, 0), R(RF_B32, 2));
    tb_ins(t, OP_EXIT, (struct iopt){0}, 0);
    return t;
}

/* One atom.global.MODE.T [out], 1 (64-bit or 16-bit operands by the type's size): a form the
 * engine does not implement must be rejected when the program loads. */
static struct tb *k_atom_form(unsigned mode, unsigned type)
{
    struct tb *t = tb_new();
    uint32_t ps;
    tb_func(t, 0, "atomform", true, 2, 4, 2, 2);
    prologue(t, &ps);
    const unsigned rf = ir_type_size((enum ir_type)type) == 2 ? RF_B16 : RF_B32;
    tb_ins(t, OP_ATOM, (struct iopt){.t0 = type, .space = SP_GLOBAL, .mode = mode}, 3,
           D(rf, 1), A(RF_B64, 0, IR_NOSYM, 0), I(t, rf, 1));
    tb_ins(t, OP_EXIT, (struct iopt){0}, 0);
    return t;
}

/* func id(a) -> a; kernel: param0 = 7; @p call (ret), id, (param0); red.add [out+4], ret;
 * plus a second, unguarded call with 5: red.add [out], ret. */
static struct tb *k_call(void)
{
    struct tb *t = tb_new();
    uint32_t ps;
    tb_func(t, 0, "caller", true, 0, 4, 2, 2);
    prologue(t, &ps);
    uint32_t a0 = tb_param(t, "param0", 0, 4, 0), r0 = tb_param(t, "retval0", 0, 4, 0);
    tb_ins(t, OP_ST, (struct iopt){.t0 = T_B32, .space = SP_PARAM}, 2,
           A(RF_B64, IR_NOSLOT, a0, 0), I(t, RF_B32, 7));
    struct ir_opnd rets = tb_plist(t, &r0, 1), args = tb_plist(t, &a0, 1);
    tb_ins(t, OP_CALL, (struct iopt){.guard = 1}, 3, rets, FN(1), args);
    tb_ins(t, OP_LD, (struct iopt){.t0 = T_B32, .space = SP_PARAM}, 2, D(RF_B32, 2),
           A(RF_B64, IR_NOSLOT, r0, 0));
    tb_ins(t, OP_RED, (struct iopt){.t0 = T_U32, .space = SP_GLOBAL, .mode = MODE_ADD, .guard = 1},
           2, A(RF_B64, 0, IR_NOSYM, 4), R(RF_B32, 2));
    tb_ins(t, OP_ST, (struct iopt){.t0 = T_B32, .space = SP_PARAM}, 2,
           A(RF_B64, IR_NOSLOT, a0, 0), I(t, RF_B32, 5));
    rets = tb_plist(t, &r0, 1);
    args = tb_plist(t, &a0, 1);
    tb_ins(t, OP_CALL, (struct iopt){0}, 3, rets, FN(1), args);
    tb_ins(t, OP_LD, (struct iopt){.t0 = T_B32, .space = SP_PARAM}, 2, D(RF_B32, 2),
           A(RF_B64, IR_NOSLOT, r0, 0));
    tb_ins(t, OP_RED, (struct iopt){.t0 = T_U32, .space = SP_GLOBAL, .mode = MODE_ADD}, 2,
           A(RF_B64, 0, IR_NOSYM, 0), R(RF_B32, 2));
    tb_ins(t, OP_EXIT, (struct iopt){0}, 0);

    tb_func(t, 1, "id", false, 0, 2, 0, 0);
    uint32_t fa = tb_param(t, "id_a", 1, 4, 0), fr = tb_param(t, "id_ret", 1, 4, 0);
    t->fn[1].param = fa;
    t->fn[1].nparam = 1;
    t->fn[1].ret = fr;
    t->fn[1].nret = 1;
    tb_ins(t, OP_LD, (struct iopt){.t0 = T_U32, .space = SP_PARAM}, 2, D(RF_B32, 0),
           A(RF_B64, IR_NOSLOT, fa, 0));
    tb_ins(t, OP_ST, (struct iopt){.t0 = T_B32, .space = SP_PARAM}, 2,
           A(RF_B64, IR_NOSLOT, fr, 0), R(RF_B32, 0));
    tb_ins(t, OP_RET, (struct iopt){0}, 0);
    return t;
}

/* vote.ballot of (lane >= 16), then one lane-0-only... every lane: red.or [out], ballot */
static struct tb *k_vote(void)
{
    struct tb *t = tb_new();
    uint32_t ps;
    tb_func(t, 0, "vote", true, 0, 4, 2, 2);
    prologue(t, &ps);
    tb_ins(t, OP_VOTE, (struct iopt){.t0 = T_B32, .mode = MODE_BALLOT}, 3, D(RF_B32, 2),
           R(RF_PRED, 0), I(t, RF_B32, 0xffffffff));
    tb_ins(t, OP_RED, (struct iopt){.t0 = T_B32, .space = SP_GLOBAL, .mode = MODE_OR}, 2,
           A(RF_B64, 0, IR_NOSYM, 0), R(RF_B32, 2));
    tb_ins(t, OP_VOTE, (struct iopt){.t0 = T_PRED, .mode = MODE_ANY}, 3, D(RF_PRED, 1),
           R(RF_PRED, 0), I(t, RF_B32, 0xffffffff));
    tb_ins(t, OP_ACTIVEMASK, (struct iopt){.t0 = T_B32, .guard = 1}, 1, D(RF_B32, 3));
    tb_ins(t, OP_RED, (struct iopt){.t0 = T_B32, .space = SP_GLOBAL, .mode = MODE_XOR, .guard = 1},
           2, A(RF_B64, 0, IR_NOSYM, 4), R(RF_B32, 3));
    tb_ins(t, OP_EXIT, (struct iopt){0}, 0);
    return t;
}

/* A fault: st.global.u32 [out + off], 1 by lanes >= 16 (or trap when off < 0). */
static struct tb *k_fault(int64_t off)
{
    struct tb *t = tb_new();
    uint32_t ps;
    tb_func(t, 0, "fault", true, 0, 4, 2, 2);
    prologue(t, &ps);
    if (off < 0)
        tb_ins(t, OP_TRAP, (struct iopt){.guard = 1}, 0);
    else
        tb_ins(t, OP_ST, (struct iopt){.t0 = T_U32, .space = SP_GLOBAL, .guard = 1}, 2,
               A(RF_B64, 0, IR_NOSYM, off), I(t, RF_B32, 1));
    tb_ins(t, OP_EXIT, (struct iopt){0}, 0);
    return t;
}

/* brx.idx %laneid over a 32-entry table: lane i goes to target i % 4, which adds 1, 10, 100
 * or 1000; all four groups rejoin before the red. Sum = 8 * 1111. */
static struct tb *k_brx(void)
{
    struct tb *t = tb_new();
    uint32_t ps;
    tb_func(t, 0, "brx", true, 0, 4, 2, 2);
    static uint32_t table[32];
    t->fn[0].tables = table;
    t->fn[0].ntables = 32;
    prologue(t, &ps);
    /* 2: brx.idx %laneid, table   targets 3, 5, 7, 9; join at 11 */
    for (int i = 0; i < 32; i++)
        table[i] = 3 + 2 * (uint32_t)(i % 4);
    tb_ins(t, OP_BRX, (struct iopt){.reconv = 12}, 2, S(t, SR_LANEID),
           (struct ir_opnd){.kind = OPK_TABLE, .first = 0, .n = 32, .slot = IR_NOSLOT});
    for (int k = 0, v = 1; k < 4; k++, v *= 10) {
        tb_ins(t, OP_MOV, (struct iopt){.t0 = T_U32}, 2, D(RF_B32, 2), I(t, RF_B32, (uint64_t)v));
        tb_ins(t, OP_BRA, (struct iopt){.target = 12, .reconv = 12}, 1,
               (struct ir_opnd){.kind = OPK_LABEL, .imm.u = 11, .slot = IR_NOSLOT});
    }
    /* 11 */ tb_ins(t, OP_RED, (struct iopt){.t0 = T_U32, .space = SP_GLOBAL, .mode = MODE_ADD},
                    2, A(RF_B64, 0, IR_NOSYM, 0), R(RF_B32, 2));
    /* 12 */ tb_ins(t, OP_EXIT, (struct iopt){0}, 0);
    return t;
}

/* Indirect call: mov.u64 %rd1, id; call (ret), %rd1, (param0), proto — the callee is the
 * identity function of k_call. */
static struct tb *k_icall(void)
{
    struct tb *t = k_call();
    struct ir_func *f = &t->fn[0];
    /* turn the second (unguarded) call into an indirect one through %rd1 */
    f->nslots[RF_B64] = f->ndeclared[RF_B64] = 2;
    for (uint32_t pc = 0; pc < f->ninsns; pc++) {
        struct ir_insn *in = &f->insns[pc];
        if (in->op != OP_CALL || in->guard != IR_NOGUARD)
            continue;
        f->opnds[in->opnd + 1] = R(RF_B64, 1);
        /* insert mov.u64 %rd1, id before it: reuse the st.param slot ordering by shifting */
        memmove(&f->insns[pc + 1], &f->insns[pc], (f->ninsns - pc) * sizeof *in);
        f->ninsns++;
        struct ir_insn *mv = &f->insns[pc];
        memset(mv, 0, sizeof *mv);
        mv->op = OP_MOV;
        mv->type[0] = T_U64;
        mv->guard = IR_NOGUARD;
        mv->target = mv->reconv = IR_NOPC;
        mv->vec = 1;
        mv->opnd = f->nopnds;
        mv->nopnd = 2;
        f->opnds[f->nopnds++] = D(RF_B64, 1);
        f->opnds[f->nopnds++] = FN(1);
        break;
    }
    return t;
}

/* One device's pool of host threads used by several launches (grid.c): launches in sequence
 * reuse the pool threads and their CTA slots, a trapping launch leaves the pool usable, and
 * launches from two host threads at once (one takes the pool, the other starts threads of
 * its own) both complete. */
struct pool_run {
    struct interp_dev *d;
    const struct interp_kernel *k;
    uint64_t out;
    int rc[3];
    struct interp_stats st[3];
};

static void *pool_launcher(void *arg)
{
    struct pool_run *pr = arg;
    for (unsigned i = 0; i < 3; i++) {
        struct interp_launch l = {.kernel = pr->k, .grid = {100, 1, 1}, .block = {96, 1, 1},
                                  .params = &pr->out};
        struct trap trap;
        pr->rc[i] = interp_launch(pr->d, &l, &pr->st[i], &trap);
    }
    return NULL;
}

static void pool_tests(struct tb *good, struct tb *bad)
{
    struct interp_config cfg = {.sm = 80, .nsm = 4, .threads = 2, .trace_thread = -1};
    struct interp_dev *d = NULL;
    struct interp_program *pg = NULL, *pb = NULL;
    const struct ir_module *mg[1] = {&good->m}, *mb[1] = {&bad->m};
    if (interp_dev_create(&cfg, &d) != 0 || interp_program_load(d, mg, 1, stderr, &pg) != 0 ||
        interp_program_load(d, mb, 1, stderr, &pb) != 0) {
        ok(false, "pool: device and programs");
        return;
    }
    struct pool_run a = {.d = d}, b = {.d = d};
    a.k = b.k = interp_program_kernel(pg, ir_str(&good->m, good->fn[0].name));
    const struct interp_kernel *kb = interp_program_kernel(pb, ir_str(&bad->m, bad->fn[0].name));
    mem_alloc(interp_dev_mem(d), 16, MEM_F_DEVICE, &a.out);
    b.out = a.out;
    const uint32_t per = 100 * 3 * (16 * 111 + 16 * 222);
    uint32_t v = 0;
    pool_launcher(&a);
    mem_read(interp_dev_mem(d), &v, a.out, 4);
    is_uint(v, 3 * per, "pool: three launches in sequence");
    bool two = true;
    for (unsigned i = 0; i < 3; i++)
        two &= a.rc[i] == 0 && a.st[i].host_threads == 2 && a.st[i].ctas == 100 &&
               a.st[i].ctas_min + a.st[i].ctas_max <= 100 && a.st[i].ctas_max >= 50 &&
               a.st[i].cpu_max > 0 && a.st[i].cpu_seconds >= a.st[i].cpu_max;
    ok(two, "pool: each launch ran on 2 host threads, 100 CTAs, CPU time measured");
    struct interp_launch lb = {.kernel = kb, .grid = {64, 1, 1}, .block = {32, 1, 1},
                               .params = &a.out};
    struct trap trap;
    is_int(interp_launch(d, &lb, NULL, &trap), 1, "pool: a trapping launch");
    pool_launcher(&a);
    mem_read(interp_dev_mem(d), &v, a.out, 4);
    is_uint(v, 6 * per, "pool: usable after the trap");
    pthread_t th;
    bool started = pthread_create(&th, NULL, pool_launcher, &b) == 0;
    pool_launcher(&a);
    if (started)
        pthread_join(th, NULL);
    mem_read(interp_dev_mem(d), &v, a.out, 4);
    bool all = started;
    for (unsigned i = 0; i < 3; i++)
        all &= a.rc[i] == 0 && b.rc[i] == 0 && a.st[i].ctas == 100 && b.st[i].ctas == 100;
    ok(all && v == 12 * per, "pool: launches from two host threads at once (%u, want %u)", v,
       12 * per);
    interp_program_unload(pb);
    interp_program_unload(pg);
    interp_dev_destroy(d);
}

/* Loading a program leaves the IR byte for byte as the front end made it: the execution images
 * are copies, and what only the engine needs (handler ids, memory operands' space classes) is
 * kept in them (a module of the front-end cache is shared by every program that loads it). */
static const char leaves_ir_ptx[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".shared .align 4 .b8 sh[64];\n"
    ".func (.param .b32 r) f(.param .b32 a)\n{\n"
    "  .reg .b32 %r<3>;\n"
    "  ld.param.b32 %r1, [a];\n  add.s32 %r2, %r1, 5;\n  st.param.b32 [r], %r2;\n  ret;\n}\n"
    ".visible .entry k(.param .u64 out)\n{\n"
    "  .local .align 4 .b8 depot[16];\n"
    "  .reg .pred %p<3>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out];\n  cvta.to.global.u64 %rd2, %rd1;\n"
    "  mov.u32 %r1, %tid.x;\n  st.shared.u32 [sh], %r1;\n  st.local.u32 [depot+4], %r1;\n"
    "  ld.local.u32 %r2, [depot+4];\n  atom.shared.add.u32 %r3, [sh+4], 1;\n"
    "  setp.lt.u32 %p1, %r1, 16;\n  bar.red.popc.u32 %r4, 0, %p1;\n"
    "  bar.red.and.pred %p2, 0, %p1;\n"
    "  { .param .b32 a0;\n    .param .b32 r0;\n    st.param.b32 [a0], %r2;\n"
    "    call.uni (r0), f, (a0);\n    ld.param.b32 %r5, [r0];\n  }\n"
    "  add.s32 %r6, %r4, %r5;\n  red.global.add.u32 [%rd2], %r6;\n  ret;\n}\n";

static uint64_t ir_bytes_hash(const struct ir_module *m, unsigned *handlers)
{
    uint64_t h = 0;
    *handlers = 0;
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        const struct ir_func *f = &m->funcs[i];
        for (uint32_t pc = 0; pc < f->ninsns; pc++)
            *handlers += f->insns[pc].handler != 0;
        const unsigned char *parts[3] = {(const void *)f->insns, (const void *)f->opnds,
                                         (const void *)f->mods};
        size_t len[3] = {f->ninsns * sizeof *f->insns, f->nopnds * sizeof *f->opnds,
                         f->nmods * sizeof *f->mods};
        for (unsigned k = 0; k < 3; k++)
            for (size_t b = 0; b < len[k]; b++)
                h = (h ^ parts[k][b]) * 0x100000001b3u; /* FNV-1a over every byte */
    }
    return h;
}

static void load_leaves_ir(void)
{
    struct ir_module *m = NULL;
    struct fe_opts opts = {.diag = stderr};
    if (!is_int(fe_load(leaves_ir_ptx, sizeof leaves_ir_ptx - 1, "leaves_ir.ptx", &opts, &m), 0,
                "leaves IR: the module loads"))
        return;
    unsigned hb = 0, ha = 0;
    uint64_t before = ir_bytes_hash(m, &hb);
    struct interp_config cfg = {.sm = 80, .nsm = 1, .threads = 1};
    struct interp_dev *d = NULL;
    struct interp_program *p = NULL;
    const struct ir_module *mods[1] = {m};
    int rc = interp_dev_create(&cfg, &d);
    if (rc == 0)
        rc = interp_program_load(d, mods, 1, stderr, &p);
    is_int(rc, 0, "leaves IR: the program loads");
    uint64_t after = ir_bytes_hash(m, &ha);
    ok(before == after, "leaves IR: instructions, operands and modifiers unchanged, padding too");
    is_uint(ha, 0, "leaves IR: no handler id written into the IR");
    const struct interp_kernel *k = p ? interp_program_kernel(p, "k") : NULL;
    if (k) {
        uint64_t out = 0;
        uint32_t v = 0;
        mem_alloc(interp_dev_mem(d), 4, MEM_F_DEVICE, &out);
        mem_write(interp_dev_mem(d), out, &v, 4);
        struct interp_launch l = {.kernel = k, .grid = {1, 1, 1}, .block = {64, 1, 1},
                                  .params = &out};
        struct trap trap;
        is_int(interp_launch(d, &l, NULL, &trap), 0, "leaves IR: the kernel runs");
        mem_read(interp_dev_mem(d), &v, out, 4);
        /* bar.red.popc counts the 16 threads with tid < 16; f returns tid + 5 */
        is_uint(v, 64 * 16 + (64 * 63 / 2 + 64 * 5), "leaves IR: bar.red.popc and the call");
    } else {
        ok(false, "leaves IR: kernel k");
    }
    interp_program_unload(p);
    if (d)
        interp_dev_destroy(d);
    ir_module_free(m);
}

int main(void)
{
    struct run r;
    struct tb *t;

    t = k_diverge();
    run(t, 1, 32, 1, &r);
    is_int(r.rc, 0, "diverge: completes");
    is_uint(r.out[0], 16 * 111 + 16 * 222, "diverge: each half took its path once");
    is_uint(r.st.warp_insns, 8, "diverge: 8 warp instructions (both paths + rejoin)");
    is_uint(r.st.thread_insns, 32 * 3 + 16 * 3 + 32 * 2, "diverge: thread instructions");
    run(t, 100, 96, 2, &r);
    is_uint(r.out[0], 100 * 3 * (16 * 111 + 16 * 222), "diverge: 100 CTAs x 3 warps, 2 threads");
    run(t, 5, 40, 1, &r);
    is_uint(r.out[0], 5 * (16 * 111 + 16 * 222 + 8 * 111),
            "diverge: partial last warp (40 threads)");
    struct tb *bad = k_fault(4096);
    pool_tests(t, bad);
    free(bad);
    free(t);

    t = k_barrier(false);
    run(t, 1, 64, 1, &r);
    is_int(r.rc, 0, "barrier: completes");
    is_uint(r.out[0], 64 * 64, "barrier: every thread sees all 64 increments");
    run(t, 64, 256, 2, &r);
    is_uint(r.out[0], 64 * 256 * 256, "barrier: 64 CTAs of 256 on 2 threads");
    free(t);

    t = k_barrier(true);
    run(t, 1, 64, 1, &r);
    is_int(r.rc, 1, "half barrier: traps");
    is_int(r.trap.kind, TRAP_DEADLOCK, "half barrier: deadlock");
    is_str(r.trap.msg,
           "barrier 0 can never complete: 32 of 64 threads arrived, every other live warp is "
           "waiting or has exited; 32 threads wait at barrier 1 (warp 1 at barrier+0x50 "
           "(hand.ptx:15))",
           "half barrier: message");
    free(t);

    t = k_cluster(0);
    run(t, 1, 96, 1, &r);
    is_int(r.rc, 0, "cluster barrier: completes");
    is_uint(r.out[0], 96 * 96, "cluster barrier: every thread sees all 96 increments after wait");
    run(t, 32, 80, 2, &r);
    is_uint(r.out[0], 32 * 80 * 80, "cluster barrier: 32 CTAs of 80 (partial warp) on 2 threads");
    free(t);

    t = k_cluster(1);
    run(t, 1, 64, 1, &r);
    is_int(r.rc, 1, "cluster barrier vs bar.sync: traps");
    is_int(r.trap.kind, TRAP_DEADLOCK, "cluster barrier vs bar.sync: deadlock");
    is_str(r.trap.msg,
           "barrier.cluster can never complete: 32 of 64 threads of the cluster arrived, every "
           "other live warp is waiting or has exited",
           "cluster barrier deadlock: message");
    free(t);

    t = k_cluster(2);
    run(t, 1, 32, 1, &r);
    is_int(r.rc, 1, "cluster wait without arrive: traps");
    is_int(r.trap.kind, TRAP_ILLEGAL, "cluster wait without arrive: illegal instruction");
    is_uint(r.trap.tid[0], 16, "cluster wait without arrive: first lane that did not arrive");
    free(t);

    /* atom.add.u16 / atom.or.b16 / atom.and.f16x2 are no PTX forms (ptxas rejects them) and
     * used to be silent no-ops; atom.cas.b16 and atom.add.u32 load (and run). The rejected
     * loads print "unsupported: ..." on stderr. */
    t = k_atom_form(MODE_ADD, T_U16);
    run(t, 1, 32, 1, &r);
    is_int(r.rc, -101, "atom.add.u16: rejected at load");
    free(t);
    t = k_atom_form(MODE_OR, T_B16);
    run(t, 1, 32, 1, &r);
    is_int(r.rc, -101, "atom.or.b16: rejected at load");
    free(t);
    t = k_atom_form(MODE_AND, T_F16X2);
    run(t, 1, 32, 1, &r);
    is_int(r.rc, -101, "atom.and.f16x2: rejected at load");
    free(t);
    t = k_atom_form(MODE_ADD, T_U32);
    run(t, 1, 32, 1, &r);
    is_int(r.rc, 0, "atom.add.u32: loads and runs");
    is_uint(r.out[0], 32, "atom.add.u32: 32 increments");
    free(t);

    t = k_call();
    run(t, 2, 64, 1, &r);
    is_int(r.rc, 0, "call: completes");
    is_uint(r.out[0], 2 * 64 * 5, "call: uniform call returns its argument");
    is_uint(r.out[1], 2 * 32 * 7, "call: guarded (divergent) call, only lanes >= 16");
    free(t);

    t = k_brx();
    run(t, 3, 32, 1, &r);
    is_int(r.rc, 0, "brx.idx: completes");
    is_uint(r.out[0], 3 * 8 * 1111, "brx.idx: four-way divergence, each group once");
    free(t);

    t = k_icall();
    run(t, 2, 64, 2, &r);
    is_int(r.rc, 0, "indirect call: completes");
    is_uint(r.out[0], 2 * 64 * 5, "indirect call through a function address");
    is_uint(r.out[1], 2 * 32 * 7, "direct guarded call still right");
    free(t);

    t = k_vote();
    run(t, 1, 32, 1, &r);
    is_int(r.rc, 0, "vote: completes");
    is_uint(r.out[0], 0xffff0000u, "vote.ballot of lane >= 16");
    is_uint(r.out[1], 0, "activemask xor-reduced over 16 lanes is 0");
    free(t);

    t = k_fault(4096);
    run(t, 2, 32, 1, &r);
    is_int(r.rc, 1, "oob: traps");
    is_int(r.trap.kind, TRAP_OOB, "oob: kind");
    is_str(r.report,
           "========= Invalid __global__ write of size 4 bytes\n"
           "=========     at fault+0x20 (hand.ptx:12)\n"
           "=========     by thread (16,0,0) in block (0,0,0)\n"
           "=========     Address X is out of bounds\n"
           "=========     and is 4080 bytes after the nearest allocation at X of size 16 "
           "bytes\n",
           "oob: report");
    free(t);

    t = k_fault(2);
    run(t, 1, 32, 1, &r);
    is_int(r.trap.kind, TRAP_MISALIGNED, "misaligned: kind");
    free(t);

    t = k_fault(-1);
    run(t, 1, 32, 1, &r);
    is_int(r.trap.kind, TRAP_TRAP, "trap: kind");
    is_uint(r.trap.tid[0], 16, "trap: first trapping thread");
    free(t);

    load_leaves_ir();

    return done_testing();
}
