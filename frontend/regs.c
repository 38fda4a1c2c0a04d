/*
 * frontend/regs.c — registers per thread, estimated from live ranges as a register allocator
 * would need them: what cudaFuncGetAttributes' numRegs, the occupancy calculator and
 * `ptxemu info` report. (Counting declared PTX registers instead gives hundreds for nvcc
 * output, which declares a fresh virtual register per value, and an occupancy of 0 blocks.)
 *
 * Backward liveness over the CFG of the function's declared .b16/.b32/.b64 registers (a .b64
 * counts as two 32-bit registers, a .b16 as one; predicates live in their own file and are not
 * counted, as ptxas does not count them), then the largest number live at any instruction,
 * its destinations included. Registers only ever set from a special register or an immediate
 * are not counted: an allocator rematerializes them at their uses. A write under a guard predicate does not end the old value's
 * range. Functions without a CFG, or too large for the bit sets, fall back to the declared count.
 */
#include <stdlib.h>
#include <string.h>

#include "frontend/cfg.h"
#include "frontend/ir.h"

/* Registers an allocator keeps beyond the live values (addresses of parameters, temporaries
 * of expanded instructions): calibrated against ptxas -v on the fixtures (tests/regs.t). */
#define REGS_RESERVED 2u

/* Bit sets larger than this (words × blocks) fall back to the declared count. */
#define REGS_MAX_WORDS (UINT64_C(1) << 24)

struct regs_ctx {
    const struct ir_func *f;
    uint32_t base[RF__COUNT];  /* first bit of each register file (PRED excluded: UINT32_MAX) */
    size_t words;
    uint64_t *remat;           /* registers only ever set from a special register or an
                                  immediate: an allocator recomputes them where they are used
                                  (ptxas rereads %tid, %ctaid …) instead of keeping them live */
};

static uint32_t regs_declared(const struct ir_func *f)
{
    uint64_t n = (uint64_t)f->ndeclared[RF_B16] + f->ndeclared[RF_B32] + 2u * f->ndeclared[RF_B64];
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* Bit of register (rf, slot), or UINT32_MAX when it is not tracked. */
static inline uint32_t regs_bit(const struct regs_ctx *x, unsigned rf, uint32_t slot)
{
    if (rf >= RF__COUNT || x->base[rf] == UINT32_MAX || slot >= x->f->ndeclared[rf])
        return UINT32_MAX;
    uint32_t b = x->base[rf] + slot;
    if (x->remat && (x->remat[b >> 6] >> (b & 63) & 1))
        return UINT32_MAX;
    return b;
}

static inline unsigned regs_weight(unsigned rf)
{
    return rf == RF_B64 ? 2 : 1;
}

/* Apply instruction pc backwards to live set s: kill unguarded destinations, add sources.
 * With count: keep *count (the weight of s) up to date and return the weight live across the
 * instruction (what is live after it plus its destinations). */
static uint32_t regs_step(const struct regs_ctx *x, uint32_t pc, uint64_t *s, uint32_t *count)
{
    const struct ir_func *f = x->f;
    const struct ir_insn *in = &f->insns[pc];
    uint32_t n, peak = count ? *count : 0;
    const struct ir_regref *r = ir_insn_regs(f, in, &n);
    const bool guarded = in->guard != IR_NOGUARD;
    /* destinations: live across the instruction, then dead above it (unless guarded) */
    for (uint32_t i = 0; i < n; i++) {
        if (!r[i].dst)
            continue;
        for (uint32_t k = 0; k < r[i].n; k++) {
            uint32_t b = regs_bit(x, r[i].rf, r[i].slot + k);
            if (b == UINT32_MAX)
                continue;
            uint64_t m = UINT64_C(1) << (b & 63);
            if (!(s[b >> 6] & m))
                peak += regs_weight(r[i].rf);
            else if (!guarded && count)
                *count -= regs_weight(r[i].rf);
            if (!guarded)
                s[b >> 6] &= ~m;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        if (r[i].dst)
            continue;
        for (uint32_t k = 0; k < r[i].n; k++) {
            uint32_t b = regs_bit(x, r[i].rf, r[i].slot + k);
            if (b == UINT32_MAX)
                continue;
            uint64_t m = UINT64_C(1) << (b & 63);
            if (!(s[b >> 6] & m)) {
                s[b >> 6] |= m;
                if (count)
                    *count += regs_weight(r[i].rf);
            }
        }
    }
    if (count && *count > peak)
        peak = *count;
    return peak;
}

/* OUT of block b: the union of its real successors' IN sets. */
static void regs_out(const struct cfg *c, uint32_t b, const uint64_t *ins, size_t words,
                     uint64_t *out)
{
    memset(out, 0, words * sizeof *out);
    const struct cfg_block *bl = &c->blocks[b];
    for (uint32_t i = 0; i < bl->nsucc; i++) {
        uint32_t t = c->succ[bl->succ + i].to;
        if (t >= c->nblocks)
            continue;
        for (size_t w = 0; w < words; w++)
            out[w] |= ins[(size_t)t * words + w];
    }
}

/*
 * Registers per thread function f needs: the most 32-bit registers live at once (see the file
 * comment). Uses f->cfg; without one, the declared count.
 */
uint32_t ir_reg_pressure(const struct ir_func *f)
{
    const struct cfg *c = f->cfg;
    struct regs_ctx x = {.f = f};
    uint32_t nbits = 0;
    for (unsigned rf = 0; rf < RF__COUNT; rf++) {
        if (rf == RF_PRED) {
            x.base[rf] = UINT32_MAX;
            continue;
        }
        x.base[rf] = nbits;
        nbits += f->ndeclared[rf];
    }
    x.words = (nbits + 63) / 64 ? (nbits + 63) / 64 : 1;
    if (!c || !f->regrefs || f->ninsns == 0 ||
        (uint64_t)x.words * (c->nblocks + 1) > REGS_MAX_WORDS)
        return regs_declared(f);
    uint64_t *ins = calloc((size_t)(c->nblocks + 1) * x.words, sizeof *ins);
    uint32_t *order = malloc((size_t)(c->nblocks + 1) * sizeof *order);
    if (!ins || !order) {
        free(ins);
        free(order);
        return regs_declared(f);
    }
    uint64_t *cur = ins + (size_t)c->nblocks * x.words;
    x.remat = calloc(x.words, sizeof *x.remat);
    uint64_t *other = calloc(x.words, sizeof *other); /* set some other way */
    if (x.remat && other) {
        for (uint32_t pc = 0; pc < f->ninsns; pc++) {
            const struct ir_insn *in = &f->insns[pc];
            const bool cheap = in->op == OP_MOV && in->nopnd == 2 &&
                               (f->opnds[in->opnd + 1].kind == OPK_SREG ||
                                f->opnds[in->opnd + 1].kind == OPK_IMM);
            uint32_t n;
            const struct ir_regref *r = ir_insn_regs(f, in, &n);
            for (uint32_t i = 0; i < n; i++)
                for (uint32_t k = 0; r[i].dst && k < r[i].n; k++) {
                    uint32_t b = regs_bit(&x, r[i].rf, r[i].slot + k);
                    if (b != UINT32_MAX)
                        (cheap ? x.remat : other)[b >> 6] |= UINT64_C(1) << (b & 63);
                }
        }
        for (size_t w = 0; w < x.words; w++)
            x.remat[w] &= ~other[w];
    }
    free(other);
    /* reachable blocks in postorder (reverse of the RPO), for a backward problem. The ranks
     * count the virtual exit node too (0 .. nblocks), and blocks that cannot reach the exit
     * (a spin or trap loop) may rank after it: place by rank, close the exit's gap, reverse. */
    uint32_t nord = 0;
    for (uint32_t i = 0; i <= c->nblocks; i++)
        order[i] = CFG_NONE;
    for (uint32_t b = 0; b < c->nblocks; b++)
        if (c->blocks[b].rpo != CFG_NONE && c->blocks[b].rpo <= c->nblocks)
            order[c->blocks[b].rpo] = b;
    for (uint32_t i = 0; i <= c->nblocks; i++)
        if (order[i] != CFG_NONE)
            order[nord++] = order[i];
    for (uint32_t i = 0; i < nord / 2; i++) {
        const uint32_t t = order[i];
        order[i] = order[nord - 1 - i];
        order[nord - 1 - i] = t;
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = 0; i < nord; i++) {
            const struct cfg_block *bl = &c->blocks[order[i]];
            regs_out(c, order[i], ins, x.words, cur);
            for (uint32_t pc = bl->last + 1; pc-- > bl->first;)
                regs_step(&x, pc, cur, NULL);
            uint64_t *o = ins + (size_t)order[i] * x.words;
            if (memcmp(o, cur, x.words * sizeof *cur)) {
                memcpy(o, cur, x.words * sizeof *cur);
                changed = true;
            }
        }
    }
    uint32_t peak = 0;
    for (uint32_t i = 0; i < nord; i++) {
        const struct cfg_block *bl = &c->blocks[order[i]];
        regs_out(c, order[i], ins, x.words, cur);
        uint32_t count = 0;
        for (unsigned rf = 0; rf < RF__COUNT; rf++)
            for (uint32_t s = 0; x.base[rf] != UINT32_MAX && s < f->ndeclared[rf]; s++) {
                uint32_t b = regs_bit(&x, rf, s);
                if (b != UINT32_MAX && (cur[b >> 6] >> (b & 63) & 1))
                    count += regs_weight(rf);
            }
        if (count > peak)
            peak = count;
        for (uint32_t pc = bl->last + 1; pc-- > bl->first;) {
            uint32_t p = regs_step(&x, pc, cur, &count);
            if (p > peak)
                peak = p;
        }
    }
    free(ins);
    free(order);
    free(x.remat);
    return peak;
}

/* Registers per thread of kernel f as an allocator would need them (frontend/regs.c): its own
 * live ranges, and when it calls functions the most any function of the module needs, plus the
 * ABI's registers for the call (return address, stack pointer, saved values); 8 to 255 as
 * ptxas allocates (calibration: tests/regs.t). */
uint32_t ir_kernel_regs(const struct ir_module *m, const struct ir_func *f)
{
    uint32_t regs = ir_reg_pressure(f);
    bool calls = false;
    for (uint32_t pc = 0; pc < f->ninsns && !calls; pc++)
        calls = f->insns[pc].op == OP_CALL;
    if (calls) {
        for (uint32_t fi = 0; fi < m->nfuncs; fi++)
            if (&m->funcs[fi] != f && m->funcs[fi].defined && m->funcs[fi].ninsns) {
                uint32_t r = ir_reg_pressure(&m->funcs[fi]);
                regs = r > regs ? r : regs;
            }
        regs += 8;
    }
    regs += regs / 4 + REGS_RESERVED;
    return regs < 8 ? 8 : regs > 255 ? 255 : regs;
}
