// The ldmatrix_column.lp access annotated in CUDA: a statement in a /* */ block, continued on
// the next comment line with a backslash. The finding is at the statement's keyword (line of
// `access`, column 19 after " * layoutproof: "); the lane notes are on the continuation line,
// at the lane map (column 16).
// EXIT: 1
#include <cuda_fp16.h>
__global__ void column_read() {
  __shared__ __half sA[64 * 64];
  /*
   * layoutproof: smem sA : f16 = (_64,_64):(_64,_1) align 1024
   * layoutproof: access a1: sA ldmatrix.x4 \
   *     lanes (_16,_2,_4,_4):(_1@0,_8@1,_16@0,_16@1)
   */
  // CHECK: in_cuda_comment.cu:[[@LINE-3]]:19: error: ldmatrix.x4 on 'sA' has bank conflicts: 32 wavefronts where 4 are ideal [LP002]
  // CHECK-NEXT: {{^}}   * layoutproof: access a1: sA ldmatrix.x4 {{\\}}
  // CHECK-NEXT: {{^}}                  ^{{$}}
  // CHECK-NEXT: in_cuda_comment.cu:[[@LINE-5]]:16: note: issued instruction 0: lanes 0 and 1 access bank 0 at byte addresses 0 and 128 (coordinates (0,0) and (1,0))
  // CHECK-NEXT: {{^}}   *     lanes (_16,_2,_4,_4):(_1@0,_8@1,_16@0,_16@1)
  // CHECK-NEXT: {{^}}               ^{{$}}
  // CHECK-NEXT: note: bank 0 must deliver 8 distinct words in that phase: 0, 32, 64, 96, 128, 160, 192, 224
  // CHECK-NEXT: in_cuda_comment.cu:[[@LINE-11]]:35: note: 'sA' places its elements like this
  // CHECK-NEXT: {{^}}   * layoutproof: smem sA : f16 = (_64,_64):(_64,_1) align 1024
  // CHECK-NEXT: {{^}}                                  ^{{$}}
  // CHECK-NEXT: in_cuda_comment.cu:[[@LINE-12]]:16: note: lanes 0 and 1 address coordinates (0,0) and (1,0)
  // CHECK-NEXT: {{^}}   *     lanes (_16,_2,_4,_4):(_1@0,_8@1,_16@0,_16@1)
  // CHECK-NEXT: {{^}}               ^{{$}}
  // CHECK-NEXT: in_cuda_comment.cu:[[@LINE-16]]:19: note: ldmatrix.x4 serves them from bank 0 in 32 wavefronts
  // CHECK-NEXT: {{^}}   * layoutproof: access a1: sA ldmatrix.x4 {{\\}}
  // CHECK-NEXT: {{^}}                  ^{{$}}
  // CHECK-NEXT: 1 finding (1 error), in 1 file; 1 of 2 obligations proven
}
