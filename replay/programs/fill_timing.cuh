// cp.async.cg's cost shows inside a fill kernel: every warp of up to 3 blocks per SM copies 16 bytes
// per lane from an L2-resident window to the case's (or the control's) lane offsets, 2 copies per
// stage, 2 stages, and the kernel is timed (best of 7 launches). Part of the replay programs of
// LP002 on cp.async.cg and of LP009; needs cuda_check.cuh before it.
#ifndef LP_REPLAY_FILL_TIMING_CUH
#define LP_REPLAY_FILL_TIMING_CUH
namespace fill_timing {

constexpr int kWarps = 4, kCopies = 2, kStages = 2, kIterations = 512;
constexpr int kWindow = 1 << 20;

__global__ void __launch_bounds__(kWarps * 32) context_fill(const uint8_t* __restrict__ g, const uint32_t* __restrict__ pattern,
                                                            uint32_t span) {
  extern __shared__ uint8_t smem_raw[];
  const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
  const uint32_t base = (raw + 1023u) & ~1023u;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const uint32_t mine = base + pattern[lane] + warp * kCopies * kStages * span;
  uint32_t chunk = (blockIdx.x * kWarps + warp) * 97u;
  for (int it = 0; it < kIterations; ++it) {
#pragma unroll
    for (int k = 0; k < kCopies; ++k) {
      const uint8_t* src = g + (chunk++ % (kWindow / 512)) * 512 + lane * 16;
      const uint32_t dst = mine + ((it % kStages) * kCopies + k) * span;
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(src) : "memory");
    }
    asm volatile("cp.async.commit_group;\n\tcp.async.wait_group 1;" ::: "memory");
  }
  asm volatile("cp.async.wait_all;" ::: "memory");
}

float best_us(const uint32_t* offsets, const uint8_t* g, uint32_t* pattern, uint32_t span, int grid, int smem) {
  check(cudaMemcpy(pattern, offsets, 32 * sizeof(uint32_t), cudaMemcpyHostToDevice), "cudaMemcpy");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  float best = 1e30f;
  for (int run = 0; run < 9; ++run) {
    check(cudaEventRecord(start), "record");
    context_fill<<<grid, kWarps * 32, smem>>>(g, pattern, span);
    check(cudaEventRecord(stop), "record");
    check(cudaEventSynchronize(stop), "context_fill");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
    if (run >= 2) best = std::min(best, ms * 1000.f);
  }
  return best;
}

// Times both patterns (span: their extent rounded to 1024 bytes), prints, returns case / control.
double case_over_control(const uint32_t* case_offsets, const uint32_t* control_offsets, uint32_t span) {
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  const int smem = kWarps * kCopies * kStages * static_cast<int>(span) + 1024;
  check(cudaFuncSetAttribute(context_fill, cudaFuncAttributeMaxDynamicSharedMemorySize, smem), "attribute");
  const int per_sm = std::max(1, std::min(3, static_cast<int>(prop.sharedMemPerMultiprocessor / (smem + 1024))));
  const int grid = prop.multiProcessorCount * per_sm;
  uint8_t* g = nullptr;
  uint32_t* pattern = nullptr;
  check(cudaMalloc(&g, kWindow), "cudaMalloc");
  check(cudaMemset(g, 1, kWindow), "cudaMemset");
  check(cudaMalloc(&pattern, 32 * sizeof(uint32_t)), "cudaMalloc");
  const float control_us = best_us(control_offsets, g, pattern, span, grid, smem);
  const float case_us = best_us(case_offsets, g, pattern, span, grid, smem);
  cudaFree(g);
  cudaFree(pattern);
  std::printf("in a cp.async.cg fill kernel (%d blocks of %d warps, L2-resident source): case %.2f us, control %.2f us "
              "(ratio %.3f)\n", grid, kWarps, case_us, control_us, case_us / control_us);
  return case_us / control_us;
}

}  // namespace fill_timing
#endif
