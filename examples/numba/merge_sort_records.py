# SPDX-License-Identifier: Apache-2.0
"""Sorting each block's tile of records with ``coop.block.merge_sort`` and a user comparator.

Each block loads a tile of float32 keys (128 threads x 8 items, blocked) and sorts it by absolute
value, largest first, with a plain Python comparator, carrying each key's index in the array along
as its int32 value; then it stores both. The array is not a multiple of the tile: the last block
passes ``valid_items`` (and ``oob_default``, a key of magnitude zero, ordered after every valid
key) to the load, the sort and the store, so that it needs no bounds checks of its own. With
``stable=True`` keys of equal magnitude (``-2.5`` and ``2.5``) keep their input order, so the values
equal ``np.argsort(-abs(tile), kind="stable")``.
"""

from __future__ import annotations

import cuda.coop.numba as numba_coop
import numpy as np
from cuda import coop
from numba import cuda
from numpy.typing import NDArray

THREADS, ITEMS = 128, 8  # merge sort: a power-of-two block
TILE = THREADS * ITEMS


def by_magnitude_descending(a: float, b: float) -> bool:
    return abs(a) > abs(b)


@numba_coop.jit
def sort_tiles(keys: NDArray[np.float32], index: NDArray[np.int32], n: int) -> None:
    base = cuda.blockIdx.x * TILE
    valid = min(TILE, n - base)
    items = coop.ThreadData(ITEMS, np.float32)
    where = coop.ThreadData(ITEMS, np.int32)
    coop.block.load(keys, items, offset=base, algorithm="transpose", valid_items=valid, oob_default=0.0)
    for i in range(ITEMS):
        where[i] = base + cuda.threadIdx.x * ITEMS + i  # the key's index in the array (blocked)
    coop.block.merge_sort(
        items, by_magnitude_descending, values=where, valid_items=valid, oob_default=0.0, stable=True
    )
    coop.block.store(keys, items, offset=base, algorithm="transpose", valid_items=valid)
    coop.block.store(index, where, offset=base, algorithm="transpose", valid_items=valid)


def main() -> None:
    signature = "void(float32[::1], int32[::1], int64)"
    if not cuda.is_available():
        report = numba_coop.compile(sort_tiles, signature, block=THREADS).inspect()
        print("compiled sort_tiles for sm_90a (no GPU here)\n" + report.summary())
        return
    n = 40 * TILE + 333  # a partial last tile
    rng = np.random.default_rng()
    keys = (rng.integers(1, 64, n) * rng.choice([-1, 1], n) / 4).astype(np.float32)  # no zeros, ties
    d_keys = cuda.to_device(keys)
    d_index = cuda.to_device(np.full(n, -1, dtype=np.int32))
    sort_tiles[(n + TILE - 1) // TILE, THREADS](d_keys, d_index, n)
    got_keys, got_index = d_keys.copy_to_host(), d_index.copy_to_host()
    for start in range(0, n, TILE):
        tile = keys[start : start + TILE]
        want = start + np.argsort(-np.abs(tile), kind="stable")
        np.testing.assert_array_equal(got_index[start : start + TILE], want)
        np.testing.assert_array_equal(got_keys[start : start + TILE], keys[want])
    print(f"{n} records in {(n + TILE - 1) // TILE} tiles (the last partial) sorted by magnitude, stably")


if __name__ == "__main__":
    main()
