#pragma once
// layoutproof/cute.hpp: writes LayoutProof annotations (docs/annotations.md) straight from a
// kernel's own CuTe types, in a small host-only probe program next to the kernel (docs/cute.md).
//
//   #include <layoutproof/cute.hpp>
//   int main() {
//     layoutproof::Emitter out;                     // $LAYOUTPROOF_EMIT, else standard output
//     layoutproof::emit_arch(out, "sm_80");
//     auto sQ = layoutproof::emit_layout<cute::half_t>(out, "sQ", SmemLayoutQ{});
//     layoutproof::emit_access(out, "q_s2r", sQ, smem_tiled_copy_Q, layoutproof::Side::Src);
//   }
//
// `layoutproof extract probe.cpp -I <cutlass>/include` compiles it with the host compiler, runs it
// and checks what it wrote. Every statement ends in `; at "FILE":LINE`, the call site in the
// probe, so findings point at the probe's line.
//
// What one instruction is comes from CuTe itself (nvidia-cutlass 4.2.0.0, cute/atom/copy_atom.hpp):
// TiledCopy::tidfrg_S/tidfrg_D give (Thr, (AtomVal, FrgX), (Rest...)) -> index of the smem tile.
// The atom's NumValSrc/NumValDst values form one instruction; every (FrgX, Rest...) index is a
// separate issue; threads 32w..32w+31 are warp w. Warp atoms (ldmatrix/stmatrix, AtomThrID 32)
// give each lane's row address; lanes of .x1/.x2 that repeat a lower lane's row (a stride-0
// thread mode) give no address. Auto-vectorizing atoms (DefaultCopy, AutoVectorizingCopy) take
// their width from max_common_vector of the real source and destination, as cute::copy does
// (cute/algorithm/copy.hpp). Byte swizzles (GMMA/UMMA atoms, `Sw<B,M,S> o smem_ptr[Nb](unset) o L`)
// are written as such, so they keep acting on absolute byte addresses.
//
// An access is written as a lane map `lanes (L..., I..., W...):(...)` whose 1-D index is
// lane + 32 * issue: the lane leaves, then the issue leaves (FrgX, Rest...), then the warp leaves,
// each stride an index of the smem tile (column-major over its shape, as CuTe numbers it). A
// problem CuTe's types do not let the emitter resolve is reported on standard error as
// `FILE:LINE: error: ...` (the probe's call site) and the probe exits with status 2.
#include <cute/tensor.hpp>
#include <cute/atom/copy_atom.hpp>
#include <cute/atom/copy_traits_sm75.hpp>
#include <cute/atom/copy_traits_sm80.hpp>
#include <cute/atom/copy_traits_sm90.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cute/atom/mma_traits_sm100.hpp>
#include <cute/atom/copy_traits_sm90_tma.hpp>
#if __has_include(<cutlass/version.h>)
#include <cutlass/version.h>
#endif

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace layoutproof {

/// A call site in the probe. As a defaulted last parameter, `Origin::current()` is the caller's
/// file and line (GCC and Clang evaluate __builtin_FILE/__builtin_LINE where the call is written).
struct Origin {
  const char* file = "";
  unsigned line = 0;
  static constexpr Origin current(const char* file = __builtin_FILE(), unsigned line = __builtin_LINE()) {
    return Origin{file, line};
  }
};

/// Exit status of a probe whose CuTe types the emitter cannot turn into annotations.
inline constexpr int kProbeError = 2;

namespace detail {

inline std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// ---- element types ---------------------------------------------------------------------------

template <class T>
const char* dtype_name() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, cute::half_t>) return "f16";
  else if constexpr (std::is_same_v<U, cute::bfloat16_t>) return "bf16";
  else if constexpr (std::is_same_v<U, cute::tfloat32_t>) return "tf32";
  else if constexpr (std::is_same_v<U, float>) return "f32";
  else if constexpr (std::is_same_v<U, double>) return "f64";
  else if constexpr (std::is_same_v<U, cute::float_e4m3_t>) return "e4m3";
  else if constexpr (std::is_same_v<U, cute::float_e5m2_t>) return "e5m2";
  else if constexpr (std::is_same_v<U, int8_t>) return "s8";
  else if constexpr (std::is_same_v<U, uint8_t>) return "u8";
  else if constexpr (std::is_same_v<U, int16_t>) return "s16";
  else if constexpr (std::is_same_v<U, uint16_t>) return "u16";
  else if constexpr (std::is_same_v<U, int32_t>) return "s32";
  else if constexpr (std::is_same_v<U, uint32_t>) return "u32";
  else if constexpr (std::is_same_v<U, int64_t>) return "s64";
  else if constexpr (std::is_same_v<U, uint64_t>) return "u64";
  else if constexpr (cute::sizeof_bits_v<U> == 8) return "b8";
  else if constexpr (cute::sizeof_bits_v<U> == 16) return "b16";
  else if constexpr (cute::sizeof_bits_v<U> == 32) return "b32";
  else if constexpr (cute::sizeof_bits_v<U> == 64) return "b64";
  else if constexpr (cute::sizeof_bits_v<U> == 128) return "b128";
  else return nullptr;
}

// ---- CuTe's print format -----------------------------------------------------------------------

template <class I>
void put_int(std::ostream& os, const I& v) {
  if constexpr (cute::is_static<I>::value) os << '_' << int64_t(I::value);
  else os << int64_t(v);
}

template <class T>
bool put_tuple(std::ostream& os, const T& t) {
  if constexpr (cute::is_tuple<T>::value) {
    os << '(';
    bool ok = true;
    cute::for_each(cute::make_seq<cute::tuple_size<T>::value>{}, [&](auto i) {
      if (i > 0) os << ',';
      ok = put_tuple(os, cute::get<i>(t)) && ok;
    });
    os << ')';
    return ok;
  } else if constexpr (cute::is_integral<T>::value) {
    put_int(os, t);
    return true;
  } else {
    return false;  // a scaled basis or another non-integer stride
  }
}

template <class Shape, class Stride>
bool put_layout(std::ostream& os, const cute::Layout<Shape, Stride>& l) {
  if (!put_tuple(os, l.shape())) return false;
  os << ':';
  return put_tuple(os, l.stride());
}

template <class T>
struct is_swizzle : std::false_type {};
template <int B, int M, int S>
struct is_swizzle<cute::Swizzle<B, M, S>> : std::true_type {};

template <class T>
struct is_smem_flag : std::false_type {};
template <int B>
struct is_smem_flag<cute::smem_ptr_flag_bits<B>> : std::true_type {
  static constexpr int bits = B;
};

/// The layout in CuTe's print format, with a byte swizzle written `smem_ptr[Nb](unset)` (CuTe's
/// operator<< prints that flag as `_0`, which would lose the absolute-address meaning); empty when
/// the layout is not one LayoutProof reads. A ComposedLayout<A, O, B> is `A o O o B` with A a
/// swizzle or a layout with integer strides, O an integer (or the smem_ptr flag after a swizzle) and
/// B a layout or, recursively, a composed layout (cute/layout_composed.hpp).
template <class L>
std::string layout_text(const L& l) {
  std::ostringstream os;
  if constexpr (cute::is_composed_layout<L>::value) {
    using A = std::decay_t<decltype(l.layout_a())>;
    using O = std::decay_t<decltype(l.offset())>;
    if constexpr (is_swizzle<A>::value) {
      os << "Sw<" << A::num_bits << ',' << A::num_base << ',' << A::num_shft << "> o ";
      if constexpr (is_smem_flag<O>::value) os << "smem_ptr[" << is_smem_flag<O>::bits << "b](unset)";
      else if constexpr (cute::is_integral<O>::value) put_int(os, l.offset());
      else return {};
    } else if constexpr (cute::is_layout<A>::value && cute::is_integral<O>::value) {
      if (!put_layout(os, l.layout_a())) return {};
      os << " o ";
      put_int(os, l.offset());
    } else {
      return {};
    }
    const std::string inner = layout_text(l.layout_b());
    if (inner.empty()) return {};
    os << " o " << inner;
  } else if constexpr (cute::is_layout<L>::value) {
    if (!put_layout(os, l)) return {};
  } else {
    return {};
  }
  return os.str();
}

/// The layout without its swizzle and offset: what CuTe's shape and index arithmetic see.
template <class L>
auto inner_layout(const L& l) {
  if constexpr (cute::is_composed_layout<L>::value) return l.layout_b();
  else return l;
}

// A fake shared-memory base, aligned far beyond any swizzle period, for pointer arithmetic only
// (never dereferenced): byte swizzles act on it as on a real, aligned buffer.
inline constexpr uintptr_t kFakeBase = uintptr_t{1} << 24;

template <class T>
auto fake_smem_ptr() {
  return cute::make_smem_ptr(reinterpret_cast<T*>(kFakeBase));
}

/// Element offset of logical index `idx` of the smem layout, as CuTe addresses it through a
/// shared-memory pointer at an aligned base (byte swizzles included).
template <class T, class L>
int64_t element_offset(const L& layout, int64_t idx) {
  auto t = cute::make_tensor(fake_smem_ptr<T>(), layout);
  const T* p = &t(idx);
  return (int64_t(reinterpret_cast<uintptr_t>(p)) - int64_t(kFakeBase)) / int64_t(sizeof(T));
}

// ---- flattened modes ---------------------------------------------------------------------------

struct Leaf {
  int64_t extent;
  int64_t stride;
};

template <class S, class D>
void leaves(const S& s, const D& d, std::vector<Leaf>& out) {
  if constexpr (cute::is_tuple<S>::value) {
    cute::for_each(cute::make_seq<cute::tuple_size<S>::value>{}, [&](auto i) { leaves(cute::get<i>(s), cute::get<i>(d), out); });
  } else {
    out.push_back(Leaf{int64_t(s), int64_t(d)});
  }
}

template <class L>
std::vector<Leaf> leaves_of(const L& l) {
  std::vector<Leaf> out;
  leaves(l.shape(), l.stride(), out);
  return out;
}

/// Splits colexicographic leaves into a head of exactly `n` points and the rest, splitting one
/// leaf where needed (exact: (a*b):s is (a,b):(s,a*s)). False when no prefix has `n` points.
inline bool split_at(const std::vector<Leaf>& in, int64_t n, std::vector<Leaf>& head, std::vector<Leaf>& tail) {
  head.clear();
  tail.clear();
  int64_t have = 1;
  size_t k = 0;
  for (; k < in.size() && have < n; ++k) {
    const Leaf& l = in[k];
    if (have * l.extent <= n) {
      if (n % (have * l.extent) != 0) return false;
      head.push_back(l);
      have *= l.extent;
    } else {
      const int64_t a = n / have;
      if (n % have != 0 || l.extent % a != 0) return false;
      head.push_back(Leaf{a, l.stride});
      tail.push_back(Leaf{l.extent / a, l.stride * a});
      have = n;
    }
  }
  if (have != n) return false;
  for (; k < in.size(); ++k) tail.push_back(in[k]);
  return true;
}

inline int64_t points(const std::vector<Leaf>& ls) {
  int64_t p = 1;
  for (const Leaf& l : ls) p *= l.extent;
  return p;
}

// Value of colexicographic index i over leaves.
inline int64_t evaluate(const std::vector<Leaf>& ls, int64_t i) {
  int64_t v = 0;
  for (const Leaf& l : ls) {
    v += (i % l.extent) * l.stride;
    i /= l.extent;
  }
  return v;
}

inline void put_leaves(std::ostream& os, const std::vector<Leaf>& ls) {
  os << '(';
  for (size_t k = 0; k < ls.size(); ++k) os << (k ? "," : "") << '_' << ls[k].extent;
  os << "):(";
  for (size_t k = 0; k < ls.size(); ++k) os << (k ? "," : "") << '_' << ls[k].stride;
  os << ')';
}

// ---- copy operations -------------------------------------------------------------------------

template <class Op>
struct op_of {
  using type = Op;
};
template <class Op, class... Args>
struct op_of<cute::Copy_Traits<Op, Args...>> {
  using type = Op;
};

template <class TiledCopy>
struct copy_parts;
template <class Atom, class TV, class Tiler>
struct copy_parts<cute::TiledCopy<Atom, TV, Tiler>> {
  using atom = Atom;
};
template <class Atom>
struct atom_parts;
template <class X, class T>
struct atom_parts<cute::Copy_Atom<X, T>> {
  using op = typename op_of<X>::type;
  using value = T;
};

enum class Kind { PerLane, Matrix, AsyncCopy, AutoVector, Unsupported };

/// What CuTe's copy operation is in the hardware's terms: the kind, the matrices of
/// ldmatrix/stmatrix (.x1/.x2/.x4), whether it transposes, and for per-lane copies the bits per
/// lane (0: decided by max_common_vector).
template <class Op>
struct op_info {
  static constexpr Kind kind = Kind::Unsupported;
  static constexpr int matrices = 0, bits = 0;
  static constexpr bool trans = false, load = true;
};
#define LAYOUTPROOF_MATRIX_OP(OP, N, TRANS, LOAD)  \
  template <>                                      \
  struct op_info<cute::OP> {                       \
    static constexpr Kind kind = Kind::Matrix;     \
    static constexpr int matrices = N, bits = 128; \
    static constexpr bool trans = TRANS, load = LOAD; \
  };
LAYOUTPROOF_MATRIX_OP(SM75_U32x1_LDSM_N, 1, false, true)
LAYOUTPROOF_MATRIX_OP(SM75_U32x2_LDSM_N, 2, false, true)
LAYOUTPROOF_MATRIX_OP(SM75_U32x4_LDSM_N, 4, false, true)
LAYOUTPROOF_MATRIX_OP(SM75_U16x2_LDSM_T, 1, true, true)
LAYOUTPROOF_MATRIX_OP(SM75_U16x4_LDSM_T, 2, true, true)
LAYOUTPROOF_MATRIX_OP(SM75_U16x8_LDSM_T, 4, true, true)
LAYOUTPROOF_MATRIX_OP(SM90_U32x1_STSM_N, 1, false, false)
LAYOUTPROOF_MATRIX_OP(SM90_U32x2_STSM_N, 2, false, false)
LAYOUTPROOF_MATRIX_OP(SM90_U32x4_STSM_N, 4, false, false)
LAYOUTPROOF_MATRIX_OP(SM90_U16x2_STSM_T, 1, true, false)
LAYOUTPROOF_MATRIX_OP(SM90_U16x4_STSM_T, 2, true, false)
LAYOUTPROOF_MATRIX_OP(SM90_U16x8_STSM_T, 4, true, false)
#undef LAYOUTPROOF_MATRIX_OP

// cp.async's cache qualifier is part of the instruction (LayoutProof's cp.async.ca.N / cp.async.cg.16):
// CACHEALWAYS issues cp.async.ca, CACHEGLOBAL cp.async.cg (cute/arch/copy_sm80.hpp).
template <class S, class D>
struct op_info<cute::SM80_CP_ASYNC_CACHEALWAYS<S, D>> {
  static constexpr Kind kind = Kind::AsyncCopy;
  static constexpr int matrices = 0, bits = int(cute::sizeof_bits_v<S>);
  static constexpr bool trans = false, load = false, cache_global = false;
};
template <class S, class D>
struct op_info<cute::SM80_CP_ASYNC_CACHEGLOBAL<S, D>> : op_info<cute::SM80_CP_ASYNC_CACHEALWAYS<S, D>> {
  static constexpr bool cache_global = true;
};
template <class S, class D>
struct op_info<cute::SM80_CP_ASYNC_CACHEALWAYS_ZFILL<S, D>> : op_info<cute::SM80_CP_ASYNC_CACHEALWAYS<S, D>> {};
template <class S, class D>
struct op_info<cute::SM80_CP_ASYNC_CACHEGLOBAL_ZFILL<S, D>> : op_info<cute::SM80_CP_ASYNC_CACHEGLOBAL<S, D>> {};
template <class S, class D>
struct op_info<cute::UniversalCopy<S, D>> {
  static constexpr Kind kind = Kind::PerLane;
  static constexpr int matrices = 0, bits = int(cute::sizeof_bits_v<S>);
  static constexpr bool trans = false, load = true;
};
template <int MaxVecBits>
struct op_info<cute::AutoVectorizingCopyWithAssumedAlignment<MaxVecBits>> {
  static constexpr Kind kind = Kind::AutoVector;
  static constexpr int matrices = 0, bits = 0, max_vec_bits = MaxVecBits;
  static constexpr bool trans = false, load = true;
};

/// The per-lane shared-memory instruction of `bits` per lane, or nullptr.
inline const char* per_lane_instr(int bits, bool load) {
  switch (bits) {
    case 8: return load ? "ld.shared.u8" : "st.shared.u8";
    case 16: return load ? "ld.shared.u16" : "st.shared.u16";
    case 32: return load ? "ld.shared.b32" : "st.shared.b32";
    case 64: return load ? "ld.shared.v2.b32" : "st.shared.v2.b32";
    case 128: return load ? "ld.shared.v4.b32" : "st.shared.v4.b32";
    default: return nullptr;
  }
}

template <class T>
std::string type_name() {
  std::string f = __PRETTY_FUNCTION__;  // "... [with T = NAME; ...]" (GCC) or "[T = NAME]" (Clang)
  size_t b = f.find("T = ");
  if (b == std::string::npos) return "this copy operation";
  b += 4;
  size_t e = f.find_first_of(";]", b);
  return f.substr(b, e - b);
}

}  // namespace detail

/// Where annotations go: the file named by $LAYOUTPROOF_EMIT (what `layoutproof extract` sets,
/// so text CuTe itself prints on standard output cannot mix in), else standard output; or any
/// stream given.
class Emitter {
 public:
  Emitter() {
    if (const char* path = std::getenv("LAYOUTPROOF_EMIT"); path && *path) {
      file_ = std::make_unique<std::ofstream>(path, std::ios::binary);
      if (!*file_) {
        std::fprintf(stderr, "error: cannot write the annotations to '%s'\n", path);
        std::exit(kProbeError);
      }
      out_ = file_.get();
    }
  }
  explicit Emitter(std::ostream& out) : out_(&out) {}

  /// Writes one statement with its call site; the first is preceded by a comment naming the
  /// CUTLASS version the probe was compiled against.
  void statement(const std::string& text, Origin at) {
    if (!started_) header();
    *out_ << text << " ; at " << detail::quoted(at.file) << ':' << at.line << '\n';
    out_->flush();
  }
  /// Writes a comment line (`# ...`), which `check` ignores. Comments before the first statement
  /// come first in the file (a corpus entry's header, docs/corpus.md).
  void comment(const std::string& text) { *out_ << "# " << text << '\n'; }

  /// Reports a problem at the probe's call site and ends the probe: nothing is to be proven from
  /// a probe the emitter could not follow.
  [[noreturn]] void fail(Origin at, const std::string& message) {
    out_->flush();
    std::fprintf(stderr, "%s:%u: error: %s\n", at.file, at.line, message.c_str());
    std::exit(kProbeError);
  }

 private:
  void header() {
    started_ = true;
    *out_ << "# LayoutProof annotations written by layoutproof/cute.hpp from CUTLASS " << cutlass_version()
          << " (docs/cute.md)\n";
  }
  static std::string cutlass_version() {
#if defined(CUTLASS_MAJOR) && defined(CUTLASS_MINOR) && defined(CUTLASS_PATCH)
    return std::to_string(CUTLASS_MAJOR) + "." + std::to_string(CUTLASS_MINOR) + "." + std::to_string(CUTLASS_PATCH);
#else
    return "(version unknown)";
#endif
  }

  std::unique_ptr<std::ofstream> file_;
  std::ostream* out_ = &std::cout;
  bool started_ = false;
};

/// A shared-memory buffer the probe declared: its annotation name, element type and CuTe layout.
template <class T, class L>
struct Smem {
  std::string name;
  L layout;
};

/// Options of emit_layout: the base alignment in bytes (`align`), and the name of the CuTe
/// expression the layout is, which hand-written annotations may refer to (`cute "NAME"`).
struct LayoutOptions {
  int64_t align_bytes = 0;
  std::string cute_name;
  LayoutOptions& align(int64_t bytes) {
    align_bytes = bytes;
    return *this;
  }
  LayoutOptions& cute(std::string name) {
    cute_name = std::move(name);
    return *this;
  }
};

inline void emit_arch(Emitter& out, const char* arch, Origin at = Origin::current()) {
  out.statement(std::string("arch ") + arch, at);
}

/// `smem NAME : DTYPE = LAYOUT [align N]`, and with a CuTe name first the definition
/// `cute "NAME" = LAYOUT` that hand-written annotations are checked against.
template <class T, class L>
Smem<T, L> emit_layout(Emitter& out, const std::string& name, const L& layout, const LayoutOptions& opts = {},
                       Origin at = Origin::current()) {
  const char* dtype = detail::dtype_name<T>();
  if (!dtype) out.fail(at, "the element type " + detail::type_name<T>() + " has no LayoutProof dtype (sub-byte types are not modelled)");
  const std::string text = detail::layout_text(layout);
  if (text.empty())
    out.fail(at, "the layout of '" + name + "' is not a CuTe layout LayoutProof reads: a Layout, or a ComposedLayout of a "
                 "Swizzle or a Layout, an integer offset (or smem_ptr_flag after a Swizzle), and a Layout or "
                 "ComposedLayout, with integer strides");
  if (!opts.cute_name.empty()) out.statement("cute " + detail::quoted(opts.cute_name) + " = " + text, at);
  std::string s = "smem " + name + " : " + dtype + " = " + text;
  if (opts.align_bytes > 0) s += " align " + std::to_string(opts.align_bytes);
  if (!opts.cute_name.empty()) s += " cute " + detail::quoted(opts.cute_name);
  out.statement(s, at);
  return Smem<T, L>{name, layout};
}

/// Which side of the copy the shared-memory buffer is.
enum class Side { Src, Dst };

/// Options of emit_access: an accepted wavefront count (`expect NAME wavefronts <= N`), or an
/// expectation of conflict-freedom (`expect NAME conflict-free`).
struct AccessOptions {
  int max_wavefronts = 0;
  bool expect_conflict_free = false;
  AccessOptions& wavefronts(int n) {
    max_wavefronts = n;
    return *this;
  }
  AccessOptions& conflict_free() {
    expect_conflict_free = true;
    return *this;
  }
};

namespace detail {

struct NoOther {};

// The lane map of `tv` = (Thr, (AtomVal, FrgX), (Rest...)) -> smem index, checked against CuTe's
// partition value for value, with each instruction's values consecutive elements of shared memory.
template <class T, class L, class TV>
void lane_map(Emitter& out, const std::string& what, const std::string& instr, const Smem<T, L>& buf, const TV& tv,
              int64_t num_val, std::vector<Leaf>& map, Origin at) {
  const std::vector<Leaf> thr = leaves_of(cute::layout<0>(tv));
  std::vector<Leaf> vals = leaves_of(cute::layout<1>(tv));
  for (const Leaf& l : leaves_of(cute::layout<2>(tv))) vals.push_back(l);
  const int64_t mode1 = int64_t(cute::size<1>(tv));
  std::vector<Leaf> atom_vals, issues, lanes, warps;
  if (!split_at(vals, num_val, atom_vals, issues))
    out.fail(at, what + ": the " + std::to_string(num_val) + " values of one instruction are not a leading part of each "
                        "thread's values in CuTe's partition");
  constexpr int64_t kWarp = 32;  // lanes of a warp; the annotation's lane index is lane + 32 * issue
  if (!split_at(thr, kWarp, lanes, warps))
    out.fail(at, what + ": the copy's " + std::to_string(points(thr)) + " threads do not split into whole warps of " +
                     std::to_string(kWarp) + " lanes, which a lane map needs");
  map = lanes;
  for (const Leaf& l : issues) map.push_back(l);
  for (const Leaf& l : warps) map.push_back(l);

  // The lane map must be CuTe's partition, value for value; and each instruction's values
  // consecutive elements of shared memory.
  const int64_t n_issue = points(issues), n_warp = points(warps);
  for (int64_t w = 0; w < n_warp; ++w)
    for (int64_t j = 0; j < n_issue; ++j)
      for (int64_t lane = 0; lane < kWarp; ++lane) {
        const int64_t t = lane + kWarp * w;
        const int64_t mapped = evaluate(map, lane + kWarp * (j + n_issue * w));
        for (int64_t v = 0; v < num_val; ++v) {
          const int64_t value = num_val * j + v;
          const int64_t idx = int64_t(tv(cute::make_coord(int(t), int(value % mode1), int(value / mode1))));
          if (v == 0 && idx != mapped)
            out.fail(at, what + ": internal error: the lane map gives index " + std::to_string(mapped) + " for thread " +
                             std::to_string(t) + ", issue " + std::to_string(j) + ", CuTe " + std::to_string(idx));
          const int64_t first = element_offset<T>(buf.layout, mapped);
          const int64_t here = element_offset<T>(buf.layout, idx);
          if (here != first + v)
            out.fail(at, what + ": value " + std::to_string(v) + " of thread " + std::to_string(t) + "'s issue " +
                             std::to_string(j) + " is at element offset " + std::to_string(here) + ", not " +
                             std::to_string(first + v) + ": one " + instr + " covers consecutive elements only");
        }
      }

}

// The access of every warp of `tiled_copy` on `buf`, as one lane map.
template <class T, class L, class TiledCopy, class Other>
void emit_access_impl(Emitter& out, const std::string& name, const Smem<T, L>& buf, const TiledCopy& tiled_copy,
                      Side side, const Other& other, const AccessOptions& opts, Origin at) {
  (void)tiled_copy;
  using Atom = typename copy_parts<TiledCopy>::atom;
  using Op = typename atom_parts<Atom>::op;
  using Info = op_info<Op>;
  using V = typename atom_parts<Atom>::value;
  constexpr int bits = int(cute::sizeof_bits_v<T>);
  const std::string what = "access '" + name + "' (" + type_name<Op>() + ")";
  if constexpr (Info::kind == Kind::Unsupported) {
    out.fail(at, what + ": this copy operation is not one of the shared-memory accesses LayoutProof models (ldmatrix, "
                        "stmatrix, cp.async, UniversalCopy, AutoVectorizingCopy/DefaultCopy); TMA copies are "
                        "written with emit_tma");
  } else {
    if (cute::sizeof_bits_v<V> != bits)
      out.fail(at, what + ": the copy atom's value type has " + std::to_string(cute::sizeof_bits_v<V>) + " bits, the buffer's " +
                       std::to_string(bits));
    if (bits % 8 != 0) out.fail(at, what + ": sub-byte elements are not modelled");
    const bool smem_is_src = side == Side::Src;
    if constexpr (Info::kind == Kind::Matrix || Info::kind == Kind::AsyncCopy)
      if (smem_is_src != Info::load)
        out.fail(at, what + std::string(": this operation ") + (Info::load ? "reads" : "writes") +
                         " shared memory, so the buffer is its " + (Info::load ? "source (Side::Src)" : "destination (Side::Dst)"));

    // One instruction's values, per thread.
    int64_t num_val = 0;
    std::string instr;
    if constexpr (Info::kind == Kind::Matrix) {
      num_val = smem_is_src ? Atom::NumValSrc : Atom::NumValDst;
      instr = std::string(Info::load ? "ldmatrix" : "stmatrix") + ".x" + std::to_string(Info::matrices) + (Info::trans ? ".trans" : "");
    } else if constexpr (Info::kind == Kind::AsyncCopy) {
      num_val = Atom::NumValDst;
      instr = std::string(Info::cache_global ? "cp.async.cg." : "cp.async.ca.") + std::to_string(Info::bits / 8);
    } else if constexpr (Info::kind == Kind::PerLane) {
      num_val = smem_is_src ? Atom::NumValSrc : Atom::NumValDst;
      const char* i = per_lane_instr(Info::bits, smem_is_src);
      if (!i) out.fail(at, what + ": " + std::to_string(Info::bits) + "-bit accesses per lane are not shared-memory instructions");
      instr = i;
    } else {  // AutoVector: the width cute::copy picks for these very tensors
      if constexpr (std::is_same_v<Other, NoOther>) {
        out.fail(at, what + ": an auto-vectorizing copy takes its width from both of its tensors; pass the register-side "
                            "tensor's per-thread layout (e.g. thr_copy.retile_D(frag).layout()) to emit_access");
      } else {
        auto smem = cute::make_tensor(fake_smem_ptr<T>(), buf.layout);
        auto thr = tiled_copy.get_thread_slice(0);
        auto smem_part = smem_is_src ? thr.partition_S(smem) : thr.partition_D(smem);
        auto regs = cute::make_tensor(cute::make_rmem_ptr(static_cast<T*>(nullptr)), other);
        constexpr int max_vec_bits = Info::max_vec_bits;
        auto vec = [&](const auto& src, const auto& dst) {
          constexpr int common_elem = CUTE_STATIC_V(cute::max_common_vector(src, dst));
          if constexpr (common_elem > 1) {
            constexpr int align_bits = CUTE_STATIC_V(cute::gcd(cute::max_alignment(src), cute::max_alignment(dst), cute::Int<max_vec_bits>{}));
            constexpr int vec_bits = cute::gcd(common_elem * bits, align_bits);
            if constexpr (vec_bits % 8 == 0 && bits < vec_bits) return vec_bits / bits;
            else return 1;
          } else {
            return 1;
          }
        };
        num_val = smem_is_src ? vec(smem_part, regs) : vec(regs, smem_part);
        const char* i = per_lane_instr(int(num_val) * bits, smem_is_src);
        if (!i) out.fail(at, what + ": a vector of " + std::to_string(num_val * bits) + " bits is not a shared-memory instruction");
        instr = i;
      }
    }

    std::vector<Leaf> map;
    // (Thr, (AtomVal, FrgX), (Rest...)) -> index of the smem tile, column-major over its shape.
    auto ref = cute::make_layout(cute::shape(inner_layout(buf.layout)));
    if (smem_is_src) lane_map(out, what, instr, buf, TiledCopy::tidfrg_S(ref), num_val, map, at);
    else lane_map(out, what, instr, buf, TiledCopy::tidfrg_D(ref), num_val, map, at);
    std::vector<Leaf> shown;
    for (const Leaf& l : map)
      if (l.extent != 1) shown.push_back(l);
    if (shown.empty()) shown.push_back(Leaf{1, 0});
    std::ostringstream s;
    s << "access " << name << ": " << buf.name << ' ' << instr << " lanes ";
    put_leaves(s, shown);
    out.statement(s.str(), at);
    if (opts.max_wavefronts > 0) out.statement("expect " + name + " wavefronts <= " + std::to_string(opts.max_wavefronts), at);
    else if (opts.expect_conflict_free) out.statement("expect " + name + " conflict-free", at);
  }
}

}  // namespace detail

/// `access NAME: BUFFER INSTR lanes MAP`: every warp of `tiled_copy` reading (Side::Src) or
/// writing (Side::Dst) `buf`, one issue per (FrgX, Rest...) index and warp.
template <class T, class L, class TiledCopy>
void emit_access(Emitter& out, const std::string& name, const Smem<T, L>& buf, const TiledCopy& tiled_copy, Side side,
                 const AccessOptions& opts = {}, Origin at = Origin::current()) {
  detail::emit_access_impl(out, name, buf, tiled_copy, side, detail::NoOther{}, opts, at);
}

/// The same for an auto-vectorizing copy (DefaultCopy, AutoVectorizingCopy), whose width
/// cute::copy takes from max_common_vector of both tensors: `other` is the per-thread layout of
/// the register side as passed to copy (e.g. thr_copy.retile_D(frag).layout()).
template <class T, class L, class TiledCopy, class OtherLayout>
void emit_access(Emitter& out, const std::string& name, const Smem<T, L>& buf, const TiledCopy& tiled_copy, Side side,
                 const OtherLayout& other, const AccessOptions& opts = {}, Origin at = Origin::current()) {
  detail::emit_access_impl(out, name, buf, tiled_copy, side, other, opts, at);
}

/// Which operand of an MMA.
enum class Operand { A, B };

namespace detail {

template <class FrgType>
struct gmma_major {
  static constexpr bool is_desc = false;
};
template <cute::SM90::GMMA::Major M>
struct gmma_major<cute::SM90::GMMA::smem_desc<M>> {
  static constexpr bool is_desc = true, umma = false;
  static constexpr bool k_major = M == cute::SM90::GMMA::Major::K;
};
template <cute::UMMA::Major M>
struct gmma_major<cute::UMMA::smem_desc<M>> {
  static constexpr bool is_desc = true, umma = true;
  static constexpr bool k_major = M == cute::UMMA::Major::K;
};

// The swizzle of a descriptor CuTe built, in the annotation's words
// (cute/arch/mma_sm90_desc.hpp LayoutType, cute/arch/mma_sm100_desc.hpp LayoutType).
inline const char* desc_swizzle(const cute::GmmaDescriptor& d) {
  switch (cute::SM90::GMMA::LayoutType(d.bitfield.layout_type_)) {
    case cute::SM90::GMMA::LayoutType::INTERLEAVE: return "none";
    case cute::SM90::GMMA::LayoutType::B32: return "32B";
    case cute::SM90::GMMA::LayoutType::B64: return "64B";
    case cute::SM90::GMMA::LayoutType::B128: return "128B";
  }
  return nullptr;
}
inline const char* desc_swizzle(const cute::UMMA::SmemDescriptor& d) {
  switch (cute::UMMA::LayoutType(d.layout_type_)) {
    case cute::UMMA::LayoutType::SWIZZLE_NONE: return "none";
    case cute::UMMA::LayoutType::SWIZZLE_32B: return "32B";
    case cute::UMMA::LayoutType::SWIZZLE_64B: return "64B";
    case cute::UMMA::LayoutType::SWIZZLE_128B: return "128B";
    case cute::UMMA::LayoutType::SWIZZLE_128B_BASE32B: return "128B_base32B";
  }
  return nullptr;
}

}  // namespace detail

/// `wgmma|tcgen05 desc BUFFER swizzle MODE major K|MN`: the descriptor CuTe builds for a wgmma or
/// tcgen05.mma operand read from shared memory (make_gmma_desc, cute/atom/mma_traits_sm90_gmma.hpp;
/// make_umma_desc, cute/atom/mma_traits_sm100.hpp), which also static_asserts that the buffer is a
/// canonical GMMA/UMMA layout. `buf`'s layout is one stage:
///   layoutproof::emit_mma_operand<layoutproof::Operand::A>(out, sA, tiled_mma);
template <Operand operand, class T, class L, class TiledMMA>
void emit_mma_operand(Emitter& out, const Smem<T, L>& buf, const TiledMMA& tiled_mma, Origin at = Origin::current()) {
  using Traits = typename TiledMMA::Atom::Traits;
  using FrgA = typename Traits::FrgTypeA;
  using FrgB = typename Traits::FrgTypeB;
  auto smem = cute::make_tensor(detail::fake_smem_ptr<T>(), buf.layout);
  auto thr = tiled_mma.get_slice(0);
  auto emit = [&](auto major_tag, const auto& frag) {
    using M = decltype(major_tag);
    const char* swizzle = detail::desc_swizzle(*frag.data());
    if (!swizzle) out.fail(at, "the descriptor CuTe built for '" + buf.name + "' has an unknown layout type");
    out.statement(std::string(M::umma ? "tcgen05" : "wgmma") + " desc " + buf.name + " swizzle " + swizzle + " major " +
                      (M::k_major ? "K" : "MN"),
                  at);
  };
  // A wgmma operand is an (M,K) tile CuTe partitions; a tcgen05 operand is already MMA-shaped
  // ((MmaA, NumMma_M, NumMma_K), UMMA::tile_to_mma_shape) and only gets its descriptors.
  if constexpr (operand == Operand::A) {
    if constexpr (detail::gmma_major<FrgA>::is_desc && detail::gmma_major<FrgA>::umma)
      emit(detail::gmma_major<FrgA>{}, thr.make_fragment_A(smem));
    else if constexpr (detail::gmma_major<FrgA>::is_desc) emit(detail::gmma_major<FrgA>{}, thr.partition_fragment_A(smem));
    else out.fail(at, "operand A of this MMA is read from registers, not through a shared-memory descriptor; emit the copy "
                      "that fills its registers (emit_access with make_tiled_copy_A)");
  } else {
    if constexpr (detail::gmma_major<FrgB>::is_desc && detail::gmma_major<FrgB>::umma)
      emit(detail::gmma_major<FrgB>{}, thr.make_fragment_B(smem));
    else if constexpr (detail::gmma_major<FrgB>::is_desc) emit(detail::gmma_major<FrgB>{}, thr.partition_fragment_B(smem));
    else out.fail(at, "operand B of this MMA is read from registers, not through a shared-memory descriptor; emit the copy "
                      "that fills its registers (emit_access with make_tiled_copy_B)");
  }
}

/// Which way a TMA copy moves data.
enum class TmaDirection { Load, Store };

/// `tma load|store NAME: BUFFER box (D0, ...) swizzle MODE`: the box and swizzle CuTe's
/// make_tma_copy(op, gmem_tensor, smem_layout) computes for `buf` and a global tensor of
/// `gmem_layout` (cute/atom/copy_traits_sm90_tma.hpp: construct_tma_gbasis gives boxDim[i] =
/// size<i>(tma_gbasis), innermost first; get_tma_swizzle_bits the swizzle), with the CTA tile
/// make_tma_copy's default, product_each(shape(smem_layout)), and no multicast. The tensor map
/// itself is encoded only on a device build; nothing here needs a GPU.
template <class T, class L, class GLayout>
void emit_tma(Emitter& out, const std::string& name, const Smem<T, L>& buf, const GLayout& gmem_layout,
              TmaDirection direction, Origin at = Origin::current()) {
  auto gtensor = cute::make_tensor(cute::make_gmem_ptr(reinterpret_cast<const T*>(detail::kFakeBase)), gmem_layout);
  auto cta_tiler = cute::product_each(cute::shape(buf.layout));
  auto cta_v_map = cute::make_identity_layout(cute::shape(gtensor)).compose(cta_tiler);
  auto gbasis = cute::detail::construct_tma_gbasis<T>(gtensor, cute::get_nonswizzle_portion(buf.layout), cta_v_map);
  std::string box;
  cute::for_each(cute::make_seq<decltype(cute::rank(gbasis))::value>{}, [&](auto i) {
    box += (i > 0 ? ", " : "") + std::to_string(int64_t(cute::size<i>(gbasis)));
  });
  using Sw = decltype(cute::get_swizzle_portion(buf.layout));
  std::string swizzle;
  if constexpr (Sw::num_base == 4) {
    switch (cute::detail::get_tma_swizzle_bits(Sw{})) {
      case cute::TMA::SmemSwizzleBits::DISABLE: swizzle = "none"; break;
      case cute::TMA::SmemSwizzleBits::B32: swizzle = "32B"; break;
      case cute::TMA::SmemSwizzleBits::B64: swizzle = "64B"; break;
      case cute::TMA::SmemSwizzleBits::B128: swizzle = "128B"; break;
    }
  } else {
    out.fail(at, "TMA copy '" + name + "': the buffer's swizzle Swizzle<" + std::to_string(Sw::num_bits) + "," +
                     std::to_string(Sw::num_base) + "," + std::to_string(Sw::num_shft) +
                     "> is a 128-byte swizzle with 32-byte atoms, which `tma` annotations do not express");
  }
  out.statement(std::string("tma ") + (direction == TmaDirection::Load ? "load " : "store ") + name + ": " + buf.name +
                    " box (" + box + ") swizzle " + swizzle,
                at);
}

}  // namespace layoutproof
