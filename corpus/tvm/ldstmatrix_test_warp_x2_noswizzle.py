# entry: TVM TIRx ldstmatrix dispatch test, warp scope, num=2, trans=False, no swizzle: fp16 8x16 smem tile (32-byte rows) read by ldmatrix.x2 / written by stmatrix.x2
# project: TVM
# source: apache/tvm tests/python/tirx/operator/tile_primitive/cuda/copy/test_ld_stmatrix.py:71 @ 06b6ca47ee82d718ba7ee6b03de0029956704e4b
# claim: correctness only: the test asserts the .x2 instruction is emitted and A == B round-trips; it makes no bank-conflict claim
# verdict: LP002@17, LP002@18
# confirmed: gpu H100 (sm_90a, Nsight Compute, layoutproof replay, 2026-11-21): line 17 LP002: 4 wavefronts measured, 4 predicted; line 18 LP002: 4 wavefronts measured, 4 predicted
# test_ldstmatrix(scope="warp", trans=False, num=2): TileLayout(S[(8, 4, 2, 2) : (16, 2, 8, 1)]) (line 71),
# element (row, cp, t, w) at 16*row + 8*t + 2*cp + w: 32-byte rows, so the 8 row addresses of one matrix
# span two 128-byte bank lines and rows r and r + 4 share their four banks: 2 wavefronts per matrix, 4 per
# .x2 where 2 are ideal. The swizzled sibling (ldstmatrix_test_warp_x2_swizzle128.py) removes it. The test
# only checks values, so no source claim is contradicted.
# Regrouped as (row, (w, cp), t) for the lane map (the same function); .x2 uses lanes 0-15, lanes 16-31
# repeat them.
# layoutproof: arch sm_90
# layoutproof: smem A_smem : f16 = S[(8, 4, 2, 2):(16, 2, 8, 1)]
# layoutproof: smem A_rows : f16 = (_8,(_2,_4),_2):(_16,(_1,_2),_8)
# layoutproof: access ld: A_rows ldmatrix.x2 lanes (_8,_2,_2):(_1@0,_1@2,_0@0)
# layoutproof: access st: A_rows stmatrix.x2 lanes (_8,_2,_2):(_1@0,_1@2,_0@0)
