#pragma once
// The layout IR: one representation for CuTe layouts, TIRx TileLayouts and descriptors (docs/notations.md).
//
// A Layout is a function from a logical index to a set of points in a codomain spanned by axes.
// It has three parts, applied in this order:
//
//   1. The affine core (CuTe's shape:stride, TIRx's shard D). A list of modes (extent, stride
//      vector), grouped by a nesting tree. A 1-D index i is split across the modes in the
//      layout's IndexOrder: Colex (CuTe: first mode fastest) or RowMajor (TIRx: last mode
//      fastest). The base point is sum_k c_k * stride_k.
//   2. The offset (TIRx O / `+ n@axis` terms) and the replicas (TIRx R): the images of i are
//      base + offset + sum_t r_t * stride_t for every r in prod_t [0, extent_t).
//   3. Post stages on the memory axis `m`, innermost first: constant offsets, F2-linear maps
//      (`F2[c0,c1,...] o O o L`: Triton's linear layouts, analyzer/ir/F2Map.h), swizzles
//      (CuTe's `Sw<B,M,S> o O o L`, TIRx's ComposeLayout, and the byte-address form
//      `Sw<3,4,3> o smem_ptr[16b](unset) o L`, which swizzles byte addresses of the elements),
//      and outer layouts: CuTe's ComposedLayout<A, O, B> = A o O o B with a layout A, whose
//      index is B's value after the stages before it. The affine core is then B (it defines the
//      domain) and A is a stage: A's own affine core is applied to an index that went through
//      offsets and swizzles first (a layout with pre-stages), evaluated as CuTe evaluates A,
//      also past A's size.
//
// The top-level children of the nesting tree are the logical dimensions: CuTe's top-level
// modes, TIRx's logical shape. Changing the IndexOrder (Layout::with_order) reverses the leaves
// inside every top-level dimension, which keeps the function of the logical *coordinate* and
// changes the order of the 1-D index. That is how CuTe (8,16):(16,1) and TIRx S[(8,16):(16,1)]
// are the same layout of an 8x16 tile.
//
// Invariants (checked by Layout::make, which throws LayoutError otherwise):
//   - axes are distinct; every stride, replica stride and the offset have axes().size() entries;
//   - extents are >= 1, or unknown (Extent::unknown(): a stride-only descriptor); replica extents are >= 1;
//   - size (product of extents) fits in int64; the nesting tree has exactly modes().size() leaves;
//   - basis axes form a consistent tree (no basis path is a proper prefix of another);
//   - post stages exist only when the codomain has the memory axis `m`;
//   - an outer layout stage holds a plain scalar CuTe layout (plain_cute_problem is empty,
//     is_scalar(), colexicographic), and a layout with one is scalar itself.
#include <concepts>
#include <memory>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyzer/ir/Axis.h"
#include "analyzer/ir/F2Map.h"
#include "analyzer/ir/Swizzle.h"
#include "analyzer/support/Error.h"

namespace lp {

/// Raised for an invalid layout or an evaluation outside a layout's domain.
class LayoutError : public Error {
 public:
  explicit LayoutError(const std::string& what) : Error(what) {}
};

enum class IndexOrder { Colex, RowMajor };

/// A mode's extent: a count >= 1 (Layout::make checks it), or unknown: a stride-only descriptor
/// leaf, whose domain is not written. Read as a number only where the layout has a domain
/// (Layout::has_domain); reading an unknown extent throws LayoutError rather than giving a count.
class Extent {
 public:
  constexpr Extent(int64_t count = 1) : count_(count) {}  // NOLINT: an extent is a count
  static constexpr Extent unknown() {
    Extent e;
    e.count_.reset();
    return e;
  }
  constexpr bool known() const { return count_.has_value(); }
  /// The count. Throws LayoutError for an unknown extent.
  int64_t count() const;
  operator int64_t() const { return count(); }  // NOLINT: modes with a domain are read as counts
  bool operator==(const Extent&) const = default;
  /// An unknown extent equals no count.
  template <std::integral T>
  friend bool operator==(const Extent& e, T count) {
    return e.count_ == static_cast<int64_t>(count);
  }

 private:
  std::optional<int64_t> count_;
};

/// A point of the codomain, or a displacement: one integer per axis of the owning layout.
using Point = std::vector<int64_t>;

struct Mode {
  Extent extent = 1;
  Point stride;
  bool static_extent = true;  ///< CuTe `_4` (static) vs `4` (dynamic); printing only
  bool static_stride = true;

  bool operator==(const Mode&) const = default;
};

/// The nesting of modes. A leaf stands for the next mode in left-to-right order.
struct Nest {
  bool leaf = true;
  std::vector<Nest> children;

  static Nest make_leaf() { return Nest{}; }
  static Nest tuple(std::vector<Nest> c) { return Nest{false, std::move(c)}; }
  /// A tuple of n leaves, e.g. CuTe's (_8,_64) or TIRx's S[(8,2,4,2):...].
  static Nest flat(size_t n);
  size_t leaf_count() const;
  size_t depth() const;  ///< 0 for a leaf
  bool operator==(const Nest&) const = default;
};

struct Replica {
  int64_t extent = 1;
  Point stride;

  bool operator==(const Replica&) const = default;
};

class Layout;

/// A post stage applied to the memory coordinate `m` after the affine part.
struct Stage {
  enum class Kind {
    AddOffset,    ///< m += offset (the O of CuTe's `Sw o O o L`)
    Swizzle,      ///< m = swizzle(m), on element offsets
    ByteSwizzle,  ///< m = swizzle(m * bytes) / bytes, bytes = element_bits / 8: `smem_ptr[Nb]`
    Outer,        ///< m = outer(m), CuTe's evaluation of a layout (also past its size): the A of A o O o B
    F2Linear,     ///< m = f2(m): an XOR of columns per set low bit, the high bits passing through
  };
  Kind kind = Kind::AddOffset;
  int64_t offset = 0;
  bool static_offset = true;
  lp::Swizzle swizzle;
  int element_bits = 0;  ///< ByteSwizzle only: 8, 16, 32, 64 or 128
  std::shared_ptr<const Layout> outer;  ///< Outer only: a plain scalar colexicographic layout
  F2Map f2;                             ///< F2Linear only

  static Stage add_offset(int64_t offset, bool static_offset = true);
  static Stage swizzled(const lp::Swizzle& sw);
  static Stage byte_swizzled(const lp::Swizzle& sw, int element_bits);
  static Stage outer_layout(const Layout& outer);
  static Stage f2_linear(F2Map map);

  /// Outer stages compare by their layouts' parts, not by pointer.
  bool operator==(const Stage& o) const;
};

/// Everything a Layout is made of, before validation.
struct LayoutParts {
  IndexOrder order = IndexOrder::Colex;
  std::vector<Axis> axes;
  std::vector<Mode> modes;
  Nest nest;
  std::vector<Replica> replicas;
  Point offset;  ///< empty means zero
  std::vector<Stage> stages;

  bool operator==(const LayoutParts&) const = default;
};

class Layout {
 public:
  /// Validates the invariants above; throws LayoutError with the reason.
  static Layout make(LayoutParts parts);

  IndexOrder order() const { return p_.order; }
  const std::vector<Axis>& axes() const { return p_.axes; }
  const std::vector<Mode>& modes() const { return p_.modes; }
  const Nest& nest() const { return p_.nest; }
  const std::vector<Replica>& replicas() const { return p_.replicas; }
  const Point& offset() const { return p_.offset; }
  const std::vector<Stage>& stages() const { return p_.stages; }
  /// True when a stage applies an outer layout (CuTe's A o O o B): the layout is pre-staged.
  bool has_outer_stage() const;
  /// The first stage after the last outer layout stage (0 without one): the stages from there on
  /// act on the final memory offset, the ones before it on an outer layout's index.
  size_t address_stages_begin() const;
  const LayoutParts& parts() const { return p_; }

  /// Index of `axis` in axes(), if present.
  std::optional<size_t> axis_index(const Axis& axis) const;
  /// True when every mode has a known extent.
  bool has_domain() const;
  /// Number of logical indices (product of extents). Throws LayoutError without a domain.
  int64_t size() const { require_domain(); return size_; }
  /// Number of replica combinations (1 without replicas).
  int64_t replica_count() const { return replica_count_; }
  /// True for a layout whose only axis is the memory axis and that has no replicas: CuTe's
  /// ordinary integer layouts, whose images are plain offsets.
  bool is_scalar() const;

  /// Per axis, CuTe's cosize of the affine core: sum over modes of (extent-1)*|stride| plus 1.
  Point cosize() const;

  /// Coordinate of 1-D index i across the modes (one entry per mode), in this layout's order.
  /// Throws LayoutError when i is outside [0, size()).
  std::vector<int64_t> split(int64_t i) const;
  /// The 1-D index of a per-mode coordinate (the inverse of split). Precondition: every entry
  /// lies in [0, extent).
  int64_t index_of(const std::vector<int64_t>& coord) const;
  /// Base point (affine core + offset, no replicas, no stages) of a per-mode coordinate.
  Point base_of(const std::vector<int64_t>& coord) const;
  /// All images of 1-D index i: one point per replica combination (row-major over replicas),
  /// after the post stages. Throws LayoutError outside the domain or beyond kMaxEnumeration
  /// replica combinations, OverflowError on overflow.
  std::vector<Point> images(int64_t i) const;
  /// CuTe's image at any integer i, also outside the domain (as CuTe evaluates L(i) past its size):
  /// a colexicographic split with truncating % and / per mode, the last mode taking the rest, then
  /// the post stages. Equals images(i)[0] inside the domain. Precondition: colexicographic order,
  /// no replicas (throws LayoutError otherwise).
  Point cute_image(int64_t i) const;
  /// The single memory offset of index i of a scalar layout (is_scalar()).
  int64_t offset_at(int64_t i) const;
  /// Applies the post stages to a memory coordinate.
  int64_t apply_stages(int64_t m) const;

  /// The same coordinate function with the 1-D index in `order` (see the file comment).
  Layout with_order(IndexOrder order) const;

 private:
  explicit Layout(LayoutParts p) : p_(std::move(p)) {}
  void require_domain() const;
  LayoutParts p_;
  int64_t size_ = 0;
  int64_t replica_count_ = 1;
  std::optional<size_t> memory_axis_;
};

/// Upper bound on the domain size that image()/preimage() will enumerate.
inline constexpr int64_t kMaxEnumeration = int64_t{1} << 24;

/// Why `layout` is not a plain CuTe layout (a domain, one image per index, no stages, no offset,
/// integer or scaled-basis strides only), the form CuTe's algebra and tilers take; nullopt when it
/// is one.
std::optional<std::string> plain_cute_problem(const Layout& layout);

/// Every distinct image of the layout, sorted. Throws LayoutError above kMaxEnumeration points.
std::vector<Point> image(const Layout& layout);
/// Every 1-D index with `target` among its images, ascending. Same limit as image().
std::vector<int64_t> preimage(const Layout& layout, const Point& target);

}  // namespace lp
