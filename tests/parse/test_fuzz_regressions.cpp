// Inputs the fuzz targets (fuzz/, scripts/fuzz.sh) found crashing, hanging or exhausting memory,
// fed through the same path as the target: parse, evaluate, print in every notation, reparse.
// Each must end in a diagnostic or a documented error, never a crash, hang or unbounded allocation.
// The same inputs are in the seed corpora (fuzz/seeds/<target>/regression-*).
#include <catch2/catch.hpp>

#include "analyzer/ir/Checked.h"
#include "analyzer/parse/Parsers.h"
#include "support/Process.h"

namespace {

// What fuzz/FuzzSupport.h does after parsing, with the documented error types.
void evaluate_and_print(const lp::Layout& l) {
  for (int64_t i : {int64_t{0}, l.size() - 1}) {
    try {
      (void)l.images(i);
    } catch (const lp::LayoutError&) {
    } catch (const lp::OverflowError&) {
    }
  }
  for (lp::Notation n : {lp::Notation::Cute, lp::Notation::Tirx, lp::Notation::Descriptor}) {
    try {
      lp::Printed p = lp::print(l, n);
      (void)lp::parse_layout_text(p.text, "<printed>", n);
    } catch (const lp::ConversionError&) {
    } catch (const lp::DiagnosticError&) {
    } catch (const lp::LayoutError&) {
    } catch (const lp::OverflowError&) {
    }
  }
}

}  // namespace

TEST_CASE("fuzz regression: 2^63 replicas are refused by images(), not listed one by one", "[fuzz-regression]") {
  // fuzz_layout_tirx: images(0) looped over every replica combination until memory ran out.
  const char* text = "S[(4,4):(4,1)] + R[9223372036854775807:1@laneid]";
  lp::Layout l = lp::parse_layout_text(text).layout;
  CHECK(l.replica_count() == INT64_MAX);
  CHECK_THROWS_WITH(l.images(0), Catch::Contains("replica combinations; listing the images of an index is limited to"));
  evaluate_and_print(l);
  // The CLI says so with exit 2 instead of hanging.
  auto r = lp::test::run_layoutproof({"eval", text, "--at", "0"});
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("replica combinations") != std::string::npos);
  // Up to the limit, every replica is listed.
  CHECK(lp::parse_layout_text("S[(2):(1@laneid)] + R[65536:2@laneid]").layout.images(1).size() == 65536);
}
