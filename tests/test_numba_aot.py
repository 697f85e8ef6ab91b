# SPDX-License-Identifier: Apache-2.0
"""Ahead-of-time compile on a machine without a GPU: cubins whose SASS shows the primitives
fully inlined (one function, no CALL, no local memory, no provider symbol)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cuda.coop.numba as numba_coop
import numpy as np
import pytest
from cuda import coop
from cuda.coop._bundle import BUNDLE_PARTS
from numba import cuda

from ._kernels import copy_kernel, signature

ALGORITHMS = [a.value for a in coop.BlockLoadAlgorithm]


def _assert_max_not_sum(shared: int, sizes: list[int]) -> None:
    """The kernel's static shared memory holds the largest scratch, not all of them (the
    section also carries the 1 KiB that sm_90 reserves per block once shared memory is used)."""
    assert len(sizes) == 2
    assert shared in (max(sizes), max(sizes) + 1024), (shared, sizes)
    assert shared not in (sum(sizes), sum(sizes) + 1024), (shared, sizes)


def _assert_inlined(compiled: Any) -> Any:
    report = compiled.inspect()
    assert len(report.functions) == 1, report.functions
    assert report.calls == 0, report.sass
    assert report.local_loads == 0 and report.local_stores == 0, report.sass
    assert not report.leftover_symbols, report.leftover_symbols
    assert set(report.frame_bytes.values()) <= {0}
    return report


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_each_algorithm_inlines_completely(algorithm: str) -> None:
    before = coop.compile_stats().nvrtc_compiles
    compiled = numba_coop.compile(copy_kernel(algorithm=algorithm), signature(), block=128, arch="sm_90a")
    assert coop.compile_stats().nvrtc_compiles - before <= 1  # load and store share one NVRTC call
    assert compiled.output == "cubin" and compiled.arch == "sm_90a" and compiled.block == (128, 1, 1)
    report = _assert_inlined(compiled)
    assert report.thread_bounds == {report.functions[0]: ("maxntid", (128, 1, 1))}  # launch_bounds
    scratch = algorithm in ("transpose", "warp_transpose", "warp_transpose_timesliced")
    shared = next(iter(report.shared_bytes.values()))
    if scratch:
        # implicit scratch of load and store is one buffer: the larger of the two, not the sum
        _assert_max_not_sum(shared, [size for size, _ in compiled.temp_storage.values()])
    else:
        assert shared == 0 and compiled.temp_storage == {}


@pytest.mark.parametrize(
    ("dtype", "block", "ipt", "algorithm", "kwargs"),
    [
        ("float16", (4, 8, 4), 7, "warp_transpose", {"valid_items": 100, "oob_default": 1.5}),
        ("int8", (8, 16), 16, "transpose", {"valid_items": 3}),
        ("uint64", 96, 3, "vectorize", {"valid_items": 7, "oob_default": 2**64 - 1}),
        ("float64", 1024, 2, "striped", {}),
        ("int16", 32, 1, "warp_transpose_timesliced", {"valid_items": 0, "oob_default": -7}),
    ],
)
def test_shapes_dtypes_and_partial_tiles_inline(
    dtype: str, block: Any, ipt: int, algorithm: str, kwargs: dict[str, Any]
) -> None:
    kernel = copy_kernel(dtype, ipt, algorithm, **kwargs)
    _assert_inlined(numba_coop.compile(kernel, signature(dtype), block=block))


def test_one_nvrtc_call_per_kernel_and_none_when_warm() -> None:
    def kernel(src, dst):  # type: ignore[no-untyped-def]
        a = coop.ThreadData(4, np.int32)
        b = coop.ThreadData(4, np.int32)
        coop.block.load(src, a, algorithm="transpose")
        coop.block.load(src, b, offset=512, algorithm="vectorize", valid_items=100, oob_default=0)
        coop.block.store(dst, a, algorithm="striped")
        coop.block.store(dst, b, offset=512, algorithm="warp_transpose_timesliced", valid_items=100)
        coop.block.store(dst, b, offset=1024, algorithm="striped")  # a duplicate request

    before = coop.compile_stats()
    cold = numba_coop.compile(kernel, signature(), block=128)
    mid = coop.compile_stats()
    assert mid.nvrtc_compiles - before.nvrtc_compiles == 1
    warm = numba_coop.compile(kernel, signature(), block=128)
    after = coop.compile_stats()
    # warm: every object of the bundle read back (the glue and the units it linked cold)
    assert after.nvrtc_compiles == mid.nvrtc_compiles
    assert after.cache_hits - mid.cache_hits == len(warm.bundle_ltoir)
    assert len(warm.code) == len(cold.code)  # same code; Numba renames the kernel per compile
    assert warm.bundle_ltoir == cold.bundle_ltoir
    _assert_inlined(cold)


def test_block_shape_is_a_template_argument() -> None:
    kernel = copy_kernel(algorithm="transpose")
    a = numba_coop.compile(kernel, signature(), block=128)
    b = numba_coop.compile(kernel, signature(), block=(8, 32))
    assert a.code != b.code
    assert next(iter(a.inspect().shared_bytes.values())) < next(iter(b.inspect().shared_bytes.values()))


def test_algorithm_enum_members_in_kernel_code() -> None:
    def kernel(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(4, np.int32)
        coop.block.load(src, items, algorithm=coop.BlockLoadAlgorithm.VECTORIZE)
        coop.block.store(dst, items, algorithm=coop.BlockStoreAlgorithm.WARP_TRANSPOSE)

    compiled = numba_coop.compile(kernel, signature(), block=64)
    _assert_inlined(compiled)
    assert any("warp_transpose" in s for s in compiled.temp_storage)


def test_caller_temp_storage_is_shared() -> None:
    def kernel(src, dst):  # type: ignore[no-untyped-def]
        ts = coop.TempStorage()
        items = coop.ThreadData(8, np.float32)
        coop.block.load(src, items, algorithm="transpose", temp_storage=ts)
        cuda.syncthreads()
        coop.block.store(dst, items, algorithm="warp_transpose", temp_storage=ts)

    compiled = numba_coop.compile(kernel, signature("float32"), block=256)
    report = _assert_inlined(compiled)
    _assert_max_not_sum(
        next(iter(report.shared_bytes.values())), [s for s, _ in compiled.temp_storage.values()]
    )


def test_plain_numba_kernel_with_threads_per_block() -> None:
    def kernel(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(2, np.int32)
        coop.block.load(src, items, algorithm="warp_transpose", threads_per_block=(8, 16))
        coop.block.store(dst, items, algorithm="striped", threads_per_block=(8, 16))

    from cuda.coop.numba._numba_hooks import LazyBundle

    codes, _ = cuda.compile_all(kernel, signature(), device=False, abi="numba", output="ltoir", cc=(9, 0))
    # the kernel and its bundle's parts
    assert len(codes) == 1 + BUNDLE_PARTS and all(isinstance(c, LazyBundle) for c in codes[1:])
    assert [r.block_dims for r in codes[1].session.requests] == [(8, 16, 1)] * 2
    assert codes[1].session.finalize("sm_90").objects  # arch given: no driver needed


def test_outputs_ptx_and_ltoir() -> None:
    kernel = copy_kernel(algorithm="vectorize")
    ptx = numba_coop.compile(kernel, signature(), block=128, output="ptx")
    assert b".entry" in ptx.code and b"call" not in ptx.code and b"coop_block" not in ptx.code
    lto = numba_coop.compile(kernel, signature(), block=128, output="ltoir")
    assert lto.code and lto.bundle_ltoir and lto.code not in lto.bundle_ltoir
    with pytest.raises(coop.CoopValueError, match="inspect\\(\\) needs output='cubin'"):
        lto.inspect()


def test_jit_kernel_object_compiles_ahead_of_time() -> None:
    kernel = numba_coop.jit(copy_kernel(algorithm="striped"))
    assert isinstance(kernel, numba_coop.CoopKernel)
    _assert_inlined(numba_coop.compile(kernel, signature(), block=64, arch="sm_90"))


def test_compile_many_compiles_the_kernels_units_in_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cuda.coop import _bundle

    monkeypatch.setenv("CUDA_COOP_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(_bundle, "KERNELS_PER_UNIT", 1)  # a unit per kernel: two workers
    kernels = [copy_kernel("int64", 3, "transpose"), copy_kernel("float32", 4, "warp_transpose")]
    before = coop.compile_stats()
    many = numba_coop.compile_many(
        [
            {"func": kernels[0], "signature": signature("int64"), "block": 96},
            (kernels[1], signature("float32"), 64),
        ],
        processes=2,
    )
    assert coop.compile_stats().nvrtc_compiles - before.nvrtc_compiles == 2  # in the two workers
    assert [c.block for c in many] == [(96, 1, 1), (64, 1, 1)]
    for compiled in many:
        _assert_inlined(compiled)
    before = coop.compile_stats()
    again = numba_coop.compile(kernels[1], signature("float32"), block=64)
    assert coop.compile_stats().nvrtc_compiles == before.nvrtc_compiles  # the workers' unit
    assert again.bundle_ltoir == many[1].bundle_ltoir


def test_compile_many_refuses_a_malformed_kernel_naming_it() -> None:
    kernel = copy_kernel("int32", 2, "direct")
    with pytest.raises(coop.CoopTypeError, match="kernel 1 is a mapping without 'func'"):
        numba_coop.compile_many([(kernel, signature("int32"), 64), {"block": 64}])
    with pytest.raises(coop.CoopTypeError, match="kernel 0 is a str"):
        numba_coop.compile_many(["kernel"])


def test_compile_many_one_unit_for_a_group_links_the_same_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three kernels' new requests in one unit (one NVRTC call), each kernel linked against it: the
    same SASS, registers and shared memory as each compiled alone into an empty cache."""
    specs = [
        ("int64", 3, "transpose", 96),
        ("float32", 4, "warp_transpose", 64),
        ("int32", 2, "striped", 128),
    ]
    kernels = [copy_kernel(dtype, ipt, alg) for dtype, ipt, alg, _b in specs]
    monkeypatch.setenv("CUDA_COOP_CACHE_DIR", str(tmp_path / "many"))
    before = coop.compile_stats()
    many = numba_coop.compile_many(
        [(k, signature(dtype), block) for k, (dtype, _i, _a, block) in zip(kernels, specs, strict=True)]
    )
    assert coop.compile_stats().nvrtc_compiles - before.nvrtc_compiles == 1
    assert len({c.bundle_ltoir[1] for c in many}) == 1  # the one unit, after each kernel's glue
    for k, (dtype, _i, _a, block), grouped in zip(kernels, specs, many, strict=True):
        monkeypatch.setenv("CUDA_COOP_CACHE_DIR", str(tmp_path / f"alone-{dtype}"))
        alone = numba_coop.compile(k, signature(dtype), block=block).inspect()
        assert _code_of(grouped.inspect()) == _code_of(alone)
        _assert_inlined(grouped)


def _cluster_sum(src, dst):  # type: ignore[no-untyped-def]
    items = coop.ThreadData(4, np.float32)
    coop.block.load(src, items, algorithm="striped")
    items[0] = coop.cluster.sum(items)
    coop.block.store(dst, items, algorithm="striped")


def test_compile_many_keeps_each_kernels_cluster_rows_in_a_unit_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two cluster kernels among plain ones: their cluster rows (a state sized for the kernel) in a
    unit each, every other new request in the group's one unit: three NVRTC calls, all inlined."""
    monkeypatch.setenv("CUDA_COOP_CACHE_DIR", str(tmp_path))
    sig = signature("float32")
    before = coop.compile_stats()
    many = numba_coop.compile_many(
        [
            {"func": _cluster_sum, "signature": sig, "block": 128, "cluster": 2},
            (copy_kernel("int32", 2, "direct"), signature("int32"), 128),
            {"func": _cluster_sum, "signature": sig, "block": 128, "cluster": 4},
        ]
    )
    assert coop.compile_stats().nvrtc_compiles - before.nvrtc_compiles == 3
    assert [c.cluster for c in many] == [(2, 1, 1), None, (4, 1, 1)]
    (group,) = many[1].bundle_ltoir[1:]  # after the kernel's glue: the group's unit, its only one
    own = []
    for compiled in (many[0], many[2]):  # the glue, the group's unit, the kernel's cluster unit
        assert len(compiled.bundle_ltoir) == 3 and group in compiled.bundle_ltoir[1:]
        own += [o for o in compiled.bundle_ltoir[1:] if o != group]
    assert len(own) == 2 and own[0] != own[1]
    for compiled in many:
        _assert_inlined(compiled)


def _code_of(report: Any) -> tuple[str, list[int], list[int]]:
    """A cubin's SASS with its kernel's name left out (Numba numbers each compile of a function in its
    mangled name), registers and shared memory."""
    (name,) = report.functions
    return report.sass.replace(name, "kernel"), [report.registers[name]], [report.shared_bytes[name]]


def test_failed_bundle_compile_leaves_no_stale_state(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from cuda.coop import _bundle
    from cuda.coop._render import RenderedRequests

    monkeypatch.setenv("CUDA_COOP_CACHE_DIR", str(tmp_path))  # nothing to reuse: the unit is rendered
    kernel = copy_kernel("int64", 3, "transpose")
    monkeypatch.setattr(
        _bundle, "render_requests", lambda reqs: RenderedRequests("#error injected\n", {}, ())
    )
    with pytest.raises(coop.CoopCompileError, match="injected") as info:
        numba_coop.compile(kernel, signature("int64"), block=96)
    assert info.value.source_path.endswith(".cu")
    monkeypatch.undo()
    _assert_inlined(numba_coop.compile(kernel, signature("int64"), block=96))


def test_libdevice_math_next_to_coop_calls_links_and_inlines() -> None:
    """numba-cuda links libdevice itself: math.* next to coop calls leaves no CALL but ptxas's own
    IEEE division/sqrt slow paths (the CuTe side: tests/test_cutlass_math.py)."""
    import math

    @numba_coop.jit
    def rows(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(4, np.float32)
        base = cuda.blockIdx.x * 512
        coop.block.load(src, items, offset=base, algorithm="striped")
        top = coop.block.reduce(items, "max", broadcast=True)
        for i in range(4):
            x = items[i] - top
            y = math.exp(x) + math.sqrt(abs(x)) + math.sin(x)
            items[i] = y + math.erf(x) + math.tanh(x) + math.log1p(abs(x))
        total = coop.block.sum(items, broadcast=True)
        for i in range(4):
            items[i] = items[i] / total
        coop.block.store(dst, items, offset=base, algorithm="striped")

    compiled = numba_coop.compile(rows, "void(float32[::1], float32[::1])", block=128, arch="sm_90a")
    report = compiled.inspect()
    assert len(report.functions) == 1 and report.calls == 0, report.sass
    assert report.local_loads == 0 and report.local_stores == 0 and not report.leftover_symbols
    assert "__nv_" not in report.sass


def test_ptxas_float64_division_routine_counts_as_internal() -> None:
    """ptxas's float64 division (``$__internal_0_$__cuda_sm20_div_rn_f64_full``) is one of its own
    subroutines, as the float32 slow paths are: ``internal_calls``, not ``calls``."""

    @numba_coop.jit
    def mean(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(2, np.float64)
        coop.block.load(src, items, offset=cuda.blockIdx.x * 256)
        total = coop.block.sum(items)
        if cuda.threadIdx.x == 0:
            dst[cuda.blockIdx.x] = total / src[0]

    report = numba_coop.compile(mean, "void(float64[::1], float64[::1])", block=128).inspect()
    assert "_div_rn_f64" in report.sass and report.internal_calls >= 1
    assert report.calls == 0, report.sass


HALF_OOB = np.float16(3)


def test_a_module_level_float16_constant_as_oob_default() -> None:
    @numba_coop.jit
    def k(src, dst, n):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(4, np.float16)
        coop.block.load(src, items, valid_items=n, oob_default=HALF_OOB)
        coop.block.store(dst, items)

    sig = "void(float16[::1], float16[::1], int32)"
    _assert_inlined(numba_coop.compile(k, sig, block=128, arch="sm_90a"))
