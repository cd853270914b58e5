// LP002 on a CUDA file compiled by `check --cuda` (docs/ptx.md, the launch domain): the host code
// launches `scale` with a block size it computes at run time, an `int`, so --verbose says the
// block is (?, 1, 1): one-dimensional, its width not a constant the checker reads, and why;
// s[threadIdx.x] of 128 floats then stays inside `s` only for blocks of at most 128 threads, a
// launch-dependent warning.
// `square`, launched with a constant block of 64 threads, is proven at that launch.
// RUN: layoutproof check --cuda %s --no-cache --no-progress --verbose
// CHECK: {{^.*}}cuda_runtime_launch.cu:[[@LINE+5]]:3: warning: st.shared.f32 (PTX line {{[0-9]+}}) in scale stays inside 'scale(float*, float)::s' only for some launches: whenever ntid.x <= 128 [LP002]
// CHECK: {{^.*}}cuda_runtime_launch.cu:[[@LINE+6]]:3: warning: ld.shared.f32 (PTX line {{[0-9]+}}) in scale stays inside 'scale(float*, float)::s' only for some launches: whenever ntid.x <= 128 [LP002]
// CHECK: {{^.*}}cuda_runtime_launch.cu:[[@LINE+1]]:1: assumes: kernel scale(float*, float): launched with block (?, 1, 1) grid (1, 1, 1) dynamic_smem 0 at {{.*}}cuda_runtime_launch.cu:[[@LINE+16]], whose ? is not a constant ('threads' is not a constant the checker can evaluate) (the translation unit's launch)
__global__ void scale(float* out, float f) {
  __shared__ float s[128];
  s[threadIdx.x] = f;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}

// CHECK: {{^.*}}cuda_runtime_launch.cu:[[@LINE+1]]:1: assumes: kernel square(float*): launched with block (64, 1, 1) grid (1, 1, 1) dynamic_smem 0 at cuda_runtime_launch.cu:[[@LINE+9]] (the translation unit's launch)
__global__ void square(float* out) {
  __shared__ float s[64];
  s[threadIdx.x] = out[threadIdx.x];
  out[threadIdx.x] = s[threadIdx.x] * s[threadIdx.x];
}

void run(float* p, int threads) {
  scale<<<1, threads>>>(p, 2.0f);
  square<<<1, 64>>>(p);
}
// CHECK: 2 findings (2 warnings), in 1 file; 9 of 11 obligations proven
