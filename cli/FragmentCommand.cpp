// `layoutproof fragment NAME [--json]`: a register fragment of the catalog (hw/Fragments.h) as
// TIRx text and as the evaluated table thread/register -> (row, col). Without NAME, the list.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <tuple>

#include "cli/Command.h"
#include "analyzer/ir/Print.h"
#include "hw/Fragments.h"

namespace lp::cli {

namespace {

using json = nlohmann::ordered_json;

struct Entry {
  hw::FragmentSlot slot;
  int64_t row = 0, col = 0;
};

// Every tile element with its slot, ordered by warp, lane, register.
std::vector<Entry> evaluate(const hw::Fragment& f) {
  std::vector<Entry> entries;
  for (int64_t r = 0; r < f.rows; ++r)
    for (int64_t c = 0; c < f.cols; ++c) entries.push_back({hw::fragment_slot(f, r, c), r, c});
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.slot.warp, a.slot.lane, a.slot.reg) < std::tie(b.slot.warp, b.slot.lane, b.slot.reg);
  });
  return entries;
}

class FragmentCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    auto* sub = app.add_subcommand("fragment", "Print a register fragment of the hardware catalog");
    sub->add_option("name", name_, "Catalog name, e.g. mma.m16n8k16.f16.A, wgmma.m64n64k16.f32.C (omit to list)");
    sub->add_flag("--json", json_, "Machine-readable output");
    return sub;
  }

  int run() override {
    if (name_.empty()) {
      for (const hw::Fragment& f : hw::fragment_catalog()) std::cout << f.name << "\n";
      return kOk;
    }
    const hw::Fragment* f = hw::find_fragment(name_);
    if (!f) {
      std::cerr << fmt::format("error: unknown fragment '{}'; close names: {}\n", name_,
                               fmt::join(hw::similar_fragment_names(name_), ", "));
      std::cerr << "note: `layoutproof fragment` with no name lists the catalog\n";
      return kBadInput;
    }
    const bool has_warp = f->layout.axis_index(Axis::named("warpid")).has_value();
    const std::vector<Entry> entries = evaluate(*f);
    if (json_) {
      json table = json::array();
      for (const Entry& e : entries) {
        json item;
        if (has_warp) item["warp"] = e.slot.warp;
        item["lane"] = e.slot.lane;
        item["reg"] = e.slot.reg;
        item["row"] = e.row;
        item["col"] = e.col;
        table.push_back(std::move(item));
      }
      json out{{"name", f->name},       {"summary", f->summary}, {"tirx", print_tirx(f->layout).text},
               {"rows", f->rows},       {"cols", f->cols},       {"row", f->row_name},
               {"col", f->col_name},    {"source", f->source},   {"elements", std::move(table)}};
      std::cout << out.dump() << "\n";
      return kOk;
    }
    std::cout << fmt::format("{}: {}\n  tile {}x{} (row: {}, col: {})\n  TIRx: {}\n  source: {}\n", f->name,
                             f->summary, f->rows, f->cols, f->row_name, f->col_name, print_tirx(f->layout).text, f->source);
    std::cout << fmt::format("{}{:>5} {:>4}  -> (row, col)\n", has_warp ? " warp" : "", "lane", "reg");
    for (const Entry& e : entries)
      std::cout << fmt::format("{}{:>5} {:>4}  -> ({}, {})\n", has_warp ? fmt::format("{:>5}", e.slot.warp) : "",
                               e.slot.lane, e.slot.reg, e.row, e.col);
    return kOk;
  }

 private:
  std::string name_;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> make_fragment_command() { return std::make_unique<FragmentCommand>(); }

}  // namespace lp::cli
