/*
 * interp/tensor.h — warp-level matrix instructions (interp/tensor.c), asynchronous copies and
 * mbarrier objects (interp/async.c) and bulk copies (interp/bulk.c), executed one call per warp
 * instruction.
 *
 * Private to interp/: the handler rows of interp/ops/tensor.inc call these functions out of
 * line (the dispatch loops stay small), select.c asks which forms they implement. Every
 * function that executes an instruction returns 0, or -1 after recording a fault with
 * interp_fault (the handler then leaves the loop through its fault exit).
 */
#ifndef PTXEMU_INTERP_TENSOR_H
#define PTXEMU_INTERP_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frontend/ir.h"

struct warp;
struct cta;

/* Where the memory accesses of these instructions are reported, lane by lane: the tracing
 * and single-step loop (exec_slow.c: --trace mem, engine step reports) passes one; the fast
 * loops pass NULL. space is the access's enum ir_space, addr an offset in that space's window
 * (shared, local, param) or a device address (global). */
struct tc_mem {
    void (*fn)(void *ctx, unsigned lane, uint64_t addr, unsigned width, bool wr, int space,
               const void *val);
    void *ctx;
    /* optional (bulk and tensor copies' data, tc_mem_range): a run of n bytes at addr, made
       of accesses of `piece` bytes each; NULL: reported piece by piece through fn */
    void (*range)(void *ctx, unsigned lane, uint64_t addr, uint64_t n, bool wr, int space,
                  const void *val, unsigned piece);
};

/* Report lane l's access of `width` bytes at addr (space class xs of interp/ops/helpers.h,
 * generic addresses resolved to their window) to mr, if any; val: the bytes accessed. */
void tc_mem_report(const struct tc_mem *mr, unsigned l, uint64_t addr, unsigned xs,
                   unsigned width, bool wr, const void *val);
/* Report lane l's copy data of n bytes at addr (space class xs), accessed `piece` bytes at a
 * time (n a multiple of it), to mr, if any: to its range recorder when it has one (the step
 * report keeps a bulk copy's global bytes as runs, issue 25), else piece by piece. */
void tc_mem_range(const struct tc_mem *mr, unsigned l, uint64_t addr, unsigned xs, uint64_t n,
                  bool wr, const void *val, unsigned piece);

/* ------------------------------------------------------------------ tensor.c */

/* Does tensor.c implement this mma / wmma / ldmatrix / stmatrix / movmatrix instruction (its
 * shape, types, layouts and operand vectors)? Load time only (select.c). */
bool tensor_supported(const struct ir_func *f, const struct ir_insn *in, const struct ir_opnd *O);
/* Why such an instruction is refused (a form tensor.c does not implement), or NULL when the
 * instruction is not a matrix instruction. For the load error. */
const char *tensor_unsupported_why(const struct ir_func *f, const struct ir_insn *in);

/* mma.sync.aligned (dense, f16/bf16/tf32/f64/s8/u8 forms): D = A * B + C over the whole warp. */
int tensor_mma(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
               const struct ir_opnd *O);
/* ldmatrix / stmatrix .m8n8 .x1/.x2/.x4 {.trans} .b16, movmatrix.m8n8.trans.b16. */
int tensor_ldmatrix(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                    const struct ir_opnd *O, const struct tc_mem *mr);
int tensor_stmatrix(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                    const struct ir_opnd *O, const struct tc_mem *mr);
int tensor_movmatrix(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                     const struct ir_opnd *O);
/* wmma.load.{a,b,c} / wmma.store.d / wmma.mma. */
int tensor_wmma_load(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                     const struct ir_opnd *O, const struct tc_mem *mr);
int tensor_wmma_store(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                      const struct ir_opnd *O, const struct tc_mem *mr);
int tensor_wmma_mma(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                    const struct ir_opnd *O);

/* What tensor_sp.c shares of tensor.c: is operand o a fragment of n registers of file rf (a
 * vector, or one register for n == 1; sources may be constants, destinations are registers)?
 * Load time only. */
bool tensor_frag_ok(const struct ir_func *f, const struct ir_opnd *o, unsigned n, unsigned rf,
                    bool dst);
/* 0 when the whole warp executes the matrix instruction (M all ones); otherwise a fault
 * naming `what` and the lanes, and -1. */
int tensor_whole_warp(struct warp *w, uint32_t pc, uint32_t M, const char *what);
/* Value of an element of type t (bits): floating-point types exactly as double (tf32: its 19
 * high bits), integer types and .s32 as their integer. */
double tensor_elem_value(unsigned t, uint64_t bits);
/* The accumulator value s rounded once (to nearest even) to floating-point type t, as bits. */
uint64_t tensor_acc_bits(unsigned t, double s);

/* ------------------------------------------------------------------ tensor_sp.c */

/* Does tensor_sp.c implement this mma.sp / mma.sp::ordered_metadata form (shape, types,
 * operand vectors, a constant sparsity selector in range)? Load time only. */
bool tensor_sp_supported(const struct ir_func *f, const struct ir_insn *in,
                         const struct ir_opnd *O);
/* Are the modifiers of this sparse mma a form tensor_sp.c implements (operands unchecked)? */
bool tensor_sp_supported_form(const struct ir_func *f, const struct ir_insn *in);
/* Why a sparse mma is refused (an out-of-range selector, a form not implemented), or NULL
 * when the instruction is not one. */
const char *tensor_sp_unsupported_why(const struct ir_func *f, const struct ir_insn *in);
/* mma.sp{::ordered_metadata}.sync.aligned: D = A * B + C with the 2:4 (1:2, 4:8 pairs)
 * sparse A expanded by the metadata over the whole warp; undefined metadata is a fault. */
int tensor_mma_sp(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                  const struct ir_opnd *O);
/* ------------------------------------------------------------------ tensor_kind.c */

/* Does tensor_kind.c implement this mma (the sm_120a .kind::f8f6f4 form and the block-scaled
 * .kind::mxf8f6f4 / mxf4 / mxf4nvf4 forms, with operand vectors of the right registers)? Load
 * time only (the MMA_KIND row of ops/tensor.inc). */
bool tensor_kind_supported(const struct ir_func *f, const struct ir_insn *in,
                           const struct ir_opnd *O);
/* Does the instruction carry a .kind or .block_scale modifier (for the refusal message)? */
bool tensor_kind_is_kind(const struct ir_func *f, const struct ir_insn *in);
/* mma.sync.aligned .kind::f8f6f4 / mxf8f6f4 / mxf4 / mxf4nvf4: D = (SA A) * (SB B) + C. */
int tensor_kind_mma(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                    const struct ir_opnd *O);

/* What tensor_sp.c shares of tensor_kind.c for the sparse sm_120a .kind forms
 * (mma.sp::ordered_metadata m16n8k64 .kind::f8f6f4 / .kind::mxf8f6f4 and m16n8k128
 * .kind::mxf4 / .kind::mxf4nvf4 .block_scale). */
struct tensor_kind_sp {
    unsigned k;              /* dense K: 64 or 128 */
    unsigned nsf;            /* scale factors per row of A / column of B: 1, 2, 4 (0: none) */
    bool ue8;                /* ue8m0 scales (else ue4m3) */
    unsigned td, tc;         /* D, C types (.f32, or .f16 for .kind::f8f6f4) */
    unsigned ta, tb;         /* element types for tensor_kind_elem (T_E2M1X2: packed nibble) */
};
/* Is in one of those sparse forms (modifiers only)? Fills o. Load time only. */
bool tensor_kind_sp_form(const struct ir_func *f, const struct ir_insn *in,
                         struct tensor_kind_sp *o);
/* Are S[0..3] the operands sa, {bid-a, tid-a}, sb, {bid-b, tid-b} of a block-scaled mma? */
bool tensor_kind_scale_opnds_ok(const struct ir_func *f, const struct ir_opnd *S);
/* Value of an element of type t in its 8-bit container c (e2m1 in bits 2-5), or of a packed
 * e2m1 nibble (t == T_E2M1X2). */
double tensor_kind_elem(unsigned t, uint32_t c);
/* The block scales of an mma with operands S[0..3] as above: sa[m][j] of row m of A and
 * sb[n][j] of column n of B for K block j < nsf; a selector out of range or differing between
 * lanes is a fault (-1). */
int tensor_kind_scales(struct warp *w, uint32_t pc, const struct ir_opnd *S, unsigned nsf,
                       bool ue8, double sa[16][4], double sb[8][4]);

/* Does tensor_kind.c implement this ldmatrix (st: stmatrix): the 8-bit sm_100a / sm_120a forms
 * ldmatrix .m16n16 .trans .b8 / .b8x16.b6x16_p32 / .b8x16.b4x16_p64, ldmatrix .m8n16
 * .b8x16.{b6x16_p32,b4x16_p64}, stmatrix .m16n8 .trans .b8? Load time only. */
bool tensor_kind_ldst_supported(const struct ir_func *f, const struct ir_insn *in,
                                const struct ir_opnd *O, bool st);
/* Those ldmatrix / stmatrix forms (one 16-byte row per address lane). */
int tensor_kind_ldmatrix(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                         const struct ir_opnd *O, const struct tc_mem *mr);
int tensor_kind_stmatrix(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                         const struct ir_opnd *O, const struct tc_mem *mr);

/* ------------------------------------------------------------------ async.c */

/* Does async.c implement this cp.async / mbarrier instruction? Load time only. */
bool async_supported(const struct ir_func *f, const struct ir_insn *in, const struct ir_opnd *O);
/* Why such an instruction is refused, or NULL when it is not one of async.c's. */
const char *async_unsupported_why(const struct ir_func *f, const struct ir_insn *in);
/* asynccheck (check_async.c; the cp.async and bulk group handlers call it when the launch
 * checks asynccheck): cp.async.commit_group / wait_group keep (its operand) / wait_all, or
 * cp.async.bulk.commit_group / wait_group{.read} keep, `in` executed by lanes M of w closes
 * their open group, or delivers the copies (frees the bulk copies' sources) it waits for. */
void check_async_group(struct warp *w, uint32_t M, const struct ir_insn *in, uint32_t keep);
/* cp.async.{ca,cg}.shared.global (completed at once, with the src-size zero fill). */
int async_cp(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
             const struct ir_opnd *O, const struct tc_mem *mr);
/* mbarrier.{init,inval,arrive,arrive_drop,test_wait,try_wait,pending_count},
 * cp.async.mbarrier.arrive{.noinc}. */
int async_mbarrier(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                   const struct ir_opnd *O, const struct tc_mem *mr);
/* One arrival (count 1) of lane l on the mbarrier at (space class xs, address ad): what a
 * completed tcgen05.commit does. A fault (`what` names the instruction) when there is no
 * valid object there or the phase has no arrival pending. */
int async_arrive_one(struct warp *w, uint32_t pc, unsigned l, unsigned xs, uint64_t ad,
                     const char *what, const struct tc_mem *mr);
/* asynccheck (check_async.c): lane's bulk or tensor copy (or st.async) has just written the
 * bytes of [dst, dst + n) of the shared memory of CTA dc (this CTA or another of its cluster)
 * whose bit is set in mask (bit i of byte i / 8 for byte dst + i; NULL: all of them), and
 * completes on the mbarrier at mbar (dc's) in its phase of parity `phase`: the bytes are
 * recorded in dc and poisoned until a test_wait / try_wait sees that phase complete. The
 * caller checks the launch's asynccheck flag. */
void check_async_bulk_dst(struct warp *w, uint32_t pc, unsigned lane, struct cta *dc,
                          uint32_t dst, uint32_t n, const uint8_t *mask, const uint8_t *mbar,
                          unsigned phase);
/* asynccheck: the same for lane's st.async (red: red.async) of the n bytes at dst of CTA dc's
 * shared memory (a finding names it so); a red.async's bytes are not poisoned (a later
 * reduction of the same word must see the engine's result). */
void check_async_st_dst(struct warp *w, uint32_t pc, unsigned lane, struct cta *dc, uint32_t dst,
                        uint32_t n, const uint8_t *mbar, unsigned phase, bool red);
/* asynccheck: lane's bulk or tensor copy (or reduction) to global memory read the bytes of
 * [src, src + n) of this CTA's shared memory (mask as above): writing them before the thread's
 * cp.async.bulk.wait_group{.read} covers the copy's bulk group is a finding. */
void check_async_bulk_src(struct warp *w, uint32_t pc, unsigned lane, uint32_t src, uint32_t n,
                          const uint8_t *mask);
/* The state of the mbarrier object at p in words, for a deadlock report ("its current phase
 * (parity P) has N of E arrivals and T transaction bytes pending"). */
void async_mbar_describe(const uint8_t *p, char *buf, size_t n);
/* asynccheck: the mbarrier at shared / shared::cluster address ad of lane l, in this CTA or
 * another of its cluster: its host pointer, the parity of its current phase in *phase and
 * its CTA in *owner (unless NULL); NULL when there is no valid object there. No fault: async_complete_tx
 * reports those. */
const uint8_t *async_mbar_at(struct warp *w, unsigned l, uint64_t ad, unsigned *phase,
                             struct cta **owner);
/* Lower the tx-count of the mbarrier at shared / shared::cluster address ad by `bytes` for
 * lane l (the completion of a bulk copy on it; may complete its phase). A fault (`what` names
 * the instruction) when there is no valid object there or the count leaves its range. */
int async_complete_tx(struct warp *w, uint32_t pc, unsigned l, uint64_t ad, uint64_t bytes,
                      const char *what, const struct tc_mem *mr);

/* ------------------------------------------------------------------ stasync.c */

/* Does stasync.c implement this st.async / red.async form (the mbarrier-completed
 * shared::cluster store / reduction, or the .release global one)? Load time only. */
bool stasync_supported(const struct ir_func *f, const struct ir_insn *in, const struct ir_opnd *O);
/* Why such an instruction is refused, or NULL when it is neither st.async nor red.async. */
const char *stasync_unsupported_why(const struct ir_func *f, const struct ir_insn *in);
/* st.async / red.async for lanes M, in lane order, completed at once (the shared::cluster
 * forms then perform complete_tx of the bytes stored on their mbarrier); a fault (recorded)
 * returns -1. */
int stasync_exec(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                 const struct ir_opnd *O, const struct tc_mem *mr);

/* Does stasync.c implement this st.bulk (shared::cta or generic, initval 0)? Load time. */
bool stbulk_supported(const struct ir_insn *in, const struct ir_opnd *O);
/* st.bulk{.weak}{.shared::cta} [a], size, 0 for lanes M: zero `size` bytes of shared memory
 * (address and size multiples of 8, a fault otherwise). */
int stbulk_exec(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                const struct ir_opnd *O, const struct tc_mem *mr);

/* ------------------------------------------------------------------ clc.c */

/* Does clc.c implement this clusterlaunchcontrol.try_cancel / query_cancel form? Load time. */
bool clc_supported(const struct ir_func *f, const struct ir_insn *in, const struct ir_opnd *O);
/* clusterlaunchcontrol.try_cancel for lanes M, in lane order: each lane cancels a pending
 * cluster of the grid (or fails), writes the 16-byte response and completes 16 bytes on the
 * mbarrier (in every CTA of the cluster with .multicast::cluster::all); a fault returns -1. */
int clc_try_cancel(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                   const struct ir_opnd *O, const struct tc_mem *mr);
/* clusterlaunchcontrol.query_cancel: decode each lane's response (a fault for a value that is
 * no response, or for the ctaid of a failed one). */
int clc_query(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
              const struct ir_opnd *O);

/* ------------------------------------------------------------------ tmap_replace.c */

/* Does tmap_replace.c implement this tensormap.replace / tensormap.cp_fenceproxy form (a
 * field, its ordinal and value operands; the copy's size an immediate)? Load time only. */
bool tmapr_supported(const struct ir_func *f, const struct ir_insn *in, const struct ir_opnd *O);
/* tensormap.replace (one field of a tiled tensor map, checked against the ISA's validity
 * table) / tensormap.cp_fenceproxy (the 128-byte copy shared -> global) for lanes M, in lane
 * order; a fault (recorded) returns -1. */
int tmapr_exec(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
               const struct ir_opnd *O, const struct tc_mem *mr);

/* ------------------------------------------------------------------ bulk.c */

/* Does bulk.c implement this cp.async.bulk{.tensor} / cp.reduce.async.bulk{.tensor} /
 * cp.async.bulk.prefetch{.tensor} form? Load time only. */
bool bulk_supported(const struct ir_func *f, const struct ir_insn *in, const struct ir_opnd *O);
/* Why such an instruction is refused, or NULL when it is not one of bulk.c's. */
const char *bulk_unsupported_why(const struct ir_func *f, const struct ir_insn *in);
/* cp.async.bulk, cp.reduce.async.bulk, cp.async.bulk.prefetch.L2 and their .tensor forms:
 * each executing lane's copy, completed at once (signalling its mbarrier's complete_tx, in each
 * CTA of the ctaMask with .multicast::cluster). */
int bulk_copy(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
              const struct ir_opnd *O, const struct tc_mem *mr);

/* ------------------------------------------------------------------ wgmma.c */

/* Does wgmma.c implement this wgmma.mma_async / fence / commit_group / wait_group form?
 * Load time only. */
bool wgmma_supported(const struct ir_func *f, const struct ir_insn *in, const struct ir_opnd *O);
/* Why such an instruction is refused, or NULL when it is not a wgmma instruction. */
const char *wgmma_unsupported_why(const struct ir_func *f, const struct ir_insn *in);
/* wgmma.mma_async.sync.aligned by warp w: 1 when w now waits for the rest of its warpgroup
 * (parked, warp.bar_id CTA_BAR_WGMMA), 0 when w was the last to arrive and the warpgroup's
 * product is done (the other three warps run again), -1 after a fault. */
int wgmma_mma(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
              const struct ir_opnd *O, const struct tc_mem *mr);
/* wgmma.fence / commit_group / wait_group: the whole warp must execute them (the operations
 * completed when issued, so there is nothing to wait for). */
int wgmma_sync(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in);
/* Shared-memory address of a 16-byte chunk of a matrix in a canonical layout (the
 * descriptor's start, LBO, SBO, base offset and W = 1/2/4/8 chunks per swizzle row): K-major
 * row mn, chunk kk along K, or MN-major the chunk of rows mn .. mn + 7 at k = kk; swizzled.
 * Shared with tcgen05.c, whose descriptors encode the same layouts. */
uint32_t wgmma_chunk_addr(uint32_t start, uint32_t lbo, uint32_t sbo, uint32_t base, unsigned W,
                          bool mnmajor, unsigned mn, unsigned kk);
/* A CTA slot starts a CTA (no warp waits at a wgmma) / is freed (its scratch goes). */
void wgmma_cta_reset(struct cta *c);
void wgmma_cta_free(struct cta *c);
/* The deadlock report of warp w, parked at a wgmma.mma_async whose warpgroup never
 * completes. */
void wgmma_deadlock_msg(const struct warp *w, char *buf, size_t n);

/* ------------------------------------------------------------------ work (timing) */

/* The work of a tensor-core multiply-accumulate for a timing model (the step report's tc_*
 * fields, engine.h): the multiply-adds it does and their enum engine_tc_class. */
struct tensor_work {
    uint64_t macs;   /* M·N·K (half of it with structured-sparse A) */
    uint32_t bytes;  /* tcgen05.cp / shift: bytes moved into tensor memory */
    uint8_t cls;     /* enum engine_tc_class */
    uint8_t pair;    /* tcgen05 .cta_group::2 */
};
/* The class of A's element type ta with accumulator type td; f4kind: .kind::mxf4(nvf4). */
unsigned tensor_work_class(unsigned ta, unsigned td, bool f4kind);
/* mma / mma.sp / mma.sp::ordered_metadata / wmma.mma (static: the modifiers say it). false
 * for other instructions. Step reports only, not the fast loops. */
bool tensor_work_mma(const struct ir_func *f, const struct ir_insn *in, struct tensor_work *o);
/* wgmma.mma_async(.sp): this warp's quarter (16 of the 64 rows). */
bool wgmma_work(const struct ir_func *f, const struct ir_insn *in, struct tensor_work *o);
/* tcgen05.mma* of function f (from the instruction descriptors of the lanes M of warp w: each
 * lane issues one) and tcgen05.cp / tcgen05.shift. false for other instructions. */
bool tcgen05_work(const struct warp *w, const struct ir_func *f, uint32_t M,
                  const struct ir_insn *in, const struct ir_opnd *O, struct tensor_work *o);

/* ------------------------------------------------------------------ tcgen05.c */

/* Does tcgen05.c implement this tcgen05 instruction form? Load time only; false for every
 * other instruction. */
bool tcgen05_supported(const struct ir_func *f, const struct ir_insn *in, const struct ir_opnd *O);
/* Why a tcgen05 instruction is refused, or NULL when it is not one. */
const char *tcgen05_unsupported_why(const struct ir_func *f, const struct ir_insn *in);
/* Execute a tcgen05 instruction for the lanes M of warp w (the asynchronous ones complete
 * when issued). */
int tcgen05_exec(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                 const struct ir_opnd *O, const struct tc_mem *mr);
/* A CTA slot starts a CTA (no tensor memory allocated, contents cleared) / is freed. */
void tcgen05_cta_reset(struct cta *c);
void tcgen05_cta_free(struct cta *c);
/* Every warp of CTA c has exited: tensor memory still allocated is a fault (the ISA requires a
 * CTA to free its tensor memory before it exits), reported at the tcgen05.alloc that took the
 * first such columns. 0, or -1 after the fault. */
int tcgen05_cta_exit(struct cta *c);

#endif
