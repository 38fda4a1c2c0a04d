/*
 * tests/unit/parse_test.c — grammar + builder (ptx.y, build.c) on small in-memory modules:
 * decoded opcodes, modifiers, types, operands (registers -> slots, immediates in every form,
 * addresses, vectors, sinks, labels -> PCs, calls), variables with initializers and
 * relocations, diagnostics text and recovery, and the printer round trip.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/build.h"
#include "frontend/frontend.h"
#include "tests/tap.h"

static char errbuf[8192];

static struct ir_module *load(const char *src, int *rc)
{
    errbuf[0] = 0;
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


/* Print m to a string (caller frees). */
static char *print_str(const struct ir_module *m)
{
    char *p = NULL;
    size_t n = 0;
    FILE *o = open_memstream(&p, &n);
    ir_print_module(o, m);
    fclose(o);
    return p;
}

/* Print instruction pc of function fi to a string (caller frees). */
static char *insn_str(const struct ir_module *m, int fi, uint32_t pc)
{
    char *p = NULL;
    size_t n = 0;
    FILE *o = open_memstream(&p, &n);
    ir_print_insn(o, m, &m->funcs[fi], &m->funcs[fi].insns[pc]);
    fclose(o);
    return p;
}

/* The printed module re-parses and prints identically (the body after the header comment). */
static void roundtrip(const struct ir_module *m, const char *what)
{
    int rc;
    char *p1 = print_str(m);
    struct ir_module *m2 = load(p1, &rc);
    ok(rc == 0 && m2, "%s: printed module re-parses", what);
    if (rc)
        diag("%s\n%s", errbuf, p1);
    if (m2) {
        char *p2 = print_str(m2);
        is_str(p2, p1, "%s: second print identical", what);
        free(p2);
        ir_module_free(m2);
    }
    free(p1);
}

/* ISA 9.0 operand and directive forms: texture / tensor-map coordinates, samplers, mask()
 * initializers, video selectors, vector components, function attributes, label lists. */
static const char *k2 = ".version 9.0\n.target sm_90\n.address_size 64\n"
    ".global .texref t;\n"
    ".global .samplerref smp = { addr_mode_0 = clamp_to_edge, filter_mode = linear, "
    "force_unnormalized_coords = 1 };\n"
    ".global .surfref sf;\n"
    ".global .align 4 .u32 g;\n"
    ".global .align 1 .u8 gm[4] = {0xFF(g), 0xFF00(g), 0xFF0000(generic(g)+4), 0xFF000000(g+8)};\n"
    ".global .align 4 .b32 arr2[2][2] = {{1, 2}, {3}};\n"
    ".visible .func .attribute(.unified(0x1234, 0xABCD)) fu()\n{\n\tret;\n}\n"
    ".func fp(.param .b32 a)\n.abi_preserve 8\n.abi_preserve_control 2\n{\n\tret;\n}\n"
    ".entry k(.param .u64 .ptr .global .align 16 k_p)\n.local_maxnreg 32\n{\n"
    "\t.reg .pred %p<2>;\n\t.reg .b32 %r<8>;\n\t.reg .f32 %f<8>;\n\t.reg .b64 %rd<4>;\n"
    "\t.reg .v4 .f32 %v;\n\t.reg .f16 %h<6>;\n"
    "\ttex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [t, {%f4, %f5}];\n"          /* 0 */
    "\ttex.a1d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [t, smp, {%r1, %f4}];\n"    /* 1 */
    "\tcp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
    "[%r1], [%rd2, {%r3, %r4}], [%r2];\n"                                    /* 2 */
    "\tsust.b.1d.b32.trap [sf, {%r1}], {%r2};\n"                             /* 3 */
    "\tvadd.s32.u32.s32.sat %r5, %r1.b0, %r2.h1;\n"                          /* 4 */
    "\tvadd4.s32.s32.s32.sat %r5.b20, %r1.b3210, %r2.b7654, %r3;\n"          /* 5 */
    "\tmov.f32 %f6, %v.z;\n"                                                  /* 6 */
    "\tmov.f16 %h1, 0f3FC00000;\n"                                            /* 7 */
    "\tmov.f16 %h2, 0f3F801000;\n"                                            /* 8: 1+2^-8 */
    "\tmov.f16 %h3, 0f33800000;\n"                                            /* 9: 2^-24 */
    "\tmov.f16 %h4, 0f477FF000;\n"                                            /* 10: 65520 */
    "\tmov.f16 %h5, 0f3F803000;\n"                                            /* 11: tie, odd */
    "\tand.b32 %r6, %r1, 1;\n"                                                /* 12 */
    "\tkt: .branchtargets La, Lb;\n"
    "\tbrx.idx %r6, kt;\n"                                                    /* 13 */
    "La:\n\tadd.s32 %r7, %r7, 1;\n"                                          /* 14 */
    "Lb:\n\tret;\n}\n";

/* PTXPlus (GPGPU-Sim): memory operands as ALU operands, halves, flag destinations,
 * condition-code guards, $ofs post-increment. */
static const char *k3 = ".version 1.4\n.target sm_10, map_f64_to_f32\n"
    ".const .align 4 .b8 ce1c0[16];\n"
    ".entry pp(.param .u32 pp_a)\n{\n"
    "\t.reg .u32 $r<8>;\n\t.reg .pred $p<2>;\n\t.reg .u32 $o127;\n\t.reg .u32 $ofs<2>;\n"
    "l0: add.u32 $r1, s[0x0010], $r2;\n"                                     /* 0 */
    "l1: mul24.lo.u32 $r0, $r0.lo, $r1.hi;\n"                                /* 1 */
    "l2: add.u32 $p0|$r3, $r1, ce1c0[0x0004];\n"                             /* 2 */
    "l3: set.le.s32.s32 $p1|$o127, g[$r0+0x8], $r0;\n"                       /* 3 */
    "l4: @$p1.ne bra l0;\n"                                                  /* 4 */
    "l5: mov.u32 $r7, l[$ofs1+=0x4];\n"                                      /* 5 */
    "l6: mov.u32 g[$r0], $r7;\n"                                             /* 6 */
    "l7: exit;\n}\n";

static void test_isa90(void)
{
    int rc;
    struct ir_module *m = load(k2, &rc);
    is_int(rc, 0, "ISA 9.0 forms load");
    is_str(errbuf, "", "ISA 9.0 forms: no diagnostics");
    if (!m)
        return;
    int ti = ir_sym_lookup(m, "t"), si = ir_sym_lookup(m, "smp"), fi = ir_sym_lookup(m, "sf");
    int ki = ir_func_lookup(m, "k");
    const struct ir_func *f = &m->funcs[ki];

    /* texture operand: [t, {%f4, %f5}] */
    const struct ir_insn *in = &f->insns[0];
    const struct ir_opnd *a = ir_opnd(f, in, 2);
    is_int(a->kind, OPK_TEX, "tex coordinate operand kind");
    is_int(a->n, 3, "handle + two coordinates");
    is_int(a->imm.u, 1, "one handle");
    is_int(f->opnds[a->first].kind, OPK_SYM, "texture handle is the .texref variable");
    is_int(f->opnds[a->first].sym, ti, "texture handle symbol");
    is_int(f->opnds[a->first + 1].slot, 12, "first coordinate %%f4 (after %%r<8>)");
    is_int(f->opnds[a->first + 2].type, T_F32, "coordinate type from the instruction");
    /* [t, smp, {%r1, %f4}] */
    a = ir_opnd(f, &f->insns[1], 2);
    is_int(a->imm.u, 2, "texture and sampler handles");
    is_int(f->opnds[a->first + 1].sym, si, "sampler handle symbol");
    is_int(f->opnds[a->first + 2].type, T_U32, "a1d array index is .u32");
    is_int(f->opnds[a->first + 3].type, T_F32, "a1d coordinate is .f32");
    /* tensor map in a register */
    a = ir_opnd(f, &f->insns[2], 1);
    is_int(a->kind, OPK_TEX, "tensor coordinate operand");
    is_int(f->opnds[a->first].kind, OPK_REG, "tensor map address register");
    is_int(f->opnds[a->first].rf, RF_B64, "tensor map register file");
    is_int(f->opnds[a->first].slot, 2, "%%rd2");
    is_int(a->n, 3, "tensor map + 2 coordinates");
    is_int(f->opnds[a->first + 2].slot, 4, "coordinate %%r4");
    a = ir_opnd(f, &f->insns[3], 0);
    is_int(f->opnds[a->first].sym, fi, "surface handle symbol");
    is_int(ir_opnd(f, &f->insns[3], 1)->kind, OPK_VEC, "sust value vector");

    /* video selectors */
    in = &f->insns[4];
    a = ir_opnd(f, in, 1);
    is_int(a->kind, OPK_REG, "selected register");
    is_int(a->slot, 1, "selector keeps the register");
    is_int(IR_SEL_LETTER(a->imm.u), 'b', "byte selector letter");
    is_int(IR_SEL_NDIGITS(a->imm.u), 1, "byte selector digits");
    is_int(IR_SEL_DIGIT(a->imm.u, 0), 0, ".b0");
    is_int(IR_SEL_LETTER(ir_opnd(f, in, 2)->imm.u), 'h', "half selector");
    is_int(IR_SEL_DIGIT(ir_opnd(f, in, 2)->imm.u, 0), 1, ".h1");
    in = &f->insns[5];
    is_uint(ir_opnd(f, in, 1)->imm.u, IR_SEL_MAKE('b', 4) | 3u << 16 | 2u << 19 | 1u << 22,
            ".b3210 encoding");
    ok(ir_opnd(f, in, 0)->flags & OPF_DST, "destination with a mask selector");
    is_int(IR_SEL_NDIGITS(ir_opnd(f, in, 0)->imm.u), 2, ".b20 mask");
    char *p = insn_str(m, ki, 5);
    is_str(p, "vadd4.s32.s32.s32.sat %r5.b20, %r1.b3210, %r2.b7654, %r3;", "selectors print");
    free(p);
    /* vector component: %v is 4 slots after %f<8> */
    a = ir_opnd(f, &f->insns[6], 1);
    is_int(a->slot, 8 + 8 + 2, "%%v.z slot");
    is_int(a->n, 1, "one component");
    p = insn_str(m, ki, 6);
    is_str(p, "mov.f32 %f6, %v.z;", "component prints");
    free(p);
    /* f16 immediates rounded with integer code */
    is_uint(ir_opnd(f, &f->insns[7], 1)->imm.u, 0x3E00, "1.5 as f16");
    is_uint(ir_opnd(f, &f->insns[8], 1)->imm.u, 0x3C00, "1+2^-8 rounds down (f16)");
    is_uint(ir_opnd(f, &f->insns[9], 1)->imm.u, 0x0001, "2^-24: smallest f16 subnormal");
    is_uint(ir_opnd(f, &f->insns[10], 1)->imm.u, 0x7C00, "65520 rounds to f16 infinity");
    is_uint(ir_opnd(f, &f->insns[11], 1)->imm.u, 0x3C02, "tie rounds to even (f16)");
    /* label list keeps its name */
    in = &f->insns[13];
    is_int(ir_opnd(f, in, 1)->kind, OPK_TABLE, "brx.idx table");
    is_int(f->ntable_names, 1, "one named label list");
    p = insn_str(m, ki, 13);
    is_str(p, "brx.idx %r6, kt;", "brx.idx prints the list name");
    free(p);
    is_int(f->local_maxnreg, 32, ".local_maxnreg");
    const struct ir_sym *kp = &m->syms[f->param];
    ok((kp->flags & VF_PARAM_PTR) && kp->ptr_space == SP_GLOBAL && kp->ptr_align == 16,
       ".param .ptr .global .align 16");
    /* the .align after .ptr is the pointee's: the parameter keeps its natural alignment */
    is_uint(kp->align, 8, ".param .u64 .ptr ... .align 16: the parameter is 8-aligned");
    const struct ir_func *fu = &m->funcs[ir_func_lookup(m, "fu")];
    ok(fu->has_unified && fu->unified[0] == 0x1234 && fu->unified[1] == 0xABCD,
       ".attribute(.unified(...))");
    const struct ir_func *fp = &m->funcs[ir_func_lookup(m, "fp")];
    ok(fp->abi_preserve == 8 && fp->abi_preserve_control == 2, ".abi_preserve(_control)");

    /* sampler initializer: (field, value) pairs */
    const struct ir_sym *s = &m->syms[si];
    is_int(s->ntex_init, 3, "three sampler members");
    uint32_t kv[6] = {0};
    if (s->ntex_init == 3)
        memcpy(kv, m->data + s->tex_init, sizeof kv);
    ok(kv[0] == TXF_ADDR_MODE_0 && kv[1] == TXV_CLAMP_TO_EDGE && kv[2] == TXF_FILTER_MODE &&
           kv[3] == TXV_LINEAR && kv[4] == TXF_FORCE_UNNORMALIZED_COORDS && kv[5] == 1,
       "sampler members decoded");
    /* mask() initializers */
    s = &m->syms[ir_sym_lookup(m, "gm")];
    is_int(s->nreloc, 4, "four byte relocations");
    if (s->nreloc == 4) {
        const struct ir_reloc *r = &m->relocs[s->reloc];
        ok(r[0].mask_byte == 1 && r[0].size == 1 && r[0].at == 0, "0xFF(g): byte 0");
        ok(r[1].mask_byte == 2 && r[1].at == 1, "0xFF00(g): byte 1");
        ok(r[2].mask_byte == 3 && r[2].generic && r[2].addend == 4, "0xFF0000(generic(g)+4)");
        ok(r[3].mask_byte == 4 && !r[3].generic && r[3].addend == 8, "0xFF000000(g+8)");
    }
    s = &m->syms[ir_sym_lookup(m, "arr2")];
    ok(s->ninit == 12 && m->data[s->init + 8] == 3, "nested initializer padded per row");
    p = print_str(m);
    ok(strstr(p, ".samplerref smp = { addr_mode_0 = clamp_to_edge, filter_mode = linear, "
                 "force_unnormalized_coords = 1 };") != NULL, "sampler initializer prints");
    ok(strstr(p, "gm[4] = {0xFF(g), 0xFF00(g), 0xFF0000(generic(g)+4), 0xFF000000(g+8)};") !=
           NULL, "mask initializers print");
    ok(strstr(p, "arr2[2][2] = {{1, 2}, {3}};") != NULL, "nested braces print");
    ok(strstr(p, "\tkt: .branchtargets La, Lb;\n") != NULL, "label list prints by name");
    ok(strstr(p, ".func .attribute(.unified(0x1234, 0xabcd)) fu()") != NULL, "unified prints");
    ok(strstr(p, ".param .u64 .ptr .global .align 16 k_p") != NULL, ".ptr space prints");
    ok(strstr(p, "tex.a1d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [t, smp, {%r1, %f4}];") != NULL,
       "texture operand prints");
    free(p);
    is_int(m->dialect, DIALECT_PTX, "PTX dialect");
    roundtrip(m, "ISA 9.0 forms");
    ir_module_free(m);

    /* errors of the new forms */
    m = load(HDR ".global .u32 x = { filter_mode = linear };\n"
                 ".global .samplerref y = { filter_mode = wrap };\n"
                 ".global .u8 z[1] = {0xF0(x)};\n", &rc);
    ok(m == NULL, "bad initializers rejected");
    is_str(errbuf,
           "t.ptx:4:20: error: member initializers are only allowed for .texref, .samplerref "
           "and .surfref variables\n.global .u32 x = { filter_mode = linear };\n"
           "                   ^\n"
           "t.ptx:5:41: error: invalid value 'wrap' for 'filter_mode'\n"
           ".global .samplerref y = { filter_mode = wrap };\n"
           "                                        ^\n"
           "t.ptx:6:21: error: invalid mask '0xF0' (expected 0xFF shifted by a whole byte)\n"
           ".global .u8 z[1] = {0xF0(x)};\n                    ^\n"
           "3 errors generated.\n",
           "initializer diagnostics");
    m = load(HDR ".entry e()\n{\n\t.reg .b32 %r<3>;\n\t.reg .v2 .b32 %v;\n"
                 "\tvadd.s32.s32.s32 %r1, %r2.b9, %r2;\n\tmov.b32 %r1, %v.z;\n}\n", &rc);
    ok(m == NULL, "bad suffixes rejected");
    is_str(errbuf,
           "t.ptx:8:27: error: unknown register suffix '.b9' on '%r2'\n"
           "\tvadd.s32.s32.s32 %r1, %r2.b9, %r2;\n\t                         ^\n"
           "t.ptx:9:17: error: vector '%v' has no component '.z'\n"
           "\tmov.b32 %r1, %v.z;\n\t               ^\n"
           "2 errors generated.\n",
           "suffix diagnostics");
}

/* Count occurrences of needle in hay. */
static int count_str(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* Read a whole file (caller frees), NULL if it cannot be read. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t n = 0;
    FILE *o = open_memstream(&buf, &n);
    int c;
    while ((c = fgetc(f)) != EOF)
        fputc(c, o);
    fclose(f);
    fclose(o);
    return buf;
}

/* Notes for instructions newer than the module's .version / .target (isa_req.def). */
static void test_isa_notes(void)
{
    int rc;
    struct ir_module *m;
    /* every PTX opcode has a version and target row; PTXPlus-only opcodes have none */
    int missing = 0, extra = 0;
    for (unsigned op = 0; op < OP__COUNT; op++) {
        unsigned ver, sm;
        int arch;
        ptx_isa_op_req(op, &ver, &sm, &arch);
        int pp = (ir_op_flags((enum ir_op)op) & IF_PTXPLUS) != 0;
        if (!pp && (ver < 0x100 || sm < 10)) {
            diag("no isa_req.def row for '%s'", ir_op_name((enum ir_op)op));
            missing++;
        }
        if (pp && (ver || sm))
            extra++;
    }
    is_int(missing, 0, "isa_req.def: every PTX opcode has a row");
    is_int(extra, 0, "isa_req.def: no row for PTXPlus-only opcodes");
    unsigned ver, sm;
    int arch;
    ptx_isa_op_req(OP_WGMMA_MMA_ASYNC, &ver, &sm, &arch);
    ok(ver == 0x800 && sm == 90 && arch == ISA_SM90A, "wgmma.mma_async: PTX 8.0, sm_90a only");
    ptx_isa_op_req(OP_TCGEN05_ALLOC, &ver, &sm, &arch);
    ok(ver == 0x806 && sm == 100 && arch == (ISA_FAM_SM100 | ISA_FAM_SM110),
       "tcgen05.alloc: PTX 8.6, the sm_100 and sm_110 families");
    ptx_isa_op_req(OP_SETMAXNREG, &ver, &sm, &arch);
    ok(ver == 0x800 && sm == 90 && arch == ISA_AF_ANY, "setmaxnreg: PTX 8.0, any a/f target");
    ptx_isa_op_req(OP_REDUX, &ver, &sm, &arch);
    ok(ver == 0x700 && sm == 80 && arch == 0, "redux: PTX 7.0, sm_80");

    /* one note per (instruction, reason); notes are not errors */
    m = load(".version 6.0\n.target sm_50\n.address_size 64\n"
             ".entry e()\n{\n\t.reg .b16 %h<4>;\n\t.reg .b32 %r<4>;\n"
             "\tadd.f16 %h1, %h2, %h3;\n"
             "\tredux.sync.add.u32 %r1, %r2, -1;\n"
             "\tredux.sync.min.u32 %r1, %r2, -1;\n"
             "\tmov.u32 %r3, %cluster_ctarank;\n"
             "\tadd.s32 %r1, %r1, 1;\n\tret;\n}\n", &rc);
    ok(m != NULL && rc == 0, "notes: the module loads");
    is_str(errbuf,
           "t.ptx:8:2: note: 'add' with .f16 requires .target sm_53 or higher (module declares "
           ".target sm_50)\n\tadd.f16 %h1, %h2, %h3;\n\t^\n"
           "t.ptx:9:2: note: 'redux' requires PTX ISA .version 7.0 or later (module declares "
           ".version 6.0)\n\tredux.sync.add.u32 %r1, %r2, -1;\n\t^\n"
           "t.ptx:9:2: note: 'redux' requires .target sm_80 or higher (module declares .target "
           "sm_50)\n\tredux.sync.add.u32 %r1, %r2, -1;\n\t^\n"
           "t.ptx:11:15: note: '%cluster_ctarank' requires PTX ISA .version 7.8 or later "
           "(module declares .version 6.0)\n\tmov.u32 %r3, %cluster_ctarank;\n\t             ^\n"
           "t.ptx:11:15: note: '%cluster_ctarank' requires .target sm_90 or higher (module "
           "declares .target sm_50)\n\tmov.u32 %r3, %cluster_ctarank;\n\t             ^\n",
           "notes: exact text, the second redux is not repeated");
    ir_module_free(m);

    /* the same instructions with a new enough .version / .target: nothing */
    m = load(".version 8.0\n.target sm_90\n.address_size 64\n"
             ".entry e()\n{\n\t.reg .b16 %h<4>;\n\t.reg .b32 %r<4>;\n"
             "\tadd.f16 %h1, %h2, %h3;\n\tredux.sync.add.u32 %r1, %r2, -1;\n"
             "\tmov.u32 %r3, %cluster_ctarank;\n\tret;\n}\n", &rc);
    ok(m != NULL && rc == 0, "new enough: loads");
    is_str(errbuf, "", "new enough: no notes");
    ir_module_free(m);

    /* architecture-specific: the fixture's text exactly; sm_90a / sm_100f satisfy them */
    char *src = slurp("fixtures/ptx/diag/isa_arch_note.ptx");
    ok(src != NULL, "read fixtures/ptx/diag/isa_arch_note.ptx");
    if (src) {
        m = load(src, &rc);
        ok(m != NULL && rc == 0, "arch notes: the module loads");
        is_str(errbuf,
               "t.ptx:29:2: note: 'wgmma.fence' requires an architecture-specific .target such "
               "as sm_90a (module declares .target sm_90)\n\twgmma.fence.sync.aligned;\n\t^\n"
               "t.ptx:30:2: note: 'tcgen05.fence::before_thread_sync' requires PTX ISA .version "
               "8.6 or later (module declares .version 8.0)\n"
               "\ttcgen05.fence::before_thread_sync;\n\t^\n"
               "t.ptx:30:2: note: 'tcgen05.fence::before_thread_sync' requires .target sm_100a "
               "(module declares .target sm_90)\n\ttcgen05.fence::before_thread_sync;\n\t^\n",
               "arch notes: exact text");
        ir_module_free(m);
        free(src);
    }
    m = load(".version 8.6\n.target sm_90a\n.address_size 64\n"
             ".entry e()\n{\n\twgmma.fence.sync.aligned;\n\tret;\n}\n", &rc);
    is_str(errbuf, "", "sm_90a: wgmma without a note");
    ir_module_free(m);
    m = load(".version 8.8\n.target sm_100f\n.address_size 64\n"
             ".entry e()\n{\n\ttcgen05.fence::before_thread_sync;\n\tret;\n}\n", &rc);
    is_str(errbuf, "", "sm_100f: tcgen05 without a note");
    ir_module_free(m);

    /* modifier and type rules: .b128, ::cluster, .L2::cache_hint, .sync, f16 atom */
    m = load(".version 7.0\n.target sm_60\n.address_size 64\n"
             ".entry e()\n{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n"
             "\tatom.global.add.noftz.f16x2 %r1, [%rd1], %r2;\n"
             "\tld.global.L2::cache_hint.u32 %r1, [%rd1], %rd2;\n"
             "\tfence.acq_rel.cluster;\n\tret;\n}\n", &rc);
    ok(m != NULL && rc == 0, "rules: loads");
    is_int(count_str(errbuf, ": note: "), 4, "rules: four notes (fence: .cluster's only)");
    ok(strstr(errbuf, "t.ptx:9:2: note: 'ld' with .L2::cache_hint requires PTX ISA .version "
                      "7.4 or later (module declares .version 7.0)\n") != NULL,
       "rules: .L2::cache_hint version");
    ok(strstr(errbuf, "t.ptx:9:2: note: 'ld' with .L2::cache_hint requires .target sm_80 or "
                      "higher (module declares .target sm_60)\n") != NULL,
       "rules: .L2::cache_hint target");
    ok(strstr(errbuf, "t.ptx:10:2: note: 'fence' with .cluster requires .target sm_90 or "
                      "higher (module declares .target sm_60)\n") != NULL,
       "rules: .cluster scope target");
    ok(strstr(errbuf, "'atom' with .f16x2") == NULL, "rules: atom f16x2 is fine on sm_60");
    ir_module_free(m);

    /* map_f64_to_f32: .f64 on sm_10 is fine; no .version / .target: no notes */
    m = load(".version 1.4\n.target sm_10, map_f64_to_f32\n"
             ".entry e()\n{\n\t.reg .f64 %fd<3>;\n\tadd.f64 %fd1, %fd1, %fd2;\n\tret;\n}\n",
             &rc);
    is_str(errbuf, "", "map_f64_to_f32: no .f64 note");
    ir_module_free(m);
    m = load(".entry e()\n{\n\t.reg .b32 %r<3>;\n\tredux.sync.add.u32 %r1, %r2, -1;\n"
             "\tret;\n}\n", &rc);
    /* ptxas 13: "Missing .version directive at start of file"; still no version notes */
    is_str(errbuf,
           "t.ptx:1:1: error: missing .version directive at the start of the file\n"
           ".entry e()\n^\n1 error generated.\n",
           "no .version / .target: that error, no notes");
    ir_module_free(m);
    /* an empty file: the same error at 1:1, as ptxas 13 */
    m = load("", &rc);
    is_int(rc, -1, "empty file: one error");
    ok(m == NULL, "empty file: no module");
    is_str(errbuf,
           "t.ptx:1:1: error: missing .version directive at the start of the file\n\n^\n"
           "1 error generated.\n",
           "empty file: missing .version");
    ir_module_free(m);

    /* a flood is capped: 20 notes, then one summary */
    char big[4096];
    int len = snprintf(big, sizeof big, ".version 1.4\n.target sm_10\n.entry e()\n{\n"
                       "\t.reg .b32 %%r<4>;\n\t.reg .b64 %%rd<4>;\n\t.reg .pred %%p<2>;\n");
    static const char *const newer[] = {
        "popc.b32 %r1, %r2;", "clz.b32 %r1, %r2;", "brev.b32 %r1, %r2;",
        "bfe.u32 %r1, %r2, 1, 2;", "bfi.b32 %r1, %r2, %r3, 1, 2;", "prmt.b32 %r1, %r2, %r3, 0;",
        "bfind.u32 %r1, %r2;", "testp.finite.f32 %p1, %r2;", "lop3.b32 %r1, %r2, %r3, %r1, 1;",
        "shf.l.wrap.b32 %r1, %r2, %r3, 1;", "dp4a.u32.u32 %r1, %r2, %r3, %r1;",
        "activemask.b32 %r1;", "nanosleep.u32 10;", "redux.sync.add.u32 %r1, %r2, -1;",
        "match.any.sync.b32 %r1, %r2, -1;", "fns.b32 %r1, %r2, %r3, 1;",
    };
    for (size_t i = 0; i < sizeof newer / sizeof *newer; i++)
        len += snprintf(big + len, sizeof big - (size_t)len, "\t%s\n", newer[i]);
    snprintf(big + len, sizeof big - (size_t)len, "\tret;\n}\n");
    m = load(big, &rc);
    ok(m != NULL && rc == 0, "cap: loads");
    is_int(count_str(errbuf, "(module declares"), 20, "cap: 20 notes");
    ok(strstr(errbuf, "t.ptx: note: 12 more instructions need a newer .version or .target "
                      "(notes not shown)\n") != NULL,
       "cap: the summary counts the rest");
    ir_module_free(m);
}

/* Architecture-specific and family instructions on other targets (isa_req.def arch sets). */
static void test_isa_family_notes(void)
{
    int rc;
    struct ir_module *m;
    /* a later family's `a` target: "not supported", with the targets that have it */
    m = load(".version 9.0\n.target sm_100a\n.address_size 64\n"
             ".entry e()\n{\n\twgmma.fence.sync.aligned;\n\twgmma.fence.sync.aligned;\n"
             "\tret;\n}\n", &rc);
    ok(m != NULL && rc == 0, "family: a note is not an error");
    is_str(errbuf,
           "t.ptx:6:2: note: 'wgmma.fence' is not supported on .target sm_100a (requires "
           "sm_90a)\n\twgmma.fence.sync.aligned;\n\t^\n",
           "family: wgmma on sm_100a, once");
    ir_module_free(m);
    m = load(".version 9.0\n.target sm_120f\n.address_size 64\n"
             ".entry e()\n{\n\t.reg .b32 %r<2>;\n\ttcgen05.alloc.cta_group::1.sync.aligned."
             "shared::cta.b32 [%r1], 32;\n\tret;\n}\n", &rc);
    is_str(errbuf,
           "t.ptx:7:2: note: 'tcgen05.alloc' is not supported on .target sm_120f (requires "
           "sm_100a, sm_100f, sm_103a, sm_103f, sm_110a or sm_110f)\n"
           "\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;\n\t^\n",
           "family: tcgen05 on sm_120f lists its targets");
    ir_module_free(m);
    /* the rule that narrows the set is named: .kind::i8 is sm_100a / sm_110a only */
    m = load(".version 9.0\n.target sm_103a\n.address_size 64\n"
             ".entry e()\n{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<3>;\n\t.reg .pred %p<2>;\n"
             "\ttcgen05.mma.cta_group::1.kind::i8 [%r1], [%r1], %rd1, %r2, %p1;\n"
             "\ttcgen05.mma.cta_group::1.kind::f16 [%r1], %rd2, %rd1, %r2, %p1;\n"
             "\tret;\n}\n", &rc);
    is_str(errbuf,
           "t.ptx:9:2: note: 'tcgen05.mma' with .kind::i8 is not supported on .target sm_103a "
           "(requires sm_100a or sm_110a)\n"
           "\ttcgen05.mma.cta_group::1.kind::i8 [%r1], [%r1], %rd1, %r2, %p1;\n\t^\n",
           "family: tcgen05.mma .kind::i8 on sm_103a; .kind::f16 is fine");
    ir_module_free(m);
    /* targets inside the sets: no note (sm_110a tcgen05, sm_103f tcgen05.ld.red, sm_121f
       mma .kind, sm_100f redux.f32, sm_120a setmaxnreg) */
    static const char *const fine[] = {
        ".target sm_110a\n.address_size 64\n.entry e()\n{\n\ttcgen05.fence::after_thread_sync;"
        "\n\tret;\n}\n",
        ".target sm_103f\n.address_size 64\n.entry e()\n{\n\t.reg .b32 %r<6>;\n"
        "\ttcgen05.ld.red.sync.aligned.32x32b.x2.max.abs.f32 {%r1, %r2}, %r3, [%r4];\n"
        "\tret;\n}\n",
        ".target sm_100f\n.address_size 64\n.entry e()\n{\n\t.reg .f32 %f<3>;\n"
        "\tredux.sync.max.f32 %f1, %f2, -1;\n\tret;\n}\n",
        ".target sm_120a\n.address_size 64\n.entry e()\n{\n"
        "\tsetmaxnreg.inc.sync.aligned.u32 232;\n\tret;\n}\n",
        ".target sm_100\n.address_size 64\n.entry e()\n{\n\t.reg .b64 %rd<3>;\n"
        "\tadd.f32x2 %rd1, %rd2, %rd2;\n\tret;\n}\n",
    };
    for (size_t i = 0; i < sizeof fine / sizeof *fine; i++) {
        char src[512];
        snprintf(src, sizeof src, ".version 9.0\n%s", fine[i]);
        m = load(src, &rc);
        ok(m != NULL && rc == 0 && errbuf[0] == 0, "family: no note for case %zu", i);
        if (errbuf[0])
            diag("%s", errbuf);
        ir_module_free(m);
    }
    /* a plain target: `a` needed (setmaxnreg), or not available at all (wgmma on sm_100) */
    m = load(".version 9.0\n.target sm_100\n.address_size 64\n"
             ".entry e()\n{\n\tsetmaxnreg.inc.sync.aligned.u32 232;\n"
             "\twgmma.fence.sync.aligned;\n\tret;\n}\n", &rc);
    is_str(errbuf,
           "t.ptx:6:2: note: 'setmaxnreg' requires an architecture-specific .target such as "
           "sm_100a (module declares .target sm_100)\n\tsetmaxnreg.inc.sync.aligned.u32 232;\n"
           "\t^\n"
           "t.ptx:7:2: note: 'wgmma.fence' is not supported on .target sm_100 (requires sm_90a)"
           "\n\twgmma.fence.sync.aligned;\n\t^\n",
           "family: plain sm_100");
    ir_module_free(m);
}

/* Directive and operand-form notes (isa_req.def DIR_* and operand rules). */
/* Version / target notes of the forms added with ptxas 13's remaining minima (isa_req.def):
 * mad.cc, ::entry / ::func, .relaxed mbarrier, wmma .aligned, texture forms, .section
 * labels, and an operand form with a target set (tcgen05.mma immediate scale-input-d). */
static void test_isa_form_notes(void)
{
    int rc;
    struct ir_module *m;
    m = load(".version 2.3\n.target sm_20\n.address_size 64\n.entry e()\n{\n"
             "\t.reg .b32 %r<4>;\n\tmad.lo.cc.u32 %r1, %r2, %r3, %r1;\n"
             "\tmad.lo.u32 %r1, %r2, %r3, %r1;\n\tret;\n}\n", &rc);
    ok(m != NULL && rc == 0, "forms: notes are not errors");
    is_str(errbuf,
           "t.ptx:7:2: note: 'mad' with .cc requires PTX ISA .version 3.0 or later (module "
           "declares .version 2.3)\n\tmad.lo.cc.u32 %r1, %r2, %r3, %r1;\n\t^\n",
           "forms: mad.cc needs PTX 3.0, plain mad does not");
    ir_module_free(m);
    m = load(".version 8.0\n.target sm_80\n.address_size 64\n.shared .b64 bar;\n"
             ".entry e(.param .u32 p)\n{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n"
             "\tld.param::entry.u32 %r1, [p];\n"
             "\tmbarrier.arrive.relaxed.cta.shared::cta.b64 %rd1, [bar];\n"
             "\tmbarrier.arrive.release.cta.shared::cta.b64 %rd1, [bar];\n\tret;\n}\n", &rc);
    static const char *const want[] = {
        "t.ptx:9:2: note: 'ld' with .param::entry requires PTX ISA .version 8.3 or later",
        "t.ptx:10:2: note: 'mbarrier.arrive' with .relaxed requires PTX ISA .version 8.6 or "
        "later",
        "t.ptx:10:2: note: 'mbarrier.arrive' with .relaxed requires .target sm_90 or higher",
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        ok(strstr(errbuf, want[i]) != NULL, "forms: %s", want[i] + 17);
    is_int(count_str(errbuf, "note:"), 3, "forms: .release mbarrier is fine in PTX 8.0");
    ir_module_free(m);
    m = load(".version 6.0\n.target sm_70\n.address_size 64\n.entry e(.param .u64 p)\n{\n"
             "\t.reg .b32 %r<9>;\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [p];\n"
             "\twmma.load.a.sync.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, "
             "%r8}, [%rd1];\n"
             "\twmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, "
             "%r6, %r7, %r8}, [%rd1];\n\tret;\n}\n", &rc);
    ok(strstr(errbuf, "t.ptx:10:2: note: 'wmma.load' with .aligned requires PTX ISA .version "
                      "6.3 or later") != NULL && count_str(errbuf, "note:") == 1,
       "forms: wmma .aligned needs PTX 6.3, without it no note");
    ir_module_free(m);
    /* texture forms: register handle, offset operand, 64-bit sured.b .max */
    m = load(".version 3.0\n.target sm_30\n.address_size 64\n.global .texref tx;\n"
             ".global .surfref sf;\n.entry e(.param .u64 p)\n{\n\t.reg .b32 %r<4>;\n"
             "\t.reg .f32 %f<8>;\n\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [p];\n"
             "\ttex.2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%f1, %f2}];\n"
             "\ttex.2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [tx, {%f1, %f2}], {%r1, %r1};\n"
             "\ttex.grad.2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [tx, {%f1, %f2}], {%f1, %f2}, "
             "{%f1, %f2};\n"
             "\tsured.b.max.2d.u64.zero [sf, {%r1, %r1}], %rd2;\n\tret;\n}\n", &rc);
    static const char *const want2[] = {
        "t.ptx:12:2: note: 'indirect texture access' requires PTX ISA .version 3.1 or later",
        "t.ptx:13:2: note: 'tex with an offset operand' requires PTX ISA .version 4.3 or later",
        "t.ptx:14:2: note: 'tex' with .grad requires PTX ISA .version 3.1 or later",
        "t.ptx:15:2: note: 'sured' with .u64 requires .target sm_50 or higher",
    };
    for (size_t i = 0; i < sizeof want2 / sizeof *want2; i++)
        ok(strstr(errbuf, want2[i]) != NULL, "forms: %s", want2[i] + 17);
    is_int(count_str(errbuf, "offset operand"), 1, "forms: tex.grad's gradients are no offset");
    ir_module_free(m);
    /* .section: one note per rule for labels and label + immediate expressions */
    m = load(".version 6.5\n.target sm_75, debug\n.address_size 64\n.entry e()\n{\n\tret;\n}\n"
             ".section .debug_str\n{\nLs0:\n.b8 0\n}\n"
             ".section .debug_info\n{\n.b32 .debug_abbrev+4\n.b32 .debug_abbrev+8\n.b32 12\n}\n",
             &rc);
    ok(m != NULL && rc == 0, "section: loads");
    ok(strstr(errbuf, "t.ptx:10:1: note: 'label in a .section' requires PTX ISA .version 7.0 "
                      "or later") != NULL, "section: a label needs PTX 7.0");
    is_int(count_str(errbuf, "note:"), 1, "section: label + imm is fine in PTX 6.5");
    ir_module_free(m);
    /* an operand rule with a target set */
    static const char tc[] =
        ".entry e()\n{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<3>;\n\t.reg .pred %p<2>;\n"
        "\ttcgen05.mma.cta_group::1.kind::f16 [%r1], %rd2, %rd1, %r2, %p1, 0;\n"
        "\ttcgen05.mma.cta_group::1.kind::f16 [%r1], %rd2, %rd1, %r2, %p1, 1;\n"
        "\ttcgen05.mma.cta_group::1.kind::f16 [%r1], %rd2, %rd1, %r2, %p1;\n\tret;\n}\n";
    char src[1024];
    snprintf(src, sizeof src, ".version 9.0\n.target sm_110a\n.address_size 64\n%s", tc);
    m = load(src, &rc);
    ok(m != NULL && rc == 0, "operand set: a note is not an error");
    is_str(errbuf,
           "t.ptx:9:2: note: 'tcgen05.mma with an immediate scale-input-d' is not supported on "
           ".target sm_110a (requires sm_100a, sm_100f, sm_103a or sm_103f)\n"
           "\ttcgen05.mma.cta_group::1.kind::f16 [%r1], %rd2, %rd1, %r2, %p1, 0;\n\t^\n",
           "operand set: immediate scale-input-d on sm_110a, once");
    ir_module_free(m);
    snprintf(src, sizeof src, ".version 9.0\n.target sm_103f\n.address_size 64\n%s", tc);
    m = load(src, &rc);
    is_str(errbuf, "", "operand set: sm_103f has it");
    ir_module_free(m);
}

static void test_isa_directive_notes(void)
{
    int rc;
    struct ir_module *m;
    m = load(".version 6.0\n.target sm_20\n.address_size 64\n"
             ".weak .global .align 4 .u32 wk;\n"
             ".visible .func f() .noreturn\n{\n\ttrap;\n}\n"
             ".visible .func g() .noreturn;\n.alias g, f;\n"
             ".entry e(.param .u32 p)\n{\n\t.reg .b128 %q<2>;\n\t.reg .b32 %r<2>;\n"
             "\tld.param.u32 %r1, [p];\nt: .branchtargets L0;\n\tbrx.idx %r1, t;\nL0:\n"
             "\tret;\n}\n", &rc);
    ok(m != NULL && rc == 0, "directives: notes are not errors");
    static const char *const want[] = {
        "t.ptx:5:20: note: '.noreturn' requires PTX ISA .version 6.4 or later (module declares "
        ".version 6.0)\n",
        "t.ptx:5:20: note: '.noreturn' requires .target sm_30 or higher (module declares "
        ".target sm_20)\n",
        "t.ptx:10:1: note: '.alias' requires PTX ISA .version 6.3 or later (module declares "
        ".version 6.0)\n",
        "t.ptx:13:7: note: '.b128' requires .target sm_70 or higher (module declares .target "
        "sm_20)\n",
        "t.ptx:16:4: note: '.branchtargets' requires .target sm_30 or higher (module declares "
        ".target sm_20)\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        ok(strstr(errbuf, want[i]) != NULL, "directives: %.*s", 40, want[i]);
    is_int(count_str(errbuf, "'.noreturn'"), 2, "directives: the second .noreturn: no note");
    ok(strstr(errbuf, "'.weak'") == NULL, "directives: .weak is fine in PTX 6.0");
    ir_module_free(m);

    /* versions below 2.x: .address_size, .pragma, .calltargets, indirect call, .weak */
    m = load(".version 2.0\n.target sm_20\n.address_size 64\n.pragma \"nounroll\";\n"
             ".weak .global .u32 wk;\n.func f()\n{\n\tret;\n}\n"
             ".entry e(.param .u64 p)\n{\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [p];\n"
             "c: .calltargets f;\n\tcall %rd1, c;\n\tret;\n}\n", &rc);
    ok(m != NULL && rc == 0, "old version: loads");
    static const char *const want2[] = {
        "t.ptx:3:1: note: '.address_size' requires PTX ISA .version 2.3 or later",
        "t.ptx:5:1: note: '.weak' requires PTX ISA .version 3.1 or later",
        "t.ptx:14:4: note: '.calltargets' requires PTX ISA .version 2.1 or later",
        "t.ptx:15:2: note: 'call through a register' requires PTX ISA .version 2.1 or later",
    };
    for (size_t i = 0; i < sizeof want2 / sizeof *want2; i++)
        ok(strstr(errbuf, want2[i]) != NULL, "old version: %s", want2[i] + 12);
    ok(strstr(errbuf, "'.pragma'") == NULL, "old version: .pragma is PTX 2.0");
    ir_module_free(m);

    /* operand forms: mbarrier.arrive count (not with .noComplete), tex d|p */
    m = load(".version 8.0\n.target sm_80\n.address_size 64\n.shared .b64 bar;\n"
             ".entry e()\n{\n\t.reg .b64 %rd<2>;\n"
             "\tmbarrier.arrive.noComplete.shared.b64 %rd1, [bar], 2;\n"
             "\tmbarrier.arrive.shared.b64 %rd1, [bar];\n"
             "\tmbarrier.arrive.shared.b64 %rd1, [bar], 2;\n\tret;\n}\n", &rc);
    is_str(errbuf,
           "t.ptx:10:2: note: 'mbarrier.arrive with a count operand' requires .target sm_90 or "
           "higher (module declares .target sm_80)\n"
           "\tmbarrier.arrive.shared.b64 %rd1, [bar], 2;\n\t^\n",
           "operands: mbarrier.arrive count needs sm_90 unless .noComplete");
    ir_module_free(m);
    m = load(".version 7.0\n.target sm_50\n.address_size 64\n.global .texref tx;\n"
             ".entry e()\n{\n\t.reg .f32 %f<8>;\n\t.reg .pred %p<2>;\n"
             "\ttex.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tx, {%f5}];\n"
             "\ttex.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}|%p1, [tx, {%f5}];\n\tret;\n}\n", &rc);
    ok(m != NULL && rc == 0, "operands: tex d|p loads");
    ok(strstr(errbuf, "t.ptx:10:2: note: 'tex with a d|p destination' requires PTX ISA .version "
                      "7.1 or later (module declares .version 7.0)\n") != NULL &&
           strstr(errbuf, "t.ptx:10:2: note: 'tex with a d|p destination' requires .target "
                          "sm_60 or higher (module declares .target sm_50)\n") != NULL &&
           count_str(errbuf, ": note: ") == 2,
       "operands: tex d|p, and only that line");
    ir_module_free(m);
}

/* .address_size: kept as declared, 32 when absent (the ISA default), printed back exactly. */
static void test_address_size(void)
{
    int rc;
    struct ir_module *m = load(".version 2.3\n.target sm_20\n.address_size 32\n"
                               ".entry e(.param .u32 p)\n{\n\t.reg .u32 %r<2>;\n"
                               "\tld.param.u32 %r1, [p];\n\tret;\n}\n", &rc);
    ok(m && m->address_size == 32 && m->address_size_declared, ".address_size 32 declared");
    char *p = m ? print_str(m) : NULL;
    ok(p && strstr(p, ".target sm_20\n.address_size 32\n") != NULL, "printed back as 32");
    free(p);
    ir_module_free(m);
    m = load(".version 1.4\n.target sm_10\n.entry e()\n{\n\tret;\n}\n", &rc);
    ok(m && m->address_size == 32 && !m->address_size_declared, "absent: 32-bit, undeclared");
    p = m ? print_str(m) : NULL;
    ok(p && strstr(p, ".address_size") == NULL, "absent: not printed");
    if (m)
        roundtrip(m, "absent .address_size");
    free(p);
    ir_module_free(m);
    m = load(HDR ".entry e()\n{\n\tret;\n}\n", &rc);
    ok(m && m->address_size == 64 && m->address_size_declared, ".address_size 64 declared");
    ir_module_free(m);
}

/* PTXPlus |x|, -|x| and -g[...] operands: OPF_ABS / OPF_NEG, PTXPlus dialect, printed back. */
static void test_ptxplus_abs(void)
{
    int rc;
    struct ir_module *m = load(".version 1.4\n.target sm_10\n.entry e()\n{\n"
                               "\t.reg .u32 $r<4>;\n"
                               "\tadd.f32 $r1, |$r2|, -|g[$r3+0x4]|;\n"
                               "\tmul.f32 $r1, -|$r2|, -s[0x14];\n\tret;\n}\n", &rc);
    ok(m && rc == 0, "abs: loads");
    if (!m)
        return;
    is_str(errbuf, "", "abs: no diagnostics");
    is_int(m->dialect, DIALECT_PTXPLUS, "abs: the module is PTXPlus");
    const struct ir_func *f = &m->funcs[0];
    const struct ir_opnd *a1 = ir_opnd(f, &f->insns[0], 1), *a2 = ir_opnd(f, &f->insns[0], 2);
    const struct ir_opnd *b1 = ir_opnd(f, &f->insns[1], 1), *b2 = ir_opnd(f, &f->insns[1], 2);
    ok(a1->kind == OPK_REG && (a1->flags & (OPF_ABS | OPF_NEG)) == OPF_ABS, "abs: |$r2|");
    ok(a2->kind == OPK_PP_MEM && a2->first == SP_GLOBAL && a2->imm.i == 4 &&
           (a2->flags & (OPF_ABS | OPF_NEG)) == (OPF_ABS | OPF_NEG),
       "abs: -|g[$r3+0x4]|");
    ok(b1->kind == OPK_REG && (b1->flags & (OPF_ABS | OPF_NEG)) == (OPF_ABS | OPF_NEG),
       "abs: -|$r2|");
    ok(b2->kind == OPK_PP_MEM && b2->first == SP_SHARED && b2->slot == IR_NOSLOT &&
           (b2->flags & (OPF_ABS | OPF_NEG)) == OPF_NEG,
       "abs: -s[0x14]");
    char *p1 = insn_str(m, 0, 0), *p2 = insn_str(m, 0, 1);
    is_str(p1, "add.f32 $r1, |$r2|, -|g[$r3+0x4]|;", "abs: printed");
    is_str(p2, "mul.f32 $r1, -|$r2|, -s[0x14];", "neg: printed");
    free(p1);
    free(p2);
    roundtrip(m, "abs/neg operands");
    ir_module_free(m);
    /* a stray bar is still a syntax error */
    m = load(".version 1.4\n.target sm_10\n.entry e()\n{\n\t.reg .u32 $r<4>;\n"
             "\tadd.f32 $r1, |$r2, $r3;\n\tret;\n}\n", &rc);
    ok(m == NULL && strstr(errbuf, "t.ptx:6:19: error: syntax error at ','") != NULL,
       "abs: unclosed bar rejected");
    ir_module_free(m);
}

static void test_ptxplus(void)
{
    int rc;
    struct ir_module *m = load(k3, &rc);
    is_int(rc, 0, "PTXPlus loads");
    is_str(errbuf, "", "PTXPlus: no diagnostics");
    if (!m)
        return;
    is_int(m->dialect, DIALECT_PTXPLUS, "dialect recorded");
    const struct ir_func *f = &m->funcs[0];
    const struct ir_insn *in = &f->insns[0];
    const struct ir_opnd *a = ir_opnd(f, in, 1);
    is_int(a->kind, OPK_PP_MEM, "s[...] as an add source");
    is_int(a->first, SP_SHARED, "shared space");
    is_int(a->slot, IR_NOSLOT, "absolute address");
    is_int(a->imm.u, 16, "address 0x10");
    in = &f->insns[1];
    ok(ir_opnd(f, in, 1)->flags & OPF_LO, "$r0.lo");
    ok(ir_opnd(f, in, 2)->flags & OPF_HI, "$r1.hi");
    is_int(ir_opnd(f, in, 2)->slot, 1, "half keeps the register");
    in = &f->insns[2];
    is_int(in->nopnd, 4, "flag destination appended");
    a = ir_opnd(f, in, 3);
    ok(a->kind == OPK_REG && a->rf == RF_PRED && a->slot == 0 &&
           (a->flags & (OPF_CCDST | OPF_DST)) == (OPF_CCDST | OPF_DST),
       "$p0 receives the flags");
    is_int(ir_opnd(f, in, 0)->slot, 3, "value destination stays operand 0");
    a = ir_opnd(f, in, 2);
    ok(a->kind == OPK_PP_MEM && a->first == SP_CONST && a->sym == (uint32_t)ir_sym_lookup(m, "ce1c0") &&
           a->imm.u == 4, "ce1c0[0x4] constant bank operand");
    in = &f->insns[3];
    a = ir_opnd(f, in, 1);
    ok(a->kind == OPK_PP_MEM && a->first == SP_GLOBAL && a->slot == 0 && a->imm.u == 8,
       "g[$r0+0x8]");
    is_int(f->insns[4].guard_cc, CC_NE, "@$p1.ne condition test");
    is_int(f->insns[4].guard, 1, "guard register");
    a = ir_opnd(f, &f->insns[5], 1);
    ok(a->first == SP_LOCAL && (a->flags & OPF_POSTINC) && a->imm.u == 4, "l[$ofs1+=0x4]");
    ok(ir_opnd(f, &f->insns[6], 0)->flags & OPF_DST, "g[...] destination");
    char *p = insn_str(m, 0, 2);
    is_str(p, "add.u32 $p0|$r3, $r1, ce1c0[0x4];", "flag destination prints first");
    free(p);
    p = insn_str(m, 0, 4);
    is_str(p, "@$p1.ne bra l0;", "condition test prints");
    free(p);
    p = insn_str(m, 0, 1);
    is_str(p, "mul24.lo.u32 $r0, $r0.lo, $r1.hi;", "halves print");
    free(p);
    roundtrip(m, "PTXPlus");
    ir_module_free(m);
    m = load(HDR ".entry e()\n{\n\t.reg .b32 %r<3>;\n\t.reg .pred %p;\n"
                 "\tadd.u32 %p, %r1, 1;\n\tmov.u32 %r1, q[0x10];\n}\n", &rc);
    ok(m == NULL, "bad PTXPlus forms rejected");
    is_str(errbuf,
           "t.ptx:8:10: error: predicate '%p' used where a .u32 value is expected\n"
           "\tadd.u32 %p, %r1, 1;\n\t        ^\n"
           "t.ptx:9:15: error: unknown PTXPlus memory space 'q[' (expected g[, s[, l[ or ce#c#[)\n"
           "\tmov.u32 %r1, q[0x10];\n\t             ^\n"
           "2 errors generated.\n",
           "PTXPlus diagnostics");
}

/* .pragma at module scope, in function headers and bodies (before and after labels, at the
 * end), string lists; .loc columns and what follows them: kept in the IR and printed back
 * where they stood. */
static void test_pragma_loc(void)
{
    int rc;
    struct ir_module *m = load(HDR ".func f()\n.pragma \"nounroll\";\n;\n", &rc);
    ok(rc != 0 && strstr(errbuf, "t.ptx:5:1: error: .pragma in a function declaration "
                                 "(allowed in the header of a definition)") != NULL,
       "a pragma in a declaration header is an error (as ptxas)");
    if (rc == 0 || !strstr(errbuf, "declaration"))
        diag("%s", errbuf);
    ir_module_free(m);
    m = load(HDR ".file 1 \"a.cu\"\n"
             ".pragma \"nounroll\";\n"
             ".func f()\n;\n"
             ".entry k(.param .u32 n)\n.maxntid 64\n.pragma \"nounroll\";\n{\n"
             "\t.pragma \"enable_smem_spilling\";\n"
             "\t.reg .b32 %r<3>;\n"
             "\t.pragma \"after a declaration\";\n"
             "\t.loc 1 7 5\n\tmov.u32 %r1, 0;\n"
             "\t.pragma \"a\", \"b\";\n"
             "$L0:\n\t.pragma \"nounroll\";\n"
             "$L1:\n"
             "\t.loc 1 7 9\n"
             "\t.loc 1 3 2, function_name $Lx, inlined_at 1 7 9 // c\n"
             "\tadd.s32 %r1, %r1, 1;\n"
             "\t.loc 1 3 2, function_name $Lx, inlined_at 1 7 9\n"
             "\tadd.s32 %r1, %r1, 1;\n"
             "\t.loc 1 8 0\n"
             "\t.pragma \"used_bytes_mask 0xf\";\n"
             "\tld.param.u32 %r2, [n];\n"
             "\tret;\n\t.pragma \"end\";\n\t.loc 1 9 1\n}\n"
             ".func f()\n{\n\tret;\n}\n", &rc);
    is_int(rc, 0, "pragma/loc module loads");
    if (!m) {
        diag("%s", errbuf);
        return;
    }
    is_int(m->npragmas, 8, "eight pragmas kept");
    if (m->npragmas == 8) {
        const struct ir_pragma *p = m->pragmas;
        ok(p[0].where == PRAGMA_MODULE && p[0].func == -1 && p[0].line == 5, "module scope");
        ok(p[1].where == PRAGMA_HEAD && p[1].func == ir_func_lookup(m, "k"), "kernel header");
        ok(p[2].where == PRAGMA_BODY_TOP, "first in the body");
        ok(p[3].where == PRAGMA_BODY && p[3].pc == 0, "after a declaration: a statement");
        is_str(ir_str(m, p[4].str), "\"a\", \"b\"", "string list kept as a list");
        ok(p[4].where == PRAGMA_BODY && p[4].pc == 1 && p[4].nlabel == 0, "before the labels");
        ok(p[5].where == PRAGMA_BODY && p[5].pc == 1 && p[5].nlabel == 1, "between labels");
        ok(p[6].pc == 3, "before the load");
        ok(p[7].where == PRAGMA_BODY && p[7].pc == 5, "at the end of the body");
    }
    is_int(m->nlocs, 2, "two .locs without an instruction");
    if (m->nlocs == 2) {
        ok(m->locs[0].pc == 1 && m->locs[0].nlabel == 2 && m->locs[0].line == 7 &&
               m->locs[0].col == 9, "the outer .loc of the inlining chain");
        ok(m->locs[1].pc == 5 && m->locs[1].line == 9 && m->locs[1].col == 1,
           "the .loc at the end of the body");
    }
    const struct ir_func *k = &m->funcs[ir_func_lookup(m, "k")];
    ok(k->insns[0].loc_col == 5 && k->insns[0].loc_ext == 0, ".loc column");
    is_str(ir_str(m, k->insns[1].loc_ext), ", function_name $Lx, inlined_at 1 7 9",
           ".loc extension kept (comment dropped)");
    struct ir_srcpos site[4];
    unsigned ns = ir_inlined_chain(m, (uint32_t)ir_func_lookup(m, "k"), 1, site, 4);
    ok(ns == 1 && site[0].file == 1 && site[0].line == 7 && site[0].col == 9,
       "inlined into 1:7:9 (whose own .loc has no inlined_at)");
    is_int(ir_inlined_chain(m, (uint32_t)ir_func_lookup(m, "k"), 0, site, 4), 0,
           "not inlined");
    char *p = print_str(m);
    ok(strstr(p, "\n.pragma \"nounroll\";\n\n.entry k(") != NULL, "module pragma prints");
    ok(strstr(p, ".maxntid 64, 1, 1\n.pragma \"nounroll\";\n{\n"
                 "\t.pragma \"enable_smem_spilling\";\n\t.reg .b32 %r<3>;\n"
                 "\t.pragma \"after a declaration\";\n") != NULL,
       "header and body-top pragmas print where they stood");
    ok(strstr(p, "\t.loc 1 7 5\n\tmov.u32 %r1, 0;\n\t.pragma \"a\", \"b\";\n$L0:\n"
                 "\t.pragma \"nounroll\";\n$L1:\n\t.loc 1 7 9\n"
                 "\t.loc 1 3 2, function_name $Lx, inlined_at 1 7 9\n"
                 "\tadd.s32 %r1, %r1, 1;\n\tadd.s32 %r1, %r1, 1;\n"
                 "\t.pragma \"used_bytes_mask 0xf\";\n\t.loc 1 8 0\n"
                 "\tld.param.u32 %r2, [n];\n\tret;\n\t.pragma \"end\";\n\t.loc 1 9 1\n}\n") !=
           NULL,
       "body pragmas and .locs print where they stood");
    if (!strstr(p, "\t.loc 1 9 1\n}\n"))
        diag("%s", p);
    free(p);
    roundtrip(m, "pragma/loc");
    ir_module_free(m);
}

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
    test_isa90();
    test_ptxplus();
    test_isa_notes();
    test_isa_family_notes();
    test_isa_directive_notes();
    test_isa_form_notes();
    test_address_size();
    test_pragma_loc();
    test_ptxplus_abs();
    return done_testing();
}
