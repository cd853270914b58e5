# entry: pyptx high-perf A100 bf16 GEMM: A stage tile (128 x 32 bf16, 64-byte rows) swizzled with atom ^ (row & 3), cp.async fill and ldmatrix.x4 read
# project: pyptx
# source: patrick-toulme/pyptx examples/ampere/gemm_highperf_ampere.py:133 @ dc8b06d62893778a2d0ecb81eeca786f679fc9c2
# claim: "SMEM XOR swizzle (CUTLASS / MatmulTutorial v9 / v15 pattern) ... the formula MUST match on all paths or data lands in the wrong bank"; "MatmulTutorial v9 reports +13% from this"
# verdict: LP002@26, LP009@24
# confirmed: gpu H100 (sm_90a, Nsight Compute, layoutproof replay, 2026-11-21): line 26 LP002: 8 wavefronts measured, 8 predicted; the line 24 LP009 warning is the worst case of the default 16-byte base alignment (hw::kDefaultBaseAlignment): the source states no alignment for this buffer, and at a base 16 bytes past a 32-byte sector each 16-byte cp.async.cg splits its global sector over two shared sectors (2x the sectors; an H100 measured a 16-byte offset at 2x the sectors and 2.15x the time of an aligned fill: docs/hardware.md, cp.async); not replayed here
# The stage tile (BM, BK) = (128, 32) bf16 (line 51), 64-byte rows of four 16-byte atoms; line 133:
#   swizzled_atom = atom_idx ^ (row & 3); byte offset = row * 64 + swizzled_atom * 16 + sub_atom_bytes
# In element offsets 32*row + 8*((col/8) ^ (row & 3)) + col % 8: row bits [0,2) = offset bits [5,7) XOR the
# atom bits [3,5): CuTe Sw<2,3,2> over (128,32):(32,1) (checked against the formula at all 4096 elements).
# (CUTLASS's 64-byte-row swizzle is Sw<2,3,3>, row bits [1,3); see corpus/triton/ampere_A_f16_k32_*.lp.)
# cp.async.cg 16 B (lines 113-114, 163): thread tid writes row tid >> 2 (+ 32 per pass), atom tid & 3: one warp
# covers 8 rows x 4 atoms per pass, 4 passes.
# ldmatrix.x4 (A, no trans, line 190): lane t gives row (t & 15) of the warp's 16-row fragment, atom
# kb*2 + (t >> 4); 2 k-blocks x 4 m-fragments per warp.
# The finding: rows r and r + 4 get the same swizzled atom (row & 3 repeats every 4 rows) and rows 64 bytes
# apart pair up in one 128-byte bank line, so the 8 row addresses of one ldmatrix matrix (rows r..r+7) hit
# 4 bank groups twice: 2 wavefronts per matrix, 8 per .x4 where 4 are ideal. The cp.async writes (8 lanes =
# rows r, r+1 x 4 atoms per phase) stay conflict-free. The claim is only that the swizzle helps (+13%
# reported for a different kernel); a 2-way conflict remains.
# layoutproof: arch sm_80
# layoutproof: smem sA : bf16 = Sw<2,3,2> o _0 o (_128,_32):(_32,_1)
# layoutproof: expect sA injective
# layoutproof: access g2s: sA cp.async.cg.16 lanes (_4,_8,_4):(_8@1,_1@0,_32@0)
# layoutproof: expect g2s conflict-free
# layoutproof: access s2r: sA ldmatrix.x4 lanes (_16,_2,_2,_4):(_1@0,_8@1,_16@1,_16@0)
