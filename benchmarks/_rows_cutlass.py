# SPDX-License-Identifier: Apache-2.0
"""The CuTe DSL kernels of benchmarks/rows.py (loaded by path from there): RMSNorm and softmax
rows, one block per row (``cluster == 1``) or one thread-block cluster per row. Each function
returns a ``@cute.jit`` host ``host(x, w_or_none, y, rows)`` launching one kernel.

``dtype`` is the element type of x, y and the weight row (float32, or the 2-byte bfloat16 and
float16: items loaded as they are, converted to float32 in the kernel, the result converted back);
``algorithm`` the load and store algorithm of the rows. float32 ``striped`` reads the weight item by
item as it scales; the others load the weight row with the rows' algorithm after the reduction.

``algorithm="striped_words"`` is no coop algorithm but a what-if for 2-byte rows: x, w and y are
given as int32 views of the rows, loaded and stored ``striped`` as 4-byte words (a warp access covers
128 bytes, as float32's), and the kernel reads the items through ``cute.recast_tensor`` of the words
(item ``2j + e`` of a thread is half ``e`` of its word ``j``)."""

# No `from __future__ import annotations`: CuTe evaluates kernel annotations when it traces.
from typing import Any

EPS = 1e-6


def rmsnorm(
    n: int, cluster: int, threads: int, items: int, dtype: str = "float32", algorithm: str = "striped"
) -> Any:
    """y = x / sqrt(mean(x^2) + eps) * w over rows of ``n``: each block loads its part of the row
    (striped), sums its squares per thread, one ``coop.block.sum`` (or ``coop.cluster.sum``)."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop

    tile = threads * items
    assert cluster * tile == n
    if algorithm == "striped_words":
        return _rmsnorm_words(n, cluster, threads, items, dtype)
    if dtype != "float32" or algorithm != "striped":
        return _rmsnorm_converted(n, cluster, threads, items, dtype, algorithm)

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


def softmax(
    n: int, cluster: int, threads: int, items: int, dtype: str = "float32", algorithm: str = "striped"
) -> Any:
    """y = exp(x - max) / sum(exp(x - max)) over rows of ``n``: the row stays in registers (one
    pass over memory); the maximum and the sum are two block (or cluster) reductions; exp2 with
    ``fastmath`` (``ex2.approx``), as quack-kernels."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop

    tile = threads * items
    assert cluster * tile == n
    log2e = 1.4426950408889634
    if algorithm == "striped_words":
        return _softmax_words(n, cluster, threads, items, dtype)
    if dtype != "float32" or algorithm != "striped":
        return _softmax_converted(n, cluster, threads, items, dtype, algorithm)

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


def _rmsnorm_converted(n: int, cluster: int, threads: int, items: int, dtype: str, algorithm: str) -> Any:
    """RMSNorm of rows of ``dtype`` moved with ``algorithm``: x's items converted to float32, the
    weight row loaded with the same algorithm after the reduction, y converted back."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop
    from cuda.coop.cutlass._backend import cutlass_type

    tile = threads * items
    kind = cutlass_type(dtype)

    @cute.kernel
    def kernel(x: cute.Tensor, w: cute.Tensor, y: cute.Tensor) -> None:
        b, _, _ = cute.arch.block_idx()
        rank = cute.arch.block_idx_in_cluster() if cutlass.const_expr(cluster > 1) else 0
        offset = (b // cluster) * n + rank * tile
        xs = coop.ThreadData(items, kind)
        coop.block.load(x, xs, offset=offset, algorithm=algorithm)
        part = cutlass.Float32(0.0)
        for i in cutlass.range_constexpr(items):
            v = xs[i].to(cutlass.Float32)
            part += v * v
        if cutlass.const_expr(cluster > 1):
            total = coop.cluster.sum(part)
        else:
            total = coop.block.sum(part, broadcast=True)
        scale = cute.math.rsqrt(total * (1.0 / n) + EPS)
        ws = coop.ThreadData(items, kind)
        coop.block.load(w, ws, offset=rank * tile, algorithm=algorithm)
        for i in cutlass.range_constexpr(items):
            xs[i] = (xs[i].to(cutlass.Float32) * scale * ws[i].to(cutlass.Float32)).to(kind)
        coop.block.store(y, xs, offset=offset, algorithm=algorithm)

    @cute.jit
    def host(x: cute.Tensor, w: cute.Tensor, y: cute.Tensor) -> None:
        rows = cute.size(x) // n
        kernel(x, w, y).launch(
            grid=(rows * cluster, 1, 1),
            block=(threads, 1, 1),
            cluster=(cluster, 1, 1) if cutlass.const_expr(cluster > 1) else None,
        )

    return host


def _softmax_converted(n: int, cluster: int, threads: int, items: int, dtype: str, algorithm: str) -> Any:
    """Softmax of rows of ``dtype`` moved with ``algorithm``: the items converted to float32 once
    (the row stays in registers as float32), the result converted back."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop
    from cuda.coop.cutlass._backend import cutlass_type

    tile = threads * items
    kind = cutlass_type(dtype)
    log2e = 1.4426950408889634

    @cute.kernel
    def kernel(x: cute.Tensor, y: cute.Tensor) -> None:
        b, _, _ = cute.arch.block_idx()
        rank = cute.arch.block_idx_in_cluster() if cutlass.const_expr(cluster > 1) else 0
        offset = (b // cluster) * n + rank * tile
        xs = coop.ThreadData(items, kind)
        coop.block.load(x, xs, offset=offset, algorithm=algorithm)
        fs = cute.make_rmem_tensor(cute.make_layout(items), cutlass.Float32)
        for i in cutlass.range_constexpr(items):
            fs[i] = xs[i].to(cutlass.Float32)
        top = fs[0]
        for i in cutlass.range_constexpr(1, items):
            top = cutlass.max(top, fs[i])
        if cutlass.const_expr(cluster > 1):
            top = coop.cluster.reduce(top, "max")
        else:
            top = coop.block.reduce(top, "max", broadcast=True)
        shift = top * log2e
        part = cutlass.Float32(0.0)
        for i in cutlass.range_constexpr(items):
            fs[i] = cute.math.exp2(fs[i] * log2e - shift, fastmath=True)
            part += fs[i]
        if cutlass.const_expr(cluster > 1):
            total = coop.cluster.sum(part)
        else:
            total = coop.block.sum(part, broadcast=True)
        inv = 1.0 / total
        for i in cutlass.range_constexpr(items):
            xs[i] = (fs[i] * inv).to(kind)
        coop.block.store(y, xs, offset=offset, algorithm=algorithm)

    @cute.jit
    def host(x: cute.Tensor, y: cute.Tensor) -> None:
        rows = cute.size(x) // n
        kernel(x, y).launch(
            grid=(rows * cluster, 1, 1),
            block=(threads, 1, 1),
            cluster=(cluster, 1, 1) if cutlass.const_expr(cluster > 1) else None,
        )

    return host


def _rmsnorm_words(n: int, cluster: int, threads: int, items: int, dtype: str) -> Any:
    """RMSNorm of 2-byte rows given as int32 words (``algorithm="striped_words"``)."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop
    from cuda.coop.cutlass._backend import cutlass_type

    words, kind = items // 2, cutlass_type(dtype)
    tile = threads * words  # in words

    @cute.kernel
    def kernel(x: cute.Tensor, w: cute.Tensor, y: cute.Tensor) -> None:
        b, _, _ = cute.arch.block_idx()
        rank = cute.arch.block_idx_in_cluster() if cutlass.const_expr(cluster > 1) else 0
        offset = (b // cluster) * (n // 2) + rank * tile
        xw = coop.ThreadData(words, cutlass.Int32)
        coop.block.load(x, xw, offset=offset, algorithm="striped")
        xs = cute.recast_tensor(xw, kind)
        part = cutlass.Float32(0.0)
        for i in cutlass.range_constexpr(items):
            v = xs[i].to(cutlass.Float32)
            part += v * v
        if cutlass.const_expr(cluster > 1):
            total = coop.cluster.sum(part)
        else:
            total = coop.block.sum(part, broadcast=True)
        scale = cute.math.rsqrt(total * (1.0 / n) + EPS)
        ww = coop.ThreadData(words, cutlass.Int32)
        coop.block.load(w, ww, offset=rank * tile, algorithm="striped")
        ws = cute.recast_tensor(ww, kind)
        for i in cutlass.range_constexpr(items):
            xs[i] = (xs[i].to(cutlass.Float32) * scale * ws[i].to(cutlass.Float32)).to(kind)
        coop.block.store(y, xw, offset=offset, algorithm="striped")

    @cute.jit
    def host(x: cute.Tensor, w: cute.Tensor, y: cute.Tensor) -> None:
        rows = cute.size(x) // (n // 2)
        kernel(x, w, y).launch(
            grid=(rows * cluster, 1, 1),
            block=(threads, 1, 1),
            cluster=(cluster, 1, 1) if cutlass.const_expr(cluster > 1) else None,
        )

    return host


def _softmax_words(n: int, cluster: int, threads: int, items: int, dtype: str) -> Any:
    """Softmax of 2-byte rows given as int32 words (``algorithm="striped_words"``)."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop
    from cuda.coop.cutlass._backend import cutlass_type

    words, kind = items // 2, cutlass_type(dtype)
    tile = threads * words  # in words
    log2e = 1.4426950408889634

    @cute.kernel
    def kernel(x: cute.Tensor, y: cute.Tensor) -> None:
        b, _, _ = cute.arch.block_idx()
        rank = cute.arch.block_idx_in_cluster() if cutlass.const_expr(cluster > 1) else 0
        offset = (b // cluster) * (n // 2) + rank * tile
        xw = coop.ThreadData(words, cutlass.Int32)
        coop.block.load(x, xw, offset=offset, algorithm="striped")
        xs = cute.recast_tensor(xw, kind)
        fs = cute.make_rmem_tensor(cute.make_layout(items), cutlass.Float32)
        for i in cutlass.range_constexpr(items):
            fs[i] = xs[i].to(cutlass.Float32)
        top = fs[0]
        for i in cutlass.range_constexpr(1, items):
            top = cutlass.max(top, fs[i])
        if cutlass.const_expr(cluster > 1):
            top = coop.cluster.reduce(top, "max")
        else:
            top = coop.block.reduce(top, "max", broadcast=True)
        shift = top * log2e
        part = cutlass.Float32(0.0)
        for i in cutlass.range_constexpr(items):
            fs[i] = cute.math.exp2(fs[i] * log2e - shift, fastmath=True)
            part += fs[i]
        if cutlass.const_expr(cluster > 1):
            total = coop.cluster.sum(part)
        else:
            total = coop.block.sum(part, broadcast=True)
        inv = 1.0 / total
        for i in cutlass.range_constexpr(items):
            xs[i] = (fs[i] * inv).to(kind)
        coop.block.store(y, xw, offset=offset, algorithm="striped")

    @cute.jit
    def host(x: cute.Tensor, y: cute.Tensor) -> None:
        rows = cute.size(x) // (n // 2)
        kernel(x, y).launch(
            grid=(rows * cluster, 1, 1),
            block=(threads, 1, 1),
            cluster=(cluster, 1, 1) if cutlass.const_expr(cluster > 1) else None,
        )

    return host
