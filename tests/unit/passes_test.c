/*
 * tests/unit/passes_test.c — the front end's passes on parsed PTX (split from cfg_test.c, which
 * keeps the hand-built CFG shapes): the predecoded facts per instruction (unit, latency class,
 * width, space, flags, PTX line, .loc, register lists) asserted exactly, registers read before
 * written (cfg_undef_regs), the module cache, the verifier rejecting corrupted IR with exact
 * messages, texture operands, every loadable fixture under fixtures/ through fe_load +
 * ir_verify, and the shared-memory layout of the fixtures' kernels.
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

static const char facts_ptx[] =
    ".version 9.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".file 1 \"kern.cu\"\n"
    "\n"
    ".visible .func (.param .b32 rv) g(.param .b32 a)\n"
    "{\n"
    "\t.reg .b32 %r<3>;\n"
    "\tld.param.b32 %r1, [a];\n"
    "\tst.param.b32 [rv], %r1;\n"
    "\tret;\n"
    "}\n"
    "\n"
    ".visible .entry k(.param .u64 out)\n"
    "{\n"
    "\t.reg .pred %p<3>;\n"
    "\t.reg .b32 %r<8>;\n"
    "\t.reg .f32 %f<6>;\n"
    "\t.reg .f64 %fd<3>;\n"
    "\t.reg .b64 %rd<4>;\n"
    "\t.loc 1 10 3\n"
    "\tld.param.u64 %rd1, [out];\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "\t.loc 1 11 5\n"
    "\tsetp.lt.u32 %p1, %r1, 16;\n"
    "\t@%p1 bra.uni $L_a;\n"
    "\tmad.lo.s32 %r2, %r1, %r1, 7;\n"
    "\tfma.rn.f32 %f1, %f2, %f3, %f4;\n"
    "\tsqrt.rn.f64 %fd1, %fd2;\n"
    "\tld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];\n"
    "\tatom.global.add.u32 %r3, [%rd1], %r2;\n"
    "\tshfl.sync.bfly.b32 %r4|%p2, %r2, 1, 31, -1;\n"
    "\t@!%p2 min.s32 %r5, %r1, %r1;\n"
    "\tbar.sync 0;\n"
    "\t{\n"
    "\t.param .b32 pa;\n"
    "\t.param .b32 pr;\n"
    "\tst.param.b32 [pa], %r1;\n"
    "\tcall.uni (pr), g, (pa);\n"
    "\tld.param.b32 %r6, [pr];\n"
    "\t}\n"
    "$L_a:\n"
    "\texit;\n"
    "}\n"
    "\n"
    ".visible .entry k2(.param .u64 p)\n"
    "{\n"
    "\t.reg .pred %p<2>;\n"
    "\t.reg .b32 %r<3>;\n"
    "\t.reg .f64 %fd<3>;\n"
    "\t.reg .b64 %rd<3>;\n"
    "\tld.param.u64 %rd1, [p];\n"
    "\tcvta.to.global.u64 %rd2, %rd1;\n"
    "\tvote.sync.ballot.b32 %r1, %p1, -1;\n"
    "\tdiv.rn.f64 %fd1, %fd2, %fd2;\n"
    "\tmax.f64 %fd2, %fd1, 0d3FF0000000000000;\n"
    "\tst.global.v2.f64 [%rd2+8], {%fd1, %fd2};\n"
    "\tret;\n"
    "}\n";

static const char *const unit_names[] = {"ALU", "SP", "INT", "SFU", "DP", "TENSOR", "MEM",
                                         "BAR", "CTRL", "NONE"};
static const char *const lat_names[LAT__COUNT] = {"-", "ADD", "MAX", "MUL", "MAD", "DIV",
                                                  "SHFL", "SFU", "TENSOR"};
static const char *const rf_names[RF__COUNT] = {"p", "h", "r", "d"};

/* One line per instruction: op, unit, latency class, width x vec, space, flags, PTX line,
 * .loc, destinations and sources. */
static char *dump_facts(const struct ir_module *m, const struct ir_func *f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&buf, &len);
    static const char *const flag_names[] = {"branch", "barrier", "atomic", "call", "exit",
                                             "load", "store", "ret", "ptxplus", "uniform",
                                             "warpsync", "fence", "term"};
    for (uint32_t pc = 0; pc < f->ninsns; pc++) {
        const struct ir_insn *in = &f->insns[pc];
        fprintf(o, "%u %s %s/%s w%ux%u sp%u", pc, ir_op_name((enum ir_op)in->op),
                unit_names[in->unit], lat_names[in->lat < LAT__COUNT ? in->lat : 0], in->width,
                in->vec, in->space);
        for (unsigned b = 0; b < 13; b++)
            if (in->iflags & (1u << b))
                fprintf(o, " %s", flag_names[b]);
        fprintf(o, " L%u", in->line);
        if (in->loc_file)
            fprintf(o, " %s:%u", ir_str(m, m->files[in->loc_file]), in->loc_line);
        uint32_t n;
        const struct ir_regref *r = ir_insn_regs(f, in, &n);
        for (int dst = 1; dst >= 0; dst--) {
            fputs(dst ? " D[" : " S[", o);
            const char *sep = "";
            for (uint32_t i = 0; i < n; i++)
                if (r[i].dst == dst) {
                    fprintf(o, "%s%s%u", sep, rf_names[r[i].rf], r[i].slot);
                    if (r[i].n > 1)
                        fprintf(o, "x%u", r[i].n);
                    sep = " ";
                }
            fputc(']', o);
        }
        fputc('\n', o);
    }
    fclose(o);
    return buf;
}

/* Predecoded facts of a parsed kernel and .func, asserted exactly (dump_facts). */
static void test_facts(void)
{
    struct ir_module *m = NULL;
    char *dg = NULL;
    size_t dlen = 0;
    FILE *d = open_memstream(&dg, &dlen);
    struct fe_opts opts = {.diag = d, .verify = true};
    int r = fe_load(facts_ptx, sizeof facts_ptx - 1, "facts.ptx", &opts, &m);
    fclose(d);
    if (!is_int(r, 0, "facts: loads and verifies")) {
        diag("%s", dg ? dg : "");
        free(dg);
        return;
    }
    free(dg);
    int k = ir_func_lookup(m, "k");
    ok(k >= 0, "facts: kernel k");
    char *s = dump_facts(m, &m->funcs[k]);
    /* slots in declaration order per register file: %p<3> -> p0..p2, %r<8> -> r0..r7,
       %f<6> -> r8..r13, %fd<3> -> d0..d2, %rd<4> -> d3..d6 */
    is_str(s,
           "0 ld MEM/- w8x1 sp6 load L22 kern.cu:10 D[d4] S[]\n"
           "1 mov INT/ADD w0x1 sp0 L23 kern.cu:10 D[r1] S[]\n"
           "2 setp INT/ADD w0x1 sp0 L25 kern.cu:11 D[p1] S[r1]\n"
           "3 bra CTRL/- w0x1 sp0 branch uniform term L26 kern.cu:11 D[] S[p1]\n"
           "4 mad INT/MAD w0x1 sp0 L27 kern.cu:11 D[r2] S[r1]\n"
           "5 fma SP/MAD w0x1 sp0 L28 kern.cu:11 D[r9] S[r10 r11 r12]\n"
           "6 sqrt DP/SFU w0x1 sp0 L29 kern.cu:11 D[d1] S[d2]\n"
           "7 ld MEM/- w4x4 sp4 load L30 kern.cu:11 D[r9 r10 r11 r12] S[d4]\n"
           "8 atom MEM/- w4x1 sp4 atomic load store L31 kern.cu:11 D[r3] S[d4 r2]\n"
           "9 shfl INT/SHFL w0x1 sp0 warpsync L32 kern.cu:11 D[r4 p2] S[r2]\n"
           "10 min INT/MAX w0x1 sp0 L33 kern.cu:11 D[r5] S[r1 p2]\n"
           "11 bar BAR/- w0x1 sp0 barrier L34 kern.cu:11 D[] S[]\n"
           "12 st MEM/- w4x1 sp6 store L38 kern.cu:11 D[] S[r1]\n"
           "13 call CTRL/- w0x1 sp0 call uniform L39 kern.cu:11 D[] S[]\n"
           "14 ld MEM/- w4x1 sp6 load L40 kern.cu:11 D[r6] S[]\n"
           "15 exit CTRL/- w0x1 sp0 exit term L43 kern.cu:11 D[] S[]\n",
           "facts: unit, latency class, width, space, flags, lines, .loc, register lists");
    free(s);
    int g = ir_func_lookup(m, "g");
    s = dump_facts(m, &m->funcs[g]);
    is_str(s,
           "0 ld MEM/- w4x1 sp6 load L9 D[r1] S[]\n"
           "1 st MEM/- w4x1 sp6 store L10 D[] S[r1]\n"
           "2 ret CTRL/- w0x1 sp0 ret term L11 D[] S[]\n",
           "facts: .func g (ret of a .func is not an exit)");
    free(s);
    s = dump_facts(m, &m->funcs[ir_func_lookup(m, "k2")]);
    is_str(s,
           "0 ld MEM/- w8x1 sp6 load L52 D[d4] S[]\n"
           "1 cvta INT/ADD w0x1 sp4 L53 D[d5] S[d4]\n"
           "2 vote INT/SHFL w0x1 sp0 warpsync L54 D[r1] S[p1]\n"
           "3 div DP/DIV w0x1 sp0 L55 D[d1] S[d2]\n"
           "4 max DP/MAX w0x1 sp0 L56 D[d2] S[d1]\n"
           "5 st MEM/- w8x2 sp4 store L57 D[] S[d5 d1 d2]\n"
           "6 ret CTRL/- w0x1 sp0 exit ret term L58 D[] S[]\n",
           "facts: cvta/vote write operand 0, f64 on DP, vector store sources, ret of a kernel "
           "exits");
    free(s);
    ir_module_free(m);
}

/* Load a fixture and sum up its shared layout: "NAME=BYTES/END " per kernel
 * (ir_func.shared_size, ir_func.shared_extent),
 * "NAME=OFFSET " per .shared variable (dynamic ones included), "module=BYTES". NULL (and a
 * failed test) when it does not load. */
static char *shared_summary(const char *path)
{
    struct ir_module *m = NULL;
    struct fe_opts opts = {.diag = stderr, .verify = true};
    if (!is_int(fe_load_file(path, &opts, &m), 0, "shared layout: %s loads", path))
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&buf, &len);
    for (uint32_t i = 0; i < m->nfuncs; i++)
        if (m->funcs[i].is_entry)
            fprintf(o, "%s=%u/%u ", ir_str(m, m->funcs[i].name), m->funcs[i].shared_size,
                    m->funcs[i].shared_extent);
    for (uint32_t i = 0; i < m->nsyms; i++)
        if (m->syms[i].space == SP_SHARED)
            fprintf(o, "%s=%llu ", ir_str(m, m->syms[i].name),
                    (unsigned long long)m->syms[i].offset);
    fprintf(o, "module=%llu", (unsigned long long)m->shared_size);
    fclose(o);
    ir_module_free(m);
    return buf;
}

/* Static shared layout per kernel (predecode.c pd_layout_shared): each kernel's size is what
 * ptxas -v prints for it (tests/shared_size.t checks that on every fixture), and variables
 * of different kernels share offsets (source order, each after the variables placed before
 * it that share a kernel with it). */
static void test_shared_layout(void)
{
    static const struct {
        const char *path, *want, *what;
    } cases[] = {
        {"fixtures/cases/shared_layout.ptx",
         "k1=100/100 k2=64/64 k3=18/18 k4=68/68 k5=52/52 k6=100/100 modx=0 mody=0 f1s=24 "
         "f2s=0 unused=0 a=0 b=8 c=16 k4s=64 k5s=48 module=100",
         "reached variables (module scope, callees', indirect calls), a kernel's never "
         "overlap, other kernels' may"},
        {"fixtures/ptx/exec/shared_per_kernel.ptx",
         "ka=40960/40960 kb=32832/32832 kc=16400/16400 ga=0 unused_mod=40960 dyn=16400 fs=0 "
         "kbs=64 kcs=0 module=41984",
         "dynamic past the kernels naming it, unreached variables past everything"},
        {"fixtures/cases/shared_order.ptx",
         "tA=9/9 tB=16/16 tC=10/18 tD=16/16 tI=833/833 m8=0 fas=0 fbs=8 fcs=16 o=8 o2=17 "
         "s1=0 s2=400 own=800 module=833",
         "sizes padded as ptxas pads them; one offset per variable leaves tC a gap (extent 18 "
         "past its 10 bytes)"},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = shared_summary(cases[i].path);
        if (got)
            is_str(got, cases[i].want, "shared layout: %s", cases[i].what);
        free(got);
    }
}

/* fe_cache: the same text is loaded once (same module back), keyed by XXH3 of the text;
 * different text is a different module; a failing load is not cached. */
static void test_cache(void)
{
    struct fe_cache *c = fe_cache_new();
    const struct ir_module *a = NULL, *b = NULL, *x = NULL;
    struct fe_opts opts = {0};
    int r1 = fe_cache_load(c, facts_ptx, sizeof facts_ptx - 1, "a.ptx", &opts, &a);
    char *copy = strdup(facts_ptx); /* same bytes at another address */
    int r2 = fe_cache_load(c, copy, strlen(copy), "b.ptx", &opts, &b);
    is_int(r1, 0, "cache: first load");
    is_int(r2, 0, "cache: second load");
    ok(a && a == b, "cache: the same text gives the same module (parsed once)");
    ok(a && strcmp(a->filename, "a.ptx") == 0, "cache: the module keeps the first name");
    struct ir_module *m = NULL;
    fe_load(facts_ptx, sizeof facts_ptx - 1, "c.ptx", &opts, &m);
    ok(a && m && m->hash == a->hash && m->hash != 0, "cache: key is the module's text hash");
    ir_module_free(m);
    copy[strlen(copy) - 3] = ' '; /* "exit;\n}\n" -> "exit; }\n": different text */
    copy[strlen(copy) - 2] = '}';
    copy[strlen(copy) - 1] = '\n';
    int r3 = fe_cache_load(c, copy, strlen(copy), "c.ptx", &opts, &x);
    is_int(r3, 0, "cache: changed text loads");
    ok(x && x != a && x->hash != a->hash, "cache: changed text is another module");
    char *dg = NULL;
    size_t dl = 0;
    FILE *d = open_memstream(&dg, &dl);
    struct fe_opts eo = {.diag = d};
    const struct ir_module *e = (const struct ir_module *)1;
    int r4 = fe_cache_load(c, "bogus", 5, "bad.ptx", &eo, &e);
    fclose(d);
    ok(r4 < 0 && e == NULL, "cache: a failing load returns an error and no module");
    free(dg);
    free(copy);
    fe_cache_free(c);
}

/* ====================================================== the verifier rejects broken IR */

static const char vbad_ptx[] =
    ".version 9.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .entry v(.param .u32 n)\n"
    "{\n"
    ".reg .pred %p<2>;\n"
    ".reg .b32 %r<4>;\n"
    "ld.param.u32 %r1, [n];\n"
    "setp.eq.u32 %p1, %r1, 0;\n"
    "@%p1 bra $L_else;\n"
    "add.u32 %r2, %r1, 1;\n"
    "bra $L_end;\n"
    "$L_else:\n"
    "add.u32 %r2, %r1, 2;\n"
    "$L_end:\n"
    "exit;\n"
    "}\n";

/* Verifier output (messages only: the first line of each diagnostic) for m. */
static char *verify_msgs(const struct ir_module *m, int *rc)
{
    char *buf = NULL, *out = NULL;
    size_t len = 0, olen = 0;
    FILE *d = open_memstream(&buf, &len);
    *rc = ir_verify(m, d);
    fclose(d);
    FILE *o = open_memstream(&out, &olen);
    for (char *l = buf; l && *l;) {
        char *e = strchr(l, '\n');
        size_t n = e ? (size_t)(e - l) : strlen(l);
        if (strstr(l, ": error: ") && strstr(l, ": error: ") < l + n)
            fprintf(o, "%.*s\n", (int)n, l);
        l = e ? e + 1 : l + n;
    }
    fclose(o);
    free(buf);
    return out;
}

static void test_verify_rejects(void)
{
    struct ir_module *m = NULL;
    struct fe_opts opts = {.diag = stderr};
    if (!is_int(fe_load(vbad_ptx, sizeof vbad_ptx - 1, "v.ptx", &opts, &m), 0, "vbad loads"))
        return;
    struct ir_func *f = &m->funcs[0];
    int rc;
    char *s = verify_msgs(m, &rc);
    is_int(rc, 0, "verifier: intact module accepted");
    is_str(s, "", "verifier: no messages");
    free(s);
    is_uint(f->insns[2].reconv, 6, "branch at pc 2 reconverges at the join (pc 6)");

    /* a reconvergence PC that is not the ipdom */
    f->insns[2].reconv = 3;
    s = verify_msgs(m, &rc);
    is_int(rc, -1, "verifier: wrong reconvergence PC is one error");
    is_str(s, "v.ptx:10:6: error: pc 2: reconvergence PC 3, but the immediate post-dominator "
              "starts at 6\n",
           "verifier: wrong reconvergence PC reported at the branch");
    free(s);

    /* ... and a post-dominator tree that agrees with it: caught by the tree check and by
       the path check (a path from the branch reaches the exit avoiding pc 3) */
    uint32_t old = f->cfg->blocks[0].ipdom;
    f->cfg->blocks[0].ipdom = 1;
    s = verify_msgs(m, &rc);
    is_str(s,
           "v.ptx:10:6: error: edge B0->B2: ipdom(B0) does not post-dominate the successor\n"
           "v.ptx:10:6: error: pc 2: reconvergence PC 3 does not post-dominate the branch\n",
           "verifier: unsound reconvergence PC caught by the tree and the path checks");
    free(s);
    f->cfg->blocks[0].ipdom = old;
    f->insns[2].reconv = 6;

    /* a register read past the declared registers, a label out of range */
    struct ir_opnd *o = &f->opnds[f->insns[3].opnd + 1];
    uint32_t slot = o->slot;
    o->slot = f->ndeclared[RF_B32];
    struct ir_opnd *lab = &f->opnds[f->insns[4].opnd];
    uint64_t pc = lab->imm.u;
    lab->imm.u = 99;
    s = verify_msgs(m, &rc);
    is_int(rc, -2, "verifier: two errors");
    is_str(s,
           "v.ptx:11:1: error: operand 1: register slot 4 (file 2) is not a declared register "
           "(4 declared)\n"
           "v.ptx:12:1: error: operand 0: label PC 99 out of range (7 instructions)\n",
           "verifier: undeclared register and out-of-range label reported");
    free(s);
    o->slot = slot;
    lab->imm.u = pc;
    s = verify_msgs(m, &rc);
    is_int(rc, 0, "verifier: repaired module accepted again");
    free(s);
    ir_module_free(m);
}

/* Texture operands through predecode and the verifier: a symbol handle and an immediate
 * coordinate get constant slots, coordinate registers are sources in the regrefs, and the
 * verifier checks the handle count; a PTXPlus g[...] operand's space is checked too. */
static const char tex_ptx[] =
    ".version 9.0\n.target sm_90\n.address_size 64\n"
    ".global .texref t;\n"
    ".visible .entry k(.param .u64 p)\n{\n"
    "\t.reg .f32 %f<6>;\n\t.reg .b32 %r<3>;\n"
    "\ttex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [t, {0f3F000000, %f5}];\n"
    "\ttex.1d.v4.s32.s32 {%r1, %r2, %r1, %r2}, [t, {7}];\n"
    "\tret;\n}\n";

static void test_tex_operands(void)
{
    struct ir_module *m = NULL;
    struct fe_opts opts = {.diag = stderr, .verify = true};
    if (!is_int(fe_load(tex_ptx, sizeof tex_ptx - 1, "tex.ptx", &opts, &m), 0,
                "tex: loads and verifies"))
        return;
    struct ir_func *f = &m->funcs[0];
    /* operands: d, the (absent) |p of the d|p item, then the texture operand */
    const struct ir_opnd *a = ir_opnd(f, &f->insns[0], 2);
    is_int(a->kind, OPK_TEX, "tex: operand 2 is a texture operand");
    is_int(a->n, 3, "tex: handle + two coordinates");
    const struct ir_opnd *h = &f->opnds[a->first];
    const struct ir_opnd *c0 = &f->opnds[a->first + 1];
    ok(h->kind == OPK_SYM && (h->flags & OPF_CONST) && h->slot >= f->ndeclared[h->rf] &&
           h->slot < f->nslots[h->rf],
       "tex: the handle symbol has a constant slot");
    ok(c0->kind == OPK_IMM && (c0->flags & OPF_CONST) && c0->rf == RF_B32 &&
           c0->slot >= f->ndeclared[RF_B32] && c0->slot < f->nslots[RF_B32],
       "tex: the immediate coordinate has a constant slot");
    if (c0->rf == RF_B32 && c0->slot >= f->ndeclared[RF_B32] && c0->slot < f->nslots[RF_B32])
        is_uint(f->const_vals[RF_B32][c0->slot - f->ndeclared[RF_B32]], 0x3F000000u,
                "tex: its value is 0.5f");
    const struct ir_opnd *c1 = &f->opnds[ir_opnd(f, &f->insns[1], 2)->first + 1];
    ok(c1->kind == OPK_IMM && (c1->flags & OPF_CONST) && c1->slot >= f->ndeclared[c1->rf],
       "tex.1d: the immediate coordinate 7 has a constant slot");
    ok(f->naddr_slots >= 1 && f->addr_slots[0].sym == (uint32_t)ir_sym_lookup(m, "t"),
       "tex: the handle's address slot names t");
    char *s = dump_facts(m, f);
    /* %f<6> -> r0..r5, %r<3> -> r6..r8: destinations first; the coordinate %f5 is read */
    is_str(s,
           "0 tex MEM/- w4x4 sp0 load L9 D[r1 r2 r3 r4] S[r5]\n"
           "1 tex MEM/- w4x4 sp0 load L10 D[r7 r8] S[]\n"
           "2 ret CTRL/- w0x1 sp0 exit ret term L11 D[] S[]\n",
           "tex: register references");
    free(s);
    /* the verifier: a texture operand with 3 handles, a PTXPlus operand in .param space */
    struct ir_opnd *ta = &f->opnds[f->insns[0].opnd + 2];
    ta->imm.u = 3;
    int rc;
    s = verify_msgs(m, &rc);
    is_str(s, "tex.ptx:9:2: error: operand 2: texture operand with 3 handles of 3 elements\n",
           "verifier: bad texture handle count");
    free(s);
    ta->imm.u = 1;
    ir_module_free(m);

    static const char pp_ptx[] = ".version 1.4\n.target sm_10\n"
                                 ".entry e()\n{\n\t.reg .u32 $r<3>;\n"
                                 "\tmov.u32 $r1, g[$r2];\n\tret;\n}\n";
    m = NULL;
    if (!is_int(fe_load(pp_ptx, sizeof pp_ptx - 1, "pp.ptx", &opts, &m), 0,
                "ptxplus g[]: loads and verifies"))
        return;
    f = &m->funcs[0];
    struct ir_opnd *g = &f->opnds[f->insns[0].opnd + 1];
    is_int(g->kind, OPK_PP_MEM, "ptxplus: g[...] is a PTXPlus memory operand");
    is_uint(g->first, SP_GLOBAL, "ptxplus: in .global");
    g->first = SP_PARAM;
    s = verify_msgs(m, &rc);
    is_str(s, "pp.ptx:6:2: error: operand 1: PTXPlus memory operand space 6 is not g/s/l/ce\n",
           "verifier: PTXPlus operand space checked");
    free(s);
    ir_module_free(m);
}

/* ======================================================= every fixture through the verifier */


static char *fx_paths[4096];
static int fx_n;

static int fx_collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    size_t n = strlen(path);
    if (type == FTW_F && n > 4 && strcmp(path + n - 4, ".ptx") == 0 && fx_n < 4096)
        fx_paths[fx_n++] = strdup(path);
    return 0;
}

static int fx_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* fe_load (predecode + CFG) and ir_verify on every .ptx under fixtures/ that is meant to load
 * (files with //@ expect-error lines are diagnostics tests and are skipped). */
static void test_fixtures(void)
{
    if (nftw("fixtures", fx_collect, 16, FTW_PHYS) != 0 || fx_n == 0) {
        skip(1, "no fixtures directory (run from the repository root)");
        return;
    }
    qsort(fx_paths, (size_t)fx_n, sizeof fx_paths[0], fx_cmp);
    for (int i = 0; i < fx_n; i++) {
        FILE *fp = fopen(fx_paths[i], "r");
        char *text = NULL;
        size_t len = 0;
        bool expect_error = false;
        if (fp) {
            FILE *mem = open_memstream(&text, &len);
            char line[4096];
            while (fgets(line, sizeof line, fp)) {
                if (strstr(line, "//@ expect-error"))
                    expect_error = true;
                fputs(line, mem);
            }
            fclose(mem);
            fclose(fp);
        }
        free(text);
        if (expect_error) {
            skip(1, "diagnostics fixture");
            free(fx_paths[i]);
            continue;
        }
        char *buf = NULL;
        size_t blen = 0;
        FILE *dg = open_memstream(&buf, &blen);
        struct fe_opts opts = {.diag = dg, .verify = true};
        struct ir_module *m = NULL;
        int r = fe_load_file(fx_paths[i], &opts, &m);
        int v = -1, nocfg = 0;
        if (r == 0 && m) {
            v = ir_verify(m, dg);
            for (uint32_t k = 0; k < m->nfuncs; k++)
                if (m->funcs[k].defined && !m->funcs[k].cfg)
                    nocfg++;
        }
        fclose(dg);
        if (r != 0) {
            /* loading is the parser's job (tests/fixtures.t reports it); here a file that
             * does not load yet is a TODO, and only the passes' results are asserted */
            todo_start("front end cannot load this fixture yet");
            ok(0, "fixture %s loads", fx_paths[i]);
            todo_end();
            diag("%.400s", buf ? buf : "");
        } else if (!ok(v == 0 && nocfg == 0, "fixture %s: every function has a CFG, verifies",
                       fx_paths[i])) {
            diag("verify %d, functions without CFG %d:\n%s", v, nocfg, buf ? buf : "");
        }
        free(buf);
        if (m)
            ir_module_free(m);
        free(fx_paths[i]);
    }
}

/* cfg_undef_regs: exactly the registers some path reads before writing them. */
static const char undef_ptx[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry u(.param .u64 u_p)\n{\n"
    "\t.reg .pred %p<3>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<3>;\n\t.reg .b16 %h<2>;\n"
    "\tld.param.u64 %rd1, [u_p];\n"          /* rd1 defined before use */
    "\tmov.u32 %r1, %tid.x;\n"
    "\tsetp.eq.u32 %p1, %r1, 0;\n"
    "\t@%p1 mov.u32 %r2, 7;\n"              /* guarded: r2 stays undefined */
    "\tadd.u32 %r3, %r3, %r2;\n"            /* r3 read first; r2 read after a guarded write */
    "\t@%p1 bra $L_a;\n"
    "\tmov.u32 %r4, 1;\n"                    /* r4 on one side only */
    "\tmov.u32 %r5, 2;\n"                    /* r5 on both sides */
    "\tbra $L_b;\n"
    "$L_a:\n"
    "\tmov.u32 %r5, 3;\n"
    "$L_b:\n"
    "\tadd.u32 %r6, %r4, %r5;\n"
    "$L_loop:\n"
    "\tadd.u32 %r7, %r7, 1;\n"              /* r7: read at the loop head before any write */
    "\tcvt.u16.u32 %h1, %r7;\n"
    "\tsetp.lt.u32 %p2, %r7, 4;\n"
    "\t@%p2 bra $L_loop;\n"
    "\tst.global.u32 [%rd1], %r6;\n"
    "\tst.global.u16 [%rd1+4], %h1;\n"
    "\tret;\n}\n";

static void test_undef_regs(void)
{
    struct ir_module *m = NULL;
    struct fe_opts opts = {0};
    if (!is_int(fe_load(undef_ptx, sizeof undef_ptx - 1, "u.ptx", &opts, &m), 0, "undef: loads"))
        return;
    const struct ir_func *f = &m->funcs[ir_func_lookup(m, "u")];
    uint64_t b[RF__COUNT][2] = {{0}};
    uint64_t *const out[RF__COUNT] = {b[RF_PRED], b[RF_B16], b[RF_B32], b[RF_B64]};
    is_int(cfg_undef_regs(f, f->cfg, out), 0, "undef: analysis runs");
    /* slots in declaration order: %p<3> p0..p2, %r<8> r0..r7, %rd<3> d0..d2, %h<2> h0..h1 */
    is_int((int)b[RF_B32][0], (1 << 2) | (1 << 3) | (1 << 4) | (1 << 7),
           "undef: r2 (guarded write), r3 (read first), r4 (one branch), r7 (loop head)");
    is_int((int)b[RF_PRED][0], 0, "undef: predicates all written before read");
    is_int((int)b[RF_B64][0], 0, "undef: rd1 written before read");
    is_int((int)b[RF_B16][0], 0, "undef: h1 written before read");
    /* no CFG: everything is marked */
    is_int(cfg_undef_regs(f, NULL, out), -1, "undef: no CFG gives up");
    is_int((int)b[RF_B32][0], 0xff, "undef: without a CFG every b32 register is marked");
    ir_module_free(m);
}

int main(void)
{
    test_facts();
    test_undef_regs();
    test_cache();
    test_verify_rejects();
    test_tex_operands();
    test_fixtures();
    test_shared_layout();
    return done_testing();
}
