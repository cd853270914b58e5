// Shared-memory wavefront probe: one warp issues one shared-memory instruction per launch and
// Nsight Compute counts its wavefronts (the method behind tests/data/sm90_smem_wavefronts.tsv).
//
// For every case of a TSV (id, instruction, wavefronts, 32 comma-separated lane byte offsets,
// ...), one block of one warp executes exactly one inline-PTX shared-memory instruction, with
// the offsets read from global memory and added to a 1024-byte-aligned shared base. Run it under
// Nsight Compute (run_smem_probe.sh) to read the wavefronts of each launch; launches happen in
// file order, one per case. Build: nvcc -arch=sm_90a -O2 -o smem_probe smem_probe.cu
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

constexpr int kSmemBytes = 64 * 1024;  // covers every probe offset; 1024 more for alignment

enum class Op {
  LdU8, LdU16, LdB32, LdV2, LdV4, StU8, StU16, StB32, StV2, StV4,
  Ldsm1, Ldsm2, Ldsm4, Ldsm1T, Ldsm2T, Ldsm4T, Stsm1, Stsm2, Stsm4, Stsm1T, Stsm2T, Stsm4T,
};

struct OpName {
  const char* name;
  Op op;
};

constexpr OpName kOps[] = {
    {"ld.shared.u8", Op::LdU8},       {"ld.shared.u16", Op::LdU16},       {"ld.shared.b32", Op::LdB32},
    {"ld.shared.v2.b32", Op::LdV2},   {"ld.shared.v4.b32", Op::LdV4},     {"st.shared.u8", Op::StU8},
    {"st.shared.u16", Op::StU16},     {"st.shared.b32", Op::StB32},       {"st.shared.v2.b32", Op::StV2},
    {"st.shared.v4.b32", Op::StV4},   {"ldmatrix.x1", Op::Ldsm1},         {"ldmatrix.x2", Op::Ldsm2},
    {"ldmatrix.x4", Op::Ldsm4},       {"ldmatrix.x1.trans", Op::Ldsm1T},  {"ldmatrix.x2.trans", Op::Ldsm2T},
    {"ldmatrix.x4.trans", Op::Ldsm4T}, {"stmatrix.x1", Op::Stsm1},        {"stmatrix.x2", Op::Stsm2},
    {"stmatrix.x4", Op::Stsm4},       {"stmatrix.x1.trans", Op::Stsm1T},  {"stmatrix.x2.trans", Op::Stsm2T},
    {"stmatrix.x4.trans", Op::Stsm4T},
};  // cp.async has its own probe, cp_async_probe.cu

// One shared-memory instruction; the loaded registers go to global memory so nothing is dead.
template <Op kOp>
__global__ void probe(const uint32_t* __restrict__ offsets, uint32_t* __restrict__ sink) {
  extern __shared__ uint8_t smem_raw[];
  const uint32_t lane = threadIdx.x;
  const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
  const uint32_t addr = ((raw + 1023u) & ~1023u) + offsets[lane];
  uint32_t r0 = lane, r1 = lane + 1, r2 = lane + 2, r3 = lane + 3;
  if constexpr (kOp == Op::LdU8) {
    uint16_t v;
    asm volatile("ld.shared.u8 %0, [%1];" : "=h"(v) : "r"(addr) : "memory");
    r0 = v;
  } else if constexpr (kOp == Op::LdU16) {
    uint16_t v;
    asm volatile("ld.shared.u16 %0, [%1];" : "=h"(v) : "r"(addr) : "memory");
    r0 = v;
  } else if constexpr (kOp == Op::LdB32) {
    asm volatile("ld.shared.b32 %0, [%1];" : "=r"(r0) : "r"(addr) : "memory");
  } else if constexpr (kOp == Op::LdV2) {
    asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(addr) : "memory");
  } else if constexpr (kOp == Op::LdV4) {
    asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr) : "memory");
  } else if constexpr (kOp == Op::StU8) {
    asm volatile("st.shared.u8 [%0], %1;" ::"r"(addr), "h"(static_cast<uint16_t>(r0)) : "memory");
  } else if constexpr (kOp == Op::StU16) {
    asm volatile("st.shared.u16 [%0], %1;" ::"r"(addr), "h"(static_cast<uint16_t>(r0)) : "memory");
  } else if constexpr (kOp == Op::StB32) {
    asm volatile("st.shared.b32 [%0], %1;" ::"r"(addr), "r"(r0) : "memory");
  } else if constexpr (kOp == Op::StV2) {
    asm volatile("st.shared.v2.b32 [%0], {%1, %2};" ::"r"(addr), "r"(r0), "r"(r1) : "memory");
  } else if constexpr (kOp == Op::StV4) {
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(r0), "r"(r1), "r"(r2), "r"(r3)
                 : "memory");
  } else if constexpr (kOp == Op::Ldsm1) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(addr) : "memory");
  } else if constexpr (kOp == Op::Ldsm2) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(addr) : "memory");
  } else if constexpr (kOp == Op::Ldsm4) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr) : "memory");
  } else if constexpr (kOp == Op::Ldsm1T) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(addr) : "memory");
  } else if constexpr (kOp == Op::Ldsm2T) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                 : "=r"(r0), "=r"(r1) : "r"(addr) : "memory");
  } else if constexpr (kOp == Op::Ldsm4T) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr) : "memory");
  } else if constexpr (kOp == Op::Stsm1) {
    asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" ::"r"(addr), "r"(r0) : "memory");
  } else if constexpr (kOp == Op::Stsm2) {
    asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" ::"r"(addr), "r"(r0), "r"(r1) : "memory");
  } else if constexpr (kOp == Op::Stsm4) {
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(r0), "r"(r1),
                 "r"(r2), "r"(r3) : "memory");
  } else if constexpr (kOp == Op::Stsm1T) {
    asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" ::"r"(addr), "r"(r0) : "memory");
  } else if constexpr (kOp == Op::Stsm2T) {
    asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" ::"r"(addr), "r"(r0), "r"(r1)
                 : "memory");
  } else if constexpr (kOp == Op::Stsm4T) {
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(r0),
                 "r"(r1), "r"(r2), "r"(r3) : "memory");
  }
  sink[lane] = r0 ^ r1 ^ r2 ^ r3;
}

template <Op kOp>
void launch(const uint32_t* offsets, uint32_t* sink) {
  cudaFuncSetAttribute(probe<kOp>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes + 1024);
  probe<kOp><<<1, 32, kSmemBytes + 1024>>>(offsets, sink);
}

void launch_op(Op op, const uint32_t* offsets, uint32_t* sink) {
  switch (op) {
#define LP_PROBE_CASE(X) \
  case Op::X: launch<Op::X>(offsets, sink); break;
    LP_PROBE_CASE(LdU8) LP_PROBE_CASE(LdU16) LP_PROBE_CASE(LdB32) LP_PROBE_CASE(LdV2) LP_PROBE_CASE(LdV4)
    LP_PROBE_CASE(StU8) LP_PROBE_CASE(StU16) LP_PROBE_CASE(StB32) LP_PROBE_CASE(StV2) LP_PROBE_CASE(StV4)
    LP_PROBE_CASE(Ldsm1) LP_PROBE_CASE(Ldsm2) LP_PROBE_CASE(Ldsm4) LP_PROBE_CASE(Ldsm1T) LP_PROBE_CASE(Ldsm2T)
    LP_PROBE_CASE(Ldsm4T) LP_PROBE_CASE(Stsm1) LP_PROBE_CASE(Stsm2) LP_PROBE_CASE(Stsm4) LP_PROBE_CASE(Stsm1T)
    LP_PROBE_CASE(Stsm2T) LP_PROBE_CASE(Stsm4T)
#undef LP_PROBE_CASE
  }
}

bool op_by_name(const std::string& name, Op* op) {
  for (const OpName& o : kOps)
    if (name == o.name) {
      *op = o.op;
      return true;
    }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: smem_probe CASES.tsv  (columns: id, instruction, wavefronts, offsets)\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "smem_probe: cannot read %s\n", argv[1]);
    return 2;
  }
  uint32_t *offsets = nullptr, *sink = nullptr;
  check(cudaMalloc(&offsets, 32 * sizeof(uint32_t)), "cudaMalloc offsets");
  check(cudaMalloc(&sink, 32 * sizeof(uint32_t)), "cudaMalloc sink");
  std::string line;
  int launched = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line.rfind("id\t", 0) == 0) continue;
    std::stringstream row(line);
    std::string id, instr, wavefronts, list;
    std::getline(row, id, '\t');
    std::getline(row, instr, '\t');
    std::getline(row, wavefronts, '\t');
    std::getline(row, list, '\t');
    Op op;
    if (!op_by_name(instr, &op)) {
      std::fprintf(stderr, "smem_probe: %s: unknown instruction %s\n", id.c_str(), instr.c_str());
      return 2;
    }
    std::vector<uint32_t> host;
    std::stringstream items(list);
    for (std::string item; std::getline(items, item, ',');) host.push_back(static_cast<uint32_t>(std::stoul(item)));
    if (host.size() != 32 || *std::max_element(host.begin(), host.end()) + 16 > kSmemBytes) {
      std::fprintf(stderr, "smem_probe: %s: need 32 offsets below %d\n", id.c_str(), kSmemBytes - 16);
      return 2;
    }
    check(cudaMemcpy(offsets, host.data(), 32 * sizeof(uint32_t), cudaMemcpyHostToDevice), "cudaMemcpy");
    launch_op(op, offsets, sink);
    check(cudaDeviceSynchronize(), id.c_str());
    std::printf("%d\t%s\t%s\n", launched++, id.c_str(), instr.c_str());
  }
  return 0;
}
