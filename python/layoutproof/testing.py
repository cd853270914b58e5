"""pytest helpers: assertions whose failure message is the diagnostic `layoutproof check` prints.

    from layoutproof.testing import assert_conflict_free, assert_annotations_hold

    def test_q_tile_reads():
        assert_conflict_free("Sw<3,3,3> o _0 o (_64,_64):(_64,_1)", "f16",
                             "(_16,_2,_4):(_1@0,_8@1,_16@1)", "ldmatrix.x4", base_align=1024)

    def test_this_files_annotations():
        assert_annotations_hold()   # every `# layoutproof:` comment of the calling file

Each helper checks an annotation document with the same rules as the CLI and raises
AssertionError when any finding is at or above `fail_on` (default warning) or when its own
statement was not proven (an unknown fails too).
"""
from __future__ import annotations

import inspect
from typing import Sequence, Union

from . import CheckRun, Layout, check, check_source

__all__ = ["assert_annotations_hold", "assert_conflict_free", "assert_injective", "annotation_document"]


def _text(value: Union[Layout, str]) -> str:
    if isinstance(value, Layout):
        return str(value)
    if isinstance(value, str):
        if "\n" in value:
            raise ValueError("a layout's text is one line")
        return value
    raise TypeError(f"expected a layoutproof.Layout or a layout's text, got {type(value).__name__}")


def _lanes_clause(active: Sequence[int] | None) -> str:
    if active is None:
        return ""
    lanes = sorted(set(int(a) for a in active))
    if not lanes:
        raise ValueError("active: at least one lane executes the access")
    return " active " + ", ".join(str(lane) for lane in lanes)


def annotation_document(smem: Union[Layout, str], dtype: str, *, lanes: Union[Layout, str, None] = None,
                        instr: str | None = None, arch: str = "sm_90", base_align: int | None = None,
                        active: Sequence[int] | None = None, expect: Sequence[str] = ()) -> str:
    """The .lp document the helpers check: buffer `buf`, access `access` (when an instruction is
    given), and the expectations, as a user would write them (docs/annotations.md)."""
    align = "" if base_align is None else f" align {int(base_align)}"
    lines = [f"arch {arch}", f"smem buf : {dtype} = {_text(smem)}{align}"]
    if instr is not None:
        if lanes is None:
            raise ValueError("an access needs its lanes layout")
        lines.append(f"access access: buf {instr} lanes {_text(lanes)}{_lanes_clause(active)}")
    lines += [f"expect {e}" for e in expect]
    return "\n".join(lines) + "\n"


def _caller() -> str:
    frame = inspect.stack()[2]
    return f"{frame.filename}:{frame.lineno}"


def _fail_unless_holds(run: CheckRun, fail_on: str, what: str, document: str | None, caller: str) -> None:
    failed = not run.passes(fail_on)
    unproven = [o for o in run.obligations if not o.passed]
    if not failed and not unproven:
        return
    parts = [f"{caller}: {what} does not hold:"]
    parts += [f.diagnostic.rstrip("\n") for f in run.findings]
    if not run.findings:
        parts += [f"obligation not proven: {o.description} [{o.rule_id}]" for o in unproven]
    if document is not None:
        parts.append("the annotations checked:\n" + document.rstrip("\n"))
    raise AssertionError("\n".join(parts))


def assert_conflict_free(smem: Union[Layout, str], dtype: str, lanes: Union[Layout, str], instr: str, *,
                         arch: str = "sm_90", base_align: int | None = None, active: Sequence[int] | None = None,
                         engine: str | None = None, fail_on: str = "warning") -> None:
    """The warp access `instr` with `lanes` into the buffer `smem` of `dtype` is conflict-free at
    every base `base_align` allows, in bounds and aligned (rules LP002, LP007, ...)."""
    document = annotation_document(smem, dtype, lanes=lanes, instr=instr, arch=arch, base_align=base_align,
                                   active=active, expect=["access conflict-free"])
    run = check_source(document, "<assert_conflict_free>.lp", engine=engine)
    _fail_unless_holds(run, fail_on, "assert_conflict_free", document, _caller())


def assert_injective(smem: Union[Layout, str], dtype: str = "f16", *, engine: str | None = None,
                     fail_on: str = "warning") -> None:
    """No two elements of the buffer layout `smem` share an offset (rule LP001)."""
    document = annotation_document(smem, dtype, expect=["buf injective"])
    run = check_source(document, "<assert_injective>.lp", engine=engine)
    _fail_unless_holds(run, fail_on, "assert_injective", document, _caller())


def assert_annotations_hold(paths: Union[str, Sequence[str], None] = None, *, engine: str | None = None,
                            config: str | None = None, fail_on: str = "warning") -> None:
    """Every annotation in `paths` (default: the calling file) holds: `layoutproof check` passes."""
    caller = _caller()
    if paths is None:
        paths = [caller.rsplit(":", 1)[0]]
    run = check(paths, engine=engine, config=config)
    if not run.obligations and not run.findings:
        raise AssertionError(f"{caller}: no layoutproof annotations in {', '.join(run.files) or 'the paths'}")
    _fail_unless_holds(run, fail_on, "the annotations", None, caller)
