# SPDX-License-Identifier: Apache-2.0
"""Source of the warp test kernels for each DSL, generated from the shared cases of
``tests/_warp_cases.py``: the coop calls are the same text in both; the scaffolding is each DSL's."""

from __future__ import annotations

from ._compute_kernels import CUTE_PRELUDE, NUMBA_PRELUDE, fill, load
from ._warp_cases import GRID, Case, Config

__all__ = ["load", "numba_source", "cute_source"]

_NUMBA = (
    NUMBA_PRELUDE
    + """

def user_less(a, b):  # a plain Python function as a comparator
    return a < b


@cuda.jit(device=True)
def user_greater(a, b):  # a Numba device function as a comparator
    return a > b


def kernel(x, out, red, agg, vout, ranks_in, init_in, nv, ni, mode):
    t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
    lane = t % {W}
    g = cuda.blockIdx.x * {WARPS} + t // {W}
    base = g * {TILE}
    rbase = g * {W}
    iv = init_in[0]
    items = coop.ThreadData({IPT}, "{T}")
    sitems = coop.ThreadData({IPT}, "{T}")
    tmp = coop.ThreadData({IPT}, "{T}")
    keep = coop.ThreadData({IPT}, "{T}")
    dst = coop.ThreadData({IPT}, "{T}")
    rk = coop.ThreadData({IPT}, "int32")
    for j in range({IPT}):
        items[j] = x[base + lane * {IPT} + j]
        sitems[j] = x[base + lane + j * {W}]
        rk[j] = ranks_in[base + lane * {IPT} + j]
        tmp[j] = items[j]
        keep[j] = iv
        dst[j] = items[j]
    s = items[0]
"""
)

_CUTE = (
    CUTE_PRELUDE
    + """

def user_less(a, b):  # a plain Python function as a comparator
    return a < b


@cute.jit
def user_greater(a, b):  # a @cute.jit function (control flow) as a comparator
    r = False
    if a > b:
        r = True
    return r


@cute.kernel
def kernel(x: cute.Tensor, out: cute.Tensor, red: cute.Tensor, agg: cute.Tensor, vout: cute.Tensor,
           ranks_in: cute.Tensor, init_in: cute.Tensor, nv: cutlass.Int32, ni: cutlass.Int32,
           mode: cutlass.Int32):
    tx, ty, tz = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    t = tx + {BX} * (ty + {BY} * tz)
    lane = t % {W}
    g = bidx * {WARPS} + t // {W}
    base = g * {TILE}
    rbase = g * {W}
    iv = init_in[0]
    items = coop.ThreadData({IPT}, T)
    sitems = coop.ThreadData({IPT}, T)
    tmp = coop.ThreadData({IPT}, T)
    keep = coop.ThreadData({IPT}, T)
    dst = coop.ThreadData({IPT}, T)
    rk = coop.ThreadData({IPT}, cutlass.Int32)
    for j in cutlass.range_constexpr({IPT}):
        items[j] = x[base + lane * {IPT} + j]
        sitems[j] = x[base + lane + j * {W}]
        rk[j] = ranks_in[base + lane * {IPT} + j]
        tmp[j] = items[j]
        keep[j] = iv
        dst[j] = items[j]
    s = items[0]
"""
)

_CUTE_HOST = """

@cute.jit
def host(x: cute.Tensor, out: cute.Tensor, red: cute.Tensor, agg: cute.Tensor, vout: cute.Tensor,
         ranks_in: cute.Tensor, init_in: cute.Tensor, nv: cutlass.Int32, ni: cutlass.Int32,
         mode: cutlass.Int32):
    kernel(x, out, red, agg, vout, ranks_in, init_in, nv, ni, mode).launch(
        grid=({GRID}, 1, 1), block=({BX}, {BY}, {BZ}))
"""


def _body(cases: list[Case], loop: str) -> list[str]:
    lines = []
    for m, case in enumerate(cases):
        lines.append(f"    if mode == {m}:")
        lines.append(f"        {case.statement.format(m=m)}")
        if case.out_items:
            count = loop if case.out_count is None else loop.replace("IPT", str(case.out_count))
            lines.append(f"        for j in {count}:")
            lines.append(f"            out[base + lane * IPT + j] = {case.out_items.format(m=m)}[j]")
            if case.vout:
                lines.append("            vout[base + lane * IPT + j] = rk[j]")
        if case.red:
            lines.append(f"        red[rbase + lane] = {case.red_value.format(m=m)}")
        if case.agg:
            lines.append(f"        agg[rbase + lane] = a{m}")
    return lines


def _fill(text: str, cfg: Config) -> str:
    return fill(
        text,
        cfg,
        GRID,
        {"{W}": cfg.width, "{WARPS}": cfg.threads // cfg.width, "{TILE}": cfg.width * cfg.ipt},
    )


def numba_source(cfg: Config, cases: list[Case]) -> str:
    """A module defining ``kernel`` (to be compiled with ``cuda.coop.numba.jit``)."""
    return _fill(_NUMBA + "\n".join(_body(cases, "range(IPT)")) + "\n", cfg)


def cute_source(cfg: Config, cases: list[Case]) -> str:
    """A module defining the ``@cute.kernel`` and its ``@cute.jit`` launcher ``host``."""
    return _fill(_CUTE + "\n".join(_body(cases, "cutlass.range_constexpr(IPT)")) + _CUTE_HOST, cfg)
