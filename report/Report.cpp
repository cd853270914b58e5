#include "report/Report.h"

#include "report/CodeQualityReport.h"
#include "report/JsonReport.h"
#include "report/JunitReport.h"
#include "report/TextReport.h"

namespace lp::report {

std::optional<Format> parse_format(std::string_view name) {
  if (name == "text") return Format::Text;
  if (name == "json") return Format::Json;
  if (name == "sarif") return Format::Sarif;
  if (name == "junit") return Format::Junit;
  if (name == "codequality") return Format::CodeQuality;
  return std::nullopt;
}

std::string render_report(Format format, const CheckRun& run, const SarifOptions& sarif, const TextOptions& text) {
  switch (format) {
    case Format::Text: return text_report(run, text);
    case Format::Json: return json_report(run);
    case Format::Sarif: return sarif_report(run, sarif);
    case Format::Junit: return junit_report(run);
    case Format::CodeQuality: return codequality_report(run);
  }
  return text_report(run);
}

}  // namespace lp::report
