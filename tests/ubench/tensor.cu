// tests/ubench/tensor.cu — tensor-core instructions in timing mode (-ptxemu_tensor_rate), timed
// with clock64() inside the kernel (the same code runs on a GPU). Built to PTX by
// scripts/gen-ubench.sh (arch below); tests/timing_tensor.t runs the PTX with ptxemu exec
// --timing. out[] holds the cycle counts and a value of the results (so nothing is optimised
// away). The operands are whatever the input buffer holds: only the time matters here.
// arch: sm_90a
#include <cstdint>

#define MMA16816(d, a, b)                                                                   \
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "       \
                 "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"                                   \
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                          \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
#define MMA1688(d, a, b)                                                                    \
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "        \
                 "{%4,%5}, {%6}, {%0,%1,%2,%3};"                                            \
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                          \
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]))
#define MMATF32(d, a, b)                                                                    \
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, "      \
                 "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"                                   \
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                          \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))

// One warp. out[0]: 16 dependent m16n8k16 f16 mma.sync (one accumulator); out[1]: 16 in four
// independent chains; out[2]: 16 dependent m16n8k8; out[3]: 16 dependent m16n8k8 tf32.
extern "C" __global__ void mma_chain(const unsigned *in, long long *out)
{
    const unsigned l = threadIdx.x;
    unsigned a[4] = {in[l], in[l + 32], in[l + 64], in[l + 96]}, b[2] = {in[l + 128], in[l + 160]};
    float d[4] = {0, 0, 0, 0}, e[4] = {0, 0, 0, 0}, f[4] = {0, 0, 0, 0}, g[4] = {0, 0, 0, 0};
    // the clock is read after instructions that use the loaded operands (issued in order)
    unsigned w;
    asm volatile("add.u32 %0, %1, %2;\n\tadd.u32 %0, %0, %3;\n\tadd.u32 %0, %0, %4;\n\t"
                 "add.u32 %0, %0, %5;\n\tadd.u32 %0, %0, %6;"
                 : "=r"(w) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    long long t0 = clock64();
#pragma unroll
    for (int i = 0; i < 16; i++)
        MMA16816(d, a, b);
    long long t1 = clock64();
#pragma unroll
    for (int i = 0; i < 4; i++) {
        MMA16816(d, a, b);
        MMA16816(e, a, b);
        MMA16816(f, a, b);
        MMA16816(g, a, b);
    }
    long long t2 = clock64();
#pragma unroll
    for (int i = 0; i < 16; i++)
        MMA1688(e, a, b);
    long long t3 = clock64();
#pragma unroll
    for (int i = 0; i < 16; i++)
        MMATF32(f, a, b);
    long long t4 = clock64();
    if (l == 0) {
        out[0] = t1 - t0;
        out[1] = t2 - t1;
        out[2] = t3 - t2;
        out[3] = t4 - t3;
        out[4] = (long long)(d[0] + e[1] + f[2] + g[3]) + w;
    }
}

// A wgmma shared-memory descriptor, no swizzle: start >> 4, leading byte offset 128 (the next
// core matrix along K), stride byte offset 256 (the next 8 rows).
__device__ __forceinline__ uint64_t wg_desc(unsigned saddr)
{
    return (uint64_t)((saddr & 0x3FFFF) >> 4) | (uint64_t)(128 >> 4) << 16 |
           (uint64_t)(256 >> 4) << 32;
}

#define WG_ACC32                                                                            \
    "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23," \
    "%24,%25,%26,%27,%28,%29,%30,%31}"
#define WG_OUT32(c)                                                                         \
    "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]), "+f"(c[4]), "+f"(c[5]), "+f"(c[6]),       \
        "+f"(c[7]), "+f"(c[8]), "+f"(c[9]), "+f"(c[10]), "+f"(c[11]), "+f"(c[12]),             \
        "+f"(c[13]), "+f"(c[14]), "+f"(c[15]), "+f"(c[16]), "+f"(c[17]), "+f"(c[18]),          \
        "+f"(c[19]), "+f"(c[20]), "+f"(c[21]), "+f"(c[22]), "+f"(c[23]), "+f"(c[24]),          \
        "+f"(c[25]), "+f"(c[26]), "+f"(c[27]), "+f"(c[28]), "+f"(c[29]), "+f"(c[30]), "+f"(c[31])
// wgmma m64n64k16 f32 += f16 * f16, A and B from shared memory (descriptors), accumulating
#define WGMMA64(c, da, db)                                                                  \
    asm volatile("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 " WG_ACC32             \
                 ", %32, %33, 1, 1, 1, 0, 0;"                                               \
                 : WG_OUT32(c)                                                              \
                 : "l"(da), "l"(db))

// One warpgroup (128 threads). Group 1: four wgmma m64n64k16 into one accumulator, committed;
// group 2: four more into another, committed. out[0]: cycles to wait_group 1 (group 1 done),
// out[1]: to wait_group 0 (both), out[2]: a value of the results.
extern "C" __global__ void wgmma_groups(const unsigned *in, long long *out)
{
    __shared__ __align__(128) unsigned short sA[64 * 16], sB[64 * 16];
    const unsigned t = threadIdx.x;
    for (unsigned i = t; i < 64 * 16; i += 128)
        sA[i] = (unsigned short)in[i % 256], sB[i] = (unsigned short)in[(i + 7) % 256];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    const uint64_t da = wg_desc((unsigned)__cvta_generic_to_shared(sA));
    const uint64_t db = wg_desc((unsigned)__cvta_generic_to_shared(sB));
    float c[32], e[32];
#pragma unroll
    for (int i = 0; i < 32; i++)
        c[i] = e[i] = 0.0f;
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    long long t0 = clock64();
#pragma unroll
    for (int i = 0; i < 4; i++)
        WGMMA64(c, da, db);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#pragma unroll
    for (int i = 0; i < 4; i++)
        WGMMA64(e, da, db);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
    long long t1 = clock64();
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    long long t2 = clock64();
    if (t == 0) {
        out[0] = t1 - t0;
        out[1] = t2 - t0;
        out[2] = (long long)(c[0] + e[31]);
    }
}
