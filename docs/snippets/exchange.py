# SPDX-License-Identifier: Apache-2.0
"""docs/exchange.rst: a striped tile made blocked, and a scatter by rank into ``out=``."""

import numpy as np
from cuda import coop
from numba import cuda

THREADS, ITEMS = 128, 4
TILE = THREADS * ITEMS


def exchanges(src, src_ranks, dst):  # type: ignore[no-untyped-def]
    base = cuda.blockIdx.x * TILE
    items = coop.ThreadData(ITEMS, np.int32)
    ranks = coop.ThreadData(ITEMS, np.int32)
    sorted_items = coop.ThreadData(ITEMS, np.int32)
    coop.block.load(src, items, offset=base, algorithm="striped")
    coop.block.load(src_ranks, ranks, offset=base)
    # doc-start: exchange-calls
    coop.block.exchange(items, "striped_to_blocked")
    coop.block.exchange(items, "scatter_to_blocked", ranks=ranks, out=sorted_items)
    # doc-end: exchange-calls
    coop.block.store(dst, sorted_items, offset=base)


I32 = "int32[::1]"
NUMBA = [
    (exchanges, f"void({I32}, {I32}, {I32})", {"block": THREADS}),
]
