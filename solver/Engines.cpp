#include "solver/Engines.h"

namespace lp {

Z3Context::Z3Context(const SolverLimits& limits) {
  z3::set_param("memory_max_size", static_cast<int>(limits.memory_mb));
  Z3_config cfg = Z3_mk_config();
  raw_ = Z3_mk_context_rc(cfg);
  Z3_del_config(cfg);
  if (!raw_) throw z3::exception("out of memory: Z3 could not create a context under its memory cap");
  view_.emplace(raw_);
}

Z3Context::~Z3Context() {
  view_.reset();
  Z3_del_context(raw_);
}

z3::solver make_solver(z3::context& ctx, const SolverLimits& limits) {
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
