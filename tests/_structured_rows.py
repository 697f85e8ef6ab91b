# SPDX-License-Identifier: Apache-2.0
"""Structured items where the result is not field by field (issue 18), for
tests/test_structured_items.py, in a process of their own:

    python -m tests._structured_rows aot numba|cute   # compile ahead of time, print SASS facts
    python -m tests._structured_rows gpu numba|cute   # run against NumPy, print "<check> ok"

``arg``: block and warp argmax / argmin (ThreadData and scalars, own and default indices, blocked
and striped, broadcast) over rows with ties and NaNs, against ``np.argmax`` / ``np.argmin``. ``sort``: a block
merge sort of (int8, float32) keys by a lexicographic comparator on tuples, with (int32, float64)
values; a radix sort and a top-k with tuple values; a warp merge sort of tuple keys. ``neighbours``:
adjacent differences and discontinuity flags by user functions on tuples, block shuffles of
tuples of ThreadData. ``loop``: the argmax of a row written as the docs advise for many items (each
thread keeps its first largest with the NaN rule spelled ``x != x``, then ``coop.block.argmax`` of
that pair, and a ``reduce`` of the pairs by a user operator with ``raking_commutative_only``), on
the rows with NaNs. One block of 128 threads x 4 items per row. The Numba kernels run under
numba-cuda and numba-cuda-mlir (``numba_mlir``).
"""

import sys

import numpy as np

from ._numba_family import front

try:  # CuTe reads the kernels' annotations from this module's globals
    import cutlass
    import cutlass.cute as cute
except ImportError:  # the Numba half runs without it
    cutlass = cute = None

THREADS, ITEMS, ROWS, WIDTH, K = 128, 4, 4, 8, 37
TILE = THREADS * ITEMS
WARPS = THREADS // WIDTH  # logical warps per row (block)
SORT_WIDTH = 16

#: kernel -> (inputs, outputs), by name, in its parameter order
KERNELS = {
    "arg": (
        ("v",),
        (
            "amax_v",
            "amax_i",
            "amin_v",
            "amin_i",
            "samax_i",
            "wamax_i",
            "wamin_i",
            "stmax_v",
            "stmax_i",
            "stmin_i",
            "wsmin_i",
        ),
    ),  # fmt: skip
    "sort": (
        ("k0", "k1", "w", "rk", "tk"),
        ("m_k0", "m_k1", "m_pos", "m_w", "r_pos", "r_w", "t_key", "t_pos", "t_w", "ws_k0", "ws_k1", "ws_pos"),
    ),
    "neighbours": (("k0", "k1"), ("d0", "d1", "flags", "up0", "up1", "down0", "down1")),
    "loop": (("v",), ("lmax_v", "lmax_i", "rmax_i")),
}
CHECKS = [name for _ins, outs in KERNELS.values() for name in outs]


def data(rng: np.random.Generator) -> dict[str, np.ndarray]:
    v = (rng.integers(-12, 12, size=(ROWS, TILE)) / 4).astype(np.float32)  # ties everywhere
    v[1, rng.integers(0, TILE)] = np.nan
    v[3, rng.choice(TILE, 2, replace=False)] = np.nan  # the first of two NaNs wins
    v[2, rng.integers(0, TILE)] = np.inf
    tk = np.stack([rng.permutation(TILE) for _ in range(ROWS)]).astype(np.float32) - 100  # distinct
    return {
        "v": v.reshape(-1),
        "k0": rng.integers(-3, 3, ROWS * TILE).astype(np.int8),  # few values: ties on the first field
        "k1": rng.integers(-4, 4, ROWS * TILE).astype(np.float32),
        "w": rng.standard_normal(ROWS * TILE),
        "rk": rng.integers(0, 50, ROWS * TILE).astype(np.uint16),
        "tk": tk.reshape(-1),
    }


def outputs() -> dict[str, tuple[int, type, float]]:
    """Each output: (size, dtype, poison)."""
    n, f32, f64, i32, i8 = ROWS * TILE, np.float32, np.float64, np.int32, np.int8
    warps = ROWS * WARPS
    return {
        "amax_v": (ROWS, f32, -7.0), "amax_i": (ROWS, i32, -1), "amin_v": (ROWS, f32, -7.0),
        "amin_i": (ROWS, i32, -1), "samax_i": (ROWS, i32, -1), "wamax_i": (warps, i32, -1),
        "wamin_i": (warps, i32, -1), "stmax_v": (ROWS, f32, -7.0), "stmax_i": (ROWS, i32, -1),
        "stmin_i": (ROWS, i32, -1), "wsmin_i": (warps, i32, -1),
        "m_k0": (n, i8, 99), "m_k1": (n, f32, np.nan), "m_pos": (n, i32, -1), "m_w": (n, f64, np.nan),
        "r_pos": (n, i32, -1), "r_w": (n, f32, np.nan), "t_key": (ROWS * K, f32, np.nan),
        "t_pos": (ROWS * K, i32, -1), "t_w": (ROWS * K, f64, np.nan),
        "ws_k0": (n, i8, 99), "ws_k1": (n, f32, np.nan), "ws_pos": (n, i32, -1),
        "d0": (n, f32, np.nan), "d1": (n, i8, 99), "flags": (n, i32, -1), "up0": (n, i8, 99),
        "up1": (n, f32, np.nan), "down0": (n, i8, 99), "down1": (n, f32, np.nan),
        "lmax_v": (ROWS, f32, -7.0), "lmax_i": (ROWS, i32, -1), "rmax_i": (ROWS, i32, -1),
    }  # fmt: skip


def expected(d: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    v = d["v"].reshape(ROWS, TILE)
    first = v[:, ::ITEMS]  # each thread's first item (index t * ITEMS)
    lanes = first.reshape(ROWS, WARPS, WIDTH)  # a scalar per lane
    tiles = v.reshape(ROWS, WARPS, WIDTH * ITEMS)
    k0, k1 = d["k0"].reshape(ROWS, TILE), d["k1"].reshape(ROWS, TILE)
    w, rk, tk = d["w"].reshape(ROWS, TILE), d["rk"].reshape(ROWS, TILE), d["tk"].reshape(ROWS, TILE)
    pos = np.broadcast_to(np.arange(TILE, dtype=np.int32), (ROWS, TILE))
    lex = np.stack([np.lexsort((k1[r], k0[r])) for r in range(ROWS)])  # stable, k0 first
    rad = np.stack([np.argsort(rk[r], kind="stable") for r in range(ROWS)])
    top = np.stack([np.sort(np.argsort(-tk[r])[:K]) for r in range(ROWS)])  # positions, any order
    seg = np.arange(TILE).reshape(-1, SORT_WIDTH * ITEMS)
    wsort = np.stack(
        [np.concatenate([s[np.lexsort((k1[r][s], k0[r][s]))] for s in seg]) for r in range(ROWS)]
    )
    t0 = np.arange(ROWS)[:, None]
    d0 = k1.copy()
    d0[:, 1:] = k1[:, 1:] - k1[:, :-1]
    d1 = k0.copy()
    d1[:, 1:] = np.maximum(k0[:, 1:], k0[:, :-1])
    heads = np.ones((ROWS, TILE), np.int32)
    heads[:, 1:] = ((k0[:, 1:] != k0[:, :-1]) | (k1[:, 1:] != k1[:, :-1])).astype(np.int32)
    up0, up1, down0, down1 = k0.copy(), k1.copy(), k0.copy(), k1.copy()
    up0[:, 1:], up1[:, 1:] = k0[:, :-1], k1[:, :-1]  # 'up': item i takes item i-1 (the first kept)
    down0[:, :-1], down1[:, :-1] = k0[:, 1:], k1[:, 1:]
    return {
        "amax_v": v[t0[:, 0], np.argmax(v, axis=1)],
        "amax_i": np.argmax(v, axis=1).astype(np.int32),
        "amin_v": v[t0[:, 0], np.argmin(v, axis=1)],
        "amin_i": np.argmin(v, axis=1).astype(np.int32),
        "samax_i": (np.argmax(first, axis=1) * ITEMS).astype(np.int32),
        "wamax_i": np.argmax(lanes, axis=2).astype(np.int32).reshape(-1),
        "wamin_i": np.argmin(tiles, axis=2).astype(np.int32).reshape(-1),
        "stmax_v": v[t0[:, 0], np.argmax(v, axis=1)], "stmax_i": np.argmax(v, axis=1).astype(np.int32),
        "stmin_i": np.argmin(v, axis=1).astype(np.int32),
        "wsmin_i": np.argmin(tiles, axis=2).astype(np.int32).reshape(-1),
        "m_k0": k0[t0, lex].reshape(-1), "m_k1": k1[t0, lex].reshape(-1),
        "m_pos": pos[t0, lex].reshape(-1), "m_w": w[t0, lex].reshape(-1),
        "r_pos": pos[t0, rad].reshape(-1), "r_w": w[t0, rad].astype(np.float32).reshape(-1),
        "t_key": tk[t0, top].reshape(-1), "t_pos": top.astype(np.int32).reshape(-1),
        "t_w": w[t0, top].reshape(-1),
        "ws_k0": k0[t0, wsort].reshape(-1), "ws_k1": k1[t0, wsort].reshape(-1),
        "ws_pos": pos[t0, wsort].reshape(-1),
        "d0": d0.reshape(-1), "d1": d1.reshape(-1), "flags": heads.reshape(-1),
        "up0": up0.reshape(-1), "up1": up1.reshape(-1), "down0": down0.reshape(-1), "down1": down1.reshape(-1),  # noqa: E501
        "lmax_v": v[t0[:, 0], np.argmax(v, axis=1)], "lmax_i": np.argmax(v, axis=1).astype(np.int32),
        "rmax_i": np.argmax(v, axis=1).astype(np.int32),
    }  # fmt: skip


_ANY_ORDER = ("t_key", "t_pos", "t_w")  # top-k: the selected items in no particular order


def check(name: str, got: np.ndarray, want: np.ndarray, by: np.ndarray | None = None) -> None:
    """Print "<name> ok" or what differs (NaNs equal; top-k outputs compared in the order of ``by``,
    each row's selected positions)."""
    if name in _ANY_ORDER and by is not None:
        order = np.argsort(by.reshape(ROWS, K), axis=1)
        got = np.take_along_axis(got.reshape(ROWS, K), order, axis=1).reshape(-1)
    same = (got == want) | (np.isnan(got) & np.isnan(want)) if got.dtype.kind == "f" else got == want
    bad = np.flatnonzero(~same)
    shown = f"{got[bad[:4]]} want {want[bad[:4]]}"
    print(f"{name} ok" if not bad.size else f"{name} WRONG at {bad[:8].tolist()} of {got.size}: {shown}")


def check_all(got: dict[str, np.ndarray], d: dict[str, np.ndarray]) -> None:
    want = expected(d)
    for name in CHECKS:
        check(name, got[name], want[name], got["t_pos"])


# --- Numba ----------------------------------------------------------------------------------------


def first_best(p, q):  # type: ignore[no-untyped-def]
    """Of two (value, index) pairs the one np.argmax takes: a NaN over every number, then the larger,
    ties (and two NaNs) to the smaller index. Commutative and associative."""
    if p[0] != p[0]:
        return q if q[0] != q[0] and q[1] < p[1] else p
    if q[0] != q[0] or q[0] > p[0] or (q[0] == p[0] and q[1] < p[1]):
        return q
    return p


def numba_kernels(backend: str = "numba") -> dict[str, object]:
    from cuda import coop

    if backend == "numba":
        from numba import cuda
    else:
        from numba_cuda_mlir import cuda

    def arg_kernel(  # type: ignore[no-untyped-def]
        v, amax_v, amax_i, amin_v, amin_i, samax_i, wamax_i, wamin_i, stmax_v, stmax_i, stmin_i, wsmin_i
    ):
        t, row = cuda.threadIdx.x, cuda.blockIdx.x
        x = coop.ThreadData(ITEMS, np.float32)
        for i in range(ITEMS):
            x[i] = v[row * TILE + t * ITEMS + i]
        best = coop.block.argmax(x)
        worst = coop.block.argmin(x, broadcast=True)
        own = coop.block.argmax(x[0], indices=t * ITEMS)
        lane = coop.warp.argmax(x[0], threads_in_warp=WIDTH)
        tile = coop.warp.argmin(x, threads_in_warp=WIDTH, broadcast=True)
        # striped items (as a striped load leaves them) with their default striped indices
        s = coop.ThreadData(ITEMS, np.float32)
        w = coop.ThreadData(ITEMS, np.float32)
        for i in range(ITEMS):
            s[i] = v[row * TILE + t + i * THREADS]
            w[i] = v[row * TILE + (t // WIDTH) * WIDTH * ITEMS + t % WIDTH + i * WIDTH]
        sbest = coop.block.argmax(s, arrangement="striped")
        sworst = coop.block.argmin(s, arrangement="striped", broadcast=True)
        wworst = coop.warp.argmin(w, arrangement="striped", threads_in_warp=WIDTH, broadcast=True)
        if t == 0:
            amax_v[row], amax_i[row] = best[0], best[1]
            samax_i[row] = own[1]
            stmax_v[row], stmax_i[row] = sbest[0], sbest[1]
        if t == THREADS - 1:
            amin_v[row], amin_i[row] = worst[0], worst[1]
            stmin_i[row] = sworst[1]
        if t % WIDTH == 0:
            wamax_i[row * WARPS + t // WIDTH] = lane[1]
        if t % WIDTH == WIDTH - 1:
            wamin_i[row * WARPS + t // WIDTH] = tile[1]
            wsmin_i[row * WARPS + t // WIDTH] = wworst[1]

    def lex_less(p, q):  # type: ignore[no-untyped-def]
        return p[0] < q[0] or (p[0] == q[0] and p[1] < q[1])

    def sort_kernel(
        k0, k1, w, rk, tk, m_k0, m_k1, m_pos, m_w, r_pos, r_w, t_key, t_pos, t_w, ws_k0, ws_k1, ws_pos
    ):  # type: ignore[no-untyped-def]  # noqa: E501
        t, base = cuda.threadIdx.x, cuda.blockIdx.x * TILE
        a, b = coop.ThreadData(ITEMS, np.int8), coop.ThreadData(ITEMS, np.float32)
        p, q = coop.ThreadData(ITEMS, np.int32), coop.ThreadData(ITEMS, np.float64)
        rkey, rp, rq = (
            coop.ThreadData(ITEMS, np.uint16),
            coop.ThreadData(ITEMS, np.int32),
            coop.ThreadData(ITEMS, np.float32),
        )  # noqa: E501
        tkey, tp, tq = (
            coop.ThreadData(ITEMS, np.float32),
            coop.ThreadData(ITEMS, np.int32),
            coop.ThreadData(ITEMS, np.float64),
        )  # noqa: E501
        wa, wb, wp = (
            coop.ThreadData(ITEMS, np.int8),
            coop.ThreadData(ITEMS, np.float32),
            coop.ThreadData(ITEMS, np.int32),
        )  # noqa: E501
        for i in range(ITEMS):
            j = t * ITEMS + i
            a[i], b[i], p[i], q[i] = k0[base + j], k1[base + j], j, w[base + j]
            rkey[i], rp[i], rq[i] = rk[base + j], j, w[base + j]
            tkey[i], tp[i], tq[i] = tk[base + j], j, w[base + j]
            wa[i], wb[i], wp[i] = a[i], b[i], j
        coop.block.merge_sort((a, b), lex_less, values=(p, q), stable=True)
        coop.block.radix_sort(rkey, values=(rp, rq))
        coop.block.top_k(tkey, K, values=(tp, tq))
        coop.warp.merge_sort((wa, wb), lex_less, values=wp, threads_in_warp=SORT_WIDTH)
        for i in range(ITEMS):
            j = t * ITEMS + i
            m_k0[base + j], m_k1[base + j], m_pos[base + j], m_w[base + j] = a[i], b[i], p[i], q[i]
            r_pos[base + j], r_w[base + j] = rp[i], rq[i]
            ws_k0[base + j], ws_k1[base + j], ws_pos[base + j] = wa[i], wb[i], wp[i]
            if j < K:
                row = cuda.blockIdx.x * K
                t_key[row + j], t_pos[row + j], t_w[row + j] = tkey[i], tp[i], tq[i]

    def diff(p, q):  # type: ignore[no-untyped-def]  # (item, its left neighbour)
        return p[0] - q[0], max(p[1], q[1])

    def differs(p, q):  # type: ignore[no-untyped-def]
        return p[0] != q[0] or p[1] != q[1]

    def neighbours_kernel(k0, k1, d0, d1, flags, up0, up1, down0, down1):  # type: ignore[no-untyped-def]
        t, base = cuda.threadIdx.x, cuda.blockIdx.x * TILE
        a, b = coop.ThreadData(ITEMS, np.int8), coop.ThreadData(ITEMS, np.float32)
        for i in range(ITEMS):
            a[i], b[i] = k0[base + t * ITEMS + i], k1[base + t * ITEMS + i]
        dd = coop.block.adjacent_difference((b, a), op=diff)
        heads = coop.block.discontinuity((a, b), op=differs)
        up = coop.block.shuffle((a, b), mode="up")
        down = coop.block.shuffle((a, b), mode="down")
        for i in range(ITEMS):
            j = base + t * ITEMS + i
            d0[j], d1[j], flags[j] = dd[0][i], dd[1][i], heads[i]
            up0[j], up1[j], down0[j], down1[j] = up[0][i], up[1][i], down[0][i], down[1][i]

    def loop_kernel(v, lmax_v, lmax_i, rmax_i):  # type: ignore[no-untyped-def]
        t, row = cuda.threadIdx.x, cuda.blockIdx.x
        base = row * TILE + t * ITEMS
        bv, bi = v[base], np.int32(t * ITEMS)
        for i in range(1, ITEMS):
            x = v[base + i]
            if x > bv or (x != x and bv == bv):  # the first largest; a NaN over every number
                bv, bi = x, np.int32(t * ITEMS + i)
        best = coop.block.argmax(bv, indices=bi)
        pair = coop.block.reduce((bv, bi), first_best, algorithm="raking_commutative_only")
        if t == 0:
            lmax_v[row], lmax_i[row], rmax_i[row] = best[0], best[1], pair[1]

    return {"arg": arg_kernel, "sort": sort_kernel, "neighbours": neighbours_kernel, "loop": loop_kernel}


def _numba_sig(name: str) -> str:
    ins, outs = KERNELS[name]
    types = {k: str(v.dtype) for k, v in data(np.random.default_rng(0)).items()}
    types |= {k: np.dtype(t).name for k, (_n, t, _p) in outputs().items()}
    return "void(" + ", ".join(f"{types[k]}[::1]" for k in (*ins, *outs)) + ")"


def numba_aot(backend: str) -> None:
    coop_module, _cuda = front(backend)
    for name, kernel in numba_kernels(backend).items():
        r = coop_module.compile(kernel, _numba_sig(name), block=THREADS).inspect()  # type: ignore[attr-defined]
        print(name, r.calls, r.local_loads, r.local_stores, len(r.functions))


def numba_gpu(backend: str) -> None:
    coop_module, cuda = front(backend)
    d = data(np.random.default_rng())
    out = {k: cuda.to_device(np.full(n, poison, t)) for k, (n, t, poison) in outputs().items()}  # type: ignore[attr-defined]
    for name, kernel in numba_kernels(backend).items():
        ins, outs = KERNELS[name]
        args = [cuda.to_device(d[i]) for i in ins] + [out[o] for o in outs]  # type: ignore[attr-defined]
        coop_module.jit(kernel)[ROWS, THREADS](*args)  # type: ignore[attr-defined]
    cuda.synchronize()  # type: ignore[attr-defined]
    check_all({k: v.copy_to_host() for k, v in out.items()}, d)


if __name__ == "__main__":
    mode, backend = sys.argv[1], sys.argv[2]
    if backend == "cute":
        from . import _structured_rows_cute as cute_half

        {"aot": cute_half.cute_aot, "gpu": cute_half.cute_gpu}[mode]()
    else:
        {"aot": numba_aot, "gpu": numba_gpu}[mode](backend)
