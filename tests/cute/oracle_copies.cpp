// Probe of CUTLASS's own SM80/SM90 copy configurations (nvidia-cutlass 4.2.0.0): cp.async 4/8/16,
// ldmatrix .x1/.x2/.x4 plain and transposed, UniversalCopy and auto-vectorizing copies, tiled as
// the SM80 GEMM defaults tile them, and the SM90 epilogue's stmatrix stores onto GMMA-swizzled
// tiles. Each access is emitted by layoutproof/cute.hpp and followed by CuTe's own partition of a
// real shared-memory tensor (tests/cute/oracle_support.hpp); test_cute_probes.cpp compares them
// thread by thread.
#include "oracle_support.hpp"

using namespace cute;
namespace lp = layoutproof;

namespace {

template <class T, class L, class TiledCopy>
void both(lp::Emitter& out, const std::string& name, const lp::Smem<T, L>& buf, const TiledCopy& tc, lp::Side side,
          lp::Origin at = lp::Origin::current()) {
  lp::emit_access(out, name, buf, tc, side, {}, at);
  oracle::access<T>(out, name, buf.layout, tc, side);
}

// The SM80 half GEMM defaults (test/unit/gemm/device/default_gemm_configuration.hpp): K-major
// tiles of composition(Swizzle<3,3,3>, (8,64):(64,1)), M-major of composition(Swizzle<3,3,3>,
// (64,8):(1,64)); TiledMMA 2x2 warps of SM80_16x8x16 with Tile<32,32,16>.
void sm80(lp::Emitter& out) {
  lp::emit_arch(out, "sm_80");
  using AtomK = decltype(composition(Swizzle<3, 3, 3>{}, Layout<Shape<_8, _64>, Stride<_64, _1>>{}));
  using AtomM = decltype(composition(Swizzle<3, 3, 3>{}, Layout<Shape<_64, _8>, Stride<_1, _64>>{}));
  auto sA = lp::emit_layout<half_t>(out, "sA", tile_to_shape(AtomK{}, Shape<_128, _64>{}), lp::LayoutOptions().align(128));
  auto sAm = lp::emit_layout<half_t>(out, "sAm", tile_to_shape(AtomM{}, Shape<_128, _32>{}), lp::LayoutOptions().align(128));
  using MMA = TiledMMA<MMA_Atom<SM80_16x8x16_F32F16F16F32_TN>, Layout<Shape<_2, _2, _1>>, Tile<_32, _32, _16>>;
  MMA mma;

  both(out, "g2s_16", sA, make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, half_t>{},
                                          Layout<Shape<_16, _8>, Stride<_8, _1>>{}, Layout<Shape<_1, _8>>{}), lp::Side::Dst);
  both(out, "g2s_8", sA, make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint64_t>, half_t>{},
                                         Layout<Shape<_8, _16>, Stride<_16, _1>>{}, Layout<Shape<_1, _4>>{}), lp::Side::Dst);
  both(out, "g2s_4", sA, make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint32_t>, half_t>{},
                                         Layout<Shape<_4, _32>, Stride<_32, _1>>{}, Layout<Shape<_1, _2>>{}), lp::Side::Dst);
  both(out, "g2s_m16", sAm, make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, half_t>{},
                                            Layout<Shape<_16, _8>, Stride<_1, _16>>{}, Layout<Shape<_8, _1>>{}), lp::Side::Dst);
  both(out, "ldsm_a_x4", sA, make_tiled_copy_A(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}, mma), lp::Side::Src);
  both(out, "ldsm_a_x2", sA, make_tiled_copy_A(Copy_Atom<SM75_U32x2_LDSM_N, half_t>{}, mma), lp::Side::Src);
  both(out, "ldsm_a_x1", sA, make_tiled_copy_A(Copy_Atom<SM75_U32x1_LDSM_N, half_t>{}, mma), lp::Side::Src);
  both(out, "ldsm_b_x4", sA, make_tiled_copy_B(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}, mma), lp::Side::Src);
  both(out, "ldsm_t_x4", sAm, make_tiled_copy_A(Copy_Atom<SM75_U16x8_LDSM_T, half_t>{}, mma), lp::Side::Src);
  both(out, "ldsm_t_x2", sAm, make_tiled_copy_A(Copy_Atom<SM75_U16x4_LDSM_T, half_t>{}, mma), lp::Side::Src);
  both(out, "ldsm_t_x1", sAm, make_tiled_copy_A(Copy_Atom<SM75_U16x2_LDSM_T, half_t>{}, mma), lp::Side::Src);
  both(out, "lds_128", sA, make_tiled_copy(Copy_Atom<UniversalCopy<uint128_t>, half_t>{},
                                           Layout<Shape<_16, _8>, Stride<_8, _1>>{}, Layout<Shape<_1, _8>>{}), lp::Side::Src);

  // Auto-vectorizing copies take their width from both tensors: 8 contiguous halves in shared
  // memory and in a compact register fragment make one 128-bit access under
  // AutoVectorizingCopyWithAssumedAlignment<128>; DefaultCopy assumes 8-bit alignment and stays
  // per element.
  auto thr_layout = Layout<Shape<_16, _8>, Stride<_8, _1>>{};
  auto val_layout = Layout<Shape<_1, _8>>{};
  auto av = make_tiled_copy(Copy_Atom<AutoVectorizingCopyWithAssumedAlignment<128>, half_t>{}, thr_layout, val_layout);
  auto regs = make_layout(shape(av.get_thread_slice(0).partition_S(make_tensor(make_smem_ptr((half_t*)nullptr), sA.layout))));
  lp::emit_access(out, "auto_128", sA, av, lp::Side::Src, regs);
  oracle::access<half_t>(out, "auto_128", sA.layout, av, lp::Side::Src);
  auto dc = make_tiled_copy(Copy_Atom<DefaultCopy, half_t>{}, thr_layout, val_layout);
  lp::emit_access(out, "default_copy", sA, dc, lp::Side::Src, regs);
  oracle::access<half_t>(out, "default_copy", sA.layout, dc, lp::Side::Src);
}

// The SM90 epilogue (cutlass/epilogue/collective/sm90_epilogue_tma_warpspecialized.hpp:586-606):
// tiled_copy_C_atom = make_tiled_copy_C_atom(CopyAtomC, tiled_mma), then the register-to-smem copy
// make_tiled_copy_S(Copy_Atom<STSM, ElementD>, tiled_copy_C_atom), onto a GMMA-swizzled D tile
// (K-major for a row-major D with STSM_N, M-major for a column-major D with STSM_T;
// builders/sm90_common.inl picks the store).
void sm90(lp::Emitter& out) {
  lp::emit_arch(out, "sm_90");
  auto mma = make_tiled_mma(SM90_64x64x16_F32F16F16_SS<GMMA::Major::K, GMMA::Major::K>{});
  auto sD = lp::emit_layout<half_t>(out, "sD", tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, Shape<_64, _64>{}),
                                    lp::LayoutOptions().align(1024));
  auto sDm = lp::emit_layout<half_t>(out, "sDm", tile_to_shape(GMMA::Layout_MN_SW128_Atom<half_t>{}, Shape<_64, _64>{}),
                                     lp::LayoutOptions().align(1024));
  auto sD32 = lp::emit_layout<half_t>(out, "sD32", tile_to_shape(GMMA::Layout_K_SW64_Atom<half_t>{}, Shape<_64, _32>{}),
                                      lp::LayoutOptions().align(1024));
  auto stsm = [&](auto op, const std::string& name, const auto& buf, lp::Origin at = lp::Origin::current()) {
    using Op = decltype(op);
    auto c_atom = make_tiled_copy_C_atom(Copy_Atom<Op, half_t>{}, mma);
    both(out, name, buf, make_tiled_copy_S(Copy_Atom<Op, half_t>{}, c_atom), lp::Side::Dst, at);
  };
  stsm(SM90_U32x4_STSM_N{}, "stsm_x4", sD);
  stsm(SM90_U32x2_STSM_N{}, "stsm_x2", sD32);
  stsm(SM90_U32x1_STSM_N{}, "stsm_x1", sD);
  stsm(SM90_U16x8_STSM_T{}, "stsm_t_x4", sDm);
  stsm(SM90_U16x4_STSM_T{}, "stsm_t_x2", sDm);
  stsm(SM90_U16x2_STSM_T{}, "stsm_t_x1", sDm);
}

}  // namespace

int main() {
  lp::Emitter out;
  sm80(out);
  sm90(out);
}
