/*
 * frontend/build_isa.c — ISA version / target notes. isa_req.def is the one table: the
 * minimum .version / .target of every opcode (REQ rows), of the features that need more (RULE
 * rows) and which mnemonics match each RULE (WHEN rows). The matching code is generated from
 * the WHEN rows; notes never change the exit status.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/build_int.h"

/* ===================================================== ISA version / target notes */

/* A minimum PTX ISA version (major << 8 | minor) and target (sm_NN, arch 'a': needs an
 * architecture-specific or family target) — one per opcode and one per rule (isa_req.def). */
struct isa_req {
    uint16_t ver;
    uint16_t sm;
    uint16_t arch; /* 0 or ISA_SM* bits (build.h) */
};

static const struct isa_req isa_op_req[OP__COUNT] = {
#define REQ(id, maj, min, sm, arch) [OP_##id] = {(maj) << 8 | (min), sm, arch},
#include "frontend/isa_req.def"
#undef REQ
};

static const struct isa_req isa_rule_req[ISR__COUNT] = {
#define RULE(id, maj, min, sm, arch) [ISR_##id] = {(maj) << 8 | (min), sm, arch},
#include "frontend/isa_req.def"
#undef RULE
};

/* The a/f targets of the ISA_SM* bits, in bit order (the names in "not supported" notes). */
static const struct {
    uint16_t sm;
    char suffix;
} isa_af_targets[] = {{90, 'a'},  {100, 'a'}, {100, 'f'}, {103, 'a'}, {103, 'f'}, {110, 'a'},
                      {110, 'f'}, {120, 'a'}, {120, 'f'}, {121, 'a'}, {121, 'f'}};
_Static_assert(sizeof isa_af_targets / sizeof *isa_af_targets + 1 == 12 &&
                   ISA_AF_OTHER == 1 << 11,
               "one isa_af_targets row per ISA_SM* bit");

/* The ISA_SM* bit of target sm_<sm><suffix> (suffix 'a' or 'f'); ISA_AF_OTHER if unknown. */
unsigned isa_af_bit(unsigned sm, char suffix)
{
    for (unsigned i = 0; i < sizeof isa_af_targets / sizeof *isa_af_targets; i++)
        if (isa_af_targets[i].sm == sm && isa_af_targets[i].suffix == suffix)
            return 1u << i;
    return ISA_AF_OTHER;
}

#define ISA_AF_FREE 0xffffu /* decoded.af_mask: no a/f restriction (ISA_AF_ANY is one) */
_Static_assert(ISA_AF_ANY < ISA_AF_FREE, "ISA_AF_FREE is not a set of targets");
#define ISA_NOTE_CAP 20 /* notes per module; the rest are counted in one summary note */
#define TB(t) (UINT64_C(1) << (t))
_Static_assert(T__COUNT <= 64, "type sets are 64-bit masks");

/* Raise dc's requirements to those of rule (ISR_OPCODE: the opcode row); mod is the modifier
 * that triggered the rule (0: the opcode itself), named in the note. */
static void isa_need(struct decoded *dc, unsigned rule, unsigned mod)
{
    const struct isa_req *r = rule ? &isa_rule_req[rule] : &isa_op_req[dc->op];
    if (r->ver > dc->ver_req) {
        dc->ver_req = r->ver;
        dc->ver_rule = (uint8_t)rule;
        dc->ver_mod = (uint16_t)mod;
    }
    if (r->sm > dc->sm_req) {
        dc->sm_req = r->sm;
        dc->sm_rule = (uint8_t)rule;
        dc->sm_mod = (uint16_t)mod;
    }
    if (r->arch && r->sm > dc->arch_sm) {
        dc->arch_sm = r->sm;
        dc->arch_rule = (uint8_t)rule;
        dc->arch_mod = (uint16_t)mod;
    }
    if (r->arch && (dc->af_mask & r->arch) != dc->af_mask) {
        dc->af_mask &= r->arch;
        dc->af_rule = (uint8_t)rule;
        dc->af_mod = (uint16_t)mod;
    }
}

/* Minimum version / target of an opcode (build.h). */
void ptx_isa_op_req(unsigned op, unsigned *ver, unsigned *sm, int *arch)
{
    const struct isa_req *r = op < OP__COUNT ? &isa_op_req[op] : &isa_rule_req[0];
    *ver = r->ver;
    *sm = r->sm;
    *arch = r->arch;
}

/* What a WHEN row of isa_req.def is matched against: the instruction with its modifiers
 * applied, the modifiers as written, the set of their types, and whether the module's .target
 * has map_f64_to_f32 (then .f64 needs no sm_13). */
struct isa_ctx {
    const struct ir_insn *in;
    const uint16_t *mods;
    unsigned n;
    uint64_t tys;
    int map_f64;
};

/* Is op one of ops[] (ended by OP__COUNT)? */
static int isa_on(const struct isa_ctx *c, const uint16_t *ops)
{
    for (; *ops != OP__COUNT; ops++)
        if (*ops == c->in->op)
            return 1;
    return 0;
}

/* The first modifier written that is one of the types in set, or -1. */
static int isa_ty(const struct isa_ctx *c, uint64_t set)
{
    if (!(c->tys & set))
        return -1;
    for (unsigned i = 0; i < c->n; i++)
        if (ir_mod_kind((enum ir_mod)c->mods[i]) == MK_TYPE &&
            (set & TB(ir_mod_value((enum ir_mod)c->mods[i]))))
            return c->mods[i];
    return -1;
}

/* The first of list[] (ended by 0) that was written, or -1. */
static int isa_mods(const struct isa_ctx *c, const uint16_t *list)
{
    for (; *list; list++)
        for (unsigned i = 0; i < c->n; i++)
            if (c->mods[i] == *list)
                return *list;
    return -1;
}

/* The first modifier written in [lo, hi] or equal to also (0: none), or -1. */
static int isa_mrange(const struct isa_ctx *c, unsigned lo, unsigned hi, unsigned also)
{
    for (unsigned i = 0; i < c->n; i++)
        if ((c->mods[i] >= lo && c->mods[i] <= hi) || (also && c->mods[i] == also))
            return c->mods[i];
    return -1;
}

/* The first modifier written of kind k (0 if none: the note then names no modifier). */
static int isa_kind(const struct isa_ctx *c, enum ir_mod_kind k)
{
    for (unsigned i = 0; i < c->n; i++)
        if (ir_mod_kind((enum ir_mod)c->mods[i]) == k)
            return c->mods[i];
    return 0;
}

/* Compute the version / target requirements of a decoded mnemonic from its opcode row and
 * the WHEN rows of isa_req.def it matches (in: the instruction with the modifiers applied):
 * first the rows for named opcodes, then the ANY_OP rows, each in table order (the first rule
 * to reach the highest version / target is the one a note names). Runs once per distinct
 * mnemonic spelling. */
static void isa_rules(struct decoded *dc, const struct ir_insn *in, const uint16_t *mods,
                      unsigned n, int map_f64)
{
    struct isa_ctx ctx = {in, mods, n, 0, map_f64};
    const struct isa_ctx *c = &ctx;
    for (unsigned i = 0; i < n; i++)
        if (ir_mod_kind((enum ir_mod)mods[i]) == MK_TYPE)
            ctx.tys |= TB(ir_mod_value((enum ir_mod)mods[i]));
    dc->af_mask = ISA_AF_FREE;
    isa_need(dc, ISR_OPCODE, 0);
    /* the vocabulary of WHEN rows (isa_req.def, header) */
#define F16S (TB(T_F16) | TB(T_F16X2))
#define BF16S (TB(T_BF16) | TB(T_BF16X2))
#define FP8S (TB(T_E4M3) | TB(T_E5M2) | TB(T_E4M3X2) | TB(T_E5M2X2) | TB(T_E4M3X4) | TB(T_E5M2X4))
#define FP6S                                                                                  \
    (TB(T_E2M1) | TB(T_E2M3) | TB(T_E3M2) | TB(T_UE8M0) | TB(T_UE4M3) | TB(T_E2M3X2) |        \
     TB(T_E3M2X2) | TB(T_E2M1X2) | TB(T_UE8M0X2) | TB(T_E2M3X4) | TB(T_E3M2X4) | TB(T_E2M1X4))
#define W64S (TB(T_B64) | TB(T_U64) | TB(T_S64))
#define IN (c->in)
#define TYS (c->tys)
#define MAP_F64 (c->map_f64)
#define ON(...) isa_on(c, (const uint16_t[]){__VA_ARGS__, OP__COUNT})
#define ANY_OP 2
#define TY(set) isa_ty(c, set)
#define MODS(...) isa_mods(c, (const uint16_t[]){__VA_ARGS__, 0})
#define MRANGE(lo, hi, also) isa_mrange(c, lo, hi, also)
#define KIND(k) isa_kind(c, k)
#define MOD(m) ((int)(m))
#define ALWAYS 0
#define IF(cond, match) ((cond) ? (match) : -1)
#define RULE(id, maj, min, sm, arch)
#define WHEN(rule, on, match)                                                                 \
    if ((on) == 1 + pass) {                                                                   \
        int m_ = (match);                                                                     \
        if (m_ >= 0)                                                                          \
            isa_need(dc, ISR_##rule, (unsigned)m_);                                           \
    }
    for (int pass = 0; pass < 2; pass++) {
#include "frontend/isa_req.def"
    }
#undef WHEN
#undef RULE
#undef IF
#undef ALWAYS
#undef MOD
#undef KIND
#undef MRANGE
#undef MODS
#undef TY
#undef ANY_OP
#undef ON
#undef MAP_F64
#undef TYS
#undef IN
#undef W64S
#undef FP6S
#undef FP8S
#undef BF16S
#undef F16S
    dc->req_done = 1;
}

/* Has the note of (rule, opcode, reason 0 version / 1 target / 2 arch) been given? Marks it. */
static int isa_seen(struct ptx_builder *b, unsigned rule, unsigned op, unsigned reason)
{
#ifdef PTXEMU_ISA_NOTE_ALL /* validation builds (fixtures/ptx/isa/README.md): every note */
    (void)b, (void)rule, (void)op, (void)reason;
    return 0;
#endif
    if (!b->isa_seen) {
        b->isa_seen = calloc((size_t)ISR__COUNT * (OP__COUNT + 1), 1);
        if (!b->isa_seen)
            return 1; /* no memory for the bookkeeping: no notes (never an error) */
    }
    uint8_t *p = &b->isa_seen[(size_t)rule * (OP__COUNT + 1) + op];
    if (*p & (1u << reason))
        return 1;
    *p |= (uint8_t)(1u << reason);
    return 0;
}

static void isa_report(struct ptx_builder *b, uint32_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void isa_report(struct ptx_builder *b, uint32_t off, const char *fmt, ...)
{
#ifndef PTXEMU_ISA_NOTE_ALL
    if (b->isa_nnotes >= ISA_NOTE_CAP) {
        b->isa_suppressed++;
        return;
    }
#endif
    b->isa_nnotes++;
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(b->d, DIAG_REMARK, off, fmt, ap);
    va_end(ap);
}

/* Write the targets of the ISA_SM* set mask into req[0, cap) as "sm_100a, sm_100f or sm_110a"
 * (ISA_AF_OTHER: "a later a/f target"). */
static void isa_af_list(unsigned mask, char *req, size_t cap)
{
    size_t n = 0;
    unsigned left = mask;
    req[0] = 0;
    for (unsigned i = 0; left && n < cap; i++) {
        if (!(left & (1u << i)))
            continue;
        left &= ~(1u << i);
        if (i >= sizeof isa_af_targets / sizeof *isa_af_targets) {
            n += (size_t)snprintf(req + n, cap - n, "%sa later a/f target", n ? " or " : "");
            break;
        }
        n += (size_t)snprintf(req + n, cap - n, "%ssm_%u%c", !n ? "" : left ? ", " : " or ",
                              isa_af_targets[i].sm, isa_af_targets[i].suffix);
    }
}

/* An instruction whose version / target requirement (dc) exceeds the module's: note it once
 * per (opcode, cause, reason). off: the mnemonic. */
static void isa_note(struct ptx_builder *b, const struct decoded *dc, uint32_t off)
{
    const char *nm = ir_op_name((enum ir_op)dc->op);
    if (dc->ver_req > b->isa_ver && !isa_seen(b, dc->ver_rule, (unsigned)dc->op, 0))
        isa_report(b, off, "'%s'%s%s requires PTX ISA .version %u.%u or later (module declares "
                   ".version %u.%u)", nm, dc->ver_mod ? " with ." : "",
                   dc->ver_mod ? ir_mod_name((enum ir_mod)dc->ver_mod) : "",
                   dc->ver_req >> 8, dc->ver_req & 0xff, b->isa_ver >> 8, b->isa_ver & 0xff);
    if (dc->sm_req > b->isa_sm && !isa_seen(b, dc->sm_rule, (unsigned)dc->op, 1)) {
        int arch = dc->arch_sm && dc->arch_sm == dc->sm_req;
        isa_report(b, off, "'%s'%s%s requires .target sm_%u%s (module declares .target %s)",
                   nm, dc->sm_mod ? " with ." : "",
                   dc->sm_mod ? ir_mod_name((enum ir_mod)dc->sm_mod) : "", dc->sm_req,
                   arch ? "a" : " or higher", b->isa_target);
    } else if (dc->af_mask != ISA_AF_FREE && dc->sm_req <= b->isa_sm &&
               !(dc->af_mask & (b->isa_af ? b->isa_af : isa_af_bit(b->isa_sm, 'a')))) {
        /* a later family (or another branch) without the feature */
        if (isa_seen(b, dc->af_rule, (unsigned)dc->op, 3))
            return;
        char req[128];
        isa_af_list(dc->af_mask, req, sizeof req);
        isa_report(b, off, "'%s'%s%s is not supported on .target %s (requires %s)", nm,
                   dc->af_mod ? " with ." : "",
                   dc->af_mod ? ir_mod_name((enum ir_mod)dc->af_mod) : "", b->isa_target, req);
    } else if (dc->af_mask != ISA_AF_FREE && !b->isa_af && dc->sm_req <= b->isa_sm &&
               !isa_seen(b, dc->arch_rule, (unsigned)dc->op, 2)) {
        isa_report(b, off, "'%s'%s%s requires an architecture-specific .target such as sm_%ua "
                   "(module declares .target %s)", nm, dc->arch_mod ? " with ." : "",
                   dc->arch_mod ? ir_mod_name((enum ir_mod)dc->arch_mod) : "", b->isa_sm,
                   b->isa_target);
    }
}

/* A feature other than an instruction's mnemonic (a special register, a function directive,
 * an operand count: what[0, len) names it) that needs rule's version / target: note it once
 * per rule per module when the module declares less. */
void isa_feature(struct ptx_builder *b, unsigned rule, const char *what, int len,
                        uint32_t off)
{
    const struct isa_req *r = &isa_rule_req[rule];
    if (b->m->dialect != DIALECT_PTX)
        return;
    if (r->ver > b->isa_ver && !isa_seen(b, rule, OP__COUNT, 0))
        isa_report(b, off, "'%.*s' requires PTX ISA .version %u.%u or later (module declares "
                   ".version %u.%u)", len, what, r->ver >> 8, r->ver & 0xff, b->isa_ver >> 8,
                   b->isa_ver & 0xff);
    if (r->sm > b->isa_sm && !isa_seen(b, rule, OP__COUNT, 1)) {
        isa_report(b, off, "'%.*s' requires .target sm_%u or higher (module declares .target "
                   "%s)", len, what, r->sm, b->isa_target);
    } else if (r->arch && b->isa_af && b->isa_af != ISA_AF_ANY && !(r->arch & b->isa_af) &&
               !isa_seen(b, rule, OP__COUNT, 3)) {
        /* an a/f target outside the rule's set (a plain target: the mnemonic's own note) */
        char req[128];
        isa_af_list(r->arch, req, sizeof req);
        isa_report(b, off, "'%.*s' is not supported on .target %s (requires %s)", len, what,
                   b->isa_target, req);
    }
}

/* The rule a special register needs beyond PTX 1.0 / sm_10 (0: none): the SREG rows of
 * isa_req.def. */
unsigned isa_sreg_rule(unsigned sr)
{
#define RULE(id, maj, min, sm, arch)
#define SREG(rule, lo, hi)                                                                    \
    if (sr >= (unsigned)(lo) && sr <= (unsigned)(hi))                                         \
        return ISR_##rule;
#include "frontend/isa_req.def"
#undef SREG
#undef RULE
    return 0;
}


/* Rules that depend on the operands rather than the mnemonic (isa_req.def, "operand forms"):
 * noted once per rule per module, at the mnemonic. */
void isa_operand_rules(struct ptx_builder *b, const struct ir_insn *in)
{
    uint32_t off = b->insn_tok.off;
    const char *w;
    int nc = 0;
    switch (in->op) {
    case OP_TEX: case OP_TLD4: {
        w = in->op == OP_TEX ? "tex with a d|p destination" : "tld4 with a d|p destination";
        if (b->pipe_seen)
            isa_feature(b, ISR_TEX_PRED, w, (int)strlen(w), off);
        /* [h, {c}] then (tex) the lod / dPdx, dPdy, then {offset} and depth-compare */
        int ind = 0, grad = 0, vecs = 0, seen = 0;
        for (unsigned i = 0; i < in->nmod; i++)
            grad |= b->fb.mods[in->mod + i] == MOD_GRAD;
        for (uint32_t i = 0; i < b->ntop && i < 64; i++) {
            const struct ir_opnd *o = &b->ops_top[i];
            if (o->kind == OPK_TEX) {
                seen = 1;
                ind |= o->n && o->first < b->nelems && b->elems[o->first].kind == OPK_REG;
            } else if (seen && o->kind == OPK_VEC) {
                vecs++;
            }
        }
        w = "indirect texture access";
        if (ind)
            isa_feature(b, ISR_TEX_INDIRECT, w, (int)strlen(w), off);
        if (in->op == OP_TEX && vecs > (grad ? 2 : 0))
            ISA_FEATURE(b, ISR_TEX_OFFSET, "tex with an offset operand", off);
        break;
    }
    case OP_MBARRIER_ARRIVE: case OP_MBARRIER_ARRIVE_DROP:
        for (unsigned i = 0; i < in->nmod; i++)
            if (b->fb.mods[in->mod + i] == MOD_NOCOMPLETE ||
                b->fb.mods[in->mod + i] == MOD_EXPECT_TX)
                nc = 1;
        w = in->op == OP_MBARRIER_ARRIVE ? "mbarrier.arrive with a count operand"
                                         : "mbarrier.arrive_drop with a count operand";
        if (b->ntop >= 3 && !nc)
            isa_feature(b, ISR_MBAR_COUNT, w, (int)strlen(w), off);
        w = in->op == OP_MBARRIER_ARRIVE ? "mbarrier.arrive with a '_' destination"
                                         : "mbarrier.arrive_drop with a '_' destination";
        if (b->ntop >= 1 && b->ops_top[0].kind == OPK_SINK)
            isa_feature(b, ISR_MBAR_SINK, w, (int)strlen(w), off);
        break;
    case OP_MOV: case OP_CVTA:
        for (uint32_t i = 1; i < b->ntop && i < 64; i++)
            if (b->ops_top[i].kind == OPK_FUNC)
                ISA_FEATURE(b, ISR_DIR_INIT_ADDR, "function address", off);
        break;
    case OP_CALL:
        if (in->target == IR_NOPC)
            ISA_FEATURE(b, ISR_CALL_INDIRECT, "call through a register", off);
        break;
    case OP_TXQ: case OP_SUQ: case OP_SULD: case OP_SUST: case OP_SURED: {
        int ind = 0;
        for (uint32_t i = 0; i < b->ntop && i < 64; i++) {
            const struct ir_opnd *o = &b->ops_top[i];
            if (o->kind == OPK_TEX && o->n && o->first < b->nelems &&
                b->elems[o->first].kind == OPK_REG)
                ind = 1;
            if (o->kind == OPK_ADDR && o->sym == IR_NOSYM && o->slot != IR_NOSLOT)
                ind = 1;
        }
        w = in->op == OP_TXQ ? "indirect texture access" : "indirect surface access";
        if (ind)
            isa_feature(b, ISR_TEX_INDIRECT, w, (int)strlen(w), off);
        break;
    }
    case OP_TCGEN05_MMA: case OP_TCGEN05_MMA_SP:
        /* [d], a, b, idesc, {lanes,} enable-input-d, scale-input-d: an immediate last */
        if (b->ntop >= 6 && b->ntop <= 64 && b->ops_top[b->ntop - 1].kind == OPK_IMM)
            ISA_FEATURE(b, ISR_TCGEN05_SCALE_D_IMM, "tcgen05.mma with an immediate scale-input-d",
                        off);
        break;
    default:
        break;
    }
}

/* The requirements of mnemonic spelling dc (computed at its first use) against the module's
 * .version / .target (build_int.h). */
void isa_check_mnemonic(struct ptx_builder *b, struct decoded *dc, const struct ir_insn *in,
                        uint32_t off)
{
    if (!dc->req_done)
        isa_rules(dc, in, b->dmods ? b->dmods + dc->mods : NULL, dc->nmods,
                  b->m->map_f64_to_f32); /* no modifier seen yet: dmods is NULL */
    if ((dc->ver_req > b->isa_ver || dc->sm_req > b->isa_sm ||
         (dc->af_mask != ISA_AF_FREE && !(dc->af_mask & b->isa_af))) &&
        b->m->dialect == DIALECT_PTX)
        isa_note(b, dc, off);
}
