// A row of 32 floats per lane, written and read one float at a time in fully unrolled loops: ptxas
// runs them as eight STS.128 and eight LDS.128 per lane (docs/ptx.md, "Accesses ptxas merges").
// nvdisasm names the last member's PTX line for a merged store and the first member's for a merged
// load, so which four stores one STS.128 runs is not known from its line alone; the addresses
// ([R2], [R2+0x10], ...) and the cover of every store decide it. Measured with Nsight Compute
// (scripts/gpu/sass-ncu-table.py): each costs 32 wavefronts where 4 are ideal.
//   nvcc -O3 -lineinfo -arch=sm_90a scripts/gpu/merged_rows.cu -o merged_rows && ./merged_rows
#include <cstdio>
#include <cuda_runtime.h>

__global__ void __launch_bounds__(32) row_sums(float* out, const float* in) {
  __shared__ float tile[32][32];
  for (int c = 0; c < 32; ++c) tile[threadIdx.x][c] = in[threadIdx.x * 32 + c];
  __syncwarp();
  float sum = 0;
  for (int c = 0; c < 32; ++c) sum += tile[threadIdx.x][c];
  out[threadIdx.x] = sum;
}

int main() {
  float *in, *out;
  cudaMalloc(&in, 1024 * sizeof(float));
  cudaMalloc(&out, 32 * sizeof(float));
  cudaMemset(in, 0, 1024 * sizeof(float));
  for (int i = 0; i < 10; ++i) row_sums<<<64, 32>>>(out, in);
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    fprintf(stderr, "%s\n", cudaGetErrorString(e));
    return 1;
  }
  printf("ok\n");
  return 0;
}
