# entry: TIRx-kernels FlashMLA sparse prefill (head 128, phase 1): O accumulator (64 x 512 fp32) folded onto 128 TMEM lanes x 256 columns
# project: TIRx-kernels
# source: mlc-ai/TIRx-kernels tirx_kernels/flashmla/sparse_prefill_head128_small_topk_phase1.py:332 @ 92240d63101f1636a0975ed1b89efd00dcb6c7af
# claim: the kernel's own TMEM placement of the tcgen05.mma D operand, read back by tcgen05.ld
# verdict: clean
# Stored version @ 009c2723ee16b9097ba7b3f41304e68fdc268e3a:
#   o_tmem = T.decl_buffer((64, 512), scope="tmem", allocated_addr=0, layout=T.TileLayout(T.S[(64, 2, 2, 128):
#            (1 @ Axis.TLane, 128 @ Axis.TCol, 64 @ Axis.TLane, 1 @ Axis.TCol)]))
# Element (i, 256a + 128b + c) goes to TLane i + 64b, TCol 128a + c: the 512 output columns of 64 rows
# are folded into two 64-lane halves, so O fills exactly the 128 x 256 block at column 0 (the kernel
# allocates 512 columns and puts the bf16 Q fold at column 256 and P at 384). Two elements must never
# share a cell, and every lane of all four 32-lane sub-partitions must hold O for tcgen05.ld 32x32b
# (warp w reads lanes 32w..32w+31).
# layoutproof: tmem o_tmem : f32 = T.TileLayout(T.S[(64, 2, 2, 128):(1 @ Axis.TLane, 128 @ Axis.TCol, 64 @ Axis.TLane, 1 @ Axis.TCol)])
# layoutproof: expect o_tmem injective
# layoutproof: covers o_tmem TLane=0..127, TCol=0..255
