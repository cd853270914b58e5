// Where a 2-D TMA load (cp.async.bulk.tensor, tiled mode) puts each element of its box in shared
// memory, for every swizzle mode and inner box width: the fact a check of a TMA box against a
// buffer's layout needs (docs/hardware.md, "TMA box placement"). Needs an sm_90 GPU.
//
// The global tensor is 16-bit, 256 wide and 64 tall, each element holding its own index y*256+x.
// One block loads the box at (0, 0) into a 1024-byte-aligned buffer filled with 0xFF, then copies
// the buffer out; the host reads back which element landed at each byte and compares with two
// models:
//   dense:  the box packed row after row (E0 * 2 bytes a row), then the mode's swizzle on the
//           shared-memory address (128B: bits [4,7) ^= [7,10); 64B: [4,6) ^= [7,9); 32B: 4 ^= 7)
//   padded: the same with every row padded to the swizzle span
// Prints one line per case: mode, E0, E1, row bytes, which models match, the first mismatch.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#define CHECK_CUDA(x)                                                                  \
  do {                                                                                 \
    cudaError_t e = (x);                                                               \
    if (e != cudaSuccess) {                                                            \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

constexpr int kWidth = 256, kHeight = 64, kBuffer = 8192;

__global__ void load_box(const __grid_constant__ CUtensorMap map, uint8_t* out, int box_bytes) {
  extern __shared__ uint8_t raw[];
  uint8_t* buf = raw + ((1024 - (__cvta_generic_to_shared(raw) & 1023)) & 1023);
  __shared__ alignas(8) uint64_t bar;
  for (int i = threadIdx.x; i < kBuffer; i += blockDim.x) buf[i] = 0xFF;
  __syncthreads();
  const uint32_t sbuf = static_cast<uint32_t>(__cvta_generic_to_shared(buf));
  const uint32_t sbar = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sbar));
    // The 0xFF fill (generic proxy) must be ordered before the TMA's writes (async proxy).
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sbar), "r"(box_bytes) : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(sbuf),
        "l"(&map), "r"(0), "r"(0), "r"(sbar)
        : "memory");
    asm volatile(
        "{\n .reg .pred p;\n WAIT:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n @!p bra WAIT;\n}\n" ::"r"(sbar)
        : "memory");
  }
  __syncthreads();
  for (int i = threadIdx.x; i < kBuffer; i += blockDim.x) out[i] = buf[i];
}

// The mode's swizzle on a byte offset from a 1024-aligned base.
int64_t swizzle(int span, int64_t off) {
  if (span == 128) return off ^ (((off >> 7) & 7) << 4);
  if (span == 64) return off ^ (((off >> 7) & 3) << 4);
  if (span == 32) return off ^ (((off >> 7) & 1) << 4);
  return off;
}

int main() {
  // The driver's cuTensorMapEncodeTiled, without linking libcuda directly.
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  CHECK_CUDA(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q));
  if (!fn) {
    std::fprintf(stderr, "no cuTensorMapEncodeTiled\n");
    return 1;
  }
  auto encode = reinterpret_cast<decltype(&cuTensorMapEncodeTiled)>(fn);

  std::vector<uint16_t> host(kWidth * kHeight);
  for (int i = 0; i < kWidth * kHeight; ++i) host[i] = static_cast<uint16_t>(i);
  uint16_t* global = nullptr;
  uint8_t* out = nullptr;
  CHECK_CUDA(cudaMalloc(&global, host.size() * 2));
  CHECK_CUDA(cudaMalloc(&out, kBuffer));
  CHECK_CUDA(cudaMemcpy(global, host.data(), host.size() * 2, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaFuncSetAttribute(load_box, cudaFuncAttributeMaxDynamicSharedMemorySize, kBuffer + 1024));
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("# device\t%s\tsm_%d%d\n", prop.name, prop.major, prop.minor);
  std::printf("mode\tE0\tE1\trow_bytes\tdense\tpadded\tunwritten_in_box\tfirst_mismatch\n");

  const struct {
    const char* name;
    CUtensorMapSwizzle swizzle;
    int span;
  } modes[] = {{"none", CU_TENSOR_MAP_SWIZZLE_NONE, 0},
               {"32B", CU_TENSOR_MAP_SWIZZLE_32B, 32},
               {"64B", CU_TENSOR_MAP_SWIZZLE_64B, 64},
               {"128B", CU_TENSOR_MAP_SWIZZLE_128B, 128}};
  int failures = 0;
  for (const auto& m : modes)
    for (int e0 : {8, 16, 32, 64, 128})
      for (int e1 : {8, 16}) {
        const int row_bytes = e0 * 2;
        if (m.span && row_bytes > m.span) continue;  // cuTensorMapEncodeTiled refuses these
        CUtensorMap map;
        cuuint64_t dims[2] = {kWidth, kHeight};
        cuuint64_t strides[1] = {kWidth * 2};
        cuuint32_t box[2] = {static_cast<cuuint32_t>(e0), static_cast<cuuint32_t>(e1)};
        cuuint32_t estride[2] = {1, 1};
        CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, global, dims, strides, box, estride,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, m.swizzle, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
        if (r != CUDA_SUCCESS) {
          std::printf("%s\t%d\t%d\t%d\tencode-error-%d\t-\t-\t-\n", m.name, e0, e1, row_bytes, static_cast<int>(r));
          continue;
        }
        const int box_bytes = e0 * e1 * 2;
        load_box<<<1, 128, kBuffer + 1024>>>(map, out, box_bytes);
        CHECK_CUDA(cudaGetLastError());
        CHECK_CUDA(cudaDeviceSynchronize());
        std::vector<uint8_t> smem(kBuffer);
        CHECK_CUDA(cudaMemcpy(smem.data(), out, kBuffer, cudaMemcpyDeviceToHost));
        // Where each element landed (its low byte's offset); -1: nowhere.
        std::vector<int64_t> where(e0 * e1, -1);
        for (int off = 0; off + 1 < kBuffer; off += 2) {
          const uint16_t v = static_cast<uint16_t>(smem[off] | (smem[off + 1] << 8));
          if (v == 0xFFFF) continue;
          const int x = v % kWidth, y = v / kWidth;
          if (x < e0 && y < e1) where[y * e0 + x] = off;
        }
        int unwritten = 0;
        for (int64_t w : where) unwritten += w < 0;
        bool dense = true, padded = m.span != 0;
        char first[160] = "-";
        for (int y = 0; y < e1; ++y)
          for (int x = 0; x < e0; ++x) {
            const int64_t got = where[y * e0 + x];
            const int64_t d = swizzle(m.span, int64_t{y} * row_bytes + x * 2);
            const int64_t p = m.span ? swizzle(m.span, int64_t{y} * m.span + x * 2) : d;
            if (got != d && dense) {
              dense = false;
              std::snprintf(first, sizeof first, "(%d,%d) at %lld; dense %lld, padded %lld", x, y,
                            static_cast<long long>(got), static_cast<long long>(d), static_cast<long long>(p));
            }
            if (got != p) padded = false;
          }
        if (!dense && !padded) ++failures;
        std::printf("%s\t%d\t%d\t%d\t%s\t%s\t%d\t%s\n", m.name, e0, e1, row_bytes, dense ? "yes" : "no",
                    m.span == 0 ? "-" : (padded ? "yes" : "no"), unwritten, first);
      }
  return failures == 0 ? 0 : 1;
}
