# SPDX-License-Identifier: Apache-2.0
"""Migration from upstream cuda.coop: a user-defined struct becomes a tuple of fields."""

import numpy as np
from cuda import coop
from numba import cuda

THREADS = 128


# doc-start: migration-struct
def larger(p, q):  # two (value, index) tuples -> the one with the larger value
    return q if q[0] > p[0] else p


def block_argmax(values, best_value, best_index):
    i = cuda.blockIdx.x * THREADS + cuda.threadIdx.x
    value, index = coop.block.reduce((values[i], np.int32(i)), larger)
    if cuda.threadIdx.x == 0:
        best_value[cuda.blockIdx.x] = value
        best_index[cuda.blockIdx.x] = index


# doc-end: migration-struct

#: what tests/test_doc_snippets.py compiles (kernel, signature, options)
NUMBA = [
    (block_argmax, "void(float32[::1], float32[::1], int32[::1])", {"block": THREADS}),
]
