// cp.async with zero-fill (LDGSTS...ZFILL) on the device: what a source size or an ignore-src
// predicate costs in shared-memory wavefronts, L2 sectors and time, for the patterns compilers emit
// (docs/ptx.md, "cp.async with zero-fill"). Each kernel runs one cp.async form over 4 warps; its
// name says the form:
//   dst   dense: lane t writes 16*t (or 4*t, 8*t for .ca 4 and 8); stride32: 32*t, 2 lanes a bank group
//   src   plain (no source size); full, zero, half: one source size for the warp (copy size, 0, half);
//         colmask: Triton's K tail, full for the first columns of each 4-lane row, 0 after;
//         rowmask: CUTLASS's predicated rows, full for the first rows of the tile, 0 after;
//         alternate: lane & 1; scatter: a fixed pseudo-random 0-or-full mask; partial: lane & 15
//         bytes; mixed: 0, half or full by lane; ignore: the ignore-src predicate, lane & 1
// Measured by scripts/gpu/kernels-ncu.sh measure OUT scripts/gpu/zfill_probe.cu (SourceCounters per
// SASS instruction); `zfill_probe time` prints each form's time per copy (a loop of copies over
// every SM). scripts/gpu/zfill-table.py joins both into tests/data/sm90_cp_async_zfill.tsv.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

enum Src { Plain, Full, Zero, Half, ColMask, RowMask, Alternate, Scatter, Partial, Mixed, Ignore };

template <int Bytes>
__device__ __forceinline__ unsigned source_size(int src, unsigned t) {
  const unsigned lane = t & 31;
  switch (src) {
    case Full: return Bytes;
    case Zero: return 0;
    case Half: return Bytes / 2;
    case ColMask: return (lane % 4) < 2 ? Bytes : 0;  // columns 0-1 of each 4-lane row are inside K
    case RowMask: return lane < 20 ? Bytes : 0;       // the first 5 rows of 4 lanes are inside M
    case Alternate: return (lane & 1) ? Bytes : 0;
    case Scatter: return ((0x9e3779b9u * (lane + 1)) >> 31) ? Bytes : 0;
    case Partial: return lane % (Bytes + 0u);
    case Mixed: return (lane % 3) * (Bytes / 2);
    default: return Bytes;
  }
}

template <int Bytes, int Src, int DstStride, bool CacheGlobal>
__global__ void __launch_bounds__(128) zfill(float* out, const float4* in, int repeat) {
  __shared__ __align__(128) unsigned char s[128 * 32];
  const unsigned t = threadIdx.x;
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(s)) + t * DstStride;
  const char* src = reinterpret_cast<const char*>(in) + t * Bytes;
  const unsigned size = source_size<Bytes>(Src, t);
  for (int r = 0; r < repeat; ++r) {
    if (Src == Plain) {
      if (CacheGlobal) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
      else asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(dst), "l"(src), "n"(Bytes));
    } else if (Src == Ignore) {
      if (CacheGlobal)
        asm volatile("{ .reg .pred p; setp.ne.u32 p, %2, 0; cp.async.cg.shared.global [%0], [%1], 16, p; }\n" ::"r"(dst),
                     "l"(src), "r"(t & 1));
      else
        asm volatile("{ .reg .pred p; setp.ne.u32 p, %2, 0; cp.async.ca.shared.global [%0], [%1], %3, p; }\n" ::"r"(dst),
                     "l"(src), "r"(t & 1), "n"(Bytes));
    } else {
      if (CacheGlobal) asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(size));
      else asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(src), "n"(Bytes), "r"(size));
    }
    asm volatile("cp.async.wait_all;\n" ::);
  }
  __syncthreads();
  out[blockIdx.x * 128 + t] = s[(t * 7) % sizeof(s)];
}

#define CHECK_CUDA(x)                                                     \
  do {                                                                    \
    cudaError_t e = (x);                                                  \
    if (e != cudaSuccess) {                                               \
      std::printf("%s: %s\n", #x, cudaGetErrorString(e));                 \
      return false;                                                       \
    }                                                                     \
  } while (0)

struct Buffers {
  float* out;
  float4* in;
};

// One launch for the source counters, or a timed loop over every SM.
template <int Bytes, int Src, int DstStride, bool CacheGlobal>
bool run(const Buffers& b, bool timed, const char* name) {
  auto kernel = zfill<Bytes, Src, DstStride, CacheGlobal>;
  if (!timed) {
    kernel<<<1, 128>>>(b.out, b.in, 1);
    CHECK_CUDA(cudaDeviceSynchronize());
    return true;
  }
  int sms = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int blocks = sms * 8, repeat = 4096;
  kernel<<<blocks, 128>>>(b.out, b.in, repeat);  // warm-up
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  float best = 1e30f;
  for (int k = 0; k < 5; ++k) {
    CHECK_CUDA(cudaEventRecord(start));
    kernel<<<blocks, 128>>>(b.out, b.in, repeat);
    CHECK_CUDA(cudaEventRecord(stop));
    CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    if (ms < best) best = ms;
  }
  // Per warp-wide copy on one SM: the SM's share of the copies, serialised.
  const double copies_per_sm = static_cast<double>(blocks) / sms * 4 * repeat;
  std::printf("%s\t%.3f\n", name, best * 1e6 / copies_per_sm);
  return true;
}

#define FORM(B, S, D, CG) ok = ok && run<B, S, D, CG>(b, timed, #B "_" #S "_" #D "_" #CG)

int main(int argc, char** argv) {
  const bool timed = argc > 1 && std::strcmp(argv[1], "time") == 0;
  Buffers b{};
  int sms = 132;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  if (cudaMalloc(&b.out, sizeof(float) * 128 * sms * 8) != cudaSuccess || cudaMalloc(&b.in, 1 << 20) != cudaSuccess) return 1;
  cudaMemset(b.in, 0, 1 << 20);
  if (timed) std::printf("form\tns_per_warp_copy\n");
  bool ok = true;
  FORM(16, Plain, 16, true);
  FORM(16, Full, 16, true);
  FORM(16, Zero, 16, true);
  FORM(16, Half, 16, true);
  FORM(16, ColMask, 16, true);
  FORM(16, RowMask, 16, true);
  FORM(16, Alternate, 16, true);
  FORM(16, Scatter, 16, true);
  FORM(16, Partial, 16, true);
  FORM(16, Mixed, 16, true);
  FORM(16, Ignore, 16, true);
  FORM(16, Plain, 32, true);
  FORM(16, ColMask, 32, true);
  FORM(16, Alternate, 32, true);
  FORM(16, Ignore, 32, true);
  FORM(16, Plain, 16, false);
  FORM(16, ColMask, 16, false);
  FORM(16, Alternate, 16, false);
  FORM(4, Plain, 4, false);
  FORM(4, Full, 4, false);
  FORM(4, Alternate, 4, false);
  FORM(4, Scatter, 4, false);
  FORM(4, Ignore, 4, false);
  FORM(4, Partial, 4, false);
  FORM(8, Plain, 8, false);
  FORM(8, Alternate, 8, false);
  FORM(8, RowMask, 8, false);
  FORM(8, Partial, 8, false);
  return ok ? 0 : 1;
}
