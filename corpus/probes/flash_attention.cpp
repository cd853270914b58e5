// entry: CuTe probe of the FlashAttention-2 forward entries: Flash_fwd_kernel_traits' smem layouts and copies computed from CuTe
// project: FlashAttention
// source: Dao-AILab/flash-attention csrc/flash_attn/src/kernel_traits.h:79 @ 0251105a2fb19d2957484b7f023cd8c115286ced
// claim: the hand-written fwd_sm80 entries of corpus/flash-attention/ state what these CuTe expressions evaluate to
// verdict: clean
//
// A layoutproof probe (docs/cute.md, where it is the worked example):
//   layoutproof extract corpus/probes/flash_attention.cpp -I <cutlass>/include --emit corpus/probes/flash_attention.lp
// It restates Flash_fwd_kernel_traits (csrc/flash_attn/src/kernel_traits.h:55-115 at the commit above)
// with the pinned CuTe and writes, for each head dimension of the corpus, the Q/K/V/O tiles and the
// copies the forward kernel (flash_fwd_kernel.h) runs on them. Each hand-written entry names the
// layout it states (`cute "Flash_fwd_kernel_traits<...>::SmemLayoutQ"`, LP012); tests/corpus
// compares its accesses with the ones written here.
#include <layoutproof/cute.hpp>

// The annotation language reads CuTe's C++ spelling too; LP012 proves what it reads here is what
// this probe computes for Flash_fwd_kernel_traits (corpus/probes/flash_attention.lp):
// layoutproof: smem spelled_q : f16 = tile_to_shape(composition(Swizzle<3, 3, 3>{}, Layout<Shape<_8, Int<64>>, Stride<Int<64>, _1>>{}), Shape<Int<128>, Int<128>>{}) align 128 cute "Flash_fwd_kernel_traits<128, 128, 64, 4>::SmemLayoutQ"
// layoutproof: smem spelled_kv : f16 = tile_to_shape(composition(Swizzle<3, 3, 3>{}, Layout<Shape<_8, Int<64>>, Stride<Int<64>, _1>>{}), Shape<Int<64>, Int<128>>{}) align 128 cute "Flash_fwd_kernel_traits<128, 128, 64, 4>::SmemLayoutKV"

using namespace cute;
namespace lp = layoutproof;

namespace {

// Flash_fwd_kernel_traits<kHeadDim, kBlockM, kBlockN, kNWarps> for fp16 (kernel_traits.h:55-115).
template <int kHeadDim, int kBlockM, int kBlockN, int kNWarps>
struct Traits {
  using Element = half_t;
  static constexpr int kNThreads = kNWarps * 32;
  static constexpr int kBlockKSmem = kHeadDim % 64 == 0 ? 64 : 32;
  static constexpr int kBlockKGmem = kHeadDim % 128 == 0 ? 128 : (kHeadDim % 64 == 0 ? 64 : 32);
  static constexpr int kSwizzle = kBlockKSmem == 32 ? 2 : 3;
  using TiledMma = TiledMMA<MMA_Atom<SM80_16x8x16_F32F16F16F32_TN>, Layout<Shape<Int<kNWarps>, _1, _1>>,
                            Tile<Int<16 * kNWarps>, _16, _16>>;
  using SmemLayoutAtomQ = decltype(composition(Swizzle<kSwizzle, 3, 3>{},
                                               Layout<Shape<_8, Int<kBlockKSmem>>, Stride<Int<kBlockKSmem>, _1>>{}));
  using SmemLayoutQ = decltype(tile_to_shape(SmemLayoutAtomQ{}, Shape<Int<kBlockM>, Int<kHeadDim>>{}));
  using SmemLayoutKV = decltype(tile_to_shape(SmemLayoutAtomQ{}, Shape<Int<kBlockN>, Int<kHeadDim>>{}));
  using SmemLayoutVtransposed =
      decltype(composition(SmemLayoutKV{}, make_layout(Shape<Int<kHeadDim>, Int<kBlockN>>{}, GenRowMajor{})));
  using SmemLayoutO = decltype(tile_to_shape(SmemLayoutAtomQ{}, Shape<Int<kBlockM>, Int<kHeadDim>>{}));
  using SmemCopyAtom = Copy_Atom<SM75_U32x4_LDSM_N, Element>;
  using SmemCopyAtomTransposed = Copy_Atom<SM75_U16x8_LDSM_T, Element>;
  using SmemCopyAtomO = Copy_Atom<AutoVectorizingCopyWithAssumedAlignment<128>, Element>;
  static constexpr int kGmemElemsPerLoad = sizeof(cute::uint128_t) / sizeof(Element);
  static constexpr int kGmemThreadsPerRow = kBlockKSmem / kGmemElemsPerLoad;
  using GmemLayoutAtom = Layout<Shape<Int<kNThreads / kGmemThreadsPerRow>, Int<kGmemThreadsPerRow>>,
                                Stride<Int<kGmemThreadsPerRow>, _1>>;
  using GmemTiledCopyQKV = decltype(make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<cute::uint128_t>, Element>{},
                                                    GmemLayoutAtom{}, Layout<Shape<_1, _8>>{}));
  using GmemTiledCopyO = decltype(make_tiled_copy(Copy_Atom<AutoVectorizingCopyWithAssumedAlignment<128>, Element>{},
                                                  GmemLayoutAtom{}, Layout<Shape<_1, _8>>{}));
};

template <int D, int M, int N, int W>
std::string traits_name() {
  return "Flash_fwd_kernel_traits<" + std::to_string(D) + ", " + std::to_string(M) + ", " + std::to_string(N) + ", " +
         std::to_string(W) + ">";
}

// Q and K: the cp.async fill (GmemTiledCopyQKV) and the ldmatrix reads as the A and B operands of
// S = Q K^T (flash_fwd_kernel.h: make_tiled_copy_A/B(SmemCopyAtom, tiled_mma)).
template <int D, int M, int N, int W>
void qk(lp::Emitter& out, lp::Origin at = lp::Origin::current()) {
  using T = Traits<D, M, N, W>;
  const std::string p = "d" + std::to_string(D) + "_";
  const std::string traits = traits_name<D, M, N, W>();
  typename T::TiledMma mma;
  auto sQ = lp::emit_layout<half_t>(out, p + "sQ", typename T::SmemLayoutQ{}, lp::LayoutOptions().align(128).cute(traits + "::SmemLayoutQ"), at);
  lp::emit_access(out, p + "q_g2s", sQ, typename T::GmemTiledCopyQKV{}, lp::Side::Dst, {}, at);
  lp::emit_access(out, p + "q_s2r", sQ, make_tiled_copy_A(typename T::SmemCopyAtom{}, mma), lp::Side::Src, {}, at);
  auto sK = lp::emit_layout<half_t>(out, p + "sK", typename T::SmemLayoutKV{}, lp::LayoutOptions().align(128).cute(traits + "::SmemLayoutKV"), at);
  lp::emit_access(out, p + "k_g2s", sK, typename T::GmemTiledCopyQKV{}, lp::Side::Dst, {}, at);
  lp::emit_access(out, p + "k_s2r", sK, make_tiled_copy_B(typename T::SmemCopyAtom{}, mma), lp::Side::Src, {}, at);
}

// V (SmemLayoutKV) and V^T: SmemLayoutVtransposed read by ldmatrix.trans as the B operand of O = P V.
template <int D, int M, int N, int W>
void vt(lp::Emitter& out, lp::Origin at = lp::Origin::current()) {
  using T = Traits<D, M, N, W>;
  const std::string p = "d" + std::to_string(D) + "_";
  typename T::TiledMma mma;
  lp::emit_layout<half_t>(out, p + "sV", typename T::SmemLayoutKV{},
                          lp::LayoutOptions().align(128).cute(traits_name<D, M, N, W>() + "::SmemLayoutKV"), at);
  auto sVt = lp::emit_layout<half_t>(out, p + "sVt", typename T::SmemLayoutVtransposed{},
                                     lp::LayoutOptions().align(128).cute(traits_name<D, M, N, W>() + "::SmemLayoutVtransposed"), at);
  lp::emit_access(out, p + "v_s2r", sVt, make_tiled_copy_B(typename T::SmemCopyAtomTransposed{}, mma), lp::Side::Src, {}, at);
}

// O: the accumulator, converted to fp16, stored through make_tiled_copy_C(SmemCopyAtomO, tiled_mma)
// (an auto-vectorizing copy: its width is what max_common_vector of the register fragment and sO
// allows), then read back by GmemTiledCopyO into a register tensor of its partition's shape.
template <int D, int M, int N, int W>
void o(lp::Emitter& out, lp::Origin at = lp::Origin::current()) {
  using T = Traits<D, M, N, W>;
  const std::string p = "d" + std::to_string(D) + "_";
  typename T::TiledMma mma;
  auto sO = lp::emit_layout<half_t>(out, p + "sO", typename T::SmemLayoutO{},
                                    lp::LayoutOptions().align(128).cute(traits_name<D, M, N, W>() + "::SmemLayoutO"), at);
  auto r2s = make_tiled_copy_C(typename T::SmemCopyAtomO{}, mma);
  auto acc = partition_fragment_C(mma, Shape<Int<M>, Int<D>>{});  // acc_o; rO = convert_type<Element>(acc_o)
  auto rO = r2s.get_thread_slice(0).retile_S(make_tensor(make_rmem_ptr(static_cast<half_t*>(nullptr)), acc.layout()));
  lp::emit_access(out, p + "o_r2s", sO, r2s, lp::Side::Dst, rO.layout(), {}, at);
  typename T::GmemTiledCopyO s2g;
  auto tOsO = s2g.get_thread_slice(0).partition_S(make_tensor(make_smem_ptr(static_cast<half_t*>(nullptr)), sO.layout));
  lp::emit_access(out, p + "o_s2g", sO, s2g, lp::Side::Src, make_layout(shape(tOsO)), {}, at);
}

}  // namespace

int main() {
  lp::Emitter out;
  for (const char* line :
       {"entry: CuTe probe output of corpus/probes/flash_attention.cpp: the FlashAttention-2 forward entries' smem layouts "
        "and copies as CuTe computes them",
        "project: FlashAttention",
        "source: Dao-AILab/flash-attention csrc/flash_attn/src/kernel_traits.h:79 @ 0251105a2fb19d2957484b7f023cd8c115286ced",
        "claim: what Flash_fwd_kernel_traits' CuTe types evaluate to (written by layoutproof extract; do not edit)",
        "verdict: clean"})
    out.comment(line);
  lp::emit_arch(out, "sm_80");
  // The launch templates of the corpus entries (flash_fwd_launch_template.h: run_mha_fwd_hdimD).
  qk<32, 128, 128, 4>(out);
  qk<96, 128, 64, 4>(out);
  qk<128, 128, 64, 4>(out);
  qk<160, 128, 32, 4>(out);
  qk<192, 128, 64, 8>(out);
  qk<256, 128, 64, 8>(out);
  vt<32, 128, 128, 4>(out);
  vt<64, 128, 128, 4>(out);
  vt<128, 128, 64, 4>(out);
  vt<256, 128, 64, 8>(out);
  o<32, 128, 128, 4>(out);
  o<64, 128, 128, 4>(out);
  o<128, 128, 64, 4>(out);
}
