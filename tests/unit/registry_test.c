/*
 * tests/unit/registry_test.c — what a CUDA program registers before main and how it is found
 * and loaded (runtime/registry.c), on fat binaries built here byte by byte:
 *   - registration records carry what was registered; the program's handle is the record's
 *     handle_slot; lookups by host stub / host shadow return exactly the registered record,
 *     unknown addresses NULL; rt_is_func recognises records only (cudaKernel_t handles);
 *   - the first rt_fatbin_load resolves every kernel and variable of that fat binary by name
 *     (parameter layout, device addresses, initial values, managed host pointers pointed at
 *     the storage); a registered name missing from the PTX stays unresolved; loading again is
 *     a no-op;
 *   - a load that fails (bad wrapper, PTX that does not parse, no PTX for the device) returns
 *     its CUDA error with one message, and keeps returning it;
 *   - rt_unreg_fatbin forgets that fat binary's kernels and variables, not another's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/rt.h"
#include "tests/tap.h"

struct builder {
    uint8_t buf[4096];
    size_t n;
};

static void put(struct builder *b, size_t at, const void *p, size_t len)
{
    memcpy(b->buf + at, p, len);
}

/* A container holding one plain-text PTX entry for compute_`arch` (nvcc 13's layout). */
static void container(struct builder *b, uint32_t arch, const char *ptx)
{
    memset(b, 0, sizeof *b);
    uint32_t magic = FATBIN_MAGIC, ehs = 0x40;
    uint16_t ver = 1, hs = 16, kind = FATBIN_KIND_PTX, minor = 0, major = 9;
    uint64_t len = strlen(ptx) + 1, psz = (len + 7) & ~(uint64_t)7, flags = 0x11;
    put(b, 0, &magic, 4);
    put(b, 4, &ver, 2);
    put(b, 6, &hs, 2);
    put(b, 16, &kind, 2);
    put(b, 16 + 4, &ehs, 4);
    put(b, 16 + 8, &psz, 8);
    put(b, 16 + 0x18, &minor, 2);
    put(b, 16 + 0x1a, &major, 2);
    put(b, 16 + 0x1c, &arch, 4);
    put(b, 16 + 0x28, &flags, 8);
    put(b, 16 + ehs, ptx, len);
    b->n = 16 + ehs + psz;
    uint64_t size = b->n - 16;
    put(b, 8, &size, 8);
}

static const char ptx_ok[] = ".version 8.0\n"
                             ".target sm_80\n"
                             ".address_size 64\n"
                             ".global .align 4 .u32 counter = 7;\n"
                             ".global .align 4 .u32 managed_buf[4];\n"
                             ".const .align 4 .u32 table[4] = {1, 2, 3, 4};\n"
                             ".visible .entry k_one(.param .u64 p, .param .u32 n)\n"
                             "{\n"
                             "    ret;\n"
                             "}\n"
                             ".visible .entry k_two()\n"
                             "{\n"
                             "    ret;\n"
                             "}\n";
static const char ptx_other[] = ".version 8.0\n"
                                ".target sm_80\n"
                                ".address_size 64\n"
                                ".visible .entry k_other()\n"
                                "{\n"
                                "    ret;\n"
                                "}\n";
static const char ptx_bad[] = ".version 8.0\n"
                              ".target sm_80\n"
                              ".address_size 64\n"
                              ".visible .entry k()\n"
                              "{\n"
                              "    frob.u32 %r1;\n"
                              "}\n";

/* stderr of fn(arg), as text */
static const char *captured(int (*fn)(struct rt_ctx *, struct rt_fatbin *), struct rt_ctx *c,
                            struct rt_fatbin *fb, int *ret)
{
    static char text[4096];
    fflush(stderr);
    int saved = dup(2);
    FILE *tmp = tmpfile();
    dup2(fileno(tmp), 2);
    *ret = fn(c, fb);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t n = fread(text, 1, sizeof text - 1, tmp);
    text[n] = 0;
    fclose(tmp);
    return text;
}

/* The last line of s. */
static const char *last_line(const char *s)
{
    size_t n = strlen(s);
    if (n && s[n - 1] == '\n')
        n--;
    while (n && s[n - 1] != '\n')
        n--;
    return s + n;
}

int main(void)
{
    setenv("PTXEMU_THREADS", "1", 1);
    unsetenv("PTXEMU_DEVICE");
    unsetenv("PTXEMU_DEBUG_REG");
    static struct rt_ctx c;
    rt_ctx_init(&c);
    static char stub1, stub2, stub3, stub4, unknown; /* host stub addresses */
    static uint32_t shadow_counter, shadow_table[4];
    static void *managed_ptr;

    static struct builder b1, b2, b3, b4;
    container(&b1, 80, ptx_ok);
    container(&b2, 80, ptx_other);
    container(&b3, 80, ptx_bad);
    container(&b4, 100, ptx_other); /* newer than the emulated sm_90 device */
    struct fatbin_wrapper w1 = {FATBIN_WRAPPER_MAGIC, 1, b1.buf, NULL};
    struct fatbin_wrapper w2 = {FATBIN_WRAPPER_MAGIC, 1, b2.buf, NULL};
    struct fatbin_wrapper w3 = {FATBIN_WRAPPER_MAGIC, 1, b3.buf, NULL};
    struct fatbin_wrapper w4 = {FATBIN_WRAPPER_MAGIC, 1, b4.buf, NULL};
    struct fatbin_wrapper wbad = {0x12345678, 1, b1.buf, NULL};

    /* registration */
    struct rt_fatbin *fb = rt_reg_fatbin(&c, &w1);
    ok(fb && fb->handle_slot == fb && fb->wrapper == (const void *)&w1 && fb->state == 0,
       "fat binary record: handle slot, wrapper, not loaded");
    struct rt_func *f1 = rt_reg_func(&c, fb, &stub1, "k_one");
    struct rt_func *f2 = rt_reg_func(&c, fb, &stub2, "k_two");
    struct rt_func *f3 = rt_reg_func(&c, fb, &stub3, "k_missing");
    ok(f1 && f1->host == &stub1 && f1->fb == fb && !strcmp(f1->name, "k_one") && !f1->kernel,
       "function record: stub, fat binary, name, not resolved");
    struct rt_var *v1 = rt_reg_var(&c, fb, &shadow_counter, NULL, "counter", 4, false, false);
    struct rt_var *v2 = rt_reg_var(&c, fb, &managed_ptr, &managed_ptr, "managed_buf", 16, false,
                                   true);
    struct rt_var *v3 = rt_reg_var(&c, fb, shadow_table, NULL, "table", 16, true, false);
    ok(v1 && v1->host == &shadow_counter && v1->size == 4 && !v1->constant && !v1->managed &&
           v1->addr == 0,
       "variable record: shadow, size, kind, no address yet");
    ok(v2 && v2->managed && v2->managed_ptr == &managed_ptr && v3 && v3->constant,
       "managed and constant variable records");
    is_uint(c.reg.nfatbins, 1, "one fat binary");
    is_uint(c.reg.nfuncs, 3, "three functions");
    is_uint(c.reg.nvars, 3, "three variables");

    /* lookups */
    ok(rt_find_func(&c, &stub1) == f1 && rt_find_func(&c, &stub2) == f2 &&
           rt_find_func(&c, &stub3) == f3,
       "kernels by host stub");
    ok(rt_find_func(&c, &unknown) == NULL && rt_find_func(&c, NULL) == NULL,
       "unknown stub: NULL");
    ok(rt_find_var(&c, &shadow_counter) == v1 && rt_find_var(&c, &managed_ptr) == v2 &&
           rt_find_var(&c, shadow_table) == v3 && rt_find_var(&c, &unknown) == NULL,
       "variables by host shadow");
    ok(rt_is_func(&c, f1) && rt_is_func(&c, f3) && !rt_is_func(&c, &stub1) &&
           !rt_is_func(&c, v1),
       "rt_is_func: records only");

    /* loading resolves by name */
    is_int(rt_fatbin_load(&c, fb), RT_OK, "load");
    is_int(fb->state, 1, "loaded");
    ok(f1->kernel && f2->kernel && !f3->kernel, "k_one, k_two resolved; k_missing not");
    is_uint(f1->info.nparams, 2, "k_one: two parameters");
    is_uint(f1->info.param_size_total, 12, "k_one: 12-byte parameter block");
    ok(f1->info.nparams == 2 && f1->info.param_offset[1] == 8 && f1->info.param_size[1] == 4,
       "k_one: n at offset 8, 4 bytes");
    is_uint(f2->info.nparams, 0, "k_two: no parameters");
    struct mem *m = interp_dev_mem(c.idev);
    uint32_t got = 0, tab[4] = {0};
    ok(v1->addr && mem_read(m, &got, v1->addr, 4) == 0 && got == 7, "counter: address, = 7");
    ok(v3->addr && mem_read(m, tab, v3->addr, 16) == 0 && tab[0] == 1 && tab[3] == 4,
       "table: address, {1, 2, 3, 4}");
    ok(v2->addr && managed_ptr == (void *)(uintptr_t)v2->addr,
       "managed host pointer points at the storage");
    uint64_t a1 = v1->addr;
    const struct interp_kernel *k1 = f1->kernel;
    is_int(rt_fatbin_load(&c, fb), RT_OK, "loading again");
    ok(v1->addr == a1 && f1->kernel == k1, "... changes nothing");

    /* failed loads: the error, one message, and the same error again */
    int r;
    struct rt_fatbin *fbad = rt_reg_fatbin(&c, &wbad);
    const char *msg = captured(rt_fatbin_load, &c, fbad, &r);
    char want[128];
    snprintf(want, sizeof want, "ptxemu: bad fat binary wrapper at %p\n", (void *)&wbad);
    is_int(r, RT_ERR_INVALID_SOURCE, "bad wrapper: cudaErrorInvalidSource");
    is_str(msg, want, "bad wrapper: message");
    msg = captured(rt_fatbin_load, &c, fbad, &r);
    ok(r == RT_ERR_INVALID_SOURCE && fbad->state == -1 && !msg[0],
       "bad wrapper: same error again, no second message");
    struct rt_fatbin *f3b = rt_reg_fatbin(&c, &w3);
    msg = captured(rt_fatbin_load, &c, f3b, &r);
    is_int(r, RT_ERR_INVALID_PTX, "PTX that does not parse: cudaErrorInvalidPtx");
    snprintf(want, sizeof want, "ptxemu: the program's PTX (%s.compute_80.ptx) did not load\n",
             program_invocation_short_name);
    is_str(last_line(msg), want, "... and says so last");
    ok(strstr(msg, "frob") != NULL, "... after the front end's diagnostic");
    struct rt_fatbin *f4b = rt_reg_fatbin(&c, &w4);
    msg = captured(rt_fatbin_load, &c, f4b, &r);
    is_int(r, RT_ERR_NO_KERNEL_IMAGE, "only PTX newer than the device: no kernel image");
    ok(strstr(msg, "compute_100") != NULL, "... naming the PTX target");

    /* unregistering one fat binary leaves the others' records */
    struct rt_fatbin *fb2 = rt_reg_fatbin(&c, &w2);
    struct rt_func *f4 = rt_reg_func(&c, fb2, &stub4, "k_other");
    rt_unreg_fatbin(&c, fb);
    ok(rt_find_func(&c, &stub1) == NULL && rt_find_func(&c, &stub3) == NULL &&
           rt_find_var(&c, &shadow_counter) == NULL && rt_find_var(&c, &managed_ptr) == NULL,
       "unregistered: its kernels and variables are gone");
    ok(rt_find_func(&c, &stub4) == f4 && rt_is_func(&c, f4), "another fat binary's kernel stays");
    is_uint(c.reg.nfuncs, 1, "one function left");
    is_uint(c.reg.nvars, 0, "no variable left");
    is_uint(c.reg.nfatbins, 4, "four fat binaries left");
    is_int(rt_fatbin_load(&c, fb2), RT_OK, "the other one loads");
    ok(f4->kernel != NULL, "k_other resolved");
    rt_ctx_fini(&c);
    return done_testing();
}
