# SPDX-License-Identifier: Apache-2.0
"""Source of the compute test kernels for each DSL, generated from the shared cases: the coop
calls are the same text in both; the scaffolding (indices, loops, types) is each DSL's own.

The sources are written to files and imported: CuTe reads a kernel's source when it traces it.
"""

from __future__ import annotations

import atexit
import functools
import importlib.util
import shutil
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from ._compute_cases import TILES, Case, Config

#: The imports and user operators at the top of every generated Numba kernel module.
NUMBA_PRELUDE = """
import numpy as np
from numba import cuda
from cuda import coop


def user_max(a, b):  # a plain Python function as an operator
    return a if a > b else b


@cuda.jit(device=True)
def user_min(a, b):  # a Numba device function as an operator
    return b if b < a else a


def user_add(a, b):
    return a + b
"""

_NUMBA_HEADER = (
    NUMBA_PRELUDE
    + """

def kernel(x, out, red, agg, ranks_in, granks_in, flags_in, init_in, nvalid, mode):
    t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
    run = coop.ThreadData(1, "{T}")
    run[0] = init_in[0]
    iv = init_in[0]
    for tile in range({TILES}):
        base = (cuda.blockIdx.x * {TILES} + tile) * {TILE}
        rbase = (cuda.blockIdx.x * {TILES} + tile) * {THREADS}
        items = coop.ThreadData({IPT}, "{T}")
        dst = coop.ThreadData({IPT}, "{T}")
        rk = coop.ThreadData({IPT}, "int32")
        grk = coop.ThreadData({IPT}, "int32")
        fl = coop.ThreadData({IPT}, "uint8")
        for j in range({IPT}):
            items[j] = x[base + t * {IPT} + j]
            dst[j] = items[j]
            rk[j] = ranks_in[base + t * {IPT} + j]
            grk[j] = granks_in[base + t * {IPT} + j]
            fl[j] = flags_in[base + t * {IPT} + j]
        s = items[0]
"""
)

#: The imports, the element type ``T`` and user operators at the top of every generated CuTe module.
CUTE_PRELUDE = """
import cutlass
import cutlass.cute as cute
from cuda import coop

T = cutlass.{CT}


@cute.jit
def user_max(a, b):  # a @cute.jit function (control flow) as an operator
    r = a
    if b > a:
        r = b
    return r


@cute.jit
def user_min(a, b):
    r = a
    if b < a:
        r = b
    return r


def user_add(a, b):  # a plain Python function (straight-line) as an operator
    return a + b
"""

_CUTE_HEADER = (
    CUTE_PRELUDE
    + """

@cute.kernel
def kernel(x: cute.Tensor, out: cute.Tensor, red: cute.Tensor, agg: cute.Tensor, ranks_in: cute.Tensor,
           granks_in: cute.Tensor, flags_in: cute.Tensor, init_in: cute.Tensor, nvalid: cutlass.Int32,
           mode: cutlass.Int32):
    tx, ty, tz = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    t = tx + {BX} * (ty + {BY} * tz)
    run = coop.ThreadData(1, T)
    run[0] = init_in[0]
    iv = init_in[0]
    for tile in cutlass.range_constexpr({TILES}):
        base = (bidx * {TILES} + tile) * {TILE}
        rbase = (bidx * {TILES} + tile) * {THREADS}
        items = coop.ThreadData({IPT}, T)
        dst = coop.ThreadData({IPT}, T)
        rk = coop.ThreadData({IPT}, cutlass.Int32)
        grk = coop.ThreadData({IPT}, cutlass.Int32)
        fl = coop.ThreadData({IPT}, cutlass.Uint8)
        for j in cutlass.range_constexpr({IPT}):
            items[j] = x[base + t * {IPT} + j]
            dst[j] = items[j]
            rk[j] = ranks_in[base + t * {IPT} + j]
            grk[j] = granks_in[base + t * {IPT} + j]
            fl[j] = flags_in[base + t * {IPT} + j]
        s = items[0]
"""
)

_CUTE_HOST = """

@cute.jit
def host(x: cute.Tensor, out: cute.Tensor, red: cute.Tensor, agg: cute.Tensor, ranks_in: cute.Tensor,
         granks_in: cute.Tensor, flags_in: cute.Tensor, init_in: cute.Tensor, nvalid: cutlass.Int32,
         mode: cutlass.Int32):
    kernel(x, out, red, agg, ranks_in, granks_in, flags_in, init_in, nvalid, mode).launch(
        grid=({GRID}, 1, 1), block=({BX}, {BY}, {BZ}))
"""

_CUTE_TYPES = {
    "int8": "Int8", "int16": "Int16", "int32": "Int32", "int64": "Int64",
    "uint8": "Uint8", "uint16": "Uint16", "uint32": "Uint32", "uint64": "Uint64",
    "float16": "Float16", "bfloat16": "BFloat16", "float32": "Float32", "float64": "Float64",
}  # fmt: skip


def _body(cases: list[Case], loop: str) -> list[str]:
    lines = []
    for m, case in enumerate(cases):
        items, scalar, aggregate = case.outputs(m)
        lines.append(f"        if mode == {m}:")
        lines.append(f"            {case.statement(m)}")
        if items:
            lines.append(f"            for j in {loop}:")
            lines.append(f"                out[base + t * IPT + j] = {items}[j]")
        if scalar:
            lines.append(f"            red[rbase + t] = {scalar}")
        if aggregate:
            lines.append(f"            agg[rbase + t] = {aggregate}")
    return lines


def fill(text: str, cfg: Any, grid: int, extra: dict[str, object]) -> str:
    """A kernel template with its placeholders replaced: ``extra``'s (the module's own), then those
    every test kernel has (``cfg``'s element type, items per thread and block shape; the grid)."""
    bx, by, bz = cfg.block
    subst = {
        **{k: str(v) for k, v in extra.items()},
        "{T}": cfg.dtype, "{CT}": _CUTE_TYPES[cfg.dtype], "{IPT}": str(cfg.ipt),
        "{BX}": str(bx), "{BY}": str(by), "{BZ}": str(bz), "{GRID}": str(grid),
        "IPT": str(cfg.ipt),  # last: also in ``{IPT}``
    }  # fmt: skip
    for k, v in subst.items():
        text = text.replace(k, v)
    return text


def _fill(text: str, cfg: Config) -> str:
    from ._compute_cases import GRID

    return fill(text, cfg, GRID, {"{TILES}": TILES, "{TILE}": cfg.tile, "{THREADS}": cfg.threads})


def numba_source(cfg: Config, cases: list[Case]) -> str:
    """A module defining ``kernel`` (to be compiled with ``cuda.coop.numba.jit``)."""
    return _fill(_NUMBA_HEADER + "\n".join(_body(cases, "range(IPT)")) + "\n", cfg)


def numba_signature(types: Any, arr: Any) -> tuple[Any, ...]:
    """The Numba signature of ``numba_source``'s ``kernel`` (x, out, red, agg, ranks_in, granks_in,
    flags_in, init_in, nvalid, mode) whose element arrays are ``arr``; ``types`` is the DSL's Numba
    types module (numba-cuda's or numba-cuda-mlir's)."""
    i32 = types.int32
    return (arr, arr, arr, arr, i32[::1], i32[::1], types.uint8[::1], arr, i32, i32)


def cute_source(cfg: Config, cases: list[Case]) -> str:
    """A module defining the ``@cute.kernel`` and its ``@cute.jit`` launcher ``host``."""
    return _fill(_CUTE_HEADER + "\n".join(_body(cases, "cutlass.range_constexpr(IPT)")) + _CUTE_HOST, cfg)


_DIR = Path(tempfile.mkdtemp(prefix="coop-test-kernels-"))
atexit.register(functools.partial(shutil.rmtree, _DIR, ignore_errors=True))


def load(name: str, source: str) -> ModuleType:
    """Import generated source as a module (from a file, so that its source can be read)."""
    path = _DIR / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
