#!/usr/bin/env bash
# Generates the replay programs of every finding `check` reports on PATHS and compiles each with
# nvcc for sm_80 and sm_90a (stmatrix replays for sm_90a only, as their CMakeLists.txt says), two
# at a time. Exit 77: no nvcc. Paths are checked from the current directory.
# usage: compile_replays.sh LAYOUTPROOF OUTDIR MIN_PROGRAMS PATH...
set -euo pipefail
layoutproof=$1 out=$2 min_programs=$3
shift 3
if ! command -v nvcc >/dev/null; then
  echo "nvcc not found on PATH: cannot compile the replay programs" >&2
  exit 77
fi
rm -rf "$out"
mkdir -p "$out"
# check exits 1 because the findings are there on purpose.
"$layoutproof" check "$@" --no-cache --no-progress --format json --output "$out/findings.json" || [[ $? -eq 1 ]]
"$layoutproof" replay "$out/findings.json" --out "$out/replays"
shopt -s nullglob
programs=("$out"/replays/*.cu)
(( ${#programs[@]} >= min_programs )) ||
  { echo "expected at least $min_programs replay programs, got ${#programs[@]}" >&2; exit 1; }
compile() {
  local cu=$1 codes=(-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90a,code=sm_90a)
  grep -q 'stmatrix' "$cu" && codes=(-gencode arch=compute_90a,code=sm_90a)
  nvcc -std=c++17 -O2 "${codes[@]}" -o "${cu%.cu}" "$cu" && echo "compiled $(basename "$cu")"
}
export -f compile
printf '%s\0' "${programs[@]}" | xargs -0 -n1 -P2 bash -c 'compile "$0"'
echo "compiled ${#programs[@]} replay programs"
