#!/usr/bin/env python3
"""Writes the single-warp cp.async probe cases (scripts/gpu/cp_async_probe.cu) to stdout.

usage: make_cp_async_cases.py [LAYOUTPROOF_BINARY] > scripts/gpu/cp_async_form_cases.tsv
Columns: id, instruction, expected, 32 shared byte offsets, 32 global byte offsets, repeat,
shared step, global step, description. `expected` is the model's prediction for the whole launch
(`layoutproof banks --json` times the repeat) when a binary is given, else `-`. Shared offsets are
from a 1024-byte-aligned base, global offsets from a 1024-byte-aligned allocation.

The cases cross the shared pattern (aligned, swizzled, padded rows of 128 data bytes at pitch 128,
136, 144, 160, 192, 256, rows off their 128-byte segment, conflicts) with the global pattern
(dense, rows 1024 bytes apart, rows off their 128-byte line, one line per lane, one line for the
whole warp) for every form, and repeat a few back to back.
"""
import json
import subprocess
import sys

LANES = range(32)
PITCHES = (128, 136, 144, 160, 192, 256)


def shared_patterns(b):
    """(name, offsets) of the shared side for b-byte copies."""
    per_row = 128 // b  # lanes filling one 128-byte row
    yield "consec", [b * t for t in LANES]
    for p in PITCHES if b > 4 else ():  # 4-byte copies fill a 128-byte row with the whole warp
        if p % b == 0:
            yield f"rows{p}", [p * (t // per_row) + b * (t % per_row) for t in LANES]
    if b == 16:
        yield "swz128", [128 * (t // 8) + 16 * ((t % 8) ^ (t // 8)) for t in LANES]
    elif b == 8:
        yield "swz128", [128 * (t // 16) + 16 * (((t % 16) // 2) ^ (t // 16)) + 8 * (t % 2) for t in LANES]
    else:
        # 4-byte copies: rows of 8 lanes (32 bytes), to see which lanes share a phase.
        for p in (128, 136, 144):
            yield f"rows8x{p}", [p * (t // 8) + 4 * (t % 8) for t in LANES]
    yield f"off{b}", [b + b * t for t in LANES]
    yield "off64", [64 + b * t for t in LANES]
    yield "stride128", [128 * t for t in LANES]
    yield "same", [0 for _ in LANES]
    yield "pairs", [b * (t // 2) for t in LANES]
    if b == 16:
        yield "stride32", [32 * t for t in LANES]
        yield "rev8", [128 * (t // 8) + 16 * (7 - t % 8) for t in LANES]
        yield "stride144", [144 * t for t in LANES]


def global_patterns(b):
    per_row = 128 // b
    yield "gdense", [b * t for t in LANES]
    yield "g1024", [1024 * (t // per_row) + b * (t % per_row) for t in LANES]
    yield "goff64", [64 + b * t for t in LANES]
    yield "gline", [128 * t for t in LANES]
    yield "gone", [(b * t) % 128 for t in LANES]
    if b != 16:
        yield "g16", [16 * t for t in LANES]


def cases():
    forms = (("ca16", "cp.async.ca.16", 16), ("cg16", "cp.async.cg.16", 16), ("ca8", "cp.async.ca.8", 8),
             ("ca4", "cp.async.ca.4", 4))
    for short, instr, b in forms:
        dense = [b * t for t in LANES]
        shared = dict(shared_patterns(b))
        for sname, s in shared.items():
            yield f"{short}_{sname}_gdense", instr, s, dense, 1, 0, 0, f"{sname} shared, dense global"
        focus = [n for n in ("consec", "rows144", "rows136", "rows8x144", "swz128", "off64") if n in shared]
        for sname in focus:
            for gname, g in global_patterns(b):
                if gname != "gdense":
                    yield f"{short}_{sname}_{gname}", instr, shared[sname], g, 1, 0, 0, f"{sname} shared, {gname} global"
    # The L2 prefetch hint of CUTLASS's SM80_CP_ASYNC_CACHEGLOBAL on the same shared patterns.
    sh16 = dict(shared_patterns(16))
    for sname in ("consec", "rows144", "swz128", "stride128"):
        yield f"cg16l2_{sname}_gdense", "cp.async.cg.16.L2::128B", sh16[sname], [16 * t for t in LANES], 1, 0, 0, f"{sname} shared, .L2::128B"
    # Back-to-back copies of one warp: each copy fills the next 4 rows (pitch 144: 576 bytes on).
    for short, instr in (("ca16", "cp.async.ca.16"), ("cg16", "cp.async.cg.16")):
        for sname, step in (("consec", 512), ("rows144", 576), ("swz128", 512)):
            for r in (2, 4, 8):
                if sname == "swz128" and r != 4:
                    continue
                yield f"{short}_{sname}_x{r}", instr, sh16[sname], [16 * t for t in LANES], r, step, 512, f"{sname}, {r} copies back to back"
    # How many source lines one tag-stage wavefront holds, and whether L1 reads of one word broadcast:
    # lanes in their own lines at distinct banks (4 per group: 8 wavefronts; 3 would give 12), 4 lines
    # at distinct words (1 vs 2), lanes t and t+8 on one global word (1 per phase if reads broadcast).
    consec = lambda b: [b * t for t in LANES]
    yield "ca16_consec_gdiag", "cp.async.ca.16", consec(16), [128 * t + 16 * (t % 8) for t in LANES], 1, 0, 0, "each lane its own line, distinct banks"
    yield "cg16_consec_gdiag", "cp.async.cg.16", consec(16), [128 * t + 16 * (t % 8) for t in LANES], 1, 0, 0, "each lane its own line, distinct banks"
    yield "ca4_consec_gdiag", "cp.async.ca.4", consec(4), [128 * (t // 8) + 4 * t for t in LANES], 1, 0, 0, "4 lines, distinct words"
    yield "ca8_consec_gbcast", "cp.async.ca.8", consec(8), [8 * (t % 8) for t in LANES], 1, 0, 0, "lanes t and t+8 read one word"
    yield "ca16_consec_gsame", "cp.async.ca.16", consec(16), [0 for _ in LANES], 1, 0, 0, "every lane reads bytes 0-15"
    yield "ca16_rows144_gdiag", "cp.async.ca.16", sh16["rows144"], [128 * t + 16 * (t % 8) for t in LANES], 1, 0, 0, "rows at pitch 144, each lane its own line"


def earlier_cases():
    """The 11 `.ca` cases measured on an H200 before (docs/hardware.md), whose probe read lane t's
    source at global byte 16 t, re-measured as they were."""
    g16 = [16 * t for t in LANES]
    cases = (("cp4_stride128", 4, [128 * t for t in LANES]), ("cp8_consec", 8, [8 * t for t in LANES]),
             ("cp16_consec", 16, [16 * t for t in LANES]), ("cp16_pairs", 16, [16 * (t // 2) for t in LANES]),
             ("cp16_stride128", 16, [128 * t for t in LANES]), ("cp4_consec", 4, [4 * t for t in LANES]),
             ("cp4_same", 4, [0 for _ in LANES]), ("cp8_stride128", 8, [128 * t for t in LANES]),
             ("cp16_qwarp_same", 16, [16 * (t % 8) for t in LANES]), ("cp16_same", 16, [0 for _ in LANES]),
             ("cp16_stride32", 16, [32 * t for t in LANES]))
    for cid, b, s in cases:
        yield f"h200_{cid}", f"cp.async.ca.{b}", s, g16, 1, 0, 0, "H200 case re-measured"


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else None
    print("id\tinstruction\texpected\tshared_byte_offsets\tglobal_byte_offsets\trepeat\tshared_step\tglobal_step\tdescription")
    for cid, instr, s, g, r, sstep, gstep, desc in list(cases()) + list(earlier_cases()):
        expected = "-"
        if binary:
            model = instr.split(".L2::")[0]
            total = 0
            for k in range(r):
                out = subprocess.run([binary, "banks", "--arch", "sm_90", "--instr", model, "--addresses",
                                      ",".join(str(a + k * sstep) for a in s), "--json"],
                                     capture_output=True, text=True, check=True)
                total += json.loads(out.stdout)["wavefronts"]
            expected = str(total)
        print(f"{cid}\t{instr}\t{expected}\t{','.join(map(str, s))}\t{','.join(map(str, g))}\t{r}\t{sstep}\t{gstep}\t{desc}")


if __name__ == "__main__":
    main()
