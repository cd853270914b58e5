#!/usr/bin/env bash
# Nsight Compute's source counters of whole CUDA programs, per SASS instruction and per CUDA source
# line, for comparing `layoutproof check --cuda`'s verdicts with the hardware (docs/ptx.md,
# "Kernels as they are launched").
#   scripts/gpu/kernels-ncu.sh measure OUT FILE.cu...   (on the GPU machine) builds each FILE.cu with
#       nvcc -O3 -lineinfo -arch=sm_90 beside it, runs it under ncu's SourceCounters section and writes
#       OUT/NAME-cuda.csv (ncu --page source --print-source cuda: one row per source line) and
#       OUT/NAME-sass.csv (one row per SASS instruction), and OUT/ncu.log
# scripts/gpu/kernels-ncu-table.py joins the rows with the checker's verdicts.
set -uo pipefail
case "${1:-}" in
  measure)
    out=$2
    shift 2
    mkdir -p "$out"
    ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
    log="$out/ncu.log"
    { "$ncu" --version; nvidia-smi --query-gpu=name,driver_version --format=csv; } >> "$log" 2>&1
    for cu in "$@"; do
      name=$(basename "$cu" .cu)
      exe="$(dirname "$cu")/$name.ncu-exe"
      echo "== $name" >> "$log"
      if ! nvcc -O3 -lineinfo -arch=sm_90 "$cu" -o "$exe" >> "$log" 2>&1; then
        echo "$name: nvcc failed" >> "$log"
        continue
      fi
      "$ncu" --clock-control none --section SourceCounters --import-source yes -f -o "$out/$name" "$exe" >> "$log" 2>&1
      "$ncu" -i "$out/$name.ncu-rep" --page source --print-source cuda --csv > "$out/$name-cuda.csv" 2>> "$log"
      "$ncu" -i "$out/$name.ncu-rep" --page source --print-source sass --csv > "$out/$name-sass.csv" 2>> "$log"
      rm -f "$out/$name.ncu-rep" "$exe"
    done
    ;;
  *)
    echo "usage: $0 measure OUT FILE.cu..." >&2
    exit 2
    ;;
esac
