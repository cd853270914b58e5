#!/usr/bin/env bash
# After corpus entries change: rewrites corpus/known-findings.baseline.json from what `check`
# finds and the entry table of docs/corpus.md from the entries' headers. The corpus tests
# (tests/corpus) then check that every verdict holds.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
cmake --build "$build" --target layoutproof lp_corpus_tests >/dev/null
"$build/cli/layoutproof" check corpus/ --no-cache --no-progress --write-baseline corpus/known-findings.baseline.json \
  >/dev/null || true
LP_UPDATE_CORPUS_DOC=1 "$build/tests/corpus/lp_corpus_tests" "docs/corpus.md lists every corpus entry" >/dev/null
"$build/tests/corpus/lp_corpus_tests" "[corpus]"
