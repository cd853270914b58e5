// Shared-memory accesses ptxas merges into wider SASS instructions (docs/ptx.md, "Accesses ptxas
// merges"): per-lane runs of consecutive floats that nvcc's PTX reads and writes one float at a
// time, which ptxas runs as one LDS.128/STS.128 or LDS.64. Measured with Nsight Compute's source
// counters per SASS instruction (scripts/gpu/sass-ncu-table.py) against `layoutproof check --cuda`.
//   nvcc -O3 -lineinfo -arch=sm_90a scripts/gpu/merged_loads.cu -o merged_loads && ./merged_loads
#include <cstdio>
#include <cuda_runtime.h>

// Four floats per lane, 16 bytes apart between lanes: each scalar access is 4-way conflicting, the
// merged 128-bit access is conflict-free.
__global__ void rows_of_four(float* out) {
  __shared__ float b[1024];
  const int t = threadIdx.x;
  b[t * 4] = t;
  b[t * 4 + 1] = t + 1;
  b[t * 4 + 2] = t + 2;
  b[t * 4 + 3] = t + 3;
  __syncthreads();
  out[t] = b[t * 4] * b[t * 4 + 1] + b[t * 4 + 2] * b[t * 4 + 3];
}

// Two floats per lane, 64 bytes apart: conflicting as scalar accesses and as the merged 64-bit one.
__global__ void pairs_strided(float* out) {
  __shared__ float c[4096];
  const int t = threadIdx.x;
  c[t * 16] = t;
  c[t * 16 + 1] = t + 1;
  __syncthreads();
  out[t] = c[t * 16] - c[t * 16 + 1];
}

// Four floats per lane, 32 bytes apart: the merged 128-bit access costs twice its ideal.
__global__ void rows_of_four_padded(float* out) {
  __shared__ float d[2048];
  const int t = threadIdx.x;
  const float4 v = make_float4(t, t, t, t);
  d[t * 8] = v.x;
  d[t * 8 + 1] = v.y;
  d[t * 8 + 2] = v.z;
  d[t * 8 + 3] = v.w;
  __syncthreads();
  out[t] = d[t * 8] + d[t * 8 + 1] + d[t * 8 + 2] + d[t * 8 + 3];
}

int main() {
  float* out;
  cudaMalloc(&out, 1024 * sizeof(float));
  for (int i = 0; i < 10; ++i) {
    rows_of_four<<<64, 256>>>(out);
    pairs_strided<<<64, 256>>>(out);
    rows_of_four_padded<<<64, 256>>>(out);
  }
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    fprintf(stderr, "%s\n", cudaGetErrorString(e));
    return 1;
  }
  printf("ok\n");
  return 0;
}
