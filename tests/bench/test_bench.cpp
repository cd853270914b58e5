// The benchmark behind `layoutproof bench` on a tiny input. Nothing here depends on timing: the
// tests check that every engine that decides agrees, that a disagreement is reported, and that
// every section of the output is present and consistent.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "bench/Bench.h"
#include "rules/TempTree.h"
#include "solver/Result.h"

namespace {

using lp::bench::json;

const char* kEntry = R"(# A tiny corpus entry for the benchmark test.
arch sm_80
smem sA : f16 = Sw<3,3,3> o _0 o (_64,_64):(_64,_1) align 1024
expect sA injective
access s2r: sA ldmatrix.x4 lanes (_16,_2,_4,_4):(_1@0,_8@1,_16@0,_16@1)
expect s2r conflict-free
smem sB : f16 = (_3,_64):(_64,_1)
expect sB injective
compose C = sA o `(_4,_8):(_1,_4)`
tmem sfa : f32 = S[(32,4):(1@TLane,1@TCol)] + R[4:32@TLane]
covers sfa TLane=0..127, TCol=0..3
)";

}  // namespace

TEST_CASE("bench: a tiny corpus gives every section, and the engines agree") {
  lp::test::TempTree tree;
  tree.write("corpus/tiny.lp", kEntry);
  lp::bench::BenchOptions opt;
  opt.paths = {tree.path("corpus")};
  opt.synthetic_entries = 3;
  opt.repeats = 1;
  opt.max_tile = 16;
  opt.param_max_log2 = 8;
  opt.z3_timeout_ms = 20000;
  opt.jobs = 1;
  opt.layoutproof = LAYOUTPROOF_BIN;
  opt.cache_files = 20;
  const json r = lp::bench::run_bench(opt);

  REQUIRE(r.contains("machine"));
  REQUIRE(r["corpus"].size() == 2);
  CHECK(r["corpus"][0]["name"] == "corpus");
  CHECK(r["corpus"][1]["name"] == "synthetic-3");
  for (const auto& c : r["corpus"]) {
    INFO(c.dump());
    REQUIRE(c.contains("cold"));
    REQUIRE(c.contains("warm"));
    CHECK_FALSE(c.contains("cache_mismatch"));
    CHECK(c["unknowns"] == 0);
    CHECK(c["findings"] == 0);
    CHECK(c["cold"]["wall_ms_runs"].size() == 1);
    CHECK(c["cold"]["peak_rss_mb"].get<double>() > 0);
  }
  CHECK(r["corpus"][0]["files"] == 1);
  CHECK(r["corpus"][1]["files"] == 3);
  CHECK(r["corpus"][1]["obligations"].get<size_t>() == 3 * r["corpus"][0]["obligations"].get<size_t>());

  // Per-property statistics: three injectivity proofs (sA, sB, sfa), one bank-conflict proof, one
  // coverage, one algebra step and the composition it claims (decided by the solver's portfolio).
  std::map<std::string, size_t> counts;
  for (const auto& p : r["properties"]) {
    for (const char* k : {"count", "median_ms", "p90_ms", "max_ms"}) CHECK(p.contains(k));
    counts[p["property"]] = p["count"];
  }
  CHECK(counts["injectivity"] == 3);
  CHECK(counts["bank-conflicts"] == 1);
  CHECK(counts["coverage"] == 1);
  CHECK(counts["composition/algebra"] == 1);
  CHECK(counts["composition"] == 1);
  CHECK(r["proofs_overall"]["count"] == 7);

  // Every query: four engines, all that decided agree, auto decided.
  size_t corpus_q = 0, scaling_q = 0, params_q = 0;
  for (const auto& q : r["queries"]) {
    INFO(q.dump());
    for (const char* e : {"auto", "f2", "enum", "z3"}) REQUIRE(q["engines"].contains(e));
    CHECK(q["agree"] == true);
    CHECK(q["engines"]["auto"]["verdict"] != "unknown");
    REQUIRE(q.contains("auto_over_fastest"));
    CHECK_FALSE(q["auto_over_fastest"].is_null());
    corpus_q += q["source"] == "corpus";
    scaling_q += q["source"] == "scaling";
    params_q += q["source"] == "params";
  }
  CHECK(corpus_q == 6);            // sA, sB, sfa injective; s2r; sfa coverage; the compose's claim
  CHECK(scaling_q == 6 * 2 * 2);   // six families, 8x8 and 16x16, injectivity and a warp's access
  CHECK(params_q == 2);            // (M,64):(64,1) and (M,64):(1,M) at 2^8
  CHECK(r["disagreements"].empty());

  // The verdicts are the known ones: every tile is injective; a warp reading 8- or 16-wide
  // column-major or padded rows (several rows per instruction) conflicts, the rest do not.
  for (const auto& q : r["queries"]) {
    if (q["source"] != "scaling") continue;
    INFO(q.dump());
    const bool conflicting = q["property"] == "bank-conflicts" &&
                             (q["family"] == "column-major" || q["family"] == "padded+1" || q["family"] == "padded+4");
    CHECK(q["verdict"] == (conflicting ? "refuted" : "proven"));
  }

  std::set<std::string> targets;
  for (const auto& t : r["targets"]) {
    CHECK(t.contains("met"));
    targets.insert(t["target"]);
  }
  CHECK(targets.count("corpus cold"));
  CHECK(targets.count("synthetic-3 warm"));
  CHECK(targets.count("median proof time"));
  CHECK(std::any_of(targets.begin(), targets.end(), [](const std::string& t) { return t.rfind("auto / fastest engine", 0) == 0; }));
  CHECK(targets.count("peak memory"));
  CHECK(targets.count("engine disagreements (soundness)"));

  // The limits cases: each ran as its own process and answered (exit 0-2: proven, a finding or an
  // unknown, bad input), never crashed; their times and memory are the benchmark's to judge.
  REQUIRE(r.contains("limits"));
  CHECK(r["limits"]["cases"].size() == 9);
  for (const auto& c : r["limits"]["cases"]) {
    INFO(c.dump());
    CHECK(c["exit"].get<int>() >= 0);
    CHECK(c["exit"].get<int>() <= 2);
    CHECK_FALSE(c["answer"].get<std::string>().empty());
  }
  REQUIRE(r["limits"]["cache"].size() == 2);
  for (const auto& c : r["limits"]["cache"]) {
    INFO(c.dump());
    CHECK(c["answers_agree"] == true);
  }
  // A file whose check enumerates 256 issues costs more than its entry: each one is stored.
  CHECK(r["limits"]["cache"][1]["entries"] == r["limits"]["cache"][1]["files"]);
  CHECK(targets.count("limit cases over their time or memory bound, or a warm cache slower than none"));

  const std::string text = lp::bench::render_tables(r);
  for (const char* s : {"CORPUS", "PROOF TIME PER PROPERTY", "ENGINES", "TARGETS", "synthetic-3", "LIMITS"})
    CHECK(text.find(s) != std::string::npos);
  CHECK(text.find("SOUNDNESS BUG") == std::string::npos);
}

TEST_CASE("bench: engines that disagree are reported and their ratio is not counted") {
  lp::bench::BenchQuery q{"scaling", "injectivity", "row-major", "8x8", "(_8,_8):(_8,_1)", nullptr};
  std::vector<lp::bench::EngineRun> runs = {
      {"auto", "proven", "", "", 1.0, 1, 1},  {"f2", "proven", "", "", 1.0, 1, 1},
      {"enum", "refuted", "", "", 2.0, 1, 1}, {"z3", "unknown", "", "timeout", 5.0, 1, 1}};
  json c = lp::bench::compare_runs(q, runs);
  CHECK(c["agree"] == false);
  CHECK(c["verdict"] == "DISAGREE");

  runs[2].verdict = "proven";
  c = lp::bench::compare_runs(q, runs);
  CHECK(c["agree"] == true);
  CHECK(c["fastest"] == "auto");
  CHECK(c["auto_over_fastest"].get<double>() == Approx(1.0));

  // Bank conflicts: the same verdict with different wavefronts is a disagreement too.
  q.property = "bank-conflicts";
  runs[0].detail = "wavefronts=4 ideal=4";
  runs[1].detail = "wavefronts=8 ideal=4";
  CHECK(lp::bench::compare_runs(q, runs)["agree"] == false);

  // Auto undecided where another engine decided: no ratio, flagged.
  runs[0].verdict = "unknown";
  runs[1].detail = runs[0].detail;
  c = lp::bench::compare_runs(q, runs);
  CHECK(c["auto_over_fastest"].is_null());
}

TEST_CASE("bench: summary statistics") {
  json s = lp::bench::summary_stats({5, 1, 3, 2, 4, 6, 7, 8, 9, 10});
  CHECK(s["count"] == 10);
  CHECK(s["median_ms"].get<double>() == Approx(5.5));
  CHECK(s["p90_ms"].get<double>() == Approx(9));
  CHECK(s["max_ms"].get<double>() == Approx(10));
  CHECK(lp::bench::summary_stats({})["count"] == 0);
}

TEST_CASE("bench: a CUDA file is timed against nvcc, and one nvcc refuses is an error row", "[nvcc]") {
  lp::test::TempTree tree;
  tree.write("corpus/tiny.lp", kEntry);
  tree.write("k.cu", "__global__ void k(float* out) {\n  __shared__ float s[64];\n  s[threadIdx.x] = out[threadIdx.x];\n"
                     "  out[threadIdx.x] = s[63 - threadIdx.x];\n}\nvoid run(float* p) { k<<<1, 64>>>(p); }\n");
  tree.write("broken.cu", "__global__ void k( {\n");
  lp::bench::BenchOptions opt;
  opt.paths = {tree.path("corpus")};
  opt.synthetic_entries = 0;
  opt.repeats = 1;
  opt.max_tile = 0;
  opt.engines = opt.limits = opt.parametric = false;
  opt.jobs = 1;
  opt.layoutproof = LAYOUTPROOF_BIN;
  opt.cuda_paths = {tree.path("broken.cu"), tree.path("k.cu")};
  const json r = lp::bench::run_bench(opt);
  REQUIRE(r["cuda"].size() == 2);
  INFO(r["cuda"].dump());
  CHECK(r["cuda"][0].contains("error"));
  CHECK_FALSE(r["cuda"][0].contains("nvcc_ms"));
  if (r["cuda"][1].contains("error")) {
    CHECK(r["cuda"][1]["error"] == "nvcc is not on PATH");
    return;
  }
  // Launched with a block of 64: both accesses proven; its PTX alone, for any block, is not.
  CHECK(r["cuda"][1]["nvcc_ms"].get<double>() > 0);
  CHECK(r["cuda"][1].contains("analysis_ms"));
  CHECK(r["cuda"][1]["as_launched"].get<std::string>().find("0 findings") == 0);
  CHECK(r["cuda"][1]["ptx_alone"].get<std::string>().find("0 findings") != 0);
  const std::string text = lp::bench::render_tables(r);
  CHECK(text.find("CUDA (nvcc") != std::string::npos);
}
