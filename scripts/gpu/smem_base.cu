// Where a kernel's `extern __shared__` array starts in the shared window: the base alignment a
// dynamic shared-memory buffer really has (the language promises only its element type's).
// Prints the shared address (cvta.to.shared) of the dynamic array with no static __shared__ data,
// and with 4 bytes and with 48 bytes of static data before it.
// usage: nvcc -arch=sm_90a -o smem_base smem_base.cu && ./smem_base
#include <cstdio>

__global__ void dynamic_only(unsigned* out) {
  extern __shared__ int4 sh[];
  out[0] = static_cast<unsigned>(__cvta_generic_to_shared(sh));
}

__global__ void after_static_4(unsigned* out) {
  __shared__ int flag;
  extern __shared__ int4 sh[];
  flag = 1;
  out[0] = static_cast<unsigned>(__cvta_generic_to_shared(sh));
  out[1] = static_cast<unsigned>(__cvta_generic_to_shared(&flag)) + flag - 1;
}

__global__ void after_static_48(unsigned* out) {
  __shared__ float pad[12];
  extern __shared__ int4 sh[];
  pad[threadIdx.x % 12] = 0.f;
  out[0] = static_cast<unsigned>(__cvta_generic_to_shared(sh));
  out[1] = static_cast<unsigned>(__cvta_generic_to_shared(pad));
}

int main() {
  unsigned* d = nullptr;
  unsigned h[2] = {0, 0};
  cudaMalloc(&d, sizeof h);
  int reserved = 0;
  cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, 0);
  printf("reserved shared memory per block: %d bytes\n", reserved);
  cudaFuncSetAttribute(dynamic_only, cudaFuncAttributeMaxDynamicSharedMemorySize, 96 * 1024);
  dynamic_only<<<1, 32, 96 * 1024>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("dynamic only: extern __shared__ at 0x%x\n", h[0]);
  after_static_4<<<1, 32, 4096>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("after 4 bytes of static: extern __shared__ at 0x%x (static at 0x%x)\n", h[0], h[1]);
  after_static_48<<<1, 32, 4096>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("after 48 bytes of static: extern __shared__ at 0x%x (static at 0x%x)\n", h[0], h[1]);
  const cudaError_t e = cudaDeviceSynchronize();
  printf("status: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
