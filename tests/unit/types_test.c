/*
 * tests/unit/types_test.c — the one type table (frontend/types.def): sizes, classes and
 * spellings of PTX types, pinned for the types whose copies used to disagree (.f32x2 was 8
 * bytes in ir.c and 0 in predecode.c, .e2m1x2 1 and 2, .f64 missing from predecode's "is
 * float"), every type modifier of mods.def spelled as its type, and what predecode derives
 * from the table on a parsed module (an .f32x2 add runs on the FP32 unit).
 */
#include <string.h>

#include "frontend/frontend.h"
#include "tests/tap.h"

static void sizes(void)
{
    is_uint(ir_type_size(T_F32X2), 8, ".f32x2: two f32 in 8 bytes");
    is_uint(ir_type_size(T_E2M1X2), 1, ".e2m1x2: two 4-bit floats in one byte");
    is_uint(ir_type_size(T_E2M3X2), 2, ".e2m3x2: two 6-bit floats in a byte each");
    is_uint(ir_type_size(T_E4M3X4), 4, ".e4m3x4");
    is_uint(ir_type_size(T_E2M1X4), 2, ".e2m1x4");
    is_uint(ir_type_size(T_B128), 16, ".b128");
    is_uint(ir_type_size(T_B1024), 128, ".b1024");
    is_uint(ir_type_size(T_FF64), 8, "PTXPlus .ff64");
    is_uint(ir_type_size(T_TEXREF), 8, ".texref handle");
    is_uint(ir_type_size(T_PRED), 0, ".pred has no byte size");
    is_uint(ir_type_size(T_S4), 0, ".s4 is sub-byte");
    is_uint(ir_type_size(T__COUNT), 0, "out of range");
    is_uint(ir_type_lanes(T_F16X2), 2, ".f16x2 lanes");
    is_uint(ir_type_lanes(T_E2M1X4), 4, ".e2m1x4 lanes");
    is_uint(ir_type_lanes(T_U32), 1, ".u32 lanes");
}

static void classes(void)
{
    ok(ir_type_is_float(T_F64), ".f64 is a float");
    ok(ir_type_is_float(T_F32X2), ".f32x2 is a float");
    ok(ir_type_is_float(T_E4M3), ".e4m3 is a (narrow) float");
    is_int(ir_type_class(T_E2M1X2), TC_NARROW, ".e2m1x2 is narrow");
    is_int(ir_type_class(T_TF32), TC_FLOAT, ".tf32 is an arithmetic float");
    ok(!ir_type_is_float(T_B32), ".b32 is not a float");
    ok(!ir_type_is_float(T_PRED), ".pred is not a float");
    ok(ir_type_is_signed(T_S16X2) && ir_type_is_signed(T_S4), ".s16x2 and .s4 are signed");
    ok(!ir_type_is_signed(T_U64) && !ir_type_is_signed(T_B8), ".u64 / .b8 are not signed");
    is_int(ir_type_class(T_SURFREF), TC_HANDLE, ".surfref is a handle");
    is_str(ir_type_name(T_E4M3X4), "e4m3x4", "name of .e4m3x4 (missing before the table)");
    is_str(ir_type_name(T_F32X2), "f32x2", "name of .f32x2");
    is_str(ir_type_name(T_NONE), "", "T_NONE has no name");
}

/* Every MK_TYPE modifier names its type's spelling; every type but T_NONE has one. */
static void spellings(void)
{
    int bad = 0;
    for (int md = 1; md < MOD__COUNT; md++) {
        if (ir_mod_kind((enum ir_mod)md) != MK_TYPE)
            continue;
        enum ir_type t = (enum ir_type)ir_mod_value((enum ir_mod)md);
        if (strcmp(ir_mod_name((enum ir_mod)md), ir_type_name(t)) != 0) {
            diag("modifier .%s has type %s", ir_mod_name((enum ir_mod)md), ir_type_name(t));
            bad++;
        }
    }
    is_int(bad, 0, "type modifiers are spelled as their types");
    int unnamed = 0;
    for (int t = 1; t < T__COUNT; t++)
        unnamed += !*ir_type_name((enum ir_type)t);
    is_int(unnamed, 0, "every type has a spelling");
}

/* predecode takes unit classes from the table: .f32x2 arithmetic is FP32 work. */
static void predecode_units(void)
{
    static const char src[] = ".version 8.8\n.target sm_100\n.address_size 64\n"
                              ".visible .entry k(.param .u64 p)\n{\n"
                              "\t.reg .b64 %rd<4>;\n\t.reg .b32 %r<3>;\n"
                              "\tadd.rn.f32x2 %rd3, %rd1, %rd2;\n"
                              "\tadd.s32 %r2, %r1, %r1;\n\tret;\n}\n";
    struct fe_opts o = {0};
    struct ir_module *m = NULL;
    int rc = fe_load(src, sizeof src - 1, "t.ptx", &o, &m);
    is_int(rc, 0, "module with add.f32x2 loads");
    if (rc != 0 || !m)
        return;
    const struct ir_func *f = &m->funcs[0];
    is_int(f->insns[0].unit, U_SP, "add.f32x2 runs on the FP32 unit (was INT)");
    is_int(f->insns[1].unit, U_INT, "add.s32 runs on the INT unit");
    ir_module_free(m);
}

int main(void)
{
    sizes();
    classes();
    spellings();
    predecode_units();
    return done_testing();
}
