/*
 * runtime/cudart_ctx.c — libcudart.so.13: the process's default context, per-thread error
 * state, handle sets and the error functions (cudaGetErrorName/String, cudaGetLastError,
 * cudaPeekAtLastError).
 *
 * State: one process-wide default context (struct cudart_ctx cr_g) made on first use; per
 * host thread the last (non-sticky) error. A kernel fault becomes the context's sticky error,
 * returned by every later call (cudaGetLastError included), as on a GPU.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/cudart_private.h"

_Static_assert(sizeof(struct cudaDeviceProp) == 1008, "CUDA 13 cudaDeviceProp is 1008 bytes");
_Static_assert((int)RT_ERR_INVALID_VALUE == (int)cudaErrorInvalidValue, "error values");
_Static_assert((int)RT_ERR_MEMORY_ALLOCATION == (int)cudaErrorMemoryAllocation, "error values");
_Static_assert((int)RT_ERR_INITIALIZATION == (int)cudaErrorInitializationError, "error values");
_Static_assert((int)RT_ERR_INVALID_CONFIGURATION == (int)cudaErrorInvalidConfiguration, "error values");
_Static_assert((int)RT_ERR_INVALID_SYMBOL == (int)cudaErrorInvalidSymbol, "error values");
_Static_assert((int)RT_ERR_INVALID_DEVICE_POINTER == (int)cudaErrorInvalidDevicePointer, "error values");
_Static_assert((int)RT_ERR_INVALID_MEMCPY_DIRECTION == (int)cudaErrorInvalidMemcpyDirection, "errors");
_Static_assert((int)RT_ERR_NO_KERNEL_IMAGE == (int)cudaErrorNoKernelImageForDevice, "error values");
_Static_assert((int)RT_ERR_INVALID_PTX == (int)cudaErrorInvalidPtx, "error values");
_Static_assert((int)RT_ERR_INVALID_SOURCE == (int)cudaErrorInvalidSource, "error values");
_Static_assert((int)RT_ERR_INVALID_RESOURCE_HANDLE == (int)cudaErrorInvalidResourceHandle, "errors");
_Static_assert((int)RT_ERR_NOT_READY == (int)cudaErrorNotReady, "error values");
_Static_assert((int)RT_ERR_LAUNCH_OUT_OF_RESOURCES == (int)cudaErrorLaunchOutOfResources, "errors");
_Static_assert((int)RT_ERR_INVALID_DEVICE_FUNCTION == (int)cudaErrorInvalidDeviceFunction, "errors");
_Static_assert((int)RT_ERR_NOT_SUPPORTED == (int)cudaErrorNotSupported, "error values");
_Static_assert((int)RT_ERR_UNKNOWN == (int)cudaErrorUnknown, "error values");
_Static_assert((int)RT_ERR_ILLEGAL_ADDRESS == (int)cudaErrorIllegalAddress, "error values");
_Static_assert((int)RT_ERR_LAUNCH_TIMEOUT == (int)cudaErrorLaunchTimeout, "error values");
_Static_assert((int)RT_ERR_ASSERT == (int)cudaErrorAssert, "error values");
_Static_assert((int)RT_ERR_HARDWARE_STACK_ERROR == (int)cudaErrorHardwareStackError, "errors");
_Static_assert((int)RT_ERR_ILLEGAL_INSTRUCTION == (int)cudaErrorIllegalInstruction, "errors");
_Static_assert((int)RT_ERR_MISALIGNED_ADDRESS == (int)cudaErrorMisalignedAddress, "errors");
_Static_assert((int)RT_ERR_LAUNCH_FAILURE == (int)cudaErrorLaunchFailure, "error values");
_Static_assert((int)RT_ERR_CONTEXT_IS_DESTROYED == (int)cudaErrorContextIsDestroyed,
               "error values");
_Static_assert((int)RT_ERR_COOPERATIVE_LAUNCH_TOO_LARGE == (int)cudaErrorCooperativeLaunchTooLarge,
               "error values");
_Static_assert((int)RT_ERR_INVALID_CLUSTER_SIZE == (int)cudaErrorInvalidClusterSize,
               "error values");

/* The process's one default context (cudart_private.h). */
struct cudart_ctx cr_g = {.hlock = PTHREAD_MUTEX_INITIALIZER, .next_stream_id = 16,
                          .next_capture_id = 1, .pool = {.reuse = {1, 1, 1}}};
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void ctx_init_once(void)
{
    rt_ctx_init(&cr_g.rt);
    cr_g.ptds_key_ok = pthread_key_create(&cr_g.ptds_key, cr_ptds_free) == 0;
}

/* The runtime core's context, initialised on first use (cudart_private.h). */
struct rt_ctx *cr_ctx(void)
{
    pthread_once(&g_once, ctx_init_once);
    return &cr_g.rt;
}

/* --check (PTXEMU_CHECK): at process exit, once device work is done, the leak check and the
 * ERROR SUMMARY line; with PTXEMU_ERROR_EXITCODE and errors found, that is the exit status.
 * A destructor of this library runs after the program's atexit handlers (its fat binaries
 * are unregistered by then), so nothing of the program runs after the summary. */
/* Timing mode: at process exit, complete the --timing-stats JSON array and write the
 * --timing-report page (before the --check summary, which ends the process). No
 * synchronisation (an exit() from a host callback must not wait for itself), and the GPU is
 * not freed: kernels still running on other threads simply go unreported. */
static void cr_timing_fini(void)
{
    rt_timing_finish(cr_g.rt.timing);
}

__attribute__((destructor)) static void cr_check_fini(void)
{
    cr_timing_fini();
    if (!cr_g.rt.chk)
        return;
    cr_sync_point(0);
    int rc = rt_check_exit(&cr_g.rt);
    if (rc >= 0) {
        fflush(NULL);
        _exit(rc);
    }
}

static _Thread_local cudaError_t tls_last;

/* Record e as the calling thread's last error (unless success) and return it. */
cudaError_t cr_ret(cudaError_t e)
{
    if (e != cudaSuccess)
        tls_last = e;
    return e;
}

/* Clear the calling thread's last error. */
void cr_clear_last_error(void)
{
    tls_last = cudaSuccess;
}

/* The context's sticky error. */
cudaError_t cr_sticky(void)
{
    return (cudaError_t)atomic_load_explicit(&cr_ctx()->sticky, memory_order_acquire);
}

/* The device memory store, creating the device on first use. */
struct mem *cr_dmem(void)
{
    struct rt_ctx *c = cr_ctx();
    pthread_mutex_lock(&c->lock);
    struct interp_dev *d = rt_ctx_dev(c);
    pthread_mutex_unlock(&c->lock);
    if (!d) {
        static _Thread_local bool said;
        if (!said)
            fprintf(stderr, "ptxemu: %s\n", c->init_err);
        said = true;
        return NULL;
    }
    return interp_dev_mem(d);
}

/* Say that something is not supported yet. */
void cr_not_supported(const char *what)
{
    fprintf(stderr, "ptxemu: %s is not supported yet (cudaErrorNotSupported)\n", what);
}

/* Add a handle to a set: 0, or -1 when out of memory. */
int cr_hs_add(struct handle_set *s, void *p)
{
    pthread_mutex_lock(&cr_g.hlock);
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 16;
        void **nv = realloc(s->v, nc * sizeof *nv);
        if (!nv) {
            pthread_mutex_unlock(&cr_g.hlock);
            return -1;
        }
        s->v = nv;
        s->cap = nc;
    }
    s->v[s->n++] = p;
    pthread_mutex_unlock(&cr_g.hlock);
    return 0;
}

/* Is p in the set? */
bool cr_hs_has(struct handle_set *s, const void *p)
{
    bool r = false;
    pthread_mutex_lock(&cr_g.hlock);
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i] == p) {
            r = true;
            break;
        }
    pthread_mutex_unlock(&cr_g.hlock);
    return r;
}

/* Remove p from the set; false if it was not there. */
bool cr_hs_del(struct handle_set *s, const void *p)
{
    bool r = false;
    pthread_mutex_lock(&cr_g.hlock);
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i] == p) {
            s->v[i] = s->v[--s->n];
            r = true;
            break;
        }
    pthread_mutex_unlock(&cr_g.hlock);
    return r;
}

/* Name of an error code ("cudaErrorInvalidValue"). */
EXPORT const char *cudaGetErrorName(cudaError_t error)
{
    const char *s = rt_error_name((int)error);
    return s ? s : "unrecognized error code";
}

/* Message of an error code ("invalid argument"). */
EXPORT const char *cudaGetErrorString(cudaError_t error)
{
    const char *s = rt_error_string((int)error);
    return s ? s : "unrecognized error code";
}

/* Return and clear the calling thread's last error; a sticky error cannot be cleared. */
EXPORT cudaError_t cudaGetLastError(void)
{
    cudaError_t e = tls_last;
    tls_last = cudaSuccess;
    cudaError_t s = cr_sticky();
    return s ? s : e;
}

/* Return the last error without clearing it. */
EXPORT cudaError_t cudaPeekAtLastError(void)
{
    cudaError_t s = cr_sticky();
    return s ? s : tls_last;
}

void cr_async_error(cudaError_t e)
{
    struct rt_ctx *c = cr_ctx();
    pthread_mutex_lock(&c->lock);
    if (!c->async_err)
        c->async_err = (int)e;
    pthread_mutex_unlock(&c->lock);
}

/* The error of a finished asynchronous operation, returned (once) by a synchronizing call. */
cudaError_t cr_take_async_error(void)
{
    struct rt_ctx *c = cr_ctx();
    pthread_mutex_lock(&c->lock);
    int e = c->sticky ? c->sticky : c->async_err;
    c->async_err = 0;
    pthread_mutex_unlock(&c->lock);
    return (cudaError_t)e;
}
