# SPDX-License-Identifier: Apache-2.0
"""Migration from upstream cuda.coop: a user-defined struct becomes a tuple of fields."""

import numpy as np
from cuda import coop
from numba import cuda

THREADS = 128


# [start]
def larger(p, q):  # two (value, index) tuples -> the one with the larger value
    return q if q[0] > p[0] else p


def block_argmax(values, best_value, best_index):
    i = cuda.blockIdx.x * THREADS + cuda.threadIdx.x
    value, index = coop.block.reduce((values[i], np.int32(i)), larger)
    if cuda.threadIdx.x == 0:
        best_value[cuda.blockIdx.x] = value
        best_index[cuda.blockIdx.x] = index


# [end]
