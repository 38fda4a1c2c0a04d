/*
 * runtime/registry.c — what a CUDA program registers before main (fat binaries, kernels by
 * host stub, variables by host shadow, managed variables) and the lazy loading of a fat binary
 * onto the emulated device at its first use.
 *
 * Loading picks the PTX for the emulated device (fatbin.c), parses it with the front end's
 * module cache, loads the module(s) as one interpreter program (an -rdc program's per-file
 * modules are linked together), then resolves every registered function and variable by name.
 */
#include "runtime/rt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Grow an array of pointers. */
static int push_ptr(void ***arr, unsigned *n, unsigned *cap, void *p)
{
    if (*n == *cap) {
        unsigned nc = *cap ? *cap * 2 : 16;
        void **na = realloc(*arr, nc * sizeof *na);
        if (!na)
            return -1;
        *arr = na;
        *cap = nc;
    }
    (*arr)[(*n)++] = p;
    return 0;
}

/* PTXEMU_DEBUG_REG: the entries of a registered container, bounded like a load. */
static void debug_dump(const void *container)
{
    char err[512], where[600];
    size_t avail;
    if (fatbin_locate(container, &avail, where, sizeof where) < 0) {
        fprintf(stderr, "ptxemu: fatbin %s\n", where);
        return;
    }
    fprintf(stderr, "ptxemu: fatbin in %s\n", where);
    if (fatbin_dump(stderr, container, avail, err, sizeof err) < 0)
        fprintf(stderr, "  (malformed: %s)\n", err);
}

/* Register a fat binary wrapper; returns the record whose handle_slot address the program
 * keeps as its void** handle. NULL on allocation failure. */
struct rt_fatbin *rt_reg_fatbin(struct rt_ctx *c, const void *wrapper)
{
    struct rt_fatbin *fb = calloc(1, sizeof *fb);
    if (!fb)
        return NULL;
    fb->wrapper = wrapper;
    fb->handle_slot = fb;
    pthread_mutex_lock(&c->lock);
    if (push_ptr((void ***)&c->reg.fatbins, &c->reg.nfatbins, &c->reg.capfatbins, fb) < 0) {
        pthread_mutex_unlock(&c->lock);
        free(fb);
        return NULL;
    }
    pthread_mutex_unlock(&c->lock);
    if (c->debug_reg) {
        const struct fatbin_wrapper *w = wrapper;
        fprintf(stderr, "ptxemu: register fatbin wrapper %p version %d\n", wrapper,
                w ? w->version : -1);
        if (w && w->magic == FATBIN_WRAPPER_MAGIC) {
            debug_dump(w->data);
            if (w->version == 2 && w->filename_or_fatbins)
                for (const void *const *p = w->filename_or_fatbins; *p; p++)
                    debug_dump(*p);
        }
    }
    return fb;
}

/* Register a kernel: host stub -> device name. */
struct rt_func *rt_reg_func(struct rt_ctx *c, struct rt_fatbin *fb, const void *host,
                            const char *name)
{
    struct rt_func *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->host = host;
    f->fb = fb;
    f->name = strdup(name ? name : "");
    pthread_mutex_lock(&c->lock);
    if (!f->name || push_ptr((void ***)&c->reg.funcs, &c->reg.nfuncs, &c->reg.capfuncs, f) < 0) {
        pthread_mutex_unlock(&c->lock);
        free(f->name);
        free(f);
        return NULL;
    }
    pthread_mutex_unlock(&c->lock);
    if (c->debug_reg)
        fprintf(stderr, "ptxemu: register function %s stub %p\n", f->name, host);
    return f;
}

/* Register a variable: host shadow -> device name (managed: the host pointer variable). */
struct rt_var *rt_reg_var(struct rt_ctx *c, struct rt_fatbin *fb, const void *host,
                          void **managed_ptr, const char *name, uint64_t size, bool constant,
                          bool managed)
{
    struct rt_var *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    v->host = host;
    v->managed_ptr = managed_ptr;
    v->fb = fb;
    v->name = strdup(name ? name : "");
    v->size = size;
    v->constant = constant;
    v->managed = managed;
    pthread_mutex_lock(&c->lock);
    if (!v->name || push_ptr((void ***)&c->reg.vars, &c->reg.nvars, &c->reg.capvars, v) < 0) {
        pthread_mutex_unlock(&c->lock);
        free(v->name);
        free(v);
        return NULL;
    }
    pthread_mutex_unlock(&c->lock);
    if (c->debug_reg)
        fprintf(stderr, "ptxemu: register %svariable %s size %llu%s shadow %p\n",
                managed ? "managed " : "", v->name, (unsigned long long)size,
                constant ? " (constant)" : "", host);
    return v;
}

/* Forget a fat binary and everything registered with it. */
void rt_unreg_fatbin(struct rt_ctx *c, struct rt_fatbin *fb)
{
    pthread_mutex_lock(&c->lock);
    unsigned j = 0;
    for (unsigned i = 0; i < c->reg.nfuncs; i++) {
        struct rt_func *f = c->reg.funcs[i];
        if (f->fb == fb) {
            free(f->name);
            free(f);
        } else {
            c->reg.funcs[j++] = f;
        }
    }
    c->reg.nfuncs = j;
    j = 0;
    for (unsigned i = 0; i < c->reg.nvars; i++) {
        struct rt_var *v = c->reg.vars[i];
        if (v->fb == fb) {
            free(v->name);
            free(v);
        } else {
            c->reg.vars[j++] = v;
        }
    }
    c->reg.nvars = j;
    j = 0;
    for (unsigned i = 0; i < c->reg.nfatbins; i++)
        if (c->reg.fatbins[i] != fb)
            c->reg.fatbins[j++] = c->reg.fatbins[i];
    c->reg.nfatbins = j;
    if (fb->prog)
        interp_program_unload(fb->prog);
    free(fb->mods); /* modules belong to the front-end cache */
    free(fb);
    pthread_mutex_unlock(&c->lock);
}

/* Kernel by host stub. */
struct rt_func *rt_find_func(struct rt_ctx *c, const void *host)
{
    struct rt_func *r = NULL;
    pthread_mutex_lock(&c->lock);
    for (unsigned i = 0; i < c->reg.nfuncs; i++)
        if (c->reg.funcs[i]->host == host) {
            r = c->reg.funcs[i];
            break;
        }
    pthread_mutex_unlock(&c->lock);
    return r;
}

/* Is p a function record (a cudaKernel_t we handed out)? */
bool rt_is_func(struct rt_ctx *c, const void *p)
{
    bool r = false;
    pthread_mutex_lock(&c->lock);
    for (unsigned i = 0; i < c->reg.nfuncs; i++)
        if (c->reg.funcs[i] == p) {
            r = true;
            break;
        }
    pthread_mutex_unlock(&c->lock);
    return r;
}

/* Variable by host shadow address. */
struct rt_var *rt_find_var(struct rt_ctx *c, const void *host)
{
    struct rt_var *r = NULL;
    pthread_mutex_lock(&c->lock);
    for (unsigned i = 0; i < c->reg.nvars; i++)
        if (c->reg.vars[i]->host == host) {
            r = c->reg.vars[i];
            break;
        }
    pthread_mutex_unlock(&c->lock);
    return r;
}

/* Parse one container's PTX into the module list. 1 = skipped (no PTX for this device, rdc
 * only). A malformed container is an error either way: cudaErrorInvalidKernelImage, with one
 * line saying where and which field. */
static int load_container(struct rt_ctx *c, const void *container, bool optional,
                          const struct ir_module ***mods, unsigned *n, unsigned idx)
{
    struct fatbin_ptx ptx;
    char err[512], where[600];
    size_t avail;
    if (fatbin_locate(container, &avail, where, sizeof where) < 0) {
        fprintf(stderr, "ptxemu: invalid fat binary: the program registered %s\n", where);
        return -RT_ERR_INVALID_KERNEL_IMAGE;
    }
    int sr = fatbin_select_ptx(container, avail, c->dev.sm, &ptx, err, sizeof err);
    if (sr == FATBIN_EINVALID) {
        fprintf(stderr, "ptxemu: invalid fat binary (%s): %s\n", where, err);
        return -RT_ERR_INVALID_KERNEL_IMAGE;
    }
    if (sr < 0) {
        if (optional) {
            if (c->debug_reg)
                fprintf(stderr, "ptxemu: skipping linked fatbin %u: %s\n", idx, err);
            return 1;
        }
        fprintf(stderr, "ptxemu: %s\n", err);
        return -RT_ERR_NO_KERNEL_IMAGE;
    }
    /* a name for diagnostics and fault reports: PROGRAM[.N].compute_XX.ptx */
    char fname[128];
    if (idx)
        snprintf(fname, sizeof fname, "%s.%u.compute_%u.ptx", program_invocation_short_name, idx,
                 ptx.arch);
    else
        snprintf(fname, sizeof fname, "%s.compute_%u.ptx", program_invocation_short_name,
                 ptx.arch);
    struct fe_opts opts = {.diag = stderr};
    const struct ir_module *m = NULL;
    int r = fe_cache_load(c->cache, ptx.text, ptx.len, fname, &opts, &m);
    free(ptx.text);
    if (r < 0 || !m) {
        fprintf(stderr, "ptxemu: the program's PTX (%s) did not load\n", fname);
        return -RT_ERR_INVALID_PTX;
    }
    const struct ir_module **nm = realloc(*mods, (*n + 1) * sizeof *nm);
    if (!nm)
        return -RT_ERR_MEMORY_ALLOCATION;
    nm[(*n)++] = m;
    *mods = nm;
    return 0;
}

/* Load a fat binary (see rt.h). Caller must NOT hold c->lock. */
int rt_fatbin_load(struct rt_ctx *c, struct rt_fatbin *fb)
{
    int err = RT_OK;
    if (atomic_load_explicit(&fb->state, memory_order_acquire) > 0)
        return RT_OK; /* loaded: every launch asks, without taking the lock */
    pthread_mutex_lock(&c->lock);
    if (fb->state > 0)
        goto out;
    if (fb->state < 0) {
        err = fb->load_err;
        goto out;
    }
    struct interp_dev *d = rt_ctx_dev(c);
    if (!d) {
        fprintf(stderr, "ptxemu: %s\n", c->init_err);
        err = RT_ERR_INITIALIZATION;
        goto fail;
    }
    const struct fatbin_wrapper *w = fb->wrapper;
    if (!w || w->magic != FATBIN_WRAPPER_MAGIC) {
        fprintf(stderr, "ptxemu: bad fat binary wrapper at %p\n", (const void *)w);
        err = RT_ERR_INVALID_SOURCE;
        goto fail;
    }
    int r;
    if (w->version == 2 && w->filename_or_fatbins) {
        /* -rdc: the per-file containers (section __nv_relfatbin), linked by us. The linked
         * container (w->data) holds SASS only; containers without usable PTX (libcudadevrt
         * ships PTX for the newest target only) are skipped. */
        unsigned idx = 0;
        for (const void *const *p = w->filename_or_fatbins; *p; p++, idx++) {
            r = load_container(c, *p, true, &fb->mods, &fb->nmods, idx);
            if (r < 0) {
                err = -r;
                goto fail;
            }
        }
        if (!fb->nmods) {
            fprintf(stderr, "ptxemu: no linked fat binary holds PTX for sm_%u: rebuild with "
                            "-gencode arch=compute_%u,code=compute_%u\n",
                    c->dev.sm, c->dev.sm, c->dev.sm);
            err = RT_ERR_NO_KERNEL_IMAGE;
            goto fail;
        }
    } else {
        r = load_container(c, w->data, false, &fb->mods, &fb->nmods, 0);
        if (r < 0) {
            err = -r;
            goto fail;
        }
    }
    r = interp_program_load(d, fb->mods, fb->nmods, stderr, &fb->prog);
    if (r < 0 || !fb->prog) {
        fprintf(stderr, "ptxemu: the program's PTX could not be loaded onto the device\n");
        err = RT_ERR_INVALID_PTX;
        goto fail;
    }
    for (unsigned i = 0; i < c->reg.nfuncs; i++) {
        struct rt_func *f = c->reg.funcs[i];
        if (f->fb != fb)
            continue;
        f->kernel = interp_program_kernel(fb->prog, f->name);
        if (f->kernel)
            interp_kernel_info(f->kernel, &f->info);
        else if (c->debug_reg)
            fprintf(stderr, "ptxemu: kernel %s not found in the PTX\n", f->name);
    }
    for (unsigned i = 0; i < c->reg.nvars; i++) {
        struct rt_var *v = c->reg.vars[i];
        if (v->fb != fb)
            continue;
        uint64_t size = 0;
        if (interp_program_var(fb->prog, v->name, &v->addr, &size) < 0) {
            v->addr = 0;
            if (c->debug_reg)
                fprintf(stderr, "ptxemu: variable %s not found in the PTX\n", v->name);
            continue;
        }
        if (size && size < v->size)
            v->size = size;
        if (v->managed && v->managed_ptr)
            *v->managed_ptr = (void *)(uintptr_t)v->addr;
    }
    fb->state = 1;
    goto out;
fail:
    fb->state = -1;
    fb->load_err = err;
out:
    pthread_mutex_unlock(&c->lock);
    return err;
}

/* Release everything the context owns. */
void rt_ctx_fini(struct rt_ctx *c)
{
    while (c->reg.nfatbins)
        rt_unreg_fatbin(c, c->reg.fatbins[c->reg.nfatbins - 1]);
    free(c->reg.fatbins);
    free(c->reg.funcs);
    free(c->reg.vars);
    if (c->idev)
        interp_dev_destroy(c->idev);
    rt_timing_close(c->timing); /* closes the JSON statistics */
    c->timing = NULL;
    if (c->cache)
        fe_cache_free(c->cache);
    c->idev = NULL;
    c->cache = NULL;
    memset(&c->reg, 0, sizeof c->reg);
}
