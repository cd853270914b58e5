# entry: TVM TIRx layout docs, case study "NVIDIA tensor-core tile": an (8,16) register tile over 2 warps, replicated to 2 more, offset 5@warpid
# project: TVM
# source: apache/tvm docs/tirx/layout.rst:122 @ 15f62fe0209c1d24723b083ff53d0c1ae206db93
# claim: laneid = 4i + (j/2 mod 4), warpid = j/8 + 5 + 4r (r in {0,1}), m = j mod 2: the tile sits on warps {5,6}, its replica on {9,10}
# verdict: clean
# The layout as the doc writes it (line 122); the reg slot is the default memory axis m. (The same case
# study is also the register-tile example of docs/notations.md.) Each element must own one register slot of one
# lane in each of its two warps (injective up to its own replicas), and together the shard and the offset
# must give every lane of warps 5 and 6 a value (the doc's element table: (0,0) -> lane 0, warps {5,9};
# (7,15) -> lane 31, warps {6,10}).
# layoutproof: regs tile = S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid
# layoutproof: expect tile injective
# layoutproof: covers tile laneid=0..31, warpid=5..6
# The replica half: every lane of warps 9 and 10 holds a copy too.
# layoutproof: covers tile laneid=0..31, warpid=9..10
