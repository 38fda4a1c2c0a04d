/*
 * tests/bench/native.c — single-threaded native C twins of the benchmark kernels in
 * kernels.cu, so the emulator's speed can be reported as a slowdown ratio against the
 * same computation compiled for the host. Usage: native NAME → prints the median wall time of
 * 5 runs in seconds. Sizes match bench.list.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Inputs are generated before timing starts: rnd_floats()/rnd_u32s() hand out buffers
 * prepared by prep() (phase 0) and reused in the timed run (phase 1). */
struct bench_ctx {
    uint64_t rng;
    int phase;
    void *bufs[8];
    int nbufs, next;
};

static struct bench_ctx ctx = {1, 0, {0}, 0, 0};

static void *input(size_t bytes, int is_float)
{
    if (ctx.phase == 1)
        return ctx.bufs[ctx.next++];
    uint32_t *p = malloc(bytes);
    for (size_t i = 0; i < bytes / 4; i++) {
        uint64_t z = (ctx.rng += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        uint32_t r = (uint32_t)((z ^ (z >> 31)) >> 32);
        if (is_float) {
            float f = (float)(r >> 8) / 16777216.0f;
            memcpy(&p[i], &f, 4);
        } else {
            p[i] = r;
        }
    }
    ctx.bufs[ctx.nbufs++] = p;
    return p;
}

static float *rnd_floats(size_t n)
{
    return input(n * sizeof(float), 1);
}

static uint32_t *rnd_u32s(size_t n)
{
    return input(n * sizeof(uint32_t), 0);
}

static volatile float sink;

static void b_fma_loop(void)
{
    int n = 1024 * 256, iters = 64;
    float *out = malloc(n * sizeof *out);
    for (int i = 0; i < n; i++) {
        float x = (float)i * 1e-6f, a = 0.999f, b = 0.001f, y = 1.0f;
        for (int k = 0; k < iters; k++) {
            x = fmaf(x, a, b);
            y = fmaf(y, a, x);
        }
        out[i] = x + y;
    }
    sink = out[n / 2];
    free(out);
}

static void b_sgemm(void)
{
    int n = 256;
    float *A = rnd_floats(n * n), *B = rnd_floats(n * n), *C = calloc(n * n, sizeof *C);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float acc = 0;
            for (int k = 0; k < n; k++)
                acc += A[i * n + k] * B[k * n + j];
            C[i * n + j] = acc;
        }
    sink = C[7];
    free(C);
}

static void b_triad(void)
{
    int n = 1 << 22;
    float *a = malloc(n * sizeof *a), *b = rnd_floats(n), *c = rnd_floats(n);
    for (int i = 0; i < n; i++)
        a[i] = b[i] + 3.0f * c[i];
    sink = a[5];
    free(a);
}

static void b_transpose(void)
{
    int n = 2048;
    float *in = rnd_floats((size_t)n * n), *out = malloc((size_t)n * n * sizeof *out);
    for (int by = 0; by < n; by += 32)
        for (int bx = 0; bx < n; bx += 32)
            for (int y = by; y < by + 32; y++)
                for (int x = bx; x < bx + 32; x++)
                    out[(size_t)x * n + y] = in[(size_t)y * n + x];
    sink = out[9];
    free(out);
}

static void b_reduce(void)
{
    int n = 1 << 22;
    float *in = rnd_floats(n), s = 0;
    for (int i = 0; i < n; i++)
        s += in[i];
    sink = s;
}

static void b_scan(void)
{
    int blocks = 256, bs = 1024;
    int *in = (int *)rnd_u32s(blocks * bs), *out = malloc(blocks * bs * sizeof *out);
    for (int b = 0; b < blocks; b++) {
        int acc = 0;
        for (int t = 0; t < bs; t++)
            out[b * bs + t] = acc += in[b * bs + t] & 0xff;
    }
    sink = (float)out[77];
    free(out);
}

static void b_histogram(void)
{
    int n = 1 << 22;
    uint32_t *in = rnd_u32s(n), bins[256] = {0};
    for (int i = 0; i < n; i++)
        bins[in[i] & 255]++;
    sink = (float)bins[3];
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

static void b_blackscholes(void)
{
    int n = 1 << 19;
    float *price = rnd_floats(n), *strike = rnd_floats(n), *years = rnd_floats(n);
    float *call = malloc(n * sizeof *call), *put = malloc(n * sizeof *put);
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
    sink = call[3] + put[3];
    free(call), free(put);
}

static void b_nbody(void)
{
    int n = 2048;
    float *pos = rnd_floats(4 * n), *acc = malloc(4 * n * sizeof *acc);
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
    sink = acc[5];
    free(acc);
}

static void b_mandelbrot(void)
{
    int w = 512, h = 512, maxit = 256;
    uint32_t *out = malloc(w * h * sizeof *out);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float cr = -2.0f + 3.0f * x / w, ci = -1.5f + 3.0f * y / h, zr = 0, zi = 0;
            int it = 0;
            while (it < maxit && zr * zr + zi * zi < 4.0f) {
                float t = zr * zr - zi * zi + cr;
                zi = 2.0f * zr * zi + ci;
                zr = t;
                it++;
            }
            out[y * w + x] = it;
        }
    sink = (float)out[1000];
    free(out);
}

static void b_bitonic(void)
{
    int blocks = 64;
    uint32_t *d = malloc(blocks * 1024 * sizeof *d), *src = rnd_u32s(blocks * 1024);
    memcpy(d, src, blocks * 1024 * sizeof *d);
    for (int b = 0; b < blocks; b++) {
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
    sink = (float)d[17];
    free(d);
}

static const struct {
    const char *name;
    void (*fn)(void);
} benches[] = {
    {"fma_loop", b_fma_loop}, {"sgemm", b_sgemm}, {"triad", b_triad},
    {"transpose", b_transpose}, {"reduce", b_reduce}, {"scan", b_scan},
    {"histogram", b_histogram}, {"blackscholes", b_blackscholes}, {"nbody", b_nbody},
    {"mandelbrot", b_mandelbrot}, {"bitonic", b_bitonic},
};

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

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: native NAME\n");
        return 2;
    }
    for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++) {
        if (strcmp(argv[1], benches[i].name) != 0)
            continue;
        double t[5];
        benches[i].fn(); /* phase 0: generate inputs (untimed) */
        ctx.phase = 1;
        for (int r = 0; r < 5; r++) {
            ctx.next = 0;
            double t0 = now();
            benches[i].fn();
            t[r] = now() - t0;
        }
        qsort(t, 5, sizeof t[0], cmp_d);
        printf("%.6f\n", t[2]);
        for (int b = 0; b < ctx.nbufs; b++)
            free(ctx.bufs[b]);
        return 0;
    }
    fprintf(stderr, "native: unknown benchmark '%s'\n", argv[1]);
    return 2;
}
