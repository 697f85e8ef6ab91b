# SPDX-License-Identifier: Apache-2.0
"""One counting-sort step: rank a tile's keys by a digit, then scatter them by rank.

Each block loads a tile of uint32 keys (256 threads x 4 items, blocked) and ranks them by the
4-bit digit at ``begin_bit`` (a runtime argument) with ``coop.block.radix_rank``: each key's rank is
its position in the tile ordered by that digit, keys of equal digits in their input order. A
``coop.block.exchange(..., "scatter_to_blocked", ranks=ranks)`` then moves every key to its rank,
which is one pass of an LSD radix sort; the block stores the moved keys and the ranks. The result
equals the tile ordered by ``np.argsort(digit, kind="stable")``, and the ranks are that order's
inverse.
"""

from __future__ import annotations

import cuda.coop.numba as numba_coop
import numpy as np
from cuda import coop
from numba import cuda
from numpy.typing import NDArray

THREADS, ITEMS = 256, 4
TILE = THREADS * ITEMS
NUM_BITS = 4  # the digit's width: a compile-time constant (1..8)


@numba_coop.jit
def rank_and_scatter(
    keys: NDArray[np.uint32], out: NDArray[np.uint32], ranks_out: NDArray[np.int32], begin_bit: int
) -> None:
    base = cuda.blockIdx.x * TILE
    items = coop.ThreadData(ITEMS, np.uint32)
    coop.block.load(keys, items, offset=base, algorithm="transpose")
    ranks = coop.block.radix_rank(items, begin_bit=begin_bit, num_bits=NUM_BITS)
    coop.block.store(ranks_out, ranks, offset=base, algorithm="transpose")
    coop.block.exchange(items, "scatter_to_blocked", ranks=ranks)  # key of rank r to position r
    coop.block.store(out, items, offset=base, algorithm="transpose")


def main() -> None:
    signature = "void(uint32[::1], uint32[::1], int32[::1], int32)"
    if not cuda.is_available():
        report = numba_coop.compile(rank_and_scatter, signature, block=THREADS).inspect()
        print("compiled rank_and_scatter for sm_90a (no GPU here)\n" + report.summary())
        return
    blocks, begin_bit = 32, 8
    keys = np.random.default_rng().integers(0, 2**32, blocks * TILE, dtype=np.uint32)
    out = cuda.device_array(keys.size, np.uint32)
    ranks = cuda.device_array(keys.size, np.int32)
    rank_and_scatter[blocks, THREADS](cuda.to_device(keys), out, ranks, begin_bit)
    tiles = keys.reshape(blocks, TILE)
    digit = (tiles >> np.uint32(begin_bit)) & np.uint32((1 << NUM_BITS) - 1)
    order = np.argsort(digit, axis=1, kind="stable")
    np.testing.assert_array_equal(
        out.copy_to_host().reshape(blocks, TILE), np.take_along_axis(tiles, order, 1)
    )
    want_ranks = np.empty_like(order)
    np.put_along_axis(want_ranks, order, np.arange(TILE)[None, :].repeat(blocks, 0), axis=1)
    np.testing.assert_array_equal(ranks.copy_to_host().reshape(blocks, TILE), want_ranks)
    print(f"{blocks} tiles ranked by bits {begin_bit}..{begin_bit + NUM_BITS - 1} and scattered: as NumPy's")


if __name__ == "__main__":
    main()
