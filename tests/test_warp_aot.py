# SPDX-License-Identifier: Apache-2.0
"""The warp primitives ahead of time, without a GPU, on both backends: the GPU grid's kernels
compile to one sm_90a function with no CALL and no local memory; warp reduce, scan and broadcast
are shuffles (SHFL) with no shared memory at every logical warp width; scratch-using algorithms get
one slice per logical warp; bad widths are typed errors."""

from __future__ import annotations

import re
from typing import Any

import cuda.coop.numba as numba_coop
import numpy as np
import pytest
from cuda import coop
from numba import cuda
from numba.cuda import types

from ._warp_cases import WIDTHS, Case, Config, cases, sizes
from ._warp_kernels import cute_source, load, numba_source

CONFIGS = [
    Config("compute", "float32", (96, 1, 1), 8, 3),
    Config("tile", "int16", (8, 16, 1), 4, 4),
    Config("compute", "int64", (48, 1, 1), 16, 1),
    Config("sort", "float16", (64, 1, 1), 8, 3),
    Config("sort", "uint64", (4, 8, 4), 32, 2),
    Config("batched", "float32", (64, 1, 1), 8, 9),
    # blocks that end in a partial hardware warp
    Config("compute", "float64", (8, 5, 1), 8, 2),
    Config("tile", "int16", (36, 1, 1), 4, 4),
    Config("batched", "int32", (34, 1, 1), 2, 5),
    Config("sort", "uint16", (8, 5, 1), 8, 5),
]


def _inlined(report: Any) -> Any:
    assert len(report.functions) == 1, report.functions
    assert report.calls == 0, report.sass
    assert report.local_loads == 0 and report.local_stores == 0, report.sass
    assert not report.leftover_symbols, report.leftover_symbols
    return report


def _shared(report: Any) -> int:
    return int(next(iter(report.shared_bytes.values())))


def _numba_sig(dtype: str) -> tuple[Any, ...]:
    arr = getattr(types, dtype)[::1]
    i32 = types.int32[::1]
    return (arr, arr, arr, arr, i32, i32, arr, types.int32, types.int32, types.int32)


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: c.id)
def test_grid_kernel_numba(cfg: Config) -> None:
    _inlined(_numba_grid_kernel(cfg, cases(cfg)).inspect())


def _module_name(backend: str, cfg: Config, chosen: list[Case]) -> str:
    tail = chosen[0].name.replace("-", "_") if len(chosen) == 1 else "all"
    return f"aot_warp_{backend}_{cfg.id.replace('-', '_')}_{tail}"


def _numba_grid_kernel(cfg: Config, chosen: list[Case]) -> Any:
    module = load(_module_name("numba", cfg, chosen), numba_source(cfg, chosen))
    return numba_coop.compile(module.kernel, _numba_sig(cfg.dtype), block=cfg.block)


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: c.id)
def test_grid_kernel_cute(cfg: Config) -> None:
    _inlined(_cute_grid_kernel(cfg, cases(cfg)).inspect())


def _cute_grid_kernel(cfg: Config, chosen: list[Case]) -> Any:
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    import cuda.coop.cutlass as cutlass_coop
    import cutlass
    from cutlass.cute.runtime import make_fake_compact_tensor

    from ._compute_kernels import _CUTE_TYPES

    module = load(_module_name("cute", cfg, chosen), cute_source(cfg, chosen))
    t = getattr(cutlass, _CUTE_TYPES[cfg.dtype])
    n = sizes(cfg)

    def fake(dtype: Any, size: int) -> Any:
        return make_fake_compact_tensor(dtype, (size,), assumed_align=16)

    return cutlass_coop.compile(
        module.host,
        *(fake(t, n["out"]), fake(t, n["out"]), fake(t, n["red"]), fake(t, n["agg"])),
        fake(cutlass.Int32, n["vout"]),
        *(fake(cutlass.Int32, n["out"]), fake(t, 1)),
        *(cutlass.Int32(1), cutlass.Int32(1), cutlass.Int32(0)),
    )


#: The warp calls that exchange through shared memory, on blocks whose last hardware warp is partial.
#: Issue 17 refused them; CUB C++ of the same calls on such blocks is right and clean under racecheck,
#: synccheck and memcheck (``benchmarks/partial_warps.cu``, issue 46), and so is coop's (the GPU grid's
#: partial configs under the sanitizers), so they compile like any other block.
_SHARED_MEMORY = [
    ("load-transpose", "coop.warp.load(x, tmp, offset=base, algorithm='transpose', {w})"),
    ("store-transpose", "coop.warp.store(out, items, offset=base, algorithm='transpose', {w})"),
    ("exchange-smem", "coop.warp.exchange(items, 'blocked_to_striped', {w})"),
    ("exchange-scatter", "coop.warp.exchange(items, 'scatter_to_striped', ranks=rk, {w})"),
    ("merge_sort", "coop.warp.merge_sort(tmp, 'less', valid_items=ni, {w})"),
]

_PARTIAL_BLOCKS = [((8, 5, 1), 8), ((36, 1, 1), 4), ((34, 1, 1), 2), ((48, 1, 1), 16)]


@pytest.mark.parametrize("backend", ["numba", "cute"])
@pytest.mark.parametrize(("block", "width"), _PARTIAL_BLOCKS)
@pytest.mark.parametrize(("name", "statement"), _SHARED_MEMORY, ids=[r[0] for r in _SHARED_MEMORY])
def test_shared_memory_warp_calls_compile_in_a_partial_hardware_warp(
    backend: str, block: tuple[int, int, int], width: int, name: str, statement: str
) -> None:
    cfg = Config("tile", "float64", block, width, 4)
    case = Case(name, statement.format(w=f"threads_in_warp={width}"), out="store")
    build = _numba_grid_kernel if backend == "numba" else _cute_grid_kernel
    build(cfg, [case])


@pytest.mark.parametrize("backend", ["numba", "cute"])
@pytest.mark.parametrize(("block", "width"), _PARTIAL_BLOCKS)
def test_sync_physical_warp_refuses_a_partial_hardware_warp(
    backend: str, block: tuple[int, int, int], width: int
) -> None:
    """``sync_physical_warp=True`` names all 32 lanes of the hardware warp, which a partial one lacks."""
    cfg = Config("tile", "float64", block, width, 4)
    statement = (
        f"o0 = coop.warp.batched_reduce(items, 'max', sync_physical_warp=True, threads_in_warp={width})"
    )
    build = _numba_grid_kernel if backend == "numba" else _cute_grid_kernel
    with pytest.raises(coop.CoopLaunchConfigError, match="sync_physical_warp=True synchronises all 32 lanes"):
        build(cfg, [Case("batched-syncpw", statement, out="store")])


def test_a_logical_warp_of_one_lane_may_sit_in_a_partial_hardware_warp() -> None:
    """A width-1 logical warp shares its slice with no other lane: shared-memory calls are allowed."""
    cfg = Config("sort", "float64", (5, 7, 2), 1, 4)
    _inlined(_numba_grid_kernel(cfg, cases(cfg)).inspect())


def _reduce_scan_kernel(width: int) -> Any:
    def kernel(src, dst, n):  # type: ignore[no-untyped-def]
        t = cuda.threadIdx.x
        v = src[t]
        dst[t] = coop.warp.sum(v, threads_in_warp=width)
        dst[t + 128] = coop.warp.reduce(v, "max", broadcast=True, threads_in_warp=width)
        dst[t + 256] = coop.warp.inclusive_sum(v, threads_in_warp=width)
        o, a = coop.warp.exclusive_scan(
            v, "min", initial_value=0.0, valid_items=n, warp_aggregate=True, threads_in_warp=width
        )
        dst[t + 384] = o + a
        dst[t + 512] = coop.warp.broadcast(v, width - 1, threads_in_warp=width)

    return kernel


@pytest.mark.parametrize("width", WIDTHS)
def test_reduce_scan_broadcast_are_shuffles_without_shared_memory(width: int) -> None:
    compiled = numba_coop.compile(
        _reduce_scan_kernel(width), "void(float32[::1], float32[::1], int32)", block=128
    )
    report = _inlined(compiled.inspect())
    assert _shared(report) == 0, report.summary()
    assert not compiled.temp_storage  # no request needs scratch
    shfl = len(re.findall(r"\bSHFL\.", report.sass))
    assert shfl > 0 or width == 1, (width, shfl)  # (CUB still shuffles a little at width 1)


def test_reduce_scan_broadcast_are_shuffles_without_shared_memory_cute() -> None:
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    import cuda.coop.cutlass as cutlass_coop
    import cutlass
    from cutlass.cute.runtime import make_fake_compact_tensor

    source = """
import cutlass
import cutlass.cute as cute
from cuda import coop


@cute.kernel
def kernel(src: cute.Tensor, dst: cute.Tensor, n: cutlass.Int32):
    t, _, _ = cute.arch.thread_idx()
    v = src[t]
    dst[t] = coop.warp.sum(v, threads_in_warp=16)
    dst[t + 128] = coop.warp.reduce(v, "max", broadcast=True, threads_in_warp=8)
    dst[t + 256] = coop.warp.inclusive_sum(v)
    o, a = coop.warp.exclusive_scan(v, "min", initial_value=0.0, valid_items=n, warp_aggregate=True,
                                    threads_in_warp=4)
    dst[t + 384] = o + a
    dst[t + 512] = coop.warp.broadcast(v, 3, threads_in_warp=2)


@cute.jit
def host(src: cute.Tensor, dst: cute.Tensor, n: cutlass.Int32):
    kernel(src, dst, n).launch(grid=(1, 1, 1), block=(128, 1, 1))
"""
    module = load("aot_warp_cute_shuffles", source)
    fake = [make_fake_compact_tensor(cutlass.Float32, (1024,), assumed_align=16) for _ in range(2)]
    report = _inlined(cutlass_coop.compile(module.host, *fake, cutlass.Int32(5)).inspect())
    assert _shared(report) == 0, report.summary()
    assert len(re.findall(r"\bSHFL\.", report.sass)) > 0


@pytest.mark.parametrize(
    ("algorithm", "scratch"),
    [("direct", False), ("striped", False), ("vectorize", False), ("transpose", True)],
)
def test_load_store_scratch_is_one_slice_per_logical_warp(algorithm: str, scratch: bool) -> None:
    def kernel(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(4, np.float32)
        base = (cuda.threadIdx.x // 16) * 64
        coop.warp.load(src, items, offset=base, algorithm=algorithm, threads_in_warp=16)
        coop.warp.store(dst, items, offset=base, algorithm=algorithm, threads_in_warp=16)

    compiled = numba_coop.compile(kernel, "void(float32[::1], float32[::1])", block=128)
    report = _inlined(compiled.inspect())
    sizes_ = [size for size, _ in compiled.temp_storage.values()]
    if not scratch:
        assert _shared(report) == 0 and not sizes_
        return
    # 8 logical warps, each a 16 x 4 float tile (CUB pads it): the union of load's and store's
    assert len(sizes_) == 2 and 8 * 16 * 4 * 4 <= max(sizes_) <= _shared(report) <= max(sizes_) + 1024


def test_exchange_shuffle_needs_no_shared_memory_smem_one_slice_per_warp() -> None:
    def kernel(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(8, np.int32)
        for i in range(8):
            items[i] = src[cuda.threadIdx.x * 8 + i]
        coop.warp.exchange(items, "blocked_to_striped", algorithm="shuffle", threads_in_warp=8)
        for i in range(8):
            dst[cuda.threadIdx.x * 8 + i] = items[i]

    report = _inlined(numba_coop.compile(kernel, "void(int32[::1], int32[::1])", block=64).inspect())
    assert _shared(report) == 0 and "SHFL" in report.sass

    def smem(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(8, np.int32)
        coop.warp.exchange(items, "blocked_to_striped", threads_in_warp=8)
        dst[cuda.threadIdx.x] = items[0]

    compiled = numba_coop.compile(smem, "void(int32[::1], int32[::1])", block=64)
    (size,) = [s for s, _ in compiled.temp_storage.values()]
    assert size >= 8 * 8 * 8 * 4  # 8 logical warps x 64 items x 4 B


def test_warp_scratch_is_apart_from_block_scratch_and_synchronises_the_warp() -> None:
    """Warp scratch gets its own buffer (a warp may start on its slice while other warps still read
    the block's) and its barrier is __syncwarp over the logical warp's lanes, never __syncthreads."""
    from cuda.coop._render import render_requests

    def kernel(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(4, np.float32)
        coop.block.load(src, items, algorithm="transpose")
        coop.warp.exchange(items, "striped_to_blocked", threads_in_warp=16)
        coop.block.store(dst, items)

    compiled = numba_coop.compile(kernel, "void(float32[::1], float32[::1])", block=64)
    _inlined(compiled.inspect())
    from cuda.coop._catalog import CATALOG
    from cuda.coop._kinds import Arg, Form
    from cuda.coop._primitive import Launch

    plan = CATALOG["warp.exchange"].resolve(
        {
            "items": Arg(Form.THREAD_DATA, "td", "float32", "float32", 4),
            "mode": Arg(Form.CONSTANT, "'s'", value="striped_to_blocked"),
            "threads_in_warp": Arg(Form.CONSTANT, "16", value=16),
        },
        Launch((64, 1, 1), ""),
    )
    from cuda.coop._render import render_glue

    source = render_requests([plan.request]).source
    wrapper = source[source.index(f"void {plan.request.symbol}(") :]
    assert "__syncwarp(coop_warp_mask<16>())" in wrapper and "__syncthreads" not in wrapper
    # the kernel's glue has the warp scratch (apart from the block's) and slices it: a unit (the
    # largest TempStorage of the kernel's warp requests) per 16 threads, the narrowest logical warp;
    # each logical warp of 16 takes the unit of its first thread
    assert "coop_warp_slice_0(coop_warp_scratch_0(), cub::RowMajorTid(64, 1, 1), 16)" in wrapper
    glue = render_glue([plan.request], (), {plan.request.symbol: (260, 4)})
    assert "coop_warp_scratch_0()" in glue.source and "coop_block_scratch" not in glue.source
    assert "unsigned char bytes[260];" in glue.source and "(width / 16)" in glue.source
    assert glue.temp_storage == {plan.request.symbol: (4 * 260, 4)}


@pytest.mark.parametrize("width", [0, 3, 64])
def test_a_width_that_is_not_a_logical_warp_is_refused(width: int) -> None:
    def kernel(src, dst):  # type: ignore[no-untyped-def]
        dst[0] = coop.warp.sum(src[0], threads_in_warp=width)

    with pytest.raises(coop.CoopValueError, match=f"threads_in_warp={width} is not a logical warp width"):
        numba_coop.compile(kernel, "void(float32[::1], float32[::1])", block=64)


def test_the_block_must_be_whole_logical_warps() -> None:
    def kernel(src, dst):  # type: ignore[no-untyped-def]
        dst[0] = coop.warp.sum(src[0])

    with pytest.raises(
        coop.CoopLaunchConfigError, match="threads_in_warp=32 needs a block of a multiple of 32"
    ):
        numba_coop.compile(kernel, "void(float32[::1], float32[::1])", block=48)

    def narrow(src, dst):  # type: ignore[no-untyped-def]
        dst[0] = coop.warp.sum(src[0], threads_in_warp=16)

    _inlined(numba_coop.compile(narrow, "void(float32[::1], float32[::1])", block=48).inspect())


def _less(a, b):  # type: ignore[no-untyped-def]
    return a < b


@pytest.mark.parametrize("width", WIDTHS)
def test_merge_sort_scratch_is_one_slice_per_logical_warp(width: int) -> None:
    """Keys and int64 values, a user comparator: one TempStorage slice per logical warp of the block
    (the tile of the wider of keys and values, plus CUB's padding), __syncwarp only."""

    def kernel(src, dst, n):  # type: ignore[no-untyped-def]
        keys = coop.ThreadData(4, np.int16)
        vals = coop.ThreadData(4, np.int64)
        for i in range(4):
            keys[i] = src[cuda.threadIdx.x * 4 + i]
            vals[i] = i
        coop.warp.merge_sort(keys, _less, values=vals, valid_items=n, threads_in_warp=width)
        for i in range(4):
            dst[cuda.threadIdx.x * 4 + i] = keys[i] + vals[i]

    compiled = numba_coop.compile(kernel, "void(int16[::1], int64[::1], int32)", block=64)
    report = _inlined(compiled.inspect())
    (size,) = [s for s, _ in compiled.temp_storage.values()]
    warps = 64 // width
    assert warps * width * 4 * 8 <= size <= warps * (width * 4 + 1) * 8 + 16 * warps
    # (at width 1 a lane sorts its own keys in registers, and the unused scratch is dropped)
    assert size <= _shared(report) <= size + 1024 or (width == 1 and _shared(report) == 0)
    assert "BAR.SYNC" not in report.sass  # __syncwarp, never __syncthreads


def test_a_comparator_is_a_bool_functor_apart_from_an_operator() -> None:
    """The same function as an operator and as a comparator: two extern "C" functions (the one
    returns T, the other bool), so neither's definition stands in for the other's."""
    from cuda.coop._catalog import CATALOG
    from cuda.coop._kinds import Arg, Form
    from cuda.coop._primitive import Launch
    from cuda.coop._render import render_requests

    td = Arg(Form.THREAD_DATA, "td", "float32", "float32", 2)
    fn = Arg(Form.FUNCTION, "f", function=_less)
    launch = Launch((64, 1, 1), "")
    sort = CATALOG["warp.merge_sort"].resolve({"keys": td, "op": fn}, launch)
    reduce = CATALOG["warp.reduce"].resolve({"x": td, "op": fn}, launch)
    (cmp,) = sort.operators.values()
    (op,) = reduce.operators.values()
    assert cmp.symbol != op.symbol and (cmp.result, op.result) == ("bool", "float32")
    source = render_requests([sort.request, reduce.request]).source
    assert "__device__ __forceinline__ bool operator()(const float& a, const float& b)" in source
    assert f"StableSort(keys, {cmp.symbol}_functor{{}})" in source
    assert f"Reduce(x, {op.symbol}_functor{{}})" in source


def _segmented_batched_kernel(width: int) -> Any:
    def kernel(src, dst, keys):  # type: ignore[no-untyped-def]
        t = cuda.threadIdx.x
        v = src[t]
        dst[t] = coop.warp.head_segmented_sum(v, keys[t] != keys[t - 1], threads_in_warp=width)
        dst[t + 128] = coop.warp.tail_segmented_reduce(v, keys[t] & 1, "max", threads_in_warp=width)
        dst[t + 256] = coop.warp.head_segmented_sum(v, True, threads_in_warp=width)
        items = coop.ThreadData(5, np.float32)
        for i in range(5):
            items[i] = src[t * 5 + i]
        out = coop.warp.batched_sum(items, arrangement="blocked", threads_in_warp=width)
        for i in range(len(out)):
            dst[t * 5 + 384 + i] = out[i]

    return kernel


@pytest.mark.parametrize("width", WIDTHS)
def test_segmented_and_batched_reductions_are_shuffles_without_shared_memory(width: int) -> None:
    """Head flags from a comparison (a boolean), tail flags from an integer; batched reduce returns
    ceil(5 / width) items per lane."""
    compiled = numba_coop.compile(
        _segmented_batched_kernel(width), "void(float32[::1], float32[::1], int32[::1])", block=128
    )
    report = _inlined(compiled.inspect())
    assert _shared(report) == 0, report.summary()
    assert not compiled.temp_storage
    assert len(re.findall(r"\bSHFL\.", report.sass)) > 0 or width == 1


def test_segmented_and_batched_reductions_cute() -> None:
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    import cuda.coop.cutlass as cutlass_coop
    import cutlass
    from cutlass.cute.runtime import make_fake_compact_tensor

    source = """
import cutlass
import cutlass.cute as cute
from cuda import coop


@cute.kernel
def kernel(src: cute.Tensor, dst: cute.Tensor, keys: cute.Tensor):
    t, _, _ = cute.arch.thread_idx()
    v = src[t]
    dst[t] = coop.warp.head_segmented_sum(v, keys[t] != keys[t + 1], threads_in_warp=16)
    dst[t + 128] = coop.warp.tail_segmented_reduce(v, keys[t] & 1, "max", threads_in_warp=8)
    dst[t + 256] = coop.warp.tail_segmented_sum(v, True)
    items = coop.ThreadData(5, cutlass.Float32)
    for i in cutlass.range_constexpr(5):
        items[i] = src[t * 5 + i]
    out = coop.warp.batched_reduce(items, "max", sync_physical_warp=True, threads_in_warp=4)
    for i in cutlass.range_constexpr(2):
        dst[t * 2 + 384 + i] = out[i]


@cute.jit
def host(src: cute.Tensor, dst: cute.Tensor, keys: cute.Tensor):
    kernel(src, dst, keys).launch(grid=(1, 1, 1), block=(128, 1, 1))
"""
    module = load("aot_warp_cute_segmented_batched", source)
    fake = [
        make_fake_compact_tensor(t, (1024,), assumed_align=16)
        for t in (cutlass.Float32,) * 2 + (cutlass.Int32,)
    ]
    report = _inlined(cutlass_coop.compile(module.host, *fake).inspect())
    assert _shared(report) == 0, report.summary()
    assert len(re.findall(r"\bSHFL\.", report.sass)) > 0
