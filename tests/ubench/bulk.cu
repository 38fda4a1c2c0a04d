// tests/ubench/bulk.cu — bulk asynchronous copies (cp.async.bulk, sm_90) in timing mode, timed
// with clock64() inside the kernel (the same code runs on a GPU). Built to PTX by
// scripts/gen-ubench.sh (arch below); tests/timing_async.t runs the PTX with ptxemu exec
// --timing. The tensor (TMA) form needs a CUtensorMap, which fixtures/cuda/tma_copy.cu and
// wgmma_gemm.cu pass; its global side is modelled the same way.
// arch: sm_90
#include <cstdint>

__device__ __forceinline__ unsigned smem(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void mbar_init(unsigned b, unsigned n)
{
    asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(b), "r"(n) : "memory");
}
__device__ __forceinline__ void expect_tx(unsigned b, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;" ::"r"(b), "r"(bytes)
                 : "memory");
}
__device__ __forceinline__ void bulk_load(unsigned dst, const void *src, unsigned bytes,
                                          unsigned b)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], "
                 "%2, [%3];" ::"r"(dst), "l"(src), "r"(bytes), "r"(b)
                 : "memory");
}
__device__ __forceinline__ void wait_parity(unsigned b, unsigned ph)
{
    asm volatile("{\n\t.reg .pred p;\n"
                 "W%=:\n\tmbarrier.try_wait.parity.shared.b64 p, [%0], %1;\n"
                 "\t@!p bra W%=;\n}" ::"r"(b), "r"(ph)
                 : "memory");
}

// One thread copies 16 KiB from DRAM into shared memory on an mbarrier (expect_tx, then a
// try_wait loop). out[0] = cycles from before the copy to after the loop, out[1] = a value.
extern "C" __global__ void bk_load(const int4 *src, long long *out)
{
    __shared__ alignas(128) int4 buf[1024];
    __shared__ uint64_t bar;
    const unsigned b = smem(&bar);
    mbar_init(b, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    long long t1 = clock64();
    expect_tx(b, sizeof buf);
    bulk_load(smem(buf), src, sizeof buf, b);
    wait_parity(b, 0);
    long long t2 = clock64();
    out[0] = t2 - t1;
    out[1] = buf[1023].w;
}

// One thread writes 4 KiB of shared memory to global memory (a bulk group), then waits for
// the group (wait_group 0: the writes done). out[0] = cycles from before the copy to after the
// wait.
extern "C" __global__ void bk_store(int4 *dst, long long *out)
{
    __shared__ alignas(128) int4 buf[256];
    for (int i = 0; i < 256; i++)
        buf[i] = make_int4(i, i, i, i);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    long long t1 = clock64();
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst),
                 "r"(smem(buf)), "r"((unsigned)sizeof buf)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    long long t2 = clock64();
    out[0] = t2 - t1;
}

// As bk_store, waiting with wait_group.read 0 (the source read, not the writes done), then
// with wait_group 0. out[0] = cycles to after the first wait, out[1] = to after the second.
extern "C" __global__ void bk_store_read(int4 *dst, long long *out)
{
    __shared__ alignas(128) int4 buf[256];
    for (int i = 0; i < 256; i++)
        buf[i] = make_int4(i, i, i, i);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    long long t1 = clock64();
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst),
                 "r"(smem(buf)), "r"((unsigned)sizeof buf)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    long long t2 = clock64();
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    long long t3 = clock64();
    out[0] = t2 - t1;
    out[1] = t3 - t1;
}

// The TMA unit is not the LD/ST unit: thread 0 starts a 16 KiB bulk load (when `bulk`)
// while warp 1 runs 16 dependent shared-memory loads. out[0] = the chain's cycles.
extern "C" __global__ void bk_ldst(const int4 *src, long long *out, int bulk)
{
    __shared__ alignas(128) int4 buf[1024];
    __shared__ uint64_t bar;
    __shared__ int chain[32];
    const unsigned b = smem(&bar);
    if (threadIdx.x == 0) {
        mbar_init(b, 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    if (threadIdx.x < 32)
        chain[threadIdx.x] = 0;
    __syncthreads();
    if (threadIdx.x == 0 && bulk) {
        expect_tx(b, sizeof buf);
        bulk_load(smem(buf), src, sizeof buf, b);
    }
    if (threadIdx.x == 32) {
        volatile int *c = chain;
        int j = 0;
        long long t1 = clock64();
        for (int k = 0; k < 16; k++)
            j = c[j];
        long long t2 = clock64();
        out[0] = t2 - t1 + j;
    }
    if (threadIdx.x == 0 && bulk)
        wait_parity(b, 0);
}

// A double-buffered pipeline: thread 0 loads tile k + 1 (2 KiB) while every thread sums its
// element of tile k. out[blockIdx * 128 + t] = the thread's sum.
extern "C" __global__ void bk_pipe(const int4 *src, int *out, int ntiles)
{
    __shared__ alignas(128) int4 buf[2][128];
    __shared__ uint64_t bar[2];
    const unsigned t = threadIdx.x;
    const int4 *base = src + (size_t)blockIdx.x * ntiles * 128;
    if (t == 0) {
        mbar_init(smem(&bar[0]), 1);
        mbar_init(smem(&bar[1]), 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        expect_tx(smem(&bar[0]), sizeof buf[0]);
        bulk_load(smem(buf[0]), base, sizeof buf[0], smem(&bar[0]));
    }
    __syncthreads();
    int sum = 0;
    for (int k = 0; k < ntiles; k++) {
        const int s = k & 1;
        if (t == 0 && k + 1 < ntiles) {
            expect_tx(smem(&bar[s ^ 1]), sizeof buf[0]);
            bulk_load(smem(buf[s ^ 1]), base + (size_t)(k + 1) * 128, sizeof buf[0],
                      smem(&bar[s ^ 1]));
        }
        wait_parity(smem(&bar[s]), (k >> 1) & 1);
        const int4 v = buf[s][t];
        sum += v.x + v.y + v.z + v.w;
        __syncthreads(); // the buffer is refilled at iteration k + 1
    }
    out[blockIdx.x * 128 + t] = sum;
}
