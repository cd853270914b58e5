#!/usr/bin/env bash
# Device validation of the PTX front end (docs/ptx.md).
#   scripts/gpu/ptx-ncu.sh build DIR   (here, with nvcc and the CuTe headers) builds DIR/ptx_validate
#                                      and DIR/ptx_validate.ptx, the PTX that `layoutproof check` judges
#   scripts/gpu/ptx-ncu.sh measure DIR OUT   (on the GPU machine) runs DIR/ptx_validate under Nsight
#                                      Compute's SourceCounters and writes the per-SASS-instruction
#                                      table (CSV) into OUT
# scripts/gpu/ptx-ncu-table.py then joins the measurements with `layoutproof check`'s verdicts.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
case "${1:-}" in
  build)
    dir=$2
    mkdir -p "$dir"
    cute=$(python3 -c "import cutlass_library, os; print(os.path.dirname(cutlass_library.__file__))")/source/include
    flags=(-O3 -lineinfo -arch=sm_90 -std=c++17 --expt-relaxed-constexpr -I"$cute")
    nvcc "${flags[@]}" "$root/scripts/gpu/ptx_validate.cu" -o "$dir/ptx_validate"
    nvcc "${flags[@]}" --ptx "$root/scripts/gpu/ptx_validate.cu" -o "$dir/ptx_validate.ptx"
    ;;
  measure)
    dir=$2 out=$3
    mkdir -p "$out"
    ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
    "$dir/ptx_validate"
    "$ncu" --clock-control none --section SourceCounters -f -o "$out/ptx_validate" "$dir/ptx_validate" \
      > "$out/ncu.log" 2>&1
    "$ncu" -i "$out/ptx_validate.ncu-rep" --page source --print-source sass --csv > "$out/sass.csv" 2>>"$out/ncu.log"
    "$ncu" --version >> "$out/ncu.log"
    nvidia-smi --query-gpu=name,driver_version --format=csv >> "$out/ncu.log" 2>&1 || true
    rm -f "$out/ptx_validate.ncu-rep"
    ;;
  *)
    echo "usage: $0 build DIR | measure DIR OUT" >&2
    exit 2
    ;;
esac
