"""The CuTe DSL (CUTLASS's Python front end, `nvidia-cutlass-dsl`), proved by LayoutProof.

The DSL builds layouts only while a `@cute.jit` function is traced (it runs on the host without a
GPU; outside one it raises CALL_OUTSIDE_JIT), and its objects must not outlive that trace. So the
conversions here are called inside the traced function and return LayoutProof objects, which are
plain values:

    import cutlass, cutlass.cute as cute
    import layoutproof.cute_dsl as lpc

    found = {}
    @cute.jit
    def kernel_layouts():
        sA = cute.make_composed_layout(cute.make_swizzle(3, 3, 3), 0, cute.make_layout((16, 64), stride=(64, 1)))
        atom = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), cutlass.Float16, num_bits_per_copy=128)
        copy = cute.make_tiled_copy_tv(atom, cute.make_layout((16, 8), stride=(8, 1)), cute.make_layout((1, 8)))
        found["store"] = lpc.copy_access(copy, sA, "f16", "st.shared.v4.b32")
    kernel_layouts()
    found["store"].prove().verdict          # 'proven'

Layouts are read from the DSL's own print (`S<3,3,3> o 0 o (16,64):(64,1)`, the CuTe notation with
plain integers); a TiledCopy from its thread-value layout (`layout_tv_tiled`: (thread, value) to
the tile's colexicographic index). Tested with nvidia-cutlass-dsl 4.8.1 (TESTED_CUTE_DSL).
"""
from __future__ import annotations

from dataclasses import dataclass

from . import _core, _shape_stride_text
from ._core import Error, Layout, Proof, parse

TESTED_CUTE_DSL = "4.8.1"

__all__ = ["TESTED_CUTE_DSL", "UnsupportedCopy", "CopyAccess", "layout", "copy_access"]


class UnsupportedCopy(Error, ValueError):
    """A TiledCopy whose accesses LayoutProof's per-lane model cannot express (the reason says why)."""


def _is_dsl_object(value) -> bool:
    return type(value).__module__.split(".")[0] == "cutlass"


def layout(value, name: str = "<cute_dsl>") -> Layout:
    """A DSL Layout or ComposedLayout (inside @cute.jit), or its printed text, as a LayoutProof Layout."""
    if isinstance(value, Layout):
        return value
    if isinstance(value, str):
        return parse(value, notation="cute", name=name)
    if _is_dsl_object(value):
        return parse(str(value), notation="cute", name=name)
    raise TypeError(f"expected a CuTe DSL layout or its text, got {type(value).__name__}")


def _flatten(shape, stride):
    if isinstance(shape, tuple):
        if not isinstance(stride, tuple) or len(stride) != len(shape):
            raise UnsupportedCopy(f"shape {shape} and stride {stride} are not congruent")
        out = []
        for sh, st in zip(shape, stride):
            out += _flatten(sh, st)
        return out
    if not isinstance(shape, int) or not isinstance(stride, int):
        raise UnsupportedCopy(f"the thread-value layout has a dynamic extent or stride ({shape}:{stride}); "
                              "LayoutProof reads static ones")
    return [(shape, stride)]


def _split(modes, count: int, what: str):
    """The modes covering the first `count` indices (colexicographic), and the rest; a mode that
    straddles the boundary is split in two (extent a*b with stride s is a:s then b:a*s)."""
    head, rest, need = [], list(modes), count
    while need > 1:
        if not rest:
            raise UnsupportedCopy(f"the {what} modes cover fewer than {count} indices")
        extent, stride = rest.pop(0)
        if extent <= need:
            if need % extent:
                raise UnsupportedCopy(f"{count} {what} indices do not end at a mode boundary ({extent} does not divide {need})")
            head.append((extent, stride))
            need //= extent
        else:
            if extent % need:
                raise UnsupportedCopy(f"{count} {what} indices split mode {extent}:{stride} unevenly")
            head.append((need, stride))
            rest.insert(0, (extent // need, stride * need))
            need = 1
    return head, rest


@dataclass
class CopyAccess:
    """A TiledCopy's shared-memory side as LayoutProof proves it."""
    smem: Layout       # the tile's colexicographic index -> element offset
    lanes: Layout      # (lane, issue...) -> tile index of each lane's first value
    instr: str
    dtype: str
    vector: int        # values per lane access

    def prove(self, *, arch: str = "sm_90", base_align: int | None = None, engine: str = "auto",
              timeout_ms: int = 20000) -> Proof:
        return _core.prove_conflict_free(self.smem, self.dtype, self.lanes, self.instr, arch, base_align, None, engine,
                                         timeout_ms)


def copy_access(tiled_copy, smem, dtype: str, instr: str) -> CopyAccess:
    """The shared-memory accesses of `tiled_copy` on a buffer laid out as `smem` (a DSL layout over
    the copy's tile, or text), each lane moving `instr`'s bytes (ld.shared.v4.b32, st.shared.v2.b32,
    cp.async.cg.16, ...). Lanes are threads 0-31 of the thread mode; issues are the values past one
    access, then the other warps' threads. Call inside @cute.jit."""
    if not _is_dsl_object(tiled_copy) or not hasattr(tiled_copy, "layout_tv_tiled"):
        raise TypeError(f"expected a CuTe DSL TiledCopy, got {type(tiled_copy).__name__}")
    info = next((i for i in _core.smem_instructions() if i["name"] == instr), None)
    if info is None:
        raise ValueError(f"unknown shared-memory instruction '{instr}'")
    if info["matrix"]:
        raise UnsupportedCopy(f"{instr} takes row addresses, not per-lane values; write its lane map and use "
                              "layoutproof.prove_conflict_free")
    element_bytes = max(1, _core.element_bits(dtype) // 8)
    if info["bytes"] % element_bytes:
        raise UnsupportedCopy(f"{instr} moves {info['bytes']} bytes, not whole {dtype} elements")
    tv = tiled_copy.layout_tv_tiled
    shape, stride = tv.shape, tv.stride
    if not isinstance(shape, tuple) or len(shape) != 2:
        raise UnsupportedCopy(f"the thread-value layout {shape} is not (threads, values)")
    threads = _flatten(shape[0], stride[0])
    values = _flatten(shape[1], stride[1])
    vector = info["bytes"] // element_bytes
    _, issue_values = _split(values, vector, "value")
    lane_modes, warp_modes = _split(threads, _core.WARP_LANES, "thread")
    modes = lane_modes + issue_values + warp_modes
    text = _shape_stride_text([e for e, _ in modes], [s for _, s in modes])
    buffer = layout(smem, "<cute_dsl smem>")
    # One access moves a lane's first `vector` values: they must be consecutive elements in memory.
    for t in range(_size(threads)):
        first = _index(threads, t)
        for v in range(1, vector):
            if buffer(first + _index(values, v)) != buffer(first) + v:
                raise UnsupportedCopy(f"values 0..{vector - 1} of thread {t} are not consecutive elements of the buffer; "
                                      f"{instr} moves {vector} consecutive {dtype} elements")
    return CopyAccess(buffer, parse(text, notation="cute", name="<cute_dsl lanes>"), instr, dtype, vector)


def _size(modes) -> int:
    n = 1
    for extent, _ in modes:
        n *= extent
    return n


def _index(modes, i: int) -> int:
    """The value of flat (colexicographic) index i under the modes."""
    out = 0
    for extent, stride in modes:
        out += (i % extent) * stride
        i //= extent
    return out
