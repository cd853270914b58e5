#pragma once
// JUnit XML for CI test dashboards: <testsuites>, one <testsuite> per checked file, one
// <testcase> per obligation. A refuted obligation carries <failure> with the clang-style text, an
// undecided one <error>, one whose finding the baseline accepted <skipped>. Findings with no
// obligation (invalid annotations) get a test case of their own.
#include <string>
#include <string_view>

#include "report/Findings.h"

namespace lp::report {

std::string junit_report(const CheckRun& run);

/// XML 1.0 character data or attribute value: markup characters become entities, characters
/// XML 1.0 forbids (control bytes, U+FFFE/U+FFFF) and invalid UTF-8 bytes become U+FFFD; in
/// attributes tab and line breaks become character references so parsers keep them.
std::string xml_escape(std::string_view s, bool attribute);

}  // namespace lp::report
