#!/usr/bin/env python3
"""Runs one golden diagnostic test (docs/testing.md) and matches its output with LLVM's FileCheck.

    run_golden.py LAYOUTPROOF FILECHECK FILE

FILE is an input of `layoutproof check` that carries its expectations in comments:

    RUN: layoutproof check %s --format json   the command (default: check %s --no-cache --no-progress);
                                             %s is the file's name, run in the file's directory
    EXIT: 1                                  the expected exit status (default 0)
    CHECK: ... CHECK-NEXT: ... CHECK-SAME: ... CHECK-NOT: ...   FileCheck's own directives, with
                                             [[@LINE]], [[@LINE-N]] and {{regex}}

The tool's standard output, then its standard error, go to
`FileCheck --strict-whitespace --dump-input=fail FILE`. Prints `golden: PASS`, `golden: FAIL: ...`
(exit 1) or `golden: MALFORMED: ...` (exit 2: a directive FileCheck would silently ignore, such as a
misspelt CHECK-NXET, or a file without a positive check, is an error, never a check that passes).
"""
import pathlib
import re
import shlex
import subprocess
import sys

# A keyword stands after anything but a letter, digit, '_' or '-', as FileCheck finds its prefixes.
DIRECTIVE = re.compile(r"(?<![A-Za-z0-9_-])(CHECK(?:-[A-Z]+)?|RUN|EXIT):")
KNOWN = {"CHECK", "CHECK-NEXT", "CHECK-SAME", "CHECK-NOT", "CHECK-EMPTY", "RUN", "EXIT"}
POSITIVE = {"CHECK", "CHECK-NEXT", "CHECK-SAME", "CHECK-EMPTY"}
DEFAULT_ARGS = ["check", "%s", "--no-cache", "--no-progress"]


def malformed(path, line, message):
    print(f"golden: MALFORMED: {path}:{line}: {message}")
    return 2


def main() -> int:
    layoutproof, filecheck, path = sys.argv[1:4]
    file = pathlib.Path(path).resolve()
    lines = file.read_text().splitlines()
    args, run_line, exit_code, positives = None, None, 0, 0
    for number, line in enumerate(lines, 1):
        for m in DIRECTIVE.finditer(line):
            keyword, rest = m.group(1), line[m.end():].strip()
            if keyword not in KNOWN:
                return malformed(path, number, f"unknown directive '{keyword}:' (known: {', '.join(sorted(KNOWN))})")
            if keyword == "RUN":
                if run_line:
                    return malformed(path, number, f"a second RUN line (the first is line {run_line})")
                words = shlex.split(rest)
                if not words or words[0] != "layoutproof":
                    return malformed(path, number, "RUN must start with 'layoutproof'")
                args, run_line = words[1:], number
            elif keyword == "EXIT":
                if not re.fullmatch(r"\d+", rest):
                    return malformed(path, number, f"EXIT takes an exit status, got '{rest}'")
                exit_code = int(rest)
            elif keyword in POSITIVE:
                positives += 1
    if positives == 0:
        return malformed(path, 1, "no CHECK line: the file would check nothing")
    argv = [layoutproof] + [a.replace("%s", file.name) for a in (args or DEFAULT_ARGS)]
    run = subprocess.run(argv, cwd=file.parent, capture_output=True, text=True, timeout=120)
    output = run.stdout + run.stderr
    command = "layoutproof " + " ".join(argv[1:])
    if run.returncode != exit_code:
        print(f"golden: FAIL: {path}: `{command}` exited {run.returncode}, expected {exit_code}; it printed:\n{output}")
        return 1
    check = subprocess.run([filecheck, "--strict-whitespace", "--dump-input=fail", str(file)], input=output,
                           capture_output=True, text=True, timeout=120)
    if check.returncode != 0:
        print(f"golden: FAIL: {path}: the output of `{command}` does not match:\n{check.stderr}")
        return 1
    print("golden: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
