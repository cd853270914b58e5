// `layoutproof eval LAYOUT [--all | --at I] [--preimage P] [--json]`: exact images of a layout.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "analyzer/ir/Checked.h"
#include "cli/Command.h"
#include "cli/ImageJson.h"
#include "cli/LayoutArg.h"

namespace lp::cli {

namespace {

using json = nlohmann::ordered_json;

/// Largest domain `eval --all` prints; beyond it, ask for single points.
constexpr int64_t kMaxListed = int64_t{1} << 22;

std::string coord_text(const Layout& l, int64_t i) {
  auto c = l.split(i);
  std::string s = "(";
  for (size_t k = 0; k < c.size(); ++k) s += fmt::format("{}{}", k ? "," : "", c[k]);
  return s + ")";
}

// `--at`: a 1-D index, or a coordinate "(r,c)" with one entry per mode, as eval prints them.
int64_t index_option(const Layout& l, const std::string& text) {
  const size_t open = text.find_first_not_of(" \t");
  if (open == std::string::npos || text[open] != '(') return parse_int_option(text, "--at");
  const size_t close = text.find_last_not_of(" \t");
  if (text[close] != ')') throw InputError(fmt::format("--at '{}': a coordinate ends with ')'", text));
  const std::vector<std::string> items = split_commas(text.substr(open + 1, close - open - 1));
  const auto& modes = l.modes();
  if (items.size() != modes.size())
    throw InputError(fmt::format("--at '{}': {} entries, but the layout has {} modes", text, items.size(), modes.size()));
  std::vector<int64_t> coord;
  for (size_t k = 0; k < items.size(); ++k) {
    const int64_t c = parse_int_option(items[k], "--at");
    if (!modes[k].extent.known()) throw InputError(fmt::format("--at '{}': mode {} has no extent", text, k));
    if (c < 0 || c >= modes[k].extent)
      throw InputError(fmt::format("--at '{}': entry {} of mode {} is outside [0, {})", text, c, k, modes[k].extent));
    coord.push_back(c);
  }
  return l.index_of(coord);
}

// "m=3,laneid=1" or a single integer for scalar layouts.
Point parse_point(const Layout& l, const std::string& text) {
  Point p(l.axes().size(), 0);
  if (l.is_scalar() && text.find('=') == std::string::npos) {
    p[0] = parse_int_option(text, "--preimage");
    return p;
  }
  for (const std::string& item : split_commas(text)) {
    size_t eq = item.find('=');
    if (eq == std::string::npos) throw InputError(fmt::format("--preimage item '{}' is not AXIS=VALUE", item));
    auto a = l.axis_index(axis_option(item.substr(0, eq), "--preimage"));
    if (!a) throw InputError(fmt::format("--preimage names axis '{}', which the layout does not have", item.substr(0, eq)));
    p[*a] = parse_int_option(item.substr(eq + 1), "--preimage");
  }
  return p;
}

class EvalCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    auto* sub = app.add_subcommand("eval", "Evaluate a layout exactly: the image of every 1-D index");
    sub->add_option("layout", layout_, "Layout in CuTe, TIRx or descriptor notation")->required();
    auto* all = sub->add_flag("--all", all_, "Every index of the domain (the default)");
    auto* at = sub->add_option("--at", at_, "Only the 1-D index I, or the coordinate (r,c,...) with one entry per mode");
    all->excludes(at);
    sub->add_option("--preimage", preimage_, "Indices whose image is P (an offset, or AXIS=V,...)")->excludes(at);
    sub->add_option("--notation", notation_, "Force the input notation: cute, tirx or descriptor");
    sub->add_flag("--json", json_, "Machine-readable output");
    return sub;
  }

  int run() override {
    ParsedLayout parsed = read_layout_arg(layout_, notation_);
    const Layout& l = parsed.layout;
    int64_t size = l.size();
    json out;
    out["notation"] = notation_name(parsed.notation);
    out["size"] = size;
    Point cos = l.cosize();
    if (l.is_scalar()) out["cosize"] = cos[0];
    else {
      json c = json::object();
      for (size_t a = 0; a < cos.size(); ++a) c[l.axes()[a].spelling()] = cos[a];
      out["cosize"] = c;
    }
    if (!preimage_.empty()) {
      auto idx = lp::preimage(l, parse_point(l, preimage_));
      out["preimage"] = idx;
      emit(out, [&] {
        std::cout << fmt::format("preimage of {}: {} indices\n", preimage_, idx.size());
        for (int64_t i : idx) std::cout << fmt::format("  {} {}\n", i, coord_text(l, i));
      });
      return kOk;
    }
    if (at_) {
      const int64_t at = index_option(l, *at_);  // parsed here: CLI11 would clamp an out-of-range integer silently
      out["index"] = at;
      out["images"] = json::array({image_json(l, parsed.notation, at)});
      emit(out, [&] {
        std::cout << fmt::format("{} {} -> {}\n", at, coord_text(l, at), image_text(l, parsed.notation, at));
      });
      return kOk;
    }
    if (size > kMaxListed)
      throw LayoutError(fmt::format("the domain has {} points; --all lists at most {} (use --at I)", size, kMaxListed));
    json images = json::array();
    for (int64_t i = 0; i < size; ++i) images.push_back(image_json(l, parsed.notation, i));
    out["images"] = std::move(images);
    emit(out, [&] {
      std::cout << fmt::format("{} layout, size {}, cosize {}\n", notation_name(parsed.notation), size,
                               out["cosize"].dump());
      for (int64_t i = 0; i < size; ++i)
        std::cout << fmt::format("{:>6} {:<16} -> {}\n", i, coord_text(l, i), image_text(l, parsed.notation, i));
    });
    return kOk;
  }

 private:
  template <class TextFn>
  void emit(const json& out, TextFn text) {
    if (json_) std::cout << out.dump() << "\n";
    else text();
  }

  std::string layout_, notation_, preimage_;
  bool all_ = false, json_ = false;
  std::optional<std::string> at_;
};

}  // namespace

std::unique_ptr<Command> make_eval_command() { return std::make_unique<EvalCommand>(); }

}  // namespace lp::cli
