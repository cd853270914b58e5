# missing_replicas.lp in a TIRx (Python) kernel: the annotations are `# layoutproof:` comments,
# and the locations are columns of the comment lines (the statement's keyword at column 20, the
# layout at column 37).
# EXIT: 1
def kernel():
    # layoutproof: tmem sfa : f32 = S[(32,4):(1@TLane,1@TCol)] + R[2:32@TLane]
    # layoutproof: covers sfa TLane=0..127, TCol=0..3
    s = "# layoutproof: covers sfa TLane=0..255 (a string, not an annotation)"
    pass
# CHECK: tmem_scale_factors.py:[[@LINE-3]]:20: error: 'sfa' leaves TLane=64, TCol=0 without a copy [LP004]
# CHECK-NEXT: {{^}}    # layoutproof: covers sfa TLane=0..127, TCol=0..3
# CHECK-NEXT: {{^}}                   ^{{$}}
# CHECK-NEXT: tmem_scale_factors.py:[[@LINE-7]]:37: note: no element of 'sfa' and no replica reaches it
# CHECK-NEXT: {{^}}    # layoutproof: tmem sfa : f32 = S[(32,4):(1@TLane,1@TCol)] + R[2:32@TLane]
# CHECK-NEXT: {{^}}                                    ^{{$}}
# CHECK-NEXT: tmem_scale_factors.py:[[@LINE-10]]:37: note: the layout and its replicas
# CHECK-NEXT: {{^}}    # layoutproof: tmem sfa : f32 = S[(32,4):(1@TLane,1@TCol)] + R[2:32@TLane]
# CHECK-NEXT: {{^}}                                    ^{{$}}
# CHECK-NEXT: tmem_scale_factors.py:[[@LINE-12]]:20: note: the target that must be covered
# CHECK-NEXT: {{^}}    # layoutproof: covers sfa TLane=0..127, TCol=0..3
# CHECK-NEXT: {{^}}                   ^{{$}}
# CHECK-NEXT: 1 finding (1 error), in 1 file; 1 of 2 obligations proven
