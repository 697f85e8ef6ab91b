# SPDX-License-Identifier: Apache-2.0
"""The computing primitives ahead of time, on a machine without a GPU, on both backends: kernels
holding every primitive (built-in and user-defined operators) compile to one sm_90a function
with no CALL, no local memory and no provider symbol, from one NVRTC call per kernel."""

from __future__ import annotations

from typing import Any

import cuda.coop.numba as numba_coop
import numpy as np
import pytest
from cuda import coop
from numba import cuda
from numba.cuda import types

from ._compute_cases import GRID, TILES, Config, cases
from ._compute_kernels import load, numba_signature, numba_source

# One kernel of each family (the GPU grid's kernels, compiled here without running them).
CONFIGS = [Config("compute", "float32", (96, 1, 1), 3), Config("exchange", "int16", (8, 16, 1), 4)]


def _inlined(report: Any, functions: int = 1) -> Any:
    assert len(report.functions) == functions, report.functions
    assert report.calls == 0, report.sass
    assert report.local_loads == 0 and report.local_stores == 0, report.sass
    assert not report.leftover_symbols, report.leftover_symbols
    return report


def _one_bundle(before: coop.CompileStats) -> None:
    after = coop.compile_stats()
    nvrtc, hits = after.nvrtc_compiles - before.nvrtc_compiles, after.cache_hits - before.cache_hits
    # at most one NVRTC call: the kernel's requests that no cached unit has, in one unit
    assert nvrtc <= 1, (nvrtc, hits)


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: c.id)
def test_grid_kernel_numba(cfg: Config) -> None:
    module = load(f"aot_numba_{cfg.family}", numba_source(cfg, cases(cfg)))
    sig = numba_signature(types, getattr(types, cfg.dtype)[::1])
    before = coop.compile_stats()
    compiled = numba_coop.compile(module.kernel, sig, block=cfg.block)
    _one_bundle(before)
    _inlined(compiled.inspect())
    # every case of the kernel is its own request, all in the one bundle
    assert len(compiled.temp_storage) == len({c.statement(0) for c in cases(cfg)})


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: c.id)
def test_grid_kernel_cute(cfg: Config) -> None:
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    import cuda.coop.cutlass as cutlass_coop
    import cutlass
    from cutlass.cute.runtime import make_fake_compact_tensor

    from ._compute_kernels import _CUTE_TYPES, cute_source

    module = load(f"aot_cute_{cfg.family}", cute_source(cfg, cases(cfg)))
    t = getattr(cutlass, _CUTE_TYPES[cfg.dtype])
    n, nr = GRID * TILES * cfg.tile, GRID * TILES * cfg.threads

    def fake(dtype: Any, size: int) -> Any:
        return make_fake_compact_tensor(dtype, (size,), assumed_align=16)

    before = coop.compile_stats()
    compiled = cutlass_coop.compile(
        module.host,
        *(fake(t, n), fake(t, n), fake(t, nr), fake(t, nr)),
        *(fake(cutlass.Int32, n), fake(cutlass.Int32, n), fake(cutlass.Uint8, n), fake(t, 1)),
        cutlass.Int32(1),
        cutlass.Int32(0),
    )
    _one_bundle(before)
    _inlined(compiled.inspect())
    assert len(compiled.symbols) == len(cases(cfg))


def test_user_operators_of_every_kind_inline() -> None:
    """A plain function, a closure (two of them, with different captured values) and a Numba device
    function, as operators of one kernel: each its own extern "C" function, all inlined."""

    def make_scaled_add(k: int) -> Any:
        def scaled_add(a: Any, b: Any) -> Any:
            return a + k * b

        return scaled_add

    add1, add2 = make_scaled_add(1), make_scaled_add(2)

    def plain_max(a: Any, b: Any) -> Any:
        return a if a > b else b

    @cuda.jit(device=True)
    def device_min(a: Any, b: Any) -> Any:
        return min(a, b)

    def kernel(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(4, np.int32)
        coop.block.load(src, items)
        dst[0] = coop.block.reduce(items, add1)
        dst[1] = coop.block.reduce(items, add2)
        dst[2] = coop.block.reduce(items, plain_max)
        out = coop.block.inclusive_scan(items, device_min)
        coop.block.store(dst, out, offset=4)

    compiled = numba_coop.compile(kernel, "void(int32[::1], int32[::1])", block=64)
    _inlined(compiled.inspect())
    ops = {s.split("coop_op_")[1][:16] for s in compiled.temp_storage if "coop_op_" in s}
    assert len(ops) == 4, compiled.temp_storage  # add1 and add2 differ by their captured value


def test_thread_data_keyword_and_half_types() -> None:
    """``coop.ThreadData(4, dtype=...)``, float16 constants and arithmetic in the kernel (Numba
    links its own fp16 code beside the bundle), and bfloat16 items."""

    def kernel(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(4, dtype=np.float16)
        coop.block.load(src, items)
        for i in range(4):
            items[i] = items[i] * np.float16(2) + np.float16(7)
        dst[0] = coop.block.sum(items)
        bf = coop.ThreadData(items_per_thread=2, dtype="bfloat16")
        bf[0] = 1.5
        bf[1] = 2.5
        scanned = coop.block.exclusive_sum(bf)
        dst[1] = np.float32(scanned[1])
        coop.block.store(dst, items, offset=4)

    _inlined(numba_coop.compile(kernel, "void(float16[::1], float16[::1])", block=32).inspect())


def test_implicit_scratch_of_compute_primitives_is_one_union() -> None:
    def kernel(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(8, np.float32)
        coop.block.load(src, items, algorithm="warp_transpose")
        out = coop.block.exclusive_sum(items, algorithm="raking_memoize")
        coop.block.exchange(out, "blocked_to_striped")
        dst[0] = coop.block.reduce(out, "max", algorithm="raking")
        coop.block.store(dst, out, algorithm="striped")

    compiled = numba_coop.compile(kernel, "void(float32[::1], float32[::1])", block=256)
    report = _inlined(compiled.inspect())
    shared = next(iter(report.shared_bytes.values()))
    sizes = [size for size, _ in compiled.temp_storage.values()]
    assert len(sizes) == 4
    # the largest scratch (the exchange's tile, padded) plus the sm_90 reservation, not the sum
    assert max(sizes) <= shared <= max(sizes) + 1024 < sum(sizes), (shared, sizes)


def test_warp_striped_exchange_needs_whole_warps() -> None:
    def kernel(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(2, np.int32)
        coop.block.exchange(items, "blocked_to_warp_striped")

    with pytest.raises(
        coop.CoopLaunchConfigError, match="mode='blocked_to_warp_striped' needs a block of a multiple"
    ):
        numba_coop.compile(kernel, "void(int32[::1], int32[::1])", block=48)


def test_exchange_tile_over_the_static_limit_asks_for_time_slicing() -> None:
    def kernel(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(16, np.float64)
        coop.block.exchange(items, "striped_to_blocked")

    with pytest.raises(
        coop.CoopValueError, match=r"mode='striped_to_blocked' stages the whole tile \(131072 B\)"
    ):
        numba_coop.compile(kernel, "void(float64[::1], float64[::1])", block=1024)

    def sliced(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(16, np.float64)
        coop.block.exchange(items, "striped_to_blocked", warp_time_slicing=True)

    _inlined(numba_coop.compile(sliced, "void(float64[::1], float64[::1])", block=1024).inspect())
