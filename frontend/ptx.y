/*
 * frontend/ptx.y — the PTX / PTXPlus grammar (lemon). Every action is one call into the
 * builder (build.c); the grammar is an event stream in source order (build.h).
 */
%name ptx_parse
%token_prefix TK_
%token_type {struct ptx_tok}
%extra_argument {struct ptx_builder *B}
%start_symbol module

%include {
#include <assert.h>
#include <stdlib.h> /* the growable parser stack (%stack_size 0) reallocs */
#include "frontend/build.h"
}

%syntax_error {
    b_syntax_error(B, yymajor, TOKEN);
}
/* a parser stack that grows (nested blocks: ptxas 13 takes 1,663 in a body; the builder
   enforces that limit with its own message); it only overflows when out of memory */
%stack_size 0
%stack_overflow {
    b_parser_oom(B);
}

%token SEMI COLON COMMA LPAREN RPAREN LBRACE RBRACE LBRACKET RBRACKET LT GT PLUS MINUS NOT AT
       PIPE EQ SINK ID DOTTED INT FLT STRING VERSION TARGET ADDRESS_SIZE FILE LOC SECTION
       PRAGMA ENTRY FUNC CALLPROTOTYPE BRANCHTARGETS CALLTARGETS ALIAS ATTRIBUTE ALIGN PTR
       LINK SPACE VEC TYPE PERF DOTNAME.

module ::= items.
items ::= .
items ::= items item.

/* ------------------------------------------------------------------ module directives */
item ::= VERSION FLT(T).                    { b_version(B, T); }
item ::= VERSION INT(T).                    { b_version(B, T); }
item ::= TARGET tlist.
tlist ::= ID(T).                            { b_target(B, T); }
tlist ::= tlist COMMA ID(T).                { b_target(B, T); }
item ::= ADDRESS_SIZE(K) INT(T).            { b_address_size(B, K, T); }
item ::= FILE INT(I) STRING(S) fextra.      { b_file(B, I, S); }
fextra ::= .
fextra ::= COMMA INT COMMA INT.
item ::= SECTION(T).                        { b_section(B, T); }
item ::= pkw strs SEMI.                     { b_pragma_end(B); }
item ::= ALIAS(K) ID(A) COMMA ID(C) SEMI.   { b_alias(B, K, A, C); }
item ::= dspecs dnames SEMI.                { b_decl_end(B); }
item ::= dspecs fhead fbody.
item ::= fhead fbody.
item ::= error SEMI.
item ::= error RBRACE.

pkw ::= PRAGMA(K).                          { b_pragma_kw(B, K); }
strs ::= STRING(T).                         { b_pragma(B, T); }
strs ::= strs COMMA STRING(T).              { b_pragma(B, T); }

/* ------------------------------------------------------------------------ declarations */
dspecs ::= dspec.
dspecs ::= dspecs dspec.
dspec ::= LINK(T).                          { b_spec(B, BS_LINK, T); }
dspec ::= SPACE(T).                         { b_spec(B, BS_SPACE, T); }
dspec ::= ALIGN INT(T).                     { b_spec_align(B, T); }
dspec ::= VEC(T).                           { b_spec(B, BS_VEC, T); }
dspec ::= TYPE(T).                          { b_spec(B, BS_TYPE, T); }
dspec ::= PTR(T).                           { b_spec(B, BS_PTR, T); }
dspec ::= DOTNAME(T).                       { b_spec(B, BS_DOTNAME, T); }
dspec ::= ATTRIBUTE LPAREN attrs RPAREN.
attrs ::= DOTNAME(T).                       { b_spec(B, BS_ATTR, T); }
attrs ::= attrs COMMA DOTNAME(T).           { b_spec(B, BS_ATTR, T); }

dnames ::= dname.
dnames ::= dnames COMMA dname.
dname ::= dhead dims dinit.                 { b_decl_finish(B); }
dname ::= ID(N) LT INT(C) GT.               { b_decl_range(B, N, C); }
dhead ::= ID(N).                            { b_decl_name(B, N); }
dims ::= .
dims ::= dims LBRACKET INT(T) RBRACKET.     { b_decl_dim(B, T, 1); }
dims ::= dims LBRACKET(T) RBRACKET.         { b_decl_dim(B, T, 0); }
dinit ::= .
dinit ::= EQ ival.

ival ::= ibeg ilist RBRACE.                 { b_init_close(B); }
ibeg ::= LBRACE(T).                         { b_init_open(B, T); }
ilist ::= ival.
ilist ::= ilist COMMA ival.
ival ::= INT(T).                            { b_init_num(B, T, 0); }
ival ::= MINUS INT(T).                      { b_init_num(B, T, 1); }
ival ::= FLT(T).                            { b_init_num(B, T, 0); }
ival ::= MINUS FLT(T).                      { b_init_num(B, T, 1); }
ival ::= ID(S).                             { b_init_sym(B, S, S, 0, S, 0); }
ival ::= ID(S) PLUS INT(A).                 { b_init_sym(B, S, S, 0, A, 1); }
ival ::= ID(S) MINUS INT(A).                { b_init_sym(B, S, S, 0, A, -1); }
ival ::= ID(F) LPAREN ID(S) RPAREN.         { b_init_sym(B, F, S, 1, S, 0); }
ival ::= ID(F) LPAREN ID(S) RPAREN PLUS INT(A). { b_init_sym(B, F, S, 1, A, 1); }
/* mask(…) byte extraction: 0xFF00(sym), 0xFF(sym+N), 0xFF(generic(sym)), 0xFF(generic(sym)+N) */
ival ::= INT(M) LPAREN ID(S) RPAREN.        { b_init_mask(B, M, S, S, 0, S, 0); }
ival ::= INT(M) LPAREN ID(S) PLUS INT(A) RPAREN. { b_init_mask(B, M, S, S, 0, A, 1); }
ival ::= INT(M) LPAREN ID(F) LPAREN ID(S) RPAREN RPAREN. { b_init_mask(B, M, F, S, 1, S, 0); }
ival ::= INT(M) LPAREN ID(F) LPAREN ID(S) RPAREN PLUS INT(A) RPAREN.
                                            { b_init_mask(B, M, F, S, 1, A, 1); }
/* .texref / .samplerref / .surfref members: { addr_mode_0 = clamp_to_edge, width = 64 } */
ival ::= ID(K) EQ ID(V).                    { b_init_field(B, K, V, 0); }
ival ::= ID(K) EQ INT(V).                   { b_init_field(B, K, V, 1); }

/* --------------------------------------------------------------------------- functions */
fhead ::= fkw fattrs fret fname fparams perfs.
fattrs ::= .
fattrs ::= fattrs ATTRIBUTE LPAREN DOTNAME(A) LPAREN INT(X) COMMA INT(Y) RPAREN RPAREN.
                                            { b_func_unified(B, A, X, Y); }
fkw ::= ENTRY(T).                           { b_func_head(B, T, 1); }
fkw ::= FUNC(T).                            { b_func_head(B, T, 0); }
fret ::= .
fret ::= LPAREN plist RPAREN.               { b_params_ret(B); }
fname ::= ID(T).                            { b_func_name(B, T); }
fparams ::= .
fparams ::= LPAREN RPAREN.
fparams ::= LPAREN plist RPAREN.
plist ::= param.
plist ::= plist COMMA param.
param ::= dspecs ID(N) dims.                { b_param_name(B, N); }
perfs ::= .
perfs ::= perfs perf.
perf ::= perfkw.
perf ::= perfkw perfints.
perfkw ::= PERF(T).                         { b_perf(B, T); }
perfints ::= INT(T).                        { b_perf_int(B, T); }
perfints ::= perfints COMMA INT(T).         { b_perf_int(B, T); }
perf ::= pkw strs SEMI.                     { b_pragma_end(B); }
fbody ::= fbeg stmts RBRACE(T).             { b_func_end(B, T); }
fbody ::= SEMI.                             { b_func_decl_end(B); }
fbeg ::= LBRACE(T).                         { b_func_body(B, T); }

/* --------------------------------------------------------------------------- statements */
stmts ::= .
stmts ::= stmts stmt.
stmt ::= dspecs dnames SEMI.                { b_decl_end(B); }
stmt ::= ID(T) COLON.                       { b_label(B, T); }
stmt ::= tabhead tlabels SEMI.              { b_table_end(B); }
tabhead ::= ID(N) COLON BRANCHTARGETS(K).   { b_table_begin(B, N, K, 0); }
tabhead ::= ID(N) COLON CALLTARGETS(K).     { b_table_begin(B, N, K, 1); }
tlabels ::= ID(T).                          { b_table_entry(B, T); }
tlabels ::= tlabels COMMA ID(T).            { b_table_entry(B, T); }
stmt ::= ID(N) COLON CALLPROTOTYPE(K) anys SEMI(S). { b_proto(B, N, K, S); }
anys ::= .
anys ::= anys any.
any ::= LPAREN. any ::= RPAREN. any ::= COMMA. any ::= SPACE. any ::= TYPE. any ::= ALIGN.
any ::= INT. any ::= ID. any ::= SINK. any ::= LBRACKET. any ::= RBRACKET. any ::= PTR.
any ::= VEC. any ::= DOTNAME. any ::= PERF.
stmt ::= insn.
stmt ::= sbeg stmts RBRACE.                 { b_scope_end(B); }
sbeg ::= LBRACE(T).                         { b_scope_begin(B, T); }
stmt ::= LOC INT(F) INT(L) INT(C) locx.     { b_loc(B, F, L, C); }
locx ::= .
locx ::= locx COMMA ID ID.
locx ::= locx COMMA ID ID PLUS INT.
locx ::= locx COMMA ID INT INT INT.
stmt ::= pkw strs SEMI.                     { b_pragma_end(B); }
stmt ::= SECTION(T).                        { b_section(B, T); }
stmt ::= error SEMI.

insn ::= mnem opnds SEMI(T).                { b_insn_end(B, T); }
insn ::= guard mnem opnds SEMI(T).          { b_insn_end(B, T); }
guard ::= AT ID(G).                         { b_guard(B, G, 0); }
guard ::= AT NOT ID(G).                     { b_guard(B, G, 1); }
mnem ::= ID(T).                             { b_insn_begin(B, T); }
mnem ::= DOTTED(T).                         { b_insn_begin(B, T); }

/* ----------------------------------------------------------------------------- operands */
opnds ::= .
opnds ::= olist.
olist ::= opnd.
olist ::= olist COMMA opnd.
olist ::= olist pipe opnd.
pipe ::= PIPE.                              { b_o_pipe(B); }
opnd ::= ID(T).                             { b_o_id(B, T, 0); }
opnd ::= NOT ID(T).                         { b_o_id(B, T, OPF_NEG); }
opnd ::= MINUS ID(T).                       { b_o_id(B, T, OPF_NEG); }
/* a vector register's component without '%': v.x, v.a (the lexer makes `v.x` one DOTTED) */
opnd ::= DOTTED(T).                         { b_o_id(B, T, 0); }
opnd ::= NOT DOTTED(T).                     { b_o_id(B, T, OPF_NEG); }
opnd ::= MINUS DOTTED(T).                   { b_o_id(B, T, OPF_NEG); }
/* sym+N, reg+N (N a sum of integers: WARP_SZ+1, %r1+1+2, %r1+-1; ptxas takes no reg-N) */
opnd ::= ID(T) PLUS csum.                   { b_o_idoff(B, T, 0); }
opnd ::= ID(T) MINUS INT(O).                { b_c_add(B, O, 1); b_o_idoff(B, T, 1); }
opnd ::= csum.                              { b_o_csum(B); }
csum ::= cterm.
csum ::= csum PLUS cterm.
csum ::= csum MINUS INT(O).                 { b_c_add(B, O, 1); }
cterm ::= INT(O).                           { b_c_add(B, O, 0); }
cterm ::= MINUS INT(O).                     { b_c_add(B, O, 1); }
opnd ::= FLT(T).                            { b_o_num(B, T, 0); }
opnd ::= MINUS FLT(T).                      { b_o_num(B, T, 1); }
opnd ::= SINK(T).                           { b_o_sink(B, T); }
opnd ::= vbeg velems RBRACE.                { b_o_list_end(B); }
vbeg ::= LBRACE(T).                         { b_o_list_begin(B, T, OPK_VEC); }
velems ::= opnd.
velems ::= velems COMMA opnd.
opnd ::= pbeg RPAREN.                       { b_o_list_end(B); }
opnd ::= pbeg velems RPAREN.                { b_o_list_end(B); }
pbeg ::= LPAREN(T).                         { b_o_list_begin(B, T, OPK_PARAMS); }
opnd ::= abeg abase aoff RBRACKET.          { b_a_end(B); }
/* texture / surface / tensor-map coordinates: [tex, {c}], [tex, sampler, {c}], [tmap, {c}] */
opnd ::= abeg thandles COMMA LBRACE velems RBRACE RBRACKET. { b_t_end(B); }
thandles ::= ID(T).                         { b_t_handle(B, T); }
thandles ::= thandles COMMA ID(T).          { b_t_handle(B, T); }
/* PTXPlus memory operands g[…], s[…], l[…], ce#c#[…] (any operand position) */
opnd ::= ID(S) abeg abase aoff RBRACKET.    { b_pp_end(B, S); }
/* PTXPlus operand modifiers: negated memory operand -g[…] (GPGPU-Sim's `MINUS
   memory_operand`), absolute value |$r| / |g[…]| and its negation -|…| (SASS |R| operands) */
opnd ::= MINUS ID(S) abeg abase aoff RBRACKET. { b_pp_end(B, S); b_o_flag(B, OPF_NEG); }
opnd ::= PIPE ID(T) PIPE.                   { b_o_id(B, T, OPF_ABS); }
opnd ::= MINUS PIPE ID(T) PIPE.             { b_o_id(B, T, OPF_ABS | OPF_NEG); }
opnd ::= PIPE ID(S) abeg abase aoff RBRACKET PIPE. { b_pp_end(B, S); b_o_flag(B, OPF_ABS); }
opnd ::= MINUS PIPE ID(S) abeg abase aoff RBRACKET PIPE.
                                            { b_pp_end(B, S); b_o_flag(B, OPF_ABS | OPF_NEG); }
abeg ::= LBRACKET(T).                       { b_a_begin(B, T); }
abase ::= ID(T).                            { b_a_base(B, T, 0); }
abase ::= INT(T).                           { b_a_base(B, T, 1); }
aoff ::= .
aoff ::= PLUS csum.                         { b_a_csum(B); }
aoff ::= MINUS INT(T).                      { b_a_off(B, T, 1); }
aoff ::= PLUS EQ INT(T).                    { b_a_postinc(B, T); }
