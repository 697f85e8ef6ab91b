# SPDX-License-Identifier: Apache-2.0
"""NumPy record dtypes as items in Numba kernels (issue 18), for tests/test_structured_items.py, in a
process of its own:

    python -m tests._structured_records aot   # compile ahead of time, print SASS facts per kernel
    python -m tests._structured_records gpu   # run against NumPy, print "<check> ok"

Records are held as C structs (arrays of structs): ``coop.ThreadData(n, REC)``, arrays of ``REC``,
a record value (``items[0]``, ``init[0]``), and results of the payload's record type. Operators
receive two records and return a tuple of field values or one of the records. ``io``: a
transposing load and store of a record array, a reduce, sums and scans by operators returning a
tuple, an exclusive scan seeded with a record, a running prefix in a
one-record ThreadData over tiles. ``mixed``: a record array loaded into a tuple of ThreadData and
stored back, a tuple of arrays loaded into record ThreadData (per field) and stored as records.
``sort``: a merge sort of 3-field records by a lexicographic comparator, an exchange, a warp reduce
and a block shuffle of records. ``pick``: reduces by operators returning one of the records (by
``if`` and by one expression). One block of 16 x 8 threads x 3 items per tile.
"""

import sys

import numpy as np

BX, BY, ITEMS, ROWS, TILES, WIDTH = 16, 8, 3, 3, 2, 8
THREADS = BX * BY
TILE = THREADS * ITEMS
REC = np.dtype([("v", np.float32), ("i", np.int32)], align=True)
REC3 = np.dtype([("a", np.int8), ("x", np.float64), ("c", np.int16)], align=True)  # offsets 0, 8, 16

#: kernel -> (inputs, outputs), by name, in its parameter order
KERNELS = {
    "io": (("r", "init"), ("copy", "best", "total", "scan", "xscan", "run")),
    "mixed": (("r", "v", "i"), ("soa_v", "soa_i", "aos")),
    "sort": (("r3",), ("sorted", "striped", "wbest", "up")),
    "pick": (("r",), ("picked", "picked2")),
}
CHECKS = [name for _ins, outs in KERNELS.values() for name in outs]


def data(rng: np.random.Generator) -> dict[str, np.ndarray]:
    n = ROWS * TILES * TILE
    r = np.zeros(n, REC)
    r["v"] = rng.integers(-20, 20, n) / 4  # exact sums; ties for the reduce
    r["i"] = rng.integers(-1000, 1000, n)
    init = np.zeros(1, REC)
    init["v"], init["i"] = rng.integers(-8, 8) / 2, rng.integers(-50, 50)
    r3 = np.zeros(ROWS * TILE, REC3)
    r3["a"] = rng.integers(-3, 3, r3.size)  # few values: ties on the first field
    r3["x"] = rng.integers(-4, 4, r3.size) / 2
    r3["c"] = rng.permutation(r3.size)  # distinct: a total order
    return {"r": r, "init": init, "v": r["v"].copy(), "i": r["i"].copy(), "r3": r3}


def outputs() -> dict[str, tuple[int, np.dtype]]:
    """Each output: (size, dtype); poisoned with bytes 0x5A."""
    n, rows = ROWS * TILES * TILE, ROWS * TILES
    return {
        "copy": (n, REC), "best": (rows, REC), "total": (rows, REC), "scan": (n, REC), "xscan": (n, REC),
        "run": (ROWS, REC), "soa_v": (n, np.dtype(np.float32)), "soa_i": (n, np.dtype(np.int32)),
        "aos": (n, REC), "sorted": (ROWS * TILE, REC3), "striped": (ROWS * TILE, REC3),
        "wbest": (ROWS * THREADS // WIDTH, REC), "up": (ROWS * TILE, REC3), "picked": (ROWS * TILES, REC),
        "picked2": (ROWS * TILES, REC),
    }  # fmt: skip


def poisoned(size: int, dtype: np.dtype) -> np.ndarray:
    return np.frombuffer(b"\x5a" * (size * dtype.itemsize), dtype).copy()


def _best(tile: np.ndarray) -> np.ndarray:
    """The largest v, ties to the smallest i."""
    order = np.lexsort((tile["i"], -tile["v"]))
    return tile[order[0]]


def _scan(tile: np.ndarray, first: tuple[float, int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(inclusive, exclusive seeded with ``first``) field-wise sums; int32 wraps as C's does."""
    v = np.cumsum(tile["v"], dtype=np.float64).astype(np.float32)
    i = np.cumsum(tile["i"].astype(np.int64)).astype(np.int32)
    inc = np.zeros(tile.size, REC)
    inc["v"], inc["i"] = v, i
    exc = np.zeros(tile.size, REC)
    if first is not None:
        exc["v"] = np.float32(first[0]) + np.concatenate([[0], v[:-1]]).astype(np.float32)
        exc["i"] = (np.int64(first[1]) + np.concatenate([[0], i[:-1]])).astype(np.int32)
    return inc, exc


def expected(d: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    r, init = d["r"], d["init"][0]
    tiles = r.reshape(ROWS * TILES, TILE)
    want: dict[str, np.ndarray] = {"copy": r.copy()}
    want["best"] = want["picked"] = want["picked2"] = np.array([_best(t) for t in tiles], REC)
    total = np.zeros(ROWS * TILES, REC)
    total["v"], total["i"] = tiles["v"].sum(axis=1), tiles["i"].astype(np.int64).sum(axis=1).astype(np.int32)
    want["total"] = total
    scans = [_scan(t, (init["v"], init["i"])) for t in tiles]
    want["scan"] = np.concatenate([s[0] for s in scans])
    want["xscan"] = np.concatenate([s[1] for s in scans])
    run = np.zeros(ROWS, REC)  # the running prefix after both tiles of a row: init + the row's sum
    rows = r.reshape(ROWS, TILES * TILE)
    run["v"] = np.float32(init["v"]) + rows["v"].sum(axis=1)
    run["i"] = (np.int64(init["i"]) + rows["i"].astype(np.int64).sum(axis=1)).astype(np.int32)
    want["run"] = run
    want["soa_v"], want["soa_i"], want["aos"] = r["v"], r["i"], r.copy()
    r3 = d["r3"].reshape(ROWS, TILE)
    want["sorted"] = np.concatenate([t[np.lexsort((t["c"], t["x"], t["a"]))] for t in r3])
    # blocked -> striped: thread t's item j is the tile's item t + j*THREADS, stored at t*ITEMS + j
    striped = np.empty_like(r3)
    for t in range(THREADS):
        for j in range(ITEMS):
            striped[:, t * ITEMS + j] = r3[:, t + j * THREADS]
    want["striped"] = striped.reshape(-1)
    # each logical warp's best of its lanes' first records (as REC: v from x, i from c)
    firsts = r3[:, 0 : THREADS * ITEMS : ITEMS].reshape(ROWS, THREADS // WIDTH, WIDTH)
    wbest = np.zeros((ROWS, THREADS // WIDTH), REC)
    wbest["v"] = firsts["x"].max(axis=2)
    wbest["i"] = firsts["c"].max(axis=2)
    want["wbest"] = wbest.reshape(-1)
    up = r3.copy()  # shuffle up by one item: item p takes item p-1's record; item 0 keeps its own
    up[:, 1:] = r3[:, :-1]
    want["up"] = up.reshape(-1)
    return want


def check_all(got: dict[str, np.ndarray], d: dict[str, np.ndarray]) -> None:
    want = expected(d)
    for name in CHECKS:
        g, w = got[name], want[name]
        bad = np.flatnonzero(g != w)
        shown = f"{g[bad[:3]]} want {w[bad[:3]]}"
        print(f"{name} ok" if not bad.size else f"{name} WRONG at {bad[:8].tolist()} of {g.size}: {shown}")


def kernels() -> dict[str, object]:
    from cuda import coop
    from numba import cuda

    def best(a, b):  # type: ignore[no-untyped-def]  # returns one of the records
        if b.v > a.v or (b.v == a.v and b.i < a.i):
            return b
        return a

    def best_fields(a, b):  # type: ignore[no-untyped-def]  # the same, as a tuple of field values
        if b.v > a.v or (b.v == a.v and b.i < a.i):
            return b.v, b.i
        return a.v, a.i

    def add(a, b):  # type: ignore[no-untyped-def]  # returns a tuple of field values
        return a.v + b.v, a.i + b.i

    def io_kernel(r, init, copy, best_out, total, scan, xscan, run_out):  # type: ignore[no-untyped-def]
        row = cuda.blockIdx.x
        t = cuda.threadIdx.x + BX * cuda.threadIdx.y
        run = coop.ThreadData(1, REC)
        run[0] = init[0]
        for tile in range(TILES):
            base = (row * TILES + tile) * TILE
            items = coop.ThreadData(ITEMS, REC)
            coop.block.load(r, items, offset=base, algorithm="transpose")
            coop.block.store(copy, items, offset=base, algorithm="warp_transpose")
            b = coop.block.reduce(items, best_fields)
            s = coop.block.sum(items)
            inc = coop.block.inclusive_scan(items, add)
            exc = coop.block.exclusive_scan(items, add, initial_value=init[0])
            coop.block.inclusive_scan(items, add, prefix_op=run)
            coop.block.store(scan, inc, offset=base)
            coop.block.store(xscan, exc, offset=base)
            if t == 0:
                best_out[row * TILES + tile] = b
                total[row * TILES + tile] = s
        if t == 0:
            run_out[row] = run[0]

    def mixed_kernel(r, v, i, soa_v, soa_i, aos):  # type: ignore[no-untyped-def]
        for tile in range(TILES):
            at = (cuda.blockIdx.x * TILES + tile) * TILE
            pair = (coop.ThreadData(ITEMS, np.float32), coop.ThreadData(ITEMS, np.int32))
            coop.block.load(r, pair, offset=at, algorithm="striped")  # structs into a tuple
            coop.block.store((soa_v, soa_i), pair, offset=at, algorithm="striped")
            items = coop.ThreadData(ITEMS, REC)
            coop.block.load((v, i), items, offset=at, algorithm="vectorize")  # fields into structs
            coop.block.store(aos, items, offset=at)

    def lex(p, q):  # type: ignore[no-untyped-def]
        return p.a < q.a or (p.a == q.a and (p.x < q.x or (p.x == q.x and p.c < q.c)))

    def wmax(p, q):  # type: ignore[no-untyped-def]
        return p.a, max(p.x, q.x), max(p.c, q.c)

    def sort_kernel(r3, sorted_out, striped, wbest, up):  # type: ignore[no-untyped-def]
        row = cuda.blockIdx.x
        t = cuda.threadIdx.x + BX * cuda.threadIdx.y
        base = row * TILE
        items = coop.ThreadData(ITEMS, REC3)
        coop.block.load(r3, items, offset=base)
        moved = coop.ThreadData(ITEMS, REC3)
        coop.block.exchange(items, "blocked_to_striped", out=moved)
        coop.block.store(striped, moved, offset=base)  # blocked: thread t's items in a row
        shifted = coop.block.shuffle(items, mode="up")
        coop.block.store(up, shifted, offset=base)
        w = coop.warp.reduce(items[0], wmax, threads_in_warp=WIDTH)
        if t % WIDTH == 0:
            wbest[row * (THREADS // WIDTH) + t // WIDTH].v = w.x
            wbest[row * (THREADS // WIDTH) + t // WIDTH].i = w.c
        coop.block.merge_sort(items, lex)
        coop.block.store(sorted_out, items, offset=base)

    def best_ternary(a, b):  # type: ignore[no-untyped-def]  # the same, one expression
        return b if b.v > a.v or (b.v == a.v and b.i < a.i) else a

    def pick_kernel(r, picked, picked2):  # type: ignore[no-untyped-def]  # operators returning a record
        for tile in range(TILES):
            at = (cuda.blockIdx.x * TILES + tile) * TILE
            items = coop.ThreadData(ITEMS, REC)
            coop.block.load(r, items, offset=at)
            b = coop.block.reduce(items, best)
            b2 = coop.block.reduce(items, best_ternary)
            if cuda.threadIdx.x == 0 and cuda.threadIdx.y == 0:
                picked[cuda.blockIdx.x * TILES + tile] = b
                picked2[cuda.blockIdx.x * TILES + tile] = b2

    return {"io": io_kernel, "mixed": mixed_kernel, "sort": sort_kernel, "pick": pick_kernel}


def _signature(name: str) -> tuple[object, ...]:
    from numba.cuda import types
    from numba.cuda.np import numpy_support

    ins, outs = KERNELS[name]
    dtypes = {k: v.dtype for k, v in data(np.random.default_rng(0)).items()}
    dtypes |= {k: t for k, (_n, t) in outputs().items()}
    return tuple(types.Array(numpy_support.from_dtype(dtypes[k]), 1, "C") for k in (*ins, *outs))


def aot() -> None:
    import cuda.coop.numba as numba_coop
    from cuda import coop

    for name, kernel in kernels().items():
        before = coop.compile_stats().nvrtc_compiles
        r = numba_coop.compile(kernel, _signature(name), block=(BX, BY)).inspect()
        nvrtc = coop.compile_stats().nvrtc_compiles - before
        print(
            name,
            r.calls,
            r.local_loads,
            r.local_stores,
            len(r.functions),
            "nvrtc<=1" if nvrtc <= 1 else nvrtc,
        )


def gpu() -> None:
    import cuda.coop.numba as numba_coop
    from numba import cuda

    d = data(np.random.default_rng())
    out = {k: cuda.to_device(poisoned(n, t)) for k, (n, t) in outputs().items()}
    for name, kernel in kernels().items():
        ins, outs = KERNELS[name]
        numba_coop.jit(kernel)[ROWS, (BX, BY)](*[cuda.to_device(d[i]) for i in ins], *[out[o] for o in outs])
    cuda.synchronize()
    check_all({k: v.copy_to_host() for k, v in out.items()}, d)


if __name__ == "__main__":
    {"aot": aot, "gpu": gpu}[sys.argv[1]]()
