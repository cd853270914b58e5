#!/usr/bin/env bash
# Measures shared-memory wavefronts on the GPU the way tests/data/sm90_smem_wavefronts.tsv was measured (one warp, one
# instruction per launch, Nsight Compute's shared-memory wavefront counters), and prints
# measured against predicted for every case.
#
# usage: scripts/gpu/run_smem_probe.sh OUTDIR CASES.tsv [CASES.tsv ...]
#   CASES.tsv: id, instruction, expected wavefronts (the model's prediction, or a measurement
#   for the calibration file), 32 comma-separated lane byte offsets, description.
# Needs nvcc (sm_90a), ncu and python3 on a Hopper GPU. Writes OUTDIR/results.tsv (id,
# instruction, expected, measured, ncu's bank conflicts, match), OUTDIR/sass.txt (the shared-
# memory opcodes of each probe kernel) and the raw ncu CSV; exits 1 if any case mismatches.
set -euo pipefail
if [[ $# -lt 2 ]]; then
  echo "usage: $0 OUTDIR CASES.tsv [CASES.tsv ...]" >&2
  exit 2
fi
out=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"

# One file of cases, in launch order.
cases="$out/cases.tsv"
printf 'id\tinstruction\texpected\tlane_byte_offsets\tdescription\n' >"$cases"
for f in "$@"; do tail -n +2 "$f" | grep -v '^$' >>"$cases"; done

nvcc -arch=sm_90a -O2 -std=c++17 -o "$out/smem_probe" "$here/smem_probe.cu"
# The SASS must hold the intended instruction and no other shared-memory access.
cuobjdump -sass "$out/smem_probe" |
  awk '/Function :/ {fn=$3} /(LDS|STS|LDSM|STSM|LDGSTS)/ {match($0, /(LDS|STS|LDSM|STSM|LDGSTS)[.A-Z0-9_]*/); print fn "\t" substr($0, RSTART, RLENGTH)}' \
  >"$out/sass.txt" || true

metrics=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
ncu --clock-control none --metrics "$metrics" --csv --log-file "$out/ncu.csv" "$out/smem_probe" "$cases" >"$out/launches.tsv"

python3 - "$cases" "$out/ncu.csv" "$out/results.tsv" <<'PY'
import csv, sys
cases_path, ncu_path, results_path = sys.argv[1:4]
cases = [row for row in csv.reader(open(cases_path), delimiter="\t")][1:]
metrics = {}  # launch ID -> {metric name: value}
lines = [l for l in open(ncu_path) if l.startswith('"')]
for row in csv.DictReader(lines):
    value = row["Metric Value"].replace(",", "")
    metrics.setdefault(int(row["ID"]), {})[row["Metric Name"]] = float(value) if value else 0.0
if len(metrics) != len(cases):
    sys.exit(f"ncu reported {len(metrics)} launches for {len(cases)} cases")
bad = 0
with open(results_path, "w") as out:
    out.write("id\tinstruction\texpected\tmeasured\tbank_conflicts\tmatch\n")
    for launch, case in enumerate(cases):
        cid, instr, expected = case[0], case[1], int(case[2])
        m = metrics[launch]
        kind = "ld" if instr.startswith("ld") else "st"
        measured = m[f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{kind}.sum"]
        conflicts = int(m[f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{kind}.sum"])
        ok = int(measured) == expected
        bad += not ok
        out.write(f"{cid}\t{instr}\t{expected}\t{int(measured)}\t{conflicts}\t{'yes' if ok else 'NO'}\n")
print(f"{len(cases) - bad} of {len(cases)} cases match; results in {results_path}")
sys.exit(1 if bad else 0)
PY
