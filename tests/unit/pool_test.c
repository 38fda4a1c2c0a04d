/*
 * tests/unit/pool_test.c — the host-thread pool of parallel SM cycles (timing/par.c): every
 * part of every phase runs exactly once, whichever thread (its worker or the caller) claims
 * it, the parts' writes are visible to the caller when tm_pool_run returns and the caller's
 * to the parts of the next phase; pools of 1, 2, 3 and 8 threads (more than the host's cores),
 * 20,000 phases each, and a pool destroyed right after creation.
 */
#include <stdint.h>
#include <stdio.h>

#include "tests/tap.h"
#include "timing/par.h"

#define PHASES 20000u

struct ctx {
    uint32_t n;
    uint32_t phase;         /* written by the caller between phases */
    uint32_t runs[8];       /* part t: times run (written only by the thread running part t) */
    uint32_t seen_phase[8]; /* part t: the phase it saw */
    uint32_t stale;         /* phases in which a part saw an older phase (caller counts) */
};

static void part(void *vc, uint32_t t)
{
    struct ctx *c = vc;
    c->runs[t]++;
    c->seen_phase[t] = c->phase;
}

int main(void)
{
    static const uint32_t sizes[] = {1, 2, 3, 8};
    plan(2 * 4 + 1);
    for (unsigned i = 0; i < 4; i++) {
        struct tm_pool *p = NULL;
        struct ctx c = {.n = sizes[i]};
        if (tm_pool_create(sizes[i], &p) || !p)
            bail_out("tm_pool_create failed");
        for (uint32_t ph = 1; ph <= PHASES; ph++) {
            c.phase = ph;
            tm_pool_run(p, part, &c);
            for (uint32_t t = 0; t < c.n; t++)
                c.stale += c.seen_phase[t] != ph || c.runs[t] != ph;
        }
        is_uint(tm_pool_size(p), sizes[i], "a pool of %u threads has %u parts", sizes[i],
                sizes[i]);
        is_uint(c.stale, 0, "%u threads: every part ran once per phase and saw it (%u phases)",
                sizes[i], PHASES);
        tm_pool_destroy(p);
    }
    struct tm_pool *p = NULL;
    ok(tm_pool_create(3, &p) == 0 && p, "a pool destroyed before any phase");
    tm_pool_destroy(p);
    return done_testing();
}
