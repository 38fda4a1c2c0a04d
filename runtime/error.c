/*
 * runtime/error.c — CUDA error numbers of the runtime core: the name and message of every
 * cudaError_t (cuda_errors.h), and the error a GPU returns for each kind of kernel fault.
 *
 * The interpreter reports what went wrong as a trap kind only; which cudaError_t that is, is
 * the CUDA runtime's business, so the mapping lives here (rt.h has the numbers as RT_ERR_*,
 * cudart_ctx.c checks them against NVIDIA's headers).
 */
#include "runtime/rt.h"

struct err_row {
    int value;
    const char *name, *msg;
};

static const struct err_row err_rows[] = {
#define E(name, val, msg) {val, #name, msg},
#include "runtime/cuda_errors.h"
#undef E
};

static const struct err_row *err_find(int e)
{
    for (size_t i = 0; i < sizeof err_rows / sizeof err_rows[0]; i++)
        if (err_rows[i].value == e)
            return &err_rows[i];
    return NULL;
}

/* Name of a cudaError_t value ("cudaErrorIllegalAddress"), NULL if CUDA 13 has none. */
const char *rt_error_name(int e)
{
    const struct err_row *r = err_find(e);
    return r ? r->name : NULL;
}

/* Message of a cudaError_t value ("an illegal memory access was encountered"), NULL if CUDA 13
 * has none. */
const char *rt_error_string(int e)
{
    const struct err_row *r = err_find(e);
    return r ? r->msg : NULL;
}

/* The error a GPU returns (and makes sticky) after a kernel fault of kind k: what
 * compute-sanitizer's reports go with (an out-of-bounds or read-only access is an illegal
 * address; a deadlock or an exhausted budget is the watchdog's timeout). */
int rt_trap_error(enum trap_kind k)
{
    switch (k) {
    case TRAP_NONE: return RT_OK;
    case TRAP_OOB: case TRAP_READONLY: return RT_ERR_ILLEGAL_ADDRESS;
    case TRAP_MISALIGNED: return RT_ERR_MISALIGNED_ADDRESS;
    case TRAP_ASSERT: return RT_ERR_ASSERT;
    case TRAP_ILLEGAL: return RT_ERR_ILLEGAL_INSTRUCTION;
    case TRAP_STACK: return RT_ERR_HARDWARE_STACK_ERROR;
    case TRAP_DEADLOCK: case TRAP_BUDGET: return RT_ERR_LAUNCH_TIMEOUT;
    case TRAP_TRAP: case TRAP_BRKPT: case TRAP_HEAP: return RT_ERR_LAUNCH_FAILURE;
    }
    return RT_ERR_LAUNCH_FAILURE;
}
