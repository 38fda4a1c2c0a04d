/*
 * runtime/cudart_unsupported.c — libcudart.so.13: the entry points ptxemu does not provide
 * yet, generated from the one table (cudart_unsupported.def). Each prints one line naming
 * itself the first time it is called, records and returns cudaErrorNotSupported.
 */
#include <stdint.h>

#include "runtime/cudart_private.h"

/* cudaEglStreamConnection points to it (cuda_egl_interop.h). */
struct CUeglStreamConnection_st;

/* The by-value EGL frame of cudaEGLStreamProducerPresentFrame (sizeof(cudaEglFrame), CUDA 13). */
struct cr_egl_frame {
    _Alignas(8) unsigned char bytes[280];
};

/* An unsupported entry point was called: say so once per function, return the error. */
static cudaError_t unsupported(enum cr_unsupported which, const char *name)
{
    cr_ctx();
    if (!atomic_exchange(&cr_g.unsup_said[which], true))
        fprintf(stderr, "ptxemu: %s is not supported yet (cudaErrorNotSupported)\n", name);
    return cr_ret(cudaErrorNotSupported);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* aliases of deprecated calls */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"      /* interop: no header here */

#define U(name, params)                                                                       \
    EXPORT cudaError_t name params;                                                           \
    EXPORT cudaError_t name params                                                            \
    {                                                                                         \
        return unsupported(CR_UNSUP_##name, #name);                                           \
    }
#define A(variant, name) EXPORT __typeof__(name) variant __attribute__((alias(#name)));
#include "runtime/cudart_unsupported.def"
#undef U
#undef A

#pragma GCC diagnostic pop
