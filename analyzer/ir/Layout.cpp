#include <bit>
#include "analyzer/ir/Layout.h"

#include <algorithm>
#include <fmt/format.h>
#include <set>

#include "analyzer/ir/Checked.h"
#include "analyzer/support/Governor.h"

namespace lp {

// ---------------------------------------------------------------------------------------------
// Axis

bool is_thread_axis_name(const std::string& name) {
  static const std::set<std::string> kThreadAxes = {
      "laneid", "warpid", "tid", "tid_in_wg", "wid_in_wg", "wgid", "gpuid_x", "gpuid_y", "pid",
      "cta_id", "ctaid", "bx", "by", "bz", "tx", "ty", "tz"};
  return kThreadAxes.count(name) != 0;
}

AxisKind Axis::kind() const {
  if (is_basis()) return AxisKind::Basis;
  return is_thread_axis_name(name_) ? AxisKind::Thread : AxisKind::Storage;
}

std::string Axis::spelling() const {
  if (!is_basis()) return name_;
  std::string s;
  for (auto it = path_.rbegin(); it != path_.rend(); ++it) s += fmt::format("@{}", *it);
  return s;
}

// ---------------------------------------------------------------------------------------------
// Swizzle

std::string Swizzle::check(int64_t bits, int64_t base, int64_t shift) {
  if (bits < 0) return fmt::format("swizzle bit count B={} must be >= 0", bits);
  if (base < 0) return fmt::format("swizzle base M={} must be >= 0", base);
  if (checked_abs(shift) < bits)
    return fmt::format("swizzle needs |S| >= B (CuTe's static_assert), got B={} S={}", bits, shift);
  // The highest bit touched is M + max(S,0) + B - 1 (source) or M - min(S,0) + B - 1 (dest).
  int64_t top = base + std::max<int64_t>(std::abs(shift), 0) + bits;
  if (base > kMaxBit || std::abs(shift) > kMaxBit || bits > kMaxBit || top > kMaxBit)
    return fmt::format("swizzle Sw<{},{},{}> touches bits above bit {}", bits, base, shift, kMaxBit);
  return {};
}

Swizzle::Swizzle(int bits, int base, int shift) : bits_(bits), base_(base), shift_(shift) {}

int64_t Swizzle::source_mask() const {
  return ((int64_t{1} << bits_) - 1) << (base_ + std::max(0, shift_));
}

int64_t Swizzle::dest_mask() const {
  return ((int64_t{1} << bits_) - 1) << (base_ - std::min(0, shift_));
}

int64_t Swizzle::period() const {
  const uint64_t mask = static_cast<uint64_t>(source_mask() | dest_mask() | 1);
  return int64_t{1} << (64 - std::countl_zero(mask));
}

int64_t Swizzle::apply(int64_t offset) const {
  if (bits_ == 0) return offset;
  uint64_t x = static_cast<uint64_t>(offset);
  uint64_t y = x & static_cast<uint64_t>(source_mask());
  uint64_t moved = shift_ >= 0 ? (y >> shift_) : (y << -shift_);
  return static_cast<int64_t>(x ^ moved);
}

// ---------------------------------------------------------------------------------------------
// F2Map

std::string F2Map::check(const std::vector<int64_t>& columns) {
  if (columns.size() > static_cast<size_t>(kMaxBits))
    return fmt::format("an F2 map reads at most {} bits; this one has {} columns", kMaxBits, columns.size());
  for (size_t k = 0; k < columns.size(); ++k)
    if (columns[k] < 0 || columns[k] >= (int64_t{1} << kMaxBits))
      return fmt::format("column {} of the F2 map is {}; columns are bit patterns in [0, 2^{})", k, columns[k],
                         kMaxBits);
  return {};
}

F2Map::F2Map(std::vector<int64_t> columns) : columns_(std::move(columns)) {}

int64_t F2Map::touched_mask() const {
  int64_t mask = columns_.empty() ? 0 : (int64_t{1} << columns_.size()) - 1;
  for (int64_t c : columns_) mask |= c;
  return mask;
}

int64_t F2Map::period() const {
  return int64_t{1} << (64 - std::countl_zero(static_cast<uint64_t>(touched_mask() | 1)));
}

int64_t F2Map::apply(int64_t offset) const {
  const uint64_t x = static_cast<uint64_t>(offset);
  const int n = bits();
  uint64_t y = n == 0 ? x : (x >> n) << n;
  for (int k = 0; k < n; ++k)
    if ((x >> k) & 1) y ^= static_cast<uint64_t>(columns_[static_cast<size_t>(k)]);
  return static_cast<int64_t>(y);
}

std::optional<Swizzle> F2Map::as_swizzle() const {
  // A swizzle moves bit k (a source bit) to k - S; every other bit maps to itself. Both are linear,
  // so they agree everywhere when they agree on each bit the map reads.
  int lo = -1, hi = -1, shift = 0;
  for (int k = 0; k < bits(); ++k) {
    const uint64_t moved = static_cast<uint64_t>(columns_[static_cast<size_t>(k)]) ^ (uint64_t{1} << k);
    if (moved == 0) continue;
    if (std::popcount(moved) != 1) return std::nullopt;
    const int s = k - std::countr_zero(moved);
    if (lo < 0) lo = k, shift = s;
    else if (k != hi + 1 || s != shift) return std::nullopt;
    hi = k;
  }
  if (lo < 0) return Swizzle(0, 0, 0);
  const int b = hi - lo + 1;
  const int m = lo - std::max(shift, 0);
  if (!Swizzle::check(b, m, shift).empty()) return std::nullopt;
  const Swizzle sw(b, m, shift);
  for (int k = 0; k < bits(); ++k)
    if (sw.apply(int64_t{1} << k) != columns_[static_cast<size_t>(k)]) return std::nullopt;
  return sw;
}

// ---------------------------------------------------------------------------------------------
// Stage

Stage Stage::add_offset(int64_t offset, bool static_offset) {
  Stage s;
  s.kind = Kind::AddOffset;
  s.offset = offset;
  s.static_offset = static_offset;
  return s;
}

Stage Stage::swizzled(const lp::Swizzle& sw) {
  Stage s;
  s.kind = Kind::Swizzle;
  s.swizzle = sw;
  return s;
}

Stage Stage::byte_swizzled(const lp::Swizzle& sw, int element_bits) {
  Stage s;
  s.kind = Kind::ByteSwizzle;
  s.swizzle = sw;
  s.element_bits = element_bits;
  return s;
}

Stage Stage::outer_layout(const Layout& outer) {
  Stage s;
  s.kind = Kind::Outer;
  s.outer = std::make_shared<const Layout>(outer);
  return s;
}

Stage Stage::f2_linear(F2Map map) {
  Stage s;
  s.kind = Kind::F2Linear;
  s.f2 = std::move(map);
  return s;
}

bool Stage::operator==(const Stage& o) const {
  if (kind != o.kind || offset != o.offset || static_offset != o.static_offset || !(swizzle == o.swizzle) ||
      element_bits != o.element_bits || !(f2 == o.f2))
    return false;
  if (!outer || !o.outer) return !outer && !o.outer;
  return outer->parts() == o.outer->parts();
}

// ---------------------------------------------------------------------------------------------
// Nest

Nest Nest::flat(size_t n) {
  std::vector<Nest> c(n, make_leaf());
  return tuple(std::move(c));
}

size_t Nest::leaf_count() const {
  if (leaf) return 1;
  size_t n = 0;
  for (const Nest& c : children) n += c.leaf_count();
  return n;
}

size_t Nest::depth() const {
  if (leaf) return 0;
  size_t d = 0;
  for (const Nest& c : children) d = std::max(d, c.depth());
  return d + 1;
}

// ---------------------------------------------------------------------------------------------
// Layout

namespace {

bool is_proper_prefix(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  return a.size() < b.size() && std::equal(a.begin(), a.end(), b.begin());
}

}  // namespace

Layout Layout::make(LayoutParts p) {
  const size_t n_axes = p.axes.size();
  for (size_t i = 0; i < n_axes; ++i)
    for (size_t j = i + 1; j < n_axes; ++j) {
      if (p.axes[i] == p.axes[j])
        throw LayoutError(fmt::format("axis '{}' is listed twice", p.axes[i].spelling()));
      const auto& a = p.axes[i];
      const auto& b = p.axes[j];
      if (a.is_basis() && b.is_basis() &&
          (is_proper_prefix(a.path(), b.path()) || is_proper_prefix(b.path(), a.path())))
        throw LayoutError(fmt::format(
            "basis '{}' and basis '{}' are impossible together: one uses a coordinate as a number, "
            "the other as a tuple",
            a.spelling(), b.spelling()));
    }
  if (p.offset.empty()) p.offset.assign(n_axes, 0);
  if (p.offset.size() != n_axes) throw LayoutError("offset does not have one entry per axis");
  if (p.nest.leaf_count() != p.modes.size())
    throw LayoutError(fmt::format("nesting has {} leaves but the layout has {} modes",
                                  p.nest.leaf_count(), p.modes.size()));
  Layout l(std::move(p));
  const LayoutParts& q = l.p_;
  int64_t size = 1;
  bool known = true;
  for (const Mode& m : q.modes) {
    if (m.stride.size() != n_axes) throw LayoutError("a stride does not have one entry per axis");
    if (!m.extent.known()) {
      known = false;
      continue;
    }
    if (m.extent < 1) throw LayoutError(fmt::format("extent {} must be >= 1", m.extent.count()));
    try {
      size = checked_mul(size, m.extent);
    } catch (const OverflowError&) {
      throw LayoutError("the layout's size (product of its extents) exceeds 2^63-1");
    }
  }
  l.size_ = known ? size : 0;
  int64_t reps = 1;
  for (const Replica& r : q.replicas) {
    if (r.stride.size() != n_axes) throw LayoutError("a replica stride does not have one entry per axis");
    if (r.extent < 1) throw LayoutError(fmt::format("replica extent {} must be >= 1", r.extent));
    try {
      reps = checked_mul(reps, r.extent);
    } catch (const OverflowError&) {
      throw LayoutError("the number of replicas exceeds 2^63-1");
    }
  }
  l.replica_count_ = reps;
  l.memory_axis_ = l.axis_index(Axis::memory());
  if (l.has_outer_stage() && !l.is_scalar())
    throw LayoutError("a layout composed after another (A o O o B) needs an integer B: memory axis only, no replicas");
  if (!q.stages.empty() && !l.memory_axis_)
    throw LayoutError("a swizzle or composed offset needs a memory axis 'm' to act on");
  bool byte_swizzled = false;
  for (const Stage& s : q.stages) {
    if (s.kind == Stage::Kind::ByteSwizzle) byte_swizzled = true;
    if (s.kind == Stage::Kind::Outer) {
      if (byte_swizzled)
        throw LayoutError("a byte-address swizzle acts on the final address (smem_ptr); no layout may be applied after it");
      if (!s.outer) throw LayoutError("an outer layout stage has no layout");
      if (auto why = plain_cute_problem(*s.outer)) throw LayoutError("an outer layout (the A of A o O o B): " + *why);
      if (!s.outer->is_scalar() || s.outer->order() != IndexOrder::Colex)
        throw LayoutError("an outer layout (the A of A o O o B) must be an integer CuTe layout");
    }
    if (s.kind == Stage::Kind::F2Linear)
      if (std::string why = F2Map::check(s.f2.columns()); !why.empty()) throw LayoutError(why);
    if (s.kind == Stage::Kind::ByteSwizzle &&
        (s.element_bits < 1 || s.element_bits > 1024 || (s.element_bits & (s.element_bits - 1))))
      throw LayoutError(fmt::format("element width {} bits is not a power of two in [1, 1024]",
                                    s.element_bits));
  }
  return l;
}

int64_t Extent::count() const {
  if (!count_) throw LayoutError("a stride-only descriptor leaf has no extent: give a shape");
  return *count_;
}

std::optional<size_t> Layout::axis_index(const Axis& axis) const {
  for (size_t i = 0; i < p_.axes.size(); ++i)
    if (p_.axes[i] == axis) return i;
  return std::nullopt;
}

bool Layout::has_domain() const {
  return std::none_of(p_.modes.begin(), p_.modes.end(),
                      [](const Mode& m) { return !m.extent.known(); });
}

void Layout::require_domain() const {
  if (!has_domain())
    throw LayoutError(
        "this layout gives strides only (a bare descriptor): its domain is unknown; give a shape, "
        "e.g. (4,8):(1@0,8@1)");
}

bool Layout::has_outer_stage() const { return address_stages_begin() != 0; }

size_t Layout::address_stages_begin() const {
  size_t begin = 0;
  for (size_t i = 0; i < p_.stages.size(); ++i)
    if (p_.stages[i].kind == Stage::Kind::Outer) begin = i + 1;
  return begin;
}

bool Layout::is_scalar() const {
  return p_.axes.size() == 1 && memory_axis_ && p_.replicas.empty();
}

Point Layout::cosize() const {
  require_domain();
  Point c(p_.axes.size(), 1);
  for (const Mode& m : p_.modes)
    for (size_t a = 0; a < c.size(); ++a)
      c[a] = checked_add(c[a], checked_mul(m.extent - 1, checked_abs(m.stride[a]), "cosize"), "cosize");
  return c;
}

std::vector<int64_t> Layout::split(int64_t i) const {
  require_domain();
  if (i < 0 || i >= size_)
    throw LayoutError(fmt::format("index {} is outside the layout's domain [0, {})", i, size_));
  const size_t n = p_.modes.size();
  std::vector<int64_t> c(n);
  if (p_.order == IndexOrder::Colex) {
    for (size_t k = 0; k < n; ++k) {
      c[k] = i % p_.modes[k].extent;
      i /= p_.modes[k].extent;
    }
  } else {
    for (size_t k = n; k-- > 0;) {
      c[k] = i % p_.modes[k].extent;
      i /= p_.modes[k].extent;
    }
  }
  return c;
}

int64_t Layout::index_of(const std::vector<int64_t>& coord) const {
  int64_t i = 0;
  const size_t n = p_.modes.size();
  if (p_.order == IndexOrder::Colex) {
    for (size_t k = n; k-- > 0;) i = i * p_.modes[k].extent + coord[k];
  } else {
    for (size_t k = 0; k < n; ++k) i = i * p_.modes[k].extent + coord[k];
  }
  return i;
}

Point Layout::base_of(const std::vector<int64_t>& coord) const {
  Point b = p_.offset;
  for (size_t k = 0; k < p_.modes.size(); ++k) {
    if (coord[k] == 0) continue;
    const Point& s = p_.modes[k].stride;
    for (size_t a = 0; a < b.size(); ++a)
      if (s[a] != 0) b[a] = checked_add(b[a], checked_mul(coord[k], s[a], "evaluation"), "evaluation");
  }
  return b;
}

int64_t Layout::apply_stages(int64_t m) const {
  for (const Stage& s : p_.stages) {
    switch (s.kind) {
      case Stage::Kind::AddOffset:
        m = checked_add(m, s.offset, "composed offset");
        break;
      case Stage::Kind::Swizzle:
        m = s.swizzle.apply(m);
        break;
      case Stage::Kind::ByteSwizzle: {
        // Swizzle the byte address; sub-byte positions ride along unchanged.
        int64_t bit_addr = checked_mul(m, s.element_bits, "byte address");
        int64_t byte = bit_addr >> 3;  // floor division, also for negative offsets
        int64_t swizzled = checked_add(checked_mul(s.swizzle.apply(byte), 8, "byte address"),
                                       bit_addr & 7, "byte address");
        if (swizzled % s.element_bits != 0)
          throw LayoutError(fmt::format(
              "byte swizzle Sw<{},{},{}> moves byte address {} to {}, which is not the start of a "
              "{}-bit element",
              s.swizzle.bits(), s.swizzle.base(), s.swizzle.shift(), byte, swizzled / 8,
              s.element_bits));
        m = swizzled / s.element_bits;
        break;
      }
      case Stage::Kind::Outer:
        m = s.outer->cute_image(m)[0];
        break;
      case Stage::Kind::F2Linear:
        m = s.f2.apply(m);
        break;
    }
  }
  return m;
}

Point Layout::cute_image(int64_t i) const {
  if (p_.order != IndexOrder::Colex || !p_.replicas.empty())
    throw LayoutError("CuTe's evaluation past the domain needs a colexicographic layout without replicas");
  if (i >= 0 && i < size()) return images(i)[0];
  std::vector<int64_t> coord(p_.modes.size(), 0);
  for (size_t k = 0; k < p_.modes.size(); ++k) {
    coord[k] = k + 1 == p_.modes.size() ? i : i % p_.modes[k].extent;
    i /= p_.modes[k].extent;
  }
  Point p = base_of(coord);
  if (memory_axis_ && !p_.stages.empty()) p[*memory_axis_] = apply_stages(p[*memory_axis_]);
  return p;
}

std::vector<Point> Layout::images(int64_t i) const {
  // One point per replica combination: a replica extent of 2^62 must not become an endless loop.
  if (replica_count_ > kMaxEnumeration)
    throw LayoutError("the layout has " + std::to_string(replica_count_) + " replica combinations; listing the images of an index is limited to " +
                      std::to_string(kMaxEnumeration));
  Point base = base_of(split(i));
  std::vector<Point> out;
  out.reserve(static_cast<size_t>(std::min<int64_t>(replica_count_, 1 << 16)));
  const size_t nr = p_.replicas.size();
  std::vector<int64_t> r(nr, 0);
  while (true) {
    Point p = base;
    for (size_t t = 0; t < nr; ++t)
      if (r[t] != 0)
        for (size_t a = 0; a < p.size(); ++a)
          p[a] = checked_add(p[a], checked_mul(r[t], p_.replicas[t].stride[a], "replica"), "replica");
    if (memory_axis_ && !p_.stages.empty()) p[*memory_axis_] = apply_stages(p[*memory_axis_]);
    out.push_back(std::move(p));
    // Next replica combination, row-major (last replica iter fastest).
    size_t t = nr;
    while (t > 0) {
      --t;
      if (++r[t] < p_.replicas[t].extent) break;
      r[t] = 0;
      if (t == 0) return out;
    }
    if (nr == 0) return out;
  }
}

int64_t Layout::offset_at(int64_t i) const {
  if (!is_scalar()) throw LayoutError("offset_at needs a scalar layout (memory axis only, no replicas)");
  return apply_stages(base_of(split(i))[0]);
}

namespace {

// Mirrors a nesting subtree: children reversed at every level, so its leaves come out reversed.
Nest mirrored(const Nest& n) {
  if (n.leaf) return n;
  std::vector<Nest> c(n.children.rbegin(), n.children.rend());
  for (Nest& x : c) x = mirrored(x);
  return Nest::tuple(std::move(c));
}

}  // namespace

Layout Layout::with_order(IndexOrder order) const {
  if (order == p_.order) return *this;
  LayoutParts q = p_;
  q.order = order;
  if (q.nest.leaf) return Layout::make(std::move(q));
  size_t first = 0;
  for (Nest& top : q.nest.children) {
    size_t n = top.leaf_count();
    std::reverse(q.modes.begin() + static_cast<ptrdiff_t>(first),
                 q.modes.begin() + static_cast<ptrdiff_t>(first + n));
    top = mirrored(top);
    first += n;
  }
  return Layout::make(std::move(q));
}

std::optional<std::string> plain_cute_problem(const Layout& in) {
  if (!in.has_domain()) return "the layout has no shape (a bare descriptor); the algebra needs a domain";
  if (!in.replicas().empty())
    return "the layout has replicas (R[...]); CuTe's algebra is defined on layouts with one image per index";
  if (!in.stages().empty())
    return "the layout is a composed layout (swizzle or offset stage); this operation takes a plain layout";
  if (std::any_of(in.offset().begin(), in.offset().end(), [](int64_t v) { return v != 0; }))
    return "the layout has a constant offset; CuTe's algebra is defined on offset-free layouts";
  for (const Axis& a : in.axes())
    if (!a.is_memory() && !a.is_basis())
      return fmt::format("the layout uses the named axis '{}'; CuTe's algebra works on integer and scaled-basis strides",
                         a.spelling());
  return std::nullopt;
}

std::vector<Point> image(const Layout& layout) {
  int64_t n = layout.size();
  if (n > kMaxEnumeration / std::max<int64_t>(1, layout.replica_count()))
    throw LayoutError(fmt::format("the domain has {} points x {} replicas, more than the {} this "
                                  "command enumerates",
                                  n, layout.replica_count(), kMaxEnumeration));
  const uint64_t points = static_cast<uint64_t>(n) * static_cast<uint64_t>(std::max<int64_t>(1, layout.replica_count()));
  reserve_memory(points * (sizeof(Point) + sizeof(int64_t) * layout.axes().size()), "every image of the layout");
  std::vector<Point> all;
  for (int64_t i = 0; i < n; ++i) {
    checkpoint();
    for (Point& p : layout.images(i)) all.push_back(std::move(p));
  }
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

std::vector<int64_t> preimage(const Layout& layout, const Point& target) {
  int64_t n = layout.size();
  if (n > kMaxEnumeration / std::max<int64_t>(1, layout.replica_count()))
    throw LayoutError(fmt::format("the domain has {} points x {} replicas, more than the {} this "
                                  "command enumerates",
                                  n, layout.replica_count(), kMaxEnumeration));
  std::vector<int64_t> out;
  for (int64_t i = 0; i < n; ++i) {
    checkpoint();
    auto imgs = layout.images(i);
    if (std::find(imgs.begin(), imgs.end(), target) != imgs.end()) out.push_back(i);
  }
  return out;
}

}  // namespace lp
