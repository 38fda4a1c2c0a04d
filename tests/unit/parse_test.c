/*
 * tests/unit/parse_test.c — grammar + builder (ptx.y, build.c) on small in-memory modules:
 * decoded opcodes, modifiers, types, operands (registers -> slots, immediates in every form,
 * addresses, vectors, sinks, labels -> PCs, calls), variables with initializers and
 * relocations, diagnostics text and recovery, and the printer round trip.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "tests/tap.h"

static char errbuf[8192];

static struct ir_module *load(const char *src, int *rc)
{
    FILE *ef = fmemopen(errbuf, sizeof errbuf, "w");
    struct fe_opts o = {0};
    o.diag = ef;
    o.no_cfg = true;
    struct ir_module *m = NULL;
    *rc = fe_load(src, strlen(src), "t.ptx", &o, &m);
    fclose(ef);
    return m;
}

#define HDR ".version 8.0\n.target sm_80\n.address_size 64\n"

static const char *k1 = HDR
    ".global .align 4 .u32 g = 42;\n"
    ".global .align 8 .u64 tab[2] = {g, generic(g)+4};\n"
    ".const .align 4 .b8 bytes[] = {1, 2, 3};\n"
    ".func (.param .b32 r) f(.param .b32 a)\n{\n\t.reg .b32 %t;\n"
    "\tld.param.b32 %t, [a];\n\tst.param.b32 [r], %t;\n\tret;\n}\n"
    ".visible .entry k(.param .u64 k_p, .param .align 16 .b8 k_arr[24])\n"
    ".maxntid 128, 1, 1\n{\n"
    "\t.reg .pred %p<3>;\n\t.reg .b32 %r<10>;\n\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<5>;\n"
    "\tmov.u32 %r1, %tid.x;\n"                                   /* 0 */
    "\tadd.s32 %r2, %r1, -1;\n"                                  /* 1 */
    "\tmul.wide.s32 %rd1, %r1, 4;\n"                             /* 2 */
    "\tsetp.lt.and.s32 %p1|%p2, %r1, 0x20, %p0;\n"               /* 3 */
    "$L_loop:\n"
    "\t@!%p1 bra.uni $L_end;\n"                                  /* 4 */
    "\tld.global.nc.v4.f32 {%f0, %f1, _, %f3}, [%rd1+-16];\n"    /* 5 */
    "\tfma.rn.f32 %f0, %f1, 0f3F800000, 1.5;\n"                  /* 6 */
    "\tshfl.sync.bfly.b32 %r3|%p2, %r1, 1, 31, -1;\n"            /* 7 */
    "\tatom.global.add.u32 %r4, [g+4], 0b101;\n"                 /* 8 */
    "\t{\n\t.param .b32 p0;\n\t.param .b32 rv;\n\tst.param.b32 [p0], %r1;\n" /* 9 */
    "\tcall.uni (rv), f, (p0);\n\t}\n"                           /* 10 */
    "\tbra $L_loop;\n"                                           /* 11 */
    "$L_end:\n\tret;\n}\n";                                      /* 12 */

int main(void)
{
    int rc;
    struct ir_module *m = load(k1, &rc);
    is_int(rc, 0, "module loads");
    is_str(errbuf, "", "no diagnostics");
    if (!m) {
        bail_out("no module");
        return 1;
    }
    is_int(m->version_major * 10 + m->version_minor, 80, ".version");
    is_int(m->target_sm, 80, ".target");
    is_int(m->nfuncs, 2, "two functions");
    int ki = ir_func_lookup(m, "k");
    ok(ki == 1, "kernel found");
    const struct ir_func *f = &m->funcs[ki];
    is_int(f->is_entry, 1, "entry");
    is_int(f->nparam, 2, "kernel params");
    is_int(f->maxntid[0], 128, ".maxntid");
    is_int(f->ninsns, 13, "instruction count");
    is_int(f->ndeclared[RF_B32], 14, "b32 slots (%%r<10> and %%f<4>)");
    is_int(f->ndeclared[RF_PRED], 3, "pred slots");

    const struct ir_insn *in = &f->insns[0];
    is_int(in->op, OP_MOV, "mov");
    is_int(in->type[0], T_U32, "mov type");
    is_int(ir_opnd(f, in, 0)->slot, 1, "%%r1 slot");
    ok(ir_opnd(f, in, 0)->flags & OPF_DST, "dst flag");
    is_int(ir_opnd(f, in, 1)->kind, OPK_SREG, "sreg operand");
    is_int(ir_opnd(f, in, 1)->sreg, SR_TID_X, "%%tid.x");

    in = &f->insns[1];
    is_int(ir_opnd(f, in, 2)->kind, OPK_IMM, "immediate");
    is_int(ir_opnd(f, in, 2)->imm.i, -1, "negative immediate (s32, sign-extended)");

    in = &f->insns[2];
    is_int(in->mode, MODE_WIDE, "mul.wide mode");
    is_int(ir_opnd(f, in, 0)->rf, RF_B64, "wide destination is 64-bit");
    is_int(ir_opnd(f, in, 2)->rf, RF_B32, "wide immediate source is 32-bit");

    in = &f->insns[3];
    is_int(in->cmp, CMP_LT, "setp cmp");
    is_int(in->bop, BOP_AND, "setp bop");
    is_int(in->nopnd, 5, "setp p|q,a,b,c operands");
    is_int(ir_opnd(f, in, 1)->slot, 2, "second destination %%p2");
    is_int(ir_opnd(f, in, 3)->imm.u, 32, "hex immediate");

    in = &f->insns[4];
    is_int(in->op, OP_BRA, "bra");
    is_int(in->guard, 1, "guard slot");
    is_int(in->guard_neg, 1, "negated guard");
    is_int(ir_opnd(f, in, 0)->imm.u, 12, "forward label resolved");
    is_int(in->target, 12, "branch target");
    ok(in->fl & IR_FL(FL_UNI), ".uni flag");

    in = &f->insns[5];
    is_int(in->space, SP_GLOBAL, "ld space");
    is_int(in->vec, 4, "ld vec");
    ok(in->fl & IR_FL(FL_NC), ".nc flag");
    is_int(in->nmod, 4, "modifiers kept");
    is_int(f->mods[in->mod + 1], MOD_NC, "modifier order");
    const struct ir_opnd *v = ir_opnd(f, in, 0);
    is_int(v->kind, OPK_VEC, "vector operand");
    is_int(v->n, 4, "vector length");
    is_int(f->opnds[v->first + 2].kind, OPK_SINK, "sink element");
    is_int(f->opnds[v->first + 3].slot, 13, "element slot (%%f3 after %%r<10>)");
    const struct ir_opnd *a = ir_opnd(f, in, 1);
    is_int(a->kind, OPK_ADDR, "address");
    is_int(a->imm.i, -16, "address offset");
    is_int(a->slot, 1, "address base %%rd1");

    in = &f->insns[6];
    is_int(in->rnd, RND_RN, "rounding");
    is_uint(ir_opnd(f, in, 2)->imm.u, 0x3F800000u, "0f immediate bits");
    is_uint(ir_opnd(f, in, 3)->imm.u, 0x3FC00000u, "decimal float rounded to f32");

    in = &f->insns[7];
    is_int(in->mode, MODE_BFLY, "shfl mode");
    ok(in->fl & IR_FL(FL_SYNC), "shfl .sync");
    is_uint(ir_opnd(f, in, 5)->imm.u, 0xffffffffu, "-1 as u32 mask");

    in = &f->insns[8];
    is_int(in->mode, MODE_ADD, "atom mode");
    a = ir_opnd(f, in, 1);
    is_int(a->sym, (long long)ir_sym_lookup(m, "g"), "address symbol");
    is_int(a->imm.i, 4, "symbol offset");
    is_int(ir_opnd(f, in, 2)->imm.u, 5, "binary immediate");

    in = &f->insns[10];
    is_int(in->op, OP_CALL, "call");
    is_int(in->target, 0, "call target function index");
    is_int(ir_opnd(f, in, 0)->kind, OPK_PARAMS, "return list");
    is_int(ir_opnd(f, in, 1)->kind, OPK_FUNC, "callee");
    is_int(f->opnds[ir_opnd(f, in, 2)->first].kind, OPK_ADDR, "argument is a .param variable");
    is_int(f->insns[11].target, 4, "backward label");

    int gi = ir_sym_lookup(m, "g");
    ok(gi >= 0 && m->syms[gi].ninit == 4 && m->data[m->syms[gi].init] == 42, "scalar initializer");
    int ti = ir_sym_lookup(m, "tab");
    ok(ti >= 0 && m->syms[ti].nreloc == 2, "two relocations");
    if (ti >= 0 && m->syms[ti].nreloc == 2) {
        const struct ir_reloc *r = &m->relocs[m->syms[ti].reloc + 1];
        ok(r->at == 8 && r->generic && r->addend == 4 && r->sym == (uint32_t)gi,
           "generic(g)+4 relocation");
    }
    int bi = ir_sym_lookup(m, "bytes");
    ok(bi >= 0 && m->syms[bi].size == 3 && m->syms[bi].dims[0] == 3, "unsized array sized by init");

    /* printer round trip */
    char *p1 = NULL, *p2 = NULL;
    size_t n1, n2;
    FILE *o = open_memstream(&p1, &n1);
    ir_print_module(o, m);
    fclose(o);
    struct ir_module *m2 = load(p1, &rc);
    is_int(rc, 0, "printed module re-parses");
    if (m2) {
        o = open_memstream(&p2, &n2);
        ir_print_module(o, m2);
        fclose(o);
        is_str(p2, p1, "second print identical");
        is_int(m2->funcs[1].ninsns, f->ninsns, "same instruction count");
        int same = m2->funcs[1].ninsns == f->ninsns;
        for (uint32_t i = 0; same && i < f->ninsns; i++) {
            struct ir_insn x = f->insns[i], y = m2->funcs[1].insns[i];
            x.line = y.line = x.col = y.col = 0; /* source positions differ, nothing else */
            same = memcmp(&x, &y, sizeof x) == 0;
        }
        ok(same, "identical instructions");
        same = m2->funcs[1].nopnds == f->nopnds &&
               memcmp(m2->funcs[1].opnds, f->opnds, f->nopnds * sizeof *f->opnds) == 0;
        ok(same, "identical operands");
        ir_module_free(m2);
    }
    free(p1);
    free(p2);
    o = open_memstream(&p1, &n1);
    ir_print_insn(o, m, f, &f->insns[3]);
    fclose(o);
    is_str(p1, "setp.lt.and.s32 %p1|%p2, %r1, 32, %p0;", "ir_print_insn");
    free(p1);
    ir_module_free(m);

    /* diagnostics: exact text, several errors, summary */
    m = load(HDR ".entry e()\n{\n\t.reg .b32 %r<2>;\n\tfoo.u32 %r1;\n"
                 "\tadd.s33 %r1, %r1, 1;\n\tbra $nowhere;\n}\n", &rc);
    ok(m == NULL && rc == -3, "three errors");
    is_str(errbuf,
           "t.ptx:7:2: error: unknown instruction 'foo'\n\tfoo.u32 %r1;\n\t^\n"
           "t.ptx:8:5: error: unknown modifier '.s33' for 'add'\n\tadd.s33 %r1, %r1, 1;\n\t   ^\n"
           "t.ptx:9:6: error: undefined label '$nowhere'\n\tbra $nowhere;\n\t    ^\n"
           "3 errors generated.\n",
           "diagnostic text");
    m = load(HDR ".entry e()\n{\n\tret\n}\n", &rc);
    ok(m == NULL && strstr(errbuf, "t.ptx:7:1: error: syntax error at '}'") != NULL,
       "missing ';'");
    /* garbage never crashes */
    char junk[512];
    unsigned s = 12345;
    for (int i = 0; i < 200; i++) {
        for (size_t j = 0; j < sizeof junk - 1; j++) {
            s = s * 1103515245u + 12345u;
            static const char alpha[] = " .%{}[]();,:@!|<>+-_=abcdefrpu0123456789x\n\"$";
            junk[j] = alpha[(s >> 16) % (sizeof alpha - 1)];
        }
        junk[sizeof junk - 1] = 0;
        m = load(junk, &rc);
        ir_module_free(m);
    }
    ok(1, "random input survived");
    /* truncations of the good module */
    size_t L = strlen(k1);
    int bad = 0;
    for (size_t cut = 0; cut < L; cut += 7) {
        char *t = strndup(k1, cut);
        m = load(t, &rc);
        if (m && rc != 0)
            bad++;
        ir_module_free(m);
        free(t);
    }
    is_int(bad, 0, "truncated inputs: module only on success");
    return done_testing();
}
