// Probe of every GMMA shared-memory layout atom (cute/atom/mma_traits_sm90_gmma.hpp:75-104: K- and
// MN-major, INTER/SW32/SW64/SW128) for 8-, 16- and 32-bit elements, and UMMA's
// Layout_MN_SW128_32B_Atom (mma_traits_sm100.hpp:72), each tiled by tile_to_shape to a tile the SM90
// builders use, with the wgmma descriptor and the TMA box CuTe builds for a K- and an MN-major operand. Each layout
// is emitted by layoutproof/cute.hpp and followed by CuTe's own evaluation through a shared-memory
// pointer (tests/cute/oracle_support.hpp); test_cute_probes.cpp compares them point by point.
#include <cute/atom/mma_traits_sm100.hpp>

#include "oracle_support.hpp"

using namespace cute;
namespace lp = layoutproof;

namespace {

template <class T, class Atom, class Tile>
void tiled(lp::Emitter& out, const std::string& name, Atom atom, Tile tile, lp::Origin at = lp::Origin::current()) {
  auto l = tile_to_shape(atom, tile);
  lp::emit_layout<T>(out, name, l, lp::LayoutOptions().align(1024), at);
  oracle::layout<T>(out, name, l);
}

// K-major atoms are (8, W) with W = 128..1024 bits of T; tiled to (64, 2W) (two atoms along K,
// eight down M). MN-major atoms are (W, 8); tiled to (2W, 16).
template <class T>
void gmma_atoms(lp::Emitter& out, const std::string& t) {
  using namespace cute::GMMA;
  constexpr int e = 128 / sizeof_bits_v<T>;  // elements of 128 bits
  tiled<T>(out, "k_inter_" + t, Layout_K_INTER_Atom<T>{}, Shape<_64, Int<2 * e>>{});
  tiled<T>(out, "k_sw32_" + t, Layout_K_SW32_Atom<T>{}, Shape<_64, Int<4 * e>>{});
  tiled<T>(out, "k_sw64_" + t, Layout_K_SW64_Atom<T>{}, Shape<_64, Int<8 * e>>{});
  tiled<T>(out, "k_sw128_" + t, Layout_K_SW128_Atom<T>{}, Shape<_64, Int<16 * e>>{});
  tiled<T>(out, "mn_inter_" + t, Layout_MN_INTER_Atom<T>{}, Shape<Int<2 * e>, _16>{});
  tiled<T>(out, "mn_sw32_" + t, Layout_MN_SW32_Atom<T>{}, Shape<Int<4 * e>, _16>{});
  tiled<T>(out, "mn_sw64_" + t, Layout_MN_SW64_Atom<T>{}, Shape<Int<8 * e>, _16>{});
  tiled<T>(out, "mn_sw128_" + t, Layout_MN_SW128_Atom<T>{}, Shape<Int<16 * e>, _16>{});
  tiled<T>(out, "umma_mn_sw128_32b_" + t, UMMA::Layout_MN_SW128_32B_Atom<T>{}, Shape<Int<16 * e>, _8>{});
}

}  // namespace

int main() {
  lp::Emitter out;
  lp::emit_arch(out, "sm_90");
  gmma_atoms<uint8_t>(out, "u8");
  gmma_atoms<float_e4m3_t>(out, "e4m3");
  gmma_atoms<half_t>(out, "f16");
  gmma_atoms<bfloat16_t>(out, "bf16");
  gmma_atoms<tfloat32_t>(out, "tf32");
  gmma_atoms<float>(out, "f32");

  // The descriptors CuTe builds (make_gmma_desc) for a K-major A and an MN-major B of one stage.
  auto sA = lp::emit_layout<half_t>(out, "desc_a", tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, Shape<_64, _64>{}),
                                    lp::LayoutOptions().align(1024));
  lp::emit_mma_operand<lp::Operand::A>(out, sA, make_tiled_mma(SM90_64x64x16_F32F16F16_SS<GMMA::Major::K, GMMA::Major::K>{}));
  auto sB = lp::emit_layout<half_t>(out, "desc_b", tile_to_shape(GMMA::Layout_MN_SW64_Atom<half_t>{}, Shape<_64, _64>{}),
                                    lp::LayoutOptions().align(1024));
  lp::emit_mma_operand<lp::Operand::B>(out, sB, make_tiled_mma(SM90_64x64x16_F32F16F16_SS<GMMA::Major::K, GMMA::Major::MN>{}));
  // tcgen05.mma (examples/cute/tutorial/blackwell/01_mma_sm100.cu:363-433): 128x256 f16 MMA, K-major
  // A in UMMA::tile_to_mma_shape(UMMA::Layout_K_SW128_Atom, partition_shape_A(mma, (128, 64))), and
  // an MN-major B of the 32-byte-atom 128-byte swizzle.
  auto umma = make_tiled_mma(SM100_MMA_F16BF16_SS<half_t, half_t, float, 128, 256, UMMA::Major::K, UMMA::Major::K>{});
  auto uA = lp::emit_layout<half_t>(
      out, "umma_a", UMMA::tile_to_mma_shape(UMMA::Layout_K_SW128_Atom<half_t>{}, partition_shape_A(umma, make_shape(_128{}, _64{}))),
      lp::LayoutOptions().align(1024));
  lp::emit_mma_operand<lp::Operand::A>(out, uA, umma);
  auto umma_tf32 = make_tiled_mma(SM100_MMA_TF32_SS<tfloat32_t, tfloat32_t, float, 128, 64, UMMA::Major::K, UMMA::Major::MN>{});
  auto uB = lp::emit_layout<tfloat32_t>(
      out, "umma_b", UMMA::tile_to_mma_shape(UMMA::Layout_MN_SW128_32B_Atom<tfloat32_t>{}, partition_shape_B(umma_tf32, make_shape(_64{}, _32{}))),
      lp::LayoutOptions().align(1024));
  lp::emit_mma_operand<lp::Operand::B>(out, uB, umma_tf32);
  // The TMA boxes make_tma_copy computes for them: A from a K-major (M,K) = (512,256) tensor, B
  // from an N-major (N,K) = (512,256) one.
  lp::emit_tma(out, "a_load", sA, make_layout(make_shape(512, 256), make_stride(256, _1{})), lp::TmaDirection::Load);
  lp::emit_tma(out, "b_load", sB, make_layout(make_shape(512, 256), make_stride(_1{}, 512)), lp::TmaDirection::Load);
}
