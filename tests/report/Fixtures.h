#pragma once
// Hand-built check runs shared by the report tests and the sample writer for the schema checks.
#include <memory>
#include <string>

#include "report/Findings.h"

namespace lp::report::test {

std::shared_ptr<const SourceText> source(std::string name, std::string text);
/// The location of the first occurrence of `needle` in `src` (throws if absent).
SourceLoc at(const std::shared_ptr<const SourceText>& src, const std::string& needle);

/// A bare finding: rule, severity, location and message, the rest defaulted.
Finding finding(std::string rule, SourceLoc loc, std::string message, Severity severity = Severity::Error);

/// Two files with findings (a violation with notes, counterexample and trace; a warning; an
/// unknown; an invalid annotation whose rule has no metadata), five obligations, a third file
/// with nothing in it. The findings are deliberately out of order.
CheckRun sample_run();

/// Quotes, markup characters, newlines, control bytes, NUL, invalid UTF-8, non-ASCII and
/// noncharacters in file names, messages, source lines, rule ids and counterexamples.
CheckRun hostile_run();

/// Findings of the PTX front end on one header line (report/Fold.h): the same conflict on three
/// instructions of two template instantiations, one with other wavefronts, one a warning; and an
/// annotation's finding at the same place.
CheckRun compiled_run();

}  // namespace lp::report::test
