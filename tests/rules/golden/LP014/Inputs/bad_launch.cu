// layoutproof: launch blok(64)
extern "C" __global__ void k() {
  __shared__ unsigned s[64];
  s[threadIdx.x] = threadIdx.x;
}
