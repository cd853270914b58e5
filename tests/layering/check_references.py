#!/usr/bin/env python3
"""Every repository file or folder that a doc or a comment names exists.

    check_references.py REPO_ROOT

Scans the Markdown files, and the sources and scripts of the repository, for paths that start with
one of the repository's top-level folders (`frontend/ptx/PtxEval.h`, `docs/ptx.md`,
`scripts/gpu/zfill_probe.cu`, `tests/data/*.tsv`) and checks each against the tree. A path must
exist from the root, from docs/ (the installed documentation's root) or from the naming file's
folder or one above it, as itself, as the stem of `X.h`/`X.cpp`, or as the `X.in` a build
configures; a glob must match something; `a/{B,C}.h` must exist for each alternative.
Not checked: what a run or a build writes (`build/...` and `OUT/` start elsewhere), ctest names
(after ctest ` or NAME), a test's string literals (the files of the trees it builds), and files of
other projects (a path after `owner/repo ` or a GitHub URL's commit, and `include/...` outside
`include/layoutproof`, where CUTLASS, Triton and the examples' kernels keep their headers).
Prints FILE:LINE: error: ... for each reference to nothing and exits 1 when there is one.
"""
import pathlib
import re
import subprocess
import sys

TOP = ("analyzer", "frontend", "hw", "solver", "findings", "rules", "report", "replay", "bench", "cli",
       "python", "fuzz", "include", "tests", "docs", "scripts", "cmake", "corpus")
# A path: a top folder, then segments of name characters, braces, commas and globs; it must not
# continue a longer path (`build/cli/...`, `a/docs/...`) or a URL.
REFERENCE = re.compile(r"(?<![\w./:-])((?:%s)/[\w.*{},/-]*[\w*}/])" % "|".join(TOP))
SCANNED = (".md", ".h", ".hpp", ".cpp", ".cu", ".py", ".sh", ".txt", ".cmake", ".toml", ".yml", ".lp")
# Placeholders that name a family, not a file: LP0xx, LPnnn, NAME, <kernel>.
PLACEHOLDER = re.compile(r"LP0?xx|LPnnn|NAME|PROGRAM|\bX\b|_N\b|\{\}")
# What precedes a path of another project: `owner/repo ` or a GitHub URL up to its commit.
FOREIGN = re.compile(r"(?:\b[\w.-]+/[\w.-]+ |/(?:blob|tree)/[0-9a-f]{7,40}/)$")
# What precedes a name that is not a path: a ctest test's name.
TEST_NAME = re.compile(r"(?:ctest `|NAME |set_tests_properties\()$")


def expand(path: str):
    """The alternatives of the first {a,b} in path, recursively."""
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    return [e for alt in m.group(1).split(",") for e in expand(path[:m.start()] + alt + path[m.end():])]


def exists(root: pathlib.Path, naming: pathlib.Path, path: str) -> bool:
    path = path.rstrip("/.,")
    for base in [root, root / "docs", *[p for p in naming.parents if root in p.parents]]:
        if "*" in path:
            if any(base.glob(path)):
                return True
        elif any((base / (path + suffix)).exists() for suffix in ("", ".h", ".cpp", ".in")):
            return True
    return False


def main() -> int:
    root = pathlib.Path(sys.argv[1]).resolve()
    files = subprocess.run(["git", "-C", str(root), "ls-files", "--cached", "--others", "--exclude-standard"],
                           capture_output=True, text=True, check=True).stdout.split()
    errors, checked = [], 0
    for rel in sorted(set(files)):
        path = root / rel
        if not rel.endswith(SCANNED) or not path.is_file() or rel.startswith(("corpus/", "tests/data/")):
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            for m in REFERENCE.finditer(line):
                ref = m.group(1)
                if (PLACEHOLDER.search(ref) or "{" in ref and "}" not in ref or FOREIGN.search(line[:m.start()]) or TEST_NAME.search(line[:m.start()])
                        or rel.startswith("tests/") and line[:m.start()].endswith('"')
                        or ref.startswith("include/") and not ref.startswith("include/layoutproof")):
                    continue
                checked += 1
                missing = [p for p in expand(ref) if not exists(root, path, p)]
                if missing:
                    errors.append(f"{rel}:{number}: error: names {', '.join(missing)}, which does not exist")
    for e in errors:
        print(e)
    print(f"{checked} references checked, {len(errors)} to nothing")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
