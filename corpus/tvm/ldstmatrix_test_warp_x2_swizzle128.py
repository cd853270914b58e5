# entry: TVM TIRx ldstmatrix dispatch test, warp scope, num=2, trans=False, 128B swizzle: fp16 8x16 smem tile (32-byte rows) read by ldmatrix.x2 / written by stmatrix.x2
# project: TVM
# source: apache/tvm tests/python/tirx/operator/tile_primitive/cuda/copy/test_ld_stmatrix.py:71 @ 06b6ca47ee82d718ba7ee6b03de0029956704e4b
# claim: the test asserts "ldmatrix.sync.aligned.m8n8.x2.shared.b16" / "stmatrix...x2" is emitted and A == B round-trips under the 128b swizzle
# verdict: clean
# test_ldstmatrix_swizzle(scope="warp", trans=False, num=2): _s_layout_warp(2, False) =
# TileLayout(S[(8, 4, num, 2) : (num * 8, 2, 8, 1)]) (line 71) in ComposeLayout(SwizzleLayout(3, 3, 3), ...)
# (line 82): element (row, cp, t, w) at 16*row + 8*t + 2*cp + w, an 8 x 16 fp16 tile with 32-byte rows.
# The 128B element swizzle on 32-byte rows XORs offset bit 6 (row bit 2) into bit 3 (the matrix index t):
# rows r and r + 4, which share banks unswizzled (ldstmatrix_test_warp_x2_noswizzle.py), get different
# 16-byte halves.
# Regrouped as (row, (w, cp), t) for the lane map, equal at all 128 elements (`layoutproof eval`).
# .x2 takes addresses from lanes 0-15 only (lanes 8t..8t+7: rows 0..7 of matrix t); lanes 16-31 are
# ignored and written here as repeating lanes 0-15.
# layoutproof: arch sm_90
# layoutproof: smem A_smem : f16 = ComposeLayout(SwizzleLayout(per_element=3, swizzle_len=3, atom_len=3), S[(8, 4, 2, 2):(16, 2, 8, 1)])
# layoutproof: smem A_rows : f16 = Sw<3,3,3> o _0 o (_8,(_2,_4),_2):(_16,(_1,_2),_8)
# layoutproof: access ld: A_rows ldmatrix.x2 lanes (_8,_2,_2):(_1@0,_1@2,_0@0)
# layoutproof: expect ld conflict-free
# layoutproof: access st: A_rows stmatrix.x2 lanes (_8,_2,_2):(_1@0,_1@2,_0@0)
# layoutproof: expect st conflict-free
