# entry: TVM TIRx ldstmatrix dispatch test, warpgroup scope, num=4, trans=False, 128B swizzle: fp16 32x32 smem tile, each warp's 8-row slab read by ldmatrix.x4 / written by stmatrix.x4
# project: TVM
# source: apache/tvm tests/python/tirx/operator/tile_primitive/cuda/copy/test_ld_stmatrix.py:77 @ 06b6ca47ee82d718ba7ee6b03de0029956704e4b
# claim: the test asserts the .x4 instruction is emitted and A == B round-trips under the 128b swizzle ("4 warps stacked vertically")
# verdict: clean
# test_ldstmatrix_swizzle(scope="warpgroup", trans=False, num=4): _s_layout_warpgroup_or_cta(4, False) =
# TileLayout(S[(4, 8, 4, num, 2) : (64 * num, num * 8, 2, 8, 1)]) (line 77) in ComposeLayout(_SWIZZLE_128B, ...)
# (line 82): element (wid, row, cp, t, w) at 256*wid + 32*row + 8*t + 2*cp + w, a 32 x 32 fp16 tile with
# 64-byte rows; warp wid owns rows 8*wid..8*wid+7. For warps 1 and 3 the swizzle's source bits include
# offset bit 8 (row bit 3), which also flips bit 5 (row parity): the pattern differs per warp and every
# warp must still be conflict-free.
# Regrouped as (wid, row, (w, cp), t), equal at all 1024 elements (`layoutproof eval`). One warp's access:
# lanes 8t..8t+7 give rows 0..7 of matrix t in its slab; the four warps are written as four issues.
# layoutproof: arch sm_90
# layoutproof: smem A_smem : f16 = ComposeLayout(SwizzleLayout(per_element=3, swizzle_len=3, atom_len=3), S[(4, 8, 4, 4, 2):(256, 32, 2, 8, 1)])
# layoutproof: smem A_rows : f16 = Sw<3,3,3> o _0 o (_4,_8,(_2,_4),_4):(_256,_32,(_1,_2),_8)
# layoutproof: access ld: A_rows ldmatrix.x4 lanes (_8,_4,_4):(_1@1,_1@3,_1@0)
# layoutproof: expect ld conflict-free
# layoutproof: access st: A_rows stmatrix.x4 lanes (_8,_4,_4):(_1@1,_1@3,_1@0)
# layoutproof: expect st conflict-free
