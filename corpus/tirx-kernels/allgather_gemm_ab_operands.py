# entry: TIRx-kernels AllGather + FP16 GEMM (SM100, 2-CTA): A and B pipeline stages, 128B-swizzled, TMA-loaded, tcgen05.mma operands
# project: TIRx-kernels
# source: mlc-ai/TIRx-kernels tirx_kernels/basic/allgather_gemm.py:578 @ 92240d63101f1636a0975ed1b89efd00dcb6c7af
# claim: the kernel's own operand layouts for TMA + tcgen05.mma cta_group::2
# verdict: clean
# the A layout, with B_layout right after it:
#   A_layout = T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(PIPELINE_DEPTH, NUM_CONSUMER, BLK_M, BLK_K) :
#                              (NUM_CONSUMER * BLK_M * BLK_K, BLK_M * BLK_K, BLK_K, 1)]))
#   B_layout = T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(PIPELINE_DEPTH, BLK_N, BLK_K) : (BLK_N * BLK_K, BLK_K, 1)]))
# with PIPELINE_DEPTH = 4, NUM_CONSUMER = 2, BLK_M = BLK_N = 128, BLK_K = 64, SWIZZLE = 3, DTYPE float16
# (constants as in the stored version @ 051229126cb37349b7d79b3d47d4bc03ab1fa1f3, which also shows the
# rest): rows of BLK_K = 64 fp16 are exactly 128 bytes, so Sw<3,3,3> on element offsets is the 128B
# pattern. The tensor maps are cuTensorMapEncodeTiled(..., box (BLK_K, BLK_M) resp. (BLK_K, BLK_N),
# swizzle SWIZZLE = 3 = 128B); A_smem starts 1024 bytes into the 1024-aligned pool (it is allocated after
# padding the header to 1024), so the stages keep the 1024-byte swizzle phase. tcgen05.mma
# kind::f16 reads both K-major (trans_a = trans_b = False) through 128B-swizzled descriptors.
# layoutproof: arch sm_100
# layoutproof: smem A_smem : f16 = T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(4, 2, 128, 64):(16384, 8192, 64, 1)])) align 1024
# layoutproof: expect A_smem injective
# layoutproof: tma load a_load: A_smem box (64, 128) swizzle 128B
# layoutproof: tcgen05 desc A_smem swizzle 128B major K
# layoutproof: smem B_smem : f16 = T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(4, 128, 64):(8192, 64, 1)])) align 1024
# layoutproof: expect B_smem injective
# layoutproof: tma load b_load: B_smem box (64, 128) swizzle 128B
# layoutproof: tcgen05 desc B_smem swizzle 128B major K
