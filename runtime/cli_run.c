/*
 * runtime/cli_run.c — the commands on CUDA executables:
 *   ptxemu run [OPTIONS] -- PROGRAM ARGS...   PROGRAM on this build's libcudart.so.13 (options
 *                                             passed as PTXEMU_* variables, then execv)
 *   ptxemu fatbin PROGRAM                     the entries of its fat binaries
 * with what they read of an executable: the ELF dynamic section (does it need
 * libcudart.so.13?) and the .nv_fatbin / __nv_relfatbin sections.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frontend/frontend.h"
#include "interp/interp.h"
#include "interp/mem.h"
#include "runtime/cli.h"
#include "runtime/fatbin.h"
#include "runtime/rt.h"

/* ============================================================================== ELF reading */

/* Read the whole file (executables are small enough). */
static int slurp(const char *path, uint8_t **data, size_t *len)
{
    return cli_read_file(path, data, len);
}

/* The dynamic-section entry at byte o of the section at dyn_off (dyn_size bytes, already
 * bounded by the file): 1 with its tag and value, 0 past the end or at DT_NULL. */
static int dyn_entry(const uint8_t *b, uint64_t dyn_off, uint64_t dyn_size, uint64_t o,
                     int64_t *tag, uint64_t *val)
{
    if (o + 16 > dyn_size)
        return 0;
    memcpy(tag, b + dyn_off + o, 8);
    memcpy(val, b + dyn_off + o + 8, 8);
    return *tag != 0;
}

/* 1 if the ELF file needs libcudart.so.13, 0 if not, -1 if not a 64-bit ELF. *other gets a
 * different libcudart soname if one is needed. Reads the dynamic section via the program
 * headers (PT_DYNAMIC, strtab address mapped through PT_LOAD). */
static int elf_needs_cudart(const uint8_t *b, size_t n, char *other, size_t otherlen)
{
    other[0] = 0;
    if (n < 64 || memcmp(b, "\x7f" "ELF", 4) || b[4] != 2 || b[5] != 1)
        return -1;
    uint64_t phoff;
    uint16_t phentsize, phnum;
    memcpy(&phoff, b + 0x20, 8);
    memcpy(&phentsize, b + 0x36, 2);
    memcpy(&phnum, b + 0x38, 2);
    if (phentsize < 56 || phoff > n || (uint64_t)phnum * phentsize > n - phoff)
        return -1;
    uint64_t dyn_off = 0, dyn_size = 0;
    for (unsigned i = 0; i < phnum; i++) {
        const uint8_t *ph = b + phoff + (uint64_t)i * phentsize;
        uint32_t type;
        memcpy(&type, ph, 4);
        if (type == 2 /* PT_DYNAMIC */) {
            memcpy(&dyn_off, ph + 8, 8);
            memcpy(&dyn_size, ph + 32, 8);
        }
    }
    if (!dyn_size || dyn_off > n || dyn_size > n - dyn_off)
        return 0; /* static executable */
    uint64_t strtab = 0, strsz = 0;
    int64_t tag;
    uint64_t val;
    for (uint64_t o = 0; dyn_entry(b, dyn_off, dyn_size, o, &tag, &val); o += 16) {
        if (tag == 5)
            strtab = val;
        else if (tag == 10)
            strsz = val;
    }
    /* map the strtab virtual address to a file offset */
    uint64_t str_off = UINT64_MAX;
    for (unsigned i = 0; i < phnum; i++) {
        const uint8_t *ph = b + phoff + (uint64_t)i * phentsize;
        uint32_t type;
        uint64_t off, vaddr, filesz;
        memcpy(&type, ph, 4);
        memcpy(&off, ph + 8, 8);
        memcpy(&vaddr, ph + 16, 8);
        memcpy(&filesz, ph + 32, 8);
        if (type == 1 && strtab >= vaddr && strtab < vaddr + filesz)
            str_off = strtab - vaddr + off;
    }
    if (str_off == UINT64_MAX || str_off > n)
        return -1;
    if (strsz > n - str_off)
        strsz = n - str_off;
    int found = 0;
    for (uint64_t o = 0; dyn_entry(b, dyn_off, dyn_size, o, &tag, &val); o += 16) {
        if (tag != 1 /* DT_NEEDED */ || val >= strsz)
            continue;
        const char *name = (const char *)b + str_off + val;
        size_t maxlen = strsz - val;
        if (strnlen(name, maxlen) == maxlen)
            continue;
        if (!strcmp(name, "libcudart.so.13"))
            found = 1;
        else if (!strncmp(name, "libcudart.so", 12))
            snprintf(other, otherlen, "%s", name);
    }
    return found;
}

/* Resolve PROGRAM like execvp does (no slash: search PATH). */
static int find_program(const char *prog, char *out, size_t outlen)
{
    if (strchr(prog, '/')) {
        snprintf(out, outlen, "%s", prog);
        return access(out, X_OK) == 0 ? 0 : -1;
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        snprintf(out, outlen, "%.*s/%s", (int)n, n ? path : ".", prog);
        if (access(out, X_OK) == 0)
            return 0;
        path += n + (path[n] == ':');
    }
    return -1;
}

/* The directory holding our libcudart.so.13: $PTXEMU_LIBDIR, or lib/ next to the ptxemu
 * binary (build/ptxemu -> build/lib), or ../lib (installed: bin/ptxemu -> lib/). */
static int find_libdir(char *out, size_t outlen)
{
    const char *env = getenv("PTXEMU_LIBDIR");
    char probe[PATH_MAX + 32];
    if (env && *env) {
        snprintf(out, outlen, "%s", env);
        return 0;
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = 0;
    char *slash = strrchr(self, '/');
    if (!slash)
        return -1;
    *slash = 0;
    const char *cands[] = {"lib", "../lib"};
    for (int i = 0; i < 2; i++) {
        snprintf(probe, sizeof probe, "%s/%s/libcudart.so.13", self, cands[i]);
        if (access(probe, R_OK) == 0) {
            snprintf(probe, sizeof probe, "%s/%s", self, cands[i]);
            char *r = realpath(probe, NULL);
            if (!r)
                return -1;
            snprintf(out, outlen, "%s", r);
            free(r);
            return 0;
        }
    }
    return -1;
}

/* The sections of an executable that hold fat binaries. */
struct fatbin_sections {
    struct fatbin_elf_section s[8];
    unsigned n;
};

static int fatbin_section_cb(const struct fatbin_elf_section *s, void *arg)
{
    struct fatbin_sections *fs = arg;
    if (strcmp(s->name, ".nv_fatbin") && strcmp(s->name, "__nv_relfatbin"))
        return 0;
    if (s->type == 8 /* SHT_NOBITS */)
        return 0;
    if (fs->n < sizeof fs->s / sizeof fs->s[0])
        fs->s[fs->n++] = *s;
    return 0;
}

static int count_entry(const struct fatbin_entry *e, void *arg)
{
    (void)e;
    (void)arg;
    return 0;
}

/* List the containers of one fat binary section (or of a whole raw .fatbin file): they follow
 * each other, 8-byte aligned, with zero padding between them. 0, or 1 after printing one line
 * on the first malformed container. */
static int fatbin_list(const char *file, const char *sect, const uint8_t *b, uint64_t off,
                       uint64_t size, unsigned *found)
{
    uint64_t pos = 0;
    while (pos < size) {
        uint64_t left = size - pos;
        if (left >= 8 && !memcmp(b + off + pos, "\0\0\0\0\0\0\0\0", 8)) {
            pos += 8; /* padding */
            continue;
        }
        char err[512];
        if (fatbin_foreach(b + off + pos, (size_t)left, count_entry, NULL, err, sizeof err) <
            0) {
            fflush(stdout);
            fprintf(stderr,
                    "ptxemu: %s: malformed fat binary at file offset 0x%llx (%s +0x%llx): %s\n",
                    file, (unsigned long long)(off + pos), sect, (unsigned long long)pos, err);
            return 1;
        }
        printf("at file offset 0x%llx: ", (unsigned long long)(off + pos));
        fatbin_dump(stdout, b + off + pos, (size_t)left, NULL, 0);
        (*found)++;
        pos += (fatbin_container_size(b + off + pos, (size_t)left) + 7) & ~(uint64_t)7;
    }
    return 0;
}

/* `ptxemu fatbin PROGRAM`: the entries of every container in the program's .nv_fatbin and
 * __nv_relfatbin sections (or of a raw container file, `nvcc -fatbin`). Exit 1 when there
 * is none or one is malformed (one line on stderr saying where and which field). */
int cli_cmd_fatbin(int argc, char **argv)
{
    if (argc != 1)
        return cli_usage_error("fatbin takes one executable%s", "");
    uint8_t *b;
    size_t n;
    if (slurp(argv[0], &b, &n) < 0) {
        fprintf(stderr, "ptxemu: cannot read %s: %s\n", argv[0], strerror(errno));
        return 1;
    }
    unsigned found = 0;
    int rc = 0;
    uint32_t magic = 0;
    if (n >= 4)
        memcpy(&magic, b, 4);
    struct fatbin_sections fs = {.n = 0};
    if (magic == FATBIN_MAGIC) {
        rc = fatbin_list(argv[0], "file", b, 0, n, &found);
    } else if (fatbin_elf_sections(b, n, fatbin_section_cb, &fs) < 0) {
        fprintf(stderr, "ptxemu: %s is neither an ELF file with section headers nor a fat "
                        "binary\n", argv[0]);
        rc = 1;
    } else {
        for (unsigned i = 0; i < fs.n && !rc; i++) {
            const struct fatbin_elf_section *s = &fs.s[i];
            if (s->offset > n || s->size > n - s->offset) {
                fprintf(stderr, "ptxemu: %s: section %s (offset 0x%llx, %llu bytes) runs past "
                                "the end of the file (%zu bytes)\n",
                        argv[0], s->name, (unsigned long long)s->offset,
                        (unsigned long long)s->size, n);
                rc = 1;
                break;
            }
            rc = fatbin_list(argv[0], s->name, b, s->offset, s->size, &found);
        }
    }
    free(b);
    if (!rc && !found) {
        fprintf(stderr, "ptxemu: %s holds no fat binary\n", argv[0]);
        rc = 1;
    }
    return rc;
}

/* ======================================================================================= run */

int cli_cmd_run(int argc, char **argv)
{
    struct run_opts o = {.trace_thread = -1};
    int i = 0;
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "--")) {
            i++;
            break;
        }
        int c = cli_common_opt(&o, argc, argv, &i);
        if (c < 0)
            return EXIT_USAGE;
        if (c == 0) {
            if (argv[i][0] == '-')
                return cli_usage_error("run: unknown option '%s'", argv[i]);
            break; /* the program (without --) */
        }
    }
    if (i >= argc)
        return cli_usage_error("run needs a program: ptxemu run [OPTIONS] -- PROGRAM ARGS...%s",
                               "");
    if (!o.check && (o.error_exitcode_set || o.print_limit_set || o.log_file || o.check_report))
        return cli_usage_error(
            "--error-exitcode, --print-limit, --log-file and --check-report need "
            "--check%s",
            "");
    char path[PATH_MAX];
    if (find_program(argv[i], path, sizeof path) < 0) {
        fprintf(stderr, "ptxemu: %s: no such executable\n", argv[i]);
        return 1;
    }
    uint8_t *b;
    size_t n;
    if (slurp(path, &b, &n) == 0) {
        char other[128];
        int need = elf_needs_cudart(b, n, other, sizeof other);
        free(b);
        if (need == 0) {
            if (other[0])
                fprintf(stderr,
                        "ptxemu: %s needs %s, not libcudart.so.13: rebuild it with CUDA 13 "
                        "(nvcc -cudart shared)\n",
                        argv[i], other);
            else
                fprintf(stderr,
                        "ptxemu: %s does not load libcudart.so.13: it was linked with the static "
                        "CUDA runtime (nvcc's default), which ptxemu cannot replace; rebuild it "
                        "with `nvcc -cudart shared`\n",
                        argv[i]);
            return 1;
        }
        /* need < 0: not a 64-bit ELF (a script?): run it anyway */
    }
    char libdir[PATH_MAX];
    if (find_libdir(libdir, sizeof libdir) < 0) {
        fprintf(stderr, "ptxemu: cannot find libcudart.so.13 next to the ptxemu binary "
                        "(expected lib/ or ../lib/; set PTXEMU_LIBDIR)\n");
        return 1;
    }
    const char *old = getenv("LD_LIBRARY_PATH");
    size_t len = strlen(libdir) + (old ? strlen(old) : 0) + 2;
    char *ld = malloc(len);
    if (!ld)
        return 1;
    if (old && *old)
        snprintf(ld, len, "%s:%s", libdir, old);
    else
        snprintf(ld, len, "%s", libdir);
    setenv("LD_LIBRARY_PATH", ld, 1);
    free(ld);
    char num[32];
    if (o.device)
        setenv("PTXEMU_DEVICE", o.device, 1);
    if (o.threads_set) {
        snprintf(num, sizeof num, "%u", o.threads);
        setenv("PTXEMU_THREADS", num, 1);
    }
    if (o.stats)
        setenv("PTXEMU_STATS", "1", 1);
    if (o.deterministic)
        setenv("PTXEMU_DETERMINISTIC", "1", 1);
    if (o.trace)
        setenv("PTXEMU_TRACE", o.trace, 1);
    if (o.trace_thread_set) {
        snprintf(num, sizeof num, "%lld", (long long)o.trace_thread);
        setenv("PTXEMU_TRACE_THREAD", num, 1);
    }
    if (o.budget_set) {
        snprintf(num, sizeof num, "%llu", (unsigned long long)o.budget);
        setenv("PTXEMU_BUDGET", num, 1);
    }
    if (o.timing.on) {
        setenv("PTXEMU_TIMING", o.timing.spec ? o.timing.spec : "1", 1);
        if (o.timing.set)
            setenv("PTXEMU_TIMING_SET", o.timing.set, 1);
        if (o.timing.stats_path)
            setenv("PTXEMU_TIMING_STATS", o.timing.stats_path, 1);
        if (o.timing.strict)
            setenv("PTXEMU_TIMING_STRICT", "1", 1);
        if (o.timing.kernels)
            setenv("PTXEMU_TIMING_KERNELS", o.timing.kernels, 1);
        if (o.timing.report_dir)
            setenv("PTXEMU_TIMING_REPORT", o.timing.report_dir, 1);
    }
    if (o.check)
        setenv("PTXEMU_CHECK", o.check, 1);
    if (o.error_exitcode_set) {
        snprintf(num, sizeof num, "%llu", (unsigned long long)o.error_exitcode);
        setenv("PTXEMU_ERROR_EXITCODE", num, 1);
    }
    if (o.print_limit_set) {
        snprintf(num, sizeof num, "%llu", (unsigned long long)o.print_limit);
        setenv("PTXEMU_PRINT_LIMIT", num, 1);
    }
    if (o.log_file)
        setenv("PTXEMU_LOG_FILE", o.log_file, 1);
    if (o.check_report)
        setenv("PTXEMU_CHECK_REPORT", o.check_report, 1);
    if (o.fill)
        setenv("PTXEMU_FILL_UNINIT", o.fill, 1);
    fflush(NULL);
    execv(path, argv + i);
    fprintf(stderr, "ptxemu: cannot run %s: %s\n", path, strerror(errno));
    return 1;
}
