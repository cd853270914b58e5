// The same CUB BlockExchange kernel as cub_block_exchange.cu, shown with every PTX instruction's
// own finding (--no-fold) and every inlined frame (--frames all): two findings, each naming its
// PTX line and kernel, each with the four frames inlined in CUB's headers.
// RUN: layoutproof check --cuda %s --no-cache --no-progress --no-fold --frames all
// EXIT: 1
#include <cub/block/block_exchange.cuh>

template <typename T, int kThreads, int kItems>
__global__ void exchange(T* data) {
  using Exchange = cub::BlockExchange<T, kThreads, kItems>;
  __shared__ typename Exchange::TempStorage temp;
  T items[kItems];
  for (int i = 0; i < kItems; ++i) items[i] = data[threadIdx.x * kItems + i];
  Exchange(temp).BlockedToStriped(items);
  // CHECK: {{^.*}}cub_block_exchange_all.cu:[[@LINE-1]]:3: error: st.shared.v2.f64 (PTX line {{[0-9]+}}) in exchange<double, 128, 4> has bank conflicts: 8 wavefronts where 4 are ideal [LP002]
  // CHECK-NOT: the same finding on
  // CHECK: note: inlined in cub::{{.*}}BlockExchange<double, 128, 4, false, 1, 1>::BlockedToStriped(double (&) [4]) at {{.*}}/block_exchange.cuh:{{[0-9]+}}:{{[0-9]+}}
  // CHECK-NEXT: note: inlined in void cub::{{.*}}BlockExchange<double, 128, 4, false, 1, 1>::BlockedToStriped<double>(double const (&) [4], double (&) [4]) at {{.*}}
  // CHECK-NEXT: note: inlined in void cub::{{.*}}
  // CHECK-NEXT: note: inlined in void cub::{{.*}}::uninitialized_copy_single<double, double const&, 0>(double*, double const&) at {{.*}}
  // CHECK: {{^.*}}cub_block_exchange_all.cu:[[@LINE-7]]:3: error: st.shared.v2.f64 (PTX line {{[0-9]+}}) in exchange<double, 128, 4> has bank conflicts: 8 wavefronts where 4 are ideal [LP002]
  for (int i = 0; i < kItems; ++i) data[threadIdx.x + i * kThreads] = items[i];
}

void run(int* a, double* b) {
  exchange<int, 128, 4><<<1, 128>>>(a);
  exchange<double, 128, 4><<<1, 128>>>(b);
}
// CHECK: {{^}}2 findings (2 errors), in 1 file; 34 of 36 obligations proven
