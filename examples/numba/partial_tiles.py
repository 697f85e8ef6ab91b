# SPDX-License-Identifier: Apache-2.0
"""Partial tiles: the last block of an array that is not a multiple of the tile.

``valid_items`` limits what is read and written; ``oob_default`` gives the items past the end a
value (here the identity of a max), so the kernel's own arithmetic needs no bounds checks.
"""

from __future__ import annotations

import cuda.coop.numba as numba_coop
import numpy as np
from cuda import coop
from numba import cuda
from numpy.typing import NDArray

THREADS, ITEMS = 256, 8
TILE = THREADS * ITEMS


@numba_coop.jit
def clamp_below(src: NDArray[np.int32], dst: NDArray[np.int32], floor: int, n: int) -> None:
    items = coop.ThreadData(ITEMS, np.int32)
    base = cuda.blockIdx.x * TILE
    valid = min(TILE, n - base)
    coop.block.load(src, items, offset=base, algorithm="transpose", valid_items=valid, oob_default=-(2**31))
    for i in range(ITEMS):
        items[i] = max(items[i], floor)
    coop.block.store(dst, items, offset=base, algorithm="transpose", valid_items=valid)


def main() -> None:
    signature = "void(int32[::1], int32[::1], int32, int64)"
    if not cuda.is_available():
        report = numba_coop.compile(clamp_below, signature, block=THREADS).inspect()
        print("compiled for sm_90a (no GPU here)\n" + report.summary())
        return
    n = 3 * TILE + 77
    src = np.random.default_rng().integers(-1000, 1000, n, dtype=np.int32)
    d_dst = cuda.to_device(np.full(n + 5, 12345, dtype=np.int32))  # 5 guard items must survive
    clamp_below[(n + TILE - 1) // TILE, THREADS](cuda.to_device(src), d_dst, 0, n)
    dst = d_dst.copy_to_host()
    np.testing.assert_array_equal(dst[:n], np.maximum(src, 0))
    np.testing.assert_array_equal(dst[n:], 12345)
    print(f"clamped {n} items in {(n + TILE - 1) // TILE} tiles; the guard past the end is untouched")


if __name__ == "__main__":
    main()
