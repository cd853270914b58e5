// Excerpt of CUTLASS examples/cute/tutorial/sgemm_sm80.cu (NVIDIA/cutlass @ 7107b05535f8977f5ecb9d01ee203205b1fd9bc4,
// line 358: the half-precision NT GEMM), annotated for LayoutProof. Code lines are abridged.
#include <cute/tensor.hpp>

using namespace cute;

// layoutproof: arch sm_80

template <class TA, class TB>
void gemm_tn(int m, int n, int k, TA const* A, TB const* B) {
  auto bM = Int<128>{};
  auto bK = Int<64>{};
  auto bP = Int<3>{};  // pipeline stages

  // Swizzles for LDSM and 128b k-major loads
  auto swizzle_atom = composition(Swizzle<3,3,3>{},
                                  Layout<Shape <_8,Shape <_8, _8>>,
                                         Stride<_8,Stride<_1,_64>>>{});
  // The atom exactly as written above, and the (bM,bK,bP) tile tile_to_shape makes of it.
  // layoutproof: smem sA_atom : f16 = \
  //     composition(Swizzle<3,3,3>{}, Layout<Shape<_8,Shape<_8,_8>>, Stride<_8,Stride<_1,_64>>>{})
  // layoutproof: smem sA : f16 = Sw<3,3,3> o _0 o ((_8,_16),(_8,_8),_3):((_8,_512),(_1,_64),_8192) align 128
  auto sA = tile_to_shape(swizzle_atom, make_shape(bM,bK,bP));
  auto sB = tile_to_shape(swizzle_atom, make_shape(bM,bK,bP));  // "// not an annotation" in a string-free comment

  /* layoutproof: expect sA injective */

  // G2S: SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, threads (16,8):(8,1), 8 halves each.
  // One warp: lane%8 steps 8 halves along k, lane/8 steps one row; 8 issues of 16 rows.
  // layoutproof: access g2s: sA cp.async.ca.16 lanes (_8,_4,_8):(_8@1,_1@0,_16@0)
  // layoutproof: expect g2s conflict-free
  TiledCopy copyA = make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, TA>{},
                                    Layout<Shape<_16,_8>,Stride<_8,_1>>{},
                                    Layout<Shape< _1,_8>>{});

  /*
   * S2R: SM75_U32x4_LDSM_N. Lanes 0-15 give rows 0-15, lanes 16-31 the same rows 8 halves on.
   * layoutproof: access s2r: sA ldmatrix.x4 \
   *     lanes (_16,_2,_4,_4):(_1@0,_8@1,_16@0,_16@1)
   * layoutproof: expect s2r wavefronts <= 4 ; allow bank-conflict "ldmatrix.x4 needs 4 wavefronts, one per matrix"
   */
  const char* banner = "// layoutproof: smem fake : f16 = (_1):(_1)";  // a string, not a comment
  (void)banner;
}
