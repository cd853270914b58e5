// Small kernels whose shared-memory accesses the PTX front end must recover exactly
// (tests/ptx/test_ptx_kernels.cpp holds each access's index formula as an independent oracle).
// Regenerate with tests/data/ptx/generate.sh (nvcc -O3 -lineinfo -arch=sm_80 --ptx).
#include <cstdint>

#define LANE (threadIdx.x & 31)
#define WARP (threadIdx.x >> 5)

// Padded transpose tile: row stride 33 words.
__global__ void __launch_bounds__(128) padded(float* out, const float* in) {
  __shared__ float tile[32][33];
  tile[WARP][LANE] = in[threadIdx.x];                       // ORACLE padded_store
  __syncthreads();
  out[threadIdx.x] = tile[LANE][WARP];                      // ORACLE padded_load
}

// The same tile without padding: column reads hit one bank.
__global__ void __launch_bounds__(128) naive(float* out, const float* in) {
  __shared__ float tile[32][32];
  tile[WARP][LANE] = in[threadIdx.x];                       // ORACLE naive_store
  __syncthreads();
  out[threadIdx.x] = tile[LANE][WARP];                      // ORACLE naive_load
}

// XOR-swizzled tile: column c of row r lives at column c ^ r.
__global__ void __launch_bounds__(128) swizzled(float* out, const float* in) {
  __shared__ float tile[32 * 32];
  tile[WARP * 32 + (LANE ^ WARP)] = in[threadIdx.x];        // ORACLE swizzled_store
  __syncthreads();
  out[threadIdx.x] = tile[LANE * 32 + (WARP ^ LANE)];       // ORACLE swizzled_load
}

// Guarded accesses: only the even lanes read (stride 16 words: one bank for all of them).
__global__ void __launch_bounds__(128) predicated(float* out, const float* in) {
  __shared__ float s[32 * 16 + 32];
  s[threadIdx.x] = in[threadIdx.x];                         // ORACLE predicated_fill
  __syncthreads();
  float v = 0;
  if ((LANE & 1) == 0) v = s[LANE * 16];                    // ORACLE predicated_even
  if (LANE < 16) v += s[LANE * 2];                          // ORACLE predicated_half
  out[threadIdx.x] = v;
}

// Divergent branches: each side conflict-free on its own.
__global__ void __launch_bounds__(128) divergent(float* out, const float* in, int flag) {
  __shared__ float s[256];
  s[threadIdx.x] = in[threadIdx.x];                         // ORACLE divergent_fill
  __syncthreads();
  float v;
  if (LANE < 16) v = s[LANE + 64];                          // ORACLE divergent_low
  else v = s[2 * LANE + 1];                                 // ORACLE divergent_high
  if (flag) v += s[(LANE * 8) & 255];                       // ORACLE divergent_flag
  out[threadIdx.x] = v;
}

// A loop with a wrap-around stage counter over three buffers.
__global__ void __launch_bounds__(128) stages(float* out, const float* in, int k_tiles) {
  __shared__ float buf[3][128];
  int stage = 0;
  float acc = 0;
#pragma unroll 1
  for (int k = 0; k < k_tiles; ++k) {
    buf[stage][threadIdx.x] = in[k * 128 + threadIdx.x];    // ORACLE stages_store
    __syncthreads();
    acc += buf[stage][(threadIdx.x * 4) & 127];             // ORACLE stages_load
    __syncthreads();
    stage = stage == 2 ? 0 : stage + 1;
  }
  out[threadIdx.x] = acc;
}

// Dynamic shared memory at a runtime offset (in 16-byte units).
extern __shared__ __align__(16) unsigned char dyn_smem[];
__global__ void __launch_bounds__(128) dynamic_offset(float* out, int offset) {
  float* s = reinterpret_cast<float*>(dyn_smem + offset * 16);
  s[threadIdx.x] = 1.0f;                                    // ORACLE dynamic_store
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x ^ 1];                    // ORACLE dynamic_load
}

// A call that is not inlined: the callee addresses shared memory through a generic pointer.
__device__ __noinline__ void store_strided(float* s, int i, float v) {
  s[i * 2] = v;                                             // ORACLE call_store
}
__global__ void __launch_bounds__(128) noinline_call(float* out, const float* in) {
  __shared__ float s[256];
  store_strided(s, threadIdx.x & 127, in[threadIdx.x]);
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];                        // ORACLE call_load
}

// Vector widths: 16-, 8-, 2- and 1-byte accesses.
__global__ void __launch_bounds__(128) vectors(float4* out, const float4* in) {
  __shared__ float4 s4[128];
  __shared__ float2 s2[256];
  __shared__ unsigned short s16[512];
  __shared__ unsigned char s8[512];
  s4[threadIdx.x] = in[threadIdx.x];                        // ORACLE vec_store4
  s2[threadIdx.x * 2] = make_float2(in[threadIdx.x].x, 1);  // ORACLE vec_store2
  s16[threadIdx.x * 2] = 7;                                 // ORACLE vec_store16
  s8[threadIdx.x * 4] = 3;                                  // ORACLE vec_store8
  __syncthreads();
  float4 a = s4[(threadIdx.x * 2) & 127];                   // ORACLE vec_load4
  float2 b = s2[threadIdx.x];                               // ORACLE vec_load2
  const unsigned short h = s16[threadIdx.x];                // ORACLE vec_load16
  const unsigned char c = s8[threadIdx.x];                  // ORACLE vec_load8
  out[threadIdx.x] = make_float4(a.x + b.x, a.y + b.y, a.z + h, a.w + c);  // all of a: the load stays 16 bytes
}

// ldmatrix.x4 on a 64x64 half tile (128-byte rows): plain rows collide, XOR-swizzled chunks do not.
__device__ __forceinline__ void ldsm_x4(unsigned addr, unsigned* r) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__device__ __forceinline__ void ldsm_x2_trans(unsigned addr, unsigned* r) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
}
__global__ void __launch_bounds__(128) matrices(unsigned* out) {
  __shared__ __align__(1024) uint16_t tile[64 * 64];
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(tile));
  unsigned r[4], q[4];  // separate results: ptxas drops an ldmatrix whose registers are overwritten
  const int row = LANE % 16, chunk = LANE / 16;
  ldsm_x4(base + row * 128 + chunk * 16, r);                              // ORACLE ldsm_plain
  ldsm_x4(base + row * 128 + ((chunk ^ (row % 8)) * 16), q);              // ORACLE ldsm_swizzled
  ldsm_x2_trans(base + (LANE % 16) * 128 + WARP * 32, r + 2);             // ORACLE ldsm_trans
  out[threadIdx.x] = r[0] + r[1] + r[2] + r[3] + q[0] + q[1] + q[2] + q[3];
}

// cp.async: 16 bytes per lane, contiguous (conflict-free) and with a 32-byte stride (2-way).
__global__ void __launch_bounds__(128) async_copy(float* out, const float4* in) {
  __shared__ __align__(16) float4 s[512];
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(s));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(base + threadIdx.x * 16), "l"(in + threadIdx.x));      // ORACLE cp_dense
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(base + threadIdx.x * 32), "l"(in + threadIdx.x),
               "r"(threadIdx.x & 15));                                                                                      // ORACLE cp_strided
  asm volatile("cp.async.wait_all;\n" ::);
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x].x;                      // ORACLE cp_read
}

// Shared-memory atomics: addresses recovered, no bank model.
__global__ void __launch_bounds__(128) atomics(int* out, const int* in) {
  __shared__ int hist[64];
  if (threadIdx.x < 64) hist[threadIdx.x] = 0;              // ORACLE atomic_clear
  __syncthreads();
  atomicAdd(&hist[threadIdx.x & 63], 1);                    // ORACLE atomic_add
  __syncthreads();
  out[threadIdx.x] = hist[threadIdx.x & 63];                // ORACLE atomic_read
}

// Loops whose counter halves, doubles or shrinks by 4 (tree reductions, butterflies); the oracle
// runs each loop from the source, iteration by iteration.
__global__ void __launch_bounds__(128) halving(float* out, const float* in) {
  __shared__ float s[128];
  s[threadIdx.x] = in[threadIdx.x];                         // ORACLE halving_fill
  __syncthreads();
#pragma unroll 1
  for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {
    if (threadIdx.x < h) s[threadIdx.x] += s[threadIdx.x + h];  // ORACLE halving_near halving_far halving_store
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];             // ORACLE halving_result
}

// Interleaved addressing: the doubling counter multiplies the thread's index (bank conflicts).
__global__ void __launch_bounds__(128) doubling(float* out, const float* in) {
  __shared__ float s[128];
  s[threadIdx.x] = in[threadIdx.x];                         // ORACLE doubling_fill
  __syncthreads();
#pragma unroll 1
  for (unsigned d = 1; d < blockDim.x; d *= 2) {
    const unsigned i = 2 * d * threadIdx.x;
    if (i < blockDim.x) s[i] += s[i + d];                   // ORACLE doubling_near doubling_far doubling_store
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];             // ORACLE doubling_result
}

// A signed counter divided by 2 (shr.u32, add, shr.s32 in PTX) and a radix-4 stride from a parameter.
__global__ void __launch_bounds__(128) quartering(float* out, int n) {
  __shared__ float s[512];
#pragma unroll 1
  for (int h = blockDim.x / 2; h > 0; h /= 2) {
    s[threadIdx.x ^ h] = 1.0f;                              // ORACLE signed_halving
    __syncthreads();
  }
#pragma unroll 1
  for (int stride = n >> 2; stride > 0; stride >>= 2) {
    const int lo = threadIdx.x & (stride - 1);
    out[threadIdx.x] += s[(((threadIdx.x - lo) << 2) + lo) & 511];  // ORACLE radix4
    __syncthreads();
  }
}

// Nested loops of a bitonic sorting network: size doubles, stride halves from size / 2.
__global__ void __launch_bounds__(128) bitonic(unsigned* out) {
  __shared__ unsigned key[256];
  key[threadIdx.x] = out[threadIdx.x];                      // ORACLE bitonic_fill
#pragma unroll 1
  for (unsigned size = 2; size < 256; size <<= 1) {
#pragma unroll 1
    for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      const unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
      key[pos] += key[pos + stride];                        // ORACLE bitonic_near bitonic_far bitonic_store
    }
  }
}

// A block-stride loop, which lanes leave at different iterations, then an access by every lane.
__global__ void __launch_bounds__(128) after_divergent(float* out, int n) {
  __shared__ float s[256];
#pragma unroll 1
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = 0.0f;
  s[(LANE & 1) * 32 + (LANE >> 1) + 64 * WARP] = 1.0f;     // ORACLE reconverged
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];                        // ORACLE reconverged_read
}

// A block-stride loop, which each lane leaves when its own index passes n: the lanes that run an
// iteration are exactly those whose index is still below n.
__global__ void __launch_bounds__(128) block_stride(float* out, int n) {
  __shared__ float s[512];
#pragma unroll 1
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    s[i & 511] = out[i];                                                 // ORACLE block_stride_store
    out[i + 4096] = s[(i ^ 1) & 511];                                    // ORACLE block_stride_load
  }
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];                                     // ORACLE block_stride_read
}
