/*
 * runtime/cudart_graph.c — libcudart.so.13: CUDA graphs. Nodes and their execution (stream
 * work is made of the same nodes), graph memory (memory-allocation and free nodes), graph
 * building, instantiation, executable graph updates and launches. What one asks of or changes
 * in an existing node (queries, edges, parameters, attributes, enabling) is
 * cudart_graph_node.c; the two are CUDA's graph chapter, in one place.
 *
 * Nodes keep their dependencies (edges live on the dependent node). An executable graph is a
 * private clone; a launch runs a clone of it on the worker in a topological order (insertion
 * order among ready nodes).
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/cudart_private.h"

static struct CUgraph_st *graph_clone(struct CUgraph_st *g);
static cudaError_t graph_run(struct CUgraph_st *g);
static void gmem_dispose_locked(struct gmem *gm);
static cudaError_t gmem_map(struct gmem *gm);

int cr_nl_add(struct node_list *l, struct CUgraphNode_st *nd)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i] == nd)
            return 0;
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 4;
        struct CUgraphNode_st **nv = realloc(l->v, nc * sizeof *nv);
        if (!nv)
            return -1;
        l->v = nv;
        l->cap = nc;
    }
    l->v[l->n++] = nd;
    return 0;
}

bool cr_nl_del(struct node_list *l, const struct CUgraphNode_st *nd)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i] == nd) {
            memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof *l->v);
            l->n--;
            return true;
        }
    return false;
}

int cr_nl_copy(struct node_list *dst, const struct node_list *src)
{
    dst->n = 0;
    for (size_t i = 0; i < src->n; i++)
        if (cr_nl_add(dst, src->v[i]) < 0)
            return -1;
    return 0;
}

int cr_graph_push(struct CUgraph_st *g, struct CUgraphNode_st *nd)
{
    if (g->n == g->cap) {
        size_t nc = g->cap ? g->cap * 2 : 8;
        struct CUgraphNode_st **nn = realloc(g->nodes, nc * sizeof *nn);
        if (!nn)
            return -1;
        g->nodes = nn;
        g->cap = nc;
    }
    g->nodes[g->n++] = nd;
    nd->graph = g;
    return 0;
}

/* A node holding a graph allocation is freed: one reference less (the memory itself may
 * outlive every graph, until the program frees it). */
void cr_gmem_release(struct gmem *gm)
{
    if (!gm)
        return;
    pthread_mutex_lock(&cr_g.hlock);
    gm->refs--;
    gmem_dispose_locked(gm);
    pthread_mutex_unlock(&cr_g.hlock);
}

void cr_node_free(struct CUgraphNode_st *nd)
{
    if (!nd)
        return;
    free(nd->params);
    free(nd->deps.v);
    if (nd->kind == NK_GRAPH && nd->child)
        cr_graph_free(nd->child);
    cr_gmem_release(nd->gm);
    free(nd);
}

void cr_graph_free(struct CUgraph_st *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->n; i++)
        cr_node_free(g->nodes[i]);
    free(g->nodes);
    free(g);
}

static struct CUgraphNode_st *node_clone(const struct CUgraphNode_st *nd)
{
    struct CUgraphNode_st *c = malloc(sizeof *c);
    if (!c)
        return NULL;
    *c = *nd;
    c->params = NULL;
    c->child = NULL;
    c->deps = (struct node_list){0};
    c->gm = NULL;
    if (nd->params && nd->func) {
        uint32_t n = nd->func->info.param_size_total;
        c->params = malloc(n ? n : 1);
        if (!c->params) {
            free(c);
            return NULL;
        }
        memcpy(c->params, nd->params, n);
    }
    if (nd->kind == NK_GRAPH && nd->child) {
        c->child = graph_clone(nd->child);
        if (!c->child) {
            free(c->params);
            free(c);
            return NULL;
        }
    }
    if (nd->gm) {
        __atomic_add_fetch(&nd->gm->refs, 1, __ATOMIC_ACQ_REL);
        c->gm = nd->gm;
    }
    return c;
}

/* A deep copy with the same edges (node i of the copy is the copy of node i). */
static struct CUgraph_st *graph_clone(struct CUgraph_st *g)
{
    struct CUgraph_st *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    for (size_t i = 0; i < g->n; i++) {
        g->nodes[i]->idx = i;
        struct CUgraphNode_st *nd = node_clone(g->nodes[i]);
        if (!nd || cr_graph_push(c, nd) < 0) {
            cr_node_free(nd);
            cr_graph_free(c);
            return NULL;
        }
    }
    for (size_t i = 0; i < g->n; i++) {
        const struct node_list *d = &g->nodes[i]->deps;
        for (size_t j = 0; j < d->n; j++)
            if (cr_nl_add(&c->nodes[i]->deps, c->nodes[d->v[j]->idx]) < 0) {
                cr_graph_free(c);
                return NULL;
            }
    }
    return c;
}

/* Nodes in an order that runs every node after its dependencies (insertion order among the
 * ready ones). 0, or -1 for a cycle or no memory. The caller frees *out. */
static int graph_order(struct CUgraph_st *g, struct CUgraphNode_st ***out)
{
    size_t n = g->n, done = 0;
    struct CUgraphNode_st **order = malloc((n ? n : 1) * sizeof *order);
    bool *ran = calloc(n ? n : 1, 1);
    if (!order || !ran) {
        free(order);
        free(ran);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        g->nodes[i]->idx = i;
    while (done < n) {
        bool progress = false;
        for (size_t i = 0; i < n; i++) {
            if (ran[i])
                continue;
            const struct node_list *d = &g->nodes[i]->deps;
            bool ready = true;
            for (size_t j = 0; ready && j < d->n; j++)
                ready = ran[d->v[j]->idx];
            if (ready) {
                ran[i] = true;
                order[done++] = g->nodes[i];
                progress = true;
            }
        }
        if (!progress) {
            free(order);
            free(ran);
            return -1;
        }
    }
    free(ran);
    *out = order;
    return 0;
}

static cudaError_t node_run(struct CUgraphNode_st *nd)
{
    if (nd->disabled)
        return cudaSuccess;
    switch (nd->kind) {
    case NK_KERNEL:
        return cr_run_kernel(nd->func, nd->grid, nd->block, nd->shared, NULL, nd->params, false,
                             nd->cluster);
    case NK_MEMCPY:
        return cr_run_copy_desc(&nd->cp);
    case NK_MEMSET:
        if (nd->elem == 1)
            return cr_run_memset2d(nd->dst, nd->pitch, (int)nd->value, nd->width, nd->height);
        for (size_t y = 0; y < nd->height; y++) {
            uint8_t *row = (uint8_t *)nd->dst + y * nd->pitch;
            CR_DEVICE_USE();
            struct mem *m = cr_dmem();
            if (!m || !mem_find(m, (uint64_t)(uintptr_t)row, nd->width * nd->elem))
                return cudaErrorInvalidValue;
            for (size_t x = 0; x < nd->width; x++) {
                if (nd->elem == 2) {
                    uint16_t v = (uint16_t)nd->value;
                    memcpy(row + x * 2, &v, 2);
                } else {
                    uint32_t v = nd->value;
                    memcpy(row + x * 4, &v, 4);
                }
            }
            mem_mark_init(m, (uint64_t)(uintptr_t)row, nd->width * nd->elem); /* initcheck */
        }
        return cudaSuccess;
    case NK_HOST:
        fflush(stdout);
        nd->fn(nd->user);
        return cudaSuccess;
    case NK_GRAPH:
        return graph_run(nd->child);
    case NK_MEMALLOC:
        return gmem_map(nd->gm);
    case NK_MEMFREE: {
        struct gmem *gm = cr_gmem_find((uint64_t)(uintptr_t)nd->dst);
        if (gm)
            return cr_gmem_unmap(gm);
        CR_DEVICE_USE();
        struct mem *m = cr_dmem();
        if (!m || mem_free(m, (uint64_t)(uintptr_t)nd->dst) < 0)
            return cudaErrorInvalidValue;
        return cudaSuccess;
    }
    case NK_EVENT_RECORD:
        if (nd->event) {
            struct rt_ctx *ctx = cr_ctx();
            if (ctx->timing) { /* timing mode: simulated time */
                double ns = rt_timing_ns(ctx->timing);
                nd->event->when.tv_sec = (time_t)(ns / 1e9);
                nd->event->when.tv_nsec = (long)(ns - (double)nd->event->when.tv_sec * 1e9);
            } else {
                clock_gettime(CLOCK_MONOTONIC, &nd->event->when);
            }
            nd->event->recorded = true;
        }
        return cudaSuccess;
    case NK_WAIT_EVENT:
    case NK_EMPTY:
        return cudaSuccess;
    }
    return cudaErrorInvalidValue;
}

static cudaError_t graph_run(struct CUgraph_st *g)
{
    struct CUgraphNode_st **order;
    if (graph_order(g, &order) < 0)
        return cudaErrorInvalidValue;
    cudaError_t e = cudaSuccess;
    for (size_t i = 0; i < g->n && !e; i++) {
        e = node_run(order[i]);
        if (!e)
            e = cr_sticky();
    }
    free(order);
    return e;
}

void cr_node_op(struct rt_ctx *c, void *arg)
{
    (void)c;
    struct CUgraphNode_st *nd = arg;
    /* a faulted context runs no more device work; host functions and event records still
     * run so that waiting threads and callbacks see the error */
    bool skip = cr_sticky() && nd->kind != NK_HOST && nd->kind != NK_EVENT_RECORD;
    cudaError_t e = skip ? cudaSuccess : node_run(nd);
    if (e)
        cr_async_error(e);
    cr_node_free(nd);
}


struct CUgraphNode_st *cr_node_new(enum node_kind k)
{
    struct CUgraphNode_st *nd = calloc(1, sizeof *nd);
    if (nd)
        nd->kind = k;
    return nd;
}

/* ============================================================================ graph memory */

/* Graph allocations (memory-allocation nodes, cudaMallocAsync in a capture) follow CUDA's
 * lifetime rules on every launch. The address is fixed when the node is made: it is a host
 * block reserved for the allocation (struct gmem) that the device store maps (mem_register)
 * when an allocation node runs and unmaps when a free node, cudaFreeAsync or cudaFree frees
 * it, so outside its lifetime an access faults. Two states: `live` in program order (set when
 * a launch with the allocation node is submitted, cleared when a free is submitted: what
 * cudaGraphLaunch and the frees check), `mapped` in device order (set and cleared as the
 * worker runs the nodes). All under cr_g.hlock. */

/* The graph allocation at addr, or NULL. */
struct gmem *cr_gmem_find(uint64_t addr)
{
    struct gmem *r = NULL;
    pthread_mutex_lock(&cr_g.hlock);
    for (size_t i = 0; i < cr_g.gmems.n; i++) {
        struct gmem *gm = cr_g.gmems.v[i];
        if (gm->addr == addr) {
            r = gm;
            break;
        }
    }
    pthread_mutex_unlock(&cr_g.hlock);
    return r;
}

/* Drop gm when no node holds it and its memory is neither live nor mapped. Caller holds
 * cr_g.hlock. */
static void gmem_dispose_locked(struct gmem *gm)
{
    if (gm->refs > 0 || gm->live || gm->mapped)
        return;
    for (size_t i = 0; i < cr_g.gmems.n; i++)
        if (cr_g.gmems.v[i] == gm) {
            cr_g.gmems.v[i] = cr_g.gmems.v[--cr_g.gmems.n];
            break;
        }
    free(gm->host);
    free(gm);
}

/* A graph allocation of size bytes: its address is fixed from now on, its memory is mapped
 * only while an allocation node's launch has it allocated. */
cudaError_t cr_gmem_new(size_t size, struct gmem **out)
{
    CR_DEVICE_USE();
    struct mem *m = cr_dmem();
    if (!m)
        return cudaErrorInitializationError;
    size_t len = (size + 255) & ~(size_t)255;
    struct gmem *gm = calloc(1, sizeof *gm);
    void *host = len >= size && size <= cr_ctx()->dev.global_mem - mem_used(m)
                     ? aligned_alloc(256, len)
                     : NULL;
    if (!gm || !host) {
        free(gm);
        free(host);
        return cudaErrorMemoryAllocation;
    }
    memset(host, 0, len);
    gm->host = host;
    gm->addr = (uint64_t)(uintptr_t)host;
    gm->size = size;
    gm->refs = 1;
    if (cr_hs_add(&cr_g.gmems, gm) < 0) {
        free(host);
        free(gm);
        return cudaErrorMemoryAllocation;
    }
    *out = gm;
    return cudaSuccess;
}

/* An allocation node runs (worker): map the memory at its address. Mapped already means an
 * AutoFreeOnLaunch relaunch (or an unordered free): the old allocation ends first. */
static cudaError_t gmem_map(struct gmem *gm)
{
    CR_DEVICE_USE();
    struct mem *m = cr_dmem();
    if (!gm || !m)
        return cudaErrorInvalidValue;
    cudaError_t e = cudaSuccess;
    pthread_mutex_lock(&cr_g.hlock);
    if (gm->mapped)
        mem_free(m, gm->addr);
    gm->mapped = mem_register(m, gm->host, gm->size, MEM_F_DEVICE) == 0;
    if (!gm->mapped)
        e = cudaErrorMemoryAllocation;
    pthread_mutex_unlock(&cr_g.hlock);
    return e;
}

/* A free of gm runs (worker, or cudaFree after waiting for the device): unmap its memory.
 * cudaErrorInvalidValue when it is not allocated. */
cudaError_t cr_gmem_unmap(struct gmem *gm)
{
    CR_DEVICE_USE();
    struct mem *m = cr_dmem();
    cudaError_t e = cudaSuccess;
    pthread_mutex_lock(&cr_g.hlock);
    if (!m || !gm->mapped || mem_free(m, gm->addr) < 0)
        e = cudaErrorInvalidValue;
    gm->mapped = false;
    gmem_dispose_locked(gm);
    pthread_mutex_unlock(&cr_g.hlock);
    return e;
}

/* The program frees addr (cudaFreeAsync outside a capture, cudaFree), in program order: 1 if
 * it is a live graph allocation (no longer live now; the caller unmaps it in device order), -1
 * if it is a graph allocation that is not allocated, 0 if it is no graph allocation. */
int cr_gmem_program_free(uint64_t addr)
{
    int r = 0;
    pthread_mutex_lock(&cr_g.hlock);
    for (size_t i = 0; i < cr_g.gmems.n; i++) {
        struct gmem *gm = cr_g.gmems.v[i];
        if (gm->addr == addr) {
            r = gm->live ? 1 : -1;
            gm->live = false;
            break;
        }
    }
    pthread_mutex_unlock(&cr_g.hlock);
    return r;
}

/* Is [addr, addr+n) inside a live graph allocation? */
bool cr_gmem_live_range(uint64_t addr, size_t n)
{
    bool r = false;
    pthread_mutex_lock(&cr_g.hlock);
    for (size_t i = 0; i < cr_g.gmems.n && !r; i++) {
        const struct gmem *gm = cr_g.gmems.v[i];
        r = gm->live && addr >= gm->addr && n <= gm->size && addr - gm->addr <= gm->size - n;
    }
    pthread_mutex_unlock(&cr_g.hlock);
    return r;
}

/* Apply fn to every node of g and of its child graphs. */
static void graph_walk(struct CUgraph_st *g, void (*fn)(struct CUgraphNode_st *nd, void *arg),
                       void *arg)
{
    for (size_t i = 0; i < g->n; i++) {
        fn(g->nodes[i], arg);
        if (g->nodes[i]->kind == NK_GRAPH && g->nodes[i]->child)
            graph_walk(g->nodes[i]->child, fn, arg);
    }
}

struct gmem_launch {
    bool autofree;
    bool busy;      /* an allocation of the graph is still live */
    int pass;       /* 0 check, 1 allocations become live, 2 the graph's frees */
};

static void gmem_launch_node(struct CUgraphNode_st *nd, void *arg)
{
    struct gmem_launch *L = arg;
    if (nd->kind == NK_MEMALLOC && nd->gm) {
        if (L->pass == 0 && nd->gm->live && !L->autofree)
            L->busy = true;
        if (L->pass == 1)
            nd->gm->live = true;
    } else if (nd->kind == NK_MEMFREE && L->pass == 2) {
        for (size_t i = 0; i < cr_g.gmems.n; i++) {
            struct gmem *gm = cr_g.gmems.v[i];
            if (gm->addr == (uint64_t)(uintptr_t)nd->dst)
                gm->live = false;
        }
    }
}

/* A launch of g is submitted (program order): cudaErrorInvalidValue if one of its allocations
 * is still live from an earlier launch (CUDA's rule, unless the executable graph was
 * instantiated with cudaGraphInstantiateFlagAutoFreeOnLaunch); else its allocations become
 * live, except those a free node of the graph frees again. */
static cudaError_t gmem_launch(struct CUgraph_st *g, bool autofree)
{
    struct gmem_launch L = {.autofree = autofree};
    pthread_mutex_lock(&cr_g.hlock);
    graph_walk(g, gmem_launch_node, &L);
    if (!L.busy) {
        L.pass = 1;
        graph_walk(g, gmem_launch_node, &L);
        L.pass = 2;
        graph_walk(g, gmem_launch_node, &L);
    }
    pthread_mutex_unlock(&cr_g.hlock);
    return L.busy ? cudaErrorInvalidValue : cudaSuccess;
}

EXPORT cudaError_t cudaDeviceGraphMemTrim(int device)
{
    return device == 0 ? cudaSuccess : cr_ret(cudaErrorInvalidDevice);
}

EXPORT cudaError_t cudaDeviceGetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr,
                                                  void *value)
{
    (void)attr;
    if (device != 0)
        return cr_ret(cudaErrorInvalidDevice);
    if (!value)
        return cr_ret(cudaErrorInvalidValue);
    *(unsigned long long *)value = 0;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags)
{
    if (!pGraph || flags)
        return cr_ret(cudaErrorInvalidValue);
    struct CUgraph_st *g = calloc(1, sizeof *g);
    if (!g || cr_hs_add(&cr_g.graphs, g) < 0) {
        free(g);
        return cr_ret(cudaErrorMemoryAllocation);
    }
    *pGraph = g;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    if (!graph || !cr_hs_del(&cr_g.graphs, graph))
        return cr_ret(cudaErrorInvalidValue);
    cr_graph_free(graph);
    return cudaSuccess;
}

cudaError_t cr_graph_add(cudaGraphNode_t *pNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                         size_t ndeps, struct CUgraphNode_st *nd)
{
    if (!nd)
        return cr_ret(cudaErrorMemoryAllocation);
    if (!pNode || !graph || !cr_hs_has(&cr_g.graphs, graph) || (ndeps && !deps)) {
        cr_node_free(nd);
        return cr_ret(cudaErrorInvalidValue);
    }
    for (size_t i = 0; i < ndeps; i++)
        if (!deps[i] || deps[i]->graph != graph || cr_nl_add(&nd->deps, deps[i]) < 0) {
            cr_node_free(nd);
            return cr_ret(cudaErrorInvalidValue);
        }
    if (cr_graph_push(graph, nd) < 0) {
        cr_node_free(nd);
        return cr_ret(cudaErrorMemoryAllocation);
    }
    *pNode = nd;
    return cudaSuccess;
}

static struct CUgraphNode_st *kernel_node(const struct cudaKernelNodeParams *p, cudaError_t *err)
{
    *err = cudaErrorInvalidValue;
    if (!p)
        return NULL;
    struct rt_func *f;
    if ((*err = cr_func_loaded(p->func, &f)))
        return NULL;
    struct CUgraphNode_st *nd = cr_node_new(NK_KERNEL);
    uint32_t n = f->info.param_size_total;
    if (!nd || !(nd->params = malloc(n ? n : 1))) {
        cr_node_free(nd);
        *err = cudaErrorMemoryAllocation;
        return NULL;
    }
    if (p->extra) {
        cr_node_free(nd);
        *err = cudaErrorNotSupported;
        return NULL;
    }
    if (rt_build_params(&f->info, p->kernelParams, nd->params)) {
        cr_node_free(nd);
        *err = cudaErrorInvalidValue;
        return NULL;
    }
    nd->func = f;
    nd->grid[0] = p->gridDim.x;
    nd->grid[1] = p->gridDim.y;
    nd->grid[2] = p->gridDim.z;
    nd->block[0] = p->blockDim.x;
    nd->block[1] = p->blockDim.y;
    nd->block[2] = p->blockDim.z;
    nd->shared = p->sharedMemBytes;
    *err = cudaSuccess;
    return nd;
}

/* New kernel parameters for an existing node (its edges stay). */
cudaError_t cr_kernel_node_update(struct CUgraphNode_st *node,
                                  const struct cudaKernelNodeParams *p)
{
    cudaError_t e;
    struct CUgraphNode_st *nd = kernel_node(p, &e);
    if (!nd)
        return cr_ret(e);
    free(node->params);
    node->params = nd->params;
    node->func = nd->func;
    memcpy(node->grid, nd->grid, sizeof node->grid);
    memcpy(node->block, nd->block, sizeof node->block);
    node->shared = nd->shared;
    nd->params = NULL;
    cr_node_free(nd);
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                          const cudaGraphNode_t *pDependencies,
                                          size_t numDependencies,
                                          const struct cudaKernelNodeParams *pNodeParams)
{
    cudaError_t e;
    struct CUgraphNode_st *nd = kernel_node(pNodeParams, &e);
    if (!nd)
        return cr_ret(e);
    return cr_graph_add(pGraphNode, graph, pDependencies, numDependencies, nd);
}

EXPORT cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                            const cudaGraphNode_t *pDependencies,
                                            size_t numDependencies, void *dst, const void *src,
                                            size_t count, enum cudaMemcpyKind kind)
{
    if ((unsigned)kind > cudaMemcpyDefault)
        return cr_ret(cudaErrorInvalidMemcpyDirection);
    if (count && (!dst || !src))
        return cr_ret(cudaErrorInvalidValue);
    struct CUgraphNode_st *nd = cr_node_new(NK_MEMCPY);
    if (nd)
        nd->cp = cr_copy_1d(dst, src, count, kind);
    return cr_graph_add(pGraphNode, graph, pDependencies, numDependencies, nd);
}

EXPORT cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                          const cudaGraphNode_t *pDependencies,
                                          size_t numDependencies,
                                          const struct cudaMemcpy3DParms *p)
{
    struct copy_desc cd;
    cudaError_t e = cr_desc_of_3d(p, &cd);
    if (e)
        return cr_ret(e);
    if ((unsigned)cd.kind > cudaMemcpyDefault)
        return cr_ret(cudaErrorInvalidMemcpyDirection);
    struct CUgraphNode_st *nd = cr_node_new(NK_MEMCPY);
    if (nd)
        nd->cp = cd;
    return cr_graph_add(pGraphNode, graph, pDependencies, numDependencies, nd);
}

EXPORT cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                          const cudaGraphNode_t *pDependencies,
                                          size_t numDependencies,
                                          const struct cudaMemsetParams *p)
{
    if (!p || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4) ||
        !p->height)
        return cr_ret(cudaErrorInvalidValue);
    struct CUgraphNode_st *nd = cr_node_new(NK_MEMSET);
    if (nd) {
        nd->dst = p->dst;
        nd->pitch = p->height > 1 ? p->pitch : p->width * p->elementSize;
        nd->value = p->value;
        nd->elem = p->elementSize;
        nd->width = p->width;
        nd->height = p->height;
    }
    return cr_graph_add(pGraphNode, graph, pDependencies, numDependencies, nd);
}

EXPORT cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                        const cudaGraphNode_t *pDependencies,
                                        size_t numDependencies,
                                        const struct cudaHostNodeParams *p)
{
    if (!p || !p->fn)
        return cr_ret(cudaErrorInvalidValue);
    struct CUgraphNode_st *nd = cr_node_new(NK_HOST);
    if (nd) {
        nd->fn = p->fn;
        nd->user = p->userData;
    }
    return cr_graph_add(pGraphNode, graph, pDependencies, numDependencies, nd);
}

EXPORT cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                         const cudaGraphNode_t *pDependencies,
                                         size_t numDependencies)
{
    return cr_graph_add(pGraphNode, graph, pDependencies, numDependencies, cr_node_new(NK_EMPTY));
}

EXPORT cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                              const cudaGraphNode_t *pDependencies,
                                              size_t numDependencies, cudaGraph_t childGraph)
{
    if (!childGraph || !cr_hs_has(&cr_g.graphs, childGraph))
        return cr_ret(cudaErrorInvalidValue);
    struct CUgraphNode_st *nd = cr_node_new(NK_GRAPH);
    if (nd && !(nd->child = graph_clone(childGraph))) {
        free(nd);
        nd = NULL;
    }
    return cr_graph_add(pGraphNode, graph, pDependencies, numDependencies, nd);
}

EXPORT cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                            const cudaGraphNode_t *pDependencies,
                                            size_t numDependencies,
                                            struct cudaMemAllocNodeParams *nodeParams)
{
    if (!nodeParams || !nodeParams->bytesize ||
        nodeParams->poolProps.allocType != cudaMemAllocationTypePinned ||
        nodeParams->poolProps.location.type != cudaMemLocationTypeDevice ||
        nodeParams->poolProps.location.id != 0)
        return cr_ret(cudaErrorInvalidValue);
    if (!pGraphNode || !graph || !cr_hs_has(&cr_g.graphs, graph))
        return cr_ret(cudaErrorInvalidValue);
    /* CUDA gives the address out at node creation: allocate it now (struct gmem) */
    struct gmem *gm;
    cudaError_t e = cr_gmem_new(nodeParams->bytesize, &gm);
    if (e)
        return cr_ret(e);
    struct CUgraphNode_st *nd = cr_node_new(NK_MEMALLOC);
    if (!nd) {
        cr_gmem_release(gm);
        return cr_ret(cudaErrorMemoryAllocation);
    }
    nd->gm = gm;
    nd->size = nodeParams->bytesize;
    e = cr_graph_add(pGraphNode, graph, pDependencies, numDependencies, nd);
    if (!e)
        nodeParams->dptr = (void *)(uintptr_t)gm->addr;
    return e;
}

EXPORT cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                           const cudaGraphNode_t *pDependencies,
                                           size_t numDependencies, void *dptr)
{
    CR_DEVICE_USE();
    struct mem *m = cr_dmem();
    if (!dptr || !m ||
        (!cr_gmem_find((uint64_t)(uintptr_t)dptr) && !mem_find(m, (uint64_t)(uintptr_t)dptr, 1)))
        return cr_ret(cudaErrorInvalidValue);
    struct CUgraphNode_st *nd = cr_node_new(NK_MEMFREE);
    if (nd)
        nd->dst = dptr;
    return cr_graph_add(pGraphNode, graph, pDependencies, numDependencies, nd);
}

EXPORT cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                    const cudaGraphNode_t *pDependencies,
                                    const cudaGraphEdgeData *dependencyData,
                                    size_t numDependencies, struct cudaGraphNodeParams *p)
{
    (void)dependencyData;
    if (!p)
        return cr_ret(cudaErrorInvalidValue);
    switch (p->type) {
    case cudaGraphNodeTypeKernel:
        return cudaGraphAddKernelNode(pGraphNode, graph, pDependencies, numDependencies,
                                      (const struct cudaKernelNodeParams *)&p->kernel);
    case cudaGraphNodeTypeMemset:
        return cudaGraphAddMemsetNode(pGraphNode, graph, pDependencies, numDependencies,
                                      (const struct cudaMemsetParams *)&p->memset);
    case cudaGraphNodeTypeHost:
        return cudaGraphAddHostNode(pGraphNode, graph, pDependencies, numDependencies,
                                    (const struct cudaHostNodeParams *)&p->host);
    case cudaGraphNodeTypeEmpty:
        return cudaGraphAddEmptyNode(pGraphNode, graph, pDependencies, numDependencies);
    case cudaGraphNodeTypeMemFree:
        return cudaGraphAddMemFreeNode(pGraphNode, graph, pDependencies, numDependencies,
                                       p->free.dptr);
    case cudaGraphNodeTypeMemcpy:
        return cudaGraphAddMemcpyNode(pGraphNode, graph, pDependencies, numDependencies,
                                      &p->memcpy.copyParams);
    case cudaGraphNodeTypeMemAlloc: {
        struct cudaMemAllocNodeParams ap;
        memset(&ap, 0, sizeof ap);
        ap.poolProps = p->alloc.poolProps;
        ap.accessDescs = p->alloc.accessDescs;
        ap.accessDescCount = p->alloc.accessDescCount;
        ap.bytesize = p->alloc.bytesize;
        cudaError_t e = cudaGraphAddMemAllocNode(pGraphNode, graph, pDependencies,
                                                 numDependencies, &ap);
        if (!e)
            p->alloc.dptr = ap.dptr;
        return e;
    }
    case cudaGraphNodeTypeGraph:
        return cudaGraphAddChildGraphNode(pGraphNode, graph, pDependencies, numDependencies,
                                          p->graph.graph);
    case cudaGraphNodeTypeEventRecord:
        return cudaGraphAddEventRecordNode(pGraphNode, graph, pDependencies, numDependencies,
                                           p->eventRecord.event);
    case cudaGraphNodeTypeWaitEvent:
        return cudaGraphAddEventWaitNode(pGraphNode, graph, pDependencies, numDependencies,
                                         p->eventWait.event);
    default:
        cr_not_supported("this cudaGraphAddNode node type");
        return cr_ret(cudaErrorNotSupported);
    }
}

EXPORT cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes)
{
    if (!graph || !numNodes || !cr_hs_has(&cr_g.graphs, graph))
        return cr_ret(cudaErrorInvalidValue);
    if (!nodes) {
        *numNodes = graph->n;
        return cudaSuccess;
    }
    size_t n = *numNodes < graph->n ? *numNodes : graph->n;
    for (size_t i = 0; i < n; i++)
        nodes[i] = graph->nodes[i];
    for (size_t i = n; i < *numNodes; i++)
        nodes[i] = NULL;
    *numNodes = n;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph)
{
    if (!pGraphClone || !originalGraph || !cr_hs_has(&cr_g.graphs, originalGraph))
        return cr_ret(cudaErrorInvalidValue);
    struct CUgraph_st *c = graph_clone(originalGraph);
    if (!c || cr_hs_add(&cr_g.graphs, c) < 0) {
        cr_graph_free(c);
        return cr_ret(cudaErrorMemoryAllocation);
    }
    *pGraphClone = c;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                 unsigned long long flags)
{
    if (!pGraphExec || !graph || !cr_hs_has(&cr_g.graphs, graph) ||
        (flags & ~(unsigned long long)(cudaGraphInstantiateFlagAutoFreeOnLaunch |
                                       cudaGraphInstantiateFlagUpload |
                                       cudaGraphInstantiateFlagDeviceLaunch |
                                       cudaGraphInstantiateFlagUseNodePriority)))
        return cr_ret(cudaErrorInvalidValue);
    struct CUgraphNode_st **order;
    if (graph_order(graph, &order) < 0)
        return cr_ret(cudaErrorInvalidValue); /* a cycle */
    free(order);
    struct CUgraphExec_st *x = calloc(1, sizeof *x);
    if (x)
        x->flags = flags;
    if (!x || !(x->g = graph_clone(graph)) || cr_hs_add(&cr_g.execs, x) < 0) {
        if (x)
            cr_graph_free(x->g);
        free(x);
        return cr_ret(cudaErrorMemoryAllocation);
    }
    *pGraphExec = x;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                        unsigned long long flags)
{
    return cudaGraphInstantiateWithFlags(pGraphExec, graph, flags);
}

EXPORT cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                  cudaGraphInstantiateParams *instantiateParams)
{
    if (!instantiateParams)
        return cr_ret(cudaErrorInvalidValue);
    cudaError_t e = cudaGraphInstantiateWithFlags(pGraphExec, graph, instantiateParams->flags);
    instantiateParams->errNode_out = NULL;
    instantiateParams->result_out = e ? cudaGraphInstantiateError : cudaGraphInstantiateSuccess;
    if (!e && (instantiateParams->flags & cudaGraphInstantiateFlagUpload))
        e = cudaGraphUpload(*pGraphExec, instantiateParams->uploadStream);
    return e;
}

EXPORT cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t graphExec, unsigned long long *flags)
{
    if (!graphExec || !flags || !cr_hs_has(&cr_g.execs, graphExec))
        return cr_ret(cudaErrorInvalidValue);
    *flags = graphExec->flags;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec)
{
    if (!graphExec || !cr_hs_del(&cr_g.execs, graphExec))
        return cr_ret(cudaErrorInvalidValue);
    cr_graph_free(graphExec->g);
    free(graphExec);
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    CHECK_STICKY();
    if (!graphExec || !cr_hs_has(&cr_g.execs, graphExec))
        return cr_ret(cudaErrorInvalidValue);
    if (!cr_stream_ok(stream))
        return cr_ret(cudaErrorInvalidResourceHandle);
    /* in a capture the launch becomes a child graph node; its graph memory is accounted when
     * the capture's graph is launched */
    struct CUstream_st *so = cr_stream_obj(stream);
    bool autofree = graphExec->flags & cudaGraphInstantiateFlagAutoFreeOnLaunch;
    cudaError_t e = so && so->capture ? cudaSuccess : gmem_launch(graphExec->g, autofree);
    if (e)
        return cr_ret(e);
    struct CUgraphNode_st *nd = cr_node_new(NK_GRAPH);
    if (!nd || !(nd->child = graph_clone(graphExec->g))) {
        free(nd);
        return cr_ret(cudaErrorMemoryAllocation);
    }
    return cr_ret(cr_submit(stream, nd));
}

EXPORT cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    if (!graphExec || !cr_hs_has(&cr_g.execs, graphExec))
        return cr_ret(cudaErrorInvalidValue);
    return cr_stream_ok(stream) ? cudaSuccess : cr_ret(cudaErrorInvalidResourceHandle);
}

EXPORT cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                       cudaGraphExecUpdateResultInfo *resultInfo)
{
    if (!hGraphExec || !cr_hs_has(&cr_g.execs, hGraphExec) || !hGraph ||
        !cr_hs_has(&cr_g.graphs, hGraph))
        return cr_ret(cudaErrorInvalidValue);
    struct CUgraph_st *xg = hGraphExec->g;
    bool same = hGraph->n == xg->n;
    for (size_t i = 0; same && i < hGraph->n; i++) {
        hGraph->nodes[i]->idx = xg->nodes[i]->idx = i;
        same = hGraph->nodes[i]->kind == xg->nodes[i]->kind &&
               hGraph->nodes[i]->deps.n == xg->nodes[i]->deps.n;
    }
    for (size_t i = 0; same && i < hGraph->n; i++)
        for (size_t j = 0; same && j < hGraph->nodes[i]->deps.n; j++)
            same = hGraph->nodes[i]->deps.v[j]->idx == xg->nodes[i]->deps.v[j]->idx;
    if (resultInfo) {
        memset(resultInfo, 0, sizeof *resultInfo);
        resultInfo->result = same ? cudaGraphExecUpdateSuccess
                                  : cudaGraphExecUpdateErrorTopologyChanged;
    }
    if (!same)
        return cr_ret(cudaErrorGraphExecUpdateFailure);
    struct CUgraph_st *c = graph_clone(hGraph);
    if (!c)
        return cr_ret(cudaErrorMemoryAllocation);
    cr_graph_free(hGraphExec->g);
    hGraphExec->g = c;
    return cudaSuccess;
}
