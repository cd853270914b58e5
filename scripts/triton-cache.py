#!/usr/bin/env python3
"""Fills a Triton cache directory with 100 compiled kernels, ahead of time and without a GPU.

The benchmark's "a whole directory of compiled kernels" case (issue 37: a 100-kernel Triton cache
checked in under 10 s on 2 cores; docs/performance.md). The kernels are the shapes of Triton's
tutorials, written here: an elementwise add, a row softmax, a tiled matrix multiply (with and
without the K-tail mask), a dropout with a per-element seed, a layer-norm forward pass; each in
several block sizes, warp counts, pipeline depths, element types and architectures, as an
autotuner leaves them in a user's cache. Triton writes its cache itself (TRITON_CACHE_DIR): per
kernel a hash directory with the .ptx, .ttgir, .cubin and a .json of metadata.

Pinned: triton==3.9.0. Run: python3 scripts/triton-cache.py DIR
then: layoutproof bench --kernels DIR    (or: layoutproof check DIR)
"""
import itertools
import os
import sys

if len(sys.argv) != 2:
    sys.exit("usage: triton-cache.py DIR")
os.environ["TRITON_CACHE_DIR"] = os.path.abspath(sys.argv[1])
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # 3.9's default, stated (it warns otherwise)

import triton  # noqa: E402  (the cache directory is read when triton is imported)
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

assert triton.__version__ == "3.9.0", f"pinned to triton 3.9.0, found {triton.__version__}"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * in_stride + cols, mask=cols < n_cols, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out_ptr + row * out_stride + cols, e / tl.sum(e, axis=0), mask=cols < n_cols)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, MASK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        if MASK_K:
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        else:
            a = tl.load(a_ptrs)
            b = tl.load(b_ptrs)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def dropout_kernel(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    keep = tl.rand(seed, offs) > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


@triton.jit
def layernorm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    rstd = 1 / tl.sqrt(tl.sum(d * d, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(y_ptr + row * stride + cols, d * rstd * w + b, mask=mask)


def variants():
    """(kernel, signature, constexprs, options, arch) for 100 kernels."""
    out = []
    for dtype, block, warps in itertools.product(["*fp32", "*fp16"], [256, 1024, 4096], [4, 8]):
        out.append((add_kernel, {"x_ptr": dtype, "y_ptr": dtype, "out_ptr": dtype, "n": "i32"}, {"BLOCK": block},
                    {"num_warps": warps}, 90))
    for dtype, block, warps in itertools.product(["*fp32", "*fp16"], [128, 512, 2048], [4, 8]):
        out.append((softmax_kernel, {"out_ptr": dtype, "in_ptr": dtype, "in_stride": "i32", "out_stride": "i32", "n_cols": "i32"},
                    {"BLOCK": block}, {"num_warps": warps}, 90))
    for (bm, bn, bk), stages, mask, arch in itertools.product([(32, 32, 32), (64, 64, 32), (64, 64, 64), (128, 64, 32), (64, 128, 64), (128, 128, 32)],
                                                              [2, 3, 4], [False, True], [80, 90]):
        sig = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
               "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"}
        out.append((matmul_kernel, sig, {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "MASK_K": mask},
                    {"num_warps": 4, "num_stages": stages}, arch))
    for block, warps in itertools.product([256, 1024], [4, 8]):
        out.append((dropout_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "p": "fp32", "seed": "i32"},
                    {"BLOCK": block}, {"num_warps": warps}, 90))
    for block, warps in itertools.product([256, 1024, 4096], [4, 8]):
        out.append((layernorm_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "w_ptr": "*fp32", "b_ptr": "*fp32",
                                       "stride": "i32", "n_cols": "i32", "eps": "fp32"},
                    {"BLOCK": block}, {"num_warps": warps}, 90))
    return out[:100]


def main():
    kernels = variants()
    assert len(kernels) == 100, len(kernels)
    for fn, signature, constexprs, options, arch in kernels:
        # As Triton's launcher specialises them: pointers and integers divisible by 16 (strides and
        # sizes of ordinary shapes), which lets it vectorise and pipeline the copies (cp.async).
        attrs = {(i,): [["tt.divisibility", 16]] for i, t in enumerate(signature.values()) if t[0] == "*" or t == "i32"}
        src = ASTSource(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs)
        triton.compile(src, target=GPUTarget("cuda", arch, 32), options=options)
    ptx = [f for _, _, files in os.walk(sys.argv[1]) for f in files if f.endswith(".ptx")]
    print(f"{sys.argv[1]}: {len(ptx)} PTX files")


if __name__ == "__main__":
    main()
