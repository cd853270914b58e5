// Calibrates the clock64 fallback of `layoutproof replay` (docs/replay.md) against Nsight Compute.
// For five shared-memory instructions and access patterns of known wavefront counts (k-way bank
// conflicts: 1..32 wavefronts), it times one warp two ways, exactly as the replay programs do
// (replay/programs/timed_access.cuh, which both include):
//   lat: one instruction between two clock64 reads (the result consumed, then membar.cta);
//   thr: kRep copies of the instruction back to back at the same addresses, then the same ending.
// Without arguments it prints a TSV line per (instruction, wavefronts, mode): the cycles of the
// fastest of 5 launches. With --ncu-pass it launches every kernel once in a fixed order (op, k,
// lat then thr) for `ncu --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum`.
// nvcc -std=c++17 -O2 -arch=sm_90a -o clock64_calib clock64_calib.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "../../replay/programs/cuda_check.cuh"
#include "../../replay/programs/timed_access.cuh"

namespace {

constexpr int kRep = 32;
enum Op { kLds32, kSts32, kLds128, kSts128, kLdsm4, kOps };
const char* kOpName[kOps] = {"ld.shared.b32", "st.shared.b32", "ld.shared.v4.b32", "st.shared.v4.b32", "ldmatrix.x4"};
constexpr bool kWide[kOps] = {false, false, true, true, true};

template <int OP>
__device__ __forceinline__ void access(uint32_t addr, uint32_t& r0, uint32_t& r1, uint32_t& r2, uint32_t& r3) {
  if constexpr (OP == kLds32) {
    asm volatile("ld.shared.b32 %0, [%1];" : "=r"(r0) : "r"(addr) : "memory");
  } else if constexpr (OP == kSts32) {
    asm volatile("st.shared.b32 [%0], %1;" ::"r"(addr), "r"(r0) : "memory");
  } else if constexpr (OP == kLds128) {
    asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr) : "memory");
  } else if constexpr (OP == kSts128) {
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr) : "memory");
  }
}

template <int OP, int REP>
__global__ void timed(const uint32_t* offsets, uint32_t* sink, long long* cycles) {
  timed_access<REP>(offsets[threadIdx.x], sink, cycles,
                    [](uint32_t addr, uint32_t& r0, uint32_t& r1, uint32_t& r2, uint32_t& r3) { access<OP>(addr, r0, r1, r2, r3); });
}

// Lane byte offsets with `ways` distinct words per bank: 32-bit accesses have `ways` wavefronts,
// 128-bit accesses and ldmatrix.x4 (four phases of 8 lanes, 16 bytes each) 4 * ways.
void pattern(int op, int ways, uint32_t* out) {
  for (int t = 0; t < 32; ++t) {
    if (!kWide[op]) {
      const int n = 32 / ways;
      out[t] = (t % n) * 4 + (t / n) * 128;
    } else {
      const int j = t % 8, p = t / 8, n = 8 / ways;
      out[t] = p * 4096 + (j % n) * 16 + (j / n) * 512;
    }
  }
}

using Kernel = void (*)(const uint32_t*, uint32_t*, long long*);
Kernel kernel(int op, bool thr) {
  switch (op) {
    case kLds32: return thr ? timed<kLds32, kRep> : timed<kLds32, 1>;
    case kSts32: return thr ? timed<kSts32, kRep> : timed<kSts32, 1>;
    case kLds128: return thr ? timed<kLds128, kRep> : timed<kLds128, 1>;
    case kSts128: return thr ? timed<kSts128, kRep> : timed<kSts128, 1>;
    default: return thr ? timed<kLdsm4, kRep> : timed<kLdsm4, 1>;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const bool ncu_pass = argc > 1 && std::strcmp(argv[1], "--ncu-pass") == 0;
  uint32_t* offsets = nullptr;
  uint32_t* sink = nullptr;
  long long* cycles = nullptr;
  check(cudaMalloc(&offsets, 32 * sizeof(uint32_t)), "cudaMalloc");
  check(cudaMalloc(&sink, 32 * sizeof(uint32_t)), "cudaMalloc");
  check(cudaMalloc(&cycles, sizeof(long long)), "cudaMalloc");
  const int smem = 32 * 1024;
  if (!ncu_pass) std::printf("op\tways\tpredicted_wavefronts\tmode\tcycles_min\tcycles_median\n");
  for (int op = 0; op < kOps; ++op)
    for (int ways = 1; ways <= (kWide[op] ? 8 : 32); ways *= 2) {
      uint32_t host[32];
      pattern(op, ways, host);
      check(cudaMemcpy(offsets, host, sizeof host, cudaMemcpyHostToDevice), "cudaMemcpy");
      for (int thr = 0; thr < 2; ++thr) {
        Kernel k = kernel(op, thr);
        check(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem), "attribute");
        long long c[7];
        const int runs = ncu_pass ? 1 : 7;
        for (int run = 0; run < runs; ++run) {
          k<<<1, 32, smem>>>(offsets, sink, cycles);
          check(cudaDeviceSynchronize(), "launch");
          check(cudaMemcpy(&c[run], cycles, sizeof(long long), cudaMemcpyDeviceToHost), "cudaMemcpy");
        }
        if (ncu_pass) continue;
        std::sort(c + 1, c + runs);  // the first launch is a warm-up
        std::printf("%s\t%d\t%d\t%s\t%lld\t%lld\n", kOpName[op], ways, kWide[op] ? 4 * ways : ways,
                    thr ? "thr" : "lat", c[1], c[1 + (runs - 1) / 2]);
      }
    }
  return 0;
}
