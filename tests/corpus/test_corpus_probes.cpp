// The corpus entries re-derived from CuTe (docs/cute.md, corpus/probes/): the hand-written
// entries' layouts are checked against the probes' by LP012 in every `check corpus/`; here each
// hand-written access, TMA box and descriptor is compared with the one the probe wrote from the
// kernel's own CuTe types. An access is compared as the set of warp instructions it issues (the
// byte address of every address-giving lane, at an aligned base), whatever notation, lane order
// or issue order either side uses.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "frontend/annotate/AnnotationParser.h"
#include "hw/Arch.h"
#include "hw/TmaSwizzle.h"
#include "solver/SmemAccess.h"
#include "support/Files.h"

namespace fs = std::filesystem;
using namespace lp;

namespace {

struct File {
  annotate::ParseResult parsed;
  const annotate::Statement* find(const std::string& name) const {
    for (const annotate::Statement& s : parsed.statements) {
      if (auto* a = std::get_if<annotate::AccessDecl>(&s.body); a && a->name && a->name->text == name) return &s;
      if (auto* b = std::get_if<annotate::BufferDecl>(&s.body); b && b->name.text == name) return &s;
    }
    return nullptr;
  }
};

const File& load(const std::string& path) {
  static std::map<std::string, File> files;
  if (auto it = files.find(path); it != files.end()) return it->second;
  File f{annotate::parse_annotations(path, test::read_file(std::string(LP_SOURCE_DIR) + "/" + path))};
  REQUIRE(!f.parsed.statements.empty());
  REQUIRE(!f.parsed.has_errors());
  return files.emplace(path, std::move(f)).first->second;
}

const annotate::BufferDecl& buffer_of(const File& f, const std::string& name) {
  const annotate::Statement* s = f.find(name);
  REQUIRE(s);
  return std::get<annotate::BufferDecl>(s->body);
}

using Instruction = std::vector<int64_t>;  // byte address of each address-giving lane

std::multiset<Instruction> instructions(const File& f, const std::string& name) {
  const annotate::Statement* s = f.find(name);
  REQUIRE(s);
  const auto& a = std::get<annotate::AccessDecl>(s->body);
  const annotate::BufferDecl& b = buffer_of(f, a.buffer.text);
  SmemAccess access(b.layout->parsed.layout, b.dtype->bits, a.lanes.parsed.layout, *a.instr,
                    a.arch ? *a.arch : hw::arch_by_name("sm_90"), 16);
  std::multiset<Instruction> out;
  const size_t lanes = static_cast<size_t>(hw::address_lane_count(*a.instr));
  for (int64_t i = 0; i < access.issue_count(); ++i) {
    Instruction in = access.addresses(i, 0);
    in.resize(lanes);
    out.insert(in);
  }
  return out;
}

enum class Relation { Same, Subset };

struct Pair {
  std::string entry, access, probe, probe_access;
  Relation relation;
};

}  // namespace

TEST_CASE("re-derivation: hand-written accesses issue CuTe's instructions", "[corpus][cute]") {
  const std::string fa = "corpus/probes/flash_attention.lp", cl = "corpus/probes/cutlass.lp";
  std::vector<Pair> pairs;
  for (int d : {32, 96, 128, 160, 192, 256}) {
    const std::string e = fmt::format("corpus/flash-attention/fwd_sm80_qk_d{}.lp", d), p = fmt::format("d{}_", d);
    for (const char* a : {"q_g2s", "q_s2r", "k_g2s", "k_s2r"}) pairs.push_back({e, a, fa, p + a, Relation::Same});
  }
  for (int d : {32, 64, 128, 256})
    pairs.push_back({fmt::format("corpus/flash-attention/fwd_sm80_vt_d{}.lp", d), "v_s2r", fa, fmt::format("d{}_v_s2r", d), Relation::Same});
  for (int d : {32, 64, 128}) {
    pairs.push_back({fmt::format("corpus/flash-attention/fwd_sm80_o_d{}.lp", d), "r2s", fa, fmt::format("d{}_o_r2s", d), Relation::Same});
    pairs.push_back({fmt::format("corpus/flash-attention/fwd_sm80_o_d{}.lp", d), "s2g", fa, fmt::format("d{}_o_s2g", d), Relation::Same});
  }
  for (auto [entry, a, p] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"corpus/cutlass/sgemm_sm80_half_A.lp", "g2s", "sgemm_a_g2s"},
           {"corpus/cutlass/sgemm_sm80_half_A.lp", "s2r", "sgemm_a_s2r"},
           {"corpus/cutlass/sgemm_sm80_half_B.lp", "g2s", "sgemm_a_g2s"},
           {"corpus/cutlass/sgemm_sm80_half_B.lp", "s2r", "sgemm_b_s2r"},
           {"corpus/cutlass/default_gemm_sm80_half_k_major.cu", "g2s", "default_k_g2s"},
           {"corpus/cutlass/default_gemm_sm80_half_k_major.cu", "s2r", "default_k_s2r"},
           {"corpus/cutlass/default_gemm_sm80_half_m_major.lp", "g2s", "default_m_g2s"},
           {"corpus/cutlass/default_gemm_sm80_half_m_major.lp", "s2r", "default_m_s2r"},
           {"corpus/cutlass/wgmma_sm90_k_major_A.lp", "g2s", "wgmma_tn_g2s"},
           {"corpus/cutlass/wgmma_sm90_mn_major_A.lp", "g2s", "wgmma_nt_g2s"}})
    pairs.push_back({entry, a, cl, p, Relation::Subset});
  for (const Pair& p : pairs) {
    const auto hand = instructions(load(p.entry), p.access);
    const auto cute = instructions(load(p.probe), p.probe_access);
    const std::set<Instruction> hs(hand.begin(), hand.end()), cs(cute.begin(), cute.end());
    INFO(p.entry << " " << p.access << " (" << hand.size() << " instructions, " << hs.size() << " distinct) against "
                 << p.probe << " " << p.probe_access << " (" << cute.size() << ", " << cs.size() << " distinct)");
    if (p.relation == Relation::Same) {
      CHECK(hs == cs);
    } else {
      // The entry writes one warp (and one pipeline stage) of the copy; CuTe's partition has every
      // warp and stage, and the entry's instructions are among them.
      CHECK(std::includes(cs.begin(), cs.end(), hs.begin(), hs.end()));
      CHECK(hs.size() < cs.size());
    }
  }
}

namespace {

// What a buffer's TMA copies and descriptors say, in the annotation's words.
std::vector<std::string> facts(const File& f, const std::string& buffer) {
  std::vector<std::string> out;
  for (const annotate::Statement& s : f.parsed.statements) {
    if (auto* t = std::get_if<annotate::TmaDecl>(&s.body); t && t->buffer.text == buffer) {
      std::string box;
      for (const annotate::Number& n : t->box) box += (box.empty() ? "" : ", ") + std::to_string(n.value);
      out.push_back(fmt::format("tma {} box ({}) swizzle {}", t->direction == annotate::TmaDirection::Load ? "load" : "store",
                                box, hw::swizzle_name(t->swizzle.mode)));
    }
    if (auto* d = std::get_if<annotate::DescDecl>(&s.body); d && d->buffer.text == buffer)
      out.push_back(fmt::format("{} desc swizzle {}{} major {}", d->kind == annotate::DescKind::Wgmma ? "wgmma" : "tcgen05",
                                hw::swizzle_name(d->swizzle.mode), d->swizzle.atom_32b ? "_base32B" : "",
                                d->major && d->major->major == annotate::Major::MN ? "MN" : "K"));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("re-derivation: hand-written TMA boxes and MMA descriptors are CuTe's", "[corpus][cute]") {
  const std::string cl = "corpus/probes/cutlass.lp";
  // The GMMA atom entries: each hand-written box and descriptor (descriptors only where a wgmma
  // k-block fits the tile: the probe writes none for K_INTER f16 and the MN-major tiles).
  for (const char* atom : {"e4m3_K_SW128", "e4m3_K_SW32", "e4m3_K_SW64", "f16_K_SW32", "f16_K_SW64", "tf32_K_SW128",
                           "tf32_K_SW32", "tf32_K_SW64"}) {
    INFO(atom);
    CHECK(facts(load(fmt::format("corpus/cutlass/gmma_atom_{}.lp", atom)), "s") == facts(load(cl), fmt::format("gmma_{}_s", atom)));
  }
  for (const char* atom : {"f16_K_INTER", "f16_MN_INTER", "f16_MN_SW32", "f16_MN_SW64"}) {
    INFO(atom);
    const auto hand = facts(load(fmt::format("corpus/cutlass/gmma_atom_{}.lp", atom)), "s");
    const auto cute = facts(load(cl), fmt::format("gmma_{}_s", atom));
    REQUIRE(cute.size() == 1);  // the box
    CHECK(std::find(hand.begin(), hand.end(), cute[0]) != hand.end());
  }
  // The tutorials: cp.async-filled A (a descriptor), TMA-filled A (box and descriptor), tcgen05.
  CHECK(facts(load("corpus/cutlass/wgmma_sm90_k_major_A.lp"), "sA") == std::vector<std::string>{"wgmma desc swizzle 128B major K"});
  CHECK(facts(load(cl), "wgmma_tn_sA") ==
        std::vector<std::string>{"tma load box (64, 128) swizzle 128B", "wgmma desc swizzle 128B major K"});
  CHECK(facts(load("corpus/cutlass/wgmma_tma_sm90_k_major_A.lp"), "sA") == facts(load(cl), "wgmma_tn_sA"));
  CHECK(facts(load("corpus/cutlass/wgmma_sm90_mn_major_A.lp"), "sA") == std::vector<std::string>{"wgmma desc swizzle 128B major MN"});
  CHECK(facts(load("corpus/cutlass/wgmma_tma_sm90_mn_major_A.lp"), "sA") == facts(load(cl), "wgmma_nt_sA"));
  CHECK(facts(load("corpus/cutlass/umma_01_mma_sm100_A.lp"), "sA") == facts(load(cl), "umma_sA_mma"));
  auto umma = facts(load(cl), "umma_sA_mma");
  for (const std::string& f : facts(load(cl), "umma_sA")) umma.push_back(f);
  std::sort(umma.begin(), umma.end());
  CHECK(facts(load("corpus/cutlass/umma_02_mma_tma_sm100_A.lp"), "sA") == umma);
}
