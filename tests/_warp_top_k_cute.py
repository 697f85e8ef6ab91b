# SPDX-License-Identifier: Apache-2.0
"""The CuTe half of ``tests/_warp_top_k_cases.py``: each case's kernel and its ``@cute.jit`` host
(no ``from __future__ import annotations``: CuTe evaluates the kernels' annotations)."""

from typing import Any

import cutlass
import cutlass.cute as cute
from cuda import coop

from ._warp_top_k_cases import INT32_MAX, THREADS, Case


def cute_host(case: Case) -> Any:
    """The case's CuTe host ``(x, idx, values, indices)`` (a ``@cute.jit`` that launches the kernel)."""
    k, n_items, tiles, w = case.k, case.items, case.tiles, case.width
    tile, n, warps, rows = w * n_items, case.n, THREADS // w, case.rows
    ty = {"float32": cutlass.Float32, "float16": cutlass.Float16, "bfloat16": cutlass.BFloat16}.get(
        case.dtype, cutlass.Int32
    )
    low = float(case.low) if case.dtype != "int32" else int(case.low)
    mode = case.mode
    alg = "direct" if mode == "blocked" else "striped"
    arrangement = "blocked" if mode == "blocked" else "striped"

    @cute.kernel
    def kernel(x: cute.Tensor, idx: cute.Tensor, values: cute.Tensor, indices: cute.Tensor) -> None:
        t, _, _ = cute.arch.thread_idx()
        b, _, _ = cute.arch.block_idx()
        lane = t % w
        row = b * warps + t // w
        xs = coop.ThreadData(n_items, ty)
        ix = coop.ThreadData(n_items, cutlass.Int32)
        lv, li = ty(low), cutlass.Int32(INT32_MAX)
        start = 0
        if cutlass.const_expr(mode == "first"):  # the first tile's call without a list
            coop.warp.load(x, xs, offset=row * n, algorithm=alg, threads_in_warp=w)
            lv, li = coop.warp.top_k(xs, k, threads_in_warp=w)
            start = 1
        for j in cutlass.range(start, tiles):  # a loop in the kernel (the list carried through it)
            coop.warp.load(x, xs, offset=row * n + j * tile, algorithm=alg, threads_in_warp=w)
            if cutlass.const_expr(mode == "indices"):
                coop.warp.load(idx, ix, offset=row * n + j * tile, algorithm="striped", threads_in_warp=w)
                lv, li = coop.warp.top_k(xs, k, running=(lv, li), indices=ix, threads_in_warp=w)
            else:
                lv, li = coop.warp.top_k(
                    xs, k, running=(lv, li), first=j * tile, arrangement=arrangement, threads_in_warp=w
                )
        values[row * w + lane] = lv
        indices[row * w + lane] = li

    @cute.jit
    def host(x: cute.Tensor, idx: cute.Tensor, values: cute.Tensor, indices: cute.Tensor) -> None:
        kernel(x, idx, values, indices).launch(grid=(rows * w // THREADS, 1, 1), block=(THREADS, 1, 1))

    return host, ty
