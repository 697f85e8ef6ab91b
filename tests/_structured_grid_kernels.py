# SPDX-License-Identifier: Apache-2.0
"""Source of the structured-items grid kernels (``tests/_structured_cases.py``) for each DSL: the
scalar suites' coop calls unchanged, on kernel names that hold tuples of the config's fields.

A line's ``@`` stands for a field's index: :func:`_each` repeats a line per field, :func:`_tuple`
makes a tuple of an expression per field. The sources are written to files and imported (CuTe
reads a kernel's source when it traces it).
"""

from __future__ import annotations

from typing import Any

from ._compute_cases import TILES
from ._compute_kernels import _CUTE_TYPES, fill, load
from ._structured_cases import Config

__all__ = ["load", "numba_source", "cute_source"]


def _each(line: str, n: int) -> str:
    return "\n".join(line.replace("@", str(k)) for k in range(n))


def _tuple(expr: str, n: int) -> str:
    return "(" + ", ".join(expr.replace("@", str(k)) for k in range(n)) + ")"


def _names(base: str, n: int) -> str:
    return ", ".join(f"{base}{k}" for k in range(n))


def _ops(cfg: Config, numba: bool) -> str:
    """The module's imports and the field-wise user operators on tuples (built on per-field max and
    min helpers), for the field types of ``cfg``."""
    n = len(cfg.fields)
    if numba:
        head = """
import numpy as np
from numba import cuda
from cuda import coop


@cuda.jit(device=True)
def _max1(a, b):
    return a if a > b else b


@cuda.jit(device=True)
def _min1(a, b):
    return b if b < a else a

"""
        jit_min = "@cuda.jit(device=True)\n"
    else:
        types = "\n".join(f"T{k} = cutlass.{_CUTE_TYPES[f]}" for k, f in enumerate(cfg.fields))
        head = f"""
import cutlass
import cutlass.cute as cute
from cuda import coop

{types}


@cute.jit
def _max1(a, b):
    r = a
    if b > a:
        r = b
    return r


@cute.jit
def _min1(a, b):
    r = a
    if b < a:
        r = b
    return r

"""
        jit_min = "@cute.jit\n"
    return (
        head
        + f"""
def user_max(a, b):  # a plain Python function on tuples
    return {_tuple("_max1(a[@], b[@])", n)}


{jit_min}def user_min(a, b):  # a DSL function on tuples
    return {_tuple("_min1(a[@], b[@])", n)}


def user_add(a, b):
    return {_tuple("a[@] + b[@]", n)}
"""
    )


def _td(cfg: Config, numba: bool, items: str) -> str:
    """A tuple of ThreadData of ``items`` items, one per field."""
    n = len(cfg.fields)
    if numba:
        return "(" + ", ".join(f'coop.ThreadData({items}, "{f}")' for f in cfg.fields) + ")"
    return _tuple(f"coop.ThreadData({items}, T@)", n)


_NUMBA_TID = (
    "    t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)"
)
_CUTE_TID = (
    "    tx, ty, tz = cute.arch.thread_idx()\n    bidx, _, _ = cute.arch.block_idx()\n"
    "    t = tx + {BX} * (ty + {BY} * tz)"
)


def _block_header(cfg: Config, numba: bool) -> str:
    n = len(cfg.fields)
    params = [_names("x", n), _names("out", n), _names("red", n), _names("agg", n), "ranks_in", "granks_in",
              "flags_in", _names("init", n), "nvalid", "mode"]  # fmt: skip
    if numba:
        sig = f"def kernel({', '.join(params)}):"
        tid = _NUMBA_TID
        block = "cuda.blockIdx.x"
        loop, tiles = "range({IPT})", "range({TILES})"
        int32, uint8 = '"int32"', '"uint8"'
    else:
        ann = [", ".join(f"{p}: cute.Tensor" for p in ps.split(", ")) for ps in params[:-2]]
        sig = f"@cute.kernel\ndef kernel({', '.join(ann)}, nvalid: cutlass.Int32, mode: cutlass.Int32):"
        tid = _CUTE_TID
        block = "bidx"
        loop, tiles = "cutlass.range_constexpr({IPT})", "cutlass.range_constexpr({TILES})"
        int32, uint8 = "cutlass.Int32", "cutlass.Uint8"
    return f"""

{sig}
{tid}
    run = {_td(cfg, numba, "1")}
{_each("    run[@][0] = init@[0]", n)}
    iv = {_tuple("init@[0]", n)}
    for tile in {tiles}:
        base = ({block} * {{TILES}} + tile) * {{TILE}}
        rbase = ({block} * {{TILES}} + tile) * {{THREADS}}
        items = {_td(cfg, numba, "{IPT}")}
        dst = {_td(cfg, numba, "{IPT}")}
        rk = coop.ThreadData({{IPT}}, {int32})
        grk = coop.ThreadData({{IPT}}, {int32})
        fl = coop.ThreadData({{IPT}}, {uint8})
        for j in {loop}:
{_each("            items[@][j] = x@[base + t * {IPT} + j]", n)}
{_each("            dst[@][j] = items[@][j]", n)}
            rk[j] = ranks_in[base + t * {{IPT}} + j]
            grk[j] = granks_in[base + t * {{IPT}} + j]
            fl[j] = flags_in[base + t * {{IPT}} + j]
        s = {_tuple("items[@][0]", n)}
"""


def _block_body(cfg: Config, cases: list[Any], loop: str) -> list[str]:
    n = len(cfg.fields)
    lines = []
    for m, case in enumerate(cases):
        items, scalar, aggregate = case.outputs(m)
        lines.append(f"        if mode == {m}:")
        lines.append(f"            {case.statement(m)}")
        if items:
            lines.append(f"            for j in {loop}:")
            lines.append(_each(f"                out@[base + t * IPT + j] = {items}[@][j]", n))
        if scalar:
            lines.append(_each(f"            red@[rbase + t] = {scalar}[@]", n))
        if aggregate:
            lines.append(_each(f"            agg@[rbase + t] = {aggregate}[@]", n))
    return lines


def _warp_header(cfg: Config, numba: bool) -> str:
    n = len(cfg.fields)
    params = [_names("x", n), _names("out", n), _names("red", n), _names("agg", n), "vout", "ranks_in",
              _names("init", n), "nv", "ni", "mode"]  # fmt: skip
    if numba:
        sig = f"def kernel({', '.join(params)}):"
        tid = _NUMBA_TID
        block, loop, int32 = "cuda.blockIdx.x", "range({IPT})", '"int32"'
    else:
        ann = [", ".join(f"{p}: cute.Tensor" for p in ps.split(", ")) for ps in params[:-3]]
        sig = (
            f"@cute.kernel\ndef kernel({', '.join(ann)}, nv: cutlass.Int32, ni: cutlass.Int32, "
            "mode: cutlass.Int32):"
        )
        tid = _CUTE_TID
        block, loop, int32 = "bidx", "cutlass.range_constexpr({IPT})", "cutlass.Int32"
    return f"""

{sig}
{tid}
    lane = t % {{W}}
    g = {block} * {{WARPS}} + t // {{W}}
    base = g * {{TILE}}
    rbase = g * {{W}}
    iv = {_tuple("init@[0]", n)}
    items = {_td(cfg, numba, "{IPT}")}
    sitems = {_td(cfg, numba, "{IPT}")}
    tmp = {_td(cfg, numba, "{IPT}")}
    keep = {_td(cfg, numba, "{IPT}")}
    dst = {_td(cfg, numba, "{IPT}")}
    rk = coop.ThreadData({{IPT}}, {int32})
    for j in {loop}:
{_each("        items[@][j] = x@[base + lane * {IPT} + j]", n)}
{_each("        sitems[@][j] = x@[base + lane + j * {W}]", n)}
        rk[j] = ranks_in[base + lane * {{IPT}} + j]
{_each("        tmp[@][j] = items[@][j]", n)}
{_each("        keep[@][j] = iv[@]", n)}
{_each("        dst[@][j] = items[@][j]", n)}
    s = {_tuple("items[@][0]", n)}
"""


def _warp_body(cfg: Config, cases: list[Any], loop: str) -> list[str]:
    n = len(cfg.fields)
    lines = []
    for m, case in enumerate(cases):
        lines.append(f"    if mode == {m}:")
        lines.append(f"        {case.statement.format(m=m)}")
        if case.out_items:
            count = loop if case.out_count is None else loop.replace("IPT", str(case.out_count))
            lines.append(f"        for j in {count}:")
            lines.append(
                _each(f"            out@[base + lane * IPT + j] = {case.out_items.format(m=m)}[@][j]", n)
            )
            if case.vout:
                lines.append("            vout[base + lane * IPT + j] = rk[j]")
        if case.red:
            lines.append(_each(f"        red@[rbase + lane] = {case.red_value.format(m=m)}[@]", n))
        if case.agg:
            lines.append(_each(f"        agg@[rbase + lane] = a{m}[@]", n))
    return lines


def _host(cfg: Config) -> str:
    n = len(cfg.fields)
    if cfg.suite == "block":
        tensors = [_names("x", n), _names("out", n), _names("red", n), _names("agg", n), "ranks_in",
                   "granks_in", "flags_in", _names("init", n)]  # fmt: skip
        scalars = ["nvalid", "mode"]
    else:
        tensors = [_names("x", n), _names("out", n), _names("red", n), _names("agg", n), "vout", "ranks_in",
                   _names("init", n)]  # fmt: skip
        scalars = ["nv", "ni", "mode"]
    names = [p for ps in tensors for p in ps.split(", ")]
    ann = ", ".join([f"{p}: cute.Tensor" for p in names] + [f"{p}: cutlass.Int32" for p in scalars])
    args = ", ".join(names + scalars)
    return f"""

@cute.jit
def host({ann}):
    kernel({args}).launch(grid=({{GRID}}, 1, 1), block=({{BX}}, {{BY}}, {{BZ}}))
"""


def _fill(text: str, cfg: Config) -> str:
    from ._compute_cases import GRID

    first = cfg.field(0)
    if cfg.suite == "block":
        extra = {"{TILES}": TILES, "{TILE}": first.tile, "{THREADS}": first.threads}
    else:
        extra = {"{W}": cfg.width, "{WARPS}": cfg.threads // cfg.width, "{TILE}": cfg.width * cfg.ipt}
    return fill(text, first, GRID, extra)


def numba_source(cfg: Config, cases: list[Any]) -> str:
    """A module defining ``kernel`` (to be compiled with ``cuda.coop.numba.jit``)."""
    if cfg.suite == "block":
        body = _block_header(cfg, True) + "\n".join(_block_body(cfg, cases, "range(IPT)"))
    else:
        body = _warp_header(cfg, True) + "\n".join(_warp_body(cfg, cases, "range(IPT)"))
    return _fill(_ops(cfg, True) + body + "\n", cfg)


def cute_source(cfg: Config, cases: list[Any]) -> str:
    """A module defining the ``@cute.kernel`` and its ``@cute.jit`` launcher ``host``."""
    loop = "cutlass.range_constexpr(IPT)"
    if cfg.suite == "block":
        body = _block_header(cfg, False) + "\n".join(_block_body(cfg, cases, loop))
    else:
        body = _warp_header(cfg, False) + "\n".join(_warp_body(cfg, cases, loop))
    return _fill(_ops(cfg, False) + body + _host(cfg), cfg)
