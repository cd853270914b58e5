#include "findings/Counterexample.h"

#include "findings/Finding.h"

#include <fmt/format.h>

namespace lp::rules {

namespace {

using nlohmann::json;

// Each type lists its fields once, as (JSON name, member) pairs; writing and reading both walk
// that list, so the two directions cannot drift apart.
template <class S, class F>
void fields(S& s, F&& f) {
  using T = std::remove_const_t<S>;
  if constexpr (std::is_same_v<T, PtxOrigin>) {
    f("kernel", s.kernel), f("ptx_line", s.ptx_line), f("uniforms", s.uniforms);
  } else if constexpr (std::is_same_v<T, BankConflictCex>) {
    f("issue", s.issue), f("base", s.base), f("bank", s.bank), f("words", s.words), f("wavefronts", s.wavefronts),
        f("ideal", s.ideal), f("instruction", s.instruction), f("arch", s.arch), f("lane_addresses", s.lane_addresses),
        f("lanes", s.lanes), f("addresses", s.addresses), f("coordinates", s.coordinates), f("smem_layout", s.smem_layout),
        f("lanes_layout", s.lanes_layout), f("dtype", s.dtype), f("opcode", s.opcode), f("active_lanes", s.active_lanes),
        f("ptx", s.ptx);
  } else if constexpr (std::is_same_v<T, AccessErrorCex>) {
    f("lane", s.lane), f("issue", s.issue), f("base", s.base), f("reason", s.reason), f("lane_addresses", s.lane_addresses),
        f("ptx", s.ptx);
  } else if constexpr (std::is_same_v<T, InjectivityCex>) {
    f("indices", s.indices), f("coordinates", s.coordinates), f("image", s.image), f("axes", s.axes), f("params", s.params),
        f("layout", s.layout), f("size", s.size);
  } else if constexpr (std::is_same_v<T, CoverageCex::Range>) {
    f("axis", s.axis), f("lo", s.lo), f("hi", s.hi);
  } else if constexpr (std::is_same_v<T, CoverageCex>) {
    f("uncovered", s.uncovered), f("params", s.params), f("target", s.target), f("layout", s.layout);
  } else if constexpr (std::is_same_v<T, AlgebraCex>) {
    f("expected", s.expected), f("actual", s.actual), f("result", s.result), f("index", s.index), f("coordinate", s.coordinate);
  } else if constexpr (std::is_same_v<T, SwizzleMismatchCex>) {
    f("buffer", s.buffer), f("operation_swizzle", s.operation_swizzle), f("layout_byte_swizzle", s.layout_byte_swizzle);
  } else if constexpr (std::is_same_v<T, ByteSwizzleCex>) {
    f("buffer", s.buffer), f("swizzle", s.swizzle), f("dtype", s.dtype);
  } else if constexpr (std::is_same_v<T, BaseAlignmentCex>) {
    f("buffer", s.buffer), f("align", s.align), f("required", s.required);
  } else if constexpr (std::is_same_v<T, TmaBoxCex>) {
    f("box", s.box), f("element_bytes", s.element_bytes), f("swizzle", s.swizzle), f("coordinate", s.coordinate),
        f("byte", s.byte);
  } else if constexpr (std::is_same_v<T, AsyncSectorCex>) {
    f("instruction", s.instruction), f("arch", s.arch), f("issue", s.issue), f("base", s.base),
        f("lane_addresses", s.lane_addresses), f("sectors", s.sectors), f("ideal", s.ideal), f("lanes", s.lanes),
        f("shared_sectors", s.shared_sectors), f("smem_layout", s.smem_layout), f("lanes_layout", s.lanes_layout),
        f("dtype", s.dtype);
  } else if constexpr (std::is_same_v<T, CuteDriftCex::Difference>) {
    f("coordinate", s.coordinate), f("index", s.index), f("annotation_offset", s.annotation_offset),
        f("cute_offset", s.cute_offset);
  } else if constexpr (std::is_same_v<T, ProofSummary>) {
    f("engine", s.engine), f("points", s.points), f("wavefronts", s.wavefronts), f("ideal", s.ideal), f("issues", s.issues),
        f("base_residues", s.base_residues), f("base_alignment", s.base_alignment);
  } else if constexpr (std::is_same_v<T, CuteDriftCex>) {
    f("cute_layout", s.cute_layout), f("annotation_layout", s.annotation_layout), f("difference", s.difference);
  } else {
    static_assert(sizeof(T) == 0, "a counterexample type without its field list");
  }
}

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <class T>
struct IsVector : std::false_type {};
template <class T>
struct IsVector<std::vector<T>> : std::true_type {};
template <class T, size_t N>
struct IsVector<std::array<T, N>> : std::true_type {};
template <class T>
struct IsArray : std::false_type {};
template <class T, size_t N>
struct IsArray<std::array<T, N>> : std::true_type {};
template <class T>
struct IsPair : std::false_type {};
template <class A, class B>
struct IsPair<std::pair<A, B>> : std::true_type {};

template <class T>
json write(const T& v) {
  if constexpr (std::is_same_v<T, std::string> || std::is_integral_v<T>) {
    return v;
  } else if constexpr (IsPair<T>::value) {
    return json::array({write(v.first), write(v.second)});
  } else if constexpr (IsVector<T>::value) {
    json a = json::array();
    for (const auto& x : v) a.push_back(write(x));
    return a;
  } else {
    json o = json::object();
    fields(v, [&](const char* key, const auto& m) {
      if constexpr (IsOptional<std::decay_t<decltype(m)>>::value) {
        if (m) o[key] = write(*m);
      } else {
        o[key] = write(m);
      }
    });
    return o;
  }
}

template <class T>
void read(const json& j, T& v, const std::string& where) {
  auto wrong = [&](const char* expected) { throw FindingJsonError(fmt::format("{} must be {}", where, expected)); };
  if constexpr (std::is_same_v<T, std::string>) {
    if (!j.is_string()) wrong("a string");
    v = j.get<std::string>();
  } else if constexpr (std::is_integral_v<T>) {
    if (!j.is_number_integer()) wrong("an integer");
    // In range of T: compared as 64-bit values on each side of zero.
    const bool fits = j.is_number_unsigned() || j.get<int64_t>() >= 0
                          ? j.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<T>::max())
                          : j.get<int64_t>() >= static_cast<int64_t>(std::numeric_limits<T>::min());
    if (!fits) wrong("an integer in range");
    v = j.is_number_unsigned() ? static_cast<T>(j.get<uint64_t>()) : static_cast<T>(j.get<int64_t>());
  } else if constexpr (IsPair<T>::value) {
    if (!j.is_array() || j.size() != 2) wrong("a pair [name, value]");
    read(j[0], v.first, where + "[0]");
    read(j[1], v.second, where + "[1]");
  } else if constexpr (IsVector<T>::value) {
    if (!j.is_array()) wrong("an array");
    if constexpr (IsArray<T>::value) {
      if (j.size() != v.size()) wrong(fmt::format("an array of {}", v.size()).c_str());
      for (size_t k = 0; k < v.size(); ++k) read(j[k], v[k], fmt::format("{}[{}]", where, k));
    } else {
      v.resize(j.size());
      for (size_t k = 0; k < j.size(); ++k) read(j[k], v[k], fmt::format("{}[{}]", where, k));
    }
  } else {
    if (!j.is_object()) wrong("an object");
    fields(v, [&](const char* key, auto& m) {
      const std::string at = fmt::format("{}.{}", where, key);
      auto it = j.find(key);
      using M = std::decay_t<decltype(m)>;
      if constexpr (IsOptional<M>::value) {
        if (it == j.end() || it->is_null()) return;
        typename M::value_type x{};
        read(*it, x, at);
        m = std::move(x);
      } else {
        if (it == j.end()) throw FindingJsonError(at + " is missing");
        read(*it, m, at);
      }
    });
  }
}

// The "kind" of each alternative, in the variant's order (index 0, none, has no kind).
constexpr const char* kKinds[] = {"",           "bank-conflict",  "access-error",   "injectivity",
                                  "coverage",   "algebra",        "swizzle-mismatch", "byte-swizzle",
                                  "base-alignment", "tma-box",    "async-sectors",  "cute-drift"};
static_assert(std::size(kKinds) == std::variant_size_v<Counterexample>, "a counterexample type without its kind");

template <size_t I = 1>
Counterexample read_kind(const std::string& kind, const json& j) {
  if constexpr (I == std::variant_size_v<Counterexample>) {
    throw FindingJsonError(fmt::format("counterexample: unknown \"kind\" '{}'", kind));
  } else {
    if (kind != kKinds[I]) return read_kind<I + 1>(kind, j);
    std::variant_alternative_t<I, Counterexample> c;
    read(j, c, "counterexample");
    return c;
  }
}

}  // namespace

const char* counterexample_kind(const Counterexample& c) { return kKinds[c.index()]; }

nlohmann::json to_json(const Counterexample& c) {
  return std::visit(
      [&](const auto& x) -> json {
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::monostate>) {
          return nullptr;
        } else {
          json j = write(x);
          j["kind"] = counterexample_kind(c);
          return j;
        }
      },
      c);
}

Counterexample counterexample_from_json(const nlohmann::json& j) {
  if (j.is_null()) return std::monostate{};
  if (!j.is_object()) throw FindingJsonError("counterexample must be an object or null");
  auto kind = j.find("kind");
  if (kind == j.end() || !kind->is_string())
    throw FindingJsonError("counterexample has no \"kind\" (a findings file of this version names it)");
  return read_kind(kind->get<std::string>(), j);
}

nlohmann::json to_json(const std::optional<ProofSummary>& proof) { return proof ? write(*proof) : json(nullptr); }

std::optional<ProofSummary> proof_from_json(const nlohmann::json& j) {
  if (j.is_null()) return std::nullopt;
  ProofSummary p;
  read(j, p, "proof");
  return p;
}

}  // namespace lp::rules
