// libFuzzer target: the findings-document reader of `layoutproof report` (report/pages/FindingsDoc.h)
// with the finding's codec and its typed counterexamples (findings/Finding.h, findings/Counterexample.h),
// then what follows: every finding read back writes JSON that reads back to a finding writing the
// same JSON.
#include <cstdint>
#include <string>

#include "report/pages/FindingsDoc.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  lp::report::FindingsDoc doc;
  try {
    doc = lp::report::parse_findings_doc(std::string_view(reinterpret_cast<const char*>(data), size), "findings.json");
  } catch (const lp::report::ReportInputError&) {
    return 0;
  }
  for (const lp::report::ReportedFinding& r : doc.findings) {
    const nlohmann::ordered_json j = lp::rules::to_json(r.finding);
    const lp::rules::Finding back = lp::rules::finding_from_json(nlohmann::json(j));
    if (back.counterexample.index() != r.finding.counterexample.index() || lp::rules::to_json(back) != j) __builtin_trap();
  }
  return 0;
}
