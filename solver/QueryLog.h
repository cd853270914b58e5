#pragma once
// Recording the proof obligations a run decides, so that a benchmark can re-run each one with
// every engine (`layoutproof bench`). Off unless a recorder is installed; recording copies the
// query's inputs and never changes what the provers compute.
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "solver/Result.h"

namespace lp {

enum class Property { Injectivity, Coverage, Composition, BankConflicts };
/// The properties' names in query logs.
inline constexpr Vocabulary<Property, 4> kPropertyNames{{{Property::Injectivity, "injectivity"},
                                                          {Property::Coverage, "coverage"},
                                                          {Property::Composition, "composition"},
                                                          {Property::BankConflicts, "bank-conflicts"}}};
const char* property_name(Property p);

/// One re-run: the outcome and what else must agree between engines (the wavefronts and ideal
/// of a bank-conflict proof; empty for the other properties).
struct Rerun {
  Outcome outcome;
  std::string detail;
};

struct RecordedQuery {
  Property property;
  std::string label;  ///< the layout(s) as printed, for the report and for de-duplication
  std::function<Rerun(Engine, const SolverLimits&)> run;
};

class QueryRecorder {
 public:
  void add(RecordedQuery q);
  std::vector<RecordedQuery> take();

 private:
  std::mutex mutex_;
  std::vector<RecordedQuery> queries_;
};

/// While a recorder is installed (process-wide), every prove_* call adds a re-runnable copy of
/// its query to it. Install nullptr before re-running recorded queries.
void set_query_recorder(QueryRecorder* recorder);
QueryRecorder* query_recorder();

/// A short printed form of a layout for labels (CuTe, else TIRx, else "<layout>").
std::string layout_label(const class Layout& layout);

}  // namespace lp
