# entry: TVM TIRx layout docs, worked example "128B swizzle, float16, (8, 64) tile": Swizzle(3,3,3) over S[(8,64):(64,1)], read by 8x16B columns
# project: TVM
# source: apache/tvm docs/tirx/layout.rst:342 @ 15f62fe0209c1d24723b083ff53d0c1ae206db93
# claim: "Reading column j = 0 down the 8 rows gives addr = 72 i and banks 0, 4, ..., 28 - eight distinct banks, no conflict"; "a read of any 8x16B column is conflict-free"
# verdict: clean
# The doc's tile (line 287: S[(8,64):(64@m,1@m)], element (i, j) at m = 64i + j) composed with
# SwizzleLayout(per_element=3, swizzle_len=3, atom_len=3) (line 325: "Swizzle(M=3, B=3, S=3)" for float16
# and 128B), written in TIRx's ComposeLayout(swizzle, tile) form; it is CuTe's Sw<3,3,3> on element
# offsets: addr(i, j) = 64i + 8((j/8) xor i) + j mod 8 (the doc's formula).
# The claimed access, "an 8x16B column", is what one ldmatrix matrix reads: 8 row addresses, 16 bytes
# each. One ldmatrix.x4 reads four such columns: lanes 8k..8k+7 give rows 0..7 of the 16-byte column k.
# The same tile without the swizzle is layout_doc_unswizzled_f16_8x64.py.
# layoutproof: smem tile : f16 = ComposeLayout(SwizzleLayout(3,3,3), S[(8,64):(64,1)])
# layoutproof: access col: tile ldmatrix.x4 lanes (_8,_4):(_1@0,_8@1)
# layoutproof: expect col conflict-free
# All eight 16-byte columns, in two instructions.
# layoutproof: access cols: tile ldmatrix.x4 lanes (_8,_4,_2):(_1@0,_8@1,_32@1)
# layoutproof: expect cols conflict-free
