// docs/rules/LP000.md: a near-miss marker in a CUDA file is an error, because a silently ignored
// annotation would silently drop a check. The caret is at the marker (column 4, after "// ").
// EXIT: 1
__global__ void k() {
// LayoutProof: smem sA : f16 = Sw<3,3,3> o _0 o (_8,_64):(_64,_1) align 128
// CHECK: near_miss_marker.cu:[[@LINE-1]]:4: error: malformed annotation marker: write 'layoutproof:' in lowercase, followed by a colon [LP000]
// CHECK-NEXT: // LayoutProof: smem sA : f16 = Sw<3,3,3> o _0 o (_8,_64):(_64,_1) align 128
// CHECK-NEXT: {{^}}   ^{{$}}
// CHECK-NEXT: 1 finding (1 error), in 1 file; 0 obligations proven
}
