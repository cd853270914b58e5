// Hostile and malformed inputs: every one must end in a located diagnostic (a DiagnosticError
// with a caret line), never a crash, a hang, another exception type, or an invented layout.
#include <catch2/catch.hpp>
#include <random>

#include "analyzer/parse/Parsers.h"

namespace {

// Parses `text`; returns the rendered diagnostic, or "" if it parsed.
std::string diagnose(const std::string& text) {
  try {
    lp::parse_layout_text(text);
    return "";
  } catch (const lp::DiagnosticError& e) {
    return e.diagnostic().render();
  }
}

void require_rejected(const std::string& text) {
  INFO("input: " << text);
  std::string d = diagnose(text);
  REQUIRE_FALSE(d.empty());
  CAPTURE(d);
  REQUIRE(d.rfind("<layout>:", 0) == 0);
  REQUIRE(d.find(": error: ") != std::string::npos);
  REQUIRE(d.find("^\n") != std::string::npos);  // the caret line
}

const std::vector<std::string> kValid = {
    "(_4,_3):(_1,_4)",
    "((_2,_2),_4):((_1,_4),_2)",
    "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)",
    "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)",
    "(_4,_8):(_1@0,_1@1@1)",
    "S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid",
    "ComposeLayout(SwizzleLayout(3,3,3), S[(8,64):(64,1)])",
    "T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(64, 8, 64):(64, 4096, 1)]))",
    "S[8:4@laneid] + O[1@gpuid_x]",
    "((1@0, 8@1), 1@2)",
    "composition(Swizzle<3,3,3>{}, Layout<Shape<_8,_64>, Stride<_64,_1>>{})",
    "make_layout(make_shape(8,64), make_stride(64,1))",
    "ComposedLayout<Swizzle<3,4,3>, smem_ptr_flag_bits<32>, Layout<Shape<Shape<_32,_4>,_64>, Stride<Stride<_1,_2048>,_32>>>{}",
};

}  // namespace

TEST_CASE("every valid corpus text parses", "[malformed]") {
  for (const auto& t : kValid) {
    INFO(t);
    CHECK(diagnose(t).empty());
  }
}

TEST_CASE("every strict prefix of a valid layout is rejected with a located diagnostic", "[malformed]") {
  int n = 0;
  for (const auto& t : kValid)
    for (size_t len = 0; len < t.size(); ++len) {
      std::string prefix = t.substr(0, len);
      // A few prefixes are complete layouts themselves (e.g. "S[8:4@laneid]" before " + O[...]").
      if (diagnose(prefix).empty()) continue;
      require_rejected(prefix);
      ++n;
    }
  CHECK(n > 300);
}

TEST_CASE("unbalanced, misplaced and wrong tokens", "[malformed]") {
  for (const char* t : {"(_4,_3):(_1,_4", "(_4,_3)):(_1,_4)", "(_4,_3):(_1,_4))", "(_4,_3)(_1,_4)", "(_4,_3):(_1)",
                        "(_4,_3):((_1,_2),_4)", "(_4,,_3):(_1,_4)", "(_4,_3):(_1,_4) junk", "_0:_1",
                        "(_-4):(_1)", "(_-1):(_1)", "(-1,_4):(_1,_1)", "S[-1:1]", "Sw<3,3> o _0 o _8:_1", "Sw<3,3,2> o _0 o _8:_1", "Sw<-1,3,3> o _0 o _8:_1",
                        "Sw<3,3,3> _0 o _8:_1", "Sw<3,3,3> o smem_ptr[12b](unset) o _8:_1", "S[(8,2):(1,2,3)]",
                        "S[(8,2):(1@laneid,2@)]", "S[8:1] + S[8:1]", "R[2:1@warpid]", "S[0:1]", "S[8:1",
                        "ComposeLayout(3,3,3)", "ComposeLayout(3,3,3, S[8:1], swizzle_inner=False)",
                        "ComposeLayout(3,3,3, S[8:1@laneid])", "(1@0, 1@1", "(1@0 1@1)", "(1@-1)",
                        "(1@0, 1@0@0)", "(@0)", "((((", "))))", ":", "@", "Layout<Shape<_8>, Stride<_1>",
                        "make_layout(make_shape(bM, 8))", "make_layout(make_shape(8,8), make_stride(8))",
                        "composition(Layout<_8,_1>{}, Layout<_8,_1>{})", "Layout<Shape<_8,_8>, Stride<_8,E<0>>>{}",
                        "S[(4,4):(4,1)] + 3@", "S[(4,4):(4,1)] +", "", "   ", "\t\n"})
    require_rejected(t);
}

TEST_CASE("numbers past 64 bits and products past 64 bits are errors, not wraps", "[malformed]") {
  require_rejected("(_9223372036854775808):(_1)");
  require_rejected("(_99999999999999999999999):(_1)");
  require_rejected("(_4294967296,_4294967296):(_1,_1)");  // size 2^64
  require_rejected("S[(3037000500,3037000500,2):(1,1,1)]");
  require_rejected("Layout<Shape<Int<4611686018427387904 * 4>>>{}");
  require_rejected("(1/9223372036854775808@0)");
  // The largest representable values still parse.
  CHECK(diagnose("(_9223372036854775807):(_1)").empty());
  CHECK(diagnose("_1:_-9223372036854775808").empty());
}

TEST_CASE("deep nesting is a diagnostic, not a stack overflow", "[malformed]") {
  for (size_t depth : {65u, 1000u, 100000u}) {
    require_rejected(std::string(depth, '(') + "_1" + std::string(depth, ')') + ":_1");
    require_rejected(std::string(depth, '(') + "1@0" + std::string(depth, ')'));
    require_rejected("Sw<0,0,0> o _0 o " + [&] {
      std::string s;
      for (size_t i = 0; i < std::min<size_t>(depth, 5000); ++i) s += "Sw<0,0,0> o _0 o ";
      return s;
    }() + "_1:_1");
    std::string cpp;
    for (size_t i = 0; i < depth; ++i) cpp += "Shape<";
    require_rejected("Layout<" + cpp + "_1" + std::string(depth, '>') + ">{}");
  }
  // 64 levels are within the limit.
  CHECK(diagnose(std::string(60, '(') + "_2" + std::string(60, ')') + ":" + std::string(60, '(') + "_1" +
                 std::string(60, ')'))
            .empty());
}

TEST_CASE("oversized text is refused up front", "[malformed]") {
  require_rejected("(" + std::string(2 << 20, ' ') + "_1):(_1)");
}

TEST_CASE("binary noise and random token soup never escape as anything but a diagnostic", "[malformed]") {
  std::mt19937_64 rng(42);
  const std::string alphabet = "()[]<>:,@_-+/*o SRO0123456789mlaneidwarpSwComposeLayoutT.{}\x01\xff\xe2\x80\xa6";
  int rejected = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string s;
    size_t len = std::uniform_int_distribution<size_t>(0, 60)(rng);
    bool binary = trial % 3 == 0;
    for (size_t i = 0; i < len; ++i)
      s += binary ? static_cast<char>(rng() & 0xff) : alphabet[rng() % alphabet.size()];
    INFO("input bytes: " << s.size());
    std::string d;
    REQUIRE_NOTHROW(d = diagnose(s));
    if (!d.empty()) {
      ++rejected;
      REQUIRE(d.find("^\n") != std::string::npos);
      for (char c : d) REQUIRE((c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f)));  // terminal-safe
    }
  }
  CHECK(rejected > 2900);
}

TEST_CASE("mutations of valid layouts: each parses to a layout or is rejected with a caret", "[malformed]") {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 4000; ++trial) {
    std::string s = kValid[rng() % kValid.size()];
    int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits && !s.empty(); ++e) {
      size_t at = rng() % s.size();
      switch (rng() % 4) {
        case 0: s.erase(at, 1); break;
        case 1: s.insert(at, 1, "()[],:@<>_-9"[rng() % 12]); break;
        case 2: s[at] = "()[],:@<>_-9 "[rng() % 13]; break;
        default: s.insert(at, "99999999999"); break;
      }
    }
    INFO(s);
    std::string d;
    REQUIRE_NOTHROW(d = diagnose(s));
    if (!d.empty()) REQUIRE(d.find("^\n") != std::string::npos);
  }
}
