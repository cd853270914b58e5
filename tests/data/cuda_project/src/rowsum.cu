// Two instantiations of the library's row_sum, launched with one warp each.
#include <kernels/row_sum.cuh>

void run_row_sums(float* out, const float* in) {
  row_sum<32><<<1, 32>>>(out, in);
  row_sum<64><<<1, 32>>>(out, in);
}
