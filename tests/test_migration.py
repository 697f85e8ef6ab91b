# SPDX-License-Identifier: Apache-2.0
"""Coming from upstream cuda.coop (issue 46): upstream's operator spellings (``"+"``,
``operator.add``, ``np.maximum``, ``"<"``...) are aliases that give exactly the request of the
built-in's name on numba-cuda, numba-cuda-mlir and CuTe; a literal scalar payload is typed as Numba
types it. The GPU tests run the snippets against NumPy on fresh random data with poisoned outputs
(tests/test_doc_snippets.py compiles them ahead of time, as every snippet of the docs)."""

import importlib.util
import operator
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import cuda.coop.numba as numba_coop
import numba
import numpy as np
import pytest
from cuda import coop
from cuda.coop._operators import SPELLINGS, _spelled, builtin_alias
from cuda.coop._session import TraceSession
from numba import cuda

from ._reference import assert_inlined

SNIPPETS = Path(__file__).resolve().parents[1] / "docs" / "snippets"
I32, I64, F32 = numba.int32[::1], numba.int64[::1], numba.float32[::1]


def _snippet(name: str) -> ModuleType:
    module_name = f"coop_docs_snippet_{Path(name).stem}"
    if module_name not in sys.modules:
        spec = importlib.util.spec_from_file_location(module_name, SNIPPETS / name)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
    return sys.modules[module_name]


# --- aliases: the same request as the built-in's name -------------------------------------------------


@pytest.fixture
def symbols(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The request symbols the kernels compiled in the test add to their bundles, in order."""
    seen: list[str] = []
    add = TraceSession.add

    def spy(self: TraceSession, request: Any, where: str = "") -> str:
        seen.append(request.symbol)
        return add(self, request, where)

    monkeypatch.setattr(TraceSession, "add", spy)
    yield seen


#: (the built-in's name, a spelling as the kernel passes it, the primitive that takes it)
OPERATOR_SPELLINGS = [
    (name, _spelled(text), "reduce") for name in ("sum", "mul", "min", "max") for text in SPELLINGS[name]
] + [
    (name, _spelled(text), "reduce") for name in ("bit_and", "bit_or", "bit_xor") for text in SPELLINGS[name]
]
COMPARATOR_SPELLINGS = [
    (name, _spelled(text), "merge_sort") for name in ("less", "greater") for text in SPELLINGS[name]
] + [(name, _spelled(text), "discontinuity") for name in ("equal", "not_equal") for text in SPELLINGS[name]]
SPELLED = OPERATOR_SPELLINGS + COMPARATOR_SPELLINGS
SPELLED_IDS = [f"{n}-{s if isinstance(s, str) else getattr(s, '__name__', s)}" for n, s, _ in SPELLED]


def test_the_alias_table_names_built_ins_and_objects_once() -> None:
    from cuda.coop._operators import BUILTIN_COMPARATORS, BUILTIN_OPERATORS

    assert set(SPELLINGS) <= set(BUILTIN_OPERATORS) | set(BUILTIN_COMPARATORS)
    spelled = [_spelled(t) for texts in SPELLINGS.values() for t in texts]
    assert len(spelled) == len(set(spelled))  # one built-in per spelling
    assert not set(spelled) & (set(BUILTIN_OPERATORS) | set(BUILTIN_COMPARATORS))  # no name is an alias
    assert builtin_alias(operator.add) == "sum" and builtin_alias(np.maximum) == "max"
    assert builtin_alias("<") == "less" and builtin_alias([1]) is None and builtin_alias("sum") is None


def _with(kernel: Callable[..., Any], **names: object) -> Callable[..., Any]:
    """A new function object of ``kernel``'s code whose globals also hold ``names`` (its ``OP``; the
    DSL's ``cuda`` module as ``mcuda``): Numba reads a global function or ufunc as it types it, and
    caches compiled kernels per function object."""
    scope = dict(kernel.__globals__, **names)
    return type(kernel)(kernel.__code__, scope, kernel.__name__)  # type: ignore[call-arg]


def reduce_kernel(src, dst):  # type: ignore[no-untyped-def]
    i = cuda.threadIdx.x
    dst[i] = coop.block.reduce(src[i], OP)  # noqa: F821


def sort_kernel(src, dst):  # type: ignore[no-untyped-def]
    items = coop.ThreadData(2, np.int32)
    coop.block.load(src, items)
    coop.block.merge_sort(items, OP)  # noqa: F821
    coop.block.store(dst, items)


def discontinuity_kernel(src, dst):  # type: ignore[no-untyped-def]
    items = coop.ThreadData(2, np.int32)
    coop.block.load(src, items)
    flags = coop.block.discontinuity(items, op=OP)  # noqa: F821
    dst[cuda.threadIdx.x] = flags[0]


KERNELS = {"reduce": reduce_kernel, "merge_sort": sort_kernel, "discontinuity": discontinuity_kernel}


def _fresh(primitive: str, op: object) -> Callable[..., Any]:
    return _with(KERNELS[primitive], OP=op)


@pytest.mark.parametrize(("name", "spelling", "primitive"), SPELLED, ids=SPELLED_IDS)
def test_numba_alias_is_the_built_in(name: str, spelling: object, primitive: str, symbols: list[str]) -> None:
    numba_coop.compile(_fresh(primitive, name), (I32, I32), block=128, arch="sm_90a")
    expected, symbols[:] = list(symbols), []
    compiled = numba_coop.compile(_fresh(primitive, spelling), (I32, I32), block=128, arch="sm_90a")
    assert symbols == expected and any(f"_{name}_" in s for s in symbols), (symbols, expected)
    assert_inlined(compiled.inspect())


def test_an_alias_of_another_kind_of_built_in_is_refused_naming_it() -> None:
    with pytest.raises(coop.CoopValueError, match="spells the built-in 'less'.*'sum' \\(\"\\+\""):
        numba_coop.compile(_fresh("reduce", operator.lt), (I32, I32), block=128)
    with pytest.raises(
        coop.CoopValueError, match="unknown op='avg'; .*'max' \\(\"maximum\", max, np.maximum"
    ):
        numba_coop.compile(_fresh("reduce", "avg"), (I32, I32), block=128)


# --- literal scalars -----------------------------------------------------------------------------------


def literal_sum(dst):  # type: ignore[no-untyped-def]
    dst[cuda.threadIdx.x] = coop.block.exclusive_sum(1)


def typed_sum(dst):  # type: ignore[no-untyped-def]
    dst[cuda.threadIdx.x] = coop.block.exclusive_sum(numba.int64(1))


def literal_tuple(dst, fdst):  # type: ignore[no-untyped-def]
    a, b = coop.block.inclusive_sum((2, 0.5))
    s = coop.block.reduce(3, "max")
    dst[cuda.threadIdx.x] = a + s
    fdst[cuda.threadIdx.x] = b


def test_numba_literal_scalar_is_an_int64(symbols: list[str]) -> None:
    assert_inlined(numba_coop.compile(typed_sum, (I64,), block=128, arch="sm_90a").inspect())
    typed, symbols[:] = list(symbols), []
    assert_inlined(numba_coop.compile(literal_sum, (I64,), block=128, arch="sm_90a").inspect())
    assert symbols == typed and "int64" in symbols[0]
    symbols[:] = []
    assert_inlined(
        numba_coop.compile(literal_tuple, (I64, numba.float64[::1]), block=128, arch="sm_90a").inspect()
    )
    assert any("int64_float64" in s for s in symbols), symbols


# --- numba-cuda-mlir -----------------------------------------------------------------------------------


def _mlir() -> Any:
    pytest.importorskip("numba_cuda_mlir", reason="numba-cuda-mlir is not installed")
    import cuda.coop.numba_mlir as ncoop
    from numba_cuda_mlir import cuda as mcuda
    from numba_cuda_mlir.numba_cuda import types

    return ncoop, mcuda, types


def mlir_reduce_kernel(src, dst):  # type: ignore[no-untyped-def]
    i = mcuda.threadIdx.x  # noqa: F821
    dst[i] = coop.block.reduce(src[i], OP)  # noqa: F821


def mlir_literal_kernel(dst):  # type: ignore[no-untyped-def]
    dst[mcuda.threadIdx.x] = coop.block.exclusive_sum(1)  # noqa: F821


def _mlir_reduce(op: object) -> Callable[..., Any]:
    _, mcuda, _ = _mlir()
    return _with(mlir_reduce_kernel, OP=op, mcuda=mcuda)


MLIR_SPELLED = [("sum", operator.add), ("sum", np.add), ("sum", "+"), ("max", np.maximum), ("min", min)]


@pytest.mark.parametrize(("name", "spelling"), MLIR_SPELLED, ids=[f"{n}-{s}" for n, s in MLIR_SPELLED])
def test_numba_mlir_alias_is_the_built_in(name: str, spelling: object, symbols: list[str]) -> None:
    ncoop, _, types = _mlir()
    sig = (types.int32[::1], types.int32[::1])
    ncoop.compile(_mlir_reduce(name), sig, block=128, arch="sm_90a")
    expected, symbols[:] = list(symbols), []
    compiled = ncoop.compile(_mlir_reduce(spelling), sig, block=128, arch="sm_90a")
    assert symbols == expected and f"_{name}_" in symbols[0], (symbols, expected)
    assert_inlined(compiled.inspect())


def test_numba_mlir_literal_scalar_is_an_int64(symbols: list[str]) -> None:
    ncoop, mcuda, types = _mlir()
    kernel = _with(mlir_literal_kernel, mcuda=mcuda)
    assert_inlined(ncoop.compile(kernel, (types.int64[::1],), block=128, arch="sm_90a").inspect())
    assert len(symbols) == 1 and "exclusive_sum_int64" in symbols[0], symbols


# --- CuTe ----------------------------------------------------------------------------------------------


def _cute_reduce_host(op: object) -> Any:
    import cutlass
    import cutlass.cute as cute

    @cute.kernel
    def kernel(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        tidx, _, _ = cute.arch.thread_idx()
        dst[tidx] = coop.block.reduce(src[tidx], op)

    @cute.jit
    def host(src: cute.Tensor, dst: cute.Tensor):  # type: ignore[no-untyped-def]
        kernel(src, dst).launch(grid=(1, 1, 1), block=(128, 1, 1))

    del cutlass
    return host


CUTE_SPELLED = [
    ("sum", operator.add),
    ("sum", np.add),
    ("sum", "plus"),
    ("max", np.maximum),
    ("max", max),
    ("bit_xor", operator.xor),
    ("mul", "*"),
]


@pytest.mark.parametrize(("name", "spelling"), CUTE_SPELLED, ids=[f"{n}-{s}" for n, s in CUTE_SPELLED])
def test_cute_alias_is_the_built_in(name: str, spelling: object) -> None:
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    import cuda.coop.cutlass as cutlass_coop

    from ._cute_kernels import fake_tensor

    tensors = (fake_tensor("int32", 128), fake_tensor("int32", 128))
    canonical = cutlass_coop.compile(_cute_reduce_host(name), *tensors)
    spelled = cutlass_coop.compile(_cute_reduce_host(spelling), *tensors)
    assert spelled.symbols == canonical.symbols and f"_{name}_" in spelled.symbols[0]
    assert_inlined(spelled.inspect())


def test_cute_python_number_payload_is_refused_naming_the_typed_value() -> None:
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    import cuda.coop.cutlass as cutlass_coop
    import cutlass.cute as cute

    from ._cute_kernels import fake_tensor

    @cute.kernel
    def kernel(dst: cute.Tensor):  # type: ignore[no-untyped-def]
        tidx, _, _ = cute.arch.thread_idx()
        dst[tidx] = coop.block.exclusive_sum(1)

    @cute.jit
    def host(dst: cute.Tensor):  # type: ignore[no-untyped-def]
        kernel(dst).launch(grid=(1, 1, 1), block=(128, 1, 1))

    with pytest.raises(coop.CoopTypeError, match=r"x=1 is a Python number.*cutlass\.Int32\(1\)"):
        cutlass_coop.compile(host, fake_tensor("int32", 128))


# --- on the GPU ----------------------------------------------------------------------------------------

POISON32 = np.int32(-0x5A5A5A5B)


def _rng() -> tuple[np.random.Generator, int]:
    seed = int(np.random.SeedSequence().entropy) % 2**32  # fresh data each run, the seed in messages
    return np.random.default_rng(seed), seed


@pytest.mark.gpu
def test_gpu_reduce_with_upstream_spellings() -> None:
    module = _snippet("migration_reduce.py")
    threads, items, blocks = module.THREADS, module.ITEMS, 37
    rng, seed = _rng()
    src = rng.integers(-(2**20), 2**20, size=blocks * threads * items, dtype=np.int32)
    totals = cuda.to_device(np.full(blocks, POISON32))
    largest = cuda.to_device(np.full(blocks, POISON32))
    numba_coop.jit(module.block_totals)[blocks, threads](cuda.to_device(src), totals, largest)
    tiles = src.reshape(blocks, threads * items)
    np.testing.assert_array_equal(totals.copy_to_host(), tiles.sum(axis=1, dtype=np.int32), f"seed {seed}")
    np.testing.assert_array_equal(largest.copy_to_host(), tiles.max(axis=1), f"seed {seed}")


@pytest.mark.gpu
def test_gpu_scans_return_values_and_a_literal_is_a_rank() -> None:
    module = _snippet("migration_scan.py")
    threads, items, blocks = module.THREADS, module.ITEMS, 19
    rng, seed = _rng()
    src = rng.integers(-1000, 1000, size=blocks * threads * items, dtype=np.int32)
    dst = cuda.to_device(np.full(src.size, POISON32))
    ranks = cuda.to_device(np.full(blocks * threads, np.int64(POISON32)))
    numba_coop.jit(module.scan_tile)[blocks, threads](cuda.to_device(src), dst, ranks)
    tiles = src.reshape(blocks, threads * items)
    want = np.cumsum(tiles, axis=1, dtype=np.int32) - tiles  # exclusive
    np.testing.assert_array_equal(dst.copy_to_host().reshape(blocks, -1), want, f"seed {seed}")
    np.testing.assert_array_equal(ranks.copy_to_host(), np.tile(np.arange(threads), blocks), f"seed {seed}")


@pytest.mark.gpu
def test_gpu_wide_running_total_from_the_aggregate() -> None:
    module = _snippet("migration_prefix.py")
    row = module.TILES * module.THREADS * module.ITEMS
    rng, seed = _rng()
    blocks = 5
    # a tile's total fits an int32 (512 items under 2**22), a row's (8 tiles) passes 2**31
    counts = rng.integers(0, 2**22, size=blocks * row, dtype=np.int32)
    offsets = cuda.to_device(np.full(counts.size, np.int64(POISON32)))
    numba_coop.jit(module.row_offsets)[blocks, module.THREADS](cuda.to_device(counts), offsets)
    rows = counts.reshape(blocks, row).astype(np.int64)
    want = np.cumsum(rows, axis=1) - rows
    np.testing.assert_array_equal(offsets.copy_to_host().reshape(blocks, -1), want, f"seed {seed}")
