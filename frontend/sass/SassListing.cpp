#include "frontend/sass/SassListing.h"

#include <stdexcept>

namespace lp::sass {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Operands split at commas outside brackets, braces and parentheses.
std::vector<std::string> split_operands(std::string_view s) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    const char c = i < s.size() ? s[i] : ',';
    if (c == '[' || c == '{' || c == '(') ++depth;
    else if (c == ']' || c == '}' || c == ')') --depth;
    else if (c == ',' && depth == 0) {
      const std::string_view op = trim(s.substr(start, i - start));
      if (!op.empty()) out.emplace_back(op);
      start = i + 1;
    }
  }
  return out;
}

// The name of a section header `.section NAME,"flags",@type`.
std::string section_name(std::string_view line) {
  line = trim(line.substr(std::string_view(".section").size()));
  return std::string(trim(line.substr(0, line.find(','))));
}

// `//## File "F", line N[ inlined at ...]`: the first position.
std::optional<SourceLine> file_line(std::string_view line) {
  const std::string_view file_key = "File \"", line_key = "\", line ";
  const size_t f = line.find(file_key);
  if (f == std::string_view::npos) return std::nullopt;
  const size_t end = line.find(line_key, f + file_key.size());
  if (end == std::string_view::npos) return std::nullopt;
  size_t digits = end + line_key.size(), n = 0;
  int value = 0;
  while (digits + n < line.size() && n < 9 && line[digits + n] >= '0' && line[digits + n] <= '9')
    value = value * 10 + (line[digits + n++] - '0');
  if (n == 0) return std::nullopt;
  return SourceLine{std::string(line.substr(f + file_key.size(), end - f - file_key.size())), value};
}

}  // namespace

int access_bytes(const std::string& opcode) {
  int bytes = 4;
  size_t at = opcode.find('.');
  while (at != std::string::npos) {
    const size_t next = opcode.find('.', at + 1);
    const std::string mod = opcode.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1);
    if (mod == "U8" || mod == "S8") bytes = 1;
    else if (mod == "U16" || mod == "S16") bytes = 2;
    else if (mod == "64") bytes = 8;
    else if (mod == "128") bytes = 16;
    at = next;
  }
  return bytes;
}

const Function* Listing::function(std::string_view name) const {
  for (const Function& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

Listing read_listing(std::string_view text) {
  Listing out;
  Function* function = nullptr;
  std::string shared_section;
  std::optional<SourceLine> source;
  std::optional<int> ptx_line;
  bool labelled = false;
  size_t line_no = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view raw = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++line_no;
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    if (starts_with(line, ".section ") || starts_with(line, ".section\t")) {
      const std::string name = section_name(line);
      function = nullptr;
      shared_section.clear();
      source.reset();
      ptx_line.reset();
      if (starts_with(name, ".text.")) {
        out.functions.push_back(Function{name.substr(6), {}});
        function = &out.functions.back();
        labelled = false;
      } else if (starts_with(name, ".nv.shared.") && !starts_with(name, ".nv.shared.reserved")) {
        shared_section = name.substr(11);
        out.shared_section_bytes.emplace(shared_section, 0);
      }
      continue;
    }
    if (!shared_section.empty() && starts_with(line, ".zero")) {
      out.shared_section_bytes[shared_section] += std::stoull(std::string(trim(line.substr(5))), nullptr, 0);
      continue;
    }
    if (!function) continue;
    if (starts_with(line, "//##")) {
      if (std::optional<SourceLine> at = file_line(line); at && at->file == ".nv_debug_ptx_txt") ptx_line = at->line;
      else source = std::move(at);
      continue;
    }
    if (starts_with(line, ".L_") && line.back() == ':') {  // nvdisasm's names of branch targets
      labelled = true;
      continue;
    }
    if (!starts_with(line, "/*")) continue;
    // `/*OFFSET*/ [@GUARD] OPCODE OPERANDS ; [/* ENCODING */]`
    const size_t close = line.find("*/");
    const size_t semicolon = line.find(';');
    const std::string_view offset = close == std::string_view::npos ? std::string_view() : line.substr(2, close - 2);
    if (offset.empty() || offset.find_first_not_of("0123456789abcdefABCDEF") != std::string_view::npos ||
        offset.size() > 16 || semicolon == std::string_view::npos || semicolon < close)
      throw std::runtime_error("line " + std::to_string(line_no) + " of the SASS listing is not an instruction nvdisasm prints: " +
                               std::string(line));
    Instruction ins;
    ins.offset = std::stoull(std::string(offset), nullptr, 16);
    std::string_view body = trim(line.substr(close + 2, semicolon - close - 2));
    if (!body.empty() && body.front() == '@') {
      const size_t sp = body.find_first_of(" \t");
      if (sp == std::string_view::npos) throw std::runtime_error("line " + std::to_string(line_no) + ": a guard without an instruction");
      ins.guard = std::string(body.substr(1, sp - 1));
      body = trim(body.substr(sp));
    }
    const size_t sp = body.find_first_of(" \t");
    ins.opcode = std::string(body.substr(0, sp));
    if (sp != std::string_view::npos) ins.operands = split_operands(body.substr(sp + 1));
    ins.source = source;
    ins.ptx_line = ptx_line;
    ins.labelled = labelled;
    labelled = false;
    function->code.push_back(std::move(ins));
  }
  return out;
}

}  // namespace lp::sass
