#!/usr/bin/env bash
# Rewrites the CuTe probe outputs of the corpus (corpus/probes/*.lp) from their probes
# (corpus/probes/*.cpp, docs/cute.md) with `layoutproof extract`, against the pinned CuTe headers
# (scripts/install-deps.sh). tests/corpus fails while an output differs from what its probe writes.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
cutlass=${LP_CUTLASS_INCLUDE:-$(python3 -c "import cutlass_library, os; print(os.path.join(os.path.dirname(cutlass_library.__file__), 'source', 'include'))")}
cmake --build "$build" --target layoutproof >/dev/null
for probe in corpus/probes/*.cpp; do
  # Paths relative to the repository root: they are what the outputs' `at` clauses name.
  "$build/cli/layoutproof" extract "$probe" -I "$cutlass" --emit "${probe%.cpp}.lp" >/dev/null
done
