# SPDX-License-Identifier: Apache-2.0
"""Source of the sorting test kernels for each DSL, generated from ``tests/_sort_cases.py``: the coop
calls are the same text in both; the scaffolding (indices, loops, types) is each DSL's own."""

from __future__ import annotations

from ._compute_kernels import _CUTE_TYPES
from ._sort_cases import GRID, TILES, Case, Config

_NUMBA = """
import numpy as np
from numba import cuda
from cuda import coop


def user_max(a, b):  # a plain Python function as an operator
    return a if a > b else b


def user_less(a, b):  # a plain Python function as a flag operator
    return a < b


def kernel(x, v, ok, ov, oi, begin, end, nvalid, mode):
    t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
    ts = coop.TempStorage()
{SHARED_NUMBA}    for tile in range({TILES}):
        base = (cuda.blockIdx.x * {TILES} + tile) * {TILE}
        keys = coop.ThreadData({IPT}, "{K}")
        vals = coop.ThreadData({IPT}, "{V}")
        for j in range({IPT}):
            keys[j] = x[base + t * {IPT} + j]
            vals[j] = v[base + t * {IPT} + j]
        cuda.syncthreads()
"""

_CUTE = """
import cutlass
import cutlass.cute as cute
from cutlass.memory import SmemAllocator
from cuda import coop


@cute.jit
def user_max(a, b):  # a @cute.jit function (control flow) as an operator
    r = b
    if a > b:
        r = a
    return r


def user_less(a, b):  # a plain Python function as a flag operator
    return a < b


@cute.kernel
def kernel(x: cute.Tensor, v: cute.Tensor, ok: cute.Tensor, ov: cute.Tensor, oi: cute.Tensor,
           begin: cutlass.Int32, end: cutlass.Int32, nvalid: cutlass.Int32, mode: cutlass.Int32):
    tx, ty, tz = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    t = tx + {BX} * (ty + {BY} * tz)
    ts = coop.TempStorage()
{SHARED_CUTE}    for tile in cutlass.range_constexpr({TILES}):
        base = (bidx * {TILES} + tile) * {TILE}
        keys = coop.ThreadData({IPT}, cutlass.{CK})
        vals = coop.ThreadData({IPT}, cutlass.{CV})
        for j in cutlass.range_constexpr({IPT}):
            keys[j] = x[base + t * {IPT} + j]
            vals[j] = v[base + t * {IPT} + j]
        cute.arch.barrier()
"""

_CUTE_HOST = """

@cute.jit
def host(x: cute.Tensor, v: cute.Tensor, ok: cute.Tensor, ov: cute.Tensor, oi: cute.Tensor,
         begin: cutlass.Int32, end: cutlass.Int32, nvalid: cutlass.Int32, mode: cutlass.Int32):
    kernel(x, v, ok, ov, oi, begin, end, nvalid, mode).launch(grid=({GRID}, 1, 1), block=({BX}, {BY}, {BZ}))
"""


def _body(cases: list[Case], loop: str, sync: str) -> list[str]:
    lines = []
    for m, case in enumerate(cases):
        lines.append(f"        if mode == {m}:")
        call = case.call.replace("{LOOP}", f"for j in {loop}:").replace("{SYNC}", sync)
        lines += [f"            {line}" for line in call.split("\n")]
        for items, array, layout in case.stores:
            index = "base + t * {IPT} + j" if layout == "blocked" else "base + j * {THREADS} + t"
            lines.append(f"            for j in {loop}:")
            lines.append(f"                {array}[{index}] = {items}[j]")
    return lines


def _fill(text: str, cfg: Config, *, cute: bool) -> str:
    bx, by, bz = cfg.block
    subst = {
        "{K}": cfg.key, "{V}": cfg.value, "{CK}": _CUTE_TYPES[cfg.key], "{CV}": _CUTE_TYPES[cfg.value],
        "{TILES}": str(TILES), "{TILE}": str(cfg.tile), "{THREADS}": str(cfg.threads), "{IPT}": str(cfg.ipt),
        "{I32}": "cutlass.Int32" if cute else '"int32"',
        "{KEY}": f"cutlass.{_CUTE_TYPES[cfg.key]}" if cute else "",  # a literal as a key: CuTe casts
        "{BX}": str(bx), "{BY}": str(by), "{BZ}": str(bz), "{GRID}": str(GRID),
        "{SHARED_NUMBA}": f"    sh = cuda.shared.array({cfg.bins}, np.int32)\n" if cfg.bins else "",
        "{SHARED_CUTE}": "    sh = SmemAllocator().allocate_tensor(cutlass.Int32, cute.make_layout("
        f"{cfg.bins}), 16)\n" if cfg.bins else "",
    }  # fmt: skip
    for k, v in subst.items():
        text = text.replace(k, v)
    return text


def numba_source(cfg: Config, cases: list[Case]) -> str:
    """A module defining ``kernel`` (to be compiled with ``cuda.coop.numba.jit``)."""
    return _fill(
        _NUMBA + "\n".join(_body(cases, "range({IPT})", "cuda.syncthreads()")) + "\n", cfg, cute=False
    )


def cute_source(cfg: Config, cases: list[Case]) -> str:
    """A module defining the ``@cute.kernel`` and its ``@cute.jit`` launcher ``host``."""
    body = _body(cases, "cutlass.range_constexpr({IPT})", "cute.arch.barrier()")
    return _fill(_CUTE + "\n".join(body) + _CUTE_HOST, cfg, cute=True)
