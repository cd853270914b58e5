#!/usr/bin/env bash
# Measures, on this machine's GPU, the clock64 cycles and the ncu wavefronts of shared-memory
# accesses with known conflicts (scripts/gpu/clock64_calib.cu), for calibrating or judging the
# clock64 fallback of `layoutproof replay` (docs/replay-results.md).
# usage: scripts/gpu/calibrate-clock64.sh OUTDIR   -> OUTDIR/calib.tsv, OUTDIR/calib_ncu.csv
set -euo pipefail
out=$1
mkdir -p "$out"
tool() { command -v "$1" || ls /usr/local/cuda/bin/"$1" 2>/dev/null || ls -d /opt/nvidia/nsight-compute/*/"$1" 2>/dev/null | tail -1; }
nvcc=$(tool nvcc) ncu=$(tool ncu)
here=$(dirname "$0")
"$nvcc" -std=c++17 -O2 -arch=sm_90a -o /tmp/lp_clock64_calib "$here/clock64_calib.cu"
/tmp/lp_clock64_calib >"$out/calib.tsv"
"$ncu" --clock-control none --csv --log-file "$out/calib_ncu.csv" \
  --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum \
  /tmp/lp_clock64_calib --ncu-pass >/dev/null
cat "$out/calib.tsv"
