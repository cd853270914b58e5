// One or four warps' 16-byte cp.async with a per-lane 0-or-full source size (what Triton's and CUTLASS's
// masked tiles compile to: LDGSTS with an ignore-src predicate), over many masks, for fitting the
// shared-memory cost of masked copies (docs/ptx.md, "cp.async with zero-fill"). Each launch is one
// copy per thread, one mask for every warp; the program prints one line per launch, in launch order:
//   launch <i> <mask as hex> <destination stride in bytes> <ca|cg> <warps>
// and Nsight Compute's SourceCounters (scripts/gpu/kernels-ncu.sh measure) give each launch's
// wavefronts; scripts/gpu/zfill-table.py joins them into tests/data/sm90_cp_async_zfill_masks.tsv.
#include <cstdio>
#include <cuda_runtime.h>

template <bool CacheGlobal>
__global__ void __launch_bounds__(128) masked_copy(float* out, const float4* in, unsigned mask, int stride) {
  __shared__ __align__(128) unsigned char s[128 * 32];
  const unsigned t = threadIdx.x;
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(s)) + t * stride;
  const unsigned size = (mask >> (t & 31)) & 1 ? 16 : 0;
  if (CacheGlobal) asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(in + t), "r"(size));
  else asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(in + t), "r"(size));
  asm volatile("cp.async.wait_all;\n" ::);
  __syncthreads();
  out[t] = s[t * 7];
}

int main() {
  float* out;
  float4* in;
  if (cudaMalloc(&out, 4096) != cudaSuccess || cudaMalloc(&in, 4096) != cudaSuccess) return 1;
  cudaMemset(in, 0, 4096);
  unsigned masks[96];
  int n = 0;
  masks[n++] = 0xffffffffu;
  masks[n++] = 0;
  for (int k = 1; k < 32; k += 3) masks[n++] = (1u << k) - 1;  // the first k lanes (a row tail)
  for (unsigned c = 1; c < 4; ++c) {                            // the first c lanes of each 4 (a column tail)
    unsigned m = 0;
    for (int l = 0; l < 32; ++l)
      if (static_cast<unsigned>(l % 4) < c) m |= 1u << l;
    masks[n++] = m;
  }
  masks[n++] = 0xaaaaaaaau;
  masks[n++] = 0x0f0f0f0fu;
  masks[n++] = 0x00ff00ffu;
  masks[n++] = 0x0000ffffu;
  masks[n++] = 0x80000001u;
  unsigned x = 0x12345678u;
  while (n < 64) {  // xorshift32: fixed pseudo-random masks
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    masks[n++] = x;
  }
  int launch = 0;
  for (int warps : {1, 4})
    for (int cg = 1; cg >= 0; --cg)
      for (int stride : {16, 32})
        for (int i = 0; i < n; ++i) {
          if ((stride == 32 || warps == 4) && i >= 24) break;  // the structured masks only
          if (cg) masked_copy<true><<<1, 32 * warps>>>(out, in, masks[i], stride);
          else masked_copy<false><<<1, 32 * warps>>>(out, in, masks[i], stride);
          if (cudaDeviceSynchronize() != cudaSuccess) return 1;
          std::printf("launch %d %08x %d %s %d\n", launch++, masks[i], stride, cg ? "cg" : "ca", warps);
        }
  return 0;
}
