# entry: TVM TIRx docs, tcgen05 "Layout B": the (64, N) fp32 accumulator of an M=64-per-CTA cta_group=2 tcgen05.mma, its two column halves on TMEM lanes 0-63 and 64-127
# project: TVM
# source: apache/tvm docs/tirx/tile_primitives/copy_async/tcgen05_ldst.rst:185 @ 3b7d066da7d4f59fb1e8b6a3bedbce016696fa49
# claim: "Its logical (64, N) columns are split into two N/2 halves: the low half uses physical TMEM lanes 0-63, and the high half uses lanes 64-127. It therefore occupies all 128 lanes and N/2 TCol values."
# verdict: clean
# The doc states the placement in words (lines 185-189); written as a TileLayout with N = 128 it is
# element (r, 64h + c) -> TLane 64h + r, TCol c: S[(64, 2, 64):(1@TLane, 64@TLane, 1@TCol)] - the same
# form as tmem_p in TIRx-kernels' FlashMLA kernel (corpus/tirx-kernels/). The claim to check: one element
# per TMEM cell, and the 128 lanes x N/2 = 64 columns block completely filled, which is what lets the
# readback be "one physical .32x32b.x{N/2} instruction over all 128 lanes".
# layoutproof: tmem acc_b : f32 = S[(64, 2, 64):(1@TLane, 64@TLane, 1@TCol)]
# layoutproof: expect acc_b injective
# layoutproof: covers acc_b TLane=0..127, TCol=0..63
