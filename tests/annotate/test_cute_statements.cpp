// The statements generated code needs (docs/annotations.md, "Generated annotations"): the
// `; at "FILE":LINE` clause, `cute "EXPR" = LAYOUT` definitions and a buffer's `cute "EXPR"`
// reference, with every error located.
#include <catch2/catch.hpp>

#include "annotate/Helpers.h"

using namespace lp::annotate;
using namespace lp::annotate::test;

TEST_CASE("the at clause records where a statement was generated", "[annotate][cute]") {
  ParseResult r = parse("p.lp",
                        "smem sQ : f16 = (_8,_64):(_64,_1) align 128 ; at \"probes/fa2.cpp\":42\n"
                        "access q: sQ ldmatrix.x4 lanes (_16,_2):(_1,_512) ; allow bank-conflict \"known\" ; at \"a \\\"b\\\".cpp\":7\n"
                        "arch sm_80\n");
  INFO(rendered(r));
  REQUIRE(r.diagnostics.empty());
  REQUIRE(r.statements.size() == 3);
  const auto& o = *r.statements[0].origin;
  CHECK(o.file == "probes/fa2.cpp");
  CHECK(o.line == 42);
  CHECK(lc(o.loc) == std::pair<size_t, size_t>{1, 47});
  CHECK(o.begin == 0);
  CHECK(o.end == r.source->text.find('\n'));
  CHECK(r.statements[1].origin->file == "a \"b\".cpp");
  CHECK(r.statements[1].allows.size() == 1);
  CHECK(!r.statements[2].origin);
}

TEST_CASE("cute definitions and references", "[annotate][cute]") {
  ParseResult r = parse("p.lp",
                        "cute \"GMMA::Layout_K_SW128_Atom<half_t>\" = Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)\n"
                        "smem a : f16 = Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1) align 1024 cute \"GMMA::Layout_K_SW128_Atom<half_t>\"\n"
                        "smem b : f16 = (_8,_64):(_64,_1) cute \"B\"\n"
                        "global g : f16 = (_8,_64):(_64,_1) align 16 cute \"G\"\n");
  INFO(rendered(r));
  REQUIRE(r.diagnostics.empty());
  const auto& d = body<CuteDef>(r, 0);
  CHECK(d.name.text == "GMMA::Layout_K_SW128_Atom<half_t>");
  CHECK(d.layout.text == "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)");
  const auto& a = body<BufferDecl>(r, 1);
  CHECK(a.layout->text == "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)");
  CHECK(a.align->value == 1024);
  CHECK(a.cute->text == "GMMA::Layout_K_SW128_Atom<half_t>");
  CHECK(lc(a.cute->loc) == std::pair<size_t, size_t>{2, 85});
  CHECK(!body<BufferDecl>(r, 2).align);
  CHECK(body<BufferDecl>(r, 2).cute->text == "B");
  CHECK(body<BufferDecl>(r, 3).cute->text == "G");
}

TEST_CASE("malformed at clauses and cute statements are located errors", "[annotate][cute]") {
  struct Case {
    std::string text, message;
    size_t column;
  };
  const std::vector<Case> cases = {
      {"smem s : f16 = (_8):(_1) ; at probe.cpp:3", "expected the generating file in quotes (at \"probe.cpp\":LINE), found 'probe'", 31},
      {"smem s : f16 = (_8):(_1) ; at \"probe.cpp\" 3", "expected ':' and the line after the file (at \"FILE\":LINE), found '3'", 43},
      {"smem s : f16 = (_8):(_1) ; at \"probe.cpp\":0", "expected a line number of at least 1, found 0", 43},
      {"smem s : f16 = (_8):(_1) ; at \"p.cpp\":1 ; at \"p.cpp\":2", "a statement has one 'at' clause", 43},
      {"smem s : f16 = (_8):(_1) ; at \"p.cpp", "unterminated quoted text: expected a closing '\"' on the same line", 31},
      {"allow bank-conflict \"x\" ; at \"p.cpp\":1", "an 'at' clause belongs to a statement; a standalone 'allow' has none", 27},
      {"cute SmemLayoutQ = (_8):(_1)", "expected the CuTe expression's name in quotes (cute \"SmemLayoutQ\" = LAYOUT), found 'SmemLayoutQ'", 6},
      {"cute \"\" = (_8):(_1)", "the name is empty", 6},
      {"cute \"Q\" (_8):(_1)", "expected '=' and the layout the CuTe expression evaluates to (cute \"NAME\" = LAYOUT), found '('", 10},
      {"smem s : f16 = (_8):(_1) cute Q", "expected the end of the layout, found 'cute'", 26},
      {"smem s : f16 = (_8):(_1) align 16 extra", "expected 'cute' (the CuTe expression the layout stands for: cute \"NAME\"), 'align N' or the end of the statement, found 'extra'", 35},
  };
  for (const Case& k : cases) {
    INFO(k.text);
    ParseResult r = parse("p.lp", k.text + "\n");
    REQUIRE(r.diagnostics.size() == 1);
    CHECK(r.diagnostics[0].message == k.message);
    CHECK(r.diagnostics[0].line_col() == std::pair<size_t, size_t>{1, k.column});
  }
}
