#include "solver/F2Layout.h"

#include <fmt/format.h>

namespace lp {

namespace {

int log2_exact(int64_t v) {
  if (v < 1 || (v & (v - 1))) return -1;
  return __builtin_ctzll(static_cast<uint64_t>(v));
}

uint64_t apply_swizzle_bits(uint64_t v, const Swizzle& s) {
  uint64_t y = v & static_cast<uint64_t>(s.source_mask());
  return v ^ (s.shift() >= 0 ? (y >> s.shift()) : (y << -s.shift()));
}

// Highest bit any reachable value on this axis may set: union of column and constant bits.
uint64_t support(const std::vector<F2Vec>& cols, const F2Vec& constant, size_t axis) {
  uint64_t u = constant[axis];
  for (const F2Vec& c : cols) u |= c[axis];
  return u;
}

}  // namespace

size_t F2Layout::coord_bits() const {
  size_t n = 0;
  for (int b : mode_bits) n += static_cast<size_t>(b);
  return n;
}

std::vector<int64_t> F2Layout::coord_of(const std::vector<bool>& bits) const {
  std::vector<int64_t> c(mode_bits.size(), 0);
  size_t at = 0;
  for (size_t k = 0; k < mode_bits.size(); ++k)
    for (int j = 0; j < mode_bits[k]; ++j, ++at)
      if (bits[at]) c[k] |= int64_t{1} << j;
  return c;
}

int64_t F2Layout::replica_of(const Layout& layout, const std::vector<bool>& bits) const {
  size_t at = coord_bits();
  int64_t combo = 0;
  for (size_t t = 0; t < replica_bits.size(); ++t) {
    int64_t r = 0;
    for (int j = 0; j < replica_bits[t]; ++j, ++at)
      if (bits[at]) r |= int64_t{1} << j;
    combo = combo * layout.replicas()[t].extent + r;  // row-major, as Layout::images orders them
  }
  return combo;
}

std::optional<F2Layout> to_f2(const Layout& layout, std::string* why_not) {
  auto fail = [&](std::string why) -> std::optional<F2Layout> {
    if (why_not) *why_not = std::move(why);
    return std::nullopt;
  };
  if (!layout.has_domain()) return fail("the layout has no domain");
  const size_t words = layout.axes().size();
  F2Layout f;
  f.constant.assign(words, 0);
  for (size_t a = 0; a < words; ++a) {
    if (layout.offset()[a] < 0) return fail("a negative offset is not a bit pattern");
    f.constant[a] = static_cast<uint64_t>(layout.offset()[a]);
  }
  auto add_iter = [&](int64_t extent, const Point& stride, std::vector<int>& bits_out) -> bool {
    int b = log2_exact(extent);
    if (b < 0) {
      if (why_not) *why_not = fmt::format("extent {} is not a power of two", extent);
      return false;
    }
    bits_out.push_back(b);
    for (int j = 0; j < b; ++j) {
      F2Vec col(words, 0);
      for (size_t a = 0; a < words; ++a) {
        int64_t s = stride[a];
        if (s == 0) continue;
        int sb = log2_exact(s);
        if (sb < 0 || sb + j > 62) {
          if (why_not) *why_not = fmt::format("stride {} is not a non-negative power of two", s);
          return false;
        }
        col[a] = uint64_t{1} << (sb + j);
      }
      f.cols.push_back(std::move(col));
    }
    return true;
  };
  for (const Mode& m : layout.modes())
    if (!add_iter(m.extent, m.stride, f.mode_bits)) return std::nullopt;
  for (const Replica& r : layout.replicas())
    if (!add_iter(r.extent, r.stride, f.replica_bits)) return std::nullopt;
  // Carry-free: on every axis the columns and the constant use pairwise disjoint bits, so
  // every sum of the affine core is an XOR.
  for (size_t a = 0; a < words; ++a) {
    uint64_t used = f.constant[a];
    for (const F2Vec& c : f.cols) {
      if (used & c[a]) return fail(fmt::format("contributions on axis '{}' overlap (addition would carry)",
                                               layout.axes()[a].spelling()));
      used |= c[a];
    }
  }
  if (layout.stages().empty()) return f;
  size_t m = *layout.axis_index(Axis::memory());
  for (const Stage& st : layout.stages()) {
    switch (st.kind) {
      case Stage::Kind::AddOffset: {
        if (st.offset < 0) return fail("a negative composed offset is not a bit pattern");
        if (support(f.cols, f.constant, m) & static_cast<uint64_t>(st.offset))
          return fail("a composed offset overlaps the bits it is added to (addition would carry)");
        f.constant[m] |= static_cast<uint64_t>(st.offset);
        break;
      }
      case Stage::Kind::Swizzle: {
        if ((support(f.cols, f.constant, m) >> (Swizzle::kMaxBit - 1)) != 0)
          return fail("values too wide for the swizzle");
        for (F2Vec& c : f.cols) c[m] = apply_swizzle_bits(c[m], st.swizzle);
        f.constant[m] = apply_swizzle_bits(f.constant[m], st.swizzle);
        break;
      }
      case Stage::Kind::ByteSwizzle: {
        int lb = log2_exact(st.element_bits / 8);
        if (st.element_bits < 8 || lb < 0) return fail("a byte swizzle on sub-byte elements is not handled by F2");
        if (st.swizzle.dest_mask() & ((int64_t{1} << lb) - 1))
          return fail("the byte swizzle changes bits inside an element");
        if ((support(f.cols, f.constant, m) >> (62 - lb)) != 0) return fail("byte addresses exceed 62 bits");
        auto bytewise = [&](uint64_t v) { return apply_swizzle_bits(v << lb, st.swizzle) >> lb; };
        for (F2Vec& c : f.cols) c[m] = bytewise(c[m]);
        f.constant[m] = bytewise(f.constant[m]);
        break;
      }
      case Stage::Kind::F2Linear: {
        // Linear over F2 by definition; the high bits pass through, so every value stays
        // non-negative below 2^62 when the inputs and columns do.
        if ((support(f.cols, f.constant, m) >> F2Map::kMaxBits) != 0) return fail("values too wide for the F2 map");
        auto through = [&](uint64_t v) { return static_cast<uint64_t>(st.f2.apply(static_cast<int64_t>(v))); };
        for (F2Vec& c : f.cols) c[m] = through(c[m]);
        f.constant[m] = through(f.constant[m]);
        break;
      }
      case Stage::Kind::Outer: {
        // A(m) for an m that is an XOR of input bits: each bit of m lands in one mode's
        // coordinate (power-of-two extents; the last mode takes every bit above), scaled by a
        // power-of-two stride. Where the bits m can set land on disjoint bits, A is XOR-linear.
        const uint64_t reach = support(f.cols, f.constant, m);
        const std::vector<Mode>& modes = st.outer->modes();
        std::vector<uint64_t> image_of_bit(64, 0);
        uint64_t used = 0;
        int bit = 0;
        for (size_t k = 0; k < modes.size() && bit < 64; ++k) {
          const bool last = k + 1 == modes.size();
          const int width = last ? 64 - bit : log2_exact(modes[k].extent);
          if (width < 0) return fail(fmt::format("the outer layout's extent {} is not a power of two", modes[k].extent.count()));
          const int64_t stride = modes[k].stride[0];
          const int sb = stride == 0 ? 0 : log2_exact(stride);
          for (int j = 0; j < width; ++j, ++bit) {
            if (!(reach >> bit & 1) || stride == 0) continue;
            if (sb < 0 || sb + j > 62)
              return fail(fmt::format("the outer layout's stride {} is not a non-negative power of two", stride));
            const uint64_t col = uint64_t{1} << (sb + j);
            if (used & col) return fail("the outer layout's contributions overlap (addition would carry)");
            used |= col;
            image_of_bit[static_cast<size_t>(bit)] = col;
          }
        }
        auto through = [&](uint64_t v) {
          uint64_t out = 0;
          for (int b = 0; b < 64; ++b)
            if (v >> b & 1) out ^= image_of_bit[static_cast<size_t>(b)];
          return out;
        };
        for (F2Vec& c : f.cols) c[m] = through(c[m]);
        f.constant[m] = through(f.constant[m]);
        break;
      }
    }
  }
  return f;
}

// ---------------------------------------------------------------------------------------------

namespace {

std::optional<size_t> leading_bit(const F2Vec& v) {
  for (size_t w = v.size(); w-- > 0;)
    if (v[w]) return w * 64 + (63 - static_cast<size_t>(__builtin_clzll(v[w])));
  return std::nullopt;
}

void xor_into(F2Vec& a, const F2Vec& b) {
  for (size_t i = 0; i < a.size(); ++i) a[i] ^= b[i];
}

void set_bit(std::vector<uint64_t>& bits, size_t i) {
  if (bits.size() <= i / 64) bits.resize(i / 64 + 1, 0);
  bits[i / 64] |= uint64_t{1} << (i % 64);
}

std::vector<size_t> ids_of(const std::vector<uint64_t>& bits) {
  std::vector<size_t> out;
  for (size_t w = 0; w < bits.size(); ++w)
    for (size_t b = 0; b < 64; ++b)
      if (bits[w] >> b & 1) out.push_back(w * 64 + b);
  return out;
}

void xor_bits(std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  if (a.size() < b.size()) a.resize(b.size(), 0);
  for (size_t i = 0; i < b.size(); ++i) a[i] ^= b[i];
}

}  // namespace

std::optional<std::vector<size_t>> F2Basis::insert(const F2Vec& v, size_t id) {
  F2Vec r = v;
  std::vector<uint64_t> combo;
  set_bit(combo, id);
  // Rows are kept with distinct pivots, highest first; reduce greedily.
  for (const Row& row : rows_) {
    size_t w = row.pivot / 64, b = row.pivot % 64;
    if (r[w] >> b & 1) {
      xor_into(r, row.v);
      xor_bits(combo, row.combo);
    }
  }
  auto lead = leading_bit(r);
  if (!lead) return ids_of(combo);
  Row nr{r, *lead, combo};
  auto pos = rows_.begin();
  while (pos != rows_.end() && pos->pivot > *lead) ++pos;
  rows_.insert(pos, std::move(nr));
  return std::nullopt;
}

std::pair<F2Vec, std::vector<size_t>> F2Basis::max_from(F2Vec c) const {
  c.resize(words_, 0);
  std::vector<uint64_t> combo;
  for (const Row& row : rows_) {
    size_t w = row.pivot / 64, b = row.pivot % 64;
    if (!(c[w] >> b & 1)) {
      xor_into(c, row.v);
      xor_bits(combo, row.combo);
    }
  }
  return {std::move(c), ids_of(combo)};
}

bool F2Basis::contains(const F2Vec& v, std::vector<size_t>* combo_out) const {
  F2Vec r = v;
  std::vector<uint64_t> combo;
  for (const Row& row : rows_) {
    size_t w = row.pivot / 64, b = row.pivot % 64;
    if (r[w] >> b & 1) {
      xor_into(r, row.v);
      xor_bits(combo, row.combo);
    }
  }
  if (leading_bit(r)) return false;
  if (combo_out) *combo_out = ids_of(combo);
  return true;
}

}  // namespace lp
