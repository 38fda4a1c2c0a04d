// tests/ubench/shared.cu — shared-memory latency and bandwidth, timed with clock64() inside the
// kernel (the same code runs on a GPU). Built to PTX by scripts/gen-ubench.sh;
// tests/ubench/ubench.pl runs it (`ninja ubench`).
#define NS 1024

// Latency: one thread chases through shared memory. Word i holds the shared-window address of
// word (i + stride) mod NS, and the chase is inline PTX `ld.shared.u32 j, [j]`, so the timed
// chain is the loads alone (no address arithmetic between them): a first pass of n_warm
// steps, then n_meas timed steps. out[0] = cycles of the timed pass.
extern "C" __global__ void lat_shared(unsigned stride, int n_warm, int n_meas, long long *out)
{
    __shared__ unsigned s[NS];
    unsigned base = (unsigned)__cvta_generic_to_shared(s);
    for (int i = threadIdx.x; i < NS; i += blockDim.x)
        s[i] = base + 4 * ((i + stride) % NS);
    __syncthreads();
    unsigned j = base;
    for (int k = 0; k < n_warm; k++)
        asm volatile("ld.shared.u32 %0, [%0];" : "+r"(j));
    long long t1 = clock64();
    for (int k = 0; k < n_meas; k++)
        asm volatile("ld.shared.u32 %0, [%0];" : "+r"(j));
    long long t2 = clock64();
    out[0] = t2 - t1;
    out[1] = j;
}

// Bandwidth: every warp of one CTA reads, n times, 8 conflict-free 128-byte rows (lane l
// reads word l of a row: one word per bank) into independent registers. out[0]/out[1] get
// the earliest start and the latest end clock over the CTA's warps (one SM: one clock), so
// bytes / (out[1] - out[0]) = blockDim.x * 4 * 8 * n / cycles is the SM's shared-memory
// bandwidth in bytes per cycle (the peak: 32 banks x 4 bytes).
extern "C" __global__ void bw_shared(unsigned long long *out, int n)
{
    __shared__ float s[NS];
    for (int i = threadIdx.x; i < NS; i += blockDim.x)
        s[i] = (float)i;
    __syncthreads();
    int l = threadIdx.x & 31, w = (threadIdx.x >> 5) & 3;
    volatile float *vs = s + 256 * w + l;
    float a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
    unsigned long long t1 = clock64();
    for (int i = 0; i < n; i++) {
        a0 += vs[0]; a1 += vs[32]; a2 += vs[64]; a3 += vs[96];
        a4 += vs[128]; a5 += vs[160]; a6 += vs[192]; a7 += vs[224];
    }
    unsigned long long t2 = clock64();
    if (l == 0) {
        atomicMin(&out[0], t1);
        atomicMax(&out[1], t2);
    }
    if (a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 == -1.0f)
        out[2] = 1;
}
