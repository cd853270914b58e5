// cp.async inside real kernels: multi-warp, multi-stage fills of a shared tile from a global matrix
// with realistic traffic (hundreds of blocks streaming tiles), optionally followed by ldmatrix
// reads, over every form (.ca 4/8/16, .cg 16, .cg 16 with an L2 prefetch hint), row pitches of
// 128 (plain or 128B-swizzled), 136, 144, 160, 192, 256 and 272 bytes, 1 to 8 warps, 1 to 16
// back-to-back copies per thread and stage, and global row strides and offsets. Run under Nsight
// Compute (scripts/gpu/run_cp_async_probe.sh): whole-kernel wavefront counters per launch and
// source counters per SASS instruction.
//
// Thread t of the block copies, in pass k, tile row k * (threads / lanes_per_row) + t /
// lanes_per_row, bytes (t % lanes_per_row) * B .. + B of it, where lanes_per_row = row bytes / B:
// the usual row-major fill (CUTLASS's and llama.cpp's thread layouts for 128-byte rows). Tile j
// of block b holds global rows (b * tiles + j) * rows .. + rows of a matrix with the given row
// stride, starting goff bytes into the allocation.
//
// usage: cp_async_kernel list | cp_async_kernel run NAME...   (each NAME launched once, in order)
//        cp_async_kernel time NAME...  (each NAME: 3 warm-ups, then the best and median of 15 timed launches, cudaEvent)
// Build: nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -lineinfo -std=c++17 -o cp_async_kernel cp_async_kernel.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../../replay/programs/cuda_check.cuh"

namespace {

enum class Form { Ca4, Ca8, Ca16, Cg16, Cg16L2_64 };

__host__ __device__ constexpr int form_bytes(Form f) { return f == Form::Ca4 ? 4 : f == Form::Ca8 ? 8 : 16; }

const char* form_name(Form f) {
  switch (f) {
    case Form::Ca4: return "cp.async.ca.4";
    case Form::Ca8: return "cp.async.ca.8";
    case Form::Ca16: return "cp.async.ca.16";
    case Form::Cg16: return "cp.async.cg.16";
    case Form::Cg16L2_64: return "cp.async.cg.16.L2::64B";
  }
  return "?";
}

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
    asm volatile("cp.async.cg.shared.global.L2::64B [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}

// Byte offset of (row, byte) in a tile: rows kPitch apart; with kSwz the 16-byte chunk index is
// XORed with row % 8 (CuTe's Swizzle<3,4,3> on bytes of a 128-byte row).
template <int kPitch, bool kSwz>
__device__ __forceinline__ uint32_t tile_offset(int row, int byte) {
  const int b = kSwz ? (((byte >> 4) ^ (row & 7)) << 4) | (byte & 15) : byte;
  return static_cast<uint32_t>(row * kPitch + b);
}

template <Form kForm, int kWarps, int kRows, int kRowBytes, int kPitch, bool kSwz, int kStages, bool kReads>
__global__ void __launch_bounds__(kWarps * 32) fill(const uint8_t* __restrict__ g, int gstride, int tiles,
                                                    uint32_t* __restrict__ sink) {
  constexpr int kB = form_bytes(kForm);
  constexpr int kThreads = kWarps * 32;
  constexpr int kLanesPerRow = kRowBytes / kB;
  constexpr int kRowsPerPass = kThreads / kLanesPerRow;
  constexpr int kPasses = kRows / kRowsPerPass;
  static_assert(kRowBytes % kB == 0 && kThreads % kLanesPerRow == 0 && kRows % kRowsPerPass == 0, "shape");
  static_assert(!kSwz || (kPitch == 128 && kRowBytes == 128), "the swizzle is for 128-byte rows");
  static_assert(kPitch % kB == 0 && kPitch >= kRowBytes, "pitch");
  extern __shared__ uint8_t smem_raw[];
  const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
  const uint32_t base = (raw + 1023u) & ~1023u;
  const int t = threadIdx.x;
  const int warp = t / 32, lane = t % 32;
  auto issue = [&](int tile, int stage) {
    const uint8_t* src = g + static_cast<int64_t>(blockIdx.x * tiles + tile) * kRows * gstride;
    const uint32_t dst = base + stage * kRows * kPitch;
#pragma unroll
    for (int k = 0; k < kPasses; ++k) {
      const int row = k * kRowsPerPass + t / kLanesPerRow;
      const int byte = (t % kLanesPerRow) * kB;
      copy<kForm>(dst + tile_offset<kPitch, kSwz>(row, byte), src + static_cast<int64_t>(row) * gstride + byte);
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
  };
  uint32_t acc = 0;
  auto read = [&](int stage) {
    if constexpr (kReads) {
      const uint32_t s = base + stage * kRows * kPitch;
      const int row = (warp % (kRows / 16)) * 16 + lane % 16;
#pragma unroll
      for (int kk = 0; kk < kRowBytes / 32; ++kk) {
        const uint32_t a = s + tile_offset<kPitch, kSwz>(row, (2 * kk + lane / 16) * 16);
        uint32_t r0, r1, r2, r3;
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a) : "memory");
        acc ^= r0 ^ r1 ^ r2 ^ r3;
      }
    }
  };
  if constexpr (kStages == 2) {
    issue(0, 0);
    for (int j = 0; j < tiles; ++j) {
      if (j + 1 < tiles) {
        issue(j + 1, (j + 1) & 1);
        asm volatile("cp.async.wait_group 1;" ::: "memory");
      } else {
        asm volatile("cp.async.wait_group 0;" ::: "memory");
      }
      __syncthreads();
      read(j & 1);
      __syncthreads();
    }
  } else {
    for (int j = 0; j < tiles; ++j) {
      issue(j, 0);
      asm volatile("cp.async.wait_group 0;" ::: "memory");
      __syncthreads();
      read(0);
      __syncthreads();
    }
  }
  if (acc == 0x9e3779b9u) sink[blockIdx.x * kThreads + t] = acc;  // keeps the reads alive
}

using Kernel = void (*)(const uint8_t*, int, int, uint32_t*);

struct Variant {
  const char* name;
  Kernel kernel;
  Form form;
  int warps, rows, row_bytes, pitch;
  bool swz;
  int stages;
  bool reads;
  int grid, tiles, gstride, goff;
  const char* what;
};

#define LP_FILL(F, W, R, RB, P, SW, ST, RD) \
  fill<Form::F, W, R, RB, P, SW, ST, RD>, Form::F, W, R, RB, P, SW, ST, RD

constexpr int kGrid = 528;  // 4 blocks per SM on 132 SMs
constexpr int kTiles = 8;

const Variant kVariants[] = {
    // Pitch sweep, the issue's kernel: 4 warps, 2 stages, 64 x 128-byte tile, ldmatrix reads.
    {"cg16_p128", LP_FILL(Cg16, 4, 64, 128, 128, false, 2, true), kGrid, kTiles, 128, 0, "pitch 128, no swizzle"},
    {"cg16_swz128", LP_FILL(Cg16, 4, 64, 128, 128, true, 2, true), kGrid, kTiles, 128, 0, "pitch 128, 128B swizzle"},
    {"cg16_p144", LP_FILL(Cg16, 4, 64, 128, 144, false, 2, true), kGrid, kTiles, 128, 0, "pitch 144"},
    {"cg16_p160", LP_FILL(Cg16, 4, 64, 128, 160, false, 2, true), kGrid, kTiles, 128, 0, "pitch 160"},
    {"cg16_p192", LP_FILL(Cg16, 4, 64, 128, 192, false, 2, true), kGrid, kTiles, 128, 0, "pitch 192"},
    {"cg16_p256", LP_FILL(Cg16, 4, 64, 128, 256, false, 2, true), kGrid, kTiles, 128, 0, "pitch 256"},
    {"ca16_p128", LP_FILL(Ca16, 4, 64, 128, 128, false, 2, true), kGrid, kTiles, 128, 0, "pitch 128, no swizzle"},
    {"ca16_swz128", LP_FILL(Ca16, 4, 64, 128, 128, true, 2, true), kGrid, kTiles, 128, 0, "pitch 128, 128B swizzle"},
    {"ca16_p144", LP_FILL(Ca16, 4, 64, 128, 144, false, 2, true), kGrid, kTiles, 128, 0, "pitch 144"},
    {"ca16_p160", LP_FILL(Ca16, 4, 64, 128, 160, false, 2, true), kGrid, kTiles, 128, 0, "pitch 160"},
    {"ca16_p192", LP_FILL(Ca16, 4, 64, 128, 192, false, 2, true), kGrid, kTiles, 128, 0, "pitch 192"},
    {"ca16_p256", LP_FILL(Ca16, 4, 64, 128, 256, false, 2, true), kGrid, kTiles, 128, 0, "pitch 256"},
    {"ca8_p128", LP_FILL(Ca8, 4, 64, 128, 128, false, 2, true), kGrid, kTiles, 128, 0, "8-byte copies, pitch 128"},
    {"ca8_p136", LP_FILL(Ca8, 4, 64, 128, 136, false, 2, false), kGrid, kTiles, 128, 0, "8-byte copies, pitch 136 (no reads: ldmatrix needs 16-byte rows)"},
    {"ca8_p144", LP_FILL(Ca8, 4, 64, 128, 144, false, 2, true), kGrid, kTiles, 128, 0, "8-byte copies, pitch 144"},
    {"ca8_p256", LP_FILL(Ca8, 4, 64, 128, 256, false, 2, true), kGrid, kTiles, 128, 0, "8-byte copies, pitch 256"},
    {"ca4_p128", LP_FILL(Ca4, 4, 64, 128, 128, false, 2, true), kGrid, kTiles, 128, 0, "4-byte copies, pitch 128"},
    {"ca4_p136", LP_FILL(Ca4, 4, 64, 128, 136, false, 2, false), kGrid, kTiles, 128, 0, "4-byte copies, pitch 136 (no reads)"},
    {"ca4_p144", LP_FILL(Ca4, 4, 64, 128, 144, false, 2, true), kGrid, kTiles, 128, 0, "4-byte copies, pitch 144"},
    // Warps per block (64-row tile: 16, 8, 2 back-to-back copies per thread and stage for 1, 2, 8 warps).
    {"cg16_p144_w1", LP_FILL(Cg16, 1, 64, 128, 144, false, 2, true), kGrid, kTiles, 128, 0, "pitch 144, 1 warp"},
    {"cg16_p144_w2", LP_FILL(Cg16, 2, 64, 128, 144, false, 2, true), kGrid, kTiles, 128, 0, "pitch 144, 2 warps"},
    {"cg16_p144_w8", LP_FILL(Cg16, 8, 64, 128, 144, false, 2, true), kGrid, kTiles, 128, 0, "pitch 144, 8 warps"},
    {"cg16_swz128_w1", LP_FILL(Cg16, 1, 64, 128, 128, true, 2, true), kGrid, kTiles, 128, 0, "swizzled, 1 warp"},
    {"cg16_swz128_w2", LP_FILL(Cg16, 2, 64, 128, 128, true, 2, true), kGrid, kTiles, 128, 0, "swizzled, 2 warps"},
    {"cg16_swz128_w8", LP_FILL(Cg16, 8, 64, 128, 128, true, 2, true), kGrid, kTiles, 128, 0, "swizzled, 8 warps"},
    // Back-to-back copies per thread and stage at 4 warps: tile rows 16, 32, 128 (1, 2, 8 copies).
    {"cg16_p144_r16", LP_FILL(Cg16, 4, 16, 128, 144, false, 2, true), kGrid, kTiles, 128, 0, "pitch 144, 16-row tile"},
    {"cg16_p144_r32", LP_FILL(Cg16, 4, 32, 128, 144, false, 2, true), kGrid, kTiles, 128, 0, "pitch 144, 32-row tile"},
    {"cg16_p144_r128", LP_FILL(Cg16, 4, 128, 128, 144, false, 2, true), kGrid, kTiles, 128, 0, "pitch 144, 128-row tile"},
    {"cg16_swz128_r16", LP_FILL(Cg16, 4, 16, 128, 128, true, 2, true), kGrid, kTiles, 128, 0, "swizzled, 16-row tile"},
    {"cg16_swz128_r128", LP_FILL(Cg16, 4, 128, 128, 128, true, 2, true), kGrid, kTiles, 128, 0, "swizzled, 128-row tile"},
    // The fill alone (every shared wavefront of the kernel is an LDGSTS one).
    {"cg16_p144_noread", LP_FILL(Cg16, 4, 64, 128, 144, false, 2, false), kGrid, kTiles, 128, 0, "pitch 144, no reads"},
    {"cg16_swz128_noread", LP_FILL(Cg16, 4, 64, 128, 128, true, 2, false), kGrid, kTiles, 128, 0, "swizzled, no reads"},
    {"cg16_p128_noread", LP_FILL(Cg16, 4, 64, 128, 128, false, 2, false), kGrid, kTiles, 128, 0, "pitch 128, no reads"},
    {"cg16_p160_noread", LP_FILL(Cg16, 4, 64, 128, 160, false, 2, false), kGrid, kTiles, 128, 0, "pitch 160, no reads"},
    {"ca16_p144_noread", LP_FILL(Ca16, 4, 64, 128, 144, false, 2, false), kGrid, kTiles, 128, 0, "pitch 144, no reads"},
    {"ca16_swz128_noread", LP_FILL(Ca16, 4, 64, 128, 128, true, 2, false), kGrid, kTiles, 128, 0, "swizzled, no reads"},
    // Light global traffic: one block.
    {"cg16_p144_grid1", LP_FILL(Cg16, 4, 64, 128, 144, false, 2, true), 1, kTiles, 128, 0, "pitch 144, one block"},
    {"cg16_swz128_grid1", LP_FILL(Cg16, 4, 64, 128, 128, true, 2, true), 1, kTiles, 128, 0, "swizzled, one block"},
    {"cg16_p144_noread_grid1", LP_FILL(Cg16, 4, 64, 128, 144, false, 2, false), 1, 1, 128, 0, "pitch 144, one block, one tile, no reads"},
    // Global rows 1024 bytes apart (a K cache with 8 heads of 64 halves), and rows off their lines.
    {"cg16_p144_g1024", LP_FILL(Cg16, 4, 64, 128, 144, false, 2, true), kGrid, kTiles, 1024, 0, "pitch 144, global stride 1024"},
    {"cg16_swz128_g1024", LP_FILL(Cg16, 4, 64, 128, 128, true, 2, true), kGrid, kTiles, 1024, 0, "swizzled, global stride 1024"},
    {"cg16_p144_goff64", LP_FILL(Cg16, 4, 64, 128, 144, false, 2, true), kGrid, kTiles, 128, 64, "pitch 144, global rows 64 B off their lines"},
    {"cg16_swz128_goff64", LP_FILL(Cg16, 4, 64, 128, 128, true, 2, true), kGrid, kTiles, 128, 64, "swizzled, global rows 64 B off"},
    // One stage (copy, wait, read).
    {"cg16_p144_s1", LP_FILL(Cg16, 4, 64, 128, 144, false, 1, true), kGrid, kTiles, 128, 0, "pitch 144, one stage"},
    {"cg16_swz128_s1", LP_FILL(Cg16, 4, 64, 128, 128, true, 1, true), kGrid, kTiles, 128, 0, "swizzled, one stage"},
    // llama.cpp fattn-mma-f16 K tile (ggml-org/llama.cpp@01c684262637, ggml/src/ggml-cuda/fattn-mma-f16.cuh,
    // flash_attn_ext_f16_load_tile with cp_async_cg_16<64>): 4 warps, nbatch_fa = 64 rows, stride_tile_K =
    // DKQ/2 + 4 half2; DKQ 64 -> 128 data bytes at pitch 144, DKQ 128 -> 256 at pitch 272; K rows 8 heads apart.
    {"llama_k_d64", LP_FILL(Cg16L2_64, 4, 64, 128, 144, false, 2, true), kGrid, kTiles, 1024, 0, "llama.cpp K tile, DKQ 64"},
    {"llama_k_d128", LP_FILL(Cg16L2_64, 4, 64, 256, 272, false, 2, true), kGrid, kTiles, 2048, 0, "llama.cpp K tile, DKQ 128"},
    {"llama_k_d64_swz", LP_FILL(Cg16L2_64, 4, 64, 128, 128, true, 2, true), kGrid, kTiles, 1024, 0, "the DKQ 64 tile swizzled instead of padded"},
    {"llama_k_d128_p256", LP_FILL(Cg16L2_64, 4, 64, 256, 256, false, 2, false), kGrid, kTiles, 2048, 0, "the DKQ 128 fill unpadded (no reads)"},
    {"llama_k_d128_p272_noread", LP_FILL(Cg16L2_64, 4, 64, 256, 272, false, 2, false), kGrid, kTiles, 2048, 0, "the DKQ 128 fill alone"},
    {"llama_k_d64_noread", LP_FILL(Cg16L2_64, 4, 64, 128, 144, false, 2, false), kGrid, kTiles, 1024, 0, "the DKQ 64 fill alone"},
};

int64_t passes(const Variant& v) {
  const int lanes_per_row = v.row_bytes / form_bytes(v.form);
  return v.rows / (v.warps * 32 / lanes_per_row);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "list") == 0) {
    std::printf("name\tinstruction\twarps\trows\trow_bytes\tpitch\tswizzle\tstages\treads\tgrid\ttiles\tgstride\tgoff\tldgsts_warp_executions\tdescription\n");
    for (const Variant& v : kVariants)
      std::printf("%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%lld\t%s\n", v.name, form_name(v.form), v.warps, v.rows,
                  v.row_bytes, v.pitch, v.swz, v.stages, v.reads, v.grid, v.tiles, v.gstride, v.goff,
                  static_cast<long long>(passes(v) * v.warps * v.tiles * v.grid), v.what);
    return 0;
  }
  const bool timed = argc >= 3 && std::strcmp(argv[1], "time") == 0;
  if (argc < 3 || (std::strcmp(argv[1], "run") != 0 && !timed)) {
    std::fprintf(stderr, "usage: cp_async_kernel list | cp_async_kernel run|time NAME...\n");
    return 2;
  }
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  size_t gbytes = 0;
  for (const Variant& v : kVariants)
    gbytes = std::max(gbytes, static_cast<size_t>(v.grid) * v.tiles * v.rows * v.gstride + v.goff + 4096);
  uint8_t* g = nullptr;
  uint32_t* sink = nullptr;
  check(cudaMalloc(&g, gbytes), "cudaMalloc");
  check(cudaMemset(g, 1, gbytes), "cudaMemset");
  check(cudaMalloc(&sink, kGrid * 8 * 32 * sizeof(uint32_t)), "cudaMalloc");
  for (int a = 2; a < argc; ++a) {
    const Variant* v = nullptr;
    for (const Variant& c : kVariants)
      if (std::strcmp(c.name, argv[a]) == 0) v = &c;
    if (!v) {
      std::fprintf(stderr, "cp_async_kernel: unknown variant %s\n", argv[a]);
      return 2;
    }
    const int smem = v->stages * v->rows * v->pitch + 1024;
    check(cudaFuncSetAttribute(v->kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem), "attribute");
    if (!timed) {
      v->kernel<<<v->grid, v->warps * 32, smem>>>(g + v->goff, v->gstride, v->tiles, sink);
      check(cudaDeviceSynchronize(), v->name);
      std::printf("%s\n", v->name);
      continue;
    }
    std::vector<float> us;
    for (int k = 0; k < 18; ++k) {
      check(cudaEventRecord(start), "record");
      v->kernel<<<v->grid, v->warps * 32, smem>>>(g + v->goff, v->gstride, v->tiles, sink);
      check(cudaEventRecord(stop), "record");
      check(cudaEventSynchronize(stop), v->name);
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
      if (k >= 3) us.push_back(ms * 1000.f);
    }
    std::sort(us.begin(), us.end());
    std::printf("%s\t%.2f\t%.2f\n", v->name, us.front(), us[us.size() / 2]);
  }
  return 0;
}
