// libFuzzer target: the baseline reader (report::Baseline::parse), then what follows: the entries
// written back as JSON must read back to the same entries, and their paths normalise.
#include <cstdint>
#include <string>

#include "report/Baseline.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  lp::report::Baseline b;
  try {
    b = lp::report::Baseline::parse(std::string_view(reinterpret_cast<const char*>(data), size), "baseline.json");
  } catch (const lp::report::BaselineError&) {
    return 0;
  }
  for (const lp::report::BaselineEntry& e : b.entries) (void)lp::report::baseline_path(e.file);
  lp::report::Baseline again = lp::report::Baseline::parse(b.to_json(), "baseline.json");
  if (again.entries != b.entries) __builtin_trap();  // the writer and the reader disagree
  return 0;
}
