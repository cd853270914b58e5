#!/usr/bin/env bash
# Generates the replays of the planted bugs and compiles every program with nvcc for sm_80 and
# sm_90a (stmatrix replays for sm_90a only, as their CMakeLists.txt says). Exit 77: no nvcc.
# usage: compile_planted.sh LAYOUTPROOF BUGS.lp OUTDIR
set -euo pipefail
layoutproof=$1 bugs=$2 out=$3
if ! command -v nvcc >/dev/null; then
  echo "nvcc not found on PATH: cannot compile the replay programs" >&2
  exit 77
fi
rm -rf "$out"
mkdir -p "$out"
# check exits 1 because the planted bugs are findings.
"$layoutproof" check "$bugs" --no-cache --format json --output "$out/findings.json" || [[ $? -eq 1 ]]
"$layoutproof" replay "$out/findings.json" --out "$out/replays"
shopt -s nullglob
programs=("$out"/replays/*.cu)
(( ${#programs[@]} >= 5 )) || { echo "expected at least 5 replay programs, got ${#programs[@]}" >&2; exit 1; }
for cu in "${programs[@]}"; do
  name=$(basename "$cu" .cu)
  codes=(-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90a,code=sm_90a)
  grep -q 'stmatrix' "$cu" && codes=(-gencode arch=compute_90a,code=sm_90a)
  echo "nvcc $name"
  nvcc -std=c++17 -O2 "${codes[@]}" -o "$out/replays/$name" "$cu"
done
echo "compiled ${#programs[@]} replay programs"
