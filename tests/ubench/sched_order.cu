// tests/ubench/sched_order.cu — warp scheduling order: every warp runs the same chain of
// independent integer additions and records the clock when it starts and when it finishes, so
// the order and spacing of the finish times show the scheduler's policy (greedy-then-oldest
// finishes the oldest warp first, loose round robin finishes them together).
extern "C" __global__ void sched_order(long long *out, int n)
{
    int a = threadIdx.x, b = a + 1, c = a + 2, d = a + 3;
    long long t1 = clock64();
    for (int i = 0; i < n; i++) {
        a += 3; b += 5; c += 7; d += 11;
        a ^= 1; b ^= 2; c ^= 3; d ^= 4;
    }
    long long t2 = clock64();
    int w = threadIdx.x / 32;
    if ((threadIdx.x & 31) == 0) {
        out[2 * w] = t1;
        out[2 * w + 1] = t2;
    }
    if (a + b + c + d == -1)
        out[64] = 1;
}
