#!/usr/bin/env python3
"""LayoutProof against Triton's own bank-conflict count, on Gluon layout pairs (docs/triton.md).

For every (register layout, shared layout, element type) pair below and both directions
(ttg.local_store, ttg.local_load), on sm_90 with 4 warps:
  - the instruction Triton's lowering uses and LayoutProof's wavefronts for the worst issue
    (layoutproof.triton.prove_conflict_free);
  - Triton's count (get_shared_bank_conflicts: extra wavefronts per wavefront of a plain
    ld/st.shared), as wavefronts: (count + 1) x the ideal;
  - the worst issue's 32 lane byte offsets at the worst base, written as a probe case
    (scripts/gpu/run_smem_probe.sh measures them on a GPU).

usage: scripts/triton-bank-table.py [--cases OUT.tsv] [--measured results.tsv] > table.md
  --measured: run_smem_probe.sh's results.tsv for the cases; fills the "measured" column.
Needs the Python module (build/python/package on PYTHONPATH) and Triton (tested with 3.9.0).
"""
import argparse
import csv
import sys

from triton.experimental.gluon import language as gl

import layoutproof as lp
import layoutproof.triton as lpt

SHAPE = [64, 64]
MMA_V3 = gl.NVMMADistributedLayout([3, 0], [4, 1], [16, 64, 16])
MMA_V2 = gl.NVMMADistributedLayout([2, 0], [2, 2], [16, 8])
REGISTER = {
    "blocked [1,8] row": gl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0]),
    "blocked [1,4] row": gl.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0]),
    "blocked [1,2] row": gl.BlockedLayout([1, 2], [2, 16], [4, 1], [1, 0]),
    "blocked [1,1] row": gl.BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0]),
    "blocked [8,1] col": gl.BlockedLayout([8, 1], [8, 4], [1, 4], [0, 1]),
    "blocked [2,2] row": gl.BlockedLayout([2, 2], [4, 8], [2, 2], [1, 0]),
    "mma v3": MMA_V3,
    "mma v2": MMA_V2,
    "dot0 v2 k2": gl.DotOperandLayout(0, MMA_V2, 2),
    "dot1 v2 k2": gl.DotOperandLayout(1, MMA_V2, 2),
    "blocked [1,1] col": gl.BlockedLayout([1, 1], [32, 1], [1, 4], [0, 1]),
    # Lanes t and t^1 (t^2) hold the same elements: sm_90 merges their 64/128-bit loads.
    "linear, lanes t^1 alike": gl.DistributedLinearLayout(
        reg_bases=[[0, 1], [0, 2], [0, 4], [8, 0], [16, 0], [32, 0]],
        lane_bases=[[0, 0], [0, 8], [0, 16], [0, 32], [1, 0]], warp_bases=[[2, 0], [4, 0]], block_bases=[],
        shape=SHAPE),
    "linear, lanes t^2 alike": gl.DistributedLinearLayout(
        reg_bases=[[0, 1], [0, 2], [8, 0], [16, 0], [32, 0], [0, 32]],
        lane_bases=[[0, 4], [0, 0], [0, 8], [0, 16], [1, 0]], warp_bases=[[2, 0], [4, 0]], block_bases=[],
        shape=SHAPE),
}
SHARED = {
    "unswizzled": gl.SwizzledSharedLayout(1, 1, 1, [1, 0]),
    "swizzled 8,1,8": gl.SwizzledSharedLayout(8, 1, 8, [1, 0]),
    "swizzled 4,2,4": gl.SwizzledSharedLayout(4, 2, 4, [1, 0]),
    "swizzled 2,1,4": gl.SwizzledSharedLayout(2, 1, 4, [1, 0]),
    "swizzled 8,1,8 col": gl.SwizzledSharedLayout(8, 1, 8, [0, 1]),
    "swizzled 1,1,8": gl.SwizzledSharedLayout(1, 1, 8, [1, 0]),
    "swizzled 2,1,8": gl.SwizzledSharedLayout(2, 1, 8, [1, 0]),
    "swizzled 1,2,4": gl.SwizzledSharedLayout(1, 2, 4, [1, 0]),
    "swizzled 4,1,8": gl.SwizzledSharedLayout(4, 1, 8, [1, 0]),
    "nvmma 128B": lambda bits: gl.NVMMASharedLayout(128, bits),
    "nvmma 64B": lambda bits: gl.NVMMASharedLayout(64, bits),
    "nvmma 32B": lambda bits: gl.NVMMASharedLayout(32, bits),
}
# (register layout, element type, the shared layouts it meets), in the table's order.
GROUPS = [
    ("blocked [1,8] row", "f16", tuple(SHARED)),
    ("blocked [1,4] row", "f16", ("unswizzled", "swizzled 8,1,8", "swizzled 2,1,4", "nvmma 128B", "nvmma 64B")),
    ("blocked [1,2] row", "f16", ("unswizzled", "swizzled 8,1,8", "swizzled 2,1,4", "nvmma 128B")),
    ("blocked [1,1] row", "f16", ("unswizzled", "swizzled 8,1,8", "swizzled 2,1,4")),
    ("blocked [8,1] col", "f16", ("unswizzled", "swizzled 8,1,8", "swizzled 8,1,8 col", "nvmma 128B")),
    ("blocked [2,2] row", "f16", ("unswizzled", "swizzled 4,2,4", "nvmma 128B")),
    ("mma v3", "f16", ("unswizzled", "swizzled 8,1,8", "swizzled 4,2,4", "nvmma 128B", "nvmma 64B", "nvmma 32B")),
    ("mma v2", "f16", ("unswizzled", "nvmma 128B")),
    ("dot0 v2 k2", "f16", ("unswizzled", "nvmma 128B", "swizzled 4,2,4")),
    ("dot1 v2 k2", "f16", ("unswizzled", "nvmma 128B", "swizzled 8,1,8 col")),
    ("blocked [1,4] row", "f32", ("unswizzled", "swizzled 4,2,4", "swizzled 2,1,4", "nvmma 128B")),
    ("blocked [1,2] row", "f32", ("unswizzled", "swizzled 2,1,4")),
    ("mma v3", "f32", ("unswizzled", "swizzled 2,1,4", "nvmma 128B")),
    ("blocked [1,8] row", "s8", ("unswizzled", "swizzled 8,1,8", "nvmma 64B")),
    ("blocked [1,4] row", "s8", ("unswizzled", "swizzled 4,2,4")),
    ("blocked [1,2] row", "s8", ("unswizzled", "swizzled 2,1,4")),
    ("blocked [1,1] col", "f16", ("unswizzled", "swizzled 1,1,8", "swizzled 2,1,8", "swizzled 1,2,4")),
    ("blocked [1,1] col", "s8", ("swizzled 1,1,8", "swizzled 4,1,8")),
    ("linear, lanes t^1 alike", "f16", ("unswizzled", "swizzled 2,1,4", "nvmma 128B")),
    ("linear, lanes t^2 alike", "f16", ("unswizzled", "swizzled 2,1,4", "nvmma 128B")),
]
PAIRS = [(reg, smem, dtype) for reg, dtype, shared_layouts in GROUPS for smem in shared_layouts]


def shared(name, dtype):
    layout = SHARED[name]
    return layout(lp._core.element_bits(dtype)) if callable(layout) else layout


def lane_bytes(access, issue, base):
    """The byte offsets lanes 0..31 of one issue give from a 1024-byte-aligned address, the buffer
    starting `base` bytes past it (the base residue of LayoutProof's counterexample)."""
    warp = lp._core.WARP_LANES
    size = lp._core.element_bits(access.dtype) // 8
    return [base + size * access.smem(access.lanes(lane + warp * issue)) for lane in range(warp)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", help="write every access as a probe case (TSV) for scripts/gpu/run_smem_probe.sh")
    parser.add_argument("--measured", help="run_smem_probe.sh results.tsv for those cases")
    args = parser.parse_args()
    measured = {}
    if args.measured:
        with open(args.measured) as f:
            for row in csv.DictReader(f, delimiter="\t"):
                measured[row["id"]] = row["measured"]
    rows, cases, skipped, disagree = [], [], [], 0
    for reg_name, smem_name, dtype in PAIRS:
        reg, smem = REGISTER[reg_name], shared(smem_name, dtype)
        try:
            triton_extra = lpt.bank_conflicts(reg, smem, SHAPE, dtype)
        except (lp.Error, ValueError, RuntimeError) as e:
            skipped.append((reg_name, smem_name, dtype, str(e).splitlines()[0]))
            continue
        for op in ("store", "load"):
            p = lpt.prove_conflict_free(reg, smem, SHAPE, dtype, op=op)
            assert p.verdict in ("proven", "refuted"), p
            triton_wavefronts = (triton_extra + 1) * p.ideal
            case_id = f"triton_{len(rows):02d}"
            worst = p.counterexample["issue"] if p.counterexample else 0
            base = p.counterexample["base"] if p.counterexample else 0
            if triton_wavefronts != p.wavefronts:
                disagree += 1
            cases.append((case_id, p.access.instr, p.wavefronts, ",".join(map(str, lane_bytes(p.access, worst, base))),
                          f"{reg_name} | {smem_name} | {dtype} | {op}"))
            rows.append((case_id, reg_name, smem_name, dtype, op, p.access.instr, p.wavefronts, p.ideal,
                         triton_extra, triton_wavefronts, measured.get(case_id, "")))
    print("| id | register layout | shared layout | dtype | op | instruction (Triton's lowering) | "
          "LayoutProof wavefronts / ideal | Triton's count | (count + 1) x ideal | measured |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        differs = r[6] != r[9]
        mark = "**" if differs else ""
        print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[5]} | {mark}{r[6]} / {r[7]}{mark} | {r[8]} | "
              f"{mark}{r[9]}{mark} | {r[10]} |")
    pairs = len({(r[1], r[2], r[3]) for r in rows})
    print(f"\n{pairs} layout pairs, {len(rows)} accesses; they disagree on {disagree}.")
    for s in skipped:
        print(f"\nnot compared: {s[0]} | {s[1]} | {s[2]}: {s[3]}")
    if args.cases:
        with open(args.cases, "w") as f:
            f.write("id\tinstruction\tpredicted_wavefronts\tlane_byte_offsets\tdescription\n")
            for c in cases:
                f.write("\t".join(map(str, c)) + "\n")


if __name__ == "__main__":
    sys.exit(main())
