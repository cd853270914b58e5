// Header-only kernels: each block sums the rows of a 32 x kCols tile staged in shared memory.
#pragma once

template <int kCols>
__global__ void row_sum(float* out, const float* in) {
  __shared__ float tile[32][kCols];
  for (int c = 0; c < kCols; ++c) tile[threadIdx.x][c] = in[threadIdx.x * kCols + c];
  __syncwarp();
  float sum = 0;
  for (int c = 0; c < kCols; ++c) sum += tile[threadIdx.x][c];
  out[threadIdx.x] = sum;
}
