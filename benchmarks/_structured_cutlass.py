# SPDX-License-Identifier: Apache-2.0
"""The CuTe DSL kernels of benchmarks/structured.py (loaded by path from there). Each function
returns a ``@cute.jit`` host launching one kernel."""

# No `from __future__ import annotations`: CuTe evaluates kernel annotations when it traces.
from typing import Any


def _argmax_op(p, q):  # type: ignore[no-untyped-def]
    """(value, index) of the larger value; of equal values, the smaller index."""
    import cutlass

    take = (q[0] > p[0]) | ((q[0] == p[0]) & (q[1] < p[1]))
    return cutlass.select_(take, q[0], p[0]), cutlass.select_(take, q[1], p[1])


def _welford_combine(p, q):  # type: ignore[no-untyped-def]
    """Chan's combine of two Welford states (count, mean, M2)."""
    n = p[0] + q[0]
    d = q[1] - p[1]
    w = q[0] / n
    return n, p[1] + d * w, p[2] + q[2] + d * d * p[0] * w


def _compose(p, q):  # type: ignore[no-untyped-def]
    """Two affine maps h -> a*h + b as (a, b): p first, then q."""
    return p[0] * q[0], q[0] * p[1] + q[1]


def argmax(threads: int, items: int, packed: bool = False) -> Any:
    """Row argmax, one block per row (the grid is the number of rows, ``out_v``'s size): the tuple
    (value, index) through one block reduce with a user operator, or (``packed``) the uint64
    workaround through the built-in max."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop
    from cutlass._mlir.dialects import llvm

    tile = threads * items

    @cute.kernel
    def kernel(src: cute.Tensor, out_v: cute.Tensor, out_i: cute.Tensor, n: cutlass.Int32):  # type: ignore[no-untyped-def]
        tidx, _, _ = cute.arch.thread_idx()
        bidx, _, _ = cute.arch.block_idx()
        buf = coop.ThreadData(items, cutlass.Float32)
        best_v = cutlass.Float32(float("-inf"))
        best_i = cutlass.Int32(0)
        for base in cutlass.range(0, n, tile):
            coop.block.load(src, buf, offset=bidx * n + base, algorithm="striped")
            for j in cutlass.range_constexpr(items):  # a thread's items in index order: '>' keeps the first
                take = buf[j] > best_v
                best_v = cutlass.select_(take, buf[j], best_v)
                best_i = cutlass.select_(take, base + j * threads + tidx, best_i)
        if cutlass.const_expr(not packed):
            best = coop.block.reduce((best_v, best_i), _argmax_op)
            if tidx == 0:
                out_v[bidx] = best[0]
                out_i[bidx] = best[1]
        else:
            # an order-preserving key of the float's bits (negative floats: the magnitude bits flipped),
            # offset to unsigned, in the high word; ~index in the low word (ties: the smallest index)
            s = cutlass.Int64(cutlass.Int32(llvm.bitcast(cutlass.Int32.mlir_type, best_v.ir_value())))
            key = s ^ ((s >> 31) & 0x7FFFFFFF)
            word = (cutlass.Uint64(key + 2147483648) << 32) | (
                cutlass.Uint64(0xFFFFFFFF) - cutlass.Uint64(best_i)
            )
            top = coop.block.reduce(word, "max")
            if tidx == 0:
                k = cutlass.Int64(top >> 32) - 2147483648
                bits = cutlass.Int32(k ^ ((k >> 31) & 0x7FFFFFFF))
                out_v[bidx] = cutlass.Float32(llvm.bitcast(cutlass.Float32.mlir_type, bits.ir_value()))
                out_i[bidx] = cutlass.Int32(cutlass.Uint64(0xFFFFFFFF) - (top & 0xFFFFFFFF))

    @cute.jit
    def host(src: cute.Tensor, out_v: cute.Tensor, out_i: cute.Tensor, n: cutlass.Int32):  # type: ignore[no-untyped-def]
        kernel(src, out_v, out_i, n).launch(grid=(cute.size(out_v), 1, 1), block=(threads, 1, 1))

    return host


def welford(threads: int, items: int, eps: float) -> Any:
    """Row mean and rstd in one pass, one block per row (the grid: ``out_mean``'s size)."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop

    tile = threads * items

    @cute.kernel
    def kernel(src: cute.Tensor, out_mean: cute.Tensor, out_rstd: cute.Tensor, n: cutlass.Int32):  # type: ignore[no-untyped-def]
        tidx, _, _ = cute.arch.thread_idx()
        bidx, _, _ = cute.arch.block_idx()
        buf = coop.ThreadData(items, cutlass.Float32)
        state = (cutlass.Float32(0.0), cutlass.Float32(0.0), cutlass.Float32(0.0))
        cnt, mean, m2 = state
        for base in cutlass.range(0, n, tile):
            coop.block.load(src, buf, offset=bidx * n + base, algorithm="striped")
            s = cutlass.Float32(0.0)
            for j in cutlass.range_constexpr(items):
                s = s + buf[j]
            tm = s * cutlass.Float32(1.0 / items)
            tq = cutlass.Float32(0.0)
            for j in cutlass.range_constexpr(items):
                d = buf[j] - tm
                tq = tq + d * d
            cnt, mean, m2 = _welford_combine((cnt, mean, m2), (cutlass.Float32(items), tm, tq))
        r = coop.block.reduce((cnt, mean, m2), _welford_combine, broadcast=False)
        if tidx == 0:
            out_mean[bidx] = r[1]
            out_rstd[bidx] = cutlass.Float32(1.0) / cute.math.sqrt(r[2] / r[0] + cutlass.Float32(eps))

    @cute.jit
    def host(src: cute.Tensor, out_mean: cute.Tensor, out_rstd: cute.Tensor, n: cutlass.Int32):  # type: ignore[no-untyped-def]
        kernel(src, out_mean, out_rstd, n).launch(grid=(cute.size(out_mean), 1, 1), block=(threads, 1, 1))

    return host


def recurrence(threads: int, items: int, row: int) -> Any:
    """h = a*h + b along rows of ``row``, one block per row, tiles in a loop."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop

    tile = threads * items
    tiles = row // tile

    @cute.kernel
    def kernel(a: cute.Tensor, b: cute.Tensor, h: cute.Tensor):  # type: ignore[no-untyped-def]
        bidx, _, _ = cute.arch.block_idx()
        run_a = coop.ThreadData(1, cutlass.Float32)
        run_b = coop.ThreadData(1, cutlass.Float32)
        run_a[0] = cutlass.Float32(1.0)  # the identity map
        run_b[0] = cutlass.Float32(0.0)
        xa = coop.ThreadData(items, cutlass.Float32)
        xb = coop.ThreadData(items, cutlass.Float32)
        for t in cutlass.range(tiles):
            base = bidx * row + t * tile
            coop.block.load(a, xa, offset=base, algorithm="warp_transpose")
            coop.block.load(b, xb, offset=base, algorithm="warp_transpose")
            _, hb = coop.block.inclusive_scan((xa, xb), _compose, prefix_op=(run_a, run_b))
            coop.block.store(h, hb, offset=base, algorithm="warp_transpose")

    @cute.jit
    def host(a: cute.Tensor, b: cute.Tensor, h: cute.Tensor):  # type: ignore[no-untyped-def]
        kernel(a, b, h).launch(grid=(cute.size(a) // row, 1, 1), block=(threads, 1, 1))

    return host


def complex_sum(threads: int, items: int, how: str) -> Any:
    """Device-wide complex sum of an interleaved float32 view (``m`` floats) into ``out[0:2]``:
    the block sum of the tuple (re, im) of ThreadData, by coop.block.sum (``how`` "sum") or
    coop.block.reduce(..., "sum") ("reduce"); a grid-stride loop, two atomics per block."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop

    tile = 2 * threads * items
    use_sum = how == "sum"

    @cute.kernel
    def kernel(src: cute.Tensor, out: cute.Tensor, m: cutlass.Int32):  # type: ignore[no-untyped-def]
        tidx, _, _ = cute.arch.thread_idx()
        bidx, _, _ = cute.arch.block_idx()
        gdim, _, _ = cute.arch.grid_dim()
        buf = coop.ThreadData(2 * items, cutlass.Float32)
        re = coop.ThreadData(items, cutlass.Float32)
        im = coop.ThreadData(items, cutlass.Float32)
        for j in cutlass.range_constexpr(items):
            re[j] = cutlass.Float32(0.0)
            im[j] = cutlass.Float32(0.0)
        for base in cutlass.range(bidx * tile, m, gdim * tile):
            coop.block.load(src, buf, offset=base, algorithm="vectorize")
            for j in cutlass.range_constexpr(items):
                re[j] = re[j] + buf[2 * j]
                im[j] = im[j] + buf[2 * j + 1]
        if cutlass.const_expr(use_sum):
            total = coop.block.sum((re, im))
        else:
            total = coop.block.reduce((re, im), "sum")
        if tidx == 0:
            cute.arch.atomic_add(out.iterator, total[0])
            cute.arch.atomic_add(out.iterator + 1, total[1])

    @cute.jit
    def host(src: cute.Tensor, out: cute.Tensor, m: cutlass.Int32, grid: cutlass.Constexpr[int]):  # type: ignore[no-untyped-def]
        kernel(src, out, m).launch(grid=(grid, 1, 1), block=(threads, 1, 1))

    return host
