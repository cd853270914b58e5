"""The pytest helpers: they pass on what holds, and fail with the diagnostic `layoutproof check`
prints for the same annotations (the CLI run on the document the failure message quotes)."""
import os
import re
import subprocess

import pytest

import layoutproof as lp
from layoutproof.testing import annotation_document, assert_annotations_hold, assert_conflict_free, assert_injective

CLI = os.environ["LAYOUTPROOF_BIN"]

# layoutproof: smem sQ : f16 = Sw<3,3,3> o _0 o (_64,_64):(_64,_1) align 1024
# layoutproof: access q: sQ ldmatrix.x4 lanes (_16,_2,_4):(_1@0,_8@1,_16@1)
# layoutproof: expect q conflict-free


def test_conflict_free_access_passes():
    assert_conflict_free("Sw<3,3,3> o _0 o (_64,_64):(_64,_1)", "f16", "(_16,_2,_4):(_1@0,_8@1,_16@1)", "ldmatrix.x4",
                         base_align=1024)
    assert_conflict_free(lp.parse("(_32,_33):(_33,_1)"), "f32", "(_32):(_1@0)", "ld.shared.b32")


def test_conflicted_access_fails_with_the_cli_diagnostic(tmp_path):
    args = ("(_32,_32):(_32,_1)", "f32", "(_32):(_1@0)", "ld.shared.b32")
    with pytest.raises(AssertionError) as info:
        assert_conflict_free(*args)
    message = str(info.value)
    first = message.splitlines()[0]
    assert first.startswith(__file__ + ":") and first.endswith("assert_conflict_free does not hold:")
    assert "<assert_conflict_free>.lp:3:1: error: " in message
    assert "[LP002]" in message
    # The same document, written to a file and checked by the CLI, prints the same diagnostic.
    document = annotation_document(args[0], args[1], lanes=args[2], instr=args[3], expect=["access conflict-free"])
    assert message.endswith("the annotations checked:\n" + document.rstrip("\n"))
    path = tmp_path / "<assert_conflict_free>.lp"
    path.write_text(document)
    r = subprocess.run([CLI, "check", path.name, "--no-cache", "--no-progress"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=300)
    assert r.returncode == 1
    diagnostics = [f.diagnostic for f in lp.check_source(document, "<assert_conflict_free>.lp").findings]
    assert diagnostics
    for d in diagnostics:
        assert d in r.stdout
        assert d.rstrip("\n") in message


def test_guarded_lanes_reach_the_document():
    document = annotation_document("(_32):(_1)", "f32", lanes="(_32):(_1)", instr="ld.shared.b32", active=[3, 1, 2])
    assert "active 1, 2, 3" in document
    with pytest.raises(ValueError):
        annotation_document("(_32):(_1)", "f32", lanes="(_32):(_1)\nexpect x", instr="ld.shared.b32")


def test_injective_helper():
    assert_injective("(_8,_8):(_1,_8)")
    with pytest.raises(AssertionError, match=r"\[LP001\]"):
        assert_injective("(_8,_8):(_1,_4)")


def test_this_files_annotations_hold():
    assert_annotations_hold()


def test_annotations_that_fail(tmp_path):
    bad = tmp_path / "kernel.py"
    bad.write_text("# layoutproof: smem s : f16 = (_8,_8):(_1,_4)\n# layoutproof: expect s injective\n")
    with pytest.raises(AssertionError) as info:
        assert_annotations_hold(str(bad))
    assert re.search(r"kernel\.py:1:\d+: error: .*\[LP001\]", str(info.value))
    empty = tmp_path / "none.py"
    empty.write_text("x = 1\n")
    with pytest.raises(AssertionError, match="no layoutproof annotations"):
        assert_annotations_hold(str(empty))
