#pragma once
// The hardware model's version, for `layoutproof --version` and SARIF's tool.driver: which
// measured data sets the model in hw/ reproduces. Bump kModelVersion whenever a rule of hw/
// changes what it predicts; the digests change with the data (tests/hw's version test compares
// them with the files, so new measurements cannot ship under the old name).
#include <array>
#include <string_view>

namespace lp::hw {

inline constexpr std::string_view kModelVersion = "sm90-2026.11.24";  // partial warps: idle phases, merging

/// A measured data set the model is tested against: its path in the repository and the first 12
/// hex digits of its SHA-256.
struct MeasuredDataSet {
  std::string_view path;
  std::string_view sha256_prefix;
};

inline constexpr std::array<MeasuredDataSet, 4> kMeasuredDataSets{{
    {"tests/data/sm90_smem_wavefronts.tsv", "4da693e2642c"},     // wavefronts per instruction (ncu)
    {"tests/data/sm90_tma_box_placement.tsv", "0c4ddbb774ee"},   // where TMA puts each box element
    {"tests/data/sm90_cp_async_wavefronts.tsv", "4c5fd669dd37"},  // cp.async wavefronts (ncu)
    {"tests/data/sm90_smem_partial_warps.tsv", "0a99248d4499"},  // partial warps (ncu, replay programs)
}};

}  // namespace lp::hw
