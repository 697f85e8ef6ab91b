# SPDX-License-Identifier: Apache-2.0
"""The k largest scores of each row, with their column indices, largest first (``torch.topk``).

One block per row of 2048 float32 scores (256 threads x 8, blocked). ``coop.block.top_k`` selects
the row's 16 largest scores, each carrying its column index as its value, into the tile's first 16
slots, in no particular order: the 8 items of threads 0 and 1. Those two threads then order them,
largest first, with ``coop.warp.merge_sort`` on a logical warp of two lanes (the other logical
warps of the block skip the call), instead of sorting the whole tile. Checked against NumPy: the
scores equal the row's 16 largest, and each index points at its score.

``coop.block.top_k`` is CUB's radix select (passes over the keys' bits, each a histogram in shared
memory): a block a row, it runs well below a row read (``benchmarks/block_top_k.py`` times
``make_top_k_rows`` against quack-kernels and torch). For the k <= 32 largest of long rows, a warp a
row with ``coop.warp.top_k`` is the fast way (``examples/numba/top_k_stream_rows.py``).
"""

from __future__ import annotations

from typing import Any

import cuda.coop.numba as numba_coop
import numpy as np
from cuda import coop
from numba import cuda
from numpy.typing import NDArray

THREADS, ITEMS, K = 256, 8, 16


def make_top_k_rows(k: int, threads: int, items: int) -> Any:
    """The kernel ``(scores, top, index)``: the ``k`` largest of each row of ``threads * items`` float32
    scores, largest first, with their columns; one block a row. ``k`` a multiple of ``items`` whose
    quotient (the threads that hold the selection) is a power of two up to 32."""
    row_n, lanes = threads * items, k // items
    assert k % items == 0 and lanes & (lanes - 1) == 0 and 1 <= lanes <= 32, (k, items)

    @numba_coop.jit
    def top_k_rows(scores: NDArray[np.float32], top: NDArray[np.float32], index: NDArray[np.int32]) -> None:
        row = cuda.blockIdx.x
        t = cuda.threadIdx.x
        keys = coop.ThreadData(items, np.float32)
        cols = coop.ThreadData(items, np.int32)
        coop.block.load(scores, keys, offset=row * row_n, algorithm="vectorize")
        for j in range(items):
            cols[j] = t * items + j
        coop.block.top_k(keys, k, values=cols)  # in the tile's first k slots
        if t < lanes:
            coop.warp.merge_sort(keys, "greater", values=cols, threads_in_warp=lanes)
            for j in range(items):
                top[row * k + t * items + j] = keys[j]
                index[row * k + t * items + j] = cols[j]

    return top_k_rows


top_k_rows = make_top_k_rows(K, THREADS, ITEMS)


def main() -> None:
    signature = "void(float32[::1], float32[::1], int32[::1])"
    if not cuda.is_available():
        report = numba_coop.compile(top_k_rows, signature, block=THREADS).inspect()
        print("compiled top_k_rows for sm_90a (no GPU here)\n" + report.summary())
        return
    rows, row_n = 512, THREADS * ITEMS
    scores = np.random.default_rng().standard_normal((rows, row_n)).astype(np.float32)
    top = cuda.device_array(rows * K, np.float32)
    index = cuda.device_array(rows * K, np.int32)
    top_k_rows[rows, THREADS](cuda.to_device(scores.reshape(-1)), top, index)
    got, cols = top.copy_to_host().reshape(rows, K), index.copy_to_host().reshape(rows, K)
    np.testing.assert_array_equal(got, -np.sort(-scores, axis=1)[:, :K])
    np.testing.assert_array_equal(np.take_along_axis(scores, cols.astype(np.int64), 1), got)
    assert all(len(set(r)) == K for r in cols.tolist()), "an index was selected twice"
    print(f"{rows} rows of {row_n} scores: the {K} largest of each, largest first, with their columns")


if __name__ == "__main__":
    main()
