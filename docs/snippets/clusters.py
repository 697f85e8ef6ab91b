# SPDX-License-Identifier: Apache-2.0
"""docs/clusters.rst: the cluster reductions, in a Numba kernel launched with clusters of 4 blocks."""

import numpy as np
from cuda import coop
from numba import cuda

THREADS, ITEMS = 128, 4
TILE = THREADS * ITEMS


def larger(a, b):  # type: ignore[no-untyped-def]
    return a if a > b else b


def cluster_reductions(src, positions, sums, maxima, best_v, best_i):  # type: ignore[no-untyped-def]
    base = cuda.blockIdx.x * TILE
    x = coop.ThreadData(ITEMS, np.float32)
    where = coop.ThreadData(ITEMS, np.int32)
    coop.block.load(src, x, offset=base)
    coop.block.load(positions, where, offset=base)
    # doc-start: cluster-calls
    total = coop.cluster.sum(x)  # x: a ThreadData, a typed scalar, or a tuple of them
    best = coop.cluster.reduce(x, larger)  # a built-in ("max") or a user operator
    value, index = coop.cluster.argmax(x, indices=where)
    value, index = coop.cluster.argmin(x)
    # doc-end: cluster-calls
    if cuda.threadIdx.x == 0:
        sums[cuda.blockIdx.x] = total
        maxima[cuda.blockIdx.x] = best
        best_v[cuda.blockIdx.x] = value
        best_i[cuda.blockIdx.x] = index


F32, I32 = "float32[::1]", "int32[::1]"
#: (kernel, signature, compile options) of each Numba kernel
NUMBA = [
    (cluster_reductions, f"void({F32}, {I32}, {F32}, {F32}, {F32}, {I32})", {"block": THREADS, "cluster": 4}),
]
