"""Compiles a Triton matmul ahead of time, without a GPU, and writes its PTX next to this script.

Pinned: PyPI triton==3.9.0 (pip install triton==3.9.0; the wheel is large, CI does not install it:
the generated PTX is checked in). Run: python3 compile_triton.py
"""
import os

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

assert triton.__version__ == "3.9.0", f"pinned to triton 3.9.0, found {triton.__version__}"


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, acc.to(tl.float16))


def main():
    signature = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
                 "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"}
    constexprs = {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}
    attrs = {(i,): [["tt.divisibility", 16]] for i in range(9)}
    src = ASTSource(fn=matmul_kernel, signature=signature, constexprs=constexprs, attrs=attrs)
    compiled = triton.compile(src, target=GPUTarget("cuda", 80, 32), options={"num_warps": 4, "num_stages": 3})
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "matmul_kernel.ptx")
    with open(out, "w") as f:
        f.write(compiled.asm["ptx"])
    print(out)


if __name__ == "__main__":
    main()
