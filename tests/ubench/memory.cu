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

// Near and far L2 partitions (A100, H100: the L2 is split in two; a hit in a slice of the
// other partition than the SM's takes longer). No slice id is visible to a program, so the
// kernel sorts lines by their measured latency, as a microbenchmark on the hardware must:
//   1. n lines `stride` words apart are loaded (.cg) once, so all are in the L2;
//   2. each line is probed by 4 dependent .cg loads of it (the interval also holds the tail
//      of the previous line's last load), lat[i] = the probe's cycles: a near line's probe
//      is at most 3 near + 1 far latencies, a far line's at least 3 far + 1 near, so the
//      midpoint of the fastest (~4 near) and the slowest (~4 far) separates them;
//   3. a line is far when the spread of the probes is more than a quarter of the fastest
//      (hi - lo > lo / 4: a one-partition L2's probes differ by a few cycles at most) and its
//      probe is above that midpoint;
//      the near lines are linked into one circular chain, the far lines into another (a
//      line's first word holds the distance to the next line of its class);
//   4. each chain is walked n steps (its stores reach the L2), then n_meas timed steps.
// No loop is unrolled, so the two classes' timed loops are one and the same code; a class
// without lines walks the other's chain. out[0] near cycles, out[1] far cycles (of n_meas steps), out[2] near lines, out[3]
// far lines, out[4 + i] line i's probe (out holds 4 + n values). `a` must hold zeros.
extern "C" __global__ void chase_l2_split(unsigned *a, unsigned stride, unsigned n, int n_meas,
                                          long long *out)
{
    unsigned s = 0;
    #pragma unroll 1
    for (unsigned i = 0; i < n; i++)
        s += __ldcg(&a[i * stride]);
    long long *lat = out + 4;
    long long lo = 0x7fffffffffffffffll, hi = 0;
    unsigned j = s; // 0 (the array holds zeros), after every line has come in
    #pragma unroll 1
    for (unsigned i = 0; i < n; i++) {
        long long t1 = clock64();
        #pragma unroll 1
        for (int k = 0; k < 4; k++)
            j = __ldcg(&a[j]) + j;
        long long t2 = clock64();
        lat[i] = t2 - t1;
        lo = t2 - t1 < lo ? t2 - t1 : lo;
        hi = t2 - t1 > hi ? t2 - t1 : hi;
        j += stride;
    }
    bool split = hi - lo > lo / 4;
    unsigned first[2] = {~0u, ~0u}, last[2] = {~0u, ~0u}, cnt[2] = {0, 0};
    #pragma unroll 1
    for (unsigned i = 0; i < n; i++) {
        int c = split && 2 * lat[i] > lo + hi;
        if (last[c] != ~0u)
            a[last[c] * stride] = (i - last[c]) * stride;
        else
            first[c] = i;
        last[c] = i;
        cnt[c]++;
    }
    #pragma unroll 1
    for (int c = 0; c < 2; c++)
        if (cnt[c])
            a[last[c] * stride] = (first[c] - last[c]) * stride;
    #pragma unroll 1
    for (int c = 0; c < 2; c++) {
        unsigned k0 = cnt[c] ? first[c] : first[1 - c];
        j = k0 * stride + (j & 0x80000000u); // j < 2^31: the start, after the probes
        #pragma unroll 1
        for (unsigned k = 0; k < n; k++)
            j = __ldcg(&a[j]) + j;
        long long t1 = clock64();
        #pragma unroll 1
        for (int k = 0; k < n_meas; k++)
            j = __ldcg(&a[j]) + j;
        long long t2 = clock64();
        out[c] = t2 - t1;
        out[2 + c] = cnt[c];
    }
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
