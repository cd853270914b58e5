// Malformed and hostile inputs: truncations, byte noise, huge numbers, deep nesting, long lines,
// binary files and limits. Each gives diagnostics with a caret, never a crash, never a
// silently dropped statement.
#include <catch2/catch.hpp>

#include <random>

#include "Helpers.h"

using namespace lp;
using namespace lp::annotate;
using namespace lp::annotate::test;

namespace {

const std::vector<std::string> kValid = {
    "smem sA : f16 = Sw<3,3,3> o _0 o (_8,_64):(_64,_1) align 1024",
    "smem sB : bf16 = composition(Swizzle<3,3,3>{}, Layout<Shape<_8,_64>, Stride<_64,_1>>{})",
    "tmem t : f32 = S[(64, 2, 2, 128):(1@TLane, 128@TCol, 64@TLane, 1@TCol)]",
    "regs r : f32 = fragment wgmma.m64n64k16.f32.C",
    "global g : f16 = (_128,_64):(_64,_1) align 16",
    "param M = 64..1024 % 64",
    "arch sm_90",
    "access a2: sA ldmatrix.x4 lanes (_16,_2,_4,_4):(_1@0,_8@1,_16@0,_16@1)",
    "tma load tl: sA box (8, 64) swizzle 128B",
    "wgmma desc sA swizzle 128B major K",
    "tcgen05 desc sA swizzle 128B_base32B major MN",
    "compose c = sA o `(_4):(_1)`",
    "divide d = logical_divide(sA, `(_2):(_1)`)",
    "covers t TLane=0..63, TCol=0..255",
    "expect a1 wavefronts <= 4 ; allow bank-conflict \"measured: 4 is ideal\"",
};
// Declarations the statements above refer to.
const std::string kPrelude = "smem sA : f16 = (_64,_64):(_64,_1)\naccess a1: sA ldmatrix.x4 lanes (_16,_2):(_1@0,_8@1)\n"
                             "tmem t : f32 = S[(64,256):(1@TLane,1@TCol)]\n";

// Every diagnostic is located in the file and renders a source line with a caret.
void check_well_formed(const ParseResult& r) {
  for (const Diagnostic& d : r.diagnostics) {
    REQUIRE(d.loc.source == r.source);
    REQUIRE(d.loc.offset <= r.source->text.size());
    std::string text = d.render();
    REQUIRE(text.find(r.source->name + ":") == 0);
    REQUIRE(text.find("\n") != std::string::npos);
    REQUIRE(text.find('^') != std::string::npos);
    REQUIRE(!d.message.empty());
  }
}

}  // namespace

TEST_CASE("every valid statement parses after the prelude", "[annotate][hostile]") {
  for (const std::string& s : kValid) {
    std::string name = s.substr(0, s.find(' '));
    // Statements redeclaring prelude names are checked alone.
    std::string text = (s.rfind("smem sA", 0) == 0 || s.rfind("tmem t ", 0) == 0)
                           ? s + "\n"
                           : kPrelude + s + "\n";
    auto r = parse("t.lp", text);
    INFO(s << "\n" << rendered(r));
    CHECK(r.diagnostics.empty());
  }
}

TEST_CASE("every truncation of every statement gives a statement or an error", "[annotate][hostile]") {
  size_t cases = 0;
  for (const std::string& s : kValid) {
    for (size_t n = 1; n < s.size(); ++n) {
      std::string cut = s.substr(0, n);
      if (cut.find_first_not_of(' ') == std::string::npos) continue;
      std::string text = kPrelude + cut + "\n";
      ParseResult r = parse("t.lp", text);
      check_well_formed(r);
      INFO(cut << "\n" << rendered(r));
      // The prelude gives 3 statements; the cut gives exactly one more or an error on its line.
      if (r.statements.size() == 3) {
        REQUIRE(r.has_errors());
        REQUIRE(lc(r.diagnostics[0].loc).first == 4);
      } else {
        REQUIRE(r.statements.size() == 4);
      }
      ++cases;
    }
  }
  CHECK(cases > 600);
}

TEST_CASE("single-byte corruptions never crash and never drop silently", "[annotate][hostile]") {
  const std::string junk = "()[]{}<>`\"';:,.@%=\\#/*o- \x01\xff";
  size_t cases = 0;
  for (const std::string& s : kValid) {
    for (size_t i = 0; i < s.size(); i += 3) {
      std::string bad = s;
      bad[i] = junk[(i * 7 + s.size()) % junk.size()];
      ParseResult r = parse("t.lp", kPrelude + bad + "\n");
      check_well_formed(r);
      INFO(bad << "\n" << rendered(r));
      // A comment character or a continuation may hide the rest; otherwise one statement or an error.
      if (bad.find('#') == std::string::npos && bad.find('\\') == std::string::npos)
        REQUIRE((r.statements.size() == 4 || r.has_errors()));
      ++cases;
    }
  }
  CHECK(cases > 200);
}

TEST_CASE("random byte noise in every language", "[annotate][hostile]") {
  std::mt19937 rng(20240611);
  const char* paths[] = {"n.cu", "n.py", "n.lp", "n.hpp"};
  const std::string alphabet = "layoutproof: smem tmem regs access tma // /* */ # \" ' ` \\ \n ( ) [ ] _1 @ o : = .. , ;";
  for (int iter = 0; iter < 300; ++iter) {
    std::string text;
    size_t len = rng() % 400;
    for (size_t k = 0; k < len; ++k) {
      if (rng() % 4 == 0) text += static_cast<char>(1 + rng() % 255);
      else text += alphabet[rng() % alphabet.size()];
    }
    if (iter % 3 == 0) text = "// layoutproof: " + text;
    ParseResult r = parse(paths[iter % 4], text);
    check_well_formed(r);
    CHECK(r.diagnostics.size() <= 101);
  }
}

TEST_CASE("huge numbers are diagnosed at the literal", "[annotate][hostile]") {
  auto r = parse("t.lp",
                 "smem s : f16 = (_2):(_1) align 99999999999999999999999\n"
                 "param M = 1..99999999999999999999\n"
                 "smem u : f16 = (_99999999999999999999):(_1)\n"
                 "param N = 9223372036854775807..9223372036854775807 % 2\n"
                 "smem v : f16 = (_4611686018427387904,_4):(_1,_4611686018427387904)\n"
                 "param P = 1..9223372036854775807 % 4611686018427387904\n"
                 "smem w : f16 = (P,P):(P,P)\n");
  INFO(rendered(r));
  check_well_formed(r);
  REQUIRE(r.diagnostics.size() == 6);
  CHECK(lc(r.diagnostics[0].loc) == std::pair<size_t, size_t>{1, 32});
  CHECK(lc(r.diagnostics[1].loc) == std::pair<size_t, size_t>{2, 14});
  CHECK(lc(r.diagnostics[2].loc).first == 3);
  CHECK(lc(r.diagnostics[3].loc) == std::pair<size_t, size_t>{4, 54});  // the next multiple of 2 overflows
  CHECK(lc(r.diagnostics[4].loc).first == 5);                           // size overflows
  CHECK(lc(r.diagnostics[5].loc).first == 7);                           // P*P overflows
  // 2^62 is the one multiple of itself in the range: P is valid.
  REQUIRE(r.statements.size() == 1);
  CHECK(r.params.size() == 1);
}

TEST_CASE("deep nesting is a diagnostic", "[annotate][hostile]") {
  std::string layout(3000, '(');
  auto r = parse("t.lp", "smem s : f16 = " + layout + "\n");
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].message.find("nesting deeper than 64 levels") != std::string::npos);
  CHECK(lc(r.diagnostics[0].loc).first == 1);
}

TEST_CASE("long lines, many statements, many diagnostics, long continuations", "[annotate][hostile]") {
  std::string longline = "// layoutproof: smem s : f16 = (_2):(_1)" + std::string(5000, ' ') + "\n";
  auto r = parse("t.cu", longline);
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(lc(r.diagnostics[0].loc) == std::pair<size_t, size_t>{1, 4097});
  CHECK(r.diagnostics[0].message == "annotation line is 5040 bytes long; the limit is 4096");
  CHECK(r.statements.empty());
  // A long line that is not an annotation is nobody's business.
  CHECK(parse("t.cu", "int x = 0;" + std::string(100000, ' ') + "\n").diagnostics.empty());

  std::string many;
  for (int i = 0; i < 500; ++i) many += "bogus\n";
  auto m = parse("t.lp", many);
  REQUIRE(m.diagnostics.size() == 101);
  CHECK(m.diagnostics.back().message == "more than 100 diagnostics in this file; the rest are not reported");

  std::string cont = "smem s : f16 = \\\n";
  for (int i = 0; i < 70; ++i) cont += " \\\n";
  cont += "(_2):(_1)\n";
  auto c = parse("t.lp", cont);
  REQUIRE(c.diagnostics.size() == 1);
  CHECK(c.diagnostics[0].message == "more than 64 continuation lines in one statement");

  AnnotateLimits small;
  small.scan.max_statements = 3;
  auto s = parse_annotations("t.lp", "arch sm_90\narch sm_90\narch sm_90\narch sm_80\n", small);
  REQUIRE(s.diagnostics.size() == 1);
  CHECK(lc(s.diagnostics[0].loc) == std::pair<size_t, size_t>{4, 1});
  CHECK(s.statements.size() == 3);
}

TEST_CASE("binary and oversized files are skipped with a diagnostic", "[annotate][hostile]") {
  std::string bin = "// layoutproof: smem s : f16 = (_2):(_1)\n";
  bin += std::string("\x7f" "ELF\0\0\0", 7);
  auto r = parse("t.cu", bin);
  CHECK(r.skipped);
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].message.find("binary file (NUL byte at offset 45)") == 0);
  CHECK(r.statements.empty());
  check_well_formed(r);
  // A NUL far into the file is not the binary test's business: it is read as text.
  std::string late(9000, ' ');
  late += '\0';
  late += "\n// layoutproof: smem s : f16 = (_2):(_1)\n";
  CHECK(parse("t.cu", late).statements.size() == 1);

  AnnotateLimits small;
  small.scan.max_file_bytes = 10;
  auto big = parse_annotations("t.lp", "smem s : f16 = (_2):(_1)\n", small);
  CHECK(big.skipped);
  REQUIRE(big.diagnostics.size() == 1);
  CHECK(big.diagnostics[0].message == "file is 25 bytes; the limit is 10 bytes, so it is not read");
}

TEST_CASE("a NUL inside a late statement and invalid UTF-8 are located diagnostics", "[annotate][hostile][limits]") {
  const std::string pad = std::string(9000, ' ') + "\n";  // past the binary probe: read as text
  const std::vector<std::string> bad = {
      std::string("smem s : f16 = (_2):(\0_1)", 26),  // NUL in the layout
      std::string("smem s\0t : f16 = (_2):(_1)", 26),   // NUL in a name
      "smem s\xff\xfe : f16 = (_2):(_1)",              // invalid UTF-8 in a name
      "smem s : f16 = (_2):(_1\xc3\x28)",              // a broken two-byte sequence in the layout
      "smem s : f\xe2\x82 = (_2):(_1)",                // a truncated three-byte sequence in the dtype
      "allow bank-conflict \"\xed\xa0\x80 surrogate\"\nsmem s : f16 = (_2):(_1",
  };
  for (const auto& [file, prefix] : {std::pair<std::string, std::string>{"t.cu", "// layoutproof: "},
                                     {"t.py", "# layoutproof: "}, {"t.lp", ""}}) {
    for (const std::string& stmt : bad) {
      INFO(file << ": " << stmt);
      std::string text = pad;
      std::string s = stmt;
      for (size_t i = 0; (i = s.find('\n', i)) != std::string::npos; i += prefix.size() + 1) s.insert(i + 1, prefix);
      text += prefix + s + "\n" + prefix + "smem ok : f16 = (_2):(_1)\n";
      auto r = parse(file, text);
      CHECK_FALSE(r.skipped);
      CHECK(r.has_errors());
      check_well_formed(r);
      // The statement after the bad one is still read.
      bool ok = false;
      for (const auto& st : r.statements)
        if (auto* b = std::get_if<BufferDecl>(&st.body); b && b->name.text == "ok") ok = true;
      CHECK(ok);
    }
  }
}
