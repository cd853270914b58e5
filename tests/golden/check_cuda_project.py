#!/usr/bin/env python3
"""`layoutproof check -p` on a real CMake project (tests/data/cuda_project), as a user runs it:

    check_cuda_project.py LAYOUTPROOF FILECHECK CMAKE PROJECT_DIR WORK_DIR

CMake configures the project with CMAKE_EXPORT_COMPILE_COMMANDS (its own compile commands, its own
flags per target), then each run's output (stdout, then stderr) is matched by FileCheck against the
lines of cuda_project.expected with that run's prefix. The project's units compile only with their
own flags: transpose.cu stops at an #error without its target's TILE_PAD define, and rowsum.cu
finds its header only on its target's include path. Exits 77 (skipped) where nvcc is absent.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent


def main() -> int:
    layoutproof, filecheck, cmake, project, work = sys.argv[1:6]
    if not shutil.which("nvcc") and not pathlib.Path("/usr/local/cuda/bin/nvcc").exists():
        print("nvcc not found: skipped")
        return 77
    work = pathlib.Path(work)
    shutil.rmtree(work, ignore_errors=True)
    build = work / "build"
    env = dict(os.environ)
    env["PATH"] = env.get("PATH", "") + ":/usr/local/cuda/bin"
    configure = subprocess.run([cmake, "-S", project, "-B", str(build), "-DCMAKE_CUDA_COMPILER=" + (shutil.which("nvcc", path=env["PATH"]) or "nvcc")],
                               capture_output=True, text=True, env=env)
    if configure.returncode != 0:
        print(configure.stdout + configure.stderr)
        return 1
    # A database whose transpose entry lost its define: nvcc stops at the unit's #error.
    entries = json.loads((build / "compile_commands.json").read_text())
    for e in entries:
        e["command"] = e["command"].replace("-DTILE_PAD=1", "")
    broken = work / "broken.json"
    broken.write_text(json.dumps(entries, indent=2))

    runs = {
        # The whole project: each unit for each of its architectures.
        "ALL": (["check", "-p", str(build), "--no-cache", "--no-progress"], 1),
        # One kernel, every instruction's finding.
        "NOFOLD": (["check", "-p", str(build), "--no-cache", "--no-progress", "--no-fold", "--kernel", r"row_sum<32>"], 1),
        # One unit by its path, the PTX kept.
        "KEEP": (["check", "-p", str(build), "--no-cache", "--no-progress", "--keep-ptx", str(work / "ptx"),
                  str(pathlib.Path(project) / "src" / "transpose.cu")], 0),
        "BROKEN": (["check", "--compile-commands", str(broken), "--no-cache", "--no-progress"], 2),
        "MISSING": (["check", "-p", str(work), "--no-cache", "--no-progress"], 2),
    }
    failed = False
    for prefix, (args, expected_exit) in runs.items():
        r = subprocess.run([layoutproof] + args, capture_output=True, text=True, env=env, cwd=project)
        output = r.stdout + r.stderr
        if r.returncode != expected_exit:
            print(f"{prefix}: exited {r.returncode}, expected {expected_exit}:\n{output}")
            failed = True
            continue
        check = subprocess.run([filecheck, "--strict-whitespace", "--dump-input=fail", f"--check-prefix={prefix}",
                                str(HERE / "cuda_project.expected")], input=output, capture_output=True, text=True)
        if check.returncode != 0:
            print(f"{prefix}: output does not match:\n{check.stdout}{check.stderr}")
            failed = True
    # The kept PTX is where the notes say, one per architecture of the unit.
    for arch in ("sm_80", "sm_90"):
        kept = work / "ptx" / "src" / f"transpose.cu.{arch}.ptx"
        if not kept.is_file() or f".target {arch}" not in kept.read_text():
            print(f"KEEP: {kept} is missing or not compiled for {arch}")
            failed = True
    print("cuda_project: " + ("FAIL" if failed else "PASS"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
