/*
 * tests/bench/native.c — single-threaded native C twins of the benchmark kernels in
 * kernels.cu, so the emulator's speed can be reported as a slowdown ratio against the same
 * computation compiled for the host, and its results checked against an independent
 * implementation.
 *
 *   native NAME            print the median wall time of 5 runs in seconds
 *   native NAME PREFIX     the same, and write each output buffer of the last run to
 *                          PREFIX.I (raw bytes; I = the kernel parameter index)
 *
 * Inputs are exactly the buffers `ptxemu exec` builds from the --arg specs of bench.list
 * (buf:iota.f32=N, buf:iota.s32=N, buf:rand=SIZE,SEED with the CLI's splitmix64, buf:zero),
 * and sizes match bench.list, so bench.pl compares the dumps byte for byte (integer kernels
 * and the float kernels whose operation order and fused multiply-adds are mirrored from the
 * PTX) or within a tolerance (kernels using the PTX approximate special functions).
 * Buffers are prepared and output buffers reset before each timed run (untimed), as the
 * emulator's are before the kernel starts.
 *
 * Kernels that use fmaf are compiled twice (target_clones): with the host FMA instruction
 * where the CPU has one, else the C library's fmaf; both give the same bits.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define FMA_CLONES __attribute__((target_clones("fma", "default")))
#else
#define FMA_CLONES
#endif

/* ------------------------------------------------------------------ buffers */

enum { MAXBUF = 8 };

struct io {
    void *p[MAXBUF];       /* by kernel parameter index (NULL for scalars) */
    size_t bytes[MAXBUF];
    void *init[MAXBUF];    /* initial contents of an in-place buffer (restored per run) */
    int out[MAXBUF];       /* written by the kernel: dumped */
};

/* splitmix64 (Steele, Lea, Flood 2014), as runtime/cli.c's buf:rand. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static void *xalloc(size_t bytes)
{
    void *p = calloc(bytes ? bytes : 1, 1);
    if (!p) {
        fprintf(stderr, "native: out of memory\n");
        exit(1);
    }
    return p;
}

/* buf:zero=BYTES as parameter i, an output */
static void *b_zero(struct io *io, int i, size_t bytes)
{
    io->p[i] = xalloc(bytes);
    io->bytes[i] = bytes;
    io->out[i] = 1;
    return io->p[i];
}

/* buf:iota.f32=N */
static float *b_iota_f32(struct io *io, int i, size_t n)
{
    float *p = xalloc(n * sizeof *p);
    for (size_t k = 0; k < n; k++)
        p[k] = (float)k;
    io->p[i] = p;
    io->bytes[i] = n * sizeof *p;
    return p;
}

/* buf:iota.s32=N */
static int32_t *b_iota_s32(struct io *io, int i, size_t n)
{
    int32_t *p = xalloc(n * sizeof *p);
    for (size_t k = 0; k < n; k++)
        p[k] = (int32_t)k;
    io->p[i] = p;
    io->bytes[i] = n * sizeof *p;
    return p;
}

/* buf:rand=BYTES,SEED; inplace: the kernel also writes it (restored before each run) */
static void *b_rand(struct io *io, int i, size_t bytes, uint64_t seed, int inplace)
{
    uint8_t *p = xalloc(bytes);
    uint64_t st = seed;
    for (size_t k = 0; k < bytes; k += 8) {
        uint64_t r = splitmix64(&st);
        memcpy(p + k, &r, bytes - k < 8 ? bytes - k : 8);
    }
    io->p[i] = p;
    io->bytes[i] = bytes;
    if (inplace) {
        io->init[i] = xalloc(bytes);
        memcpy(io->init[i], p, bytes);
        io->out[i] = 1;
    }
    return p;
}

static volatile float sink;

/* ------------------------------------------------------------------ kernels */

/* fma_loop: --grid 1024 --block 256, out = buf:zero, iters = 64 */
static void p_fma_loop(struct io *io)
{
    b_zero(io, 0, 1048576);
}
FMA_CLONES static void r_fma_loop(struct io *io)
{
    float *out = io->p[0];
    const int n = 1024 * 256, iters = 64;
    for (int i = 0; i < n; i++) {
        float x = (float)i * 1e-6f, a = 0.999f, b = 0.001f, y = 1.0f;
        for (int k = 0; k < iters; k++) {
            x = fmaf(x, a, b);
            y = fmaf(y, a, x);
        }
        out[i] = x + y;
    }
}

/* sgemm: A, B iota (256 x 256), C zero; acc = fma(A, B, acc) in k order (as the PTX) */
static void p_sgemm(struct io *io)
{
    b_iota_f32(io, 0, 65536);
    b_iota_f32(io, 1, 65536);
    b_zero(io, 2, 262144);
}
FMA_CLONES static void r_sgemm(struct io *io)
{
    const float *A = io->p[0], *B = io->p[1];
    float *C = io->p[2];
    const int n = 256;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float acc = 0;
            for (int k = 0; k < n; k++)
                acc = fmaf(A[i * n + k], B[k * n + j], acc);
            C[i * n + j] = acc;
        }
}

/* triad: a = fma(c, s, b) */
static void p_triad(struct io *io)
{
    b_zero(io, 0, 16777216);
    b_iota_f32(io, 1, 4194304);
    b_iota_f32(io, 2, 4194304);
}
FMA_CLONES static void r_triad(struct io *io)
{
    float *a = io->p[0];
    const float *b = io->p[1], *c = io->p[2];
    const int n = 1 << 22;
    for (int i = 0; i < n; i++)
        a[i] = fmaf(c[i], 3.0f, b[i]);
}

/* transpose: out = in^T, 2048 x 2048, in 32 x 32 tiles */
static void p_transpose(struct io *io)
{
    b_zero(io, 0, 16777216);
    b_iota_f32(io, 1, 4194304);
}
static void r_transpose(struct io *io)
{
    float *out = io->p[0];
    const float *in = io->p[1];
    const int n = 2048;
    for (int by = 0; by < n; by += 32)
        for (int bx = 0; bx < n; bx += 32)
            for (int y = by; y < by + 32; y++)
                for (int x = bx; x < bx + 32; x++)
                    out[(size_t)x * n + y] = in[(size_t)y * n + x];
}

/* One warp's shfl.down tree (offsets 16..1, clamp 31): lane 0's sum in the kernel's order. */
static float warp_tree(float v[32])
{
    for (int o = 16; o > 0; o >>= 1) {
        float nv[32];
        for (int l = 0; l < 32; l++)
            nv[l] = v[l] + (l + o < 32 ? v[l + o] : v[l]);
        memcpy(v, nv, sizeof nv);
    }
    return v[0];
}

/* reduce: 256 blocks of 256 threads; per-thread strided sums, warp trees, block tree */
static void p_reduce(struct io *io)
{
    b_iota_f32(io, 0, 4194304);
    b_zero(io, 1, 1024);
}
static void r_reduce(struct io *io)
{
    const float *in = io->p[0];
    float *out = io->p[1];
    const int n = 1 << 22, blocks = 256, bs = 256, stride = blocks * bs;
    for (int b = 0; b < blocks; b++) {
        float sums[32] = {0};
        for (int wp = 0; wp < bs / 32; wp++) {
            float v[32];
            for (int l = 0; l < 32; l++) {
                float s = 0;
                for (int i = b * bs + wp * 32 + l; i < n; i += stride)
                    s += in[i];
                v[l] = s;
            }
            sums[wp] = warp_tree(v);
        }
        out[b] = warp_tree(sums);
    }
}

/* scan: inclusive prefix sum of each 1024-element block (int, wrapping), by the kernel's
 * algorithm (Hillis-Steele, log2(1024) double-buffered steps), so the work is the same; a
 * sequential scan gives the same result with a tenth of the additions. */
static void p_scan(struct io *io)
{
    b_iota_s32(io, 0, 262144);
    b_zero(io, 1, 1048576);
}
static void r_scan(struct io *io)
{
    const uint32_t *in = io->p[0];
    uint32_t *out = io->p[1];
    static uint32_t buf[2][1024];
    for (int b = 0; b < 256; b++) {
        int p = 0;
        memcpy(buf[0], in + b * 1024, sizeof buf[0]);
        for (int o = 1; o < 1024; o <<= 1) {
            for (int t = 0; t < 1024; t++)
                buf[p ^ 1][t] = buf[p][t] + (t >= o ? buf[p][t - o] : 0);
            p ^= 1;
        }
        memcpy(out + b * 1024, buf[p], sizeof buf[p]);
    }
}

/* histogram: 256 bins of the low byte */
static void p_histogram(struct io *io)
{
    b_rand(io, 0, 16777216, 7, 0);
    b_zero(io, 1, 1024);
}
static void r_histogram(struct io *io)
{
    const uint32_t *in = io->p[0];
    uint32_t *bins = io->p[1];
    const int n = 1 << 22;
    for (int i = 0; i < n; i++)
        bins[in[i] & 255]++;
}

static float cnd(float d)
{
    const float A1 = 0.31938153f, A2 = -0.356563782f, A3 = 1.781477937f, A4 = -1.821255978f,
                A5 = 1.330274429f, RSQRT2PI = 0.39894228040143267793994605993438f;
    float K = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float c = RSQRT2PI * expf(-0.5f * d * d) *
              (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
    return d > 0 ? 1.0f - c : c;
}

/* blackscholes: call, put from price, strike, years (iota); libm expf/logf (tolerance) */
static void p_blackscholes(struct io *io)
{
    b_zero(io, 0, 2097152);
    b_zero(io, 1, 2097152);
    b_iota_f32(io, 2, 524288);
    b_iota_f32(io, 3, 524288);
    b_iota_f32(io, 4, 524288);
}
static void r_blackscholes(struct io *io)
{
    float *call = io->p[0], *put = io->p[1];
    const float *price = io->p[2], *strike = io->p[3], *years = io->p[4];
    const int n = 1 << 19;
    const float R = 0.02f, V = 0.30f;
    for (int i = 0; i < n; i++) {
        float S = price[i] * 30.0f + 5.0f, X = strike[i] * 99.0f + 1.0f,
              T = years[i] * 9.75f + 0.25f;
        float sqrtT = sqrtf(T);
        float d1 = (logf(S / X) + (R + 0.5f * V * V) * T) / (V * sqrtT);
        float d2 = d1 - V * sqrtT;
        float expRT = expf(-R * T);
        call[i] = S * cnd(d1) - X * expRT * cnd(d2);
        put[i] = X * expRT * (1.0f - cnd(d2)) - S * (1.0f - cnd(d1));
    }
}

/* nbody: 2048 bodies (float4, iota), all-pairs; 1/sqrtf for rsqrt.approx (tolerance) */
static void p_nbody(struct io *io)
{
    b_iota_f32(io, 0, 8192);
    b_zero(io, 1, 32768);
}
static void r_nbody(struct io *io)
{
    const float *pos = io->p[0];
    float *acc = io->p[1];
    const int n = 2048;
    for (int i = 0; i < n; i++) {
        float ax = 0, ay = 0, az = 0;
        for (int j = 0; j < n; j++) {
            float dx = pos[4 * j] - pos[4 * i], dy = pos[4 * j + 1] - pos[4 * i + 1],
                  dz = pos[4 * j + 2] - pos[4 * i + 2];
            float r2 = dx * dx + dy * dy + dz * dz + 1e-3f;
            float inv = 1.0f / sqrtf(r2);
            float s = pos[4 * j + 3] * inv * inv * inv;
            ax += dx * s, ay += dy * s, az += dz * s;
        }
        acc[4 * i] = ax, acc[4 * i + 1] = ay, acc[4 * i + 2] = az, acc[4 * i + 3] = 0;
    }
}

/* mandelbrot: 512 x 512, 256 iterations; the PTX's operation order (one fma) */
static void p_mandelbrot(struct io *io)
{
    b_zero(io, 0, 1048576);
}
FMA_CLONES static void r_mandelbrot(struct io *io)
{
    uint32_t *out = io->p[0];
    const int w = 512, h = 512, maxit = 256;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float cr = 3.0f * (float)x / (float)w + -2.0f;
            float ci = 3.0f * (float)y / (float)h + -1.5f;
            float zr = 0, zi = 0, zr2 = 0, zi2 = 0;
            int it = 0;
            do {
                float t = cr + (zr2 - zi2);
                zi = fmaf(zr + zr, zi, ci);
                zr = t;
                it++;
                zr2 = zr * zr;
                zi2 = zi * zi;
            } while (it < maxit && zr2 + zi2 < 4.0f);
            out[y * w + x] = (uint32_t)it;
        }
}

/* bitonic: 64 independent in-place sorts of 1024 keys (rand) */
static void p_bitonic(struct io *io)
{
    b_rand(io, 0, 262144, 3, 1);
}
static void r_bitonic(struct io *io)
{
    uint32_t *d = io->p[0];
    for (int b = 0; b < 64; b++) {
        uint32_t *s = d + b * 1024;
        for (unsigned k = 2; k <= 1024; k <<= 1)
            for (unsigned j = k >> 1; j > 0; j >>= 1)
                for (unsigned t = 0; t < 1024; t++) {
                    unsigned p = t ^ j;
                    if (p > t) {
                        uint32_t x = s[t], y = s[p];
                        int up = (t & k) == 0;
                        if ((x > y) == up) {
                            s[t] = y;
                            s[p] = x;
                        }
                    }
                }
    }
}

static const struct {
    const char *name;
    void (*prep)(struct io *);
    void (*run)(struct io *);
} benches[] = {
    {"fma_loop", p_fma_loop, r_fma_loop},
    {"sgemm", p_sgemm, r_sgemm},
    {"triad", p_triad, r_triad},
    {"transpose", p_transpose, r_transpose},
    {"reduce", p_reduce, r_reduce},
    {"scan", p_scan, r_scan},
    {"histogram", p_histogram, r_histogram},
    {"blackscholes", p_blackscholes, r_blackscholes},
    {"nbody", p_nbody, r_nbody},
    {"mandelbrot", p_mandelbrot, r_mandelbrot},
    {"bitonic", p_bitonic, r_bitonic},
};

/* ------------------------------------------------------------------ driver */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Outputs start as the emulator's do: zero, or the initial contents of in-place buffers. */
static void reset(struct io *io)
{
    for (int i = 0; i < MAXBUF; i++) {
        if (!io->out[i])
            continue;
        if (io->init[i])
            memcpy(io->p[i], io->init[i], io->bytes[i]);
        else
            memset(io->p[i], 0, io->bytes[i]);
    }
}

static int dump(const struct io *io, const char *prefix)
{
    for (int i = 0; i < MAXBUF; i++) {
        if (!io->out[i])
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s.%d", prefix, i);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(io->p[i], 1, io->bytes[i], f) != io->bytes[i] || fclose(f) != 0) {
            fprintf(stderr, "native: cannot write %s\n", path);
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: native NAME [OUTPREFIX]\n");
        return 2;
    }
    for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++) {
        if (strcmp(argv[1], benches[i].name) != 0)
            continue;
        struct io io;
        memset(&io, 0, sizeof io);
        benches[i].prep(&io);
        double t[5];
        for (int r = 0; r < 5; r++) {
            reset(&io);
            double t0 = now();
            benches[i].run(&io);
            t[r] = now() - t0;
        }
        for (int b = 0; b < MAXBUF; b++)
            if (io.out[b] && io.bytes[b] >= 4) {
                float f;
                memcpy(&f, io.p[b], 4);
                sink = f;
            }
        qsort(t, 5, sizeof t[0], cmp_d);
        printf("%.6f\n", t[2]);
        int rc = argc == 3 ? dump(&io, argv[2]) : 0;
        for (int b = 0; b < MAXBUF; b++) {
            free(io.p[b]);
            free(io.init[b]);
        }
        return rc ? 1 : 0;
    }
    fprintf(stderr, "native: unknown benchmark '%s'\n", argv[1]);
    return 2;
}
