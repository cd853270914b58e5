// A kernel its translation unit does not launch (another one would): every legal launch is
// possible, so its verdicts depend on the launch (tests/ptx/test_ptx_launch.cpp).
__global__ void launched_elsewhere(float* out) {
  __shared__ float s[64][33];
  s[threadIdx.y][threadIdx.x] = 5.0f;  // ORACLE le_store
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = s[threadIdx.x][threadIdx.y];  // ORACLE le_load
}
