// byte_swizzle_on_bf16.lp in CuTe's own spelling, in a CUDA comment: composition(Swizzle<3,4,3>{},
// L) is the element-offset form too. The warning is at the layout in the comment (column 34,
// its `composition`).
// EXIT: 1
#include <cute/tensor.hpp>
using namespace cute;
// layoutproof: smem sA : bf16 = composition(Swizzle<3,4,3>{}, Layout<Shape<_8,_64>, Stride<_64,_1>>{}) align 1024
using SmemLayoutA = decltype(composition(Swizzle<3,4,3>{}, Layout<Shape<_8,_64>, Stride<_64,_1>>{}));
// CHECK: cute_spelling.cu:[[@LINE-2]]:34: warning: Sw<3,4,3> swizzles element offsets of bf16 'sA'; the byte-address pattern of that name is Sw<3,3,3> on 16-bit elements [LP006]
// CHECK-NEXT: // layoutproof: smem sA : bf16 = composition(Swizzle<3,4,3>{}, Layout<Shape<_8,_64>, Stride<_64,_1>>{}) align 1024
// CHECK-NEXT: {{^}}                                 ^{{$}}
// CHECK-NEXT: note: if the swizzle is meant to act on byte addresses (TMA, GMMA), write `Sw<3,4,3> o smem_ptr[16b](unset) o ...`; if it is meant for elements, write Sw<3,3,3>
// CHECK-NEXT: 1 finding (1 warning), in 1 file; 1 obligation proven
