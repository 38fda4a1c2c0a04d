/*
 * frontend/ir.h — the IR: the contract between the front end, the interpreter and the timing model.
 *
 * A module owns functions, variables (with initializers), and a string table. A function is a
 * dense array of struct ir_insn; a PC is an index into it. Everything a consumer needs at run
 * time is resolved when the module is built (frontend/build.c) and predecoded
 * (frontend/predecode.c): register operands are slots in typed register files, immediates are
 * decoded and given a constant slot, symbols are (space, offset) pairs, labels are PCs, special
 * registers are ids. Nothing downstream looks at a string or a hash table.
 *
 * All memory of a module lives in its arena (ir_module_free releases everything at once).
 */
#ifndef PTXEMU_IR_H
#define PTXEMU_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ===================================================================== opcodes and modifiers */

/* One opcode per row of ops.def (see its header for the row format). */
enum ir_op {
#define OP(id, mnem, fmt, unit, flags) OP_##id,
#include "frontend/ops.def"
#undef OP
    OP__COUNT
};

/* One modifier (".ftz", ".shared::cta", ".L2::cache_hint", …) per row of mods.def. */
enum ir_mod {
    MOD_NONE = 0,
#define MOD(id, text, kind, val) MOD_##id,
#include "frontend/mods.def"
#undef MOD
    MOD__COUNT
};

/* What a modifier decodes into; the builder fills the matching struct ir_insn field. */
enum ir_mod_kind {
    MK_TYPE,  /* val = enum ir_type                                 -> type[0], type[1] */
    MK_RND,   /* val = enum ir_rnd                                  -> rnd */
    MK_CMP,   /* val = enum ir_cmp                                  -> cmp */
    MK_SPACE, /* val = enum ir_space                                -> space */
    MK_VEC,   /* val = element count                                -> vec */
    MK_SCOPE, /* val = enum ir_scope                                -> scope */
    MK_SEM,   /* val = enum ir_sem                                  -> sem */
    MK_FLAG,  /* val = bit number of enum ir_flag                   -> fl */
    MK_CTX,   /* meaning depends on the opcode (e.g. .and, .lo, .add, .min, .up): the builder
                 decodes it per opcode into bop / atom / mode / fl */
    MK_OTHER, /* kept in the modifier list only (shapes, layouts, cache hints, …) */
};

/* ======================================================================== types and spaces */

/* Every PTX type, from the one table frontend/types.def (spelling, size, class). */
enum ir_type {
#define TYPE(id, name, bytes, cls, lanes) T_##id,
#include "frontend/types.def"
#undef TYPE
    T__COUNT
};
_Static_assert(T_NONE == 0, "T_NONE is the first row of types.def");

/* The class of a type (types.def header). */
enum ir_type_class { TC_NONE, TC_BITS, TC_UINT, TC_SINT, TC_FLOAT, TC_NARROW, TC_HANDLE };

/* Size in bytes of a PTX type (0 for T_NONE/T_PRED/sub-byte); defined in ir.c. */
unsigned ir_type_size(enum ir_type t);
/* PTX spelling without the dot ("u32"); defined in ir.c. */
const char *ir_type_name(enum ir_type t);
/* The class of type t (TC_NONE when out of range); defined in ir.c. */
enum ir_type_class ir_type_class(enum ir_type t);
/* Values packed in one value of type t (f16x2: 2; 0 for T_NONE); defined in ir.c. */
unsigned ir_type_lanes(enum ir_type t);
/* Is t a floating-point type: an arithmetic float (.f16 … .f64, packed or not) or a
 * storage-only narrow float (.e4m3, .e2m1x2, …)? */
static inline int ir_type_is_float(enum ir_type t)
{
    enum ir_type_class c = ir_type_class(t);
    return c == TC_FLOAT || c == TC_NARROW;
}
/* Is t a signed integer type (.s8 … .s64, .s4, .s16x2)? */
static inline int ir_type_is_signed(enum ir_type t)
{
    return ir_type_class(t) == TC_SINT;
}

enum ir_space {
    SP_NONE = 0, /* no space modifier given: generic for ld/st/atom */
    SP_REG, SP_SREG,
    SP_CONST, SP_GLOBAL, SP_LOCAL, SP_PARAM, SP_PARAM_ENTRY, SP_PARAM_FUNC,
    SP_SHARED, SP_SHARED_CTA, SP_SHARED_CLUSTER,
    SP_TEX, SP_SURF, SP_GENERIC,
    SP__COUNT
};

enum ir_rnd { RND_NONE = 0, RND_RN, RND_RZ, RND_RM, RND_RP, RND_RNA, RND_RS,
              RND_RNI, RND_RZI, RND_RMI, RND_RPI };

enum ir_cmp { CMP_NONE = 0, CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE,
              CMP_LO, CMP_LS, CMP_HI, CMP_HS,
              CMP_EQU, CMP_NEU, CMP_LTU, CMP_LEU, CMP_GTU, CMP_GEU, CMP_NUM, CMP_NAN };

enum ir_bop { BOP_NONE = 0, BOP_AND, BOP_OR, BOP_XOR };

/* Atomic / reduction / redux / vote / shfl / bar.red sub-operation (decoded from MK_CTX mods). */
enum ir_mode {
    MODE_NONE = 0,
    /* atom, red, redux, bar.red, multimem */
    MODE_ADD, MODE_MIN, MODE_MAX, MODE_INC, MODE_DEC, MODE_EXCH, MODE_CAS,
    MODE_AND, MODE_OR, MODE_XOR, MODE_POPC,
    /* vote */
    MODE_ALL, MODE_ANY, MODE_UNI, MODE_BALLOT,
    /* shfl */
    MODE_UP, MODE_DOWN, MODE_BFLY, MODE_IDX,
    /* prmt */
    MODE_F4E, MODE_B4E, MODE_RC8, MODE_ECL, MODE_ECR, MODE_RC16,
    /* mul / mad / mul24 / mad24 */
    MODE_LO, MODE_HI, MODE_WIDE,
    /* shf */
    MODE_L, MODE_R,
    /* cvta.to, bar: arrive / sync / red */
    MODE_TO, MODE_ARRIVE, MODE_SYNC, MODE_RED,
    MODE__COUNT
};

enum ir_scope { SCOPE_NONE = 0, SCOPE_CTA, SCOPE_CLUSTER, SCOPE_GPU, SCOPE_SYS };
enum ir_sem { SEM_NONE = 0, SEM_WEAK, SEM_VOLATILE, SEM_RELAXED, SEM_ACQUIRE, SEM_RELEASE,
              SEM_ACQ_REL, SEM_SC, SEM_MMIO };

/* Boolean modifier bits (struct ir_insn.fl); MK_FLAG rows of mods.def name the bit. */
enum ir_flag {
    FL_FTZ, FL_SAT, FL_RELU, FL_SATFINITE, FL_APPROX, FL_FULL, FL_CC, FL_UNI, FL_ALIGNED,
    FL_SYNC, FL_NAN, FL_XORSIGN, FL_ABS, FL_SHIFTAMT, FL_WRAP, FL_CLAMP, FL_NC, FL_RELAXED_,
    FL_CA, FL_CG, FL_CS, FL_LU, FL_CV, FL_WB, FL_WT, /* cache operators */
    FL_L2_HINT, FL_OOB, FL_UNIFIED, FL_NOFTZ, FL_ARRIVE,
    FL__COUNT
};
#define IR_FL(f) (UINT64_C(1) << (f))

/* ============================================================================== operands */

/* Register files. 8-bit registers live in B16 slots; .b128 registers are two consecutive
 * B64 slots (low half first). Predicates are per-warp 32-bit lane masks. */
enum ir_rf { RF_PRED, RF_B16, RF_B32, RF_B64, RF__COUNT };

enum ir_opnd_kind {
    OPK_NONE = 0,
    OPK_REG,     /* rf, slot (first slot for vector/128-bit registers), n = element count */
    OPK_IMM,     /* imm decoded to the operand's type; rf/slot = its constant slot */
    OPK_SREG,    /* sreg = enum ir_sreg; rf/slot = slot the interpreter fills per warp */
    OPK_SYM,     /* the address of variable sym (+ imm), as a value; rf/slot = constant slot
                    holding the address in the symbol's space (resolved at load) */
    OPK_ADDR,    /* memory operand [base + imm]: rf/slot = base register (slot = IR_NOSLOT if
                    absent), sym = variable (IR_NOSYM if absent), imm = byte offset */
    OPK_VEC,     /* {a, b, c, d}: n elements, first = index in ir_func.opnds of element 0 */
    OPK_SINK,    /* '_' */
    OPK_LABEL,   /* branch target: imm = target PC */
    OPK_TABLE,   /* brx.idx target list: first = index in ir_func.tables, n = count */
    OPK_FUNC,    /* call target or function address: imm = function index */
    OPK_PARAMS,  /* (a, b, c) argument or return list of call: first/n as OPK_VEC */
    OPK_PP_MEM,  /* PTXPlus g[…] / s[…] / l[…] / ce#c#[…]: as OPK_ADDR, and `first` holds
                    the space (enum ir_space: SP_GLOBAL, SP_SHARED, SP_LOCAL, or SP_CONST with
                    sym = the ce#c# bank variable); allowed at any operand position (OPF_DST
                    when written), OPF_POSTINC for the `[$ofs+=N]` form */
    OPK_TEX,     /* texture / surface / tensor-map coordinate address [h, {c…}] or
                    [tex, sampler, {c…}]: n elements from first in ir_func.opnds (as OPK_VEC);
                    the first imm.u (1 or 2) are the handles (OPK_SYM of a .texref /
                    .samplerref / .surfref / .param variable, or OPK_REG holding a handle or
                    tensor-map address), the rest the coordinates (OPK_REG / OPK_IMM) */
};

/* Operand flags. */
enum {
    OPF_NEG = 1 << 0,   /* !%p predicate source, or -x */
    OPF_DST = 1 << 1,   /* written by the instruction */
    OPF_LO = 1 << 2,    /* PTXPlus .lo half */
    OPF_HI = 1 << 3,    /* PTXPlus .hi half */
    OPF_ABS = 1 << 4,   /* PTXPlus |x| */
    OPF_CONST = 1 << 5, /* slot is a constant slot (immediate, symbol address) */
    OPF_CCDST = 1 << 6, /* PTXPlus flag-setting destination `$p|$r`: this predicate register
                           receives the condition flags of the result; such an operand is
                           always the instruction's last (after the format's operands) */
    OPF_POSTINC = 1 << 7, /* PTXPlus `g[$ofs+=N]`: the base register is incremented by N */
};

/* Video-instruction operand selectors (`%r1.b0`, `%r2.h1`, `%r1.h10`, `%r1.b3210`, dmask
 * `%r5.b20`): an OPK_REG operand with imm.u != 0 carries one, encoded as the letter ('b' or
 * 'h') in bits 0-7, the digit count (1-4) in bits 8-15, digit i in bits 16+3i..18+3i. A vector
 * component `%v.y` is instead an OPK_REG of that element's slot with n = 1. */
#define IR_SEL_MAKE(letter, ndigits) ((uint64_t)(letter) | (uint64_t)(ndigits) << 8)
#define IR_SEL_LETTER(u) ((char)((u) & 0xff))
#define IR_SEL_NDIGITS(u) ((unsigned)((u) >> 8 & 0xff))
#define IR_SEL_DIGIT(u, i) ((unsigned)((u) >> (16 + 3 * (i)) & 7))

/* PTXPlus 4-bit condition-code tests (`@$p0.ne`, ir_insn.guard_cc, ir_opnd.cc): the decuda /
 * GPGPU-Sim names. */
enum ir_cc {
    CC_NONE = 0,
    CC_FL, CC_LT, CC_EQ, CC_LE, CC_GT, CC_NE, CC_GE, CC_NUM, CC_NAN, CC_LTU, CC_EQU, CC_LEU,
    CC_GTU, CC_NEU, CC_GEU, CC_TR, CC_OF, CC_CF, CC_AB, CC_SF, CC_NSF, CC_BLE, CC_NCF, CC_NOF,
    CC__COUNT
};

#define IR_NOSLOT UINT32_MAX
#define IR_NOSYM UINT32_MAX
#define IR_NOPC UINT32_MAX

struct ir_opnd {
    uint8_t kind;  /* enum ir_opnd_kind */
    uint8_t rf;    /* enum ir_rf of slot */
    uint8_t flags; /* OPF_* */
    uint8_t n;     /* element count (vectors, OPK_VEC, OPK_TABLE, OPK_PARAMS) */
    uint8_t type;  /* enum ir_type the instruction reads/writes this operand as */
    uint8_t sreg;  /* enum ir_sreg for OPK_SREG */
    uint8_t cc;    /* PTXPlus condition code test for predicates (0 = none) */
    uint8_t pad_;
    uint32_t slot; /* register-file slot, or IR_NOSLOT */
    uint32_t sym;  /* variable index in ir_module.syms, or IR_NOSYM */
    uint32_t first;
    union {
        int64_t i;
        uint64_t u;
        double f64;
    } imm;         /* immediate bits (f32 immediates stored as their 32-bit pattern in u) */
};

/* Special registers. */
enum ir_sreg {
    SR_NONE = 0,
    SR_TID_X, SR_TID_Y, SR_TID_Z, SR_NTID_X, SR_NTID_Y, SR_NTID_Z,
    SR_CTAID_X, SR_CTAID_Y, SR_CTAID_Z, SR_NCTAID_X, SR_NCTAID_Y, SR_NCTAID_Z,
    SR_LANEID, SR_WARPID, SR_NWARPID, SR_SMID, SR_NSMID, SR_GRIDID,
    SR_LANEMASK_EQ, SR_LANEMASK_LE, SR_LANEMASK_LT, SR_LANEMASK_GE, SR_LANEMASK_GT,
    SR_CLOCK, SR_CLOCK_HI, SR_CLOCK64, SR_GLOBALTIMER, SR_GLOBALTIMER_LO, SR_GLOBALTIMER_HI,
    SR_ENVREG0, /* … SR_ENVREG0 + 31 */
    SR_DYNAMIC_SMEM_SIZE = SR_ENVREG0 + 32, SR_TOTAL_SMEM_SIZE, SR_AGGR_SMEM_SIZE,
    SR_RESERVED_SMEM_OFFSET_BEGIN, SR_RESERVED_SMEM_OFFSET_END, SR_RESERVED_SMEM_OFFSET_CAP,
    SR_RESERVED_SMEM_OFFSET_0, SR_RESERVED_SMEM_OFFSET_1,
    SR_CLUSTERID_X, SR_CLUSTERID_Y, SR_CLUSTERID_Z, SR_NCLUSTERID_X, SR_NCLUSTERID_Y,
    SR_NCLUSTERID_Z, SR_CLUSTER_CTAID_X, SR_CLUSTER_CTAID_Y, SR_CLUSTER_CTAID_Z,
    SR_CLUSTER_NCTAID_X, SR_CLUSTER_NCTAID_Y, SR_CLUSTER_NCTAID_Z, SR_CLUSTER_CTARANK,
    SR_CLUSTER_NCTARANK, SR_IS_EXPLICIT_CLUSTER,
    SR_PM0, /* … SR_PM0 + 7, %pm0..%pm7 */
    SR_PM0_64 = SR_PM0 + 8, /* … %pm0_64..%pm7_64 */
    SR_CURRENT_GRAPH_EXEC = SR_PM0_64 + 8,
    SR__COUNT
};

/* ========================================================================== instructions */

/* Timing unit classes (ops.def column; predecode refines U_ALU by type). */
enum ir_unit { U_ALU, U_SP, U_INT, U_SFU, U_DP, U_TENSOR, U_MEM, U_BAR, U_CTRL, U_NONE };

/* Instruction flags (ops.def column and predecode). */
enum {
    IF_BRANCH = 1 << 0, IF_BARRIER = 1 << 1, IF_ATOMIC = 1 << 2, IF_CALL = 1 << 3,
    IF_EXIT = 1 << 4,   /* exit, ret from an entry, trap */
    IF_LOAD = 1 << 5, IF_STORE = 1 << 6, IF_RET = 1 << 7,
    IF_PTXPLUS = 1 << 8, /* only valid in PTXPlus */
    IF_UNIFORM = 1 << 9, /* .uni: all active lanes take the same way */
    IF_WARPSYNC = 1 << 10, /* warp-collective (shfl, vote, bar.warp, …) */
    IF_FENCE = 1 << 11,
    IF_TERM = 1 << 12,   /* ends a basic block (branch, exit, ret, trap, brx) */
};

#define IR_NOGUARD UINT32_MAX

struct ir_insn {
    uint16_t op;      /* enum ir_op */
    uint16_t handler; /* interpreter handler id (chosen by interp/select.c at load) */
    uint8_t type[2];  /* first two type modifiers (cvt.f32.s32: type[0]=F32, type[1]=S32) */
    uint8_t space;    /* enum ir_space */
    uint8_t vec;      /* .v2/.v4/.v8 element count, 1 otherwise */
    uint8_t rnd;      /* enum ir_rnd */
    uint8_t cmp;      /* enum ir_cmp */
    uint8_t bop;      /* enum ir_bop (setp/set combine, vote, …) */
    uint8_t mode;     /* enum ir_mode */
    uint8_t scope;    /* enum ir_scope */
    uint8_t sem;      /* enum ir_sem */
    uint8_t nopnd;    /* operand count */
    uint8_t nmod;     /* modifier count */
    uint64_t fl;      /* IR_FL(FL_*) bits */

    uint32_t guard;   /* predicate slot, or IR_NOGUARD */
    uint8_t guard_neg;/* @!%p */
    uint8_t guard_cc; /* PTXPlus condition test */
    /* predecode: timing and checking facts */
    uint8_t unit;     /* enum ir_unit, refined by type */
    uint8_t width;    /* bytes per lane per element accessed (memory ops), 0 otherwise */
    uint16_t iflags;  /* IF_* */
    uint16_t lat;     /* latency/initiation class (timing model; 0 = default for unit) */

    uint32_t opnd;    /* index of operand 0 in ir_func.opnds */
    uint32_t mod;     /* index of modifier 0 in ir_func.mods (source order, for printing) */
    uint32_t target;  /* branch/call target PC or function index, IR_NOPC otherwise */
    uint32_t reconv;  /* branches: reconvergence PC (immediate post-dominator); IR_NOPC when
                         the ipdom is the virtual exit */

    uint32_t line;    /* PTX source line (1-based) */
    uint32_t col;     /* PTX source column (1-based) of the mnemonic */
    uint32_t loc_file;/* .loc file index (ir_module.files), 0 = none */
    uint32_t loc_line;/* .loc line, 0 = none */
    uint32_t loc_col; /* .loc column (0 = none given, as nvcc writes for -G) */
    uint32_t loc_ext; /* string id of what follows the column on the .loc line, e.g.
                         ", function_name $L__info_string0, inlined_at 1 12 3"; 0 = nothing */
    uint32_t regs;    /* predecode: first ir_regref of this instruction in ir_func.regrefs
                         (its registers end where the next instruction's begin; see
                         ir_insn_regs) */
};

/* Latency / initiation class of an instruction (ir_insn.lat, predecode.c). Together with the
 * unit class it indexes the timing model's latency tables, the way gpgpusim.config's
 * -ptx_opcode_latency_{int,fp,dp} "ADD,MAX,MUL,MAD,DIV[,SHFL]" lists, -ptx_opcode_latency_sfu
 * and -ptx_opcode_latency_tesnor do. LAT_DEFAULT: the unit's own pipeline decides (memory,
 * barriers, control flow). */
enum ir_lat {
    LAT_DEFAULT = 0,
    LAT_ADD,    /* add/sub/logic/shift/compare/select/move/convert/bit ops */
    LAT_MAX,    /* min/max */
    LAT_MUL,    /* mul, mul24 */
    LAT_MAD,    /* mad, fma, mad24, sad, dp4a/dp2a */
    LAT_DIV,    /* div, rem */
    LAT_SHFL,   /* shfl, vote, match, redux, activemask (warp-collective) */
    LAT_SFU,    /* rcp, sqrt, rsqrt, sin, cos, lg2, ex2, tanh */
    LAT_TENSOR, /* mma, wmma.mma, wgmma, tcgen05.mma */
    LAT__COUNT
};

/* A register an instruction reads or writes (predecode.c): the timing model's scoreboard
 * and the checkers use these lists instead of walking operands. Only declared registers
 * appear (never constant or special-register slots). Per instruction the destinations come
 * first, then the sources (address bases, call arguments, the guard predicate). */
struct ir_regref {
    uint32_t slot;    /* first slot */
    uint8_t rf;       /* enum ir_rf */
    uint8_t n;        /* consecutive slots (vector registers, .b128 pairs) */
    uint8_t dst;      /* 1: written, 0: read */
    uint8_t pad_;
};

/* ============================================================================= variables */

enum ir_linkage { LNK_NONE = 0, LNK_VISIBLE, LNK_EXTERN, LNK_WEAK, LNK_COMMON };

enum {
    VF_MANAGED = 1 << 0,  /* .attribute(.managed) */
    VF_DYNAMIC = 1 << 1,  /* extern .shared array of unknown size: dynamic shared memory */
    VF_PARAM_PTR = 1 << 2,/* .param .ptr */
    VF_RETURN = 1 << 3,   /* function return parameter */
    VF_BRANCHTARGETS = 1 << 4,
    VF_CALLPROTOTYPE = 1 << 5,
    VF_REG_PARAM = 1 << 6, /* a .func parameter or return value declared in .reg (`.func (.reg
                              .u32 r) f(.reg .u32 a)`): laid out in the parameter frame as a
                              .param one (the call moves it there), and the body's register
                              reg_rf/reg_slot, which the call fills from the frame and `ret`
                              copies back into it */
};

/* A relocation in an initializer: at byte `at` of the variable's image, store the address of
 * variable `sym` (or function `sym` when is_func) plus addend, `size` bytes wide, converted
 * to a generic address when `generic` (the generic(sym) form). */
struct ir_reloc {
    uint64_t at;
    int64_t addend;
    uint32_t sym;
    uint8_t size;
    uint8_t generic;
    uint8_t is_func;
    uint8_t mask_byte;  /* mask(sym, n) byte index + 1, 0 = none */
};

struct ir_sym {
    uint32_t name;    /* string id */
    uint8_t space;    /* enum ir_space */
    uint8_t type;     /* element type */
    uint8_t vec;      /* vector element count, 1 otherwise */
    uint8_t linkage;  /* enum ir_linkage */
    uint32_t flags;   /* VF_* */
    uint32_t align;   /* bytes */
    uint64_t size;    /* bytes (0 for unsized extern arrays) */
    uint64_t offset;  /* layout offset in its space: module segment (global/const),
                         CTA static shared, function local frame, param block */
    int32_t func;     /* owning function index, -1 for module scope */
    uint32_t dims[4]; /* array dimensions as declared (0 = [] unsized), ndims used */
    uint8_t ndims;
    uint32_t init;    /* byte offset of initializer image in ir_module.data */
    uint32_t ninit;   /* initializer image bytes (0 = none: zero-filled) */
    uint32_t reloc;   /* first ir_reloc in ir_module.relocs */
    uint32_t nreloc;
    uint32_t line;
    uint32_t tex_init;  /* .texref / .samplerref / .surfref initializer ({ filter_mode = linear,
                           … }): byte offset in ir_module.data of ntex_init uint32_t pairs
                           (enum ir_texfield, value); value is an enum ir_texval for
                           addr_mode_* and filter_mode, the integer otherwise */
    uint32_t ntex_init;
    uint8_t ptr_space;  /* `.param .u64 .ptr .global .align 16 p`: the pointee's state space
                           (enum ir_space; SP_NONE: generic / not given) with VF_PARAM_PTR */
    uint32_t ptr_align; /* its `.align N`: the pointee's alignment (0: not given); `align` above
                           stays the parameter's own, which lays out the parameter block */
    uint8_t reg_rf;     /* VF_REG_PARAM: the body's register (enum ir_rf, first slot) */
    uint32_t reg_slot;
};

/* Members of texture / sampler / surface initializers (ir_sym.tex_init). */
enum ir_texfield {
    TXF_ADDR_MODE_0, TXF_ADDR_MODE_1, TXF_ADDR_MODE_2, TXF_FILTER_MODE,
    TXF_FORCE_UNNORMALIZED_COORDS, TXF_NORMALIZED_COORDS, TXF_WIDTH, TXF_HEIGHT, TXF_DEPTH,
    TXF_CHANNEL_DATA_TYPE, TXF_CHANNEL_ORDER,
    TXF__COUNT
};
enum ir_texval {
    TXV_WRAP, TXV_MIRROR, TXV_CLAMP_OGL, TXV_CLAMP_TO_EDGE, TXV_CLAMP_TO_BORDER,
    TXV_NEAREST, TXV_LINEAR,
    TXV__COUNT
};

/* A named label list (`NAME: .branchtargets L1, L2;` / `.calltargets f, g;`) of a function:
 * entries [first, first + n) of ir_func.tables. */
struct ir_table_name {
    uint32_t name;    /* string id */
    uint32_t first;
    uint32_t n;
    uint8_t is_call;  /* .calltargets: the entries are function indices */
    uint8_t pad_[3];
};

/* ============================================================================= functions */

/* A declared register or register range (%r<100>) for printing and diagnostics. */
struct ir_regdecl {
    uint32_t name;    /* string id of the prefix ("%r") or full name */
    uint32_t count;   /* range size for %r<N>, 0 for a single register */
    uint8_t type;     /* enum ir_type as declared */
    uint8_t vec;      /* .v2/.v4 */
    uint8_t rf;
    uint8_t param;    /* 1: a .reg parameter or return value (VF_REG_PARAM), declared in the
                         function's header, not in its body */
    uint32_t slot;    /* slot of the first register */
};

struct ir_label {
    uint32_t name;    /* string id */
    uint32_t pc;
};

/* A slot the interpreter fills when a warp starts (special registers). */
struct ir_sreg_slot {
    uint8_t sreg;
    uint8_t rf;
    uint32_t slot;
};

/* A constant slot holding an address that only the interpreter can complete at load
 * (predecode.c): for OPK_SYM operands const_vals holds sym.offset + addend (the symbol's
 * offset inside its space: module .global/.const segment, CTA shared window, local frame or
 * param block), and the interpreter adds the base of that space; for OPK_FUNC used as a value
 * (mov.u64 %rd, func) const_vals holds the function index (is_func = 1). One record per
 * distinct slot: relocate each record once, never per operand. */
struct ir_addr_slot {
    uint32_t sym;     /* ir_module.syms index, or ir_module.funcs index when is_func */
    uint32_t slot;    /* constant slot in register file rf */
    int64_t addend;   /* the operand's imm */
    uint8_t rf;       /* enum ir_rf */
    uint8_t space;    /* enum ir_space of the symbol (SP_NONE for functions) */
    uint8_t is_func;
    uint8_t pad_;
};

struct cfg; /* frontend/cfg.c */

struct ir_func {
    uint32_t name;        /* string id */
    uint8_t is_entry;     /* .entry (kernel) vs .func */
    uint8_t linkage;      /* enum ir_linkage */
    uint8_t defined;      /* has a body */
    uint8_t noreturn;
    uint32_t line;

    uint32_t param;       /* first parameter variable in ir_module.syms (contiguous) */
    uint32_t nparam;
    uint32_t ret;         /* first return parameter variable (contiguous) */
    uint32_t nret;
    uint32_t param_size;  /* bytes of the parameter block (ABI layout) */
    uint32_t local_size;  /* bytes of .local frame (per thread) */
    uint32_t shared_size; /* static .shared bytes the function reaches (its own, its callees',
                             the module-scope ones they name), laid out alone in source order:
                             for an .entry ptxas -v's smem, what launches count */
    uint32_t shared_extent; /* end of the static .shared variables the function reaches in
                               the module's layout (predecode.c): where they lie, not how many
                               bytes they are (variables of other kernels may sit between
                               them, so it may exceed shared_size); the module's whole
                               ir_module.shared_size when it reaches every variable (an
                               access naming none); 0 for declarations */

    uint32_t maxntid[3], reqntid[3], minnctapersm, maxnreg, maxclusterrank;
    uint32_t reqnctapercluster[3];
    uint8_t explicitcluster;

    struct ir_insn *insns;
    uint32_t ninsns;
    struct ir_opnd *opnds;
    uint32_t nopnds;
    uint16_t *mods;       /* enum ir_mod, per instruction in source order */
    uint32_t nmods;
    uint32_t *tables;     /* brx.idx target PCs */
    uint32_t ntables;
    struct ir_label *labels;
    uint32_t nlabels;
    struct ir_regdecl *regdecls;
    uint32_t nregdecls;

    uint32_t nslots[RF__COUNT];    /* slots per register file, incl. constant and sreg slots */
    uint32_t ndeclared[RF__COUNT]; /* slots [0, ndeclared) are declared registers */
    /* Initial image of the constant slots [ndeclared, nslots): per rf, nslots - ndeclared
     * values (the interpreter broadcasts them to all lanes when a warp starts). */
    uint64_t *const_vals[RF__COUNT];
    struct ir_sreg_slot *sreg_slots;
    uint32_t nsreg_slots;

    struct cfg *cfg;      /* built by cfg_build; NULL before */

    struct ir_addr_slot *addr_slots; /* constant slots holding symbol/function addresses */
    uint32_t naddr_slots;
    void *pd_mem;         /* predecode.c's allocation behind const_vals, sreg_slots and
                             addr_slots (freed by ir_passes_free) */
    struct ir_regref *regrefs; /* registers read/written, per instruction (ir_insn.regs);
                                  part of pd_mem, or its own allocation when regrefs_own
                                  (either way freed by ir_passes_free) */
    uint32_t nregrefs;

    /* directives added for ISA 9.0 coverage */
    uint32_t abi_preserve, abi_preserve_control; /* .abi_preserve N, .abi_preserve_control N */
    uint32_t local_maxnreg;                      /* .local_maxnreg N */
    uint8_t blocksareclusters;                   /* .blocksareclusters */
    uint8_t has_unified;                         /* .attribute(.unified(uid0, uid1)) */
    uint64_t unified[2];
    struct ir_table_name *table_names;           /* label lists declared in the body */
    uint32_t ntable_names;
    uint32_t alias_of;    /* `.alias THIS, F;`: index of F + 1 (references to this function
                             by name were already resolved to F), 0 = not an alias */
    uint8_t regrefs_own;  /* predecode.c: regrefs is a separate allocation (big functions) */
};

/* ================================================================================ module */

/* A `.loc` directive no instruction carries: the next .loc came before any instruction (nvcc
 * writes one per inlining level, `.loc 1 7 5` then `.loc 1 2 73, …, inlined_at 1 7 5`; ptxas
 * requires an inlined_at location to appear in an earlier .loc, so the printer keeps them). */
struct ir_loc {
    int32_t func;     /* function index */
    uint32_t pc;      /* the instruction it precedes (ninsns: the end) */
    uint32_t nlabel;  /* labels of the function defined before it (as ir_pragma.nlabel) */
    uint32_t file, line, col;
    uint32_t ext;     /* as ir_insn.loc_ext */
};

/* Where a `.pragma` directive stood (ir_pragma.where). */
enum ir_pragma_where {
    PRAGMA_MODULE,    /* module scope: applies to what follows in the module */
    PRAGMA_HEAD,      /* a function definition's header, between the parameters and '{'
                         (ptxas rejects one in a declaration: so does the builder) */
    PRAGMA_BODY,      /* a statement in a function body: applies at pc (e.g. "nounroll" in a
                         loop header block, "used_bytes_mask" before a load) */
    PRAGMA_BODY_TOP,  /* first in a function body, before any declaration or instruction
                         (function scope, e.g. "enable_smem_spilling"): printed back first */
};

/* A `.pragma "…"[, "…"];` directive, kept for the printer and for later passes (the timing
 * model's unroll hints, ld used-bytes masks). Stored in source order. */
struct ir_pragma {
    uint32_t str;     /* string id of the string list as written: "\"nounroll\"" */
    int32_t func;     /* function index, -1 at module scope */
    uint32_t pc;      /* PRAGMA_BODY: the instruction it precedes (ninsns: the end) */
    uint32_t nlabel;  /* PRAGMA_BODY: labels of the function defined before it (ir_func.labels
                         index): labels at pc with index >= nlabel follow the pragma */
    uint32_t line;    /* PTX source line */
    uint8_t where;    /* enum ir_pragma_where */
    uint8_t pad_[3];
};

enum ir_dialect { DIALECT_PTX, DIALECT_PTXPLUS };

struct ir_arena; /* frontend/ir.c */

struct ir_module {
    char *filename;       /* owned copy */
    char *text;           /* owned NUL-terminated copy of the source (diagnostics, printing) */
    size_t text_len;
    uint64_t hash;        /* XXH3-64 of the text (module cache key) */

    uint8_t dialect;      /* enum ir_dialect */
    uint8_t version_major, version_minor;
    uint8_t address_size; /* 32 or 64 (.address_size; 32 when the directive is absent, as the
                             ISA says: see address_size_declared) */
    uint32_t target_sm;   /* 75 for sm_75 … 120; 0 if absent */
    char target[64];      /* the whole .target line after the keyword, as written */
    bool target_debug, texmode_independent, map_f64_to_f32;

    struct ir_func *funcs;
    uint32_t nfuncs;
    struct ir_sym *syms;
    uint32_t nsyms;
    struct ir_reloc *relocs;
    uint32_t nrelocs;
    uint8_t *data;        /* initializer images */
    uint32_t ndata;
    uint32_t *files;      /* .file index -> string id (0 = none) */
    uint32_t nfiles;

    char *strtab;         /* string table; a string id is a byte offset into it */
    uint32_t nstrtab;

    uint64_t global_size, const_size; /* module segments after layout */
    uint64_t shared_size; /* end of all static .shared variables (kernels that reach disjoint
                             variables share addresses: the most a CTA buffer needs) */

    uint32_t *sections;   /* `.section NAME { … }` blocks (DWARF debug info): string ids of
                             their whole text, printed verbatim at the end of the module */
    uint32_t nsections;
    struct ir_pragma *pragmas; /* every .pragma, in source order */
    uint32_t npragmas;
    struct ir_loc *locs;  /* .loc directives no instruction carries, in source order */
    uint32_t nlocs;

    struct ir_arena *arena;
    bool address_size_declared; /* the module has an .address_size directive (printed back
                                   only then; old PTX without one is 32-bit) */
};

/* String for string id (never NULL). */
static inline const char *ir_str(const struct ir_module *m, uint32_t id)
{
    return m->strtab + id;
}

/* Operand i of instruction in (of function f). */
static inline const struct ir_opnd *ir_opnd(const struct ir_func *f, const struct ir_insn *in,
                                            unsigned i)
{
    return &f->opnds[in->opnd + i];
}

/* Registers instruction in (of function f, after predecode) reads or writes: *n entries from
 * the returned pointer, destinations first (ir_regref.dst). */
static inline const struct ir_regref *ir_insn_regs(const struct ir_func *f,
                                                   const struct ir_insn *in, uint32_t *n)
{
    size_t pc = (size_t)(in - f->insns);
    uint32_t end = pc + 1 < f->ninsns ? f->insns[pc + 1].regs : f->nregrefs;
    *n = f->regrefs && end > in->regs ? end - in->regs : 0;
    return f->regrefs ? f->regrefs + in->regs : NULL;
}

/* Mnemonic of an opcode ("add"); defined in ir.c from ops.def. */
const char *ir_op_name(enum ir_op op);
/* Operand format string of an opcode (ops.def column 3). */
const char *ir_op_format(enum ir_op op);
/* Default unit and flags of an opcode (ops.def columns 4, 5). */
enum ir_unit ir_op_unit(enum ir_op op);
unsigned ir_op_flags(enum ir_op op);
/* Spelling of a modifier without the leading dot ("shared::cta"); kind and value. */
const char *ir_mod_name(enum ir_mod mod);
enum ir_mod_kind ir_mod_kind(enum ir_mod mod);
int ir_mod_value(enum ir_mod mod);
/* Opcode by mnemonic, or -1. Modifier by spelling (without dot), or MOD_NONE. */
int ir_op_lookup(const char *s, size_t len);
int ir_mod_lookup(const char *s, size_t len);
/* Special register name ("%tid.x") and lookup. */
const char *ir_sreg_name(enum ir_sreg s);
int ir_sreg_lookup(const char *s, size_t len);
/* PTXPlus condition-code test name ("ne", "cf") and lookup (CC_NONE when unknown). */
const char *ir_cc_name(enum ir_cc cc);
enum ir_cc ir_cc_lookup(const char *s, size_t len);
/* Texture initializer member / value names ("addr_mode_0", "clamp_to_edge") and lookups
 * (-1 when unknown). */
const char *ir_texfield_name(enum ir_texfield f);
const char *ir_texval_name(enum ir_texval v);
int ir_texfield_lookup(const char *s, size_t len);
int ir_texval_lookup(const char *s, size_t len);

/* A source position (.loc FILE LINE COL). */
struct ir_srcpos {
    uint32_t file, line, col;
};

/* The call sites instruction pc of function fi was inlined into, innermost first: the
 * `inlined_at F L C` of its .loc, then of the nearest earlier .loc at that site, and so on
 * (nvcc -lineinfo's inlining chains). Writes at most max; returns the count (0: not inlined).
 * Cold path (fault reports, debuggers): scans the function. */
unsigned ir_inlined_chain(const struct ir_module *m, uint32_t fi, uint32_t pc,
                          struct ir_srcpos *out, unsigned max);

/* Free a module and everything it owns. */
void ir_module_free(struct ir_module *m);

/* Function index by name, or -1. */
int ir_func_lookup(const struct ir_module *m, const char *name);
/* Module-scope variable index by name, or -1. */
int ir_sym_lookup(const struct ir_module *m, const char *name);

#endif
