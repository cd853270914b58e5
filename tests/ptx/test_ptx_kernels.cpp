// The PTX front end on kernels nvcc compiled (tests/data/ptx): every shared-memory access marked in
// the CUDA source is found, its recovered per-lane addresses equal the source's index formula
// (PtxOracle.h) at every lane and sampled uniform value, and its verdict is what
// hw::smem_access_cost says of the formula's addresses. The same on PTX nvcc generates now.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "frontend/ptx/PtxEval.h"
#include "hw/BankModel.h"
#include "replay/Process.h"
#include "rules/CompiledAccess.h"
#include "solver/LaneOverlap.h"
#include "solver/SymbolicAccess.h"
#include "support/Files.h"
#include "support/Process.h"
#include "ptx/PtxOracle.h"

namespace fs = std::filesystem;
using lp::term::TermId;
using lp::term::TermPool;
using lp::term::VarId;

namespace {

const std::string kDir = LP_SOURCE_DIR "/tests/data/ptx/";

struct Checked {
  std::set<std::string> tags;  // tags whose accesses were found and checked
  int samples = 0;
  int overlap_decisions = 0;
};

// Values to try for each uniform unknown of a site.
std::vector<std::vector<uint64_t>> sample_values(const TermPool& P, const std::vector<VarId>& vars) {
  std::vector<std::vector<uint64_t>> out;
  for (VarId v : vars) {
    const auto& info = P.var(v);
    std::vector<uint64_t> vals;
    if (info.name == "warp") vals = {0, 1, 2, 3};
    else if (info.name == "ntid.x") vals = {info.hi, 32, 48, 1};  // whole and partial warps, one thread
    else if (info.name.rfind("stage@", 0) == 0) for (uint64_t k = info.lo; k <= info.hi; ++k) vals.push_back(k);
    else if (info.name.rfind("n@", 0) == 0) for (uint64_t k = 0; k <= 8; ++k) vals.push_back(k);  // every iteration of the loops at 128 threads
    else if (info.name.find("_param_") != std::string::npos) vals = {0, 1, 3, 64, 1000};
    else if (info.align_log2 > 0 && info.hi > 1024) vals = {0, uint64_t{1} << std::min(info.align_log2, 10)};  // a symbol's base
    else vals = {info.lo, std::min(info.hi, info.lo + 1)};
    out.push_back(vals);
  }
  return out;
}

// Whether the site's addresses and activity equal `o`'s formula at every lane and sample of its
// uniform unknowns; on the way, whether the formula's warp conflicts at some sample.
// Two active lanes of a warp at one address, counted pair by pair (the brute force LP016's verdicts
// are held to).
bool two_lanes_share_an_address(const std::vector<int64_t>& addresses, lp::hw::LaneMask mask) {
  for (int i = 0; i < 32; ++i)
    for (int j = i + 1; j < 32; ++j)
      if (((mask >> i) & 1) && ((mask >> j) & 1) && addresses[static_cast<size_t>(i)] == addresses[static_cast<size_t>(j)])
        return true;
  return false;
}

bool follows(lp::ptx::Analysis& a, const lp::ptx::Site& site, const lp::test::OracleAccess& o, const lp::hw::Arch& arch,
             bool& formula_conflicts, bool& formula_collides, int& samples) {
  const lp::hw::SmemInstr* instr = o.instr.empty() ? nullptr : &lp::hw::smem_instr(o.instr);
  const int address_lanes = instr ? lp::hw::address_lane_count(*instr) : lp::hw::kWarpLanes;
  std::set<VarId> vs;
  for (auto t : {site.address, site.active})
    for (VarId v : a.pool.vars_of(t))
      if (v != a.pool.lane_var()) vs.insert(v);
  const std::vector<VarId> vars(vs.begin(), vs.end());
  const auto values = sample_values(a.pool, vars);
  std::vector<size_t> idx(vars.size(), 0);
  formula_conflicts = false;
  formula_collides = false;
  samples = 0;
  for (bool more = true; more;) {
    lp::term::Evaluator ev(a.pool);
    lp::test::OracleEnv env;
    uint64_t base = 0;
    for (size_t i = 0; i < vars.size(); ++i) {
      ev.set(vars[i], values[i][idx[i]]);
      const auto& info = a.pool.var(vars[i]);
      if (info.name == "warp") env.warp = static_cast<int>(values[i][idx[i]]);
      else if (info.name == "ntid.x") env.threads = static_cast<int64_t>(values[i][idx[i]]);
      else env.uniforms[info.name] = lp::term::to_signed(values[i][idx[i]], info.width);
      if (site.symbol_base && vars[i] == *site.symbol_base) base = values[i][idx[i]];
    }
    std::vector<int64_t> addresses(32, 0);
    lp::hw::LaneMask mask = 0;
    for (int lane = 0; lane < 32; ++lane) {
      env.lane = lane;
      ev.set(a.pool.lane_var(), static_cast<uint64_t>(lane));
      const bool active = ev.eval(site.active) != 0;
      if (active != (o.active(env) && env.tid() < env.threads)) return false;
      if (!active || lane >= address_lanes) continue;
      const uint64_t got = (ev.eval(site.address) - base) & 0xffffffffu;
      if (got != (static_cast<uint64_t>(o.offset(env)) & 0xffffffffu)) return false;
      addresses[static_cast<size_t>(lane)] = static_cast<int64_t>(base) + o.offset(env);
      mask |= lp::hw::LaneMask{1} << lane;
    }
    ++samples;
    formula_collides |= two_lanes_share_an_address(addresses, mask);
    if (instr && mask) {
      for (int lane = 0; lane < 32; ++lane)
        if (!((mask >> lane) & 1)) addresses[static_cast<size_t>(lane)] = addresses[static_cast<size_t>(__builtin_ctz(mask))];
      bool in_range = true;
      for (int64_t x : addresses) in_range = in_range && x >= 0 && x + 16 <= arch.max_smem_bytes_per_block;
      if (in_range) formula_conflicts |= !lp::hw::smem_access_cost(arch, *instr, addresses, mask).conflict_free;
    }
    more = false;
    for (size_t i = 0; i < idx.size(); ++i) {
      if (++idx[i] < values[i].size()) {
        more = true;
        break;
      }
      idx[i] = 0;
    }
  }
  return true;
}

void check_file(const std::string& ptx_path, const std::string& cu_path, const std::string& arch_name, Checked& checked,
                const std::vector<lp::test::OracleAccess>& oracle = lp::test::smem_kernel_oracle()) {
  auto src = std::make_shared<lp::SourceText>();
  src->name = ptx_path;
  src->text = lp::test::read_file(ptx_path);
  REQUIRE(!src->text.empty());
  const lp::ptx::Module m = lp::ptx::read_ptx(src);
  lp::ptx::Analysis a;
  lp::ptx::analyze(m, {}, a);
  const auto lines = lp::test::oracle_lines(cu_path);
  const lp::hw::Arch& arch = lp::hw::arch_by_name(arch_name);
  int cu_file = -1;
  for (const auto& [n, name] : m.files)
    if (fs::path(name).filename() == fs::path(cu_path).filename()) cu_file = n;
  REQUIRE(cu_file >= 0);
  for (const auto& k : a.kernels) {
    CHECK(k.issues.empty());
    for (const auto& site : k.sites) {
      // The oracle entry of this kernel and instruction whose formula the site's addresses follow.
      const lp::test::OracleAccess* o = nullptr;
      bool formula_conflicts = false, formula_collides = false;
      int samples = 0;
      for (const auto& entry : oracle)
        if (!o && k.name.find(entry.kernel) != std::string::npos && entry.instr == (site.instr ? site.instr->name : "") &&
            follows(a, site, entry, arch, formula_conflicts, formula_collides, samples))
          o = &entry;
      INFO(ptx_path << ": " << site.opcode << " at PTX offset " << site.origin.pos << " in " << k.name);
      REQUIRE(o != nullptr);
      CHECK((site.unknown.has_value() || site.cost_unknown.has_value()) == o->unknown);
      CHECK(site.active_exact);
      checked.tags.insert(o->tag);
      checked.samples += samples;
      // The access sits at its marked line, or (when nvcc merged statements) next to it.
      std::set<int> site_lines;
      std::vector<std::optional<size_t>> locs = site.origin.call_debug_locs;
      locs.push_back(site.origin.debug_loc);
      for (const auto& l : locs)
        if (l)
          for (const auto& f : lp::ptx::source_frames(m, *l))
            if (f.file == cu_file) site_lines.insert(f.line);
      const int marked = lines.at(o->tag);
      CHECK(std::any_of(site_lines.begin(), site_lines.end(), [&](int l) { return l >= marked && l <= marked + 2; }));
      const lp::hw::SmemInstr* instr = o->instr.empty() ? nullptr : &lp::hw::smem_instr(o->instr);
      const int address_lanes = instr ? lp::hw::address_lane_count(*instr) : lp::hw::kWarpLanes;
      if (!instr || site.unknown || site.cost_unknown) continue;
      // The verdict, decided for every uniform value, agrees with the formula's samples.
      lp::SymbolicAccess acc;
      acc.pool = &a.pool;
      acc.address = site.address;
      acc.active = site.active;
      acc.active_exact = site.active_exact;
      acc.instr = instr;
      acc.bytes = site.bytes;
      acc.address_lanes = address_lanes;
      acc.arch = &arch;
      acc.base = site.symbol_base;
      acc.extent = site.extent;
      const lp::SymbolicResult r = lp::decide_symbolic_access(acc, lp::Engine::Auto, {});
      REQUIRE(r.conflicts.verdict != lp::Verdict::Unknown);
      CHECK((r.conflicts.verdict == lp::Verdict::Refuted) == formula_conflicts);
      CHECK(r.alignment.verdict == lp::Verdict::Proven);
      if (r.conflicts.witness) {  // the witness is a real warp of the formula
        const auto& w = *r.conflicts.witness;
        CHECK(w.wavefronts > w.ideal);
        CHECK(lp::hw::smem_access_cost(arch, *instr, w.addresses, w.active).wavefronts == w.wavefronts);
      }
      // The Z3 engine alone reaches the same verdict, or none within its limit (a load in a loop that
      // lanes leave at different iterations: the portfolio's enumeration splits it by runs of lanes).
      lp::SolverLimits z3_limits;
      z3_limits.timeout_ms = 5000;
      const lp::SymbolicResult z = lp::decide_symbolic_access(acc, lp::Engine::Z3, z3_limits);
      for (const auto& [mine, z3_alone] : {std::pair{&r.conflicts, &z.conflicts}, std::pair{&r.alignment, &z.alignment},
                                           std::pair{&r.bounds, &z.bounds}})
        CHECK((z3_alone->verdict == mine->verdict || (z3_alone->verdict == lp::Verdict::Unknown && z3_alone->limited)));
      // LP016's question for writes: decided, never proven where a sampled warp of the formula has
      // two lanes at one address, and a refutation's warp has two such lanes; both engines agree.
      if (instr->direction == lp::hw::SmemDirection::Store || instr->async != lp::hw::AsyncCopy::None) {
        for (lp::Engine e : {lp::Engine::Auto, lp::Engine::Z3, lp::Engine::Enum}) {
          const lp::LaneOverlap overlap = lp::decide_lane_overlap(acc, e, z3_limits);
          INFO("lane overlap, engine " << lp::engine_name(e) << ": " << overlap.reason);
          if (e == lp::Engine::Enum && overlap.verdict == lp::Verdict::Unknown) continue;  // too many values to enumerate
          REQUIRE(overlap.verdict != lp::Verdict::Unknown);
          CHECK(!(formula_collides && overlap.verdict == lp::Verdict::Proven));
          if (overlap.witness) CHECK(two_lanes_share_an_address(overlap.witness->addresses, overlap.witness->active));
          ++checked.overlap_decisions;
        }
      }
    }
  }
}

void check_all(const std::string& dir) {
  Checked c;
  check_file(dir + "smem_kernels.ptx", kDir + "smem_kernels.cu", "sm_80", c);
  check_file(dir + "smem_sm90.ptx", kDir + "smem_sm90.cu", "sm_90", c);
  // Every marked access was found.
  for (const auto& o : lp::test::smem_kernel_oracle()) CHECK(c.tags.count(o.tag) == 1);
  CHECK(c.samples > 500);
  CHECK(c.overlap_decisions >= 10);
}

}  // namespace

TEST_CASE("ptx: recovered addresses equal the source's formulas, verdicts equal the bank model's (checked-in PTX)", "[ptx]") {
  check_all(kDir);
}

TEST_CASE("ptx: a CuTe cp.async + ldmatrix mainloop over a swizzled tile, against CuTe's swizzle written out", "[ptx][cute]") {
  Checked c;
  check_file(kDir + "cute_sm80_mainloop.ptx", kDir + "cute_sm80_mainloop.cu", "sm_80", c, lp::test::cute_kernel_oracle());
  for (const auto& o : lp::test::cute_kernel_oracle()) CHECK(c.tags.count(o.tag) == 1);
}

TEST_CASE("ptx: the same on PTX nvcc generates now", "[ptx][nvcc]") {
  const std::string nvcc = lp::replay::find_tool("nvcc");
  if (nvcc.empty()) {
    WARN("nvcc not found: the checked-in PTX was checked, fresh output was not");
    return;
  }
  const fs::path tmp = fs::temp_directory_path() / ("lp_ptx_" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  for (const auto& [cu, arch] : {std::pair{"smem_kernels", "sm_80"}, std::pair{"smem_sm90", "sm_90"}}) {
    const auto r = lp::test::run_process(nvcc, {"-O3", "-lineinfo", std::string("-arch=") + arch, "--ptx", kDir + cu + ".cu",
                                                "-o", (tmp / (std::string(cu) + ".ptx")).string()});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
  }
  check_all(tmp.string() + "/");
  fs::remove_all(tmp);
}

TEST_CASE("ptx: a store proven to write one value from every lane writes equal data at every lane of sampled warps",
          "[ptx][store-collision]") {
  // Every st.shared of the repository's PTX: decide_one_value's proof against the stored terms
  // evaluated at all 32 lanes for random values of the unknowns; stores whose data depends on the
  // lane must not be proven, and both kinds must occur.
  std::mt19937_64 rng(29);
  int proven = 0, not_proven = 0;
  for (const auto& entry : fs::directory_iterator(LP_SOURCE_DIR "/tests/data/ptx")) {
    if (entry.path().extension() != ".ptx") continue;
    const auto m = lp::ptx::read_compiled_module(entry.path().string(), lp::test::read_file(entry.path().string()), {});
    const auto& P = m->analysis.pool;
    for (const auto& k : m->kernels)
      for (const auto& a : k.accesses) {
        const auto& s = m->site(k, a);
        if (s.stored.empty() || a.unknown) continue;
        INFO(entry.path().filename().string() << ": " << a.what);
        const lp::Outcome o = lp::decide_one_value(lp::rules::symbolic_access(*m, k, a), s.stored, {});
        bool equal = true;
        for (int sample = 0; sample < 16 && equal; ++sample) {
          lp::term::Evaluator ev(P);
          for (TermId t : s.stored)
            for (lp::term::VarId v : P.vars_of(t)) ev.set(v, rng());
          std::vector<uint64_t> first;
          for (int lane = 0; lane < 32; ++lane) {
            ev.set(P.lane_var(), static_cast<uint64_t>(lane));
            std::vector<uint64_t> data;
            for (TermId t : s.stored) data.push_back(ev.eval(t));
            if (lane == 0) first = data;
            equal = equal && data == first;
          }
        }
        if (o.verdict == lp::Verdict::Proven) {
          CHECK(equal);
          ++proven;
        } else {
          ++not_proven;
        }
      }
  }
  CHECK(proven >= 3);
  CHECK(not_proven >= 10);
}
