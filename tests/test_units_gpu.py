# SPDX-License-Identifier: Apache-2.0
"""Kernels built from units compiled for other kernels, on a GPU, under numba-cuda and
numba-cuda-mlir (issue 21): two kernels compile their requests into a fresh cache, then kernels that
mix those requests compile no unit (no NVRTC call parses CUB) and still compute what NumPy does.
The mixes reshape the kernel's shared memory against the units': a block transpose next to a scan
(one implicit block scratch, the larger of the two), logical warps of 8 and of 32 in one kernel
(the warp scratch sliced in units of the kernel's largest warp TempStorage, per 8 threads), and a
caller-owned ``coop.TempStorage`` next to implicit scratch. 96 threads (three warps), three int64
items per thread (not a power of two); fresh random data, outputs poisoned."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cuda import coop

from ._compute_kernels import load
from ._numba_family import BACKENDS, family

pytestmark = [pytest.mark.gpu, pytest.mark.sanitizer]

THREADS, ITEMS, GRID = 96, 3, 7
TILE = THREADS * ITEMS
N = GRID * TILE

KERNELS = """
from numba import cuda
from cuda import coop
import numpy as np

T, I = {threads}, {items}


def transpose(src, dst):
    items = coop.ThreadData(I, np.int64)
    base = cuda.blockIdx.x * T * I
    coop.block.load(src, items, offset=base, algorithm="transpose")
    coop.block.store(dst, items, offset=base, algorithm="warp_transpose")


def scan(src, dst):
    items = coop.ThreadData(I, np.int64)
    base = cuda.blockIdx.x * T * I
    coop.block.load(src, items, offset=base, algorithm="direct")
    out = coop.block.exclusive_sum(items)
    coop.block.store(dst, out, offset=base, algorithm="direct")


def mixed(src, dst):  # the transpose kernel's load and store around the scan kernel's scan
    items = coop.ThreadData(I, np.int64)
    base = cuda.blockIdx.x * T * I
    coop.block.load(src, items, offset=base, algorithm="transpose")
    out = coop.block.exclusive_sum(items)
    coop.block.store(dst, out, offset=base, algorithm="warp_transpose")


def narrow(src, dst):  # logical warps of 8
    i = cuda.blockIdx.x * T + cuda.threadIdx.x
    dst[i] = coop.warp.exclusive_sum(src[i], threads_in_warp=8)


def wide(src, dst):  # logical warps of 32, a transposing warp load
    items = coop.ThreadData(I, np.int64)
    base = cuda.blockIdx.x * T * I + (cuda.threadIdx.x // 32) * 32 * I
    coop.warp.load(src, items, offset=base, algorithm="transpose", threads_in_warp=32)
    for k in range(I):
        dst[cuda.blockIdx.x * T * I + cuda.threadIdx.x * I + k] = items[k]


def warps(src, dst, out):  # both widths in one kernel: their slices must not overlap
    items = coop.ThreadData(I, np.int64)
    base = cuda.blockIdx.x * T * I + (cuda.threadIdx.x // 32) * 32 * I
    coop.warp.load(src, items, offset=base, algorithm="transpose", threads_in_warp=32)
    i = cuda.blockIdx.x * T + cuda.threadIdx.x
    out[i] = coop.warp.exclusive_sum(items[0], threads_in_warp=8)
    for k in range(I):
        dst[cuda.blockIdx.x * T * I + cuda.threadIdx.x * I + k] = items[k]


def clustered(src, dst, out):  # a cluster row beside block rows: one block scratch for all three
    items = coop.ThreadData(I, np.int64)
    base = cuda.blockIdx.x * T * I
    coop.block.load(src, items, offset=base, algorithm="transpose")
    total = coop.cluster.sum(items)
    coop.block.store(dst, items, offset=base, algorithm="warp_transpose")
    if cuda.threadIdx.x == 0:
        out[cuda.blockIdx.x] = total


def owned(src, dst):  # the scan in a caller-owned TempStorage, the transposes in implicit scratch
    temp = coop.TempStorage()
    items = coop.ThreadData(I, np.int64)
    base = cuda.blockIdx.x * T * I
    coop.block.load(src, items, offset=base, algorithm="transpose")
    out = coop.block.exclusive_sum(items, temp_storage=temp)
    coop.block.store(dst, out, offset=base, algorithm="warp_transpose")
"""


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CUDA_COOP_CACHE_DIR", str(tmp_path))
    return tmp_path


def _blocked_scan(x: np.ndarray) -> np.ndarray:
    """Each tile's exclusive prefix sum, items blocked by thread (the tile in order)."""
    tiles = x.reshape(GRID, TILE)
    return (np.cumsum(tiles, axis=1) - tiles).reshape(-1)


def _warp_scan(x: np.ndarray, width: int) -> np.ndarray:
    groups = x.reshape(-1, width)
    return (np.cumsum(groups, axis=1) - groups).reshape(-1)


@pytest.mark.parametrize("backend", BACKENDS)
def test_kernels_of_requests_compiled_for_other_kernels(backend: str, cache: Path) -> None:
    jit, cuda, source = family(backend)
    module = load(f"units_{backend}", source(KERNELS.format(threads=THREADS, items=ITEMS)))
    rng = np.random.default_rng()
    x = rng.integers(-(2**40), 2**40, N, dtype=np.int64)
    xs = rng.integers(-(2**20), 2**20, GRID * THREADS, dtype=np.int64)

    def run(name: str, *arrays: np.ndarray) -> tuple[list[np.ndarray], int]:
        before = coop.compile_stats().nvrtc_compiles
        kernel = jit(getattr(module, name))
        dev: list[Any] = [cuda.to_device(a) for a in arrays]
        kernel[GRID, THREADS](*dev)
        cuda.synchronize()
        return [d.copy_to_host() for d in dev], coop.compile_stats().nvrtc_compiles - before

    poison = np.full(N, np.iinfo(np.int64).min, dtype=np.int64)
    (_, got), units = run("transpose", x, poison.copy())
    np.testing.assert_array_equal(got, x)
    assert units == 1
    (_, got), units = run("scan", x, poison.copy())
    np.testing.assert_array_equal(got, _blocked_scan(x))
    assert units == 1
    for name in ("mixed", "owned"):  # the same requests, new kernels: their units are reused
        (_, got), units = run(name, x, poison.copy())
        np.testing.assert_array_equal(got, _blocked_scan(x), err_msg=name)
        if name == "mixed":
            assert units == 0, "the mixed kernel's requests were all compiled before"

    short = np.full(GRID * THREADS, np.iinfo(np.int64).min, dtype=np.int64)
    (_, got), units = run("narrow", xs, short.copy())
    np.testing.assert_array_equal(got, _warp_scan(xs, 8))
    (_, got), units = run("wide", x, poison.copy())
    np.testing.assert_array_equal(got, x)
    (_, got, out), units = run("warps", x, poison.copy(), short.copy())
    assert units == 0, "both warp requests were compiled for the narrow and wide kernels"
    np.testing.assert_array_equal(got, x)
    firsts = x.reshape(GRID * THREADS, ITEMS)[:, 0]
    np.testing.assert_array_equal(out, _warp_scan(firsts, 8))


def test_a_cluster_row_beside_block_rows_shares_their_scratch(cache: Path) -> None:
    """The glue gives a cluster row and block rows of one kernel one block scratch (the largest of
    theirs); the cluster's sum sees every block's tile; the transposes are intact."""
    import cuda.coop.numba as numba_coop
    from numba import cuda

    module = load("units_cluster", KERNELS.format(threads=THREADS, items=ITEMS))
    blocks, cluster = 8, 2
    x = np.random.default_rng().integers(-(2**40), 2**40, blocks * TILE, dtype=np.int64)
    dst = cuda.to_device(np.full(blocks * TILE, np.iinfo(np.int64).min, dtype=np.int64))
    out = cuda.to_device(np.full(blocks, np.iinfo(np.int64).min, dtype=np.int64))
    kernel = numba_coop.jit(module.clustered)
    kernel.configure(blocks, THREADS, cluster=(cluster, 1, 1))(cuda.to_device(x), dst, out)
    cuda.synchronize()
    np.testing.assert_array_equal(dst.copy_to_host(), x)
    sums = x.reshape(blocks // cluster, cluster * TILE).sum(axis=1)
    np.testing.assert_array_equal(out.copy_to_host(), np.repeat(sums, cluster))
