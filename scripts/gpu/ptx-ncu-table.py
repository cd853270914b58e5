#!/usr/bin/env python3
"""Joins Nsight Compute's per-SASS-instruction source counters with `layoutproof check`'s verdicts
on the PTX of the same program (docs/ptx.md, "Validation on an H100").

Inputs: the PTX (scripts/gpu/ptx-ncu.sh build), the SourceCounters CSV (ptx-ncu.sh measure,
`ncu --page source --print-source sass --csv`), and the layoutproof binary.
Outputs: a TSV (one row per shared-memory SASS instruction: kernel, PTX line, opcode, SASS,
measured wavefronts, ideal, excessive, the model's verdict) and the Markdown table for the docs.

SASS instructions are matched to PTX instructions kernel by kernel, by kind (LDS, STS, LDSM,
STSM, LDGSTS, ATOMS) and width, in order; a kernel whose counts differ is reported, not guessed.

usage: ptx-ncu-table.py PTX SASS_CSV LAYOUTPROOF OUT_TSV
"""
import csv
import json
import re
import subprocess
import sys


def ptx_sites(ptx_path):
    """Shared-memory instructions of each kernel, in program order (callees under their callers)."""
    funcs, order, current, calling = {}, [], None, False
    for n, line in enumerate(open(ptx_path), 1):
        m = re.match(r"\s*(?:\.visible\s+|\.weak\s+)?\.(entry|func)\s+(?:\([^)]*\)\s*)?([\w$]+)", line)
        if m:
            current = m.group(2)
            funcs[current] = {"entry": m.group(1) == "entry", "sites": [], "calls": []}
            order.append(current)
            continue
        if current is None:
            continue
        body = line.split("//")[0].strip()
        op = body.split()[0].lstrip("@!%p0123456789") if body else ""
        if body.startswith("@"):
            op = body.split()[1] if len(body.split()) > 1 else ""
        # nvcc writes `call.uni (retval), \n callee, \n (args);` over several lines
        if calling and re.match(r"[\w$]+,?$", body):
            funcs[current]["calls"].append(body.rstrip(","))
            calling = False
        elif op.startswith("call"):
            calling = True
        kind = None
        if op.startswith(("ld.shared", "ld.volatile.shared")):
            kind = "LDS"
        elif op.startswith("st.shared"):
            kind = "STS"
        elif op.startswith("ldmatrix"):
            kind = "LDSM"
        elif op.startswith("stmatrix"):
            kind = "STSM"
        elif op.startswith(("cp.async.ca.", "cp.async.cg.")):
            kind = "LDGSTS"
        elif op.startswith(("atom.shared", "red.shared")):
            kind = "ATOMS"
        if kind:
            funcs[current]["sites"].append({"ptx_line": n, "opcode": op, "kind": kind, "bytes": width(op, kind)})
    out = {}
    for name in order:
        if funcs[name]["entry"]:
            sites = list(funcs[name]["sites"])
            for c in funcs[name]["calls"]:
                sites += funcs.get(c, {"sites": []})["sites"]
            out[name] = sites
    return out


def width(op, kind):
    if kind in ("LDSM", "STSM", "LDGSTS"):
        return 16
    parts = op.split(".")
    vec = 4 if "v4" in parts else 2 if "v2" in parts else 1
    bits = int(re.sub(r"\D", "", parts[-1]) or 32)
    return vec * bits // 8


def sass_kind(src):
    s = src.split("]")[0] if "LDGSTS" in src else src
    op = src.replace("@!P0", "").replace("@P0", "").replace("@P1", "").replace("@!P1", "").split()[0]
    base = op.split(".")[0]
    w = 4
    for token, b in ((".128", 16), (".64", 8), (".U16", 2), (".S16", 2), (".U8", 1), (".S8", 1)):
        if token in op:
            w = b
    if base in ("LDSM", "STSM", "LDGSTS"):
        w = 16
    return base, w


def measured(csv_path):
    """kernel base name -> [(sass, wavefronts, ideal, excessive)] in address order (first section)."""
    out, kernel, hdr, seen = {}, None, None, set()
    for row in csv.reader(open(csv_path)):
        if row and row[0] == "Kernel Name":
            kernel, hdr = row[1].split("(")[0], None
            continue
        if row and row[0] == "Address":
            hdr = row
            continue
        if hdr is None or kernel is None:
            continue
        d = dict(zip(hdr, row))
        if d.get("L1 Wavefronts Shared", "0") in ("0", ""):
            continue
        key = (kernel, d["Address"])
        if key in seen:
            continue
        seen.add(key)
        out.setdefault(kernel, []).append((d["Source"].strip(), int(d["L1 Wavefronts Shared"]),
                                            int(d["L1 Wavefronts Shared Ideal"]), int(d["L1 Wavefronts Shared Excessive"])))
    return out


def verdicts(ptx_path, layoutproof):
    r = subprocess.run([layoutproof, "check", "--no-cache", ptx_path, "--format", "json"], capture_output=True, text=True)
    doc = json.loads(r.stdout)
    v = {}
    for o in doc["obligations"]:
        m = re.search(r"\(PTX line (\d+)\) is conflict-free", o["description"])
        if m and o["passed"]:
            v[int(m.group(1))] = "conflict-free"
    for f in doc["findings"]:
        m = re.search(r"\(PTX line (\d+)\)", f["message"])
        if not m or f["rule"] != "LP002":
            continue
        line = int(m.group(1))
        if "has bank conflicts" in f["message"]:
            v[line] = "conflict: " + f["message"].split("has bank conflicts: ")[1]
        elif "is conflict-free" in f["message"] and f["kind"] == "unknown":
            v[line] = "unknown"
    return v


def demangled(name):
    return subprocess.run(["c++filt", name], capture_output=True, text=True).stdout.strip().split("(")[0]


def main():
    ptx, sass_csv, layoutproof, out_tsv = sys.argv[1:5]
    sites, meas, verd = ptx_sites(ptx), measured(sass_csv), verdicts(ptx, layoutproof)
    rows = []
    for mangled, ss in sites.items():
        name = demangled(mangled)
        ms = meas.get(name, [])
        groups = {}
        for s in ss:
            groups.setdefault((s["kind"], s["bytes"]), []).append(s)
        mgroups = {}
        for m in ms:
            mgroups.setdefault(sass_kind(m[0]), []).append(m)
        if sorted((k, len(v)) for k, v in groups.items()) != sorted((k, len(v)) for k, v in mgroups.items()):
            print(f"{name}: PTX and SASS shared-memory instructions differ; not matched", file=sys.stderr)
            continue
        for key, group in groups.items():
            for s, m in zip(group, mgroups[key]):
                rows.append((name, s["ptx_line"], s["opcode"], m[0], m[1], m[2], m[3], verd.get(s["ptx_line"], "?")))
    with open(out_tsv, "w") as f:
        f.write("kernel\tptx_line\topcode\tsass\twavefronts\tideal\texcessive\tmodel\n")
        for r in sorted(rows, key=lambda r: r[1]):
            f.write("\t".join(str(x) for x in r) + "\n")
    print("| kernel | PTX line | PTX instruction | SASS | L1 wavefronts shared / ideal (4 warps) | measured | LayoutProof | agree |")
    print("|---|---|---|---|---|---|---|---|")
    for r in sorted(rows, key=lambda r: r[1]):
        model = r[7]
        meas_v = "conflict" if r[6] > 0 else "conflict-free"
        agree = "n/a" if model in ("unknown", "?") else ("yes" if (model != "conflict-free") == (r[6] > 0) else "**no**")
        print(f"| {r[0]} | {r[1]} | `{r[2]}` | `{r[3][:40]}` | {r[4]} / {r[5]} | {meas_v} | {model} | {agree} |")


if __name__ == "__main__":
    main()
