# SPDX-License-Identifier: Apache-2.0
"""``coop.warp.top_k`` test kernels, their rows and an independent NumPy reference (``np.lexsort``
order: the larger value first, of equal values the smaller index; NaN never selected), for every
backend: the Numba family (numba-cuda, numba-cuda-mlir) and CuTe.

A case is one kernel: ``k``, items a lane, tiles a row, a mode (``striped``: a striped warp load and
the default striped indices, the list started as ``(-inf, INT32_MAX)``; ``first``: the first tile's
call without ``running``; ``blocked``: a direct (blocked) warp load and ``arrangement='blocked'``;
``indices``: a permutation of the row's positions as ``indices=``), an item type and a logical warp
width. Each logical warp streams one row; every lane writes its list entry, so lanes ``>= k`` are
checked too (``(lowest, INT32_MAX)``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

INT32_MAX = 2**31 - 1
THREADS = 128


@dataclass(frozen=True)
class Case:
    k: int
    items: int
    tiles: int = 3
    mode: str = "striped"
    dtype: str = "float32"
    width: int = 32

    @property
    def id(self) -> str:
        return f"k{self.k}-n{self.items}-t{self.tiles}-{self.mode}-{self.dtype}-w{self.width}"

    @property
    def n(self) -> int:
        """A row's items."""
        return self.width * self.items * self.tiles

    @property
    def rows(self) -> int:
        return 4 * THREADS // self.width  # 4 blocks

    @property
    def low(self) -> Any:
        return np.iinfo(np.int32).min if self.dtype == "int32" else -np.inf


def cases() -> list[Case]:
    """k in {1, 8, 16, 32} x items a lane in {4, 8, 16, 32} (striped, three tiles), then the other
    modes, item types and widths at a few sizes."""
    out = [Case(k, n) for k in (1, 8, 16, 32) for n in (4, 8, 16, 32)]
    out += [Case(16, 16, mode="first"), Case(5, 8, mode="first", tiles=1)]
    out += [Case(16, 16, mode="blocked"), Case(3, 32, mode="blocked")]
    out += [Case(16, 16, mode="indices"), Case(32, 4, mode="indices")]
    out += [Case(16, 8, dtype="float16"), Case(8, 16, dtype="int32"), Case(32, 8, dtype="bfloat16")]
    # 64 items a lane (a 64-bit marks word) at every k of the row benchmark (rows of 4096, 1w128x64)
    out += [Case(k, 64, tiles=2) for k in (1, 8, 16, 32)]
    out += [Case(7, 16, width=16), Case(4, 8, width=8)]
    # the list takes an entry from every lane (k > W/2): the threshold from the lanes' two best items
    out += [Case(16, 8, width=16), Case(8, 4, width=8), Case(24, 16), Case(2, 8, width=2)]
    return out


def rows(case: Case, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(values, indices) of ``case.rows`` rows: random, and the rows that defeat a threshold or test
    the order: ascending, descending, constant, few distinct values, all lowest (-inf), +-0, NaN
    sprinkled, fewer non-NaN items than k, ties at the top, ascending with repeats. Held as float64
    (the item type's values); indices are positions, or a permutation of them per row."""
    n, r = case.n, case.rows
    integer = case.dtype == "int32"
    x = rng.standard_normal((r, n)) * (1000 if integer else 1)
    x[1] = np.arange(n)
    x[2] = -np.arange(n)
    x[3] = 2.5
    x[4] = rng.integers(0, 3, n)
    x[5] = case.low
    x[6] = rng.choice([0.0, -0.0], n) if not integer else rng.integers(-1, 1, n)
    x[7, rng.choice(n, n // 7, replace=False)] = 9.0
    x[8] = np.repeat(np.arange(n // 5 + 1), 5)[:n]
    x[9] = np.sort(x[9])
    x[10, : n // 2] = case.low
    if not integer:
        x[11, rng.choice(n, n // 3, replace=False)] = np.nan
        x[12] = np.nan
        x[12, rng.choice(n, max(case.k // 2, 1), replace=False)] = rng.standard_normal(max(case.k // 2, 1))
    x = cast(x, case.dtype)
    idx = np.tile(np.arange(n), (r, 1))
    if case.mode == "indices":
        idx = np.stack([rng.permutation(n) for _ in range(r)])
    return x, idx.astype(np.int32)


def cast(x: np.ndarray, dtype: str) -> np.ndarray:
    """``x`` rounded to the item type, held as float64 (bfloat16: float32 with its low 16 bits cleared)."""
    if dtype == "int32":
        return np.round(x).clip(-(2**31), INT32_MAX).astype(np.int32).astype(np.float64)
    if dtype == "bfloat16":
        bits = x.astype(np.float32).view(np.uint32)
        keep = np.isnan(x)
        rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
        out = rounded.view(np.float32).astype(np.float64)
        return np.where(keep, np.nan, out)
    return x.astype(dtype).astype(np.float64)


def reference(case: Case, x: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's list by lane (``case.width`` entries): the ``k`` best non-NaN (value, index) pairs in
    ``np.lexsort`` order, then ``(lowest, INT32_MAX)``."""
    w = case.width
    values = np.full((len(x), w), case.low, np.float64)
    indices = np.full((len(x), w), INT32_MAX, np.int64)
    for r, (row, ix) in enumerate(zip(x, idx, strict=True)):
        keep = ~np.isnan(row)
        v, i = row[keep], ix[keep]
        order = np.lexsort((i, -v))[: case.k]
        values[r, : len(order)] = v[order]
        indices[r, : len(order)] = i[order]
    return values, indices


def mismatches(case: Case, x: np.ndarray, idx: np.ndarray, got_v: np.ndarray, got_i: np.ndarray) -> list[str]:
    """The rows whose list differs from the reference (values bit for bit: -0.0 is not +0.0)."""
    want_v, want_i = reference(case, x, idx)
    got_v = got_v.reshape(want_v.shape).astype(np.float64)
    got_i = got_i.reshape(want_i.shape).astype(np.int64)
    bad = []
    for r in range(len(x)):
        same_v = np.array_equal(np.signbit(got_v[r]), np.signbit(want_v[r])) and np.array_equal(
            got_v[r], want_v[r]
        )
        if not (same_v and np.array_equal(got_i[r], want_i[r])):
            k = case.k
            bad.append(
                f"row {r}: got {got_v[r][:k]} @ {got_i[r][:k]}, want {want_v[r][:k]} @ {want_i[r][:k]}"
            )
    return bad


def numba_kernel(case: Case, coop_module: Any, cuda: Any) -> Any:
    """The case's kernel for a Numba-family backend (``cuda`` its module): ``(x, idx, values,
    indices)``; bfloat16 is not a Numba array type (CuTe only)."""
    from cuda import coop

    k, n_items, tiles, w = case.k, case.items, case.tiles, case.width
    tile, n, warps = w * n_items, case.n, THREADS // w
    t = np.dtype(case.dtype)
    low, big = t.type(case.low), np.int32(INT32_MAX)
    if case.mode == "striped":

        def kernel(x, idx, values, indices):  # type: ignore[no-untyped-def]
            lane = cuda.threadIdx.x % w
            row = cuda.blockIdx.x * warps + cuda.threadIdx.x // w
            xs = coop.ThreadData(n_items, t)
            top = (low, big)
            for j in range(tiles):
                coop.warp.load(x, xs, offset=row * n + j * tile, algorithm="striped", threads_in_warp=w)
                top = coop.warp.top_k(xs, k, running=top, first=j * tile, threads_in_warp=w)
            values[row * w + lane] = top[0]
            indices[row * w + lane] = top[1]

    elif case.mode == "first":

        def kernel(x, idx, values, indices):  # type: ignore[no-untyped-def]
            lane = cuda.threadIdx.x % w
            row = cuda.blockIdx.x * warps + cuda.threadIdx.x // w
            xs = coop.ThreadData(n_items, t)
            coop.warp.load(x, xs, offset=row * n, algorithm="striped", threads_in_warp=w)
            top = coop.warp.top_k(xs, k, threads_in_warp=w)
            for j in range(1, tiles):
                coop.warp.load(x, xs, offset=row * n + j * tile, algorithm="striped", threads_in_warp=w)
                top = coop.warp.top_k(xs, k, running=top, first=j * tile, threads_in_warp=w)
            values[row * w + lane] = top[0]
            indices[row * w + lane] = top[1]

    elif case.mode == "blocked":

        def kernel(x, idx, values, indices):  # type: ignore[no-untyped-def]
            lane = cuda.threadIdx.x % w
            row = cuda.blockIdx.x * warps + cuda.threadIdx.x // w
            xs = coop.ThreadData(n_items, t)
            top = (low, big)
            for j in range(tiles):
                coop.warp.load(x, xs, offset=row * n + j * tile, threads_in_warp=w)
                top = coop.warp.top_k(
                    xs, k, running=top, first=j * tile, arrangement="blocked", threads_in_warp=w
                )
            values[row * w + lane] = top[0]
            indices[row * w + lane] = top[1]

    else:

        def kernel(x, idx, values, indices):  # type: ignore[no-untyped-def]
            lane = cuda.threadIdx.x % w
            row = cuda.blockIdx.x * warps + cuda.threadIdx.x // w
            xs = coop.ThreadData(n_items, t)
            ix = coop.ThreadData(n_items, np.int32)
            top = (low, big)
            for j in range(tiles):
                coop.warp.load(x, xs, offset=row * n + j * tile, algorithm="striped", threads_in_warp=w)
                coop.warp.load(idx, ix, offset=row * n + j * tile, algorithm="striped", threads_in_warp=w)
                top = coop.warp.top_k(xs, k, running=top, indices=ix, threads_in_warp=w)
            values[row * w + lane] = top[0]
            indices[row * w + lane] = top[1]

    return kernel


def numba_signature(case: Case) -> str:
    return f"void({case.dtype}[::1], int32[::1], {case.dtype}[::1], int32[::1])"
