"""Triton and Gluon layouts, proved by LayoutProof.

A Gluon register layout (BlockedLayout, NVMMADistributedLayout, DotOperandLayout, SliceLayout,
DistributedLinearLayout, ...) and a shared layout (SwizzledSharedLayout, NVMMASharedLayout,
SharedLinearLayout) over one buffer shape become a LayoutProof access through Triton's own
conversion to LinearLayouts (`to_linear_layout`, `LinearLayout.invert`), run in a child process
because Triton aborts the process on some layouts:

  - the buffer: `F2[c0,c1,...] o _0 o _N:_1`, whose 1-D index is the tensor coordinate written in
    a basis made of the register layout's own bases (the vector's elements first, then the lane
    and issue bits, then coordinate bits to complete it); column k is the element offset of basis
    vector k by the inverse of Triton's shared layout (Access.coordinate maps an index back);
  - the lanes: (lane bits, issue bits) to the index of each lane's first element, one index bit
    per basis, so LayoutProof's sum of strides is Triton's XOR of bases;
  - the instruction Triton's lowering uses: ldmatrix/stmatrix (.trans) where the register layout
    holds 8x8 matrices of 16-bit elements whose 16-byte rows are contiguous in shared memory, else
    ld.shared/st.shared (or cp.async) at the widest vector whose elements are consecutive offsets
    held by consecutive register bits (Triton's largestVectorisation), at most the widest
    per-lane access the hardware model knows.

    >>> from triton.experimental.gluon import language as gl
    >>> import layoutproof.triton as lpt
    >>> p = lpt.prove_conflict_free(gl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0]),
    ...                             gl.NVMMASharedLayout(128, 16), [64, 64], "f16", op="store")
    >>> p.verdict, p.access.instr
    ('proven', 'st.shared.v4.b32')

Tested with Triton 3.9.0 (TESTED_TRITON). docs/python.md, "Triton and Gluon".
"""
from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Sequence

from . import _core, _shape_stride_text
from ._core import Error, Layout, Proof, parse

TESTED_TRITON = "3.9.0"

__all__ = ["TESTED_TRITON", "TritonError", "UnsupportedLayout", "LinearLayouts", "Access", "KernelAccess",
           "linear_layouts", "shared_access", "prove_conflict_free", "bank_conflicts", "prove_ttgir"]


class TritonError(Error, RuntimeError):
    """Triton failed on the layouts: an exception, or an abort of its process (.signal, .stderr)."""

    def __init__(self, message: str, stderr: str = "", signal: int | None = None):
        super().__init__(message)
        self.stderr = stderr
        self.signal = signal


class UnsupportedLayout(Error, ValueError):
    """A layout or shape Triton's conversion, or the translation to an access, does not take."""


# Triton's dtype names, as `str(gl.float16)` prints them, to LayoutProof's element types.
_DTYPES = {"fp16": "f16", "bf16": "bf16", "fp32": "f32", "fp64": "f64", "int8": "s8", "uint8": "u8", "int16": "s16",
           "uint16": "u16", "int32": "s32", "uint32": "u32", "int64": "s64", "uint64": "u64", "fp8e4nv": "e4m3",
           "fp8e5": "e5m2"}


def _element_type(dtype) -> str:
    name = str(dtype)
    name = _DTYPES.get(name, name)
    _core.element_bits(name)  # raises ValueError naming the known types
    return name


@dataclass(frozen=True)
class LinearLayouts:
    """Triton's LinearLayouts of a register and a shared layout over one shape (bases as Triton
    gives them: one coordinate list per input bit)."""
    shape: tuple
    register: list
    lane: list
    warp: list
    offset: list
    inverse: dict  # "dim0": [offset of coordinate bit 0, ...], ...
    alignment: int
    triton_version: str


def _check_shape(shape: Sequence[int]) -> list:
    if isinstance(shape, (str, bytes)) or not isinstance(shape, Sequence) or not shape:
        raise TypeError("shape: expected a non-empty sequence of ints")
    out = []
    for d, n in enumerate(shape):
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"shape[{d}]: expected an int, got {type(n).__name__}")
        # Triton's to_linear_layout aborts the process on these; refuse them here.
        if n < 1 or n & (n - 1):
            raise UnsupportedLayout(f"shape[{d}] = {n} is not a power of two; Triton's linear layouts need one")
        out.append(n)
    return out


def _layout_text(layout, what: str) -> str:
    module = type(layout).__module__
    if not module.startswith("triton.experimental.gluon"):
        raise TypeError(f"{what}: expected a Gluon layout object (triton.experimental.gluon.language), "
                        f"got {type(layout).__name__}")
    if "Padded" in type(layout).__name__:
        raise UnsupportedLayout(f"{what}: {type(layout).__name__} has no linear layout (Triton aborts on it); "
                                "padded layouts are not supported")
    return repr(layout)


def _rank(layout) -> int | None:
    if getattr(layout, "order", None) is not None:
        return len(layout.order)
    if getattr(layout, "rank", None) is not None:
        return int(layout.rank)
    if getattr(layout, "shape", None):
        return len(layout.shape)
    if getattr(layout, "parent", None) is not None:
        parent = _rank(layout.parent)
        return None if parent is None else parent - (1 if hasattr(layout, "dim") else 0)
    return None


@functools.lru_cache(maxsize=256)
def _run_child(reg: str | None, smem: str | None, shape: tuple, bank_bits: int | None, arch: str,
               timeout_s: float, ttgir: str | None = None) -> dict:
    request = json.dumps({"reg": reg, "smem": smem, "shape": list(shape), "bank_bits": bank_bits, "arch": arch,
                          "ttgir": ttgir})
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_triton_child.py")
    try:
        # Not `python script`: that would put this package's directory, with its triton.py, first on
        # the child's path, in front of Triton itself.
        launcher = "import runpy, sys; sys.path[:] = [p for p in sys.path if p not in ('', '.')]; " \
                   "runpy.run_path(sys.argv[1], run_name='__main__')"
        done = subprocess.run([sys.executable, "-c", launcher, script], input=request, capture_output=True, text=True,
                              timeout=timeout_s)
    except subprocess.TimeoutExpired as e:
        raise TritonError(f"Triton's layout conversion ran past {timeout_s} s") from e
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-12:]
        signal = -done.returncode if done.returncode < 0 else None
        how = f"was killed by signal {signal}" if signal else f"exited with status {done.returncode}"
        reason = next((line for line in reversed(tail) if "Error" in line or "ERROR" in line), "")
        raise TritonError(f"Triton {how} converting these layouts" + (f": {reason.strip()}" if reason else ""),
                          "\n".join(tail), signal)
    return json.loads(done.stdout)


def _pair_request(reg_layout, smem_layout, shape: Sequence[int]) -> tuple:
    """The pair's texts and shape for the child, once every input Triton aborts on is refused."""
    shape = _check_shape(shape)
    texts = (_layout_text(reg_layout, "reg_layout"), _layout_text(smem_layout, "smem_layout"))
    for layout, what in ((reg_layout, "reg_layout"), (smem_layout, "smem_layout")):
        rank = _rank(layout)
        if rank is not None and rank != len(shape):
            raise UnsupportedLayout(f"{what} has rank {rank}, the shape {shape} has {len(shape)} dimensions")
    return texts[0], texts[1], tuple(shape)


def _triton_arch(arch: str) -> str:
    """Triton's spelling of an architecture: sm_90 and sm_90a are "sm90"."""
    return "sm" + arch.removeprefix("sm_").removeprefix("sm").rstrip("a")


def linear_layouts(reg_layout, smem_layout, shape: Sequence[int], *, arch: str = "sm90",
                   timeout_s: float = 120.0) -> LinearLayouts:
    """Triton's own LinearLayouts of the pair over `shape`, and the inverse of the shared one."""
    reg, smem, shape = _pair_request(reg_layout, smem_layout, shape)
    out = _run_child(reg, smem, shape, None, _triton_arch(arch), timeout_s)
    if out["reg"]["block"] or out["smem"]["block"]:
        raise UnsupportedLayout("layouts over several CTAs (block bases) are not supported")
    if not out["invertible"]:
        raise UnsupportedLayout("the shared layout is not a bijection between offsets and coordinates")
    return LinearLayouts(tuple(shape), out["reg"]["register"], out["reg"]["lane"], out["reg"]["warp"],
                         out["smem"]["offset"], out["inverse"], out["smem"]["alignment"], out["triton"])


def bank_conflicts(reg_layout, smem_layout, shape: Sequence[int], dtype, *, arch: str = "sm90",
                   timeout_s: float = 120.0) -> int:
    """Triton's own count (`get_shared_bank_conflicts`): extra wavefronts per wavefront of a plain
    ld/st.shared at the vector width Triton picks."""
    reg, smem, shape = _pair_request(reg_layout, smem_layout, shape)
    bits = _core.element_bits(_element_type(dtype))
    return int(_run_child(reg, smem, shape, bits, _triton_arch(arch), timeout_s)["bank_conflicts"])


@dataclass
class Access:
    """One warp's shared-memory access as LayoutProof proves it, built from Triton's layouts."""
    smem: Layout           # packed coordinate -> element offset
    lanes: Layout          # (lane, issue...) -> packed coordinate of each lane's first element
    instr: str             # the PTX instruction LayoutProof models
    dtype: str
    vector: int            # elements per lane access (or per matrix row)
    issue_bits: list = field(default_factory=list)  # per issue bit: ("register", k) or ("warp", k)
    base_align: int = 16   # bytes: the alignment Triton gives the shared buffer
    layouts: LinearLayouts | None = None
    basis: list = field(default_factory=list)  # index bit j -> packed tensor coordinate (colexicographic)

    def coordinate(self, index: int) -> tuple:
        """The tensor coordinate of a buffer index (a counterexample's), as Triton numbers dims."""
        packed = _xor_columns(self.basis, index)
        out = []
        for n in self.layouts.shape:
            out.append(packed % n)
            packed //= n
        return tuple(out)

    def issue(self, index: int) -> dict:
        """The register and warp bits an issue number stands for: {"register": r, "warp": w}."""
        out = {"register": 0, "warp": 0}
        for bit, (kind, k) in enumerate(self.issue_bits):
            if index >> bit & 1:
                out[kind] |= 1 << k
        return out

    def prove(self, *, arch: str = "sm_90", engine: str = "auto", timeout_ms: int = 20000) -> Proof:
        return _core.prove_conflict_free(self.smem, self.dtype, self.lanes, self.instr, arch, self.base_align, None,
                                         engine, timeout_ms)


def _packer(shape: Sequence[int]):
    strides, s = [], 1
    for n in shape:
        strides.append(s)
        s *= n

    def packed(coord: Sequence[int]) -> int:
        return sum(c * st for c, st in zip(coord, strides))
    return packed


@functools.cache
def _instructions() -> tuple:
    return tuple(_core.smem_instructions())


def _per_lane_instr(direction: str, nbytes: int, async_copy: bool) -> str:
    for i in _instructions():
        if not i["matrix"] and i["direction"] == direction and i["async"] == async_copy and i["bytes"] == nbytes:
            if async_copy and nbytes == max(j["bytes"] for j in _instructions() if j["async"]):
                # The widest cp.async bypasses L1 (.cg), as Triton emits it for 16-byte copies.
                if ".cg." not in i["name"]:
                    continue
            return i["name"]
    raise UnsupportedLayout(f"no {direction} instruction moves {nbytes} bytes per lane")


def _matrix_instr(direction: str, matrices: int, trans: bool) -> dict:
    for i in _instructions():
        if i["matrix"] and i["direction"] == direction and i["matrices"] == matrices and i["trans"] == trans:
            return i
    raise UnsupportedLayout(f"no {direction} matrix instruction .x{matrices}")


def shared_access(reg_layout, smem_layout, shape: Sequence[int], dtype, *, op: str = "load", instr: str = "auto",
                  arch: str = "sm90", timeout_s: float = 120.0) -> Access:
    """The access Triton's lowering makes for `ttg.local_load` (op="load"), `ttg.local_store`
    (op="store") or `ttg.async_copy_global_to_local` (op="cp.async") of a tensor in `reg_layout`
    to or from a buffer in `smem_layout`. instr="auto" picks as Triton's lowering does (module
    doc); "vector" forces ld/st.shared; "matrix" forces ldmatrix/stmatrix (or raises)."""
    if op not in ("load", "store", "cp.async"):
        raise ValueError(f"op: expected 'load', 'store' or 'cp.async', got {op!r}")
    if instr not in ("auto", "vector", "matrix"):
        raise ValueError(f"instr: expected 'auto', 'vector' or 'matrix', got {instr!r}")
    element = _element_type(dtype)
    bits = _core.element_bits(element)
    ll = linear_layouts(reg_layout, smem_layout, shape, arch=arch, timeout_s=timeout_s)
    packed = _packer(ll.shape)
    # The inverse of Triton's shared layout: coordinate bit k (colexicographic) -> element offset.
    to_offset = [c for d in range(len(ll.shape)) for c in ll.inverse[f"dim{d}"]]

    def offset(coord) -> int:
        return _xor_columns(to_offset, packed(coord))

    # Register broadcasting (zero bases) repeats an access; it is dropped, as Triton's lowering does.
    regs = [(k, b) for k, b in enumerate(ll.register) if any(b)]
    warps = [(k, b) for k, b in enumerate(ll.warp) if any(b)]
    direction = "load" if op == "load" else "store"
    element_bytes = max(1, bits // 8)

    matrix = None
    if op != "cp.async" and instr in ("auto", "matrix"):
        matrix = _matrix_plan(ll, regs, offset, element_bytes, direction)
        if matrix is None and instr == "matrix":
            raise UnsupportedLayout("the register layout does not hold 8x8 matrices of 16-byte shared rows")
    if matrix is not None:
        name, vector, inner, address_bits, rest = matrix
    else:
        vector_regs = _vector_plan(regs, ll.lane, warps, offset, element_bytes)
        vector = 1 << len(vector_regs)
        name = _per_lane_instr(direction, vector * element_bytes, op == "cp.async")
        inner = [dict(regs)[k] for k in vector_regs]
        address_bits = [("lane", k, b) for k, b in enumerate(ll.lane)]
        rest = [(k, b) for k, b in regs if k not in vector_regs]
    issue = [("register", k, b) for k, b in rest] + [("warp", k, b) for k, b in warps]

    # The buffer's 1-D index is the tensor coordinate in a basis of the hardware's own bases: the
    # vector (or matrix row) elements first, so that consecutive elements are consecutive indices,
    # then the addressing and issue bits, then coordinate bits that complete the basis. Each lane
    # bit is then one index bit, and LayoutProof's sum of strides is Triton's XOR of bases.
    basis = _Basis()
    for b in inner:
        if basis.add(packed(b)) is None:
            raise UnsupportedLayout(f"the vector's bases are not independent ({b})")
    strides = []
    for kind, k, b in address_bits + issue:
        p = packed(b)
        if p == 0:
            strides.append(0)  # a broadcast lane, or a repeated issue
            continue
        at = basis.add(p)
        if at is None:
            raise UnsupportedLayout(
                f"{kind} basis {k} ({b}) is a sum of other bases: the layout maps two sets of lanes or registers to "
                "one element; LayoutProof's lane maps add one stride per bit")
        strides.append(1 << at)
    size = 1
    for n in ll.shape:
        size *= n
    for k in range(size.bit_length() - 1):
        basis.add(1 << k)
    smem = parse("F2[" + ",".join(str(_xor_columns(to_offset, v)) for v in basis.vectors) + f"] o _0 o _{size}:_1",
                 name="<triton smem>")
    # Lanes past the instruction's address lanes (ldmatrix .x1/.x2) give no address: stride 0.
    lane_bits = _core.WARP_LANES.bit_length() - 1
    strides[len(address_bits):len(address_bits)] = [0] * (lane_bits - len(address_bits))
    lanes = parse(_shape_stride_text([2] * len(strides), strides), name="<triton lanes>")
    return Access(smem, lanes, name, element, vector, [(kind, k) for kind, k, _ in issue], ll.alignment, ll,
                  list(basis.vectors))


def _xor_columns(columns: Sequence[int], value: int) -> int:
    out = 0
    for k, c in enumerate(columns):
        if value >> k & 1:
            out ^= c
    return out


class _Basis:
    """Vectors of F2^n (as ints) kept linearly independent, with a reduced echelon copy to test."""

    def __init__(self):
        self.vectors = []
        self._pivots = {}  # pivot bit -> reduced vector

    def add(self, v: int) -> int | None:
        """The new vector's position, or None when it is a sum of the vectors already held."""
        r = v
        for bit, w in self._pivots.items():
            if r >> bit & 1:
                r ^= w
        if r == 0:
            return None
        pivot = r.bit_length() - 1
        for bit, w in list(self._pivots.items()):
            if w >> pivot & 1:
                self._pivots[bit] = w ^ r
        self._pivots[pivot] = r
        self.vectors.append(v)
        return len(self.vectors) - 1


def _vector_plan(regs, lane, warps, offset, element_bytes) -> list:
    """Register bits whose offsets are 1, 2, 4, ...: the lane's consecutive elements, as long as
    no other basis touches the offset bits they span (each lane's vector stays aligned)."""
    widest = max(i["bytes"] for i in _instructions() if not i["matrix"])
    chosen = []
    while (element_bytes << (len(chosen) + 1)) <= widest:
        want = 1 << len(chosen)
        hit = next((k for k, b in regs if k not in chosen and offset(b) == want), None)
        if hit is None:
            break
        chosen.append(hit)
    while chosen:
        span = (1 << len(chosen)) - 1
        others = [b for k, b in regs if k not in chosen] + [b for b in lane] + [b for _, b in warps]
        if all(offset(b) & span == 0 for b in others):
            break
        chosen.pop()
    return chosen


def _matrix_plan(ll, regs, offset, element_bytes, direction):
    """ldmatrix/stmatrix where the layout holds 8x8 matrices of 16-byte rows (16-bit elements):
    non-transposed, a row's 8 elements are reg bit r0 and lane bits 0, 1 (offsets 1, 2, 4) and
    lanes 2-4 pick rows; transposed, lane bits 2-4 run along the row and (r0, lane 0, lane 1) pick
    rows. Further register bits pick the matrices (.x2, .x4). None when neither form fits."""
    catalog = [i for i in _instructions() if i["matrix"] and i["direction"] == direction]
    if not catalog:
        return None
    row_bytes = catalog[0]["bytes"]
    x1 = next(i for i in catalog if i["matrices"] == 1 and not i["trans"])
    rows_per_matrix = x1["address_lanes"]
    if element_bytes * 8 != 16 or (1 << len(ll.lane)) != _core.WARP_LANES or not regs:
        return None
    elems_per_row = row_bytes // element_bytes
    lane = ll.lane
    row_bits = rows_per_matrix.bit_length() - 1
    for trans in (False, True):
        if not trans:
            inner = [regs[0][1], lane[0], lane[1]]
            row_select = [lane[2], lane[3], lane[4]]
        else:
            inner = [lane[2], lane[3], lane[4]]
            row_select = [regs[0][1], lane[0], lane[1]]
        if [offset(b) for b in inner] != [1 << j for j in range(elems_per_row.bit_length() - 1)]:
            continue
        if len(row_select) != row_bits or any(offset(b) % elems_per_row for b in row_select):
            continue
        used = {regs[0][0]}
        rest = [(k, b) for k, b in regs if k not in used]
        if any(offset(b) % elems_per_row for _, b in rest):
            continue
        count = min(max(i["matrices"] for i in catalog if i["trans"] == trans), 1 << len(rest))
        chosen = _matrix_instr(direction, count, trans)
        matrix_bits = rest[:count.bit_length() - 1]
        address = [("row", j, b) for j, b in enumerate(row_select)] + [("register", k, b) for k, b in matrix_bits]
        remaining = rest[count.bit_length() - 1:]
        return chosen["name"], elems_per_row, inner, address, remaining
    return None


def prove_conflict_free(reg_layout, smem_layout, shape: Sequence[int], dtype, *, op: str = "load",
                        instr: str = "auto", arch: str = "sm_90", engine: str = "auto",
                        timeout_ms: int = 20000) -> Proof:
    """Prove that Triton's access of the pair (shared_access) needs no more wavefronts than ideal
    on `arch`; the returned Proof carries the Access as `.access`."""
    access = shared_access(reg_layout, smem_layout, shape, dtype, op=op, instr=instr, arch=arch)
    proof = access.prove(arch=arch, engine=engine, timeout_ms=timeout_ms)
    return _WithAccess(proof, access)


class _WithAccess:
    """A Proof together with the Access it is about (every Proof attribute, plus .access)."""

    def __init__(self, proof: Proof, access: Access):
        self._proof = proof
        self.access = access

    def __getattr__(self, name):
        return getattr(self._proof, name)

    def __bool__(self) -> bool:
        return bool(self._proof)

    def __repr__(self) -> str:
        return f"{self._proof!r} for {self.access.instr}"


# MLIR's element types in a tensor type (`tensor<64x64xf16, #blocked>`, `tensor<..x!tt.ptr<bf16>, ..>`)
# to LayoutProof's element types.
_MLIR_TYPES = {"f16": "f16", "bf16": "bf16", "f32": "f32", "f64": "f64", "i8": "s8", "i16": "s16", "i32": "s32",
               "i64": "s64", "f8E4M3FN": "e4m3", "f8E5M2": "e5m2"}
_ELEMENT = re.compile(r"tensor<(?:\d+x)+(?:!tt\.ptr<)?([A-Za-z0-9]+)")
_LOC_ALIAS = re.compile(r"^(#loc\d*) = loc\((.*)\)\s*$", re.M)
_FILE_LOC = re.compile(r'"([^"]+)":(\d+):(\d+)')


@dataclass
class KernelAccess:
    """One shared-memory op of a TTGIR module and what LayoutProof proved of it."""
    op: str                 # ttg.local_load, ttg.local_store, ttg.async_copy_global_to_local or ttg.convert_layout
    location: str | None    # "file:line:col" of the op in the kernel's source, from the TTGIR's loc
    shape: list
    dtype: str | None
    reg_layout: str         # the Gluon layouts, as Gluon prints them
    smem_layout: str        # for ttg.convert_layout: the layout converted to
    proof: object | None    # prove_conflict_free's result (with .access); None when not provable
    error: str | None       # why not (an UnsupportedLayout or TritonError message)


def _op_locations(text: str, op: str) -> list:
    """The source location of each occurrence of `op` in TTGIR text, in order."""
    aliases = {name: body for name, body in _LOC_ALIAS.findall(text)}

    def resolve(body: str, depth: int = 0):
        found = _FILE_LOC.search(body)
        if found:
            return f"{found.group(1)}:{found.group(2)}:{found.group(3)}"
        for ref in re.findall(r"#loc\d*", body):
            if ref in aliases and depth < 16:
                where = resolve(aliases[ref], depth + 1)
                if where:
                    return where
        return None

    out = []
    for line in text.splitlines():
        if re.search(r"\b" + re.escape(op) + r"\b", line) and not line.lstrip().startswith("#"):
            tail = line[line.rfind(" loc("):] if " loc(" in line else ""
            out.append(resolve(tail) if tail else None)
    return out


def prove_ttgir(ttgir: str, *, arch: str = "sm_90", engine: str = "auto", timeout_ms: int = 20000,
                timeout_s: float = 120.0) -> list:
    """Every shared-memory op (ttg.local_load, ttg.local_store, ttg.async_copy_global_to_local) of
    a compiled kernel's TTGIR (a file's path, or its text as `compiled.asm["ttgir"]` gives it),
    proved conflict-free as layoutproof.triton.prove_conflict_free proves the pair; each result
    carries the op's source location."""
    from triton.experimental.gluon import language as gl

    import tempfile

    if os.path.exists(ttgir):
        with open(ttgir) as f:
            text = f.read()
    else:
        text = ttgir
    # Triton parses a file: the module's text goes to one of its own, so both inputs read alike.
    with tempfile.NamedTemporaryFile("w", suffix=".ttgir", delete=False) as f:
        f.write(text)
    try:
        ops = _run_child(None, None, (), None, _triton_arch(arch), timeout_s, f.name)
    finally:
        os.unlink(f.name)
    names = {name: getattr(gl, name) for name in dir(gl) if name.endswith("Layout")}
    locations = {op: iter(_op_locations(text, op)) for op in {a["op"] for a in ops["accesses"]}}
    kinds = {"ttg.local_load": "load", "ttg.local_store": "store", "ttg.async_copy_global_to_local": "cp.async"}
    out = []
    for a in ops["accesses"]:
        found = _ELEMENT.search(a["type"])
        dtype = _MLIR_TYPES.get(found.group(1)) if found else None
        where = next(locations[a["op"]], None)
        proof, error = None, None
        if a["op"] == "ttg.convert_layout":
            # The layout the backend stages a conversion through is chosen when it lowers the op, so
            # it is not in the TTGIR: checked in the kernel's PTX (`layoutproof check`), not here.
            out.append(KernelAccess(a["op"], where, a["shape"], dtype, a["reg"], a["smem"], None,
                                    "not checked: a layout conversion's shared-memory staging is chosen when the "
                                    "backend lowers it; check the kernel's PTX"))
            continue
        try:
            if dtype is None:
                raise UnsupportedLayout(f"element type of {a['type']} has no LayoutProof name")
            reg = eval(a["reg"], {"__builtins__": {}}, names)  # noqa: S307 (Gluon's layout classes only)
            smem = eval(a["smem"], {"__builtins__": {}}, names)  # noqa: S307
            proof = prove_conflict_free(reg, smem, a["shape"], dtype, op=kinds[a["op"]], arch=arch, engine=engine,
                                        timeout_ms=timeout_ms)
            # As the PTX path decides the same copy (docs/ptx.md, "cp.async with zero-fill"): a masked
            # .ca copy costs the plain copy's wavefronts; a masked 16-byte .cg copy was measured both
            # at and above them, so it is unknown, not proven.
            if a["masked"] and proof.access.instr.startswith("cp.async.cg"):
                error = (f"unknown: a masked {proof.access.instr} (each lane copies or zero-fills its 16 bytes) was "
                         "measured on an H200 both at and above the plain copy's cost; not modelled")
                proof = None
        except (UnsupportedLayout, TritonError) as e:
            error = str(e)
        out.append(KernelAccess(a["op"], where, a["shape"], dtype, a["reg"], a["smem"], proof, error))
    return out
