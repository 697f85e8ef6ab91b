# SPDX-License-Identifier: Apache-2.0
"""Migration from upstream cuda.coop: an int64 running total over int32 items, kept by each thread
from the tile's aggregate instead of a wider prefix_op."""

import numpy as np
from cuda import coop
from numba import cuda

THREADS, ITEMS, TILES = 128, 4, 8


# doc-start: migration-prefix
def row_offsets(counts, offsets):  # int32 counts in, int64 offsets out, one row per block
    row = cuda.blockIdx.x * TILES * THREADS * ITEMS
    items = coop.ThreadData(ITEMS, np.int32)
    running = np.int64(0)  # every thread keeps the row's total so far
    for t in range(TILES):
        tile = row + t * THREADS * ITEMS
        coop.block.load(counts, items, offset=tile)
        scanned, tile_total = coop.block.exclusive_sum(items, block_aggregate=True)
        for j in range(ITEMS):
            offsets[tile + cuda.threadIdx.x * ITEMS + j] = running + scanned[j]
        running += tile_total  # every thread has the aggregate


# doc-end: migration-prefix

#: what tests/test_doc_snippets.py compiles (kernel, signature, options)
NUMBA = [
    (row_offsets, "void(int32[::1], int64[::1])", {"block": THREADS}),
]
