# entry: TIRx-kernels FlashMLA sparse prefill (head 128, phase 1): 64 x 64 score fragment in registers of one warpgroup (tcgen05.ld image)
# project: TIRx-kernels
# source: mlc-ai/TIRx-kernels tirx_kernels/flashmla/sparse_prefill_head128_small_topk_phase1.py:902 @ 92240d63101f1636a0975ed1b89efd00dcb6c7af
# claim: the kernel's own register layout of the S fragment
# verdict: clean
# #   T.TileLayout(T.S[(2, 32, 2, 32):(1 @ Axis.wid_in_wg, 1 @ Axis.laneid, 2 @ Axis.wid_in_wg, 1)])
# Element (32a + l, 32b + c) is held by warp a + 2b of the warpgroup, lane l, register c: each warp holds a
# 32 x 32 quarter, one row per lane, 32 values a lane - the shape tcgen05.ld 32x32b.x32 returns, where
# thread t reads TMEM lane t of its warp's 32-lane sub-partition. Every register of every lane of the
# four warps must hold exactly one element.
# layoutproof: regs s_frag : bf16 = T.TileLayout(T.S[(2, 32, 2, 32):(1 @ Axis.wid_in_wg, 1 @ Axis.laneid, 2 @ Axis.wid_in_wg, 1)])
# layoutproof: expect s_frag injective
# layoutproof: covers s_frag laneid=0..31, wid_in_wg=0..3, m=0..31
