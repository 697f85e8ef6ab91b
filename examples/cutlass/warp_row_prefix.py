# SPDX-License-Identifier: Apache-2.0
"""A warp per row in a CuTe DSL kernel: each warp loads its row (``coop.warp.load``), sums it with
``coop.warp.sum`` (shuffles, no shared memory) and gives every lane its row's inclusive prefix of
the per-lane sums (``coop.warp.inclusive_sum``).

On a GPU the results are checked against NumPy; without one the kernel is compiled ahead of time
for sm_90a and its SASS is reported.
"""

import os

import numpy as np
from cuda import coop
from numba import cuda

THREADS, ITEMS = 128, 4
ROW = 32 * ITEMS
ROWS_PER_BLOCK = THREADS // 32

if not cuda.is_available():
    os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")  # compile-only: name the target

import cuda.coop.cutlass as cutlass_coop  # noqa: E402
import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402


@cute.kernel  # type: ignore[untyped-decorator]
def rows_kernel(src: cute.Tensor, sums: cute.Tensor, prefix: cute.Tensor) -> None:
    bidx, _, _ = cute.arch.block_idx()
    tidx, _, _ = cute.arch.thread_idx()
    row = bidx * ROWS_PER_BLOCK + tidx // 32
    items = coop.ThreadData(ITEMS, cutlass.Int32)
    coop.warp.load(src, items, offset=row * ROW, algorithm="vectorize")
    total = coop.warp.sum(items, broadcast=True)
    lane_sum = items[0] + items[1] + items[2] + items[3]
    prefix[bidx * THREADS + tidx] = coop.warp.inclusive_sum(lane_sum)
    if tidx % 32 == 0:
        sums[row] = total


@cute.jit  # type: ignore[untyped-decorator]
def rows(src: cute.Tensor, sums: cute.Tensor, prefix: cute.Tensor) -> None:
    rows_kernel(src, sums, prefix).launch(
        grid=(cute.size(sums) // ROWS_PER_BLOCK, 1, 1), block=(THREADS, 1, 1)
    )


def main() -> None:
    n_rows = 32 * ROWS_PER_BLOCK
    if not cuda.is_available():
        from cutlass.cute.runtime import make_fake_compact_tensor

        sizes = (n_rows * ROW, n_rows, n_rows * 32)
        fake = [make_fake_compact_tensor(cutlass.Int32, (n,), assumed_align=16) for n in sizes]
        print("no GPU here: compiled for sm_90a")
        print("CuTe: " + cutlass_coop.compile(rows, *fake).inspect().summary())
        return
    import torch
    from cutlass.cute.runtime import from_dlpack

    src = torch.randint(-1000, 1000, (n_rows * ROW,), dtype=torch.int32, device="cuda")
    sums = torch.full((n_rows,), -7, dtype=torch.int32, device="cuda")
    prefix = torch.full((n_rows * 32,), -7, dtype=torch.int32, device="cuda")
    args = [from_dlpack(t, assumed_align=16) for t in (src, sums, prefix)]
    cutlass_coop.compile(rows, *args)(*args)
    torch.cuda.synchronize()
    x = src.cpu().numpy().reshape(n_rows, 32, ITEMS)
    np.testing.assert_array_equal(sums.cpu().numpy(), x.sum(axis=(1, 2)))
    np.testing.assert_array_equal(prefix.cpu().numpy(), np.cumsum(x.sum(axis=2), axis=1).reshape(-1))
    print(f"{n_rows} row sums and per-lane row prefixes: equal to NumPy's")


if __name__ == "__main__":
    main()
