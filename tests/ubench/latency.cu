// tests/ubench/latency.cu — dependent-chain latency microbenchmarks, timed with clock64()
// inside the kernel (the same code runs on a GPU). Each kernel runs a chain of N1 dependent
// operations, reads the clock, runs N2 more, reads it again: out[0] = cycles of the second
// segment, so (out[0] / N2) is the operation's dependent-issue latency with every constant
// overhead (the load of the seed, the first clock read) outside the measured segment.
//
// Built to PTX by scripts/gen-ubench.sh; tests/timing.t runs the PTX with ptxemu exec --timing.
#include <cstdint>

#define N1 16
#define N2 64

#define REP4(s) s s s s
#define REP16(s) REP4(REP4(s))
#define REP64(s) REP16(REP4(s))

extern "C" __global__ void lat_fadd(const float *in, long long *out)
{
    float x = in[0], b = in[1];
    REP16(x = __fadd_rn(x, b);)
    long long t1 = clock64();
    REP64(x = __fadd_rn(x, b);)
    long long t2 = clock64();
    out[0] = t2 - t1;
    out[1] = (long long)x;
}

extern "C" __global__ void lat_ffma(const float *in, long long *out)
{
    float x = in[0], a = in[1], b = in[2];
    REP16(x = __fmaf_rn(x, a, b);)
    long long t1 = clock64();
    REP64(x = __fmaf_rn(x, a, b);)
    long long t2 = clock64();
    out[0] = t2 - t1;
    out[1] = (long long)x;
}

extern "C" __global__ void lat_imad(const int *in, long long *out)
{
    int x = in[0], a = in[1], b = in[2];
    REP16(x = x * a + b;)
    long long t1 = clock64();
    REP64(x = x * a + b;)
    long long t2 = clock64();
    out[0] = t2 - t1;
    out[1] = x;
}

extern "C" __global__ void lat_mufu(const float *in, long long *out)
{
    float x = in[0];
    REP16(x = __sinf(x);)
    long long t1 = clock64();
    REP64(x = __sinf(x);)
    long long t2 = clock64();
    out[0] = t2 - t1;
    out[1] = (long long)(x * 1000.0f);
}

extern "C" __global__ void lat_dfma(const double *in, long long *out)
{
    double x = in[0], a = in[1], b = in[2];
    REP16(x = __fma_rn(x, a, b);)
    long long t1 = clock64();
    REP64(x = __fma_rn(x, a, b);)
    long long t2 = clock64();
    out[0] = t2 - t1;
    out[1] = (long long)x;
}

// Issue throughput: every thread runs four independent FFMA chains of n steps; out gets the
// cycles warp 0 measured around them.
extern "C" __global__ void tput_ffma(const float *in, long long *out, int n)
{
    float a = in[0], b = in[1];
    float x0 = in[2], x1 = x0 + 1.0f, x2 = x0 + 2.0f, x3 = x0 + 3.0f;
    long long t1 = clock64();
    for (int i = 0; i < n; i++) {
        REP4(x0 = __fmaf_rn(x0, a, b); x1 = __fmaf_rn(x1, a, b); x2 = __fmaf_rn(x2, a, b);
             x3 = __fmaf_rn(x3, a, b);)
    }
    long long t2 = clock64();
    if (threadIdx.x == 0)
        out[blockIdx.x] = t2 - t1;
    if (x0 + x1 + x2 + x3 == 12345.0f) /* keep the chains */
        out[gridDim.x] = 1;
}

// __nanosleep: out[0] = cycles around a sleep of ns[0] nanoseconds (an immediate in the PTX),
// out[1] = cycles around a sleep of in[0] nanoseconds (a register). A GPU sleeps 0..2x the
// request (the ISA's words); timing mode takes it as given, at the core clock.
extern "C" __global__ void lat_nanosleep(const unsigned *in, long long *out)
{
    long long t1 = clock64();
    __nanosleep(1000);
    long long t2 = clock64();
    __nanosleep(in[0]);
    long long t3 = clock64();
    out[0] = t2 - t1;
    out[1] = t3 - t2;
}
