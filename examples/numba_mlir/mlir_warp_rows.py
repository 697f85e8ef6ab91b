# SPDX-License-Identifier: Apache-2.0
"""numba-cuda-mlir: examples/numba/warp_rows.py with its two imports changed.

A warp per row: row sums, row maxima with logical warps of 8 lanes, and per-row prefix sums.

Each warp of 32 lanes loads one row of ``32 * ITEMS`` floats (``coop.warp.load``, vectorized), sums
it with ``coop.warp.sum`` (register shuffles, no shared memory) and lane 0 writes the sum. A second
kernel splits every warp into logical warps of 8 lanes (``threads_in_warp=8``), one per short row,
and gives each lane the exclusive prefix of its row (``coop.warp.exclusive_sum``) and the row's
maximum (``coop.warp.reduce(..., broadcast=True)``).
"""

from __future__ import annotations

import cuda.coop.numba_mlir as numba_coop
import numpy as np
from cuda import coop
from numba_cuda_mlir import cuda
from numpy.typing import NDArray

THREADS, ITEMS = 256, 4
ROW = 32 * ITEMS  # a row per warp
ROWS_PER_BLOCK = THREADS // 32
SHORT = 8  # lanes per logical warp in the second kernel, one value each


@numba_coop.jit
def row_sums(src: NDArray[np.float32], sums: NDArray[np.float32]) -> None:
    row = cuda.blockIdx.x * ROWS_PER_BLOCK + cuda.threadIdx.x // 32
    items = coop.ThreadData(ITEMS, np.float32)
    coop.warp.load(src, items, offset=row * ROW, algorithm="vectorize")
    total = coop.warp.sum(items)  # defined in lane 0
    if cuda.threadIdx.x % 32 == 0:
        sums[row] = total


@numba_coop.jit
def short_rows(src: NDArray[np.int32], prefix: NDArray[np.int32], maxima: NDArray[np.int32]) -> None:
    i = cuda.blockIdx.x * THREADS + cuda.threadIdx.x
    v = src[i]
    prefix[i] = coop.warp.exclusive_sum(v, threads_in_warp=SHORT)
    maxima[i] = coop.warp.reduce(v, "max", broadcast=True, threads_in_warp=SHORT)


def main() -> None:
    sig1 = "void(float32[::1], float32[::1])"
    sig2 = "void(int32[::1], int32[::1], int32[::1])"
    if not cuda.is_available():
        for kernel, sig in ((row_sums, sig1), (short_rows, sig2)):
            report = numba_coop.compile(kernel, sig, block=THREADS).inspect()
            print(f"compiled {kernel.__name__} for sm_90a (no GPU here)\n" + report.summary())
        return
    rng = np.random.default_rng()
    rows = 64 * ROWS_PER_BLOCK
    src = rng.integers(-100, 100, rows * ROW).astype(np.float32)  # integer-valued: exact sums
    sums = cuda.to_device(np.zeros(rows, dtype=np.float32))
    row_sums[rows // ROWS_PER_BLOCK, THREADS](cuda.to_device(src), sums)
    np.testing.assert_array_equal(sums.copy_to_host(), src.reshape(rows, ROW).sum(axis=1))
    ints = rng.integers(-1000, 1000, 16 * THREADS, dtype=np.int32)
    prefix, maxima = (cuda.to_device(np.zeros_like(ints)) for _ in range(2))
    short_rows[16, THREADS](cuda.to_device(ints), prefix, maxima)
    short = ints.reshape(-1, SHORT)
    np.testing.assert_array_equal(prefix.copy_to_host(), (np.cumsum(short, axis=1) - short).reshape(-1))
    np.testing.assert_array_equal(maxima.copy_to_host(), np.repeat(short.max(axis=1), SHORT))
    print(f"{rows} row sums, {len(short)} short-row prefixes and maxima: all equal to NumPy's")


if __name__ == "__main__":
    main()
