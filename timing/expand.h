/*
 * timing/expand.h — PTX instructions that ptxas expands into several machine instructions
 * (IEEE division, reciprocal and square root, 32-bit integer division and remainder): the
 * machine instructions of the common ("fast") path as a small dependence graph, so the timing
 * model issues them one by one through the issue slots, collectors and units they occupy
 * (sm.c) while the functional engine executes the PTX instruction once. Sources: expand.c.
 */
#ifndef PTXEMU_TIMING_EXPAND_H
#define PTXEMU_TIMING_EXPAND_H

#include <stdint.h>

#include "frontend/ir.h"

/* How a machine instruction's latency and initiation interval are found. */
enum tm_uop_kind {
    TM_UOP_ALU,  /* the PTX classes: oplat[unit][lat] (-ptx_opcode_latency_* of one SASS op) */
    TM_UOP_MUFU, /* the SFU's MUFU / I2F / F2I: -trace_opcode_latency_initiation_sfu */
};

/* One machine instruction of a sequence. */
struct tm_uop {
    uint8_t kind; /* enum tm_uop_kind */
    uint8_t unit; /* enum ir_unit (TM_UOP_ALU) */
    uint8_t lat;  /* enum ir_lat (TM_UOP_ALU) */
    int8_t dep[2]; /* earlier instructions of the sequence whose results it reads, -1: none
                      (the PTX instruction's own operands are ready before the first issues) */
};

/* A PTX instruction's machine code: n instructions in issue order; op[result] writes the PTX
 * destination. */
struct tm_useq {
    const char *name;
    uint8_t n, result;
    const struct tm_uop *op;
};

/* The sequence of an instruction whose opcode may expand (div, rem, rcp, sqrt), or NULL. */
const struct tm_useq *tm_useq_lookup(const struct ir_insn *in);

/* The sequence a PTX instruction expands into, or NULL when it is one machine instruction
 * (or not modelled as several). Pure; other opcodes are rejected inline (the issue stage asks
 * for every instruction). */
static inline const struct tm_useq *tm_useq_of(const struct ir_insn *in)
{
    if (!in || (in->op != OP_DIV && in->op != OP_REM && in->op != OP_RCP && in->op != OP_SQRT))
        return NULL;
    return tm_useq_lookup(in);
}

/* Every sequence (tests and documentation): *n receives the count. */
const struct tm_useq *tm_useq_all(unsigned *n);

#endif
