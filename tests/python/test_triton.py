"""layoutproof.triton against Triton itself (pinned: layoutproof.triton.TESTED_TRITON).

Oracles: Triton's own LinearLayout bases, composed here by brute force (offset -> coordinate
enumerated, then inverted by a dict); Triton's own bank-conflict count where its model holds
(stores, whole 32-bit words); the PTX Triton's compiler emits for the same pair.
"""
import os
import re

import pytest

if os.environ.get("LP_REQUIRE_TRITON"):
    import triton  # noqa: F401  (CI installs it: a missing Triton fails rather than skips)
else:
    pytest.importorskip("triton")

from triton.experimental.gluon import language as gl  # noqa: E402

import layoutproof as lp  # noqa: E402
import layoutproof.triton as lpt  # noqa: E402

SHAPE = [64, 64]
BLOCKED_8 = gl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
BLOCKED_4 = gl.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])
BLOCKED_COL = gl.BlockedLayout([8, 1], [8, 4], [1, 4], [0, 1])
MMA_V3 = gl.NVMMADistributedLayout([3, 0], [4, 1], [16, 64, 16])
UNSWIZZLED = gl.SwizzledSharedLayout(1, 1, 1, [1, 0])
SHARED = {
    "unswizzled": UNSWIZZLED,
    "swz818": gl.SwizzledSharedLayout(8, 1, 8, [1, 0]),
    "swz424": gl.SwizzledSharedLayout(4, 2, 4, [1, 0]),
    "swz818_col": gl.SwizzledSharedLayout(8, 1, 8, [0, 1]),
    "nvmma128": gl.NVMMASharedLayout(128, 16),
    "nvmma64": gl.NVMMASharedLayout(64, 16),
    "nvmma32": gl.NVMMASharedLayout(32, 16),
}
PAIRS = [(name_r, reg, name_s, smem, dtype)
         for name_r, reg, dtype in (("blocked8", BLOCKED_8, "f16"), ("blocked4", BLOCKED_4, "f16"),
                                    ("blocked_col", BLOCKED_COL, "f16"), ("blocked4_f32", BLOCKED_4, "f32"))
         for name_s, smem in SHARED.items()
         if not (dtype == "f32" and name_s.startswith("nvmma"))]


def xor_bases(bases, bits):
    out = [0] * len(SHAPE)
    for k, b in enumerate(bases):
        if bits >> k & 1:
            out = [x ^ y for x, y in zip(out, b)]
    return tuple(out)


def offsets_by_coordinate(ll):
    # Triton's shared layout maps offset bits to coordinates; enumerate it and invert by a dict.
    size = SHAPE[0] * SHAPE[1]
    table = {xor_bases(ll.offset, o): o for o in range(size)}
    assert len(table) == size
    return table


@pytest.mark.parametrize("name_r,reg,name_s,smem,dtype", PAIRS, ids=[f"{p[0]}-{p[2]}-{p[4]}" for p in PAIRS])
def test_each_lane_addresses_the_element_triton_places_there(name_r, reg, name_s, smem, dtype):
    for op in ("load", "store"):
        access = lpt.shared_access(reg, smem, SHAPE, dtype, op=op, instr="vector")
        ll = access.layouts
        where = offsets_by_coordinate(ll)
        warp_lanes = lp._core.WARP_LANES
        for issue in range(access.lanes.size // warp_lanes):
            bits = access.issue(issue)
            for lane in range(warp_lanes):
                index = access.lanes(lane + warp_lanes * issue)
                coord = xor_bases(ll.lane, lane)
                coord = tuple(a ^ b ^ c for a, b, c in zip(coord, xor_bases(ll.register, bits["register"]),
                                                             xor_bases(ll.warp, bits["warp"])))
                assert access.coordinate(index) == coord
                assert access.smem(index) == where[coord]
                # The lane's vector: consecutive offsets held by its registers (Triton's vectorisation).
                for j in range(access.vector):
                    assert access.smem(index + j) == where[coord] + j


@pytest.mark.parametrize("name_r,reg,name_s,smem,dtype", PAIRS, ids=[f"{p[0]}-{p[2]}-{p[4]}" for p in PAIRS])
def test_stores_of_whole_words_agree_with_tritons_count(name_r, reg, name_s, smem, dtype):
    # Triton counts extra wavefronts of a plain st.shared at its vector width. Its model is the
    # hardware's for stores whose accesses are whole 32-bit words (no merging, no swizzle inside a
    # word); 16-bit scalar stores are left out.
    proof = lpt.prove_conflict_free(reg, smem, SHAPE, dtype, op="store", instr="vector")
    assert proof.verdict in ("proven", "refuted")
    element_bits = lp._core.element_bits(dtype)
    if proof.access.vector * element_bits < 32:
        pytest.skip("sub-word stores: Triton's model ignores the swizzle inside a word")
    triton_extra = lpt.bank_conflicts(reg, smem, SHAPE, dtype)
    assert proof.wavefronts // proof.ideal - 1 == triton_extra
    assert (triton_extra == 0) == (proof.verdict == "proven")


def test_matrix_instructions_for_mma_layouts():
    for smem, verdict, wavefronts in ((UNSWIZZLED, "refuted", 32), (SHARED["nvmma128"], "proven", 4)):
        for op, instr in (("store", "stmatrix.x4"), ("load", "ldmatrix.x4")):
            p = lpt.prove_conflict_free(MMA_V3, smem, SHAPE, "f16", op=op)
            assert p.access.instr == instr
            assert (p.verdict, p.wavefronts, p.ideal) == (verdict, wavefronts, 4)
    # 32-bit elements have no matrix instruction: two registers per lane, 8 bytes.
    assert lpt.shared_access(MMA_V3, UNSWIZZLED, SHAPE, "f32", op="store").instr == "st.shared.v2.b32"


def round_trip_source():
    from triton.experimental import gluon

    @gluon.jit
    def round_trip(in_ptr, out_ptr, M: gl.constexpr, N: gl.constexpr, REG: gl.constexpr, SMEM: gl.constexpr):
        rows = gl.arange(0, M, layout=gl.SliceLayout(1, REG))
        cols = gl.arange(0, N, layout=gl.SliceLayout(0, REG))
        offs = rows[:, None] * N + cols[None, :]
        buf = gl.allocate_shared_memory(in_ptr.dtype.element_ty, [M, N], SMEM)
        buf.store(gl.load(in_ptr + offs))  # the local_store
        gl.store(out_ptr + offs, buf.load(REG))  # the local_load
    return round_trip


def compile_round_trip(reg, smem, dtype):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental import gluon

    ptr = {"f16": "*fp16", "f32": "*fp32"}[dtype]
    source = gluon.GluonASTSource(round_trip_source(), {"in_ptr": ptr, "out_ptr": ptr, "M": "constexpr",
                                                        "N": "constexpr", "REG": "constexpr", "SMEM": "constexpr"},
                                  {"M": SHAPE[0], "N": SHAPE[1], "REG": reg, "SMEM": smem})
    return triton.compile(source, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})


PTX_SHARED = re.compile(r"^\s*(?:@!?%p\d+\s+)?((?:st|ld)\.shared\S*|ldmatrix\S*|stmatrix\S*)\s", re.M)
# PTX spellings of one lane's access size (bytes) or matrix form, as the model names them.
PTX_BYTES = {"st.shared.v4.b32": 16, "st.shared.v4.b16": 8, "st.shared.v2.b32": 8, "st.shared.b16": 2,
             "ld.shared.v4.b32": 16, "ld.shared.v4.b16": 8, "ld.shared.v2.b32": 8, "ld.shared.b16": 2}


@pytest.mark.parametrize("reg,smem,dtype", [(BLOCKED_8, SHARED["nvmma128"], "f16"), (BLOCKED_8, SHARED["swz424"], "f16"),
                                            (BLOCKED_8, SHARED["swz818_col"], "f16"), (MMA_V3, UNSWIZZLED, "f16"),
                                            (MMA_V3, UNSWIZZLED, "f32")],
                         ids=["v4b32", "v4b16", "b16", "stmatrix", "v2b32"])
def test_instruction_is_the_one_tritons_compiler_emits(reg, smem, dtype):
    ptx = compile_round_trip(reg, smem, dtype).asm["ptx"]
    emitted = {m.rstrip(";") for m in PTX_SHARED.findall(ptx)}
    for op, prefix in (("store", ("st.", "stmatrix")), ("load", ("ld.", "ldmatrix"))):
        access = lpt.shared_access(reg, smem, SHAPE, dtype, op=op)
        mine = [e for e in emitted if e.startswith(prefix)]
        assert len(mine) == 1, emitted
        if "matrix" in access.instr:
            assert mine[0].startswith(access.instr.split(".")[0] + ".sync.aligned.m8n8." + access.instr.split(".")[1])
        else:
            model_bytes = next(i["bytes"] for i in lp._core.smem_instructions() if i["name"] == access.instr)
            assert PTX_BYTES[mine[0]] == model_bytes


def test_guards_turn_tritons_aborts_into_exceptions():
    with pytest.raises(lpt.UnsupportedLayout, match="power of two"):
        lpt.shared_access(BLOCKED_8, UNSWIZZLED, [48, 64], "f16")
    with pytest.raises(lpt.UnsupportedLayout, match="Padded"):
        lpt.shared_access(BLOCKED_8, gl.PaddedSharedLayout.with_identity_for([[64, 8]], [64, 64], [1, 0]), SHAPE, "f16")
    with pytest.raises(lpt.UnsupportedLayout, match="rank"):
        lpt.shared_access(BLOCKED_8, UNSWIZZLED, [64, 64, 2], "f16")
    with pytest.raises(TypeError):
        lpt.shared_access("not a layout", UNSWIZZLED, SHAPE, "f16")
    with pytest.raises(ValueError, match="unknown element type"):
        lpt.shared_access(BLOCKED_8, UNSWIZZLED, SHAPE, "f17")
    # Triton aborts its process (LLVM ERROR getTMABlockShape) on this pair; only the child dies.
    dot = gl.DotOperandLayout(0, MMA_V3, 4)
    with pytest.raises(lpt.TritonError) as e:
        lpt.bank_conflicts(dot, gl.NVMMASharedLayout(128, 8), SHAPE, "s8")
    assert e.value.signal is not None
    assert isinstance(e.value, lp.Error)


def test_a_compiled_kernels_ttgir_is_proved_op_by_op_at_its_source_lines():
    smem = SHARED["nvmma64"]
    ttgir = compile_round_trip(BLOCKED_8, smem, "f16").asm["ttgir"]
    found = lpt.prove_ttgir(ttgir)
    assert [a.op for a in found] == ["ttg.local_store", "ttg.local_load"]
    with open(__file__) as f:
        lines = f.read().splitlines()
    for a, marker, op in zip(found, ("# the local_store", "# the local_load"), ("store", "load")):
        assert a.error is None and a.dtype == "f16" and a.shape == SHAPE
        path, line, _ = a.location.rsplit(":", 2)
        assert os.path.samefile(path, __file__)
        assert marker in lines[int(line) - 1]
        direct = lpt.prove_conflict_free(BLOCKED_8, smem, SHAPE, "f16", op=op)
        assert (a.proof.verdict, a.proof.wavefronts, a.proof.access.instr) == \
            (direct.verdict, direct.wavefronts, direct.access.instr) == ("refuted", 8, direct.access.instr)


def test_async_copies_use_cp_async_at_the_vector_width():
    wide = lpt.prove_conflict_free(BLOCKED_8, SHARED["nvmma128"], SHAPE, "f16", op="cp.async")
    assert wide.access.instr == "cp.async.cg.16" and wide.verdict == "proven"
    narrow = lpt.shared_access(BLOCKED_8, SHARED["swz424"], SHAPE, "f16", op="cp.async")
    assert narrow.instr == "cp.async.ca.8"


@pytest.mark.parametrize("reg,smem,dtype,op", [(BLOCKED_8, SHARED["nvmma64"], "f16", "store"),
                                               (BLOCKED_4, SHARED["swz818"], "f32", "load"),
                                               (MMA_V3, UNSWIZZLED, "f16", "load"),
                                               (gl.DotOperandLayout(1, gl.NVMMADistributedLayout([2, 0], [2, 2], [16, 8]), 2),
                                                UNSWIZZLED, "f16", "store")],
                         ids=["v4b32", "f32", "ldmatrix", "stmatrix_trans"])
def test_the_cli_proves_the_same_access_from_its_text(reg, smem, dtype, op):
    # The access is plain LayoutProof text (F2[...] o _0 o _N:_1 and a lane map): the CLI reads it
    # and must come to the same verdict, wavefronts and counterexample.
    import json
    import subprocess

    proof = lpt.prove_conflict_free(reg, smem, SHAPE, dtype, op=op)
    a = proof.access
    args = [os.environ["LAYOUTPROOF_BIN"], "prove", "conflict-free", "--smem", str(a.smem), "--dtype", a.dtype,
            "--lanes", str(a.lanes), "--instr", a.instr, "--base-align", str(a.base_align), "--json"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 1), done.stderr
    cli = json.loads(done.stdout)
    assert (cli["verdict"], cli["wavefronts"], cli["ideal"]) == (proof.verdict, proof.wavefronts, proof.ideal)
    # The module gives tuples where JSON has lists.
    assert cli.get("counterexample") == json.loads(json.dumps(proof.counterexample))


def tile_matmul_source():
    import triton.language as tl

    def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BLOCK_M: tl.constexpr,
                      BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, MASKED: tl.constexpr):
        offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
        b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            if MASKED:  # the tutorial's K tail
                a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
                b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
            else:
                a = tl.load(a_ptrs)
                b = tl.load(b_ptrs)
            acc += tl.dot(a, b)
            a_ptrs += BLOCK_K
            b_ptrs += BLOCK_K * stride_bk
        tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], acc.to(tl.float16))

    return matmul_kernel


@pytest.mark.parametrize("masked", [False, True], ids=["plain", "k_tail_masked"])
def test_ttgir_and_ptx_give_every_async_copy_the_same_verdict(masked, tmp_path):
    # One verdict per copy whatever the front end (docs/ptx.md, "cp.async with zero-fill"): the
    # TTGIR path and the PTX of the same compiled kernel agree, source line by source line. The
    # masked K tail lowers to 16-byte cp.async.cg with a per-lane source size: unknown on both.
    import json
    import subprocess

    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    signature = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
                 "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"}
    constexprs = {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "MASKED": masked}
    attrs = {(i,): [["tt.divisibility", 16]] for i in range(9)}
    src = ASTSource(fn=triton.jit(tile_matmul_source()), signature=signature, constexprs=constexprs, attrs=attrs)
    compiled = triton.compile(src, target=GPUTarget("cuda", 80, 32), options={"num_warps": 4, "num_stages": 3})

    def verdict(proof, error):
        if proof is not None:
            return proof.verdict
        return "unknown" if error.startswith("unknown") else "error: " + error

    from_ttgir = {}
    for a in lpt.prove_ttgir(compiled.asm["ttgir"], arch="sm_80"):
        if a.op == "ttg.convert_layout":
            assert a.proof is None and a.error.startswith("not checked")
        if a.op != "ttg.async_copy_global_to_local":
            continue
        from_ttgir.setdefault(int(a.location.rsplit(":", 2)[1]), set()).add(verdict(a.proof, a.error))
    ptx = tmp_path / "matmul.ptx"
    ptx.write_text(compiled.asm["ptx"])
    # Run beside this file, whose lines the PTX's .loc name: findings are placed on them.
    done = subprocess.run([os.environ["LAYOUTPROOF_BIN"], "check", str(ptx), "--no-cache", "--format", "json"],
                          capture_output=True, text=True, timeout=600, cwd=os.path.dirname(os.path.abspath(__file__)))
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(done.stdout)
    # The conflict obligations: the PTX path also decides alignment and bounds, which prove_ttgir
    # does not judge (a zero-filling copy's addresses are modelled, its bank cost is not).
    from_ptx = {}
    for o in report["obligations"]:
        if o["description"].startswith("cp.async") and "conflict-free" in o["description"]:
            from_ptx.setdefault(o["line"], set()).add("proven" if o["passed"] else "not proven")
    for f in report["findings"]:
        if "cp.async" in f["message"] and "conflict" in f["message"]:
            from_ptx[f["line"]].add({"violation": "refuted", "unknown": "unknown"}.get(f["kind"], f["kind"]))
    from_ptx = {line: v - {"not proven"} for line, v in from_ptx.items()}
    assert from_ttgir and from_ttgir == from_ptx
    expected = "unknown" if masked else "proven"
    assert all(v == {expected} for v in from_ttgir.values()), from_ttgir
