#pragma once
// The rules' findings (findings/Finding.h) under the names the report writers use.
#include "findings/Finding.h"

namespace lp::report {

using rules::CheckRun;
using rules::file_of;
using rules::Finding;
using rules::FindingKind;
using rules::Obligation;
using rules::RuleInfo;
using rules::TraceStep;

}  // namespace lp::report
