#!/usr/bin/env python3
"""Turns the findings.replayed.json of `layoutproof replay --run` (or the results.jsonl that
scripts/gpu/replay-findings.sh writes) into the markdown table of docs/replay-results.md.

usage: replay-table.py [--jsonl OUT.jsonl] FILE [FILE...]
  FILE: findings.replayed.json or results.jsonl; several files are concatenated (one table).
  --jsonl: also write one JSON object per finding (rule, file, line, replayed, method,
  predicted, measured, agrees: "yes"/"no"/null, device, why).
"""
import argparse
import json
import re
import sys


def rows_of(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if path.endswith(".jsonl"):
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    doc = json.loads(text)
    run = doc.get("replay_run", {})
    rows = []
    for k, f in enumerate(doc.get("findings", [])):
        r = f.get("replay")
        row = {"finding": k, "rule": f.get("rule"), "file": f.get("file"), "line": f.get("line"),
               "message": f.get("message", ""), "fingerprint": f.get("fingerprint"),
               "device": run.get("device"), "arch": run.get("arch")}
        cex = f.get("counterexample") or {}
        row["check"] = cex.get("instruction") or {"LP001": "injectivity", "LP004": "coverage"}.get(f.get("rule"), "")
        if r is None:
            row.update(replayed=False, why="not run (no replay record)")
        elif r.get("replayed") is False:
            row.update(replayed=False, why=r.get("why", ""))
        else:
            agrees = r.get("agrees")
            row.update(replayed=True, method=r.get("method"), predicted=r.get("predicted"),
                       measured=r.get("measured"),
                       agrees=None if agrees is None else ("yes" if agrees else "no"),
                       device=r.get("device", row["device"]), program=r.get("program"))
            m = re.search(r"control: predicted (\d+), measured (\d+)", r.get("output", ""))
            if m:
                row["control_predicted"], row["control_measured"] = int(m.group(1)), int(m.group(2))
            m = re.search(r"clock64: (\d+) instructions took (\d+) cycles, the control's (\d+)", r.get("output", ""))
            if m:
                row["clock64_repeat"], row["clock64_cycles"], row["clock64_control_cycles"] = map(int, m.groups())
        rows.append(row)
    return rows


def table(rows):
    out = ["| finding | where | check | predicted | measured | method | agrees | device |",
           "|---|---|---|---|---|---|---|---|"]
    skipped = []
    for r in rows:
        where = f"{r.get('file')}:{r.get('line')}"
        name = f"f{r.get('finding', 0):02} {r.get('rule')}"
        if not r.get("replayed"):
            skipped.append(f"- {name} {where}: {r.get('why', '')}")
            continue
        measured = "-" if r.get("measured") is None else str(r["measured"])
        if "control_measured" in r:
            measured += f" (control: {r['control_measured']} of {r['control_predicted']})"
        agrees = r.get("agrees") or "unmeasured"
        out.append(f"| {name} | {where} | {r.get('check', '')} | {r.get('predicted')} | {measured} | "
                   f"{r.get('method')} | {agrees} | {r.get('device') or '?'} |")
    text = "\n".join(out) + "\n"
    if skipped:
        text += "\nNot replayed:\n" + "\n".join(skipped) + "\n"
    n = sum(1 for r in rows if r.get("replayed"))
    agree = sum(1 for r in rows if r.get("agrees") == "yes")
    text += f"\n{n} of {len(rows)} findings replayed; {agree} agree with the prediction.\n"
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--jsonl")
    a = ap.parse_args()
    rows = [row for p in a.files for row in rows_of(p)]
    if a.jsonl:
        with open(a.jsonl, "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    sys.stdout.write(table(rows))


if __name__ == "__main__":
    main()
