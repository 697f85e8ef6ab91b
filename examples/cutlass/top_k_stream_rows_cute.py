# SPDX-License-Identifier: Apache-2.0
"""The k largest values of each row and their indices (``torch.topk``) in a CuTe DSL kernel, a warp
per row, with ``coop.warp.top_k``: the CuTe twin of ``examples/numba/top_k_stream_rows.py``.

A warp streams its row of 4096 float32 in tiles of 32 lanes x 32 items (``coop.warp.load``,
striped: lane ``l``'s item ``i`` is the tile's item ``l + 32 i``) and hands each tile to
``coop.warp.top_k``, which keeps the running list of the 16 best (value, index) pairs, one a lane,
largest first, of equal values the smaller index. ``first=`` is the tile's position in the row, so
the indices are the row's. The row is never sorted: a tile's items are compared once with the
list's 16th value, and the few that pass are merged into the list by shuffle networks.

With several warps a row, each warp streams its part and the row's first warp merges their lists
with one more call, the lists' entries as a tile whose indices are given (``indices=``).

The compiled function is called with torch tensors directly (coop's call state writes only their
data pointers after the first call). The result is exact and checked against NumPy's order
(``np.lexsort``) on random, ascending, constant and tied rows. On a GPU it runs; without one it is
compiled ahead of time for sm_90a.
"""

import os
from typing import Any

import numpy as np
from numba import cuda

K, N = 16, 4096
THREADS, ITEMS = 128, 32  # 4 warps, so 4 rows, a block
INT32_MAX = 2**31 - 1  # the index of an empty list entry (its value is -inf)

if not cuda.is_available():
    os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")  # compile-only: name the target

import cuda.coop.cutlass as cutlass_coop  # noqa: E402
import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402
from cuda import coop  # noqa: E402
from cutlass.cute.runtime import make_fake_compact_tensor  # noqa: E402
from cutlass.memory import SmemAllocator  # noqa: E402


def make_row_top_k(n: int, k: int, items: int, threads: int, warps_per_row: int = 1) -> Any:
    """The ``@cute.jit`` host ``(x, values, indices)``: the ``k`` largest of each row of ``n``
    float32 in ``x`` (flat, rows one after the other) into ``values`` (float32) and ``indices``
    (int64), ``k`` a row, ``warps_per_row`` warps a row, each streaming tiles of 32 x ``items``."""
    tile, part = 32 * items, n // warps_per_row
    tiles, warps = part // tile, threads // 32
    rows_per_block = warps // warps_per_row
    merged = -(-warps_per_row * k // 32)  # items a lane of the lists' merge
    assert tiles * tile * warps_per_row == n and rows_per_block * warps_per_row == warps

    @cute.kernel  # type: ignore[untyped-decorator]
    def row_top_k(x: cute.Tensor, values: cute.Tensor, indices: cute.Tensor) -> None:
        t, _, _ = cute.arch.thread_idx()
        b, _, _ = cute.arch.block_idx()
        lane, w = t % 32, t // 32
        row = b * rows_per_block + w // warps_per_row
        first = (w % warps_per_row) * part  # the warp's part of the row
        xs = coop.ThreadData(items, cutlass.Float32)
        lv, li = -cutlass.Float32.inf, cutlass.Int32(INT32_MAX)  # the list: lane l holds the l-th best
        for j in cutlass.range(tiles):
            coop.warp.load(x, xs, offset=row * n + first + j * tile, algorithm="striped")
            lv, li = coop.warp.top_k(xs, k, running=(lv, li), first=first + j * tile)
        if cutlass.const_expr(warps_per_row > 1):  # the row's first warp merges the warps' lists
            smem = SmemAllocator()
            lists_v = smem.allocate_tensor(cutlass.Float32, cute.make_layout((warps, k), stride=(k, 1)), 16)
            lists_i = smem.allocate_tensor(cutlass.Int32, cute.make_layout((warps, k), stride=(k, 1)), 16)
            if lane < k:
                lists_v[w, lane] = lv
                lists_i[w, lane] = li
            cute.arch.barrier()
            if w % warps_per_row == 0:
                mv = coop.ThreadData(merged, cutlass.Float32)
                mi = coop.ThreadData(merged, cutlass.Int32)
                for s in cutlass.range_constexpr(merged):
                    e = lane + 32 * s  # entry e: warp w + e // k's e % k-th
                    mv[s] = -cutlass.Float32.inf
                    mi[s] = cutlass.Int32(INT32_MAX)
                    if e < warps_per_row * k:
                        mv[s] = lists_v[w + e // k, e % k]
                        mi[s] = lists_i[w + e // k, e % k]
                lv, li = coop.warp.top_k(mv, k, indices=mi)
        if lane < k and w % warps_per_row == 0:
            values[row * k + lane] = lv
            indices[row * k + lane] = cutlass.Int64(li)

    @cute.jit  # type: ignore[untyped-decorator]
    def host(x: cute.Tensor, values: cute.Tensor, indices: cute.Tensor) -> None:
        rows = cute.size(x) // n
        row_top_k(x, values, indices).launch(grid=(rows // rows_per_block, 1, 1), block=(threads, 1, 1))

    return host


def rows_to_check(rows: int) -> np.ndarray:
    """Random rows, and rows that defeat the threshold or test the order of ties."""
    rng = np.random.default_rng()
    x = rng.standard_normal((rows, N)).astype(np.float32)
    x[1] = np.arange(N)  # ascending: every tile beats the list so far
    x[2] = -np.arange(N)  # descending
    x[3] = 2.5  # all equal: the 16 smallest indices
    x[4] = rng.integers(0, 3, N)  # three values, many ties
    x[5] = -np.inf
    x[6, ::7] = np.float32(9.0)  # more than 16 equal largest values
    x[7] = np.sort(x[7])
    return x


def main() -> None:
    hosts = {1: make_row_top_k(N, K, ITEMS, THREADS), 4: make_row_top_k(N, K, 16, THREADS, warps_per_row=4)}
    rows = 1024
    if not cuda.is_available():
        fake = (
            make_fake_compact_tensor(cutlass.Float32, (rows * N,), assumed_align=16),
            make_fake_compact_tensor(cutlass.Float32, (rows * K,), assumed_align=16),
            make_fake_compact_tensor(cutlass.Int64, (rows * K,), assumed_align=16),
        )
        for wr, host in hosts.items():
            report = cutlass_coop.compile(host, *fake).inspect()
            print(f"no GPU here: compiled row_top_k ({wr} warps a row) for sm_90a\n" + report.summary())
        return
    import torch
    from cutlass.cute.runtime import from_dlpack

    x = rows_to_check(rows)
    order = np.stack([np.lexsort((np.arange(N), -r.astype(np.float64)))[:K] for r in x])
    tx = torch.from_numpy(x.reshape(-1)).cuda()
    for wr, host in hosts.items():
        values = torch.full((rows * K,), float("nan"), device="cuda")
        indices = torch.full((rows * K,), -1, dtype=torch.int64, device="cuda")
        compiled = cutlass_coop.compile(
            host, *(from_dlpack(t, assumed_align=16) for t in (tx, values, indices))
        )
        compiled(tx, values, indices)  # torch tensors, as they are
        got_v, got_i = values.cpu().numpy().reshape(rows, K), indices.cpu().numpy().reshape(rows, K)
        np.testing.assert_array_equal(got_i, order)
        np.testing.assert_array_equal(got_v, np.take_along_axis(x, order, 1))
        print(
            f"{rows} rows of {N}, {wr} warps a row: the {K} largest and their indices, as NumPy orders them"
        )


if __name__ == "__main__":
    main()
