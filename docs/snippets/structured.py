# SPDX-License-Identifier: Apache-2.0
"""docs/structured.rst (Numba): tuples of items with user operators (Welford, a linear recurrence),
tuples of arrays, NumPy records, argmax and complex items."""

import numpy as np
from cuda import coop
from numba import cuda, from_dtype, types

THREADS, ITEMS = 128, 4
TILE = THREADS * ITEMS


# doc-start: tuple-operators
def welford(p, q):  # two (count, mean, m2) tuples -> one
    n = p[0] + q[0]
    d = q[1] - p[1]
    mean = p[1] + d * q[0] / n
    return n, mean, p[2] + q[2] + d * d * p[0] * q[0] / n


def compose(p, q):  # h -> p.a*h + p.b, then q.a*h + q.b
    return p[0] * q[0], q[0] * p[1] + q[1]
    # doc-end: tuple-operators


def tuple_items(src, a_src, b_src, stats_out, dst, tiles):  # type: ignore[no-untyped-def]
    i = cuda.blockIdx.x * THREADS + cuda.threadIdx.x
    count, mean, m2 = np.float32(1), src[i], np.float32(0)
    a_items = coop.ThreadData(ITEMS, np.float32)
    b_items = coop.ThreadData(ITEMS, np.float32)
    run_a = coop.ThreadData(1, np.float32)
    run_b = coop.ThreadData(1, np.float32)
    run_a[0], run_b[0] = 1, 0
    for t in range(tiles):
        base = (cuda.blockIdx.x * tiles + t) * TILE
        coop.block.load((a_src, b_src), (a_items, b_items), offset=base)
        # doc-start: tuple-calls
        stats = coop.block.reduce((count, mean, m2), welford)  # three scalars in, a tuple out
        _, h = coop.block.inclusive_scan((a_items, b_items), compose, prefix_op=(run_a, run_b))
        # doc-end: tuple-calls
        coop.block.store(dst, h, offset=base)
        if cuda.threadIdx.x == 0:
            stats_out[0], stats_out[1], stats_out[2] = stats


def tuple_arrays(values, indices, out_v, out_i, n):  # type: ignore[no-untyped-def]
    base = cuda.blockIdx.x * TILE
    v = coop.ThreadData(ITEMS, np.float32)
    i = coop.ThreadData(ITEMS, np.int32)
    # fmt: off
    # doc-start: tuple-arrays
    coop.block.load((values, indices), (v, i), offset=base, algorithm="vectorize",
                    valid_items=n, oob_default=(-np.inf, -1))
    coop.block.store((out_v, out_i), (v, i), offset=base)
    # doc-end: tuple-arrays
    # fmt: on


# doc-start: record-operators
REC = np.dtype([("v", np.float32), ("i", np.int32)], align=True)


def best(a, b):  # two records -> one of them
    return b if b.v > a.v or (b.v == a.v and b.i < a.i) else a


def add(a, b):  # two records -> a tuple of field values
    return a.v + b.v, a.i + b.i
    # doc-end: record-operators


def records(records, init, tops, dst):  # type: ignore[no-untyped-def]
    base = cuda.blockIdx.x * TILE
    # doc-start: record-calls
    items = coop.ThreadData(4, REC)  # an array of structs in registers
    coop.block.load(records, items, offset=base, algorithm="transpose")  # an array of REC
    top = coop.block.reduce(items, best)  # a record: top.v, top.i
    run = coop.block.exclusive_scan(items, add, initial_value=init[0])  # a ThreadData of REC
    # doc-end: record-calls
    coop.block.store(dst, run, offset=base, algorithm="transpose")
    if cuda.threadIdx.x == 0:
        tops[cuda.blockIdx.x] = top


def argmax(src, values, where, out_v, out_i):  # type: ignore[no-untyped-def]
    items = coop.ThreadData(ITEMS, np.float32)
    coop.block.load(src, items, offset=cuda.blockIdx.x * TILE)
    # doc-start: argmax-loop
    running_best, running_index = items[0], np.int32(cuda.threadIdx.x * ITEMS)
    for k in range(1, ITEMS):  # the thread's first largest; a NaN over every number
        if items[k] > running_best or (items[k] != items[k] and running_best == running_best):
            running_best, running_index = items[k], np.int32(cuda.threadIdx.x * ITEMS + k)
    # doc-end: argmax-loop
    # doc-start: argmax-calls
    best_v, best_i = coop.block.argmax(items)  # blocked positions
    sv, si = coop.block.argmax(items, arrangement="striped")  # striped positions (a striped load's)
    v, i = coop.block.argmax(running_best, indices=running_index)  # a per-thread best first
    # doc-end: argmax-calls
    if cuda.threadIdx.x == 0:
        out_v[2 * cuda.blockIdx.x], out_i[2 * cuda.blockIdx.x] = best_v, best_i
        out_v[2 * cuda.blockIdx.x + 1], out_i[2 * cuda.blockIdx.x + 1] = v + sv, i + si


def complex_items(src, dst, totals):  # type: ignore[no-untyped-def]
    # doc-start: complex-calls
    z = coop.ThreadData(4, np.complex64)
    coop.block.load(src, z, algorithm="vectorize")  # src: a complex64 device array
    total = coop.block.sum(z)  # a complex64 scalar
    phases = coop.block.inclusive_scan(z, "mul")  # running products
    shifted = coop.block.exclusive_scan(z, lambda a, b: a * b, initial_value=1 + 0j)
    coop.warp.broadcast(z[0], 0)
    coop.block.store(dst, phases)
    # doc-end: complex-calls
    if cuda.threadIdx.x == 0:
        totals[0] = total + shifted[0]


F32, I32, C64 = types.float32[::1], types.int32[::1], types.complex64[::1]
REC_ARRAY = from_dtype(REC)[::1]
NUMBA = [
    (tuple_items, types.void(F32, F32, F32, F32, F32, types.int32), {"block": THREADS}),
    (tuple_arrays, types.void(F32, I32, F32, I32, types.int32), {"block": THREADS}),
    (records, types.void(REC_ARRAY, REC_ARRAY, REC_ARRAY, REC_ARRAY), {"block": THREADS}),
    (argmax, types.void(F32, F32, I32, F32, I32), {"block": THREADS}),
    (complex_items, types.void(C64, C64, C64), {"block": THREADS}),
]
