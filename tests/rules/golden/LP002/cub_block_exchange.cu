// LP002 on CUB's BlockExchange (the CUDA toolkit's own headers), compiled by `check --cuda`: the
// double instantiation's two st.shared.v2.f64 of BlockedToStriped conflict 2-way; they are one
// finding at the user's line that names the kernel and lists both PTX lines, and the four frames
// inlined in CUB's headers (not read: outside the project) are one note naming the innermost.
// The int instantiation is clean.
// RUN: layoutproof check --cuda %s --no-cache --no-progress
// EXIT: 1
#include <cub/block/block_exchange.cuh>

template <typename T, int kThreads, int kItems>
__global__ void exchange(T* data) {
  using Exchange = cub::BlockExchange<T, kThreads, kItems>;
  __shared__ typename Exchange::TempStorage temp;
  T items[kItems];
  for (int i = 0; i < kItems; ++i) items[i] = data[threadIdx.x * kItems + i];
  Exchange(temp).BlockedToStriped(items);
  // CHECK: {{^.*}}cub_block_exchange.cu:[[@LINE-1]]:3: error: st.shared.v2.f64 in exchange<double, 128, 4> (2 PTX instructions) has bank conflicts: 8 wavefronts where 4 are ideal [LP002]
  // CHECK-NEXT: {{^}}  Exchange(temp).BlockedToStriped(items);
  // CHECK-NEXT: {{^}}  ^
  // CHECK-NEXT: note: the same finding on 2 PTX instructions of <PTX of cub_block_exchange.cu for sm_90>: exchange<double, 128, 4>: PTX lines {{[0-9]+}}, {{[0-9]+}}; the notes below are those of PTX line {{[0-9]+}} in exchange<double, 128, 4> (--no-fold shows each)
  // CHECK-NEXT: note: lanes 0 and 4 access bank 0 at byte addresses 0 and 128 (as st.shared.v4.b32)
  // CHECK-NEXT: note: bank 0 must deliver 2 distinct words in that phase: 0, 32
  // CHECK-NEXT: note: with the uniform values warp = 0, exchange<double, 128, 4>(double*)::temp = 1024
  // CHECK-NEXT: note: inlined through 4 frames of library code, the innermost: inlined in void cub::{{.*}}::uninitialized_copy_single<double, double const&, 0>(double*, double const&) at {{.*}}/uninitialized_copy.cuh:{{[0-9]+}}:{{[0-9]+}} (--frames all shows each)
  // CHECK-NEXT: {{^}}<PTX of cub_block_exchange.cu for sm_90>:{{[0-9]+}}:2: note: the PTX instruction, in kernel void exchange<double, 128, 4>(double*)
  for (int i = 0; i < kItems; ++i) data[threadIdx.x + i * kThreads] = items[i];
}

void run(int* a, double* b) {
  exchange<int, 128, 4><<<1, 128>>>(a);
  exchange<double, 128, 4><<<1, 128>>>(b);
}
// CHECK-NOT: exchange<int
// CHECK: {{^}}1 finding (1 error), in 1 file; 34 of 36 obligations proven
