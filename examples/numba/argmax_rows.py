# SPDX-License-Identifier: Apache-2.0
"""Row argmax: the largest value of each row and its first index, one block per row.

Each thread loads its part of the row with ``algorithm="auto"`` (runs of 4 consecutive items, one
16-byte access each, the runs striped over the threads: coalesced and wide) and
``coop.block.argmax(items, arrangement="auto")`` numbers the items the same way. With these default
indices coop keeps each thread's first best item and its position in a loop before the block's
reduction: one compare and one select an item, no index register per item, as a hand-written loop
(``benchmarks/rows.py`` measures this kernel, variant ``auto``; ``algorithm="striped"`` with
``arrangement="striped"``, variant ``arranged``, numbers a striped load). The answer is NumPy's
``np.argmax``: ties go to the smallest index, a NaN wins over every number.

On a GPU the results are checked against NumPy (rows with ties and NaNs), for both loads; without
one the kernels are compiled ahead of time for sm_90a and their SASS is reported.
"""

from __future__ import annotations

from typing import Any

import cuda.coop.numba as numba_coop
import numpy as np
from cuda import coop
from numba import cuda
from numpy.typing import NDArray

#: (threads, items per thread) for each row length: one block holds the whole row
SHAPES = {4096: (256, 16), 16384: (1024, 16)}


def make_row_argmax(threads: int, items: int, algorithm: str = "auto") -> Any:
    """The argmax kernel for rows of ``threads * items`` float32, a block per row, the row loaded
    with ``algorithm`` (``"striped"`` or ``"auto"``) and numbered in the same arrangement."""
    n = threads * items

    @numba_coop.jit
    def row_argmax(x: NDArray[np.float32], values: NDArray[np.float32], indices: NDArray[np.int64]) -> None:
        row = cuda.blockIdx.x
        xs = coop.ThreadData(items, np.float32)
        coop.block.load(x, xs, offset=row * n, algorithm=algorithm)
        value, index = coop.block.argmax(xs, arrangement=algorithm)  # defined in thread 0
        if cuda.threadIdx.x == 0:
            values[row] = value
            indices[row] = index

    return row_argmax


def main() -> None:
    sig = "void(float32[::1], float32[::1], int64[::1])"
    for (n, (threads, items)), algorithm in zip(SHAPES.items(), ("auto", "striped"), strict=True):
        kernel = make_row_argmax(threads, items, algorithm)
        if not cuda.is_available():
            report = numba_coop.compile(kernel, sig, block=threads).inspect()
            print(f"compiled row_argmax ({algorithm}) for rows of {n} ahead of time for sm_90a (no GPU here)")
            print(report.summary())
            continue
        rng = np.random.default_rng()
        rows = 64
        x = rng.integers(-50, 50, size=(rows, n)).astype(np.float32)  # many ties
        x[3, rng.choice(n, 2, replace=False)] = np.nan  # the first NaN wins
        values = cuda.to_device(np.full(rows, -1.0, np.float32))
        indices = cuda.to_device(np.full(rows, -1, np.int64))
        kernel[rows, threads](cuda.to_device(x.reshape(-1)), values, indices)
        want = np.argmax(x, axis=1)
        np.testing.assert_array_equal(indices.copy_to_host(), want)
        np.testing.assert_array_equal(values.copy_to_host(), x[np.arange(rows), want])
        print(f"argmax ({algorithm}) of {rows} rows of {n} float32 (ties, a NaN): matches np.argmax")


if __name__ == "__main__":
    main()
