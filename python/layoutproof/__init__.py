"""LayoutProof from Python: read GPU tensor layouts exactly as written (CuTe, TIRx, descriptor
notation), compute CuTe's algebra with a legality verdict, and prove injectivity, coverage and
bank-conflict freedom, or refute them with a counterexample re-checked by evaluation.

    >>> import layoutproof as lp
    >>> sA = lp.parse("Sw<3,3,3> o _0 o (_64,_64):(_64,_1)")
    >>> lp.prove_injective(sA).verdict
    'proven'

Errors: malformed text raises LayoutError (a ValueError) whose text is the clang-style
diagnostic, with .file, .line, .column and .message; other input LayoutProof cannot accept raises
InputError. Both derive from layoutproof.Error. docs/python.md has the whole API.
"""
from __future__ import annotations

import os
from typing import Sequence, Union

from ._core import (
    ALGEBRA_OPERATIONS,
    AlgebraResult,
    CheckRun,
    Error,
    Finding,
    InputError,
    Layout,
    LayoutError,
    Obligation,
    Proof,
    __version__,
    check_source,
    parse,
    prove_conflict_free as _prove_conflict_free,
    prove_covers as _prove_covers,
    prove_injective as _prove_injective,
)
from . import _core

LayoutLike = Union[Layout, str]

__all__ = [
    "ALGEBRA_OPERATIONS", "AlgebraResult", "CheckRun", "Error", "Finding", "InputError", "Layout", "LayoutError",
    "Obligation", "Proof", "algebra", "check", "check_source", "parse", "prove_conflict_free", "prove_covers",
    "prove_injective", "__version__",
] + list(ALGEBRA_OPERATIONS)


def _layout(value: LayoutLike, name: str) -> Layout:
    if isinstance(value, Layout):
        return value
    if isinstance(value, str):
        return parse(value, name=name)
    raise TypeError(f"{name}: expected a layoutproof.Layout or a layout's text, got {type(value).__name__}")


def _shape_stride_text(extents, strides) -> str:
    """A flat static CuTe layout `(_e0,_e1,...):(_s0,_s1,...)`, as the Python front ends build them."""
    return "(" + ",".join(f"_{e}" for e in extents) + "):(" + ",".join(f"_{s}" for s in strides) + ")"


def _operand(value) -> str:
    # Layouts print exactly (a round trip); tilers, swizzles and shapes are passed as text.
    if isinstance(value, Layout):
        return str(value)
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise TypeError(f"an operand is a layoutproof.Layout or text, got {type(value).__name__}")


def prove_injective(layout: LayoutLike, *, engine: str = "auto", timeout_ms: int = 20000) -> Proof:
    """No two elements (or replicas) of `layout` share an image."""
    return _prove_injective(_layout(layout, "<layout>"), engine, timeout_ms)


def prove_covers(layout: LayoutLike, target: dict, *, engine: str = "auto", timeout_ms: int = 20000) -> Proof:
    """Every point of the box `target` ({axis: (lo, hi)}, bounds inclusive) holds a copy."""
    if not isinstance(target, dict) or not target:
        raise TypeError("target: expected a non-empty dict {axis: (lo, hi)}")
    ranges = [(str(axis), (int(bounds[0]), int(bounds[1]))) for axis, bounds in target.items()]
    return _prove_covers(_layout(layout, "<layout>"), ranges, engine, timeout_ms)


def prove_conflict_free(smem: LayoutLike, dtype: str, lanes: LayoutLike, instr: str, *, arch: str = "sm_90",
                        base_align: int | None = None, active: Sequence[int] | None = None, engine: str = "auto",
                        timeout_ms: int = 20000) -> Proof:
    """A warp's shared-memory access needs no more wavefronts than ideal, at every base address
    the alignment allows. `smem` maps logical coordinates to element offsets; `lanes` maps
    (lane, issue...) to smem coordinates (`_1@d` bases) or 1-D indices; `instr` is the PTX
    instruction (ld.shared.v4.b32, ldmatrix.x4, stmatrix.x4.trans, cp.async.cg.shared.global, ...);
    `active` lists the lanes that execute it (default all)."""
    return _prove_conflict_free(_layout(smem, "<smem>"), dtype, _layout(lanes, "<lanes>"), instr, arch, base_align,
                                None if active is None else list(active), engine, timeout_ms)


def algebra(op: str, *operands, engine: str = "auto", timeout_ms: int = 20000) -> AlgebraResult:
    """CuTe's `op` on the operands, with a legality verdict: is the result the function the
    operation claims? Operands are Layouts or text: tilers as "[T0,T1]", swizzles as "Sw<B,M,S>",
    shapes as "(_8,16)"."""
    return _core.algebra(op, [_operand(o) for o in operands], engine, timeout_ms)


def _operation(op: str):
    def run(*operands, engine: str = "auto", timeout_ms: int = 20000) -> AlgebraResult:
        return algebra(op, *operands, engine=engine, timeout_ms=timeout_ms)
    run.__name__ = op
    run.__qualname__ = op
    run.__doc__ = f"CuTe's {op} with a legality verdict (layoutproof.algebra('{op}', ...))."
    return run


for _op in ALGEBRA_OPERATIONS:
    globals()[_op] = _operation(_op)
del _op


def check(paths: Union[str, Sequence[str]], *, engine: str | None = None, config: str | None = None,
          time_budget: float | None = None, jobs: int = 0) -> CheckRun:
    """Every `layoutproof:` annotation in the files and directories (and every shared-memory
    instruction of .ptx files), checked by every rule: `layoutproof check --no-cache` in-process,
    `jobs` files at a time (0: one per core)."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    return _core.check([os.fspath(p) for p in paths], engine, config, time_budget, jobs)
