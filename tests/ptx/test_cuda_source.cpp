// The host-code reader (frontend/cuda/CudaSource.h) on host code written for the purpose: which
// launches it reads as constants, which it refuses and why, kernel definitions with their
// parameters, and the matching of launches to the PTX kernels' demangled names.
#include <catch2/catch.hpp>

#include "frontend/cuda/CudaSource.h"

using lp::cuda::HostLaunch;

namespace {

std::vector<HostLaunch> launches(const std::string& code) { return lp::cuda::host_launches(code, {}); }

std::array<int64_t, 3> dims(int64_t x, int64_t y = 1, int64_t z = 1) { return {x, y, z}; }
lp::hw::BlockExtents block(int64_t x, int64_t y = 1, int64_t z = 1) { return lp::hw::BlockExtents::exactly({x, y, z}); }
// A block whose x extent is not a constant and whose y and z are.
lp::hw::BlockExtents rows(std::optional<int64_t> x, std::optional<int64_t> y = 1, std::optional<int64_t> z = 1) {
  return {{x, y, z}};
}

}  // namespace

TEST_CASE("host launches: constant shapes are read from every launch form", "[ptx][cuda-source]") {
  const auto l = launches(R"(
constexpr int TILE = 32;
enum { kRows = 8 };
constexpr int kSmem = 2 * TILE * sizeof(float);
static const unsigned kThreads = 4 * TILE;
__global__ void a(float*);
template <int N> __global__ void b(float*);
int main() {
  dim3 grid(64 / TILE, 128 / TILE), threads(TILE, kRows);
  a<<<grid, threads>>>(nullptr);
  a<<<1, kThreads, kSmem>>>(nullptr);
  b<128><<<dim3(2, 3), dim3(TILE, 2, 2), 0, nullptr>>>(nullptr);
  const dim3 block{16, 16};
  void* args[] = {nullptr};
  cudaLaunchKernel((const void*)a, dim3(1), block, args, 1024, 0);
  cudaLaunchKernel(reinterpret_cast<void*>(&b<64>), 4, 64, args, 0, 0);
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(2);
  config.blockDim = dim3(kThreads / 2, 2);
  config.dynamicSmemBytes = kSmem + 16;
  cudaLaunchKernelEx(&config, a, nullptr);
  int n = (TILE > 16) ? TILE * 2 : TILE;
  a<<<1, n>>>(nullptr);
}
)");
  REQUIRE(l.size() == 7);
  CHECK(l[0].kernel == "a");
  CHECK(l[0].block == block(32, 8));
  CHECK(l[0].grid == dims(2, 4));
  CHECK(l[0].dynamic_smem == 0);
  CHECK(l[1].block == block(128));
  CHECK(l[1].dynamic_smem == 256);
  CHECK(l[2].kernel == "b<128>");
  CHECK(l[2].block == block(32, 2, 2));
  CHECK(l[2].grid == dims(2, 3));
  CHECK(l[3].kernel == "a");
  CHECK(l[3].block == block(16, 16));
  CHECK(l[3].dynamic_smem == 1024);
  CHECK(l[4].kernel == "b<64>");
  CHECK(l[4].block == block(64));
  CHECK(l[5].block == block(64, 2));
  CHECK(l[5].grid == dims(2));
  CHECK(l[5].dynamic_smem == 272);
  CHECK(l[6].block == block(64));  // initialised from constants and never changed
  for (const HostLaunch& x : l) CHECK(x.not_constant.empty());
  CHECK(l[0].line == 10);
}

TEST_CASE("host launches: shapes that are not constants are refused with the reason", "[ptx][cuda-source]") {
  const auto l = launches(R"(
__global__ void k(float*);
void run(float* p, int threads) {
  k<<<1, threads>>>(p);
  int n = 128;
  if (p) n = 64;
  k<<<1, n>>>(p);
  int m = 32;
  cudaOccupancyMaxPotentialBlockSize(nullptr, &m, k);
  k<<<1, m>>>(p);
  dim3 b(32, 4);
  b.y = 8;
  k<<<1, b>>>(p);
  k<<<1, threads / 2>>>(p);
  int q = 64, q2 = q;
  q++;
  k<<<1, q2>>>(p);
}
)");
  REQUIRE(l.size() == 6);
  // Integers whose values are not constants: one-dimensional blocks of unknown width.
  CHECK(l[0].block == rows(std::nullopt));
  CHECK(l[0].not_constant.find("'threads'") != std::string::npos);
  CHECK(l[1].block == rows(std::nullopt));
  CHECK(l[1].not_constant.find("assigned at line 6") != std::string::npos);
  CHECK(l[2].block == rows(std::nullopt));
  CHECK(l[2].not_constant.find("address is taken") != std::string::npos);
  // A dim3 changed after its declaration: nothing known.
  CHECK(!l[3].block.any_known());
  CHECK(l[3].not_constant.find("'b' is assigned") != std::string::npos);
  CHECK(l[4].block == rows(std::nullopt));
  CHECK(l[5].block == rows(std::nullopt));  // q2 = q, and q is incremented
  for (const HostLaunch& x : l) CHECK(!x.block.exact());
}

TEST_CASE("host launches: a block that is not a constant keeps the extents its type and constant parts give",
          "[ptx][cuda-source]") {
  const auto l = launches(R"(
#include <cstddef>
struct Config { int threads; dim3 block; };
__global__ void k(float*);
template <typename T> dim3 shape(T);
void run(float* p, unsigned threads, const size_t& n, dim3 given, Config c, int rows) {
  dim3 flat(threads, 1, 1);
  k<<<1, flat>>>(p);
  k<<<1, dim3(threads, 4)>>>(p);
  dim3 tile(16, rows);
  k<<<1, tile>>>(p);
  k<<<1, std::min<unsigned>(threads, 256u)>>>(p);
  k<<<1, n / 2 + 1>>>(p);
  k<<<1, given>>>(p);
  k<<<1, c.threads>>>(p);
  k<<<1, c.block>>>(p);
  k<<<1, shape(threads)>>>(p);
  dim3 copy(given);
  k<<<1, copy>>>(p);
  auto a = threads;
  k<<<1, a>>>(p);
  auto lambda = [&](dim3 threads) { k<<<1, threads>>>(p); };
  dim3 single(threads);
  k<<<1, single>>>(p);
}
)");
  REQUIRE(l.size() == 13);
  CHECK(l[0].block == rows(std::nullopt));                // dim3(threads, 1, 1)
  CHECK(l[1].block == rows(std::nullopt, 4));             // dim3(threads, 4)
  CHECK(l[2].block == rows(16, std::nullopt));            // dim3(16, rows)
  CHECK(l[3].block == rows(std::nullopt));                // an unsigned expression
  CHECK(l[4].block == rows(std::nullopt));                // a size_t reference parameter
  CHECK(!l[5].block.any_known());                         // a dim3 parameter
  CHECK(!l[6].block.any_known());                         // a member: its type is not read
  CHECK(!l[7].block.any_known());
  CHECK(!l[8].block.any_known());                         // a call's result
  CHECK(!l[9].block.any_known());                         // a dim3 copied from a dim3 parameter
  CHECK(!l[10].block.any_known());                        // auto: its type is not read
  CHECK(!l[11].block.any_known());                        // a lambda's dim3 parameter hides `threads`
  CHECK(l[12].block == rows(std::nullopt));               // dim3(threads) of an unsigned
  for (const HostLaunch& x : l) CHECK(!x.not_constant.empty());
  CHECK(l[0].block.text() == "(?, 1, 1)");
}

TEST_CASE("host launches: a launch through a function pointer starts each kernel assigned to it", "[ptx][cuda-source]") {
  // cuda-samples' transpose chooses its kernel this way; a pointer whose address is taken or that
  // is assigned anything but a kernel launches nothing the reader can name.
  const auto l = launches(R"(
__global__ void a(float*);
__global__ void b(float*);
template <int N> __global__ void c(float*);
void (*pick())(float*);
void run(float* p, int which) {
  void (*kernel)(float*) = &a;
  if (which) kernel = b;
  else kernel = &c<16>;
  if (kernel == &a) p = nullptr;
  dim3 threads(32, 8);
  kernel<<<1, threads>>>(p);
  void (*other)(float*) = &a;
  void (**alias)(float*) = &other;
  other<<<1, 64>>>(p);
  void (*table)(float*);
  table = pick();
  table<<<1, 64>>>(p);
  void* args[] = {&p};
  cudaLaunchKernel((const void*)kernel, dim3(1), dim3(128), args, 0, 0);
}
void direct(float* p) { a<<<1, 32>>>(p); }
)");
  REQUIRE(l.size() == 7);
  const std::vector<std::string> kernels = {"a", "b", "c<16>"};
  for (size_t k = 0; k < 3; ++k) {
    CHECK(l[k].kernel == kernels[k]);
    CHECK(l[k].block == block(32, 8));
    CHECK(l[k].line == 12);
    CHECK(l[3 + k].kernel == kernels[k]);
    CHECK(l[3 + k].block == block(128));
  }
  CHECK(l[6].kernel == "a");
  CHECK(l[6].block == block(32));
}

TEST_CASE("host launches: line markers place each launch and skip system headers", "[ptx][cuda-source]") {
  const std::string pre = "# 1 \"/usr/include/x.h\" 1 3\nvoid f() { k<<<1, 32>>>(); }\n"
                          "# 5 \"/tk/include/cuda_runtime.h\"\nvoid g() { k<<<1, 64>>>(); }\n"
                          "# 40 \"src/app.cu\"\n__global__ void k();\n\nint main() { k<<<2, 96>>>(); }\n";
  const auto l = lp::cuda::host_launches(pre, {"/tk/"});
  REQUIRE(l.size() == 1);
  CHECK(l[0].file == "src/app.cu");
  CHECK(l[0].line == 42);
  CHECK(l[0].block == block(96));
}

TEST_CASE("kernel definitions: names, parameter names and lines", "[ptx][cuda-source]") {
  const auto d = lp::cuda::kernel_definitions(R"(// a comment with __global__ in it
template <typename T, int N>
__global__ void __launch_bounds__(256, 2) reduce(const T* __restrict__ in, T* out, unsigned int n) {
  // "}" in a comment
  const char* s = "{";
}
__global__ void declared(int x);
__global__ void unnamed(float*, int) {}
__global__ void none(void) {}
static __global__ void arrays(float a[], int n = 4) {
}
)",
                                                "k.cu");
  REQUIRE(d.size() == 4);
  CHECK(d[0].name == "reduce");
  CHECK(d[0].params == std::vector<std::string>{"in", "out", "n"});
  CHECK(d[0].line == 3);
  CHECK(d[0].end_line == 6);
  CHECK(d[1].name == "unnamed");
  CHECK(d[1].params == std::vector<std::string>{"", ""});
  CHECK(d[2].name == "none");
  CHECK(d[2].params.empty());
  CHECK(d[3].name == "arrays");
  CHECK(d[3].params == std::vector<std::string>{"a", "n"});
  CHECK(d[3].line == 10);
}

TEST_CASE("launch matching: a launch's name against PTX kernels' demangled names", "[ptx][cuda-source]") {
  using lp::cuda::launches_kernel;
  using lp::cuda::split_kernel_name;
  const auto demangled = split_kernel_name("void ns::reduce<int, 256u>(int*, int*, unsigned int)");
  CHECK(demangled.base == "reduce");
  CHECK(demangled.qualifier == "ns::");
  REQUIRE(demangled.template_args);
  CHECK(*demangled.template_args == std::vector<std::string>{"int", "256"});
  CHECK(launches_kernel(split_kernel_name("reduce<int, 256>"), demangled));
  CHECK(launches_kernel(split_kernel_name("ns::reduce<int,256>"), demangled));
  CHECK(launches_kernel(split_kernel_name("reduce"), demangled));  // deduced arguments
  CHECK(launches_kernel(split_kernel_name("reduce<?, 256>"), demangled));  // an argument that is not a constant
  CHECK_FALSE(launches_kernel(split_kernel_name("reduce<int, 128>"), demangled));
  CHECK_FALSE(launches_kernel(split_kernel_name("other::reduce<int, 256>"), demangled));
  CHECK_FALSE(launches_kernel(split_kernel_name("reduce2"), demangled));
  CHECK(launches_kernel(split_kernel_name("transpose"), split_kernel_name("transpose(float*, float const*, int)")));
}
