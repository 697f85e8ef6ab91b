# SPDX-License-Identifier: Apache-2.0
"""LayerNorm over rows, the mean and variance from one reduction of a Welford tuple.

``y = (x - mean) / sqrt(var + eps) * w + b`` over rows of 4096 float32 (one block of 512 threads x
8 items per row) and of 65536 (one thread-block cluster of 4 blocks of 1024 x 16 per row, sm_90+).
Each thread loads its part of the row (striped: coalesced, and kept in registers), sums its items
for their mean, then sums their squared distances to it: its ``(count, mean, M2)``. One
``coop.block.reduce`` of that tuple with ``welford`` (Chan's combination of two summaries, a plain
Python function) gives the row's in every thread (``broadcast=True``); in a cluster
``coop.cluster.reduce`` does the same across the blocks. No second pass over the row, and no
``E[x^2] - E[x]^2`` cancellation.

On a GPU the results are checked against NumPy; without one the kernels are compiled ahead of time
for sm_90a and their SASS is reported.
"""

from __future__ import annotations

from typing import Any

import cuda.coop.numba as numba_coop
import numpy as np
from cuda import coop
from numba import cuda
from numba.cuda import libdevice
from numpy.typing import NDArray

EPS = 1e-5
#: (cluster blocks, threads, items per thread) for each row length: 4096 in one block, 65536 in 4
SHAPES = {4096: (1, 512, 8), 65536: (4, 1024, 16)}


def welford(p: tuple[float, float, float], q: tuple[float, float, float]) -> tuple[float, float, float]:
    """Two (count, mean, M2) summaries of disjoint parts of a row -> the summary of both."""
    n = p[0] + q[0]
    d = q[1] - p[1]
    f = q[0] / n
    return n, p[1] + d * f, p[2] + q[2] + d * d * p[0] * f


def make_layernorm(cluster: int, threads: int, items: int, eps: float = EPS) -> Any:
    """The LayerNorm kernel for rows of ``cluster * threads * items``, a block (cluster) per row."""
    tile = threads * items  # one block's part of the row
    n = cluster * tile
    inv_n, epsilon = np.float32(1 / n), np.float32(eps)
    count, inv_items = np.float32(items), np.float32(1 / items)

    @numba_coop.jit(fastmath=True)
    def layernorm(
        x: NDArray[np.float32], w: NDArray[np.float32], b: NDArray[np.float32], y: NDArray[np.float32]
    ) -> None:
        rank = cuda.blockIdx.x % cluster  # the block in its cluster (0 without one)
        offset = (cuda.blockIdx.x // cluster) * n + rank * tile
        v = coop.ThreadData(items, np.float32)
        coop.block.load(x, v, offset=offset, algorithm="striped")
        s = np.float32(0)
        for i in range(items):
            s += v[i]
        mean = s * inv_items  # this thread's items' mean and sum of squared distances to it
        m2 = np.float32(0)
        for i in range(items):
            d = v[i] - mean
            m2 += d * d
        if cluster > 1:
            stats = coop.cluster.reduce((count, mean, m2), welford)  # every thread of the cluster
        else:
            stats = coop.block.reduce((count, mean, m2), welford, broadcast=True)
        mean = stats[1]
        rstd = libdevice.rsqrtf(stats[2] * inv_n + epsilon)
        t = rank * tile + cuda.threadIdx.x  # striped: item i of thread t is the part's item t + i * threads
        ws, bs = w[t:], b[t:]
        for i in range(items):
            v[i] = (v[i] - mean) * rstd * ws[i * threads] + bs[i * threads]
        coop.block.store(y, v, offset=offset, algorithm="striped")

    return layernorm


def main() -> None:
    rows = 64
    f32 = "float32[::1]"
    for n, (cluster, threads, items) in SHAPES.items():
        kernel = make_layernorm(cluster, threads, items)
        blocks = cluster if cluster > 1 else None
        if not cuda.is_available():
            report = numba_coop.compile(
                kernel, f"void({f32}, {f32}, {f32}, {f32})", block=threads, cluster=blocks
            )
            print(
                f"compiled layernorm for rows of {n} for sm_90a (no GPU here)\n" + report.inspect().summary()
            )
            continue
        rng = np.random.default_rng()
        x = (3 + 2 * rng.standard_normal((rows, n))).astype(np.float32)  # a mean far from 0
        w = (1 + 0.1 * rng.standard_normal(n)).astype(np.float32)
        b = (0.1 * rng.standard_normal(n)).astype(np.float32)
        y = cuda.to_device(np.full(rows * n, np.nan, np.float32))
        args = (cuda.to_device(x.reshape(-1)), cuda.to_device(w), cuda.to_device(b), y)
        kernel.configure(rows * cluster, threads, cluster=blocks)(*args)
        x64 = x.astype(np.float64)
        mean, var = x64.mean(axis=1, keepdims=True), x64.var(axis=1, keepdims=True)
        want = (x64 - mean) / np.sqrt(var + EPS) * w + b
        np.testing.assert_allclose(y.copy_to_host().reshape(rows, n), want, rtol=1e-4, atol=1e-4)
        print(f"layernorm of {rows} rows of {n} ({cluster} x {threads} x {items}): matches NumPy")


if __name__ == "__main__":
    main()
