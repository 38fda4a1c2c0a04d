// tests/ubench/async.cu — asynchronous copies (cp.async) in timing mode, timed with clock64()
// inside the kernel (the same code runs on a GPU). Built to PTX by scripts/gen-ubench.sh;
// tests/timing_async.t runs the PTX with ptxemu exec --timing. Single-thread kernels take one
// warp; out[] holds the cycle counts and a value read back (so nothing is optimised away).
#include <cstdint>

__device__ __forceinline__ unsigned smem(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void cp16_cg(unsigned dst, const void *src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void cp16_ca(unsigned dst, const void *src)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N> __device__ __forceinline__ void wait_group()
{
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

// One 16-byte cp.async.cg from DRAM, committed and waited for (wait_group 0).
// out[0] = cycles from before the copy to after the wait.
extern "C" __global__ void cp_wait0(const int4 *src, long long *out)
{
    __shared__ int4 buf[2];
    long long t1 = clock64();
    cp16_cg(smem(&buf[0]), src);
    commit();
    wait_group<0>();
    long long t2 = clock64();
    out[0] = t2 - t1;
    out[1] = buf[0].x;
}

// Two groups: the first copies a line the L1 holds (warmed by a load that has returned: the
// clock is read after an instruction that uses its value), the second a line in DRAM. wait_group 1 waits for the first group only, wait_group 0 for both.
// out[0] = cycles to the wait_group 1, out[1] = to the wait_group 0.
extern "C" __global__ void cp_wait1(const int4 *src, long long *out)
{
    __shared__ int4 buf[2];
    int warm = __ldca(&src[0].x), w0; // src[0].x == 0: w0 = 0, once the load has its line
    asm volatile("add.s32 %0, %1, 0;" : "=r"(w0) : "r"(warm));
    long long t1 = clock64();
    cp16_ca(smem(&buf[0]), &src[w0]);
    commit();
    cp16_cg(smem(&buf[1]), &src[512]);
    commit();
    wait_group<1>();
    long long t2 = clock64();
    wait_group<0>();
    long long t3 = clock64();
    out[0] = t2 - t1;
    out[1] = t3 - t1;
    out[2] = buf[0].x + buf[1].x + warm;
}

// cp.async.mbarrier.arrive.noinc: the mbarrier's phase completes when the thread's copies do;
// a test_wait loop on it. out[0] = cycles from before the copy to after the loop.
extern "C" __global__ void cp_mbar(const int4 *src, long long *out)
{
    __shared__ int4 buf[2];
    __shared__ uint64_t bar;
    unsigned b = smem(&bar);
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(b) : "memory");
    long long t1 = clock64();
    cp16_cg(smem(&buf[0]), src);
    asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" ::"r"(b) : "memory");
    asm volatile("{\n\t.reg .pred p;\n"
                 "W:\n\tmbarrier.test_wait.parity.shared.b64 p, [%0], 0;\n"
                 "\t@!p bra W;\n}" ::"r"(b)
                 : "memory");
    long long t2 = clock64();
    out[0] = t2 - t1;
    out[1] = buf[0].x;
}

// Every thread copies 16 bytes of its own (a warp: 512 contiguous bytes, 4 lines, 16
// sectors) with cp.async.cg, then waits: the memory system sees those sectors.
extern "C" __global__ void cp_warp(const int4 *src, int *out)
{
    __shared__ int4 buf[1024];
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    cp16_cg(smem(&buf[threadIdx.x]), &src[i]);
    commit();
    wait_group<0>();
    out[i] = buf[threadIdx.x].x + buf[threadIdx.x].w;
}

// A multistage pipeline (the CUDA samples' pattern): STAGES tiles of 16 bytes per thread in
// flight, wait_group STAGES-2 before consuming the oldest. out[i] = the thread's sum.
#define STAGES 4
extern "C" __global__ void cp_pipe(const int4 *src, int *out, int ntiles)
{
    __shared__ int4 buf[STAGES][256];
    const unsigned t = threadIdx.x, n = blockDim.x;
    const int4 *base = src + (size_t)blockIdx.x * ntiles * n;
    int sum = 0;
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < ntiles)
            cp16_cg(smem(&buf[s][t]), &base[(size_t)s * n + t]);
        commit();
    }
    for (int k = 0; k < ntiles; k++) {
        wait_group<STAGES - 2>();
        __syncthreads();
        const int4 v = buf[k % STAGES][t];
        sum += v.x + v.y + v.z + v.w;
        const int nx = k + STAGES - 1;
        if (nx < ntiles)
            cp16_cg(smem(&buf[nx % STAGES][t]), &base[(size_t)nx * n + t]);
        commit();
    }
    out[blockIdx.x * n + t] = sum;
}

// A fence does not wait for asynchronous copies: cp.async from DRAM, commit, __threadfence(),
// then wait_group 0. out[0] = cycles to after the fence, out[1] = to after the wait.
extern "C" __global__ void cp_fence(const int4 *src, long long *out)
{
    __shared__ int4 buf[2];
    long long t1 = clock64();
    cp16_cg(smem(&buf[0]), src);
    commit();
    __threadfence();
    long long t2 = clock64();
    wait_group<0>();
    long long t3 = clock64();
    out[0] = t2 - t1;
    out[1] = t3 - t1;
    out[2] = buf[0].x;
}
