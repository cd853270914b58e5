#pragma once
// The GF(2) view of a layout, in the style of Triton's LinearLayout: when every extent is a
// power of two and every contribution lands on its own bits (so addition never carries), the
// image is an affine map over F2, image(x) = constant XOR (sum over set input bits of columns),
// and swizzles are linear maps on bits. Properties then reduce to ranks, decided exactly.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/ir/Layout.h"

namespace lp {

/// A vector of the codomain over F2: one 64-bit word per axis of the layout.
using F2Vec = std::vector<uint64_t>;

/// Invariants: cols.size() == sum(mode_bits) + sum(replica_bits); every vector has one word per
/// axis; for every input x in the domain, the layout's image equals constant ^ XOR of the
/// columns of x's set bits (the extraction proves this by construction: it only accepts
/// carry-free sums and bit-linear stages).
struct F2Layout {
  std::vector<int> mode_bits;     ///< log2 extent of each mode, in mode order
  std::vector<int> replica_bits;  ///< log2 extent of each replica iter
  std::vector<F2Vec> cols;        ///< mode bits first (mode 0 bit 0 first), then replica bits
  F2Vec constant;

  size_t input_bits() const { return cols.size(); }
  size_t coord_bits() const;  ///< the mode (logical element) part of the input

  /// Per-mode coordinate and replica combination index of an input bit vector.
  std::vector<int64_t> coord_of(const std::vector<bool>& bits) const;
  int64_t replica_of(const Layout& layout, const std::vector<bool>& bits) const;
};

/// The F2 form of `layout`, or nullopt with the reason in *why_not.
std::optional<F2Layout> to_f2(const Layout& layout, std::string* why_not);

/// Gaussian elimination over F2 that remembers, for each reduced vector, which inserted
/// vectors it combines (so a dependency can be reported as a witness).
class F2Basis {
 public:
  explicit F2Basis(size_t words) : words_(words) {}
  /// Reduces `v` (tagged with input id `id`) against the basis. If it reduces to zero, returns
  /// the set of ids whose XOR is zero (a dependency, including `id`); otherwise adds it.
  std::optional<std::vector<size_t>> insert(const F2Vec& v, size_t id);
  /// True if `v` lies in the span; then *combo (if given) gets the ids that sum to it.
  bool contains(const F2Vec& v, std::vector<size_t>* combo = nullptr) const;
  size_t rank() const { return rows_.size(); }
  /// The largest value (as a binary number, word words_-1 most significant) of c ^ (a sum of
  /// inserted vectors), and the ids of the vectors that reach it: going down the pivots, a row is
  /// added exactly when it sets a bit of c still clear.
  std::pair<F2Vec, std::vector<size_t>> max_from(F2Vec c) const;

 private:
  struct Row {
    F2Vec v;
    size_t pivot;                 ///< bit index (word * 64 + bit) of the leading bit
    std::vector<uint64_t> combo;  ///< bitset over input ids
  };
  size_t words_;
  std::vector<Row> rows_;
};

}  // namespace lp
