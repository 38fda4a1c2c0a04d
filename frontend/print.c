/*
 * frontend/print.c — IR -> canonical PTX. The output re-parses to the same IR and assembles
 * with ptxas. Canonical form: header; .file table; declarations of every non-entry function;
 * module variables in source order (flat initializers, addresses as sym/generic(sym)+N);
 * function definitions in source order, each with its register declarations, its variables,
 * label lists and instructions (one `.loc F L C[, …]` whenever the instruction's .loc
 * changes); `.pragma`s where they stood (module scope among the items by line, a function
 * header after its performance directives, first in a body when it came before any declaration,
 * else before its instruction, after the labels that preceded it); `.section` debug blocks verbatim at the end of the module.
 *
 * Nested `{ }` blocks are flattened: names declared twice in
 * one function (nvcc's `{ .param .b32 param0; … }` call blocks) are made unique as NAME$K$
 * (K = declaration index), which is stable under re-printing.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"

static const char *const pr_space[SP__COUNT] = {
    [SP_NONE] = "", [SP_REG] = "reg", [SP_SREG] = "sreg", [SP_CONST] = "const",
    [SP_GLOBAL] = "global", [SP_LOCAL] = "local", [SP_PARAM] = "param",
    [SP_PARAM_ENTRY] = "param", [SP_PARAM_FUNC] = "param", [SP_SHARED] = "shared",
    [SP_SHARED_CTA] = "shared", [SP_SHARED_CLUSTER] = "shared", [SP_TEX] = "tex",
    [SP_SURF] = "surf", [SP_GENERIC] = "",
};

static const char *const pr_link[] = {"", ".visible ", ".extern ", ".weak ", ".common "};

/* ------------------------------------------------------------------------------ names */

/* K when variable si repeats the name of an earlier variable of the same function, else -1. */
static long sym_dup(const struct ir_module *m, uint32_t si)
{
    const struct ir_sym *s = &m->syms[si];
    if (s->func < 0)
        return -1;
    for (uint32_t j = 0; j < si; j++)
        if (m->syms[j].func == s->func && m->syms[j].name == s->name)
            return (long)si;
    return -1;
}

static void print_sym_name(FILE *o, const struct ir_module *m, uint32_t si)
{
    if (si >= m->nsyms) {
        fputs("<bad-sym>", o);
        return;
    }
    fputs(ir_str(m, m->syms[si].name), o);
    long k = sym_dup(m, si);
    if (k >= 0)
        fprintf(o, "$%ld$", k);
}

/* K when register declaration ri must be printed as NAME$K$: its name repeats an earlier
 * declaration, or a single register's name is one of the names of a %r<N> range. */
static long reg_dup(const struct ir_module *m, const struct ir_func *f, uint32_t ri)
{
    const struct ir_regdecl *r = &f->regdecls[ri];
    for (uint32_t j = 0; j < ri; j++)
        if (f->regdecls[j].name == r->name)
            return (long)ri;
    if (r->count)
        return -1;
    const char *s = ir_str(m, r->name);
    size_t n = strlen(s), k = n;
    while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9')
        k--;
    if (k == n || k == 0 || (n - k > 1 && s[k] == '0') || n - k > 9)
        return -1;
    unsigned long idx = strtoul(s + k, NULL, 10);
    for (uint32_t j = 0; j < f->nregdecls; j++) {
        const struct ir_regdecl *q = &f->regdecls[j];
        const char *qs = ir_str(m, q->name);
        if (q->count && idx < q->count && strlen(qs) == k && memcmp(qs, s, k) == 0)
            return (long)ri;
    }
    return -1;
}

static void print_reg(FILE *o, const struct ir_module *m, const struct ir_func *f, unsigned rf,
                      uint32_t slot)
{
    for (uint32_t i = 0; i < f->nregdecls; i++) {
        const struct ir_regdecl *r = &f->regdecls[i];
        if (r->rf != rf)
            continue;
        uint32_t per = (r->type == T_B128 ? 2 : 1) * (r->vec ? r->vec : 1);
        uint32_t n = (r->count ? r->count : 1) * per;
        if (slot < r->slot || slot >= r->slot + n)
            continue;
        fputs(ir_str(m, r->name), o);
        long k = reg_dup(m, f, i);
        if (k >= 0)
            fprintf(o, "$%ld$", k);
        if (r->count)
            fprintf(o, "%" PRIu32, (slot - r->slot) / per);
        return;
    }
    fprintf(o, "<slot %u:%" PRIu32 ">", rf, slot);
}

/* A register operand: its name plus the suffix the operand carries (vector component, video
 * selector, PTXPlus .lo/.hi half or condition-code test). */
static void print_reg_opnd(FILE *o, const struct ir_module *m, const struct ir_func *f,
                           const struct ir_opnd *op)
{
    const struct ir_regdecl *vd = NULL;
    for (uint32_t i = 0; i < f->nregdecls; i++) {
        const struct ir_regdecl *r = &f->regdecls[i];
        uint32_t per = (r->type == T_B128 ? 2 : 1) * (r->vec ? r->vec : 1);
        if (r->rf == op->rf && r->vec > 1 && op->slot >= r->slot &&
            op->slot < r->slot + (r->count ? r->count : 1) * per) {
            vd = r;
            break;
        }
    }
    if (vd && op->n == 1) { /* one component of a vector register */
        uint32_t es = vd->type == T_B128 ? 2 : 1;
        uint32_t per = es * vd->vec;
        uint32_t base = op->slot - (op->slot - vd->slot) % per;
        print_reg(o, m, f, op->rf, base);
        fprintf(o, ".%c", "xyzw"[((op->slot - base) / es) & 3]);
        return;
    }
    print_reg(o, m, f, op->rf, op->slot);
    if (op->rf != RF_PRED && op->imm.u) {
        fprintf(o, ".%c", IR_SEL_LETTER(op->imm.u));
        for (unsigned i = 0; i < IR_SEL_NDIGITS(op->imm.u) && i < 4; i++)
            fputc('0' + (int)IR_SEL_DIGIT(op->imm.u, i), o);
    }
    if (op->flags & OPF_LO)
        fputs(".lo", o);
    if (op->flags & OPF_HI)
        fputs(".hi", o);
    if (op->cc)
        fprintf(o, ".%s", ir_cc_name((enum ir_cc)op->cc));
}

/* The first label at instruction pc of f, or -1. */
static int32_t label_at(const struct ir_func *f, uint64_t pc)
{
    for (uint32_t i = 0; i < f->nlabels; i++)
        if (f->labels[i].pc == pc)
            return (int32_t)i;
    return -1;
}

/* Print label i of f. Labels are block-scoped in PTX, so a function may label instructions of
 * different nested blocks with one name; the printed body has no nested blocks, so each label
 * after the first of its name gets a suffix "$L__dupN" (N: the how-manieth of that name) to
 * stay unique. */
static void print_label(FILE *o, const struct ir_module *m, const struct ir_func *f, uint32_t i)
{
    unsigned n = 0;
    for (uint32_t j = 0; j < i; j++)
        n += f->labels[j].name == f->labels[i].name;
    fputs(ir_str(m, f->labels[i].name), o);
    if (n)
        fprintf(o, "$L__dup%u", n);
}

/* ------------------------------------------------------------------------- operands */

/* f32 bits of the half-precision value h (exact: every f16 is an f32). */
static uint32_t f16_to_f32_bits(uint32_t h)
{
    uint32_t s = (h & 0x8000u) << 16, m = h & 0x3ffu;
    int e = (int)(h >> 10 & 0x1f);
    if (e == 0x1f)
        return s | 0x7f800000u | m << 13;
    if (e == 0) {
        if (!m)
            return s;
        e = 1;
        while (!(m & 0x400u)) {
            m <<= 1;
            e--;
        }
        m &= 0x3ffu;
    }
    return s | (uint32_t)(e + 112) << 23 | m << 13;
}

static void print_imm(FILE *o, const struct ir_opnd *op)
{
    unsigned t = op->type;
    uint64_t u = op->imm.u;
    if (t == T_F32 || t == T_TF32)
        fprintf(o, "0f%08" PRIX32, (uint32_t)u);
    else if (t == T_F16) /* as the f32 of the same value: re-parses to the same bits */
        fprintf(o, "0f%08" PRIX32, f16_to_f32_bits((uint32_t)u & 0xffffu));
    else if (t == T_BF16)
        fprintf(o, "0f%08" PRIX32, ((uint32_t)u & 0xffffu) << 16);
    else if (t == T_F64)
        fprintf(o, "0d%016" PRIX64, u);
    else if (t == T_F16 || t == T_BF16 || t == T_F16X2 || t == T_BF16X2)
        fprintf(o, "0x%" PRIX64, u);
    else if (ir_type_is_signed((enum ir_type)t))
        fprintf(o, "%" PRId64, op->imm.i);
    else {
        unsigned sz = ir_type_size((enum ir_type)t);
        if (sz && sz < 8)
            u &= (UINT64_C(1) << (sz * 8)) - 1;
        if (sz == 4 && u >= 0x80000000u && t != T_PRED)
            fprintf(o, "%" PRId32, (int32_t)(uint32_t)u); /* as nvcc writes masks: -1 */
        else
            fprintf(o, "%" PRIu64, u);
    }
}

static void print_opnd(FILE *o, const struct ir_module *m, const struct ir_func *f,
                       const struct ir_opnd *op, int in_params)
{
    switch (op->kind) {
    case OPK_NONE:
        break;
    case OPK_REG:
        if (op->flags & OPF_NEG)
            fputc(op->rf == RF_PRED ? '!' : '-', o);
        if (op->flags & OPF_ABS)
            fputc('|', o);
        print_reg_opnd(o, m, f, op);
        if (op->flags & OPF_ABS)
            fputc('|', o);
        break;
    case OPK_IMM:
        print_imm(o, op);
        break;
    case OPK_SREG:
        fputs(ir_sreg_name((enum ir_sreg)op->sreg), o);
        break;
    case OPK_SYM:
        print_sym_name(o, m, op->sym);
        if (op->imm.i)
            fprintf(o, "%+" PRId64, op->imm.i);
        break;
    case OPK_PP_MEM:
        if (op->flags & OPF_NEG)
            fputc('-', o);
        if (op->flags & OPF_ABS)
            fputc('|', o);
        if (op->first == SP_CONST && op->sym < m->nsyms)
            fputs(ir_str(m, m->syms[op->sym].name), o);
        else
            fputc(op->first == SP_SHARED ? 's' : op->first == SP_LOCAL ? 'l' : 'g', o);
        fputc('[', o);
        if (op->slot != IR_NOSLOT)
            print_reg(o, m, f, op->rf, op->slot);
        if (op->flags & OPF_POSTINC)
            fprintf(o, "+=0x%" PRIx64, op->imm.u);
        else if (op->slot == IR_NOSLOT)
            fprintf(o, "0x%" PRIx64, op->imm.u);
        else if (op->imm.i)
            fprintf(o, "%s0x%" PRIx64, op->imm.i < 0 ? "-" : "+",
                    op->imm.i < 0 ? 0 - op->imm.u : op->imm.u);
        fputc(']', o);
        if (op->flags & OPF_ABS)
            fputc('|', o);
        break;
    case OPK_TEX:
        fputc('[', o);
        for (unsigned i = 0; i < op->n && op->first + i < f->nopnds; i++) {
            if (i)
                fputs(", ", o);
            if (i == op->imm.u)
                fputc('{', o);
            print_opnd(o, m, f, &f->opnds[op->first + i], 0);
        }
        fputs("}]", o);
        break;
    case OPK_ADDR:
        if (in_params && op->sym != IR_NOSYM) {
            print_sym_name(o, m, op->sym);
            break;
        }
        fputc('[', o);
        if (op->slot != IR_NOSLOT)
            print_reg(o, m, f, op->rf, op->slot);
        else if (op->sym != IR_NOSYM)
            print_sym_name(o, m, op->sym);
        if (op->slot == IR_NOSLOT && op->sym == IR_NOSYM)
            fprintf(o, "%" PRIu64, op->imm.u);
        else if (op->imm.i)
            fprintf(o, "+%" PRId64, op->imm.i);
        fputc(']', o);
        break;
    case OPK_VEC:
    case OPK_PARAMS:
        fputc(op->kind == OPK_VEC ? '{' : '(', o);
        for (unsigned i = 0; i < op->n && op->first + i < f->nopnds; i++) {
            if (i)
                fputs(", ", o);
            print_opnd(o, m, f, &f->opnds[op->first + i], op->kind == OPK_PARAMS);
        }
        fputc(op->kind == OPK_VEC ? '}' : ')', o);
        break;
    case OPK_SINK:
        fputc('_', o);
        break;
    case OPK_LABEL: {
        const int32_t l = label_at(f, op->imm.u);
        if (l >= 0)
            print_label(o, m, f, (uint32_t)l);
        else
            fprintf(o, "$L__pc%" PRIu64, op->imm.u);
        break;
    }
    case OPK_TABLE: {
        const char *nm = NULL;
        for (uint32_t i = 0; i < f->ntable_names && !nm; i++)
            if (f->table_names[i].first == op->first && f->table_names[i].n == op->n)
                nm = ir_str(m, f->table_names[i].name);
        if (nm)
            fputs(nm, o);
        else
            fprintf(o, "$T__%" PRIu32, op->first);
        break;
    }
    case OPK_FUNC:
        if (op->imm.u < m->nfuncs)
            fputs(ir_str(m, m->funcs[op->imm.u].name), o);
        break;
    default:
        break;
    }
}

/* Print one instruction as PTX text (no indentation, no newline). */
void ir_print_insn(FILE *o, const struct ir_module *m, const struct ir_func *f,
                   const struct ir_insn *in)
{
    if (in->guard != IR_NOGUARD) {
        fputs(in->guard_neg ? "@!" : "@", o);
        print_reg(o, m, f, RF_PRED, in->guard);
        if (in->guard_cc)
            fprintf(o, ".%s", ir_cc_name((enum ir_cc)in->guard_cc));
        fputc(' ', o);
    }
    fputs(ir_op_name((enum ir_op)in->op), o);
    for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++)
        fprintf(o, ".%s", ir_mod_name((enum ir_mod)f->mods[in->mod + i]));
    /* which positions are `|` second destinations */
    unsigned char pipe2[64] = {0};
    unsigned np = 0;
    for (const char *p = ir_op_format((enum ir_op)in->op); *p && np < 64; p++) {
        if (*p == ',' || *p == '[' || *p == ']' || *p == '*' || *p == ' ')
            continue;
        if (*p == '|') {
            if (p[1])
                pipe2[np++] = 1, p++;
            continue;
        }
        pipe2[np++] = 0;
    }
    int first = 1;
    unsigned nop = in->nopnd;
    if (nop && in->opnd + nop <= f->nopnds && (f->opnds[in->opnd + nop - 1].flags & OPF_CCDST)) {
        /* PTXPlus flag destination: written first, `$p|d` */
        nop--;
        fputc(' ', o);
        print_opnd(o, m, f, &f->opnds[in->opnd + nop], 0);
        fputc('|', o);
        first = 2;
    }
    for (unsigned i = 0; i < nop && in->opnd + i < f->nopnds; i++) {
        const struct ir_opnd *op = &f->opnds[in->opnd + i];
        if (op->kind == OPK_NONE)
            continue;
        if (first == 2)
            ;
        else if (i < 64 && pipe2[i] && !first)
            fputc('|', o);
        else
            fputs(first ? " " : ", ", o);
        first = 0;
        print_opnd(o, m, f, op, 0);
    }
    fputc(';', o);
}

/* ------------------------------------------------------------------------ variables */

static void print_elem(FILE *o, const struct ir_module *m, const struct ir_sym *s, uint64_t at)
{
    for (uint32_t r = 0; r < s->nreloc; r++) {
        const struct ir_reloc *rl = &m->relocs[s->reloc + r];
        if (rl->at != at)
            continue;
        const char *nm = rl->is_func ? (rl->sym < m->nfuncs ? ir_str(m, m->funcs[rl->sym].name) : "?")
                                     : (rl->sym < m->nsyms ? ir_str(m, m->syms[rl->sym].name) : "?");
        if (rl->mask_byte)
            fprintf(o, "0x%" PRIX64 "(", (uint64_t)0xff << (8 * ((rl->mask_byte - 1) & 7)));
        if (rl->generic)
            fprintf(o, "generic(%s)", nm);
        else
            fputs(nm, o);
        if (rl->addend)
            fprintf(o, "%+" PRId64, rl->addend);
        if (rl->mask_byte)
            fputc(')', o);
        return;
    }
    unsigned es = ir_type_size((enum ir_type)s->type);
    uint64_t v = 0;
    if (at + es <= s->ninit)
        memcpy(&v, m->data + s->init + at, es);
    struct ir_opnd op = {0};
    op.type = s->type;
    op.imm.u = v;
    if (ir_type_is_signed((enum ir_type)s->type) && ir_type_lanes((enum ir_type)s->type) == 1 &&
        es && es < 8)
        op.imm.i = (int64_t)(v << (64 - es * 8)) >> (64 - es * 8);
    print_imm(o, &op);
}

static void print_var(FILE *o, const struct ir_module *m, uint32_t si, const char *indent)
{
    const struct ir_sym *s = &m->syms[si];
    fputs(indent, o);
    fputs(pr_link[s->linkage < 5 ? s->linkage : 0], o);
    fprintf(o, ".%s ", pr_space[s->space < SP__COUNT ? s->space : 0]);
    if (s->flags & VF_MANAGED)
        fputs(".attribute(.managed) ", o);
    fprintf(o, ".align %" PRIu32 " ", s->align);
    if (s->vec > 1)
        fprintf(o, ".v%u ", s->vec);
    fprintf(o, ".%s ", ir_type_name((enum ir_type)s->type));
    print_sym_name(o, m, si);
    for (unsigned i = 0; i < s->ndims; i++) {
        if (s->dims[i])
            fprintf(o, "[%" PRIu32 "]", s->dims[i]);
        else
            fputs("[]", o);
    }
    if (s->ntex_init) {
        fputs(" = { ", o);
        for (uint32_t i = 0; i < s->ntex_init; i++) {
            uint32_t kv[2] = {0, 0};
            if (s->tex_init + 8 * (i + 1) <= m->ndata)
                memcpy(kv, m->data + s->tex_init + 8 * i, 8);
            fprintf(o, "%s%s = ", i ? ", " : "", ir_texfield_name((enum ir_texfield)kv[0]));
            if (kv[0] <= TXF_FILTER_MODE)
                fputs(ir_texval_name((enum ir_texval)kv[1]), o);
            else
                fprintf(o, "%" PRIu32, kv[1]);
        }
        fputs(" }", o);
    } else if (s->ninit) {
        unsigned es = ir_type_size((enum ir_type)s->type);
        uint64_t n = es ? (s->ninit + es - 1) / es : 0;
        fputs(" = ", o);
        /* nested braces per array dimension (a vector is the innermost one) */
        uint64_t sub[6];
        unsigned nd = 0;
        for (unsigned d = 0; d < s->ndims && d < 4; d++)
            nd++;
        if (s->vec > 1)
            nd++;
        sub[nd] = 1;
        for (unsigned k = nd; k-- > 0;) {
            uint64_t dim = k == s->ndims ? s->vec : s->dims[k];
            sub[k] = sub[k + 1] * (dim ? dim : 1);
        }
        for (unsigned k = 0; k < nd; k++)
            fputc('{', o);
        for (uint64_t i = 0; i < n; i++) {
            if (i) {
                unsigned c = 0;
                for (unsigned k = 1; k < nd; k++)
                    c += sub[k] && i % sub[k] == 0;
                for (unsigned k = 0; k < c; k++)
                    fputc('}', o);
                fputs(", ", o);
                for (unsigned k = 0; k < c; k++)
                    fputc('{', o);
            }
            print_elem(o, m, s, i * es);
        }
        for (unsigned k = 0; k < nd; k++)
            fputc('}', o);
    }
    fputs(";\n", o);
}

static void print_params(FILE *o, const struct ir_module *m, uint32_t first, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        const struct ir_sym *s = &m->syms[first + i];
        fprintf(o, "%s\n\t.%s ", i ? "," : "", (s->flags & VF_REG_PARAM) ? "reg" : "param");
        if (s->flags & VF_PARAM_PTR) {
            fprintf(o, ".%s .ptr ", ir_type_name((enum ir_type)s->type));
            if (s->ptr_space && s->ptr_space < SP__COUNT)
                fprintf(o, ".%s ", pr_space[s->ptr_space]);
            if (s->ptr_align)
                fprintf(o, ".align %" PRIu32 " ", s->ptr_align);
            fputs(ir_str(m, s->name), o);
            continue;
        }
        if (s->align && !(s->flags & VF_REG_PARAM))
            fprintf(o, ".align %" PRIu32 " ", s->align);
        if (s->vec > 1)
            fprintf(o, ".v%u ", s->vec);
        fprintf(o, ".%s %s", ir_type_name((enum ir_type)s->type), ir_str(m, s->name));
        for (unsigned d = 0; d < s->ndims; d++)
            fprintf(o, "[%" PRIu32 "]", s->dims[d]);
    }
    fputs(n ? "\n)" : ")", o);
}

/* The `.pragma`s of function fi standing at `where` (PRAGMA_HEAD, PRAGMA_BODY_TOP). */
static void print_pragmas(FILE *o, const struct ir_module *m, int32_t fi, unsigned where,
                          const char *indent)
{
    for (uint32_t i = 0; i < m->npragmas; i++)
        if (m->pragmas[i].func == fi && m->pragmas[i].where == where)
            fprintf(o, "%s.pragma %s;\n", indent, ir_str(m, m->pragmas[i].str));
}

/* Source line of function f's first declaration (its first parameter's line; 0 without
 * parameters), and whether the printer writes a separate declaration for it. */
static uint32_t decl_line(const struct ir_module *m, const struct ir_func *f)
{
    if (f->nret)
        return m->syms[f->ret].line;
    return f->nparam ? m->syms[f->param].line : 0;
}

static bool decl_printed(const struct ir_module *m, const struct ir_func *f)
{
    return !f->defined || (decl_line(m, f) < f->line && !f->is_entry);
}

static void print_func_head(FILE *o, const struct ir_module *m, const struct ir_func *f,
                            int decl)
{
    int lk = f->linkage;
    if (decl && lk == LNK_VISIBLE && f->defined)
        lk = LNK_NONE == 0 ? LNK_VISIBLE : lk;
    fputs(pr_link[lk < 5 ? lk : 0], o);
    fputs(f->is_entry ? ".entry " : ".func ", o);
    if (f->has_unified)
        fprintf(o, ".attribute(.unified(0x%" PRIx64 ", 0x%" PRIx64 ")) ", f->unified[0],
                f->unified[1]);
    if (f->nret) {
        fputc('(', o);
        print_params(o, m, f->ret, f->nret);
        fputc(' ', o);
    }
    fprintf(o, "%s(", ir_str(m, f->name));
    print_params(o, m, f->param, f->nparam);
    fputc('\n', o);
    if (f->noreturn)
        fputs(".noreturn\n", o);
    if (f->maxntid[0])
        fprintf(o, ".maxntid %u, %u, %u\n", f->maxntid[0], f->maxntid[1] ? f->maxntid[1] : 1,
                f->maxntid[2] ? f->maxntid[2] : 1);
    if (f->reqntid[0])
        fprintf(o, ".reqntid %u, %u, %u\n", f->reqntid[0], f->reqntid[1] ? f->reqntid[1] : 1,
                f->reqntid[2] ? f->reqntid[2] : 1);
    if (f->minnctapersm)
        fprintf(o, ".minnctapersm %u\n", f->minnctapersm);
    if (f->maxnreg)
        fprintf(o, ".maxnreg %u\n", f->maxnreg);
    if (f->maxclusterrank)
        fprintf(o, ".maxclusterrank %u\n", f->maxclusterrank);
    if (f->reqnctapercluster[0])
        fprintf(o, ".reqnctapercluster %u, %u, %u\n", f->reqnctapercluster[0],
                f->reqnctapercluster[1] ? f->reqnctapercluster[1] : 1,
                f->reqnctapercluster[2] ? f->reqnctapercluster[2] : 1);
    if (f->explicitcluster)
        fputs(".explicitcluster\n", o);
    if (f->blocksareclusters)
        fputs(".blocksareclusters\n", o);
    if (f->abi_preserve)
        fprintf(o, ".abi_preserve %u\n", f->abi_preserve);
    if (f->abi_preserve_control)
        fprintf(o, ".abi_preserve_control %u\n", f->abi_preserve_control);
    if (f->local_maxnreg)
        fprintf(o, ".local_maxnreg %u\n", f->local_maxnreg);
    if (!decl)
        print_pragmas(o, m, (int32_t)(f - m->funcs), PRAGMA_HEAD, "");
}

/* The last .loc printed in a body. */
struct loc_state {
    uint32_t file, line, col, ext;
    int orphan; /* the last .loc printed is an instruction-less one: the next instruction's
                   own .loc came after it in the source, so it is printed even if equal */
};

/* `.loc F L C[ext]` unless it repeats the last one printed (always when force). */
static void print_loc(FILE *o, const struct ir_module *m, struct loc_state *ls, uint32_t file,
                      uint32_t line, uint32_t col, uint32_t ext, int force)
{
    if (!force && ls->file == file && ls->line == line && ls->col == col && ls->ext == ext)
        return;
    fprintf(o, "\t.loc %" PRIu32 " %" PRIu32 " %" PRIu32 "%s\n", file, line, col,
            ext ? ir_str(m, ext) : "");
    *ls = (struct loc_state){file, line, col, ext, 0};
}

/* The body pragmas [*pk, pe) and instruction-less .locs [*ok, oe) that stand at pc before
 * label index li (UINT32_MAX: after all labels at pc), in that order; advances *pk, *ok. */
static void print_body_dirs(FILE *o, const struct ir_module *m, uint32_t pc, uint32_t li,
                            uint32_t *pk, uint32_t pe, uint32_t *ok, uint32_t oe,
                            struct loc_state *ls)
{
    for (; *pk < pe && m->pragmas[*pk].pc <= pc && m->pragmas[*pk].nlabel <= li; ++*pk)
        fprintf(o, "\t.pragma %s;\n", ir_str(m, m->pragmas[*pk].str));
    for (; *ok < oe && m->locs[*ok].pc <= pc && m->locs[*ok].nlabel <= li; ++*ok) {
        const struct ir_loc *l = &m->locs[*ok];
        print_loc(o, m, ls, l->file, l->line, l->col, l->ext, 1);
        ls->orphan = 1;
    }
}

static void print_body(FILE *o, const struct ir_module *m, uint32_t fi)
{
    const struct ir_func *f = &m->funcs[fi];
    fputs("{\n", o);
    print_pragmas(o, m, (int32_t)fi, PRAGMA_BODY_TOP, "\t");
    for (uint32_t i = 0; i < f->nregdecls; i++) {
        const struct ir_regdecl *r = &f->regdecls[i];
        if (r->param)
            continue; /* declared in the header */
        fputs("\t.reg ", o);
        if (r->vec > 1)
            fprintf(o, ".v%u ", r->vec);
        fprintf(o, ".%s %s", ir_type_name((enum ir_type)r->type), ir_str(m, r->name));
        long k = reg_dup(m, f, i);
        if (k >= 0)
            fprintf(o, "$%ld$", k);
        if (r->count)
            fprintf(o, "<%" PRIu32 ">", r->count);
        fputs(";\n", o);
    }
    for (uint32_t si = 0; si < m->nsyms; si++) {
        const struct ir_sym *s = &m->syms[si];
        if (s->func != (int32_t)fi || (s->flags & VF_RETURN))
            continue;
        if (si >= f->param && si < f->param + f->nparam)
            continue;
        if (s->flags & VF_CALLPROTOTYPE) {
            fputc('\t', o);
            print_sym_name(o, m, si);
            fprintf(o, ": %s;\n", ir_str(m, s->init));
            continue;
        }
        print_var(o, m, si, "\t");
    }
    /* label lists (.branchtargets for brx.idx, .calltargets for indirect calls) */
    for (uint32_t ti = 0; ti < f->ntable_names; ti++) {
        const struct ir_table_name *tn = &f->table_names[ti];
        fprintf(o, "\t%s: .%s ", ir_str(m, tn->name),
                tn->is_call ? "calltargets" : "branchtargets");
        for (unsigned k = 0; k < tn->n && tn->first + k < f->ntables; k++) {
            uint32_t x = f->tables[tn->first + k];
            fputs(k ? ", " : "", o);
            const int32_t l = tn->is_call ? -1 : label_at(f, x);
            if (tn->is_call)
                fputs(x < m->nfuncs ? ir_str(m, m->funcs[x].name) : "?", o);
            else if (l >= 0)
                print_label(o, m, f, (uint32_t)l);
            else
                fputc('?', o);
        }
        fputs(";\n", o);
    }
    /* this function's body pragmas: contiguous in source order */
    uint32_t pk = 0, pe;
    while (pk < m->npragmas && !(m->pragmas[pk].func == (int32_t)fi &&
                                 m->pragmas[pk].where == PRAGMA_BODY))
        pk++;
    for (pe = pk; pe < m->npragmas && m->pragmas[pe].func == (int32_t)fi &&
                  m->pragmas[pe].where == PRAGMA_BODY;
         pe++)
        ;
    /* and its .loc directives no instruction carries (also contiguous) */
    uint32_t ok = 0, oe;
    while (ok < m->nlocs && m->locs[ok].func != (int32_t)fi)
        ok++;
    for (oe = ok; oe < m->nlocs && m->locs[oe].func == (int32_t)fi; oe++)
        ;
    struct loc_state ls = {0};
    uint32_t li = 0;
    for (uint32_t pc = 0; pc <= f->ninsns; pc++) {
        for (; li < f->nlabels && f->labels[li].pc <= pc; li++) {
            print_body_dirs(o, m, pc, li, &pk, pe, &ok, oe, &ls);
            if (f->labels[li].pc == pc) {
                print_label(o, m, f, li);
                fputs(":\n", o);
            }
        }
        print_body_dirs(o, m, pc, UINT32_MAX, &pk, pe, &ok, oe, &ls);
        if (pc == f->ninsns)
            break;
        const struct ir_insn *in = &f->insns[pc];
        if (in->loc_file)
            print_loc(o, m, &ls, in->loc_file, in->loc_line, in->loc_col, in->loc_ext,
                      ls.orphan);
        fputc('\t', o);
        ir_print_insn(o, m, f, in);
        fputc('\n', o);
    }
    fputs("}\n", o);
}

struct pr_item {
    uint32_t line;
    uint32_t kind; /* 0 function declaration, 1 variable, 2 function definition, 3 pragma */
    uint32_t idx;
};

static int pr_item_cmp(const void *a, const void *b)
{
    const struct pr_item *x = a, *y = b;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Print the module as canonical PTX. */
void ir_print_module(FILE *o, const struct ir_module *m)
{
    fprintf(o, "//\n// %s, printed by ptxemu\n//\n\n", m->filename ? m->filename : "module");
    if (m->version_major)
        fprintf(o, ".version %u.%u\n", m->version_major, m->version_minor);
    if (m->target[0])
        fprintf(o, ".target %s\n", m->target);
    /* as declared; an absent directive means 32-bit, so a 64-bit module built without one
       (by hand) still prints it */
    if (m->address_size_declared || m->address_size != 32)
        fprintf(o, ".address_size %u\n", m->address_size ? m->address_size : 64);
    for (uint32_t i = 1; i < m->nfiles; i++)
        if (m->files[i])
            fprintf(o, ".file %" PRIu32 " \"%s\"\n", i, ir_str(m, m->files[i]));
    fputc('\n', o);
    /* Items in source order so a re-parse creates variables and functions in the same
       order (identical indices): module variables at their line, a function declaration at
       the line of its first parameter (functions without parameters first), a definition at
       its line. */
    size_t cap = (size_t)m->nsyms + 2 * (size_t)m->nfuncs + m->npragmas + 1, n = 0;
    struct pr_item *it = malloc(cap * sizeof *it);
    if (!it)
        return;
    for (uint32_t si = 0; si < m->nsyms; si++)
        if (m->syms[si].func < 0)
            it[n++] = (struct pr_item){m->syms[si].line, 1, si};
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        const struct ir_func *f = &m->funcs[i];
        if (decl_printed(m, f))
            it[n++] = (struct pr_item){decl_line(m, f), 0, i};
        if (f->defined)
            it[n++] = (struct pr_item){f->line, 2, i};
    }
    for (uint32_t i = 0; i < m->npragmas; i++)
        if (m->pragmas[i].where == PRAGMA_MODULE)
            it[n++] = (struct pr_item){m->pragmas[i].line, 3, i};
    qsort(it, n, sizeof *it, pr_item_cmp);
    for (size_t k = 0; k < n; k++) {
        uint32_t x = it[k].idx;
        if (it[k].kind == 3) {
            fprintf(o, ".pragma %s;\n", ir_str(m, m->pragmas[x].str));
        } else if (it[k].kind == 1) {
            if (m->syms[x].flags & VF_CALLPROTOTYPE)
                fprintf(o, "%s: %s;\n", ir_str(m, m->syms[x].name), ir_str(m, m->syms[x].init));
            else
                print_var(o, m, x, "");
        } else if (it[k].kind == 0) {
            print_func_head(o, m, &m->funcs[x], 1);
            fputs(";\n", o);
        } else {
            fputc('\n', o);
            print_func_head(o, m, &m->funcs[x], 0);
            print_body(o, m, x);
        }
    }
    free(it);
    for (uint32_t i = 0; i < m->nfuncs; i++)
        if (m->funcs[i].alias_of && m->funcs[i].alias_of <= m->nfuncs)
            fprintf(o, "\n.alias %s, %s;\n", ir_str(m, m->funcs[i].name),
                    ir_str(m, m->funcs[m->funcs[i].alias_of - 1].name));
    for (uint32_t i = 0; i < m->nsections; i++)
        fprintf(o, "\n\t%s\n", ir_str(m, m->sections[i]));
}
