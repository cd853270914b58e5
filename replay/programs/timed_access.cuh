// One warp's shared-memory instruction timed with clock64, exactly as the replay programs
// (bank_conflict.cu.in) and the clock64 calibration of their fallback (scripts/gpu/clock64_calib.cu)
// time it: kRepeat copies of `access` at the lane's address, the loaded registers consumed and
// written to `sink` so nothing is dead, and the clock read after a membar.cta, so the loads are
// complete when it is read.
#ifndef LP_REPLAY_TIMED_ACCESS_CUH
#define LP_REPLAY_TIMED_ACCESS_CUH
#include <cstdint>

// `offset`: the lane's byte offset from a 1024-byte-aligned base in dynamic shared memory (which
// must hold offset + 1024 bytes); `access(addr, r0, r1, r2, r3)` issues the instruction at the
// shared address `addr`, loading into or storing from the four registers.
template <int kRepeat, class Access>
__device__ __forceinline__ void timed_access(uint32_t offset, uint32_t* __restrict__ sink, long long* __restrict__ cycles,
                                             Access access) {
  extern __shared__ uint8_t smem_raw[];
  const uint32_t lane = threadIdx.x;
  const uint32_t raw = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
  const uint32_t addr = ((raw + 1023u) & ~1023u) + offset;
  uint32_t r0 = lane, r1 = lane + 1, r2 = lane + 2, r3 = lane + 3, used = 0;
  __syncwarp();
  const long long t0 = clock64();
#pragma unroll
  for (int k = 0; k < kRepeat; ++k) {
    access(addr, r0, r1, r2, r3);
    used ^= r0 ^ r1 ^ r2 ^ r3;
  }
  asm volatile("membar.cta;\n\tmov.b32 %0, %0;" : "+r"(used) :: "memory");
  const long long t1 = clock64();
  sink[lane] = used;
  if (lane == 0) *cycles = t1 - t0;
}
#endif
