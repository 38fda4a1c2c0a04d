/*
 * interp/check.c — the sanitizer's findings and its shadow state's lifetimes. The checking
 * loop's hooks (exec_slow.c calls them per instruction and per lane access when a launch has
 * CHECK_LOOP tools on) live by tool: check_mem.c (initcheck of memory, shared-memory
 * racecheck, the per-access entry), check_grace.c (global-memory racecheck), check_sync.c
 * (synccheck), check_regs.c (initcheck of registers); the session's log is check_log.c,
 * leakcheck check_leak.c; check_int.h is what they share.
 *
 * Findings are collected per launch, deduplicated (racecheck per pair of instructions and
 * kind, initcheck and synccheck per instruction), and printed sorted when the launch ends, so
 * the report does not depend on how CTAs were spread over host threads; each carries the
 * first thread (lowest CTA, then thread) that hit it, and goes to the log's JSON or XML
 * report too. A CTA slot's shadow state (struct check_cta) is made for its first CTA and
 * reset for each later one.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "interp/check.h"
#include "interp/check_int.h"
#include "interp/internal.h"

/* Set up the findings of launch L (see internal.h). */
int check_launch_begin(struct launch_state *L)
{
    L->chk = calloc(1, sizeof *L->chk);
    if (!L->chk)
        return -1;
    pthread_mutex_init(&L->chk->lock, NULL);
    /* recursive: check_grace_enter holds it around a strong access, whose recording
     * (chk_grace_accesses) takes it again */
    pthread_mutexattr_t ra;
    pthread_mutexattr_init(&ra);
    pthread_mutexattr_settype(&ra, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&L->chk->glock, &ra);
    pthread_mutexattr_destroy(&ra);
    return 0;
}

/* Record an occurrence of finding *x (key: kind, fn1/pc1, fn2/pc2). */
void chk_finding_add(struct launch_state *L, const struct finding *x)
{
    struct check_launch *k = L->chk;
    pthread_mutex_lock(&k->lock);
    for (size_t i = 0; i < k->n; i++) {
        struct finding *f = &k->f[i];
        if (f->kind == x->kind && f->fn1 == x->fn1 && f->pc1 == x->pc1 && f->fn2 == x->fn2 &&
            f->pc2 == x->pc2 && f->warning == x->warning) {
            f->count++;
            if (x->cta_linear < f->cta_linear ||
                (x->cta_linear == f->cta_linear && x->tid < f->tid)) {
                uint64_t c = f->count;
                *f = *x;
                f->count = c;
            }
            pthread_mutex_unlock(&k->lock);
            return;
        }
    }
    if (k->n == k->cap) {
        size_t nc = k->cap ? k->cap * 2 : 16;
        struct finding *nf = realloc(k->f, nc * sizeof *nf);
        if (!nf) {
            pthread_mutex_unlock(&k->lock);
            return; /* out of memory: the finding is lost, the run goes on */
        }
        k->f = nf;
        k->cap = nc;
    }
    k->f[k->n] = *x;
    k->f[k->n].count = 1;
    k->n++;
    pthread_mutex_unlock(&k->lock);
}

/* A finding at (w, pc, lane). */
void chk_finding_at(struct finding *x, const struct warp *w, uint32_t pc, unsigned lane,
                    enum fkind kind)
{
    memset(x, 0, sizeof *x);
    x->kind = kind;
    x->fn1 = w->fn;
    x->pc1 = pc;
    x->cta_linear = w->cta->linear;
    memcpy(x->cta, w->cta->id, sizeof x->cta);
    x->tid = w->id * 32 + lane;
}

/* "K+0x40 (file.ptx:31) in a.cu:10" for instruction pc of fn. */
static void site_print(FILE *o, const struct xfunc *fn, uint32_t pc)
{
    const struct ir_module *m = fn->m;
    const struct ir_insn *in = pc < fn->ninsns ? &fn->f->insns[pc] : &fn->insns[fn->ninsns];
    fprintf(o, "%s+%#x (%s:%u)", ir_str(m, fn->f->name), pc * 16,
            m->filename ? m->filename : "<ptx>", in->line);
    if (!in->loc_file || in->loc_file >= m->nfiles || !m->files[in->loc_file])
        return;
    fprintf(o, " in %s:%u", ir_str(m, m->files[in->loc_file]), in->loc_line);
    /* code inlined from a header (an intrinsic, a device function): the call sites, innermost
     * first, as fault reports give them */
    struct ir_srcpos site[8];
    unsigned ns =
        pc < fn->ninsns ? ir_inlined_chain(m, (uint32_t)(fn->f - m->funcs), pc, site, 8) : 0;
    for (unsigned i = 0; i < ns; i++)
        fprintf(o, "%s%s:%u", i ? ", " : " inlined at ",
                site[i].file < m->nfiles && m->files[site[i].file]
                    ? ir_str(m, m->files[site[i].file])
                    : "?",
                site[i].line);
}

/* The site text of instruction pc of fn (see internal.h). */
char *check_site_text(const struct xfunc *fn, uint32_t pc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&buf, &len);
    if (!o)
        return NULL;
    site_print(o, fn, pc);
    if (fclose(o) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static void thread_print(FILE *o, const struct finding *f, const struct launch_state *L)
{
    const uint32_t *b = L->l->block;
    fprintf(o, "%s     by thread (%u,%u,%u) in block (%u,%u,%u)\n", CHK_P, f->tid % b[0],
            f->tid / b[0] % b[1], f->tid / (b[0] * b[1]), f->cta[0], f->cta[1], f->cta[2]);
}

/* The "at SITE" and "by thread ... in block ..." lines of finding f (its first site). */
static void at_thread(FILE *o, const struct finding *f, const struct launch_state *L)
{
    fprintf(o, "%s     at ", CHK_P);
    site_print(o, f->fn1, f->pc1);
    fputc('\n', o);
    thread_print(o, f, L);
}

static int finding_cmp(const void *pa, const void *pb)
{
    const struct finding *a = pa, *b = pb;
    uint64_t ka = (uint64_t)a->fn1->serial << 32 | a->pc1,
             kb = (uint64_t)b->fn1->serial << 32 | b->pc1;
    if (ka != kb)
        return ka < kb ? -1 : 1;
    ka = a->fn2 ? (uint64_t)a->fn2->serial << 32 | a->pc2 : 0;
    kb = b->fn2 ? (uint64_t)b->fn2->serial << 32 | b->pc2 : 0;
    if (ka != kb)
        return ka < kb ? -1 : 1;
    if (a->kind != b->kind)
        return (int)a->kind - (int)b->kind;
    return (int)a->warning - (int)b->warning;
}

/* A barrier thread count as synccheck prints it ("all" for none: every live thread). */
static void count_print(FILE *o, uint32_t count)
{
    if (count)
        fprintf(o, "%u", count);
    else
        fprintf(o, "all");
}

/* "the mbarrier at shared address 0x8" (of another CTA of the cluster: "… of the block of
 * cluster rank 1") of sync misuse f. */
static void mbar_print(FILE *o, const struct finding *f)
{
    fprintf(o, "the mbarrier at shared address 0x%" PRIx64, f->addr);
    if (f->remote)
        fprintf(o, " of the block of cluster rank %u", f->need);
}

/* The report of sync misuse f: its header, site, thread and what was wrong. */
static void misuse_print(FILE *o, const struct finding *f, const struct launch_state *L)
{
    static const char *const head[] = {
        [F_MBAR_UNINIT - F_MBAR_UNINIT] = "Invalid mbarrier",
        [F_MBAR_ARRIVE - F_MBAR_UNINIT] = "Invalid arrive",
        [F_MBAR_NOCOMPLETE - F_MBAR_UNINIT] = "Invalid arrive",
        [F_MBAR_COUNT - F_MBAR_UNINIT] = "Invalid arguments",
        [F_MBAR_TX - F_MBAR_UNINIT] = "Invalid transaction count",
        [F_CLU_WAIT - F_MBAR_UNINIT] = "Invalid wait",
        [F_CLU_ARRIVE - F_MBAR_UNINIT] = "Invalid arrive",
        [F_MBAR_REINIT - F_MBAR_UNINIT] = "Invalid mbarrier",
    };
    fprintf(o, "%s Barrier error detected. %s\n", CHK_P, head[f->kind - F_MBAR_UNINIT]);
    at_thread(o, f, L);
    fprintf(o, "%s     ", CHK_P);
    switch (f->kind) {
    case F_MBAR_UNINIT:
        fprintf(o, "%s on ", f->what);
        mbar_print(o, f);
        fprintf(o, ", which is not initialized (no mbarrier.init by its block, or "
                   "mbarrier.inval since)");
        break;
    case F_MBAR_REINIT:
        fprintf(o, "mbarrier.init of ");
        mbar_print(o, f);
        fprintf(o, ", which its block initialized already (mbarrier.inval it first)");
        break;
    case F_MBAR_ARRIVE:
    case F_MBAR_NOCOMPLETE:
        fprintf(o, "%s: %" PRId64 " arrival%s on ", f->what, f->na, f->na == 1 ? "" : "s");
        mbar_print(o, f);
        fprintf(o, ", whose phase waits for %" PRId64 " (expected %" PRId64 " per phase)%s",
                f->nb, f->nc,
                f->kind == F_MBAR_NOCOMPLETE ? ": a .noComplete arrival must not complete it"
                                             : "");
        break;
    case F_MBAR_COUNT:
        fprintf(o, "%s count %" PRId64 " is outside 1 .. 2^20 - 1 (", f->what, f->na);
        mbar_print(o, f);
        fputc(')', o);
        break;
    case F_MBAR_TX:
        fprintf(o, "%s: the tx-count of ", f->what);
        mbar_print(o, f);
        fprintf(o, " would go from %" PRId64 " to %" PRId64 ", outside -(2^20 - 1) .. 2^20 - 1",
                f->na, f->na + f->nb);
        break;
    case F_CLU_WAIT:
        fprintf(o, "barrier.cluster.wait by a thread that did not arrive (no "
                   "barrier.cluster.arrive since its last wait; block of cluster rank %u)",
                f->need);
        break;
    default: /* F_CLU_ARRIVE */
        fprintf(o, "barrier.cluster.arrive by a thread that arrived in this phase already (no "
                   "barrier.cluster.wait in between; block of cluster rank %u)",
                f->need);
        break;
    }
    fputc('\n', o);
}

static void finding_print(FILE *o, const struct finding *f, const struct launch_state *L)
{
    static const char *const acc[][2] = {{"Write", "Write"}, {"Write", "Read"}, {"Read", "Write"}};
    switch (f->kind) {
    case F_RACE_WAW:
    case F_RACE_RAW:
    case F_RACE_WAR:
        fprintf(o, "%s Error: Race reported between %s access at ", CHK_P, acc[f->kind][0]);
        site_print(o, f->fn1, f->pc1);
        fprintf(o, "\n%s     and %s access at ", CHK_P, acc[f->kind][1]);
        site_print(o, f->fn2, f->pc2);
        fprintf(o, " [%" PRIu64 " hazard%s]\n", f->count, f->count == 1 ? "" : "s");
        break;
    case F_GRACE_WAW:
    case F_GRACE_RAW:
    case F_GRACE_WAR:
        fprintf(o, "%s %s: Race reported between %s access at ", CHK_P,
                f->warning ? "Warning" : "Error", acc[f->kind - F_GRACE_WAW][0]);
        site_print(o, f->fn1, f->pc1);
        fprintf(o, "\n%s     and %s access at ", CHK_P, acc[f->kind - F_GRACE_WAW][1]);
        site_print(o, f->fn2, f->pc2);
        fprintf(o, " [%" PRIu64 " hazard%s]\n", f->count, f->count == 1 ? "" : "s");
        thread_print(o, f, L);
        fprintf(o, "%s     Address %#" PRIx64 " in __global__ memory\n", CHK_P, f->addr);
        break;
    case F_INIT_GLOBAL:
    case F_INIT_SHARED:
        fprintf(o, "%s Uninitialized %s memory read of size %u bytes\n", CHK_P,
                f->kind == F_INIT_GLOBAL ? "__global__" : "__shared__", f->width);
        at_thread(o, f, L);
        if (f->kind == F_INIT_GLOBAL)
            fprintf(o,
                    "%s     Address %#" PRIx64 " is %" PRIu64
                    " bytes into the allocation of %" PRIu64 " bytes at %#" PRIx64 "\n",
                    CHK_P, f->addr, f->addr - f->base, f->size, f->base);
        else
            fprintf(o, "%s     Address 0x%" PRIx64 " in shared memory\n", CHK_P, f->addr);
        if (f->count > 1)
            fprintf(o, "%s     (%" PRIu64 " such reads by this instruction)\n", CHK_P, f->count);
        break;
    case F_INIT_LOCAL:
        fprintf(o, "%s Uninitialized __local__ memory read of size %u bytes\n", CHK_P, f->width);
        at_thread(o, f, L);
        fprintf(o, "%s     Address 0x%" PRIx64 " in the thread's local memory\n", CHK_P, f->addr);
        if (f->count > 1)
            fprintf(o, "%s     (%" PRIu64 " such reads by this instruction)\n", CHK_P, f->count);
        break;
    case F_INIT_REG:
        fprintf(o, "%s Uninitialized register read of %s\n", CHK_P, f->what);
        at_thread(o, f, L);
        if (f->count > 1)
            fprintf(o, "%s     (%" PRIu64 " such reads by this instruction)\n", CHK_P, f->count);
        break;
    case F_SYNC_PATH:
        fprintf(o, "%s Barrier error detected. Divergent thread(s) in block\n", CHK_P);
        at_thread(o, f, L);
        fprintf(o, "%s     barrier %u is waited for at ", CHK_P, f->need);
        site_print(o, f->fn2, f->pc2);
        fprintf(o, " too, in the same phase\n");
        break;
    case F_SYNC_MIXED:
        fprintf(o, "%s Barrier error detected. Invalid arguments\n", CHK_P);
        at_thread(o, f, L);
        fprintf(o, "%s     barrier %u is waited for with thread count ", CHK_P, f->need);
        count_print(o, f->mask);
        fprintf(o, " here and with ");
        count_print(o, f->width);
        fprintf(o, " at ");
        site_print(o, f->fn2, f->pc2);
        fprintf(o, ", in the same phase\n");
        break;
    case F_SYNC_CROSS:
        fprintf(o, "%s Barrier error detected. Divergent thread(s) in block\n", CHK_P);
        at_thread(o, f, L);
        fprintf(o,
                "%s     barrier %u waits for every thread while threads wait for every thread "
                "at barrier %u (",
                CHK_P, f->need, f->mask);
        site_print(o, f->fn2, f->pc2);
        fprintf(o, "): neither can complete\n");
        break;
    case F_SYNC_COUNT:
        fprintf(o, "%s Barrier error detected. Invalid arguments\n", CHK_P);
        at_thread(o, f, L);
        fprintf(o, "%s     barrier thread count %u is not a multiple of the warp size\n", CHK_P,
                f->need);
        break;
    case F_SYNC_BLOCK:
    case F_SYNC_WARP:
        fprintf(o, "%s Barrier error detected. Divergent thread(s) in %s\n", CHK_P,
                f->kind == F_SYNC_BLOCK ? "block" : "warp");
        at_thread(o, f, L);
        if (f->kind == F_SYNC_BLOCK)
            fprintf(o,
                    "%s     lanes %08x of warp %u executed the barrier; its live lanes are %08x\n",
                    CHK_P, f->mask, f->tid / 32, f->need);
        else
            fprintf(o, "%s     %s member mask %08x names lanes that do not execute it (%08x do)\n",
                    CHK_P, f->what, f->need, f->mask);
        break;
    case F_ASYNC_READ:
    case F_ASYNC_WRITE:
    case F_ASYNC_SRC_WRITE: {
        /* what the copy is, what it does to the byte, what has not completed it, and what
           the access gets (cp.async: the thread's waits; a bulk copy into shared memory: its
           mbarrier phase; a bulk copy to global memory: the thread's bulk group wait) */
        const bool src = f->kind == F_ASYNC_SRC_WRITE;
        const bool st = f->na == AR_ST_ASYNC, red = f->na == AR_RED_ASYNC;
        const bool bulk = src || f->na == AR_BULK_DST || st || red;
        const bool rd = f->kind == F_ASYNC_READ;
        const char *cw = st ? "st.async" : red ? "red.async" : bulk ? "bulk copy" : "cp.async";
        fprintf(o, "%s %s of a%s %s %s before the copy was waited for (size %u bytes)\n", CHK_P,
                rd ? "Read" : "Write", st ? "n" : "", cw,
                src ? "source" : "destination", f->width);
        at_thread(o, f, L);
        fprintf(o, "%s     Address 0x%" PRIx64 " in shared memory, %s the %s at ", CHK_P, f->addr,
                src ? "still to be read by" : "to be written by", cw);
        if (f->fn2)
            site_print(o, f->fn2, f->pc2);
        if (f->remote)
            fprintf(o, " of thread %u of the block of cluster rank %u", f->need, (unsigned)f->nb);
        else
            fprintf(o, " of thread %u of the block", f->need);
        fprintf(o, ", %s%s\n",
                src ? "which no cp.async.bulk.wait_group{.read} of that thread has waited for yet"
                : bulk ? "whose mbarrier phase no mbarrier.test_wait / try_wait has seen complete "
                         "yet"
                       : "which no cp.async.wait_group / wait_all of that thread (nor an mbarrier "
                         "wait after its cp.async.mbarrier.arrive) has completed yet",
                src  ? ": the copy may read the new bytes"
                : rd && red ? ": the read may see the word before the reduction"
                : rd ? ": the read sees the old bytes (here 0xff)"
                     : ": the copy may land over the write");
        if (f->count > 1)
            fprintf(o, "%s     (%" PRIu64 " such accesses by this instruction)\n", CHK_P,
                    f->count);
        break;
    }
    default: misuse_print(o, f, L); break;
    }
}

/* "function", "pc", "ptx" and "source" members of instruction pc of fn. */
static void rep_site(struct interp_check_log *g, const struct xfunc *fn, uint32_t pc)
{
    const struct ir_module *m = fn->m;
    const struct ir_insn *in = pc < fn->ninsns ? &fn->f->insns[pc] : &fn->insns[fn->ninsns];
    chk_rep_str(g, "function", ir_str(m, fn->f->name));
    chk_rep_hex(g, "pc", (uint64_t)pc * 16);
    chk_rep_pos(g, "ptx", m->filename ? m->filename : "<ptx>", in->line);
    chk_rep_pos(g, "source",
                in->loc_file && in->loc_file < m->nfiles && m->files[in->loc_file]
                    ? ir_str(m, m->files[in->loc_file])
                    : NULL,
                in->loc_line);
}

/* A finding as a report record. Caller holds g->lock. */
static void rep_finding(struct interp_check_log *g, const struct finding *f,
                        const struct launch_state *L)
{
    static const struct {
        const char *tool, *kind, *space;
    } k[] = {
        [F_RACE_WAW] = {"racecheck", "write-after-write", "shared"},
        [F_RACE_RAW] = {"racecheck", "read-after-write", "shared"},
        [F_RACE_WAR] = {"racecheck", "write-after-read", "shared"},
        [F_GRACE_WAW] = {"racecheck", "write-after-write", "global"},
        [F_GRACE_RAW] = {"racecheck", "read-after-write", "global"},
        [F_GRACE_WAR] = {"racecheck", "write-after-read", "global"},
        [F_INIT_GLOBAL] = {"initcheck", "uninitialized-read", "global"},
        [F_INIT_SHARED] = {"initcheck", "uninitialized-read", "shared"},
        [F_SYNC_BLOCK] = {"synccheck", "divergent-barrier", NULL},
        [F_SYNC_WARP] = {"synccheck", "divergent-warp-collective", NULL},
        [F_SYNC_COUNT] = {"synccheck", "barrier-thread-count", NULL},
        [F_SYNC_PATH] = {"synccheck", "barrier-divergent-paths", NULL},
        [F_SYNC_MIXED] = {"synccheck", "barrier-thread-count-mismatch", NULL},
        [F_SYNC_CROSS] = {"synccheck", "barrier-cross-wait", NULL},
        [F_INIT_REG] = {"initcheck", "uninitialized-register", NULL},
        [F_INIT_LOCAL] = {"initcheck", "uninitialized-read", "local"},
        [F_MBAR_UNINIT] = {"synccheck", "mbarrier-uninitialized", "shared"},
        [F_MBAR_ARRIVE] = {"synccheck", "mbarrier-arrive-overflow", "shared"},
        [F_MBAR_NOCOMPLETE] = {"synccheck", "mbarrier-nocomplete-completes", "shared"},
        [F_MBAR_COUNT] = {"synccheck", "mbarrier-count", "shared"},
        [F_MBAR_TX] = {"synccheck", "mbarrier-tx-count", "shared"},
        [F_CLU_WAIT] = {"synccheck", "cluster-wait-without-arrive", NULL},
        [F_CLU_ARRIVE] = {"synccheck", "cluster-arrive-twice", NULL},
        [F_MBAR_REINIT] = {"synccheck", "mbarrier-reinitialized", "shared"},
        [F_ASYNC_READ] = {"asynccheck", "read-before-wait", "shared"},
        [F_ASYNC_WRITE] = {"asynccheck", "write-before-wait", "shared"},
        [F_ASYNC_SRC_WRITE] = {"asynccheck", "source-write-before-wait", "shared"},
    };
    if (!chk_rep_begin(g, k[f->kind].tool, k[f->kind].kind, f->warning))
        return;
    const uint32_t *b = L->l->block;
    const bool race = f->kind <= F_GRACE_WAR;
    const uint32_t tid[3] = {f->tid % b[0], f->tid / b[0] % b[1], f->tid / (b[0] * b[1])};
    chk_rep_str(g, "kernel", ir_str(L->xf->m, L->xf->f->name));
    chk_rep_xyz(g, "block", f->cta);
    chk_rep_xyz(g, "thread", tid);
    /* the instruction `thread` ran; a race's or a barrier's earlier one is "first" */
    rep_site(g, race ? f->fn2 : f->fn1, race ? f->pc2 : f->pc1);
    if (k[f->kind].space)
        chk_rep_str(g, "space", k[f->kind].space);
    const bool as =
        f->kind == F_ASYNC_READ || f->kind == F_ASYNC_WRITE || f->kind == F_ASYNC_SRC_WRITE;
    if ((f->kind >= F_GRACE_WAW && f->kind <= F_INIT_SHARED) || f->kind == F_INIT_LOCAL || as)
        chk_rep_hex(g, "address", f->addr);
    if (f->kind == F_INIT_GLOBAL || f->kind == F_INIT_SHARED || f->kind == F_INIT_LOCAL || as)
        chk_rep_num(g, "size", f->width);
    if (f->kind == F_INIT_REG)
        chk_rep_str(g, "register", f->what);
    if (f->kind >= F_MBAR_UNINIT) {
        chk_rep_str(g, "instruction", f->what);
        if (k[f->kind].space)
            chk_rep_hex(g, "address", f->addr);
        chk_rep_num(g, "cluster_rank", f->need);
    }
    if (as && f->fn2) { /* the copy, its thread and what completes it */
        chk_rep_open(g, "copy");
        rep_site(g, f->fn2, f->pc2);
        chk_rep_num(g, "thread_in_block", f->need);
        if (f->remote) /* issued by another CTA of the cluster */
            chk_rep_num(g, "cluster_rank", (uint64_t)f->nb);
        chk_rep_str(g, "completed_by",
                    f->kind == F_ASYNC_SRC_WRITE ? "cp.async.bulk.wait_group"
                    : f->na == AR_BULK_DST || f->na == AR_ST_ASYNC || f->na == AR_RED_ASYNC
                        ? "mbarrier"
                                                 : "cp.async.wait_group");
        chk_rep_close(g, "copy");
    }
    if (race || f->kind == F_SYNC_PATH || f->kind == F_SYNC_MIXED || f->kind == F_SYNC_CROSS) {
        chk_rep_open(g, "first");
        rep_site(g, race ? f->fn1 : f->fn2, race ? f->pc1 : f->pc2);
        chk_rep_close(g, "first");
    }
    chk_rep_num(g, "count", f->count);
    chk_rep_end(g);
}

/* Print and free the findings of launch L (see internal.h). */
void check_launch_end(struct launch_state *L)
{
    struct check_launch *k = L->chk;
    if (!k)
        return;
    struct interp_check_log *g = L->dev->cfg.check_log;
    if (g && k->n) {
        qsort(k->f, k->n, sizeof *k->f, finding_cmp);
        pthread_mutex_lock(&g->lock);
        for (size_t i = 0; i < k->n; i++)
            if (chk_log_count(g)) {
                finding_print(g->out, &k->f[i], L);
                rep_finding(g, &k->f[i], L);
            }
        fflush(g->out);
        pthread_mutex_unlock(&g->lock);
    }
    pthread_mutex_destroy(&k->lock);
    pthread_mutex_destroy(&k->glock);
    chk_gshadow_free(k);
    free(k->f);
    free(k);
    L->chk = NULL;
}

/* ====================================================================== per CTA */

static void cta_state_free(struct check_cta *k)
{
    if (!k)
        return;
    for (uint32_t i = 0; k->rw && i < k->nw; i++) {
        for (uint32_t j = 0; j < k->rw[i].cap; j++)
            free(k->rw[i].f[j].written);
        free(k->rw[i].f);
    }
    free(k->rw);
    for (uint32_t i = 0; i < k->nrt; i++)
        for (unsigned rf = 0; rf < RF__COUNT; rf++)
            free(k->rt[i].idx[rf]);
    free(k->rt);
    free(k->cell);
    chk_async_free(k);
    free(k->wrote);
    free(k->sat);
    free(k->shinit);
    free(k->linit);
    free(k->gw);
    free(k->mb);
    free(k);
}

/* Fresh shadow state for CTA c (see internal.h). */
int check_cta_begin(struct cta *c)
{
    size_t need = c->L->shared_total ? c->L->shared_total : 1;
    const uint32_t nw = (c->L->nthreads + 31) / 32;
    struct check_cta *k = c->chk;
    if (!k || k->cap < need || k->nw < nw) {
        cta_state_free(k);
        c->chk = k = calloc(1, sizeof *k);
        if (!k)
            return -1;
        k->cell = calloc(need / 4 + 1, sizeof *k->cell);
        k->wrote = calloc(need / 4 + 1, sizeof *k->wrote);
        k->sat = calloc(need / 4 + 1, sizeof *k->sat);
        k->shinit = calloc(need / 8 + 3, 1); /* bits_all reads two bytes on */
        k->gw = calloc(nw, sizeof *k->gw);
        k->rw = calloc(nw, sizeof *k->rw);
        k->nw = nw;
        if (!k->cell || !k->wrote || !k->sat || !k->shinit || !k->gw || !k->rw) {
            cta_state_free(k);
            c->chk = NULL;
            return -1;
        }
        k->cap = need;
    }
    memset(k->shinit, 0, need / 8 + 3);
    if (k->linit && k->lhwm) { /* what the slot's last CTA wrote of its threads' local areas */
        for (uint32_t t = 0; t < k->lthreads; t++)
            memset(k->linit + (size_t)t * k->lrow, 0, k->lhwm / 8 + 1);
        k->lhwm = 0;
    }
    k->last = NULL; /* allocations may have been freed since the slot's last CTA */
    memset(k->gw, 0, k->nw * sizeof *k->gw);
    k->pend_g = k->pend_c = 0;
    k->nmb = 0;
    chk_async_reset(k);
    for (uint32_t i = 0; i < k->nw; i++) {
        k->rw[i].n = 0;
        k->rw[i].pend = false;
    }
    c->chk_ep++;
    return 0;
}

/* Free the shadow state of a CTA slot (see internal.h). */
void check_cta_free(struct cta *c)
{
    cta_state_free(c->chk);
    c->chk = NULL;
}

/* A new warp instruction (see internal.h). */
void check_step(struct warp *w)
{
    w->cta->chk_step++;
}

/* bar.warp.sync (see internal.h). */
void check_syncwarp(struct warp *w)
{
    w->chk_wep++;
}
