#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "analyzer/parse/Parsers.h"
#include "hw/Arch.h"
#include "hw/BankModel.h"
#include "analyzer/support/Process.h"
#include "replay/Process.h"
#include "replay/Replay.h"
#include "replay/Run.h"
#include "findings/Counterexample.h"

using nlohmann::json;
using namespace lp::replay;

namespace {

json bank_finding(const std::string& instruction, const std::vector<int64_t>& lanes, int64_t wavefronts) {
  lp::rules::BankConflictCex c;
  c.instruction = instruction;
  c.arch = "sm_90";
  c.lane_addresses = lanes;
  c.wavefronts = wavefronts;
  return {{"rule", "LP002"}, {"severity", "error"}, {"kind", "violation"}, {"file", "x.lp"}, {"line", 3}, {"column", 1},
          {"message", "conflict"}, {"counterexample", lp::rules::to_json(c)}};
}

// The numbers of a `NAME[...] = {...};` array in a generated program.
std::vector<int64_t> array_in(const std::string& source, const std::string& name) {
  std::smatch m;
  REQUIRE(std::regex_search(source, m, std::regex(name + R"(\[[^\]]*\] = \{([^}]*)\})")));
  std::vector<int64_t> v;
  std::string body = m[1].str();
  std::regex number(R"(-?\d+)");
  for (auto it = std::sregex_iterator(body.begin(), body.end(), number); it != std::sregex_iterator(); ++it)
    v.push_back(std::stoll(it->str()));
  return v;
}

std::vector<int64_t> strided(int64_t stride, int64_t wrap_at, int64_t wrap_add) {
  std::vector<int64_t> v;
  for (int64_t lane = 0; lane < 32; ++lane) v.push_back((lane % wrap_at) * stride + (lane / wrap_at) * wrap_add);
  return v;
}

}  // namespace

TEST_CASE("the LP002 program carries the counterexample's lane addresses and its instruction") {
  std::vector<int64_t> lanes = strided(128, 16, 16);  // the planted ldmatrix.x4 column walk
  json doc = {{"findings", {bank_finding("ldmatrix.x4", lanes, 32)}}};
  std::vector<Replay> r = generate_replays(doc);
  REQUIRE(r.size() == 1);
  REQUIRE(r[0].why_not.empty());
  CHECK(array_in(r[0].source, "kCase") == lanes);
  CHECK(r[0].source.find("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];") != std::string::npos);
  CHECK(r[0].source.find("constexpr long long kPredicted = 32;") != std::string::npos);
  CHECK(r[0].min_sm == 80);
}

TEST_CASE("the control access of every instruction is conflict-free in the model") {
  const lp::hw::Arch& arch = lp::hw::arch_by_name("sm_90");
  for (const lp::hw::SmemInstr& instr : lp::hw::smem_instr_catalog()) {
    INFO(instr.name);
    lp::hw::AccessCost cost = lp::hw::smem_access_cost(arch, instr, control_addresses(instr));
    CHECK(cost.conflict_free);
  }
}

TEST_CASE("the PTX of every catalog instruction is that instruction") {
  for (const lp::hw::SmemInstr& instr : lp::hw::smem_instr_catalog()) {
    INFO(instr.name);
    const std::string op = ptx_opcode(instr);
    const std::string stmt = access_statement(instr);
    CHECK(stmt.find("\"" + op + " ") != std::string::npos);
    std::string name(instr.name);
    if (instr.kind == lp::hw::AccessKind::MatrixRows) {
      // ldmatrix.x4.trans -> ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
      std::string base = name.substr(0, name.find('.'));
      std::string rest = name.substr(name.find('.'));
      CHECK(op == base + ".sync.aligned.m8n8" + rest + ".shared.b16");
      CHECK(std::count(stmt.begin(), stmt.end(), '%') == instr.matrices + 1);
    } else if (name.starts_with("cp.async")) {
      // cp.async.ca.16 -> cp.async.ca.shared.global [dst], [src], 16, from the lane's dense source
      CHECK(op == name.substr(0, name.rfind('.')) + ".shared.global");
      CHECK(stmt.find(", " + std::to_string(instr.bytes) + ";") != std::string::npos);
      CHECK(stmt.find("\"l\"(gsrc)") != std::string::npos);
      CHECK(stmt.find("cp.async.wait_all") != std::string::npos);
    } else {
      CHECK(op == name);
    }
  }
  CHECK(access_statement(lp::hw::smem_instr("st.shared.v4.b32")) ==
        R"(asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" :: "r"(addr), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");)");
}

TEST_CASE("stmatrix replays build for sm_90 only") {
  json doc = {{"findings", {bank_finding("stmatrix.x4", strided(128, 32, 0), 32)}}};
  std::vector<Replay> r = generate_replays(doc);
  REQUIRE(r[0].why_not.empty());
  CHECK(r[0].min_sm == 90);
  CHECK(r[0].source.find("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};") != std::string::npos);
}

TEST_CASE("injectivity writes equal an independent evaluation of the layout") {
  // (_32,_33):(_32,_1): index i has coordinate (i % 32, i / 32) and offset (i % 32) * 32 + i / 32.
  WriteTable t = layout_writes(lp::parse_layout_text("(_32,_33):(_32,_1)").layout);
  REQUIRE(t.index.size() == 1056);
  REQUIRE(t.lo == std::vector<int64_t>{0});
  for (int64_t i = 0; i < 1056; ++i) {
    CHECK(t.index[static_cast<size_t>(i)] == i);
    CHECK(t.place[static_cast<size_t>(i)] == (i % 32) * 32 + i / 32);
  }
  json f = {{"rule", "LP001"}, {"severity", "error"}, {"kind", "violation"}, {"file", "x.lp"}, {"line", 8}, {"column", 1}, {"message", "m"},
            {"counterexample", lp::rules::to_json(lp::rules::InjectivityCex{{1, 1024}, {}, {}, {}, {}, "(_32,_33):(_32,_1)", 1056})}};
  std::vector<Replay> r = generate_replays(json{{"findings", {f}}});
  REQUIRE(r[0].why_not.empty());
  CHECK(array_in(r[0].source, "kPlaceOf") == t.place);
  CHECK(r[0].source.find("kPlace = 32;") != std::string::npos);
  CHECK(r[0].source.find("kPredicted = 2;") != std::string::npos);  // indices 1 and 1024, nothing else
}

TEST_CASE("coverage marks exactly the replicas' target points") {
  auto layout = lp::parse_layout_text("S[(32,4):(1@TLane,1@TCol)] + R[3:32@TLane]").layout;
  CoverTable t = cover_table(layout, {{"TLane", 0, 127}});
  std::set<int64_t> covered(t.projected.begin(), t.projected.end());
  std::set<int64_t> expected;
  for (int64_t lane = 0; lane < 96; ++lane) expected.insert(lane);  // 32 lanes, replicated at +32 and +64
  CHECK(covered == expected);
  json f = {{"rule", "LP004"}, {"severity", "error"}, {"kind", "violation"}, {"file", "x.lp"}, {"line", 11}, {"column", 1}, {"message", "m"},
            {"counterexample", lp::rules::to_json(lp::rules::CoverageCex{{96}, {}, {{"TLane", 0, 127}},
                                                                        "S[(32,4):(1@TLane,1@TCol)] + R[3:32@TLane]"})}};
  std::vector<Replay> r = generate_replays(json{{"findings", {f}}});
  REQUIRE(r[0].why_not.empty());
  CHECK(r[0].source.find("kPredicted = 32;") != std::string::npos);
  CHECK(r[0].source.find("kWitness = 96;") != std::string::npos);
}

TEST_CASE("rules without a GPU replay say why, and bad documents are refused") {
  json f = {{"rule", "LP007"}, {"severity", "error"}, {"kind", "violation"}, {"file", "x.lp"}, {"line", 4}, {"column", 1}, {"message", "m"},
            {"counterexample", lp::rules::to_json(lp::rules::BaseAlignmentCex{"sA", 128, 1024})}};
  std::vector<Replay> r = generate_replays(json{{"findings", {f}}});
  CHECK(r[0].source.empty());
  CHECK(r[0].why_not.find("alignment") != std::string::npos);
  CHECK_THROWS_AS(generate_replays(json{{"nothing", 1}}), ReplayError);
  json bad = bank_finding("ld.shared.b32", {0, 4}, 1);
  CHECK(generate_replays(json{{"findings", {bad}}})[0].why_not.find("32") != std::string::npos);
  // A counterexample without its kind, or with a field of the wrong type, is named in the reason.
  json untyped = bad;
  untyped["counterexample"].erase("kind");
  CHECK(generate_replays(json{{"findings", {untyped}}})[0].why_not.find("\"kind\"") != std::string::npos);
  json mistyped = bad;
  mistyped["counterexample"]["wavefronts"] = "many";
  CHECK(generate_replays(json{{"findings", {mistyped}}})[0].why_not.find("counterexample.wavefronts must be an integer") !=
        std::string::npos);
}

TEST_CASE("the result line is parsed, and agreement follows the method") {
  auto o = parse_outcome("noise\nLP_REPLAY method=ncu predicted 32, measured 32\n");
  REQUIRE(o);
  CHECK(o->agrees);
  CHECK(o->measured == 32);
  CHECK_FALSE(parse_outcome("LP_REPLAY method=ncu predicted 32, measured 16")->agrees);
  CHECK(parse_outcome("LP_REPLAY method=clock64 predicted 32, measured 29")->agrees);
  CHECK_FALSE(parse_outcome("LP_REPLAY method=clock64 predicted 32, measured 12")->agrees);
  CHECK_FALSE(parse_outcome("predicted 3, measured 3"));
}

TEST_CASE("an unmeasured replay never agrees") {
  auto o = parse_outcome("LP_REPLAY method=unmeasured predicted 32, measured -1\n");
  REQUIRE(o);
  CHECK(o->method == "unmeasured");
  CHECK_FALSE(o->agrees);
}

TEST_CASE("bank programs take ncu's path, without ncu loads are estimated on sm_90, stores unmeasured") {
  const std::string load = generate_replays(json{{"findings", {bank_finding("ld.shared.b32", strided(128, 32, 0), 32)}}})[0].source;
  CHECK(load.find("\"--ncu\"") != std::string::npos);
  CHECK(load.find("posix_spawn(&pid, ncu.c_str()") != std::string::npos);  // a full path, no shell, no PATH search
  CHECK(load.find("kCyclesPerWavefront = 2.0") != std::string::npos);
  CHECK(load.find("prop.major != 9") != std::string::npos);
  CHECK(load.find('@') == std::string::npos);  // every placeholder filled
  const std::string store = generate_replays(json{{"findings", {bank_finding("st.shared.b32", strided(128, 32, 0), 32)}}})[0].source;
  CHECK(store.find("LP_REPLAY method=unmeasured") != std::string::npos);
  CHECK(store.find("kCyclesPerWavefront") == std::string::npos);
}

TEST_CASE("cp.async replays: .ca measures the form with the launch's other wavefronts taken out, .cg is timed in a fill kernel") {
  const std::vector<int64_t> column = strided(128, 32, 0);  // every lane on bank 0: 4 phases x 8 writes
  const std::string ca = generate_replays(json{{"findings", {bank_finding("cp.async.ca.16", column, 32)}}})[0].source;
  CHECK(ca.find("\"cp.async.ca.shared.global [%0], [%1], 16;") != std::string::npos);
  CHECK(ca.find("constexpr bool kAsync = true;") != std::string::npos);
  CHECK(ca.find("constexpr int kAccessBytes = 16;") != std::string::npos);
  CHECK(ca.find("measured -= control - kControlPredicted;") != std::string::npos);
  CHECK(array_in(ca, "kControl") == strided(16, 32, 0));
  CHECK(ca.find('@') == std::string::npos);
  auto replays = generate_replays(json{{"findings", {bank_finding("cp.async.cg.16", column, 32)}}});
  REQUIRE(replays[0].why_not.empty());
  const std::string cg = replays[0].source;
  CHECK(cg.find("\"cp.async.cg.shared.global [%0], [%1], 16;\"") != std::string::npos);
  CHECK(cg.find("LP_REPLAY method=timing") != std::string::npos);
  CHECK(cg.find("ncu") == std::string::npos);  // no counter sees the .cg writes
  CHECK(array_in(cg, "kCase") == column);
  CHECK(cg.find("case_over_control(kCase, kControl, 4096)") != std::string::npos);  // 31 * 128 + 16, rounded up to 1024
  CHECK(cg.find('@') == std::string::npos);
  CHECK(parse_outcome("LP_REPLAY method=timing predicted 32, measured 26")->agrees);
  CHECK_FALSE(parse_outcome("LP_REPLAY method=timing predicted 32, measured 8")->agrees);
  const std::vector<int64_t> wide = strided(512, 32, 0);  // 16 KiB: more than the fill kernel's stages fit
  CHECK(generate_replays(json{{"findings", {bank_finding("cp.async.cg.16", wide, 32)}}})[0].why_not.find("spans") !=
        std::string::npos);
}

TEST_CASE("CUDA tools are found by LP_REPLAY_<NAME>, and the GPU is named from nvidia-smi -L") {
  setenv("LP_REPLAY_NCU", "/bin/sh", 1);
  CHECK(find_tool("ncu") == "/bin/sh");
  setenv("LP_REPLAY_NCU", "/nonexistent/ncu", 1);
  CHECK(find_tool("ncu").empty());
  unsetenv("LP_REPLAY_NCU");
  CHECK(find_tool("sh") == lp::find_on_path("sh"));
  CHECK(first_gpu_name("GPU 0: NVIDIA H200 (UUID: GPU-1234)\nGPU 1: NVIDIA H200 (UUID: GPU-5678)\n") == "NVIDIA H200");
  CHECK(first_gpu_name("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-x)") == "NVIDIA H100 80GB HBM3");
  CHECK(first_gpu_name("No devices found.").empty());
}

TEST_CASE("a predicated access replays under its guard: the case on its active lanes, the control on all") {
  json f = bank_finding("ld.shared.v4.b32", strided(128, 16, 0), 18);
  f["counterexample"]["active_lanes"] = 0x0000ffff;
  const std::vector<Replay> r = generate_replays(json{{"findings", {f}}});
  REQUIRE(r[0].why_not.empty());
  CHECK(r[0].source.find("constexpr uint32_t kActive = 0x0000ffffu;") != std::string::npos);
  CHECK(r[0].source.find("if ((active >> lane) & 1u) {") != std::string::npos);
  CHECK(r[0].source.find("replay_access<1>(offsets, sink, src, cycles, kActive);") != std::string::npos);
  CHECK(r[0].source.find("replay_access<1>(offsets, sink, src, cycles, 0xffffffffu);") != std::string::npos);
  // A full warp runs every lane.
  const std::string full = generate_replays(json{{"findings", {bank_finding("ld.shared.v4.b32", strided(128, 16, 0), 32)}}})[0].source;
  CHECK(full.find("constexpr uint32_t kActive = 0xffffffffu;") != std::string::npos);
}
