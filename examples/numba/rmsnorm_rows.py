# SPDX-License-Identifier: Apache-2.0
"""RMSNorm over rows, two designs: the row in registers, or the row staged in shared memory.

``y = x / sqrt(mean(x^2) + eps) * w`` over rows of float32, a block (or a thread-block cluster of
blocks, sm_90+) per row. Both designs read the row from memory once.

- **Registers** (``staged=False``): each thread loads its part of the row (``striped_vectors``: runs
  of 4 items striped over the threads, one 16-byte access a run), sums its squares, and
  ``coop.block.sum(part, broadcast=True)`` (``coop.cluster.sum`` across a cluster's blocks) gives the
  row's sum to every thread. Only then are the weights loaded, the same way: loaded before the
  reduction, as quack-kernels does, their registers cost occupancy (``benchmarks/rows.py``, variant
  ``prefetch``: slower at every shape measured, 2026-12-03).
- **Staged** (``staged=True``): the weights go into registers, then ``coop.block.load_to_shared``
  copies the block's part of the row into a dynamic shared array (one ``cp.async.bulk`` on sm_90) and
  each thread reads its items from there twice, for the sum of squares and for the scaled store.
  The row costs no registers across the reduction. The launch passes ``tile * 4`` bytes of dynamic
  shared memory (coop opts the kernel in above 48 KB).

The shared row is indexed as the load arranges a thread's items (item ``i`` of thread ``t`` at
``(i // v * threads + t) * v + i % v``, ``v`` the run), in unsigned arithmetic (``np.uint32``): with
Python's signed floor division and modulo of the loop index Numba did not unroll the loop (scalar shared
loads, about 40 instructions an item; the kernel ran 0.59x the CuTe kernel of the same source,
2026-12-04), and a signed thread index costs negative-index checks. The row offset is unsigned too,
so that it is provably a whole number of runs and the vector accesses need no alignment branch.
(``rank`` and ``offset`` are annotated ``Any`` for mypy, whose stubs type ``offset=`` as ``int``; a
local annotation changes nothing Numba compiles.)

``SHAPES`` holds the best design ``benchmarks/rows.py`` measured for each length (H200, float32,
GB/s read + written, 2026-12-03, run 11 of ``benchmarks/logs/RESULTS_history.md``, quack-kernels in
the same run): 4096 staged in one block of 512 x 8, ``striped``: 4182 (quack 4113, 1.017x; in
registers ``striped_vectors`` 4142); 16384 in registers over a cluster of 2 x 512 x 16,
``striped_vectors``: 4056 (quack 4073; a second run on 2026-12-04 4065, 0.998x quack; staged 3794);
65536 staged over a cluster of 4 x 512 x 32, ``striped``: 4006 (quack 4022, 0.996x; the best in
registers 3857, 8 x 512 x 16). This file's kernels are those designs (the benchmark imports them);
they have not been timed from here. The staged kernel loads its weights before the bulk copy, the
order measured best at 4096 (4182 against 4143 the other way round, run 11). On long rows issue the
copy before any other load: at 262144 (16 x 512 x 32) loading the weights after ``load_to_shared``
took the CuTe kernel from 3512 to 3796 GB/s (rows.py's variant ``staged_late``).

On a GPU the results are checked against NumPy; without one the kernels are compiled ahead of time
for sm_90a and their SASS is reported.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import cuda.coop.numba as numba_coop
import numpy as np
from cuda import coop
from numba import cuda
from numba.cuda import libdevice
from numpy.typing import NDArray

EPS = 1e-6


class Design(NamedTuple):
    """A row's split (cluster blocks x threads x items per thread) and how its blocks hold it."""

    cluster: int
    threads: int
    items: int
    staged: bool
    algorithm: str


#: The measured best design for each row length (see the module's docstring)
SHAPES = {
    4096: Design(1, 512, 8, staged=True, algorithm="striped"),
    16384: Design(2, 512, 16, staged=False, algorithm="striped_vectors"),
    65536: Design(4, 512, 32, staged=True, algorithm="striped"),
}


def make_rmsnorm(
    cluster: int,
    threads: int,
    items: int,
    *,
    staged: bool = False,
    algorithm: str = "striped_vectors",
    eps: float = EPS,
) -> Any:
    """The RMSNorm kernel ``(x, w, y)`` for rows of ``cluster * threads * items`` float32, a block
    (cluster) per row, loading and storing with ``algorithm`` (``"striped"`` or ``"striped_vectors"``);
    ``staged``: the row part in shared memory (launch with ``threads * items * 4`` bytes of it)."""
    tile = threads * items  # one block's part of the row
    n = cluster * tile
    inv_n, epsilon = np.float32(1.0 / n), np.float32(eps)
    # the run of striped_vectors (4 float32 items, fewer where items is not a multiple); striped: 1
    v = np.uint32(next(r for r in (4, 2, 1) if items % r == 0) if algorithm == "striped_vectors" else 1)
    nt = np.uint32(threads)

    @numba_coop.jit(fastmath=True)
    def rmsnorm(x: NDArray[np.float32], w: NDArray[np.float32], y: NDArray[np.float32]) -> None:
        b = np.uint32(cuda.blockIdx.x)  # unsigned: the offsets stay provably whole runs
        rank: Any = b % np.uint32(cluster)  # the block in its cluster (0 without one)
        offset: Any = (b // np.uint32(cluster)) * np.uint32(n) + rank * np.uint32(tile)
        xs = coop.ThreadData(items, np.float32)
        coop.block.load(x, xs, offset=offset, algorithm=algorithm)
        part = np.float32(0)
        for i in range(items):
            part += xs[i] * xs[i]
        if cluster > 1:
            total = coop.cluster.sum(part)  # the row's, in every thread of every block
        else:
            total = coop.block.sum(part, broadcast=True)
        scale = libdevice.rsqrtf(total * inv_n + epsilon)
        ws = coop.ThreadData(items, np.float32)  # the weights: after the reduction, when needed
        coop.block.load(w, ws, offset=rank * tile, algorithm=algorithm)
        for i in range(items):
            xs[i] = xs[i] * scale * ws[i]
        coop.block.store(y, xs, offset=offset, algorithm=algorithm)

    @numba_coop.jit(fastmath=True)
    def rmsnorm_staged(x: NDArray[np.float32], w: NDArray[np.float32], y: NDArray[np.float32]) -> None:
        b = np.uint32(cuda.blockIdx.x)
        t = np.uint32(cuda.threadIdx.x)  # unsigned: Numba's indexing then skips negative-index checks
        rank: Any = b % np.uint32(cluster)
        offset: Any = (b // np.uint32(cluster)) * np.uint32(n) + rank * np.uint32(tile)
        ws = coop.ThreadData(items, np.float32)
        coop.block.load(w, ws, offset=rank * tile, algorithm=algorithm)
        row = cuda.shared.array(0, np.float32)  # tile floats: the launch's dynamic shared memory
        coop.block.load_to_shared(x, row, tile, offset=offset)  # returns once the row part is there
        part = np.float32(0)
        for i in range(items):
            j = np.uint32(i)  # item j of this thread, as the load arranges it (unsigned: unrolled)
            e = row[(j // v * nt + t) * v + j % v]
            part += e * e
        if cluster > 1:
            total = coop.cluster.sum(part)
        else:
            total = coop.block.sum(part, broadcast=True)
        scale = libdevice.rsqrtf(total * inv_n + epsilon)
        xs = coop.ThreadData(items, np.float32)
        for i in range(items):  # read again from shared memory: no row held across the reduction
            j = np.uint32(i)
            xs[i] = row[(j // v * nt + t) * v + j % v] * scale * ws[i]
        coop.block.store(y, xs, offset=offset, algorithm=algorithm)

    return rmsnorm_staged if staged else rmsnorm


def main() -> None:
    rows = 64
    sig = "void(float32[::1], float32[::1], float32[::1])"
    for n, (cluster, threads, items, staged, algorithm) in SHAPES.items():
        kernel = make_rmsnorm(cluster, threads, items, staged=staged, algorithm=algorithm)
        blocks = cluster if cluster > 1 else None
        design = f"{cluster} x {threads} x {items} {'staged' if staged else 'in registers'}, {algorithm}"
        if not cuda.is_available():
            report = numba_coop.compile(kernel, sig, block=threads, cluster=blocks).inspect()
            print(
                f"compiled rmsnorm for rows of {n} ({design}) for sm_90a (no GPU here)\n" + report.summary()
            )
            continue
        rng = np.random.default_rng()
        x = rng.standard_normal((rows, n)).astype(np.float32)
        w = (1 + 0.1 * rng.standard_normal(n)).astype(np.float32)
        y = cuda.to_device(np.full(rows * n, np.nan, np.float32))
        shared = threads * items * 4 if staged else 0  # the staged row part, in bytes
        kernel.configure(rows * cluster, threads, 0, shared, cluster=blocks)(
            cuda.to_device(x.reshape(-1)), cuda.to_device(w), y
        )
        x64 = x.astype(np.float64)
        want = x64 / np.sqrt((x64 * x64).mean(axis=1, keepdims=True) + EPS) * w
        np.testing.assert_allclose(y.copy_to_host().reshape(rows, n), want, rtol=1e-4, atol=1e-5)
        print(f"rmsnorm of {rows} rows of {n} ({design}): matches NumPy")


if __name__ == "__main__":
    main()
