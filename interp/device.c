/*
 * interp/device.c — devices: create/destroy (memory store, host-thread pool), accessors.
 *
 * The rest of the engine's public API (interp/interp.h) lives beside it: load.c (programs),
 * launch.c (launches), fault.c (trap records and reports), devlib.c (device printf/malloc).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "interp/internal.h"
#include "interp/printf.h"

/* ====================================================================== device */

/* Create a device with its own memory store. 0 or a negative errno. */
int interp_dev_create(const struct interp_config *cfg, struct interp_dev **out)
{
    *out = NULL;
    struct interp_dev *d = calloc(1, sizeof *d);
    if (!d)
        return -ENOMEM;
    if (cfg)
        d->cfg = *cfg;
    if (d->cfg.sm == 0)
        d->cfg.sm = 80;
    if (d->cfg.nsm == 0)
        d->cfg.nsm = 80;
    d->heap_size = d->cfg.heap_size ? d->cfg.heap_size : (UINT64_C(8) << 20);
    d->ncpu = interp_ncpu();
    pthread_mutex_init(&d->heap_lock, NULL);
    pthread_mutex_init(&d->pf_lock, NULL);
    int r = mem_create(&d->mem);
    if (r >= 0 && (r = grid_pool_create(d)) < 0)
        mem_destroy(d->mem);
    if (r < 0) {
        pthread_mutex_destroy(&d->heap_lock);
        pthread_mutex_destroy(&d->pf_lock);
        free(d);
        return r;
    }
    *out = d;
    return 0;
}

/* Destroy a device and all its memory. */
void interp_dev_destroy(struct interp_dev *d)
{
    if (!d)
        return;
    grid_pool_destroy(d->pool);
    mem_destroy(d->mem);
    pthread_mutex_destroy(&d->heap_lock);
    for (unsigned i = 0; i < d->npf_spare; i++)
        dev_printf_buf_destroy(d->pf_spare[i]);
    pthread_mutex_destroy(&d->pf_lock);
    free(d->deferred);
    free(d->hsites);
    for (size_t i = 0; i < d->nhtext; i++)
        free(d->htext[i].text);
    free(d->htext);
    free(d);
}

/* The device memory store. */
struct mem *interp_dev_mem(struct interp_dev *d)
{
    return d->mem;
}

/*
 * Change the device's limits after its creation (cudaDeviceSetLimit): per-thread stack
 * bytes (0: the default), device malloc heap bytes and printf FIFO bytes (0: unchanged). For
 * the launches that start afterwards; the caller makes sure none is running.
 */
void interp_dev_set_limits(struct interp_dev *d, uint64_t stack_size, uint64_t heap_size,
                           unsigned printf_fifo)
{
    d->cfg.stack_size = stack_size;
    if (heap_size) {
        d->cfg.heap_size = heap_size;
        d->heap_size = heap_size;
    }
    if (printf_fifo && printf_fifo != d->cfg.printf_fifo) {
        d->cfg.printf_fifo = printf_fifo;
        pthread_mutex_lock(&d->pf_lock); /* spare buffers have the old size */
        while (d->npf_spare)
            dev_printf_buf_destroy(d->pf_spare[--d->npf_spare]);
        pthread_mutex_unlock(&d->pf_lock);
    }
}

/* The configuration the device was created with (defaults filled in). */
const struct interp_config *interp_dev_config(const struct interp_dev *d)
{
    return &d->cfg;
}

