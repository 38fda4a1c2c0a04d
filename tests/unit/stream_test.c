/*
 * tests/unit/stream_test.c — the device work queue of runtime/stream.c: the ordering and wait
 * contract every CUDA stream semantic rests on. Operations here only append their id to a log
 * (some wait at a gate the test opens), so each case asserts the exact order in which the
 * queue ran them and what rt_done / rt_wait / rt_legacy_idle report meanwhile:
 *   - a stream's operations run in submission order; sequence numbers count from 1;
 *   - independent non-blocking streams do not wait for each other (a worker per ready stream);
 *   - the legacy default stream waits for earlier blocking-stream work, blocking streams wait
 *     for the last legacy operation, non-blocking streams for neither;
 *   - `after` dependencies (an awaited event's record) and RT_ORDER_ALL (no order given);
 *   - PTXEMU_SYNC (c->sync): work runs on the caller, in submission order;
 * and rt_build_params, which lays out a launch's parameter block.
 */
#include <sched.h>
#include <string.h>
#include <time.h>

#include "runtime/rt.h"
#include "tests/tap.h"

/* A gate an operation waits at until the test opens it. */
struct gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool open;
};

/* The order in which operations ran. */
struct log {
    pthread_mutex_t mu;
    int ids[64];
    int n;
};

struct op {
    struct log *log;
    struct gate *gate; /* NULL: run at once */
    int id;
};

static void op_run(struct rt_ctx *c, void *arg)
{
    (void)c;
    struct op *o = arg;
    if (o->gate) {
        pthread_mutex_lock(&o->gate->mu);
        while (!o->gate->open)
            pthread_cond_wait(&o->gate->cv, &o->gate->mu);
        pthread_mutex_unlock(&o->gate->mu);
    }
    pthread_mutex_lock(&o->log->mu);
    o->log->ids[o->log->n++] = o->id;
    pthread_mutex_unlock(&o->log->mu);
}

static void gate_init(struct gate *g)
{
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    g->open = false;
}

static void gate_open(struct gate *g)
{
    pthread_mutex_lock(&g->mu);
    g->open = true;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

static void log_reset(struct log *l)
{
    pthread_mutex_lock(&l->mu);
    l->n = 0;
    pthread_mutex_unlock(&l->mu);
}

/* The log as text ("3 1 2"). */
static const char *log_str(struct log *l)
{
    static char buf[512];
    size_t k = 0;
    buf[0] = 0;
    pthread_mutex_lock(&l->mu);
    for (int i = 0; i < l->n && k < sizeof buf; i++)
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%d", i ? " " : "", l->ids[i]);
    pthread_mutex_unlock(&l->mu);
    return buf;
}

/* Back-pressure: a counting operation, and a host thread submitting one gated operation and
 * then `n` counting ones to one stream. */
static _Atomic int counted, submitted_n;
static void op_count(struct rt_ctx *c, void *arg)
{
    (void)c;
    (void)arg;
    atomic_fetch_add(&counted, 1);
}

struct flood {
    struct rt_ctx *c;
    struct op *first;
    int n;
    int key;
};

static void *flood_main(void *arg)
{
    struct flood *f = arg;
    struct rt_order o = {&f->key, RT_ORDER_BLOCKING, {0, 0}};
    rt_submit(f->c, &o, op_run, f->first);
    atomic_fetch_add(&submitted_n, 1);
    for (int i = 0; i < f->n; i++) {
        rt_submit(f->c, &o, op_count, NULL);
        atomic_fetch_add(&submitted_n, 1);
    }
    return NULL;
}

/* Queue operation id on stream key (kind), optionally gated and after `after`. */
static uint64_t sub(struct rt_ctx *c, struct op *ops, struct log *l, int id, const void *key,
                    enum rt_order_kind kind, struct gate *g, uint64_t after)
{
    ops[id] = (struct op){l, g, id};
    struct rt_order o = {key, kind, {after, 0}};
    return rt_submit(c, &o, op_run, &ops[id]);
}

int main(void)
{
    /* no environment setting may change the queue's behaviour under test */
    unsetenv("PTXEMU_SYNC");
    unsetenv("PTXEMU_DETERMINISTIC");
    unsetenv("PTXEMU_TRACE");
    static struct rt_ctx c;
    rt_ctx_init(&c);
    is_uint(c.q.max_workers, 16, "up to 16 workers");
    static struct log l = {.mu = PTHREAD_MUTEX_INITIALIZER};
    static struct op ops[64];
    int ka, kb, kc; /* stream keys */
    struct gate g;

    /* one stream: submission order, consecutive sequence numbers */
    uint64_t s1 = 0;
    for (int i = 0; i < 20; i++) {
        uint64_t s = sub(&c, ops, &l, i, &ka, RT_ORDER_BLOCKING, NULL, 0);
        if (i == 0)
            s1 = s;
        else if (s != s1 + (uint64_t)i)
            ok(0, "sequence number %d is %llu", i, (unsigned long long)s);
    }
    is_uint(s1, 1, "the first operation is number 1");
    rt_wait(&c, 0);
    is_str(log_str(&l), "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19",
           "a stream's operations run in submission order");
    ok(rt_done(&c, s1 + 19) && rt_legacy_idle(&c), "all done after rt_wait(0)");

    /* two non-blocking streams: the second runs while the first waits */
    log_reset(&l);
    gate_init(&g);
    uint64_t a = sub(&c, ops, &l, 1, &ka, RT_ORDER_NONBLOCKING, &g, 0);
    uint64_t b = sub(&c, ops, &l, 2, &kb, RT_ORDER_NONBLOCKING, NULL, 0);
    rt_wait(&c, b);
    ok(rt_done(&c, b) && !rt_done(&c, a), "non-blocking stream B done while A waits");
    is_str(log_str(&l), "2", "only B ran");
    gate_open(&g);
    rt_wait(&c, a);
    is_str(log_str(&l), "2 1", "then A");

    /* the legacy stream waits for earlier blocking-stream work, not for non-blocking streams */
    log_reset(&l);
    gate_init(&g);
    a = sub(&c, ops, &l, 1, &ka, RT_ORDER_BLOCKING, &g, 0);
    uint64_t leg = sub(&c, ops, &l, 2, NULL, RT_ORDER_LEGACY, NULL, 0);
    b = sub(&c, ops, &l, 3, &kb, RT_ORDER_NONBLOCKING, NULL, 0);
    rt_wait(&c, b);
    ok(!rt_done(&c, leg), "legacy operation waits for the blocking stream's earlier one");
    ok(!rt_legacy_idle(&c), "legacy stream not idle (blocking work pending)");
    is_str(log_str(&l), "3", "the non-blocking stream ran past both");
    gate_open(&g);
    rt_wait(&c, leg);
    is_str(log_str(&l), "3 1 2", "blocking work, then the legacy operation");

    /* a blocking stream waits for the last legacy operation; a non-blocking one does not */
    log_reset(&l);
    gate_init(&g);
    leg = sub(&c, ops, &l, 1, NULL, RT_ORDER_LEGACY, &g, 0);
    uint64_t cb = sub(&c, ops, &l, 2, &kc, RT_ORDER_BLOCKING, NULL, 0);
    b = sub(&c, ops, &l, 3, &kb, RT_ORDER_NONBLOCKING, NULL, 0);
    rt_wait(&c, b);
    ok(!rt_done(&c, cb) && !rt_done(&c, leg), "blocking stream waits for the legacy stream");
    is_str(log_str(&l), "3", "non-blocking stream independent of the legacy stream");
    gate_open(&g);
    rt_wait(&c, cb);
    is_str(log_str(&l), "3 1 2", "legacy, then the blocking stream");

    /* an `after` dependency (cudaStreamWaitEvent on an event recorded in another stream) */
    log_reset(&l);
    gate_init(&g);
    a = sub(&c, ops, &l, 1, &ka, RT_ORDER_NONBLOCKING, &g, 0);
    uint64_t w = sub(&c, ops, &l, 2, &kb, RT_ORDER_NONBLOCKING, NULL, a);
    uint64_t x = sub(&c, ops, &l, 3, &kb, RT_ORDER_NONBLOCKING, NULL, 0);
    uint64_t y = sub(&c, ops, &l, 4, &kc, RT_ORDER_NONBLOCKING, NULL, 0);
    rt_wait(&c, y);
    ok(!rt_done(&c, w) && !rt_done(&c, x), "the waiting stream holds back behind the record");
    is_str(log_str(&l), "4", "a third stream is not held back");
    gate_open(&g);
    rt_wait(&c, x);
    is_str(log_str(&l), "4 1 2 3", "record, wait, then the waiting stream's next operation");

    /* no order given (RT_ORDER_ALL): after everything, non-blocking streams included; a
     * pending non-blocking operation leaves the legacy stream idle */
    log_reset(&l);
    gate_init(&g);
    a = sub(&c, ops, &l, 1, &ka, RT_ORDER_NONBLOCKING, &g, 0);
    ok(rt_legacy_idle(&c), "legacy stream idle with only non-blocking work pending");
    ops[2] = (struct op){&l, NULL, 2};
    uint64_t all = rt_submit(&c, NULL, op_run, &ops[2]);
    b = sub(&c, ops, &l, 3, &kb, RT_ORDER_NONBLOCKING, NULL, 0);
    rt_wait(&c, b);
    ok(!rt_done(&c, all), "RT_ORDER_ALL waits for the non-blocking stream");
    gate_open(&g);
    rt_wait(&c, 0);
    is_str(log_str(&l), "3 1 2", "then runs");
    ok(rt_done(&c, all) && rt_done(&c, a), "rt_wait(0): everything done");

    /* back-pressure: behind a gated operation, a host thread submits until the queue holds
     * RT_QUEUE_DEPTH operations, then waits; opening the gate lets the rest through */
    log_reset(&l);
    gate_init(&g);
    static struct flood fl;
    ops[0] = (struct op){&l, &g, 0};
    fl = (struct flood){&c, &ops[0], (int)RT_QUEUE_DEPTH + 200, 0};
    pthread_t ft;
    pthread_create(&ft, NULL, flood_main, &fl);
    while (atomic_load(&submitted_n) < (int)RT_QUEUE_DEPTH)
        sched_yield();
    struct timespec pause = {0, 50 * 1000 * 1000};
    nanosleep(&pause, NULL); /* without back-pressure the thread would be done by now */
    pthread_mutex_lock(&c.q.mu);
    uint64_t held = c.q.submitted - c.q.retired;
    pthread_mutex_unlock(&c.q.mu);
    is_uint(held, RT_QUEUE_DEPTH, "the queue holds RT_QUEUE_DEPTH operations behind the gate");
    is_int(atomic_load(&submitted_n), (int)RT_QUEUE_DEPTH, "and the submitting thread waits");
    gate_open(&g);
    pthread_join(ft, NULL);
    rt_wait(&c, 0);
    is_int(atomic_load(&counted), (int)RT_QUEUE_DEPTH + 200, "then every operation runs");

    /* PTXEMU_SYNC: each operation runs on the calling thread before rt_submit returns */
    static struct rt_ctx cs;
    setenv("PTXEMU_SYNC", "1", 1);
    rt_ctx_init(&cs);
    unsetenv("PTXEMU_SYNC");
    ok(cs.sync, "PTXEMU_SYNC=1 sets sync");
    log_reset(&l);
    uint64_t q1 = sub(&cs, ops, &l, 1, &kb, RT_ORDER_NONBLOCKING, NULL, 0);
    is_str(log_str(&l), "1", "sync: ran inside rt_submit");
    uint64_t q2 = sub(&cs, ops, &l, 2, NULL, RT_ORDER_LEGACY, NULL, 0);
    is_str(log_str(&l), "1 2", "sync: submission order");
    ok(q1 == 1 && q2 == 2 && rt_done(&cs, q2) && cs.q.workers == 0,
       "sync: numbered 1, 2, done, no worker thread");

    /* the parameter block: each argument copied to its offset, the gaps zero */
    struct interp_kernel_info ki;
    memset(&ki, 0, sizeof ki);
    uint32_t off[3] = {0, 8, 16}, size[3] = {4, 8, 2};
    ki.nparams = 3;
    ki.param_offset = off;
    ki.param_size = size;
    ki.param_size_total = 24;
    uint32_t p0 = 0x11223344;
    uint64_t p1 = 0x0102030405060708ull;
    uint16_t p2 = 0xbeef;
    void *args[3] = {&p0, &p1, &p2};
    uint8_t block[24], want[24] = {0};
    memset(block, 0xa5, sizeof block);
    memcpy(want, &p0, 4);
    memcpy(want + 8, &p1, 8);
    memcpy(want + 16, &p2, 2);
    is_int(rt_build_params(&ki, args, block), RT_OK, "rt_build_params");
    is_mem(block, want, sizeof want, "parameters at their offsets, gaps zeroed");
    args[1] = NULL;
    is_int(rt_build_params(&ki, args, block), RT_ERR_INVALID_VALUE, "a NULL argument");
    is_int(rt_build_params(&ki, NULL, block), RT_ERR_INVALID_VALUE, "no argument array");
    return done_testing();
}
