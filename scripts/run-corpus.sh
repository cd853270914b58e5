#!/usr/bin/env bash
# The main job on the bundled corpus: builds LayoutProof, checks every annotated layout under
# corpus/ (the CI gate, `layoutproof check`) and writes its report, then runs the gate with the
# corpus's documented bugs accepted by their baseline (docs/corpus.md), and prints the notation
# examples of corpus/notations/ evaluated and converted.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
# Only what this job runs: the `layoutproof` target, Release (no debug info), no tests. Measured
# from a fresh clone with the packages present, 2 cores, no compiler cache: see README.md.
SECONDS=0
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build build -j"$(nproc)" --target layoutproof
echo "build: ${SECONDS}s"
lp=./build/cli/layoutproof
status=0
"$lp" check corpus/ --no-progress --report build/corpus-report || status=$?
if [[ $status -gt 1 ]]; then exit "$status"; fi
echo "report: build/corpus-report/index.html and build/corpus-report/summary.md"
echo "== the gate with the corpus's documented bugs accepted (corpus/known-findings.baseline.json)"
"$lp" check corpus/ --no-progress --baseline corpus/known-findings.baseline.json
for file in corpus/notations/*.layouts; do
  echo "== $file"
  while IFS= read -r line || [[ -n $line ]]; do
    [[ -z ${line// } || $line == \#* ]] && continue
    echo "layout: $line"
    "$lp" eval "$line" --at 0 --json | sed 's/^/  eval: /'
    for to in cute tirx; do
      out=$("$lp" print "$line" --to "$to" 2>&1) || true
      echo "  $to: $out" | sed '2,$s/^/    /'
    done
  done <"$file"
done
