# SPDX-License-Identifier: Apache-2.0
"""Block reductions: a device-wide sum and a device-wide arg-free maximum with a user operator.

Each block accumulates its grid-stride share per thread, reduces the block with
``coop.block.sum`` (or ``coop.block.reduce`` with a plain Python function as the operator), and
thread 0 adds the block's result to the total with one atomic. CUB defines a reduction's result
in thread 0; ``broadcast=True`` gives it to every thread.
"""

from __future__ import annotations

import cuda.coop.numba as numba_coop
import numpy as np
from cuda import coop
from numba import cuda
from numpy.typing import NDArray

THREADS, ITEMS = 256, 8
TILE = THREADS * ITEMS


def larger(a: int, b: int) -> int:
    """The operator: any Python function of two items, compiled into the kernel and inlined."""
    return a if a > b else b


@numba_coop.jit
def device_sum(src: NDArray[np.float32], total: NDArray[np.float32], n: int) -> None:
    items = coop.ThreadData(ITEMS, np.float32)
    acc = np.float32(0)
    base = cuda.blockIdx.x * TILE
    while base < n:  # n is a multiple of TILE here
        coop.block.load(src, items, offset=base, algorithm="vectorize")
        for i in range(ITEMS):
            acc += items[i]
        base += cuda.gridDim.x * TILE
    block_total = coop.block.sum(acc)
    if cuda.threadIdx.x == 0:
        cuda.atomic.add(total, 0, block_total)


@numba_coop.jit
def device_max(src: NDArray[np.int32], best: NDArray[np.int32], n: int) -> None:
    items = coop.ThreadData(ITEMS, np.int32)
    base = cuda.blockIdx.x * TILE
    valid = min(TILE, n - base)
    coop.block.load(src, items, offset=base, algorithm="striped", valid_items=valid, oob_default=-(2**31))
    block_max = coop.block.reduce(items, larger, broadcast=True)  # every thread gets it
    if cuda.threadIdx.x == THREADS - 1:
        cuda.atomic.max(best, 0, block_max)


def main() -> None:
    sum_sig, max_sig = "void(float32[::1], float32[::1], int64)", "void(int32[::1], int32[::1], int64)"
    if not cuda.is_available():
        for kernel, sig in ((device_sum, sum_sig), (device_max, max_sig)):
            report = numba_coop.compile(kernel, sig, block=THREADS).inspect()
            print(f"compiled {kernel.__name__} for sm_90a (no GPU here)\n" + report.summary())
        return
    rng = np.random.default_rng()
    n = 64 * TILE
    src = rng.uniform(-1, 1, n).astype(np.float32)
    total = cuda.to_device(np.zeros(1, dtype=np.float32))
    device_sum[16, THREADS](cuda.to_device(src), total, n)
    got, want = float(total.copy_to_host()[0]), float(src.astype(np.float64).sum())
    assert abs(got - want) <= 1e-4 * float(np.abs(src).sum()), (got, want)
    ints = rng.integers(-(10**9), 10**9, 5 * TILE + 123, dtype=np.int32)
    best = cuda.to_device(np.full(1, -(2**31), dtype=np.int32))
    device_max[(len(ints) + TILE - 1) // TILE, THREADS](cuda.to_device(ints), best, len(ints))
    assert int(best.copy_to_host()[0]) == int(ints.max())
    print(
        f"sum of {n} floats: {got:.4f} (float64 reference {want:.4f}); max of {len(ints)} ints: {ints.max()}"
    )


if __name__ == "__main__":
    main()
