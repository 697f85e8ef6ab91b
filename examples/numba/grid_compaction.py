# SPDX-License-Identifier: Apache-2.0
"""Grid scans: a one-kernel 1-D cumsum and a one-kernel stream compaction.

Each block takes its tile with ``coop.grid.tile_index`` (a ticket: blocks may start in any order;
``order="block"``: the block's index, as CUB's own scans take it),
scans it with ``coop.grid.exclusive_sum`` (CUB's decoupled look-back: the items of every earlier
tile are counted in, in one launch) and writes. The compaction scans the keep-flags of its items:
an item's exclusive sum is its place in the output, and the last tile's ``total`` is the output's
length. It writes as CUB's ``DeviceSelect`` does: the kept items scattered to their places in
shared memory (``scatter_to_striped_flagged``; ``valid_items``: only the kept ones are read back),
then stored coalesced from the tile's first place (the scan's ``tile_prefix``), in CUB's sm_90 tile
for 4-byte items (384 threads x 17) with launch bounds ``(384, 3)``, which hold ptxas to the
registers of three blocks an SM (``benchmarks/grid.py``
measures ``make_keep_positive``: 0.87-0.92x CUB's ``DeviceSelect::If`` on an H100 with tickets,
0.96-0.97x with ``order="block"``, 2026-12-07). One ``coop.grid.ScanState`` per kernel serves every
later launch.
"""

from __future__ import annotations

from typing import Any

import cuda.coop.numba as numba_coop
import numpy as np
from cuda import coop
from numba import cuda
from numpy.typing import NDArray

THREADS, ITEMS = 256, 8
TILE = THREADS * ITEMS
#: the compaction's tile: CUB's sm_90 DeviceSelect tuning for 4-byte items, three blocks an SM
KEEP_THREADS, KEEP_ITEMS, KEEP_BLOCKS_PER_SM = 384, 17, 3
KEEP_TILE = KEEP_THREADS * KEEP_ITEMS


@numba_coop.jit
def cumsum(src: NDArray[np.int32], dst: NDArray[np.int32], state: NDArray[np.uint64], n: int) -> None:
    tile = coop.grid.tile_index(state)
    base = tile * TILE
    valid = min(n - base, TILE)
    items = coop.ThreadData(ITEMS, np.int32)
    coop.block.load(src, items, offset=base, valid_items=valid, oob_default=0)
    out = coop.grid.inclusive_sum(items, state, tile)
    coop.block.store(dst, out, offset=base, valid_items=valid)


def make_keep_positive(threads: int, items: int, blocks_per_sm: int = 0, order: str = "ticket") -> Any:
    """The compaction kernel (keep the positive float32 items, in order) with tiles of ``threads`` x
    ``items``; ``blocks_per_sm``: its launch bounds ``(threads, blocks_per_sm)`` (0: none); ``order``:
    how a block gets its tile (``coop.grid.tile_index``'s ``order``: ``"ticket"``, safe whatever
    order the hardware starts blocks in, or ``"block"``, the block's index as CUB's ``DeviceSelect``
    takes it, without the ticket's atomic and barrier)."""
    tile = threads * items

    # launch bounds of the thread count alone are the default
    @numba_coop.jit(launch_bounds=(threads, blocks_per_sm) if blocks_per_sm else threads)
    def keep_positive(
        src: NDArray[np.float32],
        dst: NDArray[np.float32],
        count: NDArray[np.int32],
        state: NDArray[np.uint64],
        n: int,
    ) -> None:
        t = coop.grid.tile_index(state, order=order)
        base = t * tile
        x = coop.ThreadData(items, np.float32)
        coop.block.load(
            src, x, offset=base, algorithm="warp_transpose", valid_items=min(n - base, tile), oob_default=0
        )
        flags = coop.ThreadData(items, np.int32)
        for j in range(items):
            flags[j] = 1 if x[j] > 0 else 0
        # every item's place in the output, the places taken through this tile, the tile's first place
        where, total, start = coop.grid.exclusive_sum(flags, state, t, total=True, tile_prefix=True)
        ranks = coop.ThreadData(items, np.int32)
        for j in range(items):
            ranks[j] = where[j] - start
        kept = total - start  # the tile's kept items: only those are read back and stored
        coop.block.exchange(x, "scatter_to_striped_flagged", ranks=ranks, valid_flags=flags, valid_items=kept)
        coop.block.store(dst, x, offset=start, algorithm="striped", valid_items=kept)
        if t == cuda.gridDim.x - 1 and cuda.threadIdx.x == 0:
            count[0] = total

    return keep_positive


keep_positive = make_keep_positive(KEEP_THREADS, KEEP_ITEMS, KEEP_BLOCKS_PER_SM)
#: the same, each block's tile its index (CUB's choice: no ticket, so no atomic and no barrier)
keep_positive_by_index = make_keep_positive(KEEP_THREADS, KEEP_ITEMS, KEEP_BLOCKS_PER_SM, order="block")


def main() -> None:
    if not cuda.is_available():
        for kernel, sig, threads in (
            (cumsum, "void(int32[::1], int32[::1], uint64[::1], int64)", THREADS),
            (keep_positive, "void(float32[::1], float32[::1], int32[::1], uint64[::1], int64)", KEEP_THREADS),
            (
                keep_positive_by_index,
                "void(float32[::1], float32[::1], int32[::1], uint64[::1], int64)",
                KEEP_THREADS,
            ),
        ):
            report = numba_coop.compile(kernel, sig, block=threads).inspect()
            print(f"compiled {kernel.__name__} for sm_90a (no GPU here)\n" + report.summary())
        return
    rng = np.random.default_rng()
    n = 3_000_001
    blocks = -(-n // TILE)
    state = coop.grid.ScanState(blocks, np.int32)  # int32 and float32 items share one layout
    x = rng.integers(-100, 100, n).astype(np.int32)
    out = cuda.device_array_like(x)
    for _ in range(3):  # the same workspace, launch after launch
        cumsum[blocks, THREADS](cuda.to_device(x), out, state, n)
        np.testing.assert_array_equal(out.copy_to_host(), np.cumsum(x, dtype=np.int32))
    y = rng.standard_normal(n).astype(np.float32)
    count = cuda.to_device(np.zeros(1, np.int32))
    keep_blocks = -(-n // KEEP_TILE)
    keep_state = coop.grid.ScanState(keep_blocks, np.int32)
    for kernel in (keep_positive, keep_positive_by_index):
        kept = cuda.to_device(np.full_like(y, np.nan))  # poisoned
        kernel[keep_blocks, KEEP_THREADS](cuda.to_device(y), kept, count, keep_state, n)
        m = int(count.copy_to_host()[0])
        np.testing.assert_array_equal(kept.copy_to_host()[:m], y[y > 0])
    print(f"cumsum of {n} int32 in one kernel of {blocks} blocks; {m} of {n} floats kept, in order")


if __name__ == "__main__":
    main()
