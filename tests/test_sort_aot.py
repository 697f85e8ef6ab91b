# SPDX-License-Identifier: Apache-2.0
"""The sorting and data-dependent primitives (issue 10) ahead of time, on a machine without a GPU,
on both backends: the GPU grid's kernels (every case of one kernel) compile to one sm_90a function
with no CALL, no local memory and no provider symbol, from one NVRTC call per kernel. Also: the
NumPy references agree with each other where they overlap."""

from __future__ import annotations

from typing import Any

import cuda.coop.numba as numba_coop
import numpy as np
import pytest
from cuda import coop
from numba.cuda import types

from ._compute_kernels import load
from ._sort_cases import (
    GRID,
    TILES,
    Config,
    Params,
    cases,
    configs,
    keys_data,
    mismatches,
    ordered_bits,
    sort_order,
)
from ._sort_kernels import cute_source, numba_source

# Each family's float32-key kernel (int64 values, a 3-D block) and int32-key kernel (96 threads, 3 items).
AOT_CONFIGS = [c for c in configs() if c.key in ("float32", "int32") or c.id.startswith("rank-uint32")]


def _inlined(report: Any, functions: int = 1) -> Any:
    assert len(report.functions) == functions, report.functions
    assert report.calls == 0, report.sass
    assert report.local_loads == 0 and report.local_stores == 0, report.sass
    assert not report.leftover_symbols, report.leftover_symbols
    return report


def _requests(cfg: Config) -> int:
    """The kernel's requests: one per case (the decode family's offsets case adds its scan's)."""
    return len(cases(cfg)) + (cfg.group == "decode")


def _one_bundle(before: coop.CompileStats) -> None:
    after = coop.compile_stats()
    nvrtc, hits = after.nvrtc_compiles - before.nvrtc_compiles, after.cache_hits - before.cache_hits
    # at most one NVRTC call: the kernel's requests that no cached unit has, in one unit
    assert nvrtc <= 1, (nvrtc, hits)


@pytest.mark.parametrize("cfg", AOT_CONFIGS, ids=lambda c: c.id)
def test_grid_kernel_numba(cfg: Config) -> None:
    cs = cases(cfg)
    module = load(f"aot_numba_{cfg.id.replace('-', '_')}", numba_source(cfg, cs))
    k, v = getattr(types, cfg.key)[::1], getattr(types, cfg.value)[::1]
    before = coop.compile_stats()
    compiled = numba_coop.compile(
        module.kernel,
        (k, v, k, v, types.int32[::1], types.int32, types.int32, types.int32, types.int32),
        block=cfg.block,
    )
    _one_bundle(before)
    _inlined(compiled.inspect())
    # each case its own request, all in the one bundle; the histogram family's atomic requests need
    # no scratch, its three sorting ones do
    assert len(compiled.temp_storage) == (3 if cfg.group == "histogram" else _requests(cfg))


@pytest.mark.parametrize("cfg", AOT_CONFIGS, ids=lambda c: c.id)
def test_grid_kernel_cute(cfg: Config) -> None:
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    import cuda.coop.cutlass as cutlass_coop
    import cutlass
    from cutlass.cute.runtime import make_fake_compact_tensor

    from ._compute_kernels import _CUTE_TYPES

    module = load(f"aot_cute_{cfg.id.replace('-', '_')}", cute_source(cfg, cases(cfg)))
    k, v = getattr(cutlass, _CUTE_TYPES[cfg.key]), getattr(cutlass, _CUTE_TYPES[cfg.value])
    n = GRID * TILES * cfg.tile

    def fake(dtype: Any) -> Any:
        return make_fake_compact_tensor(dtype, (n,), assumed_align=16)

    before = coop.compile_stats()
    compiled = cutlass_coop.compile(
        module.host,
        fake(k),
        fake(v),
        fake(k),
        fake(v),
        fake(cutlass.Int32),
        cutlass.Int32(0),
        cutlass.Int32(8),
        cutlass.Int32(5),
        cutlass.Int32(0),
    )
    _one_bundle(before)
    _inlined(compiled.inspect())
    assert len(compiled.symbols) == _requests(cfg)


def test_radix_sort_half_and_bfloat16_keys() -> None:
    """CUB's traits twiddle half-precision keys too (no GPU grid for bfloat16: numba-cuda takes no
    bfloat16 arrays)."""

    def kernel(src, dst):  # type: ignore[no-untyped-def]
        h = coop.ThreadData(4, np.float16)
        coop.block.load(src, h)
        coop.block.radix_sort(h, descending=True)
        coop.block.store(dst, h)
        bf = coop.ThreadData(2, "bfloat16")
        bf[0] = 1.5
        bf[1] = -2.5
        idx = coop.ThreadData(2, np.int32)
        idx[0] = 0
        idx[1] = 1
        coop.block.radix_sort(bf, values=idx, output="striped")
        dst[0] = np.float16(idx[0])

    _inlined(numba_coop.compile(kernel, "void(float16[::1], float16[::1])", block=64).inspect())


@pytest.mark.parametrize("dtype", ["int8", "int32", "uint16", "uint64", "float16", "float32", "float64"])
def test_references_agree(dtype: str) -> None:
    """Over all bits, the bit-twiddled order (CUB's rule) and NumPy's stable order are the same
    permutation, ascending and descending, on data with duplicates and float specials."""
    rng = np.random.default_rng(3)
    for variant in ("random", "dups", "equal"):
        keys = keys_data(rng, dtype, 2000, variant)
        n = keys.dtype.itemsize * 8
        twiddled = ordered_bits(keys)
        np.testing.assert_array_equal(sort_order(keys), np.argsort(twiddled, kind="stable"))
        mask = np.uint64((1 << n) - 1)
        np.testing.assert_array_equal(
            sort_order(keys, descending=True), np.argsort(mask - twiddled, kind="stable")
        )


def test_top_k_references() -> None:
    """The top-k references (selection in CUB's bit order, then ascending, then the fill) give what
    NumPy's sort gives on distinct float keys: the k largest (smallest) of the valid ones."""
    cfg = next(c for c in configs() if c.group == "sort" and c.key == "float32")
    by_id = {c.id: c for c in cases(cfg)}
    keys = np.random.default_rng(5).permutation(np.arange(cfg.tile, dtype=np.float32) - 100.5)
    k = max(1, cfg.tile // 3)
    want = np.concatenate([np.sort(keys)[-k:], np.full(cfg.tile - k, 60000.0, np.float32)])
    got = by_id["top_k-largest-const-k"].ref(keys, keys, Params(0, 1, 0))
    np.testing.assert_array_equal(got["ok"], want)
    assert (got["oi"][:k] == 1).all() and (got["oi"][k:] == 2).all()
    p = Params(3, 4, nvalid=cfg.tile // 2)  # runtime k = 3 * (tile // 64) + 1 of the first half
    m = min(3 * (cfg.tile // 64) + 1, cfg.tile // 2)
    got = by_id["top_k-smallest-runtime-k-partial"].ref(keys, keys, p)
    np.testing.assert_array_equal(got["ok"][:m], np.sort(keys[: cfg.tile // 2])[:m])
    assert (got["ok"][m:] == 60000.0).all()


def test_mismatches_zero_sign() -> None:
    """The GPU grid's comparison: bitwise (a moved -0.0 must stay -0.0), but with ``any_zero_sign``
    (a computed fmax of -0.0 and +0.0) zeros of either sign agree; other values stay bitwise."""
    want = {"ok": np.array([0.0, -0.0, 1.0, np.nan], dtype=np.float32)}
    got = {"ok": np.array([-0.0, 0.0, 1.0, np.nan], dtype=np.float32)}
    assert mismatches(got, want) == ["ok: 2 differ, first at 0: got np.float32(-0.0), want np.float32(0.0)"]
    assert mismatches(got, want, any_zero_sign=True) == []
    got["ok"][2] = np.float32(np.nextafter(np.float32(1), np.float32(2)))
    assert len(mismatches(got, want, any_zero_sign=True)) == 1


def test_merge_sort_needs_power_of_two_threads() -> None:
    """CUB's block merge sort static_asserts a power-of-two thread count: checked before any C++."""

    def kernel(src):  # type: ignore[no-untyped-def]
        k = coop.ThreadData(2, np.int32)
        coop.block.load(src, k)
        coop.block.merge_sort(k, "less")
        coop.block.store(src, k)

    with pytest.raises(coop.CoopLaunchConfigError, match=r"merge_sort: needs a block of a power-of-two"):
        numba_coop.compile(kernel, "void(int32[::1])", block=(96, 1, 1))


@pytest.mark.parametrize(
    ("block", "needs"),
    [
        ((5, 7, 2), r"algorithm='match' needs a block of a multiple of 32 threads, the block has 70"),
        (
            (4, 8, 4),
            r"algorithm='match' needs a 1-D block, the block is \(4, 8, 4\); launch block=\(128, 1, 1\)",
        ),
    ],
)
def test_radix_rank_match_needs_a_one_dimensional_block_of_whole_warps(
    block: tuple[int, int, int], needs: str
) -> None:
    """BlockRadixRankMatch synchronizes every lane of a warp (``__syncwarp(0xffffffff)``): with a
    partial warp the H200 run hung. And CCCL 3.6 scans its counters with ``BlockScan<.., BLOCK_THREADS,
    .., BlockDimY, BlockDimZ>``, a block of BLOCK_THREADS * Y * Z threads: on a 4x8x4 block the ranks
    came out wrong on the H200, in plain CUB C++ too. Both are refused before any C++."""

    def kernel(src):  # type: ignore[no-untyped-def]
        k = coop.ThreadData(2, np.uint32)
        coop.block.load(src, k)
        coop.block.store(src, coop.block.radix_rank(k, begin_bit=0, num_bits=4, algorithm="match"))

    with pytest.raises(coop.CoopLaunchConfigError, match=needs):
        numba_coop.compile(kernel, "void(uint32[::1])", block=block)


def test_top_k_needs_a_one_dimensional_block() -> None:
    """CUB's block top-k numbers its threads by x alone: a 2-D block is refused before any C++."""

    def kernel(src):  # type: ignore[no-untyped-def]
        k = coop.ThreadData(2, np.float32)
        coop.block.load(src, k)
        coop.block.top_k(k, 5)
        coop.block.store(src, k)

    with pytest.raises(coop.CoopLaunchConfigError, match=r"top_k: needs a 1-D block .*\(8, 16, 1\)"):
        numba_coop.compile(kernel, "void(float32[::1])", block=(8, 16, 1))


def test_run_length_decode_shared_limit() -> None:
    """The block's runs (value and uint32 offset each) are kept in shared memory: checked before C++."""

    def kernel(src):  # type: ignore[no-untyped-def]
        v = coop.ThreadData(64, np.float64)
        n = coop.ThreadData(64, np.int32)
        for i in range(64):
            v[i] = src[i]
            n[i] = 1
        d, total = coop.block.run_length_decode(v, decoded_items_per_thread=1, run_lengths=n)
        src[0] = d[0] + total

    with pytest.raises(coop.CoopValueError, match=r"run_length_decode: the block's 8192 runs take 98304 B"):
        numba_coop.compile(kernel, "void(float64[::1])", block=128)


def test_radix_rank_match_takes_eight_bits() -> None:
    """BlockRadixRankMatch keeps one counter per digit and warp (not per thread): eight bits fit a block
    whose per-thread counters (algorithm='basic') would not."""

    def kernel(src, dst):  # type: ignore[no-untyped-def]
        k = coop.ThreadData(4, np.uint16)
        coop.block.load(src, k)
        r = coop.block.radix_rank(k, begin_bit=8, num_bits=8, algorithm="match")
        coop.block.store(dst, r)

    _inlined(numba_coop.compile(kernel, "void(uint16[::1], int32[::1])", block=256).inspect())

    def basic(src, dst):  # type: ignore[no-untyped-def]
        k = coop.ThreadData(4, np.uint16)
        coop.block.load(src, k)
        coop.block.store(dst, coop.block.radix_rank(k, begin_bit=8, num_bits=8))

    with pytest.raises(coop.CoopValueError, match=r"num_bits=8 needs 132096 B of digit counters"):
        numba_coop.compile(basic, "void(uint16[::1], int32[::1])", block=256)
