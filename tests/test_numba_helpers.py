# SPDX-License-Identifier: Apache-2.0
"""Coop calls in ``@cuda.jit(device=True)`` helpers: each helper is compiled for the block of each
kernel that calls it (transitively), its requests join that kernel's bundle (one NVRTC call per
kernel), and a helper that cannot be compiled again is refused by name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cuda.coop.numba as numba_coop
import numpy as np
import pytest
from cuda import coop
from numba import cuda

SIG = "void(float32[::1], float32[::1])"
BLOCKS = [64, 128, 256, (32, 4)]
ITEMS = 4


@cuda.jit(device=True)
def tile_sum(x):  # type: ignore[no-untyped-def]
    return coop.block.sum(x)


@cuda.jit(device=True)
def sum_and_max(x):  # type: ignore[no-untyped-def]
    """A helper nesting another helper, with a coop call of its own."""
    return tile_sum(x) + coop.block.reduce(x, "max")


@cuda.jit(device=True)
def tile_max(x):  # type: ignore[no-untyped-def]
    """The nested helper's sum and max, less a sum made here: the same request as tile_sum's
    (one wrapper in the bundle)."""
    return sum_and_max(x) - coop.block.sum(x)


def _kernel(helper: Any) -> Any:
    @numba_coop.jit
    def k(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(ITEMS, np.float32)
        t = cuda.threadIdx.x + cuda.blockDim.x * cuda.threadIdx.y
        tile = cuda.blockDim.x * cuda.blockDim.y * ITEMS
        coop.block.load(src, items, offset=cuda.blockIdx.x * tile)
        total = helper(items)
        if t == 0:
            dst[cuda.blockIdx.x] = total

    return k


def _kernels() -> tuple[Any, Any]:
    return _kernel(tile_sum), _kernel(tile_max)


def _threads(block: Any) -> int:
    return int(np.prod(block if isinstance(block, tuple) else (block,)))


@pytest.mark.parametrize("which", ["sums", "nested"])
def test_each_kernel_bundle_holds_its_own_block_dims(which: str) -> None:
    kernel = dict(zip(["sums", "nested"], _kernels(), strict=True))[which]
    shared = {}
    for block in BLOCKS:
        before = coop.compile_stats().nvrtc_compiles
        compiled = numba_coop.compile(kernel, SIG, block=block, arch="sm_90a")
        assert coop.compile_stats().nvrtc_compiles - before <= 1  # helpers included
        dims = compiled.block
        tag = f"b{dims[0]}x{dims[1]}x{dims[2]}"
        assert compiled.temp_storage and all(tag in s for s in compiled.temp_storage), compiled.temp_storage
        report = compiled.inspect()
        assert len(report.functions) == 1 and report.calls == 0 and report.local_loads == 0
        shared[block] = next(iter(report.shared_bytes.values()))
    # BlockReduce's scratch grows with the block's warps: the helper was not compiled for 64 threads
    assert shared[256] > shared[128] > shared[64]


def test_helper_requests_join_the_kernel_bundle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One bundle for the kernel and its two helpers: on an empty cache, one NVRTC call, one unit of
    wrappers (and the kernel's glue)."""
    monkeypatch.setenv("CUDA_COOP_CACHE_DIR", str(tmp_path))
    _, nested = _kernels()
    before = coop.compile_stats()
    compiled = numba_coop.compile(nested, SIG, block=96, arch="sm_90a")
    after = coop.compile_stats()
    assert after.nvrtc_compiles - before.nvrtc_compiles == 1 and len(compiled.bundle_ltoir) == 2
    names = sorted(compiled.temp_storage)
    assert len(names) == 2 and all("b96x1x1" in n for n in names), names  # sum (deduplicated), reduce


@pytest.mark.gpu
@pytest.mark.parametrize("block", BLOCKS, ids=str)
def test_one_helper_in_kernels_of_four_block_shapes(block: Any) -> None:
    sums, nested = _kernels()
    threads, blocks = _threads(block), 5
    x = np.random.default_rng().integers(-50, 50, size=blocks * threads * ITEMS).astype(np.float32)
    tiles = x.reshape(blocks, -1)
    for kernel, want in ((sums, tiles.sum(axis=1)), (nested, tiles.max(axis=1))):
        out = cuda.to_device(np.full(blocks, np.nan, np.float32))
        kernel[blocks, block](cuda.to_device(x), out)
        np.testing.assert_array_equal(out.copy_to_host(), want)


@pytest.mark.gpu
def test_plain_kernel_after_a_front_door_kernel_recompiles_the_helper() -> None:
    """A plain @cuda.jit kernel does not reuse the helper compiled for a coop kernel: its own compile
    of the helper has no block dims to give the coop call (a typed error), not the other kernel's."""
    sums, _ = _kernels()
    sums[1, 128](cuda.to_device(np.ones(512, np.float32)), cuda.to_device(np.zeros(1, np.float32)))

    @cuda.jit
    def plain(src, dst):  # type: ignore[no-untyped-def]
        dst[0] = tile_sum(src[cuda.threadIdx.x])

    with pytest.raises(coop.CoopLaunchConfigError, match="block dimensions are unknown"):
        plain[1, 128](cuda.to_device(np.ones(128, np.float32)), cuda.to_device(np.zeros(1, np.float32)))


@pytest.mark.gpu
def test_helper_compiled_at_its_definition_is_refused_by_name() -> None:
    @cuda.jit("float32(float32)", device=True)
    def fixed(x):  # type: ignore[no-untyped-def]
        return coop.block.sum(x, threads_per_block=128)

    @numba_coop.jit
    def uses_fixed(src, dst):  # type: ignore[no-untyped-def]
        dst[0] = fixed(src[cuda.threadIdx.x])

    with pytest.raises(coop.CoopLaunchConfigError, match=r"device function '.*fixed' calls coop primitives"):
        uses_fixed[1, 256](cuda.to_device(np.ones(256, np.float32)), cuda.to_device(np.zeros(1, np.float32)))
