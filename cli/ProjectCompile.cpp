#include "cli/ProjectCompile.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "analyzer/support/Governor.h"
#include "analyzer/support/Parallel.h"
#include "analyzer/support/ReadFile.h"

namespace lp::cli {

namespace fs = std::filesystem;

std::string shown_path(const std::string& path) {
  std::error_code ec;
  const fs::path here = fs::current_path(ec);
  const fs::path p = fs::absolute(path, ec).lexically_normal();
  return !ec && lies_within(p, here) ? p.lexically_relative(here).string() : p.string();
}

std::vector<UnitPtx> compile_units(const std::vector<cuda::CompileUnit>& units, const ProjectCompileOptions& options,
                                   const std::string& scratch_dir) {
  std::vector<UnitPtx> out;
  std::map<std::string, int> names;  // a file compiled with two sets of flags gets two names
  for (const cuda::CompileUnit& u : units) {
    std::vector<std::optional<std::string>> archs;
    if (options.arch) archs.push_back(options.arch);
    else if (u.archs.empty()) archs.push_back(std::nullopt);
    else archs.assign(u.archs.begin(), u.archs.end());
    const std::string shown = shown_path(u.file);
    for (const auto& arch : archs) {
      UnitPtx p;
      p.unit = &u;
      p.arch = arch;
      // Under the kept directory the PTX mirrors the source's path: src/a.cu -> DIR/src/a.cu.sm_90.ptx.
      const fs::path rel = fs::path(shown).is_absolute() ? fs::path(shown).relative_path() : fs::path(shown);
      std::string name = rel.string() + "." + arch.value_or("default");
      if (const int n = ++names[name]; n > 1) name += fmt::format(".{}", n);
      const fs::path dir = options.keep_dir ? fs::path(*options.keep_dir) : fs::path(scratch_dir) / "ptx";
      p.ptx_path = (dir / (name + ".ptx")).string();
      p.shown_as = options.keep_dir ? p.ptx_path : fmt::format("<PTX of {} for {}>", shown, arch.value_or("nvcc's default architecture"));
      out.push_back(std::move(p));
    }
  }
  const unsigned jobs = std::max(1u, std::min<unsigned>(options.jobs, static_cast<unsigned>(out.size())));
  // The compiles at once share the run's memory budget: each gets its part.
  Budget share = current_budget();
  if (share.memory_bytes && jobs > 1) {
    *share.memory_bytes /= jobs;
    share.memory_name = fmt::format("its share of {} ({} compiles at once)", share.memory_name, jobs);
  }
  parallel_for(out.size(), jobs, [&](size_t k) {
    UnitPtx& p = out[k];
    BudgetScope scope(share);
    // Each compile's preprocessed host code in a directory of its own.
    const std::string own = (fs::path(scratch_dir) / fmt::format("unit-{}", k)).string();
    std::error_code ec;
    fs::create_directories(fs::path(p.ptx_path).parent_path(), ec);
    fs::create_directories(own, ec);
    PtxCompileJob job{p.unit->file, p.unit->directory, p.unit->flags, options.extra_flags, p.arch, p.ptx_path, own};
    try {
      p.compiled = compile_cuda_to_ptx(job);
    } catch (const CudaCompileError& e) {
      p.error = e;
    }
  });
  return out;
}

}  // namespace lp::cli
