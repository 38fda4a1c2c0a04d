/*
 * interp/check.c — the sanitizer: the report log shared by every device and launch of a
 * session (error count, print limit), and the checking loop's hooks (exec_slow.c calls them
 * per instruction and per lane access when a launch has CHECK_LOOP tools on).
 *
 * racecheck: every 4-byte word of a CTA's shared memory has a shadow cell holding its last
 *   write and its last two reads by different threads (with the bytes each touched), each
 *   stamped with the CTA's barrier epoch (bumped when a barrier completes, cta.c, and when an
 *   mbarrier phase does, async.c), the accessing warp's __syncwarp epoch and the CTA's
 *   instruction counter. Two accesses of one epoch by different threads, at least one a write,
 *   are a hazard unless they are one warp instruction (lanes of one access) or the same warp
 *   with a bar.warp.sync between them (independent thread scheduling: lock step is not an
 *   ordering). Atomics are never hazards. Epochs only grow, so a CTA needs no shadow clearing.
 *   Global memory: a per-launch shadow ordered by release clocks (see "global racecheck"
 *   below).
 * initcheck: cudaMalloc allocations carry a written-bytes bitmap (mem.h), set by host copies,
 *   memsets and kernel stores; a CTA's shared memory has one, cleared at the CTA's start.
 * synccheck: an aligned barrier (bar.sync, barrier.sync.aligned, __syncthreads) executed by
 *   part of the warp's live lanes, and a .sync warp collective whose member mask names lanes
 *   that do not execute it.
 *
 * Findings are collected per launch, deduplicated (racecheck per pair of instructions and
 * kind, initcheck and synccheck per instruction), and printed sorted when the launch ends, so
 * the report does not depend on how CTAs were spread over host threads; each carries the
 * first thread (lowest CTA, then thread) that hit it. A log may also write its reports as JSON
 * (--check-report). The --fill-uninit patterns live here too.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "interp/check.h"
#include "interp/internal.h"

#define CHK_P "========="

/* ====================================================================== the log */

struct interp_check_log {
    pthread_mutex_t lock;
    FILE *out;
    uint64_t limit;   /* reports printed at most (0: all) */
    uint64_t errors;  /* counted */
    uint64_t printed; /* reports printed */
    FILE *rep;        /* --check-report: the same reports as JSON or XML (NULL: none) */
    bool xml;         /* rep is XML (else JSON) */
    bool rep_some;    /* a report was written (JSON: the next one needs a comma) */
    bool rep_first;   /* no member written yet in the current JSON object */
};

/* Create a log printing to out (see interp.h). */
struct interp_check_log *interp_check_log_create(FILE *out, uint64_t print_limit)
{
    struct interp_check_log *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    pthread_mutex_init(&g->lock, NULL);
    g->out = out ? out : stderr;
    g->limit = print_limit;
    return g;
}

/* Write the machine-readable report too (see interp.h). */
void interp_check_log_report(struct interp_check_log *g, FILE *f, bool xml)
{
    pthread_mutex_lock(&g->lock);
    g->rep = f;
    g->xml = xml;
    g->rep_some = false;
    if (f)
        fputs(xml ? "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<reports>\n" : "[\n", f);
    pthread_mutex_unlock(&g->lock);
}

/*
 * The machine-readable report: one record per printed report, written through these
 * emitters (caller holds g->lock) as a JSON object ({"tool": …, "kind": …, "severity": …,
 * members}) or an XML element (<report tool= kind= severity=>children</report>). A member's
 * value is a string, a number, a hex address, an (x,y,z) triple or a nested record; NULL
 * strings are JSON nulls and absent XML elements.
 */
static void rep_text(FILE *o, const char *s, bool xml)
{
    for (; *s; s++) {
        const unsigned char c = (unsigned char)*s;
        if (xml && (c == '&' || c == '<' || c == '>' || c == '"'))
            fputs(c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : "&quot;", o);
        else if (!xml && (c == '"' || c == '\\'))
            fprintf(o, "\\%c", c);
        else if (c < 0x20)
            fprintf(o, xml ? "&#%u;" : "\\u%04x", c);
        else
            fputc(c, o);
    }
}

static bool rep_begin(struct interp_check_log *g, const char *tool, const char *kind,
                      bool warning)
{
    FILE *o = g->rep;
    if (!o)
        return false;
    const char *sev = warning ? "warning" : "error";
    if (g->xml)
        fprintf(o, "  <report tool=\"%s\" kind=\"%s\" severity=\"%s\">", tool, kind, sev);
    else
        fprintf(o, "%s  {\"tool\": \"%s\", \"kind\": \"%s\", \"severity\": \"%s\"",
                g->rep_some ? ",\n" : "", tool, kind, sev);
    g->rep_some = true;
    g->rep_first = false;
    return true;
}

/* JSON: the member's name (after a comma unless it is the object's first). */
static void rep_key(struct interp_check_log *g, const char *key)
{
    fprintf(g->rep, "%s\"%s\": ", g->rep_first ? "" : ", ", key);
    g->rep_first = false;
}

static void rep_str(struct interp_check_log *g, const char *key, const char *v)
{
    FILE *o = g->rep;
    if (g->xml) {
        if (!v)
            return;
        fprintf(o, "<%s>", key);
        rep_text(o, v, true);
        fprintf(o, "</%s>", key);
        return;
    }
    rep_key(g, key);
    if (!v) {
        fputs("null", o);
        return;
    }
    fputc('"', o);
    rep_text(o, v, false);
    fputc('"', o);
}

static void rep_num(struct interp_check_log *g, const char *key, uint64_t v)
{
    if (g->xml) {
        fprintf(g->rep, "<%s>%" PRIu64 "</%s>", key, v, key);
        return;
    }
    rep_key(g, key);
    fprintf(g->rep, "%" PRIu64, v);
}

static void rep_hex(struct interp_check_log *g, const char *key, uint64_t v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%#" PRIx64, v);
    rep_str(g, key, buf);
}

static void rep_xyz(struct interp_check_log *g, const char *key, const uint32_t v[3])
{
    if (g->xml) {
        fprintf(g->rep, "<%s x=\"%u\" y=\"%u\" z=\"%u\"/>", key, v[0], v[1], v[2]);
        return;
    }
    rep_key(g, key);
    fprintf(g->rep, "[%u, %u, %u]", v[0], v[1], v[2]);
}

/* "file:line" (NULL without a file). */
static void rep_pos(struct interp_check_log *g, const char *key, const char *file,
                    uint32_t line)
{
    char buf[600];
    if (file && *file)
        snprintf(buf, sizeof buf, "%s:%u", file, line);
    rep_str(g, key, file && *file ? buf : NULL);
}

/* A nested record: rep_open, its members, rep_close. */
static void rep_open(struct interp_check_log *g, const char *key)
{
    if (g->xml) {
        fprintf(g->rep, "<%s>", key);
        return;
    }
    rep_key(g, key);
    fputc('{', g->rep);
    g->rep_first = true;
}

static void rep_close(struct interp_check_log *g, const char *key)
{
    if (g->xml)
        fprintf(g->rep, "</%s>", key);
    else
        fputc('}', g->rep);
    g->rep_first = false;
}

static void rep_end(struct interp_check_log *g)
{
    fputs(g->xml ? "</report>\n" : "}", g->rep);
}

/* Free a log (its stream belongs to the caller). */
void interp_check_log_destroy(struct interp_check_log *g)
{
    if (!g)
        return;
    pthread_mutex_destroy(&g->lock);
    free(g);
}

/* Count one error; true when its report is to be printed (under the print limit). Caller
 * holds g->lock. */
static bool log_count(struct interp_check_log *g)
{
    g->errors++;
    if (g->limit && g->printed >= g->limit)
        return false;
    g->printed++;
    return true;
}

/* Parse a --check list (see interp.h). */
int interp_check_parse(const char *list, unsigned *bits, char *bad, size_t bad_len)
{
    static const struct {
        const char *name;
        unsigned bit;
    } tools[] = {{"memcheck", CHECK_MEMCHECK},   {"racecheck", CHECK_RACECHECK},
                 {"initcheck", CHECK_INITCHECK}, {"synccheck", CHECK_SYNCCHECK},
                 {"leakcheck", CHECK_LEAKCHECK}, {"all", CHECK_ALL}};
    unsigned b = CHECK_MEMCHECK;
    const char *p = list;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        size_t i = 0;
        for (; i < sizeof tools / sizeof tools[0]; i++)
            if (strlen(tools[i].name) == n && !strncmp(tools[i].name, p, n))
                break;
        if (i == sizeof tools / sizeof tools[0]) {
            if (bad_len)
                snprintf(bad, bad_len, "%.*s", (int)n, p);
            return -1;
        }
        b |= tools[i].bit;
        if (!e)
            break;
        p = e + 1;
    }
    *bits = b;
    return 0;
}

static const char *const space_names[] = {
    [SP_GLOBAL] = "global", [SP_SHARED] = "shared", [SP_LOCAL] = "local",
    [SP_CONST] = "const",   [SP_PARAM] = "param",
};

static const char *space_name(unsigned sp)
{
    if (sp == SP_SHARED_CTA || sp == SP_SHARED_CLUSTER)
        sp = SP_SHARED;
    return sp < sizeof space_names / sizeof space_names[0] && space_names[sp] ? space_names[sp]
                                                                              : "generic";
}

/* A fault as a report record. Caller holds g->lock. */
static void rep_trap(struct interp_check_log *g, const struct trap *t)
{
    static const char *const kinds[] = {
        [TRAP_OOB] = "out-of-bounds",       [TRAP_MISALIGNED] = "misaligned",
        [TRAP_READONLY] = "read-only",      [TRAP_TRAP] = "trap",
        [TRAP_BRKPT] = "breakpoint",        [TRAP_ASSERT] = "assert",
        [TRAP_DEADLOCK] = "deadlock",       [TRAP_BUDGET] = "budget",
        [TRAP_ILLEGAL] = "illegal-instruction", [TRAP_STACK] = "stack-overflow",
        [TRAP_HEAP] = "heap",
    };
    const char *kind =
        (unsigned)t->kind < sizeof kinds / sizeof kinds[0] && kinds[t->kind] ? kinds[t->kind]
                                                                             : "error";
    if (!rep_begin(g, "memcheck", kind, false))
        return;
    rep_str(g, "kernel", t->kernel);
    rep_xyz(g, "block", t->cta);
    rep_xyz(g, "thread", t->tid);
    rep_str(g, "function", t->func[0] ? t->func : t->kernel);
    rep_hex(g, "pc", (uint64_t)t->pc * 16);
    rep_pos(g, "ptx", t->ptx_file ? t->ptx_file : "<ptx>", t->line);
    rep_pos(g, "source", t->src_file, t->src_line);
    if (t->kind == TRAP_OOB || t->kind == TRAP_MISALIGNED || t->kind == TRAP_READONLY) {
        rep_str(g, "space", space_name(t->space));
        rep_str(g, "access", t->is_write ? "write" : "read");
        rep_hex(g, "address", t->addr);
        rep_num(g, "size", t->width);
    }
    rep_str(g, "message", t->msg);
    rep_end(g);
}

/* Count and print a fault (see interp.h). */
void interp_check_trap(struct interp_check_log *g, const struct trap *t)
{
    pthread_mutex_lock(&g->lock);
    if (log_count(g)) {
        interp_trap_report(g->out, t);
        fflush(g->out);
        rep_trap(g, t);
    }
    pthread_mutex_unlock(&g->lock);
}

struct leak_walk {
    struct interp_check_log *g;
    struct interp_dev *d;
    void (*note)(void *ctx, FILE *out, const struct mem_alloc *a);
    void *ctx;
    uint64_t n, bytes;
};

static void leak_one(void *ctx, const struct mem_alloc *a)
{
    struct leak_walk *lw = ctx;
    const bool heap = a->flags & MEM_F_HEAP;
    lw->n++;
    lw->bytes += a->size;
    if (log_count(lw->g)) {
        FILE *o = lw->g->out;
        fprintf(o, "%s Leaked %" PRIu64 " bytes at %#" PRIx64 "%s\n", CHK_P, a->size, a->base,
                heap ? " on the device heap" : "");
        const char *site = NULL;
        const struct heap_site *hs = heap ? heap_site_find(lw->d, a->base, &site) : NULL;
        if (hs) {
            fprintf(o, "%s     Saved device site at malloc time: %s\n", CHK_P, site);
            fprintf(o, "%s     by thread (%u,%u,%u) in block (%u,%u,%u)\n", CHK_P, hs->tid[0],
                    hs->tid[1], hs->tid[2], hs->cta[0], hs->cta[1], hs->cta[2]);
        } else if (!heap && lw->note) {
            lw->note(lw->ctx, o, a);
        }
        if (rep_begin(lw->g, "leakcheck", "leak", false)) {
            rep_hex(lw->g, "address", a->base);
            rep_num(lw->g, "size", a->size);
            if (heap)
                rep_str(lw->g, "space", "heap");
            if (site)
                rep_str(lw->g, "site", site);
            rep_end(lw->g);
        }
    }
}

/* leakcheck (see interp.h). */
uint64_t interp_check_leaks(struct interp_check_log *g, struct interp_dev *d,
                            void (*note)(void *ctx, FILE *out, const struct mem_alloc *a),
                            void *ctx)
{
    struct leak_walk lw = {.g = g, .d = d, .note = note, .ctx = ctx};
    pthread_mutex_lock(&g->lock);
    mem_foreach(d->mem, MEM_F_DEVICE, leak_one, &lw);
    pthread_mutex_lock(&d->heap_lock); /* (before the store's lock, as interp_heap_release) */
    mem_foreach(d->mem, MEM_F_HEAP, leak_one, &lw);
    pthread_mutex_unlock(&d->heap_lock);
    if (lw.n)
        fprintf(g->out, "%s LEAK SUMMARY: %" PRIu64 " bytes leaked in %" PRIu64 " allocation%s\n",
                CHK_P, lw.bytes, lw.n, lw.n == 1 ? "" : "s");
    fflush(g->out);
    pthread_mutex_unlock(&g->lock);
    return lw.n;
}

/* Errors so far (see interp.h). */
uint64_t interp_check_errors(struct interp_check_log *g)
{
    pthread_mutex_lock(&g->lock);
    uint64_t n = g->errors;
    pthread_mutex_unlock(&g->lock);
    return n;
}

/* The final summary line (see interp.h). */
void interp_check_summary(struct interp_check_log *g)
{
    pthread_mutex_lock(&g->lock);
    fprintf(g->out, "%s ERROR SUMMARY: %" PRIu64 " error%s\n", CHK_P, g->errors,
            g->errors == 1 ? "" : "s");
    if (g->limit && g->errors > g->printed)
        fprintf(g->out, "%s %" PRIu64 " error%s not printed (--print-limit %" PRIu64 ")\n", CHK_P,
                g->errors - g->printed, g->errors - g->printed == 1 ? "" : "s", g->limit);
    fflush(g->out);
    if (g->rep && g->xml)
        fprintf(g->rep,
                "  <summary errors=\"%" PRIu64 "\" reported=\"%" PRIu64 "\"/>\n</reports>\n",
                g->errors, g->printed);
    else if (g->rep)
        fprintf(g->rep,
                "%s  {\"summary\": {\"errors\": %" PRIu64 ", \"reported\": %" PRIu64 "}}\n]\n",
                g->rep_some ? ",\n" : "", g->errors, g->printed);
    if (g->rep) {
        fflush(g->rep);
        g->rep = NULL;
    }
    pthread_mutex_unlock(&g->lock);
}

/* ====================================================================== findings */

enum fkind {
    F_RACE_WAW, /* ordered as printed within one pair of instructions */
    F_RACE_RAW,
    F_RACE_WAR,
    F_GRACE_WAW, /* global memory, same order */
    F_GRACE_RAW,
    F_GRACE_WAR,
    F_INIT_GLOBAL,
    F_INIT_SHARED,
    F_SYNC_BLOCK,
    F_SYNC_WARP,
    F_SYNC_COUNT,
    F_SYNC_PATH,
    F_INIT_REG,
};

/* One finding: kind, its instruction(s), how often, where first (lowest CTA, thread). */
struct finding {
    enum fkind kind;
    const struct xfunc *fn1, *fn2; /* fn2/pc2: the second access of a hazard */
    uint32_t pc1, pc2;
    uint64_t count;
    uint64_t cta_linear;
    uint32_t tid; /* thread in the CTA */
    uint32_t cta[3];
    uint64_t addr;       /* initcheck: first unwritten byte */
    uint64_t base, size; /* initcheck global: the allocation */
    unsigned width;
    uint32_t mask, need; /* synccheck: lanes that executed it, lanes it needed */
    char what[24];       /* synccheck warp: the instruction ("shfl.sync"); initcheck: the
                            register ("%r1") */
    bool warning;        /* racecheck severity: Warning (else Error) */
};

struct gpage;

struct check_launch {
    pthread_mutex_t lock;
    struct finding *f;
    size_t n, cap;
    /* global-memory racecheck (under glock): the shadow pages in an open-addressed table
     * (the last one used cached), the functions its sites name, the release clocks */
    pthread_mutex_t glock;
    struct gpage **tab;
    size_t tcap, tn;
    struct gpage *last;
    const struct xfunc *fns[255];
    unsigned nfns;
    uint32_t gclk; /* bumped by every release at .gpu scope or wider */
    uint32_t cclk; /* bumped by every release at any scope */
};

/* Set up the findings of launch L (see internal.h). */
int check_launch_begin(struct launch_state *L)
{
    L->chk = calloc(1, sizeof *L->chk);
    if (!L->chk)
        return -1;
    pthread_mutex_init(&L->chk->lock, NULL);
    pthread_mutex_init(&L->chk->glock, NULL);
    return 0;
}

/* Record an occurrence of finding *x (key: kind, fn1/pc1, fn2/pc2). */
static void finding_add(struct launch_state *L, const struct finding *x)
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
static void finding_at(struct finding *x, const struct warp *w, uint32_t pc, unsigned lane,
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
        fprintf(o, "%s     at ", CHK_P);
        site_print(o, f->fn1, f->pc1);
        fputc('\n', o);
        thread_print(o, f, L);
        if (f->kind == F_INIT_GLOBAL)
            fprintf(o,
                    "%s     Address %#" PRIx64 " is %" PRIu64
                    " bytes into the allocation of %" PRIu64 " bytes at %#" PRIx64 "\n",
                    CHK_P, f->addr, f->addr - f->base, f->size, f->base);
        else
            fprintf(o, "%s     Address %#" PRIx64 " in shared memory\n", CHK_P, f->addr);
        if (f->count > 1)
            fprintf(o, "%s     (%" PRIu64 " such reads by this instruction)\n", CHK_P, f->count);
        break;
    case F_INIT_REG:
        fprintf(o, "%s Uninitialized register read of %s\n", CHK_P, f->what);
        fprintf(o, "%s     at ", CHK_P);
        site_print(o, f->fn1, f->pc1);
        fputc('\n', o);
        thread_print(o, f, L);
        if (f->count > 1)
            fprintf(o, "%s     (%" PRIu64 " such reads by this instruction)\n", CHK_P, f->count);
        break;
    case F_SYNC_PATH:
        fprintf(o, "%s Barrier error detected. Divergent thread(s) in block\n", CHK_P);
        fprintf(o, "%s     at ", CHK_P);
        site_print(o, f->fn1, f->pc1);
        fputc('\n', o);
        thread_print(o, f, L);
        fprintf(o, "%s     barrier %u is waited for at ", CHK_P, f->need);
        site_print(o, f->fn2, f->pc2);
        fprintf(o, " too, in the same phase\n");
        break;
    case F_SYNC_COUNT:
        fprintf(o, "%s Barrier error detected. Invalid arguments\n", CHK_P);
        fprintf(o, "%s     at ", CHK_P);
        site_print(o, f->fn1, f->pc1);
        fputc('\n', o);
        thread_print(o, f, L);
        fprintf(o, "%s     barrier thread count %u is not a multiple of the warp size\n", CHK_P,
                f->need);
        break;
    case F_SYNC_BLOCK:
    case F_SYNC_WARP:
        fprintf(o, "%s Barrier error detected. Divergent thread(s) in %s\n", CHK_P,
                f->kind == F_SYNC_BLOCK ? "block" : "warp");
        fprintf(o, "%s     at ", CHK_P);
        site_print(o, f->fn1, f->pc1);
        fputc('\n', o);
        thread_print(o, f, L);
        if (f->kind == F_SYNC_BLOCK)
            fprintf(o,
                    "%s     lanes %08x of warp %u executed the barrier; its live lanes are %08x\n",
                    CHK_P, f->mask, f->tid / 32, f->need);
        else
            fprintf(o, "%s     %s member mask %08x names lanes that do not execute it (%08x do)\n",
                    CHK_P, f->what, f->need, f->mask);
        break;
    }
}

/* "function", "pc", "ptx" and "source" members of instruction pc of fn. */
static void rep_site(struct interp_check_log *g, const struct xfunc *fn, uint32_t pc)
{
    const struct ir_module *m = fn->m;
    const struct ir_insn *in = pc < fn->ninsns ? &fn->f->insns[pc] : &fn->insns[fn->ninsns];
    rep_str(g, "function", ir_str(m, fn->f->name));
    rep_hex(g, "pc", (uint64_t)pc * 16);
    rep_pos(g, "ptx", m->filename ? m->filename : "<ptx>", in->line);
    rep_pos(g, "source",
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
        [F_INIT_REG] = {"initcheck", "uninitialized-register", NULL},
    };
    if (!rep_begin(g, k[f->kind].tool, k[f->kind].kind, f->warning))
        return;
    const uint32_t *b = L->l->block;
    const bool race = f->kind <= F_GRACE_WAR;
    const uint32_t tid[3] = {f->tid % b[0], f->tid / b[0] % b[1], f->tid / (b[0] * b[1])};
    rep_str(g, "kernel", ir_str(L->xf->m, L->xf->f->name));
    rep_xyz(g, "block", f->cta);
    rep_xyz(g, "thread", tid);
    /* the instruction `thread` ran; a race's or a barrier's earlier one is "first" */
    rep_site(g, race ? f->fn2 : f->fn1, race ? f->pc2 : f->pc1);
    if (k[f->kind].space)
        rep_str(g, "space", k[f->kind].space);
    if (f->kind >= F_GRACE_WAW && f->kind <= F_INIT_SHARED)
        rep_hex(g, "address", f->addr);
    if (f->kind == F_INIT_GLOBAL || f->kind == F_INIT_SHARED)
        rep_num(g, "size", f->width);
    if (f->kind == F_INIT_REG)
        rep_str(g, "register", f->what);
    if (race || f->kind == F_SYNC_PATH) {
        rep_open(g, "first");
        rep_site(g, race ? f->fn1 : f->fn2, race ? f->pc1 : f->pc2);
        rep_close(g, "first");
    }
    rep_num(g, "count", f->count);
    rep_end(g);
}

static void gshadow_free(struct check_launch *k);

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
            if (log_count(g)) {
                finding_print(g->out, &k->f[i], L);
                rep_finding(g, &k->f[i], L);
            }
        fflush(g->out);
        pthread_mutex_unlock(&g->lock);
    }
    pthread_mutex_destroy(&k->lock);
    pthread_mutex_destroy(&k->glock);
    gshadow_free(k);
    free(k->f);
    free(k);
    L->chk = NULL;
}

/* ====================================================================== per CTA */

/* One access in a racecheck shadow cell. */
struct check_acc {
    const struct xfunc *fn; /* NULL: none */
    uint32_t pc;
    uint32_t ep;   /* CTA barrier epoch */
    uint32_t wep;  /* the warp's __syncwarp epoch */
    uint32_t step; /* CTA warp-instruction counter: one warp instruction */
    uint32_t tid;  /* thread in the CTA */
    uint8_t bytes; /* bit per byte of the word accessed */
};

struct check_cell {
    struct check_acc w, r, r2; /* last write; last read, and an earlier one by another thread */
};

/* A CTA slot's shadow state, sized for `cap` bytes of shared memory. Per 4-byte word of it,
 * two epochs let a read skip the cells: `wrote`, the last epoch a byte of the word was
 * written in (no write in this epoch: no read-after-write), and `sat`, the epoch in which
 * every byte of the word got two readers (nothing more to record). */
struct check_cta {
    size_t cap;
    struct check_cell *cell; /* racecheck, per 4-byte word */
    uint32_t *wrote, *sat;   /* racecheck, per word */
    uint8_t *shinit;         /* initcheck: bit per shared byte written */
    struct {
        uint32_t ep; /* the CTA epoch of the first arrival (this phase if chk_ep) */
        const struct xfunc *fn;
        uint32_t pc;
    } bar[16];                    /* synccheck: where each barrier was first waited for */
    const struct mem_alloc *last; /* initcheck: allocation of the last global access */
    /* global racecheck: per warp, the release clocks (check_launch) seen at its last
     * acquire, and the barrier epoch up to which it has taken the CTA's barrier handoff;
     * the CTA's handoff: the largest clocks warps had when they arrived at a barrier */
    struct gwarp {
        uint32_t gacq, cacq, ep;
        /* synccheck under independent thread scheduling: the aligned barrier paths of the
         * warp wait at (jfn, jpc; jfn NULL: none), the lanes that reached it, the live lanes
         * when the first did, the lanes already reported at another barrier */
        const struct xfunc *jfn;
        uint32_t jpc, jarr, jneed, jrep;
    } *gw;
    uint32_t nw;
    uint32_t pend_g, pend_c;
    /* initcheck of registers: per warp, a frame per activation (kernel, then each call) with
     * a lane mask per tracked register of its function: the lanes that wrote it; the
     * functions' tracked registers, built when first met */
    struct rwarp *rw;
    struct rtrack *rt;
    uint32_t nrt;
};

/* The registers of one function that initcheck tracks: those a thread may read before
 * writing them (the frame's `zero` spans, cfg_undef_regs), but for its .reg parameters. */
struct rtrack {
    uint64_t serial;          /* xfunc.serial */
    uint32_t n;               /* tracked registers */
    uint32_t *idx[RF__COUNT]; /* per declared slot: tracked index + 1, 0: not tracked */
};

struct rframe {
    uint64_t serial;   /* the function's xfunc.serial */
    uint32_t depth;    /* warp.ncalls of the activation */
    uint32_t n, cap;   /* tracked registers; written's capacity */
    uint32_t *written; /* lane mask per tracked register */
    const struct rtrack *t;
};

struct rwarp {
    struct rframe *f;
    uint32_t n, cap;
    bool pend;           /* a call was issued at depth pend_depth: a new activation may follow */
    uint32_t pend_depth;
};

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
    free(k->wrote);
    free(k->sat);
    free(k->shinit);
    free(k->gw);
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
    k->last = NULL; /* allocations may have been freed since the slot's last CTA */
    memset(k->gw, 0, k->nw * sizeof *k->gw);
    k->pend_g = k->pend_c = 0;
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

/* Do access a (earlier) and cur conflict: different threads not ordered by a barrier, by a
 * __syncwarp of their warp, or by being one warp instruction? */
static inline bool race_conflict(const struct cta *c, const struct check_acc *a,
                                 const struct check_acc *cur)
{
    if (!a->fn || a->ep != c->chk_ep || a->tid == cur->tid || a->step == cur->step ||
        !(a->bytes & cur->bytes))
        return false;
    return !(a->tid / 32 == cur->tid / 32 && a->wep != cur->wep);
}

static void race_report(struct warp *w, unsigned lane, enum fkind kind, const struct check_acc *a,
                        const struct check_acc *cur)
{
    struct finding x;
    finding_at(&x, w, cur->pc, lane, kind);
    x.fn1 = a->fn;
    x.pc1 = a->pc;
    x.fn2 = cur->fn;
    x.pc2 = cur->pc;
    finding_add(w->cta->L, &x);
}

/* Record read *cur of shared word j: keep at most two readers of the epoch, by different
 * threads (any later writer differs from one of them); further reads add nothing (and cost
 * cache traffic), so a word whose every byte has two is `sat`. */
static inline void race_note_read(struct check_cta *k, uint64_t j, const struct check_acc *cur)
{
    struct check_cell *cell = &k->cell[j];
    const uint32_t ep = cur->ep;
    const bool rl = cell->r.fn && cell->r.ep == ep;
    if (!rl) {
        cell->r = *cur;
    } else if (cell->r.tid != cur->tid && !(cell->r2.fn && cell->r2.ep == ep)) {
        cell->r2 = cell->r;
        cell->r = *cur;
    }
    if (cell->r2.fn && cell->r2.ep == ep && cell->r.ep == ep &&
        (cell->r.bytes & cell->r2.bytes) == 0xf)
        k->sat[j] = ep;
}

/* racecheck of one lane's access to shared bytes [off, off+width). One report per kind per
 * access (the first conflicting word). */
static void race_access(struct warp *w, uint32_t pc, unsigned lane, uint64_t off, unsigned width,
                        bool wr)
{
    struct cta *c = w->cta;
    struct check_cta *k = c->chk;
    const uint32_t ep = c->chk_ep;
    const uint64_t w0 = off / 4, w1 = (off + width - 1) / 4;
    if (!wr) {
        uint64_t j = w0;
        while (j <= w1 && k->wrote[j] != ep && k->sat[j] == ep)
            j++;
        if (j > w1)
            return; /* no write this epoch, two readers of every byte known */
    }
    struct check_acc cur = {.fn = w->fn,
                            .pc = pc,
                            .ep = ep,
                            .wep = w->chk_wep,
                            .step = c->chk_step,
                            .tid = w->id * 32 + lane};
    bool waw = false, war = false, raw = false;
    for (uint64_t j = w0; j <= w1; j++) {
        if (w0 == w1) { /* within one word (the common case) */
            cur.bytes = (uint8_t)(((1u << width) - 1) << (off & 3));
        } else {
            const uint64_t lo = j * 4 > off ? j * 4 : off,
                           hi = j * 4 + 4 < off + width ? j * 4 + 4 : off + width;
            cur.bytes = (uint8_t)(((1u << (hi - lo)) - 1) << (lo & 3));
        }
        struct check_cell *cell = &k->cell[j];
        if (wr) {
            if (!waw && race_conflict(c, &cell->w, &cur)) {
                waw = true;
                race_report(w, lane, F_RACE_WAW, &cell->w, &cur);
            }
            if (!war) {
                const struct check_acc *r = race_conflict(c, &cell->r, &cur)    ? &cell->r
                                            : race_conflict(c, &cell->r2, &cur) ? &cell->r2
                                                                                : NULL;
                if (r) {
                    war = true;
                    race_report(w, lane, F_RACE_WAR, r, &cur);
                }
            }
            cell->w = cur;
            k->wrote[j] = ep;
        } else {
            if (!raw && race_conflict(c, &cell->w, &cur)) {
                raw = true;
                race_report(w, lane, F_RACE_RAW, &cell->w, &cur);
            }
            race_note_read(k, j, &cur);
        }
    }
}

/* racecheck of one lane's aligned 4-byte read of shared word j that was written in this
 * epoch or has fewer than two readers on record (race_access for the common case). */
static inline void race_read4(struct warp *w, uint32_t pc, unsigned lane, uint64_t j)
{
    struct cta *c = w->cta;
    struct check_cta *k = c->chk;
    const struct check_acc cur = {.fn = w->fn,
                                  .pc = pc,
                                  .ep = c->chk_ep,
                                  .wep = w->chk_wep,
                                  .step = c->chk_step,
                                  .tid = w->id * 32 + lane,
                                  .bytes = 0xf};
    struct check_cell *cell = &k->cell[j];
    if (race_conflict(c, &cell->w, &cur))
        race_report(w, lane, F_RACE_RAW, &cell->w, &cur);
    race_note_read(k, j, &cur);
}

/* ---------------------------------------------------------------------- global racecheck */

/*
 * Global memory: a shadow record per 4-byte word a launch touches — its last write and its
 * last read (24 bytes each), in pages of GP_WORDS words found through an open-addressed
 * table, made when first touched and freed with the launch (a launch boundary orders
 * everything). Each access carries the launch's two release clocks as they were when it ran:
 * gclk counts releases at .gpu scope or wider (fences, membar.gl, st/atom/red .release), cclk
 * releases at any scope. A warp's acquire (a fence, an atom, ld.acquire) records the clocks
 * as they are before its own release. An earlier access A by another warp is ordered before
 * the current one when the current warp has acquired since a release that followed A: for a
 * thread of another CTA, gacq > A.tg; of the same CTA, cacq > A.tc or a CTA barrier between
 * them (A's barrier epoch is not the CTA's). A barrier hands the clocks its arriving warps had
 * acquired to the warps it releases (thread 0's atomic, __syncthreads, then all read). The
 * clocks are launch-wide, so a release by a third thread can order a pair (a missed race,
 * never a false one). Two morally strong accesses (atomics, volatile, relaxed/acquire/
 * release at a scope holding both threads) never race; an unordered pair with one strong
 * access is a Warning (a programming-model hazard the author may intend, as a plain read of
 * a flag set by an atomic), with two weak ones an Error. Lanes of one warp are compared as
 * shared-memory racecheck compares them: under independent thread scheduling a warp's lanes
 * are not in lock step, so two accesses of one warp are ordered only by being one warp
 * instruction (the same CTA step) or by a bar.warp.sync between them (the warp's __syncwarp
 * epoch), besides the fences and barriers that order any two threads.
 */
enum { GP_SHIFT = 8, GP_WORDS = 1u << GP_SHIFT };
enum { GA_STRONG = 1, GA_CTA = 2, GA_RMW = 4 }; /* gacc.fl: strong access; its scope is the
                                                 CTA; an atomic read-modify-write */

struct gacc {
    uint32_t site;   /* (function index + 1) << 24 | pc; 0: none */
    uint32_t thread; /* CTA linear * threads per CTA + thread in the CTA (mod 2^32) */
    uint32_t tg, tc; /* the launch's release clocks at the access */
    uint16_t ep;     /* the CTA's barrier epoch (mod 2^16) */
    uint16_t step;   /* the CTA's warp-instruction counter (mod 2^16): one warp instruction */
    uint16_t wep;    /* the warp's __syncwarp epoch (mod 2^16) */
    uint8_t bytes;   /* bit per byte of the word accessed */
    uint8_t fl;      /* GA_* */
};

struct gpage {
    uint64_t key;     /* word index >> GP_SHIFT */
    struct gacc *w, *r; /* GP_WORDS each, made when the page is first written / read */
};

/* Free the global racecheck shadow of a launch. */
static void gshadow_free(struct check_launch *k)
{
    for (size_t i = 0; i < k->tcap; i++)
        if (k->tab[i]) {
            free(k->tab[i]->w);
            free(k->tab[i]->r);
            free(k->tab[i]);
        }
    free(k->tab);
}

/* The page of word index j, made when first touched; NULL out of memory. Caller holds glock. */
static struct gpage *gpage_get(struct check_launch *k, uint64_t j)
{
    const uint64_t key = j >> GP_SHIFT;
    if (k->last && k->last->key == key)
        return k->last;
    if (2 * (k->tn + 1) > k->tcap) {
        size_t nc = k->tcap ? 2 * k->tcap : 64;
        struct gpage **nt = calloc(nc, sizeof *nt);
        if (!nt)
            return NULL;
        for (size_t i = 0; i < k->tcap; i++) {
            if (!k->tab[i])
                continue;
            size_t h = (size_t)(k->tab[i]->key * 0x9e3779b97f4a7c15ull >> 20) & (nc - 1);
            while (nt[h])
                h = (h + 1) & (nc - 1);
            nt[h] = k->tab[i];
        }
        free(k->tab);
        k->tab = nt;
        k->tcap = nc;
    }
    size_t h = (size_t)(key * 0x9e3779b97f4a7c15ull >> 20) & (k->tcap - 1);
    while (k->tab[h] && k->tab[h]->key != key)
        h = (h + 1) & (k->tcap - 1);
    if (!k->tab[h]) {
        struct gpage *p = calloc(1, sizeof *p);
        if (!p)
            return NULL;
        p->key = key;
        k->tab[h] = p;
        k->tn++;
    }
    return k->last = k->tab[h];
}

/* The site number of (fn, pc); 0 when it cannot be numbered (more than 255 functions, a pc
 * beyond 2^24: the access is not recorded). Caller holds glock. */
static uint32_t gsite(struct check_launch *k, const struct xfunc *fn, uint32_t pc)
{
    if (pc >= 1u << 24)
        return 0;
    unsigned i = 0;
    while (i < k->nfns && k->fns[i] != fn)
        i++;
    if (i == k->nfns) {
        if (k->nfns == sizeof k->fns / sizeof k->fns[0])
            return 0;
        k->fns[k->nfns++] = fn;
    }
    return (uint32_t)(i + 1) << 24 | pc;
}

/* The warp's racecheck view, with the handoff of a barrier completed since it last looked. */
static struct gwarp *gwarp_of(struct warp *w)
{
    struct cta *c = w->cta;
    struct gwarp *g = &c->chk->gw[w->id];
    if (g->ep != c->chk_ep) {
        if (c->chk->pend_g > g->gacq)
            g->gacq = c->chk->pend_g;
        if (c->chk->pend_c > g->cacq)
            g->cacq = c->chk->pend_c;
        g->ep = c->chk_ep;
    }
    return g;
}

/* A release at scope `cta` (only the CTA) or wider, then an acquire. Caller holds glock. */
static void gfence(struct check_launch *k, struct gwarp *g, bool cta)
{
    g->cacq = k->cclk++;
    if (!cta)
        g->gacq = k->gclk++;
}

/* Does the earlier access a (a write if a_wr) race with cur (a write if cur_wr; by the warp
 * whose view is g)? 0: no, 1: a Warning, 2: an Error. */
static inline int gconflict(const struct gacc *a, bool a_wr, const struct gacc *cur, bool cur_wr,
                     const struct gwarp *g, uint32_t nthreads)
{
    if (!a->site || !(a->bytes & cur->bytes) || a->thread == cur->thread)
        return 0;
    const bool same = a->thread / nthreads == cur->thread / nthreads;
    if (same) {
        if (a->ep != cur->ep || g->cacq > a->tc)
            return 0;
        if (a->thread % nthreads / 32 == cur->thread % nthreads / 32 &&
            (a->step == cur->step || a->wep != cur->wep))
            return 0; /* one warp: lanes of one instruction, or a __syncwarp between */
    } else if (g->gacq > a->tg) {
        return 0;
    }
    const bool as = (a->fl & GA_STRONG) && (same || !(a->fl & GA_CTA)),
               cs = (cur->fl & GA_STRONG) && (same || !(cur->fl & GA_CTA));
    if (as && cs)
        return 0;
    /* a plain read next to atomic updates (the first guess of an atomicCAS loop, a progress
     * read): whatever value it gets is one the atomics made, as the author expects */
    if ((as && (a->fl & GA_RMW) && !cur_wr) || (cs && (cur->fl & GA_RMW) && !a_wr))
        return 0;
    return as || cs ? 1 : 2;
}

static void grace_report(struct warp *w, unsigned lane, enum fkind kind, int sev,
                         const struct check_launch *k, const struct gacc *a, uint32_t pc,
                         uint64_t addr)
{
    struct finding x;
    finding_at(&x, w, pc, lane, kind);
    x.fn1 = k->fns[(a->site >> 24) - 1];
    x.pc1 = a->site & 0xffffff;
    x.fn2 = w->fn;
    x.pc2 = pc;
    x.addr = addr;
    x.warning = sev == 1;
    finding_add(w->cta->L, &x);
}

/* racecheck of one lane's global access [addr, addr+width); *tmpl: the access (site,
 * thread, clocks, epoch, strength) but for its bytes. One report per kind per access. Caller
 * holds glock. */
static void grace_access(struct warp *w, struct gwarp *g, uint32_t pc, unsigned lane,
                         uint64_t addr, unsigned width, bool wr, const struct gacc *tmpl)
{
    struct check_launch *k = w->cta->L->chk;
    const uint32_t nthreads = w->cta->L->nthreads;
    struct gacc cur = *tmpl;
    bool waw = false, war = false, raw = false;
    for (uint64_t a = addr; a < addr + width;) {
        const uint64_t j = a / 4;
        const unsigned lo = (unsigned)(a & 3);
        const unsigned n = (unsigned)(addr + width - a < 4 - lo ? addr + width - a : 4 - lo);
        cur.bytes = (uint8_t)(((1u << n) - 1) << lo);
        struct gpage *p = gpage_get(k, j);
        if (!p)
            return;
        /* a half of the page is made when it is first needed: read-only inputs get no write
         * records, outputs no read records */
        struct gacc **mine = wr ? &p->w : &p->r;
        if (!*mine && !(*mine = calloc(GP_WORDS, sizeof **mine)))
            return;
        struct gacc *pw = p->w ? &p->w[j & (GP_WORDS - 1)] : NULL,
                    *pr = p->r ? &p->r[j & (GP_WORDS - 1)] : NULL;
        int s;
        if (wr) {
            if (!waw && (s = gconflict(pw, true, &cur, true, g, nthreads))) {
                waw = true;
                grace_report(w, lane, F_GRACE_WAW, s, k, pw, pc, a);
            }
            if (pr && !war && (s = gconflict(pr, false, &cur, true, g, nthreads))) {
                war = true;
                grace_report(w, lane, F_GRACE_WAR, s, k, pr, pc, a);
            }
            *pw = cur;
        } else {
            if (pw && !raw && (s = gconflict(pw, true, &cur, false, g, nthreads))) {
                raw = true;
                grace_report(w, lane, F_GRACE_RAW, s, k, pw, pc, a);
            }
            /* one reader kept: the newest, unless the kept one is another thread's and not
             * ordered before this read (then it stays, for a later writer to meet) */
            if (!pr->site || pr->thread == cur.thread ||
                !gconflict(pr, false,
                           &(struct gacc){.site = 1, .thread = cur.thread, .tg = cur.tg,
                                          .tc = cur.tc, .ep = cur.ep, .step = cur.step,
                                          .wep = cur.wep, .bytes = pr->bytes},
                           true, g, nthreads))
                *pr = cur;
        }
        a += n;
    }
}

/* Scope of a memory-ordering instruction: true when it is the CTA only. */
static bool scope_cta(const struct ir_insn *in)
{
    return in->scope == SCOPE_CTA;
}

/* Global-memory ordering (see check.h). */
void check_order(struct warp *w, const struct ir_insn *in)
{
    struct cta *c = w->cta;
    if (!(c->L->check & CHECK_RACECHECK) || !c->chk)
        return;
    struct gwarp *g = gwarp_of(w);
    if (in->op == OP_MEMBAR || in->op == OP_FENCE) {
        struct check_launch *k = c->L->chk;
        pthread_mutex_lock(&k->glock);
        gfence(k, g, scope_cta(in));
        pthread_mutex_unlock(&k->glock);
    } else if (in->op == OP_BAR || in->op == OP_BARRIER) {
        if (g->gacq > c->chk->pend_g)
            c->chk->pend_g = g->gacq;
        if (g->cacq > c->chk->pend_c)
            c->chk->pend_c = g->cacq;
    }
}

/* The global accesses of one warp instruction: releases before them, acquires after. */
static void grace_accesses(struct warp *w, uint32_t pc, const struct engine_access *acc,
                           unsigned n)
{
    const struct ir_insn *in = &w->fn->insns[pc];
    switch (in->space) { /* a shared, local, param or const instruction: no global access */
    case SP_SHARED: case SP_SHARED_CTA: case SP_SHARED_CLUSTER: case SP_LOCAL: case SP_PARAM:
    case SP_PARAM_ENTRY: case SP_PARAM_FUNC: case SP_CONST: return;
    default: break;
    }
    unsigned i = 0;
    while (i < n && acc[i].space != SP_GLOBAL)
        i++;
    if (i == n)
        return;
    const bool atomic = in->op == OP_ATOM || in->op == OP_RED;
    const bool cta = scope_cta(in);
    uint8_t fl = 0;
    if (atomic || (in->sem != SEM_NONE && in->sem != SEM_WEAK))
        fl = GA_STRONG | (cta ? GA_CTA : 0) | (atomic ? GA_RMW : 0);
    const bool rel = in->sem == SEM_RELEASE || in->sem == SEM_ACQ_REL || in->sem == SEM_SC;
    const bool acq = (in->op == OP_ATOM || in->sem == SEM_ACQUIRE || in->sem == SEM_ACQ_REL ||
                      in->sem == SEM_SC) &&
                     in->op != OP_RED;
    struct gwarp *g = gwarp_of(w);
    struct check_launch *k = w->cta->L->chk;
    pthread_mutex_lock(&k->glock);
    const uint32_t g0 = k->gclk, c0 = k->cclk; /* what an acquire sees: not its own release */
    if (rel) {
        k->cclk++;
        if (!cta)
            k->gclk++;
    }
    struct cta *c = w->cta;
    const struct gacc tmpl = {.site = gsite(k, w->fn, pc),
                              .thread = (uint32_t)(c->linear * c->L->nthreads) + w->id * 32,
                              .tg = k->gclk,
                              .tc = k->cclk,
                              .ep = (uint16_t)c->chk_ep,
                              .step = (uint16_t)c->chk_step,
                              .wep = (uint16_t)w->chk_wep,
                              .fl = fl};
    if (tmpl.site) {
        struct gacc t = tmpl;
        for (; i < n; i++)
            if (acc[i].space == SP_GLOBAL) {
                t.thread = tmpl.thread + acc[i].lane;
                grace_access(w, g, pc, acc[i].lane, acc[i].addr, acc[i].width, acc[i].write,
                             &t);
            }
    }
    if (acq) {
        g->cacq = c0;
        if (!cta)
            g->gacq = g0;
    }
    pthread_mutex_unlock(&k->glock);
}

/* Bits [i, i+n) of bitmap b all set? (n <= 16) */
static inline bool bits_all(const uint8_t *b, uint64_t i, unsigned n)
{
    if ((i & 7) + n <= 8) { /* within one byte (an aligned access of up to 8 bytes) */
        const unsigned m = ((1u << n) - 1) << (i & 7);
        return (b[i >> 3] & m) == m;
    }
    uint32_t v = b[i >> 3] | (uint32_t)b[(i >> 3) + 1] << 8 | (uint32_t)b[(i >> 3) + 2] << 16;
    uint32_t m = ((1u << n) - 1) << (i & 7);
    return (v & m) == m;
}

/* One lane's access (space and address as engine_access has them) for the tools `tools`. */
static inline __attribute__((always_inline)) void check_one(struct warp *w, uint32_t pc, unsigned lane, uint64_t addr, unsigned width,
                      bool wr, unsigned space, bool atomic, unsigned tools)
{
    struct cta *c = w->cta;
    struct launch_state *L = c->L;
    if (space == SP_SHARED) {
        struct cta *t = c; /* whose shared memory: another CTA's through the cluster window */
        uint64_t win = 0;  /* where t's bytes start in the address the program used */
        if (addr >= CLU_STRIDE) {
            const uint64_t s = addr / CLU_STRIDE;
            if (s > c->clu->n || !(t = c->clu->cta[s - 1]))
                return; /* a fault (memcheck) */
            win = s * CLU_STRIDE;
            addr -= win;
        }
        if (addr >= t->shared_size || width > t->shared_size - addr)
            return; /* a fault (memcheck) */
        if (tools & CHECK_INITCHECK) {
            uint8_t *b = t->chk->shinit;
            if ((wr || atomic) && width <= 16) {
                const uint32_t m = ((1u << width) - 1) << (addr & 7);
                b[addr >> 3] |= (uint8_t)m;
                b[(addr >> 3) + 1] |= (uint8_t)(m >> 8);
                b[(addr >> 3) + 2] |= (uint8_t)(m >> 16);
            } else if (wr || atomic) {
                for (uint64_t i = addr; i < addr + width; i++)
                    b[i >> 3] |= (uint8_t)(1u << (i & 7));
            } else if (width > 16 || !bits_all(b, addr, width)) {
                for (uint64_t i = addr; i < addr + width; i++)
                    if (!(b[i >> 3] >> (i & 7) & 1)) {
                        struct finding x;
                        finding_at(&x, w, pc, lane, F_INIT_SHARED);
                        x.addr = win + i;
                        x.width = width;
                        finding_add(L, &x);
                        break;
                    }
            }
        }
        if ((tools & CHECK_RACECHECK) && !atomic && t == c) /* (within one CTA) */
            race_access(w, pc, lane, addr, width, wr);
    } else if (space == SP_GLOBAL && (tools & CHECK_INITCHECK)) {
        const struct mem_alloc *a = c->chk->last;
        if (!a || addr < a->base || addr - a->base + width > a->size) {
            a = mem_find(L->dev->mem, addr, width);
            if (!a)
                return;
            c->chk->last = a;
        }
        if (!a->init)
            return;
        if (wr || atomic) {
            mem_mark_init(L->dev->mem, addr, width);
            return;
        }
        const uint64_t off = addr - a->base;
        if ((off & 7) + width <= 8) { /* within one byte of the bitmap: test it here */
            const unsigned m = ((1u << width) - 1) << (off & 7);
            if ((__atomic_load_n(&a->init[off >> 3], __ATOMIC_RELAXED) & m) == m)
                return;
        }
        uint64_t bad = mem_first_uninit(a, addr, width);
        if (bad != UINT64_MAX) {
            struct finding x;
            finding_at(&x, w, pc, lane, F_INIT_GLOBAL);
            x.addr = bad;
            x.width = width;
            x.base = a->base;
            x.size = a->size;
            finding_add(L, &x);
        }
    }
}

/* The width, space and write fields of a struct engine_access as one word (acc_sig). */
_Static_assert(offsetof(struct engine_access, space) == offsetof(struct engine_access, width) + 2 &&
                   offsetof(struct engine_access, write) ==
                       offsetof(struct engine_access, width) + 3 &&
                   sizeof(((struct engine_access *)0)->width) == 2,
               "engine_access: width, space, write are adjacent");
static inline uint32_t acc_sig(unsigned width, unsigned space, unsigned write)
{
    const struct engine_access a = {.width = (uint16_t)width, .space = (uint8_t)space,
                                    .write = (uint8_t)write};
    uint32_t sig;
    memcpy(&sig, &a.width, sizeof sig);
    return sig;
}

/* The accesses of one warp instruction (see internal.h). The common case, a lane's access
 * inside the CTA's own shared memory, is handled here with the CTA's state loaded once per
 * instruction (most of the checking loop's time: a tiled kernel reads shared words that every
 * check has already seen); a read of one word nobody wrote in this epoch and that has two
 * readers on record costs the initcheck bit test and two epoch compares, and has no effect on
 * the shadow state, so the other lanes of the instruction reading that word (a broadcast, a
 * half-warp reading what the other half reads) skip it: `clear` has a bit per word of a
 * 64-word window from the first such read. Everything else goes to check_one. */
void check_accesses(struct warp *w, uint32_t pc, const struct engine_access *acc, unsigned n,
                    bool atomic)
{
    struct cta *c = w->cta;
    const unsigned tools = c->L->check;
    struct check_cta *k = c->chk;
    const uint32_t ssz = c->shared_size, ep = c->chk_ep;
    const bool init = tools & CHECK_INITCHECK, race = (tools & CHECK_RACECHECK) && !atomic;
    bool global = false;
    uint64_t base = UINT64_MAX, clear = 0; /* words base + i with bit i: reads known clean */
    /* an aligned 4-byte shared read (most of them) is recognised by one compare of its
     * width, space and write fields */
    const uint32_t rd4 = atomic ? UINT32_MAX : acc_sig(4, SP_SHARED, 0);
    const uint64_t end4 = ssz >= 4 ? ssz - 3 : 0; /* a 4-byte read below it is in bounds */
    for (unsigned i = 0; i < n; i++) {
        const struct engine_access *a = &acc[i];
        const uint64_t addr = a->addr;
        uint32_t sig;
        memcpy(&sig, &a->width, sizeof sig);
        if (sig == rd4 && !(addr & 3) && addr < end4) {
            const uint64_t j = addr >> 2, d = j - base;
            if (d < 64 && (clear >> d & 1))
                continue; /* the word another lane of this instruction read cleanly */
            const unsigned m = 0xfu << (addr & 4);
            if (!init || (k->shinit[addr >> 3] & m) == m) {
                if (race && (k->wrote[j] == ep || k->sat[j] != ep)) {
                    race_read4(w, pc, a->lane, j);
                    continue;
                }
                if (base == UINT64_MAX)
                    base = j;
                if (j - base < 64)
                    clear |= UINT64_C(1) << (j - base);
                continue;
            }
        }
        const unsigned width = a->width;
        if (a->space != SP_SHARED || addr >= ssz || width > ssz - addr || width > 16 ||
            (init && (a->write || atomic))) {
            global |= a->space == SP_GLOBAL;
            check_one(w, pc, a->lane, addr, width, a->write, a->space, atomic, tools);
            continue;
        }
        /* own shared memory, in bounds: a read (or, without initcheck, a write) */
        if (init && !bits_all(k->shinit, addr, width)) {
            check_one(w, pc, a->lane, addr, width, a->write, a->space, atomic, tools);
            continue;
        }
        if (!a->write && (addr & 3) + width <= 4) {
            const uint64_t j = addr >> 2;
            if (!race || (k->wrote[j] != ep && k->sat[j] == ep)) {
                /* no write this epoch, two readers of every byte known: nothing to do */
                if (width == 4 && !atomic) {
                    if (base == UINT64_MAX)
                        base = j;
                    if (j - base < 64)
                        clear |= UINT64_C(1) << (j - base);
                }
                continue;
            }
        }
        if (race)
            race_access(w, pc, a->lane, addr, width, a->write);
    }
    if (global && (tools & CHECK_RACECHECK))
        grace_accesses(w, pc, acc, n);
}

/* The accesses of a matrix or asynchronous instruction, for initcheck (see check.h). */
void check_async_accesses(struct warp *w, uint32_t pc, const struct engine_access *acc,
                          unsigned n)
{
    struct launch_state *L = w->cta->L;
    if (!(L->check & CHECK_INITCHECK))
        return;
    for (unsigned i = 0; i < n; i++)
        check_one(w, pc, acc[i].lane, acc[i].addr, acc[i].width, acc[i].write, acc[i].space,
                  false, CHECK_INITCHECK);
}

/* A divergent aligned barrier: lanes M of warp w executed the one at fn/pc, `need` had to. */
static void sync_block(struct warp *w, const struct xfunc *fn, uint32_t pc, uint32_t M,
                       uint32_t need)
{
    struct finding x;
    finding_at(&x, w, pc, (unsigned)__builtin_ctz(M), F_SYNC_BLOCK);
    x.fn1 = fn;
    x.mask = M;
    x.need = need;
    finding_add(w->cta->L, &x);
}

/*
 * Under independent thread scheduling (sm_70+) the paths of a warp reach an aligned barrier
 * one after the other and its.c joins them there (the warp arrives once all its live lanes
 * stand at it): judge the barrier when the warp arrives, with every lane that reached it and
 * the live lanes when the first did (lanes that exited meanwhile never reached it). A path
 * reaching another barrier while one waits is divergent at once, both barriers (each lane
 * once per wait). False while the path waits (nothing to judge yet); else true with *M and
 * *need set for the warp's arrival.
 */
static bool sync_join(struct warp *w, uint32_t pc, uint32_t *M, uint32_t *need)
{
    struct gwarp *g = &w->cta->chk->gw[w->id];
    if (g->jfn && (g->jfn != w->fn || g->jpc != pc)) {
        if (g->jarr & ~g->jrep)
            sync_block(w, g->jfn, g->jpc, g->jarr, g->jneed);
        if (*M & ~g->jrep)
            sync_block(w, w->fn, pc, *M, *need);
        g->jrep |= g->jarr | *M;
        return false;
    }
    if (!g->jfn) {
        g->jfn = w->fn;
        g->jpc = pc;
        g->jarr = g->jrep = 0;
        g->jneed = *need;
    }
    g->jarr |= *M;
    if (!its_sync_ready(w, pc, *M, *need))
        return false;
    g->jfn = NULL;
    if (g->jrep)
        return false; /* reported when a path reached another barrier */
    *M = g->jarr;
    *need = g->jneed;
    return true;
}

/* synccheck of a barrier (see internal.h). */
void check_barrier(struct warp *w, uint32_t pc, uint32_t M, uint32_t need, uint32_t count)
{
    struct finding x;
    if (w->its && !sync_join(w, pc, &M, &need))
        return;
    if (count % 32) {
        finding_at(&x, w, pc, (unsigned)__builtin_ctz(M), F_SYNC_COUNT);
        x.need = count;
        finding_add(w->cta->L, &x);
    }
    if (M != need)
        sync_block(w, w->fn, pc, M, need);
    /* a barrier for the whole CTA (no thread count, immediate id: what __syncthreads is)
     * waited for at two instructions in one phase: warps took different paths to it */
    const struct ir_insn *in = &w->fn->insns[pc];
    const struct ir_opnd *id = &w->fn->opnds[in->opnd + (in->mode == MODE_RED ? 1 : 0)];
    struct cta *c = w->cta;
    if (count || id->kind != OPK_IMM || id->imm.u > 15)
        return;
    struct check_cta *k = c->chk;
    unsigned b = (unsigned)id->imm.u;
    if (k->bar[b].ep != c->chk_ep) {
        k->bar[b].ep = c->chk_ep;
        k->bar[b].fn = w->fn;
        k->bar[b].pc = pc;
    } else if (k->bar[b].fn != w->fn || k->bar[b].pc != pc) {
        finding_at(&x, w, pc, (unsigned)__builtin_ctz(M), F_SYNC_PATH);
        x.fn2 = k->bar[b].fn;
        x.pc2 = k->bar[b].pc;
        x.need = b;
        finding_add(c->L, &x);
    }
}

/* synccheck of a warp collective (see internal.h). */
void check_warp_sync(struct warp *w, uint32_t pc, uint32_t M, const uint32_t members[32])
{
    for (unsigned l = 0; l < 32; l++) {
        if (!(M >> l & 1) || !(members[l] & ~M))
            continue;
        struct finding x;
        finding_at(&x, w, pc, l, F_SYNC_WARP);
        x.mask = M;
        x.need = members[l];
        const struct ir_insn *in = &w->fn->f->insns[pc];
        snprintf(x.what, sizeof x.what, "%s",
                 in->op == OP_SHFL    ? "shfl.sync"
                 : in->op == OP_VOTE  ? "vote.sync"
                 : in->op == OP_MATCH ? "match.sync"
                 : in->op == OP_REDUX ? "redux.sync"
                 : in->op == OP_ELECT ? "elect.sync"
                                      : "bar.warp.sync");
        finding_add(w->cta->L, &x);
        return;
    }
}

/* ---------------------------------------------------------------------- register initcheck */

/* The tracked registers of x (built on first use; NULL out of memory). */
static const struct rtrack *rtrack_of(struct check_cta *k, const struct xfunc *x)
{
    for (uint32_t i = 0; i < k->nrt; i++)
        if (k->rt[i].serial == x->serial)
            return &k->rt[i];
    struct rtrack *nt = realloc(k->rt, (k->nrt + 1) * sizeof *nt);
    if (!nt)
        return NULL;
    k->rt = nt;
    struct rtrack *t = &k->rt[k->nrt];
    memset(t, 0, sizeof *t);
    t->serial = x->serial;
    const struct ir_func *f = x->f;
    const uint32_t base[RF__COUNT] = {[RF_PRED] = x->offpred, [RF_B16] = x->off16,
                                      [RF_B32] = x->off32, [RF_B64] = 0};
    const uint32_t width[RF__COUNT] = {[RF_PRED] = 4, [RF_B16] = 64, [RF_B32] = 128,
                                       [RF_B64] = 256};
    for (unsigned rf = 0; rf < RF__COUNT; rf++) {
        if (!x->nzero || !f->ndeclared[rf])
            continue;
        if (!(t->idx[rf] = calloc(f->ndeclared[rf], sizeof *t->idx[rf]))) {
            for (unsigned r = 0; r < rf; r++)
                free(t->idx[r]);
            return NULL;
        }
        for (uint32_t s = 0; s < f->ndeclared[rf]; s++) {
            const uint32_t off = base[rf] + s * width[rf];
            for (uint32_t i = 0; i < x->nzero; i++)
                if (off >= x->zero[i].off && off - x->zero[i].off < x->zero[i].len) {
                    t->idx[rf][s] = ++t->n;
                    break;
                }
        }
    }
    /* .reg parameters and return values: the call writes them (or the body must) */
    for (uint32_t i = 0; i < f->nregdecls; i++) {
        const struct ir_regdecl *d = &f->regdecls[i];
        if (!d->param || d->rf >= RF__COUNT || !t->idx[d->rf])
            continue;
        for (uint32_t s = d->slot; s < d->slot + (d->count ? d->count : 1) &&
                                   s < f->ndeclared[d->rf];
             s++)
            t->idx[d->rf][s] = 0;
    }
    k->nrt++;
    return t;
}

/* The name of register (rf, slot) of f ("%r12"). */
static void reg_name(char *buf, size_t n, const struct xfunc *fn, unsigned rf, uint32_t slot)
{
    const struct ir_func *f = fn->f;
    for (uint32_t i = 0; i < f->nregdecls; i++) {
        const struct ir_regdecl *d = &f->regdecls[i];
        const uint32_t cnt = d->count ? d->count : 1;
        if (d->rf != rf || slot < d->slot || slot >= d->slot + cnt)
            continue;
        if (d->count)
            snprintf(buf, n, "%s%u", ir_str(fn->m, d->name), slot - d->slot);
        else
            snprintf(buf, n, "%s", ir_str(fn->m, d->name));
        return;
    }
    snprintf(buf, n, "$%c%u", "pHWD"[rf & 3], slot);
}

/* The warp's frame of its current activation: the kernel's, or a call's (pushed when the
 * warp is first seen deeper than its top frame, or right after a call at the same depth as
 * one that returned; popped when it is seen shallower). NULL out of memory. */
static struct rframe *rframe_of(struct check_cta *k, struct warp *w)
{
    struct rwarp *rw = &k->rw[w->id];
    const uint32_t depth = w->ncalls;
    while (rw->n && rw->f[rw->n - 1].depth > depth)
        rw->n--;
    const bool fresh = rw->pend && depth == rw->pend_depth + 1;
    rw->pend = false;
    if (rw->n && rw->f[rw->n - 1].depth == depth && !fresh &&
        rw->f[rw->n - 1].serial == w->fn->serial)
        return &rw->f[rw->n - 1];
    if (rw->n && rw->f[rw->n - 1].depth == depth)
        rw->n--; /* another activation at this depth */
    const struct rtrack *t = rtrack_of(k, w->fn);
    if (!t)
        return NULL;
    if (rw->n == rw->cap) {
        const uint32_t cap = rw->cap ? 2 * rw->cap : 4;
        struct rframe *nf = realloc(rw->f, cap * sizeof *nf);
        if (!nf)
            return NULL;
        memset(nf + rw->cap, 0, (cap - rw->cap) * sizeof *nf);
        rw->f = nf;
        rw->cap = cap;
    }
    struct rframe *fr = &rw->f[rw->n];
    if (fr->cap < t->n) {
        uint32_t *nw = realloc(fr->written, t->n * sizeof *nw);
        if (!nw)
            return NULL;
        fr->written = nw;
        fr->cap = t->n;
    }
    if (t->n)
        memset(fr->written, 0, t->n * sizeof *fr->written);
    fr->serial = w->fn->serial;
    fr->depth = depth;
    fr->n = t->n;
    fr->t = t;
    rw->n++;
    return fr;
}

/* initcheck of registers (see check.h). */
void check_regs(struct warp *w, uint32_t pc, uint32_t M)
{
    struct check_cta *k = w->cta->chk;
    struct rframe *fr = rframe_of(k, w);
    const struct ir_func *f = w->fn->f;
    if (pc >= f->ninsns)
        return;
    const struct ir_insn *in = &f->insns[pc];
    if (in->op == OP_CALL) {
        k->rw[w->id].pend = true;
        k->rw[w->id].pend_depth = w->ncalls;
    }
    if (!fr || !fr->n)
        return; /* nothing tracked: nvcc's functions write every register first */
    uint32_t nr;
    const struct ir_regref *r = ir_insn_regs(f, in, &nr);
    const struct rtrack *t = fr->t;
    bool found = false;
    for (uint32_t i = 0; i < nr; i++) { /* the sources, before the writes */
        if (r[i].dst || r[i].rf >= RF__COUNT || !t->idx[r[i].rf])
            continue;
        for (uint32_t s = r[i].slot; s < r[i].slot + r[i].n && s < f->ndeclared[r[i].rf]; s++) {
            const uint32_t x = t->idx[r[i].rf][s];
            const uint32_t miss = x ? M & ~fr->written[x - 1] : 0;
            if (!miss || found)
                continue;
            /* one finding per instruction; each lane reading an unwritten register counts */
            struct finding y;
            finding_at(&y, w, pc, (unsigned)__builtin_ctz(miss), F_INIT_REG);
            reg_name(y.what, sizeof y.what, w->fn, r[i].rf, s);
            finding_add(w->cta->L, &y);
            for (uint32_t m = miss & (miss - 1); m; m &= m - 1) {
                finding_at(&y, w, pc, (unsigned)__builtin_ctz(m), F_INIT_REG);
                reg_name(y.what, sizeof y.what, w->fn, r[i].rf, s);
                finding_add(w->cta->L, &y);
            }
            found = true;
        }
    }
    for (uint32_t i = 0; i < nr; i++) {
        if (!r[i].dst || r[i].rf >= RF__COUNT || !t->idx[r[i].rf])
            continue;
        for (uint32_t s = r[i].slot; s < r[i].slot + r[i].n && s < f->ndeclared[r[i].rf]; s++) {
            const uint32_t x = t->idx[r[i].rf][s];
            if (x)
                fr->written[x - 1] |= M;
        }
    }
}

/* ====================================================================== --fill-uninit */

/* Parse a fill pattern (see interp.h). */
int interp_fill_parse(const char *s, uint32_t *word)
{
    if (!strcmp(s, "nan")) {
        *word = 0x7fffffffu;
        return 0;
    }
    if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !s[2] || strlen(s) > 4)
        return -1;
    char *e;
    unsigned long b = strtoul(s + 2, &e, 16);
    if (*e || b > 0xff)
        return -1;
    *word = (uint32_t)b * 0x01010101u;
    return 0;
}

/* Fill memory with a pattern (see interp.h). */
void interp_fill(void *p, uint64_t addr, uint64_t n, uint32_t word)
{
    uint8_t *b = p;
    for (uint64_t i = 0; i < n; i++)
        b[i] = (uint8_t)(word >> 8 * ((addr + i) & 3));
}
