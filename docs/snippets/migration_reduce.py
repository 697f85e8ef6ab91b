# SPDX-License-Identifier: Apache-2.0
"""Migration from upstream cuda.coop: one call per primitive, with upstream's operator spellings."""

import operator

import numpy as np
from cuda import coop
from numba import cuda

THREADS, ITEMS = 128, 4


# doc-start: migration-reduce
def block_totals(src, totals, largest):
    tile = cuda.blockIdx.x * THREADS * ITEMS
    items = coop.ThreadData(ITEMS, np.int32)
    coop.block.load(src, items, offset=tile)
    total = coop.block.reduce(items, operator.add)  # the same call as "sum", "+" or np.add
    top = coop.block.reduce(items, np.maximum)  # the same call as "max"
    if cuda.threadIdx.x == 0:  # CUB defines a reduction's result in thread 0
        totals[cuda.blockIdx.x] = total
        largest[cuda.blockIdx.x] = top


# doc-end: migration-reduce

#: what tests/test_doc_snippets.py compiles (kernel, signature, options)
NUMBA = [
    (block_totals, "void(int32[::1], int32[::1], int32[::1])", {"block": THREADS}),
]
