/*
 * runtime/cudart_unsupported.c — libcudart.so.13: the entry points ptxemu does not provide
 * yet, generated from the one table (cudart_unsupported.def). Each prints one line naming
 * itself, records and returns cudaErrorNotSupported.
 */
#include <stdint.h>

#include "runtime/cudart_private.h"

/* An unsupported entry point was called: say so, return the error. */
static cudaError_t unsupported(const char *name)
{
    cr_not_supported(name);
    return cr_ret(cudaErrorNotSupported);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* aliases of deprecated calls */

#define U(name, params)                                                                       \
    EXPORT cudaError_t name params;                                                           \
    EXPORT cudaError_t name params                                                            \
    {                                                                                         \
        return unsupported(#name);                                                                                            \
    }
#define A(variant, name) EXPORT __typeof__(name) variant __attribute__((alias(#name)));
#include "runtime/cudart_unsupported.def"
#undef U
#undef A

#pragma GCC diagnostic pop
