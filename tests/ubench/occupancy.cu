// tests/ubench/occupancy.cu — for kernels of different register and shared-memory needs and
// block sizes, print what cudaOccupancyMaxActiveBlocksPerMultiprocessor says and launch the
// kernel once; tests/timing_occupancy.t runs it with `ptxemu run --timing` and compares each
// line with the max_cta_per_sm the timing model printed for that launch.
#include <cstdio>
#include <cuda_runtime.h>
__global__ void light(float *p) { p[threadIdx.x] += 1.0f; }
__global__ void heavy_shared(float *p)
{
    __shared__ float s[8192]; // 32 KiB
    s[threadIdx.x] = p[threadIdx.x];
    __syncthreads();
    p[threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}
extern __shared__ float dyn[];
__global__ void dynamic_shared(float *p)
{
    dyn[threadIdx.x] = p[threadIdx.x];
    __syncthreads();
    p[threadIdx.x] = dyn[blockDim.x - 1 - threadIdx.x];
}
int main()
{
    float *p;
    cudaMalloc(&p, 1024 * sizeof(float));
    cudaMemset(p, 0, 1024 * sizeof(float));
    struct { const void *f; int block; size_t dyn; const char *name; } c[] = {
        {(const void *)light, 64, 0, "light"}, {(const void *)light, 256, 0, "light"},
        {(const void *)light, 1024, 0, "light"}, {(const void *)heavy_shared, 128, 0, "heavy_shared"},
        {(const void *)heavy_shared, 512, 0, "heavy_shared"}, {(const void *)dynamic_shared, 256, 40000, "dynamic_shared"},
        {(const void *)dynamic_shared, 128, 100000, "dynamic_shared"},
    };
    for (auto &x : c) {
        int n = 0;
        if (x.dyn > 48 * 1024)
            cudaFuncSetAttribute(x.f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)x.dyn);
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, x.f, x.block, x.dyn);
        void *args[] = {&p};
        cudaLaunchKernel(x.f, dim3(1), dim3(x.block), args, x.dyn, 0);
        cudaDeviceSynchronize();
        printf("%s block %d dyn %zu: %d\n", x.name, x.block, x.dyn, n);
    }
    printf("PASS\n");
    return 0;
}
