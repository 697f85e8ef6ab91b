# SPDX-License-Identifier: Apache-2.0
"""numba-cuda-mlir: examples/numba/scans.py with its two imports changed.

Block scans, a row-wise cumulative sum, one block per row, tile after tile.

``prefix_op=`` carries the running total from one tile to the next: a ``ThreadData`` of one item,
seeded with 0, that the first warp reads as the tile's prefix and advances by the tile's total
(CUB's block prefix callback). An exclusive scan with an initial value and the block's
aggregate shows the other options.
"""

from __future__ import annotations

import cuda.coop.numba_mlir as numba_coop
import numpy as np
from cuda import coop
from numba_cuda_mlir import cuda
from numpy.typing import NDArray

THREADS, ITEMS = 128, 4
TILE = THREADS * ITEMS
ROW = 16 * TILE


@numba_coop.jit
def row_cumsum(src: NDArray[np.int64], dst: NDArray[np.int64]) -> None:
    running = coop.ThreadData(1, np.int64)
    running[0] = 0
    items = coop.ThreadData(ITEMS, np.int64)
    for t in range(ROW // TILE):
        base = cuda.blockIdx.x * ROW + t * TILE
        coop.block.load(src, items, offset=base, algorithm="warp_transpose")
        sums = coop.block.inclusive_sum(items, prefix_op=running)
        coop.block.store(dst, sums, offset=base, algorithm="warp_transpose")


@numba_coop.jit
def offsets(counts: NDArray[np.int32], starts: NDArray[np.int32], totals: NDArray[np.int32]) -> None:
    items = coop.ThreadData(ITEMS, np.int32)
    coop.block.load(counts, items, offset=cuda.blockIdx.x * TILE)
    # where each item starts if the block's items are laid out after 1000 reserved slots
    first, total = coop.block.exclusive_scan(items, "sum", initial_value=1000, block_aggregate=True)
    coop.block.store(starts, first, offset=cuda.blockIdx.x * TILE)
    if cuda.threadIdx.x == 0:
        totals[cuda.blockIdx.x] = total


def main() -> None:
    if not cuda.is_available():
        for kernel, sig in (
            (row_cumsum, "void(int64[::1], int64[::1])"),
            (offsets, "void(int32[::1], int32[::1], int32[::1])"),
        ):
            report = numba_coop.compile(kernel, sig, block=THREADS).inspect()
            print(f"compiled {kernel.__name__} for sm_90a (no GPU here)\n" + report.summary())
        return
    rng = np.random.default_rng()
    rows = 8
    src = rng.integers(-1000, 1000, rows * ROW)
    dst = cuda.to_device(np.zeros_like(src))
    row_cumsum[rows, THREADS](cuda.to_device(src), dst)
    np.testing.assert_array_equal(dst.copy_to_host(), np.cumsum(src.reshape(rows, ROW), axis=1).reshape(-1))
    counts = rng.integers(0, 10, 3 * TILE, dtype=np.int32)
    starts, totals = cuda.to_device(np.zeros_like(counts)), cuda.to_device(np.zeros(3, dtype=np.int32))
    offsets[3, THREADS](cuda.to_device(counts), starts, totals)
    tiles = counts.reshape(3, TILE)
    np.testing.assert_array_equal(
        starts.copy_to_host(), (1000 + np.cumsum(tiles, axis=1) - tiles).reshape(-1)
    )
    np.testing.assert_array_equal(totals.copy_to_host(), tiles.sum(axis=1))
    print(f"{rows} rows of {ROW} summed cumulatively; {len(counts)} offsets from an exclusive scan")


if __name__ == "__main__":
    main()
