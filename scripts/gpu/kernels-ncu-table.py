#!/usr/bin/env python3
"""Per source line: Nsight Compute's measured shared-memory wavefronts against `layoutproof check
--cuda`'s verdicts (docs/ptx.md, "Kernels as they are launched").

Inputs: CUDA files, the directory of kernels-ncu.sh's CSVs (NAME-sass.csv: one row per SASS
instruction with its L1 shared wavefronts, ideal and excessive), the layoutproof binary, and
nvdisasm. Each file is compiled here exactly as on the device (nvcc -O3 -lineinfo -arch=sm_90) to a
cubin; `nvdisasm -gi` gives every SASS instruction's source line (the outermost inlined frame, as
the checker reports it); the measured rows are matched to those instructions kernel by kernel, in
address order, and a kernel whose instruction sequence differs is reported, not guessed.

A line is measured conflicting when its shared instructions show excessive wavefronts. The
checker's verdict on a line: "conflict" (an LP002 error), "depends on launch" (an LP002
launch-dependent warning), "unknown", or "conflict-free" (every conflict-free obligation at the line
proven).

usage: kernels-ncu-table.py CSV_DIR LAYOUTPROOF NVDISASM OUT_TSV FILE.cu...
"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile


def disassembly(cu, nvdisasm):
    """mangled kernel -> [(sass opcode, file basename, line)] in address order."""
    with tempfile.TemporaryDirectory() as tmp:
        cubin = os.path.join(tmp, "k.cubin")
        subprocess.run(["nvcc", "-O3", "-lineinfo", "-arch=sm_90", "-cubin", cu, "-o", cubin,
                        "-I", os.path.dirname(os.path.abspath(cu))], check=True)
        text = subprocess.run([nvdisasm, "-gi", "-c", cubin], check=True, capture_output=True, text=True).stdout
    out, func, where = {}, None, (None, None)
    for line in text.splitlines():
        m = re.match(r"\s*\.text\.([\w$]+):", line) or re.match(r"^([\w$]+):\s*$", line)
        if m and not line.strip().startswith("."):
            func = m.group(1)
            out.setdefault(func, [])
            continue
        m = re.match(r'\s*//## File "([^"]+)", line (\d+)(.*)', line)
        if m:
            frames = [(m.group(1), int(m.group(2)))] + [(f, int(n)) for f, n in re.findall(r'inlined at "([^"]+)", line (\d+)', m.group(3))]
            f, n = frames[-1]
            where = (os.path.basename(f), n)
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
        if m and func:
            out[func].append((opcode(m.group(2)), where[0], where[1]))
    return out


def kernel_key(demangled):
    """A kernel's name with its template arguments, without its parameter list (ncu writes
    `const float *` where c++filt writes `float const*`)."""
    return demangled.split("(")[0].replace(" ", "")


def opcode(sass):
    s = re.sub(r"^@!?U?P\w+\s+", "", sass.strip())
    return s.split()[0] if s else ""


def measured(path):
    """demangled kernel (spaces removed) -> [(opcode, wavefronts, ideal, excessive)], first section."""
    out, kernel, hdr, seen = {}, None, None, set()
    for row in csv.reader(open(path)):
        if row and row[0] == "Kernel Name":
            kernel, hdr = kernel_key(row[1]), None
            continue
        if row and row[0] == "Address":
            hdr = row
            continue
        if hdr is None or kernel is None:
            continue
        d = dict(zip(hdr, row))
        key = (kernel, d["Address"])
        if key in seen:
            continue
        seen.add(key)
        num = lambda k: int(d.get(k, "0") or 0) if d.get(k, "0") not in ("-", "") else 0
        out.setdefault(kernel, []).append((opcode(d["Source"]), num("L1 Wavefronts Shared"),
                                           num("L1 Wavefronts Shared Ideal"), num("L1 Wavefronts Shared Excessive")))
    # A kernel profiled twice has two sections of the same rows: keep one.
    return out


def demangle(names):
    r = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True)
    return dict(zip(names, r.stdout.splitlines()))


def verdicts(cu, layoutproof):
    r = subprocess.run([layoutproof, "check", "--no-cache", "--no-progress", "--cuda", cu, "--format", "json", "--",
                        "-I", os.path.dirname(os.path.abspath(cu))], capture_output=True, text=True)
    doc = json.loads(r.stdout)
    per_line = {}
    def note(f, line, v):
        per_line.setdefault((os.path.basename(f), line), set()).add(v)
    for o in doc["obligations"]:
        if o["rule"] == "LP002" and o["file"] and " is conflict-free" in o["description"]:
            note(o["file"], o["line"], "proven" if o["passed"] else "not proven")
    for f in doc["findings"]:
        if f["rule"] != "LP002" or not f["file"]:
            continue
        m = f["message"]
        if "has bank conflicts" in m:
            note(f["file"], f["line"], "conflict")
        elif "is conflict-free only for some launches" in m:
            note(f["file"], f["line"], "depends on launch")
        elif f["kind"] == "unknown" and " is conflict-free" in m:
            note(f["file"], f["line"], "unknown")
    out = {}
    for key, vs in per_line.items():
        for v in ("conflict", "depends on launch", "unknown"):
            if v in vs:
                out[key] = v
                break
        else:
            out[key] = "conflict-free" if vs == {"proven"} else "unknown"
    return out


def main():
    csv_dir, layoutproof, nvdisasm, out_tsv = sys.argv[1:5]
    rows, problems = [], []
    for cu in sys.argv[5:]:
        name = os.path.splitext(os.path.basename(cu))[0]
        dis = disassembly(cu, nvdisasm)
        names = demangle(list(dis))
        meas = measured(os.path.join(csv_dir, name + "-sass.csv"))
        lines = {}
        for mangled, sass in dis.items():
            m = meas.get(kernel_key(names[mangled]))
            if m is None:
                continue  # not launched by the program
            if [s[0] for s in sass] != [x[0] for x in m]:
                problems.append(f"{name}: {names[mangled]}: SASS here and on the device differ ({len(sass)} / {len(m)} instructions)")
                continue
            for (op, f, line), (_, wf, ideal, exc) in zip(sass, m):
                if wf == 0 or f is None:
                    continue
                agg = lines.setdefault((f, line), {"wavefronts": 0, "ideal": 0, "excessive": 0, "kernels": set(), "sass": set()})
                agg["wavefronts"] += wf
                agg["ideal"] += ideal
                agg["excessive"] += exc
                agg["kernels"].add(names[mangled].split("(")[0])
                agg["sass"].add(op)
        checked = verdicts(cu, layoutproof)
        for (f, line), agg in sorted(lines.items()):
            measured_conflict = agg["excessive"] > 0
            v = checked.get((f, line), "none")
            agree = {"conflict": "yes" if measured_conflict else "NO",
                     "conflict-free": "NO" if measured_conflict else "yes"}.get(v, "n/a")
            rows.append([name, f, line, ",".join(sorted(agg["kernels"])), ",".join(sorted(agg["sass"])), agg["wavefronts"],
                         agg["ideal"], agg["excessive"], "conflict" if measured_conflict else "conflict-free", v, agree])
    with open(out_tsv, "w") as out:
        out.write("program\tfile\tline\tkernels\tsass\twavefronts\tideal\texcessive\tmeasured\tlayoutproof\tagree\n")
        for r in rows:
            out.write("\t".join(str(x) for x in r) + "\n")
    for p in problems:
        print("note:", p, file=sys.stderr)
    decided = [r for r in rows if r[-1] in ("yes", "NO")]
    print(f"{len(rows)} source lines with shared-memory instructions; {len(decided)} decided, "
          f"{sum(r[-1] == 'yes' for r in decided)} agree with the measurement; "
          f"{sum(r[9] == 'depends on launch' for r in rows)} depend on the launch, {sum(r[9] == 'unknown' for r in rows)} unknown")


if __name__ == "__main__":
    main()
