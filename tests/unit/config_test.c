/*
 * tests/unit/config_test.c — timing-mode configuration (timing/config_read.c): the
 * gpgpusim.config syntax (comments, quoted values over several lines, last assignment wins,
 * -config nesting, cycles and the depth limit), the exact diagnostics, the "accepted, not
 * modelled" listing, tm_config_load's choice of preset, every compiled-in preset (loads,
 * derives, matches its functional device preset, survives dump -> reload), and that every
 * option Accel-Sim's tested configurations use is in the option table.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/rt.h"
#include "tests/tap.h"
#include "timing/config.h"

/* Diagnostics captured in memory. */
struct capture {
    char *buf;
    size_t len;
    FILE *f;
};

static FILE *cap_open(struct capture *c)
{
    c->buf = NULL;
    c->len = 0;
    c->f = open_memstream(&c->buf, &c->len);
    return c->f;
}

/* Close and return the text (owned by c until cap_free). */
static const char *cap_text(struct capture *c)
{
    fclose(c->f);
    c->f = NULL;
    return c->buf ? c->buf : "";
}

static void cap_free(struct capture *c)
{
    free(c->buf);
    c->buf = NULL;
}

/* Read `text` as file t.config on top of the defaults; diagnostics into *out (caller frees). */
static int read_str(struct tm_config *c, const char *text, bool strict, char **out)
{
    struct capture cap;
    tm_config_init(c);
    int rc = tm_config_read_text(c, "t.config", text, TM_SRC_FILE, strict, cap_open(&cap));
    cap_text(&cap);
    *out = cap.buf ? cap.buf : strdup("");
    return rc;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        bail_out("cannot write a test file");
    fputs(text, f);
    fclose(f);
}

static char *dump_str(const struct tm_config *c)
{
    struct capture cap;
    tm_config_dump(c, cap_open(&cap));
    cap_text(&cap);
    return cap.buf;
}

/* ------------------------------------------------------------------ syntax */

static void test_syntax(void)
{
    struct tm_config c;
    char *d;
    int rc = read_str(&c,
                      "# a comment line\n"
                      "-gpgpu_n_clusters 10   # a comment after the value\n"
                      "-gpgpu_scheduler gto -gpgpu_num_sched_per_core 2\n"
                      "\t-gpgpu_dram_timing_opt \"nbk=16:CCD=1:RC=40:   # comment in quotes\n"
                      "                        CL=12:WL=2\"\n"
                      "-gpgpu_mem_addr_mapping dramid@8;0000RRRR.BCCSSSSS\n"
                      "-gpgpu_n_clusters 12\n"
                      "-smem_latency 24\n",
                      false, &d);
    is_int(rc, 0, "syntax: read succeeds");
    is_str(d, "", "syntax: no diagnostics");
    is_int(c.o.gpgpu_n_clusters, 12, "the last assignment wins");
    is_str(c.o.gpgpu_scheduler, "gto", "two pairs on one line (1)");
    is_int(c.o.gpgpu_num_sched_per_core, 2, "two pairs on one line (2)");
    is_str(c.o.gpgpu_dram_timing_opt, "nbk=16:CCD=1:RC=40: CL=12:WL=2",
           "a quoted value spanning lines is joined (white space -> one space, # comment dropped)");
    is_str(c.o.gpgpu_mem_addr_mapping, "dramid@8;0000RRRR.BCCSSSSS", "';' inside a value");
    is_int(c.o.gpgpu_smem_latency, 24, "-smem_latency is the old name of -gpgpu_smem_latency");
    is_int(c.opt_src[TM_OPT_ID_gpgpu_n_clusters], TM_SRC_FILE, "set options are marked");
    is_int(c.opt_src[TM_OPT_ID_gpgpu_n_mem], TM_SRC_DEFAULT, "others keep their defaults");

    /* such a config survives dump -> reload, quoting included */
    char *d1 = dump_str(&c);
    ok(strstr(d1, "-gpgpu_dram_timing_opt \"nbk=16:CCD=1:RC=40: CL=12:WL=2\"\n") != NULL,
       "dump quotes a value with a space");
    ok(strstr(d1, "-gpgpu_mem_addr_mapping dramid@8;0000RRRR.BCCSSSSS\n") != NULL,
       "dump leaves a plain value unquoted");
    struct tm_config c2;
    char *dd;
    rc = read_str(&c2, d1, true, &dd);
    char *d2 = dump_str(&c2);
    ok(rc == 0 && !*dd && !strcmp(d1, d2), "dump -> reload -> dump is identical");
    free(d1);
    free(d2);
    free(dd);
    tm_config_free(&c2);
    tm_config_free(&c);
    free(d);
}

/* Exact diagnostics of one text. */
static void diag_case(const char *what, const char *text, bool strict, int want_rc,
                      const char *want)
{
    struct tm_config c;
    char *d;
    int rc = read_str(&c, text, strict, &d);
    is_int(rc, want_rc, "%s: return value", what);
    is_str(d, want, "%s: diagnostic", what);
    tm_config_free(&c);
    free(d);
}

static void test_diagnostics(void)
{
    diag_case("unknown option", "-gpgpu_n_clusters 4\n-no_such_option 3\n", false, 0,
              "t.config:2: warning: unknown option -no_such_option\n");
    diag_case("unknown option, strict", "-gpgpu_n_clusters 4\n-no_such_option 3\n", true, -EINVAL,
              "t.config:2: error: unknown option -no_such_option\n");
    diag_case("malformed integer", "# x\n\n-gpgpu_n_clusters 4x\n", false, -EINVAL,
              "t.config:3: error: option -gpgpu_n_clusters: '4x' is not an integer\n");
    diag_case("unterminated quote", "-gpgpu_n_mem 2\n-gpgpu_dram_timing_opt \"nbk=16:\n  CL=12\n",
              false, -EINVAL,
              "t.config:2: error: unterminated quoted value of option -gpgpu_dram_timing_opt\n");
    diag_case("missing value", "-gpgpu_n_mem   # nothing\n-gpgpu_n_clusters 3\n", false, -EINVAL,
              "t.config:1: error: option -gpgpu_n_mem has no value\n");
    diag_case("stray text (a merge marker, as in two Accel-Sim configs)",
              "<<<<<<< HEAD\n-gpgpu_n_mem 3\n", false, 0,
              "t.config:1: warning: stray text '<<<<<<<' ignored (expected -option)\n");
    diag_case("stray words, then an option on the same line",
              "-gpgpu_n_mem 3 4 five -gpgpu_n_clusters 5\n-gpgpu_n_clusters x\n", false, -EINVAL,
              "t.config:1: warning: stray text '4' ignored (expected -option)\n"
              "t.config:2: error: option -gpgpu_n_clusters: 'x' is not an integer\n");
    {
        struct tm_config c;
        char *d;
        read_str(&c, "-gpgpu_n_mem 3 4 five -gpgpu_n_clusters 5\n", false, &d);
        is_int(c.o.gpgpu_n_clusters, 5, "an option after stray words on its line is read");
        tm_config_free(&c);
        free(d);
    }
    diag_case("stray text, strict", "-gpgpu_n_mem 3 4\n", true, -EINVAL,
              "t.config:1: error: stray text '4' ignored (expected -option)\n");
    diag_case("several errors in one run", "-gpgpu_n_clusters x\n-gpgpu_shader_cta y\n", false,
              -EINVAL,
              "t.config:1: error: option -gpgpu_n_clusters: 'x' is not an integer\n"
              "t.config:2: error: option -gpgpu_shader_cta: 'y' is not an integer\n");
    diag_case("missing -config file", "-config no_such_dir/x.config\n", false, -EINVAL,
              "t.config:1: error: -config no_such_dir/x.config: cannot read: No such file or "
              "directory\n");

    diag_case("a directory as -config", "-config /tmp\n", false, -EINVAL,
              "t.config:1: error: -config /tmp: cannot read: Is a directory\n");

    /* derivation bounds each factor of the SM count (no int64 overflow) */
    {
        struct tm_config c;
        char *d, err[256] = "";
        int rc = read_str(&c,
                          "-gpgpu_n_clusters 9223372036854775807\n"
                          "-gpgpu_n_cores_per_cluster 2\n",
                          true, &d);
        ok(rc == 0 && tm_config_derive(&c, err, sizeof err) == -EINVAL &&
               !strcmp(err, "options -gpgpu_n_clusters/-gpgpu_n_cores_per_cluster: 1..4096 SMs"),
           "a huge SM count is refused: %s", err);
        tm_config_free(&c);
        free(d);
    }

    /* the error limit */
    char text[4096] = "";
    for (int i = 0; i < 30; i++)
        strcat(text, "-gpgpu_n_mem q\n");
    struct tm_config c;
    char *d;
    int rc = read_str(&c, text, false, &d);
    int lines = 0;
    for (const char *p = d; *p; p++)
        lines += *p == '\n';
    ok(rc == -EINVAL && lines == TM_CONFIG_MAX_ERRORS + 1 &&
           strstr(d, "t.config: note: too many errors, reading stops here\n"),
       "reading stops after %d errors", TM_CONFIG_MAX_ERRORS);
    tm_config_free(&c);
    free(d);
}

/* ------------------------------------------------------------------ -config nesting */

static void test_nesting(void)
{
    char dir[] = "/tmp/ptxemu_config_test_XXXXXX";
    if (!mkdtemp(dir))
        bail_out("mkdtemp");
    char real[PATH_MAX], p[PATH_MAX + 64], q[PATH_MAX + 64], want[3 * PATH_MAX];
    if (!realpath(dir, real))
        bail_out("realpath");
    snprintf(p, sizeof p, "%s/sub", dir);
    mkdir(p, 0700);

    /* a.config includes sub/b.config (relative to a's directory); order is kept */
    snprintf(p, sizeof p, "%s/a.config", dir);
    write_file(p, "-gpgpu_n_clusters 7\n-config sub/b.config\n-gpgpu_n_mem 9\n");
    snprintf(q, sizeof q, "%s/sub/b.config", dir);
    write_file(q, "-gpgpu_n_mem 5\n-gpgpu_n_clusters 8\n");
    struct tm_config c;
    struct capture cap;
    tm_config_init(&c);
    int rc = tm_config_read_file(&c, p, true, cap_open(&cap));
    is_str(cap_text(&cap), "", "nested -config: no diagnostics");
    ok(rc == 0 && c.o.gpgpu_n_clusters == 8 && c.o.gpgpu_n_mem == 9,
       "nested -config is read where it stands (clusters %d, mem %d)", (int)c.o.gpgpu_n_clusters,
       (int)c.o.gpgpu_n_mem);
    cap_free(&cap);
    tm_config_free(&c);

    /* a cycle: b includes a again */
    write_file(q, "-gpgpu_n_mem 5\n-config ../a.config\n");
    tm_config_init(&c);
    rc = tm_config_read_file(&c, p, false, cap_open(&cap));
    snprintf(want, sizeof want,
             "%s/sub/b.config:2: error: -config %s/sub/../a.config: include cycle (%s/a.config "
             "is already being read)\n",
             dir, dir, real);
    is_int(rc, -EINVAL, "-config cycle: an error");
    is_str(cap_text(&cap), want, "-config cycle: diagnostic");
    cap_free(&cap);
    tm_config_free(&c);

    /* a file including itself */
    write_file(q, "-config b.config\n");
    tm_config_init(&c);
    rc = tm_config_read_file(&c, q, false, cap_open(&cap));
    snprintf(want, sizeof want,
             "%s/sub/b.config:1: error: -config %s/sub/b.config: include cycle "
             "(%s/sub/b.config is already being read)\n",
             dir, dir, real);
    is_str(cap_text(&cap), want, "a file including itself is a cycle");
    cap_free(&cap);
    tm_config_free(&c);

    /* the depth limit: f0 -> f1 -> … -> f17 */
    for (int i = 0; i <= 17; i++) {
        snprintf(p, sizeof p, "%s/f%d.config", dir, i);
        char body[64];
        snprintf(body, sizeof body, "-config f%d.config\n", i + 1);
        write_file(p, i < 17 ? body : "-gpgpu_n_mem 3\n");
    }
    snprintf(p, sizeof p, "%s/f0.config", dir);
    tm_config_init(&c);
    rc = tm_config_read_file(&c, p, false, cap_open(&cap));
    snprintf(want, sizeof want,
             "%s/f15.config:1: error: -config %s/f16.config: nested deeper than %d files\n", dir,
             dir, TM_CONFIG_MAX_DEPTH);
    is_str(cap_text(&cap), want, "-config depth limit");
    cap_free(&cap);
    tm_config_free(&c);

    /* the top file missing */
    snprintf(p, sizeof p, "%s/none.config", dir);
    tm_config_init(&c);
    rc = tm_config_read_file(&c, p, false, cap_open(&cap));
    snprintf(want, sizeof want, "%s: error: cannot read: No such file or directory\n", p);
    ok(rc == -ENOENT && !strcmp(cap_text(&cap), want), "unreadable top file: -ENOENT, message");
    cap_free(&cap);
    tm_config_free(&c);

    /* the accepted listing through tm_config_load on a file, once */
    snprintf(p, sizeof p, "%s/acc.config", dir);
    write_file(p, "-config sub/acc2.config\n-power_trace_enabled 1\n-gpgpu_n_clusters 2\n"
                  "-power_trace_enabled 0\n");
    snprintf(q, sizeof q, "%s/sub/acc2.config", dir);
    write_file(q, "-visualizer_zlevel 4\n");
    rc = tm_config_load(&c, p, "h100", false, cap_open(&cap));
    is_str(cap_text(&cap), "note: accepted, not modelled: -visualizer_zlevel, -power_trace_enabled\n",
           "accepted options of the files (nested too) listed once");
    ok(rc == 0 && c.n_sm == 2, "a file loads on top of the defaults (%u SMs)", c.n_sm);
    is_uint(tm_config_list_accepted(&c, NULL), 2, "tm_config_list_accepted counts them");
    cap_free(&cap);
    tm_config_free(&c);

    /* a derivation error through tm_config_load names the file */
    write_file(p, "-gpgpu_scheduler xyz\n");
    rc = tm_config_load(&c, p, NULL, false, cap_open(&cap));
    snprintf(want, sizeof want,
             "%s: error: option -gpgpu_scheduler: unknown policy 'xyz' (lrr, gto, old, rrr, "
             "two_level_active)\n",
             p);
    ok(rc == -EINVAL && !strcmp(cap_text(&cap), want), "derivation error: %s", cap.buf);
    cap_free(&cap);

    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        diag("could not remove %s", dir);
}

/* ------------------------------------------------------------------ presets */

static void test_presets(void)
{
    static const char *const names[] = {"qv100", "rtx2060", "rtx3070", "a100",
                                        "h100",  "rtx4090", "rtx5090", "b200"};
    is_uint(tm_preset_count, 8, "eight presets compiled in");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *n = names[i];
        ok(tm_preset_find(n) != NULL, "preset %s exists", n);
        struct tm_config c;
        struct capture cap;
        int rc = tm_config_load(&c, n, NULL, true, cap_open(&cap));
        is_int(rc, 0, "%s: loads and derives (strict)", n);
        is_str(cap_text(&cap), "", "%s: no diagnostic at all", n);
        cap_free(&cap);
        if (rc)
            continue;

        /* the functional device preset of the same name */
        struct rt_device d;
        char err[256];
        rt_device_default(&d);
        rc = rt_device_parse(&d, n, err, sizeof err);
        is_int(rc, 0, "%s: a functional device preset exists", n);
        ok(c.n_sm == d.nsm && c.max_threads_per_sm == d.threads_per_sm &&
               (uint64_t)c.o.gpgpu_shader_cta == d.blocks_per_sm &&
               (uint64_t)c.o.gpgpu_shader_registers == d.regs_per_sm &&
               (uint64_t)c.o.gpgpu_shmem_size == d.shared_per_sm &&
               (uint64_t)c.o.gpgpu_shmem_per_block == d.shared_per_block_optin &&
               (unsigned)(c.clock_mhz[0] * 1000 + 0.5) == d.clock_khz,
           "%s: SMs %u/%u, threads %u/%u, CTAs %lld/%u, shared %lld/%llu, per CTA %lld/%llu, "
           "clock %.0f/%u MHz match the device preset",
           n, c.n_sm, d.nsm, c.max_threads_per_sm, d.threads_per_sm,
           (long long)c.o.gpgpu_shader_cta, d.blocks_per_sm, (long long)c.o.gpgpu_shmem_size,
           (unsigned long long)d.shared_per_sm, (long long)c.o.gpgpu_shmem_per_block,
           (unsigned long long)d.shared_per_block_optin, c.clock_mhz[0], d.clock_khz / 1000);
        ok(c.n_shmem_opt > 0 &&
               c.shmem_opt[c.n_shmem_opt - 1] * 1024 == (uint64_t)c.o.gpgpu_shmem_size,
           "%s: the largest carve-out is the shared memory per SM", n);
        ok(c.l2.present && c.dl1.present, "%s: L1 and L2 geometries derived", n);
        is_uint(tm_config_list_accepted(&c, NULL), 0,
                "%s: a preset's own accepted options are not listed", n);

        /* dump -> reload gives identical options */
        char *d1 = dump_str(&c);
        struct tm_config c2;
        tm_config_init(&c2);
        rc = tm_config_read_text(&c2, "dump", d1, TM_SRC_FILE, true, cap_open(&cap));
        is_str(cap_text(&cap), "", "%s: dump reloads without diagnostics", n);
        cap_free(&cap);
        char *d2 = dump_str(&c2);
        ok(rc == 0 && !strcmp(d1, d2), "%s: dump -> reload gives identical options", n);
        char err2[256];
        ok(tm_config_derive(&c2, err2, sizeof err2) == 0 &&
               !memcmp(c2.oplat, c.oplat, sizeof c.oplat) &&
               !memcmp(c2.pipe_width, c.pipe_width, sizeof c.pipe_width) &&
               !memcmp(&c2.l2, &c.l2, sizeof c.l2) && c2.sched == c.sched,
           "%s: the reloaded options derive the same model", n);
        free(d1);
        free(d2);
        tm_config_free(&c2);
        tm_config_free(&c);
    }
    ok(tm_preset_find("H100") == tm_preset_find("h100"), "preset names are case-insensitive");
    ok(tm_preset_find("t4") == NULL, "no preset t4");
}

static void load_case(const char *spec, const char *key, int want_rc, unsigned want_sm,
                      const char *want_diag)
{
    struct tm_config c;
    struct capture cap;
    int rc = tm_config_load(&c, spec, key, false, cap_open(&cap));
    is_str(cap_text(&cap), want_diag, "load(%s, %s): diagnostics", spec ? spec : "NULL",
           key ? key : "NULL");
    cap_free(&cap);
    is_int(rc, want_rc, "load(%s, %s): return value", spec ? spec : "NULL", key ? key : "NULL");
    if (!rc) {
        is_uint(c.n_sm, want_sm, "load(%s, %s): %u SMs", spec ? spec : "NULL", key ? key : "NULL",
                want_sm);
        tm_config_free(&c);
    }
}

static void test_load(void)
{
    load_case(NULL, "h100", 0, 132, "");
    load_case("", NULL, 0, 132, "");
    load_case(NULL, "A100", 0, 108, "");
    load_case(NULL, "a100,nsm=8", 0, 108, "");
    load_case(NULL, "rtx3070", 0, 46, "");
    load_case("qv100", "h100", 0, 80, "");
    load_case(NULL, "t4", 0, 30,
              "note: no timing preset for device t4; using rtx2060 (same SM architecture)\n");
    load_case(NULL, "l4,nsm=58", 0, 128,
              "note: no timing preset for device l4; using rtx4090 (same SM architecture)\n");
    load_case(NULL, "sm_100", 0, 148,
              "note: no timing preset for device sm_100; using b200 (same SM architecture)\n");
    load_case(NULL, "nosuch", -ENOENT, 0,
              "error: no timing preset for device 'nosuch' (presets: qv100 rtx2060 rtx3070 a100 "
              "h100 rtx4090 rtx5090 b200); name one or a configuration file\n");
    load_case("/nonexistent/x.config", NULL, -ENOENT, 0,
              "/nonexistent/x.config: error: cannot read: No such file or directory\n");
}

/* ------------------------------------------------------------------ Accel-Sim's names */

/* Every option name set (or shown commented out) in Accel-Sim's tested configurations,
 * accel-sim/gpgpu-sim_distribution configs/tested-cfgs/{SM2_GTX480, SM3_KEPLER_TITAN,
 * SM6_TITANX, SM7_GV100, SM7_QV100, SM7_TITANV, SM75_RTX2060, SM75_RTX2060_S, SM80_A100,
 * NVIDIA_A100_80GB_PCIe, SM86_RTX3070, SM86_RTX3060_MOBILE, SM87_ORIN, SM89_RTX4060_LAPTOP,
 * SM90_H100, SM90_H200, SM100_GCN3}/gpgpusim.config, extracted by hand (2026-11). */
static const char *const accelsim_names[] = {
    "gpgpu_ptx_instruction_classification",
    "gpgpu_ptx_sim_mode",
    "gpgpu_ptx_force_max_capability",
    "gpgpu_ignore_resources_limitation",
    "gpgpu_stack_size_limit",
    "gpgpu_heap_size_limit",
    "gpgpu_runtime_sync_depth_limit",
    "gpgpu_runtime_pending_launch_count_limit",
    "gpgpu_kernel_launch_latency",
    "gpgpu_TB_launch_latency",
    "gpgpu_max_concurrent_kernel",
    "gpgpu_compute_capability_major",
    "gpgpu_compute_capability_minor",
    "gpgpu_ptx_convert_to_ptxplus",
    "gpgpu_ptx_save_converted_ptxplus",
    "gpgpu_n_clusters",
    "gpgpu_n_cores_per_cluster",
    "gpgpu_n_mem",
    "gpgpu_n_sub_partition_per_mchannel",
    "gpgpu_clock_gated_lanes",
    "gpgpu_n_chiplet_partition",
    "inter_chiplet_queue_size",
    "gpgpu_chiplet_interleave",
    "gpgpu_clock_domains",
    "gpgpu_shader_registers",
    "gpgpu_registers_per_block",
    "gpgpu_occupancy_sm_number",
    "gpgpu_shader_core_pipeline",
    "gpgpu_shader_cta",
    "gpgpu_simd_model",
    "gpgpu_pipeline_widths",
    "gpgpu_num_sp_units",
    "gpgpu_num_sfu_units",
    "gpgpu_num_dp_units",
    "gpgpu_num_int_units",
    "gpgpu_tensor_core_avail",
    "gpgpu_num_tensor_core_units",
    "ptx_opcode_latency_int",
    "ptx_opcode_initiation_int",
    "ptx_opcode_latency_fp",
    "ptx_opcode_initiation_fp",
    "ptx_opcode_latency_dp",
    "ptx_opcode_initiation_dp",
    "ptx_opcode_latency_sfu",
    "ptx_opcode_initiation_sfu",
    "ptx_opcode_latency_tesnor",
    "ptx_opcode_initiation_tensor",
    "gpgpu_sub_core_model",
    "gpgpu_enable_specialized_operand_collector",
    "gpgpu_operand_collector_num_units_gen",
    "gpgpu_operand_collector_num_in_ports_gen",
    "gpgpu_operand_collector_num_out_ports_gen",
    "gpgpu_operand_collector_num_units_sp",
    "gpgpu_operand_collector_num_units_sfu",
    "gpgpu_operand_collector_num_units_mem",
    "gpgpu_operand_collector_num_units_dp",
    "gpgpu_operand_collector_num_in_ports_sp",
    "gpgpu_operand_collector_num_out_ports_sp",
    "gpgpu_operand_collector_num_in_ports_sfu",
    "gpgpu_operand_collector_num_out_ports_sfu",
    "gpgpu_operand_collector_num_in_ports_mem",
    "gpgpu_operand_collector_num_out_ports_mem",
    "gpgpu_operand_collector_num_in_ports_dp",
    "gpgpu_operand_collector_num_out_ports_dp",
    "gpgpu_num_reg_banks",
    "gpgpu_reg_file_port_throughput",
    "gpgpu_shmem_num_banks",
    "gpgpu_shmem_limited_broadcast",
    "gpgpu_shmem_warp_parts",
    "gpgpu_coalesce_arch",
    "gpgpu_num_sched_per_core",
    "gpgpu_scheduler",
    "gpgpu_max_insn_issue_per_warp",
    "gpgpu_dual_issue_diff_exec_units",
    "gpgpu_opndcoll_model",
    "gpgpu_adaptive_cache_config",
    "gpgpu_shmem_option",
    "gpgpu_unified_l1d_size",
    "gpgpu_l1_banks",
    "gpgpu_cache:dl1",
    "gpgpu_cache:dl1PrefL1",
    "gpgpu_cache:dl1PrefShared",
    "gpgpu_l1_cache_write_ratio",
    "gpgpu_l1_latency",
    "gpgpu_gmem_skip_L1D",
    "gpgpu_flush_l1_cache",
    "gpgpu_n_cluster_ejection_buffer_size",
    "gpgpu_n_ldst_response_buffer_size",
    "gpgpu_shmem_size",
    "gpgpu_shmem_sizeDefault",
    "gpgpu_shmem_size_PrefL1",
    "gpgpu_shmem_size_PrefShared",
    "gpgpu_shmem_per_block",
    "gpgpu_smem_latency",
    "gpgpu_cache:dl2",
    "gpgpu_cache:dl2_texture_only",
    "gpgpu_dram_partition_queues",
    "gpgpu_perf_sim_memcpy",
    "gpgpu_memory_partition_indexing",
    "gpgpu_lrc_enabled",
    "gpgpu_lrc_max_entries",
    "gpgpu_lrc_max_merged",
    "gpgpu_cache:il1",
    "gpgpu_inst_fetch_throughput",
    "gpgpu_tex_cache:l1",
    "gpgpu_const_cache:l1",
    "gpgpu_perfect_inst_const_cache",
    "network_mode",
    "inter_config_file",
    "icnt_in_buffer_limit",
    "icnt_out_buffer_limit",
    "icnt_subnets",
    "icnt_flit_size",
    "icnt_arbiter_algo",
    "gpgpu_l2_rop_latency",
    "dram_latency",
    "gpgpu_dram_scheduler",
    "gpgpu_frfcfs_dram_sched_queue_size",
    "gpgpu_dram_return_queue_size",
    "gpgpu_n_mem_per_ctrlr",
    "gpgpu_dram_buswidth",
    "gpgpu_dram_burst_length",
    "dram_data_command_freq_ratio",
    "gpgpu_mem_address_mask",
    "gpgpu_mem_addr_mapping",
    "gpgpu_dram_timing_opt",
    "dram_dual_bus_interface",
    "dram_bnk_indexing_policy",
    "dram_bnkgrp_indexing_policy",
    "dram_seperate_write_queue_enable",
    "dram_write_queue_size",
    "gpgpu_memlatency_stat",
    "gpgpu_runtime_stat",
    "enable_ptx_file_line_stats",
    "visualizer_enabled",
    "power_simulation_enabled",
    "gpuwattch_xml_file",
    "gpgpu_simple_dram_model",
    "gpgpu_simple_dram_clock_multiplier",
    "trace_enabled",
    "trace_components",
    "trace_sampling_core",
};

static void test_accelsim_names(void)
{
    size_t n = sizeof accelsim_names / sizeof accelsim_names[0], missing = 0;
    for (size_t i = 0; i < n; i++)
        if (!tm_opt_find(accelsim_names[i])) {
            diag("not in timing/config.def: -%s", accelsim_names[i]);
            missing++;
        }
    is_uint(missing, 0, "all %zu option names of Accel-Sim's tested configs are in the table", n);
    /* SM3_KEPLER_TITAN's -smem_latency (an old name) and -config (the include) are read too */
    struct tm_config c;
    char *d;
    int rc = read_str(&c, "-smem_latency 24\n-config /dev/null\n", true, &d);
    ok(rc == 0 && !*d && c.o.gpgpu_smem_latency == 24, "-smem_latency and -config are accepted");
    tm_config_free(&c);
    free(d);

    /* every row: a valid default, a unique name, a field named after it */
    size_t bad = 0;
    for (size_t i = 0; i < tm_opt_count; i++) {
        if (tm_opt_find(tm_opt_table[i].name) != &tm_opt_table[i] ||
            strchr(tm_opt_table[i].name, ' ') || tm_opt_table[i].name[0] == '-')
            bad++;
    }
    is_uint(bad, 0, "option names are unique and well-formed (%zu rows)", tm_opt_count);
    is_uint(tm_opt_count, TM_OPT__COUNT, "TM_OPT__COUNT is the table's length");
}

/* Accel-Sim's tested configurations themselves when a checkout is at hand:
 * PTXEMU_ACCELSIM_CFGS=…/gpgpu-sim_distribution/configs/tested-cfgs. Each DIR/gpgpusim.config
 * must read with no error and no unknown option (stray text such as merge markers may warn). */
/* ------------------------------------------------------------------ cache strings */

/* Derive with -gpgpu_cache:dl1 set to s: 0 and the geometry, or the error text. */
static int derive_dl1(const char *s, struct tm_cache_geom *g, char *err, size_t errlen)
{
    struct tm_config c;
    tm_config_init(&c);
    err[0] = 0;
    int rc = tm_config_set(&c, "gpgpu_cache:dl1", s, err, errlen);
    if (!rc)
        rc = tm_config_derive(&c, err, errlen);
    *g = c.dl1;
    tm_config_free(&c);
    return rc;
}

/* Every field of GPGPU-Sim's cache string, the optional ones, and the exact errors. */
static void test_cache_strings(void)
{
    struct tm_cache_geom g;
    char err[512];
    is_int(derive_dl1("S:4:128:64,L:T:m:L:L,A:512:8,16:0,32", &g, err, sizeof err), 0,
           "V100 L1D string derives");
    ok(g.present && g.sectored && g.nset == 4 && g.line == 128 && g.assoc == 64 && g.repl == 'L' &&
           g.write == 'T' && g.alloc == 'm' && g.write_alloc == 'L' && g.set_index == 'L' &&
           g.mshr == 'A' && g.mshr_entries == 512 && g.mshr_merge == 8 && g.miss_queue == 16 &&
           g.fifo_entries == 0 && g.data_port_width == 32,
       "S:4:128:64,L:T:m:L:L,A:512:8,16:0,32: every field");
    is_int(derive_dl1("N:64:128:16,F:R:f:N:H,S:2:48,4", &g, err, sizeof err), 0,
           "no FIFO, no port width");
    ok(!g.sectored && g.nset == 64 && g.assoc == 16 && g.repl == 'F' && g.write == 'R' &&
           g.alloc == 'f' && g.write_alloc == 'N' && g.set_index == 'H' && g.mshr == 'S' &&
           g.mshr_entries == 2 && g.mshr_merge == 48 && g.miss_queue == 4 && g.fifo_entries == 0 &&
           g.data_port_width == 128,
       "N:64:128:16,F:R:f:N:H,S:2:48,4: the port width defaults to the line size");
    is_int(derive_dl1("N:4:128:256,L:R:m:N:L,T:512:8,128:2", &g, err, sizeof err), 0,
           "texture string");
    ok(g.mshr == 'T' && g.miss_queue == 128 && g.fifo_entries == 2 && g.data_port_width == 128,
       "T:512:8,128:2: miss queue 128, result FIFO 2");
    is_int(derive_dl1("S:32:128:24,L:B:s:W:P,F:192:4,32,64", &g, err, sizeof err), 0,
           "miss queue then port width without the FIFO field");
    ok(g.write == 'B' && g.alloc == 's' && g.write_alloc == 'W' && g.set_index == 'P' &&
           g.mshr == 'F' && g.miss_queue == 32 && g.fifo_entries == 0 && g.data_port_width == 64,
       "…,32,64: miss queue 32, port width 64");
    is_int(derive_dl1("S:128:128:16,L:E:m:F:X,A:8:4,8:0,128", &g, err, sizeof err), 0,
           "write-evict, fetch-on-write, XOR");
    ok(g.write == 'E' && g.write_alloc == 'F' && g.set_index == 'X', "E, F, X");
    is_int(derive_dl1("none", &g, err, sizeof err), 0, "none");
    ok(!g.present, "none: absent");

    static const struct {
        const char *s, *err;
    } bad[] = {
        {"S:4:128:64,Q:T:m:L:L,A:512:8,16:0,32", "the replacement policy must be one of L,F"},
        {"S:4:128:64,L:X:m:L:L,A:512:8,16:0,32", "the write policy must be one of R,B,T,E,L"},
        {"S:4:128:64,L:T:M:L:L,A:512:8,16:0,32", "the allocation policy must be one of m,f,s"},
        {"S:4:128:64,L:T:m:Z:L,A:512:8,16:0,32",
         "the write-allocate policy must be one of N,W,F,L"},
        {"S:4:128:64,L:T:m:L:Q,A:512:8,16:0,32", "the set-index function must be one of L,H,P,C,X"},
        {"S:4:128:64,L:T:m:L:L,B:512:8,16:0,32", "the MSHR type must be one of A,F,T,S"},
        {"X:4:128:64,L:T:m:L:L,A:512:8,16:0,32", "the cache type must be one of N,S"},
        {"S:4:128:64,L:T:m:L:L,A:512:8", "expected ',' before the miss queue size"},
        {"S:4:128:64,L:T:m:L:L,A:x:8,16", "the number of MSHR entries must be a number"},
        {"S:4:128:64,L:T:m:L:L,A:512:8,16:0,32x", "unexpected 'x' at the end"},
        {"S:4:128:64,L:T:m:L:H,A:512:8,16:0,32", "set-index function 'H' needs 32 or 64 sets"},
        {"S:24:128:64,L:T:m:L:P,A:512:8,16:0,32",
         "set-index function 'P' needs a power-of-two number of sets"},
        {"S:4:100:64,L:T:m:L:L,A:512:8,16:0,32",
         "bad cache geometry in 'S:4:100:64,L:T:m:L:L,A:512:8,16:0,32'"},
        {"S:4:16:64,L:T:m:L:L,A:512:8,16:0,16",
         "a sectored cache needs a line of whole 32-byte sectors"},
        {"S:4:128:64,L:T:m:L:L,A:0:8,16:0,32",
         "MSHR entries, merge limit and miss queue must be at least 1"},
        {"S:4:128:64,L:T:m:L:L,A:512:8,16:0,48",
         "the data port width 48 does not divide the line size 128"},
        {"N:4:256:4,L:R:f:N:L,A:8:8,4", "lines of more than 128 bytes are not modelled"},
        {"S:4:128:64,L:T:m:L:L,A:512:8,1:0,32",
         "a miss queue of 1 cannot hold the 2 entries one access may queue"},
        {"S:4:128:64,L:B:m:W:L,A:512:8,2:0,32",
         "a miss queue of 2 cannot hold the 3 entries one access may queue"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        int rc = derive_dl1(bad[k].s, &g, err, sizeof err);
        ok(rc == -EINVAL && strstr(err, bad[k].err) && strstr(err, "option -gpgpu_cache:dl1: "),
           "%s: error '%s'", bad[k].s, bad[k].err);
        if (!strstr(err, bad[k].err))
            diag("got: %s", err);
    }
}

static void test_accelsim_files(void)
{
    const char *dir = getenv("PTXEMU_ACCELSIM_CFGS");
    DIR *d = dir && *dir ? opendir(dir) : NULL;
    if (!d) {
        skip(1, "PTXEMU_ACCELSIM_CFGS does not name Accel-Sim's configs/tested-cfgs");
        return;
    }
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        char path[PATH_MAX];
        if (e->d_name[0] == '.' ||
            snprintf(path, sizeof path, "%s/%s/gpgpusim.config", dir, e->d_name) >=
                (int)sizeof path ||
            access(path, R_OK))
            continue;
        struct tm_config c;
        struct capture cap;
        tm_config_init(&c);
        int rc = tm_config_read_file(&c, path, false, cap_open(&cap));
        const char *t = cap_text(&cap);
        ok(rc == 0 && !strstr(t, "unknown option"), "Accel-Sim %s reads without error", e->d_name);
        if (*t)
            diag("%s", t);
        cap_free(&cap);
        tm_config_free(&c);
        n++;
    }
    closedir(d);
    if (!n)
        skip(1, "no DIR/gpgpusim.config under PTXEMU_ACCELSIM_CFGS");
}

int main(void)
{
    test_syntax();
    test_diagnostics();
    test_nesting();
    test_presets();
    test_load();
    test_accelsim_names();
    test_accelsim_files();
    test_cache_strings();
    return done_testing();
}
