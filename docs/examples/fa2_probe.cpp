// docs/cute.md, worked example: a FlashAttention-2 style probe of the Q tile of a head-dim-128
// forward kernel and its copies, with the swizzle of the smem atom left out.
#include <layoutproof/cute.hpp>
using namespace cute;
namespace lp = layoutproof;

using Element = half_t;
constexpr int kBlockM = 128, kHeadDim = 128, kNWarps = 4, kBlockKSmem = 64;
using SmemLayoutAtomQ = Layout<Shape<_8, Int<kBlockKSmem>>, Stride<Int<kBlockKSmem>, _1>>;  // no swizzle
using SmemLayoutQ = decltype(tile_to_shape(SmemLayoutAtomQ{}, Shape<Int<kBlockM>, Int<kHeadDim>>{}));
using TiledMma = TiledMMA<MMA_Atom<SM80_16x8x16_F32F16F16F32_TN>, Layout<Shape<Int<kNWarps>, _1, _1>>,
                          Tile<Int<16 * kNWarps>, _16, _16>>;
using GmemTiledCopyQ = decltype(make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, Element>{},
                                                Layout<Shape<_16, _8>, Stride<_8, _1>>{}, Layout<Shape<_1, _8>>{}));

int main() {
  lp::Emitter out;
  lp::emit_arch(out, "sm_80");
  auto sQ = lp::emit_layout<Element>(out, "sQ", SmemLayoutQ{}, lp::LayoutOptions().align(128).cute("SmemLayoutQ"));
  lp::emit_access(out, "q_g2s", sQ, GmemTiledCopyQ{}, lp::Side::Dst);
  lp::emit_access(out, "q_s2r", sQ, make_tiled_copy_A(Copy_Atom<SM75_U32x4_LDSM_N, Element>{}, TiledMma{}), lp::Side::Src);
}
