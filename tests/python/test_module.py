"""The Python module against independent oracles: layouts evaluated by formulas written here, bank
conflicts counted here from the addresses, compositions checked point by point here, and the C++
CLI's JSON on the same questions (the module must agree with it exactly)."""
import itertools
import json
import os
import pathlib
import subprocess

import pytest

import layoutproof as lp

CLI = os.environ["LAYOUTPROOF_BIN"]
REPO = os.environ["LP_SOURCE_DIR"]


def cli_json(*args):
    r = subprocess.run([CLI, *args, "--json"], capture_output=True, text=True, timeout=300)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def colex(index, shape):
    coord = []
    for extent in shape:
        coord.append(index % extent)
        index //= extent
    return coord


def swizzle(offset, b, m, s):
    # CuTe's Swizzle<B,M,S>: the B bits at M+S.. XORed into the B bits at M..
    mask = ((1 << b) - 1) << (m + s)
    return offset ^ ((offset & mask) >> s)


# ---- layouts ------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,stride", [((4, 8), (8, 1)), ((2, 3, 4), (12, 1, 3)), ((8,), (2,)), ((4, 4), (0, 1))])
def test_eval_matches_shape_stride_formula(shape, stride):
    text = "(" + ",".join(f"_{e}" for e in shape) + "):(" + ",".join(f"_{d}" for d in stride) + ")"
    layout = lp.parse(text)
    assert layout.size == len(layout) == eval("*".join(map(str, shape)))
    assert layout.shape == list(shape)
    assert layout.notation == "cute"
    for i in range(layout.size):
        c = colex(i, shape)
        assert layout.coordinate(i) == c
        assert layout.index(c) == i
        assert layout(i) == sum(x * d for x, d in zip(c, stride))
        assert layout(tuple(c)) == layout(i)


def test_swizzled_layout_matches_cute_swizzle_formula():
    layout = lp.parse("Sw<3,3,3> o _0 o (_64,_64):(_64,_1)")
    for i in range(layout.size):
        r, c = colex(i, (64, 64))
        assert layout(i) == swizzle(r * 64 + c, 3, 3, 3)
    assert lp.prove_injective(layout).verdict == "proven"


def test_print_round_trips_and_notations():
    layout = lp.parse("Sw<3,3,3> o _0 o (_8,_64):(_64,_1)")
    assert layout.cute() == "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)"
    assert lp.parse(layout.cute()) == layout
    assert lp.Layout(str(layout)) == layout
    tirx = lp.parse("S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)]")
    assert tirx.notation == "tirx"
    assert set(tirx.axes) == {"laneid", "warpid", "m"}
    assert lp.parse(tirx.tirx()) == tirx
    image = tirx(0)
    assert isinstance(image, dict) and set(image) == set(tirx.axes)
    # CuTe's print format has no spelling for hardware axes: the module says so.
    with pytest.raises(lp.InputError):
        tirx.cute()


def test_replicas_have_every_image():
    layout = lp.parse("S[(8,4):(4@laneid,1@laneid)] + R[4:1@warpid]")
    assert layout.replica_count == 4
    images = layout.images(0)
    assert len(images) == 4
    assert sorted(img["warpid"] for img in images) == [0, 1, 2, 3]


# ---- errors ---------------------------------------------------------------------------------------

def test_malformed_layout_raises_located_diagnostic():
    with pytest.raises(lp.LayoutError) as info:
        lp.parse("(_4,_8:(_8,_1)", name="<mine>")
    e = info.value
    assert isinstance(e, ValueError) and isinstance(e, lp.Error)
    assert (e.file, e.line, e.column) == ("<mine>", 1, 7)
    assert e.diagnostic == str(e)
    assert e.diagnostic.startswith("<mine>:1:7: error: ")
    assert "(_4,_8:(_8,_1)\n      ^" in e.diagnostic
    assert e.message in e.diagnostic


@pytest.mark.parametrize("text", ["", "(", "Sw<9,9,9> o (_4):(_1)", "(_4,_8):(_1)", "S[(8):(4@laneid", "\x00", "(_99999999999999999999):(_1)"])
def test_bad_text_raises_never_crashes(text):
    with pytest.raises(lp.Error):
        lp.parse(text)


def test_wrong_types_and_values_raise():
    layout = lp.parse("(_4,_8):(_8,_1)")
    with pytest.raises(TypeError):
        lp.parse(42)
    with pytest.raises(TypeError):
        lp.prove_injective(3.5)
    with pytest.raises(IndexError):
        layout(32)
    with pytest.raises(IndexError):
        layout(-1)
    with pytest.raises(IndexError):
        layout((4, 0))
    with pytest.raises(lp.InputError):
        layout((1, 2, 3))
    with pytest.raises(TypeError):
        layout("x")
    with pytest.raises(lp.InputError):
        lp.prove_injective(layout, engine="magic")
    with pytest.raises(lp.InputError):
        lp.parse("(_4):(_1)", notation="klingon")
    with pytest.raises(lp.InputError):
        lp.prove_conflict_free(layout, "f77", "(_32):(_1)", "ld.shared.b32")
    with pytest.raises(lp.InputError):
        lp.prove_conflict_free(layout, "f32", "(_32):(_1)", "ld.global.b32")
    with pytest.raises(lp.InputError):
        lp.prove_conflict_free(layout, "f32", "(_32):(_1)", "ld.shared.b32", arch="sm_1000")
    with pytest.raises(lp.InputError):
        lp.prove_conflict_free(layout, "f32", "(_32):(_1)", "ld.shared.b32", active=[40])
    with pytest.raises(lp.InputError):
        lp.prove_covers(layout, {"laneid": (0, 31)})
    with pytest.raises(lp.InputError):
        lp.algebra("transmogrify", layout)
    with pytest.raises(lp.InputError):
        lp.compose(layout)
    with pytest.raises(lp.LayoutError):
        lp.compose(layout, "(_4,:(_1)")


# ---- proofs ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["(_4,_8):(_8,_1)", "(_4,_8):(_4,_1)", "(_8,_8):(_1,_4)", "Sw<2,0,2> o _0 o (_4,_4):(_4,_1)",
                                  "(_4,_8):(_0,_1)"])
@pytest.mark.parametrize("engine", ["auto", "enum", "z3"])
def test_injective_against_brute_force_and_cli(text, engine):
    layout = lp.parse(text)
    offsets = [layout(i) for i in range(layout.size)]
    expected = len(set(offsets)) == len(offsets)
    proof = lp.prove_injective(layout, engine=engine)
    assert proof.verdict == ("proven" if expected else "refuted")
    assert bool(proof) == expected
    cli = cli_json("prove", "injective", text, "--engine", engine)
    assert cli["verdict"] == proof.verdict
    if not expected:
        a, b = proof.counterexample["indices"]
        assert a != b and layout(a) == layout(b) == proof.counterexample["image"]
        assert cli["counterexample"]["indices"] == list(proof.counterexample["indices"])


def test_covers_against_brute_force():
    layout = lp.parse("S[(8,4):(4@laneid,1@laneid)] + R[2:2@warpid]")
    held = {(img["laneid"], img["warpid"]) for i in range(layout.size) for img in layout.images(i)}
    proof = lp.prove_covers(layout, {"laneid": (0, 31), "warpid": (0, 3)})
    assert proof.verdict == "refuted"
    hole = proof.counterexample["uncovered"]
    assert (hole["laneid"], hole["warpid"]) not in held
    assert lp.prove_covers(layout, {"laneid": (0, 31), "warpid": (0, 0)}).proven


def wavefronts_b32(offsets_bytes):
    # 32 four-byte banks; a bank delivers one distinct word per wavefront (docs/hardware.md).
    words_per_bank = {}
    for address in offsets_bytes:
        words_per_bank.setdefault((address // 4) % 32, set()).add(address // 4)
    return max(len(w) for w in words_per_bank.values())


@pytest.mark.parametrize("row_stride", [32, 33, 64, 1, 16, 8])
def test_conflicts_of_column_reads_against_bank_count(row_stride):
    # Lane l reads row l, column 0 of a f32 buffer with rows `row_stride` floats apart.
    smem = f"(_32,_32):(_{row_stride},_1)"
    lanes = "(_32):(_1@0)"
    expected = wavefronts_b32([4 * row_stride * lane for lane in range(32)])
    proof = lp.prove_conflict_free(smem, "f32", lanes, "ld.shared.b32")
    assert proof.wavefronts == expected
    assert proof.ideal == 1
    assert proof.verdict == ("proven" if expected == 1 else "refuted")
    if expected > 1:
        cx = proof.counterexample
        lane_a, lane_b = cx["lanes"]
        assert (4 * row_stride * lane_a // 4) % 32 == (4 * row_stride * lane_b // 4) % 32 == cx["bank"]


CONFLICT_CASES = [
    ("Sw<3,3,3> o _0 o (_64,_64):(_64,_1)", "f16", "(_16,_2,_4):(_1@0,_8@1,_16@1)", "ldmatrix.x4", 1024, None),
    ("(_64,_64):(_64,_1)", "f16", "(_16,_2,_4):(_1@0,_8@1,_16@1)", "ldmatrix.x4", None, None),
    ("(_64,_72):(_72,_1)", "f16", "(_16,_2,_4):(_1@0,_8@1,_16@1)", "ldmatrix.x4", None, None),
    ("(_32,_32):(_32,_1)", "f32", "(_32,_4):(_1@1,_8@0)", "st.shared.v4.b32", None, [0, 1, 2, 3, 4, 5, 6, 7]),
    ("(_128):(_1)", "f32", "(_32):(_4)", "ld.shared.v4.b32", None, None),
]


@pytest.mark.parametrize("smem,dtype,lanes,instr,align,active", CONFLICT_CASES)
def test_conflict_free_matches_cli(smem, dtype, lanes, instr, align, active):
    proof = lp.prove_conflict_free(smem, dtype, lanes, instr, base_align=align, active=active)
    args = ["prove", "conflict-free", "--smem", smem, "--dtype", dtype, "--lanes", lanes, "--instr", instr]
    if align is not None:
        args += ["--base-align", str(align)]
    if active is not None:
        args += ["--active", ",".join(map(str, active))]
    cli = cli_json(*args)
    assert cli["verdict"] == proof.verdict
    assert cli["wavefronts"] == proof.wavefronts and cli["ideal"] == proof.ideal
    assert cli["base_alignment"] == proof.base_alignment and cli["base_residues"] == proof.base_residues
    assert (proof.counterexample is None) == ("counterexample" not in cli)
    if proof.counterexample is not None:
        assert json.loads(json.dumps(proof.counterexample)) == cli["counterexample"]


# ---- algebra --------------------------------------------------------------------------------------

def test_compose_result_is_checked_point_by_point_here():
    a = lp.parse("(_4,_8):(_8,_1)")
    b = lp.parse("(_4,_2):(_8,_1)")
    r = lp.compose(a, b)
    assert r.verdict == "legal" and r.legal is True
    result = lp.parse(r.text)
    for i in range(b.size):
        assert result(i) == a(b(i))
    cli = cli_json("algebra", "compose", str(a), str(b))
    assert cli["result"] == r.text and cli["verdict"] == r.verdict


def test_algebra_operations_agree_with_cli():
    cases = [("complement", ["(_4):(_2)", "_16"]), ("logical_divide", ["(_8,_8):(_8,_1)", "[_2,_4]"]),
             ("right_inverse", ["(_4,_8):(_8,_1)"]), ("coalesce", ["(_2,(_2,_4)):(_1,(_2,_4))"]),
             ("blocked_product", ["(_2,_2):(_1,_2)", "(_3,_3):(_1,_3)"]), ("compose", ["Sw<3,4,3>", "(_8,_64):(_64,_1)"]),
             ("max_common_vector", ["(_4,_8):(_8,_1)", "(_4,_8):(_8,_1)"])]
    assert set(c for c, _ in cases) <= set(lp.ALGEBRA_OPERATIONS)
    for op, operands in cases:
        r = getattr(lp, op)(*operands)
        cli = cli_json("algebra", op, *operands)
        assert (r.text, r.verdict, r.reason) == (cli["result"], cli["verdict"], cli["reason"]), op


def test_illegal_composition_has_a_witness_checked_here():
    # 6 is not a multiple of 4: CuTe's result (_2,_2):(_4,_7) is not A o B (docs/algebra.md).
    a, b = lp.parse("(_6,_6):(_1,_7)"), lp.parse("_4:_4")
    r = lp.compose(a, b)
    assert (r.text, r.verdict, r.legal) == ("(_2,_2):(_4,_7)", "illegal", False)
    result = lp.parse(r.text)
    wrong = [i for i in range(b.size) if result(i) != a(b(i))]
    assert wrong and r.witness["index"] in wrong
    i = r.witness["index"]
    assert (int(r.witness["expected"]), int(r.witness["actual"])) == (a(b(i)), result(i))
    # Where CuTe rejects the operands there is no result, and the verdict says so as the CLI does.
    rejected = lp.compose("(_4,_2):(_1,_8)", "(_9):(_1)")
    assert (rejected.text, rejected.verdict) == (None, "illegal")
    assert cli_json("algebra", "compose", "(_4,_2):(_1,_8)", "(_9):(_1)")["result"] is None


# ---- check --------------------------------------------------------------------------------------

def test_check_matches_cli_on_corpus_entries():
    paths = [os.path.join(REPO, "corpus/tilelang/mma_swizzle_int8_prefix_pr455.lp"),
             os.path.join(REPO, "corpus/tvm/ldstmatrix_test_warpgroup_x4_swizzle128.py")]
    run = lp.check([pathlib.Path(p) for p in paths], jobs=2)
    assert [f.rule_id for f in lp.check(paths[0], jobs=1).findings] == ["LP001"]
    r = subprocess.run([CLI, "check", *paths, "--format", "json", "--no-cache", "--no-progress"], capture_output=True,
                       text=True, timeout=300)
    cli = json.loads(r.stdout)
    ours = sorted((f.rule_id, os.path.basename(f.file), f.line) for f in run.findings)
    theirs = sorted((f["rule"], os.path.basename(f["file"]), f["line"]) for f in cli["findings"])
    assert ours == theirs
    assert ("LP001", "mma_swizzle_int8_prefix_pr455.lp", 24) in ours
    assert not run.passes()
    assert [f["message"] for f in json.loads(run.report("json"))["findings"]] == [f["message"] for f in cli["findings"]]


def test_check_source_locates_python_annotations():
    text = ("x = 1\n"
            "# layoutproof: arch sm_90\n"
            "# layoutproof: smem sA : f16 = (_8,_8):(_1,_4)\n"
            "# layoutproof: expect sA injective\n")
    run = lp.check_source(text, "kernel.py")
    assert len(run.findings) == 1
    f = run.findings[0]
    assert (f.rule_id, f.file, f.line, f.severity, f.kind) == ("LP001", "kernel.py", 3, "error", "violation")
    assert f.diagnostic.startswith("kernel.py:3:")
    assert "[LP001]" in f.diagnostic
    good = lp.check_source(text.replace("(_1,_4)", "(_1,_8)"), "kernel.py")
    assert good.passes() and good.obligations and all(o.passed for o in good.obligations)
    with pytest.raises(lp.InputError):
        good.report("pdf")


def test_check_budget_makes_unknowns_not_passes():
    run = lp.check_source("smem sA : f16 = (_8,_8):(_1,_8)\nexpect sA injective\n", "t.lp", time_budget=1e-9)
    assert not run.passes()
    assert any(f.kind == "unknown" for f in run.findings)


def test_every_operation_is_exported():
    for op in lp.ALGEBRA_OPERATIONS:
        assert callable(getattr(lp, op))
    assert lp.__version__ == subprocess.run([CLI, "--version"], capture_output=True, text=True).stdout.split()[1]


def test_random_text_never_crashes_the_interpreter():
    # Fragments of every notation, shuffled: each call returns or raises layoutproof.Error.
    import random
    rng = random.Random(20261127)
    tokens = ["(", ")", ",", ":", "_4", "_8", "8", "-1", "Sw<3,3,3>", " o ", "_0", "S[", "]", "@laneid", "1@0",
              "R[", "+", "smem_ptr[16b](unset)", "<8 : 2>", "composition(", "Layout<Shape<_8>,Stride<_1>>{}", "[", "x",
              "99999999999999999999", "\x00", "é"]
    for _ in range(1500):
        text = "".join(rng.choice(tokens) for _ in range(rng.randint(0, 12)))
        try:
            layout = lp.parse(text)
            str(layout)
            if layout.size <= 4096:
                lp.prove_injective(layout, timeout_ms=2000)
        except lp.Error:
            pass
        try:
            lp.algebra(rng.choice(lp.ALGEBRA_OPERATIONS), text, "(_4,_2):(_1,_4)")
        except lp.Error:
            pass
        try:
            run = lp.check_source("smem s : f16 = " + text + "\nexpect s injective\n", "t.lp")
            assert not run.passes() or run.obligations
        except lp.Error:
            pass
