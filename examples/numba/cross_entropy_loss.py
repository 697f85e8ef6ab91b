# SPDX-License-Identifier: Apache-2.0
"""Cross-entropy loss per row: each thread's online (max, sum) over its tiles, one reduction.

``loss[r] = logsumexp(x[r]) - x[r, labels[r]]`` (0 where the label is -100, torch's
``ignore_index``) over rows of 4096 and 16384 float32 logits (one block of 256 x 16 and of 512 x
16 items per row: one tile and two) and of 65536 (a thread-block cluster of 4 blocks of 512 x 32,
sm_90+). A block need not keep its part of the row: it loops over its tiles (striped loads), and
each thread folds every
tile into its running ``(max, sum of exp(x - max))``, one ``exp`` an item and one to rescale the
sum when the maximum grows. Only then does the block (cluster) combine the threads' pairs, once:
``coop.block.reduce((m, s), max_sum)`` with ``max_sum`` the same rescaling as a plain Python
function (``coop.cluster.reduce`` across the cluster's blocks). Thread 0 of the row's first block
reads the label's logit and writes the loss. ``fastmath`` makes ``math.exp`` ``ex2.approx``, as
quack-kernels and liger-kernel compute it.

This is the design ``benchmarks/rows.py`` measures (it imports this file; ``benchmarks/RESULTS.md``
has its figures against quack-kernels and liger-kernel). Reducing the items themselves instead (a
``(x, 1)`` pair an item through ``coop.block.reduce`` with ``max_sum``) costs an ``exp`` per combine
and a shuffle per item: keep the per-thread fold a loop, and reduce once.

On a GPU the losses are checked against NumPy (float64); without one the kernels are compiled ahead
of time for sm_90a and their SASS is reported.
"""

from __future__ import annotations

import math
from typing import Any

import cuda.coop.numba as numba_coop
import numpy as np
from cuda import coop
from numba import cuda
from numpy.typing import NDArray

IGNORE_INDEX = -100
#: (cluster blocks, threads, items per thread) for each row length
SHAPES = {4096: (1, 256, 16), 16384: (1, 512, 16), 65536: (4, 512, 32)}


def max_sum(p: tuple[float, float], q: tuple[float, float]) -> tuple[float, float]:
    """Two (max, sum of exp(x - max)) of disjoint parts of a row -> those of both."""
    m = max(p[0], q[0])
    return m, p[1] * math.exp(p[0] - m) + q[1] * math.exp(q[0] - m)


def make_cross_entropy(n: int, cluster: int, threads: int, items: int) -> Any:
    """The loss kernel for rows of ``n`` float32, a block (a cluster of ``cluster``) per row, tiles of
    ``threads`` x ``items``: ``n`` must be a multiple of ``cluster * threads * items``."""
    tile = threads * items
    tiles = n // (cluster * tile)  # a block's tiles
    assert tiles * cluster * tile == n, (n, cluster, threads, items)
    ninf = np.float32(-np.inf)

    @numba_coop.jit(fastmath=True)
    def cross_entropy(x: NDArray[np.float32], labels: NDArray[np.int64], loss: NDArray[np.float32]) -> None:
        rank = cuda.blockIdx.x % cluster  # the block in its cluster (0 without one)
        row = cuda.blockIdx.x // cluster
        first = row * n + rank * tiles * tile  # the block's first logit
        xs = coop.ThreadData(items, np.float32)
        m, s = ninf, np.float32(0)  # this thread's running maximum and sum of exp(x - m)
        for j in range(tiles):
            coop.block.load(x, xs, offset=first + j * tile, algorithm="striped")
            top = m
            for i in range(items):
                top = max(top, xs[i])
            s *= math.exp(m - top)  # exp(-inf) = 0 at the first tile
            for i in range(items):
                s += math.exp(xs[i] - top)
            m = top
        if cluster > 1:
            top, total = coop.cluster.reduce((m, s), max_sum)  # the row's, in every thread
        else:
            top, total = coop.block.reduce((m, s), max_sum)  # the row's, in thread 0
        if rank == 0 and cuda.threadIdx.x == 0:
            label = labels[row]
            if label == IGNORE_INDEX:
                loss[row] = np.float32(0)
            else:
                loss[row] = top + math.log(total) - x[row * n + label]

    return cross_entropy


def main() -> None:
    rows = 64
    sig = "void(float32[::1], int64[::1], float32[::1])"
    for n, (cluster, threads, items) in SHAPES.items():
        kernel = make_cross_entropy(n, cluster, threads, items)
        blocks = cluster if cluster > 1 else None
        if not cuda.is_available():
            report = numba_coop.compile(kernel, sig, block=threads, cluster=blocks).inspect()
            print(f"compiled cross_entropy for rows of {n} for sm_90a (no GPU here)\n" + report.summary())
            continue
        rng = np.random.default_rng()
        x = (4 * rng.standard_normal((rows, n))).astype(np.float32)
        labels = rng.integers(0, n, rows)
        labels[5] = IGNORE_INDEX
        loss = cuda.to_device(np.full(rows, np.nan, np.float32))
        kernel.configure(rows * cluster, threads, cluster=blocks)(
            cuda.to_device(x.reshape(-1)), cuda.to_device(labels), loss
        )
        x64 = x.astype(np.float64)
        top = x64.max(axis=1)
        want = top + np.log(np.exp(x64 - top[:, None]).sum(axis=1)) - x64[np.arange(rows), labels]
        want[labels == IGNORE_INDEX] = 0
        np.testing.assert_allclose(loss.copy_to_host(), want, rtol=1e-5, atol=1e-4)
        print(f"cross-entropy of {rows} rows of {n} float32 (one ignored): matches NumPy")


if __name__ == "__main__":
    main()
