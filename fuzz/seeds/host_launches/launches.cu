# 1 "app.cu"
constexpr int TILE = 32;
__global__ void k(float*);
template <int N> __global__ void t(float*);
void run(float* p, unsigned threads, const size_t& n, dim3 given, int rows) {
  dim3 flat(threads, 1, 1), tile(16, rows);
  k<<<1, flat>>>(p);
  k<<<dim3(2, 3), dim3(threads, 4), 0, nullptr>>>(p);
  k<<<1, tile>>>(p);
  t<128><<<1, std::min<unsigned>(threads, 256u)>>>(p);
  k<<<1, n / 2 + 1>>>(p);
  k<<<1, given>>>(p);
  auto lambda = [&](dim3 threads) { k<<<1, threads>>>(p); };
  dim3 a = b; dim3 b = a;
  k<<<1, a>>>(p);
  void* args[] = {nullptr};
  cudaLaunchKernel((const void*)k, dim3(1), dim3(TILE, 8), args, 1024, 0);
  cudaLaunchConfig_t config = {};
  config.blockDim = dim3(threads, 2);
  cudaLaunchKernelEx(&config, k, nullptr);
}
