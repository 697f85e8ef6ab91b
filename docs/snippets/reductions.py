# SPDX-License-Identifier: Apache-2.0
"""docs/reductions.rst: a block's sum, a broadcast maximum and a sum over the first threads."""

import numpy as np
from cuda import coop
from numba import cuda

THREADS, ITEMS = 128, 4
TILE = THREADS * ITEMS


def reductions(src, values, dst, n):  # type: ignore[no-untyped-def]
    items = coop.ThreadData(ITEMS, np.float32)
    coop.block.load(src, items, offset=cuda.blockIdx.x * TILE)
    value = values[cuda.blockIdx.x * THREADS + cuda.threadIdx.x]
    # doc-start: reduce-calls
    total = coop.block.sum(items)  # every item of the block
    best = coop.block.reduce(items, "max", broadcast=True)  # in every thread
    partial = coop.block.sum(value, num_valid=n)  # a scalar of threads 0 .. n-1
    # doc-end: reduce-calls
    if cuda.threadIdx.x == 0:
        dst[3 * cuda.blockIdx.x] = total
        dst[3 * cuda.blockIdx.x + 2] = partial
    if cuda.threadIdx.x == THREADS - 1:
        dst[3 * cuda.blockIdx.x + 1] = best


F32 = "float32[::1]"
NUMBA = [
    (reductions, f"void({F32}, {F32}, {F32}, int32)", {"block": THREADS}),
]
