# entry: TVM TIRx layout docs, block-scaled MMA scale-factor atom in TMEM: 32 lanes x sf_per_mma columns, replicated warpx4 over 128 lanes
# project: TVM
# source: apache/tvm docs/tirx/layout.rst:246 @ 15f62fe0209c1d24723b083ff53d0c1ae206db93
# claim: "the replica R[4:32@TLane] routing that 32-row group across the four warps of a warpgroup (stride 32 covers lanes 0-127)"
# verdict: clean
# The atom as written at line 246, with sf_per_mma as a parameter (the doc leaves it open; every value
# from 1 to 16 columns is checked). tcgen05.ld 32x32b lets warp w of the warpgroup read only TMEM lanes
# 32w..32w+31, so each of the four 32-lane sub-partitions needs its own copy: the coverage target is
# every lane 0..127 of every scale-factor column. Replicas of one scale factor may share nothing with
# another scale factor's copies (injective).
# layoutproof: param SF = 1..16
# layoutproof: tmem sfa = S[(32, SF):(1@TLane, 1@TCol)] + R[4:32@TLane]
# layoutproof: expect sfa injective
# layoutproof: covers sfa TLane=0..127, TCol=0..0
