#!/usr/bin/env python3
"""Writes probe cases for the rules docs/hardware.md did not measure directly, with the bank
model's prediction in column 3 (from `layoutproof banks --json`).

usage: make_probe_cases.py LAYOUTPROOF_BINARY > scripts/gpu/probe_cases.tsv
Columns: id, instruction, predicted_wavefronts, 32 lane byte offsets, description.
"""
import json
import random
import subprocess
import sys


def cases():
    lanes = range(32)
    yield "st_u8_consec", "st.shared.u8", [t for t in lanes], "u8 stores, bytes 0..31"
    yield "st_u8_stride128", "st.shared.u8", [128 * t for t in lanes], "u8 stores, bank 0"
    yield "st_u8_same_word", "st.shared.u8", [t % 4 for t in lanes], "u8 stores, all in word 0"
    yield "st_u16_stride64", "st.shared.u16", [64 * t for t in lanes], "u16 stores at byte stride 64"
    yield "st_u16_two_words", "st.shared.u16", [(t % 2) * 128 + 2 * ((t // 2) % 2) for t in lanes], "u16 stores, words 0 and 32"
    for op in ("ldmatrix", "stmatrix"):
        for x in (1, 2):
            for trans in ("", ".trans"):
                name = f"{op}.x{x}{trans}"
                yield f"{name}_stride128", name, [128 * (t % 8) + 2048 * (t // 8) for t in lanes], "rows at stride 128"
                yield f"{name}_stride144", name, [144 * t for t in lanes], "rows at stride 144"
                yield f"{name}_garbage_tail", name, [144 * t if t < 8 * x else 0 for t in lanes], "unused lanes at 0"
    yield "stsm_x4_stride144", "stmatrix.x4", [144 * t for t in lanes], "rows at stride 144"
    # Load merging: t^2 partners, partial pairs, merging with conflicts, stores never merge.
    quad = [16 * ((t % 2) + 2 * (t // 4)) for t in lanes]
    yield "ld128_xor2", "ld.shared.v4.b32", quad, "lane t and t^2 share a chunk"
    yield "st128_xor2", "st.shared.v4.b32", quad, "stores, lane t and t^2 share a chunk"
    quad8 = [8 * ((t % 2) + 2 * (t // 4)) for t in lanes]
    yield "ld64_xor2", "ld.shared.v2.b32", quad8, "lane t and t^2 share 8 bytes"
    yield "ld64_pairs", "ld.shared.v2.b32", [8 * (t // 2) for t in lanes], "lane pairs share 8 bytes"
    yield "st64_pairs", "st.shared.v2.b32", [8 * (t // 2) for t in lanes], "stores, lane pairs share 8 bytes"
    yield "ld64_pairs_stride128", "ld.shared.v2.b32", [128 * (t // 2) for t in lanes], "merged, 16 words in bank 0"
    yield "ld128_pairs_stride128", "ld.shared.v4.b32", [128 * (t // 2) for t in lanes], "merged, conflicts"
    broken = [16 * (t // 2) for t in lanes]
    broken[31] = 1024
    yield "ld128_pairs_broken", "ld.shared.v4.b32", broken, "pairs except lane 31"
    yield "ld128_xor4", "ld.shared.v4.b32", [16 * ((t % 4) + 4 * (t // 8)) for t in lanes], "t and t^4 share"
    yield "ld128_xor3", "ld.shared.v4.b32", [16 * (t // 4) + 16 * 8 * ((t % 4) in (1, 2)) for t in lanes], "t and t^3 share"
    yield "ld128_all_same", "ld.shared.v4.b32", [256 for _ in lanes], "all lanes one chunk"
    yield "ld64_all_same", "ld.shared.v2.b32", [256 for _ in lanes], "all lanes one 8 bytes"
    # Random lane patterns, as the held-out set has.
    rng = random.Random(20240601)
    for k in range(6):
        for name, size, span in (("ld.shared.b32", 4, 2048), ("ld.shared.v2.b32", 8, 2048),
                                 ("ld.shared.v4.b32", 16, 4096), ("ldmatrix.x4", 16, 4096),
                                 ("st.shared.v4.b32", 16, 4096)):
            offs = [size * rng.randrange(span // size) for _ in lanes]
            yield f"rand{k}_{name}", name, offs, "random aligned offsets"
        pairs = [16 * rng.randrange(64) for _ in range(16)]
        yield f"rand{k}_ld128_pairs", "ld.shared.v4.b32", [pairs[t // 2] for t in lanes], "random, lane pairs"


def main():
    binary = sys.argv[1]
    print("id\tinstruction\tpredicted_wavefronts\tlane_byte_offsets\tdescription")
    for cid, instr, offs, desc in cases():
        out = subprocess.run([binary, "banks", "--arch", "sm_90", "--instr", instr, "--addresses",
                              ",".join(map(str, offs)), "--json"], capture_output=True, text=True, check=True)
        predicted = json.loads(out.stdout)["wavefronts"]
        print(f"{cid}\t{instr}\t{predicted}\t{','.join(map(str, offs))}\t{desc}")


if __name__ == "__main__":
    main()
