// The counterexample codec (findings/Counterexample.h): every kind survives JSON and back unchanged,
// and a file whose counterexample lacks a field, has one of the wrong type, or names no kind is
// refused with the field's path.
#include <catch2/catch.hpp>

#include <set>

#include "findings/Counterexample.h"
#include "findings/Finding.h"

using lp::rules::Counterexample;
using nlohmann::json;

namespace {

// One populated value of every kind, optional fields set and unset.
std::vector<Counterexample> samples() {
  using namespace lp::rules;
  BankConflictCex bank;
  bank.issue = 3, bank.base = 16, bank.bank = 5, bank.words = {5, 37}, bank.wavefronts = 2, bank.ideal = 1;
  bank.instruction = "ld.shared.b32", bank.arch = "sm_90", bank.lane_addresses = std::vector<int64_t>(32, 20);
  bank.lanes = {{0, 8}}, bank.addresses = {{20, 148}}, bank.coordinates = {{0, 0}, {1, 0}};
  bank.smem_layout = "(_8,_32):(_32,_1)", bank.lanes_layout = "(_32):(_1)", bank.dtype = "f32";
  BankConflictCex from_ptx = bank;
  from_ptx.lanes.reset(), from_ptx.addresses.reset(), from_ptx.coordinates.clear();
  from_ptx.opcode = "ld.shared.u32", from_ptx.active_lanes = 0x0000ffffu;
  from_ptx.ptx = PtxOrigin{"kern", 41, {{"%r1", 7}, {"%r9", -3}}};
  AccessErrorCex whole{std::nullopt, 2, 0, "leaves shared memory", {}, std::nullopt};
  AccessErrorCex lane{7, 0, 0, "misaligned", std::vector<int64_t>(32, 4), PtxOrigin{"k", 3, {}}};
  InjectivityCex inj{{0, 4}, {{0, 0}, {0, 1}}, {0}, {"m"}, {}, "(_4,_2):(_1,_0)", 8};
  CoverageCex cov{{96, 3}, {128}, {{"TLane", 0, 127}, {"TCol", 0, 7}}, "S[(32,4):(1@TLane,1@TCol)]"};
  AlgebraCex alg{"9", "7", "(_4,_2):(_1,_0)", 2, "(2,0)"}, alg_value{"in A's domain", "99", "", std::nullopt, ""};
  TmaBoxCex box{{64, 128}, 2, "128B", std::nullopt, std::nullopt}, stray{{64, 8}, 2, "none", std::vector<int64_t>{3, 1}, 1030};
  AsyncSectorCex async{"cp.async.cg.16", "sm_90", 1, 0, std::vector<int64_t>(32, 48), 3, 2, {8, 9}, {4, 5}, "L", "T", "f16"};
  CuteDriftCex drift{"(_8,_8):(_8,_1)", "(_8,_8):(_1,_8)", CuteDriftCex::Difference{{1, 0}, 1, 8, 1}};
  CuteDriftCex shape{"(_8,_8):(_8,_1)", "(_4,_16):(_16,_1)", std::nullopt};
  return {std::monostate{}, bank, from_ptx, whole, lane, inj, cov, alg, alg_value,
          SwizzleMismatchCex{"sA", "128B", "Sw<2,4,3>"}, ByteSwizzleCex{"sB", "Sw<3,4,3>", "bf16"},
          BaseAlignmentCex{"sC", 16, 1024}, BaseAlignmentCex{"sD", std::nullopt, 128}, box, stray, async, drift, shape};
}

}  // namespace

TEST_CASE("every counterexample kind survives JSON and back", "[counterexample]") {
  std::set<std::string> kinds;
  for (const Counterexample& c : samples()) {
    const json j = lp::rules::to_json(c);
    const Counterexample back = lp::rules::counterexample_from_json(j);
    CHECK(back.index() == c.index());
    CHECK(lp::rules::to_json(back) == j);
    if (std::holds_alternative<std::monostate>(c)) {
      CHECK(j.is_null());
    } else {
      CHECK(j.at("kind") == lp::rules::counterexample_kind(c));
      kinds.insert(j.at("kind").get<std::string>());
    }
  }
  // Each kind names one type: the samples cover every alternative but none.
  CHECK(kinds.size() == std::variant_size_v<Counterexample> - 1);
}

TEST_CASE("the JSON form of a counterexample is flat, with absent optionals left out", "[counterexample]") {
  lp::rules::AlgebraCex a{"9", "7", "R", std::nullopt, ""};
  const json j = lp::rules::to_json(a);
  CHECK(j == json{{"kind", "algebra"}, {"expected", "9"}, {"actual", "7"}, {"result", "R"}, {"coordinate", ""}});
  lp::rules::BaseAlignmentCex b{"sA", std::nullopt, 128};
  CHECK(lp::rules::to_json(b) == json{{"kind", "base-alignment"}, {"buffer", "sA"}, {"required", 128}});
}

TEST_CASE("a malformed counterexample is refused with the field's path", "[counterexample]") {
  auto refusal = [](const json& j) {
    try {
      lp::rules::counterexample_from_json(j);
    } catch (const lp::rules::FindingJsonError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  json inj = lp::rules::to_json(lp::rules::InjectivityCex{{0, 4}, {}, {0}, {"m"}, {}, "L", 8});
  CHECK(refusal(json::array()) == "counterexample must be an object or null");
  json no_kind = inj;
  no_kind.erase("kind");
  CHECK(refusal(no_kind).find("no \"kind\"") != std::string::npos);
  json unknown = inj;
  unknown["kind"] = "telepathy";
  CHECK(refusal(unknown) == "counterexample: unknown \"kind\" 'telepathy'");
  json missing = inj;
  missing.erase("layout");
  CHECK(refusal(missing) == "counterexample.layout is missing");
  json three = inj;
  three["indices"] = {0, 1, 2};
  CHECK(refusal(three) == "counterexample.indices must be an array of 2");
  json text = inj;
  text["image"] = {"zero"};
  CHECK(refusal(text) == "counterexample.image[0] must be an integer");
  json huge = lp::rules::to_json(lp::rules::BankConflictCex{});
  huge["active_lanes"] = int64_t{1} << 40;  // a lane mask has one bit per lane of a warp
  CHECK(refusal(huge) == "counterexample.active_lanes must be an integer in range");
  json negative = huge;
  negative["active_lanes"] = -1;
  CHECK(refusal(negative) == "counterexample.active_lanes must be an integer in range");
}

TEST_CASE("a finding survives the JSON report's codec: position, notes, trace and counterexample", "[counterexample]") {
  // A finding on line 2, column 3 of a real source text (the rules' form), and its notes.
  auto text = std::make_shared<lp::SourceText>();
  text->name = "k.lp";
  text->text = "first line\n  access a: sA ldmatrix.x4\n";
  lp::rules::Finding f;
  f.rule_id = "LP002";
  f.severity = lp::Severity::Warning;
  f.kind = lp::rules::FindingKind::Violation;
  f.loc = lp::SourceLoc{text, 13};  // 'a' of "access" on line 2, column 3
  f.message = "conflict";
  f.notes = {{lp::SourceLoc{text, 0}, "the buffer"}, {lp::SourceLoc{}, "no place"}};
  f.trace = {{lp::SourceLoc{text, 11}, "the access"}};
  f.counterexample = samples()[1];
  f.fingerprint = "LP002:abc";
  const nlohmann::ordered_json j = lp::rules::to_json(f);
  CHECK(j["file"] == "k.lp");
  CHECK(j["line"] == 2);
  CHECK(j["column"] == 3);
  CHECK(j["notes"][1]["file"].is_null());
  const lp::rules::Finding back = lp::rules::finding_from_json(json(j));
  CHECK(back.rule_id == "LP002");
  CHECK(back.severity == lp::Severity::Warning);
  CHECK(lp::line_col_of(*back.loc.source, back.loc.offset) == std::pair<size_t, size_t>{2, 3});
  CHECK(back.loc.source->name == "k.lp");
  REQUIRE(back.notes.size() == 2);
  CHECK_FALSE(back.notes[1].loc.source);
  CHECK(back.counterexample.index() == f.counterexample.index());
  CHECK(lp::rules::to_json(back) == j);
}
