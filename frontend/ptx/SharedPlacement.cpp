#include "frontend/ptx/SharedPlacement.h"

#include <algorithm>

#include <fmt/format.h>

#include "frontend/sass/SassConstants.h"

namespace lp::ptx {

namespace {

// Where the markers store: low global addresses, 16 bytes apart, that no kernel's own constant
// store is expected to use (a second store to one of them makes the kernel unplaced).
constexpr uint64_t kFirstMarkerAddress = 0x1000;
constexpr uint64_t kMarkerStride = 16;

void named_symbols(const Module& m, const Function& f, const Operand& o, std::vector<const SharedSymbol*>& out) {
  if (o.kind == Operand::Kind::Symbol)
    if (const SharedSymbol* s = m.shared_symbol(f, o.name))
      if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  for (const Operand& e : o.elems) named_symbols(m, f, e, out);
}

}  // namespace

PlacementProbe placement_probe(const Module& m) {
  PlacementProbe probe;
  const std::string& text = m.source->text;
  // Insertions by text position, applied back to front.
  std::vector<std::pair<size_t, std::string>> insertions;
  const bool wide = m.address_size == 64;
  for (const Function& f : m.functions) {
    if (!f.is_entry || !f.has_body || f.body.empty()) continue;
    std::vector<const SharedSymbol*> symbols;
    for (const Instruction& ins : f.body)
      for (const Operand& o : ins.operands) named_symbols(m, f, o, symbols);
    if (symbols.empty()) continue;
    bool labelled = false;
    for (const auto& [label, index] : f.labels) labelled |= index == 0;
    if (labelled) {
      probe.skipped[f.name] = "its first instruction is a branch target, where the probe cannot be placed";
      continue;
    }
    const size_t at = f.body.front().pos;
    std::string code = fmt::format("\n\t.reg .b32 %__lp_place<{}>;\n\t.reg .b{} %__lp_where<{}>;\n", symbols.size(),
                                   wide ? 64 : 32, symbols.size());
    size_t i = 0;
    for (const SharedSymbol* s : symbols) {
      if (s->pos > at) {  // declared after the first instruction: not nameable there
        probe.skipped[f.name] = fmt::format("'{}' is declared after the kernel's first instruction", s->name);
        break;
      }
      const uint64_t address = kFirstMarkerAddress + kMarkerStride * probe.markers.size();
      probe.markers.push_back({f.name, s->name, address});
      code += fmt::format("\tmov.u32 %__lp_place{0}, {1};\n\tmov.u{2} %__lp_where{0}, {3};\n"
                          "\tst.volatile.global.u32 [%__lp_where{0}], %__lp_place{0};\n",
                          i++, s->name, wide ? 64 : 32, address);
    }
    if (probe.skipped.count(f.name)) {
      while (!probe.markers.empty() && probe.markers.back().kernel == f.name) probe.markers.pop_back();
      continue;
    }
    insertions.emplace_back(at, code + "\t");
    probe.insertions.push_back({static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n')) + 1,
                                static_cast<int>(std::count(code.begin(), code.end(), '\n'))});
  }
  probe.ptx = text;
  for (auto it = insertions.rbegin(); it != insertions.rend(); ++it) probe.ptx.insert(it->first, it->second);
  return probe;
}

std::optional<int> PlacementProbe::original_line(int probe_line) const {
  int shift = 0;
  for (const Insertion& i : insertions) {
    const int start = i.line + shift;  // the original line's indentation, then the markers
    if (probe_line <= start) return probe_line - shift;
    if (probe_line < start + i.lines) return std::nullopt;
    if (probe_line == start + i.lines) return i.line;  // the instruction the markers precede
    shift += i.lines;
  }
  return probe_line - shift;
}

SharedPlacement read_placement(const Module& m, const PlacementProbe& probe, const sass::Listing& listing) {
  SharedPlacement out;
  out.unplaced = probe.skipped;
  std::map<std::string, std::vector<const PlacementProbe::Marker*>> by_kernel;
  for (const PlacementProbe::Marker& k : probe.markers) by_kernel[k.kernel].push_back(&k);
  for (const auto& [kernel, markers] : by_kernel) {
    const Function* f = m.function(kernel);
    const sass::Function* code = listing.function(kernel);
    if (!code || !f) {
      out.unplaced[kernel] = "the kernel is not in the cubin's disassembly";
      continue;
    }
    // The CTA's own window: its rank in the cluster at 0 (sm_90 adds the rank above the offset).
    std::map<uint64_t, std::vector<uint32_t>> stored;
    for (const sass::ConstantStore& s : sass::entry_constant_stores(*code, 0)) stored[s.address].push_back(s.value);
    std::map<std::string, uint64_t> offsets;
    std::string problem;
    for (const PlacementProbe::Marker* k : markers) {
      auto it = stored.find(k->address);
      if (it == stored.end() || it->second.size() != 1) {
        problem = fmt::format("the probe's store of '{}' is not read from the SASS", k->symbol);
        break;
      }
      offsets[k->symbol] = it->second.front();
    }
    const auto section = listing.shared_section_bytes.find(kernel);
    const uint64_t section_bytes = section == listing.shared_section_bytes.end() ? 0 : section->second;
    std::vector<std::pair<uint64_t, uint64_t>> spans;  // static variables: [offset, end)
    for (const auto& [name, offset] : offsets) {
      if (!problem.empty()) break;
      const SharedSymbol* s = m.shared_symbol(*f, name);
      if (s->align > 0 && offset % static_cast<uint64_t>(s->align) != 0)
        problem = fmt::format("'{}' read at {}, not a multiple of its .align {}", name, offset, s->align);
      else if (s->bytes && offset + static_cast<uint64_t>(*s->bytes) > section_bytes)
        problem = fmt::format("'{}' read at {}, past the kernel's {} bytes of shared memory", name, offset, section_bytes);
      else if (s->bytes)
        spans.emplace_back(offset, offset + static_cast<uint64_t>(*s->bytes));
    }
    std::sort(spans.begin(), spans.end());
    for (size_t i = 1; problem.empty() && i < spans.size(); ++i)
      if (spans[i].first < spans[i - 1].second) problem = "two variables read at overlapping offsets";
    if (!problem.empty()) out.unplaced[kernel] = problem;
    else out.offsets[kernel] = std::move(offsets);
  }
  return out;
}

}  // namespace lp::ptx
