# SPDX-License-Identifier: Apache-2.0
"""The common API on the host: stubs, enums, validation, registry."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import textwrap

import pytest
from cuda import coop
from cuda.coop._catalog import CATALOG
from cuda.coop._catalog._common import BLOCK_LOAD_ALGORITHMS
from cuda.coop._catalog.load_store import LOAD, STORE
from cuda.coop._dims import normalize_block_dims
from cuda.coop._dtypes import DTYPES, dtype_named
from cuda.coop._kinds import Arg, Form
from cuda.coop._primitive import Launch


@pytest.mark.parametrize(
    "call",
    [
        lambda: coop.block.load([1], None),
        lambda: coop.block.store([1], None, algorithm="striped"),
        lambda: coop.block.reduce(1.0, "max"),
        lambda: coop.block.inclusive_sum(1),
        lambda: coop.block.exchange([1], "blocked_to_striped"),
        lambda: coop.ThreadData(4, "int32"),
        lambda: coop.TempStorage(),
    ],
    ids=["load", "store", "reduce", "inclusive_sum", "exchange", "ThreadData", "TempStorage"],
)
def test_kernel_side_calls_raise_on_host(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(coop.CoopHostCallError, match="kernel-side function"):
        call()


def test_stubs_carry_the_declared_signature_and_docs() -> None:
    for prim in CATALOG.values():
        stub = getattr(getattr(coop, prim.scope), prim.name)
        sig = inspect.signature(stub)
        assert list(sig.parameters) == [p.name for p in prim.params]
        assert sig.parameters["threads_per_block"].kind is inspect.Parameter.KEYWORD_ONLY
        assert stub.__doc__ and prim.summary in stub.__doc__
        for p in prim.params:
            assert f"{p.name}:" in stub.__doc__
        assert stub.__module__ == f"cuda.coop.{prim.scope}"
    assert inspect.signature(coop.block.load).parameters["algorithm"].default == "direct"
    assert inspect.signature(coop.block.reduce).parameters["algorithm"].default == "warp_reductions"


@pytest.mark.parametrize("value", ["vectorize", "VECTORIZE", coop.BlockLoadAlgorithm.VECTORIZE])
def test_algorithm_accepts_strings_and_enums(value: object) -> None:
    assert BLOCK_LOAD_ALGORITHMS.normalize(value) == "vectorize"


def _resolve(prim: object, **args: object) -> object:
    """Resolve a call with constants (or Args) for arguments, in a launch of 128 threads unless
    threads_per_block is given."""
    facts = {k: v if isinstance(v, Arg) else Arg(Form.CONSTANT, repr(v), value=v) for k, v in args.items()}
    launch = Launch(None if "threads_per_block" in args else (128, 1, 1), "block dimensions are unknown")
    return prim.resolve(facts, launch).request  # type: ignore[attr-defined]


def _td(dtype: str, n: int = 4) -> Arg:
    return Arg(Form.THREAD_DATA, f"ThreadData({dtype}, {n})", dtype, dtype, n)


def _array(dtype: str) -> Arg:
    return Arg(Form.ARRAY, f"array({dtype})", dtype, dtype)


def test_unknown_algorithm_names_the_choices() -> None:
    with pytest.raises(coop.CoopValueError, match="unknown algorithm='fastest'.*warp_transpose_timesliced"):
        _resolve(STORE, dst=_array("int32"), items=_td("int32"), algorithm="fastest")
    with pytest.raises(ValueError):  # also a ValueError; and a member of another enum is refused
        _resolve(LOAD, src=_array("int32"), items=_td("int32"), algorithm=coop.BlockStoreAlgorithm.DIRECT)


def test_enums_match_between_load_and_store() -> None:
    assert [a.value for a in coop.BlockLoadAlgorithm] == [a.value for a in coop.BlockStoreAlgorithm]


@pytest.mark.parametrize(
    ("dims", "want"),
    [(96, (96, 1, 1)), ((8, 16), (8, 16, 1)), ((4, 8, 4), (4, 8, 4)), ((1024,), (1024, 1, 1))],
)
def test_block_dims_normalise(dims: object, want: tuple[int, int, int]) -> None:
    assert normalize_block_dims(dims, what="x") == want


@pytest.mark.parametrize("dims", [0, -1, (0, 2), (2, 2, 2, 2), (1025,), (64, 32), "128", 1.5, True])
def test_block_dims_reject(dims: object) -> None:
    with pytest.raises(coop.CoopLaunchConfigError):
        normalize_block_dims(dims, what="block")


@pytest.mark.parametrize(
    ("dtype", "value", "ok"),
    [
        ("int8", 127, True),
        ("int8", 128, False),
        ("int8", -128, True),
        ("uint32", -1, False),
        ("uint64", 2**64 - 1, True),
        ("int64", 2**63, False),
        ("int16", 2.5, False),
        ("float16", 70000.0, False),
        ("float16", 1.5, True),
        ("float32", float("inf"), True),
    ],
)
def test_oob_default_representability(dtype: str, value: object, ok: bool) -> None:
    check = lambda: dtype_named(dtype).check_representable(value, primitive="p", argument="oob_default")  # noqa: E731
    if ok:
        check()
    else:
        with pytest.raises(coop.CoopValueError, match="oob_default"):
            check()


def test_unknown_dtype_lists_supported() -> None:
    with pytest.raises(coop.CoopTypeError, match="complex32.*supported: int8.*complex128"):
        dtype_named("complex32")
    assert {"int8", "uint64", "float16", "bfloat16", "float64", "complex64", "complex128"} <= set(DTYPES)


def test_request_validation_before_any_cxx() -> None:
    src, items = _array("int32"), _td("int32")
    with pytest.raises(
        coop.CoopTypeError, match="src has element type int32 but items is a ThreadData of float32"
    ):
        _resolve(LOAD, src=src, items=_td("float32"))
    with pytest.raises(coop.CoopValueError, match="valid_items=-3 is negative"):
        _resolve(LOAD, src=src, items=items, valid_items=-3)
    with pytest.raises(coop.CoopValueError, match="oob_default is given without valid_items"):
        _resolve(LOAD, src=src, items=items, oob_default=0)
    with pytest.raises(coop.CoopTypeError, match="unexpected keyword argument 'oob_default'"):
        STORE.bind((), {"dst": 1, "items": 2, "valid_items": 3, "oob_default": 0})
    with pytest.raises(coop.CoopLaunchConfigError, match="multiple of 32"):
        _resolve(
            LOAD, src=_array("int8"), items=_td("int8"), algorithm="warp_transpose", threads_per_block=48
        )
    with pytest.raises(coop.CoopValueError, match="static limit"):
        _resolve(STORE, dst=src, items=_td("int32", 16), algorithm="transpose", threads_per_block=1024)
    with pytest.raises(coop.CoopLaunchConfigError, match="block dimensions are unknown"):
        LOAD.resolve({"src": src, "items": items}, Launch(None, "block dimensions are unknown"))
    scalar = Arg(Form.SCALAR, "int32", "int32", "int32")
    req = _resolve(LOAD, src=src, items=items, valid_items=scalar, oob_default=scalar)
    assert req.has("partial") and req.has("oob") and not req.caller_temp_storage  # type: ignore[attr-defined]


def test_register_unknown_backend() -> None:
    with pytest.raises(
        coop.CoopBackendError, match="unknown backend 'triton'; known backends: numba, cutlass"
    ):
        coop.register("triton")


def test_register_is_idempotent() -> None:
    coop.register("numba")
    coop.register("numba")
    assert coop.registered_backends().count("numba") == 1


def _python(code: str, **env_vars: str) -> str:
    env = {**os.environ, **env_vars}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


_COMPILE = """
import numpy as np
import cuda.coop.numba as numba_coop
from numba import cuda as nc
def k(src, dst):
    items = coop.ThreadData(2, np.int16)
    coop.block.load(src, items, algorithm="striped")
    coop.block.store(dst, items, algorithm="striped")
r = numba_coop.compile(k, "void(int16[::1], int16[::1])", block=64).inspect()
print("calls", r.calls, coop.registered_backends())
"""


@pytest.mark.parametrize("order", ["numba-first", "coop-first"])
def test_register_in_either_import_order(order: str) -> None:
    first = (
        "import numba.cuda\nfrom cuda import coop\n"
        if order == "numba-first"
        else ("from cuda import coop\ncoop.register('numba')\nimport numba.cuda\n")
    )
    assert "calls 0 ('numba',)" in _python(first + _COMPILE)


def test_failed_activation_rolls_back_completely() -> None:
    out = _python(
        textwrap.dedent("""
        from cuda import coop
        import numba.cuda.typing.templates as templates
        from cuda.coop.numba import _numba_hooks
        before = _numba_hooks.snapshot()
        real = templates.infer_global
        calls = []
        def flaky(*a, **k):
            calls.append(a)
            if len(calls) == 3:
                raise RuntimeError("injected failure")
            return real(*a, **k)
        templates.infer_global = flaky
        try:
            coop.register("numba")
        except coop.CoopBackendError as e:
            print("raised:", e)
        after = _numba_hooks.snapshot()
        print("restored:", before == after, "backends:", coop.registered_backends())
        templates.infer_global = real
        coop.register("numba")  # the retry succeeds
        """)
        + _COMPILE,
        CUDA_COOP_NO_AUTOREGISTER="1",
    )
    assert "raised: backend 'numba' failed to activate: injected failure" in out
    assert "restored: True backends: ()" in out
    assert "calls 0 ('numba',)" in out
