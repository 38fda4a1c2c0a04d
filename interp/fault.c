/*
 * interp/fault.c — fault records (the first fault of a launch, with kernel, CTA, thread, PC,
 * PTX and CUDA source lines) and their compute-sanitizer-style reports.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "interp/check.h"
#include "interp/internal.h"

/* ====================================================================== faults */

/* Record the first fault of a launch (later ones are ignored) and stop the other CTAs.
 * "First" is host order, unless the launch's clock hook orders faults (ENGINE_CLOCK_ORDER,
 * engine.h: a timing driver stepping SMs on several host threads): then the fault with the
 * lowest key is kept, the earlier one on a tie, so the record is what a serial run keeps.
 * `reported`: a check tool reported it as its finding (trap.reported). */
static void fault_record(struct warp *w, uint32_t pc, unsigned lane, enum trap_kind kind,
                         uint64_t addr, unsigned width, int space, bool is_write, const char *msg,
                         bool reported)
{
    struct cta *c = w->cta;
    struct launch_state *L = c->L;
    const uint64_t key =
        L->clock_fn ? L->clock_fn(L->clock_ctx, ENGINE_CLOCK_ORDER, c->linear, w->id) : 0;
    pthread_mutex_lock(&L->trap_lock);
    if (L->trapped && key >= L->trap_key) {
        pthread_mutex_unlock(&L->trap_lock);
        return;
    }
    L->trapped = true;
    L->trap_key = key;
    atomic_store(&L->stop, 1);
    struct trap *t = L->trap;
    memset(t, 0, sizeof *t);
    t->kind = kind;
    snprintf(t->kernel, sizeof t->kernel, "%s", L->k->info.name);
    memcpy(t->cta, c->id, sizeof t->cta);
    const uint32_t *b = L->l->block;
    uint32_t tl = w->id * 32 + lane;
    t->tid[0] = tl % b[0];
    t->tid[1] = tl / b[0] % b[1];
    t->tid[2] = tl / (b[0] * b[1]);
    t->lane = lane;
    t->warp = w->id;
    t->pc = pc;
    const struct xfunc *fn = w->fn;
    if (fn) {
        const struct ir_module *m = fn->m;
        snprintf(t->func, sizeof t->func, "%s", ir_str(m, fn->f->name));
        t->ptx_file = m->filename;
        const struct ir_insn *in = pc < fn->ninsns ? &fn->f->insns[pc] : &fn->insns[fn->ninsns];
        t->line = in->line;
        t->col = in->col;
        if (in->loc_file && in->loc_file < m->nfiles && m->files[in->loc_file])
            snprintf(t->src_file, sizeof t->src_file, "%s", ir_str(m, m->files[in->loc_file]));
        t->src_line = in->loc_line;
        struct ir_srcpos site[8];
        uint32_t fi = (uint32_t)(fn->f - m->funcs);
        unsigned ns = pc < fn->ninsns ? ir_inlined_chain(m, fi, pc, site, 8) : 0;
        size_t k = 0;
        t->src_inlined[0] = 0;
        for (unsigned i = 0; i < ns && k < sizeof t->src_inlined; i++) {
            const char *sf = site[i].file < m->nfiles && m->files[site[i].file]
                                 ? ir_str(m, m->files[site[i].file])
                                 : "?";
            int w = snprintf(t->src_inlined + k, sizeof t->src_inlined - k, "%s%s:%u",
                             i ? ", " : "", sf, site[i].line);
            if (w < 0)
                break;
            k += (size_t)w;
        }
    }
    t->addr = addr;
    t->width = width;
    t->space = (uint8_t)space;
    t->is_write = is_write;
    t->reported = reported;
    if (msg) {
        snprintf(t->msg, sizeof t->msg, "%s", msg);
    } else if (kind == TRAP_OOB && space == SP_GLOBAL) {
        const struct mem_alloc *a = mem_nearest(L->dev->mem, addr);
        if (a && addr >= a->base + a->size)
            snprintf(t->msg, sizeof t->msg,
                     "and is %" PRIu64 " bytes after the nearest allocation at %#" PRIx64
                     " of size %" PRIu64 " bytes",
                     addr - (a->base + a->size), a->base, a->size);
        else if (a && addr < a->base)
            snprintf(t->msg, sizeof t->msg,
                     "and is %" PRIu64 " bytes before the nearest allocation at %#" PRIx64
                     " of size %" PRIu64 " bytes",
                     a->base - addr, a->base, a->size);
        else if (a)
            snprintf(t->msg, sizeof t->msg,
                     "and crosses the end of the allocation at %#" PRIx64 " of size %" PRIu64
                     " bytes",
                     a->base, a->size);
    } else if (kind == TRAP_OOB && space == SP_SHARED) {
        const uint64_t o = addr - MEM_SHARED_BASE < MEM_SHARED_SIZE ? addr - MEM_SHARED_BASE : addr;
        const struct cluster *cl = c->clu;
        const uint64_t slot = o / CLU_STRIDE;
        if (slot == 0 || !cl)
            snprintf(t->msg, sizeof t->msg, "and the CTA has %u bytes of shared memory",
                     c->shared_size);
        else if (slot > cl->n)
            snprintf(t->msg, sizeof t->msg,
                     "and is in the shared::cluster window of CTA rank %llu, outside the "
                     "cluster of %u CTAs",
                     (unsigned long long)(slot - 1), cl->n);
        else if (!cl->cta[slot - 1])
            snprintf(t->msg, sizeof t->msg,
                     "and is in the shared memory of CTA rank %llu of the cluster, which is "
                     "not running",
                     (unsigned long long)(slot - 1));
        else
            snprintf(t->msg, sizeof t->msg,
                     "and is byte %llu of the shared memory of CTA rank %llu of the cluster, "
                     "which has %u bytes",
                     (unsigned long long)(o % CLU_STRIDE), (unsigned long long)(slot - 1),
                     cl->cta[slot - 1]->shared_size);
    } else if (kind == TRAP_OOB && space == SP_LOCAL) {
        snprintf(t->msg, sizeof t->msg, "and each thread has %u bytes of local memory",
                 c->local_stride);
    }
    pthread_mutex_unlock(&L->trap_lock);
}

/* Record a fault (see internal.h). */
void interp_fault(struct warp *w, uint32_t pc, unsigned lane, enum trap_kind kind, uint64_t addr,
                  unsigned width, int space, bool is_write, const char *msg)
{
    fault_record(w, pc, lane, kind, addr, width, space, is_write, msg, false);
}

/* Record the fault of a sync misuse, synccheck's finding when it runs (see internal.h). */
void interp_sync_fault(struct warp *w, uint32_t pc, unsigned lane, const struct sync_what *x,
                       uint64_t addr, unsigned width, int space, bool is_write, const char *msg)
{
    const bool sc = (w->cta->L->check & CHECK_SYNCCHECK) != 0;
    if (sc)
        check_sync_misuse(w, pc, lane, x);
    fault_record(w, pc, lane, TRAP_ILLEGAL, addr, width, space, is_write, msg, sc);
}

static const char *space_word(unsigned sp)
{
    switch (sp) {
    case SP_SHARED: case SP_SHARED_CTA: case SP_SHARED_CLUSTER: return "__shared__";
    case SP_LOCAL: return "__local__";
    case SP_PARAM: case SP_PARAM_ENTRY: case SP_PARAM_FUNC: return "__param__";
    case SP_CONST: return "__constant__";
    default: return "__global__";
    }
}

/* Print a compute-sanitizer-style report of a trap (see interp.h). */
void interp_trap_report(FILE *out, const struct trap *t)
{
    const char *P = "=========";
    switch (t->kind) {
    case TRAP_OOB:
    case TRAP_MISALIGNED:
    case TRAP_READONLY:
        fprintf(out, "%s Invalid %s %s of size %u bytes\n", P, space_word(t->space),
                t->is_write ? "write" : "read", t->width);
        break;
    case TRAP_TRAP: fprintf(out, "%s Trap instruction executed\n", P); break;
    case TRAP_BRKPT: fprintf(out, "%s Breakpoint instruction executed\n", P); break;
    case TRAP_ASSERT: fprintf(out, "%s Device assertion failed\n", P); break;
    case TRAP_DEADLOCK: fprintf(out, "%s Barrier deadlock\n", P); break;
    case TRAP_BUDGET: fprintf(out, "%s Instruction budget exhausted\n", P); break;
    case TRAP_ILLEGAL: fprintf(out, "%s Illegal instruction\n", P); break;
    case TRAP_STACK: fprintf(out, "%s Stack overflow\n", P); break;
    case TRAP_HEAP: fprintf(out, "%s Invalid device heap operation\n", P); break;
    default: fprintf(out, "%s Error\n", P); break;
    }
    fprintf(out, "%s     at %s+%#x (%s:%u)", P, t->func[0] ? t->func : t->kernel, t->pc * 16,
            t->ptx_file ? t->ptx_file : "<ptx>", t->line);
    if (t->src_file[0])
        fprintf(out, " in %s:%u", t->src_file, t->src_line);
    if (t->src_file[0] && t->src_inlined[0])
        fprintf(out, " inlined at %s", t->src_inlined);
    fputc('\n', out);
    fprintf(out, "%s     by thread (%u,%u,%u) in block (%u,%u,%u)\n", P, t->tid[0], t->tid[1],
            t->tid[2], t->cta[0], t->cta[1], t->cta[2]);
    switch (t->kind) {
    case TRAP_OOB:
        fprintf(out, "%s     Address 0x%" PRIx64 " is out of bounds\n", P, t->addr);
        break;
    case TRAP_MISALIGNED:
        fprintf(out, "%s     Address 0x%" PRIx64 " is misaligned\n", P, t->addr);
        break;
    case TRAP_READONLY:
        fprintf(out, "%s     Address 0x%" PRIx64 " is in read-only memory\n", P, t->addr);
        break;
    default: break;
    }
    if (t->msg[0])
        fprintf(out, "%s     %s\n", P, t->msg);
}
