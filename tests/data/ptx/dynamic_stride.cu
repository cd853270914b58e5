// Accesses into dynamic shared memory at run-time strides (tests/ptx/test_ptx_launch.cpp): a
// lane's address is threadIdx.x times a kernel parameter, so a warp may span more shared memory
// than the architecture has, and the solver's candidate must be judged as the concrete re-check
// judges it. Regenerate the PTX with tests/data/ptx/generate.sh.
extern "C" __global__ void stride_store(float* out, int stride) {
  extern __shared__ float buf[];
  buf[threadIdx.x * stride] = out[threadIdx.x];  // ORACLE ds_store
  __syncthreads();
  out[threadIdx.x] = buf[threadIdx.x];  // ORACLE ds_load
}

extern "C" __global__ void offset_stride_store(float* out, unsigned stride, unsigned offset) {
  extern __shared__ float buf[];
  buf[offset + threadIdx.x * stride] = 1.0f;  // ORACLE dos_store
  __syncthreads();
  out[threadIdx.x] = buf[(threadIdx.x ^ stride) * 33];  // ORACLE dos_load
}
