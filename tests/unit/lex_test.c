/*
 * tests/unit/lex_test.c — the re2c lexer (frontend/ptx.re): token kinds, byte offsets, line
 * counting, DOTTED mnemonics, numbers, .section blocks and the catch-all error rule.
 */
#include <stdio.h>
#include <string.h>

#include "frontend/build.h"
#include "ptx_gram.h"
#include "tests/tap.h"

/* Lex src into "KIND:text KIND:text ..." using short kind names. */
static const char *kind_name(int k)
{
    switch (k) {
    case TK_ID: return "ID";
    case TK_DOTTED: return "DOT";
    case TK_INT: return "INT";
    case TK_FLT: return "FLT";
    case TK_STRING: return "STR";
    case TK_SPACE: return "SPACE";
    case TK_TYPE: return "TYPE";
    case TK_VEC: return "VEC";
    case TK_LINK: return "LINK";
    case TK_ENTRY: return "ENTRY";
    case TK_SECTION: return "SECTION";
    case TK_DOTNAME: return "DOTNAME";
    case TK_SINK: return "SINK";
    case TK_PERF: return "PERF";
    case TK_SEMI: return ";";
    case TK_COMMA: return ",";
    case TK_LBRACKET: return "[";
    case TK_RBRACKET: return "]";
    case TK_PLUS: return "+";
    case TK_MINUS: return "-";
    case TK_AT: return "@";
    case TK_NOT: return "!";
    case TK_LT: return "<";
    case TK_GT: return ">";
    case TK_LBRACE: return "{";
    case TK_RBRACE: return "}";
    case TK_PIPE: return "|";
    case TK_COLON: return ":";
    case TK_EQ: return "=";
    default: return "?";
    }
}

static char out[4096];
static char errs[4096];

static const char *lex_all(const char *src, unsigned *last_line)
{
    FILE *ef = fmemopen(errs, sizeof errs, "w");
    struct diag d;
    diag_init(&d, ef, "t.ptx", src, strlen(src), 20);
    struct ptx_lexer lx;
    ptx_lex_init(&lx, src, strlen(src), &d);
    struct ptx_tok t;
    int k;
    size_t n = 0;
    out[0] = 0;
    while ((k = ptx_lex(&lx, &t)) != 0 && n < sizeof out - 100)
        n += (size_t)snprintf(out + n, sizeof out - n, "%s%s:%.*s", n ? " " : "", kind_name(k),
                              (int)t.len, src + t.off);
    if (last_line)
        *last_line = t.line;
    fclose(ef);
    return out;
}

int main(void)
{
    unsigned line;
    is_str(lex_all("ld.global.nc.v4.f32 {%f1, _}, [%rd2+-16];", NULL),
           "DOT:ld.global.nc.v4.f32 {:{ ID:%f1 ,:, SINK:_ }:} ,:, [:[ ID:%rd2 +:+ -:- INT:16 ]:] ;:;",
           "instruction with vector, sink and negative offset");
    is_str(lex_all("@!%p1 bra.uni $L__BB0_2;", NULL),
           "@:@ !:! ID:%p1 DOT:bra.uni ID:$L__BB0_2 ;:;", "guard and label");
    is_str(lex_all("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes", NULL),
           "DOT:cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
           "modifiers with :: stay in one token");
    is_str(lex_all("0x1F 0b101 017 42U 0f3F800000 0d3FF0000000000000 1.5 2e3", NULL),
           "INT:0x1F INT:0b101 INT:017 INT:42U FLT:0f3F800000 FLT:0d3FF0000000000000 FLT:1.5 FLT:2e3",
           "every number form");
    is_str(lex_all(".visible .entry k( .param .u64 .ptr .align 8 p ) .maxntid 256", NULL),
           "LINK:.visible ENTRY:.entry ID:k ?:( SPACE:.param TYPE:.u64 ?:.ptr ?:.align INT:8 "
           "ID:p ?:) PERF:.maxntid INT:256",
           "directives are their own tokens");
    is_str(lex_all(".reg .v4 .b32 %r<10>; mov.u32 %r1, %tid.x;", NULL),
           "SPACE:.reg VEC:.v4 TYPE:.b32 ID:%r <:< INT:10 >:> ;:; DOT:mov.u32 ID:%r1 ,:, "
           "ID:%tid.x ;:;",
           "register range and special register");
    is_str(lex_all("vadd4 %r5.b20, %r1.b3210, %r2.h1, %v.x, $r0.lo, $p0.ne", NULL),
           "ID:vadd4 ID:%r5.b20 ,:, ID:%r1.b3210 ,:, ID:%r2.h1 ,:, ID:%v.x ,:, "
           "ID:$r0.lo ,:, ID:$p0.ne",
           "register suffixes are part of the name");
    is_str(lex_all(".abi_preserve 8 .abi_preserve_control 2 .local_maxnreg 32", NULL),
           "PERF:.abi_preserve INT:8 PERF:.abi_preserve_control INT:2 PERF:.local_maxnreg INT:32",
           "ISA 9.0 function directives");
    is_str(lex_all("g[$ofs1+=0x4] ce1c0[0x10]", NULL),
           "ID:g [:[ ID:$ofs1 +:+ =:= INT:0x4 ]:] ID:ce1c0 [:[ INT:0x10 ]:]",
           "PTXPlus memory operands");
    is_str(lex_all("a /* x\n y */ b // c\n d", &line), "ID:a ID:b ID:d", "comments skipped");
    is_int(line, 3, "lines counted through comments");
    is_str(lex_all(".section .debug_info { .b8 1\n .b32 .debug_abbrev\n } x", &line),
           "SECTION:.section .debug_info { .b8 1\n .b32 .debug_abbrev\n } ID:x",
           ".section block is one token");
    is_int(line, 3, "lines counted through a .section block");
    is_str(lex_all("\"a\\\"b\" .foo_bar", NULL), "STR:\"a\\\"b\" DOTNAME:.foo_bar", "strings and other dot names");
    is_str(lex_all("add #", NULL), "ID:add", "bad character skipped");
    is_str(errs, "t.ptx:1:5: error: invalid character '#'\nadd #\n    ^\n", "bad character reported");
    lex_all("x /* never", NULL);
    ok(strstr(errs, "t.ptx:1:3: error: unterminated comment") != NULL, "unterminated comment");
    uint64_t v = 0;
    ok(ptx_parse_int("0x10", 4, &v) == 0 && v == 16, "hex");
    ok(ptx_parse_int("0b11", 4, &v) == 0 && v == 3, "binary");
    ok(ptx_parse_int("010", 3, &v) == 0 && v == 8, "octal");
    ok(ptx_parse_int("18446744073709551615U", 21, &v) == 0 && v == UINT64_MAX, "max with U");
    ok(ptx_parse_int("18446744073709551616", 20, &v) < 0, "overflow rejected");
    ok(ptx_parse_int("09", 2, &v) < 0, "bad octal digit rejected");
    return done_testing();
}
