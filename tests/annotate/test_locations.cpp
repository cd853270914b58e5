// Locations: every AST part and every diagnostic names the original file's line and column, also
// inside layouts, on continuation lines and in block comments; diagnostics render with a caret
// under the offending byte of the original line.
#include <catch2/catch.hpp>

#include "Helpers.h"

using namespace lp;
using namespace lp::annotate;
using namespace lp::annotate::test;

using LC = std::pair<size_t, size_t>;

TEST_CASE("names, numbers and layouts carry file positions", "[annotate][locations]") {
  //                  1234567890123456789012345678901234567890123456789012345678
  std::string text = "int k;\n"
                     "    // layoutproof: smem sA : f16 = (_8,_64):(_64,_1) align 128\n"
                     "// layoutproof: access g: sA cp.async.cg.16 lanes (_8,_4):(_8@1,_1@0)\n";
  auto r = parse("k.cu", text);
  INFO(rendered(r));
  REQUIRE(r.diagnostics.empty());
  const auto& d = std::get<BufferDecl>(r.statements[0].body);
  CHECK(lc(r.statements[0].loc) == LC{2, 21});
  CHECK(lc(d.name.loc) == LC{2, 26});
  CHECK(lc(d.dtype->loc) == LC{2, 31});
  CHECK(lc(d.layout->loc) == LC{2, 37});
  CHECK(lc(d.align->loc) == LC{2, 61});
  CHECK(d.layout->source->line_base == 2);
  CHECK(d.layout->source->col_base == 37);
  CHECK(d.layout->source->name == "k.cu");
  const auto& a = std::get<AccessDecl>(r.statements[1].body);
  CHECK(lc(a.name->loc) == LC{3, 24});
  CHECK(lc(a.buffer.loc) == LC{3, 27});
  CHECK(lc(a.instr_name.loc) == LC{3, 30});
  CHECK(lc(a.lanes.loc) == LC{3, 51});
  CHECK(a.lanes.source->col_base == 51);
}

TEST_CASE("a layout error points into the original line", "[annotate][locations]") {
  std::string text = "x = 0\n"
                     "# layoutproof: smem sA : f16 = (_4,_3):(_1 _4)\n";
  auto r = parse("k.py", text);
  REQUIRE(r.diagnostics.size() == 1);
  const Diagnostic& d = r.diagnostics[0];
  CHECK(d.loc.source == r.source);
  CHECK(lc(d.loc) == LC{2, 44});
  CHECK(d.message == "expected ')' or ',' in the stride tuple, found '_4'");
  CHECK(d.render() ==
        "k.py:2:44: error: expected ')' or ',' in the stride tuple, found '_4'\n"
        "# layoutproof: smem sA : f16 = (_4,_3):(_1 _4)\n"
        "                                           ^\n");
}

TEST_CASE("a layout error on a continuation line", "[annotate][locations]") {
  std::string text = "/* layoutproof: smem sA : f16 = \\\n"
                     " *     Sw<3,3,3> o _0 o \\\n"
                     " *     (_8,_64):(_64,_1 _1)\n"
                     " */\n";
  auto r = parse("k.cuh", text);
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(lc(r.diagnostics[0].loc) == LC{3, 25});
  CHECK(r.diagnostics[0].render().find(" *     (_8,_64):(_64,_1 _1)\n                        ^\n") !=
        std::string::npos);
}

TEST_CASE("a parsed layout spanning continuation lines keeps file positions", "[annotate][locations]") {
  std::string text = "// layoutproof: smem sA : f16 = \\\n"
                     "//   (_8,_64):(_64,_1) \\\n"
                     "//   align 256\n";
  auto r = parse("k.cu", text);
  INFO(rendered(r));
  REQUIRE(r.diagnostics.empty());
  const auto& d = std::get<BufferDecl>(r.statements[0].body);
  CHECK(lc(d.layout->loc) == LC{2, 6});
  CHECK(d.layout->text == "(_8,_64):(_64,_1)");
  CHECK(lc(d.align->loc) == LC{3, 12});
}

TEST_CASE("statement diagnostics name what was expected, with a caret", "[annotate][locations]") {
  auto r = parse("t.lp",
                 "smem sX = (_2):(_1)\n"
                 "smem sB : f17 = (_2):(_1)\n"
                 "frobnicate x\n"
                 "access sZ ldmatrix.x4 lanes (_32):(_1@0)\n"
                 "smem sC : f16 = (_2):(_1) align 96\n"
                 "smem sA : f16 = (_2):(_1)\n"
                 "smem sA : f16 = (_2):(_1)\n"
                 "access sA ldmatrix.x9 lanes (_32):(_1@0)\n"
                 "regs f = fragment wgmma.m64n64k16.f32.Q\n"
                 "expect sA conflict-free\n"
                 "tma load sA box (64, 0) swizzle 128B\n"
                 "tma load sA box (64) swizzle 256B\n"
                 "param M = 0..8\n"
                 "param N = 5..7 % 4\n"
                 "allow Bank_Conflict \"x\"\n"
                 "allow bank-conflict\n"
                 "smem sD : f16 = (_2):(_1) ; allow bank-conflict \"  \"\n"
                 "smem sE : f16 = (_2):(_1) ; deny x\n"
                 "expect nothing injective\n"
                 "arch sm_42\n"
                 "compose K = sA o (_2):(_1)\n"
                 "expect sA injectiv\n");
  std::vector<std::pair<LC, std::string>> want = {
      {{1, 9}, "expected ':' and the element type after the buffer's name (smem NAME : DTYPE = LAYOUT), found '='"},
      {{2, 11}, "unknown element type 'f17'; expected one of "},
      {{3, 1}, "unknown statement 'frobnicate'; expected smem, tmem,"},
      {{4, 8}, "'sZ' is not declared; expected an smem buffer declared earlier in this file"},
      {{5, 33}, "alignment 96 is not a power of two"},
      {{7, 6}, "'sA' is already declared; every name in a file is declared once"},
      {{8, 11}, "unknown"},
      {{9, 19}, "unknown fragment 'wgmma.m64n64k16.f32.Q'; similar catalog names: "},
      {{10, 1 + 7}, "'sA' is an smem buffer; expected a named access"},
      {{11, 22}, "expected a box extent of at least 1, found 0"},
      {{12, 30}, "unknown swizzle mode '256B'"},
      {{13, 11}, "a parameter stands for an extent or a stride: its lowest value must be at least 1, found 0"},
      {{14, 18}, "no multiple of 4 lies in 5..7"},
      {{15, 7}, "rule id 'Bank_Conflict' is not valid"},
      {{16, 20}, "expected a quoted reason after the rule id: every suppression says why, found end of input"},
      {{17, 49}, "the reason is empty; say why the finding is accepted"},
      {{18, 29}, "expected 'allow RULE-ID \"reason\"' after ';', found 'deny'"},
      {{19, 8}, "'nothing' is not declared"},
      {{20, 6}, "unknown architecture"},
      {{21, 18}, "expected a declared name, a layout in backquotes or a tiler [...] as the inner layout B of 'A o B', found '('"},
      {{22, 11}, "expected a property: injective, conflict-free, wavefronts <= N, covers AXIS=LO..HI, compiled \"KERNEL\" at LINE or illegal, found 'injectiv'"},
  };
  INFO(rendered(r));
  REQUIRE(r.diagnostics.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("diagnostic " << i << ": " << r.diagnostics[i].render());
    CHECK(lc(r.diagnostics[i].loc) == want[i].first);
    CHECK(r.diagnostics[i].message.find(want[i].second) == 0);
    CHECK(r.diagnostics[i].render().find('^') != std::string::npos);
  }
  // The duplicate declaration notes where the first one is.
  REQUIRE(r.diagnostics[5].notes.size() == 1);
  CHECK(lc(r.diagnostics[5].notes[0].loc) == LC{6, 6});
  // Only the valid second declaration of sA made it.
  REQUIRE(r.statements.size() == 1);
  CHECK(std::get<BufferDecl>(r.statements[0].body).name.text == "sA");
}

TEST_CASE("a failed declaration does not cascade", "[annotate][locations]") {
  auto r = parse("t.lp",
                 "smem sA : f16 = (_2):(_1\n"
                 "access a: sA ldmatrix.x4 lanes (_16,_2):(_1@0,_8@1)\n"
                 "expect a conflict-free\n"
                 "allow bank-conflict \"known\"\n"
                 "smem sB : f16 = (_2):(_1 _1)\n"
                 "smem sC : f16 = (_2):(_1)\n");
  REQUIRE(r.diagnostics.size() == 2);
  CHECK(lc(r.diagnostics[0].loc).first == 1);
  CHECK(lc(r.diagnostics[1].loc).first == 5);
  REQUIRE(r.statements.size() == 1);
  // The allow belonged to the failed sB: it does not move on to sC.
  CHECK(r.statements[0].allows.empty());
}

TEST_CASE("an allow followed by no statement", "[annotate][locations]") {
  auto r = parse("t.lp", "smem s : f16 = (_2):(_1)\n  allow bank-conflict \"x\"\n");
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(lc(r.diagnostics[0].loc) == LC{2, 3});
  CHECK(r.diagnostics[0].message == "'allow bank-conflict' applies to the next statement, but none follows");
}

TEST_CASE("tilers in compose and divide: file positions and located errors", "[annotate][locations]") {
  auto r = parse("t.lp",
                 "smem sA : f32 = (_9,(_4,_8)):(_59,(_13,_1))\n"
                 "divide T = logical_divide(sA, [_3:_3, (_2,_4):(_1,_8)])\n"
                 "compose C = sA o [_3:_3, _]\n"
                 "divide U = logical_divide(sA, [_3:_3, (_2,_4):(_1 _8)])\n"
                 "divide V = logical_divide(sA, [_3, _4\n"
                 "compose W = [_3] o sA\n"
                 "divide X = zipped_divide(sA, [_3, 0])\n");
  INFO(rendered(r));
  REQUIRE(r.statements.size() == 3);
  const auto& t = std::get<TilerExpr>(std::get<DivideDecl>(r.statements[1].body).tiler);
  CHECK(lc(t.loc) == LC{2, 31});
  CHECK(t.text == "[_3:_3, (_2,_4):(_1,_8)]");
  REQUIRE(t.tiler.parts.size() == 2);
  const auto& c = std::get<TilerExpr>(std::get<ComposeDecl>(r.statements[2].body).b);
  CHECK(lc(c.loc) == LC{3, 18});
  CHECK(c.tiler.parts.at(1).kind == lp::Tiler::Kind::Underscore);
  std::vector<std::pair<LC, std::string>> want = {
      {{4, 51}, "expected ')' or ',' in the stride tuple, found '_8'"},
      {{5, 31}, "unterminated tiler: expected a closing ']'"},
      {{6, 13}, "expected a declared name or a layout in backquotes as the outer layout A of 'A o B' (a tiler [...] is not one), found '['"},
      {{7, 35}, "a tiler extent must be at least 1, not 0"},
  };
  REQUIRE(r.diagnostics.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("diagnostic " << i << ": " << r.diagnostics[i].render());
    CHECK(lc(r.diagnostics[i].loc) == want[i].first);
    CHECK(r.diagnostics[i].message == want[i].second);
  }
}
