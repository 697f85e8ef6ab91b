# SPDX-License-Identifier: Apache-2.0
"""GPU correctness of coop.block.load/store under the Numba backends (numba-cuda and numba-cuda-mlir:
``tests/_numba_family.py``), against NumPy.

The grid: every pair of (dtype, block shape, items per thread) occurs (a pairwise covering of
9 x 8 x 7 values in 72 kernels); each kernel holds every algorithm x {load, partial load, partial
load with oob_default, store, partial store}, and runs each with an aligned and a misaligned
(offset + 1) tile over three blocks, on fresh random data with poisoned outputs. After a store the
kernel writes its items out again: a store leaves them as they are (CUB's transposing stores
rearrange their array in place; coop hands them a copy).
"""

from __future__ import annotations

import numpy as np
import pytest
from cuda import coop

from ._numba_family import BACKENDS, family
from ._reference import random_array, tile_positions

pytestmark = pytest.mark.gpu

ALGORITHMS = [a.value for a in coop.BlockLoadAlgorithm]
DTYPES = ["int8", "int16", "int32", "int64", "uint32", "uint64", "float16", "float32", "float64"]
BLOCKS = [32, 64, 128, 256, 1024, (8, 16), (4, 8, 4), 96]
IPTS = [1, 2, 3, 4, 7, 8, 16]
KINDS = ["load", "load_partial", "load_oob", "store", "store_partial"]
GRID = 3
SCRATCH_LIMIT = 48 * 1024


def _threads(block: int | tuple[int, ...]) -> int:
    return int(np.prod(block))


def _modes(dtype: str, block: object, ipt: int) -> list[tuple[str, str]]:
    tile_bytes = _threads(block) * ipt * np.dtype(dtype).itemsize
    return [
        (alg, kind)
        for alg in ALGORITHMS
        for kind in KINDS
        if not ("transpose" in alg and tile_bytes > SCRATCH_LIMIT * 0.9)
    ]


def _configs() -> list[object]:
    """All 72 configs; the diagonal (every dtype, block and ipt once) is also marked
    ``sanitizer``: the subset run under compute-sanitizer memcheck and racecheck."""
    return [
        pytest.param(
            d, b, IPTS[(i + k) % len(IPTS)], marks=[pytest.mark.sanitizer] if k == i % len(BLOCKS) else []
        )
        for i, d in enumerate(DTYPES)
        for k, b in enumerate(BLOCKS)
    ]


def _build_kernel(dtype: str, ipt: int, modes: list[tuple[str, str]], backend: str = "numba"):  # type: ignore[no-untyped-def]
    jit, cuda, _ = family(backend, dtype)

    body = [
        "def kernel(src, init, out, mode, shift, valid, oob):",
        "    nthreads = cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z",
        "    t = cuda.threadIdx.x + cuda.blockDim.x * (",
        "        cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)",
        f"    base = cuda.blockIdx.x * nthreads * {ipt}",
        f"    items = coop.ThreadData({ipt}, np.{dtype})",
        f"    for j in range({ipt}):",
        f"        items[j] = init[base + t * {ipt} + j]",
    ]
    for m, (alg, kind) in enumerate(modes):
        prim = "load(src" if kind.startswith("load") else "store(out"
        extra = ", valid_items=valid" if kind != "load" and kind != "store" else ""
        extra += ", oob_default=oob" if kind == "load_oob" else ""
        body.append(f"    {'if' if m == 0 else 'elif'} mode == {m}:")
        body.append(f"        coop.block.{prim}, items, offset=base + shift, algorithm='{alg}'{extra})")
    body += [  # a load's items, or after a store (which leaves them as they are) into src
        "    dst = out if IS_LOAD[mode] else src",
        f"    for j in range({ipt}):",
        f"        dst[base + t * {ipt} + j] = items[j]",
    ]
    is_load = np.array([kind.startswith("load") for _, kind in modes])
    scope = {"coop": coop, "cuda": cuda, "np": np, "IS_LOAD": is_load}
    exec("\n".join(body), scope)
    return jit(scope["kernel"])


def _expected(kind, alg, src, init, poison, block, ipt, shift, valid, oob):  # type: ignore[no-untyped-def]
    threads = _threads(block)
    tile = threads * ipt
    pos = tile_positions(threads, ipt, alg, src.dtype.itemsize)
    out = poison.copy()
    for b in range(GRID):
        base = b * tile
        mine = init[base : base + tile].reshape(threads, ipt)
        mask = pos < (valid if "partial" in kind or kind == "load_oob" else tile)
        if kind.startswith("load"):
            got = src[base + shift + pos]
            fill = np.full_like(mine, oob) if kind == "load_oob" else mine
            out[base : base + tile] = np.where(mask, got, fill).reshape(-1)
        else:
            out[base + shift + pos[mask]] = mine[mask]
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("dtype", "block", "ipt"), _configs(), ids=lambda v: str(v).replace(" ", ""))
def test_load_store_grid(dtype: str, block: object, ipt: int, backend: str) -> None:
    _, cuda, _ = family(backend, dtype)
    rng = np.random.default_rng(abs(hash((dtype, str(block), ipt))) % 2**32)
    modes = _modes(dtype, block, ipt)
    kernel = _build_kernel(dtype, ipt, modes, backend)
    tile = _threads(block) * ipt
    n = GRID * tile + 1
    failures = []
    for m, (alg, kind) in enumerate(modes):
        for shift in (0, 1):
            src, init, poison = (random_array(rng, dtype, n) for _ in range(3))
            valid = int(rng.integers(0, tile))
            oob = random_array(rng, dtype, 1)[0]
            d_src, d_out = cuda.to_device(src), cuda.to_device(poison)
            kernel[GRID, block](d_src, cuda.to_device(init), d_out, m, shift, valid, oob)
            got = d_out.copy_to_host()
            want = _expected(kind, alg, src, init, poison, block, ipt, shift, valid, oob)
            if not np.array_equal(got, want, equal_nan=True):
                bad = int(np.count_nonzero(got != want))
                failures.append(f"{alg}/{kind}/shift={shift}/valid={valid}: {bad} wrong of {n}")
            kept = d_src.copy_to_host()[: GRID * tile]
            if kind.startswith("store") and not np.array_equal(kept, init[: GRID * tile], equal_nan=True):
                bad = int(np.count_nonzero(kept != init[: GRID * tile]))
                failures.append(f"{alg}/{kind}/shift={shift}: the store changed {bad} of the items")
    assert not failures, "\n".join(failures)


@pytest.mark.sanitizer
def test_same_kernel_two_block_sizes() -> None:
    """One coop.numba.jit kernel launched with 128 and then 256 threads is right both times."""
    import cuda.coop.numba as numba_coop
    import numba
    from numba import cuda

    @numba_coop.jit
    def copy(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(4, numba.float32)
        base = cuda.blockIdx.x * cuda.blockDim.x * 4
        coop.block.load(src, items, offset=base, algorithm="transpose")
        coop.block.store(dst, items, offset=base, algorithm="transpose")

    rng = np.random.default_rng(7)
    for threads in (128, 256, 128):
        src = rng.standard_normal(threads * 4 * 5).astype(np.float32)
        dst = cuda.to_device(np.full_like(src, np.nan))
        copy[5, threads](cuda.to_device(src), dst)
        np.testing.assert_array_equal(dst.copy_to_host(), src)


@pytest.mark.sanitizer
def test_plain_cuda_jit_with_threads_per_block() -> None:
    """A plain @cuda.jit kernel names its block size explicitly."""
    import numba
    from numba import cuda

    @cuda.jit(lto=True)
    def copy(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(3, numba.int64)
        base = cuda.blockIdx.x * 64 * 3
        coop.block.load(src, items, offset=base, algorithm="warp_transpose", threads_per_block=64)
        coop.block.store(dst, items, offset=base, algorithm="striped", threads_per_block=64)

    rng = np.random.default_rng(11)
    src = rng.integers(-(2**62), 2**62, size=64 * 3 * 4, dtype=np.int64)
    dst = cuda.to_device(np.zeros_like(src) - 1)
    copy[4, 64](cuda.to_device(src), dst)
    pos = tile_positions(64, 3, "striped")
    want = np.empty_like(src)
    for b in range(4):
        tile = src[b * 192 : (b + 1) * 192].reshape(64, 3)  # blocked items
        want[b * 192 + pos] = tile
    np.testing.assert_array_equal(dst.copy_to_host(), want)


@pytest.mark.sanitizer
def test_caller_temp_storage_shared_by_load_and_store() -> None:
    """One coop.TempStorage reused by a transpose load and a warp_transpose store."""
    import cuda.coop.numba as numba_coop
    import numba
    from numba import cuda

    @numba_coop.jit
    def copy(src, dst):  # type: ignore[no-untyped-def]
        ts = coop.TempStorage()
        items = coop.ThreadData(7, numba.int32)
        base = cuda.blockIdx.x * 96 * 7
        coop.block.load(src, items, offset=base, algorithm="transpose", temp_storage=ts)
        cuda.syncthreads()
        coop.block.store(dst, items, offset=base, algorithm="warp_transpose", temp_storage=ts)

    rng = np.random.default_rng(3)
    src = rng.integers(-(2**31), 2**31 - 1, size=96 * 7 * 6, dtype=np.int32)
    dst = cuda.to_device(np.zeros_like(src))
    copy[6, 96](cuda.to_device(src), dst)
    np.testing.assert_array_equal(dst.copy_to_host(), src)
