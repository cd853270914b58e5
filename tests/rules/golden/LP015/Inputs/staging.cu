// Kernels for the LP015 goldens (tests/rules/golden/LP015): staging.ptx is this file compiled by
//   nvcc -arch=sm_90 -O3 -lineinfo -ptx staging.cu -o staging.ptx   (CUDA 13.0)
// Line numbers matter: the goldens name them.

// A 256-thread block stages a row of 256 floats: thread t writes row t/32, column t%32 of an
// 8x32 tile, and reads it back down the columns (row t%8, column t/8).
__global__ void __launch_bounds__(256) stage_rows(const float* in, float* out) {
  __shared__ float tile[8][32];
  const int t = threadIdx.x;
  tile[t / 32][t % 32] = in[blockIdx.x * 256 + t];
  __syncthreads();
  out[blockIdx.x * 256 + t] = tile[t % 8][t / 8];
}

// Each of 128 threads sums four consecutive floats of its own: nvcc reads them with one 16-byte
// ld.shared.v4 (the buffer is 16-byte aligned), not four 4-byte loads.
__global__ void __launch_bounds__(128) sum_quads(const float4* in, float* out) {
  __shared__ __align__(16) float quads[128 * 4];
  reinterpret_cast<float4*>(quads)[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
  __syncthreads();
  float s = 0;
  for (int j = 0; j < 4; ++j) s += quads[threadIdx.x * 4 + j];
  out[blockIdx.x * 128 + threadIdx.x] = s;
}
