// entry: CuTe probe of the CUTLASS entries: their layouts, copies, TMA boxes and MMA descriptors computed from CUTLASS's own CuTe types
// project: CUTLASS
// source: NVIDIA/cutlass include/cute/atom/mma_traits_sm90_gmma.hpp:75 @ 7107b05535f8977f5ecb9d01ee203205b1fd9bc4
// claim: the hand-written CUTLASS entries of corpus/cutlass/ state what these CuTe expressions evaluate to
// verdict: clean
//
// A layoutproof probe (docs/cute.md): `layoutproof extract corpus/probes/cutlass.cpp -I <cutlass>/include
// --emit corpus/probes/cutlass.lp` (scripts/update-corpus-probes.sh) writes corpus/probes/cutlass.lp.
// Each `cute "EXPR"` it defines is named by the hand-written entry that states it (LP012 proves the
// two the same function); tests/corpus compares the entries' accesses, TMA boxes and descriptors with
// the ones written here. Compiled against the pinned nvidia-cutlass 4.2.0.0 headers; the entries cite
// the same code at NVIDIA/cutlass@7107b05.
#include <layoutproof/cute.hpp>

// The annotation language reads CuTe's C++ spelling too; LP012 proves what it reads for these
// expressions is what this probe computes for them (corpus/probes/cutlass.lp):
// layoutproof: smem spelled_tn : f16 = tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, make_shape(Int<128>{}, Int<64>{}, Int<3>{})) align 1024 cute "tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, make_shape(Int<128>{}, Int<64>{}, Int<3>{}))"
// layoutproof: smem spelled_tf32 : tf32 = tile_to_shape(UMMA::Layout_MN_SW128_32B_Atom<tfloat32_t>{}, Shape<_128,_32>{}) align 1024 cute "tile_to_shape(UMMA::Layout_MN_SW128_32B_Atom<tfloat32_t>{}, Shape<_128,_32>{})"

using namespace cute;
namespace lp = layoutproof;

namespace {

// The canonical GMMA atoms (corpus/cutlass/gmma_atom_*.lp): tile_to_shape(atom, (BLK_MN, BLK_K)),
// the TMA box of a tensor of the atom's majorness, and (where one MMA k-block fits) the descriptor.
template <class T, class Atom, class Tile, class Mma>
void gmma_atom(lp::Emitter& out, const std::string& entry, const std::string& expr, Atom atom, Tile tile, bool k_major,
               Mma mma, lp::Origin at = lp::Origin::current()) {
  auto s = lp::emit_layout<T>(out, entry + "_s", tile_to_shape(atom, tile), lp::LayoutOptions().align(1024).cute(expr), at);
  if (k_major) lp::emit_tma(out, entry + "_load", s, make_layout(make_shape(4096, 4096), make_stride(4096, _1{})), lp::TmaDirection::Load, at);
  else lp::emit_tma(out, entry + "_load", s, make_layout(make_shape(4096, 4096), make_stride(_1{}, 4096)), lp::TmaDirection::Load, at);
  if constexpr (!std::is_same_v<Mma, std::nullptr_t>) lp::emit_mma_operand<lp::Operand::A>(out, s, make_tiled_mma(mma), at);
}

void gmma_atoms(lp::Emitter& out) {
  using namespace cute::GMMA;
  using E4 = float_e4m3_t;
  using F8 = SM90_64x64x32_F32E4M3E4M3_SS_TN<>;
  using TF = SM90_64x64x8_F32TF32TF32_SS_TN<>;
  using H = SM90_64x64x16_F32F16F16_SS<Major::K, Major::K>;
  gmma_atom<E4>(out, "gmma_e4m3_K_SW128", "tile_to_shape(GMMA::Layout_K_SW128_Atom<float_e4m3_t>{}, Shape<_128,_128>{})",
                Layout_K_SW128_Atom<E4>{}, Shape<_128, _128>{}, true, F8{});
  gmma_atom<E4>(out, "gmma_e4m3_K_SW32", "tile_to_shape(GMMA::Layout_K_SW32_Atom<float_e4m3_t>{}, Shape<_128,_32>{})",
                Layout_K_SW32_Atom<E4>{}, Shape<_128, _32>{}, true, F8{});
  gmma_atom<E4>(out, "gmma_e4m3_K_SW64", "tile_to_shape(GMMA::Layout_K_SW64_Atom<float_e4m3_t>{}, Shape<_128,_64>{})",
                Layout_K_SW64_Atom<E4>{}, Shape<_128, _64>{}, true, F8{});
  // BLK_K = 8 is half a wgmma k-block: the layout and the box only.
  gmma_atom<half_t>(out, "gmma_f16_K_INTER", "tile_to_shape(GMMA::Layout_K_INTER_Atom<half_t>{}, Shape<_128,_8>{})",
                    Layout_K_INTER_Atom<half_t>{}, Shape<_128, _8>{}, true, nullptr);
  gmma_atom<half_t>(out, "gmma_f16_K_SW32", "tile_to_shape(GMMA::Layout_K_SW32_Atom<half_t>{}, Shape<_128,_16>{})",
                    Layout_K_SW32_Atom<half_t>{}, Shape<_128, _16>{}, true, H{});
  gmma_atom<half_t>(out, "gmma_f16_K_SW64", "tile_to_shape(GMMA::Layout_K_SW64_Atom<half_t>{}, Shape<_128,_32>{})",
                    Layout_K_SW64_Atom<half_t>{}, Shape<_128, _32>{}, true, H{});
  // MN-major tiles of 8, 16 and 32 rows are narrower than a wgmma's 64: the layout and the box.
  gmma_atom<half_t>(out, "gmma_f16_MN_INTER", "tile_to_shape(GMMA::Layout_MN_INTER_Atom<half_t>{}, Shape<_8,_64>{})",
                    Layout_MN_INTER_Atom<half_t>{}, Shape<_8, _64>{}, false, nullptr);
  gmma_atom<half_t>(out, "gmma_f16_MN_SW32", "tile_to_shape(GMMA::Layout_MN_SW32_Atom<half_t>{}, Shape<_16,_64>{})",
                    Layout_MN_SW32_Atom<half_t>{}, Shape<_16, _64>{}, false, nullptr);
  gmma_atom<half_t>(out, "gmma_f16_MN_SW64", "tile_to_shape(GMMA::Layout_MN_SW64_Atom<half_t>{}, Shape<_32,_64>{})",
                    Layout_MN_SW64_Atom<half_t>{}, Shape<_32, _64>{}, false, nullptr);
  gmma_atom<tfloat32_t>(out, "gmma_tf32_K_SW128", "tile_to_shape(GMMA::Layout_K_SW128_Atom<tfloat32_t>{}, Shape<_128,_32>{})",
                        Layout_K_SW128_Atom<tfloat32_t>{}, Shape<_128, _32>{}, true, TF{});
  gmma_atom<tfloat32_t>(out, "gmma_tf32_K_SW32", "tile_to_shape(GMMA::Layout_K_SW32_Atom<tfloat32_t>{}, Shape<_128,_8>{})",
                        Layout_K_SW32_Atom<tfloat32_t>{}, Shape<_128, _8>{}, true, TF{});
  gmma_atom<tfloat32_t>(out, "gmma_tf32_K_SW64", "tile_to_shape(GMMA::Layout_K_SW64_Atom<tfloat32_t>{}, Shape<_128,_16>{})",
                        Layout_K_SW64_Atom<tfloat32_t>{}, Shape<_128, _16>{}, true, TF{});
}

// examples/cute/tutorial/hopper/wgmma_sm90.cu (gemm_tn :413, gemm_nt :360) and wgmma_tma_sm90.cu:
// bM = 128, bK = 64, bP = 3, half A in the GMMA SW128 atoms, filled by cp.async or TMA.
void wgmma_tutorials(lp::Emitter& out) {
  lp::emit_arch(out, "sm_90");
  auto tn = lp::emit_layout<half_t>(out, "wgmma_tn_sA",
                                    tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, make_shape(Int<128>{}, Int<64>{}, Int<3>{})),
                                    lp::LayoutOptions().align(1024).cute("tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, "
                                                                         "make_shape(Int<128>{}, Int<64>{}, Int<3>{}))"));
  lp::emit_access(out, "wgmma_tn_g2s", tn,
                  make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, half_t>{},
                                  Layout<Shape<_16, _8>, Stride<_8, _1>>{}, Layout<Shape<_1, _8>>{}),
                  lp::Side::Dst);
  // One stage (the descriptor and the TMA box are per stage): the same atom tiled to (bM,bK).
  auto tn_stage = lp::Smem<half_t, decltype(tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, Shape<_128, _64>{}))>{tn.name, {}};
  lp::emit_mma_operand<lp::Operand::A>(out, tn_stage, make_tiled_mma(SM90_64x64x16_F16F16F16_SS<GMMA::Major::K, GMMA::Major::K>{}));
  lp::emit_tma(out, "wgmma_tn_load", tn_stage, make_layout(make_shape(4096, 4096), make_stride(4096, _1{})), lp::TmaDirection::Load);

  auto nt = lp::emit_layout<half_t>(out, "wgmma_nt_sA",
                                    tile_to_shape(GMMA::Layout_MN_SW128_Atom<half_t>{}, make_shape(Int<128>{}, Int<64>{}, Int<3>{})),
                                    lp::LayoutOptions().align(1024).cute("tile_to_shape(GMMA::Layout_MN_SW128_Atom<half_t>{}, "
                                                                         "make_shape(Int<128>{}, Int<64>{}, Int<3>{}))"));
  lp::emit_access(out, "wgmma_nt_g2s", nt,
                  make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, half_t>{}, Layout<Shape<_16, _8>>{},
                                  Layout<Shape<_8, _1>>{}),
                  lp::Side::Dst);
  auto nt_stage = lp::Smem<half_t, decltype(tile_to_shape(GMMA::Layout_MN_SW128_Atom<half_t>{}, Shape<_128, _64>{}))>{nt.name, {}};
  lp::emit_mma_operand<lp::Operand::A>(out, nt_stage, make_tiled_mma(SM90_64x64x16_F16F16F16_SS<GMMA::Major::MN, GMMA::Major::MN>{}));
  lp::emit_tma(out, "wgmma_nt_load", nt_stage, make_layout(make_shape(4096, 4096), make_stride(_1{}, 4096)), lp::TmaDirection::Load);
}

// examples/cute/tutorial/blackwell/01_mma_sm100.cu:363-433 and 02_mma_tma_sm100.cu: the 128x256 f16
// tcgen05.mma with K-major A in UMMA::tile_to_mma_shape(Layout_K_SW128_Atom, ((128,16),1,4)), which
// as an (M,K) tile is tile_to_shape(atom, (128,64)); and UMMA's 32-byte-atom MN-major tf32 atom.
void umma(lp::Emitter& out) {
  lp::emit_arch(out, "sm_100");
  auto mma = make_tiled_mma(SM100_MMA_F16BF16_SS<half_t, half_t, float, 128, 256, UMMA::Major::K, UMMA::Major::K>{});
  auto mma_a = lp::emit_layout<half_t>(
      out, "umma_sA_mma",
      UMMA::tile_to_mma_shape(UMMA::Layout_K_SW128_Atom<half_t>{}, partition_shape_A(mma, make_shape(Int<128>{}, Int<64>{}))),
      lp::LayoutOptions().align(1024));
  lp::emit_mma_operand<lp::Operand::A>(out, mma_a, mma);
  auto mk = lp::emit_layout<half_t>(out, "umma_sA", tile_to_shape(UMMA::Layout_K_SW128_Atom<half_t>{}, Shape<_128, _64>{}),
                                    lp::LayoutOptions().align(1024).cute("tile_to_shape(UMMA::Layout_K_SW128_Atom<half_t>{}, "
                                                                         "Shape<_128,_64>{})"));
  lp::emit_tma(out, "umma_load", mk, make_layout(make_shape(4096, 4096), make_stride(4096, _1{})), lp::TmaDirection::Load);
  lp::emit_layout<tfloat32_t>(out, "umma_tf32_MN_SW128_32B",
                              tile_to_shape(UMMA::Layout_MN_SW128_32B_Atom<tfloat32_t>{}, Shape<_128, _32>{}),
                              lp::LayoutOptions().align(1024).cute("tile_to_shape(UMMA::Layout_MN_SW128_32B_Atom<tfloat32_t>{}, "
                                                                   "Shape<_128,_32>{})"));
}

// The SM80 half GEMMs: examples/cute/tutorial/sgemm_sm80.cu:358 (gemm_tn, half) and
// test/unit/gemm/device/default_gemm_configuration.hpp:83 (K-major A) and :102 (M-major A).
void sm80(lp::Emitter& out) {
  lp::emit_arch(out, "sm_80");
  auto g2s_k = make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, half_t>{},
                               Layout<Shape<_16, _8>, Stride<_8, _1>>{}, Layout<Shape<_1, _8>>{});
  // sgemm_sm80 gemm_tn: the swizzled (8,(8,8)) atom tiled to (bM,bK,bP) = (128,64,3), both operands.
  auto atom = composition(Swizzle<3, 3, 3>{}, Layout<Shape<_8, Shape<_8, _8>>, Stride<_8, Stride<_1, _64>>>{});
  const std::string atom_text = "composition(Swizzle<3,3,3>{}, Layout<Shape<_8,Shape<_8,_8>>, Stride<_8,Stride<_1,_64>>>{})";
  auto mma_tn = make_tiled_mma(SM80_16x8x16_F16F16F16F16_TN{}, Layout<Shape<_2, _2>>{}, Tile<_32, _32, _16>{});
  auto sA = lp::emit_layout<half_t>(out, "sgemm_sA", tile_to_shape(atom, make_shape(Int<128>{}, Int<64>{}, Int<3>{})),
                                    lp::LayoutOptions().align(128).cute("tile_to_shape(" + atom_text + ", make_shape(Int<128>{}, Int<64>{}, Int<3>{}))"));
  lp::emit_access(out, "sgemm_a_g2s", sA, g2s_k, lp::Side::Dst);
  lp::emit_access(out, "sgemm_a_s2r", sA, make_tiled_copy_A(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}, mma_tn), lp::Side::Src);
  lp::emit_access(out, "sgemm_b_s2r", sA, make_tiled_copy_B(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}, mma_tn), lp::Side::Src);

  // DefaultGemm_TensorOpSm80_OperandA<half_t, RowMajor (K-major), 8, 64> with TileShape (128,128,64),
  // and <half_t, ColumnMajor (M-major), 8, 32> with (128,128,32); TiledMMA 2x2 warps of SM80_16x8x16.
  auto mma = TiledMMA<MMA_Atom<SM80_16x8x16_F32F16F16F32_TN>, Layout<Shape<_2, _2, _1>>, Tile<_32, _32, _16>>{};
  auto kA = lp::emit_layout<half_t>(
      out, "default_k_sA", tile_to_shape(composition(Swizzle<3, 3, 3>{}, Layout<Shape<_8, _64>, Stride<_64, _1>>{}), Shape<_128, _64>{}),
      lp::LayoutOptions().align(128).cute("tile_to_shape(composition(Swizzle<3,3,3>{}, Layout<Shape<_8,_64>, Stride<_64,_1>>{}), "
                                           "Shape<_128,_64>{})"));
  lp::emit_access(out, "default_k_g2s", kA, g2s_k, lp::Side::Dst);
  lp::emit_access(out, "default_k_s2r", kA, make_tiled_copy_A(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}, mma), lp::Side::Src);
  auto mA = lp::emit_layout<half_t>(
      out, "default_m_sA", tile_to_shape(composition(Swizzle<3, 3, 3>{}, Layout<Shape<_64, _8>, Stride<_1, _64>>{}), Shape<_128, _32>{}),
      lp::LayoutOptions().align(128).cute("tile_to_shape(composition(Swizzle<3,3,3>{}, Layout<Shape<_64,_8>, Stride<_1,_64>>{}), "
                                           "Shape<_128,_32>{})"));
  lp::emit_access(out, "default_m_g2s", mA,
                  make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, half_t>{},
                                  Layout<Shape<_16, _8>, Stride<_1, _16>>{}, Layout<Shape<_8, _1>>{}),
                  lp::Side::Dst);
  lp::emit_access(out, "default_m_s2r", mA, make_tiled_copy_A(Copy_Atom<SM75_U16x8_LDSM_T, half_t>{}, mma), lp::Side::Src);
}

}  // namespace

int main() {
  lp::Emitter out;
  for (const char* line : {"entry: CuTe probe output of corpus/probes/cutlass.cpp: the CUTLASS entries' layouts, copies, TMA boxes and "
                           "MMA descriptors as CuTe computes them",
                           "project: CUTLASS",
                           "source: NVIDIA/cutlass include/cute/atom/mma_traits_sm90_gmma.hpp:75 @ "
                           "7107b05535f8977f5ecb9d01ee203205b1fd9bc4",
                           "claim: what CUTLASS's CuTe types evaluate to (written by layoutproof extract; do not edit)",
                           "verdict: clean"})
    out.comment(line);
  lp::emit_arch(out, "sm_90");
  gmma_atoms(out);
  wgmma_tutorials(out);
  umma(out);
  sm80(out);
}
