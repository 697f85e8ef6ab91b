# SPDX-License-Identifier: Apache-2.0
"""Structured items (issue 18): the element-type table's field lists (laid out as C structs), the
renderer's struct-of-arrays ABI (one pointer per field; the wrapper gathers them into CUB's array
of structs and scatters the result back; a tuple of arrays is one CUB call per field), both
backends' kernels ahead of time (no CALL, no local memory) and on the GPU, and the typed errors of
bad tuples."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from cuda.coop._bundle import compile_bundle
from cuda.coop._dtypes import DTYPES, dtype_named, fields_of, tuple_dtype
from cuda.coop._errors import CoopTypeError
from cuda.coop._render import render_requests
from cuda.coop._requests import Request

from ._reference import run_python

FIELD_LISTS = [
    ("float32", "int32"),
    ("float64", "int64", "float32"),
    ("int8", "float16"),
    ("int8", "float64", "int8"),
    ("uint16", "bfloat16", "uint8", "int64"),
]


def _numpy(name: str) -> np.dtype:
    return np.dtype(np.uint16) if name == "bfloat16" else np.dtype(name)  # same size and alignment


@pytest.mark.parametrize("fields", FIELD_LISTS, ids="_".join)
def test_a_field_list_is_laid_out_as_a_c_struct(fields: tuple[str, ...]) -> None:
    d = tuple_dtype(fields)
    want = np.dtype([(f"f{k}", _numpy(f)) for k, f in enumerate(fields)], align=True)  # C layout
    assert (d.itemsize, d.alignment) == (want.itemsize, want.alignment)
    assert d.kind == "t" and d.fields == fields and fields_of(d.name) == fields
    assert dtype_named(d.name) == d and d.cxx.isidentifier()


@pytest.mark.parametrize("fields", [("float32",), (), ("float32", "complex64"), ("float32", "tuple_a_b")])
def test_a_field_list_needs_two_scalar_fields(fields: tuple[str, ...]) -> None:
    with pytest.raises(CoopTypeError, match="a structured item needs two or more fields"):
        tuple_dtype(fields)


def test_scalar_types_have_no_fields() -> None:
    assert all(fields_of(name) == () for name in DTYPES)


def _exchange(dtype: str) -> Request:
    return Request("block.exchange", dtype, (96, 1, 1), 3, (("mode", "striped_to_blocked"),))


def test_the_wrapper_takes_one_pointer_per_field_and_gives_cub_structs() -> None:
    req = _exchange("tuple_float32_int32")
    source = render_requests([req]).source
    assert "struct coop_tuple_float32_int32\n{\n  float f0;\n  int f1;\n  friend __device__" in source
    body = source[source.index(f"void {req.symbol}(") :].split("\n}\n", 1)[0]
    assert f"void {req.symbol}(void* items_f0_, void* items_f1_, void* out_f0_, void* out_f1_)" in body
    assert "coop_tuple_float32_int32 items[3];" in body and "coop_tuple_float32_int32 out[3];" in body
    assert "items[i].f0 = items_f0[i]; items[i].f1 = items_f1[i];" in body  # gathered
    assert body.rstrip().endswith("out_f0[i] = out[i].f0; out_f1[i] = out[i].f1; }")  # scattered


def test_a_structured_value_is_gathered_and_its_result_scattered() -> None:
    req = Request("warp.broadcast", "tuple_int8_float16", (64, 1, 1), 1, (("threads_in_warp", "32"),),
                  ("scalar", "lane"))  # fmt: skip
    source = render_requests([req]).source
    body = source[source.index(f"void {req.symbol}(") :].split("\n}\n", 1)[0]
    assert "(void* x_f0_, void* x_f1_, int src_lane_, void* result_f0_, void* result_f1_)" in body
    assert "x.f0 = x_f0;" in body and "result.f0 = result_f0;" not in body
    assert "result_f1 = result.f1;" in body
    assert "#include <cuda_fp16.h>" in source  # a field's header


def test_nvrtc_compiles_structured_requests_and_sizes_their_scratch() -> None:
    """CUB instantiated on the structs (NVRTC, no GPU): the exchange's scratch is 96 x 3 items of
    the struct (CUB pads nothing for a warp-multiple block), as the bundle's own probes say."""
    reqs = (
        _exchange("tuple_float32_int32"),
        _exchange("tuple_float64_int64_float32"),
        Request("warp.broadcast", "tuple_int8_float16", (64, 1, 1), 1, (("threads_in_warp", "32"),),
                ("scalar", "lane")),
    )  # fmt: skip
    bundle = compile_bundle(reqs, (), "sm_90a")
    assert bundle.objects
    for req in reqs[:2]:
        size, align = bundle.temp_storage[req.symbol]
        want = np.dtype([(f"f{k}", _numpy(f)) for k, f in enumerate(fields_of(req.dtype))], align=True)
        assert size >= 96 * 3 * want.itemsize and align >= want.alignment, (req.dtype, size, align)


def test_a_tuple_of_arrays_is_one_cub_call_per_field() -> None:
    """A load of (float32, int32, float32) items from three arrays: the wrapper calls a scalar
    wrapper per field type (float32 once), each with its field's pointers, the shared count and the
    group's slice of the scratch; caller-owned scratch without auto_sync gets coop's barrier between
    the fields only; the request's scratch is the largest field's."""
    options = (("algorithm", "transpose"),)
    req = Request("block.load", "tuple_float32_int32_float32", (96, 1, 1), 3, options, ("partial",),
                  caller_temp_storage=True)  # fmt: skip
    source = render_requests([req]).source
    f32, i32 = (
        Request("block.load", t, (96, 1, 1), 3, options, ("partial", "field"), True)
        for t in ("float32", "int32")
    )
    body = source[source.index(f"void {req.symbol}(") :].split("\n}\n", 1)[0]
    assert (
        f"void {req.symbol}(void* src_f0_, void* src_f1_, void* src_f2_, void* items_f0_, void* items_f1_, "
        "void* items_f2_, int valid_items_, void* temp_storage_)"
    ) in body
    calls = [line.strip() for line in body.splitlines()[2:]]
    assert calls == [
        f"void* const coop_slice = &*static_cast<{req.symbol}_storage*>(temp_storage_);",
        f"{f32.symbol}(src_f0_, items_f0_, valid_items_, coop_slice);",
        "__syncthreads();  // the next field reuses the scratch",
        f"{i32.symbol}(src_f1_, items_f1_, valid_items_, coop_slice);",
        "__syncthreads();  // the next field reuses the scratch",
        f"{f32.symbol}(src_f2_, items_f2_, valid_items_, coop_slice);",
    ]
    assert (
        source.count(f"void {f32.symbol}(") == 1 and f"using {f32.symbol}_t = cub::BlockLoad<float," in source
    )
    bundle = compile_bundle([req], (), "sm_90a")
    size, _align = bundle.temp_storage[req.symbol]
    assert size >= 96 * 3 * 4, size  # a field's tile staged in shared memory


def test_a_warp_field_call_gets_its_logical_warps_slice() -> None:
    """A warp transpose of (float64, float32) items from two arrays on logical warps of 8: the
    wrapper slices the request's scratch (a union of the fields') by logical warp and hands each
    field's call that slice, so that a float32 slice cannot overlap another warp's float64 one; a
    barrier over the logical warp before each field (the call's own scratch)."""
    options = (("algorithm", "transpose"), ("threads_in_warp", "8"))
    req = Request("warp.load", "tuple_float64_float32", (64, 1, 1), 4, options)
    source = render_requests([req]).source
    body = source[source.index(f"void {req.symbol}(") :].split("\n}\n", 1)[0]
    # the kernel's warp scratch unit of the logical warp's first thread (one unit per 8 threads here)
    assert (
        f"coop_slice = &*static_cast<{req.symbol}_storage*>(coop_warp_slice_0(coop_warp_scratch_0(), "
        "cub::RowMajorTid(64, 1, 1), 8));" in body
    )
    assert body.count("__syncwarp(coop_warp_mask<8>());") == 2
    sub = Request("warp.load", "float32", (64, 1, 1), 4, options, ("field",), True)
    wrapper = source[source.index(f"void {sub.symbol}(") :].split("\n}\n", 1)[0]
    assert f"*reinterpret_cast<typename {sub.symbol}_t::TempStorage*>(temp_storage_)" in wrapper
    assert "__sync" not in wrapper  # the per-field wrapper synchronises
    assert compile_bundle([req], (), "sm_90a").objects


# --- both backends' plumbing, through rows copied with structured=True (none shipped yet) ------

_run = run_python  # kernels in a process of their own


def test_numba_keeps_tuples_in_registers() -> None:
    """The kernels of tests/_structured_kernels.py (argmax, a tuple exchange, a 3-tuple warp
    reduce, the linear recurrence with a tuple running prefix, an exclusive scan seeded with a
    tuple): one function each, no CALL, no local memory."""
    names = ["moments", "reduce", "exchange", "warp", "recurrence", "exclusive"]
    assert _run("-m", "tests._structured_kernels", "aot", "numba") == [f"{n} 0 0 0 1" for n in names]


def test_cute_keeps_tuples_in_registers() -> None:
    """The same five kernels in CuTe (tuples of register tensors and numerics; user operators
    traced on tuples), launched by one host: five functions, no CALL, no local memory."""
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    assert _run("-m", "tests._structured_kernels", "aot", "cute") == ["cute 0 0 0 6"]


def _skip_without(backend: str) -> None:
    if backend == "cute":
        pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    if backend == "numba_mlir":
        pytest.importorskip("numba_cuda_mlir", reason="numba-cuda-mlir is not installed")


@pytest.mark.parametrize("backend", ["numba", "numba_mlir", "cute"])
def test_arg_sort_and_neighbour_kernels_keep_tuples_in_registers(backend: str) -> None:
    """The kernels of tests/_structured_rows.py (block and warp argmax/argmin; merge sorts of tuple
    keys, sorts with tuple values, top-k; adjacent differences, discontinuity flags and shuffles
    of tuples; the argmax loop the docs advise): one function each, no CALL, no local memory."""
    _skip_without(backend)
    assert _run("-m", "tests._structured_rows", "aot", backend) == [
        f"{n} 0 0 0 1" for n in ("arg", "sort", "neighbours", "loop")
    ]


@pytest.mark.gpu
@pytest.mark.sanitizer
@pytest.mark.parametrize("backend", ["numba", "numba_mlir", "cute"])
def test_arg_sort_and_neighbour_kernels_on_the_gpu(backend: str) -> None:
    """argmax/argmin with ties, NaNs (the first wins) and infinities, sorts by tuple keys and with
    tuple values, top-k, adjacent differences, flags and shuffles of tuples, and the argmax loop
    (``x != x`` as the NaN test, a user operator on pairs), against NumPy, on every backend."""
    _skip_without(backend)
    if backend == "cute":
        pytest.importorskip("torch", reason="the CuTe half moves data with torch")
    from ._structured_rows import CHECKS

    lines = _run("-m", "tests._structured_rows", "gpu", backend)
    assert [line.split()[0] for line in lines] == list(CHECKS), lines
    assert all(line.endswith(" ok") for line in lines), lines


@pytest.mark.gpu
@pytest.mark.sanitizer
@pytest.mark.parametrize("backend", ["numba", "cute"])
def test_structured_rows_on_the_gpu(backend: str) -> None:
    """The same kernels on the GPU against NumPy, fresh random data, poisoned outputs."""
    if backend == "cute":
        pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
        pytest.importorskip("torch", reason="the CuTe half moves data with torch")
    from ._structured_kernels import CHECKS

    lines = _run("-m", "tests._structured_kernels", "gpu", backend)
    assert [line.split()[0] for line in lines] == list(CHECKS), lines
    assert all(line.endswith(" ok") for line in lines), lines


def test_numba_keeps_records_in_registers() -> None:
    """The kernels of tests/_structured_records.py (NumPy records as items, arrays of records, record
    values and results; operators returning a tuple or one of the records; records and tuples of
    arrays mixed): one function each, no CALL, no local memory."""
    names = ["io", "mixed", "sort", "pick"]
    assert _run("-m", "tests._structured_records", "aot") == [f"{n} 0 0 0 1 nvrtc<=1" for n in names]


@pytest.mark.gpu
@pytest.mark.sanitizer
def test_records_on_the_gpu() -> None:
    """The same kernels on the GPU against NumPy's structured arrays (fresh random data, outputs
    poisoned)."""
    from ._structured_records import CHECKS

    lines = _run("-m", "tests._structured_records", "gpu")
    assert [line.split()[0] for line in lines] == list(CHECKS), lines
    assert all(line.endswith(" ok") for line in lines), lines


_BAD_RECORDS = """
import numpy as np
from cuda import coop
import cuda.coop.numba as numba_coop
from numba.cuda import types
from numba.cuda.np import numpy_support

REC = np.dtype([("v", np.float32), ("i", np.int32)], align=True)
BAD = {{
    "packed": np.dtype([("a", np.int8), ("v", np.float32)]),  # v at offset 1: not C's layout
    "one": np.dtype([("v", np.float32)], align=True),
    "nested": np.dtype([("v", np.float32), ("p", REC)], align=True),
}}.get({case!r}, REC)

def kernel(a, o):
    x = coop.ThreadData(4, BAD)
    if {case!r} == "mixed":
        out = (coop.ThreadData(4, np.float32), coop.ThreadData(4, np.int32))
        coop.block.exchange(x, "blocked_to_striped", out=out)
    if {case!r} == "arity":
        coop.block.reduce(x, lambda p, q: p.v + q.v)
    if {case!r} == "array":
        coop.block.load(a, x)

arr = types.Array(numpy_support.from_dtype(REC), 1, "C")
bad = types.Array(numpy_support.from_dtype(np.dtype([("a", np.int8), ("v", np.float32)])), 1, "C")
try:
    numba_coop.compile(kernel, (bad if {case!r} == "array" else arr, arr), block=64)
    print("compiled")
except Exception as exc:
    print(type(exc).__name__, " ".join(str(exc).split()))
"""


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("packed", "coop.ThreadData: dtype is a record laid out as C does not lay out its fields (offsets"),
        ("one", "is a record of one field"),
        ("nested", "is a record with a field that is not one of"),
        ("mixed", "out is a tuple and items is records; give both as NumPy records or both as tuples"),
        ("arity", "must return a tuple of 2 values (float32, int32) (or one of the records) for two records"),
        ("array", "coop.block.load: src is a record laid out as C does not lay out its fields"),
    ],
)
def test_bad_records_are_typed_errors(case: str, message: str, tmp_path: Path) -> None:
    """A record dtype unlike C's struct, of one field or with a nested record; records and tuples
    mixed; an operator on records returning one value; an array of records laid out unlike C: each a
    typed error naming what to change."""
    script = tmp_path / "bad_records.py"
    script.write_text(_BAD_RECORDS.format(case=case))
    (line,) = _run(str(script))
    assert line.startswith("CoopTypeError ") and message in line, line


_BAD_NUMBA = """
import numpy as np
from cuda import coop
import cuda.coop.numba as numba_coop

def kernel(a, o):
    x = coop.ThreadData(4, np.float32)
    y = coop.ThreadData({y_items}, np.int32)
    if {case!r} == "unequal":
        coop.block.exchange((x, y), mode="striped_to_blocked")
    if {case!r} == "builtin":
        coop.block.reduce((x, y), "max")
    if {case!r} == "radix":
        coop.block.radix_sort((x, y))
    if {case!r} == "load":
        coop.block.load(a, (x, y))
    if {case!r} == "argtuple":
        coop.block.argmax((x, y))
    if {case!r} == "indices":
        coop.block.argmax(x, indices=x)
    if {case!r} == "shuffle":
        coop.warp.exchange((x, y), "blocked_to_striped", algorithm="shuffle", threads_in_warp=4)
    if {case!r} == "arity":
        coop.block.reduce((x, y), lambda p, q: p[0] + q[0])


try:
    numba_coop.compile(kernel, "void(float32[::1], float32[::1])", block=64)
    print("compiled")
except Exception as exc:
    print(type(exc).__name__, " ".join(str(exc).split()))
"""

_BAD_CUTE = """
import os
os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")
import cutlass
import cutlass.cute as cute
import cuda.coop.cutlass as cutlass_coop
from cuda import coop
from tests._cute_kernels import fake_tensor

@cute.kernel
def kernel(a: cute.Tensor, o: cute.Tensor):
    x = coop.ThreadData(4, cutlass.Float32)
    y = coop.ThreadData({y_items}, cutlass.Int32)
    if cutlass.const_expr({case!r} == "unequal"):
        coop.block.exchange((x, y), mode="striped_to_blocked")
    if cutlass.const_expr({case!r} == "builtin"):
        coop.block.reduce((x, y), "max")
    if cutlass.const_expr({case!r} == "radix"):
        coop.block.radix_sort((x, y))
    if cutlass.const_expr({case!r} == "load"):
        coop.block.load(a, (x, y))
    if cutlass.const_expr({case!r} == "argtuple"):
        coop.block.argmax((x, y))
    if cutlass.const_expr({case!r} == "indices"):
        coop.block.argmax(x, indices=x)
    if cutlass.const_expr({case!r} == "shuffle"):
        coop.warp.exchange((x, y), "blocked_to_striped", algorithm="shuffle", threads_in_warp=4)
    if cutlass.const_expr({case!r} == "arity"):
        coop.block.reduce((x, y), lambda p, q: p[0] + q[0])


@cute.jit
def host(a: cute.Tensor, o: cute.Tensor):
    kernel(a, o).launch(grid=(1, 1, 1), block=(64, 1, 1))


try:
    cutlass_coop.compile(host, fake_tensor("float32", 64), fake_tensor("float32", 64))
    print("compiled")
except Exception as exc:
    print(type(exc).__name__, " ".join(str(exc).split()))
"""


@pytest.mark.parametrize(
    ("case", "y_items", "message"),
    [
        ("unequal", 2, "have [2, 4] items"),
        ("builtin", 4, "only some built-in operators apply to tuples, field by field ('sum', 'mul')"),
        ("radix", 4, "coop.block.radix_sort: keys is a tuple"),
        ("radix", 4, "sort tuples with merge_sort and a comparator on tuples"),
        ("load", 4, "pass one array per field, of the field's type"),
        ("argtuple", 4, "coop.block.argmax: x is a tuple"),
        ("indices", 4, "indices must be a coop.ThreadData of 4 int32 items"),
        ("shuffle", 4, "algorithm='shuffle' moves each item with one __shfl_xor_sync"),
        ("arity", 4, "must return a tuple of 2 values"),
    ],
)
@pytest.mark.parametrize("backend", ["numba", "cute"])
def test_bad_tuples_are_typed_errors(
    backend: str, case: str, y_items: int, message: str, tmp_path: Path
) -> None:
    """Unequal items per thread, a built-in operator that is not field-wise, radix sort keys and a
    load's items as tuples (each says what to do instead), an operator returning one value for two
    fields: each a typed error naming the call's argument."""
    if backend == "cute":
        pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    script = tmp_path / f"bad_{backend}.py"  # CuTe reads the kernel's source from its file
    script.write_text({"numba": _BAD_NUMBA, "cute": _BAD_CUTE}[backend].format(case=case, y_items=y_items))
    (line,) = _run(str(script))
    assert line.startswith("CoopTypeError ") and message in line, line
    assert "bad_" in line.split()[1], line  # it names the call's line in the kernel
