# SPDX-License-Identifier: Apache-2.0
"""docs/warp.rst: the warp primitives in Numba kernels: reductions, scans, loads, exchanges and sorts
by warp, segmented sums, batched sums and a merge sort with a user comparator."""

import numpy as np
from cuda import coop
from numba import cuda

THREADS, ITEMS = 128, 4


def larger(a, b):  # type: ignore[no-untyped-def]
    return a if a > b else b


def warp_calls(src, dst, sums, n):  # type: ignore[no-untyped-def]
    row = (cuda.blockIdx.x * THREADS + cuda.threadIdx.x) // 32
    x = src[cuda.blockIdx.x * THREADS + cuda.threadIdx.x]
    op = larger
    items = coop.ThreadData(ITEMS, np.int32)
    keys = coop.ThreadData(ITEMS, np.int32)
    vals = coop.ThreadData(ITEMS, np.int32)
    coop.warp.load(src, keys, offset=row * 32 * ITEMS)
    coop.warp.load(src, vals, offset=row * 32 * ITEMS)
    coop.warp.load(src, items, offset=row * 32 * ITEMS)
    # doc-start: warp-calls
    row_sum = coop.warp.sum(items, broadcast=True)  # a warp per row
    best = coop.warp.reduce(x, "max", threads_in_warp=8)  # 4 logical warps per warp
    out, total = coop.warp.exclusive_sum(x, warp_aggregate=True)
    out = coop.warp.inclusive_scan(x, op, initial_value=0, valid_items=n)
    first = coop.warp.broadcast(x, 0)
    coop.warp.load(src, items, offset=row * 32 * ITEMS, algorithm="vectorize")
    coop.warp.exchange(items, "blocked_to_striped")
    coop.warp.merge_sort(keys, "less", values=vals, threads_in_warp=16)
    # doc-end: warp-calls
    coop.warp.store(dst, items, offset=row * 32 * ITEMS)
    sums[cuda.blockIdx.x * THREADS + cuda.threadIdx.x] = row_sum + best + total + out + first + keys[0]


def segmented(keys_src, src, dst):  # type: ignore[no-untyped-def]
    i = cuda.blockIdx.x * THREADS + cuda.threadIdx.x
    lane = cuda.threadIdx.x % 16
    keys = coop.ThreadData(1, np.int32)
    keys[0] = keys_src[i]
    prev_key = keys_src[i - 1] if i > 0 else keys[0]
    x = src[i]
    # doc-start: segmented
    starts = lane == 0 or keys[0] != prev_key
    seg_total = coop.warp.head_segmented_sum(x, starts, threads_in_warp=16)
    # doc-end: segmented
    dst[i] = seg_total


def batched(src, dst):  # type: ignore[no-untyped-def]
    i = cuda.blockIdx.x * THREADS + cuda.threadIdx.x
    # doc-start: batched
    per_col = coop.ThreadData(8, np.float32)  # this lane's value of 8 columns
    for c in range(8):
        per_col[c] = src[8 * i + c]
    sums = coop.warp.batched_sum(per_col, threads_in_warp=8)  # lane l: the sum of column l
    # doc-end: batched
    dst[i] = sums[0]


# doc-start: merge-sort-comparator
def by_magnitude(a, b):
    return abs(a) < abs(b)
    # doc-end: merge-sort-comparator


def merge_sort(src, dst, order):  # type: ignore[no-untyped-def]
    row = (cuda.blockIdx.x * THREADS + cuda.threadIdx.x) // 8
    # doc-start: merge-sort
    keys = coop.ThreadData(4, np.float32)
    idx = coop.ThreadData(4, np.int32)  # e.g. each key's position, to find its origin
    coop.warp.load(src, keys, offset=row * 8 * 4, threads_in_warp=8)
    for j in range(4):
        idx[j] = cuda.laneid % 8 * 4 + j  # blocked: lane l holds positions 4l .. 4l+3
    coop.warp.merge_sort(keys, by_magnitude, values=idx, threads_in_warp=8)
    # doc-end: merge-sort
    coop.warp.store(dst, keys, offset=row * 8 * 4, threads_in_warp=8)
    coop.warp.store(order, idx, offset=row * 8 * 4, threads_in_warp=8)


I32, F32 = "int32[::1]", "float32[::1]"
NUMBA = [
    (warp_calls, f"void({I32}, {I32}, {I32}, int32)", {"block": THREADS}),
    (segmented, f"void({I32}, {I32}, {I32})", {"block": THREADS}),
    (batched, f"void({F32}, {F32})", {"block": THREADS}),
    (merge_sort, f"void({F32}, {F32}, {I32})", {"block": THREADS}),
]
