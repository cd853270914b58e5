#include "solver/QueryLog.h"

#include <atomic>

#include "analyzer/ir/Print.h"

namespace lp {

namespace {
std::atomic<QueryRecorder*> g_recorder{nullptr};
}

const char* property_name(Property p) { return vocabulary_name(kPropertyNames, p, "?"); }

void QueryRecorder::add(RecordedQuery q) {
  std::lock_guard<std::mutex> lock(mutex_);
  queries_.push_back(std::move(q));
}

std::vector<RecordedQuery> QueryRecorder::take() {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::move(queries_);
}

void set_query_recorder(QueryRecorder* recorder) { g_recorder.store(recorder); }
QueryRecorder* query_recorder() { return g_recorder.load(); }

std::string layout_label(const Layout& layout) {
  try {
    return print_cute(layout).text;
  } catch (const std::exception&) {
  }
  try {
    return print_tirx(layout).text;
  } catch (const std::exception&) {
  }
  return "<layout>";
}

}  // namespace lp
