#include "solver/Engines.h"

namespace lp {

z3::solver make_solver(z3::context& ctx, const SolverLimits& limits) {
  z3::set_param("memory_max_size", static_cast<int>(limits.memory_mb));
  z3::solver s(ctx);
  z3::params p(ctx);
  p.set("timeout", limits.z3_timeout_ms());
  s.set(p);
  return s;
}

z3::check_result checked_check(z3::solver& solver, std::string* reason) {
  try {
    z3::check_result r = solver.check();
    if (r == z3::unknown && reason) *reason = "Z3 returned unknown: " + solver.reason_unknown();
    return r;
  } catch (const z3::exception& e) {
    if (reason) *reason = std::string("Z3 gave up: ") + e.msg();
    return z3::unknown;
  }
}

}  // namespace lp
