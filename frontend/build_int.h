/*
 * frontend/build_int.h — what the pieces of the builder share (private to frontend/build*.c):
 * the builder state (struct ptx_builder), its containers, and the helpers one piece offers the
 * others. The pieces, by role:
 *
 *   build.c        the driver (ptx_build), setup of the name tables, errors, growth
 *   build_names.c  interned names and what they are bound to (string maps, scopes, registers)
 *   build_num.c    numeric literals: decoding and conversion to an operand's type
 *   build_decl.c   module directives, declarations (variables, initializers), functions
 *   build_insn.c   instructions: mnemonic and modifiers, operands, the instruction's end
 *   build_isa.c    ISA version / target notes, driven by the rows of isa_req.def
 *
 * Not a public header: only the builder's own sources include it (the grammar and the lexer
 * use build.h).
 */
#ifndef PTXEMU_BUILD_INT_H
#define PTXEMU_BUILD_INT_H

#include <stdarg.h>
#include <stdint.h>

#include "frontend/build.h"

/* ========================================================================= containers */

/* Levels of `{ }` in a function body, its own braces included: ptxas 13's parser takes 1,663
 * nested blocks inside a body and runs out of stack ("memory exhausted") at 1,664. */
#define PTX_MAX_NEST 1664

#define VEC_PUSH(b, arr, n, cap, val)                                                         \
    do {                                                                                      \
        if ((n) == (cap) && b_grow(b, (void **)&(arr), &(cap), sizeof *(arr)) < 0)            \
            break;                                                                            \
        (arr)[(n)++] = (val);                                                                 \
    } while (0)

/* An interned name and what it currently means. */
struct ent {
    uint32_t id, len;
    uint64_t hash;
    int32_t bind;   /* innermost function-scope binding, or -1 */
    int32_t label;  /* label index in the current function, or -1 */
    int32_t gsym;   /* module variable index, or -1 */
    int32_t gfunc;  /* function index, or -1 */
    int32_t sreg;   /* special register, or 0 */
};

enum { BK_REG, BK_RANGE, BK_SYM, BK_TABLE };

struct binding {
    uint32_t ent;
    int32_t prev;
    uint32_t depth;
    uint8_t kind;
    uint32_t idx;
};

/* A small string -> int map (keys are stable pointers: static tables or the source text). */
struct smap {
    const char **keys;
    uint32_t *lens;
    int32_t *vals;
    uint32_t cap; /* power of two */
    uint32_t n;
};

struct fixup {
    uint32_t opnd;  /* index in fb.opnds, or UINT32_MAX for table entries */
    uint32_t insn;
    uint32_t ent;
    uint32_t off;
    uint32_t table; /* index in tables for table entries */
    uint32_t blk;   /* the block of the use (fb.blk_parent) */
};

struct decoded {   /* a decoded mnemonic token (cached by its spelling) */
    int16_t op;
    uint16_t nmods;
    uint32_t mods;  /* index into b->dmods */
    /* minimum PTX ISA version and target of this spelling (isa_req.def), computed at its
       first use (req_done); *_rule / *_mod name the cause for the note (rule 0: the opcode
       itself, mod 0: no modifier) */
    uint8_t req_done, arch_rule;
    uint16_t ver_req, sm_req, arch_sm;
    uint8_t ver_rule, sm_rule, af_rule;
    uint16_t ver_mod, sm_mod, arch_mod;
    /* the a/f targets that have every feature of the spelling (ISA_AF_FREE: no restriction);
       af_rule / af_mod: the rule that narrowed it last */
    uint16_t af_mask, af_mod;
};

struct fmtpos {
    char c;
    uint8_t opt, pipe2;
};
struct fmtinfo {
    struct fmtpos pos[16];
    uint8_t n, nreq, star;
};

struct pending_reloc {
    uint32_t reloc;
    uint32_t ent;
    uint32_t off;
};

struct ptx_builder {
    struct ir_module *m;
    struct diag *d;
    const char *text;
    size_t len;
    int oom;

    /* interning */
    struct ent *ents;
    uint32_t nents, capents;
    uint32_t *htab;  /* 1-based entry index, 0 empty */
    uint32_t hcap;
    char *strtab;
    uint32_t nstr, capstr;

    struct smap ops, mods, tokcache;
    struct decoded *dec;
    uint32_t ndec, capdec;
    uint16_t *dmods;
    uint32_t ndmods, capdmods;
    struct fmtinfo fmt[OP__COUNT];

    /* module vectors */
    struct ir_func *funcs;
    uint32_t nfuncs, capfuncs;
    struct ir_sym *syms;
    uint32_t nsyms, capsyms;
    struct ir_reloc *relocs;
    uint32_t nrelocs, caprelocs;
    struct pending_reloc *prelocs;
    uint32_t nprelocs, capprelocs;
    uint8_t *data;
    uint32_t ndata, capdata;
    uint32_t *files;
    uint32_t nfiles, capfiles;
    uint32_t *sections;
    uint32_t nsections, capsections;
    struct ir_pragma *pragmas;
    uint32_t npragmas, cappragmas;
    char *pbuf;              /* the .pragma string list being read */
    uint32_t npbuf, cappbuf;
    uint32_t pragma_line, pragma_off;
    uint32_t head_pragma_off; /* first .pragma of the function header being read + 1, 0 = none */
    uint32_t body_sym0, body_reg0; /* syms / regs before the body's first statement */
    struct ir_loc *locs;     /* .loc directives no instruction carries */
    uint32_t nlocs, caplocs;
    uint32_t head_line;
    struct ir_regdecl *mregs; /* module-scope .reg declarations */
    uint32_t nmregs, capmregs;

    /* declaration state */
    struct {
        uint8_t linkage, space, type, vec, ptr, managed, has_space, has_type, ptr_space;
        uint8_t vec_checked; /* spec_vec_check reported on this declaration */
        uint32_t vec_off;    /* the .v2/.v4/.v8 token */
        uint32_t align;
        uint32_t ptr_align; /* `.ptr … .align N`: the pointee's alignment */
        uint32_t off;
    } spec;
    struct {
        struct ptx_tok name;
        uint32_t dims[4];
        uint8_t ndims;
        uint8_t has_init, depth;
        uint32_t pos;     /* next element index of the initializer */
        uint8_t *img;
        uint32_t nimg, capimg;
        uint32_t reloc0;
        uint32_t *tex;    /* texture initializer (field, value) pairs */
        uint32_t ntex, captex;
    } decl;
    int has_unified;         /* .attribute(.unified(a, b)) of the function header */
    uint64_t unified[2];

    /* function state */
    int32_t cur;             /* function index being built, -1 at module scope */
    int in_body;
    struct ir_sym *pend;     /* parameters seen before the function exists */
    uint32_t npend, cappend;
    uint32_t npend_ret;
    int pend_is_ret;
    int perf_kind;
    uint32_t perf_n;
    struct {
        struct ir_insn *insns;
        uint32_t ninsns, capinsns;
        struct ir_opnd *opnds;
        uint32_t nopnds, capopnds;
        uint16_t *mods;
        uint32_t nmods, capmods;
        uint32_t *tables;
        uint32_t ntables, captables;
        struct ir_label *labels;
        uint32_t nlabels, caplabels;
        uint32_t *label_ents;
        uint32_t nlabel_ents, caplabel_ents;
        /* block scoping of labels (ptxas: a label declared in a nested { } is unknown
         * outside it): label_blk[k] is the block of label_ents[k]; blocks of the body are
         * numbered in order of their '{' (0: the body), blk_parent[i] encloses block i;
         * label_next[k]: the next label of label_ents[k]'s name (another block's: the
         * names are block-scoped, an inner one shadowing an outer one), -1 none */
        uint32_t *label_blk;
        uint32_t nlabel_blk, caplabel_blk;
        int32_t *label_next;
        uint32_t nlabel_next, caplabel_next;
        uint32_t *blk_parent;
        uint32_t nblk, capblk;
        uint32_t blk; /* the current block */
        struct ir_regdecl *regs;
        uint32_t nregs, capregs;
        uint32_t nslots[RF__COUNT];
        struct fixup *fix;
        uint32_t nfix, capfix;
        struct ir_table_name *tabn;
        uint32_t ntabn, captabn;
    } fb;
    struct binding *binds;
    uint32_t nbinds, capbinds;
    uint32_t depth;
    uint32_t scope_mark[PTX_MAX_NEST];
    uint32_t nest_over;      /* blocks opened beyond PTX_MAX_NEST (reported once) */
    uint32_t loc_file, loc_line, loc_col, loc_ext;
    uint32_t loc_nlabel;     /* labels defined before the current .loc */
    int loc_pending;         /* the current .loc has no instruction yet */
    uint32_t table_cur, table_n; /* .branchtargets being read */
    int table_call;
    int32_t table_ent;

    /* instruction state */
    int in_insn;
    struct ir_insn insn;
    struct ptx_tok insn_tok;
    uint32_t guard;
    uint8_t guard_neg, guard_cc;
    int has_guard;
    int ccd_cand;            /* operand 0 is a predicate where a value is due: a PTXPlus
                                flag destination `$p|$r` if a '|' follows, else an error */
    uint32_t ccd_off, ccd_len;
    int has_ccd;             /* ccd holds the PTXPlus flag destination (appended at the end) */
    struct ir_opnd ccd;
    struct ir_opnd ops_top[64];
    uint32_t ops_off[64];
    uint32_t ntop;
    uint32_t pos;            /* format position of the next top-level operand */
    int pipe_pending;
    int pipe_seen;           /* the instruction has a `d|p` destination (ISA notes) */
    int in_list;             /* OPK_VEC / OPK_PARAMS being read */
    uint32_t list_top;       /* its index in ops_top */
    struct ir_opnd *elems;
    uint32_t nelems, capelems;
    int in_addr;
    struct ir_opnd addr;
    uint32_t addr_off;
    int insn_bad;
    struct {                 /* the integer sum being read (WARP_SZ+1, the N of reg+N) */
        uint64_t v;
        uint32_t n;          /* terms so far (0: none) */
        struct ptx_tok first;
        int first_neg, bad;
    } csum;
    uint32_t nrpi;           /* reg+N temporaries of the function (%__rpiN) */
    uint32_t ls_line, ls_off; /* the line (0: none yet) whose start offset is ls_off */
    int first_is_version;     /* the file starts with .version (header_check) */

    /* ISA version / target notes (isa_req.def) */
    uint16_t isa_ver;        /* module .version as major << 8 | minor; UINT16_MAX: absent */
    uint16_t isa_sm;         /* module .target sm_NN; UINT16_MAX: absent */
    uint16_t isa_af;         /* the target's ISA_SM* bit (ISA_AF_OTHER: an unknown a/f
                                target), 0: a plain sm_NN, ISA_AF_ANY: no sm_ target */
    char isa_target[16];     /* the sm_ token as written */
    uint32_t isa_nnotes, isa_suppressed;
    uint8_t *isa_seen;       /* 3 bits per (rule, opcode): note given for version/target/arch */
};

/* ADOPT(dst, src, n): copy the n-element builder vector src into the module arena as dst
 * (b->oom set on failure). */
#define ADOPT(dst, src, n)                                                                    \
    do {                                                                                      \
        size_t bytes_ = (size_t)(n) * sizeof *(src);                                          \
        void *p_ = ir_arena_alloc(b->m->arena, bytes_ ? bytes_ : 1);                          \
        if (!p_) {                                                                            \
            b->oom = 1;                                                                       \
            break;                                                                            \
        }                                                                                     \
        if (bytes_)                                                                           \
            memcpy(p_, (src), bytes_);                                                        \
        (dst) = p_;                                                                           \
    } while (0)

/* The bytes of token t in the source text. */
static inline const char *tok_s(const struct ptx_builder *b, struct ptx_tok t)
{
    return b->text + t.off;
}

/* ================================================================= build.c (driver) */

/* Double the capacity of vector *arr (esz bytes per element, *cap elements; 16 at first).
 * -1 and b->oom set when out of memory. */
int b_grow(struct ptx_builder *b, void **arr, uint32_t *cap, size_t esz);

/* Report an error at byte offset off of the source (printf-style message). */
void b_err(struct ptx_builder *b, uint32_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ============================================================ build_names.c (names) */

/* The hash of names and map keys (XXH3). */
uint64_t b_hash(const char *s, size_t n);

/* A string map with room for cap keys (a power of two): 0, or -1 when out of memory. */
int smap_init(struct smap *m, uint32_t cap);
/* Free the arrays of m (not the keys: they belong to the caller). */
void smap_free(struct smap *m);
/* The value of key s[0, n) in m, or -1 when absent. */
int32_t smap_get(const struct smap *m, const char *s, size_t n);
/* Set key s[0, n) (a stable pointer) to v in m, growing it: 0, or -1 when out of memory. */
int smap_put(struct smap *m, const char *s, size_t n, int32_t v);

/* The entry of name s[0, n) with hash h, or -1 when it was never interned. */
int32_t ent_find(struct ptx_builder *b, const char *s, size_t n, uint64_t h);
/* The entry of name s[0, n) (created when absent). -1 when out of memory. */
int32_t ent_get(struct ptx_builder *b, const char *s, size_t n);
/* The string-table id of name s[0, n) (interned; 0 when out of memory). */
uint32_t str_id(struct ptx_builder *b, const char *s, size_t n);

/* The register file of a register of type t (RF_PRED, RF_B16, RF_B32 or RF_B64). */
unsigned rf_of_type(unsigned t);
/* Register-file slots one register of type t takes (more than one for .b128). */
unsigned slots_of_type(unsigned t);
/* Bind entry e to (kind, idx) in the current scope; a second binding of e in the same scope
 * is reported as a duplicate declaration at off. */
void bind_push(struct ptx_builder *b, int32_t e, uint8_t kind, uint32_t idx, uint32_t off);
/* Undo the bindings made since the binding count was mark (the end of a `{ }` scope). */
void binds_pop_to(struct ptx_builder *b, uint32_t mark);
/* Declare register e (count > 0: the parameterized range e<0..count-1>) of type and vec;
 * at module scope the declaration is only recorded for the printer. */
void reg_declare(struct ptx_builder *b, int32_t e, unsigned type, unsigned vec,
                 uint32_t count, uint32_t off);
/* Resolve register name s[0, n) (entry e, or -1): 0 with *rd and *slot filled, or -1 when
 * it is not a register in scope (a name of a declared range resolves its element). */
int reg_resolve(struct ptx_builder *b, const char *s, size_t n, int32_t e,
                const struct ir_regdecl **rd, uint32_t *slot);

/* ========================================================== build_num.c (numbers) */

/* A numeric literal, classified. */
struct num {
    int is_float;   /* 0 integer, 1 0f (f32 bits), 2 0d (f64 bits), 3 decimal float */
    uint64_t u;     /* integer value or bits */
    double f;       /* value for floats */
};

/* Decode literal token t (negated when neg) into *n: 0, or -1 (reported) when malformed. */
int num_decode(struct ptx_builder *b, struct ptx_tok t, int neg, struct num *n);
/* Bits of literal n as a value of type t; -1 (reported at off) when the literal does not fit
 * the type's kind. */
int num_convert(struct ptx_builder *b, const struct num *n, unsigned t, uint32_t off,
                uint64_t *out);

/* ====================================================== build_isa.c (ISA notes) */

enum isa_rule {
    ISR_OPCODE = 0, /* the opcode's own row */
#define RULE(id, maj, min, sm, arch) ISR_##id,
#include "frontend/isa_req.def"
#undef RULE
    ISR__COUNT
};
_Static_assert(ISR__COUNT <= 256, "rule ids are kept in 8 bits");

/* The ISA_SM* bit of target sm_<sm><suffix> (suffix 'a' or 'f'); ISA_AF_OTHER if unknown. */
unsigned isa_af_bit(unsigned sm, char suffix);

/* A feature other than an instruction's mnemonic (a special register, a function directive,
 * an operand form: what[0, len) names it) that needs rule's version / target: note it once
 * per rule per module when the module declares less. */
void isa_feature(struct ptx_builder *b, unsigned rule, const char *what, int len,
                 uint32_t off);
#define ISA_FEATURE(b, rule, lit, off) isa_feature(b, rule, lit, (int)sizeof(lit) - 1, off)

/* The instruction in (its modifiers applied) was decoded from spelling dc: compute dc's
 * requirements at its first use and note them when the module declares less. off: the
 * mnemonic. */
void isa_check_mnemonic(struct ptx_builder *b, struct decoded *dc, const struct ir_insn *in,
                        uint32_t off);
/* The rule a special register needs beyond PTX 1.0 / sm_10 (0: none). */
unsigned isa_sreg_rule(unsigned sr);
/* Rules that depend on the operands rather than the mnemonic (isa_req.def, "operand forms"),
 * at the end of instruction in: noted once per rule per module, at the mnemonic. */
void isa_operand_rules(struct ptx_builder *b, const struct ir_insn *in);

#endif
