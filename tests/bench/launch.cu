// tests/bench/launch.cu - launch overhead of the drop-in libcudart (issue 7): the cost of a
// small kernel launch, which decides how fast programs made of many short kernels run.
//
//   launch N        N launches of a 1-CTA, 32-thread kernel on the legacy default stream,
//                   then one cudaMemcpy that waits for all of them
//   launch N S      the same N launches spread round-robin over S non-blocking streams
//
// Prints "launch: N launches, S streams, T us/launch" and exits 1 when the counter the
// kernels increment is wrong (a measurement that is also checked). A measurement, never a test.
#include <cstdio>
#include <cstdlib>
#include <ctime>

__global__ void bump(unsigned *p)
{
    if (threadIdx.x == 0)
        atomicAdd(p, 1u);
}

static double now()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    int ns = argc > 2 ? atoi(argv[2]) : 0;
    if (n <= 0 || ns < 0 || ns > 64) {
        fprintf(stderr, "usage: launch N [STREAMS<=64]\n");
        return 2;
    }
    cudaStream_t s[64];
    for (int i = 0; i < ns; i++)
        cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking);
    unsigned *d;
    if (cudaMalloc(&d, sizeof *d) != cudaSuccess || cudaMemset(d, 0, sizeof *d) != cudaSuccess) {
        fprintf(stderr, "launch: no device memory\n");
        return 1;
    }
    bump<<<1, 32>>>(d); // warm-up: loads the module
    cudaDeviceSynchronize();
    double t0 = now();
    for (int i = 0; i < n; i++)
        bump<<<1, 32, 0, ns ? s[i % ns] : 0>>>(d);
    if (ns)
        cudaDeviceSynchronize();
    unsigned h = 0;
    cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
    double t = now() - t0;
    cudaError_t e = cudaGetLastError();
    printf("launch: %d launches, %d streams, %.2f us/launch\n", n, ns, t / n * 1e6);
    if (e != cudaSuccess || h != (unsigned)n + 1) {
        fprintf(stderr, "launch: FAIL: counter %u, expected %u (%s)\n", h, n + 1,
                cudaGetErrorString(e));
        return 1;
    }
    return 0;
}
