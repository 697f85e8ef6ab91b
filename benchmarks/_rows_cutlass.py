# SPDX-License-Identifier: Apache-2.0
"""The CuTe DSL kernels of benchmarks/rows.py (loaded by path from there): RMSNorm and softmax
rows, one block per row (``cluster == 1``) or one thread-block cluster per row. Each function
returns a ``@cute.jit`` host ``host(x, w_or_none, y, rows)`` launching one kernel."""

# No `from __future__ import annotations`: CuTe evaluates kernel annotations when it traces.
from typing import Any

EPS = 1e-6


def rmsnorm(n: int, cluster: int, threads: int, items: int) -> Any:
    """y = x / sqrt(mean(x^2) + eps) * w over rows of ``n``: each block loads its part of the row
    (striped), sums its squares per thread, one ``coop.block.sum`` (or ``coop.cluster.sum``)."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop

    tile = threads * items
    assert cluster * tile == n

    @cute.kernel
    def kernel(x: cute.Tensor, w: cute.Tensor, y: cute.Tensor) -> None:
        b, _, _ = cute.arch.block_idx()
        rank = cute.arch.block_idx_in_cluster() if cutlass.const_expr(cluster > 1) else 0
        row = b // cluster
        offset = row * n + rank * tile
        xs = coop.ThreadData(items, cutlass.Float32)
        coop.block.load(x, xs, offset=offset, algorithm="striped")
        part = cutlass.Float32(0.0)
        for i in cutlass.range_constexpr(items):
            part += xs[i] * xs[i]
        if cutlass.const_expr(cluster > 1):
            total = coop.cluster.sum(part)
        else:
            total = coop.block.sum(part, broadcast=True)
        scale = cute.math.rsqrt(total * (1.0 / n) + EPS)
        tx, _, _ = cute.arch.thread_idx()
        base = rank * tile + tx  # the weight of each item, read as it is scaled (striped)
        for i in cutlass.range_constexpr(items):
            xs[i] = xs[i] * scale * w[base + i * threads]
        coop.block.store(y, xs, offset=offset, algorithm="striped")

    @cute.jit
    def host(x: cute.Tensor, w: cute.Tensor, y: cute.Tensor) -> None:
        rows = cute.size(x) // n
        kernel(x, w, y).launch(
            grid=(rows * cluster, 1, 1),
            block=(threads, 1, 1),
            cluster=(cluster, 1, 1) if cutlass.const_expr(cluster > 1) else None,
        )

    return host


def softmax(n: int, cluster: int, threads: int, items: int) -> Any:
    """y = exp(x - max) / sum(exp(x - max)) over rows of ``n``: the row stays in registers (one
    pass over memory); the maximum and the sum are two block (or cluster) reductions; exp2 with
    ``fastmath`` (``ex2.approx``), as quack-kernels."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop

    tile = threads * items
    assert cluster * tile == n
    log2e = 1.4426950408889634

    @cute.kernel
    def kernel(x: cute.Tensor, y: cute.Tensor) -> None:
        b, _, _ = cute.arch.block_idx()
        rank = cute.arch.block_idx_in_cluster() if cutlass.const_expr(cluster > 1) else 0
        row = b // cluster
        offset = row * n + rank * tile
        xs = coop.ThreadData(items, cutlass.Float32)
        coop.block.load(x, xs, offset=offset, algorithm="striped")
        top = xs[0]
        for i in cutlass.range_constexpr(1, items):
            top = cutlass.max(top, xs[i])
        if cutlass.const_expr(cluster > 1):
            top = coop.cluster.reduce(top, "max")
        else:
            top = coop.block.reduce(top, "max", broadcast=True)
        shift = top * log2e
        part = cutlass.Float32(0.0)
        for i in cutlass.range_constexpr(items):
            xs[i] = cute.math.exp2(xs[i] * log2e - shift, fastmath=True)
            part += xs[i]
        if cutlass.const_expr(cluster > 1):
            total = coop.cluster.sum(part)
        else:
            total = coop.block.sum(part, broadcast=True)
        inv = 1.0 / total
        for i in cutlass.range_constexpr(items):
            xs[i] = xs[i] * inv
        coop.block.store(y, xs, offset=offset, algorithm="striped")

    @cute.jit
    def host(x: cute.Tensor, y: cute.Tensor) -> None:
        rows = cute.size(x) // n
        kernel(x, y).launch(
            grid=(rows * cluster, 1, 1),
            block=(threads, 1, 1),
            cluster=(cluster, 1, 1) if cutlass.const_expr(cluster > 1) else None,
        )

    return host
