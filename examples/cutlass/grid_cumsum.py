# SPDX-License-Identifier: Apache-2.0
"""A one-kernel cumsum of a whole 1-D array in a CuTe DSL kernel, with ``coop.grid``.

Each block takes its tile with ``coop.grid.tile_index`` (a ticket: the scan order, whatever order
the hardware starts blocks in), loads it, scans it after every earlier tile with
``coop.grid.inclusive_sum`` (CUB's decoupled look-back on the tile states of a
``coop.grid.ScanState``) and stores it; the last tile's ``total`` is the array's sum. The
workspace is made once and serves every later launch.

On a GPU the result is checked against NumPy; without one the kernel is compiled ahead of time for
sm_90a and its SASS is reported.
"""

import os

import numpy as np
from cuda import coop
from numba import cuda

THREADS, ITEMS = 256, 8
TILE = THREADS * ITEMS

if not cuda.is_available():
    os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")  # compile-only: name the target

import cuda.coop.cutlass as cutlass_coop  # noqa: E402
import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402


@cute.kernel  # type: ignore[untyped-decorator]
def cumsum_kernel(
    src: cute.Tensor, dst: cute.Tensor, total: cute.Tensor, state: cute.Tensor, n: cutlass.Int32
) -> None:
    tidx, _, _ = cute.arch.thread_idx()
    tile = coop.grid.tile_index(state)
    base = tile * TILE
    valid = cutlass.min(n - base, TILE)
    items = coop.ThreadData(ITEMS, cutlass.Int32)
    coop.block.load(src, items, offset=base, valid_items=valid, oob_default=cutlass.Int32(0))
    out, through = coop.grid.inclusive_sum(items, state, tile, total=True)
    coop.block.store(dst, out, offset=base, valid_items=valid)
    if base + TILE >= n and tidx == 0:  # the last tile: the array's sum
        total[0] = through


@cute.jit  # type: ignore[untyped-decorator]
def cumsum(src: cute.Tensor, dst: cute.Tensor, total: cute.Tensor, state: cute.Tensor, n: cutlass.Int32,
           blocks: cutlass.Int32) -> None:  # fmt: skip
    cumsum_kernel(src, dst, total, state, n).launch(grid=(blocks, 1, 1), block=(THREADS, 1, 1))


def main() -> None:
    n = 5_000_003
    blocks = -(-n // TILE)
    if not cuda.is_available():
        from cutlass.cute.runtime import make_fake_compact_tensor

        words = coop.grid.ScanState.bytes_needed(blocks, np.int32) // 8
        fake = [make_fake_compact_tensor(cutlass.Int32, (m,), assumed_align=16) for m in (n, n, 1)]
        fake.append(make_fake_compact_tensor(cutlass.Uint64, (words,), assumed_align=16))
        print("no GPU here: compiled for sm_90a")
        compiled = cutlass_coop.compile(cumsum, *fake, cutlass.Int32(n), cutlass.Int32(blocks))
        print("CuTe: " + compiled.inspect().summary())
        return
    import torch
    from cutlass.cute.runtime import from_dlpack

    state = coop.grid.ScanState(blocks, np.int32, array_module="torch")
    src = torch.randint(-100, 100, (n,), dtype=torch.int32, device="cuda")
    dst, total = torch.zeros_like(src), torch.zeros(1, dtype=torch.int32, device="cuda")
    # traced with a CuTe tensor of the workspace's array (the compiled function would also take `state`)
    args = [from_dlpack(t, assumed_align=16) for t in (src, dst, total, state.array)]
    compiled = cutlass_coop.compile(cumsum, *args, cutlass.Int32(n), cutlass.Int32(blocks))
    for _ in range(3):  # the same workspace, launch after launch
        compiled(*args, n, blocks)
        torch.cuda.synchronize()
        x = src.cpu().numpy()
        np.testing.assert_array_equal(dst.cpu().numpy(), np.cumsum(x, dtype=np.int32))
        assert int(total.cpu()[0]) == int(x.sum())
    print(f"cumsum of {n} int32 in one CuTe kernel of {blocks} blocks, three launches on one workspace")


if __name__ == "__main__":
    main()
