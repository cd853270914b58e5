#pragma once
// Axes of a layout's codomain. A layout maps a logical index to a point in a space spanned by
// axes: the memory axis `m`, hardware axes named in TIRx (`laneid`, `warpid`, `TLane`, ...) and
// CuTe's numbered scaled-basis axes (`_1@0`, `_1@1@0`).
#include <compare>
#include <cstdint>
#include <string>
#include <vector>

namespace lp {

enum class AxisKind {
  Storage,  ///< a place data lives: memory `m`, `reg`, TMEM `TLane`/`TCol`, scratchpad `P`/`F`, unknown names
  Thread,   ///< an executor of the data: lanes, warps, threads, warpgroups, GPUs, programs
  Basis,    ///< a CuTe scaled-basis component, identified by its path
};

/// One coordinate axis. Invariant: exactly one of `name` (named axis) and `path` (basis axis) is
/// non-empty. Basis paths are stored outermost index first: CuTe's E<0,1> (printed `_1@1@0`) has
/// path {0, 1}.
class Axis {
 public:
  static Axis named(std::string name) { return Axis(std::move(name), {}); }
  static Axis memory() { return named("m"); }
  static Axis basis(std::vector<uint32_t> path) { return Axis({}, std::move(path)); }

  bool is_basis() const { return !path_.empty(); }
  bool is_memory() const { return name_ == "m"; }
  const std::string& name() const { return name_; }
  const std::vector<uint32_t>& path() const { return path_; }
  AxisKind kind() const;

  /// `m`, `laneid`, or `@1@0` (innermost index first, as CuTe prints the basis).
  std::string spelling() const;

  auto operator<=>(const Axis&) const = default;
  bool operator==(const Axis&) const = default;

 private:
  Axis(std::string name, std::vector<uint32_t> path) : name_(std::move(name)), path_(std::move(path)) {}
  std::string name_;
  std::vector<uint32_t> path_;
};

/// The TIRx axis names with a hardware meaning. Any other name is a storage axis.
bool is_thread_axis_name(const std::string& name);

}  // namespace lp
