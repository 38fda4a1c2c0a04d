// tests/ubench/tensor100.cu — tcgen05 (sm_100a) in timing mode, timed with clock64() inside the
// kernel. Built to PTX by scripts/gen-ubench.sh (arch below); tests/timing_tensor.t runs the PTX
// with ptxemu exec --timing. One CTA of 128 threads: warp 0 allocates 256 columns of tensor
// memory; thread 0 issues N tcgen05.mma.cta_group::1.kind::f16 (M = 128, N = 256, K = 16, A and
// B from shared memory), tcgen05.commit arrives on an mbarrier, and every thread waits on it.
// out[0]: thread 0's cycles from before the first MMA to after the wait; out[1]: a value.
// arch: sm_100a
#include <cstdint>

// A K-major no-swizzle shared-memory descriptor: start >> 4, leading byte offset 128, stride
// byte offset 256, bits 46-48 = 0b001.
__device__ __forceinline__ uint64_t tc_desc(unsigned saddr)
{
    return (uint64_t)((saddr & 0x3FFFF) >> 4) | (uint64_t)(128 >> 4) << 16 |
           (uint64_t)(256 >> 4) << 32 | (uint64_t)1 << 46;
}

// D f32, A and B f16, K-major, N = 256, M = 128
constexpr uint32_t IDESC = 1u << 4 | (uint32_t)(256 >> 3) << 17 | (uint32_t)(128 >> 4) << 24;

template <int NMMA> __device__ void tc_mmas(const unsigned *in, long long *out)
{
#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
    __shared__ __align__(128) unsigned short sA[128 * 16], sB[256 * 16];
    __shared__ __align__(8) uint64_t mbar;
    __shared__ uint32_t slot;
    const unsigned t = threadIdx.x;
    for (unsigned i = t; i < 256 * 16; i += 128) {
        if (i < 128 * 16)
            sA[i] = (unsigned short)in[i % 256];
        sB[i] = (unsigned short)in[(i + 3) % 256];
    }
    const unsigned s_slot = (unsigned)__cvta_generic_to_shared(&slot);
    const unsigned s_mbar = (unsigned)__cvta_generic_to_shared(&mbar);
    if (t < 32) {
        asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 256;"
                     :: "r"(s_slot) : "memory");
        asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
    }
    if (t == 0)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(s_mbar) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
    __syncthreads();
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
    const uint32_t tmem = slot;
    const uint64_t da = tc_desc((unsigned)__cvta_generic_to_shared(sA));
    const uint64_t db = tc_desc((unsigned)__cvta_generic_to_shared(sB));
    long long t0 = clock64();
    if (t == 0) {
#pragma unroll
        for (int k = 0; k < NMMA; k++)
            asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
                         "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}\n"
                         :: "r"(tmem), "l"(da), "l"(db), "r"(IDESC), "r"(k) : "memory");
        asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];"
                     :: "r"(s_mbar) : "memory");
    }
    uint32_t done = 0;
    while (!done)
        asm volatile("{\n.reg .pred p;\n"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n"
                     "selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done) : "r"(s_mbar) : "memory");
    long long t1 = clock64();
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
    uint32_t v;
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];"
                 : "=r"(v) : "r"(tmem + ((32u * (t / 32)) << 16)) : "memory");
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
    if (t == 0) {
        out[0] = t1 - t0;
        out[1] = v;
    }
    asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
    __syncthreads();
    if (t < 32)
        asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 256;" :: "r"(tmem)
                     : "memory");
#endif
}

extern "C" __global__ void tc5_mma4(const unsigned *in, long long *out) { tc_mmas<4>(in, out); }
extern "C" __global__ void tc5_mma8(const unsigned *in, long long *out) { tc_mmas<8>(in, out); }
