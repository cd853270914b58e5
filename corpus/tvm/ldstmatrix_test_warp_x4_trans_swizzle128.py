# entry: TVM TIRx ldstmatrix dispatch test, warp scope, num=4, trans=True, 128B swizzle: fp16 column-major smem tile read by ldmatrix.x4.trans / written by stmatrix.x4.trans
# project: TVM
# source: apache/tvm tests/python/tirx/operator/tile_primitive/cuda/copy/test_ld_stmatrix.py:72 @ 06b6ca47ee82d718ba7ee6b03de0029956704e4b
# claim: the test asserts "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" / "stmatrix...x4.trans" is emitted and A == B round-trips under the 128b swizzle
# verdict: clean
# test_ldstmatrix_swizzle(scope="warp", trans=True, num=4): the smem layout is
#   _s_layout_warp(4, True) = TileLayout(S[(8, 4, num, 2) : (1, 2 * num * 8, 8, num * 8)])     (line 72)
# in ComposeLayout(SwizzleLayout(per_element=3, swizzle_len=3, atom_len=3), ...) (line 82). Element
# (row, cp, t, w) sits at row + 8*t + 32*w + 64*cp: the fragment row index `row` is now the contiguous
# one, so each stored 16-byte row is k = 2*cp + w (8 of them, 64 bytes apart) at columns 8t..8t+7, and
# .trans hands lane 4*row + cp the elements (cp, w) of fragment row `row`.
# layoutproof: arch sm_90
# layoutproof: smem A_smem : f16 = ComposeLayout(SwizzleLayout(per_element=3, swizzle_len=3, atom_len=3), S[(8, 4, 4, 2):(1, 64, 8, 32)])
# Regrouped in CuTe as ((w, cp), row, t) -> 32*w + 64*cp + row + 8*t so one stored row is one
# 8-element mode; equal to A_smem at all 256 elements (`layoutproof eval`):
# layoutproof: smem A_rows : f16 = Sw<3,3,3> o _0 o ((_2,_4),_8,_4):((_32,_64),_1,_8)
# .trans: lanes 8t..8t+7 give stored rows k = 0..7 of matrix t.
# layoutproof: access ld: A_rows ldmatrix.x4.trans lanes (_8,_4):(_1@0,_1@2)
# layoutproof: expect ld conflict-free
# layoutproof: access st: A_rows stmatrix.x4.trans lanes (_8,_4):(_1@0,_1@2)
# layoutproof: expect st conflict-free
