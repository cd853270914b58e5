// `layoutproof banks --arch sm_90 --instr NAME --addresses A0,...,A31 [--global-addresses G0,...,G31] [--json]`:
// the exact shared-memory wavefronts of one warp-wide instruction (model: hw/BankModel.h); for
// cp.async.ca, optionally with the global addresses its lanes read.
#include <fmt/format.h>

#include <charconv>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "analyzer/ir/Checked.h"
#include "cli/Command.h"
#include "hw/AsyncCopy.h"
#include "hw/BankModel.h"
#include "hw/HwError.h"

namespace lp::cli {

namespace {

using json = nlohmann::ordered_json;

// "0,16,32,..." → byte offsets; every item must be a whole decimal integer.
std::vector<int64_t> parse_addresses(const std::string& text, std::string_view option) {
  std::vector<int64_t> out;
  for (const std::string& item : split_commas(text)) {
    int64_t value = 0;
    const char* end = item.data() + item.size();
    auto [ptr, ec] = std::from_chars(item.data(), end, value);
    if (item.empty() || ec != std::errc() || ptr != end)
      throw hw::HwError(fmt::format("{} item {} ('{}') is not an integer byte offset", option, out.size(), item));
    out.push_back(value);
  }
  return out;
}

std::string lane_text(const std::vector<int>& lanes) {
  return lanes.size() > 1 && lanes.back() - lanes.front() + 1 == static_cast<int>(lanes.size())
             ? fmt::format("{}-{}", lanes.front(), lanes.back())
             : fmt::format("{}", fmt::join(lanes, ","));
}

class BanksCommand : public Command {
 public:
  CLI::App* setup(CLI::App& app) override {
    auto* sub = app.add_subcommand("banks", "Exact shared-memory wavefronts of one warp-wide instruction");
    sub->add_option("--arch", arch_, "Architecture: sm_80, sm_90 or sm_100")->default_val(std::string(hw::kDefaultArchName));
    sub->add_option("--instr", instr_, "Instruction, e.g. ld.shared.v4.b32, ldmatrix.x4.trans")->required();
    sub->add_option("--addresses", addresses_,
                    "32 comma-separated byte offsets of lanes 0..31 from a 1024-byte-aligned base")
        ->required();
    sub->add_option("--global-addresses", global_,
                    "cp.async only: 32 comma-separated global byte addresses lanes 0..31 read (default: each phase "
                    "reads one 128-byte line, lanes 2k and 2k+1 one 32-byte sector, as a row-major fill does)");
    sub->add_flag("--json", json_, "Machine-readable output");
    return sub;
  }

  int run() override {
    const hw::Arch& arch = hw::arch_by_name(arch_);
    const hw::SmemInstr& instr = hw::smem_instr(instr_);
    const std::vector<int64_t> shared = parse_addresses(addresses_, "--addresses");
    std::optional<std::vector<int64_t>> global;
    if (!global_.empty()) global = parse_addresses(global_, "--global-addresses");
    const bool bypass = instr.async == hw::AsyncCopy::CacheGlobal;
    // .cg: the global side changes what crosses from L2, not the shared phases.
    const hw::AccessCost cost = global && !bypass ? hw::smem_access_cost(arch, instr, shared, *global)
                                                  : hw::smem_access_cost(arch, instr, shared);
    std::optional<hw::BypassSectors> sectors;
    if (bypass) sectors = hw::bypass_sectors(arch, instr, shared, global);
    if (json_) print_json(cost, sectors);
    else print_text(arch, instr, cost, sectors);
    return kOk;
  }

 private:
  static void print_json(const hw::AccessCost& cost, const std::optional<hw::BypassSectors>& sectors) {
    json phases = json::array();
    for (const hw::PhaseCost& p : cost.phases) {
      json phase{{"lanes", p.lanes}, {"wavefronts", p.wavefronts}, {"bank", p.bank}, {"words", p.words}};
      if (!p.lines.empty()) {
        phase["global_lines"] = p.lines;
        phase["l1_read_load"] = p.read_load;
      }
      phases.push_back(std::move(phase));
    }
    json out{{"wavefronts", cost.wavefronts},
             {"ideal", cost.ideal},
             {"conflict_free", cost.conflict_free},
             {"phases", std::move(phases)}};
    if (sectors) {
      out["l2_sectors"] = sectors->sectors;
      out["l2_sectors_ideal"] = sectors->ideal;
    }
    std::cout << out.dump() << "\n";
  }

  static void print_text(const hw::Arch& arch, const hw::SmemInstr& instr, const hw::AccessCost& cost,
                         const std::optional<hw::BypassSectors>& sectors) {
    std::cout << fmt::format("{} on {}: {} wavefronts, ideal {}, {}{}\n", instr.name, arch.name, cost.wavefronts,
                             cost.ideal, cost.conflict_free ? "conflict-free" : "bank conflicts",
                             cost.merged ? " (load merged)" : "");
    std::cout << fmt::format("{:<6} {:<12} {:>10} {:>5}  {}\n", "phase", "lanes", "wavefronts", "bank",
                             "distinct words of that bank (byte offset / 4)");
    for (size_t k = 0; k < cost.phases.size(); ++k) {
      const hw::PhaseCost& p = cost.phases[k];
      std::cout << fmt::format("{:<6} {:<12} {:>10} {:>5}  {}{}\n", k, lane_text(p.lanes), p.wavefronts, p.bank,
                               fmt::join(p.words, ","),
                               p.lines.empty() ? std::string()
                                               : fmt::format("  (sources in lines {}; busiest L1 bank read {}x)",
                                                             fmt::join(p.lines, ","), p.read_load));
    }
    if (!sectors) return;
    std::cout << fmt::format("L2-to-SM sectors: {}, its data needs {}{}\n", sectors->sectors, sectors->ideal,
                             sectors->split_lane ? fmt::format(" (lanes {} read one global sector; it lands in shared sectors {})",
                                                               fmt::join(sectors->split_lanes, ","),
                                                               fmt::join(sectors->split_shared_sectors, ","))
                                                 : std::string());
    std::cout << "(no hardware counter sees a cp.async.cg's shared writes; the phases above are the model's: docs/hardware.md)\n";
  }

  std::string arch_, instr_, addresses_, global_;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> make_banks_command() { return std::make_unique<BanksCommand>(); }

}  // namespace lp::cli
