# entry: pyptx wgmma_layout._build_mn_major for Tile.wgmma_b(16, 128, bf16): N-major B 16 x 128 bf16 split into two 128-byte B128 stripes (two TMA loads + one wgmma descriptor)
# project: pyptx
# source: patrick-toulme/pyptx pyptx/wgmma_layout.py:307 @ 9d0794471d7bae0974f19ae1508f18eba14af7ab
# claim: "Two or more TMA loads produce a STRIPE-MAJOR SMEM layout where each 128-byte stripe is contiguous across all K rows"; LBO = K * 128 = 2048, SBO = 8 * 128 = 1024; tma_swizzle "128B"
# verdict: clean
# (Tile.wgmma_b(16, 128, bf16) as given there; stored version @ 9d0794471d7bae0974f19ae1508f18eba14af7ab).
# row_bytes = N * 2 = 256 > 128 -> LayoutType.B128 (Swizzle<3,4,3>), multi-stripe (lines 296-309): stripe
# s = n / 64 holds all 16 K rows of its 64 columns (128 bytes each), stripes 2048 bytes apart. Element
# (k, n) sits at 1024 * (n / 64) + 64 k + n % 64, swizzled by Sw<3,3,3> (the 128B byte pattern on 16-bit
# elements): CuTe (16,(64,2)):(64,(1,1024)). This matches CUTLASS's MN-major B128 canonical form
# ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO)) with LBO = 2048 bytes between stripes and SBO = 1024 between
# 8-row K groups. Each stripe is one TMA box of 64 elements (128 bytes) x 16 rows with the 128B swizzle;
# smem.alloc(swizzle="128B") aligns the region for the layout (lines 85-86): 1024 bytes.
# layoutproof: arch sm_90
# layoutproof: smem sB : bf16 = Sw<3,3,3> o _0 o (_16,(_64,_2)):(_64,(_1,_1024)) align 1024
# layoutproof: expect sB injective
# layoutproof: tma load b_stripe: sB box (64, 16) swizzle 128B
# layoutproof: wgmma desc sB swizzle 128B major MN
