# entry: TIRx-kernels FlashMLA sparse prefill (head 128, small top-k, phase 1): Q tile (64 x 512 bf16), 128B-swizzled, TMA-loaded, tcgen05 A operand
# project: TIRx-kernels
# source: mlc-ai/TIRx-kernels tirx_kernels/flashmla/sparse_prefill_head128_small_topk_phase1.py:303 @ 92240d63101f1636a0975ed1b89efd00dcb6c7af
# claim: the kernel's own layout for TMA + tcgen05.mma
# verdict: clean
# The stored
# version @ 009c2723ee16b9097ba7b3f41304e68fdc268e3a declares the same buffer:
#   q_smem = T.decl_buffer((64, 512), "bfloat16", ..., align=1024,
#            layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(64, 8, 64):(64, 4096, 1)])))
# ComposeLayout(per_element=3, swizzle_len=3, atom_len=3, tile) is CuTe's Sw<3,3,3> on element offsets,
# the 128B pattern on bf16: eight 64 x 64 atoms (8 KiB each), one per 64-column chunk of the head dim.
# Its TMA (q_tma_tensormap in the stored version): cuTensorMapEncodeTiled(bfloat16, rank 5, dims
# (64, 128, 2, 4, s_q), box (64, 64, 2, 4, 1), swizzle 3 = CU_TENSOR_MAP_SWIZZLE_128B): inner box
# 64 bf16 = 128 bytes. Q is the K-major A operand of S = Q K^T (tcgen05.mma, 128B-swizzled descriptor).
# layoutproof: arch sm_100
# layoutproof: smem q_smem : bf16 = T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(64, 8, 64):(64, 4096, 1)])) align 1024
# layoutproof: expect q_smem injective
# layoutproof: tma load q_load: q_smem box (64, 64, 2, 4, 1) swizzle 128B
# layoutproof: tcgen05 desc q_smem swizzle 128B major K
