/*
 * runtime/cudart_event.c — libcudart.so.13: events. A record is an operation in its stream's
 * order that stamps the host clock when a worker reaches it (cudaEventElapsedTime); in a
 * captured stream it carries the stream's dependency set instead (fork/join capture).
 */
#include <stdlib.h>

#include "runtime/cudart_private.h"

EXPORT cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    CHECK_STICKY();
    if (!event || (flags & ~(unsigned)(cudaEventBlockingSync | cudaEventDisableTiming |
                                       cudaEventInterprocess)))
        return cr_ret(cudaErrorInvalidValue);
    if ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming))
        return cr_ret(cudaErrorInvalidValue);
    struct CUevent_st *e = calloc(1, sizeof *e);
    if (!e)
        return cr_ret(cudaErrorMemoryAllocation);
    e->magic = EVENT_MAGIC;
    e->flags = flags;
    if (cr_hs_add(&cr_g.events, e) < 0) {
        free(e);
        return cr_ret(cudaErrorMemoryAllocation);
    }
    *event = e;
    return cudaSuccess;
}

EXPORT cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    return cudaEventCreateWithFlags(event, cudaEventDefault);
}

EXPORT cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    if (!event || !cr_hs_del(&cr_g.events, event))
        return cr_ret(cudaErrorInvalidResourceHandle);
    rt_wait(cr_ctx(), event->seq); /* a pending record still points at it */
    event->magic = 0;
    free(event->cap_deps.v);
    free(event);
    return cudaSuccess;
}

EXPORT cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
                                            unsigned int flags)
{
    CHECK_STICKY();
    if (!event || !cr_hs_has(&cr_g.events, event) || !cr_stream_ok(stream))
        return cr_ret(cudaErrorInvalidResourceHandle);
    if (flags & ~1u)
        return cr_ret(cudaErrorInvalidValue);
    struct CUstream_st *so = cr_stream_obj(stream);
    if (so && so->capture) {
        /* in a capture an event only carries dependencies (fork/join between streams) */
        if (cr_nl_copy(&event->cap_deps, &so->cdeps) < 0)
            return cr_ret(cudaErrorMemoryAllocation);
        event->cap_graph = so->capture;
        event->cap_origin = so->capture_origin;
        return cudaSuccess;
    }
    struct CUgraphNode_st *nd = cr_node_new(NK_EVENT_RECORD);
    if (!nd)
        return cr_ret(cudaErrorMemoryAllocation);
    nd->event = event;
    event->cap_graph = NULL;
    event->cap_origin = NULL;
    struct rt_order o = cr_order_of(stream);
    event->seq = rt_submit(cr_ctx(), &o, cr_node_op, nd);
    cr_note_seq(stream, event->seq);
    return cudaSuccess;
}

EXPORT cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    return cudaEventRecordWithFlags(event, stream, 0);
}

EXPORT cudaError_t cudaEventQuery(cudaEvent_t event)
{
    if (!event || !cr_hs_has(&cr_g.events, event))
        return cr_ret(cudaErrorInvalidResourceHandle);
    CHECK_STICKY();
    return rt_done(cr_ctx(), event->seq) ? cudaSuccess : cudaErrorNotReady;
}

EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    if (!event || !cr_hs_has(&cr_g.events, event))
        return cr_ret(cudaErrorInvalidResourceHandle);
    if (!event->seq) /* never recorded: nothing to wait for */
        return cr_ret(cr_sticky());
    cr_sync_point(event->seq);
    return cr_ret(cr_take_async_error());
}

EXPORT cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    if (!ms)
        return cr_ret(cudaErrorInvalidValue);
    if (!start || !end || !cr_hs_has(&cr_g.events, start) || !cr_hs_has(&cr_g.events, end))
        return cr_ret(cudaErrorInvalidResourceHandle);
    if ((start->flags | end->flags) & cudaEventDisableTiming)
        return cr_ret(cudaErrorInvalidResourceHandle);
    if (!start->seq || !end->seq)
        return cr_ret(cudaErrorInvalidResourceHandle);
    if (!rt_done(cr_ctx(), start->seq) || !rt_done(cr_ctx(), end->seq))
        return cr_ret(cudaErrorNotReady);
    double d = (double)(end->when.tv_sec - start->when.tv_sec) * 1e3 +
               (double)(end->when.tv_nsec - start->when.tv_nsec) / 1e6;
    *ms = (float)d;
    return cudaSuccess;
}
