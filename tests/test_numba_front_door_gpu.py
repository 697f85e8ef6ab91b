# SPDX-License-Identifier: Apache-2.0
"""On the GPU: kernels built with numba-cuda's options, signatures and on-disk cache run correctly;
an ahead-of-time cubin loads and runs through cuda.core."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import cuda.coop.numba as numba_coop
import numpy as np
import pytest
from cuda import coop
from numba import cuda

pytestmark = pytest.mark.gpu

ITEMS = 4


def _scaled_prefix(src, dst):  # type: ignore[no-untyped-def]
    """dst = inclusive prefix sum of 2*src within each tile of the block."""
    items = coop.ThreadData(ITEMS, np.float32)
    tile = cuda.blockDim.x * ITEMS
    coop.block.load(src, items, offset=cuda.blockIdx.x * tile)
    for i in range(ITEMS):
        items[i] = _double(items[i])
    out = coop.block.inclusive_sum(items)
    coop.block.store(dst, out, offset=cuda.blockIdx.x * tile)


def _scaled_prefix_plus(src, dst, k):  # type: ignore[no-untyped-def]
    """_scaled_prefix, then + k."""
    items = coop.ThreadData(ITEMS, np.float32)
    tile = cuda.blockDim.x * ITEMS
    coop.block.load(src, items, offset=cuda.blockIdx.x * tile)
    for i in range(ITEMS):
        items[i] = _double(items[i])
    out = coop.block.inclusive_sum(items)
    for i in range(ITEMS):
        out[i] += k
    coop.block.store(dst, out, offset=cuda.blockIdx.x * tile)


@cuda.jit(device=True)
def _double(x):  # type: ignore[no-untyped-def]
    return x + x


def _reference(src: np.ndarray, threads: int) -> np.ndarray:
    tiles = (2 * src.astype(np.float64)).reshape(-1, threads * ITEMS)
    return np.cumsum(tiles, axis=1).reshape(-1)


def _run(kernel, threads: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:  # type: ignore[no-untyped-def]
    grid = 3
    src = rng.integers(-50, 50, grid * threads * ITEMS).astype(np.float32)
    dst = cuda.to_device(np.full(src.size, np.nan, np.float32))
    kernel[grid, threads](cuda.to_device(src), dst)
    return dst.copy_to_host(), _reference(src, threads)


@pytest.mark.parametrize(
    "options",
    [{}, {"lineinfo": True}, {"debug": True, "opt": False}, {"fastmath": True, "max_registers": 32}],
    ids=["plain", "lineinfo", "debug", "fastmath-maxreg"],
)
def test_options_build_kernels_that_run(options: dict[str, object]) -> None:
    rng = np.random.default_rng()
    kernel = numba_coop.jit(**options)(_scaled_prefix)
    for threads in (64, 128):
        got, want = _run(kernel, threads, rng)
        np.testing.assert_allclose(got, want)
        disp = kernel.for_block(threads)
        assert disp.targetoptions["lto"] is True
        assert all(disp.targetoptions.get(k) == v for k, v in options.items())


def test_explicit_signatures_compile_for_those_only() -> None:
    rng = np.random.default_rng()
    one = numba_coop.jit("void(float32[::1], float32[::1])")(_scaled_prefix)
    got, want = _run(one, 128, rng)
    np.testing.assert_allclose(got, want)
    assert len(one.for_block(128).overloads) == 1 and one.for_block(128).specialized
    # two signatures that differ in a scalar's type
    sigs = ["void(float32[::1], float32[::1], int32)", "void(float32[::1], float32[::1], int64)"]
    two = numba_coop.jit(sigs)(_scaled_prefix_plus)
    src = rng.integers(-50, 50, 3 * 64 * ITEMS).astype(np.float32)
    dst = cuda.to_device(np.full(src.size, np.nan, np.float32))
    two[3, 64](cuda.to_device(src), dst, np.int64(5))
    np.testing.assert_allclose(dst.copy_to_host(), _reference(src, 64) + 5)
    assert len(two.for_block(64).overloads) == 2 and not two.for_block(64).specialized
    with pytest.raises(TypeError):  # numba-cuda's own refusal: compiled for those types only
        two[1, 64](cuda.to_device(np.ones(256)), cuda.to_device(np.ones(256)), 1)


def test_cache_true_is_keyed_by_block_shape(tmp_path: Path) -> None:
    """Two processes: the second loads both block shapes' kernels from numba-cuda's disk cache, and
    each block shape gets its own (a block-64 kernel run as block 128 would give wrong sums)."""
    module = tmp_path / "cached_kernel.py"
    module.write_text(
        textwrap.dedent(
            """
            import sys
            import numpy as np
            from numba import cuda
            from cuda import coop
            import cuda.coop.numba as numba_coop

            @numba_coop.jit(cache=True)
            def tile_sums(src, dst):
                items = coop.ThreadData(4, np.int32)
                tile = cuda.blockDim.x * 4
                coop.block.load(src, items, offset=cuda.blockIdx.x * tile)
                total = coop.block.sum(items)
                if cuda.threadIdx.x == 0:
                    dst[cuda.blockIdx.x] = total

            rng = np.random.default_rng()
            for threads in (64, 128):
                src = rng.integers(-1000, 1000, 3 * threads * 4).astype(np.int32)
                dst = cuda.to_device(np.full(3, -7, np.int32))
                tile_sums[3, threads](cuda.to_device(src), dst)
                want = src.reshape(3, -1).sum(axis=1)
                assert (dst.copy_to_host() == want).all(), (threads, dst.copy_to_host(), want)
                stats = tile_sums.for_block(threads).stats
                print(threads, sum(stats.cache_hits.values()), sum(stats.cache_misses.values()))
            """
        )
    )
    path = os.pathsep.join(p for p in (str(tmp_path), os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache"), "PYTHONPATH": path}

    def run() -> list[str]:
        done = subprocess.run([sys.executable, str(module)], capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout.split("\n")[:2]

    assert run() == ["64 0 1", "128 0 1"]  # compiled and saved
    assert run() == ["64 1 0", "128 1 0"]  # loaded, one entry per block shape


def test_ahead_of_time_cubin_runs_through_cuda_core() -> None:
    """The docs' recipe: compile for this GPU, load the cubin with cuda.core, launch it."""
    from cuda.core import Device, LaunchConfig, ObjectCode, launch

    device = Device()
    device.set_current()
    stream = device.create_stream()
    arch = f"sm_{device.arch}"
    threads = 128
    compiled = numba_coop.compile(
        _scaled_prefix, "void(float32[::1], float32[::1])", block=threads, arch=arch
    )
    report = compiled.inspect()
    kernel_name = report.functions[0]
    kernel = ObjectCode.from_cubin(compiled.code).get_kernel(kernel_name)
    # what the docs say of the shared-memory figure: the kernel's own; the GPU reserves 1 KiB more
    assert kernel.attributes.shared_size_bytes == report.shared_bytes[kernel_name]
    assert device.properties.reserved_shared_memory_per_block == 1024

    rng = np.random.default_rng()
    src = rng.integers(-50, 50, 3 * threads * ITEMS).astype(np.float32)
    d_src, d_dst = cuda.to_device(src), cuda.to_device(np.full(src.size, np.nan, np.float32))
    # numba's array ABI: meminfo, parent, nitems, itemsize, data, shape, strides per array
    args = []
    for arr in (d_src, d_dst):
        n, pointer = np.int64(arr.size), np.uint64(arr.device_ctypes_pointer.value)
        args += [np.uint64(0), np.uint64(0), n, np.int64(4), pointer, n, np.int64(4)]
    launch(stream, LaunchConfig(grid=3, block=threads), kernel, *args)
    stream.sync()
    np.testing.assert_allclose(d_dst.copy_to_host(), _reference(src, threads))
