// `for NAME in V1, V2, ... { ... }`: each value parses the body once, with NAME bound to it in
// every integer the body writes; names declared in the body belong to their instance.
#include <catch2/catch.hpp>

#include "annotate/Helpers.h"

using namespace lp::annotate;
using namespace lp::annotate::test;

TEST_CASE("a loop parses its body once per value, names scoped to the instance", "[annotate][loops]") {
  const ParseResult r = parse("k.lp",
                              "smem outer : f16 = (_64,_64):(_64,_1)\n"
                              "for D in 64, 96..97 {\n"
                              "  smem t : f16 = (_16,D):(D+8,_1) align D/D*16\n"
                              "  access a: t ld.shared.v4.b32 lanes (_8,_4):(_1@0,_8@1) active 0..D/8-1\n"
                              "  access o: outer ld.shared.b32 lanes (_32):(_1@0)\n"
                              "  tma load outer box (D/2, 8) swizzle none\n"
                              "  compose c = t o [D/8, _]\n"
                              "  expect t injective\n"
                              "}\n");
  INFO(rendered(r));
  // 96 / 8 - 1 = 11 is fine, and so is everything at 64 and 96; 97 is not a multiple of 8.
  REQUIRE(r.diagnostics.size() == 3);
  CHECK(r.diagnostics[0].message == "97 / 8 is not an integer");
  CHECK(r.diagnostics[0].notes.back().message == "found in the instance D=97 of this loop");
  CHECK(lc(r.diagnostics[0].notes.back().loc) == std::pair<size_t, size_t>{2, 1});
  // 64 and 96 give six statements each; 97 loses the three with D/8 and D/2.
  CHECK(r.diagnostics[1].message == "97 / 2 is not an integer");
  CHECK(lc(r.diagnostics[2].loc) == std::pair<size_t, size_t>{7, 21});
  REQUIRE(r.statements.size() == 1 + 6 + 6 + 3);
  const BufferDecl& t64 = body<BufferDecl>(r, 1);
  CHECK(t64.name.text == "t[D=64]");
  CHECK(t64.layout->parsed.layout.modes()[1].extent == 64);
  CHECK(t64.layout->parsed.layout.modes()[0].stride[0] == 72);
  CHECK(t64.layout->instance_text() != t64.layout->text);
  CHECK(t64.align->value == 16);
  const AccessDecl& a64 = body<AccessDecl>(r, 2);
  CHECK(a64.name->text == "a[D=64]");
  CHECK(a64.buffer.text == "t[D=64]");
  CHECK(a64.active->mask == 0xffu);
  CHECK(body<AccessDecl>(r, 3).buffer.text == "outer");  // a name from outside the loop
  CHECK(body<TmaDecl>(r, 4).box[0].value == 32);
  CHECK(std::get<Name>(body<ComposeDecl>(r, 5).a).text == "t[D=64]");
  CHECK(body<ExpectStmt>(r, 6).subject.text == "t[D=64]");
  CHECK(r.statements[1].instance->label == "D=64");
  CHECK(r.statements[7].instance->label == "D=96");
  CHECK(body<AccessDecl>(r, 8).active->mask == 0xfffu);
  CHECK(!r.statements[0].instance);
}

TEST_CASE("nested loops bind both variables, an inner loop may use the outer's value", "[annotate][loops]") {
  const ParseResult r = parse("n.lp",
                              "for D in 64, 128 {\n"
                              "  smem t : f16 = (_8,D):(D,_1)\n"
                              "  for W in D/64, 4 {\n"
                              "    access a: t ld.shared.b32 lanes (_32,W):(_1@0,_2@1)\n"
                              "    expect a conflict-free\n"
                              "  }\n"
                              "}\n");
  INFO(rendered(r));
  REQUIRE(r.diagnostics.empty());
  std::vector<std::string> names;
  for (const Statement& s : r.statements)
    if (const auto* a = std::get_if<AccessDecl>(&s.body)) names.push_back(a->name->text + " on " + a->buffer.text);
  CHECK(names == std::vector<std::string>{"a[D=64,W=1] on t[D=64]", "a[D=64,W=4] on t[D=64]", "a[D=128,W=2] on t[D=128]",
                                          "a[D=128,W=4] on t[D=128]"});
  CHECK(body<ExpectStmt>(r, 2).subject.text == "a[D=64,W=1]");
}

TEST_CASE("loop errors are located and say what was expected", "[annotate][loops]") {
  auto first = [](const std::string& text) {
    const ParseResult r = parse("e.lp", text);
    REQUIRE(!r.diagnostics.empty());
    const lp::Diagnostic& d = r.diagnostics.front();
    return std::to_string(lc(d.loc).first) + ":" + std::to_string(lc(d.loc).second) + " " + d.message;
  };
  CHECK(first("}\n") == "1:1 '}' closes no 'for' loop");
  CHECK(first("for D in 1, 2 {\nsmem t : f16 = (_8,D):(_1,_8)\n") ==
        "1:1 this 'for' loop is not closed: expected '}' on a line of its own; its body is not parsed");
  CHECK(first("for D in 1, 2\n}\n") ==
        "1:14 expected '{' after the loop's values, opening its body (for NAME in V1, V2, ... {), found end of input");
  CHECK(first("for D in 1, 2, 1 {\n}\n") == "1:16 the value 1 is listed twice");
  CHECK(first("for D in 3..1 {\n}\n") == "1:13 empty range: 1 is below 3");
  CHECK(first("for D in 1..1000 {\n}\n") ==
        "1:10 the loop has more than 256 values; at most 256 instances are parsed");
  CHECK(first("for D in 1..16 {\nfor E in 1..17 {\n}\n}\n") ==
        "2:10 the loop has more than 16 values for the 16 instances of its enclosing loops; at most 256 instances are parsed");
  CHECK(first("param M = 1..8\nfor M in 1 {\n}\n") == "2:5 'M' is a parameter; a loop variable needs a name of its own");
  CHECK(first("for D in 1 {\nfor D in 2 {\n}\n}\n") == "2:5 'D' is already the variable of an enclosing loop");
  CHECK(first("for D in 1 {\nparam P = 1..2\n}\n") ==
        "2:7 a parameter is declared once per file, outside 'for' loops (it stands for every value itself)");
  CHECK(first("smem t : f16 = (_8,_8):(_8,_1)\nfor D in 1 {\nsmem t : f16 = (_8,_8):(_8,_1)\n}\n") ==
        "3:6 't' is already declared; every name in a file is declared once");
  CHECK(first("for D in 1 {\nsmem D2 : f16 = (_8,_8):(_8,_1)\nsmem D : f16 = (_8,_8):(_8,_1)\n}\n") ==
        "3:6 'D' is a loop variable; a declaration needs a name of its own");
  CHECK(first("for D in 1 {\nallow lp002 \"why\"\n}\n") ==
        "2:1 'allow lp002' applies to the next statement, but the loop's body ends");
  CHECK(first("allow lp002 \"why\"\nfor D in 1 {\n}\n") ==
        "1:1 'allow' applies to the next statement, and a 'for' loop is not one; put it inside the loop");
  // An error every instance shares is reported once, with the first instance that showed it.
  const ParseResult shared = parse("s.lp", "for D in 1, 2, 3 {\nsmem t : f16 = (_8,_8):(_8,_1) junk\n}\n");
  REQUIRE(shared.diagnostics.size() == 1);
  CHECK(shared.diagnostics[0].notes.back().message == "found in the instance D=1 of this loop");
}

TEST_CASE("a loop's statements count against the file's statement limit", "[annotate][loops][limits]") {
  AnnotateLimits limits;
  limits.scan.max_statements = 50;
  std::string text = "for D in 1..10 {\n";
  for (int k = 0; k < 6; ++k) text += "smem t" + std::to_string(k) + " : f16 = (_8,D):(D,_1)\n";
  text += "}\n";
  const ParseResult r = parse_annotations("big.lp", text, limits);
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].message ==
        "the 'for' loops of this file instantiate more than 50 statements; this loop and the rest are not parsed");
  CHECK(r.statements.empty());
}

TEST_CASE("loops nest at most 8 deep: the parser's recursion is bounded", "[annotate][loops][limits]") {
  std::string text;
  for (int k = 0; k < 40; ++k) text += "for V" + std::to_string(k) + " in 1 {\n";
  text += "smem t : f16 = (_8,_8):(_8,_1)\n";
  for (int k = 0; k < 40; ++k) text += "}\n";
  const ParseResult r = parse("deep.lp", text);
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].message == "'for' loops nest deeper than 8 levels");
  CHECK(lc(r.diagnostics[0].loc) == std::pair<size_t, size_t>{9, 1});
  CHECK(r.statements.empty());
}
