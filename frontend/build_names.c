/*
 * frontend/build_names.c — names: the interning table (every name once, keyed by XXH3) and
 * what each name is bound to (function-scope registers and variables in `{ }` scopes),
 * the small string maps of mnemonics and modifiers, register declaration and resolution.
 */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "frontend/build_int.h"

/* ------------------------------------------------------------------------ string map */

uint64_t b_hash(const char *s, size_t n)
{
    return XXH3_64bits(s, n);
}

int smap_init(struct smap *m, uint32_t cap)
{
    m->cap = cap;
    m->n = 0;
    m->keys = calloc(cap, sizeof *m->keys);
    m->lens = calloc(cap, sizeof *m->lens);
    m->vals = calloc(cap, sizeof *m->vals);
    return m->keys && m->lens && m->vals ? 0 : -1;
}

void smap_free(struct smap *m)
{
    free(m->keys);
    free(m->lens);
    free(m->vals);
}

int32_t smap_get(const struct smap *m, const char *s, size_t n)
{
    uint32_t i = (uint32_t)b_hash(s, n) & (m->cap - 1);
    for (; m->keys[i]; i = (i + 1) & (m->cap - 1))
        if (m->lens[i] == n && memcmp(m->keys[i], s, n) == 0)
            return m->vals[i];
    return -1;
}

int smap_put(struct smap *m, const char *s, size_t n, int32_t v)
{
    if (2 * (m->n + 1) > m->cap) {
        struct smap nm;
        if (smap_init(&nm, m->cap * 2) < 0) {
            smap_free(&nm);
            return -1;
        }
        for (uint32_t i = 0; i < m->cap; i++)
            if (m->keys[i])
                smap_put(&nm, m->keys[i], m->lens[i], m->vals[i]);
        smap_free(m);
        *m = nm;
    }
    uint32_t i = (uint32_t)b_hash(s, n) & (m->cap - 1);
    for (; m->keys[i]; i = (i + 1) & (m->cap - 1))
        if (m->lens[i] == n && memcmp(m->keys[i], s, n) == 0) {
            m->vals[i] = v;
            return 0;
        }
    m->keys[i] = s;
    m->lens[i] = (uint32_t)n;
    m->vals[i] = v;
    m->n++;
    return 0;
}

/* ------------------------------------------------------------------------ interning */

int32_t ent_find(struct ptx_builder *b, const char *s, size_t n, uint64_t h)
{
    for (uint32_t i = (uint32_t)h & (b->hcap - 1);; i = (i + 1) & (b->hcap - 1)) {
        uint32_t e = b->htab[i];
        if (!e)
            return -1;
        struct ent *en = &b->ents[e - 1];
        if (en->hash == h && en->len == n && memcmp(b->strtab + en->id, s, n) == 0)
            return (int32_t)(e - 1);
    }
}

/* Entry of name s (created when absent). -1 when out of memory. */
int32_t ent_get(struct ptx_builder *b, const char *s, size_t n)
{
    uint64_t h = b_hash(s, n);
    int32_t e = ent_find(b, s, n, h);
    if (e >= 0)
        return e;
    if (2 * (b->nents + 1) > b->hcap) {
        uint32_t ncap = b->hcap * 2;
        uint32_t *nt = calloc(ncap, sizeof *nt);
        if (!nt) {
            b->oom = 1;
            return -1;
        }
        for (uint32_t k = 0; k < b->nents; k++) {
            uint32_t i = (uint32_t)b->ents[k].hash & (ncap - 1);
            while (nt[i])
                i = (i + 1) & (ncap - 1);
            nt[i] = k + 1;
        }
        free(b->htab);
        b->htab = nt;
        b->hcap = ncap;
    }
    while (b->nstr + n + 1 > b->capstr) {
        uint32_t c = b->capstr;
        if (b_grow(b, (void **)&b->strtab, &c, 1) < 0)
            return -1;
        b->capstr = c;
    }
    uint32_t id = b->nstr;
    memcpy(b->strtab + id, s, n);
    b->strtab[id + n] = 0;
    b->nstr += (uint32_t)n + 1;
    struct ent en = {id, (uint32_t)n, h, -1, -1, -1, -1, 0};
    uint32_t k = b->nents;
    VEC_PUSH(b, b->ents, b->nents, b->capents, en);
    if (b->nents != k + 1)
        return -1;
    uint32_t i = (uint32_t)h & (b->hcap - 1);
    while (b->htab[i])
        i = (i + 1) & (b->hcap - 1);
    b->htab[i] = k + 1;
    return (int32_t)k;
}

uint32_t str_id(struct ptx_builder *b, const char *s, size_t n)
{
    int32_t e = ent_get(b, s, n);
    return e >= 0 ? b->ents[e].id : 0;
}

/* ======================================================================== registers */

unsigned rf_of_type(unsigned t)
{
    if (t == T_PRED)
        return RF_PRED;
    unsigned s = ir_type_size(t);
    if (s <= 2)
        return RF_B16;
    if (s == 4)
        return RF_B32;
    return RF_B64;
}

unsigned slots_of_type(unsigned t)
{
    return ir_type_size(t) > 8 ? (ir_type_size(t) + 7) / 8 : 1;
}

void bind_push(struct ptx_builder *b, int32_t e, uint8_t kind, uint32_t idx, uint32_t off)
{
    struct ent *en = &b->ents[e];
    if (en->bind >= 0 && b->binds[en->bind].depth == b->depth) {
        b_err(b, off, "duplicate declaration of '%s'", b->strtab + en->id);
        return;
    }
    struct binding bd = {(uint32_t)e, en->bind, b->depth, kind, idx};
    uint32_t k = b->nbinds;
    VEC_PUSH(b, b->binds, b->nbinds, b->capbinds, bd);
    if (b->nbinds == k + 1)
        b->ents[e].bind = (int32_t)k;
}

void binds_pop_to(struct ptx_builder *b, uint32_t mark)
{
    while (b->nbinds > mark) {
        struct binding *bd = &b->binds[--b->nbinds];
        b->ents[bd->ent].bind = bd->prev;
    }
}

void reg_declare(struct ptx_builder *b, int32_t e, unsigned type, unsigned vec,
                        uint32_t count, uint32_t off)
{
    if (b->cur < 0) {
        struct ir_regdecl r = {b->ents[e].id, count, (uint8_t)type, (uint8_t)vec,
                               (uint8_t)rf_of_type(type), 0, 0};
        VEC_PUSH(b, b->mregs, b->nmregs, b->capmregs, r);
        return;
    }
    unsigned rf = rf_of_type(type);
    uint32_t per = slots_of_type(type) * (vec ? vec : 1);
    uint32_t n = count ? count : 1;
    struct ir_regdecl r = {b->ents[e].id, count, (uint8_t)type, (uint8_t)(vec ? vec : 1),
                           (uint8_t)rf, 0, b->fb.nslots[rf]};
    if ((uint64_t)b->fb.nslots[rf] + (uint64_t)n * per > (1u << 24)) {
        b_err(b, off, "too many registers");
        return;
    }
    b->fb.nslots[rf] += n * per;
    uint32_t k = b->fb.nregs;
    VEC_PUSH(b, b->fb.regs, b->fb.nregs, b->fb.capregs, r);
    if (b->fb.nregs == k + 1)
        bind_push(b, e, count ? BK_RANGE : BK_REG, k, off);
}

/* Resolve a register name: 0 and *out filled, or -1 when not a register. */
int reg_resolve(struct ptx_builder *b, const char *s, size_t n, int32_t e,
                       const struct ir_regdecl **rd, uint32_t *slot)
{
    if (e >= 0 && b->ents[e].bind >= 0) {
        struct binding *bd = &b->binds[b->ents[e].bind];
        if (bd->kind == BK_REG) {
            *rd = &b->fb.regs[bd->idx];
            *slot = (*rd)->slot;
            return 0;
        }
        return -1;
    }
    size_t k = n;
    while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9')
        k--;
    if (k == n || k == 0 || (n - k > 1 && s[k] == '0') || n - k > 9)
        return -1;
    uint64_t h = b_hash(s, k);
    int32_t pe = ent_find(b, s, k, h);
    if (pe < 0 || b->ents[pe].bind < 0)
        return -1;
    struct binding *bd = &b->binds[b->ents[pe].bind];
    if (bd->kind != BK_RANGE)
        return -1;
    uint32_t idx = 0;
    for (size_t i = k; i < n; i++)
        idx = idx * 10 + (uint32_t)(s[i] - '0');
    const struct ir_regdecl *r = &b->fb.regs[bd->idx];
    if (idx >= r->count)
        return -1;
    *rd = r;
    *slot = r->slot + idx * slots_of_type(r->type) * r->vec;
    return 0;
}
