// libFuzzer target: the findings-document reader of `layoutproof report` (report/FindingsDoc.h)
// with its typed counterexamples (rules/Counterexample.h), then what follows: every counterexample
// read back writes the same JSON it reads from, and reads back to the same type.
#include <cstdint>
#include <string>

#include "report/FindingsDoc.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  lp::report::FindingsDoc doc;
  try {
    doc = lp::report::parse_findings_doc(std::string_view(reinterpret_cast<const char*>(data), size), "findings.json");
  } catch (const lp::report::ReportInputError&) {
    return 0;
  }
  for (const lp::report::DocFinding& f : doc.findings) {
    const nlohmann::json j = lp::rules::to_json(f.counterexample);
    const lp::rules::Counterexample back = lp::rules::counterexample_from_json(j);
    if (back.index() != f.counterexample.index() || lp::rules::to_json(back) != j) __builtin_trap();
  }
  return 0;
}
