/*
 * timing/par.h — the host threads that run the SMs' cycles in parallel (issue 24 item 1):
 * a fixed pool of workers that run one function per phase, in parts with their own index,
 * and a barrier at the end of the phase. Internal to timing/ (gpu.c uses it).
 *
 * A phase costs two synchronisations (start, end). Waiting threads spin briefly, then sleep
 * on a condition variable, so a loaded host (or more threads than cores) does not burn the
 * other threads' time.
 */
#ifndef PTXEMU_TIMING_PAR_H
#define PTXEMU_TIMING_PAR_H

#include <stdint.h>

/* Synchronisation through C11 atomics that valgrind's helgrind does not see: tell it (no code
 * without valgrind's headers, and no-ops outside valgrind), so `valgrind --tool=helgrind`
 * checks the SMs' threads for data races. */
#if defined(__has_include)
#if __has_include(<valgrind/helgrind.h>)
#include <valgrind/helgrind.h>
#define TM_HAPPENS_BEFORE(a) ANNOTATE_HAPPENS_BEFORE(a)
#define TM_HAPPENS_AFTER(a) ANNOTATE_HAPPENS_AFTER(a)
#define TM_SYNC_VAR(a, n) VALGRIND_HG_DISABLE_CHECKING(a, n) /* itself an atomic flag */
#endif
#endif
#ifndef TM_HAPPENS_BEFORE
#define TM_HAPPENS_BEFORE(a) ((void)(a))
#define TM_HAPPENS_AFTER(a) ((void)(a))
#define TM_SYNC_VAR(a, n) ((void)(a), (void)(n))
#endif

struct tm_pool; /* opaque */

/* fn(ctx, t) runs part t of the phase, 0 ≤ t < n. */
typedef void (*tm_pool_fn)(void *ctx, uint32_t t);

/* A pool of n threads (the caller counts as one: n - 1 are started). 0, -ENOMEM or -EAGAIN
 * (threads could not be started). */
int tm_pool_create(uint32_t n, struct tm_pool **out);

/* Threads of the pool (the caller's included). */
uint32_t tm_pool_size(const struct tm_pool *p);

/* Run fn(ctx, t) for every part t of the phase, 0 ≤ t < size, and return when all have
 * returned. Part 0 runs on the caller; part t on worker t, or on the caller when the worker
 * has not started it by the time the caller is done with part 0 (a loaded host), never on
 * two threads. What the parts wrote is visible to the caller then (and what the caller wrote
 * before, to them). */
void tm_pool_run(struct tm_pool *p, tm_pool_fn fn, void *ctx);

/* One step of a wait loop on another thread's progress (i: tries so far): a pause, and every
 * 64th try the core given up, so more threads than free cores still progress. */
void tm_pool_pause(uint32_t i);

/* Stop and join the threads; free p (NULL: nothing). */
void tm_pool_destroy(struct tm_pool *p);

#endif
