// The solver's one Z3 encoding of the bank rules (solver/BankEncoding.h) against the hardware
// model it encodes (hw::smem_access_cost, itself checked against measured wavefronts in
// tests/hw): on random warps of every instruction of every architecture, the encoded wavefronts,
// ideal, merge and "some phase conflicts" evaluate to what the model computes.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <random>

#include "hw/BankModel.h"
#include "solver/BankEncoding.h"

using namespace lp;

namespace {

struct Warp {
  std::vector<int64_t> addresses;
  hw::LaneMask active = 0;
};

// The shapes of warp random_warp draws: each instruction is tried once with each.
constexpr int kShapes = 5;

// Addresses from a small window, so that lanes share words and banks often (shape 0); each lane's
// address copied from its t^1 or t^2 partner, so that loads merge (1, 2); a row per lane (3); a
// random partial warp (4).
Warp random_warp(std::mt19937& rng, const hw::SmemInstr& instr, int kind) {
  Warp w;
  std::uniform_int_distribution<int> slot(0, 63);
  for (int l = 0; l < hw::kWarpLanes; ++l) w.addresses.push_back(int64_t{instr.bytes} * slot(rng));
  if (kind == 1 || kind == 2)
    for (int l = 0; l < hw::kWarpLanes; ++l) w.addresses[static_cast<size_t>(l)] = w.addresses[static_cast<size_t>(l & ~kind)];
  if (kind == 3)  // a row per lane: the conflict-free pattern
    for (int l = 0; l < hw::kWarpLanes; ++l) w.addresses[static_cast<size_t>(l)] = int64_t{instr.bytes} * l;
  w.active = kind == 4 ? static_cast<hw::LaneMask>(rng()) : hw::kAllLanes;
  if (w.active == 0) w.active = 1;
  return w;
}

uint64_t value_of(const z3::expr& e) {
  const z3::expr v = e.simplify();
  REQUIRE(v.is_numeral());
  return v.get_numeral_uint64();
}

bool truth_of(const z3::expr& e) {
  const z3::expr v = e.simplify();
  REQUIRE((v.is_true() || v.is_false()));
  return v.is_true();
}

}  // namespace

TEST_CASE("the Z3 bank encoding computes the hardware model's wavefronts on random warps", "[solver][bank]") {
  std::mt19937 rng(20261129);
  int compared = 0, conflicting = 0, merged = 0;
  for (const std::string& name : hw::arch_names()) {
    const hw::Arch& arch = hw::arch_by_name(name);
    for (const hw::SmemInstr& instr : hw::smem_instr_catalog()) {
      if (!hw::available_on(instr, arch)) continue;
      const int used = hw::address_lane_count(instr);
      z3::context ctx;  // one per instruction: a context keeps what every warp's terms allocated
      for (int trial = 0; trial < kShapes; ++trial) {
        Warp w = random_warp(rng, instr, trial % kShapes);
        if (used < hw::kWarpLanes) w.active &= (hw::LaneMask{1} << used) - 1;
        if (w.active == 0) w.active = 1;
        const hw::AccessCost expected = hw::smem_access_cost(arch, instr, w.addresses, w.active);
        bank_encoding::WarpTerms terms;
        for (int l = 0; l < hw::kWarpLanes; ++l) {
          terms.address.push_back(ctx.bv_val(static_cast<uint64_t>(w.addresses[static_cast<size_t>(l)]), 32));
          terms.active.push_back(ctx.bool_val(l < used && ((w.active >> l) & 1)));
        }
        INFO(fmt::format("{} on {}, trial {}, active {:08x}, addresses {}", instr.name, name, trial, w.active,
                         fmt::join(w.addresses, ",")));
        const bank_encoding::Wavefronts encoded = bank_encoding::wavefronts(arch, instr, terms);
        CHECK(value_of(encoded.total) == static_cast<uint64_t>(expected.wavefronts));
        CHECK(value_of(encoded.ideal) == static_cast<uint64_t>(expected.ideal));
        const bool merges = truth_of(bank_encoding::loads_merge(arch, instr, terms));
        CHECK(merges == expected.merged);
        CHECK(truth_of(bank_encoding::some_phase_conflicts(arch, instr, terms, merges)) == !expected.conflict_free);
        ++compared;
        conflicting += !expected.conflict_free;
        merged += expected.merged;
      }
    }
  }
  // The random warps reach every outcome the encoding distinguishes.
  CHECK(compared > 300);
  CHECK(conflicting > 50);
  CHECK(compared - conflicting > 50);
  CHECK(merged > 2);
}

TEST_CASE("the Z3 bank encoding's clash is the hardware's: same bank, different words where it broadcasts",
          "[solver][bank]") {
  z3::context ctx;
  const hw::Arch& arch = hw::arch_by_name("sm_90");
  const auto clash = [&](const char* instr, int64_t a, int64_t b) {
    return truth_of(bank_encoding::words_clash(arch, hw::smem_instr(instr), ctx.bv_val(static_cast<uint64_t>(a), 32),
                                               ctx.bv_val(static_cast<uint64_t>(b), 32)));
  };
  CHECK(clash("ld.shared.b32", 0, 128));     // bank 0, words 0 and 32
  CHECK_FALSE(clash("ld.shared.b32", 0, 0));  // one word: broadcast
  CHECK_FALSE(clash("ld.shared.b32", 0, 4));
  CHECK(clash("ld.shared.v4.b32", 0, 140));  // words 0-3 and 35-38: bank 3 twice
  CHECK_FALSE(clash("ld.shared.v4.b32", 0, 16));
  CHECK(clash("cp.async.ca.4", 0, 0));  // every lane's write counts
}
