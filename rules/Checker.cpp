#include "rules/Checker.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "analyzer/annotate/AnnotationParser.h"
#include "rules/BufferGraph.h"
#include "rules/CuteDefinitions.h"
#include "rules/Origins.h"
#include "rules/Rule.h"

namespace lp::rules {

namespace fs = std::filesystem;

namespace {

constexpr const char* kToolVersion = "0.1.0";
constexpr uintmax_t kMaxFileBytes = 16u << 20;  // larger files are refused by the scanner too

bool annotatable(const fs::path& p) {
  static const std::set<std::string> kExt = {".c", ".cc", ".cpp", ".cxx", ".h", ".hpp", ".cu", ".cuh", ".py", ".lp"};
  return kExt.count(p.extension().string()) != 0;
}

struct FileResult {
  std::vector<report::Finding> findings;
  std::vector<report::Obligation> obligations;
};

// ---- cache: per-file results keyed by a hash of everything they depend on ------------------

using json = nlohmann::json;

json loc_json(const SourceLoc& l) { return l.source ? json(l.offset) : json(nullptr); }
// Cache entries are read back defensively: anything out of range makes the entry "damaged" (it
// is recomputed), so an entry written by someone else cannot point outside the file.
SourceLoc loc_from(const json& j, const std::shared_ptr<const SourceText>& src) {
  if (j.is_null()) return SourceLoc{};
  const size_t offset = j.get<size_t>();
  if (offset > src->text.size()) throw std::out_of_range("cache entry: location past the end of the file");
  return SourceLoc{src, offset};
}

template <class Enum>
Enum enum_from(const json& j, Enum last) {
  const int v = j.get<int>();
  if (v < 0 || v > static_cast<int>(last)) throw std::out_of_range("cache entry: value out of range");
  return static_cast<Enum>(v);
}

json to_json(const FileResult& r) {
  json out = {{"findings", json::array()}, {"obligations", json::array()}};
  for (const auto& f : r.findings) {
    json notes = json::array(), trace = json::array();
    for (const auto& n : f.notes) notes.push_back({loc_json(n.loc), n.message});
    for (const auto& t : f.trace) trace.push_back({loc_json(t.loc), t.message});
    out["findings"].push_back({{"rule", f.rule_id}, {"severity", static_cast<int>(f.severity)}, {"kind", static_cast<int>(f.kind)},
                               {"loc", loc_json(f.loc)}, {"message", f.message}, {"notes", notes},
                               {"counterexample", f.counterexample}, {"trace", trace}, {"fingerprint", f.fingerprint}});
  }
  for (const auto& o : r.obligations)
    out["obligations"].push_back({o.rule_id, loc_json(o.loc), o.description, o.passed, o.time_ms});
  return out;
}

FileResult from_json(const json& j, const std::shared_ptr<const SourceText>& src) {
  FileResult r;
  for (const auto& f : j.at("findings")) {
    report::Finding x;
    x.rule_id = f.at("rule");
    x.severity = enum_from(f.at("severity"), Severity::Error);
    x.kind = enum_from(f.at("kind"), report::FindingKind::Invalid);
    x.loc = loc_from(f.at("loc"), src);
    x.message = f.at("message");
    for (const auto& n : f.at("notes")) x.notes.push_back(Note{loc_from(n[0], src), n[1]});
    x.counterexample = f.at("counterexample");
    for (const auto& t : f.at("trace")) x.trace.push_back(report::TraceStep{loc_from(t[0], src), t[1]});
    x.fingerprint = f.at("fingerprint");
    r.findings.push_back(std::move(x));
  }
  for (const auto& o : j.at("obligations"))
    r.obligations.push_back(report::Obligation{o[0], loc_from(o[1], src), o[2], o[3], o[4]});
  return r;
}

// The running build's identity: results computed by other rule code must not be reused, even
// under the same version number (a developer's rebuilt binary).
std::string build_stamp() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return kToolVersion;
  auto size = fs::file_size(self, ec);
  auto time = fs::last_write_time(self, ec).time_since_epoch().count();
  return ec ? std::string(kToolVersion) : fmt::format("{}:{}:{}:{}", kToolVersion, self.string(), size, time);
}

// `inputs` is what else the file's results depend on: the run's CuTe definitions for a file that
// names them (rule LP009).
std::string cache_key(const std::string& path, const std::string& text, const Config& config, const std::string& inputs) {
  static const std::string stamp = build_stamp();
  XXH3_state_t* st = XXH3_createState();
  XXH3_128bits_reset(st);
  for (const std::string* part : {&path, &text, &config.text, &stamp, &inputs}) {
    uint64_t n = part->size();
    XXH3_128bits_update(st, &n, sizeof n);
    XXH3_128bits_update(st, part->data(), part->size());
  }
  int engine = static_cast<int>(config.engine);
  XXH3_128bits_update(st, &engine, sizeof engine);
  XXH128_hash_t h = XXH3_128bits_digest(st);
  XXH3_freeState(st);
  return fmt::format("{:016x}{:016x}", h.high64, h.low64);
}

// ---- one file ------------------------------------------------------------------------------

// What every file of a run shares: the CuTe definitions of all its files (rule LP009), and the
// files whose lines findings on generated statements may show (rules/Origins.h).
struct RunContext {
  CuteDefinitions cute;
  std::string cute_text;  ///< every definition, as written: part of the cache key of files that name one
  std::set<std::string> shown;
};

FileResult check_text(const annotate::ParseResult& parsed, const Config& config, const CuteDefinitions* cute) {
  FileResult r;
  BufferGraph graph(parsed);
  AlgebraSteps algebra(parsed, graph);
  FileContext ctx{parsed, graph, algebra, config, cute};
  for (const Rule* rule : all_rules()) {
    FindingSink sink(rule->info(), config, r.findings, r.obligations);
    rule->check(ctx, sink);
  }
  return r;
}

// A file that cannot be opened or read (permissions, an I/O error) is an LP000 error of its own.
report::Finding unreadable(const std::string& path, const std::string& why) {
  report::Finding f;
  f.rule_id = "LP000";
  f.severity = Severity::Error;
  f.kind = report::FindingKind::Invalid;
  f.message = fmt::format("{}: cannot be read: {}", path, why);
  f.fingerprint = "LP000:" + f.message;
  return f;
}

// A file's bytes, at most one past the size limit: a file that grew since it was listed is
// refused by the scanner as too large, never read whole into memory. nullopt: unreadable (`why`).
std::optional<std::string> read_bounded(const std::string& path, std::string& why) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    why = std::strerror(errno);
    return std::nullopt;
  }
  std::string text;
  char chunk[1 << 16];
  while (text.size() <= kMaxFileBytes && in.read(chunk, sizeof chunk).gcount() > 0)
    text.append(chunk, static_cast<size_t>(in.gcount()));
  if (in.bad()) {
    why = "read error";
    return std::nullopt;
  }
  if (text.size() > kMaxFileBytes + 1) text.resize(kMaxFileBytes + 1);
  return text;
}

// Findings on generated statements move to the generating call site; its line is shown when the
// file is one the run reads anyway.
void move_findings(const annotate::ParseResult& parsed, FileResult& r, const RunContext& run) {
  move_to_origins(parsed, r.findings, [&](const std::string& file) -> std::optional<std::string> {
    if (!run.shown.count(file)) return std::nullopt;
    std::string why;
    return read_bounded(file, why);
  });
}

FileResult check_file(const std::string& path, const CheckOptions& opt, const RunContext& run) {
  std::string why;
  std::optional<std::string> read = read_bounded(path, why);
  if (!read) return FileResult{{unreadable(path, why)}, {}};
  std::string text = std::move(*read);
  std::optional<fs::path> cached;
  if (opt.cache_dir) {
    cached = fs::path(*opt.cache_dir) / (cache_key(path, text, opt.config, mentions_cute(text) ? run.cute_text : "") + ".json");
    std::ifstream c(*cached);
    if (c) {
      try {
        json j = json::parse(c);
        annotate::ParseResult parsed = annotate::parse_annotations(path, text);
        FileResult r = from_json(j, parsed.source);
        move_findings(parsed, r, run);
        return r;
      } catch (const std::exception&) {
        // A damaged cache entry is recomputed and overwritten.
      }
    }
  }
  annotate::ParseResult parsed = annotate::parse_annotations(path, std::move(text));
  FileResult r = check_text(parsed, opt.config, &run.cute);
  // Results cut short by the run's time budget are not the file's results: never cached.
  if (cached && !opt.config.limits.out_of_time()) {
    std::error_code ec;
    fs::create_directories(cached->parent_path(), ec);
    fs::path tmp = *cached;
    tmp += fmt::format(".{}.tmp", std::hash<std::thread::id>{}(std::this_thread::get_id()));
    std::ofstream out(tmp);
    out << to_json(r).dump();
    out.close();
    if (out) fs::rename(tmp, *cached, ec);  // atomic: concurrent runs never read half a file
  }
  move_findings(parsed, r, run);
  return r;
}

// Files beyond the scanner's size limit are reported, not read (following a symlink for its size).
bool too_large(const std::string& path, std::vector<std::string>& errors) {
  std::error_code ec;
  const uintmax_t size = fs::file_size(path, ec);
  if (ec || size <= kMaxFileBytes) return false;
  errors.push_back(fmt::format("{}: larger than {} bytes, not read", path, kMaxFileBytes));
  return true;
}

// Whether canonical `p` lies in canonical directory `dir` (or is it).
bool inside(const fs::path& p, const fs::path& dir) {
  if (dir.empty()) return false;  // the directory could not be resolved: follow no link
  const auto d = std::mismatch(dir.begin(), dir.end(), p.begin(), p.end()).first;
  return d == dir.end() || (std::next(d) == dir.end() && d->empty());  // "dir/" ends with an empty element
}

}  // namespace

std::vector<std::string> collect_files(const std::vector<std::string>& paths, std::vector<std::string>& errors) {
  std::vector<std::string> out;
  for (const std::string& p : paths) {
    std::error_code ec;
    fs::file_status st = fs::status(p, ec);
    if (ec || !fs::exists(st)) {
      errors.push_back(fmt::format("{}: no such file or directory", p));
      continue;
    }
    if (fs::is_regular_file(st)) {
      // Named explicitly: checked whatever its extension (the scanner decides), within the size limit.
      if (too_large(p, errors)) continue;
      out.push_back(p);
      continue;
    }
    if (!fs::is_directory(st)) {
      errors.push_back(fmt::format("{}: not a regular file or directory", p));
      continue;
    }
    // Symlinked directories are not followed, so a link loop cannot recurse. A symlinked file is
    // read only when it resolves to a file inside the directory given: a link in a checked tree
    // (a pull request) never makes the checker read, and report lines of, files elsewhere.
    const fs::path root = fs::weakly_canonical(p, ec);
    fs::recursive_directory_iterator it(p, fs::directory_options::skip_permission_denied, ec), end;
    if (ec) {
      errors.push_back(fmt::format("{}: {}", p, ec.message()));
      continue;
    }
    for (; it != end; it.increment(ec)) {
      if (ec) {
        errors.push_back(fmt::format("{}: {}", it->path().string(), ec.message()));
        break;
      }
      std::error_code e2;
      if (it->is_symlink(e2)) {
        if (!fs::exists(it->path(), e2)) {
          errors.push_back(fmt::format("{}: dangling symbolic link", it->path().string()));
        } else if (fs::is_regular_file(it->path(), e2) && annotatable(it->path())) {
          const fs::path target = fs::canonical(it->path(), e2);
          if (e2 || !inside(target, root))
            errors.push_back(fmt::format("{}: symbolic link to a file outside {}, not read", it->path().string(), p));
          else if (!too_large(it->path().string(), errors))
            out.push_back(it->path().string());
        }
        continue;
      }
      if (it->is_regular_file(e2) && annotatable(it->path()) && !too_large(it->path().string(), errors))
        out.push_back(it->path().string());
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

report::CheckRun check_paths(const std::vector<std::string>& paths, const CheckOptions& options) {
  CheckOptions opt = options;
  if (opt.config.time_budget_s)
    opt.config.limits.deadline = std::chrono::steady_clock::now() +
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(*opt.config.time_budget_s));
  report::CheckRun run;
  run.tool_version = kToolVersion;
  for (const Rule* r : all_rules()) run.rules.push_back(r->info());
  std::vector<std::string> errors;
  run.files = collect_files(paths, errors);
  for (const std::string& e : errors) {
    report::Finding f;
    f.rule_id = "LP000";
    f.severity = Severity::Error;
    f.kind = report::FindingKind::Invalid;
    f.message = e;
    f.fingerprint = "LP000:" + e;
    run.findings.push_back(std::move(f));
  }
  // The CuTe definitions of every file (only files that mention one are parsed for them).
  RunContext shared;
  for (const std::string& f : run.files) {
    shared.shown.insert(f);
    std::string why;
    if (std::optional<std::string> text = read_bounded(f, why); text && mentions_cute(*text))
      collect_cute_definitions(annotate::parse_annotations(f, std::move(*text)), shared.cute);
  }
  for (const auto& [name, defs] : shared.cute)
    for (const CuteDefinition& d : defs) shared.cute_text += fmt::format("{}\n{}\n{}\n", name, d.text, report::file_of(d.loc));
  for (const std::string& f : opt.shown_files) shared.shown.insert(f);
  std::vector<FileResult> results(run.files.size());
  std::atomic<size_t> next{0}, done{0};
  std::mutex progress_mutex;
  unsigned jobs = opt.jobs ? opt.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<size_t>(jobs, std::max<size_t>(1, run.files.size())));
  auto worker = [&] {
    for (size_t i; (i = next++) < run.files.size();) {
      results[i] = check_file(run.files[i], opt, shared);
      size_t d = ++done;
      if (opt.progress) {
        std::lock_guard<std::mutex> lock(progress_mutex);
        opt.progress(d, run.files.size(), run.files[i]);
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned j = 1; j < jobs; ++j) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  for (auto& r : results) {
    for (auto& f : r.findings) run.findings.push_back(std::move(f));
    for (auto& o : r.obligations) run.obligations.push_back(std::move(o));
  }
  return run;
}

}  // namespace lp::rules
