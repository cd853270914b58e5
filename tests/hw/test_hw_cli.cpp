// The banks and fragment commands, run as a user runs them.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/Process.h"

using lp::test::run_layoutproof;

namespace {

std::string address_list(int64_t stride, int count = 32, int64_t base = 0) {
  std::string s;
  for (int t = 0; t < count; ++t) s += (t ? "," : "") + std::to_string(base + stride * t);
  return s;
}

}  // namespace

TEST_CASE("banks --json follows the contract", "[hw][cli]") {
  // docs/hardware.md G_ld128_pairs: lane pairs share a 16-byte chunk -> merged, 2 wavefronts.
  std::string pairs;
  for (int t = 0; t < 32; ++t) pairs += (t ? "," : "") + std::to_string(16 * (t / 2));
  auto r = run_layoutproof({"banks", "--arch", "sm_90", "--instr", "ld.shared.v4.b32", "--addresses", pairs, "--json"});
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["wavefronts"] == 2);
  CHECK(j["ideal"] == 2);
  CHECK(j["conflict_free"] == true);
  REQUIRE(j["phases"].size() == 2);
  CHECK(j["phases"][1]["lanes"].size() == 16);
  CHECK(j["phases"][1]["lanes"][0] == 16);
  CHECK(j["phases"][0]["wavefronts"] == 1);
  CHECK(j["phases"][0].contains("bank"));
  CHECK(j["phases"][0].contains("words"));
}

TEST_CASE("banks reports conflicts with the worst bank and its words", "[hw][cli]") {
  auto r = run_layoutproof({"banks", "--arch", "sm_90", "--instr", "ld.shared.b32", "--addresses", address_list(256), "--json"});
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["wavefronts"] == 32);
  CHECK(j["ideal"] == 1);
  CHECK(j["conflict_free"] == false);
  CHECK(j["phases"][0]["bank"] == 0);
  CHECK(j["phases"][0]["words"][1] == 64);
  auto text = run_layoutproof({"banks", "--instr", "ld.shared.b32", "--addresses", address_list(4)});
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("1 wavefronts, ideal 1, conflict-free"));
}

TEST_CASE("banks rejects bad input with exit 2 and a diagnostic", "[hw][cli]") {
  auto misaligned = run_layoutproof({"banks", "--arch", "sm_90", "--instr", "ld.shared.v2.b32", "--addresses", address_list(4)});
  CHECK(misaligned.exit_code == 2);
  CHECK_THAT(misaligned.err, Catch::Contains("lane 1") && Catch::Contains("aligned"));
  auto range = run_layoutproof({"banks", "--arch", "sm_90", "--instr", "ld.shared.b32", "--addresses", address_list(4, 32, 232448)});
  CHECK(range.exit_code == 2);
  CHECK_THAT(range.err, Catch::Contains("exceed"));
  auto count = run_layoutproof({"banks", "--arch", "sm_90", "--instr", "ld.shared.b32", "--addresses", address_list(4, 31)});
  CHECK(count.exit_code == 2);
  CHECK_THAT(count.err, Catch::Contains("got 31"));
  auto junk = run_layoutproof({"banks", "--instr", "ld.shared.b32", "--addresses", "0,4,x"});
  CHECK(junk.exit_code == 2);
  CHECK_THAT(junk.err, Catch::Contains("'x'"));
  auto instr = run_layoutproof({"banks", "--instr", "ld.shared.b64", "--addresses", address_list(8)});
  CHECK(instr.exit_code == 2);
  CHECK_THAT(instr.err, Catch::Contains("ld.shared.v2.b32"));
  auto arch = run_layoutproof({"banks", "--arch", "sm_75", "--instr", "ld.shared.b32", "--addresses", address_list(4)});
  CHECK(arch.exit_code == 2);
}

TEST_CASE("banks names cp.async's form, takes its global side, and refuses the old names", "[hw][cli]") {
  // .ca with sources 64 bytes into a line (H100: 5 wavefronts measured, tests/data): 5 parts of 1.
  auto ca = run_layoutproof({"banks", "--instr", "cp.async.ca.16", "--addresses", address_list(16), "--global-addresses",
                             address_list(16, 32, 64), "--json"});
  REQUIRE(ca.exit_code == 0);
  auto j = nlohmann::json::parse(ca.out);
  CHECK(j["wavefronts"] == 5);
  CHECK(j["ideal"] == 5);
  CHECK(j["phases"][3]["global_lines"] == nlohmann::json::array({3}));
  CHECK_FALSE(j.contains("l2_sectors"));
  // .cg rows at pitch 144 (H100: 24 sectors measured): conflict-free phases, 24 sectors for 16.
  std::string rows;
  for (int t = 0; t < 32; ++t) rows += (t ? "," : "") + std::to_string(144 * (t / 8) + 16 * (t % 8));
  auto cg = run_layoutproof({"banks", "--instr", "cp.async.cg.16", "--addresses", rows, "--json"});
  REQUIRE(cg.exit_code == 0);
  j = nlohmann::json::parse(cg.out);
  CHECK(j["wavefronts"] == 4);
  CHECK(j["l2_sectors"] == 24);
  CHECK(j["l2_sectors_ideal"] == 16);
  auto text = run_layoutproof({"banks", "--instr", "cp.async.cg.16", "--addresses", rows});
  CHECK_THAT(text.out, Catch::Contains("L2-to-SM sectors: 24, its data needs 16 (lanes 8,9 read one global sector"));
  auto old = run_layoutproof({"banks", "--instr", "cp.async.16", "--addresses", address_list(16)});
  CHECK(old.exit_code == 2);
  CHECK_THAT(old.err, Catch::Contains("cp.async.ca.16 or cp.async.cg.16"));
  auto wrong = run_layoutproof({"banks", "--instr", "ld.shared.b32", "--addresses", address_list(4), "--global-addresses",
                                address_list(4)});
  CHECK(wrong.exit_code == 2);
  CHECK_THAT(wrong.err, Catch::Contains("cp.async.ca only"));
}

TEST_CASE("fragment prints a catalog layout and its evaluated table", "[hw][cli]") {
  auto r = run_layoutproof({"fragment", "mma.m16n8k16.f16.A", "--json"});
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["tirx"].get<std::string>().rfind("S[", 0) == 0);
  REQUIRE(j["elements"].size() == 256);
  // Sorted by lane then reg: lane 0 reg 2 is a2 = (groupID + 8, 0) per the PTX figure.
  CHECK(j["elements"][2]["lane"] == 0);
  CHECK(j["elements"][2]["reg"] == 2);
  CHECK(j["elements"][2]["row"] == 8);
  CHECK(j["elements"][2]["col"] == 0);
  auto text = run_layoutproof({"fragment", "wgmma.m64n16k16.f32.C"});
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("@warpid") && Catch::Contains("-> (8, 0)"));
}

TEST_CASE("fragment with an unknown name exits 2 and lists close names", "[hw][cli]") {
  auto r = run_layoutproof({"fragment", "ldmatrix.x8"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("unknown fragment") && Catch::Contains("ldmatrix.x"));
}
