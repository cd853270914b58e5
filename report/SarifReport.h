#pragma once
// SARIF 2.1.0 for GitHub code scanning (docs/reports.md says how it is consumed): one run, rule
// metadata in tool.driver.rules, one result per finding (unknowns included, marked by the
// `kind` property), counterexample traces as codeFlows, fingerprints for baselining across runs.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "report/Findings.h"

namespace lp::report {

inline constexpr const char* kSarifSchemaUri =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
/// The key of Finding::fingerprint in `partialFingerprints`; bump the suffix if fingerprints change.
inline constexpr const char* kFingerprintKey = "layoutproofFingerprint/v1";

struct SarifOptions {
  /// Absolute directory that relative file paths are relative to (`%SRCROOT%` in
  /// originalUriBaseIds). Unset: the current working directory, as `check` resolves its paths.
  std::optional<std::string> source_root;
  /// tool.driver.informationUri; left out when empty (it must be an absolute URI).
  std::string information_uri;
  /// Base that relative RuleInfo::help_uri values (docs/rules/LP002.md) are resolved against,
  /// e.g. "https://github.com/ORG/layoutproof/blob/v0.1.0/". Without it they are left out, since
  /// helpUri must be absolute.
  std::string help_uri_base;
};

nlohmann::ordered_json sarif_report_value(const CheckRun& run, const SarifOptions& options = {});
std::string sarif_report(const CheckRun& run, const SarifOptions& options = {});

/// A file path as a URI reference: '\' becomes '/', "./" prefixes go, and every byte outside
/// RFC 3986's unreserved set and '/' is percent-encoded. Absolute paths become file:// URIs.
std::string path_to_uri(const std::string& path);

}  // namespace lp::report
