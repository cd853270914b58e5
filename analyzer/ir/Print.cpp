#include "analyzer/ir/Print.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analyzer/ir/Checked.h"
#include "analyzer/support/Vocabulary.h"

namespace lp {

const char* notation_name(Notation n) { return vocabulary_name(kNotationNames, n, "cute"); }

std::optional<Notation> notation_from_name(std::string_view name) { return vocabulary_value(kNotationNames, name); }

std::vector<std::string> notation_names() { return vocabulary_names(kNotationNames); }

std::string notation_choices() { return vocabulary_choices(kNotationNames); }

namespace {

std::string cute_int(int64_t v, bool is_static) { return is_static ? fmt::format("_{}", v) : fmt::format("{}", v); }

std::string shape_text(const Layout& l, const Nest& n, size_t& next, bool cute_static, bool spaces) {
  if (n.leaf) {
    const Mode& m = l.modes()[next++];
    return cute_static ? cute_int(m.extent, m.static_extent) : fmt::format("{}", m.extent);
  }
  std::string s = "(";
  for (size_t i = 0; i < n.children.size(); ++i) {
    if (i) s += spaces ? ", " : ",";
    s += shape_text(l, n.children[i], next, cute_static, spaces);
  }
  return s + ")";
}

// The single axis a stride points along, or none for a zero stride. Throws when it spans several.
std::optional<size_t> stride_axis(const Layout& l, const Point& stride, const char* notation) {
  std::optional<size_t> axis;
  for (size_t a = 0; a < stride.size(); ++a) {
    if (stride[a] == 0) continue;
    if (axis)
      throw ConversionError(fmt::format(
          "a stride moves along both '{}' and '{}'; {} writes each stride along one axis",
          l.axes()[*axis].spelling(), l.axes()[a].spelling(), notation));
    axis = a;
  }
  return axis;
}

std::string cute_stride(const Layout& l, const Mode& m) {
  auto axis = stride_axis(l, m.stride, "CuTe");
  if (!axis) return cute_int(0, m.static_stride);
  const Axis& ax = l.axes()[*axis];
  std::string v = cute_int(m.stride[*axis], m.static_stride);
  return ax.is_basis() ? v + ax.spelling() : v;
}

std::string stride_text(const Layout& l, const Nest& n, size_t& next) {
  if (n.leaf) return cute_stride(l, l.modes()[next++]);
  std::string s = "(";
  for (size_t i = 0; i < n.children.size(); ++i) {
    if (i) s += ",";
    s += stride_text(l, n.children[i], next);
  }
  return s + ")";
}

}  // namespace

std::string swizzle_text(const Swizzle& s) { return fmt::format("Sw<{},{},{}>", s.bits(), s.base(), s.shift()); }

std::string f2_text(const F2Map& f) { return fmt::format("F2[{}]", fmt::join(f.columns(), ",")); }

Printed print_cute(const Layout& in) {
  const Layout l = in.with_order(IndexOrder::Colex);
  if (!l.has_domain())
    throw ConversionError("the layout has no shape (a bare descriptor); CuTe layouts always carry one");
  if (!l.replicas().empty())
    throw ConversionError(
        "the layout has replicas (R[...]); a CuTe layout maps each coordinate to exactly one offset");
  bool any_basis = false, any_memory = false;
  for (const Axis& a : l.axes()) {
    if (a.is_basis()) any_basis = true;
    else if (a.is_memory()) any_memory = true;
    else
      throw ConversionError(fmt::format(
          "axis '{}' has no CuTe spelling: CuTe strides are memory offsets or numbered bases (_1@0)",
          a.name()));
  }
  if (any_basis && any_memory)
    throw ConversionError("the layout mixes memory offsets and scaled bases; CuTe cannot add them");
  std::vector<Stage> stages = l.stages();
  for (size_t a = 0; a < l.axes().size(); ++a) {
    if (l.offset()[a] == 0) continue;
    if (!l.axes()[a].is_memory())
      throw ConversionError(fmt::format("the layout has an offset along '{}'; CuTe offsets are memory offsets",
                                        l.axes()[a].spelling()));
    stages.insert(stages.begin(), Stage::add_offset(l.offset()[a]));
  }
  size_t next = 0;
  std::string core = shape_text(l, l.nest(), next, true, false) + ":";
  next = 0;
  core += stride_text(l, l.nest(), next);
  // Group the stages (innermost first) into CuTe composed layouts `A o O o B`.
  std::vector<std::string> wraps;  // innermost first, each "Sw<..> o O"
  for (size_t i = 0; i < stages.size();) {
    int64_t off = 0;
    bool off_static = true, have_off = false;
    if (stages[i].kind == Stage::Kind::AddOffset) {
      off = stages[i].offset;
      off_static = stages[i].static_offset;
      have_off = true;
      ++i;
    }
    if (i < stages.size() && stages[i].kind == Stage::Kind::Swizzle) {
      wraps.push_back(swizzle_text(stages[i].swizzle) + " o " + cute_int(off, off_static));
      ++i;
    } else if (i < stages.size() && stages[i].kind == Stage::Kind::F2Linear) {
      wraps.push_back(f2_text(stages[i].f2) + " o " + cute_int(off, off_static));
      ++i;
    } else if (i < stages.size() && stages[i].kind == Stage::Kind::Outer) {
      // CuTe's ComposedLayout<A, O, B> prints as `A o O o B` (layout_composed.hpp).
      wraps.push_back(print_cute(*stages[i].outer).text + " o " + cute_int(off, off_static));
      ++i;
    } else if (i < stages.size() && stages[i].kind == Stage::Kind::ByteSwizzle) {
      if (have_off && off != 0)
        wraps.push_back("Sw<0,0,0> o " + cute_int(off, off_static));
      wraps.push_back(swizzle_text(stages[i].swizzle) +
                      fmt::format(" o smem_ptr[{}b](unset)", stages[i].element_bits));
      ++i;
    } else {
      // An offset with no swizzle after it: CuTe spells it with the identity swizzle.
      wraps.push_back("Sw<0,0,0> o " + cute_int(off, off_static));
    }
  }
  std::string text;
  for (auto it = wraps.rbegin(); it != wraps.rend(); ++it) text += *it + " o ";
  return {text + core, {}};
}

namespace {

std::string tirx_term(int64_t v, const Axis& a) {
  return a.is_memory() ? fmt::format("{}", v) : fmt::format("{}@{}", v, a.name());
}

void require_tirx_axes(const Layout& l) {
  for (const Axis& a : l.axes())
    if (a.is_basis())
      throw ConversionError(fmt::format(
          "scaled basis '{}' has no TIRx spelling: TIRx axes are named (m, laneid, TLane, ...)",
          a.spelling()));
}

std::string tirx_iters(const Layout& l, const std::vector<int64_t>& extents, const std::vector<Point>& strides,
                       bool parens) {
  std::string e, s;
  for (size_t k = 0; k < extents.size(); ++k) {
    if (k) {
      e += ",";
      s += ",";
    }
    e += fmt::format("{}", extents[k]);
    auto axis = stride_axis(l, strides[k], "TIRx");
    s += axis ? tirx_term(strides[k][*axis], l.axes()[*axis]) : "0";
  }
  return parens ? fmt::format("({}):({})", e, s) : fmt::format("{}:{}", e, s);
}

}  // namespace

Printed print_tirx(const Layout& in) {
  const Layout l = in.with_order(IndexOrder::RowMajor);
  require_tirx_axes(l);
  if (!l.has_domain())
    throw ConversionError("the layout has no shape (a bare descriptor); a TIRx shard needs extents");
  Printed out;
  std::vector<int64_t> ext;
  std::vector<Point> str;
  for (const Mode& m : l.modes()) {
    ext.push_back(m.extent);
    str.push_back(m.stride);
  }
  std::string text = "S[" + tirx_iters(l, ext, str, !l.nest().leaf) + "]";
  if (!l.nest().leaf) {
    bool grouped = false;
    for (const Nest& c : l.nest().children) grouped |= !c.leaf;
    if (grouped) {
      size_t next = 0;
      out.notes.push_back(fmt::format(
          "TIRx text does not record the logical shape; this is the layout of a buffer of shape {}",
          shape_text(l, l.nest(), next, false, false)));
    }
  }
  if (!l.replicas().empty()) {
    ext.clear();
    str.clear();
    for (const Replica& r : l.replicas()) {
      ext.push_back(r.extent);
      str.push_back(r.stride);
    }
    text += " + R[" + tirx_iters(l, ext, str, l.replicas().size() > 1) + "]";
  }
  Point offset = l.offset();
  std::vector<Stage> stages = l.stages();
  // Offsets before the first swizzle are the tile's own offset.
  auto m = l.axis_index(Axis::memory());
  while (!stages.empty() && stages.front().kind == Stage::Kind::AddOffset) {
    offset[*m] = checked_add(offset[*m], stages.front().offset, "offset");
    stages.erase(stages.begin());
  }
  for (size_t a = 0; a < offset.size(); ++a)
    if (offset[a] != 0) text += " + " + tirx_term(offset[a], l.axes()[a]);
  for (const Stage& s : stages) {
    Swizzle sw = s.swizzle;
    if (s.kind == Stage::Kind::AddOffset)
      throw ConversionError("an offset between two swizzles has no TIRx spelling");
    if (s.kind == Stage::Kind::F2Linear)
      throw ConversionError("an F2-linear map (F2[...]) has no TIRx spelling: TIRx composes only swizzles after a "
                            "tile layout");
    if (s.kind == Stage::Kind::Outer)
      throw ConversionError(
          "a layout applied to another's value (CuTe's A o O o B) has no TIRx spelling: TIRx composes only swizzles "
          "after a tile layout");
    if (s.kind == Stage::Kind::ByteSwizzle) {
      int log_bytes = 0;
      while ((8 << log_bytes) < s.element_bits) ++log_bytes;
      if (s.element_bits < 8 || sw.base() < log_bytes)
        throw ConversionError(fmt::format(
            "byte swizzle Sw<{},{},{}> on {}-bit elements changes bits inside an element; TIRx "
            "swizzles element offsets",
            sw.bits(), sw.base(), sw.shift(), s.element_bits));
      sw = Swizzle(sw.bits(), sw.base() - log_bytes, sw.shift());
      out.notes.push_back(fmt::format("byte swizzle Sw<{},{},{}> on {}-bit elements is element swizzle Sw<{},{},{}>",
                                      s.swizzle.bits(), s.swizzle.base(), s.swizzle.shift(), s.element_bits,
                                      sw.bits(), sw.base(), sw.shift()));
    }
    if (sw.shift() < 0)
      throw ConversionError(fmt::format("swizzle Sw<{},{},{}> shifts down (S < 0); TIRx's SwizzleLayout only XORs "
                                        "higher bits into lower ones",
                                        sw.bits(), sw.base(), sw.shift()));
    text = fmt::format("ComposeLayout({}, {}, {}, {})", sw.base(), sw.bits(), sw.shift(), text);
  }
  out.text = text;
  return out;
}

Printed print_descriptor(const Layout& in) {
  const Layout l = in.with_order(IndexOrder::Colex);
  for (const Axis& a : l.axes())
    if (!a.is_basis())
      throw ConversionError(fmt::format(
          "axis '{}' has no descriptor spelling: descriptor entries are bases N@dim", a.spelling()));
  if (!l.replicas().empty()) throw ConversionError("descriptors have no replicas");
  if (!l.stages().empty()) throw ConversionError("descriptors have no swizzles or composed offsets");
  for (int64_t v : l.offset())
    if (v != 0) throw ConversionError("descriptors have no offset");
  Printed out;
  struct Walk {
    const Layout& l;
    size_t next = 0;
    std::string operator()(const Nest& n) {
      if (n.leaf) {
        const Mode& m = l.modes()[next++];
        auto axis = stride_axis(l, m.stride, "a descriptor");
        // A zero stride contributes nothing along any axis; write it on the first one.
        if (!axis) return l.axes().empty() ? std::string("0@0") : "0" + l.axes()[0].spelling();
        return fmt::format("{}{}", m.stride[*axis], l.axes()[*axis].spelling());
      }
      std::string s = "(";
      for (size_t i = 0; i < n.children.size(); ++i) {
        if (i) s += ", ";
        s += (*this)(n.children[i]);
      }
      return s + ")";
    }
  };
  const Nest root = l.nest().leaf ? Nest::tuple({Nest::make_leaf()}) : l.nest();
  out.text = Walk{l}(root);
  if (l.has_domain()) {
    size_t next = 0;
    out.notes.push_back(fmt::format("the descriptor grammar carries strides only; the shape {} is not part of it",
                                    shape_text(l, l.nest(), next, false, false)));
  }
  return out;
}

Printed print(const Layout& layout, Notation notation) {
  switch (notation) {
    case Notation::Cute: return print_cute(layout);
    case Notation::Tirx: return print_tirx(layout);
    case Notation::Descriptor: return print_descriptor(layout);
  }
  return print_cute(layout);
}

std::string print_cute_or_tirx(const Layout& layout) {
  try {
    return print_cute(layout).text;
  } catch (const ConversionError&) {
    return print_tirx(layout).text;
  }
}

}  // namespace lp
