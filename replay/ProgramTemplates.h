#pragma once
// The pieces every replay program's source is made of, shared by Programs.cpp (LP002, LP009),
// where the helpers are defined, and LayoutPrograms.cpp (LP001, LP004).
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "replay/Replay.h"

namespace lp::replay::detail {

/// `text` with each @NAME@ placeholder replaced by values[NAME].
std::string fill(std::string text, const std::map<std::string, std::string>& values);

template <class T>
std::string c_array(const std::vector<T>& v) {
  std::string s;
  for (size_t k = 0; k < v.size(); ++k) s += (k ? (k % 16 ? ", " : ",\n    ") : "") + std::to_string(v[k]);
  return s;
}

/// The comment that opens a program: the finding it replays and how to build it.
std::string header(const FindingSite& f);

/// The programs' CUDA sources (replay/programs/), embedded at build time.
extern const std::string_view kCudaCheckSource;    ///< cuda_check.cuh: every program starts with it
extern const std::string_view kTimedAccessSource;  ///< timed_access.cuh
extern const std::string_view kFillTimingSource;   ///< fill_timing.cuh
extern const std::string_view kBankConflictSource, kAsyncTimingSource, kInjectivitySource, kCoverageSource;  ///< *.cu.in

}  // namespace lp::replay::detail
