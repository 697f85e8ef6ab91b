# SPDX-License-Identifier: Apache-2.0
"""The CUTLASS backend without a GPU (CUTE_DSL_ARCH=sm_90a): the bridge links the bundle into
CuTe kernels by full LTO, and misuse raises typed errors while the kernel is traced."""

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")

import cuda.coop.cutlass as cutlass_coop  # noqa: E402
import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402
from cuda import coop  # noqa: E402

from ._cute_kernels import ALGORITHMS, TWO_KERNEL_TILE, copy_host, fake_tensor, two_kernel_host  # noqa: E402

N = 4 * 1024 * 16


def _inlined(compiled: Any) -> Any:
    report = compiled.inspect()
    assert len(report.functions) == 1, report.functions
    assert report.calls == 0 and report.local_loads == 0 and report.local_stores == 0, report.sass
    assert not report.leftover_symbols
    return report


def _compile(host: Any, dtype: str = "int32") -> Any:
    return cutlass_coop.compile(host, fake_tensor(dtype, N), fake_tensor(dtype, N))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_each_algorithm_inlines_completely(algorithm: str) -> None:
    before = coop.compile_stats().nvrtc_compiles
    compiled = _compile(copy_host("int32", (128, 1, 1), 4, algorithm))
    assert coop.compile_stats().nvrtc_compiles - before <= 1
    assert len(compiled.symbols) == 2 and compiled.arch == "sm_90a"
    report = _inlined(compiled)
    shared = next(iter(report.shared_bytes.values()))
    assert (shared > 0) == ("transpose" in algorithm)
    assert report.thread_bounds == {report.functions[0]: ("maxntid", (128, 1, 1))}


def test_kernels_declare_their_block_size_as_cub_kernels_do() -> None:
    """CuTe says `.reqntid`; the bridge links `.maxntid` (CUB's __launch_bounds__), under which
    ptxas keeps CUB's timesliced exchanges as branches (0.60x -> 1.0x of CUB C++ on the H200)."""
    report = _compile(copy_host("int32", (8, 16, 2), 4, "warp_transpose_timesliced")).inspect()
    assert report.thread_bounds == {report.functions[0]: ("maxntid", (8, 16, 2))}


def _row_cumsum_host(threads: int, items: int, row: int) -> Any:
    """benchmarks/compute.py's row cumsum: one block per row, tiles in a loop, the running total
    carried by inclusive_sum's prefix_op."""
    tile = threads * items

    @cute.kernel
    def kernel(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        bidx, _, _ = cute.arch.block_idx()
        running = coop.ThreadData(1, cutlass.Float32)
        running[0] = cutlass.Float32(0.0)
        buf = coop.ThreadData(items, cutlass.Float32)
        for t in cutlass.range(row // tile):
            base = bidx * row + t * tile
            coop.block.load(src, buf, offset=base, algorithm="warp_transpose")
            out = coop.block.inclusive_sum(buf, prefix_op=running)
            coop.block.store(dst, out, offset=base, algorithm="warp_transpose")

    @cute.jit
    def host(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        kernel(src, dst).launch(grid=(cute.size(src) // row, 1, 1), block=(threads, 1, 1))

    return host


def test_ptxas_sees_the_kernel_under_a_name_without_cutlass() -> None:
    """ptxas allocates registers differently for a kernel whose name contains "cutlass", which CuTe
    puts in every kernel's name: the row cumsum at 512 x 8 took 81 registers (one block per SM) where
    Numba's and CUB C++'s took 64 (two), and ran at 0.69x of them on the H200. The bridge links the
    kernel under a respelled name and gives the cubin the kernel's own name back."""
    row = 1 << 16
    compiled = cutlass_coop.compile(
        _row_cumsum_host(512, 8, row), fake_tensor("float32", 4 * row), fake_tensor("float32", 4 * row)
    )
    report = _inlined(compiled)
    (name,) = report.functions
    assert name.startswith("kernel_cutlass_") and b"cvtlass" not in compiled.cubin
    registers = -(-report.registers[name] // 8) * 8  # allocated per thread in steps of 8
    assert 2 * 512 * registers <= 65536, f"{report.registers[name]} registers: one 512-thread block per SM"


@pytest.mark.parametrize(
    ("dtype", "block", "ipt", "algorithm", "kwargs"),
    [
        ("bfloat16", (8, 16, 1), 3, "warp_transpose", {"valid_items": 100, "oob_default": 1.5}),
        ("int8", (4, 8, 4), 16, "transpose", {"valid_items": 7}),
        ("uint64", (96, 1, 1), 1, "vectorize", {"valid_items": 5, "oob_default": 2**64 - 1}),
        ("float64", (1024, 1, 1), 2, "striped", {}),
        ("float16", (32, 1, 1), 7, "warp_transpose_timesliced", {"valid_items": 0, "oob_default": -7.0}),
    ],
)
def test_shapes_dtypes_and_partial_tiles_inline(dtype: str, block: Any, ipt: int, algorithm: str,
                                                kwargs: dict[str, Any]) -> None:  # fmt: skip
    _inlined(_compile(copy_host(dtype, block, ipt, algorithm, **kwargs), dtype))


def test_warm_recompile_makes_no_nvrtc_call_and_no_link() -> None:
    host = copy_host("int16", (64, 1, 1), 4, "transpose")
    first = _compile(host, "int16")
    before = coop.compile_stats()
    again = _compile(host, "int16")
    after = coop.compile_stats()
    # the unit and the glue read back
    assert after.nvrtc_compiles == before.nvrtc_compiles and after.cache_hits == before.cache_hits + 2
    # CuTe names the kernel the same each time: the linked cubin comes from the cache
    assert after.links == before.links and after.link_cache_hits == before.link_cache_hits + 1
    assert again.cubin == first.cubin
    assert set(again.timings) >= {"trace_and_lower", "nvrtc", "libnvvm", "nvjitlink", "cute_compile"}


def test_two_kernels_in_one_process_do_not_share_requests() -> None:
    a = _compile(copy_host("int32", (128, 1, 1), 4, "direct"))
    b = _compile(copy_host("int32", (256, 1, 1), 2, "striped"))
    assert not set(a.symbols) & set(b.symbols)
    assert all("b128x1x1" in s for s in a.symbols) and all("b256x1x1" in s for s in b.symbols)


def test_two_kernels_in_one_trace_each_get_their_own_scratch() -> None:
    n = 4 * TWO_KERNEL_TILE
    compiled = cutlass_coop.compile(two_kernel_host(), *(fake_tensor("int32", n) for _ in range(3)))
    report = compiled.inspect()
    assert report.calls == 0 and report.local_loads == 0 and not report.leftover_symbols
    assert len(compiled.symbols) == 4 and len(report.functions) == 2
    (small,) = [f for f in report.functions if "_small_" in f]
    (large,) = [f for f in report.functions if "_large_" in f]
    assert report.thread_bounds[small] == ("maxntid", (64, 1, 1))
    assert report.thread_bounds[large] == ("maxntid", (256, 1, 1))
    alone = _compile(copy_host("int32", (64, 1, 1), 2, "transpose")).inspect()
    # the small kernel's shared memory is what it needs alone, not the large kernel's
    assert report.shared_bytes[small] <= next(iter(alone.shared_bytes.values()))
    assert report.shared_bytes[large] >= 256 * 16 * 4


def _kernel_host(body: Any, block: Any = (128, 1, 1)) -> Any:
    @cute.kernel
    def kernel(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        body(src, dst)

    @cute.jit
    def host(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        kernel(src, dst).launch(grid=(1, 1, 1), block=block)

    return host


def test_dtype_mismatch_is_a_typed_error() -> None:
    def body(src: Any, dst: Any) -> None:
        items = coop.ThreadData(4, cutlass.Float32)
        coop.block.load(src, items)

    with pytest.raises(
        coop.CoopTypeError, match="src has element type int32 but items is a ThreadData of float32"
    ):
        _compile(_kernel_host(body))


def test_register_tensor_where_gmem_is_required() -> None:
    def body(src: Any, dst: Any) -> None:
        items = coop.ThreadData(4, cutlass.Int32)
        other = coop.ThreadData(128, cutlass.Int32)
        coop.block.load(other, items)

    with pytest.raises(
        coop.CoopTypeError, match="src must be a CuTe global-memory tensor or pointer, got a tensor in rmem"
    ):
        _compile(_kernel_host(body))


def test_unknown_algorithm() -> None:
    with pytest.raises(coop.CoopValueError, match="unknown algorithm='fastest'"):
        _compile(copy_host("int32", (128, 1, 1), 4, "fastest"))


def test_items_per_thread_must_be_a_constant() -> None:
    def body(src: Any, dst: Any) -> None:
        coop.ThreadData(cute.arch.block_idx()[0], cutlass.Int32)

    with pytest.raises(coop.CoopTypeError, match="items_per_thread must be a compile-time constant int"):
        _compile(_kernel_host(body))


def test_warp_algorithm_needs_whole_warps() -> None:
    with pytest.raises(coop.CoopLaunchConfigError, match="multiple of 32 threads"):
        _compile(copy_host("int32", (48, 1, 1), 4, "warp_transpose"))


def test_temp_storage_is_shared_by_primitives() -> None:
    """One caller-owned TempStorage serves a load, a scan and a store: footprint = max, not sum."""

    def body(src: Any, dst: Any) -> None:
        ts = coop.TempStorage()
        items = coop.ThreadData(8, cutlass.Int32)
        coop.block.load(src, items, algorithm="transpose", temp_storage=ts)
        cute.arch.barrier()
        out = coop.block.inclusive_sum(items, temp_storage=ts)
        cute.arch.barrier()
        coop.block.store(dst, out, algorithm="warp_transpose", temp_storage=ts)

    compiled = _compile(_kernel_host(body, (256, 1, 1)))
    report = _inlined(compiled)
    assert all(s.endswith("_ts") for s in compiled.symbols) and len(compiled.temp_storage) == 3
    shared = next(iter(report.shared_bytes.values()))
    sizes = [size for size, _ in compiled.temp_storage.values()]
    # the section also carries the 1 KiB that sm_90 reserves per block once shared memory is used
    assert shared in (max(sizes), max(sizes) + 1024) and shared < sum(sizes), (shared, sizes)


def test_plain_cute_compile_is_told_to_use_the_bridge() -> None:
    host = copy_host("int32", (128, 1, 1), 4, "direct")
    with pytest.raises(Exception, match="cuda.coop.cutlass.compile") as info:
        cute.compile(host, fake_tensor("int32", N), fake_tensor("int32", N))
    assert any(isinstance(e, coop.CoopBackendError) for e in _chain(info.value))


def test_failed_bundle_compile_leaves_no_stale_state(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from cuda.coop import _bundle
    from cuda.coop._render import RenderedRequests

    monkeypatch.setenv("CUDA_COOP_CACHE_DIR", str(tmp_path))  # nothing to reuse: the unit is rendered
    host = copy_host("int64", (96, 1, 1), 3, "transpose")
    monkeypatch.setattr(
        _bundle, "render_requests", lambda reqs: RenderedRequests("#error injected\n", {}, ())
    )
    with pytest.raises(coop.CoopCompileError, match="injected"):
        _compile(host, "int64")
    monkeypatch.undo()
    _inlined(_compile(host, "int64"))


def test_kernel_without_coop_compiles_plainly() -> None:
    @cute.kernel
    def kernel(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        tidx, _, _ = cute.arch.thread_idx()
        dst[tidx] = src[tidx]

    @cute.jit
    def host(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        kernel(src, dst).launch(grid=(1, 1, 1), block=(128, 1, 1))

    compiled = _compile(host)
    assert compiled.symbols == () and compiled.cubin == b""


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    stack = [exc]
    while stack and len(out) < 64:
        e = stack.pop()
        out.append(e)
        stack += [x for x in (e.__cause__, e.__context__) if x is not None]
    return out


@pytest.mark.filterwarnings("ignore:Dynamic variable in block size")  # CuTe's own advice
def test_dynamic_block_dims_name_the_kernel() -> None:
    @cute.kernel
    def dyn_kernel(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        items = coop.ThreadData(4, cutlass.Int32)
        coop.block.load(src, items)

    @cute.jit
    def host(src: cute.Tensor, dst: cute.Tensor, threads: cutlass.Int32):  # type: ignore[no-untyped-def]
        dyn_kernel(src, dst).launch(grid=(1, 1, 1), block=(threads, 1, 1))

    with pytest.raises(coop.CoopLaunchConfigError, match="dyn_kernel.*dynamic block dimensions"):
        cutlass_coop.compile(host, fake_tensor("int32", N), fake_tensor("int32", N), cutlass.Int32(128))


def test_sessions_do_not_leak_between_compiles() -> None:
    from cuda.coop._session import current

    _compile(copy_host("int32", (128, 1, 1), 4, "direct"))
    assert current() is None
    with pytest.raises(coop.CoopValueError):
        _compile(copy_host("int32", (128, 1, 1), 4, "fastest"))
    assert current() is None


def test_errors_name_the_kernel_line_first_with_a_short_traceback() -> None:
    import inspect
    import os
    import traceback

    def body(src: Any, dst: Any) -> None:
        items = coop.ThreadData(4, cutlass.Int32)
        coop.block.load(src, items, algorithm="fastest")  # the bad call

    lines, first = inspect.getsourcelines(body)
    line = first + next(i for i, ln in enumerate(lines) if "the bad call" in ln)
    where = f"{os.path.relpath(__file__)}:{line}"
    with pytest.raises(coop.CoopValueError) as info:
        _compile(_kernel_host(body))
    assert str(info.value).startswith(f"{where}: coop.block.load: unknown algorithm='fastest'")
    frames = traceback.extract_tb(info.value.__traceback__)
    assert not any("nvidia_cutlass_dsl" in f.filename for f in frames), frames  # none of CuTe's
    assert len(frames) <= 4, frames


def test_a_failed_bundle_names_the_coop_calls_of_the_kernel(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from cuda.coop import _bundle
    from cuda.coop._render import RenderedRequests

    monkeypatch.setenv("CUDA_COOP_CACHE_DIR", str(tmp_path))  # nothing to reuse: the unit is rendered

    monkeypatch.setattr(
        _bundle, "render_requests", lambda reqs: RenderedRequests("#error injected\n", {}, ())
    )
    with pytest.raises(
        coop.CoopCompileError, match=r"^tests/_cute_kernels.py:\d+, tests/_cute_kernels.py:\d+: "
    ):
        _compile(copy_host("int64", (96, 1, 1), 5, "transpose"), "int64")


def test_a_raw_integer_from_select_names_the_wrap() -> None:
    """``cutlass.select_`` returns a raw MLIR value: a float one is taken as its type (the argmax loop
    of tests/_structured_rows_cute.py), an integer one has no signedness, so the call says what to
    write."""

    @cute.kernel
    def kernel(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        t, _, _ = cute.arch.thread_idx()
        v = cutlass.select_(t > 3, src[t], src[0])
        dst[0] = coop.block.sum(v)

    @cute.jit
    def host(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        kernel(src, dst).launch(grid=(1, 1, 1), block=(128, 1, 1))

    with pytest.raises(coop.CoopTypeError, match=r"raw MLIR value of type i32.*cutlass\.Int32\(\.\.\.\)"):
        _compile(host)
