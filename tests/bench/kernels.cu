// tests/bench/kernels.cu — the benchmark kernels (issue 7). Each kernel has a native C twin in
// native.c computing the same thing; bench.pl runs both and reports ratios. The exec line of
// each benchmark is in bench.list. Compiled to kernels_sm80.ptx by gen.sh (committed).
#include <stdint.h>

extern "C" __global__ void fma_loop(float *out, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = (float)i * 1e-6f, a = 0.999f, b = 0.001f, y = 1.0f;
    for (int k = 0; k < iters; k++) {
        x = fmaf(x, a, b);
        y = fmaf(y, a, x);
    }
    out[i] = x + y;
}

#define TILE 16
extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[TILE][TILE], Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        As[ty][tx] = A[row * n + t + tx];
        Bs[ty][tx] = B[(t + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

extern "C" __global__ void triad(float *a, const float *b, const float *c, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = b[i] + s * c[i];
}

extern "C" __global__ void transpose(float *out, const float *in, int n)
{
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" __global__ void reduce(const float *in, float *out, int n)
{
    __shared__ float warp_sums[32];
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        v += in[i];
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0)
        warp_sums[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0.0f;
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, o);
        if (threadIdx.x == 0)
            out[blockIdx.x] = v;
    }
}

extern "C" __global__ void scan(const int *in, int *out)
{
    __shared__ int buf[2][1024];
    int t = threadIdx.x, base = blockIdx.x * blockDim.x;
    int p = 0;
    buf[0][t] = in[base + t];
    __syncthreads();
    for (int o = 1; o < blockDim.x; o <<= 1) {
        int v = buf[p][t];
        if (t >= o)
            v += buf[p][t - o];
        buf[p ^ 1][t] = v;
        p ^= 1;
        __syncthreads();
    }
    out[base + t] = buf[p][t];
}

extern "C" __global__ void histogram(const uint32_t *in, uint32_t *bins, int n)
{
    __shared__ uint32_t local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[in[i] & 255], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        atomicAdd(&bins[b], local[b]);
}

__device__ float cnd(float d)
{
    const float A1 = 0.31938153f, A2 = -0.356563782f, A3 = 1.781477937f, A4 = -1.821255978f,
                A5 = 1.330274429f, RSQRT2PI = 0.39894228040143267793994605993438f;
    float K = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float c = RSQRT2PI * expf(-0.5f * d * d) *
              (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
    return d > 0 ? 1.0f - c : c;
}

extern "C" __global__ void blackscholes(float *call, float *put, const float *price,
                                        const float *strike, const float *years, int n)
{
    const float R = 0.02f, V = 0.30f;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float S = price[i] * 30.0f + 5.0f, X = strike[i] * 99.0f + 1.0f, T = years[i] * 9.75f + 0.25f;
    float sqrtT = sqrtf(T);
    float d1 = (logf(S / X) + (R + 0.5f * V * V) * T) / (V * sqrtT);
    float d2 = d1 - V * sqrtT;
    float expRT = expf(-R * T);
    call[i] = S * cnd(d1) - X * expRT * cnd(d2);
    put[i] = X * expRT * (1.0f - cnd(d2)) - S * (1.0f - cnd(d1));
}

extern "C" __global__ void nbody(const float4 *pos, float4 *acc, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 p = pos[i];
    float ax = 0, ay = 0, az = 0;
    for (int j = 0; j < n; j++) {
        float4 q = pos[j];
        float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
        float r2 = dx * dx + dy * dy + dz * dz + 1e-3f;
        float inv = rsqrtf(r2);
        float s = q.w * inv * inv * inv;
        ax += dx * s;
        ay += dy * s;
        az += dz * s;
    }
    acc[i] = make_float4(ax, ay, az, 0.0f);
}

extern "C" __global__ void mandelbrot(uint32_t *out, int w, int h, int maxit)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
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

extern "C" __global__ void bitonic(uint32_t *data)
{
    __shared__ uint32_t s[1024];
    unsigned t = threadIdx.x, base = blockIdx.x * 1024;
    s[t] = data[base + t];
    __syncthreads();
    for (unsigned k = 2; k <= 1024; k <<= 1) {
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            unsigned p = t ^ j;
            if (p > t) {
                uint32_t a = s[t], b = s[p];
                bool up = (t & k) == 0;
                if ((a > b) == up) {
                    s[t] = b;
                    s[p] = a;
                }
            }
            __syncthreads();
        }
    }
    data[base + t] = s[t];
}
