# SPDX-License-Identifier: Apache-2.0
"""The numba-cuda-mlir backend ahead of time, without a GPU: kernels written as for cuda.coop.numba,
with ``from numba_cuda_mlir import cuda``, compile for sm_90a with the primitives fully inlined (one
function, no CALL, no local memory) and one NVRTC call per kernel."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

ncm = pytest.importorskip("numba_cuda_mlir", reason="numba-cuda-mlir is not installed")

import cuda.coop.numba_mlir as ncoop  # noqa: E402
from cuda import coop  # noqa: E402
from numba_cuda_mlir import cuda  # noqa: E402
from numba_cuda_mlir.numba_cuda import types  # noqa: E402

F32, F64, I32, U32, I8, F16 = (
    types.float32[::1],
    types.float64[::1],
    types.int32[::1],
    types.uint32[::1],
    types.int8[::1],
    types.float16[::1],
)


def load_store(src, dst):  # type: ignore[no-untyped-def]
    items = coop.ThreadData(4, np.float32)
    coop.block.load(src, items, algorithm="vectorize")
    coop.block.store(dst, items, algorithm="striped")


def partial(src, dst, n):  # type: ignore[no-untyped-def]
    items = coop.ThreadData(3, np.float16)
    coop.block.load(src, items, valid_items=n, oob_default=1.5)
    coop.block.store(dst, items, valid_items=n)


def block_reduce(src, dst):  # type: ignore[no-untyped-def]
    i = cuda.threadIdx.x
    s = coop.block.reduce(src[i], "sum")
    if i == 0:
        dst[0] = s


def absmax(a, b):  # type: ignore[no-untyped-def]
    return max(abs(a), abs(b))


def user_operator(src, dst):  # type: ignore[no-untyped-def]
    i = cuda.threadIdx.x
    s = coop.block.reduce(src[i], absmax)
    if i == 0:
        dst[0] = s


def amax(a, b):  # type: ignore[no-untyped-def]
    return a if a[0] >= b[0] else b


def argmax(v, idx, out_v, out_i):  # type: ignore[no-untyped-def]
    i = cuda.threadIdx.x
    best = coop.block.reduce((v[i], idx[i]), amax)
    if i == 0:
        out_v[0] = best[0]
        out_i[0] = best[1]


def scan_aggregate(src, dst, total):  # type: ignore[no-untyped-def]
    items = coop.ThreadData(4, np.int32)
    coop.block.load(src, items)
    out, aggregate = coop.block.exclusive_sum(items, block_aggregate=True)
    coop.block.store(dst, out)
    if cuda.threadIdx.x == 0:
        total[0] = aggregate


def tuple_scan(a, b, oa, ob):  # type: ignore[no-untyped-def]
    xa = coop.ThreadData(2, np.float32)
    xb = coop.ThreadData(2, np.int32)
    coop.block.load((a, b), (xa, xb))
    ya, yb = coop.block.inclusive_scan((xa, xb), "sum")
    coop.block.store((oa, ob), (ya, yb))


def radix_sort_pairs(k, v, ok, ov):  # type: ignore[no-untyped-def]
    keys = coop.ThreadData(4, np.uint32)
    vals = coop.ThreadData(4, np.float32)
    coop.block.load(k, keys)
    coop.block.load(v, vals)
    coop.block.radix_sort(keys, values=vals, descending=True)
    coop.block.store(ok, keys)
    coop.block.store(ov, vals)


def merge_sort(src, dst):  # type: ignore[no-untyped-def]
    items = coop.ThreadData(4, np.float32)
    coop.block.load(src, items)
    coop.block.merge_sort(items, "less")
    coop.block.store(dst, items)


def exchange(src, dst):  # type: ignore[no-untyped-def]
    items = coop.ThreadData(8, np.int8)
    coop.block.load(src, items, algorithm="direct")
    coop.block.exchange(items, mode="blocked_to_striped")
    coop.block.store(dst, items, algorithm="direct")


def warp_reduce(src, dst):  # type: ignore[no-untyped-def]
    i = cuda.threadIdx.x
    dst[i] = coop.warp.reduce(src[i], "max")


def temp_storage(src, dst):  # type: ignore[no-untyped-def]
    ts = coop.TempStorage(auto_sync=True)
    items = coop.ThreadData(4, np.int32)
    coop.block.load(src, items, algorithm="transpose", temp_storage=ts)
    out = coop.block.inclusive_sum(items, temp_storage=ts)
    coop.block.store(dst, out, algorithm="transpose", temp_storage=ts)


def temp_storage_exclusive(src, dst):  # type: ignore[no-untyped-def]
    ts = coop.TempStorage(sharing="exclusive")
    items = coop.ThreadData(4, np.int32)
    coop.block.load(src, items, algorithm="transpose", temp_storage=ts)
    out = coop.block.inclusive_sum(items, temp_storage=ts)
    coop.block.store(dst, out, algorithm="transpose", temp_storage=ts)


def complex_sum_and_product(src, dst):  # type: ignore[no-untyped-def]
    items = coop.ThreadData(2, np.complex64)
    coop.block.load(src, items)
    s = coop.block.reduce(items, "sum")
    out = coop.block.inclusive_scan(items, "complex_mul")
    coop.block.store(dst, out)
    if cuda.threadIdx.x == 0:
        dst[0] = s


CASES: list[tuple[Any, tuple[Any, ...], Any]] = [
    (load_store, (F32, F32), 128),
    (partial, (F16, F16, types.int32), (32, 4)),
    (block_reduce, (F32, F32), 256),
    (user_operator, (F32, F32), 128),
    (argmax, (F32, I32, F32, I32), 128),
    (scan_aggregate, (I32, I32, I32), 128),
    (tuple_scan, (F32, I32, F32, I32), 64),
    (radix_sort_pairs, (U32, F32, U32, F32), 128),
    (merge_sort, (F32, F32), 128),
    (exchange, (I8, I8), (16, 8)),
    (warp_reduce, (F64, F64), 32),
    (temp_storage, (I32, I32), 128),
    (temp_storage_exclusive, (I32, I32), 128),
    (complex_sum_and_product, (types.complex64[::1], types.complex64[::1]), 64),
]


@pytest.mark.parametrize(("kernel", "sig", "block"), CASES, ids=[c[0].__name__ for c in CASES])
def test_inlines_completely(kernel: Any, sig: tuple[Any, ...], block: Any) -> None:
    before = coop.compile_stats().nvrtc_compiles
    compiled = ncoop.compile(kernel, sig, block=block, arch="sm_90a")
    assert coop.compile_stats().nvrtc_compiles - before <= 1  # one bundle, one NVRTC call
    report = compiled.inspect()
    assert len(report.functions) == 1, report.functions
    assert report.calls == 0, report.sass
    assert report.local_loads == 0 and report.local_stores == 0, report.sass
    assert not report.leftover_symbols, report.leftover_symbols
    assert compiled.arch == "sm_90a" and compiled.bundle_ltoir


def test_registered_and_namespace() -> None:
    assert "numba_mlir" in coop.registered_backends()
    assert ncoop.ThreadData is coop.ThreadData and ncoop.block is coop.block


def test_compile_needs_block() -> None:
    with pytest.raises(coop.CoopTypeError, match="block="):
        ncoop.compile(load_store, (F32, F32), arch="sm_90a")


def test_jit_kernel_compiles_ahead_of_time_with_its_options() -> None:
    kernel = ncoop.jit(load_store, max_registers=64)
    assert isinstance(kernel, ncoop.CoopKernel) and kernel.__name__ == "load_store"
    report = ncoop.compile(kernel, (F32, F32), block=64, arch="sm_90a").inspect()
    assert report.calls == 0 and report.local_loads == 0


@pytest.mark.parametrize("level", [1, 2, 3])
def test_every_optimising_opt_level_links_and_inlines(level: int) -> None:
    """numba-cuda-mlir hands ``opt_level`` to nvJitLink, which takes -O0 and -O3 only: coop's links
    run levels 1 and 2 at -O3 (they failed with ERROR_UNRECOGNIZED_OPTION). (At 0 nothing is inlined,
    as with numba-cuda's debug builds.)"""
    report = ncoop.compile(load_store, (F32, F32), block=128, arch="sm_90a", opt_level=level).inspect()
    assert report.calls == 0 and report.leftover_symbols == ()


def add_one(dst):  # type: ignore[no-untyped-def]
    dst[cuda.threadIdx.x] += 1


def test_compile_many_compiles_the_units_in_workers(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, units_to_workers: list[int]
) -> None:
    """compile_many lowers each kernel up to its link, the new units are compiled by two worker
    processes, then each kernel compiles to the end, its units read back: the same cubin as
    ``compile`` of it; a kernel without coop calls compiles in the first pass."""
    monkeypatch.setenv("CUDA_COOP_CACHE_DIR", str(tmp_path))
    before = coop.compile_stats()
    many = ncoop.compile_many(
        [
            (load_store, (F32, F32), 128),
            {"func": scan_aggregate, "signature": (I32, I32, I32), "block": 96, "output": "ptx"},
            (add_one, (F32,), 64),
            {
                "func": ncoop.jit(radix_sort_pairs, max_registers=64),
                "signature": (U32, F32, U32, F32),
                "block": 64,
            },
        ],
        processes=2,
    )
    after = coop.compile_stats()
    assert units_to_workers == [2]  # two groups' units: none was compiled while lowering
    assert after.nvrtc_compiles - before.nvrtc_compiles == 2  # two units, in the workers
    assert after.cache_hits - before.cache_hits >= 3  # each kernel read its unit back
    assert [c.output for c in many] == ["cubin", "ptx", "cubin", "cubin"]
    assert [c.block for c in many] == [(128, 1, 1), (96, 1, 1), (64, 1, 1), (64, 1, 1)]
    assert many[2].bundle_ltoir == () and many[1].bundle_ltoir
    for compiled in (many[0], many[3]):
        report = compiled.inspect()
        assert report.calls == 0 and report.local_loads == 0 and report.local_stores == 0, report.sass
        assert not report.leftover_symbols
    assert "call.uni" not in many[1].code.decode()
    before = coop.compile_stats()
    again = ncoop.compile(load_store, (F32, F32), block=128, arch="sm_90a")
    assert coop.compile_stats().nvrtc_compiles == before.nvrtc_compiles
    assert again.code == many[0].code


def cluster_sum(src, dst):  # type: ignore[no-untyped-def]
    items = coop.ThreadData(4, np.float32)
    coop.block.load(src, items, algorithm="striped")
    items[0] = coop.cluster.sum(items)
    coop.block.store(dst, items, algorithm="striped")


def test_compile_many_with_a_cluster_kernel(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cluster kernel's rows in a unit of its own, the other new requests in the group's one unit;
    each kernel inlined, the cluster one specialised for its cluster."""
    monkeypatch.setenv("CUDA_COOP_CACHE_DIR", str(tmp_path))
    before = coop.compile_stats()
    many = ncoop.compile_many(
        [
            {"func": cluster_sum, "signature": (F32, F32), "block": 128, "cluster": 2},
            (load_store, (F32, F32), 64),
        ]
    )
    assert coop.compile_stats().nvrtc_compiles - before.nvrtc_compiles == 2
    assert [c.cluster for c in many] == [(2, 1, 1), None]
    for compiled in many:
        report = compiled.inspect()
        assert report.calls == 0 and report.local_loads == 0 and report.local_stores == 0, report.sass
    assert "UCGABAR_ARV" in many[0].inspect().sass  # the cluster's barrier, at the kernel's start


def test_compile_many_refuses_a_malformed_kernel_naming_it() -> None:
    with pytest.raises(coop.CoopTypeError, match="kernel 1 is a mapping without 'func'"):
        ncoop.compile_many([(load_store, (F32, F32), 128), {"block": 64}])
    with pytest.raises(coop.CoopTypeError, match="kernel 0 is a tuple of 2"):
        ncoop.compile_many([(load_store, (F32, F32))])


def test_jit_config_is_checked() -> None:
    kernel = ncoop.jit(load_store)
    with pytest.raises(coop.CoopTypeError, match="config takes"):
        kernel[1]


GRID_CONFIGS = [
    "compute-float32-96x1x1-3",
    "compute-uint16-8x16x1-16",
    "exchange-int16-8x16x1-4",
    "compute-float64-128x1x1-16",
    "exchange-bfloat16-1024x1x1-1",
]


@pytest.mark.parametrize("cfg_id", GRID_CONFIGS)
def test_numba_compute_grid_kernels_compile_unchanged(cfg_id: str) -> None:
    """The Numba backend's compute grid kernels (every block primitive, many cases to a kernel), with
    only the import changed, compile under numba-cuda-mlir: one bundle, inlined, no local memory."""
    import numba_cuda_mlir.types as ncm_types

    from ._compute_cases import Config, cases, configs
    from ._compute_kernels import load, numba_signature, numba_source

    by_id = {
        c.id: c
        for c in [
            *configs(),
            Config("compute", "float32", (96, 1, 1), 3),
            Config("exchange", "int16", (8, 16, 1), 4),
        ]
    }
    cfg = by_id[cfg_id]
    source = numba_source(cfg, cases(cfg)).replace(
        "from numba import cuda", "from numba_cuda_mlir import cuda"
    )
    module = load(f"ncm_{cfg.family}_{cfg.dtype}", source)
    arr = (ncm_types.bf16 if cfg.dtype == "bfloat16" else getattr(types, cfg.dtype))[::1]
    sig = numba_signature(types, arr)
    before = coop.compile_stats().nvrtc_compiles
    report = ncoop.compile(module.kernel, sig, block=cfg.block, arch="sm_90a").inspect()
    assert coop.compile_stats().nvrtc_compiles - before <= 1
    assert len(report.functions) == 1 and report.calls == 0, report.sass
    assert report.local_loads == 0 and report.local_stores == 0, report.sass


def test_operator_defined_in_the_kernel_is_refused_naming_the_line() -> None:
    def kernel(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(4, np.float32)
        coop.block.load(src, items)
        coop.block.merge_sort(items, lambda a, b: a > b)
        coop.block.store(dst, items)

    with pytest.raises(
        coop.CoopTypeError, match=r"test_numba_mlir_aot.py:\d+: coop.block.merge_sort: .*module level"
    ):
        ncoop.compile(kernel, (F32, F32), block=128, arch="sm_90a")


def test_records_are_refused_as_not_yet() -> None:
    rec = np.dtype([("v", np.float32), ("i", np.int32)], align=True)

    def kernel(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(2, rec)
        coop.block.load(src, items)
        coop.block.store(dst, items)

    from numba_cuda_mlir.numba_cuda.np.numpy_support import from_dtype

    arr = from_dtype(rec)[::1]
    with pytest.raises(coop.CoopError, match="record"):
        ncoop.compile(kernel, (arr, arr), block=64, arch="sm_90a")


def test_prepare_checks_its_arguments_before_compiling() -> None:
    with pytest.raises(coop.CoopTypeError, match="takes the kernel's 2 arguments"):
        ncoop.jit(load_store).prepare((1,), (128,))
    with pytest.raises(coop.CoopTypeError, match=r"argument 0 \(src\).*host memory"):
        ncoop.jit(load_store).prepare(1, 128, np.zeros(4, np.float32), np.zeros(4, np.float32))


def _ncm_source(source: str) -> str:
    return source.replace("from numba import cuda", "from numba_cuda_mlir import cuda")


WARP_CONFIGS = [
    ("compute", "float32", (96, 1, 1), 8, 3),
    ("tile", "int16", (8, 16, 1), 4, 4),
    ("sort", "uint64", (4, 8, 4), 32, 2),
    ("batched", "float32", (64, 1, 1), 8, 9),
    ("compute", "float64", (8, 5, 1), 8, 2),  # blocks ending in a partial hardware warp
]


@pytest.mark.parametrize("spec", WARP_CONFIGS, ids=lambda s: "-".join(map(str, s)))
def test_numba_warp_grid_kernels_compile_unchanged(spec: tuple[Any, ...]) -> None:
    """The Numba backend's warp grid kernels (logical warps, partial hardware warps), with only the
    import changed."""
    from ._compute_kernels import load
    from ._warp_cases import Config, cases
    from ._warp_kernels import numba_source

    cfg = Config(*spec)
    module = load(f"ncm_warp_{cfg.id.replace('-', '_')}", _ncm_source(numba_source(cfg, cases(cfg))))
    arr, i32 = getattr(types, cfg.dtype)[::1], types.int32[::1]
    sig = (arr, arr, arr, arr, i32, i32, arr, types.int32, types.int32, types.int32)
    report = ncoop.compile(module.kernel, sig, block=cfg.block, arch="sm_90a").inspect()
    assert len(report.functions) == 1 and report.calls == 0, report.sass
    assert report.local_loads == 0 and report.local_stores == 0, report.sass


def _sort_configs() -> list[Any]:
    from ._sort_cases import configs

    return [c for c in configs() if c.key in ("float32", "int32") or c.id.startswith("rank-uint32")]


@pytest.mark.parametrize("cfg", _sort_configs(), ids=lambda c: c.id)
def test_numba_sort_grid_kernels_compile_unchanged(cfg: Any) -> None:
    """The Numba backend's sort grid kernels (radix sort and rank, merge sort, histogram, ...)."""
    from ._compute_kernels import load
    from ._sort_cases import cases
    from ._sort_kernels import numba_source

    module = load(f"ncm_sort_{cfg.id.replace('-', '_')}", _ncm_source(numba_source(cfg, cases(cfg))))
    k, v = getattr(types, cfg.key)[::1], getattr(types, cfg.value)[::1]
    sig = (k, v, k, v, types.int32[::1], types.int32, types.int32, types.int32, types.int32)
    report = ncoop.compile(module.kernel, sig, block=cfg.block, arch="sm_90a").inspect()
    assert len(report.functions) == 1 and report.calls == 0, report.sass
    assert report.local_loads == 0 and report.local_stores == 0, report.sass


def test_numba_cuda_and_numba_cuda_mlir_in_one_process() -> None:
    """With both installed, each kernel goes to the DSL compiling it: the same function compiles
    under numba-cuda and under numba-cuda-mlir, one after the other and back."""
    pytest.importorskip("numba.cuda", reason="numba-cuda is not installed")
    import cuda.coop.numba as numba_coop

    sig = "void(float32[::1], float32[::1])"
    for compile_ in (ncoop.compile, numba_coop.compile, ncoop.compile):
        report = compile_(load_store, sig, block=128, arch="sm_90a").inspect()
        assert report.calls == 0 and report.local_loads == 0
    assert {"numba", "numba_mlir"} <= set(coop.registered_backends())


def test_plain_numba_cuda_mlir_kernel_with_threads_per_block() -> None:
    """A plain ``numba_cuda_mlir.cuda.jit`` kernel whose calls name their block size links its own
    bundle (no front door)."""

    def kernel(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(2, np.int32)
        coop.block.load(src, items, algorithm="warp_transpose", threads_per_block=(8, 16))
        coop.block.store(dst, items, algorithm="striped", threads_per_block=(8, 16))

    from cuda.coop._backend_api import inspect_cubin
    from cuda.coop.numba_mlir import _ncm_hooks

    with _ncm_hooks.compute_capability((9, 0)):
        result = cuda.jit(kernel, chip="sm_90a").compile((I32, I32))
    report = inspect_cubin(bytes(result.metadata["cubin"]))
    assert len(report.functions) == 1 and report.calls == 0 and report.local_loads == 0, report.sass


def test_plain_kernel_without_block_size_is_refused() -> None:
    def kernel(src, dst):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(2, np.int32)
        coop.block.load(src, items)

    from cuda.coop.numba_mlir import _ncm_hooks

    with _ncm_hooks.compute_capability((9, 0)), pytest.raises(Exception, match="threads_per_block"):
        cuda.jit(kernel, chip="sm_90a").compile((I32, I32))


def test_outputs_ptx_and_ltoir() -> None:
    ptx = ncoop.compile(load_store, (F32, F32), block=128, arch="sm_90a", output="ptx")
    assert ptx.output == "ptx" and b".entry" in ptx.code and b"call" not in ptx.code
    ltoir = ncoop.compile(load_store, (F32, F32), block=128, arch="sm_90a", output="ltoir")
    assert ltoir.output == "ltoir" and ltoir.code[:4] == b"\xedCN\x7f" and ltoir.bundle_ltoir
    with pytest.raises(coop.CoopValueError, match="output"):
        ncoop.compile(load_store, (F32, F32), block=128, output="sass")


def _half_sum(x, out):  # type: ignore[no-untyped-def]
    r = coop.block.sum(x[cuda.threadIdx.x])
    if cuda.threadIdx.x == 0:
        out[cuda.blockIdx.x] = r


def test_results_of_types_stored_as_others_are_their_values() -> None:
    """numba-cuda-mlir stores float16 as i16 (bool as i8): a coop call's scalar result read from
    its storage is converted as storage, not as a number (float16 results came back as their bits
    converted to float, 1.0 as 15360.0, on the H200)."""
    t = types.float16[::1]
    ptx = ncoop.compile(_half_sum, (t, t), block=64, arch="sm_90a", output="ptx").code.decode()
    assert "cvt.rn.f16.s16" not in ptx and "cvt.rn.f16.u16" not in ptx, ptx


@pytest.mark.parametrize(
    ("block", "cap"), [((1024, 1, 1), 64), ((32, 32, 1), 64), ((768, 1, 1), 80), ((640, 1, 1), 96),
                       ((512, 1, 1), 128), ((256, 1, 1), None), ((96, 1, 1), None), ((36, 1, 1), None)],
)  # fmt: skip
def test_registers_capped_so_that_the_block_launches(block: tuple[int, int, int], cap: int | None) -> None:
    from cuda.coop.numba_mlir._dispatcher import jit_options, register_cap

    assert register_cap(block) == cap
    opts = jit_options({}, block, "sm_90a")
    assert opts.get("max_registers") == cap and opts["lto"] is True and opts["chip"] == "sm_90a"
    for given in ({"launch_bounds": 1024}, {"max_registers": 40}):  # the user's choice stands
        assert jit_options(given, block, "sm_90a").get("max_registers") == given.get("max_registers")


def test_a_1024_thread_kernel_fits_the_block_registers() -> None:
    """The compute grid's uint8 kernel at 1024 threads took 95 registers uncapped (launch refused:
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES on the H200); capped, at most 64."""
    from ._compute_cases import Config, cases
    from ._compute_kernels import load, numba_signature, numba_source

    cfg = Config("compute", "uint8", (1024, 1, 1), 7)
    source = numba_source(cfg, cases(cfg)).replace(
        "from numba import cuda", "from numba_cuda_mlir import cuda"
    )
    module = load("ncm_compute_uint8_1024_cap", source)
    sig = numba_signature(types, types.uint8[::1])
    report = ncoop.compile(module.kernel, sig, block=cfg.block, arch="sm_90a").inspect()
    assert max(report.registers.values()) <= 64, report.registers


def test_torch_like_arrays_reach_the_launcher_through_their_interface() -> None:
    """numba-cuda-mlir 0.6's launcher reads ``arg.dtype`` as a NumPy dtype; an array whose dtype is
    not one (torch's) is handed over as its ``__cuda_array_interface__`` alone (no dtype to misread;
    no device array made per launch)."""
    from cuda.coop.numba_mlir import _launch
    from numba_cuda_mlir import descriptor

    class TorchLike:
        dtype = "torch.float32"  # not a NumPy dtype
        __cuda_array_interface__ = {"shape": (4,), "typestr": "<f4", "data": (0, False), "version": 2}

    plain = np.zeros(3, np.float32)
    assert _launch.launchable(plain) is plain
    assert _launch.launchable(5) == 5
    thing = TorchLike()
    view = _launch.launchable(thing)
    assert view.__cuda_array_interface__ is TorchLike.__cuda_array_interface__
    assert not hasattr(view, "dtype")
    # what the launcher's own readers then see (numba-cuda-mlir 0.6's helpers)
    assert descriptor._array_dtype(view) == np.float32
    assert descriptor._array_shape(view) == (4,)


def test_current_arch_is_arch_specific_from_sm_90() -> None:
    from cuda.coop.numba_mlir import _ncm_hooks

    for cc, arch in (((9, 0), "sm_90a"), ((10, 0), "sm_100a"), ((8, 9), "sm_89")):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(_ncm_hooks.tools, "get_gpu_compute_capability", lambda _t, cc=cc: cc)
            assert _ncm_hooks.current_arch() == arch


def _shared_max(a, b):  # type: ignore[no-untyped-def]
    return a if a > b else b


def _reduce_with_shared_max(cuda_module: Any) -> Any:
    """The same kernel under the DSL of ``cuda_module``, its operator ``_shared_max``."""
    scope = {"cuda": cuda_module, "coop": coop, "_shared_max": _shared_max}
    exec(
        "def kernel(src, dst):\n"
        "    dst[cuda.blockIdx.x] = coop.block.reduce(src[cuda.threadIdx.x], _shared_max)\n",
        scope,
    )
    return scope["kernel"]


def test_one_operator_function_in_kernels_of_both_numba_dsls() -> None:
    """A plain function used as an operator under numba-cuda and then under numba-cuda-mlir (and
    back): each DSL types it with its own type (a ``_numba_type_`` attribute held numba-cuda's, and
    numba-cuda-mlir's type inference failed an assertion on it); nothing is written to it."""
    pytest.importorskip("numba.cuda", reason="numba-cuda is not installed")
    import cuda.coop.numba as numba_coop
    from numba import cuda as numba_cuda

    sig = "void(int32[::1], int32[::1])"
    for compile_, module in ((numba_coop.compile, numba_cuda), (ncoop.compile, cuda)) * 2:
        report = compile_(_reduce_with_shared_max(module), sig, block=64, arch="sm_90a").inspect()
        assert report.calls == 0 and report.local_loads == 0
    assert "_numba_type_" not in vars(_shared_max)


def test_compiles_started_by_the_launcher_see_the_block(monkeypatch: pytest.MonkeyPatch) -> None:
    """numba-cuda-mlir compiles inside its launcher (``MLIRDispatcher._compile_impl``, on argument
    types with no overload yet): that compile, and only it, runs in a coop compile context of the
    dispatcher's block and cluster, each with a session of its own; a launch that finds its overload
    enters none (the front door no longer wraps every launch)."""
    from cuda.coop._session import current
    from numba_cuda_mlir.descriptor import MLIRDispatcher

    seen = []

    def fake_compile_impl(self, args, *rest):  # type: ignore[no-untyped-def]
        c = current()
        seen.append((c.block_dims, c.cluster_dims, c.session) if c is not None else None)
        return "compiled"

    monkeypatch.setattr(MLIRDispatcher, "_compile_impl", fake_compile_impl)
    kernel = ncoop.jit(load_store, chip="sm_90a")  # no GPU here: the target given
    disp = kernel.for_block((96, 2), cluster=2)
    assert kernel.for_block((96, 2, 1), cluster=(2, 1, 1)) is disp
    assert current() is None
    assert disp._compile_impl([None, None]) == "compiled"
    assert disp._compile_impl([None, None]) == "compiled"
    assert current() is None
    assert [s[:2] for s in seen] == [((96, 2, 1), (2, 1, 1))] * 2
    assert seen[0][2] is not seen[1][2], "each compile gets a session of its own"
