// tests/ubench/constcache.cu — the L1 constant cache, timed with clock64() inside the kernel
// (the same code runs on a GPU). Built to PTX by scripts/gen-ubench.sh; tests/timing_mem.t runs
// the PTX with ptxemu exec --timing and -gpgpu_perfect_inst_const_cache 0.
//
// A chase through __constant__ memory: every load's index depends on the previous load's value.
// The table holds zeros (ptxemu exec leaves it so), so lane t's index is
// (t * spread + k * stride) & mask at step k: a first pass of n_warm steps touches the
// footprint, the second of n_meas steps (continuing from where the first stopped) is timed.
// stride 16 ints is one 64-byte line per step; spread 0 is one address per warp load (a
// broadcast), spread 1 is 32 distinct addresses (serialised, one per cycle).
// out[0] = cycles of the timed pass.
__constant__ unsigned ctab[8192];

extern "C" __global__ void chase_const(unsigned spread, unsigned stride, unsigned mask,
                                       int n_warm, int n_meas, long long *out)
{
    unsigned j = (threadIdx.x * spread) & mask;
    for (int k = 0; k < n_warm; k++)
        j = (ctab[j] + j + stride) & mask;
    long long t1 = clock64();
    for (int k = 0; k < n_meas; k++)
        j = (ctab[j] + j + stride) & mask;
    long long t2 = clock64();
    if (threadIdx.x == 0)
        out[0] = t2 - t1;
    out[1 + threadIdx.x] = j;
}
