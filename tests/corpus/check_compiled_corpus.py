#!/usr/bin/env python3
"""Every corpus entry whose kernel compiles offline is checked against its compiled kernel (LP015).

An entry names its kernel in its header (docs/corpus.md, "Entries bound to compiled kernels"):

    # compiled: examples/cute/tutorial/sgemm_1.cu sm_80; s2r "gemm_device<.*C<1> >" at "sgemm_1.cu":214

the source inside the pinned nvidia-cutlass package (its `source/` tree: CuTe's headers and
tutorials), the architecture, and one binding per access, `ACCESS "KERNEL" at "FILE":LINE`, the
text of an `expect ACCESS compiled ...` statement. Each source is compiled once to PTX with nvcc
(-O3 -lineinfo, as `check --cuda` does); each entry is checked with its bindings appended, and
every binding must be proven: the test fails when an entry drifts from its compiled kernel.

Usage: check_compiled_corpus.py LAYOUTPROOF REPOSITORY WORKDIR   (exit 77: no nvcc or no package)
"""
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HEADER = re.compile(r"^(?:#|//)\s*compiled:\s*(.*)$")
BINDING = re.compile(r'^\s*([A-Za-z_][A-Za-z0-9_]*)\s+(".*)$')


def cutlass_source():
    try:
        import cutlass_library  # the pinned nvidia-cutlass (scripts/install-deps.sh)
    except ImportError:
        return None
    root = Path(cutlass_library.__file__).parent / "source"
    return root if (root / "include" / "cute").is_dir() else None


def bound_entries(repository):
    """(entry, source, arch, [(access, expectation text)]) for each entry with a `compiled` header."""
    out = []
    for path in sorted((repository / "corpus").rglob("*")):
        if path.suffix not in (".lp", ".cu", ".py") or not path.is_file():
            continue
        for line in path.read_text().splitlines():
            m = HEADER.match(line)
            if not m:
                continue
            parts = [p.strip() for p in m.group(1).split(";")]
            source, arch = parts[0].split()
            bindings = []
            for p in parts[1:]:
                b = BINDING.match(p)
                if not b:
                    sys.exit(f"{path}: malformed binding '{p}' (expected: ACCESS \"KERNEL\" at \"FILE\":LINE)")
                bindings.append((b.group(1), b.group(2)))
            if not bindings:
                sys.exit(f"{path}: a `compiled` header binds no access")
            out.append((path, source, arch, bindings))
    return out


def compile_ptx(nvcc, root, source, arch, workdir):
    ptx = workdir / f"{Path(source).stem}.{arch}.ptx"
    cmd = [nvcc, "-std=c++17", "-O3", "-lineinfo", "-ptx", f"-arch={arch}", f"-I{root / 'include'}",
           f"-I{root / 'tools' / 'util' / 'include'}", str(root / source), "-o", str(ptx)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"nvcc failed on {source}:\n{r.stderr[-4000:]}")
    return ptx


def main():
    layoutproof, repository, workdir = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.access("/usr/local/cuda/bin/nvcc", os.X_OK) else None)
    root = cutlass_source()
    if not nvcc or not root:
        print("skipped: needs nvcc and the nvidia-cutlass package")
        return 77
    entries = bound_entries(repository)
    if not entries:
        print("no corpus entry is bound to a compiled kernel")
        return 1
    workdir.mkdir(parents=True, exist_ok=True)
    units = sorted({(source, arch) for _, source, arch, _ in entries})
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(len(units), os.cpu_count() or 1))) as pool:
        ptx = dict(zip(units, pool.map(lambda u: compile_ptx(nvcc, root, u[0], u[1], workdir), units)))
    failures = 0
    for path, source, arch, bindings in entries:
        # The entry with its bindings, as an annotation file of the same kind.
        prefix = "" if path.suffix == ".lp" else ("# layoutproof: " if path.suffix == ".py" else "// layoutproof: ")
        bound = workdir / path.name
        bound.write_text(path.read_text() + "\n" + "".join(f"{prefix}expect {a} compiled {e}\n" for a, e in bindings))
        r = subprocess.run([layoutproof, "check", str(bound), str(ptx[(source, arch)]), "--no-cache", "--no-progress",
                            "--format", "json"], capture_output=True, text=True)
        report = json.loads(r.stdout)
        obligations = [o for o in report["obligations"] if o["rule"] == "LP015"]
        findings = [f for f in report["findings"] if f["rule"] == "LP015"]
        proven = sum(1 for o in obligations if o["passed"])
        ok = proven == len(bindings) and not findings
        failures += not ok
        rel = path.relative_to(repository)
        print(f"{'ok  ' if ok else 'FAIL'} {rel}: {proven} of {len(bindings)} bindings proven against {source} ({arch})")
        for f in findings:
            print(f"     {f['message']}")
            for n in f["notes"]:
                print(f"       note: {n['message']}")
    print(f"{len(entries) - failures} of {len(entries)} bound corpus entries are their compiled kernels")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
