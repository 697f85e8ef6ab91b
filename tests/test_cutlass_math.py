# SPDX-License-Identifier: Apache-2.0
"""``cute.math`` next to coop calls in a CuTe kernel: the functions that lower to libdevice
(``__nv_expf``, ``__nv_rsqrtf``, ...) link into the full-LTO cubin and inline (0 CALL), ahead of time
and on the GPU, with the same floating-point instructions as a plain ``cute.compile`` of the same
math; and a softmax row and an RMSNorm row (block reduce + math) against NumPy on the GPU."""

from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")

import cuda.coop.cutlass as cutlass_coop  # noqa: E402
import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402
from cuda import coop  # noqa: E402

from ._cute_kernels import fake_tensor  # noqa: E402

THREADS, ITEMS = 128, 4
TILE = THREADS * ITEMS

#: One function of each family, with the NumPy reference and a domain its inputs are drawn from.
FAMILIES: dict[str, tuple[Any, tuple[float, float]]] = {
    "exp": (np.exp, (-20.0, 20.0)),
    "exp2": (np.exp2, (-20.0, 20.0)),
    "log": (np.log, (1e-3, 1e3)),
    "sqrt": (np.sqrt, (0.0, 1e4)),
    "rsqrt": (lambda x: 1.0 / np.sqrt(x), (1e-3, 1e4)),
    "sin": (np.sin, (-10.0, 10.0)),
    "cos": (np.cos, (-10.0, 10.0)),
    "erf": (None, (-4.0, 4.0)),  # math.erf, elementwise (NumPy has none)
    "tanh": (np.tanh, (-10.0, 10.0)),
}


def _math_host(name: str) -> Any:
    f = getattr(cute.math, name)

    @cute.kernel
    def kernel(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        bidx, _, _ = cute.arch.block_idx()
        items = coop.ThreadData(ITEMS, cutlass.Float32)
        coop.block.load(src, items, offset=bidx * TILE, algorithm="striped")
        items.store(f(items.load()))
        coop.block.store(dst, items, offset=bidx * TILE, algorithm="striped")

    @cute.jit
    def host(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        kernel(src, dst).launch(grid=(cute.size(src) // TILE, 1, 1), block=(THREADS, 1, 1))

    return host


def _plain_host(name: str) -> Any:
    """The same math without coop, compiled by ``cute.compile`` alone (CuTe links libdevice)."""
    f = getattr(cute.math, name)

    @cute.kernel
    def kernel(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        bidx, _, _ = cute.arch.block_idx()
        tidx, _, _ = cute.arch.thread_idx()
        for j in cutlass.range_constexpr(ITEMS):
            i = bidx * TILE + j * THREADS + tidx
            dst[i] = f(src[i])

    @cute.jit
    def host(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        kernel(src, dst).launch(grid=(cute.size(src) // TILE, 1, 1), block=(THREADS, 1, 1))

    return host


def _float_ops(sass: str) -> dict[str, int]:
    """Counts of the floating-point and special-function instructions of a SASS listing."""
    import re

    counts: dict[str, int] = {}
    ops = "MUFU|FFMA|FMUL|FADD|FSETP|FSEL|FCHK|DFMA|FMNMX"
    for m in re.finditer(rf"\*/\s+(?:@!?U?P\w+\s+)?((?:{ops})[.\w]*)", sass):
        counts[m.group(1)] = counts.get(m.group(1), 0) + 1
    return counts


@pytest.mark.parametrize("name", list(FAMILIES))
def test_cute_math_links_and_inlines_next_to_coop(name: str, tmp_path: Path) -> None:
    n = 4 * TILE
    compiled = cutlass_coop.compile(_math_host(name), fake_tensor("float32", n), fake_tensor("float32", n))
    report = compiled.inspect()
    assert len(report.functions) == 1
    assert report.calls == 0 and report.local_loads == 0 and report.local_stores == 0, report.sass
    assert "__nv_" not in report.sass and not report.leftover_symbols
    plain = cute.compile(_plain_host(name), fake_tensor("float32", n), fake_tensor("float32", n),
                         options=f"--keep-cubin --dump-dir {tmp_path}")  # fmt: skip
    from cuda.coop._sass import disassemble

    # libdevice was linked as CuTe links it: the same float instructions as the plain kernel's
    assert _float_ops(report.sass) == _float_ops(disassemble(plain.artifacts.CUBIN))


def _rows_host(kind: str, n: int, threads: int) -> Any:
    ipt = n // threads

    @cute.kernel
    def kernel(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        row, _, _ = cute.arch.block_idx()
        items = coop.ThreadData(ipt, cutlass.Float32)
        coop.block.load(src, items, offset=row * n, algorithm="striped")
        if cutlass.const_expr(kind == "softmax"):
            top = coop.block.reduce(items, "max", broadcast=True)
            items.store(cute.math.exp(items.load() - top))
            total = coop.block.sum(items, broadcast=True)
            items.store(items.load() / total)
        else:
            x = items.load()
            items.store(x * x)
            ss = coop.block.sum(items, broadcast=True)
            items.store(x * cute.math.rsqrt(ss / n + 1e-6))
        coop.block.store(dst, items, offset=row * n, algorithm="striped")

    @cute.jit
    def host(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        kernel(src, dst).launch(grid=(cute.size(src) // n, 1, 1), block=(threads, 1, 1))

    return host


@pytest.mark.parametrize("kind", ["softmax", "rmsnorm"])
def test_row_kernels_with_math_compile_ahead_of_time(kind: str) -> None:
    compiled = cutlass_coop.compile(_rows_host(kind, 4096, 256), fake_tensor("float32", 8 * 4096),
                                    fake_tensor("float32", 8 * 4096))  # fmt: skip
    report = compiled.inspect()
    assert report.calls == 0 and report.local_loads == 0 and report.local_stores == 0


def _cute(*tensors: Any) -> list[Any]:
    from cutlass.cute.runtime import from_dlpack

    return [from_dlpack(t, assumed_align=16) for t in tensors]


def _erf(x: np.ndarray) -> np.ndarray:
    import math

    return np.vectorize(math.erf, otypes=[np.float64])(x)


@pytest.mark.gpu
@pytest.mark.parametrize("name", list(FAMILIES))
def test_cute_math_next_to_coop_on_the_gpu(name: str) -> None:
    import torch

    ref, (lo, hi) = FAMILIES[name]
    rng = np.random.default_rng()
    x = rng.uniform(lo, hi, size=8 * TILE).astype(np.float32)
    src = torch.from_numpy(x).cuda()
    dst = torch.full_like(src, float("nan"))
    compiled = cutlass_coop.compile(_math_host(name), *_cute(src, dst))
    compiled(src, dst)
    torch.cuda.synchronize()
    want = (ref or _erf)(x.astype(np.float64))
    np.testing.assert_allclose(dst.cpu().numpy(), want, rtol=2e-6, atol=2e-6)


@pytest.mark.gpu
@pytest.mark.parametrize(
    ("kind", "n", "threads"),
    [("softmax", 4096, 256), ("rmsnorm", 4096, 256), ("softmax", 1000, 125), ("rmsnorm", 96, 96)],
)
def test_row_kernels_with_math_on_the_gpu(kind: str, n: int, threads: int) -> None:
    import torch

    rows = 37
    x = np.random.default_rng().standard_normal((rows, n)).astype(np.float32) * 4
    src = torch.from_numpy(x.reshape(-1)).cuda()
    dst = torch.full_like(src, float("nan"))
    compiled = cutlass_coop.compile(_rows_host(kind, n, threads), *_cute(src, dst))
    compiled(src, dst)
    torch.cuda.synchronize()
    x64 = x.astype(np.float64)
    if kind == "softmax":
        e = np.exp(x64 - x64.max(axis=1, keepdims=True))
        want = e / e.sum(axis=1, keepdims=True)
    else:
        want = x64 / np.sqrt((x64 * x64).mean(axis=1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(dst.cpu().numpy().reshape(rows, n), want, rtol=1e-5, atol=1e-6)
