# entry: TIRx-kernels AllGather + FP16 GEMM (SM100): D epilogue staging tile (2 consumers x 128 x 64 fp16), 128B-swizzled, TMA-stored
# project: TIRx-kernels
# source: mlc-ai/TIRx-kernels tirx_kernels/basic/allgather_gemm.py:578 @ 92240d63101f1636a0975ed1b89efd00dcb6c7af
# claim: the kernel's own epilogue layout for the TMA store of the output
# verdict: clean
# D_layout is defined with A_layout (line 578) and B_layout in the same block:
#   D_layout = T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(NUM_CONSUMER, BLK_M, EPI_TILE) : (BLK_M * EPI_TILE, EPI_TILE, 1)]))
# NUM_CONSUMER = 2, BLK_M = 128, EPI_TILE = 64 (stored version @ 051229126cb37349b7d79b3d47d4bc03ab1fa1f3):
# 64 fp16 = 128-byte rows, Sw<3,3,3> = the 128B pattern. The output map is
# encode(out_tensor_map, out, float16, LOCAL_N, M, ..., box (EPI_TILE, BLK_M), swizzle 3 = 128B). D_smem
# follows A_smem and B_smem in the 1024-aligned pool at a multiple of 1024 bytes.
# (The per-thread shared stores of the tcgen05.ld 32x32b.x64 results are not annotated: the stored
# version does not show their vector width.)
# layoutproof: arch sm_100
# layoutproof: smem D_smem : f16 = T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(2, 128, 64):(8192, 64, 1)])) align 1024
# layoutproof: expect D_smem injective
# layoutproof: tma store d_store: D_smem box (64, 128) swizzle 128B
