#pragma once
// What a buffer's layout says about its swizzle, in the terms TMA and the MMA descriptors use:
// the byte-address swizzle it amounts to, and the period of the absolute address bits it reads.
#include <optional>

#include "frontend/annotate/Statement.h"
#include "analyzer/ir/Layout.h"
#include "analyzer/ir/Print.h"
#include "hw/TmaSwizzle.h"

namespace lp::rules {

/// The address pattern a layout declares: a byte-address swizzle, none, or an F2-linear map that
/// no CuTe swizzle equals (which no TMA mode or MMA descriptor applies).
struct DeclaredSwizzle {
  std::optional<Swizzle> swizzle;
  std::optional<F2Map> other;
  bool operator==(const std::optional<Swizzle>& used) const { return !other && swizzle == used; }
};

/// The layout's swizzle as a swizzle of byte addresses of `element_bytes`-byte elements: a
/// byte swizzle as written, an element swizzle Sw<B,M,S> (or an F2 map equal to one) as
/// Sw<B, M + log2(bytes), S>. None without a (non-identity) swizzle. Several swizzle stages: the
/// outermost. Swizzles before an outer layout (A o Sw o B) act on A's index, not on addresses:
/// they are not the address swizzle.
inline DeclaredSwizzle byte_swizzle_of(const Layout& l, int element_bytes) {
  int shift = 0;
  while ((1 << shift) < element_bytes) ++shift;
  const auto address_stages = l.stages().begin() + static_cast<std::ptrdiff_t>(l.address_stages_begin());
  for (auto it = l.stages().rbegin(); it != std::make_reverse_iterator(address_stages); ++it) {
    if (it->kind == Stage::Kind::AddOffset) continue;
    Swizzle sw = it->swizzle;
    if (it->kind == Stage::Kind::F2Linear) {
      const std::optional<Swizzle> same = it->f2.as_swizzle();
      if (!same) return {std::nullopt, it->f2};
      sw = *same;
    }
    if (sw.is_identity()) continue;
    if (it->kind == Stage::Kind::ByteSwizzle) return {sw, std::nullopt};
    return {Swizzle(sw.bits(), sw.base() + shift, sw.shift()), std::nullopt};
  }
  return {};
}

inline std::string swizzle_text(const std::optional<Swizzle>& s) { return s ? lp::swizzle_text(*s) : "no swizzle"; }

/// The swizzle a TMA copy or an MMA descriptor statement applies to its buffer.
struct SwizzleUse {
  hw::SmemSwizzle mode = hw::SmemSwizzle::None;
  bool atom_32b = false;  ///< tcgen05's 128B mode with 32-byte atoms (`128B_base32B`)
  SourceLoc loc;          ///< the `swizzle MODE` clause
  std::string who;        ///< "TMA load", "wgmma descriptor", ...
  bool tma = false;

  /// The mode as annotations write it.
  std::string mode_name() const { return atom_32b ? "128B_base32B" : std::string(hw::swizzle_name(mode)); }
  /// The byte swizzle the operation applies (nullopt for none).
  std::optional<Swizzle> byte_swizzle() const {
    if (mode == hw::SmemSwizzle::None) return std::nullopt;
    return hw::cute_byte_swizzle(mode, atom_32b);
  }
};

/// Nullopt for statements that are neither a TMA copy nor a descriptor.
inline std::optional<SwizzleUse> swizzle_use(const annotate::Statement& s) {
  if (auto* t = std::get_if<annotate::TmaDecl>(&s.body))
    return SwizzleUse{t->swizzle.mode, t->swizzle.atom_32b, t->swizzle.loc,
                      t->direction == annotate::TmaDirection::Load ? "TMA load" : "TMA store", true};
  if (auto* d = std::get_if<annotate::DescDecl>(&s.body))
    return SwizzleUse{d->swizzle.mode, d->swizzle.atom_32b, d->swizzle.loc,
                      d->kind == annotate::DescKind::Wgmma ? "wgmma descriptor" : "tcgen05 descriptor", false};
  return std::nullopt;
}

}  // namespace lp::rules
