// stmatrix (sm_90): rows of 128 bytes, plain (8-way per matrix) and XOR-swizzled (conflict-free).
// Regenerate with tests/data/ptx/generate.sh (nvcc -O3 -lineinfo -arch=sm_90 --ptx).
#include <cstdint>

#define LANE (threadIdx.x & 31)

__device__ __forceinline__ void stsm_x4(unsigned addr, const unsigned* r) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};\n"
               :: "r"(addr), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]));
}
__global__ void __launch_bounds__(128) store_matrices(unsigned* out, const unsigned* in) {
  __shared__ __align__(1024) uint16_t tile[64 * 64];
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(tile));
  unsigned r[4] = {in[0], in[1], in[2], in[3]};
  const int row = LANE % 8, chunk = LANE / 8;
  stsm_x4(base + row * 128 + chunk * 16, r);                            // ORACLE stsm_plain
  stsm_x4(base + row * 128 + ((chunk ^ row) * 16), r);                  // ORACLE stsm_swizzled
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x];                                 // ORACLE stsm_read
}
