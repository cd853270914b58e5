// Every message a user met that did not say what was wrong (an integer beyond 64 bits called "not a
// positive integer", an overflow called "not a flat shape", a silently clamped index, "legal": false
// beside an undecided verdict) now names the problem; one test per message, on the command line as
// the user typed it.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/Process.h"

using lp::test::run_layoutproof;

namespace {

void check_error(const std::vector<std::string>& args, const std::string& message) {
  const auto r = run_layoutproof(args);
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err == "error: " + message + "\n");
}

// A diagnostic located in the operand, as every parser renders one: where, what, the text, a caret.
void check_diagnostic(const std::vector<std::string>& args, const std::string& rendered) {
  const auto r = run_layoutproof(args);
  CHECK(r.exit_code == 2);
  CHECK(r.err == rendered);
}

}  // namespace

TEST_CASE("messages: a cotarget beyond 64 bits, below 1 or not a number (or shape) says which", "[cli][messages]") {
  check_diagnostic({"algebra", "complement", "(_4,_2):(_1,_4)", "99999999999999999999"},
                   "<cotarget>:1:1: error: integer literal does not fit in 64 bits (limit 2^63-1)\n"
                   "99999999999999999999\n"
                   "^\n");
  check_diagnostic({"algebra", "complement", "(_4,_2):(_1,_4)", "0"},
                   "<cotarget>:1:1: error: extent 0 must be at least 1\n"
                   "0\n"
                   "^\n");
  check_diagnostic({"algebra", "complement", "(_4,_2):(_1,_4)", "x"},
                   "<cotarget>:1:1: error: expected a shape like (_8,_16) or an extent, found 'x'\n"
                   "x\n"
                   "^\n");
}

TEST_CASE("messages: a cotarget that fits 64 bits but overflows CuTe's arithmetic says so", "[cli][messages]") {
  // 2^63 - 1 is a positive integer; complement((_4,_2):(_1,_4), M) multiplies past it.
  check_error({"algebra", "complement", "(_4,_2):(_1,_4)", "9223372036854775807"},
              "complement: CuTe's arithmetic on these operands leaves 64-bit integers (integer overflow in layout algebra)");
}

TEST_CASE("messages: a target shape whose size overflows is not called 'not a flat shape'", "[cli][messages]") {
  // 2^62 x 4 = 2^64: a flat shape of two positive extents whose product leaves 64 bits.
  check_diagnostic({"algebra", "tile_to_shape", "(_4,_2):(_1,_4)", "(4611686018427387904,4)"},
                   "<target shape>:1:22: error: the shape's size (the product of its extents) exceeds 2^63-1\n"
                   "(4611686018427387904,4)\n"
                   "                     ^\n");
  // Each extent fits; CuTe's tiling of the block over them does not.
  check_error({"algebra", "tile_to_shape", "(_4,_2):(_1,_4)", "(4611686018427387904,1)"},
              "tile_to_shape: CuTe's arithmetic on these operands leaves 64-bit integers (integer overflow in layout algebra)");
  check_diagnostic({"algebra", "tile_to_shape", "(_4,_2):(_1,_4)", "(8,x)"},
                   "<target shape>:1:4: error: expected an extent (e.g. _8 or 8) of the flat shape, found 'x'\n"
                   "(8,x)\n"
                   "   ^\n");
  check_diagnostic({"algebra", "tile_to_shape", "(_4,_2):(_1,_4)", "(8,0)"},
                   "<target shape>:1:4: error: extent 0 must be at least 1\n"
                   "(8,0)\n"
                   "   ^\n");
}

TEST_CASE("messages: eval --at quotes the index as typed, never a clamped one", "[cli][messages]") {
  check_error({"eval", "(_4,_3):(_1,_4)", "--at", "99999999999999999999"},
              "--at: 99999999999999999999 does not fit a 64-bit integer (at most 9223372036854775807)");
  check_error({"eval", "(_4,_3):(_1,_4)", "--at", "abc"}, "--at: 'abc' is not an integer");
  // In range: (1,1) of the colex 4x3 layout is 1 + 4*1 = 5.
  const auto r = run_layoutproof({"eval", "(_4,_3):(_1,_4)", "--at", "5", "--json"});
  REQUIRE(r.exit_code == 0);
  CHECK(nlohmann::json::parse(r.out)["index"] == 5);
}

TEST_CASE("messages: an undecided algebra verdict is neither legal nor illegal in JSON", "[cli][messages]") {
  // 2^23 points, past the 2^22 the legality check enumerates: the verdict is unknown.
  const auto r = run_layoutproof({"algebra", "coalesce", "(_4096,_2048):(_1,_4096)", "--json"});
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["verdict"] == "unknown");
  CHECK(j["legal"].is_null());
}

TEST_CASE("messages: what CuTe's contract allows is a note in JSON, apart from the verdict", "[cli][messages]") {
  // complement((_4,_2):(_1,_10)) = _2:_4 meets CuTe's contract; offsets 8 and 9 stay uncovered.
  const auto r = run_layoutproof({"algebra", "complement", "(_4,_2):(_1,_10)", "--json"});
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["verdict"] == "legal");
  REQUIRE(j["notes"].size() == 1);
  CHECK(j["notes"][0]["kind"] == "complement-hole");
  CHECK(j["notes"][0]["witness"]["expected"] == "8");
}

TEST_CASE("eval --at takes a coordinate with one entry per mode", "[cli][messages]") {
  // (_4,_3):(_4,_1): coordinate (r,c) is colex index r + 4c and lands on offset 4r + c.
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 3; ++c) {
      const auto out = run_layoutproof({"eval", "(_4,_3):(_4,_1)", "--at", "(" + std::to_string(r) + "," + std::to_string(c) + ")", "--json"});
      REQUIRE(out.exit_code == 0);
      const auto j = nlohmann::json::parse(out.out);
      CHECK(j["index"] == r + 4 * c);
      CHECK(j["images"][0] == 4 * r + c);
    }
  check_error({"eval", "(_4,_3):(_4,_1)", "--at", "(4,0)"}, "--at '(4,0)': entry 4 of mode 0 is outside [0, 4)");
  check_error({"eval", "(_4,_3):(_4,_1)", "--at", "(1,1,1)"}, "--at '(1,1,1)': 3 entries, but the layout has 2 modes");
  check_error({"eval", "(_4,_3):(_4,_1)", "--at", "(1,x)"}, "--at: 'x' is not an integer");
}
