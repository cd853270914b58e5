#pragma once
// Replays of findings on a GPU (docs/replay.md): one self-contained CUDA program per finding
// whose counterexample the hardware can show (LP002 bank conflicts, LP001 injectivity, LP004
// coverage), an index of every finding, and a CMakeLists.txt building them for sm_80 and sm_90a.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzer/ir/Layout.h"
#include "hw/SmemInstr.h"

namespace lp::replay {

/// Raised for a findings document that is not one `layoutproof check --format json` writes.
class ReplayError : public std::runtime_error {
 public:
  explicit ReplayError(const std::string& what) : std::runtime_error(what) {}
};

/// Where a finding is, as a replay program's comment names it.
struct FindingSite {
  std::string rule, file, message;
  int64_t line = 0, column = 0;
};

/// One finding's replay: a program (source non-empty) or the reason there is none.
struct Replay {
  size_t finding = 0;   ///< index into the document's findings
  std::string rule;     ///< "unreadable" for a finding its codec refuses (why_not says why)
  FindingSite site;     ///< where the finding is; empty for an unreadable one
  std::string name;     ///< program stem, e.g. "f00_LP002_line3"
  std::string source;   ///< the .cu text; empty when not replayed
  std::string why_not;  ///< why there is no program (source empty)
  int min_sm = 80;      ///< 90 for stmatrix: such programs build for sm_90a only
  bool profiled = false;  ///< the program reruns itself under ncu (`--ncu PATH`), or times with `--clock64`
};

/// The replay of every finding of `doc` (the JSON of `layoutproof check --format json`).
std::vector<Replay> generate_replays(const nlohmann::json& doc);

/// Writes the programs, CMakeLists.txt and README.md (the index) into `dir`.
void write_replays(const std::vector<Replay>& replays, const std::filesystem::path& dir);

// ---- pieces, public for the tests ----

/// The PTX opcode the replay of `instr` issues, e.g. "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16".
std::string ptx_opcode(const hw::SmemInstr& instr);
/// The inline-asm statement executing `instr` at `addr` (registers r0..r3, global source `src`).
std::string access_statement(const hw::SmemInstr& instr);
/// Conflict-free lane byte offsets for `instr`: contiguous accesses, one per lane (rows for ldmatrix).
std::vector<int64_t> control_addresses(const hw::SmemInstr& instr);

/// Every write of a layout, one per (index, image): `place` is the image linearised row-major
/// over the bounding box of all images (lo, extent per axis).
struct WriteTable {
  std::vector<std::string> axes;
  std::vector<int64_t> lo, extent;
  std::vector<int64_t> index, place;
  int64_t place_of(const Point& p) const;
};
WriteTable layout_writes(const Layout& layout);

/// Every target coordinate (row-major over the target box) some image of `layout` reaches,
/// projected onto the target axes; the rest are uncovered.
struct TargetRange {
  std::string axis;
  int64_t lo = 0, hi = 0;
};
struct CoverTable {
  std::vector<TargetRange> target;
  std::vector<int64_t> projected;  ///< per image, one entry per target axis (row-major)
};
CoverTable cover_table(const Layout& layout, const std::vector<TargetRange>& target);

/// The result line every replay program prints:
/// `LP_REPLAY method=ncu predicted N, measured M`.
struct Outcome {
  std::string method;  ///< ncu, clock64 or timing (estimates: cp.async.cg fill time) or exact (injectivity, coverage)
  int64_t predicted = 0;
  int64_t measured = 0;
  bool agrees = false;
};
std::optional<Outcome> parse_outcome(std::string_view output);

}  // namespace lp::replay
