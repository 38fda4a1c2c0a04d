/*
 * printf_test.c - unit tests of interp/printf.c: every conversion of CUDA device printf over an
 * nvcc-style argument buffer, checked against the host snprintf with the same values (the
 * GPU's output is formatted by the host C library too) plus literal expected strings; the
 * mismatch, argument-limit and error rules; and the per-launch FIFO (ordering, overflow,
 * concurrent appends).
 */
#include <errno.h>
#include <pthread.h>

#include "interp/printf.h"
#include "tests/tap.h"

/* ---- an argument buffer laid out as nvcc does: each value at its natural alignment */
struct argbuf {
    _Alignas(8) uint8_t b[512];
    size_t n;
};

static void put(struct argbuf *a, const void *v, size_t size)
{
    a->n = (a->n + size - 1) & ~(size - 1);
    memcpy(a->b + a->n, v, size);
    a->n += size;
}
static void put4(struct argbuf *a, uint32_t v)
{
    put(a, &v, 4);
}
static void put8(struct argbuf *a, uint64_t v)
{
    put(a, &v, 8);
}
static void putd(struct argbuf *a, double d)
{
    put(a, &d, 8);
}

/* ---- fake device memory for %s: a few strings at fixed device addresses */
struct devstr {
    uint64_t addr;
    const char *s;
};
static const struct devstr dev_strings[] = {
    {0x10000, "ptxemu"},
    {0x20000, "hello, world"},
    {0x30000, ""},
};

static int read_dev_str(void *ctx, uint64_t addr, char *buf, size_t cap)
{
    int *calls = ctx;
    (*calls)++;
    for (size_t i = 0; i < sizeof dev_strings / sizeof dev_strings[0]; i++) {
        if (dev_strings[i].addr != addr)
            continue;
        size_t n = strlen(dev_strings[i].s);
        size_t k = n < cap - 1 ? n : cap - 1;
        memcpy(buf, dev_strings[i].s, k);
        buf[k] = 0;
        return (int)n;
    }
    return -1;
}
#define S_PTXEMU UINT64_C(0x10000)
#define S_HELLO  UINT64_C(0x20000)
#define S_EMPTY  UINT64_C(0x30000)

static int str_calls;

static char got[4096];
static int fmt_dev(const char *fmt, const struct argbuf *a)
{
    return dev_printf_format(fmt, a->b, a->n, read_dev_str, &str_calls, got, sizeof got);
}

/*
 * CASE(fmt, PACK, host args...): pack the device buffer with PACK (statements on `a`), format
 * it, and compare with snprintf(fmt, host args...) — the same values with their C types.
 */
#define CASE(fmt, PACK, ...)                                                 \
    do {                                                                     \
        struct argbuf a = {.n = 0};                                          \
        PACK;                                                                \
        char exp_[1024];                                                     \
        int en_ = snprintf(exp_, sizeof exp_, fmt, __VA_ARGS__);             \
        int gn_ = fmt_dev(fmt, &a);                                          \
        is_str(got, exp_, "%s", "format \"" fmt "\" matches host snprintf"); \
        if (gn_ != en_)                                                      \
            diag("length %d, host %d", gn_, en_);                            \
    } while (0)

/* Literal expectation. */
#define LIT(fmt, PACK, expect)                                                \
    do {                                                                      \
        struct argbuf a = {.n = 0};                                           \
        PACK;                                                                 \
        int gn_ = fmt_dev(fmt, &a);                                           \
        is_str(got, expect, "%s", "format \"" fmt "\" gives \"" expect "\""); \
        if (gn_ != (int)strlen(expect))                                       \
            diag("length %d, expected %zu", gn_, strlen(expect));             \
    } while (0)

static void test_integers(void)
{
    CASE("%d %i %d", (put4(&a, 42), put4(&a, (uint32_t)-7), put4(&a, (uint32_t)INT32_MIN)), 42, -7,
         INT32_MIN);
    CASE("%u %u", (put4(&a, 4000000000u), put4(&a, 0)), 4000000000u, 0u);
    CASE("%x %X %o %#x %#o",
         (put4(&a, 0xbeef), put4(&a, 0xbeef), put4(&a, 8), put4(&a, 255), put4(&a, 8)), 0xbeefu,
         0xbeefu, 8u, 255u, 8u);
    CASE("[%5d] [%-5d] [%05d] [%+d] [% d] [%.3d] [%8.3d] [%-+6d]",
         (put4(&a, 7), put4(&a, 7), put4(&a, (uint32_t)-42), put4(&a, 5), put4(&a, 5), put4(&a, 9),
          put4(&a, (uint32_t)-9), put4(&a, 3)),
         7, 7, -42, 5, 5, 9, -9, 3);
    CASE("%lld %llu %llx",
         (put8(&a, (uint64_t)-1234567890123LL), put8(&a, UINT64_MAX),
          put8(&a, 0x123456789abcdefULL)),
         -1234567890123LL, 18446744073709551615ULL, 0x123456789abcdefULL);
    CASE("%ld %lu %lX", (put8(&a, (uint64_t)-5L), put8(&a, 1UL << 40), put8(&a, 0xabcdef012345UL)),
         -5L, 1UL << 40, 0xabcdef012345UL);
    CASE("%zu %zd %td %jd %ju",
         (put8(&a, 123456789012ULL), put8(&a, (uint64_t)-3), put8(&a, 77),
          put8(&a, (uint64_t)INT64_MIN), put8(&a, UINT64_MAX)),
         (size_t)123456789012ULL, (ssize_t)-3, (ptrdiff_t)77, (intmax_t)INT64_MIN,
         (uintmax_t)UINT64_MAX);
    /* hh and h take a 4-byte int (the default promotion) and print it converted (the host side
     * passes the converted value, which is what printf prints) */
    CASE("%hhd %hhu %hd %hu %hx",
         (put4(&a, 300), put4(&a, (uint32_t)-1), put4(&a, 70000), put4(&a, (uint32_t)-1),
          put4(&a, 0x12345)),
         (signed char)300, (unsigned char)-1, (short)70000, (unsigned short)-1,
         (unsigned short)0x12345u);
    LIT("%hhd|%hx|%hd", (put4(&a, 300), put4(&a, 0x12345), put4(&a, 70000)), "44|2345|4464");
    LIT("int %d neg %d unsigned %u hex %x\n",
        (put4(&a, 42), put4(&a, (uint32_t)-42), put4(&a, 4000000000u), put4(&a, 0xbeef)),
        "int 42 neg -42 unsigned 4000000000 hex beef\n");
    LIT("long %lld ulong %llu\n", (put8(&a, (uint64_t)-1234567890123LL), put8(&a, UINT64_MAX)),
        "long -1234567890123 ulong 18446744073709551615\n");
    /* 4-byte and 8-byte arguments interleaved: alignment padding as nvcc lays it out */
    LIT("%d %lld %d %lld", (put4(&a, 1), put8(&a, 2), put4(&a, 3), put8(&a, 4)), "1 2 3 4");
}

static void test_floats(void)
{
    CASE("%f %.3f %e %g",
         (putd(&a, 3.25), putd(&a, 6.5), putd(&a, 0.00000095367431640625), putd(&a, 0.375)), 3.25,
         6.5, 0.00000095367431640625, 0.375);
    CASE("%F %E %G %G %g",
         (putd(&a, 1e300), putd(&a, -2.5e-7), putd(&a, 1e-10), putd(&a, 123456789.0),
          putd(&a, 100000.0)),
         1e300, -2.5e-7, 1e-10, 123456789.0, 100000.0);
    CASE("%a %A %.2a", (putd(&a, 1.0), putd(&a, -0.1), putd(&a, 3.14159)), 1.0, -0.1, 3.14159);
    CASE("[%10.4f] [%-10.2e] [%+f] [% f] [%010.3f] [%#.0f] [%#g] [%.0e]",
         (putd(&a, 3.14159265), putd(&a, 2.5), putd(&a, 1.5), putd(&a, 1.5), putd(&a, -2.25),
          putd(&a, 3.0), putd(&a, 2.0), putd(&a, 12345.0)),
         3.14159265, 2.5, 1.5, 1.5, -2.25, 3.0, 2.0, 12345.0);
    CASE("%f %f %f %e",
         (putd(&a, 1.0 / 0.0), putd(&a, -1.0 / 0.0), putd(&a, 0.0 / 0.0), putd(&a, -0.0)),
         1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0, -0.0);
    CASE("%lf %Lf", (putd(&a, 0.5), putd(&a, 0.25)), 0.5, (long double)0.25);
    LIT("double %.10f\n", putd(&a, 1.0 / 3.0), "double 0.3333333333\n");
    LIT("width [%5d] [%-5d] [%05.1f]\n", (put4(&a, 7), put4(&a, 7), putd(&a, (double)2.3f)),
        "width [    7] [7    ] [002.3]\n");
    LIT("float %f %.3f %e %g\n",
        (putd(&a, 3.25), putd(&a, 6.5), putd(&a, (double)0.00000095367431640625f), putd(&a, 0.375)),
        "float 3.250000 6.500 9.536743e-07 0.375\n");
}

static void test_chars_strings_pointers(void)
{
    CASE("[%c] [%3c] [%-3c]", (put4(&a, 'Z'), put4(&a, 'a'), put4(&a, 'b')), 'Z', 'a', 'b');
    LIT("string %s char %c percent %%\n", (put8(&a, S_PTXEMU), put4(&a, 'Z')),
        "string ptxemu char Z percent %\n");
    CASE("[%s] [%10s] [%-10s] [%.3s] [%8.2s] [%-8.5s] [%s]",
         (put8(&a, S_PTXEMU), put8(&a, S_PTXEMU), put8(&a, S_PTXEMU), put8(&a, S_HELLO),
          put8(&a, S_HELLO), put8(&a, S_HELLO), put8(&a, S_EMPTY)),
         "ptxemu", "ptxemu", "ptxemu", "hello, world", "hello, world", "hello, world", "");
    LIT("[%s] [%.3s] [%8s] [%-7.6s]", (put8(&a, 0), put8(&a, 0), put8(&a, 0), put8(&a, 0)),
        "[(null)] [] [  (null)] [(null) ]");
    CASE("[%p] [%20p] [%-20p]", (put8(&a, 0x7f0012345678ULL), put8(&a, 0x1000), put8(&a, 0xabc)),
         (void *)0x7f0012345678ULL, (void *)0x1000, (void *)0xabc);
    CASE("[%p]", put8(&a, 0), (void *)0);
    LIT("100%% done %%d", (void)0, "100% done %d");

    struct argbuf a = {.n = 0};
    put8(&a, 0xdead0000);
    is_int(fmt_dev("%s", &a), -EFAULT, "%%s of an unreadable address is -EFAULT");
    is_int(dev_printf_format("%s", a.b, a.n, NULL, NULL, got, sizeof got), -EFAULT,
           "%%s without a reader is -EFAULT");
}

static void test_star_and_layout(void)
{
    /* the exact buffer nvcc builds for printf("%*d|%hhd|%hd|%ld|%f|%p|%s\n", w, 5, c, s, l, f,
     * p, str): st.local.v4.u32 [0] {w,5,c,s}; st.local.v2.u64 [16] {l, f}; [32] {p, str} */
    struct argbuf a = {.n = 0};
    uint32_t v4[4] = {6, 5, (uint32_t)-3, 1234};
    memcpy(a.b, v4, 16);
    uint64_t l = (uint64_t)-99;
    double f = 0.5;
    uint64_t p = 0x1234, s = S_PTXEMU;
    memcpy(a.b + 16, &l, 8);
    memcpy(a.b + 24, &f, 8);
    memcpy(a.b + 32, &p, 8);
    memcpy(a.b + 40, &s, 8);
    a.n = 48;
    fmt_dev("%*d|%hhd|%hd|%ld|%f|%p|%s\n", &a);
    is_str(got, "     5|-3|1234|-99|0.500000|0x1234|ptxemu\n", "nvcc buffer layout with %%*d");

    CASE("[%*d] [%-*d] [%.*f] [%*.*e]",
         (put4(&a, 6), put4(&a, 42), put4(&a, 4), put4(&a, 9), put4(&a, 2), putd(&a, 3.14159),
          put4(&a, 12), put4(&a, 3), putd(&a, 1234.5)),
         6, 42, 4, 9, 2, 3.14159, 12, 3, 1234.5);
    LIT("[%*d] [%.*f]",
        (put4(&a, (uint32_t)-4), put4(&a, 1), put4(&a, (uint32_t)-1), putd(&a, 0.5)),
        "[1   ] [0.500000]");
}

static void test_rules(void)
{
    /* mismatched format: %d of a double reads its low word, then the next 4 bytes */
    LIT("%d %d %d", (putd(&a, 1.5), put4(&a, 7)), "0 1073217536 7");
    /* %f of an int: takes 8 bytes at the next 8-aligned offset */
    LIT("%f|%d", (put4(&a, 1), put4(&a, 2), put4(&a, 3)), "0.000000|3");
    /* missing arguments print as-is; no arguments at all (args = NULL, as nvcc passes 0) */
    LIT("%d and %d and %s", put4(&a, 5), "5 and %d and %s");
    is_int(dev_printf_format("noargs %d %%\n", NULL, 0, NULL, NULL, got, sizeof got), 12,
           "NULL args: length");
    is_str(got, "noargs %d %\n", "NULL args: conversions print as-is");
    /* 32 arguments at most: the 33rd conversion prints as-is */
    {
        struct argbuf a = {.n = 0};
        char fmt[200] = "", exp[200] = "";
        for (int i = 0; i < 33; i++) {
            put4(&a, (uint32_t)i);
            strcat(fmt, "%d ");
            if (i < 32)
                sprintf(exp + strlen(exp), "%d ", i);
        }
        strcat(exp, "%d ");
        fmt_dev(fmt, &a);
        is_str(got, exp, "33rd argument is not taken");
    }
    LIT("[%k] [%n] [%5q] 50%", put4(&a, 1), "[%k] [%n] [%5q] 50%");
    LIT("%d%", put4(&a, 9), "9%");
    {
        /* absurd widths are clamped (1 MiB), not looped over or overflowed */
        struct argbuf a = {.n = 0};
        put4(&a, 5);
        char tiny[4];
        int n =
            dev_printf_format("%99999999999999999999d|", a.b, a.n, NULL, NULL, tiny, sizeof tiny);
        is_int(n, (1 << 20) + 1, "huge width clamped to 1 MiB");
        is_str(tiny, "   ", "huge width: padding prefix");
        n = dev_printf_format("%.99999999999999999999d", a.b, a.n, NULL, NULL, tiny, sizeof tiny);
        is_int(n, 1 << 20, "huge precision clamped to 1 MiB");
    }

    is_int(dev_printf_nargs("a %d %% %*.*f %s %lld %k\n"), 6, "nargs counts values and stars");
    is_int(dev_printf_nargs("no args %%\n"), 0, "nargs: none");
    is_int(dev_printf_nargs(NULL), -1, "nargs: NULL format is -1");
    {
        char many[120] = "";
        for (int i = 0; i < 40; i++)
            strcat(many, "%c");
        is_int(dev_printf_nargs(many), 32, "nargs is capped at 32");
    }
    is_int(dev_printf_format(NULL, NULL, 0, NULL, NULL, got, sizeof got), -EINVAL, "NULL format");
    is_int(dev_printf_format("%d", NULL, 4, NULL, NULL, got, sizeof got), -EINVAL,
           "NULL args with a length");

    /* truncation: snprintf-style return, NUL-terminated prefix */
    struct argbuf a = {.n = 0};
    put4(&a, 123456);
    put8(&a, S_HELLO);
    char small[8];
    int n = dev_printf_format("%d %s", a.b, a.n, read_dev_str, &str_calls, small, sizeof small);
    is_int(n, 19, "truncated: full length returned");
    is_str(small, "123456 ", "truncated: prefix kept");
    uint64_t px = S_PTXEMU;
    n = dev_printf_format("%10s|", (const uint8_t *)&px, 8, read_dev_str, &str_calls, small, 6);
    is_int(n, 11, "right-justified string past the end: full length");
    is_str(small, "    p", "right-justified string past the end: padding, then what fits");
    n = dev_printf_format("ab%4s", a.b + 8, 8, read_dev_str, &str_calls, small, sizeof small);
    is_str(small, "abhello", "string longer than the room left");
    is_int(dev_printf_format("xyz", NULL, 0, NULL, NULL, NULL, 0), 3, "cap 0 measures only");
}

/* ---- robustness: random formats over random buffers never crash and keep the invariants */
static void test_random_formats(void)
{
    static const char alpha[] = "%%%%-+ #0*.19hljztLdiouxXcspfFeEgGaAkn|";
    uint64_t seed = 0x1234567;
    int bad = 0;
    for (int it = 0; it < 20000; it++) {
        char fmt[24];
        uint8_t buf[64];
        size_t fl = 1 + seed % 20;
        for (size_t i = 0; i < fl; i++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            fmt[i] = alpha[(seed >> 33) % (sizeof alpha - 1)];
        }
        fmt[fl] = 0;
        for (size_t i = 0; i < sizeof buf; i++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            buf[i] = (uint8_t)(seed >> 56);
        }
        /* small widths only: clear the top bytes of every 4-byte word used by `*` */
        for (size_t i = 0; i < sizeof buf; i += 4)
            buf[i + 1] = buf[i + 2] = buf[i + 3] = 0;
        char out[32];
        size_t cap = 1 + (seed >> 20) % sizeof out;
        int n = dev_printf_format(fmt, buf, (seed >> 40) % (sizeof buf + 1), read_dev_str,
                                  &str_calls, out, cap);
        if (n == -EFAULT)
            continue;
        if (n < 0 || out[(size_t)n < cap ? (size_t)n : cap - 1] != 0)
            bad++;
    }
    is_int(bad, 0, "20000 random formats: no error but -EFAULT, output NUL-terminated");
}

/* ---- FIFO */
static char *flush_to_string(struct dev_printf_buf *b, bool ordered, long *rc)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    *rc = dev_printf_buf_flush(b, f, ordered);
    fclose(f);
    return s;
}

struct appender {
    struct dev_printf_buf *b;
    uint64_t cta;
    int errors;
};

static void *append_many(void *arg)
{
    struct appender *ap = arg;
    for (uint32_t w = 0; w < 4; w++)
        for (uint64_t i = 0; i < 250; i++) {
            char line[64];
            int n = snprintf(line, sizeof line, "cta %llu warp %u line %llu\n",
                             (unsigned long long)ap->cta, w, (unsigned long long)i);
            /* append in reverse order so only the sort restores it */
            ap->errors +=
                dev_printf_buf_append(ap->b, ap->cta, 3 - w, 999 - i, line, (size_t)n) != 0;
        }
    return NULL;
}

static void test_fifo(void)
{
    struct dev_printf_buf *b = NULL;
    is_int(dev_printf_buf_create(256, &b), 0, "create a 256-byte FIFO");
    dev_printf_buf_append(b, 1, 0, 0, "D\n", 2);
    dev_printf_buf_append(b, 0, 1, 0, "C\n", 2);
    dev_printf_buf_append(b, 0, 0, 2, "B\n", 2);
    dev_printf_buf_append(b, 0, 0, 1, "A\n", 2);
    long rc = 0;
    char *s = flush_to_string(b, true, &rc);
    is_str(s, "A\nB\nC\nD\n", "ordered flush sorts by (cta, warp, seq)");
    is_int(rc, 8, "flush returns bytes written");
    free(s);
    dev_printf_buf_append(b, 1, 0, 0, "x", 1);
    dev_printf_buf_append(b, 0, 0, 0, "y", 1);
    s = flush_to_string(b, false, &rc);
    is_str(s, "xy", "unordered flush keeps arrival order");
    free(s);
    s = flush_to_string(b, true, &rc);
    is_str(s, "", "flush empties the FIFO");
    free(s);

    /* each 40-byte record costs 24 + 40 = 64 bytes: the fifth does not fit 256 bytes */
    char text[41];
    int drops = 0;
    for (int i = 0; i < 5; i++) {
        memset(text, 'a' + i, 40);
        text[39] = '\n';
        drops += dev_printf_buf_append(b, 0, 0, (uint64_t)i, text, 40) == 1;
    }
    is_int(drops, 1, "a record that does not fit is dropped");
    is_uint(dev_printf_buf_dropped(b), 1, "dropped count");
    is_int(dev_printf_buf_append(b, 0, 0, 9, "ok\n", 3), 1, "full FIFO drops even small records");
    s = flush_to_string(b, true, &rc);
    is_int(rc, 160, "four records written");
    ok(s && s[0] == 'a' && s[40] == 'b' && s[120] == 'd', "the first four records survive");
    free(s);
    is_uint(dev_printf_buf_dropped(b), 0, "flush resets the dropped count");
    is_int(dev_printf_buf_append(b, 0, 0, 0, "", 0), 0, "empty text is accepted");
    is_int(dev_printf_buf_append(b, 0, 0, 0, NULL, 3), -EINVAL, "NULL text rejected");
    dev_printf_buf_destroy(b);

    /* printf into the FIFO, including an output longer than the 512-byte fast path */
    is_int(dev_printf_buf_create(0, &b), 0, "create default-size FIFO");
    struct argbuf a = {.n = 0};
    put4(&a, 600);
    put4(&a, 7);
    is_int(dev_printf_buf_printf(b, 0, 0, 0, "[%*d]\n", a.b, a.n, NULL, NULL), 0, "long printf");
    a.n = 0;
    put8(&a, 0xbad);
    is_int(dev_printf_buf_printf(b, 0, 0, 1, "%s", a.b, a.n, read_dev_str, &str_calls), -EFAULT,
           "a failed format appends nothing");
    s = flush_to_string(b, true, &rc);
    ok(s && strlen(s) == 603 && s[1] == ' ' && s[600] == '7' && s[601] == ']', "600-wide field");
    free(s);

    /* two threads append concurrently; the ordered flush is exact */
    struct appender ap[2] = {{b, 1, 0}, {b, 0, 0}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, append_many, &ap[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    is_int(ap[0].errors + ap[1].errors, 0, "2000 concurrent appends");
    s = flush_to_string(b, true, &rc);
    char *expect = malloc(1 << 17);
    size_t k = 0;
    for (uint64_t c = 0; c < 2; c++)
        for (int w = 3; w >= 0; w--)
            for (int i = 249; i >= 0; i--)
                k += (size_t)sprintf(expect + k, "cta %llu warp %d line %d\n",
                                     (unsigned long long)c, w, i);
    ok(s && strcmp(s, expect) == 0, "concurrent appends flush in (cta, warp, seq) order");
    free(expect);
    free(s);
    dev_printf_buf_destroy(b);
}

int main(void)
{
    test_integers();
    test_floats();
    test_chars_strings_pointers();
    test_star_and_layout();
    test_rules();
    test_random_formats();
    test_fifo();
    ok(str_calls > 0, "device strings were read through the callback");
    return done_testing();
}
