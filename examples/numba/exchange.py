# SPDX-License-Identifier: Apache-2.0
"""Block exchange: rearranging items among the threads of a block.

A tile is loaded coalesced (striped), turned into the blocked arrangement with
``coop.block.exchange(items, "striped_to_blocked")`` so that each thread holds consecutive items,
and then scattered by rank: item ``i`` of every thread goes to tile position ``ranks[i]`` (here
the mirror position, which reverses the tile), read back blocked, and stored.
"""

from __future__ import annotations

import cuda.coop.numba as numba_coop
import numpy as np
from cuda import coop
from numba import cuda
from numpy.typing import NDArray

THREADS, ITEMS = 128, 4
TILE = THREADS * ITEMS


@numba_coop.jit
def reverse_tiles(src: NDArray[np.float32], dst: NDArray[np.float32]) -> None:
    base = cuda.blockIdx.x * TILE
    items = coop.ThreadData(ITEMS, np.float32)
    coop.block.load(src, items, offset=base, algorithm="striped")
    coop.block.exchange(items, "striped_to_blocked")  # thread t now holds t*ITEMS .. t*ITEMS+3
    ranks = coop.ThreadData(ITEMS, np.int32)
    for i in range(ITEMS):
        ranks[i] = TILE - 1 - (cuda.threadIdx.x * ITEMS + i)
    out = coop.ThreadData(ITEMS, np.float32)
    coop.block.exchange(items, "scatter_to_blocked", ranks=ranks, out=out)
    coop.block.store(dst, out, offset=base)


def main() -> None:
    signature = "void(float32[::1], float32[::1])"
    if not cuda.is_available():
        report = numba_coop.compile(reverse_tiles, signature, block=THREADS).inspect()
        print("compiled reverse_tiles for sm_90a (no GPU here)\n" + report.summary())
        return
    src = np.random.default_rng().standard_normal(6 * TILE).astype(np.float32)
    dst = cuda.to_device(np.zeros_like(src))
    reverse_tiles[6, THREADS](cuda.to_device(src), dst)
    np.testing.assert_array_equal(dst.copy_to_host(), src.reshape(6, TILE)[:, ::-1].reshape(-1))
    print("6 tiles reversed by a striped-to-blocked exchange and a scatter by rank")


if __name__ == "__main__":
    main()
