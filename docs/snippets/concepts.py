# SPDX-License-Identifier: Apache-2.0
"""docs/concepts.rst: ThreadData, shared scratch with and without auto_sync, and compiling ahead of time."""

import numpy as np
from cuda import coop
from numba import cuda

THREADS, ITEMS = 128, 4
TILE = THREADS * ITEMS


def thread_data(src, dst):  # type: ignore[no-untyped-def]
    # doc-start: thread-data
    items = coop.ThreadData(4, np.float32)
    # doc-end: thread-data
    coop.block.load(src, items, offset=cuda.blockIdx.x * TILE)
    coop.block.store(dst, items, offset=cuda.blockIdx.x * TILE)


def shared_scratch(src, dst):  # type: ignore[no-untyped-def]
    base = cuda.blockIdx.x * TILE
    items = coop.ThreadData(ITEMS, np.float32)
    # doc-start: shared-scratch
    scratch = coop.TempStorage()
    coop.block.load(src, items, offset=base, algorithm="warp_transpose", temp_storage=scratch)
    ...
    cuda.syncthreads()
    coop.block.store(dst, items, offset=base, algorithm="warp_transpose", temp_storage=scratch)
    # doc-end: shared-scratch


def auto_sync(src, dst, totals):  # type: ignore[no-untyped-def]
    items = coop.ThreadData(ITEMS, np.float32)
    # doc-start: auto-sync
    ts = coop.TempStorage(auto_sync=True)
    coop.block.load(src, items, algorithm="transpose", temp_storage=ts)
    total = coop.block.sum(items, temp_storage=ts)  # no cuda.syncthreads() needed between
    coop.block.store(dst, items, algorithm="transpose", temp_storage=ts)
    # doc-end: auto-sync
    if cuda.threadIdx.x == 0:
        totals[0] = total


def scale(src, dst, factor, n):  # type: ignore[no-untyped-def]
    base = cuda.blockIdx.x * TILE
    items = coop.ThreadData(ITEMS, np.float32)
    coop.block.load(src, items, offset=base, valid_items=n - base, oob_default=0)
    for i in range(ITEMS):
        items[i] *= factor
    coop.block.store(dst, items, offset=base, valid_items=n - base)


def compile_scale():  # type: ignore[no-untyped-def]
    # fmt: off
    # doc-start: ahead-of-time
    import cuda.coop.numba as numba_coop

    compiled = numba_coop.compile(
        scale, "void(float32[::1], float32[::1], float32, int64)",
        block=128, arch="sm_90a", output="cubin",
    )
    print(compiled.inspect().summary())
    # doc-end: ahead-of-time
    # fmt: on
    return compiled


F32 = "float32[::1]"
NUMBA = [
    (thread_data, f"void({F32}, {F32})", {"block": THREADS}),
    (shared_scratch, f"void({F32}, {F32})", {"block": THREADS}),
    (auto_sync, f"void({F32}, {F32}, {F32})", {"block": THREADS}),
]
#: host functions that compile (and return) a kernel ahead of time, run by the test
HOST = [
    compile_scale,
]
