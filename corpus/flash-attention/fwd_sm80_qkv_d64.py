# entry: FlashAttention-2 forward, Q/K/V smem tile for head dim 64 (fp16)
# project: FlashAttention
# source: Dao-AILab/flash-attention csrc/flash_attn/src/kernel_traits.h:79 @ 0251105a2fb19d2957484b7f023cd8c115286ced
# claim: conflict-free cp.async fill and LDSM read
# verdict: clean
# Dao-AILab/flash-attention csrc/flash_attn/src/kernel_traits.h:79
# (@ 0251105a2fb19d2957484b7f023cd8c115286ced), fp16 Q/K/V with head dim d = 64:
#   composition(Swizzle<kSwizzle,3,3>{}, Layout<Shape<_8,Int<kBlockKSmem>>, Stride<Int<kBlockKSmem>,_1>>{})
#   kBlockKSmem = d % 64 == 0 ? 64 : 32 -> 64; kSwizzle = kBlockKSmem == 32 ? 2 : 3 -> 3.
# G2S SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, threads (kNThreads/8, 8), 8 halves each;
# S2R SM75_U32x4_LDSM_N. Source comment: "This has to be kBlockKSmem, using kHeadDim gives wrong
# results for d=128". Kept as a .py file to exercise the Python comment form.
# layoutproof: arch sm_80
# layoutproof: param kBlockM = 64..128 % 64
# layoutproof: smem sQ_atom : f16 = \
#     composition(Swizzle<3,3,3>{}, Layout<Shape<_8,Int<64>>, Stride<Int<64>,_1>>{})
# layoutproof: smem sQ : f16 = Sw<3,3,3> o _0 o ((_8,_8),_64):((_64,_512),_1) align 128
# layoutproof: expect sQ injective
# layoutproof: access g2s: sQ cp.async.cg.16 lanes (_8,_4,_2):(_8@1,_1@0,_32@0)
# layoutproof: expect g2s conflict-free
# layoutproof: access s2r: sQ ldmatrix.x4 lanes (_16,_2,_4):(_1@0,_8@1,_16@1)
# layoutproof: expect s2r conflict-free
# layoutproof: global gQ : f16 = (kBlockM,_64):(_64,_1) align 16
