# SPDX-License-Identifier: Apache-2.0
"""The CuTe DSL kernels of benchmarks/rows.py (loaded by path from there): RMSNorm, softmax,
LayerNorm, cross-entropy and argmax rows, one block per row (``cluster == 1``) or one thread-block
cluster per row, and top-k rows, one warp or one block per row; each the design of its Numba twin
in rows.py, in the same shape. Each function returns a ``@cute.jit`` host taking the kernel's
tensors (inputs, then outputs) and launching one kernel.

RMSNorm and softmax also take ``dtype``, the element type of x, y and the weight row (float32, or
the 2-byte bfloat16 and float16: items loaded as they are, converted to float32 in the kernel, the
result converted back), and ``algorithm``, the load and store algorithm of the rows. float32
``striped`` reads the weight item by item as it scales; the others load the weight row with the
rows' algorithm after the reduction. The other kernels are float32 ``striped`` only.

``algorithm="striped_words"`` is no coop algorithm but a what-if for 2-byte rows: x, w and y are
given as int32 views of the rows, loaded and stored ``striped`` as 4-byte words (a warp access covers
128 bytes, as float32's), and the kernel reads the items through ``cute.recast_tensor`` of the words
(item ``2j + e`` of a thread is half ``e`` of its word ``j``)."""

# No `from __future__ import annotations`: CuTe evaluates kernel annotations when it traces.
from typing import Any

EPS = 1e-6
LOG2E = 1.4426950408889634
IGNORE_INDEX = -100
TOPK = 16


def rmsnorm(
    n: int,
    cluster: int,
    threads: int,
    items: int,
    dtype: str = "float32",
    algorithm: str = "striped",
    variant: str = "after",
) -> Any:
    """y = x / sqrt(mean(x^2) + eps) * w over rows of ``n`` of ``dtype``, moved with ``algorithm`` (or
    as words, ``striped_words``): each block loads its part of the row, sums the squares of its items
    (converted to float32) per thread, one ``coop.block.sum`` (or ``coop.cluster.sum``); the weight
    row moved the same way after the reduction, or before it (variant ``prefetch``, float32 striped);
    y converted back."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop
    from cuda.coop._primitive import run_items
    from cuda.coop.cutlass._backend import cutlass_type
    from cutlass.memory import SmemAllocator

    assert cluster * threads * items == n
    assert (
        variant == "after"
        or (dtype, algorithm) == ("float32", "striped")
        or (variant, dtype, algorithm) == ("staged_late", "float32", "striped_vectors")
    ), (variant, dtype, algorithm)
    prefetch, staged, late = variant == "prefetch", variant.startswith("staged"), variant == "staged_late"
    kind = cutlass_type(dtype)
    unit, per, row, move, view = _moves(n, threads, items, dtype, algorithm)
    tile = threads * per  # in units
    # a thread's item i of a staged row part: (i // v * threads + t) * v + i % v (striped: v = 1)
    v = run_items(4, items) if algorithm == "striped_vectors" else 1

    @cute.kernel
    def kernel(x: cute.Tensor, w: cute.Tensor, y: cute.Tensor) -> None:
        b, _, _ = cute.arch.block_idx()
        rank = cute.arch.block_idx_in_cluster() if cutlass.const_expr(cluster > 1) else 0
        offset = (b // cluster) * row + rank * tile
        xu = coop.ThreadData(per, unit)
        wu = coop.ThreadData(per, unit)
        if cutlass.const_expr(staged):  # the weights into registers, the row part into shared memory
            t, _, _ = cute.arch.thread_idx()
            if cutlass.const_expr(not late):
                coop.block.load(w, wu, offset=rank * tile, algorithm=move)
            row_part = SmemAllocator().allocate_tensor(unit, cute.make_layout(tile), byte_alignment=128)
            coop.block.load_to_shared(x, row_part, tile, offset=offset)
            if cutlass.const_expr(late):  # CUB's order: the copy first, then the weights
                coop.block.load(w, wu, offset=rank * tile, algorithm=move)
        else:
            coop.block.load(x, xu, offset=offset, algorithm=move)
        xs = view(xu)
        if cutlass.const_expr(prefetch):
            coop.block.load(w, wu, offset=rank * tile, algorithm=move)
        part = cutlass.Float32(0.0)
        for i in cutlass.range_constexpr(items):
            if cutlass.const_expr(staged):
                e = row_part[((i // v) * threads + t) * v + i % v]
            else:
                e = xs[i].to(cutlass.Float32)
            part += e * e
        if cutlass.const_expr(cluster > 1):
            total = coop.cluster.sum(part)
        else:
            total = coop.block.sum(part, broadcast=True)
        scale = cute.math.rsqrt(total * (1.0 / n) + EPS)
        if cutlass.const_expr(not prefetch and not staged):
            coop.block.load(w, wu, offset=rank * tile, algorithm=move)
        ws = view(wu)
        if cutlass.const_expr(staged):  # read again from shared memory
            for i in cutlass.range_constexpr(items):
                xs[i] = row_part[((i // v) * threads + t) * v + i % v] * scale * ws[i]
        else:  # one conversion of the tensor: 2-byte items paired (F2FP.PACK_AB)
            xs.store((xs.load().to(cutlass.Float32) * scale * ws.load().to(cutlass.Float32)).to(kind))
        coop.block.store(y, xu, offset=offset, algorithm=move)

    @cute.jit
    def host(x: cute.Tensor, w: cute.Tensor, y: cute.Tensor) -> None:
        rows = cute.size(x) // row
        kernel(x, w, y).launch(
            grid=(rows * cluster, 1, 1),
            block=(threads, 1, 1),
            cluster=(cluster, 1, 1) if cutlass.const_expr(cluster > 1) else None,
        )

    return host


def _moves(n: int, threads: int, items: int, dtype: str, algorithm: str) -> Any:
    """How a kernel of rows of ``dtype`` moves them: (units of a ThreadData, units per thread, a row's
    units, the load/store algorithm, the items of a ThreadData of units). ``striped_words`` moves
    2-byte rows as int32 words, striped, and reads the items through ``cute.recast_tensor``; any other
    algorithm moves the items themselves."""
    import cutlass
    import cutlass.cute as cute
    from cuda.coop.cutlass._backend import cutlass_type

    kind = cutlass_type(dtype)
    if algorithm == "striped_words":
        return cutlass.Int32, items // 2, n // 2, "striped", lambda t: cute.recast_tensor(t, kind)
    return kind, items, n, algorithm, lambda t: t


def softmax(
    n: int,
    cluster: int,
    threads: int,
    items: int,
    dtype: str = "float32",
    algorithm: str = "striped",
    variant: str = "registers",
) -> Any:
    """y = exp(x - max) / sum(exp(x - max)) over rows of ``n`` of ``dtype``, moved with ``algorithm``
    (or as words, ``striped_words``): the items converted to float32 once, the row kept in registers
    (one pass over memory); the maximum and the sum are two block (or cluster) reductions; exp2 with
    ``fastmath`` (``ex2.approx``), as quack-kernels; the result converted back. Variant ``staged``
    (float32 striped): the row part staged in shared memory by ``load_to_shared``, exp written back
    in place."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop

    assert cluster * threads * items == n
    assert (
        variant == "registers"
        or (variant, dtype, algorithm) == ("staged", "float32", "striped")
        or (variant, algorithm) == ("staged_once", "striped_vectors")
    ), (variant, dtype, algorithm)
    unit, per, row, move, view = _moves(n, threads, items, dtype, algorithm)
    tile = threads * per  # in units

    @cute.kernel
    def registers(x: cute.Tensor, y: cute.Tensor) -> None:
        b, _, _ = cute.arch.block_idx()
        rank = cute.arch.block_idx_in_cluster() if cutlass.const_expr(cluster > 1) else 0
        offset = (b // cluster) * row + rank * tile
        xu = coop.ThreadData(per, unit)
        coop.block.load(x, xu, offset=offset, algorithm=move)
        _softmax_items(view(xu), items, cluster)
        coop.block.store(y, xu, offset=offset, algorithm=move)

    if variant == "staged":
        kernel = _softmax_staged(n, cluster, threads, items)
    elif variant == "staged_once":
        kernel = _softmax_staged_once(n, cluster, threads, items, dtype)
    else:
        kernel = registers

    @cute.jit
    def host(x: cute.Tensor, y: cute.Tensor) -> None:
        rows = cute.size(x) // row
        kernel(x, y).launch(
            grid=(rows * cluster, 1, 1),
            block=(threads, 1, 1),
            cluster=(cluster, 1, 1) if cutlass.const_expr(cluster > 1) else None,
        )

    return host


def _softmax_items(xs: Any, items: int, cluster: int) -> None:
    """A thread's items of a row (or a cluster's row) -> their softmax, in place: converted to
    float32 as one tensor (2-byte items in pairs), the row's maximum (``cute.arch.fmax``: one FMNMX;
    ``cutlass.max`` adds NaN tests and selects) and sum of ``exp2((x - max) * log2(e))`` each one
    reduction, the result converted back as one tensor. A plain function that the kernels call while
    they trace: its Python loops and branches unroll then (no DSL preprocessing here)."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop

    fs = cute.make_rmem_tensor(cute.make_layout(items), cutlass.Float32)
    fs.store(xs.load().to(cutlass.Float32))
    top = fs[0]
    for i in range(1, items):
        top = cute.arch.fmax(top, fs[i])
    top = coop.cluster.reduce(top, "max") if cluster > 1 else coop.block.reduce(top, "max", broadcast=True)
    shift = top * LOG2E
    part = cutlass.Float32(0.0)
    for i in range(items):
        fs[i] = cute.math.exp2(fs[i] * LOG2E - shift, fastmath=True)
        part += fs[i]
    total = coop.cluster.sum(part) if cluster > 1 else coop.block.sum(part, broadcast=True)
    xs.store((fs.load() * (1.0 / total)).to(xs.element_type))


def _softmax_staged(n: int, cluster: int, threads: int, items: int) -> Any:
    """The kernel of ``softmax``'s variant ``staged`` (float32 rows, launched by its host)."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop
    from cutlass.memory import SmemAllocator

    tile = threads * items
    log2e = 1.4426950408889634

    @cute.kernel
    def kernel(x: cute.Tensor, y: cute.Tensor) -> None:
        b, _, _ = cute.arch.block_idx()
        t, _, _ = cute.arch.thread_idx()
        rank = cute.arch.block_idx_in_cluster() if cutlass.const_expr(cluster > 1) else 0
        offset = (b // cluster) * n + rank * tile
        row = SmemAllocator().allocate_tensor(cutlass.Float32, cute.make_layout(tile), byte_alignment=128)
        coop.block.load_to_shared(x, row, tile, offset=offset)
        top = row[t]
        for i in cutlass.range_constexpr(1, items):
            top = cute.arch.fmax(top, row[t + i * threads])
        if cutlass.const_expr(cluster > 1):
            top = coop.cluster.reduce(top, "max")
        else:
            top = coop.block.reduce(top, "max", broadcast=True)
        shift = top * log2e
        part = cutlass.Float32(0.0)
        for i in cutlass.range_constexpr(items):
            e = cute.math.exp2(row[t + i * threads] * log2e - shift, fastmath=True)
            row[t + i * threads] = e
            part += e
        if cutlass.const_expr(cluster > 1):
            total = coop.cluster.sum(part)
        else:
            total = coop.block.sum(part, broadcast=True)
        inv = 1.0 / total
        xs = coop.ThreadData(items, cutlass.Float32)
        for i in cutlass.range_constexpr(items):
            xs[i] = row[t + i * threads] * inv
        coop.block.store(y, xs, offset=offset, algorithm="striped")

    return kernel


def _softmax_staged_once(n: int, cluster: int, threads: int, items: int, dtype: str) -> Any:
    """The kernel of ``softmax``'s variant ``staged_once`` (rows of ``dtype``, ``striped_vectors``):
    the block's part of the row staged in shared memory by ``load_to_shared``, read from there once
    into registers (as ``striped_vectors`` arranges it), then the registers design (quack's)."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop
    from cuda.coop._primitive import run_items
    from cuda.coop.cutlass._backend import cutlass_type
    from cutlass.memory import SmemAllocator

    kind = cutlass_type(dtype)
    tile = threads * items
    v = run_items(kind.width // 8, items)  # striped_vectors' run

    @cute.kernel
    def kernel(x: cute.Tensor, y: cute.Tensor) -> None:
        b, _, _ = cute.arch.block_idx()
        rank = cute.arch.block_idx_in_cluster() if cutlass.const_expr(cluster > 1) else 0
        offset = (b // cluster) * n + rank * tile
        row = SmemAllocator().allocate_tensor(kind, cute.make_layout(tile), byte_alignment=128)
        coop.block.load_to_shared(x, row, tile, offset=offset)
        t, _, _ = cute.arch.thread_idx()
        xs = coop.ThreadData(items, kind)
        for i in cutlass.range_constexpr(items):  # striped_vectors' item i: run i // v, item i % v
            xs[i] = row[((i // v) * threads + t) * v + i % v]
        _softmax_items(xs, items, cluster)
        coop.block.store(y, xs, offset=offset, algorithm="striped_vectors")

    return kernel


def layernorm(n: int, cluster: int, threads: int, items: int, variant: str = "welford") -> Any:
    """y = (x - mean) / sqrt(var + eps) * w + b: each thread's (count, mean, M2), one block (cluster)
    reduce of the tuple with Chan's combination (variant ``sumsq``: one sum of (sum, sum of squares))."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop

    tile = threads * items
    assert cluster * tile == n
    use_welford = variant == "welford"

    def welford(p, q):  # type: ignore[no-untyped-def]
        m = p[0] + q[0]
        d = q[1] - p[1]
        f = q[0] * cute.arch.rcp_approx(m)  # an IEEE division would leave ptxas's slow-path CALL
        return m, p[1] + d * f, p[2] + q[2] + d * d * p[0] * f

    @cute.kernel
    def kernel(x: cute.Tensor, w: cute.Tensor, bias: cute.Tensor, y: cute.Tensor) -> None:
        b, _, _ = cute.arch.block_idx()
        rank = cute.arch.block_idx_in_cluster() if cutlass.const_expr(cluster > 1) else 0
        offset = (b // cluster) * n + rank * tile
        xs = coop.ThreadData(items, cutlass.Float32)
        coop.block.load(x, xs, offset=offset, algorithm="striped")
        s = cutlass.Float32(0.0)
        for i in cutlass.range_constexpr(items):
            s += xs[i]
        if cutlass.const_expr(use_welford):
            tm = s * (1.0 / items)
            m2 = cutlass.Float32(0.0)
            for i in cutlass.range_constexpr(items):
                d = xs[i] - tm
                m2 += d * d
            stats = (cutlass.Float32(items), tm, m2)
            if cutlass.const_expr(cluster > 1):
                r = coop.cluster.reduce(stats, welford)
            else:
                r = coop.block.reduce(stats, welford, broadcast=True)
            mean = r[1]
            var = r[2] * (1.0 / n)
        else:
            sq = cutlass.Float32(0.0)
            for i in cutlass.range_constexpr(items):
                sq += xs[i] * xs[i]
            if cutlass.const_expr(cluster > 1):
                r = coop.cluster.sum((s, sq))
            else:
                r = coop.block.sum((s, sq), broadcast=True)
            mean = r[0] * (1.0 / n)
            var = r[1] * (1.0 / n) - mean * mean
        rstd = cute.math.rsqrt(var + EPS)
        tx, _, _ = cute.arch.thread_idx()
        base = rank * tile + tx  # weight and bias read as each item is scaled (striped)
        for i in cutlass.range_constexpr(items):
            xs[i] = (xs[i] - mean) * rstd * w[base + i * threads] + bias[base + i * threads]
        coop.block.store(y, xs, offset=offset, algorithm="striped")

    @cute.jit
    def host(x: cute.Tensor, w: cute.Tensor, bias: cute.Tensor, y: cute.Tensor) -> None:
        rows = cute.size(x) // n
        kernel(x, w, bias, y).launch(
            grid=(rows * cluster, 1, 1),
            block=(threads, 1, 1),
            cluster=(cluster, 1, 1) if cutlass.const_expr(cluster > 1) else None,
        )

    return host


def cross_entropy(n: int, cluster: int, threads: int, items: int, variant: str = "online") -> Any:
    """loss = logsumexp(x) - x[label]: each thread's (max, sum of exp(x - max)) over its tiles, one
    block (cluster) reduce of the pair (variant ``twice``: a max, then a sum); the label's logit read
    directly by thread 0 of the row's first block."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop

    tile = threads * items
    tiles = n // (cluster * tile)
    assert cluster * tiles * tile == n
    online = variant == "online"

    def max_sum(p, q):  # type: ignore[no-untyped-def]
        m = cutlass.max(p[0], q[0])
        return m, (
            p[1] * cute.math.exp2((p[0] - m) * LOG2E, fastmath=True)
            + q[1] * cute.math.exp2((q[0] - m) * LOG2E, fastmath=True)
        )

    @cute.kernel
    def kernel(x: cute.Tensor, labels: cute.Tensor, loss: cute.Tensor) -> None:
        b, _, _ = cute.arch.block_idx()
        tx, _, _ = cute.arch.thread_idx()
        rank = cute.arch.block_idx_in_cluster() if cutlass.const_expr(cluster > 1) else 0
        row = b // cluster
        first = row * n + rank * (tiles * tile)
        xs = coop.ThreadData(items, cutlass.Float32)
        m = -cutlass.Float32.inf
        s = cutlass.Float32(0.0)
        for j in cutlass.range(tiles):
            coop.block.load(x, xs, offset=first + j * tile, algorithm="striped")
            top = m
            for i in cutlass.range_constexpr(items):
                top = cutlass.max(top, xs[i])
            s = s * cute.math.exp2((m - top) * LOG2E, fastmath=True)  # 0 at the first tile
            for i in cutlass.range_constexpr(items):
                s += cute.math.exp2((xs[i] - top) * LOG2E, fastmath=True)
            m = top
        if cutlass.const_expr(online):
            if cutlass.const_expr(cluster > 1):
                r = coop.cluster.reduce((m, s), max_sum)
            else:
                r = coop.block.reduce((m, s), max_sum, broadcast=True)
            top = r[0]
            total = r[1]
        else:
            if cutlass.const_expr(cluster > 1):
                top = coop.cluster.reduce(m, "max")
                total = coop.cluster.sum(s * cute.math.exp2((m - top) * LOG2E, fastmath=True))
            else:
                top = coop.block.reduce(m, "max", broadcast=True)
                total = coop.block.sum(s * cute.math.exp2((m - top) * LOG2E, fastmath=True))
        if (rank == 0) & (tx == 0):
            label = labels[row]
            if label == IGNORE_INDEX:
                loss[row] = cutlass.Float32(0.0)
            else:
                loss[row] = top + cute.math.log(total, fastmath=True) - x[row * n + label]

    @cute.jit
    def host(x: cute.Tensor, labels: cute.Tensor, loss: cute.Tensor) -> None:
        rows = cute.size(x) // n
        kernel(x, labels, loss).launch(
            grid=(rows * cluster, 1, 1),
            block=(threads, 1, 1),
            cluster=(cluster, 1, 1) if cutlass.const_expr(cluster > 1) else None,
        )

    return host


def argmax(n: int, cluster: int, threads: int, items: int, variant: str = "items") -> Any:
    """The row's largest value and its first index: ``coop.block.argmax`` (``coop.cluster.argmax``)
    of the striped items with their row indices (variant ``arranged``: with their default striped
    indices; ``auto``: loaded with ``algorithm="auto"``, numbered ``arrangement="auto"``); with
    several tiles a block (or variant ``loop``), each thread's first
    largest over them, then the argmax of those scalars."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop

    tile = threads * items
    tiles = n // (cluster * tile)
    assert cluster * tiles * tile == n
    load = "auto" if variant == "auto" else "striped"

    @cute.kernel
    def kernel(x: cute.Tensor, values: cute.Tensor, indices: cute.Tensor) -> None:
        b, _, _ = cute.arch.block_idx()
        t, _, _ = cute.arch.thread_idx()
        rank = cute.arch.block_idx_in_cluster() if cutlass.const_expr(cluster > 1) else 0
        row = b // cluster
        first = rank * (tiles * tile)  # the block's first item in the row
        xs = coop.ThreadData(items, cutlass.Float32)
        if cutlass.const_expr(tiles == 1 and variant in ("arranged", "auto")):
            # the striped items (in runs: auto) with their default indices (no index per item)
            coop.block.load(x, xs, offset=row * n + first, algorithm=load)
            if cutlass.const_expr(cluster > 1):
                r = coop.cluster.argmax(xs, arrangement=load)
            else:
                r = coop.block.argmax(xs, arrangement=load)
        elif cutlass.const_expr(tiles == 1 and variant in ("items", "arranged")):
            coop.block.load(x, xs, offset=row * n + first, algorithm="striped")
            where = coop.ThreadData(items, cutlass.Int32)
            for i in cutlass.range_constexpr(items):
                where[i] = first + t + i * threads  # striped: item i of thread t
            if cutlass.const_expr(cluster > 1):
                r = coop.cluster.argmax(xs, indices=where)
            else:
                r = coop.block.argmax(xs, indices=where)
        else:
            best = -cutlass.Float32.inf
            at = cutlass.Int32(first + t)
            for j in cutlass.range(tiles):
                coop.block.load(x, xs, offset=row * n + first + j * tile, algorithm="striped")
                for i in cutlass.range_constexpr(items):
                    better = xs[i] > best  # indices ascend: the first of equal values stays
                    at = cutlass.select_(better, cutlass.Int32(first + j * tile + t + i * threads), at)
                    best = cutlass.select_(better, xs[i], best)
            if cutlass.const_expr(cluster > 1):
                r = coop.cluster.argmax(best, indices=at)
            else:
                r = coop.block.argmax(best, indices=at)
        if (rank == 0) & (t == 0):
            values[row] = r[0]
            indices[row] = cutlass.Int64(r[1])

    @cute.jit
    def host(x: cute.Tensor, values: cute.Tensor, indices: cute.Tensor) -> None:
        rows = cute.size(x) // n
        kernel(x, values, indices).launch(
            grid=(rows * cluster, 1, 1),
            block=(threads, 1, 1),
            cluster=(cluster, 1, 1) if cutlass.const_expr(cluster > 1) else None,
        )

    return host


def topk(n: int, wr: int, threads: int, items: int, variant: str = "bitonic") -> Any:
    """The row's ``TOPK`` largest values and their indices (largest first, ties to the smaller index):
    the design of ``numba_topk`` (``bitonic``) in rows.py (a warp streams its part of the row through a
    threshold, its candidates' indices into 32 pending slots in shared memory, merged into a list of 16
    (32 for k = 32) in registers by shuffle networks), ``wr`` warps a row."""
    import cutlass
    import cutlass.cute as cute
    from cuda import coop
    from cutlass.memory import SmemAllocator

    k, cap = TOPK, 32
    warps = threads // 32
    rows_per_block = warps // wr
    span = n // wr
    wtile = 32 * items
    tiles = span // wtile
    assert tiles * wtile * wr == n
    merge = max(wr * k // 32, 1)
    bits = 64 if items > 32 else 32
    word = cutlass.Uint64 if items > 32 else cutlass.Uint32  # a lane's mask: item i at bit bits - 1 - i
    topbit = 1 << (bits - 1)
    big = 2**31 - 1
    ninf = float("-inf")
    stages = tuple((s, s >> e) for s in (2, 4, 8, 16) for e in range(1, s.bit_length()))
    lanes = 16 if k <= 16 else 32  # the list's lanes (its best ``lanes`` are kept; lane k - 1 is the k-th)
    down = (8, 4, 2, 1) if lanes == 16 else (16, 8, 4, 2, 1)

    def before(a, b):  # type: ignore[no-untyped-def]
        return (a[0] > b[0]) | ((a[0] == b[0]) & (a[1] < b[1]))

    def exchange(v, i, d, up):  # type: ignore[no-untyped-def]
        """(v, i) and lane ^ d's: the better (``before``) if ``up``, else the other."""
        pv = cute.arch.shuffle_sync_bfly(v, offset=d)
        pi = cute.arch.shuffle_sync_bfly(i, offset=d)
        take = ((pv > v) | ((pv == v) & (pi < i))) == up
        return cutlass.Float32(cutlass.select_(take, pv, v)), cutlass.Int32(cutlass.select_(take, pi, i))

    def direction(lane, s, d):  # type: ignore[no-untyped-def]
        """Whether lane keeps the better at distance d in blocks of s lanes (a bitonic network that
        sorts blocks of 16, lanes 0-15 descending, 16-31 ascending)."""
        return ((lane & d) == 0) == ((lane & s) == 0)

    @cute.kernel
    def kernel(x: cute.Tensor, values: cute.Tensor, indices: cute.Tensor) -> None:
        t, _, _ = cute.arch.thread_idx()
        b, _, _ = cute.arch.block_idx()
        lane = t % 32
        w = t // 32
        row = b * rows_per_block + w // wr
        part = w % wr
        smem = SmemAllocator()
        slots = smem.allocate_tensor(cutlass.Int32, cute.make_layout((warps, cap), stride=(cap, 1)), 16)
        xs = coop.ThreadData(items, cutlass.Float32)
        lv = cutlass.Float32(ninf)  # the list: lane l < 16 holds its l-th best (value, index) so far
        li = cutlass.Int32(big)
        tau = cutlass.Float32(ninf)
        pend = cutlass.Int32(0)
        for j in cutlass.range(tiles):
            first = part * span + j * wtile  # the tile's first item in the row
            coop.warp.load(x, xs, offset=row * n + first, algorithm="striped")
            mask = word(0)
            if j == 0:  # the threshold: the 16th largest of the lanes' maxima
                m = cutlass.Float32(ninf)
                for i in cutlass.range_constexpr(items):
                    m = cute.arch.fmax(m, xs[i])
                if cutlass.const_expr(lanes == 16):
                    for s, d in stages:
                        p = cute.arch.shuffle_sync_bfly(m, offset=d)
                        m = cutlass.Float32(
                            cutlass.select_(direction(lane, s, d), cute.arch.fmax(m, p), cute.arch.fmin(m, p))
                        )
                    m = cute.arch.fmax(m, cute.arch.shuffle_sync_bfly(m, offset=16))  # the best 16
                for d in down:  # the least of the best 16 (32: of all the lanes' maxima)
                    m = cute.arch.fmin(m, cute.arch.shuffle_sync_bfly(m, offset=d))
                for i in cutlass.range_constexpr(items):
                    mask = word(cutlass.select_(xs[i] >= m, mask | word(topbit >> i), mask))
            else:
                for i in cutlass.range_constexpr(items):
                    mask = word(cutlass.select_(xs[i] > tau, mask | word(topbit >> i), mask))
            off, total = coop.warp.exclusive_sum(cutlass.Int32(cute.arch.popc(mask)), warp_aggregate=True)
            recount = (pend > 0) & (pend + total > cap)  # merge the pending first, count again
            done = cutlass.Int32(0)
            r = off  # the rank of the lane's next candidate in the tile
            more = True
            while more:
                if ~recount:  # ranks done .. done + take - 1 to slots pend ..
                    lim = done + cutlass.min(total - done, cap - pend)
                    while (mask != 0) & (r < lim):
                        i = cute.arch.clz(mask)
                        slots[w, pend + r - done] = first + lane + 32 * cutlass.Int32(i)
                        mask = mask ^ (word(topbit) >> word(i))
                        r += 1
                    pend += lim - done
                    done = lim
                again = recount | (done < total)
                if again | ((pend > 0) & ((j == tiles - 1) | (pend >= k))):
                    cute.arch.sync_warp()
                    cv = cutlass.Float32(ninf)
                    ci = cutlass.Int32(big)
                    if lane < pend:
                        ci = slots[w, lane]
                        cv = x[row * n + ci]
                    for s, d in stages:  # the pending's best 16 (32) ascending in lanes 0-15 (0-31)
                        cv, ci = exchange(cv, ci, d, direction(lane, s, d))
                    if cutlass.const_expr(lanes == 16):
                        cv, ci = exchange(cv, ci, 16, lane < 16)
                    for d in down:
                        cv, ci = exchange(cv, ci, d, (lane & d) != 0)
                    keep = (cv > lv) | ((cv == lv) & (ci < li))  # list descending, pending ascending
                    lv = cutlass.Float32(cutlass.select_(keep, cv, lv))
                    li = cutlass.Int32(cutlass.select_(keep, ci, li))
                    for d in down:  # the bitonic best 16 (32) sorted descending
                        lv, li = exchange(lv, li, d, (lane & d) == 0)
                    tau = coop.warp.broadcast(lv, k - 1)
                    pend = cutlass.Int32(0)
                    cute.arch.sync_warp()
                    if recount:  # this tile against the new threshold (the list holds earlier items)
                        mask = word(0)
                        for i in cutlass.range_constexpr(items):
                            mask = word(cutlass.select_(xs[i] > tau, mask | word(topbit >> i), mask))
                        off, total = coop.warp.exclusive_sum(
                            cutlass.Int32(cute.arch.popc(mask)), warp_aggregate=True
                        )
                        r = off
                recount = cutlass.Boolean(False)
                more = again
        if cutlass.const_expr(wr == 1):
            if lane < k:
                values[row * k + lane] = lv
                indices[row * k + lane] = cutlass.Int64(li)
        else:
            bv = smem.allocate_tensor(cutlass.Float32, cute.make_layout((warps, k), stride=(k, 1)), 16)
            bi = smem.allocate_tensor(cutlass.Int32, cute.make_layout((warps, k), stride=(k, 1)), 16)
            if lane < k:
                bv[w, lane] = lv
                bi[w, lane] = li
            cute.arch.barrier()
            if part == 0:
                mv = coop.ThreadData(merge, cutlass.Float32)
                mi = coop.ThreadData(merge, cutlass.Int32)
                for s in cutlass.range_constexpr(merge):
                    e = lane * merge + s
                    mv[s] = bv[w + e // k, e % k]
                    mi[s] = bi[w + e // k, e % k]
                coop.warp.merge_sort((mv, mi), before)
                for s in cutlass.range_constexpr(merge):
                    if lane * merge + s < k:
                        values[row * k + lane * merge + s] = mv[s]
                        indices[row * k + lane * merge + s] = cutlass.Int64(mi[s])

    @cute.jit
    def host(x: cute.Tensor, values: cute.Tensor, indices: cute.Tensor) -> None:
        rows = cute.size(x) // n
        kernel(x, values, indices).launch(grid=(rows // rows_per_block, 1, 1), block=(threads, 1, 1))

    return host
