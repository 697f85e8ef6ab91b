# SPDX-License-Identifier: Apache-2.0
"""docs/sorting.rst: a row's k largest values and their indices, a warp streaming the row in tiles
(``coop.warp.top_k``)."""

import numpy as np
from cuda import coop
from numba import cuda

THREADS, ITEMS, N, K = 128, 16, 2048, 8
NINF, BIG = np.float32(-np.inf), np.int32(2**31 - 1)


def warp_top_k(x, values, indices):  # type: ignore[no-untyped-def]
    lane = cuda.threadIdx.x % 32
    row = cuda.blockIdx.x * (THREADS // 32) + cuda.threadIdx.x // 32  # a warp per row
    # doc-start: warp-top-k
    xs = coop.ThreadData(ITEMS, np.float32)
    top = (NINF, BIG)  # the empty list: (-inf, INT32_MAX) in every lane
    for j in range(N // (32 * ITEMS)):
        first = j * 32 * ITEMS  # the tile's first item in the row
        coop.warp.load(x, xs, offset=row * N + first, algorithm="striped")
        top = coop.warp.top_k(xs, K, running=top, first=first)
    if lane < K:  # lane l: the row's l-th largest value and its index
        values[row * K + lane], indices[row * K + lane] = top
    # doc-end: warp-top-k


NUMBA = [
    (warp_top_k, "void(float32[::1], float32[::1], int32[::1])", {"block": THREADS}),
]
