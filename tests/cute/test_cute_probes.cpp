// The CuTe probes of CUTLASS's own configurations (oracle_copies.cpp, oracle_layouts.cpp, built
// with the host compiler against the pinned nvidia-cutlass 4.2.0.0 headers) against CuTe itself:
// every access layoutproof/cute.hpp emits must address, thread by thread and instruction by
// instruction, what CuTe's partition_S/partition_D of a real shared-memory tensor addresses (the
// oracle lines the probes print); every layout must evaluate, point by point, as CuTe's tensor
// does through a shared-memory pointer (byte swizzles on absolute addresses).
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

#include "frontend/annotate/AnnotationParser.h"
#include "analyzer/parse/Parsers.h"
#include "support/Files.h"
#include "support/Process.h"
#include "solver/SmemAccess.h"

using namespace lp;
namespace fs = std::filesystem;

namespace {

struct Emitted {
  std::string path;
  annotate::ParseResult parsed;
  std::map<std::string, std::vector<std::vector<int64_t>>> accesses;  // name -> thread -> value offsets
  std::map<std::string, std::vector<int64_t>> layouts;                // name -> index -> offset
};

// Runs a built probe with $LAYOUTPROOF_EMIT set, as `layoutproof extract` does, and reads what it
// wrote: the annotations, parsed by LayoutProof, and the oracle comment lines.
const Emitted& run_probe(const std::string& name) {
  static std::map<std::string, Emitted> cache;
  if (auto it = cache.find(name); it != cache.end()) return it->second;
  Emitted e;
  e.path = (fs::temp_directory_path() / fmt::format("lp_cute_{}_{}.lp", name, ::getpid())).string();
  ::setenv("LAYOUTPROOF_EMIT", e.path.c_str(), 1);
  test::ProcessResult r = test::run_process(std::string(LP_CUTE_PROBE_DIR) + "/" + name, {});
  ::unsetenv("LAYOUTPROOF_EMIT");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string text = test::read_file(e.path);
  fs::remove(e.path);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream w(line);
    std::string hash, kind, what;
    w >> hash >> kind >> what;
    if (kind == "oracle-access") {
      size_t t = 0;
      w >> t;
      auto& threads = e.accesses[what];
      if (threads.size() <= t) threads.resize(t + 1);
      for (int64_t v; w >> v;) threads[t].push_back(v);
    } else if (kind == "oracle-layout") {
      for (int64_t v; w >> v;) e.layouts[what].push_back(v);
    }
  }
  e.parsed = annotate::parse_annotations(name + ".lp", text);
  for (const Diagnostic& d : e.parsed.diagnostics) INFO(d.render());
  REQUIRE(!e.parsed.has_errors());
  return cache.emplace(name, std::move(e)).first->second;
}

// Runs a built probe (named as in LP_CUTE_PROBE_DIR) and `layoutproof check --format json` on what
// it writes.
test::ProcessResult check_probe(const std::string& probe) {
  const std::string path = (fs::temp_directory_path() / fmt::format("lp_check_{}_{}.lp", probe, ::getpid())).string();
  ::setenv("LAYOUTPROOF_EMIT", path.c_str(), 1);
  const int probe_exit = test::run_process(std::string(LP_CUTE_PROBE_DIR) + "/" + probe, {}).exit_code;
  ::unsetenv("LAYOUTPROOF_EMIT");
  REQUIRE(probe_exit == 0);
  test::ProcessResult r = test::run_layoutproof({"check", path, "--no-cache", "--format", "json"});
  fs::remove(path);
  return r;
}

const annotate::BufferDecl& buffer(const annotate::ParseResult& p, const std::string& name) {
  for (const annotate::Statement& s : p.statements)
    if (auto* b = std::get_if<annotate::BufferDecl>(&s.body); b && b->name.text == name) return *b;
  FAIL("no buffer " << name);
  throw;
}

}  // namespace

TEST_CASE("every emitted access is CuTe's partition, thread by thread and instruction by instruction", "[cute]") {
  const Emitted& e = run_probe("oracle_copies");
  std::map<std::string, std::string> instrs;
  size_t checked = 0;
  for (const annotate::Statement& s : e.parsed.statements) {
    auto* a = std::get_if<annotate::AccessDecl>(&s.body);
    if (!a) continue;
    const std::string name = a->name->text;
    INFO("access " << name << ": " << a->lanes.text);
    instrs[name] = a->instr_name.text;
    const annotate::BufferDecl& b = buffer(e.parsed, a->buffer.text);
    SmemAccess access(b.layout->parsed.layout, b.dtype->bits, a->lanes.parsed.layout, *a->instr,
                      *a->arch, b.align ? b.align->value : 16);
    const int bytes = b.dtype->bits / 8;
    const int64_t n = access.elements_per_access();  // one lane's vector, or one matrix row
    REQUIRE(e.accesses.count(name));
    const auto& threads = e.accesses.at(name);
    REQUIRE(threads.size() % 32 == 0);
    const int64_t values = static_cast<int64_t>(threads[0].size());
    REQUIRE(values % n == 0);
    const int64_t issues = values / n, warps = static_cast<int64_t>(threads.size()) / 32;
    // One issue per instruction of each warp: CuTe's values in groups of n, every warp.
    REQUIRE(access.issue_count() == issues * warps);
    for (size_t t = 0; t < threads.size(); ++t)
      for (int64_t j = 0; j < issues; ++j) {
        const int lane = static_cast<int>(t % 32);
        const int64_t issue = j + issues * static_cast<int64_t>(t / 32);
        const std::vector<int64_t>& o = threads[t];
        INFO("thread " << t << ", instruction " << j);
        // The lane's address is CuTe's address of the instruction's first value ...
        REQUIRE(access.address(lane, issue, 0) == o[static_cast<size_t>(n * j)] * bytes);
        // ... and the instruction's values are the consecutive elements the hardware moves.
        for (int64_t v = 1; v < n; ++v) REQUIRE(o[static_cast<size_t>(n * j + v)] == o[static_cast<size_t>(n * j)] + v);
        ++checked;
      }
  }
  CHECK(checked > 10000);
  // The instruction is CuTe's atom: its value count, its matrices, its direction.
  CHECK(instrs == std::map<std::string, std::string>{
                      {"g2s_16", "cp.async.cg.16"},     {"g2s_8", "cp.async.ca.8"},
                      {"g2s_4", "cp.async.ca.4"},       {"g2s_m16", "cp.async.ca.16"},
                      {"ldsm_a_x4", "ldmatrix.x4"},     {"ldsm_a_x2", "ldmatrix.x2"},
                      {"ldsm_a_x1", "ldmatrix.x1"},     {"ldsm_b_x4", "ldmatrix.x4"},
                      {"ldsm_t_x4", "ldmatrix.x4.trans"}, {"ldsm_t_x2", "ldmatrix.x2.trans"},
                      {"ldsm_t_x1", "ldmatrix.x1.trans"}, {"lds_128", "ld.shared.v4.b32"},
                      {"auto_128", "ld.shared.v4.b32"}, {"default_copy", "ld.shared.u16"},
                      {"stsm_x4", "stmatrix.x4"},       {"stsm_x2", "stmatrix.x2"},
                      {"stsm_x1", "stmatrix.x1"},       {"stsm_t_x4", "stmatrix.x4.trans"},
                      {"stsm_t_x2", "stmatrix.x2.trans"}, {"stsm_t_x1", "stmatrix.x1.trans"}});
}

TEST_CASE(".x1 and .x2 lanes that give no row repeat a lower lane's row in CuTe's partition", "[cute]") {
  const Emitted& e = run_probe("oracle_copies");
  for (const auto& [name, rows] : std::map<std::string, int>{{"ldsm_a_x1", 8}, {"ldsm_a_x2", 16}, {"stsm_x1", 8},
                                                               {"stsm_t_x2", 16}}) {
    INFO(name);
    const auto& threads = e.accesses.at(name);
    for (size_t t = 0; t < threads.size(); ++t)
      if (t % 32 >= static_cast<size_t>(rows)) CHECK(threads[t] == threads[t - t % 32 + t % 32 % rows]);
  }
}

TEST_CASE("every emitted GMMA/UMMA layout is CuTe's, point by point, with its byte swizzle on absolute addresses",
          "[cute]") {
  const Emitted& e = run_probe("oracle_layouts");
  size_t layouts = 0;
  for (const auto& [name, offsets] : e.layouts) {
    INFO(name);
    const annotate::BufferDecl& b = buffer(e.parsed, name);
    const Layout& l = b.layout->parsed.layout;
    REQUIRE(l.size() == static_cast<int64_t>(offsets.size()));
    for (int64_t i = 0; i < l.size(); ++i) REQUIRE(l.offset_at(i) == offsets[static_cast<size_t>(i)]);
    // The swizzle stays on byte addresses (smem_ptr[Nb]), never rewritten for elements.
    REQUIRE(!l.stages().empty());
    CHECK(l.stages().back().kind == Stage::Kind::ByteSwizzle);
    CHECK(l.stages().back().element_bits == b.dtype->bits);
    ++layouts;
  }
  // Nine atoms (8 GMMA, 1 UMMA) for each of u8, e4m3, f16, bf16, tf32, f32.
  CHECK(layouts == 54);
}

TEST_CASE("layouts composed with layouts (A o O o B) are CuTe's, point by point, and TileLang's pre-#455 int8 swizzle "
          "collides",
          "[cute][composed]") {
  const Emitted& e = run_probe("oracle_composed");
  size_t layouts = 0;
  for (const auto& [name, offsets] : e.layouts) {
    INFO(name);
    const Layout& l = buffer(e.parsed, name).layout->parsed.layout;
    CHECK(l.has_outer_stage());
    REQUIRE(l.size() == static_cast<int64_t>(offsets.size()));
    for (int64_t i = 0; i < l.size(); ++i) REQUIRE(l.offset_at(i) == offsets[static_cast<size_t>(i)]);
    ++layouts;
  }
  CHECK(layouts == 4);
  // The check: the pre-#455 layout is not injective, with a witness CuTe's own values confirm; the
  // others are.
  test::ProcessResult r = check_probe("oracle_composed");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  const nlohmann::json report = nlohmann::json::parse(r.out);
  REQUIRE(report["findings"].size() == 1);
  const nlohmann::json& f = report["findings"][0];
  CHECK(f["rule"] == "LP001");
  CHECK_THAT(f["message"].get<std::string>(), Catch::Contains("'tilelang_int8_pre455' is not injective"));
  const std::vector<int64_t>& cute = e.layouts.at("tilelang_int8_pre455");
  const nlohmann::json& cex = f["counterexample"];
  INFO(cex.dump());
  const int64_t a = cex["indices"][0].get<int64_t>(), b = cex["indices"][1].get<int64_t>();
  CHECK(a != b);
  CHECK(cute.at(static_cast<size_t>(a)) == cute.at(static_cast<size_t>(b)));
}

TEST_CASE("the wgmma descriptors and TMA boxes are the ones CuTe's make_gmma_desc and make_tma_copy build", "[cute]") {
  const Emitted& e = run_probe("oracle_layouts");
  std::map<std::string, std::string> descs;
  for (const annotate::Statement& s : e.parsed.statements)
    if (auto* d = std::get_if<annotate::DescDecl>(&s.body))
      descs[d->buffer.text] = fmt::format("{} {}{} {}", d->kind == annotate::DescKind::Wgmma ? "wgmma" : "tcgen05",
                                          hw::swizzle_name(d->swizzle.mode), d->swizzle.atom_32b ? "_base32B" : "",
                                          d->major->major == annotate::Major::K ? "K" : "MN");
  // LayoutType of Layout_K_SW128 is B128, of Layout_MN_SW64 B64 (mma_traits_sm90_gmma.hpp:131-152);
  // UMMA's Layout_K_SW128 is SWIZZLE_128B and Layout_MN_SW128_32B SWIZZLE_128B_BASE32B
  // (mma_traits_sm100.hpp, cute/arch/mma_sm100_desc.hpp).
  CHECK(descs == std::map<std::string, std::string>{{"desc_a", "wgmma 128B K"},
                                                    {"desc_b", "wgmma 64B MN"},
                                                    {"umma_a", "tcgen05 128B K"},
                                                    {"umma_b", "tcgen05 128B_base32B MN"}});
  // make_tma_copy's boxes (construct_tma_gbasis): A is K-major, 64 halves (one 128-byte swizzle
  // row) by 64 rows in one box. B is N-major with 32-half (64-byte) swizzle rows: the smem vector
  // is 32 N-contiguous halves, then the 8 K rows of the atom; the next 32 N sit 256 elements
  // further, which no box dimension can reach, so CuTe issues (32, 8) boxes.
  std::map<std::string, std::pair<std::vector<int64_t>, hw::SmemSwizzle>> tmas;
  for (const annotate::Statement& s : e.parsed.statements)
    if (auto* t = std::get_if<annotate::TmaDecl>(&s.body)) {
      std::vector<int64_t> box;
      for (const auto& n : t->box) box.push_back(n.value);
      tmas[t->name->text] = {box, t->swizzle.mode};
    }
  CHECK(tmas == std::map<std::string, std::pair<std::vector<int64_t>, hw::SmemSwizzle>>{
                    {"a_load", {{64, 64}, hw::SmemSwizzle::B128}}, {"b_load", {{32, 8}, hw::SmemSwizzle::B64}}});
}

TEST_CASE("the emitted files check: every access proven but the per-element DefaultCopy reads", "[cute]") {
  for (const std::string probe : {"oracle_copies", "oracle_layouts"}) {
    test::ProcessResult r = check_probe(probe);
    INFO(r.out << r.err);
    if (probe == "oracle_layouts") {
      // Injective (LP001), the descriptors' and TMA's swizzles the layouts' (LP005), aligned
      // (LP007), every TMA box element on an element of the layout (LP008, the measured H100 model).
      CHECK(r.exit_code == 0);
      continue;
    }
    // DefaultCopy assumes 8-bit alignment, so each lane reads one half per instruction: lanes 8c..8c+7
    // read rows 0-3 of the Sw<3,3,3> tile, each row spanning all 32 banks: 4 words per bank.
    CHECK(r.exit_code == 1);
    const nlohmann::json report = nlohmann::json::parse(r.out);
    REQUIRE(report["findings"].size() == 1);
    const nlohmann::json& f = report["findings"][0];
    CHECK(f["rule"] == "LP002");
    CHECK(f["message"] == "ld.shared.u16 on 'sA' has bank conflicts: 4 wavefronts where 1 is ideal");
    // Reported at the probe's call site, the emitted statement as the first note.
    CHECK(f["file"] == "tests/cute/oracle_copies.cpp");
    CHECK(f["notes"][0]["message"] == "in the statement generated there");
  }
}

TEST_CASE("the C++ spelling tile_to_shape(GMMA::Layout_*_Atom<T>{}, Shape<...>{}) reads as CuTe evaluates it",
          "[cute]") {
  const Emitted& e = run_probe("oracle_layouts");
  const std::map<std::string, std::pair<std::string, int>> types = {
      {"u8", {"uint8_t", 8}},   {"e4m3", {"float_e4m3_t", 8}}, {"f16", {"half_t", 16}},
      {"bf16", {"bfloat16_t", 16}}, {"tf32", {"tfloat32_t", 32}}, {"f32", {"float", 32}}};
  const std::map<std::string, int> widths = {{"inter", 2}, {"sw32", 4}, {"sw64", 8}, {"sw128", 16}};
  size_t compared = 0;
  for (const auto& [name, offsets] : e.layouts) {
    // The probe's names: k_SW_T, mn_SW_T (tiled to (64, w*e) and (w*e, 16), e = 128/bits), umma_mn_sw128_32b_T.
    const std::string type = name.substr(name.rfind('_') + 1);
    const auto [cpp_type, bits] = types.at(type);
    const int elems = 128 / bits;
    std::string text;
    if (name.rfind("umma_", 0) == 0) {
      text = fmt::format("tile_to_shape(UMMA::Layout_MN_SW128_32B_Atom<{}>{{}}, Shape<Int<{}>, _8>{{}})", cpp_type, 16 * elems);
    } else {
      const bool k = name.rfind("k_", 0) == 0;
      const std::string sw = name.substr(k ? 2 : 3, name.rfind('_') - (k ? 2 : 3));
      std::string upper = sw;
      for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      const int w = widths.at(sw) * elems;
      text = k ? fmt::format("tile_to_shape(GMMA::Layout_K_{}_Atom<{}>{{}}, Shape<_64, Int<{}>>{{}})", upper, cpp_type, w)
               : fmt::format("tile_to_shape(cute::GMMA::Layout_MN_{}_Atom<{}>{{}}, make_shape(Int<{}>{{}}, _16{{}}))",
                             upper, cpp_type, w);
    }
    INFO(name << ": " << text);
    const Layout l = parse_layout_text(text).layout;
    REQUIRE(l.size() == static_cast<int64_t>(offsets.size()));
    for (int64_t i = 0; i < l.size(); ++i) REQUIRE(l.offset_at(i) == offsets[static_cast<size_t>(i)]);
    ++compared;
  }
  CHECK(compared == 54);
}

TEST_CASE("the corpus's probe outputs are what their probes write today", "[cute][corpus]") {
  // scripts/update-corpus-probes.sh rewrites them; the probes were built from the repository root,
  // so their `at` clauses name corpus/probes/NAME.cpp as the committed files do.
  for (const std::string name : {"cutlass", "flash_attention"}) {
    INFO("corpus/probes/" << name << ".lp is stale: run scripts/update-corpus-probes.sh");
    const std::string path = (fs::temp_directory_path() / fmt::format("lp_corpus_{}_{}.lp", name, ::getpid())).string();
    ::setenv("LAYOUTPROOF_EMIT", path.c_str(), 1);
    REQUIRE(test::run_process(std::string(LP_CUTE_PROBE_DIR) + "/corpus_" + name, {}).exit_code == 0);
    ::unsetenv("LAYOUTPROOF_EMIT");
    const std::string written = test::read_file(path);
    fs::remove(path);
    CHECK(written == test::read_file(std::string(LP_SOURCE_DIR) + "/corpus/probes/" + name + ".lp"));
  }
}

TEST_CASE("docs/cute.md's worked example: the unswizzled Q tile's ldmatrix reads, reported at the probe's line", "[cute]") {
  test::ProcessResult r = check_probe("docs_fa2_probe");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  const nlohmann::json report = nlohmann::json::parse(r.out);
  REQUIRE(report["findings"].size() == 1);
  const nlohmann::json& f = report["findings"][0];
  // Without the swizzle, the 8 rows of each ldmatrix phase lie 128 bytes apart: 8 distinct words
  // in bank 0, in each of the 4 phases.
  CHECK(f["message"] == "ldmatrix.x4 on 'sQ' has bank conflicts: 32 wavefronts where 4 are ideal");
  CHECK(f["file"] == "docs/examples/fa2_probe.cpp");
  CHECK(f["line"] == 21);
}
