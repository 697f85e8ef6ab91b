# SPDX-License-Identifier: Apache-2.0
"""Reductions and scans in a CuTe DSL kernel, with a user-defined operator and shared scratch.

Each block loads a tile, takes its maximum with ``coop.block.reduce`` and a ``@cute.jit``
operator (traced into the kernel as a device function and inlined into CUB's loop), and its
inclusive prefix sum with the tile's total. One ``coop.TempStorage`` serves the three primitives
that need shared memory, with a barrier between uses, as in CUB.

On a GPU the results are checked against NumPy; without one the kernel is compiled ahead of time
for sm_90a and its SASS is reported.
"""

import os

import numpy as np
from cuda import coop
from numba import cuda

THREADS, ITEMS = 256, 4
TILE = THREADS * ITEMS

if not cuda.is_available():
    os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")  # compile-only: name the target

import cuda.coop.cutlass as cutlass_coop  # noqa: E402
import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402


@cute.jit  # type: ignore[untyped-decorator]
def larger(a: cutlass.Int32, b: cutlass.Int32) -> cutlass.Int32:
    """The operator: a @cute.jit function (data-dependent control flow needs CuTe's preprocessing)."""
    r = a
    if b > a:
        r = b
    return r


@cute.kernel  # type: ignore[untyped-decorator]
def tiles_kernel(src: cute.Tensor, sums: cute.Tensor, maxima: cute.Tensor, totals: cute.Tensor) -> None:
    bidx, _, _ = cute.arch.block_idx()
    tidx, _, _ = cute.arch.thread_idx()
    scratch = coop.TempStorage()
    items = coop.ThreadData(ITEMS, cutlass.Int32)
    coop.block.load(src, items, offset=bidx * TILE, algorithm="warp_transpose", temp_storage=scratch)
    cute.arch.barrier()
    best = coop.block.reduce(items, larger, temp_storage=scratch)  # defined in thread 0
    cute.arch.barrier()
    scanned, total = coop.block.inclusive_sum(items, block_aggregate=True, temp_storage=scratch)
    cute.arch.barrier()
    coop.block.store(sums, scanned, offset=bidx * TILE, algorithm="warp_transpose", temp_storage=scratch)
    if tidx == 0:
        maxima[bidx] = best
        totals[bidx] = total


@cute.jit  # type: ignore[untyped-decorator]
def tiles(src: cute.Tensor, sums: cute.Tensor, maxima: cute.Tensor, totals: cute.Tensor) -> None:
    tiles_kernel(src, sums, maxima, totals).launch(grid=(cute.size(maxima), 1, 1), block=(THREADS, 1, 1))


def main() -> None:
    blocks = 32
    if not cuda.is_available():
        from cutlass.cute.runtime import make_fake_compact_tensor

        sizes = (blocks * TILE, blocks * TILE, blocks, blocks)
        fake = [make_fake_compact_tensor(cutlass.Int32, (n,), assumed_align=16) for n in sizes]
        print("no GPU here: compiled for sm_90a")
        print("CuTe: " + cutlass_coop.compile(tiles, *fake).inspect().summary())
        return
    import torch
    from cutlass.cute.runtime import from_dlpack

    src = torch.randint(-1000, 1000, (blocks * TILE,), dtype=torch.int32, device="cuda")
    sums, maxima, totals = (torch.full_like(t, -7) for t in (src, src[:blocks], src[:blocks]))
    args = [from_dlpack(t, assumed_align=16) for t in (src, sums, maxima, totals)]
    cutlass_coop.compile(tiles, *args)(*args)
    torch.cuda.synchronize()
    x = src.cpu().numpy().reshape(blocks, TILE)
    np.testing.assert_array_equal(sums.cpu().numpy(), np.cumsum(x, axis=1).reshape(-1))
    np.testing.assert_array_equal(maxima.cpu().numpy(), x.max(axis=1))
    np.testing.assert_array_equal(totals.cpu().numpy(), x.sum(axis=1))
    print(f"{blocks} tiles: prefix sums, totals and maxima (user operator) match NumPy")


if __name__ == "__main__":
    main()
