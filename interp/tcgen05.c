/*
 * interp/tcgen05.c — the 5th-generation tensor core (sm_100a): tensor memory and the tcgen05
 * instructions a Blackwell GEMM needs. One call per warp instruction (interp/ops/tensor.inc).
 *
 * Tensor memory (PTX ISA "Tensor Memory"): per CTA 128 lanes x 512 columns of 32-bit cells
 * (struct tc5_cta, allocated at a CTA slot's first tcgen05 instruction, cleared for each CTA
 * that used it). A tensor-memory address is lane << 16 | column. Columns are allocated in
 * units of 32:
 *   tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [dst], ncols — ncols a power of
 *     two in 32 .. 512; the lowest free run of ncols columns starting at a multiple of ncols
 *     (the emulator's choice: the ISA does not say where) is taken and its address (lane 0)
 *     stored at dst. An allocation the free columns cannot satisfy would block until another
 *     warp frees columns; the emulator reports it as a fault instead (its CTA owns the whole
 *     tensor memory, and a GEMM that allocates more than 512 columns deadlocks on a GPU too
 *     unless it frees them concurrently). After relinquish_alloc_permit, alloc is a fault.
 *   tcgen05.dealloc.cta_group::1.sync.aligned.b32 taddr, ncols — every column of taddr's
 *     column .. + ncols must be allocated (a fault otherwise).
 *   A CTA whose warps have all exited with columns still allocated faults (the ISA requires
 *   tensor memory to be freed before the CTA exits; cta_round calls tcgen05_cta_exit, and
 *   engine_cta_exit for the timing model's CTAs): the
 *   report names the tcgen05.alloc that took the first such columns (its warp, lane 0).
 * tcgen05.ld / tcgen05.st .sync.aligned.shape.xN{.pack::16b | .unpack::16b}.b32: warp w
 *   reaches lanes 32 (w % 4) .. 32 (w % 4) + 31 only (the ISA's data-path restriction), so
 *   the 32 (.32x32b) or 16 (the .16x* shapes) lanes from taddr's must lie in that quarter.
 *   The ISA's matrix fragments (tc5_frag): .32x32b lane l <-> lane taddr.lane + l, register j
 *   column j; .16x64b lane l/4 + 8 (l%2), column 2j + (l/2)%2; .16x128b register 2k + h lane
 *   l/4 + 8h, column 4k + l%4; .16x256b register 4k + 2h + e lane l/4 + 8h, column
 *   8k + 2 (l%4) + e; .16x32bx2 lane l%16, column j, the upper half-warp immHalfSplitoff
 *   columns further. .pack::16b makes register column c the low 16 bits of columns 2c (low
 *   half) and 2c + 1; .unpack::16b stores a register's halves into the low 16 bits of those
 *   two columns and clears their high bits (the emulator's choice: the ISA defines the low
 *   halves). Every cell touched must be inside an allocation (a fault naming the address
 *   otherwise). The loads and stores complete at once, so tcgen05.wait::ld / ::st have nothing
 *   to wait for (they check that the whole warp executes them).
 * tcgen05.ld.red.sync.aligned.{32x32b,16x32bx2}.xN.{min,max}{.abs}{.NaN}.{f32,u32,s32} r,
 *   redval, [taddr]{, immHalfSplitoff} (sm_103a): the load above (N >= 2), then each lane's
 *   min / max of the N values it loaded into redval (tc5_reduce: integers as .u32 / .s32;
 *   f32 as PTX min / max: a NaN ignored unless .NaN, all NaN or .NaN with one give the
 *   canonical NaN, -0 below +0; .abs reduces the magnitudes, the registers keep the loaded
 *   values).
 * tcgen05.mma.cta_group::1.kind::{f16,tf32,f8f6f4,i8} [d], a-desc | [a-tmem], b-desc, idesc,
 *   {disable-output-lane,} enable-input-d{, scale-input-d}: each executing lane issues one
 *   MMA, completed when issued. The instruction descriptor (ISA "Instruction descriptor"): bit
 *   2 sparsity (must be 0), 3 saturate (.kind::i8), 4-5 D type (1 = f32; 0 = f16 for
 *   .kind::f16 with f16 A and B and for .kind::f8f6f4; 2 = s32 for .kind::i8), 7-9 / 10-12 A /
 *   B type (kind::f16: 0 f16, 1 bf16; kind::tf32: 2; kind::f8f6f4: 0 e4m3, 1 e5m2, 3 e2m3, 4
 *   e3m2, 5 e2m1, A and B of any two; kind::i8: 0 u8, 1 s8), 13 / 14 negate A / B, 15 / 16 A
 *   / B MN-major (16- and 8-bit types: a 16-byte chunk holds 8 or 16 consecutive rows of
 *   one k, the ISA's swizzle atoms widened by 128 / element bits along M / N; tf32 needs the
 *   128B swizzle with 32B atomicity, a fault), 17-22 N >> 3, 24-28 M >> 4. M = 128 (Layout D: row
 *   i of D in lane i, d.lane 0) or 64 (Layout F, half the data path: rows 16 q .. 16 q + 15 in
 *   lanes 32 q + d.lane .. + 15, d.lane 0 or 16); N = 8 .. 256 step 8 (.kind::i8: 8, 16, 24,
 *   then 32 .. 256 step 16); K = 16 (f16/bf16), 8 (tf32) or 32 (8-bit). .kind::i8 sums are
 *   exact and wrap to 32 bits (saturate: clamp). A and B come from shared memory through the
 *   tcgen05 shared-memory descriptor (0-13 start >> 4, 16-29 LBO >> 4, 32-45 SBO >> 4, 46-48
 *   0b001, 49-51 base offset, 52 LBO mode (absolute: refused), 61-63 swizzle 0 none, 2 128B, 4
 *   64B, 6 32B; 1 = 128B with 32B atomicity is refused), in the canonical K-major / MN-major
 *   layouts of wgmma (wgmma_chunk_addr); A may instead come from tensor memory: row i in the
 *   lane of D's row i (the same lane alignment, a fault otherwise), its K elements packed low
 *   to high from column a.col (four 8-bit, two 16-bit elements or one tf32 per column; the 6-
 *   and 4-bit types of .kind::f8f6f4 one per 8-bit container, four per column, see tcgen05.cp's
 *   decompression below; the packed e2m1 of .kind::mxf4 / mxf4nvf4 eight per column, the low
 *   nibble first, as in shared memory: tc5_tmem_elem). The 6- and 4-bit types (no infinity
 *   or NaN) take the place of 8-bit ones in shared memory: each 16-byte chunk holds 16 values
 *   packed LSB first in its low 12 (6-bit) or 8 (4-bit) bytes, the rest padding (the ISA's
 *   "packed along with padding"; the TMA's CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B /
 *   16U4_ALIGN16B).
 *   Element j of a row of D is column d.col + j: an f32 / s32, or an f16 in the low 16 bits
 *   (the high 16 bits read as nothing and written 0, the emulator's choice; the ISA puts one
 *   16-bit element in the low half of a word). disable-output-lane is four 32-bit values, bit
 *   L % 32 of value L / 32 set: tensor-memory lane L of D keeps its value. scale-input-d s
 *   (.kind::f16 / tf32, 0 .. 15) reads C as C * 2^-s. Numerics as wgmma: exact products in
 *   double summed in k order onto C (or 0 when enable-input-d is false), rounded once to f32
 *   (f16: once to f16, round to nearest even); tf32 inputs keep their 19 high bits.
 * tcgen05.mma.cta_group::1.kind::{mxf8f6f4,mxf4,mxf4nvf4}.block_scale{.scale_vec::NX | .block16 |
 *   .block32} [d], a-desc | [a-tmem], b-desc, idesc, [scale-A-tmem], [scale-B-tmem],
 *   enable-input-d: as above with the block-scaled instruction descriptor (the ISA's table for
 *   these kinds; CUTLASS UMMA::InstrDescriptorBlockScaled agrees bit for bit): bits 0-2 as
 *   above, 4-5 the scale-factor ID of B, 7-9 / 10-12 A / B type (.kind::mxf8f6f4 the f8f6f4
 *   codes; the 4-bit kinds 1 = e2m1, packed two per byte, the low nibble first: 32 per
 *   16-byte chunk, K = 64), 13-16 negate / MN-major, 17-22 N >> 3, 23 scale type (1 ue8m0,
 *   0 ue4m3: only .kind::mxf4nvf4 .scale_vec::4X), 24-28 M >> 4 (128 only), 29-30 the
 *   scale-factor ID of A, 31 K = 96 for the 4-bit kinds (sm_103a: a fault). D is f32. Each
 *   row of A / B has n = 1, 2 or 4 scale factors per MMA (.scale_vec::1X / 2X / 4X; .block16
 *   = 4X, .block32 and none = 1X for mxf8f6f4, 2X for the 4-bit kinds), scale factor s covering
 *   elements s K / n .. (s + 1) K / n - 1; element values are multiplied by them (exact) before
 *   the products. Their layout in tensor memory (tc5_scale) is CUTLASS's: tmem_sf_frg (row r
 *   at lane r % 32 + 32 p for each sub-partition p, column r / 32, scale factor s at byte
 *   ID + s of the cell) and its SM100_UTCCP_4x32dp128bit, the tcgen05.cp .32x128b.warpx4 of a
 *   512-byte shared-memory atom (row 32 j + i, scale factor s at byte 16 i + 4 j + s), which
 *   fills exactly those cells; the ISA's prose fixes the IDs as the byte offset inside the
 *   32-bit cell (1X: 0 .. 3, 2X: 0 or 2, 4X: 0, checked). The four sub-partition copies must
 *   agree (a fault naming both lanes otherwise: the emulator does not guess which copy a
 *   sub-partition reads). ue8m0 is 2^(b - 127), 0xff NaN; ue4m3 the e4m3 of the low 7 bits.
 *   Sums are formed in double as above, which is exact while the scaled products of one MMA
 *   span fewer than 53 bits (the fixtures and real programs keep within it; the ISA gives no
 *   accumulation order).
 * tcgen05.mma.sp{.ws}.cta_group::1.kind::{f16,tf32,i8,f8f6f4} [d], a, b, [sp-meta-tmem], idesc,
 *   ... (the dense form's operands after idesc; also .kind::mxf8f6f4 .block_scale, below):
 *   A 2:4 sparse, M = 128, N 16 .. 256 step 16: K
 *   is twice the dense K (32 for 16-bit, 64 for 8-bit types), A's descriptor or tensor memory
 *   holds K / 2 elements a row (two of each group of four), placed at the positions of the
 *   group's 4-bit metadata code (bits 0-1 the first, 2-3 the second; the others zero; equal
 *   positions a fault). Instruction descriptor bit 2 must be set, bits 0-1 (sparsity selector)
 *   0, or 1 with .kind::f16. The codes in tensor memory (tc5_sparse; CUTLASS tmem_e_frg, the
 *   same as an independent emulator's reading of the ISA's figures): from the metadata
 *   address (D's lane, an even column, two columns allocated) 16-bit A row i's code g at lane
 *   32 (i / 32) + i % 8 + 16 ((i % 32) / 16) + 8 (g / 4), nibble 4 ((i % 16) / 8) + g % 4 of
 *   the column the selector picks; 8-bit A row i in lane i, code g in nibble g % 8 of column
 *   g / 8. .kind::tf32 is 1:2 sparse (K = 16, 8 stored a row): a 4-bit code per pair of
 *   elements, 0x4 keeping the first, 0xe the second (the ISA's tf32 mma.sp values, as
 *   wgmma.c; other codes fault), pair g's code placed as 16-bit A's group g (CUTLASS
 *   tmem_e_frg's TF32 atom is the 16-bit atom at 2 bits an element: ValTypeE
 *   sparse_elem<4, uint8_t>, upcast<2>), the selector as .kind::f16's. The block-scaled
 *   .kind::mxf8f6f4 .sp (e4m3 / e5m2 A: the 8-bit layout) has K = 64 with the scale-factor
 *   operands after [sp-meta-tmem] and each scale factor covering 64 elements of K, so the
 *   dense form's scale-factor layout unchanged (CUTLASS media/docs blackwell_functionality.md:
 *   "32 or 64 elements for sparse as sparse gemm compress 2x along k-dim"). The 6- and 4-bit
 *   A of .kind::f8f6f4 / mxf8f6f4 are 2:4 sparse like the 8-bit ones (the ISA's table of sparse
 *   granularities), K = 64 with 32 stored a row (packed with padding in shared memory, one per
 *   container in tensor memory), the 8-bit metadata layout. .kind::mxf4 / mxf4nvf4 .sp (packed
 *   e2m1) is 4:8 in pairs (ISA "Sparse tcgen05.mma.sp with .kind::mxf4 and .kind::mxf4nvf4"):
 *   K = 128, 64 stored a row (the dense form's A); of each eight elements the two pairs the
 *   group's code names are kept (bits 0-1 the first stored pair's index 0 .. 3, bits 2-3 the
 *   second's; equal indices a fault), the code of group g placed as 8-bit A's group g (the
 *   ISA's one metadata figure for these kinds and the 8-bit ones; CUTLASS tmem_e_frg's F4
 *   atom, sparse_elem<16, uint8_t>: a nibble per eight elements); each scale factor covers
 *   K / n = 64 (2X) or 32 (4X) elements of the full K. Not implemented (a fault): M = 64.
 * tcgen05.mma.ws.cta_group::1.kind::{f16,tf32,f8f6f4,i8} (weight-stationary) [d], a, b,
 *   idesc, enable-input-d{, zero-column-mask-desc}: as above with M = 128, 64 or 32 and N =
 *   64, 128 or 256 (the ISA's shapes); the zero-column mask (tc5_zero_mask) makes column j of
 *   the MMA column j + shift of B, or zeros where its bit is set. M = 64 / 32 use the "2x2" /
 *   "1x4" data paths (CUTLASS cute/atom/mma_traits_sm100_frag.hpp tmem_frg_ws): row i, column
 *   j of D in lane i + M (j / nc), column d.col + j % nc, nc = N M / 128, d.lane 0; their
 *   sparse metadata (.ws.sp) is M = 128's layout for the M rows, repeated every M lanes
 *   (tmem_e_frg_ws; the copies must agree, a fault otherwise); their zero-column masks are
 *   128 / M sub-masks, one per N M / 128 columns (the ISA's table, sc_i / fs_i each); an A in
 *   tensor memory (M < 128) is rows 0 .. M - 1 in lanes 0 .. M - 1 and each lane group of the
 *   data path holds a copy (lanes M g + i; CUTLASS-derived kernels write it "duplicated").
 *   Not implemented (faults): copies that differ, A in tensor memory with .ws.sp and M < 128.
 * The collector usage qualifiers (.collector::a::* on mma, ::b0 .. ::b3 on .ws) are hints:
 *   the operand is read again from its descriptor each time, which is what the collector
 *   buffer holds unless the program rewrote that memory between ::fill and ::use (then the
 *   hardware may use the old values where the emulator uses the new).
 * tcgen05.commit.cta_group::1.mbarrier::arrive::one{.shared::cluster}{.multicast::cluster}.b64
 *   [mbar]{, ctaMask}: the MMAs before it have completed, so each executing lane arrives once
 *   on the mbarrier at once; with .multicast::cluster once on the mbarrier at mbar's offset
 *   in each CTA of the cluster whose %cluster_ctarank bit is set in the 16-bit ctaMask
 *   (tc5_commit).
 * tcgen05.cp.cta_group::1.shape{.multicast} [taddr], s-desc: each executing lane copies at
 *   once a matrix of R rows x B bits (.128x256b, .128x128b, .4x256b, .32x128b.warpx4,
 *   .64x128b.warpx2::02_13 / ::01_23) from shared memory, read as rows of 16-byte chunks in
 *   the descriptor's canonical K-major layout (wgmma_chunk_addr), into tensor memory: row r,
 *   word j at lane taddr.lane + r, column taddr.col + j. .warpx4 writes row r to lanes r,
 *   32 + r, 64 + r, 96 + r; .warpx2::02_13 rows 0 .. 31 to the lanes of warps 0 and 2, rows
 *   32 .. 63 to those of warps 1 and 3; ::01_23 rows 0 .. 31 to warps 0 and 1, 32 .. 63 to
 *   warps 2 and 3. The decompressing .b8x16.b6x16_p32 / .b8x16.b4x16_p64 (ISA "Optional
 *   Decompression": 16 elements of 6 / 4 bits followed by 4 / 8 bytes of padding become 16
 *   8-bit elements) expand each 16-byte chunk's 16 values, packed LSB first, into one byte each
 *   (four per column, the first in the low byte): a 6-bit value in bits 0-5, a 4-bit one in
 *   bits 2-5, the other bits 0. The ISA gives the bits only in figures; these are the 8-bit
 *   container of mma.sync .kind::f8f6f4 as CUTLASS documents it (cute/atom/mma_traits_sm120.hpp,
 *   fp4_shift_A: "MMA F8F6F4 expects the four-bit data to be in the middle of the eight-bit
 *   container", 0b0000ABCD -> 0b00ABCD00; FP6 unshifted: an e2m1 there reads as the e2m3 of
 *   the same value), assumed to be the container tcgen05.mma reads from tensor memory too.
 *   Programs that decompress and multiply get the same products whatever the bits; only
 *   tcgen05.ld / st of the containers could tell (uncertain until checked on hardware).
 * tcgen05.shift.cta_group::1.down [taddr]: each executing lane moves, at once, the 256-bit rows
 *   (8 columns from taddr.col) of lanes taddr.lane .. + 30 one lane down (taddr.lane a
 *   multiple of 32; its own row stays).
 * tcgen05.commit arrives after them as after an MMA: they completed when issued.
 * tcgen05.fence::before_thread_sync / ::after_thread_sync order nothing further.
 * CTA pairs (.cta_group::2; ISA "peer CTA": the two CTAs of a cluster whose %cluster_ctarank
 *   differ in bit 0, tc5_pair; no peer in the cluster is a fault). The ISA: "All tcgen05
 *   instructions within a kernel must specify the same value for the .cta_group qualifier"
 *   (ptxas refuses a mix).
 *   tcgen05.alloc.cta_group::2: one warp of each CTA of the pair allocates together (ISA); the
 *     emulator lets the first of the two take the lowest run free in both tensor memories,
 *     marks it in both and queues it for the peer (tc5_cta.pend), whose own alloc takes it
 *     (another ncols is a fault). dealloc and relinquish_alloc_permit act on the executing CTA
 *     (each CTA of the pair runs them), so a CTA that exits with the pair's columns allocated
 *     faults as above.
 *   tcgen05.mma.cta_group::2.kind::{f16,tf32,f8f6f4,i8} (dense, not .ws): one MMA of the pair,
 *     M = 128 or 256, N = 16 .. 256 step 16, a disable-output-lane vector of eight words
 *     (words 0 .. 3 the even CTA's lanes, 4 .. 7 the odd CTA's: the emulator's reading),
 *     split as CUTLASS's 2x1SM atoms (cute/atom/mma_traits_sm100.hpp, e.g.
 *     SM100_MMA_F16BF16_2x1SM_SS: ThrID 2, ALayout / CLayout rows v M/2 .. in CTA v, BLayout
 *     columns v N/2 .. in CTA v): the descriptors' offsets name in each CTA's own shared memory
 *     its M / 2 rows of A and N / 2 columns of B; D is at the same tensor-memory address in
 *     both, each CTA holding its M / 2 rows of all N columns, laid out as CUTLASS
 *     tmem_frg_2sm (the ISA's data-path Layouts A and B): M = 256 row i in lane i, column j at
 *     d.col + j; M = 128 ("2x2") row i, column j < N / 2 in lane i at d.col + j, column
 *     j >= N / 2 in lane 64 + i at d.col + j - N / 2. An A in tensor memory is read from the
 *     lane of each D row (M = 128: row i in lanes i and 64 + i, CUTLASS's
 *     TmemAllocMode::Duplicated). Numerics as above (tc5_dot).
 *   The block-scaled kinds (.kind::mxf8f6f4 / mxf4 / mxf4nvf4 .block_scale, as ::1) read each
 *     CTA's scale factors from its own tensor memory, laid out as CUTLASS tmem_sf_frg for
 *     N_SM = 2 (tc5_scale_pair): A's M / 2 rows of the CTA and, for M = 256, B's N columns
 *     as ScaleFactorDuplicated4by1 (the ::1 layout: row i in lane i % 32 of column i / 32 in
 *     each of the four 32-lane sub-partitions); B's for M = 128 as ScaleFactorDuplicated2by2
 *     (the 2x2 data path of Layout B: column h N/2 + n in lane n % 32 + 64 h of column n / 32,
 *     in two sub-partitions 32 lanes apart); replicas that differ are a fault.
 *   The sparse form (tcgen05.mma.sp.cta_group::2, M = 256 only; .kind::f16, tf32, i8, 8-bit
 *   f8f6f4 and block-scaled mxf8f6f4 as ::1): each CTA's 128 rows of A
 *     stored K / 2 a row and expanded by the metadata in its own tensor memory at the
 *     [sp-meta-tmem] address, laid out as .cta_group::1's M = 128 (tc5_sparse; CUTLASS's
 *     2x1SM sparse atoms, e.g. SM100_MMA_F16BF16_2x1SM_SS_SPARSE, take tmem_e_frg for each
 *     CTA's half, and tmem_e_frg exists for 128 rows only: it static_asserts M_MMA == 128, so
 *     CUTLASS has no M = 128 pair layout either). M = 128 (the ISA's Layout C, half the data
 *     path, with its metadata drawn only in the ISA's figures) is a fault, "not implemented".
 *   tcgen05.cp / tcgen05.shift .cta_group::2: into / in the tensor memory "of both the current
 *     and the peer CTAs" (ISA tcgen05.cp), each CTA's copy from its own shared memory at the
 *     descriptor's offsets (as the pair MMA's operands; the ISA does not say).
 *   tcgen05.commit.cta_group::2: as ::1 (everything completed at once), .multicast::cluster
 *     arriving on the mbarriers of the mask's CTAs.
 *   The peer's shared-memory reads are not reported to the memory checker (mr is the executing
 *   CTA's).
 * Everything else (the .ws .cta_group::2 MMAs, .ashift) is refused at load with the reason.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/internal.h"
#include "interp/ops/helpers.h"
#include "interp/engine.h"
#include "interp/tensor.h"

enum { TM_LANES = 128, TM_COLS = 512, TM_UNIT = 32 };

/* A CTA's tensor memory. */
struct tc5_cta {
    uint32_t cell[TM_LANES][TM_COLS];
    uint16_t alloc;    /* bit u: columns 32u .. 32u + 31 are allocated */
    bool relinquished; /* tcgen05.relinquish_alloc_permit executed */
    bool dirty;        /* cells written since the CTA began */
    unsigned npend;    /* .cta_group::2 allocations the peer CTA made for this CTA that this
                          CTA's tcgen05.alloc.cta_group::2 has not taken yet (oldest first) */
    struct {
        uint32_t addr, ncols;
    } pend[TM_COLS / TM_UNIT];
    struct {           /* per allocated unit: the tcgen05.alloc that took it */
        struct xfunc *fn;
        uint32_t pc, warp;
    } site[TM_COLS / TM_UNIT];
    double A[128 * 128], B[256 * 128]; /* the MMA's operands, row-major: K <= 128 (the sparse
                                           4-bit kinds), or K <= 32 and B with the zero-column
                                           mask's shift (at most 256 + 32 rows) */
};

/* ====================================================================== decoding */

/* What the modifiers of a tcgen05 instruction say. */
/* The data-movement shapes of tcgen05.ld / st. */
enum tc5_shape { SH_NONE, SH_32X32B, SH_16X64B, SH_16X128B, SH_16X256B, SH_16X32BX2 };

struct tc5_insn {
    unsigned num;        /* .xN of ld / st: N (0 when absent) */
    enum tc5_shape shape;
    bool pack, unpack;   /* .pack::16b (ld) / .unpack::16b (st) */
    unsigned cp_rows, cp_cols; /* tcgen05.cp shape: rows x 32-bit columns (0 when absent) */
    unsigned mcast;      /* tcgen05.cp: 0 none, 4 .warpx4, 2 .warpx2::02_13, 1 .warpx2::01_23 */
    bool b8x16;          /* tcgen05.cp .b8x16 (the destination format of decompression) */
    unsigned decomp;     /* tcgen05.cp .b6x16_p32 / .b4x16_p64: 6 / 4 (0 when absent; -1u
                            both) */
    bool down;           /* tcgen05.shift .down */
    bool ws;             /* tcgen05.mma.ws (set from the opcode) */
    bool cta1, cta2;     /* .cta_group::1 / ::2 */
    bool kind_f16, kind_tf32, kind_f8f6f4, kind_i8;
    bool kind_mx8, kind_mx4, kind_nv4; /* .kind::mxf8f6f4 / mxf4 / mxf4nvf4 */
    bool bscale;         /* .block_scale */
    unsigned svec;       /* scale factors per row of A / B and MMA: 1 (.scale_vec::1X), 2, 4
                            (.block16 is 4X; .block32 or none 1X for .kind::mxf8f6f4, else 2X) */
    bool arrive_one;
    bool mcast_cluster;  /* tcgen05.commit .multicast::cluster */
    int redop;           /* tcgen05.ld.red: 1 .min, 2 .max (0 when absent, -1 both) */
    bool absnan;         /* .abs or .NaN (tcgen05.ld.red only) */
    bool other;          /* a modifier not implemented */
};

static void tc5_decode(const struct ir_func *f, const struct ir_insn *in, struct tc5_insn *d)
{
    memset(d, 0, sizeof *d);
    for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++) {
        const enum ir_mod md = (enum ir_mod)f->mods[in->mod + i];
        switch (md) {
        case MOD_SYNC: case MOD_ALIGNED: case MOD_SHARED_CTA: case MOD_SHARED_CLUSTER: break;
        case MOD_CTA_GROUP_1: d->cta1 = true; break;
        case MOD_CTA_GROUP_2: d->cta2 = true; break;
        case MOD_SHAPE_32X32B: d->shape = SH_32X32B; break;
        case MOD_SHAPE_16X64B: d->shape = SH_16X64B; break;
        case MOD_SHAPE_16X128B: d->shape = SH_16X128B; break;
        case MOD_SHAPE_16X256B: d->shape = SH_16X256B; break;
        case MOD_SHAPE_16X32BX2: d->shape = SH_16X32BX2; break;
        case MOD_SHAPE_128X256B: d->cp_rows = 128, d->cp_cols = 8; break;
        case MOD_SHAPE_128X128B: d->cp_rows = 128, d->cp_cols = 4; break;
        case MOD_SHAPE_4X256B: d->cp_rows = 4, d->cp_cols = 8; break;
        case MOD_SHAPE_32X128B: d->cp_rows = 32, d->cp_cols = 4; break;
        case MOD_SHAPE_64X128B: d->cp_rows = 64, d->cp_cols = 4; break;
        case MOD_WARPX4: d->mcast = 4; break;
        case MOD_WARPX2_02_13: d->mcast = 2; break;
        case MOD_WARPX2_01_23: d->mcast = 1; break;
        case MOD_B8X16: d->b8x16 = true; break;
        case MOD_B6X16_P32: d->decomp = d->decomp ? -1u : 6; break;
        case MOD_B4X16_P64: d->decomp = d->decomp ? -1u : 4; break;
        case MOD_DOWN: d->down = true; break;
        /* collector usage: a hint (the operands are read again; see the file comment) */
        case MOD_COLLECTOR_A_FILL: case MOD_COLLECTOR_A_USE: case MOD_COLLECTOR_A_LASTUSE:
        case MOD_COLLECTOR_A_DISCARD: case MOD_COLLECTOR_B0_FILL: case MOD_COLLECTOR_B0_USE:
        case MOD_COLLECTOR_B0_LASTUSE: case MOD_COLLECTOR_B0_DISCARD: case MOD_COLLECTOR_B1_FILL:
        case MOD_COLLECTOR_B1_USE: case MOD_COLLECTOR_B1_LASTUSE: case MOD_COLLECTOR_B1_DISCARD:
        case MOD_COLLECTOR_B2_FILL: case MOD_COLLECTOR_B2_USE: case MOD_COLLECTOR_B2_LASTUSE:
        case MOD_COLLECTOR_B2_DISCARD: case MOD_COLLECTOR_B3_FILL: case MOD_COLLECTOR_B3_USE:
        case MOD_COLLECTOR_B3_LASTUSE: case MOD_COLLECTOR_B3_DISCARD: break;
        case MOD_PACK_16B: d->pack = true; break;
        case MOD_UNPACK_16B: d->unpack = true; break;
        case MOD_X1: d->num = 1; break;
        case MOD_X2: d->num = 2; break;
        case MOD_X4: d->num = 4; break;
        case MOD_X8: d->num = 8; break;
        case MOD_X16: d->num = 16; break;
        case MOD_X32: d->num = 32; break;
        case MOD_X64: d->num = 64; break;
        case MOD_X128: d->num = 128; break;
        case MOD_KIND_F16: d->kind_f16 = true; break;
        case MOD_KIND_TF32: d->kind_tf32 = true; break;
        case MOD_KIND_F8F6F4: d->kind_f8f6f4 = true; break;
        case MOD_KIND_I8: d->kind_i8 = true; break;
        case MOD_KIND_MXF8F6F4: d->kind_mx8 = true; break;
        case MOD_KIND_MXF4: d->kind_mx4 = true; break;
        case MOD_KIND_MXF4NVF4: d->kind_nv4 = true; break;
        case MOD_BLOCK_SCALE: d->bscale = true; break;
        case MOD_SCALE_VEC_1X: d->svec = 1; break;
        case MOD_SCALE_VEC_2X: d->svec = 2; break;
        case MOD_SCALE_VEC_4X: case MOD_BLOCK16: d->svec = 4; break;
        case MOD_BLOCK32: break; /* the default: set below */
        case MOD_MBARRIER_ARRIVE_ONE: d->arrive_one = true; break;
        case MOD_MULTICAST_CLUSTER: d->mcast_cluster = true; break;
        case MOD_MIN: d->redop = d->redop ? -1 : 1; break;
        case MOD_MAX: d->redop = d->redop ? -1 : 2; break;
        case MOD_ABS: case MOD_NAN_FLAG: d->absnan = true; break; /* ld.red .f32 (in->fl) */
        default:
            if (ir_mod_kind(md) != MK_TYPE)
                d->other = true;
            break;
        }
    }
    /* the default (and .block32): one scale factor per 32 elements of K (K = 32 for
       .kind::mxf8f6f4, 64 for the 4-bit kinds) */
    if (d->bscale && !d->svec)
        d->svec = d->kind_mx8 ? 1 : 2;
}

/* A 32-bit register or constant. */
static bool tc5_u32_ok(const struct ir_opnd *o)
{
    return (o->kind == OPK_REG && o->rf == RF_B32) ||
           (o->kind == OPK_IMM && o->rf != RF_PRED && o->slot != IR_NOSLOT);
}

/* The register vector of N .b32 registers (a single register for N = 1). */
static bool tc5_regs_ok(const struct ir_func *f, const struct ir_opnd *o, unsigned n, bool dst)
{
    if (o->kind == OPK_REG)
        return n == 1 && o->rf == RF_B32 && o->slot != IR_NOSLOT;
    if (o->kind != OPK_VEC || o->n != n || o->first + n > f->nopnds)
        return false;
    for (unsigned k = 0; k < n; k++) {
        const struct ir_opnd *e = &f->opnds[o->first + k];
        if (!(e->kind == OPK_REG || (!dst && e->kind == OPK_IMM)) || e->rf != RF_B32 ||
            e->slot == IR_NOSLOT)
            return false;
    }
    return true;
}

/* A memory operand holding a tensor-memory address ([taddr], no variable). */
static bool tc5_taddr_ok(const struct ir_opnd *o)
{
    return o->kind == OPK_ADDR && o->sym == IR_NOSYM && o->slot != IR_NOSLOT && o->rf == RF_B32;
}

/* Registers of a tcgen05.ld / st per .num (the ISA's table of the shapes). */
static unsigned tc5_shape_regs(enum tc5_shape sh)
{
    return sh == SH_16X128B ? 2 : sh == SH_16X256B ? 4 : 1;
}

/* The operand positions of a tcgen05.mma: [d], a, b{, [sp-meta] (.sp)}, idesc, then
 * {disable-output-lane,} enable-input-d{, scale-input-d}; block-scaled (bs) [scale-A-tmem],
 * [scale-B-tmem], enable-input-d; .ws enable-input-d{, zero-column-mask-desc}. */
struct tc5_mops {
    unsigned io;  /* idesc */
    unsigned po;  /* [sp-meta-tmem] (0 when absent) */
    unsigned mo;  /* the disable-output-lane vector (0 when absent) */
    unsigned eo;  /* enable-input-d */
    unsigned zo;  /* the zero-column mask descriptor (0 when absent) */
    unsigned so;  /* [scale-A-tmem] (bs; [scale-B-tmem] follows; 0 when absent) */
    int sc;       /* the scale-input-d immediate (-1 when absent) */
};

/* Fills *p from the operand list of in; false for an operand list not of these forms. */
static bool tc5_mma_opnds(const struct ir_insn *in, const struct ir_opnd *O, bool bs,
                          struct tc5_mops *p)
{
    const bool sp = in->op == OP_TCGEN05_MMA_SP || in->op == OP_TCGEN05_MMA_WS_SP;
    const bool ws = in->op == OP_TCGEN05_MMA_WS || in->op == OP_TCGEN05_MMA_WS_SP;
    memset(p, 0, sizeof *p);
    p->sc = -1;
    p->io = 3 + sp;
    p->po = sp ? 3 : 0;
    if (sp && (in->nopnd <= 4 || !tc5_taddr_ok(&O[3])))
        return false;
    unsigned e = p->io + 1;
    if (ws) {
        p->eo = e;
        if (in->nopnd == e + 2)
            p->zo = e + 1;
        return !bs && (in->nopnd == e + 1 || in->nopnd == e + 2);
    }
    if (bs) {
        p->so = e;
        p->eo = e + 2;
        return in->nopnd == e + 3 && tc5_taddr_ok(&O[e]) && tc5_taddr_ok(&O[e + 1]);
    }
    if (in->nopnd >= e + 2 && O[e].kind == OPK_VEC)
        p->mo = e++;
    p->eo = e;
    if (in->nopnd == e + 2) {
        if (O[e + 1].kind != OPK_IMM || O[e + 1].imm.u > 15)
            return false;
        p->sc = (int)O[e + 1].imm.u;
    } else if (in->nopnd != e + 1)
        return false;
    return true;
}

/* See tensor.h. */
bool tcgen05_supported(const struct ir_func *f, const struct ir_insn *in, const struct ir_opnd *O)
{
    struct tc5_insn d;
    switch (in->op) {
    case OP_TCGEN05_ALLOC:
    case OP_TCGEN05_DEALLOC:
    case OP_TCGEN05_RELINQUISH_ALLOC_PERMIT:
    case OP_TCGEN05_LD:
    case OP_TCGEN05_ST:
    case OP_TCGEN05_WAIT_LD:
    case OP_TCGEN05_WAIT_ST:
    case OP_TCGEN05_MMA:
    case OP_TCGEN05_COMMIT:
    case OP_TCGEN05_FENCE_BEFORE:
    case OP_TCGEN05_FENCE_AFTER:
    case OP_TCGEN05_CP:
    case OP_TCGEN05_SHIFT:
    case OP_TCGEN05_MMA_WS:
    case OP_TCGEN05_MMA_SP:
    case OP_TCGEN05_MMA_WS_SP:
    case OP_TCGEN05_LD_RED: break;
    default: return false;
    }
    tc5_decode(f, in, &d);
    if (d.other || (d.absnan && in->op != OP_TCGEN05_LD_RED))
        return false;
    switch (in->op) {
    case OP_TCGEN05_ALLOC:
        return d.cta1 != d.cta2 && in->nopnd == 2 && O[0].kind == OPK_ADDR && tc5_u32_ok(&O[1]);
    case OP_TCGEN05_DEALLOC:
        return d.cta1 != d.cta2 && in->nopnd == 2 && tc5_u32_ok(&O[0]) && tc5_u32_ok(&O[1]);
    case OP_TCGEN05_RELINQUISH_ALLOC_PERMIT: return d.cta1 != d.cta2 && in->nopnd == 0;
    case OP_TCGEN05_LD:
    case OP_TCGEN05_ST: {
        const bool ld = in->op == OP_TCGEN05_LD, x2 = d.shape == SH_16X32BX2;
        const unsigned n = d.num * tc5_shape_regs(d.shape);
        const struct ir_opnd *ao = ld ? &O[1] : &O[0];
        const struct ir_opnd *ro = ld ? &O[0] : &O[1 + x2];
        return d.shape != SH_NONE && d.num && n <= 128 && (ld ? !d.unpack : !d.pack) &&
               in->nopnd == 2u + x2 && tc5_taddr_ok(ao) && tc5_regs_ok(f, ro, n, ld) &&
               (!x2 || (O[ld ? 2 : 1].kind == OPK_IMM && O[ld ? 2 : 1].imm.u < TM_COLS));
    }
    case OP_TCGEN05_LD_RED: { /* r, redval, [taddr]{, immHalfSplitoff} */
        const bool x2 = d.shape == SH_16X32BX2;
        const unsigned t = in->type[0];
        return (d.shape == SH_32X32B || x2) && d.num >= 2 && !d.pack && !d.unpack &&
               d.redop > 0 && (t == T_F32 || t == T_U32 || t == T_S32) &&
               (t == T_F32 || !(in->fl & (IR_FL(FL_ABS) | IR_FL(FL_NAN)))) &&
               in->nopnd == 3u + x2 && tc5_regs_ok(f, &O[0], d.num, true) &&
               tc5_regs_ok(f, &O[1], 1, true) && tc5_taddr_ok(&O[2]) &&
               (!x2 || (O[3].kind == OPK_IMM && O[3].imm.u < TM_COLS));
    }
    case OP_TCGEN05_WAIT_LD:
    case OP_TCGEN05_WAIT_ST:
    case OP_TCGEN05_FENCE_BEFORE:
    case OP_TCGEN05_FENCE_AFTER: return in->nopnd == 0;
    case OP_TCGEN05_MMA:
    case OP_TCGEN05_MMA_SP:
    case OP_TCGEN05_MMA_WS:
    case OP_TCGEN05_MMA_WS_SP: { /* .ws: a zero-column mask instead of disable-output-lane */
        struct tc5_mops p;
        if (!tc5_mma_opnds(in, O, d.bscale, &p))
            return false;
        const unsigned nkind = d.kind_f16 + d.kind_tf32 + d.kind_f8f6f4 + d.kind_i8,
                       nmx = d.kind_mx8 + d.kind_mx4 + d.kind_nv4;
        /* .cta_group::2: the dense, non-.ws forms (a disable-output-lane vector of eight) */
        if (d.cta2 && (d.cta1 || in->op == OP_TCGEN05_MMA_WS || in->op == OP_TCGEN05_MMA_WS_SP))
            return false;
        return (d.cta1 || d.cta2) && nkind + nmx == 1 && d.bscale == (nmx == 1) &&
               (!d.bscale || (d.kind_mx8 ? d.svec == 1
                              : d.kind_mx4 ? d.svec == 2 : d.svec == 2 || d.svec == 4)) &&
               (!p.mo || tc5_regs_ok(f, &O[p.mo], d.cta2 ? 8 : 4, false)) &&
               (!p.zo || ((O[p.zo].kind == OPK_REG || O[p.zo].kind == OPK_IMM) &&
                          O[p.zo].rf == RF_B64 && O[p.zo].slot != IR_NOSLOT)) &&
               (p.sc < 0 || (in->op != OP_TCGEN05_MMA_WS && in->op != OP_TCGEN05_MMA_WS_SP &&
                             (d.kind_f16 || d.kind_tf32) && p.sc <= 15)) &&
               tc5_taddr_ok(&O[0]) &&
               (tc5_taddr_ok(&O[1]) ||
                ((O[1].kind == OPK_REG || O[1].kind == OPK_IMM) && O[1].rf == RF_B64)) &&
               (O[2].kind == OPK_REG || O[2].kind == OPK_IMM) && O[2].rf == RF_B64 &&
               tc5_u32_ok(&O[p.io]) &&
               ((O[p.eo].kind == OPK_REG && O[p.eo].rf == RF_PRED) || O[p.eo].kind == OPK_IMM);
    }
    case OP_TCGEN05_COMMIT: /* [mbar]{, ctaMask} (.multicast::cluster) */
        return d.cta1 != d.cta2 && d.arrive_one && in->nopnd == 1u + d.mcast_cluster &&
               O[0].kind == OPK_ADDR &&
               (!d.mcast_cluster || ((O[1].kind == OPK_REG || O[1].kind == OPK_IMM) &&
                                     O[1].rf != RF_PRED && O[1].slot != IR_NOSLOT));
    case OP_TCGEN05_CP: /* multicast: .warpx4 with 32x128b, .warpx2 with 64x128b */
        return d.cta1 != d.cta2 && d.cp_rows && d.b8x16 == (d.decomp != 0) &&
               (d.decomp == 0 || d.decomp == 6 || d.decomp == 4) &&
               (d.cp_rows == 32 ? d.mcast == 4 : d.cp_rows == 64 ? d.mcast == 1 || d.mcast == 2
                                                                : d.mcast == 0) &&
               in->nopnd == 2 && tc5_taddr_ok(&O[0]) &&
               (O[1].kind == OPK_REG || O[1].kind == OPK_IMM) && O[1].rf == RF_B64;
    case OP_TCGEN05_SHIFT:
        return d.cta1 != d.cta2 && d.down && in->nopnd == 1 && tc5_taddr_ok(&O[0]);
    default: return false;
    }
}

/* Does instruction in carry modifier md? */
static bool tc5_has(const struct ir_func *f, const struct ir_insn *in, enum ir_mod md)
{
    for (unsigned i = 0; i < in->nmod && in->mod + i < f->nmods; i++)
        if ((enum ir_mod)f->mods[in->mod + i] == md)
            return true;
    return false;
}

/* Is in a tcgen05 instruction (one tcgen05_unsupported_why has a reason for)? */
static bool tcgen05_why_generic(const struct ir_insn *in)
{
    switch (in->op) {
    case OP_TCGEN05_ALLOC: case OP_TCGEN05_DEALLOC: case OP_TCGEN05_RELINQUISH_ALLOC_PERMIT:
    case OP_TCGEN05_LD: case OP_TCGEN05_LD_RED: case OP_TCGEN05_ST: case OP_TCGEN05_WAIT_LD:
    case OP_TCGEN05_WAIT_ST: case OP_TCGEN05_CP: case OP_TCGEN05_SHIFT: case OP_TCGEN05_MMA:
    case OP_TCGEN05_MMA_SP: case OP_TCGEN05_MMA_WS: case OP_TCGEN05_MMA_WS_SP:
    case OP_TCGEN05_COMMIT: case OP_TCGEN05_FENCE_BEFORE: case OP_TCGEN05_FENCE_AFTER:
        return true;
    default: return false;
    }
}

/* See tensor.h. */
const char *tcgen05_unsupported_why(const struct ir_func *f, const struct ir_insn *in)
{
    if (tcgen05_why_generic(in) && tc5_has(f, in, MOD_CTA_GROUP_2)) {
        if (in->op == OP_TCGEN05_MMA_WS || in->op == OP_TCGEN05_MMA_WS_SP)
            return "unsupported (tcgen05.mma.ws .cta_group::2: the weight-stationary MMA is a "
                   ".cta_group::1 form; implemented over a CTA pair are the dense, block-scaled "
                   "and sparse MMAs)";
        if (in->op == OP_TCGEN05_MMA)
            return "unsupported (tcgen05.mma .cta_group::2: implemented are .kind::f16, "
                   ".kind::tf32, .kind::f8f6f4 and .kind::i8 with [d-tmem], an A descriptor or "
                   "[a-tmem], a B descriptor, the instruction descriptor, an optional "
                   "disable-output-lane vector of eight 32-bit values, enable-input-d and "
                   "(.kind::f16 / .kind::tf32) an optional scale-input-d immediate 0 .. 15, and "
                   "the block-scaled kinds as with .cta_group::1; not this operand list)";
    }
    if (in->op == OP_TCGEN05_MMA && tc5_has(f, in, MOD_ASHIFT))
        return "unsupported (tcgen05.mma .ashift: the ISA does not say what the shifted-in row "
               "of A holds, so it is not implemented)";
    switch (in->op) {
    case OP_TCGEN05_ALLOC:
    case OP_TCGEN05_DEALLOC:
    case OP_TCGEN05_RELINQUISH_ALLOC_PERMIT:
        return "unsupported (tcgen05 allocation: implemented are the .cta_group::1 forms; "
               "not .cta_group::2 or this operand list)";
    case OP_TCGEN05_LD:
    case OP_TCGEN05_ST:
        return "unsupported (tcgen05.ld / tcgen05.st: implemented are the .32x32b, .16x64b, "
               ".16x128b, .16x256b and .16x32bx2 shapes (.x1 .. .x128, at most 128 registers) "
               "with .pack::16b on ld, .unpack::16b on st, and for .16x32bx2 an "
               "immHalfSplitoff below 512; not this form)";
    case OP_TCGEN05_LD_RED:
        return "unsupported (tcgen05.ld.red: implemented are .32x32b and .16x32bx2 (with an "
               "immHalfSplitoff below 512), .x2 .. .x128, .min or .max of .f32 (.abs, .NaN), "
               ".u32 or .s32 into a 32-bit register; not this form)";
    case OP_TCGEN05_CP:
        return "unsupported (tcgen05.cp: implemented are .cta_group::1 and ::2 .128x256b, "
               ".128x128b, .4x256b, .32x128b.warpx4 and .64x128b.warpx2::02_13 / ::01_23, "
               "optionally decompressing (.b8x16.b6x16_p32, .b8x16.b4x16_p64), with [taddr] and "
               "a shared-memory descriptor; not this form)";
    case OP_TCGEN05_SHIFT:
        return "unsupported (tcgen05.shift: implemented is .cta_group::1.down [taddr]; not "
               ".cta_group::2)";
    case OP_TCGEN05_MMA:
        return "unsupported (tcgen05.mma: implemented are .cta_group::1 .kind::f16, "
               ".kind::tf32, .kind::f8f6f4 and .kind::i8 with [d-tmem], an A descriptor or "
               "[a-tmem], a B descriptor, the instruction descriptor, an optional "
               "disable-output-lane vector of four 32-bit values, enable-input-d and (.kind::f16 "
               "/ .kind::tf32) an optional scale-input-d immediate 0 .. 15, and .block_scale "
               "with .kind::mxf8f6f4 (.scale_vec::1X), .kind::mxf4 (2X) or .kind::mxf4nvf4 (2X, "
               "4X) with [scale-A-tmem], [scale-B-tmem] and enable-input-d; not this form)";
    case OP_TCGEN05_MMA_WS:
        return "unsupported (tcgen05.mma.ws: implemented are .cta_group::1 .kind::f16, "
               ".kind::tf32, .kind::f8f6f4 and .kind::i8 with [d-tmem], an A descriptor or "
               "[a-tmem], a B descriptor, the instruction descriptor, enable-input-d and an "
               "optional 64-bit zero-column mask descriptor; not this operand list)";
    case OP_TCGEN05_MMA_SP:
    case OP_TCGEN05_MMA_WS_SP:
        return "unsupported (tcgen05.mma.sp / .ws.sp: implemented are .kind::f16, .kind::tf32, "
               ".kind::i8 and .kind::f8f6f4 with [d-tmem], an A descriptor or [a-tmem], a B "
               "descriptor, [sp-meta-tmem], the instruction descriptor and the operands of the "
               "dense form (.cta_group::2: .sp with M = 256), and the block-scaled kinds with "
               "their scale-factor operands; not this form)";
    case OP_TCGEN05_COMMIT:
        return "unsupported (tcgen05.commit: implemented is .cta_group::1 "
               ".mbarrier::arrive::one on one mbarrier or, with .multicast::cluster and a "
               "16-bit ctaMask, on the mbarrier at the same offset in each CTA of the mask; not "
               ".cta_group::2)";
    case OP_TCGEN05_WAIT_LD:
    case OP_TCGEN05_WAIT_ST:
    case OP_TCGEN05_FENCE_BEFORE:
    case OP_TCGEN05_FENCE_AFTER: return "unsupported (tcgen05: malformed operands)";
    default: return NULL;
    }
}

/* ====================================================================== per-CTA state */

/* See tensor.h. */
void tcgen05_cta_reset(struct cta *c)
{
    struct tc5_cta *t = c->tm;
    if (!t)
        return;
    if (t->dirty)
        memset(t->cell, 0, sizeof t->cell);
    t->alloc = 0;
    t->relinquished = false;
    t->dirty = false;
    t->npend = 0;
}

/* See tensor.h. */
int tcgen05_cta_exit(struct cta *c)
{
    const struct tc5_cta *t = c->tm;
    if (!t || !t->alloc)
        return 0;
    /* the first run of columns still allocated, and the tcgen05.alloc that took it */
    const unsigned u0 = (unsigned)__builtin_ctz(t->alloc);
    unsigned u1 = u0;
    while (u1 + 1 < TM_COLS / TM_UNIT && t->alloc >> (u1 + 1) & 1 &&
           t->site[u1 + 1].pc == t->site[u0].pc && t->site[u1 + 1].warp == t->site[u0].warp)
        u1++;
    struct warp *w = &c->warps[t->site[u0].warp];
    w->fn = t->site[u0].fn; /* the warp has exited: name the function of the allocation */
    char msg[240];
    snprintf(msg, sizeof msg,
             "tcgen05.alloc: tensor-memory columns %u .. %u allocated here were not freed with "
             "tcgen05.dealloc before the CTA exited (columns allocated at exit %04x, a bit per 32 "
             "of 512; the ISA requires every allocation to be freed)",
             u0 * TM_UNIT, (u1 + 1) * TM_UNIT - 1, t->alloc);
    interp_fault(w, t->site[u0].pc, 0, TRAP_ILLEGAL, 0, 0, 0, false, msg);
    return -1;
}

/* See tensor.h. */
void tcgen05_cta_free(struct cta *c)
{
    free(c->tm);
    c->tm = NULL;
}

/* ====================================================================== execution */

static const char *tc5_name(const struct ir_insn *in)
{
    return ir_op_name((enum ir_op)in->op);
}

/* A .sync.aligned instruction must be executed by the whole warp. */
static int tc5_whole_warp(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in)
{
    if (M == 0xffffffffu)
        return 0;
    char msg[160];
    snprintf(msg, sizeof msg,
             "%s: a .sync.aligned instruction executed by lanes %08x, not by the whole warp",
             tc5_name(in), M);
    interp_fault(w, pc, (unsigned)__builtin_ctz(~M), TRAP_ILLEGAL, 0, 0, 0, false, msg);
    return -1;
}

/* Is every column of cols .. cols + n - 1 allocated? */
static bool tc5_allocated(const struct tc5_cta *t, uint32_t col, uint32_t n)
{
    if (col + n > TM_COLS || n == 0)
        return false;
    for (uint32_t u = col / TM_UNIT; u <= (col + n - 1) / TM_UNIT; u++)
        if (!(t->alloc >> u & 1))
            return false;
    return true;
}

/* A fault on tensor memory (the message names the tensor-memory address; tensor memory is
 * no address space of the report's, so the kind is an illegal instruction). */
static void tc5_fault(struct warp *w, uint32_t pc, unsigned l, const char *msg)
{
    interp_fault(w, pc, l, TRAP_ILLEGAL, 0, 0, 0, false, msg);
}

/* The tensor memory of CTA c, allocated at its first use; NULL (after a fault of warp w at
 * pc) when the host is out of memory. */
static struct tc5_cta *tc5_tm(struct warp *w, uint32_t pc, struct cta *c)
{
    if (!c->tm && !(c->tm = calloc(1, sizeof *c->tm)))
        interp_fault(w, pc, 0, TRAP_ILLEGAL, 0, 0, 0, false, "tcgen05: out of host memory");
    return c->tm;
}

/* The CTA pair of a .cta_group::2 instruction of warp w (PTX ISA "CTA pair": the two CTAs of
 * a cluster whose %cluster_ctarank differ in bit 0 only): pair[0] the even rank, pair[1] the
 * odd one; -1 after a fault naming the instruction when the peer is not in the cluster. */
static int tc5_pair(struct warp *w, uint32_t pc, const char *what, struct cta *pair[2])
{
    struct cta *c = w->cta;
    const struct cluster *cl = c->clu;
    const uint32_t pr = c->rank ^ 1u;
    struct cta *p = cl && pr < cl->n ? cl->cta[pr] : NULL;
    if (!p) {
        char msg[240];
        snprintf(msg, sizeof msg,
                 "%s .cta_group::2: the peer CTA (%%cluster_ctarank %u) of this CTA (rank %u) is "
                 "not in the cluster of %u CTAs (a CTA pair needs a cluster of an even number of "
                 "CTAs)",
                 what, pr, c->rank, cl ? cl->n : 1u);
        interp_fault(w, pc, 0, TRAP_ILLEGAL, 0, 0, 0, false, msg);
        return -1;
    }
    pair[c->rank & 1] = c;
    pair[pr & 1] = p;
    return 0;
}

static int tc5_alloc(struct warp *w, uint32_t pc, const struct ir_opnd *O, struct tc5_cta *t,
                     const struct tc_mem *mr, bool cta2)
{
    char msg[240];
    const uint32_t n = (uint32_t)vm_get(w, &O[1], 0);
    if (n < 32 || n > TM_COLS || (n & (n - 1))) {
        snprintf(msg, sizeof msg,
                 "tcgen05.alloc: %u columns (must be a power of 2 from 32 to 512)", n);
        interp_fault(w, pc, 0, TRAP_ILLEGAL, 0, 0, 0, false, msg);
        return -1;
    }
    if (t->relinquished) {
        interp_fault(w, pc, 0, TRAP_ILLEGAL, 0, 0, 0, false,
                     "tcgen05.alloc: the CTA executed tcgen05.relinquish_alloc_permit before");
        return -1;
    }
    const unsigned units = n / TM_UNIT;
    const uint16_t mask = (uint16_t)((1u << units) - 1);
    /* .cta_group::2: the allocation of the pair, made by whichever of the two warps comes
     * first in both tensor memories (pt the peer's); the other warp takes the same columns */
    struct tc5_cta *pt = NULL;
    bool taken = false;
    if (cta2) {
        struct cta *pair[2];
        if (tc5_pair(w, pc, "tcgen05.alloc", pair) ||
            !(pt = tc5_tm(w, pc, pair[(w->cta->rank & 1) ^ 1])))
            return -1;
        if (t->npend) {
            if (t->pend[0].ncols != n) {
                snprintf(msg, sizeof msg,
                         "tcgen05.alloc.cta_group::2: %u columns requested, but the peer CTA's "
                         "matching tcgen05.alloc.cta_group::2 took %u (the pair's warps must "
                         "allocate together)",
                         n, t->pend[0].ncols);
                interp_fault(w, pc, 0, TRAP_ILLEGAL, 0, 0, 0, false, msg);
                return -1;
            }
            taken = true;
        }
    }
    const uint16_t busy = t->alloc | (pt && !taken ? pt->alloc : 0);
    unsigned u = 0;
    if (taken)
        u = t->pend[0].addr / TM_UNIT;
    else
        for (; u < TM_COLS / TM_UNIT; u += units)
            if (!(busy & (uint16_t)(mask << u)))
                break;
    if (u >= TM_COLS / TM_UNIT) {
        snprintf(msg, sizeof msg,
                 "tcgen05.alloc%s: %u columns requested, columns allocated %04x (a bit per 32 of "
                 "512%s): the allocation would block until another warp frees columns",
                 cta2 ? ".cta_group::2" : "", n, busy, cta2 ? ", in either CTA of the pair" : "");
        interp_fault(w, pc, 0, TRAP_ILLEGAL, 0, 0, 0, false, msg);
        return -1;
    }
    const uint32_t addr = u * TM_UNIT; /* lane 0 */
    const unsigned xs = vm_xs(w, &O[0]);
    const uint64_t ad = vm_addr(w, &O[0], 0);
    uint8_t *p;
    const int k = vm_xlate(w, xs, 0, ad, 4, true, &p);
    if (k || vm_xs_space(xs, ad) != SP_SHARED) {
        interp_fault(w, pc, 0, k ? (enum trap_kind)k : TRAP_ILLEGAL, ad, 4, vm_xs_space(xs, ad),
                     true, "tcgen05.alloc: the destination is not shared memory of the CTA");
        return -1;
    }
    if (taken)
        memmove(&t->pend[0], &t->pend[1], --t->npend * sizeof t->pend[0]);
    else if (pt) { /* the peer's columns, taken by its own tcgen05.alloc.cta_group::2 later */
        pt->alloc |= (uint16_t)(mask << u);
        for (unsigned k = u; k < u + units; k++) {
            pt->site[k].fn = w->fn;
            pt->site[k].pc = pc;
            pt->site[k].warp = w->id;
        }
        pt->pend[pt->npend].addr = addr;
        pt->pend[pt->npend++].ncols = n;
    }
    t->alloc |= (uint16_t)(mask << u);
    for (unsigned k = u; k < u + units; k++) {
        t->site[k].fn = w->fn;
        t->site[k].pc = pc;
        t->site[k].warp = w->id;
    }
    memcpy(p, &addr, 4);
    tc_mem_report(mr, 0, ad, xs, 4, true, p);
    return 0;
}

static int tc5_dealloc(struct warp *w, uint32_t pc, const struct ir_opnd *O, struct tc5_cta *t)
{
    const uint32_t a = (uint32_t)vm_get(w, &O[0], 0), n = (uint32_t)vm_get(w, &O[1], 0);
    const uint32_t col = a & 0xffff;
    if (n < 32 || n > TM_COLS || (n & (n - 1)) || (a >> 16) != 0 || col % TM_UNIT ||
        !tc5_allocated(t, col, n)) {
        char msg[240];
        snprintf(msg, sizeof msg,
                 "tcgen05.dealloc: columns %u .. %u at tensor-memory address 0x%08x are not "
                 "all allocated (allocated %04x, a bit per 32 of 512 columns; ncols must be a "
                 "power of 2 from 32 to 512)",
                 col, col + n - 1, a, t->alloc);
        tc5_fault(w, pc, 0, msg);
        return -1;
    }
    t->alloc &= (uint16_t)~(((1u << (n / TM_UNIT)) - 1) << (col / TM_UNIT));
    return 0;
}

/* Where register j of lane l of a tcgen05.ld / st of shape sh goes (the ISA's "Matrix
 * fragments" of the data-movement shapes): *dl the tensor-memory lane after taddr's, *lc the
 * column after taddr's in 32-bit registers (packed: in pairs of 16-bit columns), *half 1 for
 * the second half of .16x32bx2 (at immHalfSplitoff). */
static inline void tc5_frag(enum tc5_shape sh, unsigned l, unsigned j, unsigned *dl,
                            unsigned *lc, unsigned *half)
{
    *half = 0;
    switch (sh) {
    case SH_16X64B: /* lanes l/4 and l/4 + 8 alternate; column pairs per register */
        *dl = l / 4 + 8 * (l % 2);
        *lc = 2 * j + l / 2 % 2;
        break;
    case SH_16X128B: /* register 2k + h: lane l/4 + 8h, column 4k + l%4 */
        *dl = l / 4 + 8 * (j % 2);
        *lc = 4 * (j / 2) + l % 4;
        break;
    case SH_16X256B: /* register 4k + 2h + e: lane l/4 + 8h, column 8k + 2 (l%4) + e */
        *dl = l / 4 + 8 * (j / 2 % 2);
        *lc = 8 * (j / 4) + 2 * (l % 4) + j % 2;
        break;
    case SH_16X32BX2: /* lanes 0 .. 15 twice: the upper half-warp at immHalfSplitoff */
        *dl = l % 16;
        *lc = j;
        *half = l / 16;
        break;
    default: /* .32x32b */
        *dl = l;
        *lc = j;
        break;
    }
}

/* tcgen05.ld.red: each lane's min or max (mx) of the n registers of ro it loaded into its
 * register rv. .u32 / .s32 compare as integers; .f32 as PTX min / max (a NaN ignored unless
 * .NaN, all NaN or .NaN with one: the canonical NaN; -0 below +0), of the magnitudes with
 * .abs (the loaded registers keep the values as in tensor memory). */
static void tc5_reduce(struct warp *w, const struct ir_insn *in, const struct ir_opnd *ro,
                       const struct ir_opnd *rv, bool mx, unsigned n)
{
    const unsigned ty = in->type[0];
    const int np = (in->fl & IR_FL(FL_NAN)) != 0, ab = (in->fl & IR_FL(FL_ABS)) != 0;
    uint32_t r[32];
    for (unsigned j = 0; j < n; j++) {
        const struct ir_opnd e = vm_elem(w->fn, ro, j);
        for (unsigned l = 0; l < 32; l++) {
            const uint32_t x = w->r32[e.slot][l].u;
            if (ty == T_F32) {
                const float f = ab ? fabsf(fpu_u2f(x)) : fpu_u2f(x);
                r[l] = fpu_f2u(j ? fpu_fminmax32(fpu_u2f(r[l]), f, mx, np, 0) : fpu_canon32(f));
            } else if (j == 0)
                r[l] = x;
            else if (ty == T_S32)
                r[l] = ((int32_t)x < (int32_t)r[l]) != mx ? x : r[l];
            else
                r[l] = (x < r[l]) != mx ? x : r[l];
        }
    }
    for (unsigned l = 0; l < 32; l++)
        w->r32[rv->slot][l].u = r[l];
}

/* tcgen05.ld / st of any data-movement shape: lane l's registers <-> the cells tc5_frag
 * names, inside the warp's quarter of the lanes and the allocated columns. */
static int tc5_ldst(struct warp *w, uint32_t pc, const struct ir_insn *in,
                    const struct ir_opnd *O, struct tc5_cta *t, const struct tc5_insn *d)
{
    const bool red = in->op == OP_TCGEN05_LD_RED, ld = in->op == OP_TCGEN05_LD || red;
    const bool x2 = d->shape == SH_16X32BX2, packed = d->pack || d->unpack;
    const struct ir_opnd *ao = ld ? &O[1 + red] : &O[0], *ro = ld ? &O[0] : &O[1 + x2];
    const uint32_t a = (uint32_t)vm_addr(w, ao, 0);
    const uint32_t lane0 = a >> 16, col = a & 0xffff, q = w->id % 4;
    const uint32_t off = x2 ? (uint32_t)O[ld ? 2 + red : 1].imm.u : 0;
    const unsigned nreg = d->num * tc5_shape_regs(d->shape);
    const unsigned nlanes = d->shape == SH_32X32B ? 32 : 16;
    /* columns of 32-bit registers one half-set of lanes covers, then in cells */
    const unsigned span = (d->shape == SH_16X64B    ? 2 * d->num
                           : d->shape == SH_16X128B ? 4 * d->num
                           : d->shape == SH_16X256B ? 8 * d->num
                                                    : d->num) << packed;
    static const char *const shname[] = {"", "32x32b", "16x64b", "16x128b", "16x256b",
                                         "16x32bx2"};
    char msg[240];
    if (lane0 < 32 * q || lane0 + nlanes > 32 * q + 32) {
        snprintf(msg, sizeof msg,
                 "%s: tensor-memory address 0x%08x: warp %u (%u of its warpgroup) reaches lanes "
                 "%u .. %u only, the .%s shape lanes %u .. %u",
                 tc5_name(in), a, w->id, q, 32 * q, 32 * q + 31, shname[d->shape], lane0,
                 lane0 + nlanes - 1);
        tc5_fault(w, pc, 0, msg);
        return -1;
    }
    for (unsigned h = 0; h <= (unsigned)x2; h++) {
        const uint32_t c0 = col + h * off;
        if (!tc5_allocated(t, c0, span)) {
            snprintf(msg, sizeof msg,
                     "%s: columns %u .. %u at tensor-memory address 0x%08x are not all allocated "
                     "(allocated %04x, a bit per 32 of 512 columns)",
                     tc5_name(in), c0, c0 + span - 1, a + h * off, t->alloc);
            tc5_fault(w, pc, 0, msg);
            return -1;
        }
    }
    for (unsigned j = 0; j < nreg; j++) {
        const struct ir_opnd e = ro->kind == OPK_VEC ? vm_elem(w->fn, ro, j) : *ro;
        if (d->shape == SH_32X32B && !packed) { /* the common shape: lane l, column j */
            for (unsigned l = 0; l < 32; l++) {
                uint32_t *cell = &t->cell[lane0 + l][col + j];
                if (ld)
                    w->r32[e.slot][l].u = *cell;
                else
                    *cell = (uint32_t)vm_get(w, &e, l);
            }
            continue;
        }
        for (unsigned l = 0; l < 32; l++) {
            unsigned dl, lc, half;
            tc5_frag(d->shape, l, j, &dl, &lc, &half);
            uint32_t *cell = &t->cell[lane0 + dl][col + half * off + (lc << packed)];
            if (ld && packed)
                w->r32[e.slot][l].u = (cell[0] & 0xffffu) | cell[1] << 16;
            else if (ld)
                w->r32[e.slot][l].u = *cell;
            else if (packed) { /* the halves into the low 16 bits, the high ones cleared */
                const uint32_t v = (uint32_t)vm_get(w, &e, l);
                cell[0] = v & 0xffffu;
                cell[1] = v >> 16;
            } else
                *cell = (uint32_t)vm_get(w, &e, l);
        }
    }
    if (red)
        tc5_reduce(w, in, ro, &O[1], d->redop == 2, nreg);
    if (!ld)
        t->dirty = true;
    return 0;
}

/* ---------------------------------------------------------------------- mma */

/* The tcgen05 shared-memory descriptor: fills start / lbo / sbo / base / W; -1 after a fault
 * on a form not implemented or invalid. */
static int tc5_desc(struct warp *w, uint32_t pc, unsigned l, uint64_t v, const char *which,
                    uint32_t f[4], unsigned *W)
{
    char msg[200];
    const unsigned sw = (unsigned)(v >> 61);
    static const unsigned wmode[8] = {1, 0, 8, 0, 4, 0, 2, 0};
    const char *bad = NULL;
    if ((v >> 46 & 7) != 1)
        bad = "bits 46-48 are not the fixed 0b001 of a tcgen05 descriptor";
    else if (v >> 52 & 1)
        bad = "the absolute leading-dimension address mode (sm_103a) is not implemented";
    else if (sw == 1)
        bad = "128-byte swizzling with 32-byte atomicity is not implemented";
    else if (!wmode[sw])
        bad = "its swizzling mode is invalid";
    if (bad) {
        snprintf(msg, sizeof msg, "%s descriptor 0x%016llx: %s", which,
                 (unsigned long long)v, bad);
        interp_fault(w, pc, l, TRAP_ILLEGAL, 0, 0, 0, false, msg);
        return -1;
    }
    f[0] = (uint32_t)(v & 0x3fff) << 4;
    f[1] = (uint32_t)(v >> 16 & 0x3fff) << 4;
    f[2] = (uint32_t)(v >> 32 & 0x3fff) << 4;
    f[3] = (uint32_t)(v >> 49 & 7);
    *W = wmode[sw];
    return 0;
}

/* Element bits -> value; t an ir type (T_F16, T_BF16, T_TF32, T_E4M3, T_E5M2, T_E2M3, T_E3M2,
 * T_E2M1, T_S8, T_U8; T_E2M1X2 stands for the densely packed e2m1 of .kind::mxf4 /
 * mxf4nvf4). */
static inline double tc5_val(unsigned t, uint32_t b)
{
    switch (t) {
    case T_F16: return fpu_h2d((uint16_t)b, 0);
    case T_BF16: return fpu_h2d((uint16_t)b, 1);
    case T_TF32: return (double)fpu_u2f(b & 0xffffe000u);
    case T_E4M3: return fpu_unpack(b & 0xff, FPU_E4M3);
    case T_E5M2: return fpu_unpack(b & 0xff, FPU_E5M2);
    case T_E2M3: return fpu_minifloat(b, 2, 3);
    case T_E3M2: return fpu_minifloat(b, 3, 2);
    case T_E2M1:
    case T_E2M1X2: return fpu_minifloat(b, 2, 1);
    case T_S8: return (int8_t)(uint8_t)b;
    default: return (uint8_t)b;
    }
}

/* Bits an element of ir type t takes in the layouts (the 6- and 4-bit types of
 * .kind::f8f6f4 take the place of 8-bit ones: 16 per 16-byte chunk; the e2m1 of the 4-bit
 * kinds, T_E2M1X2, is packed two per byte: 32 per chunk). */
static unsigned tc5_bits(unsigned t)
{
    return t == T_TF32 ? 32 : t == T_F16 || t == T_BF16 ? 16 : t == T_E2M1X2 ? 4 : 8;
}

/* Bits of the value of an element of ir type t (6 or 4 for the small floats, otherwise
 * tc5_bits). */
static unsigned tc5_width(unsigned t)
{
    return t == T_E2M3 || t == T_E3M2 ? 6 : t == T_E2M1 || t == T_E2M1X2 ? 4 : tc5_bits(t);
}

/* The bits of element k of a row of A in tensor memory, the row's cells from `row` (its
 * column a.col): one tf32 a cell, two 16-bit elements, four 8-bit ones (low first), or for
 * the 6- and 4-bit types of .kind::f8f6f4 / mxf8f6f4 four 8-bit containers a cell, the value
 * in container bits 0-5 (e2m3, e3m2) or 2-5 (e2m1), the rest padding; the packed e2m1 of the
 * 4-bit kinds (T_E2M1X2) eight a cell, element k in nibble k % 8 (low first), as tcgen05.cp
 * copies them from shared memory. The containers' bits are what tcgen05.cp's decompression
 * (.b8x16.b6x16_p32 / .b4x16_p64, tc5_cp) writes; see the file comment for their source. */
static inline uint32_t tc5_tmem_elem(const uint32_t *row, unsigned t, unsigned k)
{
    const unsigned eb = tc5_bits(t);
    if (eb == 32)
        return row[k];
    const unsigned per = 32 / eb;
    const uint32_t b = row[k / per] >> (eb * (k % per)) & ((1u << eb) - 1);
    return t == T_E2M1 ? b >> 2 & 0xf : b;
}

/* Gather a matrix (rows x K, K-major or MN-major) from shared memory into dense[row * K + k]. */
static int tc5_gather(struct warp *w, uint32_t pc, unsigned l, const uint32_t f[4], unsigned W,
                      bool mn, unsigned rows, unsigned K, unsigned t, bool neg, double *dense,
                      char which, const struct tc_mem *mr, const struct cta *c)
{
    const unsigned eb = tc5_bits(t), per = 128 / eb, vw = tc5_width(t);
    /* MN-major: a chunk holds per (8 or 16) consecutive rows of one k */
    if (mn && (eb == 32 || vw < 8 || rows % per)) {
        char msg[200];
        if (eb == 32)
            snprintf(msg, sizeof msg,
                     "tcgen05.mma: matrix %c MN-major of tf32 elements (the ISA's 128B swizzle "
                     "with 32B atomicity) is not implemented", which);
        else if (vw < 8)
            snprintf(msg, sizeof msg,
                     "tcgen05.mma: matrix %c MN-major of %u-bit elements (the ISA transposes "
                     "8-, 16- and 32-bit ones only)", which, vw);
        else
            snprintf(msg, sizeof msg,
                     "tcgen05.mma: matrix %c MN-major with %u rows, not a multiple of the %u "
                     "rows of a 16-byte chunk", which, rows, per);
        interp_fault(w, pc, l, TRAP_ILLEGAL, 0, 0, 0, false, msg);
        return -1;
    }
    const unsigned nch = mn ? K : K / per, ngrp = mn ? rows / per : rows;
    for (unsigned r = 0; r < ngrp; r++)
        for (unsigned kc = 0; kc < nch; kc++) {
            const uint32_t a = wgmma_chunk_addr(f[0], f[1], f[2], f[3], W, mn, mn ? 8 * r : r, kc);
            if ((uint64_t)a + 16 > c->shared_size) {
                char msg[160];
                snprintf(msg, sizeof msg,
                         "tcgen05.mma: matrix %c reaches shared bytes %u..%u, past the CTA's %u",
                         which, a, a + 15, c->shared_size);
                interp_fault(w, pc, l, TRAP_OOB, a, 16, SP_SHARED, false, msg);
                return -1;
            }
            const uint8_t *p = c->shared + a;
            if (mr)
                mr->fn(mr->ctx, l, a, 16, false, SP_SHARED, p);
            for (unsigned e = 0; e < per; e++) {
                uint32_t b = 0;
                if (vw < 8) { /* 16 packed values LSB first, then the chunk's padding (or 32
                                 packed e2m1: two per byte, the low nibble first) */
                    const unsigned bit = e * vw;
                    b = (uint32_t)(p[bit / 8] | (bit / 8 + 1 < 16 ? p[bit / 8 + 1] << 8 : 0)) >>
                            (bit % 8) & ((1u << vw) - 1);
                } else
                    memcpy(&b, p + e * eb / 8, eb / 8);
                const double v = neg ? -tc5_val(t, b) : tc5_val(t, b);
                if (mn)
                    dense[(per * r + e) * K + kc] = v;
                else
                    dense[r * K + kc * per + e] = v;
            }
        }
    return 0;
}

/* Block scaling (.block_scale): multiplies element k of row i of the dense operand (rows x K,
 * A's rows or B's columns) by its scale factor number k / (K / nsf), nsf = 1, 2 or 4 per row
 * (.scale_vec::1X / 2X / 4X). The layout in tensor memory (CUTLASS tmem_sf_frg with its
 * UTCCP 4x32dp128bit copy of the shared-memory atom, cf. the ISA's scale-factor figures):
 * from the address's column (its lane must be 0), row i in lane i % 32 of column i / 32, its
 * scale factors in bytes id .. id + nsf - 1 of that cell (id the instruction descriptor's
 * scale-factor ID: 0 .. 3 with 1X, 0 or 2 with 2X, 0 with 4X), the 32 lanes replicated in each
 * 32-lane sub-partition (lanes 32 r + i % 32). Replicas that differ are a fault (the
 * sub-partitions would scale with different values). ue8m0: 2^(b - 127), 0xff NaN; ue4m3:
 * the e4m3 of the low 7 bits (0x7f NaN), bit 7 ignored. */
static int tc5_scale(struct warp *w, uint32_t pc, unsigned l, const struct tc5_cta *t,
                     uint32_t addr, unsigned id, unsigned rows, unsigned K, unsigned nsf,
                     bool ue8, double *dense, char which)
{
    char msg[300];
    const uint32_t lane0 = addr >> 16, col = addr & 0xffff, ncol = (rows + 31) / 32;
    if (lane0 != 0 || !tc5_allocated(t, col, ncol)) {
        snprintf(msg, sizeof msg,
                 "tcgen05.mma: the scale factors of %c at tensor-memory address 0x%08x (columns "
                 "%u .. %u) are not inside an allocation (allocated %04x, a bit per 32 of 512 "
                 "columns) or its lane is not 0",
                 which, addr, col, col + ncol - 1, t->alloc);
        tc5_fault(w, pc, l, msg);
        return -1;
    }
    const unsigned vs = K / nsf;
    for (unsigned i = 0; i < rows; i++) {
        const unsigned c = col + i / 32, x = i % 32;
        for (unsigned s = 0; s < nsf; s++) {
            const unsigned sh = 8 * (id + s);
            const uint32_t b = t->cell[x][c] >> sh & 0xff;
            for (unsigned r = 1; r < 4; r++) {
                const uint32_t o = t->cell[32 * r + x][c] >> sh & 0xff;
                if (o != b) {
                    snprintf(msg, sizeof msg,
                             "tcgen05.mma: scale factor %u of %s %u (byte %u of column %u) is "
                             "0x%02x in lane %u but 0x%02x in lane %u (the layout replicates the "
                             "scale factors in each 32-lane sub-partition)",
                             s, which == 'A' ? "A's row" : "B's column", i, id + s, c, b, x, o,
                             32 * r + x);
                    tc5_fault(w, pc, l, msg);
                    return -1;
                }
            }
            const double v = ue8 ? (b == 0xff ? (double)NAN : ldexp(1.0, (int)b - 127))
                                 : fpu_unpack(b & 0x7f, FPU_E4M3);
            for (unsigned k = s * vs; k < (s + 1) * vs; k++)
                dense[i * K + k] *= v;
        }
    }
    return 0;
}

/* Where the sparsity-metadata code of row i's group g lies (see tc5_sparse): *ln the lane
 * after the metadata address's, *c the column, *nib the nibble of the cell. */
static inline void tc5_meta_at(unsigned eb, uint32_t col, unsigned sel, unsigned i, unsigned g,
                               unsigned *ln, unsigned *c, unsigned *nib)
{
    const unsigned r = i % 32;
    if (eb >= 16) { /* tf32: g a pair of elements, laid out as 16-bit A's groups of four */
        *ln = 32 * (i / 32) + r % 8 + 16 * (r / 16) + 8 * (g / 4);
        *c = col + sel;
        *nib = 4 * (r % 16 / 8) + g % 4;
    } else {
        *ln = i;
        *c = col + g / 8;
        *nib = g % 8;
    }
}

/* Sparse A (tcgen05.mma.sp, M = 128): expands the stored rows (K / 2 elements each, in t->A)
 * to K in place. Each group g of four consecutive elements of a row holds two stored ones, at
 * the two positions the group's 4-bit metadata code names (bits 0-1 the first stored element's,
 * 2-3 the second's; the ISA's 2:4 sparsity, its codes 0x4 .. 0xe; equal positions are a
 * fault), the others zero. The codes' places in tensor memory, from the metadata address
 * (lane 0 as D's, column even, two columns allocated): 16-bit A (.kind::f16, K = 32) row i's
 * code g in lane 32 (i / 32) + i % 8 + 16 ((i % 32) / 16) + 8 (g / 4), nibble 4 ((i % 16) /
 * 8) + g % 4 of the column selected by the sparsity selector (instruction descriptor bit 0:
 * the first or second column); 8-bit A (.kind::i8, .kind::f8f6f4 e4m3 / e5m2, K = 64) row i
 * in lane i, code g in nibble g % 8 of column g / 8. These are CUTLASS's tmem_e_frg
 * (cute/atom/mma_traits_sm100.hpp, its selector the column's low bit) and agree with an
 * independent emulator's reading of the ISA's figures (numsim sparse_metadata_location); the
 * ISA draws them only in figures. tf32 A (K = 16, 1:2): a code per pair of elements (0x4 the
 * first kept, 0xe the second; others a fault), pair g's code where 16-bit A's group g's is
 * (CUTLASS tmem_e_frg's TF32 atom: the 16-bit atom's shape at 2 bits an element). The rows are
 * in A (K / 2 stored elements each, expanded to K in place); t is the tensor memory holding the
 * metadata. */
static int tc5_sparse(struct warp *w, uint32_t pc, unsigned l, const struct tc5_cta *t,
                      uint32_t addr, uint32_t l0, unsigned sel, unsigned eb, unsigned M,
                      unsigned K, double *A)
{
    char msg[240];
    const uint32_t lane0 = addr >> 16, col = addr & 0xffff;
    if (lane0 != l0 || col % 2 || !tc5_allocated(t, col, 2)) {
        snprintf(msg, sizeof msg,
                 "tcgen05.mma.sp: the metadata at tensor-memory address 0x%08x (columns %u .. "
                 "%u) is not inside an allocation (allocated %04x, a bit per 32 of 512 columns), "
                 "its column is odd or its lane is not D's (%u)",
                 addr, col, col + 1, t->alloc, l0);
        tc5_fault(w, pc, l, msg);
        return -1;
    }
    const bool tf32 = eb == 32;          /* 1:2: a code per pair of elements */
    const bool pairs = eb == 4;          /* the 4-bit kinds: 4:8 in pairs (two of four pairs) */
    const unsigned KA = K / 2, gw = tf32 ? 2 : pairs ? 8 : 4, ng = K / gw; /* group width, groups
                                                                            a row */
    for (unsigned i = 0; i < M; i++) /* every code names two (tf32: one) elements */
        for (unsigned g = 0; g < ng; g++) {
            unsigned ln, c, nib;
            tc5_meta_at(eb, col, sel, i, g, &ln, &c, &nib);
            const unsigned code = t->cell[lane0 + ln][c] >> (4 * nib) & 15;
            /* .ws with M = 64 / 32: the metadata of the M rows is repeated every M lanes
               (CUTLASS tmem_e_frg_ws); the copies must agree */
            for (unsigned r = M; M < 128 && r < 128; r += M)
                if ((t->cell[lane0 + ln + r][c] >> (4 * nib) & 15) != code) {
                    snprintf(msg, sizeof msg,
                             "tcgen05.mma.ws.sp: the metadata of row %u, group %u differs between "
                             "lanes %u and %u (M = %u: a copy every %u lanes; the emulator does "
                             "not guess which one the hardware reads)",
                             i, g, lane0 + ln, lane0 + ln + r, M, M);
                    tc5_fault(w, pc, l, msg);
                    return -1;
                }
            if (tf32 ? code != 0x4 && code != 0xe : (code & 3) == code >> 2) {
                if (tf32)
                    snprintf(msg, sizeof msg,
                             "tcgen05.mma.sp: metadata code 0x%x of row %u, elements %u .. %u "
                             "(lane %u, column %u, nibble %u) is neither 0x4 nor 0xe (.kind::tf32 "
                             "1:2 sparsity)",
                             code, i, 2 * g, 2 * g + 1, lane0 + ln, c, nib);
                else
                    snprintf(msg, sizeof msg,
                             "tcgen05.mma.sp: metadata code 0x%x of row %u, elements %u .. %u "
                             "(lane %u, column %u, nibble %u) names %s %u twice",
                             code, i, gw * g, gw * g + gw - 1, lane0 + ln, c, nib,
                             pairs ? "pair" : "element", code & 3);
                tc5_fault(w, pc, l, msg);
                return -1;
            }
        }
    for (unsigned i = M; i-- > 0;) { /* from the last row: the stored rows are denser */
        double row[64];
        memcpy(row, &A[i * KA], KA * sizeof row[0]);
        for (unsigned g = 0; g < ng; g++) {
            unsigned ln, c, nib;
            tc5_meta_at(eb, col, sel, i, g, &ln, &c, &nib);
            const unsigned code = t->cell[lane0 + ln][c] >> (4 * nib) & 15;
            double *d = &A[i * K + gw * g];
            if (tf32) { /* 0x4: the pair's first element kept, 0xe its second */
                d[0] = d[1] = 0.0;
                d[code == 0xe] = row[g];
                continue;
            }
            if (pairs) { /* pair q = elements 2q, 2q + 1 of the eight */
                memset(d, 0, 8 * sizeof d[0]);
                d[2 * (code & 3)] = row[4 * g], d[2 * (code & 3) + 1] = row[4 * g + 1];
                d[2 * (code >> 2)] = row[4 * g + 2], d[2 * (code >> 2) + 1] = row[4 * g + 3];
                continue;
            }
            d[0] = d[1] = d[2] = d[3] = 0.0;
            d[code & 3] = row[2 * g];
            d[code >> 2] = row[2 * g + 1];
        }
    }
    return 0;
}

/* The zero-column mask descriptor of a .ws MMA with M rows (ISA "Zero-Column Mask
 * Descriptor"): bits 0-7, 8-15, 16-23, 24-31 start counts sc0 .. sc3, bits 32-35 first spans
 * fs0 .. fs3, 39 non-zero mask (0: no column is zeroed), 40-47 skip span, 48-55 use span,
 * 56-61 column shift (at most 16 for M = 32, 32 otherwise); bits 36-38 reserved. The N-bit
 * mask, bit j for column j (1: zeros), is 128 / M sub-masks of N M / 128 bits (mask i covers
 * columns i N M / 128 ..: M = 128 one, M = 64 two, M = 32 four), each repeating spans of (skip
 * span + 1) ones and (use span + 1) zeros, the first of value fs_i with its first sc_i bits
 * dropped (the ISA's examples 2 to 4); a start count not inside its first span is a fault (the
 * ISA leaves it open). Fills mask[N / 64] and *shift. */
static int tc5_zero_mask(struct warp *w, uint32_t pc, unsigned l, uint64_t v, unsigned N,
                         unsigned M, uint64_t mask[4], unsigned *shift)
{
    const unsigned ones = (unsigned)(v >> 40 & 0xff) + 1, zeros = (unsigned)(v >> 48 & 0xff) + 1;
    const unsigned nsub = 128 / M, nb = N / nsub; /* sub-masks, bits each */
    *shift = (unsigned)(v >> 56 & 63);
    char bad[96] = "";
    if (v >> 36 & 7 || v >> 62)
        snprintf(bad, sizeof bad, "reserved bits 36-38 or 62-63 are set");
    else if (*shift > (M == 32 ? 16u : 32u))
        snprintf(bad, sizeof bad, "a column shift above %u (M = %u)", M == 32 ? 16u : 32u, M);
    for (unsigned i = 0; !bad[0] && (v >> 39 & 1) && i < nsub; i++) {
        const unsigned sc = (unsigned)(v >> 8 * i & 0xff), fs = (unsigned)(v >> (32 + i) & 1);
        if (sc >= (fs ? ones : zeros))
            snprintf(bad, sizeof bad, "start count %u not inside the first span (not implemented)",
                     i);
    }
    if (bad[0]) {
        char msg[200];
        snprintf(msg, sizeof msg, "tcgen05.mma.ws: zero-column mask descriptor 0x%016llx: %s",
                 (unsigned long long)v, bad);
        interp_fault(w, pc, l, TRAP_ILLEGAL, 0, 0, 0, false, msg);
        return -1;
    }
    if (!(v >> 39 & 1))
        return 0;
    for (unsigned i = 0; i < nsub; i++) {
        const unsigned sc = (unsigned)(v >> 8 * i & 0xff);
        unsigned val = (unsigned)(v >> (32 + i) & 1), left = (val ? ones : zeros) - sc;
        for (unsigned j = i * nb; j < (i + 1) * nb; j++) {
            if (val)
                mask[j / 64] |= UINT64_C(1) << (j % 64);
            if (--left == 0) {
                val ^= 1;
                left = val ? ones : zeros;
            }
        }
    }
    return 0;
}

/* The tensor-memory lane of row i of D (and of an A in tensor memory) for M rows from lane
 * l0: M = 128 row i in lane i (ISA Layout D); M = 64 (not .ws) rows 16 q .. 16 q + 15 in the
 * lanes 32 q + l0 .. + 15 of warp q's quarter, l0 0 or 16 (Layout F, half the data path). */
static inline unsigned tc5_row_lane(unsigned M, unsigned l0, unsigned i)
{
    return M == 64 ? l0 + 32 * (i / 16) + i % 16 : i;
}

/* What the instruction descriptor of a tcgen05.mma says, once checked (tc5_mma). */
struct tc5_form {
    unsigned M, N, K, ta, tb;     /* shape; A / B element types */
    bool negA, negB, mnA, mnB;    /* negation; MN-major operands */
    bool satf, f16d, acc;         /* .kind::i8 saturation; f16 D; enable-input-d */
    int sc;                       /* scale-input-d (-1: none) */
    unsigned po, sel;             /* .sp: the [sp-meta-tmem] operand (0: dense), the selector */
};

/* D element *cell = (C or 0) + the exact sum of a[k] * b[k], k < K, rounded once (see the
 * file comment): s32 wrapping or saturating (.kind::i8), f16 in the low 16 bits, or f32. */
static inline void tc5_dot(uint32_t *cell, const double *a, const double *b,
                           const struct tc5_form *fm, bool i8)
{
    double s = !fm->acc ? 0.0
               : i8     ? (double)(int32_t)*cell
               : fm->f16d ? fpu_h2d((uint16_t)*cell, 0)
                          : (double)fpu_u2f(*cell);
    if (fm->sc > 0) /* scale-input-d: D * 2^-scale, exact */
        s = ldexp(s, -fm->sc);
    for (unsigned k = 0; k < fm->K; k++)
        s += a[k] * b[k];
    if (i8) { /* exact: wrap, or clamp with the saturate bit */
        const int64_t v = (int64_t)s;
        *cell = fm->satf ? (uint32_t)(v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v)
                         : (uint32_t)(uint64_t)v;
    } else if (fm->f16d) { /* one f16 in the low 16 bits, the high ones cleared */
        *cell = s != s ? 0x7fffu : fpu_d2h(s, FPU_RN, 0);
    } else {
        const float r = (float)s;
        *cell = r != r ? 0x7fffffffu : fpu_f2u(r);
    }
}

/* The block scaling of a pair MMA: the scale-factor IDs of A and B, ue8m0 (else ue4m3). */
struct tc5_bsf {
    unsigned ida, idb;
    bool ue8;
};

/* Block scaling of a .cta_group::2 MMA in one CTA of the pair: multiplies element k of row i
 * of dense (rows x K) by scale factor k / (K / nsf) of its row, read from tensor memory at
 * addr (lane 0) as CUTLASS tmem_sf_frg lays it out for N_SM = 2: without `half`
 * (ScaleFactorDuplicated4by1: SFA, and SFB of M = 256) row i in lane i % 32 of column i / 32,
 * replicated in the four 32-lane sub-partitions; with half = N / 2 (ScaleFactorDuplicated2by2:
 * SFB of M = 128, the 2x2 data path) row i = h half + i' in lane i' % 32 + 64 h of column
 * i' / 32, replicated in the two sub-partitions 32 lanes apart; scale factor s in byte id + s
 * of the cell. Replicas that differ are a fault. rank names the CTA in messages. */
static int tc5_scale_pair(struct warp *w, uint32_t pc, unsigned l, const struct tc5_cta *t,
                          uint32_t addr, unsigned id, unsigned rows, unsigned K, unsigned nsf,
                          unsigned half, bool ue8, double *dense, char which, uint32_t rank)
{
    char msg[320];
    const uint32_t col = addr & 0xffff;
    const unsigned per = half ? half : rows, ncol = (per + 31) / 32, nrep = half ? 2 : 4;
    if (addr >> 16 || !tc5_allocated(t, col, ncol)) {
        snprintf(msg, sizeof msg,
                 "tcgen05.mma.cta_group::2: the scale factors of %c at tensor-memory address "
                 "0x%08x (columns %u .. %u) are not inside an allocation of the CTA of rank %u "
                 "(allocated %04x, a bit per 32 of 512 columns) or its lane is not 0",
                 which, addr, col, col + ncol - 1, rank, t->alloc);
        tc5_fault(w, pc, l, msg);
        return -1;
    }
    const unsigned vs = K / nsf;
    for (unsigned i = 0; i < rows; i++) {
        const unsigned h = half ? i / half : 0, ii = half ? i % half : i;
        const unsigned ln = ii % 32 + 64 * h, c = col + ii / 32;
        for (unsigned s = 0; s < nsf; s++) {
            const unsigned sh = 8 * (id + s);
            const uint32_t b = t->cell[ln][c] >> sh & 0xff;
            for (unsigned r = 1; r < nrep; r++) {
                const uint32_t o = t->cell[ln + 32 * r][c] >> sh & 0xff;
                if (o != b) {
                    snprintf(msg, sizeof msg,
                             "tcgen05.mma.cta_group::2: scale factor %u of %s %u (byte %u of "
                             "column %u) in the CTA of rank %u is 0x%02x in lane %u but 0x%02x in "
                             "lane %u (the layout replicates the scale factors in each %s)",
                             s, which == 'A' ? "A's row" : "B's column", i, id + s, c, rank, b,
                             ln, o, ln + 32 * r,
                             half ? "pair of 32-lane sub-partitions" : "32-lane sub-partition");
                    tc5_fault(w, pc, l, msg);
                    return -1;
                }
            }
            const double v = ue8 ? (b == 0xff ? (double)NAN : ldexp(1.0, (int)b - 127))
                                 : fpu_unpack(b & 0x7f, FPU_E4M3);
            for (unsigned k = s * vs; k < (s + 1) * vs; k++)
                dense[i * K + k] *= v;
        }
    }
    return 0;
}

/* One tcgen05.mma.cta_group::2 of lane l (dense, not .ws): an M x N x K MMA over the CTA pair
 * (tc5_pair; CTA v = 0 the even rank, 1 the odd one). Following CUTLASS's 2x1SM atoms
 * (cute/atom/mma_traits_sm100.hpp, e.g. SM100_MMA_F16BF16_2x1SM_SS: ThrID = 2, ALayout /
 * CLayout rows v M/2 .. v M/2 + M/2 - 1 in CTA v, BLayout columns v N/2 .. v N/2 + N/2 - 1 in
 * CTA v): A's descriptor (or [a-tmem]) names in each CTA's own shared (tensor) memory that
 * CTA's M / 2 rows, B's descriptor in each CTA's shared memory N / 2 of B's N columns (the even
 * CTA the first half), and D at the same tensor-memory address in both CTAs holds that CTA's
 * M / 2 rows of all N columns. In tensor memory (CUTLASS tmem_frg_2sm; the PTX ISA's data-path
 * layouts A and B): M = 256 (Layout A) row i of a CTA's D in lane i, column j at d.col + j;
 * M = 128 (Layout B, "2x2": 64 rows, the column halves folded over the lane halves) row i,
 * column j < N / 2 in lane i at d.col + j, column j >= N / 2 in lane 64 + i at d.col + j - N / 2.
 * An A in tensor memory is read by each lane for its own row of D (M = 128: row i in lanes i and
 * 64 + i, CUTLASS's TmemAllocMode::Duplicated). disable-output-lane: words 0 .. 3 turn off lanes
 * of the even CTA's D, words 4 .. 7 of the odd CTA's (the emulator's reading; the ISA names the
 * vector's eight words but draws their mapping only in its figures). */
static int tc5_mma_pair(struct warp *w, uint32_t pc, unsigned l, const struct ir_opnd *O,
                        const struct tc5_insn *d, const struct tc5_form *fm, const uint32_t off[8],
                        const struct tc_mem *mr, const struct tc5_bsf *bsf)
{
    char msg[300];
    struct cta *pair[2];
    struct tc5_cta *tp[2];
    if (tc5_pair(w, pc, "tcgen05.mma", pair) || !(tp[0] = tc5_tm(w, pc, pair[0])) ||
        !(tp[1] = tc5_tm(w, pc, pair[1])))
        return -1;
    struct tc5_cta *t = w->cta->tm; /* the operands are gathered in the issuing CTA's buffers */
    const unsigned M = fm->M, N = fm->N, K = fm->K, H = N / 2, eb = tc5_bits(fm->ta);
    const unsigned KA = fm->po ? K / 2 : K; /* A's stored elements a row (.sp: half) */
    const unsigned so = fm->po ? 5 : 4;     /* block-scaled: [scale-A-tmem] (after idesc) */
    const bool wide = M == 256; /* Layout A; M = 128: Layout B */
    const unsigned dcols = wide ? N : H, rows = M / 2;
    const uint32_t da = (uint32_t)vm_addr(w, &O[0], l), dcol = da & 0xffff;
    const unsigned own = w->cta->rank & 1;
    for (unsigned v = 0; v < 2; v++)
        if ((da >> 16) != 0 || !tc5_allocated(tp[v], dcol, dcols)) {
            snprintf(msg, sizeof msg,
                     "tcgen05.mma.cta_group::2: D at tensor-memory address 0x%08x (columns %u .. "
                     "%u) is not inside an allocation of the CTA of rank %u (allocated %04x, a "
                     "bit per 32 of 512 columns) or its lane is not 0",
                     da, dcol, dcol + dcols - 1, pair[v]->rank, tp[v]->alloc);
            tc5_fault(w, pc, l, msg);
            return -1;
        }
    uint32_t f[4];
    unsigned W;
    if (tc5_desc(w, pc, l, vm_get(w, &O[2], l), "tcgen05.mma: matrix B", f, &W))
        return -1;
    const bool atm = O[1].kind == OPK_ADDR;
    uint32_t acol = 0;
    if (atm) {
        const uint32_t aa = (uint32_t)vm_addr(w, &O[1], l);
        acol = aa & 0xffff;
        for (unsigned v = 0; v < 2; v++)
            if ((aa >> 16) != 0 || !tc5_allocated(tp[v], acol, KA * eb / 32)) {
                snprintf(msg, sizeof msg,
                         "tcgen05.mma.cta_group::2: A at tensor-memory address 0x%08x (columns "
                         "%u .. %u) is not inside an allocation of the CTA of rank %u (allocated "
                         "%04x) or its lane is not 0",
                         aa, acol, acol + KA * eb / 32 - 1, pair[v]->rank, tp[v]->alloc);
                tc5_fault(w, pc, l, msg);
                return -1;
            }
    }
    uint32_t fa[4];
    unsigned WA = 0;
    if (!atm && tc5_desc(w, pc, l, vm_get(w, &O[1], l), "tcgen05.mma: matrix A", fa, &WA))
        return -1;
    for (unsigned v = 0; v < 2; v++) {
        struct tc5_cta *tv = tp[v];
        /* B: columns u N/2 .. from CTA u's shared memory (again for each CTA when each scales
         * it with its own scale factors) */
        if (v == 0 || bsf)
            for (unsigned u = 0; u < 2; u++)
                if (tc5_gather(w, pc, l, f, W, fm->mnB, H, K, fm->tb, fm->negB, t->B + u * H * K,
                               'B', u == own && v == 0 ? mr : NULL, pair[u]))
                    return -1;
        if (bsf && tc5_scale_pair(w, pc, l, tv, (uint32_t)vm_addr(w, &O[so + 1], l), bsf->idb, N, K,
                                  d->svec, wide ? 0 : H, bsf->ue8, t->B, 'B', pair[v]->rank))
            return -1;
        /* A, as 128 rows: the row each lane of D multiplies */
        if (atm) {
            for (unsigned ln = 0; ln < TM_LANES; ln++)
                for (unsigned k = 0; k < KA; k++) {
                    const double x = tc5_val(fm->ta, tc5_tmem_elem(&tv->cell[ln][acol], fm->ta, k));
                    t->A[ln * KA + k] = fm->negA ? -x : x;
                }
        } else if (tc5_gather(w, pc, l, fa, WA, fm->mnA, rows, KA, fm->ta, fm->negA, t->A, 'A',
                              v == own ? mr : NULL, pair[v]))
            return -1;
        /* .sp (M = 256): the CTA's 128 rows expanded by the metadata in its own tensor memory,
         * laid out as .cta_group::1's M = 128 (CUTLASS's 2x1SM sparse atoms use tmem_e_frg for
         * each CTA's half) */
        if (fm->po && tc5_sparse(w, pc, l, tv, (uint32_t)vm_addr(w, &O[fm->po], l), 0, fm->sel, eb,
                                 rows, K, t->A))
            return -1;
        /* A's scale factors: rows 0 .. M/2 - 1 of this CTA (its lanes 64 + i: row i's) */
        if (bsf && tc5_scale_pair(w, pc, l, tv, (uint32_t)vm_addr(w, &O[so], l), bsf->ida, rows, K,
                                  d->svec, 0, bsf->ue8, t->A, 'A', pair[v]->rank))
            return -1;
        if (bsf && atm && !wide && tc5_scale_pair(w, pc, l, tv, (uint32_t)vm_addr(w, &O[so], l),
                                                  bsf->ida, rows, K, d->svec, 0, bsf->ue8,
                                                  t->A + 64 * K, 'A', pair[v]->rank))
            return -1;
        if (!atm && !wide) /* lanes 64 + i multiply row i too */
            memcpy(t->A + 64 * K, t->A, 64 * K * sizeof t->A[0]);
        for (unsigned ln = 0; ln < TM_LANES; ln++) {
            if (off[4 * v + ln / 32] >> (ln % 32) & 1)
                continue; /* disable-output-lane: this lane of D keeps its value */
            for (unsigned jj = 0; jj < dcols; jj++) {
                const unsigned j = wide ? jj : jj + H * (ln / 64);
                tc5_dot(&tv->cell[ln][dcol + jj], &t->A[ln * K], &t->B[j * K], fm, d->kind_i8);
            }
        }
        tv->dirty = true;
    }
    return 0;
}

/* One tcgen05.mma of lane l. */
/* M and N of instruction descriptor id (bits 24-28: M >> 4, bits 17-22: N >> 3). */
static inline unsigned tc5_idesc_m(uint32_t id) { return (id >> 24 & 31) << 4; }
static inline unsigned tc5_idesc_n(uint32_t id) { return (id >> 17 & 63) << 3; }

static int tc5_mma(struct warp *w, uint32_t pc, unsigned l, const struct ir_insn *in,
                   const struct ir_opnd *O, const struct tc5_insn *d, struct tc5_cta *t,
                   const struct tc_mem *mr)
{
    char msg[240];
    struct tc5_mops p;
    tc5_mma_opnds(in, O, d->bscale, &p); /* checked at load */
    const unsigned mo = p.mo, eo = p.eo, zo = p.zo;
    const int sc = p.sc;
    const bool sp = p.po != 0; /* sparse A (.sp): 2:4 (1:2 tf32, 4:8 in pairs for the 4-bit
                                  kinds) with metadata in tensor memory */
    const uint32_t da = (uint32_t)vm_addr(w, &O[0], l);
    const uint32_t id = (uint32_t)vm_get(w, &O[p.io], l);
    const bool acc = (O[eo].kind == OPK_IMM ? O[eo].imm.i : (int64_t)vm_get(w, &O[eo], l)) != 0;
    uint32_t off[8] = {0}; /* disable-output-lane: bit L % 32 of word L / 32 (.cta_group::2:
                              words 4 .. 7 for the pair's odd CTA) */
    for (unsigned k = 0; mo && k < (d->cta2 ? 8u : 4u); k++) {
        const struct ir_opnd e = vm_elem(w->fn, &O[mo], k);
        off[k] = (uint32_t)vm_get(w, &e, l);
    }
    const bool bs = d->bscale; /* block-scaled: bits 4-5 and 29-30 the scale-factor IDs */
    const unsigned dt = bs ? 1 : id >> 4 & 3, at = id >> 7 & 7, bt = id >> 10 & 7;
    const unsigned N = tc5_idesc_n(id), M = tc5_idesc_m(id);
    const bool negA = id >> 13 & 1, negB = id >> 14 & 1, mnA = id >> 15 & 1, mnB = id >> 16 & 1;
    const bool satf = !bs && id >> 3 & 1;
    const unsigned sfa_id = id >> 29 & 3, sfb_id = id >> 4 & 3;
    const bool ue8 = id >> 23 & 1; /* block-scaled: 1 ue8m0, 0 ue4m3 scale factors */
    /* D f16 (code 0) with .kind::f16 and .kind::f8f6f4 */
    const bool f16d = dt == 0 && (d->kind_f16 || d->kind_f8f6f4);
    /* the element types of the .kind's codes (0 where the code is not implemented) */
    static const unsigned f16t[8] = {T_F16, T_BF16},
                          f8t[8] = {T_E4M3, T_E5M2, 0, T_E2M3, T_E3M2, T_E2M1},
                          i8t[8] = {T_U8, T_S8}, mx4t[8] = {0, T_E2M1X2};
    const unsigned *codes = d->kind_f16                      ? f16t
                            : d->kind_f8f6f4 || d->kind_mx8  ? f8t
                            : d->kind_mx4 || d->kind_nv4     ? mx4t
                                                             : i8t;
    const unsigned ta = d->kind_tf32 ? (at == 2 ? T_TF32 : 0) : codes[at];
    const unsigned tb = d->kind_tf32 ? (bt == 2 ? T_TF32 : 0) : codes[bt];
    const char *bad = NULL;
    if (!sp && id & 4)
        bad = "the sparsity bit is set (a dense tcgen05.mma)";
    else if (sp && !(id & 4))
        bad = "the sparsity bit (2) is clear (tcgen05.mma.sp)";
    else if (sp && (id & 2 || (id & 1 && !d->kind_f16 && !d->kind_tf32)))
        bad = "a sparsity selector (bits 0-1) not 0 (or 1 with .kind::f16 / .kind::tf32)";

    else if (d->kind_i8 ? dt != 2 : d->kind_tf32 ? dt != 1 : dt > 1)
        bad = "D type not of the .kind (f32; also f16 for .kind::f16 / f8f6f4; s32 for i8)";
    else if (!ta || !tb || (d->kind_f16 && tb != ta))
        bad = bs && !d->kind_mx8 ? "A / B types not e2m1 (code 1) for the 4-bit kinds"
                                 : "A / B types not of the .kind";
    else if (f16d && d->kind_f16 && ta != T_F16)
        bad = "f16 D with bf16 A and B (the ISA's shapes have f16 D with f16 inputs only)";
    else if (d->kind_i8 && (negA || negB))
        bad = "negation with .kind::i8";
    else if (satf && !d->kind_i8)
        bad = "saturation outside .kind::i8";
    else if (bs && id >> 31)
        bad = d->kind_mx8 ? "bit 31 (the K size) set: .kind::mxf8f6f4 has K = 32"
                          : "K = 96 (bit 31, sm_103a) is not implemented";
    else if (bs && !ue8 && !(d->kind_nv4 && d->svec == 4))
        bad = "ue4m3 scale factors (bit 23 clear) outside .kind::mxf4nvf4 .scale_vec::4X "
              "(.block16)";
    else if (bs && ((d->svec == 2 && (sfa_id | sfb_id) & 1) || (d->svec == 4 && (sfa_id | sfb_id))))
        bad = "a scale-factor ID (bits 29-30 A, 4-5 B) not 0 or 2 with .scale_vec::2X, not 0 "
              "with .scale_vec::4X";
    else if (bs && !d->cta2 && M != 128)
        bad = "M not 128 (the block-scaled .cta_group::1 shape)";
    else if (d->cta2 ? M != 128 && M != 256
             : d->ws ? M != 128 && M != 64 && M != 32 : M != 128 && M != 64)
        bad = d->cta2 ? "M not 128 or 256 (.cta_group::2)"
              : d->ws ? "M not 32, 64 or 128 (.ws)"
                      : "M not 64 or 128";
    else if (d->ws && sp && M < 128 && O[1].kind == OPK_ADDR)
        bad = "A in tensor memory with .ws.sp and M < 128 (its lanes are not implemented)";
    else if (d->cta2 && (N < 16 || N % 16))
        bad = "N not 16 .. 256 in steps of 16 (.cta_group::2)";
    else if (d->ws && N != 64 && N != 128 && N != 256)
        bad = "N not 64, 128 or 256 (.ws)";
    else if (d->kind_i8 ? !(N == 8 || N == 16 || N == 24 || (N % 16 == 0 && N >= 32 && N <= 256))
                        : N < 8 || N > 256 || N % 8)
        bad = d->kind_i8 ? "N not 8, 16, 24 or 32 .. 256 in steps of 16 (.kind::i8)"
                         : "N not 8 .. 256 in steps of 8";
    else if (sp && !d->ws && M != (d->cta2 ? 256u : 128u))
        bad = d->cta2 ? "M not 256 (.cta_group::2 sparse: M = 128's Layout C with its metadata "
                        "is not implemented)"
                      : "M not 128 (the sparse metadata layouts of M = 64 are not implemented)";
    else if (sp && N % 16)
        bad = "N not 16 .. 256 in steps of 16 (sparse)";
    if (bad) {
        snprintf(msg, sizeof msg, "tcgen05.mma: instruction descriptor 0x%08x: %s", id, bad);
        interp_fault(w, pc, l, TRAP_ILLEGAL, 0, 0, 0, false, msg);
        return -1;
    }
    const unsigned eb = tc5_bits(ta), K = (256 / eb) << sp; /* .sp: twice K, half stored */
    const unsigned KA = K >> sp; /* A's stored elements per row */
    const struct tc5_form fm = {M,    N,    K,   ta,  tb,   negA, negB,  mnA,
                                mnB,  satf, f16d, acc, sc, p.po, id & 1};
    if (d->cta2)
        return tc5_mma_pair(w, pc, l, O, d, &fm, off, mr,
                            bs ? (struct tc5_bsf[1]){{sfa_id, sfb_id, ue8}} : NULL);
    const uint32_t dcol = da & 0xffff, l0 = da >> 16;
    /* .ws with M = 64 / 32 (CUTLASS tmem_frg_ws, the "2x2" / "1x4" data paths): row i, column
       j of D in lane i + M (j / nc), column j % nc, nc = N M / 128 columns */
    const bool wsp = d->ws && M < 128;
    const unsigned nc = wsp ? N * M / 128 : N;
    if ((M == 128 || wsp ? l0 != 0 : l0 != 0 && l0 != 16) || !tc5_allocated(t, dcol, nc)) {
        snprintf(msg, sizeof msg,
                 "tcgen05.mma: D at tensor-memory address 0x%08x (columns %u .. %u) is not inside "
                 "an allocation (allocated %04x, a bit per 32 of 512 columns) or its lane is not "
                 "%s",
                 da, dcol, dcol + nc - 1, t->alloc,
                 M == 128 || wsp ? "0" : "0 or 16 (M = 64)");
        tc5_fault(w, pc, l, msg);
        return -1;
    }
    /* A */
    if (O[1].kind == OPK_ADDR) {
        const uint32_t aa = (uint32_t)vm_addr(w, &O[1], l), acol = aa & 0xffff;
        const unsigned ncol = KA * eb / 32;
        if ((aa >> 16) != l0 || !tc5_allocated(t, acol, ncol)) {
            snprintf(msg, sizeof msg,
                     "tcgen05.mma: A at tensor-memory address 0x%08x (columns %u .. %u) is not "
                     "inside an allocation (allocated %04x) or its lane is not D's (%u)",
                     aa, acol, acol + ncol - 1, t->alloc, l0);
            tc5_fault(w, pc, l, msg);
            return -1;
        }
        for (unsigned i = 0; i < M; i++)
            for (unsigned k = 0; k < KA; k++) {
                const uint32_t *row = &t->cell[wsp ? i : tc5_row_lane(M, l0, i)][acol];
                const double v = tc5_val(ta, tc5_tmem_elem(row, ta, k));
                t->A[i * KA + k] = negA ? -v : v;
            }
        /* .ws with M = 64 / 32: each lane group of the 2x2 / 1x4 data path (lanes M g ..
           M g + M - 1, the ones holding its columns of D) holds a copy of A (CUTLASS-derived
           kernels write it "duplicated"); copies that differ are not implemented (the ISA draws
           these layouts only in figures) */
        for (unsigned g = 1; wsp && g < 128 / M; g++)
            for (unsigned i = 0; i < M; i++)
                for (unsigned k = 0; k < KA; k++)
                    if (tc5_tmem_elem(&t->cell[g * M + i][acol], ta, k) !=
                        tc5_tmem_elem(&t->cell[i][acol], ta, k)) {
                        snprintf(msg, sizeof msg,
                                 "tcgen05.mma.ws: A in tensor memory at 0x%08x (M = %u): element "
                                 "%u of lane %u differs from lane %u's, its copy for the data "
                                 "path's lanes %u .. %u (each group of M lanes holds a copy of A; "
                                 "copies that differ are not implemented)",
                                 aa, M, k, g * M + i, i, g * M, g * M + M - 1);
                        tc5_fault(w, pc, l, msg);
                        return -1;
                    }
    } else {
        uint32_t f[4];
        unsigned W;
        if (tc5_desc(w, pc, l, vm_get(w, &O[1], l), "tcgen05.mma: matrix A", f, &W) ||
            tc5_gather(w, pc, l, f, W, mnA, M, KA, ta, negA, t->A, 'A', mr, w->cta))
            return -1;
    }
    if (sp && tc5_sparse(w, pc, l, t, (uint32_t)vm_addr(w, &O[p.po], l), l0, id & 1, eb, M, K,
                         t->A))
        return -1;
    /* the zero-column mask (.ws): column j of the MMA is column j + shift of B, or zeros */
    uint64_t zmask[4] = {0, 0, 0, 0};
    unsigned shift = 0;
    if (zo && tc5_zero_mask(w, pc, l, vm_get(w, &O[zo], l), N, M, zmask, &shift))
        return -1;
    /* B, as N (+ shift) rows of K */
    uint32_t f[4];
    unsigned W;
    if (tc5_desc(w, pc, l, vm_get(w, &O[2], l), "tcgen05.mma: matrix B", f, &W) ||
        tc5_gather(w, pc, l, f, W, mnB, N + shift, K, tb, negB, t->B, 'B', mr, w->cta))
        return -1;
    if (shift)
        memmove(t->B, t->B + shift * K, (size_t)N * K * sizeof t->B[0]);
    if (bs && (tc5_scale(w, pc, l, t, (uint32_t)vm_addr(w, &O[p.so], l), sfa_id, M, K, d->svec,
                         ue8, t->A, 'A') ||
               tc5_scale(w, pc, l, t, (uint32_t)vm_addr(w, &O[p.so + 1], l), sfb_id, N, K,
                         d->svec, ue8, t->B, 'B')))
        return -1;
    for (unsigned j = 0; j < N; j++)
        if (zmask[j / 64] >> (j % 64) & 1)
            memset(t->B + j * K, 0, K * sizeof t->B[0]);
    if (wsp) { /* .ws, M = 64 / 32 (no disable-output-lane operand) */
        for (unsigned i = 0; i < M; i++)
            for (unsigned j = 0; j < N; j++)
                tc5_dot(&t->cell[i + M * (j / nc)][dcol + j % nc], &t->A[i * K], &t->B[j * K],
                        &fm, d->kind_i8);
        t->dirty = true;
        return 0;
    }
    for (unsigned i = 0; i < M; i++) {
        const unsigned ln = tc5_row_lane(M, l0, i);
        if (off[ln / 32] >> (ln % 32) & 1)
            continue; /* disable-output-lane: this lane of D keeps its value */
        for (unsigned j = 0; j < N; j++)
            tc5_dot(&t->cell[ln][dcol + j], &t->A[i * K], &t->B[j * K], &fm, d->kind_i8);
    }
    t->dirty = true;
    return 0;
}

/* ---------------------------------------------------------------------- cp, shift */

/* One tcgen05.cp of lane l: the source matrix (rows of 16-byte chunks in the descriptor's
 * canonical K-major layout) into tensor memory, row r at lane taddr.lane + the row's lane,
 * its chunks at columns taddr.col + 4 k .. + 3; with multicast each row goes to two or four
 * lanes 32 apart. */
static int tc5_cp(struct warp *w, uint32_t pc, unsigned l, const struct ir_opnd *O,
                  const struct tc5_insn *d, struct tc5_cta *t, const struct tc_mem *mr,
                  const struct cta *c)
{
    char msg[240];
    const uint32_t a = (uint32_t)vm_addr(w, &O[0], l), lane0 = a >> 16, col = a & 0xffff;
    /* lanes one row reaches: row r of the copy goes to lanes lane0 + rl(r) + 32 i, i < ncopy */
    const unsigned ncopy = d->mcast == 4 ? 4 : d->mcast ? 2 : 1;
    const unsigned nlanes = d->mcast ? 128 : d->cp_rows;
    if (lane0 + nlanes > TM_LANES || !tc5_allocated(t, col, d->cp_cols)) {
        snprintf(msg, sizeof msg,
                 "tcgen05.cp: destination at tensor-memory address 0x%08x (lanes %u .. %u, "
                 "columns %u .. %u) is not inside the tensor memory's 128 lanes and an "
                 "allocation (allocated %04x, a bit per 32 of 512 columns)",
                 a, lane0, lane0 + nlanes - 1, col, col + d->cp_cols - 1, t->alloc);
        tc5_fault(w, pc, l, msg);
        return -1;
    }
    uint32_t f[4];
    unsigned W;
    if (tc5_desc(w, pc, l, vm_get(w, &O[1], l), "tcgen05.cp: source", f, &W))
        return -1;
    for (unsigned r = 0; r < d->cp_rows; r++)
        for (unsigned k = 0; k < d->cp_cols / 4; k++) {
            const uint32_t sa = wgmma_chunk_addr(f[0], f[1], f[2], f[3], W, false, r, k);
            if ((uint64_t)sa + 16 > c->shared_size) {
                snprintf(msg, sizeof msg,
                         "tcgen05.cp: the source reaches shared bytes %u..%u, past the CTA's %u",
                         sa, sa + 15, c->shared_size);
                interp_fault(w, pc, l, TRAP_OOB, sa, 16, SP_SHARED, false, msg);
                return -1;
            }
            const uint8_t *p = c->shared + sa;
            if (mr)
                mr->fn(mr->ctx, l, sa, 16, false, SP_SHARED, p);
            uint8_t x[16];
            if (d->decomp) { /* 16 packed values, LSB first, into 8-bit containers */
                const unsigned vw = d->decomp;
                for (unsigned e = 0; e < 16; e++) {
                    const unsigned bit = e * vw;
                    const unsigned v = (unsigned)(p[bit / 8] | p[bit / 8 + 1] << 8) >> (bit % 8) &
                                       ((1u << vw) - 1);
                    x[e] = (uint8_t)(vw == 4 ? v << 2 : v);
                }
                p = x;
            }
            for (unsigned i = 0; i < ncopy; i++) {
                /* .warpx4: row r to every warp's lane r; .warpx2::02_13: rows 0 .. 31 to
                 * warps 0 and 2, 32 .. 63 to warps 1 and 3; ::01_23: to warps 0, 1 / 2, 3 */
                const unsigned ln = d->mcast == 4   ? 32 * i + r
                                    : d->mcast == 2 ? 32 * (r / 32) + 64 * i + r % 32
                                    : d->mcast == 1 ? 64 * (r / 32) + 32 * i + r % 32
                                                    : r;
                memcpy(&t->cell[lane0 + ln][col + 4 * k], p, 16);
            }
        }
    t->dirty = true;
    return 0;
}

/* tcgen05.shift.down of lane l: the 32-lane group from taddr.lane (a multiple of 32) moves
 * its rows of 256 bits (8 columns from taddr.col) down one lane: lane + 30 .. lane to
 * lane + 31 .. lane + 1, lane taddr.lane keeping its row. */
static int tc5_shift(struct warp *w, uint32_t pc, unsigned l, const struct ir_opnd *O,
                     struct tc5_cta *t)
{
    const uint32_t a = (uint32_t)vm_addr(w, &O[0], l), lane0 = a >> 16, col = a & 0xffff;
    if (lane0 % 32 || lane0 >= TM_LANES || !tc5_allocated(t, col, 8)) {
        char msg[240];
        snprintf(msg, sizeof msg,
                 "tcgen05.shift: tensor-memory address 0x%08x: its lane must be a multiple of "
                 "32 below 128 and columns %u .. %u allocated (allocated %04x, a bit per 32 of "
                 "512 columns)",
                 a, col, col + 7, t->alloc);
        tc5_fault(w, pc, l, msg);
        return -1;
    }
    for (unsigned r = 31; r >= 1; r--)
        memcpy(&t->cell[lane0 + r][col], &t->cell[lane0 + r - 1][col], 8 * sizeof(uint32_t));
    t->dirty = true;
    return 0;
}

/* tcgen05.commit of lane l: the MMAs, copies and shifts before it have completed, so it
 * arrives once at once on its mbarrier or, with .multicast::cluster, on the mbarrier at the
 * same offset in the shared memory of each CTA whose %cluster_ctarank bit is set in the low
 * 16 bits of ctaMask (in rank order; a rank outside the cluster is a fault). */
static int tc5_commit(struct warp *w, uint32_t pc, unsigned l, const struct ir_opnd *O,
                      const struct tc5_insn *d, const struct tc_mem *mr)
{
    const unsigned xs = vm_xs(w, &O[0]);
    const uint64_t ad = vm_addr(w, &O[0], l);
    if (!d->mcast_cluster)
        return async_arrive_one(w, pc, l, xs, ad, "tcgen05.commit", mr);
    const uint32_t mask = (uint32_t)vm_get(w, &O[1], l) & 0xffffu;
    for (unsigned r = 0; r < 16; r++) {
        if (!(mask >> r & 1))
            continue;
        uint64_t to;
        char why[128], msg[240];
        if (cluster_mapa(w, ad, r, xs == XS_GENERIC, &to, why, sizeof why)) {
            snprintf(msg, sizeof msg, "tcgen05.commit .multicast::cluster, ctaMask 0x%04x: %s",
                     mask, why);
            interp_fault(w, pc, l, TRAP_ILLEGAL, ad, 8, vm_xs_space(xs, ad), true, msg);
            return -1;
        }
        if (async_arrive_one(w, pc, l, xs, to, "tcgen05.commit", mr))
            return -1;
    }
    return 0;
}

/* See tensor.h. */
int tcgen05_exec(struct warp *w, uint32_t pc, uint32_t M, const struct ir_insn *in,
                 const struct ir_opnd *O, const struct tc_mem *mr)
{
    struct cta *c = w->cta;
    struct tc5_insn d;
    tc5_decode(w->fn->f, in, &d);
    switch (in->op) {
    case OP_TCGEN05_FENCE_BEFORE:
    case OP_TCGEN05_FENCE_AFTER: return 0;
    case OP_TCGEN05_COMMIT:
        for (unsigned l = 0; l < 32; l++)
            if (M >> l & 1 && tc5_commit(w, pc, l, O, &d, mr))
                return -1;
        return 0;
    default: break;
    }
    if (in->op != OP_TCGEN05_MMA && in->op != OP_TCGEN05_MMA_WS && in->op != OP_TCGEN05_MMA_SP &&
        in->op != OP_TCGEN05_MMA_WS_SP && in->op != OP_TCGEN05_CP &&
        in->op != OP_TCGEN05_SHIFT &&
        tc5_whole_warp(w, pc, M, in))
        return -1;
    if (in->op == OP_TCGEN05_WAIT_LD || in->op == OP_TCGEN05_WAIT_ST)
        return 0;
    struct tc5_cta *t = tc5_tm(w, pc, c);
    if (!t)
        return -1;
    switch (in->op) {
    case OP_TCGEN05_ALLOC: return tc5_alloc(w, pc, O, t, mr, d.cta2);
    case OP_TCGEN05_DEALLOC: return tc5_dealloc(w, pc, O, t);
    case OP_TCGEN05_RELINQUISH_ALLOC_PERMIT: t->relinquished = true; return 0;
    case OP_TCGEN05_LD:
    case OP_TCGEN05_LD_RED:
    case OP_TCGEN05_ST: return tc5_ldst(w, pc, in, O, t, &d);
    case OP_TCGEN05_MMA:
    case OP_TCGEN05_MMA_WS:
    case OP_TCGEN05_MMA_SP:
    case OP_TCGEN05_MMA_WS_SP:
        d.ws = in->op == OP_TCGEN05_MMA_WS || in->op == OP_TCGEN05_MMA_WS_SP;
        for (unsigned l = 0; l < 32; l++)
            if (M >> l & 1 && tc5_mma(w, pc, l, in, O, &d, t, mr))
                return -1;
        return 0;
    case OP_TCGEN05_CP:
    case OP_TCGEN05_SHIFT: {
        /* .cta_group::2: into the tensor memory of both CTAs of the pair, each CTA's copy from
         * its own shared memory at the descriptor's offsets (see the file comment) */
        struct cta *pair[2] = {c, NULL};
        struct tc5_cta *tp[2] = {t, NULL};
        if (d.cta2 && (tc5_pair(w, pc, tc5_name(in), pair) ||
                       !(tp[0] = tc5_tm(w, pc, pair[0])) || !(tp[1] = tc5_tm(w, pc, pair[1]))))
            return -1;
        for (unsigned l = 0; l < 32; l++)
            for (unsigned v = 0; v < 1u + d.cta2; v++)
                if (M >> l & 1 &&
                    (in->op == OP_TCGEN05_CP
                         ? tc5_cp(w, pc, l, O, &d, tp[v], pair[v] == c ? mr : NULL, pair[v])
                         : tc5_shift(w, pc, l, O, tp[v])))
                    return -1;
        return 0;
    }
    default:
        interp_fault(w, pc, 0, TRAP_ILLEGAL, 0, 0, 0, false, "tcgen05: not implemented");
        return -1;
    }
}

/* See tensor.h. */
bool tcgen05_work(const struct warp *w, const struct ir_func *f, uint32_t M,
                  const struct ir_insn *in, const struct ir_opnd *O, struct tensor_work *o)
{
    struct tc5_insn d;
    memset(o, 0, sizeof *o);
    switch (in->op) {
    case OP_TCGEN05_CP:
        tc5_decode(f, in, &d);
        o->bytes = (uint32_t)__builtin_popcount(M) * d.cp_rows * d.cp_cols * 4;
        o->pair = d.cta2;
        return true;
    case OP_TCGEN05_SHIFT:
        tc5_decode(f, in, &d);
        o->pair = d.cta2;
        return true;
    case OP_TCGEN05_MMA: case OP_TCGEN05_MMA_WS: case OP_TCGEN05_MMA_SP:
    case OP_TCGEN05_MMA_WS_SP:
        break;
    default:
        return false;
    }
    tc5_decode(f, in, &d);
    struct tc5_mops p;
    if (!tc5_mma_opnds(in, O, d.bscale, &p))
        return true;
    /* K of one instruction (the dense one; a sparse one does twice that K at the same work) */
    const unsigned K = d.kind_tf32 ? 8 : d.kind_f16 ? 16 : d.kind_mx4 || d.kind_nv4 ? 64 : 32;
    o->pair = d.cta2;
    for (unsigned l = 0; l < 32; l++) {
        if (!(M >> l & 1))
            continue;
        const uint32_t id = (uint32_t)vm_get(w, &O[p.io], l);
        o->macs += (uint64_t)tc5_idesc_m(id) * tc5_idesc_n(id) * K;
        if (d.kind_f16) /* D f16 (code 0) with f16 A (code 0) */
            o->cls = (id >> 4 & 3) == 0 && (id >> 7 & 7) == 0 ? ENGINE_TC_F16ACC : ENGINE_TC_F16;
    }
    if (!d.kind_f16)
        o->cls = d.kind_tf32                     ? ENGINE_TC_TF32
                 : d.kind_i8                     ? ENGINE_TC_I8
                 : d.kind_mx4 || d.kind_nv4      ? ENGINE_TC_F4
                                                 : ENGINE_TC_F8;
    return true;
}
