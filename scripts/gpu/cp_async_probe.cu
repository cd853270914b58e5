// cp.async single-warp probe: one block of one warp issues R back-to-back cp.async copies of one
// form (.ca 4/8/16 bytes, .cg 16 bytes, .cg with an L2 prefetch hint) from chosen global byte
// offsets to chosen shared byte offsets, then waits for them. Run under Nsight Compute
// (scripts/gpu/run_cp_async_probe.sh) to read the shared-memory wavefronts of each launch.
//
// Cases (TSV, one launch each, in file order): id, instruction, expected, 32 shared offsets,
// 32 global offsets, repeat R, shared step, global step, description. Copy k of lane t goes from
// global byte G[t] + k*gstep to shared byte S[t] + k*sstep, both from 1024-byte-aligned bases.
// Build: nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -lineinfo -o cp_async_probe cp_async_probe.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../../replay/programs/cuda_check.cuh"

namespace {

constexpr int kSmemBytes = 64 * 1024;
constexpr size_t kGlobalBytes = size_t{8} << 20;

enum class Form { Ca4, Ca8, Ca16, Cg16, Cg16L2_128 };

struct FormName {
  const char* name;
  Form form;
};

constexpr FormName kForms[] = {
    {"cp.async.ca.4", Form::Ca4},   {"cp.async.ca.8", Form::Ca8},   {"cp.async.ca.16", Form::Ca16},
    {"cp.async.cg.16", Form::Cg16}, {"cp.async.cg.16.L2::128B", Form::Cg16L2_128},
};

template <Form kForm>
__device__ __forceinline__ void copy(uint32_t dst, const uint8_t* src) {
  if constexpr (kForm == Form::Ca4)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(dst), "l"(src) : "memory");
  else if constexpr (kForm == Form::Ca8)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(dst), "l"(src) : "memory");
  else if constexpr (kForm == Form::Ca16)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
  else if constexpr (kForm == Form::Cg16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
  else
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}

// R copies per lane and the wait; nothing else touches shared memory, so every shared wavefront
// of the launch is the copies'.
template <Form kForm, int kRepeat>
__global__ void probe(const uint32_t* __restrict__ soff, const uint32_t* __restrict__ goff, const uint8_t* gbase,
                      uint32_t sstep, uint32_t gstep) {
  extern __shared__ uint8_t smem_raw[];
  const uint32_t lane = threadIdx.x;
  const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
  const uint32_t base = (raw + 1023u) & ~1023u;
  const uint32_t s = base + soff[lane];
  const uint8_t* g = gbase + goff[lane];
#pragma unroll
  for (int k = 0; k < kRepeat; ++k) copy<kForm>(s + k * sstep, g + k * gstep);
  asm volatile("cp.async.wait_all;" ::: "memory");
}

using Kernel = void (*)(const uint32_t*, const uint32_t*, const uint8_t*, uint32_t, uint32_t);

template <Form kForm>
Kernel pick(int repeat) {
  switch (repeat) {
    case 1: return probe<kForm, 1>;
    case 2: return probe<kForm, 2>;
    case 4: return probe<kForm, 4>;
    case 8: return probe<kForm, 8>;
    default: return nullptr;
  }
}

Kernel kernel_for(Form form, int repeat) {
  switch (form) {
    case Form::Ca4: return pick<Form::Ca4>(repeat);
    case Form::Ca8: return pick<Form::Ca8>(repeat);
    case Form::Ca16: return pick<Form::Ca16>(repeat);
    case Form::Cg16: return pick<Form::Cg16>(repeat);
    case Form::Cg16L2_128: return pick<Form::Cg16L2_128>(repeat);
  }
  return nullptr;
}

std::vector<uint32_t> numbers(const std::string& list) {
  std::vector<uint32_t> out;
  std::stringstream items(list);
  for (std::string item; std::getline(items, item, ',');) out.push_back(static_cast<uint32_t>(std::stoul(item)));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: cp_async_probe CASES.tsv\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "cp_async_probe: cannot read %s\n", argv[1]);
    return 2;
  }
  uint32_t *soff = nullptr, *goff = nullptr;
  uint8_t* graw = nullptr;
  check(cudaMalloc(&soff, 32 * sizeof(uint32_t)), "cudaMalloc");
  check(cudaMalloc(&goff, 32 * sizeof(uint32_t)), "cudaMalloc");
  check(cudaMalloc(&graw, kGlobalBytes + 1024), "cudaMalloc");
  check(cudaMemset(graw, 1, kGlobalBytes + 1024), "cudaMemset");
  const uint8_t* gbase = graw + ((1024 - reinterpret_cast<uintptr_t>(graw) % 1024) % 1024);
  std::string line;
  int launched = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line.rfind("id\t", 0) == 0) continue;
    std::vector<std::string> col;
    std::stringstream row(line);
    for (std::string c; std::getline(row, c, '\t');) col.push_back(c);
    if (col.size() < 8) {
      std::fprintf(stderr, "cp_async_probe: short row: %s\n", line.c_str());
      return 2;
    }
    const Form* form = nullptr;
    for (const FormName& f : kForms)
      if (col[1] == f.name) form = &f.form;
    const int repeat = std::stoi(col[5]);
    Kernel kernel = form ? kernel_for(*form, repeat) : nullptr;
    const std::vector<uint32_t> s = numbers(col[3]), g = numbers(col[4]);
    const uint32_t sstep = static_cast<uint32_t>(std::stoul(col[6])), gstep = static_cast<uint32_t>(std::stoul(col[7]));
    if (!kernel || s.size() != 32 || g.size() != 32 ||
        *std::max_element(s.begin(), s.end()) + repeat * sstep + 16 > kSmemBytes ||
        *std::max_element(g.begin(), g.end()) + repeat * gstep + 16 > kGlobalBytes) {
      std::fprintf(stderr, "cp_async_probe: %s: bad instruction, repeat or offsets\n", col[0].c_str());
      return 2;
    }
    check(cudaMemcpy(soff, s.data(), sizeof(uint32_t) * 32, cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(goff, g.data(), sizeof(uint32_t) * 32, cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes + 1024), "attribute");
    kernel<<<1, 32, kSmemBytes + 1024>>>(soff, goff, gbase, sstep, gstep);
    check(cudaDeviceSynchronize(), col[0].c_str());
    std::printf("%d\t%s\t%s\n", launched++, col[0].c_str(), col[1].c_str());
  }
  return 0;
}
