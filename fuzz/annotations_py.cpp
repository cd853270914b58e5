// libFuzzer target: the annotation scanner and parser on a .py file, then what follows parsing:
// every diagnostic rendered, every parsed layout evaluated, printed and reparsed.
#include "fuzz/AnnotationsSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  lp::fuzz::parse_annotations_and_use("fuzz.py", std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
