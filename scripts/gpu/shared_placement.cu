// Where the hardware sees each kernel's shared variables: every kernel writes the shared-window
// address of each of its variables (__cvta_generic_to_shared) to `out`, next to one access per
// variable so that nvcc keeps it. `layoutproof check --cuda` reads the same placement from the cubin
// (frontend/ptx/SharedPlacement.h); tests/ptx/test_sass.cpp compares the two on the
// measurements in tests/data/sass/sm90_shared_placement.tsv.
//   nvcc -O3 -lineinfo -arch=sm_90a scripts/gpu/shared_placement.cu -o placement && ./placement
#include <cstdio>
#include <cuda_runtime.h>

#define ADDR(x) static_cast<unsigned>(__cvta_generic_to_shared(x))

// Two float arrays: PTX declares .align 4; the second is read as float4 (vector loads).
__global__ void two_floats(float* out, unsigned* where) {
  __shared__ float a[256];
  __shared__ float b[1024];
  const int t = threadIdx.x;
  a[t] = t;
  reinterpret_cast<float4*>(b)[t] = make_float4(t, t, t, t);
  __syncthreads();
  out[t] = a[(t * 8) % 256] + reinterpret_cast<float4*>(b)[(t + 1) % 256].y;
  if (t == 0) where[0] = ADDR(a), where[1] = ADDR(b);
}

// Mixed sizes and types: a char buffer of odd size before a double and a padded int tile.
__global__ void mixed(double* out, unsigned* where) {
  __shared__ char tag[37];
  __shared__ double d[64];
  __shared__ int tile[33][32];
  const int t = threadIdx.x;
  tag[t % 37] = t;
  d[t % 64] = t;
  tile[t % 33][t % 32] = t;
  __syncthreads();
  out[t] = d[(t + 3) % 64] + tag[(t + 5) % 37] + tile[(t + 1) % 33][t % 32];
  if (t == 0) where[0] = ADDR(tag), where[1] = ADDR(d), where[2] = ADDR(tile);
}

// A 16-byte aligned array declared after a small one, and dynamic shared memory after them.
__global__ void with_dynamic(float* out, unsigned* where) {
  __shared__ short small[3];
  __shared__ __align__(16) float4 v[32];
  extern __shared__ float dyn[];
  const int t = threadIdx.x;
  small[t % 3] = t;
  v[t] = make_float4(t, 0, 0, 0);
  dyn[t] = t;
  __syncthreads();
  out[t] = small[(t + 1) % 3] + v[(t + 1) % 32].x + dyn[(t + 1) % 32];
  if (t == 0) where[0] = ADDR(small), where[1] = ADDR(v), where[2] = ADDR(dyn);
}

int main() {
  float* f;
  double* d;
  unsigned* w;
  cudaMalloc(&f, 1024 * sizeof(float));
  cudaMalloc(&d, 1024 * sizeof(double));
  cudaMallocManaged(&w, 16 * sizeof(unsigned));
  two_floats<<<1, 256>>>(f, w);
  cudaDeviceSynchronize();
  printf("two_floats\ta\t%u\ntwo_floats\tb\t%u\n", w[0], w[1]);
  mixed<<<1, 64>>>(d, w);
  cudaDeviceSynchronize();
  printf("mixed\ttag\t%u\nmixed\td\t%u\nmixed\ttile\t%u\n", w[0], w[1], w[2]);
  with_dynamic<<<1, 32, 32 * sizeof(float)>>>(f, w);
  cudaDeviceSynchronize();
  printf("with_dynamic\tsmall\t%u\nwith_dynamic\tv\t%u\nwith_dynamic\tdyn\t%u\n", w[0], w[1], w[2]);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    fprintf(stderr, "%s\n", cudaGetErrorString(e));
    return 1;
  }
  return 0;
}
