#pragma once
// One loop run on several threads: what the checker does for the files of a run and for the
// instructions of a compiled kernel. Every worker works under the calling thread's budget
// (Governor.h), and the first exception a body throws is rethrown to the caller once every worker
// has stopped.
#include <cstddef>
#include <functional>

namespace lp {

/// Calls body(i) for every i in [0, n), on up to `jobs` threads (the caller's among them), each
/// index once; the order of the calls is not defined.
void parallel_for(size_t n, unsigned jobs, const std::function<void(size_t)>& body);

}  // namespace lp
