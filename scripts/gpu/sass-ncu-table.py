#!/usr/bin/env python3
"""Per SASS shared-memory instruction: Nsight Compute's measured wavefronts against `layoutproof check
--cuda`'s SASS-level verdict, with the PTX-level cost beside it (docs/ptx.md, "Accesses ptxas merges").

Inputs: the layoutproof binary, nvdisasm, the output TSV, then one PROGRAM per argument as
CSV=FILE.cu[,NVCC_ARG...]: the CSV is ncu's `--page source --print-source sass --csv` of the program
(one row per SASS instruction; `Instructions Executed`, `L1 Wavefronts Shared`, `... Ideal`), and
FILE.cu the source the program was built from with `nvcc -O3 -lineinfo -arch=sm_90a NVCC_ARGS`.

Here the same source is compiled again to a cubin (the same nvcc, flags and architecture), and
`nvdisasm -gp` names each SASS instruction's PTX line; a kernel's rows are matched to its instructions
in address order, and a kernel whose opcode sequence differs is reported, not guessed. The checker's
verdict on an instruction is the LP002 obligation naming its PTX line (a merged instruction's names
every member's line): proven with its proof's wavefronts and ideal, or refuted with the finding's.

usage: sass-ncu-table.py LAYOUTPROOF NVDISASM OUT_TSV CSV=FILE.cu[,ARG...]...
"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile


def sass_lines(cu, args, nvdisasm):
    """mangled kernel -> [(opcode, ptx line or None)] in address order."""
    with tempfile.TemporaryDirectory() as tmp:
        cubin = f"{tmp}/k.cubin"
        subprocess.run(["nvcc", "-O3", "-lineinfo", "-arch=sm_90a", "-cubin", cu, "-o", cubin] + args, check=True)
        text = subprocess.run([nvdisasm, "-gp", "-c", cubin], check=True, capture_output=True, text=True).stdout
    out, func, line = {}, None, None
    for raw in text.splitlines():
        m = re.match(r"\s*\.section\s+\.text\.([\w$]+),", raw)
        if m:
            func, line = m.group(1), None
            out[func] = []
            continue
        m = re.match(r'\s*//## File "\.nv_debug_ptx_txt", line (\d+)', raw)
        if m:
            line = int(m.group(1))
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?([\w.]+)", raw)
        if m and func:
            out[func].append((m.group(2), line))
    return out


def kernel_key(name):
    """A kernel's name without its parameters and spaces, and without the casts ncu writes in
    template arguments (`C<(int)128>` where c++filt writes `C<128>`)."""
    name = re.sub(r"\((?:unsigned )?(?:int|long|bool|char|short)\)", "", name)
    depth = 0
    for i, c in enumerate(name):  # the parameter list: the first '(' outside template brackets
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif c == "(" and depth == 0:
            name = name[:i]
            break
    return name.replace(" ", "")


def measured(path):
    """kernel (as ncu names it, without parameters) -> [(opcode, executed, wavefronts, ideal)]."""
    out, kernel, header = {}, None, None
    for row in csv.reader(open(path)):
        if len(row) >= 2 and row[0] == "Kernel Name":
            kernel = kernel_key(row[1])
            header = None
            continue
        if row and row[0] == "Address":
            header = row
            continue
        if header is None or kernel is None:
            continue
        d = dict(zip(header, row))
        num = lambda k: float(d.get(k, "0").replace(",", "") or 0)
        op = re.sub(r"^@!?U?P\w+\s+", "", d["Source"].strip()).split(" ")[0]
        rows = out.setdefault(kernel, [])
        if int(d["Address"], 16) == 0 or (rows and int(d["Address"], 16) <= rows[-1][0]):
            continue  # another launch of a kernel already read
        rows.append((int(d["Address"], 16), op, num("Instructions Executed"), num("L1 Wavefronts Shared"), num("L1 Wavefronts Shared Ideal")))
    return {k: [r[1:] for r in v] for k, v in out.items()}


def verdicts(cu, args, layoutproof, ptx_level=False):
    """PTX line -> (description, passed, wavefronts, ideal) of LP002's conflict obligations; with
    `ptx_level`, as the checker judges the PTX without a cubin (no nvdisasm)."""
    env = dict(os.environ, LP_REPLAY_NVDISASM="/nonexistent/nvdisasm") if ptx_level else None
    r = subprocess.run([layoutproof, "check", "--no-cache", "--no-progress", "--no-fold", "--cuda", cu, "--arch", "sm_90a",
                        "--format", "json", "--"] + args, capture_output=True, text=True, env=env)
    doc = json.loads(r.stdout)
    costs = {}
    for f in doc["findings"]:
        m = re.search(r"(.*) has bank conflicts: (\d+) wavefronts where (\d+)", f["message"])
        if f["rule"] == "LP002" and m:
            costs[m.group(1).split(" in ")[0]] = (int(m.group(2)), int(m.group(3)))
    out = {}
    for o in doc["obligations"]:
        if o["rule"] != "LP002" or not o["description"].endswith(" is conflict-free"):
            continue
        what = o["description"][: -len(" is conflict-free")]
        proof = o.get("proof") or {}
        cost = (proof.get("wavefronts"), proof.get("ideal")) if o["passed"] else costs.get(what, (None, None))
        lines = re.search(r"PTX lines? ([\d, and]+)\)", what)
        for n in re.findall(r"\d+", lines.group(1)) if lines else []:
            out[int(n)] = (what, o["passed"], cost[0], cost[1])
    return out


def main():
    layoutproof, nvdisasm, out_tsv = sys.argv[1:4]
    rows, problems = [], []
    for spec in sys.argv[4:]:
        csv_path, rest = spec.split("=", 1)
        cu, *args = rest.split(",")
        dis = sass_lines(cu, args, nvdisasm)
        names = dict(zip(dis, subprocess.run(["c++filt"], input="\n".join(dis), capture_output=True, text=True).stdout.splitlines()))
        meas = measured(csv_path)
        checked = verdicts(cu, args, layoutproof)
        ptx = verdicts(cu, args, layoutproof, ptx_level=True)
        for mangled, sass in dis.items():
            key = kernel_key(names[mangled])
            m = meas.get(key)
            if m is None:
                continue
            m = m[: len(sass)]
            if [s[0] for s in sass] != [x[0] for x in m]:
                problems.append(f"{cu}: {key}: SASS here and on the device differ")
                continue
            for (op, line), (_, executed, wf, ideal) in zip(sass, m):
                if not (op.startswith("LDS") or op.startswith("STS")) or executed == 0:
                    continue
                what, passed, pw, pi = checked.get(line, ("none", None, None, None))
                per_wf, per_ideal = wf / executed, ideal / executed
                agree = "n/a" if pw is None else ("yes" if (pw, pi) == (per_wf, per_ideal) else "NO")
                _, _, xw, xi = ptx.get(line, (None, None, None, None))
                rows.append([cu.split("/")[-1], key[:40], op, line, f"{per_wf:g}", f"{per_ideal:g}", what, pw, pi, agree,
                             "-" if xw is None else f"{xw}/{xi}"])
    with open(out_tsv, "w") as out:
        out.write("file\tkernel\tsass\tptx_line\tmeasured_wavefronts\tmeasured_ideal\tlayoutproof\twavefronts\tideal\tagree\t"
                  "ptx_level\n")
        for r in rows:
            out.write("\t".join(str(x) for x in r) + "\n")
    for p in problems:
        print("note:", p, file=sys.stderr)
    print(f"{len(rows)} SASS shared-memory instructions; {sum(r[9] == 'yes' for r in rows)} equal the measurement, "
          f"{sum(r[9] == 'NO' for r in rows)} differ, {sum(r[9] == 'n/a' for r in rows)} without a cost")


if __name__ == "__main__":
    main()
