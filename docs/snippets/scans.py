# SPDX-License-Identifier: Apache-2.0
"""docs/scans.rst: the four block scans, and a running total carried from tile to tile by prefix_op."""

import numpy as np
from cuda import coop
from numba import cuda

THREADS, ITEMS = 128, 4
TILE = THREADS * ITEMS


def larger(a, b):  # type: ignore[no-untyped-def]
    return a if a > b else b


def scans(src, dst, totals):  # type: ignore[no-untyped-def]
    base = cuda.blockIdx.x * TILE
    items = coop.ThreadData(ITEMS, np.int32)
    coop.block.load(src, items, offset=base)
    # doc-start: scan-calls
    sums = coop.block.inclusive_sum(items)
    starts, total = coop.block.exclusive_sum(items, block_aggregate=True)
    running_max = coop.block.inclusive_scan(items, "max", initial_value=0)
    prefix = coop.block.exclusive_scan(items, larger)  # a user-defined operator
    # doc-end: scan-calls
    for i in range(ITEMS):
        sums[i] += starts[i] + running_max[i] + prefix[i]
    coop.block.store(dst, sums, offset=base)
    if cuda.threadIdx.x == 0:
        totals[cuda.blockIdx.x] = total


def row_cumsum(src, dst, tiles):  # type: ignore[no-untyped-def]
    row_start = cuda.blockIdx.x * tiles * TILE
    items = coop.ThreadData(ITEMS, np.float32)
    # doc-start: prefix-op
    running = coop.ThreadData(1, np.float32)
    running[0] = 0
    for t in range(tiles):
        coop.block.load(src, items, offset=row_start + t * TILE, algorithm="warp_transpose")
        sums = coop.block.inclusive_sum(items, prefix_op=running)
        coop.block.store(dst, sums, offset=row_start + t * TILE, algorithm="warp_transpose")
    # doc-end: prefix-op


I32, F32 = "int32[::1]", "float32[::1]"
NUMBA = [
    (scans, f"void({I32}, {I32}, {I32})", {"block": THREADS}),
    (row_cumsum, f"void({F32}, {F32}, int32)", {"block": THREADS}),
]
