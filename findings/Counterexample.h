#pragma once
// The counterexamples of findings, one type per kind of witness, and their one JSON codec.
// Reports draw them and replays rebuild them by type (std::visit over `Counterexample`), so a
// field renamed here is a compiler error there, and a new kind of witness is a new alternative
// that every visitor must handle. The JSON form (`check --format json`, SARIF properties, the
// result cache, the files `report` and `replay` read back) is flat: a "kind" key naming the type,
// then the fields under the names docs/reports.md lists; absent optional fields are left out.
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace lp::rules {

/// Where a counterexample found in PTX comes from (LP002/LP010 on `.ptx` input): the kernel, the
/// PTX line, and the values of the unknowns the access depends on.
struct PtxOrigin {
  std::string kernel;
  int64_t ptx_line = 0;
  std::vector<std::pair<std::string, int64_t>> uniforms;  ///< name = value, in the access's order
};

/// LP002: one issued instruction whose worst phase needs more wavefronts than its ideal.
/// Invariant: `lane_addresses` has one byte address per lane of a warp; `lanes`, `coordinates` and
/// `addresses` name the two colliding lanes when the engine names them.
struct BankConflictCex {
  int64_t issue = 0, base = 0;  ///< the issued instruction and the buffer's base residue (bytes)
  int64_t bank = 0;
  std::vector<int64_t> words;   ///< distinct words the bank delivers in the worst phase
  int64_t wavefronts = 0, ideal = 0;
  std::string instruction, arch;  ///< hw::SmemInstr and hw::Arch names
  std::vector<int64_t> lane_addresses;
  std::optional<std::array<int64_t, 2>> lanes, addresses;
  std::vector<std::vector<int64_t>> coordinates;  ///< the two lanes' coordinates; empty from PTX
  std::string smem_layout, lanes_layout, dtype;   ///< as annotated; empty from PTX
  std::optional<std::string> opcode;              ///< the PTX opcode as written
  std::optional<uint32_t> active_lanes;           ///< the lanes that take part (PTX predicates)
  std::optional<PtxOrigin> ptx;
};

/// LP002/LP010: an access that leaves the buffer, is misaligned, or does not address one lane's
/// elements. `lane` is absent when the whole instruction is at fault (it leaves shared memory).
struct AccessErrorCex {
  std::optional<int64_t> lane;
  int64_t issue = 0, base = 0;
  std::string reason;
  std::vector<int64_t> lane_addresses;  ///< from PTX: every lane's address; empty when annotated
  std::optional<PtxOrigin> ptx;
};

/// LP001: two elements (or replicas) of `layout` that land on one point.
struct InjectivityCex {
  std::array<int64_t, 2> indices{};
  std::vector<std::vector<int64_t>> coordinates;  ///< the two indices split over the layout's modes
  std::vector<int64_t> image;                      ///< the shared point, one value per axis
  std::vector<std::string> axes;
  std::vector<int64_t> params;  ///< the parameter values of the instance, in declaration order
  std::string layout;           ///< the instance, printable and re-parsable (CuTe or TIRx)
  int64_t size = 0;
};

/// LP004: a point of the target box that no element or replica of `layout` reaches.
struct CoverageCex {
  struct Range {
    std::string axis;
    int64_t lo = 0, hi = 0;  ///< inclusive
  };
  std::vector<int64_t> uncovered;  ///< one value per target range
  std::vector<int64_t> params;
  std::vector<Range> target;
  std::string layout;
};

/// LP003: where an algebra result differs from the function it claims.
struct AlgebraCex {
  std::string expected, actual, result;  ///< the two values there, and CuTe's result
  std::optional<int64_t> index;          ///< the 1-D index; absent for a value no index reaches
  std::string coordinate;                ///< the index's coordinate; empty without an index
};

/// LP005: a layout's byte swizzle and the swizzle a TMA or GMMA operation applies differ.
struct SwizzleMismatchCex {
  std::string buffer, operation_swizzle, layout_byte_swizzle;
};

/// LP006: a swizzle spelled on byte addresses but applied to element indices.
struct ByteSwizzleCex {
  std::string buffer, swizzle, dtype;
};

/// LP007: a buffer's declared alignment (absent: none declared) below what its use requires.
struct BaseAlignmentCex {
  std::string buffer;
  std::optional<int64_t> align;
  int64_t required = 0;
};

/// LP008: a TMA box the tensor-map limits refuse, or an element it writes where the layout has none.
struct TmaBoxCex {
  std::vector<int64_t> box;
  int64_t element_bytes = 0;
  std::string swizzle;
  std::optional<std::vector<int64_t>> coordinate;  ///< the stray element's box coordinate
  std::optional<int64_t> byte;                     ///< and where it lands
};

/// LP009: a cp.async.cg whose global sectors straddle shared sectors.
struct AsyncSectorCex {
  std::string instruction, arch;
  int64_t issue = 0, base = 0;
  std::vector<int64_t> lane_addresses;
  int64_t sectors = 0, ideal = 0;
  std::vector<int64_t> lanes, shared_sectors;  ///< the lanes of one split global sector, and where it lands
  std::string smem_layout, lanes_layout, dtype;
};

/// LP012: an annotated layout and the layout CuTe computed differ.
struct CuteDriftCex {
  struct Difference {
    std::vector<int64_t> coordinate;
    int64_t index = 0;
    int64_t annotation_offset = 0, cute_offset = 0;
  };
  std::string cute_layout, annotation_layout;
  std::optional<Difference> difference;  ///< absent when the shapes differ
};

/// A finding's counterexample; monostate when it has none.
using Counterexample =
    std::variant<std::monostate, BankConflictCex, AccessErrorCex, InjectivityCex, CoverageCex, AlgebraCex, SwizzleMismatchCex,
                 ByteSwizzleCex, BaseAlignmentCex, TmaBoxCex, AsyncSectorCex, CuteDriftCex>;

/// A finding's JSON (findings/Finding.h) or its counterexample's that does not have the shape the JSON
/// report writes; the message names the field's path ("counterexample.issue is missing").
class FindingJsonError : public std::runtime_error {
 public:
  explicit FindingJsonError(const std::string& what) : std::runtime_error(what) {}
};

/// The "kind" of a counterexample's JSON ("bank-conflict", ...); "" for none.
const char* counterexample_kind(const Counterexample& c);
/// The JSON form; null for none.
nlohmann::json to_json(const Counterexample& c);
/// Reads the JSON form back (null gives none). Throws FindingJsonError.
Counterexample counterexample_from_json(const nlohmann::json& j);

}  // namespace lp::rules
