# SPDX-License-Identifier: Apache-2.0
"""numba-cuda-mlir: examples/numba/cluster_rows.py with its imports changed.

Rows longer than a block: RMSNorm and a row argmax over rows of 65536 float32 with
``coop.cluster`` (sm_90+).

One thread-block cluster of ``CLUSTER`` blocks per row: block ``rank`` of the cluster loads its
quarter of the row (striped, 1024 threads x 16 items, all in registers), ``coop.cluster.sum`` of
the threads' sums of squares gives every thread of every block the row's sum (the blocks'
aggregates go through distributed shared memory), each block scales and stores its part. The
cluster comes from the launch: ``kernel.configure(grid, block, cluster=CLUSTER)``. The argmax
gives each item its index in the row (``indices=``), so ``coop.cluster.argmax`` returns the row's
largest value and where it is, ties to the smallest index.

On a GPU the results are checked against NumPy; without one the kernels are compiled ahead of time
for sm_90a and their SASS is reported.
"""

from __future__ import annotations

import cuda.coop.numba_mlir as numba_coop
import numpy as np
from cuda import coop
from numba_cuda_mlir import cuda
from numba_cuda_mlir.cuda import libdevice
from numpy.typing import NDArray

CLUSTER, THREADS, ITEMS = 4, 1024, 16
TILE = THREADS * ITEMS  # one block's part of a row
N = CLUSTER * TILE  # 65536
EPS = np.float32(1e-6)


@numba_coop.jit(fastmath=True)
def rmsnorm(x: NDArray[np.float32], w: NDArray[np.float32], y: NDArray[np.float32]) -> None:
    row, rank = cuda.blockIdx.x // CLUSTER, cuda.blockIdx.x % CLUSTER  # rank: the block in its cluster
    offset = row * N + rank * TILE
    items = coop.ThreadData(ITEMS, np.float32)
    coop.block.load(x, items, offset=offset, algorithm="striped")
    part = np.float32(0)
    for i in range(ITEMS):
        part += items[i] * items[i]
    scale = libdevice.rsqrtf(coop.cluster.sum(part) / N + EPS)  # the whole row's, in every thread
    t = rank * TILE + cuda.threadIdx.x
    for i in range(ITEMS):  # striped: item i of thread t is the part's item t + i * THREADS
        items[i] = items[i] * scale * w[t + i * THREADS]
    coop.block.store(y, items, offset=offset, algorithm="striped")


@numba_coop.jit
def row_argmax(x: NDArray[np.float32], best: NDArray[np.float32], at: NDArray[np.int32]) -> None:
    row, rank = cuda.blockIdx.x // CLUSTER, cuda.blockIdx.x % CLUSTER
    items = coop.ThreadData(ITEMS, np.float32)
    coop.block.load(x, items, offset=row * N + rank * TILE, algorithm="striped")
    where = coop.ThreadData(ITEMS, np.int32)
    for i in range(ITEMS):
        where[i] = rank * TILE + cuda.threadIdx.x + i * THREADS  # the item's index in the row
    value, index = coop.cluster.argmax(items, indices=where)
    if rank == 0 and cuda.threadIdx.x == 0:
        best[row], at[row] = value, index


def main() -> None:
    rows = 48
    if not cuda.is_available():
        f32, i32 = "float32[::1]", "int32[::1]"
        for kernel, sig in (
            (rmsnorm, f"void({f32}, {f32}, {f32})"),
            (row_argmax, f"void({f32}, {f32}, {i32})"),
        ):
            report = numba_coop.compile(kernel, sig, block=THREADS, cluster=CLUSTER)
            print(f"compiled {kernel.__name__} for sm_90a, cluster of {CLUSTER} (no GPU here)")
            print(report.inspect().summary())
        return
    rng = np.random.default_rng()
    x = rng.standard_normal(rows * N).astype(np.float32)
    w = (1 + 0.1 * rng.standard_normal(N)).astype(np.float32)
    y = cuda.to_device(np.full(rows * N, np.nan, np.float32))
    d_x = cuda.to_device(x)
    rmsnorm.configure(rows * CLUSTER, THREADS, cluster=CLUSTER)(d_x, cuda.to_device(w), y)
    xr = x.reshape(rows, N).astype(np.float64)
    want = xr / np.sqrt((xr * xr).mean(axis=1, keepdims=True) + 1e-6) * w
    np.testing.assert_allclose(y.copy_to_host().reshape(rows, N), want, rtol=2e-5, atol=2e-5)
    x[7 * N + 12345] = x[7 * N + 60000] = 99.0  # a tie: the smaller index wins
    d_x = cuda.to_device(x)
    best, at = cuda.device_array(rows, np.float32), cuda.to_device(np.full(rows, -1, np.int32))
    row_argmax.configure(rows * CLUSTER, THREADS, cluster=CLUSTER)(d_x, best, at)
    np.testing.assert_array_equal(at.copy_to_host(), x.reshape(rows, N).argmax(axis=1))
    np.testing.assert_array_equal(best.copy_to_host(), x.reshape(rows, N).max(axis=1))
    print(f"rmsnorm and argmax of {rows} rows of {N} (clusters of {CLUSTER} blocks of {THREADS}): ok")


if __name__ == "__main__":
    main()
