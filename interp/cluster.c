/*
 * interp/cluster.c — thread-block clusters (sm_90+): the cluster a CTA belongs to, its
 * special registers, and distributed shared memory (mapa, getctarank, isspacep, and the
 * shared::cluster accesses that vm_xlate (ops/helpers.h) hands here when an offset lies
 * outside the CTA's own window).
 *
 * Layout of a launch: the grid is cut into clusters of cdim[0] x cdim[1] x cdim[2] CTAs; the
 * cluster of %clusterid (x, y, z) holds the CTAs of %ctaid = %clusterid * cdim + %cluster_ctaid,
 * and a CTA's rank is %cluster_ctaid.x + cdim.x * (%cluster_ctaid.y + cdim.y *
 * %cluster_ctaid.z). Clusters are numbered in grid order of %clusterid (the grid runner's
 * unit of work, grid.c).
 *
 * Shared::cluster addresses (internal.h CLU_STRIDE): an offset below CLU_STRIDE is the
 * executing CTA's own shared memory (a shared::cta address is a valid shared::cluster address
 * of the same byte, as the PTX ISA requires); (r + 1) * CLU_STRIDE + o is byte o of the CTA of
 * rank r. These addresses mean the same in every CTA of the cluster, so they can be passed
 * between threads. A CTA's own bytes are reachable both ways.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/internal.h"

/* See internal.h. */
void cluster_init(struct cluster *cl, const struct launch_state *L, uint64_t q)
{
    const uint32_t *g = L->l->grid, *cd = L->cdim;
    const uint32_t nx = g[0] / cd[0], ny = g[1] / cd[1];
    memset(cl, 0, sizeof *cl);
    cl->n = L->csize;
    cl->id[0] = (uint32_t)(q % nx);
    cl->id[1] = (uint32_t)(q / nx % ny);
    cl->id[2] = (uint32_t)(q / ((uint64_t)nx * ny));
}

/* See internal.h. */
int cluster_xlate(const struct warp *w, uint64_t a, unsigned width, uint8_t **p)
{
    const struct cluster *cl = w->cta->clu;
    const uint64_t slot = a / CLU_STRIDE, off = a % CLU_STRIDE;
    if (slot == 0 || slot > cl->n)
        return TRAP_OOB;
    const struct cta *t = cl->cta[slot - 1];
    if (!t || off >= t->shared_size || t->shared_size - off < width)
        return TRAP_OOB;
    *p = t->shared + off;
    return 0;
}

/* The shared::cluster offset of (generic when `generic`) address a, or UINT64_MAX when a
 * generic a is outside the shared window. */
static uint64_t clu_offset(uint64_t a, bool generic)
{
    if (!generic)
        return a;
    return a - MEM_SHARED_BASE < MEM_SHARED_SIZE ? a - MEM_SHARED_BASE : UINT64_MAX;
}

/* See internal.h. */
int cluster_mapa(const struct warp *w, uint64_t a, uint64_t r, bool generic, uint64_t *out,
                 char *why, size_t n)
{
    const uint64_t o = clu_offset(a, generic);
    if (r >= w->cta->clu->n) {
        snprintf(why, n, "mapa: CTA rank %llu is outside the cluster of %u CTAs",
                 (unsigned long long)r, w->cta->clu->n);
        return -1;
    }
    if (o == UINT64_MAX) {
        snprintf(why, n, "mapa: generic address %#llx is not a shared-memory address",
                 (unsigned long long)a);
        return -1;
    }
    const uint64_t d = (r + 1) * CLU_STRIDE + o % CLU_STRIDE;
    *out = generic ? MEM_SHARED_BASE + d : d;
    return 0;
}

/* See internal.h. */
uint32_t cluster_rank_of(const struct warp *w, uint64_t a, bool generic)
{
    const uint64_t o = clu_offset(a, generic);
    if (o == UINT64_MAX || o < CLU_STRIDE)
        return w->cta->rank;
    return (uint32_t)(o / CLU_STRIDE - 1);
}

/* See internal.h. */
bool cluster_window(const struct warp *w, uint64_t a, bool own)
{
    const uint64_t o = clu_offset(a, true);
    if (o == UINT64_MAX)
        return false;
    return own ? o < CLU_STRIDE : o < (uint64_t)(w->cta->clu->n + 1) * CLU_STRIDE;
}

/* See internal.h. */
uint64_t cluster_shared_left(const struct warp *w, uint64_t o)
{
    const struct cta *t = w->cta;
    if (o >= CLU_STRIDE) {
        t = w->cta->clu->cta[o / CLU_STRIDE - 1];
        o %= CLU_STRIDE;
    }
    return t->shared_size - o;
}

/* See internal.h. */
struct cta *cluster_cta_holding(struct cta *c, const uint8_t *p, uint64_t n)
{
    const struct cluster *cl = c->clu; /* (cl->cta[c->rank] is c) */
    for (uint32_t r = 0; r < cl->n; r++) {
        struct cta *t = cl->cta[r];
        if (t && p >= t->shared && n <= t->shared_size &&
            (uint64_t)(p - t->shared) <= t->shared_size - n)
            return t;
    }
    return NULL;
}

/* See internal.h. */
uint64_t cluster_sreg(const struct cta *c, unsigned s)
{
    const struct launch_state *L = c->L;
    const struct cluster *cl = c->clu;
    const uint32_t *cd = L->cdim, *g = L->l->grid;
    switch (s) {
    case SR_CLUSTERID_X: return cl->id[0];
    case SR_CLUSTERID_Y: return cl->id[1];
    case SR_CLUSTERID_Z: return cl->id[2];
    case SR_NCLUSTERID_X: return g[0] / cd[0];
    case SR_NCLUSTERID_Y: return g[1] / cd[1];
    case SR_NCLUSTERID_Z: return g[2] / cd[2];
    case SR_CLUSTER_CTAID_X: return c->rank % cd[0];
    case SR_CLUSTER_CTAID_Y: return c->rank / cd[0] % cd[1];
    case SR_CLUSTER_CTAID_Z: return c->rank / (cd[0] * cd[1]);
    case SR_CLUSTER_NCTAID_X: return cd[0];
    case SR_CLUSTER_NCTAID_Y: return cd[1];
    case SR_CLUSTER_NCTAID_Z: return cd[2];
    case SR_CLUSTER_CTARANK: return c->rank;
    case SR_CLUSTER_NCTARANK: return cl->n;
    case SR_IS_EXPLICIT_CLUSTER: return L->explicit_cluster;
    default: return 0;
    }
}
