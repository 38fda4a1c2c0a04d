// tests/ubench/ops.cu — dependent-chain latency of PTX instructions that ptxas expands into
// several SASS instructions (div.rn.f32, sqrt.rn.f32, rcp.rn.f32, div.s32) and of bfe, timed
// with clock64() inside the kernel (the same code runs on a GPU), as latency.cu does: a chain
// of N1 operations, a clock read, N2 more, a clock read: out[0] = cycles of the N2 operations.
// nvcc -O3 (IEEE division and square root by default) emits each as one PTX instruction; bfe
// is written as inline PTX because nvcc emits it only for some shift-and-mask patterns.
//
// Built to PTX by scripts/gen-ubench.sh; tests/ubench/ubench.pl runs it (`ninja ubench`).
#define N1 16
#define N2 64

#define REP4(s) s s s s
#define REP16(s) REP4(REP4(s))
#define REP64(s) REP16(REP4(s))

// x stays in [1, 2): x / b with b = in[1] close to 1, then + 1 - the quotient's drift is kept
// by the chain (the value does not matter, only the dependence).
extern "C" __global__ void lat_div_f32(const float *in, long long *out)
{
    float x = in[0], b = in[1];
    REP16(x = x / b;)
    long long t1 = clock64();
    REP64(x = x / b;)
    long long t2 = clock64();
    out[0] = t2 - t1;
    out[1] = (long long)x;
}

extern "C" __global__ void lat_sqrt_f32(const float *in, long long *out)
{
    float x = in[0];
    REP16(x = sqrtf(x);)
    long long t1 = clock64();
    REP64(x = sqrtf(x);)
    long long t2 = clock64();
    out[0] = t2 - t1;
    out[1] = (long long)x;
}

extern "C" __global__ void lat_rcp_f32(const float *in, long long *out)
{
    float x = in[0];
    REP16(x = 1.0f / x;)
    long long t1 = clock64();
    REP64(x = 1.0f / x;)
    long long t2 = clock64();
    out[0] = t2 - t1;
    out[1] = (long long)x;
}

extern "C" __global__ void lat_div_s32(const int *in, long long *out)
{
    int x = in[0], b = in[1];
    REP16(x = x / b;)
    long long t1 = clock64();
    REP64(x = x / b;)
    long long t2 = clock64();
    out[0] = t2 - t1;
    out[1] = x;
}

#define BFE(x, p, l) asm volatile("bfe.u32 %0, %0, %1, %2;" : "+r"(x) : "r"(p), "r"(l))

extern "C" __global__ void lat_bfe(const unsigned *in, long long *out)
{
    unsigned x = in[0], p = in[1], l = in[2];
    REP16(BFE(x, p, l);)
    long long t1 = clock64();
    REP64(BFE(x, p, l);)
    long long t2 = clock64();
    out[0] = t2 - t1;
    out[1] = x;
}
