// `layoutproof check` on compiled kernels as a user runs it: a .ptx file, a directory holding PTX
// (Triton's cache layout), bad PTX (exit 2, located), and --cuda with nvcc.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <nlohmann/json.hpp>

#include "PtxOracle.h"
#include "hw/Arch.h"
#include "hw/BankModel.h"
#include "hw/SmemInstr.h"
#include "replay/Process.h"
#include "support/Files.h"
#include "support/Process.h"

using lp::test::run_layoutproof;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kDir = LP_SOURCE_DIR "/tests/data/ptx/";

void write_text(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

fs::path temp_dir(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

// The findings of one source line of smem_kernels.cu.
std::vector<json> at_line(const json& report, int line) {
  std::vector<json> out;
  for (const auto& f : report["findings"])
    if (f.value("line", 0) == line && f["file"].get<std::string>().find("smem_kernels.cu") != std::string::npos) out.push_back(f);
  return out;
}

}  // namespace

TEST_CASE("check PTX: findings at the CUDA source lines, LP002 counterexamples that replay", "[ptx][check-cli]") {
  const fs::path tmp = temp_dir("lp_ptx_cli");
  auto r = run_layoutproof({"check", "--no-cache", kDir + "smem_kernels.ptx", "--format", "json", "--output",
                            (tmp / "f.json").string()});
  REQUIRE(r.exit_code == 1);
  const json report = json::parse(lp::test::read_file((tmp / "f.json").string()));
  // naive(): the column read (line 22) is 32-way; the padded (line 15) and swizzled (line 30)
  // column reads have no finding.
  const auto naive = at_line(report, 22);
  REQUIRE(naive.size() == 1);
  CHECK(naive[0]["rule"] == "LP002");
  CHECK(naive[0]["message"].get<std::string>().find("has bank conflicts: 32 wavefronts where 1 is ideal") != std::string::npos);
  const json& ce = naive[0]["counterexample"];
  CHECK(ce["instruction"] == "ld.shared.b32");
  CHECK(ce["arch"] == "sm_80");
  CHECK(ce["lane_addresses"].size() == 32);
  CHECK(at_line(report, 15).empty());
  CHECK(at_line(report, 30).empty());
  // The counterexample replays as any LP002 finding does.
  auto rep = run_layoutproof({"replay", (tmp / "f.json").string(), "--out", (tmp / "replay").string()});
  CHECK(rep.exit_code == 0);
  bool program = false;
  for (const auto& e : fs::directory_iterator(tmp / "replay")) program |= e.path().extension() == ".cu";
  CHECK(program);
  fs::remove_all(tmp);
}

TEST_CASE("check PTX: a Triton-style cache directory is searched for .ptx files", "[ptx][check-cli]") {
  const fs::path tmp = temp_dir("lp_ptx_cache");
  fs::create_directories(tmp / "cache" / "ABCDEF");
  fs::copy_file(kDir + "smem_sm90.ptx", tmp / "cache" / "ABCDEF" / "store_matrices.ptx");
  write_text((tmp / "cache" / "ABCDEF" / "store_matrices.json").string(), "{}");
  auto r = run_layoutproof({"check", "--no-cache", (tmp / "cache").string()});
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("stmatrix.sync.aligned.m8n8.x4.shared.b16 (PTX line 54) in store_matrices has bank conflicts: 32 wavefronts where 4 "
                    "are ideal") !=
        std::string::npos);
  fs::remove_all(tmp);
}

TEST_CASE("check PTX: --kernel takes a pattern matched without backtracking, others are refused", "[ptx][check-cli]") {
  // An alternation a backtracking matcher would explore both ways selects what the plain name does.
  auto obligations = [](const std::string& pattern) {
    auto r = run_layoutproof({"check", "--no-cache", kDir + "smem_kernels.ptx", "--kernel", pattern, "--format", "json"});
    REQUIRE(r.exit_code != 2);
    return json::parse(r.out)["obligations"].size();
  };
  const size_t halving = obligations("^halving\\(");
  CHECK(halving > 0);
  CHECK(obligations("^(h|h)alving\\(") == halving);
  CHECK(obligations(".") > halving);
  for (const std::string& bad : {std::string("(a)\\1"), std::string("("), std::string(600, 'k')}) {
    auto r = run_layoutproof({"check", "--no-cache", kDir + "smem_kernels.ptx", "--kernel", bad});
    INFO(bad);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("is not a kernel-name pattern") != std::string::npos);
  }
}

TEST_CASE("check PTX: unreadable PTX is a located error and exit 2", "[ptx][check-cli]") {
  const fs::path tmp = temp_dir("lp_ptx_bad");
  const std::string bad = (tmp / "bad.ptx").string();
  write_text(bad, ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n  wibble.u32 %r1;\n  ret;\n}\n");
  auto r = run_layoutproof({"check", "--no-cache", bad});
  CHECK(r.exit_code == 2);
  CHECK(r.out.find(bad + ":6:3: error: unknown instruction 'wibble.u32' [LP011]") != std::string::npos);
  write_text(bad, std::string(".version 8.0\n.target sm_80\n.visible .entry k()\n{\n"));
  r = run_layoutproof({"check", "--no-cache", bad});
  CHECK(r.exit_code == 2);
  CHECK(r.out.find("unterminated function body") != std::string::npos);
  fs::remove_all(tmp);
}

TEST_CASE("check --cuda: nvcc's PTX checked, its time reported apart, its errors shown with exit 2", "[ptx][check-cli][nvcc]") {
  if (lp::replay::find_tool("nvcc").empty()) {
    WARN("nvcc not found: --cuda not exercised");
    return;
  }
  auto r = run_layoutproof({"check", "--no-cache", "--cuda", kDir + "smem_kernels.cu", "--arch", "sm_80"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("nvcc: ") != std::string::npos);
  CHECK(r.err.find("analysis: ") != std::string::npos);
  CHECK(r.out.find(kDir + "smem_kernels.cu:22:") != std::string::npos);
  const fs::path tmp = temp_dir("lp_ptx_cuda");
  const std::string broken = (tmp / "broken.cu").string();
  write_text(broken, "__global__ void k() { this is not cuda; }\n");
  r = run_layoutproof({"check", "--no-cache", "--cuda", broken});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("broken.cu(1)") != std::string::npos);
  CHECK(r.err.find("error: nvcc failed") != std::string::npos);
  // Arguments after -- go to nvcc.
  r = run_layoutproof({"check", "--no-cache", "--cuda", kDir + "smem_kernels.cu", "--", "-DUNUSED_MACRO=1"});
  CHECK(r.exit_code == 1);
  fs::remove_all(tmp);
}

TEST_CASE("check PTX: Triton 3.9's matmul (compiled ahead of time for sm_80) is proven conflict-free", "[ptx][triton]") {
  // tests/data/ptx/triton/compile_triton.py wrote the PTX: cp.async into a 3-stage swizzled ring,
  // ldmatrix (and .trans) for mma.sync, ld/st.shared in the epilogue.
  const fs::path tmp = temp_dir("lp_ptx_triton");
  auto r = run_layoutproof({"check", "--no-cache", kDir + "triton/matmul_kernel.ptx", "--format", "junit", "--output",
                            (tmp / "j.xml").string()});
  CHECK(r.exit_code == 0);
  const std::string junit = lp::test::read_file((tmp / "j.xml").string());
  size_t cases = 0;
  for (size_t p = junit.find("<testcase"); p != std::string::npos; p = junit.find("<testcase", p + 1)) ++cases;
  CHECK(cases >= 3 * 40);  // 40 shared-memory instructions, each aligned, in bounds and conflict-free
  CHECK(junit.find("<failure") == std::string::npos);
  CHECK(junit.find("compile_triton.py") != std::string::npos);  // located in the Python source
  fs::remove_all(tmp);
}

TEST_CASE("check PTX: the verdicts reproduce Nsight Compute's source counters measured on an H100", "[ptx][hardware]") {
  // docs/data/ptx-ncu-h100.tsv: every shared-memory SASS instruction of scripts/gpu/ptx_validate.cu
  // (15 kernel launches) with its L1 wavefronts shared and ideal (ncu SourceCounters, H100), matched
  // to the PTX instruction it came from (scripts/gpu/ptx-ncu-table.py). The model must call an
  // instruction conflicting exactly where the hardware needed more wavefronts than ideal.
  const fs::path tmp = temp_dir("lp_ptx_ncu");
  auto r = run_layoutproof({"check", "--no-cache", LP_SOURCE_DIR "/docs/data/ptx_validate_sm90.ptx", "--format", "json",
                            "--output", (tmp / "f.json").string()});
  REQUIRE(r.exit_code != 2);
  const json report = json::parse(lp::test::read_file((tmp / "f.json").string()));
  std::map<int, std::string> model;  // PTX line -> conflict / conflict-free / unknown
  const std::regex line_re("\\(PTX line ([0-9]+)\\)");
  std::smatch m;
  for (const auto& o : report["obligations"]) {
    const std::string d = o["description"];
    if (std::regex_search(d, m, line_re) && d.find("is conflict-free") != std::string::npos && o["passed"].get<bool>())
      model[std::stoi(m[1])] = "conflict-free";
  }
  for (const auto& f : report["findings"]) {
    const std::string msg = f["message"];
    if (!std::regex_search(msg, m, line_re)) continue;
    if (msg.find("has bank conflicts") != std::string::npos) model[std::stoi(m[1])] = "conflict";
    else if (f["kind"] == "unknown" && msg.find("is conflict-free") != std::string::npos) model[std::stoi(m[1])] = "unknown";
  }
  std::istringstream tsv(lp::test::read_file(LP_SOURCE_DIR "/docs/data/ptx-ncu-h100.tsv"));
  std::string row;
  std::getline(tsv, row);  // header
  int agree = 0, unknown = 0, conflicts = 0;
  std::set<std::string> kernels;
  while (std::getline(tsv, row)) {
    std::vector<std::string> c;
    std::istringstream cells(row);
    for (std::string cell; std::getline(cells, cell, '\t');) c.push_back(cell);
    REQUIRE(c.size() == 8);
    const int line = std::stoi(c[1]);
    const bool measured_conflict = std::stoll(c[6]) > 0;
    INFO(row);
    REQUIRE(model.count(line));
    if (model[line] == "unknown") {
      ++unknown;
      continue;
    }
    CHECK((model[line] == "conflict") == measured_conflict);
    agree += (model[line] == "conflict") == measured_conflict;
    conflicts += measured_conflict;
    kernels.insert(c[0]);
  }
  CHECK(agree >= 40);
  CHECK(unknown <= 5);  // atomics and zero-filling cp.async, whose costs the model does not claim
  CHECK(conflicts >= 10);
  CHECK(kernels.size() >= 10);
  fs::remove_all(tmp);
}

TEST_CASE("explain: a compiled instruction lane by lane equals its source formula and the bank model (brute force)",
          "[ptx][explain]") {
  const auto lines = lp::test::oracle_lines(kDir + "smem_kernels.cu");
  const lp::hw::Arch& arch = lp::hw::arch_by_name("sm_80");  // the checked-in PTX's .target
  const std::set<std::string> tags{"padded_store", "padded_load", "naive_store", "naive_load", "swizzled_store",
                                   "swizzled_load", "predicated_even", "predicated_half"};
  int compared = 0;
  for (const lp::test::OracleAccess& o : lp::test::smem_kernel_oracle()) {
    if (!tags.count(o.tag)) continue;
    for (int warp : {0, 1, 3}) {
      INFO(o.tag << " at warp " << warp);
      auto r = run_layoutproof({"explain", kDir + "smem_kernels.cu:" + std::to_string(lines.at(o.tag)), "--ptx",
                                kDir + "smem_kernels.ptx", "--set", "warp=" + std::to_string(warp), "--set", "ntid.x=128"});
      REQUIRE(r.exit_code == 0);
      // The block of the instruction the oracle names ("as st.shared.b32 on sm_80: ...").
      std::istringstream in(r.out);
      std::string line;
      bool inside = false;
      std::map<int, int64_t> byte_of;
      std::map<int, std::string> banks_of;
      std::set<int> inactive;
      int64_t wavefronts = -1, ideal = -1;
      static const std::regex kCost(R"(  as (\S+) on sm_80: (\d+) wavefronts?, ideal (\d+).*)");
      static const std::regex kRow(R"(\s+(\d+)  -\s+(\d+)  (\S+)\s+.*)"), kInactive(R"(\s+(\d+)  \(inactive.*)");
      std::smatch m;
      while (std::getline(in, line)) {
        if (!line.empty() && line[0] != ' ') inside = false;
        if (std::regex_match(line, m, kCost)) {
          inside = m[1] == o.instr;
          if (inside) wavefronts = std::stoll(m[2]), ideal = std::stoll(m[3]);
        } else if (inside && std::regex_match(line, m, kRow)) {
          byte_of[std::stoi(m[1])] = std::stoll(m[2]);
          banks_of[std::stoi(m[1])] = m[3];
        } else if (inside && std::regex_match(line, m, kInactive)) {
          inactive.insert(std::stoi(m[1]));
        }
      }
      REQUIRE(wavefronts >= 0);
      std::vector<int64_t> addresses(32);
      lp::hw::LaneMask active = 0;
      for (int lane = 0; lane < 32; ++lane) {
        lp::test::OracleEnv e;
        e.lane = lane;
        e.warp = warp;
        e.threads = 128;
        addresses[static_cast<size_t>(lane)] = o.offset(e);
        const bool runs = o.active(e);
        if (runs) active |= lp::hw::LaneMask{1} << lane;
        CHECK(inactive.count(lane) == !runs);
        if (!runs) continue;
        REQUIRE(byte_of.count(lane));
        CHECK(byte_of[lane] == o.offset(e));  // the tile's base at its lowest value, 0
        CHECK(banks_of[lane] == std::to_string((o.offset(e) / 4) % 32));
        ++compared;
      }
      const lp::hw::AccessCost cost = lp::hw::smem_access_cost(arch, lp::hw::smem_instr(o.instr), addresses, active);
      CHECK(wavefronts == cost.wavefronts);
      CHECK(ideal == cost.ideal);
    }
  }
  CHECK(compared > 500);
}

TEST_CASE("explain: compiled code refuses what it cannot show, with the reason", "[ptx][explain]") {
  const std::string line = std::to_string(lp::test::oracle_lines(kDir + "smem_kernels.cu").at("naive_load"));
  auto unknown = run_layoutproof({"explain", kDir + "smem_kernels.cu:" + line, "--ptx", kDir + "smem_kernels.ptx", "--set", "lane=3"});
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("--set lane: the access does not depend on it (its unknowns: warp, ntid.x, naive(float*, float const*)::tile)") !=
        std::string::npos);
  auto outside = run_layoutproof({"explain", kDir + "smem_kernels.cu:" + line, "--ptx", kDir + "smem_kernels.ptx", "--set", "warp=32"});
  CHECK(outside.exit_code == 2);
  CHECK(outside.err.find("warp = 32 is outside its values") != std::string::npos);
  auto nothing = run_layoutproof({"explain", kDir + "smem_kernels.cu:1", "--ptx", kDir + "smem_kernels.ptx"});
  CHECK(nothing.exit_code == 2);
  CHECK(nothing.err.find("smem_kernels.cu:1: no shared-memory instruction with per-lane addresses is placed at this line") !=
        std::string::npos);
}

TEST_CASE("check PTX: a proven conflict-free instruction carries its worst wavefronts and ideal where the proof fixes them",
          "[ptx][check-cli]") {
  // Every lane of a full warp moving its bytes, 128 bytes a wavefront (CUDA Programming Guide,
  // shared memory: 32 banks of 4 bytes), is the most a conflict-free instruction costs.
  const std::map<std::string, int64_t> phases{{"ld.shared.f32", 1}, {"st.shared.f32", 1}, {"ld.shared.u32", 1},
                                              {"st.shared.u32", 1}, {"ld.shared.u16", 1}, {"st.shared.u16", 1},
                                              {"ld.shared.u8", 1},  {"st.shared.u8", 1},  {"ld.shared.v2.f32", 2},
                                              {"st.shared.v4.u32", 4}, {"cp.async.cg.shared.global", 4},
                                              {"ldmatrix.sync.aligned.m8n8.x4.shared.b16", 4}};
  // With the launch stated, and with it left free (a representative warp as full as the launch
  // allows reaches the bound): every proven conflict obligation carries its numbers, but for the
  // reads after a halving loop in a 128-thread block (`s[0]` once h reaches 0, at a trip count of 7
  // that neither the lowest nor the largest values give).
  for (const std::vector<std::string>& launch : {std::vector<std::string>{"--launch", "*=block(128)"}, std::vector<std::string>{}}) {
    std::vector<std::string> args{"check", kDir + "smem_kernels.ptx", "--no-cache", "--format", "json"};
    args.insert(args.end(), launch.begin(), launch.end());
    auto r = run_layoutproof(args);
    REQUIRE(r.exit_code == 1);
    const json report = json::parse(r.out);
    std::set<std::string> with_numbers;
    int without = 0;
    for (const json& o : report["obligations"]) {
      const std::string d = o["description"];
      if (!o["passed"].get<bool>() || d.find(" is conflict-free") == std::string::npos) continue;
      const std::string opcode = d.substr(0, d.find(" (PTX line"));
      INFO(d);
      if (!o["proof"].contains("wavefronts")) {
        ++without;
        continue;
      }
      REQUIRE(phases.count(opcode));
      CHECK(o["proof"]["wavefronts"] == phases.at(opcode));
      CHECK(o["proof"]["ideal"] == phases.at(opcode));
      with_numbers.insert(opcode);
    }
    CHECK(with_numbers.count("st.shared.v4.u32"));
    CHECK(with_numbers.count("ld.shared.v2.f32"));
    CHECK(with_numbers.count("ldmatrix.sync.aligned.m8n8.x4.shared.b16"));
    CHECK(with_numbers.count("st.shared.f32"));
    CHECK(without <= (launch.empty() ? 0 : 2));
  }
}
