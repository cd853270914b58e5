#!/usr/bin/env bash
# Replays every finding of FINDINGS.json on this machine's GPU (`layoutproof replay --run`) and
# writes, into OUTDIR (keep it small: a device call brings back at most 8 files):
#   results.jsonl          one JSON object per finding: rule, file, line, replayed, method,
#                          predicted, measured, agrees (yes/no/null), device, why
#   results.md             the table for docs/replay-results.md (scripts/gpu/replay-table.py)
#   replay.log             everything `replay --run` printed (each program's output)
#   findings.replayed.json the findings with their "replay" records
#   replays.tar.gz         the generated programs (.cu, README.md, CMakeLists.txt)
# The binary: $LAYOUTPROOF, else .gpu-bundle/layoutproof (scripts/gpu/bundle.sh), else the
# build's bundle build-release/bundle/layoutproof, else layoutproof on PATH. ARCH (default sm_90a) is nvcc's -arch.
# Exit status: that of `replay --run` (0: every replayed finding agrees), 2 for a usage error.
# usage: scripts/gpu/replay-findings.sh FINDINGS.json OUTDIR
set -uo pipefail
[[ $# -eq 2 && -f $1 ]] || { echo "usage: $0 FINDINGS.json OUTDIR" >&2; exit 2; }
findings=$(readlink -f "$1")
out=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
lp=${LAYOUTPROOF:-}
for c in "$root/.gpu-bundle/layoutproof" "$root/build-release/bundle/layoutproof" "$(command -v layoutproof || true)"; do
  [[ -z $lp && -n $c && -x $c ]] && lp=$c
done
[[ -n $lp ]] || { echo "replay-findings: no layoutproof binary (run scripts/gpu/bundle.sh here first)" >&2; exit 2; }
mkdir -p "$out"
work=$(mktemp -d /tmp/lp-replays.XXXXXX)
echo "layoutproof: $lp; findings: $findings; programs in $work" | tee "$out/replay.log"
"$lp" replay "$findings" --out "$work" --run --arch "${ARCH:-sm_90a}" 2>&1 | tee -a "$out/replay.log"
rc=${PIPESTATUS[0]}
tar -czf "$out/replays.tar.gz" -C "$work" --exclude='*.o' $(cd "$work" && ls *.cu README.md CMakeLists.txt 2>/dev/null)
if [[ -f $work/findings.replayed.json ]]; then
  cp "$work/findings.replayed.json" "$out/"
  python3 "$root/scripts/gpu/replay-table.py" --jsonl "$out/results.jsonl" "$work/findings.replayed.json" >"$out/results.md"
  cat "$out/results.md"
else
  echo "replay-findings: replay --run wrote no findings.replayed.json (exit $rc); see $out/replay.log" >&2
fi
echo "replay --run exit status: $rc"
exit "$rc"
