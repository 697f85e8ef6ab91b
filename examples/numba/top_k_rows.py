# SPDX-License-Identifier: Apache-2.0
"""The 16 largest scores of each row, with their column indices, largest first (``torch.topk``).

One block per row of 2048 float32 scores (256 threads x 8, blocked). ``coop.block.top_k`` selects
the row's 16 largest scores, each carrying its column index as its value, into the tile's first 16
slots, in no particular order: the 8 items of threads 0 and 1. Those two threads then order them,
largest first, with ``coop.warp.merge_sort`` on a logical warp of two lanes (the other logical
warps of the block skip the call), instead of sorting the whole tile. Checked against NumPy: the
scores equal the row's 16 largest, and each index points at its score.
"""

from __future__ import annotations

import cuda.coop.numba as numba_coop
import numpy as np
from cuda import coop
from numba import cuda
from numpy.typing import NDArray

THREADS, ITEMS, K = 256, 8, 16
ROW = THREADS * ITEMS
LANES = K // ITEMS  # the threads that hold the selection: one logical warp of them


@numba_coop.jit
def top_k_rows(scores: NDArray[np.float32], top: NDArray[np.float32], index: NDArray[np.int32]) -> None:
    row = cuda.blockIdx.x
    t = cuda.threadIdx.x
    keys = coop.ThreadData(ITEMS, np.float32)
    cols = coop.ThreadData(ITEMS, np.int32)
    coop.block.load(scores, keys, offset=row * ROW, algorithm="vectorize")
    for j in range(ITEMS):
        cols[j] = t * ITEMS + j
    coop.block.top_k(keys, K, values=cols)  # the 16 largest, in the tile's first 16 slots
    if t < LANES:
        coop.warp.merge_sort(keys, "greater", values=cols, threads_in_warp=LANES)
        for j in range(ITEMS):
            top[row * K + t * ITEMS + j] = keys[j]
            index[row * K + t * ITEMS + j] = cols[j]


def main() -> None:
    signature = "void(float32[::1], float32[::1], int32[::1])"
    if not cuda.is_available():
        report = numba_coop.compile(top_k_rows, signature, block=THREADS).inspect()
        print("compiled top_k_rows for sm_90a (no GPU here)\n" + report.summary())
        return
    rows = 512
    scores = np.random.default_rng().standard_normal((rows, ROW)).astype(np.float32)
    top = cuda.device_array(rows * K, np.float32)
    index = cuda.device_array(rows * K, np.int32)
    top_k_rows[rows, THREADS](cuda.to_device(scores.reshape(-1)), top, index)
    got, cols = top.copy_to_host().reshape(rows, K), index.copy_to_host().reshape(rows, K)
    np.testing.assert_array_equal(got, -np.sort(-scores, axis=1)[:, :K])
    np.testing.assert_array_equal(np.take_along_axis(scores, cols.astype(np.int64), 1), got)
    assert all(len(set(r)) == K for r in cols.tolist()), "an index was selected twice"
    print(f"{rows} rows of {ROW} scores: the {K} largest of each, largest first, with their columns")


if __name__ == "__main__":
    main()
