# SPDX-License-Identifier: Apache-2.0
"""docs/grid_scans.rst: a one-kernel cumsum with coop.grid, and the workspace's constructors.

``launch`` and ``workspaces`` need a GPU (and CuPy, torch or Numba memory): the test imports them
and compiles the kernel; ``bytes_needed`` runs anywhere."""

# ruff: noqa: I001, E402 (the page shows the coop import with the kernel)
import cuda.coop.numba as numba_coop
import numpy as np

THREADS, ITEMS = 128, 4
TILE = THREADS * ITEMS

# fmt: off
# doc-start: cumsum-kernel
from cuda import coop

@numba_coop.jit
def cumsum(src, dst, state, n):
    tile = coop.grid.tile_index(state)              # this block's place in the scan order
    base = tile * TILE                              # TILE = threads * items per thread
    valid = min(n - base, TILE)
    items = coop.ThreadData(ITEMS, np.int32)
    coop.block.load(src, items, offset=base, valid_items=valid, oob_default=0)
    out = coop.grid.exclusive_sum(items, state, tile)
    coop.block.store(dst, out, offset=base, valid_items=valid)
# doc-end: cumsum-kernel
# fmt: on


def launch(src, dst, n):  # type: ignore[no-untyped-def]
    blocks = -(-n // TILE)
    # fmt: off
    # doc-start: cumsum-launch
    state = coop.grid.ScanState(blocks, np.int32)      # once; reused by every later launch
    cumsum[blocks, THREADS](src, dst, state, n)
    # doc-end: cumsum-launch
    # fmt: on


def workspaces(tiles, item_type, my_uint64_buffer):  # type: ignore[no-untyped-def]
    # fmt: off
    # doc-start: workspace
    state = coop.grid.ScanState(tiles, item_type)       # cupy, torch or numba memory
    state = coop.grid.ScanState(tiles, (np.float32, np.int32), array_module="torch")
    nbytes = coop.grid.ScanState.bytes_needed(tiles, item_type)
    state = coop.grid.ScanState.wrap(my_uint64_buffer, tiles, item_type)   # your memory
    # doc-end: workspace
    # fmt: on
    return state, nbytes


NUMBA = [
    (cumsum, "void(int32[::1], int32[::1], uint64[::1], int64)", {"block": THREADS}),
]
