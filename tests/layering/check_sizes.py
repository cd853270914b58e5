#!/usr/bin/env python3
"""No source file over 800 lines and no function over 150 (docs/architecture.md, "Sizes").

    check_sizes.py REPO_ROOT

Scans the C++ sources of every library folder, the drivers, the fuzz targets and the tests. A
function is a brace block at namespace or class scope whose opening brace follows a parameter list
(`) {`, `) const {`, `) -> T {`, a constructor's initialisers, `TEST_CASE(...) {`); lambdas and
blocks inside it count towards it. Comments, string and character literals are blanked first, so
braces inside them are not counted. Prints FILE:LINE: error: ... for each violation and exits 1.
"""
import pathlib
import re
import sys

MAX_FILE_LINES = 800
MAX_FUNCTION_LINES = 150
FOLDERS = ["analyzer", "hw", "frontend", "solver", "findings", "rules", "report", "replay", "bench",
           "cli", "python", "fuzz", "include", "tests"]
CONTROL = {"if", "for", "while", "switch", "catch", "return", "sizeof", "alignof", "decltype",
           "static_assert", "noexcept", "requires"}
QUALIFIERS = re.compile(r"\)\s*(?:const|noexcept(?:\([^()]*\))?|override|final|mutable|volatile|&|&&|\s)*"
                        r"(?:->\s*[\w:<>,\s*&]+)?\s*$")
RAW_STRING = re.compile(r'R"([^(\s]*)\((.*?)\)\1"', re.S)


def blank(text: str) -> str:
    """The text with comments and literals replaced by spaces (newlines kept, so lines still count)."""
    text = RAW_STRING.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'" and not (c == "'" and i > 0 and text[i - 1].isalnum()):  # 1'000 is a digit separator
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (min(j + 1, n) - i))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def opens_function(before: str) -> bool:
    """Whether a brace whose preceding text is `before` opens a function body."""
    if not QUALIFIERS.search(before):
        # A constructor's initialiser list ends with a member's parenthesised or braced value.
        return bool(re.search(r"\)\s*:\s*[\w:]+\s*[({]", before) and re.search(r"[)}]\s*$", before))
    # The parenthesised list the brace follows: a control statement's or a call's is no function.
    depth, i = 0, before.rstrip().rfind(")")
    while i >= 0:
        depth += {")": 1, "(": -1}.get(before[i], 0)
        if depth == 0:
            break
        i -= 1
    head = re.search(r"([\w:~<>\]]+)\s*$", before[:max(i, 0)])
    return head is not None and head.group(1) not in CONTROL and not head.group(1).endswith("]")


def functions(text: str):
    """(first line, last line) of each function body at namespace or class scope."""
    code = blank(text)
    stack, found, last = [], [], 0  # stack: "function" or "scope" per open brace
    for i, c in enumerate(code):
        if c in ";}":
            if c == "}" and stack:
                kind, start = stack.pop()
                if kind == "function" and "function" not in (k for k, _ in stack):
                    found.append((code.count("\n", 0, start) + 1, code.count("\n", 0, i) + 1))
            last = i + 1
        elif c == "{":
            before = code[last:i]
            inside = any(k == "function" for k, _ in stack)
            stack.append(("function" if not inside and opens_function(before) else "scope", i))
            last = i + 1
    return found


def main() -> int:
    root = pathlib.Path(sys.argv[1]).resolve()
    errors, checked = [], 0
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in (".h", ".hpp", ".cpp", ".cu") or not path.is_file():
                continue
            rel, text = path.relative_to(root).as_posix(), path.read_text(errors="replace")
            checked += 1
            lines = text.count("\n") + (not text.endswith("\n"))
            if lines > MAX_FILE_LINES:
                errors.append(f"{rel}:1: error: {lines} lines, more than {MAX_FILE_LINES}: split it along its seams")
            for first, end in functions(text):
                if end - first + 1 > MAX_FUNCTION_LINES:
                    errors.append(f"{rel}:{first}: error: a function of {end - first + 1} lines, more than "
                                  f"{MAX_FUNCTION_LINES}")
    for e in errors:
        print(e)
    print(f"{checked} sources checked, {len(errors)} over the sizes")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
