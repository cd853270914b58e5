// The launch domain (docs/ptx.md): verdicts on kernels written for the purpose
// (tests/data/ptx/launch_kernels.cu, launch_elsewhere.cu) against a brute force over the launches
// they are stated to have, the weakest launch conditions against a brute force over every legal
// block, the three ways of stating a launch against each other, and a property test over random
// kernels: the general domain never yields a witness outside the hardware's limits.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <set>
#include <sstream>

#include "frontend/annotate/Statement.h"
#include "frontend/ptx/KernelFacts.h"
#include "hw/BankModel.h"
#include "ptx/PtxOracle.h"
#include "rules/CompiledAccess.h"
#include "solver/LaneOverlap.h"
#include "solver/SymbolicAccess.h"
#include "support/Files.h"
#include "support/Process.h"

#include <nlohmann/json.hpp>
#include <unistd.h>

namespace fs = std::filesystem;
using lp::term::TermId;
using lp::term::VarId;

namespace {

const std::string kDir = LP_SOURCE_DIR "/tests/data/ptx/";
const lp::hw::Arch& kArch = lp::hw::arch_by_name("sm_90");

struct Thread {
  int64_t x = 0, y = 0, z = 0;
};

/// One access of launch_kernels.cu as its source writes it: its index formula (bytes from the
/// buffer's base) for each unrolled instance j, at a stated block.
struct Formula {
  std::string kernel, tag, instr;
  std::array<int64_t, 3> block;
  std::vector<int64_t> js;
  std::function<int64_t(const Thread&, int64_t)> offset;
};

std::vector<int64_t> range(int64_t lo, int64_t hi, int64_t step = 1) {
  std::vector<int64_t> v;
  for (int64_t x = lo; x < hi; x += step) v.push_back(x);
  return v;
}

std::vector<Formula> formulas() {
  using T = const Thread&;
  const std::array<int64_t, 3> tp{32, 8, 1}, mm{16, 16, 1}, st{8, 8, 4}, bd{32, 1, 1}, sc{32, 4, 1}, api{64, 2, 1}, ex{16, 16, 1};
  const auto rows = range(0, 32, 8), one = std::vector<int64_t>{0};
  return {
      {"transpose_padded", "tp_store", "st.shared.b32", tp, rows, [](T t, int64_t j) { return 4 * ((t.y + j) * 33 + t.x); }},
      {"transpose_padded", "tp_load", "ld.shared.b32", tp, rows, [](T t, int64_t j) { return 4 * (t.x * 33 + t.y + j); }},
      {"transpose_naive", "tn_store", "st.shared.b32", tp, rows, [](T t, int64_t j) { return 4 * ((t.y + j) * 32 + t.x); }},
      {"transpose_naive", "tn_load", "ld.shared.b32", tp, rows, [](T t, int64_t j) { return 4 * (t.x * 32 + t.y + j); }},
      {"matmul_tiled", "mm_store_a", "st.shared.b32", mm, one, [](T t, int64_t) { return 4 * (t.y * 16 + t.x); }},
      {"matmul_tiled", "mm_store_b", "st.shared.b32", mm, one, [](T t, int64_t) { return 4 * (t.y * 16 + t.x); }},
      {"matmul_tiled", "mm_load", "ld.shared.b32", mm, range(0, 16), [](T t, int64_t k) { return 4 * (t.y * 16 + k); }},
      {"matmul_tiled", "mm_load", "ld.shared.b32", mm, range(0, 16), [](T t, int64_t k) { return 4 * (k * 16 + t.x); }},
      {"stencil_3d", "st_store", "st.shared.b32", st, one, [](T t, int64_t) { return 4 * (t.z * 72 + t.y * 9 + t.x); }},
      {"stencil_3d", "st_load", "ld.shared.b32", st, one, [](T t, int64_t) { return 4 * (t.z * 72 + t.x * 9 + t.y); }},
      {"bounded", "bd_store", "st.shared.b32", bd, one, [](T t, int64_t) { return 4 * t.x; }},
      {"bounded", "bd_load", "ld.shared.b32", bd, one, [](T t, int64_t) { return 4 * ((t.x * 4) & 4095); }},
      {"stated_in_comment", "sc_store", "st.shared.b32", sc, one, [](T t, int64_t) { return 4 * (t.y * 32 + t.x); }},
      {"stated_in_comment", "sc_load", "ld.shared.b32", sc, one,
       [](T t, int64_t) { return 4 * ((t.x & 3) * 32 + t.y * 8 + (t.x >> 2)); }},
      {"api_launched", "api_store", "st.shared.b32", api, one, [](T t, int64_t) { return 4 * (t.y * 64 + t.x); }},
      {"api_launched", "api_load", "ld.shared.b32", api, one, [](T t, int64_t) { return 4 * (t.x * 2 + t.y); }},
      {"ex_launched", "ex_store", "st.shared.b32", ex, one, [](T t, int64_t) { return 4 * (t.x * 17 + t.y); }},
      {"ex_launched", "ex_load", "ld.shared.b32", ex, one, [](T t, int64_t) { return 4 * (t.y * 17 + t.x); }},
  };
}

Thread thread_at(int64_t t, const std::array<int64_t, 3>& b) { return Thread{t % b[0], (t / b[0]) % b[1], t / (b[0] * b[1])}; }

/// The brute force: every warp of the block, the formula's addresses from base 0, the bank model.
struct Truth {
  bool conflict = false, inside = true;
};
Truth brute_force(const std::function<int64_t(const Thread&)>& offset, const std::array<int64_t, 3>& block, const lp::hw::SmemInstr& instr,
                  int bytes, int64_t extent) {
  Truth truth;
  const int64_t threads = block[0] * block[1] * block[2];
  for (int64_t warp = 0; warp * 32 < threads; ++warp) {
    std::vector<int64_t> addresses(32, 0);
    lp::hw::LaneMask mask = 0;
    for (int lane = 0; lane < 32; ++lane) {
      const int64_t t = warp * 32 + lane;
      if (t >= threads) continue;
      addresses[static_cast<size_t>(lane)] = offset(thread_at(t, block));
      mask |= lp::hw::LaneMask{1} << lane;
      const int64_t a = addresses[static_cast<size_t>(lane)];
      if (a < 0 || a + bytes > extent) truth.inside = false;
    }
    for (int lane = 0; lane < 32; ++lane)
      if (!((mask >> lane) & 1)) addresses[static_cast<size_t>(lane)] = addresses[static_cast<size_t>(__builtin_ctz(mask))];
    bool in_memory = true;
    for (int64_t a : addresses) in_memory = in_memory && a >= 0 && a + bytes <= kArch.max_smem_bytes_per_block;
    if (in_memory && !lp::hw::smem_access_cost(kArch, instr, addresses, mask).conflict_free) truth.conflict = true;
  }
  return truth;
}

lp::annotate::LaunchDecl launch_text(const std::string& text) {
  auto src = std::make_shared<lp::SourceText>();
  src->name = "test";
  src->text = text;
  return lp::annotate::parse_launch_text(src);
}

std::unique_ptr<lp::ptx::CompiledModule> compiled(const std::string& ptx, const lp::ptx::FrontEndInputs& inputs) {
  return lp::ptx::read_compiled_module(ptx, lp::test::read_file(ptx), inputs);
}

int source_line(const lp::ptx::CompiledModule& m, const lp::ptx::Site& s) {
  if (!s.origin.debug_loc) return 0;
  const auto frames = lp::ptx::source_frames(m.module, *s.origin.debug_loc);
  return frames.empty() ? 0 : frames.front().line;
}

/// Whether the site's address and activity are the formula's at every lane of every warp of the
/// block (base 0, the other unknowns 0).
bool follows(const lp::ptx::CompiledModule& m, const lp::ptx::Site& s, const std::function<int64_t(const Thread&)>& offset,
             const std::array<int64_t, 3>& block) {
  const auto& P = m.analysis.pool;
  std::optional<VarId> warp;
  for (VarId v : P.vars_of(s.address))
    if (P.var(v).name == "warp") warp = v;
  for (VarId v : P.vars_of(s.active))
    if (P.var(v).name == "warp") warp = v;
  const int64_t threads = block[0] * block[1] * block[2];
  lp::term::Evaluator ev(P);
  // The kernels' integer parameters are sizes (matmul's loop runs n / 16 times): 1024; a loop's
  // iteration and the buffer's base: 0.
  for (TermId t : {s.address, s.active})
    for (VarId v : P.vars_of(t))
      if (P.var(v).name.find("_param_") != std::string::npos) ev.set(v, 1024);
  for (int64_t w = 0; w * 32 < threads; ++w) {
    if (warp) ev.set(*warp, static_cast<uint64_t>(w));
    else if (w > 0) break;
    for (int lane = 0; lane < 32; ++lane) {
      ev.set(P.lane_var(), static_cast<uint64_t>(lane));
      const int64_t t = w * 32 + lane;
      const bool exists = t < threads;
      if ((ev.eval(s.active) != 0) != exists) return false;
      if (exists && static_cast<int64_t>(ev.eval(s.address)) != offset(thread_at(t, block))) return false;
    }
  }
  return true;
}

/// Whether an access conflicts or leaves its buffer in some warp of a one-block launch: every warp
/// of `block`, the access's address terms at those extents, the other unknowns (the buffer's base) 0.
Truth block_truth(const lp::ptx::CompiledModule& m, const lp::ptx::Site& s, const lp::hw::SmemInstr& instr,
                  const std::array<int64_t, 3>& block) {
  const auto& P = m.analysis.pool;
  lp::term::Evaluator ev(P);
  std::optional<VarId> warp;
  for (VarId v : P.vars_of(s.address)) {
    const std::string& n = P.var(v).name;
    if (n == "warp") warp = v;
    for (size_t d = 0; d < 3; ++d)
      if (n == std::string("ntid.") + "xyz"[d]) ev.set(v, static_cast<uint64_t>(block[d]));
  }
  const int64_t extent = static_cast<int64_t>(*P.const_value(s.extent));
  Truth truth{false, true};
  const int64_t threads = block[0] * block[1] * block[2];
  for (int64_t w = 0; w * 32 < threads; ++w) {
    if (warp) ev.set(*warp, static_cast<uint64_t>(w));
    std::vector<int64_t> addrs(32, 0);
    lp::hw::LaneMask mask = 0;
    for (int lane = 0; lane < 32; ++lane) {
      if (w * 32 + lane >= threads) continue;
      ev.set(P.lane_var(), static_cast<uint64_t>(lane));
      const int64_t off = static_cast<int64_t>(ev.eval(s.address));
      addrs[static_cast<size_t>(lane)] = off;
      mask |= lp::hw::LaneMask{1} << lane;
      truth.inside = truth.inside && off >= 0 && off + s.bytes <= extent;
    }
    for (int lane = 0; lane < 32; ++lane)
      if (!((mask >> lane) & 1)) addrs[static_cast<size_t>(lane)] = addrs[static_cast<size_t>(__builtin_ctz(mask))];
    bool in_memory = true;
    for (int64_t v : addrs) in_memory = in_memory && v >= 0 && v + s.bytes <= kArch.max_smem_bytes_per_block;
    if (in_memory && !lp::hw::smem_access_cost(kArch, instr, addrs, mask).conflict_free) truth.conflict = true;
  }
  return truth;
}

}  // namespace

TEST_CASE("launch domain: verdicts at the stated launches equal a brute force over them", "[ptx][launch]") {
  lp::ptx::FrontEndInputs inputs;
  for (const char* l : {"transpose_padded=block(32, 8)", "transpose_naive=block(32, 8)", "matmul_tiled=block(16, 16)",
                        "stencil_3d=block(8, 8, 4)", "bounded=block(32)", "stated_in_comment=block(32, 4)",
                        "api_launched=block(64, 2) dynamic_smem(512)", "ex_launched=block(16, 16)"}) {
    const std::string s(l);
    inputs.option_launches.push_back({s.substr(0, s.find('=')), launch_text(s.substr(s.find('=') + 1))});
  }
  const auto m = compiled(kDir + "launch_kernels.ptx", inputs);
  REQUIRE(!m->read_error);
  const auto lines = lp::test::oracle_lines(kDir + "launch_kernels.cu");
  const auto all = formulas();
  std::set<std::pair<const Formula*, int64_t>> seen;
  int decided = 0, conflicting = 0, outside = 0;
  for (const auto& k : m->kernels) {
    if (k.name.rfind("runtime_block", 0) == 0) continue;  // no stated launch: the next test
    for (const auto& a : k.accesses) {
      const auto& s = m->site(k, a);
      const int line = source_line(*m, s);
      INFO(k.name << ": " << a.what << " at line " << line);
      const Formula* match = nullptr;
      int64_t instance = 0;
      for (const Formula& f : all) {
        if (k.name.rfind(f.kernel + "(", 0) != 0 || f.instr != (s.instr ? s.instr->name : "") || lines.at(f.tag) != line) continue;
        for (int64_t j : f.js)
          if (!match && follows(*m, s, [&](const Thread& t) { return f.offset(t, j); }, f.block)) {
            match = &f;
            instance = j;
          }
      }
      REQUIRE(match != nullptr);
      seen.insert({match, instance});
      const lp::SymbolicResult r = lp::decide_symbolic_access(lp::rules::symbolic_access(*m, k, a), lp::Engine::Auto, {});
      const int64_t extent = static_cast<int64_t>(*m->analysis.pool.const_value(s.extent));
      const Truth truth = brute_force([&](const Thread& t) { return match->offset(t, instance); }, match->block, *a.instr,
                                      s.bytes, extent);
      REQUIRE(r.conflicts.verdict != lp::Verdict::Unknown);
      REQUIRE(r.bounds.verdict != lp::Verdict::Unknown);
      CHECK((r.conflicts.verdict == lp::Verdict::Refuted) == truth.conflict);
      CHECK((r.bounds.verdict == lp::Verdict::Proven) == truth.inside);
      CHECK(r.alignment.verdict == lp::Verdict::Proven);
      CHECK(!r.conflicts.holds_when);  // the launch is stated: an ordinary verdict
      ++decided;
      conflicting += truth.conflict;
      outside += !truth.inside;
    }
  }
  // Every instance of every tagged access was found.
  size_t instances = 0;
  for (const Formula& f : all) instances += f.js.size();
  CHECK(seen.size() == instances);
  CHECK(decided == static_cast<int>(seen.size()));
  CHECK(conflicting > 5);
  CHECK(outside == 0);
}

TEST_CASE("store collisions (LP016) at stated launches equal a brute force over every warp of the block", "[ptx][launch]") {
  // Each store of launch_kernels.cu at its own block and at blocks whose rows are wider than the
  // tile's, so that one warp spans two rows (stencil: 16 of 9, matmul: 24 of 16, transposes: 48 of
  // 32 or 33) or does not: the formulas are the source's, so they hold at any block.
  struct Launch {
    std::string kernel;
    std::array<int64_t, 3> block;
  };
  const std::vector<Launch> launches = {
      {"transpose_padded", {32, 8, 1}}, {"transpose_padded", {48, 4, 1}}, {"transpose_naive", {32, 8, 1}},
      {"transpose_naive", {48, 4, 1}},  {"matmul_tiled", {16, 16, 1}},     {"matmul_tiled", {24, 8, 1}},
      {"stencil_3d", {8, 8, 4}},        {"stencil_3d", {16, 4, 4}},        {"api_launched", {64, 2, 1}},
      {"api_launched", {48, 2, 1}},     {"ex_launched", {16, 16, 1}},      {"ex_launched", {32, 8, 1}},
      {"stated_in_comment", {32, 4, 1}}};
  const auto lines = lp::test::oracle_lines(kDir + "launch_kernels.cu");
  const auto all = formulas();
  int decided = 0, colliding = 0, twins = 0;
  for (const Launch& l : launches) {
    lp::ptx::FrontEndInputs inputs;
    inputs.option_launches.push_back(
        {l.kernel, launch_text(fmt::format("block({}, {}, {}) dynamic_smem(512)", l.block[0], l.block[1], l.block[2]))});
    const auto m = compiled(kDir + "launch_kernels.ptx", inputs);
    REQUIRE(!m->read_error);
    for (const auto& k : m->kernels) {
      if (k.name.rfind(l.kernel + "(", 0) != 0) continue;
      // The first write of each lane_overlap_key: its twins take its verdict (rules/StoreCollisionRule.cpp).
      std::map<lp::LaneOverlapKey, lp::LaneOverlap> first_of_key;
      for (const auto& a : k.accesses) {
        const auto& s = m->site(k, a);
        if (a.instr->direction != lp::hw::SmemDirection::Store) continue;
        INFO(k.name << ": " << a.what << " at block " << l.block[0] << "x" << l.block[1] << "x" << l.block[2]);
        std::function<int64_t(const Thread&)> offset;
        for (const Formula& f : all)
          if (k.name.rfind(f.kernel + "(", 0) == 0 && f.instr == (s.instr ? s.instr->name : "") && lines.at(f.tag) == source_line(*m, s))
            for (int64_t j : f.js)
              if (!offset && follows(*m, s, [&](const Thread& t) { return f.offset(t, j); }, l.block))
                offset = [&f, j](const Thread& t) { return f.offset(t, j); };
        REQUIRE(offset);
        // Two threads of one warp at one address.
        bool collides = false;
        const int64_t threads = l.block[0] * l.block[1] * l.block[2];
        for (int64_t t = 0; t < threads; ++t)
          for (int64_t u = t + 1; u < threads && u / 32 == t / 32; ++u)
            collides = collides || offset(thread_at(t, l.block)) == offset(thread_at(u, l.block));
        const lp::SymbolicAccess acc = lp::rules::symbolic_access(*m, k, a);
        const lp::LaneOverlap o = lp::decide_lane_overlap(acc, lp::Engine::Auto, {});
        REQUIRE(o.verdict != lp::Verdict::Unknown);
        CHECK((o.verdict == lp::Verdict::Refuted) == collides);
        const auto [first, fresh] = first_of_key.emplace(lp::lane_overlap_key(acc), o);
        if (!fresh) {
          const lp::LaneOverlap twin = lp::lane_overlap_of_twin(acc, first->second);
          CHECK(twin.verdict == o.verdict);
          if (twin.witness) CHECK(twin.witness->addresses[static_cast<size_t>(twin.lanes.first)] ==
                                  twin.witness->addresses[static_cast<size_t>(twin.lanes.second)]);
          ++twins;
        }
        CHECK(!o.holds_when);  // the launch is stated
        if (o.witness) {
          const auto [i, j] = o.lanes;
          CHECK(o.witness->addresses[static_cast<size_t>(i)] == o.witness->addresses[static_cast<size_t>(j)]);
        }
        ++decided;
        colliding += collides;
      }
    }
  }
  CHECK(decided >= 15);
  CHECK(colliding >= 3);
  CHECK(twins >= 6);  // the transposes' unrolled rows, matmul's two tiles
}

TEST_CASE("launch domain: the weakest launch condition of each launch-dependent verdict holds at every legal block it admits and "
          "fails at its witness",
          "[ptx][launch]") {
  // runtime_block (one-dimensional, no stated launch) and launched_elsewhere (two-dimensional, its
  // translation unit never launches it): every legal block is possible.
  struct Case {
    std::string ptx, kernel;
    bool two_d;
  };
  int conditions = 0;
  for (const Case& c : {Case{kDir + "launch_kernels.ptx", "runtime_block", false}, Case{kDir + "launch_elsewhere.ptx", "launched_elsewhere", true}}) {
    const auto m = compiled(c.ptx, {});
    for (const auto& k : m->kernels) {
      if (k.name.rfind(c.kernel + "(", 0) != 0) continue;
      REQUIRE(k.launch.find("any launch") != std::string::npos);
      for (const auto& a : k.accesses) {
        const auto& s = m->site(k, a);
        const lp::SymbolicAccess acc = lp::rules::symbolic_access(*m, k, a);
        const lp::SymbolicResult r = lp::decide_symbolic_access(acc, lp::Engine::Auto, {});
        for (auto [p, name] : {std::pair{&r.conflicts, "conflicts"}, std::pair{&r.bounds, "bounds"}}) {
          INFO(a.what << " " << name);
          REQUIRE(p->verdict != lp::Verdict::Unknown);
          if (p->verdict != lp::Verdict::Refuted || !p->holds_when) continue;
          ++conditions;
          const auto& narrowed = p->holds_when->narrowed;
          auto admits = [&](const std::array<int64_t, 3>& b) {
            for (size_t d = 0; d < 3; ++d) {
              if (!acc.free_extents[d]) continue;
              auto it = narrowed.find(*acc.free_extents[d]);
              if (it == narrowed.end()) continue;
              const auto& dom = it->second;
              const uint64_t x = static_cast<uint64_t>(b[d]);
              if (x < dom.lo || x > dom.hi || (x & ((uint64_t{1} << dom.align_log2) - 1)) != 0) return false;
            }
            return true;
          };
          // Every legal block of the kernel's dimensions that the condition admits: the property holds.
          int admitted = 0;
          for (int64_t x = 1; x <= 1024; ++x)
            for (int64_t y = 1; y <= (c.two_d ? 1024 / x : 1); ++y) {
              const std::array<int64_t, 3> b{x, y, 1};
              if (!admits(b)) continue;
              ++admitted;
              const Truth truth = block_truth(*m, s, *a.instr, b);
              CHECK((std::string(name) == "conflicts" ? !truth.conflict : truth.inside));
            }
          CHECK(admitted > 0);
          // The witness is a legal launch, outside the condition.
          std::array<int64_t, 3> wb{1, 1, 1};
          for (const auto& [n, v] : p->witness->uniforms)
            for (size_t d = 0; d < 3; ++d)
              if (n == std::string("ntid.") + "xyz"[d]) wb[d] = v;
          CHECK(wb[0] * wb[1] * wb[2] <= 1024);
          CHECK_FALSE(admits(wb));
        }
      }
    }
  }
  CHECK(conditions >= 4);
}

TEST_CASE("launch domain: a host launch that knows some extents fixes them and leaves the others free, and its verdicts equal a "
          "brute force over the free ones",
          "[ptx][launch]") {
  // launched_elsewhere reads tid.y, so with no launch its block may have rows. Its translation
  // unit launching it as `<<<grid, threads>>>` with `int threads` (or `dim3(threads, 1, 1)`) makes
  // it one-dimensional; `dim3(threads, 4)` fixes y; `dim3(16, rows)` fixes x.
  using Known = std::array<std::optional<int64_t>, 3>;
  int decided = 0, conditions = 0;
  for (const Known& known : {Known{std::nullopt, 1, 1}, Known{std::nullopt, 4, 1}, Known{16, std::nullopt, 1}}) {
    lp::cuda::HostLaunch h;
    h.kernel = "launched_elsewhere";
    h.block = lp::hw::BlockExtents{known};
    lp::ptx::FrontEndInputs inputs;
    inputs.host_launches = std::vector<lp::cuda::HostLaunch>{h};
    const auto m = compiled(kDir + "launch_elsewhere.ptx", inputs);
    // The legal blocks the launch admits.
    std::vector<std::array<int64_t, 3>> blocks;
    for (int64_t x = 1; x <= 1024; ++x)
      for (int64_t y = 1; x * y <= 1024; ++y) {
        const std::array<int64_t, 3> b{x, y, 1};
        bool fits = true;
        for (size_t d = 0; d < 3; ++d) fits = fits && (!known[d] || *known[d] == b[d]);
        if (fits) blocks.push_back(b);
      }
    for (const auto& k : m->kernels) {
      INFO(k.launch);
      REQUIRE(k.launch.find(h.block.text()) != std::string::npos);
      for (const auto& a : k.accesses) {
        const auto& s = m->site(k, a);
        const lp::SymbolicAccess acc = lp::rules::symbolic_access(*m, k, a);
        // The known extents are constants, the others free.
        for (size_t d = 0; d < 3; ++d) CHECK(acc.free_extents[d].has_value() == !known[d]);
        const lp::SymbolicResult r = lp::decide_symbolic_access(acc, lp::Engine::Auto, {});
        std::vector<Truth> truths;
        for (const auto& b : blocks) truths.push_back(block_truth(*m, s, *a.instr, b));
        for (auto [p, of_conflicts] : {std::pair{&r.conflicts, true}, std::pair{&r.bounds, false}}) {
          const bool conflicts = of_conflicts;  // clang 14 cannot capture a structured binding
          INFO(a.what << (conflicts ? " conflicts" : " bounds") << " with block " << h.block.text());
          REQUIRE(p->verdict != lp::Verdict::Unknown);
          ++decided;
          auto holds = [&](const Truth& t) { return conflicts ? !t.conflict : t.inside; };
          const bool everywhere = std::all_of(truths.begin(), truths.end(), holds);
          CHECK((p->verdict == lp::Verdict::Proven) == everywhere);
          if (p->verdict != lp::Verdict::Refuted) continue;
          // The witness's block is one the launch admits.
          std::array<int64_t, 3> wb{known[0].value_or(1), known[1].value_or(1), known[2].value_or(1)};
          for (const auto& [n, v] : p->witness->uniforms)
            for (size_t d = 0; d < 3; ++d)
              if (n == std::string("ntid.") + "xyz"[d]) wb[d] = v;
          CHECK(std::find(blocks.begin(), blocks.end(), wb) != blocks.end());
          CHECK_FALSE(holds(block_truth(*m, s, *a.instr, wb)));
          if (!p->holds_when) continue;
          ++conditions;
          // The condition holds at every block it admits.
          for (size_t i = 0; i < blocks.size(); ++i) {
            bool admitted = true;
            for (const auto& [v, dom] : p->holds_when->narrowed)
              for (size_t d = 0; d < 3; ++d)
                if (acc.free_extents[d] == v) {
                  const uint64_t x = static_cast<uint64_t>(blocks[i][d]);
                  admitted = admitted && x >= dom.lo && x <= dom.hi && (x & ((uint64_t{1} << dom.align_log2) - 1)) == 0;
                }
            if (admitted) CHECK(holds(truths[i]));
          }
        }
      }
    }
  }
  CHECK(decided >= 12);
  CHECK(conditions >= 2);
  // A known extent no GPU runs (`<<<1, 0>>>`, `dim3(n, 2048)`) is a launch problem, not a launch.
  for (const lp::hw::BlockExtents& impossible : {lp::hw::BlockExtents{{0, 1, 1}}, lp::hw::BlockExtents{{std::nullopt, 2048, 1}}}) {
    lp::cuda::HostLaunch h;
    h.kernel = "launched_elsewhere";
    h.block = impossible;
    lp::ptx::FrontEndInputs inputs;
    inputs.host_launches = std::vector<lp::cuda::HostLaunch>{h};
    const auto m = compiled(kDir + "launch_elsewhere.ptx", inputs);
    REQUIRE(m->launch_problems.size() == 1);
    CHECK(m->launch_problems[0].message.find(impossible.text()) != std::string::npos);
    CHECK(m->kernels[0].launch.find("any legal launch") != std::string::npos);
  }
}

TEST_CASE("launch domain: a launch stated in a comment, in [ptx.launch] and with --launch gives the same verdicts", "[ptx][launch]") {
  const fs::path tmp = fs::temp_directory_path() / ("lp_launch_forms_" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  // The PTX names its source as the file beside it; the source's second line becomes the comment.
  std::string ptx = lp::test::read_file(kDir + "launch_elsewhere.ptx");
  const size_t file = ptx.find(".file\t1 \"");
  REQUIRE(file != std::string::npos);
  ptx.replace(file, ptx.find('\n', file) - file, ".file\t1 \"launch_elsewhere.cu\"");
  std::ofstream(tmp / "launch_elsewhere.ptx") << ptx;
  std::istringstream cu(lp::test::read_file(kDir + "launch_elsewhere.cu"));
  std::string plain, commented, line;
  for (int n = 1; std::getline(cu, line); ++n) {
    plain += line + "\n";
    commented += (n == 2 ? std::string("// layoutproof: launch block(32, 16)") : line) + "\n";
  }
  std::ofstream(tmp / "config.toml") << "[ptx.launch]\n\"launched_elsewhere\" = \"block(32, 16)\"\n";
  auto findings = [&](const std::string& source, std::vector<std::string> extra) {
    std::ofstream(tmp / "launch_elsewhere.cu") << source;
    std::vector<std::string> args = {"check", "--no-cache", "--no-progress", (tmp / "launch_elsewhere.ptx").string(), "--format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = lp::test::run_layoutproof(args);
    const auto doc = nlohmann::json::parse(r.out);
    return doc["findings"];
  };
  const auto by_comment = findings(commented, {});
  const auto by_config = findings(plain, {"--config", (tmp / "config.toml").string()});
  const auto by_option = findings(plain, {"--launch", "launched_elsewhere=block(32, 16)"});
  const auto general = findings(plain, {});
  CHECK(by_comment == by_config);
  CHECK(by_config == by_option);
  // At block (32, 16) the column read s[threadIdx.x][threadIdx.y] of the padded 64 x 33 tile is
  // conflict-free and every access stays inside it: no finding; without the launch, launch-dependent ones.
  CHECK(by_option.empty());
  REQUIRE_FALSE(general.empty());
  for (const auto& f : general) CHECK(f["kind"] == "launch-dependent");
  fs::remove_all(tmp);
}

namespace {

// A random kernel: an index computed from the thread's coordinates, the block's extents, the block
// index and a parameter with random operations, under a random block directive, stored to a shared
// array of random size.
std::string random_kernel(std::mt19937& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  std::ostringstream k;
  k << ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u32 k_param_0)\n";
  switch (pick(4)) {
    case 0: k << ".maxntid " << (32 << pick(5)) << ", 1, 1\n"; break;
    case 1: k << ".maxntid " << (1 + pick(64)) << ", " << (1 + pick(8)) << ", " << (1 + pick(4)) << "\n"; break;
    case 2: k << ".reqntid " << (8 << pick(3)) << ", " << (1 + pick(8)) << ", 1\n"; break;
    default: break;
  }
  const int size = 4 << (6 + pick(6));
  k << "{\n.reg .b32 %r<64>;\n.shared .align 16 .b8 s[" << size << "];\n";
  const char* sources[] = {"%tid.x", "%tid.y", "%tid.z", "%ntid.x", "%ntid.y", "%ctaid.x", "%nctaid.x", "%laneid"};
  int next = 1;
  std::vector<int> regs;
  for (const char* s : sources) {
    k << "mov.u32 %r" << next << ", " << s << ";\n";
    regs.push_back(next++);
  }
  k << "ld.param.u32 %r" << next << ", [k_param_0];\n";
  regs.push_back(next++);
  for (int step = 0; step < 6; ++step) {
    const int a = regs[static_cast<size_t>(pick(static_cast<int>(regs.size())))];
    const int b = regs[static_cast<size_t>(pick(static_cast<int>(regs.size())))];
    const int c = 1 + pick(40);
    switch (pick(5)) {
      case 0: k << "mad.lo.s32 %r" << next << ", %r" << a << ", " << c << ", %r" << b << ";\n"; break;
      case 1: k << "add.s32 %r" << next << ", %r" << a << ", %r" << b << ";\n"; break;
      case 2: k << "shl.b32 %r" << next << ", %r" << a << ", " << pick(4) << ";\n"; break;
      case 3: k << "xor.b32 %r" << next << ", %r" << a << ", %r" << b << ";\n"; break;
      default: k << "mul.lo.s32 %r" << next << ", %r" << a << ", " << c << ";\n"; break;
    }
    regs.push_back(next++);
  }
  const int index = regs.back();
  k << "and.b32 %r" << next << ", %r" << index << ", " << ((size / 4) * 2 - 1) << ";\n";
  k << "shl.b32 %r" << next + 1 << ", %r" << next << ", 2;\n";
  k << "mov.u32 %r" << next + 2 << ", s;\n";
  k << "add.s32 %r" << next + 3 << ", %r" << next + 2 << ", %r" << next + 1 << ";\n";
  k << "st.shared.u32 [%r" << next + 3 << "], %r1;\nret;\n}\n";
  return k.str();
}

}  // namespace

TEST_CASE("launch domain: no witness of the general domain is a launch the hardware refuses (random kernels)", "[ptx][launch]") {
  std::mt19937 rng(20261128);
  const lp::hw::LaunchLimits& L = kArch.launch;
  int witnesses = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const std::string text = random_kernel(rng);
    INFO(text);
    const fs::path tmp = fs::temp_directory_path() / ("lp_random_" + std::to_string(::getpid()) + ".ptx");
    std::ofstream(tmp) << text;
    const auto m = compiled(tmp.string(), {});
    fs::remove(tmp);
    REQUIRE(!m->read_error);
    const lp::ptx::Function& f = *m->module.function("k");
    for (const auto& k : m->kernels)
      for (const auto& a : k.accesses) {
        lp::SolverLimits limits;
        limits.timeout_ms = 60000;
        const lp::SymbolicResult r = lp::decide_symbolic_access(lp::rules::symbolic_access(*m, k, a), lp::Engine::Auto, limits);
        for (const lp::SymbolicProperty* p : {&r.conflicts, &r.alignment, &r.bounds}) {
          if (p->verdict != lp::Verdict::Refuted) continue;
          ++witnesses;
          std::map<std::string, int64_t> u(p->witness->uniforms.begin(), p->witness->uniforms.end());
          std::array<int64_t, 3> block{1, 1, 1};
          if (f.reqntid) block = *f.reqntid;
          for (size_t d = 0; d < 3; ++d)
            if (u.count(std::string("ntid.") + "xyz"[d])) block[d] = u.at(std::string("ntid.") + "xyz"[d]);
          const int64_t threads = block[0] * block[1] * block[2];
          for (size_t d = 0; d < 3; ++d) {
            CHECK(block[d] >= 1);
            CHECK(block[d] <= L.max_block_dim[d]);
          }
          CHECK(threads <= L.max_threads_per_block);
          if (f.maxntid) CHECK(threads <= (*f.maxntid)[0] * (*f.maxntid)[1] * (*f.maxntid)[2]);
          if (u.count("warp")) CHECK(u.at("warp") * 32 < threads);  // a thread of the witness's warp exists
          if (u.count("ctaid.x") && u.count("nctaid.x")) CHECK(u.at("ctaid.x") < u.at("nctaid.x"));
          if (u.count("nctaid.x")) CHECK(u.at("nctaid.x") <= L.max_grid_dim[0]);
          CHECK(p->witness->active != 0);
        }
      }
  }
  CHECK(witnesses > 10);
}

TEST_CASE("launch domain: run-time strides into dynamic shared memory are decided, and each witness is the source's warp",
          "[ptx][launch]") {
  // A lane's address is threadIdx.x times a parameter: the solver's candidate warps may span more
  // shared memory than the architecture has, which the concrete re-check refuses to cost. Every
  // property is decided, and each refutation's uniform values give, through the source's own
  // formula (tests/data/ptx/dynamic_stride.cu) and the bank model, the warp the witness shows.
  const auto m = compiled(kDir + "dynamic_stride.ptx", {});
  REQUIRE(!m->read_error);
  const std::map<std::string, std::function<uint32_t(uint32_t, uint32_t, uint32_t)>> formula = {
      {"ds_store", [](uint32_t t, uint32_t stride, uint32_t) { return 4 * (t * stride); }},
      {"ds_load", [](uint32_t t, uint32_t, uint32_t) { return 4 * t; }},
      {"dos_store", [](uint32_t t, uint32_t stride, uint32_t offset) { return 4 * (offset + t * stride); }},
      {"dos_load", [](uint32_t t, uint32_t stride, uint32_t) { return 4 * ((t ^ stride) * 33); }},
  };
  const auto lines = lp::test::oracle_lines(kDir + "dynamic_stride.cu");
  int decided = 0, conflicts = 0;
  for (const auto& k : m->kernels)
    for (const auto& a : k.accesses) {
      const lp::ptx::Site& s = m->site(k, a);
      std::string tag;
      for (const auto& [t, line] : lines)
        if (line == source_line(*m, s)) tag = t;
      REQUIRE(formula.count(tag));
      INFO(tag);
      lp::SolverLimits limits;
      limits.timeout_ms = 60000;
      const lp::SymbolicResult r = lp::decide_symbolic_access(lp::rules::symbolic_access(*m, k, a), lp::Engine::Auto, limits);
      for (const lp::SymbolicProperty* p : {&r.conflicts, &r.alignment, &r.bounds}) {
        INFO(p->reason);
        CHECK(p->verdict != lp::Verdict::Unknown);
        ++decided;
      }
      if (r.conflicts.verdict != lp::Verdict::Refuted) {
        // Conflict-free: every warp of every block of up to 1024 threads, at strides 0..64.
        if (tag == "ds_load") {
          for (uint32_t lane_base = 0; lane_base < 1024; lane_base += 32) {
            std::vector<int64_t> addresses;
            for (uint32_t l = 0; l < 32; ++l) addresses.push_back(formula.at(tag)(lane_base + l, 0, 0));
            CHECK(lp::hw::smem_access_cost(kArch, *a.instr, addresses, ~lp::hw::LaneMask{0}).conflict_free);
          }
        }
        continue;
      }
      ++conflicts;
      std::map<std::string, int64_t> u;
      for (const auto& [name, value] : r.conflicts.witness->uniforms) {
        const size_t p = name.find("_param_");
        u[p == std::string::npos ? name : "param_" + name.substr(p + 7)] = value;
      }
      REQUIRE(u.count("ntid.x"));
      const uint32_t warp = static_cast<uint32_t>(u.count("warp") ? u.at("warp") : 0);
      const int64_t threads = u.at("ntid.x");
      std::vector<int64_t> addresses(32, 0);
      lp::hw::LaneMask mask = 0;
      for (uint32_t l = 0; l < 32; ++l) {
        const uint32_t t = warp * 32 + l;
        if (t >= threads) continue;
        mask |= lp::hw::LaneMask{1} << l;
        addresses[l] = formula.at(tag)(t, static_cast<uint32_t>(u.count("param_1") ? u.at("param_1") : 0),
                                       static_cast<uint32_t>(u.count("param_2") ? u.at("param_2") : 0));
      }
      for (uint32_t l = 0; l < 32; ++l)
        if (!((mask >> l) & 1)) addresses[l] = addresses[static_cast<size_t>(__builtin_ctz(mask))];
      const auto cost = lp::hw::smem_access_cost(kArch, *a.instr, addresses, mask);
      CHECK(!cost.conflict_free);
      CHECK(cost.wavefronts == r.conflicts.witness->wavefronts);
      CHECK(threads % 32 == 0);  // the witness is a block of whole warps
    }
  CHECK(decided == 12);
  CHECK(conflicts >= 2);
}

TEST_CASE("launch domain: a cluster has at most 16 CTAs in all, and its rank count is x*y*z", "[ptx][launch]") {
  // Each %cluster_nctaid extent is at most 16 on its own; a launch's cluster has at most 16 CTAs in
  // all (the CUDA C++ Programming Guide, thread block clusters: 16 with the non-portable size).
  // s[x*y*z - 1] of 16 words and t[%cluster_nctarank - x*y*z] of one word stay inside for every
  // legal cluster; extents taken one by one would put the first at word 4095.
  const std::string ptx =
      ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n  .reg .b32 %r<16>;\n"
      "  .shared .align 4 .b8 s[64];\n  .shared .align 4 .b8 t[4];\n"
      "  mov.u32 %r1, %cluster_nctaid.x;\n  mov.u32 %r2, %cluster_nctaid.y;\n  mov.u32 %r3, %cluster_nctaid.z;\n"
      "  mul.lo.s32 %r4, %r1, %r2;\n  mul.lo.s32 %r4, %r4, %r3;\n  add.s32 %r5, %r4, -1;\n  shl.b32 %r6, %r5, 2;\n"
      "  mov.u32 %r7, s;\n  add.s32 %r7, %r7, %r6;\n  st.shared.u32 [%r7], %r1;\n"
      "  mov.u32 %r8, %cluster_nctarank;\n  sub.s32 %r9, %r8, %r4;\n  shl.b32 %r10, %r9, 2;\n"
      "  mov.u32 %r11, t;\n  add.s32 %r11, %r11, %r10;\n  st.shared.u32 [%r11], %r1;\n  ret;\n}\n";
  const auto m = lp::ptx::read_compiled_module("cluster.ptx", ptx, {});
  REQUIRE(!m->read_error);
  REQUIRE(m->kernels.size() == 1);
  REQUIRE(m->kernels[0].accesses.size() == 2);
  for (const auto& a : m->kernels[0].accesses) {
    const lp::SymbolicResult r = lp::decide_symbolic_access(lp::rules::symbolic_access(*m, m->kernels[0], a), lp::Engine::Auto, {});
    INFO(a.what << ": " << r.bounds.reason);
    CHECK(r.bounds.verdict == lp::Verdict::Proven);
  }
}
