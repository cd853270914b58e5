// libFuzzer target: parse_layout_text in the cute notation, then evaluation, printing, reparsing.
#include "fuzz/FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  lp::fuzz::parse_layout_and_use(std::string(reinterpret_cast<const char*>(data), size), lp::Notation::Cute);
  return 0;
}
