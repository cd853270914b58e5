// Where annotations live: comment forms per language, literals that are not comments,
// continuation lines, and the file-type decision.
#include <catch2/catch.hpp>

#include "Helpers.h"

using namespace lp;
using namespace lp::annotate;
using namespace lp::annotate::test;

namespace {
// Names of the smem buffers a file declares, in order.
std::vector<std::string> names(const ParseResult& r) {
  std::vector<std::string> out;
  for (const Statement& s : r.statements)
    if (auto* b = std::get_if<BufferDecl>(&s.body)) out.push_back(b->name.text);
  return out;
}
using V = std::vector<std::string>;
}  // namespace

TEST_CASE("language by extension", "[annotate][scanner]") {
  for (const char* p : {"a.c", "a.cc", "a.cpp", "a.cxx", "a.h", "a.hpp", "a.cu", "a.cuh", "dir/x.CU"})
    CHECK(language_for_path(p) == Language::CLike);
  CHECK(language_for_path("k.py") == Language::Python);
  CHECK(language_for_path("x/y.lp") == Language::Standalone);
  CHECK(!language_for_path("README.md"));
  CHECK(!language_for_path("Makefile"));
  CHECK(!language_for_path(".lp"));
  CHECK(!language_for_path("a.lp/b"));
  auto r = parse("notes.txt", "// layoutproof: smem a : f16 = (_1):(_1)\n");
  CHECK(r.skipped);
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].message.find("cannot tell the annotation language of 'notes.txt'") == 0);
}

TEST_CASE("C-like comment forms", "[annotate][scanner]") {
  auto r = parse("k.cu",
                 "int x; // layoutproof: smem a : f16 = (_2):(_1)\n"
                 "/* layoutproof: smem b : f16 = (_2):(_1) */ int y;\n"
                 "/*\n"
                 " * layoutproof: smem c : f16 = (_2):(_1)\n"
                 " * prose that is not an annotation\n"
                 "   layoutproof: smem d : f16 = (_2):(_1)\n"
                 " */\n"
                 "/** layoutproof: smem e : f16 = (_2):(_1) */\n"
                 "//layoutproof:smem f : f16 = (_2):(_1)\n"
                 "// see layoutproof: smem g : f16 = (_2):(_1)\n"  // marker not first: prose
                 "/* a */ /* layoutproof: smem h : f16 = (_2):(_1) */\n");
  INFO(rendered(r));
  CHECK(r.diagnostics.empty());
  CHECK(names(r) == V{"a", "b", "c", "d", "e", "f", "h"});
}

TEST_CASE("C strings, characters and raw strings are not comments", "[annotate][scanner]") {
  auto r = parse("k.cpp",
                 "const char* s = \"// layoutproof: smem no1 : f16 = (_1):(_1)\";\n"
                 "const char* e = \"esc \\\" // layoutproof: smem no2 : f16 = (_1):(_1)\";\n"
                 "char q = '\"'; // layoutproof: smem yes1 : f16 = (_1):(_1)\n"
                 "char sl = '\\''; // layoutproof: smem yes2 : f16 = (_1):(_1)\n"
                 "auto r = R\"x(// layoutproof: smem no3 : f16 = (_1):(_1)\n"
                 ")\" still raw /* layoutproof: smem no4 : f16 = (_1):(_1) */ )x\";\n"
                 "int n = 1'000'000; // layoutproof: smem yes3 : f16 = (_1):(_1)\n"
                 "auto u = u8\"/* layoutproof: smem no5 : f16 = (_1):(_1) */\";\n"
                 "const char* c = \"/*\"; // layoutproof: smem yes4 : f16 = (_1):(_1)\n"
                 "// layoutproof: smem yes5 : f16 = (_1):(_1) // trailing \"quote\n");
  INFO(rendered(r));
  // yes5's layout runs to the end of the line, '// trailing "quote' included: a layout error.
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(lc(r.diagnostics[0].loc).first == 10);
  CHECK(names(r) == V{"yes1", "yes2", "yes3", "yes4"});
}

TEST_CASE("Python comments and strings", "[annotate][scanner]") {
  auto r = parse("k.py",
                 "x = 1  # layoutproof: smem a : f16 = (_2):(_1)\n"
                 "s = '# layoutproof: smem no1 : f16 = (_2):(_1)'\n"
                 "t = \"\"\"\n# layoutproof: smem no2 : f16 = (_2):(_1)\n\"\"\"\n"
                 "u = r'\\'' # layoutproof: smem b : f16 = (_2):(_1)\n"
                 "v = f\"{x}#\"  # layoutproof: smem c : f16 = (_2):(_1)\n"
                 "w = '''it's'''  # layoutproof: smem d : f16 = (_2):(_1)\n");
  INFO(rendered(r));
  CHECK(r.diagnostics.empty());
  CHECK(names(r) == V{"a", "b", "c", "d"});
}

TEST_CASE("standalone files: every line, # comments, optional marker", "[annotate][scanner]") {
  auto r = parse("k.lp",
                 "# a comment\n"
                 "\n"
                 "smem a : f16 = (_2):(_1)   # trailing comment\n"
                 "layoutproof: smem b : f16 = (_2):(_1)\n"
                 "allow bank-conflict \"a # in a reason\"\r\n"
                 "smem c : f16 = (_2):(_1)\r\n");
  INFO(rendered(r));
  CHECK(r.diagnostics.empty());
  CHECK(names(r) == V{"a", "b", "c"});
  REQUIRE(r.statements[2].allows.size() == 1);
  CHECK(r.statements[2].allows[0].reason == "a # in a reason");
}

TEST_CASE("continuation lines in every comment form", "[annotate][scanner]") {
  auto cu = parse("k.cu",
                  "// layoutproof: smem a : f16 = \\\n"
                  "//     (_8,_64):(_64,_1)\n"
                  "// layoutproof: smem b : f16 = \\\n"
                  "//   layoutproof: (_8,_64):(_64,_1) \\\n"
                  "//   align 128\n"
                  "/* layoutproof: smem c : f16 = \\\n"
                  " *   (_8,_64):(_64,_1)\n"
                  " */\n");
  INFO(rendered(cu));
  CHECK(cu.diagnostics.empty());
  CHECK(names(cu) == V{"a", "b", "c"});
  CHECK(std::get<BufferDecl>(cu.statements[1].body).align->value == 128);
  auto py = parse("k.py", "# layoutproof: smem a : f16 = \\\n  #   (_8,_64):(_64,_1)\n");
  INFO(rendered(py));
  CHECK(py.diagnostics.empty());
  CHECK(names(py) == V{"a"});
  auto lp = parse("k.lp", "smem a : f16 = \\\n   (_8,_64):(_64,_1)\n");
  CHECK(lp.diagnostics.empty());
  CHECK(names(lp) == V{"a"});
}

TEST_CASE("a C '//' line ending in a backslash splices the next line into the comment", "[annotate][scanner]") {
  // The next line is comment text in C even without '//': it is not code, so this string is ignored.
  auto r = parse("k.c",
                 "// ordinary comment \\\n"
                 "const char* s = \"// layoutproof: smem no : f16 = (_1):(_1)\";\n"
                 "// layoutproof: smem a : f16 = (_2):(_1)\n");
  CHECK(r.diagnostics.empty());
  CHECK(names(r) == V{"a"});
}

TEST_CASE("unterminated continuations are errors", "[annotate][scanner]") {
  auto py = parse("k.py", "# layoutproof: smem a : f16 = \\\nx = 1\n");
  REQUIRE(py.diagnostics.size() == 1);
  CHECK(py.diagnostics[0].message.find("the next line is not a '#' comment") != std::string::npos);
  CHECK(lc(py.diagnostics[0].loc) == std::pair<size_t, size_t>{1, 31});
  CHECK(py.statements.empty());
  auto blk = parse("k.cu", "/* layoutproof: smem a : f16 = \\ */\nint x;\n");
  REQUIRE(blk.diagnostics.size() == 1);
  CHECK(blk.diagnostics[0].message.find("its comment ends here") != std::string::npos);
  auto eof = parse("k.cu", "// layoutproof: smem a : f16 = \\");
  REQUIRE(eof.diagnostics.size() == 1);
  CHECK(eof.diagnostics[0].message.find("the file ends here") != std::string::npos);
  auto empty = parse("k.lp", "smem a : f16 = \\\n\nsmem b : f16 = (_1):(_1)\n");
  REQUIRE(empty.diagnostics.size() == 1);
  CHECK(empty.diagnostics[0].message.find("the next line is empty") != std::string::npos);
  CHECK(names(empty) == V{"b"});
}

TEST_CASE("misspelled markers are errors, prose mentioning the tool is not", "[annotate][scanner]") {
  auto r = parse("k.cu",
                 "// LayoutProof: smem a : f16 = (_1):(_1)\n"
                 "// layoutproof smem b : f16 = (_1):(_1)\n"
                 "// layoutproof checks this kernel in CI\n"
                 "// layoutproofs: smem c : f16 = (_1):(_1)\n");
  REQUIRE(r.diagnostics.size() == 2);
  CHECK(lc(r.diagnostics[0].loc) == std::pair<size_t, size_t>{1, 4});
  CHECK(lc(r.diagnostics[1].loc) == std::pair<size_t, size_t>{2, 4});
  CHECK(r.diagnostics[0].message.find("malformed annotation marker") == 0);
  CHECK(r.statements.empty());
}

TEST_CASE("unterminated block comments, raw strings and triple quotes warn", "[annotate][scanner]") {
  auto blk = parse("k.cu", "/* layoutproof: smem a : f16 = (_1):(_1)\n");
  REQUIRE(blk.diagnostics.size() == 1);
  CHECK(blk.diagnostics[0].severity == Severity::Warning);
  CHECK(names(blk) == V{"a"});
  auto raw = parse("k.cu", "auto s = R\"(abc\n// layoutproof: smem a : f16 = (_1):(_1)\n");
  REQUIRE(raw.diagnostics.size() == 1);
  CHECK(raw.diagnostics[0].message.find("unterminated raw string") == 0);
  CHECK(raw.statements.empty());
  auto py = parse("k.py", "s = '''\n# layoutproof: smem a : f16 = (_1):(_1)\n");
  REQUIRE(py.diagnostics.size() == 1);
  CHECK(py.diagnostics[0].severity == Severity::Warning);
  CHECK(py.statements.empty());
}
