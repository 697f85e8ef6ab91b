# SPDX-License-Identifier: Apache-2.0
"""Structured items, the core's part so far: the element-type table's field lists (laid out as C
structs) and the renderer's struct-of-arrays ABI (one pointer per field; the wrapper gathers them
into CUB's array of structs and scatters the result back). Kernels cannot pass tuples yet: the
kinds still take scalar element types only, so nothing here is reachable from a kernel."""

from __future__ import annotations

import numpy as np
import pytest
from cuda.coop._bundle import compile_bundle
from cuda.coop._dtypes import DTYPES, dtype_named, fields_of, tuple_dtype
from cuda.coop._errors import CoopTypeError
from cuda.coop._render import render_bundle
from cuda.coop._requests import Request

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
    source = render_bundle([req], ()).source
    assert "struct coop_tuple_float32_int32\n{\n  float f0;\n  int f1;\n};\n" in source
    body = source[source.index(f"void {req.symbol}(") :].split("\n}\n", 1)[0]
    assert f"void {req.symbol}(void* items_f0_, void* items_f1_, void* out_f0_, void* out_f1_)" in body
    assert "coop_tuple_float32_int32 items[3];" in body and "coop_tuple_float32_int32 out[3];" in body
    assert "items[i].f0 = items_f0[i]; items[i].f1 = items_f1[i];" in body  # gathered
    assert body.rstrip().endswith("out_f0[i] = out[i].f0; out_f1[i] = out[i].f1; }")  # scattered


def test_a_structured_value_is_gathered_and_its_result_scattered() -> None:
    req = Request("warp.broadcast", "tuple_int8_float16", (64, 1, 1), 1, (("threads_in_warp", "32"),),
                  ("scalar", "lane"))  # fmt: skip
    source = render_bundle([req], ()).source
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
    assert bundle.ltoir
    for req in reqs[:2]:
        size, align = bundle.temp_storage[req.symbol]
        want = np.dtype([(f"f{k}", _numpy(f)) for k, f in enumerate(fields_of(req.dtype))], align=True)
        assert size >= 96 * 3 * want.itemsize and align >= want.alignment, (req.dtype, size, align)
