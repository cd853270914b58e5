// Host harness for the PTX front end's device validation (docs/ptx.md): launches the kernels of
// tests/data/ptx/smem_kernels.cu and the CuTe mainloop of tests/data/ptx/cute_sm80_mainloop.cu once
// each (and a cp.async zero-fill probe), so that Nsight Compute's SourceCounters measure every shared-memory instruction.
// Built by scripts/gpu/ptx-ncu.sh build (nvcc -O3 -lineinfo -arch=sm_90, CuTe headers of
// nvidia-cutlass==4.2.0.0); the same command's --ptx output is what `layoutproof check` judges.
#include <cstdio>
#include <cuda_runtime.h>

#include "../../tests/data/ptx/smem_kernels.cu"
#include "../../tests/data/ptx/cute_sm80_mainloop.cu"

// cp.async with a source-size operand (LDGSTS...ZFILL): the same address patterns with and
// without it, to see whether zero-filling changes the bank verdict (docs/ptx.md).
__global__ void __launch_bounds__(128) async_zfill(float* out, const float4* in, int full) {
  __shared__ __align__(16) float4 s[1024];
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(s));
  const unsigned t = threadIdx.x;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(base + t * 16), "l"(in + t), "r"(full));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(base + 2048 + t * 16), "l"(in + t), "r"(t & 15));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(base + 4096 + t * 32), "l"(in + t));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(base + 8192 + t * 32), "l"(in + t), "r"(full));
  asm volatile("cp.async.wait_all;\n" ::);
  __syncthreads();
  out[t] = s[t].x + s[t + 128].x + s[2 * t + 256].x + s[2 * t + 512].x;
}

#define CHECK_CUDA(x)                                                                  \
  do {                                                                                 \
    cudaError_t e = (x);                                                               \
    if (e != cudaSuccess) {                                                            \
      std::printf("%s: %s\n", #x, cudaGetErrorString(e));                              \
      return 1;                                                                        \
    }                                                                                  \
  } while (0)

int main() {
  float *f_in, *f_out;
  float4 *v_in, *v_out;
  int *i_in, *i_out;
  unsigned* u;
  half_t* h;
  CHECK_CUDA(cudaMalloc(&f_in, 1 << 20));
  CHECK_CUDA(cudaMalloc(&f_out, 1 << 20));
  CHECK_CUDA(cudaMalloc(&v_in, 1 << 20));
  CHECK_CUDA(cudaMalloc(&v_out, 1 << 20));
  CHECK_CUDA(cudaMalloc(&i_in, 1 << 20));
  CHECK_CUDA(cudaMalloc(&i_out, 1 << 20));
  CHECK_CUDA(cudaMalloc(&u, 1 << 20));
  CHECK_CUDA(cudaMalloc(&h, 1 << 20));
  CHECK_CUDA(cudaMemset(f_in, 0, 1 << 20));
  CHECK_CUDA(cudaMemset(v_in, 0, 1 << 20));
  CHECK_CUDA(cudaMemset(i_in, 0, 1 << 20));
  CHECK_CUDA(cudaMemset(h, 0, 1 << 20));
  padded<<<1, 128>>>(f_out, f_in);
  naive<<<1, 128>>>(f_out, f_in);
  swizzled<<<1, 128>>>(f_out, f_in);
  predicated<<<1, 128>>>(f_out, f_in);
  divergent<<<1, 128>>>(f_out, f_in, 1);
  stages<<<1, 128>>>(f_out, f_in, 6);
  dynamic_offset<<<1, 128, 4096>>>(f_out, 2);
  noinline_call<<<1, 128>>>(f_out, f_in);
  vectors<<<1, 128>>>(v_out, v_in);
  matrices<<<1, 128>>>(u);
  async_copy<<<1, 128>>>(f_out, v_in);
  atomics<<<1, 128>>>(i_out, i_in);
  cute_mainloop<<<1, 128>>>(h, f_out, 4);
  async_zfill<<<1, 128>>>(f_out, v_in, 16);
  async_zfill<<<1, 128>>>(f_out, v_in, 0);  // the same with a warp-uniform source size of 0
  CHECK_CUDA(cudaDeviceSynchronize());
  std::printf("ptx_validate: 15 kernels ran\n");
  return 0;
}
