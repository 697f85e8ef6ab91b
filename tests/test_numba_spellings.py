# SPDX-License-Identifier: Apache-2.0
"""Spellings the docs use that Numba types as runtime values, on both Numba-family backends, ahead of
time: ``coop.ThreadData(2 * ITEMS)`` (arithmetic of constants, folded as Python computes it),
``oob_default=(-np.inf, -1)`` for a tuple of items (a tuple of Python numbers, converted field by
field), and float ``!=`` under numba-cuda-mlir (Python's: true for a NaN)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from cuda import coop

from ._numba_family import front

ITEMS = 2
BACKENDS = ["numba", "numba_mlir"]


def _front(backend: str) -> tuple[Any, Any]:
    """(the backend's coop module, its ``cuda``); skips where the DSL is not installed."""
    pytest.importorskip("numba.cuda" if backend == "numba" else "numba_cuda_mlir", reason=f"no {backend}")
    return front(backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_structured_load_spelling_of_the_docs(backend: str) -> None:
    front, cuda = _front(backend)
    half = 2

    def kernel(values, indices, out_v, out_i, n):  # type: ignore[no-untyped-def]
        v = coop.ThreadData(2 * ITEMS, np.float32)  # folded: 4
        i = coop.ThreadData(ITEMS // half + 3, np.int32)  # a closure variable too: 4
        base = cuda.blockIdx.x * 128 * 2 * ITEMS
        coop.block.load(
            (values, indices), (v, i), offset=base, algorithm="vectorize", valid_items=n - base,
            oob_default=(-np.inf, -1),
        )  # fmt: skip
        coop.block.store((out_v, out_i), (v, i), offset=base)

    sig = "void(float32[::1], int32[::1], float32[::1], int32[::1], int64)"
    report = front.compile(kernel, sig, block=128).inspect()
    assert report.calls == 0 and report.local_loads == 0 and report.local_stores == 0, report.sass


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_oob_default_tuple_of_another_length_names_the_fields(backend: str) -> None:
    front, cuda = _front(backend)

    def kernel(values, indices, n):  # type: ignore[no-untyped-def]
        v, i = coop.ThreadData(ITEMS, np.float32), coop.ThreadData(ITEMS, np.int32)
        coop.block.load((values, indices), (v, i), valid_items=n, oob_default=(-np.inf, -1, 0))

    with pytest.raises(
        coop.CoopTypeError,
        match=r"oob_default must be a tuple of 2 numbers \(float32, int32\), converted field by field, or "
        r"one number for every field, got",
    ):
        front.compile(kernel, "void(float32[::1], int32[::1], int64)", block=128)


def test_numba_cuda_mlir_not_equal_is_true_for_a_nan() -> None:
    """numba-cuda-mlir 0.6 lowers float ``!=`` as an ordered compare (``x != x`` folds to false);
    the backend's hook gives Python's unordered one: the PTX keeps a NaN test."""
    front, cuda = _front("numba_mlir")
    from numba_cuda_mlir.numba_cuda import types

    def kernel(x, out):  # type: ignore[no-untyped-def]
        i = cuda.threadIdx.x
        out[i] = 1 if x[i] != x[i] else 0

    ptx = front.compile(kernel, (types.float32[::1], types.int32[::1]), block=32, output="ptx").code
    text = ptx.decode() if isinstance(ptx, bytes) else ptx
    assert "setp.nan.f32" in text or "setp.neu.f32" in text, text


@pytest.mark.gpu
@pytest.mark.parametrize("backend", BACKENDS)
def test_the_structured_load_spelling_on_the_gpu(backend: str) -> None:
    """A partial last tile: the items past ``n`` take ``(-inf, -1)``, converted to (float32, int32)."""
    front, cuda = _front(backend)

    def kernel(values, indices, out_v, out_i, n):  # type: ignore[no-untyped-def]
        v = coop.ThreadData(2 * ITEMS, np.float32)
        i = coop.ThreadData(2 * ITEMS, np.int32)
        base = cuda.blockIdx.x * 128 * 2 * ITEMS
        coop.block.load(
            (values, indices), (v, i), offset=base, valid_items=n - base, oob_default=(-np.inf, -1)
        )
        coop.block.store((out_v, out_i), (v, i), offset=base)

    tile, n = 128 * 2 * ITEMS, 3 * 128 * 2 * ITEMS - 77
    rng = np.random.default_rng()
    values = rng.standard_normal(3 * tile).astype(np.float32)
    indices = rng.integers(0, 1 << 30, 3 * tile).astype(np.int32)
    out_v, out_i = (
        cuda.to_device(np.full(3 * tile, np.nan, np.float32)),
        cuda.to_device(np.full(3 * tile, 7, np.int32)),
    )
    front.jit(kernel)[3, 128](cuda.to_device(values), cuda.to_device(indices), out_v, out_i, n)
    want_v, want_i = values.copy(), indices.copy()
    want_v[n:], want_i[n:] = -np.inf, -1
    np.testing.assert_array_equal(out_v.copy_to_host(), want_v)
    np.testing.assert_array_equal(out_i.copy_to_host(), want_i)


def test_a_numba_cuda_mlir_without_the_operator_table_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``!=`` fix patches numba-cuda-mlir's float operator table: if an upgrade moves it, the
    backend's ``check()`` names it instead of leaving ``!=`` ordered."""
    _front("numba_mlir")
    from cuda.coop.numba_mlir import _ncm_hooks
    from numba_cuda_mlir.lowering import math

    monkeypatch.setattr(math, "_operator_mapping", lambda: {})
    with pytest.raises(coop.CoopBackendError, match=r"operator table has no float entry for operator\.ne"):
        _ncm_hooks.check()
