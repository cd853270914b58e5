# entry: TVM TIRx ldstmatrix dispatch test, warp scope, num=4, trans=False, no swizzle: fp16 8x32 smem tile read by ldmatrix.x4 / written by stmatrix.x4
# project: TVM
# source: apache/tvm tests/python/tirx/operator/tile_primitive/cuda/copy/test_ld_stmatrix.py:71 @ 06b6ca47ee82d718ba7ee6b03de0029956704e4b
# claim: correctness only: the test asserts the ldmatrix/stmatrix .x4 instruction is emitted and A == B round-trips; it makes no bank-conflict claim
# verdict: LP002@20, LP002@21
# confirmed: gpu H100 (sm_90a, Nsight Compute, layoutproof replay, 2026-11-21): line 20 LP002: 16 wavefronts measured, 16 predicted; line 21 LP002: 16 wavefronts measured, 16 predicted
# test_ldstmatrix(scope="warp", trans=False, direction="ld"|"st", num=4), the unswizzled sibling of
# ldstmatrix_test_warp_x4_swizzle128.py: _s_layout_warp(4, False) = TileLayout(S[(8, 4, num, 2) :
# (num * 8, 2, 8, 1)]) (line 71), element (row, cp, t, w) at 32*row + 8*t + 2*cp + w. Rows are 64 bytes,
# so the 8 row addresses of one matrix (16 bytes each, 64 bytes apart) span 4 bank lines and rows
# r, r+2, r+4, r+6 share their four banks: 4 distinct words per bank, 16 wavefronts per .x4 where 4
# are ideal.
# The test only checks values, so nothing in the source contradicts the finding; it is what the
# swizzled variant (test_ldstmatrix_swizzle) removes.
# layoutproof: arch sm_90
# layoutproof: smem A_smem : f16 = S[(8, 4, 4, 2):(32, 2, 8, 1)]
# The same function regrouped so one row address covers one 8-element mode (see the swizzled entry):
# layoutproof: smem A_rows : f16 = (_8,(_2,_4),_4):(_32,(_1,_2),_8)
# ldmatrix.x4 / stmatrix.x4: lanes 8t..8t+7 give rows 0..7 of matrix t (columns 8t..8t+7).
# layoutproof: access ld: A_rows ldmatrix.x4 lanes (_8,_4):(_1@0,_1@2)
# layoutproof: access st: A_rows stmatrix.x4 lanes (_8,_4):(_1@0,_1@2)
