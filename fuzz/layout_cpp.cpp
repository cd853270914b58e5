// libFuzzer target: CuTe's C++ spelling (`composition(Swizzle<3,3,3>{}, Layout<...>{})`). The text
// goes through parse_layout_text (detection picks this parser for its prefixes) and, to reach the
// parser whatever the prefix, through parse_cpp_spelling directly as parse_layout would call it.
#include "fuzz/FuzzSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  lp::fuzz::parse_layout_and_use(text, lp::Notation::Cute);
  auto src = std::make_shared<lp::SourceText>();
  src->name = "<fuzz>";
  src->text = std::move(text);
  std::optional<lp::Layout> layout;
  try {
    lp::Cursor c(src);
    if (c.at_end()) return 0;
    layout = lp::parse_cpp_spelling(c);
    if (!c.at_end()) c.fail_expected("the end of the layout");
  } catch (const lp::DiagnosticError& e) {
    (void)e.diagnostic().render();
    return 0;
  }
  lp::fuzz::evaluate_some(*layout);
  lp::fuzz::print_and_reparse(*layout);
  return 0;
}
