// tests/ubench/bandwidth.cu — L1, L2 and DRAM read bandwidth, timed with clock64() inside the
// kernel (the same code runs on a GPU). Built to PTX by scripts/gen-ubench.sh;
// tests/ubench/ubench.pl runs it (`ninja ubench`).
//
// Every thread of the grid reads 16-byte elements, element (i + k * threads) & mask at step k
// (i its index in the grid), so each warp instruction reads 512 contiguous bytes (4 lines) and
// the grid sweeps the footprint of mask + 1 elements: n_warm steps first (to fill the cache
// under test), then n_meas timed steps. Each CTA's thread 0 writes the cycles its CTA took
// (from the first warp's start to the last warp's end, both after a barrier, on its SM's own
// clock) to out[blockIdx.x]; with one CTA per SM the bandwidth is the bytes read in the timed
// pass over the longest CTA's cycles.
//   bw_ca: ld.global (through the L1)   bw_cg: ld.global.cg (L2 only)
template <bool CG>
__device__ void bw_read(const float4 *a, unsigned mask, int n_warm, int n_meas, long long *out)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x, step = gridDim.x * blockDim.x;
    float acc = 0;
    unsigned k = i;
    for (int w = 0; w < n_warm; w++, k += step) {
        float4 v = CG ? __ldcg(&a[k & mask]) : a[k & mask];
        acc += v.x + v.y + v.z + v.w;
    }
    __syncthreads();
    long long t1 = clock64();
    for (int w = 0; w < n_meas; w++, k += step) {
        float4 v = CG ? __ldcg(&a[k & mask]) : a[k & mask];
        acc += v.x + v.y + v.z + v.w;
    }
    __syncthreads();
    long long t2 = clock64();
    if (threadIdx.x == 0)
        out[blockIdx.x] = t2 - t1;
    if (acc == -1.0f)
        out[gridDim.x] = 1;
}

extern "C" __global__ void bw_ca(const float4 *a, unsigned mask, int n_warm, int n_meas,
                                 long long *out)
{
    bw_read<false>(a, mask, n_warm, n_meas, out);
}

extern "C" __global__ void bw_cg(const float4 *a, unsigned mask, int n_warm, int n_meas,
                                 long long *out)
{
    bw_read<true>(a, mask, n_warm, n_meas, out);
}
