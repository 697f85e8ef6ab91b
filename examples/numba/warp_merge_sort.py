# SPDX-License-Identifier: Apache-2.0
"""Sorting 32-key segments with ``coop.warp.merge_sort`` and a user comparator, keys with values.

Each logical warp of 8 lanes loads one segment of 32 float32 keys (4 per lane, blocked), sorts it
by absolute value, largest first, with a plain Python comparator, carrying each key's position in
the segment along as its value, and stores both. The sort is stable (CUB's
``WarpMergeSort::StableSort``), so keys of equal magnitude (``-2.0`` and ``2.0``) keep their order and
the positions equal ``np.argsort(-abs(segment), kind="stable")``.
"""

from __future__ import annotations

import cuda.coop.numba as numba_coop
import numpy as np
from cuda import coop
from numba import cuda
from numpy.typing import NDArray

THREADS, LANES, ITEMS = 128, 8, 4
SEGMENT = LANES * ITEMS  # 32 keys per logical warp
SEGMENTS_PER_BLOCK = THREADS // LANES


def by_magnitude_descending(a: float, b: float) -> bool:
    return abs(a) > abs(b)


@numba_coop.jit
def sort_segments(keys: NDArray[np.float32], order: NDArray[np.int32]) -> None:
    lane = cuda.threadIdx.x % LANES
    base = (cuda.blockIdx.x * SEGMENTS_PER_BLOCK + cuda.threadIdx.x // LANES) * SEGMENT
    items = coop.ThreadData(ITEMS, np.float32)
    index = coop.ThreadData(ITEMS, np.int32)
    coop.warp.load(keys, items, offset=base, threads_in_warp=LANES)
    for i in range(ITEMS):
        index[i] = lane * ITEMS + i  # the key's position in its segment (blocked arrangement)
    coop.warp.merge_sort(items, by_magnitude_descending, values=index, threads_in_warp=LANES)
    coop.warp.store(keys, items, offset=base, threads_in_warp=LANES)
    coop.warp.store(order, index, offset=base, threads_in_warp=LANES)


def main() -> None:
    signature = "void(float32[::1], int32[::1])"
    if not cuda.is_available():
        report = numba_coop.compile(sort_segments, signature, block=THREADS).inspect()
        print("compiled sort_segments for sm_90a (no GPU here)\n" + report.summary())
        return
    blocks = 64
    segments = blocks * SEGMENTS_PER_BLOCK
    rng = np.random.default_rng()
    keys = rng.integers(-20, 21, (segments, SEGMENT)).astype(np.float32)  # many equal magnitudes
    d_keys = cuda.to_device(keys.reshape(-1))
    order = cuda.device_array(keys.size, np.int32)
    sort_segments[blocks, THREADS](d_keys, order)
    want = np.argsort(-np.abs(keys), axis=1, kind="stable")
    np.testing.assert_array_equal(order.copy_to_host().reshape(segments, SEGMENT), want)
    np.testing.assert_array_equal(
        d_keys.copy_to_host().reshape(segments, SEGMENT), np.take_along_axis(keys, want, axis=1)
    )
    print(f"{segments} segments of {SEGMENT} keys sorted by magnitude, descending, stably: as NumPy's")


if __name__ == "__main__":
    main()
