// Writes the fixture runs in every format into DIR (argv[1]), for validate_outputs.py: the
// schema check and the XML check run on exactly what the library produces.
#include <fstream>
#include <iostream>

#include "Fixtures.h"
#include "report/Baseline.h"
#include "report/Fold.h"
#include "report/Report.h"

int main(int argc, char** argv) {
  using namespace lp::report;
  if (argc != 2) {
    std::cerr << "usage: lp_report_samples DIR\n";
    return 2;
  }
  CheckRun baselined = test::sample_run();
  Baseline b;
  b.entries = {{"LP002", "kernels/gemm.cu", "LP002:kernels/gemm.cu:access ldmatrix.x4 sA", ""}};
  apply_baseline(baselined, b);
  CheckRun folded = test::compiled_run();
  fold_findings(folded, true);
  const std::pair<const char*, CheckRun> runs[] = {{"sample", test::sample_run()}, {"hostile", test::hostile_run()},
                                                   {"baselined", baselined},       {"empty", CheckRun{}},
                                                   {"compiled", folded}};
  SarifOptions sarif;
  sarif.source_root = "/src/repo";
  sarif.information_uri = "https://layoutproof.example/";
  sarif.help_uri_base = "https://layoutproof.example/blob/main/";
  const std::pair<const char*, Format> formats[] = {
      {"txt", Format::Text}, {"json", Format::Json}, {"sarif", Format::Sarif}, {"xml", Format::Junit}};
  for (const auto& [name, run] : runs)
    for (const auto& [ext, format] : formats) {
      std::string path = std::string(argv[1]) + "/" + name + "." + ext;
      std::ofstream out(path, std::ios::binary);
      out << render_report(format, run, sarif);
      if (!out) {
        std::cerr << "cannot write " << path << "\n";
        return 1;
      }
    }
  return 0;
}
