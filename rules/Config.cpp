#include "rules/Config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <toml++/toml.h>

#include "frontend/annotate/LaunchFacts.h"

#include "analyzer/support/ReadFile.h"
#include "rules/Rule.h"

namespace lp::rules {

namespace {

// toml++ parses nested tables, arrays and dotted keys recursively: 50,000 dotted keys overflow
// the stack. The settings LayoutProof reads are [section] key = scalar, so anything nested beyond
// kMaxConfigNesting (brackets and braces open at once, or dots in one key) is refused before
// toml++ sees it, with the place it happens.
constexpr int kMaxConfigNesting = 8;

void check_nesting(std::string_view text, const std::string& path) {
  int depth = 0, dots = 0;
  bool in_key = true;  // at the start of a line outside brackets, text up to '=' is a key
  size_t line = 1, col = 0;
  auto fail = [&](const char* what) {
    throw ConfigError(fmt::format("{}:{}:{}: {} nested more than {} deep; LayoutProof's settings are "
                                  "`[section]` and `key = value`", path, line, col, what, kMaxConfigNesting));
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    ++col;
    if (c == '\n') {
      ++line;
      col = 0;
      if (depth == 0) in_key = true, dots = 0;
      continue;
    }
    if (c == '#') {  // a comment runs to the end of the line
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      continue;
    }
    if (c == '"' || c == '\'') {  // strings (single- or triple-quoted) hold nothing nested
      const bool triple = text.substr(i, 3) == std::string(3, c);
      const std::string_view close = triple ? std::string_view(text.data() + i, 3) : std::string_view(text.data() + i, 1);
      size_t j = i + close.size();
      while (j < text.size() && text.substr(j, close.size()) != close) {
        if (c == '"' && text[j] == '\\') ++j;  // basic strings escape; literal strings do not
        if (j < text.size() && text[j] == '\n') ++line, col = 0;
        ++j;
      }
      col += j - i;
      i = std::min(text.size(), j + close.size()) - 1;
      continue;
    }
    if (c == '[' || c == '{') {
      if (++depth > kMaxConfigNesting) fail("tables and arrays");
      if (c == '{') in_key = true, dots = 0;
    } else if (c == ']' || c == '}') {
      depth = std::max(0, depth - 1);
    } else if (c == '=') {
      in_key = false;
    } else if (c == ',' && depth > 0) {
      in_key = true, dots = 0;
    } else if (c == '.' && in_key) {
      if (++dots > kMaxConfigNesting) fail("a dotted key is");
    }
  }
}

std::optional<Severity> severity_named(const std::string& v, const std::string& where) {
  if (v == "off") return std::nullopt;
  if (const auto s = severity_from_name(v)) return s;
  throw ConfigError(fmt::format("{}: '{}' is not a severity ({}, off)", where, v, fmt::join(severity_names(), ", ")));
}

}  // namespace

std::optional<Severity> Config::severity_of(const rules::RuleInfo& rule) const {
  for (const std::string& key : {rule.id, rule.name}) {
    auto it = rule_severity.find(key);
    if (it != rule_severity.end()) return it->second;
  }
  return rule.default_severity;
}

Config load_config(const std::string& path) {
  try {
    return parse_config(read_regular_file(path, kMaxConfigBytes), path);
  } catch (const FileReadError& e) {
    throw ConfigError(e.what());
  }
}

namespace {

// `"KERNEL" = "LAUNCH"` of [ptx.launch]: the value is read by the launch reader, located at its
// own line and column of the file so its diagnostics point there.
ptx::StatedLaunch stated_launch(std::string_view kernel, const toml::node& value, const std::string& path) {
  const auto begin = value.source().begin;
  if (!value.is_string())
    throw ConfigError(fmt::format("{}:{}:{}: ptx.launch.{} must be a string such as \"block(32, 8)\"", path, begin.line,
                                  begin.column, kernel));
  if (kernel.empty()) throw ConfigError(fmt::format("{}:{}:{}: a [ptx.launch] key names no kernel", path, begin.line, begin.column));
  auto src = std::make_shared<SourceText>();
  src->name = path;
  src->text = *value.value<std::string>();
  src->line_base = begin.line;
  src->col_base = begin.column + 1;  // after the opening quote
  try {
    return ptx::StatedLaunch{std::string(kernel), annotate::parse_launch_text(src)};
  } catch (const DiagnosticError& e) {
    // As every ConfigError reads, "FILE:LINE:COL: message" (the driver says "error:"), with the
    // diagnostic's source line and caret after it.
    std::string text = e.diagnostic().render();
    if (const size_t at = text.find(": error: "); at != std::string::npos) text.erase(at, 7);
    throw ConfigError(text);
  }
}

}  // namespace

Config parse_config(std::string text, const std::string& path) {
  Config c;
  c.text = std::move(text);
  if (c.text.size() > kMaxConfigBytes)
    throw ConfigError(fmt::format("{}: larger than {} bytes, not read", path, kMaxConfigBytes));
  check_nesting(c.text, path);
  toml::table t;
  try {
    t = toml::parse(c.text, path);
  } catch (const toml::parse_error& e) {
    throw ConfigError(fmt::format("{}:{}:{}: {}", path, e.source().begin.line, e.source().begin.column, e.description()));
  }
  auto where = [&](const toml::node& n, const std::string& key) {
    return fmt::format("{}:{}:{}: {}", path, n.source().begin.line, n.source().begin.column, key);
  };
  bool data_dependent_given = false;  // else data-dependent unknowns follow `unknown`
  for (auto& [section, node] : t) {
    const std::string sec(section.str());
    const toml::table* tbl = node.as_table();
    if (!tbl) throw ConfigError(where(node, sec) + " must be a table ([" + sec + "])");
    if (sec == "ptx") {
      for (auto& kv : *tbl) {
        const std::string key(kv.first.str());
        const toml::table* launches = kv.second.as_table();
        if (key != "launch" || !launches) throw ConfigError(where(kv.second, "ptx." + key) + " is not a known setting ([ptx.launch] is)");
        for (auto& entry : *launches) c.ptx_launches.push_back(stated_launch(entry.first.str(), entry.second, path));
      }
      continue;
    }
    for (auto& kv : *tbl) {
      const std::string key(kv.first.str());
      const toml::node& v = kv.second;  // not a structured binding: clang-14 cannot capture those
      auto str = [&]() {
        if (!v.is_string()) throw ConfigError(where(v, sec + "." + key) + " must be a string");
        return std::string(*v.value<std::string>());
      };
      if (sec == "rules") {
        bool known = false;
        for (const Rule* r : all_rules()) known |= key == r->info().id || key == r->info().name;
        if (!known) throw ConfigError(where(v, "rules." + key) + " names no rule (see docs/rules/README.md)");
        c.rule_severity[key] = severity_named(str(), where(v, "rules." + key));
      } else if (sec == "gate" && key == "unknown") {
        c.unknown_severity = severity_named(str(), where(v, "gate.unknown"));
        if (!data_dependent_given) c.data_dependent_severity = c.unknown_severity;
      } else if (sec == "gate" && key == "data-dependent") {
        c.data_dependent_severity = severity_named(str(), where(v, "gate.data-dependent"));
        data_dependent_given = true;
      } else if (sec == "gate" && key == "launch-dependent") {
        c.launch_dependent_severity = severity_named(str(), where(v, "gate.launch-dependent"));
      } else if (sec == "gate" && key == "launch-dependent-fails") {
        auto b = v.value<bool>();
        if (!b) throw ConfigError(where(v, "gate.launch-dependent-fails") + " must be true or false");
        c.launch_dependent_fails = *b;
      } else if (sec == "gate" && key == "time-budget-s") {
        auto n = v.value<int64_t>();
        if (!n || *n < 1 || *n > 86400) throw ConfigError(where(v, "gate.time-budget-s") + " must be an integer in [1, 86400]");
        c.time_budget_s = static_cast<double>(*n);
      } else if (sec == "solver" && key == "engine") {
        try {
          c.engine = engine_from_name(str());
        } catch (const std::invalid_argument& e) {
          throw ConfigError(where(v, "solver.engine") + ": " + e.what());
        }
      } else if (sec == "solver" && key == "timeout-ms") {
        auto n = v.value<int64_t>();
        if (!n || *n < 1 || *n > 3600000) throw ConfigError(where(v, "solver.timeout-ms") + " must be an integer in [1, 3600000]");
        c.limits.timeout_ms = static_cast<unsigned>(*n);
      } else if (sec == "cache" && key == "max-mb") {
        auto n = v.value<int64_t>();
        if (!n || *n < 1 || *n > 1048576) throw ConfigError(where(v, "cache.max-mb") + " must be an integer in [1, 1048576]");
        c.cache_max_mb = static_cast<unsigned>(*n);
      } else if (sec == "solver" && key == "memory-mb") {
        auto n = v.value<int64_t>();
        if (!n || *n < 16 || *n > 1048576) throw ConfigError(where(v, "solver.memory-mb") + " must be an integer in [16, 1048576]");
        c.limits.memory_mb = static_cast<unsigned>(*n);
      } else {
        throw ConfigError(where(v, sec + "." + key) + " is not a known setting");
      }
    }
  }
  return c;
}

}  // namespace lp::rules
