// entry: CUTLASS default SM80 half GEMM configuration, 128x128x64 K-major A
// project: CUTLASS
// source: NVIDIA/cutlass test/unit/gemm/device/default_gemm_configuration.hpp:83 @ 7107b05535f8977f5ecb9d01ee203205b1fd9bc4
// claim: conflict-free cp.async and LDSM (the configuration every SM80 half GEMM test uses)
// verdict: clean
// CUTLASS test/unit/gemm/device/default_gemm_configuration.hpp:83
// (NVIDIA/cutlass @ 7107b05535f8977f5ecb9d01ee203205b1fd9bc4): half, 128x128x64, K-major A.
// The source's layout atom and copies, quoted:
//   composition(Swizzle<3,3,3>{}, Layout<Shape<_8,_64>, Stride<_64,_1>>{})
//   cp.async 16B thr (16,8):(8,1) val 1x8; SM75_U32x4_LDSM_N.
// Claimed conflict-free by the source (used by every SM80 half GEMM test).

// layoutproof: arch sm_80
// layoutproof: smem atom : f16 = composition(Swizzle<3,3,3>{}, Layout<Shape<_8,_64>, Stride<_64,_1>>{}) align 128
// layoutproof: expect atom injective
/* The (128,64) K-major tile: 16 atoms down M.
 * layoutproof: smem sA : f16 = Sw<3,3,3> o _0 o ((_8,_16),_64):((_64,_512),_1) align 128 cute "tile_to_shape(composition(Swizzle<3,3,3>{}, Layout<Shape<_8,_64>, Stride<_64,_1>>{}), Shape<_128,_64>{})"
 * G2S: thread t copies 8 halves at m = t/8, k = 8*(t%8); the 128 threads cover (16,64), so warp 0
 * (threads 0-31) writes rows 0-3 of every 16-row step: 8 issues.
 * layoutproof: access g2s: sA cp.async.ca.16 lanes (_8,_4,_8):(_8@1,_1@0,_16@0)
 * layoutproof: expect g2s conflict-free
 * S2R: ldmatrix.x4 of a 16x16 A fragment (lanes 0-15 rows 0-15, lanes 16-31 the same rows 8 halves
 * on); 2x2 warps with Tile<_32,_32,_16>: warp 0 reads rows 32i..32i+15 for 4 k-blocks of 16.
 * layoutproof: access s2r: sA ldmatrix.x4 lanes (_16,_2,_4,_4):(_1@0,_8@1,_32@0,_16@1)
 * layoutproof: expect s2r wavefronts <= 4
 */
