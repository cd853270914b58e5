#pragma once
// GitLab's code quality report (`check --format codequality`, a CI job's
// `artifacts: reports: codequality:`): a JSON array with one object per finding, unknowns
// included, holding the fields GitLab documents (docs.gitlab.com/ci/testing/code_quality,
// "Code Quality report format", a subset of the Code Climate spec):
//   description, check_name, fingerprint, severity (info|minor|major|critical|blocker),
//   location.path (relative, no "./"), location.lines.begin
// GitLab keeps one issue per fingerprint, so each is unique in a report: the finding's baseline
// fingerprint, with "#2", "#3", ... on repeats.
#include <string>

#include "report/Findings.h"

namespace lp::report {

std::string codequality_report(const CheckRun& run);

/// The code quality severity of a finding: error -> critical, warning -> major, note -> info.
const char* codequality_severity(Severity severity);

}  // namespace lp::report
