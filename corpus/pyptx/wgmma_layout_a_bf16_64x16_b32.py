# entry: pyptx wgmma_layout.layout_for_a(dtype=bf16, m=64, k=16): K-major A tile with 32-byte rows, the B32 canonical layout (TMA 32B + wgmma descriptor layout type 3)
# project: pyptx
# source: patrick-toulme/pyptx pyptx/wgmma_layout.py:334 @ 9d0794471d7bae0974f19ae1508f18eba14af7ab
# claim: docstring: la.layout_type -> LayoutType.B32, leading_byte_offset 16, stride_byte_offset 256, tma_swizzle "32B", smem_swizzle "32B"; "The swizzle TMA uses to WRITE ... and the swizzle wgmma uses to READ it back must be the SAME"
# verdict: clean
# # _build_k_major (line 167): row_bytes = k * elem_bytes = 32 -> LayoutType.B32 = "Swizzle<1,4,3>, 2 uint128_t
# (32-byte) rows" (line 51), LBO = 16 (one uint128 along K), SBO = 8 * row_bytes = 256 (line 233): the dense
# 64 x 16 bf16 tile, 8-row core groups 256 bytes apart. The byte swizzle Sw<1,4,3> is Sw<1,3,3> on 16-bit
# element offsets. smem.alloc(swizzle="32B") "produces a shared memory region aligned for this layout"
# (lines 85-86): 256 bytes, the 32B pattern's period.
# TMA writes it with CU_TENSOR_MAP_SWIZZLE_32B (box: 16 elements = 32 bytes x 64 rows); wgmma reads it
# K-major with layout type B32 (3).
# layoutproof: arch sm_90
# layoutproof: smem sA : bf16 = Sw<1,3,3> o _0 o (_64,_16):(_16,_1) align 256
# layoutproof: expect sA injective
# layoutproof: tma load a_tma: sA box (16, 64) swizzle 32B
# layoutproof: wgmma desc sA swizzle 32B major K
