#!/usr/bin/env bash
# The main job on the bundled corpus: builds LayoutProof, then checks every annotated layout
# under corpus/ (the CI gate, `layoutproof check`), and prints the notation examples of
# corpus/notations/ evaluated and converted.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
lp=./build/cli/layoutproof
"$lp" check corpus/ --no-progress
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
