# SPDX-License-Identifier: Apache-2.0
"""Softmax over rows with the row in registers: a maximum, a sum, one ``exp`` an item.

``y = exp(x - max(x)) / sum(exp(x - max(x)))`` over rows of float32, a block (or a thread-block
cluster of blocks, sm_90+) per row, reading the row from memory once. Each thread loads its part
of the row with ``algorithm="striped_vectors"`` (runs of 4 items striped over the threads: one
16-byte access a run, each warp access 512 contiguous bytes) and keeps it in registers. The row's
maximum comes from ``coop.block.reduce(top, "max", broadcast=True)`` of each thread's own maximum
(``coop.cluster.reduce`` across a cluster's blocks), then each item becomes ``exp(x - max)`` in
place while the thread sums them, and ``coop.block.sum(part, broadcast=True)``
(``coop.cluster.sum``) gives every thread the row's sum: one division a thread, one multiply an item,
a ``striped_vectors`` store. ``fastmath=True`` makes ``math.exp`` ``ex2.approx`` of ``(x - max) *
log2(e)``, as quack-kernels computes it (CuTe: ``cute.math.exp2(..., fastmath=True)``).

The block offsets are computed in unsigned arithmetic (``np.uint32``), so that they are provably a
whole number of runs: with data aligned to 16 bytes (``cuda.coop.numba.jit`` specialises on it at
launch) the vector accesses then need no alignment branch. (``rank`` and ``offset`` are annotated
``Any`` for mypy, whose stubs type ``offset=`` as ``int``; a local annotation changes nothing Numba
compiles.)

``SHAPES`` holds the shapes ``benchmarks/rows.py`` measured best for this design (H200, float32,
GB/s read + written, quack-kernels in the same run; ``benchmarks/logs/RESULTS_history.md``): 4096 in
one block of 512 x 8: 4144 (quack 3938, 1.052x; 2026-12-03, run 11); 16384 over a cluster of 2 x 512
x 16: 4208 (quack 4069, 1.034x; run 11); 65536 over a cluster of 8 x 256 x 32: 4135 (quack 4037,
1.024x; 2026-12-04, run 13). At 262144 the same design over 16 x 256 x 64 ran 3992 (quack 3766,
1.060x; run 15). The benchmark imports this file's kernel; it has not been timed from here. Staging
the row part in shared memory first (``coop.block.load_to_shared``, rows.py's variants ``staged``
and ``staged_once``) ran slower at float32: at best 4020 at 65536 (run 13) and 3710 at 262144 (run
15); it is quack's design for bfloat16 rows of 16384 (see the performance guide).
``examples/cutlass/softmax_rows.py`` is a CuTe softmax written with the same primitives.

On a GPU the results are checked against NumPy; without one the kernels are compiled ahead of time
for sm_90a and their SASS is reported.
"""

from __future__ import annotations

import math
from typing import Any

import cuda.coop.numba as numba_coop
import numpy as np
from cuda import coop
from numba import cuda
from numpy.typing import NDArray

#: (cluster blocks, threads, items per thread) for each row length
SHAPES = {4096: (1, 512, 8), 16384: (2, 512, 16), 65536: (8, 256, 32)}


def make_softmax(cluster: int, threads: int, items: int, *, algorithm: str = "striped_vectors") -> Any:
    """The softmax kernel ``(x, y)`` for rows of ``cluster * threads * items`` float32, a block
    (cluster) per row, loading and storing with ``algorithm``."""
    tile = threads * items  # one block's part of the row
    n = cluster * tile

    @numba_coop.jit(fastmath=True)
    def softmax(x: NDArray[np.float32], y: NDArray[np.float32]) -> None:
        b = np.uint32(cuda.blockIdx.x)  # unsigned: the offsets stay provably whole runs
        rank: Any = b % np.uint32(cluster)  # the block in its cluster (0 without one)
        offset: Any = (b // np.uint32(cluster)) * np.uint32(n) + rank * np.uint32(tile)
        xs = coop.ThreadData(items, np.float32)
        coop.block.load(x, xs, offset=offset, algorithm=algorithm)
        top = xs[0]
        for i in range(1, items):
            top = max(top, xs[i])
        if cluster > 1:
            top = coop.cluster.reduce(top, "max")  # the row's, in every thread of every block
        else:
            top = coop.block.reduce(top, "max", broadcast=True)
        part = np.float32(0)
        for i in range(items):
            xs[i] = math.exp(xs[i] - top)  # fastmath: ex2.approx
            part += xs[i]
        if cluster > 1:
            total = coop.cluster.sum(part)
        else:
            total = coop.block.sum(part, broadcast=True)
        inv = np.float32(1) / total
        for i in range(items):
            xs[i] = xs[i] * inv
        coop.block.store(y, xs, offset=offset, algorithm=algorithm)

    return softmax


def main() -> None:
    rows = 64
    sig = "void(float32[::1], float32[::1])"
    for n, (cluster, threads, items) in SHAPES.items():
        kernel = make_softmax(cluster, threads, items)
        blocks = cluster if cluster > 1 else None
        if not cuda.is_available():
            report = numba_coop.compile(kernel, sig, block=threads, cluster=blocks).inspect()
            shape = f"{cluster} x {threads} x {items}"
            print(f"compiled softmax for rows of {n} ({shape}) for sm_90a (no GPU here)\n" + report.summary())
            continue
        rng = np.random.default_rng()
        x = (4 * rng.standard_normal((rows, n))).astype(np.float32)
        y = cuda.to_device(np.full(rows * n, np.nan, np.float32))
        kernel.configure(rows * cluster, threads, cluster=blocks)(cuda.to_device(x.reshape(-1)), y)
        x64 = x.astype(np.float64)
        e = np.exp(x64 - x64.max(axis=1, keepdims=True))
        want = e / e.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(y.copy_to_host().reshape(rows, n), want, rtol=1e-4, atol=1e-9)
        print(f"softmax of {rows} rows of {n} ({cluster} x {threads} x {items}): matches NumPy")


if __name__ == "__main__":
    main()
