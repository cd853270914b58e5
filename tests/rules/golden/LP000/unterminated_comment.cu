// An unterminated /* comment changes what the rest of the file means: a warning (which fails the
// gate under the default --fail-on warning) at the comment's start. The annotation before it is
// read and checked.
// EXIT: 1
// layoutproof: smem sA : f16 = (_8,_64):(_64,_1) align 128
__global__ void k() {}
/* the rest of the file
// CHECK: unterminated_comment.cu:[[@LINE-1]]:1: warning: unterminated '/*' comment: it runs to the end of the file [LP000]
// CHECK-NEXT: /* the rest of the file
// CHECK-NEXT: {{^}}^{{$}}
// CHECK-NEXT: 1 finding (1 warning), in 1 file; 1 obligation proven
