# SPDX-License-Identifier: Apache-2.0
"""Many sums per warp at once with ``coop.warp.batched_sum``: per-group column totals.

The rows of a ``(rows, 48)`` float32 feature matrix come in groups of 32 (say the 32 tokens of one
sequence); each warp takes one group, each lane one row, and sums the 48 columns over the group's
rows with one ``coop.warp.batched_sum`` (CUB's ``WarpReduceBatched``, shuffles only): 48
independent sums. The result is striped over the lanes: lane ``l`` holds the totals of columns ``l``
and ``l + 32`` (the second only for ``l < 16``; the rest is undefined), which it writes coalesced.
"""

from __future__ import annotations

import cuda.coop.numba as numba_coop
import numpy as np
from cuda import coop
from numba import cuda
from numpy.typing import NDArray

THREADS, COLS = 128, 48
GROUP = 32  # rows per group: a warp per group, a lane per row
GROUPS_PER_BLOCK = THREADS // GROUP
SPREAD = -(-COLS // 32)  # results per lane: ceil(COLS / 32)


@numba_coop.jit
def group_column_sums(x: NDArray[np.float32], totals: NDArray[np.float32]) -> None:
    lane = cuda.threadIdx.x % 32
    group = cuda.blockIdx.x * GROUPS_PER_BLOCK + cuda.threadIdx.x // 32
    row = coop.ThreadData(COLS, np.float32)  # this lane's row: batch c is column c
    coop.warp.load(x, row, offset=group * GROUP * COLS)  # blocked: lane l gets row l of the group
    sums = coop.warp.batched_sum(row)  # striped: lane l holds columns l, l + 32, ...
    for j in range(SPREAD):
        col = lane + j * 32
        if col < COLS:
            totals[group * COLS + col] = sums[j]


def main() -> None:
    signature = "void(float32[::1], float32[::1])"
    if not cuda.is_available():
        report = numba_coop.compile(group_column_sums, signature, block=THREADS).inspect()
        print("compiled group_column_sums for sm_90a (no GPU here)\n" + report.summary())
        return
    blocks = 64
    groups = blocks * GROUPS_PER_BLOCK
    x = np.random.default_rng().integers(-100, 100, (groups * GROUP, COLS)).astype(np.float32)  # exact sums
    totals = cuda.device_array(groups * COLS, np.float32)
    group_column_sums[blocks, THREADS](cuda.to_device(x.reshape(-1)), totals)
    want = x.reshape(groups, GROUP, COLS).sum(axis=1)
    np.testing.assert_array_equal(totals.copy_to_host().reshape(groups, COLS), want)
    print(f"{groups} groups x {COLS} column totals (one batched sum per warp): equal to NumPy's")


if __name__ == "__main__":
    main()
