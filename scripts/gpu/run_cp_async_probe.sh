#!/usr/bin/env bash
# Measures cp.async on a Hopper GPU: the single-warp probe (cp_async_probe.cu, one launch per case
# of a cases TSV), the in-kernel variants (cp_async_kernel.cu) and the fill throughput
# (cp_async_bw.cu), with Nsight Compute's hardware counters per launch, its source counters, and
# time. docs/hardware.md, "cp.async", gives the results and what they show.
#
# usage: scripts/gpu/run_cp_async_probe.sh OUTDIR CASES.tsv [BINDIR]
#   CASES.tsv: scripts/gpu/cp_async_form_cases.tsv (make_cp_async_cases.py writes it).
#   BINDIR: prebuilt cp_async_probe, cp_async_kernel and cp_async_bw (else they are built here).
#   STEPS (environment): the steps to run, default "sw_hw k_hw k_hot k_sc timing":
#     sw_hw   single warp, hardware counters            -> sw_hw.csv (one row per launch and metric)
#     k_hw    kernels, hardware counters, L2 flushed     -> k_hw.csv
#     k_hot   kernels launched twice, caches kept        -> k_hot.csv
#     k_sc    kernels, source counters (SASS-patched)    -> k_sc_raw.csv (per kernel), k_source.csv
#             (per instruction, the first kernel)
#     timing  cp_async_bw and `cp_async_kernel time`     -> bw.tsv, k_time.tsv
# Also writes metrics.txt (the counters asked for), query.txt, sass.txt, variants.tsv and log.txt;
# scripts/gpu/cp_async_results.py turns the counters into tests/data/sm90_cp_async_wavefronts.tsv
# and docs/data/cp_async_kernels_h100.tsv.
set -uo pipefail
if [[ $# -lt 2 ]]; then
  echo "usage: $0 OUTDIR CASES.tsv [BINDIR]" >&2
  exit 2
fi
out=$1
cases=$2
here=$(cd "$(dirname "$0")" && pwd)
bin=${3:-$out/bin}
steps=" ${STEPS:-sw_hw k_hw k_hot k_sc timing} "
mkdir -p "$out" "$bin"
log="$out/log.txt"
say() { echo "[$(date +%T)] $*" | tee -a "$log"; }
want() { [[ $steps == *" $1 "* ]]; }

for p in cp_async_probe cp_async_kernel cp_async_bw; do
  [[ -x $bin/$p ]] || nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -lineinfo -std=c++17 -o "$bin/$p" "$here/$p.cu" || exit 1
done
ncu=$(command -v ncu || ls -d /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | tail -1)
[[ -x $ncu ]] || { echo "no ncu" >&2; exit 1; }
say "ncu: $ncu ($("$ncu" --version | tail -1)); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
for p in cp_async_probe cp_async_kernel cp_async_bw; do cuobjdump -sass "$bin/$p"; done |
  awk '/Function :/ {fn=$3} /(LDS|STS|LDSM|STSM|LDGSTS)/ && !/@!PT/ {match($0, /(LDS|STS|LDSM|STSM|LDGSTS)[.A-Z0-9_]*/); print fn "\t" substr($0, RSTART, RLENGTH)}' \
  >"$out/sass.txt"
"$bin/cp_async_kernel" list >"$out/variants.tsv"

# The counters: every shared-memory wavefront and bank-conflict counter of the LSU pipe, every
# LDGSTS counter, and the counters of the path by which L2 data reaches the SM and its data banks
# (the .cg writes take it); names differ between ncu versions, so they are looked up.
"$ncu" --query-metrics --chip gh100 >"$out/query.txt" 2>&1
python3 - "$out/query.txt" >"$out/metrics.txt" <<'PY'
import re, sys
names = set()
for line in open(sys.argv[1]):
    m = re.match(r"^(\S+)\s", line)
    if m:
        names.add(m.group(1))
want = [n for n in sorted(names)
        if ("ldgsts" in n and not n.startswith("sm__sass") and "average" not in n and "hit_rate" not in n)
        or n == "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts"
        or re.match(r"l1tex__data_(pipe_lsu_wavefronts|bank_conflicts_pipe_lsu)_mem_shared(_op_(ld|st))?$", n)
        or re.match(r"l1tex__(data_bank_(reads|writes)|m_xbar2l1tex_read_(sectors|bytes)|m_l1tex2xbar_req"
                    r"|data_pipe_lsu_wavefronts|f_wavefronts|lsu_writeback_active|data_pipe_lsu_wavefronts_mem_lg)$", n)]
print(",".join(n + ".sum" for n in want[:40]))
PY
metrics=$(cat "$out/metrics.txt")
base=l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
base+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
base+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
[[ -n $metrics ]] || metrics=$base
say "metrics: $metrics"
# ncu with the looked-up counters, else with the five every Hopper ncu has. Application replay:
# each pass reruns the program, so nothing is saved and restored between passes.
profile() {
  local limit=$1
  shift
  timeout "$limit" "$ncu" --replay-mode application --clock-control none --metrics "$metrics" "$@"
  local rc=$?
  [[ $rc -eq 0 || $rc -eq 124 ]] && return $rc
  say "ncu failed ($rc) with the looked-up counters; again with $base"
  timeout "$limit" "$ncu" --replay-mode application --clock-control none --metrics "$base" "$@"
}
names=$(tail -n +2 "$out/variants.tsv" | cut -f1 | tr '\n' ' ')

if want sw_hw; then
  say "single warp, hardware counters"
  profile 120 --csv --log-file "$out/sw_hw.csv" "$bin/cp_async_probe" "$cases" >"$out/sw_launches.tsv" 2>>"$log" ||
    say "single-warp run failed ($?)"
fi
if want k_hw; then
  say "kernels, hardware counters"
  profile 100 --csv --log-file "$out/k_hw.csv" "$bin/cp_async_kernel" run $names >>"$log" 2>&1 || say "kernel run failed ($?)"
fi
if want k_hot; then
  hot="cg16_p144 cg16_p144 cg16_swz128 cg16_swz128 cg16_p144_noread cg16_p144_noread llama_k_d64 llama_k_d64"
  say "kernels, caches kept"
  profile 40 --cache-control none --csv --log-file "$out/k_hot.csv" "$bin/cp_async_kernel" run $hot >>"$log" 2>&1 ||
    say "hot run failed ($?)"
fi
if want k_sc; then
  say "kernels, source counters"
  timeout 130 "$ncu" --replay-mode application --clock-control none --section SourceCounters --metrics "$base" -f \
    -o "$out/k_sc" "$bin/cp_async_kernel" run $names >>"$log" 2>&1 || say "kernel source counters failed ($?)"
  "$ncu" -i "$out/k_sc.ncu-rep" --page raw --csv >"$out/k_sc_raw.csv" 2>>"$log" || say "raw page export failed"
  "$ncu" -i "$out/k_sc.ncu-rep" --page source --csv --print-source sass --launch-count 1 >"$out/k_source.csv" 2>>"$log" ||
    say "source page export failed"
fi
if want timing; then
  say "fill throughput and kernel durations"
  "$bin/cp_async_bw" >"$out/bw.tsv" 2>>"$log" || say "cp_async_bw failed ($?)"
  "$bin/cp_async_kernel" time $names >"$out/k_time.tsv" 2>>"$log" || say "kernel timing failed ($?)"
fi
say "done"
