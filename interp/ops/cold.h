/*
 * interp/ops/cold.h — the handlers the fast loops (exec_loop.h) run out of line: rows
 * `#define EXEC_COLD_NAME ~, 1` for handler HND_NAME of interp/ops/FAMILY.inc.
 *
 * The fast loop is one function holding every handler body; compiling it is superlinear in its
 * size (GCC's dataflow over the whole function), and the two instantiations (exec.c, exec_v3.c)
 * are what an edit of interp/ops/ waits for. A cold handler's body stays where it is, in its
 * .inc file; in the fast loops its case jumps to one call of exec_slow.c's out-of-line copy of
 * the same body (exec_cold_run), so it computes the same results, a call slower. Cold here:
 * what nvcc emits rarely or never for the kinds of kernels the benchmark (tests/bench) stands
 * for. A handler missing from this list is inline, one listed that does not exist is ignored:
 * the list changes compile time and speed, never results.
 *
 * Out of line, these took the portable loop's compile (exec.o) from 82 to 22 CPU seconds and
 * the x86-64-v3 loop's (exec_v3.o) from 88 to 22 (gcc 12 -O2, 2026-11-26): an edit of
 * interp/ops/ rebuilds the release build in 77 CPU seconds instead of 206.
 */
#ifndef PTXEMU_INTERP_OPS_COLD_H
#define PTXEMU_INTERP_OPS_COLD_H

/* f32 arithmetic with directed rounding (.rz .rm .rp; fma stays inline: fma.rm.f32 is in the bench) */
#define EXEC_COLD_ADD_F32_RZ ~, 1
#define EXEC_COLD_ADD_F32_RM ~, 1
#define EXEC_COLD_ADD_F32_RP ~, 1
#define EXEC_COLD_ADD_F32_RZ_FTZ ~, 1
#define EXEC_COLD_ADD_F32_RM_FTZ ~, 1
#define EXEC_COLD_ADD_F32_RP_FTZ ~, 1
#define EXEC_COLD_SUB_F32_RZ ~, 1
#define EXEC_COLD_SUB_F32_RM ~, 1
#define EXEC_COLD_SUB_F32_RP ~, 1
#define EXEC_COLD_SUB_F32_RZ_FTZ ~, 1
#define EXEC_COLD_SUB_F32_RM_FTZ ~, 1
#define EXEC_COLD_SUB_F32_RP_FTZ ~, 1
#define EXEC_COLD_MUL_F32_RZ ~, 1
#define EXEC_COLD_MUL_F32_RM ~, 1
#define EXEC_COLD_MUL_F32_RP ~, 1
#define EXEC_COLD_MUL_F32_RZ_FTZ ~, 1
#define EXEC_COLD_MUL_F32_RM_FTZ ~, 1
#define EXEC_COLD_MUL_F32_RP_FTZ ~, 1
#define EXEC_COLD_F32X2 ~, 1 /* sm_100 packed f32 pairs */
#define EXEC_COLD_DIV_F32_RZ ~, 1
#define EXEC_COLD_DIV_F32_RM ~, 1
#define EXEC_COLD_DIV_F32_RP ~, 1
#define EXEC_COLD_DIV_F32_RZ_FTZ ~, 1
#define EXEC_COLD_DIV_F32_RM_FTZ ~, 1
#define EXEC_COLD_DIV_F32_RP_FTZ ~, 1
#define EXEC_COLD_RCP_F32_RZ ~, 1
#define EXEC_COLD_RCP_F32_RM ~, 1
#define EXEC_COLD_RCP_F32_RP ~, 1
#define EXEC_COLD_RCP_F32_RZ_FTZ ~, 1
#define EXEC_COLD_RCP_F32_RM_FTZ ~, 1
#define EXEC_COLD_RCP_F32_RP_FTZ ~, 1
#define EXEC_COLD_SQRT_F32_RZ ~, 1
#define EXEC_COLD_SQRT_F32_RM ~, 1
#define EXEC_COLD_SQRT_F32_RP ~, 1
#define EXEC_COLD_SQRT_F32_RZ_FTZ ~, 1
#define EXEC_COLD_SQRT_F32_RM_FTZ ~, 1
#define EXEC_COLD_SQRT_F32_RP_FTZ ~, 1

/* sm_100 mixed-precision f32 add / sub / fma of f16 / bf16 sources; the sm_100a fp4 / fp6 /
 * ue8m0 and .rs stochastic-rounding conversions (interp/ops/cvt.inc) */
#define EXEC_COLD_MIXED_F32 ~, 1
#define EXEC_COLD_CVT_F4F6X2_F32 ~, 1
#define EXEC_COLD_CVT_F4X2_F16X2 ~, 1
#define EXEC_COLD_CVT_F16X2_F4F6X2 ~, 1
#define EXEC_COLD_CVT_UE8X2_F32 ~, 1
#define EXEC_COLD_CVT_UE8X2_BF16X2 ~, 1
#define EXEC_COLD_CVT_BF16X2_UE8X2 ~, 1
#define EXEC_COLD_CVT_RS_H16X2 ~, 1
#define EXEC_COLD_CVT_RS_X4 ~, 1

/* f64 arithmetic with directed rounding */
#define EXEC_COLD_ADD_F64_RZ ~, 1
#define EXEC_COLD_ADD_F64_RM ~, 1
#define EXEC_COLD_ADD_F64_RP ~, 1
#define EXEC_COLD_SUB_F64_RZ ~, 1
#define EXEC_COLD_SUB_F64_RM ~, 1
#define EXEC_COLD_SUB_F64_RP ~, 1
#define EXEC_COLD_MUL_F64_RZ ~, 1
#define EXEC_COLD_MUL_F64_RM ~, 1
#define EXEC_COLD_MUL_F64_RP ~, 1
#define EXEC_COLD_DIV_F64_RZ ~, 1
#define EXEC_COLD_DIV_F64_RM ~, 1
#define EXEC_COLD_DIV_F64_RP ~, 1
#define EXEC_COLD_RCP_F64_RZ ~, 1
#define EXEC_COLD_RCP_F64_RM ~, 1
#define EXEC_COLD_RCP_F64_RP ~, 1
#define EXEC_COLD_SQRT_F64_RZ ~, 1
#define EXEC_COLD_SQRT_F64_RM ~, 1
#define EXEC_COLD_SQRT_F64_RP ~, 1

/* 16-bit integer arithmetic, logic, shifts and comparisons (mov/selp/slct of 16 bits stay inline) */
#define EXEC_COLD_ADDSUB_16X2 ~, 1
#define EXEC_COLD_ADD_16 ~, 1
#define EXEC_COLD_SUB_16 ~, 1
#define EXEC_COLD_MUL_HI_U16 ~, 1
#define EXEC_COLD_MUL_HI_S16 ~, 1
#define EXEC_COLD_MUL_WIDE_U16 ~, 1
#define EXEC_COLD_MUL_WIDE_S16 ~, 1
#define EXEC_COLD_MUL_LO_16 ~, 1
#define EXEC_COLD_MAD_HI_U16 ~, 1
#define EXEC_COLD_MAD_HI_S16 ~, 1
#define EXEC_COLD_MAD_WIDE_U16 ~, 1
#define EXEC_COLD_MAD_WIDE_S16 ~, 1
#define EXEC_COLD_MAD_LO_16 ~, 1
#define EXEC_COLD_SAD_U16 ~, 1
#define EXEC_COLD_SAD_S16 ~, 1
#define EXEC_COLD_DIV_U16 ~, 1
#define EXEC_COLD_DIV_S16 ~, 1
#define EXEC_COLD_REM_U16 ~, 1
#define EXEC_COLD_REM_S16 ~, 1
#define EXEC_COLD_ABS_S16 ~, 1
#define EXEC_COLD_NEG_S16 ~, 1
#define EXEC_COLD_MIN_U16 ~, 1
#define EXEC_COLD_MIN_S16 ~, 1
#define EXEC_COLD_MAX_U16 ~, 1
#define EXEC_COLD_MAX_S16 ~, 1
#define EXEC_COLD_MINMAX_16X2 ~, 1
#define EXEC_COLD_AND_16 ~, 1
#define EXEC_COLD_OR_16 ~, 1
#define EXEC_COLD_XOR_16 ~, 1
#define EXEC_COLD_NOT_16 ~, 1
#define EXEC_COLD_CNOT_16 ~, 1
#define EXEC_COLD_SHL_16 ~, 1
#define EXEC_COLD_SHR_S16 ~, 1
#define EXEC_COLD_SHR_U16 ~, 1
#define EXEC_COLD_SETP_S16 ~, 1
#define EXEC_COLD_SETP_U16 ~, 1
#define EXEC_COLD_SET_S16 ~, 1
#define EXEC_COLD_SET_U16 ~, 1

/* 24-bit multiplies, sad, dot products, video instructions */
#define EXEC_COLD_MUL24_HI_U32 ~, 1
#define EXEC_COLD_MUL24_HI_S32 ~, 1
#define EXEC_COLD_MUL24_LO_U32 ~, 1
#define EXEC_COLD_MUL24_LO_S32 ~, 1
#define EXEC_COLD_MAD24_HI_U32 ~, 1
#define EXEC_COLD_MAD24_HI_S32 ~, 1
#define EXEC_COLD_MAD24_HI_SAT_S32 ~, 1
#define EXEC_COLD_MAD24_LO_U32 ~, 1
#define EXEC_COLD_MAD24_LO_S32 ~, 1
#define EXEC_COLD_SAD_U32 ~, 1
#define EXEC_COLD_SAD_S32 ~, 1
#define EXEC_COLD_SAD_U64 ~, 1
#define EXEC_COLD_SAD_S64 ~, 1
#define EXEC_COLD_DP4A ~, 1
#define EXEC_COLD_DP2A ~, 1
#define EXEC_COLD_VIDEO ~, 1
#define EXEC_COLD_VIDEO_SIMD ~, 1

/* set (setp stays inline), testp, copysign */
#define EXEC_COLD_COPYSIGN_F32 ~, 1
#define EXEC_COLD_COPYSIGN_F64 ~, 1
#define EXEC_COLD_TESTP_F32 ~, 1
#define EXEC_COLD_TESTP_F64 ~, 1
#define EXEC_COLD_SET_S32 ~, 1
#define EXEC_COLD_SET_U32 ~, 1
#define EXEC_COLD_SET_S64 ~, 1
#define EXEC_COLD_SET_U64 ~, 1
#define EXEC_COLD_SET_F32 ~, 1
#define EXEC_COLD_SET_F64 ~, 1

/* half precision (f16, bf16, their pairs) and fp8 conversions */
#define EXEC_COLD_ADD_F16 ~, 1
#define EXEC_COLD_ADD_F16X2 ~, 1
#define EXEC_COLD_ADD_BF16 ~, 1
#define EXEC_COLD_ADD_BF16X2 ~, 1
#define EXEC_COLD_SUB_F16 ~, 1
#define EXEC_COLD_SUB_F16X2 ~, 1
#define EXEC_COLD_SUB_BF16 ~, 1
#define EXEC_COLD_SUB_BF16X2 ~, 1
#define EXEC_COLD_MUL_F16 ~, 1
#define EXEC_COLD_MUL_F16X2 ~, 1
#define EXEC_COLD_MUL_BF16 ~, 1
#define EXEC_COLD_MUL_BF16X2 ~, 1
#define EXEC_COLD_FMA_F16 ~, 1
#define EXEC_COLD_FMA_F16X2 ~, 1
#define EXEC_COLD_FMA_BF16 ~, 1
#define EXEC_COLD_FMA_BF16X2 ~, 1
#define EXEC_COLD_MIN_F16 ~, 1
#define EXEC_COLD_MIN_F16X2 ~, 1
#define EXEC_COLD_MIN_BF16 ~, 1
#define EXEC_COLD_MIN_BF16X2 ~, 1
#define EXEC_COLD_MAX_F16 ~, 1
#define EXEC_COLD_MAX_F16X2 ~, 1
#define EXEC_COLD_MAX_BF16 ~, 1
#define EXEC_COLD_MAX_BF16X2 ~, 1
#define EXEC_COLD_NEG_H16 ~, 1
#define EXEC_COLD_ABS_H16 ~, 1
#define EXEC_COLD_NEG_H16X2 ~, 1
#define EXEC_COLD_ABS_H16X2 ~, 1
#define EXEC_COLD_CVT_H16X2_F32 ~, 1
#define EXEC_COLD_CVT_F8X2_F32 ~, 1
#define EXEC_COLD_CVT_F8X2_F16X2 ~, 1
#define EXEC_COLD_CVT_F16X2_F8X2 ~, 1
#define EXEC_COLD_CVT_PACK ~, 1
#define EXEC_COLD_SETP_H16 ~, 1
#define EXEC_COLD_SETP_H16X2 ~, 1
#define EXEC_COLD_SET_H16 ~, 1
#define EXEC_COLD_SET_H16_D16 ~, 1
#define EXEC_COLD_SET_H16X2 ~, 1
#define EXEC_COLD_EX2_H16 ~, 1
#define EXEC_COLD_EX2_H16X2 ~, 1
#define EXEC_COLD_TANH_H16 ~, 1
#define EXEC_COLD_TANH_H16X2 ~, 1

#endif /* PTXEMU_INTERP_OPS_COLD_H */
