# SPDX-License-Identifier: Apache-2.0
"""Migration from upstream cuda.coop: scans return their result; a literal is a typed value."""

import numpy as np
from cuda import coop
from numba import cuda

THREADS, ITEMS = 128, 4


# doc-start: migration-scan
def scan_tile(src, dst, ranks):
    tile = cuda.blockIdx.x * THREADS * ITEMS
    items = coop.ThreadData(ITEMS, np.int32)
    coop.block.load(src, items, offset=tile)
    sums = coop.block.exclusive_sum(items)  # a new ThreadData: no output argument
    coop.block.store(dst, sums, offset=tile)
    rank = coop.block.exclusive_sum(1)  # a literal is an int64, as Numba types 1
    ranks[cuda.blockIdx.x * THREADS + cuda.threadIdx.x] = rank


# doc-end: migration-scan

#: what tests/test_doc_snippets.py compiles (kernel, signature, options)
NUMBA = [
    (scan_tile, "void(int32[::1], int32[::1], int64[::1])", {"block": THREADS}),
]
