// The reserved shared-memory registers as a GPU reports them (PTX ISA, "Special Registers":
// %reserved_smem_offset_begin, _end, _cap and %reserved_smem_offset_<2>, offsets inside the block's
// shared-memory window reserved for NVIDIA system software; cooperative groups keep their
// multi-warp scratch at %reserved_smem_offset_1, cooperative_groups/details/memory.h). Each kernel
// (no shared memory, static, dynamic, both) writes the five registers; main prints one TSV row per
// kernel and register, read by tests/hw (tests/data/sm90_reserved_smem.tsv).
//
//   nvcc -O3 -arch=sm_90 scripts/gpu/reserved_smem.cu -o reserved_smem && ./reserved_smem
#include <cstdio>

__device__ void read_registers(unsigned* out) {
  unsigned begin, end, cap, r0, r1;
  asm volatile("mov.u32 %0, %%reserved_smem_offset_begin;" : "=r"(begin));
  asm volatile("mov.u32 %0, %%reserved_smem_offset_end;" : "=r"(end));
  asm volatile("mov.u32 %0, %%reserved_smem_offset_cap;" : "=r"(cap));
  asm volatile("mov.u32 %0, %%reserved_smem_offset_0;" : "=r"(r0));
  asm volatile("mov.u32 %0, %%reserved_smem_offset_1;" : "=r"(r1));
  out[0] = begin, out[1] = end, out[2] = cap, out[3] = r0, out[4] = r1;
}

__global__ void no_shared(unsigned* out) {
  if (threadIdx.x == 0) read_registers(out);
}

__global__ void static_shared(unsigned* out) {
  __shared__ float tile[1024];
  tile[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) read_registers(out);
  out[8] = static_cast<unsigned>(tile[(threadIdx.x + 1) % blockDim.x]);
}

__global__ void dynamic_shared(unsigned* out) {
  extern __shared__ float dyn[];
  dyn[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) read_registers(out);
  out[8] = static_cast<unsigned>(dyn[(threadIdx.x + 1) % blockDim.x]);
}

int main() {
  unsigned* d;
  unsigned h[4][16];
  cudaMalloc(&d, 4 * 16 * sizeof(unsigned));
  cudaMemset(d, 0xff, 4 * 16 * sizeof(unsigned));
  no_shared<<<1, 128>>>(d);
  static_shared<<<1, 128>>>(d + 16);
  dynamic_shared<<<1, 128, 4096>>>(d + 32);
  cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) {
    std::fprintf(stderr, "%s\n", cudaGetErrorString(e));
    return 1;
  }
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  std::printf("# %s, sm_%d%d, reservedSharedMemPerBlock %zu\n", p.name, p.major, p.minor, p.reservedSharedMemPerBlock);
  std::printf("kernel\tbegin\tend\tcap\toffset_0\toffset_1\n");
  const char* names[] = {"no_shared", "static_shared", "dynamic_shared"};
  for (int k = 0; k < 3; ++k)
    std::printf("%s\t%u\t%u\t%u\t%u\t%u\n", names[k], h[k][0], h[k][1], h[k][2], h[k][3], h[k][4]);
  cudaFree(d);
  return 0;
}
