// cp.async fill throughput: does a shared-memory pattern cost time? The hardware's shared wavefront
// counters do not see cp.async.cg writes at all (docs/hardware.md, "cp.async"), so for .cg the only
// hardware evidence is time. Every warp of 3 blocks per SM issues, per iteration, 2 copies
// of one warp-wide pattern (32 lane offsets, shifted per warp, copy and stage by multiples of its
// 1024-byte-rounded span, which keeps the banks; every pattern gets the shared memory of the widest,
// so 3 blocks fit on an SM whatever the pattern), from a dense 1 MiB global window that every block
// shares (L2-resident: both forms read L2, the window is larger than what L1 keeps), 2 stages deep.
// Prints, per form and pattern, the best of 7 timed launches (cudaEvent) after 2 warm-ups, and the
// time relative to the aligned consecutive pattern of the same form.
//
// usage: cp_async_bw [ITERATIONS]
// Build: nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -std=c++17 -o cp_async_bw cp_async_bw.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../../replay/programs/cuda_check.cuh"

namespace {

constexpr int kWarps = 4, kCopies = 2, kStages = 2, kBlocksPerSm = 3;
constexpr uint32_t kMaxSpan = 4096;  // every pattern below fits; all get the same shared memory, so the same occupancy
constexpr int kWindow = 1 << 20;

template <bool kCg>
__global__ void __launch_bounds__(kWarps * 32) fill(const uint8_t* __restrict__ g, const uint32_t* __restrict__ pattern,
                                                    uint32_t span, int iterations) {
  extern __shared__ uint8_t smem_raw[];
  const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
  const uint32_t base = (raw + 1023u) & ~1023u;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const uint32_t mine = base + pattern[lane] + warp * kCopies * kStages * span;
  // Warp w of block b starts at its own 512-byte chunk of the window and walks it.
  uint32_t chunk = (blockIdx.x * kWarps + warp) * 97u;
  for (int it = 0; it < iterations; ++it) {
    const int stage = it % kStages;
#pragma unroll
    for (int k = 0; k < kCopies; ++k) {
      const uint8_t* src = g + (chunk % (kWindow / 512)) * 512 + lane * 16;
      const uint32_t dst = mine + (stage * kCopies + k) * span;
      if constexpr (kCg)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
      else
        asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
      chunk += 1;
    }
    asm volatile("cp.async.commit_group;\n\tcp.async.wait_group 1;" ::: "memory");
  }
  asm volatile("cp.async.wait_all;" ::: "memory");
}

struct Pattern {
  const char* name;
  std::vector<uint32_t> offsets;
};

std::vector<Pattern> patterns() {
  auto make = [](const char* name, auto f) {
    Pattern p{name, {}};
    for (uint32_t t = 0; t < 32; ++t) p.offsets.push_back(f(t));
    return p;
  };
  return {
      make("consec", [](uint32_t t) { return 16 * t; }),
      make("swz128", [](uint32_t t) { return 128 * (t / 8) + 16 * ((t % 8) ^ (t / 8)); }),
      make("rows144", [](uint32_t t) { return 144 * (t / 8) + 16 * (t % 8); }),
      make("rows160", [](uint32_t t) { return 160 * (t / 8) + 16 * (t % 8); }),
      make("rows192", [](uint32_t t) { return 192 * (t / 8) + 16 * (t % 8); }),
      make("rows256", [](uint32_t t) { return 256 * (t / 8) + 16 * (t % 8); }),
      make("off16", [](uint32_t t) { return 16 + 16 * t; }),
      make("off32", [](uint32_t t) { return 32 + 16 * t; }),
      make("stride32", [](uint32_t t) { return 32 * t; }),
      make("pairs", [](uint32_t t) { return 16 * (t / 2); }),
      make("stride64", [](uint32_t t) { return 64 * t; }),
      make("stride128", [](uint32_t t) { return 128 * t; }),
      // Whole, aligned sectors (lanes 2k, 2k+1 fill one), placed so the banks conflict: 2-way, 4-way.
      make("sectors64", [](uint32_t t) { return 64 * (t / 2) + 16 * (t % 2); }),
      make("sectors128", [](uint32_t t) { return 128 * (t / 2) + 16 * (t % 2); }),
      make("sectors256", [](uint32_t t) { return 256 * (t / 2) + 16 * (t % 2); }),
      make("halves_swapped", [](uint32_t t) { return 16 * (t ^ 1); }),
  };
}

}  // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 512;
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "properties");
  const int grid = prop.multiProcessorCount * kBlocksPerSm;
  uint8_t* g = nullptr;
  uint32_t* pattern = nullptr;
  check(cudaMalloc(&g, kWindow), "cudaMalloc");
  check(cudaMemset(g, 1, kWindow), "cudaMemset");
  check(cudaMalloc(&pattern, 32 * sizeof(uint32_t)), "cudaMalloc");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  std::printf("# %s, %d SMs, %d blocks x %d warps, %d iterations x %d copies per warp\n", prop.name,
              prop.multiProcessorCount, grid, kWarps, iterations, kCopies);
  std::printf("form\tpattern\tspan\tbest_us\tmedian_us\trelative_to_consec\n");
  for (bool cg : {false, true}) {
    double consec = 0;
    for (const Pattern& p : patterns()) {
      const uint32_t top = *std::max_element(p.offsets.begin(), p.offsets.end()) + 16;
      const uint32_t span = (top + 1023) / 1024 * 1024;
      const int smem = kWarps * kCopies * kStages * static_cast<int>(kMaxSpan) + 1024;
      check(cudaMemcpy(pattern, p.offsets.data(), 32 * sizeof(uint32_t), cudaMemcpyHostToDevice), "cudaMemcpy");
      auto kernel = cg ? fill<true> : fill<false>;
      check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem), "attribute");
      std::vector<float> times;
      for (int run = 0; run < 9; ++run) {
        check(cudaEventRecord(start), "record");
        kernel<<<grid, kWarps * 32, smem>>>(g, pattern, span, iterations);
        check(cudaEventRecord(stop), "record");
        check(cudaEventSynchronize(stop), p.name);
        float ms = 0;
        check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
        if (run >= 2) times.push_back(ms * 1000.f);
      }
      std::sort(times.begin(), times.end());
      if (std::string(p.name) == "consec") consec = times.front();
      std::printf("%s\t%s\t%u\t%.2f\t%.2f\t%.3f\n", cg ? "cp.async.cg.16" : "cp.async.ca.16", p.name, span, times.front(),
                  times[times.size() / 2], times.front() / consec);
    }
  }
  return 0;
}
