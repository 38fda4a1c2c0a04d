/*
 * timing/relax.h — the SM phase of the relaxed timing mode (issue 24 item 2,
 * `--timing-relaxed`, -ptxemu_timing_relaxed 1): every busy SM runs a quantum of core cycles
 * on its own, on the pool's host threads, with no synchronisation inside the quantum. The
 * memory system runs a quantum ahead of the SMs on the driver thread (gpu.c), its next
 * quantum while the SMs run theirs (tm_relax_set_pre), so what the SMs read from it (their
 * response queues) is complete for the quantum, and it reads their requests two quanta
 * after they were sent (mem.c: `req_delay`). See timing/README.md,
 * "Relaxed parallel timing". Internal to timing/ (gpu.c uses it).
 */
#ifndef PTXEMU_TIMING_RELAX_H
#define PTXEMU_TIMING_RELAX_H

#include <stdbool.h>
#include <stdint.h>

struct tm_gpu;
struct tm_sm;
struct tm_pool;
struct tm_relax; /* opaque */

/* The SM phase's state for the nsm SMs at sm (the GPU's; g is passed on to their cycles).
 * 0 or -ENOMEM. */
int tm_relax_create(struct tm_sm *sm, uint32_t nsm, struct tm_gpu *g, struct tm_relax **out);

/* Free rx (NULL: nothing). */
void tm_relax_destroy(struct tm_relax *rx);

/* An SM that stopped after the cycle in which it retired a CTA (tm_relax_run with stop). */
struct tm_relax_stop {
    uint64_t cycle; /* the cycle it stopped after */
    uint32_t sm;
};

/* Start a phase of core cycles [from, to) for every SM whose bit is set in act (bit i of
 * act[i / 64]): each from `from`, or from the cycle CTA dispatch started it at (an SM idle at
 * from whose cycle dispatch set later). */
void tm_relax_begin(struct tm_relax *rx, const uint64_t *act, uint64_t from, uint64_t to);

/*
 * Run the phase's SMs that have cycles left up to `to`, each as the serial loop runs a cycle of
 * an SM (an SM found with nothing to do stops there for good; a sleeping SM skips to its
 * wake-up), the SMs claimed one at a time by the pool's threads (pool NULL: all on the
 * caller's thread), or with `fixed` SM i on thread i mod threads (a profiled kernel's
 * per-thread counter copies). With `stop`, an SM stops after a cycle in which it retired a CTA
 * (so that the caller can dispatch at the next cycle, as the exact mode does) and resumes at
 * the next call from the cycle after it (or from the later cycle dispatch set). The SMs share
 * nothing but the functional engine's global memory meanwhile. Returns -1 when out of memory,
 * else the number of SMs that stopped; *stops then lists them by (cycle, SM).
 */
int tm_relax_run(struct tm_relax *rx, struct tm_pool *pool, bool fixed, bool stop,
                 const struct tm_relax_stop **stops);

/* The lookahead mode: fn(ctx) runs on the caller's thread at the start of the next
 * tm_relax_run, before it takes SMs, while the pool's other threads run theirs (gpu.c: the
 * memory system's next window, which shares nothing with the SMs' window). One run only;
 * with one thread it simply runs first. */
void tm_relax_set_pre(struct tm_relax *rx, void (*fn)(void *), void *ctx);

/* End the phase: clears the bits of act of the SMs found idle. 1 when an SM is still busy at
 * `to`, 0 when none is. */
int tm_relax_end(struct tm_relax *rx, uint64_t *act);

#endif
