// The human-readable tables of a `layoutproof bench` result (render_tables): one table per
// section of run_bench's JSON, then the targets.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "bench/Bench.h"

namespace lp::bench {

namespace fs = std::filesystem;

std::string render_tables(const json& r) {
  std::string s;
  s += fmt::format("machine: {} cores, load average {:.2f} at start; total {:.1f} s\n\n", r["machine"]["cores"].get<unsigned>(),
                   r["machine"]["load_1min_at_start"].get<double>(), r["total_s"].get<double>());
  s += "CORPUS (check, median wall of the repeats; peak RSS of each run's own process)\n";
  s += fmt::format("{:<16} {:>6} {:>6} {:>8} {:>10} {:>9} {:>10} {:>9}\n", "corpus", "files", "oblig", "findings", "cold ms",
                   "cold MiB", "warm ms", "warm MiB");
  for (const auto& c : r["corpus"]) {
    if (c.contains("error")) {
      s += fmt::format("{:<16} error: {}\n", c["name"].get<std::string>(), c["error"].get<std::string>());
      continue;
    }
    s += fmt::format("{:<16} {:>6} {:>6} {:>8} {:>10.1f} {:>9.1f} {:>10.1f} {:>9.1f}{}\n", c["name"].get<std::string>(),
                     c["files"].get<size_t>(), c["obligations"].get<size_t>(), c["findings"].get<size_t>(),
                     c["cold"]["wall_ms_median"].get<double>(), c["cold"]["peak_rss_mb"].get<double>(),
                     c["warm"]["wall_ms_median"].get<double>(), c["warm"]["peak_rss_mb"].get<double>(),
                     c.contains("cache_mismatch") ? "  CACHE MISMATCH" : "");
  }
  if (r.contains("ptx") && !r["ptx"].empty()) {
    s += "\nPTX (check of one compiled kernel file, one core, no cache; median wall of the repeats)\n";
    s += fmt::format("{:<40} {:>6} {:>6} {:>8} {:>8} {:>10}\n", "file", "lines", "oblig", "findings", "unknown", "wall ms");
    for (const auto& p : r["ptx"]) {
      if (!p.contains("wall_ms_median")) {
        s += fmt::format("{:<40} error: {}\n", p["file"].get<std::string>(), p.value("error", std::string("?")));
        continue;
      }
      s += fmt::format("{:<40} {:>6} {:>6} {:>8} {:>8} {:>10.1f}\n", fs::path(p["file"].get<std::string>()).filename().string(),
                       p["lines"].get<int64_t>(), p["obligations"].get<size_t>(), p["findings"].get<size_t>(),
                       p["unknowns"].get<size_t>(), p["wall_ms_median"].get<double>());
    }
  }
  if (r.contains("cuda") && !r["cuda"].empty()) {
    s += "\nCUDA (nvcc -O3 -lineinfo --ptx, the baseline, beside check --cuda's analysis and check of the PTX alone;\n"
         "median wall of the repeats, the PTX alone once; all cores)\n";
    s += fmt::format("{:<28} {:>9} {:>11} {:>7} {:>12} {:>7}  {}\n", "file", "nvcc ms", "analysis ms", "ratio", "PTX alone ms",
                     "ratio", "as launched | PTX alone");
    for (const auto& c : r["cuda"]) {
      const std::string name = fs::path(c["file"].get<std::string>()).filename().string();
      if (c.contains("error")) {
        s += fmt::format("{:<28} error: {}\n", name, c["error"].get<std::string>());
        continue;
      }
      const double nv = c["nvcc_ms"].get<double>(), an = c.value("analysis_ms", -1.0), alone = c["ptx_alone_ms"].get<double>();
      s += fmt::format("{:<28} {:>9.0f} {:>11.0f} {:>7.2f} {:>12.0f} {:>7.2f}  {} | {}{}\n", name, nv, an, an / nv, alone, alone / nv,
                       c["as_launched"].get<std::string>(), c["ptx_alone"].get<std::string>(),
                       c["ptx_alone_budget_spent"].get<bool>() ? " (budget spent)" : "");
    }
  }
  s += "\nPROOF TIME PER PROPERTY over the corpus obligations (auto engine)\n";
  s += fmt::format("{:<20} {:>6} {:>10} {:>10} {:>10}\n", "property", "count", "median ms", "p90 ms", "max ms");
  auto stat_row = [&](const std::string& name, const json& p) {
    s += fmt::format("{:<20} {:>6} {:>10.3f} {:>10.3f} {:>10.3f}\n", name, p["count"].get<size_t>(), p["median_ms"].get<double>(),
                     p["p90_ms"].get<double>(), p["max_ms"].get<double>());
  };
  for (const auto& p : r["properties"]) stat_row(p["property"], p);
  stat_row("all", r["proofs_overall"]);
  s += "slowest:\n";
  for (const auto& q : r["slowest_obligations"])
    s += fmt::format("  {:>10.3f} ms  {}\n", q["time_ms"].get<double>(), q["query"].get<std::string>().substr(0, 150));

  auto cell = [](const json& e) {
    if (!e.is_object()) return std::string("-");
    std::string v = e["verdict"].get<std::string>();
    std::string tag = v == "proven" ? "" : v == "refuted" ? " R" : " ?";
    return fmt::format("{:.3f}{}", e["time_ms"].get<double>(), tag);
  };
  auto ratio = [](const json& q) {
    if (!q.contains("auto_over_fastest")) return std::string("-");
    if (q["auto_over_fastest"].is_null()) return std::string("UNDECIDED");
    return fmt::format("{:.2f}", q["auto_over_fastest"].get<double>());
  };
  s += "\nENGINES: time ms per engine (R refuted, ? undecided: limit, timeout or not applicable), auto / fastest deciding engine\n";
  s += fmt::format("{:<8} {:<15} {:<15} {:<12} {:>12} {:>12} {:>12} {:>12} {:>7} {:>8}  {}\n", "source", "property", "family", "size",
                   "auto", "f2", "enum", "z3", "ratio", "MiB", "verdict");
  for (const auto& q : r["queries"]) {
    double mib = 0;
    for (const auto& [k, e] : q["engines"].items()) mib = std::max(mib, e["peak_rss_mb"].get<double>());
    std::string fam = q["family"].get<std::string>(), size = q["size"].get<std::string>();
    if (q["source"] == "corpus") {
      fam = q["label"].get<std::string>().substr(0, 15);
      size = "";
    }
    s += fmt::format("{:<8} {:<15} {:<15} {:<12} {:>12} {:>12} {:>12} {:>12} {:>7} {:>8.0f}  {}{}\n", q["source"].get<std::string>(),
                     q["property"].get<std::string>(), fam, size, cell(q["engines"]["auto"]), cell(q["engines"]["f2"]),
                     cell(q["engines"]["enum"]), cell(q["engines"]["z3"]), ratio(q), mib, q["verdict"].get<std::string>(),
                     q["agree"].get<bool>() ? "" : "  <== ENGINES DISAGREE");
  }
  if (!r["disagreements"].empty()) {
    s += fmt::format("\n!!! SOUNDNESS BUG: {} queries where engines that decided disagree; their results are not counted:\n",
                     r["disagreements"].size());
    for (const auto& q : r["disagreements"]) s += "!!!   " + q.dump() + "\n";
  }
  if (r.contains("parametric") && !r["parametric"].empty()) {
    s += "\nPARAMETRIC OBLIGATIONS: every value decided, auto engine, one core (median of the repeats)\n";
    s += fmt::format("{:<16} {:<24} {:<15} {:>12} {:<9} {:<9} {:>10}  {}\n", "family", "case", "property", "values", "expected",
                     "verdict", "ms", "how");
    for (const auto& p : r["parametric"])
      s += fmt::format("{:<16} {:<24} {:<15} {:>12} {:<9} {:<9} {:>10.1f}  {}{}\n", p["family"].get<std::string>(),
                       p["name"].get<std::string>(), p["property"].get<std::string>(), p["values"].get<int64_t>(),
                       p["expected"].get<std::string>(), p["verdict"].get<std::string>(), p["time_ms"].get<double>(),
                       p["reason"].get<std::string>().substr(0, 100), p["correct"].get<bool>() ? "" : "  <== WRONG");
  }
  if (r.contains("limits")) {
    s += "\nLIMITS: the worst inputs, each its own process (wall and its peak RSS against its bounds)\n";
    s += fmt::format("{:<4} {:<58} {:>8} {:>8} {:>8} {:>8} {:>5}  {}\n", "", "case", "wall s", "limit s", "MiB", "cap MiB", "exit",
                     "answer");
    for (const auto& c : r["limits"]["cases"])
      s += fmt::format("{:<4} {:<58} {:>8.2f} {:>8.1f} {:>8.0f} {:>8.0f} {:>5}  {}\n", c["met"].get<bool>() ? "ok" : "MISS",
                       c["name"].get<std::string>(), c["wall_s"].get<double>(), c["limit_s"].get<double>(),
                       c["peak_rss_mb"].get<double>(), c["cap_mb"].get<double>(), c["exit"].get<int>(),
                       c["answer"].get<std::string>());
    for (const auto& c : r["limits"]["cache"])
      s += fmt::format("{:<4} cache, {} {}: uncached {:.2f} s, cold {:.2f} s, warm {:.2f} s ({:.2f}x); {} entries, {:.1f} MiB\n",
                       c["met"].get<bool>() ? "ok" : "MISS", c["files"].get<size_t>(), c["name"].get<std::string>(),
                       c["uncached_s"].get<double>(), c["cold_s"].get<double>(), c["warm_s"].get<double>(),
                       c["warm_over_uncached"].get<double>(), c["entries"].get<size_t>(), c["cache_mb"].get<double>());
  }
  s += "\nTARGETS\n";
  for (const auto& t : r["targets"])
    s += fmt::format("  {:<4} {:<60} {:>10.3f} {} (limit {} {})\n", t["met"].get<bool>() ? "ok" : "MISS", t["target"].get<std::string>(),
                     t["value"].get<double>(), t["unit"].get<std::string>(), t["limit"].get<double>(), t["unit"].get<std::string>());
  return s;
}

}  // namespace lp::bench
