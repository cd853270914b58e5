// Shared-memory stores whose executing lanes depend on data the kernel loads (a sorting network's
// compare-and-swap): the addresses are known, which lanes store is not. Their alignment and
// bounds hold for every lane; their conflicts are decided where no subset of lanes conflicts and
// unknown where some subset does (tests/ptx/test_data_dependent.cpp; PTX: generate.sh).
__global__ void __launch_bounds__(128) compare_swap(unsigned* out, const unsigned* in) {
  __shared__ unsigned s[512];
  const unsigned t = threadIdx.x;
  for (unsigned k = t; k < 512; k += 128) s[k] = in[k];
  __syncthreads();
  const unsigned a = s[t], b = s[t + 128];
  if (a > b) {
    s[t] = b;            // one word per lane, consecutive: no subset of lanes conflicts
    s[2 * t + 256] = a;  // lanes 16 apart on one bank: conflicts when both store
  }
  __syncthreads();
  // Lanes t and t + 16 (one bank) store for opposite outcomes of the comparison: with one value
  // for every lane only one of them stores; with the values each lane loads, both may.
  if ((s[t] > s[t + 128]) == ((t >> 4) & 1)) s[2 * t + 256] = t;
  __syncthreads();
  for (unsigned k = t; k < 512; k += 128) out[k] = s[k];
}
