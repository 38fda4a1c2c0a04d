// tests/ubench/memory.cu — memory-system microbenchmarks, timed with clock64() inside the kernel
// (the same code runs on a GPU). Built to PTX by scripts/gen-ubench.sh; tests/timing_mem.t runs
// the PTX with ptxemu exec --timing.
#include <cstdint>

// Pointer chase: every load's address depends on the previous load's value. The array holds
// zeros (the harness passes a zero buffer), so the next index is j + stride, wrapped to the
// footprint `mask + 1` words: a first pass of n_warm steps touches the footprint, the second of
// n_meas steps (continuing from where the first stopped, so the compiler keeps both) is timed.
// out[0] = cycles of the timed pass.
//   chase_ca: ld.global (cached in L1)   chase_cg: ld.global.cg (L2 only)
extern "C" __global__ void chase_ca(const unsigned *a, unsigned stride, unsigned mask, int n_warm,
                                    int n_meas, long long *out)
{
    unsigned j = 0;
    for (int k = 0; k < n_warm; k++)
        j = (a[j] + j + stride) & mask;
    long long t1 = clock64();
    for (int k = 0; k < n_meas; k++)
        j = (a[j] + j + stride) & mask;
    long long t2 = clock64();
    out[0] = t2 - t1;
    out[1] = j;
}

extern "C" __global__ void chase_cg(const unsigned *a, unsigned stride, unsigned mask, int n_warm,
                                    int n_meas, long long *out)
{
    unsigned j = 0;
    for (int k = 0; k < n_warm; k++)
        j = (__ldcg(&a[j]) + j + stride) & mask;
    long long t1 = clock64();
    for (int k = 0; k < n_meas; k++)
        j = (__ldcg(&a[j]) + j + stride) & mask;
    long long t2 = clock64();
    out[0] = t2 - t1;
    out[1] = j;
}

// Coalescing: thread t reads element t * stride (32-, 64- or 128-bit elements); one warp
// instruction per kernel, so the L1's access and sector counts are the coalescer's output.
extern "C" __global__ void read32(const float *in, float *out, int stride)
{
    int t = threadIdx.x;
    out[t] = __ldcg(&in[t * stride]);
}

extern "C" __global__ void read64(const float2 *in, float2 *out, int stride)
{
    int t = threadIdx.x;
    out[t] = __ldcg(&in[t * stride]);
}

extern "C" __global__ void read128(const float4 *in, float4 *out, int stride)
{
    int t = threadIdx.x;
    out[t] = __ldcg(&in[t * stride]);
}

// Write-only streaming: every byte of out is written once, by full 32-byte sectors.
extern "C" __global__ void write_only(float *out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = (float)i;
}

// STREAM copy and triad (grid-stride loops).
extern "C" __global__ void stream_copy(const float *a, float *c, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        c[i] = a[i];
}

extern "C" __global__ void stream_triad(const float *b, const float *c, float *a, float s, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        a[i] = b[i] + s * c[i];
}

// Row locality: warp w reads, in turn, from two regions `far` bytes apart (so DRAM rows
// alternate when requests are served in arrival order); each warp's own accesses are
// sequential within a region.
extern "C" __global__ void row_pingpong(const float *in, float *out, int far_words, int steps)
{
    int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    float s = 0;
    for (int k = 0; k < steps; k++) {
        int base = (k & 1) * far_words + (k >> 1) * 32 * 64 + w * 32;
        s += __ldcg(&in[base + lane]);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// L1 data bandwidth: every warp reads, n times, the same float4 per lane (a warp instruction
// of 512 bytes: 4 lines, 16 sectors, through the L1D's banks); `shift` float4s of offset
// misalign it by 16-byte steps. The first pass misses, the rest hit; the loads are inline PTX
// so none is merged or hoisted. out[thread] = the sum (keeps the loads).
extern "C" __global__ void l1_bw(const float4 *a, int shift, int n, float *out)
{
    const float4 *p = a + shift + (threadIdx.x & 31);
    float s = 0;
    for (int k = 0; k < n; k++) {
        float x, y, z, w;
        asm volatile("ld.global.ca.v4.f32 {%0, %1, %2, %3}, [%4];"
                     : "=f"(x), "=f"(y), "=f"(z), "=f"(w)
                     : "l"(p));
        s += x + y + z + w;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
