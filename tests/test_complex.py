# SPDX-License-Identifier: Apache-2.0
"""Complex numbers, ahead of time (no GPU): the element-type table's complex64 / complex128
(``cuda::std::complex``, libcu++'s alignment, as NVRTC measures it), the renderer's complex product,
the kinds' choices (which rows and built-ins take complex numbers), Numba's allocas aligned to the
C++ type, and the kernels of ``tests/_complex_kernels.py`` compiled on both DSLs to one function with
no CALL and no local memory (Numba: complex items; CuTe and Numba: ``(re, im)`` pairs)."""

from __future__ import annotations

import pytest
from cuda.coop._bundle import compile_bundle
from cuda.coop._dtypes import DTYPES, REAL_DTYPES, complex_pair, is_complex
from cuda.coop._errors import CoopTypeError, CoopValueError
from cuda.coop._render import render_requests
from cuda.coop._requests import Request

from ._reference import run_python

_run = run_python  # kernels in a process of their own


def test_complex_types_are_libcudacxx_complex_numbers() -> None:
    for name, part, size in (("complex64", "float32", 8), ("complex128", "float64", 16)):
        d = DTYPES[name]
        assert (d.itemsize, d.alignment, d.part, d.header) == (size, size, part, "cuda/std/complex")
        assert d.cxx == f"::cuda::std::complex<{DTYPES[part].cxx}>" and d.structured and is_complex(name)
    assert not any(is_complex(n) or DTYPES[n].structured for n in REAL_DTYPES)
    assert complex_pair("tuple_float32_float32") == "float32" and complex_pair("tuple_float16_float16")
    assert complex_pair("tuple_float32_float64") is None and complex_pair("tuple_int32_int32") is None
    assert complex_pair("tuple_float32_float32_float32") is None and complex_pair("complex64") is None


def test_nvrtc_agrees_with_the_table() -> None:
    """NVRTC, with the bundle's own options and headers: each complex type's C++ spelling has the
    table's size and alignment (libcu++ declares them alignas(2 * sizeof(part)))."""
    from cuda.coop._bundle import _options
    from cuda.core import Program, ProgramOptions

    complex_types = [d for d in DTYPES.values() if is_complex(d.name)]
    source = "".join(f"#include <{h}>\n" for h in sorted({d.header for d in complex_types}))
    for d in complex_types:
        facts = f"sizeof({d.cxx}) == {d.itemsize} && alignof({d.cxx}) == {d.alignment}"
        source += f'static_assert({facts}, "{d.name}");\n'
    program = Program(source, "c++", ProgramOptions(**_options("sm_90a")))  # type: ignore[arg-type]
    try:
        assert program.compile("ltoir").code is not None
    finally:
        program.close()


@pytest.mark.parametrize(
    ("value", "ok"),
    [(1 + 2j, True), (3, True), (-0.5, True), (complex("nan+infj"), True), (1e39 + 0j, False),
     (1j * 1e39, False), (True, False), ("1+2j", False)],
)  # fmt: skip
def test_a_complex_constant_must_be_representable(value: object, ok: bool) -> None:
    if ok:
        DTYPES["complex64"].check_representable(value, primitive="p", argument="a")
        return
    error = CoopValueError if isinstance(value, complex) else CoopTypeError
    with pytest.raises(error, match="p: a"):
        DTYPES["complex64"].check_representable(value, primitive="p", argument="a")
    DTYPES["complex128"].check_representable(1e39 + 0j, primitive="p", argument="a")  # a double holds it


def test_the_bundle_includes_complex_and_its_product() -> None:
    scan = ("block.inclusive_scan", (128, 1, 1), 4)
    reqs = [
        Request(scan[0], "complex64", *scan[1:], (("algorithm", "raking"), ("op", "complex_mul"))),
        Request(scan[0], "complex128", *scan[1:], (("algorithm", "raking"), ("op", "mul"))),
    ]
    source = render_requests(reqs).source
    assert "#include <cuda/std/complex>" in source
    assert "#include <coop/complex.cuh>\n" in source  # the product's specialisation for complex
    assert "coop_complex_multiplies<::cuda::std::complex<float>>{}" in source
    assert "::cuda::std::multiplies<::cuda::std::complex<double>>{}" in source  # 'mul': libcu++'s product
    body = source[source.index(f"void {reqs[0].symbol}(") :]
    assert (
        "::cuda::std::complex<float> (&x)[4] = *static_cast<::cuda::std::complex<float> (*)[4]>(x_);" in body
    )
    assert compile_bundle(reqs, (), "sm_90a").objects


def test_a_pair_of_floats_gets_the_product_but_no_complex_header() -> None:
    req = Request("block.inclusive_scan", "tuple_float32_float32", (128, 1, 1), 2,
                  (("algorithm", "raking"), ("op", "complex_mul")))  # fmt: skip
    source = render_requests([req]).source
    assert "#include <coop/complex_multiplies.cuh>\n" in source and "cuda/std/complex" not in source
    assert "#include <coop/complex.cuh>" not in source
    assert "coop_complex_multiplies<coop_tuple_float32_float32>{}" in source
    assert compile_bundle([req], (), "sm_90a").objects


def test_numba_hands_the_bundle_storage_aligned_as_cxx_complex() -> None:
    """Every alloca a coop call hands to the bundle (ThreadData, results, spilled scalars and
    constants) of complex type has at least libcu++'s alignment (Numba's own would be a part's:
    an 8- or 16-byte access to a 4- or 8-aligned address faults on the GPU)."""
    lines = _run("-m", "tests._complex_kernels", "ir", "numba")
    seen = {(d, name) for d, name, _ in map(str.split, lines)}
    assert {
        ("complex64", "coop_thread_data"),
        ("complex128", "coop_result"),
        ("complex64", "coop_value"),
    } <= seen
    for dtype, name, align in map(str.split, lines):
        assert int(align) >= DTYPES[dtype].alignment, (dtype, name, align)


def test_numba_keeps_complex_items_in_registers() -> None:
    """The complex64 / complex128 kernels (load, sums, scans with 'mul', a user product and a
    complex constant, shuffle, warp sum / scan / broadcast, exchange, store), a kernel over the other
    rows that take complex numbers, one over every algorithm, mode and arrangement on complex128,
    and the (re, im) pair kernels: one function each, no CALL, no local memory."""
    assert _run("-m", "tests._complex_kernels", "aot", "numba") == [
        f"{n} 0 0 0 1"
        for n in (
            "complex64-4",
            "complex128-3",
            "complex64-1",
            "breadth",
            "algorithms",
            "pair-float32-4",
            "pair-float64-3",
        )
    ]


def test_cute_keeps_complex_pairs_in_registers() -> None:
    """The CuTe spelling: 2-tuples (re, im) scanned with 'complex_mul' and a user product, summed,
    scanned over logical warps; one function each, no CALL, no local memory."""
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    assert _run("-m", "tests._complex_kernels", "aot", "cute") == [
        "pair-float32-4 0 0 0 1",
        "pair-float64-3 0 0 0 1",
    ]


def test_the_benchmark_complex64_kernel_compiles() -> None:
    """benchmarks/structured.py's complex64 row (complex64 ThreadData, a vectorized load, the block
    sum) is taken by the catalog and keeps its items in registers."""
    lines = _run("-c", _BENCHMARK)
    assert lines == ["None", "0 0 0 1"], lines


_BENCHMARK = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("structured_bench", "benchmarks/structured.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
import cuda.coop.numba as numba_coop
kernel = bench.numba_complex_sum(256, 4, "complex64")
sig = bench.NUMBA_SIGS["complex64"]
print(bench.complex64_reason(kernel, sig, 256))
r = numba_coop.compile(kernel, sig, block=256).inspect()
print(r.calls, r.local_loads, r.local_stores, len(r.functions))
"""
