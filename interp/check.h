/*
 * interp/check.h — sanitizer hooks the checking loop (exec_slow.c) calls besides those of
 * internal.h: kept apart so that adding one does not rebuild the fast loops.
 */
#ifndef PTXEMU_INTERP_CHECK_H
#define PTXEMU_INTERP_CHECK_H

#include "interp/internal.h"

/* Global-memory racecheck: instruction `in` of warp w orders memory — a fence or membar (a
 * release and an acquire at its scope: .cta, or .cluster/.gpu/.sys/membar.gl for the whole
 * grid) or a CTA barrier arrival (hands the warp's acquisitions to the warps the barrier
 * releases). Other instructions are ignored. */
void check_order(struct warp *w, const struct ir_insn *in);

/* Global-memory racecheck: before warp w runs instruction `in`, take the shadow's lock when
 * `in` is a strong access that may reach global memory (an atomic or reduction, a volatile
 * or .relaxed/.acquire/.release load or store), so that its effect on memory and its record
 * happen together and strong accesses are recorded in the order memory saw them. Otherwise
 * a CTA on another host thread could run its atomic between this one's and its record, and
 * the record kept as the word's last write would not be the one the next access really
 * follows (rt_fence's last-block ticket: a false race between the last CTA's reset and an
 * earlier CTA's atomicInc, seen once in 40 runs on a loaded host). Returns whether it took
 * the lock; check_grace_leave releases it after the accesses are recorded. */
bool check_grace_enter(struct warp *w, const struct ir_insn *in);
void check_grace_leave(struct warp *w);

/* The lane accesses of a matrix or asynchronous instruction (tc_mem reports: cp.async's
 * global reads and shared writes, ldmatrix, stmatrix, wmma loads and stores) for initcheck
 * only: they complete at once, so the shared bytes a cp.async writes count as written, but
 * their order against other threads' accesses is the barrier's or mbarrier's, not a plain
 * access's (no racecheck). */
void check_async_accesses(struct warp *w, uint32_t pc, const struct engine_access *acc,
                          unsigned n);

/* initcheck of registers: warp instruction pc of w is about to run for the active lanes A,
 * of which lanes M have its guard predicate true (M may be 0). A register its function may
 * read before writing it (cfg_undef_regs; .reg parameters excepted) that it reads in a lane
 * that has not written it in this activation is an "Uninitialized register read" (one finding
 * per instruction, each such lane counted): the guard predicate in lanes A, the sources in
 * lanes M (a false guard reads nothing else); its writes then count for lanes M. Calls start a
 * fresh frame, returns go back to the caller's. Called only for functions with such registers
 * (xfunc.nzero) and for calls. */
void check_regs(struct warp *w, uint32_t pc, uint32_t A, uint32_t M);

/* initcheck of local memory: a call or an alloca of lanes M of w is about to take stack bytes
 * at and above the warp's stack top (a callee's frame, an allocation), which earlier calls or
 * allocations released by stackrestore may have written: for lanes M they count as unwritten
 * again, as they hold no value the program gave them (check_mem.c). */
void check_local_fresh(struct warp *w, uint32_t M);

/* synccheck of a sync misuse the engine stops at (interp_sync_fault): a finding in
 * compute-sanitizer's "Barrier error detected" form, naming the mbarrier (its shared-memory
 * offset and the cluster rank of its CTA) or the cluster barrier. */
void check_sync_misuse(struct warp *w, uint32_t pc, unsigned lane, const struct sync_what *x);

/* synccheck of the mbarrier objects a CTA makes: before mbarrier instruction `in` (init,
 * inval, arrive, arrive_drop, expect_tx, complete_tx, or cp.async.mbarrier.arrive; others are
 * ignored) runs for lanes M of w. An init of an object the CTA made and did not invalidate
 * since is a finding (undefined in the PTX ISA; the engine re-initializes it; the lanes of
 * one warp instruction make it once), and so is a change of bytes that hold a valid object
 * though their CTA never made one (left over from other data, e.g. a --fill-uninit pattern).
 * test_wait / try_wait only read the object, in spin loops: not checked here (the arrivals
 * they wait for are). Addresses the engine faults on are left to it. */
void check_mbarrier(struct warp *w, uint32_t pc, const struct ir_insn *in, uint32_t M);

/* asynccheck (check_async.c): lane's cp.async copies cp bytes to shared offset dst, n of them
 * from src (the rest zeros). Under asynccheck it records the copy, poisons the destination and
 * returns true (async.c then leaves the destination alone); otherwise false (async.c copies at
 * once). */
bool check_async_cp(struct warp *w, uint32_t pc, unsigned lane, uint32_t dst, const uint8_t *src,
                    unsigned n, unsigned cp);
/* asynccheck: lane's cp.async.mbarrier.arrive on the object at mbar: its copies not delivered
 * yet are tied to the object. */
void check_async_mbar_arrive(struct warp *w, unsigned lane, const uint8_t *mbar);
/* asynccheck: a test_wait / try_wait found the phase of parity `parity` of the object at mbar
 * complete: the cp.async copies tied to it, and the bulk copies that counted in a phase of
 * that parity, are delivered. */
void check_async_mbar_done(struct warp *w, const uint8_t *mbar, unsigned parity);

/* async.c: do the 8 bytes at p hold a valid mbarrier object (mbarrier.init made it, no
 * mbarrier.inval ended it)? */
bool async_mbarrier_valid(const uint8_t *p);

/* synccheck of barrier.cluster{.arrive,.wait}.aligned executed by lanes M of w, which needs
 * the warp's live lanes `need`: divergent when they differ (after independent thread
 * scheduling joined the warp's paths there, as for bar.sync). */
void check_cluster_barrier(struct warp *w, uint32_t pc, uint32_t M, uint32_t need);

#endif
