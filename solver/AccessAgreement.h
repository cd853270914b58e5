#pragma once
// Whether the warps a compiled kernel runs for an annotated access are the issues the annotation
// declares (rule LP015, docs/rules/LP015.md): each compiled warp's lane addresses equal one
// annotated issue's, all of them moved by one shift (where the annotated buffer lies in the
// kernel's shared memory), with the same lanes active; and, where the compiled warps are every
// instance of the instruction, each annotated issue is one of them. Exact: the addresses are
// concrete (the compiled ones evaluated at one assignment of the kernel's unknowns).
#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "hw/BankModel.h"

namespace lp {

/// One warp-wide access: each lane's byte address (lanes that give none: any value) and the lanes
/// that execute it.
struct WarpAddresses {
  std::vector<int64_t> addresses;  ///< one per lane of the warp
  hw::LaneMask active = hw::kAllLanes;
};

struct Agreement {
  int64_t shift = 0;                      ///< compiled address = annotated address + shift
  std::vector<size_t> issue_of_warp;      ///< the annotated issue each compiled warp performs
};

/// Why the compiled warps are not the annotated issues: the first compiled warp (or annotated
/// issue) at fault and what differs.
struct Disagreement {
  enum class Kind {
    ActiveLanes,  ///< `warp` runs with other lanes active than the annotation's
    LanePattern,  ///< no annotated issue has `warp`'s addresses relative to its first active lane
    Shift,        ///< every warp is some issue, but no one shift places all of them
    MissingIssue  ///< annotated issue `issue` is no compiled warp (the warps are every instance)
  };
  Kind kind = Kind::LanePattern;
  size_t warp = 0;
  /// LanePattern: the issue nearest to the warp (most lanes alike); MissingIssue: the issue no warp
  /// performs; Shift: an issue the first warp performs at `shifts`.
  size_t issue = 0;
  int lane = 0;  ///< LanePattern: the first lane whose relative address differs from `issue`'s
  int64_t compiled_offset = 0, annotated_offset = 0;  ///< LanePattern: that lane's bytes past the first active lane
  hw::LaneMask compiled_active = 0, annotated_active = 0;  ///< ActiveLanes
  /// Shift: the shifts that place the warps before `warp` (all of them: the first warp's), and those
  /// that place `warp` alone.
  std::vector<int64_t> shifts_before, shifts_of_warp;
};

/// Compares the compiled warps with the annotated issues over the lanes below `address_lanes`
/// (the lanes whose addresses the instruction reads). `every_issue`: the compiled warps are every
/// instance the kernel runs of the access (no loop or unknown left in their addresses), so each
/// issue must be one. Of several shifts that place every warp, the smallest in magnitude.
/// Invariants: every warp and issue has at least `address_lanes` addresses; `issues` not empty.
std::variant<Agreement, Disagreement> compare_warps(const std::vector<WarpAddresses>& compiled,
                                                    const std::vector<WarpAddresses>& issues, int address_lanes,
                                                    bool every_issue);

}  // namespace lp
