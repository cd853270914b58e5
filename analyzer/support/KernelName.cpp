#include "analyzer/support/KernelName.h"

namespace lp {

namespace {

// Template arguments longer than this are shown as "...".
constexpr size_t kMaxTemplateArgument = 32;

// The name's top-level template arguments, each elided past kMaxTemplateArgument.
std::string elide_template_arguments(const std::string& name) {
  std::string out;
  size_t depth = 0, arg_start = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '<' && depth++ == 0) {
      out += name.substr(arg_start, i + 1 - arg_start);
      arg_start = i + 1;
    } else if ((c == ',' || c == '>') && depth == 1) {
      std::string arg = name.substr(arg_start, i - arg_start);
      const size_t first = arg.find_first_not_of(' ');
      out += arg.size() - (first == std::string::npos ? arg.size() : first) > kMaxTemplateArgument
                 ? (first ? std::string(" ") : std::string()) + "..."
                 : arg;
      out += c;
      arg_start = i + 1;
      if (c == '>') --depth;
    } else if (c == '>' && depth > 0) {
      --depth;
    }
  }
  return out + name.substr(arg_start);
}

}  // namespace

std::string short_kernel_name(const std::string& demangled) {
  std::string name = demangled;
  // The parameter list: the last top-level "(...)".
  if (!name.empty() && name.back() == ')') {
    int depth = 0;
    for (size_t i = name.size(); i-- > 0;) {
      if (name[i] == ')') ++depth;
      else if (name[i] == '(' && --depth == 0) {
        name.resize(i);
        break;
      }
    }
  }
  // The return type: what precedes the last space outside <> and () ("(anonymous namespace)").
  int depth = 0;
  for (size_t i = name.size(); i-- > 0;) {
    if (name[i] == '>' || name[i] == ')') ++depth;
    else if (name[i] == '<' || name[i] == '(') --depth;
    else if (name[i] == ' ' && depth == 0) {
      name = name.substr(i + 1);
      break;
    }
  }
  return elide_template_arguments(name);
}

std::regex kernel_pattern(const std::string& pattern) {
  if (pattern.size() > kMaxKernelPatternChars) throw std::regex_error(std::regex_constants::error_space);
  return std::regex(pattern, std::regex::ECMAScript | std::regex_constants::__polynomial);
}

std::string short_symbol_name(const std::string& demangled) {
  const size_t local = demangled.rfind(")::");
  return local == std::string::npos ? short_kernel_name(demangled) : demangled.substr(local + 3);
}

}  // namespace lp
