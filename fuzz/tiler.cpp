// libFuzzer target: parse_tiler (CuTe tilers `[T0, T1, ...]`), then every leaf printed in CuTe's
// format and reparsed as a tiler.
#include "analyzer/algebra/CuteLayout.h"
#include "analyzer/parse/TilerParser.h"
#include "fuzz/FuzzSupport.h"

namespace {

// The tiler printed back as tiler text: `[a, _, [b, c]]`, leaves in CuTe's print format.
std::string tiler_text(const lp::Tiler& t) {
  using K = lp::Tiler::Kind;
  if (t.kind == K::Underscore) return "_";
  if (t.kind == K::Layout) return lp::algebra::cute_text(lp::algebra::from_ir(*t.layout));
  std::string s = "[";
  for (size_t i = 0; i < t.parts.size(); ++i) s += (i ? ", " : "") + tiler_text(t.parts[i]);
  return s + "]";
}

lp::Tiler parse(std::string text) {
  auto src = std::make_shared<lp::SourceText>();
  src->name = "<fuzz>";
  src->text = std::move(text);
  return lp::parse_tiler(src);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  lp::Tiler t;
  try {
    t = parse(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const lp::DiagnosticError& e) {
    (void)e.diagnostic().render();
    return 0;
  }
  // What was accepted prints as a tiler that parses back to the same text.
  const std::string printed = tiler_text(t);
  if (tiler_text(parse(printed)) != printed) __builtin_trap();
  return 0;
}
