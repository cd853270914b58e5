#include "hw/Arch.h"

#include <array>

#include "hw/HwError.h"

namespace lp::hw {

namespace {

constexpr long long kKiB = 1024;

const std::array<Arch, 3>& arches() {
  static const std::array<Arch, 3> kArches{{
      {"sm_80", 80, 32, 4, 163 * kKiB, false, LaunchLimits{}},
      {"sm_90", 90, 32, 4, 227 * kKiB, true, LaunchLimits{.max_cluster_ctas = 16}, 1 * kKiB},
      {"sm_100", 100, 32, 4, 227 * kKiB, false, LaunchLimits{.max_cluster_ctas = 16}},
  }};
  return kArches;
}

}  // namespace

std::optional<std::array<int64_t, 3>> BlockExtents::exact() const {
  if (!extent[0] || !extent[1] || !extent[2]) return std::nullopt;
  return std::array<int64_t, 3>{*extent[0], *extent[1], *extent[2]};
}

int64_t BlockExtents::known_threads() const {
  int64_t n = 1;
  for (const auto& e : extent) n *= e.value_or(1);
  return n;
}

std::string BlockExtents::text() const {
  std::string s = "(";
  for (size_t d = 0; d < 3; ++d) s += (d ? ", " : "") + (extent[d] ? std::to_string(*extent[d]) : std::string("?"));
  return s + ")";
}

const Arch& arch_by_name(std::string_view name) {
  for (const Arch& a : arches())
    if (a.name == name) return a;
  std::string known;
  for (const Arch& a : arches()) known += (known.empty() ? "" : ", ") + std::string(a.name);
  throw HwError("unknown architecture '" + std::string(name) + "' (known: " + known + ")");
}

const Arch& default_arch() { return arch_by_name(kDefaultArchName); }

const Arch& arch_for_sm(int sm) {
  const Arch* best = &arches().front();
  for (const Arch& a : arches())
    if (a.sm <= sm) best = &a;  // arches() is ordered by sm
  return *best;
}

std::vector<std::string> arch_names() {
  std::vector<std::string> names;
  for (const Arch& a : arches()) names.emplace_back(a.name);
  return names;
}

}  // namespace lp::hw
