#!/usr/bin/env bash
# The main job on the bundled corpus: builds LayoutProof, then reads every layout listed in
# corpus/notations/*.layouts (one per line, '#' comments), evaluates it exactly and prints it
# in each notation, or the reason that notation cannot say it.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
lp=./build/cli/layoutproof
status=0
for file in corpus/notations/*.layouts; do
  echo "== $file"
  while IFS= read -r line || [[ -n $line ]]; do
    [[ -z ${line// } || $line == \#* ]] && continue
    echo "layout: $line"
    if ! summary=$("$lp" eval "$line" --at 0 --json 2>&1); then
      echo "  $summary" | sed 's/^/  /'
      status=1
      continue
    fi
    echo "  eval:  $summary"
    for to in cute tirx; do
      out=$("$lp" print "$line" --to "$to" 2>&1) || true
      echo "  $to: $out" | sed '2,$s/^/    /'
    done
  done <"$file"
done
exit $status
