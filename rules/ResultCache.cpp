#include "rules/ResultCache.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <xxhash.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <thread>

#include "analyzer/support/ReadFile.h"
#include "analyzer/support/Version.h"

namespace lp::rules {

namespace fs = std::filesystem;

namespace {

// An entry is a few kilobytes; a larger file in the cache directory is not one of ours.
constexpr uint64_t kMaxEntryBytes = uint64_t{16} << 20;

using json = nlohmann::json;

// The texts an entry's locations point into: [0] is the checked file itself; the others (a
// compiled kernel's CUDA source) are named with a hash of their content, and read back only when
// they still hold that content.
class SourceTable {
 public:
  explicit SourceTable(std::shared_ptr<const SourceText> file) { texts_.push_back(std::move(file)); }

  json loc(const SourceLoc& l) {
    if (!l.source) return nullptr;
    for (size_t k = 0; k < texts_.size(); ++k)
      if (texts_[k] == l.source) return json::array({k, l.offset});
    texts_.push_back(l.source);
    return json::array({texts_.size() - 1, l.offset});
  }
  json to_json() const {
    json out = json::array();
    for (size_t k = 1; k < texts_.size(); ++k)
      out.push_back({{"name", texts_[k]->name}, {"line_base", texts_[k]->line_base}, {"col_base", texts_[k]->col_base},
                     {"hash", content_hash(texts_[k]->text)}});
    return out;
  }
  // Reads the table back: every other text must still be the file it names, byte for byte.
  void read(const json& j) {
    for (const auto& t : j) {
      auto text = std::make_shared<SourceText>();
      text->name = t.at("name").get<std::string>();
      text->line_base = t.at("line_base").get<size_t>();
      text->col_base = t.at("col_base").get<size_t>();
      text->text = read_regular_file(text->name, kMaxSourceFileBytes);
      if (content_hash(text->text) != t.at("hash").get<std::string>()) throw std::invalid_argument("cache entry: a source changed");
      texts_.push_back(std::move(text));
    }
  }
  SourceLoc from(const json& j) const {
    if (j.is_null()) return SourceLoc{};
    const size_t k = j.at(0).get<size_t>(), offset = j.at(1).get<size_t>();
    if (k >= texts_.size() || offset > texts_[k]->text.size())
      throw std::out_of_range("cache entry: location past the end of its file");
    return SourceLoc{texts_[k], offset};
  }

 private:
  static std::string content_hash(const std::string& text) {
    const XXH128_hash_t h = XXH3_128bits(text.data(), text.size());
    return fmt::format("{:016x}{:016x}", h.high64, h.low64);
  }
  std::vector<std::shared_ptr<const SourceText>> texts_;
};

template <class Enum>
Enum enum_from(const json& j, Enum last) {
  const int v = j.get<int>();
  if (v < 0 || v > static_cast<int>(last)) throw std::out_of_range("cache entry: value out of range");
  return static_cast<Enum>(v);
}

json to_json(const FileResult& r, const std::string& key, const std::shared_ptr<const SourceText>& file) {
  // The key the entry was computed for: an entry copied over another file's is refused.
  SourceTable sources(file);
  json out = {{"key", key}, {"findings", json::array()}, {"obligations", json::array()}, {"assumptions", json::array()}};
  for (const auto& f : r.findings) {
    json notes = json::array(), trace = json::array(), compiled = json::array();
    for (const auto& n : f.notes) notes.push_back({sources.loc(n.loc), n.message});
    for (const auto& c : f.compiled) compiled.push_back({c.kernel, c.instruction, c.opcode, c.ptx, c.ptx_line});
    for (const auto& t : f.trace) trace.push_back({sources.loc(t.loc), t.message});
    out["findings"].push_back({{"rule", f.rule_id}, {"severity", static_cast<int>(f.severity)}, {"kind", static_cast<int>(f.kind)},
                               {"loc", sources.loc(f.loc)}, {"message", f.message}, {"notes", notes},
                               {"counterexample", rules::to_json(f.counterexample)}, {"trace", trace},
                               {"fingerprint", f.fingerprint}, {"gates", f.gates}, {"limited", f.limited},
                               {"data_dependent", f.data_dependent}, {"reason", f.reason}, {"compiled", compiled}});
  }
  for (const auto& o : r.obligations)
    out["obligations"].push_back({o.rule_id, sources.loc(o.loc), o.description, o.passed, o.time_ms, rules::to_json(o.proof)});
  for (const auto& n : r.assumptions) out["assumptions"].push_back({sources.loc(n.loc), n.message});
  out["sources"] = sources.to_json();
  return out;
}

FileResult from_json(const json& j, const std::string& key, const std::shared_ptr<const SourceText>& src) {
  if (j.at("key").get<std::string>() != key) throw std::invalid_argument("cache entry: computed for other inputs");
  SourceTable sources(src);
  sources.read(j.at("sources"));
  FileResult r;
  for (const auto& f : j.at("findings")) {
    rules::Finding x;
    x.rule_id = f.at("rule");
    x.severity = enum_from(f.at("severity"), Severity::Error);
    x.kind = enum_from(f.at("kind"), rules::FindingKind::LaunchDependent);
    x.loc = sources.from(f.at("loc"));
    x.message = f.at("message");
    for (const auto& n : f.at("notes")) x.notes.push_back(Note{sources.from(n[0]), n[1]});
    x.counterexample = rules::counterexample_from_json(f.at("counterexample"));
    for (const auto& t : f.at("trace")) x.trace.push_back(rules::TraceStep{sources.from(t[0]), t[1]});
    x.fingerprint = f.at("fingerprint");
    x.gates = f.at("gates");
    x.limited = f.at("limited");
    x.data_dependent = f.at("data_dependent");
    x.reason = f.at("reason");
    for (const auto& c : f.at("compiled")) x.compiled.push_back(rules::CompiledInstance{c[0], c[1], c[2], c[3], c[4]});
    r.findings.push_back(std::move(x));
  }
  for (const auto& o : j.at("obligations"))
    r.obligations.push_back(rules::Obligation{o[0], sources.from(o[1]), o[2], o[3], o[4], rules::proof_from_json(o.at(5))});
  for (const auto& n : j.at("assumptions")) r.assumptions.push_back(Note{sources.from(n[0]), n[1]});
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

std::string cache_key_of(const std::string& path, const std::string& text, const Config& config, const std::string& inputs) {
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


fs::path entry_path(const CacheOptions& o, const std::string& key) { return fs::path(o.dir) / (key + ".json"); }

}  // namespace

std::string ResultCache::key(const std::string& path, const std::string& text, const Config& config,
                             const std::string& inputs) {
  return cache_key_of(path, text, config, inputs);
}

std::optional<FileResult> ResultCache::lookup(const std::string& key, const std::shared_ptr<const SourceText>& source) const {
  const fs::path p = entry_path(options_, key);
  try {
    FileResult r = from_json(parse_json_document(read_regular_file(p.string(), kMaxEntryBytes), p.string()), key, source);
    std::error_code ec;
    fs::last_write_time(p, fs::file_time_type::clock::now(), ec);  // recently used: evicted last
    return r;
  } catch (const std::exception&) {
    return std::nullopt;  // absent, or damaged: recomputed and overwritten
  }
}

bool ResultCache::store(const std::string& key, const FileResult& r, double check_ms,
                        const std::shared_ptr<const SourceText>& source) const {
  if (check_ms < options_.min_check_ms) return false;
  if (std::any_of(r.findings.begin(), r.findings.end(),
                  [](const rules::Finding& f) { return f.kind == rules::FindingKind::Unknown && f.limited; }))
    return false;
  const fs::path p = entry_path(options_, key);
  std::error_code ec;
  fs::create_directories(p.parent_path(), ec);
  fs::path tmp = p;
  tmp += fmt::format(".{}.tmp", std::hash<std::thread::id>{}(std::this_thread::get_id()));
  std::ofstream out(tmp, std::ios::binary);
  out << to_json(r, key, source).dump();
  out.close();
  if (!out) {
    fs::remove(tmp, ec);
    return false;
  }
  fs::rename(tmp, p, ec);  // atomic: concurrent runs never read half a file
  return !ec;
}

void ResultCache::evict() const {
  struct Entry {
    fs::path path;
    uint64_t bytes;
    fs::file_time_type used;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  for (fs::directory_iterator it(options_.dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".json") continue;
    std::error_code e2;
    const uint64_t bytes = it->file_size(e2);
    const auto used = it->last_write_time(e2);
    if (e2) continue;
    entries.push_back({it->path(), bytes, used});
    total += bytes;
  }
  if (total <= options_.max_bytes) return;
  // Down to 80% of the bound, so the next runs do not evict again at once.
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.used < b.used; });
  for (const Entry& e : entries) {
    if (total <= options_.max_bytes / 5 * 4) break;
    if (fs::remove(e.path, ec)) total -= e.bytes;
  }
}

}  // namespace lp::rules
