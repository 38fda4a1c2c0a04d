// tests/ubench/bank_conflict.cu — shared-memory bank conflicts: lane l of every warp reads
// word (l / way) + (l % way) * 32 of a shared array, so each bank used serves `way` distinct
// words: an exact way-way conflict for way = 1 … 32. Every warp issues 8 independent such
// loads per step (into 8 registers), enough warps that the LD/ST unit is the bottleneck at every
// `way`; out[0]/out[1] get the earliest start and the latest end clock over all warps, so
// out[1] - out[0] is the loop's cost (way× the conflict-free cost on an n-way conflict).
extern "C" __global__ void bank_conflict(unsigned long long *out, int way, int n)
{
    __shared__ float s[32 * 33];
    for (int i = threadIdx.x; i < 32 * 33; i += blockDim.x)
        s[i] = (float)i;
    __syncthreads();
    int l = threadIdx.x & 31;
    int w = (l / way) + (l % way) * 32;
    volatile float *vs = s;
    float a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
    unsigned long long t1 = clock64();
    for (int i = 0; i < n; i++) {
        a0 = vs[w]; a1 = vs[w]; a2 = vs[w]; a3 = vs[w];
        a4 = vs[w]; a5 = vs[w]; a6 = vs[w]; a7 = vs[w];
    }
    unsigned long long t2 = clock64();
    if (l == 0) {
        atomicMin(&out[0], t1);
        atomicMax(&out[1], t2);
    }
    if (a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 == -1.0f)
        out[2] = 1;
}
