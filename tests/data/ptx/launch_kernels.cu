// Kernels whose shared-memory verdicts depend on how they are launched (docs/ptx.md, the launch
// domain): two- and three-dimensional blocks, __launch_bounds__, launches with constant and with
// run-time shapes, a launch stated in a comment, the runtime API's launch functions
// (launch_elsewhere.cu holds a kernel its translation unit never launches).
// tests/ptx/test_ptx_launch.cpp holds each access's index formula and each kernel's launches as an
// independent oracle. Regenerate the PTX with tests/data/ptx/generate.sh.
#include <cuda_runtime.h>

#define TILE 32
#define ROWS 8

// A tiled transpose as the CUDA samples write it: block (32, 8), each thread moves 4 elements.
// Padded rows (33 floats): conflict-free and in bounds at the launch main() makes.
__global__ void transpose_padded(float* out, const float* in, int width) {
  __shared__ float tile[TILE][TILE + 1];
  const int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];  // ORACLE tp_store
  __syncthreads();
  const int ox = blockIdx.y * TILE + threadIdx.x, oy = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) out[(oy + j) * width + ox] = tile[threadIdx.x][threadIdx.y + j];  // ORACLE tp_load
}

// The same without padding: the column read is 32-way conflicting.
__global__ void transpose_naive(float* out, const float* in, int width) {
  __shared__ float tile[TILE][TILE];
  const int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];  // ORACLE tn_store
  __syncthreads();
  const int ox = blockIdx.y * TILE + threadIdx.x, oy = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) out[(oy + j) * width + ox] = tile[threadIdx.x][threadIdx.y + j];  // ORACLE tn_load
}

// A tiled matrix multiply with 16 x 16 blocks: a warp is two rows of the block.
#define BS 16
__global__ void matmul_tiled(float* c, const float* a, const float* b, int n) {
  __shared__ float as[BS][BS];
  __shared__ float bs[BS][BS];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * BS + ty, col = blockIdx.x * BS + tx;
  float acc = 0;
  for (int t = 0; t < n / BS; ++t) {
    as[ty][tx] = a[row * n + t * BS + tx];  // ORACLE mm_store_a
    bs[ty][tx] = b[(t * BS + ty) * n + col];  // ORACLE mm_store_b
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BS; ++k) acc += as[ty][k] * bs[k][tx];  // ORACLE mm_load
    __syncthreads();
  }
  c[row * n + col] = acc;
}

// A 3-D stencil's tile, block (8, 8, 4): a warp is four rows of one plane.
__global__ void stencil_3d(float* out, const float* in) {
  __shared__ float s[4][8][9];
  const int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
  s[tz][ty][tx] = in[(tz * 8 + ty) * 8 + tx];  // ORACLE st_store
  __syncthreads();
  out[(tz * 8 + ty) * 8 + tx] = s[tz][tx][ty];  // ORACLE st_load
}

// __launch_bounds__(32): one warp at most, so s[threadIdx.x] stays inside its 4096 floats.
__global__ void __launch_bounds__(32) bounded(float* out) {
  __shared__ float s[4096];
  s[threadIdx.x] = 1.0f;  // ORACLE bd_store
  __syncwarp();
  out[threadIdx.x] = s[(threadIdx.x * 4) & 4095];  // ORACLE bd_load
}

// Launched with a block size main() computes at run time: every legal launch is possible, and
// s[threadIdx.x] of 256 floats stays inside only when the block has at most 256 threads.
__global__ void runtime_block(float* out) {
  __shared__ float s[256];
  s[threadIdx.x] = 2.0f;  // ORACLE rt_store
  __syncthreads();
  out[threadIdx.x] = s[255 - threadIdx.x];  // ORACLE rt_load
}

// layoutproof: launch block(32, 4)
__global__ void stated_in_comment(float* out) {
  __shared__ float s[4][32];
  s[threadIdx.y][threadIdx.x] = 3.0f;  // ORACLE sc_store
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = s[threadIdx.x & 3][threadIdx.y * 8 + (threadIdx.x >> 2)];  // ORACLE sc_load
}

// Launched through cudaLaunchKernel with a dim3 and dynamic shared memory.
__global__ void api_launched(float* out) {
  extern __shared__ float dyn[];
  dyn[threadIdx.y * 64 + threadIdx.x] = 4.0f;  // ORACLE api_store
  __syncthreads();
  out[threadIdx.y * 64 + threadIdx.x] = dyn[threadIdx.x * 2 + threadIdx.y];  // ORACLE api_load
}

// Launched through cudaLaunchKernelEx with its configuration's fields set one by one.
__global__ void ex_launched(float* out) {
  __shared__ float s[16][17];
  s[threadIdx.x][threadIdx.y] = 6.0f;  // ORACLE ex_store
  __syncthreads();
  out[threadIdx.y * 16 + threadIdx.x] = s[threadIdx.y][threadIdx.x];  // ORACLE ex_load
}

static void launch_runtime(float* out, int threads) { runtime_block<<<1, threads>>>(out); }

int main(int argc, char**) {
  constexpr int kWidth = 256;
  float *a = nullptr, *b = nullptr, *c = nullptr;
  cudaMalloc(&a, kWidth * kWidth * sizeof(float));
  cudaMalloc(&b, kWidth * kWidth * sizeof(float));
  cudaMalloc(&c, kWidth * kWidth * sizeof(float));
  dim3 grid(kWidth / TILE, kWidth / TILE), threads(TILE, ROWS);
  transpose_padded<<<grid, threads>>>(b, a, kWidth);
  transpose_naive<<<grid, threads>>>(b, a, kWidth);
  const dim3 mm_block(BS, BS);
  matmul_tiled<<<dim3(kWidth / BS, kWidth / BS), mm_block>>>(c, a, b, kWidth);
  stencil_3d<<<1, dim3(8, 8, 4)>>>(b, a);
  bounded<<<1, 32>>>(b);
  launch_runtime(b, 128 + argc);
  stated_in_comment<<<1, dim3(32, 4)>>>(b);
  void* args[] = {&b};
  cudaLaunchKernel((const void*)api_launched, dim3(1), dim3(64, 2), args, 2 * 64 * sizeof(float), 0);
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(2);
  config.blockDim = dim3(16, 16);
  config.dynamicSmemBytes = 0;
  cudaLaunchKernelEx(&config, ex_launched, b);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
