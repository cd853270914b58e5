#!/usr/bin/env python3
"""Tables from a run of scripts/gpu/run_cp_async_probe.sh.

usage: cp_async_results.py OUTDIR CASES.tsv
Writes
  OUTDIR/calibration.tsv  one row per single-warp case: the raw counters of its launch
                          (tests/data/sm90_cp_async_wavefronts.tsv is this file);
  OUTDIR/kernels.tsv      one row per in-kernel variant: its shape, the hardware's shared
                          wavefronts (all, ldmatrix reads = op_ld), L2-to-SM sectors (when the run
                          collected them; docs/data/cp_async_kernel_sectors_h100.tsv), ncu's source-counter sums and
                          the kernel's duration (docs/data/cp_async_kernels_h100.tsv is this file);
and prints both.
"""
import csv
import sys
from collections import defaultdict

TOTAL = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"
LD = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum"
SASS_ESTIMATE = "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum"
L2_SECTORS = "l1tex__m_xbar2l1tex_read_sectors.sum"


def ncu_csv(path):
    """launch ID -> {metric: value} from `ncu --csv` (one row per launch and metric)."""
    out = defaultdict(dict)
    try:
        lines = [l for l in open(path) if l.startswith('"')]
    except FileNotFoundError:
        return out
    for row in csv.DictReader(lines):
        out[int(row["ID"])][row["Metric Name"]] = row["Metric Value"].replace(",", "")
    return out


def ncu_raw(path):
    """launch index -> {metric: value} from `ncu -i REPORT --page raw --csv` (one row per launch)."""
    try:
        rows = list(csv.reader([l for l in open(path) if l.startswith('"')]))
    except FileNotFoundError:
        return {}
    header = rows[0]
    return {k: {h: v.replace(",", "") for h, v in zip(header, r)} for k, r in enumerate(rows[2:])}


def main():
    out, cases_path = sys.argv[1], sys.argv[2]
    cases = list(csv.DictReader(open(cases_path), delimiter="\t"))
    hw = ncu_csv(f"{out}/sw_hw.csv")
    with open(f"{out}/calibration.tsv", "w") as f:
        f.write("id\tinstruction\tlaunch_wavefronts\tldgsts_bank_conflicts\tncu_sass_estimate\tlaunch_l2_sectors\trepeat\t"
                "shared_step\tglobal_step\tshared_byte_offsets\tglobal_byte_offsets\tdescription\n")
        for k, c in enumerate(cases):
            m = hw.get(k, {})
            f.write("\t".join([c["id"], c["instruction"], m.get(TOTAL, "-"), m.get(CONFLICTS, "-"), m.get(SASS_ESTIMATE, "-"),
                               m.get(L2_SECTORS, "-"), c["repeat"], c["shared_step"], c["global_step"], c["shared_byte_offsets"],
                               c["global_byte_offsets"], c["description"]]) + "\n")
    variants = list(csv.DictReader(open(f"{out}/variants.tsv"), delimiter="\t"))
    khw, raw = ncu_csv(f"{out}/k_hw.csv"), ncu_raw(f"{out}/k_sc_raw.csv")
    keep = ["name", "instruction", "warps", "rows", "row_bytes", "pitch", "swizzle", "stages", "reads", "grid", "tiles",
            "gstride", "goff", "ldgsts_warp_executions"]
    with open(f"{out}/kernels.tsv", "w") as f:
        f.write("\t".join(keep + ["hw_shared_wavefronts", "hw_shared_op_ld", "hw_l2_sectors", "ncu_source_wavefronts",
                                  "ncu_source_ideal", "duration_us", "description"]) + "\n")
        for k, v in enumerate(variants):
            m, r = khw.get(k, {}), raw.get(k, {})
            f.write("\t".join([v[c] for c in keep] + [m.get(TOTAL, "-"), m.get(LD, "-"), m.get(L2_SECTORS, "-"),
                                                      r.get("memory_l1_wavefronts_shared", "-"),
                                                      r.get("memory_l1_wavefronts_shared_ideal", "-"),
                                                      r.get("gpu__time_duration.sum", "-"), v["description"]]) + "\n")
    for name in ("calibration.tsv", "kernels.tsv"):
        print(f"== {name}")
        for line in open(f"{out}/{name}"):
            cols = line.rstrip("\n").split("\t")
            print("\t".join(c for c in cols if len(c) < 40))


if __name__ == "__main__":
    main()
