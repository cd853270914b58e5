# entry: TVM TIRx layout docs, "Why swizzle": the (8, 64) float16 tile S[(8,64):(64@m,1@m)] without swizzle, read down its 8x16B columns
# project: TVM
# source: apache/tvm docs/tirx/layout.rst:287 @ 15f62fe0209c1d24723b083ff53d0c1ae206db93
# claim: the doc's own counter-example: "walking down a column ... lands on the same bank every time - a 32-way column conflict"; "Without the swizzle the same column is bank = j/2 for every row - a single bank, fully serialized"
# verdict: LP002@14
# confirmed: gpu H100 (sm_90a, Nsight Compute, layoutproof replay, 2026-11-21): line 14 LP002: 32 wavefronts measured, 32 predicted
# The doc's row-major tile, element (i, j) at m = 64i + j (line 287): one row is 128 bytes, a whole bank
# line, so the 8 rows of a 16-byte column all fall on the same 4 banks. Read the way the swizzled version
# is read (layout_doc_swizzle128_f16_8x64.py, the same doc's worked example): an ldmatrix.x4, lanes
# 8k..8k+7 giving rows 0..7 of column k. The doc's claim is the conflict, so the finding is expected:
# each matrix's 8 row addresses hit bank 4k..4k+3 in 8 distinct words, 8 wavefronts per matrix, 32 in
# all where 4 are ideal. (The doc's "32-way" counts 32 rows; an 8-row tile gives an 8-way conflict.)
# layoutproof: smem tile : f16 = S[(8,64):(64@m,1@m)]
# layoutproof: access col: tile ldmatrix.x4 lanes (_8,_4):(_1@0,_8@1)
