// libFuzzer target: read_listing (nvdisasm's text, as the cubin's placement and merged accesses are
// read from it), then the constant evaluator over every function's entry at two cluster ranks.
// The reader may throw std::exception on text it does not know; nothing else may escape, crash or
// hang.
#include <string_view>

#include "frontend/sass/SassConstants.h"
#include "frontend/sass/SassListing.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  lp::sass::Listing listing;
  try {
    listing = lp::sass::read_listing(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const std::exception&) {
    return 0;
  }
  for (const lp::sass::Function& f : listing.functions) {
    for (uint32_t rank : {0u, 3u}) (void)lp::sass::entry_constant_stores(f, rank);
    for (const lp::sass::Instruction& ins : f.code) (void)lp::sass::access_bytes(ins.opcode);
  }
  return 0;
}
