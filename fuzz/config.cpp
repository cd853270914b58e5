// libFuzzer target: the `.layoutproof.toml` reader (rules::parse_config, what load_config runs on
// the file's text), then what the checker does with the result: each rule's severity looked up.
#include <cstdint>
#include <string>

#include "rules/Config.h"
#include "rules/Rule.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    lp::rules::Config c = lp::rules::parse_config(std::string(reinterpret_cast<const char*>(data), size), ".layoutproof.toml");
    for (const lp::rules::Rule* r : lp::rules::all_rules()) (void)c.severity_of(r->info());
  } catch (const lp::rules::ConfigError&) {
  }
  return 0;
}
