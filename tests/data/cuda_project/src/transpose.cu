// A tiled transpose whose tile is padded by the build (TILE_PAD, set only by this target's flags):
// padded, its column reads are free of bank conflicts.
#ifndef TILE_PAD
#error "TILE_PAD is set by the build (CMakeLists.txt)"
#endif

constexpr int kTile = 32;

__global__ void transpose(float* out, const float* in, int n) {
  __shared__ float tile[kTile][kTile + TILE_PAD];
  const int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  const int tx = blockIdx.y * kTile + threadIdx.x, ty = blockIdx.x * kTile + threadIdx.y;
  out[ty * n + tx] = tile[threadIdx.x][threadIdx.y];
}

void run_transpose(float* out, const float* in, int n) {
  transpose<<<dim3(n / kTile, n / kTile), dim3(kTile, kTile)>>>(out, in, n);
}
