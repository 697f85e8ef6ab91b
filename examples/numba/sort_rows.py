# SPDX-License-Identifier: Apache-2.0
"""Sorting each row of a 2-D array of keys, with values, one block per row.

Each block loads its row (2048 float32 keys, 256 threads x 8 items, coalesced through a transposing
load), sorts it with ``coop.block.radix_sort`` carrying each key's column index along as its value,
and stores the sorted keys and the permutation (an argsort) with striped, coalesced stores:
``output="striped"`` leaves thread ``t`` holding sorted positions ``t, t+256, ...``. The sort is
stable, so the permutation equals ``np.argsort(row, kind="stable")``.
"""

from __future__ import annotations

import cuda.coop.numba as numba_coop
import numpy as np
from cuda import coop
from numba import cuda
from numpy.typing import NDArray

THREADS, ITEMS = 256, 8
ROW = THREADS * ITEMS


@numba_coop.jit
def sort_rows(keys: NDArray[np.float32], sorted_keys: NDArray[np.float32], order: NDArray[np.int32]) -> None:
    base = cuda.blockIdx.x * ROW
    items = coop.ThreadData(ITEMS, np.float32)
    index = coop.ThreadData(ITEMS, np.int32)
    coop.block.load(keys, items, offset=base, algorithm="warp_transpose")
    for i in range(ITEMS):
        index[i] = cuda.threadIdx.x * ITEMS + i  # the column of each key (blocked arrangement)
    coop.block.radix_sort(items, values=index, output="striped")
    coop.block.store(sorted_keys, items, offset=base, algorithm="striped")
    coop.block.store(order, index, offset=base, algorithm="striped")


def main() -> None:
    signature = "void(float32[::1], float32[::1], int32[::1])"
    if not cuda.is_available():
        report = numba_coop.compile(sort_rows, signature, block=THREADS).inspect()
        print("compiled sort_rows for sm_90a (no GPU here)\n" + report.summary())
        return
    rows = 64
    keys = np.random.default_rng().standard_normal((rows, ROW)).astype(np.float32)
    keys[:, ::7] = np.round(keys[:, ::7])  # duplicates
    sorted_keys = cuda.device_array(keys.size, np.float32)
    order = cuda.device_array(keys.size, np.int32)
    sort_rows[rows, THREADS](cuda.to_device(keys.reshape(-1)), sorted_keys, order)
    np.testing.assert_array_equal(sorted_keys.copy_to_host().reshape(rows, ROW), np.sort(keys, axis=1))
    np.testing.assert_array_equal(
        order.copy_to_host().reshape(rows, ROW), np.argsort(keys, axis=1, kind="stable")
    )
    print(f"{rows} rows of {ROW} keys sorted; the permutation matches np.argsort(kind='stable')")


if __name__ == "__main__":
    main()
