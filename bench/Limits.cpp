#include "bench/Limits.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <random>
#include <vector>

extern char** environ;

namespace lp::bench {

namespace {

namespace fs = std::filesystem;

struct Outcome {
  int exit = -1;
  double wall_s = 0;
  double peak_rss_mb = 0;
  std::string out;  ///< stdout then stderr
};

// Runs `program args...` in `dir` with stdout and stderr to a file; times it from the outside and
// takes its own peak resident memory from wait4.
Outcome run_in(const std::string& dir, const std::string& program, const std::vector<std::string>& args) {
  Outcome o;
  const std::string log = (fs::path(dir) / ".bench-output").string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<std::string> argv_s = {program};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  const fs::path here = fs::current_path();
  fs::current_path(dir);  // the child starts in `dir` (it reads ./.layoutproof.toml there)
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  fs::current_path(here);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    o.out = fmt::format("could not start {}", program);
    return o;
  }
  int status = 0;
  struct rusage ru {};
  wait4(pid, &status, 0, &ru);
  o.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  o.exit = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  o.peak_rss_mb = static_cast<double>(ru.ru_maxrss) / 1024.0;
  std::ifstream in(log, std::ios::binary);
  o.out.assign(std::istreambuf_iterator<char>(in), {});
  return o;
}

// The line that says what a run answered: the summary of `check`, the verdict of `prove`, the
// result of `algebra`, or the error.
std::string answer_of(const Outcome& o) {
  std::string last, error;
  size_t start = 0;
  while (start < o.out.size()) {
    size_t end = o.out.find('\n', start);
    if (end == std::string::npos) end = o.out.size();
    const std::string line = o.out.substr(start, end - start);
    if (line.rfind("error: ", 0) == 0 && error.empty()) error = line;
    if (line.find(" in ") != std::string::npos && line.find("file") != std::string::npos) last = line;
    if (line.rfind("injective: ", 0) == 0 || line.rfind("verdict: ", 0) == 0) last = line;
    start = end + 1;
  }
  if (last.empty()) last = error;
  if (last.empty()) last = fmt::format("exit {}, {} bytes of output", o.exit, o.out.size());
  if (last.size() > 160) last = last.substr(0, 157) + "...";
  return last;
}

std::string temp_dir(const std::string& tag) {
  std::random_device rd;
  fs::path p = fs::temp_directory_path() / fmt::format("lp-limits-{}-{}-{:x}", tag, getpid(), rd());
  fs::create_directories(p);
  return p.string();
}

struct Case {
  std::string name;
  std::vector<std::pair<std::string, std::string>> files;  ///< written into the case's directory
  std::vector<std::string> args;
  double limit_s;  ///< its time budget plus 10%, or a bound for a case that sets none
  double cap_mb;   ///< its memory budget
};

// Twelve accesses of 128 rows each, decided by Z3 alone with a one-second timeout per query.
std::string z3_heavy_file() {
  std::string s;
  for (int i = 0; i < 12; ++i) {
    s += fmt::format("smem s{0} : f16 = Sw<3,3,3> o _0 o (_128,_64):(_64,_1) align 1024\n", i);
    s += fmt::format("access a{0}: s{0} ldmatrix.x4 lanes (_8,_4,_16):(_1@0,_8@1,_8@0)\n", i);
    s += fmt::format("smem t{0} : f32 = (_64,_33):(_33,_1)\n", i);
    s += fmt::format("access b{0}: t{0} ld.shared.b32 lanes (_32,_64):(_1@0,_1@1)\n", i);
  }
  return s;
}

std::string compositions_file() {
  std::string s;
  for (int i = 0; i < 10; ++i) {
    s += fmt::format("smem a{0} : f32 = (_2048,_2047):(_1,_2048)\n", i);
    s += fmt::format("compose c{0} = a{0} o `(_2048,_2047):(_2047,_1)`\n", i);
  }
  return s;
}

const char* kHugeParam = "param M = 1..9223372036854775807\nsmem sA : f16 = (M):(_1)\nexpect sA injective\n";
const std::string kDeepBasis =
    "(_64,_64):(_1@1023@1023@1023@1023@1023@1023@1023@1023,_1@1000@1000@1000@1000@1000@1000@1000@1000)";

std::vector<Case> cases() {
  return {
      {"2^63 parameter values", {{"p.lp", kHugeParam}}, {"check", "p.lp", "--no-cache", "--no-progress"}, 2.0, 2048},
      {"two files of 2^63 parameter values, in parallel",
       {{"a.lp", kHugeParam}, {"b.lp", kHugeParam}},
       {"check", ".", "--no-cache", "--no-progress", "--jobs", "2"},
       2.0,
       2048},
      {"prove injective (M,N):(_1,M), M,N <= 2^31, 2 s timeout",
       {},
       {"prove", "injective", "(M,N):(_1,M)", "--param", "M=1..2147483648", "--param", "N=1..2147483648", "--timeout-ms",
        "2000"},
       2.2,
       2048},
      {"Z3 on every access, timeout-ms 1000, --time-budget 5",
       {{"k.lp", z3_heavy_file()}, {".layoutproof.toml", "[solver]\nengine = \"z3\"\ntimeout-ms = 1000\n"}},
       {"check", "k.lp", "--no-cache", "--no-progress", "--time-budget", "5"},
       5.5,
       2048},
      {"ten 2048x2047 compositions, --time-budget 2",
       {{"c.lp", compositions_file()}},
       {"check", "c.lp", "--no-cache", "--no-progress", "--time-budget", "2"},
       2.2,
       2048},
      {"algebra compose Sw<4,24,4> Sw<4,24,4>", {}, {"algebra", "compose", "Sw<4,24,4>", "Sw<4,24,4>"}, 1.0, 2048},
      {"algebra compose Sw<20,20,20> Sw<20,20,20>", {}, {"algebra", "compose", "Sw<20,20,20>", "Sw<20,20,20>"}, 1.0, 2048},
      {"a 2^24-point enumeration under --memory-mb 64",
       {{"r.lp", "regs r = S[(2048,4096):(4097@m,1@m)] + R[2:1@laneid]\n"}},
       {"check", "r.lp", "--no-cache", "--no-progress", "--engine", "enum", "--memory-mb", "64"},
       5.0,
       64},
      {"eval of 4096 points at basis indices near 1023", {}, {"eval", kDeepBasis, "--json"}, 2.0, 2048},
  };
}

// The cache case: `files` copies of `text` (each made distinct by a comment, so each has its own
// key), checked without a cache, with a cold one and a warm one.
json cache_case(const LimitsOptions& opt, const std::string& label, const std::string& text, size_t files) {
  const std::string dir = temp_dir("cache");
  const std::string tree = (fs::path(dir) / "tree").string();
  for (size_t k = 0; k < files; ++k) {
    const fs::path p = fs::path(tree) / fmt::format("d{}", k / 1000) / fmt::format("f{}.lp", k);
    fs::create_directories(p.parent_path());
    std::ofstream(p) << fmt::format("# copy {}\n", k) << text;
  }
  const std::string cache = (fs::path(dir) / "cache").string();
  const Outcome uncached = run_in(dir, opt.layoutproof, {"check", "tree", "--no-cache", "--no-progress"});
  const Outcome cold = run_in(dir, opt.layoutproof, {"check", "tree", "--cache-dir", cache, "--no-progress"});
  const Outcome warm = run_in(dir, opt.layoutproof, {"check", "tree", "--cache-dir", cache, "--no-progress"});
  uint64_t bytes = 0;
  size_t entries = 0;
  std::error_code ec;
  for (fs::directory_iterator it(cache, ec), end; !ec && it != end; it.increment(ec)) {
    bytes += it->file_size(ec);
    ++entries;
  }
  fs::remove_all(dir, ec);
  // Timing noise between identical runs is a few percent: "not slower" allows 5%.
  return json{{"name", label},
              {"files", files},
              {"uncached_s", uncached.wall_s},
              {"cold_s", cold.wall_s},
              {"warm_s", warm.wall_s},
              {"warm_over_uncached", warm.wall_s / std::max(1e-9, uncached.wall_s)},
              {"entries", entries},
              {"cache_mb", static_cast<double>(bytes) / (1 << 20)},
              {"answers_agree", answer_of(uncached) == answer_of(warm) && answer_of(cold) == answer_of(warm)},
              {"met", warm.wall_s <= uncached.wall_s * 1.05 && answer_of(uncached) == answer_of(warm)}};
}

// A file whose check takes tens of milliseconds (an enumeration over 256 issues): worth caching.
const char* kExpensiveEntry =
    "smem sA : f32 = (_256,_256):(_257,_1) align 1024\n"
    "access a: sA ld.shared.b32 lanes (_32,_256,_8):(_1@1,_1@0,_32@1)\n";

}  // namespace

json limits_section(const LimitsOptions& opt) {
  json rows = json::array();
  for (const Case& c : cases()) {
    if (opt.progress) opt.progress("limits: " + c.name);
    const std::string dir = temp_dir("case");
    for (const auto& [name, text] : c.files) std::ofstream(fs::path(dir) / name) << text;
    const Outcome o = run_in(dir, opt.layoutproof, c.args);
    std::string command = "layoutproof";
    for (const auto& a : c.args) command += " " + a;
    rows.push_back({{"name", c.name},
                    {"command", command},
                    {"wall_s", o.wall_s},
                    {"limit_s", c.limit_s},
                    {"peak_rss_mb", o.peak_rss_mb},
                    {"cap_mb", c.cap_mb},
                    {"exit", o.exit},
                    {"output_bytes", o.out.size()},
                    {"answer", answer_of(o)},
                    // Exit 0-2 are answers (proven, a finding or an unknown, bad input); anything
                    // else is a crash.
                    {"met", o.exit >= 0 && o.exit <= 2 && o.wall_s <= c.limit_s && o.peak_rss_mb <= c.cap_mb}});
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  json cache = json::array();
  if (opt.cache_files > 0) {
    if (opt.progress) opt.progress(fmt::format("limits: the cache on {} cheap files", opt.cache_files));
    cache.push_back(cache_case(opt, "cheap files (one layout each)", "smem s : f32 = (_32,_33):(_33,_1)\n", opt.cache_files));
    const size_t expensive = std::max<size_t>(1, opt.cache_files / 100);
    if (opt.progress) opt.progress(fmt::format("limits: the cache on {} expensive files", expensive));
    cache.push_back(cache_case(opt, "expensive files (an enumerated access each)", kExpensiveEntry, expensive));
  }
  return json{{"cases", rows}, {"cache", cache}};
}

}  // namespace lp::bench
