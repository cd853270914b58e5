// A CuTe SM80 mainloop over a 2-stage swizzled shared-memory tile of A (64x32 halves per stage,
// K-major, Swizzle<2,3,3> atoms as CUTLASS's SM80 16-bit GEMMs use): cp.async 16-byte copies from
// global memory, then ldmatrix.x4 fragments for a 2x2-warp SM80 tensor-core MMA.
// CuTe headers: nvidia-cutlass==4.2.0.0 (cutlass_library/source/include); regenerate with
// tests/data/ptx/generate.sh.
#include <cute/tensor.hpp>

using namespace cute;

using SmemAtom = decltype(composition(Swizzle<2, 3, 3>{}, Layout<Shape<_8, _32>, Stride<_32, _1>>{}));
using SmemLayout = decltype(tile_to_shape(SmemAtom{}, Shape<_64, _32, _2>{}));

__global__ void __launch_bounds__(128) cute_mainloop(half_t const* A, float* out, int k_tiles) {
  __shared__ __align__(128) half_t smem[cosize_v<SmemLayout>];
  Tensor sA = make_tensor(make_smem_ptr(smem), SmemLayout{});  // (64, 32, 2 stages)
  Tensor gA = make_tensor(make_gmem_ptr(A), make_shape(Int<64>{}, Int<32>{}, k_tiles),
                          make_stride(Int<32>{}, Int<1>{}, Int<64 * 32>{}));
  // Global to shared: 128 threads as 32x4, each copies 8 contiguous halves (16 bytes) with cp.async.
  auto g2s = make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, half_t>{},
                             Layout<Shape<_32, _4>, Stride<_4, _1>>{}, Layout<Shape<_1, _8>>{});
  auto g2s_thr = g2s.get_thread_slice(threadIdx.x);
  Tensor tAgA = g2s_thr.partition_S(gA);  // (CPY, CPY_M, CPY_K, k)
  Tensor tAsA = g2s_thr.partition_D(sA);  // (CPY, CPY_M, CPY_K, stage)
  // Shared to registers: ldmatrix.x4 for the A operand of a 2x2-warp m16n8k16 MMA.
  TiledMMA mma = make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2, _2, _1>>{});
  auto thr_mma = mma.get_thread_slice(threadIdx.x);
  Tensor tCrA = thr_mma.partition_fragment_A(sA(_, _, 0));
  auto s2r = make_tiled_copy_A(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}, mma);
  auto s2r_thr = s2r.get_thread_slice(threadIdx.x);
  Tensor tCsA = s2r_thr.partition_S(sA);     // (CPY, CPY_M, CPY_K, stage)
  Tensor tCrA_view = s2r_thr.retile_D(tCrA);
  float acc = 0;
  int stage = 0;
#pragma unroll 1
  for (int k = 0; k < k_tiles; ++k) {
    copy(g2s, tAgA(_, _, _, k), tAsA(_, _, _, stage));  // ORACLE cute_cp_0 cute_cp_1
    cp_async_fence();
    cp_async_wait<0>();
    __syncthreads();
    CUTE_UNROLL
    for (int kk = 0; kk < size<2>(tCsA); ++kk) copy(s2r, tCsA(_, _, kk, stage), tCrA_view(_, _, kk));  // ORACLE cute_ldsm_00 cute_ldsm_01 cute_ldsm_10 cute_ldsm_11
    CUTE_UNROLL
    for (int i = 0; i < size(tCrA); ++i) acc += float(tCrA(i));
    __syncthreads();
    stage ^= 1;
  }
  out[threadIdx.x] = acc;
}
