/*
 * runtime/cudart_graph_node.c — libcudart.so.13: the graph API on existing nodes and edges
 * (cudart_graph.c builds, instantiates and runs graphs): node types and the nodes and edges of
 * a graph, adding and removing dependencies, node parameters (get and set, in a graph and in
 * an executable graph), kernel node attributes, enabling nodes, finding a node in a clone,
 * event record / wait nodes and the memcpy-to/from-symbol nodes.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/cudart_private.h"

/* A dim3 of three sizes. */
static dim3 dim3_of(const uint32_t v[3])
{
    dim3 d;
    d.x = v[0];
    d.y = v[1];
    d.z = v[2];
    return d;
}

/* The executable graph's copy of node (a node of the graph it was instantiated from: same
 * index), if it has the given kind (or any kind for kind < 0). */
static struct CUgraphNode_st *exec_node(cudaGraphExec_t x, cudaGraphNode_t node, int kind)
{
    if (!x || !node || !cr_hs_has(&cr_g.execs, x))
        return NULL;
    struct CUgraph_st *og = node->graph;
    size_t idx = SIZE_MAX;
    for (size_t i = 0; og && i < og->n; i++)
        if (og->nodes[i] == node)
            idx = i;
    if (idx == SIZE_MAX || idx >= x->g->n || x->g->nodes[idx]->kind != node->kind ||
        (kind >= 0 && node->kind != (enum node_kind)kind))
        return NULL;
    return x->g->nodes[idx];
}

EXPORT cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec,
                                                    cudaGraphNode_t node,
                                                    const struct cudaKernelNodeParams *p)
{
    struct CUgraphNode_st *x = exec_node(hGraphExec, node, NK_KERNEL);
    if (!x)
        return cr_ret(cudaErrorInvalidValue);
    return cr_kernel_node_update(x, p);
}

EXPORT cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *pType)
{
    if (!node || !pType)
        return cr_ret(cudaErrorInvalidValue);
    static const enum cudaGraphNodeType map[] = {
        [NK_KERNEL] = cudaGraphNodeTypeKernel,     [NK_MEMCPY] = cudaGraphNodeTypeMemcpy,
        [NK_MEMSET] = cudaGraphNodeTypeMemset,     [NK_HOST] = cudaGraphNodeTypeHost,
        [NK_EMPTY] = cudaGraphNodeTypeEmpty,       [NK_MEMALLOC] = cudaGraphNodeTypeMemAlloc,
        [NK_MEMFREE] = cudaGraphNodeTypeMemFree,   [NK_GRAPH] = cudaGraphNodeTypeGraph,
        [NK_EVENT_RECORD] = cudaGraphNodeTypeEventRecord,
        [NK_WAIT_EVENT] = cudaGraphNodeTypeWaitEvent,
    };
    *pType = map[node->kind];
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node,
                                                struct cudaKernelNodeParams *p)
{
    if (!node || !p || node->kind != NK_KERNEL)
        return cr_ret(cudaErrorInvalidValue);
    memset(p, 0, sizeof *p);
    p->func = (void *)node->func->host;
    p->gridDim = dim3_of(node->grid);
    p->blockDim = dim3_of(node->block);
    p->sharedMemBytes = node->shared;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
                                                const struct cudaKernelNodeParams *p)
{
    if (!node || node->kind != NK_KERNEL)
        return cr_ret(cudaErrorInvalidValue);
    return cr_kernel_node_update(node, p);
}

EXPORT cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                               const cudaGraphNode_t *pDependencies,
                                               size_t numDependencies, cudaEvent_t event)
{
    if (!event || !cr_hs_has(&cr_g.events, event))
        return cr_ret(cudaErrorInvalidResourceHandle);
    struct CUgraphNode_st *nd = cr_node_new(NK_EVENT_RECORD);
    if (nd)
        nd->event = event;
    return cr_graph_add(pGraphNode, graph, pDependencies, numDependencies, nd);
}

EXPORT cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                             const cudaGraphNode_t *pDependencies,
                                             size_t numDependencies, cudaEvent_t event)
{
    if (!event || !cr_hs_has(&cr_g.events, event))
        return cr_ret(cudaErrorInvalidResourceHandle);
    struct CUgraphNode_st *nd = cr_node_new(NK_WAIT_EVENT);
    if (nd)
        nd->event = event;
    return cr_graph_add(pGraphNode, graph, pDependencies, numDependencies, nd);
}

/* Are from[i] -> to[i] nodes of graph? */
static bool edges_ok(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                     size_t n)
{
    if (!graph || !cr_hs_has(&cr_g.graphs, graph) || (n && (!from || !to)))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!from[i] || !to[i] || from[i]->graph != graph || to[i]->graph != graph ||
            from[i] == to[i])
            return false;
    return true;
}

/* Edges are kept on the dependent node; launches run nodes in a topological order. */
EXPORT cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                            const cudaGraphNode_t *to,
                                            const cudaGraphEdgeData *edgeData,
                                            size_t numDependencies)
{
    (void)edgeData;
    if (!edges_ok(graph, from, to, numDependencies))
        return cr_ret(cudaErrorInvalidValue);
    for (size_t i = 0; i < numDependencies; i++)
        for (size_t j = 0; j < to[i]->deps.n; j++)
            if (to[i]->deps.v[j] == from[i])
                return cr_ret(cudaErrorInvalidValue); /* already there */
    for (size_t i = 0; i < numDependencies; i++)
        if (cr_nl_add(&to[i]->deps, from[i]) < 0)
            return cr_ret(cudaErrorMemoryAllocation);
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                               const cudaGraphNode_t *to,
                                               const cudaGraphEdgeData *edgeData,
                                               size_t numDependencies)
{
    (void)edgeData;
    if (!edges_ok(graph, from, to, numDependencies))
        return cr_ret(cudaErrorInvalidValue);
    for (size_t i = 0; i < numDependencies; i++) {
        bool found = false;
        for (size_t j = 0; j < to[i]->deps.n; j++)
            found |= to[i]->deps.v[j] == from[i];
        if (!found)
            return cr_ret(cudaErrorInvalidValue);
    }
    for (size_t i = 0; i < numDependencies; i++)
        cr_nl_del(&to[i]->deps, from[i]);
    return cudaSuccess;
}

/* Fill a caller's node array CUDA-style: with NULL just count; else copy up to *n. */
static void node_out(cudaGraphNode_t *out, size_t *n, size_t k, cudaGraphNode_t nd)
{
    if (out && k < *n)
        out[k] = nd;
}

EXPORT cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to,
                                     cudaGraphEdgeData *edgeData, size_t *numEdges)
{
    if (!graph || !numEdges || !cr_hs_has(&cr_g.graphs, graph) || (!from != !to))
        return cr_ret(cudaErrorInvalidValue);
    size_t k = 0;
    for (size_t i = 0; i < graph->n; i++)
        for (size_t j = 0; j < graph->nodes[i]->deps.n; j++, k++) {
            node_out(from, numEdges, k, graph->nodes[i]->deps.v[j]);
            node_out(to, numEdges, k, graph->nodes[i]);
            if (edgeData && from && k < *numEdges)
                memset(&edgeData[k], 0, sizeof edgeData[k]);
        }
    if (from && k < *numEdges)
        for (size_t i = k; i < *numEdges; i++)
            from[i] = to[i] = NULL;
    *numEdges = from && *numEdges < k ? *numEdges : k;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes,
                                         size_t *pNumRootNodes)
{
    if (!graph || !pNumRootNodes || !cr_hs_has(&cr_g.graphs, graph))
        return cr_ret(cudaErrorInvalidValue);
    size_t k = 0;
    for (size_t i = 0; i < graph->n; i++)
        if (!graph->nodes[i]->deps.n)
            node_out(pRootNodes, pNumRootNodes, k++, graph->nodes[i]);
    *pNumRootNodes = pRootNodes && *pNumRootNodes < k ? *pNumRootNodes : k;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node,
                                                cudaGraphNode_t *pDependencies,
                                                cudaGraphEdgeData *edgeData,
                                                size_t *pNumDependencies)
{
    if (!node || !pNumDependencies)
        return cr_ret(cudaErrorInvalidValue);
    size_t k = node->deps.n;
    for (size_t i = 0; i < k; i++) {
        node_out(pDependencies, pNumDependencies, i, node->deps.v[i]);
        if (edgeData && pDependencies && i < *pNumDependencies)
            memset(&edgeData[i], 0, sizeof edgeData[i]);
    }
    *pNumDependencies = pDependencies && *pNumDependencies < k ? *pNumDependencies : k;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node,
                                                  cudaGraphNode_t *pDependentNodes,
                                                  cudaGraphEdgeData *edgeData,
                                                  size_t *pNumDependentNodes)
{
    if (!node || !pNumDependentNodes || !node->graph)
        return cr_ret(cudaErrorInvalidValue);
    struct CUgraph_st *g = node->graph;
    size_t k = 0;
    for (size_t i = 0; i < g->n; i++)
        for (size_t j = 0; j < g->nodes[i]->deps.n; j++)
            if (g->nodes[i]->deps.v[j] == node) {
                node_out(pDependentNodes, pNumDependentNodes, k, g->nodes[i]);
                if (edgeData && pDependentNodes && k < *pNumDependentNodes)
                    memset(&edgeData[k], 0, sizeof edgeData[k]);
                k++;
            }
    *pNumDependentNodes = pDependentNodes && *pNumDependentNodes < k ? *pNumDependentNodes : k;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node)
{
    if (!node || !node->graph)
        return cr_ret(cudaErrorInvalidValue);
    struct CUgraph_st *g = node->graph;
    for (size_t i = 0; i < g->n; i++)
        if (g->nodes[i] == node) {
            memmove(&g->nodes[i], &g->nodes[i + 1], (g->n - i - 1) * sizeof node);
            g->n--;
            for (size_t j = 0; j < g->n; j++)
                cr_nl_del(&g->nodes[j]->deps, node);
            cr_node_free(node);
            return cudaSuccess;
        }
    return cr_ret(cudaErrorInvalidValue);
}

EXPORT cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node,
                                                struct cudaMemcpy3DParms *p)
{
    if (!node || !p || node->kind != NK_MEMCPY)
        return cr_ret(cudaErrorInvalidValue);
    const struct copy_desc *cd = &node->cp;
    memset(p, 0, sizeof *p);
    p->srcPtr.ptr = (void *)cd->src;
    p->srcPtr.pitch = cd->spitch;
    p->srcPtr.xsize = cd->width;
    p->srcPtr.ysize = cd->spitch ? cd->sslice / cd->spitch : 0;
    p->dstPtr.ptr = cd->dst;
    p->dstPtr.pitch = cd->dpitch;
    p->dstPtr.xsize = cd->width;
    p->dstPtr.ysize = cd->dpitch ? cd->dslice / cd->dpitch : 0;
    p->extent.width = cd->width;
    p->extent.height = cd->height;
    p->extent.depth = cd->depth;
    p->kind = cd->kind;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, struct cudaMemsetParams *p)
{
    if (!node || !p || node->kind != NK_MEMSET)
        return cr_ret(cudaErrorInvalidValue);
    memset(p, 0, sizeof *p);
    p->dst = node->dst;
    p->pitch = node->pitch;
    p->value = node->value;
    p->elementSize = node->elem;
    p->width = node->width;
    p->height = node->height;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, struct cudaHostNodeParams *p)
{
    if (!node || !p || node->kind != NK_HOST)
        return cr_ret(cudaErrorInvalidValue);
    p->fn = node->fn;
    p->userData = node->user;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t *pGraph)
{
    if (!node || !pGraph || node->kind != NK_GRAPH)
        return cr_ret(cudaErrorInvalidValue);
    *pGraph = node->child;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node,
                                                  struct cudaMemAllocNodeParams *params_out)
{
    if (!node || !params_out || node->kind != NK_MEMALLOC || !node->gm)
        return cr_ret(cudaErrorInvalidValue);
    memset(params_out, 0, sizeof *params_out);
    params_out->poolProps.allocType = cudaMemAllocationTypePinned;
    params_out->poolProps.location.type = cudaMemLocationTypeDevice;
    params_out->bytesize = node->size;
    params_out->dptr = (void *)(uintptr_t)node->gm->addr;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void *dptr_out)
{
    if (!node || !dptr_out || node->kind != NK_MEMFREE)
        return cr_ret(cudaErrorInvalidValue);
    *(void **)dptr_out = node->dst;
    return cudaSuccess;
}

static cudaError_t memset_params(struct CUgraphNode_st *nd, const struct cudaMemsetParams *p)
{
    if (!p || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4) || !p->height ||
        !p->dst)
        return cr_ret(cudaErrorInvalidValue);
    nd->dst = p->dst;
    nd->pitch = p->height > 1 ? p->pitch : p->width * p->elementSize;
    nd->value = p->value;
    nd->elem = p->elementSize;
    nd->width = p->width;
    nd->height = p->height;
    return cudaSuccess;
}

static cudaError_t memcpy_params(struct CUgraphNode_st *nd, const struct cudaMemcpy3DParms *p)
{
    struct copy_desc cd;
    cudaError_t e = cr_desc_of_3d(p, &cd);
    if (e)
        return cr_ret(e);
    if ((unsigned)cd.kind > cudaMemcpyDefault)
        return cr_ret(cudaErrorInvalidMemcpyDirection);
    nd->cp = cd;
    return cudaSuccess;
}

static cudaError_t memcpy1d_params(struct CUgraphNode_st *nd, void *dst, const void *src,
                                   size_t count, enum cudaMemcpyKind kind)
{
    if ((unsigned)kind > cudaMemcpyDefault)
        return cr_ret(cudaErrorInvalidMemcpyDirection);
    if (count && (!dst || !src))
        return cr_ret(cudaErrorInvalidValue);
    nd->cp = cr_copy_1d(dst, src, count, kind);
    return cudaSuccess;
}

static cudaError_t host_params(struct CUgraphNode_st *nd, const struct cudaHostNodeParams *p)
{
    if (!p || !p->fn)
        return cr_ret(cudaErrorInvalidValue);
    nd->fn = p->fn;
    nd->user = p->userData;
    return cudaSuccess;
}

#define NODE_OF(node, k)  ((node) && (node)->kind == (k) ? (node) : NULL)
#define CHECKED(nd, call) ((nd) ? (call) : cr_ret(cudaErrorInvalidValue))

EXPORT cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node,
                                                const struct cudaMemsetParams *pNodeParams)
{
    return CHECKED(NODE_OF(node, NK_MEMSET), memset_params(node, pNodeParams));
}

EXPORT cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node,
                                                const struct cudaMemcpy3DParms *pNodeParams)
{
    return CHECKED(NODE_OF(node, NK_MEMCPY), memcpy_params(node, pNodeParams));
}

EXPORT cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void *dst, const void *src,
                                                  size_t count, enum cudaMemcpyKind kind)
{
    return CHECKED(NODE_OF(node, NK_MEMCPY), memcpy1d_params(node, dst, src, count, kind));
}

EXPORT cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node,
                                              const struct cudaHostNodeParams *pNodeParams)
{
    return CHECKED(NODE_OF(node, NK_HOST), host_params(node, pNodeParams));
}

EXPORT cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec,
                                                    cudaGraphNode_t node,
                                                    const struct cudaMemsetParams *pNodeParams)
{
    struct CUgraphNode_st *x = exec_node(hGraphExec, node, NK_MEMSET);
    return CHECKED(x, memset_params(x, pNodeParams));
}

EXPORT cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hGraphExec,
                                                    cudaGraphNode_t node,
                                                    const struct cudaMemcpy3DParms *pNodeParams)
{
    struct CUgraphNode_st *x = exec_node(hGraphExec, node, NK_MEMCPY);
    return CHECKED(x, memcpy_params(x, pNodeParams));
}

EXPORT cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec,
                                                      cudaGraphNode_t node, void *dst,
                                                      const void *src, size_t count,
                                                      enum cudaMemcpyKind kind)
{
    struct CUgraphNode_st *x = exec_node(hGraphExec, node, NK_MEMCPY);
    return CHECKED(x, memcpy1d_params(x, dst, src, count, kind));
}

EXPORT cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                  const struct cudaHostNodeParams *pNodeParams)
{
    struct CUgraphNode_st *x = exec_node(hGraphExec, node, NK_HOST);
    return CHECKED(x, host_params(x, pNodeParams));
}

/* Disable / enable a node of an executable graph (kernel, memcpy and memset nodes). */
EXPORT cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                           unsigned int isEnabled)
{
    struct CUgraphNode_st *x = exec_node(hGraphExec, hNode, -1);
    if (!x || (x->kind != NK_KERNEL && x->kind != NK_MEMCPY && x->kind != NK_MEMSET))
        return cr_ret(cudaErrorInvalidValue);
    x->disabled = !isEnabled;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                           unsigned int *isEnabled)
{
    struct CUgraphNode_st *x = exec_node(hGraphExec, hNode, -1);
    if (!x || !isEnabled || (x->kind != NK_KERNEL && x->kind != NK_MEMCPY && x->kind != NK_MEMSET))
        return cr_ret(cudaErrorInvalidValue);
    *isEnabled = !x->disabled;
    return cudaSuccess;
}

/* The clone of originalNode in clonedGraph (made by cudaGraphClone: same index). */
EXPORT cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t *pNode, cudaGraphNode_t originalNode,
                                            cudaGraph_t clonedGraph)
{
    if (!pNode || !originalNode || !originalNode->graph || !clonedGraph ||
        !cr_hs_has(&cr_g.graphs, clonedGraph))
        return cr_ret(cudaErrorInvalidValue);
    struct CUgraph_st *og = originalNode->graph;
    for (size_t i = 0; i < og->n; i++)
        if (og->nodes[i] == originalNode) {
            if (i >= clonedGraph->n || clonedGraph->nodes[i]->kind != originalNode->kind)
                break;
            *pNode = clonedGraph->nodes[i];
            return cudaSuccess;
        }
    return cr_ret(cudaErrorInvalidValue);
}

EXPORT cudaError_t cudaDeviceSetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr,
                                                  void *value)
{
    (void)attr;
    if (device != 0)
        return cr_ret(cudaErrorInvalidDevice);
    return value ? cudaSuccess : cr_ret(cudaErrorInvalidValue);
}

/* Kernel node attributes: the cluster dimension is the node's launch's cluster shape (a
 * captured cudaLaunchKernelEx keeps its own); the others (access policy windows,
 * priorities, …) are accepted and read back as defaults: they change nothing in the
 * functional model. */
EXPORT cudaError_t cudaGraphKernelNodeGetAttribute(cudaGraphNode_t hNode, cudaKernelNodeAttrID attr,
                                                   cudaKernelNodeAttrValue *value_out)
{
    struct CUgraphNode_st *nd = NODE_OF(hNode, NK_KERNEL);
    if (!nd || !value_out)
        return cr_ret(cudaErrorInvalidValue);
    memset(value_out, 0, sizeof *value_out);
    if (attr == cudaKernelNodeAttributeClusterDimension) {
        value_out->clusterDim.x = nd->cluster[0];
        value_out->clusterDim.y = nd->cluster[1];
        value_out->clusterDim.z = nd->cluster[2];
    }
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t hNode, cudaKernelNodeAttrID attr,
                                                   const cudaKernelNodeAttrValue *value)
{
    struct CUgraphNode_st *nd = NODE_OF(hNode, NK_KERNEL);
    if (!nd || !value)
        return cr_ret(cudaErrorInvalidValue);
    if (attr == cudaKernelNodeAttributeClusterDimension) {
        if (!value->clusterDim.x || !value->clusterDim.y || !value->clusterDim.z)
            return cr_ret(cudaErrorInvalidValue);
        nd->cluster[0] = value->clusterDim.x;
        nd->cluster[1] = value->clusterDim.y;
        nd->cluster[2] = value->clusterDim.z;
    }
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphKernelNodeCopyAttributes(cudaGraphNode_t hDst, cudaGraphNode_t hSrc)
{
    struct CUgraphNode_st *d = NODE_OF(hDst, NK_KERNEL), *s = NODE_OF(hSrc, NK_KERNEL);
    if (!d || !s)
        return cr_ret(cudaErrorInvalidValue);
    memcpy(d->cluster, s->cluster, sizeof d->cluster);
    return cudaSuccess;
}

static cudaError_t event_node(cudaGraphNode_t node, enum node_kind k, cudaEvent_t *get,
                              cudaEvent_t set)
{
    if (!NODE_OF(node, k) || (get == NULL && (!set || !cr_hs_has(&cr_g.events, set))))
        return cr_ret(get ? cudaErrorInvalidValue : cudaErrorInvalidResourceHandle);
    if (get)
        *get = node->event;
    else
        node->event = set;
    return cudaSuccess;
}

EXPORT cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event_out)
{
    return event_out ? event_node(node, NK_EVENT_RECORD, event_out, NULL)
                     : cr_ret(cudaErrorInvalidValue);
}

EXPORT cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event)
{
    return event_node(node, NK_EVENT_RECORD, NULL, event);
}

EXPORT cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event_out)
{
    return event_out ? event_node(node, NK_WAIT_EVENT, event_out, NULL)
                     : cr_ret(cudaErrorInvalidValue);
}

EXPORT cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event)
{
    return event_node(node, NK_WAIT_EVENT, NULL, event);
}

/* Symbol copies as graph nodes: the symbol's device address is resolved now. */
static cudaError_t symbol_node(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                               const cudaGraphNode_t *deps, size_t ndeps, bool to, void *host,
                               const void *symbol, size_t count, size_t offset,
                               enum cudaMemcpyKind kind)
{
    uint64_t a, sz;
    cudaError_t e = cr_symbol_lookup(symbol, &a, &sz);
    if (e)
        return cr_ret(e);
    if (offset > sz || count > sz - offset)
        return cr_ret(cudaErrorInvalidValue);
    void *dev = (void *)(uintptr_t)(a + offset);
    return to ? cudaGraphAddMemcpyNode1D(pGraphNode, graph, deps, ndeps, dev, host, count, kind)
              : cudaGraphAddMemcpyNode1D(pGraphNode, graph, deps, ndeps, host, dev, count, kind);
}

EXPORT cudaError_t cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                  const cudaGraphNode_t *pDependencies,
                                                  size_t numDependencies, const void *symbol,
                                                  const void *src, size_t count, size_t offset,
                                                  enum cudaMemcpyKind kind)
{
    return symbol_node(pGraphNode, graph, pDependencies, numDependencies, true, (void *)src, symbol,
                       count, offset, kind);
}

EXPORT cudaError_t cudaGraphAddMemcpyNodeFromSymbol(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                    const cudaGraphNode_t *pDependencies,
                                                    size_t numDependencies, void *dst,
                                                    const void *symbol, size_t count, size_t offset,
                                                    enum cudaMemcpyKind kind)
{
    return symbol_node(pGraphNode, graph, pDependencies, numDependencies, false, dst, symbol, count,
                       offset, kind);
}
