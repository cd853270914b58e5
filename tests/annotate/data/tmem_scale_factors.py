# A TIRx kernel excerpt (the style of mlc-ai/TIRx-kernels), annotated for LayoutProof.
# layoutproof: param BLK_N = 32..256 % 32
# The scale factors of one 128-row tile: 32 TMEM lanes x 4 columns, replicated to all four
# 32-lane sub-partitions so every warp of the warpgroup reads its own copy.
# layoutproof: tmem sfa : f32 = S[(32,4):(1@TLane,1@TCol)] + R[4:32@TLane]
# layoutproof: covers sfa TLane=0..127, TCol=0..3
sfa_layout = T.TileLayout(T.S[(32, 4):(1 @ Axis.TLane, 1 @ Axis.TCol)])  # "# layoutproof: in code"
doc = """
# layoutproof: smem not_read : f16 = (_1):(_1)
"""
# The accumulator, from flashmla sparse_prefill_head128_small_topk_phase1.py:332 (KERN row 66).
# layoutproof: tmem o_acc : f32 = \
#   T.TileLayout(T.S[(64, 2, 2, 128):(1 @ Axis.TLane, 128 @ Axis.TCol, 64 @ Axis.TLane, 1 @ Axis.TCol)])
# layoutproof: expect o_acc injective
# layoutproof: smem q : bf16 = S[(64, BLK_N):(BLK_N, 1)] align 1024
# layoutproof: tma load q_load: q box (64, 64) swizzle 128B
# layoutproof: tcgen05 desc q swizzle 128B major K
