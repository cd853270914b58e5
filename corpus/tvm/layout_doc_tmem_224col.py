# entry: TVM TIRx layout docs, case study "Blackwell tensor memory": a (2,128,112) tile placed over 128 TMEM lanes x 224 columns
# project: TVM
# source: apache/tvm docs/tirx/layout.rst:204 @ 15f62fe0209c1d24723b083ff53d0c1ae206db93
# claim: TLane = l, TCol = 112a + c; "the extent-2 iter (112@TCol) and the extent-112 iter (1@TCol) together cover 224 columns (TCol in [0, 224))"
# verdict: clean
# The layout as written at line 204 (also the TMEM example of docs/notations.md). A pure placement: no
# replica, so it must be injective (one element per TMEM cell), and the doc claims it fills the whole
# 128-lane x 224-column block, the non-power-of-two width a block-scaled FP8 GEMM uses so that two
# accumulator stages plus the scale factors fit in 512 columns.
# layoutproof: tmem acc : f32 = S[(2,128,112):(112@TCol,1@TLane,1@TCol)]
# layoutproof: expect acc injective
# layoutproof: covers acc TLane=0..127, TCol=0..223
