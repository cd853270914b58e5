#!/usr/bin/env python3
"""The libraries' dependencies point one way (docs/architecture.md).

Each library of the pipeline has a layer; a source file may include only headers of its own
library or of libraries in lower layers, and its library must link (directly or through what it
links) every library it includes. Checked on the sources and on the CMakeLists' own
target_link_libraries, so neither the includes nor the link lines can drift from the table:

    check_layering.py REPO_ROOT

Prints every violation as FILE:LINE: error: ... and exits 1 when there is one.
"""
import pathlib
import re
import sys

# library: (folder, layer). One folder per library, and every source a library compiles lies in its
# folder (a nested folder is another library's). Libraries of one layer are peers and may not
# include each other.
LIBRARIES = {
    "lp_support": ("analyzer/support", 0),
    "lp_diag": ("analyzer/diag", 1),
    "lp_ir": ("analyzer/ir", 2),
    "lp_algebra": ("analyzer/algebra", 3),
    "lp_parse": ("analyzer/parse", 4),
    "lp_hw": ("hw", 5),
    "lp_term": ("frontend/term", 6),
    "lp_annotate": ("frontend/annotate", 6),
    "lp_cuda": ("frontend/cuda", 6),
    "lp_sass": ("frontend/sass", 6),
    "lp_ptx": ("frontend/ptx", 7),
    "lp_solver": ("solver", 8),
    "lp_findings": ("findings", 9),
    "lp_rules": ("rules", 10),
    "lp_report": ("report", 11),
    "lp_replay": ("replay", 11),
    "lp_report_pages": ("report/pages", 12),
    "lp_bench": ("bench", 13),
    "lp_api": ("api", 13),  # the records both drivers hand their users
    "lp_cli_commands": ("cli", 14),
    "lp_python_core": ("python", 14),  # the Python module: a driver beside the CLI
}
# Where add_library may appear; every library declared there must be in the table.
CMAKE_FILES = ["analyzer/CMakeLists.txt", "hw/CMakeLists.txt", "frontend/CMakeLists.txt", "solver/CMakeLists.txt",
               "findings/CMakeLists.txt", "rules/CMakeLists.txt", "report/CMakeLists.txt", "replay/CMakeLists.txt",
               "bench/CMakeLists.txt", "api/CMakeLists.txt", "cli/CMakeLists.txt", "python/CMakeLists.txt"]
# The header-only CuTe companion is compiled into users' programs: it includes nothing of ours.
STANDALONE = "include/layoutproof"

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def library_of(path: str):
    """The library a repository path belongs to: the longest folder holding it."""
    best, best_len = None, -1
    for lib, (folder, _) in LIBRARIES.items():
        if path.startswith(folder + "/") and len(folder) > best_len:
            best, best_len = lib, len(folder)
    return best


def cmake_links(root: pathlib.Path, errors: list):
    """library -> the lp_* libraries its CMakeLists links, from add_library/target_link_libraries."""
    links = {}
    for rel in CMAKE_FILES:
        text = (root / rel).read_text()
        # Drop comments, join continuation lines of a command.
        text = re.sub(r"#[^\n]*", "", text)
        for m in re.finditer(r"add_library\(\s*(\w+)([^)]*)\)", text):
            lib = m.group(1)
            if lib not in LIBRARIES:
                errors.append(f"{rel}: error: library {lib} has no layer in tests/layering/check_layering.py")
                continue
            links.setdefault(lib, set())
            folder = pathlib.PurePosixPath(rel).parent
            for source in m.group(2).split():
                if not source.endswith(".cpp") or "$" in source:
                    continue
                path = (folder / source).as_posix()
                if library_of(path) != lib:
                    errors.append(f"{rel}: error: {lib} compiles {path}, which lies outside its folder "
                                  f"{LIBRARIES[lib][0]}")
        for m in re.finditer(r"target_link_libraries\(\s*(\w+)([^)]*)\)", text):
            lib, args = m.group(1), m.group(2)
            if lib in LIBRARIES:
                links.setdefault(lib, set()).update(a for a in args.split() if a in LIBRARIES)
    return links


def closure(lib: str, links: dict) -> set:
    seen, todo = set(), [lib]
    while todo:
        for dep in links.get(todo.pop(), ()):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return seen


def main() -> int:
    root = pathlib.Path(sys.argv[1]).resolve()
    errors = []
    links = cmake_links(root, errors)
    for lib, deps in sorted(links.items()):
        for dep in sorted(deps):
            if LIBRARIES[dep][1] >= LIBRARIES[lib][1]:
                errors.append(f"CMakeLists: error: {lib} (layer {LIBRARIES[lib][1]}) links {dep} "
                              f"(layer {LIBRARIES[dep][1]}): links must point to lower layers")
    checked = 0
    folders = sorted({f for f, _ in LIBRARIES.values()} | {STANDALONE})
    sources = sorted({path for folder in folders for path in (root / folder).rglob("*")
                      if path.suffix in (".h", ".hpp", ".cpp") and path.is_file()})
    for path in sources:
        rel = path.relative_to(root).as_posix()
        own = library_of(rel)
        checked += 1
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            header = m.group(1)
            if rel.startswith(STANDALONE + "/"):
                if (root / header).exists():
                    errors.append(f"{rel}:{number}: error: the standalone CuTe companion includes "
                                  f"the project's header {header}")
                continue
            target = library_of(header)
            if target is None or target == own:
                continue
            if LIBRARIES[target][1] >= LIBRARIES[own][1]:
                errors.append(f"{rel}:{number}: error: {own} (layer {LIBRARIES[own][1]}) includes "
                              f"{header} of {target} (layer {LIBRARIES[target][1]})")
            elif target not in closure(own, links):
                errors.append(f"{rel}:{number}: error: {own} includes {header} of {target} "
                              f"but does not link it")
    for e in errors:
        print(e)
    print(f"{checked} sources of {len(LIBRARIES)} libraries checked, {len(errors)} violations")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
