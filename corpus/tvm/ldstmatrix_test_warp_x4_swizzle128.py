# entry: TVM TIRx ldstmatrix dispatch test, warp scope, num=4, trans=False, 128B swizzle: fp16 8x32 smem tile read by ldmatrix.x4 / written by stmatrix.x4
# project: TVM
# source: apache/tvm tests/python/tirx/operator/tile_primitive/cuda/copy/test_ld_stmatrix.py:71 @ 06b6ca47ee82d718ba7ee6b03de0029956704e4b
# claim: the test asserts "ldmatrix.sync.aligned.m8n8.x4.shared.b16" / "stmatrix...x4" is emitted and A == B round-trips; the 128b swizzle "is the most common fp16 SMEM swizzle"
# verdict: clean
# test_ldstmatrix_swizzle(scope="warp", trans=False, direction="ld"|"st", num=4): the smem layout is
#   _s_layout_warp(4, False) = TileLayout(S[(8, 4, num, 2) : (num * 8, 2, 8, 1)])            (line 71)
# wrapped in ComposeLayout(_SWIZZLE_128B, ...) with
#   _SWIZZLE_128B = SwizzleLayout(per_element=3, swizzle_len=3, atom_len=3)                   (line 82)
# Element (row, cp, t, w) sits at 32*row + 8*t + 2*cp + w: an 8 x 32 fp16 tile (64-byte rows) whose
# 8x8 matrix t is columns 8t..8t+7. The register side is _r_layout_warp(4) (line 58), the ldmatrix
# fragment: lane 4*row + cp holds (cp, w) = 2 elements of row `row` of each matrix t, in reg 2t + w.
# layoutproof: arch sm_90
# layoutproof: smem A_smem : f16 = ComposeLayout(SwizzleLayout(per_element=3, swizzle_len=3, atom_len=3), S[(8, 4, 4, 2):(32, 2, 8, 1)])
# layoutproof: regs R_local = S[(8, 4, 4, 2):(4@laneid, 1@laneid, 2, 1)]
# layoutproof: covers R_local laneid=0..31
# The 16 bytes one ldmatrix row address covers are (cp, w) at fixed (row, t): two logical modes that are
# not adjacent in the TIRx shape (t sits between them), which an access lane map cannot express as one
# vector. The same function regrouped in CuTe, modes (row, (w, cp), t) -> 32*row + w + 2*cp + 8*t, checked
# equal to A_smem at all 256 elements with `layoutproof eval`:
# layoutproof: smem A_rows : f16 = Sw<3,3,3> o _0 o (_8,(_2,_4),_4):(_32,(_1,_2),_8)
# ldmatrix.x4 / stmatrix.x4: lanes 8t..8t+7 give rows 0..7 of matrix t (columns 8t..8t+7).
# layoutproof: access ld: A_rows ldmatrix.x4 lanes (_8,_4):(_1@0,_1@2)
# layoutproof: expect ld conflict-free
# layoutproof: access st: A_rows stmatrix.x4 lanes (_8,_4):(_1@0,_1@2)
# layoutproof: expect st conflict-free
