# SPDX-License-Identifier: Apache-2.0
"""Structured items, the core's part so far: the element-type table's field lists (laid out as C
structs) and the renderer's struct-of-arrays ABI (one pointer per field; the wrapper gathers them
into CUB's array of structs and scatters the result back). Kernels cannot pass tuples yet: the
kinds still take scalar element types only, so nothing here is reachable from a kernel."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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


# --- the Numba backend's plumbing, through rows that take structured items (none shipped yet) ----

_NUMBA_SCRIPT = '''
import dataclasses
import numpy as np
from cuda import coop
from cuda.coop import _catalog
from cuda.coop._catalog import CATALOG
import cuda.coop.numba as numba_coop
from numba import cuda


def structured(key, name):
    """A copy of a shipped row whose payload takes tuples (what a later release ships)."""
    row = CATALOG[key]
    p = row.payload
    kind = dataclasses.replace(p.kind, structured=True)
    params = tuple(dataclasses.replace(q, kind=kind) if q is p else q for q in row.params)
    return _catalog.add(dataclasses.replace(row, name=name, params=params))


structured("block.reduce", "struct_reduce")
structured("block.exchange", "struct_exchange")
structured("warp.reduce", "struct_warp_reduce")


def argmax(a, b):  # (value, index): the larger value, ties to the smaller index
    if b[0] > a[0] or (b[0] == a[0] and b[1] < a[1]):
        return b
    return a


def reduce_kernel(src, dst_v, dst_i):
    t = cuda.threadIdx.x
    v = coop.ThreadData(4, np.float32)
    ix = coop.ThreadData(4, np.int32)
    for i in range(4):
        v[i] = src[t * 4 + i]
        ix[i] = t * 4 + i
    best = coop.block.struct_reduce((v, ix), argmax)
    if t == 0:
        dst_v[0] = best[0]
        dst_i[0] = best[1]


def exchange_kernel(a, b, oa, ob):
    t = cuda.threadIdx.x
    x = coop.ThreadData(3, np.float64)
    y = coop.ThreadData(3, np.int8)
    for i in range(3):
        x[i] = a[t * 3 + i]
        y[i] = b[t * 3 + i]
    coop.block.struct_exchange((x, y), mode="striped_to_blocked")
    for i in range(3):
        oa[t * 3 + i] = x[i]
        ob[t * 3 + i] = y[i]


def combine(p, q):
    return p[0] + q[0], min(p[1], q[1]), max(p[2], q[2])


def warp_kernel(a, o):
    t = cuda.threadIdx.x
    s = coop.warp.struct_warp_reduce((a[t], np.int32(t), a[t] * 2), combine)
    if t % 32 == 0:
        o[t // 32] = s[0] + s[2] + s[1]


for name, kernel, sig, block in (
    ("reduce", reduce_kernel, "void(float32[::1], float32[::1], int32[::1])", 128),
    ("exchange", exchange_kernel, "void(float64[::1], int8[::1], float64[::1], int8[::1])", 96),
    ("warp", warp_kernel, "void(float32[::1], float32[::1])", 64),
):
    compiled = numba_coop.compile(kernel, sig, block=block)
    r = compiled.inspect()
    print(name, r.calls, r.local_loads, r.local_stores, len(r.functions), sorted(compiled.temp_storage))


def unequal(a, o):
    x = coop.ThreadData(4, np.float32)
    y = coop.ThreadData(2, np.int32)
    coop.block.struct_exchange((x, y), mode="striped_to_blocked")


def builtin(a, o):
    x = coop.ThreadData(4, np.float32)
    y = coop.ThreadData(4, np.int32)
    coop.block.struct_reduce((x, y), "max")


def shipped(a, o):
    x = coop.ThreadData(4, np.float32)
    y = coop.ThreadData(4, np.int32)
    coop.block.exchange((x, y), mode="striped_to_blocked")


for name, kernel in (("unequal", unequal), ("builtin", builtin), ("shipped", shipped)):
    try:
        numba_coop.compile(kernel, "void(float32[::1], float32[::1])", block=64)
        print(name, "compiled")
    except coop.CoopError as exc:
        print(name, type(exc).__name__, str(exc).splitlines()[0])
'''


def test_numba_passes_tuples_as_structs_in_registers(tmp_path: Path) -> None:
    """argmax as a block reduce over (float32, int32) with a user operator, a striped-to-blocked
    exchange of (float64, int8), a warp reduce of a 3-tuple of scalars: one kernel function each,
    no CALL, no local memory; bad tuples get typed errors naming the argument."""
    script = tmp_path / "structured.py"
    script.write_text(_NUMBA_SCRIPT)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = {line.split()[0]: line for line in out.stdout.splitlines()}
    assert lines["reduce"].startswith("reduce 0 0 0 1")
    assert lines["exchange"].startswith("exchange 0 0 0 1") and "tuple_float64_int8" in lines["exchange"]
    assert lines["warp"].startswith("warp 0 0 0 1")
    assert "CoopTypeError" in lines["unequal"] and "x" in lines["unequal"]
    assert "items per thread; a tuple of items needs them equal" in lines["unequal"]
    assert "'max': built-in operators take scalar items" in lines["builtin"]
    assert "coop.block.exchange: items is a tuple" in lines["shipped"]
    assert "takes items of one scalar type" in lines["shipped"]


_CUTE_SCRIPT = """import dataclasses
import os
import sys

os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")
sys.path.insert(0, {root!r})
import cutlass, cutlass.cute as cute
import cuda.coop.cutlass as cutlass_coop
from cuda import coop
from cuda.coop import _catalog
from cuda.coop._catalog import CATALOG
from tests._cute_kernels import fake_tensor

def structured(key, name):
    row = CATALOG[key]; p = row.payload
    kind = dataclasses.replace(p.kind, structured=True)
    params = tuple(dataclasses.replace(q, kind=kind) if q is p else q for q in row.params)
    return _catalog.add(dataclasses.replace(row, name=name, params=params))

structured("block.reduce", "struct_reduce")
structured("block.exchange", "struct_exchange")
structured("warp.reduce", "struct_warp_reduce")

def argmax(a, b):
    take = (b[0] > a[0]) | ((b[0] == a[0]) & (b[1] < a[1]))
    return (cutlass.select_(take, b[0], a[0]), cutlass.select_(take, b[1], a[1]))

@cute.kernel
def k(src: cute.Tensor, dst: cute.Tensor, idx: cute.Tensor):
    t, _, _ = cute.arch.thread_idx()
    v = coop.ThreadData(4, cutlass.Float32)
    ix = coop.ThreadData(4, cutlass.Int32)
    for i in cutlass.range_constexpr(4):
        v[i] = src[t * 4 + i]
        ix[i] = t * 4 + i
    best = coop.block.struct_reduce((v, ix), argmax)
    if t == 0:
        dst[0] = best[0]
        idx[0] = best[1]

@cute.jit
def host(src: cute.Tensor, dst: cute.Tensor, idx: cute.Tensor):
    k(src, dst, idx).launch(grid=(1, 1, 1), block=(128, 1, 1))

fakes = fake_tensor("float32", 512), fake_tensor("float32", 1), fake_tensor("int32", 1)
c = cutlass_coop.compile(host, *fakes)
r = c.inspect(); print("reduce", r.calls, r.local_loads, r.local_stores, len(r.functions))

@cute.kernel
def k2(a: cute.Tensor, b: cute.Tensor, oa: cute.Tensor, ob: cute.Tensor):
    t, _, _ = cute.arch.thread_idx()
    x = coop.ThreadData(3, cutlass.Float64)
    y = coop.ThreadData(3, cutlass.Int8)
    for i in cutlass.range_constexpr(3):
        x[i] = a[t * 3 + i]; y[i] = b[t * 3 + i]
    coop.block.struct_exchange((x, y), mode="striped_to_blocked")
    for i in cutlass.range_constexpr(3):
        oa[t * 3 + i] = x[i]; ob[t * 3 + i] = y[i]

@cute.jit
def host2(a: cute.Tensor, b: cute.Tensor, oa: cute.Tensor, ob: cute.Tensor):
    k2(a, b, oa, ob).launch(grid=(1, 1, 1), block=(96, 1, 1))

fakes = [fake_tensor(t, 288) for t in ("float64", "int8", "float64", "int8")]
c = cutlass_coop.compile(host2, *fakes)
r = c.inspect(); print("exchange", r.calls, r.local_loads, r.local_stores, len(r.functions))

def combine(p, q):
    return (p[0] + q[0], cutlass.min(p[1], q[1]), cutlass.max(p[2], q[2]))

@cute.kernel
def k3(a: cute.Tensor, o: cute.Tensor):
    t, _, _ = cute.arch.thread_idx()
    s = coop.warp.struct_warp_reduce((a[t], cutlass.Int32(t), a[t] * 2), combine)
    if t % 32 == 0:
        o[t // 32] = s[0] + s[2] + cutlass.Float32(s[1])

@cute.jit
def host3(a: cute.Tensor, o: cute.Tensor):
    k3(a, o).launch(grid=(1, 1, 1), block=(64, 1, 1))

c = cutlass_coop.compile(host3, fake_tensor("float32", 64), fake_tensor("float32", 2))
r = c.inspect(); print("warp", r.calls, r.local_loads, r.local_stores, len(r.functions))


@cute.kernel
def bad(a: cute.Tensor, o: cute.Tensor):
    x = coop.ThreadData(4, cutlass.Float32)
    y = coop.ThreadData({y_items}, cutlass.Int32)
    if cutlass.const_expr({case!r} == "builtin"):
        coop.block.struct_reduce((x, y), "max")
    if cutlass.const_expr({case!r} == "shipped"):
        coop.block.exchange((x, y), mode="striped_to_blocked")
    if cutlass.const_expr({case!r} == "unequal"):
        coop.block.struct_exchange((x, y), mode="striped_to_blocked")
    if cutlass.const_expr({case!r} == "arity"):
        coop.block.struct_reduce((x, y), lambda p, q: p[0] + q[0])


@cute.jit
def bad_host(a: cute.Tensor, o: cute.Tensor):
    bad(a, o).launch(grid=(1, 1, 1), block=(64, 1, 1))


try:
    cutlass_coop.compile(bad_host, fake_tensor("float32", 64), fake_tensor("float32", 64))
    print({case!r}, "compiled")
except Exception as exc:
    print({case!r}, type(exc).__name__, str(exc).replace("\\n", " "))
"""


@pytest.mark.parametrize(
    ("case", "y_items", "message"),
    [
        ("unequal", 2, "a tuple of items needs them equal"),
        ("builtin", 4, "op='max': built-in operators take scalar items"),
        ("shipped", 4, "coop.block.exchange: items is a tuple"),
        ("arity", 4, "must return a tuple of 2 values (one per field)"),
    ],
)
def test_cute_passes_tuples_as_structs_in_registers(
    case: str, y_items: int, message: str, tmp_path: Path
) -> None:
    """The same three kernels as on Numba, in CuTe (tuples of register tensors and of numerics, a
    user operator on tuples traced into the module): one function, no CALL, no local memory; and
    each bad tuple's typed error."""
    pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
    script = tmp_path / "structured_cute.py"
    root = str(Path(__file__).resolve().parents[1])
    script.write_text(_CUTE_SCRIPT.format(root=root, y_items=y_items, case=case))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = {line.split()[0]: line for line in out.stdout.splitlines() if line.strip()}
    for name in ("reduce", "exchange", "warp"):
        assert lines[name] == f"{name} 0 0 0 1", out.stdout
    assert message in lines[case], lines[case]


@pytest.mark.gpu
@pytest.mark.parametrize("backend", ["numba", "cute"])
def test_structured_rows_on_the_gpu(backend: str) -> None:
    """The rows copied with structured=True, on the GPU against NumPy (fresh random data, poisoned
    outputs): argmax over (float32, int32) with ties, a striped-to-blocked exchange of
    (float64, int8), a warp reduce of a 3-tuple on logical warps of 8 lanes. A process of its own:
    the copied rows do not leak into other tests' catalog."""
    if backend == "cute":
        pytest.importorskip("cutlass", reason="nvidia-cutlass-dsl is not installed")
        pytest.importorskip("torch", reason="the CuTe half moves data with torch")
    out = subprocess.run(
        [sys.executable, "-m", "tests._structured_gpu", backend],
        capture_output=True, text=True, check=False, cwd=Path(__file__).resolve().parents[1],
    )  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    checks = ("argmax_value", "argmax_index", "exchange_float64", "exchange_int8", "warp_reduce")
    assert [line.split()[0] for line in lines] == list(checks), out.stdout
    assert all(line.endswith(" ok") for line in lines), out.stdout
