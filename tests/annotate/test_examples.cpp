// The worked examples of docs/annotations.md (kept verbatim under data/) and the annotated
// corpus files parse to the statements the docs describe.
#include <catch2/catch.hpp>

#include <filesystem>

#include "Helpers.h"
#include "hw/ElementType.h"
#include "solver/SmemAccess.h"
#include "support/Files.h"

using namespace lp;
using namespace lp::annotate;
using namespace lp::annotate::test;

namespace {

// The fenced block after `<!-- example: NAME -->` in docs/annotations.md.
std::string docs_example(const std::string& name) {
  std::string md = lp::test::read_file(std::string(LP_SOURCE_DIR) + "/docs/annotations.md");
  size_t tag = md.find("<!-- example: " + name + " -->");
  REQUIRE(tag != std::string::npos);
  size_t fence = md.find("```", tag);
  size_t body = md.find('\n', fence) + 1;
  size_t close = md.find("\n```", body);
  REQUIRE(close != std::string::npos);
  return md.substr(body, close + 1 - body);
}

template <class T>
bool is(const ParseResult& r, size_t i) {
  return std::holds_alternative<T>(r.statements.at(i).body);
}

}  // namespace

TEST_CASE("the docs examples are the test data, verbatim", "[annotate][examples]") {
  for (const char* name : {"sgemm_sm80_annotated.cu", "tmem_scale_factors.py"})
    CHECK(docs_example(name) == lp::test::read_file(std::string(LP_ANNOTATE_DATA) + "/" + name));
}

TEST_CASE("the annotated sgemm_sm80 example", "[annotate][examples]") {
  std::string path = std::string(LP_ANNOTATE_DATA) + "/sgemm_sm80_annotated.cu";
  auto r = parse_annotations(path, lp::test::read_file(path));
  INFO(rendered(r));
  REQUIRE(r.diagnostics.empty());
  REQUIRE(r.statements.size() == 8);
  CHECK(body<ArchDecl>(r, 0).arch->sm == 80);
  const auto& atom = body<BufferDecl>(r, 1);
  CHECK(atom.name.text == "sA_atom");
  CHECK(atom.layout->parsed.layout.size() == 512);
  CHECK(lc(atom.layout->loc) == std::pair<size_t, size_t>{21, 10});
  const auto& sa = body<BufferDecl>(r, 2);
  CHECK(sa.name.text == "sA");
  CHECK(sa.layout->parsed.layout.size() == 128 * 64 * 3);
  CHECK(sa.align->value == 128);
  CHECK(body<ExpectStmt>(r, 3).kind == ExpectKind::Injective);
  const auto& g2s = body<AccessDecl>(r, 4);
  CHECK(g2s.instr->name == "cp.async.ca.16");
  CHECK(g2s.arch->sm == 80);
  CHECK(g2s.lanes.parsed.layout.size() == 256);
  CHECK(body<ExpectStmt>(r, 5).kind == ExpectKind::ConflictFree);
  const auto& s2r = body<AccessDecl>(r, 6);
  CHECK(s2r.name->text == "s2r");
  CHECK(s2r.instr->name == "ldmatrix.x4");
  CHECK(lc(s2r.lanes.loc) == std::pair<size_t, size_t>{39, 16});
  const auto& w = body<ExpectStmt>(r, 7);
  CHECK(w.kind == ExpectKind::Wavefronts);
  CHECK(w.max_wavefronts->value == 4);
  REQUIRE(r.statements[7].allows.size() == 1);
  CHECK(r.statements[7].allows[0].rule.text == "bank-conflict");
}

TEST_CASE("the TIRx TMEM scale-factor example", "[annotate][examples]") {
  std::string path = std::string(LP_ANNOTATE_DATA) + "/tmem_scale_factors.py";
  auto r = parse_annotations(path, lp::test::read_file(path));
  INFO(rendered(r));
  REQUIRE(r.diagnostics.empty());
  REQUIRE(r.statements.size() == 8);
  CHECK(body<ParamDecl>(r, 0).name.text == "BLK_N");
  const auto& sf = body<BufferDecl>(r, 1);
  CHECK(sf.space == Space::Tmem);
  CHECK(sf.layout->parsed.layout.replicas().size() == 1);
  const auto& cov = body<ExpectStmt>(r, 2);
  CHECK(cov.kind == ExpectKind::Covers);
  REQUIRE(cov.ranges.size() == 2);
  CHECK(cov.ranges[0].hi.value == 127);
  CHECK(body<BufferDecl>(r, 3).layout->parsed.layout.size() == 64 * 512);
  const auto& q = body<BufferDecl>(r, 5);
  REQUIRE(q.layout->parsed.param_uses.size() == 2);
  CHECK(q.layout->parsed.layout.size() == 64 * 256);
  CHECK(body<TmaDecl>(r, 6).name->text == "q_load");
  CHECK(body<DescDecl>(r, 7).kind == DescKind::Tcgen05);
  CHECK(is<DescDecl>(r, 7));
}

TEST_CASE("the annotated corpus files parse cleanly", "[annotate][examples]") {
  size_t files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(std::string(LP_SOURCE_DIR) + "/corpus")) {
    if (!language_for_path(e.path().string())) continue;
    auto r = parse_annotations(e.path().string(), lp::test::read_file(e.path().string()));
    INFO(e.path().string() << "\n" << rendered(r));
    CHECK(r.diagnostics.empty());
    CHECK(r.statements.size() >= 2);
    ++files;
  }
  CHECK(files >= 3);
}

TEST_CASE("element types: the annotation parser and the solver read the one table", "[annotate][examples]") {
  for (const std::string& n : lp::hw::element_type_names()) CHECK(lp::hw::element_bits(n) == lp::dtype_bits(n));
  CHECK(lp::hw::element_bits("bf16") == 16);
  CHECK(lp::hw::element_bits("e4m3") == 8);
  CHECK(lp::hw::element_bits("b128") == 128);
  for (const char* bad : {"f8", "F16", "int", ""}) {
    CHECK(!lp::hw::element_bits(bad));
    CHECK_THROWS_AS(lp::dtype_bits(bad), lp::AccessError);
  }
}
