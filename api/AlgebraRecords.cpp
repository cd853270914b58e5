#include "api/AlgebraRecords.h"

namespace lp::api {

using json = nlohmann::ordered_json;

json witness_record(const algebra::Witness& w) {
  json j;
  j["domain"] = w.domain;
  j["index"] = w.index ? json(*w.index) : json(nullptr);
  j["coordinate"] = w.index ? json(w.coordinate) : json(nullptr);
  j["expected_is"] = w.expected_label;
  j["expected"] = w.expected;
  j["actual_is"] = w.actual_label;
  j["actual"] = w.actual;
  return j;
}

json algebra_record(const std::string& op, const algebra::Outcome& o) {
  const algebra::Check& c = o.check;
  auto witness = [](const std::optional<algebra::Witness>& w) { return w ? witness_record(*w) : json(nullptr); };
  json out;
  out["op"] = op;
  out["result"] = o.text ? json(*o.text) : json(nullptr);
  // Decided or not: an undecided operation is neither legal nor illegal.
  out["legal"] = c.verdict == algebra::Verdict::Unknown ? json(nullptr) : json(c.verdict == algebra::Verdict::Legal);
  out["verdict"] = algebra::verdict_name(c.verdict);
  out["reason"] = c.reason;
  out["witness"] = witness(c.witness);
  out["notes"] = json::array();
  for (const algebra::ContractNote& n : c.notes)
    out["notes"].push_back({{"kind", algebra::note_kind_name(n.kind)}, {"message", n.message}, {"witness", witness(n.witness)}});
  out["engines"] = json(std::vector<std::string>(c.engines.begin(), c.engines.end()));
  return out;
}

}  // namespace lp::api
