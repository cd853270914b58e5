// libFuzzer target: read_ptx (the PTX reader), then the per-lane symbolic evaluation of every
// kernel under small limits, then every recovered address and activity evaluated at each lane.
// Only DiagnosticError may escape the reader; the evaluator reports problems as issues and
// unknowns, never by throwing.
#include <memory>
#include <string>

#include "frontend/ptx/PtxEval.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto src = std::make_shared<lp::SourceText>();
  src->name = "<fuzz>";
  src->text.assign(reinterpret_cast<const char*>(data), size);
  lp::ptx::Module m;
  try {
    m = lp::ptx::read_ptx(src);
  } catch (const lp::DiagnosticError& e) {
    (void)e.diagnostic().render();
    return 0;
  }
  lp::ptx::EvalOptions opt;
  opt.max_steps = 20000;  // keeps each input fast; the budget's own diagnostic is part of the path
  opt.max_call_depth = 4;
  opt.max_probe_depth = 3;
  lp::ptx::Analysis a;
  lp::ptx::analyze(m, opt, a);
  lp::term::Evaluator ev(a.pool);
  for (const auto& k : a.kernels)
    for (const auto& s : k.sites)
      for (int lane = 0; lane < 32; ++lane) {
        ev.set(a.pool.lane_var(), static_cast<uint64_t>(lane));
        (void)ev.eval(s.address);
        (void)ev.eval(s.active);
      }
  return 0;
}
