# entry: TIRx-kernels FlashMLA sparse prefill (head 128, phase 1): P/S tile (64 x 64 bf16) in the unswizzled 8x16B core-matrix form, tcgen05 operand
# project: TIRx-kernels
# source: mlc-ai/TIRx-kernels tirx_kernels/flashmla/sparse_prefill_head128_small_topk_phase1.py:305 @ 92240d63101f1636a0975ed1b89efd00dcb6c7af
# claim: the kernel's own layout for a no-swizzle tcgen05 operand
# verdict: clean
# Stored version @ 009c2723ee16b9097ba7b3f41304e68fdc268e3a:
#   s_smem_gemm = T.decl_buffer((64, 64), "bfloat16", ..., elem_offset=98304, align=1024,
#                 layout=T.TileLayout(T.S[(64, 8, 8):(8, 512, 1)]))
# Element (i, j) sits at 8i + 512(j/8) + j%8: each row's 8-column chunk is one 16-byte core-matrix row,
# 8 rows form a 128-byte core matrix, and the 8 column chunks are 1 KiB apart. This is the SWIZZLE_NONE
# ("interleave") canonical form of the UMMA descriptor (no swizzle stage in the layout).
# layoutproof: arch sm_100
# layoutproof: smem s_smem_gemm : bf16 = T.TileLayout(T.S[(64, 8, 8):(8, 512, 1)]) align 1024
# layoutproof: expect s_smem_gemm injective
# layoutproof: tcgen05 desc s_smem_gemm swizzle none
