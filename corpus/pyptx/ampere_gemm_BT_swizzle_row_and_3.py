# entry: pyptx high-perf A100 bf16 GEMM: B_T stage tile (128 N x 32 K bf16) with the same atom ^ (row & 3) swizzle, cp.async fill and non-transposed ldmatrix.x4 read
# project: pyptx
# source: patrick-toulme/pyptx examples/ampere/gemm_highperf_ampere.py:209 @ dc8b06d62893778a2d0ecb81eeca786f679fc9c2
# claim: "SMEM XOR swizzle (CUTLASS / MatmulTutorial v9 / v15 pattern) ... the formula MUST match on all paths or data lands in the wrong bank" (line 133 swizzle, applied to both A and B_T)
# verdict: LP002@19, LP009@17
# confirmed: gpu H100 (sm_90a, Nsight Compute, layoutproof replay, 2026-11-21): line 19 LP002: 8 wavefronts measured, 8 predicted; the line 17 LP009 warning is the worst case of the default 16-byte base alignment (hw::kDefaultBaseAlignment): the source states no alignment for this buffer, and at a base 16 bytes past a 32-byte sector each 16-byte cp.async.cg splits its global sector over two shared sectors (2x the sectors; an H100 measured a 16-byte offset at 2x the sectors and 2.15x the time of an aligned fill: docs/hardware.md, cp.async); not replayed here
# B_T (N, K) row-major is stored like A (same cp.async offsets, line 163-164) with the same swizzle
# (line 133): CuTe Sw<2,3,2> over (128,32):(32,1) (see ampere_gemm_A_swizzle_row_and_3.py).
# ldmatrix.x4 for B (lines 209-210): N-row = ((t >> 4) << 3) + (t & 7), K-atom = kb*2 + ((t >> 3) & 1):
# lanes 0-7 rows 0-7 atom 0, 8-15 rows 0-7 atom 1, 16-23 rows 8-15 atom 0, 24-31 rows 8-15 atom 1;
# 2 k-blocks x 4 n-pairs per warp.
# Same finding as for A: each matrix reads 8 consecutive rows of one atom column, and rows r and r + 4
# collide (2-way), 8 wavefronts per .x4 where 4 are ideal.
# layoutproof: arch sm_80
# layoutproof: smem sBT : bf16 = Sw<2,3,2> o _0 o (_128,_32):(_32,_1)
# layoutproof: expect sBT injective
# layoutproof: access g2s: sBT cp.async.cg.16 lanes (_4,_8,_4):(_8@1,_1@0,_32@0)
# layoutproof: expect g2s conflict-free
# layoutproof: access s2r: sBT ldmatrix.x4 lanes (_8,_2,_2,_2,_4):(_1@0,_8@1,_8@0,_16@1,_16@0)
