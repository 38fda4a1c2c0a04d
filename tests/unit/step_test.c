/*
 * tests/unit/step_test.c — the engine seam (interp/engine.h): a kernel driven one warp
 * instruction at a time, with the exact report of an ALU instruction, a divergent branch and
 * its reconvergence, shared and global stores, a barrier (park and release), exit, a fault,
 * the clock hook, a deadlock found by engine_cta_release, invalid cluster shapes and a cluster
 * of two CTAs created together; bulk copies' global bytes as runs (range[]) with only their
 * mbarrier accesses in access[].
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"
#include "interp/engine.h"
#include "interp/interp.h"
#include "interp/mem.h"
#include "tests/tap.h"

/* Two warps (64 threads). PCs are the instruction indices written on the right. */
static const char kernel_ptx[] =
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .entry k(.param .u64 p)\n"
    "{\n"
    "  .reg .pred %p<3>;\n"
    "  .reg .b32 %r<10>;\n"
    "  .reg .b64 %rd<8>;\n"
    "  .shared .align 4 .b32 sh[64];\n"
    "  ld.param.u64 %rd1, [p];\n"          /* 0 */
    "  mov.u32 %r1, %tid.x;\n"             /* 1 */
    "  add.s32 %r2, %r1, 5;\n"             /* 2 */
    "  setp.lt.u32 %p1, %r1, 16;\n"        /* 3 */
    "  @%p1 bra L1;\n"                     /* 4 */
    "  mov.u32 %r3, 2;\n"                  /* 5 */
    "  bra.uni L2;\n"                      /* 6 */
    "L1:\n"
    "  mov.u32 %r3, 1;\n"                  /* 7 */
    "L2:\n"
    "  shl.b32 %r4, %r1, 2;\n"             /* 8 */
    "  mov.u32 %r5, sh;\n"                 /* 9 */
    "  add.s32 %r5, %r5, %r4;\n"           /* 10 */
    "  st.shared.u32 [%r5], %r3;\n"        /* 11 */
    "  bar.sync 0;\n"                      /* 12 */
    "  cvta.to.global.u64 %rd2, %rd1;\n"   /* 13 */
    "  mul.wide.u32 %rd3, %r1, 4;\n"       /* 14 */
    "  add.s64 %rd4, %rd2, %rd3;\n"        /* 15 */
    "  mov.u64 %rd5, %clock64;\n"          /* 16 */
    "  cvt.u32.u64 %r6, %rd5;\n"           /* 17 */
    "  add.s32 %r7, %r2, %r6;\n"           /* 18 */
    "  st.global.u32 [%rd4], %r7;\n"       /* 19 */
    "  exit;\n"                            /* 20 */
    "}\n"
    /* a fault: lane 3 stores past the end of the buffer */
    ".visible .entry f(.param .u64 p)\n"
    "{\n"
    "  .reg .pred %p<2>;\n"
    "  .reg .b32 %r<4>;\n"
    "  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [p];\n"          /* 0 */
    "  mov.u32 %r1, %tid.x;\n"             /* 1 */
    "  mul.wide.u32 %rd2, %r1, 64;\n"      /* 2 */
    "  add.s64 %rd3, %rd1, %rd2;\n"        /* 3 */
    "  st.global.u32 [%rd3], %r1;\n"       /* 4 */
    "  ret;\n"                             /* 5 */
    "}\n"
    /* a deadlock: warp 0 waits at barrier 1, warp 1 exits */
    ".visible .entry d()\n"
    "{\n"
    "  .reg .pred %p<2>;\n"
    "  .reg .b32 %r<4>;\n"
    "  mov.u32 %r1, %tid.x;\n"             /* 0 */
    "  setp.ge.u32 %p1, %r1, 32;\n"        /* 1 */
    "  @%p1 exit;\n"                       /* 2 */
    "  bar.sync 1, 64;\n"                  /* 3 */
    "  exit;\n"                            /* 4 */
    "}\n";

static uint64_t fake_clock(void *ctx, enum engine_clock_kind kind, uint64_t cta, uint32_t warp)
{
    (void)ctx;
    return (kind == ENGINE_CLOCK_CYCLES ? 1000000 : 7) + cta * 1000 + warp;
}

static void step_ok(struct engine_cta *c, uint32_t warp, struct engine_step_report *r,
                    uint32_t pc, const char *what)
{
    int rc = engine_step(c, warp, r);
    is_int(rc, 0, "%s: step runs", what);
    is_uint(r->pc, pc, "%s: pc %u", what, pc);
}

/* sm_90 bulk copies by one thread: 4 KiB global -> shared on an mbarrier (PC 6), then the
 * same 4 KiB shared -> global in a bulk group (PC 7). */
static const char bulk_ptx[] =
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".visible .entry b(.param .u64 src, .param .u64 dst)\n"
    "{\n"
    "  .reg .b32 %r<4>;\n"
    "  .reg .b64 %rd<4>;\n"
    "  .shared .align 128 .b8 buf[4096];\n"
    "  .shared .align 8 .b64 bar;\n"
    "  ld.param.u64 %rd1, [src];\n"                                        /* 0 */
    "  ld.param.u64 %rd2, [dst];\n"                                        /* 1 */
    "  mov.u32 %r1, bar;\n"                                                /* 2 */
    "  mbarrier.init.shared.b64 [%r1], 1;\n"                               /* 3 */
    "  mov.u32 %r2, buf;\n"                                                /* 4 */
    "  mbarrier.arrive.expect_tx.shared.b64 %rd3, [%r1], 4096;\n"          /* 5 */
    "  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd1], 4096, "
    "[%r1];\n"                                                             /* 6 */
    "  cp.async.bulk.global.shared::cta.bulk_group [%rd2], [%r2], 4096;\n" /* 7 */
    "  exit;\n"                                                            /* 8 */
    "}\n";

/* The step reports of bulk_ptx's copies. */
static void bulk_tests(struct engine_step_report *r)
{
    struct ir_module *m = NULL;
    struct fe_opts opts = {.diag = stderr, .verify = true};
    if (fe_load(bulk_ptx, sizeof bulk_ptx - 1, "bulk.ptx", &opts, &m) != 0)
        bail_out("bulk.ptx does not load");
    struct interp_config cfg = {.sm = 90, .nsm = 1, .threads = 1, .trace_thread = -1};
    struct interp_dev *d = NULL;
    struct interp_program *prog = NULL;
    const struct ir_module *mods[1] = {m};
    if (interp_dev_create(&cfg, &d) != 0 || interp_program_load(d, mods, 1, stderr, &prog) != 0)
        bail_out("sm_90 device or program");
    uint64_t p[2] = {0, 0};
    if (mem_alloc(interp_dev_mem(d), 4096, 0, &p[0]) != 0 ||
        mem_alloc(interp_dev_mem(d), 4096, 0, &p[1]) != 0)
        bail_out("mem_alloc");
    struct interp_launch l = {.kernel = interp_program_kernel(prog, "b"),
                              .grid = {1, 1, 1}, .block = {1, 1, 1}, .params = p};
    struct trap trap;
    struct engine_launch *L = NULL;
    struct engine_cta *c = NULL;
    if (engine_launch_begin(d, &l, &trap, &L) != 0 || engine_cta_create(L, 0, &c) != 0)
        bail_out("bulk launch");
    for (uint32_t pc = 0; pc < 6; pc++)
        step_ok(c, 0, r, pc, "bulk kernel set-up");
    step_ok(c, 0, r, 6, "cp.async.bulk global -> shared");
    ok(r->nrange == 1 && r->range[0].addr == p[0] && r->range[0].bytes == 4096 &&
           r->range[0].lane == 0 && !r->range[0].write && r->range_dropped == 0,
       "bulk load: its 4096 global bytes are one run (%u runs, %u bytes)", r->nrange,
       r->nrange ? r->range[0].bytes : 0);
    bool mbar = r->naccess > 0;
    for (uint32_t i = 0; i < r->naccess; i++)
        mbar &= r->access[i].space == SP_SHARED && r->access[i].addr == 4096 &&
                r->access[i].width == 8;
    ok(mbar, "bulk load: access[] holds its mbarrier's accesses only (%u)", r->naccess);
    step_ok(c, 0, r, 7, "cp.async.bulk shared -> global");
    ok(r->nrange == 1 && r->range[0].addr == p[1] && r->range[0].bytes == 4096 &&
           r->range[0].write && r->naccess == 0,
       "bulk store: one written run of 4096 bytes, no access[] entry");
    step_ok(c, 0, r, 8, "exit");
    is_int(engine_cta_exit(c), 0, "bulk CTA exits");
    engine_cta_destroy(c);
    is_int(engine_launch_end(L, NULL), 0, "bulk launch ends clean");
    interp_program_unload(prog);
    interp_dev_destroy(d);
    ir_module_free(m);
}

/* Cluster launch control through the engine seam (interp/clc.c): CTA 0 of 4 cancels the lowest
 * CTA not started (1), the driver starts CTA 2 itself, so the next cancel gets 3 and a third
 * finds nothing; creating a cancelled CTA says -ECANCELED. */
static const char clc_ptx[] =
    ".version 8.6\n.target sm_100a\n.address_size 64\n"
    ".visible .entry c()\n"
    "{\n"
    "  .shared .align 16 .b8 resp[16];\n"
    "  .shared .align 8 .b64 bar;\n"
    "  mbarrier.init.shared::cta.b64 [bar], 1;\n" /* 0 */
    "  clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 "
    "[resp], [bar];\n" /* 1 */
    "  clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 "
    "[resp], [bar];\n" /* 2 */
    "  clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 "
    "[resp], [bar];\n" /* 3 */
    "  exit;\n"        /* 4 */
    "}\n";

static void clc_tests(struct engine_step_report *r)
{
    struct ir_module *m = NULL;
    struct fe_opts opts = {.diag = stderr, .verify = true};
    if (fe_load(clc_ptx, sizeof clc_ptx - 1, "clc.ptx", &opts, &m) != 0)
        bail_out("clc.ptx does not load");
    struct interp_config cfg = {.sm = 100, .nsm = 1, .threads = 1, .trace_thread = -1};
    struct interp_dev *d = NULL;
    struct interp_program *prog = NULL;
    const struct ir_module *mods[1] = {m};
    if (interp_dev_create(&cfg, &d) != 0 || interp_program_load(d, mods, 1, stderr, &prog) != 0)
        bail_out("sm_100 device or program");
    struct interp_launch l = {.kernel = interp_program_kernel(prog, "c"),
                              .grid = {4, 1, 1}, .block = {1, 1, 1}};
    struct trap trap;
    struct engine_launch *L = NULL;
    struct engine_cta *c = NULL, *c2 = NULL, *x = NULL;
    if (engine_launch_begin(d, &l, &trap, &L) != 0 || engine_cta_create(L, 0, &c) != 0)
        bail_out("clc launch");
    step_ok(c, 0, r, 0, "mbarrier.init");
    ok(!engine_cluster_canceled(L, 1), "CTA 1 pending before the cancel");
    step_ok(c, 0, r, 1, "try_cancel");
    bool resp = false;
    for (uint32_t i = 0; i < r->naccess; i++)
        resp |= r->access[i].space == SP_SHARED && r->access[i].width == 16 && r->access[i].write;
    ok(resp, "try_cancel reports its 16-byte shared response write (%u accesses)", r->naccess);
    ok(engine_cluster_canceled(L, 1) && !engine_cluster_canceled(L, 2),
       "the cancel took CTA 1, the lowest not started");
    is_int(engine_cta_create(L, 1, &x), -ECANCELED, "creating cancelled CTA 1: -ECANCELED");
    is_int(engine_cta_create(L, 2, &c2), 0, "CTA 2 started by the driver");
    step_ok(c, 0, r, 2, "second try_cancel");
    ok(engine_cluster_canceled(L, 3) && !engine_cluster_canceled(L, 2),
       "the second cancel took CTA 3 (CTA 2 had started)");
    is_int(engine_cta_create(L, 3, &x), -ECANCELED, "creating cancelled CTA 3: -ECANCELED");
    step_ok(c, 0, r, 3, "third try_cancel (nothing left: a failed response)");
    step_ok(c, 0, r, 4, "exit");
    ok(!engine_launch_trapped(L), "no fault");
    engine_cta_destroy(c);
    engine_cta_destroy(c2);
    is_int(engine_launch_end(L, NULL), 0, "clc launch ends clean");
    interp_program_unload(prog);
    interp_dev_destroy(d);
    ir_module_free(m);
}

int main(void)
{

    struct ir_module *m = NULL;
    struct fe_opts opts = {.diag = stderr, .verify = true};
    if (fe_load(kernel_ptx, sizeof kernel_ptx - 1, "step.ptx", &opts, &m) != 0)
        bail_out("step.ptx does not load");
    struct interp_config cfg = {.sm = 80, .nsm = 1, .threads = 1, .trace_thread = -1};
    struct interp_dev *d = NULL;
    struct interp_program *prog = NULL;
    const struct ir_module *mods[1] = {m};
    if (interp_dev_create(&cfg, &d) != 0 || interp_program_load(d, mods, 1, stderr, &prog) != 0)
        bail_out("device or program");
    struct mem *mem = interp_dev_mem(d);
    uint64_t buf = 0;
    if (mem_alloc(mem, 256, 0, &buf) != 0)
        bail_out("mem_alloc");

    /* ---------------------------------------------------------------- kernel k */
    struct interp_launch l = {.kernel = interp_program_kernel(prog, "k"),
                              .grid = {2, 1, 1}, .block = {64, 1, 1}, .params = &buf};
    struct trap trap;
    struct engine_launch *L = NULL;
    is_int(engine_launch_begin(d, &l, &trap, &L), 0, "launch begins");
    engine_launch_set_clock(L, fake_clock, NULL);
    is_uint(engine_launch_ctas(L), 2, "2 CTAs");
    is_uint(engine_launch_threads(L), 64, "64 threads per CTA");
    is_uint(engine_launch_warps(L), 2, "2 warps per CTA");
    struct engine_cta *bad = NULL;
    is_int(engine_cta_create(L, 2, &bad), -EINVAL, "CTA 2 is outside the grid");
    struct engine_cta *c = NULL;
    is_int(engine_cta_create(L, 1, &c), 0, "CTA 1 created");
    uint32_t id[3];
    engine_cta_id(c, id);
    ok(id[0] == 1 && id[1] == 0 && id[2] == 0, "CTA id (1,0,0)");
    is_uint(engine_cta_linear(c), 1, "linear 1");

    struct engine_warp_info wi;
    is_int(engine_warp_query(c, 0, &wi), 0, "query warp 0");
    is_int(wi.status, ENGINE_WARP_READY, "warp 0 ready");
    is_uint(wi.pc, 0, "at pc 0");
    is_uint(wi.active, 0xffffffffu, "all lanes active");
    ok(wi.func != NULL && wi.func == &m->funcs[wi.func - m->funcs], "func is the module's IR");
    is_int(engine_warp_query(c, 2, &wi), -EINVAL, "no warp 2");

    struct engine_step_report *r = calloc(1, sizeof *r);
    step_ok(c, 0, r, 0, "ld.param");
    ok(r->insn == &r->func->insns[0], "insn points into the module's IR");
    ok((r->flags & (ENGINE_STEP_MEMORY | ENGINE_STEP_EXECUTED)) ==
           (ENGINE_STEP_MEMORY | ENGINE_STEP_EXECUTED), "ld.param: a memory instruction");
    is_uint(r->naccess, 32, "ld.param: one access per lane");
    is_int(r->access[0].space, SP_PARAM, "ld.param: param space");
    is_uint(r->access[5].addr, 0, "ld.param: offset 0 in the parameter block");
    is_uint(r->access[5].width, 8, "ld.param: 8 bytes");
    step_ok(c, 0, r, 1, "mov tid");
    step_ok(c, 0, r, 2, "add");
    is_uint(r->flags, ENGINE_STEP_EXECUTED, "add: only executed");
    is_int(r->unit, r->insn->unit, "add: unit from the IR");
    is_uint(r->active_before, 0xffffffffu, "add: active before");
    is_uint(r->exec_mask, 0xffffffffu, "add: exec mask");
    is_uint(r->active_after, 0xffffffffu, "add: active after");
    is_uint(r->next_pc, 3, "add: next pc 3");
    is_uint(r->naccess, 0, "add: no memory access");
    step_ok(c, 0, r, 3, "setp");
    step_ok(c, 0, r, 4, "divergent bra");
    is_uint(r->flags, ENGINE_STEP_EXECUTED | ENGINE_STEP_BRANCH | ENGINE_STEP_DIVERGED,
            "bra: branch, diverged");
    is_uint(r->exec_mask, 0x0000ffffu, "bra: lanes 0-15 pass the guard");
    is_uint(r->taken, 0x0000ffffu, "bra: lanes 0-15 taken");
    is_uint(r->target, 7, "bra: target L1 = 7");
    is_uint(r->reconv, 8, "bra: reconverges at L2 = 8");
    /* GPGPU-Sim's order: the taken path runs first (top of the stack) */
    uint32_t first = r->next_pc, first_mask = r->active_after;
    ok((first == 7 && first_mask == 0x0000ffffu) || (first == 5 && first_mask == 0xffff0000u),
       "bra: next is one side of the branch (pc %u mask %08x)", first, first_mask);
    is_int(engine_warp_query(c, 0, &wi), 0, "query after divergence");
    is_uint(wi.simt_depth, 3, "SIMT depth 3 (base, fall-through, taken)");
    /* run both sides to the reconvergence point */
    unsigned steps = 0;
    uint32_t seen_mask_at_8 = 0;
    for (;;) {
        engine_warp_query(c, 0, &wi);
        if (wi.pc == 8) {
            seen_mask_at_8 = wi.active;
            break;
        }
        if (engine_step(c, 0, r) != 0 || ++steps > 10)
            break;
    }
    is_uint(steps, 3, "3 instructions between the branch and L2 (mov; bra.uni | mov)");
    is_uint(seen_mask_at_8, 0xffffffffu, "reconverged: all lanes at L2");
    is_uint(wi.simt_depth, 1, "SIMT depth back to 1");
    step_ok(c, 0, r, 8, "shl");
    step_ok(c, 0, r, 9, "mov sh");
    step_ok(c, 0, r, 10, "add");
    step_ok(c, 0, r, 11, "st.shared");
    is_uint(r->flags, ENGINE_STEP_EXECUTED | ENGINE_STEP_MEMORY, "st.shared: memory");
    is_uint(r->naccess, 32, "st.shared: 32 accesses");
    bool shared_ok = true;
    for (unsigned i = 0; i < r->naccess; i++) {
        const struct engine_access *a = &r->access[i];
        if (a->space != SP_SHARED || a->lane != i || a->addr != 4 * i || a->width != 4 ||
            !a->write)
            shared_ok = false;
    }
    ok(shared_ok, "st.shared: lane l writes 4 bytes at shared offset 4*l");
    step_ok(c, 0, r, 12, "bar.sync (first warp)");
    is_uint(r->flags,
            ENGINE_STEP_EXECUTED | ENGINE_STEP_BARRIER | ENGINE_STEP_PARKED,
            "bar.sync: barrier, warp parked");
    is_uint(r->bar_id, 0, "bar.sync: barrier 0");
    is_uint(r->bar_count, 0, "bar.sync: no count (all threads)");
    is_uint(r->bar_arrived, 0xffffffffu, "bar.sync: 32 lanes arrive");
    is_uint(r->active_after, 0, "bar.sync: nothing runs next");
    is_int(engine_step(c, 0, r), -EAGAIN, "a parked warp cannot step");
    engine_warp_query(c, 0, &wi);
    is_int(wi.status, ENGINE_WARP_BARRIER, "warp 0 waits at the barrier");
    is_uint(wi.bar_id, 0, "at barrier 0");
    is_int(engine_cta_release(c), 0, "nothing to release yet, no deadlock (warp 1 runs)");
    /* warp 1 to the barrier */
    for (unsigned i = 0; i < 40; i++) {
        engine_warp_query(c, 1, &wi);
        if (wi.pc == 12)
            break;
        engine_step(c, 1, r);
    }
    step_ok(c, 1, r, 12, "bar.sync (second warp)");
    is_uint(r->flags, ENGINE_STEP_EXECUTED | ENGINE_STEP_BARRIER,
            "bar.sync completes: the last warp does not park");
    engine_warp_query(c, 0, &wi);
    is_int(wi.status, ENGINE_WARP_READY, "warp 0 released");
    is_uint(wi.pc, 13, "warp 0 continues after the barrier");
    step_ok(c, 0, r, 13, "cvta");
    step_ok(c, 0, r, 14, "mul.wide");
    step_ok(c, 0, r, 15, "add.s64");
    step_ok(c, 0, r, 16, "clock64");
    step_ok(c, 0, r, 17, "cvt");
    step_ok(c, 0, r, 18, "add");
    step_ok(c, 0, r, 19, "st.global");
    is_uint(r->flags, ENGINE_STEP_EXECUTED | ENGINE_STEP_MEMORY, "st.global: memory");
    ok(r->naccess == 32 && r->access[7].space == SP_GLOBAL && r->access[7].addr == buf + 28 &&
           r->access[7].width == 4 && r->access[7].write && r->access[7].lane == 7,
       "st.global: lane 7 writes 4 bytes at buf+28");
    step_ok(c, 0, r, 20, "exit");
    is_uint(r->flags, ENGINE_STEP_EXECUTED | ENGINE_STEP_EXIT | ENGINE_STEP_WARP_DONE,
            "exit: lanes end, warp done");
    is_uint(r->active_after, 0, "exit: no lanes after");
    engine_warp_query(c, 0, &wi);
    is_int(wi.status, ENGINE_WARP_EXITED, "warp 0 exited");
    ok(!engine_cta_done(c), "CTA not done: warp 1 runs");
    while (engine_step(c, 1, r) == 0)
        ;
    ok(engine_cta_done(c), "CTA done");
    engine_cta_destroy(c);
    struct interp_stats st;
    memset(&st, 0, sizeof st);
    is_int(engine_launch_end(L, &st), 0, "launch ends without a fault");
    is_uint(st.ctas, 1, "1 CTA retired");
    /* warp 0: pcs 0-4, both sides of the branch (5, 6 and 7), 8-20; warp 1 (no lane below 16)
     * runs 5, 6 only: its bra is issued with a false guard */
    is_uint(st.warp_insns, 21 + 20, "41 warp instructions (21 + 20)");
    uint32_t out[64];
    mem_read(mem, out, buf, sizeof out);
    /* CTA 1's threads 0..63 wrote tid + 5 + (clock64 low bits: 1000000 + 1*1000 + warp) */
    is_uint(out[7], 7 + 5 + 1001000, "thread 7 stored tid+5+simulated clock");
    is_uint(out[40], 40 + 5 + 1001001, "thread 40 (warp 1) saw its warp's clock");

    /* ---------------------------------------------------------------- fault */
    struct interp_launch lf = {.kernel = interp_program_kernel(prog, "f"),
                               .grid = {1, 1, 1}, .block = {32, 1, 1}, .params = &buf};
    is_int(engine_launch_begin(d, &lf, &trap, &L), 0, "launch f");
    is_int(engine_cta_create(L, 0, &c), 0, "CTA 0 of f");
    for (unsigned i = 0; i < 4; i++)
        engine_step(c, 0, r);
    ok(!engine_launch_trapped(L), "no fault yet");
    step_ok(c, 0, r, 4, "st.global out of bounds");
    ok(r->flags & ENGINE_STEP_FAULT, "the store faults");
    ok(engine_launch_trapped(L), "the launch has a fault");
    engine_warp_query(c, 0, &wi);
    is_int(wi.status, ENGINE_WARP_FAULTED, "warp faulted");
    is_int(engine_step(c, 0, r), -EAGAIN, "a faulted warp does not step");
    engine_cta_destroy(c);
    is_int(engine_launch_end(L, NULL), 1, "launch ends with a fault");
    is_int(trap.kind, TRAP_OOB, "out of bounds");
    is_uint(trap.lane, 4, "lane 4 (tid*64 = 256 is past the 256-byte buffer)");
    is_uint(trap.pc, 4, "at pc 4");

    /* ---------------------------------------------------------------- deadlock */
    struct interp_launch ld = {.kernel = interp_program_kernel(prog, "d"),
                               .grid = {1, 1, 1}, .block = {64, 1, 1}};
    is_int(engine_launch_begin(d, &ld, &trap, &L), 0, "launch d");
    is_int(engine_cta_create(L, 0, &c), 0, "CTA 0 of d");
    while (engine_step(c, 1, r) == 0)
        ;
    engine_warp_query(c, 1, &wi);
    is_int(wi.status, ENGINE_WARP_EXITED, "warp 1 exited");
    while (engine_step(c, 0, r) == 0)
        ;
    ok(r->flags & ENGINE_STEP_PARKED, "warp 0 parked at bar.sync 1, 64");
    is_uint(r->bar_id, 1, "barrier 1");
    is_uint(r->bar_count, 64, "count 64");
    is_int(engine_cta_release(c), -1, "deadlock detected");
    ok(engine_launch_trapped(L), "deadlock recorded");
    engine_cta_destroy(c);
    is_int(engine_launch_end(L, NULL), 1, "launch d ends with a fault");
    is_int(trap.kind, TRAP_DEADLOCK, "a deadlock report");

    /* ---------------------------------------------------------------- invalid launch */
    struct interp_launch li = {.kernel = interp_program_kernel(prog, "k"),
                               .grid = {1, 1, 1}, .block = {2048, 1, 1}, .params = &buf};
    is_int(engine_launch_begin(d, &li, &trap, &L), -EINVAL, "2048 threads: invalid");
    ok(L == NULL, "no launch state");

    /* ---------------------------------------------------------------- clusters */
    /* a grid that is not a multiple of the cluster shape is invalid (launch.c) */
    struct interp_launch lc = {.kernel = interp_program_kernel(prog, "k"), .grid = {3, 1, 1},
                               .block = {64, 1, 1}, .params = &buf, .cluster = {2, 1, 1}};
    is_int(engine_launch_begin(d, &lc, &trap, &L), -EINVAL, "cluster of 2, grid of 3: invalid");
    is_str(trap.msg, "grid (3,1,1) is not a multiple of the cluster (2,1,1)",
           "cluster of 2, grid of 3: message");
    /* clusters of several CTAs: created a cluster at a time, members share the cluster */
    lc.grid[0] = 4;
    is_int(engine_launch_begin(d, &lc, &trap, &L), 0, "clusters of 2: accepted");
    if (L) {
        is_int((int)engine_launch_cluster_size(L), 2, "cluster size 2");
        struct engine_cta *one = NULL, *pair[2] = {NULL, NULL};
        is_int(engine_cta_create(L, 0, &one), -EINVAL, "one CTA of a cluster alone: refused");
        is_int(engine_cluster_create(L, 2, pair), -EINVAL, "cluster 2 of 2: out of range");
        is_int(engine_cluster_create(L, 1, pair), 0, "cluster 1 created");
        if (pair[0] && pair[1]) {
            is_int((int)engine_cta_linear(pair[0]), 2, "cluster 1 rank 0 is CTA 2");
            is_int((int)engine_cta_linear(pair[1]), 3, "cluster 1 rank 1 is CTA 3");
            engine_cta_destroy(pair[1]); /* its memory stays until its peer goes too */
            engine_cta_destroy(pair[0]);
        }
        is_int(engine_launch_end(L, NULL), 0, "clusters of 2: launch ends clean");
    }
    L = NULL;

    bulk_tests(r);
    clc_tests(r);
    free(r);
    interp_program_unload(prog);
    interp_dev_destroy(d);
    ir_module_free(m);
    return done_testing();
}
