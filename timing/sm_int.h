/*
 * timing/sm_int.h — what the two halves of the SM model share: sm.c (set-up, CTAs, fetch,
 * issue, operand collectors, execution units, writeback) and sm_mem.c (the SM's memory
 * pipeline: the coalescer, the LD/ST unit, shared/constant bank conflicts, the L1D and the
 * responses from the memory system). Private to timing/sm*.c; the same rule as tm_int.h
 * holds: these functions write only the SM they are given.
 */
#ifndef PTXEMU_TIMING_SM_INT_H
#define PTXEMU_TIMING_SM_INT_H

#include <string.h>

#include "timing/tm_int.h"

/* ---------------------------------------------------------- pipeline registers (inline) */

static inline bool pr_has_room(const struct tm_pipereg *p, uint32_t part)
{
    return p->n[part] < p->cap;
}

static inline void pr_push(struct tm_pipereg *p, uint32_t part, uint32_t inst)
{
    p->slot[part * p->cap + p->n[part]++] = inst;
}

static inline uint32_t pr_front(const struct tm_pipereg *p, uint32_t part)
{
    return p->n[part] ? p->slot[part * p->cap] : TM_NONE;
}

static inline void pr_pop(struct tm_pipereg *p, uint32_t part)
{
    uint32_t *s = &p->slot[part * p->cap];
    memmove(s, s + 1, (p->n[part] - 1) * sizeof *s);
    p->n[part]--;
}

/* Result ready: the dependent may issue at t_issue + latency, never before the unit is done. */
static inline uint64_t ready_at(const struct tm_inst *in, uint64_t done)
{
    uint64_t t = in->t_issue + in->lat.lat;
    return t > done ? t : done;
}

/* ------------------------------------------------------------------ sm.c */

/* Schedule in-flight instruction inst to complete (release its scoreboard entries) at cycle
 * t; completions are ordered by (t, issue sequence). 0 or -ENOMEM. */
int tm_sm_heap_push(struct tm_sm *s, uint64_t t, uint32_t inst);
/* The TMA unit's cycle (sm_mem.c): the oldest bulk copy sends a line. */
void tm_sm_tma_stage(struct tm_sm *s);
/* Bulk copy ii has sent its last line (its source is read): a wait_group.read may go on. */
void tm_sm_async_read_done(struct tm_sm *s, uint32_t ii);

/* A warp whose lanes all exited and whose instructions and memory requests all drained
 * leaves its slot (and retires its CTA when it was the last). */
void tm_sm_warp_try_finish(struct tm_sm *s, struct tm_warp *w);

/* ------------------------------------------------------------------ sm_mem.c */

/* (Re)build the SM's L1D, L1C and L1T for a kernel whose shared-memory carve-out is
 * shmem_bytes (see sm_mem.c); `keep`: an L1D of the same size keeps its lines. 0, -ENOMEM,
 * or -EINVAL (no L1D). */
int tm_sm_l1d_make(struct tm_sm *s, uint32_t shmem_bytes, bool keep);

/* Invalidate the L1C, L1T and (-gpgpu_flush_l1_cache 1) the L1D: a new kernel. */
void tm_sm_l1_invalidate(struct tm_sm *s);
/* Nothing in flight in the SM's L1s? */
bool tm_sm_l1_idle(const struct tm_sm *s);
/* Free the L1s and their hit queues. */
void tm_sm_l1_free(struct tm_sm *s);

/* Fill memop m of an LD/ST instruction from the engine's step report: the coalesced lines,
 * sector and byte masks, or the bank-conflict degree of a shared/constant access. */
void tm_sm_memop_fill(struct tm_sm *s, struct tm_memop *m, uint32_t wslot,
                      const struct engine_step_report *r);

/* One cycle of the LD/ST unit: take the next memory instruction, serialise bank conflicts,
 * send one line per cycle through the L1D or to the memory system. */
void tm_sm_ldst_stage(struct tm_sm *s);

/* Move each L1's next miss or write-through into the queue to memory (one per cycle each). */
void tm_sm_l1d_drain(struct tm_sm *s);

/* Consume the memory system's responses, L1D fills and L1 hits due this cycle. */
void tm_sm_response_stage(struct tm_sm *s);

/* Warp slot ws's issue class may have changed (barrier, fence, buffer, scoreboard, launch,
 * running state): the issue stage reclassifies it (struct tm_sm.wc). */
static inline void wc_mark(struct tm_sm *s, uint32_t ws)
{
    if (s->occ_ok)
        s->wc_dirty[ws % s->nsched] |= UINT64_C(1) << (ws / s->nsched);
}

/* Warp w's instruction buffer was emptied: fetch must visit it (struct tm_sm.ibe), and its
 * issue class changed. */
static inline void ibe_mark(struct tm_sm *s, const struct tm_warp *w)
{
    if (s->occ_ok) {
        s->ibe |= UINT64_C(1) << (w - s->w);
        wc_mark(s, (uint32_t)(w - s->w));
    }
}

/* Keep the occupancy masks in step with w->cta (and have the slot reclassified). */
static inline void occ_set(struct tm_sm *s, uint32_t ws, bool on)
{
    if (!s->occ_ok)
        return;
    wc_mark(s, ws);
    uint64_t b = UINT64_C(1) << ws, bk = UINT64_C(1) << (ws / s->nsched);
    if (on) {
        s->occ_all |= b;
        s->occ[ws % s->nsched] |= bk;
    } else {
        s->occ_all &= ~b;
        s->occ[ws % s->nsched] &= ~bk;
    }
}

#endif
