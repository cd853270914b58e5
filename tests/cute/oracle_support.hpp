#pragma once
// The oracle of the CuTe probe tests: CuTe's own partition and evaluation, written as comment lines
// beside the annotations layoutproof/cute.hpp emits (tests/cute/test_cute_probes.cpp compares the
// two). The offsets come from pointer differences of real CuTe tensors on a shared-memory pointer at
// an aligned base, independently of the emitter's index arithmetic:
//   # oracle-access NAME THREAD o0 o1 ...   every value of partition_S/D(thread), in CuTe's 1-D order
//   # oracle-layout NAME o0 o1 ...          t(i) for every index i of the layout
#include <layoutproof/cute.hpp>

#include <sstream>
#include <string>

namespace oracle {

// 1 MiB: aligned beyond every swizzle period; never dereferenced.
inline constexpr uintptr_t kBase = uintptr_t{1} << 20;

template <class T, class Tensor>
int64_t offset_of(Tensor&& t, int64_t i) {
  const T* p = &t(i);
  return (int64_t(reinterpret_cast<uintptr_t>(p)) - int64_t(kBase)) / int64_t(sizeof(T));
}

template <class T, class L, class TiledCopy>
void access(layoutproof::Emitter& out, const std::string& name, const L& layout, const TiledCopy& tiled_copy,
            layoutproof::Side side) {
  auto smem = cute::make_tensor(cute::make_smem_ptr(reinterpret_cast<T*>(kBase)), layout);
  for (int t = 0; t < int(cute::size(tiled_copy)); ++t) {
    auto thr = tiled_copy.get_thread_slice(t);
    std::ostringstream s;
    s << "oracle-access " << name << ' ' << t;
    auto values = [&](auto&& part) {
      for (int64_t k = 0; k < int64_t(cute::size(part)); ++k) s << ' ' << offset_of<T>(part, k);
    };
    if (side == layoutproof::Side::Src) values(thr.partition_S(smem));
    else values(thr.partition_D(smem));
    out.comment(s.str());
  }
}

template <class T, class L>
void layout(layoutproof::Emitter& out, const std::string& name, const L& l) {
  auto t = cute::make_tensor(cute::make_smem_ptr(reinterpret_cast<T*>(kBase)), l);
  std::ostringstream s;
  s << "oracle-layout " << name;
  for (int64_t i = 0; i < int64_t(cute::size(l)); ++i) s << ' ' << offset_of<T>(t, i);
  out.comment(s.str());
}

}  // namespace oracle
