# SPDX-License-Identifier: Apache-2.0
"""The CuTe DSL kernel of the grid-scan tests (``tests/_grid_kernels.py`` has the Numba one and the
references). No ``from __future__ import annotations``: CuTe evaluates annotations at trace time."""

from typing import Any

import cutlass
import cutlass.cute as cute
from cuda import coop
from cuda.coop.cutlass._backend import cutlass_type

from . import _grid_kernels as gk


@cute.jit
def _user(a, b):
    """``_grid_kernels._user`` in CuTe: the larger in absolute value, the left one on ties."""
    r = a
    if b * b > a * a:
        r = b
    return r


def host(cfg: gk.Config) -> Any:
    """A @cute.jit host: (src, dst, totals, state, n, grid) launching ``grid`` blocks of ``cfg``."""
    method, op, init = gk.SCANS[cfg.scan]
    dt = cutlass_type(cfg.dtype)
    bx, by, bz = cfg.block
    tile_items, n_items, threads = cfg.tile, cfg.items, cfg.threads
    fill = gk.padding(cfg)
    scan = getattr(coop.grid, method)
    operator = _user if op == "user" else op
    alg, order = cfg.algorithm, cfg.order

    @cute.kernel
    def kernel(src: cute.Tensor, dst: cute.Tensor, totals: cute.Tensor, state: cute.Tensor, n: cutlass.Int32):
        tx, ty, tz = cute.arch.thread_idx()
        t = tx + bx * (ty + by * tz)
        tile = coop.grid.tile_index(state, order=order)
        base = tile * tile_items
        valid = cutlass.min(n - base, tile_items)
        items = coop.ThreadData(n_items, dt)
        coop.block.load(src, items, offset=base, valid_items=valid, oob_default=dt(fill))
        if cutlass.const_expr(op is None):
            out, total, before = scan(items, state, tile, total=True, tile_prefix=True, algorithm=alg)
        elif cutlass.const_expr(init is None):
            out, total, before = scan(
                items, operator, state, tile, total=True, tile_prefix=True, algorithm=alg
            )
        else:
            out, total, before = scan(
                items,
                operator,
                state,
                tile,
                initial_value=dt(init),
                total=True,
                tile_prefix=True,
                algorithm=alg,
            )
        coop.block.store(dst, out, offset=base, valid_items=valid)
        totals[2 * (tile * threads + t)] = total
        totals[2 * (tile * threads + t) + 1] = before

    @cute.jit
    def launch(src: cute.Tensor, dst: cute.Tensor, totals: cute.Tensor, state: cute.Tensor, n: cutlass.Int32,
               grid: cutlass.Int32):  # fmt: skip
        kernel(src, dst, totals, state, n).launch(grid=(grid, 1, 1), block=(bx, by, bz))

    return launch
