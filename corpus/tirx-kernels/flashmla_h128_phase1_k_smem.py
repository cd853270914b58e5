# entry: TIRx-kernels FlashMLA sparse prefill (head 128, small top-k, phase 1): gathered KV tile (256 x 256 bf16), 128B-swizzled, row-gathered by TMA, tcgen05 operand
# project: TIRx-kernels
# source: mlc-ai/TIRx-kernels tirx_kernels/flashmla/sparse_prefill_head128_small_topk_phase1.py:304 @ 92240d63101f1636a0975ed1b89efd00dcb6c7af
# claim: the kernel's own layout for TMA + tcgen05.mma
# verdict: clean
# The stored version @ 009c2723ee16b9097ba7b3f41304e68fdc268e3a:
#   k_smem = T.decl_buffer((256, 256), "bfloat16", ..., elem_offset=32768, align=1024,
#            layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(256, 4, 64):(64, 16384, 1)])))
# Sw<3,3,3> on bf16 element offsets (128B): four 256 x 64 column chunks of 32 KiB, each a stack of
# 8 x 128-byte swizzle atoms. elem_offset 32768 bf16 = 64 KiB into the pool keeps the 1024-byte phase.
# The sparse top-k KV rows are gathered one token at a time: kv_tma_tensormap is a rank-2 map over
# (512, s_kv) with box (64, 1) and swizzle 3 (128B): one 128-byte row segment per copy. The tile is
# read by tcgen05.mma through a 128B-swizzled shared-memory descriptor.
# layoutproof: arch sm_100
# layoutproof: smem k_smem : bf16 = T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(256, 4, 64):(64, 16384, 1)])) align 1024
# layoutproof: expect k_smem injective
# layoutproof: tma load kv_row: k_smem box (64, 1) swizzle 128B
# layoutproof: tcgen05 desc k_smem swizzle 128B
