#include "bench/Bench.h"

#include "bench/Limits.h"
#include "bench/ParametricSet.h"

#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "analyzer/parse/Parsers.h"
#include "analyzer/support/Process.h"
#include "hw/Arch.h"
#include "hw/SmemInstr.h"
#include "rules/Checker.h"
#include "rules/Checker.h"
#include "solver/BankConflicts.h"
#include "solver/Engines.h"
#include "solver/Injectivity.h"
#include "analyzer/ir/Parametric.h"
#include "solver/SmemAccess.h"

namespace lp::bench {

namespace fs = std::filesystem;

namespace {

double peak_rss_mb() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // Linux: kilobytes
}

// A query (or engine) above this is run once; below it, repeated for its time.
constexpr double kSlowMs = 200;
// The target for parametric obligations: each decided within a second on one core.
constexpr double kParametricTargetMs = 1000;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Runs `f` in a forked child and returns its JSON and the child's own peak RSS (MiB). Without
// isolation (or when fork fails) runs it here and reports the process's peak so far.
std::pair<json, double> isolated(const std::function<json()>& f, bool isolate) {
  auto here = [&] {
    json j;
    try {
      j = f();
    } catch (const std::exception& e) {
      j = json{{"error", e.what()}};
    }
    return std::pair<json, double>{j, peak_rss_mb()};
  };
  if (!isolate) return here();
  int fds[2];
  if (pipe(fds) != 0) return here();
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return here();
  }
  if (pid == 0) {
    close(fds[0]);
    std::string out;
    try {
      out = f().dump();
    } catch (const std::exception& e) {
      out = json{{"error", e.what()}}.dump();
    }
    const char* p = out.data();
    size_t left = out.size();
    while (left > 0) {
      ssize_t w = write(fds[1], p, left);
      if (w <= 0) break;
      p += w;
      left -= static_cast<size_t>(w);
    }
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buf[65536];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  struct rusage ru {};
  wait4(pid, &status, 0, &ru);
  json j;
  try {
    j = json::parse(text);
  } catch (const std::exception&) {
    j = json{{"error", fmt::format("the child process failed (status {})", status)}};
  }
  return {j, static_cast<double>(ru.ru_maxrss) / 1024.0};
}

std::string make_temp_dir(const std::string& tag) {
  std::random_device rd;
  fs::path p = fs::temp_directory_path() / fmt::format("lp-bench-{}-{}-{:x}", tag, getpid(), rd());
  fs::create_directories(p);
  return p.string();
}

// ---- corpus ------------------------------------------------------------------------------------

json check_once(const std::vector<std::string>& paths, unsigned jobs, const std::optional<std::string>& cache) {
  rules::CheckOptions opt;
  opt.jobs = jobs;
  opt.cache_dir = cache;
  Stopwatch clock;
  rules::CheckRun run = rules::check_paths(paths, opt);
  const double wall = clock.elapsed_ms();
  size_t proven = 0, unknown = 0;
  for (const auto& o : run.obligations) proven += o.passed;
  for (const auto& f : run.findings) unknown += f.kind == rules::FindingKind::Unknown;
  return json{{"wall_ms", wall},           {"files", run.files.size()},     {"obligations", run.obligations.size()},
              {"passed", proven},          {"findings", run.findings.size()}, {"unknowns", unknown}};
}

// ---- CUDA files against nvcc -------------------------------------------------------------------

// The number before `unit` after `label` in `text` (e.g. "analysis: 573 ms"), if any.
std::optional<double> number_after(const std::string& text, const std::string& label) {
  const size_t at = text.rfind(label);
  if (at == std::string::npos) return std::nullopt;
  return std::strtod(text.c_str() + at + label.size(), nullptr);
}

// The run's summary line ("N findings ..., M of K obligations proven").
std::string summary_line(const std::string& output) {
  std::string last;
  size_t start = 0;
  while (start < output.size()) {
    size_t end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    const std::string line = output.substr(start, end - start);
    if (line.find(" obligation") != std::string::npos && line.find(" in ") != std::string::npos) last = line;
    start = end + 1;
  }
  return last;
}

json cuda_row(const std::string& cu, const BenchOptions& opt) {
  json row = {{"file", cu}};
  const std::string nvcc = find_on_path("nvcc");
  if (nvcc.empty()) {
    row["error"] = "nvcc is not on PATH";
    return row;
  }
  const fs::path dir = fs::temp_directory_path() / fmt::format("layoutproof-bench-{}", ::getpid());
  std::error_code ec;
  fs::create_directories(dir, ec);
  const std::string ptx = (dir / (fs::path(cu).stem().string() + ".ptx")).string();
  // nvcc exactly as `check --cuda` runs it (cli/CudaCompile.cpp).
  std::vector<std::string> compile = {nvcc, "-O3", "-lineinfo", "-arch=" + std::string(hw::kDefaultArchName), "--ptx", cu, "-o", ptx};
  compile.insert(compile.end(), opt.nvcc_args.begin(), opt.nvcc_args.end());
  std::vector<std::string> as_launched = {opt.layoutproof, "check", "--cuda", cu, "--no-cache", "--no-progress"};
  if (!opt.nvcc_args.empty()) {
    as_launched.push_back("--");
    as_launched.insert(as_launched.end(), opt.nvcc_args.begin(), opt.nvcc_args.end());
  }
  std::vector<double> nvcc_ms, analysis_ms, cuda_ms;
  std::string cuda_summary;
  for (int rep = 0; rep < std::max(1, opt.repeats); ++rep) {
    Stopwatch clock;
    const ProcessResult c = run_process(compile);
    nvcc_ms.push_back(clock.elapsed_ms());
    if (c.exit_code != 0) {
      row["error"] = "nvcc failed: " + c.output.substr(0, 400);
      fs::remove_all(dir, ec);
      return row;
    }
    Stopwatch whole;
    const ProcessResult r = run_process(as_launched);
    cuda_ms.push_back(whole.elapsed_ms());
    if (auto a = number_after(r.output, "analysis: ")) analysis_ms.push_back(*a);
    cuda_summary = summary_line(r.output);
  }
  Stopwatch alone_clock;
  const ProcessResult alone = run_process({opt.layoutproof, "check", ptx, "--no-cache", "--no-progress", "--time-budget",
                                           fmt::format("{}", opt.ptx_alone_budget_s)});
  const double alone_ms = alone_clock.elapsed_ms();
  fs::remove_all(dir, ec);
  row["nvcc_ms"] = median(nvcc_ms);
  row["check_cuda_ms"] = median(cuda_ms);
  if (!analysis_ms.empty()) row["analysis_ms"] = median(analysis_ms);
  row["as_launched"] = cuda_summary;
  row["ptx_alone_ms"] = alone_ms;
  row["ptx_alone"] = summary_line(alone.output);
  row["ptx_alone_budget_spent"] = alone.output.find("time budget") != std::string::npos;
  return row;
}

// The cold check of a directory of 100 compiled kernels (a Triton cache), on 2 cores (issue 37).
constexpr double kKernelDirTargetS = 10.0;

json corpus_section(const std::string& name, const std::vector<std::string>& paths, const BenchOptions& opt) {
  std::vector<double> cold, warm;
  double cold_rss = 0, warm_rss = 0;
  json shape;
  for (int rep = 0; rep < std::max(1, opt.repeats); ++rep) {
    const std::string cache = make_temp_dir("cache");
    auto [c, crss] = isolated([&] { return check_once(paths, opt.jobs, cache); }, opt.isolate);
    auto [w, wrss] = isolated([&] { return check_once(paths, opt.jobs, cache); }, opt.isolate);
    std::error_code ec;
    fs::remove_all(cache, ec);
    if (c.contains("error") || w.contains("error"))
      return json{{"name", name}, {"error", c.value("error", w.value("error", std::string("?")))}};
    cold.push_back(c["wall_ms"]);
    warm.push_back(w["wall_ms"]);
    cold_rss = std::max(cold_rss, crss);
    warm_rss = std::max(warm_rss, wrss);
    if (c["obligations"] != w["obligations"] || c["passed"] != w["passed"] || c["findings"] != w["findings"])
      shape["cache_mismatch"] = true;  // the warm run must reproduce the cold one exactly
    shape["files"] = c["files"];
    shape["obligations"] = c["obligations"];
    shape["passed"] = c["passed"];
    shape["findings"] = c["findings"];
    shape["unknowns"] = c["unknowns"];
  }
  json out = {{"name", name}};
  out.update(shape);
  out["cold"] = {{"wall_ms_median", median(cold)}, {"wall_ms_runs", cold}, {"peak_rss_mb", cold_rss}};
  out["warm"] = {{"wall_ms_median", median(warm)}, {"wall_ms_runs", warm}, {"peak_rss_mb", warm_rss}};
  return out;
}

// The corpus replicated into a temporary directory until it has `n` files (each copy is a
// distinct path, so a distinct cache entry).
std::vector<std::string> synthetic_corpus(const std::vector<std::string>& files, size_t n, const std::string& dir) {
  std::vector<std::string> out;
  for (size_t i = 0; i < n && !files.empty(); ++i) {
    const fs::path src = files[i % files.size()];
    const fs::path dst = fs::path(dir) / fmt::format("e{:03}_{}", i, src.filename().string());
    std::error_code ec;
    fs::copy_file(src, dst, fs::copy_options::overwrite_existing, ec);
    if (!ec) out.push_back(dst.string());
  }
  return out;
}

// ---- scaling queries ---------------------------------------------------------------------------

struct TileFamily {
  std::string name;
  std::function<std::string(int64_t)> text;  // the smem layout of an s x s tile of f32
};

std::vector<TileFamily> tile_families() {
  auto row = [](int64_t s, int64_t pad) { return fmt::format("(_{},_{}):(_{},_1)", s, s, s + pad); };
  return {
      {"row-major", [=](int64_t s) { return row(s, 0); }},
      {"column-major", [](int64_t s) { return fmt::format("(_{},_{}):(_1,_{})", s, s, s); }},
      {"padded+1", [=](int64_t s) { return row(s, 1); }},
      {"padded+4", [=](int64_t s) { return row(s, 4); }},
      {"Sw<3,3,3>", [=](int64_t s) { return "Sw<3,3,3> o _0 o " + row(s, 0); }},
      {"byte Sw<3,4,3>", [=](int64_t s) { return "Sw<3,4,3> o smem_ptr[32b](unset) o " + row(s, 0); }},
  };
}

// One warp of ld.shared.b32 sweeping the tile row by row: lanes along the columns (32 per
// instruction, or whole rows of a narrower tile), then the issued instructions.
std::string warp_lanes(int64_t s) {
  const int64_t cl = std::min<int64_t>(s, 32), rl = 32 / cl;
  return fmt::format("(_{},_{},_{},_{}):(_1@1,_1@0,_{}@1,_{}@0)", cl, rl, s / cl, s / rl, cl, rl);
}

}  // namespace

json summary_stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  auto pct = [&](double q) {
    if (v.empty()) return 0.0;
    size_t k = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size()))) - 1;
    return v[std::min(k, v.size() - 1)];
  };
  return json{{"count", v.size()}, {"median_ms", median(v)}, {"p90_ms", pct(0.9)}, {"max_ms", v.empty() ? 0.0 : v.back()}};
}

std::vector<BenchQuery> scaling_queries(int64_t max_tile, int param_max_log2) {
  std::vector<BenchQuery> out;
  for (const TileFamily& fam : tile_families()) {
    for (int64_t s = 8; s <= max_tile; s *= 2) {
      const Layout smem = parse_layout_text(fam.text(s), "<bench>").layout;
      const std::string size = fmt::format("{}x{}", s, s);
      out.push_back({"scaling", "injectivity", fam.name, size, fam.text(s), [smem](Engine e, const SolverLimits& l) {
                       return Rerun{prove_injective(smem, e, l), ""};
                     }});
      const Layout lanes = parse_layout_text(warp_lanes(s), "<bench lanes>").layout;
      const SmemAccess access(smem, 32, lanes, hw::smem_instr("ld.shared.b32"), hw::default_arch(), 1024);
      out.push_back({"scaling", "bank-conflicts", fam.name, size, "ld.shared.b32 " + warp_lanes(s),
                     [access](Engine e, const SolverLimits& l) { return rerun_conflict_free(access, e, l); }});
    }
  }
  // Symbolic parameters: M over growing ranges.
  struct ParamFamily {
    std::string name, text;
    int max_log2;
  };
  const std::vector<ParamFamily> pf = {{"(M,64):(64,1)", "(M,_64):(_64,_1)", param_max_log2},
                                       {"(M,64):(1,M)", "(M,_64):(_1,M)", std::min(param_max_log2, 12)}};
  for (const ParamFamily& f : pf) {
    for (int k = 8; k <= f.max_log2; k += 2) {
      Parametric params;
      params.specs.push_back(ParamSpec{"M", 64, int64_t{1} << k, 64});
      ParsedLayout parsed = parse_layout_text(f.text, "<bench>", std::nullopt, &params.specs);
      params.uses = parsed.param_uses;
      const Layout l = parsed.layout;
      out.push_back({"params", "injectivity", f.name, fmt::format("M=64..2^{}%64", k), f.text + " M=64..2^" + std::to_string(k),
                     [l, params](Engine e, const SolverLimits& lim) { return Rerun{prove_injective(l, e, lim, &params), ""}; }});
    }
  }
  return out;
}

std::vector<EngineRun> run_engines(const BenchQuery& q, const BenchOptions& opt) {
  constexpr Engine kEngines[] = {Engine::F2, Engine::Enum, Engine::Z3, Engine::Auto};
  const bool isolate = opt.isolate;
  SolverLimits limits;
  limits.timeout_ms = opt.z3_timeout_ms;
  // Pass 1: each engine once, in its own child: its verdict, its time and its own peak RSS.
  std::vector<EngineRun> out;
  for (Engine e : kEngines) {
    auto [j, rss] = isolated(
        [&]() -> json {
          Stopwatch clock;
          Rerun r = q.run(e, limits);
          const double ms = clock.elapsed_ms();
          return json{{"verdict", verdict_name(r.outcome.verdict)}, {"detail", r.detail}, {"reason", r.outcome.reason}, {"time_ms", ms}};
        },
        isolate);
    EngineRun r;
    r.engine = engine_name(e);
    r.peak_rss_mb = rss;
    if (j.contains("error")) {
      r.verdict = "unknown";
      r.reason = "benchmark error: " + j["error"].get<std::string>();
    } else {
      r.verdict = j["verdict"];
      r.detail = j["detail"];
      r.reason = j["reason"];
      r.time_ms = j["time_ms"];
      r.runs = 1;
    }
    out.push_back(std::move(r));
  }
  // Pass 2: the engines that took at most kSlowMs are timed again in one child, in rounds that
  // run each of them once in turn, so that load on the machine falls on all of them alike. Each
  // round starts one engine later, so that no engine always runs right after the same one: a run
  // after Z3 refaults the memory Z3 gave back (4 ms more on a 2^20-point enumeration). The first
  // round is a warm-up; there are at least `repeats` timed rounds and one per engine, and more
  // until the rounds have taken kTimingBudgetMs, so that a burst of load on this shared machine
  // cannot cover every round of one engine. An engine's time is its fastest round: the work is
  // deterministic, so load only adds to it.
  constexpr double kTimingBudgetMs = 250;
  std::vector<size_t> fast;
  for (size_t i = 0; i < out.size(); ++i)
    if (out[i].runs == 1 && out[i].time_ms <= kSlowMs) fast.push_back(i);
  if (fast.empty()) return out;
  const json j = isolated(
      [&]() -> json {
        std::vector<std::vector<double>> times(fast.size());
        const int min_rounds = std::max({1, opt.repeats, static_cast<int>(fast.size())});
        Stopwatch total;
        for (int round = 0; round <= 20 * min_rounds; ++round) {
          double round_ms = 0;
          for (size_t step = 0; step < fast.size(); ++step) {
            const size_t k = (step + static_cast<size_t>(round)) % fast.size();
            Stopwatch clock;
            (void)q.run(kEngines[fast[k]], limits);
            const double ms = clock.elapsed_ms();
            round_ms += ms;
            if (round > 0) times[k].push_back(ms);
          }
          if (round >= min_rounds && (total.elapsed_ms() >= kTimingBudgetMs || round_ms > kSlowMs)) break;
        }
        return json{{"times", times}};
      },
      isolate).first;
  if (j.contains("error")) return out;  // pass 1's single times stand
  for (size_t k = 0; k < fast.size(); ++k) {
    std::vector<double> times = j["times"][k];
    EngineRun& r = out[fast[k]];
    r.time_ms = std::min(r.time_ms, *std::min_element(times.begin(), times.end()));
    r.runs += static_cast<int>(times.size());
  }
  return out;
}

json compare_runs(const BenchQuery& q, const std::vector<EngineRun>& runs) {
  json o = {{"source", q.source}, {"property", q.property}, {"family", q.family}, {"size", q.size}, {"label", q.label}};
  json engines = json::object();
  const EngineRun* fastest = nullptr;
  const EngineRun* autor = nullptr;
  std::set<std::string> verdicts, details;
  for (const EngineRun& r : runs) {
    json e = {{"verdict", r.verdict}, {"time_ms", r.time_ms}, {"runs", r.runs}, {"peak_rss_mb", r.peak_rss_mb}};
    if (!r.detail.empty()) e["detail"] = r.detail;
    if (r.verdict == "unknown") e["reason"] = r.reason;
    engines[r.engine] = e;
    if (r.engine == "auto") autor = &r;
    if (r.verdict == "unknown") continue;
    verdicts.insert(r.verdict);
    if (!r.detail.empty() && r.detail.find("access-error") == std::string::npos) details.insert(r.detail);
    if (!fastest || r.time_ms < fastest->time_ms) fastest = &r;
  }
  o["engines"] = engines;
  const bool agree = verdicts.size() <= 1 && details.size() <= 1;
  o["agree"] = agree;
  o["verdict"] = verdicts.size() == 1 ? *verdicts.begin() : verdicts.empty() ? "unknown" : "DISAGREE";
  if (fastest) o["fastest"] = fastest->engine;
  if (fastest && autor && autor->verdict != "unknown")
    o["auto_over_fastest"] = fastest->time_ms > 0 ? autor->time_ms / fastest->time_ms : 1.0;
  else if (fastest)
    o["auto_over_fastest"] = nullptr;  // auto undecided where another engine decided
  return o;
}

namespace {

void say(const BenchOptions& opt, const std::string& s) {
  if (opt.progress) opt.progress(s);
}

// (a) the corpus, cold and warm; the synthetic corpus of replicated entries, whose directory
// `synth_dir` the caller removes once the engine comparison is done with it.
json corpus_rows(const BenchOptions& opt, const std::vector<std::string>& files, std::string& synth_dir) {
  json corpus = json::array();
  say(opt, fmt::format("corpus: {} files, cold and warm, {} repeats", files.size(), opt.repeats));
  corpus.push_back(corpus_section("corpus", opt.paths, opt));
  if (opt.synthetic_entries > 0 && !files.empty()) {
    synth_dir = make_temp_dir("synthetic");
    auto synth = synthetic_corpus(files, opt.synthetic_entries, synth_dir);
    say(opt, fmt::format("synthetic corpus: {} files", synth.size()));
    corpus.push_back(corpus_section(fmt::format("synthetic-{}", synth.size()), {synth_dir}, opt));
  }
  for (const std::string& dir : opt.kernel_dirs) {
    say(opt, "kernels: " + dir);
    json kernels = corpus_section("kernels " + dir, {dir}, opt);
    kernels["kernels"] = true;
    corpus.push_back(std::move(kernels));
  }
  return corpus;
}

// (b) the corpus obligations, recorded from one uncached single-threaded check, then each
// re-run with auto (per-property proof times, into `result`). Returns each distinct query once,
// for the engine comparison.
std::vector<BenchQuery> corpus_obligations(const BenchOptions& opt, json& result) {
  say(opt, "recording the corpus obligations");
  QueryRecorder recorder;
  set_query_recorder(&recorder);
  rules::CheckOptions copt;
  copt.jobs = 1;
  rules::CheckRun recorded_run;
  try {
    recorded_run = rules::check_paths(opt.paths, copt);
  } catch (...) {
    set_query_recorder(nullptr);
    throw;
  }
  set_query_recorder(nullptr);
  std::vector<RecordedQuery> recorded = recorder.take();

  std::map<std::string, std::vector<double>> by_property;
  std::vector<double> all_proofs;
  std::vector<std::pair<double, std::string>> slowest;
  std::vector<BenchQuery> corpus_queries;
  std::set<std::string> seen;
  say(opt, fmt::format("timing {} solver obligations", recorded.size()));
  for (const RecordedQuery& rq : recorded) {
    std::vector<double> t;
    for (int rep = 0; rep < std::max(1, opt.repeats); ++rep) {
      Stopwatch clock;
      rq.run(Engine::Auto, SolverLimits{});
      t.push_back(clock.elapsed_ms());
      if (t.back() > kSlowMs) break;
    }
    const double proof_ms = median(t);
    by_property[property_name(rq.property)].push_back(proof_ms);
    slowest.push_back({proof_ms, std::string(property_name(rq.property)) + " " + rq.label});
    all_proofs.push_back(proof_ms);
    const std::string key = std::string(property_name(rq.property)) + "|" + rq.label;
    if (seen.insert(key).second) corpus_queries.push_back({"corpus", property_name(rq.property), "", "", rq.label, rq.run});
  }
  // Composition and divide legality (LP003) are decided by the algebra library's exhaustive
  // evaluation, not by a solver engine: their times come from the checker's obligations.
  for (const auto& o : recorded_run.obligations)
    if (o.rule_id == "LP003") {
      by_property["composition/algebra"].push_back(o.time_ms);
      all_proofs.push_back(o.time_ms);
    }
  json props = json::array();
  for (const char* p : {"injectivity", "bank-conflicts", "coverage", "composition", "composition/algebra"}) {
    json row = {{"property", p}};
    row.update(summary_stats(by_property[p]));
    props.push_back(row);
  }
  result["properties"] = props;
  result["proofs_overall"] = summary_stats(all_proofs);
  std::sort(slowest.rbegin(), slowest.rend());
  json slow = json::array();
  for (size_t i = 0; i < std::min<size_t>(5, slowest.size()); ++i) slow.push_back({{"time_ms", slowest[i].first}, {"query", slowest[i].second}});
  result["slowest_obligations"] = slow;
  return corpus_queries;
}

// What the engine comparison measured that the targets judge.
struct EngineTally {
  double worst_ratio = 0, worst_ratio_all = 0, peak_query_rss = 0;
  size_t measurable = 0, over = 0, undecided_auto = 0;
};

// (c) + (d) scaling and the engine comparison, into `result`.
EngineTally compare_engines(const BenchOptions& opt, const std::vector<BenchQuery>& corpus_queries, json& result) {
  std::vector<BenchQuery> queries;
  if (opt.engines) queries = corpus_queries;
  if (opt.max_tile >= 8) {
    auto sq = scaling_queries(opt.max_tile, opt.param_max_log2);
    queries.insert(queries.end(), sq.begin(), sq.end());
  }
  json compared = json::array(), disagreements = json::array();
  EngineTally tally;
  constexpr double kMeasurableMs = 1.0;
  for (size_t i = 0; i < queries.size(); ++i) {
    const BenchQuery& q = queries[i];
    say(opt, fmt::format("[{}/{}] {} {} {} {}", i + 1, queries.size(), q.source, q.property, q.family, q.size));
    auto runs = run_engines(q, opt);
    json c = compare_runs(q, runs);
    for (const EngineRun& r : runs) tally.peak_query_rss = std::max(tally.peak_query_rss, r.peak_rss_mb);
    if (!c["agree"].get<bool>()) disagreements.push_back(c);
    // An engine result that disagrees with the others is not counted (it is a soundness bug).
    if (c["agree"].get<bool>() && c.contains("auto_over_fastest")) {
      if (c["auto_over_fastest"].is_null()) {
        ++tally.undecided_auto;
      } else {
        const double ratio = c["auto_over_fastest"].get<double>();
        tally.worst_ratio_all = std::max(tally.worst_ratio_all, ratio);
        // Below a millisecond, timer resolution, caches and the machine's load move a query's
        // time by more than 1.5x between identical runs: those ratios are reported, not judged.
        if (c["engines"][c["fastest"].get<std::string>()]["time_ms"].get<double>() >= kMeasurableMs) {
          tally.worst_ratio = std::max(tally.worst_ratio, ratio);
          ++tally.measurable;
          if (ratio > 1.5) ++tally.over;
        }
      }
    }
    compared.push_back(c);
  }
  result["queries"] = compared;
  result["disagreements"] = disagreements;
  return tally;
}

// (e) compiled kernels: each PTX file checked alone on one core, no cache.
json ptx_rows(const BenchOptions& opt) {
  json ptx = json::array();
  std::vector<std::string> ptx_errors;
  for (const std::string& f : rules::collect_files(opt.ptx_paths, ptx_errors)) {
    if (!rules::is_ptx_path(f)) continue;
    say(opt, "ptx: " + f);
    std::vector<double> walls;
    json shape;
    for (int rep = 0; rep < std::max(1, opt.repeats); ++rep) {
      auto [c, rss] = isolated([&] { return check_once({f}, 1, std::nullopt); }, opt.isolate);
      if (c.contains("error")) {
        shape["error"] = c["error"];
        break;
      }
      walls.push_back(c["wall_ms"]);
      shape = c;
      shape["peak_rss_mb"] = rss;
    }
    std::ifstream in(f);
    const auto lines = std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), '\n');
    json row = {{"file", f}, {"lines", lines}};
    row.update(shape);
    if (!walls.empty()) row["wall_ms_median"] = median(walls);
    ptx.push_back(row);
  }
  return ptx;
}

// What the parametric section measured that the targets judge.
struct ParametricTally {
  size_t parametric_wrong = 0, parametric_slow = 0;
  double parametric_worst_ms = 0;
};

// (f) the parametric obligations (bench/ParametricSet.h): each decided for every value by the
// auto engine in this process (one core), against its argued truth; the rows into `parametric`.
ParametricTally parametric_rows(const BenchOptions& opt, json& parametric) {
  ParametricTally tally;
  for (const ParametricCase& c : opt.parametric ? parametric_cases() : std::vector<ParametricCase>{}) {
    say(opt, "parametric: " + c.name);
    std::vector<double> t;
    ParametricDecision d;
    for (int rep = 0; rep < std::max(1, opt.repeats); ++rep) {
      Stopwatch clock;
      d = decide_case(c, c.params, Engine::Auto);
      t.push_back(clock.elapsed_ms());
    }
    const std::string verdict = verdict_name(d.outcome.verdict);
    const bool correct = d.outcome.verdict == (c.holds ? Verdict::Proven : Verdict::Refuted);
    int64_t values = 1;
    for (const ParamSpec& p : c.params) values *= param_value_count(p);
    const double ms = median(t);
    tally.parametric_wrong += !correct;
    tally.parametric_slow += ms > kParametricTargetMs;
    tally.parametric_worst_ms = std::max(tally.parametric_worst_ms, ms);
    parametric.push_back({{"family", c.family}, {"name", c.name}, {"property", parametric_property_name(c.property)},
                          {"layout", c.layout}, {"values", values}, {"expected", c.holds ? "proven" : "refuted"},
                          {"verdict", verdict}, {"correct", correct}, {"engine", engine_name(d.outcome.engine)},
                          {"time_ms", ms}, {"reason", d.outcome.reason}});
  }
  return tally;
}

// The targets, judged on the sections in `result` and the tallies; the peak memory (a target
// itself) into `peak`.
json judge_targets(const BenchOptions& opt, const json& result, const EngineTally& engines, const ParametricTally& par,
                   double& peak) {
  const json& corpus = result["corpus"];
  const json& cuda = result["cuda"];
  const json& ptx = result["ptx"];
  json targets = json::array();
  auto target = [&](const std::string& what, double value, double limit, const std::string& unit) {
    targets.push_back({{"target", what}, {"value", value}, {"limit", limit}, {"unit", unit}, {"met", value <= limit}});
  };
  for (const auto& c : corpus) {
    if (!c.contains("cold")) continue;
    // Issue 37: a directory of 100 compiled kernels (a Triton cache) within 10 s on 2 cores.
    target(c["name"].get<std::string>() + " cold", c["cold"]["wall_ms_median"].get<double>() / 1000,
           c.value("kernels", false) ? kKernelDirTargetS : 2.0, "s");
    target(c["name"].get<std::string>() + " warm", c["warm"]["wall_ms_median"].get<double>() / 1000, 0.2, "s");
  }
  target("median proof time", result["proofs_overall"]["median_ms"].get<double>(), 50, "ms");
  for (const auto& c : cuda)
    if (c.contains("analysis_ms")) {
      const std::string name = fs::path(c["file"].get<std::string>()).filename().string();
      const double nv = c["nvcc_ms"].get<double>();
      target(fmt::format("CUDA {}: analysis as launched / nvcc", name), c["analysis_ms"].get<double>() / nv, 1.0, "x");
      target(fmt::format("CUDA {}: its PTX alone / nvcc", name), c["ptx_alone_ms"].get<double>() / nv, 1.0, "x");
    }
  for (const auto& p : ptx)
    if (p.contains("wall_ms_median"))
      target(fmt::format("PTX {} ({} lines), one core", fs::path(p["file"].get<std::string>()).filename().string(),
                         p["lines"].get<int64_t>()),
             p["wall_ms_median"].get<double>() / 1000, 1.0, "s");
  target(fmt::format("auto / fastest engine, worst of {} queries whose fastest engine takes >= 1 ms", engines.measurable),
         engines.worst_ratio, 1.5, "x");
  target(fmt::format("queries (>= 1 ms) where auto is over 1.5x the fastest"), static_cast<double>(engines.over), 0, "");
  target("queries where auto is undecided but another engine decides", static_cast<double>(engines.undecided_auto), 0, "");
  peak = std::max(peak_rss_mb(), engines.peak_query_rss);
  for (const auto& c : corpus)
    if (c.contains("cold")) peak = std::max({peak, c["cold"]["peak_rss_mb"].get<double>(), c["warm"]["peak_rss_mb"].get<double>()});
  if (opt.parametric) {
    target(fmt::format("parametric obligations ({}) not decided as argued (unknown or wrong)", result["parametric"].size()),
           static_cast<double>(par.parametric_wrong), 0, "");
    target("parametric obligations over 1 s on one core", static_cast<double>(par.parametric_slow), 0, "");
    target("slowest parametric obligation", par.parametric_worst_ms / 1000, kParametricTargetMs / 1000, "s");
  }
  target("peak memory", peak, 1024, "MiB");
  target("engine disagreements (soundness)", static_cast<double>(result["disagreements"].size()), 0, "");
  if (result.contains("limits")) {
    size_t missed = 0;
    for (const auto& c : result["limits"]["cases"]) missed += !c["met"].get<bool>();
    for (const auto& c : result["limits"]["cache"]) missed += !c["met"].get<bool>();
    target("limit cases over their time or memory bound, or a warm cache slower than none", static_cast<double>(missed), 0, "");
  }
  return targets;
}

}  // namespace

json run_bench(const BenchOptions& opt) {
  json result;
  const Stopwatch total;
  {
    double load[3] = {0, 0, 0};
    if (getloadavg(load, 3) < 0) load[0] = -1;
    result["machine"] = {{"cores", std::thread::hardware_concurrency()}, {"load_1min_at_start", load[0]}};
  }
  std::vector<std::string> errors;
  std::vector<std::string> files = rules::collect_files(opt.paths, errors);

  std::string synth_dir;
  result["corpus"] = corpus_rows(opt, files, synth_dir);
  const std::vector<BenchQuery> corpus_queries = corpus_obligations(opt, result);
  const EngineTally engines = compare_engines(opt, corpus_queries, result);

  if (!synth_dir.empty()) {
    std::error_code ec;
    fs::remove_all(synth_dir, ec);
  }

  result["ptx"] = ptx_rows(opt);

  json cuda = json::array();
  for (const std::string& f : opt.cuda_paths) {
    say(opt, "cuda: " + f);
    cuda.push_back(cuda_row(f, opt));
  }
  result["cuda"] = cuda;

  json parametric = json::array();
  const ParametricTally par = parametric_rows(opt, parametric);
  result["parametric"] = parametric;

  // (g) the limits.
  if (opt.limits) result["limits"] = limits_section(LimitsOptions{opt.layoutproof, {}, opt.cache_files, opt.progress});

  // The targets.
  result["auto_over_fastest_worst_all_queries"] = engines.worst_ratio_all;
  double peak = 0;
  json targets = judge_targets(opt, result, engines, par, peak);
  result["targets"] = std::move(targets);
  result["peak_rss_mb"] = peak;
  result["total_s"] = total.elapsed_ms() / 1000;
  return result;
}

}  // namespace lp::bench
