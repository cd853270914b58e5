# entry: TVM TIRx docs, copy_async tmem<->local demo: a 128 x 8 fp16 tile in TMEM (one row per lane) and its warpgroup register view (one row per thread), moved by tcgen05.st/ld .32x32b.x4
# project: TVM
# source: apache/tvm docs/tirx/tile_primitives/copy_async/tcgen05_ldst.rst:98 @ 3b7d066da7d4f59fb1e8b6a3bedbce016696fa49
# claim: "Verified end-to-end on sm_100a (the round trip reproduces the input exactly)"; the .32x32b path "covers M=128 in a single issue"
# verdict: clean
# The demo's two layouts (lines 84 and 97-98), WIDTH = 8:
#   local_view = TileLayout(S[(128, WIDTH) : (1 @ axis_tid_in_wg, 1)])      # thread t of the warpgroup holds row t
#   tmem layout = TileLayout(S[(128, WIDTH) : (1 @ TLane, 1 @ TCol)])       # row r on TMEM lane r
# tcgen05.ld/st 32x32b: thread t of the warpgroup moves TMEM lane t, so the two layouts agree exactly when
# every thread 0..127 and every TMEM lane 0..127 carries one row, each element once. (TCol counts the
# layout's own element columns here; the hardware packs the 8 fp16 into 4 32-bit columns, num = 4.)
# layoutproof: tmem tmem_tile : f16 = TileLayout(S[(128, 8) : (1 @ TLane, 1 @ TCol)])
# layoutproof: expect tmem_tile injective
# layoutproof: covers tmem_tile TLane=0..127, TCol=0..7
# layoutproof: regs local_view : f16 = TileLayout(S[(128, 8) : (1 @ tid_in_wg, 1)])
# layoutproof: expect local_view injective
# layoutproof: covers local_view tid_in_wg=0..127, m=0..7
