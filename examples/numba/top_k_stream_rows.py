# SPDX-License-Identifier: Apache-2.0
"""The k largest values of each row and their indices (``torch.topk``), a warp per row, with
``coop.warp.top_k``.

A warp streams its row of 4096 float32 in tiles of 32 lanes x 32 items (``coop.warp.load``,
striped: lane ``l``'s item ``i`` is the tile's item ``l + 32 i``) and hands each tile to
``coop.warp.top_k``, which keeps the running list of the 16 best (value, index) pairs, one a lane,
largest first, of equal values the smaller index. ``first=`` is the tile's position in the row, so
the indices are the row's. The row is never sorted: a tile's items are compared once with the
list's 16th value (while the list is not full, with a threshold from the lanes' maxima), and the
few that pass are merged into the list by shuffle networks. ``benchmarks/rows.py`` times this kernel
(variant ``primitive``) next to the hand-written design and quack-kernels.

With several warps a row (longer rows), each warp streams its part and the row's first warp merges
their lists with one more call, the lists' entries as a tile whose indices are given (``indices=``).

The result is exact: the rows below include ascending, descending and constant rows, rows of few
distinct values and rows of -inf, and each is compared with NumPy's order (``np.lexsort``) value by
value and index by index. On a GPU it runs; without one it is compiled ahead of time for sm_90a.
"""

from __future__ import annotations

from typing import Any

import cuda.coop.numba as numba_coop
import numpy as np
from cuda import coop
from numba import cuda
from numpy.typing import NDArray

K, N = 16, 4096
THREADS, ITEMS = 128, 32  # 4 warps, so 4 rows, a block
NINF, BIG = np.float32(-np.inf), np.int32(2**31 - 1)  # the empty list entry


def make_row_top_k(n: int, k: int, items: int, threads: int, warps_per_row: int = 1) -> Any:
    """The kernel ``(x, values, indices)``: the ``k`` largest of each row of ``n`` float32 in ``x``,
    ``warps_per_row`` warps a row, each streaming tiles of 32 x ``items``."""
    tile, part = 32 * items, n // warps_per_row
    tiles, warps = part // tile, threads // 32
    rows_per_block = warps // warps_per_row
    merged = -(-warps_per_row * k // 32)  # items a lane of the lists' merge

    @numba_coop.jit
    def row_top_k(x: NDArray[np.float32], values: NDArray[np.float32], indices: NDArray[np.int64]) -> None:
        lane, w = cuda.threadIdx.x % 32, cuda.threadIdx.x // 32
        row = cuda.blockIdx.x * rows_per_block + w // warps_per_row
        first = (w % warps_per_row) * part  # the warp's part of the row
        xs = coop.ThreadData(items, np.float32)
        top = (NINF, BIG)  # the list: lane l holds the l-th best so far
        for j in range(tiles):
            coop.warp.load(x, xs, offset=row * n + first + j * tile, algorithm="striped")
            top = coop.warp.top_k(xs, k, running=top, first=first + j * tile)
        if warps_per_row > 1:  # the row's first warp merges the warps' lists
            lists_v = cuda.shared.array((warps, k), np.float32)
            lists_i = cuda.shared.array((warps, k), np.int32)
            if lane < k:
                lists_v[w, lane], lists_i[w, lane] = top[0], top[1]
            cuda.syncthreads()
            if w % warps_per_row == 0:
                mv = coop.ThreadData(merged, np.float32)
                mi = coop.ThreadData(merged, np.int32)
                for s in range(merged):
                    e = lane + 32 * s  # entry e: warp w + e // k's e % k-th
                    mv[s], mi[s] = NINF, BIG
                    if e < warps_per_row * k:
                        mv[s], mi[s] = lists_v[w + e // k, e % k], lists_i[w + e // k, e % k]
                top = coop.warp.top_k(mv, k, indices=mi)
        if lane < k and w % warps_per_row == 0:
            values[row * k + lane] = top[0]
            indices[row * k + lane] = top[1]

    return row_top_k


def rows_to_check(rows: int) -> NDArray[np.float32]:
    """Random rows, and rows that defeat the threshold or test the order of ties."""
    rng = np.random.default_rng()
    x = rng.standard_normal((rows, N)).astype(np.float32)
    x[1] = np.arange(N)  # ascending: every tile beats the list so far
    x[2] = -np.arange(N)  # descending
    x[3] = 2.5  # all equal: the 16 smallest indices
    x[4] = rng.integers(0, 3, N)  # three values, many ties
    x[5] = -np.inf
    x[6, ::7] = np.float32(9.0)  # more than 16 equal largest values
    x[7] = np.sort(x[7])
    return x


def main() -> None:
    signature = "void(float32[::1], float32[::1], int64[::1])"
    kernels = {1: make_row_top_k(N, K, ITEMS, THREADS), 4: make_row_top_k(N, K, 16, THREADS, warps_per_row=4)}
    if not cuda.is_available():
        for wr, kernel in kernels.items():
            report = numba_coop.compile(kernel, signature, block=THREADS).inspect()
            print(f"compiled row_top_k ({wr} warps a row) for sm_90a (no GPU here)\n" + report.summary())
        return
    rows = 1024
    x = rows_to_check(rows)
    order = np.stack([np.lexsort((np.arange(N), -r.astype(np.float64)))[:K] for r in x])
    for wr, kernel in kernels.items():
        values = cuda.device_array(rows * K, np.float32)
        indices = cuda.device_array(rows * K, np.int64)
        kernel[rows * wr // (THREADS // 32), THREADS](cuda.to_device(x.reshape(-1)), values, indices)
        got_v, got_i = values.copy_to_host().reshape(rows, K), indices.copy_to_host().reshape(rows, K)
        np.testing.assert_array_equal(got_i, order)
        np.testing.assert_array_equal(got_v, np.take_along_axis(x, order, 1))
        print(
            f"{rows} rows of {N}, {wr} warps a row: the {K} largest and their indices, as NumPy orders them"
        )


if __name__ == "__main__":
    main()
