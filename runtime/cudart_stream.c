/*
 * runtime/cudart_stream.c — libcudart.so.13: streams (creation, synchronization, queries,
 * waiting on events, callbacks and host functions), the per-thread default stream, and stream
 * capture into graphs.
 *
 * Device work goes through the runtime core's dependency queue (stream.c): each operation
 * follows its stream's previous one and the legacy default stream's barriers. A captured
 * stream appends nodes to its capture graph instead, with the stream's current dependency set.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/cudart_private.h"

/* ============================================================================== streams */

/* Is s a valid stream argument (0, the legacy and per-thread handles, or a live stream)? */
bool cr_stream_ok(cudaStream_t s)
{
    return s == NULL || s == cudaStreamLegacy || s == cudaStreamPerThread ||
           cr_hs_has(&cr_g.streams, s);
}

/* The calling thread's per-thread default stream (cudaStreamPerThread; stream 0 in programs
 * built with --default-stream per-thread): a blocking stream of its own, made on first use and
 * freed when the thread exits, so host threads' default-stream work runs concurrently as on a
 * GPU. NULL when it cannot be made: the legacy stream's (stronger) ordering applies. */
static _Thread_local struct CUstream_st *tls_ptds;

/* The ptds_key destructor: a thread's per-thread stream dies with the thread. */
void cr_ptds_free(void *p)
{
    struct CUstream_st *s = p;
    if (s == tls_ptds)
        tls_ptds = NULL;
    free(s->cdeps.v);
    free(s);
}

static struct CUstream_st *ptds(void)
{
    if (tls_ptds)
        return tls_ptds;
    cr_ctx();
    struct CUstream_st *s = cr_g.ptds_key_ok ? calloc(1, sizeof *s) : NULL;
    if (!s)
        return NULL;
    if (pthread_setspecific(cr_g.ptds_key, s) != 0) {
        free(s);
        return NULL;
    }
    s->magic = STREAM_MAGIC;
    s->id = 2; /* what cudaStreamGetId reports for the per-thread stream */
    return tls_ptds = s;
}

/* The stream object of handle s: NULL for the legacy stream (0, cudaStreamLegacy). */
struct CUstream_st *cr_stream_obj(cudaStream_t s)
{
    if (s == cudaStreamPerThread)
        return ptds();
    return (s == NULL || s == cudaStreamLegacy) ? NULL : s;
}

/* Stream 0 of an entry point of a --default-stream per-thread program (the _ptsz functions)
 * is the calling thread's per-thread stream. */
cudaStream_t cr_ptsz(cudaStream_t s)
{
    return s ? s : cudaStreamPerThread;
}

/* Where the next operation of stream s goes in the device work queue: after the stream's
 * previous operation, with the legacy default stream's barriers for its kind (rt.h). The
 * per-thread default stream is ordered as the legacy one. */
struct rt_order cr_order_of(cudaStream_t s)
{
    struct CUstream_st *so = cr_stream_obj(s);
    struct rt_order o = {so, RT_ORDER_LEGACY, {0, 0}};
    if (so) {
        o.kind = (so->flags & cudaStreamNonBlocking) ? RT_ORDER_NONBLOCKING : RT_ORDER_BLOCKING;
        o.after[0] = so->last_seq;
    }
    return o;
}

void cr_note_seq(cudaStream_t s, uint64_t seq)
{
    struct CUstream_st *so = cr_stream_obj(s);
    if (so)
        so->last_seq = seq;
}

/* Wait for device work (0: all), then flush device printf output: a CUDA flush point. */
void cr_sync_point(uint64_t seq)
{
    struct rt_ctx *c = cr_ctx();
    rt_wait(c, seq);
    rt_printf_flush(c, true);
}

/* Queue a node behind earlier work, or append it to the capture graph of stream s.
 * Takes ownership of nd. */
cudaError_t cr_submit(cudaStream_t s, struct CUgraphNode_st *nd)
{
    struct CUstream_st *so = cr_stream_obj(s);
    if (so && so->capture) {
        /* the node depends on the stream's current dependency set and becomes it */
        if (cr_nl_copy(&nd->deps, &so->cdeps) < 0 || cr_graph_push(so->capture, nd) < 0) {
            cr_node_free(nd);
            return cudaErrorMemoryAllocation;
        }
        so->cdeps.n = 0;
        cr_nl_add(&so->cdeps, nd);
        return cudaSuccess;
    }
    struct rt_order o = cr_order_of(s);
    cr_note_seq(s, rt_submit(cr_ctx(), &o, cr_node_op, nd));
    return cudaSuccess;
}

/* End the capture into g: every stream that joined it leaves it, and events recorded in it
 * no longer carry its dependencies. */
static void capture_detach(struct CUgraph_st *g)
{
    pthread_mutex_lock(&cr_g.hlock);
    for (size_t i = 0; i < cr_g.streams.n; i++) {
        struct CUstream_st *o = cr_g.streams.v[i];
        if (o->capture == g) {
            o->capture = NULL;
            o->capture_origin = NULL;
            o->cdeps.n = 0;
        }
    }
    for (size_t i = 0; i < cr_g.events.n; i++) {
        struct CUevent_st *e = cr_g.events.v[i];
        if (e->cap_graph == g) {
            e->cap_graph = NULL;
            e->cap_origin = NULL;
            e->cap_deps.n = 0;
        }
    }
    pthread_mutex_unlock(&cr_g.hlock);
}

static cudaError_t stream_create(cudaStream_t *pStream, unsigned flags, int priority)
{
    if (!pStream)
        return cr_ret(cudaErrorInvalidValue);
    if (flags & ~(unsigned)cudaStreamNonBlocking)
        return cr_ret(cudaErrorInvalidValue);
    struct CUstream_st *s = calloc(1, sizeof *s);
    if (!s)
        return cr_ret(cudaErrorMemoryAllocation);
    s->magic = STREAM_MAGIC;
    s->flags = flags;
    s->priority = priority < -5 ? -5 : priority > 0 ? 0 : priority;
    s->id = __atomic_fetch_add(&cr_g.next_stream_id, 1, __ATOMIC_RELAXED);
    if (cr_hs_add(&cr_g.streams, s) < 0) {
        free(s);
        return cr_ret(cudaErrorMemoryAllocation);
    }
    *pStream = s;
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
    CHECK_STICKY();
    return stream_create(pStream, 0, 0);
}

EXPORT cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
    CHECK_STICKY();
    return stream_create(pStream, flags, 0);
}

EXPORT cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags,
                                                int priority)
{
    CHECK_STICKY();
    return stream_create(pStream, flags, priority);
}

EXPORT cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    if (!stream || stream == cudaStreamLegacy || stream == cudaStreamPerThread)
        return cr_ret(cudaErrorInvalidResourceHandle);
    if (!cr_hs_del(&cr_g.streams, stream))
        return cr_ret(cudaErrorInvalidResourceHandle);
    if (stream->capture && stream->capture_origin == stream) {
        struct CUgraph_st *g = stream->capture;
        capture_detach(g); /* the capture is abandoned */
        if (!stream->capture_external)
            cr_graph_free(g);
    }
    stream->magic = 0;
    free(stream->cdeps.v);
    free(stream);
    return cudaSuccess;
}

/* The operation cudaStreamWaitEvent queues: nothing to do, its dependencies are the point. */
static void wait_op(struct rt_ctx *c, void *arg)
{
    (void)c;
    (void)arg;
}

EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    if (!cr_stream_ok(stream))
        return cr_ret(cudaErrorInvalidResourceHandle);
    struct CUstream_st *so = cr_stream_obj(stream);
    if (so && so->capture)
        return cr_ret(cudaErrorStreamCaptureUnsupported);
    uint64_t seq = so ? so->last_seq : 0;
    if (!so) {
        /* the legacy stream: an empty operation there follows exactly what it synchronizes
         * with (its own work and blocking streams'), not non-blocking streams */
        struct rt_order o = cr_order_of(stream);
        seq = rt_submit(cr_ctx(), &o, wait_op, NULL);
    }
    if (seq)
        cr_sync_point(seq);
    else
        rt_printf_flush(cr_ctx(), true);
    return cr_ret(cr_take_async_error());
}

EXPORT cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    if (!cr_stream_ok(stream))
        return cr_ret(cudaErrorInvalidResourceHandle);
    CHECK_STICKY();
    struct CUstream_st *so = cr_stream_obj(stream);
    bool done = so ? rt_done(cr_ctx(), so->last_seq) : rt_legacy_idle(cr_ctx());
    return done ? cudaSuccess : cudaErrorNotReady;
}

EXPORT cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags)
{
    if (!flags)
        return cr_ret(cudaErrorInvalidValue);
    if (!cr_stream_ok(hStream))
        return cr_ret(cudaErrorInvalidResourceHandle);
    struct CUstream_st *so = cr_stream_obj(hStream);
    *flags = so ? so->flags : 0;
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority)
{
    if (!priority)
        return cr_ret(cudaErrorInvalidValue);
    if (!cr_stream_ok(hStream))
        return cr_ret(cudaErrorInvalidResourceHandle);
    struct CUstream_st *so = cr_stream_obj(hStream);
    *priority = so ? so->priority : 0;
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamGetId(cudaStream_t hStream, unsigned long long *streamId)
{
    if (!streamId)
        return cr_ret(cudaErrorInvalidValue);
    if (!cr_stream_ok(hStream))
        return cr_ret(cudaErrorInvalidResourceHandle);
    struct CUstream_st *so = cr_stream_obj(hStream);
    *streamId = so ? so->id : (hStream == cudaStreamPerThread ? 2 : 1);
    return cudaSuccess;
}

/* Is stream o still capturing into graph g (the capture an event was recorded in)? */
static bool capture_live(struct CUstream_st *o, struct CUgraph_st *g)
{
    return o && g && cr_hs_has(&cr_g.streams, o) && o->capture == g && o->capture_origin == o;
}

/* The stream's later work follows the event's last record: an empty operation in the stream
 * that depends on both. In stream capture, an event recorded in a capturing stream makes the
 * waiting stream depend on the recorded nodes, and a stream that is not capturing joins the
 * capture (fork/join capture). */
EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    if (!cr_stream_ok(stream) || !event || !cr_hs_has(&cr_g.events, event))
        return cr_ret(cudaErrorInvalidResourceHandle);
    if (flags & ~1u)
        return cr_ret(cudaErrorInvalidValue);
    struct CUstream_st *so = cr_stream_obj(stream);
    if (capture_live(event->cap_origin, event->cap_graph)) {
        if (!so)
            return cr_ret(cudaErrorStreamCaptureImplicit);
        if (so->capture && so->capture != event->cap_graph)
            return cr_ret(cudaErrorStreamCaptureMerge);
        if (!so->capture) {
            so->capture = event->cap_graph;
            so->capture_origin = event->cap_origin;
            so->capture_external = event->cap_origin->capture_external;
            so->capture_mode = event->cap_origin->capture_mode;
            so->capture_id = event->cap_origin->capture_id;
            so->cdeps.n = 0;
        }
        for (size_t i = 0; i < event->cap_deps.n; i++)
            if (cr_nl_add(&so->cdeps, event->cap_deps.v[i]) < 0)
                return cr_ret(cudaErrorMemoryAllocation);
        return cudaSuccess;
    }
    if (so && so->capture && event->cap_graph == NULL && event->seq == 0)
        return cudaSuccess; /* never recorded: no dependency */
    if (event->seq && !(so && so->capture)) {
        struct rt_order o = cr_order_of(stream);
        o.after[1] = event->seq;
        cr_note_seq(stream, rt_submit(cr_ctx(), &o, wait_op, NULL));
    }
    return cr_ret(cr_sticky());
}

struct callback_op {
    cudaStreamCallback_t fn;
    cudaStream_t stream;
    void *user;
};

static void callback_run(struct rt_ctx *c, void *arg)
{
    struct callback_op *op = arg;
    pthread_mutex_lock(&c->lock);
    int st = c->sticky;
    pthread_mutex_unlock(&c->lock);
    op->fn(op->stream, (cudaError_t)st, op->user);
    free(op);
}

EXPORT cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                         void *userData, unsigned int flags)
{
    if (!callback || flags)
        return cr_ret(cudaErrorInvalidValue);
    if (!cr_stream_ok(stream))
        return cr_ret(cudaErrorInvalidResourceHandle);
    struct CUstream_st *so = cr_stream_obj(stream);
    if (so && so->capture)
        return cr_ret(cudaErrorStreamCaptureUnsupported);
    struct callback_op *op = malloc(sizeof *op);
    if (!op)
        return cr_ret(cudaErrorMemoryAllocation);
    op->fn = callback;
    op->stream = stream;
    op->user = userData;
    struct rt_order o = cr_order_of(stream);
    cr_note_seq(stream, rt_submit(cr_ctx(), &o, callback_run, op));
    return cudaSuccess;
}

EXPORT cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    CHECK_STICKY();
    if (!fn)
        return cr_ret(cudaErrorInvalidValue);
    if (!cr_stream_ok(stream))
        return cr_ret(cudaErrorInvalidResourceHandle);
    struct CUgraphNode_st *nd = cr_node_new(NK_HOST);
    if (!nd)
        return cr_ret(cudaErrorMemoryAllocation);
    nd->fn = fn;
    nd->user = userData;
    return cr_ret(cr_submit(stream, nd));
}

EXPORT cudaError_t cudaStreamSetAttribute(cudaStream_t hStream, cudaStreamAttrID attr,
                                          const cudaStreamAttrValue *value)
{
    (void)attr;
    if (!value)
        return cr_ret(cudaErrorInvalidValue);
    if (!cr_stream_ok(hStream))
        return cr_ret(cudaErrorInvalidResourceHandle);
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamGetAttribute(cudaStream_t hStream, cudaStreamAttrID attr,
                                          cudaStreamAttrValue *value_out)
{
    (void)attr;
    if (!value_out)
        return cr_ret(cudaErrorInvalidValue);
    if (!cr_stream_ok(hStream))
        return cr_ret(cudaErrorInvalidResourceHandle);
    memset(value_out, 0, sizeof *value_out);
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
    CHECK_STICKY();
    if (!cr_stream_ok(stream))
        return cr_ret(cudaErrorInvalidResourceHandle);
    struct CUstream_st *so = cr_stream_obj(stream);
    if (!so)
        return cr_ret(cudaErrorStreamCaptureUnsupported);
    if (so->capture)
        return cr_ret(cudaErrorIllegalState);
    if ((unsigned)mode > cudaStreamCaptureModeRelaxed)
        return cr_ret(cudaErrorInvalidValue);
    so->capture = calloc(1, sizeof *so->capture);
    if (!so->capture)
        return cr_ret(cudaErrorMemoryAllocation);
    so->capture_origin = so;
    so->capture_external = false;
    so->cdeps.n = 0;
    so->capture_mode = mode;
    so->capture_id = __atomic_fetch_add(&cr_g.next_capture_id, 1, __ATOMIC_RELAXED);
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                                 const cudaGraphNode_t *dependencies,
                                                 const cudaGraphEdgeData *dependencyData,
                                                 size_t numDependencies,
                                                 enum cudaStreamCaptureMode mode)
{
    (void)dependencyData;
    CHECK_STICKY();
    if (!cr_stream_ok(stream))
        return cr_ret(cudaErrorInvalidResourceHandle);
    struct CUstream_st *so = cr_stream_obj(stream);
    if (!so)
        return cr_ret(cudaErrorStreamCaptureUnsupported);
    if (so->capture)
        return cr_ret(cudaErrorIllegalState);
    if (!graph || !cr_hs_has(&cr_g.graphs, graph) ||
        (unsigned)mode > cudaStreamCaptureModeRelaxed ||
        (numDependencies && !dependencies))
        return cr_ret(cudaErrorInvalidValue);
    so->cdeps.n = 0;
    for (size_t i = 0; i < numDependencies; i++) {
        if (!dependencies[i] || dependencies[i]->graph != graph)
            return cr_ret(cudaErrorInvalidValue);
        if (cr_nl_add(&so->cdeps, dependencies[i]) < 0)
            return cr_ret(cudaErrorMemoryAllocation);
    }
    so->capture = graph;
    so->capture_origin = so;
    so->capture_external = true;
    so->capture_mode = mode;
    so->capture_id = __atomic_fetch_add(&cr_g.next_capture_id, 1, __ATOMIC_RELAXED);
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph)
{
    if (!pGraph)
        return cr_ret(cudaErrorInvalidValue);
    if (!cr_stream_ok(stream))
        return cr_ret(cudaErrorInvalidResourceHandle);
    struct CUstream_st *so = cr_stream_obj(stream);
    if (!so || !so->capture)
        return cr_ret(cudaErrorIllegalState);
    if (so->capture_origin != so)
        return cr_ret(cudaErrorStreamCaptureUnmatched);
    struct CUgraph_st *g = so->capture;
    capture_detach(g);
    *pGraph = g;
    if (!so->capture_external && cr_hs_add(&cr_g.graphs, g) < 0)
        return cr_ret(cudaErrorMemoryAllocation);
    so->capture_external = false;
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
                                         enum cudaStreamCaptureStatus *pCaptureStatus)
{
    if (!pCaptureStatus)
        return cr_ret(cudaErrorInvalidValue);
    if (!cr_stream_ok(stream))
        return cr_ret(cudaErrorInvalidResourceHandle);
    struct CUstream_st *so = cr_stream_obj(stream);
    *pCaptureStatus = so && so->capture ? cudaStreamCaptureStatusActive
                                        : cudaStreamCaptureStatusNone;
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
                                            enum cudaStreamCaptureStatus *captureStatus_out,
                                            unsigned long long *id_out, cudaGraph_t *graph_out,
                                            const cudaGraphNode_t **dependencies_out,
                                            const cudaGraphEdgeData **edgeData_out,
                                            size_t *numDependencies_out)
{
    if (!captureStatus_out)
        return cr_ret(cudaErrorInvalidValue);
    if (!cr_stream_ok(stream))
        return cr_ret(cudaErrorInvalidResourceHandle);
    struct CUstream_st *so = cr_stream_obj(stream);
    bool on = so && so->capture;
    *captureStatus_out = on ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
    if (id_out)
        *id_out = on ? so->capture_id : 0;
    if (graph_out)
        *graph_out = on ? so->capture : NULL;
    if (dependencies_out)
        *dependencies_out = on && so->cdeps.n ? so->cdeps.v : NULL;
    if (edgeData_out)
        *edgeData_out = NULL;
    if (numDependencies_out)
        *numDependencies_out = on ? so->cdeps.n : 0;
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream,
                                                       cudaGraphNode_t *dependencies,
                                                       const cudaGraphEdgeData *dependencyData,
                                                       size_t numDependencies, unsigned int flags)
{
    (void)dependencyData;
    if (flags > cudaStreamSetCaptureDependencies || (numDependencies && !dependencies))
        return cr_ret(cudaErrorInvalidValue);
    struct CUstream_st *so = cr_stream_ok(stream) ? cr_stream_obj(stream) : NULL;
    if (!so || !so->capture)
        return cr_ret(cudaErrorIllegalState);
    for (size_t i = 0; i < numDependencies; i++)
        if (!dependencies[i] || dependencies[i]->graph != so->capture)
            return cr_ret(cudaErrorInvalidValue);
    if (flags == cudaStreamSetCaptureDependencies)
        so->cdeps.n = 0;
    for (size_t i = 0; i < numDependencies; i++)
        if (cr_nl_add(&so->cdeps, dependencies[i]) < 0)
            return cr_ret(cudaErrorMemoryAllocation);
    return cudaSuccess;
}

EXPORT cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
    if (!mode)
        return cr_ret(cudaErrorInvalidValue);
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamGetDevice(cudaStream_t hStream, int *device)
{
    if (!device)
        return cr_ret(cudaErrorInvalidValue);
    if (!cr_stream_ok(hStream))
        return cr_ret(cudaErrorInvalidResourceHandle);
    *device = 0;
    return cudaSuccess;
}

EXPORT cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src)
{
    return cr_stream_ok(dst) && cr_stream_ok(src) ? cudaSuccess
                                                  : cr_ret(cudaErrorInvalidResourceHandle);
}
