/*
 * interp/printf.c — CUDA device printf: the format walker over nvcc's argument buffer and the
 * per-launch output FIFO. See interp/printf.h for the semantics.
 */
#include "interp/printf.h"

#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Widths and precisions are clamped here: nothing longer fits a printf FIFO anyway. */
#define DEV_PRINTF_MAX_FIELD (1 << 20)

/* The host format strings below are built at run time, by design. */
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif

/* ================================================================ output accumulator */

struct pf_out {
    char *buf;
    size_t cap; /* bytes of buf (room for the final NUL included) */
    size_t len; /* length of the full output so far (may exceed cap) */
};

static void pf_emit(struct pf_out *o, const char *s, size_t n)
{
    if (o->len < o->cap) {
        size_t room = o->cap - 1 - o->len; /* keep the NUL slot */
        memcpy(o->buf + o->len, s, n < room ? n : room);
    }
    o->len += n;
}

static void pf_pad(struct pf_out *o, char c, size_t n)
{
    if (o->len < o->cap) {
        size_t room = o->cap - 1 - o->len;
        memset(o->buf + o->len, c, n < room ? n : room);
    }
    o->len += n;
}

/* Where a host snprintf may write: the free tail of buf, or nothing. */
static char *pf_tail(const struct pf_out *o, size_t *room)
{
    if (o->len + 1 < o->cap) {
        *room = o->cap - o->len;
        return o->buf + o->len;
    }
    *room = 0;
    return NULL;
}

/* ================================================================ argument cursor */

struct pf_args {
    const uint8_t *p;
    size_t len, off;
    unsigned taken;
};

/* Take the next argument of size bytes (4 or 8) at its natural alignment. false when the
 * argument limit is reached or the buffer ends first. */
static bool pf_take(struct pf_args *a, size_t size, uint64_t *v)
{
    if (a->taken >= DEV_PRINTF_MAX_ARGS)
        return false;
    size_t off = (a->off + size - 1) & ~(size - 1);
    if (off > a->len || size > a->len - off)
        return false;
    if (size == 4) {
        uint32_t x;
        memcpy(&x, a->p + off, 4);
        *v = x;
    } else {
        memcpy(v, a->p + off, 8);
    }
    a->off = off + size;
    a->taken++;
    return true;
}

/* ================================================================ one conversion */

struct pf_spec {
    bool minus, plus, space, hash, zero;
    int width;  /* -1: none */
    int prec;   /* -1: none */
    int lenmod; /* 0 none, 'H' hh, 'h', 'l' (any 8-byte integer modifier), 'L' */
    char conv;
};

static int pf_clamp(long long v)
{
    return v > DEV_PRINTF_MAX_FIELD ? DEV_PRINTF_MAX_FIELD : (int)v;
}

/* The host format for spec: "%" flags width .prec length conv. */
static void pf_host_format(const struct pf_spec *s, bool with_prec, const char *len, char *f)
{
    char *q = f;
    *q++ = '%';
    if (s->minus)
        *q++ = '-';
    if (s->plus)
        *q++ = '+';
    if (s->space)
        *q++ = ' ';
    if (s->hash)
        *q++ = '#';
    if (s->zero)
        *q++ = '0';
    if (s->width >= 0)
        q += sprintf(q, "%d", s->width);
    if (with_prec && s->prec >= 0)
        q += sprintf(q, ".%d", s->prec);
    while (*len)
        *q++ = *len++;
    *q++ = s->conv;
    *q = 0;
}

/* %s: the device string is read straight into the output, then padded to the width. */
static int pf_string(struct pf_out *o, const struct pf_spec *s, uint64_t addr,
                     dev_printf_read_str read_str, void *ctx)
{
    size_t n;
    size_t start = o->len;
    if (addr == 0) {
        const char *nul = (s->prec >= 0 && s->prec < 6) ? "" : "(null)";
        n = strlen(nul);
        pf_emit(o, nul, n);
    } else {
        if (!read_str)
            return -EFAULT;
        size_t room = 0;
        char *dst = pf_tail(o, &room);
        char scratch[1];
        if (!dst) {
            dst = scratch;
            room = 1;
        }
        if (s->prec >= 0 && (size_t)s->prec + 1 < room)
            room = (size_t)s->prec + 1;
        int full = read_str(ctx, addr, dst, room);
        if (full < 0)
            return -EFAULT;
        n = (size_t)full;
        if (s->prec >= 0 && n > (size_t)s->prec)
            n = (size_t)s->prec;
        o->len += n;
    }
    if (s->width >= 0 && (size_t)s->width > n) {
        size_t pad = (size_t)s->width - n;
        if (s->minus) {
            pf_pad(o, ' ', pad);
        } else {
            /* shift the string right by pad inside what fits, then fill the gap */
            if (start + 1 < o->cap) {
                size_t limit = o->cap - 1; /* last storable index + 1 */
                size_t keep = n;
                if (start + pad + keep > limit)
                    keep = start + pad < limit ? limit - (start + pad) : 0;
                if (keep)
                    memmove(o->buf + start + pad, o->buf + start, keep);
                size_t fill = start + pad <= limit ? pad : limit - start;
                memset(o->buf + start, ' ', fill);
            }
            o->len += pad;
        }
    }
    return 0;
}

/* Format one numeric/char/pointer conversion with the host snprintf. */
static void pf_number(struct pf_out *o, const struct pf_spec *s, uint64_t v, size_t size)
{
    char f[64];
    size_t room = 0;
    char *dst = pf_tail(o, &room);
    int n = 0;
    switch (s->conv) {
    case 'd':
    case 'i':
    case 'o':
    case 'u':
    case 'x':
    case 'X': {
        bool sgn = s->conv == 'd' || s->conv == 'i';
        if (size == 8) {
            pf_host_format(s, true, "ll", f);
            n = sgn ? snprintf(dst, room, f, (long long)v)
                    : snprintf(dst, room, f, (unsigned long long)v);
        } else {
            pf_host_format(s, true, s->lenmod == 'H' ? "hh" : s->lenmod == 'h' ? "h" : "", f);
            n = sgn ? snprintf(dst, room, f, (int)(uint32_t)v)
                    : snprintf(dst, room, f, (unsigned)v);
        }
        break;
    }
    case 'c':
        pf_host_format(s, false, "", f);
        n = snprintf(dst, room, f, (int)(uint32_t)v);
        break;
    case 'p': {
        struct pf_spec t = *s;
        t.hash = false;
        pf_host_format(&t, false, "", f);
        n = snprintf(dst, room, f, (void *)(uintptr_t)v);
        break;
    }
    default: { /* f F e E g G a A */
        double d;
        memcpy(&d, &v, sizeof d);
        pf_host_format(s, true, "", f);
        n = snprintf(dst, room, f, d);
        break;
    }
    }
    if (n > 0)
        o->len += (size_t)n;
}

static bool pf_is_conv(char c)
{
    return c && strchr("diouxXcspfFeEgGaA", c) != NULL;
}

/* ================================================================ the walker */

/* Format a device printf; see printf.h for the exact semantics. */
int dev_printf_format(const char *fmt, const uint8_t *args, size_t args_len,
                      dev_printf_read_str read_str, void *ctx, char *out, size_t cap)
{
    if (!fmt || (!args && args_len > 0) || (!out && cap > 0))
        return -EINVAL;
    struct pf_out o = {out, cap, 0};
    struct pf_args a = {args, args_len, 0, 0};
    const char *p = fmt;

    while (*p) {
        if (*p != '%') {
            const char *q = strchr(p, '%');
            size_t n = q ? (size_t)(q - p) : strlen(p);
            pf_emit(&o, p, n);
            p += n;
            continue;
        }
        const char *start = p++;
        if (*p == '%') {
            pf_emit(&o, "%", 1);
            p++;
            continue;
        }
        struct pf_spec s = {.width = -1, .prec = -1};
        bool star_w = false, star_p = false;
        for (;; p++) {
            if (*p == '-')
                s.minus = true;
            else if (*p == '+')
                s.plus = true;
            else if (*p == ' ')
                s.space = true;
            else if (*p == '#')
                s.hash = true;
            else if (*p == '0')
                s.zero = true;
            else
                break;
        }
        if (*p == '*') {
            star_w = true;
            p++;
        } else if (*p >= '0' && *p <= '9') {
            long long w = 0;
            for (; *p >= '0' && *p <= '9'; p++)
                if (w <= DEV_PRINTF_MAX_FIELD)
                    w = w * 10 + (*p - '0');
            s.width = pf_clamp(w);
        }
        if (*p == '.') {
            p++;
            if (*p == '*') {
                star_p = true;
                p++;
            } else {
                long long pr = 0;
                for (; *p >= '0' && *p <= '9'; p++)
                    if (pr <= DEV_PRINTF_MAX_FIELD)
                        pr = pr * 10 + (*p - '0');
                s.prec = pf_clamp(pr);
            }
        }
        if (p[0] == 'h' && p[1] == 'h') {
            s.lenmod = 'H';
            p += 2;
        } else if (p[0] == 'l' && p[1] == 'l') {
            s.lenmod = 'l';
            p += 2;
        } else if (*p == 'h') {
            s.lenmod = 'h';
            p++;
        } else if (*p == 'l' || *p == 'j' || *p == 'z' || *p == 't') {
            s.lenmod = 'l';
            p++;
        } else if (*p == 'L') {
            s.lenmod = 'L';
            p++;
        }
        s.conv = *p;
        if (!pf_is_conv(s.conv)) {
            /* unknown conversion or the format ended: print the text as it stands */
            if (*p)
                p++;
            pf_emit(&o, start, (size_t)(p - start));
            continue;
        }
        p++;

        /* take the arguments: `*` fields first, then the value */
        struct pf_args save = a;
        uint64_t v = 0;
        bool have = true;
        if (star_w) {
            have = pf_take(&a, 4, &v);
            if (have) {
                long long w = (int32_t)(uint32_t)v;
                if (w < 0) {
                    s.minus = true;
                    w = -w;
                }
                s.width = pf_clamp(w);
            }
        }
        if (have && star_p) {
            have = pf_take(&a, 4, &v);
            if (have) {
                int32_t pr = (int32_t)(uint32_t)v;
                s.prec = pr < 0 ? -1 : pf_clamp(pr);
            }
        }
        size_t size = 8;
        if (strchr("diouxX", s.conv))
            size = s.lenmod == 'l' ? 8 : 4;
        else if (s.conv == 'c')
            size = 4;
        if (have)
            have = pf_take(&a, size, &v);
        if (!have) {
            a = save; /* a `*` taken for a conversion that cannot print is given back */
            pf_emit(&o, start, (size_t)(p - start));
            continue;
        }
        if (s.conv == 's') {
            int rc = pf_string(&o, &s, v, read_str, ctx);
            if (rc)
                return rc;
        } else {
            pf_number(&o, &s, v, size);
        }
    }
    if (cap > 0)
        out[o.len < cap ? o.len : cap - 1] = 0;
    return o.len > INT_MAX ? INT_MAX : (int)o.len;
}

/* Count the arguments fmt takes, with the walker's parsing rules. */
int dev_printf_nargs(const char *fmt)
{
    if (!fmt)
        return -1;
    int n = 0;
    for (const char *p = fmt; *p;) {
        if (*p++ != '%')
            continue;
        if (*p == '%') {
            p++;
            continue;
        }
        int stars = 0;
        while (*p && strchr("-+ #0", *p))
            p++;
        if (*p == '*') {
            stars++;
            p++;
        }
        while (*p >= '0' && *p <= '9')
            p++;
        if (*p == '.') {
            p++;
            if (*p == '*') {
                stars++;
                p++;
            }
            while (*p >= '0' && *p <= '9')
                p++;
        }
        while (*p && strchr("hljztL", *p))
            p++;
        if (pf_is_conv(*p))
            n += stars + 1;
        if (*p)
            p++;
    }
    return n > DEV_PRINTF_MAX_ARGS ? DEV_PRINTF_MAX_ARGS : n;
}

/* ================================================================ the FIFO */

struct pf_rec {
    uint64_t cta;
    uint64_t seq;
    uint32_t warp;
    uint32_t len;
    /* text follows */
};

struct dev_printf_buf {
    uint8_t *arena;
    size_t cap;
    _Atomic size_t used;
    _Atomic uint64_t nrec;
    _Atomic uint64_t dropped;
};

#define PF_REC_ALIGN 8
static size_t pf_rec_bytes(size_t len)
{
    return (sizeof(struct pf_rec) + len + PF_REC_ALIGN - 1) & ~(size_t)(PF_REC_ALIGN - 1);
}

/* One arena of capacity bytes; records are packed in arrival order. */
int dev_printf_buf_create(size_t capacity, struct dev_printf_buf **out)
{
    *out = NULL;
    if (capacity == 0)
        capacity = (size_t)1 << 20;
    capacity &= ~(size_t)(PF_REC_ALIGN - 1);
    if (capacity < sizeof(struct pf_rec))
        return -EINVAL;
    struct dev_printf_buf *b = calloc(1, sizeof *b);
    if (!b)
        return -ENOMEM;
    b->arena = malloc(capacity);
    if (!b->arena) {
        free(b);
        return -ENOMEM;
    }
    b->cap = capacity;
    atomic_init(&b->used, 0);
    atomic_init(&b->nrec, 0);
    atomic_init(&b->dropped, 0);
    *out = b;
    return 0;
}

/* Free the arena and the FIFO (NULL is fine). */
void dev_printf_buf_destroy(struct dev_printf_buf *b)
{
    if (!b)
        return;
    free(b->arena);
    free(b);
}

/* Reserve room with a CAS loop (so a refused record never consumes space) and copy. */
int dev_printf_buf_append(struct dev_printf_buf *b, uint64_t cta, uint32_t warp, uint64_t seq,
                          const char *text, size_t len)
{
    if (!b || (!text && len))
        return -EINVAL;
    if (len == 0)
        return 0;
    if (len > UINT32_MAX || pf_rec_bytes(len) > b->cap) {
        atomic_fetch_add_explicit(&b->dropped, 1, memory_order_relaxed);
        return 1;
    }
    size_t need = pf_rec_bytes(len);
    size_t cur = atomic_load_explicit(&b->used, memory_order_relaxed);
    do {
        if (need > b->cap - cur) {
            atomic_fetch_add_explicit(&b->dropped, 1, memory_order_relaxed);
            return 1;
        }
    } while (!atomic_compare_exchange_weak_explicit(&b->used, &cur, cur + need,
                                                    memory_order_relaxed, memory_order_relaxed));
    struct pf_rec h = {cta, seq, warp, (uint32_t)len};
    memcpy(b->arena + cur, &h, sizeof h);
    memcpy(b->arena + cur + sizeof h, text, len);
    atomic_fetch_add_explicit(&b->nrec, 1, memory_order_release);
    return 0;
}

/* Format into a stack buffer (a heap one for outputs over 512 bytes), then append. */
int dev_printf_buf_printf(struct dev_printf_buf *b, uint64_t cta, uint32_t warp, uint64_t seq,
                          const char *fmt, const uint8_t *args, size_t args_len,
                          dev_printf_read_str read_str, void *ctx)
{
    char local[512];
    int n = dev_printf_format(fmt, args, args_len, read_str, ctx, local, sizeof local);
    if (n < 0)
        return n;
    if ((size_t)n < sizeof local)
        return dev_printf_buf_append(b, cta, warp, seq, local, (size_t)n);
    char *big = malloc((size_t)n + 1);
    if (!big)
        return -ENOMEM;
    int m = dev_printf_format(fmt, args, args_len, read_str, ctx, big, (size_t)n + 1);
    int rc = m < 0 ? m : dev_printf_buf_append(b, cta, warp, seq, big, (size_t)m);
    free(big);
    return rc;
}

static int pf_rec_cmp(const void *x, const void *y)
{
    const struct pf_rec *a = *(const struct pf_rec *const *)x,
                        *b = *(const struct pf_rec *const *)y;
    if (a->cta != b->cta)
        return a->cta < b->cta ? -1 : 1;
    if (a->warp != b->warp)
        return a->warp < b->warp ? -1 : 1;
    if (a->seq != b->seq)
        return a->seq < b->seq ? -1 : 1;
    return a < b ? -1 : a > b; /* arrival order breaks ties: qsort is not stable */
}

static void pf_reset(struct dev_printf_buf *b)
{
    atomic_store_explicit(&b->used, 0, memory_order_relaxed);
    atomic_store_explicit(&b->nrec, 0, memory_order_relaxed);
    atomic_store_explicit(&b->dropped, 0, memory_order_relaxed);
}

/* Index the records, sort them when asked, write them, and empty the arena. */
long dev_printf_buf_flush(struct dev_printf_buf *b, FILE *f, bool ordered)
{
    size_t used = atomic_load_explicit(&b->used, memory_order_acquire);
    uint64_t nrec = atomic_load_explicit(&b->nrec, memory_order_acquire);
    const struct pf_rec **recs = NULL;
    long written = 0;
    int rc = 0;
    if (nrec == 0)
        goto out;
    recs = malloc(nrec * sizeof *recs);
    if (!recs) {
        rc = -ENOMEM;
        goto out;
    }
    uint64_t k = 0;
    for (size_t off = 0; off < used && k < nrec;) {
        const struct pf_rec *r = (const struct pf_rec *)(const void *)(b->arena + off);
        recs[k++] = r;
        off += pf_rec_bytes(r->len);
    }
    if (ordered)
        qsort(recs, k, sizeof *recs, pf_rec_cmp);
    flockfile(f); /* one launch's output stays together when kernels run concurrently */
    for (uint64_t i = 0; i < k; i++) {
        const char *text = (const char *)(recs[i] + 1);
        if (fwrite(text, 1, recs[i]->len, f) != recs[i]->len) {
            rc = -EIO;
            break;
        }
        written += recs[i]->len;
    }
    if (rc == 0 && fflush(f) != 0)
        rc = -EIO;
    funlockfile(f);
out:
    free(recs);
    pf_reset(b);
    return rc ? rc : written;
}

/* Records refused since the last flush, for a "printf output was truncated" warning. */
uint64_t dev_printf_buf_dropped(const struct dev_printf_buf *b)
{
    return atomic_load_explicit(&b->dropped, memory_order_relaxed);
}
