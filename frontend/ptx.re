/*
 * frontend/ptx.re — the PTX / PTXPlus lexer (re2c). Scans an in-memory NUL-terminated buffer;
 * tokens carry byte offsets (and the line, counted as newlines go by). An identifier
 * immediately followed by '.' is one DOTTED token with its modifiers ("ld.global.nc.v4.f32");
 * directives (".reg", ".entry", …) are their own tokens; a `.section NAME { … }` debug block is
 * one SECTION token. The predefined constant WARP_SZ (nvcc's warpSize) is an integer token, as
 * in ptxas: usable wherever a number is (operands, `+offsets`, initializers, array sizes),
 * never declarable as a name. Anything else is reported and skipped (the last rule).
 */
#include <string.h>

#include "frontend/build.h"
#include "ptx_gram.h"

/* Set up a lexer over text (text[len] must be NUL). */
void ptx_lex_init(struct ptx_lexer *lx, const char *text, size_t len, struct diag *d)
{
    lx->text = text;
    lx->len = len;
    lx->cur = text;
    lx->line = 1;
    lx->diag = d;
}

static void lex_count_lines(struct ptx_lexer *lx, const char *a, const char *b)
{
    for (const char *p = a; (p = memchr(p, '\n', (size_t)(b - p))); p++)
        lx->line++;
}

/* Skip a `.section name { ... }` block after the keyword; returns 0, or -1 if unterminated. */
static int lex_section(struct ptx_lexer *lx)
{
    const char *end = lx->text + lx->len;
    const char *p = lx->cur;
    while (p < end && *p != '{' && *p != ';')
        p++;
    if (p >= end || *p == ';') {
        lx->cur = p < end ? p + 1 : end;
        return p < end ? 0 : -1;
    }
    const char *q = memchr(p, '}', (size_t)(end - p));
    if (!q)
        return -1;
    lx->cur = q + 1;
    return 0;
}

/* Next token. */
int ptx_lex(struct ptx_lexer *lx, struct ptx_tok *t)
{
    const unsigned char *YYCURSOR, *YYMARKER, *tok;
    YYCURSOR = (const unsigned char *)lx->cur;
    YYMARKER = YYCURSOR;
    int code;
loop:
    tok = YYCURSOR;
    /*!re2c
        re2c:define:YYCTYPE = "unsigned char";
        re2c:yyfill:enable = 0;

        fs = [a-zA-Z0-9_$];
        ident = [a-zA-Z] fs* | [_$%] fs+;
        modpart = [a-zA-Z0-9_:]+;
        hex = [0-9a-fA-F];
        exp = [eE] [+-]? [0-9]+;

        [ \t\r\v\f]+           { goto loop; }
        "\n"                   { lx->line++; goto loop; }
        "//" [^\n\x00]*        { goto loop; }
        "/*" ([^*\x00] | "*"+ [^*/\x00])* "*"+ "/" {
            lex_count_lines(lx, (const char *)tok, (const char *)YYCURSOR);
            goto loop;
        }
        "/*"                   {
            diag_report(lx->diag, DIAG_ERROR, (size_t)((const char *)tok - lx->text),
                        "unterminated comment");
            YYCURSOR = (const unsigned char *)lx->text + lx->len;
            goto loop;
        }
        "\x00"                 {
            if ((const char *)tok >= lx->text + lx->len) {
                lx->cur = (const char *)tok;
                t->off = (uint32_t)lx->len;
                t->len = 0;
                t->line = lx->line;
                return 0;
            }
            diag_report(lx->diag, DIAG_ERROR, (size_t)((const char *)tok - lx->text),
                        "invalid character 0x00");
            goto loop;
        }

        ".version"             { code = TK_VERSION; goto out; }
        ".target"              { code = TK_TARGET; goto out; }
        ".address_size"        { code = TK_ADDRESS_SIZE; goto out; }
        ".file"                { code = TK_FILE; goto out; }
        ".loc"                 { code = TK_LOC; goto out; }
        ".pragma"              { code = TK_PRAGMA; goto out; }
        ".entry"               { code = TK_ENTRY; goto out; }
        ".func"                { code = TK_FUNC; goto out; }
        ".callprototype"       { code = TK_CALLPROTOTYPE; goto out; }
        ".branchtargets"       { code = TK_BRANCHTARGETS; goto out; }
        ".calltargets"         { code = TK_CALLTARGETS; goto out; }
        ".alias"               { code = TK_ALIAS; goto out; }
        ".attribute"           { code = TK_ATTRIBUTE; goto out; }
        ".align"               { code = TK_ALIGN; goto out; }
        ".ptr"                 { code = TK_PTR; goto out; }
        ".visible" | ".extern" | ".weak" | ".common" { code = TK_LINK; goto out; }
        ".global" | ".const" | ".shared" | ".local" | ".param" | ".reg" | ".tex" | ".sreg"
                               { code = TK_SPACE; goto out; }
        ".v2" | ".v4" | ".v8"  { code = TK_VEC; goto out; }
        "." ([bsu] ("8" | "16" | "32" | "64") | "b128" | "pred" | "f16" | "f16x2" | "bf16"
             | "bf16x2" | "f32" | "f64" | "texref" | "samplerref" | "surfref" | "tf32")
                               { code = TK_TYPE; goto out; }
        ".maxntid" | ".reqntid" | ".minnctapersm" | ".maxnctapersm" | ".maxnreg"
            | ".maxclusterrank" | ".reqnctapercluster" | ".explicitcluster" | ".noreturn"
            | ".blocksareclusters" | ".abi_preserve" | ".abi_preserve_control" | ".local_maxnreg"
                               { code = TK_PERF; goto out; }
        ".section"             {
            lx->cur = (const char *)YYCURSOR;
            if (lex_section(lx) < 0)
                diag_report(lx->diag, DIAG_ERROR, (size_t)((const char *)tok - lx->text),
                            "unterminated .section block");
            t->off = (uint32_t)((const char *)tok - lx->text);
            t->len = (uint32_t)(lx->cur - (const char *)tok);
            t->line = lx->line;
            lex_count_lines(lx, (const char *)tok, lx->cur);
            return TK_SECTION;
        }
        "." [a-zA-Z_] [a-zA-Z0-9_$:]* { code = TK_DOTNAME; goto out; }

        "_"                    { code = TK_SINK; goto out; }
        [a-zA-Z_] fs* ("." modpart)+ { code = TK_DOTTED; goto out; }
        "%" fs+ ("." [a-z0-9]+)? { code = TK_ID; goto out; }
        "$" fs+ ("." [a-z0-9]+)? { code = TK_ID; goto out; }
        "WARP_SZ"              { code = TK_INT; goto out; }
        ident                  { code = TK_ID; goto out; }

        "0" [xX] hex+ "U"?     { code = TK_INT; goto out; }
        "0" [bB] [01]+ "U"?    { code = TK_INT; goto out; }
        [0-9]+ "U"?            { code = TK_INT; goto out; }
        "0" [fF] hex{8}        { code = TK_FLT; goto out; }
        "0" [dD] hex{16}       { code = TK_FLT; goto out; }
        [0-9]+ "." [0-9]* exp? | "." [0-9]+ exp? | [0-9]+ exp { code = TK_FLT; goto out; }
        "\"" ([^"\\\n\x00] | "\\" [^\n\x00])* "\"" { code = TK_STRING; goto out; }

        ";"  { code = TK_SEMI; goto out; }
        ":"  { code = TK_COLON; goto out; }
        ","  { code = TK_COMMA; goto out; }
        "("  { code = TK_LPAREN; goto out; }
        ")"  { code = TK_RPAREN; goto out; }
        "{"  { code = TK_LBRACE; goto out; }
        "}"  { code = TK_RBRACE; goto out; }
        "["  { code = TK_LBRACKET; goto out; }
        "]"  { code = TK_RBRACKET; goto out; }
        "<"  { code = TK_LT; goto out; }
        ">"  { code = TK_GT; goto out; }
        "+"  { code = TK_PLUS; goto out; }
        "-"  { code = TK_MINUS; goto out; }
        "!"  { code = TK_NOT; goto out; }
        "@"  { code = TK_AT; goto out; }
        "|"  { code = TK_PIPE; goto out; }
        "="  { code = TK_EQ; goto out; }

        * {
            size_t off = (size_t)((const char *)tok - lx->text);
            unsigned char c = *tok;
            if (c >= 0x20 && c < 0x7f)
                diag_report(lx->diag, DIAG_ERROR, off, "invalid character '%c'", c);
            else
                diag_report(lx->diag, DIAG_ERROR, off, "invalid character 0x%02x", c);
            goto loop;
        }
    */
out:
    lx->cur = (const char *)YYCURSOR;
    t->off = (uint32_t)((const char *)tok - lx->text);
    t->len = (uint32_t)(YYCURSOR - tok);
    t->line = lx->line;
    return code;
}
