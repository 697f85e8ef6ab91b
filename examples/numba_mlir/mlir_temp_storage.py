# SPDX-License-Identifier: Apache-2.0
"""numba-cuda-mlir: examples/numba/temp_storage.py with its two imports changed.

Caller-owned shared scratch: one ``coop.TempStorage`` serves a transposing load and store.

Its size is the larger of the two CUB ``TempStorage`` types, not their sum. As in CUB, a block
barrier separates two primitives that reuse the same storage.
"""

from __future__ import annotations

import cuda.coop.numba_mlir as numba_coop
import numpy as np
from cuda import coop
from numba_cuda_mlir import cuda
from numpy.typing import NDArray

THREADS, ITEMS = 128, 16
TILE = THREADS * ITEMS


@numba_coop.jit
def reverse_tiles(src: NDArray[np.float64], dst: NDArray[np.float64]) -> None:
    scratch = coop.TempStorage()
    items = coop.ThreadData(ITEMS, np.float64)
    base = cuda.blockIdx.x * TILE
    coop.block.load(src, items, offset=base, algorithm="warp_transpose", temp_storage=scratch)
    reversed_items = coop.ThreadData(ITEMS, np.float64)
    for i in range(ITEMS):
        reversed_items[i] = items[ITEMS - 1 - i]
    cuda.syncthreads()
    # A blocked store: thread t writes its reversed items where it read them from.
    coop.block.store(dst, reversed_items, offset=base, algorithm="warp_transpose", temp_storage=scratch)


def main() -> None:
    signature = "void(float64[::1], float64[::1])"
    if not cuda.is_available():
        report = numba_coop.compile(reverse_tiles, signature, block=THREADS).inspect()
        print("compiled for sm_90a (no GPU here)\n" + report.summary())
        return
    src = np.random.default_rng().standard_normal(4 * TILE)
    d_dst = cuda.to_device(np.zeros_like(src))
    reverse_tiles[4, THREADS](cuda.to_device(src), d_dst)
    want = src.reshape(4, THREADS, ITEMS)[:, :, ::-1].reshape(-1)
    np.testing.assert_array_equal(d_dst.copy_to_host(), want)
    print("each thread's items reversed in place through one shared TempStorage")


if __name__ == "__main__":
    main()
