#!/usr/bin/env python3
"""The zero-fill cp.async measurements as tables (docs/ptx.md, "cp.async with zero-fill").

  zfill-table.py forms SASS_CSV OUT_TSV
      SASS_CSV: Nsight Compute's per-SASS-instruction source counters of scripts/gpu/zfill_probe.cu
      (scripts/gpu/kernels-ncu.sh measure); one row per form: copy bytes, source-size pattern,
      destination stride, .ca/.cg, the SASS opcode, and the shared wavefronts, their ideal and the
      L2 sectors of the 4 warps.
  zfill-table.py masks LAUNCHES SASS_CSV OUT_TSV
      LAUNCHES: scripts/gpu/zfill_masks.cu's stdout; SASS_CSV: its source counters (one profiled
      result per launch, in launch order); one row per launch: the mask (bit l = lane l copies), the
      destination stride, .ca/.cg, the warps, and the same counters.

ncu lists each kernel's instructions once per result; a predicated-off instruction counts as
executed, so the instruction measured is the one with shared wavefronts (or, for masks, the one
of the launch's cache qualifier: LDGSTS...BYPASS is .cg).
"""
import csv
import re
import sys

SOURCES = "Plain Full Zero Half ColMask RowMask Alternate Scatter Partial Mixed Ignore".split()
COLUMNS = ["L1 Wavefronts Shared", "L1 Wavefronts Shared Ideal", "L2 Theoretical Sectors Global"]


def results(path):
    """[(kernel name, [(sass, {column: value})])] in the file's order."""
    out, header = [], None
    for row in csv.reader(open(path, newline="")):
        if row and row[0] == "Kernel Name":
            out.append((row[1], []))
            header = None
        elif row and row[0] == "Address":
            header = row
        elif header and len(row) > 1 and "LDGSTS" in row[1]:
            out[-1][1].append((row[1].strip(), dict(zip(header, row))))
    return out


def forms(sass_csv, out_tsv):
    rows = {}
    for name, instrs in results(sass_csv):
        m = re.search(r"zfill<\(int\)(\d+), \(int\)(\d+), \(int\)(\d+), \(bool\)(\d)>", name)
        key = (m[1], SOURCES[int(m[2])], m[3], "cg" if m[4] == "1" else "ca")
        for sass, d in instrs:
            if int(d["L1 Wavefronts Shared"]) > 0:
                rows[key] = [sass.split()[0]] + [d[c] for c in COLUMNS]
    with open(out_tsv, "w") as f:
        f.write("bytes\tsource_size\tdst_stride\tcache\tsass\twavefronts\tideal\tl2_sectors\n")
        for key, v in rows.items():
            f.write("\t".join(list(key) + v) + "\n")


def masks(launches, sass_csv, out_tsv):
    launch_rows = [line.split() for line in open(launches) if line.startswith("launch ")]
    res = results(sass_csv)
    # ncu 2025.3 lists a templated kernel's source view twice, identically: one of each pair.
    if len(res) == 2 * len(launch_rows) and all(res[k] == res[k + 1] for k in range(0, len(res), 2)):
        res = res[::2]
    if len(res) != len(launch_rows):
        sys.exit(f"{len(launch_rows)} launches but {len(res)} profiled results")
    with open(out_tsv, "w") as f:
        f.write("mask\tdst_stride\tcache\twarps\twavefronts\tideal\tl2_sectors\n")
        for (_, i, mask, stride, cache, warps), (_, instrs) in zip(launch_rows, res):
            (sass, d), = [(s, d) for s, d in instrs if ("BYPASS" in s) == (cache == "cg")]
            f.write("\t".join([mask, stride, cache, warps] + [d[c] for c in COLUMNS]) + "\n")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "forms":
        forms(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "masks":
        masks(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
