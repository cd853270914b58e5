"""layoutproof.cute_dsl against the CuTe DSL itself (pinned: layoutproof.cute_dsl.TESTED_CUTE_DSL).

Oracles: the DSL's own evaluation of its layouts (L(i) while tracing), the TiledCopy's own
thread-value layout evaluated by the DSL, and bank counts done here from those DSL values.
"""
import os

import pytest

if os.environ.get("LP_REQUIRE_CUTE_DSL"):
    import cutlass  # noqa: F401  (CI installs it: a missing DSL fails rather than skips)
else:
    pytest.importorskip("cutlass.cute")

import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402

import layoutproof as lp  # noqa: E402
import layoutproof.cute_dsl as lpc  # noqa: E402

ROWS, COLS = 16, 64


def trace(build):
    """Runs `build` while the DSL traces a host function; returns what it put in its dict."""
    found = {}

    @cute.jit
    def host():
        build(found)

    host()
    return found


def layouts(found):
    plain = cute.make_layout((ROWS, COLS), stride=(COLS, 1))
    padded = cute.make_layout((ROWS, COLS), stride=(COLS + 8, 1))
    for name, dsl in (("plain", plain), ("padded", padded),
                      ("sw333", cute.make_composed_layout(cute.make_swizzle(3, 3, 3), 0, plain)),
                      ("sw232", cute.make_composed_layout(cute.make_swizzle(2, 3, 2), 0, plain)),
                      ("divided", cute.logical_divide(plain, (4, 16)))):
        found[name] = (lpc.layout(dsl), str(dsl), [int(dsl(i)) for i in range(cute.size(dsl))])
    atom = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), cutlass.Float16, num_bits_per_copy=128)
    copy = cute.make_tiled_copy_tv(atom, cute.make_layout((ROWS, 8), stride=(8, 1)), cute.make_layout((1, 8)))
    tv = copy.layout_tv_tiled
    found["tv"] = [[int(tv((t, v))) for v in range(8)] for t in range(ROWS * 8)]
    for name in ("plain", "padded", "sw333", "sw232"):
        found["copy_" + name] = lpc.copy_access(copy, found[name][0], "f16", "st.shared.v4.b32")
    with pytest.raises(lpc.UnsupportedCopy):
        lpc.copy_access(copy, cute.make_layout((ROWS, COLS), stride=(1, ROWS)), "f16", "st.shared.v4.b32")
    with pytest.raises(lpc.UnsupportedCopy, match="row addresses"):
        lpc.copy_access(copy, plain, "f16", "ldmatrix.x4")


@pytest.fixture(scope="module")
def dsl():
    return trace(layouts)


def test_layouts_evaluate_as_the_dsl_evaluates_them(dsl):
    for name in ("plain", "padded", "sw333", "sw232", "divided"):
        layout, text, values = dsl[name]
        assert [layout(i) for i in range(layout.size)] == values, name
    assert dsl["sw333"][1] == "S<3,3,3> o 0 o (16,64):(64,1)"
    assert str(dsl["sw333"][0]) == "Sw<3,3,3> o _0 o (16,64):(64,1)"


def test_copy_lanes_are_the_tiled_copys_threads(dsl):
    access = dsl["copy_plain"]
    lanes = lp._core.WARP_LANES
    issues = access.lanes.size // lanes
    assert access.lanes.size * access.vector == ROWS * COLS
    seen = set()
    for issue in range(issues):
        for lane in range(lanes):
            thread = lane + lanes * issue  # one value group per thread here: issues are the other warps
            assert access.lanes(lane + lanes * issue) == dsl["tv"][thread][0]
            seen.update(dsl["tv"][thread])
    assert len(seen) == ROWS * COLS


@pytest.mark.parametrize("name", ["plain", "padded", "sw333", "sw232"])
def test_copy_wavefronts_equal_a_count_over_the_dsls_addresses(dsl, name):
    access, (_, _, offsets) = dsl["copy_" + name], dsl[name]
    proof = access.prove(base_align=128)
    assert proof.verdict in ("proven", "refuted")
    lanes, group = lp._core.WARP_LANES, 8  # 16-byte accesses run in phases of 8 lanes (docs/hardware.md)
    worst = 0
    for warp in range(len(dsl["tv"]) // lanes):
        wavefronts = 0
        for phase in range(lanes // group):
            words = {}
            for lane in range(phase * group, (phase + 1) * group):
                start = offsets[dsl["tv"][warp * lanes + lane][0]] * 2  # bytes of f16
                for word in range(start // 4, (start + 16) // 4):
                    words.setdefault(word % 32, set()).add(word)
            wavefronts += max(len(w) for w in words.values())
        worst = max(worst, wavefronts)
    assert proof.wavefronts == worst
    assert (proof.verdict == "proven") == (worst == proof.ideal)


def test_text_and_type_errors():
    assert str(lpc.layout("S<3,4,3> o 0 o (8,64):(64,1)")) == "Sw<3,4,3> o _0 o (8,64):(64,1)"
    with pytest.raises(lp.LayoutError):
        lpc.layout("S<3,4> o 0 o (8,64):(64,1)")
    with pytest.raises(TypeError):
        lpc.layout(42)
    with pytest.raises(TypeError):
        lpc.copy_access("not a copy", "(8,8):(8,1)", "f16", "st.shared.v4.b32")
